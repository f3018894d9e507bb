/* flame-cli-compare.c: flamediff-cli compare BASE CURRENT
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-cli.h"
#include "flame-cli-options.h"
#include "flame-memory.h"
#include "flame-report.h"

/* Both sides are memory recordings: their totals, each side's the mean
 * of its runs */
static gboolean
memory_totals (FlameComparison   *comparison,
               FlameMemoryTotals *baseline,
               FlameMemoryTotals *current)
{
  for (guint side = 0; side < 2; side++)
    {
      FlameMemoryTotals *sum = side == 0 ? baseline : current;
      guint n = flame_comparison_get_n_runs (comparison, side);

      memset (sum, 0, sizeof *sum);
      if (n == 0)
        return FALSE;
      for (guint run = 0; run < n; run++)
        {
          FlameMemoryTotals t;

          if (!flame_memory_get_totals (flame_comparison_get_run_profile (comparison, side, run),
                                        &t))
            return FALSE;
          sum->allocated_bytes += t.allocated_bytes / n;
          sum->allocations += t.allocations / n;
          sum->peak_bytes += t.peak_bytes / n;
          sum->leaked_bytes += t.leaked_bytes / n;
          sum->peak_processes = MAX (sum->peak_processes, t.peak_processes);
        }
    }
  return TRUE;
}

typedef struct
{
  FlameCliDiffArgs diff_args;
  char            *format;
  char            *output;
  char            *threshold;
  char            *min_abs;
  int              top_n;
  gboolean         fail_on_regression;
  gboolean         ignore_new;
  GStrv            files;
  guint            n_files;
} CompareArgs;

static void
compare_args_clear (CompareArgs *args)
{
  flame_cli_diff_args_clear (&args->diff_args);
  g_clear_pointer (&args->format, g_free);
  g_clear_pointer (&args->output, g_free);
  g_clear_pointer (&args->threshold, g_free);
  g_clear_pointer (&args->min_abs, g_free);
  g_clear_pointer (&args->files, g_strfreev);
}

/* The command line into @args; FALSE (and a message printed) on an error */
static gboolean
parse_compare_options (int          argc,
                       char       **argv,
                       CompareArgs *args)
{
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &args->format,
      "Output format: text, markdown, json or folded (default text)", "FORMAT" },
    { "threshold-pct", 0, 0, G_OPTION_ARG_STRING, &args->threshold,
      "Smallest change in percent that counts (default 5)", "PCT" },
    { "min-abs-ms", 0, 0, G_OPTION_ARG_STRING, &args->min_abs,
      "Smallest change in ms that counts (default 0; bytes or a count for memory and count "
      "profiles)",
      "MS" },
    { "top", 0, 0, G_OPTION_ARG_INT, &args->top_n,
      "Rows per table in text and Markdown (default 10)", "N" },
    { "fail-on-regression", 0, 0, G_OPTION_ARG_NONE, &args->fail_on_regression,
      "Exit with status 2 when a function regressed, or is new, beyond the thresholds (and beyond "
      "the runs' spread with 2 or more runs per side)",
      NULL },
    { "ignore-new", 0, 0, G_OPTION_ARG_NONE, &args->ignore_new,
      "New functions never fail --fail-on-regression", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args->output,
      "Write the report to FILE instead of standard output", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args->files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  args->top_n = 10;
  context = g_option_context_new ("BASELINE CURRENT");
  g_option_context_set_summary (context,
    "Compare two profiles (time, memory or counts) function by function.\n"
    "A single 3-column folded file (stack before after) holds both.\n\n"
    "Profiles must measure the same thing (time, bytes or a count; the\n"
    "same pprof sample type and perf event): others are refused.\n\n"
    "Exit status: 0 success, 1 usage or input error, 2 with\n"
    "--fail-on-regression when a function regressed beyond the thresholds\n"
    "or a new function is beyond them (it costs at least --min-abs-ms;\n"
    "its change counts as +100 %); --ignore-new leaves new functions out.");
  g_option_context_add_main_entries (context, entries, NULL);
  flame_cli_diff_args_add_entries (context, &args->diff_args);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli compare: %s\n", error->message);
      return FALSE;
    }
  args->n_files = args->files ? g_strv_length (args->files) : 0;
  return TRUE;
}

/* The files, --format and the numbers; the diff's and the report's
 * options. FALSE (and a message printed) on an error. */
static gboolean
check_compare_options (CompareArgs        *args,
                       FlameDiffOptions   *dopts,
                       FlameReportOptions *ropts)
{
  const char *format;

  if ((args->n_files < 1 && args->diff_args.baseline == NULL) || args->n_files > 2)
    {
      g_printerr ("flamediff-cli compare: expected BASELINE and CURRENT files\n");
      return FALSE;
    }
  if (args->format == NULL)
    args->format = g_strdup ("text");
  format = args->format;
  if (strcmp (format, "text") != 0 && strcmp (format, "markdown") != 0 &&
      strcmp (format, "json") != 0 && strcmp (format, "folded") != 0)
    {
      g_printerr (
        "flamediff-cli compare: --format: expected text, markdown, json or folded, not “%s”\n",
        format);
      return FALSE;
    }
  if (!flame_cli_diff_args_apply (&args->diff_args, "compare", dopts) ||
      (args->threshold && !flame_cli_parse_double ("compare", "--threshold-pct", args->threshold, 0,
                                                   &ropts->threshold_pct)) ||
      (args->min_abs &&
       !flame_cli_parse_double ("compare", "--min-abs-ms", args->min_abs, 0, &ropts->min_abs_ms)))
    return FALSE;
  if (args->top_n < 0)
    {
      g_printerr ("flamediff-cli compare: --top: expected a positive number\n");
      return FALSE;
    }
  ropts->top_n = args->top_n;
  ropts->ignore_new = args->ignore_new;
  return TRUE;
}

/* The report (the diff tree for folded, as it is made: it is the size
 * of the input) in @format, with the memory summary when both sides
 * measure bytes (the peak when both are memory recordings), to @output */
static void
write_report (FlameComparison          *comparison,
              const char               *format,
              const FlameReportOptions *ropts,
              GString                  *out,
              FlameCliOutput           *output)
{
  FlameDiff *diff = flame_comparison_get_diff (comparison);
  FlameReport *report = flame_comparison_get_report (comparison);
  FlameMemoryTotals mem[2];
  gboolean have;

  if (strcmp (format, "folded") == 0)
    flame_diff_write_folded_drained (diff, out, flame_cli_output_drain, output);
  if (strcmp (format, "text") == 0)
    flame_report_write_text (report, out);
  else if (strcmp (format, "markdown") == 0)
    flame_report_write_markdown (report, out);
  else if (strcmp (format, "json") == 0)
    flame_report_write_json_drained (report, out, flame_cli_output_drain, output);
  have = strcmp (format, "folded") != 0 && memory_totals (comparison, &mem[0], &mem[1]);
  if (have || (strcmp (format, "folded") != 0 &&
               flame_diff_get_quantity (diff) == FLAME_QUANTITY_BYTES))
    {
      /* memory recordings on both sides (any metric): the peak and the
       * top sites; other profiles of bytes (heap profiles): the sites */
      const FlameMemoryTotals *b = have ? &mem[0] : NULL, *c = have ? &mem[1] : NULL;

      if (strcmp (format, "json") == 0)
        flame_memory_append_json (b, c, report, flame_diff_get_quantity (diff), ropts->top_n,
                                  out);
      else
        flame_memory_write (b, c, report, flame_diff_get_quantity (diff), ropts->top_n,
                            strcmp (format, "markdown") == 0 ? FLAME_MEMORY_MARKDOWN
                                                             : FLAME_MEMORY_TEXT,
                            out);
    }
  flame_cli_output_drain (out, output);
}

/* --fail-on-regression: FLAME_CLI_REGRESSION (and why, on stderr) when
 * a function is beyond the thresholds */
static int
gate_status (FlameReport *report)
{
  guint n = flame_report_count_gate_failures (report);
  guint regressed;

  if (n == 0)
    return FLAME_CLI_OK;
  regressed = flame_report_count (report, FLAME_STATUS_REGRESSION);
  g_printerr ("flamediff-cli: %u function%s beyond the thresholds (%u regressed, %u new)\n",
              n, n == 1 ? "" : "s", regressed, n - regressed);
  return FLAME_CLI_REGRESSION;
}

static int
run_compare (CompareArgs *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameComparison) comparison = NULL;
  g_autoptr(GString) out = NULL;
  FlameCliOutput output;
  FlameDiffOptions dopts;
  FlameReportOptions ropts;

  flame_diff_options_init (&dopts);
  flame_report_options_init (&ropts);
  if (!check_compare_options (args, &dopts, &ropts))
    return FLAME_CLI_ERROR;

  /* folded output is the diff tree: a report only for the exit status;
   * the profiles serve only the diff and the report */
  comparison = flame_cli_compare_files (args->files, args->n_files, &args->diff_args, &dopts,
                                        &ropts, FALSE,
                                        strcmp (args->format, "folded") != 0 ||
                                          args->fail_on_regression,
                                        TRUE);
  if (comparison == NULL)
    return FLAME_CLI_ERROR;

  out = g_string_new (NULL);
  if (!flame_cli_output_open (&output, args->output, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  write_report (comparison, args->format, &ropts, out, &output);
  if (!flame_cli_output_close (&output, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  if (args->fail_on_regression)
    return gate_status (flame_comparison_get_report (comparison));
  return FLAME_CLI_OK;
}

int
flame_cli_compare (int    argc,
                   char **argv)
{
  CompareArgs args = { 0 };
  int status = FLAME_CLI_ERROR;

  if (parse_compare_options (argc, argv, &args))
    status = run_compare (&args);
  compare_args_clear (&args);
  return status;
}

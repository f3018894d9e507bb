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

          if (!flame_memory_get_totals (flame_comparison_get_run_profile (comparison, side, run), &t))
            return FALSE;
          sum->allocated_bytes += t.allocated_bytes / n;
          sum->allocations += t.allocations / n;
          sum->peak_bytes += t.peak_bytes / n;
          sum->leaked_bytes += t.leaked_bytes / n;
        }
    }
  return TRUE;
}

int
flame_cli_compare (int    argc,
                   char **argv)
{
  g_auto(FlameCliDiffArgs) diff_args = { 0 };
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *threshold = NULL;
  g_autofree char *min_abs = NULL;
  int top_n = 10;
  gboolean fail_on_regression = FALSE;
  gboolean ignore_new = FALSE;
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: text, markdown, json or folded (default text)", "FORMAT" },
    { "threshold-pct", 0, 0, G_OPTION_ARG_STRING, &threshold, "Smallest change in percent that counts (default 5)", "PCT" },
    { "min-abs-ms", 0, 0, G_OPTION_ARG_STRING, &min_abs, "Smallest change in ms that counts (default 0; bytes or a count for memory and count profiles)", "MS" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top_n, "Rows per table in text and Markdown (default 10)", "N" },
    { "fail-on-regression", 0, 0, G_OPTION_ARG_NONE, &fail_on_regression, "Exit with status 2 when a function regressed, or is new, beyond the thresholds (and beyond the runs' spread with 2 or more runs per side)", NULL },
    { "ignore-new", 0, 0, G_OPTION_ARG_NONE, &ignore_new, "New functions never fail --fail-on-regression", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE instead of standard output", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameComparison) comparison = NULL;
  FlameDiff *diff;
  FlameReport *report;
  g_autoptr(GString) out = NULL;
  FlameDiffOptions dopts;
  FlameReportOptions ropts;
  FlameMemoryTotals mem[2];
  guint n_files;

  flame_diff_options_init (&dopts);
  flame_report_options_init (&ropts);

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
  flame_cli_diff_args_add_entries (context, &diff_args);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli compare: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  n_files = files ? g_strv_length (files) : 0;
  if ((n_files < 1 && diff_args.baseline == NULL) || n_files > 2)
    {
      g_printerr ("flamediff-cli compare: expected BASELINE and CURRENT files\n");
      return FLAME_CLI_ERROR;
    }

  if (format == NULL)
    format = g_strdup ("text");
  if (strcmp (format, "text") != 0 && strcmp (format, "markdown") != 0 &&
      strcmp (format, "json") != 0 && strcmp (format, "folded") != 0)
    {
      g_printerr ("flamediff-cli compare: --format: expected text, markdown, json or folded, not “%s”\n", format);
      return FLAME_CLI_ERROR;
    }
  if (!flame_cli_diff_args_apply (&diff_args, "compare", &dopts) ||
      (threshold && !flame_cli_parse_double ("compare", "--threshold-pct", threshold, 0, &ropts.threshold_pct)) ||
      (min_abs && !flame_cli_parse_double ("compare", "--min-abs-ms", min_abs, 0, &ropts.min_abs_ms)))
    return FLAME_CLI_ERROR;
  if (top_n < 0)
    {
      g_printerr ("flamediff-cli compare: --top: expected a positive number\n");
      return FLAME_CLI_ERROR;
    }
  ropts.top_n = top_n;
  ropts.ignore_new = ignore_new;

  /* folded output is the diff tree: a report only for the exit status */
  comparison = flame_cli_compare_files (files, n_files, &diff_args, &dopts, &ropts, FALSE,
                                        strcmp (format, "folded") != 0 || fail_on_regression);
  if (comparison == NULL)
    return FLAME_CLI_ERROR;
  diff = flame_comparison_get_diff (comparison);
  report = flame_comparison_get_report (comparison);

  out = g_string_new (NULL);
  if (strcmp (format, "folded") == 0)
    flame_diff_write_folded (diff, out);
  if (strcmp (format, "text") == 0)
    flame_report_write_text (report, out);
  else if (strcmp (format, "markdown") == 0)
    flame_report_write_markdown (report, out);
  else if (strcmp (format, "json") == 0)
    flame_report_write_json (report, out);
  if (strcmp (format, "folded") != 0 && memory_totals (comparison, &mem[0], &mem[1]))
    {
      /* memory recordings on both sides: the peak and the top sites */
      if (strcmp (format, "json") == 0)
        flame_memory_append_json (&mem[0], &mem[1], report, flame_diff_get_quantity (diff),
                                  ropts.top_n, out);
      else
        flame_memory_write (&mem[0], &mem[1], report, flame_diff_get_quantity (diff), ropts.top_n,
                            strcmp (format, "markdown") == 0 ? FLAME_MEMORY_MARKDOWN : FLAME_MEMORY_TEXT,
                            out);
    }

  if (!flame_cli_write_output (output, out, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  if (fail_on_regression && flame_report_count_gate_failures (report) > 0)
    {
      guint n = flame_report_count_gate_failures (report);
      guint regressed = flame_report_count (report, FLAME_STATUS_REGRESSION);

      g_printerr ("flamediff-cli: %u function%s beyond the thresholds (%u regressed, %u new)\n",
                  n, n == 1 ? "" : "s", regressed, n - regressed);
      return FLAME_CLI_REGRESSION;
    }
  return FLAME_CLI_OK;
}

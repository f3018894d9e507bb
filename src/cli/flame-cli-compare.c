/* flame-cli-compare.c: flamediff-cli compare BASE CURRENT
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-cli.h"
#include "flame-loader.h"
#include "flame-report.h"

typedef struct
{
  const char   *path;
  FlameProfile *profile;
  GError       *error;
} LoadJob;

static gpointer
load_job_run (gpointer data)
{
  LoadJob *job = data;

  job->profile = flame_load_file (job->path, NULL, NULL, NULL, &job->error);
  return NULL;
}

static gboolean
parse_double (const char *opt,
              const char *value,
              gdouble     min,
              gdouble    *out)
{
  char *end = NULL;
  gdouble v = g_ascii_strtod (value, &end);

  if (end == value || *end != 0 || !isfinite (v) || v < min)
    {
      g_printerr ("flamediff-cli: %s: invalid value “%s”\n", opt, value);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

int
flame_cli_compare (int    argc,
                   char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *metric = NULL;
  g_autofree char *normalize = NULL;
  g_autofree char *match = NULL;
  g_autofree char *output = NULL;
  g_autofree char *threshold = NULL;
  g_autofree char *min_abs = NULL;
  g_autofree char *interval = NULL;
  g_autofree char *significance = NULL;
  int top_n = 10;
  gboolean strip_hex = FALSE;
  gboolean fail_on_regression = FALSE;
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: text, markdown, json or folded (default text)", "FORMAT" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "Compare self or total time (default self)", "METRIC" },
    { "normalize", 0, 0, G_OPTION_ARG_STRING, &normalize, "Scale the baseline to the current run's sampled time (total, default) or not (none)", "MODE" },
    { "threshold-pct", 0, 0, G_OPTION_ARG_STRING, &threshold, "Smallest change in percent that counts (default 5)", "PCT" },
    { "min-abs-ms", 0, 0, G_OPTION_ARG_STRING, &min_abs, "Smallest change in ms that counts (default 0)", "MS" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top_n, "Rows per table in text and Markdown (default 10)", "N" },
    { "interval-ms", 0, 0, G_OPTION_ARG_STRING, &interval, "Sampling interval for files without timing (default 1)", "MS" },
    { "match", 0, 0, G_OPTION_ARG_STRING, &match, "Frame matching: name, name+file (default) or name+file+line", "KEY" },
    { "strip-hex", 0, 0, G_OPTION_ARG_NONE, &strip_hex, "Ignore hex addresses and +0x offsets when matching frames", NULL },
    { "significance", 0, 0, G_OPTION_ARG_STRING, &significance, "Count only changes beyond sampling noise at this level (e.g. 0.05)", "ALPHA" },
    { "fail-on-regression", 0, 0, G_OPTION_ARG_NONE, &fail_on_regression, "Exit with status 2 when a function regressed beyond the thresholds", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE instead of standard output", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "BASELINE CURRENT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) baseline = NULL;
  g_autoptr(FlameProfile) current = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) out = NULL;
  FlameDiffOptions dopts;
  FlameReportOptions ropts;
  guint n_files;

  flame_diff_options_init (&dopts);
  flame_report_options_init (&ropts);

  context = g_option_context_new ("BASELINE CURRENT");
  g_option_context_set_summary (context,
    "Compare two CPU profiles function by function.\n"
    "A single 3-column folded file (stack before after) holds both.\n\n"
    "Exit status: 0 success, 1 usage or input error, 2 with\n"
    "--fail-on-regression when a function regressed beyond the thresholds.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli compare: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  n_files = files ? g_strv_length (files) : 0;
  if (n_files < 1 || n_files > 2)
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
  if (metric != NULL)
    {
      if (strcmp (metric, "self") == 0)
        ropts.metric = FLAME_METRIC_SELF;
      else if (strcmp (metric, "total") == 0)
        ropts.metric = FLAME_METRIC_TOTAL;
      else
        {
          g_printerr ("flamediff-cli compare: --metric: expected self or total, not “%s”\n", metric);
          return FLAME_CLI_ERROR;
        }
      dopts.metric = ropts.metric;
    }
  if (normalize != NULL)
    {
      if (strcmp (normalize, "total") == 0)
        dopts.normalize = FLAME_NORMALIZE_TOTAL;
      else if (strcmp (normalize, "none") == 0)
        dopts.normalize = FLAME_NORMALIZE_NONE;
      else
        {
          g_printerr ("flamediff-cli compare: --normalize: expected total or none, not “%s”\n", normalize);
          return FLAME_CLI_ERROR;
        }
    }
  if (match != NULL && !flame_match_from_string (match, &dopts.match))
    {
      g_printerr ("flamediff-cli compare: --match: expected name, name+file or name+file+line, not “%s”\n", match);
      return FLAME_CLI_ERROR;
    }
  dopts.strip_hex = strip_hex;
  if ((threshold && !parse_double ("--threshold-pct", threshold, 0, &ropts.threshold_pct)) ||
      (min_abs && !parse_double ("--min-abs-ms", min_abs, 0, &ropts.min_abs_ms)) ||
      (interval && !parse_double ("--interval-ms", interval, 1e-9, &dopts.default_interval_ms)))
    return FLAME_CLI_ERROR;
  if (significance != NULL)
    {
      if (!parse_double ("--significance", significance, 1e-12, &dopts.significance) ||
          dopts.significance >= 1)
        {
          if (dopts.significance >= 1)
            g_printerr ("flamediff-cli compare: --significance: expected a level between 0 and 1\n");
          return FLAME_CLI_ERROR;
        }
      ropts.alpha = dopts.significance;
      ropts.gate_on_noise = TRUE;
    }
  if (top_n < 0)
    {
      g_printerr ("flamediff-cli compare: --top: expected a positive number\n");
      return FLAME_CLI_ERROR;
    }
  ropts.top_n = top_n;

  if (n_files == 2)
    {
      /* the two files load in parallel: on a 2-core machine that halves
       * the wait for large profiles */
      LoadJob jobs[2] = { { files[0] }, { files[1] } };
      GThread *thread = g_thread_new ("load-baseline", load_job_run, &jobs[0]);

      load_job_run (&jobs[1]);
      g_thread_join (thread);
      baseline = jobs[0].profile;
      current = jobs[1].profile;
      if (jobs[0].error != NULL || jobs[1].error != NULL)
        {
          for (guint i = 0; i < 2; i++)
            if (jobs[i].error != NULL)
              {
                g_printerr ("flamediff-cli: %s\n", jobs[i].error->message);
                g_clear_error (&jobs[i].error);
              }
          return FLAME_CLI_ERROR;
        }
      flame_cli_print_warnings (flame_profile_get_warnings (baseline));
      flame_cli_print_warnings (flame_profile_get_warnings (current));
    }
  else
    {
      baseline = flame_load_file (files[0], NULL, NULL, NULL, &error);
      if (baseline == NULL)
        {
          g_printerr ("flamediff-cli: %s\n", error->message);
          return FLAME_CLI_ERROR;
        }
      flame_cli_print_warnings (flame_profile_get_warnings (baseline));
    }

  diff = flame_diff_new (baseline, current, &dopts, NULL, &error);
  if (diff == NULL)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  out = g_string_new (NULL);
  if (strcmp (format, "folded") == 0)
    flame_diff_write_folded (diff, out);
  report = flame_report_new (diff, &ropts);
  if (strcmp (format, "text") == 0)
    flame_report_write_text (report, out);
  else if (strcmp (format, "markdown") == 0)
    flame_report_write_markdown (report, out);
  else if (strcmp (format, "json") == 0)
    flame_report_write_json (report, out);

  if (!flame_cli_write_output (output, out, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  if (fail_on_regression && flame_report_count (report, FLAME_STATUS_REGRESSION) > 0)
    {
      g_printerr ("flamediff-cli: %u function%s regressed beyond the thresholds\n",
                  flame_report_count (report, FLAME_STATUS_REGRESSION),
                  flame_report_count (report, FLAME_STATUS_REGRESSION) == 1 ? "" : "s");
      return FLAME_CLI_REGRESSION;
    }
  return FLAME_CLI_OK;
}

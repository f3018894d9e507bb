/* flame-cli-options.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-cli.h"
#include "flame-cli-options.h"

/* The metrics a file may hold, for --help */
#define FILE_METRICS                                                                        \
  "allocated, allocations, peak or leaked (memory recordings, Sysprof memprof captures), a " \
  "pprof sample type (e.g. alloc_space or alloc_space/bytes), a callgrind event (e.g. D1mr)"

/**
 * flame_cli_metric_args_add_entries:
 * @use: what --metric names in this command
 *
 * Adds --metric and its other name (--sample-type; --event for
 * @FLAME_CLI_METRIC_EVENT), both filling @args.
 */
void
flame_cli_metric_args_add_entries (GOptionContext     *context,
                                   FlameCliMetricArgs *args,
                                   FlameCliMetricUse   use)
{
  static const char *const help[] = {
    [FLAME_CLI_METRIC_LOAD] = "Load one of the file's metrics: " FILE_METRICS
                              " (default: the file's default)",
    [FLAME_CLI_METRIC_COMPARE] = "Compare self (default; total for pstats files) or total "
                                 "time; or one of the files' metrics: " FILE_METRICS,
    [FLAME_CLI_METRIC_EVENT] = "Keep samples of the perf event METRIC (e.g. cycles; default: "
                               "the first event type in the file)",
  };
  const GOptionEntry entries[] = {
    { "metric", 0, 0, G_OPTION_ARG_STRING, &args->metric, help[use], "METRIC" },
    { use == FLAME_CLI_METRIC_EVENT ? "event" : "sample-type", 0, 0, G_OPTION_ARG_STRING,
      &args->sample_type, "The same as --metric", "METRIC" },
    { NULL }
  };

  /* GLib copies the entries; the targets live in @args */
  g_option_context_add_main_entries (context, entries, NULL);
}

/**
 * flame_cli_metric_args_apply:
 *
 * Resolves --metric and --sample-type (--event) into
 * @args->sample_type, the metric to load, and for
 * @FLAME_CLI_METRIC_COMPARE self or total into @args->diff_metric.
 * Prints what is wrong and returns FALSE when they disagree.
 */
gboolean
flame_cli_metric_args_apply (FlameCliMetricArgs *args,
                             const char         *command,
                             FlameCliMetricUse   use)
{
  const char *other = use == FLAME_CLI_METRIC_EVENT ? "--event" : "--sample-type";

  if (args->sample_type != NULL && args->sample_type[0] == '\0')
    {
      g_printerr ("flamediff-cli %s: %s: expected the name of a metric\n", command, other);
      return FALSE;
    }
  if (args->metric == NULL)
    return TRUE;
  if (args->metric[0] == '\0')
    {
      g_printerr ("flamediff-cli %s: --metric: expected the name of a metric\n", command);
      return FALSE;
    }
  if (use == FLAME_CLI_METRIC_COMPARE &&
      (strcmp (args->metric, "self") == 0 || strcmp (args->metric, "total") == 0))
    {
      args->self_total = TRUE;
      args->diff_metric = strcmp (args->metric, "self") == 0 ? FLAME_METRIC_SELF
                                                               : FLAME_METRIC_TOTAL;
      return TRUE;
    }
  if (args->sample_type != NULL && strcmp (args->sample_type, args->metric) != 0)
    {
      g_printerr ("flamediff-cli %s: --metric %s and %s %s name two metrics; give one\n",
                  command, args->metric, other, args->sample_type);
      return FALSE;
    }
  g_free (args->sample_type);
  args->sample_type = g_steal_pointer (&args->metric);
  return TRUE;
}

/**
 * flame_cli_metric_args_check:
 * @profile: loaded from @path with @args->sample_type
 *
 * The loaders of files that hold several metrics (speedscope, pprof,
 * callgrind, Sysprof) fail on a name they do not hold. The others
 * (folded stacks, perf script output, Chrome profiles, ...) have one
 * metric and nothing to choose: say so rather than show that one
 * metric under another name.
 *
 * Returns: FALSE (and a message printed) when @profile is not the
 *   metric @args names
 */
gboolean
flame_cli_metric_args_check (const FlameCliMetricArgs *args,
                             const char               *path,
                             FlameProfile             *profile)
{
  const char *loaded = flame_profile_get_sample_type (profile);

  switch (flame_profile_get_format (profile))
    {
    case FLAME_FORMAT_SPEEDSCOPE:
    case FLAME_FORMAT_PPROF:
    case FLAME_FORMAT_CALLGRIND:
    case FLAME_FORMAT_SYSPROF:
      return TRUE;
    default:
      break;
    }
  if (args->sample_type == NULL || g_strcmp0 (loaded, args->sample_type) == 0)
    return TRUE;
  g_printerr ("flamediff-cli: %s: no metric “%s”: the file (%s) holds one metric%s%s%s\n",
              path, args->sample_type, flame_profile_get_format_name (profile),
              loaded != NULL ? ", “" : "", loaded != NULL ? loaded : "",
              loaded != NULL ? "”" : "");
  return FALSE;
}

void
flame_cli_metric_args_clear (FlameCliMetricArgs *args)
{
  g_clear_pointer (&args->metric, g_free);
  g_clear_pointer (&args->sample_type, g_free);
}

void
flame_cli_diff_args_add_entries (GOptionContext   *context,
                                 FlameCliDiffArgs *args)
{
  const GOptionEntry entries[] = {
    { "normalize", 0, 0, G_OPTION_ARG_STRING, &args->normalize,
      "absolute (default): compare times as measured; total: scale the baseline to the current "
      "run's sampled time (none = absolute)",
      "MODE" },
    { "interval-ms", 0, 0, G_OPTION_ARG_STRING, &args->interval,
      "Sampling interval for files without timing (default 1)", "MS" },
    { "match", 0, 0, G_OPTION_ARG_STRING, &args->match,
      "Frame matching: name, name+file (default) or name+file+line", "KEY" },
    { "strip-hex", 0, 0, G_OPTION_ARG_NONE, &args->strip_hex,
      "Ignore hex addresses and +0x offsets when matching frames", NULL },
    { "exact-paths", 0, 0, G_OPTION_ARG_NONE, &args->exact_paths,
      "Match files by their full path only (default: also across checkouts in different folders)",
      NULL },
    { "significance", 0, 0, G_OPTION_ARG_STRING, &args->significance,
      "Count only changes beyond sampling noise at this level (e.g. 0.05)", "ALPHA" },
    { "profile", 0, 0, G_OPTION_ARG_INT, &args->profile_index,
      "Load profile N of files with several (speedscope, trace events), counting from 0", "N" },
    { "thread", 0, 0, G_OPTION_ARG_INT64, &args->thread,
      "Keep only thread TID of files with several (Chrome, Firefox, pprof, CPython)", "TID" },
    { "baseline", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args->baseline,
      "A baseline run (a file or a folder of them); repeat for several runs", "FILE" },
    { "current", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args->current,
      "A current run (a file or a folder of them); repeat for several runs", "FILE" },
    { NULL }
  };

  args->profile_index = -1;
  args->thread = -1;

  /* GLib copies the entries; the targets live in @args */
  flame_cli_metric_args_add_entries (context, &args->metric, FLAME_CLI_METRIC_COMPARE);
  g_option_context_add_main_entries (context, entries, NULL);
}

void
flame_cli_diff_args_clear (FlameCliDiffArgs *args)
{
  g_clear_pointer (&args->normalize, g_free);
  flame_cli_metric_args_clear (&args->metric);
  g_clear_pointer (&args->match, g_free);
  g_clear_pointer (&args->interval, g_free);
  g_clear_pointer (&args->significance, g_free);
  g_clear_pointer (&args->baseline, g_strfreev);
  g_clear_pointer (&args->current, g_strfreev);
}

gboolean
flame_cli_parse_double (const char *command,
                        const char *option,
                        const char *value,
                        gdouble     min,
                        gdouble    *out)
{
  char *end = NULL;
  gdouble v = g_ascii_strtod (value, &end);

  if (end == value || *end != 0 || !isfinite (v) || v < min)
    {
      g_printerr ("flamediff-cli %s: %s: invalid value “%s”\n", command, option, value);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* Fills @options from the parsed strings; prints what is wrong and
 * returns FALSE on a bad value. */
gboolean
flame_cli_diff_args_apply (FlameCliDiffArgs *args,
                           const char       *command,
                           FlameDiffOptions *options)
{
  if (args->normalize != NULL &&
      !flame_normalize_from_string (args->normalize, &options->normalize))
    {
      g_printerr ("flamediff-cli %s: --normalize: expected absolute or total, not “%s”\n",
                  command, args->normalize);
      return FALSE;
    }
  if (!flame_cli_metric_args_apply (&args->metric, command, FLAME_CLI_METRIC_COMPARE))
    return FALSE;
  if (args->metric.self_total)
    options->metric = args->metric.diff_metric;
  if (args->match != NULL && !flame_match_from_string (args->match, &options->match))
    {
      g_printerr (
        "flamediff-cli %s: --match: expected name, name+file or name+file+line, not “%s”\n",
        command, args->match);
      return FALSE;
    }
  options->strip_hex = args->strip_hex;
  options->exact_paths = args->exact_paths;
  if (args->interval != NULL &&
      !flame_cli_parse_double (command, "--interval-ms", args->interval, 1e-9,
                               &options->default_interval_ms))
    return FALSE;
  if (args->significance != NULL)
    {
      if (!flame_cli_parse_double (command, "--significance", args->significance, 1e-12,
                                   &options->significance))
        return FALSE;
      if (options->significance >= 1)
        {
          g_printerr ("flamediff-cli %s: --significance: expected a level between 0 and 1\n",
                      command);
          return FALSE;
        }
    }
  return TRUE;
}

static void
add_path (FlameComparison *comparison,
          guint            side,
          const char      *path)
{
  if (side == FLAME_DIFF_BASELINE)
    flame_comparison_add_baseline (comparison, path);
  else
    flame_comparison_add_current (comparison, path);
}

/* @path, or every profile in it when it is a folder: one run each */
static gboolean
add_side (FlameComparison *comparison,
          guint            side,
          const char      *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) runs = flame_comparison_list_runs (path, ignored, &error);

  for (guint i = 0; i < ignored->len; i++)
    g_printerr ("flamediff-cli: note: %s: not a profile, ignored\n",
                (const char *) g_ptr_array_index (ignored, i));
  if (runs == NULL)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FALSE;
    }
  for (guint i = 0; i < runs->len; i++)
    add_path (comparison, side, g_ptr_array_index (runs, i));
  return TRUE;
}

/**
 * flame_cli_compare_files:
 * @args: its --profile and --thread apply to every file
 * @ropts: (nullable): thresholds of the report
 * @want_report: %FALSE when only the diff is used (no report is made:
 *   flame_comparison_set_want_report())
 * @allow_single: one file holding one profile loads without a diff
 * @single_use: the profiles serve only the diff and its report
 *   (flame_comparison_set_single_use())
 *
 * Loads one or two files (in parallel: FlameComparison) and compares
 * them, printing their warnings, or every error.
 *
 * Returns: (transfer full) (nullable): the comparison
 */
FlameComparison *
flame_cli_compare_files (char                    **files,
                         guint                     n_files,
                         FlameCliDiffArgs         *args,
                         const FlameDiffOptions   *dopts,
                         const FlameReportOptions *ropts,
                         gboolean                  allow_single,
                         gboolean                  want_report,
                         gboolean                  single_use)
{
  g_autoptr(FlameComparison) comparison = flame_comparison_new ();
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (n_files > 0 && (args->baseline != NULL || args->current != NULL))
    {
      g_printerr ("flamediff-cli: give the runs either as BASELINE CURRENT or with --baseline and "
                  "--current\n");
      return NULL;
    }
  if (n_files == 0 && args->baseline == NULL)
    {
      g_printerr ("flamediff-cli: no baseline: expected BASELINE CURRENT or --baseline FILE\n");
      return NULL;
    }
  g_return_val_if_fail (n_files <= 2, NULL);

  options.profile = args->profile_index;
  options.thread = args->thread;
  options.sample_type = args->metric.sample_type;
  flame_comparison_set_load_options (comparison, &options);
  flame_comparison_set_diff_options (comparison, dopts);
  if (ropts != NULL)
    flame_comparison_set_report_options (comparison, ropts);
  flame_comparison_set_want_report (comparison, want_report);
  flame_comparison_set_allow_single (comparison, allow_single);
  flame_comparison_set_single_use (comparison, single_use);
  flame_comparison_set_metric_from_files (comparison, !args->metric.self_total);
  for (guint i = 0; i < n_files; i++)
    if (!add_side (comparison, i == 0 ? FLAME_DIFF_BASELINE : FLAME_DIFF_CURRENT, files[i]))
      return NULL;
  for (guint i = 0; args->baseline != NULL && args->baseline[i] != NULL; i++)
    if (!add_side (comparison, FLAME_DIFF_BASELINE, args->baseline[i]))
      return NULL;
  for (guint i = 0; args->current != NULL && args->current[i] != NULL; i++)
    if (!add_side (comparison, FLAME_DIFF_CURRENT, args->current[i]))
      return NULL;

  ok = flame_comparison_load (comparison, NULL, &error);
  /* every run's warnings: a side of several is compared as their mean */
  for (guint side = 0; side < 2; side++)
    for (guint run = 0; run < flame_comparison_get_n_runs (comparison, side); run++)
      {
        FlameProfile *profile = flame_comparison_get_run_profile (comparison, side, run);

        if (profile != NULL)
          flame_cli_print_warnings (flame_profile_get_warnings (profile));
      }
  if (!ok)
    {
      g_auto(GStrv) lines = g_strsplit (error->message, "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        g_printerr ("flamediff-cli: %s\n", lines[i]);
      return NULL;
    }
  return g_steal_pointer (&comparison);
}

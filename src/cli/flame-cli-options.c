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
#include "flame-loader.h"

void
flame_cli_diff_args_add_entries (GOptionContext   *context,
                                 FlameCliDiffArgs *args)
{
  const GOptionEntry entries[] = {
    { "normalize", 0, 0, G_OPTION_ARG_STRING, &args->normalize, "Scale the baseline to the current run's sampled time (total, default) or not (none)", "MODE" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &args->metric, "Compare self (default; total for pstats files) or total time", "METRIC" },
    { "interval-ms", 0, 0, G_OPTION_ARG_STRING, &args->interval, "Sampling interval for files without timing (default 1)", "MS" },
    { "match", 0, 0, G_OPTION_ARG_STRING, &args->match, "Frame matching: name, name+file (default) or name+file+line", "KEY" },
    { "strip-hex", 0, 0, G_OPTION_ARG_NONE, &args->strip_hex, "Ignore hex addresses and +0x offsets when matching frames", NULL },
    { "significance", 0, 0, G_OPTION_ARG_STRING, &args->significance, "Count only changes beyond sampling noise at this level (e.g. 0.05)", "ALPHA" },
    { "profile", 0, 0, G_OPTION_ARG_INT, &args->profile_index, "Load profile N of files with several (speedscope, trace events), counting from 0", "N" },
    { "thread", 0, 0, G_OPTION_ARG_INT64, &args->thread, "Keep only thread TID of files with several (Chrome, Firefox, pprof, CPython)", "TID" },
    { "sample-type", 0, 0, G_OPTION_ARG_STRING, &args->sample_type, FLAME_CLI_SAMPLE_TYPE_HELP, "TYPE" },
    { NULL }
  };

  args->profile_index = -1;
  args->thread = -1;

  /* GLib copies the entries; the targets live in @args */
  g_option_context_add_main_entries (context, entries, NULL);
}

void
flame_cli_diff_args_clear (FlameCliDiffArgs *args)
{
  g_clear_pointer (&args->normalize, g_free);
  g_clear_pointer (&args->metric, g_free);
  g_clear_pointer (&args->match, g_free);
  g_clear_pointer (&args->interval, g_free);
  g_clear_pointer (&args->significance, g_free);
  g_clear_pointer (&args->sample_type, g_free);
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
  if (args->normalize != NULL)
    {
      if (strcmp (args->normalize, "total") == 0)
        options->normalize = FLAME_NORMALIZE_TOTAL;
      else if (strcmp (args->normalize, "none") == 0)
        options->normalize = FLAME_NORMALIZE_NONE;
      else
        {
          g_printerr ("flamediff-cli %s: --normalize: expected total or none, not “%s”\n",
                      command, args->normalize);
          return FALSE;
        }
    }
  if (args->metric != NULL)
    {
      if (strcmp (args->metric, "self") == 0)
        options->metric = FLAME_METRIC_SELF;
      else if (strcmp (args->metric, "total") == 0)
        options->metric = FLAME_METRIC_TOTAL;
      else
        {
          g_printerr ("flamediff-cli %s: --metric: expected self or total, not “%s”\n",
                      command, args->metric);
          return FALSE;
        }
    }
  if (args->match != NULL && !flame_match_from_string (args->match, &options->match))
    {
      g_printerr ("flamediff-cli %s: --match: expected name, name+file or name+file+line, not “%s”\n",
                  command, args->match);
      return FALSE;
    }
  options->strip_hex = args->strip_hex;
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

typedef struct
{
  const char             *path;
  const FlameLoadOptions *options;
  FlameProfile           *profile;
  GError                 *error;
} LoadJob;

static gpointer
load_job_run (gpointer data)
{
  LoadJob *job = data;

  job->profile = flame_load_file_full (job->path, job->options, NULL, NULL, NULL, &job->error);
  return NULL;
}

/**
 * flame_cli_load_profiles:
 * @args: its --profile and --thread apply to both files
 * @current: (out): %NULL when only one file was given
 *
 * Loads one or two files, two in parallel (on a 2-core machine that
 * halves the wait for large profiles), printing their warnings, or every
 * error.
 */
gboolean
flame_cli_load_profiles (char             **files,
                         guint              n_files,
                         FlameCliDiffArgs  *args,
                         FlameProfile     **baseline,
                         FlameProfile     **current)
{
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  LoadJob jobs[2] = { { files[0], &options }, { n_files > 1 ? files[1] : NULL, &options } };
  gboolean ok = TRUE;

  g_return_val_if_fail (n_files == 1 || n_files == 2, FALSE);

  options.profile = args->profile_index;
  options.thread = args->thread;
  options.sample_type = args->sample_type;

  if (n_files == 2)
    {
      GThread *thread = g_thread_new ("load-baseline", load_job_run, &jobs[0]);

      load_job_run (&jobs[1]);
      g_thread_join (thread);
    }
  else
    load_job_run (&jobs[0]);

  for (guint i = 0; i < n_files; i++)
    {
      if (jobs[i].error != NULL)
        {
          g_printerr ("flamediff-cli: %s\n", jobs[i].error->message);
          g_clear_error (&jobs[i].error);
          ok = FALSE;
        }
      else
        flame_cli_print_warnings (flame_profile_get_warnings (jobs[i].profile));
    }
  if (!ok)
    {
      g_clear_object (&jobs[0].profile);
      g_clear_object (&jobs[1].profile);
      return FALSE;
    }
  *baseline = jobs[0].profile;
  *current = jobs[1].profile;
  return TRUE;
}

/* flame-cli-convert.c: flamediff-cli convert IN -o OUT [--to FORMAT]
 *
 * Reads any supported profile and writes folded stacks or speedscope
 * JSON, so Flamediff is also the bridge between profiling tools.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-cli.h"
#include "flame-cli-options.h"
#include "flame-loader.h"
#include "flame-report.h"
#include "flame-speedscope.h"

int
flame_cli_convert (int    argc,
                   char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *to = NULL;
  gint profile_index = -1;
  gint64 thread = -1;
  g_auto(FlameCliMetricArgs) metric = { 0 };
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default: standard output)",
      "FILE" },
    { "to", 't', 0, G_OPTION_ARG_STRING, &to,
      "Output format: folded or speedscope (default: from the -o name, else folded)", "FORMAT" },
    { "profile", 0, 0, G_OPTION_ARG_INT, &profile_index,
      "Load profile N of a file with several (speedscope), counting from 0", "N" },
    { "thread", 0, 0, G_OPTION_ARG_INT64, &thread, "Keep only thread TID (Chrome, Firefox)",
      "TID" },
    /* the parameter string of the context names FILE */
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  FlameCliOutput sink;
  gboolean speedscope, ok;

  context = g_option_context_new ("FILE");
  g_option_context_set_summary (context,
    "Convert a profile (any format Flamediff reads) to folded stacks or\n"
    "speedscope JSON. The format follows --to, else the output name\n"
    "(*.json: speedscope), else folded.\n\n"
    "Exit status: 0 success, 1 usage or input error.");
  g_option_context_add_main_entries (context, entries, NULL);
  flame_cli_metric_args_add_entries (context, &metric, FLAME_CLI_METRIC_LOAD);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli convert: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  if (!flame_cli_metric_args_apply (&metric, "convert", FLAME_CLI_METRIC_LOAD))
    return FLAME_CLI_ERROR;
  if (files == NULL || g_strv_length (files) != 1)
    {
      g_printerr ("flamediff-cli convert: expected one FILE\n");
      return FLAME_CLI_ERROR;
    }
  if (to != NULL && strcmp (to, "folded") != 0 && strcmp (to, "speedscope") != 0)
    {
      g_printerr ("flamediff-cli convert: --to: expected “folded” or “speedscope”, not “%s”\n", to);
      return FLAME_CLI_ERROR;
    }
  speedscope = to != NULL ? strcmp (to, "speedscope") == 0
                          : (output != NULL && g_str_has_suffix (output, ".json"));

  options.profile = profile_index;
  options.thread = thread;
  options.sample_type = metric.sample_type;
  profile = flame_load_file_full (files[0], &options, NULL, NULL, NULL, &error);
  if (profile == NULL)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  if (!flame_cli_metric_args_check (&metric, files[0], profile))
    return FLAME_CLI_ERROR;
  flame_cli_print_warnings (flame_profile_get_warnings (profile));

  if (speedscope)
    ok = flame_speedscope_write (profile, out, &error) &&
         flame_cli_write_output (output, out, &error);
  else if ((ok = flame_cli_output_open (&sink, output, &error)))
    {
      /* folded lines go out as they are made: they are the size of the
       * input */
      flame_profile_write_folded_drained (profile, out, flame_cli_output_drain, &sink);
      ok = flame_cli_output_close (&sink, &error);
    }
  if (!ok)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  return FLAME_CLI_OK;
}

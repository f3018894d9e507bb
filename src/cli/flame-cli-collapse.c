/* flame-cli-collapse.c: flamediff-cli collapse FILE, `perf script` text to
 * folded stacks, as stackcollapse-perf.pl and inferno-collapse-perf print
 * them.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-cli.h"
#include "flame-cli-options.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-perf.h"

static void
print_stats_warnings (const char           *name,
                      const FlamePerfStats *stats)
{
  for (guint i = 0; stats->warnings != NULL && i < stats->warnings->len; i++)
    g_printerr ("flamediff-cli: warning: %s\n",
                (const char *) g_ptr_array_index (stats->warnings, i));
  if (stats->other_events > 0)
    g_printerr ("flamediff-cli: warning: %s: kept only events of type “%s”; skipped %"
                G_GUINT64_FORMAT " sample%s of other events (first: “%s”)\n",
                name, stats->event, stats->other_events,
                stats->other_events == 1 ? "" : "s", stats->other_event);
  if (stats->weird_lines > 0)
    g_printerr ("flamediff-cli: warning: %s:%" G_GUINT64_FORMAT ": skipped %"
                G_GUINT64_FORMAT " line%s that %s not perf script event or stack lines "
                "(this is the first)\n",
                name, stats->first_weird_line, stats->weird_lines,
                stats->weird_lines == 1 ? "" : "s", stats->weird_lines == 1 ? "is" : "are");
  if (stats->empty_records > 0)
    g_printerr ("flamediff-cli: warning: %s: skipped %" G_GUINT64_FORMAT " sample%s without "
                "a stack (record with perf record -g, or keep the ip and sym fields)\n",
                name, stats->empty_records, stats->empty_records == 1 ? "" : "s");
}

typedef struct
{
  FlamePerfOptions   options;  /* event_filter: @metric's */
  FlameCliMetricArgs metric;   /* --metric, --event */
  char            *output;
  GStrv            files;
} CollapseArgs;

static void
collapse_args_clear (CollapseArgs *args)
{
  flame_cli_metric_args_clear (&args->metric);
  g_clear_pointer (&args->output, g_free);
  g_clear_pointer (&args->files, g_strfreev);
}

/* The command line into @args; FALSE (and a message printed) on an error */
static gboolean
parse_collapse_options (int           argc,
                        char        **argv,
                        CollapseArgs *args)
{
  gboolean include_pid = FALSE;
  gboolean include_tid = FALSE;
  gboolean annotate_kernel = FALSE;
  gboolean annotate_jit = FALSE;
  gboolean annotate_all = FALSE;
  gboolean include_addrs = FALSE;
  GOptionEntry entries[] = {
    { "pid", 0, 0, G_OPTION_ARG_NONE, &include_pid, "Root frames are “comm-PID”", NULL },
    { "tid", 0, 0, G_OPTION_ARG_NONE, &include_tid, "Root frames are “comm-PID/TID”", NULL },
    { "kernel", 0, 0, G_OPTION_ARG_NONE, &annotate_kernel, "Mark kernel frames with _[k]", NULL },
    { "jit", 0, 0, G_OPTION_ARG_NONE, &annotate_jit, "Mark JIT frames with _[j]", NULL },
    { "all", 0, 0, G_OPTION_ARG_NONE, &annotate_all, "Same as --kernel --jit", NULL },
    { "addrs", 0, 0, G_OPTION_ARG_NONE, &include_addrs,
      "Show addresses of unknown symbols: [dso <0xaddr>]", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args->output,
      "Write to FILE instead of standard output", "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args->files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
    "Collapse `perf script` output or a perf.data file into folded stacks (“a;b;c COUNT”),\n"
    "lines sorted, as stackcollapse-perf.pl prints them. Counts are the\n"
    "summed periods of the first event type in the file, or of --metric.\n\n"
    "Exit status: 0 success, 1 usage or input error.");
  g_option_context_add_main_entries (context, entries, NULL);
  flame_cli_metric_args_add_entries (context, &args->metric, FLAME_CLI_METRIC_EVENT);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli collapse: %s\n", error->message);
      return FALSE;
    }
  if (!flame_cli_metric_args_apply (&args->metric, "collapse", FLAME_CLI_METRIC_EVENT))
    return FALSE;
  if (args->files == NULL || g_strv_length (args->files) != 1)
    {
      g_printerr ("flamediff-cli collapse: expected one FILE (perf script output or perf.data)\n");
      return FALSE;
    }
  args->options.include_pid = include_pid;
  args->options.include_tid = include_tid;
  args->options.annotate_kernel = annotate_kernel || annotate_all;
  args->options.annotate_jit = annotate_jit || annotate_all;
  args->options.include_addrs = include_addrs;
  args->options.event_filter = args->metric.sample_type;
  return TRUE;
}

/* The folded stacks of @path, or NULL and @error (also when the file
 * changed while it was read) */
static char *
collapse_file (const char             *path,
               const FlamePerfOptions *options,
               FlamePerfStats         *stats,
               GError                **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) changed = NULL;
  FlameInput in = { 0 };
  char *folded;
  gsize len;

  bytes = flame_read_file (path, NULL, error);
  if (bytes == NULL)
    return NULL;
  in.name = path;
  in.data = g_bytes_get_data (bytes, &len);
  in.len = len;

  folded = flame_perf_collapse (&in, options, stats, error);
  /* a file that changed meanwhile: that is the error */
  if (!flame_read_file_check (bytes, &changed))
    {
      g_clear_pointer (&folded, g_free);
      g_clear_error (error);
      g_propagate_error (error, g_steal_pointer (&changed));
    }
  return folded;
}

/* Writes @folded, or says why the file had nothing to collapse */
static int
write_collapsed (const CollapseArgs   *args,
                 const FlamePerfStats *stats,
                 const char           *folded)
{
  const char *path = args->files[0];
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = NULL;

  if (stats->samples == 0 && stats->weird_lines > 0)
    {
      /* nothing but lines we could not read: not perf script output */
      g_printerr ("flamediff-cli: %s:%" G_GUINT64_FORMAT ": not a perf script event line; "
                  "the file has no samples\n", path, stats->first_weird_line);
      return FLAME_CLI_ERROR;
    }
  if (stats->samples == 0 && args->metric.sample_type != NULL && stats->other_events > 0)
    {
      g_printerr ("flamediff-cli: %s: no samples of event “%s” (the first event in the "
                  "file is “%s”)\n", path, args->metric.sample_type, stats->other_event);
      return FLAME_CLI_ERROR;
    }
  print_stats_warnings (path, stats);
  text = g_string_new (folded);
  if (!flame_cli_write_output (args->output, text, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  return FLAME_CLI_OK;
}

static int
run_collapse (const CollapseArgs *args)
{
  g_autoptr(GError) error = NULL;
  FlamePerfStats stats = { 0 };
  char *folded;
  int status;

  folded = collapse_file (args->files[0], &args->options, &stats, &error);
  if (folded == NULL)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      flame_perf_stats_clear (&stats);
      return FLAME_CLI_ERROR;
    }
  status = write_collapsed (args, &stats, folded);
  g_free (folded);
  flame_perf_stats_clear (&stats);
  return status;
}

int
flame_cli_collapse (int    argc,
                    char **argv)
{
  CollapseArgs args = { 0 };
  int status = FLAME_CLI_ERROR;

  if (parse_collapse_options (argc, argv, &args))
    status = run_collapse (&args);
  collapse_args_clear (&args);
  return status;
}

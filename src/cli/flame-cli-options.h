/* flame-cli-options.h: the options that several commands share (--metric
 * in every command that loads a file; the comparison options of compare
 * and render) and their one call into FlameComparison.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-comparison.h"

G_BEGIN_DECLS

/* What --metric may name in a command */
typedef enum
{
  FLAME_CLI_METRIC_LOAD,     /* info, convert: a metric the file holds */
  FLAME_CLI_METRIC_COMPARE,  /* compare, render: that, or self or total */
  FLAME_CLI_METRIC_EVENT,    /* collapse: an event of perf script output */
} FlameCliMetricUse;

/* --metric and the older name of the same choice: --sample-type, or
 * --event in collapse */
typedef struct
{
  char       *metric;
  char       *sample_type;  /* after apply: the metric to load; NULL: the file's default */
  gboolean    self_total;   /* after apply: --metric self or total (compare, render) */
  FlameMetric diff_metric;  /* which of them */
} FlameCliMetricArgs;

typedef struct
{
  char     *normalize;
  FlameCliMetricArgs metric;
  char     *match;
  char     *interval;
  char     *significance;
  gboolean  strip_hex;
  gboolean  exact_paths;
  gint      profile_index;  /* -1: the file's default */
  gint64    thread;         /* -1: all threads */
  char    **baseline;       /* --baseline, repeated: runs of each side */
  char    **current;
} FlameCliDiffArgs;

void     flame_cli_metric_args_add_entries (GOptionContext     *context,
                                            FlameCliMetricArgs *args,
                                            FlameCliMetricUse   use);
gboolean flame_cli_metric_args_apply       (FlameCliMetricArgs *args,
                                            const char         *command,
                                            FlameCliMetricUse   use);
gboolean flame_cli_metric_args_check       (const FlameCliMetricArgs *args,
                                            const char               *path,
                                            FlameProfile             *profile);
void     flame_cli_metric_args_clear       (FlameCliMetricArgs *args);

void     flame_cli_diff_args_add_entries (GOptionContext   *context,
                                          FlameCliDiffArgs *args);
gboolean flame_cli_diff_args_apply       (FlameCliDiffArgs *args,
                                          const char       *command,
                                          FlameDiffOptions *options);
void     flame_cli_diff_args_clear       (FlameCliDiffArgs *args);
gboolean flame_cli_parse_double          (const char       *command,
                                          const char       *option,
                                          const char       *value,
                                          gdouble           min,
                                          gdouble          *out);
FlameComparison *flame_cli_compare_files (char                    **files,
                                          guint                     n_files,
                                          FlameCliDiffArgs         *args,
                                          const FlameDiffOptions   *dopts,
                                          const FlameReportOptions *ropts,
                                          gboolean                  allow_single,
                                          gboolean                  want_report,
                                          gboolean                  single_use);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlameCliMetricArgs, flame_cli_metric_args_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlameCliDiffArgs, flame_cli_diff_args_clear)

G_END_DECLS

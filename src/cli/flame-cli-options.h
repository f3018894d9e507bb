/* flame-cli-options.h: the comparison options that compare and render
 * share, and their one call into FlameComparison.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-comparison.h"

G_BEGIN_DECLS

typedef struct
{
  char     *normalize;
  char     *metric;
  char     *match;
  char     *interval;
  char     *significance;
  char     *sample_type;    /* pprof: NULL for the file's default */
  gboolean  strip_hex;
  gboolean  exact_paths;
  gint      profile_index;  /* -1: the file's default */
  gint64    thread;         /* -1: all threads */
  char    **baseline;       /* --baseline, repeated: runs of each side */
  char    **current;
} FlameCliDiffArgs;

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
                                          gboolean                  want_report);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlameCliDiffArgs, flame_cli_diff_args_clear)

G_END_DECLS

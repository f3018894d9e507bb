/* flame-comparison.h: one comparison, from files to report: load the runs
 * of each side (in parallel), diff, report. The application window, the
 * CLI and the tests all go through it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "flame-diff.h"
#include "flame-loader.h"
#include "flame-report.h"
#include "flame-runs.h"

G_BEGIN_DECLS

#define FLAME_TYPE_COMPARISON (flame_comparison_get_type ())

G_DECLARE_FINAL_TYPE (FlameComparison, flame_comparison, FLAME, COMPARISON, GObject)

FlameComparison          *flame_comparison_new                (void);

/* the runs: @side is FLAME_DIFF_BASELINE or FLAME_DIFF_CURRENT */
void                      flame_comparison_add_baseline       (FlameComparison          *self,
                                                               const char               *path);
void                      flame_comparison_add_current        (FlameComparison          *self,
                                                               const char               *path);
void                      flame_comparison_add_file           (FlameComparison          *self,
                                                               guint                     side,
                                                               GFile                    *file);
void                      flame_comparison_add_profile        (FlameComparison          *self,
                                                               guint                     side,
                                                               GFile                    *file,
                                                               FlameProfile             *profile);
void                      flame_comparison_reuse_diff         (FlameComparison          *self,
                                                               FlameDiff                *diff);
GPtrArray                *flame_comparison_list_runs          (const char               *path,
                                                               GPtrArray                *ignored,
                                                               GError                  **error);
guint                     flame_comparison_get_n_runs         (FlameComparison          *self,
                                                               guint                     side);
GFile                    *flame_comparison_get_run_file       (FlameComparison          *self,
                                                               guint                     side,
                                                               guint                     run);
FlameProfile             *flame_comparison_get_run_profile    (FlameComparison          *self,
                                                               guint                     side,
                                                               guint                     run);

/* options, before loading */
void                      flame_comparison_set_load_options   (FlameComparison          *self,
                                                               const FlameLoadOptions   *options);
void                      flame_comparison_set_diff_options   (FlameComparison          *self,
                                                               const FlameDiffOptions   *options);
const FlameDiffOptions   *flame_comparison_get_diff_options   (FlameComparison          *self);
void                      flame_comparison_set_report_options (FlameComparison          *self,
                                                               const FlameReportOptions *options);
const FlameReportOptions *flame_comparison_get_report_options (FlameComparison          *self);
void flame_comparison_set_metric_from_files (FlameComparison *self, gboolean from_files);
void flame_comparison_set_allow_single (FlameComparison *self, gboolean allow_single);
void flame_comparison_set_want_report (FlameComparison *self, gboolean want_report);
void flame_comparison_set_single_use  (FlameComparison *self, gboolean single_use);

/* loading: the runs not loaded yet, then the diff and its report */
gboolean flame_comparison_load (FlameComparison *self, GCancellable *cancellable, GError **error);
void flame_comparison_load_async (FlameComparison *self, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);
gboolean                  flame_comparison_load_finish        (FlameComparison          *self,
                                                               GAsyncResult             *result,
                                                               GError                  **error);
gdouble                   flame_comparison_get_fraction       (FlameComparison          *self);
const char               *flame_comparison_get_message        (FlameComparison          *self);

/* results, after loading */
FlameProfile             *flame_comparison_get_profile        (FlameComparison          *self,
                                                               guint                     side);
const FlameRuns          *flame_comparison_get_runs           (FlameComparison          *self,
                                                               guint                     side);
FlameDiff                *flame_comparison_get_diff           (FlameComparison          *self);
FlameReport              *flame_comparison_get_report         (FlameComparison          *self);

G_END_DECLS

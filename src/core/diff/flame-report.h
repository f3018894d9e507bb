/* flame-report.h: the per-function comparison report (text, Markdown,
 * JSON) and the 3-column folded export.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-diff.h"
#include "flame-significance.h"

G_BEGIN_DECLS

typedef enum
{
  FLAME_STATUS_UNCHANGED,
  FLAME_STATUS_REGRESSION,
  FLAME_STATUS_IMPROVEMENT,
  FLAME_STATUS_NEW,
  FLAME_STATUS_REMOVED,
  FLAME_N_STATUSES
} FlameStatus;

typedef struct
{
  guint32     frame;        /* diff frame (flame_diff_get_frames()) */
  gdouble     self_b;       /* in the diff's quantity (ms, ...), baseline scaled */
  gdouble     self_c;
  gdouble     total_b;      /* counted once per stack */
  gdouble     total_c;
  gdouble     delta_self;
  gdouble     delta_total;
  gdouble     delta_pct;    /* of the chosen metric */
  FlameStatus status;
  gboolean    significant;
  gboolean    gate;         /* fails --fail-on-regression */
  /* several runs on both sides (flame_report_new_with_runs()): the
   * metric's per-run times tested by Welch's t, corrected over all
   * functions by Benjamini–Hochberg; significant means q < alpha */
  gboolean    tested;
  gdouble     ci_low;       /* 95 % interval of the metric's delta */
  gdouble     ci_high;
  gdouble     p;
  gdouble     q;
} FlameFunctionStat;

/* One side's runs: per run, per frame of the side's profile (the one the
 * diff compared), self and total in the diff's quantity, run-major. */
typedef struct
{
  guint          n_runs;
  guint          n_frames;
  const gdouble *self;
  const gdouble *total;
} FlameRunTimes;

#define FLAME_REPORT_CONFIDENCE FLAME_RUNS_CONFIDENCE

typedef struct
{
  FlameMetric metric;
  gdouble     threshold_pct;   /* default 5 */
  gdouble     min_abs_ms;      /* default 0; in the diff's quantity (ms, bytes, a count) */
  guint       top_n;           /* default 10 */
  gdouble     alpha;           /* for "significant"; 0 = 0.05 */
  gboolean    gate_on_noise;   /* non-significant changes are unchanged */
  gboolean    ignore_new;      /* new functions never fail the gate */
} FlameReportOptions;

typedef struct _FlameReport FlameReport;

void                     flame_report_options_init (FlameReportOptions       *options);
const char              *flame_status_to_string    (FlameStatus               status);
FlameReport             *flame_report_new          (FlameDiff                *diff,
                                                    const FlameReportOptions *options);
FlameReport             *flame_report_new_with_runs (FlameDiff              *diff,
                                                    const FlameRunTimes      *baseline,
                                                    const FlameRunTimes      *current,
                                                    const FlameReportOptions *options);
guint                    flame_report_get_n_runs   (FlameReport              *self,
                                                    guint                     side);
void                     flame_report_free         (FlameReport              *self);
GPtrArray               *flame_report_get_binaries (FlameReport              *self);
guint                    flame_report_get_n_functions (FlameReport            *self);
const FlameFunctionStat *flame_report_get_function (FlameReport              *self,
                                                    guint                     i);
const FlameFunctionStat *flame_report_find         (FlameReport              *self,
                                                    const char               *name);
guint                    flame_report_count        (FlameReport              *self,
                                                    FlameStatus               status);
guint                    flame_report_count_gate_failures (FlameReport        *self);
FlameDiff               *flame_report_get_diff     (FlameReport              *self);
const char              *flame_report_get_name     (FlameReport              *self,
                                                    const FlameFunctionStat  *stat);
const char              *flame_report_get_file     (FlameReport              *self,
                                                    const FlameFunctionStat  *stat);
void                     flame_report_write_text   (FlameReport              *self,
                                                    GString                  *out);
void                     flame_report_write_markdown (FlameReport            *self,
                                                    GString                  *out);
void                     flame_report_write_json   (FlameReport              *self,
                                                    GString                  *out);
void                     flame_diff_write_folded   (FlameDiff                *diff,
                                                    GString                  *out);
void                     flame_profile_write_folded (FlameProfile            *profile,
                                                     GString                 *out);

/**
 * FlameTextDrain:
 * @text: what has been written so far
 * @user_data: the data given with the function
 *
 * Takes @text away (writes it out, say) and empties it: lets output of
 * the size of the input go out in pieces instead of being held whole.
 */
typedef void (*FlameTextDrain) (GString  *text,
                                gpointer  user_data);

void                     flame_diff_write_folded_drained (FlameDiff          *diff,
                                                          GString            *out,
                                                          FlameTextDrain      drain,
                                                          gpointer            user_data);
void                     flame_report_write_json_drained (FlameReport        *self,
                                                          GString            *out,
                                                          FlameTextDrain      drain,
                                                          gpointer            user_data);
void                     flame_profile_write_folded_drained (FlameProfile    *profile,
                                                             GString         *out,
                                                             FlameTextDrain   drain,
                                                             gpointer         user_data);

#define FLAME_REPORT_MARKDOWN_MARKER "<!-- flamediff-report -->"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameReport, flame_report_free)

G_END_DECLS

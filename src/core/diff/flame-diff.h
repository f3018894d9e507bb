/* flame-diff.h: the merged baseline/current call tree and its colour
 * classes (semantics: docs/diff-semantics.md).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "flame-node-stats.h"
#include "flame-profile.h"

G_BEGIN_DECLS

/* Columns of the diff tree. Weights are in the diff's quantity
 * (flame_diff_get_quantity(): milliseconds for time, else bytes or a
 * count), unscaled. The `_ms` names below predate other quantities: their
 * values are in that quantity too. */
#define FLAME_DIFF_BASELINE 0
#define FLAME_DIFF_CURRENT  1

typedef enum
{
  FLAME_MATCH_NAME,
  FLAME_MATCH_NAME_FILE,       /* default: a moved function still matches */
  FLAME_MATCH_NAME_FILE_LINE,
} FlameMatch;

/* docs/diff-semantics.md "Normalisation" */
typedef enum
{
  FLAME_NORMALIZE_ABSOLUTE,  /* default: both sides in time, not scaled (CPython 3.15.2) */
  FLAME_NORMALIZE_TOTAL,     /* scale the baseline to the current sampled time */
} FlameNormalize;

typedef enum
{
  FLAME_METRIC_SELF,
  FLAME_METRIC_TOTAL,
} FlameMetric;

typedef enum
{
  FLAME_CHANGE_NEUTRAL,
  FLAME_CHANGE_REGRESSION_DEEP,
  FLAME_CHANGE_REGRESSION_MEDIUM,
  FLAME_CHANGE_REGRESSION_LIGHT,
  FLAME_CHANGE_REGRESSION_VERY_LIGHT,
  FLAME_CHANGE_IMPROVEMENT_DEEP,
  FLAME_CHANGE_IMPROVEMENT_MEDIUM,
  FLAME_CHANGE_IMPROVEMENT_LIGHT,
  FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT,
  FLAME_CHANGE_NEW,
  FLAME_CHANGE_ELIDED,
  FLAME_N_CHANGES
} FlameChange;

/* The colour classes' bounds on the change percentage p, one place for
 * the classification, the legends and the docs (docs/diff-semantics.md):
 * |p| < NEUTRAL is neutral; then very light up to LIGHT, light up to
 * MEDIUM, medium up to DEEP, deep from DEEP on (and −DEEP: the time is
 * gone). */
#define FLAME_CHANGE_NEUTRAL_PCT 15
#define FLAME_CHANGE_LIGHT_PCT   30
#define FLAME_CHANGE_MEDIUM_PCT  50
#define FLAME_CHANGE_DEEP_PCT    100

typedef struct
{
  FlameMatch     match;
  gboolean       strip_hex;            /* 0x1234 -> 0x..., +0x12 dropped */
  gboolean       exact_paths;          /* files only match by their full path */
  FlameNormalize normalize;
  FlameMetric    metric;               /* what the colour compares */
  gdouble        significance;         /* > 0: neutral unless p < this */
  gdouble        default_interval_ms;  /* for files without timing */
} FlameDiffOptions;

/* Milliseconds; the baseline already multiplied by the scale. */
typedef struct
{
  gdouble self_b;
  gdouble total_b;
  gdouble self_c;
  gdouble total_c;
} FlameDiffValues;

#define FLAME_TYPE_DIFF (flame_diff_get_type ())

G_DECLARE_FINAL_TYPE (FlameDiff, flame_diff, FLAME, DIFF, GObject)

void            flame_diff_options_init          (FlameDiffOptions   *options);
const char     *flame_match_to_string            (FlameMatch          match);
gboolean        flame_match_from_string          (const char         *str,
                                                  FlameMatch         *match);
const char     *flame_normalize_to_string        (FlameNormalize      normalize);
gboolean        flame_normalize_from_string      (const char         *str,
                                                  FlameNormalize     *normalize);

FlameDiff      *flame_diff_new                   (FlameProfile       *baseline,
                                                  FlameProfile       *current,
                                                  const FlameDiffOptions *options,
                                                  GCancellable       *cancellable,
                                                  GError            **error);
FlameDiff      *flame_diff_new_with_runs         (FlameProfile       *baseline,
                                                  FlameProfile       *current,
                                                  const FlameRunNodes *runs_b,
                                                  const FlameRunNodes *runs_c,
                                                  gdouble             alpha,
                                                  const FlameDiffOptions *options,
                                                  GCancellable       *cancellable,
                                                  GError            **error);
FlameDiff      *flame_diff_new_taking_baseline   (FlameProfile       *baseline,
                                                  FlameProfile       *current,
                                                  const FlameDiffOptions *options,
                                                  GCancellable       *cancellable,
                                                  GError            **error);

FlameDiff      *flame_diff_new_reusing           (FlameDiff          *previous,
                                                  FlameProfile       *baseline,
                                                  FlameProfile       *current,
                                                  const FlameDiffOptions *options);

const FlameDiffOptions *flame_diff_get_options   (FlameDiff          *self);
FlameProfile   *flame_diff_get_baseline          (FlameDiff          *self);
FlameProfile   *flame_diff_get_current           (FlameDiff          *self);
guint           flame_diff_get_source_column     (FlameDiff          *self,
                                                  guint               side);
FlameFrames    *flame_diff_get_frames            (FlameDiff          *self);
const guint32  *flame_diff_get_frame_map         (FlameDiff          *self,
                                                  guint               side,
                                                  guint              *n_frames);
gboolean        flame_diff_is_thread_frame       (FlameDiff          *self,
                                                  guint32             frame);
FlameTree      *flame_diff_get_tree              (FlameDiff          *self);
FlameTree      *flame_diff_get_inverted_tree     (FlameDiff          *self);
FlameNodeStats *flame_diff_get_node_stats        (FlameDiff          *self,
                                                  const FlameTree    *tree);

gdouble         flame_diff_get_scale             (FlameDiff          *self);
gdouble         flame_diff_get_sampled_time_ratio (FlameDiff         *self);
gdouble         flame_diff_get_total_ms          (FlameDiff          *self,
                                                  guint               column);
gdouble         flame_diff_get_samples           (FlameDiff          *self,
                                                  guint               column);
FlameQuantity   flame_diff_get_quantity          (FlameDiff          *self);
gdouble         flame_diff_get_interval_ms       (FlameDiff          *self,
                                                  guint               column);
gboolean        flame_diff_get_interval_assumed  (FlameDiff          *self,
                                                  guint               column);

gboolean        flame_diff_get_function_weights  (FlameDiff          *self,
                                                  guint               column,
                                                  guint               n_frames,
                                                  gdouble            *self_out,
                                                  gdouble            *total_out);
void            flame_diff_get_values            (FlameDiff          *self,
                                                  const FlameTree    *tree,
                                                  guint32             node,
                                                  FlameDiffValues    *values);
gdouble         flame_diff_percent               (const FlameDiffValues *values,
                                                  FlameMetric         metric);
gboolean        flame_diff_is_significant        (FlameDiff          *self,
                                                  const FlameDiffValues *values,
                                                  FlameMetric         metric,
                                                  gdouble             alpha);
FlameChange  flame_diff_classify_values       (FlameDiff          *self,
                                                  const FlameDiffValues *values,
                                                  FlameMetric         metric);
FlameChange  flame_diff_classify              (FlameDiff          *self,
                                                  const FlameTree    *tree,
                                                  guint32             node,
                                                  FlameMetric         metric);
gboolean        flame_diff_is_elided             (FlameDiff          *self,
                                                  guint32             node);
guint           flame_diff_get_elided_count      (FlameDiff          *self);
guint           flame_diff_get_elided_stacks     (FlameDiff          *self);
gdouble         flame_diff_get_elided_weight     (FlameDiff          *self,
                                                  guint32             node);

gdouble         flame_binomial_p_value           (guint64             k,
                                                  guint64             n,
                                                  gdouble             p);
char           *flame_strip_hex                  (const char         *name,
                                                  gsize               len,
                                                  gsize              *out_len);

G_END_DECLS

/* flame-significance.h: is a change between repeated runs real?
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* the level of the intervals shown for repeated runs */
#define FLAME_RUNS_CONFIDENCE 0.95

/* Welch's unequal-variance t-test of mean(current) − mean(baseline), with
 * the two-sided p-value and a confidence interval of the difference. */
typedef struct
{
  guint   n_b, n_c;       /* runs on each side */
  gdouble mean_b, mean_c;
  gdouble sd_b, sd_c;     /* sample standard deviations (n − 1) */
  gdouble diff;           /* mean_c − mean_b */
  gdouble se;             /* standard error of diff */
  gdouble df;             /* Welch–Satterthwaite degrees of freedom */
  gdouble t;
  gdouble p;              /* two-sided; 1 when the test cannot be made */
  gdouble ci_low, ci_high;/* of diff, at the level asked for */
  gboolean testable;      /* ≥ 2 runs on each side */
} FlameWelch;

gdouble  flame_student_t_cdf      (gdouble      t,
                                   gdouble      df);
gdouble  flame_student_t_quantile (gdouble      p,
                                   gdouble      df);
gboolean flame_welch_test         (const gdouble *baseline,
                                   guint          n_b,
                                   const gdouble *current,
                                   guint          n_c,
                                   gdouble        confidence,
                                   FlameWelch    *out);
void     flame_benjamini_hochberg (const gdouble *p,
                                   guint          n,
                                   gdouble       *q);
void     flame_runs_test          (const gdouble *baseline,
                                   guint          n_b,
                                   const gdouble *current,
                                   guint          n_c,
                                   gsize          stride,
                                   gdouble        scale_b,
                                   const guint32 *items,
                                   guint          n_items,
                                   gdouble        confidence,
                                   FlameWelch    *welch,
                                   gdouble       *q);

G_END_DECLS

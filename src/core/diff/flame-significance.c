/* flame-significance.c: Student's t distribution, Welch's t-test and the
 * Benjamini–Hochberg correction, for telling a real change between sets
 * of repeated runs from run-to-run noise (docs/diff-semantics.md).
 *
 * Only libm: the t distribution's CDF is the regularized incomplete beta
 * function, evaluated with its continued fraction (modified Lentz), and
 * its quantile by bisection on the CDF, which is monotonic.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "flame-significance.h"

#define CF_MAX_ITERATIONS 300
#define CF_EPSILON 1e-15
#define CF_TINY 1e-300

/* The continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2). */
static gdouble
beta_continued_fraction (gdouble a,
                         gdouble b,
                         gdouble x)
{
  gdouble c = 1.0;
  gdouble d = 1.0 - (a + b) * x / (a + 1.0);
  gdouble h;

  if (fabs (d) < CF_TINY)
    d = CF_TINY;
  d = 1.0 / d;
  h = d;

  for (int m = 1; m <= CF_MAX_ITERATIONS; m++)
    {
      gdouble m2 = 2.0 * m;
      gdouble num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
      gdouble delta;

      /* even step */
      d = 1.0 + num * d;
      if (fabs (d) < CF_TINY)
        d = CF_TINY;
      c = 1.0 + num / c;
      if (fabs (c) < CF_TINY)
        c = CF_TINY;
      d = 1.0 / d;
      h *= d * c;

      /* odd step */
      num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
      d = 1.0 + num * d;
      if (fabs (d) < CF_TINY)
        d = CF_TINY;
      c = 1.0 + num / c;
      if (fabs (c) < CF_TINY)
        c = CF_TINY;
      d = 1.0 / d;
      delta = d * c;
      h *= delta;
      if (fabs (delta - 1.0) < CF_EPSILON)
        break;
    }
  return h;
}

/* I_x(a, b), the regularized incomplete beta function */
static gdouble
incomplete_beta (gdouble a,
                 gdouble b,
                 gdouble x)
{
  gdouble front;

  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;

  front = exp (lgamma (a + b) - lgamma (a) - lgamma (b) + a * log (x) + b * log1p (-x));
  if (x < (a + 1.0) / (a + b + 2.0))
    return front * beta_continued_fraction (a, b, x) / a;
  return 1.0 - front * beta_continued_fraction (b, a, 1.0 - x) / b;
}

/**
 * flame_student_t_cdf:
 *
 * P(T ≤ @t) for Student's t distribution with @df degrees of freedom
 * (any real @df > 0, as Welch's test needs).
 */
gdouble
flame_student_t_cdf (gdouble t,
                     gdouble df)
{
  gdouble tail;

  g_return_val_if_fail (df > 0, NAN);

  if (isinf (t))
    return t > 0 ? 1.0 : 0.0;
  tail = 0.5 * incomplete_beta (df / 2.0, 0.5, df / (df + t * t));
  return t > 0 ? 1.0 - tail : tail;
}

/**
 * flame_student_t_quantile:
 *
 * The t with P(T ≤ t) = @p, for 0 < @p < 1.
 */
gdouble
flame_student_t_quantile (gdouble p,
                          gdouble df)
{
  gdouble lo = 0, hi = 1;

  g_return_val_if_fail (p > 0 && p < 1 && df > 0, NAN);

  if (p == 0.5)
    return 0;
  if (p < 0.5)
    return -flame_student_t_quantile (1.0 - p, df);

  /* bracket, then halve: the CDF is increasing in t */
  while (flame_student_t_cdf (hi, df) < p && hi < 1e300)
    {
      lo = hi;
      hi *= 2;
    }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++)
    {
      gdouble mid = lo + (hi - lo) / 2;

      if (flame_student_t_cdf (mid, df) < p)
        lo = mid;
      else
        hi = mid;
    }
  return lo + (hi - lo) / 2;
}

static void
mean_and_sd (const gdouble *x,
             guint          n,
             gdouble       *mean,
             gdouble       *sd)
{
  gdouble sum = 0, ss = 0;

  for (guint i = 0; i < n; i++)
    sum += x[i];
  *mean = n > 0 ? sum / n : 0;
  for (guint i = 0; i < n; i++)
    ss += (x[i] - *mean) * (x[i] - *mean);
  *sd = n > 1 ? sqrt (ss / (n - 1)) : 0;
}

/**
 * flame_welch_test:
 * @baseline: per-run values of the baseline side
 * @current: per-run values of the current side
 * @confidence: level of the interval, e.g. 0.95
 *
 * Welch's t-test of the difference of the means. With fewer than two
 * runs on a side there is no spread to test against: @out gets the means
 * and difference, p = 1 and an interval of just the difference, and the
 * function returns %FALSE. When neither side varies at all the
 * difference is exact: p is 0 if the means differ and 1 if not.
 *
 * Returns: whether a test could be made
 */
gboolean
flame_welch_test (const gdouble *baseline,
                  guint          n_b,
                  const gdouble *current,
                  guint          n_c,
                  gdouble        confidence,
                  FlameWelch    *out)
{
  gdouble vb, vc;

  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (confidence > 0 && confidence < 1, FALSE);

  *out = (FlameWelch) { .n_b = n_b, .n_c = n_c, .p = 1.0 };
  mean_and_sd (baseline, n_b, &out->mean_b, &out->sd_b);
  mean_and_sd (current, n_c, &out->mean_c, &out->sd_c);
  out->diff = out->mean_c - out->mean_b;
  out->ci_low = out->ci_high = out->diff;

  if (n_b < 2 || n_c < 2)
    return FALSE;
  out->testable = TRUE;

  vb = out->sd_b * out->sd_b / n_b;
  vc = out->sd_c * out->sd_c / n_c;
  out->se = sqrt (vb + vc);
  if (out->se <= 0 || !isfinite (out->se))
    {
      out->df = n_b + n_c - 2;
      out->t = out->diff == 0 ? 0 : copysign (INFINITY, out->diff);
      out->p = out->diff == 0 ? 1.0 : 0.0;
      return TRUE;
    }

  out->df = (vb + vc) * (vb + vc) /
            (vb * vb / (n_b - 1) + vc * vc / (n_c - 1));
  out->t = out->diff / out->se;
  out->p = 2.0 * flame_student_t_cdf (-fabs (out->t), out->df);
  out->p = CLAMP (out->p, 0.0, 1.0);
  {
    gdouble half = flame_student_t_quantile (0.5 + confidence / 2.0, out->df) * out->se;

    out->ci_low = out->diff - half;
    out->ci_high = out->diff + half;
  }
  return TRUE;
}

typedef struct
{
  gdouble p;
  guint   index;
} RankedP;

static int
compare_ranked (const void *a,
                const void *b)
{
  const RankedP *x = a, *y = b;

  if (x->p != y->p)
    return x->p < y->p ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/**
 * flame_benjamini_hochberg:
 * @p: @n p-values
 * @q: (out): @n adjusted p-values (may be @p itself)
 *
 * Benjamini–Hochberg adjusted p-values: a change whose q is below α is a
 * discovery at a false discovery rate of α over the @n tests made at
 * once. q_(i) = min over j ≥ i of p_(j)·n/j, capped at 1.
 */
void
flame_benjamini_hochberg (const gdouble *p,
                          guint          n,
                          gdouble       *q)
{
  g_autofree RankedP *ranked = NULL;
  gdouble running = 1.0;

  if (n == 0)
    return;

  ranked = g_new (RankedP, n);
  for (guint i = 0; i < n; i++)
    ranked[i] = (RankedP) { isnan (p[i]) ? 1.0 : p[i], i };
  qsort (ranked, n, sizeof *ranked, compare_ranked);

  for (guint r = n; r-- > 0;)
    {
      gdouble adjusted = ranked[r].p * n / (r + 1);

      running = MIN (running, adjusted);
      q[ranked[r].index] = MIN (running, 1.0);
    }
}

/**
 * flame_runs_test:
 * @baseline: per-run values, run-major: run r's row starts at r × @stride
 * @current: the same for the current side
 * @scale_b: what every baseline value is multiplied by (the diff's scale)
 * @items: (array length=n_items) (nullable): the columns to test; %NULL
 *   for columns 0 … @n_items − 1
 * @welch: (array length=n_items) (out) (nullable): each test
 * @q: (array length=n_items) (out): each item's p-value adjusted by
 *   Benjamini–Hochberg over the @n_items tests
 *
 * Welch's t per item on the runs, then Benjamini–Hochberg over all of
 * them: the one test the report makes per function and the graph per
 * call path.
 */
void
flame_runs_test (const gdouble *baseline,
                 guint          n_b,
                 const gdouble *current,
                 guint          n_c,
                 gsize          stride,
                 gdouble        scale_b,
                 const guint32 *items,
                 guint          n_items,
                 gdouble        confidence,
                 FlameWelch    *welch,
                 gdouble       *q)
{
  g_autofree gdouble *xb = g_new (gdouble, MAX (n_b, 1));
  g_autofree gdouble *xc = g_new (gdouble, MAX (n_c, 1));

  for (guint i = 0; i < n_items; i++)
    {
      gsize col = items != NULL ? items[i] : i;
      FlameWelch w;

      for (guint r = 0; r < n_b; r++)
        xb[r] = baseline[(gsize) r * stride + col] * scale_b;
      for (guint r = 0; r < n_c; r++)
        xc[r] = current[(gsize) r * stride + col];
      flame_welch_test (xb, n_b, xc, n_c, confidence, &w);
      if (welch != NULL)
        welch[i] = w;
      q[i] = w.p;
    }
  flame_benjamini_hochberg (q, n_items, q);
}

/* test-significance.c: Student's t, Welch's test and Benjamini–Hochberg
 * against independently computed values, and the false-positive rate and
 * power of the combination on generated repeated runs.
 *
 * Reference values: t quantiles from standard tables; CDF values and the
 * Welch example by direct numerical integration of the t density
 * (Simpson's rule, 200 000 steps) in Python, not by this code's method.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>

#include "flame-significance.h"

static void
test_t_cdf (void)
{
  g_assert_cmpfloat_with_epsilon (flame_student_t_cdf (0, 3), 0.5, 1e-12);
  /* df = 1 is the Cauchy distribution: 1/2 + atan(t)/π */
  g_assert_cmpfloat_with_epsilon (flame_student_t_cdf (0.3, 1), 0.5927735790777423, 1e-10);
  g_assert_cmpfloat_with_epsilon (flame_student_t_cdf (1.5, 3.7), 0.8932009153989899, 1e-9);
  g_assert_cmpfloat_with_epsilon (flame_student_t_cdf (-2.0, 7), 0.04280966428148436, 1e-9);
  g_assert_cmpfloat_with_epsilon (flame_student_t_cdf (2.0, 7) + flame_student_t_cdf (-2.0, 7), 1.0,
                                  1e-12);
  g_assert_cmpfloat (flame_student_t_cdf (INFINITY, 4), ==, 1.0);
  g_assert_cmpfloat (flame_student_t_cdf (-INFINITY, 4), ==, 0.0);
  /* far tails stay in [0, 1] and monotonic */
  g_assert_cmpfloat (flame_student_t_cdf (-1e6, 2), >=, 0.0);
  g_assert_cmpfloat (flame_student_t_cdf (-1e6, 2), <, flame_student_t_cdf (-1e5, 2));
}

static void
test_t_quantile (void)
{
  static const struct { gdouble df, t975; } table[] = {
    { 1, 12.706204736 },
    { 2, 4.302652730 },
    { 5, 2.570581836 },
    { 10, 2.228138852 },
    { 30, 2.042272456 },
    { 1e7, 1.959964 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      gdouble t = flame_student_t_quantile (0.975, table[i].df);

      g_assert_cmpfloat_with_epsilon (t, table[i].t975, 1e-6 * table[i].t975);
      g_assert_cmpfloat_with_epsilon (flame_student_t_quantile (0.025, table[i].df), -t, 1e-9);
    }
  g_assert_cmpfloat (flame_student_t_quantile (0.5, 3), ==, 0);
}

static void
test_welch (void)
{
  /* Welch's own kind of example: unequal variances, 15 runs a side */
  static const gdouble a[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
                               21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
  static const gdouble b[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
                               24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
  FlameWelch w;

  g_assert_true (flame_welch_test (a, G_N_ELEMENTS (a), b, G_N_ELEMENTS (b), 0.95, &w));
  g_assert_true (w.testable);
  g_assert_cmpfloat_with_epsilon (w.mean_b, 20.82, 1e-9);
  g_assert_cmpfloat_with_epsilon (w.mean_c, 22.986666666666668, 1e-9);
  g_assert_cmpfloat_with_epsilon (w.t, 2.455356398286006, 1e-9);
  g_assert_cmpfloat_with_epsilon (w.df, 24.98852929023142, 1e-9);
  g_assert_cmpfloat_with_epsilon (w.p, 0.02137800146286173, 1e-8);
  /* the 95 % interval excludes 0 exactly when p < 0.05 */
  g_assert_cmpfloat (w.ci_low, >, 0);
  g_assert_cmpfloat_with_epsilon ((w.ci_low + w.ci_high) / 2, w.diff, 1e-9);
  g_assert_cmpfloat_with_epsilon ((w.ci_high - w.diff) / w.se,
                                  flame_student_t_quantile (0.975, w.df), 1e-9);

  /* swapped sides: the same test, the sign turned */
  g_assert_true (flame_welch_test (b, G_N_ELEMENTS (b), a, G_N_ELEMENTS (a), 0.95, &w));
  g_assert_cmpfloat_with_epsilon (w.t, -2.455356398286006, 1e-9);
  g_assert_cmpfloat_with_epsilon (w.p, 0.02137800146286173, 1e-8);
}

static void
test_welch_degenerate (void)
{
  static const gdouble one[] = { 5 };
  static const gdouble same[] = { 5, 5, 5 };
  static const gdouble other[] = { 6, 6, 6 };
  FlameWelch w;

  /* a single run on a side: no spread to test against */
  g_assert_false (flame_welch_test (one, 1, same, 3, 0.95, &w));
  g_assert_false (w.testable);
  g_assert_cmpfloat (w.p, ==, 1.0);
  g_assert_cmpfloat (w.diff, ==, 0);

  /* no variation at all: the difference is exact */
  g_assert_true (flame_welch_test (same, 3, other, 3, 0.95, &w));
  g_assert_cmpfloat (w.p, ==, 0.0);
  g_assert_cmpfloat (w.diff, ==, 1.0);
  g_assert_true (flame_welch_test (same, 3, same, 3, 0.95, &w));
  g_assert_cmpfloat (w.p, ==, 1.0);
}

static void
test_benjamini_hochberg (void)
{
  const gdouble p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
  gdouble q[G_N_ELEMENTS (p)];

  /* sorted: 0.005 0.01 0.03 0.04 1(NaN); p·n/rank = .025 .025 .05 .05 1;
   * then the running minimum from the largest rank down */
  flame_benjamini_hochberg (p, G_N_ELEMENTS (p), q);
  g_assert_cmpfloat_with_epsilon (q[0], 0.025, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[1], 0.05, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[2], 0.05, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[3], 0.025, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[4], 1.0, 1e-12);

  /* in place */
  {
    gdouble r[] = { 0.5, 0.001 };

    flame_benjamini_hochberg (r, 2, r);
    g_assert_cmpfloat_with_epsilon (r[0], 0.5, 1e-12);
    g_assert_cmpfloat_with_epsilon (r[1], 0.002, 1e-12);
  }
}

static gdouble
gaussian (GRand *rand)
{
  /* Box–Muller */
  gdouble u = g_rand_double_range (rand, 1e-12, 1.0);
  gdouble v = g_rand_double (rand);

  return sqrt (-2.0 * log (u)) * cos (2.0 * G_PI * v);
}

/* The case of the repeated-runs issue: 40 functions, 8 runs a side, two
 * functions really change by +30 % and −30 %, every function varies by
 * ~8 % from run to run and each run as a whole by ~2 %. Welch's test with
 * Benjamini–Hochberg at 5 % must find both changes and flag at most one
 * of the 38 unchanged functions in nearly every data set. */
static void
test_generated_runs (void)
{
  enum { FUNCTIONS = 40, RUNS = 8, DATASETS = 300 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261201);
  guint good = 0, false_flags = 0, missed = 0;

  for (guint set = 0; set < DATASETS; set++)
    {
      gdouble base_ms[FUNCTIONS];
      gdouble runs[2][FUNCTIONS][RUNS];
      gdouble p[FUNCTIONS], q[FUNCTIONS];
      guint flagged_unchanged = 0;
      gboolean found_both;

      for (guint f = 0; f < FUNCTIONS; f++)
        base_ms[f] = g_rand_double_range (rand, 20, 400);

      for (guint side = 0; side < 2; side++)
        for (guint r = 0; r < RUNS; r++)
          {
            gdouble whole = 1.0 + 0.02 * gaussian (rand);

            for (guint f = 0; f < FUNCTIONS; f++)
              {
                gdouble effect = 1.0;

                if (side == 1 && f == 0)
                  effect = 1.3;
                else if (side == 1 && f == 1)
                  effect = 0.7;
                runs[side][f][r] = base_ms[f] * effect * whole * (1.0 + 0.08 * gaussian (rand));
              }
          }

      for (guint f = 0; f < FUNCTIONS; f++)
        {
          FlameWelch w;

          flame_welch_test (runs[0][f], RUNS, runs[1][f], RUNS, 0.95, &w);
          p[f] = w.p;
        }
      flame_benjamini_hochberg (p, FUNCTIONS, q);

      found_both = q[0] < 0.05 && q[1] < 0.05;
      for (guint f = 2; f < FUNCTIONS; f++)
        if (q[f] < 0.05)
          flagged_unchanged++;
      false_flags += flagged_unchanged;
      missed += !found_both;
      if (found_both && flagged_unchanged <= 1)
        good++;
    }

  g_test_message ("%u of %u data sets: both changes found, at most one false flag; "
                  "%u false flags in all (%.2f %% of unchanged tests), %u sets missed a change",
                  good, DATASETS, false_flags,
                  100.0 * false_flags / (DATASETS * (FUNCTIONS - 2)), missed);
  g_assert_cmpuint (good, >=, DATASETS * 95 / 100);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/significance/t-cdf", test_t_cdf);
  g_test_add_func ("/significance/t-quantile", test_t_quantile);
  g_test_add_func ("/significance/welch", test_welch);
  g_test_add_func ("/significance/welch-degenerate", test_welch_degenerate);
  g_test_add_func ("/significance/benjamini-hochberg", test_benjamini_hochberg);
  g_test_add_func ("/significance/generated-runs", test_generated_runs);

  return g_test_run ();
}

/* flame-test-runs.h: generated repeated runs with known effects
 * (issue #14), for the report's tests, the graph's and the window's.
 *
 * A program of 40 functions under main;work; every function's time
 * varies ~8 % from run to run, the whole run ~2 %; in the current runs
 * fn_07 changes by +effect and fn_23 by −effect. Optionally one more
 * function, fn_noisy, varies by a large spread and does not change at
 * all: what its mean seems to do is noise.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>

#include "flame-comparison.h"

#define N_FUNCTIONS   40
#define UP_FUNCTION   7
#define DOWN_FUNCTION 23
#define FUNCTION_SD   0.08
#define RUN_SD        0.02
/* fn_noisy: the value index after the 40 functions */
#define NOISY_FUNCTION N_FUNCTIONS
#define NOISY_BASE     2000

static inline gdouble
normal (GRand *rand)
{
  /* Box–Muller */
  gdouble u = g_rand_double_range (rand, 1e-12, 1.0);
  gdouble v = g_rand_double (rand);

  return sqrt (-2 * log (u)) * cos (2 * G_PI * v);
}

/* One run in folded form: function f's time (in 1 ms samples) is its
 * base time × its own noise × the run's × @effect for the changed ones;
 * with @noisy_sd > 0, fn_noisy too. @values (nullable, N_FUNCTIONS + 1)
 * gets each function's time in ms as written. */
static inline char *
generate_run_full (GRand    *rand,
                   gboolean  current,
                   gdouble   effect,
                   gdouble   noisy_sd,
                   gdouble  *values)
{
  GString *s = g_string_new (NULL);
  gdouble run = 1 + RUN_SD * normal (rand);

  for (guint f = 0; f < N_FUNCTIONS; f++)
    {
      gdouble base = 200 + 50 * f;
      gdouble w = base * run * (1 + FUNCTION_SD * normal (rand));

      if (current && f == UP_FUNCTION)
        w *= 1 + effect;
      if (current && f == DOWN_FUNCTION)
        w *= 1 - effect;
      w = MAX (1, round (w));
      if (values != NULL)
        values[f] = w;
      g_string_append_printf (s, "main;work;fn_%02u %.0f\n", f, w);
    }
  if (noisy_sd > 0)
    {
      gdouble w = MAX (1, round (NOISY_BASE * run * (1 + noisy_sd * normal (rand))));

      if (values != NULL)
        values[NOISY_FUNCTION] = w;
      g_string_append_printf (s, "main;work;fn_noisy %.0f\n", w);
    }
  return g_string_free (s, FALSE);
}

static inline char *
generate_run (GRand   *rand,
              gboolean current,
              gdouble  effect)
{
  return generate_run_full (rand, current, effect, 0, NULL);
}

/* DIR/baseline/run-R.folded and DIR/current/run-R.folded; @values
 * (nullable): 2 × n_runs × (N_FUNCTIONS + 1), side-major, then run */
static inline void
write_data_set_full (GRand      *rand,
                     const char *dir,
                     guint       n_runs,
                     gdouble     effect,
                     gdouble     noisy_sd,
                     gdouble    *values)
{
  for (guint side = 0; side < 2; side++)
    {
      g_autofree char *sub = g_build_filename (dir, side ? "current" : "baseline", NULL);

      g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
      for (guint r = 0; r < n_runs; r++)
        {
          g_autofree char *name = g_strdup_printf ("run-%u.folded", r);
          g_autofree char *path = g_build_filename (sub, name, NULL);
          gdouble *row = values != NULL ? values + ((gsize) side * n_runs + r) * (N_FUNCTIONS + 1)
                                        : NULL;
          g_autofree char *text = generate_run_full (rand, side == 1, effect, noisy_sd, row);
          g_autoptr(GError) error = NULL;

          g_file_set_contents (path, text, -1, &error);
          g_assert_no_error (error);
        }
    }
}

static inline void
write_data_set (GRand      *rand,
                const char *dir,
                guint       n_runs,
                gdouble     effect)
{
  write_data_set_full (rand, dir, n_runs, effect, 0, NULL);
}

static inline void
remove_data_set (const char *dir,
                 guint       n_runs)
{
  for (guint side = 0; side < 2; side++)
    {
      g_autofree char *sub = g_build_filename (dir, side ? "current" : "baseline", NULL);

      for (guint r = 0; r < n_runs; r++)
        {
          g_autofree char *name = g_strdup_printf ("run-%u.folded", r);
          g_autofree char *path = g_build_filename (sub, name, NULL);

          g_remove (path);
        }
      g_rmdir (sub);
    }
  g_rmdir (dir);
}

/* The runs of @dir (write_data_set_full()) into a loaded comparison */
static inline FlameComparison *
flame_test_load_run_folders (const char *dir,
                             guint       n_runs)
{
  FlameComparison *comparison = flame_comparison_new ();
  g_autoptr(GError) error = NULL;

  for (guint side = 0; side < 2; side++)
    for (guint r = 0; r < n_runs; r++)
      {
        g_autofree char *name = g_strdup_printf ("run-%u.folded", r);
        g_autofree char *path = g_build_filename (dir, side ? "current" : "baseline", name, NULL);

        if (side == FLAME_DIFF_BASELINE)
          flame_comparison_add_baseline (comparison, path);
        else
          flame_comparison_add_current (comparison, path);
      }
  g_assert_true (flame_comparison_load (comparison, NULL, &error));
  g_assert_no_error (error);
  return comparison;
}

/* Mean and sample standard deviation (n − 1) of @n values with stride
 * @stride: the test's own arithmetic, not the code's under test */
static inline void
flame_test_mean_sd (const gdouble *x,
                    guint          n,
                    gsize          stride,
                    gdouble       *mean,
                    gdouble       *sd)
{
  gdouble sum = 0, ss = 0;

  for (guint i = 0; i < n; i++)
    sum += x[i * stride];
  *mean = sum / n;
  for (guint i = 0; i < n; i++)
    ss += (x[i * stride] - *mean) * (x[i * stride] - *mean);
  *sd = sqrt (ss / (n - 1));
}

/* Welch's t of function @f from the generated values (the test's own
 * arithmetic), @values as write_data_set_full() fills them */
static inline gdouble
welch_t_of (const gdouble *values,
            guint          n_runs,
            guint          f,
            gdouble       *mean_b,
            gdouble       *sd_b,
            gdouble       *mean_c,
            gdouble       *sd_c)
{
  gsize stride = N_FUNCTIONS + 1;

  flame_test_mean_sd (values + f, n_runs, stride, mean_b, sd_b);
  flame_test_mean_sd (values + n_runs * stride + f, n_runs, stride, mean_c, sd_c);
  return (*mean_c - *mean_b) / sqrt (*sd_b * *sd_b / n_runs + *sd_c * *sd_c / n_runs);
}

/* A data set (fn_07 +30 %, fn_23 −30 %, fn_noisy with a 35 % spread) in
 * which fn_noisy looks changed, its means ≥ 25 % apart, beyond the
 * graph's colour threshold, while its t is below 1.5, which no
 * correction makes significant, and the two real changes have |t| > 6
 * (p < 0.001 at 5 + 5 runs, significant after any correction over 41
 * paths): written again until one is. Returns how many were written
 * before it. */
static inline guint
write_noisy_data_set (GRand      *rand,
                      const char *dir,
                      guint       n_runs,
                      gdouble    *values)
{
  for (guint tries = 0; tries < 200; tries++)
    {
      gdouble mb, sb, mc, sc, t;

      write_data_set_full (rand, dir, n_runs, 0.30, 0.35, values);
      t = welch_t_of (values, n_runs, NOISY_FUNCTION, &mb, &sb, &mc, &sc);
      if (fabs (mc - mb) / mb >= 0.25 && fabs (t) < 1.5 &&
          welch_t_of (values, n_runs, UP_FUNCTION, &mb, &sb, &mc, &sc) > 6 &&
          welch_t_of (values, n_runs, DOWN_FUNCTION, &mb, &sb, &mc, &sc) < -6)
        return tries;
    }
  g_assert_not_reached ();
  return 0;
}

/* two-threads.c: known hot functions for the recording tests.
 *
 * Thread A runs hot_a and warm_a (3:1 by default), thread B runs
 * hot_b → qsort → cmp_b. Each function measures its own thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so the true shares are known however loaded
 * the machine is; they are written as "truth NAME SECONDS" lines to
 * $FLAMEDIFF_TRUTH, or to standard output.
 *
 * Usage: two-threads [SECONDS] [SLOW_FACTOR] [one]
 *   SECONDS: CPU time of thread A in total (default 1)
 *   SLOW_FACTOR: warm_a does this many times its normal work (default 1),
 *     for the record-twice-and-diff test
 *   one: thread A only (hot_a's time then does not depend on SLOW_FACTOR)
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;
static double seconds = 1.0;
static double slow = 1.0;
static int stop_b;

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noipa)) void
spin (long n)
{
  double x = 0;

  for (long i = 0; i < n; i++)
    x += (double) i * 1e-9;
  sink = x;
}

/* a slice of work; noipa so each keeps its own frame (identical
 * functions would otherwise be folded into one) */
static __attribute__((noipa)) double
hot_a (long units)
{
  double t0 = cpu_now ();

  for (long i = 0; i < units; i++)
    spin (200000);
  return cpu_now () - t0;
}

static __attribute__((noipa)) double
warm_a (long units)
{
  double t0 = cpu_now ();

  for (long i = 0; i < units; i++)
    spin (200000);
  return cpu_now () - t0;
}

static int
cmp_b (const void *a,
       const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;

  return (x > y) - (x < y);
}

static __attribute__((noipa)) double
hot_b (void)
{
  static int data[4096];
  double t0 = cpu_now ();

  for (int i = 0; i < 4096; i++)
    data[i] = (i * 7919) % 4093;
  qsort (data, 4096, sizeof data[0], cmp_b);
  return cpu_now () - t0;
}

static void *
thread_b (void *arg)
{
  double t = 0;

  while (!__atomic_load_n (&stop_b, __ATOMIC_RELAXED))
    t += hot_b ();
  *(double *) arg = t;
  return NULL;
}

static void *
thread_a (void *arg)
{
  double *t = arg;
  double start = cpu_now ();
  long warm_units = (long) (slow + 0.5);

  unsigned rng = 12345;

  /* Interleaved in small slices of random length, so a sampled second
   * sees both, and slices never beat with the timer tick (fixed-length
   * slices that divide 4 ms would alias with a 250 Hz tick). */
  while (cpu_now () - start < seconds * (3 + slow) / 4)
    {
      rng = rng * 1103515245u + 12345u;
      t[0] += hot_a (1 + (rng >> 16) % 5);                       /* mean 3 */
      rng = rng * 1103515245u + 12345u;
      t[1] += warm_a ((long) (warm_units * (1 + (rng >> 16) % 3)) / 2 +
                      ((rng >> 20) & 1));                         /* mean units */
    }
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  pthread_t a, b;
  double ta[2] = { 0, 0 }, tb = 0;

  if (argc > 1)
    seconds = atof (argv[1]);
  if (argc > 2)
    slow = atof (argv[2]);
  if (argc > 3 && strcmp (argv[3], "one") == 0)
    {
      pthread_create (&a, NULL, thread_a, ta);
      pthread_join (a, NULL);
    }
  else
    {
      pthread_create (&b, NULL, thread_b, &tb);
      pthread_create (&a, NULL, thread_a, ta);
      pthread_join (a, NULL);
      __atomic_store_n (&stop_b, 1, __ATOMIC_RELAXED);
      pthread_join (b, NULL);
    }
  {
    const char *path = getenv ("FLAMEDIFF_TRUTH");
    FILE *out = path != NULL ? fopen (path, "w") : stdout;

    if (out == NULL)
      return 1;
    fprintf (out, "truth hot_a %.6f\ntruth warm_a %.6f\ntruth hot_b %.6f\n", ta[0], ta[1], tb);
    if (out != stdout)
      fclose (out);
  }
  return 0;
}

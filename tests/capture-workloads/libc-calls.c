/* libc-calls.c: a program for perf record (tests/test-perfdata.c) that
 * spends its time in the C library, as ordinary programs do: malloc and
 * free, memcpy, qsort calling back into the program, a system call;
 * every call goes through the PLT. Built twice, once stripped.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
compare_ints (const void *a,
              const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;

  return (x > y) - (x < y);
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int    argc,
      char **argv)
{
  double end = now () + (argc > 1 ? atof (argv[1]) : 0.5);
  unsigned int seed = 1;
  unsigned long sink = 0;

  while (now () < end)
    {
      int n = 1000 + rand_r (&seed) % 1000;
      int *a = malloc (n * sizeof *a);
      int *b = malloc (n * sizeof *b);

      /* a call that costs little next to its PLT entry: samples there */
      for (int i = 0; i < 20 * n; i++)
        sink += rand_r (&seed) & 1;
      for (int i = 0; i < n; i++)
        a[i] = rand_r (&seed);
      memcpy (b, a, n * sizeof *a);
      qsort (b, n, sizeof *b, compare_ints);
      sink += (unsigned long) b[0] + (unsigned long) getppid ();
      free (a);
      free (b);
    }
  return sink == 42;
}

/* dlopen-stress.c: threads that dlopen/dlclose a module in a loop while
 * others compute, for the loader-lock deadlock test (docs/capture.md
 * §2.5: without the sampler's dlopen/dlclose handling, libunwind and the
 * loader deadlock within seconds).
 *
 * Usage: dlopen-stress MODULE SECONDS [LOADERS] [WORKERS]
 * Prints "pairs N" (dlopen/dlclose pairs done) and exits 0.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *module;
static double seconds;
static long pairs;
static volatile double sink;

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
count_object (struct dl_phdr_info *info, size_t size, void *data)
{
  ++*(int *) data;
  return 0;
}

static void *
loader (void *arg)
{
  double end = now () + seconds;

  while (now () < end)
    {
      void *h = dlopen (module, RTLD_NOW | RTLD_LOCAL);
      int (*answer) (int);
      int n = 0;

      if (h == NULL)
        {
          fprintf (stderr, "dlopen: %s\n", dlerror ());
          exit (1);
        }
      answer = (int (*) (int)) dlsym (h, "tiny_module_answer");
      if (answer == NULL || answer (20) != 41)
        exit (1);
      dl_iterate_phdr (count_object, &n);
      dlclose (h);
      __atomic_add_fetch (&pairs, 1, __ATOMIC_RELAXED);
    }
  return NULL;
}

static __attribute__((noipa)) double
work_leaf (int depth)
{
  double x = 0;

  for (int i = 0; i < 20000; i++)
    x += i * 1e-9;
  return depth > 0 ? x + work_leaf (depth - 1) : x;
}

static void *
worker (void *arg)
{
  double end = now () + seconds;

  while (now () < end)
    sink = work_leaf (20);
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  int loaders, workers;
  pthread_t threads[64];
  int n = 0;

  if (argc < 3)
    return 2;
  module = argv[1];
  seconds = atof (argv[2]);
  loaders = argc > 3 ? atoi (argv[3]) : 3;
  workers = argc > 4 ? atoi (argv[4]) : 1;
  for (int i = 0; i < loaders && n < 64; i++)
    pthread_create (&threads[n++], NULL, loader, NULL);
  for (int i = 0; i < workers && n < 64; i++)
    pthread_create (&threads[n++], NULL, worker, NULL);
  for (int i = 0; i < n; i++)
    pthread_join (threads[i], NULL);
  printf ("pairs %ld\n", pairs);
  return 0;
}

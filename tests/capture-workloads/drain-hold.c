/* drain-hold.c: for /capture/writer-sleeps (tests/test-capture.c).
 *
 *   drain-hold MODULE
 *
 * A thread spins; once it has used 0.3 s of CPU (300 samples, more than
 * the socket holds), the main thread dlopens MODULE:
 * the sampler drains its rings first, holding its drain lock, up to a
 * second when the socket is full (the test reads nothing). Prints
 * "held_ms H writer_ms W": how long dlopen took, and the CPU time the
 * sampler's writer thread (flamediff-out) used meanwhile.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int stop_spinning;
static volatile double sink;

static void *
spin_until_stopped (void *data)
{
  double x = 0;

  (void) data;
  while (!stop_spinning)
    for (int i = 0; i < 100000; i++)
      x += i * 1e-9;
  sink = x;
  return NULL;
}

static long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static size_t
read_file (const char *path,
           char       *buf,
           size_t      size)
{
  FILE *f = fopen (path, "r");
  size_t n = 0;

  if (f != NULL)
    {
      n = fread (buf, 1, size - 1, f);
      fclose (f);
    }
  buf[n] = '\0';
  return n;
}

/* CPU time (ms) of this process's thread named @name; -1 without one */
static long
thread_cpu_ms (const char *name)
{
  DIR *dir = opendir ("/proc/self/task");
  struct dirent *e;
  long ms = -1;

  while (dir != NULL && ms < 0 && (e = readdir (dir)) != NULL)
    {
      char path[64], buf[512];
      const char *p;
      unsigned long utime, stime;

      snprintf (path, sizeof path, "/proc/self/task/%.20s/comm", e->d_name);
      read_file (path, buf, sizeof buf);
      buf[strcspn (buf, "\n")] = '\0';
      if (strcmp (buf, name) != 0)
        continue;
      snprintf (path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
      read_file (path, buf, sizeof buf);
      /* after the name in parentheses: the state (field 3), then 4 on;
       * utime and stime are fields 14 and 15 */
      p = strrchr (buf, ')');
      if (p != NULL && sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                               &stime) == 2)
        ms = (long) ((utime + stime) * 1000 / (unsigned long) sysconf (_SC_CLK_TCK));
    }
  if (dir != NULL)
    closedir (dir);
  return ms;
}

/* CPU seconds @thread used */
static double
thread_cpu_s (pthread_t thread)
{
  clockid_t clock;
  struct timespec ts;

  if (pthread_getcpuclockid (thread, &clock) != 0 || clock_gettime (clock, &ts) != 0)
    return -1;
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int    argc,
      char **argv)
{
  struct timespec pause = { 0, 10000000 };
  pthread_t t;
  long before, t0, held;

  if (argc < 2)
    {
      fprintf (stderr, "usage: drain-hold MODULE\n");
      return 2;
    }
  if (pthread_create (&t, NULL, spin_until_stopped, NULL) != 0)
    return 6;
  /* its samples fill the socket, however busy the machine is */
  while (thread_cpu_s (t) < 0.3)
    if (thread_cpu_s (t) < 0)
      return 9;
    else
      nanosleep (&pause, NULL);
  before = thread_cpu_ms ("flamediff-out");
  t0 = now_ms ();
  if (dlopen (argv[1], RTLD_NOW) == NULL)
    {
      fprintf (stderr, "drain-hold: %s\n", dlerror ());
      return 7;
    }
  held = now_ms () - t0;
  printf ("held_ms %ld writer_ms %ld\n", held, thread_cpu_ms ("flamediff-out") - before);
  fflush (stdout);
  stop_spinning = 1;
  pthread_join (t, NULL);
  return before < 0 ? 8 : 0;
}

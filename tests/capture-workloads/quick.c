/* quick.c: the small programs of the edge-case tests, one per mode.
 *
 *   quick exit      returns at once (less CPU than one timer tick)
 *   quick _exit     spins 0.2 s, then _exit (no destructors)
 *   quick segv      spins 0.2 s, then stores through NULL
 *   quick abort     spins 0.2 s, then abort ()
 *   quick fork      parent and child each spin 0.3 s; parent waits
 *   quick exec PROG ARG…  spins 0.2 s, then execv (PROG, ARG…)
 *   quick execlp PROG ARG  the same through execlp
 *   quick spin S    spins S seconds (a single hot function)
 *   quick report S  spins S seconds, prints "spun" (flushed), then exits
 *   quick threads N  starts N short threads, eight at a time, each
 *                   spinning 0.5 ms (more threads than the sampler has slots)
 *   quick closefds HOW  spins 0.1 s, forks a child that closes every
 *                   descriptor above 2 (HOW: closefrom, close_range or close,
 *                   one by one), then execs `quick spin 0.3`; waits for it
 *   quick unshare   spins 0.1 s, then unshare (CLONE_NEWUSER): exit 5 if the
 *                   kernel refused because the process has other threads
 *   quick work M    a fixed amount of work (M million loop iterations),
 *                   then prints "cpu SECONDS" (its own CPU time): make bench
 *   quick sigprof   spins 0.2 s, then installs its own SIGPROF handler and
 *                   ITIMER_PROF and spins 0.1 s (exit 4 if it got no tick)
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noipa)) void
busy (double seconds)
{
  double t0 = cpu_now ();
  double x = 0;

  while (cpu_now () - t0 < seconds)
    for (int i = 0; i < 100000; i++)
      x += i * 1e-9;
  sink = x;
}

static void *
short_thread (void *data)
{
  busy (0.0005);
  return NULL;
}

static volatile int prof_ticks;

static void
on_prof (int sig)
{
  prof_ticks++;
}

int
main (int    argc,
      char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "exit";

  if (strcmp (mode, "exit") == 0)
    return 0;
  if (strcmp (mode, "spin") == 0)
    {
      busy (argc > 2 ? atof (argv[2]) : 1.0);
      return 0;
    }
  if (strcmp (mode, "report") == 0)
    {
      busy (argc > 2 ? atof (argv[2]) : 1.0);
      printf ("spun\n");
      fflush (stdout);
      return 0;
    }
  if (strcmp (mode, "threads") == 0)
    {
      long n = argc > 2 ? atol (argv[2]) : 100;

      for (long i = 0; i < n; i += 8)
        {
          pthread_t t[8];

          for (int j = 0; j < 8; j++)
            if (pthread_create (&t[j], NULL, short_thread, NULL) != 0)
              return 6;
          for (int j = 0; j < 8; j++)
            pthread_join (t[j], NULL);
        }
      return 0;
    }
  if (strcmp (mode, "closefds") == 0 && argc > 2)
    {
      pid_t pid;
      int status = 0;

      busy (0.1);
      pid = fork ();
      if (pid == 0)
        {
          char *child_argv[] = { argv[0], (char *) "spin", (char *) "0.3", NULL };

          if (strcmp (argv[2], "closefrom") == 0)
            closefrom (3);
          else if (strcmp (argv[2], "close_range") == 0)
            close_range (3, ~0U, 0);
          else
            for (int fd = 3; fd < 4096; fd++)
              close (fd);
          execv (argv[0], child_argv);
          _exit (127);
        }
      waitpid (pid, &status, 0);
      return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
    }
  if (strcmp (mode, "unshare") == 0)
    {
      busy (0.1);
      /* EPERM and others (no user namespaces here) are not our business */
      if (unshare (CLONE_NEWUSER) != 0 && errno == EINVAL)
        return 5;
      return 0;
    }
  if (strcmp (mode, "work") == 0)
    {
      long n = (long) ((argc > 2 ? atof (argv[2]) : 1000) * 1e6);
      double x = 0;

      for (long i = 0; i < n; i++)
        x += i * 1e-9;
      sink = x;
      printf ("cpu %.6f\n", cpu_now ());
      return 0;
    }
  if (strcmp (mode, "sigprof") == 0)
    {
      /* sampled first; then its own handler and its own timer */
      struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

      busy (0.2);
      signal (SIGPROF, on_prof);
      setitimer (ITIMER_PROF, &it, NULL);
      busy (0.1);
      return prof_ticks > 0 ? 0 : 4;
    }
  if (strcmp (mode, "fork") == 0)
    {
      pid_t pid = fork ();
      int status = 0;

      busy (0.3);
      if (pid == 0)
        _exit (0);
      waitpid (pid, &status, 0);
      return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
    }

  busy (0.2);
  if (strcmp (mode, "_exit") == 0)
    _exit (3);
  if (strcmp (mode, "segv") == 0)
    {
      *(volatile int *) (argc > 100 ? argv[0] : NULL) = 1;
      return 0;
    }
  if (strcmp (mode, "abort") == 0)
    abort ();
  if (strcmp (mode, "exec") == 0 && argc > 2)
    {
      execv (argv[2], argv + 2);
      perror ("execv");
      return 127;
    }
  if (strcmp (mode, "execlp") == 0 && argc > 3)
    {
      execlp (argv[2], argv[2], argv[3], (char *) NULL);
      perror ("execlp");
      return 127;
    }
  fprintf (stderr, "quick: unknown mode %s\n", mode);
  return 2;
}

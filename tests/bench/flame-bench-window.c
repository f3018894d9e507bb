/* flame-bench-window.c: how long the application window takes to open a
 * pair, from flame_window_open() until it is no longer busy (load, diff,
 * report and layout source, as a user waits for them). For `make bench`
 * (tools/bench.sh), not a test.
 *
 *   flame-bench-window RUNS BASELINE CURRENT
 *
 * Prints "window_open_s=MEDIAN window_open_best_s=BEST". Needs a display
 * (xvfb-run) and the compiled schema (GSETTINGS_SCHEMA_DIR).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>

#include "flame-application.h"
#include "flame-window.h"

static int
compare_doubles (const void *a,
                 const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(FlameApplication) app = NULL;
  g_autoptr(GFile) base = NULL;
  g_autoptr(GFile) cur = NULL;
  g_autofree gdouble *times = NULL;
  FlameWindow *window;
  int runs;

  if (argc != 4 || (runs = atoi (argv[1])) < 1)
    {
      g_printerr ("usage: flame-bench-window RUNS BASELINE CURRENT\n");
      return 1;
    }
  gtk_init ();
  adw_init ();
  app = flame_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, NULL))
    return 1;
  window = flame_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  base = g_file_new_for_commandline_arg (argv[2]);
  cur = g_file_new_for_commandline_arg (argv[3]);

  times = g_new0 (gdouble, runs);
  for (int i = 0; i < runs; i++)
    {
      gint64 start = g_get_monotonic_time ();

      flame_window_open (window, base, cur);
      while (flame_window_is_busy (window))
        g_main_context_iteration (NULL, TRUE);
      times[i] = (g_get_monotonic_time () - start) / 1e6;
      if (flame_window_is_empty (window))
        {
          g_printerr ("flame-bench-window: the window did not open the pair\n");
          return 1;
        }
    }
  qsort (times, runs, sizeof (gdouble), compare_doubles);
  g_print ("window_open_s=%.3f window_open_best_s=%.3f\n", times[(runs - 1) / 2], times[0]);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

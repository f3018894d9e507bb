/* flame-bench-window.c: the application window opening a pair, as a user
 * sees it. For `make bench` (tools/bench.sh), not a test.
 *
 *   flame-bench-window BASELINE CURRENT
 *
 * One run per process, so that "first paint" counts from the launch of the
 * process (the kernel's start time of the process, /proc/self/stat), not
 * from main(). Measured:
 *
 *   first_paint_s   launch until the first frame in which the graph view
 *                   draws the opened pair (the frame clock's "after-paint"
 *                   after a snapshot of the view with the new source)
 *   window_open_s   flame_window_open() until the window is not busy
 *   block_*_ms      the longest the main loop went without iterating in
 *                   each phase: "open" (from flame_window_open() to the
 *                   first paint: load, diff, report, view preparation,
 *                   panels), "switch" (the worst of inverted, elided,
 *                   back to differential, colouring by total time and
 *                   back by self time) and "zoom" (zoom into the widest
 *                   frame below the root and out again). Each step lasts
 *                   until the graph is painted and the window has settled
 *                   (window_settled()), so that the work a step leaves
 *                   behind counts in that step. A G_PRIORITY_HIGH timeout
 *                   every 2 ms records the gap between its dispatches,
 *                   minus the 2 ms it asked for.
 *   busy_*_ms       the most CPU time the main thread used between two
 *                   such dispatches, in each phase: on a loaded machine a
 *                   block is longer than the work in it (the thread waits
 *                   for a core), this is the work
 *   peak_rss_mb     the process's peak resident memory, at the end
 *
 * With FLAME_BENCH_VERBOSE set, each phase's longest stall goes to stderr,
 * and so does every frame-clock phase (update, layout, paint, and the
 * time between frames: idle, or the main loop's other work) longer than
 * 4 ms, with its monotonic start and end: for matching against
 * `perf record -k mono`.
 *
 * Prints one line of key=value pairs. Needs a display (tools/xvfb-test) and the
 * compiled schema (GSETTINGS_SCHEMA_DIR).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "flame-application.h"
#include "flame-changes-panel-private.h"
#include "flame-graph-view-private.h"
#include "flame-window-private.h"

#define MONITOR_INTERVAL_MS 2

static gint64 last_tick;
static gint64 max_gap;   /* µs, in the current phase */
static guint n_ticks;    /* in the current phase */
static gint64 max_gap_end;  /* when the longest stall ended (g_get_monotonic_time) */
static gint64 last_cpu;     /* the main thread's CPU time at the last tick, µs */
static gint64 max_gap_cpu;  /* of it, in the longest stall */
static gint64 max_cpu;      /* µs, the most CPU time the main thread used between two ticks */
static gdouble phase_cpu_ms;  /* max_cpu of the phase phase_block_ms() ended */

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean
monitor_tick (gpointer user_data)
{
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();

  if (last_tick != 0 && now - last_tick - MONITOR_INTERVAL_MS * 1000 > max_gap)
    {
      max_gap = now - last_tick - MONITOR_INTERVAL_MS * 1000;
      max_gap_end = now;
      max_gap_cpu = cpu - last_cpu;
    }
  if (last_tick != 0)
    max_cpu = MAX (max_cpu, cpu - last_cpu);
  last_tick = now;
  last_cpu = cpu;
  n_ticks++;
  return G_SOURCE_CONTINUE;
}

/* the longest stall since the last call, in ms; starts a new phase */
static gdouble
phase_block_ms (void)
{
  gdouble ms = MAX (max_gap, 0) / 1000.;

  if (g_getenv ("FLAME_BENCH_VERBOSE"))
    g_printerr ("phase: %u ticks, longest stall %.1f ms (%.1f ms of it on the CPU), ending at "
                "%.6f s (CLOCK_MONOTONIC); most CPU between two ticks %.1f ms\n",
                n_ticks, ms, max_gap_cpu / 1000., max_gap_end / 1e6, max_cpu / 1000.);
  phase_cpu_ms = max_cpu / 1000.;
  max_gap = 0;
  max_gap_cpu = 0;
  max_cpu = 0;
  n_ticks = 0;
  return ms;
}

/* seconds from the launch of this process until now (CLOCK_BOOTTIME is
 * the clock of /proc's start times) */
static gdouble
seconds_since_launch (void)
{
  g_autofree char *stat = NULL;
  const char *p;
  unsigned long long start_ticks = 0;
  struct timespec ts;

  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL) ||
      (p = strrchr (stat, ')')) == NULL)
    return 0;
  /* after the command: state (field 3) ... starttime (field 22) */
  if (sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
              "%*d %*d %llu", &start_ticks) != 1)
    return 0;
  clock_gettime (CLOCK_BOOTTIME, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9 - (gdouble) start_ticks / sysconf (_SC_CLK_TCK);
}

/* the end of the last frame-clock phase marked (g_get_monotonic_time) */
static gint64 frame_phase_end;

/* connected after each phase's handlers: the time since the previous
 * mark was spent in @phase */
static void
mark_frame_phase (GdkFrameClock *clock,
                  const char    *phase)
{
  gint64 now = g_get_monotonic_time ();

  if (frame_phase_end != 0 && now - frame_phase_end > 4000)
    g_printerr ("frame: %-16s %6.1f ms (%.6f to %.6f s)\n", phase,
                (now - frame_phase_end) / 1000., frame_phase_end / 1e6, now / 1e6);
  frame_phase_end = now;
}

static void
trace_frame_phases (GdkFrameClock *clock)
{
  g_signal_connect (clock, "before-paint", G_CALLBACK (mark_frame_phase),
                    (gpointer) "between frames");
  g_signal_connect_after (clock, "update", G_CALLBACK (mark_frame_phase), (gpointer) "update");
  g_signal_connect_after (clock, "layout", G_CALLBACK (mark_frame_phase), (gpointer) "layout");
  g_signal_connect_after (clock, "paint", G_CALLBACK (mark_frame_phase), (gpointer) "paint");
}

typedef struct
{
  FlameWindow *window;
  guint        paints;    /* the view's paint count when the change was made */
  gpointer     old_source;  /* the view's source then, or NULL: any source will do */
  gboolean     painted;
  gdouble      painted_at;  /* seconds since launch, when painted */
} Wait;

static void
after_paint (GdkFrameClock *clock,
             Wait          *wait)
{
  FlameGraphView *view = wait->window->graph_view;

  FlameLayoutSource *source = flame_graph_view_get_source (view);

  if (!flame_window_is_busy (wait->window) && source != NULL && source != wait->old_source &&
      _flame_graph_view_get_paint_count (view) != wait->paints && !wait->painted)
    {
      wait->painted = TRUE;
      wait->painted_at = seconds_since_launch ();
    }
}

/* The window has finished what a step started: the changes panel's first
 * opening and the progress banner have stopped moving, the Top Changes
 * table has all its rows (made a few a frame), and no stack is changing
 * pages. */
static gboolean
window_settled (FlameWindow *window)
{
  gdouble progress = adw_flap_get_reveal_progress (window->flap);

  return !gtk_stack_get_transition_running (window->main_stack) && window->reveal_tick == 0 &&
         (progress == 0 || progress == 1) &&
         gtk_revealer_get_child_revealed (window->progress_revealer) ==
           gtk_revealer_get_reveal_child (window->progress_revealer) &&
         !_flame_changes_panel_get_pending (window->changes_panel);
}

/* iterates until the window is not busy, the graph view has been painted
 * since and the window has settled; with a cap, so a broken window cannot
 * hang `make bench` */
static gboolean
wait_painted (Wait *wait)
{
  gint64 cap = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;

  wait->painted = FALSE;
  while ((!wait->painted || !window_settled (wait->window)) && g_get_monotonic_time () < cap)
    g_main_context_iteration (NULL, TRUE);
  return wait->painted && window_settled (wait->window);
}

/* new_source: the change replaces the view's source (open, view switch) */
static void
begin_wait (Wait    *wait,
            gboolean new_source)
{
  wait->paints = _flame_graph_view_get_paint_count (wait->window->graph_view);
  wait->old_source = new_source ? flame_graph_view_get_source (wait->window->graph_view) : NULL;
}

/* the widest frame below the root row, to zoom into */
static guint32
widest_child (FlameGraphView *view)
{
  FlameLayout *layout = _flame_graph_view_get_layout (view);
  guint32 best = FLAME_TREE_ROOT;
  gdouble width = -1;

  for (guint i = 0; layout != NULL && i < flame_layout_get_n_frames (layout); i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      if (f->depth == 1 && f->n_merged == 0 && f->width > width)
        best = f->node, width = f->width;
    }
  return best;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(FlameApplication) app = NULL;
  g_autoptr(GFile) base = NULL;
  g_autoptr(GFile) cur = NULL;
  /* the view switches: a view, or colouring by total time (TRUE) or self time */
  const struct { const char *view; gboolean total; } switches[] = {
    { "inverted" }, { "elided" }, { "differential" }, { NULL, TRUE }, { NULL, FALSE },
  };
  FlameWindow *window;
  Wait wait = { 0 };
  struct rusage usage;
  gdouble first_paint, open_s = 0, block_open, block_switch = 0, block_zoom = 0;
  gdouble busy_open, busy_switch = 0, busy_zoom = 0;
  gdouble ms;
  gint64 start;
  gulong handler;
  guint32 node;

  if (argc != 3)
    {
      g_printerr ("usage: flame-bench-window BASELINE CURRENT\n");
      return 1;
    }
  gtk_init ();
  adw_init ();
  app = flame_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, NULL))
    return 1;
  window = flame_window_new (ADW_APPLICATION (app));
  wait.window = window;
  gtk_window_present (GTK_WINDOW (window));
  handler = g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                              G_CALLBACK (after_paint), &wait);
  if (g_getenv ("FLAME_BENCH_VERBOSE"))
    trace_frame_phases (gtk_widget_get_frame_clock (GTK_WIDGET (window)));
  g_timeout_add_full (G_PRIORITY_HIGH, MONITOR_INTERVAL_MS, monitor_tick, NULL, NULL);
  base = g_file_new_for_commandline_arg (argv[1]);
  cur = g_file_new_for_commandline_arg (argv[2]);

  /* open: until painted */
  start = g_get_monotonic_time ();
  phase_block_ms ();
  begin_wait (&wait, TRUE);
  flame_window_open (window, base, cur);
  while (flame_window_is_busy (window))
    g_main_context_iteration (NULL, TRUE);
  open_s = (g_get_monotonic_time () - start) / 1e6;
  if (!wait_painted (&wait) || flame_window_is_empty (window))
    {
      g_printerr ("flame-bench-window: the window did not open the pair\n");
      return 1;
    }
  first_paint = wait.painted_at;
  block_open = phase_block_ms ();
  busy_open = phase_cpu_ms;

  /* view switches, each until painted */
  for (guint i = 0; i < G_N_ELEMENTS (switches); i++)
    {
      const char *what = switches[i].view ? switches[i].view
                         : switches[i].total ? "colour by total" : "colour by self";

      begin_wait (&wait, TRUE);
      if (switches[i].view != NULL)
        g_object_set (window, "view", switches[i].view, NULL);
      else
        g_object_set (window, "colour-by-total", switches[i].total, NULL);
      if (!wait_painted (&wait))
        {
          g_printerr ("flame-bench-window: the %s view was not painted\n", what);
          return 1;
        }
      ms = phase_block_ms ();
      block_switch = MAX (block_switch, ms);
      busy_switch = MAX (busy_switch, phase_cpu_ms);
      if (g_getenv ("FLAME_BENCH_VERBOSE"))
        g_printerr ("%s painted at %.3f s\n", what, seconds_since_launch ());
    }

  /* zoom in and out */
  node = widest_child (window->graph_view);
  for (guint i = 0; i < 2; i++)
    {
      begin_wait (&wait, FALSE);
      if (i == 0)
        flame_graph_view_zoom_to (window->graph_view, node);
      else
        flame_graph_view_reset_zoom (window->graph_view);
      gtk_widget_queue_draw (GTK_WIDGET (window->graph_view));
      if (!wait_painted (&wait))
        {
          g_printerr ("flame-bench-window: the zoomed graph was not painted\n");
          return 1;
        }
      ms = phase_block_ms ();
      block_zoom = MAX (block_zoom, ms);
      busy_zoom = MAX (busy_zoom, phase_cpu_ms);
    }

  getrusage (RUSAGE_SELF, &usage);
  g_print ("first_paint_s=%.3f window_open_s=%.3f block_open_ms=%.1f block_switch_ms=%.1f "
           "block_zoom_ms=%.1f busy_open_ms=%.1f busy_switch_ms=%.1f busy_zoom_ms=%.1f "
           "peak_rss_mb=%.0f\n",
           first_paint, open_s, block_open, block_switch, block_zoom, busy_open, busy_switch,
           busy_zoom, usage.ru_maxrss / 1024.);
  g_signal_handler_disconnect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), handler);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

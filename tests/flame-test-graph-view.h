/* flame-test-graph-view.h: the flame graph widget in a window of a fixed
 * size, inside a GtkScrolledWindow as in the app: for tests/test-graph-view
 * and the widget's bench (tests/bench/flame-bench-graph-view).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "flame-graph-view.h"

typedef struct
{
  GtkWidget      *window;
  GtkWidget      *scrolled;
  FlameGraphView *view;
  FlameDiff      *diff;
  FlameLayoutSource *source;
} Fixture;

static inline void
wait_for_size (FlameGraphView *view,
               int             width,
               int             height)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (gtk_widget_get_width (GTK_WIDGET (view)) != width ||
         gtk_widget_get_height (GTK_WIDGET (view)) != height)
    {
      g_main_context_iteration (NULL, FALSE);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    }
}

/* Lets queued allocations and redraws run. */
static inline void
settle (void)
{
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

static inline void
fixture_init (Fixture           *fx,
              FlameLayoutSource *source,
              int                width,
              int                height)
{
  fx->window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (fx->window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (fx->window), width, height);
  fx->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (fx->scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  fx->view = FLAME_GRAPH_VIEW (flame_graph_view_new ());
  flame_graph_view_set_source (fx->view, source);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (fx->scrolled), GTK_WIDGET (fx->view));
  gtk_window_set_child (GTK_WINDOW (fx->window), fx->scrolled);
  gtk_window_present (GTK_WINDOW (fx->window));
  wait_for_size (fx->view, width, height);
  settle ();
}

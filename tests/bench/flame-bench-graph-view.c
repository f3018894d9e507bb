/* flame-bench-graph-view.c: what the flame graph widget costs the main
 * loop, for `make bench` (tools/bench-render.sh), under Xvfb.
 *
 *   flame-bench-graph-view BASE CURRENT
 *
 * The pair's differential view at 1920×1080 in a window as in the app:
 * a full repaint (palette switch, the cost of a scroll step too), a
 * resize (new layout and repaint) and a hover (overlay only), each timed
 * as the widget's snapshot alone and with software compositing. Prints
 * key=value lines: medians in ms, frames laid out. Not a test: nothing
 * is asserted.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <adwaita.h>
#include <gtk/gtk.h>

#include "flame-graph-view-private.h"
#include "flame-loader.h"
#include "flame-test-graph-view.h"

static gdouble
median (GArray *a)
{
  gdouble *v = (gdouble *) a->data;

  for (guint i = 1; i < a->len; i++)
    for (guint j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        gdouble t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  return a->len ? v[a->len / 2] : 0;
}

/* One frame: the widget's snapshot (what the widget itself costs the
 * main thread: layout and painting when needed, else a texture and an
 * overlay), then compositing the nodes with a software renderer (the
 * slowest case: GL keeps the uploaded texture while only the overlay
 * changes). */
static void
time_frame (FlameGraphView *view,
            gint64          t0,
            GskRenderer    *renderer,
            GArray         *snapshot_ms,
            GArray         *total_ms)
{
  GtkWidget *w = GTK_WIDGET (view);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;
  gdouble a, b;

  GTK_WIDGET_GET_CLASS (w)->snapshot (w, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  a = (g_get_monotonic_time () - t0) / 1000.0;
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (w),
                                                              gtk_widget_get_height (w)));
  b = (g_get_monotonic_time () - t0) / 1000.0;
  g_object_unref (texture);
  gsk_render_node_unref (node);
  g_array_append_val (snapshot_ms, a);
  g_array_append_val (total_ms, b);
}

static FlameDiff *
load_diff (const char *base,
           const char *cur)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) b = flame_load_file (base, NULL, NULL, NULL, &error);
  g_autoptr(FlameProfile) c = NULL;
  FlameDiff *diff = NULL;

  if (b != NULL)
    c = flame_load_file (cur, NULL, NULL, NULL, &error);
  if (c != NULL)
    diff = flame_diff_new (b, c, NULL, NULL, &error);
  if (diff == NULL)
    {
      g_printerr ("flame-bench-graph-view: %s\n", error->message);
      exit (1);
    }
  return diff;
}

/* Repaints and resizes, 21 of each: into ms[0..1] and ms[2..3] */
static void
measure_repaints (Fixture     *fx,
                  GskRenderer *renderer,
                  GArray     **ms)
{
  for (guint run = 0; run < 21; run++)
    {
      gint64 t0;

      /* a palette switch: everything repainted, the layout kept (the
       * cost of a scroll step too) */
      flame_graph_view_set_palette_style (fx->view, run % 2 ? FLAME_GRAPH_PALETTE_LIGHT
                                                            : FLAME_GRAPH_PALETTE_DARK);
      time_frame (fx->view, g_get_monotonic_time (), renderer, ms[0], ms[1]);

      /* a new width, as in a window resize: allocation (a new layout)
       * and a full repaint */
      t0 = g_get_monotonic_time ();
      gtk_widget_size_allocate (GTK_WIDGET (fx->view),
                                &(GtkAllocation){ 0, 0, 1900 + (run % 2) * 20, 1080 }, -1);
      time_frame (fx->view, t0, renderer, ms[2], ms[3]);
    }
}

/* Hovers over 101 frames spread over the layout: into ms[4..5] */
static void
measure_hovers (Fixture     *fx,
                GskRenderer *renderer,
                GArray     **ms)
{
  FlameLayout *layout = _flame_graph_view_get_layout (fx->view);
  guint n = flame_layout_get_n_frames (layout);

  for (guint run = 0; run < 101 && n > 0; run++)
    {
      graphene_rect_t r;
      guint i = (run * 7919u) % n;
      gint64 t0;

      if (!_flame_graph_view_frame_bounds (fx->view, i, &r))
        continue;
      t0 = g_get_monotonic_time ();
      _flame_graph_view_hover (fx->view, r.origin.x + r.size.width / 2,
                               r.origin.y + r.size.height / 2);
      time_frame (fx->view, t0, renderer, ms[4], ms[5]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  g_autoptr(GskRenderer) renderer = NULL;
  GArray *ms[6];
  Fixture fx = { 0 };
  gint64 t0;

  if (argc != 3)
    {
      g_printerr ("usage: flame-bench-graph-view BASE CURRENT\n");
      return 2;
    }
  if (!gtk_init_check ())
    {
      g_printerr ("flame-bench-graph-view: no display\n");
      return 1;
    }
  adw_init ();
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_FORCE_LIGHT);
  renderer = gsk_cairo_renderer_new ();
  if (!gsk_renderer_realize (renderer, NULL, NULL))
    return 1;
  for (guint k = 0; k < G_N_ELEMENTS (ms); k++)
    ms[k] = g_array_new (FALSE, FALSE, sizeof (gdouble));

  t0 = g_get_monotonic_time ();
  diff = load_diff (argv[1], argv[2]);
  printf ("load_diff_s=%.2f\n", (g_get_monotonic_time () - t0) / 1e6);
  t0 = g_get_monotonic_time ();
  source = flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  printf ("source_prepare_ms=%.1f\n", (g_get_monotonic_time () - t0) / 1e3);
  fixture_init (&fx, source, 1920, 1080);
  printf ("frames=%u\n", flame_layout_get_n_frames (_flame_graph_view_get_layout (fx.view)));

  measure_repaints (&fx, renderer, ms);
  measure_hovers (&fx, renderer, ms);
  /* widget snapshot / + software compositing, median ms per frame */
  printf ("repaint_snapshot_ms=%.2f\nrepaint_ms=%.2f\n", median (ms[0]), median (ms[1]));
  printf ("resize_snapshot_ms=%.2f\nresize_ms=%.2f\n", median (ms[2]), median (ms[3]));
  printf ("hover_snapshot_ms=%.2f\nhover_ms=%.2f\n", median (ms[4]), median (ms[5]));

  for (guint k = 0; k < G_N_ELEMENTS (ms); k++)
    g_array_unref (ms[k]);
  gsk_renderer_unrealize (renderer);
  gtk_window_destroy (GTK_WINDOW (fx.window));
  settle ();
  return 0;
}

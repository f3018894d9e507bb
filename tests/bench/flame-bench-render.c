/* flame-bench-render.c: layout + paint cost of a differential flame
 * graph, for `make bench` (tools/bench-render.sh).
 *
 *   flame-bench-render BASE CURRENT [--width 1920] [--height 1080] [--runs 30]
 *
 * Loads and diffs the pair once, prepares the differential view's layout
 * source once (timed apart: it runs once per diff and view, in a worker
 * thread in the app), then repeats a FULL REPAINT: flame_layout_new() at
 * the given width plus flame_painter_paint() of the viewport (the bottom
 * --height pixels of the graph, where the roots are) into an ARGB32 image
 * surface, labels on, as the app draws after a resize or zoom. Once for
 * the whole graph, once zoomed into a subtree (the first frame on the
 * widest path from the root that holds less than a quarter of the time).
 * Prints key=value lines: medians, 95th percentiles and maxima in ms,
 * frames laid out, bytes of the source and of a layout, peak RSS.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "flame-loader.h"
#include "flame-painter.h"

static int
compare_double (const void *a,
                const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
percentile (GArray *samples,
            gdouble q)
{
  guint i;

  qsort (samples->data, samples->len, sizeof (gdouble), compare_double);
  i = (guint) (q * (samples->len - 1) + 0.5);
  return g_array_index (samples, gdouble, MIN (i, samples->len - 1));
}

static void
repaint_bench (const char        *name,
               FlameLayoutSource *source,
               FlamePainter      *painter,
               guint32            zoom,
               int                width,
               int                height,
               guint              runs)
{
  g_autoptr(GArray) total = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_autoptr(GArray) layout_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_autoptr(GArray) paint_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  FlameLayoutOptions opts;
  guint frames = 0, rows = 0;
  gsize bytes = 0;

  flame_layout_options_init (&opts);
  opts.width = width;
  opts.min_height = height;
  opts.zoom = zoom;

  /* one warm-up run (fonts, glyph caches), then the measured ones */
  for (guint r = 0; r < runs + 1; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      FlameLayout *layout = flame_layout_new (source, &opts);
      gint64 t1 = g_get_monotonic_time ();
      cairo_t *cr = cairo_create (surface);
      gint64 t2;
      gdouble a, b;

      /* the viewport shows the bottom of the graph, where the roots are */
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_clip (cr);
      cairo_translate (cr, 0, height - flame_layout_get_height (layout));
      flame_painter_paint (painter, cr, layout);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      t2 = g_get_monotonic_time ();

      frames = flame_layout_get_n_frames (layout);
      rows = flame_layout_get_n_rows (layout);
      bytes = flame_layout_memory (layout);
      flame_layout_free (layout);
      if (r == 0)
        continue;
      a = (t1 - t0) / 1000.0;
      b = (t2 - t1) / 1000.0;
      g_array_append_val (layout_ms, a);
      g_array_append_val (paint_ms, b);
      a += b;
      g_array_append_val (total, a);
    }
  cairo_surface_destroy (surface);

  printf ("%s_frames=%u\n", name, frames);
  printf ("%s_rows=%u\n", name, rows);
  printf ("%s_layout_bytes=%" G_GSIZE_FORMAT "\n", name, bytes);
  printf ("%s_layout_ms=%.3f\n", name, percentile (layout_ms, 0.5));
  printf ("%s_paint_ms=%.3f\n", name, percentile (paint_ms, 0.5));
  printf ("%s_ms=%.3f\n", name, percentile (total, 0.5));
  printf ("%s_p95_ms=%.3f\n", name, percentile (total, 0.95));
  printf ("%s_max_ms=%.3f\n", name, percentile (total, 1.0));
}

int
main (int    argc,
      char **argv)
{
  int width = 1920, height = 1080, runs = 30;
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Viewport width (1920)", "PX" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Viewport height (1080)", "PX" },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Measured repaints (30)", "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "BASE CURRENT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("BASE CURRENT");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) base = NULL;
  g_autoptr(FlameProfile) cur = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  g_autoptr(FlamePainter) painter = flame_painter_new ();
  const FlameTree *tree;
  guint32 zoom = FLAME_TREE_ROOT;
  struct rusage usage;
  gint64 t0;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      files == NULL || g_strv_length (files) != 2 || width < 16 || height < 16 || runs < 1)
    {
      g_printerr (
        "usage: flame-bench-render BASE CURRENT [--width PX] [--height PX] [--runs N]%s%s\n",
        error ? ": " : "", error ? error->message : "");
      return 1;
    }

  if ((base = flame_load_file (files[0], NULL, NULL, NULL, &error)) == NULL ||
      (cur = flame_load_file (files[1], NULL, NULL, NULL, &error)) == NULL ||
      (diff = flame_diff_new (base, cur, NULL, NULL, &error)) == NULL)
    {
      g_printerr ("flame-bench-render: %s\n", error->message);
      return 1;
    }

  t0 = g_get_monotonic_time ();
  source = flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  tree = flame_layout_source_get_tree (source);
  printf ("diff_nodes=%u\n", tree->n_nodes);
  printf ("source_prepare_ms=%.3f\n", (g_get_monotonic_time () - t0) / 1000.0);
  printf ("source_bytes=%" G_GSIZE_FORMAT "\n", flame_layout_source_memory (source));

  /* follow the widest child until a frame holds < 25 % of the time */
  {
    gdouble root = flame_layout_source_get_weight (source, FLAME_TREE_ROOT);

    while (zoom == FLAME_TREE_ROOT || flame_layout_source_get_weight (source, zoom) >= root / 4)
      {
        guint32 best = FLAME_TREE_NONE;

        for (guint32 c = tree->nodes[zoom].first_child; c != FLAME_TREE_NONE;
             c = tree->nodes[c].next_sibling)
          if (best == FLAME_TREE_NONE || flame_layout_source_get_weight (source, c) >
                                           flame_layout_source_get_weight (source, best))
            best = c;
        if (best == FLAME_TREE_NONE)
          break;
        zoom = best;
      }
    printf ("zoom_depth=%u\n", tree->nodes[zoom].depth);
    printf ("zoom_share_pct=%.2f\n", flame_layout_source_get_weight (source, zoom) / root * 100);
  }

  repaint_bench ("full", source, painter, FLAME_TREE_ROOT, width, height, runs);
  repaint_bench ("zoom", source, painter, zoom, width, height, runs);

  getrusage (RUSAGE_SELF, &usage);
  printf ("peak_rss_kib=%ld\n", usage.ru_maxrss);
  return 0;
}

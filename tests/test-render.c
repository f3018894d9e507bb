/* test-render.c: the painter and exports, checked pixel by pixel.
 *
 * Colour checks paint with labels off and read the pixel at the centre
 * of a frame's painted rectangle back from a cairo image surface.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "flame-export.h"
#include "flame-loader.h"
#include "flame-painter.h"
#include "flame-tooltip.h"
#include "flame-test-examples.h"
#include "flame-test-locale.h"

static FlameRgb
pixel (cairo_surface_t *surface,
       int              x,
       int              y)
{
  const guchar *data;
  guint32 v;

  cairo_surface_flush (surface);
  g_assert_cmpint (x, >=, 0);
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (x, <, cairo_image_surface_get_width (surface));
  g_assert_cmpint (y, <, cairo_image_surface_get_height (surface));
  data = cairo_image_surface_get_data (surface);
  v = *(const guint32 *) (data + y * cairo_image_surface_get_stride (surface) + x * 4);
  g_assert_cmpuint (v >> 24, ==, 0xff); /* opaque: no premultiplication */
  return (FlameRgb) { (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };
}

static gboolean
rgb_eq (FlameRgb a,
        FlameRgb b)
{
  return a.r == b.r && a.g == b.g && a.b == b.b;
}

#define assert_hex(c, hex) G_STMT_START { \
  char _h[8]; \
  flame_rgb_to_hex ((c), _h); \
  g_assert_cmpstr (_h, ==, (hex)); \
} G_STMT_END

typedef struct
{
  FlameLayoutSource *source;
  FlameLayout       *layout;
  cairo_surface_t   *surface;
  gdouble            graph_y;
  FlameExportOptions options;
} Picture;

static void
picture_clear (Picture *p)
{
  g_clear_object (&p->source);
  g_clear_pointer (&p->layout, flame_layout_free);
  g_clear_pointer (&p->surface, cairo_surface_destroy);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Picture, picture_clear)

static void
picture_init (Picture                  *p,
              FlameLayoutSource        *source,
              const FlameExportOptions *options)
{
  p->source = g_object_ref (source);
  p->options = *options;
  p->surface = flame_export_image (source, options, &p->layout, &p->graph_y);
  g_assert_cmpint (cairo_surface_status (p->surface), ==, CAIRO_STATUS_SUCCESS);
}

static gint
frame_index (Picture    *p,
             const char *name)
{
  guint32 node = flame_layout_source_find (p->source, name);
  gint i;

  g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
  i = flame_layout_find_node (p->layout, node);
  g_assert_cmpint (i, >=, 0);
  return i;
}

/* The pixel at the centre of frame @i's painted rectangle. */
static FlameRgb
centre_pixel (Picture *p,
              guint    i,
              int     *cx,
              int     *cy)
{
  gdouble x, y, w, h;
  int px, py;

  g_assert_true (flame_painter_frame_rect (p->layout, i, &x, &y, &w, &h));
  px = (int) floor (x + w / 2);
  py = (int) floor (p->graph_y + y + h / 2);
  if (cx != NULL)
    *cx = px;
  if (cy != NULL)
    *cy = py;
  return pixel (p->surface, px, py);
}

static FlameRgb
frame_pixel (Picture    *p,
             const char *name)
{
  return centre_pixel (p, frame_index (p, name), NULL, NULL);
}

static void
diff_colours (gboolean    dark,
              const char *new_hex)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  FlameRgb c;

  flame_export_options_init (&opts);
  opts.labels = FALSE;
  opts.dark = dark;
  picture_init (&p, source, &opts);

  /* the new function and its new child */
  assert_hex (frame_pixel (&p, "simd_color_convert"), new_hex);
  assert_hex (frame_pixel (&p, "rgb_to_ycc_avx2"), new_hex);

  /* regression: red family */
  c = frame_pixel (&p, "convolve_row");
  g_assert_cmpint (c.r, >, c.g + 60);
  g_assert_cmpint (c.r, >, c.b + 60);
  assert_hex (c, "#e57373"); /* +86 %: medium, the same in both themes */

  /* improvement: blue family */
  c = frame_pixel (&p, "bilinear_sample");
  g_assert_cmpint (c.b, >, c.r + 60);
  g_assert_cmpint (c.b, >, c.g);
  assert_hex (c, dark ? "#64b5f6" : "#42a5f5"); /* -50.5 %: medium */

  assert_hex (frame_pixel (&p, "inflate"), dark ? "#757575" : "#bdbdbd");
  /* background */
  assert_hex (pixel (p.surface, 2, 2), dark ? "#1e1e1e" : "#ffffff");
}

static void
test_render_colours_light (void)
{
  diff_colours (FALSE, "#9575cd");
}

static void
test_render_colours_dark (void)
{
  diff_colours (TRUE, "#b39ddb");
}

/* Widths are proportional to current time within a pixel: the run of
 * the frame's colour through its centre, plus the 1 px gap, is its
 * share of the root's width. */
static void
test_render_widths (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  const FlameTree *tree = flame_layout_source_get_tree (source);
  guint widths[] = { 1200, 997, 640 };

  for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
    {
      g_auto(Picture) p = { 0 };
      FlameExportOptions opts;
      guint checked = 0;

      flame_export_options_init (&opts);
      opts.labels = FALSE;
      opts.width = widths[k];
      picture_init (&p, source, &opts);

      for (guint i = 0; i < flame_layout_get_n_frames (p.layout); i++)
        {
          const FlameLayoutFrame *f = flame_layout_get_frame (p.layout, i);
          gdouble expected = tree->total[FLAME_DIFF_CURRENT][f->node] /
                             tree->total[FLAME_DIFF_CURRENT][FLAME_TREE_ROOT] * widths[k];
          FlameRgb fill;
          int cx, cy, l, r;

          if (f->width < 3)
            continue;
          fill = centre_pixel (&p, i, &cx, &cy);
          for (l = cx; l > 0 && rgb_eq (pixel (p.surface, l - 1, cy), fill); l--)
            ;
          for (r = cx; r + 1 < (int) widths[k] && rgb_eq (pixel (p.surface, r + 1, cy), fill); r++)
            ;
          /* the last frame of the row has no gap at the right edge */
          if (r + 1 == (int) widths[k])
            r--;
          g_assert_cmpfloat (fabs ((r - l + 1) + 1 - expected), <=, 1.0);
          g_assert_cmpfloat (fabs (l - f->x), <=, 1.0);
          checked++;
        }
      g_assert_cmpuint (checked, >=, 20);
    }
}

/* The elided view paints only the elided path (and its ancestors as
 * structure), all in the elided colour. */
static void
test_render_elided (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source = flame_layout_source_new_for_diff (diff, FLAME_VIEW_ELIDED);
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  const FlamePalette *palette = flame_palette_for (FALSE, FALSE);
  FlameRgb elided = flame_palette_get_fill (palette, FLAME_CHANGE_ELIDED);
  int w, h;
  guint elided_pixels = 0;

  flame_export_options_init (&opts);
  opts.labels = FALSE;
  opts.width = 600;
  picture_init (&p, source, &opts);
  w = cairo_image_surface_get_width (p.surface);
  h = cairo_image_surface_get_height (p.surface);
  g_assert_cmpint (h, ==, 6 * 17);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        FlameRgb c = pixel (p.surface, x, y);

        if (rgb_eq (c, elided))
          elided_pixels++;
        else
          g_assert_true (rgb_eq (c, palette->background));
      }
  g_assert_cmpuint (elided_pixels, >, 5 * 15 * 500);
  assert_hex (frame_pixel (&p, "legacy_color_convert"), "#b39ddb");
  assert_hex (frame_pixel (&p, "rgb_to_ycc"), "#b39ddb");
  g_assert_cmpuint (flame_layout_source_find (source, "convolve_row"), ==, FLAME_TREE_NONE);

  /* dark */
  {
    g_auto(Picture) d = { 0 };

    opts.dark = TRUE;
    picture_init (&d, source, &opts);
    assert_hex (frame_pixel (&d, "legacy_color_convert"), "#ce93d8");
  }
}

/* Hit testing finds every frame at the centre of what is painted, and
 * that pixel has the frame's colour. */
static void
test_render_hit_test (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  FlameView views[] = { FLAME_VIEW_DIFFERENTIAL, FLAME_VIEW_ELIDED, FLAME_VIEW_INVERTED };

  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    for (guint o = 0; o < 2; o++)
      {
        g_autoptr(FlameLayoutSource) source = flame_layout_source_new_for_diff (diff, views[v]);
        g_autoptr(FlamePainter) painter = flame_painter_new ();
        g_auto(Picture) p = { 0 };
        FlameExportOptions opts;

        flame_export_options_init (&opts);
        opts.labels = FALSE;
        opts.orientation = o;
        picture_init (&p, source, &opts);
        for (guint i = 0; i < flame_layout_get_n_frames (p.layout); i++)
          {
            int cx, cy;
            FlameRgb c = centre_pixel (&p, i, &cx, &cy);

            g_assert_cmpint (flame_layout_hit_test (p.layout, cx + .5, cy + .5 - p.graph_y), ==, i);
            g_assert_true (rgb_eq (c, flame_painter_frame_fill (painter, p.layout, i, FALSE)));
          }
      }
}

/* Labels are drawn where about three characters fit, in the text colour
 * picked for contrast; narrow frames stay plain. */
static void
test_render_labels (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlamePainter) painter = flame_painter_new ();
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  const char *wide[] = { "convolve_row", "inflate", "bilinear_sample" };
  gdouble min_label;

  flame_export_options_init (&opts);
  picture_init (&p, source, &opts);
  {
    cairo_t *cr = cairo_create (p.surface);
    min_label = flame_painter_min_label_width (painter, cr);
    cairo_destroy (cr);
  }
  g_assert_cmpfloat (min_label, >, 10);
  g_assert_cmpfloat (min_label, <, 40);

  for (guint k = 0; k < G_N_ELEMENTS (wide); k++)
    {
      gint i = frame_index (&p, wide[k]);
      FlameRgb fill = flame_painter_frame_fill (painter, p.layout, i, FALSE);
      FlameRgb text = flame_palette_text_for (fill);
      gdouble x, y, w, h;
      guint inked = 0;

      g_assert_true (flame_painter_frame_rect (p.layout, i, &x, &y, &w, &h));
      for (int yy = (int) y; yy < (int) (y + h); yy++)
        for (int xx = (int) x; xx < (int) (x + w); xx++)
          {
            FlameRgb c = pixel (p.surface, xx, yy);
            /* text pixels move from the fill towards the text colour */
            if (abs ((int) c.r - text.r) + abs ((int) c.g - text.g) + abs ((int) c.b - text.b) <
                abs ((int) fill.r - text.r) + abs ((int) fill.g - text.g) +
                  abs ((int) fill.b - text.b) - 60)
              inked++;
          }
      g_assert_cmpuint (inked, >, 20);
    }

  /* frames narrower than the label minimum carry no text */
  for (guint i = 0; i < flame_layout_get_n_frames (p.layout); i++)
    {
      FlameRgb fill = flame_painter_frame_fill (painter, p.layout, i, FALSE);
      gdouble x, y, w, h;

      if (!flame_painter_frame_rect (p.layout, i, &x, &y, &w, &h) || w >= min_label || w < 1)
        continue;
      for (int yy = (int) y; yy < (int) (y + h); yy++)
        for (int xx = (int) ceil (x); xx < (int) floor (x + w); xx++)
          g_assert_true (rgb_eq (pixel (p.surface, xx, yy), fill));
    }
}

static void
test_render_search_highlight (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  const FlamePalette *palette = flame_palette_for (FALSE, FALSE);
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  gdouble x, y, w, h;
  FlameRgb c;
  gint i;

  flame_export_options_init (&opts);
  opts.labels = FALSE;
  opts.search = "convolve";
  picture_init (&p, source, &opts);

  /* matches keep their colour, with an outline in the match colour */
  i = frame_index (&p, "convolve_row");
  assert_hex (centre_pixel (&p, i, NULL, NULL), "#e57373");
  g_assert_true (flame_painter_frame_rect (p.layout, i, &x, &y, &w, &h));
  g_assert_true (rgb_eq (pixel (p.surface, (int) x, (int) (y + h / 2)), palette->match));
  /* the rest fades towards the background */
  c = frame_pixel (&p, "inflate");
  g_assert_false (rgb_eq (c, flame_palette_get_fill (palette, FLAME_CHANGE_NEUTRAL)));
  g_assert_cmpint (c.r, >, 0xbd);

  /* the highlighted frame: outlined, lighter inside */
  {
    g_autoptr(FlamePainter) painter = flame_painter_new ();
    cairo_surface_t *s;
    cairo_t *cr;
    FlameRgb inside;

    flame_layout_search (p.layout, NULL);
    i = frame_index (&p, "bilinear_sample");
    s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1200,
                                    (int) flame_layout_get_height (p.layout));
    cr = cairo_create (s);
    flame_painter_set_labels (painter, FALSE);
    flame_painter_set_highlight (painter, i);
    g_assert_cmpint (flame_painter_get_highlight (painter), ==, i);
    flame_painter_paint (painter, cr, p.layout);
    cairo_destroy (cr);
    g_assert_true (flame_painter_frame_rect (p.layout, i, &x, &y, &w, &h));
    g_assert_true (rgb_eq (pixel (s, (int) x, (int) (y + h / 2)), palette->highlight));
    inside = pixel (s, (int) (x + w / 2), (int) (y + h / 2));
    g_assert_cmpint (inside.r, >, 0x42);
    g_assert_cmpint (inside.b, >=, 0xf5);
    cairo_surface_destroy (s);
  }
}

/* The legend names every colour class with a swatch in its exact
 * colour, under a line with the active normalisation. */
static void
test_render_legend (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlamePainter) painter = flame_painter_new ();
  g_autoptr(GArray) items = NULL;
  g_autofree char *header = NULL;
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  gdouble legend_h;
  cairo_t *cr;
  guint n;
  const FlameChange *classes = flame_legend_classes (&n);

  for (guint dark = 0; dark < 2; dark++)
    {
      g_auto(Picture) q = { 0 };
      const FlamePalette *palette = flame_palette_for (dark, FALSE);

      flame_export_options_init (&opts);
      opts.labels = FALSE;
      opts.legend = TRUE;
      opts.dark = dark;
      picture_init (&q, source, &opts);
      flame_painter_set_palette (painter, palette);
      cr = cairo_create (q.surface);
      items = flame_painter_legend_items (painter, cr, source, 1200, &header, &legend_h);
      cairo_destroy (cr);

      g_assert_cmpint (cairo_image_surface_get_height (q.surface), ==,
                       (int) ceil (flame_layout_get_height (q.layout) + legend_h));
      /* the default */
      g_assert_true (g_str_has_prefix (header, "Absolute time: the baseline is not scaled"));
      g_assert_cmpuint (items->len, ==, n);
      for (guint i = 0; i < items->len; i++)
        {
          const FlameLegendItem *item = &g_array_index (items, FlameLegendItem, i);
          FlameRgb c = pixel (q.surface, (int) item->x + 6,
                              (int) (flame_layout_get_height (q.layout) + item->y + 6));

          g_assert_cmpstr (item->label, ==, flame_change_legend_label (classes[i]));
          g_assert_true (rgb_eq (c, flame_palette_get_fill (palette, classes[i])));
          g_assert_cmpfloat (item->x + 100, <=, 1200);
        }
      g_clear_pointer (&items, g_array_unref);
      g_clear_pointer (&header, g_free);
    }

  /* the normalisation in the header follows the option, with its factor */
  {
    g_autoptr(FlameProfile) b = flame_test_load_example ("baseline.folded");
    g_autoptr(FlameProfile) c = flame_test_load_example ("current.folded");
    g_autoptr(FlameDiff) d2 = NULL;
    g_autoptr(FlameLayoutSource) s2 = NULL;
    FlameDiffOptions dopts;

    flame_diff_options_init (&dopts);
    dopts.normalize = FLAME_NORMALIZE_TOTAL;
    d2 = flame_diff_new (b, c, &dopts, NULL, NULL);
    s2 = flame_layout_source_new_for_diff (d2, FLAME_VIEW_DIFFERENTIAL);
    flame_export_options_init (&opts);
    picture_init (&p, s2, &opts);
    cr = cairo_create (p.surface);
    items = flame_painter_legend_items (painter, cr, s2, 400, &header, &legend_h);
    cairo_destroy (cr);
    g_assert_true (
      g_str_has_prefix (header, flame_test_decimal ("Baseline scaled ×1.00 to the current run")));
    /* wrapped onto more lines when narrow */
    g_assert_cmpfloat (g_array_index (items, FlameLegendItem, items->len - 1).y, >,
                       g_array_index (items, FlameLegendItem, 0).y + 40);
  }
}

static void
test_render_single (void)
{
  g_autoptr(FlameProfile) profile = flame_test_load_example ("current.folded");
  g_autoptr(FlameLayoutSource) source = flame_layout_source_new_for_profile (profile, 0, 1.0);
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  const char *names[] = { "convolve_row", "bilinear_sample", "inflate", "main" };

  flame_export_options_init (&opts);
  opts.labels = FALSE;
  picture_init (&p, source, &opts);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      FlameRgb c = frame_pixel (&p, names[i]);

      g_assert_true (
        rgb_eq (c, flame_palette_plain_fill (flame_palette_for (FALSE, FALSE), names[i])));
      g_assert_cmpuint (c.r, >=, 205);
      g_assert_cmpuint (c.b, <=, 55);
    }
}

static void
test_render_icicle (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_auto(Picture) flame = { 0 };
  g_auto(Picture) icicle = { 0 };
  FlameExportOptions opts;
  int h;

  flame_export_options_init (&opts);
  opts.labels = FALSE;
  picture_init (&flame, source, &opts);
  opts.orientation = FLAME_ORIENTATION_ICICLE;
  picture_init (&icicle, source, &opts);
  h = cairo_image_surface_get_height (flame.surface);

  /* root row ("all", neutral) at the bottom of a flame graph, at the
   * top of an icicle graph; the deepest row (clamp_coord…) opposite */
  assert_hex (pixel (flame.surface, 600, h - 8), "#bdbdbd");
  assert_hex (pixel (icicle.surface, 600, 8), "#bdbdbd");
  assert_hex (frame_pixel (&icicle, "simd_color_convert"), "#9575cd");
  {
    int cy;
    centre_pixel (&icicle, frame_index (&icicle, "clamp_coord"), NULL, &cy);
    g_assert_cmpint (cy, >, h - 17);
    centre_pixel (&flame, frame_index (&flame, "clamp_coord"), NULL, &cy);
    g_assert_cmpint (cy, <, 17);
  }
}

static void
test_render_zoom (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  gint i;
  gdouble x, y, w, h;

  flame_export_options_init (&opts);
  opts.labels = FALSE;
  opts.width = 852;
  opts.zoom = flame_layout_source_find (source, "blur");
  picture_init (&p, source, &opts);
  /* 2 px per ms: convolve_col 151 ms, convolve_row 275 ms */
  i = frame_index (&p, "convolve_row");
  g_assert_true (flame_painter_frame_rect (p.layout, i, &x, &y, &w, &h));
  g_assert_cmpfloat (x, ==, 302);
  g_assert_cmpfloat (w, ==, 550 - 1);
  /* the ancestors span the width */
  i = frame_index (&p, "main");
  g_assert_true (flame_painter_frame_rect (p.layout, i, &x, &y, &w, &h));
  g_assert_cmpfloat (x, ==, 0);
  g_assert_cmpfloat (w, ==, 851);
}

static void
test_render_png (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-render-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  cairo_surface_t *png;
  gdouble x, y, w, h;

  g_assert_no_error (error);
  path = g_build_filename (dir, "graph.png", NULL);
  flame_export_options_init (&opts);
  opts.width = 900;
  opts.legend = TRUE;
  opts.title = "imgconv: baseline → current";
  g_assert_true (flame_export_png (source, &opts, path, &error));
  g_assert_no_error (error);

  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  picture_init (&p, source, &opts);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, 900);
  g_assert_cmpint (cairo_image_surface_get_height (png), ==,
                   cairo_image_surface_get_height (p.surface));
  g_assert_cmpfloat (p.graph_y, ==, 24);
  /* a labelled frame: sample its bottom-left corner, clear of the text */
  g_assert_true (
    flame_painter_frame_rect (p.layout, frame_index (&p, "simd_color_convert"), &x, &y, &w, &h));
  assert_hex (pixel (png, (int) x + 1, (int) (p.graph_y + y + h - 1)), "#9575cd");
  cairo_surface_destroy (png);

  /* an unwritable path is an error, not a crash */
  {
    g_autofree char *bad = g_build_filename (dir, "missing", "graph.png", NULL);
    g_autoptr(GError) e2 = NULL;

    g_assert_false (flame_export_png (source, &opts, bad, &e2));
    g_assert_error (e2, G_IO_ERROR, G_IO_ERROR_FAILED);
  }
  g_remove (path);
  g_rmdir (dir);
}

typedef struct
{
  guint    groups;
  guint    titles;
  guint    rects;
  GString *text;
  GString *last_title;
  char    *simd_fill;
  gboolean in_title;
  gboolean after_simd_title;
  guint    bad_numbers;  /* geometry attributes that are not C numbers */
} SvgStats;

/* A number list as SVG reads it: numbers in C syntax, separated by
 * spaces, or by commas between a transform's parentheses ("0,5" there
 * are two numbers, which is why "0,5" must never stand for a half). */
static gboolean
svg_numbers_ok (const char *value)
{
  const char *p = value;
  gboolean transform = g_str_has_prefix (p, "translate(");
  guint n = 0;

  if (transform)
    p += strlen ("translate(");
  while (*p != 0 && *p != ')')
    {
      char *end;

      g_ascii_strtod (p, &end);
      if (end == p || (*end != 0 && *end != ' ' && *end != ')' && !(transform && *end == ',')))
        return FALSE;
      n++;
      p = end;
      while (*p == ' ' || (transform && *p == ','))
        p++;
    }
  return n > 0 && (!transform || n <= 2);
}

static void
svg_start (GMarkupParseContext *context,
           const char          *element,
           const char         **names,
           const char         **values,
           gpointer             data,
           GError             **error)
{
  SvgStats *st = data;
  static const char *const geometry[] = {
    "x", "y", "width", "height", "rx", "ry", "font-size", "viewBox", "transform", NULL
  };

  for (guint i = 0; names[i]; i++)
    if (g_strv_contains (geometry, names[i]) && !svg_numbers_ok (values[i]))
      {
        g_test_message ("<%s %s=\"%s\">: not a number in C syntax", element, names[i], values[i]);
        st->bad_numbers++;
      }
  if (strcmp (element, "g") == 0)
    for (guint i = 0; names[i]; i++)
      if (strcmp (names[i], "class") == 0 && g_str_has_prefix (values[i], "f"))
        st->groups++;
  if (strcmp (element, "title") == 0)
    {
      st->titles++;
      st->in_title = TRUE;
      g_string_truncate (st->last_title, 0);
    }
  if (strcmp (element, "rect") == 0)
    {
      st->rects++;
      if (st->after_simd_title)
        for (guint i = 0; names[i]; i++)
          if (strcmp (names[i], "fill") == 0)
            st->simd_fill = g_strdup (values[i]);
      st->after_simd_title = FALSE;
    }
}

static void
svg_end (GMarkupParseContext *context,
         const char          *element,
         gpointer             data,
         GError             **error)
{
  SvgStats *st = data;

  if (strcmp (element, "title") == 0)
    {
      st->in_title = FALSE;
      st->after_simd_title = g_str_has_prefix (st->last_title->str, "simd_color_convert\n");
    }
}

static void
svg_text_cb (GMarkupParseContext *context,
             const char          *text,
             gsize                len,
             gpointer             data,
             GError             **error)
{
  SvgStats *st = data;

  if (st->in_title)
    {
      g_string_append_len (st->last_title, text, len);
      g_string_append_len (st->text, text, len);
      g_string_append_c (st->text, '\n');
    }
}

static void
parse_svg (const char *svg,
           SvgStats   *st)
{
  static const GMarkupParser parser = { svg_start, svg_end, svg_text_cb, NULL, NULL };
  g_autoptr(GMarkupParseContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  const char *body = strstr (svg, "<svg");

  /* GMarkup does not take the XML declaration */
  g_assert_true (g_str_has_prefix (svg, "<?xml version=\"1.0\" encoding=\"UTF-8\""));
  g_assert_nonnull (body);
  memset (st, 0, sizeof *st);
  st->text = g_string_new (NULL);
  st->last_title = g_string_new (NULL);
  ctx = g_markup_parse_context_new (&parser, 0, st, NULL);
  g_assert_true (g_markup_parse_context_parse (ctx, body, -1, &error));
  g_assert_no_error (error);
  g_assert_true (g_markup_parse_context_end_parse (ctx, &error));
  g_assert_no_error (error);
}

static void
svg_stats_clear (SvgStats *st)
{
  g_string_free (st->text, TRUE);
  g_string_free (st->last_title, TRUE);
  g_free (st->simd_fill);
}

static void
test_render_svg (void)
{
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(FlameLayout) layout = NULL;
  FlameExportOptions opts;
  SvgStats st;

  flame_export_options_init (&opts);
  opts.legend = TRUE;
  flame_export_svg_string (source, &opts, out);
  layout = flame_export_layout (source, &opts);
  parse_svg (out->str, &st);

  /* one group with a <title> tooltip per frame, plus the document title */
  g_assert_cmpuint (st.groups, ==, flame_layout_get_n_frames (layout));
  g_assert_cmpuint (st.titles, ==, st.groups + 1);
  g_assert_cmpstr (st.simd_fill, ==, "#9575cd");
  g_assert_nonnull (
    strstr (st.text->str,
            flame_test_decimal ("convolve_row\nCurrent: 275.00 ms total (26.09%), 275.00 ms self\n"
                                "Baseline: 148.00 ms total, 148.00 ms self\n"
                                "Self difference: +127.00 ms (+85.8%)")));
  /* geometry in any locale: numbers with a '.', never a ',' */
  g_assert_cmpuint (st.bad_numbers, ==, 0);
  /* self-contained: no links, scripts or external references */
  g_assert_null (strstr (out->str, "href"));
  g_assert_null (strstr (out->str, "<script"));
  g_assert_null (strstr (out->str, "url("));
  g_assert_nonnull (strstr (out->str, "Absolute time: the baseline is not scaled"));
  g_assert_nonnull (strstr (out->str, ">convolve_row</text>"));
  svg_stats_clear (&st);
}

/* Hostile names come out as well-formed XML. */
static void
test_render_svg_escaping (void)
{
  const char *names[] = { "operator<<(a&b)", "say \"hi\" 'there'",
                          "ctl\x01\x1f"
                          "char",
                          "bad\xff"
                          "utf8",
                          "]]>" };
  g_autoptr(FlameProfile) profile = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  g_autoptr(FlameLayoutSource) source = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  FlameExportOptions opts;
  SvgStats st;

  flame_profile_set_interval_ms (profile, 1.0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      guint32 ids[2];

      ids[0] = flame_profile_intern_frame (profile, "main", 4, NULL, 0, 0, 0);
      ids[1] = flame_profile_intern_frame (profile, names[i], strlen (names[i]), "a<b>.c", 6, 7, 0);
      flame_profile_add_stack (profile, 0, ids, 2, 10);
    }
  flame_profile_finish (profile);
  source = flame_layout_source_new_for_profile (profile, 0, 1.0);
  flame_export_options_init (&opts);
  opts.title = "<&>";
  flame_export_svg_string (source, &opts, out);
  g_assert_true (g_utf8_validate (out->str, out->len, NULL));
  parse_svg (out->str, &st);
  g_assert_cmpuint (st.groups, ==, 2 + G_N_ELEMENTS (names));
  g_assert_nonnull (strstr (st.text->str, "operator<<(a&b)"));
  g_assert_nonnull (strstr (st.text->str, "say \"hi\" 'there'"));
  g_assert_nonnull (strstr (st.text->str, "a<b>.c:7"));
  g_assert_nonnull (strstr (st.text->str, "<&>"));
  g_assert_null (strstr (out->str, "\x01"));
  svg_stats_clear (&st);
}

static int
run_cli (const char *const *args,
         char              **err)
{
  const char *cli = g_getenv ("FLAMEDIFF_CLI");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_render_cli (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-render-XXXXXX", &error);
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_autofree char *png = g_build_filename (dir, "d.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "d.svg", NULL);
  g_autofree char *one = g_build_filename (dir, "one.png", NULL);
  g_autofree char *err = NULL;
  g_autoptr(FlameDiff) diff = flame_test_example_diff (NULL);
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_auto(Picture) p = { 0 };
  FlameExportOptions opts;
  cairo_surface_t *image;
  gdouble x, y, w, h;

  g_assert_no_error (error);
  {
    const char *args[] = { "render",  base,  cur,      "-o",       png,
                           "--width", "800", "--dark", "--legend", NULL };
    g_assert_cmpint (run_cli (args, NULL), ==, 0);
  }
  /* the PNG is what the painter draws: same size, same colours */
  image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  flame_export_options_init (&opts);
  opts.width = 800;
  opts.dark = TRUE;
  opts.legend = TRUE;
  picture_init (&p, source, &opts);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 800);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==,
                   cairo_image_surface_get_height (p.surface));
  g_assert_true (
    flame_painter_frame_rect (p.layout, frame_index (&p, "simd_color_convert"), &x, &y, &w, &h));
  assert_hex (pixel (image, (int) x + 1, (int) (y + h - 1)), "#b39ddb");
  cairo_surface_destroy (image);

  {
    const char *args[] = { "render", base,       cur,      "-o",           svg,
                           "--view", "inverted", "--zoom", "convolve_row", NULL };
    g_autofree char *text = NULL;
    SvgStats st;

    g_assert_cmpint (run_cli (args, NULL), ==, 0);
    g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
    parse_svg (text, &st);
    /* zoomed: all, convolve_row, then its callers blur, process, main, imgconv */
    g_assert_cmpuint (st.groups, ==, 6);
    svg_stats_clear (&st);
  }
  {
    const char *args[] = { "render", cur, "-o", one, "--icicle", "--high-contrast", NULL };
    g_assert_cmpint (run_cli (args, NULL), ==, 0);
    g_assert_true (g_file_test (one, G_FILE_TEST_IS_REGULAR));
  }
  {
    const char *args[] = { "render", base, cur, "-o", svg, "--view", "elided", "--legend", NULL };
    g_assert_cmpint (run_cli (args, NULL), ==, 0);
  }

  /* errors: exit status 1 and a message */
  {
    const char *bad_view[] = { "render", base, cur, "-o", png, "--view", "sideways", NULL };
    const char *no_out[] = { "render", base, cur, NULL };
    const char *bad_ext[] = { "render", base, cur, "-o", "graph.gif", NULL };
    const char *bad_zoom[] = { "render", base, cur, "-o", png, "--zoom", "no_such_function", NULL };
    const char *bad_width[] = { "render", base, cur, "-o", png, "--width", "3", NULL };
    const char *single_diff_view[] = { "render", cur, "-o", png, "--view", "elided", NULL };
    const char *missing[] = { "render", "/nonexistent/a.folded", cur, "-o", png, NULL };
    const char *const *cases[] = { bad_view,  no_out,           bad_ext, bad_zoom,
                                   bad_width, single_diff_view, missing };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_clear_pointer (&err, g_free);
        g_assert_cmpint (run_cli (cases[i], &err), ==, 1);
        g_assert_true (g_str_has_prefix (err, "flamediff-cli"));
      }
  }

  g_remove (png);
  g_remove (svg);
  g_remove (one);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  flame_test_set_locale ();

  g_test_add_func ("/render/colours/light", test_render_colours_light);
  g_test_add_func ("/render/colours/dark", test_render_colours_dark);
  g_test_add_func ("/render/widths", test_render_widths);
  g_test_add_func ("/render/elided", test_render_elided);
  g_test_add_func ("/render/hit-test", test_render_hit_test);
  g_test_add_func ("/render/labels", test_render_labels);
  g_test_add_func ("/render/search-highlight", test_render_search_highlight);
  g_test_add_func ("/render/legend", test_render_legend);
  g_test_add_func ("/render/single", test_render_single);
  g_test_add_func ("/render/icicle", test_render_icicle);
  g_test_add_func ("/render/zoom", test_render_zoom);
  g_test_add_func ("/render/png", test_render_png);
  g_test_add_func ("/render/svg", test_render_svg);
  g_test_add_func ("/render/svg-escaping", test_render_svg_escaping);
  g_test_add_func ("/render/cli", test_render_cli);

  return g_test_run ();
}

/* flame-painter.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Painting allocates nothing per frame: one PangoLayout is reused for all
 * labels, rows outside the cairo clip are skipped, and labels are drawn
 * only where at least about three characters fit. Frames are snapped to
 * whole pixels and leave a 1 px gap to their right and above (flame) or
 * below (icicle) them, so neighbours stay apart; a frame that would be
 * thinner than 2 px after snapping is drawn at its exact, unsnapped
 * position without a gap.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "flame-painter.h"
#include "flame-tooltip.h"

#define LABEL_PAD      3.0
#define LEGEND_PAD     6.0
#define LEGEND_SWATCH  12.0
#define LEGEND_SPACING 18.0

struct _FlamePainter
{
  GObject               parent_instance;

  const FlamePalette   *palette;
  char                 *font;
  PangoFontDescription *font_desc;
  gboolean              labels;
  gint                  highlight;
};

G_DEFINE_FINAL_TYPE (FlamePainter, flame_painter, G_TYPE_OBJECT)

static void
flame_painter_finalize (GObject *object)
{
  FlamePainter *self = (FlamePainter *) object;

  g_clear_pointer (&self->font, g_free);
  g_clear_pointer (&self->font_desc, pango_font_description_free);

  G_OBJECT_CLASS (flame_painter_parent_class)->finalize (object);
}

static void
flame_painter_class_init (FlamePainterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = flame_painter_finalize;
}

static void
flame_painter_init (FlamePainter *self)
{
  self->palette = flame_palette_get (FLAME_PALETTE_LIGHT);
  self->labels = TRUE;
  self->highlight = -1;
  flame_painter_set_font (self, NULL);
}

FlamePainter *
flame_painter_new (void)
{
  return g_object_new (FLAME_TYPE_PAINTER, NULL);
}

void
flame_painter_set_palette (FlamePainter       *self,
                           const FlamePalette *palette)
{
  g_return_if_fail (FLAME_IS_PAINTER (self));
  self->palette = palette != NULL ? palette : flame_palette_get (FLAME_PALETTE_LIGHT);
}

const FlamePalette *
flame_painter_get_palette (FlamePainter *self)
{
  g_return_val_if_fail (FLAME_IS_PAINTER (self), NULL);
  return self->palette;
}

/* @font: (nullable): a Pango font description, "Sans 9" by default */
void
flame_painter_set_font (FlamePainter *self,
                        const char   *font)
{
  g_return_if_fail (FLAME_IS_PAINTER (self));
  g_free (self->font);
  self->font = g_strdup (font != NULL && font[0] ? font : FLAME_PAINTER_DEFAULT_FONT);
  g_clear_pointer (&self->font_desc, pango_font_description_free);
  self->font_desc = pango_font_description_from_string (self->font);
}

const char *
flame_painter_get_font (FlamePainter *self)
{
  g_return_val_if_fail (FLAME_IS_PAINTER (self), NULL);
  return self->font;
}

void
flame_painter_set_labels (FlamePainter *self,
                          gboolean      labels)
{
  g_return_if_fail (FLAME_IS_PAINTER (self));
  self->labels = !!labels;
}

/* @frame: index in the layout painted next, or -1 */
void
flame_painter_set_highlight (FlamePainter *self,
                             gint          frame)
{
  g_return_if_fail (FLAME_IS_PAINTER (self));
  self->highlight = frame;
}

gint
flame_painter_get_highlight (FlamePainter *self)
{
  g_return_val_if_fail (FLAME_IS_PAINTER (self), -1);
  return self->highlight;
}

static inline void
set_rgb (cairo_t  *cr,
         FlameRgb  c)
{
  cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

static inline FlameRgb
mix (FlameRgb a,
     FlameRgb b,
     gdouble  t)
{
  return (FlameRgb) {
    (guint8) lround (a.r + (b.r - a.r) * t),
    (guint8) lround (a.g + (b.g - a.g) * t),
    (guint8) lround (a.b + (b.b - a.b) * t),
  };
}

/**
 * flame_painter_frame_fill:
 * @search_active: whether a search is on (non-matching frames fade)
 *
 * The fill of frame @i: its class colour (by function name in the single
 * view), the merged colour for merged frames (the elided colour in the
 * elided view, where every frame has it).
 */
FlameRgb
flame_painter_frame_fill (FlamePainter *self,
                          FlameLayout  *layout,
                          guint         i,
                          gboolean      search_active)
{
  const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);
  FlameLayoutSource *source = flame_layout_get_source (layout);
  FlameRgb fill;

  if ((f->flags & FLAME_LAYOUT_FRAME_MERGED) &&
      flame_layout_source_get_view (source) != FLAME_VIEW_ELIDED)
    fill = self->palette->merged;
  else if (f->flags & FLAME_LAYOUT_FRAME_MERGED)
    fill = flame_palette_get_fill (self->palette, FLAME_CHANGE_ELIDED);
  else if (flame_layout_source_get_view (source) == FLAME_VIEW_SINGLE)
    fill = f->node == FLAME_TREE_ROOT
      ? flame_palette_get_fill (self->palette, FLAME_CHANGE_NEUTRAL)
      : flame_palette_plain_fill (self->palette, flame_layout_source_get_name (source, f->node));
  else
    fill = flame_palette_get_fill (self->palette, f->klass);

  if (search_active && !(f->flags & FLAME_LAYOUT_FRAME_MATCH))
    fill = mix (fill, self->palette->background, 0.65);
  return fill;
}

/**
 * flame_painter_frame_rect:
 *
 * Where frame @i is painted: snapped to whole pixels, less the 1 px gap.
 *
 * Returns: %FALSE when the frame is too thin to paint
 */
gboolean
flame_painter_frame_rect (FlameLayout *layout,
                          guint        i,
                          gdouble     *x,
                          gdouble     *y,
                          gdouble     *width,
                          gdouble     *height)
{
  const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);
  const FlameLayoutOptions *opts = flame_layout_get_options (layout);
  gdouble x0 = round (f->x), x1 = round (f->x + f->width);
  gdouble rh = opts->row_height;

  if (f->width <= 0)
    return FALSE;
  if (x1 - x0 >= 2)
    {
      *x = x0;
      *width = x1 - x0 - 1;
    }
  else
    {
      *x = f->x;
      *width = f->width;
    }
  *height = rh >= 3 ? rh - 1 : rh;
  *y = opts->orientation == FLAME_ORIENTATION_ICICLE ? f->y : f->y + (rh - *height);
  return TRUE;
}

static PangoLayout *
create_pango_layout (FlamePainter *self,
                     cairo_t      *cr)
{
  PangoLayout *pango = pango_cairo_create_layout (cr);
  cairo_font_options_t *fo = cairo_font_options_create ();

  /* the same text whatever the target: no hinting of metrics */
  cairo_font_options_set_hint_metrics (fo, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options (pango_layout_get_context (pango), fo);
  pango_layout_context_changed (pango);
  cairo_font_options_destroy (fo);
  pango_layout_set_font_description (pango, self->font_desc);
  pango_layout_set_single_paragraph_mode (pango, TRUE);
  return pango;
}

static gdouble
char_width (FlamePainter *self,
            PangoLayout  *pango)
{
  PangoContext *ctx = pango_layout_get_context (pango);
  PangoFontMetrics *metrics = pango_context_get_metrics (ctx, self->font_desc, NULL);
  gdouble w = pango_font_metrics_get_approximate_char_width (metrics) / (gdouble) PANGO_SCALE;

  pango_font_metrics_unref (metrics);
  return w > 0 ? w : 7;
}

/* Frames narrower than this (px) get no label: about three characters. */
gdouble
flame_painter_min_label_width (FlamePainter *self,
                               cairo_t      *cr)
{
  g_autoptr(PangoLayout) pango = create_pango_layout (self, cr);

  return 3 * char_width (self, pango) + 2 * LABEL_PAD;
}

/**
 * flame_painter_fit_label:
 *
 * @text, or its longest prefix followed by "…", that is at most
 * @max_width pixels wide in the painter's font (for exports that cannot
 * ellipsize themselves, like SVG).
 *
 * Returns: (nullable): the text, %NULL when not even one character fits
 */
char *
flame_painter_fit_label (FlamePainter *self,
                         PangoLayout  *pango,
                         const char   *text,
                         gdouble       max_width)
{
  glong n = g_utf8_strlen (text, -1);
  glong lo = 0, hi = n;
  int w, h;

  pango_layout_set_width (pango, -1);
  pango_layout_set_ellipsize (pango, PANGO_ELLIPSIZE_NONE);
  pango_layout_set_text (pango, text, -1);
  pango_layout_get_pixel_size (pango, &w, &h);
  if (w <= max_width)
    return g_strdup (text);

  /* the longest prefix p with width (p + "…") <= max_width */
  while (lo < hi)
    {
      glong mid = (lo + hi + 1) / 2;
      const char *end = g_utf8_offset_to_pointer (text, mid);
      g_autofree char *s = g_strdup_printf ("%.*s…", (int) (end - text), text);

      pango_layout_set_text (pango, s, -1);
      pango_layout_get_pixel_size (pango, &w, &h);
      if (w <= max_width)
        lo = mid;
      else
        hi = mid - 1;
    }
  if (lo == 0)
    return NULL;
  return g_strdup_printf ("%.*s…", (int) (g_utf8_offset_to_pointer (text, lo) - text), text);
}

static gboolean
any_match (FlameLayout *layout)
{
  guint n = flame_layout_get_n_frames (layout);

  for (guint i = 0; i < n; i++)
    if (flame_layout_get_frame (layout, i)->flags & FLAME_LAYOUT_FRAME_MATCH)
      return TRUE;
  return FALSE;
}

static void
outline (cairo_t  *cr,
         FlameRgb  colour,
         gdouble   x,
         gdouble   y,
         gdouble   w,
         gdouble   h,
         gdouble   line)
{
  if (w < line * 2 || h < line * 2)
    return;
  set_rgb (cr, colour);
  cairo_set_line_width (cr, line);
  cairo_rectangle (cr, x + line / 2, y + line / 2, w - line, h - line);
  cairo_stroke (cr);
}

/**
 * flame_painter_paint:
 *
 * Paints @layout with its top-left corner at the origin of @cr: the
 * background, then every frame in the clip. The labels use one reused
 * PangoLayout, ellipsized at the end.
 */
void
flame_painter_paint (FlamePainter *self,
                     cairo_t      *cr,
                     FlameLayout  *layout)
{
  const FlameLayoutOptions *opts;
  g_autoptr(PangoLayout) pango = NULL;
  gdouble cx1, cy1, cx2, cy2;
  gdouble min_label = G_MAXDOUBLE, text_h = 0;
  gboolean search;
  guint n_rows;

  g_return_if_fail (FLAME_IS_PAINTER (self));
  g_return_if_fail (cr != NULL && layout != NULL);

  opts = flame_layout_get_options (layout);
  n_rows = flame_layout_get_n_rows (layout);
  search = any_match (layout);

  cairo_save (cr);
  cairo_clip_extents (cr, &cx1, &cy1, &cx2, &cy2);
  set_rgb (cr, self->palette->background);
  cairo_rectangle (cr, 0, 0, opts->width, flame_layout_get_height (layout));
  cairo_fill (cr);

  if (self->labels)
    {
      int w, h;

      pango = create_pango_layout (self, cr);
      min_label = 3 * char_width (self, pango) + 2 * LABEL_PAD;
      pango_layout_set_ellipsize (pango, PANGO_ELLIPSIZE_END);
      pango_layout_set_text (pango, "Ag", -1);
      pango_layout_get_pixel_size (pango, &w, &h);
      text_h = h;
    }

  for (guint d = 0; d < n_rows; d++)
    {
      gdouble ry = flame_layout_row_y (layout, d);
      guint first, n;

      if (ry >= cy2 || ry + opts->row_height <= cy1)
        continue;
      flame_layout_get_row (layout, d, &first, &n);
      for (guint i = first; i < first + n; i++)
        {
          const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);
          gdouble x, y, w, h;
          FlameRgb fill;
          const char *label;

          if (f->x >= cx2 || f->x + f->width <= cx1)
            continue;
          if (!flame_painter_frame_rect (layout, i, &x, &y, &w, &h))
            continue;
          fill = flame_painter_frame_fill (self, layout, i, search);
          set_rgb (cr, fill);
          cairo_rectangle (cr, x, y, w, h);
          cairo_fill (cr);

          if (self->palette->borders)
            outline (cr, self->palette->foreground, x, y, w, h, 1);
          if (search && (f->flags & FLAME_LAYOUT_FRAME_MATCH))
            outline (cr, self->palette->match, x, y, w, h, 2);

          if (w < min_label || (label = flame_layout_get_label (layout, i)) == NULL)
            continue;
          pango_layout_set_width (pango, (int) ((w - 2 * LABEL_PAD) * PANGO_SCALE));
          pango_layout_set_text (pango, label, -1);
          set_rgb (cr, flame_palette_text_for (fill));
          cairo_move_to (cr, x + LABEL_PAD, y + floor ((h - text_h) / 2));
          pango_cairo_show_layout (cr, pango);
        }
    }

  if (self->highlight >= 0 && (guint) self->highlight < flame_layout_get_n_frames (layout))
    {
      gdouble x, y, w, h;

      if (flame_painter_frame_rect (layout, self->highlight, &x, &y, &w, &h))
        {
          cairo_set_source_rgba (cr, 1, 1, 1, .25);
          cairo_rectangle (cr, x, y, w, h);
          cairo_fill (cr);
          outline (cr, self->palette->highlight, x, y, w, h, 2);
        }
    }
  cairo_restore (cr);
}

/* -- legend -------------------------------------------------------- */

/**
 * flame_painter_legend_items:
 * @header: (out) (transfer full): the line above the swatches: the
 *   active normalisation (and the colour metric), or for a single
 *   profile what the colours mean
 * @height: (out): the height of the strip
 *
 * Lays out the legend strip at @width: one entry per colour class, its
 * threshold range in the label, wrapped over as many lines as needed.
 *
 * Returns: (transfer full): FlameLegendItem entries
 */
GArray *
flame_painter_legend_items (FlamePainter      *self,
                            cairo_t           *cr,
                            FlameLayoutSource *source,
                            gdouble            width,
                            char             **header,
                            gdouble           *height)
{
  g_autoptr(PangoLayout) pango = create_pango_layout (self, cr);
  GArray *items = g_array_new (FALSE, TRUE, sizeof (FlameLegendItem));
  FlameDiff *diff = flame_layout_source_get_diff (source);
  gdouble x = LEGEND_PAD, y;
  int tw, th;

  if (diff != NULL)
    {
      g_autofree char *norm = flame_normalization_text (diff);
      FlameView view = flame_layout_source_get_view (source);
      const char *metric = view == FLAME_VIEW_INVERTED ||
                           flame_diff_get_options (diff)->metric == FLAME_METRIC_TOTAL
                           ? "total" : "self";
      /* memory and counts are amounts: an image of them never speaks of time */
      const char *amount = flame_diff_get_quantity (diff) == FLAME_QUANTITY_TIME
                           ? "time" : "amount";
      g_autofree char *what = view == FLAME_VIEW_ELIDED
        ? g_strdup ("Elided view: paths gone from the current run, widths from the scaled "
                    "baseline")
        : g_strdup_printf ("Width: current %s", amount);

      *header = g_strdup_printf ("%s · Colour: change of %s %s · %s", norm, metric, amount, what);
    }
  else if (flame_layout_source_get_quantity (source) == FLAME_QUANTITY_TIME)
    *header = g_strdup ("Single profile · Width: time · Colours: warm hues by function name");
  else
    *header = g_strdup ("Single profile · Width: amount · Colours: warm hues by function name");

  /* the header wraps when the strip is narrow */
  pango_layout_set_width (pango, (int) (MAX (width - 2 * LEGEND_PAD, 1) * PANGO_SCALE));
  pango_layout_set_wrap (pango, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_text (pango, *header, -1);
  pango_layout_get_pixel_size (pango, &tw, &th);
  pango_layout_set_width (pango, -1);
  y = LEGEND_PAD + MAX (th, 14) + 4;

  if (diff != NULL)
    {
      const FlameChange *classes;
      guint n;

      classes = flame_legend_classes (&n);
      for (guint i = 0; i < n; i++)
        {
          FlameLegendItem item = {
            .fill = flame_palette_get_fill (self->palette, classes[i]),
            .label = flame_change_legend_label (classes[i]),
          };
          gdouble w;

          pango_layout_set_text (pango, item.label, -1);
          pango_layout_get_pixel_size (pango, &tw, &th);
          w = LEGEND_SWATCH + 4 + tw;
          if (x > LEGEND_PAD && x + w > width - LEGEND_PAD)
            {
              x = LEGEND_PAD;
              y += LEGEND_SPACING;
            }
          item.x = x;
          item.y = y;
          g_array_append_val (items, item);
          x += w + 16;
        }
      y += LEGEND_SPACING;
    }

  *height = ceil (y + LEGEND_PAD - 4);
  return items;
}

/**
 * flame_painter_paint_legend:
 * @draw: %FALSE to only measure
 *
 * Paints the legend strip at the origin of @cr, @width wide.
 *
 * Returns: its height in pixels
 */
gdouble
flame_painter_paint_legend (FlamePainter      *self,
                            cairo_t           *cr,
                            FlameLayoutSource *source,
                            gdouble            width,
                            gboolean           draw)
{
  g_autoptr(PangoLayout) pango = NULL;
  g_autoptr(GArray) items = NULL;
  g_autofree char *header = NULL;
  gdouble height;
  int tw, th;

  g_return_val_if_fail (FLAME_IS_PAINTER (self), 0);

  items = flame_painter_legend_items (self, cr, source, width, &header, &height);
  if (!draw)
    return height;

  pango = create_pango_layout (self, cr);
  cairo_save (cr);
  set_rgb (cr, self->palette->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  set_rgb (cr, self->palette->foreground);
  pango_layout_set_width (pango, (int) (MAX (width - 2 * LEGEND_PAD, 1) * PANGO_SCALE));
  pango_layout_set_wrap (pango, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_text (pango, header, -1);
  cairo_move_to (cr, LEGEND_PAD, LEGEND_PAD);
  pango_cairo_show_layout (cr, pango);
  pango_layout_set_width (pango, -1);

  for (guint i = 0; i < items->len; i++)
    {
      const FlameLegendItem *item = &g_array_index (items, FlameLegendItem, i);

      set_rgb (cr, item->fill);
      cairo_rectangle (cr, item->x, item->y, LEGEND_SWATCH, LEGEND_SWATCH);
      cairo_fill (cr);
      set_rgb (cr, self->palette->foreground);
      cairo_set_line_width (cr, 1);
      cairo_rectangle (cr, item->x + .5, item->y + .5, LEGEND_SWATCH - 1, LEGEND_SWATCH - 1);
      cairo_stroke (cr);

      pango_layout_set_text (pango, item->label, -1);
      pango_layout_get_pixel_size (pango, &tw, &th);
      cairo_move_to (cr, item->x + LEGEND_SWATCH + 4, item->y + (LEGEND_SWATCH - th) / 2);
      pango_cairo_show_layout (cr, pango);
    }
  cairo_restore (cr);
  return height;
}

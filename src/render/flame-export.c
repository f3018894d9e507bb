/* flame-export.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both exports stack the same three parts: an optional title line, the
 * graph as flame_painter_paint() draws it, and the optional legend strip.
 * The PNG is exactly what the app paints. The SVG repeats the geometry
 * and colours with its own small writer (no external references: it
 * opens in any browser), gives every frame a <title> with its tooltip,
 * and cuts labels to fit with the painter's font metrics.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "flame-error.h"
#include "flame-export.h"
#include "flame-painter.h"
#include "flame-tooltip.h"

#define TITLE_HEIGHT 24.0

void
flame_export_options_init (FlameExportOptions *options)
{
  *options = (FlameExportOptions) {
    .width = 1200,
    .row_height = 17,
    .labels = TRUE,
    .orientation = FLAME_ORIENTATION_FLAME,
    .zoom = FLAME_TREE_ROOT,
  };
}

static FlamePainter *
make_painter (const FlameExportOptions *options)
{
  FlamePainter *painter = flame_painter_new ();

  flame_painter_set_palette (painter, flame_palette_for (options->dark, options->high_contrast));
  flame_painter_set_font (painter, options->font);
  flame_painter_set_labels (painter, options->labels);
  return painter;
}

FlameLayout *
flame_export_layout (FlameLayoutSource        *source,
                     const FlameExportOptions *options)
{
  FlameLayoutOptions lopts;
  FlameLayout *layout;

  flame_layout_options_init (&lopts);
  lopts.width = MAX (16, floor (options->width));
  if (options->row_height >= 4)
    lopts.row_height = options->row_height;
  lopts.orientation = options->orientation;
  lopts.zoom = options->zoom;
  layout = flame_layout_new (source, &lopts);
  if (options->search != NULL)
    flame_layout_search (layout, options->search);
  return layout;
}

static gdouble
measure_legend (FlamePainter      *painter,
                FlameLayoutSource *source,
                gdouble            width)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  gdouble h = flame_painter_paint_legend (painter, cr, source, width, FALSE);

  cairo_destroy (cr);
  cairo_surface_destroy (s);
  return h;
}

static void
paint_title (FlamePainter *painter,
             cairo_t      *cr,
             const char   *title,
             gdouble       width)
{
  const FlamePalette *palette = flame_painter_get_palette (painter);
  g_autoptr(PangoLayout) pango = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) desc =
    pango_font_description_from_string (flame_painter_get_font (painter));
  int tw, th;

  pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (pango, desc);
  pango_layout_set_width (pango, (int) ((width - 12) * PANGO_SCALE));
  pango_layout_set_ellipsize (pango, PANGO_ELLIPSIZE_END);
  pango_layout_set_alignment (pango, PANGO_ALIGN_CENTER);
  pango_layout_set_text (pango, title, -1);
  pango_layout_get_pixel_size (pango, &tw, &th);
  cairo_set_source_rgb (cr, palette->foreground.r / 255.0, palette->foreground.g / 255.0,
                        palette->foreground.b / 255.0);
  cairo_move_to (cr, 6, (TITLE_HEIGHT - th) / 2);
  pango_cairo_show_layout (cr, pango);
}

/**
 * flame_export_image:
 * @layout_out: (out) (optional): the layout painted
 * @graph_y: (out) (optional): where the graph starts in the image
 *
 * Renders the whole picture into an ARGB32 image surface.
 *
 * Returns: (transfer full): the surface
 */
cairo_surface_t *
flame_export_image (FlameLayoutSource        *source,
                    const FlameExportOptions *options,
                    FlameLayout             **layout_out,
                    gdouble                  *graph_y)
{
  g_autoptr(FlamePainter) painter = make_painter (options);
  g_autoptr(FlameLayout) layout = flame_export_layout (source, options);
  const FlamePalette *palette = flame_painter_get_palette (painter);
  gdouble width = flame_layout_get_options (layout)->width;
  gdouble top = options->title != NULL ? TITLE_HEIGHT : 0;
  gdouble graph_h = flame_layout_get_height (layout);
  gdouble legend_h = options->legend ? measure_legend (painter, source, width) : 0;
  cairo_surface_t *surface;
  cairo_t *cr;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) width,
                                        (int) ceil (top + graph_h + legend_h));
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, palette->background.r / 255.0, palette->background.g / 255.0,
                        palette->background.b / 255.0);
  cairo_paint (cr);

  if (options->title != NULL)
    paint_title (painter, cr, options->title, width);

  cairo_save (cr);
  cairo_translate (cr, 0, top);
  cairo_rectangle (cr, 0, 0, width, graph_h);
  cairo_clip (cr);
  flame_painter_paint (painter, cr, layout);
  cairo_restore (cr);

  if (options->legend)
    {
      cairo_save (cr);
      cairo_translate (cr, 0, top + graph_h);
      flame_painter_paint_legend (painter, cr, source, width, TRUE);
      cairo_restore (cr);
    }
  cairo_destroy (cr);

  if (graph_y != NULL)
    *graph_y = top;
  if (layout_out != NULL)
    *layout_out = g_steal_pointer (&layout);
  return surface;
}

gboolean
flame_export_png (FlameLayoutSource        *source,
                  const FlameExportOptions *options,
                  const char               *path,
                  GError                  **error)
{
  cairo_surface_t *surface;
  cairo_status_t status;

  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (source), FALSE);

  surface = flame_export_image (source, options, NULL, NULL);
  status = cairo_surface_status (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: cannot write the PNG image: %s", path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

/**
 * flame_xml_escape:
 *
 * Appends @text as XML 1.0 character data or attribute value: the five
 * markup characters as entities, invalid UTF-8 and the control
 * characters XML 1.0 forbids replaced by U+FFFD.
 */
void
flame_xml_escape (GString    *out,
                  const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (c)
        {
        case '&':  g_string_append (out, "&amp;"); break;
        case '<':  g_string_append (out, "&lt;"); break;
        case '>':  g_string_append (out, "&gt;"); break;
        case '"':  g_string_append (out, "&quot;"); break;
        case '\'': g_string_append (out, "&apos;"); break;
        default:
          if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
              (c >= 0x7f && c <= 0x84) || (c >= 0x86 && c <= 0x9f) ||
              c == 0xfffe || c == 0xffff)
            g_string_append (out, "\xef\xbf\xbd");
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
        }
    }
}

static void
append_colour (GString  *out,
               FlameRgb  c)
{
  char hex[8];

  flame_rgb_to_hex (c, hex);
  g_string_append (out, hex);
}

static void
append_num (GString *out,
            gdouble  v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* two decimals are plenty for pixels; no locale decimal commas */
  v = round (v * 100) / 100;
  if (v == 0)
    v = 0;
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.2f", v));
  while (out->str[out->len - 1] == '0')
    g_string_truncate (out, out->len - 1);
  if (out->str[out->len - 1] == '.')
    g_string_truncate (out, out->len - 1);
}

static void
svg_text (GString    *out,
          gdouble     x,
          gdouble     y,
          FlameRgb    colour,
          const char *extra,
          const char *text)
{
  g_string_append (out, "<text x=\"");
  append_num (out, x);
  g_string_append (out, "\" y=\"");
  append_num (out, y);
  g_string_append (out, "\" fill=\"");
  append_colour (out, colour);
  g_string_append_printf (out, "\"%s>", extra != NULL ? extra : "");
  flame_xml_escape (out, text);
  g_string_append (out, "</text>\n");
}

static void
svg_rect (GString  *out,
          gdouble   x,
          gdouble   y,
          gdouble   w,
          gdouble   h,
          FlameRgb  fill,
          const char *extra)
{
  g_string_append (out, "<rect x=\"");
  append_num (out, x);
  g_string_append (out, "\" y=\"");
  append_num (out, y);
  g_string_append (out, "\" width=\"");
  append_num (out, w);
  g_string_append (out, "\" height=\"");
  append_num (out, h);
  g_string_append (out, "\" fill=\"");
  append_colour (out, fill);
  g_string_append_printf (out, "\"%s/>\n", extra != NULL ? extra : "");
}

/* What the parts of an SVG document share */
typedef struct
{
  FlamePainter       *painter;
  FlameLayout        *layout;
  const FlamePalette *palette;
  cairo_t            *cr;        /* on a scratch surface: for measuring */
  PangoLayout        *pango;
  gdouble             width;
  gdouble             top;       /* the title's height, or 0 */
  gdouble             graph_h;
  gboolean            search;    /* some frame matches the search */
  char               *stroke;    /* the frames' and swatches' stroke attribute */
} SvgDoc;

/* The XML declaration, <svg>, <title>, <style>, the background and the
 * title line */
static void
svg_header (GString                  *out,
            const SvgDoc             *doc,
            const FlameExportOptions *options,
            gdouble                   total_h)
{
  const FlamePalette *palette = doc->palette;
  gdouble width = doc->width;
  char hl[8], match[8];

  flame_rgb_to_hex (palette->highlight, hl);
  flame_rgb_to_hex (palette->match, match);
  g_string_append (out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
  g_string_append_printf (out,
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
                          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
                          (int) width, (int) total_h, (int) width, (int) total_h);
  g_string_append (out, "<title>");
  flame_xml_escape (out, options->title != NULL ? options->title : "Flame graph");
  g_string_append (out, "</title>\n");
  g_string_append_printf (
    out,
    "<style>\n"
    "text { font-family: \"DejaVu Sans\", Verdana, sans-serif; font-size: 12px; "
    "dominant-baseline: central; pointer-events: none; white-space: pre; }\n"
    ".f:hover > rect { stroke: %s; stroke-width: 2px; }\n"
    ".m > rect { stroke: %s; stroke-width: 2px; }\n"
    "</style>\n",
    hl, match);
  svg_rect (out, 0, 0, width, total_h, palette->background, NULL);

  if (options->title != NULL)
    svg_text (out, width / 2, TITLE_HEIGHT / 2, palette->foreground,
              " text-anchor=\"middle\" font-weight=\"bold\"", options->title);
}

/* Frame @i: a <g> with its tooltip, its <rect> and, where it fits, its label */
static void
svg_frame (GString                  *out,
           const SvgDoc             *doc,
           const FlameExportOptions *options,
           gdouble                   min_label,
           guint                     i)
{
  const FlameLayoutFrame *f = flame_layout_get_frame (doc->layout, i);
  g_autofree char *tip = NULL;
  const char *label;
  gdouble x, y, w, h;
  FlameRgb fill;

  if (!flame_painter_frame_rect (doc->layout, i, &x, &y, &w, &h))
    return;
  fill = flame_painter_frame_fill (doc->painter, doc->layout, i, doc->search);
  tip = flame_tooltip_text_for_frame (doc->layout, i);

  g_string_append_printf (out, "<g class=\"f%s\"><title>",
                          doc->search && (f->flags & FLAME_LAYOUT_FRAME_MATCH) ? " m" : "");
  flame_xml_escape (out, tip);
  g_string_append (out, "</title>");
  svg_rect (out, x, y, w, h, fill, doc->palette->borders ? doc->stroke : NULL);
  label = flame_layout_get_label (doc->layout, i);
  if (options->labels && label != NULL && w >= min_label)
    {
      g_autofree char *text = flame_painter_fit_label (doc->painter, doc->pango, label, w - 8);

      if (text != NULL)
        svg_text (out, x + 3, y + h / 2, flame_palette_text_for (fill), NULL, text);
    }
  g_string_append (out, "</g>\n");
}

/* The legend strip below the graph */
static void
svg_legend (GString           *out,
            const SvgDoc      *doc,
            FlameLayoutSource *source)
{
  g_autoptr(GArray) items = NULL;
  g_autofree char *header = NULL;
  gdouble lh;

  items = flame_painter_legend_items (doc->painter, doc->cr, source, doc->width, &header, &lh);
  g_string_append_printf (out, "<g id=\"legend\" transform=\"translate(0,%d)\">\n",
                          (int) (doc->top + doc->graph_h));
  svg_text (out, 6, 6 + 8, doc->palette->foreground, NULL, header);
  for (guint i = 0; i < items->len; i++)
    {
      const FlameLegendItem *item = &g_array_index (items, FlameLegendItem, i);

      svg_rect (out, item->x + .5, item->y + .5, 11, 11, item->fill, doc->stroke);
      svg_text (out, item->x + 16, item->y + 6, doc->palette->foreground, NULL, item->label);
    }
  g_string_append (out, "</g>\n");
}

static gboolean
any_frame_matches (FlameLayout *layout)
{
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    if (flame_layout_get_frame (layout, i)->flags & FLAME_LAYOUT_FRAME_MATCH)
      return TRUE;
  return FALSE;
}

static PangoLayout *
make_label_layout (cairo_t      *cr,
                   FlamePainter *painter)
{
  PangoLayout *pango = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string (
    flame_painter_get_font (painter));

  pango_layout_set_font_description (pango, desc);
  pango_font_description_free (desc);
  return pango;
}

/**
 * flame_export_svg_string:
 *
 * Writes the picture as a standalone SVG document: one <g> per frame
 * holding a <title> (the tooltip text), the <rect> and, where it fits,
 * a <text> label.
 */
void
flame_export_svg_string (FlameLayoutSource        *source,
                         const FlameExportOptions *options,
                         GString                  *out)
{
  g_autoptr(FlamePainter) painter = make_painter (options);
  g_autoptr(FlameLayout) layout = flame_export_layout (source, options);
  cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  SvgDoc doc = { 0 };
  gdouble legend_h = 0, min_label;
  char fg[8];

  doc.painter = painter;
  doc.layout = layout;
  doc.palette = flame_painter_get_palette (painter);
  doc.cr = cairo_create (scratch);
  doc.width = flame_layout_get_options (layout)->width;
  doc.top = options->title != NULL ? TITLE_HEIGHT : 0;
  doc.graph_h = flame_layout_get_height (layout);
  if (options->legend)
    legend_h = flame_painter_paint_legend (painter, doc.cr, source, doc.width, FALSE);
  min_label = flame_painter_min_label_width (painter, doc.cr);
  doc.pango = make_label_layout (doc.cr, painter);
  doc.search = any_frame_matches (layout);
  flame_rgb_to_hex (doc.palette->foreground, fg);
  doc.stroke = g_strdup_printf (" stroke=\"%s\"", fg);

  svg_header (out, &doc, options, ceil (doc.top + doc.graph_h + legend_h));
  g_string_append_printf (out, "<g id=\"frames\" transform=\"translate(0,%d)\">\n", (int) doc.top);
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    svg_frame (out, &doc, options, min_label, i);
  g_string_append (out, "</g>\n");
  if (options->legend)
    svg_legend (out, &doc, source);
  g_string_append (out, "</svg>\n");

  g_free (doc.stroke);
  g_object_unref (doc.pango);
  cairo_destroy (doc.cr);
  cairo_surface_destroy (scratch);
}

gboolean
flame_export_svg (FlameLayoutSource        *source,
                  const FlameExportOptions *options,
                  const char               *path,
                  GError                  **error)
{
  g_autoptr(GString) out = g_string_new (NULL);

  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (source), FALSE);

  flame_export_svg_string (source, options, out);
  return g_file_set_contents (path, out->str, out->len, error);
}

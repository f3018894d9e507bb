/* flame-painter.h: draws a FlameLayout on any cairo_t.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib-object.h>
#include <pango/pango.h>

#include "flame-layout.h"
#include "flame-palette.h"

G_BEGIN_DECLS

#define FLAME_PAINTER_DEFAULT_FONT "Sans 9"

#define FLAME_TYPE_PAINTER (flame_painter_get_type ())

G_DECLARE_FINAL_TYPE (FlamePainter, flame_painter, FLAME, PAINTER, GObject)

FlamePainter       *flame_painter_new               (void);
void                flame_painter_set_palette       (FlamePainter       *self,
                                                     const FlamePalette *palette);
const FlamePalette *flame_painter_get_palette       (FlamePainter       *self);
void                flame_painter_set_font          (FlamePainter       *self,
                                                     const char         *font);
const char         *flame_painter_get_font          (FlamePainter       *self);
void                flame_painter_set_labels        (FlamePainter       *self,
                                                     gboolean            labels);
void                flame_painter_set_highlight     (FlamePainter       *self,
                                                     gint                frame);
gint                flame_painter_get_highlight     (FlamePainter       *self);

FlameRgb            flame_painter_frame_fill        (FlamePainter       *self,
                                                     FlameLayout        *layout,
                                                     guint               i,
                                                     gboolean            search_active);
gboolean            flame_painter_frame_rect        (FlameLayout        *layout,
                                                     guint               i,
                                                     gdouble            *x,
                                                     gdouble            *y,
                                                     gdouble            *width,
                                                     gdouble            *height);
gdouble             flame_painter_min_label_width   (FlamePainter       *self,
                                                     cairo_t            *cr);
char               *flame_painter_fit_label         (FlamePainter       *self,
                                                     PangoLayout        *pango,
                                                     const char         *text,
                                                     gdouble             max_width);
void                flame_painter_paint             (FlamePainter       *self,
                                                     cairo_t            *cr,
                                                     FlameLayout        *layout);

gdouble             flame_painter_paint_legend      (FlamePainter       *self,
                                                     cairo_t            *cr,
                                                     FlameLayoutSource  *source,
                                                     gdouble             width,
                                                     gboolean            draw);

typedef struct
{
  FlameRgb    fill;
  gboolean    plain;   /* the single-profile palette: no swatch */
  const char *label;
  gdouble     x, y;    /* swatch top-left in the strip */
} FlameLegendItem;

GArray             *flame_painter_legend_items      (FlamePainter       *self,
                                                     cairo_t            *cr,
                                                     FlameLayoutSource  *source,
                                                     gdouble             width,
                                                     char              **header,
                                                     gdouble            *height);

G_END_DECLS

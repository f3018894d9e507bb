/* flame-export.h: a flame graph as a PNG image or a self-contained SVG.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "flame-layout.h"
#include "flame-palette.h"

G_BEGIN_DECLS

typedef struct
{
  gdouble          width;         /* px; default 1200 */
  gdouble          row_height;    /* px; default 17 */
  gboolean         dark;
  gboolean         high_contrast;
  gboolean         legend;
  gboolean         labels;        /* default TRUE */
  FlameOrientation orientation;
  guint32          zoom;          /* FLAME_TREE_ROOT */
  const char      *search;        /* nullable */
  const char      *title;         /* nullable: a header line */
  const char      *font;          /* nullable: FLAME_PAINTER_DEFAULT_FONT */
} FlameExportOptions;

void             flame_export_options_init (FlameExportOptions       *options);
FlameLayout     *flame_export_layout       (FlameLayoutSource        *source,
                                            const FlameExportOptions *options);
cairo_surface_t *flame_export_image        (FlameLayoutSource        *source,
                                            const FlameExportOptions *options,
                                            FlameLayout             **layout_out,
                                            gdouble                  *graph_y);
gboolean         flame_export_png          (FlameLayoutSource        *source,
                                            const FlameExportOptions *options,
                                            const char               *path,
                                            GError                  **error);
void             flame_export_svg_string   (FlameLayoutSource        *source,
                                            const FlameExportOptions *options,
                                            GString                  *out);
gboolean         flame_export_svg          (FlameLayoutSource        *source,
                                            const FlameExportOptions *options,
                                            const char               *path,
                                            GError                  **error);
void             flame_xml_escape          (GString                  *out,
                                            const char               *text);

G_END_DECLS

/* flame-graph-view.h: the differential flame graph widget.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "flame-layout.h"
#include "flame-palette.h"
#include "flame-graph-enums.h"

G_BEGIN_DECLS

/* Which colours the graph uses. AUTO follows the desktop (AdwStyleManager:
 * dark and high contrast) live; HIGH_CONTRAST picks the light or dark
 * high-contrast palette from the desktop's dark setting. */
typedef enum
{
  FLAME_GRAPH_PALETTE_AUTO,
  FLAME_GRAPH_PALETTE_LIGHT,
  FLAME_GRAPH_PALETTE_DARK,
  FLAME_GRAPH_PALETTE_HIGH_CONTRAST,
} FlameGraphPalette;

#define FLAME_TYPE_GRAPH_VIEW    (flame_graph_view_get_type ())

G_DECLARE_FINAL_TYPE (FlameGraphView, flame_graph_view, FLAME, GRAPH_VIEW, GtkWidget)

GtkWidget         *flame_graph_view_new                (void);

FlameLayoutSource *flame_graph_view_get_source         (FlameGraphView    *self);
void               flame_graph_view_set_source         (FlameGraphView    *self,
                                                        FlameLayoutSource *source);
FlameOrientation   flame_graph_view_get_orientation    (FlameGraphView    *self);
void               flame_graph_view_set_orientation    (FlameGraphView    *self,
                                                        FlameOrientation   orientation);
FlameGraphPalette  flame_graph_view_get_palette_style  (FlameGraphView    *self);
void               flame_graph_view_set_palette_style  (FlameGraphView    *self,
                                                        FlameGraphPalette  style);
const FlamePalette *flame_graph_view_get_palette       (FlameGraphView    *self);
gboolean           flame_graph_view_get_show_legend    (FlameGraphView    *self);
void               flame_graph_view_set_show_legend    (FlameGraphView    *self,
                                                        gboolean           show_legend);

guint32            flame_graph_view_get_zoom_node      (FlameGraphView    *self);
void               flame_graph_view_zoom_to            (FlameGraphView    *self,
                                                        guint32            node);
void               flame_graph_view_zoom_out           (FlameGraphView    *self);
void               flame_graph_view_reset_zoom         (FlameGraphView    *self);

guint32            flame_graph_view_get_selected_node  (FlameGraphView    *self);
void               flame_graph_view_set_selected_node  (FlameGraphView    *self,
                                                        guint32            node);
void               flame_graph_view_highlight_function (FlameGraphView    *self,
                                                        guint32            frame);
guint32            flame_graph_view_get_node_at        (FlameGraphView    *self,
                                                        gdouble            x,
                                                        gdouble            y);

void               flame_graph_view_set_search_text    (FlameGraphView    *self,
                                                        const char        *text);
void               flame_graph_view_set_search_regex   (FlameGraphView    *self,
                                                        gboolean           regex);
gboolean           flame_graph_view_get_search_valid   (FlameGraphView    *self);
guint              flame_graph_view_get_n_matches      (FlameGraphView    *self);
void               flame_graph_view_get_match_totals   (FlameGraphView    *self,
                                                        gdouble           *current_ms,
                                                        gdouble           *baseline_ms);
void               flame_graph_view_next_match         (FlameGraphView    *self);
void               flame_graph_view_previous_match     (FlameGraphView    *self);

GdkTexture        *flame_graph_view_render_texture     (FlameGraphView    *self);

G_END_DECLS

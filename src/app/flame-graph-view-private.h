/* flame-graph-view-private.h: entry points the tests drive directly.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-graph-view.h"

G_BEGIN_DECLS

/* What the pointer controllers do, callable without synthesising
 * events: hover at a point (-1, -1: pointer left), the tooltip text at a
 * point (what "query-tooltip" shows), a click. */
void         _flame_graph_view_hover           (FlameGraphView *self,
                                                gdouble         x,
                                                gdouble         y);
char        *_flame_graph_view_tooltip_text_at (FlameGraphView *self,
                                                gdouble         x,
                                                gdouble         y);
void         _flame_graph_view_click           (FlameGraphView *self,
                                                gdouble         x,
                                                gdouble         y);
/* The current layout and where its frame @i is in widget coordinates. */
FlameLayout *_flame_graph_view_get_layout      (FlameGraphView *self);
gboolean     _flame_graph_view_frame_bounds    (FlameGraphView *self,
                                                guint           i,
                                                graphene_rect_t *bounds);
/* The accessible label last set (GTK 4.8 has no getter). */
const char  *_flame_graph_view_get_a11y_label  (FlameGraphView *self);
guint        _flame_graph_view_get_paint_count (FlameGraphView *self);

G_END_DECLS

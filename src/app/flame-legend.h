/* flame-legend.h: a one-row colour key under a FlameGraphView.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "flame-graph-view.h"

G_BEGIN_DECLS

#define FLAME_TYPE_LEGEND (flame_legend_get_type ())

G_DECLARE_FINAL_TYPE (FlameLegend, flame_legend, FLAME, LEGEND, GtkBox)

void            flame_legend_set_view    (FlameLegend    *self,
                                          FlameGraphView *view);
const char     *flame_legend_get_summary (FlameLegend    *self);
const char     *flame_legend_get_summary_tooltip (FlameLegend *self);
guint           flame_legend_get_n_swatches (FlameLegend *self);

G_END_DECLS

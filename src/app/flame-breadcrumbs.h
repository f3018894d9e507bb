/* flame-breadcrumbs.h: the path from the root to a FlameGraphView's zoom.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "flame-graph-view.h"

G_BEGIN_DECLS

#define FLAME_TYPE_BREADCRUMBS (flame_breadcrumbs_get_type ())

G_DECLARE_FINAL_TYPE (FlameBreadcrumbs, flame_breadcrumbs, FLAME, BREADCRUMBS, GtkBox)

GtkWidget      *flame_breadcrumbs_new      (FlameGraphView   *view);
void            flame_breadcrumbs_set_view (FlameBreadcrumbs *self,
                                            FlameGraphView   *view);

G_END_DECLS

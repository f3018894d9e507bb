/* flame-changes-panel.h: the "Top Changes" table of a comparison.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "flame-comparison.h"

G_BEGIN_DECLS

#define FLAME_TYPE_CHANGES_PANEL (flame_changes_panel_get_type ())

G_DECLARE_FINAL_TYPE (FlameChangesPanel, flame_changes_panel, FLAME, CHANGES_PANEL, GtkWidget)

void             flame_changes_panel_set_comparison        (FlameChangesPanel *self,
                                                            FlameComparison   *comparison);
guint32          flame_changes_panel_get_selected_function (FlameChangesPanel *self);
gboolean         flame_changes_panel_get_compact           (FlameChangesPanel *self);
void             flame_changes_panel_set_compact           (FlameChangesPanel *self,
                                                            gboolean           compact);

G_END_DECLS

/* flame-summary-bar.h: the line above the graph: files, scale, totals.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "flame-comparison.h"

G_BEGIN_DECLS

#define FLAME_TYPE_SUMMARY_BAR (flame_summary_bar_get_type ())

G_DECLARE_FINAL_TYPE (FlameSummaryBar, flame_summary_bar, FLAME, SUMMARY_BAR, GtkWidget)

void             flame_summary_bar_set_comparison  (FlameSummaryBar *self,
                                                    FlameComparison *comparison);
const char      *flame_summary_bar_get_sample_type (FlameSummaryBar *self);
void             flame_summary_bar_set_sample_type (FlameSummaryBar *self,
                                                    const char      *sample_type);
const char      *flame_summary_bar_get_title       (FlameSummaryBar *self);
void             flame_summary_bar_set_stacked     (FlameSummaryBar *self,
                                                    gboolean         stacked);

char            *flame_summary_bar_side_label      (GFile           *first,
                                                    guint            n_runs);
char            *flame_summary_bar_sample_type_label (const char    *type);

G_END_DECLS

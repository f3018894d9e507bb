/* flame-tooltip.h: the text shown for a frame (app tooltip, SVG <title>).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-layout.h"

G_BEGIN_DECLS

char *flame_format_fixed         (gdouble            value,
                                  guint              digits);
char *flame_format_difference    (gdouble            diff_ms,
                                  gdouble            diff_pct);
char *flame_format_difference_in (FlameQuantity      quantity,
                                  gdouble            diff,
                                  gdouble            diff_pct);
char *flame_normalization_label  (FlameDiff         *diff);
char *flame_normalization_text   (FlameDiff         *diff);
char *flame_tooltip_text         (FlameLayoutSource *source,
                                  guint32            node,
                                  guint32            zoom);
char *flame_tooltip_text_for_frame (FlameLayout     *layout,
                                  guint              i);

G_END_DECLS

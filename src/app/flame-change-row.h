/* flame-change-row.h: one function of the report, as a list item.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "flame-report.h"

G_BEGIN_DECLS

#define FLAME_TYPE_CHANGE_ROW (flame_change_row_get_type ())

G_DECLARE_FINAL_TYPE (FlameChangeRow, flame_change_row, FLAME, CHANGE_ROW, GObject)

FlameChangeRow *flame_change_row_new          (FlameReport             *report,
                                               const FlameFunctionStat *stat,
                                               FlameMetric              metric);
const char     *flame_change_row_get_name     (FlameChangeRow          *self);
const char     *flame_change_row_get_file     (FlameChangeRow          *self);
guint32         flame_change_row_get_frame    (FlameChangeRow          *self);
FlameStatus     flame_change_row_get_status   (FlameChangeRow          *self);
gdouble         flame_change_row_get_baseline_ms (FlameChangeRow       *self);
gdouble         flame_change_row_get_current_ms  (FlameChangeRow       *self);
gdouble         flame_change_row_get_delta_ms    (FlameChangeRow       *self);
gdouble         flame_change_row_get_delta_pct   (FlameChangeRow       *self);
const char     *flame_status_label            (FlameStatus              status);

G_END_DECLS

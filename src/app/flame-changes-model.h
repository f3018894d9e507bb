/* flame-changes-model.h: the rows of the "Top Changes" table, as a list model.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "flame-comparison.h"

G_BEGIN_DECLS

/* what a row is sorted by: the panel's columns, left to right */
typedef enum
{
  FLAME_CHANGES_KEY_NAME,
  FLAME_CHANGES_KEY_BASELINE,
  FLAME_CHANGES_KEY_CURRENT,
  FLAME_CHANGES_KEY_DELTA,
  FLAME_CHANGES_KEY_DELTA_PCT,
  FLAME_CHANGES_KEY_STATUS,
  FLAME_CHANGES_N_KEYS,
} FlameChangesKey;

typedef struct
{
  FlameChangesKey key;
  gboolean        descending;
} FlameChangesSort;

#define FLAME_TYPE_CHANGES_MODEL (flame_changes_model_get_type ())

G_DECLARE_FINAL_TYPE (FlameChangesModel, flame_changes_model, FLAME, CHANGES_MODEL, GObject)

FlameChangesModel *flame_changes_model_new             (void);
void               flame_changes_model_set_comparison  (FlameChangesModel      *self,
                                                        FlameComparison        *comparison,
                                                        FlameMetric             metric);
void               flame_changes_model_set_sort        (FlameChangesModel      *self,
                                                        const FlameChangesSort *levels,
                                                        guint                   n_levels);
void               flame_changes_model_set_status_mask (FlameChangesModel      *self,
                                                        guint                   mask);
guint              flame_changes_model_find_frame      (FlameChangesModel      *self,
                                                        guint32                 frame);
void               flame_changes_model_show_at_least   (FlameChangesModel      *self,
                                                        guint                   n);
gboolean           flame_changes_model_get_pending     (FlameChangesModel      *self);

G_END_DECLS

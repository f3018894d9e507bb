/* flame-changes-panel-private.h: FlameChangesPanel's instance, shared with the tests.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-changes-panel.h"

G_BEGIN_DECLS

struct _FlameChangesPanel
{
  GtkWidget            parent_instance;

  /* Template widgets */
  GtkDropDown         *filter_dropdown;
  GtkColumnView       *changes_view;
  /* Borrowed: the changes view owns its columns; before's and after's
   * titles name the metric */
  GtkColumnViewColumn *name_column;
  GtkColumnViewColumn *before_column;
  GtkColumnViewColumn *after_column;
  GtkColumnViewColumn *delta_column;
  GtkColumnViewColumn *pct_column;  /* hidden when compact */
  GtkColumnViewColumn *status_column;

  /* Owned references */
  FlameComparison     *comparison;
  GListStore          *changes;
  GtkCustomFilter     *filter;
  GtkSingleSelection  *selection;
  FlameQuantity        quantity;    /* the cells print in the comparison's unit */
  FlameMetric          metric;      /* what before and after hold */
  guint32              selected;    /* frame of the selected row, FLAME_TREE_NONE */
  gboolean             compact;     /* three columns, for a narrow window */
};

G_END_DECLS

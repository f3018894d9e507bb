/* flame-changes-panel-private.h: FlameChangesPanel's instance, shared with the tests.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-changes-model.h"
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
  FlameChangesModel   *changes;
  GtkSingleSelection  *selection;
  FlameQuantity        quantity;    /* the cells print in the comparison's unit */
  FlameMetric          metric;      /* what before and after hold */
  guint32              selected;    /* frame of the selected row, FLAME_TREE_NONE */
  gboolean             compact;     /* three columns, for a narrow window */
  gboolean             resetting;   /* the model replaces its rows */
  int                  pill_width;  /* the widest status pill, 0: not measured yet */

  /* the column view's sort, read from its sorter (probe_sort()) */
  int                  probe_answer;  /* the column whose sorter says "smaller", or -1 */
  guint                probed[6];     /* the columns asked, in order */
  guint                n_probed;
};

gboolean _flame_changes_panel_get_pending (FlameChangesPanel *self);

G_END_DECLS

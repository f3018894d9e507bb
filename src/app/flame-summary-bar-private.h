/* flame-summary-bar-private.h: FlameSummaryBar's instance, shared with the tests.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-summary-bar.h"

G_BEGIN_DECLS

struct _FlameSummaryBar
{
  GtkWidget        parent_instance;

  /* Template widgets */
  GtkLabel        *files_label;
  GtkLabel        *scale_label;
  GtkLabel        *binaries_label;
  GtkLabel        *totals_label;
  GtkLabel        *samples_label;
  GtkLabel        *delta_label;

  /* Owned references */
  FlameComparison *comparison;
  char            *sample_type;   /* the one loaded when the file has several; NULL if not */
  char            *title;         /* the files, as the window's title */
};

G_END_DECLS

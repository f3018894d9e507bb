/* flame-memory.h: the figures of memory recordings (flamediff-cli record
 * --memory) beside a comparison: the peak before and after, and the top
 * allocation sites, in text, Markdown and JSON. Kept apart from the
 * per-function report (flame-report.c), which it follows.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-profile.h"
#include "flame-report.h"

G_BEGIN_DECLS

typedef struct
{
  gdouble allocated_bytes;
  gdouble allocations;
  gdouble peak_bytes;    /* live bytes at the peak */
  gdouble leaked_bytes;  /* still live at exit */
  /* processes whose own peaks peak_bytes adds up (records of several
   * processes carry no common order): above 1, an upper bound of the
   * simultaneous peak. 0 or 1: the peak itself. */
  guint   peak_processes;
} FlameMemoryTotals;

typedef enum
{
  FLAME_MEMORY_TEXT,
  FLAME_MEMORY_MARKDOWN,
} FlameMemoryStyle;

gboolean  flame_memory_get_totals    (FlameProfile            *profile,
                                      FlameMemoryTotals       *totals);
char     *flame_memory_describe      (FlameProfile            *profile);
char     *flame_memory_summary_line  (const FlameMemoryTotals *baseline,
                                      const FlameMemoryTotals *current);
void      flame_memory_write         (const FlameMemoryTotals *baseline,
                                      const FlameMemoryTotals *current,
                                      FlameReport             *report,
                                      FlameQuantity            quantity,
                                      guint                    top_n,
                                      FlameMemoryStyle         style,
                                      GString                 *out);
void      flame_memory_append_json   (const FlameMemoryTotals *baseline,
                                      const FlameMemoryTotals *current,
                                      FlameReport             *report,
                                      FlameQuantity            quantity,
                                      guint                    top_n,
                                      GString                 *json);

G_END_DECLS

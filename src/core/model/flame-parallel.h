/* flame-parallel.h: one loop over profile-sized ranges on every core,
 * text written in parts on every core and taken in order, and the
 * priority of an application's background threads.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint flame_parallel_threads (void);

void flame_parallel_set_background_nice (gint nice);
void flame_parallel_enter_background    (void);

/* Works on [@start, @end) of the loop; the ranges of one loop never overlap */
typedef void (*FlameRangeFunc) (gsize    start,
                                gsize    end,
                                gpointer data);

void flame_parallel_for (gsize          n,
                         gsize          min_per_thread,
                         FlameRangeFunc func,
                         gpointer       data);

/* Writes task @task's text to @out (empty on entry) */
typedef void (*FlameTextTaskFunc) (gsize    task,
                                   GString *out,
                                   gpointer data);
/* Takes a task's text, in task order, on the calling thread */
typedef void (*FlameTextTakeFunc) (GString *text,
                                   gpointer data);

void flame_parallel_text (gsize             n_tasks,
                          FlameTextTaskFunc func,
                          FlameTextTakeFunc take,
                          gpointer          data);

G_END_DECLS

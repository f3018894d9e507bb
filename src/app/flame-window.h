/* flame-window.h: a window comparing two profiles.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FLAME_TYPE_WINDOW (flame_window_get_type ())

G_DECLARE_FINAL_TYPE (FlameWindow, flame_window, FLAME, WINDOW, AdwApplicationWindow)

FlameWindow *flame_window_new            (AdwApplication *application);
void         flame_window_open           (FlameWindow    *self,
                                          GFile          *baseline,
                                          GFile          *current);
void         flame_window_open_runs      (FlameWindow    *self,
                                          GPtrArray      *baseline,
                                          GPtrArray      *current);
void         flame_window_open_files     (FlameWindow    *self,
                                          GFile         **files,
                                          guint           n_files);
void         flame_window_open_example   (FlameWindow    *self);
gboolean     flame_window_is_busy        (FlameWindow    *self);
gboolean     flame_window_is_empty       (FlameWindow    *self);
guint        flame_window_check_interrupted_recordings (FlameWindow *self);
void         flame_window_order_pair     (GFile          *a,
                                          GFile          *b,
                                          GFile         **baseline,
                                          GFile         **current);

G_END_DECLS

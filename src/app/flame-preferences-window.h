/* flame-preferences-window.h: the Preferences window.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FLAME_TYPE_PREFERENCES_WINDOW (flame_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (FlamePreferencesWindow, flame_preferences_window, FLAME, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

GtkWidget *flame_preferences_window_new (GSettings *settings);

G_END_DECLS

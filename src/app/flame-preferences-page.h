/* flame-preferences-page.h: the Preferences, one page.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FLAME_TYPE_PREFERENCES_PAGE (flame_preferences_page_get_type ())

G_DECLARE_FINAL_TYPE (FlamePreferencesPage, flame_preferences_page, FLAME, PREFERENCES_PAGE,
                      AdwPreferencesPage)

GtkWidget *flame_preferences_page_present (GSettings *settings,
                                           GtkWindow *parent);

G_END_DECLS

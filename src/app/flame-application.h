/* flame-application.h: the Flamediff GNOME application.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "flame-window.h"

G_BEGIN_DECLS

#define FLAME_TYPE_APPLICATION (flame_application_get_type ())

G_DECLARE_FINAL_TYPE (FlameApplication, flame_application, FLAME, APPLICATION, AdwApplication)

FlameApplication *flame_application_new           (void);
FlameWindow      *flame_application_new_window    (FlameApplication *self);
char             *flame_application_find_help_html (void);
void              flame_application_open_files    (FlameApplication *self,
                                                   GFile           **files,
                                                   guint             n_files,
                                                   gboolean          new_window);
char             *flame_application_find_example  (const char       *name);
void              flame_application_register_resources (void);

G_END_DECLS

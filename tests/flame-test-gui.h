/* flame-test-gui.h: the application and window the GUI test programs
 * drive, set up the same way for each.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "flame-application.h"
#include "flame-window-private.h"

/* Call after gtk_test_init(). A registered, non-unique application (tests
 * run side by side) and one presented window of @width × @height. */
static inline FlameWindow *
flame_test_gui_start (FlameApplication **app,
                      int                width,
                      int                height)
{
  FlameWindow *window;

  adw_init ();
  /* settled pictures, and no AdwFlap reveal animation: libadwaita 1.2
   * sometimes allocates the flap's children with a width of INT_MIN
   * mid-animation under Xvfb, a warning that gtk_test_init makes fatal */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  *app = flame_application_new ();
  g_application_set_flags (G_APPLICATION (*app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN |
                           G_APPLICATION_HANDLES_COMMAND_LINE);
  g_assert_true (g_application_register (G_APPLICATION (*app), NULL, NULL));
  window = flame_window_new (ADW_APPLICATION (*app));
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

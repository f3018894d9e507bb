/* flame-test-gui.h: the application and window the GUI test programs
 * drive, set up the same way for each.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include <locale.h>
#include <string.h>

#include "flame-application.h"
#include "flame-window-private.h"

static inline void
flame_test_gui_locale_missing (gconstpointer message)
{
  /* CI provides the locale (tools/sid-check.sh generates it): there a
   * missing one is a broken set-up, not a reason to test nothing */
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_test_fail_printf ("%s", (const char *) message);
  else
    g_test_skip ((const char *) message);
}

/* GTK's own frame clock warns "gdk_frame_timings_submitted() called on
 * submitted frame" now and then under Xvfb (GTK 4.24, X11, any test that
 * opens popovers while frames are in flight): GDK's bookkeeping, nothing
 * the app can cause or fix. It stays on stderr; every other warning stays
 * fatal, as gtk_test_init makes it. GDK logs structured, so a writer. */
static inline gboolean
flame_test_gui_is_toolkit_noise (const GLogField *fields,
                                 gsize            n_fields)
{
  const char *domain = NULL;
  const char *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0 && fields[i].length < 0)
        domain = fields[i].value;
      else if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
        message = fields[i].value;
    }
  return g_strcmp0 (domain, "Gdk") == 0 && message != NULL &&
         strstr (message, "gdk_frame_timings_submitted() called on submitted frame") != NULL;
}

static inline GLogWriterOutput
flame_test_gui_log_writer (GLogLevelFlags   log_level,
                           const GLogField *fields,
                           gsize            n_fields,
                           gpointer         user_data)
{
  if ((log_level & G_LOG_LEVEL_WARNING) && flame_test_gui_is_toolkit_noise (fields, n_fields))
    return g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/* Instead of gtk_test_init() (call after the locale and environment are
 * set). gtk_test_init switches to en_US.UTF-8 whatever the test asked
 * for; GTK 4.8 carries on in the old locale when en_US.UTF-8 is not
 * installed, newer GTK makes its "Failed to set locale" warning fatal and
 * aborts every test. So: without en_US.UTF-8 on a GTK newer than 4.8, no
 * GTK at all but one test, @path, that says what to install (a skip, a
 * failure under CI=true), and FALSE: return g_test_run () then. Else
 * gtk_test_init and TRUE; set the test's own locale after it
 * (flame_test_set_locale). */
static inline gboolean
flame_test_gui_init (int         *argc,
                     char      ***argv,
                     const char  *path)
{
  locale_t en_us = newlocale (LC_ALL_MASK, "en_US.UTF-8", (locale_t) 0);

  if (en_us != (locale_t) 0)
    freelocale (en_us);
  else if (gtk_get_major_version () > 4 || gtk_get_minor_version () > 8)
    {
      g_test_init (argc, argv, NULL);
      g_test_add_data_func (path, "the en_US.UTF-8 locale is not installed, and gtk_test_init "
                            "of this GTK aborts without it: generate it (Debian: package "
                            "locales, en_US.UTF-8 in /etc/locale.gen, locale-gen)",
                            flame_test_gui_locale_missing);
      return FALSE;
    }
  gtk_test_init (argc, argv, NULL);
  g_log_set_writer_func (flame_test_gui_log_writer, NULL, NULL);
  return TRUE;
}

/* the first widget of @type under @root (itself included), or %NULL */
static inline GtkWidget *
flame_test_gui_find_descendant (GtkWidget *root,
                                GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = flame_test_gui_find_descendant (c, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Call after flame_test_gui_init(). A registered, non-unique application (tests
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

static inline gboolean
flame_test_gui_timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* One pass of the main loop: the first source due is dispatched, after
 * @ms at most */
static inline void
flame_test_gui_iterate (guint ms)
{
  gboolean done = FALSE;
  guint id = g_timeout_add (ms, flame_test_gui_timeout_cb, &done);

  g_main_context_iteration (NULL, TRUE);
  if (!done)
    g_source_remove (id);
}

/* How long a GUI test waits for a condition before it fails: long, for a
 * sanitizer build on a loaded machine; a condition that holds ends the
 * wait at once */
#define FLAME_TEST_GUI_WAIT_S 30

/* Spins the main loop until @cond holds, @seconds at most, then fails
 * the test if it does not: a wait on a condition, never a fixed sleep */
#define flame_test_gui_wait_for_s(cond, seconds)                                \
  G_STMT_START {                                                                \
    gint64 flame_test_end_ = g_get_monotonic_time () +                          \
                             (gint64) (seconds) * G_USEC_PER_SEC;               \
    while (!(cond) && g_get_monotonic_time () < flame_test_end_)                \
      flame_test_gui_iterate (10);                                              \
    if (!(cond))                                                                \
      g_error ("%s:%d: waited %d s in vain for %s", __FILE__, __LINE__,        \
               (int) (seconds), #cond);                                         \
  } G_STMT_END

/* The same, FLAME_TEST_GUI_WAIT_S at most */
#define flame_test_gui_wait_for(cond) flame_test_gui_wait_for_s (cond, FLAME_TEST_GUI_WAIT_S)

/* What @paintable (gtk_widget_paintable_new()) shows now, or NULL before
 * its widget has drawn a frame of @width × @height since it was made */
static inline GskRenderNode *
flame_test_gui_paintable_node (GdkPaintable *paintable,
                               int           width,
                               int           height)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  return gtk_snapshot_free_to_node (snapshot);
}

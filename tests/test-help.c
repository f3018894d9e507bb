/* test-help.c: F1 on a system without a help viewer opens the help pages
 * as HTML in the web browser, and says so plainly when there is neither.
 *
 * The test's own XDG directories hold a stand-in browser (a script that
 * writes the URI it was given to a file) as the default for text/html,
 * and no handler for help: URIs, as on a system without Yelp.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>

#include "flame-test-gui.h"

static char *browser_out;
static FlameApplication *app;
static FlameWindow *window;

static gboolean
wait_for (gboolean (*condition) (gpointer),
          gpointer  data,
          guint     timeout_ms)
{
  gint64 end = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (!condition (data))
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
  return TRUE;
}

static gboolean
browser_was_run (gpointer data)
{
  return g_file_test (browser_out, G_FILE_TEST_IS_REGULAR);
}

/* the alert shown: an AdwAlertDialog (libadwaita >= 1.5, inside a
 * window) or an AdwMessageDialog (a window) */
#if ADW_CHECK_VERSION(1, 5, 0)
#define ALERT_TYPE ADW_TYPE_ALERT_DIALOG
#else
#define ALERT_TYPE ADW_TYPE_MESSAGE_DIALOG
#endif

static gboolean
message_dialog_shown (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      GtkWidget *alert = flame_test_gui_find_descendant (w, ALERT_TYPE);

      if (alert != NULL && gtk_widget_get_visible (alert))
        {
          *(GtkWidget **) data = alert;
          return TRUE;
        }
    }
  return FALSE;
}

static void
test_html_fallback (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *path = NULL;
  g_autofree char *html = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (app), "help", NULL);

  g_assert_true (wait_for (browser_was_run, NULL, 20000));
  g_assert_true (g_file_get_contents (browser_out, &uri, NULL, NULL));
  g_strstrip (uri);
  g_test_message ("the browser was asked to open “%s”", uri);
  /* %u: a local file may come as a file: URI or as a path */
  path = g_str_has_prefix (uri, "file:") ? g_filename_from_uri (uri, NULL, NULL) : g_strdup (uri);
  g_assert_nonnull (path);
  g_assert_true (g_path_is_absolute (path));
  g_assert_true (g_str_has_suffix (path, G_DIR_SEPARATOR_S "C" G_DIR_SEPARATOR_S "index.html"));
  /* the real pages, built from help/C by yelp-build */
  g_assert_true (g_file_get_contents (path, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "Flamediff"));
  g_assert_nonnull (strstr (html, "compare.html"));
}

static void
test_no_pages (void)
{
  g_autofree char *empty = g_dir_make_tmp ("flamediff-no-help-XXXXXX", NULL);
  GtkWidget *dialog = NULL;

  g_setenv ("FLAMEDIFF_HELP_HTML", empty, TRUE);
  g_remove (browser_out);

  g_action_group_activate_action (G_ACTION_GROUP (app), "help", NULL);

  g_assert_true (wait_for (message_dialog_shown, &dialog, 20000));
#if ADW_CHECK_VERSION(1, 5, 0)
  g_assert_cmpstr (adw_alert_dialog_get_heading (ADW_ALERT_DIALOG (dialog)), ==,
                   "The Help Could Not Be Opened");
  g_assert_nonnull (strstr (adw_alert_dialog_get_body (ADW_ALERT_DIALOG (dialog)),
                            "not installed"));
#else
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "The Help Could Not Be Opened");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)),
                            "not installed"));
#endif
  g_assert_false (g_file_test (browser_out, G_FILE_TEST_EXISTS));

#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_force_close (ADW_DIALOG (dialog));
#else
  gtk_window_destroy (GTK_WINDOW (dialog));
#endif
  g_unsetenv ("FLAMEDIFF_HELP_HTML");
  g_rmdir (empty);
}

/* Before GIO reads them: XDG directories with the stand-in browser. */
static void
set_up_desktop (const char *root)
{
  g_autofree char *data = g_build_filename (root, "data", NULL);
  g_autofree char *apps = g_build_filename (data, "applications", NULL);
  g_autofree char *config = g_build_filename (root, "config", NULL);
  g_autofree char *script = g_build_filename (root, "browser.sh", NULL);
  g_autofree char *script_text = NULL;
  g_autofree char *desktop = NULL;
  g_autofree char *desktop_path = g_build_filename (apps, "flamediff-test-browser.desktop", NULL);
  g_autofree char *mimeapps = g_build_filename (config, "mimeapps.list", NULL);
  g_autofree char *mime_dirs = NULL;

  browser_out = g_build_filename (root, "browser-uri", NULL);
  g_assert_cmpint (g_mkdir_with_parents (apps, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);

  script_text =
    g_strdup_printf ("#!/bin/sh\nprintf '%%s\\n' \"$1\" > '%s.tmp' && mv '%s.tmp' '%s'\n",
                     browser_out, browser_out, browser_out);
  g_assert_true (g_file_set_contents (script, script_text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);

  desktop = g_strdup_printf ("[Desktop Entry]\nType=Application\nName=Test Browser\n"
                             "Exec=%s %%u\nMimeType=text/html;\nNoDisplay=true\n", script);
  g_assert_true (g_file_set_contents (desktop_path, desktop, -1, NULL));
  g_assert_true (g_file_set_contents (mimeapps,
                                      "[Default Applications]\n"
                                      "text/html=flamediff-test-browser.desktop\n", -1, NULL));

  /* only these applications, and the system's MIME database */
  mime_dirs = g_strdup_printf ("%s:/usr/local/share:/usr/share", data);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_DATA_DIRS", mime_dirs, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("XDG_CONFIG_DIRS", config, TRUE);
}

static void
skip_help_viewer (void)
{
  g_test_skip ("a help viewer (Yelp) is installed: F1 has nothing to fall back from");
}

static void
skip_no_display (void)
{
  g_test_skip ("no display: meson runs it under Xvfb (Debian package xvfb)");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *root = g_dir_make_tmp ("flamediff-help-XXXXXX", NULL);
  g_autoptr(GAppInfo) viewer = NULL;
  int status;

  set_up_desktop (root);
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_init (&argc, &argv, NULL);
      g_test_add_func ("/help/no-display", skip_no_display);
      return g_test_run ();
    }
  gtk_test_init (&argc, &argv, NULL);

  viewer = g_app_info_get_default_for_uri_scheme ("help");
  if (viewer != NULL)
    {
      g_test_message ("help: URIs open in %s", g_app_info_get_id (viewer));
      g_test_add_func ("/help/html-fallback", skip_help_viewer);
    }
  else
    {
      window = flame_test_gui_start (&app, 800, 600);
      g_test_add_func ("/help/html-fallback", test_html_fallback);
      g_test_add_func ("/help/no-pages", test_no_pages);
    }

  status = g_test_run ();
  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  g_remove (browser_out);
  return status;
}

/* flame-application.c: the Flamediff GNOME application.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-application.h"
#include "flame-parallel.h"
#include "flame-preferences-page.h"
#include "flame-resources.h"

struct _FlameApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
  GtkCssProvider *dark_css;
  gboolean        dark_added;
};

G_DEFINE_FINAL_TYPE (FlameApplication, flame_application, ADW_TYPE_APPLICATION)

/* added to the nice value of the threads that load and compare */
#define BACKGROUND_NICE 5

void
flame_application_register_resources (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      flame_register_resource ();
      g_once_init_leave (&once, 1);
    }
}

/* The bundled example pair: installed to $datadir/flamediff/examples, or
 * in the source tree when Flamediff runs from its build directory. */
char *
flame_application_find_example (const char *name)
{
  const char *dirs[] = { g_getenv ("FLAMEDIFF_EXAMPLES"), PKGDATADIR "/examples",
                         SOURCE_DATADIR "/examples" };

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = NULL;

      if (dirs[i] == NULL)
        continue;
      path = g_build_filename (dirs[i], name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}

FlameWindow *
flame_application_new_window (FlameApplication *self)
{
  FlameWindow *window = flame_window_new (ADW_APPLICATION (self));

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static FlameWindow *
find_empty_window (FlameApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    if (FLAME_IS_WINDOW (l->data) && flame_window_is_empty (l->data))
      return l->data;
  return NULL;
}

void
flame_application_open_files (FlameApplication *self,
                              GFile           **files,
                              guint             n_files,
                              gboolean          new_window)
{
  FlameWindow *window = new_window ? NULL : find_empty_window (self);

  if (window == NULL)
    window = flame_application_new_window (self);
  gtk_window_present (GTK_WINDOW (window));
  flame_window_open_files (window, files, n_files);
}

static void
flame_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (flame_application_new_window (FLAME_APPLICATION (app)));
  gtk_window_present (window);
}

static void
flame_application_open (GApplication  *app,
                        GFile        **files,
                        gint           n_files,
                        const char    *hint)
{
  flame_application_open_files (FLAME_APPLICATION (app), files, n_files, FALSE);
}

static gint
flame_application_handle_local_options (GApplication *app,
                                        GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("flamediff %s\n", PACKAGE_VERSION);
      return 0;
    }
  return -1;
}

static gint
flame_application_command_line (GApplication            *app,
                                GApplicationCommandLine *cmdline)
{
  FlameApplication *self = FLAME_APPLICATION (app);
  GVariantDict *options = g_application_command_line_get_options_dict (cmdline);
  g_autofree const char **args = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean new_window = g_variant_dict_contains (options, "new-window");

  if (g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &args))
    for (guint i = 0; args[i] != NULL; i++)
      g_ptr_array_add (files, g_application_command_line_create_file_for_arg (cmdline, args[i]));

  /* more than two: repeated runs, split into the sides as when dropped */
  if (files->len > 0)
    flame_application_open_files (self, (GFile **) files->pdata, files->len,
                                  new_window ||
                                    gtk_application_get_windows (GTK_APPLICATION (app)) != NULL);
  else if (new_window)
    flame_application_new_window (self);
  else
    g_application_activate (app);
  return EXIT_SUCCESS;
}

static void
apply_theme (FlameApplication *self)
{
  AdwStyleManager *sm = adw_style_manager_get_default ();
  g_autofree char *theme = g_settings_get_string (self->settings, "theme");

  if (g_strcmp0 (theme, "light") == 0)
    adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_FORCE_LIGHT);
  else if (g_strcmp0 (theme, "dark") == 0)
    adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_FORCE_DARK);
  else
    adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_DEFAULT);
}

/* style-dark.css (in the resource as dark.css) over style.css while the
 * style is dark. AdwApplication would load a resource style-dark.css by
 * itself, but libadwaita 1.8 and later deprecate it with a warning (fatal
 * in the GUI tests), and its replacement, a media query in style.css,
 * needs GTK 4.16: this works from libadwaita 1.2 on. */
static void
update_dark_style (FlameApplication *self)
{
  GdkDisplay *display = gdk_display_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  if (display == NULL || dark == self->dark_added)
    return;
  if (dark)
    gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (self->dark_css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
  else
    gtk_style_context_remove_provider_for_display (display, GTK_STYLE_PROVIDER (self->dark_css));
  self->dark_added = dark;
}

static void
new_window_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  g_assert (G_IS_SIMPLE_ACTION (action));

  flame_application_new_window (user_data);
}

static void
preferences_action (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       user_data)
{
  FlameApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));

  g_assert (G_IS_SIMPLE_ACTION (action));
  g_assert (FLAME_IS_APPLICATION (self));

  flame_preferences_page_present (self->settings, parent);
}

/* The help pages as HTML (help/C/meson.build builds them with
 * yelp-build): installed in $datadir/flamediff/help, or in the build tree
 * when Flamediff runs uninstalled; $FLAMEDIFF_HELP_HTML replaces both.
 * The first of the user's languages that has pages wins. */
char *
flame_application_find_help_html (void)
{
  const char *override = g_getenv ("FLAMEDIFF_HELP_HTML");
  const char *dirs[] = { override != NULL ? override : PKGDATADIR "/help",
                         override != NULL ? NULL : HELP_HTML_BUILDDIR };
  const char * const *languages = g_get_language_names ();

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      if (dirs[i] == NULL)
        continue;
      for (guint l = 0; languages[l] != NULL; l++)
        {
          g_autofree char *path = g_build_filename (dirs[i], languages[l], "index.html", NULL);

          if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            return g_steal_pointer (&path);
        }
    }
  return NULL;
}

/* an AdwAlertDialog over @parent from libadwaita 1.5, an
 * AdwMessageDialog (deprecated there) before */
static void
help_not_shown (GtkWindow  *parent,
                const char *detail)
{
  const char *heading = _("The Help Could Not Be Opened");
  g_autofree char *body =
    g_strdup_printf (_("Neither a help viewer (such as Yelp) nor a web browser "
                       "could show Flamediff’s help. %s"),
                     detail);
#if ADW_CHECK_VERSION(1, 5, 0)
  AdwDialog *dialog = adw_alert_dialog_new (heading, body);

  adw_alert_dialog_add_response (ADW_ALERT_DIALOG (dialog), "close", _("_Close"));
  adw_dialog_present (dialog, GTK_WIDGET (parent));
#else
  GtkWidget *dialog = adw_message_dialog_new (parent, heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
#endif
}

static void
help_html_shown (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autofree char *path = user_data;
  g_autoptr(GError) error = NULL;
  GtkWindow *parent = source != NULL ? GTK_WINDOW (source) : NULL;

  g_assert (G_IS_ASYNC_RESULT (result));

  if (!gtk_show_uri_full_finish (parent, result, &error))
    {
      g_autofree char *detail = g_strdup_printf (_("The pages are in %s."), path);

      g_debug ("Opening %s: %s", path, error->message);
      help_not_shown (parent, detail);
    }
}

static void
help_shown (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GtkWindow *parent = source != NULL ? GTK_WINDOW (source) : NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *uri = NULL;

  g_assert (G_IS_ASYNC_RESULT (result));

  if (gtk_show_uri_full_finish (parent, result, &error))
    return;

  /* No help viewer (Yelp is not installed everywhere, nor in every
   * Flatpak host): the same pages as HTML, in whatever opens web pages. */
  g_debug ("Opening help:flamediff: %s", error->message);
  path = flame_application_find_help_html ();
  if (path == NULL)
    {
      help_not_shown (parent, _("Its pages are not installed either."));
      return;
    }
  uri = g_filename_to_uri (path, NULL, NULL);
  gtk_show_uri_full (parent, uri, GDK_CURRENT_TIME, NULL, help_html_shown, g_steal_pointer (&path));
}

static void
help_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  g_assert (FLAME_IS_APPLICATION (user_data));

  gtk_show_uri_full (parent, "help:flamediff", GDK_CURRENT_TIME, NULL, help_shown, NULL);
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  static const char *developers[] = { "The Flamediff developers", NULL };
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  g_assert (G_IS_SIMPLE_ACTION (action));

#if ADW_CHECK_VERSION(1, 5, 0)
  /* a dialog in the window, which fits narrow ones as a bottom sheet */
  adw_show_about_dialog (GTK_WIDGET (parent),
#else
  adw_show_about_window (parent,
#endif
                         "application-name", _("Flamediff"),
                         "application-icon", APP_ID,
                         "developer-name", _("The Flamediff developers"),
                         "version", PACKAGE_VERSION,
                         "comments", _("Compare two CPU profiles and see where the time went"),
                         "website", "https://github.com/flamediff/flamediff",
                         "issue-url", "https://github.com/flamediff/flamediff/issues",
                         "developers", developers,
                         "copyright", "© 2026 The Flamediff developers",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         /* Translators: your name(s), one per line */
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  g_assert (G_IS_SIMPLE_ACTION (action));

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (user_data)); l;)
    {
      GtkWindow *window = l->data;

      l = l->next;
      gtk_window_close (window);
    }
}

static const GActionEntry app_actions[] = {
  { "new-window", new_window_action },
  { "preferences", preferences_action },
  { "help", help_action },
  { "about", about_action },
  { "quit", quit_action },
};

static void
flame_application_startup (GApplication *app)
{
  FlameApplication *self = FLAME_APPLICATION (app);
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.new-window", { "<Control>n", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "app.help", { "F1", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "win.close", { "<Control>w", NULL } },
    { "win.open-pair", { "<Control>o", NULL } },
    { "win.open-single", { "<Control><Shift>o", NULL } },
    { "win.record", { "<Control>r", NULL } },
    { "win.reload", { "F5", "<Control><Shift>r", NULL } },
    { "win.swap", { "<Control><Shift>x", NULL } },
    { "win.export", { "<Control>e", NULL } },
    { "win.copy-summary", { "<Control><Shift>c", NULL } },
    { "win.find", { "<Control>f", NULL } },
    { "win.next-match", { "<Control>g", NULL } },
    { "win.previous-match", { "<Control><Shift>g", NULL } },
    { "win.show-sidebar", { "F9", NULL } },
    { "win.view('differential')", { "<Alt>1", NULL } },
    { "win.view('elided')", { "<Alt>2", NULL } },
    { "win.inverted", { "<Control>i", NULL } },
    { "win.normalize", { "<Control><Shift>n", NULL } },
    { "win.colour-by-total", { "<Control><Shift>t", NULL } },
    { "win.hide-noise", { "<Control><Shift>h", NULL } },
    { "win.zoom-out", { "<Alt>Up", NULL } },
    { "win.reset-zoom", { "<Control>0", "Home", NULL } },
  };

  G_APPLICATION_CLASS (flame_application_parent_class)->startup (app);
  /* loading, comparing and laying out run a notch below the main loop,
   * which then gets a core when it wakes while they keep both busy */
  flame_parallel_set_background_nice (BACKGROUND_NICE);

  /* here, not in init: `flamediff --version` needs no installed schema */
  self->settings = g_settings_new (APP_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action,
                                           accels[i].accels);

  gtk_window_set_default_icon_name (APP_ID);
  self->dark_css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (self->dark_css, "/io/github/flamediff/Flamediff/dark.css");
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_dark_style), self, G_CONNECT_SWAPPED);
  update_dark_style (self);
  g_signal_connect_object (self->settings, "changed::theme",
                           G_CALLBACK (apply_theme), self, G_CONNECT_SWAPPED);
  apply_theme (self);
}

static void
flame_application_dispose (GObject *object)
{
  FlameApplication *self = FLAME_APPLICATION (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->dark_css);
  G_OBJECT_CLASS (flame_application_parent_class)->dispose (object);
}

static void
flame_application_class_init (FlameApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = flame_application_dispose;
  app_class->startup = flame_application_startup;
  app_class->activate = flame_application_activate;
  app_class->open = flame_application_open;
  app_class->command_line = flame_application_command_line;
  app_class->handle_local_options = flame_application_handle_local_options;
}

static void
flame_application_init (FlameApplication *self)
{
  static const GOptionEntry entries[] = {
    { "new-window", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Open a new window"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and exit"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, N_("[BASELINE] CURRENT") },
    { NULL }
  };

  flame_application_register_resources ();
  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self),
                                                     _("[BASELINE] CURRENT"));
  g_application_set_option_context_summary (
    G_APPLICATION (self), _("Compare two CPU profiles as a differential flame graph.\n"
                            "With one file, show it as a flame graph."));
}

FlameApplication *
flame_application_new (void)
{
  return g_object_new (FLAME_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/io/github/flamediff/Flamediff",
                       NULL);
}

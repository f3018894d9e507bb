/* flame-preferences-page.c: the Preferences, one page. Every row is
 * bound to its GSettings key. The page is the template, so that the same
 * .ui serves both containers: an AdwPreferencesDialog from libadwaita
 * 1.5, a modal AdwPreferencesWindow before.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "flame-preferences-page.h"

struct _FlamePreferencesPage
{
  AdwPreferencesPage    parent_instance;

  /* Template widgets */
  AdwComboRow          *theme_row;
  AdwComboRow          *orientation_row;
  GtkSpinButton        *interval_spin;
  GtkSpinButton        *threshold_spin;
  GtkSpinButton        *min_abs_spin;
  AdwComboRow          *matching_row;
  GtkSwitch            *strip_hex_switch;
  GtkSwitch            *exact_paths_switch;
  GtkSpinButton        *significance_spin;

  /* Owned references */
  GSettings            *settings;
};

/* the dialog's or window's size */
#define PREFERENCES_WIDTH  560
#define PREFERENCES_HEIGHT 640

G_DEFINE_FINAL_TYPE (FlamePreferencesPage, flame_preferences_page, ADW_TYPE_PREFERENCES_PAGE)

/* combo row index <-> enum nick, in the order of the row's model */
static const char *theme_nicks[] = { "follow", "light", "dark", "high-contrast", NULL };
static const char *orientation_nicks[] = { "flame", "icicle", NULL };
static const char *matching_nicks[] = { "name", "name+file", "name+file+line", NULL };

static gboolean
nick_to_index (GValue   *value,
               GVariant *variant,
               gpointer  user_data)
{
  const char **nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i]; i++)
    if (g_strcmp0 (nicks[i], nick) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
index_to_nick (const GValue       *value,
               const GVariantType *expected_type,
               gpointer            user_data)
{
  const char **nicks = user_data;
  guint index = g_value_get_uint (value);

  if (index >= g_strv_length ((char **) nicks))
    return NULL;
  return g_variant_new_string (nicks[index]);
}

static void
bind_combo (FlamePreferencesPage *self,
            const char           *key,
            AdwComboRow          *row,
            const char          **nicks)
{
  g_settings_bind_with_mapping (self->settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                nick_to_index, index_to_nick, (gpointer) nicks, NULL);
}

static void
flame_preferences_page_dispose (GObject *object)
{
  FlamePreferencesPage *self = (FlamePreferencesPage *) object;

  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), FLAME_TYPE_PREFERENCES_PAGE);
  G_OBJECT_CLASS (flame_preferences_page_parent_class)->dispose (object);
}

static void
flame_preferences_page_class_init (FlamePreferencesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = flame_preferences_page_dispose;

  gtk_widget_class_set_template_from_resource (
    widget_class, "/io/github/flamediff/Flamediff/ui/flame-preferences-page.ui");
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, theme_row);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, orientation_row);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, interval_spin);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, threshold_spin);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, min_abs_spin);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, matching_row);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, strip_hex_switch);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, exact_paths_switch);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesPage, significance_spin);
}

static void
flame_preferences_page_init (FlamePreferencesPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* the page, its rows bound to @settings (transfer floating) */
static GtkWidget *
flame_preferences_page_new (GSettings *settings)
{
  FlamePreferencesPage *self = g_object_new (FLAME_TYPE_PREFERENCES_PAGE, NULL);

  self->settings = g_object_ref (settings);
  bind_combo (self, "theme", self->theme_row, theme_nicks);
  bind_combo (self, "orientation", self->orientation_row, orientation_nicks);
  bind_combo (self, "frame-matching", self->matching_row, matching_nicks);
  g_settings_bind (settings, "default-interval-ms", self->interval_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "threshold-pct", self->threshold_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "min-abs-ms", self->min_abs_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "significance-level", self->significance_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "strip-hex", self->strip_hex_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "exact-paths", self->exact_paths_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  return GTK_WIDGET (self);
}

/**
 * flame_preferences_page_present:
 * @settings: the application's settings
 * @parent: (nullable): the window they are opened from
 *
 * Shows the Preferences with a new page: an AdwPreferencesDialog over
 * @parent (libadwaita >= 1.5), or a modal AdwPreferencesWindow.
 *
 * Returns: (transfer none): the dialog or window
 */
GtkWidget *
flame_preferences_page_present (GSettings *settings,
                                GtkWindow *parent)
{
  GtkWidget *page = flame_preferences_page_new (settings);

#if ADW_CHECK_VERSION(1, 5, 0)
  AdwDialog *dialog = adw_preferences_dialog_new ();

  adw_preferences_dialog_set_search_enabled (ADW_PREFERENCES_DIALOG (dialog), FALSE);
  adw_dialog_set_content_width (dialog, PREFERENCES_WIDTH);
  adw_dialog_set_content_height (dialog, PREFERENCES_HEIGHT);
  adw_preferences_dialog_add (ADW_PREFERENCES_DIALOG (dialog), ADW_PREFERENCES_PAGE (page));
  adw_dialog_present (dialog, GTK_WIDGET (parent));
  return GTK_WIDGET (dialog);
#else
  GtkWidget *window = adw_preferences_window_new ();

  adw_preferences_window_set_search_enabled (ADW_PREFERENCES_WINDOW (window), FALSE);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (window), PREFERENCES_WIDTH, PREFERENCES_HEIGHT);
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (window), ADW_PREFERENCES_PAGE (page));
  gtk_window_present (GTK_WINDOW (window));
  return window;
#endif
}

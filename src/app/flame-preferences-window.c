/* flame-preferences-window.c: the Preferences window. Every row is bound
 * to its GSettings key.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "flame-preferences-window.h"

struct _FlamePreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

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

G_DEFINE_FINAL_TYPE (FlamePreferencesWindow, flame_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

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
bind_combo (FlamePreferencesWindow *self,
            const char             *key,
            AdwComboRow            *row,
            const char            **nicks)
{
  g_settings_bind_with_mapping (self->settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                nick_to_index, index_to_nick, (gpointer) nicks, NULL);
}

static void
flame_preferences_window_dispose (GObject *object)
{
  FlamePreferencesWindow *self = (FlamePreferencesWindow *) object;

  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), FLAME_TYPE_PREFERENCES_WINDOW);
  G_OBJECT_CLASS (flame_preferences_window_parent_class)->dispose (object);
}

static void
flame_preferences_window_class_init (FlamePreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = flame_preferences_window_dispose;

  gtk_widget_class_set_template_from_resource (
    widget_class, "/io/github/flamediff/Flamediff/ui/flame-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, theme_row);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, orientation_row);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, interval_spin);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, threshold_spin);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, min_abs_spin);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, matching_row);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, strip_hex_switch);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, exact_paths_switch);
  gtk_widget_class_bind_template_child (widget_class, FlamePreferencesWindow, significance_spin);
}

static void
flame_preferences_window_init (FlamePreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
flame_preferences_window_new (GSettings *settings)
{
  FlamePreferencesWindow *self = g_object_new (FLAME_TYPE_PREFERENCES_WINDOW, NULL);

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

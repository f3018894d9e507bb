/* flame-window-recent.c: recent comparisons (GtkRecentManager) and the
 * menus that list them.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "flame-window-private.h"

#define MAX_RECENT 8
#define RECENT_GROUP "flamediff"
#define RECENT_SINGLE_GROUP "flamediff-single"
#define RECENT_BASELINE_PREFIX "flamediff-baseline:"

/* Recent comparisons: both files go to GtkRecentManager; the current
 * file's entry names its baseline in a group. */

void
_flame_window_add_to_recent (FlameWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  g_autofree char *base_uri = g_file_get_uri (self->files[0]);
  g_autofree char *pair_group = NULL;
  const char *groups_single[] = { RECENT_GROUP, RECENT_SINGLE_GROUP, NULL };
  const char *groups_base[] = { RECENT_GROUP, NULL };
  const char *groups_pair[] = { RECENT_GROUP, NULL, NULL };
  GtkRecentData data = {
    .display_name = NULL,
    .mime_type = (char *) "text/plain",
    .app_name = (char *) "Flamediff",
    .app_exec = (char *) "flamediff %u",
  };

  g_assert (FLAME_IS_WINDOW (self));
  g_assert (G_IS_FILE (self->files[0]));

  if (self->files[1] == NULL)
    {
      data.groups = (char **) groups_single;
      gtk_recent_manager_add_full (manager, base_uri, &data);
      return;
    }
  data.groups = (char **) groups_base;
  gtk_recent_manager_add_full (manager, base_uri, &data);
  pair_group = g_strconcat (RECENT_BASELINE_PREFIX, base_uri, NULL);
  groups_pair[1] = pair_group;
  data.groups = (char **) groups_pair;
  {
    g_autofree char *cur_uri = g_file_get_uri (self->files[1]);

    gtk_recent_manager_add_full (manager, cur_uri, &data);
  }
}

static gint
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *tb = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);

  return g_date_time_compare (tb, ta);
}

void
_flame_window_rebuild_recent_menu (FlameWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  guint shown = 0;

  g_assert (FLAME_IS_WINDOW (self));

  g_menu_remove_all (self->recent_menu);
  g_menu_remove_all (self->open_recent_section);

  for (GList *l = items; l; l = l->next)
    if (gtk_recent_info_has_group (l->data, RECENT_GROUP))
      g_ptr_array_add (sorted, l->data);
  g_ptr_array_sort (sorted, compare_recent);

  for (guint i = 0; i < sorted->len && shown < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = sorted->pdata[i];
      g_auto(GStrv) groups = gtk_recent_info_get_groups (info, NULL);
      const char *base_uri = NULL;
      g_autoptr(GFile) cur = g_file_new_for_uri (gtk_recent_info_get_uri (info));
      g_autoptr(GFile) base = NULL;
      g_autofree char *cur_name = g_file_get_basename (cur);
      g_autofree char *label = NULL;
      g_autoptr(GMenuItem) item = NULL;
      GVariantBuilder b;

      for (guint g = 0; groups[g]; g++)
        if (g_str_has_prefix (groups[g], RECENT_BASELINE_PREFIX))
          base_uri = groups[g] + strlen (RECENT_BASELINE_PREFIX);
      g_variant_builder_init (&b, G_VARIANT_TYPE_STRING_ARRAY);
      if (base_uri != NULL)
        {
          g_autofree char *base_name = NULL;

          base = g_file_new_for_uri (base_uri);
          base_name = g_file_get_basename (base);
          label = g_strdup_printf (_("%s → %s"), base_name, cur_name);
          g_variant_builder_add (&b, "s", base_uri);
        }
      else if (gtk_recent_info_has_group (info, RECENT_SINGLE_GROUP))
        label = g_strdup (cur_name);
      else
        continue;
      g_variant_builder_add (&b, "s", gtk_recent_info_get_uri (info));

      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_builder_end (&b));
      g_menu_append_item (self->recent_menu, item);
      g_menu_append_item (self->open_recent_section, item);
      shown++;
    }
  if (shown == 0)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_("No Recent Comparisons"), "win.none");

      g_menu_append_item (self->recent_menu, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

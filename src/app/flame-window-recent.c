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
#define RECENT_RUNS_PREFIX "flamediff-runs:"

/* Recent comparisons: both files go to GtkRecentManager; the current
 * file's entry names its baseline in a group. A comparison of repeated
 * runs (issue 14) names every run in one group instead, "flamediff-runs:"
 * then the baseline's URIs, "|", the current side's, separated by spaces
 * (which URIs escape), on the entry of its first current run. */

/* the "flamediff-runs:" group of the window's comparison, or NULL when it
 * has one run a side or a run without a file */
static char *
runs_group (FlameWindow *self)
{
  g_autoptr(GString) group = g_string_new (RECENT_RUNS_PREFIX);

  if (self->comparison == NULL ||
      (flame_comparison_get_n_runs (self->comparison, FLAME_DIFF_BASELINE) < 2 &&
       flame_comparison_get_n_runs (self->comparison, FLAME_DIFF_CURRENT) < 2) ||
      flame_comparison_get_n_runs (self->comparison, FLAME_DIFF_CURRENT) == 0)
    return NULL;
  for (guint side = 0; side < 2; side++)
    {
      if (side == FLAME_DIFF_CURRENT)
        g_string_append (group, " |");
      for (guint i = 0; i < flame_comparison_get_n_runs (self->comparison, side); i++)
        {
          GFile *file = flame_comparison_get_run_file (self->comparison, side, i);
          g_autofree char *uri = file ? g_file_get_uri (file) : NULL;

          if (uri == NULL)
            return NULL;
          g_string_append_printf (group, "%s%s", group->str[group->len - 1] == ':' ? "" : " ", uri);
        }
    }
  return g_string_free (g_steal_pointer (&group), FALSE);
}

/* GTK 4 (4.8 to 4.24 at least) checks ((char *) data->groups)[0], the
 * lowest byte of the first group's address, where it means the first
 * group's first character: when that address ends in 0x00, every group
 * is dropped. Where that happens depends on how the binary is laid out
 * (it did in the AddressSanitizer build, then in the normal one after an
 * unrelated change), so the first group is copied into @buf at an
 * address that does not end so. */
static const char *
first_group (char       *buf,
             gsize       size,
             const char *group)
{
  gsize len = strlen (group) + 1;
  char *p = ((guintptr) buf & 0xff) == 0 ? buf + 1 : buf;

  g_assert (len + 1 <= size);
  memcpy (p, group, len);
  return p;
}

void
_flame_window_add_to_recent (FlameWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  g_autofree char *base_uri = g_file_get_uri (self->files[0]);
  g_autofree char *pair_group = NULL;
  char group_buf[sizeof RECENT_GROUP + 1];
  const char *group = first_group (group_buf, sizeof group_buf, RECENT_GROUP);
  const char *groups_single[] = { group, RECENT_SINGLE_GROUP, NULL };
  const char *groups_base[] = { group, NULL };
  const char *groups_pair[] = { group, NULL, NULL };
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
  pair_group = runs_group (self);
  if (pair_group == NULL)
    pair_group = g_strconcat (RECENT_BASELINE_PREFIX, base_uri, NULL);
  groups_pair[1] = pair_group;
  data.groups = (char **) groups_pair;
  {
    g_autofree char *cur_uri = g_file_get_uri (self->files[1]);

    /* adding keeps the groups the entry had: only this comparison's */
    gtk_recent_manager_remove_item (manager, cur_uri, NULL);
    gtk_recent_manager_add_full (manager, cur_uri, &data);
  }
}

/* the runs of a "flamediff-runs:" group into @b ("", then the current
 * side's), and its label; FALSE if it is not one */
static gboolean
parse_runs_group (const char      *group,
                  GVariantBuilder *b,
                  char           **label)
{
  g_auto(GStrv) words = NULL;
  guint n[2] = { 0, 0 };
  const char *first[2] = { NULL, NULL };
  guint side = 0;

  if (!g_str_has_prefix (group, RECENT_RUNS_PREFIX))
    return FALSE;
  words = g_strsplit (group + strlen (RECENT_RUNS_PREFIX), " ", -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (g_str_equal (words[i], "|"))
      side = 1;
    else if (*words[i] != '\0')
      {
        if (first[side] == NULL)
          first[side] = words[i];
        n[side]++;
      }
  if (n[0] == 0 || n[1] == 0)
    return FALSE;
  side = 0;
  for (guint i = 0; words[i] != NULL; i++)
    if (g_str_equal (words[i], "|"))
      g_variant_builder_add (b, "s", "");
    else if (*words[i] != '\0')
      g_variant_builder_add (b, "s", words[i]);
  {
    g_autoptr(GFile) fb = g_file_new_for_uri (first[0]);
    g_autoptr(GFile) fc = g_file_new_for_uri (first[1]);
    g_autofree char *lb = flame_summary_bar_side_label (fb, n[0]);
    g_autofree char *lc = flame_summary_bar_side_label (fc, n[1]);

    *label = g_strdup_printf (_("%s → %s"), lb, lc);
  }
  return TRUE;
}

static gint
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *tb = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);

  return g_date_time_compare (tb, ta);
}

/* one comparison the Recent menu lists */
typedef struct
{
  char     *label;
  char     *folder;   /* the current file's folder, "~/proj-a" */
  GVariant *target;   /* the URIs: win.open-recent's parameter */
} RecentEntry;

static void
recent_entry_clear (RecentEntry *e)
{
  g_free (e->label);
  g_free (e->folder);
  g_clear_pointer (&e->target, g_variant_unref);
}

/* @file's folder as people write it: "~/proj-a" under the home folder */
static char *
folder_of (GFile *file)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
  g_autofree char *rel = NULL;

  if (parent == NULL)
    return g_strdup ("/");
  if (g_file_equal (parent, home))
    return g_strdup ("~");
  rel = g_file_get_relative_path (home, parent);
  if (rel != NULL)
    return g_strconcat ("~/", rel, NULL);
  return g_file_get_parse_name (parent);
}

/* TRUE when every URI of @target names a file that is still there (a
 * local stat each: the menu holds at most MAX_RECENT entries) */
static gboolean
target_exists (GVariant *target)
{
  g_autofree const char **uris = g_variant_get_strv (target, NULL);

  for (guint i = 0; uris[i] != NULL; i++)
    if (*uris[i] != '\0')
      {
        g_autoptr(GFile) file = g_file_new_for_uri (uris[i]);

        if (!g_file_query_exists (file, NULL))
          return FALSE;
      }
  return TRUE;
}

void
_flame_window_rebuild_recent_menu (FlameWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) entries = g_array_new (FALSE, TRUE, sizeof (RecentEntry));

  g_assert (FLAME_IS_WINDOW (self));

  g_array_set_clear_func (entries, (GDestroyNotify) recent_entry_clear);
  g_menu_remove_all (self->recent_menu);
  g_menu_remove_all (self->open_recent_section);

  for (GList *l = items; l; l = l->next)
    if (gtk_recent_info_has_group (l->data, RECENT_GROUP))
      g_ptr_array_add (sorted, l->data);
  g_ptr_array_sort (sorted, compare_recent);

  for (guint i = 0; i < sorted->len && entries->len < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = sorted->pdata[i];
      g_auto(GStrv) groups = gtk_recent_info_get_groups (info, NULL);
      const char *base_uri = NULL;
      const char *runs = NULL;
      g_autoptr(GFile) cur = g_file_new_for_uri (gtk_recent_info_get_uri (info));
      g_autofree char *cur_name = g_file_get_basename (cur);
      RecentEntry e = { NULL, NULL, NULL };
      GVariantBuilder b;

      for (guint g = 0; groups[g]; g++)
        if (g_str_has_prefix (groups[g], RECENT_BASELINE_PREFIX))
          base_uri = groups[g] + strlen (RECENT_BASELINE_PREFIX);
        else if (g_str_has_prefix (groups[g], RECENT_RUNS_PREFIX))
          runs = groups[g];
      g_variant_builder_init (&b, G_VARIANT_TYPE_STRING_ARRAY);
      /* the baseline's runs, "", the current runs: all added there */
      if (runs == NULL || !parse_runs_group (runs, &b, &e.label))
        {
          if (base_uri != NULL)
            {
              g_autoptr(GFile) base = g_file_new_for_uri (base_uri);
              g_autofree char *base_name = g_file_get_basename (base);

              e.label = g_strdup_printf (_("%s → %s"), base_name, cur_name);
              g_variant_builder_add (&b, "s", base_uri);
            }
          else if (gtk_recent_info_has_group (info, RECENT_SINGLE_GROUP))
            e.label = g_strdup (cur_name);
          else
            {
              g_variant_builder_clear (&b);
              continue;
            }
          g_variant_builder_add (&b, "s", gtk_recent_info_get_uri (info));
        }
      e.target = g_variant_ref_sink (g_variant_builder_end (&b));
      /* a comparison whose files were moved or deleted cannot be opened:
       * forget it rather than fail when it is picked */
      if (!target_exists (e.target))
        {
          g_ptr_array_add (gone, g_strdup (gtk_recent_info_get_uri (info)));
          recent_entry_clear (&e);
          continue;
        }
      e.folder = folder_of (cur);
      g_array_append_val (entries, e);
    }

  for (guint i = 0; i < entries->len; i++)
    {
      RecentEntry *e = &g_array_index (entries, RecentEntry, i);
      g_autoptr(GMenuItem) item = NULL;
      g_autofree char *label = NULL;
      gboolean twin = FALSE;

      /* menu items have no tooltips: entries that would read the same
       * (one pair in two checkouts) name their folders */
      for (guint j = 0; j < entries->len && !twin; j++)
        twin = j != i && g_str_equal (e->label, g_array_index (entries, RecentEntry, j).label);
      if (twin)
        /* Translators: a recent comparison ("a.folded → b.folded"), then the folder of its files */
        label = g_strdup_printf (_("%s — in %s"), e->label, e->folder);
      item = g_menu_item_new (label ? label : e->label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", e->target);
      g_menu_append_item (self->recent_menu, item);
      g_menu_append_item (self->open_recent_section, item);
    }
  if (entries->len == 0)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_("No Recent Comparisons"), "win.none");

      g_menu_append_item (self->recent_menu, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  /* last: removing emits "changed", which builds the menu again */
  for (guint i = 0; i < gone->len; i++)
    gtk_recent_manager_remove_item (manager, g_ptr_array_index (gone, i), NULL);
}

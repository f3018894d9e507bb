/* flame-window-open.c: which files are opened, and which is which side:
 * one file, a pair (by name, else by age), sets of runs (by name, else by
 * folder), folders of runs, the bundled example.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "flame-application.h"
#include "flame-error-text.h"
#include "flame-window-private.h"

/* the profiles in @folder, as GFiles; NULL and a banner when none */
static GPtrArray *
list_folder_runs (FlameWindow *self,
                  GFile       *folder)
{
  g_autofree char *path = g_file_get_path (folder);
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *files;

  g_assert (FLAME_IS_WINDOW (self));
  g_assert (G_IS_FILE (folder));

  if (path != NULL)
    paths = flame_comparison_list_runs (path, NULL, &error);
  if (paths == NULL)
    {
      g_autofree char *message = NULL;

      if (error != NULL)
        message = flame_error_text (error, _("Could not open the profile"));
      else
        message = g_strdup_printf (_("Could not open the profile: %s"),
                                   _("only local folders can be read"));

      _flame_window_show_error (self, message);
      return NULL;
    }
  files = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (files, g_file_new_for_path (g_ptr_array_index (paths, i)));
  return files;
}

static gboolean
is_folder (GFile *file)
{
  return g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY;
}

/* @files with each folder replaced by the profiles inside it (sorted by
 * name); NULL, and a banner, when a folder holds none */
GPtrArray *
_flame_window_expand_runs (FlameWindow *self,
                           GPtrArray   *files)
{
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; files != NULL && i < files->len; i++)
    {
      GFile *file = g_ptr_array_index (files, i);
      g_autoptr(GPtrArray) inside = NULL;

      if (!is_folder (file))
        {
          g_ptr_array_add (runs, g_object_ref (file));
          continue;
        }
      inside = list_folder_runs (self, file);
      if (inside == NULL)
        return NULL;
      for (guint k = 0; k < inside->len; k++)
        g_ptr_array_add (runs, g_object_ref (g_ptr_array_index (inside, k)));
    }
  return g_steal_pointer (&runs);
}

/* a word of the name before its first dot: "baseline.folded",
 * "app-before.perf", "old_run.folded" (not "folded", which holds "old") */
static gboolean
name_says_baseline (GFile *file)
{
  static const char *words[] = { "baseline", "before", "base", "old", "orig", "original",
                                 "reference", "ref" };
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *lower = g_utf8_strdown (name, -1);
  g_auto(GStrv) tokens = NULL;
  char *dot = strchr (lower, '.');

  if (dot != NULL && dot != lower)
    *dot = 0;
  tokens = g_regex_split_simple ("[^[:alnum:]]+", lower, 0, 0);
  for (guint t = 0; tokens[t]; t++)
    for (guint i = 0; i < G_N_ELEMENTS (words); i++)
      if (g_str_equal (tokens[t], words[i]))
        return TRUE;
  return FALSE;
}

static guint64
modified_time (GFile *file)
{
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                                 G_FILE_QUERY_INFO_NONE, NULL, NULL);

  return info ? g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED) : 0;
}

/**
 * flame_window_order_pair:
 *
 * Which of two files is the baseline: the one named baseline/before (or
 * base, old, orig), else the older one, else the order given.
 */
void
flame_window_order_pair (GFile  *a,
                         GFile  *b,
                         GFile **baseline,
                         GFile **current)
{
  gboolean swap = FALSE;
  gboolean a_base = name_says_baseline (a);
  gboolean b_base = name_says_baseline (b);

  if (a_base != b_base)
    swap = b_base;
  else
    swap = modified_time (b) < modified_time (a);
  *baseline = swap ? b : a;
  *current = swap ? a : b;
}

/* Several files dropped or given at once, split into the two sides:
 * those named baseline/before (name_says_baseline) against the others,
 * else by the two folders they come from (ordered as a pair). FALSE when
 * neither tells the sides apart. */
static gboolean
split_runs (GFile      **files,
            guint        n_files,
            GPtrArray  **baseline,
            GPtrArray  **current)
{
  g_autoptr(GPtrArray) named = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) others = g_ptr_array_new_with_free_func (g_object_unref);
  GFile *dirs[2] = { NULL, NULL };   /* borrowed from parents */
  g_autoptr(GPtrArray) parents = g_ptr_array_new_with_free_func (g_object_unref);
  GFile *base, *cur;

  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (name_says_baseline (files[i]) ? named : others, g_object_ref (files[i]));
  if (named->len > 0 && others->len > 0)
    {
      *baseline = g_steal_pointer (&named);
      *current = g_steal_pointer (&others);
      return TRUE;
    }
  g_ptr_array_set_size (named, 0);
  g_ptr_array_set_size (others, 0);
  for (guint i = 0; i < n_files; i++)
    {
      GFile *parent = g_file_get_parent (files[i]);
      guint d;

      if (parent == NULL)
        return FALSE;
      g_ptr_array_add (parents, parent);
      for (d = 0; d < 2 && dirs[d] != NULL && !g_file_equal (dirs[d], parent); d++)
        ;
      if (d == 2)
        return FALSE;   /* a third folder */
      if (dirs[d] == NULL)
        dirs[d] = parent;
      g_ptr_array_add (d == 0 ? named : others, g_object_ref (files[i]));
    }
  if (dirs[1] == NULL)
    return FALSE;
  flame_window_order_pair (dirs[0], dirs[1], &base, &cur);
  *baseline = base == dirs[0] ? g_steal_pointer (&named) : g_steal_pointer (&others);
  *current = base == dirs[0] ? g_steal_pointer (&others) : g_steal_pointer (&named);
  return TRUE;
}

void
flame_window_open_files (FlameWindow  *self,
                         GFile       **files,
                         guint         n_files)
{
  g_return_if_fail (FLAME_IS_WINDOW (self));

  if (n_files == 0)
    return;
  for (guint i = 0; i < n_files; i++)
    if (is_folder (files[i]))
      {
        GFile *base, *cur;
        g_autoptr(GPtrArray) base_runs = g_ptr_array_new_with_free_func (g_object_unref);
        g_autoptr(GPtrArray) cur_runs = g_ptr_array_new_with_free_func (g_object_unref);

        /* a folder is a side: every profile inside is one of its runs */
        if (n_files != 2)
          {
            _flame_window_show_error (
              self, _("Open two folders: the baseline’s runs and the current runs"));
            return;
          }
        flame_window_order_pair (files[0], files[1], &base, &cur);
        g_ptr_array_add (base_runs, g_object_ref (base));
        g_ptr_array_add (cur_runs, g_object_ref (cur));
        flame_window_open_runs (self, base_runs, cur_runs);
        return;
      }
  if (n_files == 1)
    flame_window_open (self, files[0], NULL);
  else if (n_files == 2)
    {
      GFile *base, *cur;

      flame_window_order_pair (files[0], files[1], &base, &cur);
      flame_window_open (self, base, cur);
    }
  else
    {
      g_autoptr(GPtrArray) base_runs = NULL;
      g_autoptr(GPtrArray) cur_runs = NULL;
      GFile *base, *cur;

      /* repeated runs of each side */
      if (split_runs (files, n_files, &base_runs, &cur_runs))
        {
          flame_window_open_runs (self, base_runs, cur_runs);
          return;
        }
      flame_window_order_pair (files[0], files[1], &base, &cur);
      flame_window_open (self, base, cur);
      adw_toast_overlay_add_toast (self->toast_overlay,
                                   adw_toast_new (_("Only the first two files were opened: "
                                                    "name the baseline’s runs “before” or "
                                                    "“baseline”, or drop them from two folders, "
                                                    "to compare runs")));
    }
}

void
flame_window_open_example (FlameWindow *self)
{
  g_autofree char *base = flame_application_find_example ("baseline.folded");
  g_autofree char *cur = flame_application_find_example ("current.folded");
  g_autoptr(GFile) fb = NULL;
  g_autoptr(GFile) fc = NULL;

  if (base == NULL || cur == NULL)
    {
      _flame_window_show_error (self, _("The example profiles are not installed"));
      return;
    }
  fb = g_file_new_for_path (base);
  fc = g_file_new_for_path (cur);
  flame_window_open (self, fb, fc);
}

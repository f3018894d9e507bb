/* flame-provenance.c: which recorded binaries changed between the
 * baseline and the current profile.
 *
 * Recordings made by Flamediff's recorder carry every loaded module's
 * GNU build-id as "path=hex;path=hex…" in their "build_ids" metadata
 * (docs/recording.md). Two runs of one program whose main binary's
 * build-id differs were made with different code, which is what a
 * reader of a comparison wants to know before believing a regression
 * (or to confirm that the rebuild they made is the one measured).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-file-match.h"
#include "flame-provenance.h"

/**
 * flame_build_ids_parse:
 * @text: "path=hex;path=hex…" (the recorder's "build_ids" metadata)
 *
 * Returns: (transfer full): path → build-id. Entries without "=" or with
 * an empty path or id are skipped. The path is cut at the last "=", so a
 * path containing "=" still parses (a build-id never contains one).
 */
GHashTable *
flame_build_ids_parse (const char *text)
{
  GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) entries = NULL;

  if (text == NULL)
    return ids;
  entries = g_strsplit (text, ";", -1);
  for (guint i = 0; entries[i] != NULL; i++)
    {
      char *eq = strrchr (entries[i], '=');

      if (eq == NULL || eq == entries[i] || eq[1] == '\0')
        continue;
      g_hash_table_replace (ids, g_strndup (entries[i], eq - entries[i]), g_strdup (eq + 1));
    }
  return ids;
}

static void
binary_free (gpointer data)
{
  FlameBinary *b = data;

  g_free (b->path);
  g_free (b->baseline_build_id);
  g_free (b->current_build_id);
  g_free (b);
}

static gint
compare_binaries (gconstpointer a,
                  gconstpointer b)
{
  const FlameBinary *x = *(FlameBinary * const *) a;
  const FlameBinary *y = *(FlameBinary * const *) b;

  /* differences first (changed, added, removed), then by path */
  if ((x->status == FLAME_BINARY_SAME) != (y->status == FLAME_BINARY_SAME))
    return x->status == FLAME_BINARY_SAME ? 1 : -1;
  if (x->status != y->status)
    return (int) x->status - (int) y->status;
  return strcmp (x->path, y->path);
}

/* The paths of @ids as an array, for flame_paths_pair() (the result
 * does not depend on their order) */
static const char **
paths_of (GHashTable *ids)
{
  return (const char **) g_hash_table_get_keys_as_array (ids, NULL);
}

/**
 * flame_binaries_compare:
 * @exact_paths: match modules by their full path only; else a module
 *   of another checkout is the same module (flame_paths_pair(), the rule
 *   files of frames follow)
 *
 * Compares the modules recorded in the two profiles, by path.
 *
 * Returns: (transfer full) (nullable): one #FlameBinary per module of
 * either profile (named by its current path), differences first; %NULL
 * unless both profiles carry "build_ids" metadata (a profile from another
 * tool says nothing about its binaries, so nothing can be said to have
 * changed).
 */
GPtrArray *
flame_binaries_compare (FlameProfile *baseline,
                        FlameProfile *current,
                        gboolean      exact_paths)
{
  const char *b_text = flame_profile_get_metadata (baseline, "build_ids");
  const char *c_text = flame_profile_get_metadata (current, "build_ids");
  g_autoptr(GHashTable) b_ids = NULL;
  g_autoptr(GHashTable) c_ids = NULL;
  g_autoptr(GHashTable) paired = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree const char **b_keys = NULL;
  g_autofree const char **c_keys = NULL;
  g_autofree guint *partner = NULL;
  GPtrArray *out;

  if (b_text == NULL || c_text == NULL)
    return NULL;
  b_ids = flame_build_ids_parse (b_text);
  c_ids = flame_build_ids_parse (c_text);
  b_keys = paths_of (b_ids);
  c_keys = paths_of (c_ids);
  if (!exact_paths)
    partner = flame_paths_pair (b_keys, g_hash_table_size (b_ids),
                                c_keys, g_hash_table_size (c_ids));
  out = g_ptr_array_new_with_free_func (binary_free);

  for (guint i = 0; i < g_hash_table_size (b_ids); i++)
    {
      FlameBinary *bin = g_new0 (FlameBinary, 1);
      const char *path = b_keys[i];
      const char *cur = g_hash_table_lookup (c_ids, path);

      if (cur == NULL && partner != NULL && partner[i] != FLAME_PATH_UNPAIRED)
        {
          path = c_keys[partner[i]];
          cur = g_hash_table_lookup (c_ids, path);
          g_hash_table_add (paired, (gpointer) path);
        }
      bin->path = g_strdup (path);
      bin->baseline_build_id = g_strdup (g_hash_table_lookup (b_ids, b_keys[i]));
      bin->current_build_id = g_strdup (cur);
      if (cur == NULL)
        bin->status = FLAME_BINARY_REMOVED;
      else if (g_ascii_strcasecmp (cur, bin->baseline_build_id) != 0)
        bin->status = FLAME_BINARY_CHANGED;
      else
        bin->status = FLAME_BINARY_SAME;
      g_ptr_array_add (out, bin);
    }
  for (guint i = 0; i < g_hash_table_size (c_ids); i++)
    {
      FlameBinary *bin;

      if (g_hash_table_contains (b_ids, c_keys[i]) || g_hash_table_contains (paired, c_keys[i]))
        continue;
      bin = g_new0 (FlameBinary, 1);
      bin->path = g_strdup (c_keys[i]);
      bin->current_build_id = g_strdup (g_hash_table_lookup (c_ids, c_keys[i]));
      bin->status = FLAME_BINARY_ADDED;
      g_ptr_array_add (out, bin);
    }
  g_ptr_array_sort (out, compare_binaries);
  return out;
}

guint
flame_binaries_count_differences (GPtrArray *binaries)
{
  guint n = 0;

  for (guint i = 0; binaries != NULL && i < binaries->len; i++)
    if (((FlameBinary *) g_ptr_array_index (binaries, i))->status != FLAME_BINARY_SAME)
      n++;
  return n;
}

const char *
flame_binary_status_to_string (FlameBinaryStatus status)
{
  switch (status)
    {
    case FLAME_BINARY_SAME:
      return "same";
    case FLAME_BINARY_CHANGED:
      return "changed";
    case FLAME_BINARY_ADDED:
      return "added";
    case FLAME_BINARY_REMOVED:
      return "removed";
    default:
      return "unknown";
    }
}

/* The file name: "imgconv", "libc.so.6" */
char *
flame_binary_short_name (const FlameBinary *binary)
{
  return g_path_get_basename (binary->path);
}

/* 8 hex digits are plenty to tell two builds apart at a glance; the
 * JSON report has the whole id */
static void
append_short_id (GString    *out,
                 const char *id)
{
  if (strlen (id) > 8)
    {
      g_string_append_len (out, id, 8);
      g_string_append (out, "…");
    }
  else
    g_string_append (out, id);
}

/**
 * flame_binary_describe:
 *
 * Returns: one line for the reports: "imgconv: build-id 1a2b3c4d… →
 * 3c4d5e6f… (rebuilt)", "libfoo.so: only in the current run (build-id
 * 3c4d5e6f…)", "libbar.so: only in the baseline run (build-id …)", or
 * "imgconv: same build-id 1a2b3c4d…".
 */
char *
flame_binary_describe (const FlameBinary *binary)
{
  g_autofree char *name = flame_binary_short_name (binary);
  GString *out = g_string_new (name);

  switch (binary->status)
    {
    case FLAME_BINARY_CHANGED:
      g_string_append (out, ": build-id ");
      append_short_id (out, binary->baseline_build_id);
      g_string_append (out, " → ");
      append_short_id (out, binary->current_build_id);
      g_string_append (out, " (rebuilt)");
      break;
    case FLAME_BINARY_ADDED:
      g_string_append (out, ": only in the current run (build-id ");
      append_short_id (out, binary->current_build_id);
      g_string_append (out, ")");
      break;
    case FLAME_BINARY_REMOVED:
      g_string_append (out, ": only in the baseline run (build-id ");
      append_short_id (out, binary->baseline_build_id);
      g_string_append (out, ")");
      break;
    case FLAME_BINARY_SAME:
    default:
      g_string_append (out, ": same build-id ");
      append_short_id (out, binary->baseline_build_id);
      break;
    }
  return g_string_free (out, FALSE);
}

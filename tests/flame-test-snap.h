/* flame-test-snap.h: speedscope's Jest snapshots (*.snap) as expected
 * per-frame weights: parsed, not transcribed.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "flame-profile.h"

typedef struct
{
  char      *title;    /* the exports[`…`] name */
  char      *name;     /* the profile's name */
  GPtrArray *names;    /* frame names */
  GPtrArray *files;    /* frame files ("" when undefined) */
  GArray    *lines;    /* guint32, 0 when undefined */
  GArray    *selfs;    /* gdouble */
  GArray    *totals;   /* gdouble */
} FlameSnap;

static inline void
flame_snap_free (gpointer data)
{
  FlameSnap *s = data;

  g_free (s->title);
  g_free (s->name);
  g_ptr_array_unref (s->names);
  g_ptr_array_unref (s->files);
  g_array_unref (s->lines);
  g_array_unref (s->selfs);
  g_array_unref (s->totals);
  g_free (s);
}

/* JSON-ish string value after `"key": ` without the trailing `",` */
static inline char *
flame_snap_string (const char *v)
{
  gsize len = strlen (v);

  if (len >= 2 && v[0] == '"')
    {
      g_autofree char *inner = g_strndup (v + 1, len - 2 - (v[len - 1] == ',' ? 1 : 0));
      return g_strcompress (inner);
    }
  return g_strdup ("");
}

static inline GPtrArray *
flame_snap_load (const char *path)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *snaps = g_ptr_array_new_with_free_func (flame_snap_free);
  FlameSnap *cur = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];

      if (g_str_has_prefix (l, "exports[`") && g_str_has_suffix (l, "] = `"))
        {
          cur = g_new0 (FlameSnap, 1);
          cur->title = g_strndup (l + 9, strlen (l) - 9 - 6);
          cur->names = g_ptr_array_new_with_free_func (g_free);
          cur->files = g_ptr_array_new_with_free_func (g_free);
          cur->lines = g_array_new (FALSE, FALSE, sizeof (guint32));
          cur->selfs = g_array_new (FALSE, FALSE, sizeof (gdouble));
          cur->totals = g_array_new (FALSE, FALSE, sizeof (gdouble));
          g_ptr_array_add (snaps, cur);
        }
      else if (cur == NULL)
        continue;
      else if (g_str_has_prefix (l, "      \"name\": "))
        g_ptr_array_add (cur->names, flame_snap_string (l + 14));
      else if (g_str_has_prefix (l, "      \"file\": "))
        g_ptr_array_add (cur->files, flame_snap_string (l + 14));
      else if (g_str_has_prefix (l, "      \"line\": "))
        {
          guint32 v = (guint32) g_ascii_strtoull (l + 14, NULL, 10);
          g_array_append_val (cur->lines, v);
        }
      else if (g_str_has_prefix (l, "      \"selfWeight\": "))
        {
          gdouble v = g_ascii_strtod (l + 20, NULL);
          g_array_append_val (cur->selfs, v);
        }
      else if (g_str_has_prefix (l, "      \"totalWeight\": "))
        {
          gdouble v = g_ascii_strtod (l + 21, NULL);
          g_array_append_val (cur->totals, v);
        }
      else if (g_str_has_prefix (l, "  \"name\": "))
        cur->name = flame_snap_string (l + 10);
      else if (g_str_has_prefix (l, "`;"))
        cur = NULL;
    }
  /* drop the one-line exports (indexToView, profileGroup.name) */
  for (guint i = snaps->len; i > 0; i--)
    if (((FlameSnap *) g_ptr_array_index (snaps, i - 1))->names->len == 0)
      g_ptr_array_remove_index (snaps, i - 1);
  return snaps;
}

static inline FlameSnap *
flame_snap_find (GPtrArray  *snaps,
                 const char *title)
{
  for (guint i = 0; i < snaps->len; i++)
    if (strcmp (((FlameSnap *) g_ptr_array_index (snaps, i))->title, title) == 0)
      return g_ptr_array_index (snaps, i);
  g_error ("no snapshot “%s”", title);
  return NULL;
}

/* Every frame of @snap has the same self and total weight in @profile
 * (ours divided by @scale), matched by name, file and line. Frames the
 * snapshot lists with the same key are summed (speedscope keys frames by
 * index, we by name/file/line). */
static inline void
flame_snap_assert (FlameSnap    *snap,
                   FlameProfile *profile,
                   gdouble       scale,
                   gboolean      use_line)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  guint n = flame_frames_count (frames);
  g_autofree gdouble *s = g_new0 (gdouble, n);
  g_autofree gdouble *t = g_new0 (gdouble, n);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  flame_profile_ensure_totals (profile);
  flame_tree_function_weights (flame_profile_get_tree (profile), n, 0, s, t);
  for (guint i = 0; i < snap->names->len; i++)
    {
      const char *name = g_ptr_array_index (snap->names, i);
      const char *file = i < snap->files->len ? g_ptr_array_index (snap->files, i) : "";
      guint32 line = use_line && i < snap->lines->len ? g_array_index (snap->lines, guint32, i) : 0;
      gdouble want_s = 0, want_t = 0;
      guint n_same = 0;
      gint found = -1;
      g_autofree char *key = g_strdup_printf ("%s\x1f%s\x1f%u", name, file, line);

      if (g_hash_table_contains (seen, key))
        continue;
      g_hash_table_add (seen, g_strdup (key));
      for (guint j = i; j < snap->names->len; j++)
        if (strcmp (g_ptr_array_index (snap->names, j), name) == 0 &&
            strcmp (j < snap->files->len ? g_ptr_array_index (snap->files, j) : "", file) == 0 &&
            (!use_line || g_array_index (snap->lines, guint32, j) == line))
          {
            want_s += g_array_index (snap->selfs, gdouble, j);
            n_same++;
            want_t = MAX (want_t, g_array_index (snap->totals, gdouble, j));
          }
      for (guint f = 0; f < n; f++)
        {
          const char *ffile = flame_frames_get_file (frames, f);
          if (strcmp (flame_frames_get_name (frames, f), name) == 0 &&
              strcmp (ffile ? ffile : "", file) == 0 &&
              (!use_line || flame_frames_get (frames, f)->line == line))
            found = (gint) f;
        }
      if (found < 0)
        {
          if (want_t == 0)
            continue;  /* a frame speedscope lists but never saw on a stack */
          g_error ("%s: no frame %s (%s:%u)", snap->title, name, file, line);
        }
      /* several speedscope frames (e.g. columns of one line) are one of
       * ours: their self weights add up, their totals do not */
      if (fabs (s[found] / scale - want_s) > 1e-6 * MAX (1, fabs (want_s)) ||
          (n_same == 1 && fabs (t[found] / scale - want_t) > 1e-6 * MAX (1, fabs (want_t)) + 1e-9))
        g_error ("%s: frame %s (%s:%u): self %g total %g, speedscope says %g %g",
                 snap->title, name, file, line, s[found] / scale, t[found] / scale, want_s, want_t);
    }
}

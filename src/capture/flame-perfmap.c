/* flame-perfmap.c: JIT code names from perf map files.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "flame-perfmap.h"
#include "flame-search.h"

typedef struct
{
  guint64 start, end;
  guint32 order;     /* line number: a later line wins (code moved or reused) */
  guint32 name;      /* offset in names */
} Entry;
G_STATIC_ASSERT (G_STRUCT_OFFSET (Entry, start) == 0);

struct _FlamePerfMap
{
  GArray  *entries;  /* Entry, by start */
  GString *names;    /* NUL-separated */
  guint64  max_size; /* the longest entry: how far back a lookup looks */
};

static int
by_start (gconstpointer a,
          gconstpointer b)
{
  const Entry *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

FlamePerfMap *
flame_perf_map_load (const char *path)
{
  g_autofree char *text = NULL;
  FlamePerfMap *self;
  char *line, *next;
  guint32 order = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  self = g_new0 (FlamePerfMap, 1);
  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->names = g_string_new (NULL);
  for (line = text; line != NULL && *line != '\0'; line = next)
    {
      char *end;
      Entry e;

      next = strchr (line, '\n');
      if (next != NULL)
        *next++ = '\0';
      e.start = g_ascii_strtoull (line, &end, 16);
      if (end == line || *end != ' ')
        continue;
      line = end + 1;
      e.end = e.start + g_ascii_strtoull (line, &end, 16);
      if (end == line || *end != ' ' || e.end <= e.start || end[1] == '\0')
        continue;
      e.order = order++;
      e.name = self->names->len;
      g_string_append_len (self->names, end + 1, strlen (end + 1) + 1);
      self->max_size = MAX (self->max_size, e.end - e.start);
      g_array_append_val (self->entries, e);
    }
  if (self->entries->len == 0)
    {
      flame_perf_map_free (self);
      return NULL;
    }
  g_array_sort (self->entries, by_start);
  return self;
}

void
flame_perf_map_free (FlamePerfMap *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->entries);
  g_string_free (self->names, TRUE);
  g_free (self);
}

guint
flame_perf_map_count (FlamePerfMap *self)
{
  return self->entries->len;
}

const char *
flame_perf_map_lookup (FlamePerfMap *self,
                       guint64       ip)
{
  const Entry *e = (const Entry *) self->entries->data;
  const Entry *best = NULL;
  /* the first entry starting after @ip */
  gsize lo = flame_partition_point (e, self->entries->len, sizeof (Entry),
                                    flame_starts_at_or_before, &ip);

  /* entries before it that still cover @ip: the latest line */
  for (gsize i = lo; i-- > 0 && ip - e[i].start < self->max_size && lo - i <= 256; )
    if (ip < e[i].end && (best == NULL || e[i].order > best->order))
      best = &e[i];
  return best != NULL ? self->names->str + best->name : NULL;
}

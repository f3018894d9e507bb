/* flame-search.h: binary search in a sorted flat array, the one way the
 * loaders and symbolizers find an address range or an id, and the layout
 * the frame under the pointer. In the model so that every layer sees it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* TRUE when @entry sorts before the place of @key */
typedef gboolean (*FlameBeforeFunc) (gconstpointer entry,
                                     gconstpointer key);

/* The number of leading entries of @base (@n of @size bytes each, sorted)
 * for which @before is TRUE. With "start ≤ key" that is one past the last
 * entry starting at or before @key (none when 0); with "id < key" it is
 * the first entry whose id is not below @key. */
static inline gsize
flame_partition_point (gconstpointer   base,
                       gsize           n,
                       gsize           size,
                       FlameBeforeFunc before,
                       gconstpointer   key)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (before ((const guint8 *) base + mid * size, key))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The predicates of arrays whose entries begin with a guint64 (an address
 * or a start, checked with G_STATIC_ASSERT by their users), @key pointing
 * to a guint64: "at or before" finds the last entry starting at or before
 * the key, "before" the first entry at the key. */
static inline gboolean
flame_starts_at_or_before (gconstpointer entry,
                           gconstpointer key)
{
  return *(const guint64 *) entry <= *(const guint64 *) key;
}

static inline gboolean
flame_starts_before (gconstpointer entry,
                     gconstpointer key)
{
  return *(const guint64 *) entry < *(const guint64 *) key;
}

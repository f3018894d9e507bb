/* flame-file-match.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same code profiled from two checkouts (/builds/1234/proj/src/x.go
 * and /tmp/pr-77/proj/src/x.go) must match. Only files whose path is in
 * one profile and not in the other are paired:
 *
 * 1. a baseline file's partner is the current file that ends in the
 *    longest run of the same path components (the tail), if no other
 *    unpaired file on either side ends in that tail too;
 * 2. the parts before the tail are the two checkout roots (/builds/1234/
 *    and /tmp/pr-77/); every pair is one vote for its pair of roots;
 * 3. a pair is kept unless another pair of roots whose baseline root also
 *    holds the baseline file has more votes: one file that happens to
 *    share its name with an unrelated file does not override what the
 *    rest of the checkout says.
 *
 * Each side's roots are found independently of how many directories the
 * profile touches, so a baseline that ran code in src/ only still matches
 * a current run that also ran code in cmd/; system and library paths
 * (/usr/lib/python3.11/..., the Go module cache) that are equal on both
 * sides are equal already, and those that moved (another Python version,
 * another GOPATH) get roots of their own. '/' and '\' both separate
 * components, so Windows paths and URLs work the same way.
 */
#include "config.h"

#include <string.h>

#include "flame-file-match.h"

#define AMBIGUOUS G_MAXUINT

typedef struct
{
  const char *s;
  gsize       len;
} Span;

typedef struct
{
  Span base;
  Span cur;
} Roots;

typedef struct
{
  guint base_file;  /* index into the baseline's unpaired files */
  guint cur_file;
  Roots roots;
} Pair;

typedef struct
{
  GArray     *files;      /* Span of each unpaired file */
  GArray     *index;      /* its index in the caller's array */
  GHashTable *tails;      /* Span → file + 1, or AMBIGUOUS */
  Span       *tail_keys;
} Side;

static inline gboolean
is_sep (char c)
{
  return c == '/' || c == '\\';
}

static guint
span_hash (gconstpointer p)
{
  const Span *k = p;
  guint32 h = 2166136261u;

  for (gsize i = 0; i < k->len; i++)
    h = (h ^ (guchar) (is_sep (k->s[i]) ? '/' : k->s[i])) * 16777619u;
  return h;
}

static gboolean
span_equal (gconstpointer a,
            gconstpointer b)
{
  const Span *x = a, *y = b;

  if (x->len != y->len)
    return FALSE;
  for (gsize i = 0; i < x->len; i++)
    if (x->s[i] != y->s[i] && !(is_sep (x->s[i]) && is_sep (y->s[i])))
      return FALSE;
  return TRUE;
}

static guint
roots_hash (gconstpointer p)
{
  const Roots *r = p;

  return span_hash (&r->base) * 31 + span_hash (&r->cur);
}

static gboolean
roots_equal (gconstpointer a,
             gconstpointer b)
{
  const Roots *x = a, *y = b;

  return span_equal (&x->base, &y->base) && span_equal (&x->cur, &y->cur);
}

/* Component boundaries: 0 and every position after a separator. */
static inline gboolean
is_boundary (const Span *path,
             gsize       i)
{
  return i == 0 || is_sep (path->s[i - 1]);
}

static GHashTable *
span_set (const char *const *paths,
          guint              n,
          Span              *storage)
{
  GHashTable *set = g_hash_table_new (span_hash, span_equal);

  for (guint i = 0; i < n; i++)
    {
      storage[i] = (Span) { paths[i], strlen (paths[i]) };
      g_hash_table_add (set, &storage[i]);
    }
  return set;
}

/* The paths of @mine absent from @other, and the tails of their paths. */
static void
side_init (Side       *side,
           const Span *mine,
           guint       n,
           GHashTable *other)
{
  gsize n_tails = 0, t = 0;

  side->files = g_array_new (FALSE, FALSE, sizeof (Span));
  side->index = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n; i++)
    if (!g_hash_table_contains (other, &mine[i]))
      {
        g_array_append_val (side->files, mine[i]);
        g_array_append_val (side->index, i);
        for (gsize j = 0; j < mine[i].len; j++)
          n_tails += is_boundary (&mine[i], j);
      }

  side->tail_keys = g_new (Span, MAX (n_tails, 1));
  side->tails = g_hash_table_new (span_hash, span_equal);
  for (guint f = 0; f < side->files->len; f++)
    {
      const Span *path = &g_array_index (side->files, Span, f);

      for (gsize i = 0; i < path->len; i++)
        {
          Span *k;
          gpointer old;

          if (!is_boundary (path, i))
            continue;
          k = &side->tail_keys[t++];
          *k = (Span) { path->s + i, path->len - i };
          old = g_hash_table_lookup (side->tails, k);
          if (old == NULL)
            g_hash_table_insert (side->tails, k, GUINT_TO_POINTER (f + 1));
          else if (GPOINTER_TO_UINT (old) != f + 1)
            g_hash_table_insert (side->tails, k, GUINT_TO_POINTER (AMBIGUOUS));
        }
    }
}

static void
side_clear (Side *side)
{
  g_clear_pointer (&side->files, g_array_unref);
  g_clear_pointer (&side->index, g_array_unref);
  g_clear_pointer (&side->tails, g_hash_table_unref);
  g_clear_pointer (&side->tail_keys, g_free);
}

/**
 * flame_paths_pair:
 * @base: distinct paths of the baseline
 * @cur: distinct paths of the current profile
 *
 * Pairs the paths of @base with those of @cur that name the same file in
 * another checkout (the rule at the top of this file). A path that is in
 * both lists is not paired: it is itself.
 *
 * Returns: (transfer full): for each path of @base, the index of its
 *   partner in @cur, or %FLAME_PATH_UNPAIRED
 */
guint *
flame_paths_pair (const char *const *base,
                  guint              n_base,
                  const char *const *cur,
                  guint              n_cur)
{
  g_autofree Span *all_b = g_new (Span, MAX (n_base, 1));
  g_autofree Span *all_c = g_new (Span, MAX (n_cur, 1));
  g_autoptr(GHashTable) set_b = span_set (base, n_base, all_b);
  g_autoptr(GHashTable) set_c = span_set (cur, n_cur, all_c);
  g_autoptr(GHashTable) votes = g_hash_table_new (roots_hash, roots_equal);
  g_autoptr(GHashTable) best = g_hash_table_new (span_hash, span_equal);
  g_autofree Pair *pairs = NULL;
  guint *out = g_new (guint, MAX (n_base, 1));
  Side b = { 0 }, c = { 0 };
  guint n_pairs = 0;
  GHashTableIter it;
  gpointer key, value;

  for (guint i = 0; i < n_base; i++)
    out[i] = FLAME_PATH_UNPAIRED;
  side_init (&b, all_b, n_base, set_c);
  side_init (&c, all_c, n_cur, set_b);
  pairs = g_new (Pair, MAX (b.files->len, 1));

  /* 1, 2: partners by their longest shared tail, votes for the roots */
  for (guint f = 0; f < b.files->len; f++)
    {
      const Span *path = &g_array_index (b.files, Span, f);

      for (gsize i = 0; i < path->len; i++)
        {
          Span tail = { path->s + i, path->len - i };
          guint in_c, in_b;
          const Span *other;
          Pair *p;

          if (!is_boundary (path, i))
            continue;
          in_c = GPOINTER_TO_UINT (g_hash_table_lookup (c.tails, &tail));
          if (in_c == 0)
            continue;
          in_b = GPOINTER_TO_UINT (g_hash_table_lookup (b.tails, &tail));
          if (in_c == AMBIGUOUS || in_b == AMBIGUOUS)
            break;
          other = &g_array_index (c.files, Span, in_c - 1);
          p = &pairs[n_pairs++];
          p->base_file = f;
          p->cur_file = in_c - 1;
          p->roots.base = (Span) { path->s, i };
          p->roots.cur = (Span) { other->s, other->len - tail.len };
          g_hash_table_insert (votes, &p->roots,
                               GUINT_TO_POINTER (
                                 GPOINTER_TO_UINT (g_hash_table_lookup (votes, &p->roots)) + 1));
          break;
        }
    }

  /* the most votes of any pair of roots, per baseline root */
  g_hash_table_iter_init (&it, votes);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      Roots *r = key;
      guint v = GPOINTER_TO_UINT (value);

      if (GPOINTER_TO_UINT (g_hash_table_lookup (best, &r->base)) < v)
        g_hash_table_insert (best, &r->base, GUINT_TO_POINTER (v));
    }

  /* 3: kept unless roots with more votes hold the baseline file */
  for (guint i = 0; i < n_pairs; i++)
    {
      const Pair *p = &pairs[i];
      const Span *path = &g_array_index (b.files, Span, p->base_file);
      guint v = GPOINTER_TO_UINT (g_hash_table_lookup (votes, &p->roots));
      gboolean keep = TRUE;

      for (gsize j = 0; j < path->len && keep; j++)
        {
          Span root = { path->s, j };

          if (is_boundary (path, j) &&
              GPOINTER_TO_UINT (g_hash_table_lookup (best, &root)) > v)
            keep = FALSE;
        }
      if (keep)
        out[g_array_index (b.index, guint, p->base_file)] = g_array_index (c.index, guint,
                                                                           p->cur_file);
    }

  side_clear (&b);
  side_clear (&c);
  return out;
}

/* The distinct file string ids of @frames' frames. */
static GArray *
frame_files (FlameFrames *frames,
             GPtrArray   *paths)
{
  FlameStrings *strings = flame_frames_get_strings (frames);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint f = 0; f < flame_frames_count (frames); f++)
    {
      guint32 id = flame_frames_get (frames, f)->file;

      if (id == 0 || !g_hash_table_add (seen, GUINT_TO_POINTER (id)))
        continue;
      g_array_append_val (ids, id);
      g_ptr_array_add (paths, (gpointer) flame_strings_get (strings, id));
    }
  return ids;
}

/**
 * flame_file_match_new:
 *
 * Pairs the files of @baseline's frames with those of @current's that
 * are the same file in another checkout (the rule at the top of this
 * file). Files whose path is in both profiles are not in the result:
 * they match as they are.
 *
 * Returns: (transfer full): baseline file string id → current file
 *   string id (GUINT_TO_POINTER)
 */
GHashTable *
flame_file_match_new (FlameFrames *baseline,
                      FlameFrames *current)
{
  g_autoptr(GPtrArray) paths_b = g_ptr_array_new ();
  g_autoptr(GPtrArray) paths_c = g_ptr_array_new ();
  g_autoptr(GArray) ids_b = frame_files (baseline, paths_b);
  g_autoptr(GArray) ids_c = frame_files (current, paths_c);
  g_autofree guint *partner = flame_paths_pair ((const char *const *) paths_b->pdata, paths_b->len,
                                                (const char *const *) paths_c->pdata, paths_c->len);
  GHashTable *map = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < ids_b->len; i++)
    if (partner[i] != FLAME_PATH_UNPAIRED)
      g_hash_table_insert (map, GUINT_TO_POINTER (g_array_index (ids_b, guint32, i)),
                           GUINT_TO_POINTER (g_array_index (ids_c, guint32, partner[i])));
  return map;
}

/* flame-chrome.c: Chrome/V8 CPU profiles, streamed.
 *
 * Three shapes share one node model: a .cpuprofile ({nodes, samples,
 * timeDeltas}), the old v8-profiler tree ({head:{children:[…]}, samples,
 * timestamps}) and trace-event files, where a Profile event and the
 * ProfileChunk events with the same id carry the arrays in pieces, in any
 * order. Nodes go into one compact table (id, parent id, frame), samples
 * and time deltas into flat arrays per chunk; at the end each profile's
 * chunks are put in time order, node ids are resolved with a sorted
 * index (bounds and duplicates checked), parents are resolved iteratively
 * with memoisation and cycle detection, and sample i is weighted with the
 * time until sample i+1, as speedscope does. This file reads the
 * .cpuprofile and the tree, and builds the profiles; the event objects
 * of trace files are read in flame-chrome-trace.c, which hands the
 * arrays of Profile events back here (flame_chrome_on_profile_value()).
 * The state both parts share is in flame-chrome-private.h.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-chrome-private.h"
#include "flame-error.h"
#include "flame-search.h"


/* A node of the old tree form, open until its map ends: its id and its
 * children's ids may come in any key order, so the edges are made when
 * the node ends. */
typedef struct
{
  Node     node;
  GString *fn_name;
  GString *url;
  gint64   line;
  GArray  *kids;   /* gint64 child ids */
} Pending;

static void
pending_free (gpointer data)
{
  Pending *p = data;

  g_string_free (p->fn_name, TRUE);
  g_string_free (p->url, TRUE);
  g_array_unref (p->kids);
  g_free (p);
}

static void
profile_info_free (gpointer data)
{
  ProfileInfo *p = data;

  g_free (p->key);
  g_free (p);
}

guint32
flame_chrome_ensure_profile (Loader     *ld,
                             const char *key,
                             gint64      pid)
{
  ProfileInfo *p = g_hash_table_lookup (ld->profile_by_key, key);

  if (p == NULL)
    {
      p = g_new0 (ProfileInfo, 1);
      p->key = g_strdup (key);
      p->pid = pid;
      p->tid = -1;
      g_ptr_array_add (ld->profiles, p);
      g_hash_table_insert (ld->profile_by_key, p->key, p);
    }
  for (guint i = 0; i < ld->profiles->len; i++)
    if (g_ptr_array_index (ld->profiles, i) == p)
      return i;
  g_assert_not_reached ();
}

static guint8
kind_of (const char *name)
{
  if (strcmp (name, "(root)") == 0)
    return KIND_ROOT;
  if (strcmp (name, "(idle)") == 0)
    return KIND_IDLE;
  if (strcmp (name, "(garbage collector)") == 0 || strcmp (name, "(program)") == 0)
    return KIND_ON_TOP;
  return KIND_NORMAL;
}

/* speedscope's frame names: "(anonymous file.js:12)" for nameless code */
static void
finish_node (Loader *ld)
{
  g_autofree char *name = NULL;
  guint32 line = ld->line >= 0 && ld->line < G_MAXUINT32 - 1 ? (guint32) ld->line + 1 : 0;

  if (ld->fn_name->len == 0)
    {
      if (ld->url->len > 0)
        {
          const char *slash = strrchr (ld->url->str, '/');
          name = g_strdup_printf ("(anonymous %s:%u)", slash ? slash + 1 : ld->url->str, line);
        }
      else
        name = g_strdup ("(anonymous)");
    }
  else
    name = g_strndup (ld->fn_name->str, ld->fn_name->len);

  ld->node.kind = kind_of (name);
  ld->node.frame = flame_profile_intern_frame (ld->profile, name, strlen (name),
                                               ld->url->str, ld->url->len, line, 0);
  g_array_append_val (ld->nodes, ld->node);
}

static void
reset_node (Loader *ld)
{
  ld->in_node = TRUE;
  ld->node = (Node) { .id = G_MININT64, .parent = NO_PARENT, .profile = 0 };
  g_string_truncate (ld->fn_name, 0);
  g_string_truncate (ld->url, 0);
  ld->line = -1;
}

/* The dense index of node id @id, numbered on first sight. Producers
 * number nodes from 1 upwards, so a direct table serves nearly all;
 * sparse or negative ids go through a hash table. */
static guint32
dense_of (Loader *ld,
          gint64  id)
{
  guint32 d;

  if (id >= 0 && (guint64) id < ld->n_direct)
    {
      if (ld->id_direct[id] != 0)
        return ld->id_direct[id] - 1;
    }
  else if (id >= 0 && (guint64) id < (guint64) ld->dense_ids->len * 4 + 65536)
    {
      gsize n = MAX (ld->n_direct * 2, (gsize) id + 1);

      ld->id_direct = g_renew (guint32, ld->id_direct, n);
      memset (ld->id_direct + ld->n_direct, 0, (n - ld->n_direct) * sizeof (guint32));
      ld->n_direct = n;
    }
  else
    {
      gpointer found;

      if (ld->id_hash == NULL)
        ld->id_hash = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      found = g_hash_table_lookup (ld->id_hash, &id);
      if (found != NULL)
        return GPOINTER_TO_UINT (found) - 1;
      d = ld->dense_ids->len;
      g_array_append_val (ld->dense_ids, id);
      g_hash_table_insert (ld->id_hash, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (d + 1));
      return d;
    }
  d = ld->dense_ids->len;
  g_array_append_val (ld->dense_ids, id);
  ld->id_direct[id] = d + 1;
  return d;
}

/* One more 4-byte element, without a call per element: *cap is what
 * the array is known to hold (it grows by doubling, as GArray does on
 * its own; g_array_set_size never gives memory back, so a shorter
 * length later keeps the capacity). */
static inline void
append_u32 (GArray  *a,
            guint   *cap,
            guint32  v)
{
  guint n = a->len;

  if (G_UNLIKELY (n >= *cap))
    {
      guint want = n < G_MAXUINT / 2 ? MAX (n, 1024u) * 2 : G_MAXUINT;

      if (n == G_MAXUINT)
        g_error ("adding 1 to array would overflow");   /* as GArray does */
      g_array_set_size (a, want);
      g_array_set_size (a, n);
      *cap = want;
    }
  ((guint32 *) (void *) a->data)[n] = v;
  a->len = n + 1;
}

void
flame_chrome_append_delta (Loader  *ld,
                           gdouble  d)
{
  gint32 v = DELTA_BIG;

  if (d > G_MININT32 && d <= G_MAXINT32 && d == (gdouble) (gint32) d)
    v = (gint32) d;
  else
    {
      BigDelta b = { ld->deltas->len, d };
      g_array_append_val (ld->delta_big, b);
    }
  append_u32 (ld->deltas, &ld->deltas_cap, (guint32) v);
}

static gdouble
get_delta (Loader  *ld,
           guint64  index)
{
  gint32 v = g_array_index (ld->deltas, gint32, index);
  const BigDelta *big = (const BigDelta *) ld->delta_big->data;
  gsize lo;

  if (v != DELTA_BIG)
    return v;
  lo = flame_partition_point (big, ld->delta_big->len, sizeof (BigDelta),
                              flame_starts_before, &index);
  return lo < ld->delta_big->len && big[lo].index == index ? big[lo].value : 0;
}

static gboolean on_value       (FlameJson            *json,
                                const FlameJsonValue *v,
                                gpointer              user_data,
                                GError              **error);
static gboolean on_hot_int     (FlameJson            *json,
                                guint                 depth,
                                gint64                value,
                                gpointer              user_data,
                                GError              **error);

/* Called with a scalar at @depth (the array's level) that took the full
 * checks to samples[] or a deltas array */
void
flame_chrome_set_hot (Loader    *ld,
                      FlameJson *json,
                      guint      depth,
                      guint8     kind)
{
  ld->hot_depth = depth;
  ld->hot_e = ld->ev_depth;
  ld->hot_base = ld->base;
  ld->hot_kind = kind;
  /* integers of the rest of the array come straight to on_hot_int */
  if (!ld->ev_args_open && depth == flame_json_depth (json))
    flame_json_set_int_sink (json, on_hot_int);
}

/* A scalar of the hot array: what the full path checks found for its
 * first scalar, without them. */
static gboolean
on_hot_value (Loader               *ld,
              FlameJson            *json,
              const FlameJsonValue *v,
              GError              **error)
{
  if (ld->hot_kind == HOT_SAMPLES)
    {
      guint32 d;

      if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a sample", error))
        return FALSE;
      d = dense_of (ld, v->i);
      append_u32 (ld->samples, &ld->samples_cap, d);
      return TRUE;
    }
  if (!flame_json_want (json, v, FLAME_JSON_WANT_NUMBER, "a time delta", error))
    return FALSE;
  flame_chrome_append_delta (ld, v->d);
  if (ld->hot_kind != HOT_TRACE_DELTAS)
    ld->ev_timestamps = ld->hot_kind == HOT_TIMESTAMPS;
  return TRUE;
}

/* An integer directly in the hot array (flame_json_set_int_sink): what
 * on_value does with it, without the FlameJsonValue. Should the
 * state have changed (it cannot while the array is open), the full path. */
static gboolean
on_hot_int (FlameJson  *json,
            guint       depth,
            gint64      value,
            gpointer    user_data,
            GError    **error)
{
  Loader *ld = user_data;

  if (G_LIKELY (ld->hot_depth == depth && !ld->ev_args_open &&
                ld->ev_depth == ld->hot_e && ld->base == ld->hot_base))
    {
      if (ld->hot_kind == HOT_SAMPLES)
        {
          guint32 d;

          /* dense_of's first case, inline */
          if (value >= 0 && (guint64) value < ld->n_direct && ld->id_direct[value] != 0)
            d = ld->id_direct[value] - 1;
          else
            d = dense_of (ld, value);
          append_u32 (ld->samples, &ld->samples_cap, d);
        }
      else
        {
          /* flame_chrome_append_delta for an integer: exact in an int32 unless it is
           * G_MININT32 (DELTA_BIG) or beyond */
          if (value > G_MININT32 && value <= G_MAXINT32)
            append_u32 (ld->deltas, &ld->deltas_cap, (guint32) (gint32) value);
          else
            flame_chrome_append_delta (ld, (gdouble) value);
          if (ld->hot_kind != HOT_TRACE_DELTAS)
            ld->ev_timestamps = ld->hot_kind == HOT_TIMESTAMPS;
        }
      return TRUE;
    }
  else
    {
      FlameJsonValue v = { .type = FLAME_JSON_INT, .i = value, .d = (gdouble) value };

      return on_value (json, &v, user_data, error);
    }
}

/* A scalar of samples[] or of timeDeltas[] / timestamps[] (the bulk of
 * the file; the first of each array, then on_hot_int takes the rest) */
static gboolean
on_sample_array_value (Loader               *ld,
                       FlameJson            *json,
                       const FlameJsonValue *v,
                       guint                 depth,
                       GError              **error)
{
  guint b = ld->base;

  if (flame_json_key_is (json, b, "samples"))
    {
      guint32 d;

      if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a sample", error))
        return FALSE;
      d = dense_of (ld, v->i);
      g_array_append_val (ld->samples, d);
      flame_chrome_set_hot (ld, json, depth, HOT_SAMPLES);
      return TRUE;
    }
  if (flame_json_key_is (json, b, "timeDeltas") || flame_json_key_is (json, b, "timestamps"))
    {
      if (!flame_json_want (json, v, FLAME_JSON_WANT_NUMBER, "a time delta", error))
        return FALSE;
      flame_chrome_append_delta (ld, v->d);
      ld->ev_timestamps = flame_json_key_is (json, b, "timestamps");
      flame_chrome_set_hot (ld, json, depth, ld->ev_timestamps ? HOT_TIMESTAMPS : HOT_DELTAS);
    }
  return TRUE;
}

/* nodes[i] itself: its start, its end, and its id and parent */
static gboolean
on_node_value (Loader               *ld,
               FlameJson            *json,
               const FlameJsonValue *v,
               GError              **error)
{
  if (v->type == FLAME_JSON_START_MAP)
    reset_node (ld);
  else if (v->type == FLAME_JSON_END_MAP)
    {
      if (ld->node.id == G_MININT64)
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE, "a node has no id");
          return FALSE;
        }
      finish_node (ld);
      ld->in_node = FALSE;
    }
  else if (v->type <= FLAME_JSON_STRING)
    {
      const char *key = flame_json_level (json, ld->base + 2)->key;

      if (strcmp (key, "id") == 0)
        {
          if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a node id", error))
            return FALSE;
          ld->node.id = v->i;
        }
      else if (strcmp (key, "parent") == 0 && v->type != FLAME_JSON_NULL)
        {
          if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a node parent", error))
            return FALSE;
          ld->node.parent = v->i;
        }
    }
  return TRUE;
}

/* nodes[i].callFrame.KEY: the function name, url and line */
static gboolean
on_call_frame_value (Loader               *ld,
                     FlameJson            *json,
                     const FlameJsonValue *v,
                     const char           *key,
                     GError              **error)
{
  if (strcmp (key, "functionName") == 0 || strcmp (key, "url") == 0)
    {
      GString *s = key[0] == 'f' ? ld->fn_name : ld->url;

      if (v->type != FLAME_JSON_STRING)
        return TRUE;
      if (v->len > FLAME_MAX_NAME_LEN)
        {
          flame_json_set_error (json, error, FLAME_ERROR_TOO_LARGE,
                                "a function name is longer than %d bytes", FLAME_MAX_NAME_LEN);
          return FALSE;
        }
      g_string_truncate (s, 0);
      g_string_append_len (s, v->str, v->len);
    }
  else if (strcmp (key, "lineNumber") == 0 &&
           (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
    ld->line = v->i;
  return TRUE;
}

/* nodes[i].children[j]: an edge from the node being read */
static gboolean
on_child_value (Loader               *ld,
                FlameJson            *json,
                const FlameJsonValue *v,
                GError              **error)
{
  Edge e;

  if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a child id", error))
    return FALSE;
  e.parent = ld->node.id;
  e.child = v->i;
  e.profile = ld->node.profile;
  if (ld->node.id == G_MININT64)
    {
      /* children before id: keep the edge, patch its parent later */
      e.parent = NO_PARENT;
    }
  g_array_append_val (ld->edges, e);
  return TRUE;
}

/* Values inside the map that holds nodes/samples/timeDeltas (level
 * @base): a .cpuprofile's root, or args.data.cpuProfile of a trace event. */
gboolean
flame_chrome_on_profile_value (Loader               *ld,
                               FlameJson            *json,
                               const FlameJsonValue *v,
                               guint                 depth,
                               GError              **error)
{
  guint b = ld->base;
  gboolean scalar = v->type <= FLAME_JSON_STRING;

  if (depth == b + 1 && scalar && flame_json_level (json, b + 1)->is_array)
    return on_sample_array_value (ld, json, v, depth, error);
  if (depth == b + 2 && flame_json_key_is (json, b, "nodes"))
    return on_node_value (ld, json, v, error);
  if (depth == b + 3 && scalar && flame_json_key_is (json, b, "nodes"))
    {
      if (flame_json_key_is (json, b + 2, "callFrame"))
        return on_call_frame_value (ld, json, v, flame_json_level (json, b + 3)->key, error);
      if (flame_json_key_is (json, b + 2, "children"))
        return on_child_value (ld, json, v, error);
    }
  return TRUE;
}

/* A scalar field of the old tree's node at @d (or of its callFrame) */
static gboolean
read_tree_field (Loader               *ld,
                 FlameJson            *json,
                 const FlameJsonValue *v,
                 guint                 d,
                 GError              **error)
{
  guint nd = ld->tree_node[d] ? d : d - 1;
  Pending *p = g_ptr_array_index (ld->pending, nd / 2 - 1);
  const FlameJsonLevel *l = flame_json_level (json, d);

  if (l->is_array || l->key_len == 255)
    return TRUE;
  if (strcmp (l->key, "id") == 0 && nd == d)
    {
      if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a node id", error))
        return FALSE;
      p->node.id = v->i;
    }
  else if ((strcmp (l->key, "functionName") == 0 || strcmp (l->key, "url") == 0) &&
           v->type == FLAME_JSON_STRING)
    {
      if (v->len > FLAME_MAX_NAME_LEN)
        {
          flame_json_set_error (json, error, FLAME_ERROR_TOO_LARGE,
                                "a function name is longer than %d bytes", FLAME_MAX_NAME_LEN);
          return FALSE;
        }
      g_string_truncate (l->key[0] == 'f' ? p->fn_name : p->url, 0);
      /* NULs would cut the name short: such names are garbage anyway */
      g_string_append_len (l->key[0] == 'f' ? p->fn_name : p->url, v->str,
                           memchr (v->str, 0, v->len)
                             ? (gssize) ((const char *) memchr (v->str, 0, v->len) - v->str)
                             : (gssize) v->len);
    }
  else if (strcmp (l->key, "lineNumber") == 0 &&
           (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
    p->line = v->i;
  return TRUE;
}

/* The old v8-profiler tree ({head:{…, children:[{…}]}}): node maps sit
 * at depth 2 (head), 4, 6, … each inside its parent's "children". */
static gboolean
on_tree_value (Loader               *ld,
               FlameJson            *json,
               const FlameJsonValue *v,
               guint                 depth,
               GError              **error)
{
  gboolean scalar = v->type <= FLAME_JSON_STRING;
  guint d = depth;

  if (v->type == FLAME_JSON_START_MAP)
    {
      gboolean is_node = (d == 2 && flame_json_key_is (json, 1, "head")) ||
                         (d >= 4 && ld->tree_node[d - 2] &&
                          flame_json_key_is (json, d - 2, "children") &&
                          flame_json_level (json, d - 1)->is_array);
      ld->tree_node[d] = is_node;
      if (is_node)
        {
          guint level = d / 2 - 1;
          Pending *p;

          while (ld->pending->len <= level)
            {
              p = g_new0 (Pending, 1);
              p->fn_name = g_string_new (NULL);
              p->url = g_string_new (NULL);
              p->kids = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_ptr_array_add (ld->pending, p);
            }
          p = g_ptr_array_index (ld->pending, level);
          p->node = (Node) { .id = G_MININT64, .parent = NO_PARENT, .profile = 0 };
          g_string_truncate (p->fn_name, 0);
          g_string_truncate (p->url, 0);
          p->line = -1;
          g_array_set_size (p->kids, 0);
        }
      return TRUE;
    }
  if (v->type == FLAME_JSON_END_MAP && ld->tree_node[d])
    {
      Pending *p = g_ptr_array_index (ld->pending, d / 2 - 1);

      ld->tree_node[d] = FALSE;
      if (p->node.id == G_MININT64)
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE, "a node has no id");
          return FALSE;
        }
      for (guint i = 0; i < p->kids->len; i++)
        {
          Edge e = { p->node.id, g_array_index (p->kids, gint64, i), 0 };
          g_array_append_val (ld->edges, e);
        }
      /* finish_node() reads the node being read from the loader */
      ld->node = p->node;
      g_string_assign (ld->fn_name, p->fn_name->str);
      g_string_assign (ld->url, p->url->str);
      ld->line = p->line;
      finish_node (ld);
      if (d >= 4)
        g_array_append_val (((Pending *) g_ptr_array_index (ld->pending, d / 2 - 2))->kids,
                            p->node.id);
      return TRUE;
    }
  if (!scalar)
    return TRUE;
  /* a node's own fields, or the newer callFrame object inside it */
  if (ld->tree_node[d] ||
      (d >= 3 && ld->tree_node[d - 1] && flame_json_key_is (json, d - 1, "callFrame")))
    return read_tree_field (ld, json, v, d, error);
  return TRUE;
}

/* A .cpuprofile's top level: nodes, samples, time deltas and startTime,
 * or the old tree form under "head" */
static gboolean
on_cpuprofile_value (Loader               *ld,
                     FlameJson            *json,
                     const FlameJsonValue *v,
                     guint                 depth,
                     GError              **error)
{
  if (depth >= 2 && ld->base == 1 && (flame_json_key_is (json, 1, "nodes") ||
                                      flame_json_key_is (json, 1, "samples") ||
                                      flame_json_key_is (json, 1, "timeDeltas") ||
                                      flame_json_key_is (json, 1, "timestamps")))
    return flame_chrome_on_profile_value (ld, json, v, depth, error);
  if (depth == 1 && flame_json_key_is (json, 1, "startTime") && v->type <= FLAME_JSON_STRING)
    {
      if (!flame_json_want (json, v, FLAME_JSON_WANT_NUMBER, "startTime", error))
        return FALSE;
      ld->start_time = v->d;
    }
  if (depth >= 2 && flame_json_key_is (json, 1, "head"))
    return on_tree_value (ld, json, v, depth, error);
  return TRUE;
}

/* Every value of the file. The hot array (samples[], timeDeltas[]) is
 * checked first, as this runs for each of its numbers; then a
 * .cpuprofile's fields, or a trace's events (flame-chrome-trace.c). */
static gboolean
on_value (FlameJson            *json,
          const FlameJsonValue *v,
          gpointer              user_data,
          GError              **error)
{
  Loader *ld = user_data;
  guint depth = flame_json_depth (json);
  gboolean scalar = v->type <= FLAME_JSON_STRING;

  if (ld->hot_depth != 0)
    {
      if (depth == ld->hot_depth)
        {
          if (scalar && !ld->ev_args_open && ld->ev_depth == ld->hot_e && ld->base == ld->hot_base)
            return on_hot_value (ld, json, v, error);
          if (!scalar)
            ld->hot_depth = 0;   /* the array ends */
        }
      else if (depth < ld->hot_depth)
        ld->hot_depth = 0;
    }
  if (ld->format == FLAME_FORMAT_CHROME_CPUPROFILE)
    return on_cpuprofile_value (ld, json, v, depth, error);
  return flame_chrome_on_trace_value (ld, json, v, depth, error);
}

static int
compare_chunks (const void *a,
                const void *b)
{
  const Chunk *x = a, *y = b;

  if (x->profile != y->profile)
    return x->profile < y->profile ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct
{
  gint64  id;
  guint32 index;
} IdIndex;

static int
compare_ids (const void *a,
             const void *b)
{
  const IdIndex *x = a, *y = b;

  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static gboolean
id_before (gconstpointer entry,
           gconstpointer key)
{
  return ((const IdIndex *) entry)->id < *(const gint64 *) key;
}

static gint64
lookup_id (const IdIndex *ids,
           guint          n,
           gint64         id)
{
  gsize lo = flame_partition_point (ids, n, sizeof (IdIndex), id_before, &id);

  return lo < n && ids[lo].id == id ? (gint64) ids[lo].index : -1;
}

/* One profile's nodes while build_profile() puts them in the tree */
typedef struct
{
  Loader      *ld;
  guint32      pi;
  FlameTree   *tree;
  const Node  *nodes;     /* all profiles' */
  GArray      *local;     /* guint32: this profile's indices in nodes */
  guint        n;
  IdIndex     *ids;       /* by id */
  gint64      *parent;    /* local index of each node's parent, -1: none */
  guint32     *tnode;     /* tree node of each, DROP: left out */
  guint8      *on_top;    /* 1: (program) or GC, charged on top of the previous sample */
  gint32      *by_dense;  /* local index of each dense sample id, -1: not here */
  gsize        n_dense;
} ProfileBuild;

/* What replaying the samples counted */
typedef struct
{
  guint64 n_samples;
  guint64 n_deltas;
  guint64 n_unknown;
  gdouble total_us;
} SampleTotals;

static inline const Node *
local_node (const ProfileBuild *pb,
            gint64              i)
{
  return &pb->nodes[g_array_index (pb->local, guint32, i)];
}

/* This profile's nodes, and their ids sorted; an id twice is an error */
static gboolean
index_nodes (ProfileBuild  *pb,
             GError       **error)
{
  for (guint i = 0; i < pb->ld->nodes->len; i++)
    if (pb->nodes[i].profile == pb->pi)
      g_array_append_val (pb->local, i);
  pb->n = pb->local->len;
  pb->ids = g_new (IdIndex, MAX (pb->n, 1));
  for (guint i = 0; i < pb->n; i++)
    {
      pb->ids[i].id = local_node (pb, i)->id;
      pb->ids[i].index = i;
    }
  qsort (pb->ids, pb->n, sizeof (IdIndex), compare_ids);
  for (guint i = 1; i < pb->n; i++)
    if (pb->ids[i].id == pb->ids[i - 1].id)
      {
        flame_input_set_error (pb->ld->in, error, FLAME_ERROR_PARSE, 0,
                               "node id %" G_GINT64_FORMAT " appears twice in one profile",
                               pb->ids[i].id);
        return FALSE;
      }
  return TRUE;
}

/* parents: from "parent", then from "children" (which wins, as in speedscope) */
static void
link_parents (ProfileBuild *pb)
{
  pb->parent = g_new (gint64, MAX (pb->n, 1));
  for (guint i = 0; i < pb->n; i++)
    {
      gint64 p = local_node (pb, i)->parent;
      pb->parent[i] = p == NO_PARENT ? -1 : lookup_id (pb->ids, pb->n, p);
    }
  for (guint i = 0; i < pb->ld->edges->len; i++)
    {
      const Edge *e = &g_array_index (pb->ld->edges, Edge, i);
      gint64 c, p;

      if (e->profile != pb->pi)
        continue;
      c = lookup_id (pb->ids, pb->n, e->child);
      p = lookup_id (pb->ids, pb->n, e->parent);
      if (c >= 0 && p >= 0)
        pb->parent[c] = p;
    }
}

/* tree node of every profile node, iteratively, with cycle detection */
static gboolean
map_tree_nodes (ProfileBuild  *pb,
                GError       **error)
{
  g_autoptr(GArray) chain = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 *tnode = pb->tnode = g_new (guint32, MAX (pb->n, 1));

  /* a byte per node that sample_node() reads instead of the node (the
   * node table misses the caches on nearly every sample) */
  pb->on_top = g_new (guint8, MAX (pb->n, 1));
  for (guint i = 0; i < pb->n; i++)
    {
      tnode[i] = UNSET;
      pb->on_top[i] = local_node (pb, i)->kind == KIND_ON_TOP;
    }
  for (guint i = 0; i < pb->n; i++)
    {
      gint64 j = i;
      guint32 at;

      g_array_set_size (chain, 0);
      while (j >= 0 && tnode[j] == UNSET)
        {
          tnode[j] = VISITING;
          g_array_append_val (chain, j);
          j = pb->parent[j];
        }
      if (j >= 0 && tnode[j] == VISITING)
        {
          flame_input_set_error (pb->ld->in, error, FLAME_ERROR_PARSE, 0,
                                 "node %" G_GINT64_FORMAT
                                 " is its own ancestor (the parent links form a cycle)",
                                 local_node (pb, j)->id);
          return FALSE;
        }
      if (chain->len > FLAME_MAX_DEPTH)
        {
          flame_input_set_error (pb->ld->in, error, FLAME_ERROR_TOO_LARGE, 0,
                                 "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
          return FALSE;
        }
      at = j >= 0 ? tnode[j] : FLAME_TREE_ROOT;
      for (guint k = chain->len; k > 0; k--)
        {
          guint32 c = g_array_index (chain, guint32, k - 1);
          const Node *nd = local_node (pb, c);

          if (at == DROP || nd->kind == KIND_IDLE)
            at = DROP;
          else if (nd->kind != KIND_ROOT)
            at = flame_tree_child (pb->tree, at, nd->frame);
          tnode[c] = at;
        }
    }
  return TRUE;
}

/* dense index of a sample -> this profile's node */
static void
index_dense (ProfileBuild *pb)
{
  for (guint i = 0; i < pb->n; i++)
    dense_of (pb->ld, local_node (pb, i)->id);
  pb->n_dense = pb->ld->dense_ids->len;
  pb->by_dense = g_new (gint32, MAX (pb->n_dense, 1));
  for (gsize k = 0; k < pb->n_dense; k++)
    pb->by_dense[k] = -1;
  for (guint i = 0; i < pb->n; i++)
    pb->by_dense[dense_of (pb->ld, local_node (pb, i)->id)] = (gint32) i;
}

/* The tree node a sample of local node @li is charged to, after one
 * charged to @prev */
static guint32
sample_node (ProfileBuild *pb,
             gint64        li,
             guint32       prev)
{
  FlameTree *tree = pb->tree;
  const Node *nd;
  guint32 base, a;

  if (!pb->on_top[li] || pb->tnode[li] == DROP)
    return pb->tnode[li];
  nd = local_node (pb, li);
  /* speedscope puts GC and (program) on the previous stack */
  base = prev == DROP ? FLAME_TREE_ROOT : prev;
  a = base;
  /* ... unless it is open there already: back to it */
  while (a != FLAME_TREE_ROOT && tree->nodes[a].frame != nd->frame)
    a = tree->nodes[a].parent;
  return a != FLAME_TREE_ROOT ? a : flame_tree_child (tree, base, nd->frame);
}

/* samples in chunk order; sample i lasts until sample i+1 */
static void
add_samples (ProfileBuild *pb,
             const Chunk  *chunks,
             guint         n_chunks,
             SampleTotals *totals)
{
  Loader *ld = pb->ld;
  ProfileInfo *info = g_ptr_array_index (ld->profiles, pb->pi);
  gdouble elapsed = 0, last_valid = 0, prev_time = 0;
  gint64 prev_sample_local = -1;
  guint32 prev_tnode = FLAME_TREE_ROOT;
  gboolean first = TRUE;

  for (guint c = 0; c < n_chunks; c++)
    {
      const Chunk *ch = &chunks[c];
      const guint32 *smp = (const guint32 *) ld->samples->data;
      guint64 ns = ch->samples_end - ch->samples_start;

      for (guint64 s = 0; s < ns; s++)
        {
          gdouble d = s < ch->deltas_end - ch->deltas_start ? get_delta (ld, ch->deltas_start + s)
                                                            : 0;
          gdouble t;
          guint32 g = smp[ch->samples_start + s];
          gint64 li;

          li = g < pb->n_dense ? pb->by_dense[g] : -1;

          totals->n_deltas += s < ch->deltas_end - ch->deltas_start;
          if (ld->ev_timestamps)
            {
              /* old form: absolute µs timestamps, startTime in seconds */
              elapsed = first ? d - info->start_time * 1e6 : d - info->start_time * 1e6;
            }
          else
            elapsed += d;
          if (first || elapsed >= last_valid)
            last_valid = elapsed;
          t = last_valid;

          if (!first && prev_sample_local >= 0 && prev_tnode != DROP)
            {
              pb->tree->self[0][prev_tnode] += (t - prev_time) * 1000.0;
              totals->total_us += t - prev_time;
            }
          if (li < 0)
            {
              /* speedscope skips these too (Chrome 141 writes them) */
              totals->n_unknown++;
              prev_time = t;
              continue;
            }
          if (li != prev_sample_local)
            prev_tnode = sample_node (pb, li, prev_tnode);
          prev_sample_local = li;
          prev_time = t;
          first = FALSE;
          totals->n_samples++;
        }
    }
}

/* The name trace metadata ("thread_name") gave a thread, or NULL */
const char *
flame_chrome_thread_name (Loader *ld,
                          gint64  pid,
                          gint64  tid)
{
  g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, pid, tid);

  return g_hash_table_lookup (ld->thread_names, key);
}

/* The profile's thread, samples, interval and duration, and what was skipped */
static void
add_profile_totals (Loader             *ld,
                    const ProfileInfo  *info,
                    const SampleTotals *st)
{
  const char *tname = flame_chrome_thread_name (ld, info->pid, info->tid);
  FlameThread *thread;

  flame_profile_add_samples (ld->profile, 0, (gdouble) st->n_samples);
  thread = flame_profile_ensure_thread (ld->profile, tname ? tname : (info->tid >= 0 ? "" : "main"),
                                        info->pid, info->tid);
  thread->samples += (gdouble) st->n_samples;
  if (st->n_samples > 1 && st->total_us > 0)
    flame_profile_set_interval_ms (ld->profile,
                                   st->total_us / 1000.0 / (gdouble) (st->n_samples - 1));
  flame_profile_set_duration_ms (ld->profile, flame_profile_get_duration_ms (ld->profile) +
                                              st->total_us / 1000.0);
  if (st->n_unknown > 0)
    flame_profile_add_warning (ld->profile, "%s: skipped %" G_GUINT64_FORMAT " samples of nodes "
                               "that the profile does not define", ld->in->name, st->n_unknown);
  if (st->n_deltas < st->n_samples && st->n_samples > 0)
    flame_profile_add_warning (ld->profile, "%s: %" G_GUINT64_FORMAT " samples but only %"
                               G_GUINT64_FORMAT " time deltas; the missing ones count as 0",
                               ld->in->name, st->n_samples, st->n_deltas);
}

/* Builds one profile (all chunks with index @pi) into the tree. */
static gboolean
build_profile (Loader   *ld,
               guint32   pi,
               Chunk    *chunks,
               guint     n_chunks,
               GError  **error)
{
  ProfileBuild pb = { 0 };
  SampleTotals totals = { 0 };
  gboolean ok = FALSE;

  pb.ld = ld;
  pb.pi = pi;
  pb.tree = flame_profile_get_tree (ld->profile);
  pb.nodes = (const Node *) ld->nodes->data;
  pb.local = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (index_nodes (&pb, error))
    {
      link_parents (&pb);
      if (map_tree_nodes (&pb, error))
        {
          index_dense (&pb);
          add_samples (&pb, chunks, n_chunks, &totals);
          add_profile_totals (ld, g_ptr_array_index (ld->profiles, pi), &totals);
          ok = TRUE;
        }
    }
  g_array_unref (pb.local);
  g_free (pb.ids);
  g_free (pb.parent);
  g_free (pb.tnode);
  g_free (pb.on_top);
  g_free (pb.by_dense);
  return ok;
}

static void
loader_init (Loader *ld)
{
  ld->nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  ld->edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  ld->samples = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld->deltas = g_array_new (FALSE, FALSE, sizeof (gint32));
  ld->delta_big = g_array_new (FALSE, FALSE, sizeof (BigDelta));
  ld->dense_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  ld->chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  ld->profiles = g_ptr_array_new_with_free_func (profile_info_free);
  ld->profile_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  ld->thread_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ld->fn_name = g_string_new (NULL);
  ld->pending = g_ptr_array_new_with_free_func (pending_free);
  ld->url = g_string_new (NULL);
  ld->ev_fullname = g_string_new (NULL);
  ld->ev_args = g_string_new (NULL);
  ld->ev_url = g_string_new (NULL);
  ld->sframe_name = g_string_new (NULL);
  ld->dur_events = g_array_new (FALSE, FALSE, sizeof (DurEvent));
  ld->keys = g_ptr_array_new_with_free_func (g_free);
  ld->key_index = g_hash_table_new (g_str_hash, g_str_equal);
  ld->dthreads = g_ptr_array_new_with_free_func (flame_chrome_dthread_free);
  ld->dthread_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ld->tsamples = g_array_new (FALSE, FALSE, sizeof (TraceSample));
  ld->stack_frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
}

static void
loader_clear (Loader *ld)
{
  g_array_unref (ld->nodes);
  g_array_unref (ld->edges);
  g_array_unref (ld->samples);
  g_array_unref (ld->deltas);
  g_array_unref (ld->delta_big);
  g_array_unref (ld->dense_ids);
  g_free (ld->id_direct);
  if (ld->id_hash != NULL)
    g_hash_table_unref (ld->id_hash);
  g_array_unref (ld->chunks);
  g_hash_table_unref (ld->profile_by_key);
  g_ptr_array_unref (ld->profiles);
  g_hash_table_unref (ld->thread_names);
  g_string_free (ld->fn_name, TRUE);
  g_ptr_array_unref (ld->pending);
  g_string_free (ld->url, TRUE);
  g_free (ld->ev_thread_name);
  g_string_free (ld->ev_fullname, TRUE);
  g_string_free (ld->ev_args, TRUE);
  g_string_free (ld->ev_url, TRUE);
  g_string_free (ld->sframe_name, TRUE);
  g_array_unref (ld->dur_events);
  g_hash_table_unref (ld->key_index);
  g_ptr_array_unref (ld->keys);
  g_hash_table_unref (ld->dthread_index);
  g_ptr_array_unref (ld->dthreads);
  g_array_unref (ld->tsamples);
  g_hash_table_unref (ld->stack_frames);
}

/* Builds the profiles of the chunks (all, or options->thread's); the
 * others are only listed as threads, for `info` */
static gboolean
build_profiles (Loader  *ld,
                guint   *n_built,
                GError **error)
{
  g_array_sort (ld->chunks, compare_chunks);
  for (guint i = 0; i < ld->chunks->len;)
    {
      guint j = i;
      guint32 pi = g_array_index (ld->chunks, Chunk, i).profile;
      ProfileInfo *info = g_ptr_array_index (ld->profiles, pi);

      while (j < ld->chunks->len && g_array_index (ld->chunks, Chunk, j).profile == pi)
        j++;
      if (ld->opts->thread < 0 || info->tid == ld->opts->thread)
        {
          if (!build_profile (ld, pi, &g_array_index (ld->chunks, Chunk, i), j - i, error))
            return FALSE;
          (*n_built)++;
        }
      else
        {
          /* listed for `info`, not loaded */
          const char *tname = flame_chrome_thread_name (ld, info->pid, info->tid);
          FlameThread *t = flame_profile_ensure_thread (ld->profile, tname ? tname : "", info->pid,
                                                        info->tid);

          for (guint k = i; k < j; k++)
            t->samples += (gdouble) (g_array_index (ld->chunks, Chunk, k).samples_end -
                                     g_array_index (ld->chunks, Chunk, k).samples_start);
        }
      i = j;
    }
  return TRUE;
}

FlameProfile *
flame_chrome_load (FlameInput              *in,
                   FlameFormat              format,
                   const FlameLoadOptions  *options,
                   GError                 **error)
{
  static const FlameLoadOptions defaults = FLAME_LOAD_OPTIONS_DEFAULT;
  Loader ld = { 0 };
  FlameProfile *result = NULL;
  guint n_built = 0;

  ld.in = in;
  ld.format = format;
  ld.opts = options ? options : &defaults;
  ld.profile = flame_profile_new (format, 1);
  flame_profile_set_path (ld.profile, in->name);
  flame_profile_set_unit (ld.profile, FLAME_UNIT_NANOSECONDS);
  loader_init (&ld);

  if (format == FLAME_FORMAT_CHROME_CPUPROFILE)
    {
      ld.base = 1;
      flame_chrome_ensure_profile (&ld, "cpuprofile", -1);
    }

  /* partial files (a trace cut off mid-array) load what they hold */
  if (!flame_json_parse (in, format == FLAME_FORMAT_CHROME_TRACE ? FLAME_JSON_ALLOW_PARTIAL : 0,
                         on_value, &ld, error))
    goto out;

  if (format == FLAME_FORMAT_CHROME_CPUPROFILE)
    {
      Chunk c = { 0, 0, 0, 0, ld.samples->len, 0, ld.deltas->len };
      ProfileInfo *info = g_ptr_array_index (ld.profiles, 0);

      info->start_time = ld.start_time;
      g_array_append_val (ld.chunks, c);
    }

  if (format == FLAME_FORMAT_CHROME_TRACE && ld.chunks->len == 0 && !ld.saw_profile)
    {
      /* no Chrome profile data: the generic trace-event forms */
      if (!flame_chrome_build_generic (&ld, &n_built, error))
        goto out;
    }

  if (!build_profiles (&ld, &n_built, error))
    goto out;

  if (flame_profile_get_samples (ld.profile, 0) == 0)
    {
      if (ld.opts->thread >= 0)
        flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                               "no CPU profile samples for thread %" G_GINT64_FORMAT,
                               ld.opts->thread);
      else
        flame_input_set_error (
          in, error, FLAME_ERROR_EMPTY, 0, "no CPU profile samples in the file%s",
          format == FLAME_FORMAT_CHROME_TRACE
            ? " (no Profile/ProfileChunk data, B/E/X duration events or samples)"
            : "");
      goto out;
    }
  if (n_built > 1)
    flame_profile_set_metadata (ld.profile, "threads-merged", "yes");
  flame_profile_finish (ld.profile);
  result = g_steal_pointer (&ld.profile);

out:
  g_clear_object (&ld.profile);
  loader_clear (&ld);
  return result;
}

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
 * time until sample i+1, as speedscope does.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-chrome.h"
#include "flame-error.h"
#include "flame-json.h"

#define NO_PARENT  G_MININT64
#define UNSET      G_MAXUINT32
#define DROP       (G_MAXUINT32 - 1)   /* (idle): the sample is not CPU time */
#define VISITING   (G_MAXUINT32 - 2)

enum { KIND_NORMAL, KIND_ROOT, KIND_IDLE, KIND_ON_TOP };

typedef struct
{
  gint64  id;
  gint64  parent;     /* NO_PARENT: none given */
  guint32 frame;
  guint32 profile;
  guint8  kind;
} Node;

typedef struct
{
  gint64  parent;
  gint64  child;
  guint32 profile;
} Edge;

typedef struct
{
  guint32 profile;
  gdouble ts;
  guint64 order;
  guint64 samples_start, samples_end;
  guint64 deltas_start, deltas_end;
} Chunk;

typedef struct
{
  char    *key;        /* pid/id of a trace profile */
  gint64   pid;
  gint64   tid;
  gdouble  start_time;
  gboolean has_start;
} ProfileInfo;

typedef struct
{
  FlameInput             *in;
  FlameFormat             format;
  const FlameLoadOptions *opts;
  FlameProfile           *profile;

  GArray     *nodes;     /* Node */
  GArray     *edges;     /* Edge */
  GArray     *samples;   /* gint64 node ids */
  GArray     *deltas;    /* gdouble µs */
  GArray     *chunks;    /* Chunk */
  GPtrArray  *profiles;  /* ProfileInfo */
  GHashTable *profile_by_key;
  GHashTable *thread_names;  /* "pid/tid" -> name */

  /* the node being read */
  Node        node;
  GString    *fn_name;
  GString    *url;
  gint64      line;
  gboolean    in_node;

  /* the trace event being read */
  guint       ev_depth;    /* level of event objects, 0 = no trace */
  guint       base;        /* level of the map holding nodes/samples */
  char        ev_name[32];
  char        ev_ph;
  char        ev_id[64];
  gint64      ev_pid, ev_tid;
  gdouble     ev_ts;
  gdouble     ev_start_time;
  gboolean    ev_has_start;
  char       *ev_thread_name;
  guint       mark_nodes, mark_edges;
  guint64     mark_samples, mark_deltas;
  gboolean    ev_timestamps;  /* old format: absolute timestamps */

  /* the old tree form: nodes being read, one per nesting level */
  GPtrArray  *pending;         /* Pending, by level (head = 0) */
  guint8      tree_node[FLAME_JSON_MAX_DEPTH + 1];  /* the map at this depth is a node */

  gdouble     start_time;      /* .cpuprofile startTime (µs, or s in the old form) */
  guint64     n_events;
} Loader;

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

static guint32
ensure_profile (Loader     *ld,
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

static gboolean
want_int (FlameJson            *json,
          const FlameJsonValue *v,
          const char           *what,
          GError              **error)
{
  if (v->type == FLAME_JSON_INT)
    return TRUE;
  flame_json_set_error (json, error, FLAME_ERROR_PARSE, "%s must be an integer", what);
  return FALSE;
}

static gboolean
want_number (FlameJson            *json,
             const FlameJsonValue *v,
             const char           *what,
             GError              **error)
{
  if (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE)
    return TRUE;
  flame_json_set_error (json, error, FLAME_ERROR_PARSE, "%s must be a number", what);
  return FALSE;
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

/* Values inside the map that holds nodes/samples/timeDeltas (level
 * @base): a .cpuprofile's root, or args.data.cpuProfile of a trace event. */
static gboolean
on_profile_value (Loader               *ld,
                  FlameJson            *json,
                  const FlameJsonValue *v,
                  guint                 depth,
                  GError              **error)
{
  guint b = ld->base;
  gboolean scalar = v->type <= FLAME_JSON_STRING;

  /* samples[] and timeDeltas[]: the bulk of the file */
  if (depth == b + 1 && scalar && flame_json_level (json, b + 1)->is_array)
    {
      if (flame_json_key_is (json, b, "samples"))
        {
          if (!want_int (json, v, "a sample", error))
            return FALSE;
          g_array_append_val (ld->samples, v->i);
          return TRUE;
        }
      if (flame_json_key_is (json, b, "timeDeltas") || flame_json_key_is (json, b, "timestamps"))
        {
          if (!want_number (json, v, "a time delta", error))
            return FALSE;
          g_array_append_val (ld->deltas, v->d);
          ld->ev_timestamps = flame_json_key_is (json, b, "timestamps");
          return TRUE;
        }
      return TRUE;
    }

  /* nodes[i] */
  if (depth == b + 2 && flame_json_key_is (json, b, "nodes"))
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
      else if (scalar)
        {
          const char *key = flame_json_level (json, b + 2)->key;

          if (strcmp (key, "id") == 0)
            {
              if (!want_int (json, v, "a node id", error))
                return FALSE;
              ld->node.id = v->i;
            }
          else if (strcmp (key, "parent") == 0 && v->type != FLAME_JSON_NULL)
            {
              if (!want_int (json, v, "a node parent", error))
                return FALSE;
              ld->node.parent = v->i;
            }
        }
      return TRUE;
    }
  if (depth == b + 3 && scalar && flame_json_key_is (json, b, "nodes"))
    {
      const char *key = flame_json_level (json, b + 3)->key;

      if (flame_json_key_is (json, b + 2, "callFrame"))
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
          else if (strcmp (key, "lineNumber") == 0 && (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
            ld->line = v->i;
        }
      else if (flame_json_key_is (json, b + 2, "children"))
        {
          Edge e;

          if (!want_int (json, v, "a child id", error))
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
        }
    }
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
                         (d >= 4 && ld->tree_node[d - 2] && flame_json_key_is (json, d - 2, "children") &&
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
        g_array_append_val (((Pending *) g_ptr_array_index (ld->pending, d / 2 - 2))->kids, p->node.id);
      return TRUE;
    }
  if (!scalar)
    return TRUE;
  /* a node's own fields, or the newer callFrame object inside it */
  if (ld->tree_node[d] || (d >= 3 && ld->tree_node[d - 1] && flame_json_key_is (json, d - 1, "callFrame")))
    {
      guint nd = ld->tree_node[d] ? d : d - 1;
      Pending *p = g_ptr_array_index (ld->pending, nd / 2 - 1);
      const FlameJsonLevel *l = flame_json_level (json, d);

      if (l->is_array || l->key_len == 255)
        return TRUE;
      if (strcmp (l->key, "id") == 0 && nd == d)
        {
          if (!want_int (json, v, "a node id", error))
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
                               memchr (v->str, 0, v->len) ? (gssize) ((const char *) memchr (v->str, 0, v->len) - v->str)
                                                          : (gssize) v->len);
        }
      else if (strcmp (l->key, "lineNumber") == 0 && (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
        p->line = v->i;
    }
  return TRUE;
}

static gboolean
on_event (FlameJson            *json,
          const FlameJsonValue *v,
          gpointer              user_data,
          GError              **error)
{
  Loader *ld = user_data;
  guint depth = flame_json_depth (json);
  guint e = ld->ev_depth;

  if (ld->format == FLAME_FORMAT_CHROME_CPUPROFILE)
    {
      if (depth >= 1 && (ld->base == 1) && (flame_json_key_is (json, 1, "nodes") ||
                                           flame_json_key_is (json, 1, "samples") ||
                                           flame_json_key_is (json, 1, "timeDeltas") ||
                                           flame_json_key_is (json, 1, "timestamps")) && depth >= 2)
        return on_profile_value (ld, json, v, depth, error);
      if (depth == 1 && flame_json_key_is (json, 1, "startTime") && v->type <= FLAME_JSON_STRING)
        {
          if (!want_number (json, v, "startTime", error))
            return FALSE;
          ld->start_time = v->d;
        }
      if (depth >= 2 && flame_json_key_is (json, 1, "head"))
        return on_tree_value (ld, json, v, depth, error);
      return TRUE;
    }

  /* trace events: find the level of the event objects first */
  if (e == 0)
    {
      if (v->type == FLAME_JSON_START_ARRAY &&
          ((depth == 1) || (depth == 2 && flame_json_key_is (json, 1, "traceEvents"))))
        ld->ev_depth = depth + 1;
      return TRUE;
    }
  if (depth < e)
    return TRUE;

  if (depth == e)
    {
      if (v->type == FLAME_JSON_START_MAP)
        {
          ld->ev_name[0] = '\0';
          ld->ev_ph = 0;
          ld->ev_id[0] = '\0';
          ld->ev_pid = ld->ev_tid = -1;
          ld->ev_ts = 0;
          ld->ev_has_start = FALSE;
          g_clear_pointer (&ld->ev_thread_name, g_free);
          ld->mark_nodes = ld->nodes->len;
          ld->mark_edges = ld->edges->len;
          ld->mark_samples = ld->samples->len;
          ld->mark_deltas = ld->deltas->len;
          ld->base = 0;
          ld->n_events++;
          if (!flame_input_tick (ld->in, flame_json_offset (json), error))
            return FALSE;
          return TRUE;
        }
      if (v->type == FLAME_JSON_END_MAP)
        {
          gboolean is_profile = strcmp (ld->ev_name, "Profile") == 0 ||
                                strcmp (ld->ev_name, "ProfileChunk") == 0 ||
                                strcmp (ld->ev_name, "CpuProfile") == 0;
          char key[96];

          if (strcmp (ld->ev_name, "thread_name") == 0 && ld->ev_ph == 'M' && ld->ev_thread_name)
            g_hash_table_insert (ld->thread_names,
                                 g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, ld->ev_pid, ld->ev_tid),
                                 g_steal_pointer (&ld->ev_thread_name));
          if (!is_profile)
            {
              /* not ours: forget what its args looked like */
              g_array_set_size (ld->nodes, ld->mark_nodes);
              g_array_set_size (ld->edges, ld->mark_edges);
              g_array_set_size (ld->samples, ld->mark_samples);
              g_array_set_size (ld->deltas, ld->mark_deltas);
              return TRUE;
            }
          if (strcmp (ld->ev_name, "CpuProfile") == 0)
            g_snprintf (key, sizeof key, "%" G_GINT64_FORMAT "/cpuprofile-%" G_GUINT64_FORMAT,
                        ld->ev_pid, ld->n_events);
          else
            g_snprintf (key, sizeof key, "%" G_GINT64_FORMAT "/%s", ld->ev_pid, ld->ev_id);
          {
            guint32 pi = ensure_profile (ld, key, ld->ev_pid);
            ProfileInfo *info = g_ptr_array_index (ld->profiles, pi);
            Chunk c;

            if (strcmp (ld->ev_name, "ProfileChunk") != 0 || info->tid < 0)
              info->tid = ld->ev_tid;
            if (ld->ev_has_start && (!info->has_start || strcmp (ld->ev_name, "ProfileChunk") != 0))
              {
                info->start_time = ld->ev_start_time;
                info->has_start = TRUE;
              }
            for (guint i = ld->mark_nodes; i < ld->nodes->len; i++)
              g_array_index (ld->nodes, Node, i).profile = pi;
            for (guint i = ld->mark_edges; i < ld->edges->len; i++)
              g_array_index (ld->edges, Edge, i).profile = pi;
            c.profile = pi;
            c.ts = ld->ev_ts;
            c.order = ld->chunks->len;
            c.samples_start = ld->mark_samples;
            c.samples_end = ld->samples->len;
            c.deltas_start = ld->mark_deltas;
            c.deltas_end = ld->deltas->len;
            g_array_append_val (ld->chunks, c);
          }
          return TRUE;
        }
      return TRUE;
    }

  return TRUE;
}

/* The parser's strings are not NUL-terminated: never strlen() them. */
static void
copy_bounded (char       *dest,
              gsize       size,
              const char *src,
              gsize       len)
{
  len = MIN (len, size - 1);
  memcpy (dest, src, len);
  dest[len] = '\0';
}

/* Event-level scalars and args.data paths, split out to keep on_event
 * readable: called for every event inside a trace event object. */
static gboolean
on_trace_value (FlameJson            *json,
                const FlameJsonValue *v,
                gpointer              user_data,
                GError              **error)
{
  Loader *ld = user_data;
  guint depth = flame_json_depth (json);
  guint e = ld->ev_depth;
  gboolean scalar = v->type <= FLAME_JSON_STRING;

  if (ld->format == FLAME_FORMAT_CHROME_CPUPROFILE || e == 0 || depth < e ||
      (depth == e && !scalar))
    return on_event (json, v, user_data, error);

  if (depth == e && scalar)
    {
      const char *key = flame_json_level (json, e)->key;

      if (strcmp (key, "name") == 0 && v->type == FLAME_JSON_STRING)
        copy_bounded (ld->ev_name, sizeof ld->ev_name, v->str, v->len);
      else if (strcmp (key, "ph") == 0 && v->type == FLAME_JSON_STRING && v->len > 0)
        ld->ev_ph = v->str[0];
      else if (strcmp (key, "id") == 0)
        {
          if (v->type == FLAME_JSON_STRING)
            copy_bounded (ld->ev_id, sizeof ld->ev_id, v->str, v->len);
          else
            g_snprintf (ld->ev_id, sizeof ld->ev_id, "%" G_GINT64_FORMAT, v->i);
        }
      else if (strcmp (key, "pid") == 0 && v->type != FLAME_JSON_STRING)
        ld->ev_pid = v->i;
      else if (strcmp (key, "tid") == 0 && v->type != FLAME_JSON_STRING)
        ld->ev_tid = v->i;
      else if (strcmp (key, "ts") == 0 && v->type != FLAME_JSON_STRING)
        ld->ev_ts = v->d;
      return TRUE;
    }

  /* args.name of thread_name metadata */
  if (depth == e + 1 && scalar && flame_json_key_is (json, e, "args") &&
      flame_json_key_is (json, e + 1, "name") && v->type == FLAME_JSON_STRING)
    {
      g_free (ld->ev_thread_name);
      ld->ev_thread_name = g_utf8_make_valid (v->str, MIN (v->len, (gsize) 1024));
      return TRUE;
    }

  if (!flame_json_key_is (json, e, "args") || depth < e + 2 || !flame_json_key_is (json, e + 1, "data"))
    return TRUE;

  /* args.data.startTime, args.data.timeDeltas[] */
  if (depth == e + 2 && scalar && flame_json_key_is (json, e + 2, "startTime"))
    {
      if (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE)
        {
          ld->ev_start_time = v->d;
          ld->ev_has_start = TRUE;
        }
      return TRUE;
    }
  if (depth == e + 3 && scalar && flame_json_key_is (json, e + 2, "timeDeltas"))
    {
      if (!want_number (json, v, "a time delta", error))
        return FALSE;
      g_array_append_val (ld->deltas, v->d);
      return TRUE;
    }
  if (depth == e + 3 && v->type == FLAME_JSON_START_MAP && flame_json_key_is (json, e + 2, "cpuProfile"))
    {
      ld->base = e + 3;
      return TRUE;
    }
  if (ld->base == e + 3 && depth > e + 3 && flame_json_key_is (json, e + 2, "cpuProfile"))
    return on_profile_value (ld, json, v, depth, error);
  if (ld->base == e + 3 && depth == e + 3 && scalar && flame_json_key_is (json, e + 3, "startTime") &&
      (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
    {
      ld->ev_start_time = v->d;
      ld->ev_has_start = TRUE;
    }
  return TRUE;
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

static gint64
lookup_id (const IdIndex *ids,
           guint          n,
           gint64         id)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (ids[mid].id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && ids[lo].id == id ? (gint64) ids[lo].index : -1;
}

/* Builds one profile (all chunks with index @pi) into the tree. */
static gboolean
build_profile (Loader   *ld,
               guint32   pi,
               Chunk    *chunks,
               guint     n_chunks,
               GError  **error)
{
  ProfileInfo *info = g_ptr_array_index (ld->profiles, pi);
  FlameTree *tree = flame_profile_get_tree (ld->profile);
  g_autoptr(GArray) local = g_array_new (FALSE, FALSE, sizeof (guint32));   /* node indices */
  g_autofree IdIndex *ids = NULL;
  g_autofree gint64 *parent = NULL;
  g_autofree guint32 *tnode = NULL;
  g_autofree gint32 *dense = NULL;
  gint64 id_min = 0;
  gsize n_dense = 0;
  g_autoptr(GArray) chain = g_array_new (FALSE, FALSE, sizeof (guint32));
  const Node *nodes = (const Node *) ld->nodes->data;
  guint n;
  gdouble elapsed = 0, last_valid = 0, prev_time = 0;
  guint64 n_samples = 0;
  gint64 prev_sample_local = -1;
  guint32 prev_tnode = FLAME_TREE_ROOT;
  gboolean first = TRUE;
  gdouble total_us = 0;
  guint64 n_deltas = 0;
  guint64 n_unknown = 0;
  FlameThread *thread;
  g_autofree char *tkey = NULL;
  const char *tname;

  for (guint i = 0; i < ld->nodes->len; i++)
    if (nodes[i].profile == pi)
      g_array_append_val (local, i);
  n = local->len;
  ids = g_new (IdIndex, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      ids[i].id = nodes[g_array_index (local, guint32, i)].id;
      ids[i].index = i;
    }
  qsort (ids, n, sizeof (IdIndex), compare_ids);
  for (guint i = 1; i < n; i++)
    if (ids[i].id == ids[i - 1].id)
      {
        flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                               "node id %" G_GINT64_FORMAT " appears twice in one profile", ids[i].id);
        return FALSE;
      }

  /* parents: from "parent", then from "children" (which wins, as in speedscope) */
  parent = g_new (gint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      gint64 p = nodes[g_array_index (local, guint32, i)].parent;
      parent[i] = p == NO_PARENT ? -1 : lookup_id (ids, n, p);
    }
  for (guint i = 0; i < ld->edges->len; i++)
    {
      const Edge *e = &g_array_index (ld->edges, Edge, i);
      gint64 c, p;

      if (e->profile != pi)
        continue;
      c = lookup_id (ids, n, e->child);
      p = lookup_id (ids, n, e->parent);
      if (c >= 0 && p >= 0)
        parent[c] = p;
    }

  /* tree node of every profile node, iteratively, with cycle detection */
  tnode = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    tnode[i] = UNSET;
  for (guint i = 0; i < n; i++)
    {
      gint64 j = i;
      guint32 at;

      g_array_set_size (chain, 0);
      while (j >= 0 && tnode[j] == UNSET)
        {
          tnode[j] = VISITING;
          g_array_append_val (chain, j);
          j = parent[j];
        }
      if (j >= 0 && tnode[j] == VISITING)
        {
          flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                                 "node %" G_GINT64_FORMAT " is its own ancestor (the parent links form a cycle)",
                                 nodes[g_array_index (local, guint32, j)].id);
          return FALSE;
        }
      if (chain->len > FLAME_MAX_DEPTH)
        {
          flame_input_set_error (ld->in, error, FLAME_ERROR_TOO_LARGE, 0,
                                 "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
          return FALSE;
        }
      at = j >= 0 ? tnode[j] : FLAME_TREE_ROOT;
      for (guint k = chain->len; k > 0; k--)
        {
          guint32 c = g_array_index (chain, guint32, k - 1);
          const Node *nd = &nodes[g_array_index (local, guint32, c)];

          if (at == DROP || nd->kind == KIND_IDLE)
            at = DROP;
          else if (nd->kind != KIND_ROOT)
            at = flame_tree_child (tree, at, nd->frame);
          tnode[c] = at;
        }
    }

  if (n > 0 && ids[n - 1].id - ids[0].id < (gint64) n * 4 + 1024)
    {
      id_min = ids[0].id;
      n_dense = (gsize) (ids[n - 1].id - id_min) + 1;
      dense = g_new (gint32, n_dense);
      for (gsize k = 0; k < n_dense; k++)
        dense[k] = -1;
      for (guint k = 0; k < n; k++)
        dense[ids[k].id - id_min] = (gint32) ids[k].index;
    }

  /* samples in chunk order; sample i lasts until sample i+1 */
  for (guint c = 0; c < n_chunks; c++)
    {
      const Chunk *ch = &chunks[c];
      const gint64 *smp = (const gint64 *) ld->samples->data;
      const gdouble *dl = (const gdouble *) ld->deltas->data;
      guint64 ns = ch->samples_end - ch->samples_start;

      for (guint64 s = 0; s < ns; s++)
        {
          gdouble d = s < ch->deltas_end - ch->deltas_start ? dl[ch->deltas_start + s] : 0;
          gdouble t;
          gint64 id = smp[ch->samples_start + s];
          gint64 li;

          /* node ids are small and dense in every producer: a direct
           * table instead of a binary search per sample (a cache miss
           * per probe on big profiles) */
          if (dense != NULL)
            li = id >= id_min && id - id_min < (gint64) n_dense ? dense[id - id_min] : -1;
          else
            li = lookup_id (ids, n, id);

          n_deltas += s < ch->deltas_end - ch->deltas_start;
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
              tree->self[0][prev_tnode] += (t - prev_time) * 1000.0;
              total_us += t - prev_time;
            }
          if (li < 0)
            {
              /* speedscope skips these too (Chrome 141 writes them) */
              n_unknown++;
              prev_time = t;
              continue;
            }
          if (li != prev_sample_local)
            {
              const Node *nd = &nodes[g_array_index (local, guint32, li)];

              if (nd->kind == KIND_ON_TOP && tnode[li] != DROP)
                {
                  /* speedscope puts GC and (program) on the previous stack */
                  guint32 base = prev_tnode == DROP ? FLAME_TREE_ROOT : prev_tnode;
                  guint32 a = base;

                  /* ... unless it is open there already: back to it */
                  while (a != FLAME_TREE_ROOT && tree->nodes[a].frame != nd->frame)
                    a = tree->nodes[a].parent;
                  prev_tnode = a != FLAME_TREE_ROOT ? a : flame_tree_child (tree, base, nd->frame);
                }
              else
                prev_tnode = tnode[li];
            }
          prev_sample_local = li;
          prev_time = t;
          first = FALSE;
          n_samples++;
        }
    }

  flame_profile_add_samples (ld->profile, 0, (gdouble) n_samples);
  tkey = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, info->pid, info->tid);
  tname = g_hash_table_lookup (ld->thread_names, tkey);
  thread = flame_profile_ensure_thread (ld->profile, tname ? tname : (info->tid >= 0 ? "" : "main"),
                                        info->pid, info->tid);
  thread->samples += (gdouble) n_samples;
  if (n_samples > 1 && total_us > 0)
    flame_profile_set_interval_ms (ld->profile, total_us / 1000.0 / (gdouble) (n_samples - 1));
  flame_profile_set_duration_ms (ld->profile, flame_profile_get_duration_ms (ld->profile) + total_us / 1000.0);
  if (n_unknown > 0)
    flame_profile_add_warning (ld->profile, "%s: skipped %" G_GUINT64_FORMAT " samples of nodes "
                               "that the profile does not define", ld->in->name, n_unknown);
  if (n_deltas < n_samples && n_samples > 0)
    flame_profile_add_warning (ld->profile, "%s: %" G_GUINT64_FORMAT " samples but only %"
                               G_GUINT64_FORMAT " time deltas; the missing ones count as 0",
                               ld->in->name, n_samples, n_deltas);
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
  ld.nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  ld.edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  ld.samples = g_array_new (FALSE, FALSE, sizeof (gint64));
  ld.deltas = g_array_new (FALSE, FALSE, sizeof (gdouble));
  ld.chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  ld.profiles = g_ptr_array_new_with_free_func (profile_info_free);
  ld.profile_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  ld.thread_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ld.fn_name = g_string_new (NULL);
  ld.pending = g_ptr_array_new_with_free_func (pending_free);
  ld.url = g_string_new (NULL);

  if (format == FLAME_FORMAT_CHROME_CPUPROFILE)
    {
      ld.base = 1;
      ensure_profile (&ld, "cpuprofile", -1);
    }

  /* partial files (a trace cut off mid-array) load what they hold */
  if (!flame_json_parse (in, format == FLAME_FORMAT_CHROME_TRACE ? FLAME_JSON_ALLOW_PARTIAL : 0,
                         on_trace_value, &ld, error))
    goto out;

  if (format == FLAME_FORMAT_CHROME_CPUPROFILE)
    {
      Chunk c = { 0, 0, 0, 0, ld.samples->len, 0, ld.deltas->len };
      ProfileInfo *info = g_ptr_array_index (ld.profiles, 0);

      info->start_time = ld.start_time;
      g_array_append_val (ld.chunks, c);
    }

  g_array_sort (ld.chunks, compare_chunks);
  for (guint i = 0; i < ld.chunks->len;)
    {
      guint j = i;
      guint32 pi = g_array_index (ld.chunks, Chunk, i).profile;
      ProfileInfo *info = g_ptr_array_index (ld.profiles, pi);

      while (j < ld.chunks->len && g_array_index (ld.chunks, Chunk, j).profile == pi)
        j++;
      if (ld.opts->thread < 0 || info->tid == ld.opts->thread)
        {
          if (!build_profile (&ld, pi, &g_array_index (ld.chunks, Chunk, i), j - i, error))
            goto out;
          n_built++;
        }
      else
        {
          /* listed for `info`, not loaded */
          g_autofree char *tkey = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, info->pid, info->tid);
          const char *tname = g_hash_table_lookup (ld.thread_names, tkey);
          FlameThread *t = flame_profile_ensure_thread (ld.profile, tname ? tname : "", info->pid, info->tid);
          for (guint k = i; k < j; k++)
            t->samples += (gdouble) (g_array_index (ld.chunks, Chunk, k).samples_end -
                                     g_array_index (ld.chunks, Chunk, k).samples_start);
        }
      i = j;
    }

  if (flame_profile_get_samples (ld.profile, 0) == 0)
    {
      if (ld.opts->thread >= 0)
        flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                               "no CPU profile samples for thread %" G_GINT64_FORMAT, ld.opts->thread);
      else
        flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                               "no CPU profile samples in the file%s",
                               format == FLAME_FORMAT_CHROME_TRACE
                               ? " (trace events without Profile/ProfileChunk data are not read yet)" : "");
      goto out;
    }
  if (n_built > 1)
    flame_profile_set_metadata (ld.profile, "threads-merged", "yes");
  flame_profile_finish (ld.profile);
  result = g_steal_pointer (&ld.profile);

out:
  g_clear_object (&ld.profile);
  g_array_unref (ld.nodes);
  g_array_unref (ld.edges);
  g_array_unref (ld.samples);
  g_array_unref (ld.deltas);
  g_array_unref (ld.chunks);
  g_hash_table_unref (ld.profile_by_key);
  g_ptr_array_unref (ld.profiles);
  g_hash_table_unref (ld.thread_names);
  g_string_free (ld.fn_name, TRUE);
  g_ptr_array_unref (ld.pending);
  g_string_free (ld.url, TRUE);
  g_free (ld.ev_thread_name);
  return result;
}

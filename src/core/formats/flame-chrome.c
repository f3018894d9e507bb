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

#include <math.h>
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

/* A B, E or X event of the generic trace-event format, kept until the
 * end: the events of a thread are put in time order only when all are in. */
typedef struct
{
  gdouble ts;
  gdouble dur;        /* X: dur, else tdur, else 0 */
  guint32 thread;     /* index into Loader.dthreads */
  guint32 key;        /* index into Loader.keys: name + " " + JSON of args */
  guint32 name;       /* index into Loader.keys: the name alone */
  guint32 frame;
  char    ph;
} DurEvent;

/* A sample of the {traceEvents, samples, stackFrames} form */
typedef struct
{
  gdouble ts;
  gint64  sf;
  guint32 thread;
} TraceSample;

typedef struct
{
  guint32  frame;
  gint64   parent;    /* 0: none (speedscope stops at a falsy parent) */
} StackFrame;

/* A pid/tid of the generic forms */
typedef struct
{
  gint64  pid, tid;
  char   *sort_key;   /* speedscope's zero-padded "pid:tid", its profile order */
  guint64 n_events;   /* B, E and X events */
  guint64 n_begins;   /* B and X events */
  guint64 n_samples;
} DThread;

#define DELTA_BIG G_MININT32

typedef struct
{
  guint64 index;
  gdouble value;
} BigDelta;

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
  /* Samples and deltas are the bulk of a big trace and are kept until
   * the chunks are sorted: 4 bytes each, not 8. A sample is a dense
   * index for its node id (ids numbered as they are first seen, in one
   * numbering for all profiles); a delta is an int32 of µs, or
   * DELTA_BIG with the exact value in delta_big (fractional or huge
   * values: the old form's absolute timestamps). */
  GArray     *samples;   /* guint32 dense ids */
  GArray     *deltas;    /* gint32 µs, or DELTA_BIG */
  GArray     *delta_big; /* BigDelta, by index */
  guint       samples_cap, deltas_cap;  /* see append_u32 */
  GArray     *dense_ids; /* gint64: dense index -> node id */
  guint32    *id_direct; /* id -> dense index + 1, for small ids */
  gsize       n_direct;
  GHashTable *id_hash;   /* the other ids: gint64 -> dense index + 1 */
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

  /* the generic trace-event forms (B/E/X events; samples + stackFrames) */
  gboolean    saw_profile;     /* a Profile/ProfileChunk/CpuProfile event: those win */
  GString    *ev_fullname;
  gboolean    ev_has_ts;
  gdouble     ev_dur, ev_tdur;
  gboolean    ev_has_dur, ev_has_tdur;
  GString    *ev_args;         /* JSON.stringify(args), as speedscope keys events */
  gboolean    ev_args_truthy;
  gboolean    ev_args_open;
  gboolean    ev_args_long;
  guint8      args_first[FLAME_JSON_MAX_DEPTH + 1];
  GString    *ev_url;          /* Hermes: args.url, args.line */
  gboolean    ev_has_url;
  gint64      ev_line;
  guint       hermes_keys;     /* required Hermes args seen in the first event */
  gboolean    hermes;
  GArray     *dur_events;      /* DurEvent */
  GPtrArray  *keys;            /* interned event keys and names */
  GHashTable *key_index;       /* key -> index + 1 */
  GPtrArray  *dthreads;        /* DThread */
  GHashTable *dthread_index;   /* "pid/tid" -> index + 1 */
  GArray     *tsamples;        /* TraceSample */
  GHashTable *stack_frames;    /* gint64 id -> StackFrame */
  gboolean    has_samples_key, has_stack_frames_key;
  TraceSample tsample;
  gboolean    tsample_has_ts, tsample_has_sf;
  gint64      tsample_pid, tsample_tid;
  StackFrame  sframe;
  GString    *sframe_name;
  guint64     n_long_args;

  /* The array whose scalars go to samples or deltas, once its first
   * scalar has taken the full path checks (0 = none): the rest of it
   * skips them. Valid while that array is open and the event level,
   * the profile level and the args state are what they were. */
  guint       hot_depth;
  guint       hot_e, hot_base;
  guint8      hot_kind;
} Loader;

enum { HOT_SAMPLES = 1, HOT_DELTAS, HOT_TIMESTAMPS, HOT_TRACE_DELTAS };

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

static void
append_delta (Loader  *ld,
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
  guint lo = 0, hi = ld->delta_big->len;

  if (v != DELTA_BIG)
    return v;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (big[mid].index < index)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < ld->delta_big->len && big[lo].index == index ? big[lo].value : 0;
}

static gboolean on_trace_value (FlameJson            *json,
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
static inline void
set_hot (Loader    *ld,
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
  append_delta (ld, v->d);
  if (ld->hot_kind != HOT_TRACE_DELTAS)
    ld->ev_timestamps = ld->hot_kind == HOT_TIMESTAMPS;
  return TRUE;
}

/* An integer directly in the hot array (flame_json_set_int_sink): what
 * on_trace_value does with it, without the FlameJsonValue. Should the
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
          /* append_delta for an integer: exact in an int32 unless it is
           * G_MININT32 (DELTA_BIG) or beyond */
          if (value > G_MININT32 && value <= G_MAXINT32)
            append_u32 (ld->deltas, &ld->deltas_cap, (guint32) (gint32) value);
          else
            append_delta (ld, (gdouble) value);
          if (ld->hot_kind != HOT_TRACE_DELTAS)
            ld->ev_timestamps = ld->hot_kind == HOT_TIMESTAMPS;
        }
      return TRUE;
    }
  else
    {
      FlameJsonValue v = { .type = FLAME_JSON_INT, .i = value, .d = (gdouble) value };

      return on_trace_value (json, &v, user_data, error);
    }
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
          guint32 d;

          if (!flame_json_want (json, v, FLAME_JSON_WANT_INTEGER, "a sample", error))
            return FALSE;
          d = dense_of (ld, v->i);
          g_array_append_val (ld->samples, d);
          set_hot (ld, json, depth, HOT_SAMPLES);
          return TRUE;
        }
      if (flame_json_key_is (json, b, "timeDeltas") || flame_json_key_is (json, b, "timestamps"))
        {
          if (!flame_json_want (json, v, FLAME_JSON_WANT_NUMBER, "a time delta", error))
            return FALSE;
          append_delta (ld, v->d);
          ld->ev_timestamps = flame_json_key_is (json, b, "timestamps");
          set_hot (ld, json, depth, ld->ev_timestamps ? HOT_TIMESTAMPS : HOT_DELTAS);
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
        }
    }
  return TRUE;
}

/* ---- the generic trace-event forms ---- */

/* A number, or a string holding one: Hermes writes "ts":"11550183666"
 * and "tid":"1", and speedscope reads them with Number(). */
static gboolean
number_of (const FlameJsonValue *v,
           gdouble              *out)
{
  char buf[64];
  char *end;

  if (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE)
    {
      *out = v->d;
      return TRUE;
    }
  if (v->type != FLAME_JSON_STRING || v->len == 0 || v->len >= sizeof buf)
    return FALSE;
  memcpy (buf, v->str, v->len);
  buf[v->len] = '\0';
  *out = g_ascii_strtod (buf, &end);
  return end != buf && *end == '\0';
}

static gint64
int_of (const FlameJsonValue *v,
        gint64                fallback)
{
  gdouble d;

  if (v->type == FLAME_JSON_INT)
    return v->i;
  if (number_of (v, &d) && d >= -9.2e18 && d <= 9.2e18)
    return (gint64) d;
  return fallback;
}

/* JavaScript's Number.prototype.toString: the shortest digits that read
 * back as the same double, plain between 1e-7 and 1e21, else with an
 * exponent. speedscope keys events by JSON.stringify(args), so "1.50"
 * in the file must become "1.5" here, as it does there. */
static void
append_js_number (GString *s,
                  gdouble  d)
{
  char buf[40], digits[24];
  int n, k = 0;
  char *e;

  if (d == 0 || !isfinite (d))
    {
      g_string_append (s, d == 0 ? "0" : "null");
      return;
    }
  if (d < 0)
    {
      g_string_append_c (s, '-');
      d = -d;
    }
  for (int p = 1; p <= 17; p++)
    {
      char format[8];

      /* digits around a '.' whatever the locale */
      g_snprintf (format, sizeof format, "%%.%de", p - 1);
      g_ascii_formatd (buf, sizeof buf, format, d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  /* buf is "D.DDDDe±XX" */
  e = strchr (buf, 'e');
  for (char *c = buf; c < e; c++)
    if (g_ascii_isdigit (*c))
      digits[k++] = *c;
  while (k > 1 && digits[k - 1] == '0')
    k--;
  digits[k] = '\0';
  n = atoi (e + 1) + 1;
  if (k <= n && n <= 21)
    {
      g_string_append (s, digits);
      for (int i = k; i < n; i++)
        g_string_append_c (s, '0');
    }
  else if (0 < n && n <= 21)
    {
      g_string_append_len (s, digits, n);
      g_string_append_c (s, '.');
      g_string_append (s, digits + n);
    }
  else if (-6 < n && n <= 0)
    {
      g_string_append (s, "0.");
      for (int i = 0; i < -n; i++)
        g_string_append_c (s, '0');
      g_string_append (s, digits);
    }
  else
    {
      g_string_append_c (s, digits[0]);
      if (k > 1)
        {
          g_string_append_c (s, '.');
          g_string_append (s, digits + 1);
        }
      g_string_append_printf (s, "e%c%d", n - 1 >= 0 ? '+' : '-', ABS (n - 1));
    }
}

/* JSON.stringify's string escapes */
static void
append_js_string (GString    *s,
                  const char *str,
                  gsize       len)
{
  g_string_append_c (s, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) str[i];

      switch (c)
        {
        case '"': g_string_append (s, "\\\""); break;
        case '\\': g_string_append (s, "\\\\"); break;
        case '\b': g_string_append (s, "\\b"); break;
        case '\f': g_string_append (s, "\\f"); break;
        case '\n': g_string_append (s, "\\n"); break;
        case '\r': g_string_append (s, "\\r"); break;
        case '\t': g_string_append (s, "\\t"); break;
        default:
          if (c < 0x20)
            g_string_append_printf (s, "\\u%04x", c);
          else
            g_string_append_c (s, (char) c);
        }
    }
  g_string_append_c (s, '"');
}

static void
append_js_scalar (GString              *s,
                  const FlameJsonValue *v)
{
  switch (v->type)
    {
    case FLAME_JSON_NULL:
      g_string_append (s, "null");
      break;
    case FLAME_JSON_BOOL:
      g_string_append (s, v->b ? "true" : "false");
      break;
    case FLAME_JSON_INT:
      if (v->i > -((gint64) 1 << 53) && v->i < ((gint64) 1 << 53))
        g_string_append_printf (s, "%" G_GINT64_FORMAT, v->i);
      else
        append_js_number (s, v->d);
      break;
    case FLAME_JSON_DOUBLE:
      append_js_number (s, v->d);
      break;
    case FLAME_JSON_STRING:
      append_js_string (s, v->str, v->len);
      break;
    default:
      break;
    }
}

/* JavaScript truthiness of a scalar args value ({} and [] are truthy) */
static gboolean
js_truthy (const FlameJsonValue *v)
{
  switch (v->type)
    {
    case FLAME_JSON_NULL: return FALSE;
    case FLAME_JSON_BOOL: return v->b;
    case FLAME_JSON_INT:
    case FLAME_JSON_DOUBLE: return v->d != 0;
    case FLAME_JSON_STRING: return v->len > 0;
    default: return TRUE;
    }
}

/* One SAX event inside an event's args container (opened at @root):
 * appended to ev_args as JSON.stringify would write it. Past the name
 * length limit only the nesting is followed. */
static void
args_append (Loader               *ld,
             FlameJson            *json,
             const FlameJsonValue *v,
             guint                 depth,
             guint                 root)
{
  GString *s = ld->ev_args;
  gboolean in_array = flame_json_level (json, depth)->is_array;

  if (s->len > FLAME_MAX_NAME_LEN)
    ld->ev_args_long = TRUE;

  switch (v->type)
    {
    case FLAME_JSON_KEY:
      if (!ld->ev_args_long)
        {
          if (!ld->args_first[depth])
            g_string_append_c (s, ',');
          append_js_string (s, v->str, v->len);
          g_string_append_c (s, ':');
        }
      ld->args_first[depth] = FALSE;
      return;
    case FLAME_JSON_START_MAP:
    case FLAME_JSON_START_ARRAY:
      /* the container is pushed already: its parent is depth - 1 */
      if (depth > root && flame_json_level (json, depth - 1)->is_array)
        {
          if (!ld->ev_args_long && !ld->args_first[depth - 1])
            g_string_append_c (s, ',');
          ld->args_first[depth - 1] = FALSE;
        }
      ld->args_first[depth] = TRUE;
      if (!ld->ev_args_long)
        g_string_append_c (s, v->type == FLAME_JSON_START_MAP ? '{' : '[');
      return;
    case FLAME_JSON_END_MAP:
    case FLAME_JSON_END_ARRAY:
      if (!ld->ev_args_long)
        g_string_append_c (s, v->type == FLAME_JSON_END_MAP ? '}' : ']');
      return;
    default:
      if (in_array)
        {
          if (!ld->ev_args_long && !ld->args_first[depth])
            g_string_append_c (s, ',');
          ld->args_first[depth] = FALSE;
        }
      if (!ld->ev_args_long)
        append_js_scalar (s, v);
      return;
    }
}

static guint32
intern_key (Loader     *ld,
            const char *str,
            gsize       len)
{
  g_autofree char *k = g_strndup (str, len);
  gpointer found = g_hash_table_lookup (ld->key_index, k);
  guint32 index;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  index = ld->keys->len;
  g_ptr_array_add (ld->keys, g_steal_pointer (&k));
  g_hash_table_insert (ld->key_index, g_ptr_array_index (ld->keys, index), GUINT_TO_POINTER (index + 1));
  return index;
}

/* speedscope's zeroPad(String(n), 10) */
static void
append_zero_padded (GString *s,
                    gint64   n)
{
  char buf[32];
  int len = g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, n);

  for (int i = len; i < 10; i++)
    g_string_append_c (s, '0');
  g_string_append (s, buf);
}

static guint32
ensure_dthread (Loader *ld,
                gint64  pid,
                gint64  tid)
{
  char key[64];
  gpointer found;
  DThread *t;
  GString *sk;

  g_snprintf (key, sizeof key, "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, pid, tid);
  found = g_hash_table_lookup (ld->dthread_index, key);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  t = g_new0 (DThread, 1);
  t->pid = pid;
  t->tid = tid;
  sk = g_string_new (NULL);
  append_zero_padded (sk, pid);
  g_string_append_c (sk, ':');
  append_zero_padded (sk, tid);
  t->sort_key = g_string_free (sk, FALSE);
  g_ptr_array_add (ld->dthreads, t);
  g_hash_table_insert (ld->dthread_index, g_strdup (key), GUINT_TO_POINTER (ld->dthreads->len));
  return ld->dthreads->len - 1;
}

static void
dthread_free (gpointer data)
{
  DThread *t = data;

  g_free (t->sort_key);
  g_free (t);
}

static const char *const hermes_args[] = {
  "line", "column", "name", "category", "url", "params", "allocatedCategory", "allocatedName",
};

/* A B/E/X event has ended: keep what the duration importer needs. */
static void
finish_dur_event (Loader *ld)
{
  DurEvent de = { 0 };
  g_autoptr(GString) key = g_string_new (NULL);
  const char *name = ld->ev_fullname->len > 0 ? ld->ev_fullname->str : "(unnamed)";
  gsize name_len = ld->ev_fullname->len > 0 ? ld->ev_fullname->len : strlen ("(unnamed)");

  if (ld->n_events == 1 && ld->ev_depth == 2)
    ld->hermes = ld->hermes_keys == (1u << G_N_ELEMENTS (hermes_args)) - 1;

  de.ph = ld->ev_ph;
  de.ts = ld->ev_ts;
  de.dur = ld->ev_has_dur ? ld->ev_dur : ld->ev_has_tdur ? ld->ev_tdur : 0;
  de.thread = ensure_dthread (ld, ld->ev_pid, ld->ev_tid);
  g_string_append_len (key, name, MIN (name_len, (gsize) FLAME_MAX_NAME_LEN));
  de.name = intern_key (ld, key->str, key->len);
  if (ld->ev_args_truthy)
    {
      g_string_append_c (key, ' ');
      g_string_append_len (key, ld->ev_args->str, ld->ev_args->len);
    }
  if (ld->ev_args_long || key->len > FLAME_MAX_NAME_LEN)
    {
      /* a name is at most FLAME_MAX_NAME_LEN: cut the args (the key
       * stays one per event text up to there) */
      g_string_truncate (key, FLAME_MAX_NAME_LEN);
      ld->n_long_args++;
    }
  de.key = intern_key (ld, key->str, key->len);
  if (ld->hermes)
    {
      /* Hermes: the name alone, with file and line from the args */
      guint32 line = ld->ev_line > 0 && ld->ev_line < G_MAXUINT32 ? (guint32) ld->ev_line : 0;

      de.frame = flame_profile_intern_frame (ld->profile, name, MIN (name_len, (gsize) FLAME_MAX_NAME_LEN),
                                             ld->ev_has_url ? ld->ev_url->str : NULL,
                                             ld->ev_has_url ? ld->ev_url->len : 0, line, 0);
    }
  else
    de.frame = flame_profile_intern_frame (ld->profile, key->str, key->len, NULL, 0, 0, 0);
  ((DThread *) g_ptr_array_index (ld->dthreads, de.thread))->n_events++;
  ((DThread *) g_ptr_array_index (ld->dthreads, de.thread))->n_begins += de.ph != 'E';
  g_array_append_val (ld->dur_events, de);
}

/* The {traceEvents, samples:[{pid, tid, ts, sf}], stackFrames:{id:
 * {name, category, parent}}} form (Hermes, Android systrace converters):
 * values under the top-level "samples" and "stackFrames". */
static gboolean
on_samples_form (Loader               *ld,
                 FlameJson            *json,
                 const FlameJsonValue *v,
                 guint                 depth,
                 GError              **error)
{
  gboolean samples = flame_json_key_is (json, 1, "samples");
  gboolean scalar = v->type <= FLAME_JSON_STRING;

  if (depth == 2 && (v->type == FLAME_JSON_START_ARRAY || v->type == FLAME_JSON_START_MAP))
    {
      if (samples && v->type == FLAME_JSON_START_ARRAY)
        ld->has_samples_key = TRUE;
      else if (!samples && v->type == FLAME_JSON_START_MAP)
        ld->has_stack_frames_key = TRUE;
      return TRUE;
    }
  if (depth != 3)
    return TRUE;
  if (samples && !flame_json_level (json, 2)->is_array)
    return TRUE;
  if (!samples && flame_json_level (json, 2)->is_array)
    return TRUE;

  if (v->type == FLAME_JSON_START_MAP)
    {
      ld->tsample_has_ts = ld->tsample_has_sf = FALSE;
      ld->tsample_pid = ld->tsample_tid = 0;
      ld->sframe.parent = 0;
      g_string_truncate (ld->sframe_name, 0);
      return TRUE;
    }
  if (v->type == FLAME_JSON_END_MAP)
    {
      if (samples)
        {
          if (ld->tsample_has_ts && ld->tsample_has_sf)
            {
              ld->tsample.thread = ensure_dthread (ld, ld->tsample_pid, ld->tsample_tid);
              ((DThread *) g_ptr_array_index (ld->dthreads, ld->tsample.thread))->n_samples++;
              g_array_append_val (ld->tsamples, ld->tsample);
            }
        }
      else
        {
          const FlameJsonLevel *l = flame_json_level (json, 2);
          gint64 id;
          StackFrame *f;

          if (l->key_len == 255 || !g_ascii_string_to_signed (l->key, 10, G_MININT64, G_MAXINT64, &id, NULL))
            return TRUE;
          f = g_new (StackFrame, 1);
          f->parent = ld->sframe.parent;
          f->frame = flame_profile_intern_frame (ld->profile, ld->sframe_name->str, ld->sframe_name->len,
                                                 NULL, 0, 0, 0);
          g_hash_table_insert (ld->stack_frames, g_memdup2 (&id, sizeof id), f);
        }
      return TRUE;
    }
  if (!scalar)
    return TRUE;

  if (samples)
    {
      const char *key = flame_json_level (json, 3)->key;

      if (strcmp (key, "ts") == 0)
        ld->tsample_has_ts = number_of (v, &ld->tsample.ts);
      else if (strcmp (key, "sf") == 0)
        {
          ld->tsample.sf = int_of (v, 0);
          ld->tsample_has_sf = TRUE;
        }
      else if (strcmp (key, "pid") == 0)
        ld->tsample_pid = int_of (v, -1);
      else if (strcmp (key, "tid") == 0)
        ld->tsample_tid = int_of (v, -1);
    }
  else
    {
      const char *key = flame_json_level (json, 3)->key;

      if (strcmp (key, "name") == 0 && v->type == FLAME_JSON_STRING)
        {
          if (v->len > FLAME_MAX_NAME_LEN)
            {
              flame_json_set_error (json, error, FLAME_ERROR_TOO_LARGE,
                                    "a function name is longer than %d bytes", FLAME_MAX_NAME_LEN);
              return FALSE;
            }
          g_string_truncate (ld->sframe_name, 0);
          g_string_append_len (ld->sframe_name, v->str, v->len);
        }
      else if (strcmp (key, "parent") == 0)
        ld->sframe.parent = int_of (v, 0);
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
          if (!flame_json_want (json, v, FLAME_JSON_WANT_NUMBER, "startTime", error))
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
          g_string_truncate (ld->ev_fullname, 0);
          ld->ev_has_ts = ld->ev_has_dur = ld->ev_has_tdur = FALSE;
          ld->ev_args_truthy = ld->ev_args_long = ld->ev_has_url = FALSE;
          g_string_truncate (ld->ev_args, 0);
          ld->ev_line = 0;
          ld->hermes_keys = 0;
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
          if (is_profile && !ld->saw_profile)
            {
              /* as in speedscope, Chrome's own profile data wins over
               * the duration events around it */
              ld->saw_profile = TRUE;
              g_array_set_size (ld->dur_events, 0);
            }
          if (!is_profile && !ld->saw_profile && ld->ev_has_ts &&
              (ld->ev_ph == 'B' || ld->ev_ph == 'E' || ld->ev_ph == 'X'))
            finish_dur_event (ld);
          if (!is_profile)
            {
              /* not ours: forget what its args looked like */
              g_array_set_size (ld->nodes, ld->mark_nodes);
              g_array_set_size (ld->edges, ld->mark_edges);
              g_array_set_size (ld->samples, ld->mark_samples);
              g_array_set_size (ld->deltas, ld->mark_deltas);
              while (ld->delta_big->len > 0 &&
                     g_array_index (ld->delta_big, BigDelta, ld->delta_big->len - 1).index >= ld->mark_deltas)
                g_array_set_size (ld->delta_big, ld->delta_big->len - 1);
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

  /* the bulk of a profile: samples[] and timeDeltas[] */
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

  /* the first letter first: this runs for every value of the file */
  if (ld->format == FLAME_FORMAT_CHROME_TRACE && depth >= 2 && flame_json_level (json, 1)->key[0] == 's' &&
      (flame_json_key_is (json, 1, "samples") || flame_json_key_is (json, 1, "stackFrames")))
    return on_samples_form (ld, json, v, depth, error);

  if (ld->format == FLAME_FORMAT_CHROME_CPUPROFILE || e == 0 || depth < e ||
      (depth == e && !scalar))
    return on_event (json, v, user_data, error);

  /* args, re-serialised for the duration events' keys */
  if (ld->ev_args_open)
    {
      if (v->type == FLAME_JSON_KEY && depth == e + 1 && ld->n_events == 1)
        for (guint i = 0; i < G_N_ELEMENTS (hermes_args); i++)
          if (v->len == strlen (hermes_args[i]) && memcmp (v->str, hermes_args[i], v->len) == 0)
            ld->hermes_keys |= 1u << i;
      args_append (ld, json, v, depth, e + 1);
      if (depth == e + 1 && (v->type == FLAME_JSON_END_MAP || v->type == FLAME_JSON_END_ARRAY))
        {
          ld->ev_args_open = FALSE;
          flame_json_set_deliver_keys (json, FALSE);
        }
      if (v->type == FLAME_JSON_KEY)
        return TRUE;
    }
  else if (depth == e + 1 && (v->type == FLAME_JSON_START_MAP || v->type == FLAME_JSON_START_ARRAY) &&
           flame_json_key_is (json, e, "args") && !ld->saw_profile &&
           (ld->ev_ph == 0 || ld->ev_ph == 'B' || ld->ev_ph == 'E' || ld->ev_ph == 'X') &&
           strcmp (ld->ev_name, "Profile") != 0 && strcmp (ld->ev_name, "ProfileChunk") != 0 &&
           strcmp (ld->ev_name, "CpuProfile") != 0)
    {
      ld->ev_args_open = TRUE;
      ld->ev_args_truthy = TRUE;
      g_string_truncate (ld->ev_args, 0);
      flame_json_set_deliver_keys (json, TRUE);
      args_append (ld, json, v, depth, e + 1);
    }
  if (v->type == FLAME_JSON_KEY)
    return TRUE;

  /* Hermes: args.url, args.line */
  if (depth == e + 1 && scalar && flame_json_key_is (json, e, "args"))
    {
      if (flame_json_key_is (json, e + 1, "url"))
        {
          ld->ev_has_url = v->type == FLAME_JSON_STRING && v->len <= FLAME_MAX_NAME_LEN;
          g_string_truncate (ld->ev_url, 0);
          if (ld->ev_has_url)
            g_string_append_len (ld->ev_url, v->str, v->len);
        }
      else if (flame_json_key_is (json, e + 1, "line"))
        ld->ev_line = int_of (v, 0);
    }

  if (depth == e && scalar)
    {
      const char *key = flame_json_level (json, e)->key;

      if (strcmp (key, "name") == 0 && v->type == FLAME_JSON_STRING)
        {
          copy_bounded (ld->ev_name, sizeof ld->ev_name, v->str, v->len);
          g_string_truncate (ld->ev_fullname, 0);
          g_string_append_len (ld->ev_fullname, v->str, MIN (v->len, (gsize) FLAME_MAX_NAME_LEN));
        }
      else if (strcmp (key, "args") == 0)
        {
          ld->ev_args_truthy = js_truthy (v);
          g_string_truncate (ld->ev_args, 0);
          append_js_scalar (ld->ev_args, v);
          ld->ev_args_long = ld->ev_args->len > FLAME_MAX_NAME_LEN;
        }
      else if (strcmp (key, "dur") == 0 && v->type != FLAME_JSON_NULL)
        ld->ev_has_dur = number_of (v, &ld->ev_dur);
      else if (strcmp (key, "tdur") == 0 && v->type != FLAME_JSON_NULL)
        ld->ev_has_tdur = number_of (v, &ld->ev_tdur);
      else if (strcmp (key, "ph") == 0 && v->type == FLAME_JSON_STRING && v->len > 0)
        ld->ev_ph = v->str[0];
      else if (strcmp (key, "id") == 0)
        {
          if (v->type == FLAME_JSON_STRING)
            copy_bounded (ld->ev_id, sizeof ld->ev_id, v->str, v->len);
          else
            g_snprintf (ld->ev_id, sizeof ld->ev_id, "%" G_GINT64_FORMAT, v->i);
        }
      else if (strcmp (key, "pid") == 0)
        ld->ev_pid = int_of (v, -1);
      else if (strcmp (key, "tid") == 0)
        ld->ev_tid = int_of (v, -1);
      else if (strcmp (key, "ts") == 0)
        ld->ev_has_ts = number_of (v, &ld->ev_ts);
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
      if (!flame_json_want (json, v, FLAME_JSON_WANT_NUMBER, "a time delta", error))
        return FALSE;
      append_delta (ld, v->d);
      set_hot (ld, json, depth, HOT_TRACE_DELTAS);
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
  g_autofree gint32 *by_dense = NULL;
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

  /* dense index of a sample -> this profile's node */
  for (guint i = 0; i < n; i++)
    dense_of (ld, nodes[g_array_index (local, guint32, i)].id);
  n_dense = ld->dense_ids->len;
  by_dense = g_new (gint32, MAX (n_dense, 1));
  for (gsize k = 0; k < n_dense; k++)
    by_dense[k] = -1;
  for (guint i = 0; i < n; i++)
    by_dense[dense_of (ld, nodes[g_array_index (local, guint32, i)].id)] = (gint32) i;

  /* samples in chunk order; sample i lasts until sample i+1 */
  for (guint c = 0; c < n_chunks; c++)
    {
      const Chunk *ch = &chunks[c];
      const guint32 *smp = (const guint32 *) ld->samples->data;
      guint64 ns = ch->samples_end - ch->samples_start;

      for (guint64 s = 0; s < ns; s++)
        {
          gdouble d = s < ch->deltas_end - ch->deltas_start ? get_delta (ld, ch->deltas_start + s) : 0;
          gdouble t;
          guint32 g = smp[ch->samples_start + s];
          gint64 li;

          li = g < n_dense ? by_dense[g] : -1;

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

/* ---- building the generic forms ---- */

typedef struct
{
  gdouble ts;
  gdouble dur;
  guint32 ev;
  guint32 seq;
} QEvent;

static int
compare_ts_seq (const void *a,
                const void *b)
{
  const QEvent *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* X events: by start, the longer first when they start together (a
 * longer event cannot nest in a shorter one), else in file order */
static int
compare_x (const void *a,
           const void *b)
{
  const QEvent *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur > y->dur ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct
{
  guint32 ev;
  guint32 tnode;
} Open;

/* speedscope's trace-event importer (src/import/trace-event.ts), for one
 * thread: B events in time order (file order for ties), E events in time
 * order, X events split into a B and an E; the queues are merged by time,
 * a B first when both fronts have the same key (a zero-length event), and
 * before an E is taken, an E of the same time that matches the top of the
 * stack by key, or else by name, is brought to the front. An E whose name
 * is not the top's is dropped; one with the top's name but other args
 * closes the top. Time is weighted to the top of the stack. */
static gboolean
build_durations (Loader   *ld,
                 guint32   ti,
                 GError  **error)
{
  DThread *th = g_ptr_array_index (ld->dthreads, ti);
  FlameTree *tree = flame_profile_get_tree (ld->profile);
  const DurEvent *evs = (const DurEvent *) ld->dur_events->data;
  g_autoptr(GArray) bq = g_array_new (FALSE, FALSE, sizeof (QEvent));
  g_autoptr(GArray) eq = g_array_new (FALSE, FALSE, sizeof (QEvent));
  g_autoptr(GArray) xq = g_array_new (FALSE, FALSE, sizeof (QEvent));
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Open));
  gdouble first = G_MAXDOUBLE, last = 0;
  QEvent *b, *e;
  guint bi = 0, ei = 0, nb, ne;
  guint64 n_dropped = 0;

  for (guint i = 0; i < ld->dur_events->len; i++)
    if (evs[i].thread == ti)
      first = MIN (first, evs[i].ts);
  for (guint i = 0; i < ld->dur_events->len; i++)
    {
      QEvent q;

      if (evs[i].thread != ti)
        continue;
      q.ts = evs[i].ts - first;
      q.dur = evs[i].dur;
      q.ev = i;
      if (evs[i].ph == 'B')
        {
          q.seq = bq->len;
          g_array_append_val (bq, q);
        }
      else if (evs[i].ph == 'E')
        {
          q.seq = eq->len;
          g_array_append_val (eq, q);
        }
      else
        {
          q.seq = xq->len;
          g_array_append_val (xq, q);
        }
    }
  /* an empty GArray may have no data: qsort wants a pointer */
  if (xq->len > 1)
    qsort (xq->data, xq->len, sizeof (QEvent), compare_x);
  for (guint i = 0; i < xq->len; i++)
    {
      QEvent q = g_array_index (xq, QEvent, i);

      q.seq = bq->len;
      g_array_append_val (bq, q);
      q.ts += q.dur;
      q.seq = eq->len;
      g_array_append_val (eq, q);
    }
  if (bq->len > 1)
    qsort (bq->data, bq->len, sizeof (QEvent), compare_ts_seq);
  if (eq->len > 1)
    qsort (eq->data, eq->len, sizeof (QEvent), compare_ts_seq);
  b = (QEvent *) bq->data;
  e = (QEvent *) eq->data;
  nb = bq->len;
  ne = eq->len;

  while (bi < nb || ei < ne)
    {
      gboolean take_b;
      Open *top = stack->len > 0 ? &g_array_index (stack, Open, stack->len - 1) : NULL;

      if (ei == ne)
        take_b = TRUE;
      else if (bi == nb)
        take_b = FALSE;
      else if (b[bi].ts != e[ei].ts)
        take_b = b[bi].ts < e[ei].ts;
      else
        take_b = evs[b[bi].ev].key == evs[e[ei].ev].key;

      if (take_b)
        {
          const DurEvent *de = &evs[b[bi].ev];
          Open o;

          if (top != NULL)
            tree->self[0][top->tnode] += (b[bi].ts - last) * 1000.0;
          last = b[bi].ts;
          if (stack->len >= FLAME_MAX_DEPTH)
            {
              flame_input_set_error (ld->in, error, FLAME_ERROR_TOO_LARGE, 0,
                                     "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
              return FALSE;
            }
          o.ev = b[bi].ev;
          o.tnode = flame_tree_child (tree, top ? top->tnode : FLAME_TREE_ROOT, de->frame);
          g_array_append_val (stack, o);
          bi++;
          continue;
        }

      if (top != NULL)
        {
          const DurEvent *t = &evs[top->ev];
          gint swap = -1;

          for (guint j = ei + 1; j < ne && e[j].ts <= e[ei].ts && swap < 0; j++)
            if (evs[e[j].ev].key == t->key)
              swap = (gint) j;
          for (guint j = ei + 1; j < ne && e[j].ts <= e[ei].ts && swap < 0; j++)
            if (evs[e[j].ev].name == t->name)
              swap = (gint) j;
          if (swap >= 0)
            {
              QEvent tmp = e[ei];
              e[ei] = e[swap];
              e[swap] = tmp;
            }
        }
      if (top == NULL || evs[e[ei].ev].name != evs[top->ev].name)
        n_dropped++;
      else
        {
          tree->self[0][top->tnode] += (e[ei].ts - last) * 1000.0;
          last = e[ei].ts;
          g_array_set_size (stack, stack->len - 1);
        }
      ei++;
    }
  /* frames still open end at the last time seen: no weight to add */

  flame_profile_add_samples (ld->profile, 0, (gdouble) th->n_begins);
  flame_profile_set_duration_ms (ld->profile, flame_profile_get_duration_ms (ld->profile) + last / 1000.0);
  if (n_dropped > 0)
    flame_profile_add_warning (ld->profile, "%s: thread %" G_GINT64_FORMAT ": ignored %" G_GUINT64_FORMAT
                               " end (E) events that match no open event", ld->in->name, th->tid, n_dropped);
  if (stack->len > 0)
    flame_profile_add_warning (ld->profile, "%s: thread %" G_GINT64_FORMAT ": %u events were still open "
                               "at the end", ld->in->name, th->tid, stack->len);
  return TRUE;
}

/* speedscope's sampleListToProfile: the samples of a thread in file
 * order, each weighted with the time until the next (the last with 0),
 * its stack the stackFrames chain from "sf" up through "parent". */
static gboolean
build_trace_samples (Loader   *ld,
                     guint32   ti,
                     GError  **error)
{
  DThread *th = g_ptr_array_index (ld->dthreads, ti);
  FlameTree *tree = flame_profile_get_tree (ld->profile);
  const TraceSample *smp = (const TraceSample *) ld->tsamples->data;
  g_autoptr(GArray) mine = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) chain = g_array_new (FALSE, FALSE, sizeof (guint32));
  gdouble total = 0;
  guint64 n_missing = 0, n_negative = 0;

  for (guint32 i = 0; i < ld->tsamples->len; i++)
    if (smp[i].thread == ti)
      g_array_append_val (mine, i);

  for (guint k = 0; k < mine->len; k++)
    {
      const TraceSample *sm = &smp[g_array_index (mine, guint32, k)];
      /* sample k lasts until sample k+1 */
      gdouble w = k + 1 < mine->len ? smp[g_array_index (mine, guint32, k + 1)].ts - sm->ts : 0;
      gint64 id = sm->sf;
      guint32 at = FLAME_TREE_ROOT;

      if (w < 0)
        {
          n_negative++;
          continue;
        }
      if (w == 0)
        continue;
      g_array_set_size (chain, 0);
      /* speedscope's `while (parent)`: id 0 ends the chain */
      while (id != 0)
        {
          StackFrame *f = g_hash_table_lookup (ld->stack_frames, &id);

          if (f == NULL)
            break;
          if (chain->len >= FLAME_MAX_DEPTH)
            {
              flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                                     "stack frame %" G_GINT64_FORMAT " is its own ancestor, or its stack "
                                     "is deeper than %d frames", sm->sf, FLAME_MAX_DEPTH);
              return FALSE;
            }
          g_array_append_val (chain, f->frame);
          id = f->parent;
        }
      if (id != 0)
        {
          /* speedscope gives up on the whole file here */
          n_missing++;
          continue;
        }
      for (guint c = chain->len; c > 0; c--)
        at = flame_tree_child (tree, at, g_array_index (chain, guint32, c - 1));
      tree->self[0][at] += w * 1000.0;
      total += w;
    }

  flame_profile_add_samples (ld->profile, 0, (gdouble) th->n_samples);
  flame_profile_set_duration_ms (ld->profile, flame_profile_get_duration_ms (ld->profile) + total / 1000.0);
  if (n_missing > 0)
    flame_profile_add_warning (ld->profile, "%s: skipped %" G_GUINT64_FORMAT " samples whose stack frames "
                               "the file does not define", ld->in->name, n_missing);
  if (n_negative > 0)
    flame_profile_add_warning (ld->profile, "%s: skipped %" G_GUINT64_FORMAT " samples followed by an "
                               "earlier one (negative duration)", ld->in->name, n_negative);
  return TRUE;
}

static int
compare_dthreads (gconstpointer a,
                  gconstpointer b)
{
  const DThread *x = *(DThread * const *) a, *y = *(DThread * const *) b;

  return strcmp (x->sort_key, y->sort_key);
}

/* The generic forms: samples + stackFrames when the file has both (as
 * speedscope, which then ignores the B/E/X events), else B/E/X events.
 * Threads are profiles in speedscope's order (pid, then tid, compared as
 * zero-padded text), which --profile N counts. */
static gboolean
build_generic (Loader   *ld,
               guint    *n_built,
               GError  **error)
{
  gboolean sampled = ld->has_samples_key && ld->has_stack_frames_key;
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  guint n_profiles = 0;

  for (guint i = 0; i < ld->dthreads->len; i++)
    {
      DThread *t = g_ptr_array_index (ld->dthreads, i);

      /* a thread with only E events is a profile too (an empty one) */
      if (sampled ? t->n_samples > 0 : t->n_events > 0)
        g_ptr_array_add (order, t);
    }
  g_ptr_array_sort (order, compare_dthreads);

  for (guint i = 0; i < order->len; i++)
    {
      DThread *t = g_ptr_array_index (order, i);
      guint32 ti = 0;
      g_autofree char *tkey = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, t->pid, t->tid);
      const char *tname = g_hash_table_lookup (ld->thread_names, tkey);
      FlameThread *thread = flame_profile_ensure_thread (ld->profile, tname ? tname : "", t->pid, t->tid);
      gboolean want;

      while (g_ptr_array_index (ld->dthreads, ti) != t)
        ti++;
      if (ld->opts->profile >= 0)
        want = (gint) i == ld->opts->profile;
      else
        want = ld->opts->thread < 0 || t->tid == ld->opts->thread;
      n_profiles++;
      thread->samples += (gdouble) (sampled ? t->n_samples : t->n_begins);
      if (!want)
        continue;
      if (!(sampled ? build_trace_samples (ld, ti, error) : build_durations (ld, ti, error)))
        return FALSE;
      (*n_built)++;
    }
  if (ld->opts->profile >= (gint) n_profiles)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_INVALID, 0, "there is no profile %d (the file has %u)",
                             ld->opts->profile, n_profiles);
      return FALSE;
    }
  if (ld->n_long_args > 0)
    flame_profile_add_warning (ld->profile, "%s: the names of %" G_GUINT64_FORMAT " events are cut at %d bytes "
                               "(long args)", ld->in->name, ld->n_long_args, FLAME_MAX_NAME_LEN);
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
  ld.samples = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld.deltas = g_array_new (FALSE, FALSE, sizeof (gint32));
  ld.delta_big = g_array_new (FALSE, FALSE, sizeof (BigDelta));
  ld.dense_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  ld.chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  ld.profiles = g_ptr_array_new_with_free_func (profile_info_free);
  ld.profile_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  ld.thread_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ld.fn_name = g_string_new (NULL);
  ld.pending = g_ptr_array_new_with_free_func (pending_free);
  ld.url = g_string_new (NULL);
  ld.ev_fullname = g_string_new (NULL);
  ld.ev_args = g_string_new (NULL);
  ld.ev_url = g_string_new (NULL);
  ld.sframe_name = g_string_new (NULL);
  ld.dur_events = g_array_new (FALSE, FALSE, sizeof (DurEvent));
  ld.keys = g_ptr_array_new_with_free_func (g_free);
  ld.key_index = g_hash_table_new (g_str_hash, g_str_equal);
  ld.dthreads = g_ptr_array_new_with_free_func (dthread_free);
  ld.dthread_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ld.tsamples = g_array_new (FALSE, FALSE, sizeof (TraceSample));
  ld.stack_frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

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

  if (format == FLAME_FORMAT_CHROME_TRACE && ld.chunks->len == 0 && !ld.saw_profile)
    {
      /* no Chrome profile data: the generic trace-event forms */
      if (!build_generic (&ld, &n_built, error))
        goto out;
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
                               ? " (no Profile/ProfileChunk data, B/E/X duration events or samples)" : "");
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
  g_array_unref (ld.delta_big);
  g_array_unref (ld.dense_ids);
  g_free (ld.id_direct);
  if (ld.id_hash != NULL)
    g_hash_table_unref (ld.id_hash);
  g_array_unref (ld.chunks);
  g_hash_table_unref (ld.profile_by_key);
  g_ptr_array_unref (ld.profiles);
  g_hash_table_unref (ld.thread_names);
  g_string_free (ld.fn_name, TRUE);
  g_ptr_array_unref (ld.pending);
  g_string_free (ld.url, TRUE);
  g_free (ld.ev_thread_name);
  g_string_free (ld.ev_fullname, TRUE);
  g_string_free (ld.ev_args, TRUE);
  g_string_free (ld.ev_url, TRUE);
  g_string_free (ld.sframe_name, TRUE);
  g_array_unref (ld.dur_events);
  g_hash_table_unref (ld.key_index);
  g_ptr_array_unref (ld.keys);
  g_hash_table_unref (ld.dthread_index);
  g_ptr_array_unref (ld.dthreads);
  g_array_unref (ld.tsamples);
  g_hash_table_unref (ld.stack_frames);
  return result;
}

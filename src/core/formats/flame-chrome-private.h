/* flame-chrome-private.h: the state the Chrome loader's parts share.
 *
 * flame-chrome.c reads .cpuprofile files and the old v8-profiler tree
 * into one node model and builds the profiles; flame-chrome-trace.c
 * reads trace files: their event objects (Profile/ProfileChunk events
 * feed the node model) and the generic forms (B/E/X events, and samples
 * with stackFrames) that speedscope also imports.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-chrome.h"
#include "flame-json.h"

G_BEGIN_DECLS

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
G_STATIC_ASSERT (G_STRUCT_OFFSET (BigDelta, index) == 0);

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

gboolean
flame_chrome_number_of (const FlameJsonValue *v,
                        gdouble              *out);

gint64
flame_chrome_int_of (const FlameJsonValue *v,
                     gint64                fallback);

void
flame_chrome_append_js_scalar (GString              *s,
                               const FlameJsonValue *v);

gboolean
flame_chrome_js_truthy (const FlameJsonValue *v);

void
flame_chrome_args_append (Loader               *ld,
                          FlameJson            *json,
                          const FlameJsonValue *v,
                          guint                 depth,
                          guint                 root);

void
flame_chrome_dthread_free (gpointer data);

/* The name trace metadata ("thread_name") gave a thread, or NULL */
const char *
flame_chrome_thread_name (Loader *ld,
                          gint64  pid,
                          gint64  tid);

void
flame_chrome_note_hermes_key (Loader               *ld,
                              const FlameJsonValue *v);

void
flame_chrome_finish_dur_event (Loader *ld);

gboolean
flame_chrome_on_samples_form (Loader               *ld,
                              FlameJson            *json,
                              const FlameJsonValue *v,
                              guint                 depth,
                              GError              **error);

/* flame-chrome.c: the profile model that trace events feed too */
guint32
flame_chrome_ensure_profile (Loader     *ld,
                             const char *key,
                             gint64      pid);

void
flame_chrome_append_delta (Loader  *ld,
                           gdouble  d);

void
flame_chrome_set_hot (Loader    *ld,
                      FlameJson *json,
                      guint      depth,
                      guint8     kind);

gboolean
flame_chrome_on_profile_value (Loader               *ld,
                               FlameJson            *json,
                               const FlameJsonValue *v,
                               guint                 depth,
                               GError              **error);

/* flame-chrome-trace.c: a trace file's values past the hot arrays */
gboolean
flame_chrome_on_trace_value (Loader               *ld,
                             FlameJson            *json,
                             const FlameJsonValue *v,
                             guint                 depth,
                             GError              **error);

gboolean
flame_chrome_build_generic (Loader   *ld,
                            guint    *n_built,
                            GError  **error);

G_END_DECLS

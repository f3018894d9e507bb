/* flame-speedscope.c: speedscope JSON (schema 0.0.1 to current), streamed.
 *
 * The file is read with the SAX layer (flame-json.c): shared frames go
 * into a compact table (one string pool, fixed-size rows), and samples of
 * the profile being loaded go straight into the call tree when the frames
 * came first (speedscope's own writer). py-spy writes "profiles" before
 * "shared", so then the stacks are kept as flat index arrays and resolved
 * once the frames are known. Every index is bounds-checked.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-error.h"
#include "flame-json.h"
#include "flame-json-write.h"
#include "flame-speedscope.h"

/* speedscope's writers put null where a value is absent */
#define WANT_STRING (FLAME_JSON_WANT_STRING | FLAME_JSON_WANT_NULL)
#define WANT_NUMBER (FLAME_JSON_WANT_NUMBER | FLAME_JSON_WANT_NULL)

#define NOT_INTERNED G_MAXUINT32

typedef struct
{
  gsize   name_off;
  gsize   file_off;
  guint32 name_len;
  guint32 file_len;
  guint32 line;
  gboolean has_name;
} RawFrame;

enum { TYPE_UNKNOWN, TYPE_SAMPLED, TYPE_EVENTED };

/* The frame indices of the sample being read: appended per index, so
 * a plain array rather than a GArray call each */
typedef struct
{
  guint32 *idx;
  guint    len;
  guint    cap;
} Stack;

/* a level of the previous sample's stack: its tree node and path hash */
typedef struct
{
  guint32 node;
  guint32 hash;
} StackNode;

typedef struct
{
  gdouble at;
  guint32 frame;
  gboolean open;
} Event;

typedef enum
{
  SECTION_NONE,
  SECTION_SAMPLES,
  SECTION_WEIGHTS,
  SECTION_EVENTS,
} Section;

typedef struct
{
  char    *name;
  char    *unit;
  int      type;
  gdouble  start_value;
  gdouble  end_value;
  gsize    offset;       /* where the profile starts, for messages */
  guint64  n_samples;
  guint64  n_events;
  GArray  *nodes;        /* guint32 tree node per sample (frames known) */
  GArray  *stack_idx;    /* guint32 raw indices of all samples (frames unknown) */
  GArray  *stack_end;    /* guint64 end of each sample in stack_idx */
  GArray  *weights;      /* gdouble */
  GArray  *events;       /* Event */
} Prof;

typedef struct
{
  FlameInput             *in;
  const FlameLoadOptions *opts;
  FlameProfile           *profile;

  /* shared.frames */
  GArray     *frames;       /* RawFrame */
  GByteArray *pool;
  RawFrame    cur_frame;
  gboolean    frames_done;
  guint32    *frame_map;    /* raw index -> FlameFrames id */

  /* profiles[] */
  Prof        cur;
  Prof        done;         /* the chosen profile, when it waits for the frames */
  gboolean    cur_selected;
  gint64      chosen;       /* index of the profile loaded, -1 none yet */
  gboolean    pending;      /* cur (chosen) waits for the frames */
  Section     section;
  Stack       stack;        /* raw indices of the sample being read */
  GArray     *prev_stack;
  GArray     *prev_nodes;   /* StackNode of each level of prev_stack */
  Event       cur_event;
  guint       event_fields;

  /* profile list for `info`: name and samples of each */
  GPtrArray  *profile_names;
  GArray     *profile_samples;

  GPtrArray  *meta;         /* key, value, key, value ... */
  gdouble     fd_interval;
  gdouble     fd_samples;
  char       *fd_unit;
  GPtrArray  *fd_profile_units;  /* our memory recordings: a unit per profile */
} Loader;

static void
prof_clear (Prof *p)
{
  g_clear_pointer (&p->name, g_free);
  g_clear_pointer (&p->unit, g_free);
  g_clear_pointer (&p->nodes, g_array_unref);
  g_clear_pointer (&p->stack_idx, g_array_unref);
  g_clear_pointer (&p->stack_end, g_array_unref);
  g_clear_pointer (&p->weights, g_array_unref);
  g_clear_pointer (&p->events, g_array_unref);
  memset (p, 0, sizeof *p);
}

static void
prof_init (Prof *p,
           gsize offset)
{
  prof_clear (p);
  p->offset = offset;
  p->nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  p->stack_idx = g_array_new (FALSE, FALSE, sizeof (guint32));
  p->stack_end = g_array_new (FALSE, FALSE, sizeof (guint64));
  p->weights = g_array_new (FALSE, FALSE, sizeof (gdouble));
  p->events = g_array_new (FALSE, FALSE, sizeof (Event));
}

static gboolean
unit_factor (const char *unit,
             FlameUnit  *flame_unit,
             gdouble    *factor)
{
  static const struct { const char *name; FlameUnit unit; gdouble factor; } units[] = {
    { "none", FLAME_UNIT_SAMPLES, 1 },
    { "nanoseconds", FLAME_UNIT_NANOSECONDS, 1 },
    { "microseconds", FLAME_UNIT_NANOSECONDS, 1e3 },
    { "milliseconds", FLAME_UNIT_NANOSECONDS, 1e6 },
    { "seconds", FLAME_UNIT_NANOSECONDS, 1e9 },
    { "bytes", FLAME_UNIT_BYTES, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_strcmp0 (unit, units[i].name) == 0)
      {
        *flame_unit = units[i].unit;
        *factor = units[i].factor;
        return TRUE;
      }
  *flame_unit = FLAME_UNIT_SAMPLES;
  *factor = 1;
  return unit == NULL;
}

static guint32
map_frame (Loader  *ld,
           guint32  idx)
{
  if (ld->frame_map[idx] == NOT_INTERNED)
    {
      const RawFrame *rf = &g_array_index (ld->frames, RawFrame, idx);
      const char *pool = (const char *) ld->pool->data;

      ld->frame_map[idx] =
        flame_profile_intern_frame (ld->profile, rf->has_name ? pool + rf->name_off : "(unknown)",
                                    rf->has_name ? rf->name_len : 9, pool + rf->file_off,
                                    rf->file_len, rf->line, 0);
    }
  return ld->frame_map[idx];
}

static void
frames_finished (Loader *ld)
{
  ld->frames_done = TRUE;
  ld->frame_map = g_new (guint32, MAX (ld->frames->len, 1));
  memset (ld->frame_map, 0xff, sizeof (guint32) * MAX (ld->frames->len, 1));
}

/* Walks the tree along @idx, reusing the nodes of the previous stack for
 * the common prefix (consecutive samples mostly share their roots). The
 * indices must be checked already. */
static guint32
resolve_stack (Loader        *ld,
               const guint32 *idx,
               guint          n)
{
  FlameTree *tree = flame_profile_get_tree (ld->profile);
  const guint32 *prev = (const guint32 *) ld->prev_stack->data;
  guint k = 0;
  StackNode *levels;
  guint32 node;
  guint32 hash;

  while (k < n && k < ld->prev_stack->len && prev[k] == idx[k])
    k++;
  node = k > 0 ? g_array_index (ld->prev_nodes, StackNode, k - 1).node : FLAME_TREE_ROOT;
  hash = k > 0 ? g_array_index (ld->prev_nodes, StackNode, k - 1).hash : FLAME_TREE_ROOT_HASH;
  g_array_set_size (ld->prev_nodes, n);
  levels = (StackNode *) ld->prev_nodes->data;
  /* Two passes, as the folded loader does: a level's path hash follows
   * from the frames alone, so every level's index slot is prefetched
   * before the walk down looks any of them up (random stacks miss the
   * caches on nearly every level). The frame goes in .node meanwhile. */
  flame_tree_ensure_index (tree);
  for (guint j = k; j < n; j++)
    {
      guint32 frame = map_frame (ld, idx[j]);

      hash = flame_tree_path_hash (hash, frame, j + 1);
      flame_tree_prefetch (tree, hash);
      levels[j] = (StackNode) { frame, hash };
    }
  for (guint j = k; j < n; j++)
    {
      node = flame_tree_child_hashed (tree, node, levels[j].node, levels[j].hash);
      levels[j].node = node;
    }
  g_array_set_size (ld->prev_stack, n);
  if (n > k)
    memcpy (ld->prev_stack->data + k * sizeof (guint32), idx + k, (n - k) * sizeof (guint32));
  return node;
}

static gboolean
check_index (Loader   *ld,
             gint64    idx,
             gsize     offset,
             GError  **error)
{
  if (idx < 0 || (guint64) idx >= ld->frames->len)
    {
      flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, offset,
                                     "frame index %" G_GINT64_FORMAT " is out of range "
                                     "(the file has %u shared frames)", idx, ld->frames->len);
      return FALSE;
    }
  return TRUE;
}

/* How many events finish_evented()'s prefetching runs ahead */
#define LOOKAHEAD 16

/* Runs ahead of finish_evented()'s walk over the events: replays the
 * opens and closes with path hashes only and prefetches the tree-index
 * slot each open will look up (the index misses the caches on most opens
 * of a large tree). A hint: on bad input it prefetches something useless,
 * and the walk reports the error. Frames are interned in the same order
 * as the walk would (their first opens, in event order). */
static void
lookahead_to (Loader     *ld,
              const Prof *p,
              GArray     *hashes,
              guint      *next,
              guint       upto)
{
  FlameTree *tree = flame_profile_get_tree (ld->profile);

  for (upto = MIN (upto, p->events->len); *next < upto; (*next)++)
    {
      const Event *ev = &g_array_index (p->events, Event, *next);
      guint depth = hashes->len;
      guint32 h;

      if (!ev->open)
        {
          if (depth > 0)
            g_array_set_size (hashes, depth - 1);
          continue;
        }
      if (ev->frame >= ld->frames->len || depth >= FLAME_MAX_DEPTH)
        continue;
      h = flame_tree_path_hash (depth > 0 ? g_array_index (hashes, guint32, depth - 1)
                                          : FLAME_TREE_ROOT_HASH,
                                map_frame (ld, ev->frame), depth + 1);
      flame_tree_prefetch (tree, h);
      g_array_append_val (hashes, h);
    }
}

/* An evented profile: open and close events, time weighted to the
 * innermost open frame */
static gboolean
finish_evented (Loader    *ld,
                Prof      *p,
                FlameUnit  unit,
                gdouble    factor,
                GError   **error)
{
  FlameTree *tree = flame_profile_get_tree (ld->profile);
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  g_autoptr(GArray) ahead = g_array_new (FALSE, FALSE, sizeof (guint32));
  gdouble last = p->start_value, total = 0;
  guint64 n_open = 0;
  guint next = 0;

  flame_tree_ensure_index (tree);
  for (guint i = 0; i < p->events->len; i++)
    {
      const Event *ev = &g_array_index (p->events, Event, i);
      guint32 pair[2];

      lookahead_to (ld, p, ahead, &next, i + LOOKAHEAD);
      if (!check_index (ld, ev->frame, p->offset, error))
        return FALSE;
      if (ev->at < last && i > 0)
        {
          flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, p->offset,
                                         "profile “%s”: event %u goes back in time "
                                         "(%g after %g)",
                                         p->name ? p->name : "", i, ev->at, last);
          return FALSE;
        }
      if (open->len > 0 && ev->at > last)
        {
          guint32 node = ((guint32 *) open->data)[open->len * 2 - 1];
          tree->self[0][node] += (ev->at - last) * factor;
          total += ev->at - last;
        }
      last = ev->at;
      if (ev->open)
        {
          guint32 parent = open->len > 0 ? ((guint32 *) open->data)[open->len * 2 - 1]
                                         : FLAME_TREE_ROOT;
          if (open->len >= FLAME_MAX_DEPTH)
            {
              flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_TOO_LARGE, p->offset,
                                             "a stack is deeper than %d frames",
                                             FLAME_MAX_DEPTH);
              return FALSE;
            }
          pair[0] = ev->frame;
          pair[1] = flame_tree_child (tree, parent, map_frame (ld, ev->frame));
          g_array_append_vals (open, pair, 1);
          n_open++;
        }
      else
        {
          if (open->len == 0 || ((guint32 *) open->data)[open->len * 2 - 2] != ev->frame)
            {
              flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, p->offset,
                                             "profile “%s”: event %u closes frame %u, "
                                             "which is not the innermost open frame",
                                             p->name ? p->name : "", i, ev->frame);
              return FALSE;
            }
          g_array_set_size (open, open->len - 1);
        }
    }
  if (open->len > 0)
    {
      flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, p->offset,
                                     "profile “%s”: %u frames are still open at the end",
                                     p->name ? p->name : "", open->len);
      return FALSE;
    }
  flame_profile_add_samples (ld->profile, 0, unit == FLAME_UNIT_SAMPLES ? total
                                                                       : (gdouble) n_open);
  return TRUE;
}

/* Buffered samples (read before the frames): their stacks resolved now */
static gboolean
resolve_buffered (Loader  *ld,
                  Prof    *p,
                  GError **error)
{
  const guint32 *idx = (const guint32 *) p->stack_idx->data;
  guint64 start = 0;

  g_array_set_size (ld->prev_stack, 0);
  for (guint64 s = 0; s < p->stack_end->len; s++)
    {
      guint64 end = g_array_index (p->stack_end, guint64, s);
      guint32 node;

      for (guint64 j = start; j < end; j++)
        if (!check_index (ld, idx[j], p->offset, error))
          return FALSE;
      node = resolve_stack (ld, idx + start, (guint) (end - start));
      g_array_append_val (p->nodes, node);
      start = end;
      if ((s & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (ld->in->cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/* A sampled profile: one weight per stack */
static gboolean
finish_sampled (Loader    *ld,
                Prof      *p,
                FlameUnit  unit,
                gdouble    factor,
                GError   **error)
{
  FlameTree *tree = flame_profile_get_tree (ld->profile);
  gdouble total = 0;

  if (p->weights->len != p->n_samples)
    {
      flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, p->offset,
                                     "profile “%s”: %" G_GUINT64_FORMAT " samples but %u weights",
                                     p->name ? p->name : "", p->n_samples, p->weights->len);
      return FALSE;
    }

  if (p->nodes->len < p->n_samples && !resolve_buffered (ld, p, error))
    return FALSE;

  for (guint i = 0; i < p->weights->len; i++)
    {
      gdouble w = g_array_index (p->weights, gdouble, i);
      guint32 node = g_array_index (p->nodes, guint32, i);

      tree->self[0][node] += w * factor;
      total += w;
    }
  flame_profile_add_samples (ld->profile, 0,
                             unit == FLAME_UNIT_SAMPLES ? total : (gdouble) p->n_samples);
  return TRUE;
}

/* Adds the selected profile's weights to the tree: called when both the
 * profile and the frames have been read. */
static gboolean
finish_profile (Loader   *ld,
                Prof     *p,
                GError  **error)
{
  FlameUnit unit;
  gdouble factor;

  if (!unit_factor (p->unit, &unit, &factor))
    {
      flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, p->offset,
                                     "profile “%s”: unknown unit “%s”", p->name ? p->name : "",
                                     p->unit);
      return FALSE;
    }
  flame_profile_set_unit (ld->profile, unit);
  if (p->unit != NULL)
    flame_profile_set_metadata (ld->profile, "speedscope-unit", p->unit);
  if (p->name != NULL)
    flame_profile_set_metadata (ld->profile, "profile-name", p->name);
  if (p->end_value > p->start_value && unit == FLAME_UNIT_NANOSECONDS)
    flame_profile_set_duration_ms (ld->profile, (p->end_value - p->start_value) * factor / 1e6);

  if (p->type == TYPE_EVENTED)
    return finish_evented (ld, p, unit, factor, error);
  return finish_sampled (ld, p, unit, factor, error);
}

static gboolean
on_frame_field (Loader               *ld,
                FlameJson            *json,
                const FlameJsonValue *v,
                GError              **error)
{
  const FlameJsonLevel *l = flame_json_level (json, 4);
  RawFrame *rf = &ld->cur_frame;

  if (strcmp (l->key, "name") == 0 || strcmp (l->key, "file") == 0)
    {
      gboolean is_name = l->key[0] == 'n';

      if (!flame_json_want (json, v, WANT_STRING, is_name ? "a frame name" : "a frame file",
                            error))
        return FALSE;
      if (v->type == FLAME_JSON_NULL)
        return TRUE;
      if (v->len > FLAME_MAX_NAME_LEN)
        {
          flame_json_set_error (json, error, FLAME_ERROR_TOO_LARGE,
                                "a frame name is longer than %d bytes", FLAME_MAX_NAME_LEN);
          return FALSE;
        }
      if (is_name)
        {
          rf->name_off = ld->pool->len;
          rf->name_len = (guint32) v->len;
          rf->has_name = TRUE;
        }
      else
        {
          rf->file_off = ld->pool->len;
          rf->file_len = (guint32) v->len;
        }
      g_byte_array_append (ld->pool, (const guint8 *) v->str, (guint) v->len);
      g_byte_array_append (ld->pool, (const guint8 *) "", 1);
    }
  else if (strcmp (l->key, "line") == 0)
    {
      if (!flame_json_want (json, v, WANT_NUMBER, "a frame line", error))
        return FALSE;
      if (v->type != FLAME_JSON_NULL && v->d >= 1 && v->d < G_MAXUINT32)
        rf->line = (guint32) v->d;
    }
  return TRUE;
}

/* Whether the level's key is @key (of @len bytes): for the fields of
 * every event, where strcmp()'s call was a tenth of the load */
static inline gboolean
key_eq (const FlameJsonLevel *l,
        const char           *key,
        guint                 len)
{
  return l->key_len == len && memcmp (l->key, key, len) == 0;
}

static gboolean
on_event_field (Loader               *ld,
                FlameJson            *json,
                const FlameJsonValue *v,
                GError              **error)
{
  const FlameJsonLevel *l = flame_json_level (json, 5);

  if (key_eq (l, "type", 4))
    {
      if (v->type != FLAME_JSON_STRING || v->len != 1 || (v->str[0] != 'O' && v->str[0] != 'C'))
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE,
                                "an event type must be \"O\" or \"C\"");
          return FALSE;
        }
      ld->cur_event.open = v->str[0] == 'O';
      ld->event_fields |= 1;
    }
  else if (key_eq (l, "frame", 5))
    {
      if (v->type != FLAME_JSON_INT || v->i < 0 || v->i >= G_MAXUINT32)
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE,
                                "an event frame must be a non-negative integer");
          return FALSE;
        }
      ld->cur_event.frame = (guint32) v->i;
      ld->event_fields |= 2;
    }
  else if (key_eq (l, "at", 2))
    {
      if (v->type != FLAME_JSON_INT && v->type != FLAME_JSON_DOUBLE)
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE, "an event time must be a number");
          return FALSE;
        }
      ld->cur_event.at = v->d;
      ld->event_fields |= 4;
    }
  return TRUE;
}

static gboolean
on_profile_field (Loader               *ld,
                  FlameJson            *json,
                  const FlameJsonValue *v,
                  GError              **error)
{
  const FlameJsonLevel *l = flame_json_level (json, 3);
  Prof *p = &ld->cur;

  if (strcmp (l->key, "type") == 0)
    {
      if (!flame_json_want (json, v, WANT_STRING, "a profile type", error))
        return FALSE;
      if (v->type == FLAME_JSON_STRING && v->len == 7 && memcmp (v->str, "sampled", 7) == 0)
        p->type = TYPE_SAMPLED;
      else if (v->type == FLAME_JSON_STRING && v->len == 7 && memcmp (v->str, "evented", 7) == 0)
        p->type = TYPE_EVENTED;
      else
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE,
                                "a profile type must be \"sampled\" or \"evented\"");
          return FALSE;
        }
    }
  else if (strcmp (l->key, "name") == 0)
    {
      if (!flame_json_want (json, v, WANT_STRING, "a profile name", error))
        return FALSE;
      g_free (p->name);
      p->name = v->type == FLAME_JSON_STRING ? g_utf8_make_valid (v->str, v->len) : NULL;
    }
  else if (strcmp (l->key, "unit") == 0)
    {
      if (!flame_json_want (json, v, WANT_STRING, "a unit", error))
        return FALSE;
      g_free (p->unit);
      p->unit = v->type == FLAME_JSON_STRING ? g_utf8_make_valid (v->str, v->len) : NULL;
    }
  else if (strcmp (l->key, "startValue") == 0)
    {
      if (!flame_json_want (json, v, WANT_NUMBER, "startValue", error))
        return FALSE;
      p->start_value = v->d;
    }
  else if (strcmp (l->key, "endValue") == 0)
    {
      if (!flame_json_want (json, v, WANT_NUMBER, "endValue", error))
        return FALSE;
      p->end_value = v->d;
    }
  return TRUE;
}

static gboolean
on_sample_end (Loader     *ld,
               FlameJson  *json,
               GError    **error)
{
  Prof *p = &ld->cur;
  guint n = ld->stack.len;

  p->n_samples++;
  if (!ld->cur_selected)
    return TRUE;
  if (ld->frames_done)
    {
      guint32 node = resolve_stack (ld, ld->stack.idx, n);

      g_array_append_val (p->nodes, node);
      /* random stacks: the index grows once to about its final size */
      if ((p->n_samples & 0xfff) == 0)
        flame_tree_expect_from_progress (flame_profile_get_tree (ld->profile),
                                         flame_json_offset (json) - p->offset,
                                         ld->in->len - p->offset);
    }
  else
    {
      guint64 end;

      g_array_append_vals (p->stack_idx, ld->stack.idx, n);
      end = p->stack_idx->len;
      g_array_append_val (p->stack_end, end);
    }
  return TRUE;
}

#define IS_SCALAR(v) ((v)->type <= FLAME_JSON_STRING)

/* A frame index inside profiles[i].samples[j]: the hot path */
static inline gboolean
on_sample_index (Loader     *ld,
                 FlameJson  *json,
                 gint64      i,
                 GError    **error)
{
  Stack *st = &ld->stack;

  if (G_UNLIKELY (i < 0 || i >= G_MAXUINT32))
    {
      flame_json_set_error (json, error, FLAME_ERROR_PARSE,
                            "a sample must be a list of frame indices (non-negative integers)");
      return FALSE;
    }
  if (!ld->cur_selected)
    return TRUE;
  if (ld->frames_done && G_UNLIKELY (i >= ld->frames->len) &&
      !check_index (ld, i, flame_json_offset (json), error))
    return FALSE;
  if (G_UNLIKELY (st->len >= st->cap))
    {
      if (st->len >= FLAME_MAX_DEPTH)
        {
          flame_json_set_error (json, error, FLAME_ERROR_TOO_LARGE,
                                "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
          return FALSE;
        }
      st->cap = MIN (MAX (st->cap * 2, 64u), (guint) FLAME_MAX_DEPTH);
      st->idx = g_renew (guint32, st->idx, st->cap);
    }
  st->idx[st->len++] = (guint32) i;
  return TRUE;
}

/* A scalar inside profiles[i].samples[j] that is no short integer */
static gboolean
on_sample_frame (Loader               *ld,
                 FlameJson            *json,
                 const FlameJsonValue *v,
                 GError              **error)
{
  return on_sample_index (ld, json, v->type == FLAME_JSON_INT ? v->i : -1, error);
}

/* The integers of profiles[i].samples[j] (flame_json_set_int_sink) */
static gboolean
on_sample_int (FlameJson  *json,
               guint       depth,
               gint64      value,
               gpointer    user_data,
               GError    **error)
{
  return on_sample_index (user_data, json, value, error);
}

static inline gboolean
add_weight (Loader  *ld,
            gdouble  w)
{
  if (ld->cur_selected)
    g_array_append_val (ld->cur.weights, w);
  return TRUE;
}

/* The integers of profiles[i].weights (flame_json_set_int_sink) */
static gboolean
on_weight_int (FlameJson  *json,
               guint       depth,
               gint64      value,
               gpointer    user_data,
               GError    **error)
{
  return add_weight (user_data, (gdouble) value);
}

/* Any other value of profiles[i].weights */
static gboolean
on_weight (Loader               *ld,
           FlameJson            *json,
           const FlameJsonValue *v,
           GError              **error)
{
  if (G_UNLIKELY (!flame_json_want (json, v, WANT_NUMBER, "a weight", error)))
    return FALSE;
  return add_weight (ld, v->type == FLAME_JSON_NULL ? 0 : v->d);
}

/* The end of profiles[i]: its name and count kept for the chooser, and
 * built when it is the chosen one (or kept until shared.frames is read) */
static gboolean
on_profile_end (Loader     *ld,
                FlameJson  *json,
                GError    **error)
{
  Prof *p = &ld->cur;
  gint64 index = flame_json_level (json, 2)->index;
  gdouble count = p->type == TYPE_EVENTED ? (gdouble) p->n_events / 2 : (gdouble) p->n_samples;

  g_ptr_array_add (ld->profile_names, p->name
                                        ? g_strdup (p->name)
                                        : g_strdup_printf ("profile %" G_GINT64_FORMAT, index));
  g_array_append_val (ld->profile_samples, count);
  /* --sample-type (--metric) NAME picks a profile by its name */
  if (ld->cur_selected && ld->opts->profile < 0 && ld->opts->sample_type != NULL &&
      g_strcmp0 (p->name, ld->opts->sample_type) != 0)
    ld->cur_selected = FALSE;
  if (ld->cur_selected && (ld->opts->profile >= 0 || ld->opts->sample_type != NULL || count > 0))
    {
      ld->chosen = index;
      if (ld->frames_done)
        {
          if (!finish_profile (ld, p, error))
            return FALSE;
          prof_clear (p);
        }
      else
        {
          ld->done = *p;
          memset (p, 0, sizeof *p);
          ld->pending = TRUE;
        }
    }
  else
    prof_clear (p);
  ld->cur_selected = FALSE;
  return TRUE;
}

/* A scalar of the top level (name, exporter) or of Flamediff's own
 * "flamediff" object */
static void
on_top_scalar (Loader               *ld,
               FlameJson            *json,
               const FlameJsonValue *v)
{
  guint depth = flame_json_depth (json);

  if (depth == 1)
    {
      const char *key = flame_json_level (json, 1)->key;

      if ((strcmp (key, "name") == 0 || strcmp (key, "exporter") == 0) &&
          v->type == FLAME_JSON_STRING)
        {
          g_ptr_array_add (ld->meta, g_strdup (key[0] == 'n' ? "name" : "exporter"));
          g_ptr_array_add (ld->meta, g_utf8_make_valid (v->str, v->len));
        }
    }
  else if (flame_json_key_is (json, 1, "flamediff"))
    {
      const char *key = flame_json_level (json, depth)->key;

      if (depth == 2 && strcmp (key, "interval-ms") == 0 && v->type != FLAME_JSON_STRING)
        ld->fd_interval = v->d;
      else if (depth == 2 && strcmp (key, "samples") == 0 && v->type != FLAME_JSON_STRING)
        ld->fd_samples = v->d;
      else if (depth == 3 && flame_json_key_is (json, 2, "profile-units") &&
               v->type == FLAME_JSON_STRING)
        g_ptr_array_add (ld->fd_profile_units, g_strndup (v->str, v->len));
      else if (depth == 2 && strcmp (key, "unit") == 0 && v->type == FLAME_JSON_STRING)
        {
          g_free (ld->fd_unit);
          ld->fd_unit = g_strndup (v->str, v->len);
        }
      else if (depth == 3 && flame_json_key_is (json, 2, "metadata") &&
               v->type == FLAME_JSON_STRING && flame_json_level (json, 3)->key_len != 255)
        {
          g_ptr_array_add (ld->meta, g_utf8_make_valid (key, -1));
          g_ptr_array_add (ld->meta, g_utf8_make_valid (v->str, v->len));
        }
    }
}

static gboolean
on_start_array (Loader     *ld,
                FlameJson  *json,
                guint       depth,
                GError    **error)
{
  if (depth == 5 && ld->section == SECTION_SAMPLES)
    {
      ld->stack.len = 0;
      flame_json_set_int_sink (json, on_sample_int);
    }
  else if (depth == 4 && flame_json_key_is (json, 1, "profiles"))
    {
      if (flame_json_key_is (json, 3, "samples"))
        ld->section = SECTION_SAMPLES;
      else if (flame_json_key_is (json, 3, "weights"))
        {
          ld->section = SECTION_WEIGHTS;
          flame_json_set_int_sink (json, on_weight_int);
        }
      else if (flame_json_key_is (json, 3, "events"))
        ld->section = SECTION_EVENTS;
    }
  else if (depth == 3 && flame_json_key_is (json, 1, "shared") &&
           flame_json_key_is (json, 2, "frames") && ld->frames_done)
    {
      flame_json_set_error (json, error, FLAME_ERROR_PARSE, "shared.frames appears twice");
      return FALSE;
    }
  return TRUE;
}

static gboolean
on_end_array (Loader     *ld,
              FlameJson  *json,
              guint       depth,
              GError    **error)
{
  if (depth == 5 && ld->section == SECTION_SAMPLES)
    return on_sample_end (ld, json, error);
  if (depth == 4 && ld->section != SECTION_NONE)
    ld->section = SECTION_NONE;
  else if (depth == 3 && flame_json_key_is (json, 1, "shared") &&
           flame_json_key_is (json, 2, "frames"))
    frames_finished (ld);
  return TRUE;
}

static gboolean
in_frames (FlameJson *json,
           guint      depth)
{
  return depth == 4 && flame_json_key_is (json, 1, "shared") &&
         flame_json_key_is (json, 2, "frames");
}

static void
on_start_map (Loader    *ld,
              FlameJson *json,
              guint      depth)
{
  if (in_frames (json, depth))
    memset (&ld->cur_frame, 0, sizeof ld->cur_frame);
  else if (depth == 3 && flame_json_key_is (json, 1, "profiles"))
    {
      gint64 index = flame_json_level (json, 2)->index;

      prof_init (&ld->cur, flame_json_offset (json));
      g_array_set_size (ld->prev_stack, 0);
      if (ld->opts->profile >= 0)
        ld->cur_selected = index == ld->opts->profile;
      else
        ld->cur_selected = ld->chosen < 0;  /* by name: decided at its end */
    }
  else if (depth == 5 && ld->section == SECTION_EVENTS)
    ld->event_fields = 0;
}

static gboolean
on_end_map (Loader     *ld,
            FlameJson  *json,
            guint       depth,
            GError    **error)
{
  if (in_frames (json, depth))
    g_array_append_val (ld->frames, ld->cur_frame);
  else if (depth == 5 && ld->section == SECTION_EVENTS)
    {
      if (ld->event_fields != 7)
        {
          flame_json_set_error (json, error, FLAME_ERROR_PARSE,
                                "an event needs \"type\", \"frame\" and \"at\"");
          return FALSE;
        }
      ld->cur.n_events++;
      if (ld->cur_selected)
        g_array_append_val (ld->cur.events, ld->cur_event);
    }
  else if (depth == 3 && flame_json_key_is (json, 1, "profiles"))
    return on_profile_end (ld, json, error);
  return TRUE;
}

static gboolean
on_scalar (Loader               *ld,
           FlameJson            *json,
           const FlameJsonValue *v,
           guint                 depth,
           GError              **error)
{
  if (in_frames (json, depth))
    return on_frame_field (ld, json, v, error);
  if (depth == 5 && ld->section == SECTION_EVENTS)
    return on_event_field (ld, json, v, error);
  if (depth == 3 && flame_json_key_is (json, 1, "profiles"))
    return on_profile_field (ld, json, v, error);
  on_top_scalar (ld, json, v);
  return TRUE;
}

/* Paths, with the depth at which their values arrive (the root object is
 * level 1):  shared.frames[i].name ........ 4
 *            profiles[i].type ............. 3
 *            profiles[i].samples[j][k] .... 5  (integers: on_sample_int)
 *            profiles[i].weights[j] ....... 4  (integers: on_weight_int)
 *            profiles[i].events[j].at ..... 5
 *            flamediff.metadata.KEY ....... 3 */
static gboolean
on_event (FlameJson            *json,
          const FlameJsonValue *v,
          gpointer              user_data,
          GError              **error)
{
  Loader *ld = user_data;
  guint depth = flame_json_depth (json);

  if (ld->section == SECTION_SAMPLES && depth == 5 && IS_SCALAR (v))
    return on_sample_frame (ld, json, v, error);
  if (ld->section == SECTION_WEIGHTS && depth == 4 && IS_SCALAR (v))
    return on_weight (ld, json, v, error);

  switch (v->type)
    {
    case FLAME_JSON_START_ARRAY:
      return on_start_array (ld, json, depth, error);
    case FLAME_JSON_END_ARRAY:
      return on_end_array (ld, json, depth, error);
    case FLAME_JSON_START_MAP:
      on_start_map (ld, json, depth);
      return TRUE;
    case FLAME_JSON_END_MAP:
      return on_end_map (ld, json, depth, error);
    default:
      return on_scalar (ld, json, v, depth, error);
    }
}

static void
loader_init (Loader                 *ld,
             FlameInput             *in,
             const FlameLoadOptions *options)
{
  static const FlameLoadOptions defaults = FLAME_LOAD_OPTIONS_DEFAULT;

  ld->in = in;
  ld->opts = options ? options : &defaults;
  ld->profile = flame_profile_new (FLAME_FORMAT_SPEEDSCOPE, 1);
  /* a node per frame index in the samples at most, and an index takes
   * at least two bytes ("0,"); random stacks hold one per ~6 bytes. Only
   * address space (flame_tree_reserve_space()); the node arrays then
   * never move as the tree grows. */
  flame_tree_reserve_space (flame_profile_get_tree (ld->profile),
                            (guint32) MIN (in->len / 4, (gsize) G_MAXUINT32));
  flame_profile_set_path (ld->profile, in->name);
  ld->frames = g_array_new (FALSE, FALSE, sizeof (RawFrame));
  ld->pool = g_byte_array_new ();
  g_byte_array_append (ld->pool, (const guint8 *) "", 1);
  ld->chosen = -1;
  ld->prev_stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld->prev_nodes = g_array_new (FALSE, FALSE, sizeof (StackNode));
  ld->profile_names = g_ptr_array_new_with_free_func (g_free);
  ld->profile_samples = g_array_new (FALSE, FALSE, sizeof (gdouble));
  ld->meta = g_ptr_array_new_with_free_func (g_free);
  ld->fd_profile_units = g_ptr_array_new_with_free_func (g_free);
}

static void
loader_clear (Loader *ld)
{
  g_clear_object (&ld->profile);
  prof_clear (&ld->cur);
  prof_clear (&ld->done);
  g_array_unref (ld->frames);
  g_byte_array_unref (ld->pool);
  g_free (ld->frame_map);
  g_free (ld->stack.idx);
  g_array_unref (ld->prev_stack);
  g_array_unref (ld->prev_nodes);
  g_ptr_array_unref (ld->profile_names);
  g_array_unref (ld->profile_samples);
  g_ptr_array_unref (ld->meta);
  g_ptr_array_unref (ld->fd_profile_units);
  g_free (ld->fd_unit);
}

/* The profile names, NULL-terminated for g_strjoinv() and friends: call
 * names_unterminate() after use */
static const char *const *
names_terminated (Loader *ld)
{
  g_ptr_array_add (ld->profile_names, NULL);
  return (const char *const *) ld->profile_names->pdata;
}

static void
names_unterminate (Loader *ld)
{
  g_ptr_array_remove_index (ld->profile_names, ld->profile_names->len - 1);
}

/* No profile was chosen: why */
static void
set_no_profile_error (Loader  *ld,
                      GError **error)
{
  if (ld->opts->profile >= 0)
    flame_input_set_error (ld->in, error, FLAME_ERROR_INVALID, 0,
                           "there is no profile %d (the file has %u)",
                           ld->opts->profile, ld->profile_names->len);
  else if (ld->opts->sample_type != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", (char **) names_terminated (ld));

      names_unterminate (ld);
      flame_input_set_error (ld->in, error, FLAME_ERROR_INVALID, 0,
                             "no profile is named “%s” (the file has: %s)",
                             ld->opts->sample_type, names);
    }
  else
    flame_input_set_error (ld->in, error, FLAME_ERROR_EMPTY, 0,
                           "no profile in the file has samples");
}

/* The file's metadata, its profiles as threads, and which one was read */
static void
apply_metadata (Loader *ld)
{
  char buf[32];

  for (guint i = 0; i + 1 < ld->meta->len; i += 2)
    flame_profile_set_metadata (ld->profile, g_ptr_array_index (ld->meta, i),
                                g_ptr_array_index (ld->meta, i + 1));
  for (guint i = 0; i < ld->profile_names->len; i++)
    {
      FlameThread *t = flame_profile_ensure_thread (ld->profile,
                                                    g_ptr_array_index (ld->profile_names, i),
                                                    -1, -1);
      t->samples = g_array_index (ld->profile_samples, gdouble, i);
    }
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, ld->chosen);
  flame_profile_set_metadata (ld->profile, "selected-profile", buf);
}

/* What Flamediff's own files say beside speedscope's fields (the
 * "flamediff" object): interval, sample count, units */
static void
apply_flamediff (Loader *ld)
{
  if (ld->fd_interval > 0)
    flame_profile_set_interval_ms (ld->profile, ld->fd_interval);
  /* Our own files list each distinct stack once with its weight; the
   * number of samples behind them (which the noise test needs) is kept
   * beside. Only for the profile we wrote: the first. */
  if (ld->fd_samples > 0 && isfinite (ld->fd_samples) && ld->chosen == 0)
    flame_profile_add_samples (ld->profile, 0,
                               ld->fd_samples - flame_profile_get_samples (ld->profile, 0));
  if (g_strcmp0 (ld->fd_unit, "events") == 0)
    flame_profile_set_unit (ld->profile, FLAME_UNIT_EVENTS);
  else if (g_strcmp0 (ld->fd_unit, "samples") == 0)
    flame_profile_set_unit (ld->profile, FLAME_UNIT_SAMPLES);
  if ((guint64) ld->chosen < ld->fd_profile_units->len)
    {
      const char *u = g_ptr_array_index (ld->fd_profile_units, ld->chosen);

      flame_profile_set_unit (ld->profile, strcmp (u, "count") == 0 ? FLAME_UNIT_COUNT :
                                           strcmp (u, "bytes") == 0 ? FLAME_UNIT_BYTES :
                                           flame_profile_get_unit (ld->profile));
      /* the metric's name, as a pprof sample type is shown */
      flame_profile_set_metadata (ld->profile, "sample-type",
                                  g_ptr_array_index (ld->profile_names, ld->chosen));
      /* our memory recordings: one profile per metric, each a sample
       * type (profiles of other speedscope files are threads) */
      flame_profile_set_sample_types (ld->profile, names_terminated (ld));
      names_unterminate (ld);
    }
}

FlameProfile *
flame_speedscope_load (FlameInput              *in,
                       const FlameLoadOptions  *options,
                       GError                 **error)
{
  Loader ld = { 0 };
  FlameProfile *result = NULL;

  loader_init (&ld, in, options);
  if (!flame_json_parse (in, 0, on_event, &ld, error))
    goto out;

  if (!ld.frames_done)
    frames_finished (&ld);
  if (ld.pending && !finish_profile (&ld, &ld.done, error))
    goto out;
  if (ld.chosen < 0)
    {
      set_no_profile_error (&ld, error);
      goto out;
    }
  apply_metadata (&ld);
  apply_flamediff (&ld);
  flame_profile_finish (ld.profile);
  result = g_steal_pointer (&ld.profile);

out:
  loader_clear (&ld);
  return result;
}

/* ---- writing ---- */

static const char *
unit_name (FlameUnit unit)
{
  switch (unit)
    {
    case FLAME_UNIT_NANOSECONDS: return "nanoseconds";
    case FLAME_UNIT_BYTES:       return "bytes";
    case FLAME_UNIT_EVENTS:
    case FLAME_UNIT_SAMPLES:
    default:                     return "none";
    }
}

static const char *
flamediff_unit_name (FlameUnit unit)
{
  switch (unit)
    {
    case FLAME_UNIT_EVENTS:  return "events";
    case FLAME_UNIT_SAMPLES: return "samples";
    case FLAME_UNIT_COUNT:   return "count";
    default:                 return unit_name (unit);
    }
}

gboolean
flame_speedscope_write (FlameProfile  *profile,
                        GString       *out,
                        GError       **error)
{
  return flame_speedscope_write_columns (profile, NULL, NULL, out, error);
}

/* The top of the file: schema, exporter, name, and our "flamediff"
 * object (units, source format, interval, samples, metadata) */
static void
write_header (FlameProfile    *profile,
              const FlameUnit *units,
              const char      *base,
              GString         *out)
{
  guint n_columns = flame_profile_get_n_columns (profile);
  g_auto(GStrv) keys = flame_profile_dup_metadata_keys (profile);

  g_string_append (out, "{\"$schema\":\"" FLAME_SPEEDSCOPE_SCHEMA
                        "\",\n\"exporter\":\"flamediff " PACKAGE_VERSION "\",\n\"name\":");
  flame_json_append_string (out, base);
  g_string_append (out, ",\n\"activeProfileIndex\":0,\n\"flamediff\":{\"unit\":");
  flame_json_append_string (out, flamediff_unit_name (units != NULL ? units[0] :
                                                      flame_profile_get_unit (profile)));
  if (units != NULL)
    {
      /* per profile, for what speedscope's units cannot say (counts) */
      g_string_append (out, ",\"profile-units\":[");
      for (guint c = 0; c < n_columns; c++)
        {
          if (c > 0)
            g_string_append_c (out, ',');
          flame_json_append_string (out, flamediff_unit_name (units[c]));
        }
      g_string_append_c (out, ']');
    }
  g_string_append (out, ",\"source-format\":");
  flame_json_append_string (out, flame_profile_get_format_name (profile));
  if (flame_profile_get_interval_ms (profile) > 0)
    {
      g_string_append (out, ",\"interval-ms\":");
      flame_append_number_exact (out, flame_profile_get_interval_ms (profile));
    }
  g_string_append (out, ",\"samples\":");
  flame_append_number_exact (out, flame_profile_get_samples (profile, 0));
  g_string_append (out, ",\"metadata\":{");
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      flame_json_append_string (out, keys[i]);
      g_string_append_c (out, ':');
      flame_json_append_string (out, flame_profile_get_metadata (profile, keys[i]));
    }
  g_string_append (out, "}},\n");
}

static void
write_frames (FlameProfile *profile,
              GString      *out)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  guint n_frames = flame_frames_count (frames);

  g_string_append (out, "\"shared\":{\"frames\":[");
  for (guint f = 0; f < n_frames; f++)
    {
      const FlameFrame *fr = flame_frames_get (frames, f);
      const char *file = flame_frames_get_file (frames, f);

      g_string_append (out, f > 0 ? ",\n{\"name\":" : "\n{\"name\":");
      flame_json_append_string (out, flame_frames_get_name (frames, f));
      if (file != NULL && *file != '\0')
        {
          g_string_append (out, ",\"file\":");
          flame_json_append_string (out, file);
        }
      if (fr->line > 0)
        g_string_append_printf (out, ",\"line\":%u", fr->line);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "]},\n");
}

/* Column @c as a sampled profile: a sample per node with weight of its
 * own, its frames root first (@path: room for the deepest stack) */
static void
write_profile (FlameProfile *profile,
               guint         c,
               const char   *name,
               FlameUnit     unit,
               guint32      *path,
               GString      *out)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  g_autoptr(GString) weights = g_string_new (NULL);
  gdouble total = 0;
  gboolean first = TRUE;

  g_string_append (out, c > 0 ? ",\n{\"type\":\"sampled\",\"name\":"
                               : "\n{\"type\":\"sampled\",\"name\":");
  flame_json_append_string (out, name);
  g_string_append (out, ",\"unit\":");
  flame_json_append_string (out, unit_name (unit));
  g_string_append (out, ",\"startValue\":0,\"endValue\":");
  for (guint32 n = 1; n < tree->n_nodes; n++)
    total += tree->self[c][n];
  flame_append_number_exact (out, total);
  g_string_append (out, ",\n\"samples\":[");
  for (guint32 n = 1; n < tree->n_nodes; n++)
    {
      gdouble w = tree->self[c][n];
      guint d = 0;

      if (w == 0)
        continue;
      for (guint32 a = n; a != FLAME_TREE_ROOT; a = tree->nodes[a].parent)
        path[d++] = tree->nodes[a].frame;
      g_string_append (out, first ? "\n[" : ",\n[");
      for (guint i = d; i > 0; i--)
        g_string_append_printf (out, i < d ? ",%u" : "%u", path[i - 1]);
      g_string_append_c (out, ']');
      if (!first)
        g_string_append_c (weights, ',');
      flame_append_number_exact (weights, w);
      first = FALSE;
    }
  g_string_append (out, "],\n\"weights\":[");
  g_string_append_len (out, weights->str, weights->len);
  g_string_append (out, "]}");
}

gboolean
flame_speedscope_write_columns (FlameProfile      *profile,
                                const char *const *names,
                                const FlameUnit   *units,
                                GString           *out,
                                GError           **error)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  guint n_columns = flame_profile_get_n_columns (profile);
  g_autofree guint32 *path = NULL;
  const char *file_path = flame_profile_get_path (profile);
  g_autofree char *base = file_path ? g_path_get_basename (file_path) : g_strdup ("profile");
  guint max_depth = 0;

  g_return_val_if_fail (FLAME_IS_PROFILE (profile), FALSE);

  for (guint32 n = 0; n < tree->n_nodes; n++)
    max_depth = MAX (max_depth, tree->nodes[n].depth);
  path = g_new (guint32, max_depth + 1);

  write_header (profile, units, base, out);
  write_frames (profile, out);
  g_string_append (out, "\"profiles\":[");
  for (guint c = 0; c < n_columns; c++)
    write_profile (profile, c,
                   names != NULL ? names[c] :
                   n_columns == 1 ? base : (c == 0 ? "baseline" : "current"),
                   units != NULL ? units[c] : flame_profile_get_unit (profile), path, out);
  g_string_append (out, "]}\n");
  return TRUE;
}

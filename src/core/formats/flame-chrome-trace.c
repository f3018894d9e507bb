/* flame-chrome-trace.c: Chrome's trace-event format. Each event
 * object is read here: Profile/ProfileChunk events give their arrays to
 * the node model of flame-chrome.c, as chunks of a profile; files
 * without them use the generic forms, as speedscope imports them: B/E/X
 * duration events per pid/tid, made into stacks in time order, and the
 * {traceEvents, samples, stackFrames} form.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame-chrome-private.h"
#include "flame-error.h"
#include "flame-json-write.h"

/* ---- the generic trace-event forms ---- */

/* A number, or a string holding one: Hermes writes "ts":"11550183666"
 * and "tid":"1", and speedscope reads them with Number(). */
gboolean
flame_chrome_number_of (const FlameJsonValue *v,
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

gint64
flame_chrome_int_of (const FlameJsonValue *v,
                     gint64                fallback)
{
  gdouble d;

  if (v->type == FLAME_JSON_INT)
    return v->i;
  if (flame_chrome_number_of (v, &d) && d >= -9.2e18 && d <= 9.2e18)
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

void
flame_chrome_append_js_scalar (GString              *s,
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
      flame_json_append_string_len (s, v->str, v->len);
      break;
    default:
      break;
    }
}

/* JavaScript truthiness of a scalar args value ({} and [] are truthy) */
gboolean
flame_chrome_js_truthy (const FlameJsonValue *v)
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
void
flame_chrome_args_append (Loader               *ld,
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
          flame_json_append_string_len (s, v->str, v->len);
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
        flame_chrome_append_js_scalar (s, v);
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
  g_hash_table_insert (ld->key_index, g_ptr_array_index (ld->keys, index),
                       GUINT_TO_POINTER (index + 1));
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

void
flame_chrome_dthread_free (gpointer data)
{
  DThread *t = data;

  g_free (t->sort_key);
  g_free (t);
}

static const char *const hermes_args[] = {
  "line", "column", "name", "category", "url", "params", "allocatedCategory", "allocatedName",
};

/* A key of the first event's args: Hermes traces are told by all of
 * hermes_args being there */
void
flame_chrome_note_hermes_key (Loader               *ld,
                              const FlameJsonValue *v)
{
  for (guint i = 0; i < G_N_ELEMENTS (hermes_args); i++)
    if (v->len == strlen (hermes_args[i]) && memcmp (v->str, hermes_args[i], v->len) == 0)
      ld->hermes_keys |= 1u << i;
}

/* A B/E/X event has ended: keep what the duration importer needs. */
void
flame_chrome_finish_dur_event (Loader *ld)
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

      de.frame = flame_profile_intern_frame (ld->profile, name,
                                             MIN (name_len, (gsize) FLAME_MAX_NAME_LEN),
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
gboolean
flame_chrome_on_samples_form (Loader               *ld,
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

          if (l->key_len == 255 ||
              !g_ascii_string_to_signed (l->key, 10, G_MININT64, G_MAXINT64, &id, NULL))
            return TRUE;
          f = g_new (StackFrame, 1);
          f->parent = ld->sframe.parent;
          f->frame = flame_profile_intern_frame (ld->profile, ld->sframe_name->str,
                                                 ld->sframe_name->len, NULL, 0, 0, 0);
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
        ld->tsample_has_ts = flame_chrome_number_of (v, &ld->tsample.ts);
      else if (strcmp (key, "sf") == 0)
        {
          ld->tsample.sf = flame_chrome_int_of (v, 0);
          ld->tsample_has_sf = TRUE;
        }
      else if (strcmp (key, "pid") == 0)
        ld->tsample_pid = flame_chrome_int_of (v, -1);
      else if (strcmp (key, "tid") == 0)
        ld->tsample_tid = flame_chrome_int_of (v, -1);
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
        ld->sframe.parent = flame_chrome_int_of (v, 0);
    }
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

/* Thread @ti's B events in @bq and E events in @eq, both by time then
 * file order, with each X as a B and an E; times from the thread's first */
static void
queue_events (Loader  *ld,
              guint32  ti,
              GArray  *bq,
              GArray  *eq)
{
  const DurEvent *evs = (const DurEvent *) ld->dur_events->data;
  g_autoptr(GArray) xq = g_array_new (FALSE, FALSE, sizeof (QEvent));
  gdouble first = G_MAXDOUBLE;

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
}

/* Before the E at @ei is taken: one of the same time that matches the
 * open @t by key, or else by name, is brought to the front */
static void
bring_matching_end (const DurEvent *evs,
                    QEvent         *e,
                    guint           ei,
                    guint           ne,
                    const DurEvent *t)
{
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
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Open));
  gdouble last = 0;
  QEvent *b, *e;
  guint bi = 0, ei = 0, nb, ne;
  guint64 n_dropped = 0;

  queue_events (ld, ti, bq, eq);
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
        bring_matching_end (evs, e, ei, ne, &evs[top->ev]);
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
  flame_profile_set_duration_ms (ld->profile,
                                 flame_profile_get_duration_ms (ld->profile) + last / 1000.0);
  if (n_dropped > 0)
    flame_profile_add_warning (ld->profile,
                               "%s: thread %" G_GINT64_FORMAT ": ignored %" G_GUINT64_FORMAT
                               " end (E) events that match no open event",
                               ld->in->name, th->tid, n_dropped);
  if (stack->len > 0)
    flame_profile_add_warning (ld->profile,
                               "%s: thread %" G_GINT64_FORMAT ": %u events were still open "
                               "at the end",
                               ld->in->name, th->tid, stack->len);
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
                                     "stack frame %" G_GINT64_FORMAT
                                     " is its own ancestor, or its stack "
                                     "is deeper than %d frames",
                                     sm->sf, FLAME_MAX_DEPTH);
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
  flame_profile_set_duration_ms (ld->profile,
                                 flame_profile_get_duration_ms (ld->profile) + total / 1000.0);
  if (n_missing > 0)
    flame_profile_add_warning (ld->profile,
                               "%s: skipped %" G_GUINT64_FORMAT " samples whose stack frames "
                               "the file does not define",
                               ld->in->name, n_missing);
  if (n_negative > 0)
    flame_profile_add_warning (ld->profile,
                               "%s: skipped %" G_GUINT64_FORMAT " samples followed by an "
                               "earlier one (negative duration)",
                               ld->in->name, n_negative);
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
gboolean
flame_chrome_build_generic (Loader   *ld,
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
      const char *tname = flame_chrome_thread_name (ld, t->pid, t->tid);
      FlameThread *thread = flame_profile_ensure_thread (ld->profile, tname ? tname : "", t->pid,
                                                         t->tid);
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
      flame_input_set_error (ld->in, error, FLAME_ERROR_INVALID, 0,
                             "there is no profile %d (the file has %u)", ld->opts->profile,
                             n_profiles);
      return FALSE;
    }
  if (ld->n_long_args > 0)
    flame_profile_add_warning (ld->profile,
                               "%s: the names of %" G_GUINT64_FORMAT " events are cut at %d bytes "
                               "(long args)",
                               ld->in->name, ld->n_long_args, FLAME_MAX_NAME_LEN);
  return TRUE;
}

/* A trace event object begins: its fields are read afresh, and what it
 * adds to the arrays can be taken back at its end */
static gboolean
on_trace_event_start (Loader     *ld,
                      FlameJson  *json,
                      GError    **error)
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
  return flame_input_tick (ld->in, flame_json_offset (json), error);
}

/* An event that is no profile event: forget what its args looked like */
static void
drop_event_arrays (Loader *ld)
{
  g_array_set_size (ld->nodes, ld->mark_nodes);
  g_array_set_size (ld->edges, ld->mark_edges);
  g_array_set_size (ld->samples, ld->mark_samples);
  g_array_set_size (ld->deltas, ld->mark_deltas);
  while (ld->delta_big->len > 0 &&
         g_array_index (ld->delta_big, BigDelta, ld->delta_big->len - 1).index >= ld->mark_deltas)
    g_array_set_size (ld->delta_big, ld->delta_big->len - 1);
}

/* A Profile, ProfileChunk or CpuProfile event ends: what it added to the
 * arrays becomes a chunk of its profile (by pid and id) */
static void
add_profile_chunk (Loader *ld)
{
  char key[96];
  guint32 pi;
  ProfileInfo *info;
  Chunk c;

  if (strcmp (ld->ev_name, "CpuProfile") == 0)
    g_snprintf (key, sizeof key, "%" G_GINT64_FORMAT "/cpuprofile-%" G_GUINT64_FORMAT,
                ld->ev_pid, ld->n_events);
  else
    g_snprintf (key, sizeof key, "%" G_GINT64_FORMAT "/%s", ld->ev_pid, ld->ev_id);
  pi = flame_chrome_ensure_profile (ld, key, ld->ev_pid);
  info = g_ptr_array_index (ld->profiles, pi);
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

/* A trace event object ends: a thread name, a duration event, or a
 * chunk of a profile */
static void
on_trace_event_end (Loader *ld)
{
  gboolean is_profile = strcmp (ld->ev_name, "Profile") == 0 ||
                        strcmp (ld->ev_name, "ProfileChunk") == 0 ||
                        strcmp (ld->ev_name, "CpuProfile") == 0;

  if (strcmp (ld->ev_name, "thread_name") == 0 && ld->ev_ph == 'M' && ld->ev_thread_name)
    g_hash_table_insert (ld->thread_names,
                         g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, ld->ev_pid,
                                          ld->ev_tid),
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
    flame_chrome_finish_dur_event (ld);
  if (is_profile)
    add_profile_chunk (ld);
  else
    drop_event_arrays (ld);
}

/* Values at or above the event objects' level */
static gboolean
on_event (Loader               *ld,
          FlameJson            *json,
          const FlameJsonValue *v,
          guint                 depth,
          GError              **error)
{
  /* find the level of the event objects first */
  if (ld->ev_depth == 0)
    {
      if (v->type == FLAME_JSON_START_ARRAY &&
          ((depth == 1) || (depth == 2 && flame_json_key_is (json, 1, "traceEvents"))))
        ld->ev_depth = depth + 1;
      return TRUE;
    }
  if (depth != ld->ev_depth)
    return TRUE;
  if (v->type == FLAME_JSON_START_MAP)
    return on_trace_event_start (ld, json, error);
  if (v->type == FLAME_JSON_END_MAP)
    on_trace_event_end (ld);
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

/* A scalar of the trace event object itself: name, ph, ts, pid, ... */
static void
on_event_scalar (Loader               *ld,
                 FlameJson            *json,
                 const FlameJsonValue *v)
{
  const char *key = flame_json_level (json, ld->ev_depth)->key;

  if (strcmp (key, "name") == 0 && v->type == FLAME_JSON_STRING)
    {
      copy_bounded (ld->ev_name, sizeof ld->ev_name, v->str, v->len);
      g_string_truncate (ld->ev_fullname, 0);
      g_string_append_len (ld->ev_fullname, v->str, MIN (v->len, (gsize) FLAME_MAX_NAME_LEN));
    }
  else if (strcmp (key, "args") == 0)
    {
      ld->ev_args_truthy = flame_chrome_js_truthy (v);
      g_string_truncate (ld->ev_args, 0);
      flame_chrome_append_js_scalar (ld->ev_args, v);
      ld->ev_args_long = ld->ev_args->len > FLAME_MAX_NAME_LEN;
    }
  else if (strcmp (key, "dur") == 0 && v->type != FLAME_JSON_NULL)
    ld->ev_has_dur = flame_chrome_number_of (v, &ld->ev_dur);
  else if (strcmp (key, "tdur") == 0 && v->type != FLAME_JSON_NULL)
    ld->ev_has_tdur = flame_chrome_number_of (v, &ld->ev_tdur);
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
    ld->ev_pid = flame_chrome_int_of (v, -1);
  else if (strcmp (key, "tid") == 0)
    ld->ev_tid = flame_chrome_int_of (v, -1);
  else if (strcmp (key, "ts") == 0)
    ld->ev_has_ts = flame_chrome_number_of (v, &ld->ev_ts);
}

/* args.data.startTime, args.data.timeDeltas[] and args.data.cpuProfile
 * of a trace event (Profile and ProfileChunk) */
static gboolean
on_args_data (Loader               *ld,
              FlameJson            *json,
              const FlameJsonValue *v,
              guint                 depth,
              gboolean              scalar,
              GError              **error)
{
  guint e = ld->ev_depth;

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
      flame_chrome_append_delta (ld, v->d);
      flame_chrome_set_hot (ld, json, depth, HOT_TRACE_DELTAS);
      return TRUE;
    }
  if (depth == e + 3 && v->type == FLAME_JSON_START_MAP &&
      flame_json_key_is (json, e + 2, "cpuProfile"))
    {
      ld->base = e + 3;
      return TRUE;
    }
  if (ld->base == e + 3 && depth > e + 3 && flame_json_key_is (json, e + 2, "cpuProfile"))
    return flame_chrome_on_profile_value (ld, json, v, depth, error);
  if (ld->base == e + 3 && depth == e + 3 && scalar &&
      flame_json_key_is (json, e + 3, "startTime") &&
      (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
    {
      ld->ev_start_time = v->d;
      ld->ev_has_start = TRUE;
    }
  return TRUE;
}

/**
 * flame_chrome_on_trace_value:
 *
 * A value of a trace file past the hot arrays: the generic forms
 * (samples with stackFrames), the event objects' fields, their args
 * (re-serialised for the duration events' keys) and args.data of
 * Profile and ProfileChunk events.
 */
gboolean
flame_chrome_on_trace_value (Loader               *ld,
                             FlameJson            *json,
                             const FlameJsonValue *v,
                             guint                 depth,
                             GError              **error)
{
  guint e = ld->ev_depth;
  gboolean scalar = v->type <= FLAME_JSON_STRING;

  /* the first letter first: this runs for every value of the file */
  if (depth >= 2 && flame_json_level (json, 1)->key[0] == 's' &&
      (flame_json_key_is (json, 1, "samples") || flame_json_key_is (json, 1, "stackFrames")))
    return flame_chrome_on_samples_form (ld, json, v, depth, error);

  if (e == 0 || depth < e || (depth == e && !scalar))
    return on_event (ld, json, v, depth, error);

  /* args, re-serialised for the duration events' keys */
  if (ld->ev_args_open)
    {
      if (v->type == FLAME_JSON_KEY && depth == e + 1 && ld->n_events == 1)
        flame_chrome_note_hermes_key (ld, v);
      flame_chrome_args_append (ld, json, v, depth, e + 1);
      if (depth == e + 1 && (v->type == FLAME_JSON_END_MAP || v->type == FLAME_JSON_END_ARRAY))
        {
          ld->ev_args_open = FALSE;
          flame_json_set_deliver_keys (json, FALSE);
        }
      if (v->type == FLAME_JSON_KEY)
        return TRUE;
    }
  else if (depth == e + 1 &&
           (v->type == FLAME_JSON_START_MAP || v->type == FLAME_JSON_START_ARRAY) &&
           flame_json_key_is (json, e, "args") && !ld->saw_profile &&
           (ld->ev_ph == 0 || ld->ev_ph == 'B' || ld->ev_ph == 'E' || ld->ev_ph == 'X') &&
           strcmp (ld->ev_name, "Profile") != 0 && strcmp (ld->ev_name, "ProfileChunk") != 0 &&
           strcmp (ld->ev_name, "CpuProfile") != 0)
    {
      ld->ev_args_open = TRUE;
      ld->ev_args_truthy = TRUE;
      g_string_truncate (ld->ev_args, 0);
      flame_json_set_deliver_keys (json, TRUE);
      flame_chrome_args_append (ld, json, v, depth, e + 1);
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
        ld->ev_line = flame_chrome_int_of (v, 0);
    }

  if (depth == e && scalar)
    {
      on_event_scalar (ld, json, v);
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

  if (!flame_json_key_is (json, e, "args") || depth < e + 2 ||
      !flame_json_key_is (json, e + 1, "data"))
    return TRUE;

  return on_args_data (ld, json, v, depth, scalar, error);
}

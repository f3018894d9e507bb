/* flame-pstats.c: Python's profile statistics: a marshal dump of
 *   {(file, line, function): (cc, nc, tottime, cumtime, callers)}
 * with callers {(file, line, function): (nc, cc, tottime, cumtime)}
 * (cProfile) or {(file, line, function): nc} (the profile module), times
 * in seconds. cc counts primitive (non-recursive) calls, nc all calls.
 *
 * The marshal reader is our own and bounded: only the types pstats files
 * use (dict, tuple, int, long, float, strings, None, bools and
 * references), a nesting depth and a value count limit, every length
 * checked against the bytes left; errors give the byte offset.
 *
 * Per-function tottime and cumtime go exactly into the profile's
 * function-weights table (as nanoseconds: the unit every time-weighted
 * profile uses); the flame tree is approximated from the caller edges
 * (flame-callgraph.c).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-callgraph.h"
#include "flame-error.h"
#include "flame-pstats.h"

#define FLAG_REF   0x80
#define MAX_DEPTH  16
#define MAX_VALUES ((guint32) 1 << 26)

typedef enum
{
  V_NONE,
  V_BOOL,
  V_INT,
  V_FLOAT,
  V_STR,
  V_TUPLE,
  V_DICT,   /* kids: key, value, key, value... */
} ValueType;

typedef struct
{
  guint8  type;
  guint32 n;      /* string length, tuple items, dict pairs */
  union
  {
    gint64  i;
    gdouble f;
    gsize   offset;  /* V_STR: where the bytes start in the input */
    guint32 kids;    /* V_TUPLE, V_DICT: first index in Marshal.kids */
  };
} Value;

typedef struct
{
  FlameInput *in;
  gsize       pos;
  GArray     *values;  /* Value */
  GArray     *kids;    /* guint32 value indices */
  GArray     *refs;    /* guint32 value indices, in FLAG_REF order */
} Marshal;

static gboolean
marshal_fail (Marshal     *m,
              gsize        offset,
              GError     **error,
              const char  *format,
              ...) G_GNUC_PRINTF (4, 5);

static gboolean
marshal_fail (Marshal     *m,
              gsize        offset,
              GError     **error,
              const char  *format,
              ...)
{
  va_list args;

  va_start (args, format);
  flame_input_set_error_at_bytev (m->in, error, FLAME_ERROR_PARSE, offset, format, args);
  va_end (args);
  return FALSE;
}

static gboolean
need (Marshal  *m,
      gsize     n,
      GError  **error)
{
  if (m->in->len - m->pos < n)
    return marshal_fail (m, m->in->len, error, "the file ends inside a value");
  return TRUE;
}

static gboolean
read_i32 (Marshal  *m,
          gint32   *out,
          GError  **error)
{
  const guint8 *p;

  if (!need (m, 4, error))
    return FALSE;
  p = (const guint8 *) m->in->data + m->pos;
  *out = (gint32) ((guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
                   (guint32) p[3] << 24);
  m->pos += 4;
  return TRUE;
}

static guint32
new_value (Marshal   *m,
           ValueType  type)
{
  Value v = { 0 };

  v.type = type;
  g_array_append_val (m->values, v);
  return m->values->len - 1;
}

static inline Value *
value_at (Marshal *m,
          guint32  index)
{
  return &g_array_index (m->values, Value, index);
}

/* A length of @n items of at least @min_size bytes each: never more than
 * the bytes left, so no allocation is driven by a bogus count. */
static gboolean
check_count (Marshal     *m,
             gsize        at,
             gint64       n,
             gsize        min_size,
             GError     **error)
{
  if (n < 0)
    return marshal_fail (m, at, error, "a negative length (%" G_GINT64_FORMAT ")", n);
  if ((guint64) n > (m->in->len - m->pos) / min_size)
    return marshal_fail (m, at, error,
                         "a length of %" G_GINT64_FORMAT " runs past the end of the file", n);
  return TRUE;
}

static gboolean read_value (Marshal *m, guint depth, guint32 *out, GError **error);

static gboolean
read_container (Marshal  *m,
                guint32   index,
                guint32   n,
                guint     depth,
                GError  **error)
{
  guint32 start = m->kids->len;

  g_array_set_size (m->kids, start + n);
  for (guint32 i = 0; i < n; i++)
    {
      guint32 kid;
      if (!read_value (m, depth + 1, &kid, error))
        return FALSE;
      g_array_index (m->kids, guint32, start + i) = kid;
    }
  value_at (m, index)->kids = start;
  value_at (m, index)->n = n;
  return TRUE;
}

static gboolean
read_dict (Marshal  *m,
           guint32   index,
           guint     depth,
           GError  **error)
{
  g_autoptr(GArray) pairs = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (;;)
    {
      guint32 key, value;

      if (!need (m, 1, error))
        return FALSE;
      if (m->in->data[m->pos] == '0')
        {
          m->pos++;
          break;
        }
      if (!read_value (m, depth + 1, &key, error) ||
          !read_value (m, depth + 1, &value, error))
        return FALSE;
      g_array_append_val (pairs, key);
      g_array_append_val (pairs, value);
    }
  value_at (m, index)->kids = m->kids->len;
  value_at (m, index)->n = pairs->len / 2;
  g_array_append_vals (m->kids, pairs->data, pairs->len);
  return TRUE;
}

/* marshal's long: |n| digits of 15 bits, least significant first; the
 * sign is n's */
static gboolean
read_long (Marshal  *m,
           gsize     at,
           guint32  *index,
           GError  **error)
{
  guint64 v = 0;
  gint32 n32;

  if (!read_i32 (m, &n32, error))
    return FALSE;
  if (n32 < -4 || n32 > 4)
    return marshal_fail (m, at, error, "an integer beyond 60 bits");
  if (!need (m, 2 * (gsize) ABS (n32), error))
    return FALSE;
  for (gint i = ABS (n32) - 1; i >= 0; i--)
    {
      const guint8 *d = (const guint8 *) m->in->data + m->pos + 2 * i;
      guint v15 = d[0] | (guint) d[1] << 8;
      if (v15 > 0x7fff)
        return marshal_fail (m, at, error, "a bad digit in a long integer");
      v = v << 15 | v15;
    }
  m->pos += 2 * (gsize) ABS (n32);
  *index = new_value (m, V_INT);
  value_at (m, *index)->i = n32 < 0 ? -(gint64) v : (gint64) v;
  return TRUE;
}

/* marshal's binary float: a little-endian IEEE double */
static gboolean
read_binary_float (Marshal  *m,
                   guint32  *index,
                   GError  **error)
{
  guint64 bits = 0;
  gdouble d;

  if (!need (m, 8, error))
    return FALSE;
  for (gint i = 7; i >= 0; i--)
    bits = bits << 8 | (guint8) m->in->data[m->pos + i];
  m->pos += 8;
  memcpy (&d, &bits, sizeof d);
  *index = new_value (m, V_FLOAT);
  value_at (m, *index)->f = d;
  return TRUE;
}

/* the old text float: a length byte, then the digits */
static gboolean
read_text_float (Marshal  *m,
                 gsize     at,
                 guint32  *index,
                 GError  **error)
{
  char buf[257];
  guint8 len;
  char *end;

  if (!need (m, 1, error))
    return FALSE;
  len = (guint8) m->in->data[m->pos++];
  if (!need (m, len, error))
    return FALSE;
  memcpy (buf, m->in->data + m->pos, len);
  buf[len] = '\0';
  m->pos += len;
  *index = new_value (m, V_FLOAT);
  value_at (m, *index)->f = g_ascii_strtod (buf, &end);
  if (len == 0 || *end != '\0')
    return marshal_fail (m, at, error, "a bad text float");
  return TRUE;
}

/* The length before a string's bytes or a tuple's items: one byte in the
 * short forms, else a 32-bit integer, checked against what is left */
static gboolean
read_length (Marshal  *m,
             gsize     at,
             gboolean  short_form,
             gint64   *len,
             GError  **error)
{
  gint32 n32;

  if (short_form)
    {
      if (!need (m, 1, error))
        return FALSE;
      *len = (guint8) m->in->data[m->pos++];
    }
  else
    {
      if (!read_i32 (m, &n32, error))
        return FALSE;
      *len = n32;
    }
  return check_count (m, at, *len, 1, error);
}

/* bytes, str, interned or ASCII: kept as a span of the file */
static gboolean
read_string (Marshal  *m,
             gsize     at,
             gboolean  short_form,
             guint32  *index,
             GError  **error)
{
  gint64 len;

  if (!read_length (m, at, short_form, &len, error))
    return FALSE;
  if (len > FLAME_MAX_NAME_LEN)
    return marshal_fail (m, at, error, "a string of more than %d bytes", FLAME_MAX_NAME_LEN);
  *index = new_value (m, V_STR);
  value_at (m, *index)->offset = m->pos;
  value_at (m, *index)->n = (guint32) len;
  m->pos += (gsize) len;
  return TRUE;
}

/* A tuple or a dict. With @ref the reference is taken before the items
 * are read, as Python does. */
static gboolean
read_collection (Marshal  *m,
                 gsize     at,
                 guint8    code,
                 gboolean  ref,
                 guint     depth,
                 guint32  *index,
                 GError  **error)
{
  gint64 n = 0;

  if (code != '{' && !read_length (m, at, code == ')', &n, error))
    return FALSE;
  *index = new_value (m, code == '{' ? V_DICT : V_TUPLE);
  if (ref)
    g_array_append_val (m->refs, *index);
  if (code == '{')
    return read_dict (m, *index, depth, error);
  return read_container (m, *index, (guint32) n, depth, error);
}

/* The value an 'r' names: one stored earlier with FLAG_REF */
static gboolean
read_reference (Marshal  *m,
                gsize     at,
                guint32  *out,
                GError  **error)
{
  gint32 n32;

  if (!read_i32 (m, &n32, error))
    return FALSE;
  if (n32 < 0 || (guint32) n32 >= m->refs->len)
    return marshal_fail (m, at, error, "a reference (%d) to no earlier value", n32);
  *out = g_array_index (m->refs, guint32, n32);
  return TRUE;
}

/* marshal's None, True, False and 32-bit int */
static gboolean
read_small (Marshal  *m,
            guint8    code,
            guint32  *index,
            GError  **error)
{
  gint32 n32 = 0;

  if (code == 'i' && !read_i32 (m, &n32, error))
    return FALSE;
  *index = new_value (m, code == 'N' ? V_NONE : code == 'i' ? V_INT : V_BOOL);
  if (code != 'N')
    value_at (m, *index)->i = code == 'i' ? n32 : code == 'T';
  return TRUE;
}

/* A marshal type (@code, with its FLAG_REF bit) that pstats files do not
 * hold, or that only Python can read */
static gboolean
refuse_code (Marshal  *m,
             gsize     at,
             guint8    code,
             GError  **error)
{
  switch (code & ~FLAG_REF)
    {
    case '0':
      return marshal_fail (m, at, error, "a null where a value belongs");
    case 'c':
      return marshal_fail (m, at, error,
                           "a code object (python -m profile stores the script's): "
                           "only Python can read it; use cProfile, or profile.run() with a string");
    default:
      return marshal_fail (m, at, error,
                           "a value of marshal type 0x%02x, which pstats files do not use", code);
    }
}

/* One value at m->pos. Recursive, but only MAX_DEPTH deep: pstats files
 * nest four levels. */
static gboolean
read_value (Marshal  *m,
            guint     depth,
            guint32  *out,
            GError  **error)
{
  gsize at = m->pos;
  guint8 code;
  gboolean flag;
  guint32 index = G_MAXUINT32;
  gboolean ok;

  if (depth > MAX_DEPTH)
    return marshal_fail (m, at, error, "values nested more than %d deep", MAX_DEPTH);
  if (m->values->len >= MAX_VALUES)
    return marshal_fail (m, at, error, "more than %u values", MAX_VALUES);
  if (!flame_input_tick (m->in, m->pos, error) || !need (m, 1, error))
    return FALSE;
  code = (guint8) m->in->data[m->pos++];
  flag = (code & FLAG_REF) != 0;
  code &= ~FLAG_REF;

  switch (code)
    {
    case 'N':
    case 'T':
    case 'F':
    case 'i':
      ok = read_small (m, code, &index, error);
      break;
    case 'l':
      ok = read_long (m, at, &index, error);
      break;
    case 'g':
      ok = read_binary_float (m, &index, error);
      break;
    case 'f':
      ok = read_text_float (m, at, &index, error);
      break;
    case 's':  /* bytes */
    case 'u':  /* str, UTF-8 */
    case 't':  /* interned str */
    case 'a':  /* ASCII str */
    case 'A':  /* interned ASCII */
    case 'z':  /* short ASCII: a one-byte length */
    case 'Z':
      ok = read_string (m, at, code == 'z' || code == 'Z', &index, error);
      break;
    case ')':
    case '(':
    case '{':
      /* the collection takes its reference itself */
      ok = read_collection (m, at, code, flag, depth, &index, error);
      flag = FALSE;
      break;
    case 'r':
      return read_reference (m, at, out, error);
    default:
      return refuse_code (m, at, code | (flag ? FLAG_REF : 0), error);
    }

  if (!ok)
    return FALSE;
  if (flag)
    g_array_append_val (m->refs, index);
  *out = index;
  return TRUE;
}

/* marshal's dict (with or without FLAG_REF) whose first key is a tuple,
 * or an empty one: the loader says what is wrong with the rest */
gboolean
flame_pstats_sniff (const char *data,
                    gsize       len)
{
  const guint8 *p = (const guint8 *) data;

  if (len < 2 || (p[0] & ~FLAG_REF) != '{')
    return FALSE;
  if ((p[1] & ~FLAG_REF) == '0')
    return len == 2;  /* an empty profile: load says so */
  return (p[1] & ~FLAG_REF) == ')' || (p[1] & ~FLAG_REF) == '(';
}

typedef struct
{
  Marshal  m;
  FlameProfile *profile;
  FlameCallGraph *graph;
} Pstats;

static gboolean
pstats_fail (Pstats      *ps,
             guint32      value,
             GError     **error,
             const char  *what)
{
  (void) value;
  flame_input_set_error (ps->m.in, error, FLAME_ERROR_PARSE, 0,
                         "not a pstats file: %s", what);
  return FALSE;
}

static gboolean
number (Pstats  *ps,
        guint32  index,
        gdouble *out)
{
  Value *v = value_at (&ps->m, index);

  if (v->type == V_INT)
    *out = (gdouble) v->i;
  else if (v->type == V_FLOAT)
    *out = v->f;
  else
    return FALSE;
  return isfinite (*out);
}

static guint32
kid (Pstats  *ps,
     guint32  index,
     guint32  i)
{
  return g_array_index (ps->m.kids, guint32, value_at (&ps->m, index)->kids + i);
}

/* A (file, line, function) key as a frame. Builtins are ('~', 0,
 * '<built-in method ...>'): no file. */
static gboolean
key_frame (Pstats  *ps,
           guint32  key,
           guint32 *frame)
{
  Value *k = value_at (&ps->m, key);
  Value *file, *line, *func;
  const char *data = ps->m.in->data;
  gboolean builtin;

  if (k->type != V_TUPLE || k->n != 3)
    return FALSE;
  file = value_at (&ps->m, kid (ps, key, 0));
  line = value_at (&ps->m, kid (ps, key, 1));
  func = value_at (&ps->m, kid (ps, key, 2));
  if (file->type != V_STR || line->type != V_INT || func->type != V_STR ||
      line->i < 0 || line->i > G_MAXUINT32)
    return FALSE;
  builtin = file->n == 1 && data[file->offset] == '~';
  *frame = flame_profile_intern_frame (ps->profile, data + func->offset, func->n,
                                       builtin ? NULL : data + file->offset, builtin ? 0 : file->n,
                                       (guint32) line->i, 0);
  return TRUE;
}

/* A call count as stored (an int, or a float in a damaged file), within
 * what the count can hold */
static guint64
call_count (gdouble v)
{
  if (!(v > 0))
    return 0;
  if (v >= 18446744073709551616.0)  /* 2^64 */
    return G_MAXUINT64;
  return (guint64) v;
}

static gboolean
interpret (Pstats   *ps,
           guint32   top,
           GError  **error)
{
  Value *t = value_at (&ps->m, top);
  guint n = t->n;

  if (t->type != V_DICT)
    return pstats_fail (ps, top, error, "the top value is not a dict");

  for (guint i = 0; i < n; i++)
    {
      guint32 key = kid (ps, top, 2 * i), entry = kid (ps, top, 2 * i + 1);
      guint32 frame, callers;
      gdouble cc, nc, tt, ct, old_self, old_total;
      Value *e = value_at (&ps->m, entry);

      if (!key_frame (ps, key, &frame))
        return pstats_fail (ps, key, error, "a key is not (file, line, function)");
      if (e->type != V_TUPLE || e->n != 5 ||
          !number (ps, kid (ps, entry, 0), &cc) || !number (ps, kid (ps, entry, 1), &nc) ||
          !number (ps, kid (ps, entry, 2), &tt) || !number (ps, kid (ps, entry, 3), &ct) ||
          value_at (&ps->m, kid (ps, entry, 4))->type != V_DICT)
        return pstats_fail (ps, entry, error,
                            "an entry is not (calls, primitive calls, tottime, cumtime, callers)");
      if (tt < 0 || ct < 0)
        return pstats_fail (ps, entry, error, "a negative time");
      if (!isfinite (tt) || !isfinite (ct))
        return pstats_fail (ps, entry, error, "a time that is not a finite number");

      /* two keys may name one frame (equal names, different tuples of
       * no consequence): add up */
      flame_profile_get_function_weights (ps->profile, 0, frame, &old_self, &old_total);
      flame_profile_set_function_weights (ps->profile, 0, frame,
                                          old_self + tt * 1e9, old_total + ct * 1e9);
      flame_profile_add_function_calls (ps->profile, 0, frame, call_count (nc), call_count (cc));
      flame_call_graph_add_self (ps->graph, frame, tt * 1e9);

      callers = kid (ps, entry, 4);
      for (guint c = 0; c < value_at (&ps->m, callers)->n; c++)
        {
          guint32 ckey = kid (ps, callers, 2 * c), cval = kid (ps, callers, 2 * c + 1);
          Value *cv = value_at (&ps->m, cval);
          guint32 caller;
          gdouble calls, inclusive;

          if (!key_frame (ps, ckey, &caller))
            return pstats_fail (ps, ckey, error, "a caller is not (file, line, function)");
          if (cv->type == V_TUPLE && cv->n == 4 && number (ps, kid (ps, cval, 0), &calls) &&
              number (ps, kid (ps, cval, 3), &inclusive))
            ;
          else if (number (ps, cval, &calls))
            /* the profile module counts calls per caller only: share the
             * cumulative time by calls */
            inclusive = nc > 0 ? ct * calls / nc : 0;
          else
            return pstats_fail (ps, cval, error, "a caller's figures are not a count or a 4-tuple");
          if (inclusive > 0)
            flame_call_graph_add_call (ps->graph, caller, frame, inclusive * 1e9);
        }
    }
  return TRUE;
}

FlameProfile *
flame_pstats_load (FlameInput  *in,
                   GError     **error)
{
  g_autoptr(FlameProfile) profile = flame_profile_new (FLAME_FORMAT_PSTATS, 1);
  g_autoptr(FlameCallGraph) graph = flame_call_graph_new ();
  Pstats ps = { { 0 } };
  gboolean ok;
  guint32 top;

  ps.m.in = in;
  ps.m.values = g_array_new (FALSE, FALSE, sizeof (Value));
  ps.m.kids = g_array_new (FALSE, FALSE, sizeof (guint32));
  ps.m.refs = g_array_new (FALSE, FALSE, sizeof (guint32));
  ps.profile = profile;
  ps.graph = graph;

  ok = read_value (&ps.m, 0, &top, error);
  if (ok && ps.m.pos != in->len)
    ok = marshal_fail (&ps.m, ps.m.pos, error, "data after the statistics");
  if (ok)
    ok = interpret (&ps, top, error);
  if (ok && flame_profile_get_tree (profile)->n_nodes == 1 &&
      !flame_profile_has_function_weights (profile))
    {
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no functions in the statistics");
      ok = FALSE;
    }
  if (ok)
    ok = flame_call_graph_build_tree (graph, profile, in, error);
  if (ok)
    {
      flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
      /* pstats is read for cumulative time (profile-diff-action's gate) */
      flame_profile_set_metadata (profile, "default-metric", "total");
      flame_profile_finish (profile);
    }

  g_array_unref (ps.m.values);
  g_array_unref (ps.m.kids);
  g_array_unref (ps.m.refs);
  return ok ? g_steal_pointer (&profile) : NULL;
}

/* flame-gecko.c: Firefox Profiler / Gecko profiles, streamed.
 *
 * One reader covers both layouts, because they share the model (samples
 * → stackTable → frameTable [→ funcTable] → strings) and differ only in
 * how a table is spelt:
 *
 *  - raw Gecko: {schema:{col:pos}, data:[[row], …]}, rows with trailing
 *    nulls left out, the schema possibly after the data; child processes
 *    nested under "processes", in old files (gecko-1) as JSON text in a
 *    string; a devtools export puts it all under "profile";
 *  - processed: {col:[…], length}, per thread before v60, in
 *    profile.shared from v60 (strings from v56), prefix or (v66+)
 *    prefixOffset.
 *
 * The SAX layer hands us values; the role of every open container is kept
 * in an array indexed by depth, so a value is classified by one lookup
 * of its parent's role and, for containers, one short key compare. Only
 * the columns we use are kept, as flat arrays of doubles (null = NaN);
 * everything is resolved after the parse, because shared tables may come
 * after the threads. Indices are bounds-checked, prefix chains are
 * resolved iteratively with memoisation and cycle detection, and tree
 * nodes are made only for stacks that samples use.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame-error.h"
#include "flame-gecko.h"
#include "flame-json.h"

#define UNSET      G_MAXUINT32
#define VISITING   (G_MAXUINT32 - 1)
/* positional columns kept from raw rows; real schemas have fewer than 12 */
#define MAX_RAW_COLUMNS 32
/* JSON text inside JSON strings (gecko-1's child processes), at most this deep */
#define MAX_EMBEDDED 3

enum
{
  R_NONE,        /* a subtree we skip */
  R_PROFILE,     /* {meta, threads, processes, shared, profile} */
  R_META,
  R_THREADS,
  R_PROCESSES,
  R_THREAD,
  R_SHARED,
  R_TABLE,
  R_SCHEMA,
  R_ROWS,
  R_ROW,
  R_COLUMN,
  R_STRINGS,
};

typedef struct
{
  char   *name;
  GArray *vals;   /* gdouble */
} Column;

typedef struct
{
  GPtrArray *cols;                   /* Column, named (processed) */
  GArray    *pos[MAX_RAW_COLUMNS];   /* raw rows, by position */
  GPtrArray *schema_names;           /* raw: column names ... */
  GArray    *schema_pos;             /* ... and their positions (gint) */
  gboolean   raw;
  gint64     n_rows;                 /* raw rows seen */
  gsize      offset;                 /* where the table starts, for messages */
  char       weight_type[16];
} Table;

typedef struct
{
  GByteArray *bytes;
  GArray     *spans;   /* Span */
} Strings;

typedef struct
{
  gsize off;
  gsize len;
} Span;

typedef struct _Profile Profile;
struct _Profile
{
  Profile *parent;
  gdouble  interval;
  gboolean processed;   /* meta.preprocessedProfileVersion seen */
  Table   *stacks, *frames, *funcs, *sources;
  Strings *strings;
};

typedef struct
{
  Profile *owner;
  char    *name;
  char    *process_name;
  gint64   pid, tid;
  Table   *samples, *stacks, *frames, *funcs;
  Strings *strings;
} Thread;

typedef struct
{
  FlameInput             *in;
  const FlameLoadOptions *opts;
  GPtrArray              *profiles;   /* Profile, owned */
  GPtrArray              *threads;    /* Thread, owned */
  GPtrArray              *tables;     /* Table, owned */
  GPtrArray              *strings;    /* Strings, owned */
  gboolean                any_raw;
} Loader;

typedef struct
{
  Loader  *ld;
  Profile *parent;     /* the profile an embedded one belongs to */
  guint    embedded;   /* nesting of JSON-in-string */
  guint8   role[FLAME_JSON_MAX_DEPTH + 1];
  gpointer ptr[FLAME_JSON_MAX_DEPTH + 1];
} Parser;

static const char *const wanted_columns[] = {
  "stack", "time", "timeDeltas", "weight", "prefix", "prefixOffset", "frame",
  "func", "location", "name", "fileName", "source", "lineNumber", "filename",
};

static void
table_free (gpointer data)
{
  Table *t = data;

  for (guint i = 0; i < MAX_RAW_COLUMNS; i++)
    if (t->pos[i])
      g_array_unref (t->pos[i]);
  g_ptr_array_unref (t->cols);
  g_ptr_array_unref (t->schema_names);
  g_array_unref (t->schema_pos);
  g_free (t);
}

static void
column_free (gpointer data)
{
  Column *c = data;

  g_free (c->name);
  g_array_unref (c->vals);
  g_free (c);
}

static Table *
table_new (Loader *ld,
           gsize   offset)
{
  Table *t = g_new0 (Table, 1);

  t->cols = g_ptr_array_new_with_free_func (column_free);
  t->schema_names = g_ptr_array_new_with_free_func (g_free);
  t->schema_pos = g_array_new (FALSE, FALSE, sizeof (gint));
  t->offset = offset;
  g_ptr_array_add (ld->tables, t);
  return t;
}

static void
strings_free (gpointer data)
{
  Strings *s = data;

  g_byte_array_unref (s->bytes);
  g_array_unref (s->spans);
  g_free (s);
}

static Strings *
strings_new (Loader *ld)
{
  Strings *s = g_new0 (Strings, 1);

  s->bytes = g_byte_array_new ();
  s->spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_ptr_array_add (ld->strings, s);
  return s;
}

static void
thread_free (gpointer data)
{
  Thread *t = data;

  g_free (t->name);
  g_free (t->process_name);
  g_free (t);
}

/* A column's values and count: named for processed tables, through the
 * schema for raw ones. Values past the end read as null. */
static const gdouble *
table_col (const Table *t,
           const char  *name,
           gsize       *len)
{
  *len = 0;
  if (t == NULL)
    return NULL;
  if (t->raw)
    {
      for (guint i = 0; i < t->schema_names->len; i++)
        if (strcmp (g_ptr_array_index (t->schema_names, i), name) == 0)
          {
            gint p = g_array_index (t->schema_pos, gint, i);

            if (p < 0 || p >= MAX_RAW_COLUMNS || t->pos[p] == NULL)
              return NULL;
            *len = t->pos[p]->len;
            return (const gdouble *) t->pos[p]->data;
          }
      return NULL;
    }
  for (guint i = 0; i < t->cols->len; i++)
    {
      Column *c = g_ptr_array_index (t->cols, i);

      if (strcmp (c->name, name) == 0)
        {
          *len = c->vals->len;
          return (const gdouble *) c->vals->data;
        }
    }
  return NULL;
}

static gboolean
table_has (const Table *t,
           const char  *name)
{
  gsize len;

  return table_col (t, name, &len) != NULL;
}

/* Rows: the raw row count, or the longest kept column (we do not trust
 * "length", which may disagree with the arrays). */
static gsize
table_rows (const Table *t)
{
  gsize n = 0;

  if (t == NULL)
    return 0;
  if (t->raw)
    return (gsize) t->n_rows;
  for (guint i = 0; i < t->cols->len; i++)
    n = MAX (n, ((Column *) g_ptr_array_index (t->cols, i))->vals->len);
  return n;
}

static inline gdouble
cell (const gdouble *col,
      gsize          len,
      gsize          i)
{
  return i < len ? col[i] : NAN;
}

/* An index cell: a non-negative integer below @n, else -1. */
static inline gint64
index_of (gdouble v,
          gsize   n)
{
  if (!(v >= 0) || v >= (gdouble) n || v != floor (v))
    return -1;
  return (gint64) v;
}

static Profile *
profile_new (Loader  *ld,
             Profile *parent)
{
  Profile *p = g_new0 (Profile, 1);

  p->parent = parent;
  g_ptr_array_add (ld->profiles, p);
  return p;
}

static gboolean
parse_text (Loader      *ld,
            Profile     *parent,
            guint        embedded,
            FlameInput  *in,
            GError     **error);

static gboolean
embedded_profile (Parser               *ps,
                  FlameJson            *json,
                  const FlameJsonValue *v,
                  Profile              *parent,
                  GError              **error)
{
  g_autofree char *copy = NULL;
  g_autofree char *name = NULL;
  FlameInput *outer = flame_json_input (json);
  FlameInput in = { 0 };

  if (ps->embedded >= MAX_EMBEDDED)
    {
      flame_json_set_error (json, error, FLAME_ERROR_TOO_LARGE,
                            "profiles embedded as JSON text deeper than %d levels", MAX_EMBEDDED);
      return FALSE;
    }
  /* the parser's string is only valid during this callback */
  copy = g_memdup2 (v->str, v->len);
  name = g_strdup_printf ("%s (the profile embedded at byte %" G_GSIZE_FORMAT ")",
                          outer->name, flame_json_offset (json));
  in.name = name;
  in.data = copy;
  in.len = v->len;
  in.cancellable = outer->cancellable;
  in.next_check = G_MAXSIZE;
  return parse_text (ps->ld, parent, ps->embedded + 1, &in, error);
}

static gboolean
is_key (FlameJson  *json,
        guint       depth,
        const char *key)
{
  return flame_json_key_is (json, depth, key);
}

/* A container opens inside a profile: meta, threads, processes, shared,
 * or (devtools export) a profile of its own. */
static guint8
profile_child (Parser    *ps,
               FlameJson *json,
               guint      d,
               gboolean   is_map,
               Profile   *p,
               gpointer  *ptr)
{
  *ptr = p;
  if (is_map && is_key (json, d - 1, "meta"))
    return R_META;
  if (!is_map && is_key (json, d - 1, "threads"))
    return R_THREADS;
  if (!is_map && is_key (json, d - 1, "processes"))
    return R_PROCESSES;
  if (is_map && is_key (json, d - 1, "shared"))
    return R_SHARED;
  if (is_map && is_key (json, d - 1, "profile"))
    {
      *ptr = profile_new (ps->ld, p);
      return R_PROFILE;
    }
  *ptr = NULL;
  return R_NONE;
}

static guint8
new_thread (Parser   *ps,
            Profile  *owner,
            gpointer *ptr)
{
  Thread *t = g_new0 (Thread, 1);

  t->owner = owner;
  t->pid = t->tid = -1;
  g_ptr_array_add (ps->ld->threads, t);
  *ptr = t;
  return R_THREAD;
}

/* A table or string array opens in a thread (@t) or in a profile's
 * shared tables (@p): the one slot of the two that is not NULL. */
static guint8
tables_child (Parser    *ps,
              FlameJson *json,
              guint      d,
              gboolean   is_map,
              Thread    *t,
              Profile   *p,
              gpointer  *ptr)
{
  Table **slot = NULL;

  if (is_map && t != NULL)
    {
      if (is_key (json, d - 1, "samples"))
        slot = &t->samples;
      else if (is_key (json, d - 1, "stackTable"))
        slot = &t->stacks;
      else if (is_key (json, d - 1, "frameTable"))
        slot = &t->frames;
      else if (is_key (json, d - 1, "funcTable"))
        slot = &t->funcs;
    }
  else if (is_map)
    {
      if (is_key (json, d - 1, "stackTable"))
        slot = &p->stacks;
      else if (is_key (json, d - 1, "frameTable"))
        slot = &p->frames;
      else if (is_key (json, d - 1, "funcTable"))
        slot = &p->funcs;
      else if (is_key (json, d - 1, "sources"))
        slot = &p->sources;
    }
  else if (t != NULL ? is_key (json, d - 1, "stringTable") || is_key (json, d - 1, "stringArray")
                     : is_key (json, d - 1, "stringArray"))
    {
      Strings **strings = t != NULL ? &t->strings : &p->strings;

      *strings = strings_new (ps->ld);
      *ptr = *strings;
      return R_STRINGS;
    }

  if (slot == NULL)
    {
      *ptr = NULL;
      return R_NONE;
    }
  *slot = table_new (ps->ld, flame_json_offset (json));
  *ptr = *slot;
  return R_TABLE;
}

/* A container opens in a table: the raw form's schema or data, or one of
 * the processed form's columns that the loader reads. */
static guint8
table_child (FlameJson *json,
             guint      d,
             gboolean   is_map,
             Table     *t,
             gpointer  *ptr)
{
  const FlameJsonLevel *l = flame_json_level (json, d - 1);

  *ptr = t;
  if (is_map && is_key (json, d - 1, "schema"))
    {
      t->raw = TRUE;
      return R_SCHEMA;
    }
  if (!is_map && is_key (json, d - 1, "data"))
    {
      t->raw = TRUE;
      return R_ROWS;
    }
  if (!is_map && l->key_len != 255)
    for (guint i = 0; i < G_N_ELEMENTS (wanted_columns); i++)
      if (strcmp (l->key, wanted_columns[i]) == 0)
        {
          Column *c = g_new0 (Column, 1);

          /* a repeated key: the last one wins, as in JSON.parse */
          for (guint k = 0; k < t->cols->len; k++)
            if (strcmp (((Column *) g_ptr_array_index (t->cols, k))->name, l->key) == 0)
              {
                g_ptr_array_remove_index (t->cols, k);
                break;
              }
          c->name = g_strdup (l->key);
          c->vals = g_array_new (FALSE, FALSE, sizeof (gdouble));
          g_ptr_array_add (t->cols, c);
          *ptr = c->vals;
          return R_COLUMN;
        }
  *ptr = NULL;
  return R_NONE;
}

/* A container opens at depth @d: what it is, from what holds it. */
static void
open_container (Parser    *ps,
                FlameJson *json,
                guint      d,
                gboolean   is_map)
{
  guint8 prole = d >= 2 ? ps->role[d - 1] : R_NONE;
  gpointer pptr = d >= 2 ? ps->ptr[d - 1] : NULL;
  guint8 role = R_NONE;
  gpointer ptr = NULL;

  if (d == 1)
    {
      if (is_map)
        {
          role = R_PROFILE;
          ptr = profile_new (ps->ld, ps->parent);
        }
    }
  else
    switch (prole)
      {
      case R_PROFILE:
        role = profile_child (ps, json, d, is_map, pptr, &ptr);
        break;
      case R_THREADS:
        if (is_map)
          role = new_thread (ps, pptr, &ptr);
        break;
      case R_PROCESSES:
        if (is_map)
          role = R_PROFILE, ptr = profile_new (ps->ld, pptr);
        break;
      case R_THREAD:
        role = tables_child (ps, json, d, is_map, pptr, NULL, &ptr);
        break;
      case R_SHARED:
        role = tables_child (ps, json, d, is_map, NULL, pptr, &ptr);
        break;
      case R_TABLE:
        role = table_child (json, d, is_map, pptr, &ptr);
        break;
      case R_ROWS:
        if (!is_map)
          {
            Table *t = pptr;

            t->n_rows++;
            role = R_ROW, ptr = t;
          }
        break;
      default:
        break;
      }
  ps->role[d] = role;
  ps->ptr[d] = ptr;
}

static inline gdouble
number_or_nan (const FlameJsonValue *v)
{
  return v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE ? v->d : NAN;
}

/* A cell of a raw table's row: into the column of its position */
static void
row_value (FlameJson            *json,
           guint                 d,
           Table                *t,
           const FlameJsonValue *v)
{
  gint64 p = flame_json_level (json, d)->index;
  gdouble x = number_or_nan (v);
  GArray *col;

  if (p < 0 || p >= MAX_RAW_COLUMNS)
    return;
  if (t->pos[p] == NULL)
    t->pos[p] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  col = t->pos[p];
  /* rows leave out trailing nulls: pad the rows this column missed */
  while ((gint64) col->len < t->n_rows - 1)
    {
      gdouble nan = NAN;
      g_array_append_val (col, nan);
    }
  if ((gint64) col->len == t->n_rows - 1)
    g_array_append_val (col, x);
}

static void
strings_value (Strings              *s,
               const FlameJsonValue *v)
{
  Span sp = { s->bytes->len, 0 };

  if (v->type == FLAME_JSON_STRING)
    {
      g_byte_array_append (s->bytes, (const guint8 *) v->str, (guint) v->len);
      sp.len = v->len;
    }
  g_array_append_val (s->spans, sp);
}

static void
schema_value (FlameJson            *json,
              guint                 d,
              Table                *t,
              const FlameJsonValue *v)
{
  const FlameJsonLevel *l = flame_json_level (json, d);
  gint p = (gint) CLAMP (v->i, -1, MAX_RAW_COLUMNS);

  if (v->type != FLAME_JSON_INT || l->key_len == 255)
    return;
  g_ptr_array_add (t->schema_names, g_strdup (l->key));
  g_array_append_val (t->schema_pos, p);
}

static void
table_value (FlameJson            *json,
             guint                 d,
             Table                *t,
             const FlameJsonValue *v)
{
  if (v->type == FLAME_JSON_STRING && is_key (json, d, "weightType"))
    {
      gsize n = MIN (v->len, sizeof t->weight_type - 1);

      memcpy (t->weight_type, v->str, n);
      t->weight_type[n] = '\0';
    }
}

static void
meta_value (FlameJson            *json,
            guint                 d,
            Profile              *p,
            const FlameJsonValue *v)
{
  if (is_key (json, d, "interval") && (v->type == FLAME_JSON_INT || v->type == FLAME_JSON_DOUBLE))
    p->interval = v->d;
  else if (is_key (json, d, "preprocessedProfileVersion"))
    p->processed = TRUE;
}

static void
thread_value (FlameJson            *json,
              guint                 d,
              Thread               *t,
              const FlameJsonValue *v)
{
  gboolean is_name = is_key (json, d, "name");

  if ((is_name || is_key (json, d, "processName")) && v->type == FLAME_JSON_STRING)
    {
      char **slot = is_name ? &t->name : &t->process_name;

      g_free (*slot);
      *slot = g_utf8_make_valid (v->str, MIN (v->len, (gsize) 1024));
    }
  else if (is_key (json, d, "pid") || is_key (json, d, "tid"))
    {
      gint64 *slot = is_key (json, d, "pid") ? &t->pid : &t->tid;

      if (v->type == FLAME_JSON_INT && v->i >= 0)
        *slot = v->i;
      else if (v->type == FLAME_JSON_STRING && v->len > 0 && v->len < 20)
        {
          /* CPython writes the pid as a string */
          char buf[24];
          char *end;
          gint64 n;

          memcpy (buf, v->str, v->len);
          buf[v->len] = '\0';
          n = g_ascii_strtoll (buf, &end, 10);
          if (*end == '\0' && n >= 0)
            *slot = n;
        }
    }
}

static gboolean
on_value (FlameJson            *json,
          const FlameJsonValue *v,
          gpointer              user_data,
          GError              **error)
{
  Parser *ps = user_data;
  guint d = flame_json_depth (json);

  if (v->type == FLAME_JSON_START_MAP || v->type == FLAME_JSON_START_ARRAY)
    {
      open_container (ps, json, d, v->type == FLAME_JSON_START_MAP);
      return TRUE;
    }
  if (v->type == FLAME_JSON_END_MAP || v->type == FLAME_JSON_END_ARRAY)
    return TRUE;

  /* a scalar, in the container at depth d */
  if (d == 0)
    return TRUE;
  switch (ps->role[d])
    {
    case R_COLUMN:
      {
        gdouble x = number_or_nan (v);

        g_array_append_val ((GArray *) ps->ptr[d], x);
      }
      break;
    case R_ROW:
      row_value (json, d, ps->ptr[d], v);
      break;
    case R_STRINGS:
      strings_value (ps->ptr[d], v);
      break;
    case R_SCHEMA:
      schema_value (json, d, ps->ptr[d], v);
      break;
    case R_TABLE:
      table_value (json, d, ps->ptr[d], v);
      break;
    case R_META:
      meta_value (json, d, ps->ptr[d], v);
      break;
    case R_THREAD:
      thread_value (json, d, ps->ptr[d], v);
      break;
    case R_THREADS:
    case R_PROCESSES:
      /* old raw profiles hold child processes as JSON text */
      if (v->type == FLAME_JSON_STRING)
        return embedded_profile (ps, json, v, ps->ptr[d], error);
      break;
    default:
      break;
    }
  return TRUE;
}

static gboolean
parse_text (Loader      *ld,
            Profile     *parent,
            guint        embedded,
            FlameInput  *in,
            GError     **error)
{
  g_autofree Parser *ps = g_new0 (Parser, 1);

  ps->ld = ld;
  ps->parent = parent;
  ps->embedded = embedded;
  return flame_json_parse (in, 0, on_value, ps, error);
}

/* Tables and strings of a thread: its own, else the nearest profile's
 * shared ones (v56+ strings, v60+ tables). */
static Table *
find_table (Thread  *t,
            Table   *own,
            gsize    member)
{
  if (own != NULL)
    return own;
  for (Profile *p = t->owner; p != NULL; p = p->parent)
    {
      Table *s = G_STRUCT_MEMBER (Table *, p, member);
      if (s != NULL)
        return s;
    }
  return NULL;
}

static Strings *
find_strings (Thread *t)
{
  if (t->strings != NULL)
    return t->strings;
  for (Profile *p = t->owner; p != NULL; p = p->parent)
    if (p->strings != NULL)
      return p->strings;
  return NULL;
}

typedef struct
{
  Loader        *ld;
  FlameProfile  *profile;
  Thread        *thread;
  Table         *stacks, *frames, *funcs, *sources;
  Strings       *strings;
  const gdouble *s_frame, *s_prefix, *s_offset;
  gsize          n_s_frame, n_s_prefix, n_s_offset, n_stacks;
  guint32       *tnode;      /* per stack row */
  guint32       *frame_ids;  /* per frame row */
  guint32       *func_ids;   /* per func row */
  gsize          n_frames, n_funcs;
  GArray        *chain;
} Build;

static gboolean
get_string (Build        *b,
            gdouble       index,
            const Table  *where,
            const char   *what,
            const char  **str,
            gsize        *len,
            GError      **error)
{
  gint64 i;
  const Span *sp;

  if (b->strings == NULL)
    {
      flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, where->offset,
                                     "thread “%s” has no string table",
                                     b->thread->name ? b->thread->name : "");
      return FALSE;
    }
  i = index_of (index, b->strings->spans->len);
  if (i < 0)
    {
      flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, where->offset,
                                     "%s: string index %g is out of range (%u strings)",
                                     what, index, b->strings->spans->len);
      return FALSE;
    }
  sp = &g_array_index (b->strings->spans, Span, i);
  /* a table of empty strings has no bytes at all (data is NULL) */
  *str = sp->len == 0 ? "" : (const char *) b->strings->bytes->data + sp->off;
  *len = sp->len;
  if (*len > FLAME_MAX_NAME_LEN)
    {
      flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_TOO_LARGE, where->offset,
                                     "%s: a name is longer than %d bytes",
                                     what, FLAME_MAX_NAME_LEN);
      return FALSE;
    }
  return TRUE;
}

/* Frame id of funcTable row @fn (processed profiles: frames are merged
 * by function, since a function has one frame per line or address). */
static gboolean
func_frame (Build    *b,
            gint64    fn,
            guint32  *out,
            GError  **error)
{
  gsize n_name, n_file, n_source, n_line;
  const gdouble *name = table_col (b->funcs, "name", &n_name);
  const gdouble *file = table_col (b->funcs, "fileName", &n_file);
  const gdouble *source = table_col (b->funcs, "source", &n_source);
  const gdouble *line = table_col (b->funcs, "lineNumber", &n_line);
  const char *s, *f = "";
  gsize len, flen = 0;
  gdouble ln;

  if (b->func_ids[fn] != UNSET)
    {
      *out = b->func_ids[fn];
      return TRUE;
    }
  if (!get_string (b, cell (name, n_name, fn), b->funcs, "funcTable.name", &s, &len, error))
    return FALSE;
  if (!isnan (cell (file, n_file, fn)))
    {
      if (!get_string (b, cell (file, n_file, fn), b->funcs, "funcTable.fileName", &f, &flen,
                       error))
        return FALSE;
    }
  else if (!isnan (cell (source, n_source, fn)) && b->sources != NULL)
    {
      gsize n_fn;
      const gdouble *fnames = table_col (b->sources, "filename", &n_fn);
      gint64 si = index_of (cell (source, n_source, fn), table_rows (b->sources));

      if (si < 0)
        {
          flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, b->funcs->offset,
                                         "funcTable row %" G_GINT64_FORMAT
                                         ": source %g is out of range",
                                         fn, cell (source, n_source, fn));
          return FALSE;
        }
      if (!isnan (cell (fnames, n_fn, si)) && !get_string (b, cell (fnames, n_fn, si), b->sources,
                                                           "sources.filename", &f, &flen, error))
        return FALSE;
    }
  ln = cell (line, n_line, fn);
  if (len == 0)
    s = "(anonymous)", len = strlen (s);
  b->func_ids[fn] = flame_profile_intern_frame (b->profile, s, len, f, flen,
                                                ln >= 1 && ln < G_MAXUINT32 ? (guint32) ln : 0, 0);
  *out = b->func_ids[fn];
  return TRUE;
}

/* Frame id of frameTable row @fr. */
static gboolean
frame_id (Build    *b,
          gint64    fr,
          guint32  *out,
          GError  **error)
{
  if (b->frame_ids[fr] != UNSET)
    {
      *out = b->frame_ids[fr];
      return TRUE;
    }
  if (table_has (b->frames, "func"))
    {
      gsize n_func;
      const gdouble *func = table_col (b->frames, "func", &n_func);
      gint64 fn = index_of (cell (func, n_func, fr), b->n_funcs);

      if (fn < 0)
        {
          flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, b->frames->offset,
                                         "frameTable row %" G_GINT64_FORMAT
                                         ": func %g is out of range "
                                         "(%" G_GSIZE_FORMAT " functions)",
                                         fr, cell (func, n_func, fr), b->n_funcs);
          return FALSE;
        }
      if (!func_frame (b, fn, &b->frame_ids[fr], error))
        return FALSE;
    }
  else
    {
      /* raw Gecko: the location string is the function ("0x1f84",
       * "Startup::XRE_Main", "frob (chrome://x.js:34)"), kept whole as
       * the processed-1 upgrade does */
      gsize n_loc;
      const gdouble *loc = table_col (b->frames, "location", &n_loc);
      const char *s;
      gsize len;

      if (!get_string (b, cell (loc, n_loc, fr), b->frames, "frameTable.location", &s, &len, error))
        return FALSE;
      if (len == 0)
        s = "(anonymous)", len = strlen (s);
      b->frame_ids[fr] = flame_profile_intern_frame (b->profile, s, len, NULL, 0, 0, 0);
    }
  *out = b->frame_ids[fr];
  return TRUE;
}

/* Parent stack row of @i, or -1 for a root; -2 (error set) when invalid. */
static gint64
prefix_of (Build    *b,
           gsize     i,
           GError  **error)
{
  gdouble x;

  if (b->s_offset != NULL)
    {
      /* v66+: 0 is a root, k > 0 the row k before this one */
      x = cell (b->s_offset, b->n_s_offset, i);
      if (isnan (x) || x == 0)
        return -1;
      if (x > 0 && x <= (gdouble) i && x == floor (x))
        return (gint64) i - (gint64) x;
    }
  else
    {
      x = cell (b->s_prefix, b->n_s_prefix, i);
      if (isnan (x))
        return -1;
      if (index_of (x, b->n_stacks) >= 0)
        return (gint64) x;
    }
  flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, b->stacks->offset,
                                 "stackTable row %" G_GSIZE_FORMAT
                                 ": %s %g is out of range (%" G_GSIZE_FORMAT " rows)",
                                 i, b->s_offset ? "prefixOffset" : "prefix", x, b->n_stacks);
  return -2;
}

/* Tree node of stack row @s, made on first use: the prefix chain is
 * walked iteratively up to a known row, marking rows on the way so that
 * a cycle is seen instead of followed. */
static gboolean
stack_node (Build    *b,
            gsize     s,
            guint32  *out,
            GError  **error)
{
  FlameTree *tree = flame_profile_get_tree (b->profile);
  gint64 j = (gint64) s;
  guint32 at;

  if (b->tnode[s] < VISITING)
    {
      *out = b->tnode[s];
      return TRUE;
    }
  g_array_set_size (b->chain, 0);
  while (j >= 0 && b->tnode[j] == UNSET)
    {
      guint32 jj = (guint32) j;

      b->tnode[j] = VISITING;
      g_array_append_val (b->chain, jj);
      j = prefix_of (b, (gsize) j, error);
      if (j == -2)
        return FALSE;
    }
  if (j >= 0 && b->tnode[j] == VISITING)
    {
      flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, b->stacks->offset,
                                     "stackTable row %" G_GINT64_FORMAT " is its own prefix "
                                     "(the prefix links form a cycle)", j);
      return FALSE;
    }
  at = j >= 0 ? b->tnode[j] : FLAME_TREE_ROOT;
  if ((gsize) flame_tree_node (tree, at)->depth + b->chain->len > FLAME_MAX_DEPTH)
    {
      flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_TOO_LARGE, b->stacks->offset,
                                     "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
      return FALSE;
    }
  for (guint k = b->chain->len; k > 0; k--)
    {
      guint32 c = g_array_index (b->chain, guint32, k - 1);
      gint64 fr = index_of (cell (b->s_frame, b->n_s_frame, c), b->n_frames);
      guint32 fid;

      if (fr < 0)
        {
          flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, b->stacks->offset,
                                         "stackTable row %u: frame %g is out of range "
                                         "(%" G_GSIZE_FORMAT " frames)",
                                         c, cell (b->s_frame, b->n_s_frame, c), b->n_frames);
          return FALSE;
        }
      if (!frame_id (b, fr, &fid, error))
        return FALSE;
      at = flame_tree_child (tree, at, fid);
      b->tnode[c] = at;
    }
  *out = b->tnode[s];
  return TRUE;
}

typedef enum { W_SAMPLES, W_MS, W_BYTES } WeightKind;

static WeightKind
weight_kind (const Table *samples)
{
  if (strcmp (samples->weight_type, "tracing-ms") == 0)
    return W_MS;
  if (strcmp (samples->weight_type, "bytes") == 0)
    return W_BYTES;
  return W_SAMPLES;
}

/* Sum of the sample weights: what `info` lists for a thread. */
static gdouble
thread_weight (const Table *samples,
               gsize       *n_samples)
{
  gsize n_stack, n_weight;
  const gdouble *weight;
  gdouble sum = 0;

  table_col (samples, "stack", &n_stack);
  weight = table_col (samples, "weight", &n_weight);
  /* raw rows may leave out even the stack: count rows, not cells */
  if (samples->raw)
    n_stack = table_rows (samples);
  *n_samples = n_stack;
  for (gsize i = 0; i < n_stack; i++)
    {
      gdouble w = weight ? cell (weight, n_weight, i) : 1;
      sum += isfinite (w) ? w : 1;
    }
  return sum;
}

static const char *
thread_label (Thread *t,
              char   *buf,
              gsize   size)
{
  if (t->name != NULL && t->process_name != NULL && strcmp (t->name, "GeckoMain") == 0)
    g_snprintf (buf, size, "%s (%s)", t->name, t->process_name);
  else
    g_snprintf (buf, size, "%s", t->name ? t->name : "");
  return buf;
}

/* Finds @t's tables and sets up @b's maps from their rows to tree
 * nodes; FALSE (and nothing allocated) without a stack or frame table */
static gboolean
build_init (Build         *b,
            Loader        *ld,
            FlameProfile  *profile,
            Thread        *t,
            GError       **error)
{
  b->ld = ld;
  b->profile = profile;
  b->thread = t;
  b->stacks = find_table (t, t->stacks, G_STRUCT_OFFSET (Profile, stacks));
  b->frames = find_table (t, t->frames, G_STRUCT_OFFSET (Profile, frames));
  b->funcs = find_table (t, t->funcs, G_STRUCT_OFFSET (Profile, funcs));
  b->sources = find_table (t, NULL, G_STRUCT_OFFSET (Profile, sources));
  b->strings = find_strings (t);
  if (b->stacks == NULL || b->frames == NULL)
    {
      flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, t->samples->offset,
                                     "thread “%s” has samples but no %s", t->name ? t->name : "",
                                     b->stacks == NULL ? "stackTable" : "frameTable");
      return FALSE;
    }
  b->s_frame = table_col (b->stacks, "frame", &b->n_s_frame);
  b->s_prefix = table_col (b->stacks, "prefix", &b->n_s_prefix);
  b->s_offset = table_col (b->stacks, "prefixOffset", &b->n_s_offset);
  b->n_stacks = table_rows (b->stacks);
  b->n_frames = table_rows (b->frames);
  b->n_funcs = table_rows (b->funcs);
  b->tnode = g_new (guint32, MAX (b->n_stacks, 1));
  b->frame_ids = g_new (guint32, MAX (b->n_frames, 1));
  b->func_ids = g_new (guint32, MAX (b->n_funcs, 1));
  memset (b->tnode, 0xff, MAX (b->n_stacks, 1) * sizeof (guint32));
  memset (b->frame_ids, 0xff, MAX (b->n_frames, 1) * sizeof (guint32));
  memset (b->func_ids, 0xff, MAX (b->n_funcs, 1) * sizeof (guint32));
  b->chain = g_array_new (FALSE, FALSE, sizeof (guint32));
  return TRUE;
}

static void
build_clear (Build *b)
{
  g_free (b->tnode);
  g_free (b->frame_ids);
  g_free (b->func_ids);
  g_array_unref (b->chain);
}

/* Adds each sample of the thread to its stack's node, @scale times its
 * weight; samples without a stack are counted in *@n_null */
static gboolean
add_thread_samples (Build    *b,
                    gdouble   scale,
                    guint64  *n_null,
                    GError  **error)
{
  Thread *t = b->thread;
  FlameTree *tree = flame_profile_get_tree (b->profile);
  gsize n_stack, n_weight;
  const gdouble *stack = table_col (t->samples, "stack", &n_stack);
  const gdouble *weight = table_col (t->samples, "weight", &n_weight);
  gsize n_stack_cells = n_stack;

  if (t->samples->raw)
    n_stack = table_rows (t->samples);
  for (gsize i = 0; i < n_stack; i++)
    {
      gdouble w = weight ? cell (weight, n_weight, i) : 1;
      gint64 s;
      guint32 node;

      if (!isfinite (w))
        w = 1;
      if (isnan (cell (stack, n_stack_cells, i)))
        {
          /* a sample with no stack (the thread was not in a function) */
          (*n_null)++;
          continue;
        }
      s = index_of (cell (stack, n_stack_cells, i), b->n_stacks);
      if (s < 0)
        {
          flame_input_set_error_at_byte (b->ld->in, error, FLAME_ERROR_PARSE, t->samples->offset,
                                         "sample %" G_GSIZE_FORMAT
                                         ": stack %g is out of range (%" G_GSIZE_FORMAT " stacks)",
                                         i, cell (stack, n_stack_cells, i), b->n_stacks);
          return FALSE;
        }
      if (!stack_node (b, (gsize) s, &node, error))
        return FALSE;
      flame_tree_add_self (tree, 0, node, w * scale);
    }
  return TRUE;
}

static gboolean
build_thread (Loader        *ld,
              FlameProfile  *profile,
              Thread        *t,
              WeightKind     kind,
              gdouble       *span_ms,
              GError       **error)
{
  Build b = { 0 };
  gsize n_time;
  const gdouble *time = table_col (t->samples, "time", &n_time);
  guint64 n_null = 0;
  gboolean ok = FALSE;

  if (!build_init (&b, ld, profile, t, error))
    return FALSE;
  if (table_has (b.frames, "func") && b.funcs == NULL)
    {
      flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, b.frames->offset,
                                     "the frameTable refers to functions but there is no "
                                     "funcTable");
      goto out;
    }
  if (!add_thread_samples (&b, kind == W_MS ? 1e6 : 1, &n_null, error))
    goto out;
  if (n_null > 0)
    flame_profile_add_warning (profile, "%s: thread “%s”: skipped %" G_GUINT64_FORMAT
                               " samples without a stack", ld->in->name, t->name ? t->name : "",
                               n_null);
  if (time != NULL && n_time > 1)
    *span_ms = MAX (*span_ms, time[n_time - 1] - time[0]);
  ok = TRUE;

out:
  build_clear (&b);
  return ok;
}

/* Counts every thread's samples in @profile and merges the chosen ones
 * (all, or options->thread) into its tree; *@kind becomes the first built
 * thread's weight, and threads weighed otherwise are left out */
static gboolean
build_threads (Loader        *ld,
               FlameProfile  *profile,
               WeightKind    *kind,
               gdouble       *span_ms,
               guint         *n_built,
               GError       **error)
{
  gboolean have_kind = FALSE;

  for (guint i = 0; i < ld->threads->len; i++)
    {
      Thread *t = g_ptr_array_index (ld->threads, i);
      gint64 tid = t->tid >= 0 ? t->tid : (gint64) i;
      char label[1200];
      gsize n_samples = 0;
      gdouble w;
      FlameThread *ft;

      if (t->samples == NULL)
        continue;
      w = thread_weight (t->samples, &n_samples);
      if (n_samples == 0)
        continue;
      /* threads without a tid (old raw files) are numbered in file order */
      ft = flame_profile_ensure_thread (profile, thread_label (t, label, sizeof label), t->pid,
                                        tid);
      if (weight_kind (t->samples) == W_SAMPLES)
        ft->samples += w;
      else
        ft->samples += (gdouble) n_samples;
      if (ld->opts->thread >= 0 && tid != ld->opts->thread)
        continue;
      if (!have_kind)
        {
          *kind = weight_kind (t->samples);
          have_kind = TRUE;
        }
      else if (weight_kind (t->samples) != *kind)
        {
          flame_profile_add_warning (profile, "%s: thread “%s” weighs its samples in “%s”, "
                                     "unlike the first thread; left out", ld->in->name,
                                     label, t->samples->weight_type);
          continue;
        }
      if (!build_thread (ld, profile, t, *kind, span_ms, error))
        return FALSE;
      flame_profile_add_samples (profile, 0, *kind == W_SAMPLES ? w : (gdouble) n_samples);
      (*n_built)++;
    }
  return TRUE;
}

/* The unit, interval and duration that follow from the threads' weight */
static void
set_profile_unit (FlameProfile *profile,
                  WeightKind    kind,
                  gdouble       interval,
                  gdouble       span_ms,
                  guint         n_built)
{
  switch (kind)
    {
    case W_SAMPLES:
      flame_profile_set_unit (profile, FLAME_UNIT_SAMPLES);
      if (interval > 0)
        flame_profile_set_interval_ms (profile, interval);
      break;
    case W_MS:
      flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
      break;
    case W_BYTES:
      flame_profile_set_unit (profile, FLAME_UNIT_BYTES);
      break;
    }
  if (span_ms > 0)
    flame_profile_set_duration_ms (profile, span_ms + MAX (interval, 0));
  if (n_built > 1)
    flame_profile_set_metadata (profile, "threads-merged", "yes");
}

FlameProfile *
flame_gecko_load (FlameInput              *in,
                  const FlameLoadOptions  *options,
                  GError                 **error)
{
  static const FlameLoadOptions defaults = FLAME_LOAD_OPTIONS_DEFAULT;
  Loader ld = { 0 };
  FlameProfile *profile = NULL;
  FlameProfile *result = NULL;
  gboolean raw = FALSE;
  WeightKind kind = W_SAMPLES;
  gdouble interval = 0, span_ms = 0;
  guint n_built = 0;

  ld.in = in;
  ld.opts = options ? options : &defaults;
  ld.profiles = g_ptr_array_new_with_free_func (g_free);
  ld.threads = g_ptr_array_new_with_free_func (thread_free);
  ld.tables = g_ptr_array_new_with_free_func (table_free);
  ld.strings = g_ptr_array_new_with_free_func (strings_free);

  if (!parse_text (&ld, NULL, 0, in, error))
    goto out;

  /* raw if any table is schema/data; the first interval given wins */
  for (guint i = 0; i < ld.tables->len; i++)
    raw |= ((Table *) g_ptr_array_index (ld.tables, i))->raw;
  for (guint i = 0; i < ld.profiles->len && interval <= 0; i++)
    interval = ((Profile *) g_ptr_array_index (ld.profiles, i))->interval;

  profile = flame_profile_new (raw ? FLAME_FORMAT_GECKO : FLAME_FORMAT_FIREFOX_PROCESSED, 1);
  flame_profile_set_path (profile, in->name);

  if (!build_threads (&ld, profile, &kind, &span_ms, &n_built, error))
    goto out;

  if (n_built == 0 || flame_profile_get_samples (profile, 0) == 0)
    {
      if (ld.opts->thread >= 0)
        flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                               "no samples for thread %" G_GINT64_FORMAT, ld.opts->thread);
      else
        flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no samples in the file");
      goto out;
    }
  set_profile_unit (profile, kind, interval, span_ms, n_built);
  flame_profile_finish (profile);
  result = g_steal_pointer (&profile);

out:
  g_clear_object (&profile);
  g_ptr_array_unref (ld.threads);
  g_ptr_array_unref (ld.tables);
  g_ptr_array_unref (ld.strings);
  g_ptr_array_unref (ld.profiles);
  return result;
}

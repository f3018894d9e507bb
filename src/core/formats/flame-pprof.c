/* flame-pprof.c: pprof profile.proto, and the legacy binary CPU profiles
 * of gperftools and pre-proto Go that pprof still reads.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * profile.proto (google/pprof proto/profile.proto) is decoded with our own
 * bounds-checked wire reader (flame-protobuf.c): one pass over the
 * top-level fields collects where every sub-message lies, since field
 * order is arbitrary and samples may come before the locations they
 * name; then functions, mappings and locations are indexed by id, each
 * location's frames interned once, and the samples walked.
 *
 * Every index in the file is checked: string indices against the string
 * table, location and function ids against their tables. Allocation is
 * bounded by the input: every table entry costs at least one input byte,
 * and the frames expanded from samples are limited to a budget
 * proportional to the input (a location with many inlined lines named by
 * many samples would otherwise turn kilobytes into hours).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-error.h"
#include "flame-pprof.h"
#include "flame-protobuf.h"

/* Frames pushed by all samples together, at most: a fixed allowance plus
 * this many per input byte. Real profiles stay far below (a Go stack of
 * 64 frames costs about 64 bytes). */
#define WORK_PER_BYTE  256
#define WORK_BASE      ((guint64) 4 << 20)

/* Field numbers of google/pprof proto/profile.proto, per message. */
enum
{
  PROFILE_SAMPLE_TYPE         = 1,
  PROFILE_SAMPLE              = 2,
  PROFILE_MAPPING             = 3,
  PROFILE_LOCATION            = 4,
  PROFILE_FUNCTION            = 5,
  PROFILE_STRING_TABLE        = 6,
  PROFILE_DROP_FRAMES         = 7,
  PROFILE_KEEP_FRAMES         = 8,
  PROFILE_TIME_NANOS          = 9,
  PROFILE_DURATION_NANOS      = 10,
  PROFILE_PERIOD_TYPE         = 11,
  PROFILE_PERIOD              = 12,
  PROFILE_COMMENT             = 13,
  PROFILE_DEFAULT_SAMPLE_TYPE = 14,
  PROFILE_DOC_URL             = 15,
};

enum
{
  SAMPLE_LOCATION_ID = 1,
  SAMPLE_VALUE       = 2,
  SAMPLE_LABEL       = 3,
};

enum
{
  LABEL_KEY      = 1,
  LABEL_STR      = 2,
  LABEL_NUM      = 3,
  LABEL_NUM_UNIT = 4,
};

enum
{
  LOCATION_ID         = 1,
  LOCATION_MAPPING_ID = 2,
  LOCATION_ADDRESS    = 3,
  LOCATION_LINE       = 4,
  LOCATION_IS_FOLDED  = 5,
};

enum
{
  LINE_FUNCTION_ID = 1,
  LINE_LINE        = 2,
  LINE_COLUMN      = 3,
};

enum
{
  FUNCTION_ID          = 1,
  FUNCTION_NAME        = 2,
  FUNCTION_SYSTEM_NAME = 3,
  FUNCTION_FILENAME    = 4,
  FUNCTION_START_LINE  = 5,
};

enum
{
  VALUE_TYPE_TYPE = 1,
  VALUE_TYPE_UNIT = 2,
};

enum
{
  MAPPING_ID                = 1,
  MAPPING_FILENAME          = 5,
  MAPPING_HAS_INLINE_FRAMES = 10,  /* the last field */
};

typedef struct
{
  const guint8 *data;
  gsize         len;
} Span;

typedef struct
{
  guint64 id;
  guint64 name;
  guint64 system_name;
  guint64 filename;
} Function;

typedef struct
{
  guint64 id;
  guint64 filename;
} Mapping;

typedef struct
{
  guint64 id;
  guint64 mapping_id;
  guint64 address;
  guint   first_line;   /* into lines */
  guint   n_lines;
  guint   first_frame;  /* into frame_ids, root first */
  guint   n_frames;
  gsize   offset;
} Location;

typedef struct
{
  guint64 function_id;
  gint64  line;
} Line;

typedef struct
{
  FlameInput   *in;
  const guint8 *base;
  GArray       *strings;    /* Span */
  GArray       *functions;  /* Function, sorted by id */
  GArray       *mappings;   /* Mapping, sorted by id */
  GArray       *locations;  /* Location, sorted by id */
  GArray       *lines;      /* Line */
  GArray       *frame_ids;  /* guint32 */
} Pprof;

static void
set_error (Pprof       *pp,
           GError     **error,
           gint         code,
           gsize        offset,
           const char  *reason)
{
  flame_input_set_error_at_byte (pp->in, error, code, offset, "%s", reason);
}

static gboolean
reader_failed (Pprof          *pp,
               FlamePbReader  *r,
               GError        **error)
{
  if (r->error == NULL)
    return FALSE;
  set_error (pp, error, FLAME_ERROR_PARSE, r->error_offset, r->error);
  return TRUE;
}

/* Checks a field's wire type; scalar fields must be varints, messages and
 * strings length-delimited. */
static gboolean
expect_wire (Pprof               *pp,
             const FlamePbField  *f,
             guint                wire_type,
             const char          *what,
             GError             **error)
{
  g_autofree char *msg = NULL;

  if (f->wire_type == wire_type)
    return TRUE;
  msg = g_strdup_printf ("%s (field %u) has wire type %u, expected %u",
                         what, f->number, f->wire_type, wire_type);
  set_error (pp, error, FLAME_ERROR_PARSE, f->offset, msg);
  return FALSE;
}

static gboolean
get_string (Pprof        *pp,
            guint64       index,
            gsize         offset,
            const char  **str,
            gsize        *len,
            GError      **error)
{
  const Span *s;

  if (index >= pp->strings->len)
    {
      g_autofree char *msg =
        g_strdup_printf ("string index %" G_GUINT64_FORMAT " is out of range "
                         "(the string table has %u entries)", index, pp->strings->len);
      set_error (pp, error, FLAME_ERROR_PARSE, offset, msg);
      return FALSE;
    }
  s = &g_array_index (pp->strings, Span, index);
  *str = (const char *) s->data;
  *len = s->len;
  return TRUE;
}

static gboolean
string_equals (Pprof      *pp,
               guint64     index,
               const char *literal)
{
  const Span *s;

  if (index >= pp->strings->len)
    return FALSE;
  s = &g_array_index (pp->strings, Span, index);
  return s->len == strlen (literal) && memcmp (s->data, literal, s->len) == 0;
}

static char *
dup_string (Pprof   *pp,
            guint64  index)
{
  const Span *s;

  if (index >= pp->strings->len)
    return g_strdup ("");
  s = &g_array_index (pp->strings, Span, index);
  return g_strndup ((const char *) s->data, s->len);
}

static int
compare_ids (const void *a,
             const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* The tables start with their id, so one search serves all three. */
static gpointer
find_by_id (GArray  *array,
            guint    element_size,
            guint64  id)
{
  if (array->len == 0)
    return NULL;
  return bsearch (&id, array->data, array->len, element_size, compare_ids);
}

static gboolean
parse_value_type (Pprof         *pp,
                  const Span    *span,
                  guint64       *type,
                  guint64       *unit,
                  GError       **error)
{
  FlamePbReader r;
  FlamePbField f;

  *type = *unit = 0;
  flame_pb_reader_init (&r, pp->base, span->data, span->len);
  while (flame_pb_next (&r, &f))
    {
      if (f.number == VALUE_TYPE_TYPE || f.number == VALUE_TYPE_UNIT)
        {
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "ValueType field", error))
            return FALSE;
          if (f.number == VALUE_TYPE_TYPE)
            *type = f.value;
          else
            *unit = f.value;
        }
    }
  return !reader_failed (pp, &r, error);
}

static gboolean
parse_functions (Pprof   *pp,
                 GArray  *spans,
                 GError **error)
{
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *span = &g_array_index (spans, Span, i);
      Function fn = { 0 };
      FlamePbReader r;
      FlamePbField f;

      flame_pb_reader_init (&r, pp->base, span->data, span->len);
      while (flame_pb_next (&r, &f))
        {
          if (f.number > FUNCTION_START_LINE)
            continue;
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "Function field", error))
            return FALSE;
          switch (f.number)
            {
            case FUNCTION_ID: fn.id = f.value; break;
            case FUNCTION_NAME: fn.name = f.value; break;
            case FUNCTION_SYSTEM_NAME: fn.system_name = f.value; break;
            case FUNCTION_FILENAME: fn.filename = f.value; break;
            default: break;
            }
        }
      if (reader_failed (pp, &r, error))
        return FALSE;
      g_array_append_val (pp->functions, fn);
    }
  g_array_sort (pp->functions, compare_ids);
  return TRUE;
}

static gboolean
parse_mappings (Pprof   *pp,
                GArray  *spans,
                GError **error)
{
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *span = &g_array_index (spans, Span, i);
      Mapping m = { 0 };
      FlamePbReader r;
      FlamePbField f;

      flame_pb_reader_init (&r, pp->base, span->data, span->len);
      while (flame_pb_next (&r, &f))
        {
          if (f.number > MAPPING_HAS_INLINE_FRAMES)
            continue;
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "Mapping field", error))
            return FALSE;
          if (f.number == MAPPING_ID)
            m.id = f.value;
          else if (f.number == MAPPING_FILENAME)
            m.filename = f.value;
        }
      if (reader_failed (pp, &r, error))
        return FALSE;
      g_array_append_val (pp->mappings, m);
    }
  g_array_sort (pp->mappings, compare_ids);
  return TRUE;
}

/* A Location.line, appended to pp->lines. */
static gboolean
parse_line (Pprof               *pp,
            const FlamePbField  *f,
            GError             **error)
{
  FlamePbReader lr;
  FlamePbField lf;
  Line line = { 0 };

  if (!expect_wire (pp, f, FLAME_PB_LEN, "Location.line", error))
    return FALSE;
  flame_pb_reader_init (&lr, pp->base, f->data, f->len);
  while (flame_pb_next (&lr, &lf))
    {
      if (lf.number > LINE_COLUMN)
        continue;
      if (!expect_wire (pp, &lf, FLAME_PB_VARINT, "Line field", error))
        return FALSE;
      if (lf.number == LINE_FUNCTION_ID)
        line.function_id = lf.value;
      else if (lf.number == LINE_LINE)
        line.line = (gint64) lf.value;
    }
  if (reader_failed (pp, &lr, error))
    return FALSE;
  g_array_append_val (pp->lines, line);
  return TRUE;
}

static gboolean
parse_locations (Pprof   *pp,
                 GArray  *spans,
                 GError **error)
{
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *span = &g_array_index (spans, Span, i);
      Location loc = { 0 };
      FlamePbReader r;
      FlamePbField f;

      loc.first_line = pp->lines->len;
      loc.offset = span->data - pp->base;
      flame_pb_reader_init (&r, pp->base, span->data, span->len);
      while (flame_pb_next (&r, &f))
        {
          if (f.number == LOCATION_LINE)
            {
              if (!parse_line (pp, &f, error))
                return FALSE;
              loc.n_lines++;
              continue;
            }
          if (f.number > LOCATION_IS_FOLDED)
            continue;
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "Location field", error))
            return FALSE;
          if (f.number == LOCATION_ID)
            loc.id = f.value;
          else if (f.number == LOCATION_MAPPING_ID)
            loc.mapping_id = f.value;
          else if (f.number == LOCATION_ADDRESS)
            loc.address = f.value;
        }
      if (reader_failed (pp, &r, error))
        return FALSE;
      if (loc.id == 0)
        {
          set_error (pp, error, FLAME_ERROR_PARSE, loc.offset, "a location has no id");
          return FALSE;
        }
      g_array_append_val (pp->locations, loc);
    }
  g_array_sort (pp->locations, compare_ids);
  for (guint i = 1; i < pp->locations->len; i++)
    if (g_array_index (pp->locations, Location, i).id ==
        g_array_index (pp->locations, Location, i - 1).id)
      {
        g_autofree char *msg =
          g_strdup_printf ("location id %" G_GUINT64_FORMAT " is used twice",
                           g_array_index (pp->locations, Location, i).id);
        set_error (pp, error, FLAME_ERROR_PARSE,
                   g_array_index (pp->locations, Location, i).offset, msg);
        return FALSE;
      }
  return TRUE;
}

/* Interns line @k of @loc: its function, in its own file or else in the
 * binary @file of the location's mapping. */
static gboolean
intern_line (Pprof           *pp,
             FlameProfile    *profile,
             const Location  *loc,
             guint            k,
             const char      *file,
             gsize            file_len,
             guint32         *id,
             GError         **error)
{
  const Line *line = &g_array_index (pp->lines, Line, loc->first_line + k);
  const Function *fn = find_by_id (pp->functions, sizeof (Function), line->function_id);
  const char *name, *fn_file;
  gsize name_len, fn_file_len;
  guint32 flags = k + 1 < loc->n_lines ? FLAME_FRAME_INLINED : 0;
  guint32 lineno = line->line > 0 && line->line <= G_MAXUINT32 ? (guint32) line->line : 0;

  if (fn == NULL)
    {
      g_autofree char *msg =
        g_strdup_printf ("location %" G_GUINT64_FORMAT " names function %"
                         G_GUINT64_FORMAT ", which is not in the function table",
                         loc->id, line->function_id);
      set_error (pp, error, FLAME_ERROR_PARSE, loc->offset, msg);
      return FALSE;
    }
  if (!get_string (pp, fn->name, loc->offset, &name, &name_len, error) ||
      !get_string (pp, fn->filename, loc->offset, &fn_file, &fn_file_len, error))
    return FALSE;
  if (name_len == 0 &&
      !get_string (pp, fn->system_name, loc->offset, &name, &name_len, error))
    return FALSE;
  if (name_len == 0)
    {
      char addr[32];
      g_snprintf (addr, sizeof addr, "0x%" G_GINT64_MODIFIER "x", loc->address);
      *id = flame_profile_intern_frame (profile, addr, strlen (addr), file, file_len, 0, flags);
    }
  else
    *id = flame_profile_intern_frame (profile, name, name_len,
                                      fn_file_len ? fn_file : file,
                                      fn_file_len ? fn_file_len : file_len,
                                      lineno, flags);
  return TRUE;
}

/* Interns each location's frames once, root first: the line a location's
 * inlined functions were inlined into comes last in the file and first
 * here; every line but that one is marked inlined. */
static gboolean
intern_location_frames (Pprof         *pp,
                        FlameProfile  *profile,
                        GError       **error)
{
  for (guint i = 0; i < pp->locations->len; i++)
    {
      Location *loc = &g_array_index (pp->locations, Location, i);
      const char *file = NULL;
      gsize file_len = 0;
      const Mapping *m = NULL;

      if (loc->mapping_id != 0)
        m = find_by_id (pp->mappings, sizeof (Mapping), loc->mapping_id);
      if (m != NULL && !get_string (pp, m->filename, loc->offset, &file, &file_len, error))
        return FALSE;

      loc->first_frame = pp->frame_ids->len;
      if (loc->n_lines == 0)
        {
          /* unsymbolized: the address, with the binary it lies in */
          char name[32];
          guint32 id;

          g_snprintf (name, sizeof name, "0x%" G_GINT64_MODIFIER "x", loc->address);
          id = flame_profile_intern_frame (profile, name, strlen (name), file, file_len, 0, 0);
          g_array_append_val (pp->frame_ids, id);
          loc->n_frames = 1;
          continue;
        }

      for (guint k = loc->n_lines; k-- > 0;)
        {
          guint32 id;

          if (!intern_line (pp, profile, loc, k, file, file_len, &id, error))
            return FALSE;
          g_array_append_val (pp->frame_ids, id);
        }
      loc->n_frames = loc->n_lines;
    }
  return TRUE;
}

/* What one unit of a sample type's unit is in Flamediff's units. A
 * "count" is a sample count only for the "samples" type (CPU profiles);
 * alloc_objects, goroutine or contentions count things, not time. */
static FlameUnit
unit_for (Pprof   *pp,
          guint64  type,
          guint64  unit,
          gdouble *factor)
{
  *factor = 1;
  if (string_equals (pp, unit, "nanoseconds"))
    return FLAME_UNIT_NANOSECONDS;
  if (string_equals (pp, unit, "microseconds"))
    return *factor = 1e3, FLAME_UNIT_NANOSECONDS;
  if (string_equals (pp, unit, "milliseconds"))
    return *factor = 1e6, FLAME_UNIT_NANOSECONDS;
  if (string_equals (pp, unit, "seconds"))
    return *factor = 1e9, FLAME_UNIT_NANOSECONDS;
  if (string_equals (pp, unit, "bytes"))
    return FLAME_UNIT_BYTES;
  if (unit == 0 || string_equals (pp, unit, "samples") ||
      (string_equals (pp, unit, "count") && (type == 0 || string_equals (pp, type, "samples"))))
    return FLAME_UNIT_SAMPLES;
  if (string_equals (pp, unit, "count"))
    return FLAME_UNIT_COUNT;
  return FLAME_UNIT_EVENTS;
}

static gdouble
period_ms (Pprof   *pp,
           guint64  unit,
           gint64   period)
{
  gdouble factor;

  if (period <= 0 || unit_for (pp, 0, unit, &factor) != FLAME_UNIT_NANOSECONDS)
    return 0;
  return period * factor / 1e6;
}

gboolean
flame_pprof_sniff (const char *data,
                   gsize       len)
{
  FlamePbReader r;
  FlamePbField f;
  guint n_valid = 0;
  gboolean has_strings = FALSE;

  if (len < 2)
    return FALSE;
  /* Top-level fields that fit the Profile schema. Once the string table
   * was seen (or a few fields fit), later damage is the loader's to
   * report with its offset, rather than "unknown format". */
  flame_pb_reader_init (&r, (const guint8 *) data, (const guint8 *) data, len);
  while (flame_pb_next (&r, &f))
    {
      gboolean is_len = f.number <= PROFILE_STRING_TABLE || f.number == PROFILE_PERIOD_TYPE;
      gboolean fits = f.number <= PROFILE_DOC_URL &&
                      (f.number == PROFILE_COMMENT
                       ? (f.wire_type == FLAME_PB_LEN || f.wire_type == FLAME_PB_VARINT)
                       : f.wire_type == (is_len ? FLAME_PB_LEN : FLAME_PB_VARINT));
      if (!fits)
        return has_strings || n_valid >= 4;
      if (f.number == PROFILE_STRING_TABLE)
        has_strings = TRUE;
      n_valid++;
    }
  if (r.error != NULL)
    return has_strings || n_valid >= 2;
  return n_valid > 0;
}

typedef struct
{
  gint64 pid;
  gint64 tid;
  Span   name;
} SampleThread;

/* Whether sample type @i is the one --sample-type names: "type" or
 * "type/unit", as `go tool pprof -sample_index` takes them. */
static gboolean
sample_type_matches (Pprof      *pp,
                     guint64     type,
                     guint64     unit,
                     const char *wanted)
{
  const char *slash = strchr (wanted, '/');
  gsize type_len = slash ? (gsize) (slash - wanted) : strlen (wanted);
  g_autofree char *t = g_strndup (wanted, type_len);

  return string_equals (pp, type, t) && (slash == NULL || string_equals (pp, unit, slash + 1));
}

/* One load of a profile.proto: where the top-level messages lie, the
 * chosen sample type, and the buffers the samples are read into. */
typedef struct
{
  Pprof         pp;
  FlameProfile *profile;
  GArray       *sample_types;    /* Span */
  GArray       *samples;         /* Span */
  GArray       *mapping_spans;   /* Span */
  GArray       *location_spans;  /* Span */
  GArray       *function_spans;  /* Span */
  Span          period_type;
  gint64        period;
  gint64        duration_nanos;
  guint64       default_sample_type;
  guint64      *st_type;         /* string index of each sample type's type */
  guint64      *st_unit;         /* and of its unit */
  guint         value_index;
  gint          count_index;     /* of samples/count, or -1 */
  gdouble       factor;          /* value unit -> Flamediff unit */
  GArray       *stack;           /* guint32 frame ids, root first */
  GArray       *loc_ids;         /* guint64 */
  GArray       *values;          /* gint64 */
  guint64       work;
  guint64       work_limit;
  gboolean      any_weight;
} Load;

static void
load_init (Load       *ld,
           FlameInput *in)
{
  ld->pp.in = in;
  ld->pp.base = (const guint8 *) in->data;
  ld->pp.strings = g_array_new (FALSE, FALSE, sizeof (Span));
  ld->pp.functions = g_array_new (FALSE, FALSE, sizeof (Function));
  ld->pp.mappings = g_array_new (FALSE, FALSE, sizeof (Mapping));
  ld->pp.locations = g_array_new (FALSE, FALSE, sizeof (Location));
  ld->pp.lines = g_array_new (FALSE, FALSE, sizeof (Line));
  ld->pp.frame_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld->sample_types = g_array_new (FALSE, FALSE, sizeof (Span));
  ld->samples = g_array_new (FALSE, FALSE, sizeof (Span));
  ld->mapping_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  ld->location_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  ld->function_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  ld->stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld->loc_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  ld->values = g_array_new (FALSE, FALSE, sizeof (gint64));
  ld->count_index = -1;
}

static void
load_clear (Load *ld)
{
  g_clear_object (&ld->profile);
  g_array_unref (ld->pp.strings);
  g_array_unref (ld->pp.functions);
  g_array_unref (ld->pp.mappings);
  g_array_unref (ld->pp.locations);
  g_array_unref (ld->pp.lines);
  g_array_unref (ld->pp.frame_ids);
  g_array_unref (ld->sample_types);
  g_array_unref (ld->samples);
  g_array_unref (ld->mapping_spans);
  g_array_unref (ld->location_spans);
  g_array_unref (ld->function_spans);
  g_array_unref (ld->stack);
  g_array_unref (ld->loc_ids);
  g_array_unref (ld->values);
  g_free (ld->st_type);
  g_free (ld->st_unit);
}

static gboolean
add_string (Load                *ld,
            const FlamePbField  *f,
            GError             **error)
{
  Span span = { f->data, f->len };

  if (!g_utf8_validate_len ((const char *) f->data, f->len, NULL))
    {
      set_error (&ld->pp, error, FLAME_ERROR_PARSE, f->offset,
                 "a string in the string table is not valid UTF-8");
      return FALSE;
    }
  if (f->len > FLAME_MAX_NAME_LEN)
    {
      g_autofree char *msg = g_strdup_printf ("a string is longer than %d bytes",
                                              FLAME_MAX_NAME_LEN);
      set_error (&ld->pp, error, FLAME_ERROR_TOO_LARGE, f->offset, msg);
      return FALSE;
    }
  g_array_append_val (ld->pp.strings, span);
  return TRUE;
}

/* Notes where one top-level field of Profile lies, or its value. */
static gboolean
read_profile_field (Load                *ld,
                    const FlamePbField  *f,
                    GError             **error)
{
  Span span = { f->data, f->len };

  switch (f->number)
    {
    case PROFILE_SAMPLE_TYPE: case PROFILE_SAMPLE: case PROFILE_MAPPING:
    case PROFILE_LOCATION: case PROFILE_FUNCTION: case PROFILE_STRING_TABLE:
    case PROFILE_PERIOD_TYPE:
      if (!expect_wire (&ld->pp, f, FLAME_PB_LEN, "Profile field", error))
        return FALSE;
      switch (f->number)
        {
        case PROFILE_SAMPLE_TYPE: g_array_append_val (ld->sample_types, span); break;
        case PROFILE_SAMPLE: g_array_append_val (ld->samples, span); break;
        case PROFILE_MAPPING: g_array_append_val (ld->mapping_spans, span); break;
        case PROFILE_LOCATION: g_array_append_val (ld->location_spans, span); break;
        case PROFILE_FUNCTION: g_array_append_val (ld->function_spans, span); break;
        case PROFILE_STRING_TABLE: return add_string (ld, f, error);
        case PROFILE_PERIOD_TYPE: ld->period_type = span; break;
        default: break;
        }
      break;
    case PROFILE_DROP_FRAMES: case PROFILE_KEEP_FRAMES: case PROFILE_TIME_NANOS:
    case PROFILE_DURATION_NANOS: case PROFILE_PERIOD: case PROFILE_DEFAULT_SAMPLE_TYPE:
    case PROFILE_DOC_URL:
      if (!expect_wire (&ld->pp, f, FLAME_PB_VARINT, "Profile field", error))
        return FALSE;
      if (f->number == PROFILE_DURATION_NANOS)
        ld->duration_nanos = (gint64) f->value;
      else if (f->number == PROFILE_PERIOD)
        ld->period = (gint64) f->value;
      else if (f->number == PROFILE_DEFAULT_SAMPLE_TYPE)
        ld->default_sample_type = f->value;
      break;
    default:
      break;  /* comments and fields from the future */
    }
  return TRUE;
}

/* One pass over the top level: field order is arbitrary. */
static gboolean
read_profile_fields (Load    *ld,
                     GError **error)
{
  FlamePbReader r;
  FlamePbField f;

  flame_pb_reader_init (&r, ld->pp.base, ld->pp.base, ld->pp.in->len);
  while (flame_pb_next (&r, &f))
    {
      if (!flame_input_tick (ld->pp.in, f.offset, error) ||
          !read_profile_field (ld, &f, error))
        return FALSE;
    }
  if (reader_failed (&ld->pp, &r, error))
    return FALSE;

  if (ld->pp.strings->len == 0 || g_array_index (ld->pp.strings, Span, 0).len != 0)
    {
      set_error (&ld->pp, error, FLAME_ERROR_PARSE, 0,
                 "not a pprof profile: the string table must start with an empty string");
      return FALSE;
    }
  return TRUE;
}

/* The sample type --sample-type names, or an error listing those there are. */
static gboolean
find_named_sample_type (Load        *ld,
                        const char  *wanted,
                        GError     **error)
{
  g_autoptr(GString) names = g_string_new (NULL);
  gint found = -1;

  for (guint i = 0; i < ld->sample_types->len; i++)
    {
      g_autofree char *type = dup_string (&ld->pp, ld->st_type[i]);
      g_autofree char *unit_name = dup_string (&ld->pp, ld->st_unit[i]);

      if (found < 0 && sample_type_matches (&ld->pp, ld->st_type[i], ld->st_unit[i], wanted))
        found = i;
      g_string_append_printf (names, "%s%s/%s", i ? ", " : "", type, unit_name);
    }
  if (found < 0)
    {
      flame_input_set_error (ld->pp.in, error, FLAME_ERROR_INVALID, 0,
                             "no sample type “%s” (the file has: %s)",
                             wanted, names->len ? names->str : "none");
      return FALSE;
    }
  ld->value_index = found;
  return TRUE;
}

/* The sample type: the one asked for, else the default one when named,
 * else the last; and the samples/count column, if any. */
static gboolean
choose_sample_type (Load                    *ld,
                    const FlameLoadOptions  *options,
                    GError                 **error)
{
  guint n = ld->sample_types->len;

  ld->st_type = g_new0 (guint64, MAX (n, 1));
  ld->st_unit = g_new0 (guint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    if (!parse_value_type (&ld->pp, &g_array_index (ld->sample_types, Span, i),
                           &ld->st_type[i], &ld->st_unit[i], error))
      return FALSE;
  ld->value_index = n > 0 ? n - 1 : 0;
  if (options != NULL && options->sample_type != NULL)
    {
      if (!find_named_sample_type (ld, options->sample_type, error))
        return FALSE;
    }
  else if (ld->default_sample_type != 0)
    for (guint i = 0; i < n; i++)
      if (ld->st_type[i] == ld->default_sample_type)
        ld->value_index = i;
  for (guint i = 0; i < n; i++)
    if (string_equals (&ld->pp, ld->st_type[i], "samples") &&
        string_equals (&ld->pp, ld->st_unit[i], "count"))
      ld->count_index = i;
  return TRUE;
}

/* Unit, sample type, period and duration of the new profile. */
static gboolean
describe_profile (Load    *ld,
                  GError **error)
{
  FlameProfile *profile = ld->profile;
  guint vi = ld->value_index;

  flame_profile_set_unit (profile, unit_for (&ld->pp, ld->st_type[vi], ld->st_unit[vi],
                                             &ld->factor));
  if (ld->sample_types->len > 0)
    {
      g_autofree char *type = dup_string (&ld->pp, ld->st_type[vi]);
      g_autofree char *unit_name = dup_string (&ld->pp, ld->st_unit[vi]);
      g_autofree char *both = g_strdup_printf ("%s/%s", type, unit_name);
      g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);

      flame_profile_set_metadata (profile, "sample-type", both);
      for (guint i = 0; i < ld->sample_types->len; i++)
        {
          g_autofree char *t = dup_string (&ld->pp, ld->st_type[i]);
          g_autofree char *u = dup_string (&ld->pp, ld->st_unit[i]);

          g_ptr_array_add (all, g_strdup_printf ("%s/%s", t, u));
        }
      g_ptr_array_add (all, NULL);
      flame_profile_set_sample_types (profile, (const char * const *) all->pdata);
    }
  if (ld->period_type.data != NULL)
    {
      guint64 pt_type, pt_unit;
      gdouble ms;

      if (!parse_value_type (&ld->pp, &ld->period_type, &pt_type, &pt_unit, error))
        return FALSE;
      ms = period_ms (&ld->pp, pt_unit, ld->period);
      if (ms > 0)
        flame_profile_set_interval_ms (profile, ms);
      else if (ld->period > 0)
        {
          g_autofree char *unit_name = dup_string (&ld->pp, pt_unit);
          g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT " %s", ld->period,
                                                   unit_name);
          flame_profile_set_metadata (profile, "period", text);
        }
    }
  if (ld->duration_nanos > 0)
    flame_profile_set_duration_ms (profile, ld->duration_nanos / 1e6);
  return TRUE;
}

/* A Sample.label: thread labels as perf_to_profile, async-profiler and
 * others write them. */
static gboolean
read_label (Load                *ld,
            const FlamePbField  *f,
            SampleThread        *thread,
            gboolean            *has_thread,
            GError             **error)
{
  Pprof *pp = &ld->pp;
  FlamePbReader lr;
  FlamePbField lf;
  guint64 key = 0, str = 0, num = 0;

  if (!expect_wire (pp, f, FLAME_PB_LEN, "Sample.label", error))
    return FALSE;
  flame_pb_reader_init (&lr, pp->base, f->data, f->len);
  while (flame_pb_next (&lr, &lf))
    {
      if (lf.number > LABEL_NUM_UNIT)
        continue;
      if (!expect_wire (pp, &lf, FLAME_PB_VARINT, "Label field", error))
        return FALSE;
      if (lf.number == LABEL_KEY)
        key = lf.value;
      else if (lf.number == LABEL_STR)
        str = lf.value;
      else if (lf.number == LABEL_NUM)
        num = lf.value;
    }
  if (reader_failed (pp, &lr, error))
    return FALSE;
  if (string_equals (pp, key, "pid"))
    thread->pid = (gint64) num, *has_thread = TRUE;
  else if (string_equals (pp, key, "tid") || string_equals (pp, key, "thread_id"))
    thread->tid = (gint64) num, *has_thread = TRUE;
  else if ((string_equals (pp, key, "thread") || string_equals (pp, key, "thread_name") ||
            string_equals (pp, key, "comm")) && str != 0 && str < pp->strings->len)
    thread->name = g_array_index (pp->strings, Span, str), *has_thread = TRUE;
  return TRUE;
}

/* Reads a Sample's location ids and values into ld->loc_ids and
 * ld->values, and its thread labels. */
static gboolean
read_sample_fields (Load          *ld,
                    const Span    *span,
                    SampleThread  *thread,
                    gboolean      *has_thread,
                    GError       **error)
{
  FlamePbReader r;
  FlamePbField f;

  g_array_set_size (ld->loc_ids, 0);
  g_array_set_size (ld->values, 0);
  flame_pb_reader_init (&r, ld->pp.base, span->data, span->len);
  while (flame_pb_next (&r, &f))
    {
      if (f.number == SAMPLE_LOCATION_ID || f.number == SAMPLE_VALUE)
        {
          FlamePbVarints it;
          guint64 v;

          flame_pb_varints_init (&it, &f);
          while (flame_pb_varints_next (&it, &v))
            g_array_append_val (f.number == SAMPLE_LOCATION_ID ? ld->loc_ids : ld->values, v);
          if (it.failed)
            {
              set_error (&ld->pp, error, FLAME_ERROR_PARSE, f.offset,
                         f.number == SAMPLE_LOCATION_ID ? "malformed Sample.location_id"
                                                        : "malformed Sample.value");
              return FALSE;
            }
        }
      else if (f.number == SAMPLE_LABEL)
        {
          if (!read_label (ld, &f, thread, has_thread, error))
            return FALSE;
        }
    }
  return !reader_failed (&ld->pp, &r, error);
}

/* Fills ld->stack from ld->loc_ids, root first: the last location is the
 * outermost caller. Counts the frames against the work budget. */
static gboolean
expand_stack (Load    *ld,
              gsize    offset,
              GError **error)
{
  g_array_set_size (ld->stack, 0);
  for (guint k = ld->loc_ids->len; k-- > 0;)
    {
      guint64 id = g_array_index (ld->loc_ids, guint64, k);
      const Location *loc = find_by_id (ld->pp.locations, sizeof (Location), id);

      if (loc == NULL)
        {
          g_autofree char *msg =
            g_strdup_printf ("a sample names location %" G_GUINT64_FORMAT
                             ", which is not in the location table", id);
          set_error (&ld->pp, error, FLAME_ERROR_PARSE, offset, msg);
          return FALSE;
        }
      ld->work += loc->n_frames;
      if (ld->stack->len + loc->n_frames > FLAME_MAX_DEPTH)
        {
          g_autofree char *msg = g_strdup_printf ("a stack is deeper than %d frames",
                                                  FLAME_MAX_DEPTH);
          set_error (&ld->pp, error, FLAME_ERROR_TOO_LARGE, offset, msg);
          return FALSE;
        }
      g_array_append_vals (ld->stack, &g_array_index (ld->pp.frame_ids, guint32, loc->first_frame),
                           loc->n_frames);
    }
  if (ld->work > ld->work_limit)
    {
      set_error (&ld->pp, error, FLAME_ERROR_TOO_LARGE, offset,
                 "the samples expand to far more frames than the file's size allows "
                 "(locations repeated excessively)");
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_sample (Load        *ld,
             const Span  *span,
             GError     **error)
{
  gsize offset = span->data - ld->pp.base;
  SampleThread thread = { -1, -1, { NULL, 0 } };
  gboolean has_thread = FALSE;
  GArray *values = ld->values;
  gint64 value;
  gdouble n_samples;

  if (!flame_input_tick (ld->pp.in, offset, error) ||
      !read_sample_fields (ld, span, &thread, &has_thread, error))
    return FALSE;
  if (values->len == 0)
    return TRUE;
  if (ld->sample_types->len > 0 && values->len != ld->sample_types->len)
    {
      g_autofree char *msg =
        g_strdup_printf ("a sample has %u values for %u sample types",
                         values->len, ld->sample_types->len);
      set_error (&ld->pp, error, FLAME_ERROR_PARSE, offset, msg);
      return FALSE;
    }
  value = g_array_index (values, gint64, MIN (ld->value_index, values->len - 1));
  if (value < 0 || (ld->count_index >= 0 && g_array_index (values, gint64, ld->count_index) < 0))
    {
      set_error (&ld->pp, error, FLAME_ERROR_UNSUPPORTED, offset,
                 "a sample has a negative value: this is a difference made with "
                 "pprof -diff_base; load the base and the new profile separately "
                 "and compare them instead");
      return FALSE;
    }
  n_samples = ld->count_index >= 0 ? (gdouble) g_array_index (values, gint64, ld->count_index) : 1;

  if (!expand_stack (ld, offset, error))
    return FALSE;
  if (value == 0)
    return TRUE;
  flame_profile_add_stack (ld->profile, 0, (const guint32 *) ld->stack->data, ld->stack->len,
                           (gdouble) value * ld->factor);
  ld->any_weight = TRUE;
  flame_profile_add_samples (ld->profile, 0, n_samples);
  if (has_thread)
    {
      g_autofree char *name = g_strndup ((const char *) thread.name.data, thread.name.len);
      FlameThread *t = flame_profile_ensure_thread (ld->profile, name, thread.pid, thread.tid);
      t->samples += n_samples;
    }
  return TRUE;
}

static gboolean
load_profile (Load                    *ld,
              const FlameLoadOptions  *options,
              GError                 **error)
{
  FlameInput *in = ld->pp.in;

  if (!read_profile_fields (ld, error))
    return FALSE;
  ld->profile = flame_profile_new (FLAME_FORMAT_PPROF, 1);
  flame_profile_set_path (ld->profile, in->name);
  if (!choose_sample_type (ld, options, error) ||
      !describe_profile (ld, error) ||
      !parse_functions (&ld->pp, ld->function_spans, error) ||
      !parse_mappings (&ld->pp, ld->mapping_spans, error) ||
      !parse_locations (&ld->pp, ld->location_spans, error) ||
      !intern_location_frames (&ld->pp, ld->profile, error))
    return FALSE;

  ld->work_limit = WORK_BASE + (guint64) in->len * WORK_PER_BYTE;
  for (guint s = 0; s < ld->samples->len; s++)
    if (!read_sample (ld, &g_array_index (ld->samples, Span, s), error))
      return FALSE;

  if (!ld->any_weight)
    {
      /* as for folded stacks: nothing to show or compare */
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no samples in the file");
      return FALSE;
    }
  return TRUE;
}

FlameProfile *
flame_pprof_load (FlameInput              *in,
                  const FlameLoadOptions  *options,
                  GError                 **error)
{
  Load ld = { 0 };
  FlameProfile *profile = NULL;

  load_init (&ld, in);
  if (load_profile (&ld, options, error))
    {
      flame_profile_finish (ld.profile);
      profile = g_steal_pointer (&ld.profile);
    }
  load_clear (&ld);
  return profile;
}


/* ---- legacy binary CPU profiles ---------------------------------------
 *
 * gperftools' CPU profiler and Go before 1.9 wrote a sequence of machine
 * words (32 or 64 bit, either byte order): a header {0, 3, 0 (C++/Go) or
 * 1 (Java), period in µs, 0}, then samples {count, depth, depth × pc}
 * leaf first, an end marker {0, 1, 0}, and then text: /proc/self/maps for
 * C++/Go, or "0xADDR name (file:line)" symbol lines for Java. This
 * follows pprof's profile/legacy_profile.go, including its clean-ups, so
 * stacks match what `pprof -raw` shows.
 */

typedef struct
{
  guint  word;       /* 4 or 8 */
  gboolean big;
  gboolean java;
  guint64  period;   /* µs */
} LegacyHeader;

static guint64
legacy_word (const guint8 *p,
             const LegacyHeader *h)
{
  guint64 v = 0;

  if (h->big)
    for (guint i = 0; i < h->word; i++)
      v = (v << 8) | p[i];
  else
    for (guint i = h->word; i-- > 0;)
      v = (v << 8) | p[i];
  return v;
}

static gboolean
legacy_header (const char   *data,
               gsize         len,
               LegacyHeader *h)
{
  static const struct { guint word; gboolean big; } kinds[] = {
    { 4, FALSE }, { 4, TRUE }, { 8, FALSE }, { 8, TRUE },
  };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      const guint8 *p = (const guint8 *) data;
      guint64 w[5];

      h->word = kinds[k].word;
      h->big = kinds[k].big;
      if (len < 5 * h->word)
        continue;
      for (guint i = 0; i < 5; i++)
        w[i] = legacy_word (p + i * h->word, h);
      if (w[0] == 0 && w[1] == 3 && w[2] <= 1 && w[3] > 0 && w[4] == 0)
        {
          h->java = w[2] == 1;
          h->period = w[3];
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
flame_pprof_legacy_sniff (const char *data,
                          gsize       len)
{
  LegacyHeader h;
  return legacy_header (data, len, &h);
}

typedef struct
{
  guint64 count;
  guint   first;  /* into the address array, leaf first */
  guint   depth;
  gsize   offset;
} LegacySample;

typedef struct
{
  guint64 start;
  guint64 limit;
  guint64 offset;
  char   *file;
} LegacyMapping;

static void
legacy_mapping_clear (gpointer data)
{
  g_free (((LegacyMapping *) data)->file);
}

/* One line of /proc/self/maps: "start-limit perms offset dev inode [path]". */
static gboolean
parse_maps_line (const char    *line,
                 LegacyMapping *m)
{
  char *end;
  const char *p = line;
  guint64 start, limit, off;

  while (*p == ' ' || *p == '\t')
    p++;
  start = g_ascii_strtoull (p, &end, 16);
  if (end == p || *end != '-')
    return FALSE;
  p = end + 1;
  limit = g_ascii_strtoull (p, &end, 16);
  if (end == p || (*end != ' ' && *end != '\t'))
    return FALSE;
  p = end;
  while (*p == ' ' || *p == '\t')
    p++;
  if (strspn (p, "-rwxps") < 4)
    return FALSE;
  p += strspn (p, "-rwxps");
  while (*p == ' ' || *p == '\t')
    p++;
  off = g_ascii_strtoull (p, &end, 16);
  if (end == p)
    return FALSE;
  p = end;
  /* device and inode */
  for (guint i = 0; i < 2; i++)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == 0)
        return FALSE;
      p += strcspn (p, " \t");
    }
  while (*p == ' ' || *p == '\t')
    p++;
  m->start = start;
  m->limit = limit;
  m->offset = off;
  m->file = g_strndup (p, strcspn (p, " \t"));
  return TRUE;
}

/* One load of a legacy profile. */
typedef struct
{
  FlameInput   *in;
  const guint8 *data;
  LegacyHeader  h;
  GArray       *samples;     /* LegacySample */
  GArray       *addrs;       /* guint64, each sample's leaf first */
  GArray       *maps;        /* LegacyMapping */
  GHashTable   *java_names;  /* address -> symbol line, Java only */
  GHashTable   *frame_of;    /* address -> frame id + 1 */
  GArray       *stack;       /* guint32 */
  FlameProfile *profile;
  gsize         pos;         /* where the text after the samples starts */
  gboolean      ended;       /* the end marker was seen */
} LegacyLoad;

static void
legacy_load_clear (LegacyLoad *ld)
{
  g_clear_object (&ld->profile);
  g_clear_pointer (&ld->samples, g_array_unref);
  g_clear_pointer (&ld->addrs, g_array_unref);
  g_clear_pointer (&ld->maps, g_array_unref);
  g_clear_pointer (&ld->java_names, g_hash_table_unref);
  g_clear_pointer (&ld->frame_of, g_hash_table_unref);
  g_clear_pointer (&ld->stack, g_array_unref);
}

/* Reads the sample at ld->pos: {count, depth, depth × pc}, or the end
 * marker (then sets ld->ended). */
static gboolean
read_legacy_sample (LegacyLoad  *ld,
                    GError     **error)
{
  const LegacyHeader *h = &ld->h;
  FlameInput *in = ld->in;
  gsize pos = ld->pos;
  LegacySample s;
  guint64 depth;

  if (!flame_input_tick (in, pos, error))
    return FALSE;
  s.offset = pos;
  if (in->len - pos < 2 * (gsize) h->word)
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                             "byte %" G_GSIZE_FORMAT ": truncated sample", pos);
      return FALSE;
    }
  s.count = legacy_word (ld->data + pos, h);
  depth = legacy_word (ld->data + pos + h->word, h);
  pos += 2 * h->word;
  if (depth > (in->len - pos) / h->word)
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                             "byte %" G_GSIZE_FORMAT ": a sample declares %" G_GUINT64_FORMAT
                             " frames, more than the rest of the file holds",
                             s.offset, depth);
      return FALSE;
    }
  if (depth > FLAME_MAX_DEPTH)
    {
      flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, 0,
                             "byte %" G_GSIZE_FORMAT ": a stack is deeper than %d frames",
                             s.offset, FLAME_MAX_DEPTH);
      return FALSE;
    }
  if (s.count == 0 && depth == 1 && legacy_word (ld->data + pos, h) == 0)
    {
      ld->pos = pos + h->word;
      ld->ended = TRUE;
      return TRUE;
    }
  s.first = ld->addrs->len;
  s.depth = (guint) depth;
  for (guint i = 0; i < depth; i++)
    {
      guint64 a = legacy_word (ld->data + pos + (gsize) i * h->word, h);
      /* return addresses point after the call; the leaf is exact */
      if (!h->java && i > 0)
        a--;
      g_array_append_val (ld->addrs, a);
    }
  ld->pos = pos + depth * h->word;
  g_array_append_val (ld->samples, s);
  return TRUE;
}

/* Removes the second frame of every sample whose second frame is @found or,
 * with @only_if_caller_of_leaf, whose leaf is that frame's address + 1. */
static void
drop_second_frames (LegacyLoad *ld,
                    gboolean    only_if_caller_of_leaf,
                    guint64     found)
{
  for (guint i = 0; i < ld->samples->len; i++)
    {
      LegacySample *s = &g_array_index (ld->samples, LegacySample, i);
      guint64 *a;

      /* addrs->data is NULL while no sample has an address */
      if (s->depth <= 1)
        continue;
      a = &g_array_index (ld->addrs, guint64, s->first);
      if (only_if_caller_of_leaf ? a[0] == a[1] + 1 : a[1] == found)
        {
          memmove (a + 1, a + 2, (s->depth - 2) * sizeof (guint64));
          s->depth--;
        }
    }
}

/* A second frame that (nearly) every sample shares, if there is one. */
static gboolean
find_common_second_frame (LegacyLoad *ld,
                          guint64    *found)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  guint margin = ld->samples->len / 32;
  GHashTableIter hi;
  gpointer k, v;

  for (guint i = 0; i < ld->samples->len; i++)
    {
      LegacySample *s = &g_array_index (ld->samples, LegacySample, i);
      if (s->depth > 1)
        {
          guint64 a = g_array_index (ld->addrs, guint64, s->first + 1);
          gpointer old = g_hash_table_lookup (counts, &a);
          if (old == NULL)
            g_hash_table_insert (counts, g_memdup2 (&a, sizeof a), GUINT_TO_POINTER (1));
          else
            g_hash_table_insert (counts, g_memdup2 (&a, sizeof a),
                                 GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
        }
    }
  g_hash_table_iter_init (&hi, counts);
  while (g_hash_table_iter_next (&hi, &k, &v))
    if (GPOINTER_TO_UINT (v) + margin >= ld->samples->len)
      {
        *found = *(guint64 *) k;
        return TRUE;
      }
  return FALSE;
}

/* pprof's clean-ups: a second frame shared by (nearly) every sample was
 * pushed by the signal handler (up to two such frames), and a leaf
 * repeated as its own caller (adjusted by one) is dropped. */
static void
clean_up_legacy_stacks (LegacyLoad *ld)
{
  for (guint iter = 0; iter < 2; iter++)
    {
      guint64 found;

      if (find_common_second_frame (ld, &found))
        drop_second_frames (ld, FALSE, found);
    }
  drop_second_frames (ld, TRUE, 0);
}

/* "0xADDR name (file:line)" */
static void
add_java_symbol (LegacyLoad *ld,
                 const char *line)
{
  const char *p = line;
  char *end;
  guint64 addr;

  while (*p == ' ' || *p == '\t')
    p++;
  if (p[0] != '0' || p[1] != 'x')
    return;
  addr = g_ascii_strtoull (p + 2, &end, 16);
  if (end == p + 2)
    return;
  while (*end == ' ' || *end == '\t')
    end++;
  g_hash_table_insert (ld->java_names, g_memdup2 (&addr, sizeof addr),
                       g_strchomp (g_strdup (end)));
}

/* The text after the samples: memory map or Java symbols. */
static void
read_legacy_text (LegacyLoad *ld)
{
  gsize text_len = MIN (ld->in->len - ld->pos, (gsize) 64 << 20);
  g_autofree char *text = g_strndup ((const char *) ld->data + ld->pos, text_len);
  g_auto(GStrv) text_lines = g_strsplit (text, "\n", -1);

  if (ld->h.java)
    ld->java_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  for (guint i = 0; text_lines[i] != NULL; i++)
    {
      LegacyMapping m = { 0 };

      if (ld->h.java)
        add_java_symbol (ld, text_lines[i]);
      /* every address is looked up in every mapping: a real process
       * has a few hundred */
      else if (ld->maps->len < 4096 && parse_maps_line (text_lines[i], &m))
        g_array_append_val (ld->maps, m);
    }
}

/* Interns the frame of address @a: its Java symbol, or the address and
 * the binary mapped there. */
static guint32
intern_legacy_frame (LegacyLoad *ld,
                     guint64     a)
{
  const char *name = NULL;
  const char *file = NULL;
  guint32 line = 0;
  g_autofree char *owned = NULL;
  g_autofree char *file_owned = NULL;

  if (ld->java_names != NULL)
    name = g_hash_table_lookup (ld->java_names, &a);
  if (name != NULL)
    {
      /* "com.example.f (source.java:12)" */
      const char *paren = strchr (name, '(');
      if (paren != NULL && paren > name)
        {
          const char *colon = strrchr (paren, ':');
          owned = g_strchomp (g_strndup (name, paren - name));
          if (colon != NULL)
            {
              file_owned = g_strndup (paren + 1, colon - paren - 1);
              line = (guint32) g_ascii_strtoull (colon + 1, NULL, 10);
            }
          name = owned;
        }
    }
  else
    {
      owned = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", a);
      name = owned;
      for (guint m = 0; m < ld->maps->len; m++)
        {
          LegacyMapping *lm = &g_array_index (ld->maps, LegacyMapping, m);
          if (lm->start <= a && a < lm->limit)
            {
              file = lm->file;
              break;
            }
        }
    }
  if (file_owned != NULL)
    file = file_owned;
  return flame_profile_intern_frame (ld->profile, name, strlen (name),
                                     file, file ? strlen (file) : 0, line, 0);
}

/* Adds the samples to the profile, root first; whether any had weight. */
static gboolean
add_legacy_samples (LegacyLoad *ld)
{
  gboolean any_weight = FALSE;

  for (guint i = 0; i < ld->samples->len; i++)
    {
      LegacySample *s = &g_array_index (ld->samples, LegacySample, i);

      g_array_set_size (ld->stack, 0);
      for (guint d = s->depth; d-- > 0;)
        {
          guint64 a = g_array_index (ld->addrs, guint64, s->first + d);
          gpointer fid = g_hash_table_lookup (ld->frame_of, &a);
          guint32 id;

          if (fid != NULL)
            id = GPOINTER_TO_UINT (fid) - 1;
          else
            {
              id = intern_legacy_frame (ld, a);
              g_hash_table_insert (ld->frame_of, g_memdup2 (&a, sizeof a),
                                   GUINT_TO_POINTER (id + 1));
            }
          g_array_append_val (ld->stack, id);
        }
      if (s->count > 0)
        {
          flame_profile_add_stack (ld->profile, 0, (const guint32 *) ld->stack->data,
                                   ld->stack->len, (gdouble) s->count * ld->h.period * 1000.0);
          any_weight = TRUE;
          flame_profile_add_samples (ld->profile, 0, (gdouble) s->count);
        }
    }
  return any_weight;
}

static gboolean
load_legacy (LegacyLoad  *ld,
             GError     **error)
{
  FlameInput *in = ld->in;

  if (!legacy_header (in->data, in->len, &ld->h))
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                             "byte 0: not a legacy pprof CPU profile header");
      return FALSE;
    }
  ld->pos = 5 * ld->h.word;
  while (!ld->ended && ld->pos < in->len)
    if (!read_legacy_sample (ld, error))
      return FALSE;
  if (!ld->h.java)
    clean_up_legacy_stacks (ld);
  if (ld->ended && ld->pos < in->len)
    read_legacy_text (ld);

  ld->profile = flame_profile_new (FLAME_FORMAT_PPROF_LEGACY, 1);
  flame_profile_set_path (ld->profile, in->name);
  flame_profile_set_unit (ld->profile, FLAME_UNIT_NANOSECONDS);
  flame_profile_set_interval_ms (ld->profile, ld->h.period / 1000.0);
  flame_profile_set_metadata (ld->profile, "sample-type", "cpu/nanoseconds");
  if (!ld->ended)
    flame_profile_add_warning (ld->profile, "%s: the samples end without the end marker; "
                               "the file may be truncated", in->name);
  if (!add_legacy_samples (ld))
    {
      /* as for folded stacks: nothing to show or compare */
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no samples in the file");
      return FALSE;
    }
  return TRUE;
}

FlameProfile *
flame_pprof_legacy_load (FlameInput  *in,
                         GError     **error)
{
  LegacyLoad ld = { 0 };
  FlameProfile *profile = NULL;

  ld.in = in;
  ld.data = (const guint8 *) in->data;
  ld.samples = g_array_new (FALSE, FALSE, sizeof (LegacySample));
  ld.addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  ld.maps = g_array_new (FALSE, TRUE, sizeof (LegacyMapping));
  g_array_set_clear_func (ld.maps, legacy_mapping_clear);
  ld.frame_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  ld.stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (load_legacy (&ld, error))
    {
      flame_profile_finish (ld.profile);
      profile = g_steal_pointer (&ld.profile);
    }
  legacy_load_clear (&ld);
  return profile;
}

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
  flame_input_set_error (pp->in, error, code, 0, "byte %" G_GSIZE_FORMAT ": %s",
                         offset, reason);
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
      if (f.number == 1 || f.number == 2)
        {
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "ValueType field", error))
            return FALSE;
          if (f.number == 1)
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
          if (f.number > 5)
            continue;
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "Function field", error))
            return FALSE;
          switch (f.number)
            {
            case 1: fn.id = f.value; break;
            case 2: fn.name = f.value; break;
            case 3: fn.system_name = f.value; break;
            case 4: fn.filename = f.value; break;
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
          if (f.number > 10)
            continue;
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "Mapping field", error))
            return FALSE;
          if (f.number == 1)
            m.id = f.value;
          else if (f.number == 5)
            m.filename = f.value;
        }
      if (reader_failed (pp, &r, error))
        return FALSE;
      g_array_append_val (pp->mappings, m);
    }
  g_array_sort (pp->mappings, compare_ids);
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
          if (f.number == 4)
            {
              FlamePbReader lr;
              FlamePbField lf;
              Line line = { 0 };

              if (!expect_wire (pp, &f, FLAME_PB_LEN, "Location.line", error))
                return FALSE;
              flame_pb_reader_init (&lr, pp->base, f.data, f.len);
              while (flame_pb_next (&lr, &lf))
                {
                  if (lf.number > 3)
                    continue;
                  if (!expect_wire (pp, &lf, FLAME_PB_VARINT, "Line field", error))
                    return FALSE;
                  if (lf.number == 1)
                    line.function_id = lf.value;
                  else if (lf.number == 2)
                    line.line = (gint64) lf.value;
                }
              if (reader_failed (pp, &lr, error))
                return FALSE;
              g_array_append_val (pp->lines, line);
              loc.n_lines++;
              continue;
            }
          if (f.number > 5)
            continue;
          if (!expect_wire (pp, &f, FLAME_PB_VARINT, "Location field", error))
            return FALSE;
          if (f.number == 1)
            loc.id = f.value;
          else if (f.number == 2)
            loc.mapping_id = f.value;
          else if (f.number == 3)
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
          const Line *line = &g_array_index (pp->lines, Line, loc->first_line + k);
          const Function *fn = find_by_id (pp->functions, sizeof (Function), line->function_id);
          const char *name, *fn_file;
          gsize name_len, fn_file_len;
          guint32 flags = k + 1 < loc->n_lines ? FLAME_FRAME_INLINED : 0;
          guint32 lineno = line->line > 0 && line->line <= G_MAXUINT32 ? (guint32) line->line : 0;
          guint32 id;

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
              id = flame_profile_intern_frame (profile, addr, strlen (addr), file, file_len, 0, flags);
            }
          else
            id = flame_profile_intern_frame (profile, name, name_len,
                                             fn_file_len ? fn_file : file,
                                             fn_file_len ? fn_file_len : file_len,
                                             lineno, flags);
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
      gboolean is_len = f.number <= 6 || f.number == 11;
      gboolean fits = f.number <= 15 &&
                      (f.number == 13 ? (f.wire_type == FLAME_PB_LEN || f.wire_type == FLAME_PB_VARINT)
                                      : f.wire_type == (is_len ? FLAME_PB_LEN : FLAME_PB_VARINT));
      if (!fits)
        return has_strings || n_valid >= 4;
      if (f.number == 6)
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

FlameProfile *
flame_pprof_load (FlameInput              *in,
                  const FlameLoadOptions  *options,
                  GError                 **error)
{
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GArray) sample_types = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) mapping_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) location_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) function_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) strings = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) functions = g_array_new (FALSE, FALSE, sizeof (Function));
  g_autoptr(GArray) mappings = g_array_new (FALSE, FALSE, sizeof (Mapping));
  g_autoptr(GArray) locations = g_array_new (FALSE, FALSE, sizeof (Location));
  g_autoptr(GArray) lines = g_array_new (FALSE, FALSE, sizeof (Line));
  g_autoptr(GArray) frame_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) loc_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint64 *st_type = NULL;
  g_autofree guint64 *st_unit = NULL;
  Pprof pp = { 0 };
  FlamePbReader r;
  FlamePbField f;
  Span period_type = { NULL, 0 };
  gint64 period = 0;
  gint64 duration_nanos = 0;
  guint64 default_sample_type = 0;
  guint value_index;
  gint count_index = -1;
  FlameUnit unit;
  gdouble factor;
  guint64 work = 0;
  guint64 work_limit;
  gboolean any_weight = FALSE;

  pp.in = in;
  pp.base = (const guint8 *) in->data;
  pp.strings = strings;
  pp.functions = functions;
  pp.mappings = mappings;
  pp.locations = locations;
  pp.lines = lines;
  pp.frame_ids = frame_ids;

  flame_pb_reader_init (&r, pp.base, pp.base, in->len);
  while (flame_pb_next (&r, &f))
    {
      Span span = { f.data, f.len };

      if (!flame_input_tick (in, f.offset, error))
        return NULL;
      switch (f.number)
        {
        case 1: case 2: case 3: case 4: case 5: case 6: case 11:
          if (!expect_wire (&pp, &f, FLAME_PB_LEN, "Profile field", error))
            return NULL;
          switch (f.number)
            {
            case 1: g_array_append_val (sample_types, span); break;
            case 2: g_array_append_val (samples, span); break;
            case 3: g_array_append_val (mapping_spans, span); break;
            case 4: g_array_append_val (location_spans, span); break;
            case 5: g_array_append_val (function_spans, span); break;
            case 6:
              if (!g_utf8_validate_len ((const char *) f.data, f.len, NULL))
                {
                  set_error (&pp, error, FLAME_ERROR_PARSE, f.offset,
                             "a string in the string table is not valid UTF-8");
                  return NULL;
                }
              if (f.len > FLAME_MAX_NAME_LEN)
                {
                  g_autofree char *msg = g_strdup_printf ("a string is longer than %d bytes",
                                                          FLAME_MAX_NAME_LEN);
                  set_error (&pp, error, FLAME_ERROR_TOO_LARGE, f.offset, msg);
                  return NULL;
                }
              g_array_append_val (strings, span);
              break;
            case 11: period_type = span; break;
            default: break;
            }
          break;
        case 7: case 8: case 9: case 10: case 12: case 14: case 15:
          if (!expect_wire (&pp, &f, FLAME_PB_VARINT, "Profile field", error))
            return NULL;
          if (f.number == 10)
            duration_nanos = (gint64) f.value;
          else if (f.number == 12)
            period = (gint64) f.value;
          else if (f.number == 14)
            default_sample_type = f.value;
          break;
        default:
          break;  /* comments (13) and fields from the future */
        }
    }
  if (reader_failed (&pp, &r, error))
    return NULL;

  if (strings->len == 0 || g_array_index (strings, Span, 0).len != 0)
    {
      set_error (&pp, error, FLAME_ERROR_PARSE, 0,
                 "not a pprof profile: the string table must start with an empty string");
      return NULL;
    }

  profile = flame_profile_new (FLAME_FORMAT_PPROF, 1);
  flame_profile_set_path (profile, in->name);

  /* the sample type: the default one when named, else the last */
  st_type = g_new0 (guint64, MAX (sample_types->len, 1));
  st_unit = g_new0 (guint64, MAX (sample_types->len, 1));
  for (guint i = 0; i < sample_types->len; i++)
    if (!parse_value_type (&pp, &g_array_index (sample_types, Span, i), &st_type[i], &st_unit[i], error))
      return NULL;
  value_index = sample_types->len > 0 ? sample_types->len - 1 : 0;
  if (options != NULL && options->sample_type != NULL)
    {
      GString *names = g_string_new (NULL);
      gint found = -1;

      for (guint i = 0; i < sample_types->len; i++)
        {
          g_autofree char *type = dup_string (&pp, st_type[i]);
          g_autofree char *unit_name = dup_string (&pp, st_unit[i]);

          if (found < 0 && sample_type_matches (&pp, st_type[i], st_unit[i], options->sample_type))
            found = i;
          g_string_append_printf (names, "%s%s/%s", i ? ", " : "", type, unit_name);
        }
      if (found < 0)
        {
          flame_input_set_error (in, error, FLAME_ERROR_INVALID, 0,
                                 "no sample type “%s” (the file has: %s)",
                                 options->sample_type, names->len ? names->str : "none");
          g_string_free (names, TRUE);
          return NULL;
        }
      g_string_free (names, TRUE);
      value_index = found;
    }
  else if (default_sample_type != 0)
    for (guint i = 0; i < sample_types->len; i++)
      if (st_type[i] == default_sample_type)
        value_index = i;
  for (guint i = 0; i < sample_types->len; i++)
    if (string_equals (&pp, st_type[i], "samples") && string_equals (&pp, st_unit[i], "count"))
      count_index = i;
  unit = unit_for (&pp, st_type[value_index], st_unit[value_index], &factor);
  flame_profile_set_unit (profile, unit);
  if (sample_types->len > 0)
    {
      g_autofree char *type = dup_string (&pp, st_type[value_index]);
      g_autofree char *unit_name = dup_string (&pp, st_unit[value_index]);
      g_autofree char *both = g_strdup_printf ("%s/%s", type, unit_name);
      flame_profile_set_metadata (profile, "sample-type", both);
    }
  if (period_type.data != NULL)
    {
      guint64 pt_type, pt_unit;
      gdouble ms;

      if (!parse_value_type (&pp, &period_type, &pt_type, &pt_unit, error))
        return NULL;
      ms = period_ms (&pp, pt_unit, period);
      if (ms > 0)
        flame_profile_set_interval_ms (profile, ms);
      else if (period > 0)
        {
          g_autofree char *unit_name = dup_string (&pp, pt_unit);
          g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT " %s", period, unit_name);
          flame_profile_set_metadata (profile, "period", text);
        }
    }
  if (duration_nanos > 0)
    flame_profile_set_duration_ms (profile, duration_nanos / 1e6);

  if (!parse_functions (&pp, function_spans, error) ||
      !parse_mappings (&pp, mapping_spans, error) ||
      !parse_locations (&pp, location_spans, error) ||
      !intern_location_frames (&pp, profile, error))
    return NULL;

  work_limit = WORK_BASE + (guint64) in->len * WORK_PER_BYTE;
  for (guint s = 0; s < samples->len; s++)
    {
      const Span *span = &g_array_index (samples, Span, s);
      gsize offset = span->data - pp.base;
      SampleThread thread = { -1, -1, { NULL, 0 } };
      gboolean has_thread = FALSE;
      gint64 value;
      gdouble n_samples;

      if (!flame_input_tick (in, offset, error))
        return NULL;
      g_array_set_size (loc_ids, 0);
      g_array_set_size (values, 0);
      flame_pb_reader_init (&r, pp.base, span->data, span->len);
      while (flame_pb_next (&r, &f))
        {
          if (f.number == 1 || f.number == 2)
            {
              FlamePbVarints it;
              guint64 v;

              flame_pb_varints_init (&it, &f);
              while (flame_pb_varints_next (&it, &v))
                {
                  if (f.number == 1)
                    g_array_append_val (loc_ids, v);
                  else
                    g_array_append_val (values, v);
                }
              if (it.failed)
                {
                  set_error (&pp, error, FLAME_ERROR_PARSE, f.offset,
                             f.number == 1 ? "malformed Sample.location_id"
                                           : "malformed Sample.value");
                  return NULL;
                }
            }
          else if (f.number == 3)
            {
              FlamePbReader lr;
              FlamePbField lf;
              guint64 key = 0, str = 0, num = 0;

              if (!expect_wire (&pp, &f, FLAME_PB_LEN, "Sample.label", error))
                return NULL;
              flame_pb_reader_init (&lr, pp.base, f.data, f.len);
              while (flame_pb_next (&lr, &lf))
                {
                  if (lf.number > 4)
                    continue;
                  if (!expect_wire (&pp, &lf, FLAME_PB_VARINT, "Label field", error))
                    return NULL;
                  if (lf.number == 1)
                    key = lf.value;
                  else if (lf.number == 2)
                    str = lf.value;
                  else if (lf.number == 3)
                    num = lf.value;
                }
              if (reader_failed (&pp, &lr, error))
                return NULL;
              /* thread labels as perf_to_profile, async-profiler and
               * others write them */
              if (string_equals (&pp, key, "pid"))
                thread.pid = (gint64) num, has_thread = TRUE;
              else if (string_equals (&pp, key, "tid") || string_equals (&pp, key, "thread_id"))
                thread.tid = (gint64) num, has_thread = TRUE;
              else if ((string_equals (&pp, key, "thread") || string_equals (&pp, key, "thread_name") ||
                        string_equals (&pp, key, "comm")) && str != 0 && str < strings->len)
                thread.name = g_array_index (strings, Span, str), has_thread = TRUE;
            }
        }
      if (reader_failed (&pp, &r, error))
        return NULL;

      if (values->len == 0)
        continue;
      if (sample_types->len > 0 && values->len != sample_types->len)
        {
          g_autofree char *msg =
            g_strdup_printf ("a sample has %u values for %u sample types",
                             values->len, sample_types->len);
          set_error (&pp, error, FLAME_ERROR_PARSE, offset, msg);
          return NULL;
        }
      value = g_array_index (values, gint64, MIN (value_index, values->len - 1));
      if (value < 0 || (count_index >= 0 && g_array_index (values, gint64, count_index) < 0))
        {
          set_error (&pp, error, FLAME_ERROR_UNSUPPORTED, offset,
                     "a sample has a negative value: this is a difference made with "
                     "pprof -diff_base; load the base and the new profile separately "
                     "and compare them instead");
          return NULL;
        }
      n_samples = count_index >= 0 ? (gdouble) g_array_index (values, gint64, count_index) : 1;

      /* root first: the last location is the outermost caller */
      g_array_set_size (stack, 0);
      for (guint k = loc_ids->len; k-- > 0;)
        {
          guint64 id = g_array_index (loc_ids, guint64, k);
          const Location *loc = find_by_id (locations, sizeof (Location), id);

          if (loc == NULL)
            {
              g_autofree char *msg =
                g_strdup_printf ("a sample names location %" G_GUINT64_FORMAT
                                 ", which is not in the location table", id);
              set_error (&pp, error, FLAME_ERROR_PARSE, offset, msg);
              return NULL;
            }
          work += loc->n_frames;
          if (stack->len + loc->n_frames > FLAME_MAX_DEPTH)
            {
              g_autofree char *msg = g_strdup_printf ("a stack is deeper than %d frames",
                                                      FLAME_MAX_DEPTH);
              set_error (&pp, error, FLAME_ERROR_TOO_LARGE, offset, msg);
              return NULL;
            }
          g_array_append_vals (stack, &g_array_index (frame_ids, guint32, loc->first_frame),
                               loc->n_frames);
        }
      if (work > work_limit)
        {
          set_error (&pp, error, FLAME_ERROR_TOO_LARGE, offset,
                     "the samples expand to far more frames than the file's size allows "
                     "(locations repeated excessively)");
          return NULL;
        }
      if (value == 0)
        continue;
      flame_profile_add_stack (profile, 0, (const guint32 *) stack->data, stack->len,
                               (gdouble) value * factor);
      any_weight = TRUE;
      flame_profile_add_samples (profile, 0, n_samples);
      if (has_thread)
        {
          g_autofree char *name = g_strndup ((const char *) thread.name.data, thread.name.len);
          FlameThread *t = flame_profile_ensure_thread (profile, name, thread.pid, thread.tid);
          t->samples += n_samples;
        }
    }

  if (!any_weight)
    {
      /* as for folded stacks: nothing to show or compare */
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no samples in the file");
      return NULL;
    }
  flame_profile_finish (profile);
  return g_steal_pointer (&profile);
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

FlameProfile *
flame_pprof_legacy_load (FlameInput  *in,
                         GError     **error)
{
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (LegacySample));
  g_autoptr(GArray) addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) maps = g_array_new (FALSE, TRUE, sizeof (LegacyMapping));
  g_autoptr(GHashTable) java_names = NULL;
  g_autoptr(GHashTable) frame_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  const guint8 *data = (const guint8 *) in->data;
  LegacyHeader h;
  gsize pos;
  gboolean ended = FALSE;
  gboolean any_weight = FALSE;

  if (!legacy_header (in->data, in->len, &h))
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                             "byte 0: not a legacy pprof CPU profile header");
      return NULL;
    }
  g_array_set_clear_func (maps, legacy_mapping_clear);

  pos = 5 * h.word;
  while (pos < in->len)
    {
      LegacySample s;
      guint64 depth;

      if (!flame_input_tick (in, pos, error))
        return NULL;
      s.offset = pos;
      if (in->len - pos < 2 * (gsize) h.word)
        {
          flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT ": truncated sample", pos);
          return NULL;
        }
      s.count = legacy_word (data + pos, &h);
      depth = legacy_word (data + pos + h.word, &h);
      pos += 2 * h.word;
      if (depth > (in->len - pos) / h.word)
        {
          flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT ": a sample declares %" G_GUINT64_FORMAT
                                 " frames, more than the rest of the file holds",
                                 s.offset, depth);
          return NULL;
        }
      if (depth > FLAME_MAX_DEPTH)
        {
          flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, 0,
                                 "byte %" G_GSIZE_FORMAT ": a stack is deeper than %d frames",
                                 s.offset, FLAME_MAX_DEPTH);
          return NULL;
        }
      if (s.count == 0 && depth == 1 && legacy_word (data + pos, &h) == 0)
        {
          pos += h.word;
          ended = TRUE;
          break;
        }
      s.first = addrs->len;
      s.depth = (guint) depth;
      for (guint i = 0; i < depth; i++)
        {
          guint64 a = legacy_word (data + pos + (gsize) i * h.word, &h);
          /* return addresses point after the call; the leaf is exact */
          if (!h.java && i > 0)
            a--;
          g_array_append_val (addrs, a);
        }
      pos += depth * h.word;
      g_array_append_val (samples, s);
    }

  if (!h.java)
    {
      /* pprof's clean-ups: a second frame shared by (nearly) every sample
       * was pushed by the signal handler (up to two such frames), and a
       * leaf repeated as its own caller (adjusted by one) is dropped */
      guint margin = samples->len / 32;

      for (guint iter = 0; iter < 2; iter++)
        {
          g_autoptr(GHashTable) counts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
          gint64 found = 0;
          gboolean have = FALSE;
          GHashTableIter hi;
          gpointer k, v;

          for (guint i = 0; i < samples->len; i++)
            {
              LegacySample *s = &g_array_index (samples, LegacySample, i);
              if (s->depth > 1)
                {
                  guint64 a = g_array_index (addrs, guint64, s->first + 1);
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
            if (GPOINTER_TO_UINT (v) + margin >= samples->len)
              {
                found = *(gint64 *) k;
                have = TRUE;
                break;
              }
          if (!have)
            continue;
          for (guint i = 0; i < samples->len; i++)
            {
              LegacySample *s = &g_array_index (samples, LegacySample, i);
              guint64 *a;

              /* addrs->data is NULL while no sample has an address */
              if (s->depth <= 1)
                continue;
              a = &g_array_index (addrs, guint64, s->first);
              if (a[1] == (guint64) found)
                {
                  memmove (a + 1, a + 2, (s->depth - 2) * sizeof (guint64));
                  s->depth--;
                }
            }
        }
      for (guint i = 0; i < samples->len; i++)
        {
          LegacySample *s = &g_array_index (samples, LegacySample, i);
          guint64 *a;

          if (s->depth <= 1)
            continue;
          a = &g_array_index (addrs, guint64, s->first);
          if (a[0] == a[1] + 1)
            {
              memmove (a + 1, a + 2, (s->depth - 2) * sizeof (guint64));
              s->depth--;
            }
        }
    }

  /* the text after the samples: memory map or Java symbols */
  if (ended && pos < in->len)
    {
      gsize text_len = MIN (in->len - pos, (gsize) 64 << 20);
      g_autofree char *text = g_strndup ((const char *) data + pos, text_len);
      g_auto(GStrv) text_lines = g_strsplit (text, "\n", -1);

      if (h.java)
        java_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      for (guint i = 0; text_lines[i] != NULL; i++)
        {
          const char *l = text_lines[i];

          if (h.java)
            {
              char *end;
              guint64 addr;
              const char *p = l;

              while (*p == ' ' || *p == '\t')
                p++;
              if (p[0] != '0' || p[1] != 'x')
                continue;
              addr = g_ascii_strtoull (p + 2, &end, 16);
              if (end == p + 2)
                continue;
              while (*end == ' ' || *end == '\t')
                end++;
              g_hash_table_insert (java_names, g_memdup2 (&addr, sizeof addr),
                                   g_strchomp (g_strdup (end)));
            }
          else
            {
              LegacyMapping m = { 0 };
              /* every address is looked up in every mapping: a real
               * process has a few hundred */
              if (maps->len < 4096 && parse_maps_line (l, &m))
                g_array_append_val (maps, m);
            }
        }
    }

  profile = flame_profile_new (FLAME_FORMAT_PPROF_LEGACY, 1);
  flame_profile_set_path (profile, in->name);
  flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
  flame_profile_set_interval_ms (profile, h.period / 1000.0);
  flame_profile_set_metadata (profile, "sample-type", "cpu/nanoseconds");
  if (!ended)
    flame_profile_add_warning (profile, "%s: the samples end without the end marker; "
                               "the file may be truncated", in->name);

  for (guint i = 0; i < samples->len; i++)
    {
      LegacySample *s = &g_array_index (samples, LegacySample, i);

      g_array_set_size (stack, 0);
      for (guint d = s->depth; d-- > 0;)
        {
          guint64 a = g_array_index (addrs, guint64, s->first + d);
          gpointer fid = g_hash_table_lookup (frame_of, &a);
          guint32 id;

          if (fid != NULL)
            id = GPOINTER_TO_UINT (fid) - 1;
          else
            {
              const char *name = NULL;
              const char *file = NULL;
              guint32 line = 0;
              g_autofree char *owned = NULL;
              g_autofree char *file_owned = NULL;

              if (java_names != NULL)
                name = g_hash_table_lookup (java_names, &a);
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
                  for (guint m = 0; m < maps->len; m++)
                    {
                      LegacyMapping *lm = &g_array_index (maps, LegacyMapping, m);
                      if (lm->start <= a && a < lm->limit)
                        {
                          file = lm->file;
                          break;
                        }
                    }
                }
              if (file_owned != NULL)
                file = file_owned;
              id = flame_profile_intern_frame (profile, name, strlen (name),
                                               file, file ? strlen (file) : 0, line, 0);
              g_hash_table_insert (frame_of, g_memdup2 (&a, sizeof a), GUINT_TO_POINTER (id + 1));
            }
          g_array_append_val (stack, id);
        }
      if (s->count > 0)
        {
          flame_profile_add_stack (profile, 0, (const guint32 *) stack->data, stack->len,
                                   (gdouble) s->count * h.period * 1000.0);
          any_weight = TRUE;
          flame_profile_add_samples (profile, 0, (gdouble) s->count);
        }
    }

  if (!any_weight)
    {
      /* as for folded stacks: nothing to show or compare */
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no samples in the file");
      return NULL;
    }
  flame_profile_finish (profile);
  return g_steal_pointer (&profile);
}

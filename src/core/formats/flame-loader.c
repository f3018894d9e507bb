/* flame-loader.c: reading, decompressing, decoding and sniffing.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <glib/gstdio.h>

#include "flame-callgrind.h"
#include "flame-chrome.h"
#include "flame-gecko.h"
#include "flame-error.h"
#include "flame-folded.h"
#include "flame-loader.h"
#include "flame-json.h"
#include "flame-mapped.h"
#include "flame-perf.h"
#include "flame-parallel.h"
#include "flame-perfdata.h"
#include "flame-speedscope.h"
#include "flame-pprof.h"
#include "flame-pstats.h"
#include "flame-cpython.h"
#include "flame-sysprof.h"

#define PROGRESS_STEP ((gsize) 4 << 20)

/* For tests: FLAMEDIFF_TEST_CHANGE_WHILE_LOADING=truncate|append|replace
 * does that to the file being loaded once half of it has been read, as
 * another program might; nothing else can change a file at a known point
 * of a load. Only files of two progress steps or more, so that half-way
 * falls on a progress check inside the file. */
static void
test_change_file (FlameInput *in,
                  gsize       offset)
{
  const char *change = g_getenv ("FLAMEDIFF_TEST_CHANGE_WHILE_LOADING");
  g_autofree char *tmp = NULL;

  if G_LIKELY (change == NULL || in->changed_for_test || in->len < 2 * PROGRESS_STEP ||
               offset < in->len / 2 ||
               !g_file_test (in->name, G_FILE_TEST_IS_REGULAR))
    return;
  in->changed_for_test = TRUE;
  if (g_str_equal (change, "truncate"))
    {
      if (truncate (in->name, in->len / 4) != 0)
        g_warning ("%s: cannot truncate: %s", in->name, g_strerror (errno));
    }
  else if (g_str_equal (change, "append"))
    {
      FILE *f = fopen (in->name, "a");

      if (f == NULL || fputs ("main;appended 1\n", f) < 0 || fclose (f) != 0)
        g_warning ("%s: cannot append", in->name);
    }
  else if (g_str_equal (change, "replace"))
    {
      tmp = g_strconcat (in->name, ".new", NULL);
      if (!g_file_set_contents (tmp, "main;replaced 1\n", -1, NULL) ||
          g_rename (tmp, in->name) != 0)
        g_warning ("%s: cannot replace", in->name);
    }
}

gboolean
flame_input_tick_slow (FlameInput  *in,
                       gsize        offset,
                       GError     **error)
{
  in->next_check = offset + PROGRESS_STEP;
  if (g_cancellable_set_error_if_cancelled (in->cancellable, error))
    return FALSE;
  test_change_file (in, offset);
  /* the file was truncated under us: what is left are zeros, stop */
  if (flame_mapped_faulted (in->data))
    return flame_mapped_check (in->data, error);
  if (in->progress != NULL && in->len > 0)
    in->progress (MIN (1.0, (gdouble) offset / in->len), in->progress_data);
  return TRUE;
}

/* The one writer of a loader's message: "FILE" @location ": reason" */
static void
set_error_located (FlameInput  *in,
                   GError     **error,
                   gint         code,
                   const char  *location,
                   const char  *format,
                   va_list      args) G_GNUC_PRINTF (5, 0);

static void
set_error_located (FlameInput  *in,
                   GError     **error,
                   gint         code,
                   const char  *location,
                   const char  *format,
                   va_list      args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);

  g_set_error (error, FLAME_ERROR, code, "%s%s: %s", in->name, location, message);
}

void
flame_input_set_errorv (FlameInput  *in,
                        GError     **error,
                        gint         code,
                        guint64      line,
                        const char  *format,
                        va_list      args)
{
  char location[32] = "";

  if (line > 0)
    g_snprintf (location, sizeof location, ":%" G_GUINT64_FORMAT, line);
  set_error_located (in, error, code, location, format, args);
}

void
flame_input_set_error (FlameInput  *in,
                       GError     **error,
                       gint         code,
                       guint64      line,
                       const char  *format,
                       ...)
{
  va_list args;

  va_start (args, format);
  flame_input_set_errorv (in, error, code, line, format, args);
  va_end (args);
}

void
flame_input_set_error_at_bytev (FlameInput  *in,
                                GError     **error,
                                gint         code,
                                guint64      byte,
                                const char  *format,
                                va_list      args)
{
  char location[32];

  g_snprintf (location, sizeof location, ": byte %" G_GUINT64_FORMAT, byte);
  set_error_located (in, error, code, location, format, args);
}

void
flame_input_set_error_at_byte (FlameInput  *in,
                               GError     **error,
                               gint         code,
                               guint64      byte,
                               const char  *format,
                               ...)
{
  va_list args;

  va_start (args, format);
  flame_input_set_error_at_bytev (in, error, code, byte, format, args);
  va_end (args);
}

static GBytes *
gunzip (const char    *name,
        const guint8  *data,
        gsize          len,
        GCancellable  *cancellable,
        GError       **error)
{
  z_stream zs = { 0 };
  gsize alloc = MAX (len * 4, (gsize) 1 << 16);
  guint8 *out;
  gsize out_len = 0;
  int ret;

  /* 16 + MAX_WBITS: gzip only; concatenated members are handled below */
  if (inflateInit2 (&zs, 16 + MAX_WBITS) != Z_OK)
    {
      g_set_error (error, FLAME_ERROR, FLAME_ERROR_PARSE,
                   "%s: cannot start gzip decompression", name);
      return NULL;
    }

  out = g_malloc (alloc);
  zs.next_in = (Bytef *) data;
  zs.avail_in = 0;

  for (;;)
    {
      /* zlib counts in uInt; feed at most 1 GiB at a time */
      if (zs.avail_in == 0)
        {
          gsize consumed = zs.next_in - (Bytef *) data;
          zs.avail_in = (uInt) MIN (len - consumed, (gsize) 1 << 30);
        }
      if (out_len == alloc)
        {
          if (alloc >= FLAME_MAX_DECOMPRESSED)
            {
              inflateEnd (&zs);
              g_free (out);
              g_set_error (error, FLAME_ERROR, FLAME_ERROR_TOO_LARGE,
                           "%s: decompresses to more than %" G_GSIZE_FORMAT " GiB",
                           name, FLAME_MAX_DECOMPRESSED >> 30);
              return NULL;
            }
          alloc = MIN (alloc * 2, FLAME_MAX_DECOMPRESSED);
          out = g_realloc (out, alloc);
          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            {
              inflateEnd (&zs);
              g_free (out);
              return NULL;
            }
        }
      zs.next_out = out + out_len;
      zs.avail_out = (uInt) MIN (alloc - out_len, (gsize) 1 << 30);
      ret = inflate (&zs, Z_NO_FLUSH);
      out_len = zs.next_out - out;

      if (ret == Z_STREAM_END)
        {
          gsize consumed = zs.next_in - (Bytef *) data;
          /* another gzip member follows (as `cat a.gz b.gz` makes) */
          if (consumed + 2 <= len && data[consumed] == 0x1f && data[consumed + 1] == 0x8b)
            {
              inflateReset (&zs);
              continue;
            }
          break;
        }
      if (ret == Z_BUF_ERROR && zs.avail_in == 0 &&
          (gsize) (zs.next_in - (Bytef *) data) == len)
        {
          inflateEnd (&zs);
          g_free (out);
          g_set_error (error, FLAME_ERROR, FLAME_ERROR_PARSE,
                       "%s: byte %" G_GSIZE_FORMAT ": the gzip data is truncated",
                       name, len);
          return NULL;
        }
      if (ret != Z_OK && ret != Z_BUF_ERROR)
        {
          gsize consumed = zs.next_in - (Bytef *) data;
          g_set_error (error, FLAME_ERROR, FLAME_ERROR_PARSE,
                       "%s: byte %" G_GSIZE_FORMAT ": corrupt gzip data (%s)",
                       name, consumed, zs.msg ? zs.msg : "inflate failed");
          inflateEnd (&zs);
          g_free (out);
          return NULL;
        }
    }

  inflateEnd (&zs);
  return g_bytes_new_take (g_realloc (out, MAX (out_len, 1)), out_len);
}

/**
 * flame_decode_bytes:
 *
 * Undoes gzip (repeatedly, for .gz of .gz) and converts UTF-16 text with
 * a byte-order mark to UTF-8; drops a UTF-8 byte-order mark.
 *
 * Returns: (transfer full): the bytes a format loader can read
 */
GBytes *
flame_decode_bytes (const char    *name,
                    GBytes        *raw,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GBytes) bytes = g_bytes_ref (raw);
  const guint8 *data;
  gsize len;

  for (guint depth = 0; ; depth++)
    {
      data = g_bytes_get_data (bytes, &len);
      if (len < 2 || data[0] != 0x1f || data[1] != 0x8b)
        break;
      if (depth == 4)
        {
          g_set_error (error, FLAME_ERROR, FLAME_ERROR_PARSE,
                       "%s: gzip nested too deeply", name);
          return NULL;
        }
      {
        GBytes *inner = gunzip (name, data, len, cancellable, error);
        if (inner == NULL)
          return NULL;
        g_bytes_unref (bytes);
        bytes = inner;
      }
    }

  if (len >= 2 && ((data[0] == 0xff && data[1] == 0xfe) ||
                   (data[0] == 0xfe && data[1] == 0xff)))
    {
      const char *charset = data[0] == 0xff ? "UTF-16LE" : "UTF-16BE";
      g_autoptr(GError) local_error = NULL;
      gsize written = 0;
      gsize read = 0;
      char *utf8 = g_convert ((const char *) data + 2, (len - 2) & ~(gsize) 1,
                              "UTF-8", charset, &read, &written, &local_error);

      if (utf8 == NULL)
        {
          g_set_error (error, FLAME_ERROR, FLAME_ERROR_PARSE,
                       "%s: byte %" G_GSIZE_FORMAT ": invalid %s text: %s",
                       name, read + 2, charset, local_error->message);
          return NULL;
        }
      return g_bytes_new_take (utf8, written);
    }

  if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
    return g_bytes_new_from_bytes (bytes, 3, len - 3);

  return g_steal_pointer (&bytes);
}

/**
 * flame_read_file:
 *
 * Returns: (transfer full): the file's contents, decoded with
 *   flame_decode_bytes(). Plain files are mapped, not copied (see
 *   flame-mapped.c): call flame_read_file_check() when done reading.
 */
GBytes *
flame_read_file (const char    *path,
                 GCancellable  *cancellable,
                 GError       **error)
{
  g_autoptr(GBytes) raw = NULL;
  g_autoptr(GError) local_error = NULL;
  GBytes *decoded;

  raw = flame_mapped_file_new (path, &local_error);
  if (raw == NULL)
    {
      /* pipes, special and empty files cannot be mapped: read them instead */
      char *contents = NULL;
      gsize len = 0;

      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      g_clear_error (&local_error);
      if (!g_file_get_contents (path, &contents, &len, error))
        return NULL;
      raw = g_bytes_new_take (contents, len);
    }

  decoded = flame_decode_bytes (path, raw, cancellable, &local_error);
  /* decompressed or converted: the mapping has been read to its end */
  if (decoded != NULL && g_bytes_get_data (decoded, NULL) != g_bytes_get_data (raw, NULL) &&
      !flame_mapped_check (g_bytes_get_data (raw, NULL), error))
    {
      g_bytes_unref (decoded);
      return NULL;
    }
  if (decoded == NULL)
    {
      /* a gzip error in a file that was truncated is the truncation */
      if (!flame_mapped_check (g_bytes_get_data (raw, NULL), error))
        return NULL;
      g_propagate_error (error, g_steal_pointer (&local_error));
    }
  return decoded;
}

/**
 * flame_read_file_check:
 * @bytes: from flame_read_file()
 *
 * Call when done with @bytes: a file read through a mapping may have
 * changed while it was read, and then what was read is not the file.
 *
 * Returns: FALSE with @error set (FLAME_ERROR_CHANGED) if it did
 */
gboolean
flame_read_file_check (GBytes  *bytes,
                       GError **error)
{
  return flame_mapped_check (g_bytes_get_data (bytes, NULL), error);
}

static gboolean
looks_like_json (const char *data,
                 gsize       len)
{
  for (gsize i = 0; i < len && i < 4096; i++)
    {
      char c = data[i];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
        continue;
      return c == '{' || c == '[';
    }
  return FALSE;
}

static gboolean
looks_like_binary (const char *data,
                   gsize       len)
{
  gsize n = MIN (len, (gsize) 512);

  for (gsize i = 0; i < n; i++)
    {
      guchar c = data[i];
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f')
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_prefix_len (const char *data,
                gsize       len,
                const char *prefix,
                gsize       prefix_len)
{
  return len >= prefix_len && memcmp (data, prefix, prefix_len) == 0;
}

/* Lines that start a valgrind tool's output (cachegrind, massif; callgrind
 * has a loader) among the first few: they write "key: value" headers and
 * "fl=", "fn=" records, then lines of numbers (costs). */
static const char *
describe_valgrind (const char *data,
                   gsize       len)
{
  gboolean events = FALSE, records = FALSE, cmd = FALSE;
  gsize pos = 0;

  /* the headers are short lines at the start: never scan (and fault in)
   * the whole of a large file that has no newline, as JSON often has not */
  len = MIN (len, (gsize) 64 * 1024);
  for (guint n = 0; pos < len && n < 64; n++)
    {
      gsize line_len;
      const char *line = flame_next_line (data, len, &pos, &line_len);

#define STARTS(p) has_prefix_len (line, line_len, p, sizeof p - 1)
      if (STARTS ("time_unit:") || STARTS ("mem_heap_B="))
        return "massif output (valgrind --tool=massif)";
      if (STARTS ("events:"))
        events = TRUE;
      else if (STARTS ("cmd:"))
        cmd = TRUE;
      else if (STARTS ("fl=") || STARTS ("fn=") || STARTS ("ob="))
        records = TRUE;
#undef STARTS
    }
  if (events && (records || cmd))
    return "cachegrind output (valgrind --tool=cachegrind)";
  return NULL;
}

/* What a file that no loader reads seems to be, by its magic number or
 * its first lines, for the error message; NULL when we cannot tell. */
static const char *
describe_non_profile (const char *data,
                      gsize       len)
{
  gsize i = 0;

  if (has_prefix_len (data, len, "PERFFILE", 8))
    return "a perf.data file of perf before Linux 2.6.37, which Flamediff does not read "
           "(load the output of `perf script -i FILE` instead)";
  if (has_prefix_len (data, len, "\x7f" "ELF", 4))
    return "an ELF program or library";
  if (has_prefix_len (data, len, "FLR\0", 4))
    return "a Java Flight Recorder file";
  if (has_prefix_len (data, len, "\x28\xb5\x2f\xfd", 4))
    return "zstd-compressed data (decompress it first)";
  if (has_prefix_len (data, len, "PK\x03\x04", 4))
    return "a zip archive";

  while (i < len && i < 4096 && g_ascii_isspace (data[i]))
    i++;
  if (len - i >= 5 && (g_ascii_strncasecmp (data + i, "<!doc", 5) == 0 ||
                       g_ascii_strncasecmp (data + i, "<html", 5) == 0 ||
                       g_ascii_strncasecmp (data + i, "<?xml", 5) == 0 ||
                       g_ascii_strncasecmp (data + i, "<svg", 4) == 0))
    {
      gsize n = MIN (len - i, (gsize) 4096);

      if (g_strstr_len (data + i, n, "<svg") != NULL)
        return "an SVG image";
      if (g_ascii_strncasecmp (data + i, "<?xml", 5) == 0)
        return "an XML document";
      return "an HTML page";
    }
  return describe_valgrind (data, len);
}

#define FORMATS_READ \
  "Flamediff reads folded stacks, perf script output, perf.data, pprof, " \
  "speedscope, Chrome and V8 profiles, Firefox Profiler profiles, " \
  "CPython profiling.sampling files, Sysprof captures, callgrind output and Python " \
  "pstats files"

/* What the sniffers of one file share: the JSON top-level keys and the
 * folded sniffer's answer are found once, whichever row asks first. */
typedef struct
{
  const char *data;
  gsize       len;
  GPtrArray  *keys;     /* a JSON text's top-level keys; NULL: not read yet */
  gint        folded;   /* flame_folded_sniff(): -1 not asked yet */
  gboolean    is_pair;
} Sniff;

static gboolean
sniff_is_json (Sniff *s)
{
  return looks_like_json (s->data, s->len);
}

/* JSON profiles are told apart by their top-level keys (formats.md §0),
 * found by a scanner that skips values without decoding them: the first
 * key decides for almost every file, so even a 1 GB trace costs little. */
static gboolean
sniff_json_key (Sniff      *s,
                const char *key)
{
  if (s->keys == NULL)
    /* 4 MiB: past the first key's value in every producer we know */
    s->keys = sniff_is_json (s)
              ? flame_json_top_keys (s->data, s->len, 64, (gsize) 4 << 20)
              : g_ptr_array_new ();
  for (guint i = 0; i < s->keys->len; i++)
    if (strcmp (g_ptr_array_index (s->keys, i), key) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
sniff_speedscope (Sniff *s)
{
  if (sniff_json_key (s, "$schema") &&
      memmem (s->data, MIN (s->len, (gsize) 4096), "speedscope", 10) != NULL)
    return TRUE;
  /* no schema: "shared" and "profiles", unless a key of the Chrome formats
   * (the rows below) says otherwise */
  return sniff_json_key (s, "shared") && sniff_json_key (s, "profiles") &&
         !sniff_json_key (s, "traceEvents") && !sniff_json_key (s, "nodes") &&
         !sniff_json_key (s, "head");
}

static gboolean
sniff_chrome_trace (Sniff *s)
{
  /* "[": the top level is an array of events */
  return sniff_json_key (s, "[") || sniff_json_key (s, "traceEvents");
}

static gboolean
sniff_chrome_cpuprofile (Sniff *s)
{
  return sniff_json_key (s, "nodes") || sniff_json_key (s, "head");
}

static gboolean
sniff_gecko (Sniff *s)
{
  return sniff_json_key (s, "threads") || sniff_json_key (s, "meta") ||
         sniff_json_key (s, "profile");
}

static gboolean
sniff_non_profile (Sniff *s)
{
  return describe_non_profile (s->data, s->len) != NULL;
}

/* protobuf is binary: text that happens to parse as one is not pprof */
static gboolean
sniff_pprof (Sniff *s)
{
  return looks_like_binary (s->data, s->len) && flame_pprof_sniff (s->data, s->len);
}

static gboolean
sniff_folded_any (Sniff *s)
{
  if (s->folded < 0)
    s->folded = flame_folded_sniff (s->data, s->len, &s->is_pair);
  return s->folded;
}

static gboolean
sniff_folded_pair (Sniff *s)
{
  return sniff_folded_any (s) && s->is_pair;
}

static gboolean
sniff_cpython_collapsed (Sniff *s)
{
  return sniff_folded_any (s) && flame_folded_is_cpython (s->data, s->len);
}

static FlameProfile *
load_chrome_cpuprofile (FlameInput              *in,
                        const FlameLoadOptions  *options,
                        GError                 **error)
{
  return flame_chrome_load (in, FLAME_FORMAT_CHROME_CPUPROFILE, options, error);
}

static FlameProfile *
load_chrome_trace (FlameInput              *in,
                   const FlameLoadOptions  *options,
                   GError                 **error)
{
  return flame_chrome_load (in, FLAME_FORMAT_CHROME_TRACE, options, error);
}

/* The formats Flamediff reads, in the order they are tried: the first row
 * whose sniffer says yes is the file's format. A row of
 * FLAME_FORMAT_UNKNOWN ends the search there: no profile. Each row has a
 * sniffer of the bytes (@sniff) or of what the rows share (@sniff_in),
 * and a loader with options (@load_with) or without (@load). The names
 * are the model's (flame_format_to_string()), as the report and the
 * profile name a format without seeing the loaders. */
static const struct
{
  FlameFormat     format;
  gboolean      (*sniff)     (const char *data,
                              gsize       len);
  gboolean      (*sniff_in)  (Sniff      *s);
  FlameProfile *(*load)      (FlameInput *in,
                              GError    **error);
  FlameProfile *(*load_with) (FlameInput              *in,
                              const FlameLoadOptions  *options,
                              GError                 **error);
} formats[] = {
  /* the call-graph formats first: their loaders explain what is wrong
   * with a file that only starts like them */
  { FLAME_FORMAT_PSTATS, flame_pstats_sniff, NULL, flame_pstats_load, NULL },
  { FLAME_FORMAT_CALLGRIND, flame_callgrind_sniff, NULL, NULL, flame_callgrind_load },
  /* a file that is something else by its magic number or first lines is
   * no profile, even if its lines happen to parse as folded stacks */
  { FLAME_FORMAT_UNKNOWN, NULL, sniff_non_profile, NULL, NULL },
  /* the binary formats, before JSON: a protobuf may well start with a
   * newline (field 1) followed by '{' */
  { FLAME_FORMAT_CPYTHON_BINARY, flame_cpython_binary_sniff, NULL,
    flame_cpython_binary_load, NULL },
  { FLAME_FORMAT_SYSPROF, flame_sysprof_sniff, NULL, NULL, flame_sysprof_load },
  { FLAME_FORMAT_PERF_DATA, flame_perfdata_sniff, NULL, flame_perf_load, NULL },
  { FLAME_FORMAT_PPROF_LEGACY, flame_pprof_legacy_sniff, NULL, flame_pprof_legacy_load, NULL },
  { FLAME_FORMAT_PPROF, NULL, sniff_pprof, NULL, flame_pprof_load },
  /* JSON, by its top-level keys; JSON that none of them matches is
   * nothing else either */
  { FLAME_FORMAT_SPEEDSCOPE, NULL, sniff_speedscope, NULL, flame_speedscope_load },
  { FLAME_FORMAT_CHROME_TRACE, NULL, sniff_chrome_trace, NULL, load_chrome_trace },
  { FLAME_FORMAT_CHROME_CPUPROFILE, NULL, sniff_chrome_cpuprofile, NULL,
    load_chrome_cpuprofile },
  { FLAME_FORMAT_GECKO, NULL, sniff_gecko, NULL, flame_gecko_load },
  { FLAME_FORMAT_UNKNOWN, NULL, sniff_is_json, NULL, NULL },
  /* text */
  { FLAME_FORMAT_PERF_SCRIPT, flame_perf_sniff, NULL, flame_perf_load, NULL },
  { FLAME_FORMAT_FOLDED_PAIR, NULL, sniff_folded_pair, flame_folded_load, NULL },
  { FLAME_FORMAT_CPYTHON_COLLAPSED, NULL, sniff_cpython_collapsed, flame_folded_load, NULL },
  { FLAME_FORMAT_FOLDED, NULL, sniff_folded_any, flame_folded_load, NULL },
};

/* The row of @data's format in formats[], or -1 */
static gint
sniff_row (const char *data,
           gsize       len)
{
  Sniff s = { data, len, NULL, -1, FALSE };
  gint row = -1;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (formats[i].sniff != NULL ? formats[i].sniff (data, len) : formats[i].sniff_in (&s))
      {
        row = formats[i].format != FLAME_FORMAT_UNKNOWN ? (gint) i : -1;
        break;
      }
  g_clear_pointer (&s.keys, g_ptr_array_unref);
  return row;
}

FlameFormat
flame_sniff_format (const char *data,
                    gsize       len)
{
  gint row = sniff_row (data, len);

  return row >= 0 ? formats[row].format : FLAME_FORMAT_UNKNOWN;
}

/* Why no loader reads @in, for the error message */
static void
set_unknown_format_error (FlameInput  *in,
                          GError     **error)
{
  const char *name = in->name;
  const char *data = in->data;
  gsize len = in->len;

  if (len == 0)
    g_set_error (error, FLAME_ERROR, FLAME_ERROR_EMPTY, "%s: the file is empty", name);
  else if (describe_non_profile (data, len) != NULL)
    g_set_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT,
                 "%s: not a profile format Flamediff can read: this looks like %s. "
                 FORMATS_READ ".", name, describe_non_profile (data, len));
  else if (looks_like_json (data, len))
    g_set_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT,
                 "%s: JSON, but not a profile format Flamediff can read "
                 "(expected speedscope, Chrome or Firefox profiles)", name);
  else if (looks_like_binary (data, len))
    g_set_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT,
                 "%s: not a profile format Flamediff can read "
                 "(binary data, but not pprof, a legacy pprof CPU profile, "
                 "a CPython binary profile or Python pstats)", name);
  else
    g_set_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT,
                 "%s: not a profile format Flamediff can read: text, but "
                 "most of its first lines are neither folded stacks "
                 "(\"frame;frame COUNT\") nor perf script output. "
                 FORMATS_READ ".", name);
}

FlameProfile *
flame_load_bytes (const char         *name,
                  GBytes             *bytes,
                  GCancellable       *cancellable,
                  FlameProgressFunc   progress,
                  gpointer            progress_data,
                  GError            **error)
{
  return flame_load_bytes_full (name, bytes, NULL, cancellable, progress, progress_data, error);
}

/**
 * flame_load_bytes_full:
 * @options: (nullable): which profile or thread to load; NULL for the
 *   defaults (the first profile with samples, all threads merged)
 */
FlameProfile *
flame_load_bytes_full (const char              *name,
                       GBytes                  *bytes,
                       const FlameLoadOptions  *options,
                       GCancellable            *cancellable,
                       FlameProgressFunc        progress,
                       gpointer                 progress_data,
                       GError                 **error)
{
  FlameInput in = { 0 };
  FlameProfile *profile = NULL;
  gsize len;
  gint row;

  in.name = name;
  in.data = g_bytes_get_data (bytes, &len);
  in.len = len;
  in.cancellable = cancellable;
  in.progress = progress;
  in.progress_data = progress_data;
  in.max_threads = options != NULL ? options->threads : 0;

  row = sniff_row (in.data, len);
  if (row < 0)
    {
      set_unknown_format_error (&in, error);
      return NULL;
    }
  profile = formats[row].load_with != NULL ? formats[row].load_with (&in, options, error)
                                           : formats[row].load (&in, error);

  if (profile != NULL)
    {
      flame_profile_set_path (profile, name);
      if (progress != NULL)
        progress (1.0, progress_data);
    }
  return profile;
}

FlameProfile *
flame_load_file (const char         *path,
                 GCancellable       *cancellable,
                 FlameProgressFunc   progress,
                 gpointer            progress_data,
                 GError            **error)
{
  return flame_load_file_full (path, NULL, cancellable, progress, progress_data, error);
}

FlameProfile *
flame_load_file_full (const char              *path,
                      const FlameLoadOptions  *options,
                      GCancellable            *cancellable,
                      FlameProgressFunc        progress,
                      gpointer                 progress_data,
                      GError                 **error)
{
  g_autoptr(GBytes) bytes = flame_read_file (path, cancellable, error);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GError) changed = NULL;
  FlameProfile *profile;

  if (bytes == NULL)
    return NULL;
  profile = flame_load_bytes_full (path, bytes, options, cancellable, progress, progress_data,
                                   &local_error);
  /* a file that changed meanwhile: that is the error, whatever the loader
   * made of what it read */
  if (!flame_read_file_check (bytes, &changed))
    {
      g_clear_object (&profile);
      g_propagate_error (error, g_steal_pointer (&changed));
      return NULL;
    }
  if (profile == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return profile;
}

typedef struct
{
  char              *path;
  FlameProgressFunc  progress;
  gpointer           progress_data;
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *ld = data;

  g_free (ld->path);
  g_free (ld);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadData *ld = task_data;
  GError *error = NULL;
  FlameProfile *profile;

  g_assert (G_IS_TASK (task));
  g_assert (ld != NULL);

  flame_parallel_enter_background ();
  profile = flame_load_file (ld->path, cancellable, ld->progress, ld->progress_data, &error);
  if (profile == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, profile, g_object_unref);
}

/**
 * flame_load_file_async:
 * @progress: (nullable): called from the worker thread
 *
 * Loads a profile in a worker thread.
 */
void
flame_load_file_async (const char          *path,
                       GCancellable        *cancellable,
                       FlameProgressFunc    progress,
                       gpointer             progress_data,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LoadData *ld;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, flame_load_file_async);
  ld = g_new0 (LoadData, 1);
  ld->path = g_strdup (path);
  ld->progress = progress;
  ld->progress_data = progress_data;
  g_task_set_task_data (task, ld, load_data_free);
  g_task_run_in_thread (task, load_thread);
}

FlameProfile *
flame_load_file_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

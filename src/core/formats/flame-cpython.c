/* flame-cpython.c: CPython 3.15 `python -m profiling.sampling --binary`.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout (InternalDocs/profiling_binary_format.md, docs/formats.md):
 * a 64-byte header, sample records (optionally one zstd stream), a
 * string table, a frame table, an optional stats block and a 32-byte
 * footer. Fixed-width fields are in the writer's byte order: a magic
 * that reads byte-swapped means every fixed field must be swapped.
 *
 * The header changed while its version stayed 1 (the sample count grew
 * from u32 to u64, shifting every later field by four bytes), so both
 * layouts are tried and the one whose table offsets fit the file and
 * whose footer names the real file size wins.
 *
 * Records are delta-encoded against the thread's previous stack (REPEAT,
 * SUFFIX, POP_PUSH). Each thread keeps its stack root first together
 * with the tree node of every depth, so a record that keeps the bottom of
 * the previous stack only walks the tree for the frames it adds: the
 * work stays proportional to the file, however deep the stacks are.
 *
 * Threads are recorded (flamediff-cli info lists them) but not put into
 * the stacks: like CPython's own flame graph and diff, all threads merge
 * into one tree, and thread ids differ between two runs anyway.
 *
 * The files hold the profiler's own runner frames (`main`,
 * `_execute_script`, `<module>` of profiling/sampling/_sync_coordinator.py)
 * in every stack; CPython drops them from each stack before anything else
 * (collector.filter_internal_frames), and so does this loader, so that a
 * comparison sees the same call paths as CPython's --diff-flamegraph.
 */
#include "config.h"

#include <string.h>
#include <zstd.h>

#include "flame-cpython.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-protobuf.h"

#define MAGIC        0x54414348u
#define HEADER_SIZE  64
#define FOOTER_SIZE  32
/* Decompressed sample data may be this many times the compressed size
 * (plus a fixed allowance): real profiles compress 5–50×, and a bound
 * keeps a few kilobytes from claiming gigabytes. */
#define MAX_ZSTD_RATIO 4096
#define ZSTD_ALLOWANCE ((gsize) 16 << 20)
/* frame_ids[] of a frame that is left out of the stacks */
#define HIDDEN_FRAME G_MAXUINT32
#define REPAIRED ((gsize)1 << (sizeof (gsize) * 8 - 1)) /* a string offset into Loader.repaired */

enum
{
  REC_REPEAT   = 0,
  REC_FULL     = 1,
  REC_SUFFIX   = 2,
  REC_POP_PUSH = 3,
};

typedef struct
{
  guint64      tid;
  GArray      *frames;   /* guint32 file frame index, root first */
  GArray      *nodes;    /* guint32 tree node, root first */
  gboolean     has_stack;
  guint64      time_us;
  FlameThread *thread;
} ThreadState;

static void
thread_state_free (gpointer data)
{
  ThreadState *ts = data;

  g_array_unref (ts->frames);
  g_array_unref (ts->nodes);
  g_free (ts);
}

typedef struct
{
  FlameInput   *in;
  gboolean      swap;
  const guint8 *data;     /* sample records */
  gsize         len;
  gsize         base;     /* file offset of data[0], or 0 when decompressed */
  gboolean      compressed;
} Reader;

static guint32
rd32 (const guint8 *p,
      gboolean      swap)
{
  guint32 v;
  memcpy (&v, p, 4);
  return swap ? GUINT32_SWAP_LE_BE (v) : v;
}

static guint64
rd64 (const guint8 *p,
      gboolean      swap)
{
  guint64 v;
  memcpy (&v, p, 8);
  return swap ? GUINT64_SWAP_LE_BE (v) : v;
}

/**
 * flame_cpython_is_internal_file:
 *
 * Whether frames of @file belong to CPython's profiler itself and are
 * hidden from every stack, as CPython 3.15's collectors hide them
 * (constants._INTERNAL_FRAME_SUFFIXES).
 */
gboolean
flame_cpython_is_internal_file (const char *file,
                                gsize       len)
{
  static const char suffix[] = "_sync_coordinator.py";

  return len >= sizeof suffix - 1 &&
         memcmp (file + len - (sizeof suffix - 1), suffix, sizeof suffix - 1) == 0;
}

gboolean
flame_cpython_binary_sniff (const char *data,
                            gsize       len)
{
  return len >= 4 && (memcmp (data, "HCAT", 4) == 0 || memcmp (data, "TACH", 4) == 0);
}

static void
record_error (Reader      *rd,
              GError     **error,
              gsize        pos,
              const char  *reason)
{
  if (rd->compressed)
    flame_input_set_error (rd->in, error, FLAME_ERROR_PARSE, 0,
                           "byte %" G_GSIZE_FORMAT " of the decompressed sample data: %s",
                           pos, reason);
  else
    flame_input_set_error (rd->in, error, FLAME_ERROR_PARSE, 0,
                           "byte %" G_GSIZE_FORMAT ": %s", rd->base + pos, reason);
}

static gboolean
read_varint (const guint8 **p,
             const guint8  *end,
             guint64       *v)
{
  return flame_pb_read_varint (p, end, v);
}

static gboolean
read_svarint (const guint8 **p,
              const guint8  *end,
              gint64        *v)
{
  guint64 u;

  if (!flame_pb_read_varint (p, end, &u))
    return FALSE;
  *v = (gint64) (u >> 1) ^ -(gint64) (u & 1);
  return TRUE;
}

static GBytes *
zstd_decompress (FlameInput    *in,
                 const guint8  *src,
                 gsize          src_len,
                 gsize          offset,
                 GError       **error)
{
  ZSTD_DStream *ds = ZSTD_createDStream ();
  gsize cap = MIN (FLAME_MAX_DECOMPRESSED, src_len * MAX_ZSTD_RATIO + ZSTD_ALLOWANCE);
  gsize alloc = MIN (MAX (src_len * 4, (gsize) 1 << 16), cap);
  guint8 *out = g_malloc (alloc);
  ZSTD_inBuffer zin = { src, src_len, 0 };
  gsize out_len = 0;
  size_t ret = 1;

  ZSTD_initDStream (ds);
  while (zin.pos < zin.size || ret != 0)
    {
      ZSTD_outBuffer zout;

      if (out_len == alloc)
        {
          if (alloc >= cap)
            {
              flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, 0,
                                     "byte %" G_GSIZE_FORMAT ": the zstd sample data "
                                     "decompresses to more than %" G_GSIZE_FORMAT " bytes",
                                     offset, cap);
              goto fail;
            }
          alloc = MIN (alloc * 2, cap);
          out = g_realloc (out, alloc);
          if (g_cancellable_set_error_if_cancelled (in->cancellable, error))
            goto fail;
        }
      zout.dst = out;
      zout.size = alloc;
      zout.pos = out_len;
      ret = ZSTD_decompressStream (ds, &zout, &zin);
      out_len = zout.pos;
      if (ZSTD_isError (ret))
        {
          flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT ": corrupt zstd sample data (%s)",
                                 offset + zin.pos, ZSTD_getErrorName (ret));
          goto fail;
        }
      if (zin.pos == zin.size && ret != 0 && out_len < alloc)
        {
          flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT ": the zstd sample data is truncated",
                                 offset + src_len);
          goto fail;
        }
    }
  ZSTD_freeDStream (ds);
  return g_bytes_new_take (g_realloc (out, MAX (out_len, 1)), out_len);

fail:
  ZSTD_freeDStream (ds);
  g_free (out);
  return NULL;
}

typedef struct
{
  guint64 total_samples;
  guint32 thread_count;
  guint64 str_off;
  guint64 frame_off;
  guint32 compression;
  guint32 mode;          /* profiling mode + 1; 0 unknown or older layout */
  gboolean older;
} Header;

static gboolean
header_fits (const Header *h,
             gsize         len)
{
  return h->str_off >= HEADER_SIZE && h->str_off <= h->frame_off &&
         h->frame_off <= len - FOOTER_SIZE;
}

/* Adds the sample to the thread's current stack, extending the cached
 * node path from depth @keep on. A hidden frame takes its caller's node,
 * so the depth of ts->nodes stays the depth of the file's stack. */
static void
extend_path (FlameProfile *profile,
             ThreadState  *ts,
             guint         keep,
             const guint32 *frame_ids)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  guint depth = ts->frames->len;
  guint32 node;

  g_array_set_size (ts->nodes, depth);
  node = keep > 0 ? g_array_index (ts->nodes, guint32, keep - 1) : FLAME_TREE_ROOT;
  for (guint d = keep; d < depth; d++)
    {
      guint32 id = frame_ids[g_array_index (ts->frames, guint32, d)];

      if (id != HIDDEN_FRAME)
        node = flame_tree_child (tree, node, id);
      g_array_index (ts->nodes, guint32, d) = node;
    }
}

/* One load: the file, its tables, and the stack of every thread. */
typedef struct
{
  FlameInput   *in;
  const guint8 *file;
  gsize         len;
  gboolean      swap;
  Header        h;
  guint32       string_count;
  guint32       frame_count;
  guint64       start_us;
  guint64       interval_us;
  FlameProfile *profile;
  GArray       *strings;      /* offsets of string i: start, len (REPAIRED: in repaired) */
  GString      *repaired;     /* strings that were not UTF-8, decoded as CPython does */
  guint         n_repaired;
  guint32      *frame_ids;    /* frame table index -> interned frame or HIDDEN_FRAME */
  GArray       *scratch;      /* the frames a record adds, root first */
  GHashTable   *threads;      /* tid -> ThreadState */
  GBytes       *decompressed;
  Reader        rd;
  guint64       max_time;
  guint64       n_samples;    /* in the tree */
  guint64       n_recorded;   /* in the records, hidden-only stacks too */
} Loader;

static void
loader_clear (Loader *ld)
{
  g_clear_object (&ld->profile);
  g_clear_pointer (&ld->strings, g_array_unref);
  if (ld->repaired != NULL)
    g_string_free (ld->repaired, TRUE);
  ld->repaired = NULL;
  g_clear_pointer (&ld->frame_ids, g_free);
  g_clear_pointer (&ld->scratch, g_array_unref);
  g_clear_pointer (&ld->threads, g_hash_table_unref);
  g_clear_pointer (&ld->decompressed, g_bytes_unref);
}

/* Magic, version and footer: whether this is a file we can read at all. */
static gboolean
read_magic_and_footer (Loader  *ld,
                       GError **error)
{
  const guint8 *file = ld->file;
  gsize len = ld->len;
  guint32 version;
  guint64 footer_size;

  if (len < HEADER_SIZE + FOOTER_SIZE)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                             "byte %" G_GSIZE_FORMAT ": truncated: a CPython binary profile "
                             "has at least %d bytes of header and footer",
                             len, HEADER_SIZE + FOOTER_SIZE);
      return FALSE;
    }
  /* "HCAT" is the magic written on a little-endian machine */
  ld->swap = (rd32 (file, FALSE) != MAGIC);
  if (rd32 (file, ld->swap) != MAGIC)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0, "byte 0: bad magic");
      return FALSE;
    }
  version = rd32 (file + 4, ld->swap);
  if (version != 1)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_UNSUPPORTED, 0,
                             "byte 4: CPython binary format version %u is not supported "
                             "(only version 1)", version);
      return FALSE;
    }

  ld->string_count = rd32 (file + len - FOOTER_SIZE, ld->swap);
  ld->frame_count = rd32 (file + len - FOOTER_SIZE + 4, ld->swap);
  footer_size = rd64 (file + len - FOOTER_SIZE + 8, ld->swap);
  if (footer_size != len)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                             "byte %" G_GSIZE_FORMAT ": the footer gives the file size as %"
                             G_GUINT64_FORMAT " bytes, but the file has %" G_GSIZE_FORMAT
                             " (truncated or not a CPython binary profile)",
                             len - FOOTER_SIZE + 8, footer_size, len);
      return FALSE;
    }
  return TRUE;
}

/* The rest of the header, in whichever of the two layouts fits the file. */
static gboolean
read_header (Loader  *ld,
             GError **error)
{
  const guint8 *file = ld->file;
  gboolean swap = ld->swap;
  Header cur = { 0 }, old = { 0 };

  ld->start_us = rd64 (file + 12, swap);
  ld->interval_us = rd64 (file + 20, swap);

  cur.total_samples = rd64 (file + 28, swap);
  cur.thread_count = rd32 (file + 36, swap);
  cur.str_off = rd64 (file + 40, swap);
  cur.frame_off = rd64 (file + 48, swap);
  cur.compression = rd32 (file + 56, swap);
  cur.mode = rd32 (file + 60, swap);

  old.total_samples = rd32 (file + 28, swap);
  old.thread_count = rd32 (file + 32, swap);
  old.str_off = rd64 (file + 36, swap);
  old.frame_off = rd64 (file + 44, swap);
  old.compression = rd32 (file + 52, swap);
  old.older = TRUE;

  if (header_fits (&cur, ld->len))
    ld->h = cur;
  else if (header_fits (&old, ld->len))
    ld->h = old;
  else
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                             "byte 40: the string and frame table offsets lie outside the "
                             "file in both known header layouts");
      return FALSE;
    }
  if (ld->h.compression > 1)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_UNSUPPORTED, 0,
                             "byte %d: unknown compression %u (0 none and 1 zstd are known)",
                             ld->h.older ? 52 : 56, ld->h.compression);
      return FALSE;
    }
  return TRUE;
}

static void
create_profile (Loader *ld)
{
  const Header *h = &ld->h;
  g_autofree char *pyver = g_strdup_printf ("%u.%u.%u", ld->file[8], ld->file[9], ld->file[10]);
  g_autofree char *layout = g_strdup (h->older ? "older (u32 sample count)" : "current");
  FlameProfile *profile;

  profile = ld->profile = flame_profile_new (FLAME_FORMAT_CPYTHON_BINARY, 1);
  flame_profile_set_path (profile, ld->in->name);
  flame_profile_set_unit (profile, FLAME_UNIT_SAMPLES);
  if (ld->interval_us > 0 && ld->interval_us < G_MAXUINT32)
    flame_profile_set_interval_ms (profile, ld->interval_us / 1000.0);
  flame_profile_set_metadata (profile, "python-version", pyver);
  flame_profile_set_metadata (profile, "header-layout", layout);
  flame_profile_set_metadata (profile, "compression", h->compression ? "zstd" : "none");
  if (!h->older && h->mode > 0)
    {
      g_autofree char *mode = g_strdup_printf ("%u", h->mode - 1);
      flame_profile_set_metadata (profile, "profiling-mode", mode);
    }
  if (ld->start_us > 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (ld->start_us / G_USEC_PER_SEC);
      if (dt != NULL)
        {
          g_autofree char *iso = g_date_time_format_iso8601 (dt);
          flame_profile_set_metadata (profile, "start-time", iso);
        }
    }
}

/* A name that is not UTF-8, decoded as CPython's own reader does, with
 * errors="replace" (its sampler can read a name while it is being
 * written): its text goes to ld->repaired, its entry is marked REPAIRED */
static void
append_repaired_string (Loader       *ld,
                        const guint8 *p,
                        gsize         slen)
{
  gsize from, start;

  if (ld->repaired == NULL)
    ld->repaired = g_string_new (NULL);
  from = ld->repaired->len;
  start = from | REPAIRED;
  g_array_append_val (ld->strings, start);
  flame_utf8_append_replacing (ld->repaired, (const char *) p, slen);
  /* a NUL, which Python keeps, cannot be part of a name here (names are
   * C strings): it reads U+FFFD too */
  for (gsize k = from; k < ld->repaired->len; k++)
    if (ld->repaired->str[k] == '\0')
      {
        g_string_erase (ld->repaired, k, 1);
        g_string_insert (ld->repaired, k, "\xef\xbf\xbd");
        k += 2;
      }
  start = ld->repaired->len - from;
  g_array_append_val (ld->strings, start);
  ld->n_repaired++;
}

static gboolean
read_string_table (Loader  *ld,
                   GError **error)
{
  const guint8 *file = ld->file;
  const guint8 *p = file + ld->h.str_off;
  const guint8 *end = file + ld->h.frame_off;

  if (ld->string_count > (guint64) (end - p))
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                             "byte %" G_GSIZE_FORMAT ": the footer declares %u strings, more "
                             "than the string table's %" G_GSIZE_FORMAT " bytes can hold",
                             ld->len - FOOTER_SIZE, ld->string_count, (gsize) (end - p));
      return FALSE;
    }
  ld->strings = g_array_sized_new (FALSE, FALSE, sizeof (gsize), ld->string_count * 2);
  for (guint32 i = 0; i < ld->string_count; i++)
    {
      gsize at = p - file;
      guint64 slen;
      gsize start;

      if (!read_varint (&p, end, &slen) || slen > (guint64) (end - p))
        {
          flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT ": string %u runs past the string table",
                                 at, i);
          return FALSE;
        }
      if (slen > FLAME_MAX_NAME_LEN)
        {
          flame_input_set_error (ld->in, error, FLAME_ERROR_TOO_LARGE, 0,
                                 "byte %" G_GSIZE_FORMAT ": string %u is longer than %d bytes",
                                 at, i, FLAME_MAX_NAME_LEN);
          return FALSE;
        }
      if (!g_utf8_validate_len ((const char *) p, slen, NULL))
        {
          append_repaired_string (ld, p, slen);
          p += slen;
          continue;
        }
      start = p - file;
      g_array_append_val (ld->strings, start);
      start = (gsize) slen;
      g_array_append_val (ld->strings, start);
      p += slen;
    }
  return TRUE;
}

/* String @idx of the string table (checked by the caller) */
static const char *
string_at (Loader  *ld,
           guint64  idx,
           gsize   *len)
{
  gsize start = g_array_index (ld->strings, gsize, idx * 2);

  *len = g_array_index (ld->strings, gsize, idx * 2 + 1);
  if (start & REPAIRED)
    return ld->repaired->str + (start & ~REPAIRED);
  return (const char *) ld->file + start;
}

/* Interns frame table entry @i, or marks it hidden. */
static void
intern_frame (Loader  *ld,
              guint32  i,
              guint64  file_idx,
              guint64  func_idx,
              gint64   lineno)
{
  gsize fname_len, func_len;
  const char *fname = string_at (ld, file_idx, &fname_len);
  const char *func = string_at (ld, func_idx, &func_len);

  /* "~" is CPython's file for <GC>, <native> and other pseudo-frames */
  if (fname_len == 1 && fname[0] == '~')
    fname_len = 0;
  if (flame_cpython_is_internal_file (fname, fname_len))
    {
      ld->frame_ids[i] = HIDDEN_FRAME;
      return;
    }
  ld->frame_ids[i] =
    flame_profile_intern_frame (ld->profile, func, func_len, fname, fname_len,
                                lineno > 0 && lineno <= G_MAXUINT32 ? (guint32) lineno : 0, 0);
}

/* The frame table: exactly frame_count entries; a stats block may follow. */
static gboolean
read_frame_table (Loader  *ld,
                  GError **error)
{
  const guint8 *file = ld->file;
  const guint8 *p = file + ld->h.frame_off;
  const guint8 *end = file + ld->len - FOOTER_SIZE;

  if (ld->frame_count > (guint64) (end - p) / 7)
    {
      flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                             "byte %" G_GSIZE_FORMAT ": the footer declares %u frames, more "
                             "than the frame table's %" G_GSIZE_FORMAT " bytes can hold",
                             ld->len - FOOTER_SIZE + 4, ld->frame_count, (gsize) (end - p));
      return FALSE;
    }
  ld->frame_ids = g_new (guint32, MAX (ld->frame_count, 1));
  for (guint32 i = 0; i < ld->frame_count; i++)
    {
      gsize at = p - file;
      guint64 file_idx, func_idx;
      gint64 lineno, d1, col, d2;

      if (!read_varint (&p, end, &file_idx) || !read_varint (&p, end, &func_idx) ||
          !read_svarint (&p, end, &lineno) || !read_svarint (&p, end, &d1) ||
          !read_svarint (&p, end, &col) || !read_svarint (&p, end, &d2) || p >= end)
        {
          flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT ": frame %u is truncated", at, i);
          return FALSE;
        }
      p++;  /* opcode */
      if (file_idx >= ld->string_count || func_idx >= ld->string_count)
        {
          flame_input_set_error (ld->in, error, FLAME_ERROR_PARSE, 0,
                                 "byte %" G_GSIZE_FORMAT
                                 ": frame %u names string %" G_GUINT64_FORMAT
                                 ", but there are %u strings",
                                 at, i, MAX (file_idx, func_idx), ld->string_count);
          return FALSE;
        }
      intern_frame (ld, i, file_idx, func_idx, lineno);
    }
  return TRUE;
}

/* Points ld->rd at the sample records, decompressing them if need be. */
static gboolean
open_sample_data (Loader  *ld,
                  GError **error)
{
  ld->rd.in = ld->in;
  ld->rd.swap = ld->swap;
  if (ld->h.compression == 1 && ld->h.str_off > HEADER_SIZE)
    {
      ld->decompressed = zstd_decompress (ld->in, ld->file + HEADER_SIZE,
                                          ld->h.str_off - HEADER_SIZE, HEADER_SIZE, error);
      if (ld->decompressed == NULL)
        return FALSE;
      ld->rd.data = g_bytes_get_data (ld->decompressed, &ld->rd.len);
      ld->rd.compressed = TRUE;
    }
  else
    {
      ld->rd.data = ld->file + HEADER_SIZE;
      ld->rd.len = ld->h.str_off - HEADER_SIZE;
      ld->rd.base = HEADER_SIZE;
    }
  return TRUE;
}

static ThreadState *
ensure_thread (Loader  *ld,
               guint64  tid)
{
  ThreadState *ts = g_hash_table_lookup (ld->threads, &tid);
  char name[64];

  if (ts != NULL)
    return ts;
  ts = g_new0 (ThreadState, 1);
  ts->tid = tid;
  ts->frames = g_array_new (FALSE, FALSE, sizeof (guint32));
  ts->nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  ts->time_us = ld->start_us;
  g_snprintf (name, sizeof name, "Thread %" G_GUINT64_FORMAT, tid);
  ts->thread = flame_profile_ensure_thread (ld->profile, name, -1,
                                            tid <= G_MAXINT64 ? (gint64) tid : -1);
  g_hash_table_insert (ld->threads, &ts->tid, ts);
  return ts;
}

/* REPEAT: the thread's previous stack, count more times. */
static gboolean
read_repeat (Loader        *ld,
             ThreadState   *ts,
             const guint8 **pp,
             const guint8  *end,
             gsize          at,
             guint64       *weight,
             GError       **error)
{
  const guint8 *p = *pp;
  guint64 count, delta;

  if (!read_varint (&p, end, &count))
    {
      record_error (&ld->rd, error, at, "truncated REPEAT record");
      return FALSE;
    }
  if (count > (guint64) (end - p) / 2)
    {
      record_error (&ld->rd, error, at, "a REPEAT record's count runs past the sample data");
      return FALSE;
    }
  for (guint64 i = 0; i < count; i++)
    {
      if (!read_varint (&p, end, &delta) || p >= end)
        {
          record_error (&ld->rd, error, at, "truncated REPEAT record");
          return FALSE;
        }
      p++;  /* status */
      ts->time_us += delta;
    }
  /* CPython's writer starts every thread with an empty previous stack:
   * a thread first seen with no frames is a REPEAT of that, counted as
   * no sample (add_sample()) */
  ts->has_stack = TRUE;
  *weight = count;
  *pp = p;
  return TRUE;
}

/* The head of a FULL, SUFFIX or POP_PUSH record: how many frames of the
 * previous stack it keeps (bottom first) and how many it adds. */
static gboolean
read_stack_head (Loader        *ld,
                 ThreadState   *ts,
                 guint8         encoding,
                 const guint8 **pp,
                 const guint8  *end,
                 gsize          at,
                 guint         *keep,
                 guint64       *n_new,
                 GError       **error)
{
  const guint8 *p = *pp;
  guint64 delta, a, b;

  if (!read_varint (&p, end, &delta) || p >= end)
    {
      record_error (&ld->rd, error, at, "truncated record");
      return FALSE;
    }
  p++;  /* status */
  ts->time_us += delta;

  if (encoding == REC_FULL)
    {
      if (!read_varint (&p, end, n_new))
        {
          record_error (&ld->rd, error, at, "truncated FULL record");
          return FALSE;
        }
      *keep = 0;
      *pp = p;
      return TRUE;
    }
  if (!ts->has_stack)
    {
      record_error (&ld->rd, error, at, encoding == REC_SUFFIX
                    ? "a SUFFIX record for a thread without a previous stack"
                    : "a POP_PUSH record for a thread without a previous stack");
      return FALSE;
    }
  if (!read_varint (&p, end, &a) || !read_varint (&p, end, &b))
    {
      record_error (&ld->rd, error, at, "truncated record");
      return FALSE;
    }
  if (a > ts->frames->len)
    {
      record_error (&ld->rd, error, at, encoding == REC_SUFFIX
                    ? "a SUFFIX record keeps more frames than the previous stack has"
                    : "a POP_PUSH record pops more frames than the previous stack has");
      return FALSE;
    }
  /* SUFFIX keeps the bottom (outermost) a frames, POP_PUSH drops the a innermost */
  *keep = encoding == REC_SUFFIX ? (guint) a : ts->frames->len - (guint) a;
  *n_new = b;
  *pp = p;
  return TRUE;
}

/* Reads the n_new frame indices of a record into ld->scratch. New frames
 * come innermost first; the stack is kept root first. */
static gboolean
read_new_frames (Loader        *ld,
                 const guint8 **pp,
                 const guint8  *end,
                 gsize          at,
                 guint          keep,
                 guint64        n_new,
                 GError       **error)
{
  const guint8 *p = *pp;

  if (n_new > (guint64) (end - p))
    {
      record_error (&ld->rd, error, at, "a record declares more frames than the sample data holds");
      return FALSE;
    }
  if (keep + n_new > FLAME_MAX_DEPTH)
    {
      g_autofree char *msg = g_strdup_printf ("a stack is deeper than %d frames",
                                              FLAME_MAX_DEPTH);
      record_error (&ld->rd, error, at, msg);
      return FALSE;
    }
  g_array_set_size (ld->scratch, (guint) n_new);
  for (guint i = 0; i < n_new; i++)
    {
      guint64 idx;

      if (!read_varint (&p, end, &idx))
        {
          record_error (&ld->rd, error, at, "truncated frame list");
          return FALSE;
        }
      if (idx >= ld->frame_count)
        {
          g_autofree char *msg =
            g_strdup_printf ("frame index %" G_GUINT64_FORMAT " is out of range "
                             "(%u frames)", idx, ld->frame_count);
          record_error (&ld->rd, error, at, msg);
          return FALSE;
        }
      g_array_index (ld->scratch, guint32, (guint) n_new - 1 - i) = (guint32) idx;
    }
  *pp = p;
  return TRUE;
}

/* Replaces the thread's stack above depth @keep by the new frames;
 * returns the depth from which the tree path must be walked again. */
static guint
apply_new_frames (Loader      *ld,
                  ThreadState *ts,
                  guint8       encoding,
                  guint        keep,
                  guint64      n_new)
{
  GArray *scratch = ld->scratch;

  if (encoding == REC_FULL)
    {
      /* reuse the nodes of the frames it shares with the last stack */
      while (keep < ts->frames->len && keep < n_new &&
             g_array_index (ts->frames, guint32, keep) == g_array_index (scratch, guint32, keep))
        keep++;
      g_array_set_size (ts->frames, keep);
      /* an empty FULL stack leaves scratch without storage */
      if (n_new > keep)
        g_array_append_vals (ts->frames, &g_array_index (scratch, guint32, keep),
                             (guint) n_new - keep);
    }
  else
    {
      g_array_set_size (ts->frames, keep);
      g_array_append_vals (ts->frames, scratch->data, (guint) n_new);
    }
  ts->has_stack = TRUE;
  return keep;
}

/* Counts the thread's current stack @weight times. */
static void
add_sample (Loader      *ld,
            ThreadState *ts,
            guint        keep,
            guint64      weight)
{
  extend_path (ld->profile, ts, MIN (keep, ts->nodes->len), ld->frame_ids);
  ld->max_time = MAX (ld->max_time, ts->time_us);
  /* the header counts every sample written, an empty stack too */
  ld->n_recorded += weight;
  /* a stack of hidden frames only is no sample, as in CPython */
  if (ts->frames->len > 0 &&
      g_array_index (ts->nodes, guint32, ts->frames->len - 1) != FLAME_TREE_ROOT)
    {
      guint32 leaf = g_array_index (ts->nodes, guint32, ts->frames->len - 1);
      flame_tree_add_self (flame_profile_get_tree (ld->profile), 0, leaf, (gdouble) weight);
      flame_profile_add_samples (ld->profile, 0, (gdouble) weight);
      ts->thread->samples += weight;
      ld->n_samples += weight;
    }
}

static gboolean
read_record (Loader        *ld,
             const guint8 **pp,
             const guint8  *end,
             GError       **error)
{
  const guint8 *p = *pp;
  gsize at = p - ld->rd.data;
  ThreadState *ts;
  guint8 encoding;
  guint64 weight = 1;
  guint keep = 0;

  if (!flame_input_tick (ld->in, MIN (at, ld->in->len), error))
    return FALSE;
  if (end - p < 13)
    {
      record_error (&ld->rd, error, at, "truncated record header");
      return FALSE;
    }
  /* interpreter id: threads are told apart by their id alone */
  ts = ensure_thread (ld, rd64 (p, ld->swap));
  encoding = p[12];
  p += 13;

  if (encoding == REC_REPEAT)
    {
      if (!read_repeat (ld, ts, &p, end, at, &weight, error))
        return FALSE;
      keep = ts->frames->len;
    }
  else if (encoding <= REC_POP_PUSH)
    {
      guint64 n_new;

      if (!read_stack_head (ld, ts, encoding, &p, end, at, &keep, &n_new, error) ||
          !read_new_frames (ld, &p, end, at, keep, n_new, error))
        return FALSE;
      keep = apply_new_frames (ld, ts, encoding, keep, n_new);
    }
  else
    {
      g_autofree char *msg = g_strdup_printf ("unknown record encoding %u", encoding);
      record_error (&ld->rd, error, at + 12, msg);
      return FALSE;
    }

  add_sample (ld, ts, keep, weight);
  *pp = p;
  return TRUE;
}

static gboolean
read_records (Loader  *ld,
              GError **error)
{
  const guint8 *p = ld->rd.data;
  const guint8 *end = ld->rd.data + ld->rd.len;

  ld->scratch = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld->threads = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, thread_state_free);
  while (p < end)
    if (!read_record (ld, &p, end, error))
      return FALSE;
  return TRUE;
}

FlameProfile *
flame_cpython_binary_load (FlameInput  *in,
                           GError     **error)
{
  Loader ld = { 0 };
  FlameProfile *profile = NULL;

  ld.in = in;
  ld.file = (const guint8 *) in->data;
  ld.len = in->len;
  if (!read_magic_and_footer (&ld, error) || !read_header (&ld, error))
    goto out;
  create_profile (&ld);
  if (!read_string_table (&ld, error) || !read_frame_table (&ld, error) ||
      !open_sample_data (&ld, error) || !read_records (&ld, error))
    goto out;

  if (ld.max_time > ld.start_us)
    flame_profile_set_duration_ms (ld.profile, (ld.max_time - ld.start_us) / 1000.0);
  if (ld.h.total_samples != 0 && ld.h.total_samples != ld.n_recorded)
    flame_profile_add_warning (ld.profile, "%s: the header counts %" G_GUINT64_FORMAT
                               " samples, the records hold %" G_GUINT64_FORMAT,
                               in->name, ld.h.total_samples, ld.n_recorded);
  if (ld.n_repaired > 0)
    flame_profile_add_warning (ld.profile, "%s: %u %s not valid UTF-8; as in CPython's "
                               "reader, the invalid bytes are shown as “\xef\xbf\xbd”",
                               in->name, ld.n_repaired,
                               ld.n_repaired == 1 ? "name is" : "names are");
  if (ld.n_samples == 0)
    {
      /* as for folded stacks: nothing to show or compare */
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no samples in the file");
      goto out;
    }
  flame_profile_finish (ld.profile);
  profile = g_steal_pointer (&ld.profile);

out:
  loader_clear (&ld);
  return profile;
}

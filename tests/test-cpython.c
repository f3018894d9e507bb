/* test-cpython.c: CPython 3.15 profiling.sampling output: --binary files
 * written here from the specification (docs/formats.md: both header
 * layouts, zstd, the other byte order, every record type, truncation),
 * and --collapsed text.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With --write-seeds DIR it writes the binary files it builds into DIR
 * (the fuzz seeds in tests/fuzz/seeds/cpython-binary came from here).
 *
 * tests/data/cpython holds files written by real CPython 3.15.2 and what
 * its own --diff-flamegraph makes of them (README.md there); the /real
 * tests compare flamediff-cli's output with that, path for path.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <zstd.h>

#include "flame-diff.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-test-stacks.h"
#include "flame-test-utils.h"

static FlameProfile *
load_bytes (const char  *name,
            const void  *data,
            gsize        len,
            GError     **error)
{
  g_autoptr(GBytes) raw = g_bytes_new (data, len);
  g_autoptr(GBytes) bytes = flame_decode_bytes (name, raw, NULL, error);

  if (bytes == NULL)
    return NULL;
  return flame_load_bytes (name, bytes, NULL, NULL, NULL, error);
}

/* ---- the writer ---- */

typedef struct
{
  gboolean older;     /* u32 sample count, no mode field */
  gboolean zstd;
  gboolean swapped;   /* written by a machine of the other byte order */
  gboolean stats;     /* a 56-byte TACHSTAT block before the footer */
} Layout;

static void
put_svarint (GByteArray *b,
             gint64      v)
{
  flame_test_put_varint (b, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static void
put_u8 (GByteArray *b,
        guint8      v)
{
  g_byte_array_append (b, &v, 1);
}

static void
put_u32 (GByteArray   *b,
         const Layout *l,
         guint32       v)
{
  if (l->swapped)
    v = GUINT32_SWAP_LE_BE (v);
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put_u64 (GByteArray   *b,
         const Layout *l,
         guint64       v)
{
  if (l->swapped)
    v = GUINT64_SWAP_LE_BE (v);
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

static void
set_u64 (GByteArray   *b,
         const Layout *l,
         gsize         at,
         guint64       v)
{
  if (l->swapped)
    v = GUINT64_SWAP_LE_BE (v);
  memcpy (b->data + at, &v, 8);
}

static void
record_head (GByteArray   *b,
             const Layout *l,
             guint64       tid,
             guint8        encoding)
{
  put_u64 (b, l, tid);
  put_u32 (b, l, 0);  /* interpreter */
  put_u8 (b, encoding);
}

/* frames are innermost first, as in the file */
static void
rec_full (GByteArray   *b,
          const Layout *l,
          guint64       tid,
          guint64       dt,
          const guint  *frames,
          guint         n)
{
  record_head (b, l, tid, 1);
  flame_test_put_varint (b, dt);
  put_u8 (b, 3);
  flame_test_put_varint (b, n);
  for (guint i = 0; i < n; i++)
    flame_test_put_varint (b, frames[i]);
}

static void
rec_repeat (GByteArray   *b,
            const Layout *l,
            guint64       tid,
            guint         count,
            guint64       dt)
{
  record_head (b, l, tid, 0);
  flame_test_put_varint (b, count);
  for (guint i = 0; i < count; i++)
    {
      flame_test_put_varint (b, dt);
      put_u8 (b, 1);
    }
}

static void
rec_delta (GByteArray   *b,
           const Layout *l,
           guint64       tid,
           guint8        encoding,
           guint64       dt,
           guint         a,
           const guint  *frames,
           guint         n)
{
  record_head (b, l, tid, encoding);
  flame_test_put_varint (b, dt);
  put_u8 (b, 1);
  flame_test_put_varint (b, a);
  flame_test_put_varint (b, n);
  for (guint i = 0; i < n; i++)
    flame_test_put_varint (b, frames[i]);
}

static const char *const strings[] = {
  "main.py", "<module>", "run", "work", "helper", "~", "<GC>", "lib.py", "Parser.parse",
};

/* frame i: (file, func, line) */
static const guint frame_defs[][3] = {
  { 0, 1, 1 },    /* 0 main.py:<module>:1 */
  { 0, 2, 10 },   /* 1 main.py:run:10 */
  { 0, 3, 20 },   /* 2 main.py:work:20 */
  { 0, 4, 30 },   /* 3 main.py:helper:30 */
  { 5, 6, 0 },    /* 4 <GC> */
  { 7, 8, 5 },    /* 5 lib.py:Parser.parse:5 */
  { 0, 3, 21 },   /* 6 main.py:work:21 (another line of work) */
};

#define START_US 1767225600000000ull  /* 2026-01-01 00:00:00 UTC */

/* Two threads; every record type. Expected stacks (see test_binary):
 *   thread 1: <module>;run;work ×1, then ×3 more (REPEAT),
 *             <module>;run;helper (POP_PUSH 1/1) ×1,
 *             <module>;run;work;<GC> (SUFFIX keep 2, new work,<GC>) ×1,
 *   thread 2: <module>;Parser.parse ×2 (FULL then FULL with same stack),
 *             <module>;run;work(21) (POP_PUSH 1, push 2) ×1 */
static GByteArray *
write_profile (const Layout *l)
{
  GByteArray *b = g_byte_array_new ();
  g_autoptr(GByteArray) samples = g_byte_array_new ();
  gsize str_off, frame_off, sample_end;
  guint8 zero[64] = { 0 };

  rec_full (samples, l, 1, 1000, (const guint[]) { 2, 1, 0 }, 3);
  rec_full (samples, l, 2, 1500, (const guint[]) { 5, 0 }, 2);
  rec_repeat (samples, l, 1, 3, 1000);
  rec_delta (samples, l, 1, 3, 1000, 1, (const guint[]) { 3 }, 1);         /* POP_PUSH */
  rec_full (samples, l, 2, 1000, (const guint[]) { 5, 0 }, 2);
  rec_delta (samples, l, 1, 2, 1000, 2, (const guint[]) { 4, 2 }, 2);      /* SUFFIX */
  rec_delta (samples, l, 2, 3, 1000, 1, (const guint[]) { 6, 1 }, 2);      /* POP_PUSH */

  /* header, patched below */
  g_byte_array_append (b, zero, 64);

  if (l->zstd)
    {
      gsize bound = ZSTD_compressBound (samples->len);
      g_autofree guint8 *z = g_malloc (bound);
      gsize zlen = ZSTD_compress (z, bound, samples->data, samples->len, 3);
      g_assert_false (ZSTD_isError (zlen));
      g_byte_array_append (b, z, zlen);
    }
  else
    g_byte_array_append (b, samples->data, samples->len);
  sample_end = b->len;

  str_off = b->len;
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    {
      flame_test_put_varint (b, strlen (strings[i]));
      g_byte_array_append (b, (const guint8 *) strings[i], strlen (strings[i]));
    }
  frame_off = b->len;
  for (guint i = 0; i < G_N_ELEMENTS (frame_defs); i++)
    {
      flame_test_put_varint (b, frame_defs[i][0]);
      flame_test_put_varint (b, frame_defs[i][1]);
      put_svarint (b, frame_defs[i][2]);
      put_svarint (b, 0);
      put_svarint (b, -1);
      put_svarint (b, 0);
      put_u8 (b, 255);
    }
  if (l->stats)
    {
      guint8 stats[56] = { 0 };
      memcpy (stats + 40, "TACHSTAT", 8);
      g_byte_array_append (b, stats, sizeof stats);
    }
  put_u32 (b, l, G_N_ELEMENTS (strings));
  put_u32 (b, l, G_N_ELEMENTS (frame_defs));
  put_u64 (b, l, b->len + 8 + 16);
  g_byte_array_append (b, zero, 16);

  /* the header */
  {
    g_autoptr(GByteArray) h = g_byte_array_new ();
    put_u32 (h, l, 0x54414348);
    put_u32 (h, l, 1);
    put_u8 (h, 3), put_u8 (h, 15), put_u8 (h, 0), put_u8 (h, 0);
    put_u64 (h, l, START_US);
    put_u64 (h, l, 250);          /* 250 µs: 4 kHz */
    if (l->older)
      put_u32 (h, l, 9);
    else
      put_u64 (h, l, 9);
    put_u32 (h, l, 2);
    put_u64 (h, l, str_off);
    put_u64 (h, l, frame_off);
    put_u32 (h, l, l->zstd ? 1 : 0);
    if (!l->older)
      put_u32 (h, l, 1);          /* mode 0 (wall) + 1 */
    g_assert_cmpuint (h->len, <=, 64);
    memcpy (b->data, h->data, h->len);
  }
  (void) sample_end;
  (void) set_u64;
  return b;
}

static void
check_profile (FlameProfile *profile)
{
  g_autoptr(GHashTable) stacks = flame_test_stacks (profile, 0);
  GPtrArray *threads = flame_profile_get_threads (profile);
  FlameThread *t1, *t2;
  FlameFrames *frames = flame_profile_get_frames (profile);
  gboolean saw_gc = FALSE;

  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "cpython-binary");
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_SAMPLES);
  g_assert_cmpfloat (flame_profile_get_interval_ms (profile), ==, 0.25);
  g_assert_cmpfloat (flame_profile_get_samples (profile, 0), ==, 9);
  g_assert_cmpfloat (flame_profile_get_total_ms (profile, 0, 1), ==, 2.25);
  /* thread 1's last sample is 6 ms after the start */
  g_assert_cmpfloat (flame_profile_get_duration_ms (profile), ==, 6.0);
  g_assert_cmpuint (flame_profile_get_warnings (profile)->len, ==, 0);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "python-version"), ==, "3.15.0");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "start-time"), ==, "2026-01-01T00:00:00Z");

  g_assert_cmpuint (g_hash_table_size (stacks), ==, 4);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;run;work"), ==, 5);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;run;helper"), ==, 1);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;run;work;<GC>"), ==, 1);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;Parser.parse"), ==, 2);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;run"), ==, 0);

  g_assert_cmpuint (threads->len, ==, 2);
  t1 = g_ptr_array_index (threads, 0);
  t2 = g_ptr_array_index (threads, 1);
  g_assert_cmpint (t1->tid, ==, 1);
  g_assert_cmpfloat (t1->samples, ==, 6);
  g_assert_cmpint (t2->tid, ==, 2);
  g_assert_cmpfloat (t2->samples, ==, 3);

  for (guint f = 0; f < flame_frames_count (frames); f++)
    {
      const char *name = flame_frames_get_name (frames, f);
      const FlameFrame *fr = flame_frames_get (frames, f);

      if (strcmp (name, "<GC>") == 0)
        {
          /* the "~" pseudo-file is dropped */
          g_assert_cmpuint (fr->file, ==, 0);
          saw_gc = TRUE;
        }
      else if (strcmp (name, "Parser.parse") == 0)
        {
          g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "lib.py");
          g_assert_cmpuint (fr->line, ==, 5);
        }
    }
  g_assert_true (saw_gc);
}

static const Layout layouts[] = {
  { FALSE, FALSE, FALSE, FALSE },
  { TRUE,  FALSE, FALSE, FALSE },
  { FALSE, TRUE,  FALSE, FALSE },
  { TRUE,  TRUE,  FALSE, TRUE  },
  { FALSE, FALSE, TRUE,  TRUE  },
  { TRUE,  TRUE,  TRUE,  FALSE },
};

static void
test_binary (gconstpointer data)
{
  const Layout *l = data;
  g_autoptr(GByteArray) b = write_profile (l);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("baseline.bin", b->data, b->len, &error);

  g_assert_no_error (error);
  check_profile (profile);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "compression"), ==,
                   l->zstd ? "zstd" : "none");
  g_assert_true (g_str_has_prefix (flame_profile_get_metadata (profile, "header-layout"),
                                   l->older ? "older" : "current"));
  if (!l->older)
    g_assert_cmpstr (flame_profile_get_metadata (profile, "profiling-mode"), ==, "0");
  if (l->swapped)
    g_assert_cmpmem (b->data, 4, "TACH", 4);
  else
    g_assert_cmpmem (b->data, 4, "HCAT", 4);
}

/* Every truncation fails with the file name and a byte offset; every
 * single-byte change loads or fails cleanly. */
static void
test_truncated_and_corrupt (gconstpointer data)
{
  const Layout *l = data;
  g_autoptr(GByteArray) b = write_profile (l);

  for (guint cut = 0; cut < b->len; cut++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile = load_bytes ("cut.bin", b->data, cut, &error);

      g_assert_null (profile);
      g_assert_nonnull (error);
      if (cut >= 4 && !g_str_has_prefix (error->message, "cut.bin: byte "))
        g_error ("cut at %u: %s", cut, error->message);
    }
  for (guint at = 0; at < b->len; at++)
    for (guint v = 0; v < 256; v += 37)
      {
        g_autoptr(GByteArray) c = g_byte_array_sized_new (b->len);
        g_autoptr(GError) error = NULL;
        g_autoptr(FlameProfile) profile = NULL;

        g_byte_array_append (c, b->data, b->len);
        c->data[at] ^= (guint8) (v | 1);
        profile = load_bytes ("flip.bin", c->data, c->len, &error);
        g_assert_true ((profile == NULL) != (error == NULL));
      }
}

static void
expect_error (GByteArray *b,
              const char *reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("bad.bin", b->data, b->len, &error);

  g_assert_null (profile);
  g_assert_nonnull (error);
  if (!g_str_has_prefix (error->message, "bad.bin: byte ") ||
      strstr (error->message, reason) == NULL)
    g_error ("unexpected message: %s (wanted “%s”)", error->message, reason);
}

/* CPython's reader decodes names with errors="replace": each maximal
 * ill-formed subsequence is one U+FFFD (the expected bytes are what
 * python3 printed for bytes.decode ("utf-8", "replace")) */
static void
test_utf8_replace (void)
{
  static const struct { const char *in; gsize len; const char *out; guint n; } cases[] = {
    { "ok", 2, "ok", 0 },
    { "a\xff" "b", 3, "a\xef\xbf\xbd" "b", 1 },
    { "\xe2\x82", 2, "\xef\xbf\xbd", 1 },
    { "\xe2\x82x", 3, "\xef\xbf\xbdx", 1 },
    { "\xf0\x9f\x98", 3, "\xef\xbf\xbd", 1 },
    { "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3 },
    { "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd", 2 },
    { "\xf4\x90\x80\x80", 4, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 4 },
    { "\xe0\x80\xaf", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3 },
    { "\x80\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd", 2 },
    { "caf\xc3", 4, "caf\xef\xbf\xbd", 1 },
    { "\xf0\x9f\x98\x80\xff", 5, "\xf0\x9f\x98\x80\xef\xbf\xbd", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      g_assert_cmpuint (flame_utf8_append_replacing (out, cases[i].in, cases[i].len), ==,
                        cases[i].n);
      g_assert_cmpstr (out->str, ==, cases[i].out);
    }
}

/* A name that is not UTF-8 (about one fresh `--binary` file in five
 * from CPython 3.15 holds one) loads as CPython's reader shows it,
 * with one warning; the samples are all there. A NUL, which Python
 * keeps and a name here cannot hold, reads U+FFFD too. */
static void
check_bad_name (const guint8  patch[2],
                const char   *expected)
{
  static const Layout l = { 0 };
  g_autoptr(GByteArray) good = write_profile (&l);
  g_autoptr(GByteArray) b = write_profile (&l);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) ref = load_bytes ("good.bin", good->data, good->len, &error);
  g_autoptr(FlameProfile) profile = NULL;
  FlameFrames *frames;
  GPtrArray *warnings;
  gboolean found = FALSE;
  guint64 str_off;

  g_assert_no_error (error);
  /* the first string, "main.py" after its length byte: bytes 4 and 5
   * are "n." */
  memcpy (&str_off, b->data + 40, 8);
  g_assert_cmpmem (b->data + str_off + 1, 7, "main.py", 7);
  b->data[str_off + 4] = patch[0];
  b->data[str_off + 5] = patch[1];
  profile = load_bytes ("bad.bin", b->data, b->len, &error);
  g_assert_no_error (error);
  g_assert_nonnull (profile);
  g_assert_cmpfloat (flame_profile_get_total_weight (profile, 0), ==,
                     flame_profile_get_total_weight (ref, 0));
  frames = flame_profile_get_frames (profile);
  for (guint f = 0; f < flame_frames_count (frames); f++)
    {
      const char *file = flame_frames_get_file (frames, f);

      g_assert_true (g_utf8_validate (file, -1, NULL));
      found |= g_strcmp0 (file, expected) == 0;
    }
  g_assert_true (found);
  warnings = flame_profile_get_warnings (profile);
  g_assert_nonnull (warnings);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "1 name is not valid UTF-8"));
}

static void
test_invalid_utf8_name (void)
{
  check_bad_name ((const guint8[]) { 0xff, 0xfe }, "mai\xef\xbf\xbd\xef\xbf\xbdpy");
  check_bad_name ((const guint8[]) { 0x00, '.' }, "mai\xef\xbf\xbd.py");
  check_bad_name ((const guint8[]) { 0x00, 0xc3 }, "mai\xef\xbf\xbd\xef\xbf\xbdpy");
}

/* Patches the sample data of an uncompressed current-layout file. */
static GByteArray *
with_records (void (*fill) (GByteArray *, const Layout *))
{
  static const Layout l = { 0 };
  g_autoptr(GByteArray) good = write_profile (&l);
  g_autoptr(GByteArray) recs = g_byte_array_new ();
  GByteArray *b = g_byte_array_new ();
  guint64 str_off, frame_off;
  gsize old_samples;

  memcpy (&str_off, good->data + 40, 8);
  memcpy (&frame_off, good->data + 48, 8);
  old_samples = str_off - 64;
  fill (recs, &l);
  g_byte_array_append (b, good->data, 64);
  g_byte_array_append (b, recs->data, recs->len);
  g_byte_array_append (b, good->data + str_off, good->len - str_off);
  str_off = str_off - old_samples + recs->len;
  frame_off = frame_off - old_samples + recs->len;
  set_u64 (b, &l, 40, str_off);
  set_u64 (b, &l, 48, frame_off);
  set_u64 (b, &l, b->len - 24, b->len);
  return b;
}

static void
fill_bad_index (GByteArray   *b,
                const Layout *l)
{
  rec_full (b, l, 1, 1, (const guint[]) { 2, 99 }, 2);
}

static void
fill_suffix_first (GByteArray   *b,
                   const Layout *l)
{
  rec_delta (b, l, 1, 2, 1, 0, (const guint[]) { 1 }, 1);
}

static void
fill_pop_too_many (GByteArray   *b,
                   const Layout *l)
{
  rec_full (b, l, 1, 1, (const guint[]) { 1, 0 }, 2);
  rec_delta (b, l, 1, 3, 1, 5, (const guint[]) { 1 }, 1);
}

static void
fill_bad_encoding (GByteArray   *b,
                   const Layout *l)
{
  record_head (b, l, 1, 9);
  flame_test_put_varint (b, 1);
}

static void
fill_huge_count (GByteArray   *b,
                 const Layout *l)
{
  rec_full (b, l, 1, 1, (const guint[]) { 1, 0 }, 2);
  record_head (b, l, 1, 0);
  flame_test_put_varint (b, G_MAXUINT64 / 3);
}

static void
fill_nothing (GByteArray   *b,
              const Layout *l)
{
}

static void
test_malformed (void)
{
  static const Layout l = { 0 };
  {
    g_autoptr(GByteArray) b = with_records (fill_bad_index);
    expect_error (b, "frame index 99 is out of range");
  }
  {
    g_autoptr(GByteArray) b = with_records (fill_suffix_first);
    expect_error (b, "SUFFIX record for a thread without a previous stack");
  }
  {
    g_autoptr(GByteArray) b = with_records (fill_pop_too_many);
    expect_error (b, "pops more frames");
  }
  {
    g_autoptr(GByteArray) b = with_records (fill_bad_encoding);
    expect_error (b, "unknown record encoding 9");
  }
  {
    g_autoptr(GByteArray) b = with_records (fill_huge_count);
    expect_error (b, "count runs past");
  }
  {
    g_autoptr(GByteArray) b = with_records (fill_nothing);
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) profile = load_bytes ("empty.bin", b->data, b->len, &error);
    g_assert_error (error, FLAME_ERROR, FLAME_ERROR_EMPTY);
  }
  {
    g_autoptr(GByteArray) b = write_profile (&l);
    b->data[4] = 2;
    expect_error (b, "version 2 is not supported");
  }
  {
    g_autoptr(GByteArray) b = write_profile (&l);
    b->data[56] = 7;
    expect_error (b, "unknown compression 7");
  }
  {
    /* a declared string count far beyond the table */
    g_autoptr(GByteArray) b = write_profile (&l);
    b->data[b->len - 32 + 3] = 0x7f;
    expect_error (b, "strings, more than");
  }
  {
    /* corrupt zstd */
    static const Layout lz = { FALSE, TRUE, FALSE, FALSE };
    g_autoptr(GByteArray) b = write_profile (&lz);
    memset (b->data + 64, 0x55, 8);
    expect_error (b, "zstd");
  }
}

/* A baseline replays into the same call tree whatever the layout: the
 * seed workflow's baseline.bin compared with a collapsed current run. */
static void
test_collapsed_vs_binary (void)
{
  static const char collapsed[] =
    "tid:1;main.py:<module>:1;main.py:run:10;main.py:work:20 4\n"
    "tid:2;main.py:<module>:1;lib.py:Parser.parse:5 2\n"
    "tid:1;main.py:<module>:1;main.py:run:10;main.py:work:20;<GC> 1\n"
    "tid:2;main.py:<module>:1;main.py:run:10;main.py:work:21 1\n"
    "tid:1;main.py:<module>:1;main.py:run:10;main.py:helper:30 1\n";
  static const Layout l = { 0 };
  g_autoptr(GByteArray) b = write_profile (&l);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) base = load_bytes ("baseline.bin", b->data, b->len, &error);
  g_autoptr(FlameProfile) cur = load_bytes ("current.txt", collapsed, strlen (collapsed), &error);
  g_autoptr(GHashTable) sb = NULL;
  g_autoptr(GHashTable) sc = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  GHashTableIter it;
  gpointer k, v;

  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (cur), ==, "cpython-collapsed");
  sb = flame_test_stacks (base, 0);
  sc = flame_test_stacks (cur, 0);
  g_assert_cmpuint (g_hash_table_size (sb), ==, g_hash_table_size (sc));
  g_hash_table_iter_init (&it, sb);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_assert_cmpfloat (flame_test_stack_weight (sc, k), ==, *(gdouble *) v);

  /* and they diff as equal, frame for frame (name + file) */
  diff = flame_diff_new (base, cur, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (flame_frames_count (flame_profile_get_frames (base)), ==,
                    flame_frames_count (flame_profile_get_frames (cur)));
}

static void
test_collapsed (void)
{
  /* CPython's own expected output, plus threads, <frozen ...> with its
   * space, special frames and an async task frame */
  static const char text[] =
    "tid:1;file.py:func2:20;file.py:func1:10 2\n"
    "tid:7;<frozen importlib._bootstrap>:_call_with_frames_removed:488;mod.py:Cls.meth:3 5\n"
    "tid:7;mod.py:<module>:1;<GC> 1\n"
    "tid:1;<task>:Task-3 (2 parents):0;mod.py:coro:9 1\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("collapsed.txt", text, strlen (text), &error);
  g_autoptr(GHashTable) stacks = NULL;
  FlameFrames *frames;
  GPtrArray *threads;
  guint checked = 0;

  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "cpython-collapsed");
  stacks = flame_test_stacks (profile, 0);
  /* the tid root is no frame */
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "func2;func1"), ==, 2);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "_call_with_frames_removed;Cls.meth"), ==, 5);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;<GC>"), ==, 1);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "Task-3 (2 parents);coro"), ==, 1);

  frames = flame_profile_get_frames (profile);
  for (guint f = 0; f < flame_frames_count (frames); f++)
    {
      const char *name = flame_frames_get_name (frames, f);
      const FlameFrame *fr = flame_frames_get (frames, f);

      g_assert_false (fr->flags & FLAME_FRAME_THREAD);
      if (strcmp (name, "func2") == 0)
        {
          g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "file.py");
          g_assert_cmpuint (fr->line, ==, 20);
          checked++;
        }
      else if (strcmp (name, "_call_with_frames_removed") == 0)
        {
          g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "<frozen importlib._bootstrap>");
          g_assert_cmpuint (fr->line, ==, 488);
          checked++;
        }
      else if (strcmp (name, "Cls.meth") == 0)
        {
          g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "mod.py");
          checked++;
        }
      else if (strcmp (name, "<GC>") == 0)
        {
          g_assert_cmpuint (fr->file, ==, 0);
          checked++;
        }
    }
  g_assert_cmpuint (checked, ==, 4);

  threads = flame_profile_get_threads (profile);
  g_assert_cmpuint (threads->len, ==, 2);
  g_assert_cmpint (((FlameThread *) g_ptr_array_index (threads, 0))->tid, ==, 1);
  g_assert_cmpfloat (((FlameThread *) g_ptr_array_index (threads, 0))->samples, ==, 3);
  g_assert_cmpint (((FlameThread *) g_ptr_array_index (threads, 1))->tid, ==, 7);
  g_assert_cmpfloat (((FlameThread *) g_ptr_array_index (threads, 1))->samples, ==, 6);
}

/* Ordinary folded files that merely mention "tid" stay folded. */
static void
test_collapsed_not_cpython (void)
{
  static const char text[] = "main;tid:1;work 3\nmain;run 1\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("plain.folded", text, strlen (text), &error);
  g_autoptr(GHashTable) stacks = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "folded");
  stacks = flame_test_stacks (profile, 0);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "main;tid:1;work"), ==, 3);
}

static void
test_cli_info (void)
{
  static const Layout l = { 0 };
  g_autoptr(GByteArray) b = write_profile (&l);
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cpython-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "baseline.bin", NULL);
  const char *cli = g_getenv ("FLAMEDIFF_CLI");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  gint status = 0;
  const char *argv[] = { cli, "info", path, NULL };

  if (cli == NULL)
    {
      g_test_skip ("FLAMEDIFF_CLI is not set");
      return;
    }
  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len, NULL));
  g_assert_true (
    g_spawn_sync (NULL, (char **) argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "Format:    cpython-binary"));
  g_assert_nonnull (strstr (out, "Threads:   2"));
  g_assert_nonnull (strstr (out, "Thread 1 tid 1: 6 samples"));
  g_assert_nonnull (strstr (out, "Thread 2 tid 2: 3 samples"));
  g_assert_nonnull (strstr (out, "Interval:  0.25 ms"));
  g_unlink (path);
  g_rmdir (dir);
}

/* The profiler's own runner frames leave every stack, wherever they are,
 * and a stack of nothing else is no sample. */
static void
test_collapsed_internal (void)
{
  static const char text[] =
    "tid:1;/usr/lib/python3.15/profiling/sampling/_sync_coordinator.py:main:250;"
    "_sync_coordinator.py:_execute_script:190;app.py:<module>:1;app.py:work:5 3\n"
    "tid:1;<frozen runpy>:_run_code:87;_sync_coordinator.py:main:250 2\n"
    "tid:1;_sync_coordinator.py:main:250;_sync_coordinator.py:_signal_readiness:90 4\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("collapsed.txt", text, strlen (text), &error);
  g_autoptr(GHashTable) stacks = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "cpython-collapsed");
  stacks = flame_test_stacks (profile, 0);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 2);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "<module>;work"), ==, 3);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "_run_code"), ==, 2);
  g_assert_cmpfloat (flame_profile_get_samples (profile, 0), ==, 5);
  /* hidden stacks are not malformed lines */
  g_assert_cmpuint (flame_profile_get_warnings (profile)->len, ==, 0);
}

/* ---- real CPython 3.15.2 files (tests/data/cpython/README.md) ---- */

typedef struct
{
  const char *current;
  const char *expected;
  gboolean    exact_paths;
  /* CPython's numbers are samples of the current run's interval;
   * flamediff-cli writes samples when both intervals are equal, else ms
   * ("# flamediff-folded unit=ms"): the current interval in ms, 0 for
   * samples */
  gdouble     ms_per_sample;
} RealCase;

/* $FLAMEDIFF_CPYTHON_DATA: files just made by tools/cpython-fixtures.py
 * (tools/cpython-live-check.sh) instead of the committed ones */
static char *
real_path (const char *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_CPYTHON_DATA");

  if (dir != NULL)
    return g_build_filename (dir, name, NULL);
  return g_test_build_filename (G_TEST_DIST, "data", "cpython", name, NULL);
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
format_number (char    *buf,
               gsize    size,
               gdouble  v)
{
  if (v == floor (v))
    g_snprintf (buf, size, "%.0f", v);
  else
    {
      gsize len;

      g_ascii_formatd (buf, size, "%.6f", v);
      for (len = strlen (buf); buf[len - 1] == '0'; len--)
        buf[len - 1] = 0;
    }
}

/* @line "stack BASELINE CURRENT" with both numbers × @factor, written as
 * the folded writer writes them (integers, else up to 6 decimals) */
static char *
scale_line (const char *line,
            gdouble     factor)
{
  g_auto(GStrv) parts = g_strsplit (line, " ", -1);
  guint n = g_strv_length (parts);

  g_assert_cmpuint (n, >=, 3);
  for (guint i = n - 2; i < n; i++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      format_number (buf, sizeof buf, g_ascii_strtod (parts[i], NULL) * factor);
      g_free (parts[i]);
      parts[i] = g_strdup (buf);
    }
  return g_strjoinv (" ", parts);
}

/* The stack lines of folded text, sorted; "# elided_count N" into
 * @elided; numbers × @factor. */
static GPtrArray *
sorted_lines (const char *text,
              guint      *elided,
              gdouble     factor)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "# elided_count ") && elided != NULL)
        *elided = (guint) g_ascii_strtoull (lines[i] + 15, NULL, 10);
      else if (lines[i][0] != 0 && lines[i][0] != '#')
        g_ptr_array_add (out, factor != 1 ? scale_line (lines[i], factor) : g_strdup (lines[i]));
    }
  g_ptr_array_sort (out, compare_strings);
  return out;
}

/* Fresh files of CPython 3.15.2 hold a name that is not UTF-8 now and
 * then; that warning is expected, any other is a defect. */
static gboolean
is_repaired_name_warning (const char *line)
{
  return strstr (line, "not valid UTF-8; as in CPython's reader") != NULL;
}

static void
assert_real_warnings (FlameProfile *profile)
{
  GPtrArray *warnings = flame_profile_get_warnings (profile);

  for (guint i = 0; i < warnings->len; i++)
    if (!is_repaired_name_warning (g_ptr_array_index (warnings, i)))
      g_error ("%s", (const char *) g_ptr_array_index (warnings, i));
}

static void
test_real_diff (gconstpointer data)
{
  const RealCase *c = data;
  g_autofree char *base_path = real_path ("base.bin");
  g_autofree char *cur_path = real_path (c->current);
  g_autofree char *exp_path = real_path (c->expected);
  g_autofree char *expected_text = NULL;
  g_autoptr(GPtrArray) expected = NULL;
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) base = NULL;
  g_autoptr(FlameProfile) cur = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_auto(FlameTestRun) run = { 0 };
  FlameDiffOptions opts;
  guint elided = G_MAXUINT;
  /* --normalize none is absolute time, CPython 3.15.2's rule (the
   * baseline only converted to the current run's interval, equal here) */
  const char *args[] = { "compare", "--normalize", "none", "--format", "folded",
                         base_path, cur_path, c->exact_paths ? "--exact-paths" : NULL, NULL };

  g_assert_true (g_file_get_contents (exp_path, &expected_text, NULL, NULL));
  expected = sorted_lines (expected_text, &elided, c->ms_per_sample > 0 ? c->ms_per_sample : 1);
  g_assert_cmpuint (elided, !=, G_MAXUINT);
  g_assert_cmpuint (expected->len, >, 10);

  /* node for node: baseline and current self per call path */
  flame_test_run_cli (&run, args);
  {
    g_auto(GStrv) lines = g_strsplit (run.err, "\n", -1);

    for (guint i = 0; lines[i] != NULL; i++)
      if (lines[i][0] != 0 && !is_repaired_name_warning (lines[i]))
        g_error ("flamediff-cli printed: %s", lines[i]);
  }
  g_assert_cmpint (run.status, ==, 0);
  got = sorted_lines (run.out, NULL, 1);
  for (guint i = 0; i < MAX (got->len, expected->len); i++)
    g_assert_cmpstr (i < got->len ? g_ptr_array_index (got, i) : NULL, ==,
                     i < expected->len ? g_ptr_array_index (expected, i) : NULL);

  /* the elided count: vanished call paths with baseline self samples */
  base = flame_load_file (base_path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  cur = flame_load_file (cur_path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_real_warnings (base);
  assert_real_warnings (cur);
  flame_diff_options_init (&opts);
  opts.normalize = FLAME_NORMALIZE_ABSOLUTE;
  opts.exact_paths = c->exact_paths;
  diff = flame_diff_new (base, cur, &opts, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (flame_diff_get_elided_stacks (diff), ==, elided);
}

/* The real files' stacks hold the profiler's runner frames; none load. */
static void
test_real_internal_frames (void)
{
  g_autofree char *path = real_path ("base.bin");
  g_autofree char *raw = NULL;
  gsize raw_len;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  FlameFrames *frames;

  g_assert_true (g_file_get_contents (path, &raw, &raw_len, NULL));
  g_assert_nonnull (memmem (raw, raw_len, "profiling/sampling/_sync_coordinator.py", 39));
  profile = flame_load_file (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  frames = flame_profile_get_frames (profile);
  for (guint f = 0; f < flame_frames_count (frames); f++)
    {
      g_assert_false (g_str_has_suffix (flame_frames_get_file (frames, f), "_sync_coordinator.py"));
      g_assert_cmpstr (flame_frames_get_name (frames, f), !=, "_execute_script");
    }
  /* the header's count holds the samples of every record */
  assert_real_warnings (profile);
}

static int
write_seeds (const char *dir)
{
  g_mkdir_with_parents (dir, 0755);
  for (guint i = 0; i < G_N_ELEMENTS (layouts); i++)
    {
      g_autoptr(GByteArray) b = write_profile (&layouts[i]);
      g_autofree char *name = g_strdup_printf ("%s/layout-%u.bin", dir, i);
      if (!g_file_set_contents (name, (const char *) b->data, b->len, NULL))
        return 1;
    }
  return 0;
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--write-seeds") == 0)
    return write_seeds (argv[2]);

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (layouts); i++)
    {
      const Layout *l = &layouts[i];
      g_autofree char *suffix = g_strdup_printf ("%s%s%s%s", l->older ? "older" : "current",
                                                 l->zstd ? "-zstd" : "",
                                                 l->swapped ? "-swapped" : "",
                                                 l->stats ? "-stats" : "");
      g_autofree char *p1 = g_strconcat ("/cpython/binary/", suffix, NULL);
      g_autofree char *p2 = g_strconcat ("/cpython/binary/truncated-corrupt/", suffix, NULL);
      g_test_add_data_func (p1, l, test_binary);
      g_test_add_data_func (p2, l, test_truncated_and_corrupt);
    }
  g_test_add_func ("/cpython/binary/malformed", test_malformed);
  g_test_add_func ("/cpython/binary/utf8-replace", test_utf8_replace);
  g_test_add_func ("/cpython/binary/invalid-utf8-name", test_invalid_utf8_name);
  g_test_add_func ("/cpython/binary/vs-collapsed", test_collapsed_vs_binary);
  g_test_add_func ("/cpython/binary/cli-info", test_cli_info);
  g_test_add_func ("/cpython/collapsed", test_collapsed);
  g_test_add_func ("/cpython/collapsed/not-cpython", test_collapsed_not_cpython);
  g_test_add_func ("/cpython/collapsed/internal-frames", test_collapsed_internal);
  g_test_add_func ("/cpython/real/internal-frames", test_real_internal_frames);
  {
    /* the same checkout; another checkout, which must not matter; and
     * another checkout matched by full paths, as CPython 3.15.2 does */
    static const RealCase same = { "cur.bin", "diff.expected", FALSE, 0 };
    static const RealCase moved = { "cur-moved.bin", "diff.expected", FALSE, 0 };
    static const RealCase exact = { "cur-moved.bin", "diff-moved.expected", TRUE, 0 };
    /* the current run at 500 Hz: every call path still matches, both
     * columns in ms (CPython's samples of 2 ms × 2) */
    static const RealCase rate = { "cur-500hz.bin", "diff-500hz.expected", FALSE, 2 };
    g_test_add_data_func ("/cpython/real/diff", &same, test_real_diff);
    g_test_add_data_func ("/cpython/real/diff-other-checkout", &moved, test_real_diff);
    g_test_add_data_func ("/cpython/real/diff-exact-paths", &exact, test_real_diff);
    g_test_add_data_func ("/cpython/real/diff-other-rate", &rate, test_real_diff);
  }
  return g_test_run ();
}

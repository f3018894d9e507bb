/* test-sysprof.c: Sysprof captures (src/core/formats/flame-sysprof.c).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The captures here are written frame by frame after Sysprof's
 * sysprof-capture-types.h (format 1, little-endian): a process that
 * forks a child which does not exec, maps, a JIT map, CPU samples with
 * kernel and user frames, allocations and frees, the symbols bundle
 * (gzip, in two chunks) and /proc/kallsyms. Real captures of Sysprof 51
 * are checked in CI by tools/sysprof-check.sh.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <zlib.h>

#include "flame-error.h"
#include "flame-loader.h"
#include "flame-memory.h"
#include "flame-perf-resolver.h"
#include "flame-test-utils.h"

#define K_CONTEXT ((guint64) -128)
#define U_CONTEXT ((guint64) -512)
#define JIT_MARK  G_GUINT64_CONSTANT (0xe000000000000000)

static void
put (GByteArray *b,
     const void *data,
     gsize       len)
{
  g_byte_array_append (b, data, len);
}

static void
put16 (GByteArray *b, guint16 v) { v = GUINT16_TO_LE (v); put (b, &v, 2); }
static void
put32 (GByteArray *b, guint32 v) { v = GUINT32_TO_LE (v); put (b, &v, 4); }
static void
put64 (GByteArray *b, guint64 v) { v = GUINT64_TO_LE (v); put (b, &v, 8); }

/* One frame at @time (ns): the 24-byte head, @payload, padded to 8 bytes */
static void
frame_at (GByteArray *b,
          guint8      type,
          gint32      pid,
          gint64      time,
          GByteArray *payload)
{
  gsize len = 24 + payload->len;
  gsize padded = (len + 7) & ~(gsize) 7;
  static const guint8 zeros[8] = { 0 };

  put16 (b, (guint16) padded);
  put16 (b, 0);
  put32 (b, (guint32) pid);
  put64 (b, (guint64) time);
  put32 (b, type);
  put32 (b, 0);
  put (b, payload->data, payload->len);
  put (b, zeros, padded - len);
}

static void
frame (GByteArray *b,
       guint8      type,
       gint32      pid,
       GByteArray *payload)
{
  frame_at (b, type, pid, 1000000000, payload);
}

static void
process (GByteArray *b,
         gint32      pid,
         const char *cmdline)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();

  put (p, cmdline, strlen (cmdline) + 1);
  frame (b, 4, pid, p);
}

static void
map (GByteArray *b,
     gint32      pid,
     guint64     start,
     guint64     end,
     guint64     offset,
     const char *file)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();

  put64 (p, start);
  put64 (p, end);
  put64 (p, offset);
  put64 (p, 42);
  put (p, file, strlen (file) + 1);
  frame (b, 3, pid, p);
}

static void
sample (GByteArray    *b,
        gint32         pid,
        gint32         tid,
        const guint64 *addrs,
        guint          n)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();

  put32 (p, n);
  put32 (p, (guint32) tid);
  for (guint i = 0; i < n; i++)
    put64 (p, addrs[i]);
  frame (b, 2, pid, p);
}

/* An allocation of @size bytes at @addr (a free: size 0 or less) at @time */
static void
allocation_at (GByteArray    *b,
               gint32         pid,
               gint64         time,
               guint64        addr,
               gint64         size,
               const guint64 *addrs,
               guint          n)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();

  put64 (p, addr);
  put64 (p, (guint64) size);
  put32 (p, (guint32) pid);
  put32 (p, n);
  for (guint i = 0; i < n; i++)
    put64 (p, addrs[i]);
  frame_at (b, 14, pid, time, p);
}

static void
allocation (GByteArray    *b,
            gint32         pid,
            gint64         size,
            const guint64 *addrs,
            guint          n)
{
  allocation_at (b, pid, 1000000000, 0x1000, size, addrs, n);
}

static void
chunk (GByteArray   *b,
       const char   *path,
       const guint8 *data,
       gsize         len,
       gboolean      last)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();
  char name[256] = { 0 };

  put32 (p, (guint32) (len << 16) | (last ? 1 : 0));
  g_strlcpy (name, path, sizeof name);
  put (p, name, sizeof name);
  put (p, data, len);
  frame (b, 13, 0, p);
}

static GBytes *
gzip_bytes (const guint8 *data,
            gsize         len)
{
  z_stream zs = { 0 };
  guint8 *out = g_malloc (len + 1024);

  g_assert_cmpint (deflateInit2 (&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), ==,
                   Z_OK);
  zs.next_in = (Bytef *) data;
  zs.avail_in = (uInt) len;
  zs.next_out = out;
  zs.avail_out = (uInt) len + 1024;
  g_assert_cmpint (deflate (&zs, Z_FINISH), ==, Z_STREAM_END);
  deflateEnd (&zs);
  return g_bytes_new_take (out, zs.total_out);
}

typedef struct
{
  guint64     begin, end;
  gint32      pid;
  const char *name;
} BundleSymbol;

/* The bundle: (addr_begin, addr_end, pid, name, tag, padding) records,
 * an all-zero one, then the names (offset 0 is an empty string) */
static GByteArray *
bundle_of (const BundleSymbol *syms,
           guint               n_syms)
{
  GByteArray *b = g_byte_array_new ();
  g_autoptr(GByteArray) strings = g_byte_array_new ();
  gsize table = (n_syms + 1) * 32;

  g_byte_array_append (strings, (const guint8 *) "", 1);
  for (guint i = 0; i < n_syms; i++)
    {
      put64 (b, syms[i].begin);
      put64 (b, syms[i].end);
      put32 (b, (guint32) syms[i].pid);
      put32 (b, (guint32) (table + strings->len));
      put32 (b, 0);
      put32 (b, 0);
      put (strings, syms[i].name, strlen (syms[i].name) + 1);
    }
  for (guint i = 0; i < 32; i++)
    g_byte_array_append (b, (const guint8 *) "", 1);
  put (b, strings->data, strings->len);
  return b;
}

static GByteArray *
bundle (void)
{
  static const BundleSymbol syms[] = {
    { 0x400200, 0x400300, 100, "main" },
    { 0x400100, 0x400180, 100, "leaf_fn" },
  };

  return bundle_of (syms, G_N_ELEMENTS (syms));
}

/* @syms gzipped into the capture's symbols bundle */
static void
put_bundle (GByteArray         *b,
            const BundleSymbol *syms,
            guint               n_syms)
{
  g_autoptr(GByteArray) table = bundle_of (syms, n_syms);
  g_autoptr(GBytes) gz = gzip_bytes (table->data, table->len);
  gsize len;
  const guint8 *data = g_bytes_get_data (gz, &len);

  chunk (b, "__symbols__.gz", data, len, TRUE);
}

static GByteArray *
write_capture (void)
{
  GByteArray *b = g_byte_array_new ();
  g_autoptr(GByteArray) jit = g_byte_array_new ();
  g_autoptr(GByteArray) fork_child = g_byte_array_new ();
  g_autoptr(GByteArray) syms = bundle ();
  g_autoptr(GBytes) gz = gzip_bytes (syms->data, syms->len);
  const char *kallsyms = "ffffffff81000000 T do_syscall_64\n"
                         "ffffffff81000100 t not_this\n"
                         "ffffffff81000200 d data_symbol\n";
  char header[256] = { 0 };
  gsize gz_len;
  const guint8 *gz_data = g_bytes_get_data (gz, &gz_len);

  /* the header: magic, version 1, little-endian, capture time, start
   * and end (ns) */
  put32 (b, 0xfdca975e);
  header[0] = 1;
  header[1] = 1;
  put (b, header, 4);
  memset (header, 0, sizeof header);
  g_strlcpy (header, "2026-12-01T12:00:00Z", 64);
  put (b, header, 64);
  put64 (b, 1000000000);
  put64 (b, 3500000000);
  put (b, header + 64, 168);
  g_assert_cmpuint (b->len, ==, 256);

  process (b, 100, "/usr/bin/my app --flag");
  map (b, 100, 0x400000, 0x500000, 0, "/usr/bin/my app");
  map (b, 100, 0x7f0000000000, 0x7f0000100000, 0x1000, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  put32 (fork_child, 101);
  frame (b, 5, 100, fork_child);
  put32 (jit, 1);
  put64 (jit, JIT_MARK | 1);
  put (jit, "jit_fn", 7);
  frame (b, 7, 100, jit);

  /* leaf first: kernel frames after the kernel marker, then user ones */
  sample (b, 100, 100,
          (const guint64[]) { K_CONTEXT, 0xffffffff81000050, U_CONTEXT, 0x400110, 0x400250 }, 5);
  sample (b, 100, 100, (const guint64[]) { U_CONTEXT, 0x400120, 0x400250 }, 3);
  /* the child: its parent's name and maps; libc has no symbol */
  sample (b, 101, 101, (const guint64[]) { 0x7f0000000500, 0x400250 }, 2);
  sample (b, 100, 102, (const guint64[]) { JIT_MARK | 1, 0x400250 }, 2);
  /* an address nothing maps */
  sample (b, 100, 100, (const guint64[]) { 0x900000, 0x400250 }, 2);

  allocation (b, 100, 1000, (const guint64[]) { 0x400110, 0x400250 }, 2);
  allocation (b, 100, 3000, (const guint64[]) { 0x400250 }, 1);
  allocation (b, 100, -1000, (const guint64[]) { 0x400250 }, 1);  /* a free */

  chunk (b, "/proc/kallsyms", (const guint8 *) kallsyms, strlen (kallsyms), TRUE);
  chunk (b, "__symbols__.gz", gz_data, gz_len / 2, FALSE);
  chunk (b, "__symbols__.gz", gz_data + gz_len / 2, gz_len - gz_len / 2, TRUE);
  return b;
}

static FlameProfile *
load (GByteArray  *b,
      const char  *sample_type,
      GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (b->data, b->len);
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;

  options.sample_type = sample_type;
  return flame_load_bytes_full ("test.syscap", bytes, &options, NULL, NULL, NULL, error);
}

static int
compare_lines (const void *a,
               const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The folded stacks of @path, as `flamediff-cli convert` writes them, sorted */
static char *
folded (GByteArray *b,
        const char *sample_type)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-sysprof-XXXXXX", NULL);
  g_autofree char *in = g_build_filename (dir, "capture.syscap", NULL);
  g_autofree char *out = g_build_filename (dir, "out.folded", NULL);
  g_auto(FlameTestRun) r = { 0 };
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint n;

  g_assert_true (g_file_set_contents (in, (const char *) b->data, b->len, NULL));
  if (sample_type != NULL)
    flame_test_run_cli_va (&r, "convert", "--sample-type", sample_type, in, "-o", out, NULL);
  else
    flame_test_run_cli_va (&r, "convert", in, "-o", out, NULL);
  if (r.status != 0)
    g_error ("convert failed (%d): %s", r.status, r.err);
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  g_unlink (in);
  g_unlink (out);
  g_rmdir (dir);
  lines = g_strsplit (g_strstrip (text), "\n", -1);
  n = g_strv_length (lines);
  qsort (lines, n, sizeof (char *), compare_lines);
  return g_strjoinv ("\n", lines);
}

/* CPU samples: names from the bundle, the kernel's table, the JIT map,
 * the mapped file; the process as the root, as perf's comm */
static void
test_cpu (void)
{
  g_autoptr(GByteArray) b = write_capture ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load (b, NULL, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "sysprof");
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_SAMPLES);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "sample-type"), ==, "samples/count");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "capture-time"), ==,
                   "2026-12-01T12:00:00Z");
  g_assert_cmpfloat (flame_profile_get_total_weight (profile, 0), ==, 5);
  g_assert_cmpuint (flame_profile_get_threads (profile)->len, ==, 3);
  {
    GPtrArray *w = flame_profile_get_warnings (profile);

    g_assert_cmpuint (w->len, ==, 2);
    g_assert_nonnull (strstr (g_ptr_array_index (w, 0), "1 of 8 addresses have no symbol in "
                              "the capture; they are named by their mapped file"));
    g_assert_nonnull (strstr (g_ptr_array_index (w, 1), "1 of 8 addresses have no symbol and "
                              "no mapped file"));
  }
  text = folded (b, NULL);
  g_assert_cmpstr (text, ==,
                   "my;main;[libc.so.6] 1\n"
                   "my;main;[unknown] 1\n"
                   "my;main;jit_fn 1\n"
                   "my;main;leaf_fn 1\n"
                   "my;main;leaf_fn;do_syscall_64 1");
}

/* Allocations: bytes or counts, frees left out; an unknown sample type
 * names the ones there are */
static void
test_memory (void)
{
  g_autoptr(GByteArray) b = write_capture ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) space = load (b, "alloc_space", &error);
  g_autoptr(FlameProfile) objects = NULL;
  g_autoptr(FlameProfile) none = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (space), ==, FLAME_UNIT_BYTES);
  g_assert_cmpfloat (flame_profile_get_total_weight (space, 0), ==, 4000);
  objects = load (b, "alloc_objects/count", &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (objects), ==, FLAME_UNIT_COUNT);
  g_assert_cmpfloat (flame_profile_get_total_weight (objects, 0), ==, 2);
  text = folded (b, "alloc_space");
  g_assert_cmpstr (text, ==,
                   "# flamediff-folded unit=bytes samples=2 sample_type=alloc_space/bytes\n"
                   "my;main 3000\nmy;main;leaf_fn 1000");

  none = load (b, "inuse_space", &error);
  g_assert_null (none);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  g_assert_nonnull (
    strstr (error->message, "(the file has: samples/count, alloc_space/bytes, "
                            "alloc_objects/count, peak/bytes, leaked/bytes)"));
}

/* The 256-byte header of a capture from 1 s to 2 s */
static GByteArray *
capture_header (void)
{
  GByteArray *b = g_byte_array_new ();
  char header[256] = { 0 };

  put32 (b, 0xfdca975e);
  header[0] = 1;
  header[1] = 1;
  put (b, header, 4);
  put (b, header + 8, 64);
  put64 (b, 1000000000);
  put64 (b, 2000000000);
  put (b, header + 8, 168);
  g_assert_cmpuint (b->len, ==, 256);
  return b;
}

/* A memprof capture of two processes, their frames one process after the
 * other (as Sysprof writes what each sends): pid 200 allocates 4000 bytes
 * at 10 ns, frees them at 30, allocates 1000 at 40 and keeps them; pid
 * 201 allocates @big at 35 at the same address (another process), 500
 * at 50 there again (its free not recorded), frees them at 60. Live:
 * 4000, 0, @big, @big + 1000, 1500, 1000. */
static GByteArray *
memprof_capture (gint64 big)
{
  GByteArray *b = capture_header ();
  const guint64 stack[] = { 0x400110, 0x400250 };

  process (b, 200, "/usr/bin/first");
  process (b, 201, "/usr/bin/second");
  allocation_at (b, 200, 10, 0x1000, 4000, stack, 2);
  allocation_at (b, 200, 30, 0x1000, 0, NULL, 0);
  allocation_at (b, 200, 40, 0x2000, 1000, stack, 2);
  allocation_at (b, 201, 35, 0x1000, big, stack, 2);
  allocation_at (b, 201, 50, 0x1000, 500, stack, 2);
  allocation_at (b, 201, 60, 0x1000, -500, NULL, 0);
  return b;
}

/* Allocations and frees replayed in time order across processes: the
 * true peak (not each process's own peak added up: 4000 + @big), the
 * bytes never freed, and compare's "Peak memory" line */
static void
test_memprof_peak (void)
{
  g_autoptr(GByteArray) base = memprof_capture (6000);
  g_autoptr(GByteArray) more = memprof_capture (12000);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) space = load (base, "alloc_space", &error);
  g_autoptr(FlameProfile) objects = NULL;
  g_autoptr(FlameProfile) cpu = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-sysprof-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (dir, "base.syscap", NULL);
  g_autofree char *c = g_build_filename (dir, "more.syscap", NULL);
  g_auto(FlameTestRun) r = { 0 };
  g_auto(FlameTestRun) j = { 0 };
  FlameMemoryTotals t;

  g_assert_no_error (error);
  g_assert_true (flame_memory_get_totals (space, &t));
  g_assert_cmpfloat (t.allocated_bytes, ==, 4000 + 1000 + 6000 + 500);
  g_assert_cmpfloat (t.allocations, ==, 4);
  g_assert_cmpfloat (t.peak_bytes, ==, 7000);
  g_assert_cmpfloat (t.leaked_bytes, ==, 1000);
  g_assert_cmpfloat (flame_profile_get_total_weight (space, 0), ==, t.allocated_bytes);
  objects = load (base, "alloc_objects", &error);
  g_assert_no_error (error);
  g_assert_true (flame_memory_get_totals (objects, &t));
  g_assert_cmpfloat (t.peak_bytes, ==, 7000);

  /* a capture of CPU samples is no memory recording */
  {
    g_autoptr(GByteArray) b = write_capture ();

    cpu = load (b, NULL, &error);
    g_assert_no_error (error);
    g_assert_false (flame_memory_get_totals (cpu, &t));
  }

  g_assert_true (g_file_set_contents (a, (const char *) base->data, base->len, NULL));
  g_assert_true (g_file_set_contents (c, (const char *) more->data, more->len, NULL));
  flame_test_run_cli_va (&r, "compare", a, c, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* 7000 → 13000 bytes */
  g_assert_nonnull (strstr (r.out, "Peak memory: 6.8 KiB → 12.7 KiB (+5.9 KiB"));
  flame_test_run_cli_va (&j, "compare", "--format", "json", a, c, NULL);
  g_assert_cmpint (j.status, ==, 0);
  g_assert_nonnull (strstr (j.out, "\"peak_delta_bytes\":6000"));
  /* the peak view: the blocks live at the peaks, 7000 and 13000 bytes,
   * both sides' in the one stack */
  {
    g_auto(FlameTestRun) p = { 0 };

    flame_test_run_cli_va (&p, "compare", "--metric", "peak", a, c, NULL);
    g_assert_cmpint (p.status, ==, 0);
    g_assert_nonnull (strstr (p.out, "sample type peak/bytes"));
    g_assert_nonnull (strstr (p.out, "6.84 KiB → 12.70 KiB (+5.86 KiB, +85.7%)"));
  }
  g_unlink (a);
  g_unlink (c);
  g_rmdir (dir);
}

/* Memprof with a stack per function, in two processes, frames one
 * process after the other:
 *
 *   ns  pid  block           function  live after
 *   10  200  +4000 at 0x1000 parse      4000
 *   20  200  +3000 at 0x2000 cache      7000  never freed
 *   30  200  -4000 at 0x1000            3000
 *   35  201  +6000 at 0x1000 build      9000
 *   40  200  +1000 at 0x3000 parse     10000
 *   50  201   +500 at 0x5000 parse     10500  the peak
 *   60  201  -6000 at 0x1000            4500
 *   70  200  -1000 at 0x3000            3500
 *   80  201   +200 at 0x5000 build      3200  never freed; the 500
 *                                             before it ends (its free
 *                                             not recorded)
 */
static GByteArray *
memprof_views_capture (void)
{
  static const BundleSymbol syms[] = {
    { 0x400100, 0x400180, 200, "parse" }, { 0x400180, 0x400200, 200, "cache" },
    { 0x400200, 0x400300, 200, "main" }, { 0x400300, 0x400380, 200, "build" },
    { 0x400100, 0x400180, 201, "parse" }, { 0x400180, 0x400200, 201, "cache" },
    { 0x400200, 0x400300, 201, "main" }, { 0x400300, 0x400380, 201, "build" },
  };
  const guint64 parse[] = { 0x400110, 0x400250 };
  const guint64 cache[] = { 0x400190, 0x400250 };
  const guint64 build[] = { 0x400310, 0x400250 };
  GByteArray *b = capture_header ();

  process (b, 200, "/usr/bin/first");
  process (b, 201, "/usr/bin/second");
  allocation_at (b, 200, 10, 0x1000, 4000, parse, 2);
  allocation_at (b, 200, 20, 0x2000, 3000, cache, 2);
  allocation_at (b, 200, 30, 0x1000, 0, NULL, 0);
  allocation_at (b, 200, 40, 0x3000, 1000, parse, 2);
  allocation_at (b, 200, 70, 0x3000, 0, NULL, 0);
  allocation_at (b, 201, 35, 0x1000, 6000, build, 2);
  allocation_at (b, 201, 50, 0x5000, 500, parse, 2);
  allocation_at (b, 201, 60, 0x1000, -6000, NULL, 0);
  allocation_at (b, 201, 80, 0x5000, 200, build, 2);
  put_bundle (b, syms, G_N_ELEMENTS (syms));
  return b;
}

/* The peak and leaked views: the stacks of the blocks live at the peak
 * and of those never freed, each function with its bytes; offered as
 * sample types (View ▸ Sample Type) and by the names of our own memory
 * recordings */
static void
test_memprof_views (void)
{
  g_autoptr(GByteArray) b = memprof_views_capture ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) peak = load (b, "peak", &error);
  g_autoptr(FlameProfile) leaked = NULL;
  g_autoptr(FlameProfile) allocated = NULL;
  g_autofree char *peak_text = NULL;
  g_autofree char *leaked_text = NULL;
  g_autofree char *slash_text = NULL;
  const char * const *types;
  FlameMemoryTotals t;

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (peak), ==, FLAME_UNIT_BYTES);
  g_assert_cmpstr (flame_profile_get_sample_type (peak), ==, "peak/bytes");
  g_assert_true (flame_memory_get_totals (peak, &t));
  g_assert_cmpfloat (t.peak_bytes, ==, 10500);
  g_assert_cmpfloat (t.leaked_bytes, ==, 3200);
  g_assert_cmpfloat (t.allocated_bytes, ==, 14700);
  /* the view adds up to the totals */
  g_assert_cmpfloat (flame_profile_get_total_weight (peak, 0), ==, t.peak_bytes);
  types = flame_profile_get_sample_types (peak);
  g_assert_nonnull (types);
  g_assert_true (g_strv_contains (types, "peak/bytes"));
  g_assert_true (g_strv_contains (types, "leaked/bytes"));

  leaked = load (b, "leaked/bytes", &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (leaked), ==, FLAME_UNIT_BYTES);
  g_assert_cmpfloat (flame_profile_get_total_weight (leaked, 0), ==, 3200);
  allocated = load (b, "allocated", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_sample_type (allocated), ==, "alloc_space/bytes");
  g_assert_cmpfloat (flame_profile_get_total_weight (allocated, 0), ==, 14700);

  /* per function: parse's 4000 bytes were freed before the peak, the
   * 6000 of build in the other process were live at it */
  peak_text = folded (b, "peak");
  g_assert_cmpstr (peak_text, ==,
                   "# flamediff-folded unit=bytes samples=4 sample_type=peak/bytes\n"
                   "first;main;cache 3000\n"
                   "first;main;parse 1000\n"
                   "second;main;build 6000\n"
                   "second;main;parse 500");
  slash_text = folded (b, "peak/bytes");
  g_assert_cmpstr (slash_text, ==, peak_text);
  leaked_text = folded (b, "leaked");
  g_assert_cmpstr (leaked_text, ==,
                   "# flamediff-folded unit=bytes samples=2 sample_type=leaked/bytes\n"
                   "first;main;cache 3000\n"
                   "second;main;build 200");

  /* info: the view's total and the capture's totals beside it */
  {
    g_autofree char *dir = g_dir_make_tmp ("flamediff-sysprof-XXXXXX", NULL);
    g_autofree char *in = g_build_filename (dir, "capture.syscap", NULL);
    g_auto(FlameTestRun) text = { 0 };
    g_auto(FlameTestRun) json = { 0 };

    g_assert_true (g_file_set_contents (in, (const char *) b->data, b->len, NULL));
    flame_test_run_cli_va (&text, "info", "--metric", "peak", in, NULL);
    g_assert_cmpint (text.status, ==, 0);
    g_assert_nonnull (strstr (text.out, "(10500 bytes)"));
    g_assert_nonnull (strstr (text.out, "Sample type: peak/bytes\n"));
    g_assert_nonnull (strstr (text.out, "Memory:    allocated 14.4 KiB in 6 allocations, "
                                        "peak 10.3 KiB, leaked 3.1 KiB\n"));
    flame_test_run_cli_va (&json, "info", "--json", "--metric", "leaked", in, NULL);
    g_assert_cmpint (json.status, ==, 0);
    g_assert_nonnull (strstr (json.out, "\"total\" : 3200.0"));
    g_assert_nonnull (strstr (json.out, "\"peak_bytes\" : 10500,"));
    g_assert_nonnull (strstr (json.out, "\"leaked_bytes\" : 3200,"));
    g_unlink (in);
    g_rmdir (dir);
  }
}

/* Everything freed: the leaked view is empty, not an error */
static void
test_memprof_nothing_leaked (void)
{
  g_autoptr(GByteArray) b = capture_header ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) leaked = NULL;
  g_autoptr(FlameProfile) peak = NULL;
  const guint64 stack[] = { 0x400110, 0x400250 };

  process (b, 200, "/usr/bin/first");
  allocation_at (b, 200, 10, 0x1000, 4000, stack, 2);
  allocation_at (b, 200, 20, 0x1000, 0, NULL, 0);
  leaked = load (b, "leaked", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (leaked, 0), ==, 0);
  peak = load (b, "peak", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (peak, 0), ==, 4000);
}

/* Without the bundle: every user address is named by its file, with a
 * warning; a capture with allocations only loads them by default */
static void
test_without_symbols (void)
{
  g_autoptr(GByteArray) full = write_capture ();
  g_autoptr(GByteArray) b = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  gsize at = 256;

  /* copy every frame but the samples and the bundle */
  g_byte_array_append (b, full->data, 256);
  while (at < full->len)
    {
      guint16 len = full->data[at] | full->data[at + 1] << 8;
      guint8 type = full->data[at + 16];
      gboolean is_bundle = type == 13 && strcmp ((const char *) full->data + at + 28,
                                                 "__symbols__.gz") == 0;

      if (type != 2 && !is_bundle)
        g_byte_array_append (b, full->data + at, len);
      at += len;
    }
  profile = load (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_BYTES);
  g_assert_cmpfloat (flame_test_function_ms (profile, "[my app]"), >, 0);
  g_assert_cmpfloat (flame_test_function_ms (profile, "main"), ==, 0);
  g_assert_cmpuint (flame_profile_get_warnings (profile)->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (flame_profile_get_warnings (profile), 0),
                            "2 of 2 addresses have no symbol"));
}

/* Functions of this program that a capture's samples point into */
__attribute__((noinline)) void sysprof_test_marker_leaf (void);
__attribute__((noinline)) void sysprof_test_marker_caller (void);

void
sysprof_test_marker_leaf (void)
{
  __asm__ volatile ("" ::: "memory");
}

void
sysprof_test_marker_caller (void)
{
  sysprof_test_marker_leaf ();
  __asm__ volatile ("" ::: "memory");
}

/* The mapping of this program's file that holds @addr, from
 * /proc/self/maps */
static gboolean
own_mapping (guint64   addr,
             guint64  *start,
             guint64  *end,
             guint64  *offset,
             char    **path)
{
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char file[4096] = "";
      unsigned long long s, e, o;

      if (sscanf (lines[i], "%llx-%llx %*s %llx %*s %*s %4095s", &s, &e, &o, file) == 4 &&
          s <= addr && addr < e && file[0] == '/')
        {
          *start = s;
          *end = e;
          *offset = o;
          *path = g_strdup (file);
          return TRUE;
        }
    }
  return FALSE;
}

/* Addresses Sysprof's bundle does not name: the program's symbolizer
 * (registered by the CLI and the app) names them from the mapped files
 * on this computer, with a warning; without one they are named by file */
static void
test_symbolizer_fallback (void)
{
  guint64 leaf = (guint64) (guintptr) sysprof_test_marker_leaf;
  guint64 caller = (guint64) (guintptr) sysprof_test_marker_caller;
  guint64 start, end, offset;
  g_autofree char *path = NULL;
  g_autofree char *file_frame = NULL;
  g_autoptr(GByteArray) b = g_byte_array_new ();
  char header[256] = { 0 };

  g_assert_true (own_mapping (leaf, &start, &end, &offset, &path));
  put32 (b, 0xfdca975e);
  header[0] = 1;
  header[1] = 1;
  put (b, header, 4);
  memset (header, 0, sizeof header);
  put (b, header, 64);
  put64 (b, 1000000000);
  put64 (b, 2000000000);
  put (b, header, 168);
  process (b, 300, path);
  map (b, 300, start, end, offset, path);
  /* the sampled address itself, then a return address (each distinct
   * address is named once: 2 of them) */
  sample (b, 300, 300, (const guint64[]) { leaf, caller + 1 }, 2);
  sample (b, 300, 300, (const guint64[]) { caller + 1 }, 1);
  file_frame = g_strdup_printf ("[%s]", strrchr (path, '/') + 1);

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) profile = load (b, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpfloat (flame_test_function_ms (profile, "sysprof_test_marker_leaf"), ==, 0);
    g_assert_cmpfloat (flame_test_function_ms (profile, file_frame), >, 0);
  }

  flame_perf_resolver_register ();
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) profile = load (b, NULL, &error);
    GPtrArray *warnings;
    gboolean said = FALSE;

    g_assert_no_error (error);
    g_assert_cmpfloat (flame_test_function_ms (profile, "sysprof_test_marker_leaf"), >, 0);
    g_assert_cmpfloat (flame_test_function_ms (profile, "sysprof_test_marker_caller"), >, 0);
    g_assert_cmpfloat (flame_test_function_ms (profile, file_frame), ==, 0);
    warnings = flame_profile_get_warnings (profile);
    for (guint i = 0; warnings != NULL && i < warnings->len; i++)
      said |= strstr (g_ptr_array_index (warnings, i),
                      "2 of 2 addresses have no symbol in the capture; they are named from "
                      "the files on this computer") != NULL;
    g_assert_true (said);
  }
  flame_resolver_set_default (NULL);
}

/* Every cut loads what it holds or fails with the file's name; every
 * changed byte loads or fails cleanly; a big-endian capture is refused */
static void
test_truncated_and_corrupt (void)
{
  g_autoptr(GByteArray) b = write_capture ();

  for (guint cut = 0; cut < b->len; cut++)
    {
      g_autoptr(GByteArray) c = g_byte_array_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile = NULL;

      g_byte_array_append (c, b->data, cut);
      profile = load (c, NULL, &error);
      g_assert_true ((profile == NULL) != (error == NULL));
      if (error != NULL && cut >= 8 && !g_str_has_prefix (error->message, "test.syscap: "))
        g_error ("cut at %u: %s", cut, error->message);
    }
  for (guint at = 0; at < b->len; at++)
    for (guint v = 1; v < 256; v += 51)
      {
        g_autoptr(GByteArray) c = g_byte_array_new ();
        g_autoptr(GError) error = NULL;
        g_autoptr(FlameProfile) profile = NULL;

        g_byte_array_append (c, b->data, b->len);
        c->data[at] ^= (guint8) v;
        profile = load (c, NULL, &error);
        g_assert_true ((profile == NULL) != (error == NULL));
      }
  {
    g_autoptr(GByteArray) c = g_byte_array_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) profile = NULL;

    g_byte_array_append (c, b->data, b->len);
    c->data[5] = 0;
    profile = load (c, NULL, &error);
    g_assert_null (profile);
    g_assert_nonnull (strstr (error->message, "big-endian"));
  }
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--write-seed") == 0)
    {
      g_autoptr(GByteArray) b = write_capture ();

      return g_file_set_contents (argv[2], (const char *) b->data, b->len, NULL) ? 0 : 1;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sysprof/cpu", test_cpu);
  g_test_add_func ("/sysprof/memory", test_memory);
  g_test_add_func ("/sysprof/memprof-peak", test_memprof_peak);
  g_test_add_func ("/sysprof/memprof-views", test_memprof_views);
  g_test_add_func ("/sysprof/memprof-nothing-leaked", test_memprof_nothing_leaked);
  g_test_add_func ("/sysprof/without-symbols", test_without_symbols);
  g_test_add_func ("/sysprof/symbolizer-fallback", test_symbolizer_fallback);
  g_test_add_func ("/sysprof/truncated-corrupt", test_truncated_and_corrupt);
  return g_test_run ();
}

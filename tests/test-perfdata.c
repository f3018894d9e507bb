/* test-perfdata.c: perf.data read natively, compared with perf script.
 *
 * Synthetic files written here byte by byte (file and pipe mode, two
 * events, fork/comm/mmap2, records stored out of time order), cut at
 * every offset and with bytes changed; then, where `perf record` runs,
 * real recordings of a workload loaded natively and through `perf
 * script`, whose per-function times must be equal.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "flame-error.h"
#include "flame-loader.h"
#include "flame-perf.h"
#include "flame-perf-resolver.h"
#include "flame-perfdata.h"

/* ---- writing ---- */

static void
put16 (GByteArray *b, guint16 v)
{
  v = GUINT16_TO_LE (v);
  g_byte_array_append (b, (guint8 *) &v, 2);
}

static void
put32 (GByteArray *b, guint32 v)
{
  v = GUINT32_TO_LE (v);
  g_byte_array_append (b, (guint8 *) &v, 4);
}

static void
put64 (GByteArray *b, guint64 v)
{
  v = GUINT64_TO_LE (v);
  g_byte_array_append (b, (guint8 *) &v, 8);
}

static void
set64 (GByteArray *b, gsize at, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (b->data + at, &v, 8);
}

/* string padded to 8 with at least one NUL */
static void
put_str (GByteArray *b, const char *s)
{
  gsize n = strlen (s) + 1;

  g_byte_array_append (b, (const guint8 *) s, n);
  while (n++ % 8)
    g_byte_array_append (b, (const guint8 *) "", 1);
}

/* IDENTIFIER IP TID TIME PERIOD CALLCHAIN */
#define ST (1 << 16 | 1 << 0 | 1 << 1 | 1 << 2 | 1 << 8 | 1 << 5)
#define ATTR_SIZE 112

static void
put_attr (GByteArray *b, guint32 config)
{
  gsize start = b->len;

  put32 (b, 1);            /* PERF_TYPE_SOFTWARE */
  put32 (b, ATTR_SIZE);
  put64 (b, config);
  put64 (b, 4000);
  put64 (b, ST);
  put64 (b, 0);
  put64 (b, (1ull << 18) | (1ull << 10));  /* sample_id_all, freq */
  while (b->len < start + ATTR_SIZE)
    g_byte_array_append (b, (const guint8 *) "", 1);
}

static gsize
begin (GByteArray *b, guint32 type, guint16 misc)
{
  gsize at = b->len;

  put32 (b, type);
  put16 (b, misc);
  put16 (b, 0);
  return at;
}

/* the sample_id_all trailer: TID TIME IDENTIFIER */
static void
end (GByteArray *b, gsize at, guint32 pid, guint32 tid, guint64 time)
{
  guint16 size;

  put32 (b, pid);
  put32 (b, tid);
  put64 (b, time);
  put64 (b, 1);
  size = GUINT16_TO_LE ((guint16) (b->len - at));
  memcpy (b->data + at + 6, &size, 2);
}

static void
put_sample (GByteArray *b, guint64 id, guint32 pid, guint32 tid, guint64 time,
            guint64 period, const guint64 *chain, guint n)
{
  gsize at = begin (b, 9, 2);
  guint16 size;

  put64 (b, id);
  put64 (b, chain[1]);
  put32 (b, pid);
  put32 (b, tid);
  put64 (b, time);
  put64 (b, period);
  put64 (b, n);
  for (guint i = 0; i < n; i++)
    put64 (b, chain[i]);
  size = GUINT16_TO_LE ((guint16) (b->len - at));
  memcpy (b->data + at + 6, &size, 2);
}

#define CTX_KERNEL ((guint64) -128)
#define CTX_USER   ((guint64) -512)

/* The records: "prog" (pid 10) maps /nonexistent/prog, forks thread 11,
 * which is renamed "worker" at time 150, but that COMM is stored after
 * a sample of 11 at time 200 (another CPU's buffer), and a sample at
 * time 100 comes after the round. */
static void
put_records (GByteArray *b)
{
  static const guint64 chain1[] = { CTX_USER, 0x400010, 0x400020 };
  static const guint64 chain2[] = { CTX_KERNEL, 0xffffffff81000010, CTX_USER, 0x500000 };
  static const guint64 chain3[] = { CTX_USER, 0x400030 };
  gsize at;

  at = begin (b, 3, 0);                 /* COMM */
  put32 (b, 10);
  put32 (b, 10);
  put_str (b, "prog");
  end (b, at, 10, 10, 1);
  at = begin (b, 10, 2);                /* MMAP2 */
  put32 (b, 10);
  put32 (b, 10);
  put64 (b, 0x400000);
  put64 (b, 0x1000);
  put64 (b, 0);
  for (int i = 0; i < 3; i++)
    put64 (b, 0);
  put32 (b, 5);
  put32 (b, 2);
  put_str (b, "/nonexistent/prog");
  end (b, at, 10, 10, 2);
  at = begin (b, 7, 0);                 /* FORK */
  put32 (b, 10);
  put32 (b, 10);
  put32 (b, 11);
  put32 (b, 10);
  put64 (b, 3);
  end (b, at, 10, 11, 3);
  put_sample (b, 2, 10, 11, 200, 500, chain2, 4);       /* task-clock */
  put_sample (b, 1, 10, 10, 180, 1000, chain3, 2);      /* cpu-clock */
  at = begin (b, 3, 0);                 /* COMM, earlier than the samples above */
  put32 (b, 10);
  put32 (b, 11);
  put_str (b, "worker");
  end (b, at, 10, 11, 150);
  at = begin (b, 68, 0);                /* FINISHED_ROUND */
  set64 (b, at + 4, 0);
  b->data[at + 6] = 8;
  put_sample (b, 1, 10, 10, 100, 1000, chain1, 3);
}

static GBytes *
make_file (void)
{
  GByteArray *b = g_byte_array_new ();
  gsize attrs, ids, data, feat, desc;

  g_byte_array_append (b, (const guint8 *) "PERFILE2", 8);
  put64 (b, 104);
  put64 (b, ATTR_SIZE + 16);
  for (int i = 0; i < 10; i++)          /* sections and features, set below */
    put64 (b, 0);
  b->data[72 + 1] = 1 << (12 - 8);      /* HEADER_EVENT_DESC */

  ids = b->len;
  put64 (b, 1);
  put64 (b, 2);
  attrs = b->len;
  put_attr (b, 0);
  put64 (b, ids);
  put64 (b, 8);
  put_attr (b, 1);
  put64 (b, ids + 8);
  put64 (b, 8);
  set64 (b, 24, attrs);
  set64 (b, 32, b->len - attrs);

  data = b->len;
  put_records (b);
  set64 (b, 40, data);
  set64 (b, 48, b->len - data);

  feat = b->len;
  put64 (b, 0);
  put64 (b, 0);
  desc = b->len;
  put32 (b, 2);
  put32 (b, ATTR_SIZE);
  for (guint i = 0; i < 2; i++)
    {
      put_attr (b, i);
      put32 (b, 1);
      put32 (b, 16);
      g_byte_array_append (b,
                           (const guint8 *) (i ? "task-clock\0\0\0\0\0\0"
                                               : "cpu-clock:u\0\0\0\0\0"),
                           16);
      put64 (b, i + 1);
    }
  set64 (b, feat, desc);
  set64 (b, feat + 8, b->len - desc);
  return g_byte_array_free_to_bytes (b);
}

static GBytes *
make_pipe (void)
{
  GByteArray *b = g_byte_array_new ();

  g_byte_array_append (b, (const guint8 *) "PERFILE2", 8);
  put64 (b, 16);
  for (guint i = 0; i < 2; i++)
    {
      gsize at = begin (b, 64, 0);      /* HEADER_ATTR */

      put_attr (b, i);
      put64 (b, i + 1);
      b->data[at + 6] = (guint8) (b->len - at);
    }
  put_records (b);
  return g_byte_array_free_to_bytes (b);
}

static char *
collapse (GBytes *bytes, const char *event, FlamePerfStats *stats, GError **error)
{
  FlamePerfOptions o = { 0 };
  FlameInput in = { 0 };
  gsize len;

  o.event_filter = event;
  in.name = "test.data";
  in.data = g_bytes_get_data (bytes, &len);
  in.len = len;
  return flame_perf_collapse (&in, &o, stats, error);
}

static void
check_synthetic (GBytes *bytes, gboolean named)
{
  FlamePerfStats stats = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *cpu = collapse (bytes, NULL, &stats, &error);
  g_autofree char *task = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  g_assert_no_error (error);
  /* root first; [prog] is the unknown symbol in /nonexistent/prog */
  g_assert_cmpstr (cpu, ==, "prog;[prog] 1000\nprog;[prog];[prog] 1000\n");
  g_assert_cmpstr (stats.event, ==, named ? "cpu-clock" : "cpu-clock");
  g_assert_cmpuint (stats.samples, ==, 2);
  g_assert_cmpuint (stats.other_events, ==, 1);
  flame_perf_stats_clear (&stats);

  /* the COMM at 150 names the sample at 200 though it is stored later;
   * the unmapped user address is [unknown], the kernel one unnamed */
  task = collapse (bytes, "task-clock", &stats, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (task, ==, "worker;[unknown];[[kernel.kallsyms]] 500\n");
  flame_perf_stats_clear (&stats);

  profile = flame_load_bytes ("test.data", bytes, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "perf-data");
  g_assert_cmpfloat (flame_profile_get_total_weight (profile, 0), ==, 2000);
}

static void
test_synthetic_file (void)
{
  g_autoptr(GBytes) bytes = make_file ();

  g_assert_true (flame_perfdata_sniff (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)));
  check_synthetic (bytes, TRUE);
}

static void
test_synthetic_pipe (void)
{
  g_autoptr(GBytes) bytes = make_pipe ();

  check_synthetic (bytes, FALSE);
}

/* Cut at every offset, and every byte changed: an error naming the file
 * and a byte, or a profile, never a crash */
static void
check_damaged (GBytes *bytes, gboolean file_mode)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  for (gsize cut = 0; cut < len; cut++)
    {
      g_autoptr(GBytes) part = g_bytes_new (data, cut);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = flame_load_bytes ("cut.data", part, NULL, NULL, NULL, &error);

      /* file mode: every cut loses a section; pipe mode: a cut at a
       * record boundary is a shorter recording */
      if (file_mode || p == NULL)
        {
          g_assert_null (p);
          g_assert_error (error, FLAME_ERROR, error->code);
          g_assert_true (g_str_has_prefix (error->message, "cut.data: "));
        }
    }
  for (gsize i = 0; i < len; i++)
    for (guint v = 0; v < 3; v++)
      {
        static const guint8 values[] = { 0x00, 0xff, 0x80 };
        g_autofree guint8 *copy = g_memdup2 (data, len);
        g_autoptr(GBytes) changed = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(FlameProfile) p = NULL;

        copy[i] = values[v];
        changed = g_bytes_new (copy, len);
        p = flame_load_bytes ("bad.data", changed, NULL, NULL, NULL, &error);
        g_assert_true ((p != NULL) != (error != NULL));
        if (error != NULL)
          g_assert_true (g_str_has_prefix (error->message, "bad.data"));
      }
}

static void
test_damaged (void)
{
  g_autoptr(GBytes) file = make_file ();
  g_autoptr(GBytes) pipe = make_pipe ();

  check_damaged (file, TRUE);
  check_damaged (pipe, FALSE);
}

static void
test_big_endian (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("2ELIFREP\0\0\0\0\0\0\0\x68", 16);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = flame_load_bytes ("be.data", bytes, NULL, NULL, NULL, &error);

  g_assert_null (p);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "big-endian"));
}

/* ---- real recordings ---- */

typedef struct
{
  GHashTable *self;   /* name → gdouble * */
  GHashTable *total;
} Times;

/* per-function self and total times of folded text */
static void
times_of (const char *folded, Times *t)
{
  g_auto(GStrv) lines = g_strsplit (folded, "\n", -1);

  t->self = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->total = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *sp = strrchr (lines[i], ' ');
      g_auto(GStrv) frames = NULL;
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      gdouble w;
      guint n;

      if (sp == NULL)
        continue;
      *sp = 0;
      w = g_ascii_strtod (sp + 1, NULL);
      frames = g_strsplit (lines[i], ";", -1);
      n = g_strv_length (frames);
      for (guint k = 1; k < n; k++)
        {
          GHashTable *tables[] = { t->total, t->self };

          for (guint m = 0; m < 2; m++)
            {
              gdouble *v;

              if (m == 0 && !g_hash_table_add (seen, frames[k]))
                continue;
              if (m == 1 && k != n - 1)
                continue;
              v = g_hash_table_lookup (tables[m], frames[k]);
              if (v == NULL)
                {
                  v = g_new0 (gdouble, 1);
                  g_hash_table_insert (tables[m], g_strdup (frames[k]), v);
                }
              *v += w;
            }
        }
    }
}

static gdouble
time_of (GHashTable *h, const char *name)
{
  gdouble *v = g_hash_table_lookup (h, name);

  return v ? *v : 0;
}

static gboolean
run (const char *cmd, char **out)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_command_line_sync (cmd, out, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL))
    return FALSE;
  return TRUE;
}

static char *
collapse_path (const char *path, const char *event)
{
  g_autoptr(GBytes) bytes = flame_read_file (path, NULL, NULL);
  FlamePerfStats stats = { 0 };
  g_autoptr(GError) error = NULL;
  char *out;

  g_assert_nonnull (bytes);
  out = collapse (bytes, event, &stats, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats.samples, >, 0);
  flame_perf_stats_clear (&stats);
  return out;
}

/* Every function's self and total time equal, the total too: the
 * workload's, the system libraries' (perf's choice among aliases, its
 * PLT entries, "[unknown]" in stripped files) and the kernel's. @busy:
 * functions that must have self time. */
static void
compare_with_script (const char         *data,
                     const char         *event,
                     const char * const *busy)
{
  g_autofree char *cmd = g_strdup_printf ("perf script -i %s", data);
  g_autofree char *script = NULL;
  g_autofree char *txt = g_strconcat (data, ".txt", NULL);
  g_autofree char *ours = NULL, *theirs = NULL;
  Times a, b;
  GHashTableIter iter;
  gpointer key, value;
  gdouble sum_a = 0, sum_b = 0;
  guint functions = 0;

  g_assert_true (run (cmd, &script));
  g_assert_true (g_file_set_contents (txt, script, -1, NULL));
  ours = collapse_path (data, event);
  theirs = collapse_path (txt, event);
  times_of (ours, &a);
  times_of (theirs, &b);
  for (guint i = 0; busy[i] != NULL; i++)
    g_assert_cmpfloat (time_of (b.self, busy[i]), >, 0);
  /* both ways: a function only one side has is a difference too */
  for (guint side = 0; side < 2; side++)
    {
      g_hash_table_iter_init (&iter, side == 0 ? b.total : a.total);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          if (side == 0)
            functions++;
          if (time_of (a.total, key) != time_of (b.total, key) ||
              time_of (a.self, key) != time_of (b.self, key))
            g_error ("%s: %s: self %g total %g natively, self %g total %g by perf script",
                     data, (const char *) key, time_of (a.self, key), time_of (a.total, key),
                     time_of (b.self, key), time_of (b.total, key));
        }
    }
  g_hash_table_iter_init (&iter, a.self);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    sum_a += *(gdouble *) value;
  g_hash_table_iter_init (&iter, b.self);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    sum_b += *(gdouble *) value;
  g_assert_cmpfloat (sum_a, ==, sum_b);
  g_test_message ("%s: %g ns in both, %u functions equal", data, sum_a, functions);
  g_hash_table_unref (a.self);
  g_hash_table_unref (a.total);
  g_hash_table_unref (b.self);
  g_hash_table_unref (b.total);
  g_unlink (txt);
}

static char *
workload (const char *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_WORKLOADS");

  return dir != NULL ? g_build_filename (dir, name, NULL) : NULL;
}

/* perf record ARGS -- COMMAND REDIRECT, or a visible skip */
static gboolean
record (const char *args,
        const char *command,
        const char *redirect)
{
  g_autofree char *cmd = NULL;
  g_autofree char *perf = g_find_program_in_path ("perf");

  if (perf == NULL)
    {
      g_test_skip ("perf is not installed");
      return FALSE;
    }
  if (g_getenv ("FLAMEDIFF_WORKLOADS") == NULL)
    {
      g_test_skip ("FLAMEDIFF_WORKLOADS is not set");
      return FALSE;
    }
  {
    /* the reader names frames by perf 6's rules (Debian 12's 6.1); perf
     * 7 names some differently (Debian unstable's 7.2: a sample's leaf
     * in another function of the same caller), so equality with its
     * perf script is not what this test can ask (docs/formats.md) */
    g_autofree char *version = NULL;
    int major = 0;

    if (g_spawn_command_line_sync ("perf --version", &version, NULL, NULL, NULL) &&
        version != NULL && sscanf (version, "perf version %d", &major) == 1 && major != 6)
      {
        g_autofree char *why = g_strdup_printf ("%s: perf script there names frames by "
                                                "other rules than perf 6's, which the reader "
                                                "follows", g_strstrip (version));
        g_test_skip (why);
        return FALSE;
      }
  }
  cmd = g_strdup_printf ("sh -c 'FLAMEDIFF_TRUTH=/dev/null perf record -q %s -- %s %s 2>/dev/null'",
                         args, command, redirect);
  if (!run (cmd, NULL))
    {
      g_test_skip ("perf record cannot run here (perf_event_paranoid, no permission?)");
      return FALSE;
    }
  return TRUE;
}

static void
test_real (gconstpointer user_data)
{
  const char *mode = user_data;
  g_autofree char *dir = g_dir_make_tmp ("perfdata-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (dir, "perf.data", NULL);
  g_autofree char *out = g_strdup_printf ("-g -o %s", data);
  g_autofree char *redirect = g_strdup_printf ("> %s", data);
  g_autofree char *two = workload ("perfdata-two-threads");
  g_autofree char *command = g_strdup_printf ("%s 0.5", two);
  static const char * const busy[] = { "spin", "cmp_b", NULL };
  gboolean ok;

  if (g_str_equal (mode, "pipe"))
    ok = record ("-g -o -", command, redirect);
  else if (g_str_equal (mode, "two-events"))
    ok = record ("-g -e cpu-clock,task-clock -o -", command, redirect);
  else
    ok = record (out, command, "");
  if (ok && g_str_equal (mode, "two-events"))
    {
      compare_with_script (data, "cpu-clock", busy);
      compare_with_script (data, "task-clock", busy);
    }
  else if (ok)
    compare_with_script (data, NULL, busy);
  g_unlink (data);
  g_rmdir (dir);
}

/* Through the C library (malloc, free, memcpy, qsort, a system call,
 * the PLT), a stripped program, and CPython's extension modules (their
 * PLT entries: perf names them "PyList_Append@plt") when python3 is
 * there */
static void
test_real_libraries (void)
{
  g_autofree char *dir = g_dir_make_tmp ("perfdata-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (dir, "perf.data", NULL);
  g_autofree char *out = g_strdup_printf ("-g -o %s", data);
  g_autofree char *calls = workload ("perfdata-libc-calls");
  g_autofree char *stripped = workload ("perfdata-libc-calls-stripped");
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *command = NULL;
  static const char * const busy[] = { "compare_ints", "rand_r", "[perfdata-libc-calls-stripped]",
                                       NULL };

  command = g_strdup_printf ("sh -c \"%s 0.4; %s 0.4%s\"", calls, stripped,
                             python != NULL ? "; python3 -c \\\"import json; "
                             "[json.dumps(list(range(1000))) for _ in range(1000)]\\\"" : "");
  if (record (out, command, ""))
    compare_with_script (data, NULL, busy);
  g_unlink (data);
  g_rmdir (dir);
}

/* ---- committed recordings (tests/data/perfdata/README.md) ---- */

static gboolean
note_record (const FlamePerfSample *sample,
             const FlamePerfFrame  *frames,
             guint                  n_frames,
             gdouble                weight,
             gpointer               user_data)
{
  g_string_append_printf (user_data, "%.*s %" G_GINT64_FORMAT " %u %g\n", (int) frames[0].len,
                          frames[0].name, sample->tid, n_frames, weight);
  return TRUE;
}

/* Each record as comm, tid, depth and period, in order: what does not
 * depend on the binaries and kernel of this machine */
static char *
records_of (const char *path, const char *event, FlamePerfStats *stats)
{
  g_autoptr(GBytes) bytes = flame_read_file (path, NULL, NULL);
  FlamePerfOptions o = { 0 };
  FlameInput in = { 0 };
  g_autoptr(GError) error = NULL;
  GString *out = g_string_new (NULL);
  gsize len;

  g_assert_nonnull (bytes);
  o.event_filter = event;
  in.name = path;
  in.data = g_bytes_get_data (bytes, &len);
  in.len = len;
  g_assert_true (flame_perf_parse (&in, &o, note_record, out, stats, &error));
  g_assert_no_error (error);
  return g_string_free (out, FALSE);
}

static void
test_fixture (gconstpointer user_data)
{
  const char *name = user_data;
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", "perfdata", name, NULL);
  g_autofree char *base = g_strndup (data, strlen (data) - 5);
  g_autofree char *txt = g_strconcat (base, ".perf-script", NULL);
  const char *events[] = { NULL, "cpu-clock", "task-clock" };

  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    {
      FlamePerfStats a = { 0 }, b = { 0 };
      g_autofree char *ours = records_of (data, events[i], &a);
      g_autofree char *theirs = records_of (txt, events[i], &b);

      g_assert_cmpstr (ours, ==, theirs);
      g_assert_cmpuint (a.samples, ==, b.samples);
      g_assert_cmpuint (a.other_events, ==, b.other_events);
      g_assert_cmpstr (a.event, ==, b.event);
      flame_perf_stats_clear (&a);
      flame_perf_stats_clear (&b);
    }
}

int
main (int argc, char **argv)
{
  const char *seeds = g_getenv ("FLAMEDIFF_WRITE_SEEDS");

  /* the fuzzer's seeds (tests/fuzz/seeds/perfdata) are these files */
  if (seeds != NULL)
    {
      g_autoptr(GBytes) file = make_file ();
      g_autoptr(GBytes) pipe = make_pipe ();
      g_autofree char *a = g_build_filename (seeds, "synthetic-file.data", NULL);
      g_autofree char *b = g_build_filename (seeds, "synthetic-pipe.data", NULL);

      return !(
        g_file_set_contents (a, g_bytes_get_data (file, NULL), g_bytes_get_size (file), NULL) &&
        g_file_set_contents (b, g_bytes_get_data (pipe, NULL), g_bytes_get_size (pipe), NULL));
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perfdata/synthetic-file", test_synthetic_file);
  g_test_add_func ("/perfdata/synthetic-pipe", test_synthetic_pipe);
  g_test_add_func ("/perfdata/damaged", test_damaged);
  g_test_add_func ("/perfdata/big-endian", test_big_endian);
  /* the synthetic files name nothing whatever the machine has: their
   * module does not exist, their kernel is no kernel's */
  g_test_add_data_func ("/perfdata/fixture/file", "two-threads.data", test_fixture);
  g_test_add_data_func ("/perfdata/fixture/pipe-two-events", "two-events-pipe.data",
                        test_fixture);
  g_test_add_data_func ("/perfdata/real/file", "file", test_real);
  g_test_add_data_func ("/perfdata/real/pipe", "pipe", test_real);
  g_test_add_data_func ("/perfdata/real/two-events", "two-events", test_real);
  g_test_add_func ("/perfdata/real/libraries", test_real_libraries);
  flame_perf_resolver_register ();
  return g_test_run ();
}

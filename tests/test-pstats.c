/* test-pstats.c: cProfile and profile statistics the system python3
 * wrote (tests/data/pstats, make-fixtures.sh) against what pstats.Stats
 * reads from the same files (the .expected dumps, and python3 itself when
 * it is installed).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-diff.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-pstats.h"
#include "flame-report.h"
#include "flame-test-utils.h"

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "pstats", name, NULL);
}

static FlameProfile *
load (const char *name)
{
  g_autofree char *path = data_path (name);
  g_autoptr(GError) error = NULL;
  FlameProfile *profile = flame_load_file (path, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (profile);
  g_assert_cmpint (flame_profile_get_format (profile), ==, FLAME_FORMAT_PSTATS);
  return profile;
}

/* our frame for pstats' (file, line, function); builtins' "~" and the
 * profile module's "" are no file */
static gint64
find_frame (FlameProfile *profile,
            const char   *file,
            guint32       line,
            const char   *func)
{
  FlameFrames *frames = flame_profile_get_frames (profile);

  for (guint32 f = 0; f < flame_frames_count (frames); f++)
    {
      const FlameFrame *fr = flame_frames_get (frames, f);
      const char *ffile = flame_frames_get_file (frames, f);

      if (fr->line == line && strcmp (flame_frames_get_name (frames, f), func) == 0 &&
          (strcmp (ffile, file) == 0 || (*ffile == '\0' && strcmp (file, "~") == 0)))
        return f;
    }
  return -1;
}

/* Every function of the dump (file, line, function, cc, nc, tottime,
 * cumtime, callers) has our figures: times to the last bit the double
 * allows after seconds → nanoseconds, calls exactly. */
static void
check_dump (FlameProfile *profile,
            const char   *dump)
{
  g_auto(GStrv) lines = g_strsplit (dump, "\n", -1);
  gdouble total_tt = -1, sum_self = 0;
  guint n = 0;

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      gdouble self, total, tt, ct;
      guint64 calls, primitive;
      gint64 frame;

      if (strcmp (f[0], "total_tt") == 0)
        {
          total_tt = g_ascii_strtod (f[1], NULL);
          continue;
        }
      g_assert_cmpuint (g_strv_length (f), ==, 8);
      frame = find_frame (profile, f[0], (guint32) g_ascii_strtoull (f[1], NULL, 10), f[2]);
      if (frame < 0)
        g_error ("%s:%s(%s) is not in the profile", f[0], f[1], f[2]);
      g_assert_true (flame_profile_get_function_weights (profile, 0, frame, &self, &total));
      tt = g_ascii_strtod (f[5], NULL);
      ct = g_ascii_strtod (f[6], NULL);
      g_assert_cmpfloat_with_epsilon (self * 1e-9, tt, 1e-15 + tt * 1e-14);
      g_assert_cmpfloat_with_epsilon (total * 1e-9, ct, 1e-15 + ct * 1e-14);
      /* and as pstats prints them: %8.3f, in ms here */
      {
        g_autofree char *ours = g_strdup_printf ("%.3f", self * 1e-6);
        g_autofree char *theirs = g_strdup_printf ("%.3f", tt * 1e3);
        g_assert_cmpstr (ours, ==, theirs);
      }
      g_assert_true (flame_profile_get_function_calls (profile, 0, frame, &calls, &primitive));
      g_assert_cmpuint (primitive, ==, g_ascii_strtoull (f[3], NULL, 10));
      g_assert_cmpuint (calls, ==, g_ascii_strtoull (f[4], NULL, 10));
      sum_self += self;
      n++;
    }
  g_assert_cmpuint (n, >, 10);
  g_assert_cmpuint (n, ==, flame_frames_count (flame_profile_get_frames (profile)));
  g_assert_cmpfloat (total_tt, >, 0);
  /* the flame tree holds the whole of pstats' total_tt */
  g_assert_cmpfloat_with_epsilon (flame_profile_get_total_weight (profile, 0) * 1e-9, total_tt,
                                  total_tt * 1e-9);
  g_assert_cmpfloat_with_epsilon (sum_self * 1e-9, total_tt, total_tt * 1e-12);
}

static void
check_file (const char *name)
{
  g_autoptr(FlameProfile) profile = load (name);
  g_autofree char *stem = g_strndup (name, strlen (name) - strlen (".pstats"));
  g_autofree char *expected_name = g_strconcat (stem, ".expected", NULL);
  g_autofree char *expected_path = data_path (expected_name);
  g_autofree char *expected = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");

  g_assert_true (g_file_get_contents (expected_path, &expected, NULL, NULL));
  check_dump (profile, expected);

  /* pstats itself, when python3 is here */
  if (python == NULL)
    g_test_message ("python3 is not installed: the stored dump only");
  else
    {
      g_autofree char *script = data_path ("dump-stats.py");
      g_autofree char *path = data_path (name);
      g_autofree char *abs_script = g_canonicalize_filename (script, NULL);
      g_autofree char *abs_path = g_canonicalize_filename (path, NULL);
      const char *argv[] = { python, abs_script, abs_path, NULL };
      g_autofree char *out = NULL;
      g_autoptr(GError) error = NULL;
      int status = 0;

      g_assert_true (g_spawn_sync ("/", (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                                   NULL, NULL, &out, NULL, &status, &error));
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, NULL))
        g_test_message ("%s could not run dump-stats.py", python);
      else
        check_dump (profile, out);
    }
}

static void
test_cprofile (void)
{
  check_file ("baseline.pstats");
  check_file ("current.pstats");
}

static void
test_profile_module (void)
{
  /* callers counted, not timed */
  check_file ("profile.pstats");
}

static void
test_metadata (void)
{
  g_autoptr(FlameProfile) profile = load ("baseline.pstats");

  g_assert_cmpint (flame_profile_get_quantity (profile), ==, FLAME_QUANTITY_TIME);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "default-metric"), ==, "total");
  g_assert_nonnull (strstr (flame_profile_get_metadata (profile, "flame-graph"), "approximated"));
}

/* The report's figures are tottime and cumtime, in ms. */
static void
test_report (void)
{
  g_autoptr(FlameProfile) baseline = load ("baseline.pstats");
  g_autoptr(FlameProfile) current = load ("current.pstats");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  FlameDiffOptions options;
  FlameReportOptions ropts;
  FlameReport *report;
  gboolean found = FALSE;

  flame_diff_options_init (&options);
  options.normalize = FLAME_NORMALIZE_ABSOLUTE;
  options.metric = FLAME_METRIC_TOTAL;
  diff = flame_diff_new (baseline, current, &options, NULL, &error);
  g_assert_no_error (error);
  flame_report_options_init (&ropts);
  ropts.metric = FLAME_METRIC_TOTAL;
  report = flame_report_new (diff, &ropts);
  for (guint i = 0; i < flame_report_get_n_functions (report); i++)
    {
      const FlameFunctionStat *s = flame_report_get_function (report, i);
      if (strcmp (flame_report_get_name (report, s), "work") == 0)
        {
          /* baseline.expected: app.py 10 work: tottime 1.0928000000000001e-05,
           * cumtime 0.015120315; current's cumtime 0.071126984 */
          g_assert_cmpfloat_with_epsilon (s->self_b, 1.0928000000000001e-02, 1e-15);
          g_assert_cmpfloat_with_epsilon (s->total_b, 15.120315, 1e-12);
          g_assert_cmpfloat_with_epsilon (s->total_c, 71.126984, 1e-12);
          found = TRUE;
        }
    }
  g_assert_true (found);
  flame_report_free (report);
}

/* compare: cumulative time unless told otherwise; the header says the
 * flame graph is approximated */
static void
test_cli_metric (void)
{
  g_autofree char *b = data_path ("baseline.pstats");
  g_autofree char *c = data_path ("current.pstats");
  const char *dflt[] = { "compare", b, c, NULL };
  const char *self[] = { "compare", "--metric=self", b, c, NULL };
  g_autofree char *out = flame_test_cli_output (dflt);
  g_autofree char *out_self = flame_test_cli_output (self);

  g_assert_nonnull (strstr (out, "Metric:        total time"));
  g_assert_nonnull (strstr (out, "Flame graph:   approximated from call edges"));
  g_assert_nonnull (strstr (out_self, "Metric:        self time"));
}

static FlameProfile *
load_bytes (const void  *data,
            gsize        len,
            GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, len);
  return flame_load_bytes ("t.pstats", bytes, NULL, NULL, NULL, error);
}

/* Written byte by byte: a long integer, a text float, a reference, the
 * profile module's count-only callers. */
static void
test_hand_written (void)
{
  static const guint8 data[] = {
    '{',
      ')', 3, 0x80 | 'z', 3, 'a', '.', 'p', 'i', 1, 0, 0, 0, 'z', 1, 'f',
      ')', 5, 'l', 2, 0, 0, 0, 0x01, 0x00, 0x01, 0x00,    /* 1 + 2^15 */
              'i', 7, 0, 0, 0,
              'f', 3, '0', '.', '5',
              'g', 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,           /* 1.0 */
              '{', ')', 3, 'r', 0, 0, 0, 0, 'i', 2, 0, 0, 0, 'z', 1, 'g', 'i', 7, 0, 0, 0, '0',
      ')', 3, 'r', 0, 0, 0, 0, 'i', 2, 0, 0, 0, 'z', 1, 'g',
      ')', 5, 'i', 1, 0, 0, 0, 'i', 1, 0, 0, 0, 'g', 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, /* 1.5 */
              'g', 0, 0, 0, 0, 0, 0, 0x04, 0x40,           /* 2.5 */
              '{', '0',
    '0',
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes (data, sizeof data, &error);
  gdouble self, total;
  guint64 calls, primitive;
  gint64 f, g;

  g_assert_no_error (error);
  f = find_frame (profile, "a.p", 1, "f");
  g = find_frame (profile, "a.p", 2, "g");
  g_assert_cmpint (f, >=, 0);
  g_assert_cmpint (g, >=, 0);
  flame_profile_get_function_weights (profile, 0, f, &self, &total);
  g_assert_cmpfloat (self, ==, 0.5e9);
  g_assert_cmpfloat (total, ==, 1e9);
  flame_profile_get_function_calls (profile, 0, f, &calls, &primitive);
  g_assert_cmpuint (primitive, ==, 32769);
  g_assert_cmpuint (calls, ==, 7);
  /* g called f: f is under g in the tree, with all of its time */
  g_assert_cmpfloat_with_epsilon (flame_profile_get_total_weight (profile, 0), 2e9, 1);
  g_assert_cmpuint (flame_profile_get_tree (profile)->n_nodes, ==, 3);
}

static void
test_errors (void)
{
  static const struct { const char *data; gsize len; const char *message;
  } cases[] = {
    { "{)\3z\1a", 6, "t.pstats: byte 6: the file ends inside a value" },
    { "{)\3z\1ai\1\0\0\0z\1f)\5i\1\0\0\0i\1\0\0\0i\1\0\0\0i\1\0\0\0r\7\0\0\0", 41,
      "t.pstats: byte 36: a reference (7) to no earlier value" },
    { "{)\3z\1ai\1\0\0\0z\1f(\377\377\377\177", 19,
      "t.pstats: byte 14: a length of 2147483647 runs past the end of the file" },
    { "{)\3z\1ai\1\0\0\0z\1fc\0\0\0\0", 19,
      "t.pstats: byte 14: a code object (python -m profile stores the script's): only Python can read it; use cProfile, or profile.run() with a string" },
    { "{)\3z\1ai\1\0\0\0z\1fi\1\0\0\0"
      "0",
      20,
      "t.pstats: not a pstats file: an entry is not (calls, primitive calls, tottime, cumtime, callers)" },
    { "{0x", 3, "t.pstats: byte 2: data after the statistics" },
    { "{0", 2, "t.pstats: no functions in the statistics" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile = NULL;

      g_assert_true (flame_pstats_sniff (cases[i].data, cases[i].len) || cases[i].len <= 3);
      {
        FlameInput in = { .name = "t.pstats", .data = cases[i].data, .len = cases[i].len };
        profile = flame_pstats_load (&in, &error);
      }
      g_assert_null (profile);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  /* nesting is bounded */
  {
    GByteArray *b = g_byte_array_new ();
    g_autoptr(GError) error = NULL;
    FlameInput in = { .name = "t.pstats" };
    g_autoptr(FlameProfile) profile = NULL;

    for (guint i = 0; i < 100000; i++)
      g_byte_array_append (b, (const guint8 *) ")\1", 2);
    in.data = (const char *) b->data;
    in.len = b->len;
    profile = flame_pstats_load (&in, &error);
    g_assert_null (profile);
    g_assert_cmpstr (error->message, ==, "t.pstats: byte 34: values nested more than 16 deep");
    g_byte_array_unref (b);
  }
}

static void
on_progress (gdouble  fraction,
             gpointer user_data)
{
  guint *before_end = user_data;
  *before_end += fraction < 1.0;
}

/* reading reports progress before the end, as the other loaders do */
static void
test_progress (void)
{
  g_autofree char *path = data_path ("baseline.pstats");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  guint before_end = 0;

  profile = flame_load_file (path, NULL, on_progress, &before_end, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (before_end, >, 0);
}

/* loading checks for cancellation (the app loads in a worker thread) */
static void
test_cancel (void)
{
  g_autofree char *path = data_path ("baseline.pstats");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  g_cancellable_cancel (cancellable);
  profile = flame_load_file (path, cancellable, NULL, NULL, &error);
  g_assert_null (profile);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pstats/cprofile", test_cprofile);
  g_test_add_func ("/pstats/profile-module", test_profile_module);
  g_test_add_func ("/pstats/metadata", test_metadata);
  g_test_add_func ("/pstats/report", test_report);
  g_test_add_func ("/pstats/hand-written", test_hand_written);
  g_test_add_func ("/pstats/errors", test_errors);
  g_test_add_func ("/pstats/cli-metric", test_cli_metric);
  g_test_add_func ("/pstats/cancel", test_cancel);
  g_test_add_func ("/pstats/progress", test_progress);
  return g_test_run ();
}

/* test-cli.c: flamediff-cli compare and info, as CI runs them: exit codes,
 * messages, and every output format.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <string.h>

#include "flame-input.h"
#include "flame-test-examples.h"
#include "flame-test-locale.h"
#include "flame-test-utils.h"

/* flame_test_run_cli() with the arguments as a NULL-terminated list */

static void
test_text (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_auto(FlameTestRun) r = { 0 };

  flame_test_run_cli_va (&r, "compare", base, cur, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Runtime:       1055.00 ms → 1054.00 ms (-1.00 ms, -0.1%)"));
  /* the header says which normalisation is on */
  g_assert_nonnull (
    strstr (r.out, "Normalisation: absolute: times as measured, baseline not scaled"));
  g_assert_nonnull (strstr (r.out, "interval 1 ms assumed"));
  g_assert_nonnull (strstr (r.out, "Top regressions"));
  g_assert_nonnull (strstr (r.out, "convolve_row"));
  g_assert_nonnull (strstr (r.out, "Summary:       1 regression, 1 improvement, 2 new, 2 removed"));

  {
    g_auto(FlameTestRun) rt = { 0 };

    flame_test_run_cli_va (&rt, "compare", "--normalize", "total", base, cur, NULL);
    g_assert_cmpint (rt.status, ==, 0);
    g_assert_nonnull (strstr (rt.out, "Normalisation: total: baseline scaled ×0.9991"));
  }
}

static void
test_exit_codes (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_auto(FlameTestRun) r1 = { 0 };
  g_auto(FlameTestRun) r2 = { 0 };
  g_auto(FlameTestRun) r3 = { 0 };
  g_auto(FlameTestRun) r4 = { 0 };
  g_auto(FlameTestRun) r5 = { 0 };
  g_auto(FlameTestRun) r6 = { 0 };

  flame_test_run_cli_va (&r1, "compare", "--fail-on-regression", base, cur, NULL);
  g_assert_cmpint (r1.status, ==, 2);
  g_assert_nonnull (strstr (r1.err, "2 functions beyond the thresholds (1 regressed, 1 new)"));

  /* the other way round, bilinear_sample doubles (+102%): under a 150% threshold */
  flame_test_run_cli_va (&r2, "compare", "--fail-on-regression", "--threshold-pct", "150", cur,
                         base, NULL);
  g_assert_cmpint (r2.status, ==, 0);

  flame_test_run_cli_va (&r3, "compare", base, "/nonexistent/current.folded", NULL);
  g_assert_cmpint (r3.status, ==, 1);
  g_assert_nonnull (strstr (r3.err, "/nonexistent/current.folded"));

  flame_test_run_cli_va (&r4, "compare", "--format", "yaml", base, cur, NULL);
  g_assert_cmpint (r4.status, ==, 1);
  g_assert_nonnull (strstr (r4.err, "--format"));

  flame_test_run_cli_va (&r5, "compare", base, NULL);
  g_assert_cmpint (r5.status, ==, 1);

  flame_test_run_cli_va (&r6, "frobnicate", NULL);
  g_assert_cmpint (r6.status, ==, 1);
}

static void
test_bad_file_message (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-XXXXXX", &error);
  g_autofree char *bad = g_build_filename (dir, "bad.folded", NULL);
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autoptr(GString) s = g_string_new ("# only comments and\n");
  g_auto(FlameTestRun) r = { 0 };

  for (guint i = 0; i < FLAME_MAX_NAME_LEN + 1; i++)
    g_string_append_c (s, 'x');
  g_string_append (s, " 5\n");
  g_file_set_contents (bad, s->str, s->len, &error);
  g_assert_no_error (error);
  flame_test_run_cli_va (&r, "compare", base, bad, NULL);
  g_assert_cmpint (r.status, ==, 1);
  /* file, line and reason */
  g_assert_nonnull (strstr (r.err, "bad.folded:2: a frame name is longer than"));
  g_unlink (bad);
  g_rmdir (dir);
}

/* A file truncated, grown or replaced while `info` reads it (another
 * program rewriting it, as `perf script > cur.perf` does) is an error that
 * says so, not SIGBUS (exit 135) or a profile of half the file. The change
 * happens half-way through the load (FLAMEDIFF_TEST_CHANGE_WHILE_LOADING,
 * flame-loader.c). */
static void
test_file_changes_while_loading (void)
{
  static const struct { const char *change, *message; } cases[] = {
    { "truncate", "the file got shorter (truncated) while it was being read" },
    { "append", "the file grew while it was being read" },
    { "replace", "the file was replaced by another file while it was being read" },
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "changing.folded", NULL);

  g_assert_no_error (error);
  /* 10 MiB: progress checks at 0, 4 and 8 MiB, the change at 8 */
  flame_test_write_large_folded (path, 10 << 20);
  {
    g_auto(FlameTestRun) ok = { 0 };

    flame_test_run_cli_va (&ok, "info", path, NULL);
    g_assert_cmpint (ok.status, ==, 0);
  }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(FlameTestRun) r = { 0 };

      if (i > 0)
        flame_test_write_large_folded (path, 10 << 20);

      {
        const char *args[] = { "info", path, NULL };
        const char *env[] = { "FLAMEDIFF_TEST_CHANGE_WHILE_LOADING", cases[i].change, NULL };

        flame_test_run_cli_env (&r, args, env);
      }
      g_test_message ("%s: exit %d: %s", cases[i].change, r.status, r.err);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.err, path));
      g_assert_nonnull (strstr (r.err, cases[i].message));
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* cachegrind output used to load as a folded profile (exit 0); callgrind
 * output did too, and now loads as callgrind */
static void
test_info_not_a_profile (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "not-profiles",
                                                 "tiny.cachegrind", NULL);
  g_autofree char *callgrind = g_test_build_filename (G_TEST_DIST, "data", "not-profiles",
                                                      "tiny.callgrind", NULL);
  g_auto(FlameTestRun) r = { 0 };
  g_auto(FlameTestRun) rc = { 0 };

  flame_test_run_cli_va (&r, "info", path, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "this looks like cachegrind output"));
  g_assert_null (strstr (r.out, "Format:"));

  flame_test_run_cli_va (&rc, "info", callgrind, NULL);
  g_assert_cmpint (rc.status, ==, 0);
  g_assert_nonnull (strstr (rc.out, "Format:    callgrind"));
}

static JsonObject *
find_function (JsonArray  *functions,
               const char *name)
{
  for (guint i = 0; i < json_array_get_length (functions); i++)
    {
      JsonObject *f = json_array_get_object_element (functions, i);
      if (g_strcmp0 (json_object_get_string_member (f, "name"), name) == 0)
        return f;
    }
  g_error ("no function %s in the JSON report", name);
  return NULL;
}

static void
test_json (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(FlameTestRun) r = { 0 };
  JsonObject *root, *b, *summary, *f;
  JsonArray *functions;
  gdouble scale;

  flame_test_run_cli_va (&r, "compare", "--format", "json", base, cur, NULL);
  g_assert_cmpint (r.status, ==, 0);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));

  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, 3);
  b = json_object_get_object_member (root, "baseline");
  g_assert_cmpstr (json_object_get_string_member (b, "path"), ==, base);
  g_assert_cmpstr (json_object_get_string_member (b, "format"), ==, "folded");
  g_assert_cmpfloat (json_object_get_double_member (b, "samples"), ==, 1055);
  g_assert_cmpfloat (json_object_get_double_member (b, "interval_ms"), ==, 1);
  g_assert_cmpfloat (json_object_get_double_member (b, "total_ms"), ==, 1055);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root, "current"),
                                                    "total_ms"),
                     ==, 1054);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root,
                                                                                 "normalization"),
                                                  "mode"),
                   ==, "absolute");
  scale = json_object_get_double_member (json_object_get_object_member (root, "normalization"),
                                         "scale");
  g_assert_cmpfloat (scale, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (root, "metric"), ==, "self");
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root,
                                                                                   "thresholds"),
                                                    "pct"),
                     ==, 5);

  summary = json_object_get_object_member (root, "summary");
  g_assert_cmpint (json_object_get_int_member (summary, "regressions"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (summary, "improvements"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (summary, "new"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (summary, "removed"), ==, 2);

  /* every function of either profile, not only the top N */
  functions = json_object_get_array_member (root, "functions");
  g_assert_cmpuint (json_array_get_length (functions), ==, 28);

  f = find_function (functions, "convolve_row");
  g_assert_cmpstr (json_object_get_string_member (f, "status"), ==, "regression");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (f, "baseline_self_ms"),
                                  148 * scale, 1e-5);
  g_assert_cmpfloat (json_object_get_double_member (f, "current_self_ms"), ==, 275);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (f, "delta_self_ms"),
                                  275 - 148 * scale, 1e-5);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (f, "delta_pct"),
                                  (275 - 148 * scale) / (148 * scale) * 100, 1e-4);
  g_assert_true (json_object_get_boolean_member (f, "significant"));

  f = find_function (functions, "main");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (f, "baseline_total_ms"),
                                  1055 * scale, 1e-5);
  g_assert_cmpfloat (json_object_get_double_member (f, "current_total_ms"), ==, 1054);
  g_assert_cmpstr (json_object_get_string_member (f, "status"), ==, "unchanged");

  f = find_function (functions, "rgb_to_ycc_avx2");
  g_assert_cmpstr (json_object_get_string_member (f, "status"), ==, "new");
  g_assert_cmpfloat (json_object_get_double_member (f, "delta_pct"), ==, 100);
  f = find_function (functions, "legacy_color_convert");
  g_assert_cmpstr (json_object_get_string_member (f, "status"), ==, "removed");
  f = find_function (functions, "bilinear_sample");
  g_assert_cmpstr (json_object_get_string_member (f, "status"), ==, "improvement");
  /* unchanged within noise: +0.1% after scaling */
  f = find_function (functions, "inflate");
  g_assert_cmpstr (json_object_get_string_member (f, "status"), ==, "unchanged");
  g_assert_false (json_object_get_boolean_member (f, "significant"));
}

/* Total counts a function once per stack, and the report is per
 * function, not per path. */
static void
test_json_recursion (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-XXXXXX", &error);
  g_autofree char *b = g_build_filename (dir, "b.folded", NULL);
  g_autofree char *c = g_build_filename (dir, "c.folded", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(FlameTestRun) r = { 0 };
  JsonArray *functions;
  JsonObject *f;

  g_file_set_contents (b, "main;fib;fib;fib 4\nmain;fib 1\nmain;other;fib 2\n", -1, &error);
  g_file_set_contents (c, "main;fib;fib;fib 8\nmain;fib 1\nmain;other;fib 2\n", -1, &error);
  g_assert_no_error (error);
  flame_test_run_cli_va (&r, "compare", "--format", "json", "--normalize", "none", b, c, NULL);
  g_assert_cmpint (r.status, ==, 0);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  functions = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                            "functions");
  f = find_function (functions, "fib");
  g_assert_cmpfloat (json_object_get_double_member (f, "baseline_total_ms"), ==, 7);
  g_assert_cmpfloat (json_object_get_double_member (f, "current_total_ms"), ==, 11);
  g_assert_cmpfloat (json_object_get_double_member (f, "baseline_self_ms"), ==, 7);
  g_assert_cmpfloat (json_object_get_double_member (f, "delta_self_ms"), ==, 4);
  g_unlink (b);
  g_unlink (c);
  g_rmdir (dir);
}

/* issue 11, Record and Diff: the current run only gained new_feature;
 * common_work took 400 ms in both. Absolute time (the default) leaves it
 * unchanged; scaled to the current total it read as an improvement. */
static const char *
status_of (const char *json,
           const char *name)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *functions;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  functions = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                            "functions");
  return g_intern_string (
    json_object_get_string_member (find_function (functions, name), "status"));
}

static void
test_default_absolute (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-XXXXXX", &error);
  g_autofree char *b = g_build_filename (dir, "gained-base.folded", NULL);
  g_autofree char *c = g_build_filename (dir, "gained-cur.folded", NULL);
  const char *modes[] = { NULL, "absolute", "none", "total" };

  g_file_set_contents (b, "app;main;common_work 400\napp;main 10\n", -1, &error);
  g_file_set_contents (c, "app;main;common_work 400\napp;main 10\napp;main;new_feature 200\n", -1,
                       &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_auto(FlameTestRun) r = { 0 };
      const char *want = i < 3 ? "unchanged" : "improvement";

      if (modes[i] == NULL)
        flame_test_run_cli_va (&r, "compare", "--format", "json", b, c, NULL);
      else
        flame_test_run_cli_va (&r, "compare", "--format", "json", "--normalize", modes[i], b, c,
                               NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (status_of (r.out, "common_work"), ==, want);
      g_assert_cmpstr (status_of (r.out, "new_feature"), ==, "new");
      g_assert_nonnull (strstr (r.out, i < 3 ? "\"mode\": \"absolute\"" : "\"mode\": \"total\""));
    }
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "compare", "--normalize", "scaled", b, c, NULL);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.err, "expected absolute or total"));
  }
  g_unlink (b);
  g_unlink (c);
  g_rmdir (dir);
}

static void
test_markdown (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_auto(FlameTestRun) r = { 0 };

  flame_test_run_cli_va (&r, "compare", "--format", "markdown", "--top", "3", base, cur, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "<!-- flamediff-report -->\n"));
  g_assert_nonnull (strstr (r.out, "| Function | File | Baseline ms | Current ms | Δ ms | Δ % |"));
  g_assert_nonnull (strstr (r.out, "| `convolve_row` | — | 148.00 | 275.00 | +127.00 | +85.8% |"));
  g_assert_nonnull (strstr (r.out, "**Normalisation:** absolute: times as measured"));
  g_assert_nonnull (strstr (r.out, "1 ms per sample assumed"));
  g_assert_nonnull (strstr (r.out, "**Summary:** 1 regression, 1 improvement, 2 new, 2 removed"));
}

static GHashTable *
line_set (const char *text)
{
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strchomp (lines[i]);
      if (*lines[i])
        g_hash_table_add (set, g_strdup (lines[i]));
    }
  return set;
}

static void
assert_same_lines (const char *got,
                   const char *want)
{
  g_autoptr(GHashTable) a = line_set (got);
  g_autoptr(GHashTable) b = line_set (want);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, b);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (a, key))
      g_error ("missing line: %s", (char *) key);
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (b, key))
      g_error ("unexpected line: %s", (char *) key);
}

/* inferno's diff-folded fixtures: with --normalize none the 3-column
 * output equals inferno's default result as a set of lines. */
static void
test_folded_inferno (void)
{
  g_autofree char *before = flame_test_corpus_path ("inferno/tests/data/diff-folded/before.txt");
  g_autofree char *after = flame_test_corpus_path ("inferno/tests/data/diff-folded/after.txt");
  g_autofree char *expected = flame_test_corpus_path (
    "inferno/tests/data/diff-folded/results/default.txt");
  g_autofree char *expected_hex = flame_test_corpus_path (
    "inferno/tests/data/diff-folded/results/strip_hex.txt");
  g_autofree char *want = NULL;
  g_autofree char *want_hex = NULL;
  g_auto(FlameTestRun) r = { 0 };
  g_auto(FlameTestRun) rh = { 0 };

  if (before == NULL || after == NULL || expected == NULL || expected_hex == NULL)
    return;
  flame_test_run_cli_va (&r, "compare", "--format", "folded", "--normalize", "none", before, after,
                         NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (expected, &want, NULL, NULL));
  assert_same_lines (r.out, want);

  flame_test_run_cli_va (&rh, "compare", "--format", "folded", "--normalize", "none", "--strip-hex",
                         before, after, NULL);
  g_assert_cmpint (rh.status, ==, 0);
  g_assert_true (g_file_get_contents (expected_hex, &want_hex, NULL, NULL));
  assert_same_lines (rh.out, want_hex);
}

/* The 3-column output loads back as a ready-made pair and gives the
 * same report. */
static void
test_folded_roundtrip (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-XXXXXX", &error);
  g_autofree char *pair = g_build_filename (dir, "pair.folded", NULL);
  g_auto(FlameTestRun) r1 = { 0 };
  g_auto(FlameTestRun) r2 = { 0 };
  g_auto(FlameTestRun) r3 = { 0 };

  flame_test_run_cli_va (&r1, "compare", "--format", "folded", "--normalize", "none", "-o", pair,
                         base, cur, NULL);
  g_assert_cmpint (r1.status, ==, 0);
  flame_test_run_cli_va (&r2, "compare", "--format", "json", base, cur, NULL);
  flame_test_run_cli_va (&r3, "compare", "--format", "json", pair, NULL);
  g_assert_cmpint (r3.status, ==, 0);
  /* same numbers; only the paths and formats in the header differ */
  g_assert_nonnull (strstr (r3.out, "\"format\": \"folded-diff\""));
  g_assert_cmpstr (strstr (r2.out, "\"normalization\""), ==, strstr (r3.out, "\"normalization\""));
  g_unlink (pair);
  g_rmdir (dir);
}

/* -o: a regular file replaced whole (no temporary file left beside it),
 * the same bytes as on standard output; a device written in place and
 * left a device; a write that fails (a full device, a missing folder)
 * an error naming the file, with exit status 1. */
static void
test_output_file (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-XXXXXX", &error);
  g_autofree char *out = g_build_filename (dir, "out.folded", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-dir", "out.folded", NULL);
  g_autofree char *written = NULL;
  g_autoptr(GDir) listing = NULL;
  g_auto(FlameTestRun) to_stdout = { 0 };
  GStatBuf st;

  g_assert_true (g_file_set_contents (out, "old contents\n", -1, NULL));
  flame_test_run_cli_va (&to_stdout, "compare", "--format", "folded", base, cur, NULL);
  g_assert_cmpint (to_stdout.status, ==, 0);
  for (guint i = 0; i < 2; i++)
    {
      const char *format = i == 0 ? "folded" : "markdown";
      g_auto(FlameTestRun) r = { 0 };

      flame_test_run_cli_va (&r, "compare", "--format", format, "-o", out, base, cur, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (r.err, ==, "");
      g_clear_pointer (&written, g_free);
      g_assert_true (g_file_get_contents (out, &written, NULL, NULL));
      if (i == 0)
        g_assert_cmpstr (written, ==, to_stdout.out);
      else
        g_assert_nonnull (strstr (written, "<!-- flamediff-report -->"));
    }
  listing = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_dir_read_name (listing), ==, "out.folded");
  g_assert_null (g_dir_read_name (listing));

  {
    /* a symbolic link is written through and stays a link (-o
     * /dev/stdout, a link to /proc/self/fd/1, when that is a file) */
    g_auto(FlameTestRun) r = { 0 };
    g_autofree char *target = g_build_filename (dir, "target.folded", NULL);
    g_autofree char *link = g_build_filename (dir, "link.folded", NULL);

    g_assert_true (g_file_set_contents (target, "old contents\n", -1, NULL));
    g_assert_cmpint (symlink (target, link), ==, 0);
    flame_test_run_cli_va (&r, "compare", "--format", "folded", "-o", link, base, cur, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpint (g_lstat (link, &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
    g_clear_pointer (&written, g_free);
    g_assert_true (g_file_get_contents (target, &written, NULL, NULL));
    g_assert_cmpstr (written, ==, to_stdout.out);
    g_assert_cmpint (g_unlink (link), ==, 0);
    g_assert_cmpint (g_unlink (target), ==, 0);
  }
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "compare", "--format", "folded", "-o", "/dev/null", base, cur,
                           NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpint (g_stat ("/dev/null", &st), ==, 0);
    g_assert_true (S_ISCHR (st.st_mode));
  }
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_auto(FlameTestRun) r = { 0 };

      flame_test_run_cli_va (&r, "compare", "--format", "folded", "-o", "/dev/full", base, cur,
                             NULL);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.err, "cannot write to /dev/full"));
    }
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "convert", "-o", missing, base, NULL);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.err, missing));
    g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  }
  g_unlink (out);
  g_rmdir (dir);
}

static void
test_info (void)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(FlameTestRun) r = { 0 };
  g_auto(FlameTestRun) t = { 0 };
  JsonObject *root;

  flame_test_run_cli_va (&r, "info", "--json", base, NULL);
  g_assert_cmpint (r.status, ==, 0);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "folded");
  g_assert_cmpfloat (json_object_get_double_member (root, "samples"), ==, 1055);
  g_assert_cmpfloat (json_object_get_double_member (root, "total_ms"), ==, 1055);
  g_assert_true (json_object_get_null_member (root, "interval_ms"));
  g_assert_cmpint (json_object_get_int_member (root, "frames"), ==, 26);
  g_assert_cmpint (json_object_get_int_member (root, "stacks"), ==, 14);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "threads")), ==, 0);

  flame_test_run_cli_va (&t, "info", base, NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_assert_nonnull (strstr (t.out, "Format:    folded"));
  g_assert_nonnull (strstr (t.out, "Interval:  unknown (1 ms assumed)"));

  /* a file whose weights are time assumes no interval */
  {
    g_autofree char *dir = g_dir_make_tmp ("flamediff-info-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
    g_auto(FlameTestRun) u = { 0 };

    g_assert_true (g_file_set_contents (
      path, "[{\"ph\":\"X\",\"ts\":0,\"dur\":5000,\"pid\":1,\"tid\":1,\"name\":\"f\"}]", -1, NULL));
    flame_test_run_cli_va (&u, "info", path, NULL);
    g_assert_cmpint (u.status, ==, 0);
    g_assert_nonnull (strstr (u.out, "Format:    chrome-trace"));
    /* the mean per sample, as compare says */
    g_assert_nonnull (strstr (u.out, "Interval:  5 ms\n"));
    g_assert_null (strstr (u.out, "assumed"));
    g_assert_nonnull (strstr (u.out, "tid 1: 1 sample\n"));
    {
      g_auto(FlameTestRun) v = { 0 };

      flame_test_run_cli_va (&v, "compare", path, path, NULL);
      g_assert_cmpint (v.status, ==, 0);
      g_assert_nonnull (strstr (v.out, "(chrome-trace, 1 sample, interval 5 ms)"));
    }
    g_remove (path);
    g_rmdir (dir);
  }
}

/* A memory recording as `record --memory` writes it: one speedscope
 * profile per metric */
static const char memory_recording[] =
  "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
  "\"flamediff\":{\"unit\":\"bytes\","
  "\"profile-units\":[\"bytes\",\"count\",\"bytes\",\"bytes\"]},"
  "\"shared\":{\"frames\":[{\"name\":\"main\"},{\"name\":\"parse\"},{\"name\":\"cache\"}]},"
  "\"profiles\":["
  "{\"type\":\"sampled\",\"name\":\"allocated\",\"unit\":\"bytes\",\"startValue\":0,"
  "\"endValue\":7000,\"samples\":[[0,1],[0,2]],\"weights\":[4000,3000]},"
  "{\"type\":\"sampled\",\"name\":\"allocations\",\"unit\":\"none\",\"startValue\":0,"
  "\"endValue\":9,\"samples\":[[0,1],[0,2]],\"weights\":[6,3]},"
  "{\"type\":\"sampled\",\"name\":\"peak\",\"unit\":\"bytes\",\"startValue\":0,"
  "\"endValue\":2500,\"samples\":[[0,1],[0,2]],\"weights\":[500,2000]},"
  "{\"type\":\"sampled\",\"name\":\"leaked\",\"unit\":\"bytes\",\"startValue\":0,"
  "\"endValue\":1000,\"samples\":[[0,2]],\"weights\":[1000]}]}";

/* --metric is one option of info, convert, collapse, compare and render:
 * it picks a memory recording's view, and a name the file does not hold
 * is an error that lists what it holds */
static void
test_metric_option (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-metric-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "memory.json", NULL);
  g_autofree char *out = g_build_filename (dir, "peak.folded", NULL);
  g_autofree char *folded = NULL;
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  static const struct { const char *metric, *lines; } views[] = {
    { "peak", "main;cache 2000\nmain;parse 500\n" },
    { "leaked", "main;cache 1000\n" },
    { "allocations", "main;cache 3\nmain;parse 6\n" },
  };

  g_assert_true (g_file_set_contents (path, memory_recording, -1, NULL));
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "convert", "--metric", "peak", "-o", out, path, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_true (g_file_get_contents (out, &folded, NULL, NULL));
    g_assert_nonnull (strstr (folded, "main;cache 2000\nmain;parse 500\n"));
    g_assert_nonnull (strstr (folded, "sample_type=peak"));
  }
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      g_auto(FlameTestRun) r = { 0 };
      g_auto(FlameTestRun) same = { 0 };

      flame_test_run_cli_va (&r, "convert", "--metric", views[i].metric, path, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, views[i].lines));
      /* the older name of the option loads the same */
      flame_test_run_cli_va (&same, "convert", "--sample-type", views[i].metric, path, NULL);
      g_assert_cmpstr (same.out, ==, r.out);
    }
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "info", "--metric", "leaked", path, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_nonnull (strstr (r.out, "Sample type: leaked\n"));
    g_assert_nonnull (strstr (r.out, "(1000 bytes)"));
  }
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "compare", "--metric", "peak", path, path, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_nonnull (strstr (r.out, "sample type peak"));
  }
  /* unknown metrics: the file's own list, in every command */
  {
    static const char *const commands[] = { "convert", "info" };

    for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
      {
        g_auto(FlameTestRun) r = { 0 };

        flame_test_run_cli_va (&r, commands[i], "--metric", "retained", path, NULL);
        g_assert_cmpint (r.status, ==, 1);
        g_assert_cmpstr (r.out, ==, "");
        g_assert_nonnull (strstr (r.err, "“retained”"));
        g_assert_nonnull (strstr (r.err, "allocated, allocations, peak, leaked"));
      }
  }
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "compare", "--metric", "retained", path, path, NULL);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.err, "“retained”"));
  }
  /* a file of one metric has none to choose */
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "convert", "--metric", "peak", base, NULL);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.err, "no metric “peak”: the file (folded) holds one metric"));
  }
  /* two names for two metrics */
  {
    g_auto(FlameTestRun) r = { 0 };

    flame_test_run_cli_va (&r, "info", "--metric", "peak", "--sample-type", "leaked", path, NULL);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.err, "--metric peak and --sample-type leaked name two metrics"));
  }
  /* collapse: the metric is a perf event, --event its other name */
  {
    g_autofree char *perf = g_build_filename (dir, "perf.txt", NULL);
    g_auto(FlameTestRun) first = { 0 };
    g_auto(FlameTestRun) metric = { 0 };
    g_auto(FlameTestRun) event = { 0 };
    g_auto(FlameTestRun) none = { 0 };

    g_assert_true (g_file_set_contents (
      perf,
      "prog 1234 100.000000:       1000 cycles: \n"
      "\t401000 work+0x10 (/bin/prog)\n\t402000 main+0x20 (/bin/prog)\n\n"
      "prog 1234 100.001000:       7 instructions: \n"
      "\t403000 other+0x10 (/bin/prog)\n\t402000 main+0x20 (/bin/prog)\n\n", -1, NULL));
    flame_test_run_cli_va (&first, "collapse", perf, NULL);
    flame_test_run_cli_va (&metric, "collapse", "--metric", "instructions", perf, NULL);
    flame_test_run_cli_va (&event, "collapse", "--event", "instructions", perf, NULL);
    flame_test_run_cli_va (&none, "collapse", "--metric", "branches", perf, NULL);
    g_assert_cmpstr (first.out, ==, "prog;main;work 1000\n");
    g_assert_cmpstr (metric.out, ==, "prog;main;other 7\n");
    g_assert_cmpstr (event.out, ==, metric.out);
    g_assert_cmpint (none.status, ==, 1);
    g_assert_nonnull (strstr (none.err, "no samples of event “branches”"));
    g_unlink (perf);
  }
  /* each command's --help says what its --metric names */
  {
    static const struct { const char *command, *says; } helps[] = {
      { "info", "Load one of the file's metrics: allocated, allocations, peak or leaked" },
      { "convert", "Load one of the file's metrics: allocated, allocations, peak or leaked" },
      { "compare", "Compare self (default; total for pstats files) or total time; or one" },
      { "render", "Compare self (default; total for pstats files) or total time; or one" },
      { "collapse", "Keep samples of the perf event METRIC" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (helps); i++)
      {
        g_auto(FlameTestRun) r = { 0 };

        flame_test_run_cli_va (&r, helps[i].command, "--help", NULL);
        g_assert_cmpint (r.status, ==, 0);
        g_assert_nonnull (strstr (r.out, "--metric=METRIC"));
        g_assert_nonnull (strstr (r.out, helps[i].says));
      }
  }
  g_unlink (out);
  g_unlink (path);
  g_rmdir (dir);
}

/* Every command's usage line names its arguments once ("info [OPTION…]
 * FILE", not "FILE FILE"); "Usage" and "[OPTION…]" are GLib's, in the
 * locale's language */
static void
test_help_usage (void)
{
  static const struct { const char *command, *args; } cases[] = {
    { "compare", "BASELINE CURRENT" },
    { "render", "BASELINE CURRENT | FILE" },
    { "info", "FILE" },
    { "collapse", "FILE" },
    { "convert", "FILE" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(FlameTestRun) r = { 0 };
      g_autofree char *start = g_strdup_printf ("\n  %s ", cases[i].command);
      g_autofree char *args = g_strdup_printf ("] %s\n", cases[i].args);
      const char *line, *end;
      g_autofree char *usage = NULL;

      flame_test_run_cli_va (&r, cases[i].command, "--help", NULL);
      g_assert_cmpint (r.status, ==, 0);
      line = strstr (r.out, start);
      g_assert_nonnull (line);
      end = strchr (line + 1, '\n');
      g_assert_nonnull (end);
      usage = g_strndup (line, end + 1 - line);
      if (!g_str_has_suffix (usage, args))
        g_error ("%s --help: the usage line “%s” does not end in “%s”",
                 cases[i].command, usage, args);
    }
}

/* --thread keeps one thread of a file that holds several, on both sides */
static void
test_thread_option (void)
{
  g_autofree char *worker = flame_test_corpus_path (
    "speedscope/sample/profiles/Chrome/66/worker.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(FlameTestRun) all = { 0 };
  g_auto(FlameTestRun) one = { 0 };
  g_auto(FlameTestRun) none = { 0 };
  JsonObject *b;

  if (worker == NULL)
    return;
  flame_test_run_cli_va (&all, "compare", "--format", "json", worker, worker, NULL);
  flame_test_run_cli_va (&one, "compare", "--format", "json", "--thread", "31089", worker, worker,
                         NULL);
  g_assert_cmpint (all.status, ==, 0);
  g_assert_cmpint (one.status, ==, 0);
  json_parser_load_from_data (parser, one.out, -1, &error);
  g_assert_no_error (error);
  b = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                     "baseline");
  g_assert_cmpfloat (json_object_get_double_member (b, "samples"), ==, 3792);
  g_assert_nonnull (strstr (all.out, "\"samples\": 8239"));

  flame_test_run_cli_va (&none, "compare", "--thread", "999", worker, worker, NULL);
  g_assert_cmpint (none.status, ==, 1);
  g_assert_nonnull (strstr (none.err, "thread 999"));
}

/* several runs per side: a folder (its profiles by name, other files
 * ignored with a note) and repeated --baseline/--current compare the
 * same means */
static void
test_several_runs (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-runs-XXXXXX", NULL);
  g_autofree char *bdir = g_build_filename (dir, "base", NULL);
  g_autofree char *b1 = g_build_filename (bdir, "1.folded", NULL);
  g_autofree char *b2 = g_build_filename (bdir, "2.folded", NULL);
  g_autofree char *note = g_build_filename (bdir, "README.txt", NULL);
  g_autofree char *c1 = g_build_filename (dir, "c1.folded", NULL);
  g_autofree char *c2 = g_build_filename (dir, "c2.folded", NULL);
  g_auto(FlameTestRun) r1 = { 0 };
  g_auto(FlameTestRun) r2 = { 0 };
  g_auto(FlameTestRun) r3 = { 0 };

  g_assert_cmpint (g_mkdir (bdir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (b1, "main;work 60\nmain;parse 40\n", -1, NULL));
  g_assert_true (g_file_set_contents (b2, "main;work 80\nmain;parse 20\n", -1, NULL));
  g_assert_true (g_file_set_contents (note, "\x01\x02 not a profile\n", -1, NULL));
  g_assert_true (g_file_set_contents (c1, "main;work 90\nmain;parse 30\n", -1, NULL));
  g_assert_true (g_file_set_contents (c2, "main;work 110\nmain;parse 30\n", -1, NULL));

  flame_test_run_cli_va (&r1, "compare", "--format", "json", "--baseline", b1, "--baseline", b2,
                         "--current", c1, "--current", c2, NULL);
  g_assert_cmpint (r1.status, ==, 0);
  g_assert_nonnull (strstr (r1.out, "\"total_ms\": 100"));
  g_assert_nonnull (strstr (r1.out, "\"total_ms\": 130"));

  flame_test_run_cli_va (&r2, "compare", "--format", "json", "--current", c1, "--current", c2,
                         "--baseline", bdir, NULL);
  g_assert_cmpint (r2.status, ==, 0);
  g_assert_nonnull (strstr (r2.err, "README.txt: not a profile, ignored"));
  g_assert_cmpstr (r2.out, ==, r1.out);

  /* both ways at once is ambiguous */
  flame_test_run_cli_va (&r3, "compare", b1, c1, "--baseline", b2, NULL);
  g_assert_cmpint (r3.status, ==, 1);
  g_assert_nonnull (strstr (r3.err, "either as BASELINE CURRENT or with --baseline"));

  for (const char *const *p = (const char *const[]) { b1, b2, note, c1, c2, NULL }; *p; p++)
    g_unlink (*p);
  g_rmdir (bdir);
  g_rmdir (dir);
}

/* The CLI binds its text domain (docs/DESIGN.md, Translations): under a
 * German locale an error of the core is German, and the reports CI reads
 * (JSON, Markdown, folded) are the same bytes as under C.UTF-8. The
 * catalog is the build tree's (po/, built before this test). */
static void
run_in (FlameTestRun      *r,
        gboolean           german,
        const char *const *args)
{
  g_autofree char *localedir = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "po", NULL);
  const char *env[] = {
    "LC_ALL", german ? "de_DE.UTF-8" : "C.UTF-8",
    "LANGUAGE", german ? "de" : "",
    "FLAMEDIFF_LOCALEDIR", localedir,
    NULL
  };

  flame_test_run_cli_env (r, args, env);
}

static void
test_messages_translated (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-cli-l10n-XXXXXX", &error);
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autofree char *cur = flame_test_example_path ("current.folded");
  g_autofree char *mo = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "po", "de",
                                          "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);
  const char *empty_side[] = { "compare", dir, cur, NULL };
  g_auto(FlameTestRun) de = { 0 };
  g_auto(FlameTestRun) en = { 0 };

  g_assert_no_error (error);
  g_assert_true (g_file_test (mo, G_FILE_TEST_EXISTS));
  if (setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    g_error ("the locale de_DE.UTF-8 is not generated (make deps does it)");
  flame_test_set_locale ();

  /* an error of the core (flame-comparison.c), in German and in English */
  run_in (&de, TRUE, empty_side);
  run_in (&en, FALSE, empty_side);
  g_assert_cmpint (de.status, ==, 1);
  g_assert_cmpint (en.status, ==, 1);
  g_assert_nonnull (strstr (de.err, ": kein Profil in diesem Ordner"));
  g_assert_nonnull (strstr (en.err, ": no profile in this folder"));

  /* the reports for machines and CI do not change */
  for (guint i = 0; i < 3; i++)
    {
      const char *formats[] = { "json", "markdown", "folded" };
      const char *args[] = { "compare", "--format", formats[i], "--top", "3", base, cur, NULL };
      g_auto(FlameTestRun) rde = { 0 };
      g_auto(FlameTestRun) ren = { 0 };

      run_in (&rde, TRUE, args);
      run_in (&ren, FALSE, args);
      g_assert_cmpint (rde.status, ==, 0);
      g_assert_cmpint (ren.status, ==, 0);
      g_assert_cmpstr (rde.out, ==, ren.out);
      g_assert_cmpstr (rde.err, ==, "");
    }
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  flame_test_set_locale ();

  g_test_add_func ("/cli/compare/text", test_text);
  g_test_add_func ("/cli/compare/exit-codes", test_exit_codes);
  g_test_add_func ("/cli/compare/bad-file", test_bad_file_message);
  g_test_add_func ("/cli/compare/json", test_json);
  g_test_add_func ("/cli/compare/json-recursion", test_json_recursion);
  g_test_add_func ("/cli/compare/markdown", test_markdown);
  g_test_add_func ("/cli/compare/default-absolute", test_default_absolute);
  g_test_add_func ("/cli/compare/folded-inferno", test_folded_inferno);
  g_test_add_func ("/cli/compare/folded-roundtrip", test_folded_roundtrip);
  g_test_add_func ("/cli/compare/output-file", test_output_file);
  g_test_add_func ("/cli/info", test_info);
  g_test_add_func ("/cli/info/not-a-profile", test_info_not_a_profile);
  g_test_add_func ("/cli/info/file-changes-while-loading", test_file_changes_while_loading);
  g_test_add_func ("/cli/help-usage", test_help_usage);
  g_test_add_func ("/cli/metric", test_metric_option);
  g_test_add_func ("/cli/compare/thread", test_thread_option);
  g_test_add_func ("/cli/compare/several-runs", test_several_runs);
  g_test_add_func ("/cli/messages-translated", test_messages_translated);

  return g_test_run ();
}

/* test-diff.c: the diff engine against CPython 3.15's differential flame
 * graph test cases (shared/docs/cpython-diff.md §6: T1–T12 and 6.1),
 * adapted to our data model, plus the noise test.
 *
 * Mapping of CPython's node fields to ours (1 sample = 1 ms in every
 * case, as CPython's tests sample at 1000 µs):
 *   self_time      = values.self_c
 *   baseline       = values.self_b       (already × scale)
 *   baseline_total = values.total_b
 *   diff           = self_c − self_b
 *   diff_pct       = flame_diff_percent (&values, FLAME_METRIC_SELF)
 * CPython's "promoted root" is our first real frame under the synthetic
 * root node.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame-comparison.h"
#include "flame-diff.h"
#include "flame-loader.h"
#include "flame-merge.h"
#include "flame-provenance.h"
#include "flame-report.h"
#include "flame-test-utils.h"

#define S(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define NONE   ((const char *const[]) { NULL })

static FlameDiff *
make_diff_full (const char *const      *base,
                const char *const      *cur,
                const FlameDiffOptions *options)
{
  g_autoptr(FlameProfile) b = flame_test_profile (base);
  g_autoptr(FlameProfile) c = flame_test_profile (cur);
  g_autoptr(GError) error = NULL;
  FlameDiff *diff = flame_diff_new (b, c, options, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (diff);
  return diff;
}

static FlameDiff *
make_diff (const char *const *base,
           const char *const *cur)
{
  return make_diff_full (base, cur, NULL);
}

/* the merged PR's semantics: the baseline scaled to the current total */
static FlameDiff *
make_diff_total (const char *const *base,
                 const char *const *cur)
{
  FlameDiffOptions options;

  flame_diff_options_init (&options);
  options.normalize = FLAME_NORMALIZE_TOTAL;
  return make_diff_full (base, cur, &options);
}

/* The diff node at "func2;func1" (function names, root first). */
static guint32
find_node (FlameDiff  *diff,
           FlameTree  *tree,
           const char *path)
{
  g_auto(GStrv) names = g_strsplit (path, ";", -1);
  FlameFrames *frames = flame_diff_get_frames (diff);
  guint32 node = FLAME_TREE_ROOT;

  for (guint i = 0; names[i] != NULL; i++)
    {
      guint32 child;

      for (child = tree->nodes[node].first_child;
           child != FLAME_TREE_NONE;
           child = tree->nodes[child].next_sibling)
        if (g_strcmp0 (flame_frames_get_name (frames, tree->nodes[child].frame), names[i]) == 0)
          break;
      if (child == FLAME_TREE_NONE)
        return FLAME_TREE_NONE;
      node = child;
    }
  return node;
}

static guint
n_children (FlameTree *tree,
            guint32    node)
{
  guint n = 0;

  for (guint32 c = tree->nodes[node].first_child; c != FLAME_TREE_NONE;
       c = tree->nodes[c].next_sibling)
    n++;
  return n;
}

typedef struct
{
  gdouble         self_time;
  gdouble         baseline;
  gdouble         baseline_total;
  gdouble         diff;
  gdouble         diff_pct;
  FlameChange     change;
} Fields;

static Fields
fields (FlameDiff  *diff,
        const char *path)
{
  FlameTree *tree = flame_diff_get_tree (diff);
  guint32 node = find_node (diff, tree, path);
  FlameDiffValues v;
  Fields f;

  g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
  flame_diff_get_values (diff, tree, node, &v);
  f.self_time = v.self_c;
  f.baseline = v.self_b;
  f.baseline_total = v.total_b;
  f.diff = v.self_c - v.self_b;
  f.diff_pct = flame_diff_percent (&v, FLAME_METRIC_SELF);
  f.change = flame_diff_classify (diff, tree, node, FLAME_METRIC_SELF);
  return f;
}

#define assert_close(a, b) g_assert_cmpfloat_with_epsilon ((a), (b), 1e-7)

/* T1 test_diff_flamegraph_identical_profiles */
static void
test_t1_identical (void)
{
  const char *const *s = S ("file.py:20:func2;file.py:10:func1",
                            "file.py:20:func2;file.py:10:func1",
                            "file.py:20:func2;file.py:10:func1");
  g_autoptr(FlameDiff) diff = make_diff (s, s);
  FlameTree *tree = flame_diff_get_tree (diff);
  Fields f1, f2;

  g_assert_cmpfloat (flame_diff_get_samples (diff, FLAME_DIFF_BASELINE), ==, 3);
  g_assert_cmpfloat (flame_diff_get_samples (diff, FLAME_DIFF_CURRENT), ==, 3);
  assert_close (flame_diff_get_scale (diff), 1.0);
  g_assert_cmpuint (n_children (tree, find_node (diff, tree, "func2")), ==, 1);

  f1 = fields (diff, "func2;func1");
  g_assert_cmpfloat (f1.self_time, ==, 3);
  assert_close (f1.baseline, 3.0);
  assert_close (f1.diff, 0.0);
  assert_close (f1.diff_pct, 0.0);
  assert_close (f1.baseline_total, 3.0);
  g_assert_cmpint (f1.change, ==, FLAME_CHANGE_NEUTRAL);

  f2 = fields (diff, "func2");
  g_assert_cmpfloat (f2.self_time, ==, 0);
  assert_close (f2.baseline, 0.0);
  assert_close (f2.baseline_total, 3.0);
  assert_close (f2.diff_pct, 0.0);
  g_assert_cmpint (f2.change, ==, FLAME_CHANGE_NEUTRAL);

  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 0);
}

/* T2 test_diff_flamegraph_new_function */
static void
test_t2_new_function (void)
{
  g_autoptr(FlameDiff) diff =
    make_diff (S ("file.py:20:func2;file.py:10:func1"),
               S ("file.py:20:func2;file.py:10:func1;file.py:30:new_func"));
  FlameTree *tree = flame_diff_get_tree (diff);
  Fields nf, f1;

  g_assert_cmpuint (n_children (tree, find_node (diff, tree, "func2;func1")), ==, 1);
  nf = fields (diff, "func2;func1;new_func");
  assert_close (nf.baseline, 0.0);
  g_assert_cmpfloat (nf.self_time, ==, 1);
  assert_close (nf.diff, nf.self_time);
  assert_close (nf.diff_pct, 100.0);
  g_assert_cmpint (nf.change, ==, FLAME_CHANGE_NEW);

  f1 = fields (diff, "func2;func1");
  g_assert_cmpfloat (f1.self_time, ==, 0);
  assert_close (f1.baseline, 1.0);
  assert_close (f1.diff, -1.0);
  assert_close (f1.diff_pct, -100.0);
  g_assert_cmpint (f1.change, ==, FLAME_CHANGE_IMPROVEMENT_DEEP);
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 0);
}

static void
check_t3 (FlameDiff *diff,
          const char *hot_path,
          const char *cold_path,
          const char *caller)
{
  Fields hot, cold, root;

  assert_close (flame_diff_get_scale (diff), 2.0);
  hot = fields (diff, hot_path);
  assert_close (hot.baseline, 2.0);
  g_assert_cmpfloat (hot.self_time, ==, 3);
  assert_close (hot.diff, 1.0);
  assert_close (hot.diff_pct, 50.0);
  assert_close (hot.baseline_total, 2.0);
  /* 50 is not > 50: light, not medium */
  g_assert_cmpint (hot.change, ==, FLAME_CHANGE_REGRESSION_LIGHT);

  cold = fields (diff, cold_path);
  assert_close (cold.baseline, 2.0);
  g_assert_cmpfloat (cold.self_time, ==, 1);
  assert_close (cold.diff, -1.0);
  assert_close (cold.diff_pct, -50.0);
  /* -50 is not < -50: light, not medium */
  g_assert_cmpint (cold.change, ==, FLAME_CHANGE_IMPROVEMENT_LIGHT);

  root = fields (diff, caller);
  g_assert_cmpfloat (root.self_time, ==, 0);
  assert_close (root.baseline, 0.0);
  assert_close (root.baseline_total, 4.0);
  assert_close (root.diff_pct, 0.0);
}

/* T3 test_diff_flamegraph_changed_functions */
static void
test_t3_changed_functions (void)
{
  const char *h = "file.py:20:caller;file.py:10:hot_leaf";
  const char *c = "file.py:20:caller;file.py:30:cold_leaf";
  g_autoptr(FlameDiff) diff = make_diff_total (S (h, c), S (h, h, h, c));
  g_autoptr(FlameDiff) absolute = make_diff (S (h, c), S (h, h, h, c));
  Fields hot, cold, root;

  check_t3 (diff, "caller;hot_leaf", "caller;cold_leaf", "caller");

  /* CPython 3.15.2 (absolute time, the default): cold_leaf did not
   * change and stays neutral; hot_leaf tripled */
  assert_close (flame_diff_get_scale (absolute), 1.0);
  hot = fields (absolute, "caller;hot_leaf");
  assert_close (hot.baseline, 1.0);
  assert_close (hot.diff, 2.0);
  assert_close (hot.diff_pct, 200.0);
  g_assert_cmpint (hot.change, ==, FLAME_CHANGE_REGRESSION_DEEP);
  cold = fields (absolute, "caller;cold_leaf");
  assert_close (cold.baseline, 1.0);
  assert_close (cold.diff, 0.0);
  assert_close (cold.diff_pct, 0.0);
  g_assert_cmpint (cold.change, ==, FLAME_CHANGE_NEUTRAL);
  root = fields (absolute, "caller");
  assert_close (root.baseline_total, 2.0);
}

/* T4 test_diff_flamegraph_scale_factor */
static void
test_t4_scale_factor (void)
{
  const char *s = "file.py:20:func2;file.py:10:func1";
  g_autoptr(FlameDiff) diff = make_diff_total (S (s), S (s, s, s, s));
  g_autoptr(FlameDiff) absolute = make_diff (S (s), S (s, s, s, s));
  Fields f1;

  /* absolute time (default): four times the samples, four times the time */
  assert_close (flame_diff_get_scale (absolute), 1.0);
  f1 = fields (absolute, "func2;func1");
  assert_close (f1.baseline, 1.0);
  assert_close (f1.diff, 3.0);
  assert_close (f1.diff_pct, 300.0);
  g_assert_cmpint (f1.change, ==, FLAME_CHANGE_REGRESSION_DEEP);
  assert_close (fields (absolute, "func2").baseline_total, 1.0);

  assert_close (flame_diff_get_scale (diff), 4.0);
  f1 = fields (diff, "func2;func1");
  g_assert_cmpfloat (f1.self_time, ==, 4);
  assert_close (f1.baseline, 4.0);
  assert_close (f1.diff, 0.0);
  assert_close (f1.diff_pct, 0.0);
  assert_close (f1.baseline_total, 4.0);
  assert_close (fields (diff, "func2").baseline_total, 4.0);
}

/* T5 test_diff_flamegraph_elided_stacks */
static void
test_t5_elided_stacks (void)
{
  const char *a = "file.py:20:func2;file.py:10:func1";
  const char *b = "file.py:20:func2;file.py:30:old_func";
  g_autoptr(FlameDiff) diff = make_diff (S (a, b), S (a, a));
  FlameTree *tree = flame_diff_get_tree (diff);
  guint32 old = find_node (diff, tree, "func2;old_func");
  guint32 func2 = find_node (diff, tree, "func2");
  Fields of, f1;

  assert_close (flame_diff_get_scale (diff), 1.0);
  /* CPython counts elided path prefixes: {(func2, old_func)} */
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 1);
  g_assert_cmpuint (flame_diff_get_elided_stacks (diff), ==, 1);
  g_assert_true (flame_diff_is_elided (diff, old));
  g_assert_false (flame_diff_is_elided (diff, func2));

  of = fields (diff, "func2;old_func");
  g_assert_cmpfloat (of.self_time, ==, 0);
  assert_close (of.diff_pct, -100.0);
  g_assert_cmpfloat (of.baseline, >, 0);
  assert_close (of.baseline, 1.0);
  assert_close (of.diff, -of.baseline);
  assert_close (of.baseline_total, 1.0);
  g_assert_cmpint (of.change, ==, FLAME_CHANGE_ELIDED);

  /* the Elided view: old_func keeps its baseline width, func2 is
   * structure as wide as its elided children (its own self is dropped) */
  assert_close (flame_diff_get_elided_weight (diff, old), 1.0);
  assert_close (flame_diff_get_elided_weight (diff, func2), 1.0);
  assert_close (flame_diff_get_elided_weight (diff, find_node (diff, tree, "func2;func1")), 0.0);

  /* main view: func1 doubled */
  f1 = fields (diff, "func2;func1");
  g_assert_cmpfloat (f1.self_time, ==, 2);
  assert_close (f1.baseline, 1.0);
  assert_close (f1.diff, 1.0);
  assert_close (f1.diff_pct, 100.0);
  g_assert_cmpint (f1.change, ==, FLAME_CHANGE_REGRESSION_DEEP);
}

/* T6 test_diff_flamegraph_function_matched_despite_line_change */
static void
test_t6_line_change (void)
{
  g_autoptr(FlameDiff) diff = make_diff (S ("file.py:20:func2;file.py:10:func1"),
                                         S ("file.py:55:func2;file.py:99:func1"));
  FlameDiffOptions options;
  g_autoptr(FlameDiff) by_line = NULL;
  FlameTree *tree;
  Fields f1;

  g_assert_cmpuint (n_children (flame_diff_get_tree (diff), FLAME_TREE_ROOT), ==, 1);
  f1 = fields (diff, "func2;func1");
  g_assert_cmpfloat (f1.baseline, >, 0);
  g_assert_cmpfloat (f1.self_time, >, 0);
  assert_close (f1.diff, 0.0);
  assert_close (f1.diff_pct, 0.0);
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 0);

  /* Ours, not CPython's: matching on name+file+line keeps them apart */
  flame_diff_options_init (&options);
  options.match = FLAME_MATCH_NAME_FILE_LINE;
  by_line = make_diff_full (S ("file.py:20:func2;file.py:10:func1"),
                            S ("file.py:55:func2;file.py:99:func1"), &options);
  tree = flame_diff_get_tree (by_line);
  g_assert_cmpuint (n_children (tree, FLAME_TREE_ROOT), ==, 2);
  g_assert_cmpuint (flame_diff_get_elided_count (by_line), ==, 2);
}

/* T7 test_diff_flamegraph_empty_current */
static void
test_t7_empty_current (void)
{
  g_autoptr(FlameDiff) diff = make_diff (S ("file.py:10:func1"), NONE);
  FlameTree *tree = flame_diff_get_tree (diff);
  guint32 f1 = find_node (diff, tree, "func1");
  Fields f;

  g_assert_cmpfloat (flame_diff_get_total_ms (diff, FLAME_DIFF_CURRENT), ==, 0);
  g_assert_cmpfloat (tree->total[FLAME_DIFF_CURRENT][FLAME_TREE_ROOT], ==, 0);
  g_assert_cmpfloat (flame_diff_get_samples (diff, FLAME_DIFF_BASELINE), ==, 1);
  g_assert_cmpfloat (flame_diff_get_samples (diff, FLAME_DIFF_CURRENT), ==, 0);
  /* CPython: I_cur / I_base = 1.0 here; ours is 1.0 whenever a side is
   * empty, whatever the intervals */
  assert_close (flame_diff_get_scale (diff), 1.0);
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 1);
  g_assert_true (flame_diff_is_elided (diff, f1));

  f = fields (diff, "func1");
  assert_close (f.baseline, 1.0);
  assert_close (f.baseline_total, 1.0);
  assert_close (f.diff, -1.0);
  g_assert_cmpfloat (f.self_time, ==, 0);
  assert_close (f.diff_pct, -100.0);
  assert_close (flame_diff_get_elided_weight (diff, f1), 1.0);
}

/* T8 test_diff_flamegraph_empty_baseline */
static void
test_t8_empty_baseline (void)
{
  g_autoptr(FlameDiff) diff = make_diff (NONE, S ("file.py:20:func2;file.py:10:func1"));
  Fields f1, f2;

  g_assert_cmpfloat (flame_diff_get_samples (diff, FLAME_DIFF_BASELINE), ==, 0);
  g_assert_cmpfloat (flame_diff_get_samples (diff, FLAME_DIFF_CURRENT), ==, 1);
  assert_close (flame_diff_get_scale (diff), 1.0);
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 0);

  f1 = fields (diff, "func2;func1");
  g_assert_cmpfloat (f1.self_time, ==, 1);
  assert_close (f1.baseline, 0.0);
  assert_close (f1.diff, 1.0);
  assert_close (f1.diff_pct, 100.0);
  g_assert_cmpint (f1.change, ==, FLAME_CHANGE_NEW);

  /* Differs from CPython on purpose: its root func2 has diff_pct 0 and is
   * neutral; our "new" means the path is absent from the baseline, and
   * func2 is. */
  f2 = fields (diff, "func2");
  assert_close (f2.diff_pct, 0.0);
  g_assert_cmpint (f2.change, ==, FLAME_CHANGE_NEW);
}

/* T9 test_diff_flamegraph_export, adapted: CPython writes HTML; our
 * export of the comparison is the JSON report (the SVG/PNG export belongs
 * to the renderer). It must be valid JSON and say what it compares. */
static void
test_t9_export (void)
{
  const char *s = "file.py:20:func2;file.py:10:func1";
  g_autoptr(FlameDiff) diff = make_diff (S (s), S (s));
  g_autoptr(FlameReport) report = flame_report_new (diff, NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *functions;

  flame_report_write_json (report, out);
  g_assert_cmpuint (out->len, >, 0);
  json_parser_load_from_data (parser, out->str, out->len, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, 3);
  functions = json_object_get_array_member (root, "functions");
  g_assert_cmpuint (json_array_get_length (functions), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root,
                                                                                 "normalization"),
                                                  "mode"),
                   ==, "absolute");
}

/* T10 test_diff_flamegraph_preserves_metadata: one sample seeing two
 * threads, so N = 2 thread-stacks on each side. Threads are kept in the
 * profile's metadata; the tree merges them (no thread in the key). */
static FlameProfile *
two_thread_profile (void)
{
  FlameProfile *p = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  guint32 a = flame_profile_intern_frame (p, "func_a", 6, "a.py", 4, 10, 0);
  guint32 b = flame_profile_intern_frame (p, "func_b", 6, "b.py", 4, 20, 0);

  flame_profile_set_interval_ms (p, 1.0);
  flame_profile_add_stack (p, 0, &a, 1, 1);
  flame_profile_ensure_thread (p, "t1", 100, 1)->samples += 1;
  flame_profile_add_stack (p, 0, &b, 1, 1);
  flame_profile_ensure_thread (p, "t2", 100, 2)->samples += 1;
  flame_profile_add_samples (p, 0, 2);
  flame_profile_finish (p);
  return p;
}

static void
test_t10_metadata (void)
{
  g_autoptr(FlameProfile) base = two_thread_profile ();
  g_autoptr(FlameProfile) cur = two_thread_profile ();
  g_autoptr(FlameDiff) diff = flame_diff_new (base, cur, NULL, NULL, NULL);
  FlameTree *tree = flame_diff_get_tree (diff);

  g_assert_cmpuint (flame_profile_get_threads (flame_diff_get_current (diff))->len, ==, 2);
  g_assert_cmpuint (n_children (tree, FLAME_TREE_ROOT), ==, 2);
  assert_close (flame_diff_get_scale (diff), 1.0);
  for (guint i = 0; i < 2; i++)
    {
      Fields f = fields (diff, i == 0 ? "func_a" : "func_b");
      g_assert_cmpfloat (f.self_time, ==, 1);
      assert_close (f.baseline, 1.0);
      assert_close (f.baseline_total, 1.0);
      assert_close (f.diff, 0.0);
      assert_close (f.diff_pct, 0.0);
    }
}

/* T11 test_diff_flamegraph_elided_preserves_metadata (opcodes and GIL
 * status are CPython-only; the elided node's fields are what carries
 * over) */
static void
test_t11_elided_metadata (void)
{
  const char *a = "file.py:20:func2;file.py:10:func1";
  const char *b = "file.py:20:func2;file.py:30:old_func";
  g_autoptr(FlameDiff) diff = make_diff (S (a, b), S (a, a));
  FlameTree *tree = flame_diff_get_tree (diff);
  guint32 func2 = find_node (diff, tree, "func2");
  guint elided_children = 0;
  Fields of;

  for (guint32 c = tree->nodes[func2].first_child; c != FLAME_TREE_NONE;
       c = tree->nodes[c].next_sibling)
    if (flame_diff_is_elided (diff, c))
      elided_children++;
  g_assert_cmpuint (elided_children, ==, 1);
  of = fields (diff, "func2;old_func");
  g_assert_cmpfloat (of.self_time, ==, 0);
  assert_close (of.diff_pct, -100.0);
}

/* T12 test_diff_flamegraph_load_baseline: CPython round-trips the
 * baseline through its binary format. Ours goes through a file on disk
 * and the format loader (folded text), and must give exactly T3. */
static void
test_t12_load_baseline (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-t12-XXXXXX", &error);
  g_autofree char *base_path = g_build_filename (dir, "baseline.folded", NULL);
  g_autofree char *cur_path = g_build_filename (dir, "current.folded", NULL);
  g_autoptr(FlameComparison) comparison = NULL;
  FlameDiffOptions options;

  g_assert_no_error (error);
  g_file_set_contents (base_path, "caller;hot_leaf 1\ncaller;cold_leaf 1\n", -1, &error);
  g_assert_no_error (error);
  g_file_set_contents (cur_path, "caller;hot_leaf 3\ncaller;cold_leaf 1\n", -1, &error);
  g_assert_no_error (error);

  /* loaded as the window and the CLI load them; the merged PR's scale */
  comparison = flame_comparison_new ();
  flame_diff_options_init (&options);
  options.normalize = FLAME_NORMALIZE_TOTAL;
  flame_comparison_set_diff_options (comparison, &options);
  flame_comparison_add_baseline (comparison, base_path);
  flame_comparison_add_current (comparison, cur_path);
  g_assert_true (flame_comparison_load (comparison, NULL, &error));
  g_assert_no_error (error);
  check_t3 (flame_comparison_get_diff (comparison), "caller;hot_leaf", "caller;cold_leaf",
            "caller");

  g_unlink (base_path);
  g_unlink (cur_path);
  g_rmdir (dir);
}

/* 6.1 test_diff_flamegraph_elided_top_level_root (the 3.15.0a8 crash) */
static void
test_6_1_elided_top_level_root (void)
{
  const char *a = "file.py:20:kept_root;file.py:10:kept_leaf";
  const char *b = "file.py:40:old_root;file.py:30:old_leaf";
  g_autoptr(FlameDiff) diff = make_diff_total (S (a, b), S (a));
  g_autoptr(FlameDiff) absolute = make_diff (S (a, b), S (a));
  FlameTree *tree = flame_diff_get_tree (diff);
  guint32 old_root = find_node (diff, tree, "old_root");
  guint32 old_leaf = find_node (diff, tree, "old_root;old_leaf");
  guint elided_roots = 0;
  Fields kl, ol;

  assert_close (flame_diff_get_scale (diff), 0.5);
  for (guint32 c = tree->nodes[FLAME_TREE_ROOT].first_child; c != FLAME_TREE_NONE;
       c = tree->nodes[c].next_sibling)
    if (flame_diff_is_elided (diff, c))
      elided_roots++;
  g_assert_cmpuint (elided_roots, ==, 1);
  g_assert_true (flame_diff_is_elided (diff, old_root));
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 2);

  ol = fields (diff, "old_root;old_leaf");
  assert_close (ol.baseline, 0.5);
  assert_close (ol.baseline_total, 0.5);
  assert_close (ol.diff, -0.5);
  assert_close (ol.diff_pct, -100.0);
  /* DESIGN.md: elided widths come from the scaled baseline (CPython
   * draws unscaled counts) */
  assert_close (flame_diff_get_elided_weight (diff, old_root), 0.5);
  assert_close (flame_diff_get_elided_weight (diff, old_leaf), 0.5);

  kl = fields (diff, "kept_root;kept_leaf");
  g_assert_cmpfloat (kl.self_time, ==, 1);
  assert_close (kl.baseline, 0.5);
  assert_close (kl.diff, 0.5);
  assert_close (kl.diff_pct, 100.0);
  g_assert_cmpint (kl.change, ==, FLAME_CHANGE_REGRESSION_DEEP);

  /* absolute time (default): kept_leaf did not change */
  ol = fields (absolute, "old_root;old_leaf");
  assert_close (ol.baseline, 1.0);
  assert_close (ol.diff_pct, -100.0);
  assert_close (flame_diff_get_elided_weight (absolute,
                                              find_node (absolute, flame_diff_get_tree (absolute),
                                                         "old_root")),
                1.0);
  kl = fields (absolute, "kept_root;kept_leaf");
  assert_close (kl.baseline, 1.0);
  assert_close (kl.diff_pct, 0.0);
  g_assert_cmpint (kl.change, ==, FLAME_CHANGE_NEUTRAL);
}

/* The class thresholds, at and around every boundary. */
static void
test_class_thresholds (void)
{
  static const struct { gdouble p; FlameChange change; } cases[] = {
    { 0, FLAME_CHANGE_NEUTRAL }, { 14.9, FLAME_CHANGE_NEUTRAL }, { -14.9, FLAME_CHANGE_NEUTRAL },
    { 15, FLAME_CHANGE_REGRESSION_VERY_LIGHT }, { 30, FLAME_CHANGE_REGRESSION_VERY_LIGHT },
    { 30.5, FLAME_CHANGE_REGRESSION_LIGHT }, { 50, FLAME_CHANGE_REGRESSION_LIGHT },
    { 50.5, FLAME_CHANGE_REGRESSION_MEDIUM }, { 99.5, FLAME_CHANGE_REGRESSION_MEDIUM },
    { 100, FLAME_CHANGE_REGRESSION_DEEP }, { 400, FLAME_CHANGE_REGRESSION_DEEP },
    { -15, FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT }, { -30, FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT },
    { -30.5, FLAME_CHANGE_IMPROVEMENT_LIGHT }, { -50, FLAME_CHANGE_IMPROVEMENT_LIGHT },
    { -50.5, FLAME_CHANGE_IMPROVEMENT_MEDIUM }, { -99.5, FLAME_CHANGE_IMPROVEMENT_MEDIUM },
    { -100, FLAME_CHANGE_IMPROVEMENT_DEEP },
  };
  const char *s = "f";
  g_autoptr(FlameDiff) diff = make_diff (S (s), S (s));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FlameDiffValues v = { 100, 1000, 100 + cases[i].p, 1000 };
      g_assert_cmpint (flame_diff_classify_values (diff, &v, FLAME_METRIC_SELF), ==,
                       cases[i].change);
    }
  /* pure callers (no self time on either side) are neutral */
  {
    FlameDiffValues v = { 0, 10, 0, 30 };
    g_assert_cmpint (flame_diff_classify_values (diff, &v, FLAME_METRIC_SELF), ==,
                     FLAME_CHANGE_NEUTRAL);
    g_assert_cmpint (flame_diff_classify_values (diff, &v, FLAME_METRIC_TOTAL), ==,
                     FLAME_CHANGE_REGRESSION_DEEP);
  }
}

/* issue 11, Record and Diff: a program that only gained one new function
 * (new_feature, 200 ms) ran common_work for the same 400 ms both times.
 * Scaled to the current total, common_work read "Faster -33 %"; in
 * absolute time (the default, CPython 3.15.2) it is unchanged. */
static void
test_default_absolute_new_function (void)
{
  g_autoptr(GPtrArray) base = g_ptr_array_new ();
  g_autoptr(GPtrArray) cur = g_ptr_array_new ();
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameDiff) total = NULL;
  g_autoptr(FlameReport) report = NULL;
  FlameNormalize mode;
  Fields common;

  for (guint i = 0; i < 400; i++)
    {
      g_ptr_array_add (base, (gpointer) "app.c:10:main;app.c:20:common_work");
      g_ptr_array_add (cur, (gpointer) "app.c:10:main;app.c:20:common_work");
    }
  for (guint i = 0; i < 200; i++)
    g_ptr_array_add (cur, (gpointer) "app.c:10:main;app.c:30:new_feature");
  g_ptr_array_add (base, NULL);
  g_ptr_array_add (cur, NULL);

  diff = make_diff ((const char *const *) base->pdata, (const char *const *) cur->pdata);
  g_assert_cmpint (flame_diff_get_options (diff)->normalize, ==, FLAME_NORMALIZE_ABSOLUTE);
  common = fields (diff, "main;common_work");
  assert_close (common.baseline, 400.0);
  assert_close (common.diff_pct, 0.0);
  g_assert_cmpint (common.change, ==, FLAME_CHANGE_NEUTRAL);
  g_assert_cmpint (fields (diff, "main;new_feature").change, ==, FLAME_CHANGE_NEW);
  report = flame_report_new (diff, NULL);
  g_assert_cmpint (flame_report_find (report, "common_work")->status, ==, FLAME_STATUS_UNCHANGED);
  g_assert_cmpuint (flame_report_count (report, FLAME_STATUS_IMPROVEMENT), ==, 0);

  /* what total-scaling said */
  total = make_diff_total ((const char *const *) base->pdata, (const char *const *) cur->pdata);
  g_assert_cmpint (fields (total, "main;common_work").change, ==, FLAME_CHANGE_IMPROVEMENT_LIGHT);

  /* the names: "none" is read as absolute */
  g_assert_true (flame_normalize_from_string ("none", &mode));
  g_assert_cmpint (mode, ==, FLAME_NORMALIZE_ABSOLUTE);
  g_assert_true (flame_normalize_from_string ("absolute", &mode));
  g_assert_cmpint (mode, ==, FLAME_NORMALIZE_ABSOLUTE);
  g_assert_true (flame_normalize_from_string ("total", &mode));
  g_assert_cmpint (mode, ==, FLAME_NORMALIZE_TOTAL);
  g_assert_false (flame_normalize_from_string ("scaled", &mode));
  g_assert_cmpstr (flame_normalize_to_string (FLAME_NORMALIZE_ABSOLUTE), ==, "absolute");
}

/* the report's header names the mode, and in absolute time how many
 * current samples a baseline sample is worth when the intervals differ
 * (CPython 3.15.2's factor) */
static void
test_normalization_header (void)
{
  g_autoptr(FlameProfile) b = flame_test_profile (S ("main;work", "main;work"));
  g_autoptr(FlameProfile) c = flame_test_profile (S ("main;work", "main;work"));
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) text = g_string_new (NULL);

  flame_profile_set_interval_ms (b, 10.0);
  diff = flame_diff_new (b, c, NULL, NULL, NULL);
  report = flame_report_new (diff, NULL);
  flame_report_write_text (report, text);
  g_test_message ("%s", text->str);
  g_assert_nonnull (strstr (text->str,
                            "Normalisation: absolute: times as measured, baseline not scaled "
                            "(sampled time ratio ×0.1); baseline samples ×10 in the "
                            "current run's sampling interval"));
}

static void
test_normalize_none (void)
{
  const char *s = "file.py:20:func2;file.py:10:func1";
  FlameDiffOptions options;
  g_autoptr(FlameDiff) diff = NULL;
  Fields f1;

  flame_diff_options_init (&options);
  options.normalize = FLAME_NORMALIZE_ABSOLUTE;
  diff = make_diff_full (S (s), S (s, s, s, s), &options);
  assert_close (flame_diff_get_scale (diff), 1.0);
  assert_close (flame_diff_get_sampled_time_ratio (diff), 4.0);
  f1 = fields (diff, "func2;func1");
  assert_close (f1.baseline, 1.0);
  assert_close (f1.diff_pct, 300.0);
}

static void
test_inverted (void)
{
  /* malloc called from two places; only the call from parse got slower */
  FlameDiffOptions options;
  g_autoptr(FlameDiff) diff = NULL;
  FlameTree *inv;
  guint32 m, mp, mr, p;
  FlameDiffValues v;

  flame_diff_options_init (&options);
  options.normalize = FLAME_NORMALIZE_ABSOLUTE;
  diff = make_diff_full (S ("main;parse;malloc", "main;parse;malloc",
                            "main;render;malloc", "main;render;malloc", "main;parse"),
                         S ("main;parse;malloc", "main;parse;malloc",
                            "main;parse;malloc", "main;parse;malloc",
                            "main;render;malloc", "main;render;malloc", "main;parse"),
                         &options);
  inv = flame_diff_get_inverted_tree (diff);
  m = find_node (diff, inv, "malloc");
  mp = find_node (diff, inv, "malloc;parse");
  mr = find_node (diff, inv, "malloc;render");
  p = find_node (diff, inv, "parse");

  g_assert_true (inv == flame_diff_get_inverted_tree (diff));
  g_assert_cmpuint (m, !=, FLAME_TREE_NONE);
  g_assert_cmpuint (find_node (diff, inv, "malloc;parse;main"), !=, FLAME_TREE_NONE);
  g_assert_cmpuint (n_children (inv, FLAME_TREE_ROOT), ==, 2);
  flame_diff_get_values (diff, inv, m, &v);
  assert_close (v.total_c, 6);
  assert_close (v.total_b, 4);
  flame_diff_get_values (diff, inv, mp, &v);
  assert_close (v.total_c, 4);
  assert_close (v.total_b, 2);
  g_assert_cmpint (flame_diff_classify (diff, inv, mp, FLAME_METRIC_TOTAL), ==,
                   FLAME_CHANGE_REGRESSION_DEEP);
  g_assert_cmpint (flame_diff_classify (diff, inv, mr, FLAME_METRIC_TOTAL), ==,
                   FLAME_CHANGE_NEUTRAL);
  flame_diff_get_values (diff, inv, p, &v);
  assert_close (v.total_c, 1);
  assert_close (v.total_b, 1);
}

static void
test_strip_hex (void)
{
  static const struct { const char *in; const char *out; } cases[] = {
    { "0x7f12ab", "0x..." },
    { "_start+0xffff018fd5dce000", "_start" },
    { "JIT 0xdeadBEEF code", "JIT 0x... code" },
    { "a0x12", NULL },
    { "0x", NULL },
    { "plain", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize len = 0;
      g_autofree char *r = flame_strip_hex (cases[i].in, strlen (cases[i].in), &len);
      g_assert_cmpstr (r, ==, cases[i].out);
      if (r != NULL)
        g_assert_cmpuint (len, ==, strlen (r));
    }
}

static void
test_binomial (void)
{
  /* exact two-sided values */
  g_assert_cmpfloat_with_epsilon (flame_binomial_p_value (3, 5, 0.5), 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (flame_binomial_p_value (9, 10, 0.5), 0.021484375, 1e-9);
  g_assert_cmpfloat_with_epsilon (flame_binomial_p_value (0, 10, 0.5), 0.001953125, 1e-9);
  /* normal approximation agrees with the exact sum where both apply */
  g_assert_cmpfloat (flame_binomial_p_value (300, 500, 0.5), <, 1e-5);
  g_assert_cmpfloat (flame_binomial_p_value (255, 500, 0.5), >, 0.5);
}

/* DESIGN.md's noise test: 2 → 3 samples is not significant, 200 → 300
 * is, with the same totals on both sides. */
static void
test_noise (void)
{
  FlameDiffOptions options;
  struct { guint before, after; gboolean significant; } cases[] = {
    { 2, 3, FALSE }, { 200, 300, TRUE },
  };

  flame_diff_options_init (&options);
  options.significance = 0.05;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FlameProfile) base = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
      g_autoptr(FlameProfile) cur = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
      g_autoptr(FlameDiff) diff = NULL;
      g_autoptr(FlameDiff) diff_off = NULL;
      FlameProfile *profiles[2] = { base, cur };
      guint counts[2] = { cases[i].before, cases[i].after };
      FlameTree *tree;
      guint32 node;
      FlameDiffValues v;

      for (guint s = 0; s < 2; s++)
        {
          guint32 f[2];
          f[0] = flame_profile_intern_frame (profiles[s], "main", 4, NULL, 0, 0, 0);
          f[1] = flame_profile_intern_frame (profiles[s], "hot", 3, NULL, 0, 0, 0);
          flame_profile_add_stack (profiles[s], 0, f, 2, counts[s]);
          f[1] = flame_profile_intern_frame (profiles[s], "rest", 4, NULL, 0, 0, 0);
          flame_profile_add_stack (profiles[s], 0, f, 2, 10000 - counts[s]);
          flame_profile_add_samples (profiles[s], 0, 10000);
          flame_profile_finish (profiles[s]);
        }

      diff = flame_diff_new (base, cur, &options, NULL, NULL);
      tree = flame_diff_get_tree (diff);
      node = find_node (diff, tree, "main;hot");
      flame_diff_get_values (diff, tree, node, &v);
      assert_close (flame_diff_percent (&v, FLAME_METRIC_SELF), 50.0);
      g_assert_cmpint (flame_diff_is_significant (diff, &v, FLAME_METRIC_SELF, 0.05), ==,
                       cases[i].significant);
      g_assert_cmpint (flame_diff_classify (diff, tree, node, FLAME_METRIC_SELF), ==,
                       cases[i].significant ? FLAME_CHANGE_REGRESSION_LIGHT : FLAME_CHANGE_NEUTRAL);

      /* off by default: +50% is light red whatever the counts */
      diff_off = flame_diff_new (base, cur, NULL, NULL, NULL);
      g_assert_cmpint (flame_diff_classify (diff_off, flame_diff_get_tree (diff_off),
                                            find_node (diff_off, flame_diff_get_tree (diff_off),
                                                       "main;hot"),
                                            FLAME_METRIC_SELF),
                       ==, FLAME_CHANGE_REGRESSION_LIGHT);
    }
}

/* A profile compared with itself is not a ready-made pair: every output
 * reads its only column (criticals are fatal in tests). */
static void
test_self_compare (void)
{
  g_autoptr(FlameProfile) p = flame_test_profile (S ("main;a", "main;a", "main;b"));
  g_autoptr(FlameDiff) diff = flame_diff_new (p, p, NULL, NULL, NULL);
  g_autoptr(FlameReport) report = flame_report_new (diff, NULL);
  g_autoptr(GString) out = g_string_new (NULL);

  g_assert_cmpuint (flame_diff_get_source_column (diff, FLAME_DIFF_CURRENT), ==, 0);
  flame_diff_write_folded (diff, out);
  /* sample counts, and the interval the profile names */
  g_assert_cmpstr (out->str, ==, "# flamediff-folded unit=samples interval_ms=1\n"
                                 "main;a 2 2\nmain;b 1 1\n");
  g_assert_cmpuint (flame_report_count (report, FLAME_STATUS_UNCHANGED), ==, 3);
}

/* Folded output is in byte order of whole lines, as sort(1) and
 * stackcollapse-perf.pl write it, also where names are prefixes of each
 * other, hold a space or a byte below ';', or share their first 8 bytes
 * (the writer compares 8-byte keys first). */
static void
test_folded_order (void)
{
  g_autoptr(FlameProfile) p = flame_test_profile (
    S ("main;ab", "main;ab!", "main;ab;x", "main;ab x", "main;abcdefghij;k", "main;abcdefghij",
       "main;abcdefghi", "m", "main", "main;ab", "main;ab;x;y"));
  g_autoptr(FlameDiff) diff = flame_diff_new (p, p, NULL, NULL, NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) single = g_string_new (NULL);
  g_auto(GStrv) lines = NULL;

  flame_diff_write_folded (diff, out);
  g_assert_cmpstr (out->str, ==, "# flamediff-folded unit=samples interval_ms=1\n"
                                 "m 1 1\nmain 1 1\nmain;ab 2 2\nmain;ab x 1 1\nmain;ab! 1 1\n"
                                 "main;ab;x 1 1\nmain;ab;x;y 1 1\nmain;abcdefghi 1 1\n"
                                 "main;abcdefghij 1 1\nmain;abcdefghij;k 1 1\n");
  flame_profile_write_folded (p, single);
  lines = g_strsplit (single->str, "\n", -1);
  for (guint i = 2; lines[i] != NULL && *lines[i]; i++)
    g_assert_cmpint (strcmp (lines[i - 1], lines[i]), <, 0);
  g_assert_cmpstr (lines[3], ==, "main;ab 2");
}

/* The lines of @out after its header, if any. */
static const char *
folded_body (const GString *out)
{
  const char *nl;

  if (out->str[0] != '#')
    return out->str;
  nl = strchr (out->str, '\n');
  return nl != NULL ? nl + 1 : "";
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

typedef struct
{
  GString *collected;
  guint    calls;
  gsize    largest;
} Drained;

static void
collect_drained (GString  *text,
                 gpointer  user_data)
{
  Drained *d = user_data;

  d->calls++;
  d->largest = MAX (d->largest, text->len);
  g_string_append_len (d->collected, text->str, text->len);
  g_string_truncate (text, 0);
}

/* Random stacks over names that are prefixes of each other followed by
 * bytes below ';' (and, in the second round, by a blank, which the
 * writer's walk leaves to sorting): the output is the distinct stacks
 * with their counts, the lines in strcmp order as an independent sort
 * gives them. The third round's tree (deep stacks) is large enough to
 * be written on every core, which must not change a byte, whole or
 * drained in pieces of at most a MiB. */
static void
test_folded_order_random (void)
{
  static const char *const names[] = { "a", "a!", "a.b", "a::c", "a(int)", "ab", "b", "a0",
                                       "[no stack]", "a 1", "a 12" };

  for (guint round = 0; round < 3; round++)
    {
      guint n_names = G_N_ELEMENTS (names) - (round != 1 ? 2 : 0);
      guint n_stacks = round == 2 ? 20000 : 400;
      guint max_depth = round == 2 ? 40 : 6;
      g_autoptr(FlameProfile) p = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
      g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_autofree gpointer *keys = NULL;
      guint n_keys;
      g_autoptr(GString) expected = g_string_new (NULL);
      g_autoptr(GString) out = g_string_new (NULL);
      GRand *rand = g_rand_new_with_seed (17 + round);

      for (guint i = 0; i < n_stacks; i++)
        {
          guint depth = g_rand_int_range (rand, 1, max_depth);
          guint32 ids[40];
          GString *stack = g_string_new (NULL);
          guint count = g_rand_int_range (rand, 1, 4);

          for (guint d = 0; d < depth; d++)
            {
              const char *name = names[g_rand_int_range (rand, 0, n_names)];

              ids[d] = flame_profile_intern_frame (p, name, strlen (name), NULL, 0, 0, 0);
              if (d > 0)
                g_string_append_c (stack, ';');
              g_string_append (stack, name);
            }
          flame_profile_add_stack (p, 0, ids, depth, count);
          flame_profile_add_samples (p, 0, count);
          count += GPOINTER_TO_UINT (g_hash_table_lookup (counts, stack->str));
          g_hash_table_insert (counts, g_strdup (stack->str), GUINT_TO_POINTER (count));
          g_string_free (stack, TRUE);
        }
      g_rand_free (rand);
      flame_profile_finish (p);

      /* whole lines in byte order, as `LC_ALL=C sort` gives them */
      keys = g_hash_table_get_keys_as_array (counts, &n_keys);
      for (guint i = 0; i < n_keys; i++)
        keys[i] = g_strdup_printf ("%s %u", (const char *) keys[i],
                                   GPOINTER_TO_UINT (g_hash_table_lookup (counts, keys[i])));
      qsort (keys, n_keys, sizeof (gpointer), compare_strings);
      for (guint i = 0; i < n_keys; i++)
        {
          g_string_append_printf (expected, "%s\n", (const char *) keys[i]);
          g_free (keys[i]);
        }
      flame_profile_write_folded (p, out);
      g_assert_cmpstr (folded_body (out), ==, expected->str);
      if (round == 2)
        {
          g_autoptr(GString) drained = g_string_new (NULL);
          g_autoptr(GString) collected = g_string_new (NULL);
          Drained d = { collected, 0, 0 };

          g_assert_cmpuint (flame_profile_get_tree (p)->n_nodes, >, 1 << 17);
          flame_profile_write_folded_drained (p, drained, collect_drained, &d);
          g_assert_cmpuint (drained->len, ==, 0);
          g_assert_cmpuint (out->len, >, 1 << 20);
          g_assert_cmpuint (d.calls, >=, 2);
          g_assert_cmpuint (d.largest, <=, 1 << 20);
          g_assert_true (g_string_equal (collected, out));
        }
    }
}

/* Two frames of one name under one parent (different files) write two
 * lines of one stack, their subtrees' lines mixed in byte order. */
static void
test_folded_order_same_name (void)
{
  g_autoptr(FlameProfile) p = flame_test_profile (S ("main;x.c:1:f;h", "main;y.c:1:f;g",
                                                     "main;x.c:1:f", "main;y.c:1:f;g",
                                                     "main;x.c:1:f;g"));
  g_autoptr(GString) out = g_string_new (NULL);

  flame_profile_write_folded (p, out);
  g_assert_cmpstr (folded_body (out), ==, "main;f 1\nmain;f;g 1\nmain;f;g 2\nmain;f;h 1\n");
}

/* Output of several MiB goes to the drain in pieces of about a MiB and
 * is, joined, what the writer gives whole: by the walk (round 0), and by
 * sorting when two siblings share a name (round 1: x.c:f and y.c:f, both
 * with weight). Two siblings of one name of which only one has weight
 * and only the other children (round 2) still leave the walk possible:
 * the lines are in byte order all the same. */
static void
test_folded_drained (void)
{
  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(FlameProfile) p = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
      g_autoptr(GString) whole = g_string_new (NULL);
      g_autoptr(GString) out = g_string_new (NULL);
      g_autoptr(GString) collected = g_string_new (NULL);
      Drained d = { collected, 0, 0 };
      GRand *rand = g_rand_new_with_seed (29 + round);
      guint32 f_x = flame_profile_intern_frame (p, "f", 1, "x.c", 1, 0, 0);
      guint32 f_y = flame_profile_intern_frame (p, "f", 1, "y.c", 1, 0, 0);

      for (guint i = 0; i < 50000; i++)
        {
          guint depth = g_rand_int_range (rand, 2, 8);
          guint32 ids[8];

          ids[0] = i % 2 == 0 ? f_x : f_y;
          for (guint k = 1; k < depth; k++)
            {
              g_autofree char *name =
                g_strdup_printf ("namespace::Class%u::method_with_a_long_name%u",
                                 g_rand_int_range (rand, 0, 40), k);

              ids[k] = flame_profile_intern_frame (p, name, strlen (name), NULL, 0, 0, 0);
            }
          /* round 2: x.c:f has weight, y.c:f only children */
          if (round == 2)
            depth = i % 2 == 0 ? 1 : MAX (depth, 2);
          else if (round == 0)
            ids[0] = f_x;
          flame_profile_add_stack (p, 0, ids, depth, 1 + i % 3);
          flame_profile_add_samples (p, 0, 1 + i % 3);
        }
      g_rand_free (rand);
      flame_profile_finish (p);

      flame_profile_write_folded (p, whole);
      g_assert_cmpuint (whole->len, >, 3 << 20);
      flame_profile_write_folded_drained (p, out, collect_drained, &d);
      g_assert_cmpuint (out->len, ==, 0);
      g_assert_cmpuint (d.calls, >=, 3);
      g_assert_cmpuint (d.largest, <, (1 << 20) + 4096);
      g_assert_true (g_string_equal (collected, whole));

      /* in byte order, one line per path (two per path in round 1);
       * walked with memchr, since g_strsplit() of MiBs is quadratic
       * under ASan's string interceptors */
      {
        const char *end = whole->str + whole->len;
        const char *prev = folded_body (whole);
        const char *prev_nl = memchr (prev, '\n', end - prev);

        while (prev_nl != NULL && prev_nl + 1 < end)
          {
            const char *line = prev_nl + 1;
            const char *nl = memchr (line, '\n', end - line);
            gsize prev_len = prev_nl - prev, len = (nl != NULL ? nl : end) - line;
            int cmp = memcmp (prev, line, MIN (prev_len, len));

            g_assert_true (cmp < 0 || (cmp == 0 && prev_len <= len));
            prev = line;
            prev_nl = nl;
          }
      }
    }
}

/* Build-ids from the recorder's metadata: a rebuilt program, a library
 * only one run loaded, one that is the same; the reports say so, and
 * profiles without build-ids say nothing. */
static void
test_binaries (void)
{
  g_autoptr(FlameProfile) b = flame_test_profile (S ("main;a", "main;b"));
  g_autoptr(FlameProfile) c = flame_test_profile (S ("main;a", "main;b"));
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) md = g_string_new (NULL);
  g_autoptr(GString) json = g_string_new (NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) parsed = flame_build_ids_parse ("/a=b=1f;bad;=2;/x=;/y=Ab");
  GPtrArray *bins;
  JsonArray *arr;
  JsonObject *o;

  /* the path is cut at the last "=", broken entries are skipped */
  g_assert_cmpuint (g_hash_table_size (parsed), ==, 2);
  g_assert_cmpstr (g_hash_table_lookup (parsed, "/a=b"), ==, "1f");
  g_assert_cmpstr (g_hash_table_lookup (parsed, "/y"), ==, "Ab");

  /* nothing recorded on one side: nothing to say */
  flame_profile_set_metadata (b, "build_ids", "/usr/bin/imgconv=1a2b3c4d5e6f");
  g_assert_null (flame_binaries_compare (b, c, FALSE));

  flame_profile_set_metadata (
    b, "build_ids",
    "/lib/libc.so.6=aaaa;/opt/libold.so=0123456789ab;/usr/bin/imgconv=1a2b3c4d5e6f");
  flame_profile_set_metadata (
    c, "build_ids",
    "/lib/libc.so.6=aaaa;/opt/libnew.so=ba9876543210;/usr/bin/imgconv=3c4d5e6f7a8b");
  diff = flame_diff_new (b, c, NULL, NULL, &error);
  g_assert_no_error (error);
  report = flame_report_new (diff, NULL);
  bins = flame_report_get_binaries (report);
  g_assert_nonnull (bins);
  g_assert_cmpuint (bins->len, ==, 4);
  g_assert_cmpuint (flame_binaries_count_differences (bins), ==, 3);
  /* differences first: changed, added, removed; then the same */
  g_assert_cmpstr (((FlameBinary *) bins->pdata[0])->path, ==, "/usr/bin/imgconv");
  g_assert_cmpint (((FlameBinary *) bins->pdata[0])->status, ==, FLAME_BINARY_CHANGED);
  g_assert_cmpint (((FlameBinary *) bins->pdata[1])->status, ==, FLAME_BINARY_ADDED);
  g_assert_cmpint (((FlameBinary *) bins->pdata[2])->status, ==, FLAME_BINARY_REMOVED);
  g_assert_cmpint (((FlameBinary *) bins->pdata[3])->status, ==, FLAME_BINARY_SAME);

  flame_report_write_text (report, text);
  g_assert_nonnull (
    strstr (text->str, "  Binaries:      imgconv: build-id 1a2b3c4d… → 3c4d5e6f… (rebuilt)\n"));
  g_assert_nonnull (strstr (text->str, "libnew.so: only in the current run (build-id ba987654…)"));
  g_assert_nonnull (strstr (text->str, "libold.so: only in the baseline run (build-id 01234567…)"));
  g_assert_null (strstr (text->str, "libc.so.6"));

  flame_report_write_markdown (report, md);
  g_assert_nonnull (
    strstr (md->str, "### Binaries\n\n- `imgconv: build-id 1a2b3c4d… → 3c4d5e6f… (rebuilt)`\n"));

  flame_report_write_json (report, json);
  json_parser_load_from_data (parser, json->str, json->len, &error);
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (o, "schema_version"), ==, 3);
  arr = json_object_get_array_member (o, "binaries");
  g_assert_cmpuint (json_array_get_length (arr), ==, 4);
  o = json_array_get_object_element (arr, 0);
  g_assert_cmpstr (json_object_get_string_member (o, "path"), ==, "/usr/bin/imgconv");
  g_assert_cmpstr (json_object_get_string_member (o, "baseline_build_id"), ==, "1a2b3c4d5e6f");
  g_assert_cmpstr (json_object_get_string_member (o, "current_build_id"), ==, "3c4d5e6f7a8b");
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "changed");
  o = json_array_get_object_element (arr, 1);
  g_assert_true (json_object_get_null_member (o, "baseline_build_id"));
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "added");
  o = json_array_get_object_element (arr, 2);
  g_assert_true (json_object_get_null_member (o, "current_build_id"));
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "removed");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (arr, 3), "status"),
                   ==, "same");
}

/* Profiles from other tools: no Binaries line, no binaries key */
static void
test_binaries_absent (void)
{
  g_autoptr(FlameDiff) diff = make_diff (S ("main;a"), S ("main;a"));
  g_autoptr(FlameReport) report = flame_report_new (diff, NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) json = g_string_new (NULL);

  g_assert_null (flame_report_get_binaries (report));
  flame_report_write_text (report, text);
  flame_report_write_json (report, json);
  g_assert_null (strstr (text->str, "Binaries"));
  g_assert_null (strstr (json->str, "binaries"));
}

/* A random tree: stacks of depth 1-30 over @n_frames frames, the top
 * levels from a few frames so that the tree widens a few levels down;
 * two thirds of the stacks are the same for every @seed */
static FlameTree *
random_tree (guint32 seed,
             guint   n_stacks,
             guint   n_frames)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GRand) shared = g_rand_new_with_seed (20261204);
  FlameTree *tree = flame_tree_new (1);

  for (guint i = 0; i < n_stacks; i++)
    {
      GRand *r = g_rand_int_range (rand, 0, 3) > 0 ? shared : rand;
      guint depth = g_rand_int_range (r, 1, 31);
      guint32 node = FLAME_TREE_ROOT;

      for (guint d = 0; d < depth; d++)
        {
          guint width = d < 2 ? 3 + d * 30 : n_frames;

          node = flame_tree_child (tree, node, g_rand_int_range (r, 0, width));
        }
      tree->self[0][node] += g_rand_int_range (r, 1, 50);
    }
  flame_tree_finish (tree);
  return tree;
}

/* A copy of a tree under the same frame ids takes the tree's index
 * (flame_tree_take_index(), as the diff does from a loaded profile):
 * lookups in it find the copied nodes, and the nodes a second tree adds
 * come out numbered and linked as in a copy that built its own index */
static void
test_take_index (void)
{
  FlameTree *base = random_tree (3, 20000, 500);
  FlameTree *cur = random_tree (4, 20000, 500);
  FlameTree *taken = flame_tree_new (2);
  FlameTree *built = flame_tree_new (2);
  g_autofree guint32 *identity = g_new (guint32, 500);

  for (guint32 f = 0; f < 500; f++)
    identity[f] = f;
  g_assert_nonnull (base->slots);
  flame_tree_copy_structure (taken, base, identity);
  flame_tree_copy_structure (built, base, identity);
  flame_tree_reserve_nodes (taken, base->n_nodes + cur->n_nodes);
  flame_tree_reserve_nodes (built, base->n_nodes + cur->n_nodes);
  g_assert_true (flame_tree_take_index (taken, base));
  g_assert_null (base->slots);
  g_assert_false (flame_tree_take_index (built, base));

  for (guint32 n = 1; n < base->n_nodes; n++)
    g_assert_cmpuint (flame_tree_lookup (taken, base->nodes[n].parent, base->nodes[n].frame), ==,
                      n);
  {
    g_autofree guint32 *in_taken = g_new (guint32, cur->n_nodes);
    g_autofree guint32 *in_built = g_new (guint32, cur->n_nodes);

    in_taken[FLAME_TREE_ROOT] = in_built[FLAME_TREE_ROOT] = FLAME_TREE_ROOT;
    for (guint32 n = 1; n < cur->n_nodes; n++)
      {
        in_taken[n] = flame_tree_child (taken, in_taken[cur->nodes[n].parent],
                                        cur->nodes[n].frame);
        in_built[n] = flame_tree_child (built, in_built[cur->nodes[n].parent],
                                        cur->nodes[n].frame);
        g_assert_cmpuint (in_taken[n], ==, in_built[n]);
      }
  }
  g_assert_cmpuint (taken->n_nodes, >, base->n_nodes);
  g_assert_cmpuint (taken->n_nodes, ==, built->n_nodes);
  g_assert_cmpmem (taken->nodes, sizeof (FlameNode) * taken->n_nodes,
                   built->nodes, sizeof (FlameNode) * built->n_nodes);
  flame_tree_free (base);
  flame_tree_free (cur);
  flame_tree_free (taken);
  flame_tree_free (built);
}

/* The diff's two-thread merge makes the tree that adding each node in
 * node order makes: the same nodes, numbered and linked the same, the
 * same weights, the same map; a narrow tree is left to one thread */
static void
test_merge_parallel (void)
{
  FlameTree *base = random_tree (1, 30000, 2000);
  FlameTree *cur = random_tree (2, 30000, 2000);
  FlameTree *one = flame_tree_new (2);
  FlameTree *two = flame_tree_new (2);
  g_autofree guint32 *identity = g_new (guint32, 2000);
  g_autofree guint32 *permuted = g_new (guint32, 2000);
  g_autofree guint32 *expected = g_new (guint32, cur->n_nodes);
  g_autofree FlameMappedNode *node_map = g_new (FlameMappedNode, cur->n_nodes);
  FlameMergeColumns columns = { permuted, 0, 1, 1, { 2.5, 0 } };
  gboolean cancelled;

  g_assert_cmpuint (cur->n_nodes, >, 100000);
  for (guint32 f = 0; f < 2000; f++)
    {
      identity[f] = f;
      permuted[f] = (f * 7 + 3) % 2000;
    }
  for (guint k = 0; k < 2; k++)
    {
      FlameTree *t = k == 0 ? one : two;

      flame_tree_copy_structure (t, base, identity);
      memcpy (t->self[0], base->self[0], sizeof (gdouble) * base->n_nodes);
    }

  expected[FLAME_TREE_ROOT] = FLAME_TREE_ROOT;
  for (guint32 n = 1; n < cur->n_nodes; n++)
    {
      expected[n] = flame_tree_child (one, expected[cur->nodes[n].parent],
                                      permuted[cur->nodes[n].frame]);
      one->self[1][expected[n]] += cur->self[0][n] * 2.5;
    }
  g_assert_true (flame_merge_nodes_parallel (two, cur, &columns, node_map, NULL, &cancelled));
  g_assert_false (cancelled);

  g_assert_cmpuint (two->n_nodes, ==, one->n_nodes);
  g_assert_cmpuint (one->n_nodes, >, base->n_nodes);
  g_assert_cmpuint (one->n_nodes, <, base->n_nodes + cur->n_nodes);
  g_assert_cmpmem (two->nodes, sizeof (FlameNode) * two->n_nodes,
                   one->nodes, sizeof (FlameNode) * one->n_nodes);
  for (guint c = 0; c < 2; c++)
    g_assert_cmpmem (two->self[c], sizeof (gdouble) * two->n_nodes,
                     one->self[c], sizeof (gdouble) * one->n_nodes);
  for (guint32 n = 0; n < cur->n_nodes; n++)
    g_assert_cmpuint (node_map[n].node, ==, expected[n]);

  /* cancelled: says so */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    FlameTree *three = flame_tree_new (2);

    flame_tree_copy_structure (three, base, identity);
    g_cancellable_cancel (cancellable);
    g_assert_false (flame_merge_nodes_parallel (three, cur, &columns, node_map, cancellable,
                                                &cancelled));
    g_assert_true (cancelled);
    flame_tree_free (three);
  }

  /* one long chain: no depth with 64 nodes to share out */
  {
    FlameTree *chain = flame_tree_new (1);
    FlameTree *three = flame_tree_new (2);
    guint32 node = FLAME_TREE_ROOT;

    for (guint d = 0; d < 100; d++)
      node = flame_tree_child (chain, node, d % 2000);
    g_assert_false (flame_merge_nodes_parallel (three, chain, &columns, node_map, NULL,
                                                &cancelled));
    g_assert_false (cancelled);
    g_assert_cmpuint (three->n_nodes, ==, 1);
    flame_tree_free (chain);
    flame_tree_free (three);
  }

  flame_tree_free (base);
  flame_tree_free (cur);
  flame_tree_free (one);
  flame_tree_free (two);
}

/* Random folded stacks over @n_frames frames, two thirds of them the
 * same for every @seed */
static char *
random_folded (guint32 seed,
               guint   n_stacks,
               guint   n_frames)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GRand) shared = g_rand_new_with_seed (20261207);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n_stacks; i++)
    {
      GRand *r = g_rand_int_range (rand, 0, 3) > 0 ? shared : rand;
      guint depth = g_rand_int_range (r, 1, 25);

      for (guint d = 0; d < depth; d++)
        g_string_append_printf (text, "%sfunction_%d", d ? ";" : "",
                                g_rand_int_range (r, 0, d < 2 ? 3 + d * 20 : n_frames));
      g_string_append_printf (text, " %d\n", g_rand_int_range (r, 1, 40));
    }
  return g_string_free (text, FALSE);
}

static FlameProfile *
load_folded_text (const char *text)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr(GError) error = NULL;
  FlameProfile *p = flame_load_bytes ("test.folded", bytes, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return p;
}

/* Two diffs are the same: frames, nodes, weights */
static void
assert_same_diff (FlameDiff *a,
                  FlameDiff *b)
{
  FlameTree *ta = flame_diff_get_tree (a), *tb = flame_diff_get_tree (b);
  FlameFrames *fa = flame_diff_get_frames (a), *fb = flame_diff_get_frames (b);

  g_assert_cmpuint (flame_frames_count (fa), ==, flame_frames_count (fb));
  for (guint f = 0; f < flame_frames_count (fa); f++)
    g_assert_cmpstr (flame_frames_get_name (fa, f), ==, flame_frames_get_name (fb, f));
  g_assert_cmpuint (ta->n_nodes, ==, tb->n_nodes);
  g_assert_cmpmem (ta->nodes, sizeof (FlameNode) * ta->n_nodes,
                   tb->nodes, sizeof (FlameNode) * tb->n_nodes);
  for (guint c = 0; c < 2; c++)
    {
      g_assert_cmpmem (ta->self[c], sizeof (gdouble) * ta->n_nodes,
                       tb->self[c], sizeof (gdouble) * tb->n_nodes);
      g_assert_cmpmem (ta->total[c], sizeof (gdouble) * ta->n_nodes,
                       tb->total[c], sizeof (gdouble) * tb->n_nodes);
      g_assert_cmpfloat (flame_diff_get_total_ms (a, c), ==, flame_diff_get_total_ms (b, c));
    }
}

/* A diff that takes its baseline's tree (flame_diff_new_taking_baseline())
 * is the diff that copies it, node for node, whether the tree comes from
 * a loader (its reserved arrays taken as they are) or was built by hand
 * (arrays moved); the baseline keeps its frames and root weights only.
 * Its current side is never taken. */
static void
test_taking_baseline (void)
{
  g_autofree char *base_text = random_folded (1, 6000, 300);
  g_autofree char *cur_text = random_folded (2, 6000, 300);
  const char *const hand_b[] = { "a;b;c", "a;b;c", "a;d", "e", NULL };
  const char *const hand_c[] = { "a;b;c", "a;b;x", "a;d", "a;d", "f;g", NULL };

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(FlameProfile) base1 = k == 0 ? load_folded_text (base_text)
                                             : flame_test_profile (hand_b);
      g_autoptr(FlameProfile) cur1 = k == 0 ? load_folded_text (cur_text)
                                            : flame_test_profile (hand_c);
      g_autoptr(FlameProfile) base2 = k == 0 ? load_folded_text (base_text)
                                             : flame_test_profile (hand_b);
      g_autoptr(FlameProfile) cur2 = k == 0 ? load_folded_text (cur_text)
                                            : flame_test_profile (hand_c);
      g_autoptr(FlameDiff) copied = NULL;
      g_autoptr(FlameDiff) taken = NULL;
      g_autoptr(GError) error = NULL;
      guint base_frames = flame_frames_count (flame_profile_get_frames (base2));
      guint cur_nodes = flame_profile_get_tree (cur2)->n_nodes;
      gdouble root = flame_profile_get_total_weight (base2, 0);

      /* a loader reserves its arrays; a tree built by hand grows */
      g_assert_true ((flame_profile_get_tree (base2)->reserved_nodes > 0) == (k == 0));
      copied = flame_diff_new (base1, cur1, NULL, NULL, &error);
      g_assert_no_error (error);
      taken = flame_diff_new_taking_baseline (base2, cur2, NULL, NULL, &error);
      g_assert_no_error (error);
      assert_same_diff (copied, taken);
      g_assert_cmpuint (flame_profile_get_tree (base1)->n_nodes, >, 1);

      g_assert_cmpuint (flame_profile_get_tree (base2)->n_nodes, ==, 1);
      g_assert_cmpuint (flame_profile_get_tree (base2)->nodes[0].first_child, ==,
                        FLAME_TREE_NONE);
      g_assert_cmpfloat (flame_profile_get_total_weight (base2, 0), ==, root);
      g_assert_cmpuint (flame_frames_count (flame_profile_get_frames (base2)), ==, base_frames);
      g_assert_cmpuint (flame_profile_get_tree (cur2)->n_nodes, ==, cur_nodes);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/diff/cpython/t1-identical", test_t1_identical);
  g_test_add_func ("/diff/cpython/t2-new-function", test_t2_new_function);
  g_test_add_func ("/diff/cpython/t3-changed-functions", test_t3_changed_functions);
  g_test_add_func ("/diff/cpython/t4-scale-factor", test_t4_scale_factor);
  g_test_add_func ("/diff/cpython/t5-elided-stacks", test_t5_elided_stacks);
  g_test_add_func ("/diff/cpython/t6-line-change", test_t6_line_change);
  g_test_add_func ("/diff/cpython/t7-empty-current", test_t7_empty_current);
  g_test_add_func ("/diff/cpython/t8-empty-baseline", test_t8_empty_baseline);
  g_test_add_func ("/diff/cpython/t9-export", test_t9_export);
  g_test_add_func ("/diff/cpython/t10-metadata", test_t10_metadata);
  g_test_add_func ("/diff/cpython/t11-elided-metadata", test_t11_elided_metadata);
  g_test_add_func ("/diff/cpython/t12-load-baseline", test_t12_load_baseline);
  g_test_add_func ("/diff/cpython/6.1-elided-top-level-root", test_6_1_elided_top_level_root);
  g_test_add_func ("/diff/class-thresholds", test_class_thresholds);
  g_test_add_func ("/diff/normalize-none", test_normalize_none);
  g_test_add_func ("/diff/default-absolute-new-function", test_default_absolute_new_function);
  g_test_add_func ("/diff/normalization-header", test_normalization_header);
  g_test_add_func ("/diff/inverted", test_inverted);
  g_test_add_func ("/diff/merge-parallel", test_merge_parallel);
  g_test_add_func ("/diff/take-index", test_take_index);
  g_test_add_func ("/diff/taking-baseline", test_taking_baseline);
  g_test_add_func ("/diff/strip-hex", test_strip_hex);
  g_test_add_func ("/diff/binomial", test_binomial);
  g_test_add_func ("/diff/noise", test_noise);
  g_test_add_func ("/diff/self-compare", test_self_compare);
  g_test_add_func ("/diff/folded-order", test_folded_order);
  g_test_add_func ("/diff/folded-order-random", test_folded_order_random);
  g_test_add_func ("/diff/folded-order-same-name", test_folded_order_same_name);
  g_test_add_func ("/diff/folded-drained", test_folded_drained);
  g_test_add_func ("/diff/binaries", test_binaries);
  g_test_add_func ("/diff/binaries-absent", test_binaries_absent);

  return g_test_run ();
}

/* test-comparison.c: FlameComparison, the pipeline the window and the CLI
 * share: files of both sides loaded in parallel, diff, report, the
 * options → report-options rule, progress on the caller's main context,
 * cancellation and errors.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "flame-comparison.h"
#include "flame-error.h"
#include "flame-test-utils.h"

typedef struct
{
  char *dir;
  char *base;
  char *cur;
} Files;

static void
files_init (Files      *f,
            const char *base_text,
            const char *cur_text)
{
  f->dir = g_dir_make_tmp ("flamediff-comparison-XXXXXX", NULL);
  f->base = g_build_filename (f->dir, "base.folded", NULL);
  f->cur = g_build_filename (f->dir, "cur.folded", NULL);
  g_assert_true (g_file_set_contents (f->base, base_text, -1, NULL));
  g_assert_true (g_file_set_contents (f->cur, cur_text, -1, NULL));
}

static void
files_clear (Files *f)
{
  g_unlink (f->base);
  g_unlink (f->cur);
  g_rmdir (f->dir);
  g_free (f->base);
  g_free (f->cur);
  g_free (f->dir);
}

#define BASE_TEXT "main;parse 40\nmain;work 60\n"
#define CUR_TEXT  "main;parse 40\nmain;work 90\nmain;log 5\n"

static void
test_sync (void)
{
  Files f;
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;
  FlameReport *report;

  files_init (&f, BASE_TEXT, CUR_TEXT);
  flame_comparison_add_baseline (c, f.base);
  flame_comparison_add_current (c, f.cur);
  g_assert_cmpuint (flame_comparison_get_n_runs (c, FLAME_DIFF_BASELINE), ==, 1);
  g_assert_cmpuint (flame_comparison_get_n_runs (c, FLAME_DIFF_CURRENT), ==, 1);
  g_assert_true (flame_comparison_load (c, NULL, &error));
  g_assert_no_error (error);

  g_assert_nonnull (flame_comparison_get_profile (c, FLAME_DIFF_BASELINE));
  g_assert_nonnull (flame_comparison_get_profile (c, FLAME_DIFF_CURRENT));
  /* the loaders' indexes went to the diff or were dropped: a loaded
   * profile costs its nodes only */
  for (guint side = 0; side < 2; side++)
    g_assert_null (flame_profile_get_tree (flame_comparison_get_profile (c, side))->slots);
  g_assert_cmpfloat (flame_diff_get_total_ms (flame_comparison_get_diff (c), FLAME_DIFF_BASELINE),
                     ==, 100);
  g_assert_cmpfloat (flame_diff_get_total_ms (flame_comparison_get_diff (c), FLAME_DIFF_CURRENT),
                     ==, 135);
  report = flame_comparison_get_report (c);
  g_assert_nonnull (report);
  g_assert_cmpint (flame_report_find (report, "log")->status, ==, FLAME_STATUS_NEW);
  g_assert_cmpfloat (flame_comparison_get_fraction (c), ==, 1);
  g_assert_cmpstr (g_file_peek_path (flame_comparison_get_run_file (c, FLAME_DIFF_CURRENT, 0)), ==,
                   f.cur);
  files_clear (&f);
}

/* the diff options decide the report's metric and noise gate */
static void
test_report_rule (void)
{
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  FlameDiffOptions dopts;
  FlameReportOptions ropts;
  const FlameReportOptions *got;

  flame_diff_options_init (&dopts);
  flame_report_options_init (&ropts);
  dopts.metric = FLAME_METRIC_TOTAL;
  dopts.significance = 0.01;
  ropts.metric = FLAME_METRIC_SELF;
  ropts.threshold_pct = 12;
  flame_comparison_set_report_options (c, &ropts);
  flame_comparison_set_diff_options (c, &dopts);
  got = flame_comparison_get_report_options (c);
  g_assert_cmpint (got->metric, ==, FLAME_METRIC_TOTAL);
  g_assert_cmpfloat (got->alpha, ==, 0.01);
  g_assert_true (got->gate_on_noise);
  g_assert_cmpfloat (got->threshold_pct, ==, 12);

  dopts.significance = 0;
  flame_comparison_set_diff_options (c, &dopts);
  g_assert_false (flame_comparison_get_report_options (c)->gate_on_noise);
}

typedef struct
{
  GMainLoop *loop;
  GError    *error;
  gboolean   ok;
  guint      n_fraction;
  guint      n_message;
  gboolean   saw_loading;
  GThread   *thread;
  gboolean   other_thread;
} AsyncState;

static void
on_notify (FlameComparison *c,
           GParamSpec      *pspec,
           AsyncState      *st)
{
  if (g_thread_self () != st->thread)
    st->other_thread = TRUE;
  if (strcmp (pspec->name, "fraction") == 0)
    st->n_fraction++;
  else
    {
      st->n_message++;
      if (g_str_has_prefix (flame_comparison_get_message (c), "Loading base.folded and cur.folded"))
        st->saw_loading = TRUE;
    }
}

static void
on_loaded (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  AsyncState *st = data;

  st->ok = flame_comparison_load_finish (FLAME_COMPARISON (object), result, &st->error);
  g_main_loop_quit (st->loop);
}

static void
test_async (void)
{
  Files f;
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  AsyncState st = {
    g_main_loop_new (NULL, FALSE), NULL, FALSE, 0, 0, FALSE, g_thread_self (), FALSE
  };

  files_init (&f, BASE_TEXT, CUR_TEXT);
  flame_comparison_add_baseline (c, f.base);
  flame_comparison_add_current (c, f.cur);
  g_signal_connect (c, "notify", G_CALLBACK (on_notify), &st);
  flame_comparison_load_async (c, NULL, on_loaded, &st);
  g_main_loop_run (st.loop);

  g_assert_no_error (st.error);
  g_assert_true (st.ok);
  g_assert_true (st.saw_loading);
  g_assert_cmpuint (st.n_fraction, >, 0);
  g_assert_false (st.other_thread);
  g_assert_cmpfloat (flame_comparison_get_fraction (c), ==, 1);
  g_assert_nonnull (flame_comparison_get_diff (c));

  g_main_loop_unref (st.loop);
  files_clear (&f);
}

static void
test_cancel (void)
{
  Files f;
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AsyncState st = {
    g_main_loop_new (NULL, FALSE), NULL, FALSE, 0, 0, FALSE, g_thread_self (), FALSE
  };

  files_init (&f, BASE_TEXT, CUR_TEXT);
  flame_comparison_add_baseline (c, f.base);
  flame_comparison_add_current (c, f.cur);
  g_cancellable_cancel (cancellable);
  flame_comparison_load_async (c, cancellable, on_loaded, &st);
  g_main_loop_run (st.loop);
  g_assert_false (st.ok);
  g_assert_error (st.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (flame_comparison_get_diff (c));
  g_clear_error (&st.error);

  /* and it can load afterwards */
  g_assert_true (flame_comparison_load (c, NULL, NULL));
  g_assert_nonnull (flame_comparison_get_diff (c));
  g_main_loop_unref (st.loop);
  files_clear (&f);
}

/* both files are named when both are wrong */
static void
test_errors (void)
{
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;

  flame_comparison_add_baseline (c, "/nonexistent/a.folded");
  flame_comparison_add_current (c, "/nonexistent/b.folded");
  g_assert_false (flame_comparison_load (c, NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "a.folded"));
  g_assert_nonnull (strstr (error->message, "b.folded"));
}

/* profiles loaded already are not read again; swapped here */
static void
test_add_profile (void)
{
  g_autoptr(FlameProfile) b = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameProfile) cur =
    flame_test_profile ((const char *[]){ "main;work", "main;work", NULL });
  g_autoptr(FlameComparison) c = flame_comparison_new ();

  flame_comparison_add_profile (c, FLAME_DIFF_BASELINE, NULL, cur);
  flame_comparison_add_profile (c, FLAME_DIFF_CURRENT, NULL, b);
  g_assert_true (flame_comparison_load (c, NULL, NULL));
  g_assert_true (flame_comparison_get_profile (c, FLAME_DIFF_BASELINE) == cur);
  g_assert_cmpfloat (flame_diff_get_total_ms (flame_comparison_get_diff (c), FLAME_DIFF_CURRENT),
                     ==, 1);
  g_assert_cmpfloat (flame_diff_get_total_ms (flame_comparison_get_diff (c), FLAME_DIFF_BASELINE),
                     ==, 2);
}

/* A comparison of @b and @cur with @options; with @reuse, sharing its
 * merged tree where it can */
static FlameComparison *
compare_with (FlameProfile           *b,
              FlameProfile           *cur,
              FlameDiff              *reuse,
              const FlameDiffOptions *options)
{
  FlameComparison *c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;

  flame_comparison_add_profile (c, FLAME_DIFF_BASELINE, NULL, b);
  flame_comparison_add_profile (c, FLAME_DIFF_CURRENT, NULL, cur);
  if (reuse != NULL)
    flame_comparison_reuse_diff (c, reuse);
  flame_comparison_set_diff_options (c, options);
  g_assert_true (flame_comparison_load (c, NULL, &error));
  g_assert_no_error (error);
  return c;
}

/* everything a view or the report reads of two diffs is the same */
static void
assert_same_results (FlameComparison *x,
                     FlameComparison *y)
{
  FlameDiff *dx = flame_comparison_get_diff (x), *dy = flame_comparison_get_diff (y);
  FlameTree *tx = flame_diff_get_tree (dx), *ty = flame_diff_get_tree (dy);
  FlameTree *ix = flame_diff_get_inverted_tree (dx), *iy = flame_diff_get_inverted_tree (dy);
  FlameMetric metric = flame_diff_get_options (dx)->metric;
  g_autoptr(GString) jx = g_string_new (NULL);
  g_autoptr(GString) jy = g_string_new (NULL);

  g_assert_cmpint (metric, ==, flame_diff_get_options (dy)->metric);
  g_assert_cmpfloat (flame_diff_get_scale (dx), ==, flame_diff_get_scale (dy));
  g_assert_cmpuint (flame_diff_get_elided_count (dx), ==, flame_diff_get_elided_count (dy));
  g_assert_cmpuint (tx->n_nodes, ==, ty->n_nodes);
  for (guint32 n = 1; n < tx->n_nodes; n++)
    {
      g_assert_cmpint (flame_diff_classify (dx, tx, n, metric), ==,
                       flame_diff_classify (dy, ty, n, metric));
      g_assert_cmpfloat (flame_diff_get_elided_weight (dx, n), ==,
                         flame_diff_get_elided_weight (dy, n));
    }
  g_assert_cmpuint (ix->n_nodes, ==, iy->n_nodes);
  for (guint32 n = 1; n < ix->n_nodes; n++)
    g_assert_cmpint (flame_diff_classify (dx, ix, n, metric), ==,
                     flame_diff_classify (dy, iy, n, metric));
  flame_report_write_json (flame_comparison_get_report (x), jx);
  flame_report_write_json (flame_comparison_get_report (y), jy);
  g_assert_cmpstr (jx->str, ==, jy->str);
}

/* Colouring by total time, scaling the baseline or hiding noise compares
 * the same two profiles again with the merged tree of the last diff
 * (the window's view toggles): the results equal a diff made anew, and
 * outlive the diff they borrow from. Other options merge again. */
static void
test_reuse_diff (void)
{
  g_autoptr(FlameProfile) b = flame_test_profile ((const char *[]) {
    "main;parse;lex", "main;parse;lex", "main;work;hash", "main;work;hash", "main;work",
    "main;old;gone", "main;old;gone", "main;0x1f00", NULL });
  g_autoptr(FlameProfile) cur = flame_test_profile ((const char *[]) {
    "main;parse;lex", "main;work;hash", "main;work;hash", "main;work;hash", "main;work;sort",
    "main;work", "main;work", "main;0x2a00", "main;log", NULL });
  FlameDiffOptions plain, variants[4], other;
  g_autoptr(FlameComparison) first = NULL;
  FlameDiff *last;

  flame_diff_options_init (&plain);
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    variants[i] = plain;
  variants[0].metric = FLAME_METRIC_TOTAL;
  variants[1].normalize = FLAME_NORMALIZE_TOTAL;
  variants[2].significance = 0.05;
  variants[3].metric = FLAME_METRIC_TOTAL;
  variants[3].normalize = FLAME_NORMALIZE_TOTAL;

  first = compare_with (b, cur, NULL, &plain);
  /* made once: borrowed, not made again */
  flame_diff_get_inverted_tree (flame_comparison_get_diff (first));
  flame_diff_get_elided_weight (flame_comparison_get_diff (first), FLAME_TREE_ROOT);
  last = g_object_ref (flame_comparison_get_diff (first));
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr(FlameComparison) reused = compare_with (b, cur, last, &variants[i]);
      g_autoptr(FlameComparison) anew = compare_with (b, cur, NULL, &variants[i]);
      FlameDiff *d = flame_comparison_get_diff (reused);
      FlameDiff *fresh = flame_comparison_get_diff (anew);

      g_assert_true (flame_diff_get_tree (d) == flame_diff_get_tree (last));
      g_assert_true (flame_diff_get_inverted_tree (d) == flame_diff_get_inverted_tree (last));
      g_assert_false (flame_diff_get_tree (d) == flame_diff_get_tree (fresh));
      assert_same_results (reused, anew);
      /* the next one reuses this one (a chain of toggles); the first
       * diff is gone after the first round */
      g_object_unref (last);
      last = g_object_ref (d);
      if (i == 0)
        g_clear_object (&first);
    }

  /* what shapes the tree, or other profiles: merged anew */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(FlameComparison) c = NULL;

      other = plain;
      if (i == 0)
        other.strip_hex = TRUE;
      else if (i == 1)
        other.match = FLAME_MATCH_NAME;
      else
        other.default_interval_ms = 10;
      c = compare_with (b, cur, last, &other);
      g_assert_false (flame_diff_get_tree (flame_comparison_get_diff (c)) ==
                      flame_diff_get_tree (last));
    }
  {
    g_autoptr(FlameComparison) swapped = compare_with (cur, b, last, &plain);

    g_assert_false (flame_diff_get_tree (flame_comparison_get_diff (swapped)) ==
                    flame_diff_get_tree (last));
    g_assert_null (flame_diff_new_reusing (last, cur, b, &plain));
    g_assert_null (flame_diff_new_reusing (last, b, NULL, &plain));
  }
  g_object_unref (last);
}

/* one profile alone: a diff error, unless asked for */
static void
test_single (void)
{
  g_autoptr(FlameProfile) p = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;

  flame_comparison_add_profile (c, FLAME_DIFF_BASELINE, NULL, p);
  g_assert_false (flame_comparison_load (c, NULL, &error));
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  flame_comparison_set_allow_single (c, TRUE);
  g_assert_true (flame_comparison_load (c, NULL, NULL));
  g_assert_null (flame_comparison_get_diff (c));
  g_assert_null (flame_comparison_get_report (c));
  g_assert_true (flame_comparison_get_profile (c, FLAME_DIFF_BASELINE) == p);
}

/* a comparison asked for no report stops at the diff */
static void
test_no_report (void)
{
  g_autoptr(FlameProfile) b = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameProfile) c = flame_test_profile ((const char *[]) { "main;work", "main", NULL });
  g_autoptr(FlameComparison) cmp = flame_comparison_new ();

  flame_comparison_add_profile (cmp, FLAME_DIFF_BASELINE, NULL, b);
  flame_comparison_add_profile (cmp, FLAME_DIFF_CURRENT, NULL, c);
  flame_comparison_set_want_report (cmp, FALSE);
  g_assert_true (flame_comparison_load (cmp, NULL, NULL));
  g_assert_nonnull (flame_comparison_get_diff (cmp));
  g_assert_null (flame_comparison_get_report (cmp));
  flame_comparison_set_want_report (cmp, TRUE);
  g_assert_true (flame_comparison_load (cmp, NULL, NULL));
  g_assert_nonnull (flame_comparison_get_report (cmp));
}

/* several runs per side: the diff compares their mean, and every run's
 * per-function times are kept */
static char *
write_run (const char *dir,
           const char *name,
           const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_several_runs (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-runs-XXXXXX", NULL);
  g_autofree char *b1 = write_run (dir, "b1.folded", "main;work 60\nmain;parse 40\n");
  g_autofree char *b2 = write_run (dir, "b2.folded",
                                   "main;work 80\nmain;parse 20\nmain;work;work 10\n");
  g_autofree char *c1 = write_run (dir, "c1.folded", "main;work 90\n");
  g_autofree char *c2 = write_run (dir, "c2.folded", "main;work 100\nmain;log 6\n");
  g_autofree char *c3 = write_run (dir, "c3.folded", "main;work 110\n");
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;
  const FlameRuns *runs;
  FlameFrames *frames;
  FlameDiff *diff;
  guint32 work = G_MAXUINT32;

  flame_comparison_add_baseline (c, b1);
  flame_comparison_add_baseline (c, b2);
  flame_comparison_add_current (c, c1);
  flame_comparison_add_current (c, c2);
  flame_comparison_add_current (c, c3);
  g_assert_true (flame_comparison_load (c, NULL, &error));
  g_assert_no_error (error);

  /* the mean run: (100 + 110) / 2 and (90 + 106 + 110) / 3 */
  diff = flame_comparison_get_diff (c);
  g_assert_cmpfloat_with_epsilon (flame_diff_get_total_ms (diff, FLAME_DIFF_BASELINE), 105, 1e-9);
  g_assert_cmpfloat_with_epsilon (flame_diff_get_total_ms (diff, FLAME_DIFF_CURRENT), 102, 1e-9);
  g_assert_cmpfloat_with_epsilon (flame_report_find (flame_comparison_get_report (c), "parse")
                                    ->self_b,
                                  30, 1e-9);

  runs = flame_comparison_get_runs (c, FLAME_DIFF_BASELINE);
  g_assert_nonnull (runs);
  g_assert_cmpuint (runs->n_runs, ==, 2);
  frames = flame_profile_get_frames (runs->mean);
  for (guint32 f = 0; f < runs->n_frames; f++)
    if (g_str_equal (flame_frames_get_name (frames, f), "work"))
      work = f;
  g_assert_cmpuint (work, !=, G_MAXUINT32);
  /* per run, a function counted once per stack in its total */
  g_assert_cmpfloat (runs->self_ms[0 * runs->n_frames + work], ==, 60);
  g_assert_cmpfloat (runs->total_ms[0 * runs->n_frames + work], ==, 60);
  g_assert_cmpfloat (runs->self_ms[1 * runs->n_frames + work], ==, 90);
  g_assert_cmpfloat (runs->total_ms[1 * runs->n_frames + work], ==, 90);
  g_assert_cmpuint (flame_comparison_get_runs (c, FLAME_DIFF_CURRENT)->n_runs, ==, 3);
  g_assert_nonnull (
    strstr (flame_profile_get_path (flame_comparison_get_profile (c, FLAME_DIFF_CURRENT)),
            "c3.folded (mean of 3 runs)"));

  for (const char *const *p = (const char *const[]) { b1, b2, c1, c2, c3, NULL }; *p; p++)
    g_unlink (*p);
  g_rmdir (dir);
}

/* runs of one side measure the same thing */
static void
test_runs_mixed_units (void)
{
  g_autoptr(FlameProfile) t = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameProfile) b = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;

  flame_profile_set_unit (b, FLAME_UNIT_BYTES);
  flame_comparison_add_profile (c, FLAME_DIFF_BASELINE, NULL, t);
  flame_comparison_add_profile (c, FLAME_DIFF_BASELINE, NULL, b);
  flame_comparison_add_profile (c, FLAME_DIFF_CURRENT, NULL, t);
  g_assert_false (flame_comparison_load (c, NULL, &error));
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "measures something else"));
}

/* a side of one run keeps its own profile: nothing merged */
static void
test_one_run_unmerged (void)
{
  g_autoptr(FlameProfile) p = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameComparison) c = flame_comparison_new ();
  g_autoptr(GError) error = NULL;

  flame_comparison_add_profile (c, FLAME_DIFF_BASELINE, NULL, p);
  flame_comparison_add_profile (c, FLAME_DIFF_CURRENT, NULL, p);
  g_assert_true (flame_comparison_load (c, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (flame_comparison_get_profile (c, FLAME_DIFF_BASELINE) == p);
  g_assert_null (flame_comparison_get_runs (c, FLAME_DIFF_BASELINE));
}

/* a folder stands for every profile in it, by name; a file for itself */
static void
test_list_runs (void)
{
  Files f;
  g_autofree char *readme = NULL;
  g_autofree char *sub = NULL;
  g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) runs = NULL;
  g_autoptr(GPtrArray) one = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autoptr(GError) error = NULL;

  files_init (&f, BASE_TEXT, CUR_TEXT);
  readme = g_build_filename (f.dir, "README.txt", NULL);
  sub = g_build_filename (f.dir, "older", NULL);
  g_assert_true (g_file_set_contents (readme, "Two runs of main.\n", -1, NULL));
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);

  runs = flame_comparison_list_runs (f.dir, ignored, &error);
  g_assert_no_error (error);
  g_assert_nonnull (runs);
  g_assert_cmpuint (runs->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (runs, 0), ==, f.base);
  g_assert_cmpstr (g_ptr_array_index (runs, 1), ==, f.cur);
  g_assert_cmpuint (ignored->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (ignored, 0), ==, readme);

  one = flame_comparison_list_runs (f.cur, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (one->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (one, 0), ==, f.cur);

  /* a folder of no profile is an error that names it */
  none = flame_comparison_list_runs (sub, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, sub));

  g_rmdir (sub);
  g_unlink (readme);
  files_clear (&f);
}

/* A single-use comparison of two files its diff takes the baseline's
 * tree (flame_comparison_set_single_use()): the same diff and report as
 * a comparison that copies it; profiles given loaded are never taken,
 * nor are the runs behind a mean */
static void
test_single_use (void)
{
  Files f;
  g_autoptr(FlameComparison) plain = flame_comparison_new ();
  g_autoptr(FlameComparison) once = flame_comparison_new ();
  g_autoptr(FlameComparison) given = flame_comparison_new ();
  g_autoptr(FlameComparison) runs = flame_comparison_new ();
  g_autoptr(FlameProfile) b = flame_test_profile ((const char *[]) { "main;work", NULL });
  g_autoptr(FlameProfile) cur =
    flame_test_profile ((const char *[]){ "main;work", "main;idle", NULL });
  FlameTree *tb, *tc;
  FlameProfile *base;

  files_init (&f, BASE_TEXT, CUR_TEXT);
  flame_comparison_add_baseline (plain, f.base);
  flame_comparison_add_current (plain, f.cur);
  g_assert_true (flame_comparison_load (plain, NULL, NULL));
  flame_comparison_add_baseline (once, f.base);
  flame_comparison_add_current (once, f.cur);
  flame_comparison_set_single_use (once, TRUE);
  g_assert_true (flame_comparison_load (once, NULL, NULL));

  base = flame_comparison_get_profile (once, FLAME_DIFF_BASELINE);
  g_assert_cmpuint (flame_profile_get_tree (base)->n_nodes, ==, 1);
  g_assert_cmpfloat (flame_profile_get_total_weight (base, 0), ==,
                     flame_profile_get_total_weight (
                       flame_comparison_get_profile (plain, FLAME_DIFF_BASELINE), 0));
  g_assert_cmpuint (flame_profile_get_tree (flame_comparison_get_profile (once,
                                                                          FLAME_DIFF_CURRENT))
                      ->n_nodes, >, 1);
  tb = flame_diff_get_tree (flame_comparison_get_diff (plain));
  tc = flame_diff_get_tree (flame_comparison_get_diff (once));
  g_assert_cmpuint (tb->n_nodes, ==, tc->n_nodes);
  g_assert_cmpmem (tb->nodes, sizeof (FlameNode) * tb->n_nodes,
                   tc->nodes, sizeof (FlameNode) * tc->n_nodes);
  assert_same_results (plain, once);

  flame_comparison_add_profile (given, FLAME_DIFF_BASELINE, NULL, b);
  flame_comparison_add_profile (given, FLAME_DIFF_CURRENT, NULL, cur);
  flame_comparison_set_single_use (given, TRUE);
  g_assert_true (flame_comparison_load (given, NULL, NULL));
  g_assert_cmpuint (flame_profile_get_tree (b)->n_nodes, ==, 3);

  for (guint i = 0; i < 2; i++)
    flame_comparison_add_baseline (runs, f.base);
  flame_comparison_add_current (runs, f.cur);
  flame_comparison_set_single_use (runs, TRUE);
  g_assert_true (flame_comparison_load (runs, NULL, NULL));
  for (guint i = 0; i < 2; i++)
    g_assert_cmpuint (flame_profile_get_tree (flame_comparison_get_run_profile (
                        runs, FLAME_DIFF_BASELINE, i))->n_nodes, >, 1);
  files_clear (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/comparison/sync", test_sync);
  g_test_add_func ("/comparison/report-rule", test_report_rule);
  g_test_add_func ("/comparison/async", test_async);
  g_test_add_func ("/comparison/cancel", test_cancel);
  g_test_add_func ("/comparison/errors", test_errors);
  g_test_add_func ("/comparison/add-profile", test_add_profile);
  g_test_add_func ("/comparison/single-use", test_single_use);
  g_test_add_func ("/comparison/reuse-diff", test_reuse_diff);
  g_test_add_func ("/comparison/single", test_single);
  g_test_add_func ("/comparison/no-report", test_no_report);
  g_test_add_func ("/comparison/several-runs", test_several_runs);
  g_test_add_func ("/comparison/one-run-unmerged", test_one_run_unmerged);
  g_test_add_func ("/comparison/runs-mixed-units", test_runs_mixed_units);
  g_test_add_func ("/comparison/list-runs", test_list_runs);
  return g_test_run ();
}

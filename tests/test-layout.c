/* test-layout.c: flame graph layout, palettes and tooltip text (core,
 * no cairo).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-layout.h"
#include "flame-loader.h"
#include "flame-palette.h"
#include "flame-tooltip.h"
#include "flame-test-layout.h"
#include "flame-test-examples.h"
#include "flame-test-locale.h"

static FlameDiff *
example_diff_full (FlameNormalize normalize)
{
  FlameDiffOptions options;

  flame_diff_options_init (&options);
  options.normalize = normalize;
  return flame_test_example_diff (&options);
}

static FlameDiff *
example_diff (void)
{
  return example_diff_full (FLAME_NORMALIZE_ABSOLUTE);
}

/* One sample per stack line "a;b;c weight", 1 ms per sample. */
static FlameProfile *
profile_from_stacks (const char *const *stacks)
{
  FlameProfile *profile = flame_profile_new (FLAME_FORMAT_FOLDED, 1);

  flame_profile_set_interval_ms (profile, 1.0);
  for (guint i = 0; stacks[i] != NULL; i++)
    {
      g_auto(GStrv) ws = g_strsplit (stacks[i], " ", 2);
      g_auto(GStrv) frames = g_strsplit (ws[0], ";", -1);
      guint n = g_strv_length (frames);
      g_autofree guint32 *ids = g_new (guint32, n);
      gdouble w = ws[1] ? g_ascii_strtod (ws[1], NULL) : 1;

      for (guint f = 0; f < n; f++)
        ids[f] = flame_profile_intern_frame (profile, frames[f], strlen (frames[f]), NULL, 0, 0, 0);
      flame_profile_add_stack (profile, 0, ids, n, w);
    }
  flame_profile_finish (profile);
  return profile;
}

/* Structural checks every layout must pass: rows in order, frames in
 * each row sorted and disjoint, children within their parent. */
static void
check_structure (FlameLayout *layout)
{
  FlameLayoutSource *source = flame_layout_get_source (layout);
  const FlameTree *tree = flame_layout_source_get_tree (source);
  gdouble width = flame_layout_get_options (layout)->width;
  guint n = flame_layout_get_n_frames (layout);
  /* node -> first unmerged frame + 1, as flame_layout_find_node() finds it
   * (linear, so that large layouts are not checked in quadratic time) */
  g_autofree guint *frame_of_node = g_new0 (guint, tree->n_nodes);

  for (guint i = n; i-- > 0;)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      if (!(f->flags & FLAME_LAYOUT_FRAME_MERGED))
        frame_of_node[f->node] = i + 1;
    }
  for (guint i = 0; i < n; i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      g_assert_cmpfloat (f->x, >=, -1e-9);
      g_assert_cmpfloat (f->x + f->width, <=, width + 1e-6);
      g_assert_cmpfloat (f->width, >=, flame_layout_get_options (layout)->min_width - 1e-9);
      if (i > 0)
        {
          const FlameLayoutFrame *p = flame_layout_get_frame (layout, i - 1);

          g_assert_cmpuint (p->depth, <=, f->depth);
          if (p->depth == f->depth)
            g_assert_cmpfloat (p->x + p->width, <=, f->x + 1e-6);
        }
      if (!(f->flags & (FLAME_LAYOUT_FRAME_ANCESTOR | FLAME_LAYOUT_FRAME_ZOOM_ROOT |
                        FLAME_LAYOUT_FRAME_MERGED)))
        {
          guint pi = frame_of_node[tree->nodes[f->node].parent];
          const FlameLayoutFrame *p;

          g_assert_cmpuint (pi, >, 0);
          p = flame_layout_get_frame (layout, pi - 1);
          g_assert_cmpuint (p->depth + 1, ==, f->depth);
          g_assert_cmpfloat (f->x, >=, p->x - 1e-6);
          g_assert_cmpfloat (f->x + f->width, <=, p->x + p->width + 1e-6);
        }
    }
}

static const FlameLayoutFrame *
frame_of (FlameLayout *layout,
          guint32      node)
{
  gint i = flame_layout_find_node (layout, node);

  g_assert_cmpint (i, >=, 0);
  return flame_layout_get_frame (layout, i);
}

static void
test_layout_differential (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlameLayout) layout = NULL;
  FlameLayoutOptions opts;
  const FlameTree *tree = flame_layout_source_get_tree (source);
  gdouble root;
  guint first, n;

  flame_layout_options_init (&opts);
  opts.width = 1000;
  layout = flame_layout_new (source, &opts);
  check_structure (layout);

  root = tree->total[FLAME_DIFF_CURRENT][FLAME_TREE_ROOT];
  g_assert_cmpfloat_with_epsilon (root, 1054, 1e-9);
  g_assert_cmpfloat (flame_layout_source_get_weight (source, FLAME_TREE_ROOT), ==, root);

  /* widths proportional to current time */
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      g_assert_false (f->flags & FLAME_LAYOUT_FRAME_MERGED);
      g_assert_cmpfloat_with_epsilon (f->width,
                                      tree->total[FLAME_DIFF_CURRENT][f->node] / root * 1000, 1e-6);
    }
  g_assert_cmpfloat_with_epsilon (frame_of (layout, flame_test_find (source, "convolve_row"))
                                    ->width,
                                  275 / 1054.0 * 1000, 1e-9);

  /* classes */
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "convolve_row"))->klass, ==,
                   FLAME_CHANGE_REGRESSION_MEDIUM);
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "bilinear_sample"))->klass, ==,
                   FLAME_CHANGE_IMPROVEMENT_MEDIUM);
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "simd_color_convert"))->klass, ==,
                   FLAME_CHANGE_NEW);
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "rgb_to_ycc_avx2"))->klass, ==,
                   FLAME_CHANGE_NEW);
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "inflate"))->klass, ==,
                   FLAME_CHANGE_NEUTRAL);
  g_assert_cmpint (frame_of (layout, FLAME_TREE_ROOT)->klass, ==, FLAME_CHANGE_NEUTRAL);
  /* removed code is not in the main view */
  g_assert_cmpuint (flame_layout_source_find (source, "legacy_color_convert"), ==, FLAME_TREE_NONE);

  /* siblings by name: main's children */
  flame_layout_get_row (layout, 3, &first, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpstr (flame_layout_get_label (layout, first), ==, "load_image");
  g_assert_cmpstr (flame_layout_get_label (layout, first + 1), ==, "parse_args");
  g_assert_cmpstr (flame_layout_get_label (layout, first + 2), ==, "process");
  g_assert_cmpstr (flame_layout_get_label (layout, first + 3), ==, "save_image");
  g_assert_cmpstr (flame_layout_get_label (layout, 0), ==, "all");
  g_assert_cmpuint (flame_layout_get_n_rows (layout), ==, 7);
}

/* A view of a diff that reuses another's merged tree (colour by total,
 * scale the baseline) reuses the previous view's widths and children:
 * its layout equals one made anew, only the classes are its own; the
 * elided view, whose widths follow the scale, is laid out again when
 * the scale changes. */
static void
test_layout_reusing (void)
{
  g_autoptr(FlameDiff) diff = example_diff_full (FLAME_NORMALIZE_TOTAL);
  const FlameView views[] = { FLAME_VIEW_DIFFERENTIAL, FLAME_VIEW_INVERTED, FLAME_VIEW_ELIDED };
  FlameDiffOptions variants[3];

  for (guint k = 0; k < G_N_ELEMENTS (variants); k++)
    variants[k] = *flame_diff_get_options (diff);
  variants[0].metric = FLAME_METRIC_TOTAL;
  variants[1].significance = 0.05;
  variants[2].normalize = FLAME_NORMALIZE_ABSOLUTE;

  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    for (guint k = 0; k < G_N_ELEMENTS (variants); k++)
      {
        g_autoptr(FlameLayoutSource) before = flame_layout_source_new_for_diff (diff, views[v]);
        g_autoptr(FlameDiff) next =
          flame_diff_new_reusing (diff, flame_diff_get_baseline (diff),
                                  flame_diff_get_current (diff), &variants[k]);
        g_autoptr(FlameLayoutSource) reused = NULL;
        g_autoptr(FlameLayoutSource) again = NULL;
        g_autoptr(FlameLayoutSource) anew = NULL;
        g_autoptr(FlameLayout) la = NULL;
        g_autoptr(FlameLayout) lb = NULL;
        gboolean rescaled = flame_diff_get_scale (next) != flame_diff_get_scale (diff);
        gboolean shares = !(views[v] == FLAME_VIEW_ELIDED && rescaled);
        FlameLayoutOptions opts;
        const FlameTree *tree;

        g_assert_nonnull (next);
        reused = flame_layout_source_new_for_diff_reusing (next, views[v], before);
        anew = flame_layout_source_new_for_diff (next, views[v]);
        /* the source that owns the arrays outlives the one it lent them */
        g_clear_object (&before);
        again = flame_layout_source_new_for_diff_reusing (next, views[v], reused);
        tree = flame_layout_source_get_tree (reused);
        g_assert_true (tree == flame_layout_source_get_tree (anew));
        if (shares)
          g_assert_cmpuint (flame_layout_source_memory (reused), <,
                            flame_layout_source_memory (anew) / 4);
        else
          g_assert_cmpuint (flame_layout_source_memory (reused), ==,
                            flame_layout_source_memory (anew));
        for (guint32 n = 0; n < tree->n_nodes; n++)
          {
            g_assert_cmpfloat (flame_layout_source_get_weight (reused, n), ==,
                               flame_layout_source_get_weight (anew, n));
            g_assert_cmpfloat (flame_layout_source_get_weight (again, n), ==,
                               flame_layout_source_get_weight (anew, n));
            g_assert_cmpint (flame_layout_source_get_class (reused, n), ==,
                             flame_layout_source_get_class (anew, n));
          }

        flame_layout_options_init (&opts);
        opts.width = 900;
        la = flame_layout_new (reused, &opts);
        lb = flame_layout_new (anew, &opts);
        g_assert_cmpuint (flame_layout_get_n_frames (la), ==, flame_layout_get_n_frames (lb));
        g_assert_cmpuint (flame_layout_get_n_frames (la), >, 1);
        for (guint i = 0; i < flame_layout_get_n_frames (la); i++)
          {
            const FlameLayoutFrame *a = flame_layout_get_frame (la, i);
            const FlameLayoutFrame *b = flame_layout_get_frame (lb, i);

            g_assert_cmpuint (a->node, ==, b->node);
            g_assert_cmpfloat (a->x, ==, b->x);
            g_assert_cmpfloat (a->width, ==, b->width);
            g_assert_cmpint (a->klass, ==, b->klass);
          }
      }
}

static void
test_layout_elided (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source = flame_layout_source_new_for_diff (diff, FLAME_VIEW_ELIDED);
  g_autoptr(FlameLayout) layout = NULL;
  FlameLayoutOptions opts;
  const char *expected[] = { "all",       "imgconv", "main", "save_image", "legacy_color_convert",
                             "rgb_to_ycc" };

  flame_layout_options_init (&opts);
  opts.width = 800;
  layout = flame_layout_new (source, &opts);
  check_structure (layout);

  /* only the elided path and its ancestors, every frame in the elided
   * class; legacy_color_convert is the only removed path: full width,
   * 9 ms of its 73 ms are self time */
  g_assert_cmpuint (flame_layout_get_n_frames (layout), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      g_assert_cmpstr (flame_layout_get_label (layout, i), ==, expected[i]);
      g_assert_cmpuint (f->depth, ==, i);
      g_assert_cmpint (f->klass, ==, FLAME_CHANGE_ELIDED);
      g_assert_cmpfloat_with_epsilon (f->width, i < 5 ? 800 : 64 / 73.0 * 800, 1e-9);
    }
  g_assert_cmpfloat_with_epsilon (flame_layout_source_get_weight (source, FLAME_TREE_ROOT),
                                  73 * flame_diff_get_scale (diff), 1e-9);
}

/* A profile of @n_a × @n_b leaves "all;aA;bB", each weighing f(A, B)
 * samples (0: no stack) */
static FlameProfile *
grid_profile (guint n_a,
              guint n_b,
              guint k)
{
  FlameProfile *profile = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  guint32 ids[3];

  flame_profile_set_interval_ms (profile, 1.0);
  ids[0] = flame_profile_intern_frame (profile, "all", 3, NULL, 0, 0, 0);
  for (guint a = 0; a < n_a; a++)
    {
      g_autofree char *fa = g_strdup_printf ("a%u", a);

      ids[1] = flame_profile_intern_frame (profile, fa, strlen (fa), NULL, 0, 0, 0);
      for (guint b = 0; b < n_b; b++)
        {
          g_autofree char *fb = g_strdup_printf ("b%u", b);
          guint w = (a * 7 + b * k) % 23;

          ids[2] = flame_profile_intern_frame (profile, fb, strlen (fb), NULL, 0, 0, 0);
          if (w > 0)
            flame_profile_add_stack (profile, 0, ids, 3, w);
        }
    }
  flame_profile_finish (profile);
  return profile;
}

/* A view of more nodes than one thread prepares (flame_parallel_for()):
 * every node's width and class as the diff gives them, in every view,
 * and a layout of it well formed. */
static void
test_layout_large_parallel (void)
{
  g_autoptr(FlameProfile) base = grid_profile (600, 500, 13);
  g_autoptr(FlameProfile) cur = grid_profile (600, 500, 3);
  g_autoptr(FlameDiff) diff = flame_diff_new (base, cur, NULL, NULL, NULL);
  const FlameView views[] = { FLAME_VIEW_DIFFERENTIAL, FLAME_VIEW_INVERTED, FLAME_VIEW_ELIDED };

  g_assert_nonnull (diff);
  g_assert_cmpuint (flame_diff_get_tree (diff)->n_nodes, >, 280000);
  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      g_autoptr(FlameLayoutSource) source = flame_layout_source_new_for_diff (diff, views[v]);
      g_autoptr(FlameLayout) layout = NULL;
      const FlameTree *tree = flame_layout_source_get_tree (source);
      FlameMetric metric = views[v] == FLAME_VIEW_INVERTED ? FLAME_METRIC_TOTAL
                                                           : flame_diff_get_options (diff)->metric;
      FlameLayoutOptions opts;
      guint n_checked = 0;

      for (guint32 n = 1; n < tree->n_nodes; n++)
        {
          gdouble w = views[v] == FLAME_VIEW_ELIDED ? flame_diff_get_elided_weight (diff, n)
                                                    : tree->total[FLAME_DIFF_CURRENT][n];
          FlameChange expected = views[v] == FLAME_VIEW_ELIDED ? FLAME_CHANGE_ELIDED
                                 : w > 0 ? flame_diff_classify (diff, (FlameTree *) tree, n, metric)
                                 : FLAME_CHANGE_NEUTRAL;

          if (flame_layout_source_get_weight (source, n) != w ||
              (w > 0 && flame_layout_source_get_class (source, n) != expected))
            g_error ("view %u, node %u: width %g (expected %g), class %d (expected %d)", v, n,
                     flame_layout_source_get_weight (source, n), w,
                     flame_layout_source_get_class (source, n), expected);
          n_checked += w > 0;
        }
      g_assert_cmpuint (n_checked, >, 1000);

      flame_layout_options_init (&opts);
      opts.width = 100000;
      layout = flame_layout_new (source, &opts);
      check_structure (layout);
    }
}

static void
test_layout_inverted (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_INVERTED);
  g_autoptr(FlameLayout) layout = NULL;
  FlameLayoutOptions opts;
  const FlameTree *tree = flame_layout_source_get_tree (source);
  guint32 conv, blur;
  guint first, n;

  flame_layout_options_init (&opts);
  opts.width = 1054;
  layout = flame_layout_new (source, &opts);
  check_structure (layout);

  /* the roots are the functions with self time; 1 px per ms here */
  conv = flame_test_find (source, "convolve_row");
  g_assert_cmpuint (tree->nodes[conv].depth, ==, 1);
  g_assert_cmpfloat_with_epsilon (frame_of (layout, conv)->width, 275, 1e-9);
  g_assert_cmpint (frame_of (layout, conv)->klass, ==, FLAME_CHANGE_REGRESSION_MEDIUM);
  blur = flame_test_find (source, "convolve_row;blur");
  g_assert_cmpfloat_with_epsilon (frame_of (layout, blur)->width, 275, 1e-9);
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "rgb_to_ycc_avx2"))->klass, ==,
                   FLAME_CHANGE_NEW);
  g_assert_cmpint (frame_of (layout, flame_test_find (source, "bilinear_sample"))->klass, ==,
                   FLAME_CHANGE_IMPROVEMENT_MEDIUM);

  flame_layout_get_row (layout, 1, &first, &n);
  g_assert_cmpuint (n, ==, 13); /* 13 functions with current self time */
  g_assert_cmpuint (flame_layout_source_find (source, "rgb_to_ycc"), ==, FLAME_TREE_NONE);
}

static void
test_layout_single (void)
{
  g_autoptr(FlameProfile) profile = flame_test_load_example ("current.folded");
  g_autoptr(FlameLayoutSource) source = flame_layout_source_new_for_profile (profile, 0, 1.0);
  g_autoptr(FlameLayout) layout = NULL;
  FlameLayoutOptions opts;

  flame_layout_options_init (&opts);
  opts.width = 1054;
  layout = flame_layout_new (source, &opts);
  check_structure (layout);
  g_assert_cmpint (flame_layout_source_get_view (source), ==, FLAME_VIEW_SINGLE);
  g_assert_null (flame_layout_source_get_diff (source));
  g_assert_cmpfloat_with_epsilon (frame_of (layout, flame_test_find (source, "convolve_row"))
                                    ->width,
                                  275, 1e-9);
  g_assert_cmpfloat_with_epsilon (frame_of (layout, flame_test_find (source, "bilinear_sample"))
                                    ->width,
                                  121, 1e-9);
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    g_assert_cmpint (flame_layout_get_frame (layout, i)->klass, ==, FLAME_CHANGE_NEUTRAL);
}

static void
test_layout_zoom (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlameLayout) layout = NULL;
  FlameLayoutOptions opts;
  guint32 blur = flame_test_find (source, "imgconv;main;process;blur");
  const char *ancestors[] = { "all", "imgconv", "main", "process" };

  g_assert_cmpuint (flame_test_find (source, "blur"), ==, blur);
  flame_layout_options_init (&opts);
  opts.width = 426;
  opts.zoom = blur;
  layout = flame_layout_new (source, &opts);
  check_structure (layout);

  for (guint i = 0; i < G_N_ELEMENTS (ancestors); i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      g_assert_cmpstr (flame_layout_get_label (layout, i), ==, ancestors[i]);
      g_assert_true (f->flags & FLAME_LAYOUT_FRAME_ANCESTOR);
      g_assert_cmpfloat (f->width, ==, 426);
    }
  g_assert_cmpstr (flame_layout_get_label (layout, 4), ==, "blur");
  g_assert_true (flame_layout_get_frame (layout, 4)->flags & FLAME_LAYOUT_FRAME_ZOOM_ROOT);
  /* blur = 275 + 151 ms: 1 px per ms */
  g_assert_cmpfloat_with_epsilon (frame_of (layout, flame_test_find (source, "convolve_row"))
                                    ->width,
                                  275, 1e-9);
  g_assert_cmpfloat_with_epsilon (frame_of (layout, flame_test_find (source, "convolve_col"))
                                    ->width,
                                  151, 1e-9);
  g_assert_cmpfloat_with_epsilon (frame_of (layout, flame_test_find (source, "convolve_col"))->x,
                                  0, 1e-9);
  /* nothing outside the zoomed subtree */
  g_assert_cmpuint (flame_layout_get_n_frames (layout), ==, 7);
  g_assert_cmpint (flame_layout_find_node (layout, flame_test_find (source, "inflate")), ==, -1);

  /* a node not in the view falls back to the root */
  {
    g_autoptr(FlameLayout) l2 = NULL;

    opts.zoom = 123456789;
    l2 = flame_layout_new (source, &opts);
    g_assert_cmpuint (flame_layout_get_options (l2)->zoom, ==, FLAME_TREE_ROOT);
  }
}

static void
test_layout_orientation (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  FlameLayoutOptions opts;

  flame_layout_options_init (&opts);
  opts.row_height = 20;
  opts.min_height = 300;
  for (guint o = 0; o < 2; o++)
    {
      g_autoptr(FlameLayout) layout = NULL;

      opts.orientation = o;
      layout = flame_layout_new (source, &opts);
      g_assert_cmpfloat (flame_layout_get_height (layout), ==, 300);
      for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
        {
          const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

          if (o == FLAME_ORIENTATION_FLAME)
            g_assert_cmpfloat (f->y, ==, 300 - 20.0 * (f->depth + 1));
          else
            g_assert_cmpfloat (f->y, ==, 20.0 * f->depth);
        }
    }
  opts.min_height = 0;
  {
    g_autoptr(FlameLayout) layout = flame_layout_new (source, &opts);
    g_assert_cmpfloat (flame_layout_get_height (layout), ==, 7 * 20);
  }
}

static void
check_hits (FlameLayout *layout)
{
  const FlameLayoutOptions *opts = flame_layout_get_options (layout);

  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      g_assert_cmpint (flame_layout_hit_test (layout, f->x + f->width / 2,
                                              f->y + opts->row_height / 2),
                       ==, i);
      g_assert_cmpint (flame_layout_hit_test (layout, f->x, f->y), ==, i);
    }
  g_assert_cmpint (flame_layout_hit_test (layout, -1, 5), ==, -1);
  g_assert_cmpint (flame_layout_hit_test (layout, 5, -1), ==, -1);
  g_assert_cmpint (flame_layout_hit_test (layout, opts->width, 5), ==, -1);
  g_assert_cmpint (flame_layout_hit_test (layout, 5, flame_layout_get_height (layout)), ==, -1);
}

static void
test_layout_hit_test (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  FlameLayoutOptions opts;

  flame_layout_options_init (&opts);
  opts.width = 997;
  opts.min_height = 400;
  for (guint o = 0; o < 2; o++)
    {
      g_autoptr(FlameLayout) layout = NULL;
      const FlameLayoutFrame *f;

      opts.orientation = o;
      layout = flame_layout_new (source, &opts);
      check_hits (layout);
      /* above the deepest frame, in an empty part of a row */
      f = frame_of (layout, flame_test_find (source, "clamp_coord"));
      if (o == FLAME_ORIENTATION_FLAME)
        g_assert_cmpint (flame_layout_hit_test (layout, f->x + 1, f->y - 5), ==, -1);
      else
        g_assert_cmpint (flame_layout_hit_test (layout, f->x + 1, f->y + opts.row_height + 5), ==,
                         -1);
    }
}

/* Work per layout follows what is visible: 100 000 siblings of 1 ms
 * next to a 1 000 000 ms sibling are merged into one frame, and a chain
 * 10 000 frames deep lays out without recursion. */
static void
test_layout_culling (void)
{
  g_autoptr(GPtrArray) stacks = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  g_autoptr(FlameLayout) layout = NULL;
  FlameLayoutOptions opts;
  const FlameLayoutFrame *merged = NULL;
  GString *deep = g_string_new ("root;deep");

  g_ptr_array_add (stacks, g_strdup ("root;hot 1000000"));
  for (guint i = 0; i < 100000; i++)
    g_ptr_array_add (stacks, g_strdup_printf ("root;wide;f%u 1", i));
  for (guint i = 0; i < 10000; i++)
    g_string_append_printf (deep, ";d%u", i);
  g_string_append (deep, " 200000");
  g_ptr_array_add (stacks, g_string_free (deep, FALSE));
  g_ptr_array_add (stacks, NULL);
  profile = profile_from_stacks ((const char *const *) stacks->pdata);
  source = flame_layout_source_new_for_profile (profile, 0, 1.0);

  flame_layout_options_init (&opts);
  opts.width = 1300;
  layout = flame_layout_new (source, &opts);
  check_structure (layout);

  /* all, root, deep (+10000), hot, wide, merged */
  g_assert_cmpuint (flame_layout_get_n_frames (layout), ==, 2 + 10001 + 2 + 1);
  g_assert_cmpuint (flame_layout_get_n_rows (layout), ==, 10003);
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    if (flame_layout_get_frame (layout, i)->flags & FLAME_LAYOUT_FRAME_MERGED)
      merged = flame_layout_get_frame (layout, i);
  g_assert_nonnull (merged);
  g_assert_cmpuint (merged->n_merged, ==, 100000);
  g_assert_cmpfloat_with_epsilon (merged->width, 100000 / 1300000.0 * 1300, 1e-6);
  g_assert_cmpuint (merged->node, ==, flame_test_find (source, "wide"));
  g_assert_null (flame_layout_get_label (layout, merged - flame_layout_get_frame (layout, 0)));
  check_hits (layout);

  /* zoomed in far enough, the small siblings appear */
  opts.zoom = flame_test_find (source, "wide");
  opts.width = 200000;
  {
    g_autoptr(FlameLayout) l2 = flame_layout_new (source, &opts);
    g_assert_cmpuint (flame_layout_get_n_frames (l2), ==, 3 + 100000);
  }
  /* narrower than min_width even merged: skipped */
  opts.zoom = FLAME_TREE_ROOT;
  opts.width = 5;
  {
    g_autoptr(FlameLayout) l3 = flame_layout_new (source, &opts);
    for (guint i = 0; i < flame_layout_get_n_frames (l3); i++)
      g_assert_false (flame_layout_get_frame (l3, i)->flags & FLAME_LAYOUT_FRAME_MERGED);
  }
}

static void
test_layout_search (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlameLayout) layout = flame_layout_new (source, NULL);

  g_assert_cmpuint (flame_layout_search (layout, "CONVOLVE"), ==, 2);
  g_assert_true (frame_of (layout, flame_test_find (source, "convolve_col"))->flags
                 & FLAME_LAYOUT_FRAME_MATCH);
  g_assert_false (frame_of (layout, flame_test_find (source, "blur"))->flags
                  & FLAME_LAYOUT_FRAME_MATCH);
  g_assert_cmpuint (flame_layout_search (layout, "png"), ==, 3);
  g_assert_cmpuint (flame_layout_search (layout, NULL), ==, 0);
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    g_assert_false (flame_layout_get_frame (layout, i)->flags & FLAME_LAYOUT_FRAME_MATCH);
}

static gboolean
match_prefix (FlameLayoutSource *source,
              guint32            node,
              gpointer           user_data)
{
  g_assert_cmpuint (node, !=, FLAME_TREE_ROOT);
  return g_str_has_prefix (flame_layout_source_get_name (source, node), user_data);
}

/* The same flags, with the match decided by the caller (the app's regex
 * search); NULL clears. */
static void
test_layout_search_func (void)
{
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) source =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlameLayout) layout = flame_layout_new (source, NULL);

  g_assert_cmpuint (flame_layout_search_func (layout, match_prefix, (gpointer) "convolve"), ==, 2);
  g_assert_true (frame_of (layout, flame_test_find (source, "convolve_col"))->flags
                 & FLAME_LAYOUT_FRAME_MATCH);
  g_assert_cmpuint (flame_layout_search_func (layout, NULL, NULL), ==, 0);
  for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
    g_assert_false (flame_layout_get_frame (layout, i)->flags & FLAME_LAYOUT_FRAME_MATCH);
}

static void
test_palette_exact (void)
{
  static const struct { FlameChange klass; const char *light, *dark; } anchors[] = {
    { FLAME_CHANGE_REGRESSION_DEEP, "#d32f2f", "#ef5350" },
    { FLAME_CHANGE_REGRESSION_MEDIUM, "#e57373", "#e57373" },
    { FLAME_CHANGE_REGRESSION_LIGHT, "#ef9a9a", "#ef9a9a" },
    { FLAME_CHANGE_REGRESSION_VERY_LIGHT, "#ffcdd2", "#ffcdd2" },
    { FLAME_CHANGE_IMPROVEMENT_DEEP, "#1976d2", "#42a5f5" },
    { FLAME_CHANGE_IMPROVEMENT_MEDIUM, "#42a5f5", "#64b5f6" },
    { FLAME_CHANGE_IMPROVEMENT_LIGHT, "#64b5f6", "#90caf9" },
    { FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT, "#90caf9", "#bbdefb" },
    { FLAME_CHANGE_NEUTRAL, "#bdbdbd", "#757575" },
    { FLAME_CHANGE_NEW, "#9575cd", "#b39ddb" },
    { FLAME_CHANGE_ELIDED, "#b39ddb", "#ce93d8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (anchors); i++)
    {
      char hex[8];

      flame_rgb_to_hex (flame_palette_get_fill (flame_palette_for (FALSE, FALSE), anchors[i].klass),
                        hex);
      g_assert_cmpstr (hex, ==, anchors[i].light);
      flame_rgb_to_hex (flame_palette_get_fill (flame_palette_for (TRUE, FALSE), anchors[i].klass),
                        hex);
      g_assert_cmpstr (hex, ==, anchors[i].dark);
    }
}

/* The text colour reads on every fill of every palette (WCAG AA 4.5:1),
 * including the plain palette's name-hashed warm colours. */
static void
test_palette_contrast (void)
{
  for (guint p = 0; p < FLAME_N_PALETTES; p++)
    {
      const FlamePalette *palette = flame_palette_get (p);

      for (guint k = 0; k < FLAME_N_CHANGES; k++)
        {
          FlameRgb fill = flame_palette_get_fill (palette, k);

          g_assert_cmpfloat (flame_rgb_contrast (fill, flame_palette_text_for (fill)), >=, 4.5);
        }
      g_assert_cmpfloat (flame_rgb_contrast (palette->merged,
                                             flame_palette_text_for (palette->merged)),
                         >=, 4.5);
      g_assert_cmpfloat (flame_rgb_contrast (palette->background, palette->foreground), >=, 7);
      for (guint i = 0; i < 2000; i++)
        {
          g_autofree char *name = g_strdup_printf ("function_%u", i);
          FlameRgb fill = flame_palette_plain_fill (palette, name);

          g_assert_cmpfloat (flame_rgb_contrast (fill, flame_palette_text_for (fill)), >=, 4.5);
        }
    }
  /* black on white is the maximum */
  g_assert_cmpfloat_with_epsilon (flame_rgb_contrast (FLAME_RGB (0), FLAME_RGB (0xffffff)), 21,
                                  1e-9);
  /* the high-contrast palettes keep the levels apart: >= 1.3:1 between
   * neighbouring levels of one family */
  for (guint p = FLAME_PALETTE_HIGH_CONTRAST_LIGHT; p <= FLAME_PALETTE_HIGH_CONTRAST_DARK; p++)
    {
      const FlamePalette *palette = flame_palette_get (p);

      g_assert_true (palette->borders);
      for (guint k = FLAME_CHANGE_REGRESSION_DEEP; k < FLAME_CHANGE_REGRESSION_VERY_LIGHT; k++)
        g_assert_cmpfloat (flame_rgb_contrast (palette->fill[k], palette->fill[k + 1]), >=, 1.3);
      for (guint k = FLAME_CHANGE_IMPROVEMENT_DEEP; k < FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT; k++)
        g_assert_cmpfloat (flame_rgb_contrast (palette->fill[k], palette->fill[k + 1]), >=, 1.3);
    }
}

static void
test_palette_plain (void)
{
  const FlamePalette *light = flame_palette_for (FALSE, FALSE);
  FlameRgb a = flame_palette_plain_fill (light, "convolve_row");
  FlameRgb b = flame_palette_plain_fill (light, "convolve_row");
  guint distinct = 0;
  FlameRgb prev = { 0, 0, 0 };

  g_assert_true (memcmp (&a, &b, sizeof a) == 0);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);
      FlameRgb c = flame_palette_plain_fill (light, name);

      /* warm: the classic "hot" ranges */
      g_assert_cmpuint (c.r, >=, 205);
      g_assert_cmpuint (c.g, <=, 230);
      g_assert_cmpuint (c.b, <=, 55);
      if (memcmp (&c, &prev, sizeof c) != 0)
        distinct++;
      prev = c;
    }
  g_assert_cmpuint (distinct, >, 190);
}

static void
test_palette_legend (void)
{
  guint n;
  const FlameChange *classes = flame_legend_classes (&n);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  /* every class, once */
  g_assert_cmpuint (n, ==, FLAME_N_CHANGES);
  for (guint i = 0; i < n; i++)
    {
      const char *label = flame_change_legend_label (classes[i]);

      g_assert_cmpuint (strlen (label), >, 5);
      g_assert_false (g_hash_table_contains (seen, label));
      g_hash_table_add (seen, (gpointer) label);
    }
  g_assert_cmpstr (flame_change_legend_label (FLAME_CHANGE_REGRESSION_DEEP), ==,
                   "Deep Regression ≥100%");
  g_assert_cmpstr (flame_change_legend_label (FLAME_CHANGE_NEUTRAL), ==, "Neutral -15% to 15%");
  g_assert_cmpstr (flame_change_legend_label (FLAME_CHANGE_NEW), ==,
                   "New — No counterpart in baseline");
  g_assert_cmpstr (flame_change_legend_label (FLAME_CHANGE_ELIDED), ==,
                   "Removed — No counterpart in current");
}

static void
test_tooltip_format (void)
{
  static const struct { gdouble v; guint digits; const char *expected; } cases[] = {
    { 1.234, 2, "1.23" },
    { 0.125, 2, "0.13" },    /* an exact tie rounds up, as toFixed does */
    { -0.125, 2, "-0.13" },
    { 1.005, 2, "1.00" },    /* 1.005 is 1.00499999… in binary */
    { 2.5, 0, "3" },
    { 0.0, 2, "0.00" },
    { -0.0, 2, "0.00" },
    { -0.001, 2, "-0.00" },
    { 9.995, 2, "9.99" },
    { 99.95, 1, "100.0" },   /* 99.9500000000000028… */
    { 999.996, 2, "1000.00" },
    { 50, 1, "50.0" },
    { 275, 2, "275.00" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *s = flame_format_fixed (cases[i].v, cases[i].digits);
      g_assert_cmpstr (s, ==, flame_test_decimal (cases[i].expected));
    }

  /* cpython-diff.md §4 sign rules: "+" on both numbers iff diff >= 0 */
  {
    g_autofree char *a = flame_format_difference (1.23, 50);
    g_autofree char *b = flame_format_difference (0, 0);
    g_autofree char *c = flame_format_difference (-0.0, -0.0);
    g_autofree char *d = flame_format_difference (-0.001, -0.1);
    g_autofree char *e = flame_format_difference (-2.5, -100);
    g_autofree char *f = flame_format_difference (0, 50); /* T3's hot_leaf */

    g_assert_cmpstr (a, ==, flame_test_decimal ("+1.23 ms (+50.0%)"));
    g_assert_cmpstr (b, ==, flame_test_decimal ("+0.00 ms (+0.0%)"));
    g_assert_cmpstr (c, ==, flame_test_decimal ("+0.00 ms (+0.0%)"));
    g_assert_cmpstr (d, ==, flame_test_decimal ("-0.00 ms (-0.1%)"));
    g_assert_cmpstr (e, ==, flame_test_decimal ("-2.50 ms (-100.0%)"));
    g_assert_cmpstr (f, ==, flame_test_decimal ("+0.00 ms (+50.0%)"));
  }
}

static void
test_tooltip_text (void)
{
  /* the numbers of the merged PR's scaling, whose factor shows */
  g_autoptr(FlameDiff) diff = example_diff_full (FLAME_NORMALIZE_TOTAL);
  g_autoptr(FlameDiff) absolute = example_diff ();
  g_autoptr(FlameLayoutSource) abs_src =
    flame_layout_source_new_for_diff (absolute, FLAME_VIEW_DIFFERENTIAL);
  g_autofree char *abs_conv = flame_tooltip_text (abs_src,
                                                  flame_test_find (abs_src, "convolve_row"),
                                                  FLAME_TREE_ROOT);
  g_autofree char *abs_norm = flame_normalization_text (absolute);
  g_autoptr(FlameLayoutSource) src =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_autoptr(FlameLayoutSource) elided = flame_layout_source_new_for_diff (diff, FLAME_VIEW_ELIDED);
  g_autoptr(FlameLayoutSource) inv = flame_layout_source_new_for_diff (diff, FLAME_VIEW_INVERTED);
  g_autoptr(FlameProfile) profile = flame_test_load_example ("current.folded");
  g_autoptr(FlameLayoutSource) single = flame_layout_source_new_for_profile (profile, 0, 1.0);
  g_autofree char *conv = flame_tooltip_text (src, flame_test_find (src, "convolve_row"),
                                              FLAME_TREE_ROOT);
  g_autofree char *conv_zoom = flame_tooltip_text (src, flame_test_find (src, "convolve_row"),
                                                   flame_test_find (src, "blur"));
  g_autofree char *simd = flame_tooltip_text (src, flame_test_find (src, "simd_color_convert"),
                                              FLAME_TREE_ROOT);
  g_autofree char *avx = flame_tooltip_text (src, flame_test_find (src, "rgb_to_ycc_avx2"),
                                             FLAME_TREE_ROOT);
  g_autofree char *legacy = flame_tooltip_text (elided,
                                                flame_test_find (elided, "legacy_color_convert"),
                                                FLAME_TREE_ROOT);
  g_autofree char *save = flame_tooltip_text (elided, flame_test_find (elided, "save_image"),
                                              FLAME_TREE_ROOT);
  g_autofree char *inv_blur = flame_tooltip_text (inv, flame_test_find (inv, "convolve_row;blur"),
                                                  FLAME_TREE_ROOT);
  g_autofree char *one = flame_tooltip_text (single, flame_test_find (single, "bilinear_sample"),
                                             FLAME_TREE_ROOT);
  g_autofree char *root = flame_tooltip_text (src, FLAME_TREE_ROOT, FLAME_TREE_ROOT);
  g_autofree char *norm = flame_normalization_text (diff);

  /* scale 1054/1055: baseline 148 ms → 147.86 ms */
  g_assert_cmpstr (conv, ==,
                   flame_test_decimal ("convolve_row\n"
                   "Current: 275.00 ms total (26.09%), 275.00 ms self\n"
                   "Baseline: 147.86 ms total, 147.86 ms self\n"
                   "Self difference: +127.14 ms (+86.0%)"));
  g_assert_cmpstr (conv_zoom, ==,
                   flame_test_decimal ("convolve_row\n"
                   "Current: 275.00 ms total (26.09%), 64.55% of blur, 275.00 ms self\n"
                   "Baseline: 147.86 ms total, 147.86 ms self\n"
                   "Self difference: +127.14 ms (+86.0%)"));
  g_assert_cmpstr (simd, ==,
                   flame_test_decimal ("simd_color_convert\n"
                   "Current: 44.00 ms total (4.17%), 0.00 ms self\n"
                   "Baseline: 0.00 ms total, 0.00 ms self\n"
                   "Self difference: +0.00 ms (+0.0%)\n"
                   "New — no counterpart in baseline"));
  g_assert_cmpstr (avx, ==,
                   flame_test_decimal ("rgb_to_ycc_avx2\n"
                   "Current: 44.00 ms total (4.17%), 44.00 ms self\n"
                   "Baseline: 0.00 ms total, 0.00 ms self\n"
                   "Self difference: +44.00 ms (+100.0%)\n"
                   "New — no counterpart in baseline"));
  /* 9 ms self, 73 ms total, scaled */
  g_assert_cmpstr (legacy, ==,
                   flame_test_decimal ("legacy_color_convert\n"
                   "Current: 0.00 ms total (0.00%), 0.00 ms self\n"
                   "Baseline: 72.93 ms total, 8.99 ms self\n"
                   "Self difference: -8.99 ms (-100.0%)\n"
                   "Removed — no counterpart in current"));
  g_assert_cmpstr (save, ==,
                   flame_test_decimal ("save_image\n"
                   "Removed code below: 72.93 ms of baseline time (100.00%)\n"
                   "This frame still runs in the current profile"));
  g_assert_cmpstr (inv_blur, ==,
                   flame_test_decimal ("blur\n"
                   "Self time of convolve_row through this call path:\n"
                   "Current: 275.00 ms (26.09%)\n"
                   "Baseline: 147.86 ms\n"
                   "Difference: +127.14 ms (+86.0%)"));
  g_assert_cmpstr (one, ==,
                   flame_test_decimal ("bilinear_sample\n"
                   "Total: 121.00 ms (11.48%)\n"
                   "Self: 97.00 ms"));
  g_assert_cmpstr (root, ==,
                   flame_test_decimal ("all\n"
                   "Current: 1054.00 ms total (100.00%)\n"
                   "Baseline: 1054.00 ms total"));
  g_assert_cmpstr (norm, ==,
                   flame_test_decimal (
                     "Baseline scaled ×1.00 to the current run (1.00 ms per sample assumed)"));

  /* absolute time, the default: 148 ms as measured */
  g_assert_cmpstr (abs_conv, ==,
                   flame_test_decimal ("convolve_row\n"
                                       "Current: 275.00 ms total (26.09%), 275.00 ms self\n"
                                       "Baseline: 148.00 ms total, 148.00 ms self\n"
                                       "Self difference: +127.00 ms (+85.8%)"));
  g_assert_cmpstr (abs_norm, ==,
                   flame_test_decimal (
                     "Absolute time: the baseline is not scaled (1.00 ms per sample assumed)"));
}

/* Coloured by total time, the tooltip gives the total difference the
 * colour stands for, not only a caller's (mostly zero) self difference. */
static void
test_tooltip_total (void)
{
  g_autoptr(FlameProfile) b = flame_test_load_example ("baseline.folded");
  g_autoptr(FlameProfile) c = flame_test_load_example ("current.folded");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) src = NULL;
  g_autofree char *simd = NULL;
  g_autofree char *blur = NULL;
  g_autofree char *root = NULL;
  FlameDiffOptions options;

  flame_diff_options_init (&options);
  options.metric = FLAME_METRIC_TOTAL;
  diff = flame_diff_new (b, c, &options, NULL, &error);
  g_assert_no_error (error);
  src = flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  simd = flame_tooltip_text (src, flame_test_find (src, "simd_color_convert"), FLAME_TREE_ROOT);
  blur = flame_tooltip_text (src, flame_test_find (src, "blur"), FLAME_TREE_ROOT);
  root = flame_tooltip_text (src, FLAME_TREE_ROOT, FLAME_TREE_ROOT);

  g_assert_cmpstr (simd, ==,
                   flame_test_decimal ("simd_color_convert\n"
                   "Current: 44.00 ms total (4.17%), 0.00 ms self\n"
                   "Baseline: 0.00 ms total, 0.00 ms self\n"
                   "Total difference: +44.00 ms (+100.0%)\n"
                   "Self difference: +0.00 ms (+0.0%)\n"
                   "New — no counterpart in baseline"));
  g_assert_nonnull (strstr (blur, "\nTotal difference: +"));
  g_assert_nonnull (strstr (blur, "\nSelf difference: "));
  g_assert_cmpstr (root, ==,
                   flame_test_decimal ("all\n"
                   "Current: 1054.00 ms total (100.00%)\n"
                   "Baseline: 1055.00 ms total\n"
                   "Total difference: -1.00 ms (-0.1%)"));
}

/* Only the baseline lacks an interval: the note gives the interval assumed
 * for it, not the current run's own 10 ms */
static void
test_tooltip_assumed_interval (void)
{
  g_autoptr(FlameProfile) b = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  g_autoptr(FlameProfile) c = flame_profile_new (FLAME_FORMAT_PERF_SCRIPT, 1);
  g_autoptr(FlameDiff) diff = NULL;
  g_autofree char *norm = NULL;
  FlameDiffOptions opts;
  guint32 fb, fc;

  flame_profile_set_interval_ms (c, 10.0);
  fb = flame_profile_intern_frame (b, "work", 4, NULL, 0, 0, 0);
  fc = flame_profile_intern_frame (c, "work", 4, NULL, 0, 0, 0);
  flame_profile_add_stack (b, 0, &fb, 1, 2);
  flame_profile_add_samples (b, 0, 2);
  flame_profile_add_stack (c, 0, &fc, 1, 3);
  flame_profile_add_samples (c, 0, 3);
  flame_profile_finish (b);
  flame_profile_finish (c);
  flame_diff_options_init (&opts);
  diff = flame_diff_new (b, c, &opts, NULL, NULL);
  g_assert_nonnull (diff);
  g_assert_true (flame_diff_get_interval_assumed (diff, FLAME_DIFF_BASELINE));
  g_assert_false (flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT));
  norm = flame_normalization_text (diff);
  g_assert_true (g_str_has_suffix (norm, flame_test_decimal (" (1.00 ms per sample assumed)")));
}

static void
test_tooltip_file_line (void)
{
  g_autoptr(FlameProfile) b = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  g_autoptr(FlameProfile) c = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) src = NULL;
  g_autofree char *tip = NULL;
  FlameDiffOptions opts;
  guint32 fb[2], fc[2];

  flame_profile_set_interval_ms (b, 1.0);
  flame_profile_set_interval_ms (c, 1.0);
  fb[0] = flame_profile_intern_frame (b, "main", 4, "app.py", 6, 1, 0);
  fb[1] = flame_profile_intern_frame (b, "work", 4, "app.py", 6, 10, 0);
  fc[0] = flame_profile_intern_frame (c, "main", 4, "app.py", 6, 1, 0);
  fc[1] = flame_profile_intern_frame (c, "work", 4, "app.py", 6, 12, 0);
  flame_profile_add_stack (b, 0, fb, 2, 2);
  flame_profile_add_stack (c, 0, fc, 2, 3);
  flame_profile_finish (b);
  flame_profile_finish (c);
  flame_diff_options_init (&opts);
  opts.normalize = FLAME_NORMALIZE_ABSOLUTE;
  diff = flame_diff_new (b, c, &opts, NULL, NULL);
  g_assert_nonnull (diff);
  src = flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  tip = flame_tooltip_text (src, flame_test_find (src, "work"), FLAME_TREE_ROOT);
  /* the diff matches name + file (the line moved from 10 to 12), so its
   * frames carry no line */
  g_assert_true (
    g_str_has_prefix (tip, flame_test_decimal ("work\napp.py\nCurrent: 3.00 ms total (100.00%)")));
  g_assert_nonnull (strstr (tip, flame_test_decimal ("Self difference: +1.00 ms (+50.0%)")));

  /* a single profile knows the line */
  {
    g_autoptr(FlameLayoutSource) one = flame_layout_source_new_for_profile (c, 0, 1.0);
    g_autofree char *t = flame_tooltip_text (one, flame_test_find (one, "work"), FLAME_TREE_ROOT);

    g_assert_cmpstr (t, ==,
                     flame_test_decimal (
                       "work\napp.py:12\nTotal: 3.00 ms (100.00%)\nSelf: 3.00 ms"));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  flame_test_set_locale ();

  g_test_add_func ("/layout/differential", test_layout_differential);
  g_test_add_func ("/layout/reusing", test_layout_reusing);
  g_test_add_func ("/layout/elided", test_layout_elided);
  g_test_add_func ("/layout/inverted", test_layout_inverted);
  g_test_add_func ("/layout/large-parallel", test_layout_large_parallel);
  g_test_add_func ("/layout/single", test_layout_single);
  g_test_add_func ("/layout/zoom", test_layout_zoom);
  g_test_add_func ("/layout/orientation", test_layout_orientation);
  g_test_add_func ("/layout/hit-test", test_layout_hit_test);
  g_test_add_func ("/layout/culling", test_layout_culling);
  g_test_add_func ("/layout/search", test_layout_search);
  g_test_add_func ("/layout/search-func", test_layout_search_func);
  g_test_add_func ("/palette/exact", test_palette_exact);
  g_test_add_func ("/palette/contrast", test_palette_contrast);
  g_test_add_func ("/palette/plain", test_palette_plain);
  g_test_add_func ("/palette/legend", test_palette_legend);
  g_test_add_func ("/tooltip/format", test_tooltip_format);
  g_test_add_func ("/tooltip/text", test_tooltip_text);
  g_test_add_func ("/tooltip/total", test_tooltip_total);
  g_test_add_func ("/tooltip/file-line", test_tooltip_file_line);
  g_test_add_func ("/tooltip/assumed-interval", test_tooltip_assumed_interval);

  return g_test_run ();
}

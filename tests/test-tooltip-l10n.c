/* test-tooltip-l10n.c: the frame tooltip in German (issue #18).
 *
 * Runs under de_DE.UTF-8 with the build tree's catalog
 * ($FLAMEDIFF_LOCALEDIR, tests/meson.build). Every tooltip of every
 * view is made twice, with messages in German and in English: apart from
 * the function's name and its file, no German line may be the English
 * one, and the numbers follow the locale.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "flame-comparison.h"
#include "flame-layout.h"
#include "flame-loader.h"
#include "flame-tooltip.h"
#include "flame-test-layout.h"
#include "flame-test-examples.h"
#include "flame-test-locale.h"
#include "flame-test-runs.h"

typedef struct
{
  FlameLayoutSource *source;
  guint32            node;
  guint32            zoom;
  FlameLayout       *layout;   /* when set: frame @node of it */
} Tip;

static char *
tip_text (const Tip *tip)
{
  if (tip->layout != NULL)
    return flame_tooltip_text_for_frame (tip->layout, tip->node);
  return flame_tooltip_text (tip->source, tip->node, tip->zoom);
}

static FlameDiff *
example_diff (FlameMetric metric)
{
  FlameDiffOptions opts;

  flame_diff_options_init (&opts);
  opts.metric = metric;
  return flame_test_example_diff (&opts);
}

/* Messages in English: the C locale's, whatever the catalog */
static char *
english (const Tip *tip)
{
  g_autofree char *saved = g_strdup (setlocale (LC_MESSAGES, NULL));
  char *text;

  g_assert_nonnull (setlocale (LC_MESSAGES, "C"));
  text = tip_text (tip);
  g_assert_nonnull (setlocale (LC_MESSAGES, saved));
  return text;
}

/* @german and @english line by line: the same number of lines, and every
 * line but the function's name and file:line differs */
static void
assert_no_english_line (const char *german,
                        const char *english_text,
                        const char *name)
{
  g_auto(GStrv) de = g_strsplit (german, "\n", -1);
  g_auto(GStrv) en = g_strsplit (english_text, "\n", -1);

  g_test_message ("%s", german);
  g_assert_cmpuint (g_strv_length (de), ==, g_strv_length (en));
  g_assert_cmpuint (g_strv_length (de), >=, 2);
  for (guint i = 0; en[i] != NULL; i++)
    {
      /* the first line of a frame's tooltip is its function, the second
       * may be its file: names, not words */
      if (name != NULL && (i == 0 || (i == 1 && strstr (en[i], ".c") != NULL)))
        {
          g_assert_cmpstr (de[i], ==, en[i]);
          continue;
        }
      if (g_strcmp0 (de[i], en[i]) == 0)
        g_error ("an English line in the German tooltip: “%s”\n%s", en[i], german);
    }
}

static void
check_tips (const Tip *tips,
            guint      n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *de = tip_text (&tips[i]);
      g_autofree char *en = english (&tips[i]);

      assert_no_english_line (de, en, tips[i].layout == NULL ? "name" : NULL);
    }
}

/* The differential, colour-by-total, elided, inverted and single views,
 * zoomed and not, and a stand-in for frames too narrow to draw */
static void
test_views (void)
{
  g_autoptr(FlameDiff) diff = example_diff (FLAME_METRIC_SELF);
  g_autoptr(FlameDiff) by_total = example_diff (FLAME_METRIC_TOTAL);
  FlameView differential = FLAME_VIEW_DIFFERENTIAL;
  g_autoptr(FlameLayoutSource) src = flame_layout_source_new_for_diff (diff, differential);
  g_autoptr(FlameLayoutSource) tot = flame_layout_source_new_for_diff (by_total, differential);
  g_autoptr(FlameLayoutSource) eli = flame_layout_source_new_for_diff (diff, FLAME_VIEW_ELIDED);
  g_autoptr(FlameLayoutSource) inv = flame_layout_source_new_for_diff (diff, FLAME_VIEW_INVERTED);
  g_autofree char *path = flame_test_example_path ("current.folded");
  g_autoptr(FlameProfile) profile = flame_load_file (path, NULL, NULL, NULL, NULL);
  g_autoptr(FlameLayoutSource) one = flame_layout_source_new_for_profile (profile, 0, 1.0);
  const Tip tips[] = {
    { src, flame_test_find (src, "convolve_row"), FLAME_TREE_ROOT, NULL },
    { src, flame_test_find (src, "convolve_row"), flame_test_find (src, "blur"), NULL },
    { src, flame_test_find (src, "rgb_to_ycc_avx2"), FLAME_TREE_ROOT, NULL },
    { src, FLAME_TREE_ROOT, FLAME_TREE_ROOT, NULL },
    { tot, flame_test_find (tot, "simd_color_convert"), FLAME_TREE_ROOT, NULL },
    { tot, flame_test_find (tot, "blur"), FLAME_TREE_ROOT, NULL },
    { tot, FLAME_TREE_ROOT, FLAME_TREE_ROOT, NULL },
    { eli, flame_test_find (eli, "legacy_color_convert"), FLAME_TREE_ROOT, NULL },
    { eli, flame_test_find (eli, "save_image"), FLAME_TREE_ROOT, NULL },
    { eli, FLAME_TREE_ROOT, FLAME_TREE_ROOT, NULL },
    { inv, flame_test_find (inv, "convolve_row;blur"), FLAME_TREE_ROOT, NULL },
    { inv, flame_test_find (inv, "convolve_row;blur"), flame_test_find (inv,
                            "convolve_row"), NULL },
    { inv, FLAME_TREE_ROOT, FLAME_TREE_ROOT, NULL },
    { one, flame_test_find (one, "bilinear_sample"), FLAME_TREE_ROOT, NULL },
    { one, flame_test_find (one, "bilinear_sample"), flame_test_find (one, "resize"), NULL },
    { one, FLAME_TREE_ROOT, FLAME_TREE_ROOT, NULL },
  };
  g_autofree char *conv = tip_text (&tips[0]);
  g_autofree char *norm = flame_normalization_text (diff);

  check_tips (tips, G_N_ELEMENTS (tips));
  /* the words of the German panel, the locale's decimal comma */
  g_assert_cmpstr (conv, ==, "convolve_row\n"
                   "Aktuell: 275,00 ms gesamt (26,09 %), 275,00 ms eigen\n"
                   "Basis: 148,00 ms gesamt, 148,00 ms eigen\n"
                   "Differenz eigen: +127,00 ms (+85,8 %)");
  g_assert_cmpstr (norm, ==,
                   "Absolute Zeit: Die Basis ist nicht skaliert (1,00 ms je Stichprobe angenommen)");

  /* frames too narrow to draw, merged into one */
  {
    GString *folded = g_string_new ("root;hot 100000\n");
    g_autofree char *file = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) narrow = NULL;
    g_autoptr(FlameLayoutSource) nsrc = NULL;
    g_autoptr(FlameLayout) layout = NULL;
    FlameLayoutOptions opts;
    guint merged = G_MAXUINT;
    int fd;

    for (guint i = 0; i < 1000; i++)
      g_string_append_printf (folded, "root;wide;f%u 1\n", i);
    fd = g_file_open_tmp ("flamediff-l10n-XXXXXX.folded", &file, &error);
    g_assert_no_error (error);
    close (fd);
    g_file_set_contents (file, folded->str, -1, &error);
    g_assert_no_error (error);
    g_string_free (folded, TRUE);
    narrow = flame_load_file (file, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    g_unlink (file);
    nsrc = flame_layout_source_new_for_profile (narrow, 0, 1.0);
    flame_layout_options_init (&opts);
    opts.width = 800;
    layout = flame_layout_new (nsrc, &opts);
    for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
      if (flame_layout_get_frame (layout, i)->flags & FLAME_LAYOUT_FRAME_MERGED)
        merged = i;
    g_assert_cmpuint (merged, !=, G_MAXUINT);
    {
      const Tip tip = { nsrc, merged, FLAME_TREE_ROOT, layout };
      g_autofree char *text = tip_text (&tip);

      check_tips (&tip, 1);
      g_assert_true (g_str_has_prefix (text, "1000 Rahmen zu schmal zum Zeichnen, "
                                             "aufgerufen von wide\n"));
    }
  }
}

/* The normalisation of a memory comparison in German: bytes, not time */
static void
test_memory (void)
{
  g_autofree char *a = g_test_build_filename (G_TEST_DIST, "data", "go", "go-heap.pb.gz", NULL);
  g_autofree char *b = g_test_build_filename (G_TEST_DIST, "data", "go", "go-heap-more.pb.gz",
                                              NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) pa = flame_load_file (a, NULL, NULL, NULL, &error);
  g_autoptr(FlameProfile) pb = flame_load_file (b, NULL, NULL, NULL, &error);
  g_autoptr(FlameDiff) diff = NULL;
  g_autofree char *norm = NULL;
  g_autofree char *label = NULL;

  g_assert_no_error (error);
  diff = flame_diff_new (pa, pb, NULL, NULL, &error);
  g_assert_no_error (error);
  norm = flame_normalization_text (diff);
  label = flame_normalization_label (diff);
  g_assert_cmpstr (norm, ==, "Absolute Bytes: Die Basis ist nicht skaliert");
  g_assert_cmpstr (label, ==, "Absolute Bytes");
}

/* With repeated runs the lines of the spread and the test come after */
static void
test_runs (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (18);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-l10n-XXXXXX", &error);
  g_autoptr(FlameComparison) comparison = NULL;
  g_autoptr(FlameLayoutSource) src = NULL;
  g_autoptr(FlameLayoutSource) inv = NULL;

  g_assert_no_error (error);
  write_data_set (rand, dir, 5, 0.3);
  comparison = flame_test_load_run_folders (dir, 5);
  remove_data_set (dir, 5);
  src = flame_layout_source_new_for_diff (flame_comparison_get_diff (comparison),
                                          FLAME_VIEW_DIFFERENTIAL);
  inv = flame_layout_source_new_for_diff (flame_comparison_get_diff (comparison),
                                          FLAME_VIEW_INVERTED);
  {
    const Tip tips[] = {
      { src, flame_test_find (src, "main;work;fn_07"), FLAME_TREE_ROOT, NULL },
      { src, flame_test_find (src, "main;work;fn_12"), FLAME_TREE_ROOT, NULL },
      { inv, flame_test_find (inv, "fn_23"), FLAME_TREE_ROOT, NULL },
    };
    g_autofree char *up = tip_text (&tips[0]);

    check_tips (tips, G_N_ELEMENTS (tips));
    g_assert_nonnull (strstr (up, "\nAktuell eigen je Lauf: "));
    g_assert_nonnull (strstr (up, " (SD, 5 Läufe)\n"));
    g_assert_nonnull (strstr (up, " (korrigiert über 40 Aufrufpfade): "));
  }
}

int
main (int    argc,
      char **argv)
{
  const char *localedir = g_getenv ("FLAMEDIFF_LOCALEDIR");

  g_test_init (&argc, &argv, NULL);
  flame_test_set_locale ();
  /* a run meant to check German must not pass in English */
  if (strcmp (localeconv ()->decimal_point, ",") != 0 ||
      !g_str_has_prefix (setlocale (LC_MESSAGES, NULL), "de"))
    g_error ("run this under de_DE.UTF-8 (FLAMEDIFF_TEST_LOCALE), not %s",
             setlocale (LC_MESSAGES, NULL));
  if (localedir == NULL)
    g_error ("FLAMEDIFF_LOCALEDIR: the build tree's po directory");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_test_add_func ("/tooltip-l10n/views", test_views);
  g_test_add_func ("/tooltip-l10n/runs", test_runs);
  g_test_add_func ("/tooltip-l10n/memory", test_memory);
  return g_test_run ();
}

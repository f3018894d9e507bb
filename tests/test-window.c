/* test-window.c: the application window, driven the way a user drives it
 * (the window's open functions and its actions), checked on its state and
 * on pixels rendered from it. Writes screenshots of the main window to
 * $FLAMEDIFF_SCREENSHOTS (comparison.png, elided.png, dark.png).
 *
 * Needs a display: tests/meson.build runs it under xvfb-run.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "flame-application.h"
#include "flame-change-row.h"
#include "flame-loader.h"
#include "flame-report.h"
#include "flame-window-private.h"

static FlameApplication *app;
static FlameWindow *window;

static char *
example (const char *name)
{
  return g_build_filename (g_getenv ("FLAMEDIFF_EXAMPLES"), name, NULL);
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
iterate_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* Loading runs in a worker thread: spin the main loop until it is done */
static void
wait_for_window (FlameWindow *self)
{
  gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (flame_window_is_busy (self) && g_get_monotonic_time () < end)
    iterate_for (20);
  g_assert_false (flame_window_is_busy (self));
  /* layout and paint */
  iterate_for (300);
}

static GdkTexture *
render_window (FlameWindow *self)
{
  /* the window's content: a toplevel itself cannot be drawn into a paintable */
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (self));
  GdkPaintable *paintable = gtk_widget_paintable_new (content);
  int width = gtk_widget_get_width (content);
  int height = gtk_widget_get_height (content);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;

  /* the paintable holds what the widget drew in its last frame */
  gtk_widget_queue_draw (content);
  gtk_test_widget_wait_for_draw (content);
  iterate_for (100);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (self)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  gsk_render_node_unref (node);
  g_object_unref (paintable);
  return texture;
}

static void
save_screenshot (GdkTexture *texture,
                 const char *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_SCREENSHOTS");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

/* how many pixels of the texture have exactly this colour */
static guint
count_colour (GdkTexture *texture,
              guint32     rgb)
{
  int w = gdk_texture_get_width (texture);
  int h = gdk_texture_get_height (texture);
  g_autofree guchar *data = g_malloc ((gsize) w * h * 4);
  guint n = 0;

  gdk_texture_download (texture, data, w * 4);
  for (gsize i = 0; i < (gsize) w * h; i++)
    {
      /* CAIRO_FORMAT_ARGB32 in memory: B G R A on little endian */
      guint32 px = (data[i * 4 + 2] << 16) | (data[i * 4 + 1] << 8) | data[i * 4];

      if (px == rgb && data[i * 4 + 3] == 0xff)
        n++;
    }
  return n;
}

static FlameDiff *
reference_diff (FlameReport **report)
{
  g_autofree char *b = example ("baseline.folded");
  g_autofree char *c = example ("current.folded");
  g_autoptr(FlameProfile) pb = flame_load_file (b, NULL, NULL, NULL, NULL);
  g_autoptr(FlameProfile) pc = flame_load_file (c, NULL, NULL, NULL, NULL);
  FlameDiffOptions dopts;
  FlameReportOptions ropts;
  FlameDiff *diff;

  flame_diff_options_init (&dopts);
  flame_report_options_init (&ropts);
  diff = flame_diff_new (pb, pc, &dopts, NULL, NULL);
  g_assert_nonnull (diff);
  if (report != NULL)
    *report = flame_report_new (diff, &ropts);
  return diff;
}

static void
open_example (void)
{
  flame_window_open_example (window);
  wait_for_window (window);
}

static void
test_empty_state (void)
{
  FlameWindow *fresh = flame_window_new (ADW_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (fresh));
  iterate_for (100);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (fresh->main_stack), ==, "empty");
  g_assert_true (flame_window_is_empty (fresh));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (fresh->differential_button)) &&
                  gtk_widget_get_visible (GTK_WIDGET (fresh->elided_button)));
  /* Record and Diff… waits for the recorder */
  g_assert_false (gtk_widget_get_sensitive (fresh->record_button));
  g_assert_nonnull (gtk_widget_get_tooltip_text (fresh->record_button));
  gtk_window_destroy (GTK_WINDOW (fresh));
}

static void
test_compare_example (void)
{
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(FlameDiff) diff = reference_diff (&report);
  g_autofree char *totals = g_strdup_printf ("%.1f ms → %.1f ms",
                                             flame_diff_get_total_ms (diff, 0),
                                             flame_diff_get_total_ms (diff, 1));
  g_autofree char *elided = g_strdup_printf ("Elided (%u)", flame_diff_get_elided_count (diff));
  g_autofree char *scale = g_strdup_printf ("×%.2f", flame_diff_get_scale (diff));
  GListModel *rows;
  guint n_changed = 0;
  g_autoptr(GdkTexture) texture = NULL;

  open_example ();

  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "graph");
  g_assert_cmpstr (gtk_label_get_text (window->files_label), ==, "baseline.folded → current.folded");
  g_assert_cmpstr (gtk_label_get_text (window->totals_label), ==, totals);
  g_assert_nonnull (strstr (gtk_label_get_text (window->scale_label), scale));
  g_assert_nonnull (strstr (gtk_label_get_text (window->scale_label), "1 ms per sample assumed"));
  g_assert_nonnull (strstr (gtk_label_get_text (window->samples_label), "samples"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->delta_label)));

  /* the view switcher offers the elided paths, with their count */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->title_stack), ==, "switcher");
  g_assert_cmpuint (flame_diff_get_elided_count (diff), >, 0);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->elided_button)));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (window->elided_button)), ==, elided);

  /* the side panel lists every changed function with the report's status */
  g_assert_true (adw_flap_get_reveal_flap (window->flap));
  rows = G_LIST_MODEL (window->selection);
  for (guint i = 0; i < flame_report_get_n_functions (report); i++)
    if (flame_report_get_function (report, i)->status != FLAME_STATUS_UNCHANGED)
      n_changed++;
  g_assert_cmpuint (n_changed, >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n_changed);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlameChangeRow) row = g_list_model_get_item (rows, i);
      const FlameFunctionStat *stat = flame_report_find (report, flame_change_row_get_name (row));

      g_assert_nonnull (stat);
      g_assert_cmpint (flame_change_row_get_status (row), ==, stat->status);
    }
  /* sorted by Δ ms, largest regression first */
  {
    g_autoptr(FlameChangeRow) first = g_list_model_get_item (rows, 0);

    g_assert_cmpint (flame_change_row_get_status (first), ==, FLAME_STATUS_REGRESSION);
  }
  /* the filter keeps only regressions */
  gtk_drop_down_set_selected (window->filter_dropdown, 1);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==,
                    flame_report_count (report, FLAME_STATUS_REGRESSION));
  gtk_drop_down_set_selected (window->filter_dropdown, 0);

  /* the pixels: the graph is drawn in the diff palette */
  texture = render_window (window);
  g_assert_cmpuint (count_colour (texture, 0xe57373), >, 100);  /* medium regression */
  g_assert_cmpuint (count_colour (texture, 0x9575cd), >, 20);   /* new */
  save_screenshot (texture, "comparison.png");

  /* a row selected in the panel highlights its function in the graph */
  gtk_single_selection_set_selected (window->selection, 0);
  g_assert_true (gtk_single_selection_get_selected_item (window->selection) != NULL);
  gtk_single_selection_set_selected (window->selection, GTK_INVALID_LIST_POSITION);
}

static void
test_elided_view (void)
{
  g_autoptr(GdkTexture) texture = NULL;

  open_example ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.view", "s", "elided");
  wait_for_window (window);
  g_assert_cmpint (flame_layout_source_get_view (window->source), ==, FLAME_VIEW_ELIDED);
  g_assert_true (gtk_toggle_button_get_active (window->elided_button));
  texture = render_window (window);
  g_assert_cmpuint (count_colour (texture, 0xb39ddb), >, 100);  /* elided, light palette */
  save_screenshot (texture, "elided.png");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.view", "s", "differential");
  wait_for_window (window);
  g_assert_cmpint (flame_layout_source_get_view (window->source), ==, FLAME_VIEW_DIFFERENTIAL);
}

static void
test_inverted (void)
{
  open_example ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.inverted", NULL);
  wait_for_window (window);
  g_assert_cmpint (flame_layout_source_get_view (window->source), ==, FLAME_VIEW_INVERTED);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.inverted", NULL);
  wait_for_window (window);
  g_assert_cmpint (flame_layout_source_get_view (window->source), ==, FLAME_VIEW_DIFFERENTIAL);
}

static void
test_bad_file_keeps_comparison (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "broken.folded", NULL);
  g_autofree char *base = example ("baseline.folded");
  g_autoptr(GFile) fb = g_file_new_for_path (base);
  g_autoptr(GFile) fc = g_file_new_for_path (bad);
  g_autofree char *files_before = NULL;
  g_autofree char *totals_before = NULL;
  FlameLayoutSource *source_before;
  const char *error;

  open_example ();
  files_before = g_strdup (gtk_label_get_text (window->files_label));
  totals_before = g_strdup (gtk_label_get_text (window->totals_label));
  source_before = window->source;

  /* line 2 holds a frame name longer than any loader accepts */
  {
    g_autoptr(GString) text = g_string_new ("main;work 12\nmain;");

    for (guint i = 0; i < 70 * 1024; i++)
      g_string_append_c (text, 'x');
    g_string_append (text, " 1\n");
    g_assert_true (g_file_set_contents (bad, text->str, text->len, NULL));
  }
  flame_window_open (window, fb, fc);
  wait_for_window (window);

  /* the banner names the file, the line and the reason */
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  error = gtk_label_get_text (window->error_label);
  g_test_message ("error banner: %s", error);
  g_assert_nonnull (strstr (error, "broken.folded:2:"));
  /* and the previous comparison stays */
  g_assert_cmpstr (gtk_label_get_text (window->files_label), ==, files_before);
  g_assert_cmpstr (gtk_label_get_text (window->totals_label), ==, totals_before);
  g_assert_true (window->source == source_before);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "graph");

  /* a good load clears the banner */
  open_example ();
  g_assert_false (gtk_revealer_get_reveal_child (window->error_revealer));

  g_unlink (bad);
  g_rmdir (dir);
}

static void
test_normalize_toggle (void)
{
  g_autofree char *scaled = NULL;

  open_example ();
  scaled = g_strdup (gtk_label_get_text (window->scale_label));
  g_assert_nonnull (strstr (scaled, "Baseline scaled ×"));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.normalize", NULL);
  wait_for_window (window);
  g_assert_cmpint (flame_diff_get_options (window->diff)->normalize, ==, FLAME_NORMALIZE_NONE);
  g_assert_nonnull (strstr (gtk_label_get_text (window->scale_label), "Absolute time"));
  g_assert_cmpstr (gtk_label_get_text (window->scale_label), !=, scaled);
  g_assert_cmpstr (g_settings_get_string (window->settings, "normalize"), ==, "none");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.normalize", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->scale_label), ==, scaled);
}

static void
test_colour_and_noise_options (void)
{
  open_example ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.colour-by-total", NULL);
  wait_for_window (window);
  g_assert_cmpint (flame_diff_get_options (window->diff)->metric, ==, FLAME_METRIC_TOTAL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.colour-by-total", NULL);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.hide-noise", NULL);
  wait_for_window (window);
  g_assert_cmpfloat (flame_diff_get_options (window->diff)->significance, >, 0);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.hide-noise", NULL);
  wait_for_window (window);
  g_assert_cmpfloat (flame_diff_get_options (window->diff)->significance, ==, 0);
}

static void
test_search (void)
{
  open_example ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL);
  g_assert_true (gtk_search_bar_get_search_mode (window->search_bar));
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "convolve");
  /* GtkSearchEntry delays search-changed */
  iterate_for (400);
  g_assert_cmpuint (flame_graph_view_get_n_matches (window->graph_view), >, 0);
  g_test_message ("match label: %s", gtk_label_get_text (window->match_label));
  g_assert_nonnull (strstr (gtk_label_get_text (window->match_label), "match"));
  g_assert_nonnull (strstr (gtk_label_get_text (window->match_label), "ms → "));
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL);
  g_assert_false (gtk_search_bar_get_search_mode (window->search_bar));
}

static void
test_swap_and_reload (void)
{
  open_example ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.swap", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->files_label), ==, "current.folded → baseline.folded");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->files_label), ==, "current.folded → baseline.folded");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.swap", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->files_label), ==, "baseline.folded → current.folded");
}

static void
test_copy_summary (void)
{
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(FlameDiff) diff = reference_diff (&report);
  g_autoptr(GString) expected = g_string_new (NULL);
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (window));
  GdkContentProvider *content;
  GValue value = G_VALUE_INIT;

  open_example ();
  flame_report_write_markdown (report, expected);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-summary", NULL);
  content = gdk_clipboard_get_content (clipboard);
  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
  g_assert_cmpstr (g_value_get_string (&value), ==, expected->str);
  g_value_unset (&value);
}

static void
test_single_file (void)
{
  g_autofree char *path = example ("current.folded");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  FlameWindow *single = flame_window_new (ADW_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (single));
  flame_window_open_files (single, &file, 1);
  wait_for_window (single);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (single->main_stack), ==, "graph");
  g_assert_null (single->diff);
  g_assert_cmpint (flame_layout_source_get_view (single->source), ==, FLAME_VIEW_SINGLE);
  g_assert_cmpstr (gtk_label_get_text (single->files_label), ==, "current.folded");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (single->delta_label)));
  g_assert_false (gtk_widget_get_visible (single->sidebar_button));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (single->title_stack), ==, "title");
  gtk_window_destroy (GTK_WINDOW (single));
}

static void
test_order_pair (void)
{
  g_autoptr(GFile) a = g_file_new_for_path ("/nonexistent/after.folded");
  g_autoptr(GFile) b = g_file_new_for_path ("/nonexistent/before.folded");
  g_autoptr(GFile) c = g_file_new_for_path ("/nonexistent/run2.folded");
  g_autoptr(GFile) d = g_file_new_for_path ("/nonexistent/baseline.folded");
  GFile *base, *cur;

  flame_window_order_pair (a, b, &base, &cur);
  g_assert_true (base == b && cur == a);
  flame_window_order_pair (d, c, &base, &cur);
  g_assert_true (base == d && cur == c);
  flame_window_order_pair (c, d, &base, &cur);
  g_assert_true (base == d && cur == c);
}

static void
test_dark (void)
{
  AdwStyleManager *sm = adw_style_manager_get_default ();
  g_autoptr(GdkTexture) texture = NULL;

  open_example ();
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_FORCE_DARK);
  iterate_for (500);
  texture = render_window (window);
  save_screenshot (texture, "dark.png");
  g_assert_cmpuint (count_colour (texture, 0xbdbdbd), <, 300);  /* the light neutral: text only */
  g_assert_cmpuint (count_colour (texture, 0x757575), >, 1000); /* the dark neutral */
  g_assert_cmpuint (count_colour (texture, 0xb39ddb), >, 20);   /* the dark "new" */
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_DEFAULT);
  iterate_for (200);
}

static void
skip_no_display (void)
{
  g_test_skip ("no display: run under xvfb-run (Debian package xvfb)");
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  /* numbers in labels: no thousands separators to guess */
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_init (&argc, &argv, NULL);
      g_test_add_func ("/window/no-display", skip_no_display);
      return g_test_run ();
    }
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  /* settled pictures, and no AdwFlap reveal animation: libadwaita 1.2
   * sometimes allocates the flap's children with a width of INT_MIN
   * mid-animation under Xvfb, a warning that gtk_test_init makes fatal */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  app = flame_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN |
                           G_APPLICATION_HANDLES_COMMAND_LINE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  window = flame_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));

  g_test_add_func ("/window/empty-state", test_empty_state);
  g_test_add_func ("/window/order-pair", test_order_pair);
  g_test_add_func ("/window/compare-example", test_compare_example);
  g_test_add_func ("/window/elided-view", test_elided_view);
  g_test_add_func ("/window/inverted", test_inverted);
  g_test_add_func ("/window/bad-file-keeps-comparison", test_bad_file_keeps_comparison);
  g_test_add_func ("/window/normalize-toggle", test_normalize_toggle);
  g_test_add_func ("/window/colour-and-noise", test_colour_and_noise_options);
  g_test_add_func ("/window/search", test_search);
  g_test_add_func ("/window/swap-and-reload", test_swap_and_reload);
  g_test_add_func ("/window/dark", test_dark);
  g_test_add_func ("/window/copy-summary", test_copy_summary);
  g_test_add_func ("/window/single-file", test_single_file);

  ret = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  return ret;
}

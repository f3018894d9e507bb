/* test-window.c: the application window, driven the way a user drives it
 * (the window's open functions and its actions), checked on its state and
 * on pixels rendered from it. Writes screenshots of the main window to
 * $FLAMEDIFF_SCREENSHOTS (comparison.png, elided.png, dark.png).
 *
 * Needs a display: tests/meson.build runs it under Xvfb (tools/xvfb-test).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "flame-application.h"
#include "flame-change-row.h"
#include "flame-changes-panel-private.h"
#include "flame-file-chooser.h"
#include "flame-graph-view-private.h"
#include "flame-legend.h"
#include "flame-loader.h"
#include "flame-preferences-page.h"
#include "flame-recorder.h"
#include "flame-report.h"
#include "flame-speedscope.h"
#include "flame-summary-bar-private.h"
#include "flame-test-examples.h"
#include "flame-test-gui.h"
#include "flame-test-locale.h"
#include "flame-test-runs.h"
#include "flame-test-utils.h"

static FlameApplication *app;
static FlameWindow *window;

/* whether item @i of @menu has the label @want */
static gboolean
menu_label_is (GMenuModel *menu,
               gint        i,
               const char *want)
{
  g_autofree char *label = NULL;

  return i < g_menu_model_get_n_items (menu) &&
         g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label) &&
         g_strcmp0 (label, want) == 0;
}

/* Loading runs in a worker thread: spin the main loop until it is done,
 * and the window has been laid out and drawn with what it loaded */
static void
wait_for_window (FlameWindow *self)
{
  /* and the side panel opened (from a tick of the flap, once it has a
   * width) */
  flame_test_gui_wait_for (!flame_window_is_busy (self) && self->reveal_tick == 0 &&
                           !_flame_changes_panel_get_pending (self->changes_panel));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (self));
}

static GdkTexture *
render_window (FlameWindow *self)
{
  /* the window's content: a toplevel itself cannot be drawn into a paintable */
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (self));
  GdkPaintable *paintable = gtk_widget_paintable_new (content);
  int width, height;
  GskRenderNode *node = NULL;
  GdkTexture *texture;

  /* the paintable holds what the widget drew in a frame after it was made
   * (a window just presented has its size then) */
  gtk_widget_queue_draw (content);
  gtk_test_widget_wait_for_draw (content);
  width = gtk_widget_get_width (content);
  height = gtk_widget_get_height (content);
  flame_test_gui_wait_for ((node = flame_test_gui_paintable_node (paintable, width, height)) !=
                           NULL);
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
  g_autofree char *b = flame_test_example_path ("baseline.folded");
  g_autofree char *c = flame_test_example_path ("current.folded");
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
  gtk_test_widget_wait_for_draw (GTK_WIDGET (fresh));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (fresh->main_stack), ==, "empty");
  g_assert_true (flame_window_is_empty (fresh));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (fresh->differential_button)) &&
                  gtk_widget_get_visible (GTK_WIDGET (fresh->elided_button)));
  /* Record and Diff… is offered on the empty page */
  g_assert_true (gtk_widget_get_sensitive (fresh->record_button));
  g_assert_nonnull (gtk_widget_get_tooltip_text (fresh->record_button));
  /* the page's icon, from the resource even when nothing is installed
   * (run from the build tree): GtkApplication adds <base>/icons */
  g_assert_true (g_resources_get_info ("/io/github/flamediff/Flamediff/icons/scalable/apps/"
                                       "io.github.flamediff.Flamediff.svg",
                                       G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL));
  g_assert_true (gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (
                                            gtk_widget_get_display (GTK_WIDGET (fresh))),
                                          "io.github.flamediff.Flamediff"));
  gtk_window_destroy (GTK_WINDOW (fresh));
}

static void
test_compare_example (void)
{
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(FlameDiff) diff = reference_diff (&report);
  /* as people read it, in the changes panel's units */
  g_autofree char *tb = flame_quantity_format_compact (FLAME_QUANTITY_TIME,
                                                       flame_diff_get_total_ms (diff, 0), FALSE);
  g_autofree char *tc = flame_quantity_format_compact (FLAME_QUANTITY_TIME,
                                                       flame_diff_get_total_ms (diff, 1), FALSE);
  g_autofree char *totals = g_strdup_printf ("%s → %s", tb, tc);
  g_autofree char *elided = g_strdup_printf ("Elided (%u)", flame_diff_get_elided_count (diff));
  g_autofree char *scale = g_strdup_printf ("×%.2f", flame_diff_get_scale (diff));
  GListModel *rows;
  guint n_changed = 0;
  g_autoptr(GdkTexture) texture = NULL;

  open_example ();

  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "graph");
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "baseline.folded → current.folded");
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->totals_label), ==, totals);
  /* absolute time (the default): the header says so, and no factor, in
   * the words of the legend and the exported image */
  g_assert_null (strstr (gtk_label_get_text (window->summary_bar->scale_label), scale));
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->scale_label), ==,
                   flame_test_decimal ("Absolute time: the baseline is not scaled "
                                       "(1.00 ms per sample assumed)"));
  g_assert_nonnull (strstr (gtk_label_get_text (window->summary_bar->samples_label), "samples"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->summary_bar->delta_label)));

  /* the view switcher offers the elided paths, with their count */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->title_stack), ==, "switcher");
  g_assert_cmpuint (flame_diff_get_elided_count (diff), >, 0);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->elided_button)));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (window->elided_button)), ==, elided);

  /* the side panel lists every changed function with the report's status;
   * it opened at once rather than sliding, and the flap's own spring is
   * back afterwards, so F9 slides it */
  g_assert_true (adw_flap_get_reveal_flap (window->flap));
  flame_test_gui_wait_for (adw_flap_get_reveal_progress (window->flap) >= 1);
  g_assert_null (window->reveal_params);
  g_assert_cmpfloat (adw_spring_params_get_stiffness (adw_flap_get_reveal_params (window->flap)),
                     <, 10000);
  rows = G_LIST_MODEL (window->changes_panel->selection);
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
  gtk_drop_down_set_selected (window->changes_panel->filter_dropdown, 1);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==,
                    flame_report_count (report, FLAME_STATUS_REGRESSION));
  gtk_drop_down_set_selected (window->changes_panel->filter_dropdown, 0);

  /* the pixels: the graph is drawn in the diff palette */
  texture = render_window (window);
  g_assert_cmpuint (count_colour (texture, 0xe57373), >, 100);  /* medium regression */
  g_assert_cmpuint (count_colour (texture, 0x9575cd), >, 20);   /* new */
  save_screenshot (texture, "comparison.png");

  /* a row selected in the panel highlights its function in the graph */
  gtk_single_selection_set_selected (window->changes_panel->selection, 0);
  g_assert_true (gtk_single_selection_get_selected_item (window->changes_panel->selection) != NULL);
  gtk_single_selection_set_selected (window->changes_panel->selection, GTK_INVALID_LIST_POSITION);
}

/* Every label's text under @widget, one a line, in widget order (of a
 * stack, its visible page's). */
static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();

  g_ptr_array_add (todo, widget);
  while (todo->len > 0)
    {
      GtkWidget *n = g_ptr_array_steal_index (todo, todo->len - 1);

      /* the pages a stack does not show (the status pills) */
      if (!gtk_widget_get_child_visible (n))
        continue;
      if (GTK_IS_LABEL (n) && gtk_widget_get_visible (n))
        g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (n)));
      for (GtkWidget *c = gtk_widget_get_last_child (n); c; c = gtk_widget_get_prev_sibling (c))
        g_ptr_array_add (todo, c);
    }
}

/* the tooltip of the changes table's header that says @title */
static const char *
header_tooltip (FlameChangesPanel *panel,
                const char        *title)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (panel->changes_view));

  for (GtkWidget *t = gtk_widget_get_first_child (header); t; t = gtk_widget_get_next_sibling (t))
    {
      GtkWidget *label = gtk_widget_get_first_child (t);

      while (label != NULL && !GTK_IS_LABEL (label))
        label = gtk_widget_get_first_child (label);
      if (label != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), title) == 0)
        return gtk_widget_get_tooltip_text (t);
    }
  g_error ("no header says “%s”", title);
  return NULL;
}

/* The Top Changes panel: headers name the metric, cells carry the unit,
 * new and removed rows show their ±100 % as the report does, and a
 * removed function is "Removed" everywhere. */
static void
test_changes_panel (void)
{
  g_autoptr(GString) text = g_string_new ("\n");

  open_example ();
  collect_labels (GTK_WIDGET (window->changes_panel->changes_view), text);
  g_test_message ("%s", text->str);
  g_assert_nonnull (strstr (text->str, "\nSelf Before\n"));
  g_assert_nonnull (strstr (text->str, "\nSelf After\n"));
  /* convolve_row: 148 → 275 ms self */
  g_assert_nonnull (strstr (text->str, flame_test_decimal ("\n148.0 ms\n275.0 ms\n+127.0 ms\n")));
  /* rgb_to_ycc_avx2 is new, rgb_to_ycc removed */
  g_assert_nonnull (strstr (text->str, flame_test_decimal ("\n+44.0 ms\n+100.0\nNew\n")));
  g_assert_nonnull (strstr (text->str, flame_test_decimal ("\n-64.0 ms\n-100.0\nRemoved\n")));
  g_assert_null (strstr (text->str, "Gone"));
  /* every header says what it is in its tooltip */
  g_assert_nonnull (strstr (header_tooltip (window->changes_panel, "Self Before"),
                            "baseline: the function itself"));
  g_assert_nonnull (strstr (header_tooltip (window->changes_panel, "Self After"),
                            "current profile: the function itself"));
  g_assert_nonnull (header_tooltip (window->changes_panel, "Function"));
  g_assert_nonnull (header_tooltip (window->changes_panel, "Change"));
  g_assert_nonnull (strstr (header_tooltip (window->changes_panel, "Δ %"), "+100"));
  g_assert_nonnull (strstr (header_tooltip (window->changes_panel, "Status"), "removed"));

  {
    FlameTree *merged = flame_diff_get_tree (window->diff);

    gtk_widget_activate_action (GTK_WIDGET (window), "win.colour-by-total", NULL);
    wait_for_window (window);
    /* the same profiles, coloured otherwise: not merged again */
    g_assert_true (flame_diff_get_tree (window->diff) == merged);
    g_assert_cmpint (flame_diff_get_options (window->diff)->metric, ==, FLAME_METRIC_TOTAL);
  }
  g_string_assign (text, "\n");
  collect_labels (GTK_WIDGET (window->changes_panel->changes_view), text);
  g_assert_nonnull (strstr (text->str, "\nTotal Before\n"));
  g_assert_nonnull (strstr (text->str, "\nTotal After\n"));
  g_assert_nonnull (strstr (header_tooltip (window->changes_panel, "Total Before"),
                            "everything it calls"));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.colour-by-total", NULL);
  wait_for_window (window);
}

/* Choosing a row of the panel shows its function in the graph, also a
 * small one of a large profile whose frames are far too narrow to draw:
 * the graph zooms to its widest call and selects it, in view. */
static void
test_panel_row_to_graph (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-row-XXXXXX", NULL);
  g_autofree char *bpath = g_build_filename (dir, "big-base.folded", NULL);
  g_autofree char *cpath = g_build_filename (dir, "big-cur.folded", NULL);
  g_autoptr(GFile) bfile = g_file_new_for_path (bpath);
  g_autoptr(GFile) cfile = g_file_new_for_path (cpath);
  GtkWidget *graph = GTK_WIDGET (window->graph_view);
  GListModel *rows;
  guint target_row = GTK_INVALID_LIST_POSITION;
  guint32 node;

  /* 20 000 functions of 50 samples each; rare_path 2 → 40 samples */
  for (guint side = 0; side < 2; side++)
    {
      GString *folded = g_string_new (NULL);

      for (guint i = 0; i < 20000; i++)
        g_string_append_printf (folded, "main;work_%u;leaf_%u 50\n", i % 100, i);
      g_string_append_printf (folded, "main;setup;rare_path %u\n", side ? 40 : 2);
      g_assert_true (g_file_set_contents (side ? cpath : bpath, folded->str, folded->len, NULL));
      g_string_free (folded, TRUE);
    }
  flame_window_open (window, bfile, cfile);
  wait_for_window (window);
  gtk_drop_down_set_selected (window->changes_panel->filter_dropdown, 5);   /* All Functions */
  /* a large table reaches the list a few rows at a time */
  flame_test_gui_wait_for (!_flame_changes_panel_get_pending (window->changes_panel));
  rows = G_LIST_MODEL (window->changes_panel->selection);
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 20000);
  for (guint i = 0; i < g_list_model_get_n_items (rows) && target_row == GTK_INVALID_LIST_POSITION;
       i++)
    {
      g_autoptr(FlameChangeRow) row = g_list_model_get_item (rows, i);

      if (g_strcmp0 (flame_change_row_get_name (row), "rare_path") == 0)
        target_row = i;
    }
  g_assert_cmpuint (target_row, !=, GTK_INVALID_LIST_POSITION);
  g_assert_cmpuint (flame_graph_view_get_zoom_node (window->graph_view), ==, FLAME_TREE_ROOT);

  gtk_single_selection_set_selected (window->changes_panel->selection, target_row);
  node = flame_graph_view_get_selected_node (window->graph_view);
  g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
  g_assert_cmpstr (flame_layout_source_get_name (window->source, node), ==, "rare_path");
  /* 40 of 1 000 040 samples: a fraction of a pixel at the root, so the
   * graph zoomed to it */
  g_assert_cmpuint (flame_graph_view_get_zoom_node (window->graph_view), ==, node);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  {
    FlameLayout *layout = _flame_graph_view_get_layout (window->graph_view);
    gint i = flame_layout_find_node (layout, node);
    graphene_rect_t r;

    g_assert_cmpint (i, >=, 0);
    g_assert_true (_flame_graph_view_frame_bounds (window->graph_view, i, &r));
    g_test_message ("rare_path drawn at %.0f,%.0f %.0f×%.0f in %d×%d", r.origin.x, r.origin.y,
                    r.size.width, r.size.height, gtk_widget_get_width (graph),
                    gtk_widget_get_height (graph));
    g_assert_cmpfloat (r.size.width, >=, 48);
    g_assert_cmpfloat (r.origin.x, >=, 0);
    g_assert_cmpfloat (r.origin.y, >=, 0);
    g_assert_cmpfloat (r.origin.x + r.size.width, <=, gtk_widget_get_width (graph) + 0.5);
    g_assert_cmpfloat (r.origin.y + r.size.height, <=, gtk_widget_get_height (graph) + 0.5);
  }
  /* a wide function is only selected: the graph stays where it is */
  flame_graph_view_reset_zoom (window->graph_view);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlameChangeRow) row = g_list_model_get_item (rows, i);

      if (g_strcmp0 (flame_change_row_get_name (row), "main") == 0)
        gtk_single_selection_set_selected (window->changes_panel->selection, i);
    }
  node = flame_graph_view_get_selected_node (window->graph_view);
  g_assert_cmpstr (flame_layout_source_get_name (window->source, node), ==, "main");
  g_assert_cmpuint (flame_graph_view_get_zoom_node (window->graph_view), ==, FLAME_TREE_ROOT);

  gtk_drop_down_set_selected (window->changes_panel->filter_dropdown, 0);
  g_remove (bpath);
  g_remove (cpath);
  g_rmdir (dir);
}

/* The panel of a large comparison (rows sorted in a worker, handed to
 * the list a few at a time): every function once, in the order of the
 * column sorted by, ties in the report's order; a row chosen after a
 * sort still selects (and zooms to) its function in the graph. */
static GtkColumnViewColumn *
panel_column (FlameChangesPanel *panel,
              guint              i)
{
  GListModel *columns = gtk_column_view_get_columns (panel->changes_view);
  g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

  return column;   /* the view keeps it */
}

/* the panel's rows, checked in order by @key (then by @key2 when equal,
 * -1: none, the same way round), each function of @report once */
static void
assert_panel_sorted (FlameReport *report,
                     GHashTable  *index,
                     int          key,
                     gboolean     descending,
                     int          key2)
{
  GListModel *rows = G_LIST_MODEL (window->changes_panel->selection);
  guint n;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(FlameChangeRow) prev = NULL;

  flame_test_gui_wait_for (!_flame_changes_panel_get_pending (window->changes_panel));
  n = g_list_model_get_n_items (rows);
  g_assert_cmpuint (n, ==, flame_report_get_n_functions (report));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(FlameChangeRow) row = g_list_model_get_item (rows, i);
      const char *name = flame_change_row_get_name (row);

      g_assert_true (g_hash_table_add (seen, g_strdup (name)));
      if (prev != NULL)
        {
          int c = 0;

          for (int k = key, level = 0; level < 2 && c == 0 && k >= 0; k = key2, level++)
            {
              gboolean desc = descending;
              gdouble a, b;

              switch (k)
                {
                case 0:
                  {
                    g_autofree char *fa = g_utf8_casefold (flame_change_row_get_name (prev), -1);
                    g_autofree char *fb = g_utf8_casefold (name, -1);

                    a = g_utf8_collate (fa, fb);
                    b = 0;
                  }
                  break;
                case 1:
                  a = flame_change_row_get_baseline_ms (prev),
                  b = flame_change_row_get_baseline_ms (row);
                  break;
                case 3:
                  a = flame_change_row_get_delta_ms (prev), b = flame_change_row_get_delta_ms (row);
                  break;
                default:
                  a = flame_change_row_get_status (prev), b = flame_change_row_get_status (row);
                  break;
                }
              /* prev before row: a <= b ascending */
              c = (a > b) - (a < b);
              if (desc)
                c = -c;
              if (c > 0)
                g_test_message ("sorted by %d: row %u (%s) before row %u (%s) by key %d", key,
                                i - 1, flame_change_row_get_name (prev), i, name, k);
              g_assert_cmpint (c, <=, 0);
              c = c < 0 ? -1 : (a != b);
            }
          if (c == 0)
            g_assert_cmpuint (GPOINTER_TO_UINT (
                                g_hash_table_lookup (index, flame_change_row_get_name (prev))),
                              <, GPOINTER_TO_UINT (g_hash_table_lookup (index, name)));
        }
      g_set_object (&prev, row);
    }
}

static void
test_panel_large_sorted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-large-XXXXXX", NULL);
  g_autofree char *bpath = g_build_filename (dir, "large-base.folded", NULL);
  g_autofree char *cpath = g_build_filename (dir, "large-cur.folded", NULL);
  g_autoptr(GFile) bfile = g_file_new_for_path (bpath);
  g_autoptr(GFile) cfile = g_file_new_for_path (cpath);
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  FlameChangesPanel *panel = window->changes_panel;
  GListModel *rows = G_LIST_MODEL (panel->selection);
  FlameReport *report;
  guint target = GTK_INVALID_LIST_POSITION;
  guint32 node;

  /* 12 000 functions (more than the panel sorts on the main thread), in
   * names of mixed case, many with equal times on both sides */
  for (guint side = 0; side < 2; side++)
    {
      GString *folded = g_string_new (NULL);

      for (guint i = 0; i < 12000; i++)
        g_string_append_printf (folded, "main;mod_%u;%s_%u %u\n", i % 50, i % 3 ? "fn" : "Fn", i,
                                20 + (i * 7919) % 97 + (side && i % 4 == 0 ? (i % 11) * 5 : 0));
      g_string_append_printf (folded, "main;setup;rare_path %u\n", side ? 40 : 2);
      g_assert_true (g_file_set_contents (side ? cpath : bpath, folded->str, folded->len, NULL));
      g_string_free (folded, TRUE);
    }
  flame_window_open (window, bfile, cfile);
  wait_for_window (window);
  report = flame_comparison_get_report (window->comparison);
  for (guint i = 0; i < flame_report_get_n_functions (report); i++)
    {
      const FlameFunctionStat *stat = flame_report_get_function (report, i);

      g_hash_table_insert (index, (gpointer) flame_report_get_name (report, stat),
                           GUINT_TO_POINTER (i));
    }
  g_assert_cmpuint (flame_report_get_n_functions (report), >, 12000);

  /* the largest regression first; then by name, A to Z and back; by the
   * status, the name breaking ties; by the time before */
  gtk_drop_down_set_selected (panel->filter_dropdown, 5);   /* All Functions */
  assert_panel_sorted (report, index, 3, TRUE, -1);
  gtk_column_view_sort_by_column (panel->changes_view, panel->name_column, GTK_SORT_ASCENDING);
  assert_panel_sorted (report, index, 0, FALSE, -1);
  gtk_column_view_sort_by_column (panel->changes_view, panel->name_column, GTK_SORT_DESCENDING);
  assert_panel_sorted (report, index, 0, TRUE, -1);
  gtk_column_view_sort_by_column (panel->changes_view, panel_column (panel, 5),
                                  GTK_SORT_DESCENDING);
  assert_panel_sorted (report, index, 5, TRUE, -1);
  gtk_column_view_sort_by_column (panel->changes_view, panel->before_column, GTK_SORT_ASCENDING);
  assert_panel_sorted (report, index, 1, FALSE, -1);

  /* sorts and filters one after another, without waiting: the last
   * of each counts (a worker's result for an older sort is dropped) */
  gtk_column_view_sort_by_column (panel->changes_view, panel->name_column, GTK_SORT_ASCENDING);
  gtk_drop_down_set_selected (panel->filter_dropdown, 1);
  gtk_column_view_sort_by_column (panel->changes_view, panel->delta_column, GTK_SORT_ASCENDING);
  gtk_drop_down_set_selected (panel->filter_dropdown, 5);
  gtk_column_view_sort_by_column (panel->changes_view, panel->name_column, GTK_SORT_DESCENDING);
  assert_panel_sorted (report, index, 0, TRUE, -1);

  /* the filter keeps its rows in that order */
  gtk_drop_down_set_selected (panel->filter_dropdown, 1);   /* Regressions */
  flame_test_gui_wait_for (!_flame_changes_panel_get_pending (panel));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==,
                    flame_report_count (report, FLAME_STATUS_REGRESSION));
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 100);

  /* a row far down, after a sort: its function selected, zoomed to */
  gtk_drop_down_set_selected (panel->filter_dropdown, 5);
  gtk_column_view_sort_by_column (panel->changes_view, panel->name_column, GTK_SORT_ASCENDING);
  flame_test_gui_wait_for (!_flame_changes_panel_get_pending (panel));
  for (guint i = 0; i < g_list_model_get_n_items (rows) && target == GTK_INVALID_LIST_POSITION; i++)
    {
      g_autoptr(FlameChangeRow) row = g_list_model_get_item (rows, i);

      if (g_strcmp0 (flame_change_row_get_name (row), "rare_path") == 0)
        target = i;
    }
  g_assert_cmpuint (target, >, 1000);
  g_assert_cmpuint (flame_graph_view_get_zoom_node (window->graph_view), ==, FLAME_TREE_ROOT);
  gtk_single_selection_set_selected (panel->selection, target);
  node = flame_graph_view_get_selected_node (window->graph_view);
  g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
  g_assert_cmpstr (flame_layout_source_get_name (window->source, node), ==, "rare_path");
  g_assert_cmpuint (flame_graph_view_get_zoom_node (window->graph_view), ==, node);

  /* another sort keeps the row selected, where it is now */
  gtk_column_view_sort_by_column (panel->changes_view, panel->name_column, GTK_SORT_DESCENDING);
  flame_test_gui_wait_for (!_flame_changes_panel_get_pending (panel));
  {
    g_autoptr(FlameChangeRow) row = gtk_single_selection_get_selected_item (panel->selection);

    g_assert_nonnull (row);
    g_object_ref (row);
    g_assert_cmpstr (flame_change_row_get_name (row), ==, "rare_path");
    g_assert_cmpuint (gtk_single_selection_get_selected (panel->selection), !=, target);
  }
  g_assert_cmpuint (flame_changes_panel_get_selected_function (panel), !=, FLAME_TREE_NONE);
  /* one the filter hides is unselected */
  gtk_drop_down_set_selected (panel->filter_dropdown, 2);   /* Improvements */
  g_assert_cmpuint (flame_changes_panel_get_selected_function (panel), ==, FLAME_TREE_NONE);

  gtk_drop_down_set_selected (panel->filter_dropdown, 0);
  gtk_column_view_sort_by_column (panel->changes_view, panel->delta_column, GTK_SORT_DESCENDING);
  flame_test_gui_wait_for (!_flame_changes_panel_get_pending (panel));
  g_remove (bpath);
  g_remove (cpath);
  g_rmdir (dir);
}

/* whether @widget or an ancestor below the window would show a tooltip */
static gboolean
tooltip_in_ancestry (GtkWidget *widget)
{
  for (GtkWidget *w = widget; w != NULL && !GTK_IS_ROOT (w); w = gtk_widget_get_parent (w))
    if (gtk_widget_get_has_tooltip (w))
      return TRUE;
  return FALSE;
}

/* @w's main menu button, beside the side panel's */
static GtkWidget *
primary_menu_button (FlameWindow *w)
{
  GtkWidget *button = gtk_widget_get_first_child (gtk_widget_get_parent (w->sidebar_button));

  while (button != NULL &&
         !(GTK_IS_MENU_BUTTON (button) && gtk_menu_button_get_primary (GTK_MENU_BUTTON (button))))
    button = gtk_widget_get_next_sibling (button);
  g_assert_nonnull (button);
  return button;
}

/* Opens the menu of @button and closes it again; the open menu's
 * natural width, and in @tooltip_shown whether a tooltip would cover it */
static int
open_menu_width (GtkWidget *button,
                 gboolean  *tooltip_shown)
{
  GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));
  int natural = 0;

  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  flame_test_gui_wait_for (gtk_widget_get_mapped (GTK_WIDGET (popover)));
  gtk_widget_measure (GTK_WIDGET (popover), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural,
                      NULL, NULL);
  if (tooltip_shown != NULL)
    *tooltip_shown = tooltip_in_ancestry (button);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  flame_test_gui_wait_for (!gtk_widget_get_visible (GTK_WIDGET (popover)));
  return natural;
}

/* A menu opened under its button is not covered by the button's tooltip
 * (the pointer that clicked is still on the button), nor by an
 * ancestor's, which GTK shows in its place: no tooltip while it is open,
 * the tooltip back once it closes. The main menu, View Options, the
 * panel's filter and the arrow of the Open split button (whose own
 * tooltip, "Open a Baseline and a Current Profile", covered the menu). */
static void
test_menu_tooltips (void)
{
  GtkWidget *primary = primary_menu_button (window);
  GtkWidget *arrow = NULL;
  GtkWidget *buttons[4];

  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (window->open_button)); c;
       c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_MENU_BUTTON (c))
      arrow = c;
  g_assert_nonnull (arrow);
  g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (window->open_button)));
  buttons[0] = primary;
  buttons[1] = window->view_menu_button;
  buttons[2] = GTK_WIDGET (window->changes_panel->filter_dropdown);
  buttons[3] = arrow;
  open_example ();
  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    {
      GtkWidget *popover = NULL;

      for (GtkWidget *c = gtk_widget_get_first_child (buttons[i]); c && popover == NULL;
           c = gtk_widget_get_next_sibling (c))
        if (GTK_IS_POPOVER (c))
          popover = c;
      g_assert_nonnull (popover);
      g_assert_true (gtk_widget_get_has_tooltip (buttons[i]));
      if (GTK_IS_MENU_BUTTON (buttons[i]))
        gtk_menu_button_popup (GTK_MENU_BUTTON (buttons[i]));
      else
        gtk_popover_popup (GTK_POPOVER (popover));
      flame_test_gui_wait_for (gtk_widget_get_visible (popover));
      g_assert_false (tooltip_in_ancestry (buttons[i]));
      gtk_popover_popdown (GTK_POPOVER (popover));
      flame_test_gui_wait_for (!gtk_widget_get_visible (popover));
      g_assert_true (gtk_widget_get_has_tooltip (buttons[i]));
    }
  g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (window->open_button)));
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

/* Opening files shows the progress banner at once, and it goes without
 * sliding out over the new graph; a view laid out again, usually done in
 * a moment, only starts the banner's delay */
static void
test_progress_banner (void)
{
  open_example ();
  g_assert_false (gtk_revealer_get_child_revealed (window->progress_revealer));

  flame_window_open_example (window);
  g_assert_true (flame_window_is_busy (window));
  g_assert_true (gtk_revealer_get_reveal_child (window->progress_revealer));
  wait_for_window (window);
  g_assert_false (gtk_revealer_get_reveal_child (window->progress_revealer));
  g_assert_false (gtk_revealer_get_child_revealed (window->progress_revealer));
  g_assert_cmpuint (gtk_revealer_get_transition_duration (window->progress_revealer), >, 0);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.inverted", NULL);
  g_assert_true (flame_window_is_busy (window));
  g_assert_false (gtk_revealer_get_reveal_child (window->progress_revealer));
  g_assert_cmpuint (window->banner_source, !=, 0);
  wait_for_window (window);
  g_assert_cmpint (flame_layout_source_get_view (window->source), ==, FLAME_VIEW_INVERTED);
  g_assert_cmpuint (window->banner_source, ==, 0);
  g_assert_false (gtk_revealer_get_reveal_child (window->progress_revealer));
  g_assert_false (gtk_revealer_get_child_revealed (window->progress_revealer));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.inverted", NULL);
  wait_for_window (window);
}

/* The graph is a Tab stop: Tab from the window's start reaches it, and
 * arriving selects the root. The Shortcuts window lists the graph's own
 * keys, after General. */
static void
test_keyboard_reach (void)
{
  GtkWidget *graph;
  gboolean reached = FALSE;

  open_example ();
  graph = GTK_WIDGET (window->graph_view);
  flame_graph_view_set_selected_node (window->graph_view, FLAME_TREE_NONE);
  gtk_window_set_focus (GTK_WINDOW (window), NULL);
  /* a bounded walk: a hundred stops is far more than the window has */
  for (guint i = 0; i < 100 && !reached; i++)
    {
      gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);
      reached = gtk_window_get_focus (GTK_WINDOW (window)) == graph;
    }
  g_assert_true (reached);
  g_assert_cmpuint (flame_graph_view_get_selected_node (window->graph_view), ==, FLAME_TREE_ROOT);
  g_assert_true (gtk_widget_activate_action (graph, "graph.select-up", NULL));
  g_assert_cmpuint (flame_graph_view_get_selected_node (window->graph_view), !=, FLAME_TREE_ROOT);

  {
    g_autoptr(GtkBuilder) builder =
      gtk_builder_new_from_resource ("/io/github/flamediff/Flamediff/gtk/help-overlay.ui");
    GtkWidget *overlay = GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay"));
    g_autoptr(GString) graph_keys = g_string_new (NULL);
    GSList *objects = gtk_builder_get_objects (builder);

    /* the builder lists in no order: collect groups and accelerators */
    for (GSList *l = objects; l != NULL; l = l->next)
      if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
        {
          g_autofree char *accel = NULL;

          g_object_get (l->data, "accelerator", &accel, NULL);
          g_string_append_printf (graph_keys, "%s ", accel);
        }
    g_slist_free (objects);
    {
      const char *keys[] = { "Up Down", "Left Right", "Return space", "Escape BackSpace", "Home" };

      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        g_assert_nonnull (strstr (graph_keys->str, keys[k]));
    }

    /* the first group in the section, as drawn: General */
    {
      GtkWidget *w = NULL;
      char *title = NULL;
      g_autoptr(GPtrArray) todo = g_ptr_array_new ();

      /* depth first, in widget order */
      g_ptr_array_add (todo, overlay);
      while (todo->len > 0 && w == NULL)
        {
          GtkWidget *n = g_ptr_array_steal_index (todo, todo->len - 1);

          if (GTK_IS_SHORTCUTS_GROUP (n))
            w = n;
          else
            for (GtkWidget *c = gtk_widget_get_last_child (n); c;
                 c = gtk_widget_get_prev_sibling (c))
              g_ptr_array_add (todo, c);
        }
      g_assert_nonnull (w);
      g_object_get (w, "title", &title, NULL);
      g_assert_cmpstr (title, ==, "General");
      g_free (title);
    }

    /* the graph's keys on the first page, not behind the page switcher:
     * the section reflows its groups into pages (a GtkStack), columns and
     * groups */
    {
      GtkWidget *stack = NULL, *page;
      g_autoptr(GString) first_page = g_string_new (NULL);
      g_autoptr(GPtrArray) todo = g_ptr_array_new ();

      g_ptr_array_add (todo, overlay);
      while (todo->len > 0 && stack == NULL)
        {
          GtkWidget *n = g_ptr_array_steal_index (todo, todo->len - 1);

          if (GTK_IS_STACK (n) && GTK_IS_SHORTCUTS_SECTION (gtk_widget_get_ancestor (
                                    n, GTK_TYPE_SHORTCUTS_SECTION)))
            stack = n;
          else
            for (GtkWidget *c = gtk_widget_get_last_child (n); c;
                 c = gtk_widget_get_prev_sibling (c))
              g_ptr_array_add (todo, c);
        }
      g_assert_nonnull (stack);
      page = gtk_widget_get_first_child (stack);
      g_assert_nonnull (page);
      for (GtkWidget *column = gtk_widget_get_first_child (page); column;
           column = gtk_widget_get_next_sibling (column))
        for (GtkWidget *group = gtk_widget_get_first_child (column); group;
             group = gtk_widget_get_next_sibling (group))
          if (GTK_IS_SHORTCUTS_GROUP (group))
            {
              char *title = NULL;

              g_object_get (group, "title", &title, NULL);
              g_string_append_printf (first_page, "%s;", title);
              g_free (title);
            }
      g_test_message ("shortcuts, page 1: %s", first_page->str);
      g_assert_true (g_str_has_prefix (first_page->str, "General;"));
      g_assert_nonnull (strstr (first_page->str, "Flame Graph;"));
    }
    gtk_window_destroy (GTK_WINDOW (overlay));
  }
}

static void
test_bad_file_keeps_comparison (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "broken.folded", NULL);
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autoptr(GFile) fb = g_file_new_for_path (base);
  g_autoptr(GFile) fc = g_file_new_for_path (bad);
  g_autofree char *files_before = NULL;
  g_autofree char *totals_before = NULL;
  FlameLayoutSource *source_before;
  const char *error;

  open_example ();
  files_before = g_strdup (gtk_label_get_text (window->summary_bar->files_label));
  totals_before = g_strdup (gtk_label_get_text (window->summary_bar->totals_label));
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
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==, files_before);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->totals_label), ==, totals_before);
  g_assert_true (window->source == source_before);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "graph");

  /* a good load clears the banner */
  open_example ();
  g_assert_false (gtk_revealer_get_reveal_child (window->error_revealer));

  g_unlink (bad);
  g_rmdir (dir);
}

/* issue 11: a toggle flipped while a comparison loads applies to that
 * comparison; it used to re-draw the previous one from its old profiles
 * and drop the load */
static void
test_toggle_while_loading (void)
{
  static const char *actions[] = { "win.inverted", "win.normalize" };
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *base = g_build_filename (dir, "before.folded", NULL);
  g_autofree char *cur = g_build_filename (dir, "after.folded", NULL);
  g_autoptr(GFile) fb = g_file_new_for_path (base);
  g_autoptr(GFile) fc = g_file_new_for_path (cur);
  const char *text_b = "main;parse 40\nmain;work 60\n";
  const char *text_c = "main;parse 40\nmain;work 90\nmain;log 5\n";

  g_assert_true (g_file_set_contents (base, text_b, -1, NULL));
  g_assert_true (g_file_set_contents (cur, text_c, -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      gboolean inverted, normalize;

      open_example ();
      g_object_get (window, "inverted", &inverted, "normalize", &normalize, NULL);
      flame_window_open (window, fb, fc);
      /* the load runs in a thread: it cannot be done before the main
       * loop runs again */
      g_assert_true (flame_window_is_busy (window));
      gtk_widget_activate_action (GTK_WIDGET (window), actions[i], NULL);
      wait_for_window (window);

      g_test_message ("%s while loading: %s", actions[i],
                      gtk_label_get_text (window->summary_bar->files_label));
      g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                       "before.folded → after.folded");
      g_assert_cmpfloat (flame_diff_get_total_ms (window->diff, FLAME_DIFF_CURRENT), ==, 135);
      if (i == 0)
        g_assert_cmpint (flame_layout_source_get_view (window->source), ==,
                         inverted ? FLAME_VIEW_DIFFERENTIAL : FLAME_VIEW_INVERTED);
      else
        g_assert_cmpint (flame_diff_get_options (window->diff)->normalize, ==,
                         normalize ? FLAME_NORMALIZE_ABSOLUTE : FLAME_NORMALIZE_TOTAL);
      gtk_widget_activate_action (GTK_WIDGET (window), actions[i], NULL);
      wait_for_window (window);
    }

  g_unlink (base);
  g_unlink (cur);
  g_rmdir (dir);
}

/* Half an hour of samples: the summary bar's totals and change read in
 * human units, as the changes panel writes them ("33 min 7.7 s"), not
 * as grouped milliseconds ("1,987,667.0 ms") */
static void
test_summary_human_units (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *base = g_build_filename (dir, "before.folded", NULL);
  g_autofree char *cur = g_build_filename (dir, "after.folded", NULL);
  g_autoptr(GFile) fb = g_file_new_for_path (base);
  g_autoptr(GFile) fc = g_file_new_for_path (cur);
  const char *totals, *delta;

  /* 1 ms a sample (folded stacks carry no timing) */
  g_assert_true (g_file_set_contents (base, "main;parse 1000000\nmain;work 987667\n", -1, NULL));
  g_assert_true (g_file_set_contents (cur, "main;parse 1000000\nmain;work 1087667\n", -1, NULL));
  flame_window_open (window, fb, fc);
  wait_for_window (window);
  g_assert_cmpfloat (flame_diff_get_total_ms (window->diff, FLAME_DIFF_BASELINE), ==, 1987667);
  totals = gtk_label_get_text (window->summary_bar->totals_label);
  delta = gtk_label_get_text (window->summary_bar->delta_label);
  g_test_message ("totals “%s”, change “%s”", totals, delta);
  {
    /* the locale's decimal point (the comma-locale suite) */
    g_autofree char *want_totals = g_strdup_printf ("33 min %.1f s → 34 min %.1f s", 7.7, 47.7);
    g_autofree char *want_delta = g_strdup_printf ("+1 min %.1f s (+%.1f %%)", 40.0, 5.0);

    g_assert_cmpstr (totals, ==, want_totals);
    g_assert_cmpstr (delta, ==, want_delta);
  }
  g_assert_null (strstr (totals, "ms"));

  g_unlink (base);
  g_unlink (cur);
  g_rmdir (dir);
}

/* A file truncated half-way through its load (as `perf script > cur.perf`
 * run again does; FLAMEDIFF_TEST_CHANGE_WHILE_LOADING, flame-loader.c):
 * the error bar says so and the previous comparison stays, no SIGBUS. */
static void
test_file_truncated_while_loading (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *big = g_build_filename (dir, "truncated.folded", NULL);
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autoptr(GFile) fb = g_file_new_for_path (base);
  g_autoptr(GFile) fc = g_file_new_for_path (big);
  g_autofree char *files_before = NULL;
  g_autofree char *totals_before = NULL;
  FlameLayoutSource *source_before;
  const char *error;

  open_example ();
  files_before = g_strdup (gtk_label_get_text (window->summary_bar->files_label));
  totals_before = g_strdup (gtk_label_get_text (window->summary_bar->totals_label));
  source_before = window->source;

  flame_test_write_large_folded (big, 10 << 20);
  /* set and unset while no load runs: the worker thread reads it */
  g_setenv ("FLAMEDIFF_TEST_CHANGE_WHILE_LOADING", "truncate", TRUE);
  flame_window_open (window, fb, fc);
  wait_for_window (window);
  g_unsetenv ("FLAMEDIFF_TEST_CHANGE_WHILE_LOADING");

  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  error = gtk_label_get_text (window->error_label);
  g_test_message ("error banner: %s", error);
  g_assert_nonnull (strstr (error, "truncated.folded: the file got shorter (truncated) "
                                   "while it was being read"));
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==, files_before);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->totals_label), ==, totals_before);
  g_assert_true (window->source == source_before);

  g_unlink (big);
  g_rmdir (dir);
}

static void
test_normalize_toggle (void)
{
  g_autofree char *absolute = NULL;
  g_autofree char *normalize = NULL;

  /* absolute time by default (CPython 3.15.2), and the header says so */
  open_example ();
  normalize = g_settings_get_string (window->settings, "normalize");
  g_assert_cmpstr (normalize, ==, "absolute");
  g_assert_cmpint (flame_diff_get_options (window->diff)->normalize, ==, FLAME_NORMALIZE_ABSOLUTE);
  absolute = g_strdup (gtk_label_get_text (window->summary_bar->scale_label));
  g_assert_nonnull (strstr (absolute, "Absolute time"));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.normalize", NULL);
  wait_for_window (window);
  g_assert_cmpint (flame_diff_get_options (window->diff)->normalize, ==, FLAME_NORMALIZE_TOTAL);
  g_assert_nonnull (strstr (gtk_label_get_text (window->summary_bar->scale_label),
                            flame_test_decimal ("Baseline scaled ×1.00")));
  g_clear_pointer (&normalize, g_free);
  normalize = g_settings_get_string (window->settings, "normalize");
  g_assert_cmpstr (normalize, ==, "total");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.normalize", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->scale_label), ==, absolute);
  g_clear_pointer (&normalize, g_free);
  normalize = g_settings_get_string (window->settings, "normalize");
  g_assert_cmpstr (normalize, ==, "absolute");

  /* the older name of absolute time, from earlier settings */
  g_settings_set_string (window->settings, "normalize", "none");
  g_assert_false (window->normalize);
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
  flame_test_gui_wait_for (flame_graph_view_get_n_matches (window->graph_view) > 0);
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
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "current.folded → baseline.folded");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "current.folded → baseline.folded");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.swap", NULL);
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "baseline.folded → current.folded");
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
  g_autofree char *path = flame_test_example_path ("current.folded");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  FlameWindow *single = flame_window_new (ADW_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (single));
  flame_window_open_files (single, &file, 1);
  wait_for_window (single);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (single->main_stack), ==, "graph");
  g_assert_null (single->diff);
  g_assert_cmpint (flame_layout_source_get_view (single->source), ==, FLAME_VIEW_SINGLE);
  g_assert_cmpstr (gtk_label_get_text (single->summary_bar->files_label), ==, "current.folded");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (single->summary_bar->delta_label)));
  g_assert_false (gtk_widget_get_visible (single->sidebar_button));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (single->title_stack), ==, "title");
  gtk_window_destroy (GTK_WINDOW (single));
}

/* The state of win.sample-type, and the sample type of the current
 * side's profile */
static const char *
loaded_sample_type (FlameWindow *w)
{
  FlameProfile *p = flame_comparison_get_run_profile (w->comparison, FLAME_DIFF_CURRENT, 0);

  return flame_profile_get_sample_type (p);
}

/* A comparison of bytes or counts never speaks of time: the summary
 * bar's normalisation, the legend and its tooltip say @absolute
 * ("Absolute bytes") instead */
static void
assert_no_time (FlameWindow *w,
                const char  *absolute)
{
  const char *texts[] = {
    gtk_label_get_text (w->summary_bar->scale_label),
    flame_legend_get_summary (FLAME_LEGEND (w->legend)),
    flame_legend_get_summary_tooltip (FLAME_LEGEND (w->legend)),
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_test_message ("%s", texts[i]);
      g_assert_nonnull (texts[i]);
      g_assert_nonnull (strstr (texts[i], absolute));
      g_assert_false (g_regex_match_simple ("\\btimes?\\b", texts[i], G_REGEX_CASELESS, 0));
    }
}

/* Go heap profiles hold four sample types: the view menu lists them,
 * the file's default is loaded, choosing another reads both files again
 * with it, Reload keeps it, and other files start from their own */
static void
test_sample_type (void)
{
  g_autofree char *heap = g_test_build_filename (G_TEST_DIST, "data", "go", "go-heap.pb.gz", NULL);
  g_autofree char *more = g_test_build_filename (G_TEST_DIST, "data", "go", "go-heap-more.pb.gz",
                                                 NULL);
  g_autofree char *folded_b = flame_test_example_path ("baseline.folded");
  g_autofree char *folded_c = flame_test_example_path ("current.folded");
  g_autoptr(GFile) b = g_file_new_for_path (heap);
  g_autoptr(GFile) c = g_file_new_for_path (more);
  g_autoptr(GFile) fb = g_file_new_for_path (folded_b);
  g_autoptr(GFile) fc = g_file_new_for_path (folded_c);
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));
  g_autofree char *state = NULL;
  GMenuModel *section;

  gtk_window_present (GTK_WINDOW (w));
  flame_window_open (w, b, c);
  wait_for_window (w);
  g_assert_nonnull (w->diff);
  /* the file's default (pprof: the last type, inuse_space) */
  g_assert_cmpstr (loaded_sample_type (w), ==, "inuse_space/bytes");
  /* nothing elided: the title names the files instead of a lone
   * Differential toggle */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (w->elided_button)));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (w->title_stack), ==, "title");
  g_assert_cmpstr (adw_window_title_get_subtitle (w->window_title), ==, "Differential Flame Graph");
  g_object_get (w, "sample-type", &state, NULL);
  g_assert_cmpstr (state, ==, "inuse_space/bytes");
  g_assert_nonnull (
    strstr (gtk_label_get_text (w->summary_bar->scale_label), "Sample type: inuse_space (bytes)"));
  assert_no_time (w, "Absolute bytes");
  /* the view menu's first section: one item per type */
  section = g_menu_model_get_item_link (G_MENU_MODEL (w->view_menu), 0, G_MENU_LINK_SECTION);
  g_assert_true (section == G_MENU_MODEL (w->sample_type_section));
  g_object_unref (section);
  g_assert_cmpint (g_menu_model_get_n_items (G_MENU_MODEL (w->sample_type_section)), ==, 4);

  gtk_widget_activate_action (GTK_WIDGET (w), "win.sample-type", "s", "alloc_space/bytes");
  wait_for_window (w);
  g_assert_cmpstr (loaded_sample_type (w), ==, "alloc_space/bytes");
  g_assert_cmpstr (flame_profile_get_sample_type (
                     flame_comparison_get_run_profile (w->comparison, FLAME_DIFF_BASELINE, 0)),
                   ==, "alloc_space/bytes");
  g_assert_nonnull (
    strstr (gtk_label_get_text (w->summary_bar->scale_label), "alloc_space (bytes)"));

  gtk_widget_activate_action (GTK_WIDGET (w), "win.reload", NULL);
  wait_for_window (w);
  g_assert_cmpstr (loaded_sample_type (w), ==, "alloc_space/bytes");

  /* a count, not bytes */
  gtk_widget_activate_action (GTK_WIDGET (w), "win.sample-type", "s", "alloc_objects/count");
  wait_for_window (w);
  g_assert_cmpstr (loaded_sample_type (w), ==, "alloc_objects/count");
  g_assert_cmpint (flame_profile_get_unit (flame_comparison_get_run_profile (w->comparison,
                                           FLAME_DIFF_CURRENT, 0)), ==, FLAME_UNIT_COUNT);
  assert_no_time (w, "Absolute counts");

  /* folded stacks have one kind of value: no section, no sample type */
  flame_window_open (w, fb, fc);
  wait_for_window (w);
  g_assert_nonnull (w->diff);
  g_free (state);
  g_object_get (w, "sample-type", &state, NULL);
  g_assert_cmpstr (state, ==, "");
  g_assert_null (strstr (gtk_label_get_text (w->summary_bar->scale_label), "Sample type"));
  section = g_menu_model_get_item_link (G_MENU_MODEL (w->view_menu), 0, G_MENU_LINK_SECTION);
  g_assert_true (section != G_MENU_MODEL (w->sample_type_section));
  g_clear_object (&section);

  /* and the heap files again: their default, not what was chosen before */
  flame_window_open (w, b, c);
  wait_for_window (w);
  g_assert_cmpstr (loaded_sample_type (w), ==, "inuse_space/bytes");
  gtk_window_destroy (GTK_WINDOW (w));
}

/* A folder per side, as dropped (issue 14): each profile inside is one
 * run; the header counts them and Reload reads every run again */
static void
write_runs (const char *dir,
            const char *stack,
            guint       n)
{
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("run-%u.folded", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *text = g_strdup_printf ("main;parse 40\nmain;%s %u\n", stack, 60 + i);

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
    }
}

/* A Sysprof memprof capture: View ▸ Sample Type offers the live bytes
 * at the peak and the leaked bytes beside the allocations, and loads
 * them in bytes */
static void
test_sample_type_sysprof (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fuzz", "seeds", "sysprof",
                                                 "synthetic.syscap", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));
  FlameProfile *current;
  gboolean peak = FALSE, leaked = FALSE;
  GMenuModel *section = G_MENU_MODEL (NULL);

  gtk_window_present (GTK_WINDOW (w));
  flame_window_open (w, file, file);
  wait_for_window (w);
  g_assert_nonnull (w->diff);
  g_assert_cmpstr (loaded_sample_type (w), ==, "samples/count");
  section = G_MENU_MODEL (w->sample_type_section);
  g_assert_cmpint (g_menu_model_get_n_items (section), ==, 5);
  for (gint i = 0; i < g_menu_model_get_n_items (section); i++)
    {
      g_autofree char *label = NULL;

      g_assert_true (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s",
                                                      &label));
      peak |= g_strcmp0 (label, "peak (bytes)") == 0;
      leaked |= g_strcmp0 (label, "leaked (bytes)") == 0;
    }
  g_assert_true (peak && leaked);

  gtk_widget_activate_action (GTK_WIDGET (w), "win.sample-type", "s", "peak/bytes");
  wait_for_window (w);
  g_assert_cmpstr (loaded_sample_type (w), ==, "peak/bytes");
  current = flame_comparison_get_run_profile (w->comparison, FLAME_DIFF_CURRENT, 0);
  g_assert_cmpint (flame_profile_get_unit (current), ==, FLAME_UNIT_BYTES);
  /* the capture's block of 1000 bytes is replaced by one of 3000 at
   * its address, then freed: the peak is the 3000 */
  g_assert_cmpfloat (flame_profile_get_total_weight (current, 0), ==, 3000);
  g_assert_nonnull (
    strstr (gtk_label_get_text (w->summary_bar->scale_label), "Sample type: peak (bytes)"));

  gtk_widget_activate_action (GTK_WIDGET (w), "win.sample-type", "s", "leaked/bytes");
  wait_for_window (w);
  g_assert_cmpstr (loaded_sample_type (w), ==, "leaked/bytes");
  current = flame_comparison_get_run_profile (w->comparison, FLAME_DIFF_CURRENT, 0);
  g_assert_cmpfloat (flame_profile_get_total_weight (current, 0), ==, 0);
  gtk_window_destroy (GTK_WINDOW (w));
}

static void
test_open_folders (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("flamediff-runs-XXXXXX", NULL);
  g_autofree char *before = g_build_filename (tmp, "before", NULL);
  g_autofree char *after = g_build_filename (tmp, "after", NULL);
  GFile *folders[2];
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));

  write_runs (before, "work", 3);
  write_runs (after, "work", 4);
  /* the order dropped does not matter: "before" names the baseline */
  folders[0] = g_file_new_for_path (after);
  folders[1] = g_file_new_for_path (before);
  gtk_window_present (GTK_WINDOW (w));
  flame_window_open_files (w, folders, 2);
  wait_for_window (w);
  g_assert_false (gtk_revealer_get_reveal_child (w->error_revealer));
  g_assert_nonnull (w->diff);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 3);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 4);
  g_assert_cmpstr (gtk_label_get_text (w->summary_bar->files_label), ==,
                   "before (3 runs) → after (4 runs)");

  gtk_widget_activate_action (GTK_WIDGET (w), "win.reload", NULL);
  wait_for_window (w);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 3);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 4);

  /* one folder alone is not a comparison: said, and nothing changes */
  flame_window_open_files (w, folders, 1);
  g_assert_true (gtk_revealer_get_reveal_child (w->error_revealer));
  g_assert_false (flame_window_is_busy (w));
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 4);

  gtk_window_destroy (GTK_WINDOW (w));
  for (guint i = 0; i < 2; i++)
    g_object_unref (folders[i]);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("run-%u.folded", i);
      g_autofree char *b = g_build_filename (before, name, NULL);
      g_autofree char *c = g_build_filename (after, name, NULL);

      g_unlink (b);
      g_unlink (c);
    }
  g_rmdir (before);
  g_rmdir (after);
  g_rmdir (tmp);
}

static void remove_tree (const char *dir);

static GFile *
run_file (const char *dir,
          guint       i)
{
  g_autofree char *name = g_strdup_printf ("run-%u.folded", i);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return g_file_new_for_path (path);
}

/* Sets of files as sides (issue 14): several files dropped at once split
 * by their two folders or by their names; a set mixing a folder and
 * files; the Recent menu brings the sets back */
static void
test_open_run_sets (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("flamediff-sets-XXXXXX", NULL);
  g_autofree char *before = g_build_filename (tmp, "before", NULL);
  g_autofree char *after = g_build_filename (tmp, "after", NULL);
  g_autofree char *flat = g_build_filename (tmp, "flat", NULL);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) base_set = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) cur_set = g_ptr_array_new_with_free_func (g_object_unref);
  static const char *const named[] = { "new-1.folded", "base-1.folded", "new-2.folded",
                                       "base-2.folded", "new-3.folded" };
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));

  write_runs (before, "work", 3);
  write_runs (after, "work", 4);
  gtk_window_present (GTK_WINDOW (w));

  /* seven files from two folders, interleaved, current side first */
  for (guint i = 0; i < 4; i++)
    {
      g_ptr_array_add (files, run_file (after, i));
      if (i < 3)
        g_ptr_array_add (files, run_file (before, i));
    }
  flame_window_open_files (w, (GFile **) files->pdata, files->len);
  wait_for_window (w);
  g_assert_false (gtk_revealer_get_reveal_child (w->error_revealer));
  g_assert_nonnull (w->diff);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 3);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 4);
  g_assert_cmpstr (gtk_label_get_text (w->summary_bar->files_label), ==,
                   "before (3 runs) → after (4 runs)");

  /* as Open Repeated Runs hands them over: a folder, and two files */
  g_ptr_array_add (base_set, g_file_new_for_path (before));
  g_ptr_array_add (cur_set, run_file (after, 0));
  g_ptr_array_add (cur_set, run_file (after, 2));
  flame_window_open_runs (w, base_set, cur_set);
  wait_for_window (w);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 3);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 2);
  g_assert_cmpstr (gtk_label_get_text (w->summary_bar->files_label), ==,
                   "before (3 runs) → after (2 runs)");

  /* the Recent menu's first item is these sets */
  {
    GMenuModel *menu = G_MENU_MODEL (w->recent_menu);
    g_autofree char *label = NULL;
    g_autoptr(GVariant) target = NULL;

    /* the menu follows the recent files' "changed" */
    flame_test_gui_wait_for (menu_label_is (menu, 0, "before (3 runs) → after (2 runs)"));
    g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label));
    g_assert_cmpstr (label, ==, "before (3 runs) → after (2 runs)");
    target = g_menu_model_get_item_attribute_value (menu, 0, G_MENU_ATTRIBUTE_TARGET,
                                                    G_VARIANT_TYPE_STRING_ARRAY);
    g_assert_nonnull (target);
    flame_window_open_example (w);
    wait_for_window (w);
    g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 1);
    g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (w), "win.open-recent", target));
    wait_for_window (w);
    g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 3);
    g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 2);
    g_assert_cmpstr (gtk_label_get_text (w->summary_bar->files_label), ==,
                     "before (3 runs) → after (2 runs)");
  }

  /* one folder: the names tell the sides apart ("base" is a baseline word) */
  g_ptr_array_set_size (files, 0);
  g_assert_cmpint (g_mkdir_with_parents (flat, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    {
      g_autofree char *path = g_build_filename (flat, named[i], NULL);

      g_assert_true (g_file_set_contents (path, "main;work 10\n", -1, NULL));
      g_ptr_array_add (files, g_file_new_for_path (path));
    }
  flame_window_open_files (w, (GFile **) files->pdata, files->len);
  wait_for_window (w);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, 2);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, 3);
  {
    g_autofree char *first = g_file_get_basename (w->files[0]);

    g_assert_cmpstr (first, ==, "base-1.folded");
  }

  gtk_window_destroy (GTK_WINDOW (w));
  remove_tree (tmp);
}

/* The fill of frame @i of the graph, 2 px left of its right end, on
 * the graph's own picture */
static FlameRgb
graph_fill (FlameGraphView *view,
            guint32         node)
{
  g_autoptr(GdkTexture) texture = flame_graph_view_render_texture (view);
  gint i = flame_layout_find_node (_flame_graph_view_get_layout (view), node);
  graphene_rect_t r;
  int w, h, x, y;
  g_autofree guchar *data = NULL;
  guint32 v;

  g_assert_cmpint (i, >=, 0);
  g_assert_true (_flame_graph_view_frame_bounds (view, i, &r));
  w = gdk_texture_get_width (texture);
  h = gdk_texture_get_height (texture);
  x = (int) (r.origin.x + r.size.width) - 2;
  y = (int) (r.origin.y + r.size.height / 2);
  g_assert_true (x >= 0 && x < w && y >= 0 && y < h);
  data = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, data, (gsize) w * 4);
  v = *(const guint32 *) (data + (gsize) y * w * 4 + (gsize) x * 4);
  return (FlameRgb) { (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };
}

static gboolean
rgb_equal (FlameRgb a,
           FlameRgb b)
{
  return a.r == b.r && a.g == b.g && a.b == b.b;
}

/* Two folders of 5 generated runs each (tests/flame-test-runs.h): fn_07
 * really regressed and is drawn red; fn_noisy's means differ by more
 * than the colour threshold but within the runs' spread, and it is drawn
 * grey; hovering it shows each side's mean ± SD per run (recomputed here
 * from the generated values) and "not significant". */
static void
test_runs_graph (void)
{
  const guint n_runs = 5;
  g_autoptr(GRand) rand = g_rand_new_with_seed (2014);
  g_autofree gdouble *values = g_new0 (gdouble, 2 * n_runs * (N_FUNCTIONS + 1));
  g_autofree char *tmp = g_dir_make_tmp ("flamediff-runs-XXXXXX", NULL);
  g_autofree char *base = g_build_filename (tmp, "baseline", NULL);
  g_autofree char *cur = g_build_filename (tmp, "current", NULL);
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));
  const FlamePalette *palette;
  GFile *folders[2];
  guint32 noisy, up;
  gdouble mb, sb, mc, sc, x, y;
  g_autofree char *tip = NULL;

  write_noisy_data_set (rand, tmp, n_runs, values);
  welch_t_of (values, n_runs, NOISY_FUNCTION, &mb, &sb, &mc, &sc);
  folders[0] = g_file_new_for_path (base);
  folders[1] = g_file_new_for_path (cur);
  gtk_window_set_default_size (GTK_WINDOW (w), 1400, 800);
  gtk_window_present (GTK_WINDOW (w));
  flame_window_open_files (w, folders, 2);
  wait_for_window (w);
  g_assert_false (gtk_revealer_get_reveal_child (w->error_revealer));
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_BASELINE), ==, n_runs);
  g_assert_cmpuint (flame_comparison_get_n_runs (w->comparison, FLAME_DIFF_CURRENT), ==, n_runs);

  noisy = flame_layout_source_find (w->source, "main;work;fn_noisy");
  up = flame_layout_source_find (w->source, "main;work;fn_07");
  g_assert_cmpuint (noisy, !=, FLAME_TREE_NONE);
  palette = flame_graph_view_get_palette (w->graph_view);
  g_assert_true (
    rgb_equal (graph_fill (w->graph_view, noisy), palette->fill[FLAME_CHANGE_NEUTRAL]));
  {
    FlameRgb c = graph_fill (w->graph_view, up);
    gboolean red = FALSE;

    for (FlameChange k = FLAME_CHANGE_REGRESSION_DEEP; k <= FLAME_CHANGE_REGRESSION_VERY_LIGHT; k++)
      red |= rgb_equal (c, palette->fill[k]);
    g_assert_true (red);
  }

  {
    gint i = flame_layout_find_node (_flame_graph_view_get_layout (w->graph_view), noisy);
    graphene_rect_t r;
    char b1[64], b2[64];
    g_autofree char *want = NULL;

    g_assert_true (_flame_graph_view_frame_bounds (w->graph_view, i, &r));
    x = r.origin.x + r.size.width / 2;
    y = r.origin.y + r.size.height / 2;
    tip = _flame_graph_view_tooltip_text_at (w->graph_view, x, y);
    g_assert_nonnull (tip);
    g_test_message ("%s", tip);
    want = g_strdup_printf ("Current self per run: %s ms ± %s ms (SD, 5 runs)",
                            flame_test_decimal (g_ascii_formatd (b1, sizeof b1, "%.2f", mc)),
                            flame_test_decimal (g_ascii_formatd (b2, sizeof b2, "%.2f", sc)));
    g_assert_nonnull (strstr (tip, want));
    g_free (want);
    want = g_strdup_printf ("Baseline self per run: %s ms ± %s ms (SD, 5 runs)",
                            flame_test_decimal (g_ascii_formatd (b1, sizeof b1, "%.2f", mb)),
                            flame_test_decimal (g_ascii_formatd (b2, sizeof b2, "%.2f", sb)));
    g_assert_nonnull (strstr (tip, want));
    g_assert_true (g_str_has_suffix (tip, "): not significant"));
    _flame_graph_view_hover (w->graph_view, x, y);
  }
  {
    g_autoptr(GdkTexture) texture = render_window (w);

    save_screenshot (texture, "runs.png");
  }
  _flame_graph_view_hover (w->graph_view, -1, -1);

  gtk_window_destroy (GTK_WINDOW (w));
  for (guint i = 0; i < 2; i++)
    g_object_unref (folders[i]);
  remove_data_set (tmp, n_runs);
}

/* A recording of the example with the given build-ids, in a temp dir */
static GFile *
recording_with_build_ids (const char *example_name,
                          const char *build_ids)
{
  g_autofree char *src = flame_test_example_path (example_name);
  g_autoptr(FlameProfile) p = flame_load_file (src, NULL, NULL, NULL, NULL);
  g_autoptr(GString) json = g_string_new (NULL);
  g_autofree char *name = g_strconcat (example_name, ".speedscope.json", NULL);
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), name, NULL);

  g_assert_nonnull (p);
  flame_profile_set_metadata (p, "build_ids", build_ids);
  g_assert_true (flame_speedscope_write (p, json, NULL));
  g_assert_true (g_file_set_contents (path, json->str, json->len, NULL));
  return g_file_new_for_path (path);
}

/* Two recordings of a rebuilt program: the summary says which binary
 * changed, with both build-ids in the tooltip; the example pair (no
 * build-ids) says nothing */
static void
test_binary_changed (void)
{
  g_autoptr(GFile) b =
    recording_with_build_ids ("baseline.folded",
                              "/lib/libc.so.6=aaaa;/usr/bin/imgconv=1a2b3c4d5e6f");
  g_autoptr(GFile) c =
    recording_with_build_ids ("current.folded",
                              "/lib/libc.so.6=aaaa;/usr/bin/imgconv=3c4d5e6f7a8b");
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));
  g_autoptr(GdkTexture) texture = NULL;
  const char *tip;

  gtk_window_present (GTK_WINDOW (w));
  flame_window_open (w, b, c);
  wait_for_window (w);
  g_assert_nonnull (w->diff);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (w->summary_bar->binaries_label)));
  g_assert_cmpstr (gtk_label_get_text (w->summary_bar->binaries_label), ==,
                   "Binary changed: imgconv");
  tip = gtk_widget_get_tooltip_text (GTK_WIDGET (w->summary_bar->binaries_label));
  g_assert_cmpstr (tip, ==, "imgconv: build-id 1a2b3c4d… → 3c4d5e6f… (rebuilt)");
  texture = render_window (w);
  save_screenshot (texture, "binary-changed.png");

  flame_window_open_example (w);
  wait_for_window (w);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (w->summary_bar->binaries_label)));
  gtk_window_destroy (GTK_WINDOW (w));
}

/* Real CPython files of one run seen from two checkouts
 * (tests/data/cpython): the window matches them like the run from the
 * same checkout; Preferences ▸ Exact File Paths matches full paths only. */
static guint
elided_stacks_of (const char *cur,
                  gboolean    exact)
{
  g_autofree char *b = g_test_build_filename (G_TEST_DIST, "data", "cpython", "base.bin", NULL);
  g_autofree char *c = g_test_build_filename (G_TEST_DIST, "data", "cpython", cur, NULL);
  g_autoptr(FlameProfile) pb = flame_load_file (b, NULL, NULL, NULL, NULL);
  g_autoptr(FlameProfile) pc = flame_load_file (c, NULL, NULL, NULL, NULL);
  g_autoptr(FlameDiff) diff = NULL;
  FlameDiffOptions dopts;

  flame_diff_options_init (&dopts);
  dopts.exact_paths = exact;
  diff = flame_diff_new (pb, pc, &dopts, NULL, NULL);
  g_assert_nonnull (diff);
  return flame_diff_get_elided_stacks (diff);
}

static void
test_checkouts (void)
{
  g_autofree char *b = g_test_build_filename (G_TEST_DIST, "data", "cpython", "base.bin", NULL);
  g_autofree char *c = g_test_build_filename (G_TEST_DIST, "data", "cpython", "cur-moved.bin",
                                              NULL);
  g_autoptr(GFile) fb = g_file_new_for_path (b);
  g_autoptr(GFile) fc = g_file_new_for_path (c);
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));
  guint same = elided_stacks_of ("cur.bin", FALSE);
  guint exact = elided_stacks_of ("cur-moved.bin", TRUE);

  g_assert_cmpuint (same, <, exact);
  gtk_window_present (GTK_WINDOW (w));
  flame_window_open (w, fb, fc);
  wait_for_window (w);
  g_assert_nonnull (w->diff);
  g_assert_cmpuint (flame_diff_get_elided_stacks (w->diff), ==, same);

  g_settings_set_boolean (w->settings, "exact-paths", TRUE);
  flame_test_gui_wait_for (!flame_window_is_busy (w) && w->diff != NULL &&
                           flame_diff_get_options (w->diff)->exact_paths);
  wait_for_window (w);
  g_assert_true (flame_diff_get_options (w->diff)->exact_paths);
  g_assert_cmpuint (flame_diff_get_elided_stacks (w->diff), ==, exact);
  g_settings_reset (w->settings, "exact-paths");
  flame_test_gui_wait_for (!flame_window_is_busy (w) && w->diff != NULL &&
                           !flame_diff_get_options (w->diff)->exact_paths);
  wait_for_window (w);
  gtk_window_destroy (GTK_WINDOW (w));
}

/* A spool as a killed recorder leaves it: the magic and the header, no
 * samples yet (enough for a valid, empty recording) */
static char *
write_spool (const char *dir,
             const char *name)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *output = g_build_filename (dir, name, NULL);
  g_autofree char *header = NULL;
  const char *argv[] = { "/usr/bin/imgconv", "in.png", NULL };
  GString *spool = g_string_new ("FLAMESPOOL1\n");
  char *path = g_strconcat (output, ".spool", NULL);
  gsize len;
  guint32 n;

  g_key_file_set_string_list (kf, "recording", "argv", argv, 2);
  g_key_file_set_string (kf, "recording", "cwd", "/tmp");
  g_key_file_set_integer (kf, "recording", "hz", 999);
  g_key_file_set_string (kf, "recording", "start-time", "2026-01-02T03:04:05Z");
  g_key_file_set_int64 (kf, "recording", "start-realtime-us", g_get_real_time ());
  g_key_file_set_string (kf, "recording", "output", "/nonexistent/elsewhere.json");
  header = g_key_file_to_data (kf, &len, NULL);
  n = len;
  g_string_append_len (spool, (const char *) &n, 4);
  g_string_append_len (spool, header, len);
  g_assert_true (g_file_set_contents (path, spool->str, spool->len, NULL));
  g_string_free (spool, TRUE);
  return path;
}

/* A spool in the recordings folder when a window opens: the banner
 * offers to recover it; Recover writes the recording next to it (where
 * Record and Diff lists earlier recordings) and removes the spool */
static void
test_recover_banner (void)
{
  g_autofree char *dir = flame_recorder_default_dir ();
  g_autofree char *spool = NULL;
  g_autofree char *output = NULL;
  g_autofree char *contents = NULL;
  FlameWindow *w;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  spool = write_spool (dir, "imgconv-interrupted.speedscope.json");
  output = g_strndup (spool, strlen (spool) - strlen (".spool"));

  w = flame_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (w));
  flame_test_gui_wait_for (gtk_revealer_get_reveal_child (w->recover_revealer));
  g_assert_nonnull (strstr (gtk_label_get_text (w->recover_label), "interrupted"));
  {
    g_autoptr(GdkTexture) texture = render_window (w);

    save_screenshot (texture, "recover-banner.png");
  }

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (w), "win.recover-recordings", NULL));
  flame_test_gui_wait_for (!w->recovering);
  g_assert_false (gtk_revealer_get_reveal_child (w->recover_revealer));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (w->error_revealer)) &&
                  gtk_revealer_get_reveal_child (w->error_revealer));
  g_assert_false (g_file_test (spool, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (output, &contents, NULL, NULL));
  g_assert_true (
    g_str_has_prefix (contents,
                      "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
  g_assert_nonnull (strstr (contents, "recovered from the spool"));
  g_assert_nonnull (strstr (contents, "/usr/bin/imgconv in.png"));

  /* nothing left: a new window offers nothing */
  g_assert_cmpuint (flame_window_check_interrupted_recordings (w), ==, 0);
  g_assert_false (gtk_revealer_get_reveal_child (w->recover_revealer));
  gtk_window_destroy (GTK_WINDOW (w));
  g_unlink (output);
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

/* The first widget under @root (depth first) with both CSS classes */
static GtkWidget *
find_with_classes (GtkWidget  *root,
                   const char *a,
                   const char *b)
{
  if (gtk_widget_has_css_class (root, a) && gtk_widget_has_css_class (root, b))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_with_classes (c, a, b);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The text colour of a status pill (style.css, and style-dark.css over
 * it while dark), as 0xRRGGBB */
static guint32
status_pill_colour (GtkWidget *label)
{
  GdkRGBA c;

#if GTK_CHECK_VERSION(4, 10, 0)
  gtk_widget_get_color (label, &c);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (label), &c);
#endif
  return ((guint32) (c.red * 255 + .5) << 16) | ((guint32) (c.green * 255 + .5) << 8) |
         (guint32) (c.blue * 255 + .5);
}

static void
test_dark (void)
{
  AdwStyleManager *sm = adw_style_manager_get_default ();
  g_autoptr(GdkTexture) texture = NULL;
  GtkWidget *pill;

  open_example ();
  /* a "New" pill of the changes panel */
  pill = find_with_classes (GTK_WIDGET (window), "flame-status", "new");
  g_assert_nonnull (pill);
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_FORCE_LIGHT);
  flame_test_gui_wait_for (status_pill_colour (pill) == 0x7e57c2);
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_FORCE_DARK);
  flame_test_gui_wait_for (status_pill_colour (pill) == 0xd1c4e9);   /* style-dark.css */
  flame_test_gui_wait_for (adw_style_manager_get_dark (sm));
  texture = render_window (window);
  save_screenshot (texture, "dark.png");
  g_assert_cmpuint (count_colour (texture, 0xbdbdbd), <, 300);  /* the light neutral: text only */
  g_assert_cmpuint (count_colour (texture, 0x757575), >, 1000); /* the dark neutral */
  g_assert_cmpuint (count_colour (texture, 0xb39ddb), >, 20);   /* the dark "new" */
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_DEFAULT);
  flame_test_gui_wait_for (status_pill_colour (pill) == 0x7e57c2);
}

/* a copy of an example under another name, in @dir */
static GFile *
copy_example (const char *dir,
              const char *name,
              const char *as)
{
  g_autofree char *src = flame_test_example_path (name);
  g_autofree char *dst = g_build_filename (dir, as, NULL);
  g_autofree char *text = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (src, &text, &len, NULL));
  g_assert_true (g_file_set_contents (dst, text, len, NULL));
  return g_file_new_for_path (dst);
}

static void
remove_tree (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        remove_tree (path);
      else
        g_unlink (path);
    }
  g_dir_close (d);
  g_rmdir (dir);
}

static GtkDropTarget *
find_drop_target (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (c))
        return GTK_DROP_TARGET (c);
    }
  return NULL;
}

/* Two files dropped on the window (the current one first): the drop
 * target's "drop" handler orders them by name and opens the pair. */
static void
test_drop_two_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-drop-XXXXXX", NULL);
  g_autoptr(GFile) after = copy_example (dir, "current.folded", "after.folded");
  g_autoptr(GFile) before = copy_example (dir, "baseline.folded", "before.folded");
  GFile *dropped[] = { after, before };
  FlameWindow *fresh = flame_window_new (ADW_APPLICATION (app));
  GtkDropTarget *target;
  GValue value = G_VALUE_INIT;
  gboolean accepted = FALSE;

  gtk_window_present (GTK_WINDOW (fresh));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (fresh));
  target = find_drop_target (GTK_WIDGET (fresh->main_stack));
  g_assert_nonnull (target);
  g_assert_true (gdk_content_formats_contain_gtype (gtk_drop_target_get_formats (target),
                                                    GDK_TYPE_FILE_LIST));

  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_array (dropped, G_N_ELEMENTS (dropped)));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &accepted);
  g_value_unset (&value);
  g_assert_true (accepted);
  wait_for_window (fresh);

  g_assert_cmpstr (gtk_stack_get_visible_child_name (fresh->main_stack), ==, "graph");
  g_assert_cmpstr (gtk_label_get_text (fresh->summary_bar->files_label), ==,
                   "before.folded → after.folded");
  g_assert_true (g_file_equal (fresh->files[0], before));
  g_assert_true (g_file_equal (fresh->files[1], after));
  g_assert_nonnull (fresh->diff);

  /* a drop of something else is refused and changes nothing */
  g_value_init (&value, G_TYPE_STRING);
  g_value_set_string (&value, "not files");
  accepted = TRUE;
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &accepted);
  g_value_unset (&value);
  g_assert_false (accepted);

  gtk_window_destroy (GTK_WINDOW (fresh));
  remove_tree (dir);
}

/* Closing a window whose changes panel has a row selected: the panel's
 * models outlive the window's dispose for a moment and must not call back
 * into it (criticals are fatal under gtk_test_init) */
static void
test_close_with_selected_change (void)
{
  FlameWindow *other = flame_window_new (ADW_APPLICATION (app));
  GtkWidget *weak = GTK_WIDGET (other);

  g_object_add_weak_pointer (G_OBJECT (other), (gpointer *) &weak);
  gtk_window_present (GTK_WINDOW (other));
  flame_window_open_example (other);
  wait_for_window (other);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (other->changes_panel->selection)), >,
                    2);
  /* sorted by name, the selected row is not where it is unsorted: when
   * the column view drops its columns (and so its sort), the selection
   * moves and says so */
  {
    GListModel *columns = gtk_column_view_get_columns (other->changes_panel->changes_view);
    g_autoptr(GtkColumnViewColumn) name = g_list_model_get_item (columns, 0);

    gtk_column_view_sort_by_column (other->changes_panel->changes_view, name, GTK_SORT_DESCENDING);
  }
  gtk_single_selection_set_selected (other->changes_panel->selection, 1);
  g_assert_nonnull (gtk_single_selection_get_selected_item (other->changes_panel->selection));
  /* the graph zoomed to it */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (other));

  gtk_window_close (GTK_WINDOW (other));
  flame_test_gui_wait_for (weak == NULL);
}

static void
wait_for_exports (FlameWindow *self)
{
  flame_test_gui_wait_for (self->n_exports == 0);
}

typedef struct
{
  guint n_rects;
  guint n_regression_fills;
  gboolean names_convolve_row;
  gboolean root_is_svg;
  guint depth;
} SvgStats;

static void
svg_start (GMarkupParseContext *context,
           const char          *element,
           const char         **names,
           const char         **values,
           gpointer             user_data,
           GError             **error)
{
  SvgStats *st = user_data;

  if (st->depth++ == 0)
    st->root_is_svg = g_str_equal (element, "svg");
  if (g_str_equal (element, "rect"))
    st->n_rects++;
  for (guint i = 0; names[i]; i++)
    if (g_str_equal (names[i], "fill") && g_ascii_strcasecmp (values[i], "#e57373") == 0)
      st->n_regression_fills++;
}

static void
svg_end (GMarkupParseContext *context,
         const char          *element,
         gpointer             user_data,
         GError             **error)
{
  ((SvgStats *) user_data)->depth--;
}

static void
svg_text (GMarkupParseContext *context,
          const char          *text,
          gsize                len,
          gpointer             user_data,
          GError             **error)
{
  if (g_strstr_len (text, len, "convolve_row") != NULL)
    ((SvgStats *) user_data)->names_convolve_row = TRUE;
}

/* File ▸ Export Image: the dialog's response exports the current view;
 * PNG as wide as the graph with the diff colours, SVG well-formed with
 * the frames, their names and colours. */
static void
test_export (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-export-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "view.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "view.svg", NULL);
  g_autoptr(GFile) png_file = g_file_new_for_path (png);
  g_autoptr(GFile) svg_file = g_file_new_for_path (svg);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len;
  int graph_width;
  SvgStats st = { 0 };
  GMarkupParser parser = { svg_start, svg_end, svg_text, NULL, NULL };
  GMarkupParseContext *ctx;

  open_example ();
  g_assert_true (gtk_widget_is_visible (GTK_WIDGET (window->graph_view)));
  graph_width = gtk_widget_get_width (GTK_WIDGET (window->graph_view));
  g_assert_cmpint (graph_width, >, 0);

  _flame_window_export (window, png_file);
  _flame_window_export (window, svg_file);
  wait_for_exports (window);
  g_assert_false (gtk_revealer_get_reveal_child (window->error_revealer));

  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, MAX (graph_width, 800));
  /* the graph's rows and the export's legend lines: taller than the graph alone */
  g_assert_cmpint (gdk_texture_get_height (texture), >, 6 * 17);
  g_assert_cmpuint (count_colour (texture, 0xe57373), >, 100);  /* medium regression */
  g_assert_cmpuint (count_colour (texture, 0x9575cd), >, 20);   /* new */
  g_assert_cmpuint (count_colour (texture, 0xbdbdbd), >, 1000); /* neutral */

  g_assert_true (g_file_get_contents (svg, &text, &len, NULL));
  ctx = g_markup_parse_context_new (&parser, 0, &st, NULL);
  g_assert_true (g_markup_parse_context_parse (ctx, text, len, &error));
  g_assert_true (g_markup_parse_context_end_parse (ctx, &error));
  g_assert_no_error (error);
  g_markup_parse_context_free (ctx);
  g_assert_true (st.root_is_svg);
  g_assert_cmpuint (st.n_rects, >, 10);
  g_assert_cmpuint (st.n_regression_fills, >, 0);
  g_assert_true (st.names_convolve_row);

  remove_tree (dir);
}

/* The error bar of a file that is gone, and of one without read
 * permission: a plain sentence naming the file, then the system's own
 * words (from strerror here) as a second line. */
static void
check_open_error (GFile      *missing_or_locked,
                  const char *sentence,
                  int         errnum)
{
  g_autofree char *base = flame_test_example_path ("baseline.folded");
  g_autoptr(GFile) fb = g_file_new_for_path (base);
  g_autofree char *path = g_file_get_path (missing_or_locked);
  g_autofree char *detail = g_strdup_printf ("%s: %s", path, g_strerror (errnum));
  g_auto(GStrv) lines = NULL;

  flame_window_open (window, fb, missing_or_locked);
  wait_for_window (window);
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  lines = g_strsplit (gtk_label_get_text (window->error_label), "\n", -1);
  g_test_message ("error banner: %s | %s", lines[0], lines[1]);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  g_assert_cmpstr (lines[0], ==, sentence);
  g_assert_cmpstr (lines[1], ==, detail);
  gtk_revealer_set_reveal_child (window->error_revealer, FALSE);
}

static void
test_error_text (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *gone = g_build_filename (dir, "gone.folded", NULL);
  g_autoptr(GFile) fg = g_file_new_for_path (gone);

  open_example ();
  check_open_error (fg, "There is no file “gone.folded”. "
                        "It may have been moved, renamed or deleted.", ENOENT);

  if (geteuid () == 0)
    g_test_message ("running as root, which reads any file: no permission test");
  else
    {
      g_autoptr(GFile) fl = copy_example (dir, "current.folded", "locked.folded");
      g_autofree char *locked = g_file_get_path (fl);

      g_assert_cmpint (g_chmod (locked, 0), ==, 0);
      check_open_error (fl, "Flamediff cannot access “locked.folded”: permission denied. "
                            "Check the file’s permissions.", EACCES);
      g_assert_cmpint (g_remove (locked), ==, 0);
    }
  open_example ();
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static GtkRecentInfo *
lookup_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);

  return gtk_recent_manager_lookup_item (gtk_recent_manager_get_default (), uri, NULL);
}

/* whether the recent files have @file, in @group */
static gboolean
recent_has (GFile      *file,
            const char *group)
{
  GtkRecentInfo *info = lookup_recent (file);
  gboolean has = info != NULL && gtk_recent_info_has_group (info, group);

  g_clear_pointer (&info, gtk_recent_info_unref);
  return has;
}

/* Opening a pair records both files; the current file's entry names its
 * baseline, and the Recent menu's item reopens the pair. */
static void
test_recent (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-recent-XXXXXX", NULL);
  g_autoptr(GFile) base = copy_example (dir, "baseline.folded", "recent-base.folded");
  g_autoptr(GFile) cur = copy_example (dir, "current.folded", "recent-cur.folded");
  g_autofree char *base_uri = g_file_get_uri (base);
  g_autofree char *group = g_strconcat ("flamediff-baseline:", base_uri, NULL);
  g_autofree char *xbel = g_build_filename (g_get_user_data_dir (), "recently-used.xbel", NULL);
  GtkRecentInfo *info;
  GMenuModel *menu;
  GVariant *target = NULL;

  /* the test's own recent-files store, not the user's */
  g_assert_true (g_str_has_prefix (g_get_user_data_dir (), g_get_tmp_dir ()));

  flame_window_open (window, base, cur);
  wait_for_window (window);
  flame_test_gui_wait_for (recent_has (cur, group) && recent_has (base, "flamediff"));

  info = lookup_recent (cur);
  g_assert_nonnull (info);
  g_assert_true (gtk_recent_info_has_group (info, "flamediff"));
  g_assert_true (gtk_recent_info_has_group (info, group));
  gtk_recent_info_unref (info);
  info = lookup_recent (base);
  g_assert_nonnull (info);
  gtk_recent_info_unref (info);
  g_assert_true (g_file_test (xbel, G_FILE_TEST_EXISTS));

  /* the Recent submenu lists the pair first, as "baseline → current"
   * (rebuilt from an idle after the recent files change) */
  menu = G_MENU_MODEL (window->recent_menu);
  flame_test_gui_wait_for (menu_label_is (menu, 0, "recent-base.folded → recent-cur.folded"));
  {
    g_autofree char *label = NULL;
    g_autofree char *action = NULL;

    g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label));
    g_assert_cmpstr (label, ==, "recent-base.folded → recent-cur.folded");
    g_assert_true (
      g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr (action, ==, "win.open-recent");
    target = g_menu_model_get_item_attribute_value (menu, 0, G_MENU_ATTRIBUTE_TARGET,
                                                    G_VARIANT_TYPE_STRING_ARRAY);
    g_assert_nonnull (target);
  }

  /* something else, then the menu item brings the pair back */
  open_example ();
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "baseline.folded → current.folded");
  g_assert_true (
    gtk_widget_activate_action_variant (GTK_WIDGET (window), "win.open-recent", target));
  wait_for_window (window);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "recent-base.folded → recent-cur.folded");
  g_assert_true (g_file_equal (window->files[0], base));
  g_assert_true (g_file_equal (window->files[1], cur));
  g_variant_unref (target);

  /* the same pair of names in two folders: each item names its folder */
  {
    g_autofree char *da = g_build_filename (dir, "proj-a", NULL);
    g_autofree char *db = g_build_filename (dir, "proj-b", NULL);
    g_autoptr(GFile) ab = NULL, ac = NULL, bb = NULL, bc = NULL;
    g_autofree char *want_a = NULL;
    g_autofree char *want_b = NULL;
    g_autofree char *label0 = NULL;
    g_autofree char *label1 = NULL;
    g_autofree char *bb_path = NULL;
    GtkRecentInfo *gone;

    g_assert_cmpint (g_mkdir (da, 0700), ==, 0);
    g_assert_cmpint (g_mkdir (db, 0700), ==, 0);
    ab = copy_example (da, "baseline.folded", "before.folded");
    ac = copy_example (da, "current.folded", "after.folded");
    bb = copy_example (db, "baseline.folded", "before.folded");
    bc = copy_example (db, "current.folded", "after.folded");
    flame_window_open (window, ab, ac);
    wait_for_window (window);
    flame_window_open (window, bb, bc);
    wait_for_window (window);
    /* the folders are under /tmp, not the home folder: written in full */
    want_a = g_strdup_printf ("before.folded → after.folded — in %s", da);
    want_b = g_strdup_printf ("before.folded → after.folded — in %s", db);
    flame_test_gui_wait_for (menu_label_is (menu, 0, want_b) && menu_label_is (menu, 1, want_a));
    g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label0));
    g_assert_true (g_menu_model_get_item_attribute (menu, 1, G_MENU_ATTRIBUTE_LABEL, "s", &label1));
    g_assert_cmpstr (label0, ==, want_b);
    g_assert_cmpstr (label1, ==, want_a);

    /* proj-b's baseline deleted: its entry leaves the menu and the
     * recent files, and proj-a's needs no folder any more */
    bb_path = g_file_get_path (bb);
    g_assert_cmpint (g_remove (bb_path), ==, 0);
    _flame_window_rebuild_recent_menu (window);
    flame_test_gui_wait_for (menu_label_is (menu, 0, "before.folded → after.folded"));
    g_clear_pointer (&label0, g_free);
    g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label0));
    g_assert_cmpstr (label0, ==, "before.folded → after.folded");
    for (gint i = 1; i < g_menu_model_get_n_items (menu); i++)
      {
        g_autofree char *label = NULL;

        g_assert_true (
          g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
        g_assert_cmpstr (label, !=, "before.folded → after.folded");
        g_assert_null (strstr (label, "proj-b"));
      }
    gone = lookup_recent (bc);
    g_assert_null (gone);
  }

  /* one file on both sides: it opens, and the bar says why nothing differs */
  flame_window_open (window, base, base);
  wait_for_window (window);
  g_assert_true (g_file_equal (window->files[0], base));
  g_assert_true (g_file_equal (window->files[1], base));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "graph");
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_cmpstr (gtk_label_get_text (window->error_label), ==,
                   "“recent-base.folded” is both the baseline and the current profile, "
                   "so nothing can differ. Open another file for one side.");
  gtk_revealer_set_reveal_child (window->error_revealer, FALSE);

  open_example ();
  remove_tree (dir);
}

/* A profile rewritten on disk: the file monitor reveals the bar, and
 * Reload reads the new contents and hides it. */
static void
test_file_changed_bar (void)
{
  g_autofree char *dir = g_dir_make_tmp ("flamediff-changed-XXXXXX", NULL);
  g_autoptr(GFile) base = copy_example (dir, "baseline.folded", "baseline.folded");
  g_autoptr(GFile) cur = copy_example (dir, "current.folded", "current.folded");
  g_autofree char *cur_path = g_file_get_path (cur);
  g_autofree char *text = NULL;
  g_autoptr(GString) grown = NULL;
  gdouble total_before;

  flame_window_open (window, base, cur);
  wait_for_window (window);
  g_assert_false (gtk_revealer_get_reveal_child (window->changed_revealer));
  total_before = flame_diff_get_total_ms (window->diff, FLAME_DIFF_CURRENT);

  /* 500 more samples of a new path */
  g_assert_true (g_file_get_contents (cur_path, &text, NULL, NULL));
  grown = g_string_new (text);
  g_string_append (grown, "imgconv;main;rewritten_hot_path 500\n");
  g_assert_true (g_file_set_contents (cur_path, grown->str, grown->len, NULL));

  flame_test_gui_wait_for (gtk_revealer_get_reveal_child (window->changed_revealer));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload", NULL);
  wait_for_window (window);
  g_assert_false (gtk_revealer_get_reveal_child (window->changed_revealer));
  g_assert_cmpfloat_with_epsilon (flame_diff_get_total_ms (window->diff, FLAME_DIFF_CURRENT),
                                  total_before + 500, 0.001);

  open_example ();
  remove_tree (dir);
}

/* the Preferences' page where it shows: in an AdwPreferencesDialog over
 * a window (libadwaita >= 1.5) or in an AdwPreferencesWindow */
static FlamePreferencesPage *
find_preferences (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* (transfer none) */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      GtkWidget *page = flame_test_gui_find_descendant (w, FLAME_TYPE_PREFERENCES_PAGE);

      if (page != NULL && gtk_widget_get_visible (w))
        return FLAME_PREFERENCES_PAGE (page);
    }
  return NULL;
}

/* app.preferences opens the window; its rows change the graph: the style
 * row its palette, the orientation row where the roots are. */
static void
test_preferences (void)
{
  FlamePreferencesPage *prefs;
  GtkWidget *container;
  AdwComboRow *theme_row, *orientation_row;

  open_example ();
  g_assert_null (find_preferences ());
  g_action_group_activate_action (G_ACTION_GROUP (app), "preferences", NULL);
  flame_test_gui_wait_for (find_preferences () != NULL);
  prefs = find_preferences ();
  g_assert_nonnull (prefs);
#if ADW_CHECK_VERSION(1, 5, 0)
  /* an AdwDialog over the window, not a window of its own */
  container = gtk_widget_get_ancestor (GTK_WIDGET (prefs), ADW_TYPE_PREFERENCES_DIALOG);
  g_assert_nonnull (container);
  g_assert_true (gtk_widget_get_root (container) == GTK_ROOT (window));
#else
  container = gtk_widget_get_ancestor (GTK_WIDGET (prefs), ADW_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (container);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (container)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (container)) == GTK_WINDOW (window));
#endif

  theme_row = ADW_COMBO_ROW (
    gtk_widget_get_template_child (GTK_WIDGET (prefs), FLAME_TYPE_PREFERENCES_PAGE, "theme_row"));
  orientation_row = ADW_COMBO_ROW (gtk_widget_get_template_child (GTK_WIDGET (prefs),
                                                                  FLAME_TYPE_PREFERENCES_PAGE,
                                                                  "orientation_row"));
  g_assert_nonnull (theme_row);
  g_assert_nonnull (orientation_row);

  g_assert_cmpint (flame_graph_view_get_palette_style (window->graph_view), ==,
                   FLAME_GRAPH_PALETTE_AUTO);
  adw_combo_row_set_selected (theme_row, 3);    /* High Contrast */
  flame_test_gui_wait_for (flame_graph_view_get_palette_style (window->graph_view) ==
                           FLAME_GRAPH_PALETTE_HIGH_CONTRAST);
  g_assert_cmpstr (g_settings_get_string (window->settings, "theme"), ==, "high-contrast");
  g_assert_cmpint (flame_graph_view_get_palette_style (window->graph_view), ==,
                   FLAME_GRAPH_PALETTE_HIGH_CONTRAST);
  g_assert_true (flame_graph_view_get_palette (window->graph_view)->borders);
  adw_combo_row_set_selected (theme_row, 0);    /* Follow the System */
  flame_test_gui_wait_for (flame_graph_view_get_palette_style (window->graph_view) ==
                           FLAME_GRAPH_PALETTE_AUTO);
  g_assert_cmpint (flame_graph_view_get_palette_style (window->graph_view), ==,
                   FLAME_GRAPH_PALETTE_AUTO);

  g_assert_cmpint (flame_graph_view_get_orientation (window->graph_view), ==,
                   FLAME_ORIENTATION_FLAME);
  adw_combo_row_set_selected (orientation_row, 1);    /* Icicle */
  flame_test_gui_wait_for (flame_graph_view_get_orientation (window->graph_view) ==
                           FLAME_ORIENTATION_ICICLE);
  g_assert_cmpstr (g_settings_get_string (window->settings, "orientation"), ==, "icicle");
  g_assert_cmpint (flame_graph_view_get_orientation (window->graph_view), ==,
                   FLAME_ORIENTATION_ICICLE);
  adw_combo_row_set_selected (orientation_row, 0);
  flame_test_gui_wait_for (flame_graph_view_get_orientation (window->graph_view) ==
                           FLAME_ORIENTATION_FLAME);
  g_assert_cmpint (flame_graph_view_get_orientation (window->graph_view), ==,
                   FLAME_ORIENTATION_FLAME);

#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_force_close (ADW_DIALOG (container));
#else
  gtk_window_destroy (GTK_WINDOW (container));
#endif
  flame_test_gui_wait_for (find_preferences () == NULL);
  g_assert_null (find_preferences ());
}

/* The colour key: one row under the graph, its swatches following the
 * view, hidden and shown again by View ▸ Show Legend (a setting). */
static void
test_legend (void)
{
  FlameLegend *legend;

  open_example ();
  legend = FLAME_LEGEND (window->legend);
  g_assert_true (gtk_widget_is_visible (window->legend));
  g_assert_false (flame_graph_view_get_show_legend (window->graph_view));
  g_assert_nonnull (strstr (flame_legend_get_summary (legend), "Colour: change of self time"));
  /* nine scale steps and New; Removed only in the elided view */
  g_assert_cmpuint (flame_legend_get_n_swatches (legend), ==, 10);
  /* one row: no taller than a line of text with its padding */
  g_assert_cmpint (gtk_widget_get_height (window->legend), <, 40);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.view", "s", "elided");
  wait_for_window (window);
  g_assert_cmpuint (flame_legend_get_n_swatches (legend), ==, 1);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.view", "s", "differential");
  wait_for_window (window);

  /* the modes of View Options, there too */
  g_assert_null (strstr (flame_legend_get_summary (legend), "Inverted"));
  g_assert_null (strstr (flame_legend_get_summary (legend), "Noise hidden"));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.inverted", NULL);
  wait_for_window (window);
  g_assert_true (g_str_has_prefix (flame_legend_get_summary (legend), "Inverted · "));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.inverted", NULL);
  wait_for_window (window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.hide-noise", NULL);
  wait_for_window (window);
  g_assert_true (g_str_has_suffix (flame_legend_get_summary (legend), " · Noise hidden"));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.hide-noise", NULL);
  wait_for_window (window);
  g_assert_null (strstr (flame_legend_get_summary (legend), "Noise hidden"));

  /* every mode at once, in the window's default size: each one readable,
   * none cut off by an ellipsis (the row takes a second line instead) */
  {
    const char *modes[] = { "win.inverted", "win.hide-noise", "win.normalize",
                            "win.colour-by-total" };
    GtkWidget *text = gtk_widget_get_first_child (window->legend);
    int one_row = gtk_widget_get_height (window->legend);

    g_assert_true (GTK_IS_LABEL (text));
    for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
      {
        gtk_widget_activate_action (GTK_WIDGET (window), modes[i], NULL);
        wait_for_window (window);
      }
    g_test_message ("legend with every mode: \"%s\", %d px wide",
                    gtk_label_get_text (GTK_LABEL (text)), gtk_widget_get_width (text));
    g_assert_true (g_str_has_prefix (flame_legend_get_summary (legend), "Inverted · Baseline ×"));
    g_assert_nonnull (strstr (flame_legend_get_summary (legend), "Colour: change of total time"));
    g_assert_true (g_str_has_suffix (flame_legend_get_summary (legend), " · Noise hidden"));
    g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (text))));
    /* and no taller than two lines need */
    g_assert_cmpint (gtk_widget_get_height (window->legend), <, one_row + 24);
    for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
      {
        gtk_widget_activate_action (GTK_WIDGET (window), modes[i], NULL);
        wait_for_window (window);
      }
    g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (text))));
    g_assert_cmpint (gtk_widget_get_height (window->legend), ==, one_row);
  }

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-legend", NULL);
  flame_test_gui_wait_for (!gtk_widget_get_visible (window->legend));
  g_assert_false (g_settings_get_boolean (window->settings, "show-legend"));
  g_settings_set_boolean (window->settings, "show-legend", TRUE);
  flame_test_gui_wait_for (gtk_widget_get_visible (window->legend));
}

/* Every label drawn in the changes table lies within the table's
 * scrolled window, left to right (nothing to scroll to); returns how many
 * there are and, through @found, whether one says @text */
static guint
assert_table_labels_within (FlameChangesPanel *panel,
                            const char        *text,
                            gboolean          *found)
{
  GtkWidget *view = GTK_WIDGET (panel->changes_view);
  GtkWidget *scroller = gtk_widget_get_parent (view);
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  int width = gtk_widget_get_width (scroller);
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();
  guint n = 0;

  g_test_message ("table: %d px wide, scrolls %.0f of %.0f px", width,
                  gtk_adjustment_get_page_size (h), gtk_adjustment_get_upper (h));
  g_assert_cmpfloat (gtk_adjustment_get_upper (h), <=, gtk_adjustment_get_page_size (h) + 0.5);
  *found = FALSE;
  g_ptr_array_add (todo, view);
  while (todo->len > 0)
    {
      GtkWidget *w = g_ptr_array_steal_index (todo, todo->len - 1);
      graphene_rect_t r;

      if (!gtk_widget_get_mapped (w))
        continue;
      for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (todo, c);
      if (!GTK_IS_LABEL (w) || *gtk_label_get_text (GTK_LABEL (w)) == 0)
        continue;
      g_assert_true (gtk_widget_compute_bounds (w, scroller, &r));
      if (r.origin.x < -0.5 || r.origin.x + r.size.width > width + 0.5)
        g_error ("“%s” is drawn from %.1f to %.1f px, outside the table's %d px",
                 gtk_label_get_text (GTK_LABEL (w)), r.origin.x, r.origin.x + r.size.width, width);
      if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), text) == 0)
        *found = TRUE;
      n++;
    }
  return n;
}

/* how many labels under @root are drawn cut short ("…") */
static guint
count_ellipsized_labels (GtkWidget *root)
{
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();
  guint n = 0;

  g_ptr_array_add (todo, root);
  while (todo->len > 0)
    {
      GtkWidget *w = g_ptr_array_steal_index (todo, todo->len - 1);

      if (!gtk_widget_get_mapped (w))
        continue;
      for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (todo, c);
      if (GTK_IS_LABEL (w) && pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (w))))
        {
          g_test_message ("cut short: %s", gtk_label_get_text (GTK_LABEL (w)));
          n++;
        }
    }
  return n;
}

/* the changes panel's width by default (the schema's) */
static int
default_panel_width (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.flamediff.Flamediff");
  g_autoptr(GVariant) value = g_settings_get_default_value (settings, "changes-panel-width");

  return g_variant_get_int32 (value);
}

/* The changes panel: the user's width (the default here), beside a
 * graph that takes the rest, and never narrower than its columns need;
 * F9's action hides and shows it. */
static void
test_panel_width (void)
{
  FlameChangesPanel *changes = window->changes_panel;
  GtkWidget *panel_widget;
  int panel, graph;
  gboolean found = FALSE;

  open_example ();
  g_assert_true (adw_flap_get_reveal_flap (window->flap));
  panel_widget = adw_flap_get_flap (window->flap);
  flame_test_gui_wait_for (gtk_widget_get_width (panel_widget) == default_panel_width ());
  panel = gtk_widget_get_width (panel_widget);
  graph = gtk_widget_get_width (GTK_WIDGET (window->graph_view));
  g_test_message ("panel %d px, graph %d px", panel, graph);
  g_assert_cmpint (graph, >, panel);
  /* every column fits: the Status pill is not cut at the right edge, and
   * no name of the example is cut short */
  {
    GtkWidget *view = GTK_WIDGET (changes->changes_view);
    int min = 0, scroller = gtk_widget_get_width (gtk_widget_get_parent (view));

    gtk_widget_measure (GTK_WIDGET (changes->changes_view), GTK_ORIENTATION_HORIZONTAL, -1,
                        &min, NULL, NULL, NULL);
    g_test_message ("changes table needs %d px of %d", min, scroller);
    g_assert_cmpint (min, <=, scroller);
  }
  g_assert_cmpuint (assert_table_labels_within (changes, "legacy_color_convert", &found), >, 10);
  g_assert_true (found);
  g_assert_cmpuint (count_ellipsized_labels (GTK_WIDGET (changes->changes_view)), ==, 0);

  /* a large screen: the graph gets the room, the panel keeps its width */
  gtk_window_set_default_size (GTK_WINDOW (window), 1500, 900);
  flame_test_gui_wait_for (gtk_widget_get_width (GTK_WIDGET (window->graph_view)) > graph + 150);
  g_test_message ("window %d px: panel %d px, graph %d px",
                  gtk_widget_get_width (GTK_WIDGET (window)), gtk_widget_get_width (panel_widget),
                  gtk_widget_get_width (GTK_WIDGET (window->graph_view)));
  g_assert_cmpint (gtk_widget_get_width (panel_widget), ==, panel);

  /* longer words (another language's) widen the panel instead of
   * pushing the Status column out of view */
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_column_view_column_set_title (changes->before_column, "Eigenzeit vorher, skaliert");
  gtk_column_view_column_set_title (changes->after_column, "Eigenzeit nachher, gemessen");
  flame_test_gui_wait_for (gtk_widget_get_width (panel_widget) > panel + 40);
  g_assert_cmpuint (assert_table_labels_within (changes, "Eigenzeit nachher, gemessen", &found),
                    >, 10);
  g_assert_true (found);
  gtk_column_view_column_set_title (changes->before_column, "Self Before");
  gtk_column_view_column_set_title (changes->after_column, "Self After");
  flame_test_gui_wait_for (gtk_widget_get_width (panel_widget) == panel);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sidebar", NULL);
  flame_test_gui_wait_for (!adw_flap_get_reveal_flap (window->flap));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sidebar", NULL);
  flame_test_gui_wait_for (adw_flap_get_reveal_flap (window->flap));
}

/* the controller of @type on @widget (the widget holds it) */
static GtkEventController *
find_controller (GtkWidget *widget,
                 GType      type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        return c;
    }
  g_error ("no %s on the %s", g_type_name (type), G_OBJECT_TYPE_NAME (widget));
  return NULL;
}

/* a drag of the handle by @dx px, as GtkGestureDrag reports one: begin,
 * a few updates, end */
static void
drag_handle (GtkEventController *drag,
             double              dx,
             gboolean            end)
{
  g_signal_emit_by_name (drag, "drag-begin", 3.0, 200.0);
  g_signal_emit_by_name (drag, "drag-update", dx / 4, 0.0);
  g_signal_emit_by_name (drag, "drag-update", dx / 2, 2.0);
  g_signal_emit_by_name (drag, "drag-update", dx, 5.0);
  if (end)
    g_signal_emit_by_name (drag, "drag-end", dx, 5.0);
}

static void
count_cb (guint *n)
{
  (*n)++;
}

static void
wait_for_panel_width (FlameWindow *w,
                      int          width)
{
  GtkWidget *panel = adw_flap_get_flap (w->flap);

  flame_test_gui_wait_for (gtk_widget_get_width (panel) == width);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
}

/* The handle between the graph and the panel: a drag resizes the panel
 * within the table's minimum and the graph's 400 px, saves the width in
 * GSettings when it ends, a double-click resets it, Left and Right move
 * it; the width saved is the next window's; a window too narrow for both
 * shows the panel over the graph, without a handle. */
static void
test_panel_resize (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.flamediff.Flamediff");
  GtkWidget *panel = adw_flap_get_flap (window->flap);
  GtkWidget *handle = adw_flap_get_separator (window->flap);
  GtkWidget *content = adw_flap_get_content (window->flap);
  GtkEventController *drag, *click, *keys;
  int def = default_panel_width (), table_min = 0, graph_min = 0, max, handle_w;
  gboolean found = FALSE, handled = FALSE;
  guint n_folds = 0;
  g_autoptr(GVariant) user = NULL;

  g_settings_reset (settings, "changes-panel-width");
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  open_example ();
  wait_for_panel_width (window, def);

  /* what it is: a focusable separator with a resize cursor and a name */
  g_assert_true (GTK_IS_SEPARATOR (handle));
  g_assert_true (gtk_widget_get_focusable (handle));
  g_assert_nonnull (gtk_widget_get_cursor (handle));
  g_assert_cmpstr (gdk_cursor_get_name (gtk_widget_get_cursor (handle)), ==, "col-resize");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (handle), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Resize Top Changes");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (handle), GTK_ACCESSIBLE_PROPERTY_VALUE_NOW,
                                       (double) def);
  gtk_widget_measure (handle, GTK_ORIENTATION_HORIZONTAL, -1, &handle_w, NULL, NULL, NULL);
  g_assert_cmpint (handle_w, >=, 4);
  g_assert_cmpint (handle_w, <=, 8);
  drag = find_controller (handle, GTK_TYPE_GESTURE_DRAG);
  click = find_controller (handle, GTK_TYPE_GESTURE_CLICK);
  keys = find_controller (handle, GTK_TYPE_EVENT_CONTROLLER_KEY);

  /* 100 px to the left: 100 px wider, saved only when the drag ends */
  drag_handle (drag, -100, FALSE);
  wait_for_panel_width (window, def + 100);
  g_assert_cmpint (gtk_widget_get_width (content), ==,
                   gtk_widget_get_width (GTK_WIDGET (window->flap)) - def - 100 - handle_w);
  user = g_settings_get_user_value (settings, "changes-panel-width");
  g_assert_null (user);
  g_signal_emit_by_name (drag, "drag-end", -100.0, 5.0);
  g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, def + 100);
  /* a click that moves a pixel or two resizes nothing */
  drag_handle (drag, 2, TRUE);
  g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, def + 100);
  g_assert_cmpint (gtk_widget_get_width (panel), ==, def + 100);

  /* as far to the left as it goes: the graph keeps 400 px, or what its
   * legend needs */
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &graph_min, NULL, NULL, NULL);
  g_test_message ("the graph's side needs %d px", graph_min);
  g_assert_cmpint (graph_min, >=, 400);
  g_assert_cmpint (graph_min, <, 600);
  max = gtk_widget_get_width (GTK_WIDGET (window->flap)) - graph_min - handle_w;
  drag_handle (drag, -5000, TRUE);
  wait_for_panel_width (window, max);
  g_assert_false (adw_flap_get_folded (window->flap));
  g_assert_cmpint (gtk_widget_get_width (content), ==, graph_min);
  g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, max);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (handle), GTK_ACCESSIBLE_PROPERTY_VALUE_MAX,
                                       (double) max);
  /* and to the right: as narrow as the table allows, every column whole */
  drag_handle (drag, 5000, TRUE);
  gtk_widget_measure (GTK_WIDGET (window->changes_panel->changes_view),
                      GTK_ORIENTATION_HORIZONTAL, -1, &table_min, NULL, NULL, NULL);
  g_test_message ("table needs %d px", table_min);
  g_assert_cmpint (table_min, >, 200);
  g_assert_cmpint (table_min, <, def);
  wait_for_panel_width (window, table_min);
  g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, table_min);
  g_assert_cmpuint (assert_table_labels_within (window->changes_panel, "Removed", &found), >, 10);
  g_assert_true (found);

  /* a double-click: the default again, and no width of the user's */
  g_signal_emit_by_name (click, "pressed", 1, 3.0, 200.0);
  g_assert_cmpint (gtk_widget_get_width (panel), ==, table_min);
  g_signal_emit_by_name (click, "pressed", 2, 3.0, 200.0);
  wait_for_panel_width (window, def);
  g_clear_pointer (&user, g_variant_unref);
  user = g_settings_get_user_value (settings, "changes-panel-width");
  g_assert_null (user);

  /* Tab reaches the handle; its keys: Left widens, Right narrows. The
   * window's focus, not has-focus: that one also needs the window to be
   * the active one, which another test's window may still be */
  gtk_widget_grab_focus (GTK_WIDGET (window->graph_view));
  for (guint i = 0; i < 100 && !gtk_widget_is_focus (handle); i++)
    gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);
  g_assert_true (gtk_widget_is_focus (handle));
  g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_Left, 0, 0, &handled);
  g_assert_true (handled);
  wait_for_panel_width (window, def + 20);
  g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, def + 20);
  g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_Right, 0, 0, &handled);
  g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_Right, 0, 0, &handled);
  wait_for_panel_width (window, def - 20);
  g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, def - 20);

  /* the width saved is where a new window starts */
  g_settings_set_int (settings, "changes-panel-width", 700);
  wait_for_panel_width (window, 700);
  {
    FlameWindow *w = flame_window_new (ADW_APPLICATION (app));

    gtk_window_set_default_size (GTK_WINDOW (w), 1280, 800);
    gtk_window_present (GTK_WINDOW (w));
    flame_window_open_example (w);
    wait_for_window (w);
    wait_for_panel_width (w, 700);
    /* a narrower window: the graph keeps its 400 px, the setting stays,
     * and the panel stays in view on the way (the flap does not fold
     * with the old width first, which would close the panel) */
    g_signal_connect_swapped (w->flap, "notify::folded", G_CALLBACK (count_cb), &n_folds);
    gtk_window_set_default_size (GTK_WINDOW (w), 1000, 800);
    flame_test_gui_wait_for (gtk_widget_get_width (GTK_WIDGET (w->flap)) < 1100);
    max = gtk_widget_get_width (GTK_WIDGET (w->flap)) - graph_min - handle_w;
    wait_for_panel_width (w, max);
    g_assert_cmpuint (n_folds, ==, 0);
    g_assert_true (adw_flap_get_reveal_flap (w->flap));
    g_assert_cmpint (gtk_widget_get_width (adw_flap_get_content (w->flap)), ==, graph_min);
    g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, 700);
    /* narrower still: the panel over the graph, and no handle to move */
    gtk_window_set_default_size (GTK_WINDOW (w), 800, 800);
    flame_test_gui_wait_for (adw_flap_get_folded (w->flap));
    g_assert_false (gtk_widget_get_focusable (adw_flap_get_separator (w->flap)));
    g_assert_cmpint (g_settings_get_int (settings, "changes-panel-width"), ==, 700);
    gtk_window_destroy (GTK_WINDOW (w));
  }
  g_settings_reset (settings, "changes-panel-width");
  wait_for_panel_width (window, def);
}

/* names the widgets below @widget that need more than @limit px, so a
 * failure of test_narrow_window says which */
static void
report_wide (GtkWidget *widget,
             int        limit,
             int        depth)
{
  int min = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  if (min <= limit || !gtk_widget_get_visible (widget))
    return;
  g_test_message ("%*s%s#%s needs %d px", depth * 2, "", G_OBJECT_TYPE_NAME (widget),
                  gtk_buildable_get_buildable_id (GTK_BUILDABLE (widget)) ?: "", min);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    report_wide (c, limit, depth + 1);
}

/* Waits (30 s at most) until the narrow layout is applied and the window
 * is back to @width px. A configure event from the wide layout's first,
 * wider minimum can arrive after the narrow layout was applied (seen on a
 * loaded machine in German, whose wide minimum exceeds the narrow
 * threshold) and widen the window again; no compositor shrinks it then,
 * so the test asks again, as a phone's compositor would keep the window
 * at the screen's width. */
static void
settle_narrow (FlameWindow *w,
               int          width)
{
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (w));
  gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  gint64 next_ask = 0;

  while (!(w->narrow_applied && gtk_widget_get_width (content) <= width &&
           !gtk_widget_get_visible (w->search_button) &&
           !gtk_widget_get_visible (w->view_menu_button)) &&
         g_get_monotonic_time () < end)
    {
      if (gtk_widget_get_width (GTK_WIDGET (w)) > width && g_get_monotonic_time () >= next_ask)
        {
          gtk_window_set_default_size (GTK_WINDOW (w), width, 640);
          next_ask = g_get_monotonic_time () + G_USEC_PER_SEC / 2;
        }
      flame_test_gui_iterate (10);
    }
}

/* how many items of @menu (its sections and submenus too) would show a
 * key: those whose action has one in the application, unless their
 * "accel" attribute is "" */
static guint
count_accels_shown (GMenuModel *menu)
{
  guint n = 0;

  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *accel = NULL;
      g_autofree char *action = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SUBMENU);

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action))
        {
          g_autoptr(GVariant) target =
            g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET, NULL);
          g_autofree char *detailed = g_action_print_detailed_name (action, target);
          g_auto(GStrv) accels =
            gtk_application_get_accels_for_action (GTK_APPLICATION (app), detailed);

          if (accels[0] != NULL &&
              !(g_menu_model_get_item_attribute (menu, i, "accel", "s", &accel) && *accel == '\0'))
            n++;
        }
      if (section != NULL)
        n += count_accels_shown (section);
      if (submenu != NULL)
        n += count_accels_shown (submenu);
    }
  return n;
}

/* The narrowest window (the .ui's width-request, 360 px, a phone in
 * portrait): the window keeps that width, as nothing in it needs more;
 * the panel folds over the graph. Writes narrow.png to look at. */
static void
test_narrow_window (void)
{
  FlameWindow *w = flame_window_new (ADW_APPLICATION (app));
  GtkWidget *content;
  int width_request = 0, min = 0;

  g_object_get (w, "width-request", &width_request, NULL);
  g_assert_cmpint (width_request, ==, 360);
  gtk_window_set_default_size (GTK_WINDOW (w), width_request, 640);
  gtk_window_present (GTK_WINDOW (w));
  flame_window_open_example (w);
  wait_for_window (w);
  /* the wide layout's minimum widened the window first, but not to 640
   * px: the narrow layout comes (from an idle after an allocation). Asked
   * again then, the window takes the width the narrow layout allows (a
   * phone's compositor does not ask: the window is maximized to the
   * screen's 360 px) */
  flame_test_gui_wait_for (w->narrow_applied);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  gtk_window_set_default_size (GTK_WINDOW (w), width_request, 640);
  content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (w));
  /* the layout switches from an idle after an allocation: wait for it
   * (a slow sanitizer build needs longer than 300 ms) */
  {
    settle_narrow (w, width_request);
    if (!w->narrow_applied || gtk_widget_get_width (content) > width_request)
      {
        gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
        report_wide (content, width_request, 0);
        g_error ("narrow %d applied %d window %d content %d min %d search %d panel %d", w->narrow,
                 w->narrow_applied, gtk_widget_get_width (GTK_WIDGET (w)),
                 gtk_widget_get_width (content), min, gtk_widget_get_visible (w->search_button),
                 gtk_widget_get_width (GTK_WIDGET (w->changes_panel)));
      }
  }
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_test_message ("narrow window: %d px wide, its content needs %d px",
                  gtk_widget_get_width (GTK_WIDGET (w)), min);
  report_wide (content, width_request, 0);
  g_assert_cmpint (min, <=, width_request);
  g_assert_cmpint (gtk_widget_get_width (content), <=, width_request);
  g_assert_true (adw_flap_get_folded (w->flap));
#if ADW_CHECK_VERSION(1, 4, 0)
  /* libadwaita >= 1.4: the header bar is a top bar of an AdwToolbarView,
   * and an AdwBreakpoint switched the layout (not the 1.2 fallback) */
  g_assert_true (ADW_IS_TOOLBAR_VIEW (content));
  g_assert_true (gtk_widget_get_ancestor (GTK_WIDGET (w->header_bar), ADW_TYPE_TOOLBAR_VIEW) ==
                 content);
  g_assert_nonnull (adw_application_window_get_current_breakpoint (ADW_APPLICATION_WINDOW (w)));
#else
  g_assert_true (GTK_IS_BOX (content));
  g_assert_true (gtk_widget_get_parent (GTK_WIDGET (w->header_bar)) == content);
#endif
  {
    g_autoptr(GdkTexture) texture = render_window (w);

    save_screenshot (texture, "narrow.png");
  }
  /* what left the header bar is at the top of the main menu (on a loaded
   * machine a later allocation can re-run the layout's idle: wait for it
   * to settle narrow again) */
  settle_narrow (w, width_request);
  if (!w->narrow_applied)
    g_error ("the window went wide again: narrow %d, window %d px", w->narrow,
             gtk_widget_get_width (GTK_WIDGET (w)));
  g_assert_false (gtk_widget_get_visible (w->search_button));
  g_assert_false (gtk_widget_get_visible (w->view_menu_button));
  /* a comparison that finishes loading while narrow leaves them there
   * (the load's end once showed them in the header bar again) */
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reload", NULL);
  wait_for_window (w);
  g_assert_true (w->narrow_applied);
  g_assert_nonnull (w->source);
  g_assert_false (gtk_widget_get_visible (w->search_button));
  g_assert_false (gtk_widget_get_visible (w->view_menu_button));
  {
    GtkWidget *button = primary_menu_button (w);
    GMenuModel *menu, *section, *views;
    g_autofree char *action = NULL;
    g_autofree char *find = NULL;

    menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
    section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
    g_assert_nonnull (section);
    {
      /* View Options, copied without the keys */
      g_autoptr(GMenuModel) options = g_menu_model_get_item_link (section, 0, G_MENU_LINK_SUBMENU);

      g_assert_nonnull (options);
      g_assert_cmpint (g_menu_model_get_n_items (options), ==,
                       g_menu_model_get_n_items (G_MENU_MODEL (w->view_menu)));
      g_assert_cmpuint (count_accels_shown (options), ==, 0);
    }
    /* no keys anywhere in it: the menu fits the 360 px window */
    g_assert_cmpuint (count_accels_shown (menu), ==, 0);
    {
      gboolean tooltip_shown = TRUE;
      int natural = open_menu_width (button, &tooltip_shown);

      g_test_message ("the narrow main menu: %d px wide", natural);
      g_assert_cmpint (natural, <=, width_request);
      /* its new popover hides the button's tooltip too */
      g_assert_false (tooltip_shown);
    }
    views = g_menu_model_get_item_link (section, 1, G_MENU_LINK_SECTION);
    g_assert_true (
      g_menu_model_get_item_attribute (views, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr (action, ==, "win.view");
    g_assert_true (
      g_menu_model_get_item_attribute (section, 2, G_MENU_ATTRIBUTE_ACTION, "s", &find));
    g_assert_cmpstr (find, ==, "win.find");
    g_object_unref (section);
    g_object_unref (views);
  }
  gtk_widget_activate_action (GTK_WIDGET (w), "win.show-sidebar", NULL);
  flame_test_gui_wait_for (adw_flap_get_reveal_progress (w->flap) >= 1 &&
                           gtk_widget_get_mapped (GTK_WIDGET (w->changes_panel)));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  /* the panel keeps three columns, all of them in view: the function
   * (before → after under it), the change (its per cent under it), and
   * the status */
  g_assert_true (flame_changes_panel_get_compact (w->changes_panel));
  g_assert_false (gtk_column_view_column_get_visible (w->changes_panel->before_column));
  g_assert_false (gtk_column_view_column_get_visible (w->changes_panel->after_column));
  {
    GListModel *rows = G_LIST_MODEL (w->changes_panel->selection);
    g_autoptr(FlameChangeRow) first = g_list_model_get_item (rows, 0);
    gdouble delta = flame_change_row_get_delta_ms (first);
    g_autofree char *change = flame_quantity_format_compact (FLAME_QUANTITY_TIME, delta, TRUE);
    gboolean found = FALSE, header = FALSE;

    g_assert_cmpuint (assert_table_labels_within (w->changes_panel, change, &found), >, 10);
    g_assert_true (found);
    assert_table_labels_within (w->changes_panel, "Change", &header);
    g_assert_true (header);
  }
  {
    g_autoptr(GdkTexture) texture = render_window (w);

    save_screenshot (texture, "narrow-panel.png");
  }
  /* wide again: the header bar has its buttons back */
  gtk_window_set_default_size (GTK_WINDOW (w), 1000, 640);
  flame_test_gui_wait_for (!w->narrow_applied && gtk_widget_get_visible (w->search_button) &&
                           gtk_widget_get_width (content) >= 640);
  g_assert_cmpint (gtk_widget_get_width (content), >=, 640);
#if ADW_CHECK_VERSION(1, 4, 0)
  g_assert_null (adw_application_window_get_current_breakpoint (ADW_APPLICATION_WINDOW (w)));
#endif
  g_assert_true (gtk_widget_get_visible (w->search_button));
  g_assert_true (gtk_widget_get_visible (w->view_menu_button));
  /* and the main menu as it was: New Window first, the keys shown */
  {
    GtkWidget *button = primary_menu_button (w);
    GMenuModel *menu;
    g_autoptr(GMenuModel) first = NULL;
    g_autofree char *action = NULL;
    gboolean tooltip_shown = TRUE;

    menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
    first = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
    g_assert_true (
      g_menu_model_get_item_attribute (first, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr (action, ==, "app.new-window");
    g_assert_cmpuint (count_accels_shown (menu), >, 10);
    open_menu_width (button, &tooltip_shown);
    g_assert_false (tooltip_shown);
    flame_test_gui_wait_for (gtk_widget_get_has_tooltip (button));
  }
  /* and the table its six columns */
  g_assert_false (flame_changes_panel_get_compact (w->changes_panel));
  g_assert_true (gtk_column_view_column_get_visible (w->changes_panel->before_column));
  gtk_window_destroy (GTK_WINDOW (w));
}

/* The narrow main menu in German, with the catalog just built
 * ($FLAMEDIFF_LOCALEDIR; the de_DE run only): its longer labels must fit
 * the 360 px window too */
static void
test_narrow_menu_translated (void)
{
  const char *localedir = g_getenv ("FLAMEDIFF_LOCALEDIR");
  g_autofree char *saved_dir = g_strdup (bindtextdomain (GETTEXT_PACKAGE, NULL));
  g_autofree char *saved_domain = g_strdup (textdomain (NULL));
  FlameWindow *w;
  GtkWidget *button;
  GMenuModel *menu;
  g_autoptr(GMenuModel) section = NULL;
  g_autofree char *options = NULL;
  int width_request = 0, natural = 0;

  /* a run meant to check German must not pass in English */
  if (!g_str_has_prefix (setlocale (LC_MESSAGES, NULL), "de"))
    g_error ("FLAMEDIFF_LOCALEDIR is set: run under de_DE.UTF-8, not %s",
             setlocale (LC_MESSAGES, NULL));
  /* as main.c does: the window's code translates with _() */
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  textdomain (GETTEXT_PACKAGE);
  w = flame_window_new (ADW_APPLICATION (app));
  g_object_get (w, "width-request", &width_request, NULL);
  gtk_window_set_default_size (GTK_WINDOW (w), width_request, 640);
  gtk_window_present (GTK_WINDOW (w));
  flame_window_open_example (w);
  wait_for_window (w);
  flame_test_gui_wait_for (w->narrow_applied);
  settle_narrow (w, width_request);
  g_assert_true (w->narrow_applied);

  button = primary_menu_button (w);
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_true (g_menu_model_get_item_attribute (section, 0, G_MENU_ATTRIBUTE_LABEL, "s",
                                                  &options));
  g_assert_cmpstr (options, ==, "_Ansichtsoptionen");

  /* the popover's pages (the menu and View Options) are as wide as the
   * widest of them */
  natural = open_menu_width (button, NULL);
  g_test_message ("the narrow main menu in German: %d px wide", natural);
  g_assert_cmpint (natural, <=, width_request);
  gtk_window_destroy (GTK_WINDOW (w));
  /* English again for the tests after this one */
  bindtextdomain (GETTEXT_PACKAGE, saved_dir);
  textdomain (saved_domain);
}

/* Opening the example from the start page of a fresh window, with
 * animations on as on a desktop (flame_test_gui_start turns them off):
 * the side panel slides in and the graph takes the rest of the width. No
 * widget may be allocated a negative size on the way; GTK warns of that
 * (gtk_widget_size_allocate(): attempt to allocate … width -2147483648),
 * and gtk_test_init makes the warning fatal. */
static void
reveal_width_cb (AdwFlap    *flap,
                 GParamSpec *pspec,
                 int        *width)
{
  if (adw_flap_get_reveal_flap (flap))
    *width = gtk_widget_get_width (GTK_WIDGET (flap));
}

static void
test_open_example_animated (void)
{
  FlameWindow *fresh = flame_window_new (ADW_APPLICATION (app));
  GtkSettings *settings = gtk_settings_get_default ();
  int width_at_reveal = -1;

  g_object_set (settings, "gtk-enable-animations", TRUE, NULL);
  /* the cause, which libadwaita 1.2 survives and 1.10 does not: AdwFlap
   * divides by its width when it starts the reveal animation, so the panel
   * may only be revealed once the flap has been allocated */
  g_signal_connect (fresh->flap, "notify::reveal-flap", G_CALLBACK (reveal_width_cb),
                    &width_at_reveal);
  gtk_window_set_default_size (GTK_WINDOW (fresh), 1280, 800);
  gtk_window_present (GTK_WINDOW (fresh));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (fresh));
  g_assert_true (flame_window_is_empty (fresh));
  gtk_widget_activate_action (GTK_WIDGET (fresh), "win.open-example", NULL);
  wait_for_window (fresh);
  /* the graph replaces the welcome page at once: a cross-fade would draw
   * the whole graph twice a frame, with the software renderer */
  g_assert_false (gtk_stack_get_transition_running (fresh->main_stack));
  /* the flap's reveal animation (250 ms) to its end */
  flame_test_gui_wait_for (adw_flap_get_reveal_progress (fresh->flap) >= 1);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (fresh->main_stack), ==, "graph");
  g_assert_true (adw_flap_get_reveal_flap (fresh->flap));
  g_test_message ("flap width when the panel was revealed: %d", width_at_reveal);
  g_assert_cmpint (width_at_reveal, >, 0);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (fresh->graph_view)), >, 0);
  g_signal_handlers_disconnect_by_data (fresh->flap, &width_at_reveal);
  g_object_set (settings, "gtk-enable-animations", FALSE, NULL);
  gtk_window_destroy (GTK_WINDOW (fresh));
}

static void
skip_no_display (void)
{
  g_test_skip ("no display: meson runs it under Xvfb (Debian package xvfb)");
}

/* The open dialog's "All Profiles" shows the files the tools write,
 * by the names they give them, and not other files */
static void
test_file_filters (void)
{
  static const char *const profiles[] = {
    "cur.folded", "out.perf", "profile.speedscope.json", "trace.json", "CPU.cpuprofile",
    "cpu.pb.gz", "heap.pprof", "prof.out.prof", "run.pstats", "cur.bin",
    "callgrind.out.12345", "capture.syscap", "x.folded.gz",
  };
  static const char *const others[] = { "notes.odt", "flamegraph.svg", "app.c" };
  g_autoptr(GListStore) filters = flame_profile_filters ();
  g_autoptr(GtkFilter) all = g_list_model_get_item (G_LIST_MODEL (filters), 0);

  for (guint i = 0; i < G_N_ELEMENTS (profiles) + G_N_ELEMENTS (others); i++)
    {
      gboolean profile = i < G_N_ELEMENTS (profiles);
      const char *name = profile ? profiles[i] : others[i - G_N_ELEMENTS (profiles)];
      g_autoptr(GFileInfo) info = g_file_info_new ();

      g_file_info_set_display_name (info, name);
      g_file_info_set_name (info, name);
      /* newer GTK asks for it (GLib criticals without it); matching is
       * by name here */
      g_file_info_set_content_type (info, "application/octet-stream");
      if (gtk_filter_match (all, info) != profile)
        g_error ("“All Profiles” %s %s", profile ? "hides" : "shows", name);
    }
}

int
main (int   argc,
      char *argv[])
{
  int ret;
  g_autofree char *data_home = NULL;

  /* recent files go to a directory of the test's own (GLib reads
   * XDG_DATA_HOME once, on first use) */
  data_home = g_dir_make_tmp ("flamediff-data-home-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_init (&argc, &argv, NULL);
      g_test_add_func ("/window/no-display", skip_no_display);
      return g_test_run ();
    }
  if (!flame_test_gui_init (&argc, &argv, "/window/no-en-us-locale"))
    return g_test_run ();
  /* C.UTF-8, or the comma-decimal run's de_DE.UTF-8: no thousands
   * separators to guess in either */
  flame_test_set_locale ();
  window = flame_test_gui_start (&app, 1280, 800);

  g_test_add_func ("/window/empty-state", test_empty_state);
  g_test_add_func ("/window/order-pair", test_order_pair);
  g_test_add_func ("/window/compare-example", test_compare_example);
  g_test_add_func ("/window/elided-view", test_elided_view);
  g_test_add_func ("/window/inverted", test_inverted);
  g_test_add_func ("/window/progress-banner", test_progress_banner);
  g_test_add_func ("/window/keyboard-reach", test_keyboard_reach);
  g_test_add_func ("/window/changes-panel", test_changes_panel);
  g_test_add_func ("/window/panel-row-to-graph", test_panel_row_to_graph);
  g_test_add_func ("/window/menu-tooltips", test_menu_tooltips);
  g_test_add_func ("/window/bad-file-keeps-comparison", test_bad_file_keeps_comparison);
  g_test_add_func ("/window/error-text", test_error_text);
  g_test_add_func ("/window/file-truncated-while-loading", test_file_truncated_while_loading);
  g_test_add_func ("/window/normalize-toggle", test_normalize_toggle);
  g_test_add_func ("/window/toggle-while-loading", test_toggle_while_loading);
  g_test_add_func ("/window/summary-human-units", test_summary_human_units);
  g_test_add_func ("/window/colour-and-noise", test_colour_and_noise_options);
  g_test_add_func ("/window/search", test_search);
  g_test_add_func ("/window/swap-and-reload", test_swap_and_reload);
  g_test_add_func ("/window/dark", test_dark);
  g_test_add_func ("/window/copy-summary", test_copy_summary);
  g_test_add_func ("/window/single-file", test_single_file);
  g_test_add_func ("/window/sample-type", test_sample_type);
  g_test_add_func ("/window/sample-type-sysprof", test_sample_type_sysprof);
  g_test_add_func ("/window/open-folders", test_open_folders);
  g_test_add_func ("/window/open-run-sets", test_open_run_sets);
  g_test_add_func ("/window/runs-graph", test_runs_graph);
  g_test_add_func ("/window/drop-two-files", test_drop_two_files);
  g_test_add_func ("/window/close-with-selected-change", test_close_with_selected_change);
  g_test_add_func ("/window/export", test_export);
  g_test_add_func ("/window/recent", test_recent);
  g_test_add_func ("/window/file-changed-bar", test_file_changed_bar);
  g_test_add_func ("/window/preferences", test_preferences);
  g_test_add_func ("/window/legend", test_legend);
  g_test_add_func ("/window/panel-width", test_panel_width);
  g_test_add_func ("/window/panel-resize", test_panel_resize);
  g_test_add_func ("/window/narrow", test_narrow_window);
  if (g_getenv ("FLAMEDIFF_LOCALEDIR") != NULL)
    g_test_add_func ("/window/narrow-menu-translated", test_narrow_menu_translated);
  g_test_add_func ("/window/binary-changed", test_binary_changed);
  g_test_add_func ("/window/checkouts", test_checkouts);
  g_test_add_func ("/window/recover-banner", test_recover_banner);
  g_test_add_func ("/window/open-example-animated", test_open_example_animated);
  g_test_add_func ("/window/file-filters", test_file_filters);
  /* last: after sorts by other columns the panel's minimum width is
   * about 20 px more than the table's (GTK 4.8's column headers, it
   * seems), which test_panel_resize's exact widths notice */
  g_test_add_func ("/window/panel-large-sorted", test_panel_large_sorted);

  ret = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  remove_tree (data_home);
  return ret;
}

/* test-record-dialog.c: Record and Diff, driven through its actions:
 * record a baseline and a current run of a small workload and check the
 * window shows their comparison; an earlier recording as the baseline;
 * Stop on a long-running program; the window closed during a recording
 * (the file is still written); the Flatpak plan and its explanation.
 * Writes screenshots of the dialog to $FLAMEDIFF_SCREENSHOTS.
 *
 * Needs a display: tests/meson.build runs it under Xvfb (tools/xvfb-test).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "flame-application.h"
#include "flame-loader.h"
#include "flame-memory.h"
#include "flame-record-dialog-private.h"
#include "flame-summary-bar-private.h"
#include "flame-window-private.h"
#include "flame-test-gui.h"
#include "flame-test-locale.h"

static FlameApplication *app;
static FlameWindow *window;
static char *tmpdir;

static char *
workload (const char *name)
{
  return g_strdup_printf ("%s/capture-%s", g_getenv ("FLAMEDIFF_WORKLOADS"), name);
}

/* the dialog shown: a toplevel of its own (libadwaita 1.2) or inside its
 * window (an AdwDialog, from 1.5) */
static FlameRecordDialog *
find_dialog (void)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (tops, i);
      GtkWidget *dialog = flame_test_gui_find_descendant (w, FLAME_TYPE_RECORD_DIALOG);

      if (dialog != NULL && gtk_widget_get_visible (dialog))
        return FLAME_RECORD_DIALOG (dialog);
    }
  return NULL;
}

/* Ctrl+R's action, as the menu and the empty page's button use it */
static FlameRecordDialog *
open_dialog (FlameWindow *win)
{
  FlameRecordDialog *dialog;

  gtk_widget_activate_action (GTK_WIDGET (win), "win.record", NULL);
  flame_test_gui_wait_for (find_dialog () != NULL);
  dialog = find_dialog ();
  g_assert_nonnull (dialog);
#if ADW_CHECK_VERSION(1, 5, 0)
  /* an AdwDialog over the window, not a window of its own */
  g_assert_true (gtk_widget_get_root (GTK_WIDGET (dialog)) == GTK_ROOT (win));
#else
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (win));
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
#endif
  return dialog;
}

/* Cancel (or Escape) when nothing records: the dialog goes */
static void
close_dialog (FlameRecordDialog *dialog)
{
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.close", NULL);
  flame_test_gui_wait_for (find_dialog () == NULL);
  g_assert_null (find_dialog ());
}

static void
wait_for_phase (FlameRecordDialog *dialog,
                FlameRecordPhase   phase)
{
  flame_test_gui_wait_for_s (dialog->phase == phase, 60);
}

static void
wait_for_samples (FlameRecordDialog *dialog)
{
  flame_test_gui_wait_for (dialog->recorder != NULL &&
                           flame_recorder_get_samples (dialog->recorder) >= 20);
}

static void
wait_for_window (FlameWindow *self)
{
  /* and the side panel opened (from a tick of the flap, once it has a
   * width) */
  flame_test_gui_wait_for (!flame_window_is_busy (self) && self->reveal_tick == 0);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (self));
}

static void
screenshot (FlameRecordDialog *dialog,
            const char        *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_SCREENSHOTS");
#if ADW_CHECK_VERSION(1, 5, 0)
  GtkWidget *content = adw_dialog_get_child (ADW_DIALOG (dialog));
#else
  GtkWidget *content = adw_window_get_content (ADW_WINDOW (dialog));
#endif
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  GskRenderNode *drawn = NULL;
  GskRenderer *renderer;
  int w, h;

  if (dir == NULL)
    return;
  paintable = gtk_widget_paintable_new (content);
  gtk_widget_queue_draw (content);
  gtk_test_widget_wait_for_draw (content);
  w = gtk_widget_get_width (content);
  h = gtk_widget_get_height (content);
  /* the paintable holds what the widget drew in a frame after it was made */
  flame_test_gui_wait_for ((drawn = flame_test_gui_paintable_node (paintable, w, h)) != NULL);
  snapshot = gtk_snapshot_new ();
  /* the window background first: the content is drawn on it */
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.98, 0.98, 0.98, 1 },
                             &GRAPHENE_RECT_INIT (0, 0, w, h));
  gtk_snapshot_append_node (snapshot, drawn);
  gsk_render_node_unref (drawn);
  node = gtk_snapshot_free_to_node (snapshot);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (content));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

static char *
output_log (FlameRecordDialog *dialog)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (dialog->output_view);
  GtkTextIter a, b;

  gtk_text_buffer_get_bounds (buffer, &a, &b);
  return gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
}

/* a "project" whose code the user changes between the two runs: a script
 * running the two-thread workload with warm_a SLOW times slower */
static char *
write_project (const char *slow)
{
  g_autofree char *prog = workload ("two-threads");
  g_autofree char *script = g_build_filename (tmpdir, "run.sh", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\nexec %s 0.4 %s one\n", prog, slow);
  GError *error = NULL;

  g_file_set_contents (script, text, -1, &error);
  g_assert_no_error (error);
  g_chmod (script, 0755);
  return g_steal_pointer (&script);
}

static guint64
file_samples (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = flame_load_file (path, NULL, NULL, NULL, &error);
  const char *n;

  g_assert_no_error (error);
  /* numbers in the file are C numbers in any locale */
  for (guint i = 0; i < 2; i++)
    {
      const char *key = i == 0 ? "duration_ms" : "effective_frequency_hz";
      const char *v = flame_profile_get_metadata (p, key);
      char *end;

      g_assert_nonnull (v);
      g_ascii_strtod (v, &end);
      if (*end != 0 || end == v)
        g_error ("metadata %s=\"%s\" is not a C number", key, v);
    }
  n = flame_profile_get_metadata (p, "samples");
  g_assert_nonnull (n);
  return g_ascii_strtoull (n, NULL, 10);
}

/* ---- the tests ---- */

static void
test_record_twice (void)
{
  g_autofree char *script = write_project ("1");
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  FlameRecordDialog *dialog = open_dialog (window);
  g_auto(GStrv) recent = NULL;
  g_autofree char *log = NULL;
  g_autofree char *files = NULL;
  g_autofree char *bname = NULL;
  g_autofree char *cname = NULL;

  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), "./run.sh");
  dialog->cwd = (g_free (dialog->cwd), g_strdup (tmpdir));
  adw_action_row_set_subtitle (dialog->directory_row, tmpdir);
  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_RECORD);
  flame_test_gui_wait_for (gtk_widget_is_sensitive (dialog->start_button));
  g_assert_false (gtk_widget_get_visible (dialog->sandbox_box));
  screenshot (dialog, "record-dialog.png");

  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  g_assert_cmpint (dialog->phase, ==, FLAME_RECORD_BASELINE);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (dialog->stack), ==, "recording");
  wait_for_samples (dialog);
  g_assert_cmpstr (gtk_label_get_text (dialog->samples_label), !=, "0");

  wait_for_phase (dialog, FLAME_RECORD_BETWEEN);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (dialog->stack), ==, "between");
  g_assert_nonnull (dialog->baseline);
  g_assert_cmpuint (file_samples (dialog->baseline), >, 20);
  /* the program's standard output, in the log */
  log = output_log (dialog);
  g_assert_nonnull (strstr (log, "truth hot_a"));
  screenshot (dialog, "record-dialog-between.png");

  /* the recent commands: this one first */
  recent = g_settings_get_strv (settings, "recent-commands");
  g_assert_cmpstr (recent[0], ==, "./run.sh");

  /* "change the code": warm_a four times slower */
  g_free (write_project ("4"));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.current", NULL);
  g_assert_cmpint (dialog->phase, ==, FLAME_RECORD_CURRENT);
  bname = g_file_get_basename (dialog->baseline);
  flame_test_gui_wait_for_s (dialog == NULL, 60);
  g_assert_null (dialog);   /* done: the dialog is gone */
  wait_for_window (window);

  /* the window compares the two recordings */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "graph");
  g_assert_nonnull (window->diff);
  g_assert_nonnull (window->files[1]);
  cname = g_file_get_basename (window->files[1]);
  files = g_strdup_printf ("%s → %s", bname, cname);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==, files);
  g_assert_true (g_str_has_prefix (bname, "run.sh-"));
  g_assert_true (g_str_has_suffix (cname, ".speedscope.json"));
  /* warm_a got slower (its time is in spin, its callee: total time) */
  {
    const FlameFunctionStat *warm = flame_report_find (window->report, "warm_a");
    const FlameFunctionStat *hot = flame_report_find (window->report, "hot_a");

    g_assert_nonnull (warm);
    g_assert_nonnull (hot);
    g_test_message ("warm_a total %.1f → %.1f ms, hot_a %.1f → %.1f ms",
                    warm->total_b, warm->total_c, hot->total_b, hot->total_c);
    g_assert_cmpfloat (warm->total_c, >, 1.5 * warm->total_b);
    /* hot_a did not change: in absolute time (the default) it is about
     * as long; scaled to the current total it read "Faster" (issue 11) */
    g_assert_cmpint (flame_diff_get_options (window->diff)->normalize, ==,
                     FLAME_NORMALIZE_ABSOLUTE);
    g_assert_cmpfloat (hot->total_c, >, 0.6 * hot->total_b);
    g_assert_cmpfloat (hot->total_c, <, 1.6 * hot->total_b);
  }
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->summary_bar->delta_label)));
}

static void
test_earlier_recording (void)
{
  g_autofree char *script = write_project ("1");
  FlameRecordDialog *dialog = open_dialog (window);
  g_autofree char *first = NULL;
  g_autofree char *label = NULL;
  GListModel *model;

  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  /* the recordings of the previous test are offered, newest first */
  g_assert_cmpuint (dialog->earlier_paths->len, >=, 2);
  model = adw_combo_row_get_model (dialog->earlier_row);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, dialog->earlier_paths->len);
  label = g_strdup (gtk_string_list_get_string (GTK_STRING_LIST (model), 0));
  g_assert_nonnull (strstr (label, "./run.sh"));
  /* the command remembered from last time is filled in */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (dialog->command_row)), ==, "./run.sh");

  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_EARLIER);
  adw_combo_row_set_selected (dialog->earlier_row, 1);   /* the baseline of the first test */
  first = g_strdup (g_ptr_array_index (dialog->earlier_paths, 1));
  dialog->cwd = (g_free (dialog->cwd), g_strdup (tmpdir));
  flame_test_gui_wait_for (gtk_widget_get_visible (GTK_WIDGET (dialog->earlier_row)));
  screenshot (dialog, "record-dialog-earlier.png");
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  g_assert_cmpint (dialog->phase, ==, FLAME_RECORD_CURRENT);
  flame_test_gui_wait_for_s (dialog == NULL, 60);
  g_assert_null (dialog);
  wait_for_window (window);
  {
    g_autofree char *base = g_file_get_path (window->files[0]);

    g_assert_cmpstr (base, ==, first);
  }
  g_assert_nonnull (window->diff);
}

/* quick spin prints nothing: a line in the log, as a program would */
static void
on_output_for_test (FlameRecordDialog *dialog)
{
  g_signal_emit_by_name (dialog->recorder, "output", "spinning for 60 s\n");
}

static void
test_stop (void)
{
  g_autofree char *quick = workload ("quick");
  g_autofree char *command = g_strdup_printf ("%s spin 60", quick);
  FlameRecordDialog *dialog = open_dialog (window);
  gint64 t0;

  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), command);
  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_RECORD);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  wait_for_samples (dialog);
  gtk_expander_set_expanded (dialog->output_expander, TRUE);
  on_output_for_test (dialog);
  flame_test_gui_wait_for (g_strcmp0 (gtk_label_get_text (dialog->samples_label), "0") != 0);
  screenshot (dialog, "record-dialog-recording.png");
  t0 = g_get_monotonic_time ();
  g_assert_true (gtk_widget_is_sensitive (dialog->stop_button));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.stop", NULL);
  wait_for_phase (dialog, FLAME_RECORD_BETWEEN);
  /* stopped, not run to its end */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 15 * G_USEC_PER_SEC);
  g_assert_cmpuint (file_samples (dialog->baseline), >=, 20);
  {
    g_autofree char *path = g_file_get_path (dialog->baseline);
    g_autofree char *spool = g_strconcat (path, ".spool", NULL);

    g_assert_false (g_file_test (spool, G_FILE_TEST_EXISTS));
  }
  close_dialog (dialog);
}

/* Closing the window during a recording: the program is stopped and the
 * recording written before the dialog goes (the application is held) */
static void
test_close_while_recording (void)
{
  FlameWindow *other = flame_window_new (ADW_APPLICATION (app));
  g_autofree char *quick = workload ("quick");
  g_autofree char *command = g_strdup_printf ("%s spin 60", quick);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  FlameRecordDialog *dialog;

  gtk_window_present (GTK_WINDOW (other));
  dialog = open_dialog (other);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), command);
  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_RECORD);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  wait_for_samples (dialog);
  g_assert_true (dialog->holding);
  path = g_strdup (flame_recorder_get_output_path (dialog->recorder));
  g_assert_nonnull (path);
  /* the raw records are on disk while it runs */
  {
    g_autofree char *spool = g_strconcat (path, ".spool", NULL);

    g_assert_true (g_file_test (spool, G_FILE_TEST_EXISTS));
  }

  gtk_window_close (GTK_WINDOW (other));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  flame_test_gui_wait_for_s (dialog == NULL, 30);
  g_assert_null (dialog);
  file = g_file_new_for_path (path);
  g_assert_cmpuint (file_samples (file), >=, 20);
  {
    g_autofree char *spool = g_strconcat (path, ".spool", NULL);

    g_assert_false (g_file_test (spool, G_FILE_TEST_EXISTS));
  }
}

/* Runs per side 2: the command runs twice for the baseline, twice for
 * the current side, each run a file in the set's folder; the window
 * compares two runs against two */
static void
test_record_runs (void)
{
  g_autofree char *script = write_project ("1");
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  FlameRecordDialog *dialog = open_dialog (window);
  g_autofree char *base_dir = NULL;
  g_autofree char *cur_dir = NULL;

  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (dialog->runs_spin), ==, 1);
  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), "./run.sh");
  dialog->cwd = (g_free (dialog->cwd), g_strdup (tmpdir));
  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_RECORD);
  gtk_spin_button_set_value (dialog->runs_spin, 2);
  screenshot (dialog, "record-dialog-runs.png");

  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  g_assert_cmpint (dialog->phase, ==, FLAME_RECORD_BASELINE);
  g_assert_cmpstr (gtk_label_get_text (dialog->phase_label), ==,
                   "Recording the Baseline, Run 1 of 2");
  wait_for_phase (dialog, FLAME_RECORD_BETWEEN);
  g_assert_cmpuint (dialog->baseline_runs->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    g_assert_cmpuint (file_samples (g_ptr_array_index (dialog->baseline_runs, i)), >, 20);
  {
    g_autoptr(GFile) parent = g_file_get_parent (g_ptr_array_index (dialog->baseline_runs, 1));

    base_dir = g_file_get_path (parent);
  }
  g_assert_true (g_str_has_suffix (base_dir, "/baseline"));
  g_assert_false (g_file_equal (g_ptr_array_index (dialog->baseline_runs, 0),
                                g_ptr_array_index (dialog->baseline_runs, 1)));
  g_assert_cmpint (g_settings_get_int (settings, "recording-runs"), ==, 2);

  g_free (write_project ("4"));
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.current", NULL);
  g_assert_cmpint (dialog->phase, ==, FLAME_RECORD_CURRENT);
  flame_test_gui_wait_for_s (dialog == NULL, 90);
  g_assert_null (dialog);
  wait_for_window (window);

  /* the window compares 2 runs with 2, from the two folders */
  g_assert_nonnull (window->diff);
  g_assert_cmpuint (flame_comparison_get_n_runs (window->comparison, FLAME_DIFF_BASELINE), ==, 2);
  g_assert_cmpuint (flame_comparison_get_n_runs (window->comparison, FLAME_DIFF_CURRENT), ==, 2);
  g_assert_cmpstr (gtk_label_get_text (window->summary_bar->files_label), ==,
                   "baseline (2 runs) → current (2 runs)");
  {
    g_autoptr(GFile) parent = g_file_get_parent (window->files[1]);
    g_autoptr(GFile) grand = NULL;
    g_autoptr(GPtrArray) runs = NULL;
    g_autoptr(GError) error = NULL;

    cur_dir = g_file_get_path (parent);
    runs = flame_comparison_list_runs (cur_dir, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (runs->len, ==, 2);
    grand = g_file_get_parent (parent);
    {
      g_autofree char *set = g_file_get_path (grand);
      g_autofree char *expect = g_build_filename (set, "baseline", NULL);

      /* one folder for the set: baseline/ and current/ side by side */
      g_assert_cmpstr (base_dir, ==, expect);
    }
  }
  /* warm_a four times slower in the current runs */
  {
    const FlameFunctionStat *warm = flame_report_find (window->report, "warm_a");

    g_assert_nonnull (warm);
    g_test_message ("warm_a total %.1f → %.1f ms", warm->total_b, warm->total_c);
    g_assert_cmpfloat (warm->total_c, >, 1.5 * warm->total_b);
  }
  g_settings_reset (settings, "recording-runs");
}

/* run-memory.sh: the memory workload, with alloc_10's work doubled when
 * @twice (the "changed code" of a memory recording) */
static void
write_memory_project (gboolean twice)
{
  g_autofree char *prog = workload ("memory");
  g_autofree char *script = g_build_filename (tmpdir, "run-memory.sh", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\nexec %s%s\n", prog,
                                           twice ? " --double alloc_10" : "");
  GError *error = NULL;

  g_file_set_contents (script, text, -1, &error);
  g_assert_no_error (error);
  g_chmod (script, 0755);
}

/* Measure ▸ Memory: both sides are memory recordings, the window shows
 * bytes, offers the four metrics, and alloc_10 doubled is a regression */
static void
test_record_memory (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  FlameRecordDialog *dialog = NULL;
  g_autofree char *state = NULL;

  write_memory_project (FALSE);
  dialog = open_dialog (window);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_cmpuint (adw_combo_row_get_selected (dialog->measure_row), ==, FLAME_MEASURE_CPU);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (dialog->frequency_row)));
  adw_combo_row_set_selected (dialog->measure_row, FLAME_MEASURE_MEMORY);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (dialog->frequency_row)));
  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), "./run-memory.sh");
  dialog->cwd = (g_free (dialog->cwd), g_strdup (tmpdir));
  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_RECORD);
  flame_test_gui_wait_for (gtk_widget_is_sensitive (dialog->start_button));
  screenshot (dialog, "record-dialog-memory.png");

  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL);
  wait_for_phase (dialog, FLAME_RECORD_BETWEEN);
  g_assert_cmpstr (g_settings_get_string (settings, "recording-measure"), ==, "memory");
  write_memory_project (TRUE);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "record.current", NULL);
  flame_test_gui_wait_for_s (dialog == NULL, 60);
  g_assert_null (dialog);
  wait_for_window (window);

  g_assert_nonnull (window->diff);
  g_assert_cmpint (flame_diff_get_quantity (window->diff), ==, FLAME_QUANTITY_BYTES);
  g_object_get (window, "sample-type", &state, NULL);
  g_assert_cmpstr (state, ==, "allocated");
  g_assert_cmpint (g_menu_model_get_n_items (G_MENU_MODEL (window->sample_type_section)), ==, 4);
  {
    FlameMemoryTotals tb, tc;
    const FlameFunctionStat *a10 = flame_report_find (window->report, "alloc_10");

    /* the split among functions is sampled (about 20 samples for 10 MiB
     * at the default mean: too few to compare); the totals are counted
     * exactly: 48 MiB, then 10 MiB more */
    g_assert_nonnull (a10);
    g_assert_true (flame_memory_get_totals (flame_comparison_get_run_profile (window->comparison,
                                            FLAME_DIFF_BASELINE, 0), &tb));
    g_assert_true (flame_memory_get_totals (flame_comparison_get_run_profile (window->comparison,
                                            FLAME_DIFF_CURRENT, 0), &tc));
    g_test_message ("allocated %.2f → %.2f MiB", tb.allocated_bytes / 1048576.0,
                    tc.allocated_bytes / 1048576.0);
    /* the shell that runs the script and the C library's own blocks
     * (locale, stdio) add up to half a MiB that varies between runs */
    g_assert_cmpfloat (fabs ((tc.allocated_bytes - tb.allocated_bytes) / 1048576.0 - 10), <=, 1.5);
    g_assert_cmpfloat (fabs (tb.allocated_bytes / 1048576.0 - 48), <=, 2);
  }
  g_settings_reset (settings, "recording-measure");
}

/* The Flatpak decision, with a fake /.flatpak-info */
static void
test_flatpak_plan (void)
{
  g_autofree char *info_path = g_build_filename (tmpdir, "flatpak-info", NULL);
  g_autofree char *talk_path = g_build_filename (tmpdir, "flatpak-info-talk", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "no-such-info", NULL);
  const char *info_text =
    "[Application]\nname=io.github.flamediff.Flamediff\nruntime=runtime/org.gnome.Platform/x86_64/43\n\n"
    "[Instance]\napp-path=/var/lib/flatpak/app/io.github.flamediff.Flamediff/x86_64/master/abc/files\n";
  g_autofree char *talk_text =
    g_strconcat (info_text, "\n[Session Bus Policy]\norg.freedesktop.Flatpak=talk\n", NULL);
  const char *argv[] = { "/opt/host-only/bin/myprog", "--size", "a b", NULL };
  g_autoptr(FlameSandboxInfo) none = NULL;
  g_autoptr(FlameSandboxInfo) info = NULL;
  g_autoptr(FlameSandboxInfo) talk = NULL;
  g_autofree char *alt = NULL;
  g_auto(GStrv) host_argv = NULL;
  const char *env[] = { "LD_PRELOAD=/run/user/1000/app/x/libflamediff-sampler.so", NULL };
  FlameRecordDialog *dialog;

  g_assert_true (g_file_set_contents (info_path, info_text, -1, NULL));
  g_assert_true (g_file_set_contents (talk_path, talk_text, -1, NULL));

  none = flame_sandbox_info_new (missing);
  g_assert_false (none->in_flatpak);
  g_assert_cmpint (flame_sandbox_plan (none, argv[0], NULL), ==, FLAME_SANDBOX_PLAN_DIRECT);

  info = flame_sandbox_info_new (info_path);
  g_assert_true (info->in_flatpak);
  g_assert_cmpstr (info->app_id, ==, "io.github.flamediff.Flamediff");
  g_assert_false (info->host_talk);
  /* sh is in the runtime: recorded inside the sandbox */
  g_assert_cmpint (flame_sandbox_plan (info, "sh", NULL), ==, FLAME_SANDBOX_PLAN_INSIDE);
  g_assert_cmpint (flame_sandbox_plan (info, "/bin/sh", NULL), ==, FLAME_SANDBOX_PLAN_INSIDE);
  g_assert_cmpint (flame_sandbox_plan (info, argv[0], NULL), ==, FLAME_SANDBOX_PLAN_HOST_ONLY);
  g_assert_cmpint (flame_sandbox_plan (info, "no-such-program-xyz", NULL), ==,
                   FLAME_SANDBOX_PLAN_HOST_ONLY);

  talk = flame_sandbox_info_new (talk_path);
  g_assert_true (talk->host_talk);
  g_assert_cmpint (flame_sandbox_plan (talk, argv[0], NULL), ==, FLAME_SANDBOX_PLAN_HOST_SPAWN);

  alt = flame_sandbox_host_command (argv, "/home/me/proj");
  g_assert_cmpstr (alt, ==, "cd /home/me/proj && flamediff-cli record -o run.speedscope.json -- "
                            "/opt/host-only/bin/myprog --size 'a b'");

  host_argv = flame_sandbox_host_argv (argv, "/home/me/proj", env, 1000);
  g_assert_cmpstr (host_argv[0], ==, "flatpak-spawn");
  g_assert_true (g_strv_contains ((const char * const *) host_argv, "--host"));
  g_assert_true (g_strv_contains ((const char * const *) host_argv, "--forward-fd=1000"));
  g_assert_true (g_strv_contains ((const char * const *) host_argv, "--directory=/home/me/proj"));
  g_assert_true (g_strv_contains ((const char * const *) host_argv,
                                  "--env=LD_PRELOAD=/run/user/1000/app/x/libflamediff-sampler.so"));
  g_assert_cmpstr (host_argv[g_strv_length (host_argv) - 3], ==, argv[0]);

  /* the dialog says it plainly, and offers the command line for the host */
  g_setenv ("FLAMEDIFF_FLATPAK_INFO", info_path, TRUE);
  dialog = open_dialog (window);
  g_unsetenv ("FLAMEDIFF_FLATPAK_INFO");
  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), "/opt/host-only/bin/myprog --size 3");
  adw_combo_row_set_selected (dialog->baseline_row, FLAME_BASELINE_RECORD);
  flame_test_gui_wait_for (gtk_widget_get_visible (dialog->sandbox_box));
  g_assert_false (gtk_widget_is_sensitive (dialog->start_button));
  g_assert_nonnull (
    strstr (gtk_label_get_text (dialog->sandbox_command),
            "flamediff-cli record -o run.speedscope.json -- /opt/host-only/bin/myprog --size 3"));
  screenshot (dialog, "record-dialog-flatpak.png");
  /* a program inside the sandbox: no note, recordable */
  gtk_editable_set_text (GTK_EDITABLE (dialog->command_row), "sh -c true");
  flame_test_gui_wait_for (!gtk_widget_get_visible (dialog->sandbox_box));
  g_assert_true (gtk_widget_is_sensitive (dialog->start_button));
  close_dialog (dialog);
}

static void
test_shortcuts (void)
{
  g_auto(GStrv) record =
    gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.record");
  g_auto(GStrv) reload =
    gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.reload");

  g_assert_cmpstr (record[0], ==, "<Control>r");
  g_assert_true (g_strv_contains ((const char * const *) reload, "F5"));
  g_assert_true (g_strv_contains ((const char * const *) reload, "<Shift><Control>r"));
  g_assert_false (g_strv_contains ((const char * const *) reload, "<Control>r"));
}

static void
skip_no_display (void)
{
  g_test_skip ("no display: meson runs it under Xvfb (Debian package xvfb)");
}

int
main (int   argc,
      char *argv[])
{
  GError *error = NULL;
  int ret;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_init (&argc, &argv, NULL);
      g_test_add_func ("/record-dialog/no-display", skip_no_display);
      return g_test_run ();
    }
  tmpdir = g_dir_make_tmp ("flamediff-record-XXXXXX", &error);
  g_assert_no_error (error);
  /* a fresh recordings folder for each run, before GLib reads it */
  {
    g_autofree char *data = g_build_filename (tmpdir, "data", NULL);

    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  if (!flame_test_gui_init (&argc, &argv, "/record-dialog/no-en-us-locale"))
    return g_test_run ();
  /* C.UTF-8, or the comma-decimal run's de_DE.UTF-8 */
  flame_test_set_locale ();
  window = flame_test_gui_start (&app, 1000, 700);

  g_test_add_func ("/record-dialog/shortcuts", test_shortcuts);
  g_test_add_func ("/record-dialog/flatpak-plan", test_flatpak_plan);
  g_test_add_func ("/record-dialog/record-twice", test_record_twice);
  g_test_add_func ("/record-dialog/earlier-recording", test_earlier_recording);
  g_test_add_func ("/record-dialog/stop", test_stop);
  g_test_add_func ("/record-dialog/close-while-recording", test_close_while_recording);
  g_test_add_func ("/record-dialog/record-runs", test_record_runs);
  g_test_add_func ("/record-dialog/record-memory", test_record_memory);

  ret = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  return ret;
}

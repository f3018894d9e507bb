/* flame-window-actions.c: the window's actions (win.*): opening, recording,
 * recovery, swap, reload, export, search and zoom.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "flame-error-text.h"
#include "flame-export.h"
#include "flame-file-chooser.h"
#include "flame-parallel.h"
#include "flame-record-dialog.h"
#include "flame-recorder.h"
#include "flame-window-private.h"

void
_flame_window_actions_update (FlameWindow *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  gboolean loaded = self->source != NULL;
  gboolean is_diff = self->diff != NULL;

  gtk_widget_action_set_enabled (w, "win.swap", self->files[1] != NULL);
  gtk_widget_action_set_enabled (w, "win.reload", self->files[0] != NULL);
  gtk_widget_action_set_enabled (w, "win.export", loaded);
  gtk_widget_action_set_enabled (w, "win.copy-summary", self->report != NULL);
  gtk_widget_action_set_enabled (w, "win.find", loaded);
  gtk_widget_action_set_enabled (w, "win.next-match", loaded);
  gtk_widget_action_set_enabled (w, "win.previous-match", loaded);
  gtk_widget_action_set_enabled (w, "win.zoom-out", loaded);
  gtk_widget_action_set_enabled (w, "win.reset-zoom", loaded);
  gtk_widget_action_set_enabled (w, "win.show-sidebar", self->report != NULL);
  gtk_widget_action_set_enabled (w, "win.view", is_diff);
  gtk_widget_action_set_enabled (w, "win.inverted",
                                 is_diff && g_strcmp0 (self->view, "elided") != 0);
  gtk_widget_action_set_enabled (w, "win.normalize", is_diff);
  gtk_widget_action_set_enabled (w, "win.colour-by-total", is_diff);
  gtk_widget_action_set_enabled (w, "win.hide-noise", is_diff);

  gtk_widget_set_visible (self->sidebar_button, self->report != NULL);
  /* the narrow layout moves these two into the main menu */
  gtk_widget_set_visible (self->view_menu_button, loaded && !self->narrow_applied);
  gtk_widget_set_visible (self->search_button, loaded && !self->narrow_applied);
}


static void
pair_second_chosen (GtkWindow *parent,
                    GPtrArray *files,
                    gpointer   user_data)
{
  g_autoptr(GFile) baseline = user_data;

  g_assert (FLAME_IS_WINDOW (parent));
  g_assert (files != NULL);
  g_assert (G_IS_FILE (baseline));

  if (files->len > 0)
    flame_window_open (FLAME_WINDOW (parent), baseline, files->pdata[0]);
}

static void
pair_first_chosen (GtkWindow *parent,
                   GPtrArray *files,
                   gpointer   user_data)
{
  g_assert (FLAME_IS_WINDOW (parent));
  g_assert (files != NULL);

  if (files->len >= 2)
    flame_window_open_files (FLAME_WINDOW (parent), (GFile **) files->pdata, files->len);
  else if (files->len == 1)
    flame_choose_profiles (parent, _("Select the Current Profile"), FALSE,
                           pair_second_chosen, g_object_ref (files->pdata[0]));
}

static void
open_pair_action (GtkWidget  *widget,
                  const char *name,
                  GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_choose_profiles (GTK_WINDOW (widget), _("Select the Baseline Profile, or Both Profiles"),
                         TRUE, pair_first_chosen, NULL);
}

/* Open Runs: several files for each side (issue 14), as
 * `compare --baseline A1 --baseline A2 --current B1 …` takes them */
static void
runs_second_chosen (GtkWindow *parent,
                    GPtrArray *files,
                    gpointer   user_data)
{
  g_autoptr(GPtrArray) baseline = user_data;

  g_assert (FLAME_IS_WINDOW (parent));
  g_assert (files != NULL);

  if (files->len > 0)
    flame_window_open_runs (FLAME_WINDOW (parent), baseline, files);
}

static void
runs_first_chosen (GtkWindow *parent,
                   GPtrArray *files,
                   gpointer   user_data)
{
  gboolean folders = GPOINTER_TO_INT (user_data);

  g_assert (FLAME_IS_WINDOW (parent));
  g_assert (files != NULL);

  if (files->len == 0)
    return;
  if (folders)
    flame_choose_folder (parent, _("Select the Folder of the Current Runs"), NULL,
                         runs_second_chosen, g_ptr_array_ref (files));
  else
    flame_choose_profiles (parent, _("Select the Current Runs"), TRUE,
                           runs_second_chosen, g_ptr_array_ref (files));
}

static void
open_runs_action (GtkWidget  *widget,
                  const char *name,
                  GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_choose_profiles (GTK_WINDOW (widget), _("Select the Baseline Runs"), TRUE,
                         runs_first_chosen, GINT_TO_POINTER (FALSE));
}

/* a folder for each side: every profile inside is one run */
static void
open_run_folders_action (GtkWidget  *widget,
                         const char *name,
                         GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_choose_folder (GTK_WINDOW (widget), _("Select the Folder of the Baseline Runs"), NULL,
                       runs_first_chosen, GINT_TO_POINTER (TRUE));
}

static void
single_chosen (GtkWindow *parent,
               GPtrArray *files,
               gpointer   user_data)
{
  g_assert (FLAME_IS_WINDOW (parent));
  g_assert (files != NULL);

  if (files->len > 0)
    flame_window_open_files (FLAME_WINDOW (parent), (GFile **) files->pdata, files->len);
}

static void
open_single_action (GtkWidget  *widget,
                    const char *name,
                    GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_choose_profiles (GTK_WINDOW (widget), _("Open a Profile"), FALSE, single_chosen, NULL);
}

static void
open_example_action (GtkWidget  *widget,
                     const char *name,
                     GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_window_open_example (FLAME_WINDOW (widget));
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *name,
                    GVariant   *param)
{
  g_autofree const char **uris = g_variant_get_strv (param, NULL);
  g_autoptr(GFile) a = NULL;
  g_autoptr(GFile) b = NULL;

  g_assert (FLAME_IS_WINDOW (widget));

  if (uris[0] == NULL)
    return;
  if (g_strv_contains (uris, ""))
    {
      /* sets of runs: the baseline's, "", the current side's */
      g_autoptr(GPtrArray) base_runs = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(GPtrArray) cur_runs = g_ptr_array_new_with_free_func (g_object_unref);
      GPtrArray *side = base_runs;

      for (guint i = 0; uris[i] != NULL; i++)
        if (*uris[i] == '\0')
          side = cur_runs;
        else
          g_ptr_array_add (side, g_file_new_for_uri (uris[i]));
      if (base_runs->len > 0)
        flame_window_open_runs (FLAME_WINDOW (widget), base_runs,
                                cur_runs->len > 0 ? cur_runs : NULL);
      return;
    }
  a = g_file_new_for_uri (uris[0]);
  b = uris[1] ? g_file_new_for_uri (uris[1]) : NULL;
  flame_window_open (FLAME_WINDOW (widget), a, b);
}

/* Called when files were opened: a profile on both sides is a mistake
 * (two picks of the same file in the dialog, a stale recent entry), but
 * it still opens, the error bar saying why every change is zero. */
void
_flame_window_warn_same_file (FlameWindow *self)
{
  FlameComparison *c = self->comparison;

  g_assert (FLAME_IS_WINDOW (self));

  if (c == NULL)
    return;
  for (guint i = 0; i < flame_comparison_get_n_runs (c, FLAME_DIFF_BASELINE); i++)
    for (guint j = 0; j < flame_comparison_get_n_runs (c, FLAME_DIFF_CURRENT); j++)
      {
        GFile *a = flame_comparison_get_run_file (c, FLAME_DIFF_BASELINE, i);
        GFile *b = flame_comparison_get_run_file (c, FLAME_DIFF_CURRENT, j);

        if (a != NULL && b != NULL && g_file_equal (a, b))
          {
            g_autofree char *name = g_file_get_basename (a);
            /* Translators: %s is a file name */
            g_autofree char *text =
              g_strdup_printf (_("“%s” is both the baseline and the current profile, "
                                 "so nothing can differ. Open another file for one side."),
                               name);

            _flame_window_show_error (self, text);
            return;
          }
      }
}

static void
record_action (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  FlameWindow *self = FLAME_WINDOW (widget);

  g_assert (FLAME_IS_WINDOW (widget));

  flame_record_dialog_present (flame_record_dialog_new (self, self->settings));
}

static void
cancel_action (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  FlameWindow *self = FLAME_WINDOW (widget);

  g_assert (FLAME_IS_WINDOW (widget));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  _flame_window_clear_pending (self);
}

/* ---- recordings interrupted by a crash or a kill ----
 *
 * A recorder that did not finish leaves OUTPUT.spool in the recordings
 * folder (docs/recording.md). A window that opens looks for them and
 * offers to write them; the recordings land next to the spools, where
 * Record and Diff lists its earlier recordings. Spools that a running
 * recorder holds (this or another process) are not offered. */

static void
recover_thread (GTask        *task,
                gpointer      source,
                gpointer      data,
                GCancellable *cancellable)
{
  GPtrArray *spools = data;
  GPtrArray *written = g_ptr_array_new_with_free_func (g_free);
  GString *errors = g_string_new (NULL);

  g_assert (G_IS_TASK (task));
  g_assert (spools != NULL);

  flame_parallel_enter_background ();
  for (guint i = 0; i < spools->len; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile =
        flame_recorder_recover (g_ptr_array_index (spools, i), &error);

      if (profile != NULL)
        g_ptr_array_add (written, g_strdup (flame_profile_get_path (profile)));
      else
        {
          g_autofree char *text = flame_error_text (error, NULL);

          g_string_append_printf (errors, "%s%s", errors->len ? "\n" : "", text);
        }
    }
  if (errors->len > 0)
    g_object_set_data_full (G_OBJECT (task), "errors", g_string_free (errors, FALSE), g_free);
  else
    g_string_free (errors, TRUE);
  g_task_return_pointer (task, written, (GDestroyNotify) g_ptr_array_unref);
}

static void
on_recovered (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  FlameWindow *self = FLAME_WINDOW (source);
  g_autoptr(GPtrArray) written = g_task_propagate_pointer (G_TASK (result), NULL);
  const char *errors = g_object_get_data (G_OBJECT (result), "errors");

  g_assert (FLAME_IS_WINDOW (self));
  g_assert (G_IS_TASK (result));

  if (self->recover_revealer == NULL)
    return;   /* closed meanwhile: the recordings are written all the same */
  self->recovering = FALSE;
  gtk_widget_set_sensitive (self->recover_button, TRUE);
  gtk_revealer_set_reveal_child (self->recover_revealer, FALSE);
  g_clear_pointer (&self->spools, g_ptr_array_unref);
  if (written != NULL && written->len > 0)
    {
      g_autofree char *text = NULL;

      if (written->len == 1)
        {
          g_autofree char *name = g_path_get_basename (g_ptr_array_index (written, 0));

          /* Translators: a toast; the file name of the recording written from an interrupted one */
          text = g_strdup_printf (_("Recovered %s"), name);
        }
      else
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Recovered %u recording",
                                             "Recovered %u recordings", written->len),
                                written->len);
      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (text));
    }
  if (errors != NULL)
    {
      /* Translators: %s is one line per recording that could not be recovered */
      g_autofree char *message =
        g_strdup_printf (_("Could not recover an interrupted recording: %s"), errors);

      _flame_window_show_error (self, message);
    }
}

static void
recover_recordings_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  FlameWindow *self = FLAME_WINDOW (widget);
  g_autoptr(GTask) task = NULL;

  g_assert (FLAME_IS_WINDOW (widget));

  if (self->spools == NULL || self->recovering)
    return;
  self->recovering = TRUE;
  gtk_widget_set_sensitive (self->recover_button, FALSE);
  task = g_task_new (self, NULL, on_recovered, NULL);
  g_task_set_task_data (task, g_ptr_array_ref (self->spools), (GDestroyNotify) g_ptr_array_unref);
  g_task_run_in_thread (task, recover_thread);
}

static void
dismiss_recover_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  g_assert (FLAME_IS_WINDOW (widget));

  gtk_revealer_set_reveal_child (FLAME_WINDOW (widget)->recover_revealer, FALSE);
}

/**
 * flame_window_check_interrupted_recordings:
 *
 * Offers to recover the spools of interrupted recordings in the
 * recordings folder, if there are any. Returns how many were found.
 */
guint
flame_window_check_interrupted_recordings (FlameWindow *self)
{
  g_autofree char *dir = flame_recorder_default_dir ();
  g_autoptr(GPtrArray) spools = flame_recorder_find_spools (dir);
  g_autofree char *text = NULL;

  if (self->recovering)
    return self->spools != NULL ? self->spools->len : 0;
  g_clear_pointer (&self->spools, g_ptr_array_unref);
  gtk_revealer_set_reveal_child (self->recover_revealer, spools->len > 0);
  if (spools->len == 0)
    return 0;
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "A recording was interrupted before it was saved. Its "
                                       "samples can still be recovered.",
                                       "%u recordings were interrupted before they were saved. "
                                       "Their samples can still be recovered.",
                                       spools->len),
                          spools->len);
  gtk_label_set_text (self->recover_label, text);
  self->spools = g_steal_pointer (&spools);
  return self->spools->len;
}

static void
dismiss_error_action (GtkWidget  *widget,
                      const char *name,
                      GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  gtk_revealer_set_reveal_child (FLAME_WINDOW (widget)->error_revealer, FALSE);
}

static void
swap_action (GtkWidget  *widget,
             const char *name,
             GVariant   *param)
{
  FlameWindow *self = FLAME_WINDOW (widget);
  FlameComparison *base;
  g_autoptr(FlameComparison) next = NULL;

  g_assert (FLAME_IS_WINDOW (widget));

  if (self->pending != NULL && self->view_task == NULL)
    {
      /* still loading: swap what it loads, once it has */
      self->pending_swap = !self->pending_swap;
      return;
    }
  base = self->pending != NULL ? self->pending : self->comparison;
  if (base == NULL || flame_comparison_get_n_runs (base, FLAME_DIFF_CURRENT) == 0)
    return;
  next = _flame_window_derive_comparison (self, base, TRUE);
  _flame_window_start_comparison (self, next);
}

/* every run of each side read again, with the sample type chosen */
void
_flame_window_reload (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  self->keep_sample_type = TRUE;
  if (self->comparison != NULL && self->files[0] != NULL)
    {
      g_autoptr(GPtrArray) base_runs = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(GPtrArray) cur_runs = g_ptr_array_new_with_free_func (g_object_unref);
      GPtrArray *runs[2] = { base_runs, cur_runs };

      for (guint side = 0; side < 2; side++)
        for (guint i = 0; i < flame_comparison_get_n_runs (self->comparison, side); i++)
          {
            GFile *file = flame_comparison_get_run_file (self->comparison, side, i);

            if (file == NULL)
              {
                /* a run that came without a file: read what has one */
                flame_window_open (self, self->files[0], self->files[1]);
                self->keep_sample_type = FALSE;
                return;
              }
            g_ptr_array_add (runs[side], g_object_ref (file));
          }
      flame_window_open_runs (self, base_runs, cur_runs->len > 0 ? cur_runs : NULL);
    }
  self->keep_sample_type = FALSE;
}

static void
reload_action (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  _flame_window_reload (FLAME_WINDOW (widget));
}

static void
copy_summary_action (GtkWidget  *widget,
                     const char *name,
                     GVariant   *param)
{
  FlameWindow *self = FLAME_WINDOW (widget);
  g_autoptr(GString) out = g_string_new (NULL);

  g_assert (FLAME_IS_WINDOW (widget));

  if (self->report == NULL)
    return;
  flame_report_write_markdown (self->report, out);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), out->str);
  adw_toast_overlay_add_toast (self->toast_overlay,
                               adw_toast_new (_("Summary copied to the clipboard")));
}

typedef struct
{
  FlameLayoutSource  *source;
  FlameExportOptions  options;
  char               *title;
  char               *search;
  char               *path;
  gboolean            svg;
} ExportJob;

static void
export_job_free (ExportJob *job)
{
  g_clear_object (&job->source);
  g_free (job->title);
  g_free (job->search);
  g_free (job->path);
  g_free (job);
}

static void
export_run (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  ExportJob *job = task_data;
  GError *error = NULL;
  gboolean ok;

  g_assert (G_IS_TASK (task));
  g_assert (job != NULL);

  flame_parallel_enter_background ();
  job->options.title = job->title;
  job->options.search = job->search;
  ok = job->svg ? flame_export_svg (job->source, &job->options, job->path, &error)
                : flame_export_png (job->source, &job->options, job->path, &error);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
export_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  FlameWindow *self = FLAME_WINDOW (object);
  g_autoptr(GError) error = NULL;

  g_assert (FLAME_IS_WINDOW (self));
  g_assert (G_IS_TASK (result));

  self->n_exports--;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autofree char *message = flame_error_text (error, _("Could not export the image"));

      _flame_window_show_error (self, message);
    }
  else
    {
      ExportJob *job = g_task_get_task_data (G_TASK (result));
      g_autofree char *base = g_path_get_basename (job->path);
      g_autofree char *text = g_strdup_printf (_("Exported “%s”"), base);

      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (text));
    }
}

/* Exports what the graph shows now (view, zoom, orientation, palette,
 * search) to @file: SVG when its name ends in .svg, else PNG. The export
 * dialog's response lands here; so do the tests. */
void
_flame_window_export (FlameWindow *self,
                      GFile       *file)
{
  g_autoptr(GTask) task = NULL;
  ExportJob *job;
  guint orientation = 0;
  guint32 zoom = flame_graph_view_get_zoom_node (self->graph_view);
  AdwStyleManager *sm = adw_style_manager_get_default ();

  if (self->source == NULL)
    return;

  job = g_new0 (ExportJob, 1);
  job->source = g_object_ref (self->source);
  job->path = g_file_get_path (file);
  if (job->path == NULL)
    {
      export_job_free (job);
      _flame_window_show_error (self,
                                _("Could not export the image: only local files can be written"));
      return;
    }
  job->svg = g_str_has_suffix (job->path, ".svg") || g_str_has_suffix (job->path, ".SVG");
  g_object_get (self->graph_view, "orientation", &orientation, NULL);
  flame_export_options_init (&job->options);
  job->options.width = MAX (gtk_widget_get_width (GTK_WIDGET (self->graph_view)), 800);
  job->options.dark = adw_style_manager_get_dark (sm);
  job->options.high_contrast = adw_style_manager_get_high_contrast (sm);
  job->options.legend = TRUE;
  job->options.orientation = orientation;
  job->options.zoom = zoom;
  job->title = g_strdup (flame_summary_bar_get_title (self->summary_bar));
  if (gtk_search_bar_get_search_mode (self->search_bar))
    job->search = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));

  self->n_exports++;
  task = g_task_new (self, NULL, export_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_free);
  g_task_run_in_thread (task, export_run);
}

static void
export_chosen (GtkWindow *parent,
               GPtrArray *files,
               gpointer   user_data)
{
  g_assert (FLAME_IS_WINDOW (parent));
  g_assert (files != NULL);

  if (files->len > 0)
    _flame_window_export (FLAME_WINDOW (parent), files->pdata[0]);
}

static void
export_action (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  FlameWindow *self = FLAME_WINDOW (widget);
  g_autofree char *base = self->files[1] ? g_file_get_basename (self->files[1])
                                         : self->files[0] ? g_file_get_basename (self->files[0])
                                                          : g_strdup ("flamegraph");
  char *dot = strrchr (base, '.');
  g_autofree char *initial = NULL;

  g_assert (FLAME_IS_WINDOW (widget));

  if (dot != NULL && dot != base)
    *dot = 0;
  initial = g_strconcat (base, self->diff ? "-diff.png" : ".png", NULL);
  flame_choose_image_file (GTK_WINDOW (widget), _("Export Image"), initial, export_chosen, NULL);
}

static void
next_match_action (GtkWidget  *widget,
                   const char *name,
                   GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_graph_view_next_match (FLAME_WINDOW (widget)->graph_view);
}

static void
previous_match_action (GtkWidget  *widget,
                       const char *name,
                       GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_graph_view_previous_match (FLAME_WINDOW (widget)->graph_view);
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *name,
                 GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_graph_view_zoom_out (FLAME_WINDOW (widget)->graph_view);
}

static void
reset_zoom_action (GtkWidget  *widget,
                   const char *name,
                   GVariant   *param)
{
  g_assert (FLAME_IS_WINDOW (widget));

  flame_graph_view_reset_zoom (FLAME_WINDOW (widget)->graph_view);
}

void
_flame_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open-pair", NULL, open_pair_action);
  gtk_widget_class_install_action (widget_class, "win.open-single", NULL, open_single_action);
  gtk_widget_class_install_action (widget_class, "win.open-runs", NULL, open_runs_action);
  gtk_widget_class_install_action (widget_class, "win.open-run-folders", NULL,
                                   open_run_folders_action);
  gtk_widget_class_install_action (widget_class, "win.open-example", NULL, open_example_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "as", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.record", NULL, record_action);
  gtk_widget_class_install_action (widget_class, "win.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-error", NULL, dismiss_error_action);
  gtk_widget_class_install_action (widget_class, "win.recover-recordings", NULL,
                                   recover_recordings_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-recover", NULL,
                                   dismiss_recover_action);
  gtk_widget_class_install_action (widget_class, "win.swap", NULL, swap_action);
  gtk_widget_class_install_action (widget_class, "win.reload", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.copy-summary", NULL, copy_summary_action);
  gtk_widget_class_install_action (widget_class, "win.next-match", NULL, next_match_action);
  gtk_widget_class_install_action (widget_class, "win.previous-match", NULL, previous_match_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "win.reset-zoom", NULL, reset_zoom_action);
  gtk_widget_class_install_property_action (widget_class, "win.view", "view");
  gtk_widget_class_install_property_action (widget_class, "win.inverted", "inverted");
  gtk_widget_class_install_property_action (widget_class, "win.normalize", "normalize");
  gtk_widget_class_install_property_action (widget_class, "win.colour-by-total", "colour-by-total");
  gtk_widget_class_install_property_action (widget_class, "win.hide-noise", "hide-noise");
  gtk_widget_class_install_property_action (widget_class, "win.find", "search-mode");
  gtk_widget_class_install_property_action (widget_class, "win.show-sidebar", "show-sidebar");
  gtk_widget_class_install_property_action (widget_class, "win.show-legend", "show-legend");
  gtk_widget_class_install_property_action (widget_class, "win.sample-type", "sample-type");
}

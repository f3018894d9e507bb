/* flame-record-dialog.c: Record and Diff.
 *
 * One dialog (an AdwDialog over the window from libadwaita 1.5, a modal
 * AdwWindow before), three steps in a GtkStack: "setup" (command, working
 * directory, frequency, where the baseline comes from), "recording"
 * (elapsed time, samples, lost samples, Stop, the program's output) and,
 * when the baseline is recorded now, "between" (change the code, then
 * Record Current). The finished pair opens in the window through
 * flame_window_open(), the function the window uses for files.
 *
 * With "Runs per side" above 1 the command runs that many times, one run
 * after the other, for each side; the runs go to a folder of their own,
 * PROGRAM-STAMP/baseline/run-01.speedscope.json … and …/current/ (as
 * `flamediff-cli record --runs` writes them), and the two sets open
 * through flame_window_open_runs().
 *
 * Recordings go to $XDG_DATA_HOME/flamediff/recordings (the recorder's
 * default). Closing the dialog or its window during a recording stops the
 * program and still writes the file: the application is held until the
 * recorder has finished (flame_record_dialog_shutdown()).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "flame-error-text.h"
#include "flame-file-chooser.h"
#include "flame-record-dialog-private.h"

#define MAX_RECENT_COMMANDS 10
#define MAX_LOG_CHARS (512 * 1024)

/* the size it opens with */
#define DIALOG_WIDTH  580
#define DIALOG_HEIGHT 660

#if ADW_CHECK_VERSION(1, 5, 0)
G_DEFINE_FINAL_TYPE (FlameRecordDialog, flame_record_dialog, ADW_TYPE_DIALOG)
#else
G_DEFINE_FINAL_TYPE (FlameRecordDialog, flame_record_dialog, ADW_TYPE_WINDOW)
#endif

static void start_recording (FlameRecordDialog *self,
                             FlameRecordPhase   phase);

/* takes the dialog away now (no close request): an AdwDialog leaves its
 * window, a window is destroyed */
static void
destroy_dialog (FlameRecordDialog *self)
{
#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_force_close (ADW_DIALOG (self));
#else
  gtk_window_destroy (GTK_WINDOW (self));
#endif
}

/* the window the dialog is over, for the file choosers */
static GtkWindow *
parent_window (FlameRecordDialog *self)
{
#if ADW_CHECK_VERSION(1, 5, 0)
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
#else
  return GTK_WINDOW (self);
#endif
}

/* ------------------------------------------------------------------ */
/* Earlier recordings */

/* the "command" of the file's flamediff metadata: it is written near the
 * start, so the head of the file is enough */
static char *
read_command (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, NULL);
  char head[16384];
  gsize n = 0;
  const char *p;
  GString *out;

  if (in == NULL ||
      !g_input_stream_read_all (G_INPUT_STREAM (in), head, sizeof head - 1, &n, NULL, NULL))
    return NULL;
  head[n] = '\0';
  p = strstr (head, "\"command\":\"");
  if (p == NULL)
    return NULL;
  p += strlen ("\"command\":\"");
  out = g_string_new (NULL);
  for (; *p && *p != '"'; p++)
    {
      if (*p != '\\')
        {
          g_string_append_c (out, *p);
          continue;
        }
      p++;
      switch (*p)
        {
        case 'n': g_string_append_c (out, '\n'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          if (g_ascii_isxdigit (p[1]) && g_ascii_isxdigit (p[2]) &&
              g_ascii_isxdigit (p[3]) && g_ascii_isxdigit (p[4]))
            {
              char hex[5] = { p[1], p[2], p[3], p[4], 0 };

              g_string_append_unichar (out, (gunichar) g_ascii_strtoull (hex, NULL, 16));
              p += 4;
            }
          break;
        case '\0': p--; break;
        default: g_string_append_c (out, *p); break;
        }
    }
  if (*p != '"')
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/**
 * flame_record_dialog_describe_recording:
 *
 * "COMMAND — DATE" for a file of the recordings folder.
 */
char *
flame_record_dialog_describe_recording (const char *path)
{
  g_autofree char *command = read_command (path);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                                 G_FILE_QUERY_INFO_NONE, NULL, NULL);
  g_autoptr(GDateTime) when = info ? g_file_info_get_modification_date_time (info) : NULL;
  g_autoptr(GDateTime) local = when ? g_date_time_to_local (when) : NULL;
  g_autofree char *date = local ? g_date_time_format (local, "%x %X") : g_strdup ("");

  if (command == NULL)
    command = g_path_get_basename (path);
  /* Translators: an earlier recording: the command, then when it ran */
  return g_strdup_printf (_("%s — %s"), command, date);
}

static gint
compare_mtime_desc (gconstpointer a,
                    gconstpointer b)
{
  GStatBuf sa, sb;
  const char *pa = *(const char * const *) a;
  const char *pb = *(const char * const *) b;

  if (g_stat (pa, &sa) != 0 || g_stat (pb, &sb) != 0)
    return 0;
  return (sb.st_mtime > sa.st_mtime) - (sb.st_mtime < sa.st_mtime);
}

static void
load_earlier_recordings (FlameRecordDialog *self)
{
  g_autofree char *dir = flame_recorder_default_dir ();
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  const char *name;

  g_ptr_array_set_size (self->earlier_paths, 0);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".speedscope.json"))
      g_ptr_array_add (self->earlier_paths, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (self->earlier_paths, compare_mtime_desc);
  for (guint i = 0; i < self->earlier_paths->len; i++)
    {
      g_autofree char *label = flame_record_dialog_describe_recording (
        g_ptr_array_index (self->earlier_paths, i));

      gtk_string_list_append (names, label);
    }
  adw_combo_row_set_model (self->earlier_row, G_LIST_MODEL (names));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->earlier_row),
                               self->earlier_paths->len == 0 ? _("No recordings yet") : "");
}

/* ------------------------------------------------------------------ */
/* Recent commands */

static void
rebuild_recent_menu (FlameRecordDialog *self)
{
  g_auto(GStrv) recent = g_settings_get_strv (self->settings, "recent-commands");

  g_menu_remove_all (self->recent_menu);
  for (guint i = 0; recent[i] != NULL; i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (recent[i], NULL);

      g_menu_item_set_action_and_target_value (item, "record.use-command",
                                               g_variant_new_string (recent[i]));
      g_menu_append_item (self->recent_menu, item);
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->recent_button), recent[0] != NULL);
}

static void
remember_command (FlameRecordDialog *self,
                  const char        *command)
{
  g_auto(GStrv) recent = g_settings_get_strv (self->settings, "recent-commands");
  GStrvBuilder *b = g_strv_builder_new ();
  g_auto(GStrv) updated = NULL;
  guint n = 1;

  g_strv_builder_add (b, command);
  for (guint i = 0; recent[i] != NULL && n < MAX_RECENT_COMMANDS; i++)
    if (!g_str_equal (recent[i], command))
      {
        g_strv_builder_add (b, recent[i]);
        n++;
      }
  updated = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  g_settings_set_strv (self->settings, "recent-commands", (const char * const *) updated);
}

/* ------------------------------------------------------------------ */
/* The setup page */

static FlameBaselineMode
baseline_mode (FlameRecordDialog *self)
{
  return (FlameBaselineMode) adw_combo_row_get_selected (self->baseline_row);
}

static void
show_error (FlameRecordDialog *self,
            const char        *message)
{
  gtk_label_set_text (self->error_label, message ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

/* the recorder's errors read as sentences already ("the sampler … is
 * not installed"); the system's refusals get plain words */
static void
show_error_from (FlameRecordDialog *self,
                 const GError      *error)
{
  g_autofree char *message = flame_error_text (error, NULL);

  show_error (self, message);
}

static gboolean
parse_command (FlameRecordDialog *self,
               GStrv             *argv,
               GError           **error)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->command_row));
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  if (*stripped == '\0')
    {
      g_set_error_literal (error, G_SHELL_ERROR, G_SHELL_ERROR_EMPTY_STRING,
                           _("Type the command to record"));
      return FALSE;
    }
  return g_shell_parse_argv (stripped, NULL, argv, error);
}

/* What the sandbox means for this command, said plainly */
static void
update_sandbox_note (FlameRecordDialog *self)
{
  g_auto(GStrv) argv = NULL;

  self->plan = FLAME_SANDBOX_PLAN_DIRECT;
  if (parse_command (self, &argv, NULL))
    self->plan = flame_sandbox_plan (self->sandbox, argv[0], self->cwd);

  switch (self->plan)
    {
    case FLAME_SANDBOX_PLAN_HOST_ONLY:
      {
        g_autofree char *alt = flame_sandbox_host_command ((const char * const *) argv, self->cwd);

        gtk_label_set_text (self->sandbox_title, _("This program is outside Flamediff’s sandbox"));
        gtk_label_set_text (self->sandbox_label,
                            _("Flamediff runs as a Flatpak and cannot find this program inside its "
                              "sandbox. It can only record programs it can reach through the "
                              "folders it was given access to, and it has no permission to start "
                              "programs on the host. Record the program on the host with "
                              "flamediff-cli instead, then open the file here as a profile:"));
        gtk_label_set_text (self->sandbox_command, alt);
        gtk_widget_set_visible (GTK_WIDGET (self->sandbox_command), TRUE);
        gtk_widget_set_visible (self->sandbox_box, TRUE);
      }
      break;
    case FLAME_SANDBOX_PLAN_HOST_SPAWN:
      gtk_label_set_text (self->sandbox_title, _("This program runs on the host"));
      gtk_label_set_text (self->sandbox_label,
                          _("It is not inside Flamediff’s sandbox, so it is started on the host "
                            "with flatpak-spawn. Its functions get names only if Flamediff may "
                            "read the host’s system files (flatpak override "
                            "--filesystem=host-os:ro). If the recording fails, record it with "
                            "flamediff-cli on the host and open the file."));
      gtk_widget_set_visible (GTK_WIDGET (self->sandbox_command), FALSE);
      gtk_widget_set_visible (self->sandbox_box, TRUE);
      break;
    case FLAME_SANDBOX_PLAN_DIRECT:
    case FLAME_SANDBOX_PLAN_INSIDE:
    default:
      gtk_widget_set_visible (self->sandbox_box, FALSE);
      break;
    }
}

static void
update_setup (FlameRecordDialog *self)
{
  FlameBaselineMode mode = baseline_mode (self);
  g_auto(GStrv) argv = NULL;
  gboolean ready;

  gtk_widget_set_visible (GTK_WIDGET (self->earlier_row), mode == FLAME_BASELINE_EARLIER);
  gtk_widget_set_visible (GTK_WIDGET (self->file_row), mode == FLAME_BASELINE_FILE);
  update_sandbox_note (self);

  ready = parse_command (self, &argv, NULL) && self->plan != FLAME_SANDBOX_PLAN_HOST_ONLY;
  if (mode == FLAME_BASELINE_EARLIER)
    ready = ready && adw_combo_row_get_selected (self->earlier_row) < self->earlier_paths->len;
  else if (mode == FLAME_BASELINE_FILE)
    ready = ready && self->baseline_file != NULL;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "record.start", ready);
  gtk_button_set_label (GTK_BUTTON (self->start_button),
                        mode == FLAME_BASELINE_RECORD ? _("_Record Baseline") : _("_Record"));
}

static void
set_cwd (FlameRecordDialog *self,
         const char        *cwd)
{
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
  adw_action_row_set_subtitle (self->directory_row, cwd);
  update_setup (self);
}

/* ------------------------------------------------------------------ */
/* Recording */

static void
on_progress (FlameRecordDialog *self)
{
  FlameRecorder *r = self->recorder;
  gdouble elapsed;
  guint minutes;
  char buf[64];

  g_assert (FLAME_IS_RECORD_DIALOG (self));

  if (r == NULL)
    return;
  elapsed = flame_recorder_get_elapsed (r);
  minutes = (guint) (elapsed / 60);
  g_snprintf (buf, sizeof buf, "%u:%04.1f", minutes, elapsed - minutes * 60.0);
  gtk_label_set_text (self->elapsed_label, buf);
  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, flame_recorder_get_samples (r));
  gtk_label_set_text (self->samples_label, buf);
  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, flame_recorder_get_lost (r));
  gtk_label_set_text (self->lost_label, buf);
  if (flame_recorder_get_lost (r) > 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->lost_label), "warning");
}

static void
on_output (FlameRecordDialog *self,
           const char        *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  GtkTextIter end;

  g_assert (FLAME_IS_RECORD_DIALOG (self));

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, text, -1);
  if (gtk_text_buffer_get_char_count (buffer) > MAX_LOG_CHARS)
    {
      GtkTextIter start, cut;

      gtk_text_buffer_get_start_iter (buffer, &start);
      gtk_text_buffer_get_iter_at_offset (buffer, &cut, MAX_LOG_CHARS / 4);
      gtk_text_buffer_delete (buffer, &start, &cut);
    }
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_view_scroll_to_iter (self->output_view, &end, 0, FALSE, 0, 0);
}

static void
release_app (FlameRecordDialog *self)
{
  if (self->holding)
    {
      self->holding = FALSE;
      g_application_release (g_application_get_default ());
    }
}

/* the page between the sides, after several baseline runs */
static void
show_between_runs (FlameRecordDialog *self,
                   const char        *path)
{
  g_autofree char *folder = g_path_get_dirname (path);
  g_autofree char *description =
    /* Translators: %u is the number of runs recorded, %s the folder they are in */
    g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                  "Saved %u run in %s.\n\nNow change the code and rebuild "
                                  "it, then record the current runs with the same command. "
                                  "Flamediff compares the two sets of runs.",
                                  "Saved %u runs in %s.\n\nNow change the code and rebuild "
                                  "it, then record the current runs with the same command. "
                                  "Flamediff compares the two sets of runs.",
                                  self->runs),
                     self->runs, folder);

  g_set_object (&self->baseline, g_ptr_array_index (self->baseline_runs, 0));
  self->phase = FLAME_RECORD_BETWEEN;
  self->run_index = 1;
  adw_status_page_set_description (self->between_page, description);
  gtk_stack_set_visible_child_name (self->stack, "between");
  gtk_button_set_label (GTK_BUTTON (self->cancel_button), _("_Close"));
}

/* the page between the sides, after the one baseline run of @n samples */
static void
show_between_run (FlameRecordDialog *self,
                  const char        *path,
                  guint64            n)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  g_autofree char *description =
    /* Translators: the first %s is the file name of the baseline
     * recording, the second its number of samples */
    g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                  "Saved as %s (%s sample).\n\nNow change the code and "
                                  "rebuild it, then record the current run with the same "
                                  "command. Flamediff compares the two.",
                                  "Saved as %s (%s samples).\n\nNow change the code and "
                                  "rebuild it, then record the current run with the same "
                                  "command. Flamediff compares the two.",
                                  (gulong) MIN (n, G_MAXULONG)),
                     name, count);

  g_set_object (&self->baseline, NULL);
  self->baseline = g_file_new_for_path (path);
  self->phase = FLAME_RECORD_BETWEEN;
  adw_status_page_set_description (self->between_page, description);
  gtk_stack_set_visible_child_name (self->stack, "between");
  gtk_button_set_label (GTK_BUTTON (self->cancel_button), _("_Close"));
}

static void
record_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(FlameRecordDialog) self = user_data;
  FlameRecorder *recorder = FLAME_RECORDER (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  FlameRecordPhase phase;
  const char *path;

  g_assert (FLAME_IS_RECORD_DIALOG (self));
  g_assert (G_IS_ASYNC_RESULT (result));

  profile = flame_recorder_record_finish (recorder, result, &error);
  phase = self->phase;
  path = flame_recorder_get_output_path (recorder);
  if (self->recorder == recorder)
    {
      on_progress (self);
      g_signal_handlers_disconnect_by_data (recorder, self);
      g_clear_object (&self->recorder);
    }

  if (self->shutting_down)
    {
      /* closed while recording: the file is written, nothing more to do */
      if (profile == NULL)
        g_warning ("The recording could not be written: %s", error->message);
      release_app (self);
#if !ADW_CHECK_VERSION(1, 5, 0)
      /* (an AdwDialog has left its window already) */
      destroy_dialog (self);
#endif
      return;
    }
  release_app (self);

  if (profile == NULL)
    {
      self->phase = FLAME_RECORD_SETUP;
      gtk_stack_set_visible_child_name (self->stack, "setup");
      gtk_widget_set_visible (self->start_button, TRUE);
      show_error_from (self, error);
      update_setup (self);
      return;
    }

  g_ptr_array_add (phase == FLAME_RECORD_BASELINE ? self->baseline_runs : self->current_runs,
                   g_file_new_for_path (path));
  if (self->run_index < self->runs)
    {
      /* the next run of the same side */
      self->run_index++;
      start_recording (self, phase);
      return;
    }

  if (phase == FLAME_RECORD_BASELINE)
    {
      if (self->runs > 1)
        show_between_runs (self, path);
      else
        show_between_run (self, path, flame_recorder_get_samples (recorder));
      return;
    }

  /* the current run: open the pair (or the sets) where files open */
  g_set_object (&self->current, g_ptr_array_index (self->current_runs, 0));
  self->phase = FLAME_RECORD_DONE;
  if (self->window != NULL)
    {
      if (self->runs > 1)
        flame_window_open_runs (self->window, self->baseline_runs, self->current_runs);
      else
        flame_window_open (self->window, self->baseline, self->current);
      gtk_window_present (GTK_WINDOW (self->window));
    }
  destroy_dialog (self);
}

static void
start_recording (FlameRecordDialog *self,
                 FlameRecordPhase   phase)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *command = g_strjoinv (" ", self->argv);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);

  g_return_if_fail (self->recorder == NULL);

  self->recorder = flame_recorder_new ((const char * const *) self->argv);
  flame_recorder_set_cwd (self->recorder, self->cwd);
  if (self->runs > 1)
    {
      g_autofree char *side = g_build_filename (self->runs_dir, phase == FLAME_RECORD_BASELINE ?
                                                "baseline" : "current", NULL);
      g_autofree char *output = flame_recorder_run_path (side, self->run_index);

      flame_recorder_set_output_path (self->recorder, output);
    }
  flame_recorder_set_frequency (self->recorder,
                                gtk_spin_button_get_value_as_int (self->frequency_spin));
  flame_recorder_set_capture_output (self->recorder, TRUE);
  if (adw_combo_row_get_selected (self->measure_row) == FLAME_MEASURE_MEMORY)
    flame_recorder_set_memory (self->recorder, FLAME_RECORDER_DEFAULT_MEMORY_MEAN);
  /* after the measure: the host build of the sampler that fits it */
  if (self->plan == FLAME_SANDBOX_PLAN_HOST_SPAWN &&
      !flame_recorder_use_host (self->recorder, self->sandbox, &error))
    {
      g_clear_object (&self->recorder);
      show_error_from (self, error);
      return;
    }

  g_signal_connect_object (self->recorder, "notify::elapsed", G_CALLBACK (on_progress), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->recorder, "notify::samples", G_CALLBACK (on_progress), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->recorder, "output", G_CALLBACK (on_output), self,
                           G_CONNECT_SWAPPED);

  self->phase = phase;
  show_error (self, NULL);
  if (self->runs > 1)
    {
      /* Translators: the first %u is the run being recorded, the second how many runs a side has */
      g_autofree char *text = g_strdup_printf (phase == FLAME_RECORD_BASELINE ?
                                               _("Recording the Baseline, Run %u of %u") :
                                               _("Recording the Current Side, Run %u of %u"),
                                               self->run_index, self->runs);

      gtk_label_set_text (self->phase_label, text);
    }
  else
    gtk_label_set_text (self->phase_label, phase == FLAME_RECORD_BASELINE ?
                        _("Recording the Baseline") : _("Recording the Current Run"));
  gtk_label_set_text (self->command_label, command);
  gtk_text_buffer_set_text (buffer, "", 0);
  gtk_label_set_text (self->elapsed_label, "0:00.0");
  gtk_label_set_text (self->samples_label, "0");
  gtk_label_set_text (self->lost_label, "0");
  gtk_widget_remove_css_class (GTK_WIDGET (self->lost_label), "warning");
  gtk_widget_set_visible (self->start_button, FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "record.stop", TRUE);
  gtk_stack_set_visible_child_name (self->stack, "recording");

  /* a window closed now still gets its file: see flame_record_dialog_shutdown() */
  if (!self->holding && g_application_get_default () != NULL)
    {
      self->holding = TRUE;
      g_application_hold (g_application_get_default ());
    }
  flame_recorder_record_async (self->recorder, NULL, record_done, g_object_ref (self));
}

/* ------------------------------------------------------------------ */
/* Actions */

static void
start_action (GtkWidget  *widget,
              const char *name,
              GVariant   *param)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (widget);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  FlameBaselineMode mode = baseline_mode (self);

  g_assert (GTK_IS_WIDGET (widget));

  if (self->phase != FLAME_RECORD_SETUP)
    return;
  if (!parse_command (self, &argv, &error))
    {
      show_error_from (self, error);
      return;
    }
  g_strfreev (self->argv);
  self->argv = g_steal_pointer (&argv);
  {
    g_autofree char *stripped = g_strstrip (
      g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->command_row))));

    remember_command (self, stripped);
  }
  g_settings_set_int (self->settings, "recording-frequency",
                      gtk_spin_button_get_value_as_int (self->frequency_spin));
  g_settings_set_string (self->settings, "recording-measure",
                         adw_combo_row_get_selected (self->measure_row) == FLAME_MEASURE_MEMORY
                         ? "memory" : "cpu");
  self->runs = (guint) CLAMP (gtk_spin_button_get_value_as_int (self->runs_spin), 1, 20);
  g_settings_set_int (self->settings, "recording-runs", (int) self->runs);
  self->run_index = 1;
  g_ptr_array_set_size (self->baseline_runs, 0);
  g_ptr_array_set_size (self->current_runs, 0);
  g_clear_pointer (&self->runs_dir, g_free);
  if (self->runs > 1)
    self->runs_dir = flame_recorder_new_runs_dir (self->argv[0]);

  g_clear_object (&self->baseline);
  if (mode == FLAME_BASELINE_EARLIER)
    {
      guint i = adw_combo_row_get_selected (self->earlier_row);

      if (i >= self->earlier_paths->len)
        return;
      self->baseline = g_file_new_for_path (g_ptr_array_index (self->earlier_paths, i));
    }
  else if (mode == FLAME_BASELINE_FILE)
    {
      if (self->baseline_file == NULL)
        return;
      self->baseline = g_object_ref (self->baseline_file);
    }
  if (self->baseline != NULL)
    g_ptr_array_add (self->baseline_runs, g_object_ref (self->baseline));
  start_recording (self,
                   mode == FLAME_BASELINE_RECORD ? FLAME_RECORD_BASELINE : FLAME_RECORD_CURRENT);
}

static void
current_action (GtkWidget  *widget,
                const char *name,
                GVariant   *param)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (widget);

  g_assert (GTK_IS_WIDGET (widget));

  if (self->phase == FLAME_RECORD_BETWEEN)
    start_recording (self, FLAME_RECORD_CURRENT);
}

static void
stop_action (GtkWidget  *widget,
             const char *name,
             GVariant   *param)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (widget);

  g_assert (GTK_IS_WIDGET (widget));

  if (self->recorder != NULL)
    {
      flame_recorder_stop (self->recorder);
      gtk_widget_action_set_enabled (widget, "record.stop", FALSE);
    }
}

static void
use_command_action (GtkWidget  *widget,
                    const char *name,
                    GVariant   *param)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (widget);

  g_assert (GTK_IS_WIDGET (widget));

  gtk_editable_set_text (GTK_EDITABLE (self->command_row), g_variant_get_string (param, NULL));
  gtk_editable_set_position (GTK_EDITABLE (self->command_row), -1);
}

static void
directory_chosen (GtkWindow *parent,
                  GPtrArray *files,
                  gpointer   user_data)
{
  g_autoptr(FlameRecordDialog) self = user_data;
  g_autofree char *path = files->len > 0 ? g_file_get_path (g_ptr_array_index (files, 0)) : NULL;

  if (path != NULL)
    set_cwd (self, path);
}

static void
choose_directory_action (GtkWidget  *widget,
                         const char *name,
                         GVariant   *param)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (widget);
  g_autoptr(GFile) current = self->cwd != NULL ? g_file_new_for_path (self->cwd) : NULL;

  g_assert (GTK_IS_WIDGET (widget));

  flame_choose_folder (parent_window (self), _("Working Directory"), current,
                       directory_chosen, g_object_ref (self));
}

static void
baseline_file_chosen (GtkWindow *parent,
                      GPtrArray *files,
                      gpointer   user_data)
{
  g_autoptr(FlameRecordDialog) self = user_data;

  if (files->len == 0)
    return;
  g_set_object (&self->baseline_file, g_ptr_array_index (files, 0));
  {
    g_autofree char *name = g_file_get_basename (self->baseline_file);

    adw_action_row_set_subtitle (self->file_row, name);
  }
  update_setup (self);
}

static void
choose_file_action (GtkWidget  *widget,
                    const char *name,
                    GVariant   *param)
{
  g_assert (GTK_IS_WIDGET (widget));

  flame_choose_profiles (parent_window (FLAME_RECORD_DIALOG (widget)),
                         _("Open the Baseline Profile"), FALSE, baseline_file_chosen,
                         g_object_ref (widget));
}

/* ------------------------------------------------------------------ */
/* Closing */

/**
 * flame_record_dialog_shutdown:
 *
 * The dialog or its window is closing. A running recording is stopped
 * (SIGINT, SIGKILL after the grace period) and still written; the
 * application stays alive until it is, then the dialog goes.
 */
void
flame_record_dialog_shutdown (FlameRecordDialog *self)
{
  g_return_if_fail (FLAME_IS_RECORD_DIALOG (self));

  if (self->recorder == NULL)
    {
      destroy_dialog (self);
      return;
    }
  self->shutting_down = TRUE;
  flame_recorder_stop (self->recorder);
#if ADW_CHECK_VERSION(1, 5, 0)
  /* out of its window now (the window may be closing); the recording
   * holds it until the file is written */
  adw_dialog_force_close (ADW_DIALOG (self));
#endif
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

/* Cancel, Escape, the dialog's or window's close button: during a
 * recording the program is stopped and the file still written */
static void
close_action (GtkWidget  *widget,
              const char *name,
              GVariant   *param)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (widget);

#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_close (ADW_DIALOG (self));
#else
  gtk_window_close (GTK_WINDOW (self));
#endif
}

#if ADW_CHECK_VERSION(1, 5, 0)
/* can-close is off: every close comes here */
static void
flame_record_dialog_close_attempt (AdwDialog *dialog)
{
  flame_record_dialog_shutdown (FLAME_RECORD_DIALOG (dialog));
}
#else
static gboolean
flame_record_dialog_close_request (GtkWindow *window)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (window);

  if (self->recorder != NULL)
    {
      flame_record_dialog_shutdown (self);
      return TRUE;   /* destroyed once the file is written */
    }
  return GTK_WINDOW_CLASS (flame_record_dialog_parent_class)->close_request (window);
}
#endif

static gboolean
parent_close_request (GtkWindow         *parent,
                      FlameRecordDialog *self)
{
  g_clear_weak_pointer (&self->window);
  flame_record_dialog_shutdown (self);
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* GObject */

static void
flame_record_dialog_dispose (GObject *object)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (object);

  if (self->window != NULL && self->parent_close_id != 0)
    g_signal_handler_disconnect (self->window, self->parent_close_id);
  self->parent_close_id = 0;
  g_clear_weak_pointer (&self->window);
  if (self->recorder != NULL)
    flame_recorder_stop (self->recorder);
  gtk_widget_dispose_template (GTK_WIDGET (self), FLAME_TYPE_RECORD_DIALOG);
  G_OBJECT_CLASS (flame_record_dialog_parent_class)->dispose (object);
}

static void
flame_record_dialog_finalize (GObject *object)
{
  FlameRecordDialog *self = FLAME_RECORD_DIALOG (object);

  release_app (self);
  g_clear_object (&self->settings);
  g_clear_object (&self->recorder);
  g_clear_object (&self->baseline);
  g_clear_object (&self->current);
  g_clear_object (&self->baseline_file);
  g_clear_object (&self->recent_menu);
  g_clear_pointer (&self->earlier_paths, g_ptr_array_unref);
  g_clear_pointer (&self->baseline_runs, g_ptr_array_unref);
  g_clear_pointer (&self->current_runs, g_ptr_array_unref);
  g_free (self->runs_dir);
  g_clear_pointer (&self->sandbox, flame_sandbox_info_free);
  g_strfreev (self->argv);
  g_free (self->cwd);
  G_OBJECT_CLASS (flame_record_dialog_parent_class)->finalize (object);
}

static void
flame_record_dialog_class_init (FlameRecordDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = flame_record_dialog_dispose;
  object_class->finalize = flame_record_dialog_finalize;
#if ADW_CHECK_VERSION(1, 5, 0)
  ADW_DIALOG_CLASS (klass)->close_attempt = flame_record_dialog_close_attempt;
#else
  GTK_WINDOW_CLASS (klass)->close_request = flame_record_dialog_close_request;
#endif

  gtk_widget_class_set_template_from_resource (
    widget_class, "/io/github/flamediff/Flamediff/ui/flame-record-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, header_bar);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, start_button);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, command_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, recent_button);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, directory_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, measure_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, frequency_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, frequency_spin);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, runs_spin);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, sandbox_box);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, sandbox_title);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, sandbox_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, sandbox_command);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, baseline_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, earlier_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, file_row);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, phase_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, command_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, samples_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, lost_label);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, stop_button);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, output_expander);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, output_view);
  gtk_widget_class_bind_template_child (widget_class, FlameRecordDialog, between_page);

  gtk_widget_class_install_action (widget_class, "record.start", NULL, start_action);
  gtk_widget_class_install_action (widget_class, "record.current", NULL, current_action);
  gtk_widget_class_install_action (widget_class, "record.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "record.use-command", "s", use_command_action);
  gtk_widget_class_install_action (widget_class, "record.choose-directory", NULL,
                                   choose_directory_action);
  gtk_widget_class_install_action (widget_class, "record.choose-file", NULL, choose_file_action);
  gtk_widget_class_install_action (widget_class, "record.close", NULL, close_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "record.close", NULL);
}

static void
flame_record_dialog_init (FlameRecordDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->earlier_paths = g_ptr_array_new_with_free_func (g_free);
  self->baseline_runs = g_ptr_array_new_with_free_func (g_object_unref);
  self->current_runs = g_ptr_array_new_with_free_func (g_object_unref);
  self->runs = 1;
  self->recent_menu = g_menu_new ();
  self->sandbox = flame_sandbox_info_new (NULL);
  gtk_menu_button_set_menu_model (self->recent_button, G_MENU_MODEL (self->recent_menu));
#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_set_can_close (ADW_DIALOG (self), FALSE);
  adw_dialog_set_content_width (ADW_DIALOG (self), DIALOG_WIDTH);
  adw_dialog_set_content_height (ADW_DIALOG (self), DIALOG_HEIGHT);
  adw_dialog_set_default_widget (ADW_DIALOG (self), self->start_button);
#else
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), DIALOG_WIDTH, DIALOG_HEIGHT);
  gtk_window_set_default_widget (GTK_WINDOW (self), self->start_button);
#endif

  g_signal_connect_object (self->command_row, "changed", G_CALLBACK (update_setup), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->baseline_row, "notify::selected", G_CALLBACK (update_setup), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->earlier_row, "notify::selected", G_CALLBACK (update_setup), self,
                           G_CONNECT_SWAPPED);
}

/* memory recordings sample by bytes allocated: the frequency does not
 * apply to them */
static void
on_measure_changed (FlameRecordDialog *self)
{
  g_assert (FLAME_IS_RECORD_DIALOG (self));

  gtk_widget_set_sensitive (GTK_WIDGET (self->frequency_row),
                            adw_combo_row_get_selected (self->measure_row) == FLAME_MEASURE_CPU);
}

FlameRecordDialog *
flame_record_dialog_new (FlameWindow *window,
                         GSettings   *settings)
{
  FlameRecordDialog *self = g_object_new (FLAME_TYPE_RECORD_DIALOG, NULL);
  g_autofree char *home_cwd = g_get_current_dir ();
  g_auto(GStrv) recent = NULL;

  self->settings = g_object_ref (settings);
  g_set_weak_pointer (&self->window, window);
#if !ADW_CHECK_VERSION(1, 5, 0)
  gtk_window_set_transient_for (GTK_WINDOW (self), GTK_WINDOW (window));
#endif
  self->parent_close_id = g_signal_connect (window, "close-request",
                                            G_CALLBACK (parent_close_request), self);

  gtk_spin_button_set_value (self->frequency_spin,
                             g_settings_get_int (settings, "recording-frequency"));
  {
    g_autofree char *measure = g_settings_get_string (settings, "recording-measure");

    adw_combo_row_set_selected (self->measure_row, g_strcmp0 (measure, "memory") == 0
                                                   ? FLAME_MEASURE_MEMORY : FLAME_MEASURE_CPU);
  }
  g_signal_connect_object (self->measure_row, "notify::selected", G_CALLBACK (on_measure_changed),
                           self, G_CONNECT_SWAPPED);
  on_measure_changed (self);
  gtk_spin_button_set_value (self->runs_spin, g_settings_get_int (settings, "recording-runs"));
  rebuild_recent_menu (self);
  g_signal_connect_object (settings, "changed::recent-commands",
                           G_CALLBACK (rebuild_recent_menu), self, G_CONNECT_SWAPPED);
  recent = g_settings_get_strv (settings, "recent-commands");
  if (recent[0] != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->command_row), recent[0]);
  load_earlier_recordings (self);
  set_cwd (self, home_cwd);
  return self;
}

/**
 * flame_record_dialog_present:
 *
 * Shows the dialog over the window it was made for.
 */
void
flame_record_dialog_present (FlameRecordDialog *self)
{
  g_return_if_fail (FLAME_IS_RECORD_DIALOG (self));

#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_present (ADW_DIALOG (self), GTK_WIDGET (self->window));
#else
  gtk_window_present (GTK_WINDOW (self));
#endif
}

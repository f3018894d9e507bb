/* flame-window.c: a window comparing two profiles.
 *
 * Loading and diffing run in a FlameComparison (the core's pipeline, as
 * for the CLI), then the layout source of the view in a worker thread;
 * the window shows progress with a Cancel button and keeps the previous
 * comparison until the new one is ready. A failed load leaves the window
 * as it was and says why in a banner. Beside it: its actions
 * (flame-window-actions.c), which files are which side (-open.c), drops
 * (-dnd.c), recent files (-recent.c), the panel's handle (-panel.c) and
 * the narrow layout (-narrow.c).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "flame-application.h"
#include "flame-breadcrumbs.h"
#include "flame-changes-panel.h"
#include "flame-comparison.h"
#include "flame-error-text.h"
#include "flame-legend.h"
#include "flame-loader.h"
#include "flame-parallel.h"
#include "flame-summary-bar.h"
#include "flame-window-private.h"


enum {
  PROP_0,
  PROP_VIEW,
  PROP_INVERTED,
  PROP_NORMALIZE,
  PROP_COLOUR_BY_TOTAL,
  PROP_HIDE_NOISE,
  PROP_SEARCH_MODE,
  PROP_SHOW_SIDEBAR,
  PROP_SHOW_LEGEND,
  PROP_SAMPLE_TYPE,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameWindow, flame_window, ADW_TYPE_APPLICATION_WINDOW)

/* ------------------------------------------------------------------ */

static char *
format_ms (gdouble ms)
{
  return g_strdup_printf ("%'.1f", ms);
}

/* Opening files shows the progress banner at once. For a view laid out
 * again or options applied to the profiles loaded, it slides in only if
 * the work is still running after this long: such work is usually done
 * before anyone could read the banner, and sliding in pushes the graph
 * down, laying out and repainting the whole window on every frame. */
#define BANNER_DELAY_MS 300

static gboolean
reveal_banner_cb (gpointer user_data)
{
  FlameWindow *self = user_data;

  self->banner_source = 0;
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  return G_SOURCE_REMOVE;
}

static void
set_busy_ui (FlameWindow *self,
             gboolean     busy)
{
  if (!busy)
    {
      /* at once: the result replaces what the banner sat on, and sliding
       * it away would lay out and repaint the new graph on every frame */
      guint duration = gtk_revealer_get_transition_duration (self->progress_revealer);

      g_clear_handle_id (&self->banner_source, g_source_remove);
      g_clear_handle_id (&self->progress_source, g_source_remove);
      gtk_revealer_set_transition_duration (self->progress_revealer, 0);
      gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
      gtk_revealer_set_transition_duration (self->progress_revealer, duration);
    }
  else if (self->pending_opens)
    {
      g_clear_handle_id (&self->banner_source, g_source_remove);
      gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
    }
  else if (self->banner_source == 0 && !gtk_revealer_get_reveal_child (self->progress_revealer))
    self->banner_source = g_timeout_add (BANNER_DELAY_MS, reveal_banner_cb, self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel", busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* the view is being laid out: no fraction to show */
static gboolean
pulse_progress (gpointer user_data)
{
  FlameWindow *self = user_data;

  g_assert (FLAME_IS_WINDOW (self));

  gtk_progress_bar_pulse (self->progress_bar);
  return G_SOURCE_CONTINUE;
}

void
_flame_window_show_error (FlameWindow *self,
            const char  *message)
{
  g_free (self->last_error);
  self->last_error = g_strdup (message);
  gtk_label_set_text (self->error_label, message);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}


/* the summary bar formats the comparison; the title bar and the
 * window's title name what it shows */
static void
update_summary (FlameWindow *self)
{
  const char *title;

  flame_summary_bar_set_sample_type (self->summary_bar, self->sample_type);
  flame_summary_bar_set_comparison (self->summary_bar,
                                    self->source != NULL ? self->comparison : NULL);
  title = flame_summary_bar_get_title (self->summary_bar);

  if (self->diff == NULL && self->source != NULL)
    {
      adw_window_title_set_title (self->window_title, title);
      adw_window_title_set_subtitle (self->window_title, _("Flame Graph"));
      gtk_stack_set_visible_child_name (self->title_stack, "title");
      gtk_window_set_title (GTK_WINDOW (self), title);
    }
  else if (self->diff != NULL)
    {
      guint elided = flame_diff_get_elided_count (self->diff);

      gtk_widget_set_visible (GTK_WIDGET (self->elided_button), elided > 0);
      if (elided > 0)
        {
          /* Translators: the view of the code paths gone from the current
           * profile, with their number */
          g_autofree char *label = g_strdup_printf (_("Elided (%u)"), elided);

          gtk_button_set_label (GTK_BUTTON (self->elided_button), label);
          gtk_stack_set_visible_child_name (self->title_stack, "switcher");
        }
      else
        {
          /* one view only: a title, not a lone toggle (issue 18) */
          adw_window_title_set_title (self->window_title, title);
          adw_window_title_set_subtitle (self->window_title, _("Differential Flame Graph"));
          gtk_stack_set_visible_child_name (self->title_stack, "title");
        }
      gtk_window_set_title (GTK_WINDOW (self), title);
    }
  else
    {
      adw_window_title_set_title (self->window_title, _("Flamediff"));
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_stack_set_visible_child_name (self->title_stack, "title");
      gtk_window_set_title (GTK_WINDOW (self), _("Flamediff"));
    }
}

static void
update_match_label (FlameWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  guint n;
  gdouble cur = 0, base = 0;
  g_autofree char *label = NULL;

  if (text == NULL || text[0] == 0 || self->source == NULL)
    {
      gtk_label_set_text (self->match_label, "");
      return;
    }
  n = flame_graph_view_get_n_matches (self->graph_view);
  flame_graph_view_get_match_totals (self->graph_view, &cur, &base);
  if (n == 0)
    label = g_strdup (_("No matches"));
  else if (self->diff != NULL && flame_layout_source_get_view (self->source) != FLAME_VIEW_INVERTED)
    {
      g_autofree char *s_cur = format_ms (cur);
      g_autofree char *s_base = format_ms (base);

      /* Translators: number of matching frames; their time in the baseline → current */
      label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match · %s ms → %s ms",
                                            "%u matches · %s ms → %s ms", n), n, s_base, s_cur);
    }
  else
    {
      g_autofree char *s_cur = format_ms (cur);

      label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match · %s ms",
                                            "%u matches · %s ms", n), n, s_cur);
    }
  gtk_label_set_text (self->match_label, label);
}

/* ------------------------------------------------------------------ */

static void
on_file_changed (FlameWindow       *self,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 GFileMonitor      *monitor)
{
  g_assert (FLAME_IS_WINDOW (self));
  g_assert (G_IS_FILE (file));
  g_assert (G_IS_FILE_MONITOR (monitor));

  if (event == G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT ||
      event == G_FILE_MONITOR_EVENT_CREATED ||
      event == G_FILE_MONITOR_EVENT_DELETED)
    gtk_revealer_set_reveal_child (self->changed_revealer, TRUE);
}

static void
watch_files (FlameWindow *self)
{
  for (guint i = 0; i < 2; i++)
    {
      if (self->monitors[i] != NULL)
        g_signal_handlers_disconnect_by_data (self->monitors[i], self);
      g_clear_object (&self->monitors[i]);
      if (self->files[i] == NULL)
        continue;
      self->monitors[i] = g_file_monitor_file (self->files[i], G_FILE_MONITOR_NONE, NULL, NULL);
      if (self->monitors[i] != NULL)
        g_signal_connect_swapped (self->monitors[i], "changed", G_CALLBACK (on_file_changed), self);
    }
  gtk_revealer_set_reveal_child (self->changed_revealer, FALSE);
}

static FlameView
current_view (FlameWindow *self)
{
  if (g_strcmp0 (self->view, "elided") == 0)
    return FLAME_VIEW_ELIDED;
  return self->inverted ? FLAME_VIEW_INVERTED : FLAME_VIEW_DIFFERENTIAL;
}

/* the settings and toggles, as the comparison's options */
static void
apply_options (FlameWindow     *self,
               FlameComparison *comparison)
{
  g_autofree char *match = g_settings_get_string (self->settings, "frame-matching");
  FlameDiffOptions dopts;
  FlameReportOptions ropts;

  flame_diff_options_init (&dopts);
  flame_report_options_init (&ropts);
  flame_match_from_string (match, &dopts.match);
  dopts.strip_hex = g_settings_get_boolean (self->settings, "strip-hex");
  dopts.exact_paths = g_settings_get_boolean (self->settings, "exact-paths");
  dopts.normalize = self->normalize ? FLAME_NORMALIZE_TOTAL : FLAME_NORMALIZE_ABSOLUTE;
  dopts.metric = self->colour_by_total ? FLAME_METRIC_TOTAL : FLAME_METRIC_SELF;
  dopts.default_interval_ms = g_settings_get_double (self->settings, "default-interval-ms");
  if (self->hide_noise)
    dopts.significance = g_settings_get_double (self->settings, "significance-level");
  ropts.threshold_pct = g_settings_get_double (self->settings, "threshold-pct");
  ropts.min_abs_ms = g_settings_get_double (self->settings, "min-abs-ms");
  flame_comparison_set_diff_options (comparison, &dopts);
  flame_comparison_set_report_options (comparison, &ropts);
  flame_comparison_set_allow_single (comparison, TRUE);
  {
    FlameLoadOptions lopts = FLAME_LOAD_OPTIONS_DEFAULT;

    lopts.sample_type = self->sample_type;
    flame_comparison_set_load_options (comparison, &lopts);
  }
}

/* The sample types the loaded file holds, as a section of the view menu
 * (win.sample-type), and the one loaded as the action's state */
static void
update_sample_types (FlameWindow *self)
{
  guint side = flame_comparison_get_n_runs (self->comparison, FLAME_DIFF_CURRENT) > 0
               ? FLAME_DIFF_CURRENT : FLAME_DIFF_BASELINE;
  FlameProfile *profile = flame_comparison_get_n_runs (self->comparison, side) > 0
                          ? flame_comparison_get_run_profile (self->comparison, side, 0) : NULL;
  const char * const *types = profile != NULL ? flame_profile_get_sample_types (profile) : NULL;
  const char *loaded = profile != NULL ? flame_profile_get_sample_type (profile) : NULL;

  g_menu_remove_all (self->sample_type_section);
  for (guint i = 0; types != NULL && types[i] != NULL; i++)
    {
      g_autofree char *label = flame_summary_bar_sample_type_label (types[i]);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target (item, "win.sample-type", "s", types[i]);
      g_menu_append_item (self->sample_type_section, item);
    }
  /* the section is in the menu only while it has items: an empty one
   * would still show its heading */
  if (g_menu_model_get_n_items (G_MENU_MODEL (self->view_menu)) > 0 &&
      g_menu_model_get_item_link (G_MENU_MODEL (self->view_menu), 0, G_MENU_LINK_SECTION) != NULL)
    {
      g_autoptr(GMenuModel) first = g_menu_model_get_item_link (G_MENU_MODEL (self->view_menu), 0,
                                                                G_MENU_LINK_SECTION);

      if (first == G_MENU_MODEL (self->sample_type_section))
        g_menu_remove (self->view_menu, 0);
    }
  if (types != NULL)
    g_menu_insert_section (self->view_menu, 0, _("Sample Type"),
                           G_MENU_MODEL (self->sample_type_section));
  if (g_strcmp0 (self->sample_type, types != NULL ? loaded : NULL) != 0)
    {
      g_free (self->sample_type);
      self->sample_type = types != NULL ? g_strdup (loaded) : NULL;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAMPLE_TYPE]);
    }
}

/* the runs of @from (loaded), compared again with the window's options */
FlameComparison *
_flame_window_derive_comparison (FlameWindow     *self,
                   FlameComparison *from,
                   gboolean         swap)
{
  FlameComparison *comparison = flame_comparison_new ();

  /* a file that holds both sides has nothing to swap with */
  swap = swap && flame_comparison_get_n_runs (from, FLAME_DIFF_CURRENT) > 0;
  for (guint side = 0; side < 2; side++)
    for (guint i = 0; i < flame_comparison_get_n_runs (from, side); i++)
      flame_comparison_add_profile (comparison, swap ? 1 - side : side,
                                    flame_comparison_get_run_file (from, side, i),
                                    flame_comparison_get_run_profile (from, side, i));
  /* the same profiles coloured or scaled otherwise keep their merged tree */
  if (!swap && flame_comparison_get_diff (from) != NULL)
    flame_comparison_reuse_diff (comparison, flame_comparison_get_diff (from));
  apply_options (self, comparison);
  return comparison;
}

/* the flap's own reveal (F9) slides again once the first one is done */
static void
on_first_reveal_progress (AdwFlap    *flap,
                          GParamSpec *pspec,
                          gpointer    user_data)
{
  FlameWindow *self = user_data;

  if (adw_flap_get_reveal_progress (flap) < 1)
    return;
  g_signal_handlers_disconnect_by_func (flap, on_first_reveal_progress, self);
  adw_flap_set_reveal_params (flap, self->reveal_params);
  g_clear_pointer (&self->reveal_params, adw_spring_params_unref);
}

/* The panel opens by itself once, unless it would cover the graph (the
 * flap is folded). Only once the flap has been allocated: AdwFlap divides
 * by its width when it starts the reveal animation, and on the first
 * comparison the graph page has only just been made visible. libadwaita
 * 1.10 then allocates the flap's children with a width of INT_MIN (and
 * GTK warns); it also cannot know yet whether it is folded. FALSE when
 * it is too early to decide. */
static gboolean
reveal_sidebar_once (FlameWindow *self)
{
  if (gtk_widget_get_width (GTK_WIDGET (self->flap)) == 0)
    return FALSE;
  if (self->report != NULL && !self->sidebar_shown_once && !adw_flap_get_folded (self->flap))
    {
      g_autoptr(AdwSpringParams) at_once = adw_spring_params_new (1, 1, 1e6);

      /* without the slide: it would narrow the graph a little every frame
       * for a quarter of a second, each frame laying out and painting the
       * graph and the window again while the first views are being made
       * (40-60 ms a frame with GTK's software renderer on a large pair) */
      self->sidebar_shown_once = TRUE;
      self->reveal_params = adw_spring_params_ref (adw_flap_get_reveal_params (self->flap));
      adw_flap_set_reveal_params (self->flap, at_once);
      g_signal_connect (self->flap, "notify::reveal-progress",
                        G_CALLBACK (on_first_reveal_progress), self);
      adw_flap_set_reveal_flap (self->flap, TRUE);
    }
  return TRUE;
}

static gboolean
reveal_sidebar_tick_cb (GtkWidget     *flap,
                        GdkFrameClock *clock,
                        gpointer       user_data)
{
  FlameWindow *self = user_data;

  g_assert (GTK_IS_WIDGET (flap));
  g_assert (GDK_IS_FRAME_CLOCK (clock));
  g_assert (FLAME_IS_WINDOW (self));

  if (!reveal_sidebar_once (self))
    return G_SOURCE_CONTINUE;
  self->reveal_tick = 0;
  return G_SOURCE_REMOVE;
}

static void
renew_cancellable (FlameWindow *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

/* nothing in flight any more: what was pending is dropped or shown */
void
_flame_window_clear_pending (FlameWindow *self)
{
  if (self->pending != NULL)
    g_signal_handlers_disconnect_by_data (self->pending, self);
  g_clear_object (&self->pending);
  self->view_task = NULL;
  self->pending_opens = FALSE;
  self->pending_rediff = FALSE;
  self->pending_swap = FALSE;
  set_busy_ui (self, FALSE);
}

/* the comparison and its view replace what the window showed */
static void
adopt (FlameWindow       *self,
       FlameComparison   *comparison,
       FlameLayoutSource *source,
       FlameView          view)
{
  gboolean opened = self->pending_opens;
  gboolean was_diff = self->diff != NULL;
  gboolean new_report = comparison != self->comparison;

  g_object_ref (comparison);
  _flame_window_clear_pending (self);
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);

  g_set_object (&self->comparison, comparison);
  g_object_unref (comparison);
  for (guint side = 0; side < 2; side++)
    g_set_object (&self->files[side], flame_comparison_get_run_file (comparison, side, 0));
  self->diff = flame_comparison_get_diff (comparison);
  if (new_report)
    {
      self->report = flame_comparison_get_report (comparison);
      flame_changes_panel_set_comparison (self->changes_panel, comparison);
    }
  g_set_object (&self->source, source);

  /* the elided view may have nothing to show for new files */
  if (self->diff != NULL && view != FLAME_VIEW_ELIDED && g_strcmp0 (self->view, "elided") == 0)
    {
      g_free (self->view);
      self->view = g_strdup ("differential");
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW]);
    }

  flame_graph_view_set_source (self->graph_view, self->source);
  /* without the cross-fade: with GTK's software renderer each of its
   * frames draws the whole graph twice into offscreen surfaces, 15-50 ms
   * a frame just as the first views are made */
  gtk_stack_set_visible_child_full (self->main_stack, "graph", GTK_STACK_TRANSITION_TYPE_NONE);
  if (opened)
    {
      _flame_window_add_to_recent (self);
      _flame_window_warn_same_file (self);
      watch_files (self);
    }
  if (self->report != NULL && !was_diff && self->reveal_tick == 0 &&
      !reveal_sidebar_once (self))
    self->reveal_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self->flap),
                                                      reveal_sidebar_tick_cb, self, NULL);
  if (self->report == NULL)
    adw_flap_set_reveal_flap (self->flap, FALSE);
  update_sample_types (self);
  update_summary (self);
  _flame_window_actions_update (self);
  update_match_label (self);
}

/* ---- stage 2: the view of a comparison, laid out off the main thread
 * (the graph layer, which the core's comparison does not see) ---- */

typedef struct
{
  FlameComparison   *comparison;
  FlameView          view;
  gdouble            default_interval_ms;
  FlameLayoutSource *shown;    /* what the graph shows now, whose layout may be reused */
  FlameLayoutSource *source;   /* result */
} ViewJob;

static void
view_job_free (ViewJob *job)
{
  g_clear_object (&job->comparison);
  g_clear_object (&job->shown);
  g_clear_object (&job->source);
  g_free (job);
}

static void
view_job_run (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  ViewJob *job = task_data;
  FlameDiff *diff = flame_comparison_get_diff (job->comparison);

  g_assert (G_IS_TASK (task));
  g_assert (job != NULL);

  flame_parallel_enter_background ();
  if (diff == NULL)
    job->source = flame_layout_source_new_for_profile (
      flame_comparison_get_profile (job->comparison, FLAME_DIFF_BASELINE), 0,
      job->default_interval_ms);
  else
    {
      if (job->view == FLAME_VIEW_ELIDED && flame_diff_get_elided_count (diff) == 0)
        job->view = FLAME_VIEW_DIFFERENTIAL;
      job->source = flame_layout_source_new_for_diff_reusing (diff, job->view, job->shown);
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_boolean (task, TRUE);
}

static void
view_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(FlameWindow) self = user_data;
  ViewJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  g_assert (FLAME_IS_WINDOW (self));

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if ((gpointer) result == self->view_task &&
          !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *message = flame_error_text (error, _("Could not compare the profiles"));

          _flame_window_clear_pending (self);
          _flame_window_show_error (self, message);
        }
      return;
    }
  if ((gpointer) result != self->view_task)
    return;   /* superseded */
  adopt (self, job->comparison, job->source, job->view);
}

static void
start_view (FlameWindow     *self,
            FlameComparison *comparison)
{
  g_autoptr(GTask) task = NULL;
  ViewJob *job = g_new0 (ViewJob, 1);

  renew_cancellable (self);
  if (self->pending != comparison)
    {
      if (self->pending != NULL)
        g_signal_handlers_disconnect_by_data (self->pending, self);
      g_set_object (&self->pending, comparison);
    }
  job->comparison = g_object_ref (comparison);
  job->view = current_view (self);
  job->shown = self->source != NULL ? g_object_ref (self->source) : NULL;
  job->default_interval_ms = flame_comparison_get_diff_options (comparison)->default_interval_ms;

  task = g_task_new (NULL, self->cancellable, view_done, g_object_ref (self));
  g_task_set_source_tag (task, start_view);
  g_task_set_task_data (task, job, (GDestroyNotify) view_job_free);
  self->view_task = task;

  if (self->progress_source == 0)
    self->progress_source = g_timeout_add (100, pulse_progress, self);
  set_busy_ui (self, TRUE);
  g_task_run_in_thread (task, view_job_run);
}

/* ---- stage 1: load and compare (FlameComparison) ---- */

static void
on_pending_fraction (FlameWindow     *self,
                     GParamSpec      *pspec,
                     FlameComparison *comparison)
{
  g_assert (FLAME_IS_WINDOW (self));
  g_assert (FLAME_IS_COMPARISON (comparison));

  gtk_progress_bar_set_fraction (self->progress_bar, flame_comparison_get_fraction (comparison));
}

static void
on_pending_message (FlameWindow     *self,
                    GParamSpec      *pspec,
                    FlameComparison *comparison)
{
  const char *message = flame_comparison_get_message (comparison);

  g_assert (FLAME_IS_WINDOW (self));
  g_assert (FLAME_IS_COMPARISON (comparison));

  gtk_label_set_text (self->progress_label, message ? message : "");
}

static void
comparison_done (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  FlameComparison *comparison = FLAME_COMPARISON (object);
  g_autoptr(FlameWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  g_assert (FLAME_IS_WINDOW (self));

  ok = flame_comparison_load_finish (comparison, result, &error);
  if (comparison != self->pending)
    return;   /* superseded or cancelled */
  if (!ok)
    {
      gboolean opening = self->pending_opens;

      _flame_window_clear_pending (self);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *message = NULL;

          /* the message after them is "file:line: reason" */
          message = flame_error_text (error, opening ? _("Could not open the profile")
                                                     : _("Could not compare the profiles"));
          _flame_window_show_error (self, message);
        }
      return;
    }

  /* the options changed, or Swap was asked for, while it loaded: compare
   * the profiles just loaded again rather than drop them (issue 11) */
  if (self->pending_rediff || self->pending_swap)
    {
      g_autoptr(FlameComparison) next =
        _flame_window_derive_comparison (self, comparison, self->pending_swap);

      self->pending_rediff = FALSE;
      self->pending_swap = FALSE;
      _flame_window_start_comparison (self, next);
      return;
    }
  start_view (self, comparison);
}

void
_flame_window_start_comparison (FlameWindow     *self,
                  FlameComparison *comparison)
{
  renew_cancellable (self);
  if (self->pending != NULL)
    g_signal_handlers_disconnect_by_data (self->pending, self);
  g_set_object (&self->pending, comparison);
  self->view_task = NULL;
  g_clear_handle_id (&self->progress_source, g_source_remove);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  g_signal_connect_object (comparison, "notify::fraction", G_CALLBACK (on_pending_fraction),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (comparison, "notify::message", G_CALLBACK (on_pending_message),
                           self, G_CONNECT_SWAPPED);
  set_busy_ui (self, TRUE);
  flame_comparison_load_async (comparison, self->cancellable, comparison_done,
                               g_object_ref (self));
}

/* Options changed: diff again (or only lay out another view of the
 * diff) from the profiles loaded. While a load runs, the new options
 * apply to what it loads, once it has. */
static void
rebuild (FlameWindow *self,
         gboolean     keep_diff)
{
  FlameComparison *base;

  if (self->pending != NULL && self->view_task == NULL)
    {
      /* stage 1: the view is chosen when it is done */
      if (!keep_diff)
        self->pending_rediff = TRUE;
      return;
    }
  base = self->pending != NULL ? self->pending : self->comparison;
  if (base == NULL)
    return;
  if (keep_diff)
    {
      g_autoptr(FlameComparison) ref = g_object_ref (base);

      start_view (self, ref);
    }
  else
    {
      g_autoptr(FlameComparison) next = _flame_window_derive_comparison (self, base, FALSE);

      _flame_window_start_comparison (self, next);
    }
}

static gboolean
rebuild_idle (gpointer user_data)
{
  FlameWindow *self = user_data;

  g_assert (FLAME_IS_WINDOW (self));

  self->rebuild_source = 0;
  rebuild (self, FALSE);
  return G_SOURCE_REMOVE;
}

static void
schedule_rebuild (FlameWindow *self)
{
  if ((self->comparison == NULL && self->pending == NULL) || self->rebuild_source != 0)
    return;
  self->rebuild_source = g_idle_add (rebuild_idle, self);
}

/* Other files: their own default sample type, unless the same files are
 * read again (_flame_window_reload) */
static void
forget_sample_type (FlameWindow *self)
{
  if (self->keep_sample_type || self->sample_type == NULL)
    return;
  g_clear_pointer (&self->sample_type, g_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAMPLE_TYPE]);
}

/* ------------------------------------------------------------------ */
/* Public API */

void
flame_window_open (FlameWindow *self,
                   GFile       *baseline,
                   GFile       *current)
{
  g_autoptr(FlameComparison) comparison = NULL;

  g_return_if_fail (FLAME_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (baseline));

  forget_sample_type (self);
  comparison = flame_comparison_new ();
  flame_comparison_add_file (comparison, FLAME_DIFF_BASELINE, baseline);
  if (current != NULL)
    flame_comparison_add_file (comparison, FLAME_DIFF_CURRENT, current);
  apply_options (self, comparison);
  _flame_window_clear_pending (self);
  self->pending_opens = TRUE;
  _flame_window_start_comparison (self, comparison);
}

/**
 * flame_window_open_runs:
 * @baseline: (element-type GFile): the baseline's runs, at least one
 * @current: (element-type GFile) (nullable): the current side's runs
 *
 * Compares sets of runs (issue 14): the core merges each side and tests
 * the changes against the run-to-run spread. A folder in either set
 * stands for every profile inside it (flame_comparison_list_runs).
 */
void
flame_window_open_runs (FlameWindow *self,
                        GPtrArray   *baseline,
                        GPtrArray   *current)
{
  g_autoptr(FlameComparison) comparison = NULL;
  g_autoptr(GPtrArray) base_runs = NULL;
  g_autoptr(GPtrArray) cur_runs = NULL;
  GPtrArray *sides[2];

  g_return_if_fail (FLAME_IS_WINDOW (self));
  g_return_if_fail (baseline != NULL && baseline->len > 0);

  base_runs = _flame_window_expand_runs (self, baseline);
  cur_runs = current != NULL ? _flame_window_expand_runs (self, current) : NULL;
  if (base_runs == NULL || (current != NULL && cur_runs == NULL))
    return;
  sides[0] = base_runs;
  sides[1] = cur_runs;
  forget_sample_type (self);
  comparison = flame_comparison_new ();
  for (guint side = 0; side < 2; side++)
    for (guint i = 0; sides[side] != NULL && i < sides[side]->len; i++)
      flame_comparison_add_file (comparison, side, g_ptr_array_index (sides[side], i));
  apply_options (self, comparison);
  _flame_window_clear_pending (self);
  self->pending_opens = TRUE;
  _flame_window_start_comparison (self, comparison);
}

gboolean
flame_window_is_busy (FlameWindow *self)
{
  g_return_val_if_fail (FLAME_IS_WINDOW (self), FALSE);
  return self->pending != NULL || self->rebuild_source != 0;
}

gboolean
flame_window_is_empty (FlameWindow *self)
{
  g_return_val_if_fail (FLAME_IS_WINDOW (self), FALSE);
  return self->source == NULL && self->pending == NULL;
}

/* ------------------------------------------------------------------ */
/* Template callbacks */

static void
on_search_changed_cb (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  flame_graph_view_set_search_regex (self->graph_view,
                                     gtk_toggle_button_get_active (self->regex_button));
  flame_graph_view_set_search_text (self->graph_view,
                                    gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
  update_match_label (self);
}

static void
on_search_activate_cb (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  flame_graph_view_next_match (self->graph_view);
}

static void
on_search_next_cb (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  flame_graph_view_next_match (self->graph_view);
}

static void
on_search_previous_cb (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  flame_graph_view_previous_match (self->graph_view);
}

static void
on_search_stop_cb (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

static void
on_search_mode_changed (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  if (!gtk_search_bar_get_search_mode (self->search_bar))
    flame_graph_view_set_search_text (self->graph_view, "");
  else
    on_search_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_MODE]);
}

static void
on_reveal_flap_changed (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_SIDEBAR]);
}

/* A menu open under its button: the button's tooltip (still under the
 * pointer that clicked) would cover the menu's first items, and so would
 * an ancestor's, which GTK shows when the button has none (an
 * AdwSplitButton's over its arrow). Those turned off here are marked, to
 * be turned on again when the menu closes. */
static void
on_popover_visible (GtkWidget  *popover,
                    GParamSpec *pspec,
                    gpointer    user_data)
{
  GtkWidget *button = gtk_widget_get_parent (popover);
  gboolean open = gtk_widget_get_visible (popover);

  g_assert (GTK_IS_WIDGET (popover));

  if (button == NULL)
    return;
  for (GtkWidget *w = button; w != NULL && !GTK_IS_ROOT (w); w = gtk_widget_get_parent (w))
    {
      if (open && gtk_widget_get_has_tooltip (w))
        {
          gtk_widget_set_has_tooltip (w, FALSE);
          g_object_set_data (G_OBJECT (w), "flame-tooltip-off", GINT_TO_POINTER (TRUE));
        }
      else if (!open && g_object_get_data (G_OBJECT (w), "flame-tooltip-off") != NULL)
        {
          gtk_widget_set_has_tooltip (w, TRUE);
          g_object_set_data (G_OBJECT (w), "flame-tooltip-off", NULL);
        }
    }
  /* asks the tooltip again: one on show goes */
  gtk_widget_trigger_tooltip_query (button);
}

/* every menu button and dropdown under @root: no tooltip while its
 * popover is open. Again for a popover made later (a menu button's new
 * menu model makes a new one): each popover is watched once. */
void
_flame_window_hide_tooltips_over_menus (GtkWidget *root)
{
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();

  g_ptr_array_add (todo, root);
  while (todo->len > 0)
    {
      GtkWidget *w = g_ptr_array_steal_index (todo, todo->len - 1);

      if (GTK_IS_POPOVER (w) && gtk_widget_get_parent (w) != NULL &&
          gtk_widget_get_has_tooltip (gtk_widget_get_parent (w)) &&
          g_object_get_data (G_OBJECT (w), "flame-tooltip-watch") == NULL)
        {
          g_signal_connect (w, "notify::visible", G_CALLBACK (on_popover_visible), NULL);
          g_object_set_data (G_OBJECT (w), "flame-tooltip-watch", GINT_TO_POINTER (TRUE));
        }
      for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (todo, c);
    }
}

/* the widest call of function @frame in @source's tree, or FLAME_TREE_NONE */
static guint32
widest_node_of (FlameLayoutSource *source,
                guint32            frame)
{
  const FlameTree *tree = flame_layout_source_get_tree (source);
  guint32 best = FLAME_TREE_NONE;
  gdouble best_w = 0;

  for (guint32 i = FLAME_TREE_ROOT + 1; i < tree->n_nodes; i++)
    if (tree->nodes[i].frame == frame)
      {
        gdouble w = flame_layout_source_get_weight (source, i);

        if (best == FLAME_TREE_NONE || w > best_w)
          {
            best = i;
            best_w = w;
          }
      }
  return best;
}

/* graph pixels below which a function chosen in the panel is zoomed to */
#define CHOSEN_MIN_WIDTH 48

/* a function chosen in the changes panel: every call of it outlined, and
 * its widest call selected and scrolled to; when that is outside the
 * zoomed-in part or too narrow to see (a small function of a large
 * profile), the graph zooms to it */
static void
on_selected_function_changed (FlameWindow       *self,
                              GParamSpec        *pspec,
                              FlameChangesPanel *panel)
{
  guint32 frame, node, zoom;
  const FlameTree *tree;
  gboolean inside = FALSE;
  gdouble zw;

  g_assert (FLAME_IS_WINDOW (self));
  g_assert (FLAME_IS_CHANGES_PANEL (panel));

  frame = flame_changes_panel_get_selected_function (panel);
  flame_graph_view_highlight_function (self->graph_view, frame);
  if (frame == FLAME_TREE_NONE || self->source == NULL)
    return;
  node = widest_node_of (self->source, frame);
  if (node == FLAME_TREE_NONE)
    return;    /* not in this view (a removed function in the differential one) */
  tree = flame_layout_source_get_tree (self->source);
  zoom = flame_graph_view_get_zoom_node (self->graph_view);
  for (guint32 n = node; !inside; n = tree->nodes[n].parent)
    {
      inside = n == zoom;
      if (n == FLAME_TREE_ROOT)
        break;
    }
  zw = flame_layout_source_get_weight (self->source, zoom);
  if (!inside || zw <= 0 ||
      flame_layout_source_get_weight (self->source, node) / zw *
      gtk_widget_get_width (GTK_WIDGET (self->graph_view)) < CHOSEN_MIN_WIDTH)
    flame_graph_view_zoom_to (self->graph_view, node);
  flame_graph_view_set_selected_node (self->graph_view, node);
}

/* ------------------------------------------------------------------ */
/* Settings */

static gboolean
enum_to_bool (GValue   *value,
              GVariant *variant,
              gpointer  user_data)
{
  g_value_set_boolean (value, g_strcmp0 (g_variant_get_string (variant, NULL), "total") == 0);
  return TRUE;
}

static GVariant *
bool_to_enum (const GValue       *value,
              const GVariantType *expected_type,
              gpointer            user_data)
{
  if (g_value_get_boolean (value))
    return g_variant_new_string ("total");
  return g_variant_new_string (user_data);
}

static void
on_orientation_changed (FlameWindow *self)
{
  g_autofree char *orientation = g_settings_get_string (self->settings, "orientation");

  g_assert (FLAME_IS_WINDOW (self));

  flame_graph_view_set_orientation (self->graph_view, g_strcmp0 (orientation, "icicle") == 0
                                                        ? FLAME_ORIENTATION_ICICLE
                                                        : FLAME_ORIENTATION_FLAME);
}

static void
on_theme_changed (FlameWindow *self)
{
  g_autofree char *theme = g_settings_get_string (self->settings, "theme");

  g_assert (FLAME_IS_WINDOW (self));

  flame_graph_view_set_palette_style (self->graph_view, g_strcmp0 (theme, "high-contrast") == 0
                                                          ? FLAME_GRAPH_PALETTE_HIGH_CONTRAST
                                                          : FLAME_GRAPH_PALETTE_AUTO);
}

/* ------------------------------------------------------------------ */
/* GObject */

static gboolean
flame_window_close_request (GtkWindow *window)
{
  FlameWindow *self = FLAME_WINDOW (window);
  int width, height;

  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  if (!gtk_window_is_maximized (window))
    {
      g_settings_set_int (self->settings, "window-width", MAX (width, 360));
      g_settings_set_int (self->settings, "window-height", MAX (height, 294));
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  return GTK_WINDOW_CLASS (flame_window_parent_class)->close_request (window);
}

static void
flame_window_dispose (GObject *object)
{
  FlameWindow *self = FLAME_WINDOW (object);

  /* the panel's selection moves as it is disposed with the template */
  if (self->changes_panel != NULL)
    g_signal_handlers_disconnect_by_data (self->changes_panel, self);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_clear_handle_id (&self->banner_source, g_source_remove);
  g_clear_handle_id (&self->rebuild_source, g_source_remove);
  /* the narrow layout's switch (flame-window-narrow.c) */
  g_clear_handle_id (&self->narrow_idle, g_source_remove);
  g_clear_object (&self->wide_menu);
  for (guint i = 0; i < 2; i++)
    {
      if (self->monitors[i] != NULL)
        {
          g_signal_handlers_disconnect_by_data (self->monitors[i], self);
          g_file_monitor_cancel (self->monitors[i]);
        }
      g_clear_object (&self->monitors[i]);
      g_clear_object (&self->files[i]);
    }
  if (self->pending != NULL)
    g_signal_handlers_disconnect_by_data (self->pending, self);
  g_clear_object (&self->pending);
  self->view_task = NULL;
  self->diff = NULL;
  self->report = NULL;
  g_clear_object (&self->comparison);
  g_clear_object (&self->source);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->view, g_free);
  g_clear_pointer (&self->sample_type, g_free);
  g_clear_object (&self->sample_type_section);
  g_clear_pointer (&self->last_error, g_free);
  g_clear_pointer (&self->spools, g_ptr_array_unref);
  if (self->reveal_params != NULL && self->flap != NULL)
    g_signal_handlers_disconnect_by_func (self->flap, on_first_reveal_progress, self);
  g_clear_pointer (&self->reveal_params, adw_spring_params_unref);

  gtk_widget_dispose_template (GTK_WIDGET (self), FLAME_TYPE_WINDOW);
  G_OBJECT_CLASS (flame_window_parent_class)->dispose (object);
}

static void
flame_window_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  FlameWindow *self = FLAME_WINDOW (object);

  switch (prop_id)
    {
    case PROP_VIEW:
      g_value_set_string (value, self->view);
      break;
    case PROP_INVERTED:
      g_value_set_boolean (value, self->inverted);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, self->normalize);
      break;
    case PROP_COLOUR_BY_TOTAL:
      g_value_set_boolean (value, self->colour_by_total);
      break;
    case PROP_HIDE_NOISE:
      g_value_set_boolean (value, self->hide_noise);
      break;
    case PROP_SEARCH_MODE:
      g_value_set_boolean (value,
                           self->search_bar && gtk_search_bar_get_search_mode (self->search_bar));
      break;
    case PROP_SHOW_SIDEBAR:
      g_value_set_boolean (value, self->flap && adw_flap_get_reveal_flap (self->flap));
      break;
    case PROP_SHOW_LEGEND:
      g_value_set_boolean (value, self->show_legend);
      break;
    case PROP_SAMPLE_TYPE:
      g_value_set_string (value, self->sample_type != NULL ? self->sample_type : "");
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->pending != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
set_boolean (FlameWindow *self,
             gboolean    *field,
             gboolean     value,
             GParamSpec  *pspec,
             gboolean     diff_again)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), pspec);
  if (diff_again)
    schedule_rebuild (self);
  else
    rebuild (self, TRUE);
}

static void
flame_window_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  FlameWindow *self = FLAME_WINDOW (object);

  switch (prop_id)
    {
    case PROP_VIEW:
      if (g_strcmp0 (self->view, g_value_get_string (value)) != 0)
        {
          g_free (self->view);
          self->view = g_value_dup_string (value);
          g_object_notify_by_pspec (object, pspec);
          _flame_window_actions_update (self);
          rebuild (self, TRUE);
        }
      break;
    case PROP_INVERTED:
      set_boolean (self, &self->inverted, g_value_get_boolean (value), pspec, FALSE);
      break;
    case PROP_NORMALIZE:
      set_boolean (self, &self->normalize, g_value_get_boolean (value), pspec, TRUE);
      break;
    case PROP_COLOUR_BY_TOTAL:
      set_boolean (self, &self->colour_by_total, g_value_get_boolean (value), pspec, TRUE);
      break;
    case PROP_HIDE_NOISE:
      set_boolean (self, &self->hide_noise, g_value_get_boolean (value), pspec, TRUE);
      break;
    case PROP_SEARCH_MODE:
      gtk_search_bar_set_search_mode (self->search_bar, g_value_get_boolean (value));
      break;
    case PROP_SHOW_SIDEBAR:
      adw_flap_set_reveal_flap (self->flap, g_value_get_boolean (value));
      break;
    case PROP_SAMPLE_TYPE:
      {
        const char *type = g_value_get_string (value);

        if (type != NULL && type[0] == '\0')
          type = NULL;
        if (g_strcmp0 (self->sample_type, type) != 0)
          {
            g_free (self->sample_type);
            self->sample_type = g_strdup (type);
            g_object_notify_by_pspec (object, pspec);
            /* another sample type is another reading of the files */
            if (self->comparison != NULL)
              _flame_window_reload (self);
          }
      }
      break;
    case PROP_SHOW_LEGEND:
      if (self->show_legend != g_value_get_boolean (value))
        {
          self->show_legend = g_value_get_boolean (value);
          gtk_widget_set_visible (self->legend, self->show_legend);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_window_class_init (FlameWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = flame_window_dispose;
  object_class->get_property = flame_window_get_property;
  object_class->set_property = flame_window_set_property;
  window_class->close_request = flame_window_close_request;
  widget_class->size_allocate = _flame_window_size_allocate;

  properties[PROP_VIEW] =
    g_param_spec_string ("view", NULL, NULL, "differential",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INVERTED] =
    g_param_spec_boolean ("inverted", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_NORMALIZE] =
    g_param_spec_boolean ("normalize", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COLOUR_BY_TOTAL] =
    g_param_spec_boolean ("colour-by-total", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HIDE_NOISE] =
    g_param_spec_boolean ("hide-noise", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SEARCH_MODE] =
    g_param_spec_boolean ("search-mode", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_SIDEBAR] =
    g_param_spec_boolean ("show-sidebar", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_LEGEND] =
    g_param_spec_boolean ("show-legend", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the sample type loaded from files with several (pprof, callgrind,
   * Sysprof, memory recordings); "" for the file's default */
  properties[PROP_SAMPLE_TYPE] =
    g_param_spec_string ("sample-type", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (FLAME_TYPE_GRAPH_VIEW);
  g_type_ensure (FLAME_TYPE_BREADCRUMBS);
  g_type_ensure (FLAME_TYPE_LEGEND);
  g_type_ensure (FLAME_TYPE_SUMMARY_BAR);
  g_type_ensure (FLAME_TYPE_CHANGES_PANEL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/flamediff/Flamediff/ui/flame-window.ui");
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, title_stack);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, view_switcher);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, differential_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, elided_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, sidebar_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, view_menu_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, search_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, changed_revealer);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, regex_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, match_label);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, status_page);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, record_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, summary_bar);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, recover_revealer);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, recover_label);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, recover_button);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, flap);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, graph_scroller);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, graph_view);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, legend);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, changes_panel);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, open_recent_section);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, recent_menu);
  gtk_widget_class_bind_template_child (widget_class, FlameWindow, view_menu);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_next_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_previous_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_stop_cb);

  _flame_window_class_actions_init (widget_class);
}

static void
flame_window_init (FlameWindow *self)
{
  self->view = g_strdup ("differential");
  self->show_legend = TRUE;
  self->sample_type_section = g_menu_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  _flame_window_setup_adaptive (self);
  _flame_window_hide_tooltips_over_menus (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  g_signal_connect_object (self->changes_panel, "notify::selected-function",
                           G_CALLBACK (on_selected_function_changed), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (self->search_bar, "notify::search-mode-enabled",
                           G_CALLBACK (on_search_mode_changed), self, G_CONNECT_SWAPPED);
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  gtk_search_bar_set_key_capture_widget (self->search_bar, GTK_WIDGET (self));
  g_signal_connect_object (self->flap, "notify::reveal-flap",
                           G_CALLBACK (on_reveal_flap_changed), self, G_CONNECT_SWAPPED);

  g_settings_bind_with_mapping (self->settings, "normalize", self, "normalize",
                                G_SETTINGS_BIND_DEFAULT, enum_to_bool, bool_to_enum,
                                (gpointer) "absolute", NULL);
  g_settings_bind_with_mapping (self->settings, "colour-metric", self, "colour-by-total",
                                G_SETTINGS_BIND_DEFAULT, enum_to_bool, bool_to_enum,
                                (gpointer) "self", NULL);
  g_settings_bind (self->settings, "hide-noise", self, "hide-noise", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "show-legend", self, "show-legend", G_SETTINGS_BIND_DEFAULT);
  {
    static const char *keys[] = { "frame-matching",      "strip-hex",     "exact-paths",
                                  "default-interval-ms", "threshold-pct", "min-abs-ms",
                                  "significance-level" };

    for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
      {
        g_autofree char *signal = g_strconcat ("changed::", keys[i], NULL);

        g_signal_connect_object (self->settings, signal, G_CALLBACK (schedule_rebuild),
                                 self, G_CONNECT_SWAPPED);
      }
  }
  g_signal_connect_object (self->settings, "changed::orientation",
                           G_CALLBACK (on_orientation_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::theme",
                           G_CALLBACK (on_theme_changed), self, G_CONNECT_SWAPPED);
  on_orientation_changed (self);
  on_theme_changed (self);

  _flame_window_setup_dnd (self);
  _flame_window_setup_panel_handle (self);

  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (_flame_window_rebuild_recent_menu), self, G_CONNECT_SWAPPED);
  _flame_window_rebuild_recent_menu (self);

  gtk_widget_set_visible (GTK_WIDGET (self->elided_button), FALSE);
  set_busy_ui (self, FALSE);
  _flame_window_actions_update (self);
  update_summary (self);
  flame_window_check_interrupted_recordings (self);
}

FlameWindow *
flame_window_new (AdwApplication *application)
{
  return g_object_new (FLAME_TYPE_WINDOW, "application", application, NULL);
}

/* flame-window-private.h: FlameWindow's instance, shared with the tests.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-changes-panel.h"
#include "flame-comparison.h"
#include "flame-graph-view.h"
#include "flame-report.h"
#include "flame-summary-bar.h"
#include "flame-window.h"

G_BEGIN_DECLS

struct _FlameWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwHeaderBar         *header_bar;
  AdwSplitButton       *open_button;
  GtkStack             *title_stack;
  AdwWindowTitle       *window_title;
  GtkWidget            *view_switcher;
  GtkToggleButton      *differential_button;
  GtkToggleButton      *elided_button;
  GtkWidget            *sidebar_button;
  GtkWidget            *view_menu_button;
  GtkWidget            *search_button;
  GtkRevealer          *progress_revealer;
  GtkLabel             *progress_label;
  GtkProgressBar       *progress_bar;
  GtkRevealer          *error_revealer;
  GtkLabel             *error_label;
  GtkRevealer          *changed_revealer;
  GtkRevealer          *recover_revealer;
  GtkLabel             *recover_label;
  GtkWidget            *recover_button;
  GtkSearchBar         *search_bar;
  GtkSearchEntry       *search_entry;
  GtkToggleButton      *regex_button;
  GtkLabel             *match_label;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *main_stack;
  AdwStatusPage        *status_page;
  GtkWidget            *record_button;
  FlameSummaryBar      *summary_bar;
  AdwFlap              *flap;
  GtkWidget            *graph_scroller;
  FlameGraphView       *graph_view;
  GtkWidget            *legend;
  FlameChangesPanel    *changes_panel;
  GMenu                *open_recent_section;
  GMenu                *recent_menu;
  GMenu                *view_menu;
  GMenu                *sample_type_section;  /* in view_menu while the file has several */

  /* Owned references */
  GSettings            *settings;
  FlameComparison      *comparison;     /* what the window shows */
  GFile                *files[2];       /* its files; files[1] is NULL for one file */
  FlameDiff            *diff;           /* its diff and report, owned by it */
  FlameReport          *report;
  FlameLayoutSource    *source;
  GCancellable         *cancellable;
  GFileMonitor         *monitors[2];
  char                 *view;
  char                 *sample_type;       /* asked for; NULL: the file's default */
  gboolean              keep_sample_type;  /* reloading the same files */
  char                 *last_error;
  GPtrArray            *spools;         /* interrupted recordings offered for recovery */
  gboolean              recovering;

  FlameComparison      *pending;        /* being compared (stage 1) or laid out (stage 2) */
  gpointer              view_task;      /* stage 2: its task, not owned */
  gboolean              pending_opens;  /* it brings files the user opened */
  gboolean              pending_rediff; /* options changed during stage 1 */
  gboolean              pending_swap;   /* Swap asked for during stage 1 */
  guint                 progress_source;
  guint                 banner_source;  /* reveals the progress banner */
  guint                 rebuild_source;
  guint                 n_exports;      /* exports running */
  gboolean              inverted;
  gboolean              normalize;
  gboolean              colour_by_total;
  gboolean              hide_noise;
  gboolean              show_legend;
  gboolean              sidebar_shown_once;
  AdwSpringParams      *reveal_params;  /* the flap's own, during the first reveal */
  guint                 reveal_tick;
  gboolean              narrow;          /* flame-window-narrow.c */
  gboolean              narrow_applied;
  guint                 narrow_idle;
  GtkMenuButton        *primary_menu_button;  /* found when the layout first switches */
  GMenuModel           *wide_menu;       /* its menu in the wide layout */
  int                   panel_width;     /* the changes panel's, for this width */
  int                   panel_width_applied;
  int                   window_width;    /* the flap's, at the last allocation */
  int                   flap_inset;      /* the window's width less the flap's */
  GtkWidget            *panel_handle;    /* flame-window-panel.c: the flap's separator */
  int                   panel_user_width;  /* changes-panel-width */
  int                   drag_start_width;
  gboolean              dragging;
};

/* flame-window.c */
void             _flame_window_show_error         (FlameWindow     *self,
                                                   const char      *message);
void             _flame_window_clear_pending      (FlameWindow     *self);
void             _flame_window_start_comparison   (FlameWindow     *self,
                                                   FlameComparison *comparison);
FlameComparison *_flame_window_derive_comparison  (FlameWindow     *self,
                                                   FlameComparison *from,
                                                   gboolean         swap);

/* flame-window-actions.c */
void             _flame_window_class_actions_init (GtkWidgetClass  *widget_class);
void             _flame_window_actions_update     (FlameWindow     *self);
void             _flame_window_export             (FlameWindow     *self,
                                                   GFile           *file);
void             _flame_window_warn_same_file     (FlameWindow     *self);

/* flame-window.c */
void             _flame_window_hide_tooltips_over_menus (GtkWidget *root);

/* flame-window-dnd.c */
void             _flame_window_setup_dnd          (FlameWindow     *self);

/* flame-window-narrow.c */
void             _flame_window_setup_adaptive     (FlameWindow     *self);
void             _flame_window_size_allocate      (GtkWidget       *widget,
                                                   int              width,
                                                   int              height,
                                                   int              baseline);

/* flame-window-open.c */
GPtrArray       *_flame_window_expand_runs        (FlameWindow     *self,
                                                   GPtrArray       *files);

/* flame-window-panel.c */
void             _flame_window_setup_panel_handle (FlameWindow     *self);
void             _flame_window_apply_panel_width  (FlameWindow     *self,
                                                   int              width);
int              _flame_window_panel_width_for    (FlameWindow     *self,
                                                   int              window_width,
                                                   gboolean         narrow);

/* flame-window-recent.c */
void             _flame_window_add_to_recent      (FlameWindow     *self);
void             _flame_window_rebuild_recent_menu (FlameWindow    *self);
void             _flame_window_reload              (FlameWindow    *self);

G_END_DECLS

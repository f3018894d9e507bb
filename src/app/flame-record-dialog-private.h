/* flame-record-dialog-private.h: FlameRecordDialog's instance, shared
 * with the tests.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-record-dialog.h"
#include "flame-recorder.h"
#include "flame-sandbox.h"

G_BEGIN_DECLS

typedef enum
{
  FLAME_RECORD_SETUP,
  FLAME_RECORD_BASELINE,   /* recording the baseline */
  FLAME_RECORD_BETWEEN,    /* baseline done: change the code, then record current */
  FLAME_RECORD_CURRENT,    /* recording the current run */
  FLAME_RECORD_DONE,
} FlameRecordPhase;

/* the rows of the Measure combo row */
typedef enum
{
  FLAME_MEASURE_CPU,
  FLAME_MEASURE_MEMORY,
} FlameRecordMeasure;

struct _FlameRecordDialog
{
  AdwWindow          parent_instance;

  /* Template widgets */
  AdwHeaderBar      *header_bar;
  GtkWidget         *cancel_button;
  GtkWidget         *start_button;
  GtkStack          *stack;
  AdwEntryRow       *command_row;
  GtkMenuButton     *recent_button;
  AdwActionRow      *directory_row;
  AdwComboRow       *measure_row;
  AdwActionRow      *frequency_row;
  GtkSpinButton     *frequency_spin;
  GtkSpinButton     *runs_spin;
  GtkWidget         *sandbox_box;
  GtkLabel          *sandbox_title;
  GtkLabel          *sandbox_label;
  GtkLabel          *sandbox_command;
  AdwComboRow       *baseline_row;
  AdwComboRow       *earlier_row;
  AdwActionRow      *file_row;
  GtkLabel          *error_label;
  GtkLabel          *phase_label;
  GtkLabel          *command_label;
  GtkLabel          *elapsed_label;
  GtkLabel          *samples_label;
  GtkLabel          *lost_label;
  GtkWidget         *stop_button;
  GtkExpander       *output_expander;
  GtkTextView       *output_view;
  AdwStatusPage     *between_page;

  /* Owned references */
  GSettings         *settings;
  FlameWindow       *window;        /* weak */
  FlameSandboxInfo  *sandbox;
  FlameSandboxPlan   plan;
  FlameRecorder     *recorder;      /* the running recording */
  GStrv              argv;
  char              *cwd;
  GFile             *baseline;      /* the first run of each side */
  GFile             *current;
  GPtrArray         *baseline_runs; /* GFile: every run of each side */
  GPtrArray         *current_runs;
  guint              runs;          /* per side, as Start read it */
  guint              run_index;     /* the run being recorded, from 1 */
  char              *runs_dir;      /* with runs > 1: the set's folder */
  GFile             *baseline_file; /* chosen with Open a File */
  GPtrArray         *earlier_paths; /* char *, in the order of earlier_row */
  GMenu             *recent_menu;
  FlameRecordPhase   phase;
  gulong             parent_close_id;
  gboolean           shutting_down;
  gboolean           holding;
};

G_END_DECLS

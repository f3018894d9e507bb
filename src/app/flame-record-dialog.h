/* flame-record-dialog.h: Record and Diff: record a command (a baseline
 * and a current run, or only the current one) and open the comparison.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "flame-window.h"

G_BEGIN_DECLS

#define FLAME_TYPE_RECORD_DIALOG (flame_record_dialog_get_type ())

/* a dialog over its window from libadwaita 1.5, a modal window before
 * (the .ui's parent follows, src/app/meson.build) */
#if ADW_CHECK_VERSION(1, 5, 0)
G_DECLARE_FINAL_TYPE (FlameRecordDialog, flame_record_dialog, FLAME, RECORD_DIALOG, AdwDialog)
#else
G_DECLARE_FINAL_TYPE (FlameRecordDialog, flame_record_dialog, FLAME, RECORD_DIALOG, AdwWindow)
#endif

typedef enum
{
  FLAME_BASELINE_RECORD,
  FLAME_BASELINE_EARLIER,
  FLAME_BASELINE_FILE,
} FlameBaselineMode;

FlameRecordDialog *flame_record_dialog_new        (FlameWindow       *window,
                                                   GSettings         *settings);
void               flame_record_dialog_present    (FlameRecordDialog *self);
void               flame_record_dialog_shutdown   (FlameRecordDialog *self);
char              *flame_record_dialog_describe_recording (const char *path);

G_END_DECLS

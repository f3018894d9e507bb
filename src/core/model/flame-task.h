/* flame-task.h: running a GTask's work where it does not slow the UI.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

void flame_task_run_in_background (GTask           *task,
                                   GTaskThreadFunc  task_func);
void flame_thread_lower_priority  (void);

G_END_DECLS

/* flame-task.c: running a GTask's work where it does not slow the UI.
 *
 * Loading and comparing two large profiles keeps both cores busy for a
 * second or more. At the same priority the window's thread, woken for a
 * frame, often waits for a core behind those workers: the main loop
 * stalled for 30-140 ms while it used 2-15 ms of CPU (issue 17). Work the
 * window waits for therefore runs on its own thread at a lower priority
 * (a higher nice value, which on Linux is a thread's own and is inherited
 * by the threads it starts: the loaders' and the merge's). An idle
 * machine gives it the same cores as before.
 *
 * Not GLib's task pool: a pool thread's priority cannot be raised again
 * (that needs privileges), and its other tasks would inherit it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>

#ifdef __linux__
# include <sys/resource.h>
# include <sys/syscall.h>
# include <unistd.h>
#endif

#include "flame-task.h"

/* as much lower as a desktop's indexers and builders usually run: the
 * window's thread wins a core at once, a busy machine still leaves the
 * work a fair part of the cores */
#define BACKGROUND_NICE_INCREMENT 5

/**
 * flame_thread_lower_priority:
 *
 * Lowers the calling thread's CPU priority (and that of the threads it
 * starts afterwards) for work a user interface waits for. Only on Linux,
 * where priority is per thread; elsewhere it does nothing.
 */
void
flame_thread_lower_priority (void)
{
#ifdef __linux__
  pid_t tid = (pid_t) syscall (SYS_gettid);
  int nice_now;

  errno = 0;
  nice_now = getpriority (PRIO_PROCESS, tid);
  if (errno == 0 && nice_now < 19)
    (void) setpriority (PRIO_PROCESS, tid, MIN (nice_now + BACKGROUND_NICE_INCREMENT, 19));
#endif
}

typedef struct
{
  GTask           *task;
  GTaskThreadFunc  func;
} Work;

static gpointer
background_thread (gpointer data)
{
  Work *work = data;
  GTask *task = work->task;

  flame_thread_lower_priority ();
  work->func (task, g_task_get_source_object (task), g_task_get_task_data (task),
              g_task_get_cancellable (task));
  g_object_unref (task);
  g_free (work);
  return NULL;
}

/**
 * flame_task_run_in_background:
 * @task: a #GTask
 * @task_func: the work; it returns @task's result, as with
 *   g_task_run_in_thread()
 *
 * Like g_task_run_in_thread(), but on a new thread of lower priority
 * (flame_thread_lower_priority()): for long work while a window stays
 * responsive. @task's callback runs in its context as usual.
 */
void
flame_task_run_in_background (GTask           *task,
                              GTaskThreadFunc  task_func)
{
  Work *work;

  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (task_func != NULL);

  work = g_new0 (Work, 1);
  work->task = g_object_ref (task);
  work->func = task_func;
  g_thread_unref (g_thread_new ("flame-background", background_thread, work));
}

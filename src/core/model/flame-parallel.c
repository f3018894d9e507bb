/* flame-parallel.c: one loop over profile-sized ranges on every core,
 * text written in parts on every core and taken in order, and the
 * priority of an application's background threads.
 *
 * For passes over millions of nodes whose iterations are independent
 * (filling fresh arrays, colouring a view's nodes, sorting sibling
 * blocks): the range is cut into one contiguous piece per core, the
 * caller takes the first. Threads are started per loop (tens of
 * microseconds, against the tens of milliseconds a loop worth splitting
 * takes), so no pool outlives the work.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "flame-parallel.h"

#ifdef __linux__
# include <errno.h>
# include <sys/resource.h>
# include <sys/syscall.h>
# include <unistd.h>
#endif

#define MAX_THREADS 8

static gint background_nice = G_MININT;  /* G_MININT: not set */
static GThread *foreground;

/**
 * flame_parallel_set_background_nice:
 * @nice: how much lower background work runs than the calling thread
 *   (added to its nice value; 0 for not at all)
 *
 * For an application whose calling (main) thread must stay responsive
 * while workers load and compare: a thread that calls
 * flame_parallel_enter_background() runs at the calling thread's nice
 * value plus @nice from then on, and so do the threads it starts. With
 * as many busy workers as cores, the scheduler then lets the main loop
 * run when it wakes instead of after a worker's time slice (the app's
 * stalls while opening a pair were half waiting for a core). Nice
 * values are per thread on Linux only; elsewhere this does nothing.
 */
void
flame_parallel_set_background_nice (gint nice)
{
  gint base = 0;

#ifdef __linux__
  errno = 0;
  base = getpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid));
  if (errno != 0)
    base = 0;
#endif
  foreground = g_thread_self ();
  g_atomic_int_set (&background_nice, nice > 0 ? MIN (base + nice, 19) : G_MININT);
}

/**
 * flame_parallel_enter_background:
 *
 * Called first by the function of a worker thread (a #GTask's, say):
 * lowers the thread to the background priority that
 * flame_parallel_set_background_nice() asked for, once (a pool thread
 * that ran background work before stays there). Does nothing on the
 * thread that asked, or when nobody did (the command-line tool).
 */
void
flame_parallel_enter_background (void)
{
#ifdef __linux__
  gint target = g_atomic_int_get (&background_nice);
  id_t tid;

  if (target == G_MININT || g_thread_self () == foreground)
    return;
  tid = (id_t) syscall (SYS_gettid);
  errno = 0;
  if (getpriority (PRIO_PROCESS, tid) < target && errno == 0)
    setpriority (PRIO_PROCESS, tid, target);
#endif
}

/**
 * flame_parallel_threads:
 *
 * Returns: how many threads the loops here use at most: one per core,
 *   up to 8. For callers that size their work to it.
 */
guint
flame_parallel_threads (void)
{
  return MIN (MAX (g_get_num_processors (), 1), MAX_THREADS);
}

typedef struct
{
  FlameRangeFunc func;
  gpointer       data;
  gsize          start;
  gsize          end;
} Piece;

static gpointer
run_piece (gpointer data)
{
  Piece *piece = data;

  piece->func (piece->start, piece->end, piece->data);
  return NULL;
}

/**
 * flame_parallel_for:
 * @n: the loop runs over [0, @n)
 * @min_per_thread: the least a thread is given: below twice this, the
 *   loop runs on the calling thread alone
 * @func: called once per piece, on the calling thread and on others
 *
 * Calls @func on contiguous, non-empty pieces of [0, @n) (not at all
 * when @n is 0), at once on up to one thread per core, and returns when
 * all are done. Where a thread cannot be started its piece runs on the
 * calling thread.
 */
void
flame_parallel_for (gsize          n,
                    gsize          min_per_thread,
                    FlameRangeFunc func,
                    gpointer       data)
{
  Piece pieces[MAX_THREADS];
  GThread *threads[MAX_THREADS] = { NULL, };
  guint n_pieces = flame_parallel_threads ();
  gsize step;

  g_return_if_fail (func != NULL);

  if (n == 0)
    return;
  n_pieces = (guint) MIN ((gsize) n_pieces, n / MAX (min_per_thread, 1));
  n_pieces = MAX (n_pieces, 1);
  step = n / n_pieces + (n % n_pieces != 0);
  /* with the step rounded up, the last pieces may be left empty */
  n_pieces = (guint) ((n + step - 1) / step);
  for (guint i = 0; i < n_pieces; i++)
    {
      pieces[i] = (Piece) { func, data, i * step, MIN ((i + 1) * step, n) };
      if (i > 0)
        threads[i] = g_thread_try_new ("flame-parallel", run_piece, &pieces[i], NULL);
    }
  for (guint i = 0; i < n_pieces; i++)
    if (threads[i] == NULL)
      run_piece (&pieces[i]);
  for (guint i = 1; i < n_pieces; i++)
    if (threads[i] != NULL)
      g_thread_join (threads[i]);
}

/* flame_parallel_text()'s tasks ahead of the one being taken, per
 * thread: enough that no worker waits, few enough that the texts held
 * stay small */
#define TEXT_WINDOW_PER_THREAD 2

typedef struct
{
  FlameTextTaskFunc func;
  gpointer          data;
  gsize             n_tasks;
  gsize             window;
  GString         **slots;   /* task i writes to slots[i % window] */
  guint8           *done;    /* per task */
  GMutex            lock;
  GCond             cond;
  gsize             next;    /* the next task to start */
  gsize             taken;   /* the tasks taken so far */
} TextPool;

static gpointer
text_worker (gpointer data)
{
  TextPool *pool = data;

  g_mutex_lock (&pool->lock);
  for (;;)
    {
      gsize task;
      GString *out;

      /* a slot is free once the task that last used it is taken */
      while (pool->next < pool->n_tasks && pool->next >= pool->taken + pool->window)
        g_cond_wait (&pool->cond, &pool->lock);
      if (pool->next >= pool->n_tasks)
        break;
      task = pool->next++;
      g_mutex_unlock (&pool->lock);

      out = pool->slots[task % pool->window];
      g_string_truncate (out, 0);
      pool->func (task, out, pool->data);

      g_mutex_lock (&pool->lock);
      pool->done[task] = TRUE;
      g_cond_broadcast (&pool->cond);
    }
  g_mutex_unlock (&pool->lock);
  return NULL;
}

/**
 * flame_parallel_text:
 * @n_tasks: the tasks are [0, @n_tasks)
 * @func: writes one task's text; called on other threads, at once
 * @take: called on the calling thread with each task's text, in task
 *   order, as soon as it and the ones before it are written
 *
 * Text made in pieces on every core and taken in order: output that is
 * a concatenation of independent parts (the lines under each subtree of
 * a tree, say) written in parallel and streamed out as it is made. Only
 * a few tasks run ahead of the one being taken, so the texts held at
 * once stay a small part of the whole. Without other threads the tasks
 * run one by one on the calling thread.
 */
void
flame_parallel_text (gsize             n_tasks,
                     FlameTextTaskFunc func,
                     FlameTextTakeFunc take,
                     gpointer          data)
{
  guint n_threads = flame_parallel_threads ();
  GThread *threads[MAX_THREADS] = { NULL, };
  TextPool pool = { func, data, n_tasks, };
  guint started = 0;

  g_return_if_fail (func != NULL && take != NULL);

  n_threads = (guint) MIN ((gsize) n_threads, n_tasks);
  pool.window = MAX (n_threads, 1) * TEXT_WINDOW_PER_THREAD;
  pool.slots = g_new (GString *, pool.window);
  for (gsize i = 0; i < pool.window; i++)
    pool.slots[i] = g_string_new (NULL);
  pool.done = g_new0 (guint8, n_tasks);
  g_mutex_init (&pool.lock);
  g_cond_init (&pool.cond);

  if (n_threads > 1)
    for (guint i = 0; i < n_threads; i++)
      if ((threads[started] = g_thread_try_new ("flame-text", text_worker, &pool, NULL)) != NULL)
        started++;

  for (gsize task = 0; task < n_tasks; task++)
    {
      GString *text = pool.slots[task % pool.window];

      if (started == 0)
        {
          g_string_truncate (text, 0);
          func (task, text, data);
        }
      else
        {
          g_mutex_lock (&pool.lock);
          while (!pool.done[task])
            g_cond_wait (&pool.cond, &pool.lock);
          g_mutex_unlock (&pool.lock);
        }
      take (text, data);
      g_mutex_lock (&pool.lock);
      pool.taken = task + 1;
      g_cond_broadcast (&pool.cond);
      g_mutex_unlock (&pool.lock);
    }

  for (guint i = 0; i < started; i++)
    g_thread_join (threads[i]);
  for (gsize i = 0; i < pool.window; i++)
    g_string_free (pool.slots[i], TRUE);
  g_free (pool.slots);
  g_free (pool.done);
  g_mutex_clear (&pool.lock);
  g_cond_clear (&pool.cond);
}

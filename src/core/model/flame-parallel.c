/* flame-parallel.c: one loop over profile-sized ranges on every core.
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

#define MAX_THREADS 8

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
  guint n_pieces = MIN (MAX (g_get_num_processors (), 1), MAX_THREADS);
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

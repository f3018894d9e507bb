/* flame-alloc.c: freeing profile-sized arrays.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-alloc.h"

static void
free_block (gpointer data,
            gpointer user_data)
{
  g_free (data);
}

/**
 * flame_free_large:
 * @p: (nullable): a block from g_malloc() and friends
 * @bytes: about how large it is
 *
 * g_free() for a large block, done on a worker thread: giving back
 * hundreds of MiB of a tree takes tens of milliseconds (the pages are
 * unmapped and cleared), which the thread that drops the last reference
 * to a tree or a graph layout (the app's main loop, on a view switch)
 * should not wait for. Small blocks are freed at once.
 */
void
flame_free_large (gpointer p,
                  gsize    bytes)
{
  static gsize pool;

  if (p == NULL)
    return;
  if (bytes < FLAME_FREE_LATER_BYTES)
    {
      g_free (p);
      return;
    }
  if (g_once_init_enter (&pool))
    g_once_init_leave (&pool, (gsize) g_thread_pool_new (free_block, NULL, 1, FALSE, NULL));
  g_thread_pool_push ((GThreadPool *) pool, p, NULL);
}

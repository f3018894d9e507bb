/* flame-alloc.c: allocating, filling and freeing profile-sized arrays.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-alloc.h"
#include "flame-parallel.h"

#include <stdlib.h>

/* below this, a block is only hinted: its partial huge pages cost less
 * than the alignment's slack */
#define ALIGN_MIN_BYTES ((gsize) 4 << 20)

/* a fill is shared among threads only when each gets at least this much */
#define FILL_MIN_BYTES_PER_THREAD ((gsize) 32 << 20)

/**
 * flame_try_alloc_huge:
 * @bytes: the size of the block
 *
 * An uninitialised block for a profile-sized array, to be freed with
 * g_free() (or flame_free_large()). A large one starts on a 2 MiB
 * boundary, spans whole huge pages and is hinted huge, so that every
 * page of it can be a huge page: g_malloc() puts a large block 16 bytes
 * into a fresh mapping, and its first and last partial 2 MiB then fault
 * in 4 KiB at a time (in a virtual machine that shadows page tables a
 * fault costs ~10 us: a block's head and tail took as long to fault in
 * as 100 MiB of huge pages). Its pages are backed as they are first
 * written, as with g_malloc(). A block grown with g_realloc() may lose
 * the alignment.
 *
 * Returns: (nullable): the block, or %NULL when memory is short
 */
gpointer
flame_try_alloc_huge (gsize bytes)
{
  gpointer p = NULL;
  gsize whole;

  if (bytes < ALIGN_MIN_BYTES)
    return flame_alloc_hint_huge (g_try_malloc (MAX (bytes, 1)), bytes);
  whole = (bytes + FLAME_HUGE_PAGE - 1) & ~(FLAME_HUGE_PAGE - 1);
  if (whole < bytes || posix_memalign (&p, FLAME_HUGE_PAGE, whole) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, whole, MADV_HUGEPAGE);
#endif
  return p;
}

/**
 * flame_alloc_huge:
 *
 * flame_try_alloc_huge() that aborts when memory is short, as g_malloc()
 * does.
 */
gpointer
flame_alloc_huge (gsize bytes)
{
  gpointer p = flame_try_alloc_huge (bytes);

  if (G_UNLIKELY (p == NULL))
    g_error ("%s: failed to allocate %" G_GSIZE_FORMAT " bytes", G_STRLOC, bytes);
  return p;
}

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

typedef struct
{
  char       *dst;
  const char *src;   /* NULL: zeroes */
  gsize       bytes;
} Fill;

/* blocks [@start, @end) of a fill, FLAME_HUGE_PAGE bytes each (the last
 * one short); flame_parallel_for() gives no empty range */
static void
fill_blocks (gsize    start,
             gsize    end,
             gpointer data)
{
  const Fill *fill = data;
  gsize from = start * FLAME_HUGE_PAGE;
  gsize to = MIN (end * FLAME_HUGE_PAGE, fill->bytes);

  if (fill->src != NULL)
    memcpy (fill->dst + from, fill->src + from, to - from);
  else
    memset (fill->dst + from, 0, to - from);
}

/* Fills @bytes at @dst, from @src or with zeros, on every core when
 * large, in pieces of whole huge pages. */
static void
fill_large (gpointer      dst,
            gconstpointer src,
            gsize         bytes)
{
  Fill fill = { dst, src, bytes };

  flame_parallel_for ((bytes + FLAME_HUGE_PAGE - 1) / FLAME_HUGE_PAGE,
                      FILL_MIN_BYTES_PER_THREAD / FLAME_HUGE_PAGE, fill_blocks, &fill);
}

/**
 * flame_zero_large:
 *
 * memset (@p, 0, @bytes), shared among the cores when @bytes is large:
 * the first write of a fresh page faults and the kernel clears it, and a
 * diff of two 2 GB files wrote 1.3 GB of zeros and copied 0.65 GB of
 * nodes into fresh pages on one thread, 4 s of its 30 s in the app.
 */
void
flame_zero_large (gpointer p,
                  gsize    bytes)
{
  fill_large (p, NULL, bytes);
}

/**
 * flame_copy_large:
 *
 * memcpy (@dst, @src, @bytes), shared among the cores when @bytes is
 * large (as flame_zero_large()). The blocks must not overlap.
 */
void
flame_copy_large (gpointer      dst,
                  gconstpointer src,
                  gsize         bytes)
{
  fill_large (dst, src, bytes);
}

/* flame-alloc.h: hints for profile-sized arrays, and freeing them.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <string.h>
#include <sys/mman.h>

G_BEGIN_DECLS

#define FLAME_HUGE_PAGE ((gsize) 2 << 20)

/* Asks for transparent huge pages under the 2 MiB-aligned part of a large
 * array (where the system leaves them to madvise(), as Debian does): the
 * tree's index and node arrays are read at random, and with 4 KiB pages
 * nearly every probe of a 100 MB table also misses the TLB, and every
 * first write of a page faults (in two loading threads, each fault also
 * stalls the other). Only a hint; returns @p. */
static inline gpointer
flame_alloc_hint_huge (gpointer p,
                       gsize    bytes)
{
#ifdef MADV_HUGEPAGE
  if (p != NULL && bytes >= 2 * FLAME_HUGE_PAGE)
    {
      guintptr start = ((guintptr) p + FLAME_HUGE_PAGE - 1) & ~(guintptr) (FLAME_HUGE_PAGE - 1);
      guintptr end = ((guintptr) p + bytes) & ~(guintptr) (FLAME_HUGE_PAGE - 1);

      if (end > start)
        madvise ((void *) start, end - start, MADV_HUGEPAGE);
    }
#endif
  return p;
}

gpointer flame_alloc_huge     (gsize bytes);
gpointer flame_try_alloc_huge (gsize bytes);
void     flame_zero_large     (gpointer      p,
                               gsize         bytes);
void     flame_copy_large     (gpointer      dst,
                               gconstpointer src,
                               gsize         bytes);

/* A zeroed array for a table that is probed (read) before it is written,
 * such as a hash index. calloc() leaves fresh pages untouched, so the
 * first probe of a page maps the shared zero page, and the first write to
 * it faults again, allocates, and flushes the TLB of every thread of the
 * process (an IPI per page while two files load). Writing the zeros here
 * makes every page's first touch a write: one fault each. Only for arrays
 * that will be filled anyway. */
static inline gpointer
flame_alloc_zeroed_table (gsize    n,
                          gsize    size,
                          gboolean huge)
{
  gpointer p = huge ? flame_alloc_huge (n * size) : g_malloc_n (n, size);

  flame_zero_large (p, n * size);
  return p;
}

/* blocks at least this large are freed by flame_free_large() on a worker */
#define FLAME_FREE_LATER_BYTES ((gsize) 4 << 20)

void flame_free_large (gpointer p,
                       gsize    bytes);

G_END_DECLS

/* flame-alloc.h: hints for profile-sized arrays.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
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

G_END_DECLS

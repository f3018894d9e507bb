/* alloc-module.c: a library that tests/capture-workloads/allocators.c
 * loads with dlopen: its allocations must be attributed to it, as the
 * program's own are.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>

void *volatile alloc_module_sink;
void alloc_module_churn (size_t bytes);

/* @bytes in blocks of 64 KiB, each freed at once */
__attribute__((noinline)) void
alloc_module_churn (size_t bytes)
{
  for (size_t done = 0; done < bytes; done += 65536)
    {
      char *p = malloc (65536);

      p[0] = 1;
      alloc_module_sink = p;
      free (p);
    }
  __asm__ volatile ("" ::: "memory");  /* no tail call: keep this frame */
}

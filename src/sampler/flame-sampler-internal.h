/* flame-sampler-internal.h: what flame-sampler.c offers the memory
 * sampler (flame-sampler-memory.c), which is linked into
 * libflamediff-sampler-memory.so only. Hidden symbols: nothing here is
 * exported from the preload.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "flame-sampler-protocol.h"

/* Fills a record header for this process and thread */
void flame_sampler_header     (FlameRecHeader *h,
                               int             type,
                               int             flags);
/* Queues a record on the calling thread's ring (or sends it when the
 * thread has none); never waits. Returns 0 when it was lost (counted). */
int  flame_sampler_push       (void           *rec,
                               uint32_t        len);
/* Sends a process record now, waiting up to a second for room */
int  flame_sampler_send_wait  (const void     *rec,
                               size_t          len);
/* Frames of the signal handler or the allocation hooks, and of the
 * kernel's signal trampoline, come first in the unwinder's answer: the
 * stack proper starts among the first few. */
#define FLAME_SAMPLER_SKIP_MAX 16
#define FLAME_SAMPLER_STACK_ROOM \
  (FLAME_SAMPLER_MAX_FRAMES + FLAME_SAMPLER_SKIP_MAX + FLAME_PY_MAX_FRAMES)

/* The calling thread's stack for a record, into @ips (room for
 * FLAME_SAMPLER_STACK_ROOM): its native frames, innermost first, at most
 * FLAME_SAMPLER_MAX_FRAMES, then its Python frames (FLAME_PY_FRAME, when
 * the recording wants them), each run placed on the native frame that
 * ran it where the interpreter lets us know (3.12+). In the SIGPROF
 * handler, @uc is the interrupted context and the stack starts at its
 * PC, @pc; elsewhere (@uc NULL: an allocation) at the first frame outside
 * this library, @pc being the caller of the hook. Code objects met for
 * the first time are sent before. Returns the native frames; *n_py the
 * Python ones, *flags FLAME_SAMPLE_TRUNCATED, _PY_TRUNCATED.
 * Async-signal-safe. */
int  flame_sampler_stack      (uint64_t       *ips,
                               uintptr_t       pc,
                               ucontext_t     *uc,
                               uint32_t       *n_py,
                               uint16_t       *flags);
/* @pc lies in this library */
int  flame_sampler_in_self    (uintptr_t       pc);
uint32_t flame_sampler_lost   (void);

/* Hooks of the memory sampler, weak: absent from the CPU builds */
void flame_sampler_memory_init        (long mean) __attribute__((weak));
void flame_sampler_memory_fork_child  (void) __attribute__((weak));
void flame_sampler_memory_thread_exit (void) __attribute__((weak));
void flame_sampler_memory_exit        (void) __attribute__((weak));
/* Around the sampler's own work outside the allocator hooks (setting up
 * the unwinder's caches): what it allocates is not the program's */
void flame_sampler_memory_set_busy    (int busy) __attribute__((weak));

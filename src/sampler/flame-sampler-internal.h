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
/* Return addresses of the calling thread, innermost first */
int  flame_sampler_unwind     (uint64_t       *ips,
                               int             max);
/* @pc lies in the dynamic loader's text (it may hold its locks) */
int  flame_sampler_in_ldso    (uintptr_t       pc);
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

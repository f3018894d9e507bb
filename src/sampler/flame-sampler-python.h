/* flame-sampler-python.h: reading CPython's frame chain from the SIGPROF
 * handler (part of libflamediff-sampler.so; libc only).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Stores one record (a FLAME_REC_PYCODE, its header still to be filled
 * in) where the sample will go, before it; returns 0 when there is no
 * room. Called from the handler. */
typedef int (*FlamePyEmit) (void *rec, uint32_t len, void *data);

/* Normal context. Looks for CPython in the process (at start and after a
 * dlopen). Returns 1 when an interpreter was found for the first time:
 * then @text holds "CPython 3.11.2" (with ": reason" when its frames
 * cannot be read), @version its PY_VERSION_HEX and @supported whether
 * samples will carry Python frames. */
int flame_py_probe (pid_t     pid,
                    char     *text,
                    size_t    text_size,
                    uint32_t *version,
                    int      *supported);

/* Normal context, in a fork child: the code objects were sent under the
 * parent's pid; the child sends its own. */
void flame_py_forget_codes (pid_t pid);

/* The handler: the Python frames of the calling thread, leaf first
 * (FLAME_PY_FRAME), at most @max; @shims[i] is the address of the
 * entry frame after frame i when there is one on the native stack
 * (3.12+), else 0. Sets *truncated when the chain is
 * deeper or could not be read to its end. New code objects go through
 * @emit first. */
int flame_py_stack (uint64_t   *out,
                    uintptr_t  *shims,
                    int         max,
                    int        *truncated,
                    FlamePyEmit emit,
                    void       *data);

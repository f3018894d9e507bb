/* flame-sampler-protocol.h: the records libflamediff-sampler.so sends to
 * the recorder.
 *
 * The recorder creates an AF_UNIX SOCK_SEQPACKET socket pair and hands one
 * end to the recorded program at a fixed descriptor number (named by
 * FLAME_SAMPLER_ENV_FD). Every record is one message: the kernel keeps
 * messages whole and in order per sender even when many processes share
 * the socket, and a record already sent survives the process crashing or
 * being killed. Samples are buffered per thread and sent by the sampler's
 * writer thread (in order per thread, not across threads); process
 * records (hello, modules, notes, exit) are sent at once, after the
 * samples taken before them.
 *
 * Plain C, no GLib: the sampler includes it too.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stdint.h>

#define FLAME_SAMPLER_MAGIC 0x31534c46u  /* "FLS1" */

/* Environment the recorder sets for the recorded program */
#define FLAME_SAMPLER_ENV_FD       "FLAMEDIFF_SAMPLER_FD"       /* descriptor number */
#define FLAME_SAMPLER_ENV_INO      "FLAMEDIFF_SAMPLER_INO"      /* inode of that socket */
#define FLAME_SAMPLER_ENV_HZ       "FLAMEDIFF_SAMPLER_HZ"       /* requested rate */
#define FLAME_SAMPLER_ENV_CHILDREN "FLAMEDIFF_SAMPLER_CHILDREN" /* "1": record children */
#define FLAME_SAMPLER_ENV_PYTHON   "FLAMEDIFF_SAMPLER_PYTHON"   /* "0": native stacks only */
/* "1": note the handler's CPU time at exit */
#define FLAME_SAMPLER_ENV_SELF_TIME "FLAMEDIFF_SAMPLER_SELF_TIME"
/* set by the sampler: the pid of the root */
#define FLAME_SAMPLER_ENV_ROOT     "FLAMEDIFF_SAMPLER_ROOT"
/* Memory mode (libflamediff-sampler-memory.so only): the mean of the
 * Poisson sampling of allocated bytes; no CPU timers then */
#define FLAME_SAMPLER_ENV_MEMORY   "FLAMEDIFF_SAMPLER_MEMORY"   /* bytes, e.g. 524288 */
/* Tuning (optional): each thread's ring buffer, and how long the writer
 * thread sleeps between passes when no ring is half full */
#define FLAME_SAMPLER_ENV_RING_KB  "FLAMEDIFF_SAMPLER_RING_KB"  /* 4 … 65536, default 64 */
#define FLAME_SAMPLER_ENV_FLUSH_MS "FLAMEDIFF_SAMPLER_FLUSH_MS" /* 1 … 60000, default 10 */
/* 0 … 50 % of the period, default 10 */
#define FLAME_SAMPLER_ENV_JITTER   "FLAMEDIFF_SAMPLER_JITTER"

/* The module path the vDSO is sent under */
#define FLAME_SAMPLER_VDSO_PATH "[vdso]"

#define FLAME_SAMPLER_MAX_FRAMES 128
#define FLAME_SAMPLER_MAX_RECORD 8192

typedef enum
{
  FLAME_REC_HELLO  = 1,  /* a process image starts: constructor, or fork child */
  FLAME_REC_MODULE = 2,  /* a loaded ELF object */
  FLAME_REC_SAMPLE = 3,
  FLAME_REC_EXIT   = 4,  /* orderly exit (atexit): final lost count */
  FLAME_REC_NOTE   = 5,  /* a message for the user */
  FLAME_REC_PYCODE = 6,  /* a Python code object, once per process image */
  FLAME_REC_RUNTIME = 7, /* a language runtime found in the process */
  FLAME_REC_ALLOC  = 8,  /* memory mode: a sampled allocation and its stack */
  FLAME_REC_FREE   = 9,  /* memory mode: a sampled allocation was freed */
  FLAME_REC_MEMSTAT = 10, /* memory mode: exact totals and the peak, at exit */
} FlameRecType;

typedef struct
{
  uint32_t magic;
  uint16_t type;    /* FlameRecType */
  uint16_t flags;
  int32_t  pid;
  int32_t  tid;
} FlameRecHeader;

/* HELLO flags */
#define FLAME_HELLO_FORKED    0x1  /* from a fork() child handler */
/* seen, but not sampled (children not followed, SIGPROF taken) */
#define FLAME_HELLO_DISABLED  0x2

typedef struct
{
  FlameRecHeader h;
  int32_t  ppid;
  uint32_t hz;          /* requested timer rate */
  uint64_t start_ns;    /* CLOCK_MONOTONIC */
  char     comm[16];
  /* followed by the executable's path, NUL-terminated */
} FlameRecHello;

typedef struct
{
  FlameRecHeader h;
  uint64_t base;        /* dlpi_addr: load bias */
  uint64_t lo, hi;      /* lowest and highest address of its PT_LOAD segments */
  uint16_t build_id_len;
  uint16_t path_len;
  uint32_t reserved;
  /* followed by build_id_len bytes of build-id, then the path (path_len bytes, no NUL) */
} FlameRecModule;

/* SAMPLE flags */
#define FLAME_SAMPLE_TRUNCATED    0x1  /* the stack was deeper than FLAME_SAMPLER_MAX_FRAMES */
/* the Python frames end early (too deep, or the chain changed) */
#define FLAME_SAMPLE_PY_TRUNCATED 0x2

/* Python frames in a sample: one uint64_t each, leaf first, after the
 * instruction pointers. The code object is named by the id of its
 * FLAME_REC_PYCODE record (0: unknown); the instruction offset (in code
 * units, FLAME_PY_NO_LASTI when unknown) gives the current line. ENTRY
 * marks the outermost Python frame run by one native call of the
 * evaluation loop (_PyEval_EvalFrameDefault), so the recorder can put
 * each run of Python frames in the place of the native frame that ran
 * it: NATIVE is that frame's index in the sample's IPs + 1 when the
 * sampler found it (3.12+: the run's entry frame lies in that native
 * frame's stack memory), 0 when the recorder must look for it by name. */
#define FLAME_PY_FRAME(id, lasti, entry) \
  ((uint64_t) (uint32_t) (id) | ((uint64_t) ((lasti) & 0xffffffu) << 32) | \
   ((entry) ? (1ull << 63) : 0))
#define FLAME_PY_FRAME_SET_NATIVE(f, index) \
  (((f) & ~(0x7full << 56)) | ((uint64_t) (((index) + 1) & 0x7f) << 56))
#define FLAME_PY_FRAME_ID(f)     ((uint32_t) (f))
#define FLAME_PY_FRAME_LASTI(f)  ((uint32_t) ((f) >> 32) & 0xffffffu)
#define FLAME_PY_FRAME_NATIVE(f) ((int) (((f) >> 56) & 0x7f) - 1)  /* -1: not known */
#define FLAME_PY_FRAME_ENTRY(f)  (((f) >> 63) != 0)
#define FLAME_PY_NO_LASTI        0xffffffu
#define FLAME_PY_MAX_FRAMES      128

typedef struct
{
  FlameRecHeader h;
  uint32_t n_frames;
  uint32_t weight;      /* timer periods: 1 + overrun */
  uint32_t lost;        /* samples this process failed to send so far */
  uint32_t n_py;        /* Python frames (FLAME_PY_FRAME), after the IPs */
  /* followed by n_frames uint64_t instruction pointers, leaf first; the
   * first is the interrupted PC, the others are return addresses; then
   * n_py Python frames */
} FlameRecSample;

/* The timer periods the process drew (the jitter, flame-sampler.c):
 * how many, their sum, the shortest and the longest, in ns of CPU time.
 * A record of the older, shorter size has none. */
typedef struct
{
  FlameRecHeader h;
  uint32_t lost;
  int32_t  status;
  uint64_t periods;
  uint64_t period_sum_ns;
  uint64_t period_min_ns;
  uint64_t period_max_ns;
} FlameRecExit;

#define FLAME_REC_EXIT_V1_SIZE (sizeof (FlameRecHeader) + 2 * sizeof (uint32_t))

/* Memory mode. Sizes are the allocator's (malloc_usable_size), so that
 * allocations and frees count the same bytes. @seq orders the ALLOC and
 * FREE records of one process across its threads (one counter per
 * process); the recorder replays them in that order to find what was
 * live at the peak and at exit. An ALLOC is followed by n_frames
 * instruction pointers, leaf first (return addresses, the caller of the
 * allocation function first), then n_py Python frames as in a sample;
 * its flags are a sample's. n_py is the upper half of what older
 * samplers sent as a 32-bit n_frames (at most 128): their records read
 * as having no Python frames. */
typedef struct
{
  FlameRecHeader h;
  uint16_t n_frames;
  uint16_t n_py;        /* Python frames (FLAME_PY_FRAME), after the IPs */
  uint32_t lost;
  uint64_t seq;
  uint64_t size;
} FlameRecAlloc;

typedef struct
{
  FlameRecHeader h;
  uint32_t lost;
  uint32_t reserved;
  uint64_t seq;
  uint64_t alloc_seq;   /* the seq of the ALLOC it frees */
} FlameRecFree;

typedef struct
{
  FlameRecHeader h;
  uint32_t reserved;
  uint32_t mean;        /* sampling mean, bytes */
  uint64_t total_bytes; /* exact: every allocation since the process image started */
  uint64_t total_count;
  uint64_t peak_bytes;  /* highest live bytes */
  uint64_t peak_seq;    /* the last seq before that peak */
  uint64_t live_bytes;  /* live now (at exit) */
  uint64_t base_bytes;  /* live when this process began (a fork child: its parent's) */
} FlameRecMemStat;

typedef struct
{
  FlameRecHeader h;
  /* followed by UTF-8 text, no NUL */
} FlameRecNote;

/* A Python code object, sent from the handler the first time a sample
 * meets it (per process image: ids start again at exec, and a fork
 * child sends its own). Strings are CPython's raw compact storage:
 * kind 1 (Latin-1, ASCII included), 2 (UCS-2) or 4 (UCS-4) bytes per
 * character, cut to at most the lengths below; the line table is
 * co_linetable (3.11+ location table), cut to FLAME_PY_MAX_TABLE. */
#define FLAME_PY_MAX_NAME  256
#define FLAME_PY_MAX_FILE  512
#define FLAME_PY_MAX_TABLE 2048

typedef struct
{
  FlameRecHeader h;
  uint32_t id;
  int32_t  first_line;
  uint16_t name_len;    /* bytes */
  uint16_t file_len;
  uint16_t table_len;
  uint8_t  name_kind;
  uint8_t  file_kind;
  /* followed by the name (co_qualname), the file, the line table */
} FlameRecPyCode;

/* RUNTIME flags */
#define FLAME_RUNTIME_UNSUPPORTED 0x1  /* seen, but its frames cannot be read: native stacks only */

typedef struct
{
  FlameRecHeader h;
  uint32_t version;     /* e.g. PY_VERSION_HEX */
  uint32_t reserved;
  /* followed by UTF-8 text: "CPython 3.11.2", then for unsupported ones
   * ": why", no NUL */
} FlameRecRuntime;

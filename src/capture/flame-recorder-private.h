/* flame-recorder-private.h: what the recorder's files share. The
 * recording (flame-recorder.c), the checks before launch
 * (flame-recorder-check.c) and the profile made of the records
 * (flame-recorder-profile.c) all see the process images and the
 * recorder's fields.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-pyframes.h"
#include "flame-recorder.h"
#include "flame-sampler-protocol.h"
#include "flame-spool.h"
#include "flame-symbolizer.h"

G_BEGIN_DECLS

#define SAMPLER_NAME "libflamediff-sampler.so"
/* the same sampler unwinding with libgcc: only libc and libgcc_s, for
 * programs on a host that may not have libunwind (Flatpak) */
#define HOST_SAMPLER_NAME "libflamediff-sampler-host.so"
/* the same with the allocator interposed: memory recordings */
#define MEMORY_SAMPLER_NAME "libflamediff-sampler-memory.so"
/* and both: memory recordings of programs on the host */
#define MEMORY_HOST_SAMPLER_NAME "libflamediff-sampler-memory-host.so"
#define SAMPLER_PREFIX "libflamediff-sampler"
/* what node needs for its JIT functions to be named: a perf map of its
 * compiled functions, and interpreted functions on the native stack as
 * their own frames (a copy of the interpreter's entry per function) */
#define NODE_JIT_OPTIONS "--perf-basic-prof-only-functions --interpreted-frames-native-stack"

/* ---- what the sampler sent ---- */

typedef struct
{
  char   *path;
  guint64 base, lo, hi;
  GBytes *build_id;
} Module;

typedef struct
{
  GArray          *modules;  /* Module */
  FlameSymbolizer *sym;
} Epoch;

/* One program image in one process: a new one starts at each exec */
typedef struct
{
  gint32     pid, ppid;
  char      *comm;
  char      *exe;
  gboolean   disabled;
  gboolean   forked;
  gboolean   exited;     /* sent its exit record */
  guint32    lost;
  guint64    n_samples;
  GPtrArray *epochs;     /* Epoch: a new one when a module replaces another */
  GByteArray *samples;   /* u32 epoch, then the FlameRecSample with its IPs and Python frames */
  FlamePyCodes *py;      /* the Python code objects it sent */
  GArray    *mem;        /* MemEvent: memory mode's sampled allocations and frees */
  FlameRecMemStat stat;  /* memory mode: the exact totals, if it sent them */
  gboolean   have_stat;
  guint64    periods;    /* the timer periods it drew (jitter), from its exit record */
  guint64    period_sum_ns, period_min_ns, period_max_ns;
} Image;

/* A sampled allocation (alloc_seq 0; @sample: its sample's index in the
 * image) or the free of one */
typedef struct
{
  guint64 seq;
  guint64 alloc_seq;
  guint64 size;
  guint64 sample;
} MemEvent;

struct _FlameRecorder
{
  GObject parent_instance;

  /* settings: fixed once recording starts */
  char     **argv;
  char      *cwd;
  GPtrArray *env;        /* "NAME=value" */
  guint      hz;
  gboolean   follow_children;
  gboolean   python_only;
  gboolean   python_lines;
  gboolean   capture_output;
  guint      grace_ms;
  char      *output_path;
  char      *host_sampler;  /* set: run through flatpak-spawn --host */
  char      *host_root;     /* where the host's files are seen, or NULL */
  gboolean   spool;
  guint      memory_mean;   /* bytes; 0: CPU time, not memory */

  /* the raw records, on disk while they arrive (worker only) */
  char      *spool_path;
  FlameSpoolWriter *spool_writer;

  /* shared with the worker */
  GMutex        lock;
  gboolean      stop_requested;
  GMainContext *context;
  gint64        start_us;
  gint64        start_wall_s;  /* for the age of perf maps */
  gint64        end_us;
  guint64       live_samples;
  guint64       live_lost;
  gboolean      running;
  gboolean      notify_pending;

  /* published on the caller's context */
  gdouble  elapsed;
  guint64  samples;
  guint64  lost;
  gboolean recording;

  /* worker only, readable after the recording */
  GHashTable *current;   /* pid → Image */
  GPtrArray  *images;
  GPtrArray  *notes;
  GPtrArray  *runtimes;  /* "CPython 3.11.2", once each */
  GPtrArray  *jit_maps;  /* "node[123]: /tmp/perf-123.map (456 functions)" */
  int         wait_status;
  gboolean    have_status;
  gdouble     effective_hz;
};

/* flame-recorder-check.c */
char         *_flame_recorder_find_sampler_build  (const char     *name,
                                                    const char     *what,
                                                    GError        **error);

/* flame-recorder-profile.c */
FlameProfile *_flame_recorder_build_profile       (FlameRecorder  *self,
                                                    GDateTime      *started);
gboolean      _flame_recorder_write_profile       (FlameRecorder  *self,
                                                    FlameProfile   *profile,
                                                    GError        **error);
char         *_flame_recorder_unique_output_path  (const char     *program);

G_END_DECLS

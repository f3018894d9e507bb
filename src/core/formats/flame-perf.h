/* flame-perf.h: `perf script` text, collapsed the way stackcollapse-perf.pl
 * does it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-profile.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean    include_pid;     /* --pid: root frame "comm-pid" */
  gboolean    include_tid;     /* --tid: root frame "comm-pid/tid" */
  gboolean    annotate_kernel; /* --kernel: _[k] on kernel frames */
  gboolean    annotate_jit;    /* --jit: _[j] on JIT frames */
  gboolean    include_addrs;   /* --addrs: [dso <0xaddr>] for unknown symbols */
  const char *event_filter;    /* NULL: the first event type seen */
} FlamePerfOptions;

typedef struct
{
  const char *name;
  gsize       len;
  guint32     flags;    /* FlameFrameFlags: kernel, inlined, jit, thread */
} FlamePerfFrame;

typedef struct
{
  const char *comm;     /* process/thread name as printed by perf */
  gsize       comm_len;
  gint64      pid;      /* -1 when perf printed none */
  gint64      tid;
  gdouble     time;     /* seconds, < 0 when perf printed none */
} FlamePerfSample;

typedef struct
{
  guint64  samples;          /* records of the chosen event */
  guint64  other_events;     /* records of other events, skipped */
  char    *event;            /* the chosen event, e.g. "cpu-clock" */
  char    *other_event;      /* the first skipped event type, or NULL */
  guint64  weird_lines;      /* event or stack lines that matched nothing */
  guint64  first_weird_line; /* its line number, 0 if none */
  gdouble  first_time;       /* seconds, < 0 when unknown */
  gdouble  last_time;
  gboolean have_period;      /* any record carried a period */
  guint64  empty_records;    /* records of the chosen event without frames */
  guint64  lines;            /* lines read */
  GPtrArray *warnings;       /* perf.data: what the reader and the symbolizer
                              * report (utf8), or NULL */
} FlamePerfStats;

/* @frames are root first: the process name frame, then the callers, then
 * the leaf, exactly as the collapsed line would print them; they are only
 * valid during the call. @weight is the period, or 1 when none was
 * printed. Return FALSE to stop parsing (flame_perf_parse then fails). */
typedef gboolean (*FlamePerfStackFunc) (const FlamePerfSample *sample,
                                        const FlamePerfFrame  *frames,
                                        guint                  n_frames,
                                        gdouble                weight,
                                        gpointer               user_data);

gboolean      flame_perf_sniff      (const char              *data,
                                     gsize                    len);
gboolean      flame_perf_parse      (FlameInput              *in,
                                     const FlamePerfOptions  *options,
                                     FlamePerfStackFunc       func,
                                     gpointer                 user_data,
                                     FlamePerfStats          *stats,
                                     GError                 **error);
void          flame_perf_stats_clear (FlamePerfStats         *stats);
FlameProfile *flame_perf_load       (FlameInput              *in,
                                     GError                 **error);
/* Folded text, lines sorted bytewise (as stackcollapse-perf.pl prints). */
char         *flame_perf_collapse   (FlameInput              *in,
                                     const FlamePerfOptions  *options,
                                     FlamePerfStats          *stats,
                                     GError                 **error);

G_END_DECLS

/* flame-perf-private.h: the record builder behind the perf script loader,
 * for the perf.data reader, so that both name frames and apply every
 * option the same way.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-perf.h"

G_BEGIN_DECLS

typedef struct _FlamePerfBuilder FlamePerfBuilder;

/* One record as `perf script` would print its event line. */
typedef struct
{
  const char *comm;
  gsize       comm_len;
  gint64      pid;       /* -1: unknown */
  gint64      tid;
  gdouble     time;      /* seconds, < 0: none */
  gboolean    has_period;
  gdouble     period;
  const char *event;     /* as perf names it, with modifiers ("cycles:u") */
  gsize       event_len;
} FlamePerfRecord;

/* Errors of a binary input say "byte N" where text ones give a line. */
FlamePerfBuilder *flame_perf_builder_new       (FlameInput             *in,
                                                gboolean                binary,
                                                const FlamePerfOptions *options,
                                                FlamePerfStackFunc      func,
                                                gpointer                user_data,
                                                FlamePerfStats         *stats);
void              flame_perf_builder_free      (FlamePerfBuilder       *self);
/* FALSE when the record is of another event than the chosen one: it is
 * counted and needs no frames (nor an end). */
gboolean          flame_perf_builder_begin     (FlamePerfBuilder       *self,
                                                const FlamePerfRecord  *record,
                                                guint64                 position);
/* A stack line, leaf first: @sym without its "+0x" offset, "[unknown]"
 * when perf would print that; @dso as perf prints it in parentheses. */
gboolean          flame_perf_builder_add_frame (FlamePerfBuilder       *self,
                                                const char             *sym,
                                                gsize                   sym_len,
                                                const char             *dso,
                                                gsize                   dso_len,
                                                guint64                 addr,
                                                GError                **error);
gboolean          flame_perf_builder_end       (FlamePerfBuilder       *self,
                                                GError                **error);

G_END_DECLS

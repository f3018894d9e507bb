/* flame-runs.h: several runs of one side as one profile of their mean,
 * and each run's per-function times for the statistics.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-profile.h"

G_BEGIN_DECLS

typedef struct
{
  FlameProfile *mean;      /* the runs merged, weights divided by n_runs */
  guint         n_runs;
  guint         n_frames;  /* frames of @mean: the rows below are this long */
  gdouble      *self_ms;   /* n_runs × n_frames, run-major */
  gdouble      *total_ms;  /* counted once per stack */
  guint32       n_nodes;   /* nodes of @mean's tree */
  gdouble      *node_self_ms; /* n_runs × n_nodes, run-major: each call path */
} FlameRuns;

FlameRuns *flame_runs_merge (FlameProfile * const *runs,
                             guint                 n_runs,
                             gdouble               default_interval_ms,
                             GError              **error);
void       flame_runs_free  (FlameRuns            *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameRuns, flame_runs_free)

G_END_DECLS

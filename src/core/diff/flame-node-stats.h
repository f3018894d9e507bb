/* flame-node-stats.h: repeated runs per call path: each run's self and
 * total at every node of a diff tree, and whether a node's change is
 * beyond the runs' spread.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-significance.h"
#include "flame-tree.h"

G_BEGIN_DECLS

/* One side's runs per node of that side's profile tree (the mean of the
 * runs, flame_runs_merge()): self in the diff's quantity, run-major. */
typedef struct
{
  guint          n_runs;
  guint32        n_nodes;
  const gdouble *self;
} FlameRunNodes;

typedef struct _FlameNodeStats FlameNodeStats;

FlameNodeStats *flame_node_stats_new             (guint32          n_nodes,
                                                  guint            n_runs_b,
                                                  guint            n_runs_c);
void            flame_node_stats_free            (FlameNodeStats  *self);
gdouble        *flame_node_stats_get_self_row    (FlameNodeStats  *self,
                                                  guint            side,
                                                  guint            run);
void            flame_node_stats_finish          (FlameNodeStats  *self,
                                                  const FlameTree *tree,
                                                  gdouble          scale_b,
                                                  gdouble          alpha);
guint           flame_node_stats_get_n_runs      (FlameNodeStats  *self,
                                                  guint            side);
guint           flame_node_stats_get_n_tested    (FlameNodeStats  *self,
                                                  gboolean         total);
gboolean        flame_node_stats_is_significant  (FlameNodeStats  *self,
                                                  guint32          node,
                                                  gboolean         total);
gboolean        flame_node_stats_test            (FlameNodeStats  *self,
                                                  guint32          node,
                                                  gboolean         total,
                                                  FlameWelch      *welch,
                                                  gdouble         *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameNodeStats, flame_node_stats_free)

G_END_DECLS

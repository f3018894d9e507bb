/* flame-node-stats.c
 *
 * The graph's counterpart of the report's test of repeated runs: per
 * node (call path) instead of per function. Every run's self weight is
 * added at its node, totals are summed bottom-up, and each node is
 * tested with Welch's t, Benjamini–Hochberg over the nodes tested — the
 * same flame_runs_test() the report uses. Flat arrays: n_runs × n_nodes
 * per side, no per-node allocation.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-node-stats.h"

struct _FlameNodeStats
{
  guint32  n_nodes;
  guint    n_runs[2];
  gdouble *self[2];    /* n_runs × n_nodes, run-major, unscaled */
  gdouble *total[2];
  gdouble *q[2];       /* by metric (0 self, 1 total); 1 where untested */
  guint    n_tested[2];
  gdouble  scale_b;
  gdouble  alpha;
};

/**
 * flame_node_stats_new:
 *
 * Zeroed per-run tables for a tree of @n_nodes nodes: fill the self rows
 * (flame_node_stats_get_self_row()), then flame_node_stats_finish().
 */
FlameNodeStats *
flame_node_stats_new (guint32 n_nodes,
                      guint   n_runs_b,
                      guint   n_runs_c)
{
  FlameNodeStats *self = g_new0 (FlameNodeStats, 1);

  self->n_nodes = n_nodes;
  self->n_runs[0] = n_runs_b;
  self->n_runs[1] = n_runs_c;
  for (guint side = 0; side < 2; side++)
    {
      gsize n = (gsize) self->n_runs[side] * MAX (n_nodes, 1);

      self->self[side] = g_new0 (gdouble, n);
      self->total[side] = g_new0 (gdouble, n);
    }
  for (guint m = 0; m < 2; m++)
    self->q[m] = g_new (gdouble, MAX (n_nodes, 1));
  self->scale_b = 1;
  self->alpha = 0.05;
  return self;
}

void
flame_node_stats_free (FlameNodeStats *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < 2; i++)
    {
      g_free (self->self[i]);
      g_free (self->total[i]);
      g_free (self->q[i]);
    }
  g_free (self);
}

/* (transfer none): run @run's self weights of @side, one per node */
gdouble *
flame_node_stats_get_self_row (FlameNodeStats *self,
                               guint           side,
                               guint           run)
{
  g_return_val_if_fail (self != NULL && side < 2 && run < self->n_runs[side], NULL);
  return self->self[side] + (gsize) run * self->n_nodes;
}

/**
 * flame_node_stats_finish:
 * @tree: the tree the rows are of (its parent links)
 * @scale_b: what baseline weights are multiplied by (the diff's scale)
 * @alpha: a node's change is significant when its adjusted p is below it
 *
 * Sums the totals and tests every node, by self and by total. A node
 * that has no weight of the metric in any run is not a test and does not
 * count in the correction.
 */
void
flame_node_stats_finish (FlameNodeStats  *self,
                         const FlameTree *tree,
                         gdouble          scale_b,
                         gdouble          alpha)
{
  guint32 n_nodes = self->n_nodes;
  g_autofree guint32 *items = g_new (guint32, MAX (n_nodes, 1));
  g_autofree gdouble *q = g_new (gdouble, MAX (n_nodes, 1));

  g_return_if_fail (tree->n_nodes == n_nodes);

  self->scale_b = scale_b;
  self->alpha = alpha > 0 ? alpha : 0.05;
  /* children have larger indices than their parents: one reverse sweep */
  for (guint side = 0; side < 2; side++)
    for (guint r = 0; r < self->n_runs[side]; r++)
      {
        const gdouble *s = self->self[side] + (gsize) r * n_nodes;
        gdouble *t = self->total[side] + (gsize) r * n_nodes;

        memcpy (t, s, sizeof (gdouble) * n_nodes);
        for (guint32 n = n_nodes; n-- > 1;)
          t[tree->nodes[n].parent] += t[n];
      }

  for (guint m = 0; m < 2; m++)
    {
      gdouble *const *rows = m ? self->total : self->self;
      guint n_items = 0;

      for (guint32 n = 0; n < n_nodes; n++)
        self->q[m][n] = 1.0;
      for (guint32 n = 1; n < n_nodes; n++)
        {
          gboolean any = FALSE;

          for (guint side = 0; side < 2 && !any; side++)
            for (guint r = 0; r < self->n_runs[side] && !any; r++)
              any = rows[side][(gsize) r * n_nodes + n] != 0;
          if (any)
            items[n_items++] = n;
        }
      flame_runs_test (rows[0], self->n_runs[0], rows[1], self->n_runs[1], n_nodes, scale_b,
                       items, n_items, FLAME_RUNS_CONFIDENCE, NULL, q);
      for (guint i = 0; i < n_items; i++)
        self->q[m][items[i]] = q[i];
      self->n_tested[m] = n_items;
    }
}

guint
flame_node_stats_get_n_runs (FlameNodeStats *self,
                             guint           side)
{
  g_return_val_if_fail (self != NULL && side < 2, 0);
  return self->n_runs[side];
}

/* How many nodes the correction of @total (else self) was over */
guint
flame_node_stats_get_n_tested (FlameNodeStats *self,
                               gboolean        total)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_tested[total ? 1 : 0];
}

/* Whether @node's change of total (else self) is beyond the runs' spread */
gboolean
flame_node_stats_is_significant (FlameNodeStats *self,
                                 guint32         node,
                                 gboolean        total)
{
  g_return_val_if_fail (self != NULL && node < self->n_nodes, TRUE);
  return self->q[total ? 1 : 0][node] < self->alpha;
}

/**
 * flame_node_stats_test:
 * @welch: (out): @node's test: the means per run (baseline scaled), their
 *   standard deviations, the difference and its 95 % interval, p
 * @q: (out) (optional): p adjusted over the nodes tested
 *
 * Returns: whether @node's change is significant
 */
gboolean
flame_node_stats_test (FlameNodeStats *self,
                       guint32         node,
                       gboolean        total,
                       FlameWelch     *welch,
                       gdouble        *q)
{
  gdouble *const *rows;
  gdouble qq;

  g_return_val_if_fail (self != NULL && node < self->n_nodes && welch != NULL, FALSE);

  rows = total ? self->total : self->self;
  /* one column: the same test flame_node_stats_finish() made */
  flame_runs_test (rows[0] + node, self->n_runs[0], rows[1] + node, self->n_runs[1],
                   self->n_nodes, self->scale_b, NULL, 1, FLAME_RUNS_CONFIDENCE, welch, &qq);
  if (q != NULL)
    *q = self->q[total ? 1 : 0][node];
  return flame_node_stats_is_significant (self, node, total);
}

/* flame-merge.h: one tree's nodes mapped into another on two threads.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "flame-tree.h"

G_BEGIN_DECLS

/* A source node's node in the destination tree, and that node's path hash */
typedef struct
{
  guint32 node;
  guint32 hash;
} FlameMappedNode;

/* What a merge adds: source column @src_col (and @src_col + 1 when
 * @n_columns is 2) times @ms into @dst_col (and @dst_col + 1) */
typedef struct
{
  const guint32 *frame_map;  /* source frame -> destination frame */
  guint          src_col;
  guint          dst_col;
  guint          n_columns;
  gdouble        ms[2];
} FlameMergeColumns;

/* Adds source node @n's weights to destination node @d */
static inline void
flame_merge_add_weights (FlameTree               *dst,
                         const FlameTree         *src,
                         const FlameMergeColumns *columns,
                         guint32                  n,
                         guint32                  d)
{
  for (guint k = 0; k < columns->n_columns; k++)
    dst->self[columns->dst_col + k][d] += src->self[columns->src_col + k][n] * columns->ms[k];
}

/* trees smaller than this are merged on one thread */
#define FLAME_MERGE_PARALLEL_MIN 200000

gboolean flame_merge_nodes_parallel (FlameTree               *dst,
                                     const FlameTree         *src,
                                     const FlameMergeColumns *columns,
                                     FlameMappedNode         *node_map,
                                     GCancellable            *cancellable,
                                     gboolean                *cancelled);

G_END_DECLS

/* flame-merge.c: one tree's nodes mapped into another on two threads.
 *
 * The diff merges the current tree into a copy of the baseline's, and
 * most current nodes are already there: looking them up is the work (one
 * cache miss after another in a large tree), and lookups that change
 * nothing can run side by side. The source tree is cut at the first
 * depth with enough nodes, and the subtrees below the cut are dealt to
 * two threads by size: a node's parent is then looked up before it, on
 * the same thread (or above the cut, before both). Nodes the destination
 * lacks are added afterwards on one thread, in node order, so the tree
 * grows as a one-thread merge grows it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-alloc.h"
#include "flame-merge.h"

/* how many nodes ahead the lookups prefetch */
#define AHEAD 16
/* the cut: the first depth with at least this many nodes, among the
 * first MAX_CUT_DEPTH levels */
#define MIN_SUBTREES 64
#define MAX_CUT_DEPTH 64
#define NO_SUBTREE G_MAXUINT32

/* the source nodes a thread takes at a time, to pick its own from */
#define BLOCK 4096

typedef struct
{
  FlameTree               *dst;
  const FlameTree         *src;
  const FlameMergeColumns *columns;
  FlameMappedNode         *node_map;  /* .node FLAME_TREE_NONE: not in @dst yet */
  const guint32           *subtree;   /* each source node's subtree below the cut */
  const guint8            *owner;     /* each subtree's share: 0 or 1 */
  guint8                   share;
  GCancellable            *cancellable;
  gboolean                 cancelled;
} MergeShare;

/* Looks node @n up under its parent's destination node (a parent not in
 * the tree has no child there) */
static inline void
look_up (FlameTree               *dst,
         const FlameTree         *src,
         const FlameMergeColumns *columns,
         FlameMappedNode         *node_map,
         guint32                  n)
{
  const FlameNode *node = &src->nodes[n];
  guint32 up = node_map[node->parent].node;
  guint32 d;

  d = up == FLAME_TREE_NONE ? FLAME_TREE_NONE
                            : flame_tree_probe (dst, up, columns->frame_map[node->frame],
                                                node->depth, node_map[n].hash);
  node_map[n].node = d;
  if (d != FLAME_TREE_NONE)
    flame_merge_add_weights (dst, src, columns, n, d);
}

/* The depth to cut at, or 0 when the tree is too narrow to share out */
static guint
cut_depth (const FlameTree *src)
{
  guint32 at_depth[MAX_CUT_DEPTH + 1] = { 0, };

  for (guint32 n = 1; n < src->n_nodes; n++)
    if (src->nodes[n].depth <= MAX_CUT_DEPTH)
      at_depth[src->nodes[n].depth]++;
  for (guint d = 1; d <= MAX_CUT_DEPTH; d++)
    if (at_depth[d] >= MIN_SUBTREES)
      return d;
  return 0;
}

/* One forward sweep (parents come first): every node's path hash under
 * the destination's frames and its subtree below the cut (counted in
 * @sizes); the nodes above the cut are looked up here. */
static void
sweep_nodes (FlameTree               *dst,
             const FlameTree         *src,
             const FlameMergeColumns *columns,
             guint                    cut,
             FlameMappedNode         *node_map,
             guint32                 *subtree,
             GArray                  *sizes)
{
  node_map[FLAME_TREE_ROOT] = (FlameMappedNode) { FLAME_TREE_ROOT, FLAME_TREE_ROOT_HASH };
  subtree[FLAME_TREE_ROOT] = NO_SUBTREE;
  for (guint32 n = 1; n < src->n_nodes; n++)
    {
      const FlameNode *node = &src->nodes[n];

      if (G_LIKELY (n + AHEAD < src->n_nodes))
        {
          __builtin_prefetch (&node_map[src->nodes[n + AHEAD].parent]);
          __builtin_prefetch (&subtree[src->nodes[n + AHEAD].parent]);
        }
      node_map[n].hash = flame_tree_path_hash (node_map[node->parent].hash,
                                               columns->frame_map[node->frame], node->depth);
      if (node->depth < cut)
        {
          subtree[n] = NO_SUBTREE;
          look_up (dst, src, columns, node_map, n);
          continue;
        }
      if (node->depth == cut)
        {
          subtree[n] = sizes->len;
          g_array_set_size (sizes, sizes->len + 1);
        }
      else
        subtree[n] = subtree[node->parent];
      g_array_index (sizes, guint32, subtree[n])++;
    }
}

/* larger subtrees first, then in node order */
static gint
compare_sizes (gconstpointer a,
               gconstpointer b,
               gpointer      data)
{
  const guint32 *size = data;
  guint32 sa = *(const guint32 *) a, sb = *(const guint32 *) b;

  if (size[sa] != size[sb])
    return size[sa] > size[sb] ? -1 : 1;
  return sa < sb ? -1 : sa > sb;
}

/* Deals the subtrees to two shares, largest first to the smaller one */
static guint8 *
deal_subtrees (GArray *sizes)
{
  g_autofree guint32 *order = g_new (guint32, MAX (sizes->len, 1));
  guint8 *owner = g_new (guint8, MAX (sizes->len, 1));
  const guint32 *size = (const guint32 *) sizes->data;
  guint64 load[2] = { 0, 0 };

  for (guint32 s = 0; s < sizes->len; s++)
    order[s] = s;
  g_qsort_with_data (order, sizes->len, sizeof (guint32), compare_sizes, (gpointer) size);
  for (guint32 k = 0; k < sizes->len; k++)
    {
      guint which = load[1] < load[0] ? 1 : 0;

      owner[order[k]] = which;
      load[which] += size[order[k]];
    }
  return owner;
}

/* Looks up the nodes of @nodes in order: the index slot of the node
 * AHEAD on, then the candidate of the node AHEAD / 2 on, once its slot
 * is there */
static void
look_up_list (MergeShare    *m,
              const guint32 *nodes,
              guint          n_nodes)
{
  const FlameTree *dst = m->dst;

  for (guint k = 0; k < n_nodes; k++)
    {
      if (G_LIKELY (k + AHEAD < n_nodes))
        {
          guint32 ha = m->node_map[nodes[k + AHEAD / 2]].hash;
          const FlameTreeSlot *slot = &dst->slots[ha & dst->mask];

          flame_tree_prefetch (dst, m->node_map[nodes[k + AHEAD]].hash);
          if (slot->tag == ha && slot->node1 != 0)
            {
              __builtin_prefetch (&dst->nodes[slot->node1 - 1]);
              __builtin_prefetch (&dst->self[m->columns->dst_col][slot->node1 - 1], 1);
            }
        }
      look_up (m->dst, m->src, m->columns, m->node_map, nodes[k]);
    }
}

/* The lookups of one share, a block of source nodes at a time: the
 * share's own nodes picked out, then looked up */
static void
look_up_share (MergeShare *m)
{
  guint32 mine[BLOCK];
  guint32 n_nodes = m->src->n_nodes;

  for (guint32 start = 1; start < n_nodes; start += BLOCK)
    {
      guint32 end = MIN (start + BLOCK, n_nodes);
      guint n_mine = 0;

      if ((start & 0x3ffff) < BLOCK && g_cancellable_is_cancelled (m->cancellable))
        {
          m->cancelled = TRUE;
          return;
        }
      for (guint32 n = start; n < end; n++)
        if (m->subtree[n] != NO_SUBTREE && m->owner[m->subtree[n]] == m->share)
          mine[n_mine++] = n;
      look_up_list (m, mine, n_mine);
    }
}

static gpointer
look_up_thread (gpointer data)
{
  g_assert (data != NULL);

  look_up_share (data);
  return NULL;
}

/* The nodes the destination lacks, added in node order: their parents
 * are mapped by then */
static void
add_new_nodes (FlameTree               *dst,
               const FlameTree         *src,
               const FlameMergeColumns *columns,
               FlameMappedNode         *node_map)
{
  for (guint32 n = 1; n < src->n_nodes; n++)
    if (node_map[n].node == FLAME_TREE_NONE)
      {
        const FlameNode *node = &src->nodes[n];
        guint32 d = flame_tree_child_hashed (dst, node_map[node->parent].node,
                                             columns->frame_map[node->frame], node_map[n].hash);

        node_map[n].node = d;
        flame_merge_add_weights (dst, src, columns, n, d);
      }
}

/**
 * flame_merge_nodes_parallel:
 * @dst: the tree merged into; its index is built here
 * @src: the tree merged
 * @columns: what is added, and a frame map that gives no two source
 *   frames the same destination frame (then no two source nodes share a
 *   destination node, and the threads add to distinct weights)
 * @node_map: (out caller-allocates): room for @src's nodes: each one's
 *   destination node and path hash
 * @cancelled: (out): set when cancelled (@dst is then incomplete)
 *
 * Adds @src's nodes and weights to @dst, as a one-thread merge in node
 * order does (the same nodes, numbered the same, the same sums), on two
 * threads.
 *
 * Returns: FALSE when @src is too narrow to share out (nothing done:
 *   merge on one thread) or when cancelled
 */
gboolean
flame_merge_nodes_parallel (FlameTree               *dst,
                            const FlameTree         *src,
                            const FlameMergeColumns *columns,
                            FlameMappedNode         *node_map,
                            GCancellable            *cancellable,
                            gboolean                *cancelled)
{
  guint cut = cut_depth (src);
  g_autofree guint32 *subtree = NULL;
  g_autofree guint8 *owner = NULL;
  g_autoptr(GArray) sizes = NULL;
  MergeShare m[2];
  GThread *thread;

  *cancelled = FALSE;
  if (cut == 0)
    return FALSE;

  flame_tree_ensure_index (dst);
  subtree = flame_alloc_huge (sizeof (guint32) * src->n_nodes);
  sizes = g_array_new (FALSE, TRUE, sizeof (guint32));
  sweep_nodes (dst, src, columns, cut, node_map, subtree, sizes);
  owner = deal_subtrees (sizes);

  for (guint k = 0; k < 2; k++)
    m[k] = (MergeShare) { dst, src, columns, node_map, subtree, owner, k, cancellable, FALSE };
  thread = g_thread_new ("flame-merge", look_up_thread, &m[1]);
  look_up_share (&m[0]);
  g_thread_join (thread);
  if (m[0].cancelled || m[1].cancelled)
    {
      *cancelled = TRUE;
      return FALSE;
    }

  add_new_nodes (dst, src, columns, node_map);
  return TRUE;
}

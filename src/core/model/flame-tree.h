/* flame-tree.h: a call tree in flat arrays.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "flame-hash.h"

G_BEGIN_DECLS

#define FLAME_TREE_ROOT     0
#define FLAME_TREE_NONE     G_MAXUINT32
#define FLAME_TREE_MAX_COLUMNS 4

/* A node never moves once created, and a child always has a larger index
 * than its parent, so a reverse sweep over the array visits children
 * before parents: totals and other bottom-up sums need no recursion. */
typedef struct
{
  guint32 frame;
  guint32 parent;
  guint32 first_child;
  guint32 next_sibling;
  guint32 depth;
} FlameNode;

typedef struct
{
  guint32 tag;    /* the key's hash: most probes end here */
  guint32 node1;  /* node index + 1; 0 = empty */
} FlameTreeSlot;

typedef struct
{
  FlameNode *nodes;
  guint32    n_nodes;
  guint32    alloc_nodes;
  guint      n_columns;
  gdouble   *self[FLAME_TREE_MAX_COLUMNS];
  gdouble   *total[FLAME_TREE_MAX_COLUMNS];
  /* (parent, frame) -> node, with the key's hash in the slot so a probe
   * touches the node array only on a likely hit. The hash is the node's
   * path hash (flame_tree_path_hash() down the frames from the root): a
   * loader that knows a stack's frames can compute where every level of
   * it sits in the index before walking it, and prefetch. Kept per node
   * in @hashes (NULL: not kept, flame_tree_drop_hashes()) for lookups
   * from a parent. Both dropped by compact(), rebuilt on demand. */
  FlameTreeSlot *slots;
  guint32   *hashes;
  guint32    mask;
  /* flame_tree_set_huge_pages() */
  gboolean   huge_pages;
  /* flame_tree_expect_nodes() */
  guint32    expected_nodes;
  /* flame_tree_finish_root(): only the root's totals are there yet */
  gboolean   totals_pending;
  /* flame_tree_reserve_space(): the node arrays hold this many nodes
   * (zeroed weights past the last one), whatever @alloc_nodes says since
   * compaction; 0: @alloc_nodes */
  guint32    reserved_nodes;
} FlameTree;

/* the root's path hash; a child's is flame_tree_path_hash (parent's, its
 * frame, its depth) */
#define FLAME_TREE_ROOT_HASH 0u

FlameTree *flame_tree_new         (guint       n_columns);
void       flame_tree_free        (FlameTree  *self);
guint32    flame_tree_child       (FlameTree  *self,
                                   guint32     parent,
                                   guint32     frame);
guint32    flame_tree_child_hashed (FlameTree *self,
                                    guint32    parent,
                                    guint32    frame,
                                    guint32    hash);
guint32    flame_tree_lookup      (FlameTree  *self,
                                   guint32     parent,
                                   guint32     frame);
void       flame_tree_ensure_index (FlameTree *self);
guint32    flame_tree_probe       (const FlameTree *self,
                                   guint32     parent,
                                   guint32     frame,
                                   guint32     depth,
                                   guint32     hash);
void       flame_tree_add_self    (FlameTree  *self,
                                   guint       column,
                                   guint32     node,
                                   gdouble     weight);
void       flame_tree_reserve     (FlameTree  *self,
                                   guint32     n_nodes);
void       flame_tree_reserve_nodes (FlameTree *self,
                                     guint32    n_nodes);
void       flame_tree_reserve_space (FlameTree *self,
                                     guint32    max_nodes);
void       flame_tree_set_huge_pages (FlameTree *self,
                                      gboolean   huge_pages);
void       flame_tree_expect_nodes (FlameTree *self,
                                    guint32    n_nodes);
void       flame_tree_expect_from_progress (FlameTree *self,
                                            guint64    done,
                                            guint64    total);
void       flame_tree_copy_structure (FlameTree       *self,
                                      const FlameTree *src,
                                      const guint32   *frame_map);
void       flame_tree_finish      (FlameTree  *self);
void       flame_tree_finish_root (FlameTree  *self);
void       flame_tree_ensure_totals (FlameTree *self);
void       flame_tree_compact     (FlameTree  *self);
void       flame_tree_compact_nodes (FlameTree *self);
void       flame_tree_drop_index  (FlameTree  *self);
void       flame_tree_drop_hashes (FlameTree  *self);
gboolean   flame_tree_take_index  (FlameTree  *self,
                                   FlameTree  *src);
void       flame_tree_take_arrays (FlameTree  *self,
                                   FlameTree  *src,
                                   guint       dst_col,
                                   guint32     capacity);
void       flame_tree_function_weights (const FlameTree *self,
                                        guint            n_frames,
                                        guint            column,
                                        gdouble         *self_out,
                                        gdouble         *total_out);
void       flame_tree_function_weights_columns (const FlameTree *self,
                                                guint            n_frames,
                                                guint            n_columns,
                                                const guint     *columns,
                                                gdouble  *const *self_out,
                                                gdouble  *const *total_out);
gsize      flame_tree_memory      (const FlameTree *self);
gsize      flame_tree_node_bytes  (const FlameTree *self);

/* The path hash of a node at @depth (the root's children: 1). The depth
 * makes every level hash differently: otherwise a deep recursion (the
 * same frame again and again) would iterate one function and run into a
 * short cycle of values, and its nodes would pile up on a few slots. */
static inline guint32
flame_tree_path_hash (guint32 parent_hash,
                      guint32 frame,
                      guint32 depth)
{
  guint64 h = flame_hash_u64 (((guint64) (parent_hash ^ (depth * 0x9e3779b9u)) << 32) | frame);
  return (guint32) (h ^ (h >> 32));
}

/* Hints that the index slot of the node with path hash @hash is about to
 * be looked up. Call flame_tree_ensure_index() first. */
static inline void
flame_tree_prefetch (const FlameTree *self,
                     guint32          hash)
{
  __builtin_prefetch (&self->slots[hash & self->mask]);
}

static inline const FlameNode *
flame_tree_node (const FlameTree *self,
                 guint32          node)
{
  return &self->nodes[node];
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameTree, flame_tree_free)

G_END_DECLS

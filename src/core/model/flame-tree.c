/* flame-tree.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-tree.h"
#include "flame-alloc.h"
#include "flame-hash.h"
#include "flame-parallel.h"

#include <string.h>

FlameTree *
flame_tree_new (guint n_columns)
{
  FlameTree *self;

  g_return_val_if_fail (n_columns >= 1 && n_columns <= FLAME_TREE_MAX_COLUMNS, NULL);

  self = g_new0 (FlameTree, 1);
  self->n_columns = n_columns;
  self->alloc_nodes = 1024;
  self->nodes = g_new (FlameNode, self->alloc_nodes);
  for (guint c = 0; c < n_columns; c++)
    {
      self->self[c] = g_new0 (gdouble, self->alloc_nodes);
      self->total[c] = g_new0 (gdouble, self->alloc_nodes);
    }
  self->mask = 2047;
  self->slots = g_new0 (FlameTreeSlot, self->mask + 1);
  self->hashes = g_new (guint32, self->alloc_nodes);
  self->hashes[FLAME_TREE_ROOT] = FLAME_TREE_ROOT_HASH;

  self->nodes[0] = (FlameNode) {
    .frame = FLAME_TREE_NONE,
    .parent = FLAME_TREE_NONE,
    .first_child = FLAME_TREE_NONE,
    .next_sibling = FLAME_TREE_NONE,
    .depth = 0,
  };
  self->n_nodes = 1;

  return self;
}

void
flame_tree_free (FlameTree *self)
{
  gsize n;

  if (self == NULL)
    return;
  n = self->alloc_nodes;
  flame_free_large (self->nodes, n * sizeof (FlameNode));
  for (guint c = 0; c < self->n_columns; c++)
    {
      flame_free_large (self->self[c], n * sizeof (gdouble));
      flame_free_large (self->total[c], n * sizeof (gdouble));
    }
  flame_tree_drop_index (self);
  g_free (self);
}

static void rebuild_hashes (FlameTree *self);
static void sum_totals (FlameTree *self,
                        gboolean   root);

static void
rebuild_slots (FlameTree *self,
               guint32    mask)
{
  if (self->hashes == NULL)
    rebuild_hashes (self);
  g_free (self->slots);
  self->mask = mask;
  self->slots = flame_alloc_zeroed_table ((gsize) mask + 1, sizeof (FlameTreeSlot),
                                         self->huge_pages);
  for (guint32 n = 1; n < self->n_nodes; n++)
    {
      guint32 h = self->hashes[n];
      guint32 i = h & mask;

      /* the slots are written at random: let the misses overlap */
      if (G_LIKELY (n + 16 < self->n_nodes))
        __builtin_prefetch (&self->slots[self->hashes[n + 16] & mask], 1);

      while (self->slots[i].node1 != 0)
        i = (i + 1) & mask;
      self->slots[i] = (FlameTreeSlot) { h, n + 1 };
    }
}

/* The index grows when three quarters full (the hash tags keep probes
 * cheap at that load); a fresh one starts at most 60% full. */
static inline gboolean
slots_full (gsize n_nodes,
            gsize mask)
{
  return n_nodes * 4 > (mask + 1) * 3;
}

static guint32 mask_for (guint32 n_nodes);

/* How far a full index grows: twice its size, or up to four times when
 * flame_tree_expect_nodes() says the tree is heading further (each step
 * clears a fresh table and moves every entry). */
static guint32
grown_mask (const FlameTree *self)
{
  guint32 mask = self->mask * 2 + 1;
  guint32 most = self->mask <= G_MAXUINT32 / 4 ? self->mask * 4 + 3 : mask;

  if (self->expected_nodes > self->n_nodes)
    while (mask < most && mask < mask_for (self->expected_nodes))
      mask = mask * 2 + 1;
  return mask;
}

/* Grows the index (grown_mask()). The old one is read in slot order,
 * starting after an empty slot so that no run of entries is split, and
 * each entry lands near its old place or a multiple of the old size
 * further: the writes go in a few forward streams rather than at random,
 * as rebuild_slots()'s do. Any insertion order gives a valid
 * linear-probing table. */
static void
grow_slots (FlameTree *self)
{
  guint32 old_mask = self->mask;
  guint32 mask = grown_mask (self);
  FlameTreeSlot *old = self->slots;
  FlameTreeSlot *slots =
    flame_alloc_zeroed_table ((gsize) mask + 1, sizeof (FlameTreeSlot), self->huge_pages);
  guint32 first = 0;

  while (old[first].node1 != 0)
    first++;
  for (guint32 k = 1; k <= old_mask + 1; k++)
    {
      const FlameTreeSlot *e = &old[(first + k) & old_mask];
      guint32 i;

      if (e->node1 == 0)
        continue;
      for (i = e->tag & mask; slots[i].node1 != 0; i = (i + 1) & mask)
        ;
      slots[i] = *e;
    }
  g_free (old);
  self->slots = slots;
  self->mask = mask;
}

static guint32
mask_for (guint32 n_nodes)
{
  guint32 mask = 2047;

  while (((gsize) mask + 1) * 3 < (gsize) n_nodes * 5)
    mask = mask * 2 + 1;
  return mask;
}

static void
rebuild_hashes (FlameTree *self)
{
  /* parents come before their children: one forward sweep */
  g_free (self->hashes);
  self->hashes = self->huge_pages ? flame_alloc_huge ((gsize) self->alloc_nodes * sizeof (guint32))
                                  : g_new (guint32, self->alloc_nodes);
  self->hashes[FLAME_TREE_ROOT] = FLAME_TREE_ROOT_HASH;
  for (guint32 n = 1; n < self->n_nodes; n++)
    {
      if (G_LIKELY (n + 16 < self->n_nodes))
        __builtin_prefetch (&self->hashes[self->nodes[n + 16].parent]);
      self->hashes[n] = flame_tree_path_hash (self->hashes[self->nodes[n].parent],
                                              self->nodes[n].frame, self->nodes[n].depth);
    }
}

static void
rebuild_index (FlameTree *self)
{
  rebuild_hashes (self);
  /* sized for what the tree has room for: a reserve() says how big it
   * is expected to get */
  rebuild_slots (self, mask_for (self->alloc_nodes));
}

/* The index; the per-node path hashes only where a lookup starts from
 * a parent's (flame_tree_child(), flame_tree_lookup()): callers that
 * bring the hash (flame_tree_child_hashed(), flame_tree_probe()) do
 * without them, and a tree without them does not keep them (add_child()),
 * which spares 4 bytes per node of fresh memory while loading and
 * merging. A finished profile's tree keeps its slots without the hashes
 * (flame_tree_compact_nodes()), and so does a diff that took them
 * (flame_tree_take_index()). */
static inline void
ensure_slots (FlameTree *self)
{
  if (G_UNLIKELY (self->slots == NULL))
    rebuild_index (self);
}

static inline void
ensure_hashes (FlameTree *self)
{
  ensure_slots (self);
  if (G_UNLIKELY (self->hashes == NULL))
    rebuild_hashes (self);
}

/* Builds the index now if compact() or copy_structure() dropped it, so
 * that flame_tree_prefetch() and flame_tree_probe() can be used. */
void
flame_tree_ensure_index (FlameTree *self)
{
  ensure_slots (self);
}

guint32
flame_tree_lookup (FlameTree *self,
                   guint32    parent,
                   guint32    frame)
{
  guint32 depth;

  ensure_hashes (self);
  depth = self->nodes[parent].depth + 1;
  return flame_tree_probe (self, parent, frame, depth,
                           flame_tree_path_hash (self->hashes[parent], frame, depth));
}

/**
 * flame_tree_probe:
 * @parent: the node's parent, or %FLAME_TREE_NONE: any parent
 * @frame: its frame
 * @depth: its depth
 * @hash: its path hash
 *
 * Looks a node up without adding it and without building the index
 * (call flame_tree_ensure_index() first): safe on several threads at
 * once while nothing changes the tree. With no @parent, the first node
 * of @frame at @depth whose path hashes to @hash, which the caller
 * checks once it knows the parent.
 *
 * Returns: the node, or %FLAME_TREE_NONE
 */
guint32
flame_tree_probe (const FlameTree *self,
                  guint32          parent,
                  guint32          frame,
                  guint32          depth,
                  guint32          hash)
{
  for (guint32 i = hash & self->mask; self->slots[i].node1 != 0; i = (i + 1) & self->mask)
    if (self->slots[i].tag == hash)
      {
        const FlameNode *n = &self->nodes[self->slots[i].node1 - 1];

        if (n->frame == frame && n->depth == depth &&
            (parent == FLAME_TREE_NONE || n->parent == parent))
          return self->slots[i].node1 - 1;
      }
  return FLAME_TREE_NONE;
}

/* @p (holding @n elements of @size) moved to a fresh huge-page block
 * (flame_alloc_huge()) for @alloc */
static gpointer
renew_huge (gpointer p,
            gsize    n,
            gsize    alloc,
            gsize    size)
{
  gpointer q = flame_alloc_huge (alloc * size);

  if (n > 0)
    flame_copy_large (q, p, n * size);
  g_free (p);
  return q;
}

static void
resize_nodes (FlameTree *self,
              guint32    alloc)
{
  guint32 old = self->alloc_nodes;

  self->reserved_nodes = 0;
  /* Huge pages where asked for (the diff's tree, sized once for both
   * sides): its 200 MB of fresh arrays on the scale pair took 0.35-0.45
   * s to fault in 4 KiB at a time, 0.06-0.14 s as huge pages. The zeros
   * are written now, in one sweep each, shared among the cores
   * (flame_zero_large()): left to the first writes of a merge on two
   * threads, at scattered nodes, they took longer. */
  self->alloc_nodes = alloc;
  /* a filled tree's arrays move with g_renew(), which remaps their pages
   * rather than copying them */
  if (self->huge_pages && self->n_nodes <= 1)
    {
      gsize n = self->n_nodes;

      self->nodes = renew_huge (self->nodes, n, alloc, sizeof (FlameNode));
      for (guint c = 0; c < self->n_columns; c++)
        {
          self->self[c] = renew_huge (self->self[c], n, alloc, sizeof (gdouble));
          self->total[c] = renew_huge (self->total[c], n, alloc, sizeof (gdouble));
          flame_zero_large (self->self[c] + n, (gsize) (alloc - n) * sizeof (gdouble));
          flame_zero_large (self->total[c] + n, (gsize) (alloc - n) * sizeof (gdouble));
        }
      if (self->hashes != NULL)
        self->hashes = renew_huge (self->hashes, n, alloc, sizeof (guint32));
      return;
    }
  self->nodes = g_renew (FlameNode, self->nodes, alloc);
  if (self->huge_pages)
    flame_alloc_hint_huge (self->nodes, (gsize) alloc * sizeof (FlameNode));
  for (guint c = 0; c < self->n_columns; c++)
    {
      self->self[c] = g_renew (gdouble, self->self[c], alloc);
      self->total[c] = g_renew (gdouble, self->total[c], alloc);
      if (self->huge_pages)
        {
          flame_alloc_hint_huge (self->self[c], (gsize) alloc * sizeof (gdouble));
          flame_alloc_hint_huge (self->total[c], (gsize) alloc * sizeof (gdouble));
        }
      flame_zero_large (self->self[c] + old, (gsize) (alloc - old) * sizeof (gdouble));
      flame_zero_large (self->total[c] + old, (gsize) (alloc - old) * sizeof (gdouble));
    }
  if (self->hashes != NULL)
    self->hashes = g_renew (guint32, self->hashes, alloc);
}

static void
grow_nodes (FlameTree *self)
{
  /* node indices are 32-bit; 2 billion nodes would need > 100 GiB anyway */
  if (self->alloc_nodes >= G_MAXUINT32 / 2)
    g_error ("call tree too large");
  resize_nodes (self, self->alloc_nodes * 2);
}

/* Room for @n_nodes without regrowing, for callers that know the size. */
void
flame_tree_reserve (FlameTree *self,
                    guint32    n_nodes)
{
  if (n_nodes > self->alloc_nodes)
    resize_nodes (self, n_nodes);
  if (self->slots != NULL && slots_full (n_nodes, self->mask))
    rebuild_slots (self, mask_for (n_nodes));
}

/**
 * flame_tree_reserve_nodes:
 *
 * Room for @n_nodes in the node arrays, and none yet in the index: an
 * index too small for them is dropped, and the next lookup (or
 * flame_tree_ensure_index()) builds it once for the room. For a tree
 * that may get its nodes by flame_tree_copy_structure(), which drops
 * the index anyway.
 */
void
flame_tree_reserve_nodes (FlameTree *self,
                          guint32    n_nodes)
{
  if (n_nodes > self->alloc_nodes)
    resize_nodes (self, n_nodes);
  if (self->slots != NULL && slots_full (n_nodes, self->mask))
    flame_tree_drop_index (self);
}

/**
 * flame_tree_reserve_space:
 * @max_nodes: as many nodes as the input could possibly make, or about
 *
 * Moves the node arrays, once, to where they have room for @max_nodes,
 * so that they never move again while the tree grows to that size: a
 * loader that knows its input's length calls it first. Only address
 * space: a page is backed when a node on it is first written, so a
 * generous bound costs nothing (fresh zeroed arrays, not a realloc and
 * memset). The index is not resized (its pages are all touched, so
 * flame_tree_reserve() sizes it, for the expected count). Where the
 * system refuses that much address space, the arrays stay and grow as
 * before.
 */
void
flame_tree_reserve_space (FlameTree *self,
                          guint32    max_nodes)
{
  FlameNode *nodes;
  gdouble *weights[2 * FLAME_TREE_MAX_COLUMNS] = { NULL, };
  guint32 *hashes = NULL;
  gsize n = self->n_nodes;
  gboolean ok;

  max_nodes = MIN (max_nodes, G_MAXUINT32 / 2);
  if (max_nodes <= self->alloc_nodes)
    return;
  /* the weights stay g_try_new0(): fresh zero pages, never touched
   * beyond the last node */
  nodes = self->huge_pages ? flame_try_alloc_huge ((gsize) max_nodes * sizeof (FlameNode))
                           : g_try_new (FlameNode, max_nodes);
  ok = nodes != NULL;
  for (guint k = 0; ok && k < 2 * self->n_columns; k++)
    ok = (weights[k] = g_try_new0 (gdouble, max_nodes)) != NULL;
  if (ok && self->hashes != NULL)
    ok = (hashes = self->huge_pages ? flame_try_alloc_huge ((gsize) max_nodes * sizeof (guint32))
                                    : g_try_new (guint32, max_nodes)) != NULL;
  if (!ok)
    {
      g_free (nodes);
      for (guint k = 0; k < 2 * self->n_columns; k++)
        g_free (weights[k]);
      return;
    }

  if (self->huge_pages)
    for (guint k = 0; k < 2 * self->n_columns; k++)
      flame_alloc_hint_huge (weights[k], (gsize) max_nodes * sizeof (gdouble));
  memcpy (nodes, self->nodes, n * sizeof (FlameNode));
  g_free (self->nodes);
  self->nodes = nodes;
  for (guint c = 0; c < self->n_columns; c++)
    {
      memcpy (weights[2 * c], self->self[c], n * sizeof (gdouble));
      memcpy (weights[2 * c + 1], self->total[c], n * sizeof (gdouble));
      g_free (self->self[c]);
      g_free (self->total[c]);
      self->self[c] = weights[2 * c];
      self->total[c] = weights[2 * c + 1];
    }
  if (hashes != NULL)
    {
      memcpy (hashes, self->hashes, n * sizeof (guint32));
      g_free (self->hashes);
      self->hashes = hashes;
    }
  self->alloc_nodes = self->reserved_nodes = max_nodes;
}

/**
 * flame_tree_set_huge_pages:
 *
 * Asks for huge pages (flame_alloc_hint_huge()) under the index and the
 * node arrays (as flame_tree_reserve_space() or a growth makes them) from
 * now on. Worth it where two threads build trees at once (the two
 * folded files of a comparison: 4 KiB faults and TLB shootdowns of one
 * thread stalled the other, and the parallel load took as long as two
 * serial ones) and for the diff's tree, sized once for both sides and
 * filled at once; not for one large tree alone, where clearing huge
 * pages cost more than the TLB misses saved (random speedscope stacks:
 * 6.0 -> 8.5 s in this VM). Measured, not guessed: see docs/formats.md.
 */
void
flame_tree_set_huge_pages (FlameTree *self,
                           gboolean   huge_pages)
{
  self->huge_pages = huge_pages;
}

/**
 * flame_tree_expect_nodes:
 * @n_nodes: how many nodes the tree is now expected to end with
 *
 * A loader's running estimate (the nodes made so far over the share of
 * the input read, say). When the index next fills up, it grows to room
 * for @n_nodes (at most four times its size) instead of doubling: a tree
 * whose index would double twice on the way clears one fresh table
 * instead of two. An estimate too high costs index memory, so it is
 * only consulted when the index must grow anyway.
 */
void
flame_tree_expect_nodes (FlameTree *self,
                         guint32    n_nodes)
{
  self->expected_nodes = n_nodes;
}

/**
 * flame_tree_expect_from_progress:
 * @done: how much of the input has made the nodes so far (bytes, say)
 * @total: how much there is in all
 *
 * flame_tree_expect_nodes() with the nodes so far scaled to the whole
 * input: in files whose stacks share little, the index then grows once
 * to about its final size.
 */
void
flame_tree_expect_from_progress (FlameTree *self,
                                 guint64    done,
                                 guint64    total)
{
  if (done > 0)
    flame_tree_expect_nodes (self, (guint32) MIN ((guint64) self->n_nodes * total / done,
                                                  G_MAXUINT32 / 2));
}

/**
 * flame_tree_copy_structure:
 * @frame_map: maps @src's frame ids to @self's; must be injective, or
 *   siblings that should merge would stay apart
 *
 * Makes the empty tree @self a copy of @src's shape with frames renamed:
 * node i of @src is node i of @self. Weights are left at 0.
 */
void
flame_tree_copy_structure (FlameTree       *self,
                           const FlameTree *src,
                           const guint32   *frame_map)
{
  g_return_if_fail (self->n_nodes == 1);

  /* the index is rebuilt, at its final size, on the next lookup */
  flame_tree_drop_index (self);
  flame_tree_reserve_nodes (self, src->n_nodes);
  flame_copy_large (self->nodes, src->nodes, (gsize) src->n_nodes * sizeof (FlameNode));
  for (guint32 n = 1; n < src->n_nodes; n++)
    self->nodes[n].frame = frame_map[src->nodes[n].frame];
  self->n_nodes = src->n_nodes;
}

/* A new child of @parent in the empty slot @i that the lookup ended on. */
static guint32
add_child (FlameTree *self,
           guint32    parent,
           guint32    frame,
           guint32    h,
           guint32    i)
{
  guint32 node;
  FlameNode *p;

  if (self->n_nodes == self->alloc_nodes)
    grow_nodes (self);

  node = self->n_nodes++;
  p = &self->nodes[parent];
  self->nodes[node] = (FlameNode) {
    .frame = frame,
    .parent = parent,
    .first_child = FLAME_TREE_NONE,
    .next_sibling = p->first_child,
    .depth = p->depth + 1,
  };
  p->first_child = node;
  if (self->hashes != NULL)
    self->hashes[node] = h;
  self->slots[i] = (FlameTreeSlot) { h, node + 1 };

  if (slots_full (self->n_nodes, self->mask))
    grow_slots (self);

  return node;
}

/* The index must exist. */
static inline guint32
find_or_add (FlameTree *self,
             guint32    parent,
             guint32    frame,
             guint32    h)
{
  guint32 i;

  for (i = h & self->mask; self->slots[i].node1 != 0; i = (i + 1) & self->mask)
    if (self->slots[i].tag == h)
      {
        const FlameNode *n = &self->nodes[self->slots[i].node1 - 1];
        if (n->parent == parent && n->frame == frame)
          return self->slots[i].node1 - 1;
      }
  return add_child (self, parent, frame, h, i);
}

guint32
flame_tree_child (FlameTree *self,
                  guint32    parent,
                  guint32    frame)
{
  ensure_hashes (self);
  return find_or_add (self, parent, frame,
                      flame_tree_path_hash (self->hashes[parent], frame,
                                            self->nodes[parent].depth + 1));
}

/**
 * flame_tree_child_hashed:
 * @hash: flame_tree_path_hash (parent's path hash, @frame, parent's depth
 *   + 1), which a caller walking down a stack already has
 *
 * flame_tree_child() without computing the hash.
 */
guint32
flame_tree_child_hashed (FlameTree *self,
                         guint32    parent,
                         guint32    frame,
                         guint32    hash)
{
  ensure_slots (self);
  return find_or_add (self, parent, frame, hash);
}

void
flame_tree_add_self (FlameTree *self,
                     guint      column,
                     guint32    node,
                     gdouble    weight)
{
  self->self[column][node] += weight;
}

/* Every node's totals. */
void
flame_tree_finish (FlameTree *self)
{
  self->totals_pending = FALSE;
  sum_totals (self, TRUE);
}

/**
 * flame_tree_finish_root:
 *
 * flame_tree_finish() for the root only: its totals (the sum of every
 * node's self weight), the others left to flame_tree_ensure_totals().
 * For a loaded profile, whose node totals only a layout of it alone
 * reads: a diff sums its own tree, and the sweep and the total arrays'
 * fresh pages (two 29 MB arrays on the scale pair) went for nothing.
 */
void
flame_tree_finish_root (FlameTree *self)
{
  for (guint c = 0; c < self->n_columns; c++)
    {
      const gdouble *w = self->self[c];
      gdouble sum = 0;

      for (guint32 n = 0; n < self->n_nodes; n++)
        sum += w[n];
      self->total[c][FLAME_TREE_ROOT] = sum;
    }
  self->totals_pending = TRUE;
}

/**
 * flame_tree_ensure_totals:
 *
 * Every node's totals, after flame_tree_finish_root(). The root's are
 * not touched (a sum in another order may differ in the last bit, and
 * other threads may read them meanwhile). Not safe on two threads at
 * once: see flame_profile_ensure_totals().
 */
void
flame_tree_ensure_totals (FlameTree *self)
{
  if (!self->totals_pending)
    return;
  sum_totals (self, FALSE);
  self->totals_pending = FALSE;
}

/* Totals of every column in one reverse sweep: the parent links are
 * followed once, not once per column (the additions per column are the
 * same, in the same order). The root's too, or left as they are. */
static void
sum_totals (FlameTree *self,
            gboolean   root)
{
  const FlameNode *nodes = self->nodes;
  gdouble *t0 = self->total[0];
  gdouble *t1 = self->n_columns > 1 ? self->total[1] : NULL;
  guint32 first = root ? 0 : 1;

  for (guint c = 0; c < self->n_columns; c++)
    memcpy (self->total[c] + first, self->self[c] + first,
            (self->n_nodes - first) * sizeof (gdouble));
  for (guint32 n = self->n_nodes - 1; n > 0; n--)
    {
      guint32 p = nodes[n].parent;

      if (G_UNLIKELY (p == FLAME_TREE_ROOT && !root))
        continue;
      t0[p] += t0[n];
      if (t1 != NULL)
        t1[p] += t1[n];
      for (guint c = 2; c < self->n_columns; c++)
        self->total[c][p] += self->total[c][n];
    }
}

/**
 * flame_tree_drop_hashes:
 *
 * Frees the per-node path hashes, and stops keeping them: for a builder
 * that brings every node's hash itself (flame_tree_child_hashed()). They
 * are computed again if a lookup needs them.
 */
void
flame_tree_drop_hashes (FlameTree *self)
{
  flame_free_large (self->hashes, (gsize) self->alloc_nodes * sizeof (guint32));
  self->hashes = NULL;
}

/**
 * flame_tree_drop_index:
 *
 * Frees the build-time index (the next lookup builds it again).
 */
void
flame_tree_drop_index (FlameTree *self)
{
  flame_free_large (self->slots, ((gsize) self->mask + 1) * sizeof (FlameTreeSlot));
  self->slots = NULL;
  flame_tree_drop_hashes (self);
}

/**
 * flame_tree_compact_nodes:
 *
 * Gives back the node arrays' spare room and the path hashes
 * (flame_tree_drop_hashes()); the index itself stays, for
 * flame_tree_take_index() (a diff's copy of this tree) until
 * flame_tree_drop_index().
 */
void
flame_tree_compact_nodes (FlameTree *self)
{
  flame_tree_drop_hashes (self);
  /* arrays of reserve_space() are backed only where a node was written:
   * nothing to give back (and flame_tree_take_arrays() may use the room) */
  if (self->reserved_nodes > 0)
    self->alloc_nodes = self->n_nodes;
  else if (self->alloc_nodes > self->n_nodes)
    {
      self->alloc_nodes = self->n_nodes;
      self->nodes = g_renew (FlameNode, self->nodes, self->alloc_nodes);
      for (guint c = 0; c < self->n_columns; c++)
        {
          self->self[c] = g_renew (gdouble, self->self[c], self->alloc_nodes);
          self->total[c] = g_renew (gdouble, self->total[c], self->alloc_nodes);
        }
    }
}

/* Drops the build-time index and the arrays' spare room: a finished
 * tree costs exactly its nodes. */
void
flame_tree_compact (FlameTree *self)
{
  flame_tree_drop_index (self);
  flame_tree_compact_nodes (self);
}

/**
 * flame_tree_take_index:
 * @src: the tree @self was copied from (flame_tree_copy_structure()),
 *   with the same frame ids
 *
 * Moves @src's index to @self, whose nodes are @src's node for node
 * under the same frame ids, so that their path hashes and index are the
 * same: no new index is cleared and filled (on the scale pair that was
 * 0.15-0.2 s, a fresh 64 MiB table). The per-node hashes are left to be
 * computed if a lookup needs them (ensure_hashes()). @src is left
 * without an index.
 *
 * Returns: FALSE (nothing moved) when @src has no index or @self is not
 * such a copy
 */
gboolean
flame_tree_take_index (FlameTree *self,
                       FlameTree *src)
{
  if (src->slots == NULL || self->n_nodes != src->n_nodes)
    return FALSE;
  flame_tree_drop_index (self);
  self->slots = g_steal_pointer (&src->slots);
  self->mask = src->mask;
  return TRUE;
}

/* @p (@n elements of @size, the rest up to @alloc zeroed) moved to room
 * for @alloc: its pages are remapped, not copied */
static gpointer
renew_zeroed (gpointer p,
              gsize    n,
              gsize    alloc,
              gsize    size)
{
  p = g_realloc_n (p, alloc, size);
  flame_zero_large ((char *) p + n * size, (alloc - n) * size);
  return p;
}

/**
 * flame_tree_take_arrays:
 * @self: an empty tree (its root only)
 * @src: a tree of one column, whose frame ids @self shares
 * @dst_col: the column of @self that gets @src's weights
 * @capacity: room for this many nodes
 *
 * Makes @src's nodes, weights and index @self's, without copying them:
 * for a diff whose first side is a profile read only once (a comparison
 * made once, flamediff-cli compare), instead of flame_tree_copy_structure()
 * and flame_tree_take_index(). On the scale pair that copy wrote 100 MB
 * of fresh pages. @self's other columns are zero. @src keeps its root,
 * with its weights and totals, and nothing below it.
 */
void
flame_tree_take_arrays (FlameTree *self,
                        FlameTree *src,
                        guint      dst_col,
                        guint32    capacity)
{
  gsize n = src->n_nodes;
  gsize alloc = MAX ((gsize) capacity, n);
  gboolean room = src->reserved_nodes >= alloc;
  FlameNode root = { src->nodes[FLAME_TREE_ROOT].frame, FLAME_TREE_NONE, FLAME_TREE_NONE,
                     FLAME_TREE_NONE, 0 };
  gdouble root_self = src->self[0][FLAME_TREE_ROOT];
  gdouble root_total = src->total[0][FLAME_TREE_ROOT];

  g_return_if_fail (self->n_nodes == 1);
  g_return_if_fail (src->n_columns == 1);
  g_return_if_fail (dst_col < self->n_columns);

  flame_tree_drop_index (self);
  g_free (self->nodes);
  /* a loader's reserved arrays have the room, zeroed (as they are
   * hinted huge, g_renew() could not remap them: it would copy) */
  self->nodes = room ? src->nodes : g_renew (FlameNode, src->nodes, alloc);
  for (guint c = 0; c < self->n_columns; c++)
    {
      g_free (self->self[c]);
      g_free (self->total[c]);
      if (c == dst_col && room)
        {
          self->self[c] = src->self[0];
          self->total[c] = src->total[0];
        }
      else if (c == dst_col)
        {
          self->self[c] = renew_zeroed (src->self[0], n, alloc, sizeof (gdouble));
          self->total[c] = renew_zeroed (src->total[0], n, alloc, sizeof (gdouble));
        }
      else
        {
          self->self[c] = flame_alloc_zeroed_table (alloc, sizeof (gdouble), self->huge_pages);
          self->total[c] = flame_alloc_zeroed_table (alloc, sizeof (gdouble), self->huge_pages);
        }
    }
  self->n_nodes = n;
  self->alloc_nodes = alloc;
  self->reserved_nodes = room ? src->reserved_nodes : 0;
  self->totals_pending = src->totals_pending;
  flame_tree_take_index (self, src);

  flame_tree_drop_hashes (src);
  src->nodes = g_new (FlameNode, 1);
  src->nodes[FLAME_TREE_ROOT] = root;
  src->self[0] = g_new (gdouble, 1);
  src->total[0] = g_new (gdouble, 1);
  src->self[0][FLAME_TREE_ROOT] = root_self;
  src->total[0][FLAME_TREE_ROOT] = root_total;
  src->n_nodes = src->alloc_nodes = 1;
  src->reserved_nodes = 0;
  src->totals_pending = FALSE;
}

/**
 * flame_tree_function_weights:
 * @self_out: (array length=n_frames): zeroed by the caller
 * @total_out: (array length=n_frames): zeroed by the caller
 *
 * Per-frame ("per-function") weights of @column: self is the sum over
 * the frame's nodes; total counts the frame once per stack, so recursion
 * is not counted twice: a node adds its total only when no ancestor is
 * the same frame. flame_tree_function_weights_columns() for one column.
 */
void
flame_tree_function_weights (const FlameTree *self,
                             guint            n_frames,
                             guint            column,
                             gdouble         *self_out,
                             gdouble         *total_out)
{
  flame_tree_function_weights_columns (self, n_frames, 1, &column, &self_out, &total_out);
}

/* Marks in @first the nodes of the subtree under @top (itself included)
 * that have no ancestor of their frame: a depth-first walk along the
 * sibling links that keeps a count of open nodes per frame in @open,
 * which holds @top's ancestors' frames on entry and on return. */
static void
mark_first_of_frame (const FlameTree *self,
                     guint32          top,
                     guint32         *open,
                     guint8          *first)
{
  const FlameNode *nodes = self->nodes;
  guint32 n = top;

  for (;;)
    {
      const FlameNode *node = &nodes[n];

      /* the walk comes back to the sibling after this subtree */
      if (node->next_sibling != FLAME_TREE_NONE)
        __builtin_prefetch (&nodes[node->next_sibling]);
      first[n] = open[node->frame]++ == 0;
      if (node->first_child != FLAME_TREE_NONE)
        {
          n = node->first_child;
          continue;
        }
      /* leave this node and every ancestor that has no further sibling,
       * up to @top */
      for (;;)
        {
          open[nodes[n].frame]--;
          if (n == top)
            return;
          if (nodes[n].next_sibling != FLAME_TREE_NONE)
            {
              n = nodes[n].next_sibling;
              break;
            }
          n = nodes[n].parent;
        }
    }
}

/* subtrees a parallel marking is cut into, per thread */
#define MARK_TASKS_PER_THREAD 256
/* trees smaller than this are marked by one thread */
#define MARK_PARALLEL_NODES ((guint32) 1 << 17)

typedef struct
{
  const FlameTree *tree;
  guint            n_frames;
  const guint32   *tops;    /* subtrees to mark, their ancestors marked */
  gsize            n_tops;
  gsize            stride;  /* task i is tops[i * stride % n_tops] */
  guint8          *first;
} MarkTasks;

static void
mark_tasks (gsize    start,
            gsize    end,
            gpointer data)
{
  const MarkTasks *m = data;
  const FlameNode *nodes = m->tree->nodes;
  g_autofree guint32 *open = g_new0 (guint32, MAX (m->n_frames, 1));

  for (gsize i = start; i < end; i++)
    {
      guint32 top = m->tops[i * m->stride % m->n_tops];

      for (guint32 a = nodes[top].parent; a != FLAME_TREE_ROOT; a = nodes[a].parent)
        open[nodes[a].frame]++;
      mark_first_of_frame (m->tree, top, open, m->first);
      for (guint32 a = nodes[top].parent; a != FLAME_TREE_ROOT; a = nodes[a].parent)
        open[nodes[a].frame]--;
    }
}

/* The greatest common divisor, for a stride that visits every task once */
static gsize
gcd (gsize a,
     gsize b)
{
  while (b != 0)
    {
      gsize t = a % b;

      a = b;
      b = t;
    }
  return a;
}

/* mark_first_of_frame() of the whole tree, on every core for a large one:
 * the levels below the root are expanded, breadth first, until there
 * are enough subtrees to share out; the nodes expanded are marked from
 * their ancestors, the subtrees by the threads. The marks are the same
 * for any number of threads. */
static void
mark_tree (const FlameTree *self,
           guint            n_frames,
           guint8          *first)
{
  const FlameNode *nodes = self->nodes;
  guint threads = flame_parallel_threads ();
  gsize want = (gsize) threads * MARK_TASKS_PER_THREAD;
  g_autoptr(GArray) tops = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) next = g_array_new (FALSE, FALSE, sizeof (guint32));
  MarkTasks m = { self, n_frames, NULL, 0, 1, first };

  for (guint32 c = nodes[FLAME_TREE_ROOT].first_child; c != FLAME_TREE_NONE;
       c = nodes[c].next_sibling)
    g_array_append_val (tops, c);
  if (self->n_nodes < MARK_PARALLEL_NODES || threads < 2)
    {
      g_autofree guint32 *open = g_new0 (guint32, MAX (n_frames, 1));

      for (guint i = 0; i < tops->len; i++)
        mark_first_of_frame (self, g_array_index (tops, guint32, i), open, first);
      return;
    }

  /* a level of subtrees replaced by the next while there are too few
   * (through chains of single children too, as profiles often start) */
  for (guint level = 0; level < 256 && tops->len < want; level++)
    {
      gsize leaves = 0;

      g_array_set_size (next, 0);
      for (guint i = 0; i < tops->len; i++)
        {
          guint32 t = g_array_index (tops, guint32, i);

          if (nodes[t].first_child == FLAME_TREE_NONE)
            {
              g_array_append_val (next, t);
              leaves++;
            }
          for (guint32 c = nodes[t].first_child; c != FLAME_TREE_NONE; c = nodes[c].next_sibling)
            g_array_append_val (next, c);
        }
      if (leaves == tops->len)
        break;
      /* the expanded nodes: marked here, from their ancestors */
      for (guint i = 0; i < tops->len; i++)
        {
          guint32 t = g_array_index (tops, guint32, i);
          gboolean seen = FALSE;

          if (nodes[t].first_child == FLAME_TREE_NONE)
            continue;
          for (guint32 a = nodes[t].parent; a != FLAME_TREE_ROOT && !seen; a = nodes[a].parent)
            seen = nodes[a].frame == nodes[t].frame;
          first[t] = !seen;
        }
      g_array_set_size (tops, 0);
      g_array_append_vals (tops, next->data, next->len);
    }

  m.tops = (const guint32 *) tops->data;
  m.n_tops = tops->len;
  /* neighbouring subtrees (often alike in size) go to different threads */
  m.stride = 1;
  for (gsize p = 7919; m.n_tops > 1; p += 2)
    if (gcd (p, m.n_tops) == 1)
      {
        m.stride = p % m.n_tops;
        break;
      }
  flame_parallel_for (m.n_tops, 1, mark_tasks, &m);
}

/**
 * flame_tree_function_weights_columns:
 * @columns: (array length=n_columns): the columns wanted
 * @self_out: (array length=n_columns): an array of n_frames per column,
 *   zeroed by the caller
 * @total_out: (array length=n_columns): likewise
 *
 * flame_tree_function_weights() of several columns. Which nodes add
 * their total (those with no ancestor of their frame) takes a walk of
 * the tree whose reads are scattered over the node array, so it is done
 * once for all columns, and on every core for a large tree
 * (mark_tree()); the sums are then taken in node order, the same for
 * any number of threads.
 */
void
flame_tree_function_weights_columns (const FlameTree *self,
                                     guint            n_frames,
                                     guint            n_columns,
                                     const guint     *columns,
                                     gdouble  *const *self_out,
                                     gdouble  *const *total_out)
{
  const FlameNode *nodes = self->nodes;
  g_autofree guint8 *first = NULL;

  g_return_if_fail (n_columns <= FLAME_TREE_MAX_COLUMNS);
  /* a loaded profile's: flame_profile_ensure_totals() first */
  g_return_if_fail (!self->totals_pending);

  for (guint k = 0; k < n_columns; k++)
    {
      const gdouble *self_w = self->self[columns[k]];
      gdouble *out = self_out[k];

      for (guint32 n = 1; n < self->n_nodes; n++)
        out[nodes[n].frame] += self_w[n];
    }

  first = g_new (guint8, MAX (self->n_nodes, 1));
  mark_tree (self, n_frames, first);
  for (guint k = 0; k < n_columns; k++)
    {
      const gdouble *total_w = self->total[columns[k]];
      gdouble *out = total_out[k];

      for (guint32 n = 1; n < self->n_nodes; n++)
        if (first[n])
          out[nodes[n].frame] += total_w[n];
    }
}

gsize
flame_tree_memory (const FlameTree *self)
{
  gsize bytes = sizeof *self;

  bytes += (gsize) self->alloc_nodes * flame_tree_node_bytes (self);
  if (self->slots != NULL)
    bytes += ((gsize) self->mask + 1) * sizeof (FlameTreeSlot);
  if (self->hashes != NULL)
    bytes += (gsize) self->alloc_nodes * sizeof (guint32);
  return bytes;
}

gsize
flame_tree_node_bytes (const FlameTree *self)
{
  return sizeof (FlameNode) + self->n_columns * 2 * sizeof (gdouble);
}

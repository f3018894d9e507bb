/* flame-callgraph.c: a flame tree approximated from a call graph.
 *
 * A call graph (each function's own cost, each caller → callee edge with
 * the callee's inclusive cost in those calls) is not a set of stacks: it
 * does not say which path a cost was spent on. The tree is built so that
 * it at least holds every cost exactly once (docs/formats.md):
 *
 * - from every function nobody calls, each call edge is followed with the
 *   share of the caller's cost (its own plus its calls') the edge stands
 *   for, times what reached the caller's node; breadth first, never into
 *   a function already on the path (recursion, cycles), not below
 *   MIN_SHARE of the program, down to MAX_DEPTH and up to MAX_NODES;
 * - then each function's own cost is shared among its nodes in proportion
 *   to what reached them; a function no path reached gets a node at the
 *   top.
 *
 * Per-function figures must not be read off this tree: loaders give the
 * exact ones to flame_profile_set_function_weights().
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>

#include "flame-callgraph.h"
#include "flame-hash.h"

#define MAX_NODES ((guint32) 1 << 20)
#define MAX_DEPTH 256
#define MIN_SHARE 1e-6

typedef struct
{
  guint32 caller;
  guint32 callee;
  gdouble cost;
} Edge;

typedef struct
{
  guint64 key;     /* caller << 32 | callee */
  guint32 index1;  /* edge index + 1; 0 = empty */
} EdgeSlot;

typedef struct
{
  gdouble  self;
  gdouble  out;      /* self and the calls it makes */
  gboolean called;
} Function;

typedef struct
{
  guint32 node;
  guint32 frame;
} Work;

struct _FlameCallGraph
{
  GArray   *functions;  /* Function, by frame */
  GArray   *edges;
  EdgeSlot *slots;
  guint32   mask;
};

FlameCallGraph *
flame_call_graph_new (void)
{
  FlameCallGraph *self = g_new0 (FlameCallGraph, 1);

  self->functions = g_array_new (FALSE, TRUE, sizeof (Function));
  self->edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  self->mask = 63;
  self->slots = g_new0 (EdgeSlot, self->mask + 1);
  return self;
}

void
flame_call_graph_free (FlameCallGraph *self)
{
  g_array_unref (self->functions);
  g_array_unref (self->edges);
  g_free (self->slots);
  g_free (self);
}

static Function *
function_at (FlameCallGraph *self,
             guint32         frame)
{
  if (frame >= self->functions->len)
    g_array_set_size (self->functions, frame + 1);
  return &g_array_index (self->functions, Function, frame);
}

static Edge *
edge_for (FlameCallGraph *self,
          guint32         caller,
          guint32         callee)
{
  guint64 key = (guint64) caller << 32 | callee;
  guint32 i;

  if (self->edges->len * 2 >= self->mask + 1)
    {
      guint32 size = (self->mask + 1) * 2;
      EdgeSlot *slots = g_new0 (EdgeSlot, size);

      for (guint32 s = 0; s <= self->mask; s++)
        if (self->slots[s].index1 != 0)
          {
            guint32 j = (guint32) flame_hash_u64 (self->slots[s].key) & (size - 1);
            while (slots[j].index1 != 0)
              j = (j + 1) & (size - 1);
            slots[j] = self->slots[s];
          }
      g_free (self->slots);
      self->slots = slots;
      self->mask = size - 1;
    }

  for (i = (guint32) flame_hash_u64 (key) & self->mask;
       self->slots[i].index1 != 0;
       i = (i + 1) & self->mask)
    if (self->slots[i].key == key)
      return &g_array_index (self->edges, Edge, self->slots[i].index1 - 1);

  g_array_append_val (self->edges, ((Edge) { caller, callee, 0 }));
  self->slots[i] = (EdgeSlot) { key, self->edges->len };
  return &g_array_index (self->edges, Edge, self->edges->len - 1);
}

/* @frame's own cost */
void
flame_call_graph_add_self (FlameCallGraph *self,
                           guint32         frame,
                           gdouble         weight)
{
  Function *f = function_at (self, frame);

  f->self += weight;
  f->out += weight;
}

/* @caller called @callee, which cost @inclusive in those calls */
void
flame_call_graph_add_call (FlameCallGraph *self,
                           guint32         caller,
                           guint32         callee,
                           gdouble         inclusive)
{
  edge_for (self, caller, callee)->cost += inclusive;
  function_at (self, callee)->called = TRUE;
  function_at (self, caller)->out += inclusive;
}

static int
compare_edges (const void *pa,
               const void *pb)
{
  const Edge *a = pa, *b = pb;

  if (a->caller != b->caller)
    return a->caller < b->caller ? -1 : 1;
  return a->callee < b->callee ? -1 : a->callee > b->callee;
}

static gboolean
on_path (const FlameTree *tree,
         guint32          node,
         guint32          frame)
{
  for (; node != FLAME_TREE_ROOT; node = tree->nodes[node].parent)
    if (tree->nodes[node].frame == frame)
      return TRUE;
  return FALSE;
}

/**
 * flame_call_graph_build_tree:
 *
 * Adds the approximate tree (see the top of the file) to column 0 of
 * @profile's tree, warning on @profile when the node limit cut it.
 * Returns FALSE only when @in's cancellable was cancelled.
 */
gboolean
flame_call_graph_build_tree (FlameCallGraph *self,
                             FlameProfile   *profile,
                             FlameInput     *in,
                             GError        **error)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  Function *fns = (Function *) (void *) self->functions->data;
  guint n_fns = self->functions->len;
  Edge *edges;
  guint n_edges = self->edges->len;
  g_autofree guint32 *first = g_new0 (guint32, n_fns + 1);
  g_autofree gdouble *reached = g_new0 (gdouble, MAX (n_fns, 1));
  g_autoptr(GArray) weight = g_array_new (FALSE, TRUE, sizeof (gdouble));
  g_autoptr(GArray) queue = g_array_new (FALSE, FALSE, sizeof (Work));
  gdouble total = 0, min_weight;
  gboolean cut = FALSE;

  if (n_edges > 0)  /* a graph without calls has no array to sort */
    qsort (self->edges->data, n_edges, sizeof (Edge), compare_edges);
  edges = (Edge *) (void *) self->edges->data;
  for (guint i = 0; i < n_edges; i++)
    first[edges[i].caller + 1]++;
  for (guint f = 0; f < n_fns; f++)
    first[f + 1] += first[f];

  for (guint f = 0; f < n_fns; f++)
    total += fns[f].self;
  min_weight = total * MIN_SHARE;

  g_array_set_size (weight, 1);
  for (guint32 f = 0; f < n_fns; f++)
    if (!fns[f].called && fns[f].out > 0)
      {
        guint32 node = flame_tree_child (tree, FLAME_TREE_ROOT, f);
        g_array_set_size (weight, tree->n_nodes);
        g_array_index (weight, gdouble, node) = fns[f].out;
        g_array_append_val (queue, ((Work) { node, f }));
      }

  for (guint q = 0; q < queue->len && !cut; q++)
    {
      Work w = g_array_index (queue, Work, q);
      gdouble share;

      if ((q & 0xffff) == 0 && g_cancellable_set_error_if_cancelled (in->cancellable, error))
        return FALSE;
      if (tree->nodes[w.node].depth >= MAX_DEPTH || fns[w.frame].out <= 0)
        continue;
      share = g_array_index (weight, gdouble, w.node) / fns[w.frame].out;
      for (guint32 e = first[w.frame]; e < first[w.frame + 1]; e++)
        {
          gdouble cw = edges[e].cost * share;
          guint32 child;

          if (!(cw > 0) || cw < min_weight || on_path (tree, w.node, edges[e].callee))
            continue;
          if (tree->n_nodes >= MAX_NODES)
            {
              cut = TRUE;
              break;
            }
          child = flame_tree_child (tree, w.node, edges[e].callee);
          g_array_set_size (weight, tree->n_nodes);
          g_array_index (weight, gdouble, child) += cw;
          g_array_append_val (queue, ((Work) { child, edges[e].callee }));
        }
    }

  for (guint32 n = 1; n < tree->n_nodes; n++)
    reached[tree->nodes[n].frame] += g_array_index (weight, gdouble, n);
  for (guint32 n = 1, n_nodes = tree->n_nodes; n < n_nodes; n++)
    {
      guint32 f = tree->nodes[n].frame;
      flame_tree_add_self (tree, 0, n,
                           fns[f].self * (g_array_index (weight, gdouble, n) / reached[f]));
    }
  /* functions no path reached (called only from a cycle, or below the
   * share followed) still count: at the top */
  for (guint32 f = 0; f < n_fns; f++)
    if (!(reached[f] > 0) && fns[f].self > 0)
      flame_tree_add_self (tree, 0, flame_tree_child (tree, FLAME_TREE_ROOT, f), fns[f].self);

  if (cut)
    flame_profile_add_warning (profile,
                               "%s: the flame graph was cut at %u nodes; "
                               "per-function figures are complete",
                               in->name, MAX_NODES);
  flame_profile_set_metadata (profile, "flame-graph",
                              "approximated from call edges (a call graph, not stacks); "
                              "per-function self and total are exact");
  return TRUE;
}

/* flame-layout.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout is split in two so that its cost follows what is visible:
 *
 * - FlameLayoutSource prepares a tree once per diff and view (O(n log n),
 *   run it in a worker thread for big profiles): each node's width weight
 *   and colour class, and its children with weight > 0, sorted by weight,
 *   widest first, in one flat array.
 *
 * - flame_layout_new() then lays out a zoom root at a pixel width. It is a
 *   breadth-first sweep over the output array itself (no recursion, no
 *   separate stack): each placed frame takes the prefix of its children
 *   that are at least min_width pixels wide. Because the children are
 *   sorted widest first, the sweep stops at the first narrow child and
 *   never looks at the others, so the work is proportional to the frames
 *   placed, not to the tree.
 *
 * Sibling order on screen: the visible children of a frame are sorted by
 * function name (then file, then node index), left to right, like the
 * classic flame graph; this keeps a function at the same place in the
 * baseline and the current graph. The children narrower than min_width
 * are MERGED into one unlabelled frame at the right end of their parent
 * (flag FLAME_LAYOUT_FRAME_MERGED, n_merged says how many); when even
 * that frame would be narrower than min_width they are skipped: the
 * parent shows a gap there. A merged frame has no children drawn.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame-alloc.h"
#include "flame-layout.h"
#include "flame-parallel.h"
#include "flame-search.h"

/* a view's passes over its nodes go to other cores in pieces of at
 * least this many nodes (a piece takes a few milliseconds) */
#define PARALLEL_MIN_NODES ((gsize) 1 << 17)

struct _FlameLayoutSource
{
  GObject       parent_instance;

  FlameView     view;
  FlameDiff    *diff;
  FlameProfile *profile;
  FlameTree    *tree;      /* owned by diff or profile */
  FlameFrames  *frames;
  guint         column;    /* single view: the profile's column */
  gdouble       ms_per_weight;

  gdouble      *weight;    /* ms of width per node, 0 = not in this view */
  gdouble      *child_sum; /* sum of the children's weights */
  guint8       *klass;     /* FlameChange per node */
  guint32      *child_start;
  guint32      *children;  /* per node: children with weight > 0, widest first */
  /* flame_layout_source_new_for_diff_reusing(): the source whose weight
   * and children arrays these are (only klass is ours then) */
  FlameLayoutSource *shape_owner;
};

G_DEFINE_FINAL_TYPE (FlameLayoutSource, flame_layout_source, G_TYPE_OBJECT)

static void
flame_layout_source_finalize (GObject *object)
{
  FlameLayoutSource *self = (FlameLayoutSource *) object;

  if (self->shape_owner != NULL)
    {
      /* borrowed: the owner frees them */
      self->weight = NULL;
      self->child_sum = NULL;
      self->child_start = NULL;
      self->children = NULL;
      g_clear_object (&self->shape_owner);
    }
  /* a tree's worth of arrays: a view switch drops them on the main
   * thread, and unmapping them would stall it */
  {
    gsize n = self->tree != NULL ? self->tree->n_nodes : 0;

    flame_free_large (self->weight, n * sizeof (gdouble));
    flame_free_large (self->child_sum, n * sizeof (gdouble));
    flame_free_large (self->klass, n);
    flame_free_large (self->child_start, (n + 1) * sizeof (guint32));
    flame_free_large (self->children, n * sizeof (guint32));
  }
  g_clear_object (&self->diff);
  g_clear_object (&self->profile);

  G_OBJECT_CLASS (flame_layout_source_parent_class)->finalize (object);
}

static void
flame_layout_source_class_init (FlameLayoutSourceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = flame_layout_source_finalize;
}

static void
flame_layout_source_init (FlameLayoutSource *self)
{
}

const char *
flame_view_to_string (FlameView view)
{
  switch (view)
    {
    case FLAME_VIEW_ELIDED:       return "elided";
    case FLAME_VIEW_INVERTED:     return "inverted";
    case FLAME_VIEW_SINGLE:       return "single";
    case FLAME_VIEW_DIFFERENTIAL:
    default:                      return "differential";
    }
}

gboolean
flame_view_from_string (const char *str,
                        FlameView  *view)
{
  static const FlameView all[] = {
    FLAME_VIEW_DIFFERENTIAL, FLAME_VIEW_ELIDED, FLAME_VIEW_INVERTED, FLAME_VIEW_SINGLE
  };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (g_strcmp0 (str, flame_view_to_string (all[i])) == 0)
      {
        *view = all[i];
        return TRUE;
      }
  return FALSE;
}

static int
compare_by_weight (const void *a,
                   const void *b,
                   void       *data)
{
  FlameLayoutSource *self = data;
  guint32 na = *(const guint32 *) a;
  guint32 nb = *(const guint32 *) b;
  gdouble wa = self->weight[na];
  gdouble wb = self->weight[nb];

  if (wa != wb)
    return wa > wb ? -1 : 1;
  return na < nb ? -1 : na > nb;
}

/* the sibling blocks of parents [@start, @end), widest first */
static void
sort_children (gsize    start,
               gsize    end,
               gpointer data)
{
  FlameLayoutSource *self = data;

  for (gsize n = start; n < end; n++)
    {
      guint32 s = self->child_start[n], e = self->child_start[n + 1];

      if (e - s > 1)
        qsort_r (self->children + s, e - s, sizeof (guint32), compare_by_weight, self);
    }
}

/* Counting sort of the nodes with weight > 0 by parent, then each
 * sibling block sorted widest first (on every core). */
static void
build_children (FlameLayoutSource *self)
{
  FlameTree *tree = self->tree;
  guint32 n_nodes = tree->n_nodes;
  g_autofree guint32 *fill = NULL;

  self->child_sum = g_new0 (gdouble, n_nodes);
  self->child_start = g_new0 (guint32, (gsize) n_nodes + 1);
  for (guint32 n = 1; n < n_nodes; n++)
    if (self->weight[n] > 0)
      {
        guint32 p = tree->nodes[n].parent;

        self->child_start[p + 1]++;
        self->child_sum[p] += self->weight[n];
      }
  for (guint32 n = 0; n < n_nodes; n++)
    self->child_start[n + 1] += self->child_start[n];

  self->children = g_new (guint32, MAX (self->child_start[n_nodes], 1));
  fill = g_memdup2 (self->child_start, (gsize) n_nodes * sizeof (guint32));
  for (guint32 n = 1; n < n_nodes; n++)
    if (self->weight[n] > 0)
      self->children[fill[tree->nodes[n].parent]++] = n;

  flame_parallel_for (n_nodes, PARALLEL_MIN_NODES, sort_children, self);
}

/**
 * flame_layout_source_new_for_diff:
 *
 * Prepares @diff's tree for @view (not %FLAME_VIEW_SINGLE): widths are
 * the current total (differential, inverted) or the elided weight
 * (elided view: only elided paths, their ancestors as structure).
 * Colours: the diff's metric in the differential view, the total in the
 * inverted view (a node's total there is the self time of the root
 * function through that chain of callers), "elided" in the elided view.
 */
FlameLayoutSource *
flame_layout_source_new_for_diff (FlameDiff *diff,
                                  FlameView  view)
{
  return flame_layout_source_new_for_diff_reusing (diff, view, NULL);
}

/* the tree @view of @diff shows */
static FlameTree *
view_tree (FlameDiff *diff,
           FlameView  view)
{
  return view == FLAME_VIEW_INVERTED ? flame_diff_get_inverted_tree (diff)
                                     : flame_diff_get_tree (diff);
}

/* the colour classes of nodes [@start, @end) */
static void
classify_range (gsize    start,
                gsize    end,
                gpointer data)
{
  FlameLayoutSource *self = data;
  FlameMetric metric = self->view == FLAME_VIEW_INVERTED
    ? FLAME_METRIC_TOTAL : flame_diff_get_options (self->diff)->metric;

  for (gsize n = start; n < end; n++)
    if (self->view == FLAME_VIEW_ELIDED)
      self->klass[n] = FLAME_CHANGE_ELIDED;
    else if (self->weight[n] > 0)
      self->klass[n] = flame_diff_classify (self->diff, self->tree, (guint32) n, metric);
}

/* Each node's colour class in @self's view (its weights are set), on
 * every core */
static void
classify_nodes (FlameLayoutSource *self)
{
  FlameTree *tree = self->tree;

  self->klass = g_new0 (guint8, tree->n_nodes);
  flame_parallel_for (tree->n_nodes, PARALLEL_MIN_NODES, classify_range, self);
  /* the root compares two totals that the scale made equal: neutral,
   * except in the elided view, where every frame is "elided" */
  if (self->view != FLAME_VIEW_ELIDED)
    self->klass[FLAME_TREE_ROOT] = FLAME_CHANGE_NEUTRAL;
}

/* the widths of nodes [@start, @end) in @self's view */
static void
view_weights (gsize    start,
              gsize    end,
              gpointer data)
{
  FlameLayoutSource *self = data;

  for (gsize n = start; n < end; n++)
    self->weight[n] = self->view == FLAME_VIEW_ELIDED
                      ? flame_diff_get_elided_weight (self->diff, (guint32) n)
                      : self->tree->total[FLAME_DIFF_CURRENT][n];
}

/**
 * flame_layout_source_new_for_diff_reusing:
 * @previous: (nullable): a source made earlier
 *
 * flame_layout_source_new_for_diff(), sharing the widths and the sorted
 * children of @previous when they are the same: the same @view of the
 * same merged tree (flame_diff_new_reusing()), with the same scale in
 * the elided view. Only the colours are computed then, so that colouring
 * by total time or hiding noise does not lay out millions of nodes again.
 */
FlameLayoutSource *
flame_layout_source_new_for_diff_reusing (FlameDiff         *diff,
                                          FlameView          view,
                                          FlameLayoutSource *previous)
{
  FlameLayoutSource *self;
  FlameTree *tree;

  g_return_val_if_fail (FLAME_IS_DIFF (diff), NULL);
  g_return_val_if_fail (view != FLAME_VIEW_SINGLE, NULL);
  g_return_val_if_fail (previous == NULL || FLAME_IS_LAYOUT_SOURCE (previous), NULL);

  self = g_object_new (FLAME_TYPE_LAYOUT_SOURCE, NULL);
  self->view = view;
  self->diff = g_object_ref (diff);
  self->frames = flame_diff_get_frames (diff);
  self->tree = tree = view_tree (diff, view);

  if (previous != NULL && previous->diff != NULL && previous->view == view &&
      previous->tree == tree &&
      (view != FLAME_VIEW_ELIDED ||
       flame_diff_get_scale (previous->diff) == flame_diff_get_scale (diff)))
    {
      FlameLayoutSource *owner = previous->shape_owner ? previous->shape_owner : previous;

      self->shape_owner = g_object_ref (owner);
      self->weight = owner->weight;
      self->child_sum = owner->child_sum;
      self->child_start = owner->child_start;
      self->children = owner->children;
      classify_nodes (self);
      return self;
    }

  self->weight = g_new (gdouble, tree->n_nodes);
  flame_parallel_for (tree->n_nodes, PARALLEL_MIN_NODES, view_weights, self);
  classify_nodes (self);
  build_children (self);

  return self;
}

/**
 * flame_layout_source_new_for_profile:
 * @column: which weight column (0 unless @profile is a ready-made pair)
 *
 * A single profile without a diff: widths are @column's totals in ms,
 * every frame neutral (painters use the plain palette).
 */
FlameLayoutSource *
flame_layout_source_new_for_profile (FlameProfile *profile,
                                     guint         column,
                                     gdouble       default_interval_ms)
{
  FlameLayoutSource *self;
  FlameTree *tree;
  gdouble ms;

  g_return_val_if_fail (FLAME_IS_PROFILE (profile), NULL);
  g_return_val_if_fail (column < flame_profile_get_n_columns (profile), NULL);

  self = g_object_new (FLAME_TYPE_LAYOUT_SOURCE, NULL);
  self->view = FLAME_VIEW_SINGLE;
  self->profile = g_object_ref (profile);
  self->frames = flame_profile_get_frames (profile);
  flame_profile_ensure_totals (profile);
  self->tree = tree = flame_profile_get_tree (profile);
  ms = flame_profile_get_ms_per_weight (profile, column,
                                        default_interval_ms > 0 ? default_interval_ms : 1.0);
  self->column = column;
  self->ms_per_weight = ms;

  self->weight = g_new (gdouble, tree->n_nodes);
  self->klass = g_new0 (guint8, tree->n_nodes);
  for (guint32 n = 0; n < tree->n_nodes; n++)
    self->weight[n] = tree->total[column][n] * ms;
  build_children (self);

  return self;
}

FlameView
flame_layout_source_get_view (FlameLayoutSource *self)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), FLAME_VIEW_DIFFERENTIAL);
  return self->view;
}

/* (nullable): %NULL for a single profile */
FlameDiff *
flame_layout_source_get_diff (FlameLayoutSource *self)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), NULL);
  return self->diff;
}

/* What the weights are in: ms, bytes or a count. */
FlameQuantity
flame_layout_source_get_quantity (FlameLayoutSource *self)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), FLAME_QUANTITY_TIME);
  return self->diff != NULL ? flame_diff_get_quantity (self->diff)
                            : flame_profile_get_quantity (self->profile);
}

const FlameTree *
flame_layout_source_get_tree (FlameLayoutSource *self)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), NULL);
  return self->tree;
}

FlameFrames *
flame_layout_source_get_frames (FlameLayoutSource *self)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), NULL);
  return self->frames;
}

/* Width of @node in this view, in ms (0: not drawn). */
gdouble
flame_layout_source_get_weight (FlameLayoutSource *self,
                                guint32            node)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), 0);
  g_return_val_if_fail (node < self->tree->n_nodes, 0);
  return self->weight[node];
}

FlameChange
flame_layout_source_get_class (FlameLayoutSource *self,
                               guint32            node)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), FLAME_CHANGE_NEUTRAL);
  g_return_val_if_fail (node < self->tree->n_nodes, FLAME_CHANGE_NEUTRAL);
  return self->klass[node];
}

/* Single view: @node's self time in ms (the width is its total). */
gdouble
flame_layout_source_get_self_ms (FlameLayoutSource *self,
                                 guint32            node)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), 0);
  g_return_val_if_fail (node < self->tree->n_nodes, 0);
  if (self->view == FLAME_VIEW_SINGLE)
    return self->tree->self[self->column][node] * self->ms_per_weight;
  return self->tree->self[FLAME_DIFF_CURRENT][node];
}

/* The function name of @node; "all" for the root. */
const char *
flame_layout_source_get_name (FlameLayoutSource *self,
                              guint32            node)
{
  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), NULL);
  g_return_val_if_fail (node < self->tree->n_nodes, NULL);
  if (node == FLAME_TREE_ROOT)
    return "all";
  return flame_frames_get_name (self->frames, self->tree->nodes[node].frame);
}

/**
 * flame_layout_source_find:
 * @spec: "a;b;c" (a path of function names from the root) or "name"
 *
 * The node a path names, or the widest node in this view with that
 * function name. Nodes of width 0 are not found. Linear in the tree for a
 * bare name.
 *
 * Returns: the node, or %FLAME_TREE_NONE
 */
guint32
flame_layout_source_find (FlameLayoutSource *self,
                          const char        *spec)
{
  guint32 best = FLAME_TREE_NONE;

  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (self), FLAME_TREE_NONE);
  g_return_val_if_fail (spec != NULL, FLAME_TREE_NONE);

  if (strchr (spec, ';') != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (spec, ";", -1);
      guint32 node = FLAME_TREE_ROOT;

      for (guint i = 0; parts[i] != NULL; i++)
        {
          guint32 found = FLAME_TREE_NONE;

          if (parts[i][0] == 0)
            continue;
          for (guint32 c = self->child_start[node]; c < self->child_start[node + 1]; c++)
            if (strcmp (flame_layout_source_get_name (self, self->children[c]), parts[i]) == 0)
              {
                found = self->children[c];
                break;
              }
          if (found == FLAME_TREE_NONE)
            return FLAME_TREE_NONE;
          node = found;
        }
      return node;
    }

  for (guint32 n = 1; n < self->tree->n_nodes; n++)
    if (self->weight[n] > 0 &&
        (best == FLAME_TREE_NONE || self->weight[n] > self->weight[best]) &&
        strcmp (flame_layout_source_get_name (self, n), spec) == 0)
      best = n;
  return best;
}

gsize
flame_layout_source_memory (FlameLayoutSource *self)
{
  guint32 n = self->tree->n_nodes;

  /* a source that borrows its widths and children owns its classes only */
  if (self->shape_owner != NULL)
    return sizeof *self + n;
  return sizeof *self + (gsize) n * (2 * sizeof (gdouble) + 1 + sizeof (guint32)) +
         ((gsize) self->child_start[n] + 1) * sizeof (guint32);
}

/* -- layout ---------------------------------------------------------- */

struct _FlameLayout
{
  FlameLayoutSource  *source;
  FlameLayoutOptions  options;
  GArray             *frames;    /* FlameLayoutFrame, by (depth, x) */
  GArray             *rows;      /* guint: first frame of each depth, + end */
  gdouble             height;
};

void
flame_layout_options_init (FlameLayoutOptions *options)
{
  *options = (FlameLayoutOptions) {
    .width = 1200,
    .row_height = 17,
    .min_height = 0,
    .min_width = 0.5,
    .zoom = FLAME_TREE_ROOT,
    .orientation = FLAME_ORIENTATION_FLAME,
  };
}

static int
compare_by_name (const void *a,
                 const void *b,
                 void       *data)
{
  FlameLayoutSource *source = data;
  guint32 na = *(const guint32 *) a;
  guint32 nb = *(const guint32 *) b;
  const FlameFrame *fa = flame_frames_get (source->frames, source->tree->nodes[na].frame);
  const FlameFrame *fb = flame_frames_get (source->frames, source->tree->nodes[nb].frame);
  int r;

  if (fa != fb)
    {
      FlameStrings *strings = flame_frames_get_strings (source->frames);

      if (fa->name != fb->name &&
          (r = strcmp (flame_strings_get (strings, fa->name),
                       flame_strings_get (strings, fb->name))) != 0)
        return r;
      if (fa->file != fb->file &&
          (r = strcmp (flame_strings_get (strings, fa->file),
                       flame_strings_get (strings, fb->file))) != 0)
        return r;
    }
  return na < nb ? -1 : na > nb;
}

static inline void
emit (FlameLayout *self,
      guint32      node,
      guint32      depth,
      gdouble      x,
      gdouble      width,
      guint8       klass,
      guint8       flags,
      guint32      n_merged)
{
  FlameLayoutFrame f = {
    .node = node, .depth = depth, .x = x, .width = width,
    .klass = klass, .flags = flags, .n_merged = n_merged,
  };

  g_array_append_val (self->frames, f);
}

/**
 * flame_layout_new:
 *
 * Lays out @source for @options (see the top of this file for what is
 * merged or skipped). The zoom root and its ancestors are drawn full
 * width; a zoom node that is not in this view falls back to the root.
 */
/* the options with out-of-range values replaced by usable ones */
static void
sanitize_options (FlameLayoutOptions *options)
{
  if (!(options->row_height >= 1))
    options->row_height = 17;
  if (!(options->width > 0))
    options->width = 1;
  if (!(options->min_width >= 0))
    options->min_width = 0;
}

/* the zoom root's ancestors (root first) at full width, then the zoom
 * root itself */
static void
emit_zoom_path (FlameLayout *self,
                guint32      zoom)
{
  FlameLayoutSource *source = self->source;
  const FlameTree *tree = source->tree;
  guint32 zdepth = tree->nodes[zoom].depth;
  gdouble width = self->options.width;

  g_array_set_size (self->frames, zdepth);
  for (guint32 a = tree->nodes[zoom].parent, d = zdepth; d > 0; a = tree->nodes[a].parent)
    {
      d--;
      g_array_index (self->frames, FlameLayoutFrame, d) = (FlameLayoutFrame) {
        .node = a, .depth = d, .x = 0, .width = width,
        .klass = source->klass[a], .flags = FLAME_LAYOUT_FRAME_ANCESTOR,
      };
    }
  emit (self, zoom, zdepth, 0, width, source->klass[zoom], FLAME_LAYOUT_FRAME_ZOOM_ROOT, 0);
}

/* The children of @f wide enough to see, in name order, then one merged
 * frame for the narrow rest when that is wide enough itself. Children
 * are sorted by weight, so the visible ones are a prefix. */
static void
emit_children (FlameLayout            *self,
               const FlameLayoutFrame *f,
               gdouble                 scale,
               GArray                 *scratch)
{
  FlameLayoutSource *source = self->source;
  gdouble min_w = self->options.min_width;
  guint32 s = source->child_start[f->node];
  guint32 e = source->child_start[f->node + 1];
  guint32 k = s;
  gdouble x = f->x, shown = 0;

  while (k < e && source->weight[source->children[k]] * scale >= min_w)
    k++;
  if (k == s && e == s)
    return;

  g_array_set_size (scratch, 0);
  g_array_append_vals (scratch, source->children + s, k - s);
  if (scratch->len > 1)
    qsort_r (scratch->data, scratch->len, sizeof (guint32), compare_by_name, source);
  for (guint c = 0; c < scratch->len; c++)
    {
      guint32 child = g_array_index (scratch, guint32, c);
      gdouble w = source->weight[child] * scale;

      emit (self, child, f->depth + 1, x, w, source->klass[child], 0, 0);
      x += w;
      shown += source->weight[child];
    }
  if (k < e)
    {
      gdouble rest = MAX (0, source->child_sum[f->node] - shown) * scale;

      if (rest >= min_w && rest > 0)
        emit (self, f->node, f->depth + 1, x, MIN (rest, f->x + f->width - x),
              FLAME_CHANGE_NEUTRAL, FLAME_LAYOUT_FRAME_MERGED, e - k);
    }
}

/* the row index (depths never decrease along the frames), the height and
 * each frame's y */
static void
index_rows (FlameLayout *self)
{
  guint n_rows = 0;

  for (guint i = 0; i < self->frames->len; i++)
    {
      guint32 d = g_array_index (self->frames, FlameLayoutFrame, i).depth;

      while (n_rows <= d)
        {
          g_array_append_val (self->rows, i);
          n_rows++;
        }
    }
  g_array_append_val (self->rows, self->frames->len);

  self->height = MAX (n_rows * self->options.row_height, self->options.min_height);
  for (guint i = 0; i < self->frames->len; i++)
    {
      FlameLayoutFrame *f = &g_array_index (self->frames, FlameLayoutFrame, i);

      f->y = flame_layout_row_y (self, f->depth);
    }
}

FlameLayout *
flame_layout_new (FlameLayoutSource        *source,
                  const FlameLayoutOptions *options)
{
  FlameLayout *self;
  FlameLayoutOptions defaults;
  const FlameTree *tree;
  g_autoptr(GArray) scratch = NULL;
  guint32 zoom;
  gdouble scale;

  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (source), NULL);

  if (options == NULL)
    {
      flame_layout_options_init (&defaults);
      options = &defaults;
    }

  self = g_new0 (FlameLayout, 1);
  self->source = g_object_ref (source);
  self->options = *options;
  sanitize_options (&self->options);
  self->frames = g_array_new (FALSE, FALSE, sizeof (FlameLayoutFrame));
  self->rows = g_array_new (FALSE, FALSE, sizeof (guint));

  tree = source->tree;
  zoom = self->options.zoom;
  if (zoom >= tree->n_nodes || (zoom != FLAME_TREE_ROOT && !(source->weight[zoom] > 0)))
    zoom = FLAME_TREE_ROOT;
  self->options.zoom = zoom;
  emit_zoom_path (self, zoom);

  /* breadth first: the frames array is the queue, each frame's children
   * appended after it */
  scale = source->weight[zoom] > 0 ? self->options.width / source->weight[zoom] : 0;
  scratch = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = tree->nodes[zoom].depth; scale > 0 && i < self->frames->len; i++)
    {
      FlameLayoutFrame f = g_array_index (self->frames, FlameLayoutFrame, i);

      if (!(f.flags & FLAME_LAYOUT_FRAME_MERGED))
        emit_children (self, &f, scale, scratch);
    }

  index_rows (self);
  return self;
}

void
flame_layout_free (FlameLayout *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->source);
  g_array_unref (self->frames);
  g_array_unref (self->rows);
  g_free (self);
}

FlameLayoutSource *
flame_layout_get_source (FlameLayout *self)
{
  return self->source;
}

const FlameLayoutOptions *
flame_layout_get_options (FlameLayout *self)
{
  return &self->options;
}

guint
flame_layout_get_n_frames (FlameLayout *self)
{
  return self->frames->len;
}

const FlameLayoutFrame *
flame_layout_get_frame (FlameLayout *self,
                        guint        i)
{
  g_return_val_if_fail (i < self->frames->len, NULL);
  return &g_array_index (self->frames, FlameLayoutFrame, i);
}

guint
flame_layout_get_n_rows (FlameLayout *self)
{
  return self->rows->len - 1;
}

/* The frames of row @depth are @first … @first + @n − 1, by x. */
void
flame_layout_get_row (FlameLayout *self,
                      guint        depth,
                      guint       *first,
                      guint       *n)
{
  if (depth + 1 >= self->rows->len)
    {
      *first = self->frames->len;
      *n = 0;
      return;
    }
  *first = g_array_index (self->rows, guint, depth);
  *n = g_array_index (self->rows, guint, depth + 1) - *first;
}

gdouble
flame_layout_get_height (FlameLayout *self)
{
  return self->height;
}

/* Top edge of row @depth. */
gdouble
flame_layout_row_y (FlameLayout *self,
                    guint        depth)
{
  if (self->options.orientation == FLAME_ORIENTATION_ICICLE)
    return depth * self->options.row_height;
  return self->height - (depth + 1.0) * self->options.row_height;
}

/* (nullable): the text for frame @i; %NULL for a merged frame */
const char *
flame_layout_get_label (FlameLayout *self,
                        guint        i)
{
  const FlameLayoutFrame *f = flame_layout_get_frame (self, i);

  if (f == NULL || (f->flags & FLAME_LAYOUT_FRAME_MERGED))
    return NULL;
  return flame_layout_source_get_name (self->source, f->node);
}

/* for flame_partition_point: @entry, a FlameLayoutFrame, starts at or
 * before the x of @key, a gdouble */
static gboolean
frame_starts_at_or_before (gconstpointer entry,
                           gconstpointer key)
{
  return ((const FlameLayoutFrame *) entry)->x <= *(const gdouble *) key;
}

/**
 * flame_layout_hit_test:
 *
 * The frame whose cell (gaps included) holds the point, by a binary
 * search in its row: O(log n).
 *
 * Returns: the frame index, or -1
 */
gint
flame_layout_hit_test (FlameLayout *self,
                       gdouble      x,
                       gdouble      y)
{
  gdouble rh = self->options.row_height;
  gdouble d;
  guint depth, first, n;
  gsize lo;
  const FlameLayoutFrame *f;

  if (!(y >= 0 && y < self->height && x >= 0 && x < self->options.width))
    return -1;
  if (self->options.orientation == FLAME_ORIENTATION_ICICLE)
    d = floor (y / rh);
  else
    d = ceil ((self->height - y) / rh) - 1;
  if (d < 0 || d >= flame_layout_get_n_rows (self))
    return -1;
  depth = (guint) d;

  flame_layout_get_row (self, depth, &first, &n);
  /* one past the last frame with f->x <= x */
  lo = flame_partition_point (&g_array_index (self->frames, FlameLayoutFrame, first), n,
                              sizeof (FlameLayoutFrame), frame_starts_at_or_before, &x);
  if (lo == 0)
    return -1;
  f = &g_array_index (self->frames, FlameLayoutFrame, first + lo - 1);
  if (x < f->x + f->width)
    return (gint) (first + lo - 1);
  return -1;
}

/* The frame showing @node (not a merged one), or -1. Linear. */
gint
flame_layout_find_node (FlameLayout *self,
                        guint32      node)
{
  for (guint i = 0; i < self->frames->len; i++)
    {
      const FlameLayoutFrame *f = &g_array_index (self->frames, FlameLayoutFrame, i);

      if (f->node == node && !(f->flags & FLAME_LAYOUT_FRAME_MERGED))
        return (gint) i;
    }
  return -1;
}

/**
 * flame_layout_search:
 * @needle: (nullable): text to look for in function names, ignoring
 *   ASCII case; %NULL or "" clears the search
 *
 * Flags the frames whose function name contains @needle with
 * %FLAME_LAYOUT_FRAME_MATCH. Linear in the frames laid out.
 *
 * Returns: the number of matching frames
 */
guint
flame_layout_search (FlameLayout *self,
                     const char  *needle)
{
  guint count = 0;
  gboolean active = needle != NULL && needle[0] != 0;

  for (guint i = 0; i < self->frames->len; i++)
    {
      FlameLayoutFrame *f = &g_array_index (self->frames, FlameLayoutFrame, i);
      const char *label = flame_layout_get_label (self, i);

      f->flags &= ~FLAME_LAYOUT_FRAME_MATCH;
      if (active && label != NULL && f->node != FLAME_TREE_ROOT &&
          strcasestr (label, needle) != NULL)
        {
          f->flags |= FLAME_LAYOUT_FRAME_MATCH;
          count++;
        }
    }
  return count;
}

/**
 * flame_layout_search_func:
 * @func: (nullable): says whether a node matches; %NULL clears the search
 *
 * Like flame_layout_search(), with the match decided by @func (a regular
 * expression, a set of functions), so the painter fades and outlines
 * whatever the caller looks for. The root and merged frames never match.
 *
 * Returns: the number of matching frames
 */
guint
flame_layout_search_func (FlameLayout          *self,
                          FlameLayoutMatchFunc  func,
                          gpointer              user_data)
{
  guint count = 0;

  for (guint i = 0; i < self->frames->len; i++)
    {
      FlameLayoutFrame *f = &g_array_index (self->frames, FlameLayoutFrame, i);

      f->flags &= ~FLAME_LAYOUT_FRAME_MATCH;
      if (func != NULL && f->node != FLAME_TREE_ROOT &&
          !(f->flags & FLAME_LAYOUT_FRAME_MERGED) &&
          func (self->source, f->node, user_data))
        {
          f->flags |= FLAME_LAYOUT_FRAME_MATCH;
          count++;
        }
    }
  return count;
}

gsize
flame_layout_memory (FlameLayout *self)
{
  return sizeof *self + self->frames->len * sizeof (FlameLayoutFrame) +
         self->rows->len * sizeof (guint);
}

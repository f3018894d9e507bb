/* flame-diff.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-alloc.h"
#include "flame-diff.h"
#include "flame-merge.h"
#include "flame-error.h"
#include "flame-file-match.h"
#include "flame-node-stats.h"

struct _FlameDiff
{
  GObject           parent_instance;

  FlameDiffOptions  options;
  FlameProfile     *baseline;
  FlameProfile     *current;   /* == baseline for a ready-made pair */
  gboolean          pair;
  FlameFrames      *frames;
  FlameTree        *tree;

  gdouble           total_ms[2];
  gdouble           samples[2];
  gdouble           interval_ms[2];
  gboolean          interval_assumed[2];
  gdouble           ratio;     /* sampled time current / baseline */
  gdouble           scale;     /* what the baseline is multiplied by */
  guint             elided_count;
  guint             elided_stacks;

  GMutex            lazy_lock;
  FlameTree        *inverted;
  gdouble          *elided_weight;
  /* the tree's per-function weights, unscaled, made on first use
   * (tree_function_weights()): a refcounted block of self and total of
   * both sides, @tree_fn_frames each */
  gdouble          *tree_fn;
  guint             tree_fn_frames;
  GHashTable       *thread_frames;  /* frames that name a thread on a side */

  /* exact per-function self/total by diff frame, in the quantity, when
   * both sides carry them (flame_profile_set_function_weights()) */
  GArray           *fn_self[2];
  GArray           *fn_total[2];

  /* each side's profile frame → diff frame, for per-run tables */
  guint32          *frame_map[2];
  guint             n_mapped[2];

  /* repeated runs per call path (flame_diff_new_with_runs()): of the
   * tree, and of the inverted tree once it is built */
  FlameNodeStats   *stats;
  FlameNodeStats   *inverted_stats;
  gdouble           runs_alpha;

  /* flame_diff_new_reusing(): the diff whose merged tree, frames and
   * tables this one borrows; and whether its lazily made inverted tree
   * and elided weights are borrowed too */
  FlameDiff        *shared;
  gboolean          inverted_borrowed;
  gboolean          elided_borrowed;

  /* the nodes the tree is sized for (diff_create()), and whether it may
   * take the baseline profile's arrays (flame_diff_new_taking_baseline()) */
  guint32           capacity;
  gboolean          take_baseline;
};

G_DEFINE_FINAL_TYPE (FlameDiff, flame_diff, G_TYPE_OBJECT)

static void
flame_diff_finalize (GObject *object)
{
  FlameDiff *self = (FlameDiff *) object;
  gsize n_nodes = self->tree != NULL ? self->tree->n_nodes : 0;

  if (self->shared != NULL)
    {
      /* what flame_diff_new_reusing() borrowed is the shared diff's to free */
      self->frames = NULL;
      self->tree = NULL;
      for (guint c = 0; c < 2; c++)
        self->frame_map[c] = NULL;
      if (self->inverted_borrowed)
        self->inverted = NULL;
      if (self->elided_borrowed)
        self->elided_weight = NULL;
      g_clear_object (&self->shared);
    }
  g_clear_object (&self->baseline);
  g_clear_object (&self->current);
  g_clear_pointer (&self->frames, flame_frames_free);
  g_clear_pointer (&self->tree, flame_tree_free);
  g_clear_pointer (&self->inverted, flame_tree_free);
  flame_free_large (g_steal_pointer (&self->elided_weight), n_nodes * sizeof (gdouble));
  g_clear_pointer (&self->tree_fn, g_rc_box_release);
  g_clear_pointer (&self->thread_frames, g_hash_table_unref);
  g_clear_pointer (&self->stats, flame_node_stats_free);
  g_clear_pointer (&self->inverted_stats, flame_node_stats_free);
  for (guint c = 0; c < 2; c++)
    {
      g_clear_pointer (&self->fn_self[c], g_array_unref);
      g_clear_pointer (&self->fn_total[c], g_array_unref);
      g_clear_pointer (&self->frame_map[c], g_free);
    }
  g_mutex_clear (&self->lazy_lock);

  G_OBJECT_CLASS (flame_diff_parent_class)->finalize (object);
}

static void
flame_diff_class_init (FlameDiffClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = flame_diff_finalize;
}

static void
flame_diff_init (FlameDiff *self)
{
  g_mutex_init (&self->lazy_lock);
}

void
flame_diff_options_init (FlameDiffOptions *options)
{
  *options = (FlameDiffOptions) {
    .match = FLAME_MATCH_NAME_FILE,
    .strip_hex = FALSE,
    .exact_paths = FALSE,
    .normalize = FLAME_NORMALIZE_ABSOLUTE,
    .metric = FLAME_METRIC_SELF,
    .significance = 0,
    .default_interval_ms = 1.0,
  };
}

const char *
flame_match_to_string (FlameMatch match)
{
  switch (match)
    {
    case FLAME_MATCH_NAME:           return "name";
    case FLAME_MATCH_NAME_FILE_LINE: return "name+file+line";
    case FLAME_MATCH_NAME_FILE:
    default:                         return "name+file";
    }
}

gboolean
flame_match_from_string (const char *str,
                         FlameMatch *match)
{
  static const FlameMatch all[] = {
    FLAME_MATCH_NAME, FLAME_MATCH_NAME_FILE, FLAME_MATCH_NAME_FILE_LINE
  };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (g_strcmp0 (str, flame_match_to_string (all[i])) == 0)
      {
        *match = all[i];
        return TRUE;
      }
  return FALSE;
}

const char *
flame_normalize_to_string (FlameNormalize normalize)
{
  return normalize == FLAME_NORMALIZE_TOTAL ? "total" : "absolute";
}

/* "none", the name before absolute time became the default, is read as
 * "absolute" (old settings, scripts) */
gboolean
flame_normalize_from_string (const char     *str,
                             FlameNormalize *normalize)
{
  if (g_strcmp0 (str, "absolute") == 0 || g_strcmp0 (str, "none") == 0)
    *normalize = FLAME_NORMALIZE_ABSOLUTE;
  else if (g_strcmp0 (str, "total") == 0)
    *normalize = FLAME_NORMALIZE_TOTAL;
  else
    return FALSE;
  return TRUE;
}

static inline gboolean
is_hex (char c)
{
  return g_ascii_isxdigit (c);
}

/**
 * flame_strip_hex:
 *
 * Rewrites every `0x1f2e` to `0x...` and drops `+0x1f` offsets, so
 * addresses that differ between runs (ASLR, JIT) do not split a frame.
 *
 * Returns: (transfer full) (nullable): the new name, or %NULL when the
 *   name has nothing to strip
 */
char *
flame_strip_hex (const char *name,
                 gsize       len,
                 gsize      *out_len)
{
  GString *out = NULL;
  gsize copied = 0;

  for (gsize i = 0; i + 2 < len; i++)
    {
      gsize j;
      gboolean offset;

      if (name[i] != '0' || (name[i + 1] != 'x' && name[i + 1] != 'X') ||
          !is_hex (name[i + 2]))
        continue;
      /* only a whole token: not the tail of "a0x12" */
      if (i > 0 && g_ascii_isalnum (name[i - 1]))
        continue;
      for (j = i + 2; j < len && is_hex (name[j]); j++)
        ;
      offset = i > 0 && name[i - 1] == '+';
      if (out == NULL)
        out = g_string_sized_new (len);
      g_string_append_len (out, name + copied, (offset ? i - 1 : i) - copied);
      if (!offset)
        g_string_append (out, "0x...");
      copied = j;
      i = j - 1;
    }

  if (out == NULL)
    return NULL;
  g_string_append_len (out, name + copied, len - copied);
  *out_len = out->len;
  return g_string_free (out, FALSE);
}

/* Maps each frame of @profile to the diff's key frame. @files, when
 * given, names the file of another checkout a file of @profile stands
 * for: its string id in @files_strings (flame_file_match_new()). */
static guint32 *
map_frames (FlameDiff    *self,
            FlameProfile *profile,
            GHashTable   *files,
            FlameStrings *files_strings,
            gboolean     *injective)
{
  FlameFrames *src = flame_profile_get_frames (profile);
  FlameStrings *src_strings = flame_frames_get_strings (src);
  FlameStrings *dst_strings = flame_frames_get_strings (self->frames);
  guint n = flame_frames_count (src);
  guint32 *map = g_new (guint32, MAX (n, 1));

  for (guint32 f = 0; f < n; f++)
    {
      const FlameFrame *fr = flame_frames_get (src, f);
      const char *name = flame_strings_get (src_strings, fr->name);
      gsize name_len = flame_strings_get_len (src_strings, fr->name);
      g_autofree char *stripped = NULL;
      guint32 file = 0;
      guint32 line = 0;
      guint32 name_id;

      if (self->options.strip_hex)
        {
          gsize stripped_len;
          stripped = flame_strip_hex (name, name_len, &stripped_len);
          if (stripped != NULL)
            {
              name = stripped;
              name_len = stripped_len;
            }
        }
      name_id = flame_strings_intern (dst_strings, name, name_len);

      if (self->options.match != FLAME_MATCH_NAME && fr->file != 0)
        {
          gpointer other;

          if (files != NULL &&
              g_hash_table_lookup_extended (files, GUINT_TO_POINTER (fr->file), NULL, &other))
            file = flame_strings_intern (dst_strings,
                                         flame_strings_get (files_strings,
                                                            GPOINTER_TO_UINT (other)),
                                         flame_strings_get_len (files_strings,
                                                                GPOINTER_TO_UINT (other)));
          else
            file = flame_strings_intern (dst_strings,
                                         flame_strings_get (src_strings, fr->file),
                                         flame_strings_get_len (src_strings, fr->file));
        }
      if (self->options.match == FLAME_MATCH_NAME_FILE_LINE)
        line = fr->line;

      /* a frame is its name (and file, line): kernel/JIT flags are
       * presentation, and so is the thread flag, since the process name
       * perf script puts at the root is the first frame of the folded
       * file collapsed from it, where nothing marks it. The report still
       * knows it for a thread (flame_diff_is_thread_frame()). */
      map[f] = flame_frames_intern (self->frames, name_id, file, line, 0);
      if (fr->flags & FLAME_FRAME_THREAD)
        g_hash_table_add (self->thread_frames, GUINT_TO_POINTER (map[f]));
    }
  /* every source frame got a key frame of its own */
  {
    g_autofree guint8 *taken = g_new0 (guint8, MAX (flame_frames_count (self->frames), 1));

    *injective = TRUE;
    for (guint32 f = 0; f < n && *injective; f++)
      *injective = taken[map[f]]++ == 0;
  }
  return map;
}

/* how many nodes ahead merge_tree() prefetches */
#define MERGE_AHEAD 16

typedef FlameMappedNode MappedNode;

/* Adds @profile's exact per-function weights of @src_col, converted like
 * the tree's, to the diff's key frames of column @dst_col. Two source
 * frames can share a key (name matching, hex stripping): their weights
 * add up, as their tree nodes do. */
static void
merge_function_weights (FlameDiff     *self,
                        FlameProfile  *profile,
                        const guint32 *frame_map,
                        guint          src_col,
                        guint          dst_col,
                        gdouble        ms)
{
  guint n = flame_frames_count (flame_profile_get_frames (profile));

  if (!flame_profile_has_function_weights (profile))
    return;
  if (self->fn_self[dst_col] == NULL)
    {
      self->fn_self[dst_col] = g_array_new (FALSE, TRUE, sizeof (gdouble));
      self->fn_total[dst_col] = g_array_new (FALSE, TRUE, sizeof (gdouble));
    }
  for (guint32 f = 0; f < n; f++)
    {
      gdouble fs, ft;
      guint32 d = frame_map[f];

      flame_profile_get_function_weights (profile, src_col, f, &fs, &ft);
      if (fs == 0 && ft == 0)
        continue;
      if (d >= self->fn_self[dst_col]->len)
        {
          g_array_set_size (self->fn_self[dst_col], d + 1);
          g_array_set_size (self->fn_total[dst_col], d + 1);
        }
      g_array_index (self->fn_self[dst_col], gdouble, d) += fs * ms;
      g_array_index (self->fn_total[dst_col], gdouble, d) += ft * ms;
    }
}

/* Both sides' weights summed over the tree, in one walk (the report's
 * longest step on a large tree), made once: diffs that share the tree
 * share them too. Self of both sides, then total of both sides. */
static const gdouble *
tree_function_weights (FlameDiff *self,
                       guint     *n_frames)
{
  gdouble *fn = g_atomic_pointer_get (&self->tree_fn);

  if (fn == NULL)
    {
      g_mutex_lock (&self->lazy_lock);
      if (self->tree_fn == NULL)
        {
          guint n = flame_frames_count (self->frames);
          const guint columns[2] = { FLAME_DIFF_BASELINE, FLAME_DIFF_CURRENT };
          gdouble *selfs[2], *totals[2];

          fn = g_rc_box_alloc0 (sizeof (gdouble) * 4 * MAX (n, 1));
          for (guint c = 0; c < 2; c++)
            {
              selfs[c] = fn + (gsize) c * n;
              totals[c] = fn + (gsize) (2 + c) * n;
            }
          flame_tree_function_weights_columns (self->tree, n, 2, columns, selfs, totals);
          self->tree_fn_frames = n;
          g_atomic_pointer_set (&self->tree_fn, fn);
        }
      fn = self->tree_fn;
      g_mutex_unlock (&self->lazy_lock);
    }
  *n_frames = self->tree_fn_frames;
  return fn;
}

/**
 * flame_diff_get_function_weights:
 * @self_out: (array length=n_frames): filled with each diff frame's self
 * @total_out: (array length=n_frames): and total, unscaled
 *
 * The per-function weights of @column: exact when both profiles carry
 * them (call-graph formats: callgrind, pstats), else summed over the tree
 * (self over a frame's nodes, total once per stack: see
 * flame_tree_function_weights()), which is walked once per tree.
 *
 * Returns: whether the weights are the profiles' exact ones
 */
gboolean
flame_diff_get_function_weights (FlameDiff *self,
                                 guint      column,
                                 guint      n_frames,
                                 gdouble   *self_out,
                                 gdouble   *total_out)
{
  const gdouble *fn;
  guint n;

  g_return_val_if_fail (FLAME_IS_DIFF (self), FALSE);
  g_return_val_if_fail (column < 2, FALSE);

  if (self->fn_self[0] != NULL && self->fn_self[1] != NULL)
    {
      for (guint32 f = 0; f < n_frames; f++)
        {
          gboolean have = f < self->fn_self[column]->len;
          self_out[f] = have ? g_array_index (self->fn_self[column], gdouble, f) : 0;
          total_out[f] = have ? g_array_index (self->fn_total[column], gdouble, f) : 0;
        }
      return TRUE;
    }
  fn = tree_function_weights (self, &n);
  for (guint32 f = 0; f < n_frames; f++)
    {
      self_out[f] = f < n ? fn[(gsize) column * n + f] : 0;
      total_out[f] = f < n ? fn[(gsize) (2 + column) * n + f] : 0;
    }
  return FALSE;
}

/**
 * flame_diff_get_frame_map:
 * @side: FLAME_DIFF_BASELINE or FLAME_DIFF_CURRENT
 * @n_frames: (out): the length of the map: the frames of that side's profile
 *
 * The one mapping from a side's profile frames to the diff's frames
 * (name matching, hex stripping, files of another checkout applied);
 * several profile frames can share a diff frame. Tables kept per
 * profile frame (the runs of a side) go through it.
 *
 * Returns: (transfer none) (array length=n_frames): the diff frame of
 *   each profile frame
 */
const guint32 *
flame_diff_get_frame_map (FlameDiff *self,
                          guint      side,
                          guint     *n_frames)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self) && side < 2, NULL);
  *n_frames = self->n_mapped[side];
  return self->frame_map[side];
}

/* merge_tree's first profile into an empty tree: its shape copied, its
 * weights converted, and the node indices kept */
static void
copy_first_tree (FlameDiff       *self,
                 const FlameTree *src,
                 const guint32   *frame_map,
                 guint            src_col,
                 guint            dst_col,
                 gboolean         both,
                 gdouble          ms0,
                 gdouble          ms1,
                 guint32        **keep_map)
{
  flame_tree_copy_structure (self->tree, src, frame_map);
  for (guint32 n = 1; n < src->n_nodes; n++)
    {
      self->tree->self[dst_col][n] = src->self[src_col][n] * ms0;
      if (both)
        self->tree->self[dst_col + 1][n] = src->self[src_col + 1][n] * ms1;
    }
  if (keep_map != NULL)
    {
      *keep_map = flame_alloc_huge (sizeof (guint32) * MAX (src->n_nodes, 1));
      for (guint32 n = 0; n < src->n_nodes; n++)
        (*keep_map)[n] = n;
    }
}

/* merge_tree's first profile, taken whole (flame_tree_take_arrays()):
 * its weights converted in place, as copy_first_tree() converts them */
static void
take_first_tree (FlameDiff *self,
                 FlameTree *src,
                 guint      dst_col,
                 gdouble    ms)
{
  FlameTree *tree = self->tree;
  gdouble *w;

  flame_tree_take_arrays (tree, src, dst_col, self->capacity);
  w = tree->self[dst_col];
  w[FLAME_TREE_ROOT] = 0;
  if (ms != 1)
    for (guint32 n = 1; n < tree->n_nodes; n++)
      w[n] *= ms;
}

/* The tree sized for both sides, once (a tree that took its first side
 * is sized by then) */
static void
reserve_tree (FlameDiff *self)
{
  if (self->tree->alloc_nodes < self->capacity)
    flame_tree_reserve_nodes (self->tree, self->capacity);
}

static gboolean
frame_map_is_identity (const guint32 *frame_map,
                       guint          n_frames)
{
  for (guint f = 0; f < n_frames; f++)
    if (frame_map[f] != f)
      return FALSE;
  return TRUE;
}

/* Nodes are in the order a loader made them, so parents and index slots
 * are all over memory: the mapping of a parent is fetched MERGE_AHEAD * 2
 * nodes ahead of node @n, and once it is there (and the parent mapped: it
 * comes before), the index slot of that node, so that the misses of many
 * nodes overlap instead of queueing. */
static inline void
prefetch_ahead (FlameTree        *tree,
                const FlameTree  *src,
                const MappedNode *node_map,
                const guint32    *frame_map,
                guint32           n,
                guint             dst_col)
{
  const FlameNode *ahead = &src->nodes[n + MERGE_AHEAD];

  __builtin_prefetch (&node_map[src->nodes[n + 2 * MERGE_AHEAD].parent]);
  if (ahead->parent < n)
    flame_tree_prefetch (tree, flame_tree_path_hash (node_map[ahead->parent].hash,
                                                     frame_map[ahead->frame], ahead->depth));
  ahead = &src->nodes[n + MERGE_AHEAD / 2];
  if (ahead->parent < n)
    {
      guint32 ha = flame_tree_path_hash (node_map[ahead->parent].hash, frame_map[ahead->frame],
                                         ahead->depth);
      const FlameTreeSlot *slot = &tree->slots[ha & tree->mask];

      if (slot->tag == ha && slot->node1 != 0)
        {
          __builtin_prefetch (&tree->nodes[slot->node1 - 1]);
          __builtin_prefetch (&tree->self[dst_col][slot->node1 - 1], 1);
        }
    }
}

/* merge_tree()'s nodes on one thread: each one found or added in node
 * order, with the lookups of the nodes ahead prefetched */
static gboolean
merge_nodes (FlameDiff               *self,
             const FlameTree         *src,
             const FlameMergeColumns *columns,
             MappedNode              *node_map,
             GCancellable            *cancellable,
             GError                 **error)
{
  const guint32 *frame_map = columns->frame_map;

  node_map[FLAME_TREE_ROOT] = (MappedNode) { FLAME_TREE_ROOT, FLAME_TREE_ROOT_HASH };
  for (guint32 n = 1; n < src->n_nodes; n++)
    {
      const FlameNode *node = &src->nodes[n];
      const MappedNode *up = &node_map[node->parent];
      guint32 frame = frame_map[node->frame];
      guint32 h = flame_tree_path_hash (up->hash, frame, node->depth);
      guint32 d;

      if ((n & 0xfffff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;

      if (G_LIKELY (n + 2 * MERGE_AHEAD < src->n_nodes))
        prefetch_ahead (self->tree, src, node_map, frame_map, n, columns->dst_col);

      d = flame_tree_child_hashed (self->tree, up->node, frame, h);
      node_map[n] = (MappedNode) { d, h };
      flame_merge_add_weights (self->tree, src, columns, n, d);
    }
  return TRUE;
}

/* Adds @src's column @src_col (weights converted to ms) into the diff
 * tree's column @dst_col. Parents precede children in the node array, so
 * one forward sweep maps every node. The mapped node keeps its path hash
 * beside it, and a node's depth is its source node's: a lookup needs
 * nothing from the diff tree but the index itself. A large tree whose
 * frames keep keys of their own is probed on two threads
 * (flame_merge_nodes_parallel(): the same tree). With @keep_map, the
 * diff node of every source node is returned there (the runs' tables
 * follow it). */
static gboolean
merge_tree (FlameDiff     *self,
            FlameProfile  *profile,
            guint          src_col,
            guint          dst_col,
            gboolean       both,
            GHashTable    *files,
            FlameStrings  *files_strings,
            guint32      **keep_map,
            GCancellable  *cancellable,
            GError       **error)
{
  FlameTree *src = flame_profile_get_tree (profile);
  gboolean injective;
  guint32 *frame_map = map_frames (self, profile, files, files_strings, &injective);
  g_autofree MappedNode *node_map = NULL;
  gboolean parallel = FALSE, cancelled = FALSE;
  gdouble ms0 = flame_profile_get_ms_per_weight (profile, src_col,
                                                 self->options.default_interval_ms);
  gdouble ms1 = both ? flame_profile_get_ms_per_weight (profile, src_col + 1,
                                                        self->options.default_interval_ms) : 0;
  FlameMergeColumns columns = { frame_map, src_col, dst_col, both ? 2 : 1, { ms0, ms1 } };

  g_free (self->frame_map[dst_col]);
  self->frame_map[dst_col] = frame_map;
  self->n_mapped[dst_col] = flame_frames_count (flame_profile_get_frames (profile));
  if (both)
    {
      self->frame_map[dst_col + 1] = g_memdup2 (frame_map, sizeof (guint32) *
                                                             MAX (self->n_mapped[dst_col], 1));
      self->n_mapped[dst_col + 1] = self->n_mapped[dst_col];
    }
  merge_function_weights (self, profile, frame_map, src_col, dst_col, ms0);
  if (both)
    merge_function_weights (self, profile, frame_map, src_col + 1, dst_col + 1, ms1);

  /* The first profile into an empty tree, with no two frames sharing a
   * key, has nothing to merge: copy its shape and skip the hash lookups
   * (or take it, frames numbered the same, when it is read only once). */
  if (self->tree->n_nodes == 1 && injective)
    {
      gboolean identity = frame_map_is_identity (frame_map, self->n_mapped[dst_col]);

      if (self->take_baseline && identity && !both && keep_map == NULL &&
          src->n_columns == 1)
        {
          take_first_tree (self, src, dst_col, ms0);
          return TRUE;
        }
      reserve_tree (self);
      copy_first_tree (self, src, frame_map, src_col, dst_col, both, ms0, ms1, keep_map);
      /* frames numbered as the profile's: so are the path hashes, and
       * the profile's index (kept from loading) is the copy's */
      if (identity)
        flame_tree_take_index (self->tree, src);
      flame_tree_drop_index (src);
      return TRUE;
    }
  reserve_tree (self);

  /* the profile's index (kept from loading) is not needed to merge it */
  flame_tree_drop_index (src);
  flame_tree_ensure_index (self->tree);
  node_map = flame_alloc_huge (sizeof (MappedNode) * src->n_nodes);
  if (injective && src->n_nodes >= FLAME_MERGE_PARALLEL_MIN && g_get_num_processors () > 1)
    {
      parallel = flame_merge_nodes_parallel (self->tree, src, &columns, node_map, cancellable,
                                             &cancelled);
      if (cancelled)
        {
          g_cancellable_set_error_if_cancelled (cancellable, error);
          return FALSE;
        }
    }
  if (!parallel && !merge_nodes (self, src, &columns, node_map, cancellable, error))
    return FALSE;
  if (keep_map != NULL)
    {
      *keep_map = flame_alloc_huge (sizeof (guint32) * MAX (src->n_nodes, 1));
      for (guint32 n = 0; n < src->n_nodes; n++)
        (*keep_map)[n] = node_map[n].node;
    }
  return TRUE;
}

static void
side_info (FlameDiff    *self,
           FlameProfile *profile,
           guint         src_col,
           guint         dst_col)
{
  self->samples[dst_col] = flame_profile_get_samples (profile, src_col);
  self->total_ms[dst_col] = flame_profile_get_total_ms (profile, src_col,
                                                        self->options.default_interval_ms);
  self->interval_ms[dst_col] =
    flame_profile_get_effective_interval_ms (profile, src_col, self->options.default_interval_ms,
                                             &self->interval_assumed[dst_col]);
}

/* What @profile measures, for messages: "time", "memory (inuse_space/bytes)",
 * "time (event cycles)". */
static char *
describe_measure (FlameProfile *profile)
{
  const char *detail = flame_profile_get_sample_type (profile);

  if (detail == NULL)
    detail = flame_profile_get_event (profile);
  if (detail == NULL)
    return g_strdup_printf ("%s (%s)",
                            flame_quantity_get_noun (flame_profile_get_quantity (profile)),
                            flame_quantity_to_string (flame_profile_get_quantity (profile)));
  return g_strdup_printf ("%s (%s%s)",
                          flame_quantity_get_noun (flame_profile_get_quantity (profile)),
                          flame_profile_get_sample_type (profile) ? "sample type " : "event ",
                          detail);
}

/* An event's name without perf's modifiers: "cycles:u" is still cycles. */
static gsize
event_base_len (const char *event)
{
  return strcspn (event, ":/");
}

/* Comparing bytes with milliseconds, or cycles with instructions, gives a
 * number that means nothing: say which two things differ instead. */
static gboolean
check_comparable (FlameProfile  *baseline,
                  FlameProfile  *current,
                  GError       **error)
{
  const char *tb = flame_profile_get_sample_type (baseline);
  const char *tc = flame_profile_get_sample_type (current);
  const char *eb = flame_profile_get_event (baseline);
  const char *ec = flame_profile_get_event (current);
  const char *what = NULL;

  if (flame_profile_get_quantity (baseline) != flame_profile_get_quantity (current))
    what = "units";
  else if (tb != NULL && tc != NULL && strcmp (tb, tc) != 0)
    what = "sample types";
  else if (eb != NULL && ec != NULL &&
           (event_base_len (eb) != event_base_len (ec) ||
            strncmp (eb, ec, event_base_len (eb)) != 0))
    what = "events";
  if (what == NULL)
    return TRUE;

  {
    g_autofree char *mb = describe_measure (baseline);
    g_autofree char *mc = describe_measure (current);

    g_set_error (error, FLAME_ERROR, FLAME_ERROR_INVALID,
                 "cannot compare profiles of different %s: the baseline %s measures %s, "
                 "the current %s measures %s",
                 what, flame_profile_get_path (baseline), mb, flame_profile_get_path (current), mc);
  }
  return FALSE;
}

/* A 2-column profile alone (a ready-made pair, @current %NULL) or two
 * 1-column ones */
static gboolean
check_columns (FlameProfile  *baseline,
               FlameProfile  *current,
               GError       **error)
{
  if (current == NULL && flame_profile_get_n_columns (baseline) != 2)
    {
      g_set_error (error, FLAME_ERROR, FLAME_ERROR_INVALID,
                   "%s: a single profile needs a second one to compare with",
                   flame_profile_get_path (baseline));
      return FALSE;
    }
  if (current != NULL && (flame_profile_get_n_columns (baseline) != 1 ||
                          flame_profile_get_n_columns (current) != 1))
    {
      g_set_error (error, FLAME_ERROR, FLAME_ERROR_INVALID,
                   "%s: already holds a baseline and a current profile; open it alone",
                   flame_profile_get_path (flame_profile_get_n_columns (baseline) != 1
                                           ? baseline : current));
      return FALSE;
    }
  return TRUE;
}

/* A new diff with @options (%NULL: the defaults), its default interval
 * made positive */
static FlameDiff *
diff_new_with_options (const FlameDiffOptions *options)
{
  FlameDiff *self = g_object_new (FLAME_TYPE_DIFF, NULL);

  if (options != NULL)
    self->options = *options;
  else
    flame_diff_options_init (&self->options);
  if (self->options.default_interval_ms <= 0)
    self->options.default_interval_ms = 1.0;
  return self;
}

/* An empty diff of @baseline and @current (%NULL: @baseline is a pair)
 * with its options, its tree sized for both */
static FlameDiff *
diff_create (FlameProfile           *baseline,
             FlameProfile           *current,
             const FlameDiffOptions *options)
{
  FlameDiff *self = diff_new_with_options (options);
  guint32 nb = flame_profile_get_tree (baseline)->n_nodes;
  guint32 nc = current == NULL ? 0 : flame_profile_get_tree (current)->n_nodes;

  self->baseline = g_object_ref (baseline);
  self->current = g_object_ref (current == NULL ? baseline : current);
  self->pair = current == NULL;
  self->frames = flame_frames_new ();
  self->tree = flame_tree_new (2);
  flame_tree_set_huge_pages (self->tree, TRUE);
  self->thread_frames = g_hash_table_new (NULL, NULL);

  /* Both sides mostly share their shape: size the tree once for the
   * larger one and some paths of the other (when the first side is in:
   * merge_tree()); its index is built once, for that size */
  self->capacity = MAX (nb, nc) + MIN (nb, nc) / 8;
  return self;
}

/* Both sides into the diff tree; with @map_b and @map_c, the diff node
 * of each source node of each side */
static gboolean
merge_sides (FlameDiff     *self,
             guint32      **map_b,
             guint32      **map_c,
             GCancellable  *cancellable,
             GError       **error)
{
  FlameFrames *cur_frames = flame_profile_get_frames (self->current);
  g_autoptr(GHashTable) files = NULL;

  /* a pair holds the current side in its second column */
  side_info (self, self->baseline, 0, FLAME_DIFF_BASELINE);
  side_info (self, self->current, self->pair ? 1 : 0, FLAME_DIFF_CURRENT);
  if (self->pair)
    return merge_tree (self, self->baseline, 0, FLAME_DIFF_BASELINE, TRUE, NULL, NULL, NULL,
                       cancellable, error);

  /* baseline files from another checkout take the current's path
   * (docs/diff-semantics.md, "Files from different checkouts") */
  if (self->options.match != FLAME_MATCH_NAME && !self->options.exact_paths)
    files = flame_file_match_new (flame_profile_get_frames (self->baseline), cur_frames);
  return merge_tree (self, self->baseline, 0, FLAME_DIFF_BASELINE, FALSE, files,
                     flame_frames_get_strings (cur_frames), map_b, cancellable, error) &&
         merge_tree (self, self->current, 0, FLAME_DIFF_CURRENT, FALSE, NULL, NULL, map_c,
                     cancellable, error);
}

static void
count_elided (FlameDiff *self)
{
  for (guint32 n = 1; n < self->tree->n_nodes; n++)
    if (flame_diff_is_elided (self, n))
      {
        self->elided_count++;
        if (self->tree->self[FLAME_DIFF_BASELINE][n] > 0)
          self->elided_stacks++;
      }
}

/* Each run's self weights per node of the diff tree (@node_map: the diff
 * node of each node of that side's tree), and the runs' test on them */
static void
add_run_stats (FlameDiff            *self,
               const FlameRunNodes **runs,
               const guint32       **node_map,
               gdouble               alpha)
{
  self->stats = flame_node_stats_new (self->tree->n_nodes, runs[0]->n_runs, runs[1]->n_runs);
  self->runs_alpha = alpha;
  for (guint side = 0; side < 2; side++)
    for (guint r = 0; r < runs[side]->n_runs; r++)
      {
        gdouble *row = flame_node_stats_get_self_row (self->stats, side, r);
        const gdouble *src = runs[side]->self + (gsize) r * runs[side]->n_nodes;

        for (guint32 n = 1; n < runs[side]->n_nodes; n++)
          row[node_map[side][n]] += src[n];
      }
  flame_node_stats_finish (self->stats, self->tree, self->scale, alpha);
}

/**
 * flame_diff_new:
 * @current: (nullable): %NULL when @baseline is a ready-made pair
 *   (a 3-column folded file)
 *
 * Builds the merged tree. Runs in time linear in the two trees' sizes;
 * call it from a worker thread for large profiles (FlameComparison
 * does).
 */
FlameDiff *
flame_diff_new (FlameProfile            *baseline,
                FlameProfile            *current,
                const FlameDiffOptions  *options,
                GCancellable            *cancellable,
                GError                 **error)
{
  return flame_diff_new_with_runs (baseline, current, NULL, NULL, 0, options, cancellable, error);
}

static FlameDiff *
diff_new_full (FlameProfile            *baseline,
               FlameProfile            *current,
               const FlameRunNodes     *runs_b,
               const FlameRunNodes     *runs_c,
               gdouble                  alpha,
               const FlameDiffOptions  *options,
               gboolean                 take_baseline,
               GCancellable            *cancellable,
               GError                 **error)
{
  g_autoptr(FlameDiff) self = NULL;
  gboolean pair;
  gboolean use_runs;
  g_autofree guint32 *node_map_b = NULL, *node_map_c = NULL;

  g_return_val_if_fail (FLAME_IS_PROFILE (baseline), NULL);
  g_return_val_if_fail (current == NULL || FLAME_IS_PROFILE (current), NULL);

  pair = current == NULL;
  if (!check_columns (baseline, current, error) ||
      (!pair && !check_comparable (baseline, current, error)))
    return NULL;

  /* the runs' test needs a spread on each side */
  use_runs = !pair && runs_b != NULL && runs_c != NULL &&
             runs_b->n_runs >= 2 && runs_c->n_runs >= 2 &&
             runs_b->n_nodes == flame_profile_get_tree (baseline)->n_nodes &&
             runs_c->n_nodes == flame_profile_get_tree (current)->n_nodes;

  self = diff_create (baseline, current, options);
  self->take_baseline = take_baseline && !pair && !use_runs;

  if (!merge_sides (self, use_runs ? &node_map_b : NULL, use_runs ? &node_map_c : NULL,
                    cancellable, error))
    return NULL;
  flame_tree_finish (self->tree);
  flame_tree_compact (self->tree);

  /* cpython-diff.md §1.5: sampled time of current over baseline; an
   * empty side leaves the baseline as it is */
  if (self->total_ms[FLAME_DIFF_BASELINE] > 0 && self->total_ms[FLAME_DIFF_CURRENT] > 0)
    self->ratio = self->total_ms[FLAME_DIFF_CURRENT] / self->total_ms[FLAME_DIFF_BASELINE];
  else
    self->ratio = 1.0;
  self->scale = self->options.normalize == FLAME_NORMALIZE_TOTAL ? self->ratio : 1.0;

  count_elided (self);
  if (use_runs)
    {
      const FlameRunNodes *runs[2] = { runs_b, runs_c };
      const guint32 *node_map[2] = { node_map_b, node_map_c };

      add_run_stats (self, runs, node_map, alpha);
    }
  return g_steal_pointer (&self);
}

/**
 * flame_diff_new_with_runs:
 * @runs_b: (nullable): the baseline's runs, per node of @baseline's tree
 * @runs_c: (nullable): the current side's, per node of @current's tree
 * @alpha: the false discovery rate for the runs' test (0: 0.05)
 *
 * flame_diff_new(), and with two or more runs on each side, each run's
 * weights per call path of the diff tree: a change is coloured only when
 * it is beyond the runs' spread (flame_diff_get_node_stats()). Runs that
 * do not fit their profile's tree are left out.
 */
FlameDiff *
flame_diff_new_with_runs (FlameProfile            *baseline,
                          FlameProfile            *current,
                          const FlameRunNodes     *runs_b,
                          const FlameRunNodes     *runs_c,
                          gdouble                  alpha,
                          const FlameDiffOptions  *options,
                          GCancellable            *cancellable,
                          GError                 **error)
{
  return diff_new_full (baseline, current, runs_b, runs_c, alpha, options, FALSE, cancellable,
                        error);
}

/**
 * flame_diff_new_taking_baseline:
 *
 * flame_diff_new() of two profiles that are read only for this diff:
 * the diff tree may take @baseline's tree instead of copying it
 * (flame_tree_take_arrays()). @baseline then keeps its frames, its
 * metadata and its root's weights and totals, but no other node: the
 * caller must hold the only other reference, and must not lay it out,
 * convert it or diff it again. For one-shot comparisons
 * (flame_comparison_set_single_use()).
 */
FlameDiff *
flame_diff_new_taking_baseline (FlameProfile            *baseline,
                                FlameProfile            *current,
                                const FlameDiffOptions  *options,
                                GCancellable            *cancellable,
                                GError                 **error)
{
  return diff_new_full (baseline, current, NULL, NULL, 0, options, TRUE, cancellable, error);
}

/* Options that shape the merged tree: frame keys and the conversion of
 * weights to ms (both intervals made positive by diff_new_with_options()).
 * The others are applied to the finished tree. */
static gboolean
same_tree_options (const FlameDiffOptions *a,
                   const FlameDiffOptions *b)
{
  return a->match == b->match && !a->strip_hex == !b->strip_hex &&
         !a->exact_paths == !b->exact_paths && a->default_interval_ms == b->default_interval_ms;
}

/**
 * flame_diff_new_reusing:
 * @previous: a diff made earlier
 * @current: (nullable): as for flame_diff_new()
 * @options: (nullable): the new options
 *
 * The diff of @baseline and @current with @options, sharing the merged
 * tree of @previous when it is of the same two profiles and the options
 * differ only in what is applied to a finished tree (normalisation, the
 * metric, the significance level): colouring by total time or scaling
 * the baseline does not merge the profiles again. Cheap, and safe to
 * call while @previous is in use on another thread (it is only read).
 *
 * Returns: (transfer full) (nullable): %NULL when the merged tree would
 *   differ, or when @previous tested repeated runs per call path (their
 *   test depends on the scale and level); make a new diff then
 */
FlameDiff *
flame_diff_new_reusing (FlameDiff              *previous,
                        FlameProfile           *baseline,
                        FlameProfile           *current,
                        const FlameDiffOptions *options)
{
  FlameDiff *self;

  g_return_val_if_fail (FLAME_IS_DIFF (previous), NULL);
  g_return_val_if_fail (FLAME_IS_PROFILE (baseline), NULL);

  /* a diff that reuses another is reused the same way: what it borrowed
   * stays alive with it */
  if (previous->baseline != baseline || previous->pair != (current == NULL) ||
      (current != NULL && previous->current != current) || previous->stats != NULL)
    return NULL;

  self = diff_new_with_options (options);
  if (!same_tree_options (&self->options, &previous->options))
    {
      g_object_unref (self);
      return NULL;
    }

  self->shared = g_object_ref (previous);
  self->baseline = g_object_ref (previous->baseline);
  self->current = g_object_ref (previous->current);
  self->pair = previous->pair;
  self->frames = previous->frames;
  self->tree = previous->tree;
  for (guint c = 0; c < 2; c++)
    {
      self->total_ms[c] = previous->total_ms[c];
      self->samples[c] = previous->samples[c];
      self->interval_ms[c] = previous->interval_ms[c];
      self->interval_assumed[c] = previous->interval_assumed[c];
      self->fn_self[c] = previous->fn_self[c] ? g_array_ref (previous->fn_self[c]) : NULL;
      self->fn_total[c] = previous->fn_total[c] ? g_array_ref (previous->fn_total[c]) : NULL;
      self->frame_map[c] = previous->frame_map[c];
      self->n_mapped[c] = previous->n_mapped[c];
    }
  self->ratio = previous->ratio;
  self->scale = self->options.normalize == FLAME_NORMALIZE_TOTAL ? self->ratio : 1.0;
  self->elided_count = previous->elided_count;
  self->elided_stacks = previous->elided_stacks;
  self->thread_frames = g_hash_table_ref (previous->thread_frames);

  /* made on first use, from the weights alone (no options): borrowed
   * when @previous has made them, else made here when asked for */
  g_mutex_lock (&previous->lazy_lock);
  self->inverted = previous->inverted;
  self->inverted_borrowed = self->inverted != NULL;
  self->elided_weight = previous->elided_weight;
  self->elided_borrowed = self->elided_weight != NULL;
  if (previous->tree_fn != NULL)
    {
      self->tree_fn = g_rc_box_acquire (previous->tree_fn);
      self->tree_fn_frames = previous->tree_fn_frames;
    }
  g_mutex_unlock (&previous->lazy_lock);

  return self;
}

const FlameDiffOptions *
flame_diff_get_options (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);
  return &self->options;
}

FlameProfile *
flame_diff_get_baseline (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);
  return self->baseline;
}

FlameProfile *
flame_diff_get_current (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);
  return self->current;
}

/**
 * flame_diff_get_source_column:
 * @side: %FLAME_DIFF_BASELINE or %FLAME_DIFF_CURRENT
 *
 * Which weight column of flame_diff_get_baseline() or
 * flame_diff_get_current() this side came from: 1 for the current side of
 * a ready-made pair, else 0. (A profile compared with itself is not a
 * pair: both sides read its only column.)
 */
guint
flame_diff_get_source_column (FlameDiff *self,
                              guint      side)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), 0);
  return self->pair && side == FLAME_DIFF_CURRENT ? 1 : 0;
}

FlameFrames *
flame_diff_get_frames (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);
  return self->frames;
}

/**
 * flame_diff_is_thread_frame:
 * @frame: a frame of flame_diff_get_frames()
 *
 * Whether @frame names a thread or process (perf's `comm` root, a
 * recording's threads) in either profile: not a function.
 */
gboolean
flame_diff_is_thread_frame (FlameDiff *self,
                            guint32    frame)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), FALSE);
  return g_hash_table_contains (self->thread_frames, GUINT_TO_POINTER (frame));
}

FlameTree *
flame_diff_get_tree (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);
  return self->tree;
}

/**
 * flame_diff_get_inverted_tree:
 *
 * The bottom-up tree: every function with self time becomes a root, its
 * callers its children, merged by frame key. A node's total is the self
 * time of the root function reached through that chain of callers, so
 * colouring it by total compares exactly that. Built on first use
 * (thread-safe); cost grows with the depth of the stacks.
 */
FlameTree *
flame_diff_get_inverted_tree (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);

  g_mutex_lock (&self->lazy_lock);
  if (self->inverted == NULL)
    {
      FlameTree *tree = self->tree;
      FlameTree *inv = flame_tree_new (2);
      /* with runs: which inverted node each node's self went to */
      g_autofree guint32 *inv_map = self->stats != NULL ? g_new0 (guint32, tree->n_nodes) : NULL;

      for (guint32 n = 1; n < tree->n_nodes; n++)
        {
          gdouble sb = tree->self[FLAME_DIFF_BASELINE][n];
          gdouble sc = tree->self[FLAME_DIFF_CURRENT][n];
          guint32 i = FLAME_TREE_ROOT;
          guint32 h = FLAME_TREE_ROOT_HASH;
          guint32 depth = 0;

          if (sb == 0 && sc == 0)
            continue;
          for (guint32 a = n; a != FLAME_TREE_ROOT; a = tree->nodes[a].parent)
            {
              h = flame_tree_path_hash (h, tree->nodes[a].frame, ++depth);
              i = flame_tree_child_hashed (inv, i, tree->nodes[a].frame, h);
            }
          inv->self[FLAME_DIFF_BASELINE][i] += sb;
          inv->self[FLAME_DIFF_CURRENT][i] += sc;
          if (inv_map != NULL)
            inv_map[n] = i;
        }
      flame_tree_finish (inv);
      flame_tree_compact (inv);
      if (inv_map != NULL)
        {
          FlameNodeStats *stats =
            flame_node_stats_new (inv->n_nodes, flame_node_stats_get_n_runs (self->stats, 0),
                                  flame_node_stats_get_n_runs (self->stats, 1));

          for (guint side = 0; side < 2; side++)
            for (guint r = 0; r < flame_node_stats_get_n_runs (stats, side); r++)
              {
                const gdouble *src = flame_node_stats_get_self_row (self->stats, side, r);
                gdouble *row = flame_node_stats_get_self_row (stats, side, r);

                for (guint32 n = 1; n < tree->n_nodes; n++)
                  if (inv_map[n] != FLAME_TREE_ROOT)
                    row[inv_map[n]] += src[n];
              }
          flame_node_stats_finish (stats, inv, self->scale, self->runs_alpha);
          self->inverted_stats = stats;
        }
      self->inverted = inv;
    }
  g_mutex_unlock (&self->lazy_lock);

  return self->inverted;
}

/**
 * flame_diff_get_node_stats:
 * @tree: flame_diff_get_tree() or flame_diff_get_inverted_tree()
 *
 * Returns: (transfer none) (nullable): each run's weights at every node
 *   of @tree and their test, when the diff was made with two or more
 *   runs on each side (flame_diff_new_with_runs()); else %NULL
 */
FlameNodeStats *
flame_diff_get_node_stats (FlameDiff       *self,
                           const FlameTree *tree)
{
  FlameNodeStats *stats = NULL;

  g_return_val_if_fail (FLAME_IS_DIFF (self), NULL);

  if (self->stats == NULL || tree == NULL)
    return NULL;
  if (tree == self->tree)
    return self->stats;
  /* an inverted tree the caller holds was built already */
  g_mutex_lock (&self->lazy_lock);
  if (tree == self->inverted)
    stats = self->inverted_stats;
  g_mutex_unlock (&self->lazy_lock);
  return stats;
}

gdouble
flame_diff_get_scale (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), 1.0);
  return self->scale;
}

/* The factor normalisation would apply, whether or not it is on. */
gdouble
flame_diff_get_sampled_time_ratio (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), 1.0);
  return self->ratio;
}

gdouble
flame_diff_get_total_ms (FlameDiff *self,
                         guint      column)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self) && column < 2, 0);
  return self->total_ms[column];
}

gdouble
flame_diff_get_samples (FlameDiff *self,
                        guint      column)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self) && column < 2, 0);
  return self->samples[column];
}

/* What the diff's values are in: milliseconds, bytes or a count. */
FlameQuantity
flame_diff_get_quantity (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), FLAME_QUANTITY_TIME);
  return flame_profile_get_quantity (self->current);
}

gdouble
flame_diff_get_interval_ms (FlameDiff *self,
                            guint      column)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self) && column < 2, 0);
  return self->interval_ms[column];
}

gboolean
flame_diff_get_interval_assumed (FlameDiff *self,
                                 guint      column)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self) && column < 2, FALSE);
  return self->interval_assumed[column];
}

void
flame_diff_get_values (FlameDiff       *self,
                       const FlameTree *tree,
                       guint32          node,
                       FlameDiffValues *values)
{
  values->self_b = tree->self[FLAME_DIFF_BASELINE][node] * self->scale;
  values->total_b = tree->total[FLAME_DIFF_BASELINE][node] * self->scale;
  values->self_c = tree->self[FLAME_DIFF_CURRENT][node];
  values->total_c = tree->total[FLAME_DIFF_CURRENT][node];
}

/**
 * flame_diff_percent:
 *
 * The change of @metric in percent of the (scaled) baseline: +100 when
 * the baseline is 0 and the current value is not, 0 when both are 0.
 */
gdouble
flame_diff_percent (const FlameDiffValues *values,
                    FlameMetric            metric)
{
  gdouble b = metric == FLAME_METRIC_TOTAL ? values->total_b : values->self_b;
  gdouble c = metric == FLAME_METRIC_TOTAL ? values->total_c : values->self_c;

  if (b > 0)
    return (c - b) / b * 100.0;
  return c > 0 ? 100.0 : 0.0;
}

/**
 * flame_binomial_p_value:
 *
 * Two-sided p-value of seeing @k successes in @n trials with success
 * probability @p: the exact sum for small @n, the normal approximation
 * with continuity correction once n·p·(1−p) is large enough for it.
 */
gdouble
flame_binomial_p_value (guint64 k,
                        guint64 n,
                        gdouble p)
{
  gdouble mean, var;

  if (n == 0 || p <= 0 || p >= 1)
    return 1.0;

  mean = n * p;
  var = n * p * (1 - p);

  if (var > 25 || n > 5000)
    {
      gdouble z = (fabs ((gdouble) k - mean) - 0.5) / sqrt (var);
      if (z <= 0)
        return 1.0;
      return MIN (1.0, erfc (z / G_SQRT2));
    }
  else
    {
      /* P(X = i) via lgamma; add every outcome no more likely than k */
      gdouble lp = log (p), lq = log1p (-p);
      gdouble lnf = lgamma ((gdouble) n + 1);
      gdouble pk = lnf - lgamma ((gdouble) k + 1) - lgamma ((gdouble) (n - k) + 1) + k * lp +
                   (n - k) * lq;
      gdouble sum = 0;

      for (guint64 i = 0; i <= n; i++)
        {
          gdouble pi = lnf - lgamma ((gdouble) i + 1) - lgamma ((gdouble) (n - i) + 1) + i * lp +
                       (n - i) * lq;
          if (pi <= pk + 1e-7)
            sum += exp (pi);
        }
      return MIN (1.0, sum);
    }
}

/**
 * flame_diff_is_significant:
 *
 * Whether the change of @metric is more than sampling noise at level
 * @alpha. Times are turned back into sample counts k_b and k_c (each
 * side's total time over its sample count); if both are Poisson counts,
 * then given n = k_b + k_c, k_c is binomial with the share p0 that the
 * null hypothesis predicts: the current run's share of all samples when
 * normalising to total time (equal fractions), or the share of absolute
 * time otherwise (equal milliseconds).
 */
gboolean
flame_diff_is_significant (FlameDiff             *self,
                           const FlameDiffValues *values,
                           FlameMetric            metric,
                           gdouble                alpha)
{
  gdouble b = metric == FLAME_METRIC_TOTAL ? values->total_b : values->self_b;
  gdouble c = metric == FLAME_METRIC_TOTAL ? values->total_c : values->self_c;
  gdouble ms_per_sample_b, ms_per_sample_c;
  guint64 kb, kc;
  gdouble p0;

  g_return_val_if_fail (FLAME_IS_DIFF (self), TRUE);

  ms_per_sample_b = self->samples[0] > 0 ? self->total_ms[0] / self->samples[0]
                                         : self->interval_ms[0];
  ms_per_sample_c = self->samples[1] > 0 ? self->total_ms[1] / self->samples[1]
                                         : self->interval_ms[1];
  if (ms_per_sample_b <= 0 || ms_per_sample_c <= 0)
    return TRUE;

  /* undo the scale: the test is on raw counts */
  kb = (guint64) llround (b / self->scale / ms_per_sample_b);
  kc = (guint64) llround (c / ms_per_sample_c);

  if (self->samples[0] <= 0 || self->samples[1] <= 0)
    return TRUE;
  if (self->options.normalize == FLAME_NORMALIZE_TOTAL)
    p0 = self->samples[1] / (self->samples[0] + self->samples[1]);
  else
    p0 = ms_per_sample_b / (ms_per_sample_b + ms_per_sample_c);

  return flame_binomial_p_value (kc, kb + kc, p0) < alpha;
}

/**
 * flame_diff_classify_values:
 *
 * DESIGN.md's classes, evaluated in order: absent from the baseline →
 * new; |p| < FLAME_CHANGE_NEUTRAL_PCT → neutral; then the regression and
 * improvement bands.
 * With the noise option on, changes within sampling noise are neutral.
 */
FlameChange
flame_diff_classify_values (FlameDiff             *self,
                            const FlameDiffValues *v,
                            FlameMetric            metric)
{
  gdouble p;

  if (v->total_b <= 0 && v->total_c > 0)
    return FLAME_CHANGE_NEW;
  if (v->total_c <= 0 && v->total_b > 0)
    return FLAME_CHANGE_ELIDED;

  p = flame_diff_percent (v, metric);
  if (fabs (p) < FLAME_CHANGE_NEUTRAL_PCT)
    return FLAME_CHANGE_NEUTRAL;
  if (self->options.significance > 0 &&
      !flame_diff_is_significant (self, v, metric, self->options.significance))
    return FLAME_CHANGE_NEUTRAL;

  if (p >= FLAME_CHANGE_DEEP_PCT)
    return FLAME_CHANGE_REGRESSION_DEEP;
  if (p > FLAME_CHANGE_MEDIUM_PCT)
    return FLAME_CHANGE_REGRESSION_MEDIUM;
  if (p > FLAME_CHANGE_LIGHT_PCT)
    return FLAME_CHANGE_REGRESSION_LIGHT;
  if (p > 0)
    return FLAME_CHANGE_REGRESSION_VERY_LIGHT;
  if (p <= -FLAME_CHANGE_DEEP_PCT)
    return FLAME_CHANGE_IMPROVEMENT_DEEP;
  if (p < -FLAME_CHANGE_MEDIUM_PCT)
    return FLAME_CHANGE_IMPROVEMENT_MEDIUM;
  if (p < -FLAME_CHANGE_LIGHT_PCT)
    return FLAME_CHANGE_IMPROVEMENT_LIGHT;
  return FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT;
}

FlameChange
flame_diff_classify (FlameDiff       *self,
                     const FlameTree *tree,
                     guint32          node,
                     FlameMetric      metric)
{
  FlameDiffValues v;
  FlameChange klass;
  FlameNodeStats *stats;

  flame_diff_get_values (self, tree, node, &v);
  klass = flame_diff_classify_values (self, &v, metric);
  /* with repeated runs, a change within their spread is no change, and
   * so is a new path that only some current runs took (as the report
   * says of its function); removed paths are the Elided view's */
  if (klass != FLAME_CHANGE_NEUTRAL && klass != FLAME_CHANGE_ELIDED &&
      (stats = flame_diff_get_node_stats (self, tree)) != NULL &&
      !flame_node_stats_is_significant (stats, node, metric == FLAME_METRIC_TOTAL))
    return FLAME_CHANGE_NEUTRAL;
  return klass;
}

/* A path that ran in the baseline and not at all in the current run. */
gboolean
flame_diff_is_elided (FlameDiff *self,
                      guint32    node)
{
  return self->tree->total[FLAME_DIFF_CURRENT][node] <= 0 &&
         self->tree->total[FLAME_DIFF_BASELINE][node] > 0;
}

/* Elided paths (nodes), as CPython counts them. */
guint
flame_diff_get_elided_count (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), 0);
  return self->elided_count;
}

/* Elided paths that had self time: the stacks that vanished. */
guint
flame_diff_get_elided_stacks (FlameDiff *self)
{
  g_return_val_if_fail (FLAME_IS_DIFF (self), 0);
  return self->elided_stacks;
}

/**
 * flame_diff_get_elided_weight:
 *
 * Width of @node in the Elided view, in scaled baseline ms: an elided
 * node keeps its whole baseline total; an ancestor that still exists is
 * only structure, as wide as its elided descendants. 0 for nodes not in
 * the Elided view.
 */
gdouble
flame_diff_get_elided_weight (FlameDiff *self,
                              guint32    node)
{
  const gdouble *weights;

  g_return_val_if_fail (FLAME_IS_DIFF (self), 0);

  /* called once per node when a view is prepared: take the lock only
   * while the array does not exist yet */
  weights = g_atomic_pointer_get (&self->elided_weight);
  if G_LIKELY (weights != NULL)
    return weights[node] * self->scale;

  g_mutex_lock (&self->lazy_lock);
  if (self->elided_weight == NULL)
    {
      FlameTree *tree = self->tree;
      gdouble *w = g_new0 (gdouble, tree->n_nodes);

      for (guint32 n = tree->n_nodes - 1; n > 0; n--)
        {
          guint32 parent = tree->nodes[n].parent;

          if (flame_diff_is_elided (self, n))
            w[n] = tree->total[FLAME_DIFF_BASELINE][n];
          if (parent == FLAME_TREE_ROOT || !flame_diff_is_elided (self, parent))
            w[parent] += w[n];
        }
      g_atomic_pointer_set (&self->elided_weight, w);
    }
  weights = self->elided_weight;
  g_mutex_unlock (&self->lazy_lock);

  return weights[node] * self->scale;
}

/* flame-runs.c
 *
 * Repeated runs of one side: the diff compares one tree per side, so the
 * runs are merged into one whose weights are the mean per run (widths
 * show the mean time of a run), and the per-function times of every run
 * are kept for the tests between the sides. A run's weights are scaled
 * to the first run's weight unit, so runs sampled at different rates
 * still average their times.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-error.h"
#include "flame-runs.h"

void
flame_runs_free (FlameRuns *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->mean);
  g_free (self->self_ms);
  g_free (self->total_ms);
  g_free (self->node_self_ms);
  g_free (self);
}

/* @run's frame @frame in @mean, interned on first use */
static guint32
map_frame (FlameProfile *mean,
           FlameFrames  *frames,
           guint32      *map,
           guint32       frame)
{
  if (map[frame] == G_MAXUINT32)
    {
      const FlameFrame *f = flame_frames_get (frames, frame);
      const char *name = flame_frames_get_name (frames, frame);
      const char *file = f->file ? flame_frames_get_file (frames, frame) : "";

      map[frame] = flame_profile_intern_frame (mean, name, strlen (name), file, strlen (file),
                                               f->line, f->flags);
    }
  return map[frame];
}

static const char *
path_or (FlameProfile *profile,
         const char   *fallback)
{
  const char *path = flame_profile_get_path (profile);

  return path != NULL ? path : fallback;
}

/* runs of one side must be single-sided and measure the same thing */
static gboolean
check_runs (FlameProfile * const *runs,
            guint                 n_runs,
            GError              **error)
{
  for (guint r = 0; r < n_runs; r++)
    if (flame_profile_get_n_columns (runs[r]) != 1)
      {
        g_set_error (error, FLAME_ERROR, FLAME_ERROR_INVALID,
                     "%s: holds both sides, so it cannot be one of several runs",
                     path_or (runs[r], "profile"));
        return FALSE;
      }
    else if (flame_profile_get_quantity (runs[r]) != flame_profile_get_quantity (runs[0]))
      {
        g_set_error (error, FLAME_ERROR, FLAME_ERROR_INVALID,
                     "%s: measures something else than %s, so their mean means nothing",
                     path_or (runs[r], "profile"), path_or (runs[0], "the first run"));
        return FALSE;
      }
  return TRUE;
}

/* the mean profile's name (what the report's header names the side by),
 * unit, interval and what the diff checks of a side (sample type, event,
 * metadata): the first run's */
static FlameProfile *
new_mean_profile (FlameProfile * const *runs,
                  guint                 n_runs)
{
  FlameProfile *first = runs[0];
  FlameProfile *mean = flame_profile_new (flame_profile_get_format (first), 1);
  g_autofree char *name = g_strdup_printf ("%s … %s (mean of %u runs)", path_or (first, ""),
                                           path_or (runs[n_runs - 1], ""), n_runs);
  g_auto(GStrv) keys = flame_profile_dup_metadata_keys (first);

  flame_profile_set_path (mean, name);
  flame_profile_set_unit (mean, flame_profile_get_unit (first));
  flame_profile_set_interval_ms (mean, flame_profile_get_interval_ms (first));
  flame_profile_set_event (mean, flame_profile_get_event (first));
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    flame_profile_set_metadata (mean, keys[i], flame_profile_get_metadata (first, keys[i]));
  return mean;
}

/* Adds @run's self weights, scaled by @scale, into the mean's tree; fills
 * @map (the run's frame → the mean's, G_MAXUINT32 where unused) and
 * @node_map (the run's node → the mean's). */
static void
add_run (FlameProfile *mean,
         FlameProfile *run,
         gdouble       scale,
         guint32      *map,
         guint32      *node_map)
{
  FlameTree *out = flame_profile_get_tree (mean);
  FlameTree *tree = flame_profile_get_tree (run);
  FlameFrames *frames = flame_profile_get_frames (run);

  memset (map, 0xff, sizeof (guint32) * MAX (flame_frames_count (frames), 1));
  /* parents come before their children in the node array */
  node_map[FLAME_TREE_ROOT] = FLAME_TREE_ROOT;
  for (guint32 n = 1; n < tree->n_nodes; n++)
    {
      const FlameNode *node = &tree->nodes[n];

      node_map[n] = flame_tree_child (out, node_map[node->parent],
                                      map_frame (mean, frames, map, node->frame));
      if (tree->self[0][n] != 0)
        flame_tree_add_self (out, 0, node_map[n], tree->self[0][n] * scale);
    }
}

/* run @r's self and total time per function of the mean profile, in ms */
static void
add_function_times (FlameRuns     *self,
                    guint          r,
                    FlameProfile  *run,
                    const guint32 *map,
                    gdouble        ms)
{
  FlameTree *tree = flame_profile_get_tree (run);
  guint n_frames = flame_frames_count (flame_profile_get_frames (run));
  g_autofree gdouble *s = g_new0 (gdouble, MAX (n_frames, 1));
  g_autofree gdouble *t = g_new0 (gdouble, MAX (n_frames, 1));
  gdouble *row_s = self->self_ms + (gsize) r * self->n_frames;
  gdouble *row_t = self->total_ms + (gsize) r * self->n_frames;

  flame_profile_ensure_totals (run);
  flame_tree_function_weights (tree, n_frames, 0, s, t);
  for (guint f = 0; f < n_frames; f++)
    if (map[f] != G_MAXUINT32)
      {
        row_s[map[f]] += s[f] * ms;
        row_t[map[f]] += t[f] * ms;
      }
}

/* run @r's self time per call path of the mean profile, in ms: the
 * graph's test */
static void
add_path_times (FlameRuns     *self,
                guint          r,
                FlameProfile  *run,
                const guint32 *node_map,
                gdouble        ms)
{
  FlameTree *tree = flame_profile_get_tree (run);
  gdouble *row = self->node_self_ms + (gsize) r * self->n_nodes;

  for (guint32 n = 1; n < tree->n_nodes; n++)
    row[node_map[n]] += tree->self[0][n] * ms;
}

/**
 * flame_runs_merge:
 * @runs: (array length=n_runs): loaded profiles of one side, one column each
 *
 * Returns: (transfer full) (nullable): the mean profile and the per-run
 *   per-function and per-call-path times in ms, or %NULL with @error set when a run holds
 *   both sides.
 */
FlameRuns *
flame_runs_merge (FlameProfile * const *runs,
                  guint                 n_runs,
                  gdouble               default_interval_ms,
                  GError              **error)
{
  g_autoptr(FlameRuns) self = NULL;
  g_autoptr(GPtrArray) maps = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) node_maps = g_ptr_array_new_with_free_func (g_free);
  gdouble ms0, samples = 0, duration = 0;

  g_return_val_if_fail (n_runs > 0, NULL);

  if (!check_runs (runs, n_runs, error))
    return NULL;

  self = g_new0 (FlameRuns, 1);
  self->n_runs = n_runs;
  self->mean = new_mean_profile (runs, n_runs);
  ms0 = flame_profile_get_ms_per_weight (runs[0], 0, default_interval_ms);
  for (guint r = 0; r < n_runs; r++)
    {
      FlameTree *tree = flame_profile_get_tree (runs[r]);
      guint n_frames = flame_frames_count (flame_profile_get_frames (runs[r]));
      guint32 *map = g_new (guint32, MAX (n_frames, 1));
      guint32 *node_map = g_new (guint32, MAX (tree->n_nodes, 1));
      gdouble ms = flame_profile_get_ms_per_weight (runs[r], 0, default_interval_ms);

      g_ptr_array_add (maps, map);
      g_ptr_array_add (node_maps, node_map);
      add_run (self->mean, runs[r], (ms0 > 0 && ms > 0 ? ms / ms0 : 1) / n_runs, map, node_map);
      samples += flame_profile_get_samples (runs[r], 0);
      duration += flame_profile_get_duration_ms (runs[r]);
    }
  if (samples > 0)
    flame_profile_add_samples (self->mean, 0, samples / n_runs);
  if (duration > 0)
    flame_profile_set_duration_ms (self->mean, duration / n_runs);
  flame_profile_finish (self->mean);

  self->n_frames = flame_frames_count (flame_profile_get_frames (self->mean));
  self->self_ms = g_new0 (gdouble, (gsize) n_runs * MAX (self->n_frames, 1));
  self->total_ms = g_new0 (gdouble, (gsize) n_runs * MAX (self->n_frames, 1));
  self->n_nodes = flame_profile_get_tree (self->mean)->n_nodes;
  self->node_self_ms = g_new0 (gdouble, (gsize) n_runs * MAX (self->n_nodes, 1));
  for (guint r = 0; r < n_runs; r++)
    {
      gdouble ms = flame_profile_get_ms_per_weight (runs[r], 0, default_interval_ms);

      add_function_times (self, r, runs[r], g_ptr_array_index (maps, r), ms);
      add_path_times (self, r, runs[r], g_ptr_array_index (node_maps, r), ms);
    }
  return g_steal_pointer (&self);
}

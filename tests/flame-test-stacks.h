/* flame-test-stacks.h: a loaded profile as "a;b;c" → self weight, the
 * way the reference tools print expected results.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "flame-profile.h"

/* Returns: (transfer full): stack of frame names (root first, joined by
 * ';') → gdouble* self weight of @column; stacks that differ only in
 * file or line are summed. */
static inline GHashTable *
flame_test_stacks (FlameProfile *profile,
                   guint         column)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  FlameFrames *frames = flame_profile_get_frames (profile);
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char **paths = g_new0 (char *, tree->n_nodes);

  for (guint32 n = 1; n < tree->n_nodes; n++)
    {
      const FlameNode *node = flame_tree_node (tree, n);
      const char *name = flame_frames_get_name (frames, node->frame);
      gdouble *w;

      paths[n] = node->parent == FLAME_TREE_ROOT
        ? g_strdup (name) : g_strconcat (paths[node->parent], ";", name, NULL);
      if (tree->self[column][n] == 0)
        continue;
      w = g_hash_table_lookup (out, paths[n]);
      if (w == NULL)
        {
          w = g_new0 (gdouble, 1);
          g_hash_table_insert (out, g_strdup (paths[n]), w);
        }
      *w += tree->self[column][n];
    }
  for (guint32 n = 1; n < tree->n_nodes; n++)
    g_free (paths[n]);
  return out;
}

static inline gdouble
flame_test_stack_weight (GHashTable *stacks,
                         const char *stack)
{
  gdouble *w = g_hash_table_lookup (stacks, stack);
  return w ? *w : 0;
}

/* Self weight per frame name (all files and lines together). */
static inline GHashTable *
flame_test_self_by_name (FlameProfile *profile,
                         guint         column)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  FlameFrames *frames = flame_profile_get_frames (profile);
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint32 n = 1; n < tree->n_nodes; n++)
    {
      const char *name = flame_frames_get_name (frames, flame_tree_node (tree, n)->frame);
      gdouble *w;

      if (tree->self[column][n] == 0)
        continue;
      w = g_hash_table_lookup (out, name);
      if (w == NULL)
        {
          w = g_new0 (gdouble, 1);
          g_hash_table_insert (out, g_strdup (name), w);
        }
      *w += tree->self[column][n];
    }
  return out;
}

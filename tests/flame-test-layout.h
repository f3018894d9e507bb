/* flame-test-layout.h: finding a frame of a prepared layout source.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-layout.h"

/* The node of @source at @spec (a function name, its widest node, or a
 * path "a;b;c" from the root, as flame_layout_source_find() takes it);
 * the test fails when there is none. */
static inline guint32
flame_test_find (FlameLayoutSource *source,
                 const char        *spec)
{
  guint32 node = flame_layout_source_find (source, spec);

  if (node == FLAME_TREE_NONE)
    g_error ("no node “%s” in the layout source", spec);
  return node;
}

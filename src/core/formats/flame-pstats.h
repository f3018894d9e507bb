/* flame-pstats.h: Python's cProfile/profile statistics files
 * (`python3 -m cProfile -o out.pstats`, pstats.Stats.dump_stats()).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-profile.h"

G_BEGIN_DECLS

gboolean      flame_pstats_sniff (const char  *data,
                                  gsize        len);
FlameProfile *flame_pstats_load  (FlameInput  *in,
                                  GError     **error);

G_END_DECLS

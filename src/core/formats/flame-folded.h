/* flame-folded.h: Brendan Gregg's folded ("collapsed") stacks.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-profile.h"

G_BEGIN_DECLS

gboolean      flame_folded_sniff (const char  *data,
                                  gsize        len,
                                  gboolean    *is_pair);
FlameProfile *flame_folded_load  (FlameInput  *in,
                                  GError     **error);
FlameProfile *flame_folded_load_threads (FlameInput  *in,
                                         guint        n_threads,
                                         gsize        chunk_words,
                                         GError     **error);
/* CPython profiling.sampling --collapsed: every stack has a tid:N root */
gboolean      flame_folded_is_cpython (const char *data,
                                       gsize       len);

G_END_DECLS

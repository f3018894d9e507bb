/* flame-file-match.h: which file of one profile is which file of another
 * when the two ran from different checkouts (docs/diff-semantics.md,
 * "Files from different checkouts").
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-frames.h"

G_BEGIN_DECLS

#define FLAME_PATH_UNPAIRED G_MAXUINT

guint      *flame_paths_pair     (const char *const *base,
                                  guint              n_base,
                                  const char *const *cur,
                                  guint              n_cur);
GHashTable *flame_file_match_new (FlameFrames       *baseline,
                                  FlameFrames       *current);

G_END_DECLS

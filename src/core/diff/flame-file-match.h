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

GHashTable *flame_file_match_new (FlameFrames *baseline,
                                  FlameFrames *current);

G_END_DECLS

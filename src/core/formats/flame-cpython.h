/* flame-cpython.h: CPython 3.15 profiling.sampling --binary files.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-profile.h"

G_BEGIN_DECLS

gboolean      flame_cpython_binary_sniff (const char  *data,
                                          gsize        len);
FlameProfile *flame_cpython_binary_load  (FlameInput  *in,
                                          GError     **error);
gboolean      flame_cpython_is_internal_file (const char *file,
                                              gsize       len);

G_END_DECLS

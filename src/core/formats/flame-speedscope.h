/* flame-speedscope.h: speedscope's JSON file format, read and written.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-loader.h"
#include "flame-profile.h"

G_BEGIN_DECLS

#define FLAME_SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

FlameProfile *flame_speedscope_load  (FlameInput              *in,
                                      const FlameLoadOptions  *options,
                                      GError                 **error);

/* Writes @profile as a speedscope file: one sampled profile per column
 * (one for an ordinary profile), every stack with its weight, the unit,
 * and the profile's metadata under a top-level "flamediff" object, which
 * flame_speedscope_load() reads back. */
gboolean      flame_speedscope_write (FlameProfile  *profile,
                                      GString       *out,
                                      GError       **error);

/* The same with a name and a unit for each column's profile (a memory
 * recording: allocated bytes, allocations, …); the units go under
 * "flamediff" too, where counts can be told from samples. */
gboolean      flame_speedscope_write_columns (FlameProfile      *profile,
                                              const char *const *names,
                                              const FlameUnit   *units,
                                              GString           *out,
                                              GError           **error);

G_END_DECLS

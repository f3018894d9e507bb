/* flame-gecko.h: Firefox Profiler files: raw Gecko profiles (also inside
 * the devtools export wrapper) and processed profiles of every
 * preprocessedProfileVersion, including CPython's --gecko output.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-loader.h"
#include "flame-profile.h"

G_BEGIN_DECLS

FlameProfile *flame_gecko_load (FlameInput              *in,
                                const FlameLoadOptions  *options,
                                GError                 **error);

G_END_DECLS

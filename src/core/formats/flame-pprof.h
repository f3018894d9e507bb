/* flame-pprof.h: pprof profile.proto and legacy binary CPU profiles.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-loader.h"
#include "flame-profile.h"

G_BEGIN_DECLS

/* @data is already gunzipped */
gboolean      flame_pprof_sniff        (const char  *data,
                                        gsize        len);
FlameProfile *flame_pprof_load         (FlameInput  *in,
                                        const FlameLoadOptions *options,
                                        GError     **error);
gboolean      flame_pprof_legacy_sniff (const char  *data,
                                        gsize        len);
FlameProfile *flame_pprof_legacy_load  (FlameInput  *in,
                                        GError     **error);

G_END_DECLS

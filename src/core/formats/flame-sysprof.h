/* flame-sysprof.h: Sysprof capture files (.syscap).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-loader.h"
#include "flame-profile.h"

G_BEGIN_DECLS

gboolean      flame_sysprof_sniff (const char              *data,
                                   gsize                    len);
FlameProfile *flame_sysprof_load  (FlameInput              *in,
                                   const FlameLoadOptions  *options,
                                   GError                 **error);

G_END_DECLS

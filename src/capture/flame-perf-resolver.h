/* flame-perf-resolver.h: the symbolizer as the resolver of perf.data
 * loads (flame-resolver.h).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-resolver.h"

G_BEGIN_DECLS

/* Registers it as the default: main() calls this once. */
void flame_perf_resolver_register (void);

G_END_DECLS

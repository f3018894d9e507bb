/* flame-perfmap.h: names of JIT-compiled code from perf map files
 * (/tmp/perf-PID.map: "START SIZE name" in hex, one function a line),
 * as node (--perf-basic-prof-only-functions), Java agents, .NET and
 * CPython's perf trampoline (-X perf) write them.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FlamePerfMap FlamePerfMap;

/* NULL when there is no such file or no valid line in it (untrusted:
 * malformed lines are skipped) */
FlamePerfMap *flame_perf_map_load   (const char   *path);
void          flame_perf_map_free   (FlamePerfMap *self);
guint         flame_perf_map_count  (FlamePerfMap *self);
/* the function at @ip, the latest line that covers it; NULL if none */
const char   *flame_perf_map_lookup (FlamePerfMap *self,
                                     guint64       ip);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlamePerfMap, flame_perf_map_free)

G_END_DECLS

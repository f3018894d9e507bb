/* flame-perfdata.h: perf.data files (what `perf record` writes), file and
 * pipe mode, read natively and named like `perf script` would.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-perf.h"

G_BEGIN_DECLS

gboolean flame_perfdata_sniff (const char              *data,
                               gsize                    len);
/* As flame_perf_parse, which calls it for perf.data input. */
gboolean flame_perfdata_parse (FlameInput              *in,
                               const FlamePerfOptions  *options,
                               FlamePerfStackFunc       func,
                               gpointer                 user_data,
                               FlamePerfStats          *stats,
                               GError                 **error);

G_END_DECLS

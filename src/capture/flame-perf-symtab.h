/* flame-perf-symtab.h: a module's functions as perf names them.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gelf.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _FlamePerfSymtab FlamePerfSymtab;

FlamePerfSymtab *flame_perf_symtab_new    (Elf          *elf,
                                           Elf          *debug,
                                           GElf_Addr     bias,
                                           GStringChunk *strings);
void             flame_perf_symtab_free   (FlamePerfSymtab *self);
const char      *flame_perf_symtab_lookup (FlamePerfSymtab *self,
                                           guint64          addr);

G_END_DECLS

/* flame-symbolizer.h: instruction pointers of a recorded process to
 * function names, with elfutils libdwfl.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FlameSymbolizer FlameSymbolizer;
typedef struct _FlameSymCache FlameSymCache;

typedef struct
{
  const char *name;     /* function, demangled */
  const char *file;     /* source file, or the module's file name without DWARF */
  guint       line;     /* 0 when unknown */
  gboolean    inlined;
  gboolean    own;      /* in the sampler itself: callers hide it */
} FlameSymFrame;

FlameSymCache   *flame_sym_cache_new          (const char      *own_module);
FlameSymCache   *flame_sym_cache_ref          (FlameSymCache   *cache);
void             flame_sym_cache_unref        (FlameSymCache   *cache);
GPtrArray       *flame_sym_cache_get_warnings (FlameSymCache   *cache);
void             flame_sym_cache_set_symtab_only (FlameSymCache *cache,
                                                  gboolean       symtab_only);

FlameSymbolizer *flame_symbolizer_new         (const char      *own_module);
FlameSymbolizer *flame_symbolizer_new_shared  (FlameSymCache   *cache);
void             flame_symbolizer_free        (FlameSymbolizer *self);
void             flame_symbolizer_set_root    (FlameSymbolizer *self,
                                               const char      *root);
void             flame_symbolizer_add_module  (FlameSymbolizer *self,
                                               const char      *path,
                                               guint64          base,
                                               const guint8    *build_id,
                                               gsize            build_id_len);
guint            flame_symbolizer_lookup      (FlameSymbolizer      *self,
                                               guint64               ip,
                                               gboolean              leaf,
                                               const FlameSymFrame **frames);
GPtrArray       *flame_symbolizer_get_warnings (FlameSymbolizer *self);

char            *flame_demangle               (const char *name);
char            *flame_demangle_full          (const char *name,
                                               gboolean    signature);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameSymbolizer, flame_symbolizer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameSymCache, flame_sym_cache_unref)

G_END_DECLS

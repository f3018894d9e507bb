/* flame-resolver.h: names for the addresses of a recording that holds
 * none (perf.data), by a symbolizer the program registers: the core does
 * not read debug information itself.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *name;     /* function, demangled; "[unknown]" when none */
  gboolean    inlined;  /* inlined into the next frame */
} FlameResolvedFrame;

typedef struct
{
  /* one session per load; @kernel_text is the address the recording
   * gave the kernel's _text (0: none), so that the host's kernel symbols
   * are only used for the kernel they belong to */
  gpointer   (*session_new)  (guint64      kernel_text);
  void       (*session_free) (gpointer     session);
  /* an address space: one process's modules at one point of the
   * recording; modules are added before the first lookup */
  gpointer   (*space_new)    (gpointer     session);
  void       (*space_free)   (gpointer     space);
  void       (*add_module)   (gpointer     space,
                              const char  *path,
                              guint64      base,     /* load bias */
                              const guint8 *build_id,
                              gsize        build_id_len);
  /* innermost first; valid until the next lookup of the session.
   * @leaf: named at @ip itself, else as a return address. */
  guint      (*lookup)       (gpointer                   space,
                              guint64                    ip,
                              gboolean                   leaf,
                              const FlameResolvedFrame **frames);
  /* NULL when the kernel's symbols are not known; *@module: NULL for
   * the kernel itself, else the module's name */
  const char *(*lookup_kernel) (gpointer     session,
                                guint64      ip,
                                const char **module);
  /* (element-type utf8) (transfer none): what went wrong, once each */
  GPtrArray *(*warnings)     (gpointer     session);
} FlameResolver;

/* The resolver perf.data loads use; NULL (the default) names nothing:
 * frames read "[unknown]" in their module, as `perf script` prints
 * addresses it cannot name. */
void                 flame_resolver_set_default (const FlameResolver *resolver);
const FlameResolver *flame_resolver_get_default (void);

G_END_DECLS

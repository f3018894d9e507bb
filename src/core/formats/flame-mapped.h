/* flame-mapped.h: profile files mapped into memory, safe against the file
 * changing while it is read.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

GBytes   *flame_mapped_file_new   (const char    *path,
                                   GError       **error);
gboolean  flame_mapped_check      (const void    *data,
                                   GError       **error);
gboolean  flame_mapped_faulted    (const void    *data);
void      flame_mapped_release    (const void    *data,
                                   gsize          upto);

G_END_DECLS

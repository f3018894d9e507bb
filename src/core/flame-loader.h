/* flame-loader.h: read any supported profile file.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "flame-input.h"
#include "flame-profile.h"

G_BEGIN_DECLS

/* Largest decompressed size we accept from a gzip file. */
#define FLAME_MAX_DECOMPRESSED ((gsize) 16 << 30)

GBytes       *flame_read_file         (const char           *path,
                                       GCancellable         *cancellable,
                                       GError              **error);
GBytes       *flame_decode_bytes      (const char           *name,
                                       GBytes               *raw,
                                       GCancellable         *cancellable,
                                       GError              **error);
FlameFormat   flame_sniff_format      (const char           *data,
                                       gsize                 len);
FlameProfile *flame_load_bytes        (const char           *name,
                                       GBytes               *bytes,
                                       GCancellable         *cancellable,
                                       FlameProgressFunc     progress,
                                       gpointer              progress_data,
                                       GError              **error);
FlameProfile *flame_load_file         (const char           *path,
                                       GCancellable         *cancellable,
                                       FlameProgressFunc     progress,
                                       gpointer              progress_data,
                                       GError              **error);
void          flame_load_file_async   (const char           *path,
                                       GCancellable         *cancellable,
                                       FlameProgressFunc     progress,
                                       gpointer              progress_data,
                                       GAsyncReadyCallback   callback,
                                       gpointer              user_data);
FlameProfile *flame_load_file_finish  (GAsyncResult         *result,
                                       GError              **error);

G_END_DECLS

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

/* Which part of a file to load, for formats that hold several profiles
 * (speedscope) or threads (Chrome traces, Firefox). */
typedef struct
{
  gint   profile;  /* index of the profile to load; -1: the default */
  gint64 thread;   /* thread id to keep; -1: all threads, merged */
  const char *sample_type;  /* pprof: the sample type to load ("alloc_space"
                             * or "alloc_space/bytes"); NULL: as pprof picks */
  guint  threads;  /* threads a loader may use for one file; 0: one per core */
} FlameLoadOptions;

#define FLAME_LOAD_OPTIONS_DEFAULT { -1, -1, NULL, 0 }

/* Largest decompressed size we accept from a gzip file. */
#define FLAME_MAX_DECOMPRESSED ((gsize) 16 << 30)

GBytes       *flame_read_file         (const char           *path,
                                       GCancellable         *cancellable,
                                       GError              **error);
gboolean      flame_read_file_check   (GBytes               *bytes,
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
FlameProfile *flame_load_bytes_full   (const char             *name,
                                       GBytes                 *bytes,
                                       const FlameLoadOptions *options,
                                       GCancellable           *cancellable,
                                       FlameProgressFunc       progress,
                                       gpointer                progress_data,
                                       GError                **error);
FlameProfile *flame_load_file_full    (const char             *path,
                                       const FlameLoadOptions *options,
                                       GCancellable           *cancellable,
                                       FlameProgressFunc       progress,
                                       gpointer                progress_data,
                                       GError                **error);
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

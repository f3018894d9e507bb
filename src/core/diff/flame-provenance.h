/* flame-provenance.h: which recorded binaries changed between the
 * baseline and the current profile (the recorder's "build_ids" metadata).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-profile.h"

G_BEGIN_DECLS

typedef enum
{
  FLAME_BINARY_SAME,
  FLAME_BINARY_CHANGED,   /* same file, another build-id: rebuilt */
  FLAME_BINARY_ADDED,     /* only the current run loaded it */
  FLAME_BINARY_REMOVED,   /* only the baseline run loaded it */
} FlameBinaryStatus;

typedef struct
{
  char              *path;
  char              *baseline_build_id;  /* hex; NULL when added */
  char              *current_build_id;   /* hex; NULL when removed */
  FlameBinaryStatus  status;
} FlameBinary;

GHashTable  *flame_build_ids_parse           (const char        *text);
GPtrArray   *flame_binaries_compare          (FlameProfile      *baseline,
                                              FlameProfile      *current,
                                              gboolean           exact_paths);
guint        flame_binaries_count_differences (GPtrArray        *binaries);
const char  *flame_binary_status_to_string   (FlameBinaryStatus  status);
char        *flame_binary_describe           (const FlameBinary *binary);
char        *flame_binary_short_name         (const FlameBinary *binary);

G_END_DECLS

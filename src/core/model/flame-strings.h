/* flame-strings.h: an interned string pool.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "flame-hash.h"

G_BEGIN_DECLS

/* Id 0 is always the empty string. Ids are dense, so callers can keep
 * per-string side arrays. Strings are stored once, NUL-terminated. */
typedef struct _FlameStrings FlameStrings;

FlameStrings *flame_strings_new     (void);
void          flame_strings_free    (FlameStrings *self);
guint32       flame_strings_intern  (FlameStrings *self,
                                     const char   *str,
                                     gsize         len);
guint32       flame_strings_intern_hashed (FlameStrings *self,
                                           const char   *str,
                                           gsize         len,
                                           guint32       hash);
void          flame_strings_prefetch (const FlameStrings *self,
                                      const guint32      *hashes,
                                      guint               n);
void          flame_strings_prefetch_found (const FlameStrings *self,
                                            const guint32      *hashes,
                                            guint               n,
                                            gboolean            chars);
const char   *flame_strings_get     (const FlameStrings *self,
                                     guint32             id);
gsize         flame_strings_get_len (const FlameStrings *self,
                                     guint32             id);
guint         flame_strings_make_valid_utf8 (FlameStrings *self);
guint         flame_utf8_append_replacing (GString    *out,
                                           const char *str,
                                           gsize       len);
gsize         flame_strings_memory  (const FlameStrings *self);

/* The hash flame_strings_intern_hashed() takes. */
static inline guint32
flame_strings_hash (const char *str,
                    gsize       len)
{
  guint64 h = flame_hash_bytes (str, len);
  return (guint32) (h ^ (h >> 32));
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameStrings, flame_strings_free)

G_END_DECLS

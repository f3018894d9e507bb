/* flame-spool.h: OUTPUT.spool, the raw records of a recording as they
 * arrive, written while recording and read back after a crash.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FlameSpoolWriter FlameSpoolWriter;
typedef struct _FlameSpoolReader FlameSpoolReader;

FlameSpoolWriter *flame_spool_writer_new        (const char        *path);
gboolean          flame_spool_writer_append     (FlameSpoolWriter  *self,
                                                 const void        *data,
                                                 gsize              len,
                                                 GError           **error);
void              flame_spool_writer_sync       (FlameSpoolWriter  *self,
                                                 gboolean           metadata);
void              flame_spool_writer_sync_due   (FlameSpoolWriter  *self,
                                                 gint64             now);
void              flame_spool_writer_free       (FlameSpoolWriter  *self);

FlameSpoolReader *flame_spool_reader_new        (const char        *path,
                                                 GError           **error);
GKeyFile         *flame_spool_reader_get_header (FlameSpoolReader  *self);
gint64            flame_spool_reader_get_mtime  (FlameSpoolReader  *self);
gboolean          flame_spool_reader_next       (FlameSpoolReader  *self,
                                                 const guint8     **data,
                                                 gsize             *len);
void              flame_spool_reader_free       (FlameSpoolReader  *self);

GPtrArray        *flame_spool_find              (const char        *dir);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameSpoolWriter, flame_spool_writer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameSpoolReader, flame_spool_reader_free)

G_END_DECLS

/* flame-protobuf.h: a small bounds-checked protobuf wire-format reader.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only what pprof needs: varints, length-delimited fields, packed
 * repeated scalars, and skipping the fixed-width wire types. Nothing
 * here recurses: a caller opens a nested message by starting a new
 * reader on the field's bytes, so the nesting depth is the caller's
 * (fixed) schema depth.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  FLAME_PB_VARINT = 0,
  FLAME_PB_I64    = 1,
  FLAME_PB_LEN    = 2,
  FLAME_PB_I32    = 5,
} FlamePbWireType;

typedef struct
{
  const guint8 *base;   /* start of the whole buffer, for offsets */
  const guint8 *pos;
  const guint8 *end;
  const char   *error;  /* reason, set when a read fails */
  gsize         error_offset;
} FlamePbReader;

typedef struct
{
  guint32       number;
  guint         wire_type;
  guint64       value;  /* varint, i32 or i64 */
  const guint8 *data;   /* FLAME_PB_LEN: payload */
  gsize         len;
  gsize         offset; /* of the field's tag, from base */
} FlamePbField;

void     flame_pb_reader_init (FlamePbReader       *r,
                               const guint8        *base,
                               const guint8        *start,
                               gsize                len);
/* Returns TRUE with the next field, FALSE at the end of the buffer or on
 * malformed data (then r->error is set). */
gboolean flame_pb_next        (FlamePbReader       *r,
                               FlamePbField        *field);
/* Reads one varint from [*pos, end); FALSE when truncated or longer than
 * ten bytes. */
gboolean flame_pb_read_varint (const guint8       **pos,
                               const guint8        *end,
                               guint64             *value);

/* Iterates the scalars of a repeated varint field, packed (wire type 2)
 * or not (wire type 0): call with the field, then repeatedly. */
typedef struct
{
  const guint8 *pos;
  const guint8 *end;
  guint64       single;
  gboolean      single_pending;
  gboolean      failed;
} FlamePbVarints;

void     flame_pb_varints_init (FlamePbVarints     *it,
                                const FlamePbField *field);
gboolean flame_pb_varints_next (FlamePbVarints     *it,
                                guint64            *value);

G_END_DECLS

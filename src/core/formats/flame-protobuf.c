/* flame-protobuf.c: a small bounds-checked protobuf wire-format reader.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-protobuf.h"

void
flame_pb_reader_init (FlamePbReader *r,
                      const guint8  *base,
                      const guint8  *start,
                      gsize          len)
{
  r->base = base;
  r->pos = start;
  r->end = start + len;
  r->error = NULL;
  r->error_offset = 0;
}

gboolean
flame_pb_read_varint (const guint8 **pos,
                      const guint8  *end,
                      guint64       *value)
{
  const guint8 *p = *pos;
  guint64 v = 0;

  /* ten bytes hold 64 bits; an eleventh would be garbage, and stopping
   * there keeps a run of 0x80 bytes from being read forever */
  for (guint shift = 0; shift < 70; shift += 7)
    {
      guint8 b;

      if (p >= end)
        return FALSE;
      b = *p++;
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          *pos = p;
          *value = v;
          return TRUE;
        }
      if (shift == 63)
        return FALSE;
    }
  return FALSE;
}

static gboolean
fail (FlamePbReader *r,
      const guint8  *at,
      const char    *reason)
{
  r->error = reason;
  r->error_offset = at - r->base;
  r->pos = r->end;
  return FALSE;
}

gboolean
flame_pb_next (FlamePbReader *r,
               FlamePbField  *field)
{
  const guint8 *start = r->pos;
  guint64 tag;

  if (r->pos >= r->end)
    return FALSE;
  if (!flame_pb_read_varint (&r->pos, r->end, &tag))
    return fail (r, start, "truncated or overlong field tag");

  field->offset = start - r->base;
  field->number = (guint32) MIN (tag >> 3, (guint64) G_MAXUINT32);
  field->wire_type = tag & 7;
  field->data = NULL;
  field->len = 0;
  field->value = 0;
  if (field->number == 0 || (tag >> 3) > 0x1fffffff)
    return fail (r, start, "invalid field number");

  switch (field->wire_type)
    {
    case FLAME_PB_VARINT:
      if (!flame_pb_read_varint (&r->pos, r->end, &field->value))
        return fail (r, start, "truncated varint");
      return TRUE;
    case FLAME_PB_I64:
      if (r->end - r->pos < 8)
        return fail (r, start, "truncated 64-bit field");
      {
        guint64 v;
        memcpy (&v, r->pos, 8);
        field->value = GUINT64_FROM_LE (v);
      }
      r->pos += 8;
      return TRUE;
    case FLAME_PB_I32:
      if (r->end - r->pos < 4)
        return fail (r, start, "truncated 32-bit field");
      {
        guint32 v;
        memcpy (&v, r->pos, 4);
        field->value = GUINT32_FROM_LE (v);
      }
      r->pos += 4;
      return TRUE;
    case FLAME_PB_LEN:
      {
        guint64 len;
        if (!flame_pb_read_varint (&r->pos, r->end, &len))
          return fail (r, start, "truncated length");
        if (len > (guint64) (r->end - r->pos))
          return fail (r, start, "length runs past the end of the enclosing message");
        field->data = r->pos;
        field->len = (gsize) len;
        r->pos += len;
        return TRUE;
      }
    default:
      /* groups (3, 4) are long deprecated and pprof never wrote them */
      return fail (r, start, "unsupported wire type");
    }
}

void
flame_pb_varints_init (FlamePbVarints     *it,
                       const FlamePbField *field)
{
  it->failed = FALSE;
  it->single_pending = FALSE;
  it->pos = it->end = NULL;
  if (field->wire_type == FLAME_PB_LEN)
    {
      it->pos = field->data;
      it->end = field->data + field->len;
    }
  else if (field->wire_type == FLAME_PB_VARINT)
    {
      it->single = field->value;
      it->single_pending = TRUE;
    }
  else
    it->failed = TRUE;
}

gboolean
flame_pb_varints_next (FlamePbVarints *it,
                       guint64        *value)
{
  if (it->single_pending)
    {
      it->single_pending = FALSE;
      *value = it->single;
      return TRUE;
    }
  if (it->pos == NULL || it->pos >= it->end)
    return FALSE;
  if (!flame_pb_read_varint (&it->pos, it->end, value))
    {
      it->failed = TRUE;
      it->pos = it->end;
      return FALSE;
    }
  return TRUE;
}

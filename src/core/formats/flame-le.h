/* flame-le.h: little-endian integers of binary formats, read from any
 * alignment.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <string.h>

static inline guint16
rd16 (const guint8 *p)
{
  guint16 v;
  memcpy (&v, p, 2);
  return GUINT16_FROM_LE (v);
}

static inline guint32
rd32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static inline guint64
rd64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

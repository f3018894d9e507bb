/* flame-hash.h: a small, fast, non-cryptographic hash for interning.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

static inline guint64
flame_hash_mix (guint64 a, guint64 b)
{
  /* 64x64->128 multiply folded back; good avalanche for the cost. */
  __uint128_t r = (__uint128_t) a * b;
  return (guint64) r ^ (guint64) (r >> 64);
}

static inline guint64
flame_hash_bytes (const void *data, gsize len)
{
  const guint8 *p = data;
  guint64 h = 0x9e3779b97f4a7c15ull ^ (len * 0xa0761d6478bd642full);
  guint64 w;

  while (len >= 16)
    {
      guint64 a, b;
      memcpy (&a, p, 8);
      memcpy (&b, p + 8, 8);
      h = flame_hash_mix (a ^ 0xe7037ed1a0b428dbull ^ h, b ^ 0x8ebc6af09c88c6e3ull);
      p += 16;
      len -= 16;
    }
  if (len >= 8)
    {
      memcpy (&w, p, 8);
      h = flame_hash_mix (w ^ 0xe7037ed1a0b428dbull, h ^ 0x589965cc75374cc3ull);
      p += 8;
      len -= 8;
    }
  w = 0;
  if (len > 0)
    memcpy (&w, p, len);
  return flame_hash_mix (w ^ 0x1d8e4e27c47d124full ^ h, 0xa0761d6478bd642full ^ len);
}

static inline guint64
flame_hash_u64 (guint64 x)
{
  return flame_hash_mix (x ^ 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull);
}

G_END_DECLS

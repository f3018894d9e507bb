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

/* wyhash-style: 16 bytes per multiply; the last (or only) up to 16 bytes
 * are read as two possibly overlapping words, so no byte is copied one at
 * a time (short tails went through the stack and stalled the load that
 * read them back). */
static inline guint64
flame_hash_bytes (const void *data, gsize len)
{
  const guint8 *p = data;
  guint64 h = 0x9e3779b97f4a7c15ull ^ (len * 0xa0761d6478bd642full);
  guint64 a, b;

  if (G_LIKELY (len <= 16))
    {
      if (len >= 8)
        {
          memcpy (&a, p, 8);
          memcpy (&b, p + len - 8, 8);
        }
      else if (len >= 4)
        {
          guint32 x, y;
          memcpy (&x, p, 4);
          memcpy (&y, p + len - 4, 4);
          a = x;
          b = y;
        }
      else if (len > 0)
        {
          a = ((guint64) p[0] << 16) | ((guint64) p[len >> 1] << 8) | p[len - 1];
          b = 0;
        }
      else
        a = b = 0;
    }
  else
    {
      gsize left = len;

      while (left > 16)
        {
          memcpy (&a, p, 8);
          memcpy (&b, p + 8, 8);
          h = flame_hash_mix (a ^ 0xe7037ed1a0b428dbull ^ h, b ^ 0x8ebc6af09c88c6e3ull);
          p += 16;
          left -= 16;
        }
      memcpy (&a, p + left - 16, 8);
      memcpy (&b, p + left - 8, 8);
    }
  return flame_hash_mix (flame_hash_mix (a ^ 0xe7037ed1a0b428dbull ^ h, b ^ 0x8ebc6af09c88c6e3ull),
                         0xa0761d6478bd642full ^ len);
}

static inline guint64
flame_hash_u64 (guint64 x)
{
  return flame_hash_mix (x ^ 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull);
}

G_END_DECLS

/* flame-strings.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-strings.h"
#include "flame-hash.h"

/* Open addressing with linear probing. Slots hold id + 1 (0 = empty) and
 * a copy of the hash lives beside each string so probing rarely touches
 * the characters. */
struct _FlameStrings
{
  char    *chars;
  gsize    chars_len;
  gsize    chars_alloc;
  gsize   *offsets;
  guint32 *lens;
  guint32 *hashes;
  guint    n_strings;
  guint    alloc_strings;
  guint32 *slots;
  guint    mask;
};

FlameStrings *
flame_strings_new (void)
{
  FlameStrings *self = g_new0 (FlameStrings, 1);

  self->chars_alloc = 4096;
  self->chars = g_malloc (self->chars_alloc);
  self->alloc_strings = 256;
  self->offsets = g_new (gsize, self->alloc_strings);
  self->lens = g_new (guint32, self->alloc_strings);
  self->hashes = g_new (guint32, self->alloc_strings);
  self->mask = 511;
  self->slots = g_new0 (guint32, self->mask + 1);

  /* id 0: "" (never in the table; intern() short-cuts it) */
  self->chars[0] = 0;
  self->chars_len = 1;
  self->offsets[0] = 0;
  self->lens[0] = 0;
  self->hashes[0] = 0;
  self->n_strings = 1;

  return self;
}

void
flame_strings_free (FlameStrings *self)
{
  if (self == NULL)
    return;
  g_free (self->chars);
  g_free (self->offsets);
  g_free (self->lens);
  g_free (self->hashes);
  g_free (self->slots);
  g_free (self);
}

static void
flame_strings_grow_table (FlameStrings *self)
{
  guint new_mask = self->mask * 2 + 1;
  guint32 *slots = g_new0 (guint32, new_mask + 1);

  for (guint id = 1; id < self->n_strings; id++)
    {
      guint i = self->hashes[id] & new_mask;
      while (slots[i] != 0)
        i = (i + 1) & new_mask;
      slots[i] = id + 1;
    }
  g_free (self->slots);
  self->slots = slots;
  self->mask = new_mask;
}

static inline guint32
hash32 (const char *str, gsize len)
{
  guint64 h = flame_hash_bytes (str, len);
  return (guint32) (h ^ (h >> 32));
}

/* Returns the id when found, else the empty slot where it would go. */
static guint32
find (FlameStrings *self,
      const char   *str,
      gsize         len,
      guint32       h,
      gboolean     *found)
{
  guint i;

  for (i = h & self->mask; self->slots[i] != 0; i = (i + 1) & self->mask)
    {
      guint32 id = self->slots[i] - 1;
      if (self->hashes[id] == h && self->lens[id] == len &&
          memcmp (self->chars + self->offsets[id], str, len) == 0)
        {
          *found = TRUE;
          return id;
        }
    }
  *found = FALSE;
  return i;
}

guint32
flame_strings_lookup (FlameStrings *self,
                      const char   *str,
                      gsize         len,
                      gboolean     *found)
{
  guint32 id;

  if (len == 0)
    {
      *found = TRUE;
      return 0;
    }
  id = find (self, str, len, hash32 (str, len), found);
  return *found ? id : 0;
}

guint32
flame_strings_intern (FlameStrings *self,
                      const char   *str,
                      gsize         len)
{
  gboolean found;
  guint32 slot;
  guint32 id;
  guint32 h;

  if (len == 0)
    return 0;

  /* Names longer than 4 GiB cannot come from a sane profile; loaders
   * enforce a far smaller limit, this only keeps lens[] honest. */
  g_return_val_if_fail (len < G_MAXUINT32, 0);

  h = hash32 (str, len);
  slot = find (self, str, len, h, &found);
  if (found)
    return slot;

  if (self->n_strings == self->alloc_strings)
    {
      self->alloc_strings *= 2;
      self->offsets = g_renew (gsize, self->offsets, self->alloc_strings);
      self->lens = g_renew (guint32, self->lens, self->alloc_strings);
      self->hashes = g_renew (guint32, self->hashes, self->alloc_strings);
    }
  if (self->chars_len + len + 1 > self->chars_alloc)
    {
      while (self->chars_len + len + 1 > self->chars_alloc)
        self->chars_alloc *= 2;
      self->chars = g_realloc (self->chars, self->chars_alloc);
    }

  id = self->n_strings++;
  self->offsets[id] = self->chars_len;
  self->lens[id] = (guint32) len;
  self->hashes[id] = h;
  memcpy (self->chars + self->chars_len, str, len);
  self->chars[self->chars_len + len] = 0;
  self->chars_len += len + 1;
  self->slots[slot] = id + 1;

  if (self->n_strings * 2 > self->mask)
    flame_strings_grow_table (self);

  return id;
}

/**
 * flame_strings_make_valid_utf8:
 *
 * Replaces every byte that is not part of valid UTF-8 with '?', in
 * place, so names from untrusted files can go to Pango, JSON and
 * terminals. Validating once per distinct string is cheap next to
 * validating every line of the input.
 *
 * Returns: how many strings were changed
 */
guint
flame_strings_make_valid_utf8 (FlameStrings *self)
{
  guint changed = 0;

  for (guint id = 1; id < self->n_strings; id++)
    {
      char *s = self->chars + self->offsets[id];
      gsize len = self->lens[id];
      const char *end;

      if (g_utf8_validate (s, len, &end))
        continue;
      do
        {
          gsize at = end - s;
          /* an embedded NUL is as bad as invalid UTF-8 for a name */
          s[at] = '?';
          s += at + 1;
          len -= at + 1;
        }
      while (!g_utf8_validate (s, len, &end));
      changed++;
      s = self->chars + self->offsets[id];
      self->hashes[id] = hash32 (s, self->lens[id]);
    }
  if (changed > 0)
    flame_strings_grow_table (self);  /* rehash; grows once, harmlessly */
  return changed;
}

const char *
flame_strings_get (const FlameStrings *self,
                   guint32             id)
{
  g_return_val_if_fail (id < self->n_strings, "");
  return self->chars + self->offsets[id];
}

gsize
flame_strings_get_len (const FlameStrings *self,
                       guint32             id)
{
  g_return_val_if_fail (id < self->n_strings, 0);
  return self->lens[id];
}

guint
flame_strings_count (const FlameStrings *self)
{
  return self->n_strings;
}

gsize
flame_strings_memory (const FlameStrings *self)
{
  return self->chars_alloc +
         self->alloc_strings * (sizeof (gsize) + 2 * sizeof (guint32)) +
         (self->mask + 1) * sizeof (guint32);
}

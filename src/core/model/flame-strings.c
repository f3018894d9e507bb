/* flame-strings.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-strings.h"
#include "flame-hash.h"

/* One record per string, so a lookup touches the slot, the record and
 * the characters: three cache lines at most. */
typedef struct
{
  gsize   offset;
  guint32 len;
  guint32 hash;
} Entry;

/* Open addressing with linear probing. A slot holds the string's hash
 * beside its id + 1 (0 = empty): most probes end without leaving the
 * slot array. */
typedef struct
{
  guint32 hash;
  guint32 id1;
} Slot;

struct _FlameStrings
{
  char   *chars;
  gsize   chars_len;
  gsize   chars_alloc;
  Entry  *entries;
  guint   n_strings;
  guint   alloc_strings;
  Slot   *slots;
  guint   mask;
};

FlameStrings *
flame_strings_new (void)
{
  FlameStrings *self = g_new0 (FlameStrings, 1);

  self->chars_alloc = 4096;
  self->chars = g_malloc (self->chars_alloc);
  self->alloc_strings = 256;
  self->entries = g_new (Entry, self->alloc_strings);
  self->mask = 511;
  self->slots = g_new0 (Slot, self->mask + 1);

  /* id 0: "" (never in the table; intern() short-cuts it) */
  self->chars[0] = 0;
  self->chars_len = 1;
  self->entries[0] = (Entry) { 0, 0, 0 };
  self->n_strings = 1;

  return self;
}

void
flame_strings_free (FlameStrings *self)
{
  if (self == NULL)
    return;
  g_free (self->chars);
  g_free (self->entries);
  g_free (self->slots);
  g_free (self);
}

static void
rehash (FlameStrings *self,
        guint         mask)
{
  Slot *slots = g_new0 (Slot, (gsize) mask + 1);

  for (guint id = 1; id < self->n_strings; id++)
    {
      guint i = self->entries[id].hash & mask;
      while (slots[i].id1 != 0)
        i = (i + 1) & mask;
      slots[i] = (Slot) { self->entries[id].hash, id + 1 };
    }
  g_free (self->slots);
  self->slots = slots;
  self->mask = mask;
}

/* Returns the id when found, else the empty slot where it would go. */
static inline guint32
find (FlameStrings *self,
      const char   *str,
      gsize         len,
      guint32       h,
      gboolean     *found)
{
  guint i;

  for (i = h & self->mask; self->slots[i].id1 != 0; i = (i + 1) & self->mask)
    {
      if (self->slots[i].hash == h)
        {
          guint32 id = self->slots[i].id1 - 1;
          const Entry *e = &self->entries[id];

          if (e->len == len && memcmp (self->chars + e->offset, str, len) == 0)
            {
              *found = TRUE;
              return id;
            }
        }
    }
  *found = FALSE;
  return i;
}

guint32
flame_strings_intern (FlameStrings *self,
                      const char   *str,
                      gsize         len)
{
  if (len == 0)
    return 0;
  return flame_strings_intern_hashed (self, str, len, flame_strings_hash (str, len));
}

/**
 * flame_strings_prefetch:
 * @hashes: (array length=n): flame_strings_hash() of strings about to be
 *   interned or looked up
 *
 * Prefetches the hash slots where the lookups of these strings start, so
 * that a caller with many strings to look up has their cache misses
 * overlap instead of queueing. Only a hint: nothing changes.
 */
void
flame_strings_prefetch (const FlameStrings *self,
                        const guint32      *hashes,
                        guint               n)
{
  for (guint k = 0; k < n; k++)
    __builtin_prefetch (&self->slots[hashes[k] & self->mask]);
}

/**
 * flame_strings_prefetch_found:
 * @hashes: (array length=n): as for flame_strings_prefetch(), called a
 *   moment before
 * @chars: FALSE: the records of the strings found in their first slot;
 *   TRUE: their characters (call with FALSE a moment before)
 *
 * The next steps after flame_strings_prefetch(): a lookup that hits
 * reads the slot, then the string's record, then its characters, each
 * where the one before points; prefetching each step for all the strings
 * at once has their misses overlap. Only a hint: nothing changes.
 */
void
flame_strings_prefetch_found (const FlameStrings *self,
                              const guint32      *hashes,
                              guint               n,
                              gboolean            chars)
{
  for (guint k = 0; k < n; k++)
    {
      const Slot *slot = &self->slots[hashes[k] & self->mask];

      if (slot->id1 == 0 || slot->hash != hashes[k])
        continue;
      if (chars)
        __builtin_prefetch (self->chars + self->entries[slot->id1 - 1].offset);
      else
        __builtin_prefetch (&self->entries[slot->id1 - 1]);
    }
}

/**
 * flame_strings_intern_hashed:
 * @hash: flame_strings_hash (@str, @len)
 *
 * flame_strings_intern() for a caller that has hashed the string already.
 */
guint32
flame_strings_intern_hashed (FlameStrings *self,
                             const char   *str,
                             gsize         len,
                             guint32       hash)
{
  gboolean found;
  guint32 slot;
  guint32 id;
  guint32 h = hash;

  if (len == 0)
    return 0;

  /* Names longer than 4 GiB cannot come from a sane profile; loaders
   * enforce a far smaller limit, this only keeps the length honest. */
  g_return_val_if_fail (len < G_MAXUINT32, 0);

  slot = find (self, str, len, h, &found);
  if (found)
    return slot;

  if (self->n_strings == self->alloc_strings)
    {
      self->alloc_strings *= 2;
      self->entries = g_renew (Entry, self->entries, self->alloc_strings);
    }
  if (self->chars_len + len + 1 > self->chars_alloc)
    {
      while (self->chars_len + len + 1 > self->chars_alloc)
        self->chars_alloc *= 2;
      self->chars = g_realloc (self->chars, self->chars_alloc);
    }

  id = self->n_strings++;
  self->entries[id] = (Entry) { self->chars_len, (guint32) len, h };
  memcpy (self->chars + self->chars_len, str, len);
  self->chars[self->chars_len + len] = 0;
  self->chars_len += len + 1;
  self->slots[slot] = (Slot) { h, id + 1 };

  if (self->n_strings * 2 > self->mask)
    rehash (self, self->mask * 2 + 1);

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
      char *s = self->chars + self->entries[id].offset;
      gsize len = self->entries[id].len;
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
      self->entries[id].hash = flame_strings_hash (self->chars + self->entries[id].offset,
                                                   self->entries[id].len);
    }
  if (changed > 0)
    rehash (self, self->mask);
  return changed;
}

/**
 * flame_utf8_append_replacing:
 *
 * Appends @len bytes of @str to @out with each maximal ill-formed
 * subsequence replaced by one U+FFFD, as Unicode recommends and as
 * Python's "replace" error handler does, so that a name reads the
 * same here as in the tool that wrote it. NUL bytes are kept.
 *
 * Returns: how many replacement characters were appended
 */
guint
flame_utf8_append_replacing (GString    *out,
                             const char *str,
                             gsize       len)
{
  const guint8 *p = (const guint8 *) str;
  const guint8 *end = p + len;
  guint replaced = 0;

  while (p < end)
    {
      const char *valid_end;
      guint8 lead, lo = 0x80, hi = 0xbf;
      guint need = 0;

      if (g_utf8_validate_len ((const char *) p, end - p, &valid_end))
        {
          g_string_append_len (out, (const char *) p, end - p);
          break;
        }
      g_string_append_len (out, (const char *) p, (const guint8 *) valid_end - p);
      p = (const guint8 *) valid_end;
      lead = *p++;
      if (lead == 0)
        {
          g_string_append_c (out, '\0');
          continue;
        }
      if (lead >= 0xc2 && lead <= 0xdf)
        need = 1;
      else if (lead >= 0xe0 && lead <= 0xef)
        {
          need = 2;
          lo = lead == 0xe0 ? 0xa0 : 0x80;
          hi = lead == 0xed ? 0x9f : 0xbf;
        }
      else if (lead >= 0xf0 && lead <= 0xf4)
        {
          need = 3;
          lo = lead == 0xf0 ? 0x90 : 0x80;
          hi = lead == 0xf4 ? 0x8f : 0xbf;
        }
      /* the lead byte and the continuation bytes that could still have
       * completed it are one ill-formed subsequence */
      for (guint k = 0; k < need && p < end && *p >= lo && *p <= hi; k++)
        {
          p++;
          lo = 0x80;
          hi = 0xbf;
        }
      g_string_append (out, "\xef\xbf\xbd");
      replaced++;
    }
  return replaced;
}

const char *
flame_strings_get (const FlameStrings *self,
                   guint32             id)
{
  g_return_val_if_fail (id < self->n_strings, "");
  return self->chars + self->entries[id].offset;
}

gsize
flame_strings_get_len (const FlameStrings *self,
                       guint32             id)
{
  g_return_val_if_fail (id < self->n_strings, 0);
  return self->entries[id].len;
}

gsize
flame_strings_memory (const FlameStrings *self)
{
  return self->chars_alloc +
         (gsize) self->alloc_strings * sizeof (Entry) +
         ((gsize) self->mask + 1) * sizeof (Slot);
}

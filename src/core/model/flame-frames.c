/* flame-frames.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-frames.h"
#include "flame-hash.h"

struct _FlameFrames
{
  FlameStrings *strings;
  FlameFrame   *frames;
  guint32       n_frames;
  guint32       alloc_frames;
  guint32      *slots;  /* frame + 1, 0 = empty */
  guint32       mask;
  /* Frames that are just a name (folded, perf) are by far the most
   * common; map name id -> frame id + 1 directly. */
  guint32      *by_name;
  guint32       by_name_len;
};

FlameFrames *
flame_frames_new (void)
{
  FlameFrames *self = g_new0 (FlameFrames, 1);

  self->strings = flame_strings_new ();
  self->alloc_frames = 256;
  self->frames = g_new (FlameFrame, self->alloc_frames);
  self->mask = 511;
  self->slots = g_new0 (guint32, self->mask + 1);
  return self;
}

void
flame_frames_free (FlameFrames *self)
{
  if (self == NULL)
    return;
  flame_strings_free (self->strings);
  g_free (self->frames);
  g_free (self->slots);
  g_free (self->by_name);
  g_free (self);
}

FlameStrings *
flame_frames_get_strings (FlameFrames *self)
{
  return self->strings;
}

static inline guint32
frame_hash (guint32 name, guint32 file, guint32 line, guint32 flags)
{
  guint64 h = flame_hash_mix (((guint64) name << 32 | file) ^ 0x9e3779b97f4a7c15ull,
                              ((guint64) line << 32 | flags) ^ 0xbf58476d1ce4e5b9ull);
  return (guint32) (h ^ (h >> 32));
}

static void
grow_table (FlameFrames *self)
{
  guint32 mask = self->mask * 2 + 1;
  guint32 *slots = g_new0 (guint32, (gsize) mask + 1);

  for (guint32 f = 0; f < self->n_frames; f++)
    {
      const FlameFrame *fr = &self->frames[f];
      guint32 i = frame_hash (fr->name, fr->file, fr->line, fr->flags) & mask;
      while (slots[i] != 0)
        i = (i + 1) & mask;
      slots[i] = f + 1;
    }
  g_free (self->slots);
  self->slots = slots;
  self->mask = mask;
}

guint32
flame_frames_intern (FlameFrames *self,
                     guint32      name,
                     guint32      file,
                     guint32      line,
                     guint32      flags)
{
  guint32 i;
  guint32 f;

  for (i = frame_hash (name, file, line, flags) & self->mask;
       self->slots[i] != 0;
       i = (i + 1) & self->mask)
    {
      const FlameFrame *fr = &self->frames[self->slots[i] - 1];
      if (fr->name == name && fr->file == file && fr->line == line && fr->flags == flags)
        return self->slots[i] - 1;
    }

  if (self->n_frames == self->alloc_frames)
    {
      self->alloc_frames *= 2;
      self->frames = g_renew (FlameFrame, self->frames, self->alloc_frames);
    }
  f = self->n_frames++;
  self->frames[f] = (FlameFrame) { name, file, line, flags };
  self->slots[i] = f + 1;
  if (self->n_frames * 2 > self->mask)
    grow_table (self);
  return f;
}

guint32
flame_frames_intern_name (FlameFrames *self,
                          const char  *name,
                          gsize        len)
{
  return flame_frames_intern_name_hashed (self, name, len, flame_strings_hash (name, len));
}

/* Hints that names with these hashes (flame_strings_hash()) are next:
 * flame_strings_prefetch(). */
void
flame_frames_prefetch_names (const FlameFrames *self,
                             const guint32     *hashes,
                             guint              n)
{
  flame_strings_prefetch (self->strings, hashes, n);
}

/* The next steps: flame_strings_prefetch_found(). */
void
flame_frames_prefetch_found (const FlameFrames *self,
                             const guint32     *hashes,
                             guint              n,
                             gboolean           chars)
{
  flame_strings_prefetch_found (self->strings, hashes, n, chars);
}

/**
 * flame_frames_intern_name_hashed:
 * @hash: flame_strings_hash (@name, @len)
 *
 * flame_frames_intern_name() for a caller that has hashed the name.
 */
guint32
flame_frames_intern_name_hashed (FlameFrames *self,
                                 const char  *name,
                                 gsize        len,
                                 guint32      hash)
{
  guint32 id = flame_strings_intern_hashed (self->strings, name, len, hash);
  guint32 f;

  if (id >= self->by_name_len)
    {
      guint32 n = MAX (1024, self->by_name_len);
      while (n <= id)
        n *= 2;
      self->by_name = g_renew (guint32, self->by_name, n);
      memset (self->by_name + self->by_name_len, 0,
              (n - self->by_name_len) * sizeof (guint32));
      self->by_name_len = n;
    }
  if (self->by_name[id] != 0)
    return self->by_name[id] - 1;
  f = flame_frames_intern (self, id, 0, 0, 0);
  self->by_name[id] = f + 1;
  return f;
}

guint
flame_frames_count (const FlameFrames *self)
{
  return self->n_frames;
}

const FlameFrame *
flame_frames_get (const FlameFrames *self,
                  guint32            frame)
{
  g_return_val_if_fail (frame < self->n_frames, NULL);
  return &self->frames[frame];
}

const char *
flame_frames_get_name (const FlameFrames *self,
                       guint32            frame)
{
  g_return_val_if_fail (frame < self->n_frames, "");
  return flame_strings_get (self->strings, self->frames[frame].name);
}

const char *
flame_frames_get_file (const FlameFrames *self,
                       guint32            frame)
{
  g_return_val_if_fail (frame < self->n_frames, "");
  return flame_strings_get (self->strings, self->frames[frame].file);
}

gsize
flame_frames_memory (const FlameFrames *self)
{
  return flame_strings_memory (self->strings) +
         (gsize) self->alloc_frames * sizeof (FlameFrame) +
         ((gsize) self->mask + 1) * sizeof (guint32) +
         (gsize) self->by_name_len * sizeof (guint32);
}

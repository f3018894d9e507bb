/* flame-pyframes.c: Python code objects sent by the sampler.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "flame-sampler-protocol.h"
#include "flame-pyframes.h"

typedef struct
{
  FlamePyCode code;
  GBytes     *table;
} Code;

struct _FlamePyCodes
{
  GHashTable *codes;   /* id → Code */
};

static void
code_free (gpointer data)
{
  Code *c = data;

  g_free ((char *) c->code.name);
  g_free ((char *) c->code.file);
  g_clear_pointer (&c->table, g_bytes_unref);
  g_free (c);
}

FlamePyCodes *
flame_py_codes_new (void)
{
  FlamePyCodes *self = g_new0 (FlamePyCodes, 1);

  self->codes = g_hash_table_new_full (NULL, NULL, NULL, code_free);
  return self;
}

void
flame_py_codes_free (FlamePyCodes *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->codes);
  g_free (self);
}

/* CPython's compact storage (1, 2 or 4 bytes per character) as UTF-8;
 * what is not a character (lone surrogates, a cut character) becomes
 * U+FFFD */
static char *
decode (const guint8 *p,
        gsize         len,
        guint         kind)
{
  GString *s = g_string_sized_new (len + 1);

  for (gsize i = 0; i + kind <= len; i += kind)
    {
      gunichar c;

      if (kind == 1)
        c = p[i];
      else if (kind == 2)
        c = p[i] | (gunichar) p[i + 1] << 8;
      else
        c = p[i] | (gunichar) p[i + 1] << 8 | (gunichar) p[i + 2] << 16 | (gunichar) p[i + 3] << 24;
      if (!g_unichar_validate (c) || c == 0)
        c = 0xfffd;
      g_string_append_unichar (s, c);
    }
  return g_string_free (s, FALSE);
}

gboolean
flame_py_codes_add (FlamePyCodes *self,
                    const guint8 *rec,
                    gsize         len)
{
  FlameRecPyCode r;
  const guint8 *p = rec + sizeof r;
  Code *c;

  if (len < sizeof r)
    return FALSE;
  memcpy (&r, rec, sizeof r);
  if (r.id == 0 || (r.name_kind != 1 && r.name_kind != 2 && r.name_kind != 4) ||
      (r.file_kind != 1 && r.file_kind != 2 && r.file_kind != 4) ||
      (gsize) r.name_len + r.file_len + r.table_len > len - sizeof r)
    return FALSE;
  c = g_new0 (Code, 1);
  c->code.name = r.name_len > 0 ? decode (p, r.name_len, r.name_kind) : g_strdup ("[unknown]");
  p += r.name_len;
  c->code.file = r.file_len > 0 ? decode (p, r.file_len, r.file_kind) : NULL;
  p += r.file_len;
  c->code.first_line = r.first_line > 0 ? (guint) r.first_line : 0;
  c->table = g_bytes_new (p, r.table_len);
  g_hash_table_replace (self->codes, GUINT_TO_POINTER (r.id), c);
  return TRUE;
}

gboolean
flame_py_codes_is_empty (FlamePyCodes *self)
{
  return g_hash_table_size (self->codes) == 0;
}

const FlamePyCode *
flame_py_codes_lookup (FlamePyCodes *self,
                       guint32       id)
{
  Code *c = g_hash_table_lookup (self->codes, GUINT_TO_POINTER (id));

  return c != NULL ? &c->code : NULL;
}

guint
flame_py_codes_line (FlamePyCodes *self,
                     guint32       id,
                     guint32       lasti)
{
  Code *c = g_hash_table_lookup (self->codes, GUINT_TO_POINTER (id));
  gsize len;
  const guint8 *table;

  if (c == NULL || lasti == FLAME_PY_NO_LASTI)
    return 0;
  table = g_bytes_get_data (c->table, &len);
  return flame_py_linetable_line (table, len, c->code.first_line, lasti);
}

/* Objects/locations.md in CPython: each entry starts with a byte that
 * has bit 7 set, its code in bits 3-6 and its length in code units - 1
 * in bits 0-2; varints are 6 bits a byte, bit 6 for "more". */
static gboolean
varint (const guint8 **p,
        const guint8  *end,
        guint32       *value)
{
  guint32 v = 0;
  guint shift = 0;

  for (;;)
    {
      if (*p >= end || shift > 30)
        return FALSE;
      v |= (guint32) (**p & 63) << shift;
      shift += 6;
      if (!(*(*p)++ & 64))
        break;
    }
  *value = v;
  return TRUE;
}

guint
flame_py_linetable_line (const guint8 *table,
                         gsize         len,
                         guint         first_line,
                         guint32       lasti)
{
  const guint8 *p = table, *end = table + len;
  gint64 line = first_line;
  guint64 addr = 0;

  while (p < end)
    {
      guint8 b = *p++;
      guint code = (b >> 3) & 15, length = (b & 7) + 1;
      gint64 delta = 0;
      guint32 v;

      if (!(b & 0x80))
        return 0;  /* not at the start of an entry: a cut or broken table */
      switch (code)
        {
        case 15:  /* no location */
          break;
        case 14:  /* long form: line delta, end line, column, end column */
          if (!varint (&p, end, &v))
            return 0;
          delta = (v & 1) ? -(gint64) (v >> 1) : (gint64) (v >> 1);
          for (int i = 0; i < 3; i++)
            if (!varint (&p, end, &v))
              return 0;
          break;
        case 13:  /* no column */
          if (!varint (&p, end, &v))
            return 0;
          delta = (v & 1) ? -(gint64) (v >> 1) : (gint64) (v >> 1);
          break;
        case 10: case 11: case 12:  /* one line, two column bytes */
          delta = code - 10;
          p += 2;
          break;
        default:  /* short form, same line, one column byte */
          p += 1;
          break;
        }
      line += delta;
      if (lasti < addr + length)
        return code == 15 || line <= 0 || line > G_MAXUINT ? 0 : (guint) line;
      addr += length;
    }
  return 0;
}

gboolean
flame_py_is_eval_frame (const char *name)
{
  return name != NULL && strcmp (name, "_PyEval_EvalFrameDefault") == 0;
}

/* flame-json-write.c: JSON strings, escaped as JSON.stringify does.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-json-write.h"

/**
 * flame_json_append_string_len:
 * @s: UTF-8, @len bytes; may hold NULs
 *
 * Appends @s as a JSON string. The escapes are JSON.stringify's: `\"`,
 * `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as
 * `\u00xx`; everything else as it is. The Chrome trace loader relies on
 * that: speedscope keys events by JSON.stringify of their arguments.
 */
void
flame_json_append_string_len (GString    *out,
                              const char *s,
                              gsize       len)
{
  static const char hex[] = "0123456789abcdef";
  gsize run = 0;

  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) s[i];
      const char *escape = NULL;

      if (c >= 0x20 && c != '"' && c != '\\')
        continue;
      g_string_append_len (out, s + run, i - run);
      run = i + 1;
      switch (c)
        {
        case '"':  escape = "\\\""; break;
        case '\\': escape = "\\\\"; break;
        case '\b': escape = "\\b"; break;
        case '\f': escape = "\\f"; break;
        case '\n': escape = "\\n"; break;
        case '\r': escape = "\\r"; break;
        case '\t': escape = "\\t"; break;
        default: break;
        }
      if (escape != NULL)
        g_string_append (out, escape);
      else
        {
          g_string_append (out, "\\u00");
          g_string_append_c (out, hex[c >> 4]);
          g_string_append_c (out, hex[c & 15]);
        }
    }
  g_string_append_len (out, s + run, len - run);
  g_string_append_c (out, '"');
}

void
flame_json_append_string (GString    *out,
                          const char *s)
{
  flame_json_append_string_len (out, s, strlen (s));
}

/**
 * flame_append_number_exact:
 *
 * Appends @v as text that reads back as @v, a '.' in every locale:
 * integers below 10^15 as their digits, other finite values as
 * g_ascii_dtostr() writes them, infinities and NaN as 0 (JSON has none).
 */
void
flame_append_number_exact (GString *out,
                           gdouble  v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (v == (gdouble) (gint64) v && v > -1e15 && v < 1e15)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) v);
  else if (isfinite (v))
    g_string_append (out, g_ascii_dtostr (buf, sizeof buf, v));
  else
    g_string_append_c (out, '0');
}

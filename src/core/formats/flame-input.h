/* flame-input.h: what every format loader gets: decoded bytes, a name for
 * messages, progress and cancellation.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <string.h>

G_BEGIN_DECLS

typedef void (*FlameProgressFunc) (gdouble  fraction,
                                   gpointer user_data);

typedef struct
{
  const char        *name;        /* file name for messages */
  const char        *data;        /* UTF-8 text or binary, not NUL-terminated */
  gsize              len;
  GCancellable      *cancellable;
  FlameProgressFunc  progress;
  gpointer           progress_data;
  gsize              next_check;  /* offset of the next progress report */
  gboolean           changed_for_test;  /* flame-loader.c */
  guint              max_threads; /* a loader's threads; 0: one per core */
} FlameInput;

/* Longest frame name any loader accepts. Real symbols (C++ templates,
 * Rust generics) reach a few KiB; past this it is garbage, not a name. */
#define FLAME_MAX_NAME_LEN (64 * 1024)
/* Deepest stack any loader accepts. */
#define FLAME_MAX_DEPTH    (1024 * 1024)

gboolean flame_input_tick_slow (FlameInput  *in,
                                gsize        offset,
                                GError     **error);

/* Reports progress and checks for cancellation every few MiB; cheap to
 * call on every line. Returns FALSE with @error set when cancelled. */
static inline gboolean
flame_input_tick (FlameInput  *in,
                  gsize        offset,
                  GError     **error)
{
  if G_LIKELY (offset < in->next_check)
    return TRUE;
  return flame_input_tick_slow (in, offset, error);
}

/* The one decimal parser of the text loaders: @s up to @end holds digits
 * with at most one '.', not first ("12", "12.5", "12."), as the caller
 * checked. Past 15 integer digits, where a double no longer holds every
 * integer, g_ascii_strtod reads it. */
static inline gdouble
flame_parse_decimal (const char *s,
                     const char *end)
{
  const char *dot = memchr (s, '.', end - s);
  const char *int_end = dot != NULL ? dot : end;
  guint64 whole = 0;
  gdouble v;

  if (int_end - s > 15)
    {
      g_autofree char *copy = g_strndup (s, end - s);

      return g_ascii_strtod (copy, NULL);
    }
  for (const char *q = s; q < int_end; q++)
    whole = whole * 10 + (guint64) (*q - '0');
  v = (gdouble) whole;
  if (dot != NULL)
    {
      gdouble scale = 0.1;

      for (const char *q = dot + 1; q < end; q++, scale *= 0.1)
        v += (*q - '0') * scale;
    }
  return v;
}

static inline gboolean
flame_is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* For the line-based text formats: the line at *pos without its '\n',
 * '\r' or trailing blanks; advances *pos past it. */
static inline const char *
flame_next_line (const char *data,
                 gsize       len,
                 gsize      *pos,
                 gsize      *line_len)
{
  const char *line = data + *pos;
  const char *nl = memchr (line, '\n', len - *pos);
  const char *end = nl ? nl : data + len;

  *pos = nl ? (gsize) (nl - data) + 1 : len;
  while (end > line && (end[-1] == '\r' || flame_is_blank (end[-1])))
    end--;
  *line_len = end - line;
  return line;
}

/* "FILE:LINE: reason" (text formats), or "FILE: reason" when @line is 0 */
void flame_input_set_error         (FlameInput  *in,
                                    GError     **error,
                                    gint         code,
                                    guint64      line,
                                    const char  *format,
                                    ...) G_GNUC_PRINTF (5, 6);
void flame_input_set_errorv        (FlameInput  *in,
                                    GError     **error,
                                    gint         code,
                                    guint64      line,
                                    const char  *format,
                                    va_list      args) G_GNUC_PRINTF (5, 0);
/* "FILE: byte N: reason" (binary formats) */
void flame_input_set_error_at_byte (FlameInput  *in,
                                    GError     **error,
                                    gint         code,
                                    guint64      byte,
                                    const char  *format,
                                    ...) G_GNUC_PRINTF (5, 6);
void flame_input_set_error_at_bytev (FlameInput  *in,
                                     GError     **error,
                                     gint         code,
                                     guint64      byte,
                                     const char  *format,
                                     va_list      args) G_GNUC_PRINTF (5, 0);

G_END_DECLS

/* flame-input.h: what every format loader gets: decoded bytes, a name for
 * messages, progress and cancellation.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

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

void flame_input_set_error (FlameInput  *in,
                            GError     **error,
                            gint         code,
                            guint64      line,
                            const char  *format,
                            ...) G_GNUC_PRINTF (5, 6);

G_END_DECLS

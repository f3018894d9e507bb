/* flame-error.h
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FLAME_ERROR (flame_error_quark ())

typedef enum
{
  FLAME_ERROR_PARSE,        /* the file is not valid in its format */
  FLAME_ERROR_UNKNOWN_FORMAT,
  FLAME_ERROR_UNSUPPORTED,  /* recognised, but not (yet) readable */
  FLAME_ERROR_EMPTY,        /* no samples at all */
  FLAME_ERROR_TOO_LARGE,    /* a limit we enforce was exceeded */
  FLAME_ERROR_INVALID,      /* bad argument or option */
  FLAME_ERROR_CHANGED,      /* the file changed while it was read */
} FlameError;

GQuark flame_error_quark (void);

G_END_DECLS

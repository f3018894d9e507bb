/* flame-error-text.h
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *flame_error_text (const GError *error,
                        const char   *action);

G_END_DECLS

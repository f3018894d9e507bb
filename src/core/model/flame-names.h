/* flame-names.h: naming rules shared by the loaders and the recorder.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean flame_names_rust_legacy (const char *sym,
                                  gsize       len,
                                  GString    *out);

G_END_DECLS

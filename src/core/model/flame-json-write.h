/* flame-json-write.h: the one JSON string writer of the report, the
 * speedscope and memory writers and the Chrome trace loader's event keys;
 * the one exact number writer of the speedscope writer and perf collapse.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void flame_json_append_string     (GString    *out,
                                   const char *s);
void flame_json_append_string_len (GString    *out,
                                   const char *s,
                                   gsize       len);
void flame_append_number_exact    (GString    *out,
                                   gdouble     v);

G_END_DECLS

/* fuzz-load.c: libFuzzer harness for every loader behind flame_load_bytes
 * (format sniffing, gzip and UTF-16 decoding, folded stacks, perf script),
 * then the diff and the report on what loaded.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdint.h>

#include "flame-loader.h"
#include "flame-report.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) raw = g_bytes_new_static (data, size);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) out = NULL;
  GError *error = NULL;

  bytes = flame_decode_bytes ("fuzz", raw, NULL, &error);
  if (bytes == NULL)
    {
      g_assert (error != NULL);
      g_error_free (error);
      return 0;
    }
  profile = flame_load_bytes ("fuzz", bytes, NULL, NULL, NULL, &error);
  if (profile == NULL)
    {
      g_assert (error != NULL);
      g_error_free (error);
      return 0;
    }

  /* a ready-made pair diffs alone; a single profile against itself */
  diff = flame_diff_new (profile,
                         flame_profile_get_n_columns (profile) == 2 ? NULL : profile,
                         NULL, NULL, &error);
  g_assert_no_error (error);
  report = flame_report_new (diff, NULL);
  out = g_string_new (NULL);
  flame_report_write_json (report, out);
  flame_diff_write_folded (diff, out);
  flame_diff_get_inverted_tree (diff);
  return 0;
}

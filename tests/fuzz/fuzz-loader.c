/* fuzz-loader.c: libFuzzer harness for one format loader, called directly
 * (no sniffing, no gzip), so the fuzzer spends its time inside that
 * loader. Built once per entry of fuzz_loaders in meson.build with
 * FLAME_FUZZ_CALL the call (on FlameInput in and GError *error) and
 * FLAME_FUZZ_HEADER the loader's header.
 * What loads is diffed against itself and reported, like fuzz-load.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdint.h>

#include "flame-input.h"
#include "flame-loader.h"
#include "flame-report.h"
#include FLAME_FUZZ_HEADER

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) out = NULL;
  FlameInput in = { 0 };
  GError *error = NULL;

  in.name = "fuzz";
  in.data = (const char *) data;
  in.len = size;
  profile = FLAME_FUZZ_CALL;
  if (profile == NULL)
    {
      /* every failure explains itself */
      g_assert (error != NULL);
      g_assert (g_str_has_prefix (error->message, "fuzz"));
      g_error_free (error);
      return 0;
    }
  g_assert (error == NULL);

  diff = flame_diff_new (profile,
                         flame_profile_get_n_columns (profile) == 2 ? NULL : profile,
                         NULL, NULL, &error);
  g_assert_no_error (error);
  report = flame_report_new (diff, NULL);
  out = g_string_new (NULL);
  flame_report_write_json (report, out);
  flame_diff_write_folded (diff, out);
  return 0;
}

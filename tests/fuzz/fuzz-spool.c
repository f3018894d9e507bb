/* fuzz-spool.c: libFuzzer harness for the recording spool (OUTPUT.spool,
 * src/capture/flame-spool.c) that flame_recorder_recover() and
 * `flamediff-cli record --recover` read back: the header, every raw
 * sampler record, the symbolisation of what they name (libdwfl opens the
 * module paths in the records) and the speedscope file written.
 *
 * Each input is written to fuzz.speedscope.json.spool in a private
 * temporary directory made once per process; recovery writes next to the
 * spool (X.spool -> X), so it cannot write outside that directory. What it
 * writes must load back. Everything in the directory is removed after each
 * input, and the directory at exit.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "flame-error.h"
#include "flame-loader.h"
#include "flame-recorder.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *dir;
static char *spool;
static char *output;

static void
empty_dir (void)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      /* only what recovery writes: its output and the temporary file of
       * the atomic write (OUTPUT.XXXXXX), never a directory */
      g_assert_true (g_str_has_prefix (path, output));
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
}

static void
remove_dir (void)
{
  empty_dir ();
  g_rmdir (dir);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(FlameProfile) back = NULL;
  GError *error = NULL;

  if (dir == NULL)
    {
      dir = g_dir_make_tmp ("flamediff-fuzz-spool-XXXXXX", &error);
      g_assert_no_error (error);
      spool = g_build_filename (dir, "fuzz.speedscope.json.spool", NULL);
      output = g_build_filename (dir, "fuzz.speedscope.json", NULL);
      atexit (remove_dir);
    }

  g_file_set_contents (spool, (const char *) data, size, &error);
  g_assert_no_error (error);
  profile = flame_recorder_recover (spool, &error);
  if (profile == NULL)
    {
      /* every failure explains itself and writes nothing */
      g_assert (error != NULL);
      g_error_free (error);
      g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
      g_unlink (spool);
      empty_dir ();
      return 0;
    }
  g_assert_no_error (error);

  /* the spool is gone, the recording is next to it and loads back,
   * unless it has nothing to show (written all the same, with a warning
   * that says so, as a recording without samples is) */
  g_assert_false (g_file_test (spool, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (flame_profile_get_path (profile), ==, output);
  back = flame_load_file (output, NULL, NULL, NULL, &error);
  if (back == NULL)
    {
      g_assert_error (error, FLAME_ERROR, FLAME_ERROR_EMPTY);
      g_error_free (error);
    }
  empty_dir ();
  return 0;
}

/* test-spool.c: flame_recorder_recover() on spools built record by
 * record: damaged, truncated or hostile ones, as fuzz-spool finds them
 * (tests/fuzz/regressions/spool). Recordings of real programs and their
 * recovery are in test-capture.c.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "flame-recorder.h"
#include "flame-sampler-protocol.h"

static char *dir;

/* Writes @s as NAME.spool in the test's directory; returns its path */
static char *
write_spool (GString    *s,
             const char *name)
{
  g_autofree char *file = g_strconcat (name, ".spool", NULL);
  char *path = g_build_filename (dir, file, NULL);

  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  return path;
}

/* An empty file (maps to NULL): not a spool, and nothing is written */
static void
test_empty (void)
{
  g_autofree char *spool = write_spool (g_string_new (NULL), "empty");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = flame_recorder_recover (spool, &error);
  g_autofree char *output = g_strndup (spool, strlen (spool) - strlen (".spool"));

  g_assert_null (profile);
  g_assert_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "is not a recording spool"));
  g_assert_true (g_file_test (spool, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  g_unlink (spool);
}

int
main (int    argc,
      char **argv)
{
  GError *error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("flamediff-spool-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/spool/empty", test_empty);
  status = g_test_run ();

  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);

        g_unlink (path);
      }
  }
  g_rmdir (dir);
  g_free (dir);
  return status;
}

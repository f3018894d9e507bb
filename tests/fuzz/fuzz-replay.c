/* fuzz-replay.c: runs a fuzz harness over files and folders of inputs, so
 * every crash ever found (tests/fuzz/regressions) and the shared corpus
 * stay regression tests in builds without libFuzzer. Prints TAP.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static guint n_run;

/* g_ptr_array_sort passes pointers to the elements */
static gint
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

static void
run_path (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        return;
      while ((name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_ptr_array_sort (names, compare_paths);
      for (guint i = 0; i < names->len; i++)
        run_path (g_ptr_array_index (names, i));
      return;
    }
  else
    {
      g_autofree char *contents = NULL;
      gsize len = 0;

      if (!g_file_get_contents (path, &contents, &len, NULL))
        return;
      LLVMFuzzerTestOneInput ((const uint8_t *) contents, len);
      printf ("ok %u %s\n", ++n_run, path);
      fflush (stdout);
    }
}

int
main (int    argc,
      char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (!g_file_test (argv[i], G_FILE_TEST_EXISTS))
        {
          printf ("# SKIP %s is absent\n", argv[i]);
          continue;
        }
      run_path (argv[i]);
    }
  printf ("1..%u\n", n_run);
  return 0;
}

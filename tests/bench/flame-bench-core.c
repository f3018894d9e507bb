/* flame-bench-core.c: loads two profiles with the core, diffs them, and
 * prints phase times and memory as key=value lines for tools/bench.sh.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The files load once one after the other (base_load_s, cur_load_s: each
 * load on its own, one thread each), then again in two threads as
 * flamediff-cli compare does (parallel_load_s); the second pair is diffed (diff_s), and the
 * report is built (report_s) and written as JSON (json_s). Memory:
 * - *_live_bytes, *_with_index_bytes, *_used_bytes: see print_tree();
 * - *_frames_bytes: interned strings and frame records;
 * - peak_rss_bytes: of this process (both loads, the diff, the report).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "flame-diff.h"
#include "flame-loader.h"
#include "flame-report.h"

/* Prints a tree's node count and structure bytes. The loader and the diff
 * drop the (parent, frame) index once a tree is built; it is rebuilt here
 * with flame_tree_lookup(), which sizes it by the same rule as while the
 * tree grew: index_bytes is the index as it was when building ended. */
static void
print_tree (const char *name,
            FlameTree  *tree)
{
  guint64 nodes = tree->n_nodes - 1;  /* without the root, like `info` */
  gsize node_bytes = flame_tree_node_bytes (tree);
  gsize live = flame_tree_memory (tree);
  gsize with_index;

  flame_tree_lookup (tree, FLAME_TREE_ROOT, 0);
  with_index = flame_tree_memory (tree);

  g_print ("%s_nodes=%" G_GUINT64_FORMAT "\n", name, nodes);
  g_print ("%s_node_bytes=%" G_GSIZE_FORMAT "\n", name, node_bytes);
  g_print ("%s_alloc_nodes=%u\n", name, tree->alloc_nodes);
  /* arrays as allocated (capacity), without the index: what stays */
  g_print ("%s_live_bytes=%" G_GSIZE_FORMAT "\n", name, live);
  /* arrays as allocated plus the index as it was when building ended */
  g_print ("%s_with_index_bytes=%" G_GSIZE_FORMAT "\n", name, with_index);
  /* only the nodes in use, plus the index */
  g_print ("%s_used_bytes=%" G_GSIZE_FORMAT "\n", name,
           (gsize) tree->n_nodes * node_bytes + (with_index - live));
  g_print ("%s_index_bytes=%" G_GSIZE_FORMAT "\n", name, with_index - live);
}

static FlameProfile *
load (const char *path,
      const char *name)
{
  g_autoptr(GError) error = NULL;
  /* one thread per file, as a comparison of two files on two cores
   * loads them: the ratio measures the parallel load, not the loader */
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  gint64 t0 = g_get_monotonic_time ();
  FlameProfile *profile = NULL;

  options.threads = 1;
  profile = flame_load_file_full (path, &options, NULL, NULL, NULL, &error);

  if (profile == NULL)
    {
      g_printerr ("flame-bench-core: %s\n", error->message);
      exit (1);
    }
  if (name != NULL)
    g_print ("%s_load_s=%.4f\n", name, (g_get_monotonic_time () - t0) / 1e6);
  return profile;
}

static gpointer
load_thread (gpointer data)
{
  return load (data, NULL);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(FlameProfile) base = NULL;
  g_autoptr(FlameProfile) cur = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) json = NULL;
  FlameDiffOptions opts;
  FlameReportOptions ropts;
  GThread *thread;
  struct rusage ru;
  gint64 t0;

  if (argc != 3)
    {
      g_printerr ("usage: flame-bench-core BASELINE CURRENT\n");
      return 1;
    }

  base = load (argv[1], "base");
  cur = load (argv[2], "cur");
  g_clear_object (&base);
  g_clear_object (&cur);

  t0 = g_get_monotonic_time ();
  thread = g_thread_new ("load-baseline", load_thread, argv[1]);
  cur = load (argv[2], NULL);
  base = g_thread_join (thread);
  g_print ("parallel_load_s=%.4f\n", (g_get_monotonic_time () - t0) / 1e6);

  flame_diff_options_init (&opts);
  t0 = g_get_monotonic_time ();
  diff = flame_diff_new (base, cur, &opts, NULL, &error);
  if (diff == NULL)
    {
      g_printerr ("flame-bench-core: %s\n", error->message);
      return 1;
    }
  g_print ("diff_s=%.4f\n", (g_get_monotonic_time () - t0) / 1e6);

  flame_report_options_init (&ropts);
  t0 = g_get_monotonic_time ();
  report = flame_report_new (diff, &ropts);
  g_print ("report_s=%.4f\n", (g_get_monotonic_time () - t0) / 1e6);
  t0 = g_get_monotonic_time ();
  json = g_string_new (NULL);
  flame_report_write_json (report, json);
  g_print ("json_s=%.4f\n", (g_get_monotonic_time () - t0) / 1e6);
  g_print ("json_bytes=%" G_GSIZE_FORMAT "\n", json->len);

  getrusage (RUSAGE_SELF, &ru);
  g_print ("peak_rss_bytes=%" G_GINT64_FORMAT "\n", (gint64) ru.ru_maxrss * 1024);

  print_tree ("base", flame_profile_get_tree (base));
  print_tree ("cur", flame_profile_get_tree (cur));
  print_tree ("diff", flame_diff_get_tree (diff));

  g_print ("base_frames=%u\n", flame_frames_count (flame_profile_get_frames (base)));
  g_print ("cur_frames=%u\n", flame_frames_count (flame_profile_get_frames (cur)));
  g_print ("diff_frames=%u\n", flame_frames_count (flame_diff_get_frames (diff)));
  g_print ("base_frames_bytes=%" G_GSIZE_FORMAT "\n",
           flame_frames_memory (flame_profile_get_frames (base)));
  g_print ("cur_frames_bytes=%" G_GSIZE_FORMAT "\n",
           flame_frames_memory (flame_profile_get_frames (cur)));
  g_print ("diff_frames_bytes=%" G_GSIZE_FORMAT "\n",
           flame_frames_memory (flame_diff_get_frames (diff)));
  return 0;
}

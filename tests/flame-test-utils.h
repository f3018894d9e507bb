/* flame-test-utils.h: helpers shared by the test programs.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "flame-profile.h"

/* Path of a file in ../shared/corpus, or NULL (and the test is marked
 * skipped, visibly) when the corpus is not there. */
static inline char *
flame_test_corpus_path (const char *relative)
{
  const char *root = g_getenv ("FLAMEDIFF_CORPUS");
  char *path;

  if (root == NULL)
    {
      g_test_skip ("FLAMEDIFF_CORPUS is not set");
      return NULL;
    }
  path = g_build_filename (root, relative, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *msg = g_strdup_printf ("corpus file %s is absent", path);
      g_test_skip (msg);
      g_free (path);
      return NULL;
    }
  return path;
}

/* Builds a profile from stacks written root first as
 * "file.py:20:func2;file.py:10:func1" (file and line optional: "func"),
 * one sample each, 1 ms interval (as CPython's tests use). */
static inline FlameProfile *
flame_test_profile (const char *const *stacks)
{
  FlameProfile *profile = flame_profile_new (FLAME_FORMAT_FOLDED, 1);

  flame_profile_set_interval_ms (profile, 1.0);
  for (guint i = 0; stacks != NULL && stacks[i] != NULL; i++)
    {
      g_auto(GStrv) frames = g_strsplit (stacks[i], ";", -1);
      guint n = g_strv_length (frames);
      g_autofree guint32 *ids = g_new (guint32, n);

      for (guint f = 0; f < n; f++)
        {
          g_auto(GStrv) parts = g_strsplit (frames[f], ":", 3);

          if (g_strv_length (parts) == 3)
            ids[f] = flame_profile_intern_frame (profile, parts[2], strlen (parts[2]), parts[0],
                                                 strlen (parts[0]),
                                                 (guint32) g_ascii_strtoull (parts[1], NULL, 10),
                                                 0);
          else
            ids[f] = flame_profile_intern_frame (profile, frames[f], strlen (frames[f]),
                                                 NULL, 0, 0, 0);
        }
      flame_profile_add_stack (profile, 0, ids, n, 1.0);
      flame_profile_add_samples (profile, 0, 1.0);
    }
  flame_profile_finish (profile);
  return profile;
}

/* Appends @v as a protobuf-style base-128 varint (pprof and CPython's
 * binary format both use them); for tests that write files by hand. */
static inline void
flame_test_put_varint (GByteArray *b,
                       guint64     v)
{
  do
    {
      guint8 c = v & 0x7f;
      v >>= 7;
      if (v)
        c |= 0x80;
      g_byte_array_append (b, &c, 1);
    }
  while (v);
}

/* Writes a folded profile of at least @min_bytes to @path, for tests that
 * need a load to span several progress checks (one every 4 MiB). */
static inline void
flame_test_write_large_folded (const char *path,
                               gsize       min_bytes)
{
  g_autoptr(GString) s = g_string_sized_new (min_bytes + 256);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; s->len < min_bytes; i++)
    g_string_append_printf (s, "main;run;work_%u;leaf_%u %u\n", i % 1000, i % 7919, 1 + i % 13);
  g_file_set_contents (path, s->str, s->len, &error);
  g_assert_no_error (error);
}

/* flamediff-cli ($FLAMEDIFF_CLI) run to its end: exit status and output */
typedef struct
{
  int   status;
  char *out;
  char *err;
} FlameTestRun;

static inline void
flame_test_run_clear (FlameTestRun *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlameTestRun, flame_test_run_clear)

/* @args: the arguments after the program name, NULL-terminated;
 * @env: (nullable): NAME, VALUE, ..., NULL to set in the child only */
static inline void
flame_test_run_cli_env (FlameTestRun      *r,
                        const char *const *args,
                        const char *const *env)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("FLAMEDIFF_CLI");

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  for (guint i = 0; env != NULL && env[i] != NULL; i += 2)
    g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  /* a signal counts as the shell would show it (SIGBUS: 135) */
  r->status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc)
                                                : 128 + g_subprocess_get_term_sig (proc);
}

/* @args: the arguments after the program name, NULL-terminated */
static inline void
flame_test_run_cli (FlameTestRun      *r,
                    const char *const *args)
{
  flame_test_run_cli_env (r, args, NULL);
}

/* flamediff-cli's standard output for @args (NULL-terminated, after the
 * program name), whatever its exit status */
static inline char *
flame_test_cli_output (const char *const *args)
{
  FlameTestRun r = { 0 };
  char *out;

  flame_test_run_cli (&r, args);
  out = g_steal_pointer (&r.out);
  flame_test_run_clear (&r);
  return out;
}

/* The same with the arguments listed, NULL-terminated */
static inline G_GNUC_NULL_TERMINATED void
flame_test_run_cli_va (FlameTestRun *r,
                       ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  va_start (ap, r);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  flame_test_run_cli (r, (const char * const *) args->pdata);
}

/* Total weight (ms) of stacks through a function, each stack once */
/* The weight of the stacks through a function named @name (inclusive,
 * each stack once), in sample type 0; *all: the profile's whole weight */
static inline gdouble
flame_test_function_weight (FlameProfile *profile,
                            const char   *name,
                            gdouble      *all)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  FlameTree *tree = flame_profile_get_tree (profile);
  guint n = flame_frames_count (frames);
  g_autofree gdouble *self_w = g_new0 (gdouble, n);
  g_autofree gdouble *total_w = g_new0 (gdouble, n);
  gdouble sum = 0, whole = 0;

  flame_profile_ensure_totals (profile);
  flame_tree_function_weights (tree, n, 0, self_w, total_w);
  for (guint f = 0; f < n; f++)
    {
      whole += self_w[f];
      if (g_strcmp0 (flame_frames_get_name (frames, f), name) == 0)
        sum += total_w[f];
    }
  if (all != NULL)
    *all = whole;
  return sum;
}

/* Total weight (ms) of stacks through a function, each stack once */
static inline gdouble
flame_test_function_ms (FlameProfile *profile,
                        const char   *name)
{
  return flame_test_function_weight (profile, name, NULL) *
         flame_profile_get_ms_per_weight (profile, 0, 1);
}

/* The share (percent) of the profile's weight in stacks through @name */
static inline gdouble
flame_test_function_share (FlameProfile *profile,
                           const char   *name)
{
  gdouble all, sum = flame_test_function_weight (profile, name, &all);

  return all > 0 ? 100 * sum / all : 0;
}

/* How far (in points) may a sampled share of @n_samples samples be
 * from a measured share @p (0..1)?  The kernel checks CPU-time timers
 * at its ticks (250 Hz on Debian), so recordings hold far fewer
 * samples than the requested rate, and a fixed tolerance fails by
 * chance.  The share of n samples has a standard error of
 * sqrt (p (1 - p) / n): allow 4 of them (a false failure once in
 * 15 000 runs) plus one point for the programs' own clock reads, and
 * never less than 5 points. */
static inline gdouble
flame_test_share_tolerance (gdouble p,
                            gdouble n_samples)
{
  return MAX (5.0, 1.0 + 4 * 100 * sqrt (p * (1 - p) / MAX (1.0, n_samples)));
}

/* How many of the @samples samples of @profile make up @ms of its time */
static inline gdouble
flame_test_samples_in (FlameProfile *profile,
                       guint64       samples,
                       gdouble       ms)
{
  return ms / (flame_profile_get_total_ms (profile, 0, 1) / MAX (1, samples));
}

/* Does some node named @name have an ancestor named @ancestor? */
static inline gboolean
flame_test_has_path (FlameProfile *profile,
                     const char   *ancestor,
                     const char   *name)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  FlameTree *tree = flame_profile_get_tree (profile);

  for (guint32 i = 1; i < tree->n_nodes; i++)
    {
      const FlameNode *node = flame_tree_node (tree, i);

      if (g_strcmp0 (flame_frames_get_name (frames, node->frame), name) != 0)
        continue;
      for (guint32 p = node->parent; p != FLAME_TREE_NONE && p != FLAME_TREE_ROOT;
           p = flame_tree_node (tree, p)->parent)
        if (g_strcmp0 (flame_frames_get_name (frames, flame_tree_node (tree, p)->frame),
                       ancestor) == 0)
          return TRUE;
    }
  return FALSE;
}

/* Does some node named @name run in a thread libc started: below
 * start_thread? That is a local function of libc.so.6, named only where
 * libc keeps its symbol table or its debug file is installed (Debian 12
 * does; Debian 13 and later strip it). Without it the symbolizer names
 * it by module and FDE start, "libc.so.6+0x94afc"; it is then told from
 * any other libc frame by its own caller, clone3 (or clone), another
 * such libc frame. */
static inline gboolean
flame_test_has_thread_start_path (FlameProfile *profile,
                                  const char   *name)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  FlameTree *tree = flame_profile_get_tree (profile);

  for (guint32 i = 1; i < tree->n_nodes; i++)
    {
      const FlameNode *node = flame_tree_node (tree, i);

      if (g_strcmp0 (flame_frames_get_name (frames, node->frame), name) != 0)
        continue;
      for (guint32 p = node->parent; p != FLAME_TREE_NONE && p != FLAME_TREE_ROOT;
           p = flame_tree_node (tree, p)->parent)
        {
          const char *a = flame_frames_get_name (frames, flame_tree_node (tree, p)->frame);
          guint32 pp = flame_tree_node (tree, p)->parent;

          if (g_strcmp0 (a, "start_thread") == 0)
            return TRUE;
          if (g_str_has_prefix (a, "libc.so.6+0x") && pp != FLAME_TREE_NONE &&
              pp != FLAME_TREE_ROOT &&
              g_str_has_prefix (flame_frames_get_name (frames, flame_tree_node (tree, pp)->frame),
                                "libc.so.6+0x"))
            return TRUE;
        }
    }
  return FALSE;
}

/* test-capture.c: recording with libflamediff-sampler.so: accuracy
 * against ground truth measured inside the workload, call paths, and
 * programs that fork, exec, crash, exit at once or dlopen in a loop.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "flame-loader.h"
#include "flame-recorder.h"

static char *
workload (const char *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_WORKLOADS");

  g_assert_nonnull (dir);
  return g_strdup_printf ("%s/capture-%s", dir, name);
}

static char *
tmp_path (const char *name)
{
  static char *dir = NULL;

  if (dir == NULL)
    {
      GError *error = NULL;

      dir = g_dir_make_tmp ("flamediff-capture-XXXXXX", &error);
      g_assert_no_error (error);
    }
  return g_build_filename (dir, name, NULL);
}

typedef struct
{
  FlameProfile  *profile;
  FlameRecorder *recorder;
  char          *output;
} Recording;

static void
recording_clear (Recording *r)
{
  g_clear_object (&r->profile);
  g_clear_object (&r->recorder);
  g_clear_pointer (&r->output, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Recording, recording_clear)

/* Records argv (NULL-terminated) in-process; extra environment as pairs. */
static void
record (Recording  *r,
        const char *out_name,
        const char *const *argv,
        const char *env_name,
        const char *env_value)
{
  g_autoptr(GError) error = NULL;

  r->recorder = flame_recorder_new (argv);
  r->output = tmp_path (out_name);
  flame_recorder_set_output_path (r->recorder, r->output);
  flame_recorder_set_cwd (r->recorder, g_get_tmp_dir ());
  if (env_name != NULL)
    flame_recorder_setenv (r->recorder, env_name, env_value);
  r->profile = flame_recorder_record (r->recorder, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r->profile);
  g_assert_true (g_file_test (r->output, G_FILE_TEST_IS_REGULAR));
}

/* Total weight (ms) of stacks through a function, each stack once */
static gdouble
function_ms (FlameProfile *profile,
             const char   *name)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  FlameTree *tree = flame_profile_get_tree (profile);
  guint n = flame_frames_count (frames);
  g_autofree gdouble *self_w = g_new0 (gdouble, n);
  g_autofree gdouble *total_w = g_new0 (gdouble, n);
  gdouble sum = 0;

  flame_tree_function_weights (tree, n, 0, self_w, total_w);
  for (guint f = 0; f < n; f++)
    if (g_strcmp0 (flame_frames_get_name (frames, f), name) == 0)
      sum += total_w[f];
  return sum * flame_profile_get_ms_per_weight (profile, 0, 1);
}

/* Does some node named @name have an ancestor named @ancestor? */
static gboolean
has_path (FlameProfile *profile,
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
        if (g_strcmp0 (flame_frames_get_name (frames, flame_tree_node (tree, p)->frame), ancestor) == 0)
          return TRUE;
    }
  return FALSE;
}

static gdouble
truth (const char *text,
       const char *name)
{
  g_autofree char *key = g_strdup_printf ("truth %s ", name);
  const char *p = strstr (text, key);

  g_assert_nonnull (p);
  return g_ascii_strtod (p + strlen (key), NULL);
}

static guint64
meta_u64 (FlameProfile *profile,
          const char   *key)
{
  const char *v = flame_profile_get_metadata (profile, key);

  g_assert_nonnull (v);
  return g_ascii_strtoull (v, NULL, 10);
}

/* Two threads, hot_a : warm_a = 3 : 1 in thread A, hot_b → qsort → cmp_b
 * in thread B: every function's share of the three within 5 points of
 * what the workload measured, and the call paths right. */
static void
test_accuracy (void)
{
  g_autofree char *exe = workload ("two-threads");
  g_autofree char *truth_path = tmp_path ("truth.txt");
  g_autofree char *text = NULL;
  const char *argv[] = { exe, "1.0", NULL };
  g_auto(Recording) r = { 0 };
  const char *names[] = { "hot_a", "warm_a", "hot_b" };
  gdouble t[3], s[3], t_sum = 0, s_sum = 0;
  guint64 samples;

  record (&r, "accuracy.json", argv, "FLAMEDIFF_TRUTH", truth_path);
  g_assert_true (g_file_get_contents (truth_path, &text, NULL, NULL));
  g_assert_true (WIFEXITED (flame_recorder_get_wait_status (r.recorder)));

  for (guint i = 0; i < 3; i++)
    {
      t[i] = truth (text, names[i]) * 1000;
      s[i] = function_ms (r.profile, names[i]);
      t_sum += t[i];
      s_sum += s[i];
    }
  for (guint i = 0; i < 3; i++)
    {
      gdouble ts = 100 * t[i] / t_sum, ss = 100 * s[i] / s_sum;

      g_test_message ("%-7s truth %7.1f ms %5.1f %%   sampled %7.1f ms %5.1f %%", names[i],
                      t[i], ts, s[i], ss);
      g_assert_cmpfloat (fabs (ts - ss), <, 5.0);
    }
  /* weights are CPU time: within 10 % of the truth in total */
  g_assert_cmpfloat (fabs (s_sum - t_sum) / t_sum, <, 0.10);

  g_assert_true (has_path (r.profile, "thread_a", "hot_a"));
  g_assert_true (has_path (r.profile, "thread_a", "warm_a"));
  g_assert_true (has_path (r.profile, "main", "hot_a") == FALSE);
  g_assert_true (has_path (r.profile, "hot_b", "cmp_b"));
  g_assert_true (has_path (r.profile, "thread_b", "hot_b"));
  g_assert_true (has_path (r.profile, "start_thread", "thread_a"));
  /* the sampler's own thread trampoline is hidden */
  g_assert_cmpfloat (function_ms (r.profile, "trampoline"), ==, 0);

  samples = meta_u64 (r.profile, "samples");
  g_test_message ("%" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT " lost, %.0f per CPU-second",
                  samples, meta_u64 (r.profile, "samples_lost"),
                  flame_recorder_get_effective_hz (r.recorder));
  g_assert_cmpuint (samples, >, 100);
  g_assert_cmpuint (meta_u64 (r.profile, "samples_lost"), ==, 0);
  g_assert_cmpfloat (flame_recorder_get_effective_hz (r.recorder), >, 50);
  g_assert_cmpstr (flame_profile_get_metadata (r.profile, "exit_status"), ==, "exited with status 0");
  g_assert_cmpstr (flame_profile_get_metadata (r.profile, "frequency_hz"), ==, "999");
  g_assert_nonnull (strstr (flame_profile_get_metadata (r.profile, "build_ids"), "capture-two-threads="));
}

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static void
run_cli (Run               *r,
         const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("FLAMEDIFF_CLI");

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_newv ((const char * const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                            &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  r->status = g_subprocess_get_exit_status (proc);
}

static FlameProfile *
load (const char *path)
{
  g_autoptr(GError) error = NULL;
  FlameProfile *profile = flame_load_file (path, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (profile);
  return profile;
}

/* flamediff-cli record: the one-line summary, and a speedscope file that
 * loads back with its metadata */
static void
test_cli_record (void)
{
  g_autofree char *exe = workload ("two-threads");
  g_autofree char *out = tmp_path ("cli.speedscope.json");
  g_autoptr(FlameProfile) profile = NULL;
  g_auto(Run) r = { 0 };
  const char *args[] = { "record", "-F", "499", "-o", out, "--cwd", "/", "--", exe, "0.3", NULL };

  run_cli (&r, args);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "truth hot_a"));   /* the command's output passes through */
  g_assert_nonnull (strstr (r.err, "flamediff-cli: recorded "));
  g_assert_nonnull (strstr (r.err, " lost) in "));
  g_assert_nonnull (strstr (r.err, "command exited with status 0"));
  g_assert_cmpuint (strlen (r.err) - (strchr (r.err, '\n') - r.err), ==, 1);  /* one line */

  profile = load (out);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "frequency_hz"), ==, "499");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "working_directory"), ==, "/");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "program"), ==, exe);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "arguments"), ==, "0.3");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "exit_status"), ==, "exited with status 0");
  g_assert_nonnull (flame_profile_get_metadata (profile, "start_time"));
  g_assert_nonnull (flame_profile_get_metadata (profile, "samples_lost"));
  g_assert_cmpuint (meta_u64 (profile, "samples"), >, 10);
  g_assert_cmpfloat (function_ms (profile, "hot_b"), >, 0);
}

/* Static programs never see the preload: refused before launch */
static void
test_refuse_static (void)
{
  g_autofree char *exe = workload ("static");
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { exe, NULL };
  g_auto(Run) r = { 0 };
  const char *args[] = { "record", "--", exe, NULL };

  if (!g_file_test (exe, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no static C library to build the static workload");
      return;
    }
  recorder = flame_recorder_new (argv);
  g_assert_null (flame_recorder_record (recorder, NULL, &error));
  g_assert_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "statically linked"));

  run_cli (&r, args);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "statically linked"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/capture/accuracy", test_accuracy);
  g_test_add_func ("/capture/cli-record", test_cli_record);
  g_test_add_func ("/capture/refuse-static", test_refuse_static);
  return g_test_run ();
}

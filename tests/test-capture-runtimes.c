/* test-capture-runtimes.c: recording Python and JavaScript programs: the Python frames in
 * place of the evaluation loop, their shares against what the program
 * measured itself (one thread and several), Python-only stacks, a stress
 * run of threads, generators and coroutines coming and going, an
 * interpreter the sampler cannot read, the line table decoder, the
 * Python frames of memory recordings; node's
 * JIT functions from its perf map, in the main thread and in workers.
 *
 * The interpreter is the system's python3 (Debian 12: 3.11); tests skip
 * visibly without it. The python312- tests run the same on a CPython
 * 3.12 ($FLAMEDIFF_PYTHON312, else python3.12 on the PATH, else pyenv's),
 * which no Debian suite packages: they skip visibly without one. Newer versions
 * are recorded in a Debian sid chroot by tools/test-runtimes-chroot.sh.
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
#include "flame-perfmap.h"
#include "flame-pyframes.h"
#include "flame-recorder.h"
#include "flame-test-utils.h"

/* pyenv's version directories ("3.12.1", "3.12.10"), by their numbers */
static gint
cmp_versions (gconstpointer a,
              gconstpointer b)
{
  g_auto(GStrv) x = g_strsplit (*(char *const *) a, ".", -1);
  g_auto(GStrv) y = g_strsplit (*(char *const *) b, ".", -1);

  for (guint i = 0; x[i] != NULL && y[i] != NULL; i++)
    {
      guint64 m = g_ascii_strtoull (x[i], NULL, 10), n = g_ascii_strtoull (y[i], NULL, 10);

      if (m != n)
        return m < n ? -1 : 1;
    }
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The interpreter that @candidate runs, when it is CPython @version
 * ("3.12"): sys.executable, so that a wrapper (pyenv's shims) is not
 * what gets recorded; NULL when it does not run or is another version. */
static char *
interpreter_of (const char *candidate,
                const char *version)
{
  const char *argv[] = { candidate, "-c",
                         "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)",
                         NULL };
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
                     NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    return NULL;
  lines = g_strsplit (out, "\n", 3);
  if (g_strv_length (lines) < 2 || strcmp (lines[0], version) != 0 ||
      !g_file_test (lines[1], G_FILE_TEST_IS_EXECUTABLE))
    return NULL;
  return g_strdup (lines[1]);
}

/* the interpreter a test runs: @version "" the system's
 * ($FLAMEDIFF_PYTHON, else /usr/bin/python3), "3.12" one of that version
 * ($FLAMEDIFF_PYTHON312, which must be one; else python3.12 on the PATH,
 * else the newest of pyenv's $PYENV_ROOT/versions/3.12.*); NULL (and the
 * test skipped, saying why) when there is none */
static const char *
python_for (const char *version)
{
  static char *found[2];
  gboolean other = *version != '\0';
  const char *py;

  if (found[other] != NULL)
    return found[other];
  if (other)
    {
      g_auto(GStrv) parts = g_strsplit (version, ".", -1);
      g_autofree char *digits = g_strjoinv ("", parts);
      g_autofree char *var = g_strconcat ("FLAMEDIFF_PYTHON", digits, NULL);
      g_autofree char *name = g_strconcat ("python", version, NULL);
      g_autofree char *in_path = g_find_program_in_path (name);
      g_autofree char *pyenv = g_strdup (g_getenv ("PYENV_ROOT"));
      g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GDir) dir = NULL;
      const char *entry;

      py = g_getenv (var);
      if (py != NULL)
        {
          found[other] = interpreter_of (py, version);
          if (found[other] == NULL)
            g_test_fail_printf ("$%s=%s does not run CPython %s", var, py, version);
          return found[other];
        }
      if (in_path != NULL)
        g_ptr_array_add (candidates, g_steal_pointer (&in_path));
      if (pyenv == NULL)
        pyenv = g_build_filename (g_get_home_dir (), ".pyenv", NULL);
      {
        g_autofree char *versions = g_build_filename (pyenv, "versions", NULL);
        g_autoptr(GPtrArray) named = g_ptr_array_new_with_free_func (g_free);
        g_autofree char *prefix = g_strconcat (version, ".", NULL);

        dir = g_dir_open (versions, 0, NULL);
        while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
          if (g_str_has_prefix (entry, prefix))
            g_ptr_array_add (named, g_strdup (entry));
        /* newest first: 3.12.10 before 3.12.9 */
        g_ptr_array_sort (named, cmp_versions);
        for (guint i = named->len; i-- > 0;)
          g_ptr_array_add (candidates, g_build_filename (versions, named->pdata[i], "bin", name,
                                                         NULL));
      }
      for (guint i = 0; i < candidates->len && found[other] == NULL; i++)
        found[other] = interpreter_of (candidates->pdata[i], version);
      if (found[other] == NULL)
        g_test_skip_printf ("no CPython %s (none on the PATH or in %s/versions; $%s names one)",
                            version, pyenv, var);
      else
        g_test_message ("CPython %s: %s", version, found[other]);
      return found[other];
    }
  py = g_getenv ("FLAMEDIFF_PYTHON");
  if (py == NULL)
    py = "/usr/bin/python3";
  if (!g_file_test (py, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip_printf ("no %s", py);
      return NULL;
    }
  found[other] = g_strdup (py);
  return found[other];
}

static char *
script (const char *name)
{
  return g_build_filename (g_getenv ("FLAMEDIFF_SOURCE_WORKLOADS"), name, NULL);
}

static char *
tmp_path (const char *name)
{
  static char *dir = NULL;

  if (dir == NULL)
    {
      GError *error = NULL;

      dir = g_dir_make_tmp ("flamediff-capture-runtimes-XXXXXX", &error);
      g_assert_no_error (error);
    }
  return g_build_filename (dir, name, NULL);
}

/* @memory_mean: a memory recording, its "allocated" bytes; 0: CPU time */
static FlameProfile *
record_full (FlameRecorder     **recorder,
             const char         *out_name,
             const char *const  *argv,
             guint               hz,
             gboolean            python_only,
             guint               memory_mean)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = tmp_path (out_name);
  FlameProfile *profile;

  *recorder = flame_recorder_new (argv);
  flame_recorder_set_capture_output (*recorder, TRUE);
  flame_recorder_set_output_path (*recorder, out);
  flame_recorder_set_cwd (*recorder, g_get_tmp_dir ());
  flame_recorder_set_frequency (*recorder, hz);
  flame_recorder_set_python_only (*recorder, python_only);
  if (memory_mean > 0)
    flame_recorder_set_memory (*recorder, memory_mean);
  profile = flame_recorder_record (*recorder, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (profile);
  g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
  if (memory_mean > 0)
    {
      FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;

      g_object_unref (profile);
      options.sample_type = "allocated";
      profile = flame_load_file_full (out, &options, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (flame_profile_get_sample_type (profile), ==, "allocated");
    }
  return profile;
}

static FlameProfile *
record (FlameRecorder     **recorder,
        const char         *out_name,
        const char *const  *argv,
        guint               hz,
        gboolean            python_only)
{
  return record_full (recorder, out_name, argv, hz, python_only, 0);
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

/* hot's and warm's sampled shares of the two are the measured ones */
static void
assert_shares (const char    *what,
               const char    *const names[2],
               const gdouble  t[2],
               const gdouble  s[2],
               FlameRecorder *recorder,
               FlameProfile  *profile)
{
  gdouble n = flame_test_samples_in (profile, flame_recorder_get_samples (recorder), s[0] + s[1]);
  gdouble tolerance = flame_test_share_tolerance (t[0] / (t[0] + t[1]), n);

  for (guint i = 0; i < 2; i++)
    {
      gdouble ts = 100 * t[i] / (t[0] + t[1]), ss = 100 * s[i] / (s[0] + s[1]);

      g_test_message ("%s: %-4s truth %7.1f ms %5.1f %%   sampled %7.1f ms %5.1f %% "
                      "(%.0f samples, tolerance %.1f points)",
                      what, names[i], t[i], ts, s[i], ss, n, tolerance);
      g_assert_cmpfloat (fabs (ts - ss), <, tolerance);
    }
}

/* hot : warm = 70 : 30 of their CPU time in @threads threads (0: the
 * main thread): the inclusive time of the Python functions within 5
 * points of what the program measured, the frames in place of
 * _PyEval_EvalFrameDefault, the runtime in the metadata */
static void
check_shares (const char *version,
              const char *threads)
{
  const char *py = python_for (version);
  g_autofree char *shares = script ("shares.py");
  g_autofree char *truth_path = NULL;
  g_autofree char *out_name = NULL;
  g_autofree char *text = NULL;
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  const char *names[] = { "hot", "warm" };
  gdouble t[2], s[2], eval, all;
  const char *runtimes;

  if (py == NULL)
    return;
  truth_path = tmp_path ("truth.txt");
  out_name = g_strdup_printf ("shares-%s.json", threads);
  {
    /* CPU seconds per thread: about 600 samples in one thread at 250 Hz */
    const char *argv[] = { py, shares, strcmp (threads, "0") == 0 ? "2.5" : "1.5", threads,
                           truth_path, NULL };

    profile = record (&recorder, out_name, argv, 999, FALSE);
  }
  g_assert_true (WIFEXITED (flame_recorder_get_wait_status (recorder)));
  g_assert_cmpint (WEXITSTATUS (flame_recorder_get_wait_status (recorder)), ==, 0);
  g_assert_true (g_file_get_contents (truth_path, &text, NULL, NULL));

  for (guint i = 0; i < 2; i++)
    {
      t[i] = truth (text, names[i]) * 1000;
      s[i] = flame_test_function_ms (profile, names[i]);
    }
  {
    g_autofree char *what = g_strdup_printf ("%s threads", threads);

    assert_shares (what, names, t, s, recorder, profile);
  }
  /* and nearly all of their CPU time is there */
  g_assert_cmpfloat (s[0] + s[1], >, 0.8 * (t[0] + t[1]));

  /* mixed mode: the Python callers, the generator and the coroutine,
   * native code below the Python frames, no evaluation loop left where
   * Python frames ran */
  g_assert_true (flame_test_has_path (profile, "work", "hot"));
  g_assert_true (flame_test_has_path (profile, "hot_task", "hot"));
  g_assert_true (flame_test_has_path (profile, "warm_steps", "warm"));
  /* below the first Python frame, the interpreter's C entry points;
   * qualified names (threading's Thread.run) */
  if (strcmp (threads, "0") == 0)
    {
      g_assert_true (flame_test_has_path (profile, "main", "work"));
      g_assert_true (flame_test_has_path (profile, "Py_RunMain", "main") ||
                     flame_test_has_path (profile, "Py_BytesMain", "main"));
    }
  else
    {
      g_assert_true (flame_test_has_path (profile, "Thread.run", "work"));
      g_assert_true (flame_test_has_thread_start_path (profile, "Thread._bootstrap"));
    }
  g_assert_false (flame_test_has_path (profile, "hot", "warm"));
  eval = flame_test_function_ms (profile, "_PyEval_EvalFrameDefault");
  /* the process's root frame is its command's name */
  {
    g_autofree char *base = g_path_get_basename (py);

    all = flame_test_function_ms (profile, "python3") +
          flame_test_function_ms (profile, "python3.11");
    if (strcmp (base, "python3") != 0 && strcmp (base, "python3.11") != 0)
      all += flame_test_function_ms (profile, base);
  }
  g_test_message ("_PyEval_EvalFrameDefault left in %.1f of %.1f ms", eval, all);
  g_assert_cmpfloat (eval, <, 0.05 * all);

  runtimes = flame_profile_get_metadata (profile, "runtimes");
  g_assert_nonnull (runtimes);
  g_assert_true (g_str_has_prefix (runtimes, "CPython 3."));
}

static void
test_shares (gconstpointer version)
{
  check_shares (version, "0");
}

static void
test_shares_threads (gconstpointer version)
{
  check_shares (version, "3");
}

/* --python-only: Python frames and the process's root, nothing native */
static void
test_python_only (gconstpointer version)
{
  const char *py = python_for (version);
  g_autofree char *shares = script ("shares.py");
  g_autofree char *truth_path = tmp_path ("truth-only.txt");
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  if (py == NULL)
    return;
  {
    const char *argv[] = { py, shares, "0.5", "1", truth_path, NULL };

    profile = record (&recorder, "python-only.json", argv, 999, TRUE);
  }
  g_assert_cmpfloat (flame_test_function_ms (profile, "hot"), >, 0);
  g_assert_cmpfloat (flame_test_function_ms (profile, "_start"), ==, 0);
  g_assert_cmpfloat (flame_test_function_ms (profile, "start_thread"), ==, 0);
  g_assert_cmpfloat (flame_test_function_ms (profile, "_PyEval_EvalFrameDefault"), ==, 0);
  g_assert_true (flame_test_has_path (profile, "work", "hot"));
}

/* 4 kHz on a program whose threads, generators and coroutines come and
 * go all the time: it runs to its end, and the recording is whole.
 * FLAMEDIFF_STRESS_SECONDS makes it longer (30 s in the run). */
static void
test_stress (gconstpointer version)
{
  const char *py = python_for (version);
  g_autofree char *stress = script ("py-stress.py");
  const char *seconds = g_getenv ("FLAMEDIFF_STRESS_SECONDS");
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  const char *samples;

  if (py == NULL)
    return;
  {
    const char *argv[] = { py, stress, seconds != NULL ? seconds : "4", NULL };

    profile = record (&recorder, "stress.json", argv, 4000, FALSE);
  }
  g_assert_true (WIFEXITED (flame_recorder_get_wait_status (recorder)));
  g_assert_cmpint (WEXITSTATUS (flame_recorder_get_wait_status (recorder)), ==, 0);
  samples = flame_profile_get_metadata (profile, "samples");
  g_test_message ("%s samples, %s lost", samples,
                  flame_profile_get_metadata (profile, "samples_lost"));
  g_assert_cmpuint (g_ascii_strtoull (samples, NULL, 10), >, 100);
  g_assert_true (flame_test_has_path (profile, "thread_body", "gen"));
  g_assert_true (flame_test_has_path (profile, "many", "coro") ||
                 flame_test_has_path (profile, "thread_body", "coro"));
}

/* An interpreter of a version whose layout is unknown (a 3.12 beta: the
 * layout is only known from the release candidates on): a note, the
 * runtime listed as unsupported, native stacks as before */
static void
test_unsupported (void)
{
  g_autofree char *exe = g_build_filename (g_getenv ("FLAMEDIFF_WORKLOADS"), "capture-fake-python",
                                           NULL);
  const char *argv[] = { exe, "0.3", NULL };
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  const char *notes, *runtimes;

  profile = record (&recorder, "fake-python.json", argv, 999, FALSE);
  runtimes = flame_profile_get_metadata (profile, "runtimes");
  notes = flame_profile_get_metadata (profile, "notes");
  g_assert_nonnull (runtimes);
  g_assert_nonnull (notes);
  g_assert_nonnull (strstr (runtimes, "CPython 3.12.0b4: a 3.12 pre-release"));
  g_assert_nonnull (strstr (notes, "native stacks only"));
  g_assert_true (flame_test_has_path (profile, "main", "spin"));
}

/* The location table decoder against CPython's own co_lines() for every
 * code object of a module of the standard library */
static void
test_linetable (gconstpointer version)
{
  const char *py = python_for (version);
  const char *prog =
    "import dis, types, sys\n"
    "def walk(c):\n"
    "    yield c\n"
    "    for k in c.co_consts:\n"
    "        if isinstance(k, types.CodeType): yield from walk(k)\n"
    "src = open(dis.__file__).read()\n"
    "for c in walk(compile(src, 'dis.py', 'exec')):\n"
    "    print('C', c.co_firstlineno, c.co_linetable.hex())\n"
    "    for s, e, l in c.co_lines():\n"
    "        print('L', s // 2, e // 2, l if l is not None else 0)\n";
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) table = NULL;
  guint first = 0, n_checked = 0;
  int status;

  if (py == NULL)
    return;
  {
    const char *argv[] = { py, "-c", prog, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, NULL, &status, &error));
  }
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "C "))
        {
          g_auto(GStrv) f = g_strsplit (lines[i], " ", 3);
          gsize len = strlen (f[2]) / 2;
          guint8 *bytes = g_malloc (len + 1);

          for (gsize k = 0; k < len; k++)
            bytes[k] = (guint8) (g_ascii_xdigit_value (f[2][2 * k]) << 4 |
                                g_ascii_xdigit_value (f[2][2 * k + 1]));
          g_clear_pointer (&table, g_bytes_unref);
          table = g_bytes_new_take (bytes, len);
          first = (guint) g_ascii_strtoull (f[1], NULL, 10);
        }
      else if (g_str_has_prefix (lines[i], "L "))
        {
          guint s, e, l;
          gsize len;
          const guint8 *data = g_bytes_get_data (table, &len);

          g_assert_cmpint (sscanf (lines[i], "L %u %u %u", &s, &e, &l), ==, 3);
          for (guint a = s; a < e; a++)
            {
              g_assert_cmpuint (flame_py_linetable_line (data, len, first, a), ==, l);
              n_checked++;
            }
        }
    }
  g_test_message ("%u instructions checked", n_checked);
  g_assert_cmpuint (n_checked, >, 1000);
}

/* node 20: the recorder asks it for perf maps (NODE_OPTIONS); the JIT
 * functions hot : warm = 70 : 30 by their names, within 5 points of what
 * the program measured, unwound through to the thread's native base */
static void
check_node_shares (const char *workers)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *js = script ("shares.js");
  g_autofree char *truth_path = tmp_path ("truth-node.txt");
  g_autofree char *out_name = g_strdup_printf ("node-%s.json", workers);
  g_autofree char *text = NULL;
  g_autofree char *map = NULL;
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  const char *names[] = { "hot", "warm" };
  gdouble t[2], s[2];

  if (node == NULL)
    {
      g_test_skip ("no node");
      return;
    }
  if (strcmp (workers, "0") != 0)
    {
      /* node 20's workers have no CPU clock: shares.js measures them by
       * the time they ran, which a machine busy with other work makes
       * differ from their CPU time */
      g_autofree char *loadavg = NULL;
      gdouble load = 0;

      if (g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL))
        load = g_ascii_strtod (loadavg, NULL);
      if (load > 1.5 * g_get_num_processors ())
        {
          g_test_skip_printf ("the machine is busy (load %.1f on %u CPUs): the workers' "
                              "wall-time truth would not be their CPU time", load,
                              g_get_num_processors ());
          return;
        }
    }
  {
    /* TurboFan inlines small hot functions into their callers after a
     * second or two, and a perf map cannot name inlined code: the
     * test is about attribution, so keep them apart */
    const char *argv[] = { node, "--no-turbo-inlining", js,
                           strcmp (workers, "0") == 0 ? "3" : "1.5", workers, truth_path, NULL };

    profile = record (&recorder, out_name, argv, 999, FALSE);
  }
  g_assert_true (g_file_get_contents (truth_path, &text, NULL, NULL));
  for (guint i = 0; i < 2; i++)
    {
      t[i] = truth (text, names[i]) * 1000;
      s[i] = flame_test_function_ms (profile, names[i]);
    }
  {
    g_autofree char *what = g_strdup_printf ("node, %s workers", workers);

    assert_shares (what, names, t, s, recorder, profile);
  }
  /* nearly all of their CPU time is in their own frames: V8 inlined
   * neither into its caller (the workers' truth is wall time) */
  if (strcmp (workers, "0") == 0)
    g_assert_cmpfloat (s[0] + s[1], >, 0.8 * (t[0] + t[1]));
  if (strcmp (workers, "0") == 0)
    g_assert_true (flame_test_has_path (profile, "_start", "hot"));
  else
    g_assert_true (flame_test_has_thread_start_path (profile, "hot"));
  g_assert_nonnull (
    strstr (flame_profile_get_metadata (profile, "runtimes"), "node (JIT perf map)"));
  g_assert_nonnull (flame_profile_get_metadata (profile, "jit_maps"));
  g_assert_nonnull (strstr (flame_profile_get_metadata (profile, "node_options"),
                            "--perf-basic-prof-only-functions"));
}

static void
test_node_shares (void)
{
  check_node_shares ("0");
}

static void
test_node_shares_workers (void)
{
  check_node_shares ("3");
}

/* perf map files are untrusted: bad lines are skipped, a later line
 * wins where code was replaced, nothing outside an entry matches */

/* Does a frame that is not Python code (its file does not end in .py)
 * run below a frame named @python? */
static gboolean
native_below (FlameProfile *profile,
              const char   *python)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  FlameTree *tree = flame_profile_get_tree (profile);

  for (guint32 i = 1; i < tree->n_nodes; i++)
    {
      const FlameNode *node = flame_tree_node (tree, i);
      const char *file = flame_frames_get_file (frames, node->frame);

      if (file != NULL && g_str_has_suffix (file, ".py"))
        continue;
      for (guint32 p = node->parent; p != FLAME_TREE_NONE && p != FLAME_TREE_ROOT;
           p = flame_tree_node (tree, p)->parent)
        if (g_strcmp0 (flame_frames_get_name (frames, flame_tree_node (tree, p)->frame), python) ==
            0)
          return TRUE;
    }
  return FALSE;
}

/* Memory recordings carry the Python frames too: of the bytes big()
 * and small() allocate (py-alloc.py: 30 and 10 MiB of 64 KiB
 * bytearrays, each sampled at nearly every time at this mean), 75 and
 * 25 %, in place of the evaluation loop; with --python-only, no
 * interpreter frames between them and the allocation. */
static void
test_memory (gconstpointer version)
{
  const char *py = python_for (version);
  g_autofree char *workload = script ("py-alloc.py");
  const char *argv[] = { py, workload, NULL };
  const double mib = 1024.0 * 1024.0;

  if (py == NULL)
    return;
  for (guint python_only = 0; python_only < 2; python_only++)
    {
      g_autoptr(FlameRecorder) recorder = NULL;
      g_autoptr(FlameProfile) profile = NULL;
      gdouble all, big, small, eval, n, tolerance, share;

      profile = record_full (&recorder, python_only ? "py-alloc-only.json" : "py-alloc.json",
                             argv, 999, python_only, 16384);
      g_assert_true (WIFEXITED (flame_recorder_get_wait_status (recorder)));
      g_assert_cmpint (WEXITSTATUS (flame_recorder_get_wait_status (recorder)), ==, 0);
      big = flame_test_function_weight (profile, "big", &all);
      small = flame_test_function_weight (profile, "small", NULL);
      eval = flame_test_function_weight (profile, "_PyEval_EvalFrameDefault", NULL);
      /* the sampled allocations through the two, in proportion of the
       * bytes (conservative: theirs are the largest of the samples) */
      n = flame_recorder_get_samples (recorder) * (big + small) / MAX (all, 1);
      share = 100 * big / MAX (big + small, 1);
      tolerance = flame_test_share_tolerance (0.75, n);
      g_test_message ("python-only %u: big %.2f MiB, small %.2f MiB of %.2f MiB: big %.1f %% "
                      "(expected 75 %% ± %.1f, %.0f samples); _PyEval_EvalFrameDefault %.2f MiB",
                      python_only, big / mib, small / mib, all / mib, share, tolerance, n,
                      eval / mib);
      /* nearly all of their 40 MiB */
      g_assert_cmpfloat (fabs ((big + small) / mib - 40), <, 4);
      g_assert_cmpfloat (fabs (share - 75), <, tolerance);
      g_assert_true (flame_test_has_path (profile, "main", "big"));
      g_assert_true (flame_test_has_path (profile, "main", "small"));
      g_assert_false (flame_test_has_path (profile, "big", "small"));
      /* no evaluation loop left where Python frames ran */
      g_assert_cmpfloat (eval, <, 0.05 * all);
      /* mixed mode: the interpreter's C functions that allocated sit
       * below big() (which ones depends on the version and its symbols:
       * PyByteArray_Resize in Debian 12's 3.11, python3.13+0x… in sid);
       * with --python-only, none */
      g_assert_cmpint (native_below (profile, "big"), ==, !python_only);
    }
}

static void
test_perf_map (void)
{
  g_autofree char *path = tmp_path ("perf-test.map");
  const char *text =
    "1000 100 first\n"
    "garbage\n"
    "zz 10 bad start\n"
    "2000 0 empty size\n"
    "3000 10\n"
    "1080 40 replaced part\n"
    "ffffffffffffff00 ff near the end\n"
    "4000 20 JS:*hot /app/x.js:12:5";   /* no newline at the end */
  g_autoptr(FlamePerfMap) map = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  map = flame_perf_map_load (path);
  g_assert_nonnull (map);
  g_assert_cmpuint (flame_perf_map_count (map), ==, 4);
  g_assert_cmpstr (flame_perf_map_lookup (map, 0x1000), ==, "first");
  g_assert_cmpstr (flame_perf_map_lookup (map, 0x107f), ==, "first");
  g_assert_cmpstr (flame_perf_map_lookup (map, 0x1080), ==, "replaced part");
  g_assert_cmpstr (flame_perf_map_lookup (map, 0x10bf), ==, "replaced part");
  g_assert_cmpstr (flame_perf_map_lookup (map, 0x10c0), ==, "first");
  g_assert_null (flame_perf_map_lookup (map, 0x1100));
  g_assert_null (flame_perf_map_lookup (map, 0x0fff));
  g_assert_null (flame_perf_map_lookup (map, 0x2000));
  g_assert_null (flame_perf_map_lookup (map, 0x3005));
  g_assert_cmpstr (flame_perf_map_lookup (map, 0xffffffffffffff10), ==, "near the end");
  g_assert_cmpstr (flame_perf_map_lookup (map, 0x4010), ==, "JS:*hot /app/x.js:12:5");

  g_assert_true (g_file_set_contents (path, "no valid line\n", -1, NULL));
  g_assert_null (flame_perf_map_load (path));
  g_assert_null (flame_perf_map_load ("/nonexistent/perf-1.map"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* the system's python3, then a CPython 3.12 where one is given */
  for (guint i = 0; i < 2; i++)
    {
      const char *version = i == 0 ? "" : "3.12";
      const char *prefix = i == 0 ? "/capture-runtimes/python-" : "/capture-runtimes/python312-";
      struct { const char *name; GTestDataFunc func; } tests[] = {
        { "shares", test_shares }, { "shares-threads", test_shares_threads },
        { "python-only", test_python_only }, { "stress", test_stress },
        { "linetable", test_linetable }, { "memory", test_memory },
      };

      for (guint k = 0; k < G_N_ELEMENTS (tests); k++)
        {
          g_autofree char *path = g_strconcat (prefix, tests[k].name, NULL);

          g_test_add_data_func (path, version, tests[k].func);
        }
      if (i == 0)
        g_test_add_func ("/capture-runtimes/python-unsupported", test_unsupported);
    }
  g_test_add_func ("/capture-runtimes/perf-map", test_perf_map);
  g_test_add_func ("/capture-runtimes/node-shares", test_node_shares);
  g_test_add_func ("/capture-runtimes/node-shares-workers", test_node_shares_workers);
  return g_test_run ();
}

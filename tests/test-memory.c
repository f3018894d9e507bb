/* test-memory.c: memory recordings (flamediff-cli record --memory) of
 * tests/capture-workloads/memory.c, whose functions allocate 30 MiB and
 * 10 MiB and keep 8 MiB: attribution, peak, leaks, threads, fork, and
 * the comparison of two recordings; and of allocators.c, which calls
 * every allocation function of the C library.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "flame-loader.h"
#include "flame-memory.h"
#include "flame-profile.h"
#include "flame-recorder.h"
#include "flame-sandbox.h"
#include "flame-test-utils.h"

#define MIB (1024.0 * 1024.0)
/* a small mean, so a short run has thousands of samples: the shares'
 * noise stays below the 5 points the test allows */
#define TEST_MEAN "16384"

static char *tmpdir;
/* set: record() runs the workload as a program only the host has, in
 * the fake Flatpak (fake_flatpak()), with this environment for the CLI */
static const char *const *host_env;

/* a program of tests/capture-workloads, or a library there */
static char *
workload_file (const char *name)
{
  const char *dir = g_getenv ("FLAMEDIFF_WORKLOADS");

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static char *
workload (void)
{
  return workload_file ("capture-memory");
}

static char *record_program (const char *prog, const char *name, va_list ap);

/* Records the workload with @args (NULL-terminated, after the program) */
static char *
record (const char *name,
        ...)
{
  g_autofree char *prog = host_env != NULL ? g_strdup ("fd-test-memory") : workload ();
  va_list ap;
  char *out;

  va_start (ap, name);
  out = record_program (prog, name, ap);
  va_end (ap);
  return out;
}

/* Records @prog with the arguments in @ap into tmpdir/@name */
static char *
record_program (const char *prog,
                const char *name,
                va_list     ap)
{
  char *out = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(FlameTestRun) r = { 0 };
  const char *arg;

  g_ptr_array_add (argv, "record");
  g_ptr_array_add (argv, "--memory");
  g_ptr_array_add (argv, "--memory-mean=" TEST_MEAN);
  g_ptr_array_add (argv, "-o");
  g_ptr_array_add (argv, out);
  g_ptr_array_add (argv, "--cwd");
  g_ptr_array_add (argv, tmpdir);
  g_ptr_array_add (argv, "--");
  g_ptr_array_add (argv, (char *) prog);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  g_ptr_array_add (argv, NULL);
  flame_test_run_cli_env (&r, (const char * const *) argv->pdata, host_env);
  if (r.status != 0)
    g_printerr ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "sampled allocations"));
  return out;
}

static FlameProfile *
load (const char *path,
      const char *metric)
{
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  g_autoptr(GError) error = NULL;
  FlameProfile *profile;

  options.sample_type = metric;
  profile = flame_load_file_full (path, &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_sample_type (profile), ==, metric);
  return profile;
}

static void
assert_share_within (FlameProfile *profile,
                     const char   *name,
                     gdouble       want_pct,
                     gdouble       tol)
{
  gdouble got = flame_test_function_share (profile, name);

  g_test_message ("%s: %s %.2f %% (expected %.2f %% ± %.1f)",
                  flame_profile_get_sample_type (profile), name, got, want_pct, tol);
  g_assert_cmpfloat (fabs (got - want_pct), <=, tol);
}

static void
assert_share (FlameProfile *profile,
              const char   *name,
              gdouble       want_pct)
{
  assert_share_within (profile, name, want_pct,
                       flame_test_share_tolerance (want_pct / 100,
                                                   flame_profile_get_samples (profile, 0)));
}

/* A recording of the workload without arguments: 30 + 10 + 8 MiB, each
 * function's share within 5 points, the peak and the leaks within 10 % */
static void
check_attribution (const char *path)
{
  g_autoptr(FlameProfile) allocated = load (path, "allocated");
  g_autoptr(FlameProfile) peak = load (path, "peak");
  g_autoptr(FlameProfile) leaked = load (path, "leaked");
  g_autoptr(FlameProfile) count = load (path, "allocations");
  FlameMemoryTotals t;

  g_assert_cmpint (flame_profile_get_unit (allocated), ==, FLAME_UNIT_BYTES);
  g_assert_cmpint (flame_profile_get_unit (count), ==, FLAME_UNIT_COUNT);
  g_assert_true (flame_memory_get_totals (allocated, &t));
  g_test_message ("allocated %.2f MiB, peak %.2f MiB, leaked %.2f MiB, %.0f allocations",
                  t.allocated_bytes / MIB, t.peak_bytes / MIB, t.leaked_bytes / MIB, t.allocations);

  /* 30 + 10 + 8 MiB of blocks, plus what libc allocates itself */
  g_assert_cmpfloat (fabs (t.allocated_bytes / MIB - 48), <=, 48 * 0.02);
  g_assert_cmpfloat (fabs (t.peak_bytes / MIB - 8), <=, 8 * 0.10);
  g_assert_cmpfloat (fabs (t.leaked_bytes / MIB - 8), <=, 8 * 0.10);
  g_assert_cmpfloat (t.allocations, >=, 2700);

  /* the bound, 5 points: with the small mean, the shares'
   * standard error is below one */
  assert_share_within (allocated, "alloc_30", 100 * 30 / 48.0, 5);
  assert_share_within (allocated, "alloc_10", 100 * 10 / 48.0, 5);
  assert_share_within (allocated, "keep_8", 100 * 8 / 48.0, 5);
  /* the peak and the leaks are what keep_8 holds */
  assert_share_within (peak, "keep_8", 100, 5);
  assert_share_within (leaked, "keep_8", 100, 5);
  /* the column sums are the exact figures */
  g_assert_cmpfloat (fabs (flame_profile_get_total_weight (peak, 0) - t.peak_bytes), <=, 1);
  /* one process: its peak, not an upper bound */
  g_assert_cmpuint (t.peak_processes, ==, 1);
}

static void
test_attribution (void)
{
  g_autofree char *path = record ("plain.json", NULL);

  check_attribution (path);
}

/* A stand-in for flatpak-spawn: --host runs the command here, in the
 * directory of --directory, with nothing of the caller's environment but
 * HOME and what --env passes, as the real one starts it on the host. The
 * host's PATH has the folder host-bin beside it, which the "sandbox"
 * does not; the arguments go to flatpak-spawn.log, one a line. */
static const char fake_flatpak_spawn[] =
  "#!/bin/bash\n"
  "here=$(dirname \"$0\")\n"
  "printf '%s\\n' \"$@\" >\"$here/flatpak-spawn.log\"\n"
  "[[ $1 == --host ]] || { echo 'fake flatpak-spawn: --host expected' >&2; exit 97; }\n"
  "shift\n"
  "envs=() dir=.\n"
  "while [[ $# -gt 0 ]]; do\n"
  "  case $1 in\n"
  "    --watch-bus|--forward-fd=*) ;;\n"
  "    --directory=*) dir=${1#--directory=} ;;\n"
  "    --env=*) envs+=(\"${1#--env=}\") ;;\n"
  "    --) shift; break ;;\n"
  "    *) echo \"fake flatpak-spawn: unknown option $1\" >&2; exit 97 ;;\n"
  "  esac\n"
  "  shift\n"
  "done\n"
  "cd \"$dir\" || exit 97\n"
  "exec env -i PATH=\"$here/../host-bin:$PATH\" HOME=\"$HOME\" \"${envs[@]}\" \"$@\"\n";

#define FAKE_APP_ID "io.github.flamediff.Test"

/* A Flatpak as far as the recorder can tell: a fake /.flatpak-info (its
 * path returned) with talk access to org.freedesktop.Flatpak, the fake
 * flatpak-spawn above in tmpdir/bin (*bin), the workload in
 * tmpdir/host-bin as fd-test-memory (a program only the host has) */
static char *
fake_flatpak (char **bin)
{
  g_autofree char *info_path = g_build_filename (tmpdir, "flatpak-info", NULL);
  g_autofree char *spawn = NULL;
  g_autofree char *host_bin = g_build_filename (tmpdir, "host-bin", NULL);
  g_autofree char *host_prog = g_build_filename (host_bin, "fd-test-memory", NULL);
  g_autofree char *prog = workload ();
  g_autofree char *contents = NULL;
  gsize len;

  *bin = g_build_filename (tmpdir, "bin", NULL);
  spawn = g_build_filename (*bin, "flatpak-spawn", NULL);
  g_assert_true (g_file_set_contents (info_path,
                                      "[Application]\nname=" FAKE_APP_ID "\n\n"
                                      "[Session Bus Policy]\norg.freedesktop.Flatpak=talk\n",
                                      -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (*bin, 0755), ==, 0);
  g_assert_true (g_file_set_contents (spawn, fake_flatpak_spawn, -1, NULL));
  g_assert_cmpint (g_chmod (spawn, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (host_bin, 0755), ==, 0);
  g_assert_true (g_file_get_contents (prog, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (host_prog, contents, len, NULL));
  g_assert_cmpint (g_chmod (host_prog, 0755), ==, 0);
  return g_steal_pointer (&info_path);
}

/* It went through flatpak-spawn --host, with the memory build for the
 * host, copied to $XDG_RUNTIME_DIR/app/APP-ID */
static void
assert_host_spawned (void)
{
  g_autofree char *spawn_log = g_build_filename (tmpdir, "bin", "flatpak-spawn.log", NULL);
  g_autofree char *exported = g_build_filename (g_get_user_runtime_dir (), "app", FAKE_APP_ID,
                                                "libflamediff-sampler-memory-host.so", NULL);
  g_autofree char *preload = g_strconcat ("--env=LD_PRELOAD=", exported, NULL);
  g_autofree char *log = NULL;
  g_auto(GStrv) args = NULL;

  g_assert_true (g_file_get_contents (spawn_log, &log, NULL, NULL));
  args = g_strsplit (log, "\n", -1);
  g_assert_cmpstr (args[0], ==, "--host");
  g_assert_true (g_strv_contains ((const char * const *) args, preload));
  g_assert_true (g_strv_contains ((const char * const *) args,
                                  "--env=FLAMEDIFF_SAMPLER_MEMORY=" TEST_MEAN));
  g_assert_true (g_file_test (exported, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (g_unlink (spawn_log), ==, 0);
}

/* A memory recording of a program on the host, as the Record dialog
 * makes it from the Flatpak (flame_recorder_use_host), in a fake one
 * (fake_flatpak), "/" as the host's files (FLAMEDIFF_HOST_ROOT;
 * /run/host in the sandbox); main() points $XDG_RUNTIME_DIR into
 * tmpdir. The attribution is checked as for /memory/attribution. */
static void
test_host (void)
{
  g_autofree char *bin = NULL;
  g_autofree char *info_path = fake_flatpak (&bin);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autofree char *new_path = g_strconcat (bin, ":", old_path, NULL);
  g_autofree char *out = g_build_filename (tmpdir, "host.json", NULL);
  const char *argv[] = { "fd-test-memory", NULL };
  g_autoptr(FlameSandboxInfo) info = flame_sandbox_info_new (info_path);
  g_autoptr(FlameRecorder) recorder = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (flame_sandbox_plan (info, argv[0], tmpdir), ==, FLAME_SANDBOX_PLAN_HOST_SPAWN);
  g_setenv ("PATH", new_path, TRUE);
  g_setenv ("FLAMEDIFF_HOST_ROOT", "/", TRUE);
  recorder = flame_recorder_new (argv);
  flame_recorder_set_memory (recorder, (guint) g_ascii_strtoull (TEST_MEAN, NULL, 10));
  flame_recorder_set_capture_output (recorder, TRUE);
  flame_recorder_set_output_path (recorder, out);
  flame_recorder_set_cwd (recorder, tmpdir);
  g_assert_true (flame_recorder_use_host (recorder, info, &error));
  g_assert_no_error (error);
  profile = flame_recorder_record (recorder, NULL, &error);
  g_setenv ("PATH", old_path, TRUE);
  g_unsetenv ("FLAMEDIFF_HOST_ROOT");
  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "exit_status"), ==, "exited with status 0");
  assert_host_spawned ();
  check_attribution (out);

  /* a CPU build of the host sampler is no memory sampler: refused */
  {
    g_autoptr(FlameRecorder) wrong = flame_recorder_new (argv);
    g_autofree char *cpu = flame_recorder_find_host_sampler (FALSE, &error);

    g_assert_no_error (error);
    flame_recorder_set_memory (wrong, 16384);
    flame_recorder_set_host_sampler (wrong, cpu);
    flame_recorder_set_output_path (wrong, out);
    g_assert_null (flame_recorder_record (wrong, NULL, &error));
    g_assert_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED);
  }
}

/* flamediff-cli record --memory in the fake Flatpak: the program only
 * the host has runs there, as from the dialog; so do those of
 * /memory/threads and /memory/fork (libgcc's unwinder in threads and a
 * fork child) */
static void test_threads (void);
static void test_fork (void);

static void
test_host_cli (void)
{
  g_autofree char *bin = NULL;
  g_autofree char *info_path = fake_flatpak (&bin);
  g_autofree char *path = g_strconcat (bin, ":", g_getenv ("PATH"), NULL);
  const char *env[] = { "PATH", path, "FLAMEDIFF_FLATPAK_INFO", info_path,
                        "FLAMEDIFF_HOST_ROOT", "/", NULL };
  g_autofree char *out = NULL;

  host_env = env;
  out = record ("host-cli.json", NULL);
  assert_host_spawned ();
  check_attribution (out);
  test_threads ();
  assert_host_spawned ();
  test_fork ();
  assert_host_spawned ();
  host_env = NULL;
}

static void
test_threads (void)
{
  g_autofree char *path = record ("threads.json", "--threads", "4", NULL);
  g_autoptr(FlameProfile) allocated = load (path, "allocated");
  FlameMemoryTotals t;

  g_assert_true (flame_memory_get_totals (allocated, &t));
  g_assert_cmpfloat (fabs (t.allocated_bytes / MIB - 48), <=, 48 * 0.02);
  /* the 5 points, as for one thread */
  assert_share_within (allocated, "thread_main", 100 * 30 / 48.0, 5);
  assert_share_within (allocated, "alloc_10", 100 * 10 / 48.0, 5);
  g_assert_cmpuint (flame_profile_get_threads (allocated)->len, >=, 4);
}

/* 200 threads of one 64-byte allocation each: 12.5 KiB of 48 MiB. A
 * thread's first allocation is a sample candidate like any other; were
 * it always sampled, each would stand for about the mean (16 KiB here),
 * 6.5 % of the bytes. */
static void
test_thread_start (void)
{
  g_autofree char *path = record ("tiny-threads.json", "--tiny-threads", "200", NULL);
  g_autoptr(FlameProfile) allocated = load (path, "allocated");
  gdouble got = flame_test_function_share (allocated, "tiny_thread");

  g_test_message ("allocated: tiny_thread %.2f %% (12.5 KiB of 48 MiB: 0.03 %%)", got);
  g_assert_cmpfloat (got, <=, 1.5);
  assert_share (allocated, "alloc_30", 100 * 30 / 48.0);
}

static void
test_fork (void)
{
  g_autofree char *path = record ("fork.json", "--fork", NULL);
  g_autoptr(FlameProfile) allocated = load (path, "allocated");
  g_autoptr(FlameProfile) peak = load (path, "peak");
  FlameMemoryTotals t;

  g_assert_cmpstr (flame_profile_get_metadata (allocated, "processes"), ==, "2");
  g_assert_true (flame_memory_get_totals (allocated, &t));
  /* the child's 10 MiB are its own, not its parent's again */
  g_assert_cmpfloat (fabs (t.allocated_bytes / MIB - 48), <=, 48 * 0.03);
  assert_share_within (allocated, "alloc_10", 100 * 10 / 48.0, 5);
  assert_share_within (allocated, "alloc_30", 100 * 30 / 48.0, 5);
  g_assert_cmpfloat (fabs (t.peak_bytes / MIB - 8), <=, 8 * 0.15);
  /* two processes, and no common order of their records: the peak is
   * their own peaks added up, and says so */
  g_assert_cmpuint (t.peak_processes, ==, 2);
  {
    g_autofree char *line = flame_memory_summary_line (&t, &t);
    g_autofree char *described = flame_memory_describe (allocated);

    g_assert_nonnull (strstr (line, "; an upper bound: each process's own peak added up"));
    g_assert_nonnull (strstr (described, "peak at most "));
  }
  /* the child kept 192 KiB but freed its parent's 512 KiB: it leaked
   * nothing, and its sampled blocks stand for nothing */
  {
    g_autoptr(FlameProfile) leaked = load (path, "leaked");

    g_assert_cmpfloat (flame_test_function_weight (allocated, "child_keep", NULL), >, 0);
    g_assert_cmpfloat (flame_test_function_weight (leaked, "child_keep", NULL), ==, 0);
  }
  /* every metric's graph sums to its exact total, also the bytes of a
   * process none of whose allocations was sampled ([unsampled
   * allocations] under its name) */
  {
    static const char *const metrics[] = { "allocated", "allocations", "peak", "leaked" };
    const gdouble want[] = { t.allocated_bytes, t.allocations, t.peak_bytes, t.leaked_bytes };

    for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
      {
        g_autoptr(FlameProfile) p = load (path, metrics[i]);

        g_assert_cmpfloat (fabs (flame_profile_get_total_weight (p, 0) - want[i]), <=,
                           1 + want[i] * 1e-9);
      }
  }
}

/* The same amounts taken with mmap, mremap and munmap, as allocators of
 * their own take them: 30 MiB in 1 MiB mappings, 5 MiB grown to 10 (15
 * allocated, as for realloc), 8 MiB + 64 KiB with the middle 64 KiB
 * unmapped again (8 MiB kept). */
static void
test_mmap (void)
{
  g_autofree char *path = record ("mmap.json", "--mmap", NULL);
  g_autoptr(FlameProfile) allocated = load (path, "allocated");
  g_autoptr(FlameProfile) peak = load (path, "peak");
  g_autoptr(FlameProfile) leaked = load (path, "leaked");
  const gdouble all = 30 + 15 + 8 + 1 / 16.0;
  FlameMemoryTotals t;

  g_assert_true (flame_memory_get_totals (allocated, &t));
  g_test_message ("allocated %.2f MiB, peak %.2f MiB, leaked %.2f MiB, %.0f allocations",
                  t.allocated_bytes / MIB, t.peak_bytes / MIB, t.leaked_bytes / MIB, t.allocations);
  g_assert_cmpfloat (fabs (t.allocated_bytes / MIB - all), <=, all * 0.02);
  /* the peak is keep_8's mapping before its hole: 8 MiB + 64 KiB, or
   * alloc_10's 10 MiB while mremap has both (counted as a free then a
   * new one, as realloc): at most 10 */
  g_assert_cmpfloat (t.peak_bytes / MIB, >=, 8 * 0.95);
  g_assert_cmpfloat (t.peak_bytes / MIB, <=, 10 * 1.05);
  g_assert_cmpfloat (fabs (t.leaked_bytes / MIB - 8), <=, 8 * 0.05);
  /* mappings of a MiB and more, against a mean of 16 KiB: each one is
   * sampled (1 - exp (-64) of the time) and stands for its own size, so
   * the shares are exact but for libc's few small blocks */
  assert_share_within (allocated, "alloc_30", 100 * 30 / all, 1);
  assert_share_within (allocated, "alloc_10", 100 * 15 / all, 1);
  assert_share_within (allocated, "keep_8", 100 * (8 + 1 / 16.0) / all, 1);
  assert_share_within (leaked, "keep_8", 100, 1);
  /* the peak is alloc_10's mapping grown to 10 MiB */
  assert_share_within (peak, "alloc_10", 100, 1);
}

/* Records @prog with the arguments after it (NULL-terminated) */
static char *
record_other (const char *prog,
              const char *name,
              ...)
{
  va_list ap;
  char *out;

  va_start (ap, name);
  out = record_program (prog, name, ap);
  va_end (ap);
  return out;
}

/* Every allocation function of the C library, a constructor that
 * allocates before main and a library loaded with dlopen
 * (capture-workloads/allocators.c): 52 MiB in all, each function's bytes
 * and allocations within the 5 points of /memory/attribution, the
 * totals exact, the 2 MiB the constructor keeps the only leak. */
static void
test_allocators (void)
{
  static const struct { const char *name; gdouble mib; gdouble count; } fns[] = {
    { "before_main", 6, 96 },          /* malloc, in a constructor */
    { "use_calloc", 8, 512 },
    { "use_realloc", 14, 12 },         /* realloc (NULL, …), grown, shrunk; to 0 frees */
    { "use_posix_memalign", 4, 64 },
    { "use_aligned_alloc", 4, 64 },
    { "use_memalign", 4, 64 },
    { "use_valloc", 4, 64 },
    { "alloc_module_churn", 8, 128 },  /* in the dlopen'ed library */
  };
  g_autofree char *prog = workload_file ("capture-allocators");
  g_autofree char *module = workload_file ("liballoc-module.so");
  g_autofree char *path = record_other (prog, "allocators.json", module, NULL);
  g_autoptr(FlameProfile) allocated = load (path, "allocated");
  g_autoptr(FlameProfile) count = load (path, "allocations");
  g_autoptr(FlameProfile) leaked = load (path, "leaked");
  gdouble all_mib = 0, all_count = 0;
  FlameMemoryTotals t;

  for (guint i = 0; i < G_N_ELEMENTS (fns); i++)
    {
      all_mib += fns[i].mib;
      all_count += fns[i].count;
    }
  g_assert_true (flame_memory_get_totals (allocated, &t));
  g_test_message ("allocated %.2f MiB, peak %.2f MiB, leaked %.2f MiB, %.0f allocations",
                  t.allocated_bytes / MIB, t.peak_bytes / MIB, t.leaked_bytes / MIB, t.allocations);
  /* what glibc reports usable is a little more than asked for (and the
   * C library and the loader allocate a little themselves) */
  g_assert_cmpfloat (fabs (t.allocated_bytes / MIB - all_mib), <=, all_mib * 0.02);
  /* realloc (p, 0) counts no allocation; the loader's own are a few */
  g_assert_cmpfloat (t.allocations, >=, all_count);
  g_assert_cmpfloat (t.allocations, <=, all_count + 100);
  g_assert_cmpfloat (fabs (t.leaked_bytes / MIB - 2), <=, 2 * 0.05);
  /* the shares of the bytes are the column's: its sum is the exact total */
  g_assert_cmpfloat (fabs (flame_profile_get_total_weight (allocated, 0) - t.allocated_bytes),
                     <=, t.allocated_bytes * 1e-6);
  /* The counts' shares among the program's own functions: a sampled
   * block of s bytes stands for mean / s allocations, so one of the C
   * library's few 200-byte blocks, when sampled, takes 80 of the ~1000
   * (a 1-in-30 chance here), an exact estimate of a rare event. Among
   * the functions above, the share of use_calloc (512 blocks of the
   * mean's size) varies by 0.9 points. */
  {
    gdouble counted[G_N_ELEMENTS (fns)], all_counted = 0;

    for (guint i = 0; i < G_N_ELEMENTS (fns); i++)
      all_counted += counted[i] = flame_test_function_weight (count, fns[i].name, NULL);
    g_assert_cmpfloat (all_counted, >, 0);
    for (guint i = 0; i < G_N_ELEMENTS (fns); i++)
      {
        gdouble got = 100 * counted[i] / all_counted, want = 100 * fns[i].count / all_count;

        g_test_message ("allocations: %s %.2f %% of the program's (expected %.2f %% ± 5)",
                        fns[i].name, got, want);
        g_assert_cmpfloat (fabs (got - want), <=, 5);
        assert_share_within (allocated, fns[i].name, 100 * fns[i].mib / all_mib, 5);
      }
  }
  /* the realloc chain: grown and shrunk in place or moved, each step is
   * its new size; realloc (p, 0) freed the block: nothing of it leaked */
  assert_share_within (allocated, "use_realloc", 100 * 14 / all_mib, 1.5);
  /* the 5 points: the C library's own blocks still held at exit
   * (stdio buffers, the dlopen'ed module's loader state) are leaked too,
   * and a small one that is sampled weighs a mean's worth (2.4 points
   * once with sid's glibc 2.43) */
  assert_share_within (leaked, "before_main", 100, 5);
}

static void
test_compare (void)
{
  g_autofree char *base = record ("base.json", NULL);
  g_autofree char *twice = record ("twice.json", "--double", "alloc_10", NULL);
  g_autofree char *more = record ("more.json", "--double", "keep_8", NULL);
  g_auto(FlameTestRun) r = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *memory;

  /* twice the allocations in alloc_10 (under it, in churn): a
   * regression of the gate, alloc_30 unchanged */
  flame_test_run_cli_va (&r, "compare", "--metric", "total", "--fail-on-regression", base, twice,
                         NULL);
  g_assert_cmpint (r.status, ==, 2);
  {
    const char *regressions = strstr (r.out, "Top regressions");
    const char *improvements = strstr (r.out, "Top improvements");
    g_autofree char *section = NULL;

    g_assert_nonnull (regressions);
    g_assert_nonnull (improvements);
    section = g_strndup (regressions, improvements - regressions);
    g_assert_nonnull (strstr (section, "alloc_10"));
    g_assert_null (strstr (section, "alloc_30"));
  }
  g_assert_nonnull (strstr (r.out, "Peak memory: "));
  g_assert_nonnull (strstr (r.out, "MiB"));
  g_assert_nonnull (strstr (r.out, "Top allocation sites"));
  /* a site with its file and line: churn, which allocates alloc_10's */
  {
    const char *churn = strstr (r.out, "  churn (");
    const char *end = churn != NULL ? strchr (churn, '\n') : NULL;
    g_autofree char *site = end != NULL ? g_strndup (churn, end - churn) : NULL;

    g_assert_nonnull (site);
    g_assert_true (g_regex_match_simple ("/memory\\.c:[0-9]+\\)$", site, 0, 0));
  }
  flame_test_run_clear (&r);

  /* keep_8 doubled: the peak goes from 8 to 16 MiB */
  flame_test_run_cli_va (&r, "compare", "--metric", "peak", "--format", "markdown", base, more,
                         NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "**Peak memory: 8"));
  g_assert_nonnull (strstr (r.out, "→ 16"));
  g_assert_nonnull (strstr (r.out, "keep_8"));
  flame_test_run_clear (&r);

  flame_test_run_cli_va (&r, "compare", "--format", "json", base, more, NULL);
  g_assert_cmpint (r.status, ==, 0);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  memory = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                          "memory");
  g_assert_nonnull (memory);
  g_assert_cmpstr (json_object_get_string_member (memory, "unit"), ==, "bytes");
  g_assert_cmpfloat (fabs (json_object_get_double_member (memory, "peak_delta_bytes") / MIB - 8),
                     <=, 0.8);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (memory, "top_sites")), >,
                    0);
  {
    JsonObject *site = json_array_get_object_element (json_object_get_array_member (memory,
                                                                                    "top_sites"),
                                                      0);

    g_assert_true (json_object_has_member (site, "line"));
    g_assert_cmpint (json_object_get_int_member (site, "line"), >, 0);
  }
  flame_test_run_clear (&r);

  /* a metric the file does not have */
  flame_test_run_cli_va (&r, "info", "--metric", "nonsense", base, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "allocated, allocations, peak, leaked"));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("flamediff-memory-XXXXXX", &error);
  g_assert_no_error (error);
  /* where flame_sandbox_export_sampler() puts the host's sampler */
  {
    g_autofree char *runtime = g_build_filename (tmpdir, "runtime", NULL);

    g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  }
  g_test_add_func ("/memory/attribution", test_attribution);
  g_test_add_func ("/memory/threads", test_threads);
  g_test_add_func ("/memory/thread-start", test_thread_start);
  g_test_add_func ("/memory/fork", test_fork);
  g_test_add_func ("/memory/mmap", test_mmap);
  g_test_add_func ("/memory/allocators", test_allocators);
  g_test_add_func ("/memory/compare", test_compare);
  g_test_add_func ("/memory/host", test_host);
  g_test_add_func ("/memory/host-cli", test_host_cli);
  status = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);

    if (system (cmd) != 0)
      g_printerr ("could not remove %s\n", tmpdir);
  }
  return status;
}

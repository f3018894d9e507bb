/* flame-cli-record.c: flamediff-cli record [-F HZ] [-o FILE] [--runs N]
 * [--cwd DIR] -- COMMAND ARGS…
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "flame-cli.h"
#include "flame-memory.h"
#include "flame-recorder.h"

typedef struct
{
  GMainLoop    *loop;
  FlameProfile *profile;
  GError       *error;
} RecordRun;

static void
on_recorded (GObject      *source,
             GAsyncResult *result,
             gpointer      data)
{
  RecordRun *run = data;

  g_assert (G_IS_OBJECT (source));
  g_assert (G_IS_ASYNC_RESULT (result));

  run->profile = flame_recorder_record_finish (FLAME_RECORDER (source), result, &run->error);
  g_main_loop_quit (run->loop);
}

static gboolean
on_interrupt (gpointer data)
{
  gboolean *interrupted;

  g_assert (FLAME_IS_RECORDER (data));

  interrupted = g_object_get_data (G_OBJECT (data), "interrupted");

  /* Ctrl+C reaches the command too (same process group); stopping here
   * keeps the recording, with SIGKILL after the grace period */
  if (interrupted != NULL)
    *interrupted = TRUE;
  flame_recorder_stop (FLAME_RECORDER (data));
  return G_SOURCE_CONTINUE;
}

/* flamediff-cli record --recover [DIR]: every spool of an interrupted
 * recording in DIR (default: the recordings folder) becomes the
 * recording it was for, next to it */
static int
recover_spools (const char *dir_arg)
{
  g_autofree char *dir = dir_arg != NULL ? g_strdup (dir_arg) : flame_recorder_default_dir ();
  g_autoptr(GPtrArray) spools = flame_recorder_find_spools (dir);
  int status = FLAME_CLI_OK;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_printerr ("flamediff-cli record: %s is not a folder\n", dir);
      return FLAME_CLI_ERROR;
    }
  if (spools->len == 0)
    g_printerr ("flamediff-cli: no interrupted recordings in %s\n", dir);
  for (guint i = 0; i < spools->len; i++)
    {
      const char *spool = g_ptr_array_index (spools, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile = flame_recorder_recover (spool, &error);

      if (profile == NULL)
        {
          g_printerr ("flamediff-cli record: cannot recover %s: %s\n", spool, error->message);
          status = FLAME_CLI_ERROR;
          continue;
        }
      g_printerr ("flamediff-cli: recovered %s samples (%s lost) of “%s”; written to %s\n",
                  flame_profile_get_metadata (profile, "samples"),
                  flame_profile_get_metadata (profile, "samples_lost"),
                  flame_profile_get_metadata (profile, "command"),
                  flame_profile_get_path (profile));
    }
  return status;
}

/* What the options ask of every run's recorder */
typedef struct
{
  char    **command;
  char     *cwd;
  char    **env;
  gboolean  no_children;
  gboolean  python_only;
  gboolean  python_lines;
  gboolean  memory;
  int       memory_mean;
  int       hz;
} RecordOptions;

static FlameRecorder *
new_recorder (const RecordOptions *o,
              const char          *output)
{
  FlameRecorder *recorder = flame_recorder_new ((const char * const *) o->command);
  g_autofree char *cwd = o->cwd != NULL ? g_strdup (o->cwd) : g_get_current_dir ();
  g_autoptr(FlameSandboxInfo) sandbox = flame_sandbox_info_new (NULL);
  g_autoptr(GError) error = NULL;

  if (o->memory)
    flame_recorder_set_memory (recorder, (guint) o->memory_mean);
  flame_recorder_set_frequency (recorder, o->hz);
  flame_recorder_set_follow_children (recorder, !o->no_children);
  flame_recorder_set_python_only (recorder, o->python_only);
  flame_recorder_set_python_lines (recorder, o->python_lines);
  flame_recorder_set_cwd (recorder, cwd);
  /* in the Flatpak, a program only the host has runs there, as Record
   * and Diff runs it; without the host sampler, the recording then fails
   * as for any program not found */
  if (flame_sandbox_plan (sandbox, o->command[0], cwd) == FLAME_SANDBOX_PLAN_HOST_SPAWN &&
      !flame_recorder_use_host (recorder, sandbox, &error))
    g_printerr ("flamediff-cli record: %s\n", error->message);
  for (guint i = 0; o->env != NULL && o->env[i] != NULL; i++)
    {
      const char *eq = strchr (o->env[i], '=');
      g_autofree char *name = g_strndup (o->env[i], (gsize) (eq - o->env[i]));

      flame_recorder_setenv (recorder, name, eq + 1);
    }
  if (output != NULL)
    {
      g_autofree char *abs = g_canonicalize_filename (output, NULL);

      flame_recorder_set_output_path (recorder, abs);
    }
  return recorder;
}

/* One run, to @output (NULL: a new file in the recordings folder); its
 * summary on stderr. *interrupted says Ctrl+C (or SIGTERM) stopped it. */
static gboolean
record_one (const RecordOptions *o,
            const char          *output,
            gboolean            *interrupted)
{
  g_autoptr(FlameRecorder) recorder = new_recorder (o, output);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  RecordRun run = { 0 };
  guint sigint_id, sigterm_id;
  const char *meta;

  run.loop = loop;
  sigint_id = g_unix_signal_add (SIGINT, on_interrupt, recorder);
  sigterm_id = g_unix_signal_add (SIGTERM, on_interrupt, recorder);
  g_object_set_data (G_OBJECT (recorder), "interrupted", interrupted);
  flame_recorder_record_async (recorder, NULL, on_recorded, &run);
  g_main_loop_run (loop);
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);

  if (run.profile == NULL)
    {
      g_printerr ("flamediff-cli record: %s\n", run.error->message);
      g_error_free (run.error);
      return FALSE;
    }

  flame_cli_print_warnings (flame_profile_get_warnings (run.profile));
  meta = flame_profile_get_metadata (run.profile, "exit_status");
  if (o->memory)
    {
      g_autofree char *summary = flame_memory_describe (run.profile);

      g_printerr ("flamediff-cli: recorded %s sampled allocations (%s records lost) in %.2f s; %s; "
                  "command %s; written to %s\n",
                  flame_profile_get_metadata (run.profile, "samples"),
                  flame_profile_get_metadata (run.profile, "samples_lost"),
                  flame_profile_get_duration_ms (run.profile) / 1000.0, summary,
                  meta != NULL ? meta : "status unknown",
                  flame_recorder_get_output_path (recorder));
      g_object_unref (run.profile);
      return TRUE;
    }
  g_printerr ("flamediff-cli: recorded %s samples (%s lost) in %.2f s, %.0f samples per CPU-second "
              "(%d Hz requested); command %s; written to %s\n",
              flame_profile_get_metadata (run.profile, "samples"),
              flame_profile_get_metadata (run.profile, "samples_lost"),
              flame_profile_get_duration_ms (run.profile) / 1000.0,
              flame_recorder_get_effective_hz (recorder), o->hz,
              meta != NULL ? meta : "status unknown",
              flame_recorder_get_output_path (recorder));
  g_object_unref (run.profile);
  return TRUE;
}

/* The command line: the recorder's options and what to do with them */
typedef struct
{
  RecordOptions o;        /* owns its strings */
  char         *output;
  gboolean      recover;
  int           runs;
} RecordArgs;

static void
record_args_clear (RecordArgs *args)
{
  g_clear_pointer (&args->o.command, g_strfreev);
  g_clear_pointer (&args->o.cwd, g_free);
  g_clear_pointer (&args->o.env, g_strfreev);
  g_clear_pointer (&args->output, g_free);
}

/* The command line into @args; FALSE (and a message printed) on an error */
static gboolean
parse_record_options (int         argc,
                      char      **argv,
                      RecordArgs *args)
{
  RecordOptions *o = &args->o;
  GOptionEntry entries[] = {
    { "frequency", 'F', 0, G_OPTION_ARG_INT, &o->hz,
      "Timer rate in Hz of CPU time per thread (default 999; the kernel delivers at most its tick "
      "rate, often 250)",
      "HZ" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args->output,
      "Where to write the recording (speedscope JSON); default: a new file in the recordings "
      "folder. "
      "With --runs: the folder the runs go to",
      "FILE" },
    { "runs", 0, 0, G_OPTION_ARG_INT, &args->runs,
      "Run the command N times, one after the other, each run a file run-01.speedscope.json … in "
      "the "
      "folder -o names (default: a new folder in the recordings folder); "
      "compare takes the folder as one side",
      "N" },
    { "memory", 'm', 0, G_OPTION_ARG_NONE, &o->memory,
      "Record allocations instead of CPU time: allocated bytes, allocations, live bytes at the "
      "peak, leaked bytes",
      NULL },
    { "memory-mean", 0, 0, G_OPTION_ARG_INT, &o->memory_mean,
      "With --memory: sample one allocation per this many bytes on average (default 524288)",
      "BYTES" },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &o->cwd, "Working directory of the command", "DIR" },
    { "env", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &o->env,
      "Add NAME=VALUE to the command's environment", "NAME=VALUE" },
    { "no-children", 0, 0, G_OPTION_ARG_NONE, &o->no_children,
      "Record only the command's own process, not the processes it forks", NULL },
    { "python-only", 0, 0, G_OPTION_ARG_NONE, &o->python_only,
      "In Python programs, keep only the Python frames (no interpreter or C frames)", NULL },
    { "python-lines", 0, 0, G_OPTION_ARG_NONE, &o->python_lines,
      "One frame per Python source line running instead of one per function", NULL },
    { "recover", 0, 0, G_OPTION_ARG_NONE, &args->recover,
      "Instead of recording: write the recordings of interrupted runs (their .spool files) in DIR, "
      "by default the recordings folder",
      NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->command, NULL, "-- COMMAND [ARG…]" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  o->memory_mean = FLAME_RECORDER_DEFAULT_MEMORY_MEAN;
  o->hz = FLAME_RECORDER_DEFAULT_HZ;
  args->runs = 1;
  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
    "Runs COMMAND with the Flamediff sampler preloaded and writes a CPU profile\n"
    "(speedscope JSON with the command, times and sample counts in its \"flamediff\"\n"
    "object). Ctrl+C stops the command and keeps the recording.\n"
    "With --runs N, N recordings of the command go to one folder, a side for compare.\n"
    "flamediff-cli record --recover [DIR] writes what a killed recorder left.");
  g_option_context_add_main_entries (context, entries, NULL);
  /* options after the command belong to the command */
  g_option_context_set_strict_posix (context, TRUE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli record: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The checks of a recording's options; FALSE (and a message printed) on an error */
static gboolean
check_record_options (const RecordArgs *args)
{
  const RecordOptions *o = &args->o;

  if (o->command == NULL || o->command[0] == NULL)
    {
      g_printerr ("flamediff-cli record: no command; usage: flamediff-cli record [OPTION…] -- "
                  "COMMAND [ARG…]\n");
      return FALSE;
    }
  if (o->hz < 1 || o->hz > 100000)
    {
      g_printerr ("flamediff-cli record: --frequency must be between 1 and 100000\n");
      return FALSE;
    }
  if (args->runs < 1 || args->runs > 99)
    {
      g_printerr ("flamediff-cli record: --runs must be between 1 and 99\n");
      return FALSE;
    }
  if (o->memory_mean < 1)
    {
      g_printerr ("flamediff-cli record: --memory-mean must be at least 1\n");
      return FALSE;
    }
  for (guint i = 0; o->env != NULL && o->env[i] != NULL; i++)
    {
      char *eq = strchr (o->env[i], '=');

      if (eq == NULL || eq == o->env[i])
        {
          g_printerr ("flamediff-cli record: --env wants NAME=VALUE, not “%s”\n", o->env[i]);
          return FALSE;
        }
    }
  return TRUE;
}

/* The folder of repeated runs, made when missing; NULL (and a message
 * printed) when it cannot be */
static char *
make_runs_dir (const RecordArgs *args)
{
  g_autofree char *dir = args->output != NULL ? g_canonicalize_filename (args->output, NULL)
                                              : flame_recorder_new_runs_dir (args->o.command[0]);

  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_printerr ("flamediff-cli record: with --runs, -o names a folder; %s is a file\n", dir);
      return NULL;
    }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_printerr ("flamediff-cli record: cannot create %s: %s\n", dir, g_strerror (errno));
      return NULL;
    }
  return g_steal_pointer (&dir);
}

/* --runs N: one folder, one file per run */
static int
record_runs (const RecordArgs *args)
{
  g_autofree char *dir = make_runs_dir (args);
  gboolean interrupted = FALSE;
  int runs = args->runs;

  if (dir == NULL)
    return FLAME_CLI_ERROR;
  for (int i = 1; i <= runs; i++)
    {
      g_autofree char *path = flame_recorder_run_path (dir, (guint) i);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_printerr ("flamediff-cli record: %s exists already: -o wants a new or empty folder\n",
                      path);
          return FLAME_CLI_ERROR;
        }
      g_printerr ("flamediff-cli: run %d of %d\n", i, runs);
      if (!record_one (&args->o, path, &interrupted))
        return FLAME_CLI_ERROR;
      if (interrupted)
        {
          /* Ctrl+C ends the set: the runs so far are kept */
          g_printerr ("flamediff-cli: interrupted; %d of %d runs written to %s\n", i, runs, dir);
          return FLAME_CLI_OK;
        }
    }
  g_printerr ("flamediff-cli: %d runs written to %s (compare it with another folder of runs: "
              "flamediff-cli compare BEFORE-DIR %s)\n", runs, dir, dir);
  return FLAME_CLI_OK;
}

static int
run_record (const RecordArgs *args)
{
  char **command = args->o.command;
  gboolean interrupted = FALSE;

  if (args->recover)
    {
      if (command != NULL && command[0] != NULL && command[1] != NULL)
        {
          g_printerr ("flamediff-cli record: --recover takes one folder\n");
          return FLAME_CLI_ERROR;
        }
      return recover_spools (command != NULL ? command[0] : NULL);
    }
  if (!check_record_options (args))
    return FLAME_CLI_ERROR;
  if (args->runs == 1)
    return record_one (&args->o, args->output, &interrupted) ? FLAME_CLI_OK : FLAME_CLI_ERROR;
  return record_runs (args);
}

int
flame_cli_record (int    argc,
                  char **argv)
{
  RecordArgs args = { 0 };
  int status = FLAME_CLI_ERROR;

  if (parse_record_options (argc, argv, &args))
    status = run_record (&args);
  record_args_clear (&args);
  return status;
}

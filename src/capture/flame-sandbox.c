/* flame-sandbox.c: Flatpak detection and the plan for a command.
 *
 * Inside a Flatpak the recorder sees the runtime's /usr and whatever the
 * app was granted: a program found there is recorded as usual (its
 * LD_PRELOAD points into /app). A program only the host has (a path the
 * sandbox cannot see, or a name not on the sandbox's PATH) can only run
 * through flatpak-spawn --host, which needs talk access to
 * org.freedesktop.Flatpak; the sampler must then be a file the host can
 * load ($XDG_RUNTIME_DIR/app/$FLATPAK_ID is shared) and the socket is
 * passed with --forward-fd. See docs/recording.md.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "flame-sandbox.h"

FlameSandboxInfo *
flame_sandbox_info_new (const char *info_path)
{
  FlameSandboxInfo *info = g_new0 (FlameSandboxInfo, 1);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *talk = NULL;

  if (info_path == NULL)
    info_path = g_getenv ("FLAMEDIFF_FLATPAK_INFO");
  if (info_path == NULL)
    info_path = "/.flatpak-info";
  if (!g_file_test (info_path, G_FILE_TEST_EXISTS))
    return info;

  info->in_flatpak = TRUE;
  /* an unreadable file still means a sandbox, with nothing granted */
  if (!g_key_file_load_from_file (kf, info_path, G_KEY_FILE_NONE, NULL))
    return info;
  info->app_id = g_key_file_get_string (kf, "Application", "name", NULL);
  info->app_path = g_key_file_get_string (kf, "Instance", "app-path", NULL);
  talk = g_key_file_get_string (kf, "Session Bus Policy", "org.freedesktop.Flatpak", NULL);
  info->host_talk = talk != NULL && (g_str_equal (talk, "talk") || g_str_equal (talk, "own"));
  return info;
}

void
flame_sandbox_info_free (FlameSandboxInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->app_id);
  g_free (info->app_path);
  g_free (info);
}

static gboolean
reachable (const char *program,
           const char *cwd)
{
  g_autofree char *found = NULL;

  if (strchr (program, '/') != NULL)
    {
      g_autofree char *path = g_path_is_absolute (program) || cwd == NULL ?
                              g_strdup (program) : g_build_filename (cwd, program, NULL);

      return g_file_test (path, G_FILE_TEST_IS_EXECUTABLE);
    }
  found = g_find_program_in_path (program);
  return found != NULL;
}

/**
 * flame_sandbox_plan:
 *
 * How @program (as typed: a name looked up in PATH, or a path relative to
 * @cwd) can be recorded from here.
 */
FlameSandboxPlan
flame_sandbox_plan (const FlameSandboxInfo *info,
                    const char             *program,
                    const char             *cwd)
{
  if (info == NULL || !info->in_flatpak)
    return FLAME_SANDBOX_PLAN_DIRECT;
  if (program == NULL || reachable (program, cwd))
    return FLAME_SANDBOX_PLAN_INSIDE;
  return info->host_talk ? FLAME_SANDBOX_PLAN_HOST_SPAWN : FLAME_SANDBOX_PLAN_HOST_ONLY;
}

static void
append_word (GString    *s,
             const char *word)
{
  /* plain words stay plain */
  if (word[0] != '\0' && strpbrk (word, " \t\n'\"\\$`*?[]{}()<>|&;#~") == NULL)
    g_string_append (s, word);
  else
    {
      g_autofree char *q = g_shell_quote (word);

      g_string_append (s, q);
    }
}

/* The command to type on the host instead: flamediff-cli record … */
char *
flame_sandbox_host_command (const char * const *argv,
                            const char         *cwd)
{
  GString *s = g_string_new (NULL);

  if (cwd != NULL && *cwd != '\0')
    {
      g_string_append (s, "cd ");
      append_word (s, cwd);
      g_string_append (s, " && ");
    }
  g_string_append (s, "flamediff-cli record -o run.speedscope.json --");
  for (guint i = 0; argv != NULL && argv[i] != NULL; i++)
    {
      g_string_append_c (s, ' ');
      append_word (s, argv[i]);
    }
  return g_string_free (s, FALSE);
}

/**
 * flame_sandbox_export_sampler:
 *
 * Copies the sampler to $XDG_RUNTIME_DIR/app/$FLATPAK_ID, the one
 * directory the sandbox and the host both see under the same path, so
 * that the host's dynamic loader can preload it.
 */
gboolean
flame_sandbox_export_sampler (const FlameSandboxInfo  *info,
                              const char              *sampler,
                              char                   **host_path,
                              GError                 **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *dest = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  if (info == NULL || info->app_id == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "not running as a Flatpak application");
      return FALSE;
    }
  dir = g_build_filename (g_get_user_runtime_dir (), "app", info->app_id, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot create %s: %s", dir, g_strerror (errno));
      return FALSE;
    }
  {
    g_autofree char *name = g_path_get_basename (sampler);

    dest = g_build_filename (dir, name, NULL);
  }
  if (!g_file_get_contents (sampler, &contents, &len, error) ||
      !g_file_set_contents_full (dest, contents, len, G_FILE_SET_CONTENTS_CONSISTENT, 0755, error))
    return FALSE;
  if (host_path != NULL)
    *host_path = g_steal_pointer (&dest);
  return TRUE;
}

/**
 * flame_sandbox_host_argv:
 * @env: "NAME=value" strings for the program on the host
 * @forward_fd: a descriptor the host program must get under the same number
 *
 * flatpak-spawn --host … -- ARGV: the environment travels as --env (the
 * sandbox's own environment, LD_PRELOAD included, stays out of it).
 */
char **
flame_sandbox_host_argv (const char * const *argv,
                         const char         *cwd,
                         const char * const *env,
                         int                 forward_fd)
{
  GStrvBuilder *b = g_strv_builder_new ();
  char **out;

  g_strv_builder_add (b, "flatpak-spawn");
  g_strv_builder_add (b, "--host");
  g_strv_builder_add (b, "--watch-bus");
  if (forward_fd >= 0)
    {
      g_autofree char *fd = g_strdup_printf ("--forward-fd=%d", forward_fd);

      g_strv_builder_add (b, fd);
    }
  if (cwd != NULL)
    {
      g_autofree char *dir = g_strdup_printf ("--directory=%s", cwd);

      g_strv_builder_add (b, dir);
    }
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_autofree char *e = g_strdup_printf ("--env=%s", env[i]);

      g_strv_builder_add (b, e);
    }
  g_strv_builder_add (b, "--");
  for (guint i = 0; argv[i] != NULL; i++)
    g_strv_builder_add (b, argv[i]);
  out = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return out;
}

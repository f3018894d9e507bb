/* flame-recorder-check.c: before a recording starts. Where the sampler
 * libraries are, and whether the command can be recorded at all: a
 * program that exists and can run, not statically linked (the sampler
 * is preloaded), a script with an interpreter that can be, here or on
 * the host (Flatpak).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "flame-recorder-private.h"
#include "flame-sandbox.h"

/* ---- before launch ---- */

char *
flame_recorder_default_dir (void)
{
  return g_build_filename (g_get_user_data_dir (), "flamediff", "recordings", NULL);
}

/**
 * flame_recorder_find_sampler:
 *
 * $FLAMEDIFF_SAMPLER (tests, uninstalled runs), then next to the running
 * program in a build tree (src/cli or src/app → src/sampler), then the
 * installed copy in $libdir/flamediff.
 */
char *
flame_recorder_find_sampler (GError **error)
{
  const char *env = g_getenv ("FLAMEDIFF_SAMPLER");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  char *path;

  if (env != NULL && *env != '\0')
    {
      if (g_file_test (env, G_FILE_TEST_IS_REGULAR))
        return g_canonicalize_filename (env, NULL);
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "FLAMEDIFF_SAMPLER names %s, which does not exist", env);
      return NULL;
    }
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);

      path = g_build_filename (dir, "..", "sampler", SAMPLER_NAME, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          char *canon = g_canonicalize_filename (path, NULL);

          g_free (path);
          return canon;
        }
      g_free (path);
    }
  path = g_build_filename (FLAMEDIFF_SAMPLER_DIR, SAMPLER_NAME, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
               "the sampler %s is not installed (looked in %s)", SAMPLER_NAME,
               FLAMEDIFF_SAMPLER_DIR);
  g_free (path);
  return NULL;
}

/* Another build of the sampler, @name, next to the one
 * flame_recorder_find_sampler() finds; @what names it in the error */
char *
_flame_recorder_find_sampler_build (const char  *name,
                                    const char  *what,
                                    GError     **error)
{
  g_autofree char *sampler = flame_recorder_find_sampler (error);
  g_autofree char *dir = NULL;
  char *path;

  if (sampler == NULL)
    return NULL;
  dir = g_path_get_dirname (sampler);
  path = g_build_filename (dir, name, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
               "the %s %s is not installed", what, path);
  g_free (path);
  return NULL;
}

/**
 * flame_recorder_find_host_sampler:
 * @memory: the build for memory recordings (the allocator interposed)
 *
 * The libgcc-unwinding build of the sampler, next to the one
 * flame_recorder_find_sampler() finds: what a program outside the
 * sandbox can preload.
 */
char *
flame_recorder_find_host_sampler (gboolean   memory,
                                  GError   **error)
{
  if (memory)
    return _flame_recorder_find_sampler_build (MEMORY_HOST_SAMPLER_NAME,
                                               "memory sampler for host programs", error);
  return _flame_recorder_find_sampler_build (HOST_SAMPLER_NAME, "sampler for host programs",
                                             error);
}

/**
 * flame_recorder_use_host:
 * @info: the sandbox Flamediff runs in
 *
 * Makes the recording run on the host through `flatpak-spawn --host`:
 * the host build of the sampler that fits it (CPU time, or memory when
 * flame_recorder_set_memory() was called before) is copied where the
 * host's loader finds it (flame_sandbox_export_sampler()) and preloaded
 * there (flame_recorder_set_host_sampler()).
 */
gboolean
flame_recorder_use_host (FlameRecorder           *self,
                         const FlameSandboxInfo  *info,
                         GError                 **error)
{
  g_autofree char *sampler = flame_recorder_find_host_sampler (self->memory_mean > 0, error);
  g_autofree char *host = NULL;

  if (sampler == NULL || !flame_sandbox_export_sampler (info, sampler, &host, error))
    return FALSE;
  flame_recorder_set_host_sampler (self, host);
  return TRUE;
}

/* Neither set-user-ID nor set-group-ID, nor with file capabilities:
 * the dynamic loader would ignore LD_PRELOAD */
static gboolean
check_mode (const char  *path,
            const char  *shown,
            GError     **error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "%s: %s", shown, g_strerror (errno));
      return FALSE;
    }
  if (st.st_mode & (S_ISUID | S_ISGID))
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "%s is set-user-ID or set-group-ID: the dynamic loader ignores "
                   "LD_PRELOAD for it, so it cannot be recorded", shown);
      return FALSE;
    }
  if (getxattr (path, "security.capability", NULL, 0) > 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "%s has file capabilities: the dynamic loader ignores "
                   "LD_PRELOAD for it, so it cannot be recorded", shown);
      return FALSE;
    }
  return TRUE;
}

/* A 64-bit ELF file without an interpreter (PT_INTERP), judging by its
 * first @n bytes at @buf; headers beyond them are left to the loader */
static gboolean
elf_is_static (const guint8 *buf,
               gssize        n)
{
  Elf64_Ehdr eh;

  if (n < (gssize) sizeof eh || memcmp (buf, ELFMAG, SELFMAG) != 0 || buf[EI_CLASS] != ELFCLASS64)
    return FALSE;
  memcpy (&eh, buf, sizeof eh);
  /* headers out of reach (no sum that could wrap): let the loader judge */
  if (eh.e_phoff > (guint64) n ||
      (guint64) eh.e_phnum * sizeof (Elf64_Phdr) > (guint64) n - eh.e_phoff)
    return FALSE;
  for (guint i = 0; i < eh.e_phnum; i++)
    {
      Elf64_Phdr ph;

      memcpy (&ph, buf + eh.e_phoff + i * sizeof ph, sizeof ph);
      if (ph.p_type == PT_INTERP)
        return FALSE;
    }
  return TRUE;
}

/* The interpreter of the script whose first @n bytes are at @buf (n > 2,
 * "#!"), when it is an absolute path; NULL otherwise */
static char *
script_interpreter (const guint8 *buf,
                    gssize        n)
{
  g_autofree char *line = g_strndup ((char *) buf + 2, n - 2);
  char *end = strchr (line, '\n');
  g_auto(GStrv) words = NULL;

  if (end != NULL)
    *end = '\0';
  words = g_strsplit_set (g_strstrip (line), " \t", 2);
  if (words[0] == NULL || words[0][0] != '/')
    return NULL;
  return g_strdup (words[0]);
}

/* @root: where @path_in_root is seen (the host's files in a Flatpak), or NULL */
static gboolean
check_file (const char  *root,
            const char  *path_in_root,
            const char  *shown,
            int          depth,
            GError     **error)
{
  g_autofree char *path = root != NULL ? g_build_filename (root, path_in_root, NULL)
                                       : g_strdup (path_in_root);
  guint8 buf[4096];
  gssize n;
  int fd;

  if (!check_mode (path, shown, error))
    return FALSE;
  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "cannot read %s: %s", shown, g_strerror (errno));
      return FALSE;
    }
  n = read (fd, buf, sizeof buf);
  close (fd);

  if (n > 2 && buf[0] == '#' && buf[1] == '!' && depth == 0)
    {
      /* a script: what matters is its interpreter */
      g_autofree char *interpreter = script_interpreter (buf, n);

      return interpreter == NULL || check_file (root, interpreter, interpreter, depth + 1, error);
    }
  if (elf_is_static (buf, n))
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "%s is statically linked: there is no dynamic loader to "
                   "preload the sampler, so it cannot be recorded", shown);
      return FALSE;
    }
  return TRUE;
}

/**
 * flame_recorder_check_program:
 * @resolved: (out) (optional): the file that will run
 *
 * Refuses what the preload cannot reach, before anything is launched:
 * statically linked, set-user-ID or set-group-ID programs, and programs
 * with file capabilities (also as a script's interpreter).
 */
gboolean
flame_recorder_check_program (const char  *program,
                              const char  *cwd,
                              char       **resolved,
                              GError     **error)
{
  g_autofree char *path = NULL;

  if (strchr (program, '/') != NULL)
    path = g_canonicalize_filename (program, cwd);
  else
    path = g_find_program_in_path (program);
  if (path == NULL)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "%s: command not found", program);
      return FALSE;
    }
  if (!check_file (NULL, path, program, 0, error))
    return FALSE;
  if (resolved != NULL)
    *resolved = g_steal_pointer (&path);
  return TRUE;
}

/**
 * flame_recorder_check_host_program:
 * @root: where the sandbox sees the host's files (`/run/host`)
 *
 * flame_recorder_check_program() for a program that runs on the host
 * (flatpak-spawn --host), as far as the sandbox can see it: a path is
 * looked up under @root (then as it is: the user's folders are shared),
 * a bare name in the host's usual program folders under @root. What
 * cannot be found is left to the host.
 */
gboolean
flame_recorder_check_host_program (const char  *root,
                                   const char  *program,
                                   const char  *cwd,
                                   GError     **error)
{
  static const char *const dirs[] = {
    "/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin",
  };
  g_autofree char *path = NULL;

  if (strchr (program, '/') != NULL)
    {
      g_autofree char *rooted = NULL;

      path = g_canonicalize_filename (program, cwd);
      rooted = g_build_filename (root, path, NULL);
      if (g_file_test (rooted, G_FILE_TEST_EXISTS))
        return check_file (root, path, program, 0, error);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return check_file (NULL, path, program, 0, error);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *rooted = NULL;

      g_free (path);
      path = g_build_filename (dirs[i], program, NULL);
      rooted = g_build_filename (root, path, NULL);
      if (g_file_test (rooted, G_FILE_TEST_IS_REGULAR))
        return check_file (root, path, program, 0, error);
    }
  return TRUE;
}


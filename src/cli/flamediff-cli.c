/* flamediff-cli.c: the headless front end.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "flame-cli.h"
#include "flame-perf-resolver.h"

static const struct
{
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "compare",  flame_cli_compare,  "Compare a baseline and a current profile" },
  { "info",     flame_cli_info,     "Describe a profile file" },
  { "collapse", flame_cli_collapse, "Print perf script output as folded stacks" },
  { "render",   flame_cli_render,   "Draw a (differential) flame graph as SVG or PNG" },
  { "convert",  flame_cli_convert,  "Write any profile as folded stacks or speedscope JSON" },
  { "record",   flame_cli_record,   "Run a command and record a CPU profile of it" },
};

static void
usage (FILE *out)
{
  fprintf (out, "Usage: flamediff-cli COMMAND [OPTION…]\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun “flamediff-cli COMMAND --help” for the options of a command.\n");
}

/* A regular file is replaced atomically (written to a temporary file
 * beside it, renamed over it once complete), so a CI job never sees half
 * a report; anything else (/dev/null, a pipe, a terminal) is written to
 * in place: renaming over it would replace the device with a file. So
 * is a symbolic link, as the shell's > writes through it: renamed over,
 * the link would become a file of its own (-o /dev/stdout, a link to
 * /proc/self/fd/1, replaced by a file in /dev when that was a file). */
gboolean
flame_cli_output_open (FlameCliOutput  *self,
                       const char      *path,
                       GError         **error)
{
  GStatBuf st;
  gboolean exists;
  int fd;

  memset (self, 0, sizeof *self);
  if (path == NULL || g_strcmp0 (path, "-") == 0)
    {
      self->name = g_strdup ("standard output");
      self->stream = stdout;
      return TRUE;
    }

  self->name = g_strdup (path);
  exists = g_stat (path, &st) == 0;
  if ((exists && !S_ISREG (st.st_mode)) || (g_lstat (path, &st) == 0 && S_ISLNK (st.st_mode)))
    self->stream = fopen (path, "w");
  else
    {
      self->existed = exists;
      self->tmp_path = g_strdup_printf ("%s.XXXXXX", path);
      /* as g_file_set_contents(): the mode a new file gets (0666, umask) */
      fd = g_mkstemp_full (self->tmp_path, O_WRONLY | O_CLOEXEC, 0666);
      self->stream = fd >= 0 ? fdopen (fd, "w") : NULL;
      if (self->stream == NULL && fd >= 0)
        close (fd);
    }
  if (self->stream == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot write to %s: %s", path, g_strerror (saved));
      if (self->tmp_path != NULL)
        g_unlink (self->tmp_path);
      g_clear_pointer (&self->tmp_path, g_free);
      g_clear_pointer (&self->name, g_free);
      return FALSE;
    }
  return TRUE;
}

/* A FlameTextDrain: writes @text and empties it; after the first
 * failure only empties it (flame_cli_output_close() says why) */
void
flame_cli_output_drain (GString  *text,
                        gpointer  user_data)
{
  FlameCliOutput *self = user_data;

  if (self->failed_errno == 0 && fwrite (text->str, 1, text->len, self->stream) != text->len)
    self->failed_errno = errno != 0 ? errno : EIO;
  g_string_truncate (text, 0);
}

/* Flushes and, for a regular file, puts it in place; FALSE (the
 * temporary file removed) when anything could not be written */
gboolean
flame_cli_output_close (FlameCliOutput  *self,
                        GError         **error)
{
  int saved = self->failed_errno;

  if (saved == 0 && fflush (self->stream) != 0)
    saved = errno;
  /* replacing a file: its contents on disk before the rename, as
   * g_file_set_contents() does */
  if (saved == 0 && self->tmp_path != NULL && self->existed && fsync (fileno (self->stream)) != 0)
    saved = errno;
  if (self->stream != stdout && fclose (self->stream) != 0 && saved == 0)
    saved = errno;
  if (saved == 0 && self->tmp_path != NULL && g_rename (self->tmp_path, self->name) != 0)
    saved = errno;
  if (saved != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot write to %s: %s", self->name, g_strerror (saved));
      if (self->tmp_path != NULL)
        g_unlink (self->tmp_path);
    }
  g_clear_pointer (&self->tmp_path, g_free);
  g_clear_pointer (&self->name, g_free);
  self->stream = NULL;
  return saved == 0;
}

gboolean
flame_cli_write_output (const char  *path,
                        GString     *text,
                        GError     **error)
{
  FlameCliOutput output;

  if (!flame_cli_output_open (&output, path, error))
    return FALSE;
  flame_cli_output_drain (text, &output);
  return flame_cli_output_close (&output, error);
}

void
flame_cli_print_warnings (GPtrArray *warnings)
{
  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    g_printerr ("flamediff-cli: warning: %s\n", (const char *) g_ptr_array_index (warnings, i));
}

/* Messages for people follow the locale, as in the app: the core's
 * errors and progress, the tooltips in an SVG. Reports, JSON and folded
 * output use no catalog (docs/DESIGN.md). $FLAMEDIFF_LOCALEDIR points
 * an uninstalled build at its own catalogs (the tests). */
static void
bind_text_domain (void)
{
  const char *dir = g_getenv ("FLAMEDIFF_LOCALEDIR");

  bindtextdomain (GETTEXT_PACKAGE, dir != NULL && *dir != '\0' ? dir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  bind_text_domain ();
  /* perf.data names its addresses with the recorder's symbolizer */
  flame_perf_resolver_register ();

  if (argc < 2)
    {
      usage (stderr);
      return FLAME_CLI_ERROR;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
      strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return FLAME_CLI_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("flamediff-cli %s\n", PACKAGE_VERSION);
      return FLAME_CLI_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);

  fprintf (stderr, "flamediff-cli: unknown command “%s”\n\n", argv[1]);
  usage (stderr);
  return FLAME_CLI_ERROR;
}

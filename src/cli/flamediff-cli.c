/* flamediff-cli.c: the headless front end.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

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

static gboolean
write_stream (FILE        *stream,
              const char  *name,
              GString     *text,
              GError     **error)
{
  if (fwrite (text->str, 1, text->len, stream) != text->len || fflush (stream) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "cannot write to %s: %s", name, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* A regular file is replaced atomically, so a CI job never sees half a
 * report; anything else (/dev/null, a pipe, a terminal) is written to in
 * place: renaming over it would replace the device with a file. */
gboolean
flame_cli_write_output (const char  *path,
                        GString     *text,
                        GError     **error)
{
  GStatBuf st;
  FILE *stream;
  gboolean ok;

  if (path == NULL || g_strcmp0 (path, "-") == 0)
    return write_stream (stdout, "standard output", text, error);

  if (g_stat (path, &st) != 0 || S_ISREG (st.st_mode))
    return g_file_set_contents (path, text->str, text->len, error);

  stream = fopen (path, "w");
  if (stream == NULL)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot open %s: %s", path, g_strerror (errno));
      return FALSE;
    }
  ok = write_stream (stream, path, text, error);
  fclose (stream);
  return ok;
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

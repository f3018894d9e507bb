/* main.c: flamediff, the GNOME application.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "flame-application.h"
#include "flame-perf-resolver.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(FlameApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_application_name (_("Flamediff"));
  /* perf.data names its addresses with the recorder's symbolizer */
  flame_perf_resolver_register ();
  app = flame_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}

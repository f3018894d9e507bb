/* flame-test-locale.h: the locale a test program runs under.
 *
 * tests/meson.build runs the GUI, export and output tests twice: under
 * C.UTF-8, and under de_DE.UTF-8, whose decimal point is a comma
 * ($FLAMEDIFF_TEST_LOCALE). Machine-readable output (SVG attributes,
 * JSON, folded) must not change between the two; text for people
 * follows the locale.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <locale.h>
#include <string.h>

/* Call after g_test_init()/gtk_test_init() (newer GTK's gtk_test_init
 * switches to en_US.UTF-8). Switches to $FLAMEDIFF_TEST_LOCALE (default
 * C.UTF-8) and exports it as LC_ALL for the programs the test runs. A
 * locale that is not installed fails the program: a run meant to be
 * under a comma-decimal locale must not pass under another one. */
static inline void
flame_test_set_locale (void)
{
  const char *want = g_getenv ("FLAMEDIFF_TEST_LOCALE");
  const char *point;

  if (want == NULL || want[0] == 0)
    want = "C.UTF-8";
  if (setlocale (LC_ALL, want) == NULL)
    g_error ("locale %s is not installed (`make deps` generates it: "
             "locale-gen with %s enabled in /etc/locale.gen)", want, want);
  g_setenv ("LC_ALL", want, TRUE);
  g_unsetenv ("LANGUAGE");
  point = localeconv ()->decimal_point;
  g_test_message ("locale %s, decimal point “%s”", want, point);
  /* the second run exists for its comma: a de_DE without one is no test */
  if (g_str_has_prefix (want, "de_DE") && strcmp (point, ",") != 0)
    g_error ("locale %s has the decimal point “%s”, not “,”", want, point);
}

/* @s as text for people says it in the current locale: every '.' between
 * two digits becomes the locale's decimal point ("275.00 ms" is
 * "275,00 ms" in de_DE). Interned: no need to free. */
static inline const char *
flame_test_decimal (const char *s)
{
  const char *point = localeconv ()->decimal_point;
  GString *out = g_string_new (NULL);
  const char *interned;

  for (const char *p = s; *p != 0; p++)
    {
      if (*p == '.' && p > s && g_ascii_isdigit (p[-1]) && g_ascii_isdigit (p[1]))
        g_string_append (out, point);
      else
        g_string_append_c (out, *p);
    }
  interned = g_intern_string (out->str);
  g_string_free (out, TRUE);
  return interned;
}

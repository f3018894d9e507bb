/* flame-unit.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-unit.h"

FlameQuantity
flame_unit_get_quantity (FlameUnit unit)
{
  switch (unit)
    {
    case FLAME_UNIT_BYTES:
      return FLAME_QUANTITY_BYTES;
    case FLAME_UNIT_COUNT:
      return FLAME_QUANTITY_COUNT;
    case FLAME_UNIT_SAMPLES:
    case FLAME_UNIT_NANOSECONDS:
    case FLAME_UNIT_EVENTS:
    default:
      return FLAME_QUANTITY_TIME;
    }
}

/**
 * flame_quantity_to_string:
 *
 * The machine-readable name of the base unit values are in: "ms",
 * "bytes" or "count" (the `unit` field of JSON reports, the `# unit:`
 * line of folded output).
 */
const char *
flame_quantity_to_string (FlameQuantity quantity)
{
  switch (quantity)
    {
    case FLAME_QUANTITY_BYTES: return "bytes";
    case FLAME_QUANTITY_COUNT: return "count";
    case FLAME_QUANTITY_TIME:
    default:                   return "ms";
    }
}

/* For sentences: "time", "memory", "count". */
const char *
flame_quantity_get_noun (FlameQuantity quantity)
{
  switch (quantity)
    {
    case FLAME_QUANTITY_BYTES: return "memory";
    case FLAME_QUANTITY_COUNT: return "count";
    case FLAME_QUANTITY_TIME:
    default:                   return "time";
    }
}

/**
 * flame_quantity_scale_for_people:
 * @magnitude: the size of the numbers to print (e.g. the largest)
 * @symbol: (out): the unit to print after them ("" for counts)
 *
 * Returns: the factor to multiply values by for display. Times stay in
 * milliseconds (the unit every Flamediff table and tooltip uses, as
 * CPython's); bytes use binary prefixes: B, KiB, MiB, GiB.
 */
gdouble
flame_quantity_scale_for_people (FlameQuantity  quantity,
                                 gdouble        magnitude,
                                 const char   **symbol)
{
  static const char *prefixes[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  guint i = 0;
  gdouble m = fabs (magnitude);

  switch (quantity)
    {
    case FLAME_QUANTITY_BYTES:
      while (i + 1 < G_N_ELEMENTS (prefixes) && m >= 1024)
        {
          m /= 1024;
          i++;
        }
      *symbol = prefixes[i];
      return 1.0 / (gdouble) (1ull << (10 * i));
    case FLAME_QUANTITY_COUNT:
      *symbol = "";
      return 1.0;
    case FLAME_QUANTITY_TIME:
    default:
      *symbol = "ms";
      return 1.0;
    }
}

/**
 * flame_quantity_format:
 *
 * @value for people, with its unit: "12.50 ms", "1.50 MiB", "512 B";
 * counts as a bare number ("1234"). Two decimals, except for whole
 * bytes and counts. Follows the locale (text for people only).
 */
char *
flame_quantity_format (FlameQuantity quantity,
                       gdouble       value)
{
  const char *symbol;
  gdouble scaled = value * flame_quantity_scale_for_people (quantity, value, &symbol);
  gboolean whole = quantity != FLAME_QUANTITY_TIME && scaled == floor (scaled) &&
                   fabs (scaled) < 1e15;

  if (!isfinite (scaled))
    scaled = 0;
  if (*symbol == 0)
    return whole ? g_strdup_printf ("%.0f", scaled) : g_strdup_printf ("%.2f", scaled);
  return whole ? g_strdup_printf ("%.0f %s", scaled, symbol)
               : g_strdup_printf ("%.2f %s", scaled, symbol);
}

/**
 * flame_quantity_format_compact:
 * @with_sign: prefix "+" to values >= 0 (a difference)
 *
 * @value for people in a narrow table cell, one decimal and the largest
 * unit that reads well: "12.5 ms", "7.7 s", "33 min 7.7 s", "2 h 5 min";
 * "1.5 MiB", "512 B"; counts grouped ("1,234"). Follows the locale.
 */
char *
flame_quantity_format_compact (FlameQuantity quantity,
                               gdouble       value,
                               gboolean      with_sign)
{
  const char *sign = value < 0 ? "-" : with_sign ? "+" : "";
  gdouble m = isfinite (value) ? fabs (value) : 0;

  switch (quantity)
    {
    case FLAME_QUANTITY_BYTES:
      {
        const char *symbol;
        gdouble scaled = m * flame_quantity_scale_for_people (quantity, m, &symbol);

        if (scaled == floor (scaled) && scaled < 1e15)
          return g_strdup_printf ("%s%.0f %s", sign, scaled, symbol);
        return g_strdup_printf ("%s%.1f %s", sign, scaled, symbol);
      }
    case FLAME_QUANTITY_COUNT:
      if (m == floor (m) && m < 1e15)
        return g_strdup_printf ("%s%'.0f", sign, m);
      return g_strdup_printf ("%s%'.1f", sign, m);
    case FLAME_QUANTITY_TIME:
    default:
      {
        /* whole tenths of a second, so 59.96 s does not print "60.0 s" */
        gdouble tenths = round (m / 100);

        if (m < 1000)
          return g_strdup_printf ("%s%.1f ms", sign, m);
        if (tenths < 600)
          return g_strdup_printf ("%s%.1f s", sign, tenths / 10);
        if (tenths < 36000)
          return g_strdup_printf ("%s%.0f min %.1f s", sign, floor (tenths / 600),
                                  fmod (tenths, 600) / 10);
        {
          gdouble minutes = round (m / 60000);

          return g_strdup_printf ("%s%'.0f h %.0f min", sign, floor (minutes / 60),
                                  fmod (minutes, 60));
        }
      }
    }
}

/* flame-memory.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame-json-write.h"
#include "flame-memory.h"

static gboolean
get_number (FlameProfile *profile,
            const char   *key,
            gdouble      *out)
{
  const char *s = flame_profile_get_metadata (profile, key);
  char *end = NULL;

  if (s == NULL)
    return FALSE;
  *out = g_ascii_strtod (s, &end);
  return end != s && *end == '\0' && isfinite (*out) && *out >= 0;
}

/**
 * flame_memory_get_totals:
 *
 * The exact totals a memory recording keeps in its metadata. Returns
 * FALSE for any other profile.
 */
gboolean
flame_memory_get_totals (FlameProfile      *profile,
                         FlameMemoryTotals *totals)
{
  FlameMemoryTotals t = { 0 };

  if (profile == NULL ||
      !get_number (profile, "memory_allocated_bytes", &t.allocated_bytes) ||
      !get_number (profile, "memory_allocations", &t.allocations) ||
      !get_number (profile, "memory_peak_bytes", &t.peak_bytes) ||
      !get_number (profile, "memory_leaked_bytes", &t.leaked_bytes))
    return FALSE;
  {
    gdouble n;

    if (get_number (profile, "memory_peak_processes", &n) && n <= G_MAXUINT)
      t.peak_processes = (guint) n;
  }
  *totals = t;
  return TRUE;
}

/* "allocated 40.0 MiB in 1,234 allocations, peak 8.0 MiB, leaked 8.0 MiB" */
char *
flame_memory_describe (FlameProfile *profile)
{
  FlameMemoryTotals t;
  g_autofree char *a = NULL, *n = NULL, *p = NULL, *l = NULL;

  if (!flame_memory_get_totals (profile, &t))
    return g_strdup ("no memory totals");
  a = flame_quantity_format_compact (FLAME_QUANTITY_BYTES, t.allocated_bytes, FALSE);
  n = flame_quantity_format_compact (FLAME_QUANTITY_COUNT, t.allocations, FALSE);
  p = flame_quantity_format_compact (FLAME_QUANTITY_BYTES, t.peak_bytes, FALSE);
  l = flame_quantity_format_compact (FLAME_QUANTITY_BYTES, t.leaked_bytes, FALSE);
  if (t.peak_processes > 1)
    return g_strdup_printf ("allocated %s in %s allocations, peak at most %s (the %u processes' "
                            "own peaks added up), leaked %s", a, n, p, t.peak_processes, l);
  return g_strdup_printf ("allocated %s in %s allocations, peak %s, leaked %s", a, n, p, l);
}

/* "Peak memory: 4.2 MiB → 9.8 MiB (+5.6 MiB, +133.3 %)"; when a side
 * recorded several processes, whose records have no common order, its
 * peak is their own peaks added up, and the line says it is an upper
 * bound */
char *
flame_memory_summary_line (const FlameMemoryTotals *baseline,
                           const FlameMemoryTotals *current)
{
  g_autofree char *line = NULL;
  guint most = MAX (baseline->peak_processes, current->peak_processes);

  g_autofree char *b = flame_quantity_format_compact (FLAME_QUANTITY_BYTES, baseline->peak_bytes,
                                                      FALSE);
  g_autofree char *c = flame_quantity_format_compact (FLAME_QUANTITY_BYTES, current->peak_bytes,
                                                      FALSE);
  g_autofree char *d = flame_quantity_format_compact (FLAME_QUANTITY_BYTES,
                                                      current->peak_bytes - baseline->peak_bytes,
                                                      TRUE);

  if (baseline->peak_bytes > 0)
    line = g_strdup_printf ("Peak memory: %s → %s (%s, %+.1f %%)", b, c, d,
                            100 * (current->peak_bytes - baseline->peak_bytes) /
                              baseline->peak_bytes);
  else
    line = g_strdup_printf ("Peak memory: %s → %s (%s)", b, c, d);
  if (most <= 1)
    return g_steal_pointer (&line);
  return g_strdup_printf ("%s; an upper bound: each process's own peak added up (up to %u "
                          "processes), not their peak together", line, most);
}

static gint
by_current_self (gconstpointer a,
                 gconstpointer b)
{
  const FlameFunctionStat *x = *(const FlameFunctionStat * const *) a;
  const FlameFunctionStat *y = *(const FlameFunctionStat * const *) b;

  if (x->self_c != y->self_c)
    return x->self_c > y->self_c ? -1 : 1;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The functions that allocate most themselves in the current run */
static GPtrArray *
top_sites (FlameReport *report,
           guint        top_n)
{
  GPtrArray *sites = g_ptr_array_new ();
  guint n = flame_report_get_n_functions (report);

  for (guint i = 0; i < n; i++)
    {
      const FlameFunctionStat *st = flame_report_get_function (report, i);

      if (st->self_c > 0 || st->self_b > 0)
        g_ptr_array_add (sites, (gpointer) st);
    }
  g_ptr_array_sort (sites, by_current_self);
  if (sites->len > top_n)
    g_ptr_array_set_size (sites, top_n);
  return sites;
}

/* The line a site's frame has in the current run's profile (else the
 * baseline's), 0 when unknown: the comparison's frames keep no lines
 * unless it matches by them */
static guint32
site_line (FlameReport             *report,
           const FlameFunctionStat *st)
{
  FlameDiff *diff = flame_report_get_diff (report);

  for (gint side = FLAME_DIFF_CURRENT; side >= FLAME_DIFF_BASELINE; side--)
    {
      FlameProfile *profile = side == FLAME_DIFF_CURRENT ? flame_diff_get_current (diff)
                                                         : flame_diff_get_baseline (diff);
      FlameFrames *frames = profile != NULL ? flame_profile_get_frames (profile) : NULL;
      guint n = 0;
      const guint32 *map = flame_diff_get_frame_map (diff, (guint) side, &n);

      for (guint f = 0; frames != NULL && map != NULL && f < n; f++)
        if (map[f] == st->frame && flame_frames_get (frames, f)->line != 0)
          return flame_frames_get (frames, f)->line;
    }
  return 0;
}

/* "file:line", "file" or NULL */
static char *
site_location (FlameReport             *report,
               const FlameFunctionStat *st)
{
  const char *file = flame_report_get_file (report, st);
  guint32 line;

  if (file == NULL || *file == '\0')
    return NULL;
  line = site_line (report, st);
  if (line != 0)
    return g_strdup_printf ("%s:%u", file, line);
  return g_strdup (file);
}

static char *
site_name (FlameReport             *report,
           const FlameFunctionStat *st)
{
  g_autofree char *where = site_location (report, st);

  if (where != NULL)
    return g_strdup_printf ("%s (%s)", flame_report_get_name (report, st), where);
  return g_strdup (flame_report_get_name (report, st));
}

void
flame_memory_write (const FlameMemoryTotals *baseline,
                    const FlameMemoryTotals *current,
                    FlameReport             *report,
                    FlameQuantity            quantity,
                    guint                    top_n,
                    FlameMemoryStyle         style,
                    GString                 *out)
{
  g_autofree char *line = NULL;
  g_autoptr(GPtrArray) sites = top_sites (report, top_n > 0 ? top_n : 10);
  gboolean md = style == FLAME_MEMORY_MARKDOWN;

  if (baseline != NULL && current != NULL)
    line = flame_memory_summary_line (baseline, current);
  else
    line = g_strdup ("Peak memory: not in these profiles (only allocations, or a snapshot of "
                     "what was in use)");

  g_string_append_printf (out, md ? "\n**%s**\n\n" : "\n%s\n", line);
  if (sites->len == 0)
    return;
  if (md)
    g_string_append (out,
                     "| Top allocation sites | Baseline | Current | Δ |\n|---|---:|---:|---:|\n");
  else
    g_string_append (out, "Top allocation sites (self, current run):\n");
  for (guint i = 0; i < sites->len; i++)
    {
      const FlameFunctionStat *st = g_ptr_array_index (sites, i);
      g_autofree char *name = site_name (report, st);
      g_autofree char *b = flame_quantity_format_compact (quantity, st->self_b, FALSE);
      g_autofree char *c = flame_quantity_format_compact (quantity, st->self_c, FALSE);
      g_autofree char *d = flame_quantity_format_compact (quantity, st->self_c - st->self_b, TRUE);

      if (md)
        {
          /* a pipe in a C++ name would end the cell */
          g_auto(GStrv) parts = g_strsplit (name, "|", -1);
          g_autofree char *escaped = g_strjoinv ("\\|", parts);

          g_string_append_printf (out, "| `%s` | %s | %s | %s |\n", escaped, b, c, d);
        }
      else
        g_string_append_printf (out, "  %10s  %10s  %10s  %s\n", b, c, d, name);
    }
}

static void
append_totals (GString                 *out,
               const FlameMemoryTotals *t)
{
  /* peak_processes above 1: peak_bytes adds up that many processes'
   * own peaks, an upper bound of their peak together */
  g_string_append_printf (out, "{\"allocated_bytes\":%.0f,\"allocations\":%.0f,"
                          "\"peak_bytes\":%.0f,\"leaked_bytes\":%.0f,\"peak_processes\":%u}",
                          t->allocated_bytes, t->allocations, t->peak_bytes, t->leaked_bytes,
                          MAX (t->peak_processes, 1));
}

/**
 * flame_memory_append_json:
 * @json: a JSON object, as flame_report_write_json() writes it
 *
 * Adds a "memory" member to the object: the totals of both sides (in
 * bytes, "unit":"bytes"), the peak's change and the top allocation sites.
 * Without totals (@baseline and @current NULL: profiles of bytes that
 * are no memory recordings, as Go's heap profiles), the sites only.
 */
void
flame_memory_append_json (const FlameMemoryTotals *baseline,
                          const FlameMemoryTotals *current,
                          FlameReport             *report,
                          FlameQuantity            quantity,
                          guint                    top_n,
                          GString                 *json)
{
  g_autoptr(GPtrArray) sites = top_sites (report, top_n > 0 ? top_n : 10);
  gsize end = json->len;
  GString *m = g_string_new (NULL);

  while (end > 0 && json->str[end - 1] != '}')
    end--;
  if (end == 0)
    {
      g_string_free (m, TRUE);
      return;
    }
  g_string_append (m, ",\"memory\":{\"unit\":\"bytes\"");
  if (baseline != NULL && current != NULL)
    {
      g_string_append (m, ",\"baseline\":");
      append_totals (m, baseline);
      g_string_append (m, ",\"current\":");
      append_totals (m, current);
      g_string_append_printf (m, ",\"peak_delta_bytes\":%.0f",
                              current->peak_bytes - baseline->peak_bytes);
    }
  g_string_append (m, ",\"top_sites_unit\":");
  flame_json_append_string (m, flame_quantity_to_string (quantity));
  g_string_append (m, ",\"top_sites\":[");
  for (guint i = 0; i < sites->len; i++)
    {
      const FlameFunctionStat *st = g_ptr_array_index (sites, i);
      const char *file = flame_report_get_file (report, st);

      g_string_append (m, i > 0 ? ",{\"name\":" : "{\"name\":");
      flame_json_append_string (m, flame_report_get_name (report, st));
      if (file != NULL && *file != '\0')
        {
          guint32 line = site_line (report, st);

          g_string_append (m, ",\"file\":");
          flame_json_append_string (m, file);
          if (line != 0)
            g_string_append_printf (m, ",\"line\":%u", line);
        }
      g_string_append_printf (m, ",\"baseline\":%.17g,\"current\":%.17g}", st->self_b, st->self_c);
    }
  g_string_append (m, "]}");
  g_string_insert_len (json, end - 1, m->str, m->len);
  g_string_free (m, TRUE);
}

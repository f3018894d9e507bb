/* flame-tooltip.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Numbers follow CPython's diff tooltip (cpython-diff.md §4): ms with 2
 * decimals, percentages with 1, rounded like JavaScript's toFixed (an
 * exact tie rounds away from zero), and the difference prefixed with "+"
 * on both numbers iff the difference is >= 0 (so 0 and -0 print
 * "+0.00 ms (+0.0%)", while a tiny negative difference prints "-0.00").
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "flame-tooltip.h"

/* Frees @ascii, a number with '.' as its decimal point; returns it with
 * the locale's decimal point (which may be more than one byte). */
static char *
localize_decimal_point (GString *ascii)
{
  const char *point = localeconv ()->decimal_point;
  char *dot;

  if (point != NULL && point[0] != 0 && strcmp (point, ".") != 0 &&
      (dot = strchr (ascii->str, '.')) != NULL)
    {
      gssize pos = dot - ascii->str;

      g_string_erase (ascii, pos, 1);
      g_string_insert (ascii, pos, point);
    }
  return g_string_free (ascii, FALSE);
}

/**
 * flame_format_fixed:
 *
 * @value with @digits decimals, like JavaScript's Number.toFixed(): the
 * exact binary value is rounded half away from zero ((0.125).toFixed(2)
 * is "0.13", where printf's "%.2f" gives "0.12"); -0 prints as "0".
 * Text for people: the decimal point is the locale's ("0,13" in de_DE).
 */
char *
flame_format_fixed (gdouble value,
                    guint   digits)
{
  char buf[512];
  char format[16];
  GString *out;
  char *dot;
  gsize keep;
  gboolean negative;

  if (isnan (value))
    return g_strdup ("NaN");
  if (isinf (value))
    return g_strdup (value > 0 ? "Infinity" : "-Infinity");
  digits = MIN (digits, 20);
  if (fabs (value) >= 1e21)
    {
      g_snprintf (format, sizeof format, "%%.%uf", digits);
      return localize_decimal_point (
        g_string_new (g_ascii_formatd (buf, sizeof buf, format, value)));
    }

  negative = value < 0;
  /* glibc prints the exact decimal expansion; 80 extra digits cover every
   * double in the range that matters here, so a digit >= 5 at position
   * digits+1 means the value is at or above the tie. In ASCII: the digits
   * are worked on around a '.' whatever the locale. */
  g_snprintf (format, sizeof format, "%%.%uf", digits + 80);
  g_ascii_formatd (buf, sizeof buf, format, fabs (value));
  dot = strchr (buf, '.');
  keep = (dot - buf) + (digits > 0 ? 1 + digits : 0);
  out = g_string_new_len (buf, keep);
  if (dot[1 + digits] >= '5')
    {
      gssize i = (gssize) out->len - 1;

      for (; i >= 0; i--)
        {
          if (out->str[i] == '.')
            continue;
          if (out->str[i] == '9')
            out->str[i] = '0';
          else
            {
              out->str[i]++;
              break;
            }
        }
      if (i < 0)
        g_string_prepend_c (out, '1');
    }
  if (negative)
    g_string_prepend_c (out, '-');
  return localize_decimal_point (out);
}

/* @value in @quantity for people: "12.34 ms" (flame_format_fixed's
 * rounding), "1.50 MiB" (binary prefixes chosen by @magnitude), "20305". */
static char *
format_quantity (FlameQuantity quantity,
                 gdouble       value,
                 gdouble       magnitude)
{
  const char *symbol;
  gdouble f = flame_quantity_scale_for_people (quantity, magnitude, &symbol);
  g_autofree char *s = NULL;

  if (quantity == FLAME_QUANTITY_COUNT || (quantity == FLAME_QUANTITY_BYTES && f == 1.0))
    s = flame_format_fixed (value * f, value * f == (gint64) (value * f) ? 0 : 2);
  else
    s = flame_format_fixed (value * f, 2);
  return *symbol ? g_strdup_printf ("%s %s", s, symbol) : g_steal_pointer (&s);
}

/* "+1.23 ms (+50.0%)": @amount and @pct, each after @sign ("+" or "",
 * a negative number has its own "-"), in the locale's words */
static char *
format_signed_pair (const char *sign,
                    const char *amount,
                    const char *pct)
{
  g_autofree char *a = g_strconcat (sign, amount, NULL);
  g_autofree char *p = g_strconcat (sign, pct, NULL);

  /* TRANSLATORS: a difference, e.g. "+1.23 ms", then the same in per
   * cent of the baseline, e.g. "+50.0"; put the "%%" as your language
   * writes percentages */
  return g_strdup_printf (C_("difference", "%s (%s%%)"), a, p);
}

/**
 * flame_format_difference_in:
 *
 * "+1.23 ms (+50.0%)", "+1.50 MiB (+50.0%)": the sign decided by @diff
 * alone.
 */
char *
flame_format_difference_in (FlameQuantity quantity,
                            gdouble       diff,
                            gdouble       diff_pct)
{
  g_autofree char *v = NULL;
  g_autofree char *pct = NULL;
  const char *sign = diff >= 0 ? "+" : "";

  if (quantity == FLAME_QUANTITY_TIME)
    return flame_format_difference (diff, diff_pct);
  if (diff == 0)
    diff = 0; /* -0 */
  if (diff_pct == 0)
    diff_pct = 0;
  v = format_quantity (quantity, diff, diff);
  pct = flame_format_fixed (diff_pct, 1);
  return format_signed_pair (sign, v, pct);
}

/* "+1.23 ms (+50.0%)": the sign decided by @diff_ms alone. */
char *
flame_format_difference (gdouble diff_ms,
                         gdouble diff_pct)
{
  g_autofree char *ms = NULL;
  g_autofree char *with_unit = NULL;
  g_autofree char *pct = NULL;
  const char *sign = diff_ms >= 0 ? "+" : "";

  if (diff_ms == 0)
    diff_ms = 0; /* -0 */
  if (diff_pct == 0)
    diff_pct = 0;
  ms = flame_format_fixed (diff_ms, 2);
  pct = flame_format_fixed (diff_pct, 1);
  with_unit = g_strdup_printf ("%s ms", ms);
  return format_signed_pair (sign, with_unit, pct);
}

/* "Absolute time", "Absolute bytes" or "Absolute counts": what an
 * unscaled comparison compares, in the diff's quantity; the one rule for
 * naming it (flame_normalization_label() and _text() both use it) */
static const char *
absolute_name (FlameDiff *diff)
{
  switch (flame_diff_get_quantity (diff))
    {
    case FLAME_QUANTITY_BYTES:
      /* TRANSLATORS: memory profiles compared as recorded: the
       * baseline's bytes are not scaled */
      return _("Absolute bytes");
    case FLAME_QUANTITY_COUNT:
      /* TRANSLATORS: count profiles (allocations, objects) compared as
       * recorded: the baseline's counts are not scaled */
      return _("Absolute counts");
    case FLAME_QUANTITY_TIME:
    default:
      return _("Absolute time");
    }
}

/**
 * flame_normalization_label:
 *
 * The active normalisation in two words, for the legend: "Baseline
 * ×0.82", or "Absolute time" ("Absolute bytes", "Absolute counts": in
 * the diff's quantity). Translated.
 */
char *
flame_normalization_label (FlameDiff *diff)
{
  g_autofree char *f = NULL;

  g_return_val_if_fail (FLAME_IS_DIFF (diff), NULL);

  if (flame_diff_get_options (diff)->normalize != FLAME_NORMALIZE_TOTAL)
    return g_strdup (absolute_name (diff));
  f = flame_format_fixed (flame_diff_get_scale (diff), 2);
  /* TRANSLATORS: the factor the baseline is multiplied by */
  return g_strdup_printf (_("Baseline ×%s"), f);
}

/**
 * flame_normalization_text:
 *
 * The active normalisation, e.g. "Baseline scaled ×0.82 to the current
 * run" or "Absolute bytes: the baseline is not scaled" (in the diff's
 * quantity: a memory comparison never speaks of time), with a note when
 * a side's sampling interval was assumed. Translated, numbers in the
 * locale's style. The summary bar, the legend's tooltip and exported
 * images all say it this way.
 */
char *
flame_normalization_text (FlameDiff *diff)
{
  gboolean scaled, assumed;
  g_autofree char *f = NULL;
  g_autofree char *ms = NULL;
  g_autofree char *absolute = NULL;

  g_return_val_if_fail (FLAME_IS_DIFF (diff), NULL);

  scaled = flame_diff_get_options (diff)->normalize == FLAME_NORMALIZE_TOTAL;
  assumed = flame_diff_get_interval_assumed (diff, FLAME_DIFF_BASELINE) ||
            flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT);
  f = flame_format_fixed (flame_diff_get_scale (diff), 2);
  /* TRANSLATORS: %s is "Absolute time", "Absolute bytes" or "Absolute
   * counts": the comparison is of the amounts as recorded */
  absolute = g_strdup_printf (_("%s: the baseline is not scaled"), absolute_name (diff));
  if (assumed)
    {
      /* the interval assumed, not the other side's own */
      guint side = flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT)
                   ? FLAME_DIFF_CURRENT : FLAME_DIFF_BASELINE;

      ms = flame_format_fixed (flame_diff_get_interval_ms (diff, side), 2);
      /* TRANSLATORS: the baseline's times are multiplied by the factor
       * (e.g. "0.82"); the profiles did not say how long a sample is, so
       * the second number (e.g. "1.00") was assumed, in milliseconds */
      return scaled ? g_strdup_printf (_("Baseline scaled ×%s to the current run "
                                         "(%s ms per sample assumed)"), f, ms)
                    /* TRANSLATORS: "Absolute time: the baseline is not
                     * scaled", then the number of milliseconds per sample
                     * (e.g. "1.00") that was assumed: the profiles did not say */
                    : g_strdup_printf (_("%s (%s ms per sample assumed)"), absolute, ms);
    }
  /* TRANSLATORS: the baseline's amounts are multiplied by the factor (e.g. "0.82") */
  return scaled ? g_strdup_printf (_("Baseline scaled ×%s to the current run"), f)
                : g_steal_pointer (&absolute);
}

/* "26.09": @part of @whole in per cent, two decimals; the caller's
 * sentence puts the "%" where the language wants it */
static char *
format_share (gdouble part,
              gdouble whole)
{
  return flame_format_fixed (whole > 0 ? part / whole * 100 : 0, 2);
}

/* The share of @node in the zoom root @zoom, or NULL when there is
 * none to give (not zoomed, the zoom root itself, an empty zoom root). */
static char *
format_zoom_share (FlameLayoutSource *source,
                   guint32            node,
                   guint32            zoom)
{
  gdouble zw;

  if (zoom == FLAME_TREE_ROOT || zoom == node)
    return NULL;
  zw = flame_layout_source_get_weight (source, zoom);
  if (zw <= 0)
    return NULL;
  return format_share (flame_layout_source_get_weight (source, node), zw);
}

static void
append_location (GString           *out,
                 FlameLayoutSource *source,
                 guint32            node)
{
  const FlameTree *tree = flame_layout_source_get_tree (source);
  FlameFrames *frames = flame_layout_source_get_frames (source);
  const FlameFrame *fr;
  const char *file;

  g_string_append (out, flame_layout_source_get_name (source, node));
  if (node == FLAME_TREE_ROOT)
    return;
  fr = flame_frames_get (frames, tree->nodes[node].frame);
  file = flame_frames_get_file (frames, tree->nodes[node].frame);
  if (file != NULL && file[0] != 0)
    {
      g_string_append_printf (out, "\n%s", file);
      if (fr->line > 0)
        g_string_append_printf (out, ":%u", fr->line);
    }
}

/* A new line, then @format filled in (a whole translated line) */
static void G_GNUC_PRINTF (2, 3)
append_line (GString    *out,
             const char *format,
             ...)
{
  va_list args;

  g_string_append_c (out, '\n');
  va_start (args, format);
  g_string_append_vprintf (out, format, args);
  va_end (args);
}

/* The current side's line of the differential and elided views: total,
 * its share of the whole graph and of the zoom root, and self (not for
 * the root, whose self is nothing) */
static void
append_current_line (GString           *out,
                     FlameLayoutSource *source,
                     guint32            node,
                     guint32            zoom,
                     gdouble            total,
                     gdouble            root_share_of,
                     gdouble            self)
{
  FlameQuantity q = flame_layout_source_get_quantity (source);
  g_autofree char *t = format_quantity (q, total, total);
  g_autofree char *pct = format_share (total, root_share_of);
  g_autofree char *zpct = format_zoom_share (source, node, zoom);
  g_autofree char *s = format_quantity (q, self, self);
  const char *zname = zpct != NULL ? flame_layout_source_get_name (source, zoom) : NULL;

  if (node == FLAME_TREE_ROOT && zpct == NULL)
    /* TRANSLATORS: a frame's tooltip: the current profile's total time
     * (or memory, ...) of the whole graph, then its share in per cent */
    append_line (out, C_("tooltip", "Current: %s total (%s%%)"), t, pct);
  else if (node == FLAME_TREE_ROOT)
    /* TRANSLATORS: a frame's tooltip: the current total, its share of the
     * whole graph in per cent, and its share of the zoomed-in function
     * (the last %s) */
    append_line (out, C_("tooltip", "Current: %s total (%s%%), %s%% of %s"),
                 t, pct, zpct, zname);
  else if (zpct == NULL)
    /* TRANSLATORS: a frame's tooltip: the current profile's total time of
     * the function (with what it calls), its share of the whole graph in
     * per cent, and its self time (without what it calls) */
    append_line (out, C_("tooltip", "Current: %s total (%s%%), %s self"), t, pct, s);
  else
    /* TRANSLATORS: a frame's tooltip: the current total, its share of the
     * whole graph, its share of the zoomed-in function (the %s after
     * "of"), then the self time */
    append_line (out, C_("tooltip", "Current: %s total (%s%%), %s%% of %s, %s self"),
                 t, pct, zpct, zname, s);
}

/* The baseline's line of the differential and elided views */
static void
append_baseline_line (GString           *out,
                      FlameLayoutSource *source,
                      guint32            node,
                      gdouble            total,
                      gdouble            self)
{
  FlameQuantity q = flame_layout_source_get_quantity (source);
  g_autofree char *t = format_quantity (q, total, total);
  g_autofree char *s = format_quantity (q, self, self);

  if (node == FLAME_TREE_ROOT)
    /* TRANSLATORS: a frame's tooltip: the baseline's total of the whole graph */
    append_line (out, C_("tooltip", "Baseline: %s total"), t);
  else
    /* TRANSLATORS: a frame's tooltip: the baseline's total and self time
     * of the function */
    append_line (out, C_("tooltip", "Baseline: %s total, %s self"), t, s);
}

/* "Total difference: +1.23 ms (+50.0%)" or the self one */
static void
append_difference_line (GString       *out,
                        FlameQuantity  q,
                        FlameMetric    metric,
                        gdouble        diff,
                        gdouble        pct)
{
  g_autofree char *d = flame_format_difference_in (q, diff, pct);

  if (metric == FLAME_METRIC_TOTAL)
    /* TRANSLATORS: a frame's tooltip: current minus baseline of the
     * function's total, e.g. "+1.23 ms (+50.0%)" */
    append_line (out, C_("tooltip", "Total difference: %s"), d);
  else
    /* TRANSLATORS: a frame's tooltip: current minus baseline of the
     * function's self time, e.g. "+1.23 ms (+50.0%)" */
    append_line (out, C_("tooltip", "Self difference: %s"), d);
}

static void
append_new_line (GString *out)
{
  /* TRANSLATORS: a frame's tooltip: the call path only the current profile has */
  append_line (out, "%s", C_("tooltip", "New — no counterpart in baseline"));
}

/* "+2.30 ms", "-1.50 MiB": the sign of @value, units chosen by @magnitude */
static char *
format_signed (FlameQuantity q,
               gdouble       value,
               gdouble       magnitude)
{
  g_autofree char *s = format_quantity (q, fabs (value), magnitude);

  return g_strdup_printf ("%s%s", value >= 0 ? "+" : "-", s);
}

/* With repeated runs on both sides (flame_diff_get_node_stats()): each
 * side's mean per run ± its standard deviation, the difference with its
 * 95 % interval, and p adjusted over the call paths tested, for the
 * metric the colour compares (@total, else self). */
static void
append_runs (GString           *out,
             FlameLayoutSource *source,
             guint32            node,
             gboolean           total)
{
  FlameDiff *diff = flame_layout_source_get_diff (source);
  FlameNodeStats *stats;
  FlameQuantity q = flame_layout_source_get_quantity (source);
  FlameWelch w;
  gdouble adjusted, magnitude;
  gboolean significant;
  guint n_tested;
  g_autofree char *mean_c = NULL, *sd_c = NULL, *mean_b = NULL, *sd_b = NULL;
  g_autofree char *diff_s = NULL, *low = NULL, *high = NULL, *p_s = NULL;

  if (diff == NULL || node == FLAME_TREE_ROOT)
    return;
  stats = flame_diff_get_node_stats (diff, flame_layout_source_get_tree (source));
  if (stats == NULL)
    return;
  significant = flame_node_stats_test (stats, node, total, &w, &adjusted);
  magnitude = MAX (fabs (w.mean_b), fabs (w.mean_c));
  mean_c = format_quantity (q, w.mean_c, magnitude);
  sd_c = format_quantity (q, w.sd_c, magnitude);
  mean_b = format_quantity (q, w.mean_b, magnitude);
  sd_b = format_quantity (q, w.sd_b, magnitude);
  diff_s = format_signed (q, w.diff, magnitude);
  low = format_signed (q, w.ci_low, magnitude);
  high = format_signed (q, w.ci_high, magnitude);

  /* TRANSLATORS: a frame's tooltip with repeated runs: the mean of the
   * current runs ± their standard deviation, and how many runs */
  append_line (out, total ? g_dngettext (GETTEXT_PACKAGE,
                                         "Current total per run: %s ± %s (SD, %u run)",
                                         "Current total per run: %s ± %s (SD, %u runs)", w.n_c)
                          : g_dngettext (GETTEXT_PACKAGE,
                                         "Current self per run: %s ± %s (SD, %u run)",
                                         "Current self per run: %s ± %s (SD, %u runs)", w.n_c),
               mean_c, sd_c, w.n_c);
  /* TRANSLATORS: as "Current total per run", for the baseline's runs */
  append_line (out, total ? g_dngettext (GETTEXT_PACKAGE,
                                         "Baseline total per run: %s ± %s (SD, %u run)",
                                         "Baseline total per run: %s ± %s (SD, %u runs)", w.n_b)
                          : g_dngettext (GETTEXT_PACKAGE,
                                         "Baseline self per run: %s ± %s (SD, %u run)",
                                         "Baseline self per run: %s ± %s (SD, %u runs)", w.n_b),
               mean_b, sd_b, w.n_b);
  /* TRANSLATORS: the difference of the means, then its 95 % confidence interval */
  append_line (out, _("Difference per run: %s, 95 %% interval %s to %s"), diff_s, low, high);
  if (adjusted < 0.001)
    {
      g_autofree char *limit = flame_format_fixed (0.001, 3);

      p_s = g_strdup_printf ("< %s", limit);
    }
  else
    {
      g_autofree char *v = flame_format_fixed (adjusted, 3);

      p_s = g_strdup_printf ("= %s", v);
    }
  n_tested = flame_node_stats_get_n_tested (stats, total);
  /* TRANSLATORS: p is the p-value ("< 0.001" or "= 0.042"), adjusted by
   * Benjamini–Hochberg over that many call paths */
  append_line (out, significant
                    ? g_dngettext (GETTEXT_PACKAGE,
                                   "p %s (adjusted for %u call path): significant",
                                   "p %s (adjusted for %u call paths): significant", n_tested)
                    : g_dngettext (GETTEXT_PACKAGE,
                                   "p %s (adjusted for %u call path): not significant",
                                   "p %s (adjusted for %u call paths): not significant",
                                   n_tested),
               p_s, n_tested);
}

/* "Removed code below: 72.93 ms of baseline time (100.00%)" */
static void
append_removed_below_line (GString       *out,
                           FlameQuantity  q,
                           const char    *amount,
                           const char    *pct)
{
  switch (q)
    {
    case FLAME_QUANTITY_BYTES:
      /* TRANSLATORS: a frame's tooltip in the view of removed code: how
       * much of the baseline's memory the removed paths below the frame
       * took, and its share in per cent */
      append_line (out, C_("tooltip", "Removed code below: %s of baseline memory (%s%%)"),
                   amount, pct);
      break;
    case FLAME_QUANTITY_COUNT:
      /* TRANSLATORS: as "Removed code below: %s of baseline time", for counts */
      append_line (out, C_("tooltip", "Removed code below: %s of baseline count (%s%%)"),
                   amount, pct);
      break;
    case FLAME_QUANTITY_TIME:
    default:
      /* TRANSLATORS: a frame's tooltip in the view of removed code: how
       * much of the baseline's time the removed paths below the frame
       * took, and its share in per cent */
      append_line (out, C_("tooltip", "Removed code below: %s of baseline time (%s%%)"),
                   amount, pct);
      break;
    }
}

/* "Self time of convolve_row through this call path:" */
static void
append_inverted_heading (GString       *out,
                         FlameQuantity  q,
                         const char    *function)
{
  switch (q)
    {
    case FLAME_QUANTITY_BYTES:
      /* TRANSLATORS: a frame's tooltip in the inverted graph: the numbers
       * below are the memory the function %s allocated itself, when called
       * through the callers from it to this frame */
      append_line (out, C_("tooltip", "Self memory of %s through this call path:"), function);
      break;
    case FLAME_QUANTITY_COUNT:
      /* TRANSLATORS: as "Self time of %s through this call path:", for counts */
      append_line (out, C_("tooltip", "Self count of %s through this call path:"), function);
      break;
    case FLAME_QUANTITY_TIME:
    default:
      /* TRANSLATORS: a frame's tooltip in the inverted graph: the numbers
       * below are the time spent in the function %s itself, when called
       * through the callers from it to this frame */
      append_line (out, C_("tooltip", "Self time of %s through this call path:"), function);
      break;
    }
}

/* One profile: the total with its shares, and the self time. */
static void
append_single_view (GString           *out,
                    FlameLayoutSource *source,
                    guint32            node,
                    guint32            zoom,
                    FlameQuantity      q,
                    gdouble            root_w)
{
  gdouble w = flame_layout_source_get_weight (source, node);
  g_autofree char *t = format_quantity (q, w, w);
  g_autofree char *pct = format_share (w, root_w);
  g_autofree char *zpct = format_zoom_share (source, node, zoom);

  if (zpct == NULL)
    /* TRANSLATORS: a frame's tooltip for one profile: the function's
     * total time (with what it calls) and its share in per cent */
    append_line (out, C_("tooltip", "Total: %s (%s%%)"), t, pct);
  else
    /* TRANSLATORS: a frame's tooltip for one profile: the total, its
     * share of the whole graph and of the zoomed-in function (the %s
     * after "of") */
    append_line (out, C_("tooltip", "Total: %s (%s%%), %s%% of %s"), t, pct, zpct,
                 flame_layout_source_get_name (source, zoom));
  if (node != FLAME_TREE_ROOT)
    {
      gdouble self = flame_layout_source_get_self_ms (source, node);
      g_autofree char *s = format_quantity (q, self, self);

      /* TRANSLATORS: a frame's tooltip for one profile: the time in the
       * function itself, without what it calls */
      append_line (out, C_("tooltip", "Self: %s"), s);
    }
}

/* The view of removed code: a removed path, or a frame above some. */
static void
append_elided_view (GString               *out,
                    FlameLayoutSource     *source,
                    guint32                node,
                    const FlameDiffValues *v,
                    FlameQuantity          q,
                    gdouble                root_w)
{
  FlameDiff *diff = flame_layout_source_get_diff (source);
  gdouble w = flame_layout_source_get_weight (source, node);

  if (node != FLAME_TREE_ROOT && flame_diff_is_elided (diff, node))
    {
      /* nothing of it runs now: no share of the current zoom root */
      append_current_line (out, source, node, FLAME_TREE_ROOT, 0, 1, 0);
      append_baseline_line (out, source, node, v->total_b, v->self_b);
      append_difference_line (out, q, FLAME_METRIC_SELF, -v->self_b,
                              v->self_b > 0 ? -100.0 : 0.0);
      /* TRANSLATORS: a frame's tooltip: the call path only the baseline has */
      append_line (out, "%s", C_("tooltip", "Removed — no counterpart in current"));
    }
  else
    {
      g_autofree char *amount = format_quantity (q, w, w);
      g_autofree char *pct = format_share (w, root_w);

      append_removed_below_line (out, q, amount, pct);
      if (node != FLAME_TREE_ROOT)
        /* TRANSLATORS: a frame's tooltip in the view of removed code:
         * the frame itself is not removed, only paths below it */
        append_line (out, "%s",
                     C_("tooltip", "This frame still runs in the current profile"));
    }
}

/* The inverted graph: amounts through this chain of callers of the
 * function at its root. */
static void
append_inverted_view (GString               *out,
                      FlameLayoutSource     *source,
                      guint32                node,
                      guint32                zoom,
                      const FlameDiffValues *v,
                      FlameQuantity          q,
                      gdouble                root_w)
{
  const FlameTree *tree = flame_layout_source_get_tree (source);
  g_autofree char *c = format_quantity (q, v->total_c, v->total_c);
  g_autofree char *b = format_quantity (q, v->total_b, v->total_b);

  if (node != FLAME_TREE_ROOT)
    {
      guint32 leaf = node;
      g_autofree char *pct = format_share (v->total_c, root_w);
      g_autofree char *zpct = format_zoom_share (source, node, zoom);
      gdouble dpct = flame_diff_percent (v, FLAME_METRIC_TOTAL);
      g_autofree char *d = flame_format_difference_in (q, v->total_c - v->total_b, dpct);

      while (tree->nodes[leaf].parent != FLAME_TREE_ROOT)
        leaf = tree->nodes[leaf].parent;
      append_inverted_heading (out, q, flame_layout_source_get_name (source, leaf));
      if (zpct == NULL)
        /* TRANSLATORS: a frame's tooltip in the inverted graph: the
         * current amount through this call path and its share in per cent */
        append_line (out, C_("tooltip", "Current: %s (%s%%)"), c, pct);
      else
        /* TRANSLATORS: as "Current: %s (%s%%)", then the share of the
         * zoomed-in frame (the %s after "of") */
        append_line (out, C_("tooltip", "Current: %s (%s%%), %s%% of %s"), c, pct, zpct,
                     flame_layout_source_get_name (source, zoom));
      /* TRANSLATORS: a frame's tooltip in the inverted graph: the
       * baseline's amount through this call path */
      append_line (out, C_("tooltip", "Baseline: %s"), b);
      /* TRANSLATORS: a frame's tooltip: current minus baseline, e.g.
       * "+1.23 ms (+50.0%)" */
      append_line (out, C_("tooltip", "Difference: %s"), d);
      if (v->total_b <= 0 && v->total_c > 0)
        append_new_line (out);
      append_runs (out, source, node, TRUE);
    }
  else
    {
      /* TRANSLATORS: the inverted graph's root: the current profile's total */
      append_line (out, C_("tooltip", "Current: %s"), c);
      /* TRANSLATORS: the inverted graph's root: the baseline's total */
      append_line (out, C_("tooltip", "Baseline: %s"), b);
    }
}

/* The differential graph: both sides, then the difference (the one the
 * colour stands for first). */
static void
append_differential_view (GString               *out,
                          FlameLayoutSource     *source,
                          guint32                node,
                          guint32                zoom,
                          const FlameDiffValues *v,
                          FlameQuantity          q,
                          gdouble                root_w)
{
  FlameDiff *diff = flame_layout_source_get_diff (source);

  append_current_line (out, source, node, zoom, v->total_c, root_w, v->self_c);
  append_baseline_line (out, source, node, v->total_b, v->self_b);
  if (diff != NULL && flame_diff_get_options (diff)->metric == FLAME_METRIC_TOTAL)
    {
      /* coloured by total: the number the colour stands for comes first
       * (a caller's own self difference is mostly +0.0 %) */
      append_difference_line (out, q, FLAME_METRIC_TOTAL, v->total_c - v->total_b,
                              flame_diff_percent (v, FLAME_METRIC_TOTAL));
      if (node != FLAME_TREE_ROOT)
        {
          append_difference_line (out, q, FLAME_METRIC_SELF, v->self_c - v->self_b,
                                  flame_diff_percent (v, FLAME_METRIC_SELF));
          if (v->total_b <= 0 && v->total_c > 0)
            append_new_line (out);
          append_runs (out, source, node, TRUE);
        }
      return;
    }
  if (node != FLAME_TREE_ROOT)
    {
      append_difference_line (out, q, FLAME_METRIC_SELF, v->self_c - v->self_b,
                              flame_diff_percent (v, FLAME_METRIC_SELF));
      if (v->total_b <= 0 && v->total_c > 0)
        append_new_line (out);
      append_runs (out, source, node, FALSE);
    }
}

/**
 * flame_tooltip_text:
 * @zoom: the zoom root, or %FLAME_TREE_ROOT
 *
 * The tooltip of @node in @source's view, several lines: the function,
 * file:line (when known), current total (% of the root) and self,
 * baseline total and self (scaled), the self difference in the sign
 * rules of cpython-diff.md §4 (coloured by total time: the total
 * difference first, then the self one), and "New"/"Removed" where it applies.
 * With repeated runs on both sides, then the mean per run ± SD of each
 * side, the difference's 95 % interval and the adjusted p. In
 * the inverted view a node's numbers are the self time of the function
 * at the root of the inverted graph, through this chain of callers.
 * Text for people: every line but the function and its file is
 * translated, and numbers follow the locale.
 */
char *
flame_tooltip_text (FlameLayoutSource *source,
                    guint32            node,
                    guint32            zoom)
{
  const FlameTree *tree;
  FlameDiff *diff;
  FlameView view;
  GString *out;
  FlameDiffValues v;
  gdouble root_w;
  FlameQuantity q;

  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (source), NULL);
  tree = flame_layout_source_get_tree (source);
  g_return_val_if_fail (node < tree->n_nodes, NULL);

  diff = flame_layout_source_get_diff (source);
  q = flame_layout_source_get_quantity (source);
  view = flame_layout_source_get_view (source);
  root_w = flame_layout_source_get_weight (source, FLAME_TREE_ROOT);
  out = g_string_new (NULL);
  append_location (out, source, node);

  if (view == FLAME_VIEW_SINGLE)
    {
      append_single_view (out, source, node, zoom, q, root_w);
      return g_string_free (out, FALSE);
    }

  flame_diff_get_values (diff, tree, node, &v);
  if (view == FLAME_VIEW_ELIDED)
    append_elided_view (out, source, node, &v, q, root_w);
  else if (view == FLAME_VIEW_INVERTED)
    append_inverted_view (out, source, node, zoom, &v, q, root_w);
  else
    append_differential_view (out, source, node, zoom, &v, q, root_w);
  return g_string_free (out, FALSE);
}

/* Like flame_tooltip_text() for frame @i of @layout, including merged
 * frames ("12 frames too narrow to draw"). */
char *
flame_tooltip_text_for_frame (FlameLayout *layout,
                              guint        i)
{
  const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);
  FlameLayoutSource *source;
  const FlameLayoutOptions *opts;

  g_return_val_if_fail (f != NULL, NULL);
  source = flame_layout_get_source (layout);
  opts = flame_layout_get_options (layout);

  if (f->flags & FLAME_LAYOUT_FRAME_MERGED)
    {
      gdouble zw = flame_layout_source_get_weight (source, opts->zoom);
      gdouble ms = opts->width > 0 ? f->width / opts->width * zw : 0;
      g_autofree char *s = format_quantity (flame_layout_source_get_quantity (source), ms, ms);
      GString *out = g_string_new (NULL);

      /* TRANSLATORS: a tooltip on a stand-in for frames too narrow to be
       * drawn one by one: how many, and the function that calls them */
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE,
                                                "%u frame too narrow to draw, called from %s",
                                                "%u frames too narrow to draw, called from %s",
                                                f->n_merged),
                              f->n_merged, flame_layout_source_get_name (source, f->node));
      /* TRANSLATORS: the second line of that tooltip: their time (or
       * memory, ...) together, e.g. "2.50 ms" */
      append_line (out, C_("tooltip", "%s in all"), s);
      return g_string_free (out, FALSE);
    }
  return flame_tooltip_text (source, f->node, opts->zoom);
}

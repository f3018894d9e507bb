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
      return localize_decimal_point (g_string_new (g_ascii_formatd (buf, sizeof buf, format, value)));
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
  return g_strdup_printf ("%s%s (%s%s%%)", sign, v, sign, pct);
}

/* "+1.23 ms (+50.0%)": the sign decided by @diff_ms alone. */
char *
flame_format_difference (gdouble diff_ms,
                         gdouble diff_pct)
{
  g_autofree char *ms = NULL;
  g_autofree char *pct = NULL;
  const char *sign = diff_ms >= 0 ? "+" : "";

  if (diff_ms == 0)
    diff_ms = 0; /* -0 */
  if (diff_pct == 0)
    diff_pct = 0;
  ms = flame_format_fixed (diff_ms, 2);
  pct = flame_format_fixed (diff_pct, 1);
  return g_strdup_printf ("%s%s ms (%s%s%%)", sign, ms, sign, pct);
}

/**
 * flame_normalization_text:
 *
 * The active normalisation, e.g. "Baseline scaled ×0.82 to the current
 * run", with a note when a side's sampling interval was assumed.
 */
char *
flame_normalization_text (FlameDiff *diff)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (FLAME_IS_DIFF (diff), NULL);

  if (flame_diff_get_options (diff)->normalize == FLAME_NORMALIZE_TOTAL)
    {
      g_autofree char *f = flame_format_fixed (flame_diff_get_scale (diff), 2);
      g_string_append_printf (out, "Baseline scaled ×%s to the current run", f);
    }
  else
    g_string_append (out, "Absolute time: baseline not scaled");

  if (flame_diff_get_interval_assumed (diff, FLAME_DIFF_BASELINE) ||
      flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT))
    {
      /* the interval assumed, not the other side's own */
      guint side = flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT)
                   ? FLAME_DIFF_CURRENT : FLAME_DIFF_BASELINE;
      g_autofree char *ms = flame_format_fixed (flame_diff_get_interval_ms (diff, side), 2);
      g_string_append_printf (out, " (%s ms per sample assumed)", ms);
    }
  return g_string_free (out, FALSE);
}

/* "PREFIX12.34 ms", "PREFIX1.50 MiB" */
static void
append_ms (GString       *out,
           FlameQuantity  q,
           const char    *prefix,
           gdouble        ms)
{
  g_autofree char *s = format_quantity (q, ms, ms);

  g_string_append_printf (out, "%s%s", prefix, s);
}

static void
append_pct (GString *out,
            gdouble  part,
            gdouble  whole)
{
  g_autofree char *s = flame_format_fixed (whole > 0 ? part / whole * 100 : 0, 2);

  g_string_append_printf (out, " (%s%%)", s);
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

static void
append_zoom_pct (GString           *out,
                 FlameLayoutSource *source,
                 guint32            node,
                 guint32            zoom)
{
  gdouble zw;

  if (zoom == FLAME_TREE_ROOT || zoom == node)
    return;
  zw = flame_layout_source_get_weight (source, zoom);
  if (zw > 0)
    {
      g_autofree char *s = flame_format_fixed (flame_layout_source_get_weight (source, node) / zw * 100, 2);
      g_string_append_printf (out, ", %s%% of %s", s, flame_layout_source_get_name (source, zoom));
    }
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

  g_string_append_c (out, '\n');
  g_string_append_printf (out, total ? _("Current total per run: %s ± %s (SD, %u runs)")
                                     : _("Current self per run: %s ± %s (SD, %u runs)"),
                          mean_c, sd_c, w.n_c);
  g_string_append_c (out, '\n');
  g_string_append_printf (out, total ? _("Baseline total per run: %s ± %s (SD, %u runs)")
                                     : _("Baseline self per run: %s ± %s (SD, %u runs)"),
                          mean_b, sd_b, w.n_b);
  g_string_append_c (out, '\n');
  /* TRANSLATORS: the difference of the means, then its 95 % confidence interval */
  g_string_append_printf (out, _("Difference per run: %s, 95 %% interval %s to %s"),
                          diff_s, low, high);
  g_string_append_c (out, '\n');
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
  /* TRANSLATORS: p is the p-value ("< 0.001" or "= 0.042"), adjusted by
   * Benjamini–Hochberg over that many call paths */
  g_string_append_printf (out, significant ? _("p %s (adjusted for %u call paths): significant")
                                           : _("p %s (adjusted for %u call paths): not significant"),
                          p_s, flame_node_stats_get_n_tested (stats, total));
}

/* What the tooltip of one node says, whatever the view */
typedef struct
{
  FlameLayoutSource *source;
  const FlameTree   *tree;
  FlameDiff         *diff;
  FlameDiffValues    v;       /* not in the single view */
  FlameQuantity      q;
  gdouble            root_w;
  guint32            node;
  guint32            zoom;
} Tip;

/* "New" where the baseline has none of it, then the repeated runs' lines
 * (@by_total: of the total, else of self) */
static void
append_new_and_runs (GString   *out,
                     const Tip *t,
                     gboolean   by_total)
{
  if (t->v.total_b <= 0 && t->v.total_c > 0)
    g_string_append (out, "\nNew — no counterpart in baseline");
  append_runs (out, t->source, t->node, by_total);
}

static void
append_single (GString   *out,
               const Tip *t)
{
  gdouble w = flame_layout_source_get_weight (t->source, t->node);

  append_ms (out, t->q, "\nTotal: ", w);
  append_pct (out, w, t->root_w);
  append_zoom_pct (out, t->source, t->node, t->zoom);
  if (t->node != FLAME_TREE_ROOT)
    append_ms (out, t->q, "\nSelf: ", flame_layout_source_get_self_ms (t->source, t->node));
}

/* The removed view: a removed frame, or what was removed below one */
static void
append_elided (GString   *out,
               const Tip *t)
{
  FlameQuantity q = t->q;
  gdouble w = flame_layout_source_get_weight (t->source, t->node);

  if (t->node != FLAME_TREE_ROOT && flame_diff_is_elided (t->diff, t->node))
    {
      gdouble pct = t->v.self_b > 0 ? -100.0 : 0.0;
      g_autofree char *d = flame_format_difference_in (q, -t->v.self_b, pct);

      append_ms (out, q, "\nCurrent: ", 0);
      g_string_append (out, " total");
      append_pct (out, 0, 1);
      append_ms (out, q, ", ", 0);
      g_string_append (out, " self");
      append_ms (out, q, "\nBaseline: ", t->v.total_b);
      append_ms (out, q, " total, ", t->v.self_b);
      g_string_append (out, " self");
      g_string_append_printf (out, "\nSelf difference: %s", d);
      g_string_append (out, "\nRemoved — no counterpart in current");
    }
  else
    {
      append_ms (out, q, "\nRemoved code below: ", w);
      g_string_append_printf (out, " of baseline %s", flame_quantity_get_noun (q));
      append_pct (out, w, t->root_w);
      if (t->node != FLAME_TREE_ROOT)
        g_string_append (out, "\nThis frame still runs in the current profile");
    }
}

/* The inverted view: the self time of the root's function through this
 * chain of callers */
static void
append_inverted (GString   *out,
                 const Tip *t)
{
  FlameQuantity q = t->q;
  const FlameDiffValues *v = &t->v;
  guint32 leaf = t->node;
  gdouble pct;
  g_autofree char *d = NULL;

  if (t->node == FLAME_TREE_ROOT)
    {
      append_ms (out, q, "\nCurrent: ", v->total_c);
      append_ms (out, q, "\nBaseline: ", v->total_b);
      return;
    }
  pct = flame_diff_percent (v, FLAME_METRIC_TOTAL);
  d = flame_format_difference_in (q, v->total_c - v->total_b, pct);
  while (t->tree->nodes[leaf].parent != FLAME_TREE_ROOT)
    leaf = t->tree->nodes[leaf].parent;
  g_string_append_printf (out, "\nSelf %s of %s through this call path:",
                          flame_quantity_get_noun (q),
                          flame_layout_source_get_name (t->source, leaf));
  append_ms (out, q, "\nCurrent: ", v->total_c);
  append_pct (out, v->total_c, t->root_w);
  append_zoom_pct (out, t->source, t->node, t->zoom);
  append_ms (out, q, "\nBaseline: ", v->total_b);
  g_string_append_printf (out, "\nDifference: %s", d);
  append_new_and_runs (out, t, TRUE);
}

/* The differential view's lines after both totals, when it is coloured
 * by total: the number the colour stands for comes first (a caller's own
 * self difference is mostly +0.0 %) */
static void
append_by_total (GString   *out,
                 const Tip *t)
{
  FlameQuantity q = t->q;
  const FlameDiffValues *v = &t->v;
  g_autofree char *d = flame_format_difference_in (q, v->total_c - v->total_b,
                                                flame_diff_percent (v, FLAME_METRIC_TOTAL));

  if (t->node != FLAME_TREE_ROOT)
    {
      append_ms (out, q, ", ", v->self_b);
      g_string_append (out, " self");
    }
  g_string_append_printf (out, "\nTotal difference: %s", d);
  if (t->node != FLAME_TREE_ROOT)
    {
      g_autofree char *sd = flame_format_difference_in (q, v->self_c - v->self_b,
                                                     flame_diff_percent (v, FLAME_METRIC_SELF));

      g_string_append_printf (out, "\nSelf difference: %s", sd);
      append_new_and_runs (out, t, TRUE);
    }
}

static void
append_differential (GString   *out,
                     const Tip *t)
{
  FlameQuantity q = t->q;
  const FlameDiffValues *v = &t->v;

  append_ms (out, q, "\nCurrent: ", v->total_c);
  g_string_append (out, " total");
  append_pct (out, v->total_c, t->root_w);
  append_zoom_pct (out, t->source, t->node, t->zoom);
  if (t->node != FLAME_TREE_ROOT)
    {
      append_ms (out, q, ", ", v->self_c);
      g_string_append (out, " self");
    }
  append_ms (out, q, "\nBaseline: ", v->total_b);
  g_string_append (out, " total");
  if (t->diff != NULL && flame_diff_get_options (t->diff)->metric == FLAME_METRIC_TOTAL)
    append_by_total (out, t);
  else if (t->node != FLAME_TREE_ROOT)
    {
      g_autofree char *d = flame_format_difference_in (q, v->self_c - v->self_b,
                                                    flame_diff_percent (v, FLAME_METRIC_SELF));

      append_ms (out, q, ", ", v->self_b);
      g_string_append (out, " self");
      g_string_append_printf (out, "\nSelf difference: %s", d);
      append_new_and_runs (out, t, FALSE);
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
 */
char *
flame_tooltip_text (FlameLayoutSource *source,
                    guint32            node,
                    guint32            zoom)
{
  Tip t = { 0 };
  GString *out;

  g_return_val_if_fail (FLAME_IS_LAYOUT_SOURCE (source), NULL);
  t.tree = flame_layout_source_get_tree (source);
  g_return_val_if_fail (node < t.tree->n_nodes, NULL);

  t.source = source;
  t.diff = flame_layout_source_get_diff (source);
  t.q = flame_layout_source_get_quantity (source);
  t.root_w = flame_layout_source_get_weight (source, FLAME_TREE_ROOT);
  t.node = node;
  t.zoom = zoom;
  out = g_string_new (NULL);
  append_location (out, source, node);

  switch (flame_layout_source_get_view (source))
    {
    case FLAME_VIEW_SINGLE:
      append_single (out, &t);
      break;
    case FLAME_VIEW_ELIDED:
      flame_diff_get_values (t.diff, t.tree, node, &t.v);
      append_elided (out, &t);
      break;
    case FLAME_VIEW_INVERTED:
      flame_diff_get_values (t.diff, t.tree, node, &t.v);
      append_inverted (out, &t);
      break;
    default:
      flame_diff_get_values (t.diff, t.tree, node, &t.v);
      append_differential (out, &t);
      break;
    }
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

      return g_strdup_printf ("%u frame%s too narrow to draw, called from %s\n%s in all",
                              f->n_merged, f->n_merged == 1 ? "" : "s",
                              flame_layout_source_get_name (source, f->node), s);
    }
  return flame_tooltip_text (source, f->node, opts->zoom);
}

/* flame-report.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame-json-write.h"
#include "flame-parallel.h"
#include "flame-provenance.h"
#include "flame-report.h"
#include "flame-significance.h"

struct _FlameReport
{
  FlameDiff          *diff;
  FlameReportOptions  options;
  FlameFunctionStat  *functions;  /* sorted: biggest change first */
  guint               n_functions;
  guint               counts[FLAME_N_STATUSES];
  guint               n_gate;     /* functions that fail the CI gate */
  GPtrArray          *binaries;   /* FlameBinary; NULL unless both were recorded */
  FlameQuantity       quantity;   /* what every value is in: ms, bytes, a count */
  guint               n_runs[2];
  gboolean            tested;     /* significance from the runs' spread */
};

void
flame_report_options_init (FlameReportOptions *options)
{
  *options = (FlameReportOptions) {
    .metric = FLAME_METRIC_SELF,
    .threshold_pct = 5.0,
    .min_abs_ms = 0.0,
    .top_n = 10,
    .alpha = 0.05,
    .gate_on_noise = FALSE,
    .ignore_new = FALSE,
  };
}

const char *
flame_status_to_string (FlameStatus status)
{
  switch (status)
    {
    case FLAME_STATUS_REGRESSION:  return "regression";
    case FLAME_STATUS_IMPROVEMENT: return "improvement";
    case FLAME_STATUS_NEW:         return "new";
    case FLAME_STATUS_REMOVED:     return "removed";
    case FLAME_STATUS_UNCHANGED:
    case FLAME_N_STATUSES:
    default:                       return "unchanged";
    }
}

static inline gdouble
metric_b (const FlameFunctionStat *s, FlameMetric metric)
{
  return metric == FLAME_METRIC_TOTAL ? s->total_b : s->self_b;
}

static inline gdouble
metric_c (const FlameFunctionStat *s, FlameMetric metric)
{
  return metric == FLAME_METRIC_TOTAL ? s->total_c : s->self_c;
}

static inline gdouble
metric_delta (const FlameFunctionStat *s, FlameMetric metric)
{
  return metric == FLAME_METRIC_TOTAL ? s->delta_total : s->delta_self;
}

const char *
flame_report_get_name (FlameReport             *self,
                       const FlameFunctionStat *stat)
{
  return flame_frames_get_name (flame_diff_get_frames (self->diff), stat->frame);
}

/* The comparison the report is of */
FlameDiff *
flame_report_get_diff (FlameReport *self)
{
  return self->diff;
}

const char *
flame_report_get_file (FlameReport             *self,
                       const FlameFunctionStat *stat)
{
  return flame_frames_get_file (flame_diff_get_frames (self->diff), stat->frame);
}

/* The report is the sort's context, passed along: reports are built in
 * worker threads, several at once (both windows of a session, a view
 * being re-derived while another loads). */
static int
compare_functions (const void *pa,
                   const void *pb,
                   gpointer    user_data)
{
  FlameReport *sort_report = user_data;
  const FlameFunctionStat *a = pa, *b = pb;
  FlameMetric metric = sort_report->options.metric;
  gdouble da = fabs (metric_delta (a, metric)), db = fabs (metric_delta (b, metric));
  int r;

  if (da != db)
    return da > db ? -1 : 1;
  r = strcmp (flame_report_get_name (sort_report, a), flame_report_get_name (sort_report, b));
  if (r != 0)
    return r;
  r = strcmp (flame_report_get_file (sort_report, a), flame_report_get_file (sort_report, b));
  if (r != 0)
    return r;
  return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* The status and the gate of @s once its significance is known */
static void
assign_status (FlameReport       *self,
               FlameFunctionStat *s)
{
  gdouble delta = metric_delta (s, self->options.metric);
  gdouble abs_delta = fabs (delta);
  /* with runs, a change counts only when it is beyond their spread */
  gboolean need_significance = self->options.gate_on_noise || s->tested;

  /* with runs, a function in a few runs of one side only (sporadic:
   * a rare path, a timer, GC) is new or removed only when that is
   * beyond the spread too: it has to be there run after run */
  if ((s->total_b <= 0 || s->total_c <= 0) && s->tested && !s->significant)
    s->status = FLAME_STATUS_UNCHANGED;
  else if (s->total_b <= 0)
    s->status = FLAME_STATUS_NEW;
  else if (s->total_c <= 0)
    s->status = FLAME_STATUS_REMOVED;
  else if (need_significance && !s->significant)
    s->status = FLAME_STATUS_UNCHANGED;
  else if (delta > 0 && abs_delta >= self->options.min_abs_ms &&
           s->delta_pct >= self->options.threshold_pct)
    s->status = FLAME_STATUS_REGRESSION;
  else if (delta < 0 && abs_delta >= self->options.min_abs_ms &&
           s->delta_pct <= -self->options.threshold_pct)
    s->status = FLAME_STATUS_IMPROVEMENT;
  else
    s->status = FLAME_STATUS_UNCHANGED;
  self->counts[s->status]++;

  /* The gate: a regression, or a new function beyond the thresholds
   * (its Δ % is +100, as the report shows it), unless new functions
   * are excluded. */
  s->gate = s->status == FLAME_STATUS_REGRESSION ||
            (s->status == FLAME_STATUS_NEW && !self->options.ignore_new &&
             delta > 0 && abs_delta >= self->options.min_abs_ms &&
             s->delta_pct >= self->options.threshold_pct &&
             (!need_significance || s->significant));
  self->n_gate += s->gate;
}

/* A side's runs per diff frame: n_runs × n_diff rows of the metric,
 * summed over the profile frames that share a diff frame */
static gdouble *
runs_by_diff_frame (FlameReport         *self,
                    const FlameRunTimes *runs,
                    guint                side,
                    guint                n_diff)
{
  guint n_map;
  const guint32 *map = flame_diff_get_frame_map (self->diff, side, &n_map);
  const gdouble *src = self->options.metric == FLAME_METRIC_TOTAL ? runs->total : runs->self;
  gdouble *out;

  if (map == NULL || n_map != runs->n_frames)
    return NULL;
  out = g_new0 (gdouble, (gsize) runs->n_runs * MAX (n_diff, 1));
  for (guint r = 0; r < runs->n_runs; r++)
    for (guint f = 0; f < runs->n_frames; f++)
      if (map[f] < n_diff)
        out[(gsize) r * n_diff + map[f]] += src[(gsize) r * runs->n_frames + f];
  return out;
}

/* Welch's t per function on the runs, then Benjamini–Hochberg over
 * every function tested. Returns FALSE when the runs do not fit the diff. */
static gboolean
test_runs (FlameReport         *self,
           const FlameRunTimes *baseline,
           const FlameRunTimes *current,
           guint                n_diff)
{
  g_autofree gdouble *rb = runs_by_diff_frame (self, baseline, FLAME_DIFF_BASELINE, n_diff);
  g_autofree gdouble *rc = runs_by_diff_frame (self, current, FLAME_DIFF_CURRENT, n_diff);
  g_autofree guint32 *items = g_new (guint32, MAX (self->n_functions, 1));
  g_autofree FlameWelch *w = g_new (FlameWelch, MAX (self->n_functions, 1));
  g_autofree gdouble *q = g_new (gdouble, MAX (self->n_functions, 1));

  if (rb == NULL || rc == NULL)
    return FALSE;
  for (guint i = 0; i < self->n_functions; i++)
    items[i] = self->functions[i].frame;
  flame_runs_test (rb, baseline->n_runs, rc, current->n_runs, n_diff,
                   flame_diff_get_scale (self->diff), items, self->n_functions,
                   FLAME_REPORT_CONFIDENCE, w, q);
  for (guint i = 0; i < self->n_functions; i++)
    {
      FlameFunctionStat *s = &self->functions[i];

      s->tested = TRUE;
      s->p = w[i].p;
      s->ci_low = w[i].ci_low;
      s->ci_high = w[i].ci_high;
      s->q = q[i];
      s->significant = q[i] < self->options.alpha;
    }
  return TRUE;
}

/* functions a thread tests at least: each test is a binomial tail (about
 * a microsecond), so only a large report is worth sharing */
#define SIGNIFICANCE_PER_THREAD 4096

typedef struct
{
  FlameReport *report;
  FlameDiff   *diff;
} SignificanceTask;

/* Whether the changes of functions [@start, @end) are more than sampling
 * noise: each on its own, so the same on any number of threads. */
static void
test_significance (gsize    start,
                   gsize    end,
                   gpointer data)
{
  const SignificanceTask *task = data;
  FlameReport *self = task->report;

  for (gsize i = start; i < end; i++)
    {
      FlameFunctionStat *s = &self->functions[i];
      FlameDiffValues v = { s->self_b, s->total_b, s->self_c, s->total_c };

      s->significant = flame_diff_is_significant (task->diff, &v, self->options.metric,
                                                  self->options.alpha);
    }
}

/**
 * flame_report_new_with_runs:
 * @baseline: (nullable): the baseline's runs, when it has several
 * @current: (nullable): the current side's runs
 *
 * The report of @diff. With two or more runs on each side, whether a
 * change is real is decided on the spread of the runs (Welch's t per
 * function, Benjamini–Hochberg across functions, docs/diff-semantics.md
 * "Repeated runs") instead of on sampling noise, and a function is a
 * regression or an improvement only when its change is both significant
 * and beyond the thresholds. Otherwise it is flame_report_new().
 */
FlameReport *
flame_report_new_with_runs (FlameDiff                *diff,
                            const FlameRunTimes      *baseline,
                            const FlameRunTimes      *current,
                            const FlameReportOptions *options)
{
  FlameReport *self;
  FlameFrames *frames;
  guint n_frames;
  gdouble scale;
  g_autofree gdouble *sb = NULL, *sc = NULL, *tb = NULL, *tc = NULL;

  g_return_val_if_fail (FLAME_IS_DIFF (diff), NULL);

  self = g_new0 (FlameReport, 1);
  self->diff = g_object_ref (diff);
  self->binaries = flame_binaries_compare (flame_diff_get_baseline (diff),
                                           flame_diff_get_current (diff),
                                           flame_diff_get_options (diff)->exact_paths);
  self->quantity = flame_diff_get_quantity (diff);
  if (options != NULL)
    self->options = *options;
  else
    flame_report_options_init (&self->options);
  if (self->options.alpha <= 0)
    self->options.alpha = 0.05;
  self->n_runs[FLAME_DIFF_BASELINE] = baseline != NULL ? baseline->n_runs : 1;
  self->n_runs[FLAME_DIFF_CURRENT] = current != NULL ? current->n_runs : 1;

  frames = flame_diff_get_frames (diff);
  n_frames = flame_frames_count (frames);
  scale = flame_diff_get_scale (diff);
  sb = g_new0 (gdouble, MAX (n_frames, 1));
  sc = g_new0 (gdouble, MAX (n_frames, 1));
  tb = g_new0 (gdouble, MAX (n_frames, 1));
  tc = g_new0 (gdouble, MAX (n_frames, 1));

  /* exact for call-graph formats, whose tree is only an approximation */
  flame_diff_get_function_weights (diff, FLAME_DIFF_BASELINE, n_frames, sb, tb);
  flame_diff_get_function_weights (diff, FLAME_DIFF_CURRENT, n_frames, sc, tc);

  self->functions = g_new0 (FlameFunctionStat, MAX (n_frames, 1));
  for (guint32 f = 0; f < n_frames; f++)
    {
      FlameFunctionStat *s;
      FlameDiffValues v;

      if (flame_diff_is_thread_frame (diff, f))
        continue;
      if (tb[f] <= 0 && tc[f] <= 0)
        continue;

      s = &self->functions[self->n_functions++];
      s->frame = f;
      s->self_b = sb[f] * scale;
      s->self_c = sc[f];
      s->total_b = tb[f] * scale;
      s->total_c = tc[f];
      s->delta_self = s->self_c - s->self_b;
      s->delta_total = s->total_c - s->total_b;

      v = (FlameDiffValues) { s->self_b, s->total_b, s->self_c, s->total_c };
      s->delta_pct = flame_diff_percent (&v, self->options.metric);
    }
  {
    SignificanceTask task = { self, diff };

    flame_parallel_for (self->n_functions, SIGNIFICANCE_PER_THREAD, test_significance, &task);
  }

  if (baseline != NULL && current != NULL && baseline->n_runs >= 2 && current->n_runs >= 2)
    self->tested = test_runs (self, baseline, current, n_frames);
  for (guint i = 0; i < self->n_functions; i++)
    assign_status (self, &self->functions[i]);

  g_qsort_with_data (self->functions, self->n_functions, sizeof (FlameFunctionStat),
                     compare_functions, self);

  return self;
}

FlameReport *
flame_report_new (FlameDiff                *diff,
                  const FlameReportOptions *options)
{
  return flame_report_new_with_runs (diff, NULL, NULL, options);
}

/**
 * flame_report_get_n_runs:
 *
 * Returns: how many runs @side had: 1 unless the report was made with
 *   several
 */
guint
flame_report_get_n_runs (FlameReport *self,
                         guint        side)
{
  g_return_val_if_fail (self != NULL && side < 2, 1);
  return self->n_runs[side];
}

void
flame_report_free (FlameReport *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->diff);
  g_clear_pointer (&self->binaries, g_ptr_array_unref);
  g_free (self->functions);
  g_free (self);
}

/**
 * flame_report_get_binaries:
 *
 * Returns: (transfer none) (nullable): the recorded modules of both
 * profiles (#FlameBinary, differences first), or %NULL unless both
 * profiles carry build-ids (recordings made by Flamediff).
 */
GPtrArray *
flame_report_get_binaries (FlameReport *self)
{
  return self->binaries;
}

guint
flame_report_get_n_functions (FlameReport *self)
{
  return self->n_functions;
}

const FlameFunctionStat *
flame_report_get_function (FlameReport *self,
                           guint        i)
{
  g_return_val_if_fail (i < self->n_functions, NULL);
  return &self->functions[i];
}

const FlameFunctionStat *
flame_report_find (FlameReport *self,
                   const char  *name)
{
  for (guint i = 0; i < self->n_functions; i++)
    if (strcmp (flame_report_get_name (self, &self->functions[i]), name) == 0)
      return &self->functions[i];
  return NULL;
}

/**
 * flame_report_count_gate_failures:
 *
 * How many functions fail `--fail-on-regression`: regressions, and new
 * functions costing at least the thresholds unless
 * FlameReportOptions.ignore_new (docs/diff-semantics.md).
 */
guint
flame_report_count_gate_failures (FlameReport *self)
{
  return self->n_gate;
}

guint
flame_report_count (FlameReport *self,
                    FlameStatus  status)
{
  g_return_val_if_fail (status < FLAME_N_STATUSES, 0);
  return self->counts[status];
}

/* --- formatting helpers ------------------------------------------------ */

/* Whole numbers print as integers, others with up to 6 decimals; writes
 * into @buf (FLAME_NUMBER_BUF bytes, no NUL) and returns the length. */
#define FLAME_NUMBER_BUF 64

static gsize
format_number (char    *buf,
               gdouble  v)
{
  gsize len;

  if (!isfinite (v))
    v = 0;
  if (v == 0)
    v = 0; /* no "-0" */
  if (fabs (v) < 1e15 && v == floor (v))
    {
      /* as "%.0f" prints it, without printf's cost (folded output has
       * two numbers on each of millions of lines) */
      char digits[24];
      char *end = digits + sizeof digits;
      char *p = end;
      guint64 u = (guint64) fabs (v);

      do
        *--p = '0' + u % 10;
      while ((u /= 10) != 0);
      if (v < 0)
        *--p = '-';
      len = end - p;
      memcpy (buf, p, len);
      return len;
    }
  g_ascii_formatd (buf, FLAME_NUMBER_BUF, "%.6f", v);
  len = strlen (buf);
  while (len > 0 && buf[len - 1] == '0')
    len--;
  if (len > 0 && buf[len - 1] == '.')
    len--;
  return len;
}

static void
append_number (GString *out,
               gdouble  v)
{
  char buf[FLAME_NUMBER_BUF];
  gsize len = format_number (buf, v);

  g_string_append_len (out, buf, len);
}

/* Ratios need more digits than milliseconds do. */
static void
append_ratio (GString *out,
              gdouble  v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.12g", isfinite (v) ? v : 0));
}

static void
append_ms (GString *out,
           gdouble  ms)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (fabs (ms) < 0.005)
    ms = 0;
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.2f", ms));
}

/* A value of the report's quantity for people, locale-independent like
 * the rest of the report: times as "12.34" (the column or the sentence
 * says ms), bytes with their own binary prefix ("1.50 MiB", "512 B"),
 * counts with up to two decimals (a scaled baseline is fractional). */
static void
append_value (GString       *out,
              FlameQuantity  quantity,
              gdouble        v)
{
  const char *symbol;
  gdouble scaled;
  gsize len;

  if (quantity == FLAME_QUANTITY_TIME)
    {
      append_ms (out, v);
      return;
    }
  scaled = v * flame_quantity_scale_for_people (quantity, v, &symbol);
  if (quantity == FLAME_QUANTITY_BYTES && scaled == floor (scaled))
    g_string_append_printf (out, "%.0f", scaled);
  else
    {
      len = out->len;
      append_ms (out, scaled);
      if (quantity == FLAME_QUANTITY_COUNT && strchr (out->str + len, '.') != NULL)
        {
          while (out->str[out->len - 1] == '0')
            g_string_truncate (out, out->len - 1);
          if (out->str[out->len - 1] == '.')
            g_string_truncate (out, out->len - 1);
        }
    }
  if (*symbol)
    g_string_append_printf (out, " %s", symbol);
}

static void
append_signed_value (GString       *out,
                     FlameQuantity  quantity,
                     gdouble        v)
{
  if (fabs (v) < 0.005)
    v = 0;
  if (v >= 0)
    g_string_append_c (out, '+');
  append_value (out, quantity, v);
}

static void
append_signed_pct (GString *out,
                   gdouble  pct)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (fabs (pct) < 0.05)
    pct = 0;
  if (pct >= 0)
    g_string_append_c (out, '+');
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.1f", pct));
  g_string_append_c (out, '%');
}

/* A value with its unit in a sentence: "12.34 ms", "1.50 MiB", "20305". */
static void
append_quantity (GString       *out,
                 FlameQuantity  quantity,
                 gdouble        v,
                 gboolean       sign)
{
  if (sign)
    append_signed_value (out, quantity, v);
  else
    append_value (out, quantity, v);
  if (quantity == FLAME_QUANTITY_TIME)
    g_string_append (out, " ms");
}

/* --min-abs-ms as given: "0 ms", "50 ms", "1 MiB" */
static void
append_min_abs (FlameReport *self,
                GString     *out)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (self->quantity == FLAME_QUANTITY_TIME)
    g_string_append_printf (out, "%s ms",
                            g_ascii_formatd (buf, sizeof buf, "%g", self->options.min_abs_ms));
  else
    append_value (out, self->quantity, self->options.min_abs_ms);
}

static char *
format_value_cell (FlameQuantity quantity,
                   gdouble       v,
                   gboolean      sign)
{
  GString *s = g_string_new (NULL);

  if (sign)
    append_signed_value (s, quantity, v);
  else
    append_value (s, quantity, v);
  return g_string_free (s, FALSE);
}

static char *
format_pct_cell (gdouble v)
{
  GString *s = g_string_new (NULL);

  append_signed_pct (s, v);
  return g_string_free (s, FALSE);
}

static const char *
metric_name (FlameMetric metric)
{
  return metric == FLAME_METRIC_TOTAL ? "total" : "self";
}

static char *
describe_side (FlameReport *self,
               guint        column)
{
  FlameDiff *diff = self->diff;
  FlameProfile *profile = column == FLAME_DIFF_BASELINE
                          ? flame_diff_get_baseline (diff) : flame_diff_get_current (diff);
  GString *s = g_string_new (NULL);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "%s (%s, ", flame_profile_get_path (profile),
                          flame_profile_get_format_name (profile));
  append_number (s, flame_diff_get_samples (diff, column));
  g_string_append (s, g_dngettext (GETTEXT_PACKAGE, " sample", " samples",
                                   flame_diff_get_samples (diff, column) == 1 ? 1 : 2));
  if (self->quantity == FLAME_QUANTITY_TIME)
    g_string_append_printf (s, ", interval %s ms%s",
                            g_ascii_formatd (buf, sizeof buf, "%g",
                                             flame_diff_get_interval_ms (diff, column)),
                            flame_diff_get_interval_assumed (diff, column) ? " assumed" : "");
  else
    g_string_append_printf (s, ", %s", flame_quantity_get_noun (self->quantity));
  if (flame_profile_get_sample_type (profile) != NULL)
    g_string_append_printf (s, ", sample type %s", flame_profile_get_sample_type (profile));
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static char *
describe_normalization (FlameReport *self)
{
  FlameDiff *diff = self->diff;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (flame_diff_get_options (diff)->normalize == FLAME_NORMALIZE_TOTAL)
    return g_strdup_printf ("total: baseline scaled ×%s to the current run's %s",
                            g_ascii_formatd (buf, sizeof buf, "%.4g",
                                             flame_diff_get_scale (diff)),
                            self->quantity == FLAME_QUANTITY_TIME ? "sampled time" : "total");
  if (self->quantity != FLAME_QUANTITY_TIME)
    /* memory and counts: no sampling interval to speak of */
    return g_strdup_printf ("absolute: %s as recorded, baseline not scaled (total ratio ×%s)",
                            self->quantity == FLAME_QUANTITY_BYTES ? "bytes" : "counts",
                            g_ascii_formatd (buf, sizeof buf, "%.4g",
                                             flame_diff_get_sampled_time_ratio (diff)));
  {
    gdouble factor = flame_diff_get_interval_ms (diff, FLAME_DIFF_BASELINE) /
                     flame_diff_get_interval_ms (diff, FLAME_DIFF_CURRENT);
    char fbuf[G_ASCII_DTOSTR_BUF_SIZE];
    GString *text = g_string_new (NULL);

    /* CPython 3.15.2: baseline samples in the current run's interval, not
     * scaled to its total; in milliseconds that is the time as measured */
    g_string_append_printf (text, "absolute: times as measured, baseline not scaled "
                            "(sampled time ratio ×%s)",
                            g_ascii_formatd (buf, sizeof buf, "%.4g",
                                             flame_diff_get_sampled_time_ratio (diff)));
    if (isfinite (factor) && factor != 1)
      g_string_append_printf (text, "; baseline samples ×%s in the current run's sampling interval",
                              g_ascii_formatd (fbuf, sizeof fbuf, "%.4g", factor));
    return g_string_free (text, FALSE);
  }
}

/* "8 baseline, 8 current; …": how the report tells a change from noise
 * when both sides have several runs, NULL otherwise */
static char *
describe_runs (FlameReport *self)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (self->n_runs[0] <= 1 && self->n_runs[1] <= 1)
    return NULL;
  if (!self->tested)
    return g_strdup_printf ("%u baseline, %u current; means per run, significance from "
                            "sampling noise (runs are tested with 2 or more on each side)",
                            self->n_runs[0], self->n_runs[1]);
  return g_strdup_printf ("%u baseline, %u current; means per run, Welch's t per function, "
                          "significant when Benjamini–Hochberg q < %s; Δ ± its %g %% interval",
                          self->n_runs[0], self->n_runs[1],
                          g_ascii_formatd (buf, sizeof buf, "%g", self->options.alpha),
                          FLAME_REPORT_CONFIDENCE * 100);
}

/* "2 functions fail the gate (1 regression, 1 new function beyond the
 * thresholds)", or that none does. */
static char *
describe_gate (FlameReport *self)
{
  guint n_new = self->n_gate - self->counts[FLAME_STATUS_REGRESSION];
  GString *s = g_string_new (NULL);

  if (self->n_gate == 0)
    g_string_append (s, "no function fails --fail-on-regression");
  else
    g_string_append_printf (
      s, "%u function%s fail%s --fail-on-regression (%u regressed, %u new beyond the thresholds)",
      self->n_gate, self->n_gate == 1 ? "" : "s", self->n_gate == 1 ? "s" : "",
      self->counts[FLAME_STATUS_REGRESSION], n_new);
  if (self->options.ignore_new)
    g_string_append (s, "; new functions ignored");
  return g_string_free (s, FALSE);
}

static void
append_runtime (FlameReport *self,
                GString     *out)
{
  gdouble b = flame_diff_get_total_ms (self->diff, FLAME_DIFF_BASELINE);
  gdouble c = flame_diff_get_total_ms (self->diff, FLAME_DIFF_CURRENT);

  append_quantity (out, self->quantity, b, FALSE);
  g_string_append (out, " → ");
  append_quantity (out, self->quantity, c, FALSE);
  g_string_append (out, " (");
  append_quantity (out, self->quantity, c - b, TRUE);
  g_string_append (out, ", ");
  append_signed_pct (out, b > 0 ? (c - b) / b * 100 : (c > 0 ? 100 : 0));
  g_string_append (out, ")");
}

/* The value a section ranks and shows: new and removed functions by their
 * total (a new caller has no self time of its own, and its share of
 * the run is what matters), the others by the report's metric. */
static FlameMetric
section_metric (FlameReport *self,
                FlameStatus  status)
{
  if (status == FLAME_STATUS_NEW || status == FLAME_STATUS_REMOVED)
    return FLAME_METRIC_TOTAL;
  return self->options.metric;
}

typedef struct
{
  FlameReport *report;
  FlameStatus  status;
} TopSort;

static int
compare_by_total (const void *pa,
                  const void *pb,
                  gpointer    user_data)
{
  const TopSort *sort = user_data;
  const FlameFunctionStat *a = &sort->report->functions[*(const guint *) pa];
  const FlameFunctionStat *b = &sort->report->functions[*(const guint *) pb];
  gdouble va = sort->status == FLAME_STATUS_NEW ? a->total_c : a->total_b;
  gdouble vb = sort->status == FLAME_STATUS_NEW ? b->total_c : b->total_b;

  if (va != vb)
    return va > vb ? -1 : 1;
  /* report order for ties */
  return *(const guint *) pa < *(const guint *) pb ? -1 : *(const guint *) pa > *(const guint *) pb;
}

/* Indices of the functions with @status, at most top_n of them, in report
 * order (regressions: biggest growth first; improvements: biggest drop
 * first), new and removed functions by their total, largest first. */
static GArray *
select_top (FlameReport *self,
            FlameStatus  status)
{
  GArray *idx = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean by_total = status == FLAME_STATUS_NEW || status == FLAME_STATUS_REMOVED;

  for (guint i = 0; i < self->n_functions && (by_total || idx->len < self->options.top_n); i++)
    if (self->functions[i].status == status)
      g_array_append_val (idx, i);
  if (by_total && idx->len > 1)
    {
      TopSort sort = { self, status };

      g_qsort_with_data (idx->data, idx->len, sizeof (guint), compare_by_total, &sort);
    }
  if (idx->len > self->options.top_n)
    g_array_set_size (idx, self->options.top_n);
  return idx;
}

typedef struct
{
  const char *title;
  FlameStatus status;
} Section;

static const Section sections[] = {
  { "Top regressions", FLAME_STATUS_REGRESSION },
  { "Top improvements", FLAME_STATUS_IMPROVEMENT },
  { "New hotspots", FLAME_STATUS_NEW },
  { "Removed hotspots", FLAME_STATUS_REMOVED },
};

/* "New hotspots (by total time)": the sections ranked by something other
 * than the report's metric say so. */
static char *
section_title (FlameReport   *self,
               const Section *section)
{
  if (section->status == FLAME_STATUS_NEW || section->status == FLAME_STATUS_REMOVED)
    return g_strdup_printf ("%s (by total %s)", section->title,
                            flame_quantity_get_noun (self->quantity));
  return g_strdup (section->title);
}

#define N_COLUMNS 6

/* Column titles: "Baseline ms" for time; bytes and counts carry their
 * unit in each cell ("1.50 MiB"), so their titles name none. */
static void
column_titles (FlameReport *self,
               const char  *titles[N_COLUMNS])
{
  gboolean time = self->quantity == FLAME_QUANTITY_TIME;

  titles[0] = "Function";
  titles[1] = "File";
  titles[2] = time ? "Baseline ms" : "Baseline";
  titles[3] = time ? "Current ms" : "Current";
  titles[4] = self->tested ? (time ? "Δ ms ± 95 %" : "Δ ± 95 %") : (time ? "Δ ms" : "Δ");
  titles[5] = "Δ %";
}

static void
row_cells (FlameReport             *self,
           const FlameFunctionStat *s,
           FlameMetric              m,
           char                    *cells[N_COLUMNS])
{
  const char *file = flame_report_get_file (self, s);
  FlameDiffValues v = { s->self_b, s->total_b, s->self_c, s->total_c };

  cells[0] = g_strdup (flame_report_get_name (self, s));
  cells[1] = g_strdup (*file ? file : "—");
  cells[2] = format_value_cell (self->quantity, metric_b (s, m), FALSE);
  cells[3] = format_value_cell (self->quantity, metric_c (s, m), FALSE);
  cells[4] = format_value_cell (self->quantity, metric_delta (s, m), TRUE);
  /* the interval is of the metric the runs were tested on */
  if (s->tested && m == self->options.metric)
    {
      g_autofree char *half = format_value_cell (self->quantity, (s->ci_high - s->ci_low) / 2,
                                                 FALSE);
      char *both = g_strdup_printf ("%s ± %s", cells[4], half);

      g_free (cells[4]);
      cells[4] = both;
    }
  cells[5] = format_pct_cell (m == self->options.metric ? s->delta_pct
                                                        : flame_diff_percent (&v, m));
}

static gsize
display_width (const char *s)
{
  return g_utf8_validate (s, -1, NULL) ? (gsize) g_utf8_strlen (s, -1) : strlen (s);
}

static void
append_padded (GString    *out,
               const char *s,
               gsize       width,
               gboolean    right)
{
  gsize w = display_width (s);

  if (right)
    for (gsize i = w; i < width; i++)
      g_string_append_c (out, ' ');
  if (w > width)
    {
      /* cut long names, keeping the end (the function's own name) */
      const char *tail = g_utf8_offset_to_pointer (s, w - (width - 1));
      g_string_append (out, "…");
      g_string_append (out, tail);
    }
  else
    g_string_append (out, s);
  if (!right)
    for (gsize i = w; i < width; i++)
      g_string_append_c (out, ' ');
}

/* What call-graph formats say of their flame tree, or NULL */
static const char *
approximated_tree (FlameReport *self)
{
  const char *b = flame_profile_get_metadata (flame_diff_get_baseline (self->diff), "flame-graph");
  const char *c = flame_profile_get_metadata (flame_diff_get_current (self->diff), "flame-graph");

  return b != NULL ? b : c;
}

/* "1 regression, 2 improvements, 0 new, 1 removed" */
static void
append_summary (FlameReport *self,
                GString     *out)
{
  guint r = self->counts[FLAME_STATUS_REGRESSION];
  guint i = self->counts[FLAME_STATUS_IMPROVEMENT];

  g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "%u regression", "%u regressions", r),
                          r);
  g_string_append (out, ", ");
  g_string_append_printf (out,
                          g_dngettext (GETTEXT_PACKAGE, "%u improvement", "%u improvements", i), i);
  g_string_append_printf (out, ", %u new, %u removed",
                          self->counts[FLAME_STATUS_NEW], self->counts[FLAME_STATUS_REMOVED]);
}

/* "(1 module)" */
static void
append_modules (GString *out,
                guint    n)
{
  g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "%u module", "%u modules", n), n);
}

/* "  Binaries:      same build-ids (3 modules)", or a line per difference */
static void
append_text_binaries (FlameReport *self,
                      GString     *out)
{
  guint n = flame_binaries_count_differences (self->binaries);

  if (n == 0)
    {
      g_string_append (out, "  Binaries:      same build-ids (");
      append_modules (out, self->binaries->len);
      g_string_append (out, ")\n");
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *line = flame_binary_describe (g_ptr_array_index (self->binaries, i));

      g_string_append_printf (out, "  %s %s\n", i ? "              " : "Binaries:     ", line);
    }
}

/* The lines above the tables: sides, totals, options, summary, gate */
static void
append_text_header (FlameReport *self,
                    GString     *out)
{
  g_autofree char *base = describe_side (self, FLAME_DIFF_BASELINE);
  g_autofree char *cur = describe_side (self, FLAME_DIFF_CURRENT);
  g_autofree char *norm = describe_normalization (self);
  g_autofree char *gate = describe_gate (self);
  g_autofree char *runs = describe_runs (self);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, "Flamediff comparison\n");
  g_string_append_printf (out, "  Baseline:      %s\n", base);
  g_string_append_printf (out, "  Current:       %s\n", cur);
  g_string_append (out, self->quantity == FLAME_QUANTITY_TIME ? "  Runtime:       "
                                                              : "  Total:         ");
  append_runtime (self, out);
  g_string_append_printf (out, "\n  Normalisation: %s\n", norm);
  if (runs != NULL)
    g_string_append_printf (out, "  Runs:          %s\n", runs);
  g_string_append_printf (out, "  Metric:        %s %s; thresholds ±%s%% and ",
                          metric_name (self->options.metric),
                          flame_quantity_get_noun (self->quantity),
                          g_ascii_formatd (buf, sizeof buf, "%g", self->options.threshold_pct));
  append_min_abs (self, out);
  g_string_append (out, "\n  Summary:       ");
  append_summary (self, out);
  g_string_append_c (out, '\n');
  g_string_append_printf (out, "  Gate:          %s\n", gate);
  if (approximated_tree (self) != NULL)
    g_string_append_printf (out, "  Flame graph:   %s\n", approximated_tree (self));
  if (self->binaries != NULL)
    append_text_binaries (self, out);
}

/* One line of a table: the cells padded to @widths, numbers to the right */
static void
append_text_row (GString           *out,
                 const char *const *cells,
                 const gsize       *widths)
{
  g_string_append (out, " ");
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      g_string_append (out, " ");
      append_padded (out, cells[c], widths[c], c >= 2);
    }
  g_string_append_c (out, '\n');
}

/* The table of one section, "(none)" when it is empty */
static void
append_text_section (FlameReport       *self,
                     const Section     *section,
                     const char *const *titles,
                     GString           *out)
{
  g_autoptr(GArray) idx = select_top (self, section->status);
  g_autofree char *title = section_title (self, section);
  FlameMetric m = section_metric (self, section->status);
  gsize widths[N_COLUMNS];
  char **cells;

  g_string_append_printf (out, "\n%s\n", title);
  if (idx->len == 0)
    {
      g_string_append (out, "  (none)\n");
      return;
    }

  cells = g_new0 (char *, (gsize) idx->len * N_COLUMNS);
  for (guint c = 0; c < N_COLUMNS; c++)
    widths[c] = display_width (titles[c]);
  for (guint r = 0; r < idx->len; r++)
    {
      row_cells (self, &self->functions[g_array_index (idx, guint, r)], m, cells + r * N_COLUMNS);
      for (guint c = 0; c < N_COLUMNS; c++)
        widths[c] = MAX (widths[c], display_width (cells[r * N_COLUMNS + c]));
    }
  widths[0] = MIN (widths[0], 60);
  widths[1] = MIN (widths[1], 40);

  append_text_row (out, titles, widths);
  for (guint r = 0; r < idx->len; r++)
    append_text_row (out, (const char *const *) cells + r * N_COLUMNS, widths);
  for (gsize i = 0; i < (gsize) idx->len * N_COLUMNS; i++)
    g_free (cells[i]);
  g_free (cells);
}

void
flame_report_write_text (FlameReport *self,
                         GString     *out)
{
  const char *titles[N_COLUMNS];

  append_text_header (self, out);
  column_titles (self, titles);
  for (guint si = 0; si < G_N_ELEMENTS (sections); si++)
    append_text_section (self, &sections[si], titles, out);
}

static void
append_markdown_code (GString    *out,
                      const char *s)
{
  g_string_append_c (out, '`');
  for (const char *p = s; *p; p++)
    {
      if (*p == '|')
        g_string_append (out, "\\|");
      else if (*p == '`')
        g_string_append_c (out, '\'');
      else if (*p == '\n' || *p == '\r')
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, '`');
}

/* "### Binaries": the same build-ids, or a line per difference */
static void
append_markdown_binaries (FlameReport *self,
                          GString     *out)
{
  guint n = flame_binaries_count_differences (self->binaries);

  g_string_append (out, "\n### Binaries\n\n");
  if (n == 0)
    {
      g_string_append (out, "Same build-ids in both runs (");
      append_modules (out, self->binaries->len);
      g_string_append (out, ").\n");
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *line = flame_binary_describe (g_ptr_array_index (self->binaries, i));

      g_string_append (out, "- ");
      append_markdown_code (out, line);
      g_string_append_c (out, '\n');
    }
}

/* The marker and the lines above the tables */
static void
append_markdown_header (FlameReport *self,
                        GString     *out)
{
  g_autofree char *norm = describe_normalization (self);
  g_autofree char *gate = describe_gate (self);
  g_autofree char *runs = describe_runs (self);
  FlameDiff *diff = self->diff;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, FLAME_REPORT_MARKDOWN_MARKER "\n");
  g_string_append (out, "## Flamediff: performance comparison\n\n");
  g_string_append (out, self->quantity == FLAME_QUANTITY_TIME ? "**Runtime:** " : "**Total:** ");
  append_runtime (self, out);
  g_string_append (out, "  \n");
  g_string_append (out, "**Samples:** ");
  append_number (out, flame_diff_get_samples (diff, FLAME_DIFF_BASELINE));
  g_string_append (out, " → ");
  append_number (out, flame_diff_get_samples (diff, FLAME_DIFF_CURRENT));
  g_string_append (out, "  \n");
  g_string_append_printf (out, "**Normalisation:** %s  \n", norm);
  if (runs != NULL)
    g_string_append_printf (out, "**Runs:** %s  \n", runs);
  g_string_append_printf (out, "**Metric:** %s %s; thresholds ±%s%% and ",
                          metric_name (self->options.metric),
                          flame_quantity_get_noun (self->quantity),
                          g_ascii_formatd (buf, sizeof buf, "%g", self->options.threshold_pct));
  append_min_abs (self, out);
  g_string_append (out, "  \n**Summary:** ");
  append_summary (self, out);
  g_string_append (out, "  \n");
  g_string_append_printf (out, "**Gate:** %s\n", gate);
  if (flame_diff_get_interval_assumed (diff, FLAME_DIFF_BASELINE) ||
      flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT))
    g_string_append_printf (out,
                            "\n_A file carries no sampling interval: %s ms per sample assumed._\n",
                            g_ascii_formatd (buf, sizeof buf, "%g",
                                             flame_diff_get_options (diff)->default_interval_ms));
  if (self->binaries != NULL)
    append_markdown_binaries (self, out);
}

/* One row of a table; the function and its file as code */
static void
append_markdown_row (FlameReport             *self,
                     const FlameFunctionStat *s,
                     FlameMetric              m,
                     GString                 *out)
{
  char *cells[N_COLUMNS];

  row_cells (self, s, m, cells);
  g_string_append (out, "| ");
  append_markdown_code (out, cells[0]);
  g_string_append (out, " | ");
  if (g_strcmp0 (cells[1], "—") == 0)
    g_string_append (out, cells[1]);
  else
    append_markdown_code (out, cells[1]);
  g_string_append_printf (out, " | %s | %s | %s | %s |\n",
                          cells[2], cells[3], cells[4], cells[5]);
  for (guint c = 0; c < N_COLUMNS; c++)
    g_free (cells[c]);
}

/* The table of one section, "None." when it is empty */
static void
append_markdown_section (FlameReport       *self,
                         const Section     *section,
                         const char *const *titles,
                         GString           *out)
{
  g_autoptr(GArray) idx = select_top (self, section->status);
  g_autofree char *title = section_title (self, section);
  FlameMetric m = section_metric (self, section->status);

  g_string_append_printf (out, "\n### %s\n\n", title);
  if (idx->len == 0)
    {
      g_string_append (out, "None.\n");
      return;
    }
  g_string_append (out, "|");
  for (guint c = 0; c < N_COLUMNS; c++)
    g_string_append_printf (out, " %s |", titles[c]);
  g_string_append_c (out, '\n');
  g_string_append (out, "|---|---|--:|--:|--:|--:|\n");
  for (guint r = 0; r < idx->len; r++)
    append_markdown_row (self, &self->functions[g_array_index (idx, guint, r)], m, out);
}

void
flame_report_write_markdown (FlameReport *self,
                             GString     *out)
{
  const char *titles[N_COLUMNS];

  append_markdown_header (self, out);
  column_titles (self, titles);
  for (guint si = 0; si < G_N_ELEMENTS (sections); si++)
    append_markdown_section (self, &sections[si], titles, out);
}

/* a probability: small ones keep their digits, unlike append_number() */
static void
append_p (GString *out,
          gdouble  p)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.4g", CLAMP (p, 0.0, 1.0)));
}

/* `, "KEY": v` in the report's unit, and for time also the schema 1 key
 * `, "KEY_ms": v` (docs/report-schema.md: migration) */
static void
append_json_value (FlameReport *self,
                   GString     *out,
                   const char  *key,
                   gdouble      v)
{
  g_string_append_printf (out, ", \"%s\": ", key);
  append_number (out, v);
  if (self->quantity == FLAME_QUANTITY_TIME)
    {
      g_string_append_printf (out, ", \"%s_ms\": ", key);
      append_number (out, v);
    }
}

static void
append_json_side (FlameReport *self,
                  GString     *out,
                  guint        column)
{
  FlameDiff *diff = self->diff;
  FlameProfile *profile = column == FLAME_DIFF_BASELINE
                          ? flame_diff_get_baseline (diff) : flame_diff_get_current (diff);

  g_string_append (out, "{\"path\": ");
  flame_json_append_string (out,
                      flame_profile_get_path (profile) ? flame_profile_get_path (profile) : "");
  g_string_append (out, ", \"format\": ");
  flame_json_append_string (out, flame_profile_get_format_name (profile));
  g_string_append (out, ", \"samples\": ");
  append_number (out, flame_diff_get_samples (diff, column));
  if (flame_profile_get_sample_type (profile) != NULL)
    {
      g_string_append (out, ", \"sample_type\": ");
      flame_json_append_string (out, flame_profile_get_sample_type (profile));
    }
  if (flame_profile_get_event (profile) != NULL)
    {
      g_string_append (out, ", \"event\": ");
      flame_json_append_string (out, flame_profile_get_event (profile));
    }
  if (self->quantity == FLAME_QUANTITY_TIME)
    {
      g_string_append (out, ", \"interval_ms\": ");
      append_number (out, flame_diff_get_interval_ms (diff, column));
      g_string_append_printf (out, ", \"interval_assumed\": %s",
                              flame_diff_get_interval_assumed (diff, column) ? "true" : "false");
    }
  append_json_value (self, out, "total", flame_diff_get_total_ms (diff, column));
  g_string_append_printf (out, ", \"runs\": %u}", self->n_runs[column]);
}

/* "normalization", "metric", "match", "thresholds" and "runs_test" */
static void
append_json_options (FlameReport *self,
                     GString     *out)
{
  FlameDiff *diff = self->diff;
  const FlameDiffOptions *dopts = flame_diff_get_options (diff);

  g_string_append_printf (out, ",\n  \"normalization\": {\"mode\": \"%s\", \"scale\": ",
                          flame_normalize_to_string (dopts->normalize));
  append_ratio (out, flame_diff_get_scale (diff));
  g_string_append (out, ", \"sampled_time_ratio\": ");
  append_ratio (out, flame_diff_get_sampled_time_ratio (diff));
  g_string_append_printf (out, "},\n  \"metric\": \"%s\",\n  \"match\": \"%s\",\n",
                          metric_name (self->options.metric),
                          flame_match_to_string (dopts->match));
  g_string_append (out, "  \"thresholds\": {\"pct\": ");
  append_number (out, self->options.threshold_pct);
  append_json_value (self, out, "min_abs", self->options.min_abs_ms);
  g_string_append_printf (out, ", \"ignore_new\": %s", self->options.ignore_new ? "true" : "false");
  g_string_append (out, ", \"significance\": ");
  append_number (out, self->options.alpha);
  g_string_append_printf (out, ", \"gate_on_significance\": %s},\n",
                          self->options.gate_on_noise ? "true" : "false");
  g_string_append_printf (out, "  \"runs_test\": %s,\n",
                          self->tested ? "\"welch-bh\"" : "null");
}

static void
append_json_string_or_null (GString    *out,
                            const char *s)
{
  if (s != NULL)
    flame_json_append_string (out, s);
  else
    g_string_append (out, "null");
}

/* "binaries": the build-ids of each module on both sides */
static void
append_json_binaries (FlameReport *self,
                      GString     *out)
{
  g_string_append (out, "  \"binaries\": [");
  for (guint i = 0; i < self->binaries->len; i++)
    {
      const FlameBinary *b = g_ptr_array_index (self->binaries, i);

      g_string_append (out, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
      flame_json_append_string (out, b->path);
      g_string_append (out, ", \"baseline_build_id\": ");
      append_json_string_or_null (out, b->baseline_build_id);
      g_string_append (out, ", \"current_build_id\": ");
      append_json_string_or_null (out, b->current_build_id);
      g_string_append_printf (out, ", \"status\": \"%s\"}",
                              flame_binary_status_to_string (b->status));
    }
  g_string_append (out, self->binaries->len ? "\n  ],\n" : "],\n");
}

/* A function's "runs": the test of the metric over repeated runs */
static void
append_json_runs (FlameReport             *self,
                  GString                 *out,
                  const FlameFunctionStat *s)
{
  g_string_append (out, ", \"runs\": {\"baseline_mean\": ");
  append_number (out, metric_b (s, self->options.metric));
  g_string_append (out, ", \"current_mean\": ");
  append_number (out, metric_c (s, self->options.metric));
  g_string_append (out, ", \"diff\": ");
  append_number (out, metric_delta (s, self->options.metric));
  g_string_append (out, ", \"ci_low\": ");
  append_number (out, s->ci_low);
  g_string_append (out, ", \"ci_high\": ");
  append_number (out, s->ci_high);
  g_string_append (out, ", \"half_width\": ");
  append_number (out, (s->ci_high - s->ci_low) / 2);
  g_string_append (out, ", \"p\": ");
  append_p (out, s->p);
  g_string_append (out, ", \"q\": ");
  append_p (out, s->q);
  g_string_append (out, "}");
}

/* Output past this goes to a drain: big enough for few writes, small
 * enough to stay in the cache and never fault in anew */
#define REPORT_DRAIN_BYTES ((gsize) 1 << 20)

/* Hands @out to @drain (if any) once it holds REPORT_DRAIN_BYTES */
static inline void
drain_when_full (GString        *out,
                 FlameTextDrain  drain,
                 gpointer        user_data)
{
  if (drain != NULL && out->len >= REPORT_DRAIN_BYTES)
    drain (out, user_data);
}

/* One entry of "functions", after its "{\"name\": " */
static void
append_json_function (FlameReport             *self,
                      GString                 *out,
                      const FlameFunctionStat *s)
{
  flame_json_append_string (out, flame_report_get_name (self, s));
  g_string_append (out, ", \"file\": ");
  flame_json_append_string (out, flame_report_get_file (self, s));
  append_json_value (self, out, "baseline_self", s->self_b);
  append_json_value (self, out, "current_self", s->self_c);
  append_json_value (self, out, "baseline_total", s->total_b);
  append_json_value (self, out, "current_total", s->total_c);
  append_json_value (self, out, "delta_self", s->delta_self);
  append_json_value (self, out, "delta_total", s->delta_total);
  g_string_append (out, ", \"delta_pct\": ");
  append_number (out, s->delta_pct);
  g_string_append_printf (out, ", \"status\": \"%s\", \"significant\": %s, \"gate\": %s",
                          flame_status_to_string (s->status),
                          s->significant ? "true" : "false",
                          s->gate ? "true" : "false");
  if (s->tested)
    append_json_runs (self, out, s);
  g_string_append_c (out, '}');
}

/* Schema: docs/report-schema.md (schema_version 3). */
void
flame_report_write_json (FlameReport *self,
                         GString     *out)
{
  flame_report_write_json_drained (self, out, NULL, NULL);
}

/**
 * flame_report_write_json_drained:
 * @drain: (nullable): takes the output away whenever it passes a MiB
 *
 * As flame_report_write_json(), in pieces: a report of every function of
 * a large profile is tens of MB, which a whole string would fault in
 * anew (and copy as it grows) only to write it out.
 */
void
flame_report_write_json_drained (FlameReport    *self,
                                 GString        *out,
                                 FlameTextDrain  drain,
                                 gpointer        user_data)
{
  g_string_append (out, "{\n  \"schema_version\": 3,\n  \"unit\": ");
  flame_json_append_string (out, flame_quantity_to_string (self->quantity));
  g_string_append (out, ",\n  \"baseline\": ");
  append_json_side (self, out, FLAME_DIFF_BASELINE);
  g_string_append (out, ",\n  \"current\": ");
  append_json_side (self, out, FLAME_DIFF_CURRENT);
  append_json_options (self, out);
  g_string_append_printf (out,
                          "  \"summary\": {\"regressions\": %u, \"improvements\": %u, "
                          "\"new\": %u, \"removed\": %u, \"unchanged\": %u, "
                          "\"elided_paths\": %u, \"gate_failures\": %u},\n",
                          self->counts[FLAME_STATUS_REGRESSION],
                          self->counts[FLAME_STATUS_IMPROVEMENT],
                          self->counts[FLAME_STATUS_NEW],
                          self->counts[FLAME_STATUS_REMOVED],
                          self->counts[FLAME_STATUS_UNCHANGED],
                          flame_diff_get_elided_count (self->diff), self->n_gate);
  if (self->binaries != NULL)
    append_json_binaries (self, out);
  g_string_append (out, "  \"functions\": [");
  for (guint i = 0; i < self->n_functions; i++)
    {
      g_string_append (out, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
      append_json_function (self, out, &self->functions[i]);
      drain_when_full (out, drain, user_data);
    }
  g_string_append (out, self->n_functions ? "\n  ]\n}\n" : "]\n}\n");
}

/* Folded output carries what its numbers are on a first comment line
 * that flame_folded_load() reads back (docs/formats.md, Folded stacks):
 * "# flamediff-folded unit=ms samples=120,130 interval_ms=10 event=cycles"
 * (and sample_type=inuse_space/bytes for pprof).
 * Plain sample counts with an assumed interval need none: they read back
 * as they are, and other tools see the classic format. */
#define FLAME_FOLDED_HEADER "# flamediff-folded"

static void
append_folded_header (GString       *out,
                      const char    *unit,
                      const gdouble *samples,
                      guint          n_columns,
                      gdouble        interval_ms,
                      FlameProfile  *profile)
{
  const char *event = flame_profile_get_event (profile);
  const char *sample_type = flame_profile_get_sample_type (profile);

  g_string_append_printf (out, FLAME_FOLDED_HEADER " unit=%s", unit);
  if (samples != NULL)
    for (guint c = 0; c < n_columns; c++)
      {
        g_string_append (out, c == 0 ? " samples=" : ",");
        append_number (out, samples[c]);
      }
  if (interval_ms > 0)
    {
      g_string_append (out, " interval_ms=");
      append_number (out, interval_ms);
    }
  if (event != NULL && *event && strpbrk (event, " \t\r\n") == NULL)
    g_string_append_printf (out, " event=%s", event);
  if (sample_type != NULL && *sample_type && strpbrk (sample_type, " \t\r\n") == NULL)
    g_string_append_printf (out, " sample_type=%s", sample_type);
  g_string_append_c (out, '\n');
}

/* A folded line in write_folded_tree()'s buffer; key is its first 8
 * bytes big-endian (zero-padded), so that most comparisons are one
 * integer comparison instead of a strcmp of two cold strings. */
typedef struct
{
  guint64 key;
  gsize   offset;
  gsize   len;
  guint32 node;
} FoldedLine;

static int
compare_folded_lines (gconstpointer pa,
                      gconstpointer pb,
                      gpointer      data)
{
  const char *folded_lines_buf = data;
  const FoldedLine *a = pa;
  const FoldedLine *b = pb;
  gsize n;
  int r;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  /* byte order of the whole lines, as strcmp (no NUL in a line) */
  if (a->len <= 8 || b->len <= 8)
    return (a->len > b->len) - (a->len < b->len);
  n = MIN (a->len, b->len) - 8;
  r = memcmp (folded_lines_buf + a->offset + 8, folded_lines_buf + b->offset + 8, n);
  if (r != 0)
    return r;
  return (a->len > b->len) - (a->len < b->len);
}

typedef struct
{
  FlameTree     *tree;
  const char   **names;      /* per frame, then "[no stack]" */
  gsize         *name_lens;
  guint          n_frames;
  guint          n_columns;
  const gdouble *factors;
  GArray        *path;
  FlameTextDrain drain;      /* NULL: @out holds it all */
  gpointer       drain_data;
} FoldedWriter;

static inline void
folded_drain (const FoldedWriter *w,
              GString            *out)
{
  drain_when_full (out, w->drain, w->drain_data);
}

/* Appends node @n's line, without its '\n', to @out. */
static void
append_folded_line (FoldedWriter *w,
                    guint32       n,
                    GString      *out)
{
  FlameTree *tree = w->tree;

  g_array_set_size (w->path, 0);
  for (guint32 a = n; a != FLAME_TREE_ROOT; a = tree->nodes[a].parent)
    g_array_append_val (w->path, tree->nodes[a].frame);

  if (n == FLAME_TREE_ROOT)
    g_string_append (out, "[no stack]");
  for (guint i = w->path->len; i > 0; i--)
    {
      guint32 f = g_array_index (w->path, guint32, i - 1);

      g_string_append_len (out, w->names[f], w->name_lens[f]);
      if (i > 1)
        g_string_append_c (out, ';');
    }
  for (guint c = 0; c < w->n_columns; c++)
    {
      g_string_append_c (out, ' ');
      append_number (out, tree->self[c][n] * w->factors[c]);
    }
}

/* The general way of write_folded_tree(), for names that its walk
 * cannot order: the lines are built back to back in one buffer and
 * sorted as (8-byte key, offset) records; the buffer is then freed and
 * each line built again, in order, into @out. */
static void
write_folded_sorted (FoldedWriter *w,
                     GString      *out)
{
  FlameTree *tree = w->tree;
  guint n_columns = w->n_columns;
  g_autoptr(GArray) lines = g_array_new (FALSE, FALSE, sizeof (FoldedLine));
  GString *buf = g_string_sized_new (1 << 20);
  gsize total = 0;
  gsize at;

  for (guint32 n = 0; n < tree->n_nodes; n++)
    {
      gboolean any = FALSE;
      FoldedLine line;

      for (guint c = 0; c < n_columns; c++)
        any |= tree->self[c][n] != 0;
      if (!any)
        continue;

      line.offset = buf->len;
      append_folded_line (w, n, buf);
      line.len = buf->len - line.offset;
      line.node = n;
      line.key = 0;
      for (guint k = 0; k < 8; k++)
        line.key = (line.key << 8) | (k < line.len ? (guchar) buf->str[line.offset + k] : 0);
      total += line.len + 1;
      g_array_append_val (lines, line);
    }

  g_qsort_with_data (lines->data, lines->len, sizeof (FoldedLine),
                     compare_folded_lines, buf->str);
  g_string_free (buf, TRUE);

  /* room for all of it at once (unless it goes out in pieces), then
   * filled from where it was */
  at = out->len;
  g_string_set_size (out, at + (w->drain != NULL ? MIN (total, 2 * REPORT_DRAIN_BYTES) : total));
  g_string_truncate (out, at);
  for (guint i = 0; i < lines->len; i++)
    {
      append_folded_line (w, g_array_index (lines, FoldedLine, i).node, out);
      g_string_append_c (out, '\n');
      folded_drain (w, out);
    }
}

/* Byte order of @a's name followed by @ta against @b's followed by @tb. */
static int
compare_terminated (const FoldedWriter *w,
                    guint32             a,
                    char                ta,
                    guint32             b,
                    char                tb)
{
  gsize la = w->name_lens[a], lb = w->name_lens[b];
  int r = memcmp (w->names[a], w->names[b], MIN (la, lb));

  if (r != 0)
    return r;
  if (la == lb)
    return (guchar) ta - (guchar) tb;
  if (la < lb)
    return (guchar) ta == (guchar) w->names[b][la] ? -1 : (guchar) ta - (guchar) w->names[b][la];
  return (guchar) w->names[a][lb] == (guchar) tb ? 1 : (guchar) w->names[a][lb] - (guchar) tb;
}

/* folded_ranks()' entries: frame * 2 + 0 for "name ", + 1 for "name;" */
static inline char
entry_terminator (guint32 e)
{
  return (e & 1) ? ';' : ' ';
}

static int
compare_entries (gconstpointer pa,
                 gconstpointer pb,
                 gpointer      data)
{
  guint32 a = *(const guint32 *) pa, b = *(const guint32 *) pb;

  return compare_terminated (data, a >> 1, entry_terminator (a), b >> 1, entry_terminator (b));
}

/* The rank, in byte order, of every frame's name followed by ' ' (where
 * its own line goes) and by ';' (where its descendants' lines go), equal
 * names ranking equal; NULL when some name holds a ';' or begins with
 * another name and a blank, where the rank of a name alone does not
 * decide the order of the lines. */
static guint32 *
folded_ranks (const FoldedWriter *w)
{
  guint n = w->n_frames + 1;
  g_autofree guint32 *entries = NULL;
  g_autofree guint32 *ranks = NULL;
  guint32 rank = 0;

  if (n >= G_MAXUINT32 / 4)
    return NULL;
  entries = g_new (guint32, (gsize) n * 2);
  ranks = g_new (guint32, (gsize) n * 2);
  for (guint f = 0; f < n; f++)
    if (memchr (w->names[f], ';', w->name_lens[f]) != NULL)
      return NULL;
  for (guint32 e = 0; e < n * 2; e++)
    entries[e] = e;
  g_qsort_with_data (entries, n * 2, sizeof (guint32), compare_entries, (gpointer) w);

  for (guint i = 0; i < n * 2; i++)
    {
      guint32 e = entries[i];

      if (i > 0 && compare_entries (&entries[i - 1], &e, (gpointer) w) != 0)
        {
          guint32 p = entries[i - 1];
          gsize lp = w->name_lens[p >> 1];

          rank++;
          /* "name x" after "name ": the counts would take part */
          if (!(p & 1) && w->name_lens[e >> 1] > lp &&
              memcmp (w->names[e >> 1], w->names[p >> 1], lp) == 0 && w->names[e >> 1][lp] == ' ')
            return NULL;
        }
      ranks[e] = rank;
    }
  return g_steal_pointer (&ranks);
}

/* Room for @need more bytes after out->len. */
static inline char *
folded_reserve (GString *out,
                gsize    need)
{
  if (G_UNLIKELY (out->len + need >= out->allocated_len))
    {
      gsize len = out->len;

      g_string_set_size (out, MAX (len + need, out->allocated_len * 2));
      g_string_truncate (out, len);
    }
  return out->str + out->len;
}

/* Node @n's line: @prefix (its ancestors' names, each followed by ';'),
 * its name, its weights, '\n'. */
static void
emit_folded_line (const FoldedWriter *w,
                  guint32             n,
                  const GString      *prefix,
                  GString            *out)
{
  guint32 f = n == FLAME_TREE_ROOT ? w->n_frames : w->tree->nodes[n].frame;
  gsize len = w->name_lens[f];
  char *p = folded_reserve (out, prefix->len + len + w->n_columns * (FLAME_NUMBER_BUF + 1) + 1);
  char *start = p;

  memcpy (p, prefix->str, prefix->len);
  p += prefix->len;
  memcpy (p, w->names[f], len);
  p += len;
  for (guint c = 0; c < w->n_columns; c++)
    {
      *p++ = ' ';
      p += format_number (p, w->tree->self[c][n] * w->factors[c]);
    }
  *p++ = '\n';
  out->len += p - start;
}

/* The walk's items: (rank of "name " or "name;" << 1 | 0 for a node's
 * own line, 1 for its subtree) << 32 | node; sorted as integers. */
#define WALK_POP G_MAXUINT64

static inline guint64
walk_item (guint32 rank,
           guint   subtree,
           guint32 node)
{
  return ((guint64) ((rank << 1) | subtree) << 32) | node;
}

static inline gboolean
folded_has_weight (const FoldedWriter *w,
                   guint32             n)
{
  for (guint c = 0; c < w->n_columns; c++)
    if (w->tree->self[c][n] != 0)
      return TRUE;
  return FALSE;
}

static int
compare_u64 (gconstpointer pa,
             gconstpointer pb,
             gpointer      data)
{
  guint64 a = *(const guint64 *) pa, b = *(const guint64 *) pb;

  return (a > b) - (a < b);
}

/* Most nodes have a few children: insertion sort for those. */
static void
sort_walk_items (guint64 *items,
                 guint    n)
{
  if (n > 16)
    {
      g_qsort_with_data (items, n, sizeof (guint64), compare_u64, NULL);
      return;
    }
  for (guint i = 1; i < n; i++)
    {
      guint64 v = items[i];
      guint j = i;

      for (; j > 0 && items[j - 1] > v; j--)
        items[j] = items[j - 1];
      items[j] = v;
    }
}

/* The walk's item for @node's own line (@subtree 0), which it has when
 * it has weight, or for its subtree (1), which it has when it has
 * children (the root's subtree is the walk itself); FALSE for none. */
static inline gboolean
walk_node_item (const FoldedWriter *w,
                const guint32      *ranks,
                guint32             node,
                guint               subtree,
                guint64            *item)
{
  const FlameNode *nodes = w->tree->nodes;
  guint32 f = node == FLAME_TREE_ROOT ? w->n_frames : nodes[node].frame;

  if (subtree ? node == FLAME_TREE_ROOT || nodes[node].first_child == FLAME_TREE_NONE
              : !folded_has_weight (w, node))
    return FALSE;
  *item = walk_item (ranks[f * 2 + subtree], subtree, node);
  return TRUE;
}

/* Pushes, in reverse order, the items under @parent: each child's own
 * line and its subtree (walk_node_item()). */
static void
push_children (const FoldedWriter *w,
               const guint32      *ranks,
               guint32             parent,
               GArray             *scratch,
               GArray             *stack)
{
  const FlameNode *nodes = w->tree->nodes;
  guint64 *items;
  guint64 item;

  g_array_set_size (scratch, 0);
  if (parent == FLAME_TREE_ROOT && walk_node_item (w, ranks, FLAME_TREE_ROOT, 0, &item))
    g_array_append_val (scratch, item);
  for (guint32 c = nodes[parent].first_child; c != FLAME_TREE_NONE; c = nodes[c].next_sibling)
    for (guint subtree = 0; subtree < 2; subtree++)
      if (walk_node_item (w, ranks, c, subtree, &item))
        g_array_append_val (scratch, item);

  items = (guint64 *) scratch->data;
  sort_walk_items (items, scratch->len);
  for (guint i = scratch->len; i > 0; i--)
    g_array_append_val (stack, items[i - 1]);
}

/* folded_walk_possible()'s keys, parent << 32 | rank: g_int64_hash()
 * folds the halves together with a XOR, which maps many such keys of
 * small numbers to one bucket */
static guint
walk_key_hash (gconstpointer key)
{
  return (guint) ((*(const guint64 *) key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32);
}

/* Whether no two siblings push items of one rank (two frames of one
 * name, both with weight or both with children), where the walk could
 * not order their lines. Decided before writing, so that what is written
 * can go out as it is made. Only frames whose name another frame shares
 * need looking at. */
static gboolean
folded_walk_possible (const FoldedWriter *w,
                      const guint32      *ranks)
{
  const FlameTree *tree = w->tree;
  guint n = w->n_frames + 1;
  g_autofree guint8 *uses = g_new0 (guint8, (gsize) n * 2);
  g_autofree gboolean *shared = g_new0 (gboolean, n);
  g_autoptr(GHashTable) seen = NULL;
  gboolean any = FALSE;

  for (guint f = 0; f < n; f++)
    if (uses[ranks[f * 2]] < 2)
      uses[ranks[f * 2]]++;
  for (guint f = 0; f < n; f++)
    any |= shared[f] = uses[ranks[f * 2]] > 1;
  if (!any)
    return TRUE;

  seen = g_hash_table_new_full (walk_key_hash, g_int64_equal, g_free, NULL);
  for (guint32 node = 0; node < tree->n_nodes; node++)
    {
      guint32 f = node == FLAME_TREE_ROOT ? w->n_frames : tree->nodes[node].frame;
      guint32 parent = node == FLAME_TREE_ROOT ? FLAME_TREE_ROOT : tree->nodes[node].parent;
      guint64 item;

      if (!shared[f])
        continue;
      for (guint subtree = 0; subtree < 2; subtree++)
        {
          gint64 key;

          if (!walk_node_item (w, ranks, node, subtree, &item))
            continue;
          /* the parent, the item's rank and kind */
          key = ((gint64) parent << 32) | (gint64) (item >> 32);
          if (g_hash_table_contains (seen, &key))
            return FALSE;
          g_hash_table_add (seen, g_memdup2 (&key, sizeof key));
        }
    }
  return TRUE;
}

/* Appends node @n's name and a ';' to @path: the path of its children */
static inline void
append_path_level (const FoldedWriter *w,
                   GString            *path,
                   guint32             n)
{
  guint32 f = w->tree->nodes[n].frame;

  g_string_append_len (path, w->names[f], w->name_lens[f]);
  g_string_append_c (path, ';');
}

/* A walk's working arrays: the items to go (a stack), the children of
 * the node being opened, and the path so far with its lengths. */
typedef struct
{
  GArray  *stack;
  GArray  *scratch;
  GArray  *lens;
  GString *prefix;
} FoldedWalk;

static void
folded_walk_init (FoldedWalk *walk)
{
  walk->stack = g_array_new (FALSE, FALSE, sizeof (guint64));
  walk->scratch = g_array_new (FALSE, FALSE, sizeof (guint64));
  walk->lens = g_array_new (FALSE, FALSE, sizeof (gsize));
  walk->prefix = g_string_new (NULL);
}

static void
folded_walk_clear (FoldedWalk *walk)
{
  g_array_unref (walk->stack);
  g_array_unref (walk->scratch);
  g_array_unref (walk->lens);
  g_string_free (walk->prefix, TRUE);
}

/* Writes the lines of the items on @walk's stack, and of every node
 * below them, to @out (handed to the drain as it fills when @drain). */
static void
folded_walk_run (const FoldedWriter *w,
                 const guint32      *ranks,
                 FoldedWalk         *walk,
                 GString            *out,
                 gboolean            drain)
{
  while (walk->stack->len > 0)
    {
      guint64 item = g_array_index (walk->stack, guint64, walk->stack->len - 1);
      guint32 n = (guint32) item;

      walk->stack->len--;
      if (item == WALK_POP)
        {
          g_string_truncate (walk->prefix, g_array_index (walk->lens, gsize, walk->lens->len - 1));
          walk->lens->len--;
        }
      else if (!((item >> 32) & 1))
        {
          emit_folded_line (w, n, walk->prefix, out);
          if (drain)
            folded_drain (w, out);
        }
      else
        {
          guint64 pop = WALK_POP;

          g_array_append_val (walk->lens, walk->prefix->len);
          append_path_level (w, walk->prefix, n);
          g_array_append_val (walk->stack, pop);
          push_children (w, ranks, n, walk->scratch, walk->stack);
        }
    }
}

/* A part of the walk for one of write_folded_parallel()'s tasks: an
 * item and the path above it (in WalkPlan.prefixes) */
typedef struct
{
  guint64 item;
  gsize   prefix_offset;
  gsize   prefix_len;
} WalkTask;

typedef struct
{
  const FoldedWriter *w;
  const guint32      *ranks;
  GArray             *tasks;
  GString            *prefixes;
  guint               n_groups;
  GString            *out;
} WalkPlan;

/* Trees this large are written on every core */
#define FOLDED_PARALLEL_NODES (1u << 17)
/* The walk's tasks go to the threads in runs of consecutive tasks, this
 * many runs per thread: enough that uneven runs even out, few enough
 * that handing them over costs little (a thread switch is expensive in
 * a VM) and each run's text, held until its turn, is small. A run has
 * at least FOLDED_TASKS_PER_GROUP tasks where the tree allows. */
#define FOLDED_GROUPS_PER_THREAD 64
#define FOLDED_TASKS_PER_GROUP   4

/* The walk as a list of tasks in output order: the root's items, then,
 * level by level until there are enough, each subtree item replaced by
 * its children's items (which is what the walk would do with it). */
static void
plan_walk_tasks (WalkPlan *plan,
                 guint     n_threads)
{
  const FoldedWriter *w = plan->w;
  g_autoptr(GArray) next = g_array_new (FALSE, FALSE, sizeof (WalkTask));
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) unused = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean opened = TRUE;

  push_children (w, plan->ranks, FLAME_TREE_ROOT, items, unused);
  for (guint i = 0; i < items->len; i++)
    {
      WalkTask t = { g_array_index (items, guint64, i), 0, 0 };

      g_array_append_val (plan->tasks, t);
    }
  while (opened && plan->tasks->len < n_threads * FOLDED_GROUPS_PER_THREAD * FOLDED_TASKS_PER_GROUP)
    {
      opened = FALSE;
      g_array_set_size (next, 0);
      for (guint i = 0; i < plan->tasks->len; i++)
        {
          WalkTask t = g_array_index (plan->tasks, WalkTask, i);
          guint32 n = (guint32) t.item;
          gsize offset = plan->prefixes->len;

          if (!((t.item >> 32) & 1))
            {
              g_array_append_val (next, t);
              continue;
            }
          /* the item's path, then its name: its children's path */
          g_string_append_len (plan->prefixes, plan->prefixes->str + t.prefix_offset,
                               t.prefix_len);
          append_path_level (w, plan->prefixes, n);
          push_children (w, plan->ranks, n, items, unused);
          for (guint k = 0; k < items->len; k++)
            {
              WalkTask c = { g_array_index (items, guint64, k), offset,
                             plan->prefixes->len - offset };

              g_array_append_val (next, c);
            }
          g_array_set_size (unused, 0);
          opened = TRUE;
        }
      g_array_set_size (plan->tasks, 0);
      g_array_append_vals (plan->tasks, next->data, next->len);
    }
}

/* The lines of run @group of the plan's tasks */
static void
write_walk_group (gsize    group,
                  GString *out,
                  gpointer data)
{
  const WalkPlan *plan = data;
  gsize first = group * plan->tasks->len / plan->n_groups;
  gsize end = (group + 1) * plan->tasks->len / plan->n_groups;
  FoldedWalk walk;

  folded_walk_init (&walk);
  for (gsize i = first; i < end; i++)
    {
      const WalkTask *t = &g_array_index (plan->tasks, WalkTask, i);

      g_string_truncate (walk.prefix, 0);
      g_string_append_len (walk.prefix, plan->prefixes->str + t->prefix_offset, t->prefix_len);
      g_array_append_val (walk.stack, t->item);
      folded_walk_run (plan->w, plan->ranks, &walk, out, FALSE);
    }
  folded_walk_clear (&walk);
}

/* A task's lines to the output, handed to the drain in pieces of at
 * most REPORT_DRAIN_BYTES as the one-thread walk's are */
static void
take_walk_text (GString *text,
                gpointer data)
{
  const WalkPlan *plan = data;
  GString *out = plan->out;
  gsize done = 0;

  while (done < text->len)
    {
      gsize n = text->len - done;

      if (plan->w->drain != NULL)
        n = MIN (n, REPORT_DRAIN_BYTES - MIN (out->len, REPORT_DRAIN_BYTES - 1));
      g_string_append_len (out, text->str + done, n);
      folded_drain (plan->w, out);
      done += n;
    }
}

/* The walk on every core: a large tree's walk cut into tasks
 * (plan_walk_tasks()) written in parallel and taken in order. FALSE,
 * with nothing written, where it would not pay. */
static gboolean
write_folded_parallel (const FoldedWriter *w,
                       const guint32      *ranks,
                       GString            *out)
{
  guint n_threads = flame_parallel_threads ();
  g_autoptr(GArray) tasks = NULL;
  g_autoptr(GString) prefixes = NULL;
  WalkPlan plan;

  if (n_threads < 2 || w->tree->n_nodes < FOLDED_PARALLEL_NODES)
    return FALSE;
  tasks = g_array_new (FALSE, FALSE, sizeof (WalkTask));
  prefixes = g_string_new (NULL);
  plan = (WalkPlan) { w, ranks, tasks, prefixes, 0, out };
  plan_walk_tasks (&plan, n_threads);
  plan.n_groups = MIN (tasks->len, n_threads * FOLDED_GROUPS_PER_THREAD);
  if (plan.n_groups < 2)
    return FALSE;
  flame_parallel_text (plan.n_groups, write_walk_group, take_walk_text, &plan);
  return TRUE;
}

/* The lines of write_folded_tree() in byte order without sorting them: a
 * walk down the tree, each node's children in the order of their names
 * (folded_ranks()), the path so far kept as a prefix. FALSE, with
 * nothing written, when the names do not allow it. */
static gboolean
write_folded_walk (FoldedWriter *w,
                   GString      *out)
{
  g_autofree guint32 *ranks = folded_ranks (w);
  FoldedWalk walk;

  if (ranks == NULL || !folded_walk_possible (w, ranks))
    return FALSE;
  if (write_folded_parallel (w, ranks, out))
    return TRUE;
  folded_walk_init (&walk);
  push_children (w, ranks, FLAME_TREE_ROOT, walk.scratch, walk.stack);
  folded_walk_run (w, ranks, &walk, out, TRUE);
  folded_walk_clear (&walk);
  return TRUE;
}

/* Every node with self weight in any column as "a;b;c N [M]" (root
 * first), each column's weight multiplied by its factor; lines sorted
 * byte-wise. Samples without a stack (weight on the root) become
 * "[no stack] N", so that the totals read back the same. Serves both
 * `convert -o x.folded` and the diff's 3-column output. Written by a walk
 * down the tree where the names allow (write_folded_walk()), else by
 * sorting the lines (a name with a ';', two siblings of one name). */
static void
write_folded_tree (FlameTree      *tree,
                   FlameFrames    *frames,
                   guint           n_columns,
                   const gdouble  *factors,
                   GString        *out,
                   FlameTextDrain  drain,
                   gpointer        drain_data)
{
  guint n_frames = flame_frames_count (frames);
  g_autofree const char **names = g_new (const char *, n_frames + 1);
  g_autofree gsize *name_lens = g_new (gsize, n_frames + 1);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  FoldedWriter w = { tree, names, name_lens, n_frames, n_columns, factors, path,
                     drain, drain_data };

  for (guint f = 0; f < n_frames; f++)
    {
      names[f] = flame_frames_get_name (frames, f);
      name_lens[f] = strlen (names[f]);
    }
  names[n_frames] = "[no stack]";
  name_lens[n_frames] = strlen (names[n_frames]);

  if (!write_folded_walk (&w, out))
    write_folded_sorted (&w, out);
  if (drain != NULL && out->len > 0)
    drain (out, drain_data);
  out->str[out->len] = '\0';
}

/**
 * flame_diff_write_folded:
 *
 * Writes every stack of either profile as `stack before after`
 * (difffolded.pl's convention), lines sorted. Two sample-count profiles
 * of one interval are written in sample counts (the baseline scaled into
 * the current profile's counts when normalising), with a header only when
 * that interval is known; any other pair in the diff's values (ms, bytes,
 * a count; the baseline scaled) under a header naming the unit, so that
 * reading the output back gives the report's totals.
 */
void
flame_diff_write_folded (FlameDiff *diff,
                         GString   *out)
{
  flame_diff_write_folded_drained (diff, out, NULL, NULL);
}

/**
 * flame_diff_write_folded_drained:
 * @drain: (nullable): takes the output away whenever it passes a MiB,
 *   and what is left at the end
 *
 * As flame_diff_write_folded(), in pieces: @out holds at most a little
 * more than a MiB at a time.
 */
void
flame_diff_write_folded_drained (FlameDiff      *diff,
                                 GString        *out,
                                 FlameTextDrain  drain,
                                 gpointer        user_data)
{
  const FlameDiffOptions *opts = flame_diff_get_options (diff);
  FlameProfile *base = flame_diff_get_baseline (diff);
  FlameProfile *cur = flame_diff_get_current (diff);
  gdouble ib = flame_diff_get_interval_ms (diff, FLAME_DIFF_BASELINE);
  gdouble ic = flame_diff_get_interval_ms (diff, FLAME_DIFF_CURRENT);
  gboolean assumed = flame_diff_get_interval_assumed (diff, FLAME_DIFF_CURRENT);
  gdouble samples[2] = { flame_diff_get_samples (diff, FLAME_DIFF_BASELINE),
                         flame_diff_get_samples (diff, FLAME_DIFF_CURRENT) };
  gdouble factors[2];

  if (flame_profile_get_unit (base) == FLAME_UNIT_SAMPLES &&
      flame_profile_get_unit (cur) == FLAME_UNIT_SAMPLES && ib == ic &&
      assumed == flame_diff_get_interval_assumed (diff, FLAME_DIFF_BASELINE))
    {
      /* the tree holds counts × interval */
      factors[FLAME_DIFF_BASELINE] = opts->normalize == FLAME_NORMALIZE_TOTAL
                                     ? flame_diff_get_scale (diff) / ic : 1.0 / ib;
      factors[FLAME_DIFF_CURRENT] = 1.0 / ic;
      if (!assumed)
        append_folded_header (out, "samples", NULL, 2, ic, cur);
    }
  else
    {
      factors[FLAME_DIFF_BASELINE] = flame_diff_get_scale (diff);
      factors[FLAME_DIFF_CURRENT] = 1.0;
      append_folded_header (out, flame_quantity_to_string (flame_diff_get_quantity (diff)),
                            samples, 2, 0, cur);
    }
  write_folded_tree (flame_diff_get_tree (diff), flame_diff_get_frames (diff), 2, factors, out,
                     drain, user_data);
}

/**
 * flame_profile_write_folded:
 *
 * Writes @profile as folded stacks, "stack count" lines or "stack before
 * after" for a two-column profile: sample counts as they are, any other
 * weights in the profile's quantity (ms, bytes, a count) under a
 * `# flamediff-folded` header, so that the file reads back to the same
 * totals, samples and interval.
 */
void
flame_profile_write_folded (FlameProfile *profile,
                            GString      *out)
{
  flame_profile_write_folded_drained (profile, out, NULL, NULL);
}

/**
 * flame_profile_write_folded_drained:
 * @drain: (nullable): as for flame_diff_write_folded_drained()
 *
 * As flame_profile_write_folded(), in pieces.
 */
void
flame_profile_write_folded_drained (FlameProfile   *profile,
                                    GString        *out,
                                    FlameTextDrain  drain,
                                    gpointer        user_data)
{
  guint n_columns = flame_profile_get_n_columns (profile);
  gdouble factors[2] = { 1, 1 };
  gdouble samples[2] = { 0, 0 };

  g_return_if_fail (n_columns <= 2);

  if (flame_profile_get_unit (profile) == FLAME_UNIT_SAMPLES)
    {
      if (flame_profile_get_interval_ms (profile) > 0)
        append_folded_header (out, "samples", NULL, n_columns,
                              flame_profile_get_interval_ms (profile), profile);
    }
  else
    {
      for (guint c = 0; c < n_columns; c++)
        {
          /* events become time as everywhere else (1 ms per sample when
           * the file names no interval, as info says) */
          factors[c] = flame_profile_get_ms_per_weight (profile, c, 1.0);
          samples[c] = flame_profile_get_samples (profile, c);
        }
      append_folded_header (out, flame_quantity_to_string (flame_profile_get_quantity (profile)),
                            samples, n_columns, flame_profile_get_interval_ms (profile),
                            profile);
    }
  write_folded_tree (flame_profile_get_tree (profile), flame_profile_get_frames (profile),
                     n_columns, factors, out, drain, user_data);
}

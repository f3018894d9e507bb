/* flame-summary-bar.c: the line above the graph.
 *
 * The files compared (or the one file shown), how the baseline is
 * scaled, the two totals and sample counts, the change as a coloured
 * figure, and a warning when the recordings ran different builds. It
 * formats what the comparison it is given holds.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "flame-provenance.h"
#include "flame-summary-bar-private.h"
#include "flame-tooltip.h"

enum {
  PROP_0,
  PROP_COMPARISON,
  PROP_SAMPLE_TYPE,
  PROP_TITLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameSummaryBar, flame_summary_bar, GTK_TYPE_WIDGET)

static char *
display_name (GFile *file)
{
  return file ? g_file_get_basename (file) : g_strdup ("");
}

/* "before (5 runs)": a side of several runs by the folder of its first
 * run; one run by its file name. The summary and the Recent menu. */
char *
flame_summary_bar_side_label (GFile *first,
                              guint  n_runs)
{
  g_autoptr(GFile) parent = NULL;
  g_autofree char *name = NULL;

  if (n_runs <= 1 || first == NULL)
    return display_name (first);
  parent = g_file_get_parent (first);
  name = parent ? g_file_get_basename (parent) : display_name (first);
  /* Translators: a side of the comparison: its folder, and how many runs of the program it holds */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (%u run)", "%s (%u runs)", n_runs),
                          name, n_runs);
}

/* "alloc_space/bytes" as "alloc_space (bytes)"; other names as they are.
 * The summary and the window's Sample Type menu. */
char *
flame_summary_bar_sample_type_label (const char *type)
{
  const char *slash = strrchr (type, '/');

  if (slash == NULL || slash == type || slash[1] == '\0')
    return g_strdup (type);
  return g_strdup_printf ("%.*s (%s)", (int) (slash - type), type, slash + 1);
}

static char *
side_name (FlameSummaryBar *self,
           guint            side)
{
  return flame_summary_bar_side_label (flame_comparison_get_run_file (self->comparison, side, 0),
                                       flame_comparison_get_n_runs (self->comparison, side));
}

static void
set_title (FlameSummaryBar *self,
           const char      *title)
{
  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

/* "Binary changed: imgconv" when the two recordings ran different
 * builds (build-ids from the recorder's metadata), the details in the
 * tooltip: a regression measured across a rebuild is expected, one
 * without a rebuild is not */
static void
update_binaries_label (FlameSummaryBar *self,
                       FlameDiff       *diff)
{
  g_autoptr(GPtrArray) bins = NULL;
  g_autoptr(GString) names = NULL;
  g_autoptr(GString) details = NULL;
  g_autofree char *text = NULL;
  guint n_changed = 0, n;

  if (diff != NULL)
    bins = flame_binaries_compare (flame_diff_get_baseline (diff),
                                   flame_diff_get_current (diff),
                                   flame_diff_get_options (diff)->exact_paths);
  n = flame_binaries_count_differences (bins);
  gtk_widget_set_visible (GTK_WIDGET (self->binaries_label), n > 0);
  if (n == 0)
    return;

  names = g_string_new (NULL);
  details = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      const FlameBinary *b = g_ptr_array_index (bins, i);
      g_autofree char *line = flame_binary_describe (b);

      g_string_append_printf (details, "%s%s", i ? "\n" : "", line);
      if (b->status == FLAME_BINARY_CHANGED)
        {
          g_autofree char *name = flame_binary_short_name (b);

          g_string_append_printf (names, "%s%s", n_changed++ ? ", " : "", name);
        }
    }
  if (n_changed > 0)
    /* Translators: the file names of the programs or libraries rebuilt
     * between the two recordings */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Binary changed: %s",
                                         "Binaries changed: %s", n_changed),
                            names->str);
  else
    /* Translators: libraries loaded by only one of the two recorded runs */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u library loaded by one run only",
                                         "%u libraries loaded by one run only", n), n);
  gtk_label_set_text (self->binaries_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->binaries_label), details->str);
}

/* one profile: its file, format, total and samples */
static void
show_profile (FlameSummaryBar *self,
              FlameProfile    *p)
{
  g_autofree char *base_name = display_name (
    flame_comparison_get_run_file (self->comparison, FLAME_DIFF_BASELINE, 0));
  /* the interval the layout assumed too (flame-window.c, view_job_run) */
  gdouble interval = flame_comparison_get_diff_options (self->comparison)->default_interval_ms;
  /* in human units, as the changes panel writes them: "33 min 7.7 s" */
  g_autofree char *totals = flame_quantity_format_compact (flame_profile_get_quantity (p),
                                                           flame_profile_get_total_ms (p, 0,
                                                                                       interval),
                                                           FALSE);
  g_autofree char *samples = g_strdup_printf ("%'.0f", flame_profile_get_samples (p, 0));
  g_autofree char *samples_text = g_strdup_printf (_("%s samples"), samples);

  gtk_label_set_text (self->files_label, base_name);
  if (flame_profile_has_timing (p) || flame_profile_get_quantity (p) != FLAME_QUANTITY_TIME)
    gtk_label_set_text (self->scale_label, flame_profile_get_format_name (p));
  else
    {
      g_autofree char *ms = g_strdup_printf ("%g", interval);
      g_autofree char *text =
        g_strdup_printf (_("%s · %s ms per sample assumed (the file carries no timing)"),
                         flame_profile_get_format_name (p), ms);

      gtk_label_set_text (self->scale_label, text);
    }
  gtk_label_set_text (self->totals_label, totals);
  gtk_label_set_text (self->samples_label, samples_text);
  gtk_widget_set_visible (GTK_WIDGET (self->delta_label), FALSE);
  set_title (self, base_name);
}

/* two profiles (or two sets of runs): both totals and the change */
static void
show_diff (FlameSummaryBar *self,
           FlameDiff       *diff)
{
  GFile *base_file = flame_comparison_get_run_file (self->comparison, FLAME_DIFF_BASELINE, 0);
  GFile *cur_file = flame_comparison_get_run_file (self->comparison, FLAME_DIFF_CURRENT, 0);
  g_autofree char *base_name = display_name (base_file);
  g_autofree char *cur_name = display_name (cur_file);
  GtkWidget *delta = GTK_WIDGET (self->delta_label);
  gdouble tb = flame_diff_get_total_ms (diff, FLAME_DIFF_BASELINE);
  gdouble tc = flame_diff_get_total_ms (diff, FLAME_DIFF_CURRENT);
  gdouble d = tc - tb;
  /* in human units, as the changes panel writes them: "33 min 7.7 s",
   * "74.4 MiB" */
  FlameQuantity q = flame_diff_get_quantity (diff);
  g_autofree char *s_tb = flame_quantity_format_compact (q, tb, FALSE);
  g_autofree char *s_tc = flame_quantity_format_compact (q, tc, FALSE);
  g_autofree char *s_d = flame_quantity_format_compact (q, d, TRUE);
  g_autofree char *s_pct = tb > 0 ? g_strdup_printf ("%+.1f", d / tb * 100) : NULL;
  g_autofree char *n_b = g_strdup_printf ("%'.0f",
                                          flame_diff_get_samples (diff, FLAME_DIFF_BASELINE));
  g_autofree char *n_c = g_strdup_printf ("%'.0f",
                                          flame_diff_get_samples (diff, FLAME_DIFF_CURRENT));
  g_autofree char *files = NULL;
  g_autofree char *totals = NULL;
  g_autofree char *samples = NULL;
  g_autofree char *delta_text = NULL;
  g_autofree char *norm = flame_normalization_text (diff);
  g_autoptr(GString) scale = g_string_new (NULL);

  if (flame_comparison_get_n_runs (self->comparison, FLAME_DIFF_BASELINE) > 1 ||
      flame_comparison_get_n_runs (self->comparison, FLAME_DIFF_CURRENT) > 1)
    {
      g_autofree char *base_side = side_name (self, FLAME_DIFF_BASELINE);
      g_autofree char *cur_side = side_name (self, FLAME_DIFF_CURRENT);

      files = g_strdup_printf (_("%s → %s"), base_side, cur_side);
    }
  else if (cur_file != NULL)
    /* Translators: baseline file → current file */
    files = g_strdup_printf (_("%s → %s"), base_name, cur_name);
  else
    /* Translators: a file holding both profiles (3-column folded) */
    files = g_strdup_printf (_("%s (baseline and current)"), base_name);
  /* Translators: totals, baseline → current, each with its unit */
  totals = g_strdup_printf (_("%s → %s"), s_tb, s_tc);
  /* Translators: sample counts, baseline → current */
  samples = g_strdup_printf (_("%s → %s samples"), n_b, n_c);
  if (s_pct != NULL)
    /* Translators: the change with its unit, and in per cent */
    delta_text = g_strdup_printf (_("%s (%s %%)"), s_d, s_pct);
  else
    delta_text = g_strdup_printf ("%s", s_d);

  /* the sentence the legend and the exported image say, with the
   * interval when one was assumed */
  g_string_append (scale, norm);
  if (self->sample_type != NULL)
    {
      g_autofree char *label = flame_summary_bar_sample_type_label (self->sample_type);

      g_string_append (scale, " · ");
      /* Translators: %s is a sample type of the file, e.g. "alloc_space (bytes)" */
      g_string_append_printf (scale, _("Sample type: %s"), label);
    }

  gtk_label_set_text (self->files_label, files);
  gtk_label_set_text (self->scale_label, scale->str);
  gtk_label_set_text (self->totals_label, totals);
  gtk_label_set_text (self->samples_label, samples);
  gtk_label_set_text (self->delta_label, delta_text);
  gtk_widget_set_visible (delta, TRUE);
  if (fabs (d) >= 0.05)
    gtk_widget_add_css_class (delta, d > 0 ? "regression" : "improvement");
  set_title (self, files);
}

static void
update (FlameSummaryBar *self)
{
  FlameDiff *diff = self->comparison ? flame_comparison_get_diff (self->comparison) : NULL;

  gtk_widget_remove_css_class (GTK_WIDGET (self->delta_label), "regression");
  gtk_widget_remove_css_class (GTK_WIDGET (self->delta_label), "improvement");
  update_binaries_label (self, diff);

  if (diff != NULL)
    show_diff (self, diff);
  else if (self->comparison != NULL)
    show_profile (self, flame_comparison_get_profile (self->comparison, FLAME_DIFF_BASELINE));
  else
    set_title (self, NULL);
}

/* ------------------------------------------------------------------ */
/* Public API */

/**
 * flame_summary_bar_set_comparison:
 * @comparison: (nullable): a loaded comparison, with a diff or one profile
 */
void
flame_summary_bar_set_comparison (FlameSummaryBar *self,
                                  FlameComparison *comparison)
{
  g_return_if_fail (FLAME_IS_SUMMARY_BAR (self));
  g_return_if_fail (comparison == NULL || FLAME_IS_COMPARISON (comparison));

  /* the same comparison may come back with another view: say it again */
  if (g_set_object (&self->comparison, comparison))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARISON]);
  update (self);
}

const char *
flame_summary_bar_get_sample_type (FlameSummaryBar *self)
{
  g_return_val_if_fail (FLAME_IS_SUMMARY_BAR (self), NULL);
  return self->sample_type != NULL ? self->sample_type : "";
}

/**
 * flame_summary_bar_set_sample_type:
 * @sample_type: (nullable): the sample type loaded from a file with
 *   several, named in the scale line; NULL or "" for none
 */
void
flame_summary_bar_set_sample_type (FlameSummaryBar *self,
                                   const char      *sample_type)
{
  g_return_if_fail (FLAME_IS_SUMMARY_BAR (self));

  if (sample_type != NULL && sample_type[0] == '\0')
    sample_type = NULL;
  if (g_strcmp0 (self->sample_type, sample_type) == 0)
    return;
  g_free (self->sample_type);
  self->sample_type = g_strdup (sample_type);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAMPLE_TYPE]);
  update (self);
}

/**
 * flame_summary_bar_get_title:
 *
 * Returns: (nullable): the files shown ("a.folded → b.folded", or the one
 *   file's name), for the window's title; NULL with no comparison
 */
const char *
flame_summary_bar_get_title (FlameSummaryBar *self)
{
  g_return_val_if_fail (FLAME_IS_SUMMARY_BAR (self), NULL);
  return self->title;
}

/* ------------------------------------------------------------------ */
/* GObject */

static void
flame_summary_bar_dispose (GObject *object)
{
  FlameSummaryBar *self = FLAME_SUMMARY_BAR (object);
  GtkWidget *child;

  g_clear_object (&self->comparison);
  gtk_widget_dispose_template (GTK_WIDGET (self), FLAME_TYPE_SUMMARY_BAR);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (flame_summary_bar_parent_class)->dispose (object);
}

static void
flame_summary_bar_finalize (GObject *object)
{
  FlameSummaryBar *self = FLAME_SUMMARY_BAR (object);

  g_free (self->sample_type);
  g_free (self->title);
  G_OBJECT_CLASS (flame_summary_bar_parent_class)->finalize (object);
}

static void
flame_summary_bar_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  FlameSummaryBar *self = FLAME_SUMMARY_BAR (object);

  switch (prop_id)
    {
    case PROP_COMPARISON:
      g_value_set_object (value, self->comparison);
      break;
    case PROP_SAMPLE_TYPE:
      g_value_set_string (value, flame_summary_bar_get_sample_type (self));
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_summary_bar_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  FlameSummaryBar *self = FLAME_SUMMARY_BAR (object);

  switch (prop_id)
    {
    case PROP_COMPARISON:
      flame_summary_bar_set_comparison (self, g_value_get_object (value));
      break;
    case PROP_SAMPLE_TYPE:
      flame_summary_bar_set_sample_type (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_summary_bar_class_init (FlameSummaryBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = flame_summary_bar_dispose;
  object_class->finalize = flame_summary_bar_finalize;
  object_class->get_property = flame_summary_bar_get_property;
  object_class->set_property = flame_summary_bar_set_property;

  properties[PROP_COMPARISON] =
    g_param_spec_object ("comparison", NULL, NULL, FLAME_TYPE_COMPARISON,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SAMPLE_TYPE] =
    g_param_spec_string ("sample-type", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "summarybar");
  gtk_widget_class_set_template_from_resource (
    widget_class, "/io/github/flamediff/Flamediff/ui/flame-summary-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, FlameSummaryBar, files_label);
  gtk_widget_class_bind_template_child (widget_class, FlameSummaryBar, scale_label);
  gtk_widget_class_bind_template_child (widget_class, FlameSummaryBar, binaries_label);
  gtk_widget_class_bind_template_child (widget_class, FlameSummaryBar, totals_label);
  gtk_widget_class_bind_template_child (widget_class, FlameSummaryBar, samples_label);
  gtk_widget_class_bind_template_child (widget_class, FlameSummaryBar, delta_label);
}

static void
flame_summary_bar_init (FlameSummaryBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* Narrow windows: the files and the totals one above the other instead
 * of side by side (flame-window-narrow.c) */
void
flame_summary_bar_set_stacked (FlameSummaryBar *self,
                               gboolean         stacked)
{
  GtkLayoutManager *layout;

  g_return_if_fail (FLAME_IS_SUMMARY_BAR (self));

  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout),
                                  stacked ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
}

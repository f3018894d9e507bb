/* flame-legend.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's colour key: one row along the bottom of the graph pane.
 * A short summary on the left (normalisation, what the colour and the
 * width mean; ellipsized, the whole text in its tooltip), then the change
 * scale as adjacent swatches from "Slower" to "Faster", then "New" and
 * "Removed". Each swatch's tooltip says what its colour means. Swatches
 * take their colours from the view's palette, so they follow the desktop's
 * dark and high-contrast styles with the graph.
 *
 * The PNG/SVG exports keep the painter's full legend
 * (flame_painter_paint_legend), which needs no tooltips.
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "flame-legend.h"
#include "flame-tooltip.h"

struct _FlameLegend
{
  GtkBox          parent_instance;

  /* Borrowed References */
  FlameGraphView *view;
  GtkWidget      *summary;
  GtkWidget      *scale_box;    /* Slower, the nine swatches, Faster */
  GtkWidget      *worse_label;  /* "Slower", or "More" for memory and counts */
  GtkWidget      *better_label;
  GtkWidget      *new_box;
  GtkWidget      *removed_box;
  GtkWidget      *removed_label;
  GPtrArray      *swatches;     /* the drawing areas, each with its class */
};

enum {
  PROP_0,
  PROP_VIEW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameLegend, flame_legend, GTK_TYPE_BOX)

/* The thresholds are the classification's own (flame-diff.h). */
static char *
class_description (FlameChange klass)
{
  const int n = FLAME_CHANGE_NEUTRAL_PCT, l = FLAME_CHANGE_LIGHT_PCT;
  const int m = FLAME_CHANGE_MEDIUM_PCT, d = FLAME_CHANGE_DEEP_PCT;

  switch (klass)
    {
    case FLAME_CHANGE_REGRESSION_DEEP:
      /* Translators: a colour of the flame graph; %d is a percentage */
      return g_strdup_printf (_("Deep regression: %d %% or more slower"), d);
    case FLAME_CHANGE_REGRESSION_MEDIUM:
      /* Translators: a colour of the flame graph; the %d are percentages */
      return g_strdup_printf (_("Medium regression: %d–%d %% slower"), m, d);
    case FLAME_CHANGE_REGRESSION_LIGHT:
      /* Translators: a colour of the flame graph; the %d are percentages */
      return g_strdup_printf (_("Light regression: %d–%d %% slower"), l, m);
    case FLAME_CHANGE_REGRESSION_VERY_LIGHT:
      /* Translators: a colour of the flame graph; the %d are percentages */
      return g_strdup_printf (_("Minor regression: %d–%d %% slower"), n, l);
    case FLAME_CHANGE_NEUTRAL:
      /* Translators: a colour of the flame graph; %d is a percentage */
      return g_strdup_printf (_("Unchanged: within ±%d %%"), n);
    case FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT:
      /* Translators: a colour of the flame graph; the %d are percentages */
      return g_strdup_printf (_("Minor improvement: %d–%d %% faster"), n, l);
    case FLAME_CHANGE_IMPROVEMENT_LIGHT:
      /* Translators: a colour of the flame graph; the %d are percentages */
      return g_strdup_printf (_("Light improvement: %d–%d %% faster"), l, m);
    case FLAME_CHANGE_IMPROVEMENT_MEDIUM:
      /* Translators: a colour of the flame graph; the %d are percentages */
      return g_strdup_printf (_("Strong improvement: %d–%d %% faster"), m, d);
    case FLAME_CHANGE_IMPROVEMENT_DEEP:
      return g_strdup (_("Deep improvement: the time is gone"));
    case FLAME_CHANGE_NEW:
      return g_strdup (_("New: no counterpart in the baseline"));
    case FLAME_CHANGE_ELIDED:
      return g_strdup (_("Removed: ran only in the baseline"));
    case FLAME_N_CHANGES:
    default:
      return g_strdup ("");
    }
}

static void
draw_swatch (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  FlameLegend *self = user_data;
  FlameChange klass = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (area), "class"));
  const FlamePalette *palette;
  FlameRgb fill;
  GdkRGBA fg;

  if (self->view == NULL)
    return;
  palette = flame_graph_view_get_palette (self->view);
  fill = flame_palette_get_fill (palette, klass);
  cairo_set_source_rgb (cr, fill.r / 255.0, fill.g / 255.0, fill.b / 255.0);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  /* a hairline in the text colour: pale swatches stay visible */
#if GTK_CHECK_VERSION(4, 10, 0)
  gtk_widget_get_color (GTK_WIDGET (area), &fg);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
#endif
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, palette->borders ? 1 : .25);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, .5, .5, width - 1, height - 1);
  cairo_stroke (cr);
}

static GtkWidget *
add_swatch (FlameLegend *self,
            GtkBox      *box,
            FlameChange  klass)
{
  GtkWidget *area = gtk_drawing_area_new ();
  g_autofree char *description = class_description (klass);

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (area), 14);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), 14);
  gtk_widget_set_valign (area, GTK_ALIGN_CENTER);
  g_object_set_data (G_OBJECT (area), "class", GINT_TO_POINTER (klass));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_swatch, self, NULL);
  gtk_widget_set_tooltip_text (area, description);
  gtk_accessible_update_property (GTK_ACCESSIBLE (area),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, description, -1);
  gtk_widget_add_css_class (area, "swatch");
  gtk_box_append (box, area);
  g_ptr_array_add (self->swatches, area);
  return area;
}

static GtkWidget *
add_label (GtkBox     *box,
           const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_add_css_class (label, "caption");
  gtk_box_append (box, label);
  return label;
}

static void
redraw_swatches (FlameLegend *self)
{
  for (guint i = 0; i < self->swatches->len; i++)
    gtk_widget_queue_draw (self->swatches->pdata[i]);
}

/* The legend's text and its tooltip for @diff in @source's view */
static void
describe_diff (FlameLayoutSource  *source,
               FlameDiff          *diff,
               char              **summary_out,
               char              **tooltip_out)
{
  g_autofree char *summary = NULL;
  g_autofree char *tooltip = NULL;
  const FlameDiffOptions *opts = flame_diff_get_options (diff);
  FlameView view = flame_layout_source_get_view (source);
  g_autofree char *factor = g_strdup_printf ("%.2f", flame_diff_get_scale (diff));
  g_autofree char *norm = opts->normalize == FLAME_NORMALIZE_TOTAL
    /* Translators: the factor the baseline is multiplied by */
    ? g_strdup_printf (_("Baseline ×%s"), factor)
    : g_strdup (_("Absolute time"));
  /* the sentence the summary bar and the exported image say */
  g_autofree char *norm_long = flame_normalization_text (diff);
  gboolean by_total = view == FLAME_VIEW_INVERTED || opts->metric == FLAME_METRIC_TOTAL;

  if (view == FLAME_VIEW_ELIDED)
    {
      summary =
        g_strdup_printf (_("%s · Paths gone from the current run · Width: baseline time"),
                         norm);
      tooltip = g_strdup_printf (
        "%s. %s", norm_long,
        _("The elided view shows only the code paths that ran in the baseline "
          "and not in the current run, as wide as their scaled baseline time."));
    }
  else
    {
      summary =
        g_strdup_printf (by_total
                           ? _("%s · Colour: change of total time · Width: current time")
                           : _("%s · Colour: change of self time · Width: current time"),
                         norm);
      tooltip =
        g_strdup_printf ("%s. %s", norm_long,
                         by_total
                           ? _("Each frame is as wide as its time in the current run and "
                               "coloured by how much its total time changed.")
                           : _("Each frame is as wide as its time in the current run and "
                               "coloured by how much its self time changed."));
    }
  /* the modes the View Options menu sets show here too (issue #18) */
  if (view == FLAME_VIEW_INVERTED)
    {
      /* Translators: the legend of the inverted graph (callers above
       * each function); %s is the rest of the legend */
      g_autofree char *all = g_strdup_printf (C_("legend", "Inverted · %s"), summary);

      g_free (summary);
      summary = g_steal_pointer (&all);
    }
  if (opts->significance > 0)
    {
      /* Translators: the legend when View Options ▸ Hide Noise is on:
       * changes within the sampling noise are drawn neutral */
      g_autofree char *all = g_strdup_printf (C_("legend", "%s · Noise hidden"), summary);

      g_free (summary);
      summary = g_steal_pointer (&all);
    }

  *summary_out = g_steal_pointer (&summary);
  *tooltip_out = g_steal_pointer (&tooltip);
}

static void
update (FlameLegend *self)
{
  FlameLayoutSource *source = self->view ? flame_graph_view_get_source (self->view) : NULL;
  FlameDiff *diff = source ? flame_layout_source_get_diff (source) : NULL;
  g_autofree char *summary = NULL;
  g_autofree char *tooltip = NULL;
  FlameQuantity quantity = source ? flame_layout_source_get_quantity (source) : FLAME_QUANTITY_TIME;

  /* Translators: the regression end of the colour key for memory or
   * counts (more bytes, more objects) */
  gtk_label_set_text (GTK_LABEL (self->worse_label),
                      quantity == FLAME_QUANTITY_TIME ? _("Slower") : C_("legend", "More"));
  /* Translators: the improvement end of the colour key for memory or counts */
  gtk_label_set_text (GTK_LABEL (self->better_label),
                      quantity == FLAME_QUANTITY_TIME ? _("Faster") : C_("legend", "Less"));

  if (diff == NULL)
    {
      summary = g_strdup (_("Single profile · Width: time · Colour: by function name"));
      tooltip = g_strdup (_("A single profile: each frame is as wide as its time; "
                            "warm colours tell the functions apart and say nothing about change."));
      gtk_widget_set_visible (self->scale_box, FALSE);
      gtk_widget_set_visible (self->new_box, FALSE);
      gtk_widget_set_visible (self->removed_box, FALSE);
    }
  else
    {
      FlameView view = flame_layout_source_get_view (source);

      describe_diff (source, diff, &summary, &tooltip);
      gtk_widget_set_visible (self->scale_box, view != FLAME_VIEW_ELIDED);
      gtk_widget_set_visible (self->new_box, view != FLAME_VIEW_ELIDED);
      /* removed paths are drawn only in the elided view */
      gtk_widget_set_visible (self->removed_box, view == FLAME_VIEW_ELIDED);
    }
  if (quantity != FLAME_QUANTITY_TIME)
    {
      /* widths and colours are bytes or counts, not time: say so first */
      g_autofree char *all =
        g_strdup_printf ("%s · %s",
                         quantity == FLAME_QUANTITY_BYTES
                           /* Translators: the legend of a memory profile */
                           ? _("Memory (bytes), not time")
                           /* Translators: the legend of a count profile (objects, goroutines) */
                           : _("Counts, not time"),
                         summary);
      g_free (summary);
      summary = g_steal_pointer (&all);
    }
  gtk_label_set_text (GTK_LABEL (self->summary), summary);
  gtk_widget_set_tooltip_text (self->summary, tooltip);
  redraw_swatches (self);
}

const char *
flame_legend_get_summary (FlameLegend *self)
{
  g_return_val_if_fail (FLAME_IS_LEGEND (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->summary));
}

/* how many swatches are shown now */
guint
flame_legend_get_n_swatches (FlameLegend *self)
{
  guint n = 0;

  g_return_val_if_fail (FLAME_IS_LEGEND (self), 0);
  for (guint i = 0; i < self->swatches->len; i++)
    {
      GtkWidget *w = self->swatches->pdata[i];

      while (w != NULL && w != GTK_WIDGET (self) && gtk_widget_get_visible (w))
        w = gtk_widget_get_parent (w);
      if (w == GTK_WIDGET (self))
        n++;
    }
  return n;
}

void
flame_legend_set_view (FlameLegend    *self,
                       FlameGraphView *view)
{
  g_return_if_fail (FLAME_IS_LEGEND (self));
  g_return_if_fail (view == NULL || FLAME_IS_GRAPH_VIEW (view));

  if (self->view == view)
    return;
  if (self->view != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->view, update, self);
      g_signal_handlers_disconnect_by_func (self->view, redraw_swatches, self);
    }
  g_set_weak_pointer (&self->view, view);
  if (view != NULL)
    {
      g_signal_connect_object (view, "notify::source", G_CALLBACK (update), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (view, "notify::palette-style", G_CALLBACK (redraw_swatches),
                               self, G_CONNECT_SWAPPED);
    }
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW]);
}

static void
flame_legend_dispose (GObject *object)
{
  FlameLegend *self = (FlameLegend *) object;

  if (self->view != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->view, update, self);
      g_signal_handlers_disconnect_by_func (self->view, redraw_swatches, self);
    }
  g_clear_weak_pointer (&self->view);
  g_clear_pointer (&self->swatches, g_ptr_array_unref);

  G_OBJECT_CLASS (flame_legend_parent_class)->dispose (object);
}

static void
flame_legend_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  FlameLegend *self = FLAME_LEGEND (object);

  switch (prop_id)
    {
    case PROP_VIEW:
      g_value_set_object (value, self->view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_legend_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  FlameLegend *self = FLAME_LEGEND (object);

  switch (prop_id)
    {
    case PROP_VIEW:
      flame_legend_set_view (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_legend_class_init (FlameLegendClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = flame_legend_dispose;
  object_class->get_property = flame_legend_get_property;
  object_class->set_property = flame_legend_set_property;

  properties[PROP_VIEW] =
    g_param_spec_object ("view", NULL, NULL, FLAME_TYPE_GRAPH_VIEW,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "legend");
}

static void
flame_legend_init (FlameLegend *self)
{
  static const FlameChange scale[] = {
    FLAME_CHANGE_REGRESSION_DEEP, FLAME_CHANGE_REGRESSION_MEDIUM,
    FLAME_CHANGE_REGRESSION_LIGHT, FLAME_CHANGE_REGRESSION_VERY_LIGHT,
    FLAME_CHANGE_NEUTRAL,
    FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT, FLAME_CHANGE_IMPROVEMENT_LIGHT,
    FLAME_CHANGE_IMPROVEMENT_MEDIUM, FLAME_CHANGE_IMPROVEMENT_DEEP,
  };
  AdwStyleManager *sm = adw_style_manager_get_default ();
  GtkWidget *swatches;

  self->swatches = g_ptr_array_new ();
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_HORIZONTAL);
  gtk_box_set_spacing (GTK_BOX (self), 18);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Colour key"), -1);

  self->summary = gtk_label_new (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_width_chars (GTK_LABEL (self->summary), 12);
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_widget_add_css_class (self->summary, "caption");
  gtk_widget_add_css_class (self->summary, "dim-label");
  gtk_box_append (GTK_BOX (self), self->summary);

  self->scale_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  /* Translators: the regression end of the colour key */
  self->worse_label = add_label (GTK_BOX (self->scale_box), _("Slower"));
  swatches = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 1);
  for (guint i = 0; i < G_N_ELEMENTS (scale); i++)
    add_swatch (self, GTK_BOX (swatches), scale[i]);
  gtk_box_append (GTK_BOX (self->scale_box), swatches);
  /* Translators: the improvement end of the colour key */
  self->better_label = add_label (GTK_BOX (self->scale_box), _("Faster"));
  gtk_box_append (GTK_BOX (self), self->scale_box);

  self->new_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  add_swatch (self, GTK_BOX (self->new_box), FLAME_CHANGE_NEW);
  /* Translators: colour key: a path only the current profile has */
  add_label (GTK_BOX (self->new_box), C_("legend", "New"));
  gtk_box_append (GTK_BOX (self), self->new_box);

  self->removed_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  add_swatch (self, GTK_BOX (self->removed_box), FLAME_CHANGE_ELIDED);
  /* Translators: colour key: a path only the baseline has */
  self->removed_label = add_label (GTK_BOX (self->removed_box), C_("legend", "Removed"));
  gtk_box_append (GTK_BOX (self), self->removed_box);

  g_signal_connect_object (sm, "notify::dark", G_CALLBACK (redraw_swatches), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (sm, "notify::high-contrast", G_CALLBACK (redraw_swatches),
                           self, G_CONNECT_SWAPPED);
  update (self);
}

/* flame-graph-view.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * FlameGraphView draws a FlameLayoutSource with the shared FlamePainter,
 * so the widget shows exactly what the PNG/SVG exports and the render
 * tests see. Three levels of caching keep it fluid on big profiles:
 *
 * - The layout depends only on (source, zoom, width, orientation); it is
 *   rebuilt when one of those changes, never on hover, scroll or a
 *   palette switch. flame_layout_new() is proportional to the frames it
 *   places (about 1.4 ms for the 187 MB bench pair at 1920 px), so it
 *   runs on the main thread.
 *
 * - The painted viewport (background, legend, frames, labels, search
 *   fading, the highlighted function) is painted once into an image
 *   surface and kept as one cairo render node that only paints that
 *   surface. It is repainted after a layout change, a scroll, a resize,
 *   a palette or a search change. The GL renderer caches the node's
 *   texture as long as the node lives; the cairo renderer blits the
 *   surface without converting it, as it would for a GdkTexture.
 *
 * - Hover and selection are drawn as a few GSK nodes above the cached
 *   node, so moving the pointer costs a blit plus two rectangles.
 *
 * The widget is a GtkScrollable and always viewport-sized: a
 * GtkScrolledWindow drives its vadjustment, and only the visible rows are
 * painted (a widget as tall as the graph would have every row painted on
 * every repaint). The scroll position is kept as a distance from the
 * root row, so the roots stay in view when a resize or zoom changes how
 * tall the graph is.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>

#include "flame-diff.h"
#include "flame-graph-view.h"
#include "flame-graph-view-private.h"
#include "flame-painter.h"
#include "flame-tooltip.h"

#define ROW_HEIGHT 17.0

struct _FlameGraphView
{
  GtkWidget          parent_instance;

  /* Owned References */
  FlameLayoutSource *source;
  FlamePainter      *painter;
  FlameLayout       *layout;        /* (source, zoom, width, orientation) */
  GskRenderNode     *graph_node;    /* the painted viewport, overlays aside */
  guint              paint_count;   /* snapshots that drew a source's graph */
  GtkAdjustment     *hadjustment;
  GtkAdjustment     *vadjustment;
  char              *search_text;
  GRegex            *regex;
  guint8            *frame_match;   /* per frame id; NULL: no search */
  GArray            *match_frames;  /* layout frame indices, by (x, depth) */
  char              *a11y_label;

  /* Borrowed References */
  AdwStyleManager   *style_manager;

  FlameOrientation   orientation;
  FlameGraphPalette  palette_style;
  guint32            zoom_node;
  guint32            selected_node;
  guint32            highlight_frame;
  gint               hover_frame;   /* index in layout, or -1 */
  guint              n_matches;
  gdouble            match_current_ms;
  gdouble            match_baseline_ms;
  gdouble            legend_height;
  gdouble            scroll_from_root;
  int                texture_width;
  int                texture_height;

  guint              hscroll_policy : 1;
  guint              vscroll_policy : 1;
  guint              search_regex : 1;
  guint              search_valid : 1;
  guint              show_legend : 1;
};

enum {
  PROP_0,
  PROP_SOURCE,
  PROP_ORIENTATION,
  PROP_PALETTE_STYLE,
  PROP_ZOOM_NODE,
  PROP_SELECTED_NODE,
  PROP_SEARCH_TEXT,
  PROP_SEARCH_REGEX,
  PROP_SEARCH_VALID,
  PROP_N_MATCHES,
  PROP_SHOW_LEGEND,
  N_PROPS,

  /* GtkScrollable */
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

enum {
  FRAME_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE (FlameGraphView, flame_graph_view, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

/* -- small helpers ------------------------------------------------------ */

static inline GdkRGBA
rgba (FlameRgb c,
      float    alpha)
{
  return (GdkRGBA) { c.r / 255.f, c.g / 255.f, c.b / 255.f, alpha };
}

static const FlameTree *
tree_of (FlameGraphView *self)
{
  return self->source != NULL ? flame_layout_source_get_tree (self->source) : NULL;
}

static gboolean
node_is_valid (FlameGraphView *self,
               guint32         node)
{
  const FlameTree *tree = tree_of (self);

  return tree != NULL && node < tree->n_nodes &&
         (node == FLAME_TREE_ROOT || flame_layout_source_get_weight (self->source, node) > 0);
}

static gdouble
graph_top (FlameGraphView *self)
{
  return self->show_legend && self->source != NULL ? self->legend_height : 0;
}

static gdouble
page_height (FlameGraphView *self)
{
  return MAX (0, gtk_widget_get_height (GTK_WIDGET (self)) - graph_top (self));
}

/* Widget y of the layout's y = 0. A graph shorter than the viewport sits
 * at the bottom in flame orientation (roots at the bottom edge). */
static gdouble
layout_offset (FlameGraphView *self)
{
  gdouble content = self->layout != NULL ? flame_layout_get_height (self->layout) : 0;
  gdouble page = page_height (self);

  if (content < page)
    return graph_top (self) + (self->orientation == FLAME_ORIENTATION_FLAME ? page - content : 0);
  return graph_top (self) - gtk_adjustment_get_value (self->vadjustment);
}

static void
invalidate_texture (FlameGraphView *self)
{
  g_clear_pointer (&self->graph_node, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
invalidate_layout (FlameGraphView *self)
{
  g_clear_pointer (&self->layout, flame_layout_free);
  g_clear_pointer (&self->match_frames, g_array_unref);
  self->hover_frame = -1;
  invalidate_texture (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

/* -- palette ------------------------------------------------------------ */

static void
update_palette (FlameGraphView *self)
{
  gboolean dark = adw_style_manager_get_dark (self->style_manager);
  gboolean hc = adw_style_manager_get_high_contrast (self->style_manager);
  const FlamePalette *palette;

  switch (self->palette_style)
    {
    case FLAME_GRAPH_PALETTE_LIGHT:
      palette = flame_palette_get (FLAME_PALETTE_LIGHT);
      break;
    case FLAME_GRAPH_PALETTE_DARK:
      palette = flame_palette_get (FLAME_PALETTE_DARK);
      break;
    case FLAME_GRAPH_PALETTE_HIGH_CONTRAST:
      palette = flame_palette_for (dark, TRUE);
      break;
    case FLAME_GRAPH_PALETTE_AUTO:
    default:
      palette = flame_palette_for (dark, hc);
      break;
    }

  if (palette != flame_painter_get_palette (self->painter))
    {
      flame_painter_set_palette (self->painter, palette);
      invalidate_texture (self);
    }
}

static void
on_style_changed (FlameGraphView  *self,
                  GParamSpec      *pspec,
                  AdwStyleManager *manager)
{
  g_assert (FLAME_IS_GRAPH_VIEW (self));
  g_assert (ADW_IS_STYLE_MANAGER (manager));

  update_palette (self);
}

/* -- search ------------------------------------------------------------- */

static gboolean
node_matches (FlameLayoutSource *source,
              guint32            node,
              gpointer           user_data)
{
  FlameGraphView *self = user_data;

  return self->frame_match[flame_layout_source_get_tree (source)->nodes[node].frame];
}

static void
node_totals (FlameGraphView *self,
             guint32         node,
             gdouble        *current_ms,
             gdouble        *baseline_ms)
{
  FlameDiff *diff = flame_layout_source_get_diff (self->source);

  if (diff != NULL)
    {
      FlameDiffValues v;

      flame_diff_get_values (diff, tree_of (self), node, &v);
      *current_ms = v.total_c;
      *baseline_ms = v.total_b;
    }
  else
    {
      *current_ms = flame_layout_source_get_weight (self->source, node);
      *baseline_ms = 0;
    }
}

/* The matches in the zoomed subtree, over the whole tree (not only the
 * frames wide enough to draw), so the count and the times do not change
 * with the window width. A match inside another match adds nothing: its
 * time is part of the outer one's total. One pass, because a child's
 * index is always larger than its parent's. */
static void
update_match_totals (FlameGraphView *self)
{
  const FlameTree *tree = tree_of (self);
  guint n_matches = 0;
  gdouble cur = 0, base = 0;

  if (tree != NULL && self->frame_match != NULL)
    {
      /* 0: outside the zoom subtree, 1: inside, 2: inside a match */
      g_autofree guint8 *state = g_malloc0 (tree->n_nodes);
      guint32 zoom = self->zoom_node;

      state[zoom] = 1;
      for (guint32 n = zoom; n < tree->n_nodes; n++)
        {
          guint8 s = n == zoom ? 1 : state[tree->nodes[n].parent];

          if (s == 0 ||
              (n != FLAME_TREE_ROOT && !(flame_layout_source_get_weight (self->source, n) > 0)))
            continue;
          if (n != FLAME_TREE_ROOT && self->frame_match[tree->nodes[n].frame])
            {
              n_matches++;
              if (s == 1)
                {
                  gdouble c, b;

                  node_totals (self, n, &c, &b);
                  cur += c;
                  base += b;
                }
              s = 2;
            }
          state[n] = s;
        }
    }

  self->match_current_ms = cur;
  self->match_baseline_ms = base;
  if (self->n_matches != n_matches)
    {
      self->n_matches = n_matches;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_MATCHES]);
    }
}

static void
apply_search_to_layout (FlameGraphView *self)
{
  g_clear_pointer (&self->match_frames, g_array_unref);
  if (self->layout != NULL)
    flame_layout_search_func (self->layout, self->frame_match != NULL ? node_matches : NULL, self);
}

static void
update_search (FlameGraphView *self)
{
  gboolean valid = TRUE;

  g_clear_pointer (&self->regex, g_regex_unref);
  g_clear_pointer (&self->frame_match, g_free);

  if (self->source != NULL && self->search_text != NULL && self->search_text[0] != 0)
    {
      FlameFrames *frames = flame_layout_source_get_frames (self->source);
      guint n = flame_frames_count (frames);

      if (self->search_regex)
        {
          g_autoptr(GError) error = NULL;

          self->regex = g_regex_new (self->search_text, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0,
                                     &error);
          valid = self->regex != NULL;
        }
      if (valid)
        {
          /* per function, not per node: 50 000 names instead of a
           * million nodes for the bench pair */
          self->frame_match = g_malloc0 (MAX (n, 1));
          for (guint i = 0; i < n; i++)
            {
              const char *name = flame_frames_get_name (frames, i);

              if (name == NULL)
                continue;
              self->frame_match[i] = self->regex != NULL
                ? g_regex_match (self->regex, name, 0, NULL)
                : strcasestr (name, self->search_text) != NULL;
            }
        }
    }

  if (self->search_valid != valid)
    {
      self->search_valid = valid;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_VALID]);
    }
  apply_search_to_layout (self);
  update_match_totals (self);
  invalidate_texture (self);
}

/* -- layout and scrolling ---------------------------------------------- */

static void
update_adjustments (FlameGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  gdouble page = page_height (self);
  gdouble content = self->layout != NULL ? flame_layout_get_height (self->layout) : 0;
  gdouble upper = MAX (content, page);
  gdouble value;

  self->scroll_from_root = CLAMP (self->scroll_from_root, 0, upper - page);
  value = self->orientation == FLAME_ORIENTATION_FLAME
    ? upper - page - self->scroll_from_root : self->scroll_from_root;

  gtk_adjustment_configure (self->hadjustment, 0, 0, width, width * .1, width * .9, width);
  gtk_adjustment_configure (self->vadjustment, value, 0, upper, ROW_HEIGHT, page * .9, page);
}

static gboolean
ensure_layout (FlameGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  FlameLayoutOptions opts;

  if (self->source == NULL || width <= 0)
    return FALSE;
  if (self->layout != NULL && flame_layout_get_options (self->layout)->width == width)
    return TRUE;

  g_clear_pointer (&self->layout, flame_layout_free);
  flame_layout_options_init (&opts);
  opts.width = width;
  opts.row_height = ROW_HEIGHT;
  opts.zoom = self->zoom_node;
  opts.orientation = self->orientation;
  self->layout = flame_layout_new (self->source, &opts);
  self->hover_frame = -1;
  apply_search_to_layout (self);

  if (self->show_legend)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cairo_t *cr = cairo_create (surface);

      self->legend_height = flame_painter_paint_legend (self->painter, cr, self->source, width,
                                                        FALSE);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
    }
  else
    self->legend_height = 0;

  g_clear_pointer (&self->graph_node, gsk_render_node_unref);
  update_adjustments (self);
  return TRUE;
}

static void
on_vadjustment_value_changed (FlameGraphView *self,
                              GtkAdjustment  *adj)
{
  gdouble value = gtk_adjustment_get_value (adj);

  g_assert (FLAME_IS_GRAPH_VIEW (self));
  g_assert (GTK_IS_ADJUSTMENT (adj));

  if (self->orientation == FLAME_ORIENTATION_FLAME)
    self->scroll_from_root = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj) -
                             value;
  else
    self->scroll_from_root = value;
  self->hover_frame = -1;
  invalidate_texture (self);
}

static void
set_adjustment (FlameGraphView  *self,
                GtkAdjustment  **slot,
                GtkAdjustment   *adj,
                gboolean         vertical)
{
  if (adj == NULL)
    adj = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  if (*slot == adj)
    return;
  if (*slot != NULL && vertical)
    g_signal_handlers_disconnect_by_func (*slot, on_vadjustment_value_changed, self);
  g_set_object (slot, adj);
  if (vertical)
    g_signal_connect_object (adj, "value-changed", G_CALLBACK (on_vadjustment_value_changed),
                             self, G_CONNECT_SWAPPED);
  update_adjustments (self);
  g_object_notify (G_OBJECT (self), vertical ? "vadjustment" : "hadjustment");
}

/* Scrolls the least needed to show frame @i's row. */
static void
scroll_to_frame (FlameGraphView *self,
                 gint            i)
{
  const FlameLayoutFrame *f;
  gdouble value, page, y;

  if (self->layout == NULL || i < 0)
    return;
  f = flame_layout_get_frame (self->layout, i);
  value = gtk_adjustment_get_value (self->vadjustment);
  page = gtk_adjustment_get_page_size (self->vadjustment);
  y = f->y;
  if (y < value)
    gtk_adjustment_set_value (self->vadjustment, y);
  else if (y + ROW_HEIGHT > value + page)
    gtk_adjustment_set_value (self->vadjustment, y + ROW_HEIGHT - page);
}

/* -- accessibility ------------------------------------------------------ */

static void
update_accessible (FlameGraphView *self)
{
  g_autofree char *description = NULL;

  g_clear_pointer (&self->a11y_label, g_free);
  if (self->source != NULL && node_is_valid (self, self->selected_node))
    {
      g_autofree char *text = flame_tooltip_text (self->source, self->selected_node,
                                                  self->zoom_node);

      /* the label names the frame, so a screen reader speaks it when the
       * selection moves; the numbers follow in the description */
      self->a11y_label = g_strdup_printf ("Flame graph, selected frame: %s",
                                          flame_layout_source_get_name (self->source,
                                                                        self->selected_node));
      description = g_strdelimit (g_steal_pointer (&text), "\n", ' ');
    }
  else if (self->source != NULL)
    self->a11y_label = g_strdup_printf ("Flame graph, zoomed to %s",
                                        flame_layout_source_get_name (self->source,
                                                                      self->zoom_node));
  else
    self->a11y_label = g_strdup ("Flame graph, empty");

  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  self->a11y_label, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description ? description : "", -1);
}

/* -- painting ----------------------------------------------------------- */

static void
outline_rect (cairo_t  *cr,
              FlameRgb  c,
              gdouble   x,
              gdouble   y,
              gdouble   w,
              gdouble   h)
{
  if (w < 4 || h < 4)
    return;
  cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, x + 1, y + 1, w - 2, h - 2);
  cairo_stroke (cr);
}

static void
paint_texture (FlameGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  const FlamePalette *palette = flame_painter_get_palette (self->painter);
  cairo_surface_t *surface;
  GtkSnapshot *snapshot;
  cairo_t *cr;
  gdouble top = graph_top (self);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
  cairo_surface_set_device_scale (surface, scale, scale);
  cr = cairo_create (surface);

  cairo_set_source_rgb (cr, palette->background.r / 255.0, palette->background.g / 255.0,
                        palette->background.b / 255.0);
  cairo_paint (cr);

  if (top > 0)
    {
      flame_painter_paint_legend (self->painter, cr, self->source, width, TRUE);
      /* a hairline keeps the legend apart from a graph that reaches it */
      cairo_set_source_rgba (cr, palette->foreground.r / 255.0, palette->foreground.g / 255.0,
                             palette->foreground.b / 255.0, .15);
      cairo_rectangle (cr, 0, top - 1, width, 1);
      cairo_fill (cr);
    }

  cairo_save (cr);
  cairo_rectangle (cr, 0, top, width, height - top);
  cairo_clip (cr);
  cairo_translate (cr, 0, layout_offset (self));
  flame_painter_paint (self->painter, cr, self->layout);

  /* the function chosen in the report panel, wherever it is called */
  if (self->highlight_frame != FLAME_TREE_NONE)
    {
      const FlameTree *tree = tree_of (self);
      guint n = flame_layout_get_n_frames (self->layout);

      for (guint i = 0; i < n; i++)
        {
          const FlameLayoutFrame *f = flame_layout_get_frame (self->layout, i);
          gdouble x, y, w, h;

          if ((f->flags & FLAME_LAYOUT_FRAME_MERGED) || f->node == FLAME_TREE_ROOT ||
              tree->nodes[f->node].frame != self->highlight_frame)
            continue;
          if (flame_painter_frame_rect (self->layout, i, &x, &y, &w, &h))
            outline_rect (cr, palette->highlight, x, y, w, h);
        }
    }
  cairo_restore (cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  /* the node's recording keeps a reference to the surface */
  snapshot = gtk_snapshot_new ();
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_set_source_surface (cr, surface, 0, 0);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_clear_pointer (&self->graph_node, gsk_render_node_unref);
  self->graph_node = gtk_snapshot_free_to_node (snapshot);
  self->texture_width = width;
  self->texture_height = height;
}

gboolean
_flame_graph_view_frame_bounds (FlameGraphView  *self,
                                guint            i,
                                graphene_rect_t *bounds)
{
  gdouble x, y, w, h;

  if (self->layout == NULL || i >= flame_layout_get_n_frames (self->layout) ||
      !flame_painter_frame_rect (self->layout, i, &x, &y, &w, &h))
    return FALSE;
  graphene_rect_init (bounds, x, y + layout_offset (self), w, h);
  return TRUE;
}

static void
flame_graph_view_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  const FlamePalette *palette = flame_painter_get_palette (self->painter);
  graphene_rect_t r;
  gint sel;

  if (!ensure_layout (self))
    return;
  if (self->graph_node == NULL || self->texture_width != width || self->texture_height != height)
    paint_texture (self);
  gtk_snapshot_append_node (snapshot, self->graph_node);
  self->paint_count++;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, graph_top (self), width, height));

  if (self->hover_frame >= 0 && _flame_graph_view_frame_bounds (self, self->hover_frame, &r))
    {
      /* darken on light palettes, lighten on dark ones: the label's
       * contrast against its fill stays about the same */
      GdkRGBA tint = palette->dark ? (GdkRGBA) { 1, 1, 1, .16f } : (GdkRGBA) { 0, 0, 0, .10f };
      GdkRGBA line = rgba (palette->foreground, .6f);
      float widths[4] = { 1, 1, 1, 1 };
      GdkRGBA colors[4] = { line, line, line, line };
      GskRoundedRect rr;

      gtk_snapshot_append_color (snapshot, &tint, &r);
      gsk_rounded_rect_init_from_rect (&rr, &r, 0);
      if (r.size.width >= 3)
        gtk_snapshot_append_border (snapshot, &rr, widths, colors);
    }

  sel = self->selected_node != FLAME_TREE_NONE && self->layout != NULL
    ? flame_layout_find_node (self->layout, self->selected_node) : -1;
  if (sel >= 0 && _flame_graph_view_frame_bounds (self, sel, &r))
    {
      /* the focus colour when the graph has the keyboard, like a list row */
      GdkRGBA c = rgba (palette->highlight, 1);
      float widths[4] = { 2, 2, 2, 2 };
      GdkRGBA colors[4];
      GskRoundedRect rr;

      if (gtk_widget_has_focus (widget))
        {
          /* with the keyboard here: a dark ring outside and a light one
           * inside, so one of them contrasts with any frame colour, red
           * or blue, light or dark palette (a single accent colour
           * vanishes on blue frames) */
          graphene_rect_t inner = r;

          c = (GdkRGBA) { 0.05f, 0.05f, 0.08f, 1 };
          for (guint k = 0; k < 4; k++)
            colors[k] = c;
          graphene_rect_inset (&r, -2, -2);
          gsk_rounded_rect_init_from_rect (&rr, &r, 3);
          gtk_snapshot_append_border (snapshot, &rr, widths, colors);
          if (inner.size.width >= 6)
            {
              c = (GdkRGBA) { 1, 1, 1, 1 };
              for (guint k = 0; k < 4; k++)
                colors[k] = c;
              gsk_rounded_rect_init_from_rect (&rr, &inner, 1);
              gtk_snapshot_append_border (snapshot, &rr, widths, colors);
            }
        }
      else
        {
          for (guint k = 0; k < 4; k++)
            colors[k] = c;
          graphene_rect_inset (&r, -1, -1);
          gsk_rounded_rect_init_from_rect (&rr, &r, 2);
          gtk_snapshot_append_border (snapshot, &rr, widths, colors);
        }
    }

  gtk_snapshot_pop (snapshot);
}

/* -- sizing ------------------------------------------------------------- */

static void
flame_graph_view_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  /* viewport-sized: the scrolled window shows the rest */
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 120;
      *natural = 800;
    }
  else
    {
      *minimum = (int) ROW_HEIGHT * 4;
      *natural = (int) ROW_HEIGHT * 24;
    }
}

static void
flame_graph_view_size_allocate (GtkWidget *widget,
                                int        width,
                                int        height,
                                int        baseline)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (widget);

  if (self->texture_width != width || self->texture_height != height)
    g_clear_pointer (&self->graph_node, gsk_render_node_unref);
  ensure_layout (self);
  update_adjustments (self);
}

/* -- pointer ------------------------------------------------------------ */

static gint
frame_at (FlameGraphView *self,
          gdouble         x,
          gdouble         y)
{
  if (!ensure_layout (self) || y < graph_top (self))
    return -1;
  return flame_layout_hit_test (self->layout, x, y - layout_offset (self));
}

guint32
flame_graph_view_get_node_at (FlameGraphView *self,
                              gdouble         x,
                              gdouble         y)
{
  gint i;

  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FLAME_TREE_NONE);

  i = frame_at (self, x, y);
  if (i < 0 || (flame_layout_get_frame (self->layout, i)->flags & FLAME_LAYOUT_FRAME_MERGED))
    return FLAME_TREE_NONE;
  return flame_layout_get_frame (self->layout, i)->node;
}

void
_flame_graph_view_hover (FlameGraphView *self,
                         gdouble         x,
                         gdouble         y)
{
  gint i = x < 0 ? -1 : frame_at (self, x, y);

  if (i == self->hover_frame)
    return;
  self->hover_frame = i;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), i >= 0 ? "pointer" : NULL);
  /* only the overlay changes: the texture is reused */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (FlameGraphView           *self,
           gdouble                   x,
           gdouble                   y,
           GtkEventControllerMotion *motion)
{
  g_assert (FLAME_IS_GRAPH_VIEW (self));
  g_assert (GTK_IS_EVENT_CONTROLLER_MOTION (motion));

  _flame_graph_view_hover (self, x, y);
}

static void
on_leave (FlameGraphView           *self,
          GtkEventControllerMotion *motion)
{
  g_assert (FLAME_IS_GRAPH_VIEW (self));
  g_assert (GTK_IS_EVENT_CONTROLLER_MOTION (motion));

  _flame_graph_view_hover (self, -1, -1);
}

/* The shared text (the SVG export's <title> too), merged frames included */
static char *
tooltip_for_frame (FlameGraphView *self,
                   gint            i)
{
  return flame_tooltip_text_for_frame (self->layout, i);
}

char *
_flame_graph_view_tooltip_text_at (FlameGraphView *self,
                                   gdouble         x,
                                   gdouble         y)
{
  gint i = frame_at (self, x, y);

  return i >= 0 ? tooltip_for_frame (self, i) : NULL;
}

static gboolean
flame_graph_view_query_tooltip (GtkWidget  *widget,
                                int         x,
                                int         y,
                                gboolean    keyboard_mode,
                                GtkTooltip *tooltip)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (widget);
  g_autofree char *text = NULL;
  graphene_rect_t r;
  gint i;

  if (keyboard_mode)
    i = self->layout != NULL && self->selected_node != FLAME_TREE_NONE
      ? flame_layout_find_node (self->layout, self->selected_node) : -1;
  else
    i = frame_at (self, x, y);
  if (i < 0)
    return FALSE;

  text = tooltip_for_frame (self, i);
  gtk_tooltip_set_text (tooltip, text);
  /* a new tooltip when the pointer crosses into another frame */
  if (_flame_graph_view_frame_bounds (self, i, &r))
    gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) {
                                floor (r.origin.x), floor (r.origin.y),
                                MAX (1, ceil (r.size.width)), MAX (1, ceil (r.size.height)) });
  return TRUE;
}

static void
activate_node (FlameGraphView *self,
               guint32         node)
{
  flame_graph_view_set_selected_node (self, node);
  flame_graph_view_zoom_to (self, node);
  g_signal_emit (self, signals[FRAME_ACTIVATED], 0, node);
}

void
_flame_graph_view_click (FlameGraphView *self,
                         gdouble         x,
                         gdouble         y)
{
  guint32 node = flame_graph_view_get_node_at (self, x, y);

  if (node != FLAME_TREE_NONE)
    activate_node (self, node);
}

static void
on_pressed (FlameGraphView  *self,
            int              n_press,
            gdouble          x,
            gdouble          y,
            GtkGestureClick *gesture)
{
  g_assert (FLAME_IS_GRAPH_VIEW (self));
  g_assert (GTK_IS_GESTURE_CLICK (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
on_released (FlameGraphView  *self,
             int              n_press,
             gdouble          x,
             gdouble          y,
             GtkGestureClick *gesture)
{
  g_assert (FLAME_IS_GRAPH_VIEW (self));
  g_assert (GTK_IS_GESTURE_CLICK (gesture));

  if (n_press == 1)
    _flame_graph_view_click (self, x, y);
}

/* -- keyboard ----------------------------------------------------------- */

typedef enum { MOVE_PARENT, MOVE_CHILD, MOVE_PREVIOUS, MOVE_NEXT } Move;

static void
move_selection (FlameGraphView *self,
                Move            move)
{
  const FlameTree *tree;
  guint32 sel = self->selected_node;
  gint i;

  if (!ensure_layout (self))
    return;
  tree = tree_of (self);
  i = sel != FLAME_TREE_NONE ? flame_layout_find_node (self->layout, sel) : -1;
  if (i < 0)
    {
      /* nothing (visible) selected yet: start at the zoom root */
      flame_graph_view_set_selected_node (self, self->zoom_node);
      return;
    }

  switch (move)
    {
    case MOVE_PARENT:
      if (sel != FLAME_TREE_ROOT)
        flame_graph_view_set_selected_node (self, tree->nodes[sel].parent);
      break;

    case MOVE_CHILD:
      {
        const FlameLayoutFrame *f = flame_layout_get_frame (self->layout, i);
        guint first, n;
        gint best = -1;

        /* the widest child drawn, the one a reader most likely wants */
        flame_layout_get_row (self->layout, f->depth + 1, &first, &n);
        for (guint k = first; k < first + n; k++)
          {
            const FlameLayoutFrame *c = flame_layout_get_frame (self->layout, k);

            if (c->flags & FLAME_LAYOUT_FRAME_MERGED || c->node == FLAME_TREE_ROOT ||
                tree->nodes[c->node].parent != sel)
              continue;
            if (best < 0 || c->width > flame_layout_get_frame (self->layout, best)->width)
              best = k;
          }
        if (best >= 0)
          flame_graph_view_set_selected_node (self,
                                              flame_layout_get_frame (self->layout, best)->node);
      }
      break;

    case MOVE_PREVIOUS:
    case MOVE_NEXT:
      {
        const FlameLayoutFrame *f = flame_layout_get_frame (self->layout, i);
        guint first, n;
        gint step = move == MOVE_NEXT ? 1 : -1;

        /* the neighbour in the row: a sibling, or a cousin at the edge */
        flame_layout_get_row (self->layout, f->depth, &first, &n);
        for (gint k = i + step; k >= (gint) first && k < (gint) (first + n); k += step)
          {
            const FlameLayoutFrame *c = flame_layout_get_frame (self->layout, k);

            if (!(c->flags & FLAME_LAYOUT_FRAME_MERGED))
              {
                flame_graph_view_set_selected_node (self, c->node);
                break;
              }
          }
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
action_select (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (widget);
  gboolean flame = self->orientation == FLAME_ORIENTATION_FLAME;

  /* arrows are visual: up is the callee in a flame graph, the caller in
   * an icicle graph */
  if (g_str_equal (action_name, "graph.select-up"))
    move_selection (self, flame ? MOVE_CHILD : MOVE_PARENT);
  else if (g_str_equal (action_name, "graph.select-down"))
    move_selection (self, flame ? MOVE_PARENT : MOVE_CHILD);
  else if (g_str_equal (action_name, "graph.select-left"))
    move_selection (self, MOVE_PREVIOUS);
  else if (g_str_equal (action_name, "graph.select-right"))
    move_selection (self, MOVE_NEXT);
  else if (g_str_equal (action_name, "graph.select-parent"))
    move_selection (self, MOVE_PARENT);
  else if (g_str_equal (action_name, "graph.select-child"))
    move_selection (self, MOVE_CHILD);
}

static void
action_zoom_out (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  flame_graph_view_zoom_out (FLAME_GRAPH_VIEW (widget));
}

static void
action_reset_zoom (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  flame_graph_view_reset_zoom (FLAME_GRAPH_VIEW (widget));
}

static void
action_activate (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (widget);

  if (node_is_valid (self, self->selected_node))
    activate_node (self, self->selected_node);
}

static void
action_match (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  if (g_str_equal (action_name, "graph.next-match"))
    flame_graph_view_next_match (FLAME_GRAPH_VIEW (widget));
  else
    flame_graph_view_previous_match (FLAME_GRAPH_VIEW (widget));
}

static void
update_actions (FlameGraphView *self)
{
  gboolean zoomed = self->source != NULL && self->zoom_node != FLAME_TREE_ROOT;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "graph.reset-zoom", zoomed);
}

/* -- GObject ------------------------------------------------------------ */

static void
flame_graph_view_focus_changed (FlameGraphView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* A focus stop must show where the keyboard is: arriving (by Tab or a
 * click) with nothing visible selected selects the zoom root, so the
 * ring is drawn and the arrows have somewhere to start. */
static void
flame_graph_view_focus_enter (FlameGraphView *self)
{
  /* (before the first allocation there is no layout yet: the root is
   * always visible, so select it anyway) */
  if (self->source != NULL
      && (self->selected_node == FLAME_TREE_NONE
          || (ensure_layout (self)
              && flame_layout_find_node (self->layout, self->selected_node) < 0)))
    flame_graph_view_set_selected_node (self, self->zoom_node);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_scale_factor_changed (FlameGraphView *self)
{
  g_assert (FLAME_IS_GRAPH_VIEW (self));

  invalidate_texture (self);
}

static void
flame_graph_view_dispose (GObject *object)
{
  FlameGraphView *self = (FlameGraphView *) object;

  g_clear_pointer (&self->layout, flame_layout_free);
  g_clear_pointer (&self->graph_node, gsk_render_node_unref);
  g_clear_object (&self->source);
  g_clear_object (&self->painter);
  g_clear_object (&self->hadjustment);
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, on_vadjustment_value_changed, self);
  g_clear_object (&self->vadjustment);
  g_clear_pointer (&self->match_frames, g_array_unref);

  G_OBJECT_CLASS (flame_graph_view_parent_class)->dispose (object);
}

static void
flame_graph_view_finalize (GObject *object)
{
  FlameGraphView *self = (FlameGraphView *) object;

  g_clear_pointer (&self->search_text, g_free);
  g_clear_pointer (&self->regex, g_regex_unref);
  g_clear_pointer (&self->frame_match, g_free);
  g_clear_pointer (&self->a11y_label, g_free);

  G_OBJECT_CLASS (flame_graph_view_parent_class)->finalize (object);
}

static void
flame_graph_view_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_object (value, self->source);
      break;
    case PROP_ORIENTATION:
      g_value_set_enum (value, self->orientation);
      break;
    case PROP_PALETTE_STYLE:
      g_value_set_enum (value, self->palette_style);
      break;
    case PROP_ZOOM_NODE:
      g_value_set_uint (value, self->zoom_node);
      break;
    case PROP_SELECTED_NODE:
      g_value_set_uint (value, self->selected_node);
      break;
    case PROP_SEARCH_TEXT:
      g_value_set_string (value, self->search_text);
      break;
    case PROP_SEARCH_REGEX:
      g_value_set_boolean (value, self->search_regex);
      break;
    case PROP_SEARCH_VALID:
      g_value_set_boolean (value, self->search_valid);
      break;
    case PROP_N_MATCHES:
      g_value_set_uint (value, self->n_matches);
      break;
    case PROP_SHOW_LEGEND:
      g_value_set_boolean (value, self->show_legend);
      break;
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;
    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;
    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;
    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_graph_view_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  FlameGraphView *self = FLAME_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      flame_graph_view_set_source (self, g_value_get_object (value));
      break;
    case PROP_ORIENTATION:
      flame_graph_view_set_orientation (self, g_value_get_enum (value));
      break;
    case PROP_PALETTE_STYLE:
      flame_graph_view_set_palette_style (self, g_value_get_enum (value));
      break;
    case PROP_ZOOM_NODE:
      flame_graph_view_zoom_to (self, g_value_get_uint (value));
      break;
    case PROP_SELECTED_NODE:
      flame_graph_view_set_selected_node (self, g_value_get_uint (value));
      break;
    case PROP_SEARCH_TEXT:
      flame_graph_view_set_search_text (self, g_value_get_string (value));
      break;
    case PROP_SEARCH_REGEX:
      flame_graph_view_set_search_regex (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_LEGEND:
      flame_graph_view_set_show_legend (self, g_value_get_boolean (value));
      break;
    case PROP_HADJUSTMENT:
      set_adjustment (self, &self->hadjustment, g_value_get_object (value), FALSE);
      break;
    case PROP_VADJUSTMENT:
      set_adjustment (self, &self->vadjustment, g_value_get_object (value), TRUE);
      break;
    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      gtk_widget_queue_resize (GTK_WIDGET (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_graph_view_class_init (FlameGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->dispose = flame_graph_view_dispose;
  object_class->finalize = flame_graph_view_finalize;
  object_class->get_property = flame_graph_view_get_property;
  object_class->set_property = flame_graph_view_set_property;

  widget_class->snapshot = flame_graph_view_snapshot;
  widget_class->measure = flame_graph_view_measure;
  widget_class->size_allocate = flame_graph_view_size_allocate;
  widget_class->query_tooltip = flame_graph_view_query_tooltip;

  properties[PROP_SOURCE] =
    g_param_spec_object ("source", NULL, NULL, FLAME_TYPE_LAYOUT_SOURCE, rw);
  properties[PROP_ORIENTATION] =
    g_param_spec_enum ("orientation", NULL, NULL, FLAME_TYPE_ORIENTATION,
                       FLAME_ORIENTATION_FLAME, rw);
  properties[PROP_PALETTE_STYLE] =
    g_param_spec_enum ("palette-style", NULL, NULL, FLAME_TYPE_GRAPH_PALETTE,
                       FLAME_GRAPH_PALETTE_AUTO, rw);
  properties[PROP_ZOOM_NODE] =
    g_param_spec_uint ("zoom-node", NULL, NULL, 0, G_MAXUINT32, FLAME_TREE_ROOT, rw);
  properties[PROP_SELECTED_NODE] =
    g_param_spec_uint ("selected-node", NULL, NULL, 0, G_MAXUINT32, FLAME_TREE_NONE, rw);
  properties[PROP_SEARCH_TEXT] =
    g_param_spec_string ("search-text", NULL, NULL, NULL, rw);
  properties[PROP_SEARCH_REGEX] =
    g_param_spec_boolean ("search-regex", NULL, NULL, FALSE, rw);
  properties[PROP_SEARCH_VALID] =
    g_param_spec_boolean ("search-valid", NULL, NULL, TRUE, ro);
  properties[PROP_N_MATCHES] =
    g_param_spec_uint ("n-matches", NULL, NULL, 0, G_MAXUINT, 0, ro);
  properties[PROP_SHOW_LEGEND] =
    g_param_spec_boolean ("show-legend", NULL, NULL, TRUE, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  /**
   * FlameGraphView::frame-activated:
   * @node: the tree node clicked or activated with Enter
   */
  signals[FRAME_ACTIVATED] =
    g_signal_new ("frame-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "graph.zoom-out", NULL, action_zoom_out);
  gtk_widget_class_install_action (widget_class, "graph.reset-zoom", NULL, action_reset_zoom);
  gtk_widget_class_install_action (widget_class, "graph.activate-selected", NULL, action_activate);
  gtk_widget_class_install_action (widget_class, "graph.select-up", NULL, action_select);
  gtk_widget_class_install_action (widget_class, "graph.select-down", NULL, action_select);
  gtk_widget_class_install_action (widget_class, "graph.select-left", NULL, action_select);
  gtk_widget_class_install_action (widget_class, "graph.select-right", NULL, action_select);
  gtk_widget_class_install_action (widget_class, "graph.select-parent", NULL, action_select);
  gtk_widget_class_install_action (widget_class, "graph.select-child", NULL, action_select);
  gtk_widget_class_install_action (widget_class, "graph.next-match", NULL, action_match);
  gtk_widget_class_install_action (widget_class, "graph.previous-match", NULL, action_match);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "graph.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_BackSpace, 0, "graph.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK,
                                       "graph.reset-zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK,
                                       "graph.reset-zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "graph.reset-zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, 0, "graph.activate-selected",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Enter, 0, "graph.activate-selected",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, 0, "graph.activate-selected",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, 0, "graph.select-up", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Up, 0, "graph.select-up", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, 0, "graph.select-down", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Down, 0, "graph.select-down", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "graph.select-left", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Left, 0, "graph.select-left", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "graph.select-right", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Right, 0, "graph.select-right",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK,
                                       "graph.next-match", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "graph.previous-match", NULL);

  gtk_widget_class_set_css_name (widget_class, "flamegraph");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TREE);
}

static void
flame_graph_view_init (FlameGraphView *self)
{
  GtkEventController *controller;
  GtkGesture *click;

  self->painter = flame_painter_new ();
  self->orientation = FLAME_ORIENTATION_FLAME;
  self->palette_style = FLAME_GRAPH_PALETTE_AUTO;
  self->zoom_node = FLAME_TREE_ROOT;
  self->selected_node = FLAME_TREE_NONE;
  self->highlight_frame = FLAME_TREE_NONE;
  self->hover_frame = -1;
  self->search_valid = TRUE;
  self->show_legend = TRUE;
  self->hadjustment = g_object_ref_sink (gtk_adjustment_new (0, 0, 0, 0, 0, 0));
  self->vadjustment = g_object_ref_sink (gtk_adjustment_new (0, 0, 0, 0, 0, 0));
  g_signal_connect_object (self->vadjustment, "value-changed",
                           G_CALLBACK (on_vadjustment_value_changed), self, G_CONNECT_SWAPPED);

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focus_on_click (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_object (controller, "motion", G_CALLBACK (on_motion), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (controller, "leave", G_CALLBACK (on_leave), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (click, "pressed", G_CALLBACK (on_pressed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (click, "released", G_CALLBACK (on_released), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  controller = gtk_event_controller_focus_new ();
  g_signal_connect_object (controller, "enter", G_CALLBACK (flame_graph_view_focus_enter), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (controller, "leave", G_CALLBACK (flame_graph_view_focus_changed), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  /* the cached picture is in device pixels */
  g_signal_connect (self, "notify::scale-factor", G_CALLBACK (on_scale_factor_changed), NULL);

  self->style_manager = adw_style_manager_get_default ();
  g_signal_connect_object (self->style_manager, "notify::dark", G_CALLBACK (on_style_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->style_manager, "notify::high-contrast",
                           G_CALLBACK (on_style_changed), self, G_CONNECT_SWAPPED);
  update_palette (self);
  update_actions (self);
  update_accessible (self);
}

/* -- public API --------------------------------------------------------- */

GtkWidget *
flame_graph_view_new (void)
{
  return g_object_new (FLAME_TYPE_GRAPH_VIEW, NULL);
}

/* (nullable) (transfer none) */
FlameLayoutSource *
flame_graph_view_get_source (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), NULL);
  return self->source;
}

/**
 * flame_graph_view_set_source:
 * @source: (nullable): the diff view or profile to draw
 *
 * Shows @source from its root: zoom, selection, hover and the function
 * highlight are reset; the search text stays and applies to @source.
 */
void
flame_graph_view_set_source (FlameGraphView    *self,
                             FlameLayoutSource *source)
{
  gboolean zoom_changed, sel_changed;

  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));
  g_return_if_fail (source == NULL || FLAME_IS_LAYOUT_SOURCE (source));

  if (!g_set_object (&self->source, source))
    return;

  zoom_changed = self->zoom_node != FLAME_TREE_ROOT;
  sel_changed = self->selected_node != FLAME_TREE_NONE;
  self->zoom_node = FLAME_TREE_ROOT;
  self->selected_node = FLAME_TREE_NONE;
  self->highlight_frame = FLAME_TREE_NONE;
  self->scroll_from_root = 0;
  invalidate_layout (self);
  update_search (self);
  update_actions (self);
  update_accessible (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
  if (zoom_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM_NODE]);
  if (sel_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_NODE]);
}

FlameOrientation
flame_graph_view_get_orientation (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FLAME_ORIENTATION_FLAME);
  return self->orientation;
}

void
flame_graph_view_set_orientation (FlameGraphView   *self,
                                  FlameOrientation  orientation)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));
  g_return_if_fail (orientation == FLAME_ORIENTATION_FLAME ||
                    orientation == FLAME_ORIENTATION_ICICLE);

  if (self->orientation == orientation)
    return;
  self->orientation = orientation;
  invalidate_layout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORIENTATION]);
}

FlameGraphPalette
flame_graph_view_get_palette_style (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FLAME_GRAPH_PALETTE_AUTO);
  return self->palette_style;
}

void
flame_graph_view_set_palette_style (FlameGraphView    *self,
                                    FlameGraphPalette  style)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));
  g_return_if_fail (style <= FLAME_GRAPH_PALETTE_HIGH_CONTRAST);

  if (self->palette_style == style)
    return;
  self->palette_style = style;
  update_palette (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PALETTE_STYLE]);
}

/**
 * flame_graph_view_get_palette:
 *
 * The colours the graph is drawn with now (the palette style resolved
 * against the desktop's dark and high-contrast settings), for widgets
 * that show a legend next to it.
 */
const FlamePalette *
flame_graph_view_get_palette (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), NULL);
  update_palette (self);
  return flame_painter_get_palette (self->painter);
}

gboolean
flame_graph_view_get_show_legend (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FALSE);
  return self->show_legend;
}

void
flame_graph_view_set_show_legend (FlameGraphView *self,
                                  gboolean        show_legend)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  show_legend = !!show_legend;
  if (self->show_legend == (guint) show_legend)
    return;
  self->show_legend = show_legend;
  invalidate_layout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_LEGEND]);
}

guint32
flame_graph_view_get_zoom_node (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FLAME_TREE_ROOT);
  return self->zoom_node;
}

/**
 * flame_graph_view_zoom_to:
 * @node: a node of the source's tree; one not drawn in this view (or
 *   %FLAME_TREE_NONE) zooms out to the root
 *
 * Draws @node full width, its ancestors above it full width too.
 */
void
flame_graph_view_zoom_to (FlameGraphView *self,
                          guint32         node)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  if (!node_is_valid (self, node))
    node = FLAME_TREE_ROOT;
  if (self->zoom_node == node)
    return;

  self->zoom_node = node;
  self->scroll_from_root = 0;
  invalidate_layout (self);
  update_match_totals (self);
  update_actions (self);
  update_accessible (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM_NODE]);
}

/* One level up; at the root, clears the selection (Escape's second use). */
void
flame_graph_view_zoom_out (FlameGraphView *self)
{
  guint32 old;

  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  if (self->source == NULL)
    return;
  old = self->zoom_node;
  if (old == FLAME_TREE_ROOT)
    {
      flame_graph_view_set_selected_node (self, FLAME_TREE_NONE);
      return;
    }
  flame_graph_view_zoom_to (self, tree_of (self)->nodes[old].parent);
  /* keep the keyboard where the reader was */
  flame_graph_view_set_selected_node (self, old);
}

void
flame_graph_view_reset_zoom (FlameGraphView *self)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));
  flame_graph_view_zoom_to (self, FLAME_TREE_ROOT);
}

guint32
flame_graph_view_get_selected_node (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FLAME_TREE_NONE);
  return self->selected_node;
}

/* @node: a tree node, or %FLAME_TREE_NONE to clear */
void
flame_graph_view_set_selected_node (FlameGraphView *self,
                                    guint32         node)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  if (!node_is_valid (self, node))
    node = FLAME_TREE_NONE;
  if (self->selected_node == node)
    return;
  self->selected_node = node;
  if (node != FLAME_TREE_NONE && ensure_layout (self))
    scroll_to_frame (self, flame_layout_find_node (self->layout, node));
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_NODE]);
}

/**
 * flame_graph_view_highlight_function:
 * @frame: a frame (function) id of the source's FlameFrames, or
 *   %G_MAXUINT32 to clear
 *
 * Outlines every frame of that function (the report panel's selection).
 */
void
flame_graph_view_highlight_function (FlameGraphView *self,
                                     guint32         frame)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  if (self->highlight_frame == frame)
    return;
  self->highlight_frame = frame;
  invalidate_texture (self);
}

/**
 * flame_graph_view_set_search_text:
 * @text: (nullable): a substring of function names (ASCII case ignored),
 *   or a regular expression (case ignored) when "search-regex" is set;
 *   %NULL or "" ends the search
 *
 * Matching frames keep their colour and get an outline, the others fade.
 */
void
flame_graph_view_set_search_text (FlameGraphView *self,
                                  const char     *text)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  if (g_strcmp0 (self->search_text, text) == 0)
    return;
  g_free (self->search_text);
  self->search_text = g_strdup (text);
  update_search (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_TEXT]);
}

void
flame_graph_view_set_search_regex (FlameGraphView *self,
                                   gboolean        regex)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  regex = !!regex;
  if (self->search_regex == (guint) regex)
    return;
  self->search_regex = regex;
  update_search (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_REGEX]);
}

/* %FALSE while the search text is not a valid regular expression. */
gboolean
flame_graph_view_get_search_valid (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), FALSE);
  return self->search_valid;
}

/**
 * flame_graph_view_get_n_matches:
 *
 * Nodes in the zoomed subtree whose function matches the search,
 * including those too narrow to draw.
 */
guint
flame_graph_view_get_n_matches (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), 0);
  return self->n_matches;
}

/**
 * flame_graph_view_get_match_totals:
 * @current_ms: (out) (optional): current time under the matches
 * @baseline_ms: (out) (optional): baseline time (scaled as the diff
 *   scales it; 0 for a single profile)
 *
 * The time the matches account for in the zoomed subtree: the total of
 * every outermost match, so a match called from another match is not
 * counted twice.
 */
void
flame_graph_view_get_match_totals (FlameGraphView *self,
                                   gdouble        *current_ms,
                                   gdouble        *baseline_ms)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));

  if (current_ms != NULL)
    *current_ms = self->match_current_ms;
  if (baseline_ms != NULL)
    *baseline_ms = self->match_baseline_ms;
}

static gint
compare_frames_by_x (gconstpointer a,
                     gconstpointer b,
                     gpointer      data)
{
  FlameLayout *layout = data;
  const FlameLayoutFrame *fa = flame_layout_get_frame (layout, *(const guint *) a);
  const FlameLayoutFrame *fb = flame_layout_get_frame (layout, *(const guint *) b);

  if (fa->x != fb->x)
    return fa->x < fb->x ? -1 : 1;
  return fa->depth < fb->depth ? -1 : fa->depth > fb->depth;
}

/* Left to right, callers before callees: the order a reader scans. */
static GArray *
ensure_match_frames (FlameGraphView *self)
{
  if (self->match_frames != NULL)
    return self->match_frames;
  self->match_frames = g_array_new (FALSE, FALSE, sizeof (guint));
  if (self->layout != NULL)
    {
      guint n = flame_layout_get_n_frames (self->layout);

      for (guint i = 0; i < n; i++)
        if (flame_layout_get_frame (self->layout, i)->flags & FLAME_LAYOUT_FRAME_MATCH)
          g_array_append_val (self->match_frames, i);
      g_array_sort_with_data (self->match_frames, compare_frames_by_x, self->layout);
    }
  return self->match_frames;
}

static void
step_match (FlameGraphView *self,
            gint            step)
{
  GArray *m;
  gint pos = -1;

  if (!ensure_layout (self))
    return;
  m = ensure_match_frames (self);
  if (m->len == 0)
    return;

  for (guint k = 0; k < m->len; k++)
    if (flame_layout_get_frame (self->layout, g_array_index (m, guint, k))->node ==
        self->selected_node)
      {
        pos = (gint) k;
        break;
      }
  if (pos < 0)
    pos = step > 0 ? 0 : (gint) m->len - 1;
  else
    pos = (pos + step + (gint) m->len) % (gint) m->len;
  flame_graph_view_set_selected_node (self,
                                      flame_layout_get_frame (self->layout,
                                                              g_array_index (m, guint, pos))->node);
}

/* Selects the next drawn match (wrapping), and scrolls it into view. */
void
flame_graph_view_next_match (FlameGraphView *self)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));
  step_match (self, 1);
}

void
flame_graph_view_previous_match (FlameGraphView *self)
{
  g_return_if_fail (FLAME_IS_GRAPH_VIEW (self));
  step_match (self, -1);
}

/**
 * flame_graph_view_render_texture:
 *
 * What the widget shows now (graph, legend, hover and selection), at its
 * allocated size, rendered with the cairo renderer so it works without a
 * GPU: for tests and screenshots.
 *
 * Returns: (transfer full) (nullable): the picture, %NULL when the
 *   widget has no size or nothing to show
 */
GdkTexture *
flame_graph_view_render_texture (FlameGraphView *self)
{
  g_autoptr(GskRenderer) renderer = NULL;
  g_autoptr(GError) error = NULL;
  GskRenderNode *node;
  GtkSnapshot *snapshot;
  GdkTexture *texture;
  int width, height;

  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), NULL);

  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  if (width <= 0 || height <= 0)
    return NULL;

  snapshot = gtk_snapshot_new ();
  flame_graph_view_snapshot (GTK_WIDGET (self), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;

  renderer = gsk_cairo_renderer_new ();
  if (!gsk_renderer_realize (renderer, NULL, &error))
    {
      g_warning ("Cannot render the flame graph: %s", error->message);
      gsk_render_node_unref (node);
      return NULL;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gsk_renderer_unrealize (renderer);
  gsk_render_node_unref (node);
  return texture;
}

FlameLayout *
_flame_graph_view_get_layout (FlameGraphView *self)
{
  return ensure_layout (self) ? self->layout : NULL;
}

const char *
_flame_graph_view_get_a11y_label (FlameGraphView *self)
{
  return self->a11y_label;
}

/* How many snapshots have drawn a graph (of whatever source was set then):
 * the bench and the tests wait for the first frame that shows a source. */
guint
_flame_graph_view_get_paint_count (FlameGraphView *self)
{
  g_return_val_if_fail (FLAME_IS_GRAPH_VIEW (self), 0);

  return self->paint_count;
}

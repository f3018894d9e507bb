/* test-graph-view.c: the flame graph widget, checked on its pixels.
 *
 * The view sits in an undecorated GtkWindow at a fixed size inside a
 * GtkScrolledWindow, as in the app; pictures come from its own snapshot
 * rendered with the cairo renderer (flame_graph_view_render_texture), so
 * what is checked is what the window shows. Colours are read at the
 * right end of a frame, where the label's padding leaves the fill bare.
 * Needs a display: meson runs it under Xvfb (tools/xvfb-test); without one it skips.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include <adwaita.h>
#include <gtk/gtk.h>

#include "flame-breadcrumbs.h"
#include "flame-graph-view.h"
#include "flame-graph-view-private.h"
#include "flame-loader.h"
#include "flame-palette.h"
#include "flame-tooltip.h"
#include "flame-test-graph-view.h"
#include "flame-test-locale.h"

#define WIDTH  900
#define HEIGHT 420

/* -- fixtures --------------------------------------------------------- */

static FlameProfile *
load_profile (const char *dir,
              const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  FlameProfile *profile = flame_load_file (path, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return profile;
}

static FlameDiff *
load_diff (const char *dir,
           const char *base,
           const char *cur)
{
  g_autoptr(FlameProfile) b = load_profile (dir, base);
  g_autoptr(FlameProfile) c = load_profile (dir, cur);
  g_autoptr(GError) error = NULL;
  FlameDiff *diff = flame_diff_new (b, c, NULL, NULL, &error);

  g_assert_no_error (error);
  return diff;
}

static FlameDiff *
example_diff (void)
{
  const char *dir = g_getenv ("FLAMEDIFF_EXAMPLES");

  g_assert_nonnull (dir);
  return load_diff (dir, "baseline.folded", "current.folded");
}

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  FlameView view = GPOINTER_TO_INT (data);

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_FORCE_LIGHT);
  fx->diff = example_diff ();
  fx->source = flame_layout_source_new_for_diff (fx->diff, view);
  fixture_init (fx, fx->source, WIDTH, HEIGHT);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (fx->window));
  settle ();
  g_clear_object (&fx->source);
  g_clear_object (&fx->diff);
}

/* -- pixels ------------------------------------------------------------ */

typedef struct
{
  guchar *data;
  gsize   stride;
  int     width, height;
} Picture;

static void
picture_clear (Picture *p)
{
  g_clear_pointer (&p->data, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Picture, picture_clear)

static void
snap (FlameGraphView *view,
      Picture        *p)
{
  g_autoptr(GdkTexture) texture = flame_graph_view_render_texture (view);

  g_assert_nonnull (texture);
  p->width = gdk_texture_get_width (texture);
  p->height = gdk_texture_get_height (texture);
  p->stride = (gsize) p->width * 4;
  p->data = g_malloc (p->stride * p->height);
  gdk_texture_download (texture, p->data, p->stride);
}

static void
save_png (FlameGraphView *view,
          const char     *name)
{
  g_autoptr(GdkTexture) texture = flame_graph_view_render_texture (view);
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ?: ".", name, NULL);

  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("saved %s", path);
}

static FlameRgb
pixel_at (const Picture *p,
          int            x,
          int            y)
{
  guint32 v;

  g_assert_cmpint (x, >=, 0);
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (x, <, p->width);
  g_assert_cmpint (y, <, p->height);
  /* gdk_texture_download: cairo's ARGB32 in native endianness */
  v = *(const guint32 *) (p->data + y * p->stride + x * 4);
  g_assert_cmpuint (v >> 24, ==, 0xff);
  return (FlameRgb) { (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };
}

#define assert_rgb(c, hex) G_STMT_START {                         \
    char got__[8];                                               \
    flame_rgb_to_hex ((c), got__);                               \
    g_assert_cmpstr (got__, ==, (hex));                          \
  } G_STMT_END

static gint
frame_of_node (FlameGraphView *view,
               guint32         node)
{
  FlameLayout *layout = _flame_graph_view_get_layout (view);

  g_assert_nonnull (layout);
  return flame_layout_find_node (layout, node);
}

/* The fill of @node's frame: @inset px from its right end (inside a
 * search outline: 4), vertical centre. */
static FlameRgb
node_fill_at (FlameGraphView *view,
              const Picture  *p,
              guint32         node,
              int             inset)
{
  graphene_rect_t r;
  gint i = frame_of_node (view, node);

  g_assert_cmpint (i, >=, 0);
  g_assert_true (_flame_graph_view_frame_bounds (view, i, &r));
  return pixel_at (p, (int) (r.origin.x + r.size.width) - inset,
                   (int) (r.origin.y + r.size.height / 2));
}

static FlameRgb
node_fill (FlameGraphView *view,
           const Picture  *p,
           guint32         node)
{
  return node_fill_at (view, p, node, 2);
}

static void
frame_centre (FlameGraphView *view,
              guint32         node,
              gdouble        *x,
              gdouble        *y)
{
  graphene_rect_t r;
  gint i = frame_of_node (view, node);

  g_assert_cmpint (i, >=, 0);
  g_assert_true (_flame_graph_view_frame_bounds (view, i, &r));
  *x = r.origin.x + r.size.width / 2;
  *y = r.origin.y + r.size.height / 2;
}

/* -- tests ------------------------------------------------------------- */

/* The new function's frame in DESIGN.md's exact colours, following the
 * desktop's style live, and a forced palette overriding it. */
static void
test_colours (Fixture       *fx,
              gconstpointer  data)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  guint32 node = flame_layout_source_find (fx->source, "rgb_to_ycc_avx2");
  guint32 simd = flame_layout_source_find (fx->source, "simd_color_convert");
  guint32 row = flame_layout_source_find (fx->source, "convolve_row");

  g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
  {
    g_auto(Picture) p = { 0 };

    snap (fx->view, &p);
    assert_rgb (node_fill (fx->view, &p, node), "#9575cd");
    assert_rgb (node_fill (fx->view, &p, simd), "#9575cd");
    /* +86% self time, less after scaling the baseline: medium */
    g_assert_cmpint (flame_layout_source_get_class (fx->source, row), ==,
                     FLAME_CHANGE_REGRESSION_MEDIUM);
    assert_rgb (node_fill (fx->view, &p, row), "#e57373");
    assert_rgb (node_fill (fx->view, &p, flame_layout_source_find (fx->source, "bilinear_sample")),
                "#42a5f5");
    assert_rgb (pixel_at (&p, p.width - 1, p.height / 2), "#ffffff");
    save_png (fx->view, "graph-view-light.png");
  }

  /* the desktop switches to dark: the view follows without being told */
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  settle ();
  g_assert_true (adw_style_manager_get_dark (manager));
  {
    g_auto(Picture) p = { 0 };

    snap (fx->view, &p);
    assert_rgb (node_fill (fx->view, &p, node), "#b39ddb");
    assert_rgb (node_fill (fx->view, &p, row), "#e57373");
    assert_rgb (node_fill (fx->view, &p, flame_layout_source_find (fx->source, "bilinear_sample")),
                "#64b5f6");
    assert_rgb (pixel_at (&p, p.width - 1, p.height / 2), "#1e1e1e");
    save_png (fx->view, "graph-view-dark.png");
  }

  /* a preference forces light on a dark desktop */
  flame_graph_view_set_palette_style (fx->view, FLAME_GRAPH_PALETTE_LIGHT);
  {
    g_auto(Picture) p = { 0 };

    snap (fx->view, &p);
    assert_rgb (node_fill (fx->view, &p, node), "#9575cd");
  }
  /* high contrast: outlined frames, the class colours of its palette */
  flame_graph_view_set_palette_style (fx->view, FLAME_GRAPH_PALETTE_HIGH_CONTRAST);
  {
    g_auto(Picture) p = { 0 };
    const FlamePalette *hc = flame_palette_for (TRUE, TRUE);
    char want[8];

    snap (fx->view, &p);
    flame_rgb_to_hex (flame_palette_get_fill (hc, FLAME_CHANGE_NEW), want);
    assert_rgb (node_fill (fx->view, &p, node), want);
  }
  flame_graph_view_set_palette_style (fx->view, FLAME_GRAPH_PALETTE_AUTO);
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  settle ();
  {
    g_auto(Picture) p = { 0 };

    snap (fx->view, &p);
    assert_rgb (node_fill (fx->view, &p, node), "#9575cd");
  }
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              guint      *count)
{
  (*count)++;
}

static void
on_activated (FlameGraphView *view,
              guint           node,
              guint32        *out)
{
  *out = node;
}

/* Zooming re-roots the graph: the zoomed node spans the full width, its
 * ancestors stay above it full width, the breadcrumb bar follows. */
static void
test_zoom (Fixture       *fx,
           gconstpointer  data)
{
  guint32 simd = flame_layout_source_find (fx->source, "simd_color_convert");
  guint32 save = flame_layout_source_find (fx->source, "save_image");
  guint32 leaf = flame_layout_source_find (fx->source, "rgb_to_ycc_avx2");
  GtkWidget *crumbs = flame_breadcrumbs_new (fx->view);
  guint notified = 0;
  FlameLayout *layout;
  const FlameLayoutFrame *f;
  guint n_children = 0;

  g_object_ref_sink (crumbs);
  g_signal_connect (fx->view, "notify::zoom-node", G_CALLBACK (count_notify), &notified);

  flame_graph_view_zoom_to (fx->view, simd);
  settle ();
  g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, simd);
  g_assert_cmpuint (notified, ==, 1);
  layout = _flame_graph_view_get_layout (fx->view);
  f = flame_layout_get_frame (layout, frame_of_node (fx->view, simd));
  g_assert_cmpfloat (f->x, ==, 0);
  g_assert_cmpfloat (f->width, ==, WIDTH);
  /* its only child, too */
  f = flame_layout_get_frame (layout, frame_of_node (fx->view, leaf));
  g_assert_cmpfloat (f->width, ==, WIDTH);
  {
    g_auto(Picture) p = { 0 };
    gdouble x, y;

    snap (fx->view, &p);
    frame_centre (fx->view, leaf, &x, &y);
    assert_rgb (pixel_at (&p, 2, (int) y), "#9575cd");
    assert_rgb (pixel_at (&p, WIDTH - 3, (int) y), "#9575cd");
    save_png (fx->view, "graph-view-zoomed.png");
  }
  /* a sibling of the zoom root is not drawn */
  g_assert_cmpint (frame_of_node (fx->view, flame_layout_source_find (fx->source, "jpeg_encode")),
                   ==, -1);

  /* Zoom Out, then All › imgconv › main › save_image › simd_color_convert */
  for (GtkWidget *c = gtk_widget_get_first_child (crumbs); c; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_BUTTON (c))
      n_children++;
  g_assert_cmpuint (n_children, ==, 6);

  /* the visible Zoom Out: one level up, like Escape */
  {
    GtkWidget *up = gtk_widget_get_first_child (crumbs);

    g_assert_true (GTK_IS_BUTTON (up));
    g_assert_cmpstr (gtk_widget_get_name (up), ==, "zoom-out");
    g_assert_true (gtk_widget_get_sensitive (up));
    g_signal_emit_by_name (up, "clicked");
    g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, save);
    flame_graph_view_zoom_to (fx->view, simd);
  }

  /* a crumb zooms out to its frame */
  {
    GtkWidget *crumb = NULL;

    for (GtkWidget *c = gtk_widget_get_first_child (crumbs); c; c = gtk_widget_get_next_sibling (c))
      if (GTK_IS_BUTTON (c) && g_strcmp0 (gtk_widget_get_tooltip_text (c), "save_image") == 0)
        crumb = c;
    g_assert_nonnull (crumb);
    /* the bar rebuilds itself: do not touch the old buttons afterwards */
    g_signal_emit_by_name (crumb, "clicked");
  }
  g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, save);

  /* Escape/Backspace: one level up, the old zoom root selected */
  flame_graph_view_zoom_to (fx->view, simd);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fx->view), "graph.zoom-out", NULL));
  g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, save);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, simd);

  /* Ctrl+0 */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fx->view), "graph.reset-zoom", NULL));
  g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, FLAME_TREE_ROOT);
  n_children = 0;
  for (GtkWidget *c = gtk_widget_get_first_child (crumbs); c; c = gtk_widget_get_next_sibling (c))
    n_children += GTK_IS_BUTTON (c);
  g_assert_cmpuint (n_children, ==, 2);
  /* nothing to zoom out of at the root */
  g_assert_false (gtk_widget_get_sensitive (gtk_widget_get_first_child (crumbs)));

  /* a click zooms and says which frame */
  {
    guint32 activated = FLAME_TREE_NONE;
    gdouble x, y;

    g_signal_connect (fx->view, "frame-activated", G_CALLBACK (on_activated), &activated);
    settle ();
    frame_centre (fx->view, simd, &x, &y);
    _flame_graph_view_click (fx->view, x, y);
    g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, simd);
    g_assert_cmpuint (activated, ==, simd);
  }

  /* an invalid node zooms out to the root */
  flame_graph_view_zoom_to (fx->view, G_MAXUINT32 - 1);
  g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, FLAME_TREE_ROOT);
  g_object_unref (crumbs);
}

static gboolean
name_in (FlameLayoutSource  *source,
         guint32             node,
         const char * const *names)
{
  return g_strv_contains (names, flame_layout_source_get_name (source, node));
}

/* Search: matches keep their colour, the rest fades; the totals count a
 * nested match once; regex; next/previous step through the matches. */
static void
test_search (Fixture       *fx,
             gconstpointer  data)
{
  guint32 row = flame_layout_source_find (fx->source, "convolve_row");
  guint32 col = flame_layout_source_find (fx->source, "convolve_col");
  guint32 inflate = flame_layout_source_find (fx->source, "inflate");
  const FlameTree *tree = flame_layout_source_get_tree (fx->source);
  FlameDiffValues vr, vc, vroot;
  gdouble cur, base;
  guint notified = 0;

  g_signal_connect (fx->view, "notify::n-matches", G_CALLBACK (count_notify), &notified);
  flame_diff_get_values (fx->diff, tree, row, &vr);
  flame_diff_get_values (fx->diff, tree, col, &vc);
  flame_diff_get_values (fx->diff, tree, FLAME_TREE_ROOT, &vroot);

  flame_graph_view_set_search_text (fx->view, "CONVOLVE");
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 2);
  g_assert_cmpuint (notified, ==, 1);
  flame_graph_view_get_match_totals (fx->view, &cur, &base);
  g_assert_cmpfloat_with_epsilon (cur, vr.total_c + vc.total_c, 1e-9);
  g_assert_cmpfloat_with_epsilon (base, vr.total_b + vc.total_b, 1e-9);
  g_assert_cmpfloat_with_epsilon (cur, 275 + 151, 1e-9);
  {
    g_auto(Picture) p = { 0 };
    FlameRgb faded;

    snap (fx->view, &p);
    assert_rgb (node_fill_at (fx->view, &p, row, 4), "#e57373");
    /* the outline in the palette's match colour */
    assert_rgb (node_fill_at (fx->view, &p, row, 1), "#e5a50a");
    faded = node_fill (fx->view, &p, inflate);
    /* neutral #bdbdbd mixed towards white */
    g_assert_cmpuint (faded.r, >, 0xbd);
    save_png (fx->view, "graph-view-search.png");
  }

  /* nested matches: "blur" and "convolve_row" below it count once */
  flame_graph_view_set_search_regex (fx->view, TRUE);
  flame_graph_view_set_search_text (fx->view, "^(blur|convolve_row)$");
  g_assert_true (flame_graph_view_get_search_valid (fx->view));
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 2);
  flame_graph_view_get_match_totals (fx->view, &cur, &base);
  g_assert_cmpfloat_with_epsilon (cur, 275 + 151, 1e-9);

  /* everything: the outermost matches are the root's children */
  flame_graph_view_set_search_text (fx->view, ".");
  flame_graph_view_get_match_totals (fx->view, &cur, &base);
  g_assert_cmpfloat_with_epsilon (cur, vroot.total_c, 1e-9);
  g_assert_cmpfloat_with_epsilon (base, vroot.total_b, 1e-9);

  /* an invalid expression matches nothing and says so */
  flame_graph_view_set_search_text (fx->view, "convolve_(");
  g_assert_false (flame_graph_view_get_search_valid (fx->view));
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 0);

  flame_graph_view_set_search_text (fx->view, "convolve_(row|col)");
  g_assert_true (flame_graph_view_get_search_valid (fx->view));
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 2);

  /* stepping: left to right (convolve_col sorts before convolve_row),
   * wrapping around */
  flame_graph_view_next_match (fx->view);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, col);
  flame_graph_view_next_match (fx->view);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, row);
  flame_graph_view_next_match (fx->view);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, col);
  flame_graph_view_previous_match (fx->view);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, row);

  /* zoomed elsewhere: no matches in that subtree */
  flame_graph_view_zoom_to (fx->view, flame_layout_source_find (fx->source, "save_image"));
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 0);
  flame_graph_view_reset_zoom (fx->view);
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 2);

  /* the search's flags in the layout are the painter's */
  {
    FlameLayout *layout = _flame_graph_view_get_layout (fx->view);
    const char *names[] = { "convolve_row", "convolve_col", NULL };

    for (guint i = 0; i < flame_layout_get_n_frames (layout); i++)
      {
        const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

        if (f->flags & FLAME_LAYOUT_FRAME_MERGED)
          continue;
        g_assert_cmpint (!!(f->flags & FLAME_LAYOUT_FRAME_MATCH), ==,
                         name_in (fx->source, f->node, names));
      }
  }

  flame_graph_view_set_search_text (fx->view, NULL);
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx->view), ==, 0);
  flame_graph_view_get_match_totals (fx->view, &cur, &base);
  g_assert_cmpfloat (cur, ==, 0);
}

/* Hit testing at a frame's centre gives that node, and the tooltip there
 * is the shared tooltip text (function, times, difference, "New"). */
static void
test_tooltip (Fixture       *fx,
              gconstpointer  data)
{
  guint32 node = flame_layout_source_find (fx->source, "rgb_to_ycc_avx2");
  guint32 row = flame_layout_source_find (fx->source, "convolve_row");
  g_autofree char *text = NULL;
  g_autofree char *want = NULL;
  g_autofree char *row_text = NULL;
  gdouble x, y;

  frame_centre (fx->view, node, &x, &y);
  g_assert_cmpuint (flame_graph_view_get_node_at (fx->view, x, y), ==, node);
  text = _flame_graph_view_tooltip_text_at (fx->view, x, y);
  want = flame_tooltip_text (fx->source, node, FLAME_TREE_ROOT);
  g_assert_cmpstr (text, ==, want);
  g_assert_nonnull (strstr (text, "rgb_to_ycc_avx2"));
  g_assert_nonnull (strstr (text, "New — no counterpart in baseline"));

  /* the real signal path: GTK asks, the view answers for that frame */
  {
    GtkTooltip *tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
    gboolean shown = FALSE;

    g_signal_emit_by_name (fx->view, "query-tooltip", (int) x, (int) y, FALSE, tooltip, &shown);
    g_assert_true (shown);
    g_signal_emit_by_name (fx->view, "query-tooltip", WIDTH - 1, 1, FALSE, tooltip, &shown);
    g_assert_false (shown);
    /* keyboard mode: the selected frame's tooltip */
    flame_graph_view_set_selected_node (fx->view, node);
    g_signal_emit_by_name (fx->view, "query-tooltip", 0, 0, TRUE, tooltip, &shown);
    g_assert_true (shown);
    flame_graph_view_set_selected_node (fx->view, FLAME_TREE_NONE);
    g_object_unref (tooltip);
  }

  frame_centre (fx->view, row, &x, &y);
  row_text = _flame_graph_view_tooltip_text_at (fx->view, x, y);
  g_assert_nonnull (strstr (row_text, "convolve_row"));
  g_assert_nonnull (strstr (row_text, flame_test_decimal ("Current: 275.00 ms total")));
  g_assert_nonnull (strstr (row_text, "Self difference: +"));

  /* hover draws an overlay above the cached picture, nothing else */
  {
    g_auto(Picture) before = { 0 };
    g_auto(Picture) after = { 0 };
    FlameRgb a, b;

    snap (fx->view, &before);
    _flame_graph_view_hover (fx->view, x, y);
    snap (fx->view, &after);
    a = node_fill (fx->view, &before, row);
    b = node_fill (fx->view, &after, row);
    g_assert_false (a.r == b.r && a.g == b.g && a.b == b.b);
    save_png (fx->view, "graph-view-hover.png");
    _flame_graph_view_hover (fx->view, -1, -1);
  }

  /* outside any frame */
  g_assert_cmpuint (flame_graph_view_get_node_at (fx->view, WIDTH - 1, 1), ==, FLAME_TREE_NONE);
  g_assert_null (_flame_graph_view_tooltip_text_at (fx->view, WIDTH - 1, 1));
}

/* Arrow keys move between parent, children and siblings (up is the callee
 * in a flame graph); Enter zooms; the accessible label names the frame. */
static void
test_keyboard (Fixture       *fx,
               gconstpointer  data)
{
  GtkWidget *w = GTK_WIDGET (fx->view);
  guint32 imgconv = flame_layout_source_find (fx->source, "imgconv");
  guint32 main_ = flame_layout_source_find (fx->source, "main");
  guint32 process = flame_layout_source_find (fx->source, "process");
  guint32 blur = flame_layout_source_find (fx->source, "blur");
  guint32 resize = flame_layout_source_find (fx->source, "resize");
  guint32 activated = FLAME_TREE_NONE;
  const FlameTree *tree = flame_layout_source_get_tree (fx->source);

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (w), GTK_ACCESSIBLE_ROLE_TREE);

  /* a real focus stop: arriving selects the root and rings it, dark
   * outside and light inside, so it shows on red and blue frames */
  g_assert_true (gtk_widget_get_focusable (w));
  gtk_widget_grab_focus (w);
  {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while (!gtk_widget_has_focus (w))
      {
        g_main_context_iteration (NULL, FALSE);
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      }
  }
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, FLAME_TREE_ROOT);
  settle ();
  {
    g_auto(Picture) p = { 0 };
    graphene_rect_t r;
    FlameRgb outer, inner;

    snap (fx->view, &p);
    g_assert_true (
      _flame_graph_view_frame_bounds (fx->view, frame_of_node (fx->view, FLAME_TREE_ROOT), &r));
    outer = pixel_at (&p, (int) (r.origin.x + r.size.width / 2), (int) r.origin.y - 1);
    inner = pixel_at (&p, (int) (r.origin.x + r.size.width / 2), (int) r.origin.y + 1);
    g_assert_cmpuint (outer.r + outer.g + outer.b, <, 3 * 40);
    g_assert_cmpuint (inner.r + inner.g + inner.b, >, 3 * 240);
  }
  /* cleared, so the first key below starts from the zoom root */
  flame_graph_view_set_selected_node (fx->view, FLAME_TREE_NONE);

  /* the first key selects the zoom root */
  g_assert_true (gtk_widget_activate_action (w, "graph.select-up", NULL));
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, FLAME_TREE_ROOT);
  gtk_widget_activate_action (w, "graph.select-up", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, imgconv);
  gtk_widget_activate_action (w, "graph.select-up", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, main_);
  /* the widest child: process (blur + resize + sharpen) */
  gtk_widget_activate_action (w, "graph.select-up", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, process);
  gtk_widget_activate_action (w, "graph.select-up", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, blur);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (w), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Flame graph, selected frame: blur");
  g_assert_nonnull (strstr (_flame_graph_view_get_a11y_label (fx->view), "blur"));

  /* siblings, in the order drawn (by name): blur, resize, sharpen */
  gtk_widget_activate_action (w, "graph.select-right", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, resize);
  gtk_widget_activate_action (w, "graph.select-left", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, blur);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (w), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Flame graph, selected frame: blur");
  gtk_widget_activate_action (w, "graph.select-down", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, process);
  g_assert_cmpuint (tree->nodes[blur].parent, ==, process);

  /* icicle: the arrows turn over */
  flame_graph_view_set_orientation (fx->view, FLAME_ORIENTATION_ICICLE);
  settle ();
  gtk_widget_activate_action (w, "graph.select-down", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, blur);
  gtk_widget_activate_action (w, "graph.select-up", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, process);
  {
    /* roots at the top */
    graphene_rect_t r;

    g_assert_true (
      _flame_graph_view_frame_bounds (fx->view, frame_of_node (fx->view, FLAME_TREE_ROOT), &r));
    g_assert_cmpfloat (r.origin.y, <, 2 * 17 + flame_graph_view_get_show_legend (fx->view) * 200);
    gtk_widget_grab_focus (w);
    settle ();
    save_png (fx->view, "graph-view-icicle.png");
  }
  flame_graph_view_set_orientation (fx->view, FLAME_ORIENTATION_FLAME);

  /* Enter zooms to the selection and says so */
  g_signal_connect (fx->view, "frame-activated", G_CALLBACK (on_activated), &activated);
  gtk_widget_activate_action (w, "graph.activate-selected", NULL);
  g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, process);
  g_assert_cmpuint (activated, ==, process);

  /* Escape at the root clears the selection */
  flame_graph_view_reset_zoom (fx->view);
  gtk_widget_activate_action (w, "graph.zoom-out", NULL);
  g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, FLAME_TREE_NONE);
  g_assert_nonnull (strstr (_flame_graph_view_get_a11y_label (fx->view), "Flame graph"));

  /* a new source resets zoom and selection */
  flame_graph_view_set_selected_node (fx->view, blur);
  flame_graph_view_zoom_to (fx->view, process);
  {
    g_autoptr(FlameLayoutSource) other =
      flame_layout_source_new_for_diff (fx->diff, FLAME_VIEW_DIFFERENTIAL);

    flame_graph_view_set_source (fx->view, other);
    g_assert_cmpuint (flame_graph_view_get_zoom_node (fx->view), ==, FLAME_TREE_ROOT);
    g_assert_cmpuint (flame_graph_view_get_selected_node (fx->view), ==, FLAME_TREE_NONE);
  }
}

/* The elided view paints only the paths that vanished (and their callers
 * as structure), all in the elided colour. */
static void
test_elided (Fixture       *fx,
             gconstpointer  data)
{
  FlameLayout *layout = _flame_graph_view_get_layout (fx->view);
  g_auto(Picture) p = { 0 };
  const char *expected[] = { "all",        "imgconv", "main", "save_image", "legacy_color_convert",
                             "rgb_to_ycc", NULL };
  guint n = flame_layout_get_n_frames (layout);

  flame_graph_view_set_show_legend (fx->view, FALSE);
  settle ();
  layout = _flame_graph_view_get_layout (fx->view);
  n = flame_layout_get_n_frames (layout);
  g_assert_cmpuint (n, ==, 6);
  snap (fx->view, &p);
  for (guint i = 0; i < n; i++)
    {
      const FlameLayoutFrame *f = flame_layout_get_frame (layout, i);

      g_assert_true (name_in (fx->source, f->node, expected));
      if (f->node != FLAME_TREE_ROOT)
        assert_rgb (node_fill (fx->view, &p, f->node), "#b39ddb");
    }
  /* nothing of the current run: the new function is not there */
  g_assert_cmpuint (flame_layout_source_find (fx->source, "rgb_to_ycc_avx2"), ==, FLAME_TREE_NONE);
  save_png (fx->view, "graph-view-elided.png");
}

/* The highlighted function (the report panel's selection) is outlined
 * wherever it is called. */
static void
test_highlight_function (Fixture       *fx,
                         gconstpointer  data)
{
  guint32 node = flame_layout_source_find (fx->source, "convolve_col");
  guint32 frame = flame_layout_source_get_tree (fx->source)->nodes[node].frame;
  g_auto(Picture) before = { 0 };
  g_auto(Picture) after = { 0 };
  graphene_rect_t r;
  FlameRgb a, b;

  g_assert_true (_flame_graph_view_frame_bounds (fx->view, frame_of_node (fx->view, node), &r));
  snap (fx->view, &before);
  flame_graph_view_highlight_function (fx->view, frame);
  snap (fx->view, &after);
  a = pixel_at (&before, (int) r.origin.x + 1, (int) (r.origin.y + r.size.height / 2));
  b = pixel_at (&after, (int) r.origin.x + 1, (int) (r.origin.y + r.size.height / 2));
  g_assert_false (a.r == b.r && a.g == b.g && a.b == b.b);
  flame_graph_view_highlight_function (fx->view, G_MAXUINT32);
  {
    g_auto(Picture) cleared = { 0 };

    snap (fx->view, &cleared);
    g_assert_cmpmem (cleared.data, cleared.stride * cleared.height, before.data,
                     before.stride * before.height);
  }
}

/* One profile (no diff) and the inverted view draw too: plain colours,
 * search totals without a baseline, a tooltip wherever there is a frame. */
static void
test_other_views (void)
{
  g_autoptr(FlameProfile) profile =
    load_profile (g_getenv ("FLAMEDIFF_EXAMPLES"), "current.folded");
  g_autoptr(FlameLayoutSource) single = flame_layout_source_new_for_profile (profile, 0, 1.0);
  g_autoptr(FlameDiff) diff = example_diff ();
  g_autoptr(FlameLayoutSource) inverted =
    flame_layout_source_new_for_diff (diff, FLAME_VIEW_INVERTED);
  guint32 row = flame_layout_source_find (single, "convolve_row");
  Fixture fx = { 0 };
  gdouble cur, base, x, y;

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_FORCE_LIGHT);
  fixture_init (&fx, single, WIDTH, HEIGHT);
  flame_graph_view_set_search_text (fx.view, "convolve_row");
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx.view), ==, 1);
  flame_graph_view_get_match_totals (fx.view, &cur, &base);
  g_assert_cmpfloat_with_epsilon (cur, 275, 1e-9);
  g_assert_cmpfloat (base, ==, 0);
  {
    g_auto(Picture) p = { 0 };
    FlameRgb want = flame_palette_plain_fill (flame_palette_get (FLAME_PALETTE_LIGHT),
                                              "convolve_row");
    char hex[8];

    snap (fx.view, &p);
    flame_rgb_to_hex (want, hex);
    assert_rgb (node_fill_at (fx.view, &p, row, 4), hex);
    save_png (fx.view, "graph-view-single.png");
  }

  flame_graph_view_set_source (fx.view, inverted);
  settle ();
  g_assert_cmpuint (flame_graph_view_get_n_matches (fx.view), >=, 1);
  frame_centre (fx.view, flame_layout_source_find (inverted, "convolve_row"), &x, &y);
  {
    g_autofree char *text = _flame_graph_view_tooltip_text_at (fx.view, x, y);

    g_assert_nonnull (strstr (text, "Self time of convolve_row"));
  }
  save_png (fx.view, "graph-view-inverted.png");
  fixture_teardown (&fx, NULL);
}

/* Scrolling inside a GtkScrolledWindow: a graph taller than the viewport
 * starts at its roots (the bottom in flame orientation). */
static void
test_scrolling (void)
{
  /* a deep chain: 60 levels */
  GString *stack = g_string_new ("root");
  g_autofree char *dir = g_dir_make_tmp ("flamediff-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "deep.folded", NULL);
  g_autofree char *content = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  GtkAdjustment *vadj;
  Fixture fx = { 0 };
  graphene_rect_t r;

  for (guint i = 0; i < 60; i++)
    g_string_append_printf (stack, ";level%u", i);
  content = g_strdup_printf ("%s 10\nroot;other 5\n", stack->str);
  g_string_free (stack, TRUE);
  g_assert_true (g_file_set_contents (path, content, -1, NULL));
  diff = load_diff (dir, "deep.folded", "deep.folded");
  source = flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  fixture_init (&fx, source, 600, 300);

  vadj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (fx.scrolled));
  g_assert_cmpfloat (gtk_adjustment_get_upper (vadj), ==, 62 * 17);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==,
                     gtk_adjustment_get_upper (vadj) - gtk_adjustment_get_page_size (vadj));
  /* the root row is at the bottom of the view */
  g_assert_true (
    _flame_graph_view_frame_bounds (fx.view, frame_of_node (fx.view, FLAME_TREE_ROOT), &r));
  g_assert_cmpfloat (r.origin.y + r.size.height, <=, 300);
  g_assert_cmpfloat (r.origin.y + r.size.height, >, 300 - 17);

  /* scroll to the top: the deepest frames come into view */
  gtk_adjustment_set_value (vadj, 0);
  g_assert_cmpuint (flame_graph_view_get_node_at (fx.view, 10, 300 - 5), !=, FLAME_TREE_ROOT);
  {
    guint32 top = flame_layout_source_find (source, "level59");
    gdouble x, y;

    frame_centre (fx.view, top, &x, &y);
    g_assert_cmpfloat (y, >, 0);
    g_assert_cmpfloat (y, <, 300);
  }

  /* selecting a frame out of view scrolls to it (the view, the window's
   * only focus stop, selected the root when it took the focus) */
  flame_graph_view_set_selected_node (fx.view, FLAME_TREE_NONE);
  flame_graph_view_set_selected_node (fx.view, FLAME_TREE_ROOT);
  g_assert_true (
    _flame_graph_view_frame_bounds (fx.view, frame_of_node (fx.view, FLAME_TREE_ROOT), &r));
  g_assert_cmpfloat (r.origin.y, >=, 0);
  g_assert_cmpfloat (r.origin.y + r.size.height, <=, 300);

  fixture_teardown (&fx, NULL);
  g_unlink (path);
  g_rmdir (dir);
}

static void
skip_no_display (void)
{
  g_test_skip ("no display: meson runs it under Xvfb (Debian package xvfb)");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      /* visible in the TAP output as a skip, not a silent pass */
      g_test_add_func ("/graph-view/no-display", skip_no_display);
      return g_test_run ();
    }
  flame_test_set_locale ();
  adw_init ();

#define ADD(name, func, view)                                                          \
  g_test_add ("/graph-view/" name, Fixture, GINT_TO_POINTER (view), fixture_setup, func, \
              fixture_teardown)
  ADD ("colours", test_colours, FLAME_VIEW_DIFFERENTIAL);
  ADD ("zoom", test_zoom, FLAME_VIEW_DIFFERENTIAL);
  ADD ("search", test_search, FLAME_VIEW_DIFFERENTIAL);
  ADD ("tooltip", test_tooltip, FLAME_VIEW_DIFFERENTIAL);
  ADD ("keyboard", test_keyboard, FLAME_VIEW_DIFFERENTIAL);
  ADD ("elided", test_elided, FLAME_VIEW_ELIDED);
  ADD ("highlight-function", test_highlight_function, FLAME_VIEW_DIFFERENTIAL);
#undef ADD
  g_test_add_func ("/graph-view/other-views", test_other_views);
  g_test_add_func ("/graph-view/scrolling", test_scrolling);

  return g_test_run ();
}

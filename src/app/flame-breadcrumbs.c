/* flame-breadcrumbs.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row of flat buttons, one per frame from the root down to the view's
 * zoom node; a click zooms there. Deep paths keep the root and the last
 * few levels and fold the middle into "…" (its tooltip lists what is
 * hidden), so the bar never pushes the window wider than the screen.
 * A "Zoom Out" button leads the row: the keyboard's Escape, made visible.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-breadcrumbs.h"

#define MAX_TAIL 5

struct _FlameBreadcrumbs
{
  GtkBox          parent_instance;

  /* Borrowed References: the view owns us through the window */
  FlameGraphView *view;
};

enum {
  PROP_0,
  PROP_VIEW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameBreadcrumbs, flame_breadcrumbs, GTK_TYPE_BOX)

static void
on_crumb_clicked (GtkButton        *button,
                  FlameBreadcrumbs *self)
{
  guint32 node = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "node"));

  g_assert (GTK_IS_BUTTON (button));
  g_assert (FLAME_IS_BREADCRUMBS (self));

  if (self->view != NULL)
    flame_graph_view_zoom_to (self->view, node);
}

static void
on_zoom_out_clicked (FlameBreadcrumbs *self)
{
  g_assert (FLAME_IS_BREADCRUMBS (self));

  if (self->view != NULL)
    flame_graph_view_zoom_out (self->view);
}

static const char *
crumb_name (FlameLayoutSource *source,
            guint32            node)
{
  return node == FLAME_TREE_ROOT ? _("All") : flame_layout_source_get_name (source, node);
}

static void
add_separator (FlameBreadcrumbs *self)
{
  GtkWidget *sep = gtk_label_new ("›");

  gtk_widget_add_css_class (sep, "dim-label");
  gtk_accessible_update_state (GTK_ACCESSIBLE (sep), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
  gtk_box_append (GTK_BOX (self), sep);
}

static void
add_crumb (FlameBreadcrumbs  *self,
           FlameLayoutSource *source,
           guint32            node,
           gboolean           current)
{
  const char *name = crumb_name (source, node);
  GtkWidget *button = gtk_button_new ();
  GtkWidget *label = gtk_label_new (name);

  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 28);
  if (current)
    gtk_widget_add_css_class (label, "heading");
  gtk_button_set_child (GTK_BUTTON (button), label);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, name);
  g_object_set_data (G_OBJECT (button), "node", GUINT_TO_POINTER (node));
  g_signal_connect (button, "clicked", G_CALLBACK (on_crumb_clicked), self);
  gtk_box_append (GTK_BOX (self), button);
}

static void
rebuild (FlameBreadcrumbs *self)
{
  FlameLayoutSource *source;
  const FlameTree *tree;
  g_autoptr(GArray) path = NULL;
  GtkWidget *child;
  guint32 zoom;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_box_remove (GTK_BOX (self), child);

  if (self->view == NULL || (source = flame_graph_view_get_source (self->view)) == NULL)
    return;
  tree = flame_layout_source_get_tree (source);
  zoom = flame_graph_view_get_zoom_node (self->view);

  {
    GtkWidget *up = gtk_button_new_from_icon_name ("zoom-out-symbolic");

    gtk_widget_add_css_class (up, "flat");
    gtk_widget_set_tooltip_text (up, _("Zoom Out"));
    gtk_widget_set_name (up, "zoom-out");
    gtk_widget_set_sensitive (up, zoom != FLAME_TREE_ROOT);
    g_signal_connect_swapped (up, "clicked", G_CALLBACK (on_zoom_out_clicked), self);
    gtk_box_append (GTK_BOX (self), up);
  }

  path = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 n = zoom; ; n = tree->nodes[n].parent)
    {
      g_array_prepend_val (path, n);
      if (n == FLAME_TREE_ROOT)
        break;
    }

  for (guint i = 0; i < path->len; i++)
    {
      guint32 node = g_array_index (path, guint32, i);

      if (i > 0)
        add_separator (self);
      if (i == 1 && path->len > MAX_TAIL + 2)
        {
          /* fold the middle: root › … › the last MAX_TAIL levels */
          GString *hidden = g_string_new (NULL);
          GtkWidget *more = gtk_label_new ("…");
          guint end = path->len - MAX_TAIL;

          for (guint k = 1; k < end; k++)
            g_string_append_printf (hidden, "%s%s", k > 1 ? "\n" : "",
                                    crumb_name (source, g_array_index (path, guint32, k)));
          gtk_widget_set_tooltip_text (more, hidden->str);
          gtk_widget_set_margin_start (more, 6);
          gtk_widget_set_margin_end (more, 6);
          gtk_box_append (GTK_BOX (self), more);
          g_string_free (hidden, TRUE);
          i = end - 1;
          continue;
        }
      add_crumb (self, source, node, i + 1 == path->len);
    }
}

void
flame_breadcrumbs_set_view (FlameBreadcrumbs *self,
                            FlameGraphView   *view)
{
  g_return_if_fail (FLAME_IS_BREADCRUMBS (self));
  g_return_if_fail (view == NULL || FLAME_IS_GRAPH_VIEW (view));

  if (self->view == view)
    return;
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_func (self->view, rebuild, self);
  g_set_weak_pointer (&self->view, view);
  if (view != NULL)
    {
      g_signal_connect_object (view, "notify::zoom-node", G_CALLBACK (rebuild), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (view, "notify::source", G_CALLBACK (rebuild), self,
                               G_CONNECT_SWAPPED);
    }
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW]);
}

static void
flame_breadcrumbs_dispose (GObject *object)
{
  FlameBreadcrumbs *self = (FlameBreadcrumbs *) object;

  if (self->view != NULL)
    g_signal_handlers_disconnect_by_func (self->view, rebuild, self);
  g_clear_weak_pointer (&self->view);

  G_OBJECT_CLASS (flame_breadcrumbs_parent_class)->dispose (object);
}

static void
flame_breadcrumbs_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  FlameBreadcrumbs *self = FLAME_BREADCRUMBS (object);

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
flame_breadcrumbs_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  FlameBreadcrumbs *self = FLAME_BREADCRUMBS (object);

  switch (prop_id)
    {
    case PROP_VIEW:
      flame_breadcrumbs_set_view (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_breadcrumbs_class_init (FlameBreadcrumbsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = flame_breadcrumbs_dispose;
  object_class->get_property = flame_breadcrumbs_get_property;
  object_class->set_property = flame_breadcrumbs_set_property;

  properties[PROP_VIEW] =
    g_param_spec_object ("view", NULL, NULL, FLAME_TYPE_GRAPH_VIEW,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "breadcrumbs");
}

static void
flame_breadcrumbs_init (FlameBreadcrumbs *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_HORIZONTAL);
  gtk_box_set_spacing (GTK_BOX (self), 0);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, "Zoom path", -1);
}

GtkWidget *
flame_breadcrumbs_new (FlameGraphView *view)
{
  return g_object_new (FLAME_TYPE_BREADCRUMBS, "view", view, NULL);
}

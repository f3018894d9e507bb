/* flame-window-panel.c: the width of the Top Changes panel, and the
 * handle between the graph and the panel that sets it
 *
 * The user's width is the GSettings key changes-panel-width. What the
 * panel gets is that width clamped: never narrower than its table needs
 * (longer words in other languages widen it), never so wide that the
 * graph has less than GRAPH_MIN px. The handle (the flap's separator)
 * resizes it with a drag or with Left and Right when focused, saves the
 * width when the drag ends, and a double-click puts the default back.
 * A narrow window shows the panel over the graph (flame-window-narrow.c):
 * no handle there.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-window-private.h"

/* the graph's room beside the panel, at least (the content's
 * width-request in flame-window.ui) */
#define GRAPH_MIN     400
/* the panel when the window is narrow */
#define PANEL_NARROW  320
/* a press of Left or Right */
#define KEY_STEP      20

/* what the panel's own widgets need, without the width this file asks for
 * (the panel's size request) */
static int
panel_content_min (FlameWindow *self)
{
  GtkWidget *panel = GTK_WIDGET (self->changes_panel);
  int need = 0;

  for (GtkWidget *c = gtk_widget_get_first_child (panel); c; c = gtk_widget_get_next_sibling (c))
    {
      int min = 0;

      if (!gtk_widget_get_visible (c))
        continue;
      gtk_widget_measure (c, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
      need = MAX (need, min);
    }
  return need;
}

static int
handle_width (FlameWindow *self)
{
  int min = 0;

  gtk_widget_measure (self->panel_handle, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  return min;
}

/* the range a drag moves in, for a window (its flap) @window_width px wide */
static void
width_range (FlameWindow *self,
             int          window_width,
             int         *min,
             int         *max)
{
  GtkWidget *content = adw_flap_get_content (self->flap);
  int graph = GRAPH_MIN;

  /* at least 400 px for the graph, and what its legend needs (else the
   * flap folds and shows the panel over the graph) */
  if (content != NULL)
    {
      int content_min = 0;

      gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &content_min, NULL, NULL, NULL);
      graph = MAX (graph, content_min);
    }
  *min = panel_content_min (self);
  *max = MAX (*min, window_width - graph - handle_width (self));
}

static int
clamp_width (FlameWindow *self,
             int          width)
{
  int min, max;

  width_range (self, self->window_width, &min, &max);
  return CLAMP (width, min, max);
}

/* the accessible value of the handle: the panel's width in its range */
static void
update_handle_accessible (FlameWindow *self)
{
  int min, max;

  width_range (self, self->window_width, &min, &max);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->panel_handle),
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, (double) min,
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, (double) max,
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, (double) self->panel_width,
                                  -1);
}

/**
 * _flame_window_panel_width_for:
 * @window_width: the width of the window's flap
 * @narrow: whether the window has its narrow layout
 *
 * Returns: the width the changes panel gets in such a window
 */
int
_flame_window_panel_width_for (FlameWindow *self,
                               int          window_width,
                               gboolean     narrow)
{
  int min, max;

  if (narrow)
    return PANEL_NARROW;
  width_range (self, window_width, &min, &max);
  return CLAMP (self->panel_user_width, min, max);
}

/* gives the panel @width now: from a gesture, a key, a setting, an idle
 * after an allocation, or the window's allocation before it allocates
 * its children (flame-window-narrow.c) */
void
_flame_window_apply_panel_width (FlameWindow *self,
                                 int          width)
{
  GtkWidget *sidebar = adw_flap_get_flap (self->flap);

  self->panel_width = self->panel_width_applied = width;
  if (sidebar != NULL)
    gtk_widget_set_size_request (sidebar, width, -1);
  update_handle_accessible (self);
}

/* the user's width: kept (clamped to this window) and applied; saved
 * when @save */
static void
set_user_width (FlameWindow *self,
                int          width,
                gboolean     save)
{
  self->panel_user_width = clamp_width (self, width);
  if (!self->narrow)
    _flame_window_apply_panel_width (self, self->panel_user_width);
  if (save && self->panel_user_width != g_settings_get_int (self->settings, "changes-panel-width"))
    g_settings_set_int (self->settings, "changes-panel-width", self->panel_user_width);
}

/* a handle moved by @dx px towards the end of the line (right in a
 * left-to-right locale) narrows a panel at the end */
static int
width_moved_by (FlameWindow *self,
                int          from,
                double       dx)
{
  gboolean rtl = gtk_widget_get_direction (self->panel_handle) == GTK_TEXT_DIR_RTL;

  return from + (int) (rtl ? dx : -dx);
}

static void
on_drag_begin (FlameWindow    *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  g_assert (FLAME_IS_WINDOW (self));

  self->drag_start_width = self->panel_width;
  self->dragging = FALSE;
}

static void
on_drag_update (FlameWindow    *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  int threshold = 8;

  g_assert (FLAME_IS_WINDOW (self));

  /* a click, or the press of a double-click, that moved a pixel or two
   * resizes nothing */
  if (!self->dragging)
    {
      g_object_get (gtk_widget_get_settings (self->panel_handle), "gtk-dnd-drag-threshold",
                    &threshold, NULL);
      if (ABS (dx) < threshold)
        return;
      self->dragging = TRUE;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    }
  set_user_width (self, width_moved_by (self, self->drag_start_width, dx), FALSE);
}

static void
on_drag_end (FlameWindow    *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  g_assert (FLAME_IS_WINDOW (self));

  if (self->dragging)
    set_user_width (self, self->panel_user_width, TRUE);
  self->dragging = FALSE;
}

static void
on_width_setting_changed (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  /* another window's drag, a reset, or dconf */
  self->panel_user_width = g_settings_get_int (self->settings, "changes-panel-width");
  if (!self->narrow && self->window_width > 0)
    _flame_window_apply_panel_width (self, clamp_width (self, self->panel_user_width));
}

/* a double-click: the default width */
static void
on_handle_pressed (FlameWindow     *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  g_assert (FLAME_IS_WINDOW (self));

  if (n_press != 2)
    return;
  self->dragging = FALSE;
  g_settings_reset (self->settings, "changes-panel-width");
  on_width_setting_changed (self);
  /* the drag that this press began goes from here */
  self->drag_start_width = self->panel_width;
}

static gboolean
on_handle_key (FlameWindow           *self,
               guint                  keyval,
               guint                  keycode,
               GdkModifierType        state,
               GtkEventControllerKey *controller)
{
  g_assert (FLAME_IS_WINDOW (self));

  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      set_user_width (self, width_moved_by (self, self->panel_width, -KEY_STEP), TRUE);
      return GDK_EVENT_STOP;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      set_user_width (self, width_moved_by (self, self->panel_width, KEY_STEP), TRUE);
      return GDK_EVENT_STOP;
    default:
      return GDK_EVENT_PROPAGATE;
    }
}

/* the panel over the graph: the handle is out of view, and out of the
 * focus chain */
static void
on_folded_changed (FlameWindow *self)
{
  g_assert (FLAME_IS_WINDOW (self));

  gtk_widget_set_focusable (self->panel_handle, !adw_flap_get_folded (self->flap));
}

/* called from flame_window_init: the handle's controllers and the
 * width saved */
void
_flame_window_setup_panel_handle (FlameWindow *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *keys = gtk_event_controller_key_new ();

  self->panel_handle = adw_flap_get_separator (self->flap);
  g_assert (GTK_IS_WIDGET (self->panel_handle));
  gtk_widget_set_cursor_from_name (self->panel_handle, "col-resize");
  gtk_widget_set_tooltip_text (self->panel_handle,
                               _("Drag to resize the panel, double-click for its default width"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->panel_handle),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Resize Top Changes"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Left and Right change the width of the panel"),
                                  -1);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect_swapped (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect_swapped (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (self->panel_handle, GTK_EVENT_CONTROLLER (drag));

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (click, "pressed", G_CALLBACK (on_handle_pressed), self);
  gtk_widget_add_controller (self->panel_handle, GTK_EVENT_CONTROLLER (click));

  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (on_handle_key), self);
  gtk_widget_add_controller (self->panel_handle, keys);

  self->panel_user_width = g_settings_get_int (self->settings, "changes-panel-width");
  g_signal_connect_object (self->settings, "changed::changes-panel-width",
                           G_CALLBACK (on_width_setting_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->flap, "notify::folded", G_CALLBACK (on_folded_changed), self,
                           G_CONNECT_SWAPPED);
  on_folded_changed (self);
}

/* flame-window-narrow.c: the window below NARROW_BELOW px wide (down to
 * its width-request, 360 px: a phone in portrait)
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-window-private.h"

/* above every minimum width of the wide layout (the header bar's, about
 * 600 px), so that switching to it cannot make the window too narrow for
 * it and switch back */
#define NARROW_BELOW 640

/* The header bar's view switcher, search and view-options buttons move
 * into the main menu (a section at its top; the menu leaves out the
 * keys, to be as wide as its labels), the Open button shows an icon, and
 * the rest stacks: summary, colour key, a narrower panel.
 * One function switches the layout (apply_narrow), with two triggers:
 * from libadwaita 1.4 an AdwBreakpoint on the window (its condition in
 * sp, so it follows the text size), applied before the content is
 * allocated at the new width; on 1.2 (Debian 12), which has none, the
 * window's allocation, which switches from an idle. The breakpoint is
 * added in code, as the .ui must load on 1.2 too. */

/* the first widget under @root that @match accepts: widgets this file
 * changes that the window does not keep a pointer to (the .ui's ids are
 * only reachable when bound) */
static GtkWidget *
find_widget (GtkWidget *root,
             gboolean (*match) (GtkWidget *))
{
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();

  g_ptr_array_add (todo, root);
  while (todo->len > 0)
    {
      GtkWidget *w = g_ptr_array_steal_index (todo, todo->len - 1);

      if (match (w))
        return w;
      for (GtkWidget *c = gtk_widget_get_last_child (w); c; c = gtk_widget_get_prev_sibling (c))
        g_ptr_array_add (todo, c);
    }
  return NULL;
}

static gboolean
is_primary_menu_button (GtkWidget *w)
{
  return GTK_IS_MENU_BUTTON (w) && gtk_menu_button_get_primary (GTK_MENU_BUTTON (w));
}

/* the main menu's first section when narrow: View Options, the views,
 * Find */
static GMenu *
narrow_section (FlameWindow *self)
{
  GMenu *section = g_menu_new ();
  g_autoptr(GMenu) views = g_menu_new ();

  g_menu_append_submenu (section, _("View _Options"), G_MENU_MODEL (self->view_menu));
  g_menu_append (views, _("Differential"), "win.view::differential");
  /* Translators: the view of the code paths gone from the current profile */
  g_menu_append (views, _("Elided"), "win.view::elided");
  g_menu_append_section (section, NULL, G_MENU_MODEL (views));
  g_menu_append (section, _("_Find Functions"), "win.find");
  return section;
}

/* @model's items with no accelerator shown ("accel" set to ""): a menu
 * as wide as its labels, which at 360 px the keys' column would push off
 * the screen. Its sections and submenus are copied likewise, but for the
 * Recent submenu and the Sample Type section, which are rebuilt in place
 * and have no keys: those are linked as they are. */
static GMenu *
menu_without_accels (FlameWindow *self,
                     GMenuModel  *model)
{
  static const char *const links[] = { G_MENU_LINK_SECTION, G_MENU_LINK_SUBMENU };
  GMenu *menu = g_menu_new ();

  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new_from_model (model, i);
      g_autoptr(GVariant) action =
        g_menu_model_get_item_attribute_value (model, i, G_MENU_ATTRIBUTE_ACTION, NULL);

      for (guint k = 0; k < G_N_ELEMENTS (links); k++)
        {
          g_autoptr(GMenuModel) link = g_menu_model_get_item_link (model, i, links[k]);

          if (link != NULL && link != G_MENU_MODEL (self->recent_menu) &&
              link != G_MENU_MODEL (self->sample_type_section))
            {
              g_autoptr(GMenu) copy = menu_without_accels (self, link);

              g_menu_item_set_link (item, links[k], G_MENU_MODEL (copy));
            }
        }
      if (action != NULL)
        g_menu_item_set_attribute (item, "accel", "s", "");
      g_menu_append_item (menu, item);
    }
  return menu;
}

/* The main menu when narrow: what left the header bar on top, then the
 * wide layout's main menu, none of it with its keys */
static void
set_narrow_menu (FlameWindow *self)
{
  g_autoptr(GMenu) whole = g_menu_new ();
  g_autoptr(GMenu) section = narrow_section (self);
  g_autoptr(GMenu) menu = NULL;

  g_menu_append_section (whole, NULL, G_MENU_MODEL (section));
  for (int i = 0; i < g_menu_model_get_n_items (self->wide_menu); i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new_from_model (self->wide_menu, i);

      g_menu_append_item (whole, item);
    }
  menu = menu_without_accels (self, G_MENU_MODEL (whole));
  gtk_menu_button_set_menu_model (self->primary_menu_button, G_MENU_MODEL (menu));
  _flame_window_hide_tooltips_over_menus (GTK_WIDGET (self->primary_menu_button));
}

/* View Options changed (a file with several sample types loaded): the
 * narrow menu's copy follows */
static void
on_view_menu_changed (FlameWindow *self)
{
  if (self->narrow_applied)
    set_narrow_menu (self);
}

static void
apply_narrow (FlameWindow *self)
{
  gboolean narrow = self->narrow;
  GtkWidget *content = adw_flap_get_content (self->flap);

  if (self->primary_menu_button == NULL)
    {
      /* the .ui's main menu, kept for the wide layout */
      GtkWidget *button = find_widget (GTK_WIDGET (self->header_bar), is_primary_menu_button);

      g_assert (button != NULL);
      self->primary_menu_button = GTK_MENU_BUTTON (button);
      self->wide_menu = g_object_ref (gtk_menu_button_get_menu_model (self->primary_menu_button));
      g_signal_connect_object (self->view_menu, "items-changed",
                               G_CALLBACK (on_view_menu_changed), self, G_CONNECT_SWAPPED);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->title_stack), !narrow);
  /* the search and view buttons: one rule with the load state */
  _flame_window_actions_update (self);
  if (narrow)
    adw_split_button_set_icon_name (self->open_button, "document-open-symbolic");
  else
    adw_split_button_set_label (self->open_button, _("_Open"));
  gtk_editable_set_width_chars (GTK_EDITABLE (self->search_entry), narrow ? 8 : 30);

  if (narrow)
    set_narrow_menu (self);
  else
    {
      gtk_menu_button_set_menu_model (self->primary_menu_button, self->wide_menu);
      _flame_window_hide_tooltips_over_menus (GTK_WIDGET (self->primary_menu_button));
    }

  flame_summary_bar_set_stacked (self->summary_bar, narrow);
  flame_changes_panel_set_compact (self->changes_panel, narrow);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->legend),
                                  narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
  /* the .ui's widths, for the wide layout (flame-window.ui) */
  if (content != NULL)
    gtk_widget_set_size_request (content, narrow ? -1 : 400, -1);
}

#if ADW_CHECK_VERSION(1, 4, 0)
/* the breakpoint's apply and unapply: during the window's allocation,
 * before its content is allocated at the new width, so the panel gets
 * its width for the layout now too (from the idle, the wide panel's
 * would overflow the narrow window once) */
static void
switch_layout (FlameWindow *self,
               gboolean     narrow)
{
  self->narrow = narrow;
  if (self->narrow_applied != narrow)
    {
      self->narrow_applied = narrow;
      apply_narrow (self);
    }
  self->panel_width = _flame_window_panel_width_for (self, self->window_width, narrow);
  if (self->panel_width != self->panel_width_applied)
    _flame_window_apply_panel_width (self, self->panel_width);
}

static void
on_breakpoint_apply (FlameWindow *self)
{
  switch_layout (self, TRUE);
}

static void
on_breakpoint_unapply (FlameWindow *self)
{
  switch_layout (self, FALSE);
}
#endif

/* From libadwaita 1.4: the header bar in an AdwToolbarView (raised, as
 * the GtkBox of 1.2 shows it), and an AdwBreakpoint below NARROW_BELOW
 * that switches the layout. On 1.2 the .ui's GtkBox stays, and
 * _flame_window_size_allocate switches. Call after the template. */
void
_flame_window_setup_adaptive (FlameWindow *self)
{
#if ADW_CHECK_VERSION(1, 4, 0)
  AdwApplicationWindow *window = ADW_APPLICATION_WINDOW (self);
  g_autoptr(GtkWidget) box = g_object_ref (adw_application_window_get_content (window));
  g_autoptr(GtkWidget) header = g_object_ref (GTK_WIDGET (self->header_bar));
  AdwToolbarView *toolbar_view = ADW_TOOLBAR_VIEW (adw_toolbar_view_new ());
  g_autofree char *condition = g_strdup_printf ("max-width: %dsp", NARROW_BELOW - 1);
  AdwBreakpoint *breakpoint;

  g_assert (gtk_widget_get_parent (header) == box);
  gtk_box_remove (GTK_BOX (box), header);
  adw_application_window_set_content (window, GTK_WIDGET (toolbar_view));
  adw_toolbar_view_add_top_bar (toolbar_view, header);
  adw_toolbar_view_set_top_bar_style (toolbar_view, ADW_TOOLBAR_RAISED);
  adw_toolbar_view_set_content (toolbar_view, box);

  breakpoint = adw_breakpoint_new (adw_breakpoint_condition_parse (condition));
  g_signal_connect_object (breakpoint, "apply",
                           G_CALLBACK (on_breakpoint_apply), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (breakpoint, "unapply",
                           G_CALLBACK (on_breakpoint_unapply), self, G_CONNECT_SWAPPED);
  adw_application_window_add_breakpoint (window, breakpoint);
#else
  (void) self;
#endif
}

static gboolean
apply_narrow_idle (gpointer user_data)
{
  FlameWindow *self = user_data;

  g_assert (FLAME_IS_WINDOW (self));

  self->narrow_idle = 0;
  if (self->narrow != self->narrow_applied)
    {
      self->narrow_applied = self->narrow;
      apply_narrow (self);
    }
  if (self->panel_width != self->panel_width_applied)
    _flame_window_apply_panel_width (self, self->panel_width);
  return G_SOURCE_REMOVE;
}

/* the window's size_allocate: chains up, then (libadwaita 1.2) switches
 * the layout from an idle, as widgets shown or hidden during allocation
 * would need it again; from 1.4 the breakpoint has switched it during the
 * chain-up, and this only sizes the panel. The panel's width is set
 * before: a window made narrower would first fold the flap with the old
 * width (and hide the panel) and unfold it again from the idle, at every
 * step of a resize. */
void
_flame_window_size_allocate (GtkWidget *widget,
                             int        width,
                             int        height,
                             int        baseline)
{
  FlameWindow *self = FLAME_WINDOW (widget);
  GtkWidgetClass *parent = g_type_class_peek (ADW_TYPE_APPLICATION_WINDOW);
  int flap_width;

#if !ADW_CHECK_VERSION(1, 4, 0)
  self->narrow = width < NARROW_BELOW;
#endif
  /* the flap's width, for the graph's room beside the panel: the
   * window's but its border, as at the last allocation that showed it */
  self->window_width = width - self->flap_inset;
  self->panel_width = _flame_window_panel_width_for (self, self->window_width, self->narrow);
  if (!self->narrow && self->narrow_applied == self->narrow &&
      self->panel_width != self->panel_width_applied)
    _flame_window_apply_panel_width (self, self->panel_width);

  parent->size_allocate (widget, width, height, baseline);

  flap_width = gtk_widget_get_width (GTK_WIDGET (self->flap));
  if (flap_width > 0 && gtk_widget_get_mapped (GTK_WIDGET (self->flap)))
    {
      self->flap_inset = width - flap_width;
      self->window_width = flap_width;
      self->panel_width = _flame_window_panel_width_for (self, flap_width, self->narrow);
    }
  if ((self->narrow != self->narrow_applied || self->panel_width != self->panel_width_applied) &&
      self->narrow_idle == 0)
    self->narrow_idle = g_idle_add (apply_narrow_idle, self);
}

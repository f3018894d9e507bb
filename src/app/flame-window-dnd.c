/* flame-window-dnd.c: files dropped on the window open as a comparison.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-window-private.h"

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         gdouble        x,
         gdouble        y,
         FlameWindow   *self)
{
  GSList *list;
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  g_assert (GTK_IS_DROP_TARGET (target));
  g_assert (FLAME_IS_WINDOW (self));

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = list; l; l = l->next)
    g_ptr_array_add (files, l->data);
  g_slist_free (list);
  if (files->len == 0)
    return FALSE;
  flame_window_open_files (self, (GFile **) files->pdata, files->len);
  return TRUE;
}

void
_flame_window_setup_dnd (FlameWindow *self)
{
  GtkDropTarget *drop;

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self->main_stack), GTK_EVENT_CONTROLLER (drop));
}

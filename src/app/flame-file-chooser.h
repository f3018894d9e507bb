/* flame-file-chooser.h: open and save dialogs (GtkFileChooserNative on
 * GTK 4.8, GtkFileDialog where available).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* @files holds GFile; empty when the user cancelled */
typedef void (*FlameFilesChosen) (GtkWindow *parent,
                                  GPtrArray *files,
                                  gpointer   user_data);

GListStore *flame_profile_filters   (void);
void        flame_choose_profiles   (GtkWindow        *parent,
                                     const char       *title,
                                     gboolean          multiple,
                                     FlameFilesChosen  callback,
                                     gpointer          user_data);
void        flame_choose_image_file (GtkWindow        *parent,
                                     const char       *title,
                                     const char       *initial_name,
                                     FlameFilesChosen  callback,
                                     gpointer          user_data);
void        flame_choose_folder     (GtkWindow        *parent,
                                     const char       *title,
                                     GFile            *initial_folder,
                                     FlameFilesChosen  callback,
                                     gpointer          user_data);

G_END_DECLS

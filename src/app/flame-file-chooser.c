/* flame-file-chooser.c: open and save dialogs.
 *
 * GTK 4.8 (Debian 12) has GtkFileChooserNative; GtkFileDialog replaces it
 * from GTK 4.10 on, where GtkFileChooserNative is deprecated. Both
 * branches offer the same filters (flame_profile_filters, image_filters)
 * and report the same way (FlameFilesChosen). The build pins only the
 * minimum version (src/app/meson.build), so the GtkFileDialog branch is
 * checked for warnings wherever GTK >= 4.10 builds it (the Debian
 * unstable check, tools/sid-check.sh).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-file-chooser.h"

typedef struct
{
  GtkWindow        *parent;
  FlameFilesChosen  callback;
  gpointer          user_data;
} ChooserData;

static ChooserData *
chooser_data_new (GtkWindow        *parent,
                  FlameFilesChosen  callback,
                  gpointer          user_data)
{
  ChooserData *data = g_new0 (ChooserData, 1);

  data->parent = parent ? g_object_ref (parent) : NULL;
  data->callback = callback;
  data->user_data = user_data;
  return data;
}

static void
chooser_data_finish (ChooserData *data,
                     GPtrArray   *files)
{
  data->callback (data->parent, files, data->user_data);
  g_clear_object (&data->parent);
  g_free (data);
}

static GtkFileFilter *
new_filter (const char         *name,
            const char * const *patterns,
            const char * const *mime_types)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  for (guint i = 0; patterns != NULL && patterns[i]; i++)
    gtk_file_filter_add_pattern (filter, patterns[i]);
  for (guint i = 0; mime_types != NULL && mime_types[i]; i++)
    gtk_file_filter_add_mime_type (filter, mime_types[i]);
  return filter;
}

/* Every format the loaders read (flame_sniff_format), compressed or not */
GListStore *
flame_profile_filters (void)
{
  static const char * const folded[] = { "*.folded", "*.collapsed", "*.stacks",
                                         "*.folded.gz", "*.collapsed.gz", NULL };
  static const char * const folded_mime[] = { "text/x-folded-stacks", NULL };
  static const char * const perf[] = { "*.perf", "*.perf-script", "*.linux-perf.txt",
                                       "*.perf.gz", NULL };
  static const char * const perf_mime[] = { "text/x-perf-script", NULL };
  /* by the names the tools give their files: speedscope, Chrome and
   * Firefox JSON; pprof; CPython --binary; cProfile; callgrind; Sysprof */
  static const char * const all[] = { "*.folded", "*.collapsed", "*.stacks", "*.perf",
                                      "*.perf-script", "*.linux-perf.txt", "*.txt",
                                      "*.gz", "*.json", "*.cpuprofile", "*.pb", "*.pprof",
                                      "*.prof", "*.pstats", "*.bin", "callgrind.out*",
                                      "*.syscap", "perf.data*", "*.data", NULL };
  static const char * const any[] = { "*", NULL };
  GListStore *store = g_list_store_new (GTK_TYPE_FILE_FILTER);
  g_autoptr(GtkFileFilter) f_all = new_filter (_("All Profiles"), all, folded_mime);
  g_autoptr(GtkFileFilter) f_folded = new_filter (_("Folded Stacks"), folded, folded_mime);
  g_autoptr(GtkFileFilter) f_perf = new_filter (_("perf script Output"), perf, perf_mime);
  g_autoptr(GtkFileFilter) f_any = new_filter (_("All Files"), any, NULL);

  gtk_file_filter_add_mime_type (f_all, "text/x-perf-script");
  g_list_store_append (store, f_all);
  g_list_store_append (store, f_folded);
  g_list_store_append (store, f_perf);
  g_list_store_append (store, f_any);
  return store;
}

/* The formats Export Image writes (flame_export_*): PNG and SVG */
static GListStore *
image_filters (void)
{
  static const char * const png[] = { "*.png", NULL };
  static const char * const png_mime[] = { "image/png", NULL };
  static const char * const svg[] = { "*.svg", NULL };
  static const char * const svg_mime[] = { "image/svg+xml", NULL };
  GListStore *store = g_list_store_new (GTK_TYPE_FILE_FILTER);
  g_autoptr(GtkFileFilter) f_png = new_filter (_("PNG Image"), png, png_mime);
  g_autoptr(GtkFileFilter) f_svg = new_filter (_("SVG Image"), svg, svg_mime);

  g_list_store_append (store, f_png);
  g_list_store_append (store, f_svg);
  return store;
}

#if GTK_CHECK_VERSION(4, 10, 0)

/* Cancelling is not an error worth a word; anything else (no portal, no
 * file chooser at all) would otherwise leave the button doing nothing */
static void
report_dialog_error (const GError *error)
{
  if (error != NULL && !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
      !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    g_warning ("File dialog failed: %s", error->message);
}

static void
open_multiple_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GListModel) list = gtk_file_dialog_open_multiple_finish (GTK_FILE_DIALOG (object),
                                                                     result, &error);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (G_IS_OBJECT (object));
  g_assert (G_IS_ASYNC_RESULT (result));

  report_dialog_error (error);
  for (guint i = 0; list != NULL && i < g_list_model_get_n_items (list); i++)
    g_ptr_array_add (files, g_list_model_get_item (list, i));
  chooser_data_finish (user_data, files);
}

static void
open_one_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  GFile *file = gtk_file_dialog_open_finish (GTK_FILE_DIALOG (object), result, &error);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (G_IS_OBJECT (object));
  g_assert (G_IS_ASYNC_RESULT (result));

  report_dialog_error (error);
  if (file != NULL)
    g_ptr_array_add (files, file);
  chooser_data_finish (user_data, files);
}

static void
folder_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  GFile *file = gtk_file_dialog_select_folder_finish (GTK_FILE_DIALOG (object), result, &error);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (G_IS_OBJECT (object));
  g_assert (G_IS_ASYNC_RESULT (result));

  report_dialog_error (error);
  if (file != NULL)
    g_ptr_array_add (files, file);
  chooser_data_finish (user_data, files);
}

static void
save_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  GFile *file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (object), result, &error);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (G_IS_OBJECT (object));
  g_assert (G_IS_ASYNC_RESULT (result));

  report_dialog_error (error);
  if (file != NULL)
    g_ptr_array_add (files, file);
  chooser_data_finish (user_data, files);
}

void
flame_choose_profiles (GtkWindow        *parent,
                       const char       *title,
                       gboolean          multiple,
                       FlameFilesChosen  callback,
                       gpointer          user_data)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  g_autoptr(GListStore) filters = flame_profile_filters ();
  ChooserData *data = chooser_data_new (parent, callback, user_data);

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
  if (multiple)
    gtk_file_dialog_open_multiple (dialog, parent, NULL, open_multiple_cb, data);
  else
    gtk_file_dialog_open (dialog, parent, NULL, open_one_cb, data);
}

void
flame_choose_image_file (GtkWindow        *parent,
                         const char       *title,
                         const char       *initial_name,
                         FlameFilesChosen  callback,
                         gpointer          user_data)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  g_autoptr(GListStore) filters = image_filters ();

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_set_accept_label (dialog, _("_Export"));
  gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
  gtk_file_dialog_set_initial_name (dialog, initial_name);
  gtk_file_dialog_save (dialog, parent, NULL, save_cb,
                        chooser_data_new (parent, callback, user_data));
}

void
flame_choose_folder (GtkWindow        *parent,
                     const char       *title,
                     GFile            *initial_folder,
                     FlameFilesChosen  callback,
                     gpointer          user_data)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_set_accept_label (dialog, _("_Select"));
  gtk_file_dialog_set_initial_folder (dialog, initial_folder);
  gtk_file_dialog_select_folder (dialog, parent, NULL, folder_cb,
                                 chooser_data_new (parent, callback, user_data));
}

#else

static void
add_filters (GtkFileChooser *chooser,
             GListStore     *filters)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (filters)); i++)
    {
      g_autoptr(GtkFileFilter) filter = g_list_model_get_item (G_LIST_MODEL (filters), i);

      gtk_file_chooser_add_filter (chooser, filter);
    }
}

static void
native_response_cb (GtkNativeDialog *native,
                    int              response,
                    gpointer         user_data)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert (GTK_IS_NATIVE_DIALOG (native));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) list = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));

      for (guint i = 0; i < g_list_model_get_n_items (list); i++)
        g_ptr_array_add (files, g_list_model_get_item (list, i));
    }
  chooser_data_finish (user_data, files);
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

void
flame_choose_profiles (GtkWindow        *parent,
                       const char       *title,
                       gboolean          multiple,
                       FlameFilesChosen  callback,
                       gpointer          user_data)
{
  GtkFileChooserNative *native;
  g_autoptr(GListStore) filters = flame_profile_filters ();

  native = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_OPEN,
                                        _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), multiple);
  add_filters (GTK_FILE_CHOOSER (native), filters);
  g_signal_connect (native, "response", G_CALLBACK (native_response_cb),
                    chooser_data_new (parent, callback, user_data));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

void
flame_choose_image_file (GtkWindow        *parent,
                         const char       *title,
                         const char       *initial_name,
                         FlameFilesChosen  callback,
                         gpointer          user_data)
{
  GtkFileChooserNative *native;
  g_autoptr(GListStore) filters = image_filters ();

  native = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  add_filters (GTK_FILE_CHOOSER (native), filters);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), initial_name);
  g_signal_connect (native, "response", G_CALLBACK (native_response_cb),
                    chooser_data_new (parent, callback, user_data));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

void
flame_choose_folder (GtkWindow        *parent,
                     const char       *title,
                     GFile            *initial_folder,
                     FlameFilesChosen  callback,
                     gpointer          user_data)
{
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                        _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (initial_folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), initial_folder, NULL);
  g_signal_connect (native, "response", G_CALLBACK (native_response_cb),
                    chooser_data_new (parent, callback, user_data));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

#endif

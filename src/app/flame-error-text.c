/* flame-error-text.c: errors as the error bar, toasts and dialogs show them
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <string.h>

#include "flame-error-text.h"

typedef enum
{
  KIND_OTHER,
  KIND_MISSING,
  KIND_PERMISSION,
  KIND_FOLDER,
  KIND_NO_SPACE,
  KIND_READ_ONLY,
} Kind;

/* what the system refused, from the GError's domain and code: the core
 * and the recorder report errno as G_FILE_ERROR or G_IO_ERROR */
static Kind
error_kind (const GError *error)
{
  if (error->domain == G_FILE_ERROR)
    switch (error->code)
      {
      case G_FILE_ERROR_NOENT: return KIND_MISSING;
      case G_FILE_ERROR_ACCES:
      case G_FILE_ERROR_PERM: return KIND_PERMISSION;
      case G_FILE_ERROR_ISDIR: return KIND_FOLDER;
      case G_FILE_ERROR_NOSPC: return KIND_NO_SPACE;
      case G_FILE_ERROR_ROFS: return KIND_READ_ONLY;
      default: return KIND_OTHER;
      }
  if (error->domain == G_IO_ERROR)
    switch (error->code)
      {
      case G_IO_ERROR_NOT_FOUND: return KIND_MISSING;
      case G_IO_ERROR_PERMISSION_DENIED: return KIND_PERMISSION;
      case G_IO_ERROR_IS_DIRECTORY: return KIND_FOLDER;
      case G_IO_ERROR_NO_SPACE: return KIND_NO_SPACE;
      case G_IO_ERROR_READ_ONLY: return KIND_READ_ONLY;
      default: return KIND_OTHER;
      }
  return KIND_OTHER;
}

/* the file an errno message is about: the project's messages read
 * "PATH: reason" or "cannot VERB PATH: reason" (strerror text has no
 * ": "), so the absolute path runs from the first '/' to the last ": " */
static char *
error_file_name (const char *message)
{
  const char *start = strchr (message, '/');
  const char *end = g_strrstr (message, ": ");
  g_autofree char *path = NULL;

  if (start == NULL || end == NULL || end <= start)
    return NULL;
  path = g_strndup (start, end - start);
  return g_path_get_basename (path);
}

/**
 * flame_error_text:
 * @error: what failed
 * @action: (nullable): what the user asked for, "Could not open the
 *   profile", said before a message that has no plainer wording
 *
 * The text to show for @error. When the system refused a file (missing,
 * no permission, a folder, no space, read-only), it says so in plain
 * words and what to do about it, with @error's own message, the
 * technical detail, as a second line. Other messages are already
 * written for people ("file:line: reason"): they follow @action.
 *
 * Returns: (transfer full): the text
 */
char *
flame_error_text (const GError *error,
                  const char   *action)
{
  Kind kind;
  g_autofree char *name = NULL;
  g_autofree char *plain = NULL;

  g_return_val_if_fail (error != NULL, NULL);

  kind = error_kind (error);
  if (kind != KIND_OTHER)
    name = error_file_name (error->message);
  if (name != NULL)
    switch (kind)
      {
      case KIND_MISSING:
        plain =
          g_strdup_printf (_("There is no file “%s”. It may have been moved, renamed or "
                             "deleted."), name);
        break;
      case KIND_PERMISSION:
        plain = g_strdup_printf (_("Flamediff cannot access “%s”: permission denied. "
                                   "Check the file’s permissions."), name);
        break;
      case KIND_FOLDER:
        plain = g_strdup_printf (_("“%s” is a folder, not a profile. Choose a file inside it."),
                                 name);
        break;
      case KIND_NO_SPACE:
        plain = g_strdup_printf (
          _("There is no space left for “%s”. Free some disk space and try again."), name);
        break;
      case KIND_READ_ONLY:
        plain = g_strdup_printf (_("“%s” is on a read-only disk. Choose another place."), name);
        break;
      case KIND_OTHER:
      default:
        break;
      }
  if (plain != NULL)
    return g_strdup_printf ("%s\n%s", plain, error->message);
  if (action != NULL)
    /* Translators: what failed ("Could not open the profile"), then why */
    return g_strdup_printf (_("%s: %s"), action, error->message);
  return g_strdup (error->message);
}

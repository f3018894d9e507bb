/* flame-spool.c: the recording spool, OUTPUT.spool.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "FLAMESPOOL1\n", a u32 length and a GKeyFile (command, working
 * directory, rate, start time), then each record as u32 length + bytes.
 * Appended by the recorder's worker, synced once a second, removed once
 * the recording is written. The writer holds an flock on it, so that a
 * spool nobody holds is one a recorder left behind.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "flame-recorder.h"
#include "flame-spool.h"

#define SPOOL_MAGIC "FLAMESPOOL1\n"

struct _FlameSpoolWriter
{
  int    fd;         /* -1 after a write error */
  gint64 synced_us;
};

struct _FlameSpoolReader
{
  int           fd;
  GMappedFile  *map;
  GKeyFile     *header;
  const guint8 *p;
  const guint8 *end;
  gint64        mtime;
};

/**
 * flame_spool_writer_new:
 * @path: where to create the spool (replaced if it exists)
 *
 * Returns: (nullable): a writer holding an exclusive lock on @path, or
 *   %NULL when the file cannot be created (the recording goes on without).
 */
FlameSpoolWriter *
flame_spool_writer_new (const char *path)
{
  FlameSpoolWriter *self;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);

  if (fd < 0)
    return NULL;
  flock (fd, LOCK_EX | LOCK_NB);
  if (write (fd, SPOOL_MAGIC, strlen (SPOOL_MAGIC)) < 0)
    { /* noted by the next append */ }
  self = g_new0 (FlameSpoolWriter, 1);
  self->fd = fd;
  self->synced_us = g_get_monotonic_time ();
  return self;
}

/**
 * flame_spool_writer_append:
 *
 * Appends one record. At a write error (disk full or the like) the spool
 * stops: this returns %FALSE once, and later appends do nothing.
 */
gboolean
flame_spool_writer_append (FlameSpoolWriter  *self,
                           const void        *data,
                           gsize              len,
                           GError           **error)
{
  guint32 len32 = len;
  struct iovec iov[2] = { { &len32, 4 }, { (void *) data, len } };
  gsize want = 4 + len;
  gssize n;

  if (self == NULL || self->fd < 0)
    return TRUE;
  do
    n = writev (self->fd, iov, 2);
  while (n < 0 && errno == EINTR);
  if (n != (gssize) want)
    {
      int saved = errno;

      g_set_error_literal (error, G_IO_ERROR,
                           n < 0 ? g_io_error_from_errno (saved) : G_IO_ERROR_FAILED,
                           n < 0 ? g_strerror (saved) : "short write");
      close (self->fd);
      self->fd = -1;
      return FALSE;
    }
  return TRUE;
}

/* With @metadata the file's size and times too (after the header). */
void
flame_spool_writer_sync (FlameSpoolWriter *self,
                         gboolean          metadata)
{
  if (self == NULL || self->fd < 0)
    return;
  if (metadata)
    fsync (self->fd);
  else
    fdatasync (self->fd);
  self->synced_us = g_get_monotonic_time ();
}

/* Syncs when the last sync is more than a second before @now. */
void
flame_spool_writer_sync_due (FlameSpoolWriter *self,
                             gint64            now)
{
  if (self != NULL && self->fd >= 0 && now - self->synced_us > G_USEC_PER_SEC)
    {
      fdatasync (self->fd);
      self->synced_us = now;
    }
}

void
flame_spool_writer_free (FlameSpoolWriter *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_free (self);
}

static gboolean
read_record (const guint8 **p,
             const guint8  *end,
             const guint8 **data,
             gsize         *len)
{
  guint32 n;

  if (end - *p < 4)
    return FALSE;
  memcpy (&n, *p, 4);
  if ((gsize) (end - *p - 4) < n)
    return FALSE;   /* cut short by the crash: the whole records before it count */
  *data = *p + 4;
  *len = n;
  *p += 4 + n;
  return TRUE;
}

/* Maps the spool and checks its magic; FALSE with @error set otherwise. */
static gboolean
map_spool (FlameSpoolReader  *self,
           const char        *path,
           GError           **error)
{
  GStatBuf st;
  gsize len;

  self->map = g_mapped_file_new_from_fd (self->fd, FALSE, error);
  if (self->map == NULL || fstat (self->fd, &st) != 0)
    return FALSE;
  self->mtime = st.st_mtime;
  /* an empty file maps to NULL: no pointer arithmetic before the check */
  self->p = (const guint8 *) g_mapped_file_get_contents (self->map);
  len = g_mapped_file_get_length (self->map);
  if (self->p == NULL || len < strlen (SPOOL_MAGIC) ||
      memcmp (self->p, SPOOL_MAGIC, strlen (SPOOL_MAGIC)) != 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED,
                   "%s is not a recording spool", path);
      return FALSE;
    }
  self->end = self->p + len;
  self->p += strlen (SPOOL_MAGIC);
  return TRUE;
}

/**
 * flame_spool_reader_new:
 * @path: a spool
 *
 * Opens a spool with a shared lock, and reads its header.
 * Fails with %G_IO_ERROR_BUSY when a running recorder still writes it.
 */
FlameSpoolReader *
flame_spool_reader_new (const char  *path,
                        GError     **error)
{
  g_autoptr(FlameSpoolReader) self = g_new0 (FlameSpoolReader, 1);
  const guint8 *data;
  gsize len;

  self->fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (self->fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "%s: %s", path, g_strerror (errno));
      return NULL;
    }
  if (flock (self->fd, LOCK_SH | LOCK_NB) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                   "%s is still being recorded", path);
      return NULL;
    }
  if (!map_spool (self, path, error))
    return NULL;
  self->header = g_key_file_new ();
  if (!read_record (&self->p, self->end, &data, &len) ||
      !g_key_file_load_from_data (self->header, (const char *) data, len, G_KEY_FILE_NONE, NULL))
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED,
                   "%s: the spool's header is damaged", path);
      return NULL;
    }
  return g_steal_pointer (&self);
}

GKeyFile *
flame_spool_reader_get_header (FlameSpoolReader *self)
{
  return self->header;
}

/* When the spool was last written to, in seconds since 1970. */
gint64
flame_spool_reader_get_mtime (FlameSpoolReader *self)
{
  return self->mtime;
}

/* The next whole record; FALSE at the end or at a record cut short. */
gboolean
flame_spool_reader_next (FlameSpoolReader  *self,
                         const guint8     **data,
                         gsize             *len)
{
  return read_record (&self->p, self->end, data, len);
}

void
flame_spool_reader_free (FlameSpoolReader *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_clear_pointer (&self->map, g_mapped_file_unref);
  g_clear_pointer (&self->header, g_key_file_unref);
  g_free (self);
}

/**
 * flame_spool_find:
 * @dir: a recordings folder
 *
 * The spools in @dir that no running recorder holds: recordings
 * interrupted by a crash or a kill.
 */
GPtrArray *
flame_spool_find (const char *dir)
{
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      int fd;

      if (!g_str_has_suffix (name, ".spool"))
        continue;
      path = g_build_filename (dir, name, NULL);
      fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
      if (fd < 0)
        continue;
      if (flock (fd, LOCK_SH | LOCK_NB) == 0)
        g_ptr_array_add (found, g_steal_pointer (&path));
      close (fd);
    }
  return found;
}

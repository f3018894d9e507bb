/* flame-mapped.c: profile files mapped into memory, safe against the file
 * changing while it is read.
 *
 * Reading a mapping past the end of a file that another program has just
 * truncated (`perf script > cur.perf` run again, a recorder rewriting its
 * output) raises SIGBUS. Rather than copying every file into private
 * memory (twice the memory and a copy for a 1 GB profile, all to guard
 * against a rare event), each mapping is registered in a small lock-free
 * table; a process-wide SIGBUS handler that finds the faulting address in
 * a registered mapping maps zero pages over the rest of it and marks it
 * faulted, and the read goes on (the loaders are bounds-checked and take
 * NUL bytes as any other bad input). No longjmp: the loading thread
 * unwinds normally, frees what it allocated, and the loader sees the mark
 * at its next progress check (flame_input_tick) or at the end, where
 * flame_mapped_check() also compares the file with the fstat() taken when
 * it was mapped, so a file that grew, was rewritten in place or replaced
 * by a rename during the load is reported too. docs/formats.md says more.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "flame-error.h"
#include "flame-mapped.h"

/* mappings alive at once; past that files are read into memory */
#define N_SLOTS 64

typedef struct
{
  char        *path;
  int          fd;
  struct stat  st;     /* when mapped */
  void        *data;
  gsize        len;    /* the file's size */
  gint         slot;
} Mapping;

/* The handler reads a slot only when `seq` is even and unchanged across
 * the read (a sequence lock), so it never acts on a half-written range. */
typedef struct
{
  gint              used;     /* claimed by a Mapping */
  gint              seq;      /* odd while start/len change */
  volatile guintptr start;
  volatile gsize    len;      /* rounded up to whole pages */
  gint              faulted;
  Mapping          *mapping;  /* for lookups outside the handler */
} Slot;

static Slot slots[N_SLOTS];
static struct sigaction previous_sigbus;
static gsize page_size;

static void
on_sigbus (int        sig,
           siginfo_t *info,
           void      *context)
{
  guintptr addr = (guintptr) info->si_addr;
  int saved_errno = errno;

  for (guint i = 0; i < N_SLOTS; i++)
    {
      Slot *s = &slots[i];
      gint seq = g_atomic_int_get (&s->seq);
      guintptr start, end, page;

      if (!g_atomic_int_get (&s->used) || (seq & 1) != 0)
        continue;
      start = s->start;
      end = start + s->len;
      if (g_atomic_int_get (&s->seq) != seq || addr < start || addr >= end)
        continue;

      /* zeros from the faulting page to the end of the mapping */
      page = addr & ~(guintptr) (page_size - 1);
      if (mmap ((void *) page, end - page, PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
        break;
      g_atomic_int_set (&s->faulted, 1);
      errno = saved_errno;
      return;
    }

  /* not ours: what would have happened without us */
  errno = saved_errno;
  if ((previous_sigbus.sa_flags & SA_SIGINFO) != 0 && previous_sigbus.sa_sigaction != NULL)
    previous_sigbus.sa_sigaction (sig, info, context);
  else if (previous_sigbus.sa_handler != SIG_DFL && previous_sigbus.sa_handler != SIG_IGN)
    previous_sigbus.sa_handler (sig);
  else
    {
      /* the faulting instruction runs again and the default action kills */
      signal (SIGBUS, SIG_DFL);
    }
}

static void
install_handler (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      struct sigaction sa = { 0 };

      page_size = sysconf (_SC_PAGESIZE);
      sa.sa_sigaction = on_sigbus;
      sa.sa_flags = SA_SIGINFO | SA_NODEFER;
      sigemptyset (&sa.sa_mask);
      sigaction (SIGBUS, &sa, &previous_sigbus);
      g_once_init_leave (&done, 1);
    }
}

static gboolean
register_mapping (Mapping *m)
{
  for (guint i = 0; i < N_SLOTS; i++)
    {
      Slot *s = &slots[i];

      if (!g_atomic_int_compare_and_exchange (&s->used, 0, 1))
        continue;
      g_atomic_int_inc (&s->seq);
      s->start = (guintptr) m->data;
      s->len = (m->len + page_size - 1) & ~(page_size - 1);
      g_atomic_int_set (&s->faulted, 0);
      s->mapping = m;
      g_atomic_int_inc (&s->seq);
      m->slot = i;
      return TRUE;
    }
  return FALSE;
}

static void
mapping_free (gpointer data)
{
  Mapping *m = data;
  Slot *s = &slots[m->slot];

  /* out of the table before the address range can be reused */
  g_atomic_int_inc (&s->seq);
  s->start = 0;
  s->len = 0;
  s->mapping = NULL;
  g_atomic_int_inc (&s->seq);
  g_atomic_int_set (&s->used, 0);

  munmap (m->data, m->len);
  close (m->fd);
  g_free (m->path);
  g_free (m);
}

/**
 * flame_mapped_file_new:
 *
 * Maps a regular, non-empty file read-only.
 *
 * Returns: (transfer full) (nullable): the file's bytes; NULL with
 *   G_IO_ERROR_NOT_SUPPORTED when the file cannot be mapped (a pipe, an
 *   empty or special file, too many mappings): read it instead.
 */
GBytes *
flame_mapped_file_new (const char  *path,
                       GError     **error)
{
  Mapping *m;
  struct stat st;
  void *data;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "%s: %s", path, g_strerror (saved_errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0 ||
      (guint64) st.st_size > G_MAXSIZE)
    goto not_mappable;

  install_handler ();
  data = mmap (NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED)
    goto not_mappable;

  m = g_new0 (Mapping, 1);
  m->path = g_strdup (path);
  m->fd = fd;
  m->st = st;
  m->data = data;
  m->len = st.st_size;
  if (!register_mapping (m))
    {
      munmap (data, m->len);
      g_free (m->path);
      g_free (m);
      goto not_mappable;
    }
  return g_bytes_new_with_free_func (data, m->len, mapping_free, m);

not_mappable:
  close (fd);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: cannot be mapped", path);
  return NULL;
}

static Mapping *
find_mapping (const void *data,
              gint       *slot)
{
  guintptr addr = (guintptr) data;

  for (guint i = 0; i < N_SLOTS; i++)
    {
      Mapping *m;

      if (!g_atomic_int_get (&slots[i].used))
        continue;
      m = slots[i].mapping;
      if (m != NULL && addr >= (guintptr) m->data && addr < (guintptr) m->data + m->len)
        {
          *slot = i;
          return m;
        }
    }
  return NULL;
}

/**
 * flame_mapped_faulted:
 * @data: a pointer into bytes from flame_mapped_file_new(), or any other
 *
 * Returns: whether a read of the mapping @data points into went past the
 *   end of its file (the file was truncated). Cheap: for progress checks.
 */
gboolean
flame_mapped_faulted (const void *data)
{
  gint slot;

  return find_mapping (data, &slot) != NULL && g_atomic_int_get (&slots[slot].faulted);
}

/**
 * flame_mapped_check:
 * @data: a pointer into bytes from flame_mapped_file_new(), or any other
 *
 * Call when done reading: whatever was read is only the file's content
 * if the file did not change meanwhile.
 *
 * Returns: FALSE with @error set when the mapped file was truncated,
 *   grew, was rewritten or replaced since it was mapped; TRUE for data
 *   that is not in a mapping.
 */
gboolean
flame_mapped_check (const void  *data,
                    GError     **error)
{
  gint slot;
  Mapping *m = find_mapping (data, &slot);
  const char *what = NULL;
  struct stat now;

  if (m == NULL)
    return TRUE;

  if (g_atomic_int_get (&slots[slot].faulted))
    what = "got shorter (truncated)";
  else if (fstat (m->fd, &now) == 0 &&
           (now.st_size != m->st.st_size ||
            now.st_mtim.tv_sec != m->st.st_mtim.tv_sec ||
            now.st_mtim.tv_nsec != m->st.st_mtim.tv_nsec))
    what = now.st_size < m->st.st_size ? "got shorter (truncated)"
         : now.st_size > m->st.st_size ? "grew"
         : "was rewritten";
  else if (g_stat (m->path, &now) == 0 &&
           (now.st_ino != m->st.st_ino || now.st_dev != m->st.st_dev))
    what = "was replaced by another file";

  if (what == NULL)
    return TRUE;
  g_set_error (error, FLAME_ERROR, FLAME_ERROR_CHANGED,
               "%s: the file %s while it was being read; load it again once the "
               "program writing it has finished", m->path, what);
  return FALSE;
}

/**
 * flame_mapped_release:
 * @data: the start of bytes from flame_mapped_file_new(), or any other
 * @upto: the offset before which the reader is done
 *
 * Gives the pages of the mapping before @upto back to the system, so
 * that reading a file much larger than memory once, front to back, does
 * not keep it all resident. Only for file mappings (pages read again
 * later are read from the file again, unchanged); for other bytes, or
 * a mapping already faulted (its pages are zeroes of our own), nothing.
 */
void
flame_mapped_release (const void *data,
                      gsize       upto)
{
  gint slot;
  Mapping *m = find_mapping (data, &slot);
  guintptr start = (guintptr) data, end;

  if (m == NULL || data != m->data || g_atomic_int_get (&slots[slot].faulted))
    return;
  end = (start + MIN (upto, m->len)) & ~((guintptr) page_size - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
}

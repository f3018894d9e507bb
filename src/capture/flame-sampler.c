/* flame-sampler.c: libflamediff-sampler.so, preloaded into the recorded
 * program (LD_PRELOAD).
 *
 * Every thread gets a CPU-time timer (timer_create on
 * CLOCK_THREAD_CPUTIME_ID, delivered to that thread with SIGEV_THREAD_ID),
 * so threads are sampled in proportion to the CPU they use. The SIGPROF
 * handler unwinds with libunwind's unw_backtrace and sends the instruction
 * pointers as one SOCK_SEQPACKET message to the recorder (see
 * flame-sampler-protocol.h); a full socket buffer counts the sample as
 * lost and never blocks the program. Records reach the kernel at once, so
 * a crash, _exit or SIGKILL loses nothing already sampled: there is no
 * in-process buffer to flush and no writer thread to lose.
 *
 * Only libc and libunwind: no GLib here. The handler only calls
 * async-signal-safe functions (unw_backtrace, send, fstat).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "flame-sampler-protocol.h"

#define PUBLIC __attribute__((visibility ("default")))
#define TLS __thread __attribute__((tls_model ("initial-exec")))

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Frames of the handler itself and of the kernel's signal trampoline come
 * first in unw_backtrace's answer; the interrupted PC is found among the
 * first few. */
#define SKIP_MAX 16

/* ---- settings and process state ---- */

static int sock_fd = -1;
static ino_t sock_ino;
static unsigned hz = 999;
static long period_ns;
static int follow_children = 1;
static volatile int sampling;     /* this process arms timers */
static pid_t my_pid;
static uint32_t lost;             /* atomic: samples not sent */
static pthread_key_t thread_key;
static uintptr_t ldso_lo, ldso_hi;  /* text of the dynamic loader */

static TLS int in_handler;
static TLS int thread_slot;       /* registry index + 1, 0 = not armed */

/* Timers of every thread, so they can all be deleted at once when the
 * program takes SIGPROF for itself. */
#define MAX_SLOTS 4096
enum { SLOT_FREE, SLOT_BUSY, SLOT_ARMED };
static struct
{
  int     state;
  timer_t timer;
} slots[MAX_SLOTS];

/* The real functions behind the ones interposed here */
static int   (*real_pthread_create) (pthread_t *, const pthread_attr_t *, void *(*) (void *), void *);
static void *(*real_dlopen) (const char *, int);
static void *(*real_dlmopen) (Lmid_t, const char *, int);
static int   (*real_dlclose) (void *);
static int   (*real_dl_iterate_phdr) (int (*) (struct dl_phdr_info *, size_t, void *), void *);
static int   (*real_sigaction) (int, const struct sigaction *, struct sigaction *);
static sighandler_t (*real_signal) (int, sighandler_t);
static int   (*real_execve) (const char *, char *const[], char *const[]);
static int   (*real_execvpe) (const char *, char *const[], char *const[]);
static int   (*real_fexecve) (int, char *const[], char *const[]);
static int   (*real_execveat) (int, const char *, char *const[], char *const[], int);

#define RESOLVE(name) \
  do { if (real_##name == NULL) real_##name = dlsym (RTLD_NEXT, #name); } while (0)

static void
resolve_all (void)
{
  RESOLVE (pthread_create);
  RESOLVE (dlopen);
  RESOLVE (dlmopen);
  RESOLVE (dlclose);
  RESOLVE (dl_iterate_phdr);
  RESOLVE (sigaction);
  RESOLVE (signal);
  RESOLVE (execve);
  RESOLVE (execvpe);
  RESOLVE (fexecve);
  RESOLVE (execveat);
}

static pid_t
my_gettid (void)
{
  return (pid_t) syscall (SYS_gettid);
}

/* ---- sending ---- */

/* The descriptor is the recorder's socket only while its inode matches:
 * a program that closes every descriptor and opens a file that lands on
 * the same number must never receive our records. */
static int
socket_ok (void)
{
  struct stat st;

  return sock_fd >= 0 && fstat (sock_fd, &st) == 0 && S_ISSOCK (st.st_mode) &&
         st.st_ino == sock_ino;
}

/* From the handler: never waits. */
static int
send_now (const void *buf,
          size_t      len)
{
  ssize_t r;

  do
    r = send (sock_fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  return r == (ssize_t) len;
}

/* From normal context: waits up to a second for room, so the process
 * records (hello, modules, exit) are not lost to a momentarily full
 * buffer, but a recorder that went away cannot hang the program. */
static int
send_wait (const void *buf,
           size_t      len)
{
  if (!socket_ok ())
    return 0;
  for (int waited = 0; ; waited += 50)
    {
      ssize_t r = send (sock_fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

      if (r == (ssize_t) len)
        return 1;
      if (r < 0 && errno == EINTR)
        continue;
      if (r >= 0 || errno != EAGAIN || waited >= 1000)
        return 0;
      struct pollfd p = { .fd = sock_fd, .events = POLLOUT };
      poll (&p, 1, 50);
    }
}

static void
header (FlameRecHeader *h,
        FlameRecType    type,
        uint16_t        flags)
{
  h->magic = FLAME_SAMPLER_MAGIC;
  h->type = type;
  h->flags = flags;
  h->pid = my_pid;
  h->tid = my_gettid ();
}

static void
send_note (const char *text)
{
  char buf[sizeof (FlameRecNote) + 512];
  FlameRecNote *n = (FlameRecNote *) buf;
  size_t len = strnlen (text, 512);

  header (&n->h, FLAME_REC_NOTE, 0);
  memcpy (buf + sizeof *n, text, len);
  send_wait (buf, sizeof *n + len);
}

static void
send_hello (uint16_t flags)
{
  char buf[sizeof (FlameRecHello) + 4096];
  FlameRecHello *h = (FlameRecHello *) buf;
  char *path = buf + sizeof *h;
  ssize_t n;
  struct timespec ts;

  memset (h, 0, sizeof *h);
  header (&h->h, FLAME_REC_HELLO, flags);
  h->ppid = getppid ();
  h->hz = hz;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  h->start_ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
  prctl (PR_GET_NAME, h->comm, 0, 0, 0);
  n = readlink ("/proc/self/exe", path, 4095);
  path[n > 0 ? n : 0] = '\0';
  send_wait (buf, sizeof *h + strlen (path) + 1);
}

/* ---- modules ---- */

/* Modules already described to the recorder (by load bias and path
 * hash), so a dlopen sends only what is new: a program that opens and
 * closes the same plugin in a loop sends it once. */
#define MAX_SENT 1024
static struct { uint64_t base; uint32_t hash; } sent[MAX_SENT];
static int n_sent;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct
{
  char  *buf;
  size_t len, alloc;
} Pending;

static uint32_t
hash_str (const char *s)
{
  uint32_t h = 2166136261u;

  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 16777619u;
  return h;
}

static size_t
read_build_id (struct dl_phdr_info *info,
               const uint8_t      **id)
{
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      const uint8_t *p, *end;

      if (ph->p_type != PT_NOTE)
        continue;
      p = (const uint8_t *) (info->dlpi_addr + ph->p_vaddr);
      end = p + ph->p_memsz;
      while (p + sizeof (ElfW(Nhdr)) <= end)
        {
          const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *) p;
          const uint8_t *name = p + sizeof *nh;
          const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);

          if (desc + nh->n_descsz > end)
            break;
          if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
              memcmp (name, "GNU", 4) == 0)
            {
              *id = desc;
              return nh->n_descsz;
            }
          p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
  return 0;
}

static int
collect_module (struct dl_phdr_info *info,
                size_t               size,
                void                *data)
{
  Pending *pending = data;
  char exe[4096];
  const char *path = info->dlpi_name;
  const uint8_t *id = NULL;
  size_t id_len, path_len, need;
  uint64_t lo = UINT64_MAX, hi = 0;
  uint32_t h;
  FlameRecModule *m;

  if (path == NULL || path[0] == '\0')
    {
      /* the main program */
      ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);

      if (n <= 0)
        return 0;
      exe[n] = '\0';
      path = exe;
    }
  if (path[0] != '/')
    return 0;  /* the vDSO: no file to read symbols from */

  h = hash_str (path);
  for (int i = 0; i < n_sent; i++)
    if (sent[i].base == info->dlpi_addr && sent[i].hash == h)
      return 0;
  if (n_sent < MAX_SENT)
    {
      sent[n_sent].base = info->dlpi_addr;
      sent[n_sent].hash = h;
      n_sent++;
    }

  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      {
        uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;

        if (a < lo)
          lo = a;
        if (a + info->dlpi_phdr[i].p_memsz > hi)
          hi = a + info->dlpi_phdr[i].p_memsz;
      }
  id_len = read_build_id (info, &id);
  if (id_len > 64)
    id_len = 0;
  path_len = strnlen (path, 4000);
  need = sizeof *m + id_len + path_len;
  if (pending->len + need + sizeof (uint32_t) > pending->alloc)
    {
      size_t alloc = pending->alloc * 2 + need + 4096;
      char *buf = realloc (pending->buf, alloc);

      if (buf == NULL)
        return 0;
      pending->buf = buf;
      pending->alloc = alloc;
    }
  /* length-prefixed, sent one by one after the loader lock is released */
  memcpy (pending->buf + pending->len, &(uint32_t) { need }, sizeof (uint32_t));
  pending->len += sizeof (uint32_t);
  m = (FlameRecModule *) (pending->buf + pending->len);
  memset (m, 0, sizeof *m);
  header (&m->h, FLAME_REC_MODULE, 0);
  m->base = info->dlpi_addr;
  m->lo = lo;
  m->hi = hi;
  m->build_id_len = id_len;
  m->path_len = path_len;
  memcpy ((char *) (m + 1), id, id_len);
  memcpy ((char *) (m + 1) + id_len, path, path_len);
  pending->len += need;
  return 0;
}

PUBLIC int dl_iterate_phdr (int (*callback) (struct dl_phdr_info *, size_t, void *), void *data);

static void
send_modules (void)
{
  Pending pending = { 0 };

  if (!sampling)
    return;
  pthread_mutex_lock (&modules_lock);
  dl_iterate_phdr (collect_module, &pending);
  pthread_mutex_unlock (&modules_lock);
  for (size_t off = 0; off < pending.len; )
    {
      uint32_t len;

      memcpy (&len, pending.buf + off, sizeof len);
      off += sizeof len;
      send_wait (pending.buf + off, len);
      off += len;
    }
  free (pending.buf);
}

static int
find_ldso (struct dl_phdr_info *info,
           size_t               size,
           void                *data)
{
  uintptr_t base = *(uintptr_t *) data;

  if (info->dlpi_addr != base)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X))
      {
        ldso_lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        ldso_hi = ldso_lo + info->dlpi_phdr[i].p_memsz;
      }
  return 1;
}

/* ---- the signal handler ---- */

static void
on_sigprof (int        sig,
            siginfo_t *info,
            void      *ucontext)
{
  int saved_errno = errno;
  ucontext_t *uc = ucontext;
  struct
  {
    FlameRecSample s;
    uint64_t       ips[FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX];
  } rec;
  uint64_t pc;
  int n, first = -1;

  if (in_handler || !sampling || info->si_code != SI_TIMER)
    {
      errno = saved_errno;
      return;
    }
  in_handler = 1;

  if (!socket_ok ())
    {
      __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
      goto out;
    }

  header (&rec.s.h, FLAME_REC_SAMPLE, 0);
  rec.s.weight = 1 + (uint32_t) (info->si_overrun > 0 ? info->si_overrun : 0);
  rec.s.reserved = 0;
  pc = (uint64_t) uc->uc_mcontext.gregs[REG_RIP];

  if (pc >= ldso_lo && pc < ldso_hi)
    {
      /* The thread is inside the dynamic loader (lazy binding, an
       * internal dlopen) and may hold its locks; libunwind's
       * dl_iterate_phdr could then wait for them forever. Keep the time,
       * without a stack. */
      rec.ips[0] = pc;
      n = 1;
      rec.s.h.flags = FLAME_SAMPLE_TRUNCATED;
    }
  else
    {
      n = unw_backtrace ((void **) rec.ips, FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX);
      for (int i = 0; i < n && i < SKIP_MAX; i++)
        if (rec.ips[i] == pc)
          {
            first = i;
            break;
          }
      if (first < 0)
        {
          /* could not unwind through the signal frame: the PC alone */
          rec.ips[0] = pc;
          n = 1;
          rec.s.h.flags = FLAME_SAMPLE_TRUNCATED;
        }
      else
        {
          if (n == FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX || n - first > FLAME_SAMPLER_MAX_FRAMES)
            rec.s.h.flags = FLAME_SAMPLE_TRUNCATED;
          n -= first;
          if (n > FLAME_SAMPLER_MAX_FRAMES)
            n = FLAME_SAMPLER_MAX_FRAMES;
          memmove (rec.ips, rec.ips + first, (size_t) n * sizeof rec.ips[0]);
        }
    }
  rec.s.n_frames = (uint32_t) n;
  rec.s.lost = __atomic_load_n (&lost, __ATOMIC_RELAXED);
  if (!send_now (&rec, sizeof rec.s + (size_t) n * sizeof rec.ips[0]))
    __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);

out:
  in_handler = 0;
  errno = saved_errno;
}

/* ---- timers ---- */

static void
arm_thread (void)
{
  struct sigevent sev;
  struct itimerspec its;
  timer_t timer;
  int slot = -1;

  if (!sampling || thread_slot != 0)
    return;
  memset (&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev.sigev_notify_thread_id = my_gettid ();
  if (timer_create (CLOCK_THREAD_CPUTIME_ID, &sev, &timer) != 0)
    return;
  for (int i = 0; i < MAX_SLOTS; i++)
    {
      int expected = SLOT_FREE;

      if (__atomic_compare_exchange_n (&slots[i].state, &expected, SLOT_BUSY, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        {
          slot = i;
          break;
        }
    }
  if (slot < 0)
    {
      /* no room to track it: an untracked timer could not be stopped */
      timer_delete (timer);
      return;
    }
  slots[slot].timer = timer;
  __atomic_store_n (&slots[slot].state, SLOT_ARMED, __ATOMIC_RELEASE);
  thread_slot = slot + 1;

  its.it_interval.tv_sec = period_ns / 1000000000;
  its.it_interval.tv_nsec = period_ns % 1000000000;
  its.it_value = its.it_interval;
  timer_settime (timer, 0, &its, NULL);
}

static void
disarm_slot (int slot)
{
  int expected = SLOT_ARMED;

  if (__atomic_compare_exchange_n (&slots[slot].state, &expected, SLOT_BUSY, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    {
      timer_delete (slots[slot].timer);
      __atomic_store_n (&slots[slot].state, SLOT_FREE, __ATOMIC_RELEASE);
    }
}

static void
disarm_thread (void)
{
  if (thread_slot != 0)
    {
      disarm_slot (thread_slot - 1);
      thread_slot = 0;
    }
}

/* Drop a SIGPROF already queued for this thread, so it cannot reach an
 * image that has no handler for it (exec) or a program handler that did
 * not ask for it. */
static void
drain_pending (void)
{
  sigset_t prof;
  struct timespec zero = { 0, 0 };

  sigemptyset (&prof);
  sigaddset (&prof, SIGPROF);
  while (sigtimedwait (&prof, NULL, &zero) == SIGPROF)
    ;
}

static void
stop_sampling (const char *why)
{
  if (!sampling)
    return;
  sampling = 0;
  for (int i = 0; i < MAX_SLOTS; i++)
    disarm_slot (i);
  thread_slot = 0;
  if (why != NULL)
    send_note (why);
}

static void
warm_unwinder (void)
{
  void *ips[8];

  /* libunwind sets up its per-thread trace cache (pthread_once,
   * pthread_setspecific, mmap) on first use: do that here, not in the
   * handler. */
  unw_backtrace (ips, 8);
}

static void
unblock_sigprof (void)
{
  sigset_t prof;

  sigemptyset (&prof);
  sigaddset (&prof, SIGPROF);
  pthread_sigmask (SIG_UNBLOCK, &prof, NULL);
}

static void
thread_exit (void *value)
{
  disarm_thread ();
}

/* ---- threads ---- */

typedef struct
{
  void *(*fn) (void *);
  void  *arg;
} Trampoline;

static void *
trampoline (void *data)
{
  Trampoline t = *(Trampoline *) data;

  free (data);
  if (sampling)
    {
      /* liblzma and others create threads with every signal blocked */
      unblock_sigprof ();
      warm_unwinder ();
      pthread_setspecific (thread_key, (void *) 1);  /* runs thread_exit */
      arm_thread ();
    }
  return t.fn (t.arg);
}

PUBLIC int
pthread_create (pthread_t            *thread,
                const pthread_attr_t *attr,
                void               *(*fn) (void *),
                void                 *arg)
{
  Trampoline *t;
  int r;

  RESOLVE (pthread_create);
  if (!sampling || (t = malloc (sizeof *t)) == NULL)
    return real_pthread_create (thread, attr, fn, arg);
  t->fn = fn;
  t->arg = arg;
  r = real_pthread_create (thread, attr, trampoline, t);
  if (r != 0)
    free (t);
  return r;
}

/* ---- the dynamic loader ---- */

/* While a thread is inside dlopen or dlclose it holds the loader's
 * dl_load_write_lock at times; a SIGPROF there would unwind, and
 * libunwind takes its cache lock and then calls dl_iterate_phdr, which
 * waits for that loader lock: ABBA with any other thread that sits in
 * the handler holding libunwind's lock (docs/capture.md §2.5). So SIGPROF
 * stays blocked for the duration; the pending tick arrives right after. */
typedef struct
{
  sigset_t old;
} ProfBlock;

static void
block_sigprof (ProfBlock *b)
{
  sigset_t prof;

  sigemptyset (&prof);
  sigaddset (&prof, SIGPROF);
  pthread_sigmask (SIG_BLOCK, &prof, &b->old);
}

static void
unblock_sigprof_restore (ProfBlock *b)
{
  pthread_sigmask (SIG_SETMASK, &b->old, NULL);
}

PUBLIC int
dl_iterate_phdr (int  (*callback) (struct dl_phdr_info *, size_t, void *),
                 void  *data)
{
  ProfBlock b;
  int r;

  RESOLVE (dl_iterate_phdr);
  block_sigprof (&b);
  r = real_dl_iterate_phdr (callback, data);
  unblock_sigprof_restore (&b);
  return r;
}

/* dlopen resolves a bare name with the RPATH/RUNPATH of its *caller*, and
 * the caller is now this library, which has none. When the program's
 * calling object has one, search its path list here (RTLD_DI_SERINFO)
 * and open the file found by its full path, as the real call would. */
static int
has_runpath (struct link_map *map)
{
  for (const ElfW(Dyn) *d = map->l_ld; d != NULL && d->d_tag != DT_NULL; d++)
    if (d->d_tag == DT_RPATH || d->d_tag == DT_RUNPATH)
      return 1;
  return 0;
}

static char *
resolve_for_caller (const char *file,
                    void       *caller)
{
  Dl_info info;
  struct link_map *map = NULL;
  Dl_serinfo size, *si;
  char *found = NULL;

  if (file == NULL || strchr (file, '/') != NULL)
    return NULL;
  if (dladdr1 (caller, &info, (void **) &map, RTLD_DL_LINKMAP) == 0 || map == NULL ||
      !has_runpath (map))
    return NULL;
  if (dlinfo (map, RTLD_DI_SERINFOSIZE, &size) != 0 || (si = malloc (size.dls_size)) == NULL)
    return NULL;
  *si = size;
  if (dlinfo (map, RTLD_DI_SERINFO, si) == 0)
    for (unsigned i = 0; i < si->dls_cnt && found == NULL; i++)
      {
        size_t len = strlen (si->dls_serpath[i].dls_name) + strlen (file) + 2;
        char *path = malloc (len);

        if (path == NULL)
          break;
        snprintf (path, len, "%s/%s", si->dls_serpath[i].dls_name, file);
        if (access (path, F_OK) == 0)
          found = path;
        else
          free (path);
      }
  free (si);
  return found;
}

PUBLIC void *
dlopen (const char *file,
        int         flags)
{
  ProfBlock b;
  void *handle;
  char *path;

  RESOLVE (dlopen);
  path = resolve_for_caller (file, __builtin_return_address (0));
  block_sigprof (&b);
  handle = real_dlopen (path != NULL ? path : file, flags);
  unblock_sigprof_restore (&b);
  free (path);
  if (handle != NULL)
    send_modules ();
  return handle;
}

PUBLIC void *
dlmopen (Lmid_t      lmid,
         const char *file,
         int         flags)
{
  ProfBlock b;
  void *handle;

  RESOLVE (dlmopen);
  block_sigprof (&b);
  handle = real_dlmopen (lmid, file, flags);
  unblock_sigprof_restore (&b);
  if (handle != NULL)
    send_modules ();
  return handle;
}

PUBLIC int
dlclose (void *handle)
{
  ProfBlock b;
  int r;

  RESOLVE (dlclose);
  block_sigprof (&b);
  r = real_dlclose (handle);
  unblock_sigprof_restore (&b);
  return r;
}

/* ---- the program's own SIGPROF ---- */

#define TAKEN_NOTE "the program installs its own SIGPROF handler: sampling stopped for this process"

PUBLIC int
sigaction (int                     sig,
           const struct sigaction *act,
           struct sigaction       *old)
{
  RESOLVE (sigaction);
  if (sig == SIGPROF && act != NULL && sampling)
    stop_sampling (TAKEN_NOTE);
  return real_sigaction (sig, act, old);
}

PUBLIC sighandler_t
signal (int          sig,
        sighandler_t handler)
{
  RESOLVE (signal);
  if (sig == SIGPROF && sampling)
    stop_sampling (TAKEN_NOTE);
  return real_signal (sig, handler);
}

/* ---- exec ---- */

/* Per-thread timers die with the old image, but a SIGPROF already queued
 * survives exec and would kill an image that has no handler. Delete this
 * thread's timer and drop what is queued, with SIGPROF blocked so nothing
 * new arrives in between; other threads (and their queues) end with the
 * exec. In a vfork child (another pid sharing our memory) there is
 * nothing to do, and touching the registry would corrupt the parent's. */
static int
before_exec (void)
{
  ProfBlock b;

  if (!sampling || getpid () != my_pid)
    return 0;
  block_sigprof (&b);
  disarm_thread ();
  drain_pending ();
  unblock_sigprof_restore (&b);
  return 1;
}

static void
after_failed_exec (int armed)
{
  int saved_errno = errno;

  if (armed)
    arm_thread ();
  errno = saved_errno;
}

PUBLIC int
execve (const char  *path,
        char *const  argv[],
        char *const  envp[])
{
  int armed, r;

  RESOLVE (execve);
  armed = before_exec ();
  r = real_execve (path, argv, envp);
  after_failed_exec (armed);
  return r;
}

PUBLIC int
execvpe (const char  *file,
         char *const  argv[],
         char *const  envp[])
{
  int armed, r;

  RESOLVE (execvpe);
  armed = before_exec ();
  r = real_execvpe (file, argv, envp);
  after_failed_exec (armed);
  return r;
}

PUBLIC int
fexecve (int          fd,
         char *const  argv[],
         char *const  envp[])
{
  int armed, r;

  RESOLVE (fexecve);
  armed = before_exec ();
  r = real_fexecve (fd, argv, envp);
  after_failed_exec (armed);
  return r;
}

PUBLIC int
execveat (int          dirfd,
          const char  *path,
          char *const  argv[],
          char *const  envp[],
          int          flags)
{
  int armed, r;

  RESOLVE (execveat);
  armed = before_exec ();
  r = real_execveat (dirfd, path, argv, envp, flags);
  after_failed_exec (armed);
  return r;
}

/* glibc's execv, execvp, execl, … call __execve directly, past an
 * interposed execve: each goes through the wrappers above. */
PUBLIC int
execv (const char  *path,
       char *const  argv[])
{
  return execve (path, argv, environ);
}

PUBLIC int
execvp (const char  *file,
        char *const  argv[])
{
  return execvpe (file, argv, environ);
}

#define COLLECT_ARGS(first, last_arg, argv)                          \
  size_t n_ = 1;                                                    \
  va_list ap_;                                                      \
  va_start (ap_, last_arg);                                         \
  while (va_arg (ap_, char *) != NULL)                              \
    n_++;                                                           \
  va_end (ap_);                                                     \
  char *argv[n_ + 1];                                               \
  argv[0] = (char *) (first);                                       \
  va_start (ap_, last_arg);                                         \
  for (size_t i_ = 1; i_ <= n_; i_++)                               \
    argv[i_] = va_arg (ap_, char *);                                \

PUBLIC int
execl (const char *path,
       const char *arg,
       ...)
{
  COLLECT_ARGS (arg, arg, argv);
  va_end (ap_);
  return execve (path, argv, environ);
}

PUBLIC int
execlp (const char *file,
        const char *arg,
        ...)
{
  COLLECT_ARGS (arg, arg, argv);
  va_end (ap_);
  return execvpe (file, argv, environ);
}

PUBLIC int
execle (const char *path,
        const char *arg,
        ...)
{
  COLLECT_ARGS (arg, arg, argv);
  char **envp = va_arg (ap_, char **);
  va_end (ap_);
  return execve (path, argv, envp);
}

/* ---- fork ---- */

static void
on_fork_child (void)
{
  pid_t parent = my_pid;

  /* Timers are not inherited: the registry describes the parent's. */
  my_pid = getpid ();
  memset (slots, 0, sizeof slots);
  thread_slot = 0;
  (void) parent;
  if (!sampling)
    return;
  if (!follow_children)
    {
      sampling = 0;
      send_hello (FLAME_HELLO_FORKED | FLAME_HELLO_DISABLED);
      return;
    }
  send_hello (FLAME_HELLO_FORKED);
  arm_thread ();
}

/* ---- start and end ---- */

static int
env_long (const char *name,
          long       *value)
{
  const char *s = getenv (name);
  char *end;

  if (s == NULL || *s == '\0')
    return 0;
  errno = 0;
  *value = strtol (s, &end, 10);
  return errno == 0 && *end == '\0';
}

__attribute__((constructor)) static void
sampler_init (void)
{
  struct sigaction sa, old;
  long v;
  uintptr_t ldso_base;
  char root[32];

  resolve_all ();
  my_pid = getpid ();
  if (!env_long (FLAME_SAMPLER_ENV_FD, &v) || v < 0)
    return;  /* loaded without a recorder: stay out of the way */
  sock_fd = (int) v;
  if (env_long (FLAME_SAMPLER_ENV_INO, &v))
    sock_ino = (ino_t) v;
  if (!socket_ok ())
    return;
  if (env_long (FLAME_SAMPLER_ENV_HZ, &v) && v > 0 && v <= 100000)
    hz = (unsigned) v;
  period_ns = 1000000000L / (long) hz;
  if (env_long (FLAME_SAMPLER_ENV_CHILDREN, &v))
    follow_children = v != 0;

  /* The first image to load the sampler is the root of the recording;
   * with children not followed, every other process only says hello. */
  if (!env_long (FLAME_SAMPLER_ENV_ROOT, &v))
    {
      snprintf (root, sizeof root, "%d", (int) my_pid);
      setenv (FLAME_SAMPLER_ENV_ROOT, root, 1);
      v = my_pid;
    }
  if (!follow_children && v != my_pid)
    {
      send_hello (FLAME_HELLO_DISABLED);
      return;
    }

  /* Someone (another profiler, a language runtime) already owns SIGPROF */
  if (real_sigaction (SIGPROF, NULL, &old) == 0 &&
      (old.sa_flags & SA_SIGINFO || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)))
    {
      send_hello (FLAME_HELLO_DISABLED);
      send_note ("SIGPROF already has a handler in this process: not sampled");
      return;
    }

  ldso_base = getauxval (AT_BASE);
  if (ldso_base != 0)
    real_dl_iterate_phdr (find_ldso, &ldso_base);

  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  real_sigaction (SIGPROF, &sa, NULL);

  pthread_key_create (&thread_key, thread_exit);
  pthread_atfork (NULL, NULL, on_fork_child);

  /* Debian's libunwind falls back to its global cache when built without
   * per-thread caches; either way this is the place to choose, never the
   * handler. */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_PER_THREAD);
  warm_unwinder ();

  sampling = 1;
  send_hello (0);
  send_modules ();
  unblock_sigprof ();
  arm_thread ();
}

__attribute__((destructor)) static void
sampler_fini (void)
{
  FlameRecExit e;

  if (!sampling)
    return;
  disarm_thread ();
  memset (&e, 0, sizeof e);
  header (&e.h, FLAME_REC_EXIT, 0);
  e.lost = __atomic_load_n (&lost, __ATOMIC_RELAXED);
  send_wait (&e, sizeof e);
}

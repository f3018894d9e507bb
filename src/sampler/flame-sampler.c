/* flame-sampler.c: libflamediff-sampler.so, preloaded into the recorded
 * program (LD_PRELOAD).
 *
 * Every thread gets a CPU-time timer (timer_create on
 * CLOCK_THREAD_CPUTIME_ID, delivered to that thread with SIGEV_THREAD_ID),
 * so threads are sampled in proportion to the CPU they use. The SIGPROF
 * handler unwinds with libunwind's unw_backtrace and appends the
 * instruction pointers to a ring buffer preallocated for its thread; a
 * writer thread drains the rings to the recorder, one SOCK_SEQPACKET
 * message per record (see flame-sampler-protocol.h). A full ring counts
 * the sample as lost: the program never waits for the recorder.
 *
 * What the rings hold when the process ends is not lost either: exit(),
 * _exit(), exec, dlopen of new modules and every signal whose default
 * action ends the process (crashes, abort, SIGINT, SIGTERM, …) drain them
 * first. Only SIGKILL (and a raw exit_group) can take what was sampled
 * since the writer's last pass, at most FLAMEDIFF_SAMPLER_FLUSH_MS.
 *
 * The timer's period is jittered: each expiry is drawn uniformly within
 * ±FLAMEDIFF_SAMPLER_JITTER % (default 10) of the nominal period, so that
 * work repeating at the period (or a multiple) cannot stay in step with
 * the samples. The handler re-arms the timer at an absolute CPU time
 * (TIMER_ABSTIME, from the expiry it was due at, not from now: no period
 * is lost to the delivery's lateness) and counts the drawn expiries that
 * passed as the sample's weight; the draws average the nominal period, so
 * weight × period stays an unbiased measure of CPU time.
 *
 * Only libc and libunwind (or libgcc, below): no GLib here. The handlers
 * only call async-signal-safe functions (the unwinder, memcpy, send,
 * futex, fstat, nanosleep).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "flame-sampler-internal.h"
#include "flame-sampler-protocol.h"
#include "flame-sampler-python.h"

/* Two builds of this file: libflamediff-sampler.so unwinds with libunwind
 * (unw_backtrace and its per-thread trace cache); the host build
 * (FLAME_SAMPLER_LIBGCC) with libgcc's _Unwind_Backtrace, which on glibc
 * >= 2.35 finds unwind tables through _dl_find_object without the
 * loader's lock, and needs nothing but libc and libgcc_s: what a program
 * outside a Flatpak sandbox can load. */
#ifdef FLAME_SAMPLER_LIBGCC
#include <unwind.h>
#else
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#define PUBLIC __attribute__((visibility ("default")))
#define TLS __thread __attribute__((tls_model ("initial-exec")))

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define SKIP_MAX FLAME_SAMPLER_SKIP_MAX

/* ---- settings and process state ---- */

typedef struct Ring Ring;

static int sock_fd = -1;
static ino_t sock_ino;
static unsigned hz = 999;
static long period_ns;
static long jitter_ns;            /* half the width of the periods drawn; 0: fixed */
static uint64_t periods_drawn;    /* atomic, for the exit record */
static uint64_t period_sum_ns;    /* atomic */
static uint64_t period_min_ns = UINT64_MAX;  /* atomic */
static uint64_t period_max_ns;    /* atomic */
static int follow_children = 1;
static int read_python = 1;       /* Python frames in the samples */
static int measure_self;          /* time the handler (tools/bench.sh) */
static uint64_t handler_ns;       /* atomic: CPU time in the handler */
static uint32_t handler_calls;    /* atomic */
static size_t ring_bytes = 64 * 1024;   /* per thread, a power of two */
static long flush_ms = 10;              /* the writer's pause while samples come */
static volatile int sampling;     /* this process arms timers */
static pid_t my_pid;
static uint32_t lost;             /* atomic: samples not delivered */
static pthread_key_t thread_key;
static uintptr_t ldso_lo, ldso_hi;  /* text of the dynamic loader */
static uintptr_t self_lo, self_hi;  /* this library's text */
static int memory_mode;           /* allocations, not CPU time: no timers */

static TLS int in_handler;
static TLS int thread_slot;       /* registry index + 1, 0 = not registered */
static TLS Ring *thread_ring;     /* this thread's ring, NULL = send directly */
static TLS uint64_t rng_state;    /* xorshift64*, per thread */
static TLS uint64_t next_expiry;  /* thread CPU time the timer is due at, ns */

/* Every thread's ring and timer, so the writer can find the rings and
 * the timers can all be deleted at once when the program takes SIGPROF
 * for itself. A slot is LIVE while its thread runs and RETIRED after it
 * exits until its ring is drained; rings are kept for the next thread. */
#define MAX_SLOTS 4096
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE, SLOT_RETIRED };
enum { TIMER_NONE, TIMER_BUSY, TIMER_ARMED };
static struct
{
  int      state;
  int      timer_state;
  timer_t  timer;
  Ring    *ring;
} slots[MAX_SLOTS];
static int n_slots;               /* high-water mark of used slots */

/* The real functions behind the ones interposed here */
static int (*real_pthread_create) (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
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
static void  (*real__exit) (int) __attribute__((noreturn));
static void  (*real__Exit) (int) __attribute__((noreturn));
static void  (*real_quick_exit) (int) __attribute__((noreturn));
static int   (*real_unshare) (int);
static int   (*real_setns) (int, int);
static int   (*real_close) (int);
static int   (*real_close_range) (unsigned, unsigned, int);
static void  (*real_closefrom) (int);

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
  RESOLVE (_exit);
  RESOLVE (_Exit);
  RESOLVE (quick_exit);
  RESOLVE (unshare);
  RESOLVE (setns);
  RESOLVE (close);
  RESOLVE (close_range);
  RESOLVE (closefrom);
}

static pid_t
my_gettid (void)
{
  return (pid_t) syscall (SYS_gettid);
}

static int64_t
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
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

/* Until the socket has room for a record, at most @ms */
static void
wait_for_room (int ms)
{
  struct pollfd p = { .fd = sock_fd, .events = POLLOUT };

  poll (&p, 1, ms);
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
      wait_for_room (50);
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

/* ---- per-thread rings ----
 *
 * One producer (the owning thread's SIGPROF handler) and one consumer at
 * a time (whoever holds the drain lock: the writer thread, or a thread
 * that is about to end the process or exec). Records are stored as a u32
 * length and the record, wrapping around the end; head and tail count
 * bytes ever written and consumed. */

struct Ring
{
  uint32_t      head;
  uint32_t      tail;
  uint32_t      mask;   /* size - 1 */
  uint32_t      reserved;
  unsigned char data[];
};

static Ring *
ring_new (void)
{
  Ring *r = mmap (NULL, sizeof (Ring) + ring_bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (r == MAP_FAILED)
    return NULL;
  r->mask = (uint32_t) ring_bytes - 1;
  return r;
}

static void
ring_copy_in (Ring       *r,
              uint32_t    pos,
              const void *src,
              uint32_t    n)
{
  uint32_t off = pos & r->mask;
  uint32_t first = r->mask + 1 - off;

  if (first > n)
    first = n;
  memcpy (r->data + off, src, first);
  memcpy (r->data, (const unsigned char *) src + first, n - first);
}

/* The handler's side. Returns the bytes in use afterwards, 0 when the
 * record did not fit. */
static uint32_t
ring_push (Ring       *r,
           const void *rec,
           uint32_t    len)
{
  uint32_t head = __atomic_load_n (&r->head, __ATOMIC_RELAXED);
  uint32_t tail = __atomic_load_n (&r->tail, __ATOMIC_ACQUIRE);
  uint32_t need = (uint32_t) sizeof len + len;

  if (need > r->mask + 1 - (head - tail))
    return 0;
  ring_copy_in (r, head, &len, sizeof len);
  ring_copy_in (r, head + sizeof len, rec, len);
  __atomic_store_n (&r->head, head + need, __ATOMIC_RELEASE);
  return head + need - tail;
}

/* The record at @pos (before @head) as one or two pieces; its length,
 * or 0 when what is there is not a record. */
static uint32_t
ring_peek_at (Ring         *r,
              uint32_t      pos,
              uint32_t      head,
              struct iovec  iov[2],
              int          *n_iov)
{
  uint32_t len, off, first;
  unsigned char *p = (unsigned char *) &len;

  if (head - pos < sizeof len)
    return 0;
  for (uint32_t i = 0; i < sizeof len; i++)
    p[i] = r->data[(pos + i) & r->mask];
  if (len == 0 || len > FLAME_SAMPLER_MAX_RECORD || sizeof len + len > head - pos)
    return 0;
  off = (pos + sizeof len) & r->mask;
  first = r->mask + 1 - off;
  iov[0].iov_base = r->data + off;
  iov[0].iov_len = first < len ? first : len;
  iov[1].iov_base = r->data;
  iov[1].iov_len = len - iov[0].iov_len;
  *n_iov = iov[1].iov_len > 0 ? 2 : 1;
  return len;
}

/* Forget what a ring holds (a fork child: the records are the parent's) */
static void
ring_reset (Ring *r)
{
  r->tail = r->head;
}

/* ---- draining ---- */

static int drain_owner;           /* futex: tid holding the drain lock, 0 = free */
static int drain_waiters;         /* atomic: threads asleep on drain_owner */

/* Waits up to @wait_ms for the lock, asleep on the futex until its
 * holder lets go; never succeeds for the thread that already holds it
 * (a signal that interrupted its own drain). */
static int
drain_lock (long wait_ms)
{
  int self = (int) my_gettid ();
  int64_t deadline = wait_ms > 0 ? now_ms () + wait_ms : 0;

  for (;;)
    {
      int expected = 0;
      int64_t left;

      if (__atomic_compare_exchange_n (&drain_owner, &expected, self, 0,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 1;
      if (expected == self || wait_ms <= 0 || (left = deadline - now_ms ()) <= 0)
        return 0;
      {
        struct timespec ts = { left / 1000, (left % 1000) * 1000000 };

        /* asleep while the holder is still @expected: an unlock between
         * the look and the wait makes the wait return at once */
        __atomic_add_fetch (&drain_waiters, 1, __ATOMIC_SEQ_CST);
        syscall (SYS_futex, &drain_owner, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
        __atomic_sub_fetch (&drain_waiters, 1, __ATOMIC_SEQ_CST);
      }
    }
}

static void
drain_unlock (void)
{
  __atomic_store_n (&drain_owner, 0, __ATOMIC_SEQ_CST);
  /* all of them (few): one that wakes as its time runs out takes no
   * lock and wakes no one */
  if (__atomic_load_n (&drain_waiters, __ATOMIC_SEQ_CST) > 0)
    syscall (SYS_futex, &drain_owner, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* Sends up to DRAIN_BATCH records per sendmmsg: one system call (and one
 * wakeup of the recorder) for what a ring gathered between passes. */
#define DRAIN_BATCH 16

/* One ring: the records it took, or -1 when the socket is full and
 * @deadline is 0 (see drain_all). */
static int
drain_ring (Ring    *r,
            int      usable,
            int64_t  deadline)
{
  int taken = 0;

  for (;;)
    {
      struct mmsghdr msgs[DRAIN_BATCH];
      struct iovec iov[DRAIN_BATCH][2];
      uint32_t lens[DRAIN_BATCH];
      uint32_t tail = __atomic_load_n (&r->tail, __ATOMIC_RELAXED);
      uint32_t head = __atomic_load_n (&r->head, __ATOMIC_ACQUIRE);
      uint32_t pos = tail;
      int n = 0, sent;

      while (n < DRAIN_BATCH && pos != head)
        {
          int n_iov;
          uint32_t len = ring_peek_at (r, pos, head, iov[n], &n_iov);

          if (len == 0)
            break;
          memset (&msgs[n], 0, sizeof msgs[n]);
          msgs[n].msg_hdr.msg_iov = iov[n];
          msgs[n].msg_hdr.msg_iovlen = n_iov;
          lens[n++] = len;
          pos += sizeof len + len;
        }
      if (n == 0)
        {
          if (pos != head)
            {
              /* not a record: only if the program wrote over our memory */
              __atomic_store_n (&r->tail, head, __ATOMIC_RELEASE);
              __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
            }
          return taken;
        }

      sent = usable ? sendmmsg (sock_fd, msgs, (unsigned) n, MSG_DONTWAIT | MSG_NOSIGNAL) : -1;
      if (sent < 0 && usable && errno == EINTR)
        continue;
      if (sent < 0 && usable && errno == EAGAIN)
        {
          int64_t left = deadline - now_ms ();

          if (deadline == 0)
            return -1;
          if (left > 0)
            {
              wait_for_room ((int) (left < 50 ? left : 50));
              continue;
            }
        }
      if (sent <= 0)
        {
          /* cannot be delivered: dropped, counted */
          sent = usable ? 1 : n;
          __atomic_add_fetch (&lost, (uint32_t) sent, __ATOMIC_RELAXED);
        }
      else
        for (int i = 0; i < sent; i++)
          if (msgs[i].msg_len != lens[i])
            __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
      pos = tail;
      for (int i = 0; i < sent; i++)
        pos += sizeof lens[i] + lens[i];
      __atomic_store_n (&r->tail, pos, __ATOMIC_RELEASE);
      taken += sent;
    }
}

/* Sends what every ring holds, in order per thread; returns how many
 * records it took. With @deadline 0 (the writer) it returns -1 as soon as
 * the socket is full, to wait without the lock; otherwise it waits for
 * room until @deadline (ms, CLOCK_MONOTONIC). Records that cannot be
 * delivered (the program closed our descriptor, the recorder went away)
 * are counted as lost. */
static int
drain_all (int64_t deadline)
{
  int usable = socket_ok ();
  int n = __atomic_load_n (&n_slots, __ATOMIC_ACQUIRE);
  int taken = 0;

  for (int i = 0; i < n; i++)
    {
      int state = __atomic_load_n (&slots[i].state, __ATOMIC_ACQUIRE);
      int t;

      if (state != SLOT_LIVE && state != SLOT_RETIRED)
        continue;
      if (slots[i].ring != NULL)
        {
          t = drain_ring (slots[i].ring, usable, deadline);
          if (t < 0)
            return -1;
          taken += t;
        }
      if (state == SLOT_RETIRED)
        {
          /* its thread is gone and its ring empty: the slot can be reused */
          int expected = SLOT_RETIRED;

          __atomic_compare_exchange_n (&slots[i].state, &expected, SLOT_FREE, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
        }
    }
  return taken;
}

static int
rings_empty (void)
{
  int n = __atomic_load_n (&n_slots, __ATOMIC_ACQUIRE);

  for (int i = 0; i < n; i++)
    {
      int state = __atomic_load_n (&slots[i].state, __ATOMIC_ACQUIRE);
      Ring *r = slots[i].ring;

      if ((state == SLOT_LIVE || state == SLOT_RETIRED) && r != NULL &&
          __atomic_load_n (&r->head, __ATOMIC_ACQUIRE) !=
            __atomic_load_n (&r->tail, __ATOMIC_RELAXED))
        return 0;
    }
  return 1;
}

/* From a thread about to end the process, exec or describe new modules:
 * everything sampled so far reaches the recorder first (waiting up to a
 * second for room). Async-signal-safe. A vfork child shares our memory
 * but is another process: it leaves the rings to the parent. */
static void
flush_rings (void)
{
  if (__atomic_load_n (&n_slots, __ATOMIC_ACQUIRE) == 0 || getpid () != my_pid ||
      !drain_lock (200))
    return;
  drain_all (now_ms () + 1000);
  drain_unlock ();
}

/* ---- the writer thread ---- */

static int writer_running;        /* the handler may use the rings */
static int writer_quit;
static int wake_word;             /* futex: 1 = the writer has work */
static int writer_idle;           /* asleep until a handler has a sample */
static pthread_t writer_thread;

static void
wake_writer (void)
{
  if (__atomic_exchange_n (&wake_word, 1, __ATOMIC_ACQ_REL) == 0)
    syscall (SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* A pass every flush_ms while samples come (sooner when a ring is half
 * full); once a pass finds nothing, asleep until a handler stores the
 * next sample, so an idle program costs no wakeups. */
static void *
writer_main (void *data)
{
  struct timespec interval = { flush_ms / 1000, (flush_ms % 1000) * 1000000 };
  struct timespec idle = { 1, 0 };

  while (!__atomic_load_n (&writer_quit, __ATOMIC_ACQUIRE))
    {
      int taken;

      /* While another thread drains (one about to exit, exec or load
       * modules, which may wait up to a second for room), asleep until
       * it is done: trying again at once would spin for all that time,
       * and under valgrind, which runs one thread at a time, keep the
       * holder from finishing. */
      if (!drain_lock (flush_ms))
        continue;
      taken = drain_all (0);
      drain_unlock ();
      if (taken < 0)
        {
          /* the recorder is behind: wait for room, not holding the lock */
          wait_for_room ((int) flush_ms);
          continue;
        }
      if (__atomic_exchange_n (&wake_word, 0, __ATOMIC_ACQ_REL) != 0)
        continue;
      if (taken > 0)
        {
          syscall (SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, 0, &interval, NULL, 0);
          continue;
        }
      /* pairs with the fence in the handler: either it sees us idle and
       * wakes us, or we see its sample here */
      __atomic_store_n (&writer_idle, 1, __ATOMIC_SEQ_CST);
      __atomic_thread_fence (__ATOMIC_SEQ_CST);
      if (rings_empty ())
        syscall (SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, 0, &idle, NULL, 0);
      __atomic_store_n (&writer_idle, 0, __ATOMIC_SEQ_CST);
      /* that wake asked for this pass only: then the usual pause */
      __atomic_store_n (&wake_word, 0, __ATOMIC_RELEASE);
    }
  return NULL;
}

/* With every signal blocked, so the program's signals go to its own
 * threads; not sampled (no timer). */
static void
start_writer (void)
{
  pthread_attr_t attr;
  sigset_t all, old;
  int r;

  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, 64 * 1024);
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  __atomic_store_n (&writer_quit, 0, __ATOMIC_RELEASE);
  __atomic_store_n (&writer_running, 1, __ATOMIC_RELEASE);
  r = real_pthread_create (&writer_thread, &attr, writer_main, NULL);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  pthread_attr_destroy (&attr);
  if (r == 0)
    pthread_setname_np (writer_thread, "flamediff-out");
  else
    {
      /* no thread: the handler sends each sample itself */
      __atomic_store_n (&writer_running, 0, __ATOMIC_RELEASE);
      flush_rings ();
    }
}

/* For the calls that need a single-threaded process. Returns whether
 * the writer was running (and must be started again). */
static int
stop_writer (void)
{
  if (!__atomic_load_n (&writer_running, __ATOMIC_ACQUIRE) || getpid () != my_pid)
    return 0;
  __atomic_store_n (&writer_running, 0, __ATOMIC_RELEASE);
  __atomic_store_n (&writer_quit, 1, __ATOMIC_RELEASE);
  wake_writer ();
  pthread_join (writer_thread, NULL);
  flush_rings ();
  return 1;
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
    {
      /* The vDSO has no file; the recorder reads its own copy (the same
       * kernel's) when the build-ids match. Anything else unnamed is
       * skipped. */
      if (info->dlpi_addr == 0 || info->dlpi_addr != (ElfW(Addr)) getauxval (AT_SYSINFO_EHDR))
        return 0;
      path = FLAME_SAMPLER_VDSO_PATH;
    }

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

/* returns whether there were new ones */
static int
send_modules (void)
{
  Pending pending = { 0 };

  if (!sampling)
    return 0;
  pthread_mutex_lock (&modules_lock);
  dl_iterate_phdr (collect_module, &pending);
  pthread_mutex_unlock (&modules_lock);
  /* Samples taken before the new modules go first: a module loaded where
   * an unloaded one was starts a new set of names for what follows. */
  if (pending.len > 0)
    flush_rings ();
  for (size_t off = 0; off < pending.len; )
    {
      uint32_t len;

      memcpy (&len, pending.buf + off, sizeof len);
      off += sizeof len;
      send_wait (pending.buf + off, len);
      off += len;
    }
  free (pending.buf);
  return pending.len > 0;
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

static int
find_self (struct dl_phdr_info *info,
           size_t               size,
           void                *data)
{
  uintptr_t addr = (uintptr_t) data;

  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo && addr < lo + ph->p_memsz)
        {
          self_lo = lo;
          self_hi = lo + ph->p_memsz;
          return 1;
        }
    }
  return 0;
}

/* ---- the signal handler ---- */

/* backtrace_ips_cfa also gives each frame's CFA (the caller's stack
 * pointer at the call: the frame's own stack memory lies below it),
 * which places the Python frames of CPython 3.12+ */
#ifdef FLAME_SAMPLER_LIBGCC
typedef struct
{
  uint64_t *ips, *cfas;
  int       n, max;
} Trace;

static _Unwind_Reason_Code
trace_frame (struct _Unwind_Context *context,
             void                   *data)
{
  Trace *t = data;
  uintptr_t ip = _Unwind_GetIP (context);

  if (ip == 0 || t->n >= t->max)
    return _URC_END_OF_STACK;  /* 0: the thread's base */
  if (t->cfas != NULL)
    t->cfas[t->n] = _Unwind_GetCFA (context);
  t->ips[t->n++] = ip;
  return _URC_NO_REASON;
}

static int
backtrace_ips (uint64_t *ips,
               int       max)
{
  Trace t = { ips, NULL, 0, max };

  _Unwind_Backtrace (trace_frame, &t);
  return t.n;
}

static int
backtrace_ips_cfa (uint64_t   *ips,
                   uint64_t   *cfas,
                   int         max,
                   ucontext_t *uc)
{
  Trace t = { ips, cfas, 0, max };

  (void) uc;
  _Unwind_Backtrace (trace_frame, &t);
  return t.n;
}
#else
static int
backtrace_ips (uint64_t *ips,
               int       max)
{
  return unw_backtrace ((void **) ips, max);
}

/* from the interrupted frame (the ucontext) on, or without one from
 * here, step by step: slower than unw_backtrace's trace cache, so only
 * for stacks that need it */
static int
backtrace_ips_cfa (uint64_t   *ips,
                   uint64_t   *cfas,
                   int         max,
                   ucontext_t *uc)
{
  unw_cursor_t cursor;
  unw_context_t here;
  unw_word_t ip, sp;
  int n = 0;

  if (uc != NULL)
    {
      if (unw_init_local2 (&cursor, (unw_context_t *) uc, UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    }
  else if (unw_getcontext (&here) < 0 || unw_init_local (&cursor, &here) < 0)
    return 0;
  while (n < max)
    {
      if (unw_get_reg (&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
        break;
      ips[n] = ip;
      if (unw_step (&cursor) <= 0 || unw_get_reg (&cursor, UNW_REG_SP, &sp) < 0)
        {
          cfas[n++] = UINT64_MAX;
          break;
        }
      cfas[n++] = sp;
    }
  return n;
}
#endif

/* Python frames whose run of the evaluation loop left its entry frame on
 * the native stack: the index of the native frame whose stack memory
 * holds it */
static void
place_python (uint64_t       *py,
              const uintptr_t *shims,
              int             n_py,
              const uint64_t *cfas,
              int             n,
              uint64_t        sp)
{
  for (int i = 0; i < n_py; i++)
    {
      uint64_t lo = sp;

      if (shims[i] == 0)
        continue;
      for (int k = 0; k < n && k < 127; k++)
        {
          if (shims[i] >= lo && shims[i] < cfas[k])
            {
              py[i] = FLAME_PY_FRAME_SET_NATIVE (py[i], k);
              break;
            }
          lo = cfas[k];
        }
    }
}

/* the handler's way to store a code object's record before the stack
 * that names it: into the thread's ring, or straight to the socket */
static int
emit_record (void     *rec,
             uint32_t  len,
             void     *data)
{
  Ring *ring = thread_ring;

  (void) data;
  header (rec, FLAME_REC_PYCODE, 0);
  if (ring != NULL && __atomic_load_n (&writer_running, __ATOMIC_ACQUIRE))
    return ring_push (ring, rec, len) != 0;
  return socket_ok () && send_now (rec, len);
}

/* the same outside a signal handler (an allocation): may wait for room */
static int
emit_record_wait (void     *rec,
                  uint32_t  len,
                  void     *data)
{
  (void) data;
  header (rec, FLAME_REC_PYCODE, 0);
  return flame_sampler_push (rec, len);
}

int
flame_sampler_stack (uint64_t   *ips,
                     uintptr_t   pc,
                     ucontext_t *uc,
                     uint32_t   *n_py_out,
                     uint16_t   *flags)
{
  uint64_t py[FLAME_PY_MAX_FRAMES];
  uintptr_t shims[FLAME_PY_MAX_FRAMES];
  uint64_t cfas[FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX];
  int n, n_py = 0, first = -1, py_truncated = 0, with_cfa = 0;

  *flags = 0;
  if (read_python)
    {
      n_py = flame_py_stack (py, shims, FLAME_PY_MAX_FRAMES, &py_truncated,
                             uc != NULL ? emit_record : emit_record_wait, NULL);
      for (int i = 0; i < n_py && !with_cfa; i++)
        with_cfa = shims[i] != 0;
    }

  if (pc >= ldso_lo && pc < ldso_hi)
    {
      /* The thread is inside the dynamic loader (lazy binding, an
       * internal dlopen) and may hold its locks; libunwind's
       * dl_iterate_phdr could then wait for them forever. Keep the PC
       * alone. */
      ips[0] = pc;
      n = 1;
      *flags = FLAME_SAMPLE_TRUNCATED;
    }
  else
    {
      n = with_cfa ? backtrace_ips_cfa (ips, cfas, FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX, uc)
                   : backtrace_ips (ips, FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX);
      if (uc != NULL)
        {
          for (int i = 0; i < n && i < SKIP_MAX; i++)
            if (ips[i] == pc)
              {
                first = i;
                break;
              }
        }
      else
        for (first = 0; first < n && first < SKIP_MAX && flame_sampler_in_self (ips[first]);
             first++)
          ;
      if (first < 0)
        {
          /* could not unwind through the signal frame: the PC alone */
          ips[0] = pc;
          n = 1;
          *flags = FLAME_SAMPLE_TRUNCATED;
        }
      else
        {
          if (n == FLAME_SAMPLER_MAX_FRAMES + SKIP_MAX || n - first > FLAME_SAMPLER_MAX_FRAMES)
            *flags = FLAME_SAMPLE_TRUNCATED;
          n -= first;
          if (n > FLAME_SAMPLER_MAX_FRAMES)
            n = FLAME_SAMPLER_MAX_FRAMES;
          memmove (ips, ips + first, (size_t) n * sizeof ips[0]);
          /* the innermost frame's stack memory starts at the interrupted
           * SP, or at the CFA of the last of our own frames */
          if (with_cfa)
            place_python (py, shims, n_py, cfas + first, n,
                          uc != NULL  ? (uint64_t) uc->uc_mcontext.gregs[REG_RSP]
                          : first > 0 ? cfas[first - 1]
                                      : (uint64_t) (uintptr_t) __builtin_frame_address (0));
        }
    }
  if (py_truncated)
    *flags |= FLAME_SAMPLE_PY_TRUNCATED;
  memcpy (ips + n, py, (size_t) n_py * sizeof py[0]);
  *n_py_out = (uint32_t) n_py;
  return n;
}

/* ---- for the memory sampler (flame-sampler-internal.h) ---- */

void
flame_sampler_header (FlameRecHeader *h,
                      int             type,
                      int             flags)
{
  header (h, (FlameRecType) type, (uint16_t) flags);
}

int
flame_sampler_push (void     *rec,
                    uint32_t  len)
{
  Ring *ring = thread_ring;

  if (ring != NULL && __atomic_load_n (&writer_running, __ATOMIC_ACQUIRE))
    {
      uint32_t used = ring_push (ring, rec, len);

      /* Not a signal handler: the thread can wait for the writer (up to
       * a second) rather than lose the record, whose loss would make a
       * freed block look leaked */
      for (int waited = 0; used == 0 && waited < 10000 &&
                           __atomic_load_n (&writer_running, __ATOMIC_ACQUIRE); waited++)
        {
          struct timespec ts = { 0, 100000 };

          wake_writer ();
          nanosleep (&ts, NULL);
          used = ring_push (ring, rec, len);
        }
      __atomic_thread_fence (__ATOMIC_SEQ_CST);
      if (used == 0)
        {
          __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
          return 0;
        }
      if (used > (ring->mask + 1) / 2 || __atomic_load_n (&writer_idle, __ATOMIC_RELAXED))
        wake_writer ();
      return 1;
    }
  if (socket_ok () && send_now (rec, len))
    return 1;
  __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
  return 0;
}

int
flame_sampler_send_wait (const void *rec,
                         size_t      len)
{
  return send_wait (rec, len);
}

int
flame_sampler_in_self (uintptr_t pc)
{
  return pc >= self_lo && pc < self_hi;
}

uint32_t
flame_sampler_lost (void)
{
  return __atomic_load_n (&lost, __ATOMIC_RELAXED);
}

static uint32_t rearm_jittered (void);

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
    uint64_t       ips[FLAME_SAMPLER_STACK_ROOM];
  } rec;
  uint32_t len;
  Ring *ring;
  int n;
  struct timespec t0, t1;

  if (in_handler || !sampling || info->si_code != SI_TIMER)
    {
      errno = saved_errno;
      return;
    }
  in_handler = 1;
  if (measure_self)
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t0);

  header (&rec.s.h, FLAME_REC_SAMPLE, 0);
  if (jitter_ns > 0 && next_expiry != 0)
    rec.s.weight = rearm_jittered ();
  else
    rec.s.weight = 1 + (uint32_t) (info->si_overrun > 0 ? info->si_overrun : 0);
  n = flame_sampler_stack (rec.ips, (uintptr_t) uc->uc_mcontext.gregs[REG_RIP], uc,
                           &rec.s.n_py, &rec.s.h.flags);
  rec.s.n_frames = (uint32_t) n;
  rec.s.lost = __atomic_load_n (&lost, __ATOMIC_RELAXED);
  len = (uint32_t) (sizeof rec.s + (size_t) n * sizeof rec.ips[0] +
                    (size_t) rec.s.n_py * sizeof rec.ips[0]);
  ring = thread_ring;
  if (ring != NULL && __atomic_load_n (&writer_running, __ATOMIC_ACQUIRE))
    {
      uint32_t used = ring_push (ring, &rec, len);

      __atomic_thread_fence (__ATOMIC_SEQ_CST);
      if (used == 0)
        __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
      else if (used > (ring->mask + 1) / 2 || __atomic_load_n (&writer_idle, __ATOMIC_RELAXED))
        wake_writer ();
    }
  else if (!socket_ok () || !send_now (&rec, len))
    {
      /* no ring (thread registry full, fork child without a writer):
       * straight to the socket */
      __atomic_add_fetch (&lost, 1, __ATOMIC_RELAXED);
    }

  if (measure_self)
    {
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t1);
      __atomic_add_fetch (&handler_ns, (uint64_t) ((t1.tv_sec - t0.tv_sec) * 1000000000L +
                                                   (t1.tv_nsec - t0.tv_nsec)), __ATOMIC_RELAXED);
      __atomic_add_fetch (&handler_calls, 1, __ATOMIC_RELAXED);
    }
  in_handler = 0;
  errno = saved_errno;
}

/* ---- the timer's period, jittered ---- */

static uint64_t
ts_ns (const struct timespec *ts)
{
  return (uint64_t) ts->tv_sec * 1000000000u + (uint64_t) ts->tv_nsec;
}

static struct timespec
ns_ts (uint64_t ns)
{
  struct timespec ts = { (time_t) (ns / 1000000000u), (long) (ns % 1000000000u) };

  return ts;
}

/* One period, uniform in [period - jitter, period + jitter]; async-signal-
 * safe (TLS state, atomics) */
static uint64_t
draw_period (void)
{
  uint64_t x = rng_state, p, m;

  if (x == 0)
    x = 0x9e3779b97f4a7c15ull ^ (uint64_t) my_gettid ();
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  x *= 0x2545f4914f6cdd1dull;
  p = (uint64_t) (period_ns - jitter_ns) + (x >> 11) % (uint64_t) (2 * jitter_ns + 1);
  __atomic_add_fetch (&periods_drawn, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch (&period_sum_ns, p, __ATOMIC_RELAXED);
  for (m = __atomic_load_n (&period_min_ns, __ATOMIC_RELAXED); p < m; )
    if (__atomic_compare_exchange_n (&period_min_ns, &m, p, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
  for (m = __atomic_load_n (&period_max_ns, __ATOMIC_RELAXED); p > m; )
    if (__atomic_compare_exchange_n (&period_max_ns, &m, p, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
  return p;
}

/* In the handler: the expiries drawn that the thread's CPU time has
 * passed (the sample's weight), and the timer set to the next one. The
 * interval stays the nominal period, should a re-arm be skipped. */
static uint32_t
rearm_jittered (void)
{
  int slot = thread_slot - 1;
  struct timespec now_ts;
  struct itimerspec its;
  uint64_t now, next = next_expiry, periods = 0;

  if (slot < 0 || next == 0 ||
      __atomic_load_n (&slots[slot].timer_state, __ATOMIC_ACQUIRE) != TIMER_ARMED ||
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now_ts) != 0)
    return 1;
  now = ts_ns (&now_ts);
  if (now > next + 64 * (uint64_t) period_ns)
    {
      /* long without a tick (SIGPROF blocked): the bulk at the mean */
      uint64_t k = (now - next) / (uint64_t) period_ns;

      periods += k;
      next += k * (uint64_t) period_ns;
    }
  while (next <= now)
    {
      next += draw_period ();
      periods++;
    }
  next_expiry = next;
  its.it_value = ns_ts (next);
  its.it_interval = ns_ts ((uint64_t) period_ns);
  timer_settime (slots[slot].timer, TIMER_ABSTIME, &its, NULL);
  return periods == 0 ? 1 : periods > UINT32_MAX ? UINT32_MAX : (uint32_t) periods;
}

/* ---- threads: registry, rings and timers ---- */

/* In normal context, before the thread's timer is armed: a slot and a
 * ring (reused from a thread that ended, or new). Without either the
 * thread's samples go straight to the socket. */
static void
register_thread (void)
{
  int slot = -1;

  if (thread_slot != 0)
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
    return;
  if (slots[slot].ring == NULL)
    slots[slot].ring = ring_new ();
  thread_slot = slot + 1;
  thread_ring = slots[slot].ring;
  __atomic_store_n (&slots[slot].state, SLOT_LIVE, __ATOMIC_RELEASE);
  for (int n = __atomic_load_n (&n_slots, __ATOMIC_RELAXED); n < slot + 1; )
    if (__atomic_compare_exchange_n (&n_slots, &n, slot + 1, 0,
                                     __ATOMIC_RELEASE, __ATOMIC_RELAXED))
      break;
}

static void
arm_thread (void)
{
  struct sigevent sev;
  struct itimerspec its;
  int expected = TIMER_NONE;
  int slot = thread_slot - 1;

  if (!sampling || slot < 0 || memory_mode)
    return;  /* an untracked timer could not be stopped: not sampled */
  if (!__atomic_compare_exchange_n (&slots[slot].timer_state, &expected, TIMER_BUSY, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return;
  memset (&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev.sigev_notify_thread_id = my_gettid ();
  if (timer_create (CLOCK_THREAD_CPUTIME_ID, &sev, &slots[slot].timer) != 0)
    {
      __atomic_store_n (&slots[slot].timer_state, TIMER_NONE, __ATOMIC_RELEASE);
      return;
    }
  __atomic_store_n (&slots[slot].timer_state, TIMER_ARMED, __ATOMIC_RELEASE);

  its.it_interval.tv_sec = period_ns / 1000000000;
  its.it_interval.tv_nsec = period_ns % 1000000000;
  its.it_value = its.it_interval;
  if (jitter_ns > 0)
    {
      struct timespec now;

      /* the first expiry drawn too, from this thread's CPU time now */
      if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now) == 0)
        {
          rng_state = 0;
          next_expiry = ts_ns (&now) + draw_period ();
          its.it_value = ns_ts (next_expiry);
          timer_settime (slots[slot].timer, TIMER_ABSTIME, &its, NULL);
          return;
        }
      next_expiry = 0;   /* the fixed period, for this thread */
    }
  timer_settime (slots[slot].timer, 0, &its, NULL);
}

static void
disarm_slot (int slot)
{
  int expected = TIMER_ARMED;

  if (__atomic_compare_exchange_n (&slots[slot].timer_state, &expected, TIMER_BUSY, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    {
      timer_delete (slots[slot].timer);
      __atomic_store_n (&slots[slot].timer_state, TIMER_NONE, __ATOMIC_RELEASE);
    }
}

static void
disarm_thread (void)
{
  if (thread_slot != 0)
    disarm_slot (thread_slot - 1);
}

/* The thread ends: its timer goes, its ring stays until the writer has
 * sent what it holds. */
static void
retire_thread (void)
{
  int slot = thread_slot - 1;

  if (slot < 0)
    return;
  disarm_slot (slot);
  thread_ring = NULL;  /* a tick still queued now goes to the socket */
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  thread_slot = 0;
  __atomic_store_n (&slots[slot].state, SLOT_RETIRED, __ATOMIC_RELEASE);
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
  if (why != NULL)
    send_note (why);
}

static void
warm_unwinder (void)
{
  uint64_t ips[8];

  /* libunwind sets up its per-thread trace cache (pthread_once,
   * pthread_setspecific, mmap) on first use, libgcc its object lookup:
   * do that here, not in the handler. Not the program's memory. */
  if (flame_sampler_memory_set_busy)
    flame_sampler_memory_set_busy (1);
  backtrace_ips (ips, 8);
  if (flame_sampler_memory_set_busy)
    flame_sampler_memory_set_busy (0);
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
  if (memory_mode && flame_sampler_memory_thread_exit)
    flame_sampler_memory_thread_exit ();
  retire_thread ();
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
      register_thread ();
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

/* ---- language runtimes ---- */

/* In normal context, at start and after a dlopen: an interpreter whose
 * frames the handler can read is announced, one it cannot read too (the
 * recorder notes that its samples keep native stacks). */
static void
probe_runtimes (void)
{
  struct
  {
    FlameRecRuntime r;
    char            text[256];
  } rec;
  uint32_t version;
  int supported;

  ProfBlock b;
  int found;

  if (!read_python)
    return;
  /* dlsym runs in the loader, like dlopen */
  block_sigprof (&b);
  found = flame_py_probe (my_pid, rec.text, sizeof rec.text, &version, &supported);
  unblock_sigprof_restore (&b);
  if (!found)
    return;
  memset (&rec.r, 0, sizeof rec.r);
  header (&rec.r.h, FLAME_REC_RUNTIME, supported ? 0 : FLAME_RUNTIME_UNSUPPORTED);
  rec.r.version = version;
  send_wait (&rec, sizeof rec.r + strnlen (rec.text, sizeof rec.text));
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
  if (handle != NULL && send_modules ())
    probe_runtimes ();
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

/* ---- signals ---- */

#define TAKEN_NOTE "the program installs its own SIGPROF handler: sampling stopped for this process"

/* Signals whose default action ends the process. While their disposition
 * is the default, our handler stands in for it: it drains the rings,
 * restores the default and sends the signal again, so the exit status,
 * core dumps and the program's view (sigaction reports SIG_DFL) stay as
 * they were. */
static const int end_signals[] = {
  SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1,
  SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS,
};
static uint64_t end_mask;          /* atomic: signals with our handler */
static int end_handlers_wanted;    /* this process has rings to drain */

static int
is_end_signal (int sig)
{
  for (size_t i = 0; i < sizeof end_signals / sizeof end_signals[0]; i++)
    if (end_signals[i] == sig)
      return 1;
  return 0;
}

static int
standing_in (int sig)
{
  return sig > 0 && sig < 64 &&
         (__atomic_load_n (&end_mask, __ATOMIC_ACQUIRE) & (UINT64_C (1) << sig)) != 0;
}

static void
set_standing_in (int sig,
                 int on)
{
  if (on)
    __atomic_or_fetch (&end_mask, UINT64_C (1) << sig, __ATOMIC_ACQ_REL);
  else
    __atomic_and_fetch (&end_mask, ~(UINT64_C (1) << sig), __ATOMIC_ACQ_REL);
}

static int
is_default (const struct sigaction *act)
{
  return !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
}

static void
report_default (struct sigaction *old)
{
  memset (old, 0, sizeof *old);
  old->sa_handler = SIG_DFL;
  sigemptyset (&old->sa_mask);
}

/* Our stand-in steps back: the disposition is the default again */
static void
restore_default (int sig)
{
  struct sigaction dfl;

  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  set_standing_in (sig, 0);
  real_sigaction (sig, &dfl, NULL);
}

static void
on_end_signal (int        sig,
               siginfo_t *info,
               void      *ucontext)
{
  int saved_errno = errno;

  flush_rings ();
  restore_default (sig);
  /* blocked until this handler returns, then the default action; a
   * fault re-executes the instruction and faults again either way */
  syscall (SYS_tgkill, getpid (), my_gettid (), sig);
  errno = saved_errno;
}

static int
stand_in (int               sig,
          struct sigaction *old)
{
  struct sigaction sa;
  int r;

  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_end_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset (&sa.sa_mask);
  r = real_sigaction (sig, &sa, old);
  if (r == 0)
    set_standing_in (sig, 1);
  return r;
}

static void
install_end_handlers (void)
{
  end_handlers_wanted = 1;
  for (size_t i = 0; i < sizeof end_signals / sizeof end_signals[0]; i++)
    {
      struct sigaction old;

      if (real_sigaction (end_signals[i], NULL, &old) == 0 && is_default (&old))
        stand_in (end_signals[i], NULL);
    }
}

/* The program sets SIGPROF's disposition. A handler of its own takes
 * the signal: stop, and say so. SIG_DFL or SIG_IGN (a fork child resets
 * every signal before exec, as Python's subprocess does) would die of,
 * or drop, our ticks: stop quietly. */
static void
sigprof_taken (int own_handler)
{
  if (sampling && !memory_mode)
    stop_sampling (own_handler ? TAKEN_NOTE : NULL);
}

/* A vfork child (Python's subprocess, posix_spawn) shares our memory but
 * has its own signal dispositions and no timers: its calls pass straight
 * through, or it would stop the parent's sampling and change our state. */
PUBLIC int
sigaction (int                     sig,
           const struct sigaction *act,
           struct sigaction       *old)
{
  int r;

  RESOLVE (sigaction);
  if (getpid () != my_pid)
    return real_sigaction (sig, act, old);
  if (sig == SIGPROF && act != NULL)
    sigprof_taken ((act->sa_flags & SA_SIGINFO) ||
                   (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN));
  if (standing_in (sig))
    {
      if (act == NULL || is_default (act))
        r = 0;  /* ours stays: it is the default */
      else
        {
          /* the program's own handler (or SIG_IGN): ours steps aside */
          set_standing_in (sig, 0);
          r = real_sigaction (sig, act, NULL);
        }
      if (r == 0 && old != NULL)
        report_default (old);
      return r;
    }
  if (act != NULL && is_default (act) && end_handlers_wanted && is_end_signal (sig))
    return stand_in (sig, old);
  return real_sigaction (sig, act, old);
}

PUBLIC sighandler_t
signal (int          sig,
        sighandler_t handler)
{
  struct sigaction old;

  RESOLVE (signal);
  if (getpid () != my_pid)
    return real_signal (sig, handler);
  if (sig == SIGPROF)
    sigprof_taken (handler != SIG_DFL && handler != SIG_IGN);
  if (standing_in (sig))
    {
      if (handler == SIG_DFL)
        return SIG_DFL;
      set_standing_in (sig, 0);
      return real_signal (sig, handler) == SIG_ERR ? SIG_ERR : SIG_DFL;
    }
  if (handler == SIG_DFL && end_handlers_wanted && is_end_signal (sig))
    return stand_in (sig, &old) == 0 ? old.sa_handler : SIG_ERR;
  return real_signal (sig, handler);
}

/* ---- exec ---- */

/* Per-thread timers die with the old image, but a SIGPROF already queued
 * survives exec and would kill an image that has no handler. Delete this
 * thread's timer and drop what is queued, with SIGPROF blocked so nothing
 * new arrives in between; other threads (and their queues) end with the
 * exec. The new image says hello under the same pid, so what this one
 * sampled is sent first. In a vfork child (another pid sharing our
 * memory) there is nothing to do, and touching the registry would
 * corrupt the parent's. */
static int
before_exec (void)
{
  ProfBlock b;
  int armed = 0;

  if (getpid () != my_pid)
    return 0;
  block_sigprof (&b);
  if (sampling)
    {
      disarm_thread ();
      drain_pending ();
      armed = 1;
    }
  flush_rings ();
  unblock_sigprof_restore (&b);
  return armed;
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
remove_end_handlers (void)
{
  end_handlers_wanted = 0;
  for (size_t i = 0; i < sizeof end_signals / sizeof end_signals[0]; i++)
    if (standing_in (end_signals[i]))
      restore_default (end_signals[i]);
}

static void
on_fork_child (void)
{
  int mine = thread_slot - 1;
  int n = n_slots;

  /* Timers are not inherited, the other threads (the writer too) are
   * gone, and what the rings hold is the parent's to send. */
  my_pid = getpid ();
  flame_py_forget_codes (my_pid);
  periods_drawn = period_sum_ns = period_max_ns = 0;   /* the parent's draws are its own */
  period_min_ns = UINT64_MAX;
  drain_owner = 0;
  wake_word = 0;
  writer_idle = 0;
  writer_running = 0;
  for (int i = 0; i < n; i++)
    {
      slots[i].timer_state = TIMER_NONE;
      if (slots[i].ring != NULL)
        ring_reset (slots[i].ring);
      if (i != mine)
        slots[i].state = SLOT_FREE;
    }
  if (!sampling)
    return;
  if (!follow_children)
    {
      sampling = 0;
      remove_end_handlers ();
      send_hello (FLAME_HELLO_FORKED | FLAME_HELLO_DISABLED);
      return;
    }
  send_hello (FLAME_HELLO_FORKED);
  register_thread ();
  start_writer ();
  arm_thread ();
  if (memory_mode && flame_sampler_memory_fork_child)
    flame_sampler_memory_fork_child ();
}

/* unshare (CLONE_NEWUSER …) and setns into a user or mount namespace
 * need a single-threaded process: the writer steps out for the call
 * (the handler sends directly meanwhile). The kernel counts a thread
 * that has just been joined for a moment longer, hence the retries. */
static int
call_single_threaded (int (*fn) (int, int),
                      int   a,
                      int   b)
{
  int restart = stop_writer ();
  int r;

  for (int tries = 0; ; tries++)
    {
      r = fn (a, b);
      if (r == 0 || errno != EINVAL || !restart || tries >= 100)
        break;
      sleep_ms (1);
    }
  if (restart)
    {
      int saved_errno = errno;

      start_writer ();
      errno = saved_errno;
    }
  return r;
}

static int
unshare_fn (int flags,
            int unused)
{
  return real_unshare (flags);
}

static int
setns_fn (int fd,
          int nstype)
{
  return real_setns (fd, nstype);
}

PUBLIC int
unshare (int flags)
{
  RESOLVE (unshare);
  if (flags & (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM))
    return call_single_threaded (unshare_fn, flags, 0);
  return real_unshare (flags);
}

PUBLIC int
setns (int fd,
       int nstype)
{
  RESOLVE (setns);
  return call_single_threaded (setns_fn, fd, nstype);
}

/* ---- our descriptor ---- */

/* Programs close every descriptor they did not open themselves: daemons,
 * and fork children before exec (Python's subprocess does by default).
 * Ours stays open, or the exec'd program could not be recorded and the
 * samples of the rest of the run would be lost. Only while it is still
 * the recorder's socket (a program can dup2 something else onto it). */
static int
is_our_socket (int fd)
{
  return fd >= 0 && fd == sock_fd && socket_ok ();
}

PUBLIC int
close (int fd)
{
  RESOLVE (close);
  if (is_our_socket (fd))
    return 0;
  return real_close (fd);
}

static int
close_range_around (unsigned first,
                    unsigned last,
                    int      flags)
{
  unsigned ours = (unsigned) sock_fd;
  int r = 0;

  if (ours < first || ours > last || !is_our_socket (sock_fd))
    return (int) syscall (SYS_close_range, first, last, flags);
  if (ours > first)
    r = (int) syscall (SYS_close_range, first, ours - 1, flags);
  if (r == 0 && ours < last)
    r = (int) syscall (SYS_close_range, ours + 1, last, flags);
  return r;
}

PUBLIC int
close_range (unsigned first,
             unsigned last,
             int      flags)
{
  return close_range_around (first, last, flags);
}

PUBLIC void
closefrom (int lowfd)
{
  int saved_errno = errno;

  if (lowfd < 0)
    lowfd = 0;
  if (close_range_around ((unsigned) lowfd, ~0U, 0) != 0)
    {
      /* no close_range (old kernel): what glibc would do, one by one */
      RESOLVE (closefrom);
      if (real_closefrom != NULL)
        {
          int keep = is_our_socket (sock_fd) && sock_fd >= lowfd;

          if (keep)
            {
              for (int fd = lowfd; fd < sock_fd; fd++)
                real_close (fd);
              lowfd = sock_fd + 1;
            }
          real_closefrom (lowfd);
        }
    }
  errno = saved_errno;
}

/* Python 3.13 and later start subprocesses with posix_spawn and a
 * closefrom file action (glibc 2.34+), which glibc carries out in the
 * child with its own close_range, never through closefrom above: the
 * child lost the recorder's socket and went unrecorded (Debian
 * unstable's Python 3.13). The action closes around the socket instead:
 * the descriptors below it one by one (closing one that is not open is
 * no error for posix_spawn), then from the one after it. */
PUBLIC int
posix_spawn_file_actions_addclosefrom_np (posix_spawn_file_actions_t *actions,
                                          int                         from)
{
  static int (*real) (posix_spawn_file_actions_t *, int);

  if (real == NULL)
    real = (int (*) (posix_spawn_file_actions_t *, int))
      dlsym (RTLD_NEXT, "posix_spawn_file_actions_addclosefrom_np");
  if (real == NULL)
    return ENOSYS;
  if (from >= 0 && from <= sock_fd && is_our_socket (sock_fd))
    {
      for (int fd = from; fd < sock_fd; fd++)
        {
          int r = posix_spawn_file_actions_addclose (actions, fd);

          if (r != 0)
            return r;
        }
      from = sock_fd + 1;
    }
  return real (actions, from);
}

/* ---- start and end ---- */

/* A decimal number, optionally negative, and nothing else. Not strtol:
 * with _GNU_SOURCE, glibc 2.38 and later bind it to __isoc23_strtol
 * (GLIBC_2.38), and the host build must run on glibc 2.34 (a sampler
 * built in the GNOME 51 runtime or on Debian unstable would not). */
static int
env_long (const char *name,
          long       *value)
{
  const char *s = getenv (name);
  int negative;
  long v = 0;

  if (s == NULL || *s == '\0')
    return 0;
  negative = *s == '-';
  if (negative && *++s == '\0')
    return 0;
  for (; *s != '\0'; s++)
    {
      if (*s < '0' || *s > '9' || v > (LONG_MAX - (*s - '0')) / 10)
        return 0;
      v = v * 10 + (*s - '0');
    }
  *value = negative ? -v : v;
  return 1;
}

/* The recorder's settings from the environment (after the socket's);
 * the memory sampling mean, or 0 for CPU time */
static long
read_settings (void)
{
  long v, v_memory = 0;

  if (env_long (FLAME_SAMPLER_ENV_HZ, &v) && v > 0 && v <= 100000)
    hz = (unsigned) v;
  period_ns = 1000000000L / (long) hz;
  jitter_ns = period_ns / 10;
  if (env_long (FLAME_SAMPLER_ENV_JITTER, &v) && v >= 0 && v <= 50)
    jitter_ns = period_ns / 100 * v;
  if (env_long (FLAME_SAMPLER_ENV_CHILDREN, &v))
    follow_children = v != 0;
  if (env_long (FLAME_SAMPLER_ENV_PYTHON, &v))
    read_python = v != 0;
  if (env_long (FLAME_SAMPLER_ENV_SELF_TIME, &v))
    measure_self = v != 0;
  if (env_long (FLAME_SAMPLER_ENV_RING_KB, &v) && v >= 4 && v <= 65536)
    {
      /* a power of two */
      for (ring_bytes = 4096; ring_bytes * 2 <= (size_t) v * 1024; ring_bytes *= 2)
        ;
    }
  if (env_long (FLAME_SAMPLER_ENV_FLUSH_MS, &v) && v >= 1 && v <= 60000)
    flush_ms = v;
  if (flame_sampler_memory_init && env_long (FLAME_SAMPLER_ENV_MEMORY, &v) && v > 0)
    {
      memory_mode = 1;
      v_memory = v;
      /* allocations come faster than CPU ticks */
      if (!env_long (FLAME_SAMPLER_ENV_RING_KB, &v))
        ring_bytes = 512 * 1024;
    }
  return v_memory;
}

/* Whether this process is to be sampled: the first image to load the
 * sampler is the root of the recording; with children not followed,
 * every other process only says hello. Someone (another profiler, a
 * language runtime) may own SIGPROF already: then not either. */
static int
to_be_sampled (void)
{
  struct sigaction old;
  char root[32];
  long v;

  if (!env_long (FLAME_SAMPLER_ENV_ROOT, &v))
    {
      snprintf (root, sizeof root, "%d", (int) my_pid);
      setenv (FLAME_SAMPLER_ENV_ROOT, root, 1);
      v = my_pid;
    }
  if (!follow_children && v != my_pid)
    {
      send_hello (FLAME_HELLO_DISABLED);
      return 0;
    }
  if (!memory_mode && real_sigaction (SIGPROF, NULL, &old) == 0 &&
      (old.sa_flags & SA_SIGINFO || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)))
    {
      send_hello (FLAME_HELLO_DISABLED);
      send_note ("SIGPROF already has a handler in this process: not sampled");
      return 0;
    }
  return 1;
}

__attribute__((constructor)) static void
sampler_init (void)
{
  struct sigaction sa;
  long v, v_memory;
  uintptr_t ldso_base;

  resolve_all ();
  my_pid = getpid ();
  if (!env_long (FLAME_SAMPLER_ENV_FD, &v) || v < 0)
    return;  /* loaded without a recorder: stay out of the way */
  sock_fd = (int) v;
  if (env_long (FLAME_SAMPLER_ENV_INO, &v))
    sock_ino = (ino_t) v;
  if (!socket_ok ())
    return;
  v_memory = read_settings ();
  if (!to_be_sampled ())
    return;

  ldso_base = getauxval (AT_BASE);
  if (ldso_base != 0)
    real_dl_iterate_phdr (find_ldso, &ldso_base);
  real_dl_iterate_phdr (find_self, (void *) (uintptr_t) sampler_init);

  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  if (!memory_mode)
    real_sigaction (SIGPROF, &sa, NULL);

  pthread_key_create (&thread_key, thread_exit);
  pthread_atfork (NULL, NULL, on_fork_child);

  /* Debian's libunwind falls back to its global cache when built without
   * per-thread caches; either way this is the place to choose, never the
   * handler. */
#ifndef FLAME_SAMPLER_LIBGCC
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_PER_THREAD);
#endif
  warm_unwinder ();

  sampling = 1;
  send_hello (0);
  send_modules ();
  probe_runtimes ();
  register_thread ();
  start_writer ();
  install_end_handlers ();
  unblock_sigprof ();
  arm_thread ();
  if (memory_mode)
    flame_sampler_memory_init (v_memory);
}

__attribute__((destructor)) static void
sampler_fini (void)
{
  FlameRecExit e;

  disarm_thread ();
  flush_rings ();
  if (!sampling)
    return;
  if (memory_mode)
    flame_sampler_memory_exit ();
  if (measure_self)
    {
      char note[128];
      uint32_t calls = __atomic_load_n (&handler_calls, __ATOMIC_RELAXED);
      uint64_t ns = __atomic_load_n (&handler_ns, __ATOMIC_RELAXED);

      snprintf (note, sizeof note, "sampler handler: %.3f ms of CPU in %u samples (%.1f us each)",
                ns / 1e6, calls, calls ? ns / 1e3 / calls : 0.0);
      send_note (note);
    }
  memset (&e, 0, sizeof e);
  header (&e.h, FLAME_REC_EXIT, 0);
  e.lost = __atomic_load_n (&lost, __ATOMIC_RELAXED);
  e.periods = __atomic_load_n (&periods_drawn, __ATOMIC_RELAXED);
  e.period_sum_ns = __atomic_load_n (&period_sum_ns, __ATOMIC_RELAXED);
  e.period_min_ns = e.periods ? __atomic_load_n (&period_min_ns, __ATOMIC_RELAXED) : 0;
  e.period_max_ns = __atomic_load_n (&period_max_ns, __ATOMIC_RELAXED);
  send_wait (&e, sizeof e);
}

/* Ways out that skip the destructors: what the rings hold goes first.
 * (glibc's exit() reaches _exit internally, after the destructor.) */
PUBLIC void
_exit (int status)
{
  RESOLVE (_exit);
  if (memory_mode && sampling)
    {
      flush_rings ();
      flame_sampler_memory_exit ();
    }
  flush_rings ();
  if (real__exit != NULL)
    real__exit (status);
  syscall (SYS_exit_group, status);
  __builtin_unreachable ();
}

PUBLIC void
_Exit (int status)
{
  RESOLVE (_Exit);
  flush_rings ();
  if (real__Exit != NULL)
    real__Exit (status);
  syscall (SYS_exit_group, status);
  __builtin_unreachable ();
}

PUBLIC void
quick_exit (int status)
{
  RESOLVE (quick_exit);
  flush_rings ();
  if (real_quick_exit != NULL)
    real_quick_exit (status);
  syscall (SYS_exit_group, status);
  __builtin_unreachable ();
}

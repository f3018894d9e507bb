/* flame-sampler-memory.c: the allocator interposition of
 * libflamediff-sampler-memory.so (the sampler, flame-sampler.c, plus
 * this file), preloaded only when the recorder records memory.
 *
 * Sampling by bytes: every thread counts down the bytes to its next
 * sample point, drawn from an exponential distribution with the mean the
 * recorder asks for (512 KiB by default), so an allocation of n bytes is
 * sampled with probability 1 - exp(-n/mean), and a sampled one stands
 * for n / (1 - exp(-n/mean)) bytes and 1 / (1 - exp(-n/mean))
 * allocations: unbiased estimates. Exact totals (bytes, allocations,
 * live bytes and their peak) are counted for every allocation, per
 * thread, and added to the process's counters every LIVE_BATCH bytes.
 *
 * A sampled allocation's address goes into a lock-free open-addressing
 * table, so its free() can be told to the recorder; the recorder replays
 * allocations and frees in order (one sequence counter per process) to
 * split the live bytes at the peak and at exit among the stacks.
 *
 * No malloc inside malloc: records are built on the stack and queued on
 * the thread's ring (flame-sampler.c), the table is one mmap. A
 * per-thread guard lets allocations made while we work (by the
 * unwinder, say) through untouched. Until dlsym has found the real
 * functions, allocations come from a static arena (dlsym itself may call
 * calloc).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
/* mmap and mmap64 are defined here, each under its own name: with
 * 64-bit file offsets the headers would rename mmap to mmap64 */
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "flame-sampler-internal.h"

#define PUBLIC __attribute__((visibility ("default")))
#define TLS __thread __attribute__((tls_model ("initial-exec")))

/* Exact counters are added to the process's every this many bytes per
 * thread: the peak is right within LIVE_BATCH per thread */
#define LIVE_BATCH (64 * 1024)
/* The table of sampled live allocations: 2^20 slots (16 MiB reserved,
 * touched as used); a probe goes at most PROBE_MAX slots far */
#define TABLE_BITS 20
#define TABLE_SIZE (1u << TABLE_BITS)
#define PROBE_MAX  64
#define SLOT_EMPTY 0
#define SLOT_GONE  1   /* a tombstone: keeps probe chains whole */

static void *(*real_malloc) (size_t);
static void  (*real_free) (void *);
static void *(*real_calloc) (size_t, size_t);
static void *(*real_realloc) (void *, size_t);
static int   (*real_posix_memalign) (void **, size_t, size_t);
static void *(*real_aligned_alloc) (size_t, size_t);
static void *(*real_memalign) (size_t, size_t);
static void *(*real_valloc) (size_t);
static void *(*real_pvalloc) (size_t);
static size_t (*real_malloc_usable_size) (void *);

/* what every call reads, on one cache line */
static struct
{
  int resolved;      /* atomic: the real functions are known */
  int active;        /* memory mode is on in this process */
  int glibc_chunks;  /* glibc's malloc: block sizes in their headers */
  int fast;          /* all three: the inline fast paths apply */
} g __attribute__((aligned (64)));
static int resolving;  /* atomic: someone is looking them up */
static double mean = 512 * 1024;

/* ---- the bootstrap arena ---- */

static unsigned char arena[256 * 1024] __attribute__((aligned (64)));
static size_t arena_used;  /* atomic */

static inline int
in_arena (const void *p)
{
  return (uintptr_t) p - (uintptr_t) arena < sizeof arena;
}

static void filter_add (uintptr_t a);

/* 16 bytes before each block hold its size. Each block goes into the
 * filter of sampled blocks for good: free's fast path finds it there. */
static void *
arena_alloc (size_t size,
             size_t align)
{
  size_t need, start;

  if (align < 16)
    align = 16;
  if (size > sizeof arena)
    return NULL;
  need = ((size + 15) & ~(size_t) 15) + align;
  start = __atomic_fetch_add (&arena_used, need, __ATOMIC_RELAXED);
  if (start + need > sizeof arena)
    return NULL;
  {
    uintptr_t p = ((uintptr_t) (arena + start) + 16 + align - 1) & ~(uintptr_t) (align - 1);

    ((size_t *) p)[-1] = size;
    filter_add (p);
    return (void *) p;
  }
}

static size_t
arena_size (const void *p)
{
  return ((const size_t *) p)[-1];
}

static void
resolve (void)
{
  if (__atomic_load_n (&g.resolved, __ATOMIC_ACQUIRE))
    return;
  if (__atomic_exchange_n (&resolving, 1, __ATOMIC_ACQ_REL))
    return;  /* another thread (or dlsym's own calloc): the arena meanwhile */
  real_malloc = dlsym (RTLD_NEXT, "malloc");
  real_free = dlsym (RTLD_NEXT, "free");
  real_calloc = dlsym (RTLD_NEXT, "calloc");
  real_realloc = dlsym (RTLD_NEXT, "realloc");
  real_posix_memalign = dlsym (RTLD_NEXT, "posix_memalign");
  real_aligned_alloc = dlsym (RTLD_NEXT, "aligned_alloc");
  real_memalign = dlsym (RTLD_NEXT, "memalign");
  real_valloc = dlsym (RTLD_NEXT, "valloc");
  real_pvalloc = dlsym (RTLD_NEXT, "pvalloc");
  real_malloc_usable_size = dlsym (RTLD_NEXT, "malloc_usable_size");
  if (real_malloc != NULL && real_free != NULL && real_calloc != NULL && real_realloc != NULL)
    __atomic_store_n (&g.resolved, 1, __ATOMIC_RELEASE);
  else
    __atomic_store_n (&resolving, 0, __ATOMIC_RELEASE);
}

static int
ready (void)
{
  if (__builtin_expect (__atomic_load_n (&g.resolved, __ATOMIC_ACQUIRE), 1))
    return 1;
  resolve ();
  return __atomic_load_n (&g.resolved, __ATOMIC_ACQUIRE);
}

/* ---- per-thread state ---- */

/* One TLS block: the fast paths find it with one look-up. Every
 * allocation only counts down: the bytes a thread allocated since its
 * last event are until_set - until, those it freed since its last flush
 * LIVE_BATCH - free_until; an event (a sample point or a flush, whichever
 * comes first) and a flush every LIVE_BATCH freed bytes take the slow
 * path, which adds them to the process's counters. count sits apart from
 * until so the compiler does not pair them into one vector operation (a
 * 16-byte load over two 8-byte stores stalls). */
static TLS struct
{
  int64_t  until;         /* bytes to the next event */
  int      busy;          /* inside our own bookkeeping */
  int64_t  free_until;    /* bytes freed to the next flush */
  uint64_t count;         /* allocations since the last flush */
  int64_t  until_set;     /* what until was set to */
  int64_t  sample_left;   /* bytes to the next sample point, as of until_set */
  int64_t  alloc_acc;     /* allocated, not yet flushed, before until_set */
  uint64_t rng;           /* 0: not seeded yet */
} t = { .free_until = LIVE_BATCH };

/* the process's exact counters */
static int64_t live_bytes;       /* atomic */
static int64_t peak_bytes;       /* atomic */
static uint64_t peak_seq;        /* atomic */
static uint64_t total_bytes, total_count;  /* atomic */
static int64_t base_bytes;       /* live at the start of this process */
static uint64_t seq;             /* atomic: orders ALLOC and FREE records */

/* ---- numbers without libm ---- */

static uint64_t
next_random (void)
{
  /* xorshift64*: plenty for choosing sample points */
  t.rng ^= t.rng >> 12;
  t.rng ^= t.rng << 25;
  t.rng ^= t.rng >> 27;
  return t.rng * 0x2545F4914F6CDD1DULL;
}

/* ln (x) for x in (0, 1]: x = m * 2^e with m in [0.5, 1), then the
 * atanh series (|z| <= 1/3, 1e-17 after 18 terms) */
static double
log_unit (double x)
{
  int e = 0;
  double z, z2, term, sum = 0;

  while (x < 0.5)
    {
      x *= 2;
      e--;
    }
  z = (x - 1) / (x + 1);
  z2 = z * z;
  term = z;
  for (int k = 1; k < 40; k += 2)
    {
      sum += term / k;
      term *= z2;
    }
  return 2 * sum + e * 0.69314718055994530942;
}

static int64_t
draw_gap (void)
{
  double u;

  if (t.rng == 0)
    {
      struct timespec ts;

      clock_gettime (CLOCK_MONOTONIC, &ts);
      t.rng = (uint64_t) ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^
              (uint64_t) syscall (SYS_gettid) << 32 ^ (uintptr_t) &t.busy;
      if (t.rng == 0)
        t.rng = 1;
    }
  /* in (0, 1] */
  u = ((next_random () >> 11) + 1) * (1.0 / 9007199254740992.0);
  return (int64_t) (-log_unit (u) * mean) + 1;
}

/* ---- the table of sampled live allocations ---- */

typedef struct
{
  uintptr_t addr;  /* SLOT_EMPTY, SLOT_GONE or an address */
  uint64_t  seq;
} Slot;

static Slot *table;
/* Which buckets of addresses have table entries: one bit each, 8 KiB
 * that stay in the cache, so a free of an unsampled block (nearly all of
 * them) never touches the 16 MiB table; the counts behind the bits are
 * only touched when sampled blocks come and go */
#define FILTER_BITS 16
static uint64_t filter_bits[(1u << FILTER_BITS) / 64];
static uint16_t filter_count[1u << FILTER_BITS];

static uint32_t
filter_index (uintptr_t a)
{
  return (uint32_t) ((a >> 4) * 0xC2B2AE3D27D4EB4FULL >> (64 - FILTER_BITS));
}

static int
filter_has (uintptr_t a)
{
  uint32_t i = filter_index (a);

  return (__atomic_load_n (&filter_bits[i / 64], __ATOMIC_ACQUIRE) >> (i % 64)) & 1;
}

static void
filter_add (uintptr_t a)
{
  uint32_t i = filter_index (a);

  __atomic_add_fetch (&filter_count[i], 1, __ATOMIC_ACQ_REL);
  __atomic_or_fetch (&filter_bits[i / 64], UINT64_C (1) << (i % 64), __ATOMIC_ACQ_REL);
}

static void
filter_remove (uintptr_t a)
{
  uint32_t i = filter_index (a);

  if (__atomic_sub_fetch (&filter_count[i], 1, __ATOMIC_ACQ_REL) != 0)
    return;
  __atomic_and_fetch (&filter_bits[i / 64], ~(UINT64_C (1) << (i % 64)), __ATOMIC_ACQ_REL);
  /* an entry added meanwhile keeps its bit: a false positive at worst */
  if (__atomic_load_n (&filter_count[i], __ATOMIC_ACQUIRE) != 0)
    __atomic_or_fetch (&filter_bits[i / 64], UINT64_C (1) << (i % 64), __ATOMIC_ACQ_REL);
}

static uint32_t
hash_addr (uintptr_t a)
{
  return (uint32_t) ((a >> 4) * 0x9E3779B97F4A7C15ULL >> (64 - TABLE_BITS));
}

static int
table_insert (uintptr_t addr,
              uint64_t  s)
{
  uint32_t h = hash_addr (addr);

  for (int i = 0; i < PROBE_MAX; i++)
    {
      Slot *slot = &table[(h + i) & (TABLE_SIZE - 1)];
      uintptr_t cur = __atomic_load_n (&slot->addr, __ATOMIC_ACQUIRE);

      if ((cur == SLOT_EMPTY || cur == SLOT_GONE) &&
          __atomic_compare_exchange_n (&slot->addr, &cur, addr, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        {
          __atomic_store_n (&slot->seq, s, __ATOMIC_RELEASE);
          filter_add (addr);
          return 1;
        }
    }
  return 0;
}

/* Removes @addr; its ALLOC's seq, or 0 when it was not sampled */
static uint64_t
table_remove (uintptr_t addr)
{
  uint32_t h = hash_addr (addr);

  /* the block is ours to free: no one inserts @addr meanwhile */
  if (!filter_has (addr))
    return 0;
  for (int i = 0; i < PROBE_MAX; i++)
    {
      Slot *slot = &table[(h + i) & (TABLE_SIZE - 1)];
      uintptr_t cur = __atomic_load_n (&slot->addr, __ATOMIC_ACQUIRE);

      if (cur == SLOT_EMPTY)
        return 0;
      if (cur == addr)
        {
          uint64_t s;

          /* the seq is stored right after the claim: wait for it */
          while ((s = __atomic_load_n (&slot->seq, __ATOMIC_ACQUIRE)) == 0)
            ;
          /* only the one freeing @addr touches its slot; once GONE, the
           * next claimer owns the seq */
          __atomic_store_n (&slot->seq, 0, __ATOMIC_RELAXED);
          __atomic_store_n (&slot->addr, SLOT_GONE, __ATOMIC_RELEASE);
          filter_remove (addr);
          return s;
        }
    }
  return 0;
}

/* ---- accounting ---- */

/* Moves the bytes allocated since until was set into alloc_acc and off
 * sample_left: until_set is until again */
static inline void
rebase (void)
{
  int64_t a = t.until_set - t.until;

  t.alloc_acc += a;
  t.sample_left -= a;
  t.until_set = t.until;
}

static __attribute__((noinline)) void
flush_counters (void)
{
  int64_t freed, cur;

  rebase ();
  freed = LIVE_BATCH - t.free_until;
  if (t.alloc_acc == 0 && freed == 0 && t.count == 0)
    return;
  cur = __atomic_add_fetch (&live_bytes, t.alloc_acc - freed, __ATOMIC_RELAXED);
  __atomic_add_fetch (&total_bytes, (uint64_t) t.alloc_acc, __ATOMIC_RELAXED);
  __atomic_add_fetch (&total_count, t.count, __ATOMIC_RELAXED);
  t.alloc_acc = 0;
  t.count = 0;
  t.free_until = LIVE_BATCH;
  for (int64_t peak = __atomic_load_n (&peak_bytes, __ATOMIC_RELAXED); cur > peak; )
    if (__atomic_compare_exchange_n (&peak_bytes, &peak, cur, 0,
                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      {
        __atomic_store_n (&peak_seq, __atomic_load_n (&seq, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
        break;
      }
}

/* glibc's malloc keeps each block's size in the word before it, with
 * flag bits (2: mmapped, whose overhead is two words); reading it is what
 * malloc_usable_size does, without the call */
static inline __attribute__((always_inline)) size_t
glibc_usable (void *p)
{
  size_t h = ((const size_t *) p)[-1];

  return (h & ~(size_t) 7) - sizeof (size_t) - (h & 2) * (sizeof (size_t) / 2);
}

/* Other allocators (g.fast unset): the call. Never a block of the arena. */
static inline __attribute__((always_inline)) size_t
usable (void *p)
{
  if (__builtin_expect (g.glibc_chunks, 1))
    return glibc_usable (p);
  return real_malloc_usable_size (p);
}

static __attribute__((noinline)) void
record_alloc (void     *p,
              size_t    size,
              uintptr_t caller)
{
  struct
  {
    FlameRecAlloc a;
    uint64_t      ips[FLAME_SAMPLER_STACK_ROOM];
  } rec;
  uint32_t n_py;
  int n;

  t.busy = 1;
  flame_sampler_header (&rec.a.h, FLAME_REC_ALLOC, 0);
  rec.a.seq = __atomic_add_fetch (&seq, 1, __ATOMIC_RELAXED);
  rec.a.size = size;
  n = flame_sampler_stack (rec.ips, caller, NULL, &n_py, &rec.a.h.flags);
  rec.a.n_frames = (uint16_t) n;
  rec.a.n_py = (uint16_t) n_py;
  rec.a.lost = flame_sampler_lost ();
  if (table_insert ((uintptr_t) p, rec.a.seq))
    flame_sampler_push (&rec,
                        (uint32_t) (sizeof rec.a + (size_t) (n + (int) n_py) * sizeof rec.ips[0]));
  t.busy = 0;
}

/* The allocation of @size bytes at @p reached the thread's next event:
 * a sample point, or LIVE_BATCH bytes since the last flush. The sample's
 * record goes first, so that a peak this allocation makes (flush_counters
 * notes the sequence number) includes it: a single large block can be
 * the peak. */
static __attribute__((noinline)) void *
alloc_event (void     *p,
             size_t    size,
             uintptr_t caller)
{
  rebase ();
  /* a thread's first event: its first gap runs from its first byte */
  if (__builtin_expect (t.rng == 0, 0))
    t.sample_left += draw_gap ();
  if (t.sample_left <= 0)
    {
      t.sample_left = draw_gap ();
      record_alloc (p, size, caller);
    }
  flush_counters ();
  t.until = t.until_set = t.sample_left < LIVE_BATCH ? t.sample_left : LIVE_BATCH;
  return p;
}

static __attribute__((noinline)) void
free_sampled (void *p)
{
  uint64_t alloc_seq;

  t.busy = 1;
  alloc_seq = table_remove ((uintptr_t) p);
  if (alloc_seq != 0)
    {
      FlameRecFree rec;

      flame_sampler_header (&rec.h, FLAME_REC_FREE, 0);
      rec.lost = flame_sampler_lost ();
      rec.reserved = 0;
      rec.seq = __atomic_add_fetch (&seq, 1, __ATOMIC_RELAXED);
      rec.alloc_seq = alloc_seq;
      flame_sampler_push (&rec, sizeof rec);
    }
  t.busy = 0;
}

/* Counts an allocation of @size bytes; nonzero when its event is due */
static inline __attribute__((always_inline)) int
count_alloc (size_t size)
{
  t.count++;
  return __builtin_expect ((t.until -= (int64_t) size) <= 0, 0);
}

/* The caller's address, read only where a sample may need it: the fast
 * paths keep nothing across the real call, and their slow branches are
 * tail calls. In an always_inline function, that of the function it is
 * inlined into. */
#define CALLER ((uintptr_t) __builtin_return_address (0))

/* An allocation at @p (perhaps NULL) by the real allocator, counted;
 * returns @p. @fast: g.fast is known to be set. @caller: the allocating
 * code, or 0 for CALLER. */
static inline __attribute__((always_inline)) void *
counted (void      *p,
         int        fast,
         uintptr_t  caller)
{
  size_t size;

  if (__builtin_expect (p == NULL || t.busy, 0))
    return p;
  if (__builtin_expect (fast || g.fast, 1))
    size = glibc_usable (p);
  else if (!g.active)
    return p;
  else
    size = real_malloc_usable_size (p);
  if (__builtin_expect (count_alloc (size), 0))
    return alloc_event (p, size, caller != 0 ? caller : CALLER);
  return p;
}

static inline __attribute__((always_inline)) void
count_free (size_t size)
{
  if (__builtin_expect ((t.free_until -= (int64_t) size) <= 0, 0))
    flush_counters ();
}

/* Before the real free of @p (neither NULL nor the arena's): once freed,
 * another thread may get (and sample) the same address. */
static inline __attribute__((always_inline)) void
on_free (void *p)
{
  if (!g.active || t.busy)
    return;
  count_free (usable (p));
  if (__builtin_expect (filter_has ((uintptr_t) p), 0))
    free_sampled (p);
}

/* ---- the interposed functions ---- */

/* Each has a fast path for glibc's malloc in memory mode (g.fast) and
 * the general case in a function of its own */

static __attribute__((noinline)) void
free_slow (void *p)
{
  if (p == NULL || in_arena (p))
    return;  /* the arena is never given back */
  if (!ready ())
    return;  /* cannot happen: only the arena's blocks exist then */
  on_free (p);
  real_free (p);
}

/* free's fast path met @p in the filter (a sampled block, a block of the
 * arena, or a false positive), or the time to flush */
static __attribute__((noinline)) void
free_event (void *p)
{
  if (in_arena (p))
    return;
  count_free (glibc_usable (p));
  if (filter_has ((uintptr_t) p))
    free_sampled (p);
  real_free (p);
}

static __attribute__((noinline)) void
free_flush (void *p)
{
  flush_counters ();
  real_free (p);
}

PUBLIC void
free (void *p)
{
  if (__builtin_expect (!g.fast || t.busy, 0))
    {
      free_slow (p);
      return;
    }
  if (__builtin_expect (p == NULL, 0))
    return;
  /* the arena's blocks are in the filter: their headers are not glibc's */
  if (__builtin_expect (filter_has ((uintptr_t) p), 0))
    {
      free_event (p);
      return;
    }
  if (__builtin_expect ((t.free_until -= (int64_t) glibc_usable (p)) <= 0, 0))
    {
      free_flush (p);
      return;
    }
  real_free (p);
}

static __attribute__((noinline)) void *
malloc_slow (size_t    size,
             uintptr_t caller)
{
  if (!ready ())
    return arena_alloc (size, 16);
  return counted (real_malloc (size), 0, caller);
}

PUBLIC void *
malloc (size_t size)
{
  if (__builtin_expect (!g.fast, 0))
    return malloc_slow (size, CALLER);
  return counted (real_malloc (size), 1, 0);
}

static __attribute__((noinline)) void *
calloc_slow (size_t    n,
             size_t    size,
             uintptr_t caller)
{
  if (!ready ())
    {
      /* the arena is zeroed static memory, never reused */
      if (size != 0 && n > SIZE_MAX / size)
        return NULL;
      return arena_alloc (n * size, 16);
    }
  return counted (real_calloc (n, size), 0, caller);
}

PUBLIC void *
calloc (size_t n,
        size_t size)
{
  if (__builtin_expect (!g.fast, 0))
    return calloc_slow (n, size, CALLER);
  return counted (real_calloc (n, size), 1, 0);
}

PUBLIC void *
realloc (void   *old,
         size_t  size)
{
  void *p;

  if (__builtin_expect (old != NULL && in_arena (old), 0))
    {
      size_t had = arena_size (old);

      p = malloc (size);
      if (p != NULL)
        memcpy (p, old, had < size ? had : size);
      return p;
    }
  if (__builtin_expect (!g.resolved, 0) && !ready ())
    return arena_alloc (size, 16);
  if (old == NULL)
    return counted (real_realloc (NULL, size), 0, 0);
  /* counted as a free and a new allocation: the block may move, and
   * the bytes it grows by were allocated here */
  on_free (old);
  p = real_realloc (old, size);
  if (p == NULL && size != 0)
    {
      /* failed: the old block is still there; count it again */
      counted (old, 0, 0);
      return NULL;
    }
  return counted (p, 0, 0);
}

PUBLIC int
posix_memalign (void   **out,
                size_t   align,
                size_t   size)
{
  int r;

  if (!ready ())
    {
      *out = arena_alloc (size, align);
      return *out != NULL ? 0 : ENOMEM;
    }
  r = real_posix_memalign (out, align, size);
  if (r == 0)
    *out = counted (*out, 0, 0);
  return r;
}

PUBLIC void *
aligned_alloc (size_t align,
               size_t size)
{
  if (!ready ())
    return arena_alloc (size, align);
  return counted (real_aligned_alloc (align, size), 0, 0);
}

PUBLIC void *
memalign (size_t align,
          size_t size)
{
  if (!ready ())
    return arena_alloc (size, align);
  return counted (real_memalign (align, size), 0, 0);
}

PUBLIC void *
valloc (size_t size)
{
  if (!ready ())
    return arena_alloc (size, 4096);
  return counted (real_valloc (size), 0, 0);
}

PUBLIC void *
pvalloc (size_t size)
{
  if (!ready ())
    return arena_alloc ((size + 4095) & ~(size_t) 4095, 4096);
  return counted (real_pvalloc (size), 0, 0);
}

PUBLIC size_t
malloc_usable_size (void *p)
{
  if (p == NULL)
    return 0;
  if (in_arena (p))
    return arena_size (p);
  if (!ready () || real_malloc_usable_size == NULL)
    return 0;
  return real_malloc_usable_size (p);
}

/* ---- anonymous mappings ----
 *
 * Programs and runtimes with allocators of their own (CPython's arenas,
 * custom pools) take memory with mmap (MAP_ANONYMOUS) directly. Those
 * mappings count as allocations of their page-rounded length, made by
 * the caller, and munmap as frees, also of part of one: a table of the
 * live anonymous mappings says how much of what an munmap removes was
 * counted. mremap is a free of the old mapping and an allocation of the
 * new one, as realloc is. glibc's malloc maps its large blocks through
 * internal calls, which do not come here, so nothing counts twice.
 * Mappings without access (PROT_NONE: address space reserved, as V8 and
 * Go do) are not memory in use and are not counted, nor are the
 * sampler's own (its rings, the table above).
 *
 * The real calls are the system calls themselves: this works before
 * dlsym, and glibc's wrappers add nothing on 64-bit systems. */

#define REGIONS_MAX 16384

typedef struct
{
  uintptr_t start, end;  /* what is still mapped of it */
  uintptr_t origin;      /* where it began: the address a sample knows */
} Region;

static Region regions[REGIONS_MAX];
static unsigned n_regions;
static int regions_lock;            /* a spin lock: held for a scan only */
static uint64_t regions_untracked;  /* atomic: mappings the table had no room for */

static void
regions_acquire (void)
{
  while (__atomic_exchange_n (&regions_lock, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n (&regions_lock, __ATOMIC_RELAXED))
      __builtin_ia32_pause ();
}

static void
regions_release (void)
{
  __atomic_store_n (&regions_lock, 0, __ATOMIC_RELEASE);
}

/* Takes [start, end) out of the table; the bytes of counted mappings it
 * covered are freed. A mapping cut in the middle keeps both ends. */
static void
unmap_range (uintptr_t start,
             uintptr_t end)
{
  uintptr_t freed_origin[8];
  size_t freed_bytes = 0;
  unsigned n_origins = 0;

  regions_acquire ();
  for (unsigned i = 0; i < n_regions; )
    {
      Region *r = &regions[i];
      uintptr_t lo = r->start > start ? r->start : start;
      uintptr_t hi = r->end < end ? r->end : end;

      if (lo >= hi)
        {
          i++;
          continue;
        }
      freed_bytes += hi - lo;
      if (r->origin >= lo && r->origin < hi && n_origins < 8)
        {
          freed_origin[n_origins++] = r->origin;
          r->origin = 0;
        }
      if (lo > r->start && hi < r->end)
        {
          /* the middle: the right end becomes a mapping of its own */
          if (n_regions < REGIONS_MAX)
            regions[n_regions++] = (Region) { hi, r->end, 0 };
          r->end = lo;
          i++;
        }
      else if (lo > r->start)
        {
          r->end = lo;
          i++;
        }
      else if (hi < r->end)
        {
          r->start = hi;
          i++;
        }
      else
        *r = regions[--n_regions];
    }
  regions_release ();
  if (freed_bytes > 0)
    count_free (freed_bytes);
  for (unsigned k = 0; k < n_origins; k++)
    if (filter_has (freed_origin[k]))
      free_sampled ((void *) freed_origin[k]);
}

/* Puts a new mapping into the table: its page-rounded length, or 0 when
 * the table is full (then its munmap would find nothing to free, so it
 * is not counted at all) */
static size_t
map_range (void   *p,
           size_t  len)
{
  uintptr_t start = (uintptr_t) p;
  uintptr_t end = start + ((len + 4095) & ~(uintptr_t) 4095);
  int tracked = 0;

  regions_acquire ();
  if (n_regions < REGIONS_MAX)
    {
      regions[n_regions++] = (Region) { start, end, start };
      tracked = 1;
    }
  regions_release ();
  if (!tracked)
    {
      __atomic_add_fetch (&regions_untracked, 1, __ATOMIC_RELAXED);
      return 0;
    }
  return end - start;
}

/* A new mapping at @p, made by @caller: counted and perhaps sampled */
static void
on_map (void     *p,
        size_t    len,
        uintptr_t caller)
{
  size_t size = map_range (p, len);

  if (size > 0 && count_alloc (size))
    alloc_event (p, size, caller);
}

static void *
mmap_counted (void     *addr,
              size_t    len,
              int       prot,
              int       flags,
              int       fd,
              off_t     off,
              uintptr_t caller)
{
  long r = syscall (SYS_mmap, addr, len, prot, flags, fd, off);

  if (r == -1)
    return MAP_FAILED;
  /* not what our own bookkeeping (or the unwinder under it) maps */
  if (!g.active || t.busy || flame_sampler_in_self (caller))
    return (void *) r;
  /* MAP_FIXED replaces whatever was mapped there */
  if (flags & MAP_FIXED)
    unmap_range ((uintptr_t) r, (uintptr_t) r + len);
  if ((flags & MAP_ANONYMOUS) && prot != PROT_NONE)
    on_map ((void *) r, len, caller);
  return (void *) r;
}

PUBLIC void *
mmap (void   *addr,
      size_t  len,
      int     prot,
      int     flags,
      int     fd,
      off_t   off)
{
  return mmap_counted (addr, len, prot, flags, fd, off, CALLER);
}

PUBLIC void *
mmap64 (void    *addr,
        size_t   len,
        int      prot,
        int      flags,
        int      fd,
        off64_t  off)
{
  return mmap_counted (addr, len, prot, flags, fd, off, CALLER);
}

PUBLIC int
munmap (void   *addr,
        size_t  len)
{
  long r = syscall (SYS_munmap, addr, len);

  if (r == 0 && g.active && !t.busy)
    unmap_range ((uintptr_t) addr, (uintptr_t) addr + ((len + 4095) & ~(size_t) 4095));
  return (int) r;
}

PUBLIC void *
mremap (void   *old,
        size_t  old_len,
        size_t  new_len,
        int     flags,
        ...)
{
  uintptr_t o = (uintptr_t) old;
  void *new_addr = NULL;
  int counted = 0;
  long r;

  if (flags & MREMAP_FIXED)
    {
      va_list ap;

      va_start (ap, flags);
      new_addr = va_arg (ap, void *);
      va_end (ap);
    }
  r = syscall (SYS_mremap, old, old_len, new_len, flags, new_addr);
  if (r == -1)
    return MAP_FAILED;
  if (!g.active || t.busy)
    return (void *) r;
  regions_acquire ();
  for (unsigned i = 0; i < n_regions && !counted; i++)
    counted = regions[i].start <= o && o < regions[i].end;
  regions_release ();
  if (counted)
    {
      unmap_range (o, o + ((old_len + 4095) & ~(size_t) 4095));
      on_map ((void *) r, new_len, CALLER);
    }
  return (void *) r;
}

/* ---- hooks called by flame-sampler.c ---- */

static void
send_stat (void)
{
  FlameRecMemStat st;

  memset (&st, 0, sizeof st);
  flame_sampler_header (&st.h, FLAME_REC_MEMSTAT, 0);
  st.mean = (uint32_t) mean;
  st.total_bytes = __atomic_load_n (&total_bytes, __ATOMIC_RELAXED);
  st.total_count = __atomic_load_n (&total_count, __ATOMIC_RELAXED);
  st.peak_bytes = (uint64_t) __atomic_load_n (&peak_bytes, __ATOMIC_RELAXED);
  st.peak_seq = __atomic_load_n (&peak_seq, __ATOMIC_RELAXED);
  {
    int64_t live = __atomic_load_n (&live_bytes, __ATOMIC_RELAXED);

    st.live_bytes = live > 0 ? (uint64_t) live : 0;
  }
  st.base_bytes = base_bytes > 0 ? (uint64_t) base_bytes : 0;
  flame_sampler_send_wait (&st, sizeof st);
}

void
flame_sampler_memory_init (long m)
{
  ready ();
  table = mmap (NULL, TABLE_SIZE * sizeof (Slot), PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (table == MAP_FAILED || real_malloc_usable_size == NULL)
    return;
  {
    Dl_info info;

    /* glibc's own malloc (not one preloaded or linked before it) */
    g.glibc_chunks = dladdr ((void *) real_malloc, &info) != 0 && info.dli_fname != NULL &&
                   strstr (info.dli_fname, "/libc.so.6") != NULL;
  }
  if (m > 0 && m < UINT32_MAX)
    mean = (double) m;
  __atomic_store_n (&g.active, 1, __ATOMIC_RELEASE);
  __atomic_store_n (&g.fast, g.glibc_chunks, __ATOMIC_RELEASE);
}

/* The forking thread is the child's only one; the child starts from
 * what it inherited, and its peak is what it adds to that. The parent's
 * sampled blocks stay in the table: their frees name ALLOCs this
 * process never sent, which the recorder ignores. */
void
flame_sampler_memory_fork_child (void)
{
  if (!g.active)
    return;
  flush_counters ();
  regions_lock = 0;  /* another thread may have held it at fork */
  base_bytes = live_bytes;
  peak_bytes = live_bytes;
  peak_seq = seq;
  total_bytes = total_count = 0;
}

void
flame_sampler_memory_set_busy (int busy)
{
  t.busy = busy;
}

void
flame_sampler_memory_thread_exit (void)
{
  if (g.active)
    flush_counters ();
}

void
flame_sampler_memory_exit (void)
{
  if (!g.active)
    return;
  flush_counters ();
  send_stat ();
}

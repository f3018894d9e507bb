/* A program whose functions allocate known amounts, recorded by
 * test-capture's memory tests (flamediff-cli record --memory).
 *
 *   memory [--double FUNCTION] [--threads N] [--fork]
 *
 * alloc_30: 30 MiB in blocks of 1 KiB to 64 KiB, freed at once
 * alloc_10: 10 MiB the same way
 * keep_8:   8 MiB kept to the end (the peak is 8 MiB plus one block)
 * --double FUNCTION gives it twice the work; --threads runs alloc_30 in
 * N threads instead (30 MiB in all); --fork runs alloc_10 in a child,
 * which also keeps 192 KiB (child_keep) and frees a 512 KiB block its
 * parent allocated before the fork.
 * --mmap takes the memory with mmap instead of malloc, as allocators of
 * their own do: alloc_30 maps and unmaps 1 MiB 30 times, alloc_10 maps
 * 5 MiB and grows it to 10 MiB with mremap (15 MiB allocated, as for
 * realloc), keep_8 maps 8 MiB + 64 KiB and unmaps the middle 64 KiB.
 * --tiny-threads N runs N threads one after the other, each of which
 * allocates 64 bytes in tiny_thread and nothing else (a thread's first
 * allocation is sampled no more often than any other).
 *
 *   memory --bench MILLIONS
 *
 * instead: that many million small allocations (16 to 256 bytes, a
 * window of 1024 live ones), then "cpu SECONDS" of process CPU time
 * (tools/bench.sh: the overhead of record --memory). The worst case: the
 * program does nothing but allocate.
 *
 *   memory --bench-words MILLIONS
 *
 * instead: a word count, as a tokenizer, a parser or a compiler's symbol
 * table does it: that many million words (3 to 14 letters, from a
 * vocabulary of 2^16), each a string of its own from malloc, looked up in
 * a chained hash table that grows (calloc); a new word keeps its string
 * in a malloc'd node, a known one frees it. Then the table is walked and
 * everything freed. About 1.3 allocations per word, with hashing and
 * comparing in between: what allocation-heavy programs do.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static void *volatile sink;
static int use_mmap;
static void *kept[100000];
static size_t n_kept;

/* sizes cycle through 1, 2, 4, …, 64 KiB (127 KiB per round) */
static size_t
block (unsigned i)
{
  return (size_t) 1024 << (i % 7);
}

static char *
map (size_t n)
{
  char *p = mmap (NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (p == MAP_FAILED)
    abort ();
  return p;
}

__attribute__((noinline)) static void
churn (size_t bytes)
{
  size_t done = 0;

  if (use_mmap)
    {
      for (; done < bytes; done += MIB)
        {
          char *p = map (MIB);

          p[0] = 1;
          sink = p;
          munmap (p, MIB);
        }
      return;
    }

  for (unsigned i = 0; done < bytes; i++)
    {
      size_t n = block (i);
      char *p;

      if (n > bytes - done)
        n = bytes - done;
      p = malloc (n);
      p[0] = 1;
      sink = p;
      free (p);
      done += n;
    }
}

__attribute__((noinline)) static void
alloc_30 (int factor)
{
  churn ((size_t) 30 * MIB * factor);
  __asm__ volatile ("" ::: "memory");  /* no tail call: keep this frame */
}

__attribute__((noinline)) static void
alloc_10 (int factor)
{
  if (use_mmap)
    {
      size_t half = (size_t) 5 * MIB * factor;
      char *p = map (half);
      char *q = mremap (p, half, 2 * half, MREMAP_MAYMOVE);

      if (q == MAP_FAILED)
        abort ();
      q[2 * half - 1] = 1;
      sink = q;
      munmap (q, 2 * half);
      __asm__ volatile ("" ::: "memory");
      return;
    }
  churn ((size_t) 10 * MIB * factor);
  __asm__ volatile ("" ::: "memory");
}

/* In the --fork child: 192 KiB never freed, but fewer bytes than the
 * 512 KiB inherited block it frees (the child's leak is nothing) */
__attribute__((noinline)) static void
child_keep (void)
{
  for (int i = 0; i < 3; i++)
    kept[n_kept++] = memset (malloc (64 * 1024), 1, 64);
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
keep_8 (int factor)
{
  size_t bytes = (size_t) 8 * MIB * factor, done = 0;

  if (use_mmap)
    {
      /* a hole in the middle: the two ends stay, 8 MiB in all */
      char *p = map (bytes + 64 * 1024);

      memset (p, 1, 64);
      munmap (p + bytes / 2, 64 * 1024);
      kept[n_kept++] = p;
      return;
    }

  for (unsigned i = 0; done < bytes && n_kept < 100000; i++)
    {
      size_t n = block (i);
      char *p;

      if (n > bytes - done)
        n = bytes - done;
      p = malloc (n);
      memset (p, 1, 64);
      kept[n_kept++] = p;
      done += n;
    }
}

static int n_threads = 1;

static void *
thread_main (void *data)
{
  churn ((size_t) 30 * MIB / n_threads);
  __asm__ volatile ("" ::: "memory");
  return data;
}

__attribute__((noinline)) static void
alloc_30_threads (void)
{
  pthread_t t[64];

  for (int i = 0; i < n_threads; i++)
    pthread_create (&t[i], NULL, thread_main, NULL);
  for (int i = 0; i < n_threads; i++)
    pthread_join (t[i], NULL);
}

__attribute__((noinline)) static void *
tiny_thread (void *data)
{
  sink = malloc (64);
  free (sink);
  __asm__ volatile ("" ::: "memory");
  return data;
}

static void
tiny_threads (int n)
{
  for (int i = 0; i < n; i++)
    {
      pthread_t th;

      if (pthread_create (&th, NULL, tiny_thread, NULL) == 0)
        pthread_join (th, NULL);
    }
}

__attribute__((noinline)) static void
small_allocations (long millions)
{
  static void *window[1024];
  struct timespec ts;

  for (long i = 0; i < millions * 1000000; i++)
    {
      unsigned slot = (unsigned) i & 1023;

      free (window[slot]);
      window[slot] = malloc (16 + (size_t) ((i * 7919) % 241));
      ((char *) window[slot])[0] = 1;
    }
  for (unsigned slot = 0; slot < 1024; slot++)
    free (window[slot]);
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  printf ("cpu %.4f\n", ts.tv_sec + ts.tv_nsec / 1e9);
}

typedef struct Word Word;
struct Word
{
  Word    *next;
  char    *text;
  uint64_t hash;
  long     count;
};

/* the next word of the text: a fresh string, as a tokenizer returns it */
static char *
next_word (uint64_t *rng,
           uint64_t *hash)
{
  uint64_t id, x;
  size_t len;
  char *w;

  *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
  id = (*rng >> 33) & ((1u << 16) - 1);
  x = id * 0x9E3779B97F4A7C15ULL;
  len = 3 + id % 12;
  w = malloc (len + 1);
  *hash = 14695981039346656037ULL;
  for (size_t k = 0; k < len; k++)
    {
      w[k] = (char) ('a' + x % 26);
      x = x / 26 ^ (x << 59);
      *hash = (*hash ^ (unsigned char) w[k]) * 1099511628211ULL;
    }
  w[len] = 0;
  return w;
}

__attribute__((noinline)) static void
count_words (long millions)
{
  size_t n_buckets = 1024, n_words = 0;
  Word **buckets = calloc (n_buckets, sizeof *buckets);
  uint64_t rng = 1, sum = 0;
  struct timespec ts;

  for (long i = 0; i < millions * 1000000; i++)
    {
      uint64_t h;
      char *text = next_word (&rng, &h);
      Word **b = &buckets[h & (n_buckets - 1)], *w;

      for (w = *b; w != NULL; w = w->next)
        if (w->hash == h && strcmp (w->text, text) == 0)
          break;
      if (w != NULL)
        {
          w->count++;
          free (text);
          continue;
        }
      w = malloc (sizeof *w);
      *w = (Word) { *b, text, h, 1 };
      *b = w;
      if (++n_words > n_buckets)
        {
          /* grow: twice the buckets, the words rehashed */
          Word **more = calloc (2 * n_buckets, sizeof *more);

          for (size_t k = 0; k < n_buckets; k++)
            while (buckets[k] != NULL)
              {
                Word *m = buckets[k];

                buckets[k] = m->next;
                m->next = more[m->hash & (2 * n_buckets - 1)];
                more[m->hash & (2 * n_buckets - 1)] = m;
              }
          free (buckets);
          buckets = more;
          n_buckets *= 2;
        }
    }
  for (size_t k = 0; k < n_buckets; k++)
    while (buckets[k] != NULL)
      {
        Word *w = buckets[k];

        buckets[k] = w->next;
        sum += (uint64_t) w->count * strlen (w->text);
        free (w->text);
        free (w);
      }
  free (buckets);
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  printf ("words %zu letters %llu\n", n_words, (unsigned long long) sum);
  printf ("cpu %.4f\n", ts.tv_sec + ts.tv_nsec / 1e9);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--bench") == 0)
    {
      small_allocations (atol (argv[2]));
      return 0;
    }
  if (argc == 3 && strcmp (argv[1], "--bench-words") == 0)
    {
      count_words (atol (argv[2]));
      return 0;
    }

  const char *twice = "";
  int use_fork = 0, n_tiny = 0;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--double") == 0 && i + 1 < argc)
      twice = argv[++i];
    else if (strcmp (argv[i], "--threads") == 0 && i + 1 < argc)
      n_threads = atoi (argv[++i]);
    else if (strcmp (argv[i], "--fork") == 0)
      use_fork = 1;
    else if (strcmp (argv[i], "--mmap") == 0)
      use_mmap = 1;
    else if (strcmp (argv[i], "--tiny-threads") == 0 && i + 1 < argc)
      n_tiny = atoi (argv[++i]);
  if (n_threads < 1 || n_threads > 64)
    n_threads = 1;

  tiny_threads (n_tiny);
  if (n_threads > 1)
    alloc_30_threads ();
  else
    alloc_30 (strcmp (twice, "alloc_30") == 0 ? 2 : 1);
  if (use_fork)
    {
      void *inherited = malloc (512 * 1024);
      pid_t pid;

      sink = inherited;
      pid = fork ();
      if (pid == 0)
        {
          alloc_10 (1);
          child_keep ();
          /* less live than at the fork: the child leaked nothing */
          free (inherited);
          _exit (0);
        }
      waitpid (pid, NULL, 0);
      free (inherited);
    }
  else
    alloc_10 (strcmp (twice, "alloc_10") == 0 ? 2 : 1);
  keep_8 (strcmp (twice, "keep_8") == 0 ? 2 : 1);
  printf ("kept %zu blocks\n", n_kept);
  return 0;
}

/* allocators.c: each of the C library's allocation functions, in a
 * function of its own with known amounts, recorded by test-memory's
 * /memory/allocators (flamediff-cli record --memory).
 *
 *   allocators MODULE
 *
 * before_main (a constructor):   6 MiB with malloc, 2 MiB of it kept
 * use_calloc:                    8 MiB, calloc (16, 1024) at a time
 * use_realloc:                   four times realloc (NULL, 1 MiB), grown
 *                                to 2 MiB, shrunk to 512 KiB, then
 *                                realloc (p, 0): 3.5 MiB allocated each
 *                                time (a realloc counts its new size),
 *                                14 MiB in all, nothing kept
 * use_posix_memalign, use_aligned_alloc, use_memalign, use_valloc:
 *                                4 MiB each, in 64 KiB blocks
 * alloc_module_churn:            8 MiB, in MODULE (alloc-module.c),
 *                                loaded with dlopen
 *
 * 52 MiB in all; 2 MiB kept to the end, by before_main.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#define KIB 1024
#define MIB (1024 * 1024)
#define BLOCK (64 * KIB)

static void *volatile sink;
static void *kept[64];

static void
touch (void *p)
{
  if (p == NULL)
    abort ();
  ((char *) p)[0] = 1;
  sink = p;
}

/* before main, as a library's initialiser allocates: 6 MiB, the last
 * 2 MiB of it kept */
__attribute__((constructor, noinline)) static void
before_main (void)
{
  for (unsigned i = 0; i < 6 * MIB / BLOCK; i++)
    {
      void *p = malloc (BLOCK);

      touch (p);
      if (i >= 4 * MIB / BLOCK)
        kept[i - 4 * MIB / BLOCK] = p;
      else
        free (p);
    }
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
use_calloc (void)
{
  for (unsigned i = 0; i < 8 * MIB / (16 * KIB); i++)
    {
      char *p = calloc (16, KIB);

      touch (p);
      if (p[16 * KIB - 1] != 0)
        abort ();
      free (p);
    }
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
use_realloc (void)
{
  for (unsigned i = 0; i < 4; i++)
    {
      char *p = realloc (NULL, MIB);

      touch (p);
      p = realloc (p, 2 * MIB);
      touch (p);
      p[2 * MIB - 1] = 1;
      p = realloc (p, MIB / 2);
      touch (p);
      /* glibc: frees the block and returns NULL */
      sink = realloc (p, 0);
      free (sink);
    }
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
use_posix_memalign (void)
{
  for (unsigned i = 0; i < 4 * MIB / BLOCK; i++)
    {
      void *p = NULL;

      if (posix_memalign (&p, 4096, BLOCK) != 0)
        abort ();
      touch (p);
      free (p);
    }
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
use_aligned_alloc (void)
{
  for (unsigned i = 0; i < 4 * MIB / BLOCK; i++)
    {
      void *p = aligned_alloc (256, BLOCK);

      touch (p);
      free (p);
    }
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
use_memalign (void)
{
  for (unsigned i = 0; i < 4 * MIB / BLOCK; i++)
    {
      void *p = memalign (64, BLOCK);

      touch (p);
      free (p);
    }
  __asm__ volatile ("" ::: "memory");
}

__attribute__((noinline)) static void
use_valloc (void)
{
  for (unsigned i = 0; i < 4 * MIB / BLOCK; i++)
    {
      void *p = valloc (BLOCK);

      touch (p);
      free (p);
    }
  __asm__ volatile ("" ::: "memory");
}

int
main (int    argc,
      char **argv)
{
  void *module;
  void (*churn) (size_t);

  if (argc != 2)
    {
      fprintf (stderr, "usage: allocators MODULE\n");
      return 2;
    }
  use_calloc ();
  use_realloc ();
  use_posix_memalign ();
  use_aligned_alloc ();
  use_memalign ();
  use_valloc ();
  module = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
  if (module == NULL)
    {
      fprintf (stderr, "dlopen: %s\n", dlerror ());
      return 1;
    }
  churn = (void (*) (size_t)) dlsym (module, "alloc_module_churn");
  if (churn == NULL)
    return 1;
  churn ((size_t) 8 * MIB);
  /* kept loaded to the end, as libraries mostly are */
  printf ("kept %p\n", kept[0]);
  return 0;
}

/* prog.c: a small workload for the callgrind fixtures (see make-fixtures.sh).
 * Recursion (fib), a call from two callers (work), a loop whose size the
 * first argument sets, so baseline and current differ deterministically. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long
fib (unsigned n)
{
  return n < 2 ? n : fib (n - 1) + fib (n - 2);
}

static unsigned long
work (unsigned n)
{
  unsigned long s = 0;
  for (unsigned i = 0; i < n; i++)
    s += (unsigned long) i * i % 7;
  return s;
}

static unsigned long
parse (unsigned n)
{
  return work (n) + fib (12);
}

static unsigned long
render (unsigned n)
{
  return work (2 * n);
}

int
main (int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned) atoi (argv[1]) : 1000;
  unsigned long s = 0;

  for (int i = 0; i < 3; i++)
    s += parse (n) + render (n);
  printf ("%lu\n", s);
  return 0;
}

#include <stdio.h>
static unsigned long
work (unsigned long n)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += i * i % 7;
  return s;
}
static unsigned long more (unsigned long n) { return work (n) + work (n / 2); }
int main (void) { printf ("%lu\n", more (200000) + work (1000)); return 0; }

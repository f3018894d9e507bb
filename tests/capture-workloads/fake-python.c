/* fake-python.c: exports what the sampler looks for in a CPython
 * interpreter (_PyRuntime, Py_Version, PyCode_Type) with a version whose
 * layout it does not know (a 3.12 beta: only 3.12's release candidates
 * and releases have the layout the sampler knows): the recording must
 * say so and keep native stacks. Spins for argv[1] seconds of CPU time. */
#include <stdlib.h>
#include <time.h>

__attribute__((visibility ("default"))) char _PyRuntime[4096];
__attribute__((visibility ("default"))) const unsigned long Py_Version = 0x030c00b4;  /* 3.12.0b4 */
__attribute__((visibility ("default"))) char PyCode_Type[512];

static double
cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long
spin (void)
{
  volatile unsigned long x = 0;

  for (int i = 0; i < 100000; i++)
    x += (unsigned long) i * i;
  return x;
}

int
main (int    argc,
      char **argv)
{
  double end = cpu_s () + (argc > 1 ? atof (argv[1]) : 0.3);

  while (cpu_s () < end)
    spin ();
  return 0;
}

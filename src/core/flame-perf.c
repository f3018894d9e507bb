/* TEMPORARY: replaced by the perf script loader in this same change. */
#include "flame-error.h"
#include "flame-perf.h"

gboolean
flame_perf_sniff (const char *data, gsize len)
{
  return FALSE;
}

FlameProfile *
flame_perf_load (FlameInput *in, GError **error)
{
  flame_input_set_error (in, error, FLAME_ERROR_UNSUPPORTED, 0, "perf script not implemented");
  return NULL;
}

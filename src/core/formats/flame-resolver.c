/* flame-resolver.c: the resolver perf.data loads use.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "flame-resolver.h"

static const FlameResolver *default_resolver;

/* Set once by main() before any load starts: loads read it in workers. */
void
flame_resolver_set_default (const FlameResolver *resolver)
{
  g_atomic_pointer_set (&default_resolver, resolver);
}

const FlameResolver *
flame_resolver_get_default (void)
{
  return g_atomic_pointer_get (&default_resolver);
}

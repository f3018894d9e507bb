/* flame-unit.h: what a profile's numbers measure, and how to print them
 * for people and for machines.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What one unit of a profile's weight is, as the file says. */
typedef enum
{
  FLAME_UNIT_SAMPLES,      /* each unit of weight is one sample */
  FLAME_UNIT_NANOSECONDS,  /* weights are time */
  FLAME_UNIT_EVENTS,       /* weights are event counts (cycles, ...) */
  FLAME_UNIT_BYTES,
  FLAME_UNIT_COUNT,        /* weights count things: objects, goroutines, contentions */
} FlameUnit;

/* What values are compared in, once a profile's weights are converted:
 * samples, time and events become milliseconds (events through the
 * samples they were taken in); bytes stay bytes, counts stay counts.
 * Two profiles can only be compared in the same quantity. */
typedef enum
{
  FLAME_QUANTITY_TIME,   /* milliseconds */
  FLAME_QUANTITY_BYTES,  /* bytes */
  FLAME_QUANTITY_COUNT,  /* a number of things */
} FlameQuantity;

FlameQuantity  flame_unit_get_quantity       (FlameUnit      unit);

const char    *flame_quantity_to_string      (FlameQuantity  quantity);
const char    *flame_quantity_get_noun       (FlameQuantity  quantity);
gdouble        flame_quantity_scale_for_people (FlameQuantity  quantity,
                                              gdouble        magnitude,
                                              const char   **symbol);
char          *flame_quantity_format         (FlameQuantity  quantity,
                                              gdouble        value);
char          *flame_quantity_format_compact (FlameQuantity  quantity,
                                              gdouble        value,
                                              gboolean       with_sign);

G_END_DECLS

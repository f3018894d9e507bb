/* flame-palette.h: the colours of a flame graph.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "flame-diff.h"

G_BEGIN_DECLS

typedef struct
{
  guint8 r, g, b;
} FlameRgb;

#define FLAME_RGB(hex) ((FlameRgb) { ((hex) >> 16) & 0xff, ((hex) >> 8) & 0xff, (hex) & 0xff })

typedef enum
{
  FLAME_PALETTE_LIGHT,
  FLAME_PALETTE_DARK,
  FLAME_PALETTE_HIGH_CONTRAST_LIGHT,
  FLAME_PALETTE_HIGH_CONTRAST_DARK,
  FLAME_N_PALETTES
} FlamePaletteKind;

typedef struct
{
  FlamePaletteKind kind;
  const char      *name;
  gboolean         dark;
  FlameRgb         fill[FLAME_N_CHANGES]; /* by FlameChange */
  FlameRgb         background;
  FlameRgb         foreground;            /* legend and title text */
  FlameRgb         highlight;             /* outline of the highlighted frame */
  FlameRgb         match;                 /* outline of search matches */
  FlameRgb         merged;                /* frames standing for narrow siblings */
  gboolean         borders;               /* outline every frame (high contrast) */
} FlamePalette;

const FlamePalette *flame_palette_get            (FlamePaletteKind    kind);
const FlamePalette *flame_palette_for            (gboolean            dark,
                                                  gboolean            high_contrast);
FlameRgb            flame_palette_get_fill       (const FlamePalette *self,
                                                  FlameChange         klass);
FlameRgb            flame_palette_plain_fill     (const FlamePalette *self,
                                                  const char         *name);
FlameRgb            flame_palette_text_for       (FlameRgb            fill);
gdouble             flame_rgb_luminance          (FlameRgb            c);
gdouble             flame_rgb_contrast           (FlameRgb            a,
                                                  FlameRgb            b);
void                flame_rgb_to_hex             (FlameRgb            c,
                                                  char                out[8]);
const char         *flame_change_legend_label    (FlameChange         klass);
const FlameChange  *flame_legend_classes         (guint              *n);

G_END_DECLS

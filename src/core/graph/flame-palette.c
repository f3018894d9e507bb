/* flame-palette.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The light and dark differential palettes are DESIGN.md's (the CPython
 * 3.15 --diff-flamegraph colours), exactly. The high-contrast variants
 * spread the levels further apart, outline every frame and use a plain
 * white or black background; they keep the same hue families (red =
 * slower, blue = faster, purple = new/removed) so that the legend reads
 * the same. On the dark one a bigger change is a brighter colour, a
 * small one fades towards the black background.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flame-palette.h"

#define DIFF_FILLS(rd, rm, rl, rv, id, im, il, iv, neutral, new_, elided) \
  { \
    [FLAME_CHANGE_NEUTRAL] = FLAME_RGB (neutral), \
    [FLAME_CHANGE_REGRESSION_DEEP] = FLAME_RGB (rd), \
    [FLAME_CHANGE_REGRESSION_MEDIUM] = FLAME_RGB (rm), \
    [FLAME_CHANGE_REGRESSION_LIGHT] = FLAME_RGB (rl), \
    [FLAME_CHANGE_REGRESSION_VERY_LIGHT] = FLAME_RGB (rv), \
    [FLAME_CHANGE_IMPROVEMENT_DEEP] = FLAME_RGB (id), \
    [FLAME_CHANGE_IMPROVEMENT_MEDIUM] = FLAME_RGB (im), \
    [FLAME_CHANGE_IMPROVEMENT_LIGHT] = FLAME_RGB (il), \
    [FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT] = FLAME_RGB (iv), \
    [FLAME_CHANGE_NEW] = FLAME_RGB (new_), \
    [FLAME_CHANGE_ELIDED] = FLAME_RGB (elided), \
  }

static const FlamePalette palettes[FLAME_N_PALETTES] = {
  [FLAME_PALETTE_LIGHT] = {
    .kind = FLAME_PALETTE_LIGHT,
    .name = "light",
    .dark = FALSE,
    .fill = DIFF_FILLS (0xd32f2f, 0xe57373, 0xef9a9a, 0xffcdd2,
                        0x1976d2, 0x42a5f5, 0x64b5f6, 0x90caf9,
                        0xbdbdbd, 0x9575cd, 0xb39ddb),
    .background = FLAME_RGB (0xffffff),
    .foreground = FLAME_RGB (0x241f31),
    .highlight = FLAME_RGB (0x000000),
    .match = FLAME_RGB (0xe5a50a),
    .merged = FLAME_RGB (0xdeddda),
  },
  [FLAME_PALETTE_DARK] = {
    .kind = FLAME_PALETTE_DARK,
    .name = "dark",
    .dark = TRUE,
    .fill = DIFF_FILLS (0xef5350, 0xe57373, 0xef9a9a, 0xffcdd2,
                        0x42a5f5, 0x64b5f6, 0x90caf9, 0xbbdefb,
                        0x757575, 0xb39ddb, 0xce93d8),
    .background = FLAME_RGB (0x1e1e1e),
    .foreground = FLAME_RGB (0xffffff),
    .highlight = FLAME_RGB (0xffffff),
    .match = FLAME_RGB (0xf6d32d),
    .merged = FLAME_RGB (0x3d3846),
  },
  [FLAME_PALETTE_HIGH_CONTRAST_LIGHT] = {
    .kind = FLAME_PALETTE_HIGH_CONTRAST_LIGHT,
    .name = "high-contrast",
    .dark = FALSE,
    .fill = DIFF_FILLS (0xb71c1c, 0xe53935, 0xef9a9a, 0xffebee,
                        0x0d47a1, 0x1e88e5, 0x90caf9, 0xe3f2fd,
                        0xffffff, 0x4a148c, 0xce93d8),
    .background = FLAME_RGB (0xffffff),
    .foreground = FLAME_RGB (0x000000),
    .highlight = FLAME_RGB (0x000000),
    .match = FLAME_RGB (0xff6f00),
    .merged = FLAME_RGB (0x9e9e9e),
    .borders = TRUE,
  },
  [FLAME_PALETTE_HIGH_CONTRAST_DARK] = {
    .kind = FLAME_PALETTE_HIGH_CONTRAST_DARK,
    .name = "high-contrast-dark",
    .dark = TRUE,
    .fill = DIFF_FILLS (0xff5252, 0xc62828, 0x7f1d1d, 0x4e1111,
                        0x448aff, 0x1e63c4, 0x1a3f7a, 0x0d2a4e,
                        0x000000, 0xd1c4e9, 0xf48fb1),
    .background = FLAME_RGB (0x000000),
    .foreground = FLAME_RGB (0xffffff),
    .highlight = FLAME_RGB (0xffffff),
    .match = FLAME_RGB (0xffea00),
    .merged = FLAME_RGB (0x616161),
    .borders = TRUE,
  },
};

const FlamePalette *
flame_palette_get (FlamePaletteKind kind)
{
  g_return_val_if_fail (kind < FLAME_N_PALETTES, &palettes[0]);
  return &palettes[kind];
}

const FlamePalette *
flame_palette_for (gboolean dark,
                   gboolean high_contrast)
{
  if (high_contrast)
    return &palettes[dark ? FLAME_PALETTE_HIGH_CONTRAST_DARK : FLAME_PALETTE_HIGH_CONTRAST_LIGHT];
  return &palettes[dark ? FLAME_PALETTE_DARK : FLAME_PALETTE_LIGHT];
}

FlameRgb
flame_palette_get_fill (const FlamePalette *self,
                        FlameChange         klass)
{
  if (klass >= FLAME_N_CHANGES)
    klass = FLAME_CHANGE_NEUTRAL;
  return self->fill[klass];
}

/* FNV-1a, then a mix: stable across runs and platforms. */
static guint32
name_hash (const char *name)
{
  guint32 h = 2166136261u;

  for (const guchar *p = (const guchar *) name; *p; p++)
    h = (h ^ *p) * 16777619u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return h;
}

/**
 * flame_palette_plain_fill:
 *
 * For a single profile: the classic flame graph's warm "hot" colours
 * (red 205–255, green 0–230, blue 0–55), picked by a hash of the
 * function name, so a function keeps its colour from graph to graph.
 * The high-contrast dark palette darkens them so that white text reads.
 */
FlameRgb
flame_palette_plain_fill (const FlamePalette *self,
                          const char         *name)
{
  guint32 h = name_hash (name != NULL ? name : "");
  gdouble v1 = (h & 0xff) / 255.0;
  gdouble v2 = ((h >> 8) & 0xff) / 255.0;
  gdouble v3 = ((h >> 16) & 0xff) / 255.0;
  FlameRgb c = {
    (guint8) (205 + 50 * v3),
    (guint8) (230 * v1),
    (guint8) (55 * v2),
  };

  if (self != NULL && self->kind == FLAME_PALETTE_HIGH_CONTRAST_DARK)
    c = (FlameRgb) { c.r / 2, c.g / 2, c.b / 2 };
  return c;
}

static gdouble
channel (guint8 v)
{
  gdouble c = v / 255.0;

  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

/* WCAG 2 relative luminance */
gdouble
flame_rgb_luminance (FlameRgb c)
{
  return 0.2126 * channel (c.r) + 0.7152 * channel (c.g) + 0.0722 * channel (c.b);
}

/* WCAG 2 contrast ratio, 1 … 21 */
gdouble
flame_rgb_contrast (FlameRgb a,
                    FlameRgb b)
{
  gdouble la = flame_rgb_luminance (a);
  gdouble lb = flame_rgb_luminance (b);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

/**
 * flame_palette_text_for:
 *
 * Black or white, whichever contrasts more with @fill. The better of the
 * two always reaches at least 4.58:1 (WCAG AA for normal text).
 */
FlameRgb
flame_palette_text_for (FlameRgb fill)
{
  FlameRgb black = { 0, 0, 0 }, white = { 255, 255, 255 };

  return flame_rgb_contrast (fill, black) >= flame_rgb_contrast (fill, white) ? black : white;
}

void
flame_rgb_to_hex (FlameRgb c,
                  char     out[8])
{
  snprintf (out, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}

static char *
make_legend_label (FlameChange klass)
{
  const int n = FLAME_CHANGE_NEUTRAL_PCT, l = FLAME_CHANGE_LIGHT_PCT;
  const int m = FLAME_CHANGE_MEDIUM_PCT, d = FLAME_CHANGE_DEEP_PCT;

  switch (klass)
    {
    case FLAME_CHANGE_REGRESSION_DEEP:
      return g_strdup_printf ("Deep Regression ≥%d%%", d);
    case FLAME_CHANGE_REGRESSION_MEDIUM:
      return g_strdup_printf ("Medium Regression %d-%d%%", m, d);
    case FLAME_CHANGE_REGRESSION_LIGHT:
      return g_strdup_printf ("Light Regression %d-%d%%", l, m);
    case FLAME_CHANGE_REGRESSION_VERY_LIGHT:
      return g_strdup_printf ("Minor Regression %d-%d%%", n, l);
    case FLAME_CHANGE_NEUTRAL:
      return g_strdup_printf ("Neutral -%d%% to %d%%", n, n);
    case FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT:
      return g_strdup_printf ("Minor Improvement -%d%% to -%d%%", l, n);
    case FLAME_CHANGE_IMPROVEMENT_LIGHT:
      return g_strdup_printf ("Light Improvement -%d%% to -%d%%", m, l);
    case FLAME_CHANGE_IMPROVEMENT_MEDIUM:
      return g_strdup_printf ("Strong Improvement -%d%% to -%d%%", d, m);
    case FLAME_CHANGE_IMPROVEMENT_DEEP:
      /* CPython says "self time gone"; memory and counts are drawn with
       * the same labels, so they say what holds for all three */
      return g_strdup_printf ("Deep Improvement -%d%% (self cost gone)", d);
    case FLAME_CHANGE_NEW:
      return g_strdup ("New — No counterpart in baseline");
    case FLAME_CHANGE_ELIDED:
      return g_strdup ("Removed — No counterpart in current");
    case FLAME_N_CHANGES:
    default:
      return g_strdup ("");
    }
}

/**
 * flame_change_legend_label:
 *
 * The legend text of a colour class with its threshold range. The texts
 * follow CPython's legend (cpython-diff.md §2); CPython lumps the two
 * strongest improvement levels into one row, here each of the four
 * levels has its own. The numbers are the classification's own bounds
 * (flame-diff.h), written once per process.
 */
const char *
flame_change_legend_label (FlameChange klass)
{
  static char *labels[FLAME_N_CHANGES];
  static gsize once;

  if (g_once_init_enter (&once))
    {
      for (guint i = 0; i < FLAME_N_CHANGES; i++)
        labels[i] = make_legend_label (i);
      g_once_init_leave (&once, 1);
    }
  return klass < FLAME_N_CHANGES ? labels[klass] : "";
}

/* The classes in legend order: regressions, neutral, improvements, new,
 * removed. */
const FlameChange *
flame_legend_classes (guint *n)
{
  static const FlameChange order[] = {
    FLAME_CHANGE_REGRESSION_DEEP, FLAME_CHANGE_REGRESSION_MEDIUM,
    FLAME_CHANGE_REGRESSION_LIGHT, FLAME_CHANGE_REGRESSION_VERY_LIGHT,
    FLAME_CHANGE_NEUTRAL,
    FLAME_CHANGE_IMPROVEMENT_VERY_LIGHT, FLAME_CHANGE_IMPROVEMENT_LIGHT,
    FLAME_CHANGE_IMPROVEMENT_MEDIUM, FLAME_CHANGE_IMPROVEMENT_DEEP,
    FLAME_CHANGE_NEW, FLAME_CHANGE_ELIDED,
  };

  *n = G_N_ELEMENTS (order);
  return order;
}

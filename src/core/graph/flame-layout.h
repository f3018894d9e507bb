/* flame-layout.h: which frames a flame graph draws, and where.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "flame-diff.h"
#include "flame-profile.h"

G_BEGIN_DECLS

typedef enum
{
  FLAME_VIEW_DIFFERENTIAL, /* current tree, widths = current total */
  FLAME_VIEW_ELIDED,       /* only the paths gone from the current run */
  FLAME_VIEW_INVERTED,     /* bottom-up: functions with self time at the root */
  FLAME_VIEW_SINGLE,       /* one profile, no diff: the plain palette */
} FlameView;

typedef enum
{
  FLAME_ORIENTATION_FLAME,  /* root row at the bottom */
  FLAME_ORIENTATION_ICICLE, /* root row at the top */
} FlameOrientation;

typedef enum
{
  FLAME_LAYOUT_FRAME_ANCESTOR  = 1 << 0, /* above the zoom root: drawn full width */
  FLAME_LAYOUT_FRAME_ZOOM_ROOT = 1 << 1,
  FLAME_LAYOUT_FRAME_MERGED    = 1 << 2, /* stands for siblings too narrow to draw */
  FLAME_LAYOUT_FRAME_MATCH     = 1 << 3, /* matches the search (flame_layout_search) */
} FlameLayoutFrameFlags;

/* One rectangle. x, y, width and height are pixels; the painter leaves
 * a 1 px gap to the right and between rows inside this cell. */
typedef struct
{
  guint32 node;      /* tree node; a merged frame carries its parent's */
  guint32 depth;     /* row, counted from the root row (0) */
  gdouble x;
  gdouble width;
  gdouble y;
  guint8  klass;     /* FlameChange */
  guint8  flags;     /* FlameLayoutFrameFlags */
  guint16 reserved;
  guint32 n_merged;  /* merged frames: how many siblings */
} FlameLayoutFrame;

typedef struct
{
  gdouble          width;       /* px */
  gdouble          row_height;  /* px, the 1 px gap included; default 17 */
  gdouble          min_height;  /* px: at least this tall (a viewport) */
  gdouble          min_width;   /* px: narrower frames are merged; default 0.5 */
  guint32          zoom;        /* node drawn full width; FLAME_TREE_ROOT */
  FlameOrientation orientation;
} FlameLayoutOptions;

/* -- source: a tree prepared for layout (one per diff × view) -------- */

#define FLAME_TYPE_LAYOUT_SOURCE (flame_layout_source_get_type ())

G_DECLARE_FINAL_TYPE (FlameLayoutSource, flame_layout_source, FLAME, LAYOUT_SOURCE, GObject)

FlameLayoutSource *flame_layout_source_new_for_diff    (FlameDiff         *diff,
                                                        FlameView          view);
FlameLayoutSource *flame_layout_source_new_for_diff_reusing (FlameDiff         *diff,
                                                             FlameView          view,
                                                             FlameLayoutSource *previous);
FlameLayoutSource *flame_layout_source_new_for_profile (FlameProfile      *profile,
                                                        guint              column,
                                                        gdouble            default_interval_ms);
FlameView          flame_layout_source_get_view        (FlameLayoutSource *self);
FlameDiff         *flame_layout_source_get_diff        (FlameLayoutSource *self);
FlameQuantity      flame_layout_source_get_quantity    (FlameLayoutSource *self);
const FlameTree   *flame_layout_source_get_tree        (FlameLayoutSource *self);
FlameFrames       *flame_layout_source_get_frames      (FlameLayoutSource *self);
gdouble            flame_layout_source_get_weight      (FlameLayoutSource *self,
                                                        guint32            node);
gdouble            flame_layout_source_get_self_ms     (FlameLayoutSource *self,
                                                        guint32            node);
FlameChange        flame_layout_source_get_class       (FlameLayoutSource *self,
                                                        guint32            node);
const char        *flame_layout_source_get_name        (FlameLayoutSource *self,
                                                        guint32            node);
guint32            flame_layout_source_find            (FlameLayoutSource *self,
                                                        const char        *spec);
gsize              flame_layout_source_memory          (FlameLayoutSource *self);

/* -- layout ------------------------------------------------------------ */

typedef struct _FlameLayout FlameLayout;

void                    flame_layout_options_init (FlameLayoutOptions     *options);
const char             *flame_view_to_string      (FlameView               view);
gboolean                flame_view_from_string    (const char             *str,
                                                   FlameView              *view);
FlameLayout            *flame_layout_new          (FlameLayoutSource      *source,
                                                   const FlameLayoutOptions *options);
void                    flame_layout_free         (FlameLayout            *self);
FlameLayoutSource      *flame_layout_get_source   (FlameLayout            *self);
const FlameLayoutOptions *flame_layout_get_options (FlameLayout           *self);
guint                   flame_layout_get_n_frames (FlameLayout            *self);
const FlameLayoutFrame *flame_layout_get_frame    (FlameLayout            *self,
                                                   guint                   i);
guint                   flame_layout_get_n_rows   (FlameLayout            *self);
void                    flame_layout_get_row      (FlameLayout            *self,
                                                   guint                   depth,
                                                   guint                  *first,
                                                   guint                  *n);
gdouble                 flame_layout_get_height   (FlameLayout            *self);
gdouble                 flame_layout_row_y        (FlameLayout            *self,
                                                   guint                   depth);
const char             *flame_layout_get_label    (FlameLayout            *self,
                                                   guint                   i);
gint                    flame_layout_hit_test     (FlameLayout            *self,
                                                   gdouble                 x,
                                                   gdouble                 y);
gint                    flame_layout_find_node    (FlameLayout            *self,
                                                   guint32                 node);
guint                   flame_layout_search       (FlameLayout            *self,
                                                   const char             *needle);
gsize                   flame_layout_memory       (FlameLayout            *self);

/* @node is never the root or a merged frame's parent stand-in. */
typedef gboolean (*FlameLayoutMatchFunc) (FlameLayoutSource *source,
                                          guint32            node,
                                          gpointer           user_data);

guint                   flame_layout_search_func  (FlameLayout            *self,
                                                   FlameLayoutMatchFunc    func,
                                                   gpointer                user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameLayout, flame_layout_free)

G_END_DECLS

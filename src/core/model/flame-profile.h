/* flame-profile.h: one loaded profile (or a ready-made pair).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "flame-frames.h"
#include "flame-tree.h"
#include "flame-unit.h"

G_BEGIN_DECLS

typedef enum
{
  FLAME_FORMAT_UNKNOWN,
  FLAME_FORMAT_FOLDED,
  FLAME_FORMAT_FOLDED_PAIR,   /* "stack before after" */
  FLAME_FORMAT_PERF_SCRIPT,
  FLAME_FORMAT_SPEEDSCOPE,
  FLAME_FORMAT_CHROME_CPUPROFILE,  /* .cpuprofile, also the old tree form */
  FLAME_FORMAT_CHROME_TRACE,       /* trace events: Profile/ProfileChunk, B/E/X */
  FLAME_FORMAT_GECKO,              /* Firefox raw (Gecko) profile */
  FLAME_FORMAT_FIREFOX_PROCESSED,  /* Firefox Profiler's processed format */
  FLAME_FORMAT_CPYTHON_COLLAPSED, /* folded, with tid:N roots and file:func:line frames */
  FLAME_FORMAT_PPROF,
  FLAME_FORMAT_PPROF_LEGACY,      /* gperftools / old Go binary CPU profile */
  FLAME_FORMAT_CPYTHON_BINARY,    /* profiling.sampling --binary */
  FLAME_FORMAT_CALLGRIND,         /* valgrind --tool=callgrind output */
  FLAME_FORMAT_PSTATS,            /* Python cProfile/profile statistics */
  FLAME_FORMAT_SYSPROF,           /* Sysprof capture (.syscap) */
  FLAME_FORMAT_PERF_DATA,         /* perf record's perf.data */
  FLAME_N_FORMATS                 /* not a format: how many there are */
} FlameFormat;

typedef struct
{
  char   *name;
  gint64  pid;     /* -1 when unknown */
  gint64  tid;     /* -1 when unknown */
  gdouble samples;
} FlameThread;

#define FLAME_TYPE_PROFILE (flame_profile_get_type ())

G_DECLARE_FINAL_TYPE (FlameProfile, flame_profile, FLAME, PROFILE, GObject)

FlameProfile      *flame_profile_new                (FlameFormat   format,
                                                     guint         n_columns);
FlameFormat        flame_profile_get_format         (FlameProfile *self);
const char        *flame_profile_get_format_name    (FlameProfile *self);
const char        *flame_format_to_string           (FlameFormat   format);
const char        *flame_profile_get_path           (FlameProfile *self);
void               flame_profile_set_path           (FlameProfile *self,
                                                     const char   *path);
guint              flame_profile_get_n_columns      (FlameProfile *self);
FlameFrames       *flame_profile_get_frames         (FlameProfile *self);
FlameTree         *flame_profile_get_tree           (FlameProfile *self);

FlameUnit          flame_profile_get_unit           (FlameProfile *self);
void               flame_profile_set_unit           (FlameProfile *self,
                                                     FlameUnit     unit);
FlameQuantity      flame_profile_get_quantity       (FlameProfile *self);
const char        *flame_profile_get_sample_type    (FlameProfile *self);
const char * const *flame_profile_get_sample_types  (FlameProfile *self);
void               flame_profile_set_sample_types   (FlameProfile       *self,
                                                     const char * const *types);
gdouble            flame_profile_get_interval_ms    (FlameProfile *self);
gdouble            flame_profile_get_effective_interval_ms (FlameProfile *self,
                                                     guint         column,
                                                     gdouble       default_interval_ms,
                                                     gboolean     *assumed);
void               flame_profile_set_interval_ms    (FlameProfile *self,
                                                     gdouble       interval_ms);
gdouble            flame_profile_get_duration_ms    (FlameProfile *self);
void               flame_profile_set_duration_ms    (FlameProfile *self,
                                                     gdouble       duration_ms);
const char        *flame_profile_get_event          (FlameProfile *self);
void               flame_profile_set_event          (FlameProfile *self,
                                                     const char   *event);
gdouble            flame_profile_get_samples        (FlameProfile *self,
                                                     guint         column);
void               flame_profile_add_samples        (FlameProfile *self,
                                                     guint         column,
                                                     gdouble       samples);
gdouble            flame_profile_get_total_weight   (FlameProfile *self,
                                                     guint         column);
gdouble            flame_profile_get_ms_per_weight  (FlameProfile *self,
                                                     guint         column,
                                                     gdouble       default_interval_ms);
gdouble            flame_profile_get_total_ms       (FlameProfile *self,
                                                     guint         column,
                                                     gdouble       default_interval_ms);
gboolean           flame_profile_has_timing         (FlameProfile *self);

GPtrArray         *flame_profile_get_threads        (FlameProfile *self);
FlameThread       *flame_profile_ensure_thread      (FlameProfile *self,
                                                     const char   *name,
                                                     gint64        pid,
                                                     gint64        tid);
const char        *flame_profile_get_metadata       (FlameProfile *self,
                                                     const char   *key);
void               flame_profile_set_metadata       (FlameProfile *self,
                                                     const char   *key,
                                                     const char   *value);
GStrv              flame_profile_dup_metadata_keys  (FlameProfile *self);
GPtrArray         *flame_profile_get_warnings       (FlameProfile *self);
void               flame_profile_add_warning        (FlameProfile *self,
                                                     const char   *format,
                                                     ...) G_GNUC_PRINTF (2, 3);

guint32            flame_profile_intern_frame       (FlameProfile *self,
                                                     const char   *name,
                                                     gsize         name_len,
                                                     const char   *file,
                                                     gsize         file_len,
                                                     guint32       line,
                                                     guint32       flags);
void               flame_profile_add_stack          (FlameProfile *self,
                                                     guint         column,
                                                     const guint32 *frames,
                                                     guint         n_frames,
                                                     gdouble       weight);
void               flame_profile_set_function_weights (FlameProfile *self,
                                                     guint         column,
                                                     guint32       frame,
                                                     gdouble       self_weight,
                                                     gdouble       total_weight);
void               flame_profile_add_function_calls (FlameProfile *self,
                                                     guint         column,
                                                     guint32       frame,
                                                     guint64       calls,
                                                     guint64       primitive_calls);
gboolean           flame_profile_get_function_calls (FlameProfile *self,
                                                     guint         column,
                                                     guint32       frame,
                                                     guint64      *calls,
                                                     guint64      *primitive_calls);
gboolean           flame_profile_has_function_weights (FlameProfile *self);
gboolean           flame_profile_get_function_weights (FlameProfile *self,
                                                     guint         column,
                                                     guint32       frame,
                                                     gdouble      *self_weight,
                                                     gdouble      *total_weight);
void               flame_profile_finish             (FlameProfile *self);
void               flame_profile_ensure_totals      (FlameProfile *self);

G_END_DECLS

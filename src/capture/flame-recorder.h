/* flame-recorder.h: run a command with the sampler preloaded and turn
 * what it sends into a profile (speedscope JSON on disk).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "flame-profile.h"
#include "flame-sandbox.h"

G_BEGIN_DECLS

#define FLAME_RECORDER_DEFAULT_HZ 999
/* memory recordings: the mean of the sampling of allocated bytes */
#define FLAME_RECORDER_DEFAULT_MEMORY_MEAN (512 * 1024)

/* The metrics of a memory recording, one profile each in its file,
 * selected by name (--metric / --sample-type) */
typedef enum
{
  FLAME_RECORDER_METRIC_ALLOCATED,    /* "allocated": bytes */
  FLAME_RECORDER_METRIC_ALLOCATIONS,  /* "allocations": count */
  FLAME_RECORDER_METRIC_PEAK,         /* "peak": live bytes at the peak */
  FLAME_RECORDER_METRIC_LEAKED,       /* "leaked": still live at exit */
  FLAME_RECORDER_N_METRICS
} FlameRecorderMetric;

#define FLAME_RECORDER_ERROR (flame_recorder_error_quark ())

typedef enum
{
  FLAME_RECORDER_ERROR_NO_COMMAND,
  FLAME_RECORDER_ERROR_NOT_FOUND,     /* the command or the sampler */
  FLAME_RECORDER_ERROR_UNSUPPORTED,   /* static or setuid: the preload cannot reach it */
  FLAME_RECORDER_ERROR_FAILED,
} FlameRecorderError;

#define FLAME_TYPE_RECORDER (flame_recorder_get_type ())

G_DECLARE_FINAL_TYPE (FlameRecorder, flame_recorder, FLAME, RECORDER, GObject)

GQuark         flame_recorder_error_quark       (void);

FlameRecorder *flame_recorder_new               (const char * const *argv);
void           flame_recorder_set_cwd           (FlameRecorder      *self,
                                                 const char         *cwd);
void           flame_recorder_setenv            (FlameRecorder      *self,
                                                 const char         *name,
                                                 const char         *value);
void           flame_recorder_set_frequency     (FlameRecorder      *self,
                                                 guint               hz);
void           flame_recorder_set_follow_children (FlameRecorder    *self,
                                                 gboolean            follow);
void           flame_recorder_set_python_only   (FlameRecorder      *self,
                                                 gboolean            python_only);
void           flame_recorder_set_python_lines  (FlameRecorder      *self,
                                                 gboolean            python_lines);
void           flame_recorder_set_capture_output (FlameRecorder     *self,
                                                 gboolean            capture);
void           flame_recorder_set_output_path   (FlameRecorder      *self,
                                                 const char         *path);
void           flame_recorder_set_memory        (FlameRecorder      *self,
                                                 guint               mean);
void           flame_recorder_set_host_sampler  (FlameRecorder      *self,
                                                 const char         *host_path);
gboolean       flame_recorder_use_host          (FlameRecorder      *self,
                                                 const FlameSandboxInfo *info,
                                                 GError            **error);

const char    *flame_recorder_get_output_path   (FlameRecorder      *self);
gdouble        flame_recorder_get_elapsed       (FlameRecorder      *self);
guint64        flame_recorder_get_samples       (FlameRecorder      *self);
guint64        flame_recorder_get_lost          (FlameRecorder      *self);
int            flame_recorder_get_wait_status   (FlameRecorder      *self);
gdouble        flame_recorder_get_effective_hz  (FlameRecorder      *self);

void           flame_recorder_record_async      (FlameRecorder       *self,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
FlameProfile  *flame_recorder_record_finish     (FlameRecorder       *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);
FlameProfile  *flame_recorder_record            (FlameRecorder       *self,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
void           flame_recorder_stop              (FlameRecorder       *self);

FlameProfile  *flame_recorder_recover           (const char          *spool_path,
                                                 GError             **error);
GPtrArray     *flame_recorder_find_spools       (const char          *dir);

char          *flame_recorder_find_sampler      (GError             **error);
char          *flame_recorder_find_host_sampler (gboolean             memory,
                                                 GError             **error);
gboolean       flame_recorder_check_host_program (const char         *root,
                                                  const char         *program,
                                                  const char         *cwd,
                                                  GError            **error);
char          *flame_recorder_default_dir       (void);
char          *flame_recorder_new_runs_dir      (const char          *program);
char          *flame_recorder_run_path          (const char          *dir,
                                                 guint                index);
gboolean       flame_recorder_check_program     (const char          *program,
                                                 const char          *cwd,
                                                 char               **resolved,
                                                 GError             **error);

G_END_DECLS

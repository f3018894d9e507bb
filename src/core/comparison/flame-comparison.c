/* flame-comparison.c
 *
 * A comparison holds the runs of each side (a file, its profile once
 * loaded) and the options. Loading reads every run not loaded yet, several
 * at once (one thread per core: on two cores two large profiles take the
 * time of one), then diffs and reports. Progress is counted per run by the
 * loaders' threads and notified on the main context of whoever started
 * the load, at most every PROGRESS_MS.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "flame-comparison.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-parallel.h"
#include "flame-runs.h"

#define PROGRESS_MS 50
/* share of the progress bar that loading takes; diff and report the rest */
#define LOAD_SHARE 0.9

typedef enum
{
  PHASE_IDLE,
  PHASE_LOADING,
  PHASE_COMPARING,
  PHASE_DONE,
} Phase;

typedef struct
{
  FlameComparison *owner;
  GFile           *file;      /* NULL for a profile given without one */
  char            *path;      /* as given: errors name the file this way */
  FlameProfile    *profile;   /* NULL until loaded */
  gboolean         loaded;    /* by this comparison (not given loaded) */
  GError          *error;
  gint             progress;  /* per mille, atomic */
} Run;

struct _FlameComparison
{
  GObject             parent_instance;

  GPtrArray          *runs[2];   /* Run, per side */
  FlameLoadOptions    load_options;    /* its sample_type: our copy */
  char               *sample_type;
  FlameDiffOptions    diff_options;
  FlameReportOptions  report_options_set;
  FlameReportOptions  report_options;  /* what the report gets: the rule applied */
  gboolean            allow_single;
  gboolean            no_report;       /* flame_comparison_set_want_report() */
  gboolean            metric_from_files;
  gboolean            single_use;      /* flame_comparison_set_single_use() */
  gboolean            busy;

  FlameRuns          *merged[2];  /* a side of several runs: their mean */
  FlameDiff          *reusable;   /* flame_comparison_reuse_diff() */
  FlameDiff          *diff;
  FlameReport        *report;

  /* progress, written by the loading threads */
  gint                phase;           /* Phase, atomic */
  guint               n_loading;       /* runs being loaded (fixed while busy) */
  GMutex              lock;            /* guards message and notify_source */
  char               *message;
  GMainContext       *context;         /* of the caller of load */
  GSource            *notify_source;   /* a notification on its way */

  /* main context only: what was last notified */
  gdouble             notified_fraction;
  char               *notified_message;
};

enum {
  PROP_0,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameComparison, flame_comparison, G_TYPE_OBJECT)

static void
run_free (gpointer data)
{
  Run *run = data;

  g_clear_object (&run->file);
  g_clear_object (&run->profile);
  g_clear_error (&run->error);
  g_free (run->path);
  g_free (run);
}

/* the one rule from diff options to report options: the report colours
 * and gates by what the graph compares, and "hide noise" (a significance
 * level) makes non-significant changes unchanged */
static void
apply_report_rule (FlameComparison *self)
{
  self->report_options = self->report_options_set;
  self->report_options.metric = self->diff_options.metric;
  if (self->diff_options.significance > 0)
    {
      self->report_options.alpha = self->diff_options.significance;
      self->report_options.gate_on_noise = TRUE;
    }
}

/* ------------------------------------------------------------------ */
/* Progress */

/* any thread */
static gdouble
compute_fraction (FlameComparison *self)
{
  gint sum = 0;

  switch (g_atomic_int_get (&self->phase))
    {
    case PHASE_LOADING:
      for (guint side = 0; side < 2; side++)
        for (guint i = 0; i < self->runs[side]->len; i++)
          {
            Run *run = g_ptr_array_index (self->runs[side], i);

            sum += g_atomic_int_get (&run->progress);
          }
      return self->n_loading > 0 ? LOAD_SHARE * sum / (1000.0 * self->n_loading) : 0;
    case PHASE_COMPARING:
      return LOAD_SHARE;
    case PHASE_DONE:
      return 1;
    case PHASE_IDLE:
    default:
      return 0;
    }
}

/* the main context's copies: the threads' ones move on meanwhile */
gdouble
flame_comparison_get_fraction (FlameComparison *self)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), 0);
  return self->notified_fraction;
}

const char *
flame_comparison_get_message (FlameComparison *self)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  return self->notified_message;
}

/* on the caller's main context */
static void
dispatch_notify (FlameComparison *self)
{
  gdouble fraction = compute_fraction (self);
  g_autofree char *message = NULL;

  g_mutex_lock (&self->lock);
  message = g_strdup (self->message);
  if (self->notify_source != NULL)
    {
      g_source_destroy (self->notify_source);
      g_clear_pointer (&self->notify_source, g_source_unref);
    }
  g_mutex_unlock (&self->lock);

  g_object_freeze_notify (G_OBJECT (self));
  if (fraction != self->notified_fraction)
    {
      self->notified_fraction = fraction;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
    }
  if (g_strcmp0 (message, self->notified_message) != 0)
    {
      g_free (self->notified_message);
      self->notified_message = g_steal_pointer (&message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

static gboolean
notify_cb (gpointer data)
{
  FlameComparison *self = data;

  g_assert (FLAME_IS_COMPARISON (self));

  dispatch_notify (self);
  return G_SOURCE_REMOVE;
}

/* any thread: one pending notification at a time; it holds a reference,
 * dropped when it runs or when the load finishes */
static void
queue_notify (FlameComparison *self)
{
  g_mutex_lock (&self->lock);
  if (self->notify_source == NULL && self->context != NULL)
    {
      self->notify_source = g_timeout_source_new (PROGRESS_MS);
      g_source_set_static_name (self->notify_source, "[flame-comparison-progress]");
      g_source_set_callback (self->notify_source, notify_cb, g_object_ref (self), g_object_unref);
      g_source_attach (self->notify_source, self->context);
    }
  g_mutex_unlock (&self->lock);
}

static void
set_message (FlameComparison *self,
             char            *message)
{
  g_mutex_lock (&self->lock);
  g_free (self->message);
  self->message = message;
  g_mutex_unlock (&self->lock);
  queue_notify (self);
}

static void
run_progress (gdouble  fraction,
              gpointer data)
{
  Run *run = data;

  g_atomic_int_set (&run->progress, (gint) (CLAMP (fraction, 0, 1) * 1000));
  queue_notify (run->owner);
}

/* ------------------------------------------------------------------ */
/* Loading */

typedef struct
{
  GPtrArray    *todo;   /* Run, not owned */
  GCancellable *cancellable;
  gint          next;   /* atomic */
  guint         threads_per_file;  /* the cores that one file's loader may use */
} LoadPool;

static gpointer
load_worker (gpointer data)
{
  LoadPool *pool = data;
  guint i;

  while ((i = (guint) g_atomic_int_add (&pool->next, 1)) < pool->todo->len)
    {
      Run *run = g_ptr_array_index (pool->todo, i);
      FlameLoadOptions options = run->owner->load_options;

      options.threads = pool->threads_per_file;
      run->profile = flame_load_file_full (run->path, &options,
                                           pool->cancellable, run_progress, run, &run->error);
      run->loaded = run->profile != NULL;
      g_atomic_int_set (&run->progress, 1000);
    }
  return NULL;
}

static char *
loading_message (GPtrArray *todo)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;

  g_assert (todo->len > 0);
  if (todo->len > 2)
    return g_strdup_printf (ngettext ("Loading %u file…", "Loading %u files…", todo->len),
                            todo->len);
  a = g_path_get_basename (((Run *) g_ptr_array_index (todo, 0))->path);
  if (todo->len == 1)
    return g_strdup_printf (_("Loading %s…"), a);
  b = g_path_get_basename (((Run *) g_ptr_array_index (todo, 1))->path);
  return g_strdup_printf (_("Loading %s and %s…"), a, b);
}

/* on the caller's thread: which runs to load, and the message */
static gboolean
prepare (FlameComparison  *self,
         GPtrArray       **todo,
         GError          **error)
{
  if (self->runs[FLAME_DIFF_BASELINE]->len == 0)
    {
      g_set_error (error, FLAME_ERROR, FLAME_ERROR_INVALID, "no baseline profile to compare");
      return FALSE;
    }
  *todo = g_ptr_array_new ();
  for (guint side = 0; side < 2; side++)
    for (guint i = 0; i < self->runs[side]->len; i++)
      {
        Run *run = g_ptr_array_index (self->runs[side], i);

        if (run->profile != NULL)
          continue;
        if (run->path == NULL)
          {
            g_autofree char *uri = g_file_get_uri (run->file);

            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                         _("%s: only local files can be opened"), uri);
            g_clear_pointer (todo, g_ptr_array_unref);
            return FALSE;
          }
        g_clear_error (&run->error);
        g_atomic_int_set (&run->progress, 0);
        g_ptr_array_add (*todo, run);
      }

  self->busy = TRUE;
  self->n_loading = (*todo)->len;
  g_clear_object (&self->diff);
  g_clear_pointer (&self->report, flame_report_free);
  for (guint side = 0; side < 2; side++)
    g_clear_pointer (&self->merged[side], flame_runs_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  g_atomic_int_set (&self->phase, (*todo)->len > 0 ? PHASE_LOADING : PHASE_COMPARING);
  set_message (self, (*todo)->len > 0 ? loading_message (*todo) : g_strdup (_("Comparing…")));
  /* what starts now is said now, before the threads run */
  dispatch_notify (self);
  return TRUE;
}

/* any thread: what the diff compares of @side */
static FlameProfile *
side_profile (FlameComparison *self,
              guint            side)
{
  if (self->merged[side] != NULL)
    return self->merged[side]->mean;
  if (self->runs[side]->len == 0)
    return NULL;
  return ((Run *) g_ptr_array_index (self->runs[side], 0))->profile;
}

/* any thread */
/* loads every run of @todo, on as many threads as there are cores (and
 * runs), the cores left over going to the loaders of large files */
static void
load_all (GPtrArray    *todo,
          GCancellable *cancellable)
{
  guint n_cores = MAX (g_get_num_processors (), 1);
  guint n_threads = MIN (todo->len, n_cores);
  LoadPool pool = { todo, cancellable, 0, MAX (n_cores / MAX (todo->len, 1), 1) };
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();

  for (guint t = 1; t < n_threads; t++)
    g_ptr_array_add (threads, g_thread_new ("flame-load", load_worker, &pool));
  load_worker (&pool);
  for (guint t = 0; t < threads->len; t++)
    g_thread_join (g_ptr_array_index (threads, t));
}

/* every file that failed, in order, as one error (fixing one should not
 * reveal the next); the first error's domain and code */
static gboolean
collect_errors (GPtrArray  *todo,
                GError    **error)
{
  g_autoptr(GString) errors = NULL;
  GQuark domain = 0;
  gint code = 0;

  for (guint i = 0; i < todo->len; i++)
    {
      Run *run = g_ptr_array_index (todo, i);

      if (run->error == NULL)
        continue;
      if (errors == NULL)
        {
          errors = g_string_new (run->error->message);
          domain = run->error->domain;
          code = run->error->code;
        }
      else if (!g_error_matches (run->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_string_append_printf (errors, "\n%s", run->error->message);
    }
  if (errors == NULL)
    return TRUE;
  g_set_error_literal (error, domain, code, errors->str);
  return FALSE;
}

/* a side of several runs is compared as their mean */
static gboolean
merge_runs (FlameComparison  *self,
            GError          **error)
{
  for (guint side = 0; side < 2; side++)
    if (self->runs[side]->len > 1)
      {
        g_autofree FlameProfile **profiles = g_new (FlameProfile *, self->runs[side]->len);

        for (guint i = 0; i < self->runs[side]->len; i++)
          profiles[i] = ((Run *) g_ptr_array_index (self->runs[side], i))->profile;
        self->merged[side] = flame_runs_merge (profiles, self->runs[side]->len,
                                               self->diff_options.default_interval_ms, error);
        if (self->merged[side] == NULL)
          return FALSE;
      }
  return TRUE;
}

/* Whether the diff may take @baseline's tree (flame_diff_new_taking_baseline()):
 * a single-use comparison of two profiles it loaded itself, of one run
 * each, that nothing else holds */
static gboolean
may_take_baseline (FlameComparison *self,
                   FlameProfile    *baseline,
                   FlameProfile    *current)
{
  const Run *run;

  if (!self->single_use || current == NULL || self->merged[0] != NULL ||
      self->merged[1] != NULL || self->runs[FLAME_DIFF_BASELINE]->len != 1)
    return FALSE;
  run = g_ptr_array_index (self->runs[FLAME_DIFF_BASELINE], 0);
  return run->loaded && run->profile == baseline &&
         g_atomic_int_get (&G_OBJECT (baseline)->ref_count) == 1;
}

/* the diff of the two sides (a 3-column folded file holds both: @current
 * is NULL then), the graph testing the runs per call path as the report
 * does per function; then the report, unless not wanted */
static gboolean
diff_and_report (FlameComparison  *self,
                 FlameProfile     *baseline,
                 FlameProfile     *current,
                 GCancellable     *cancellable,
                 GError          **error)
{
  FlameRunNodes nodes[2];
  FlameRunTimes times[2];

  for (guint side = 0; side < 2; side++)
    if (self->merged[side] != NULL)
      {
        FlameRuns *runs = self->merged[side];

        nodes[side] = (FlameRunNodes) { runs->n_runs, runs->n_nodes, runs->node_self_ms };
        times[side] = (FlameRunTimes) { runs->n_runs, runs->n_frames, runs->self_ms,
                                        runs->total_ms };
      }
  if (self->reusable != NULL && self->merged[0] == NULL && self->merged[1] == NULL)
    self->diff = flame_diff_new_reusing (self->reusable, baseline, current, &self->diff_options);
  g_clear_object (&self->reusable);
  if (self->diff == NULL && may_take_baseline (self, baseline, current))
    self->diff = flame_diff_new_taking_baseline (baseline, current, &self->diff_options,
                                                 cancellable, error);
  else if (self->diff == NULL)
    self->diff = flame_diff_new_with_runs (baseline, current,
                                           self->merged[0] ? &nodes[0] : NULL,
                                           self->merged[1] ? &nodes[1] : NULL,
                                           self->report_options.alpha,
                                           &self->diff_options, cancellable, error);
  if (self->diff == NULL)
    return FALSE;
  if (!self->no_report)
    self->report = flame_report_new_with_runs (self->diff,
                                               self->merged[0] ? &times[0] : NULL,
                                               self->merged[1] ? &times[1] : NULL,
                                               &self->report_options);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_clear_object (&self->diff);
      g_clear_pointer (&self->report, flame_report_free);
      return FALSE;
    }
  return TRUE;
}

/* The loaders' indexes, which a diff takes or drops, dropped for the
 * profiles that are not diffed themselves (the runs of a mean, a single
 * profile) */
static void
drop_indexes (FlameComparison *self)
{
  for (guint side = 0; side < 2; side++)
    {
      for (guint i = 0; i < self->runs[side]->len; i++)
        {
          FlameProfile *profile = ((Run *) g_ptr_array_index (self->runs[side], i))->profile;

          if (profile != NULL)
            flame_tree_drop_index (flame_profile_get_tree (profile));
        }
      if (self->merged[side] != NULL)
        flame_tree_drop_index (flame_profile_get_tree (self->merged[side]->mean));
    }
}

/* the runs loaded: their means, the diff and the report */
static gboolean
compare_loaded (FlameComparison  *self,
                GCancellable     *cancellable,
                GError          **error)
{
  FlameProfile *baseline, *current;

  g_atomic_int_set (&self->phase, PHASE_COMPARING);
  set_message (self, g_strdup (_("Comparing…")));
  if (!merge_runs (self, error))
    return FALSE;

  baseline = side_profile (self, FLAME_DIFF_BASELINE);
  current = side_profile (self, FLAME_DIFF_CURRENT);
  if (current == NULL && self->allow_single && flame_profile_get_n_columns (baseline) < 2)
    return TRUE;   /* one profile, nothing to compare it with */

  /* pstats files ask to be compared by cumulative time */
  if (self->metric_from_files &&
      g_strcmp0 (flame_profile_get_metadata (baseline, "default-metric"), "total") == 0 &&
      (current == NULL ||
       g_strcmp0 (flame_profile_get_metadata (current, "default-metric"), "total") == 0))
    self->diff_options.metric = self->report_options.metric = FLAME_METRIC_TOTAL;

  return diff_and_report (self, baseline, current, cancellable, error);
}

static gboolean
load_and_compare (FlameComparison  *self,
                  GPtrArray        *todo,
                  GCancellable     *cancellable,
                  GError          **error)
{
  gboolean ok;

  load_all (todo, cancellable);
  ok = collect_errors (todo, error) && compare_loaded (self, cancellable, error);
  drop_indexes (self);
  return ok;
}

/* on the caller's thread */
static void
finish (FlameComparison *self,
        gboolean         ok)
{
  self->busy = FALSE;
  g_atomic_int_set (&self->phase, ok ? PHASE_DONE : PHASE_IDLE);
  if (!ok)
    set_message (self, NULL);
  dispatch_notify (self);
}

/**
 * flame_comparison_load:
 *
 * Loads the runs not loaded yet, all at once, then diffs the two sides
 * and builds the report. Blocks; progress is notified on the calling
 * thread's main context when it runs. On error every file that failed
 * is named, one per line.
 */
gboolean
flame_comparison_load (FlameComparison  *self,
                       GCancellable     *cancellable,
                       GError          **error)
{
  g_autoptr(GPtrArray) todo = NULL;
  gboolean ok;

  g_return_val_if_fail (FLAME_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (!self->busy, FALSE);

  if (!prepare (self, &todo, error))
    return FALSE;
  ok = load_and_compare (self, todo, cancellable, error);
  finish (self, ok);
  return ok;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  FlameComparison *self = source_object;
  GError *error = NULL;

  g_assert (FLAME_IS_COMPARISON (self));
  g_assert (task_data != NULL);

  flame_parallel_enter_background ();
  if (load_and_compare (self, task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
flame_comparison_load_async (FlameComparison     *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GPtrArray *todo = NULL;
  GError *error = NULL;

  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (!self->busy);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, flame_comparison_load_async);
  if (!prepare (self, &todo, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, todo, (GDestroyNotify) g_ptr_array_unref);
  g_task_run_in_thread (task, load_thread);
}

gboolean
flame_comparison_load_finish (FlameComparison  *self,
                              GAsyncResult     *result,
                              GError          **error)
{
  gboolean ok;

  g_return_val_if_fail (FLAME_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  ok = g_task_propagate_boolean (G_TASK (result), error);
  /* an error from prepare() came before anything was started */
  if (self->busy)
    finish (self, ok);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Runs and options */

static void
add_run (FlameComparison *self,
         guint            side,
         GFile           *file,
         const char      *path,
         FlameProfile    *profile)
{
  Run *run = g_new0 (Run, 1);

  run->owner = self;
  run->file = file ? g_object_ref (file) : NULL;
  run->path = path ? g_strdup (path) : file ? g_file_get_path (file) : NULL;
  run->profile = profile ? g_object_ref (profile) : NULL;
  g_ptr_array_add (self->runs[side], run);
}

void
flame_comparison_add_baseline (FlameComparison *self,
                               const char      *path)
{
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (!self->busy);

  file = g_file_new_for_path (path);
  add_run (self, FLAME_DIFF_BASELINE, file, path, NULL);
}

void
flame_comparison_add_current (FlameComparison *self,
                              const char      *path)
{
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (!self->busy);

  file = g_file_new_for_path (path);
  add_run (self, FLAME_DIFF_CURRENT, file, path, NULL);
}

/* compressed files are not sniffed: their loader decodes them first */
static gboolean
looks_like_profile (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, NULL);
  char head[65536];
  gsize len = 0;

  g_assert (path != NULL);

  if (in == NULL ||
      !g_input_stream_read_all (G_INPUT_STREAM (in), head, sizeof head, &len, NULL, NULL))
    return TRUE;   /* loading says what is wrong with it */
  if ((len >= 2 && (guchar) head[0] == 0x1f && (guchar) head[1] == 0x8b) ||
      (len >= 4 && memcmp (head, "\x28\xb5\x2f\xfd", 4) == 0))
    return TRUE;
  return flame_sniff_format (head, len) != FLAME_FORMAT_UNKNOWN;
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/**
 * flame_comparison_list_runs:
 * @path: a profile, or a folder of them
 * @ignored: (nullable): receives the paths in the folder that are not profiles
 *
 * The runs that @path stands for: @path itself, or every profile in the
 * folder, sorted by name (one run each), as the CLI's and the window's
 * sides take them.
 *
 * Returns: (transfer full): the paths, or %NULL when the folder cannot
 * be read or holds no profile
 */
GPtrArray *
flame_comparison_list_runs (const char  *path,
                            GPtrArray   *ignored,
                            GError     **error)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (runs, g_strdup (path));
      return g_steal_pointer (&runs);
    }
  dir = g_dir_open (path, 0, error);
  if (dir == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      char *file = g_build_filename (path, g_ptr_array_index (names, i), NULL);

      if (!g_file_test (file, G_FILE_TEST_IS_REGULAR))
        g_free (file);
      else if (!looks_like_profile (file))
        {
          if (ignored != NULL)
            g_ptr_array_add (ignored, file);
          else
            g_free (file);
        }
      else
        g_ptr_array_add (runs, file);
    }
  if (runs->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s: no profile in this folder"), path);
      return NULL;
    }
  return g_steal_pointer (&runs);
}

/**
 * flame_comparison_add_file:
 * @side: %FLAME_DIFF_BASELINE or %FLAME_DIFF_CURRENT
 *
 * Adds a run to @side, read when the comparison loads. Only local files
 * can be read (the loaders map them).
 */
void
flame_comparison_add_file (FlameComparison *self,
                           guint            side,
                           GFile           *file)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (side < 2);
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (!self->busy);

  add_run (self, side, file, NULL, NULL);
}

/**
 * flame_comparison_add_profile:
 * @file: (nullable): where @profile came from
 *
 * Adds a run that is loaded already: comparing the same profiles again
 * with other options (or swapped) does not read them again.
 */
void
flame_comparison_add_profile (FlameComparison *self,
                              guint            side,
                              GFile           *file,
                              FlameProfile    *profile)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (side < 2);
  g_return_if_fail (file == NULL || G_IS_FILE (file));
  g_return_if_fail (FLAME_IS_PROFILE (profile));
  g_return_if_fail (!self->busy);

  add_run (self, side, file, NULL, profile);
}

/**
 * flame_comparison_reuse_diff:
 * @diff: (nullable): the diff of an earlier comparison
 *
 * Lets the next load share @diff's merged tree when it compares the
 * same two profiles (added with flame_comparison_add_profile()) and
 * the options differ only in normalisation, metric or significance
 * (flame_diff_new_reusing()); otherwise the profiles are merged anew.
 */
void
flame_comparison_reuse_diff (FlameComparison *self,
                             FlameDiff       *diff)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (diff == NULL || FLAME_IS_DIFF (diff));
  g_return_if_fail (!self->busy);

  g_set_object (&self->reusable, diff);
}

guint
flame_comparison_get_n_runs (FlameComparison *self,
                             guint            side)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), 0);
  g_return_val_if_fail (side < 2, 0);

  return self->runs[side]->len;
}

static Run *
get_run (FlameComparison *self,
         guint            side,
         guint            run)
{
  if (side >= 2 || run >= self->runs[side]->len)
    return NULL;
  return g_ptr_array_index (self->runs[side], run);
}

/**
 * flame_comparison_get_run_file:
 *
 * Returns: (transfer none) (nullable): the file of a run
 */
GFile *
flame_comparison_get_run_file (FlameComparison *self,
                               guint            side,
                               guint            run)
{
  Run *r;

  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);

  r = get_run (self, side, run);
  return r ? r->file : NULL;
}

/**
 * flame_comparison_get_run_profile:
 *
 * Returns: (transfer none) (nullable): the profile of a run, once loaded
 */
FlameProfile *
flame_comparison_get_run_profile (FlameComparison *self,
                                  guint            side,
                                  guint            run)
{
  Run *r;

  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (!self->busy, NULL);

  r = get_run (self, side, run);
  return r ? r->profile : NULL;
}

/**
 * flame_comparison_get_profile:
 *
 * Returns: (transfer none) (nullable): the profile of @side; %NULL for
 *   the current side of a file that holds both (3-column folded)
 */
FlameProfile *
flame_comparison_get_profile (FlameComparison *self,
                              guint            side)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (side < 2, NULL);
  g_return_val_if_fail (!self->busy, NULL);
  return side_profile (self, side);
}

/**
 * flame_comparison_get_runs:
 *
 * Returns: (transfer none) (nullable): a side of several runs after
 *   loading: their mean profile and per-run per-function times; %NULL
 *   for a side of one run
 */
const FlameRuns *
flame_comparison_get_runs (FlameComparison *self,
                           guint            side)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (side < 2, NULL);
  return self->merged[side];
}

void
flame_comparison_set_load_options (FlameComparison        *self,
                                   const FlameLoadOptions *options)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (options != NULL);
  g_return_if_fail (!self->busy);

  self->load_options = *options;
  g_free (self->sample_type);
  self->sample_type = g_strdup (options->sample_type);
  self->load_options.sample_type = self->sample_type;
}

void
flame_comparison_set_diff_options (FlameComparison        *self,
                                   const FlameDiffOptions *options)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (options != NULL);
  g_return_if_fail (!self->busy);

  self->diff_options = *options;
  apply_report_rule (self);
}

const FlameDiffOptions *
flame_comparison_get_diff_options (FlameComparison *self)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  return &self->diff_options;
}

/**
 * flame_comparison_set_metric_from_files:
 *
 * Lets the files choose the metric: when both ask for total time (pstats:
 * metadata "default-metric"), the diff and the report use it instead of
 * the diff options' metric. For callers whose user chose no metric.
 */
void
flame_comparison_set_metric_from_files (FlameComparison *self,
                                        gboolean         from_files)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (!self->busy);
  self->metric_from_files = from_files;
}

/**
 * flame_comparison_set_report_options:
 *
 * The thresholds and table sizes of the report. Its metric, and its
 * noise gate and level, follow the diff options
 * (flame_comparison_set_diff_options()), whatever @options says.
 */
void
flame_comparison_set_report_options (FlameComparison          *self,
                                     const FlameReportOptions *options)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (options != NULL);
  g_return_if_fail (!self->busy);

  self->report_options_set = *options;
  apply_report_rule (self);
}

const FlameReportOptions *
flame_comparison_get_report_options (FlameComparison *self)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  return &self->report_options;
}

/**
 * flame_comparison_set_allow_single:
 *
 * With %TRUE, a lone baseline that holds one profile loads without a
 * diff (flame_comparison_get_diff() returns %NULL): the window and
 * `render` draw it alone. With %FALSE (the default) that is an error.
 */
void
flame_comparison_set_allow_single (FlameComparison *self,
                                   gboolean         allow_single)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (!self->busy);

  self->allow_single = !!allow_single;
}

/**
 * flame_comparison_set_single_use:
 *
 * With %TRUE, the profiles this comparison loads serve its one diff and
 * report: the diff takes the baseline's tree instead of copying it
 * (flame_diff_new_taking_baseline()), which leaves that profile its
 * frames, metadata and root totals but no other node. For callers that
 * compare once and read only the diff and the report (`flamediff-cli
 * compare`); never for an application that lays profiles out or diffs
 * them again. Profiles given loaded (flame_comparison_add_profile())
 * are never taken. %FALSE by default.
 */
void
flame_comparison_set_single_use (FlameComparison *self,
                                 gboolean         single_use)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (!self->busy);

  self->single_use = !!single_use;
}

/**
 * flame_comparison_set_want_report:
 *
 * With %FALSE, loading stops at the diff: flame_comparison_get_report()
 * returns %NULL. For callers that only write the diff tree (`compare
 * --format folded`, `render`): the report's walk over a large tree
 * costs a quarter of a second on the issue 17 pair. %TRUE by default.
 */
void
flame_comparison_set_want_report (FlameComparison *self,
                                  gboolean         want_report)
{
  g_return_if_fail (FLAME_IS_COMPARISON (self));
  g_return_if_fail (!self->busy);

  self->no_report = !want_report;
}

/**
 * flame_comparison_get_diff:
 *
 * Returns: (transfer none) (nullable): the diff, after a successful load
 */
FlameDiff *
flame_comparison_get_diff (FlameComparison *self)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (!self->busy, NULL);
  return self->diff;
}

/**
 * flame_comparison_get_report:
 *
 * Returns: (transfer none) (nullable): the report of the diff
 */
FlameReport *
flame_comparison_get_report (FlameComparison *self)
{
  g_return_val_if_fail (FLAME_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (!self->busy, NULL);
  return self->report;
}

/* ------------------------------------------------------------------ */
/* GObject */

FlameComparison *
flame_comparison_new (void)
{
  return g_object_new (FLAME_TYPE_COMPARISON, NULL);
}

static void
flame_comparison_finalize (GObject *object)
{
  FlameComparison *self = FLAME_COMPARISON (object);

  for (guint side = 0; side < 2; side++)
    g_clear_pointer (&self->runs[side], g_ptr_array_unref);
  g_clear_object (&self->reusable);
  g_clear_object (&self->diff);
  g_clear_pointer (&self->report, flame_report_free);
  for (guint side = 0; side < 2; side++)
    g_clear_pointer (&self->merged[side], flame_runs_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->notified_message, g_free);
  g_clear_pointer (&self->sample_type, g_free);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (flame_comparison_parent_class)->finalize (object);
}

static void
flame_comparison_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  FlameComparison *self = FLAME_COMPARISON (object);

  switch (prop_id)
    {
    case PROP_FRACTION:
      g_value_set_double (value, self->notified_fraction);
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->notified_message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_comparison_class_init (FlameComparisonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = flame_comparison_finalize;
  object_class->get_property = flame_comparison_get_property;

  /**
   * FlameComparison:fraction:
   *
   * How far loading and comparing are, 0 to 1; notified on the main
   * context of the caller of flame_comparison_load_async().
   */
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0, 1, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * FlameComparison:message:
   *
   * What is being done, for people ("Loading a.perf and b.perf…").
   */
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
flame_comparison_init (FlameComparison *self)
{
  FlameLoadOptions load = FLAME_LOAD_OPTIONS_DEFAULT;

  self->runs[FLAME_DIFF_BASELINE] = g_ptr_array_new_with_free_func (run_free);
  self->runs[FLAME_DIFF_CURRENT] = g_ptr_array_new_with_free_func (run_free);
  self->load_options = load;
  flame_diff_options_init (&self->diff_options);
  flame_report_options_init (&self->report_options_set);
  apply_report_rule (self);
  g_mutex_init (&self->lock);
}

/* flame-profile.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-profile.h"

#include <stdlib.h>
#include <string.h>

struct _FlameProfile
{
  GObject      parent_instance;

  FlameFormat  format;
  char        *path;
  FlameFrames *frames;
  FlameTree   *tree;
  FlameUnit    unit;
  gdouble      interval_ms;  /* 0 = unknown */
  gdouble      duration_ms;  /* 0 = unknown */
  char        *event;
  gdouble      samples[FLAME_TREE_MAX_COLUMNS];
  GPtrArray   *threads;
  GHashTable  *threads_by_key;
  GPtrArray   *warnings;
  GHashTable  *metadata;
  GStrv        sample_types;  /* what the file also holds, or NULL */
  /* exact per-function weights from formats that are call graphs
   * (callgrind, pstats), by frame; NULL for stacks */
  GArray      *fn_weights[FLAME_TREE_MAX_COLUMNS];
  GMutex       totals_lock;  /* flame_profile_ensure_totals() */
};

typedef struct
{
  gdouble self;
  gdouble total;
  guint64 calls;            /* 0 when the format counts none */
  guint64 primitive_calls;  /* calls not made recursively (pstats' cc) */
} FunctionWeights;

G_DEFINE_FINAL_TYPE (FlameProfile, flame_profile, G_TYPE_OBJECT)

static void
flame_thread_free (gpointer data)
{
  FlameThread *thread = data;

  g_free (thread->name);
  g_free (thread);
}

static void
flame_profile_finalize (GObject *object)
{
  FlameProfile *self = (FlameProfile *) object;

  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->frames, flame_frames_free);
  g_clear_pointer (&self->tree, flame_tree_free);
  g_clear_pointer (&self->event, g_free);
  g_clear_pointer (&self->threads_by_key, g_hash_table_unref);
  g_clear_pointer (&self->threads, g_ptr_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->metadata, g_hash_table_unref);
  g_clear_pointer (&self->sample_types, g_strfreev);
  for (guint c = 0; c < FLAME_TREE_MAX_COLUMNS; c++)
    g_clear_pointer (&self->fn_weights[c], g_array_unref);
  g_mutex_clear (&self->totals_lock);

  G_OBJECT_CLASS (flame_profile_parent_class)->finalize (object);
}

static void
flame_profile_class_init (FlameProfileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = flame_profile_finalize;
}

static void
flame_profile_init (FlameProfile *self)
{
  self->frames = flame_frames_new ();
  self->threads = g_ptr_array_new_with_free_func (flame_thread_free);
  self->threads_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_mutex_init (&self->totals_lock);
}

/**
 * flame_profile_new:
 * @format: the format the data comes from
 * @n_columns: 1 for a profile, 2 for a ready-made baseline/current pair
 */
FlameProfile *
flame_profile_new (FlameFormat format,
                   guint       n_columns)
{
  FlameProfile *self = g_object_new (FLAME_TYPE_PROFILE, NULL);

  self->format = format;
  self->tree = flame_tree_new (n_columns);
  return self;
}

FlameFormat
flame_profile_get_format (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), FLAME_FORMAT_UNKNOWN);
  return self->format;
}

/* Each format's name, as reports and `flamediff-cli info` print it; how a
 * format is sniffed and loaded is the loaders' table (flame-loader.c) */
static const char *const format_names[] = {
  [FLAME_FORMAT_UNKNOWN] = "unknown",
  [FLAME_FORMAT_FOLDED] = "folded",
  [FLAME_FORMAT_FOLDED_PAIR] = "folded-diff",
  [FLAME_FORMAT_PERF_SCRIPT] = "perf-script",
  [FLAME_FORMAT_SPEEDSCOPE] = "speedscope",
  [FLAME_FORMAT_CHROME_CPUPROFILE] = "chrome-cpuprofile",
  [FLAME_FORMAT_CHROME_TRACE] = "chrome-trace",
  [FLAME_FORMAT_GECKO] = "gecko",
  [FLAME_FORMAT_FIREFOX_PROCESSED] = "firefox-processed",
  [FLAME_FORMAT_CPYTHON_COLLAPSED] = "cpython-collapsed",
  [FLAME_FORMAT_PPROF] = "pprof",
  [FLAME_FORMAT_PPROF_LEGACY] = "pprof-legacy-cpu",
  [FLAME_FORMAT_CPYTHON_BINARY] = "cpython-binary",
  [FLAME_FORMAT_CALLGRIND] = "callgrind",
  [FLAME_FORMAT_PSTATS] = "pstats",
  [FLAME_FORMAT_SYSPROF] = "sysprof",
  [FLAME_FORMAT_PERF_DATA] = "perf-data",
};
G_STATIC_ASSERT (G_N_ELEMENTS (format_names) == FLAME_N_FORMATS);

const char *
flame_format_to_string (FlameFormat format)
{
  if ((guint) format >= G_N_ELEMENTS (format_names) || format_names[format] == NULL)
    return format_names[FLAME_FORMAT_UNKNOWN];
  return format_names[format];
}

const char *
flame_profile_get_format_name (FlameProfile *self)
{
  return flame_format_to_string (flame_profile_get_format (self));
}

const char *
flame_profile_get_path (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return self->path;
}

void
flame_profile_set_path (FlameProfile *self,
                        const char   *path)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_free (self->path);
  self->path = g_strdup (path);
}

guint
flame_profile_get_n_columns (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  return self->tree->n_columns;
}

FlameFrames *
flame_profile_get_frames (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return self->frames;
}

FlameTree *
flame_profile_get_tree (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return self->tree;
}

FlameUnit
flame_profile_get_unit (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), FLAME_UNIT_SAMPLES);
  return self->unit;
}

void
flame_profile_set_unit (FlameProfile *self,
                        FlameUnit     unit)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  self->unit = unit;
}

FlameQuantity
flame_profile_get_quantity (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), FLAME_QUANTITY_TIME);
  return flame_unit_get_quantity (self->unit);
}

/* pprof's "type/unit" of the values loaded (e.g. "inuse_space/bytes"),
 * or NULL for formats with a single kind of value. */
const char *
flame_profile_get_sample_type (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return flame_profile_get_metadata (self, "sample-type");
}

/**
 * flame_profile_get_sample_types:
 *
 * Every sample type the file holds, by the names the load option
 * sample_type takes (pprof's "alloc_space/bytes", a callgrind event, a
 * memory recording's metric), when it holds more than one: the app
 * offers them. NULL otherwise.
 *
 * Returns: (transfer none) (nullable): a NULL-terminated array
 */
const char * const *
flame_profile_get_sample_types (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return (const char * const *) self->sample_types;
}

/* Loaders say what else the file holds: kept when there are two or more */
void
flame_profile_set_sample_types (FlameProfile       *self,
                                const char * const *types)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_clear_pointer (&self->sample_types, g_strfreev);
  if (types != NULL && types[0] != NULL && types[1] != NULL)
    self->sample_types = g_strdupv ((char **) types);
}

/**
 * flame_profile_get_effective_interval_ms:
 * @assumed: (out) (optional): TRUE when @default_interval_ms was used
 *
 * The time one sample of @column stands for: the file's interval, else
 * for weights in time their mean per sample (py-spy's speedscope files
 * weigh each sample 1/rate seconds and name no interval), else
 * @default_interval_ms. `info`, `compare` and the app all ask here, so
 * they agree on a file. 0 for profiles of bytes or counts.
 */
gdouble
flame_profile_get_effective_interval_ms (FlameProfile *self,
                                         guint         column,
                                         gdouble       default_interval_ms,
                                         gboolean     *assumed)
{
  gboolean dummy;

  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  g_return_val_if_fail (column < self->tree->n_columns, 0);

  if (assumed == NULL)
    assumed = &dummy;
  *assumed = FALSE;
  if (self->interval_ms > 0)
    return self->interval_ms;
  if (flame_unit_get_quantity (self->unit) != FLAME_QUANTITY_TIME)
    return 0;
  if (self->unit == FLAME_UNIT_NANOSECONDS)
    return self->samples[column] > 0
           ? self->tree->total[column][FLAME_TREE_ROOT] * 1e-6 / self->samples[column] : 0;
  *assumed = TRUE;
  return default_interval_ms;
}

gdouble
flame_profile_get_interval_ms (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  return self->interval_ms;
}

void
flame_profile_set_interval_ms (FlameProfile *self,
                               gdouble       interval_ms)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  self->interval_ms = interval_ms > 0 ? interval_ms : 0;
}

gdouble
flame_profile_get_duration_ms (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  return self->duration_ms;
}

void
flame_profile_set_duration_ms (FlameProfile *self,
                               gdouble       duration_ms)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  self->duration_ms = duration_ms;
}

const char *
flame_profile_get_event (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return self->event;
}

void
flame_profile_set_event (FlameProfile *self,
                         const char   *event)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_free (self->event);
  self->event = g_strdup (event);
}

gdouble
flame_profile_get_samples (FlameProfile *self,
                           guint         column)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  g_return_val_if_fail (column < self->tree->n_columns, 0);
  return self->samples[column];
}

void
flame_profile_add_samples (FlameProfile *self,
                           guint         column,
                           gdouble       samples)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_return_if_fail (column < self->tree->n_columns);
  self->samples[column] += samples;
}

gdouble
flame_profile_get_total_weight (FlameProfile *self,
                                guint         column)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  g_return_val_if_fail (column < self->tree->n_columns, 0);
  return self->tree->total[column][FLAME_TREE_ROOT];
}

gboolean
flame_profile_has_timing (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), FALSE);
  return self->unit == FLAME_UNIT_NANOSECONDS || self->interval_ms > 0;
}

/**
 * flame_profile_get_ms_per_weight:
 * @default_interval_ms: the sampling interval to assume when the file
 *   carries none (folded stacks, perf without timestamps)
 *
 * What one unit of weight is worth in the profile's quantity
 * (flame_profile_get_quantity()): milliseconds for time, 1 for bytes and
 * counts, which are compared as they are. Event counts (cycles,
 * instructions) are not time: each sample stands for one interval, so a
 * unit of weight is worth samples × interval / weight.
 */
gdouble
flame_profile_get_ms_per_weight (FlameProfile *self,
                                 guint         column,
                                 gdouble       default_interval_ms)
{
  gdouble interval;
  gdouble weight;

  g_return_val_if_fail (FLAME_IS_PROFILE (self), 0);
  g_return_val_if_fail (column < self->tree->n_columns, 0);

  interval = self->interval_ms > 0 ? self->interval_ms : default_interval_ms;

  switch (self->unit)
    {
    case FLAME_UNIT_NANOSECONDS:
      return 1e-6;
    case FLAME_UNIT_EVENTS:
      weight = self->tree->total[column][FLAME_TREE_ROOT];
      if (weight <= 0)
        return interval;
      return self->samples[column] * interval / weight;
    case FLAME_UNIT_BYTES:
    case FLAME_UNIT_COUNT:
      return 1;
    case FLAME_UNIT_SAMPLES:
    default:
      return interval;
    }
}

/**
 * flame_profile_get_total_ms:
 *
 * The sampled total of @column in the profile's quantity: milliseconds
 * for time, else bytes or a count.
 */
gdouble
flame_profile_get_total_ms (FlameProfile *self,
                            guint         column,
                            gdouble       default_interval_ms)
{
  return flame_profile_get_total_weight (self, column) *
         flame_profile_get_ms_per_weight (self, column, default_interval_ms);
}

GPtrArray *
flame_profile_get_threads (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return self->threads;
}

/**
 * flame_profile_ensure_thread:
 *
 * Returns: (transfer none): the thread with this name, pid and tid,
 *   created on first use, in order of first appearance.
 */
FlameThread *
flame_profile_ensure_thread (FlameProfile *self,
                             const char   *name,
                             gint64        pid,
                             gint64        tid)
{
  g_autofree char *key = NULL;
  FlameThread *thread;

  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);

  key = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%s",
                         pid, tid, name ? name : "");
  thread = g_hash_table_lookup (self->threads_by_key, key);
  if (thread == NULL)
    {
      thread = g_new0 (FlameThread, 1);
      thread->name = g_strdup (name ? name : "");
      thread->pid = pid;
      thread->tid = tid;
      g_ptr_array_add (self->threads, thread);
      g_hash_table_insert (self->threads_by_key, g_steal_pointer (&key), thread);
    }
  return thread;
}

static int
compare_keys (const void *a,
              const void *b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/**
 * flame_profile_get_metadata:
 *
 * Free-form facts about where the profile came from, as strings: for a
 * recording "command", "cwd", "start-time", "frequency-hz", "samples-lost",
 * "exit-status" and the like; for files, what their format carries.
 */
const char *
flame_profile_get_metadata (FlameProfile *self,
                            const char   *key)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return g_hash_table_lookup (self->metadata, key);
}

void
flame_profile_set_metadata (FlameProfile *self,
                            const char   *key,
                            const char   *value)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_return_if_fail (key != NULL);
  if (value == NULL)
    g_hash_table_remove (self->metadata, key);
  else
    g_hash_table_insert (self->metadata, g_strdup (key), g_strdup (value));
}

/* Returns: (transfer full): the keys, sorted */
GStrv
flame_profile_dup_metadata_keys (FlameProfile *self)
{
  GStrv keys;

  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  keys = (GStrv) g_hash_table_get_keys_as_array (self->metadata, NULL);
  for (guint i = 0; keys[i] != NULL; i++)
    keys[i] = g_strdup (keys[i]);
  qsort (keys, g_strv_length (keys), sizeof (char *), compare_keys);
  return keys;
}

GPtrArray *
flame_profile_get_warnings (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), NULL);
  return self->warnings;
}

void
flame_profile_add_warning (FlameProfile *self,
                           const char   *format,
                           ...)
{
  va_list args;

  g_return_if_fail (FLAME_IS_PROFILE (self));
  va_start (args, format);
  g_ptr_array_add (self->warnings, g_strdup_vprintf (format, args));
  va_end (args);
}

guint32
flame_profile_intern_frame (FlameProfile *self,
                            const char   *name,
                            gsize         name_len,
                            const char   *file,
                            gsize         file_len,
                            guint32       line,
                            guint32       flags)
{
  FlameStrings *strings = flame_frames_get_strings (self->frames);

  if (file_len == 0 && line == 0 && flags == 0)
    return flame_frames_intern_name (self->frames, name, name_len);
  return flame_frames_intern (self->frames,
                              flame_strings_intern (strings, name, name_len),
                              file_len ? flame_strings_intern (strings, file, file_len) : 0,
                              line, flags);
}

/**
 * flame_profile_add_stack:
 * @frames: (array length=n_frames): frame ids, root first
 *
 * Adds @weight of self time to the leaf of this stack in @column.
 * Loaders that can share work between consecutive stacks walk the tree
 * themselves with flame_tree_child().
 */
void
flame_profile_add_stack (FlameProfile  *self,
                         guint          column,
                         const guint32 *frames,
                         guint          n_frames,
                         gdouble        weight)
{
  guint32 node = FLAME_TREE_ROOT;
  guint32 hash = FLAME_TREE_ROOT_HASH;

  /* the path hash carried down: the tree need not look up the parent's */
  for (guint i = 0; i < n_frames; i++)
    {
      hash = flame_tree_path_hash (hash, frames[i], i + 1);
      node = flame_tree_child_hashed (self->tree, node, frames[i], hash);
    }
  flame_tree_add_self (self->tree, column, node, weight);
}

/**
 * flame_profile_set_function_weights:
 *
 * Records @frame's exact self and total (inclusive) weight in @column,
 * for formats that carry them (callgrind, pstats): their flame tree is
 * only an approximation built from call edges, so per-function figures
 * (the report, the changes panel) come from here instead of the tree.
 * A profile that sets any sets them for every function with a weight.
 */
void
flame_profile_set_function_weights (FlameProfile *self,
                                    guint         column,
                                    guint32       frame,
                                    gdouble       self_weight,
                                    gdouble       total_weight)
{
  GArray *w;

  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_return_if_fail (column < self->tree->n_columns);

  for (guint c = 0; c < self->tree->n_columns; c++)
    if (self->fn_weights[c] == NULL)
      self->fn_weights[c] = g_array_new (FALSE, TRUE, sizeof (FunctionWeights));
  w = self->fn_weights[column];
  if (frame >= w->len)
    g_array_set_size (w, frame + 1);
  g_array_index (w, FunctionWeights, frame).self = self_weight;
  g_array_index (w, FunctionWeights, frame).total = total_weight;
}

/* Adds to @frame's call counts (pstats' nc and cc), beside its weights. */
void
flame_profile_add_function_calls (FlameProfile *self,
                                  guint         column,
                                  guint32       frame,
                                  guint64       calls,
                                  guint64       primitive_calls)
{
  gdouble s, t;
  FunctionWeights *fw;

  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_return_if_fail (column < self->tree->n_columns);

  flame_profile_get_function_weights (self, column, frame, &s, &t);
  flame_profile_set_function_weights (self, column, frame, s, t);
  fw = &g_array_index (self->fn_weights[column], FunctionWeights, frame);
  fw->calls += calls;
  fw->primitive_calls += primitive_calls;
}

/* Returns: FALSE when the profile has no per-function table */
gboolean
flame_profile_get_function_calls (FlameProfile *self,
                                  guint         column,
                                  guint32       frame,
                                  guint64      *calls,
                                  guint64      *primitive_calls)
{
  GArray *w;

  g_return_val_if_fail (FLAME_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (column < self->tree->n_columns, FALSE);

  *calls = *primitive_calls = 0;
  w = self->fn_weights[column];
  if (w == NULL || frame >= w->len)
    return FALSE;
  *calls = g_array_index (w, FunctionWeights, frame).calls;
  *primitive_calls = g_array_index (w, FunctionWeights, frame).primitive_calls;
  return TRUE;
}

gboolean
flame_profile_has_function_weights (FlameProfile *self)
{
  g_return_val_if_fail (FLAME_IS_PROFILE (self), FALSE);
  return self->fn_weights[0] != NULL;
}

/* Returns: FALSE when the profile has no such table (then both are 0) */
gboolean
flame_profile_get_function_weights (FlameProfile *self,
                                    guint         column,
                                    guint32       frame,
                                    gdouble      *self_weight,
                                    gdouble      *total_weight)
{
  GArray *w;

  g_return_val_if_fail (FLAME_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (column < self->tree->n_columns, FALSE);

  *self_weight = *total_weight = 0;
  w = self->fn_weights[column];
  if (w == NULL)
    return FALSE;
  if (frame < w->len)
    {
      *self_weight = g_array_index (w, FunctionWeights, frame).self;
      *total_weight = g_array_index (w, FunctionWeights, frame).total;
    }
  return TRUE;
}

/**
 * flame_profile_ensure_totals:
 *
 * Every node's totals in the profile's tree (tree->total), for code that
 * reads more than the root's: a layout of the profile alone, per-function
 * weights. Safe on several threads at once.
 */
void
flame_profile_ensure_totals (FlameProfile *self)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  g_mutex_lock (&self->totals_lock);
  flame_tree_ensure_totals (self->tree);
  g_mutex_unlock (&self->totals_lock);
}

/**
 * flame_profile_finish:
 *
 * Computes the root's totals and gives back the arrays' spare room. Call
 * once after the last stack was added. The other nodes' totals wait for
 * flame_profile_ensure_totals() (flame_tree_finish_root()). The tree's
 * index stays, for a diff's copy of the tree (flame_tree_take_index()):
 * a diff drops it, as flame_tree_drop_index() does.
 */
void
flame_profile_finish (FlameProfile *self)
{
  g_return_if_fail (FLAME_IS_PROFILE (self));
  flame_tree_finish_root (self->tree);
  flame_tree_compact_nodes (self->tree);
  if (flame_strings_make_valid_utf8 (flame_frames_get_strings (self->frames)) > 0)
    flame_profile_add_warning (self, "%s: some names are not valid UTF-8; "
                               "invalid bytes are shown as “?”",
                               self->path ? self->path : "profile");
}

/* flame-changes-model.c: the rows of the "Top Changes" table, as a list model.
 *
 * The report's functions as a flat array of rows (the numbers of each
 * column, the function's index in the report and its frame), an index
 * array of them sorted by the table's columns and one of those the
 * filter keeps. Items (FlameChangeRow) are made when the list asks for
 * one, which it does for the rows it shows: a report of 50 000
 * functions is 50 000 small structs, not 50 000 objects, and a new sort
 * or filter is one items-changed.
 *
 * The main loop stays free (issue 17): a table of more than
 * SYNC_MAX_ROWS rows is built and sorted in a worker (GTask), the
 * current rows staying until the new ones are ready; and the rows are
 * handed to the list STAGE_ROWS at a time, a step about every frame, until
 * GTK 4.8's list view has made widgets for all it keeps (the 200 rows
 * around its anchor, GTK_LIST_VIEW_MAX_LIST_ITEMS), then the rest at
 * once: the view makes the widgets of all the rows it is given in one
 * items-changed (GTK 4.8 makes new ones rather than rebinding), and the
 * next frame measures them. Both together cost about 1-1.5 ms a row
 * here, so a step of 40 rows blocked the main loop for 40-60 ms; 12 keep
 * a frame near 15 ms and fill the visible rows in a few frames.
 *
 * "resetting" and "reset" bracket every change that replaces the rows,
 * so the owner can take its selection off first (GtkSingleSelection
 * looks for its item among all the rows added otherwise) and put it
 * back after.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-change-row.h"
#include "flame-changes-model.h"
#include "flame-parallel.h"
#include "flame-tree.h"

#define SYNC_MAX_ROWS 4096
#define STAGE_ROWS    12
#define STAGE_LIMIT   240
#define STAGE_INTERVAL_MS 20   /* about a frame: the widgets of a step are measured in it */

typedef struct
{
  gdouble value[FLAME_CHANGES_N_KEYS];  /* by FlameChangesKey; NAME unused */
  guint32 stat;                         /* index in the report */
  guint32 frame;
  guint8  status;
} Row;

/* the rows of one report: immutable once built, shared with workers */
typedef struct
{
  FlameComparison *comparison;  /* owns the report */
  FlameReport     *report;
  FlameMetric      metric;
  guint            n;
  Row             *rows;
  char           **keys;        /* names' collation keys; NULL until sorted by name */
} RowSet;

static void
row_set_clear (RowSet *rs)
{
  g_clear_object (&rs->comparison);
  g_free (rs->rows);
  if (rs->keys != NULL)
    for (guint i = 0; i < rs->n; i++)
      g_free (rs->keys[i]);
  g_free (rs->keys);
}

static void
row_set_unref (RowSet *rs)
{
  g_atomic_rc_box_release_full (rs, (GDestroyNotify) row_set_clear);
}

static RowSet *
row_set_new (FlameComparison *comparison,
             FlameMetric      metric)
{
  RowSet *rs = g_atomic_rc_box_new0 (RowSet);
  gboolean total = metric == FLAME_METRIC_TOTAL;

  rs->comparison = g_object_ref (comparison);
  rs->report = flame_comparison_get_report (comparison);
  rs->metric = metric;
  rs->n = flame_report_get_n_functions (rs->report);
  rs->rows = g_new0 (Row, MAX (rs->n, 1));
  for (guint i = 0; i < rs->n; i++)
    {
      const FlameFunctionStat *stat = flame_report_get_function (rs->report, i);
      Row *row = &rs->rows[i];

      row->stat = i;
      row->frame = stat->frame;
      row->status = stat->status;
      row->value[FLAME_CHANGES_KEY_BASELINE] = total ? stat->total_b : stat->self_b;
      row->value[FLAME_CHANGES_KEY_CURRENT] = total ? stat->total_c : stat->self_c;
      row->value[FLAME_CHANGES_KEY_DELTA] = total ? stat->delta_total : stat->delta_self;
      row->value[FLAME_CHANGES_KEY_DELTA_PCT] = stat->delta_pct;
      row->value[FLAME_CHANGES_KEY_STATUS] = stat->status;
    }
  return rs;
}

/* as GtkStringSorter (ignore-case) compares: the case-folded name's
 * collation key */
static char **
name_keys (RowSet *rs)
{
  char **keys = g_new0 (char *, MAX (rs->n, 1));

  for (guint i = 0; i < rs->n; i++)
    {
      const FlameFunctionStat *stat = flame_report_get_function (rs->report, rs->rows[i].stat);
      const char *name = flame_report_get_name (rs->report, stat);
      g_autofree char *folded = g_utf8_casefold (name != NULL ? name : "", -1);

      keys[i] = g_utf8_collate_key (folded, -1);
    }
  return keys;
}

/* ---- sorting, on the main thread or in a worker ---- */

typedef struct
{
  FlameComparison  *comparison;   /* build a row set from its report ... */
  FlameMetric       metric;
  RowSet           *rs;           /* ... or sort this one */
  FlameChangesSort  levels[FLAME_CHANGES_N_KEYS];
  guint             n_levels;
  char            **keys;         /* rs->keys, or made here (new_keys) */
  gboolean          new_keys;
  guint32          *order;        /* result: rs->n row indices */
  guint64           generation;
} Job;

static void
job_free (Job *job)
{
  g_clear_object (&job->comparison);
  if (job->new_keys && job->keys != NULL)
    {
      for (guint i = 0; i < job->rs->n; i++)
        g_free (job->keys[i]);
      g_free (job->keys);
    }
  g_clear_pointer (&job->rs, row_set_unref);
  g_free (job->order);
  g_free (job);
}

/* NaN first, as the smallest number */
static inline int
compare_double (gdouble a,
                gdouble b)
{
  if (isnan (a) || isnan (b))
    return isnan (b) - isnan (a);
  return (a > b) - (a < b);
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  const Job *job = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  const Row *x = &job->rs->rows[i], *y = &job->rs->rows[j];

  for (guint l = 0; l < job->n_levels; l++)
    {
      FlameChangesKey key = job->levels[l].key;
      int c = key == FLAME_CHANGES_KEY_NAME ? strcmp (job->keys[i], job->keys[j])
                                            : compare_double (x->value[key], y->value[key]);

      if (c != 0)
        return job->levels[l].descending ? -c : c;
    }
  /* as a stable sort keeps them: in the report's order */
  return (i > j) - (i < j);
}

static void
job_run (Job *job)
{
  gboolean by_name = FALSE;

  if (job->rs == NULL)
    job->rs = row_set_new (job->comparison, job->metric);
  for (guint l = 0; l < job->n_levels; l++)
    by_name |= job->levels[l].key == FLAME_CHANGES_KEY_NAME;
  if (by_name && job->keys == NULL)
    {
      job->keys = name_keys (job->rs);
      job->new_keys = TRUE;
    }
  job->order = g_new (guint32, MAX (job->rs->n, 1));
  for (guint i = 0; i < job->rs->n; i++)
    job->order[i] = i;
  if (job->n_levels > 0)
    g_qsort_with_data (job->order, job->rs->n, sizeof (guint32), compare_rows, job);
}

static void
job_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  g_assert (G_IS_TASK (task));
  g_assert (task_data != NULL);

  flame_parallel_enter_background ();
  job_run (task_data);
  g_task_return_boolean (task, TRUE);
}

/* ---- the model ---- */

struct _FlameChangesModel
{
  GObject           parent_instance;

  RowSet           *rs;          /* (nullable) */
  guint32          *order;       /* rs->n row indices, sorted */
  guint32          *visible;     /* the ones the status mask keeps, in order */
  guint             n_visible;
  guint             n_shown;     /* of them, what the list has been told of */
  GPtrArray        *tail;        /* FlameChangeRows: the old rows below those, still listed */
  guint             status_mask; /* 1 << FlameStatus */
  FlameChangesSort  levels[FLAME_CHANGES_N_KEYS];
  guint             n_levels;
  guint64           generation;  /* of the latest job; older results are dropped */
  gboolean          job_running;
  guint             stage_source;
};

enum {
  PROP_0,
  PROP_PENDING,
  N_PROPS
};

enum {
  SIGNAL_RESETTING,
  SIGNAL_RESET,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static GType
flame_changes_model_get_item_type (GListModel *model)
{
  return FLAME_TYPE_CHANGE_ROW;
}

static guint
flame_changes_model_get_n_items (GListModel *model)
{
  FlameChangesModel *self = FLAME_CHANGES_MODEL (model);

  return self->n_shown + self->tail->len;
}

static gpointer
flame_changes_model_get_item (GListModel *model,
                              guint       position)
{
  FlameChangesModel *self = FLAME_CHANGES_MODEL (model);
  const Row *row;

  if (position >= self->n_shown)
    return position - self->n_shown < self->tail->len
      ? g_object_ref (g_ptr_array_index (self->tail, position - self->n_shown)) : NULL;
  row = &self->rs->rows[self->visible[position]];
  return flame_change_row_new (self->rs->report, flame_report_get_function (self->rs->report,
                                                                            row->stat),
                               self->rs->metric);
}

static void
flame_changes_model_list_init (GListModelInterface *iface)
{
  iface->get_item_type = flame_changes_model_get_item_type;
  iface->get_n_items = flame_changes_model_get_n_items;
  iface->get_item = flame_changes_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (FlameChangesModel, flame_changes_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      flame_changes_model_list_init))

static void
set_pending (FlameChangesModel *self,
             gboolean           job_running)
{
  gboolean was = flame_changes_model_get_pending (self);

  self->job_running = job_running;
  if (was != flame_changes_model_get_pending (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

/* One step of the change to new rows: the next old rows (at most
 * STAGE_ROWS) replaced by the next new ones, in place, so that no row
 * moves into or out of the widgets the list keeps; old rows left over
 * go from the end. Once the old rows are gone and the list has made
 * the widgets it keeps, all the rest. @all: every step at once. */
static void
step (FlameChangesModel *self,
      gboolean           all)
{
  guint at = self->n_shown;
  guint removed = all ? self->tail->len : MIN (STAGE_ROWS, self->tail->len);
  guint added = MIN (STAGE_ROWS, self->n_visible - self->n_shown);
  guint in_place;

  if (all || (removed == self->tail->len && at + added >= STAGE_LIMIT))
    added = self->n_visible - self->n_shown;
  in_place = MIN (removed, added);
  g_ptr_array_remove_range (self->tail, 0, in_place);
  self->n_shown += added;
  if (in_place > 0 || added > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), at, in_place, added);
  if (removed > in_place)
    {
      guint extra = removed - in_place;

      g_ptr_array_remove_range (self->tail, self->tail->len - extra, extra);
      g_list_model_items_changed (G_LIST_MODEL (self), self->n_shown + self->tail->len, extra, 0);
    }
}

static gboolean
stage_cb (gpointer user_data)
{
  FlameChangesModel *self = user_data;

  g_assert (FLAME_IS_CHANGES_MODEL (self));

  step (self, FALSE);
  if (self->n_shown < self->n_visible || self->tail->len > 0)
    return G_SOURCE_CONTINUE;
  self->stage_source = 0;
  set_pending (self, self->job_running);
  return G_SOURCE_REMOVE;
}

/* The rows the mask keeps become the list's. A small list changes in
 * one step; a larger one a step every STAGE_INTERVAL_MS (stage_cb(),
 * so that a frame lays out the widgets of one step, not of several):
 * the list view
 * makes (and drops) the widgets of all the rows it keeps that change in
 * one items-changed. The first rows listed now (up to the 240 that can
 * have widgets) stay as the tail, below the new ones, until steps
 * replace them. */
static GPtrArray *
begin_reset (FlameChangesModel *self)
{
  guint old = self->n_shown + self->tail->len;
  guint keep = MIN (old, STAGE_LIMIT);
  GPtrArray *tail = g_ptr_array_new_full (keep, g_object_unref);

  g_signal_emit (self, signals[SIGNAL_RESETTING], 0);
  for (guint i = 0; i < keep && old > 2 * STAGE_ROWS; i++)
    g_ptr_array_add (tail, g_list_model_get_item (G_LIST_MODEL (self), i));
  return tail;
}

/* @tail: from begin_reset(), before the rows changed */
static void
end_reset (FlameChangesModel *self,
           GPtrArray         *tail)
{
  guint old = self->n_shown + self->tail->len;
  gboolean was = flame_changes_model_get_pending (self);

  self->n_visible = 0;
  for (guint i = 0; self->rs != NULL && i < self->rs->n; i++)
    if (self->status_mask & (1u << self->rs->rows[self->order[i]].status))
      self->visible[self->n_visible++] = self->order[i];
  self->n_shown = 0;
  g_ptr_array_set_size (self->tail, 0);

  if (old <= 2 * STAGE_ROWS && self->n_visible <= 2 * STAGE_ROWS)
    {
      self->n_shown = self->n_visible;
      g_list_model_items_changed (G_LIST_MODEL (self), 0, old, self->n_shown);
    }
  else
    {
      /* the rows beyond the tail have no widgets (the list is at its
       * top), the first step now */
      g_ptr_array_extend_and_steal (self->tail, g_ptr_array_ref (tail));
      if (old > self->tail->len)
        g_list_model_items_changed (G_LIST_MODEL (self), self->tail->len,
                                    old - self->tail->len, 0);
      step (self, FALSE);
    }
  if ((self->n_shown < self->n_visible || self->tail->len > 0) && self->stage_source == 0)
    {
      self->stage_source = g_timeout_add_full (G_PRIORITY_DEFAULT_IDLE, STAGE_INTERVAL_MS,
                                               stage_cb, self, NULL);
      g_source_set_name_by_id (self->stage_source, "[flamediff] changes rows");
    }
  else if (self->n_shown == self->n_visible && self->tail->len == 0)
    g_clear_handle_id (&self->stage_source, g_source_remove);
  if (was != flame_changes_model_get_pending (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
  g_ptr_array_unref (tail);
  g_signal_emit (self, signals[SIGNAL_RESET], 0);
}

static void
refilter (FlameChangesModel *self)
{
  end_reset (self, begin_reset (self));
}

/* a job's result replaces the rows */
static void
adopt_job (FlameChangesModel *self,
           Job               *job)
{
  GPtrArray *tail = begin_reset (self);

  if (job->rs != self->rs)
    {
      g_clear_pointer (&self->rs, row_set_unref);
      self->rs = g_atomic_rc_box_acquire (job->rs);
      g_free (self->visible);
      self->visible = g_new (guint32, MAX (self->rs->n, 1));
    }
  if (job->new_keys && self->rs->keys == NULL)
    {
      self->rs->keys = job->keys;   /* only read by jobs started after this */
      job->keys = NULL;
    }
  g_free (self->order);
  self->order = g_steal_pointer (&job->order);
  end_reset (self, tail);
}

static void
job_done (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(FlameChangesModel) self = user_data;
  Job *job;

  g_assert (FLAME_IS_CHANGES_MODEL (self));
  g_assert (G_IS_TASK (result));

  job = g_task_get_task_data (G_TASK (result));
  if (job->generation != self->generation)
    return;   /* superseded */
  adopt_job (self, job);
  set_pending (self, FALSE);
}

/* sorts the rows (of @comparison's report when not NULL) by the
 * current levels: here when small, in a worker otherwise */
static void
start_job (FlameChangesModel *self,
           FlameComparison   *comparison,
           FlameMetric        metric)
{
  Job *job = g_new0 (Job, 1);
  guint n;

  job->generation = ++self->generation;
  if (comparison != NULL)
    {
      job->comparison = g_object_ref (comparison);
      job->metric = metric;
      n = flame_report_get_n_functions (flame_comparison_get_report (comparison));
    }
  else
    {
      job->rs = g_atomic_rc_box_acquire (self->rs);
      job->keys = self->rs->keys;
      n = self->rs->n;
    }
  memcpy (job->levels, self->levels, sizeof job->levels);
  job->n_levels = self->n_levels;

  if (n <= SYNC_MAX_ROWS)
    {
      job_run (job);
      adopt_job (self, job);
      job_free (job);
      set_pending (self, FALSE);
    }
  else
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, job_done, g_object_ref (self));

      g_task_set_source_tag (task, start_job);
      g_task_set_name (task, "[flamediff] changes rows");
      g_task_set_task_data (task, job, (GDestroyNotify) job_free);
      set_pending (self, TRUE);
      g_task_run_in_thread (task, job_thread);
    }
}

FlameChangesModel *
flame_changes_model_new (void)
{
  return g_object_new (FLAME_TYPE_CHANGES_MODEL, NULL);
}

/**
 * flame_changes_model_set_comparison:
 * @comparison: (nullable): its report's functions become the rows
 * @metric: what the before, after and change columns hold
 *
 * The rows are cleared now and filled when sorted (here or in a
 * worker: see flame_changes_model_get_pending()).
 */
void
flame_changes_model_set_comparison (FlameChangesModel *self,
                                    FlameComparison   *comparison,
                                    FlameMetric        metric)
{
  GPtrArray *tail;

  g_return_if_fail (FLAME_IS_CHANGES_MODEL (self));
  g_return_if_fail (comparison == NULL || FLAME_IS_COMPARISON (comparison));

  self->generation++;   /* a running job's result is dropped */
  tail = begin_reset (self);
  g_clear_pointer (&self->rs, row_set_unref);
  g_clear_pointer (&self->order, g_free);
  end_reset (self, tail);
  if (comparison != NULL && flame_comparison_get_report (comparison) != NULL)
    start_job (self, comparison, metric);
  else
    set_pending (self, FALSE);
}

/**
 * flame_changes_model_set_sort:
 * @levels: (array length=n_levels): the keys, the first one first
 *
 * Sorts the rows (ties: in the report's order). The rows stay as they
 * are until the sorted ones replace them.
 */
void
flame_changes_model_set_sort (FlameChangesModel      *self,
                              const FlameChangesSort *levels,
                              guint                   n_levels)
{
  g_return_if_fail (FLAME_IS_CHANGES_MODEL (self));
  g_return_if_fail (n_levels <= FLAME_CHANGES_N_KEYS);

  if (n_levels == self->n_levels && memcmp (levels, self->levels, n_levels * sizeof *levels) == 0)
    return;
  memset (self->levels, 0, sizeof self->levels);
  memcpy (self->levels, levels, n_levels * sizeof *levels);
  self->n_levels = n_levels;
  if (self->rs != NULL)
    start_job (self, NULL, 0);
}

/* @mask: the statuses shown, 1 << FlameStatus each */
void
flame_changes_model_set_status_mask (FlameChangesModel *self,
                                     guint              mask)
{
  g_return_if_fail (FLAME_IS_CHANGES_MODEL (self));

  if (self->status_mask == mask)
    return;
  self->status_mask = mask;
  refilter (self);
}

/**
 * flame_changes_model_find_frame:
 *
 * Returns: the position of @frame's row among those the filter keeps,
 *   or GTK_INVALID_LIST_POSITION (G_MAXUINT)
 */
guint
flame_changes_model_find_frame (FlameChangesModel *self,
                                guint32            frame)
{
  g_return_val_if_fail (FLAME_IS_CHANGES_MODEL (self), G_MAXUINT);

  for (guint i = 0; frame != FLAME_TREE_NONE && i < self->n_visible; i++)
    if (self->rs->rows[self->visible[i]].frame == frame)
      return i;
  return G_MAXUINT;
}

/* tells the list of the first @n rows now (to select one of them) */
void
flame_changes_model_show_at_least (FlameChangesModel *self,
                                   guint              n)
{
  g_return_if_fail (FLAME_IS_CHANGES_MODEL (self));

  if (self->n_shown >= MIN (n, self->n_visible))
    return;
  if (n > STAGE_LIMIT)
    step (self, TRUE);
  else
    {
      guint at = self->n_shown;
      guint removed = MIN (n - at, self->tail->len);

      g_ptr_array_remove_range (self->tail, 0, removed);
      self->n_shown = MIN (n, self->n_visible);
      g_list_model_items_changed (G_LIST_MODEL (self), at, removed, self->n_shown - at);
    }
  if (self->n_shown == self->n_visible && self->tail->len == 0 && self->stage_source != 0)
    {
      g_clear_handle_id (&self->stage_source, g_source_remove);
      set_pending (self, self->job_running);
    }
}

/* a worker sorts, or not all rows are in the list yet */
gboolean
flame_changes_model_get_pending (FlameChangesModel *self)
{
  g_return_val_if_fail (FLAME_IS_CHANGES_MODEL (self), FALSE);
  return self->job_running || self->stage_source != 0;
}

static void
flame_changes_model_finalize (GObject *object)
{
  FlameChangesModel *self = FLAME_CHANGES_MODEL (object);

  g_clear_handle_id (&self->stage_source, g_source_remove);
  g_clear_pointer (&self->tail, g_ptr_array_unref);
  g_clear_pointer (&self->rs, row_set_unref);
  g_free (self->order);
  g_free (self->visible);
  G_OBJECT_CLASS (flame_changes_model_parent_class)->finalize (object);
}

static void
flame_changes_model_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  FlameChangesModel *self = FLAME_CHANGES_MODEL (object);

  switch (prop_id)
    {
    case PROP_PENDING:
      g_value_set_boolean (value, flame_changes_model_get_pending (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_changes_model_class_init (FlameChangesModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = flame_changes_model_finalize;
  object_class->get_property = flame_changes_model_get_property;

  properties[PROP_PENDING] =
    g_param_spec_boolean ("pending", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* before and after the rows are replaced (a new comparison, sort or
   * filter) */
  signals[SIGNAL_RESETTING] = g_signal_new ("resetting", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
  signals[SIGNAL_RESET] = g_signal_new ("reset", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
flame_changes_model_init (FlameChangesModel *self)
{
  self->status_mask = ~0u;
  self->tail = g_ptr_array_new_with_free_func (g_object_unref);
}

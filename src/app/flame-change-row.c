/* flame-change-row.c: one function of the report, as a list item.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flame-change-row.h"

struct _FlameChangeRow
{
  GObject      parent_instance;

  char        *name;
  char        *file;
  guint32      frame;
  FlameStatus  status;
  gdouble      baseline_ms;
  gdouble      current_ms;
  gdouble      delta_ms;
  gdouble      delta_pct;
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_BASELINE_MS,
  PROP_CURRENT_MS,
  PROP_DELTA_MS,
  PROP_DELTA_PCT,
  PROP_STATUS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FlameChangeRow, flame_change_row, G_TYPE_OBJECT)

const char *
flame_status_label (FlameStatus status)
{
  switch (status)
    {
    case FLAME_STATUS_REGRESSION:
      return _("Regression");
    case FLAME_STATUS_IMPROVEMENT:
      return _("Improvement");
    case FLAME_STATUS_NEW:
      /* Translators: a function that only the current profile has */
      return C_("function", "New");
    case FLAME_STATUS_REMOVED:
      return _("Removed");
    case FLAME_STATUS_UNCHANGED:
    case FLAME_N_STATUSES:
    default:
      return _("Unchanged");
    }
}

static void
flame_change_row_finalize (GObject *object)
{
  FlameChangeRow *self = (FlameChangeRow *) object;

  g_free (self->name);
  g_free (self->file);
  G_OBJECT_CLASS (flame_change_row_parent_class)->finalize (object);
}

static void
flame_change_row_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  FlameChangeRow *self = FLAME_CHANGE_ROW (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_BASELINE_MS:
      g_value_set_double (value, self->baseline_ms);
      break;
    case PROP_CURRENT_MS:
      g_value_set_double (value, self->current_ms);
      break;
    case PROP_DELTA_MS:
      g_value_set_double (value, self->delta_ms);
      break;
    case PROP_DELTA_PCT:
      g_value_set_double (value, self->delta_pct);
      break;
    case PROP_STATUS:
      g_value_set_uint (value, self->status);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_change_row_class_init (FlameChangeRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = flame_change_row_finalize;
  object_class->get_property = flame_change_row_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_BASELINE_MS] = g_param_spec_double ("baseline-ms", NULL, NULL, -G_MAXDOUBLE,
                                                      G_MAXDOUBLE, 0, flags);
  properties[PROP_CURRENT_MS] = g_param_spec_double ("current-ms", NULL, NULL, -G_MAXDOUBLE,
                                                     G_MAXDOUBLE, 0, flags);
  properties[PROP_DELTA_MS] = g_param_spec_double ("delta-ms", NULL, NULL, -G_MAXDOUBLE,
                                                   G_MAXDOUBLE, 0, flags);
  properties[PROP_DELTA_PCT] = g_param_spec_double ("delta-pct", NULL, NULL, -G_MAXDOUBLE,
                                                    G_MAXDOUBLE, 0, flags);
  properties[PROP_STATUS] = g_param_spec_uint ("status", NULL, NULL, 0, FLAME_N_STATUSES, 0, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
flame_change_row_init (FlameChangeRow *self)
{
}

/* The times are those of @metric, as in the report: self time, or total
 * time with a function counted once per stack. */
FlameChangeRow *
flame_change_row_new (FlameReport             *report,
                      const FlameFunctionStat *stat,
                      FlameMetric              metric)
{
  FlameChangeRow *self = g_object_new (FLAME_TYPE_CHANGE_ROW, NULL);

  self->name = g_strdup (flame_report_get_name (report, stat));
  self->file = g_strdup (flame_report_get_file (report, stat));
  self->frame = stat->frame;
  self->status = stat->status;
  self->baseline_ms = metric == FLAME_METRIC_TOTAL ? stat->total_b : stat->self_b;
  self->current_ms = metric == FLAME_METRIC_TOTAL ? stat->total_c : stat->self_c;
  self->delta_ms = metric == FLAME_METRIC_TOTAL ? stat->delta_total : stat->delta_self;
  self->delta_pct = stat->delta_pct;
  return self;
}

const char *
flame_change_row_get_name (FlameChangeRow *self)
{
  return self->name;
}

const char *
flame_change_row_get_file (FlameChangeRow *self)
{
  return self->file;
}

guint32
flame_change_row_get_frame (FlameChangeRow *self)
{
  return self->frame;
}

FlameStatus
flame_change_row_get_status (FlameChangeRow *self)
{
  return self->status;
}

gdouble
flame_change_row_get_baseline_ms (FlameChangeRow *self)
{
  return self->baseline_ms;
}

gdouble
flame_change_row_get_current_ms (FlameChangeRow *self)
{
  return self->current_ms;
}

gdouble
flame_change_row_get_delta_ms (FlameChangeRow *self)
{
  return self->delta_ms;
}

gdouble
flame_change_row_get_delta_pct (FlameChangeRow *self)
{
  return self->delta_pct;
}

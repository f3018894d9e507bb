/* flame-cli-info.c: flamediff-cli info FILE [--json]
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>

#include "flame-cli.h"
#include "flame-cli-options.h"
#include "flame-loader.h"
#include "flame-memory.h"

typedef struct
{
  gboolean as_json;
  char    *interval;
  FlameCliMetricArgs metric;
  GStrv    files;
  gdouble  default_interval;
} InfoArgs;

static void
info_args_clear (InfoArgs *args)
{
  g_clear_pointer (&args->interval, g_free);
  flame_cli_metric_args_clear (&args->metric);
  g_clear_pointer (&args->files, g_strfreev);
}

/* Parses the options into @args; FALSE (and a message printed) on a usage error. */
static gboolean
parse_info_args (int       argc,
                 char    **argv,
                 InfoArgs *args)
{
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &args->as_json, "Print JSON", NULL },
    { "interval-ms", 0, 0, G_OPTION_ARG_STRING, &args->interval,
      "Sampling interval for files without timing (default 1)", "MS" },
    /* the parameter string of the context names FILE */
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args->files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  context = g_option_context_new ("FILE");
  g_option_context_set_summary (
    context, "Describe a profile: format, samples, time, frames, stacks, threads.");
  g_option_context_add_main_entries (context, entries, NULL);
  flame_cli_metric_args_add_entries (context, &args->metric, FLAME_CLI_METRIC_LOAD);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli info: %s\n", error->message);
      return FALSE;
    }
  if (!flame_cli_metric_args_apply (&args->metric, "info", FLAME_CLI_METRIC_LOAD))
    return FALSE;
  if (args->files == NULL || g_strv_length (args->files) != 1)
    {
      g_printerr ("flamediff-cli info: expected one FILE\n");
      return FALSE;
    }
  args->default_interval = 1.0;
  /* as compare's and render's --interval-ms */
  return args->interval == NULL ||
         flame_cli_parse_double ("info", "--interval-ms", args->interval, 1e-9,
                                 &args->default_interval);
}

/* The number of distinct stacks: nodes with self weight in a column */
static guint64
count_stacks (FlameProfile *profile)
{
  FlameTree *tree = flame_profile_get_tree (profile);
  guint n_columns = flame_profile_get_n_columns (profile);
  guint64 n_stacks = 0;

  for (guint32 n = 1; n < tree->n_nodes; n++)
    for (guint c = 0; c < n_columns; c++)
      if (tree->self[c][n] != 0)
        {
          n_stacks++;
          break;
        }
  return n_stacks;
}

/* @value of each column: a number for one, an array for several */
static void
add_per_column (JsonBuilder  *builder,
                FlameProfile *profile,
                gdouble     (*value) (FlameProfile *profile, guint column, gdouble interval),
                gdouble       default_interval)
{
  guint n_columns = flame_profile_get_n_columns (profile);

  if (n_columns == 1)
    {
      json_builder_add_double_value (builder, value (profile, 0, default_interval));
      return;
    }
  json_builder_begin_array (builder);
  for (guint c = 0; c < n_columns; c++)
    json_builder_add_double_value (builder, value (profile, c, default_interval));
  json_builder_end_array (builder);
}

static gdouble
column_samples (FlameProfile *profile,
                guint         column,
                gdouble       interval)
{
  return flame_profile_get_samples (profile, column);
}

static void
add_threads_json (JsonBuilder *builder,
                  GPtrArray   *threads)
{
  json_builder_begin_array (builder);
  for (guint i = 0; i < threads->len; i++)
    {
      FlameThread *t = g_ptr_array_index (threads, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, t->name);
      if (t->pid >= 0)
        {
          json_builder_set_member_name (builder, "pid");
          json_builder_add_int_value (builder, t->pid);
        }
      if (t->tid >= 0)
        {
          json_builder_set_member_name (builder, "tid");
          json_builder_add_int_value (builder, t->tid);
        }
      json_builder_set_member_name (builder, "samples");
      json_builder_add_double_value (builder, t->samples);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static void
add_string_member (JsonBuilder *builder,
                   const char  *name,
                   const char  *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

static void
add_int_member (JsonBuilder *builder,
                const char  *name,
                gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

static void
append_info_json (GString      *out,
                  const char   *path,
                  FlameProfile *profile,
                  gdouble       default_interval)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  FlameQuantity quantity = flame_profile_get_quantity (profile);
  FlameMemoryTotals memory;
  gboolean interval_assumed;
  gdouble interval_ms = flame_profile_get_effective_interval_ms (profile, 0, default_interval,
                                                                 &interval_assumed);

  json_builder_begin_object (builder);
  add_string_member (builder, "path", path);
  add_string_member (builder, "format", flame_profile_get_format_name (profile));
  json_builder_set_member_name (builder, "samples");
  add_per_column (builder, profile, column_samples, default_interval);
  add_string_member (builder, "unit", flame_quantity_to_string (quantity));
  if (flame_profile_get_sample_type (profile) != NULL)
    add_string_member (builder, "sample_type", flame_profile_get_sample_type (profile));
  /* "total" is in "unit"; "total_ms" only where that is time */
  for (guint k = 0; k < (quantity == FLAME_QUANTITY_TIME ? 2u : 1u); k++)
    {
      json_builder_set_member_name (builder, k == 0 ? "total" : "total_ms");
      add_per_column (builder, profile, flame_profile_get_total_ms, default_interval);
    }
  /* null when the file does not tell (then --interval-ms is assumed) or
   * for bytes and counts */
  json_builder_set_member_name (builder, "interval_ms");
  if (interval_ms > 0 && !interval_assumed)
    json_builder_add_double_value (builder, interval_ms);
  else
    json_builder_add_null_value (builder);
  add_int_member (builder, "frames", flame_frames_count (flame_profile_get_frames (profile)));
  add_int_member (builder, "stacks", count_stacks (profile));
  add_int_member (builder, "nodes", flame_profile_get_tree (profile)->n_nodes - 1);
  if (flame_profile_get_event (profile) != NULL)
    add_string_member (builder, "event", flame_profile_get_event (profile));
  /* a memory recording's exact totals, whichever metric is loaded */
  if (flame_memory_get_totals (profile, &memory))
    {
      json_builder_set_member_name (builder, "memory");
      json_builder_begin_object (builder);
      add_int_member (builder, "allocated_bytes", (gint64) memory.allocated_bytes);
      add_int_member (builder, "allocations", (gint64) memory.allocations);
      add_int_member (builder, "peak_bytes", (gint64) memory.peak_bytes);
      add_int_member (builder, "leaked_bytes", (gint64) memory.leaked_bytes);
      add_int_member (builder, "peak_processes", MAX (memory.peak_processes, 1));
      json_builder_end_object (builder);
    }
  json_builder_set_member_name (builder, "threads");
  add_threads_json (builder, flame_profile_get_threads (profile));
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
}

/* "Samples:" and "Total:" of each column, the unit, the interval */
static void
append_totals_text (GString      *out,
                    FlameProfile *profile,
                    gdouble       default_interval)
{
  FlameQuantity quantity = flame_profile_get_quantity (profile);
  guint n_columns = flame_profile_get_n_columns (profile);
  gboolean interval_assumed;
  gdouble interval_ms = flame_profile_get_effective_interval_ms (profile, 0, default_interval,
                                                                 &interval_assumed);

  for (guint c = 0; c < n_columns; c++)
    {
      const char *label = n_columns == 1 ? "" : (c == 0 ? " (before)" : " (after)");
      g_autofree char *total =
        flame_quantity_format (quantity, flame_profile_get_total_ms (profile, c, default_interval));

      g_string_append_printf (out, "Samples%s: %.15g\n", label,
                              flame_profile_get_samples (profile, c));

      if (quantity == FLAME_QUANTITY_TIME)
        g_string_append_printf (out, "Total%s:   %s\n", label, total);
      else
        g_string_append_printf (out, "Total%s:   %s (%.15g %s)\n", label, total,
                                flame_profile_get_total_ms (profile, c, default_interval),
                                flame_quantity_to_string (quantity));
    }
  if (quantity == FLAME_QUANTITY_COUNT)
    g_string_append (out, "Unit:      count\n");
  else
    g_string_append_printf (out, "Unit:      %s (%s)\n", flame_quantity_to_string (quantity),
                            flame_quantity_get_noun (quantity));
  if (flame_profile_get_sample_type (profile) != NULL)
    g_string_append_printf (out, "Sample type: %s\n", flame_profile_get_sample_type (profile));
  if (quantity != FLAME_QUANTITY_TIME)
    ;  /* bytes and counts have no sampling interval */
  else if (!interval_assumed)
    g_string_append_printf (out, "Interval:  %g ms\n", interval_ms);
  else
    g_string_append_printf (out, "Interval:  unknown (%g ms assumed)\n", default_interval);
}

static void
append_threads_text (GString   *out,
                     GPtrArray *threads)
{
  g_string_append_printf (out, "Threads:   %u\n", threads->len);
  for (guint i = 0; i < threads->len; i++)
    {
      FlameThread *t = g_ptr_array_index (threads, i);
      g_string_append_printf (out, "  %s", t->name);
      if (t->pid >= 0)
        g_string_append_printf (out, " pid %" G_GINT64_FORMAT, t->pid);
      if (t->tid >= 0)
        g_string_append_printf (out, " tid %" G_GINT64_FORMAT, t->tid);
      g_string_append_printf (out,
                              g_dngettext (GETTEXT_PACKAGE, ": %.15g sample\n", ": %.15g samples\n",
                                           t->samples == 1 ? 1 : 2),
                              t->samples);
    }
}

static void
append_info_text (GString      *out,
                  const char   *path,
                  FlameProfile *profile,
                  gdouble       default_interval)
{
  FlameMemoryTotals memory;

  g_string_append_printf (out, "File:      %s\n", path);
  g_string_append_printf (out, "Format:    %s\n", flame_profile_get_format_name (profile));
  append_totals_text (out, profile, default_interval);
  if (flame_profile_get_event (profile) != NULL)
    g_string_append_printf (out, "Event:     %s\n", flame_profile_get_event (profile));
  if (flame_memory_get_totals (profile, &memory))
    {
      g_autofree char *described = flame_memory_describe (profile);

      g_string_append_printf (out, "Memory:    %s\n", described);
    }
  g_string_append_printf (out, "Frames:    %u\n",
                          flame_frames_count (flame_profile_get_frames (profile)));
  g_string_append_printf (out, "Stacks:    %" G_GUINT64_FORMAT "\n", count_stacks (profile));
  if (flame_profile_get_metadata (profile, "flame-graph") != NULL)
    g_string_append_printf (out, "Flame graph: %s\n",
                            flame_profile_get_metadata (profile, "flame-graph"));
  append_threads_text (out, flame_profile_get_threads (profile));
}

/* Loads the file and prints what it holds */
static int
run_info (const InfoArgs *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;

  options.sample_type = args->metric.sample_type;
  profile = flame_load_file_full (args->files[0], &options, NULL, NULL, NULL, &error);
  if (profile == NULL)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  if (!flame_cli_metric_args_check (&args->metric, args->files[0], profile))
    return FLAME_CLI_ERROR;
  flame_cli_print_warnings (flame_profile_get_warnings (profile));

  if (args->as_json)
    append_info_json (out, args->files[0], profile, args->default_interval);
  else
    append_info_text (out, args->files[0], profile, args->default_interval);

  if (!flame_cli_write_output (NULL, out, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  return FLAME_CLI_OK;
}

int
flame_cli_info (int    argc,
                char **argv)
{
  InfoArgs args = { 0 };
  int status = FLAME_CLI_ERROR;

  if (parse_info_args (argc, argv, &args))
    status = run_info (&args);
  info_args_clear (&args);
  return status;
}

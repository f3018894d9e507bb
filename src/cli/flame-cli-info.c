/* flame-cli-info.c: flamediff-cli info FILE [--json]
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>

#include "flame-cli.h"
#include "flame-loader.h"

int
flame_cli_info (int    argc,
                char **argv)
{
  gboolean as_json = FALSE;
  g_autofree char *interval = NULL;
  g_autofree char *sample_type = NULL;
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL },
    { "interval-ms", 0, 0, G_OPTION_ARG_STRING, &interval, "Sampling interval for files without timing (default 1)", "MS" },
    { "sample-type", 0, 0, G_OPTION_ARG_STRING, &sample_type, FLAME_CLI_SAMPLE_TYPE_HELP, "TYPE" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &sample_type,
      "The same as --sample-type: allocated, allocations, peak or leaked in memory recordings", "METRIC" },
    /* the parameter string of the context names FILE */
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  FlameQuantity quantity;
  gdouble interval_ms;
  gboolean interval_assumed;
  g_autoptr(GString) out = g_string_new (NULL);
  gdouble default_interval = 1.0;
  GPtrArray *threads;
  FlameTree *tree;
  guint n_columns;
  guint64 n_stacks = 0;

  context = g_option_context_new ("FILE");
  g_option_context_set_summary (context, "Describe a profile: format, samples, time, frames, stacks, threads.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli info: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  if (files == NULL || g_strv_length (files) != 1)
    {
      g_printerr ("flamediff-cli info: expected one FILE\n");
      return FLAME_CLI_ERROR;
    }
  if (interval != NULL)
    {
      char *end = NULL;
      default_interval = g_ascii_strtod (interval, &end);
      if (end == interval || *end != 0 || !(default_interval > 0))
        {
          g_printerr ("flamediff-cli info: --interval-ms: invalid value “%s”\n", interval);
          return FLAME_CLI_ERROR;
        }
    }

  options.sample_type = sample_type;
  profile = flame_load_file_full (files[0], &options, NULL, NULL, NULL, &error);
  if (profile == NULL)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  flame_cli_print_warnings (flame_profile_get_warnings (profile));

  tree = flame_profile_get_tree (profile);
  n_columns = flame_profile_get_n_columns (profile);
  for (guint32 n = 1; n < tree->n_nodes; n++)
    for (guint c = 0; c < n_columns; c++)
      if (tree->self[c][n] != 0)
        {
          n_stacks++;
          break;
        }
  threads = flame_profile_get_threads (profile);
  quantity = flame_profile_get_quantity (profile);
  interval_ms = flame_profile_get_effective_interval_ms (profile, 0, default_interval, &interval_assumed);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, files[0]);
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, flame_profile_get_format_name (profile));
  json_builder_set_member_name (builder, "samples");
  if (n_columns == 1)
    json_builder_add_double_value (builder, flame_profile_get_samples (profile, 0));
  else
    {
      json_builder_begin_array (builder);
      for (guint c = 0; c < n_columns; c++)
        json_builder_add_double_value (builder, flame_profile_get_samples (profile, c));
      json_builder_end_array (builder);
    }
  json_builder_set_member_name (builder, "unit");
  json_builder_add_string_value (builder, flame_quantity_to_string (quantity));
  if (flame_profile_get_sample_type (profile) != NULL)
    {
      json_builder_set_member_name (builder, "sample_type");
      json_builder_add_string_value (builder, flame_profile_get_sample_type (profile));
    }
  /* "total" is in "unit"; "total_ms" only where that is time */
  for (guint k = 0; k < (quantity == FLAME_QUANTITY_TIME ? 2u : 1u); k++)
    {
      json_builder_set_member_name (builder, k == 0 ? "total" : "total_ms");
      if (n_columns == 1)
        json_builder_add_double_value (builder, flame_profile_get_total_ms (profile, 0, default_interval));
      else
        {
          json_builder_begin_array (builder);
          for (guint c = 0; c < n_columns; c++)
            json_builder_add_double_value (builder, flame_profile_get_total_ms (profile, c, default_interval));
          json_builder_end_array (builder);
        }
    }
  /* null when the file does not tell (then --interval-ms is assumed) or
   * for bytes and counts */
  json_builder_set_member_name (builder, "interval_ms");
  if (interval_ms > 0 && !interval_assumed)
    json_builder_add_double_value (builder, interval_ms);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "frames");
  json_builder_add_int_value (builder, flame_frames_count (flame_profile_get_frames (profile)));
  json_builder_set_member_name (builder, "stacks");
  json_builder_add_int_value (builder, n_stacks);
  json_builder_set_member_name (builder, "nodes");
  json_builder_add_int_value (builder, tree->n_nodes - 1);
  if (flame_profile_get_event (profile) != NULL)
    {
      json_builder_set_member_name (builder, "event");
      json_builder_add_string_value (builder, flame_profile_get_event (profile));
    }
  json_builder_set_member_name (builder, "threads");
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
  json_builder_end_object (builder);

  if (as_json)
    {
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(JsonNode) root = json_builder_get_root (builder);
      g_autofree char *text = NULL;

      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, root);
      text = json_generator_to_data (gen, NULL);
      g_string_append (out, text);
      g_string_append_c (out, '\n');
    }
  else
    {
      g_string_append_printf (out, "File:      %s\n", files[0]);
      g_string_append_printf (out, "Format:    %s\n", flame_profile_get_format_name (profile));
      for (guint c = 0; c < n_columns; c++)
        {
          const char *label = n_columns == 1 ? "" : (c == 0 ? " (before)" : " (after)");
          g_autofree char *total = flame_quantity_format (quantity,
                                                          flame_profile_get_total_ms (profile, c, default_interval));

          g_string_append_printf (out, "Samples%s: %.15g\n", label, flame_profile_get_samples (profile, c));

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
      if (flame_profile_get_event (profile) != NULL)
        g_string_append_printf (out, "Event:     %s\n", flame_profile_get_event (profile));
      g_string_append_printf (out, "Frames:    %u\n", flame_frames_count (flame_profile_get_frames (profile)));
      g_string_append_printf (out, "Stacks:    %" G_GUINT64_FORMAT "\n", n_stacks);
      if (flame_profile_get_metadata (profile, "flame-graph") != NULL)
        g_string_append_printf (out, "Flame graph: %s\n", flame_profile_get_metadata (profile, "flame-graph"));
      g_string_append_printf (out, "Threads:   %u\n", threads->len);
      for (guint i = 0; i < threads->len; i++)
        {
          FlameThread *t = g_ptr_array_index (threads, i);
          g_string_append_printf (out, "  %s", t->name);
          if (t->pid >= 0)
            g_string_append_printf (out, " pid %" G_GINT64_FORMAT, t->pid);
          if (t->tid >= 0)
            g_string_append_printf (out, " tid %" G_GINT64_FORMAT, t->tid);
          g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, ": %.15g sample\n", ": %.15g samples\n",
                                                    t->samples == 1 ? 1 : 2), t->samples);
        }
    }

  if (!flame_cli_write_output (NULL, out, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  return FLAME_CLI_OK;
}

/* flame-cli-render.c: flamediff-cli render BASE CURRENT -o out.svg|out.png
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-cli.h"
#include "flame-export.h"
#include "flame-loader.h"
#include "flame-painter.h"

typedef struct
{
  const char   *path;
  FlameProfile *profile;
  GError       *error;
} RenderLoad;

static gpointer
render_load (gpointer data)
{
  RenderLoad *job = data;

  job->profile = flame_load_file (job->path, NULL, NULL, NULL, &job->error);
  return NULL;
}

static gboolean
has_suffix (const char *path,
            const char *suffix)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  return g_str_has_suffix (lower, suffix);
}

int
flame_cli_render (int    argc,
                  char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *format = NULL;
  g_autofree char *view_str = NULL;
  g_autofree char *zoom = NULL;
  g_autofree char *search = NULL;
  g_autofree char *title = NULL;
  g_autofree char *font = NULL;
  g_autofree char *normalize = NULL;
  g_autofree char *metric = NULL;
  g_autofree char *interval = NULL;
  g_autofree char *match = NULL;
  int width = 1200;
  gboolean dark = FALSE, high_contrast = FALSE, legend = FALSE;
  gboolean icicle = FALSE, no_labels = FALSE;
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the picture to FILE (.svg or .png)", "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "svg or png (default: from the file name)", "FORMAT" },
    { "width", 'w', 0, G_OPTION_ARG_INT, &width, "Width in pixels (default 1200)", "PX" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Use the dark palette", NULL },
    { "high-contrast", 0, 0, G_OPTION_ARG_NONE, &high_contrast, "Use the high-contrast palette", NULL },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view_str, "differential (default), elided, inverted, or single for one profile", "VIEW" },
    { "zoom", 0, 0, G_OPTION_ARG_STRING, &zoom, "Draw FRAME full width: a function name (its widest frame) or a path “a;b;c” from the root", "FRAME" },
    { "legend", 0, 0, G_OPTION_ARG_NONE, &legend, "Add a legend strip: the colour classes and the normalisation", NULL },
    { "icicle", 0, 0, G_OPTION_ARG_NONE, &icicle, "Root at the top instead of the bottom", NULL },
    { "search", 0, 0, G_OPTION_ARG_STRING, &search, "Outline frames whose name contains TEXT", "TEXT" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title, "A title line above the graph", "TEXT" },
    { "font", 0, 0, G_OPTION_ARG_STRING, &font, "Label font (default “" FLAME_PAINTER_DEFAULT_FONT "”)", "FONT" },
    { "no-labels", 0, 0, G_OPTION_ARG_NONE, &no_labels, "Draw no function names", NULL },
    { "normalize", 0, 0, G_OPTION_ARG_STRING, &normalize, "Scale the baseline to the current run (total, default) or not (none)", "MODE" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "Colour by the change of self (default) or total time", "METRIC" },
    { "interval-ms", 0, 0, G_OPTION_ARG_STRING, &interval, "Sampling interval for files without timing (default 1)", "MS" },
    { "match", 0, 0, G_OPTION_ARG_STRING, &match, "Frame matching: name, name+file (default) or name+file+line", "KEY" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) baseline = NULL;
  g_autoptr(FlameProfile) current = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  FlameDiffOptions dopts;
  FlameExportOptions eopts;
  FlameView view = FLAME_VIEW_DIFFERENTIAL;
  gboolean svg;
  guint n_files;

  flame_diff_options_init (&dopts);
  flame_export_options_init (&eopts);

  context = g_option_context_new ("BASELINE CURRENT | FILE");
  g_option_context_set_summary (context,
    "Draw a differential flame graph of two profiles, or the flame graph\n"
    "of one, as SVG (self-contained, a tooltip per frame) or PNG.\n"
    "A single 3-column folded file (stack before after) holds both sides.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli render: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  n_files = files ? g_strv_length (files) : 0;
  if (n_files < 1 || n_files > 2)
    {
      g_printerr ("flamediff-cli render: expected BASELINE and CURRENT files, or one FILE\n");
      return FLAME_CLI_ERROR;
    }
  if (output == NULL)
    {
      g_printerr ("flamediff-cli render: --output FILE.svg or FILE.png is required\n");
      return FLAME_CLI_ERROR;
    }
  if (format != NULL)
    {
      if (strcmp (format, "svg") != 0 && strcmp (format, "png") != 0)
        {
          g_printerr ("flamediff-cli render: --format: expected svg or png, not “%s”\n", format);
          return FLAME_CLI_ERROR;
        }
      svg = strcmp (format, "svg") == 0;
    }
  else if (has_suffix (output, ".svg"))
    svg = TRUE;
  else if (has_suffix (output, ".png"))
    svg = FALSE;
  else
    {
      g_printerr ("flamediff-cli render: %s: name the output .svg or .png, or pass --format\n", output);
      return FLAME_CLI_ERROR;
    }
  if (width < 16 || width > 32768)
    {
      g_printerr ("flamediff-cli render: --width: expected 16 to 32768 pixels\n");
      return FLAME_CLI_ERROR;
    }
  if (view_str != NULL && !flame_view_from_string (view_str, &view))
    {
      g_printerr ("flamediff-cli render: --view: expected differential, elided, inverted or single, not “%s”\n",
                  view_str);
      return FLAME_CLI_ERROR;
    }
  if (normalize != NULL)
    {
      if (strcmp (normalize, "total") == 0)
        dopts.normalize = FLAME_NORMALIZE_TOTAL;
      else if (strcmp (normalize, "none") == 0)
        dopts.normalize = FLAME_NORMALIZE_NONE;
      else
        {
          g_printerr ("flamediff-cli render: --normalize: expected total or none, not “%s”\n", normalize);
          return FLAME_CLI_ERROR;
        }
    }
  if (metric != NULL)
    {
      if (strcmp (metric, "self") == 0)
        dopts.metric = FLAME_METRIC_SELF;
      else if (strcmp (metric, "total") == 0)
        dopts.metric = FLAME_METRIC_TOTAL;
      else
        {
          g_printerr ("flamediff-cli render: --metric: expected self or total, not “%s”\n", metric);
          return FLAME_CLI_ERROR;
        }
    }
  if (match != NULL && !flame_match_from_string (match, &dopts.match))
    {
      g_printerr ("flamediff-cli render: --match: expected name, name+file or name+file+line, not “%s”\n", match);
      return FLAME_CLI_ERROR;
    }
  if (interval != NULL)
    {
      char *end = NULL;
      gdouble v = g_ascii_strtod (interval, &end);

      if (end == interval || *end != 0 || !isfinite (v) || v <= 0)
        {
          g_printerr ("flamediff-cli render: --interval-ms: invalid value “%s”\n", interval);
          return FLAME_CLI_ERROR;
        }
      dopts.default_interval_ms = v;
    }

  if (n_files == 2)
    {
      RenderLoad jobs[2] = { { files[0] }, { files[1] } };
      GThread *thread = g_thread_new ("load-baseline", render_load, &jobs[0]);

      render_load (&jobs[1]);
      g_thread_join (thread);
      baseline = jobs[0].profile;
      current = jobs[1].profile;
      if (jobs[0].error != NULL || jobs[1].error != NULL)
        {
          for (guint i = 0; i < 2; i++)
            if (jobs[i].error != NULL)
              {
                g_printerr ("flamediff-cli: %s\n", jobs[i].error->message);
                g_clear_error (&jobs[i].error);
              }
          return FLAME_CLI_ERROR;
        }
      flame_cli_print_warnings (flame_profile_get_warnings (baseline));
      flame_cli_print_warnings (flame_profile_get_warnings (current));
      if (view == FLAME_VIEW_SINGLE)
        {
          g_printerr ("flamediff-cli render: --view single takes one FILE\n");
          return FLAME_CLI_ERROR;
        }
    }
  else
    {
      baseline = flame_load_file (files[0], NULL, NULL, NULL, &error);
      if (baseline == NULL)
        {
          g_printerr ("flamediff-cli: %s\n", error->message);
          return FLAME_CLI_ERROR;
        }
      flame_cli_print_warnings (flame_profile_get_warnings (baseline));
      if (flame_profile_get_n_columns (baseline) == 1)
        {
          if (view_str != NULL && view != FLAME_VIEW_SINGLE)
            {
              g_printerr ("flamediff-cli render: --view %s needs a baseline and a current profile\n",
                          view_str);
              return FLAME_CLI_ERROR;
            }
          view = FLAME_VIEW_SINGLE;
        }
    }

  if (view == FLAME_VIEW_SINGLE)
    {
      /* a ready-made pair drawn alone shows its current (second) column */
      guint column = flame_profile_get_n_columns (baseline) - 1;

      source = flame_layout_source_new_for_profile (baseline, column, dopts.default_interval_ms);
    }
  else
    {
      diff = flame_diff_new (baseline, current, &dopts, NULL, &error);
      if (diff == NULL)
        {
          g_printerr ("flamediff-cli: %s\n", error->message);
          return FLAME_CLI_ERROR;
        }
      if (view == FLAME_VIEW_ELIDED && flame_diff_get_elided_count (diff) == 0)
        g_printerr ("flamediff-cli: warning: no path of the baseline is missing from the current "
                    "profile: the elided view is empty\n");
      source = flame_layout_source_new_for_diff (diff, view);
    }

  eopts.width = width;
  eopts.dark = dark;
  eopts.high_contrast = high_contrast;
  eopts.legend = legend;
  eopts.labels = !no_labels;
  eopts.orientation = icicle ? FLAME_ORIENTATION_ICICLE : FLAME_ORIENTATION_FLAME;
  eopts.search = search;
  eopts.title = title;
  eopts.font = font;
  if (zoom != NULL)
    {
      eopts.zoom = flame_layout_source_find (source, zoom);
      if (eopts.zoom == FLAME_TREE_NONE)
        {
          g_printerr ("flamediff-cli render: --zoom: no frame “%s” in the %s view\n",
                      zoom, flame_view_to_string (view));
          return FLAME_CLI_ERROR;
        }
    }

  if (svg ? !flame_export_svg (source, &eopts, output, &error)
          : !flame_export_png (source, &eopts, output, &error))
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  return FLAME_CLI_OK;
}

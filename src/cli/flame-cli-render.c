/* flame-cli-render.c: flamediff-cli render BASE CURRENT -o out.svg|out.png
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-cli.h"
#include "flame-cli-options.h"
#include "flame-export.h"
#include "flame-painter.h"

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
  g_auto(FlameCliDiffArgs) diff_args = { 0 };
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
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameComparison) comparison = NULL;
  FlameProfile *baseline;
  FlameDiff *diff;
  g_autoptr(FlameLayoutSource) source = NULL;
  FlameDiffOptions dopts;
  FlameExportOptions eopts;
  FlameView view = FLAME_VIEW_DIFFERENTIAL;
  gboolean svg;
  guint n_files;
  gboolean has_current;

  flame_diff_options_init (&dopts);
  flame_export_options_init (&eopts);

  context = g_option_context_new ("BASELINE CURRENT | FILE");
  g_option_context_set_summary (context,
    "Draw a differential flame graph of two profiles, or the flame graph\n"
    "of one, as SVG (self-contained, a tooltip per frame) or PNG.\n"
    "A single 3-column folded file (stack before after) holds both sides.");
  g_option_context_add_main_entries (context, entries, NULL);
  flame_cli_diff_args_add_entries (context, &diff_args);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli render: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }

  n_files = files ? g_strv_length (files) : 0;
  if ((n_files < 1 && diff_args.baseline == NULL) || n_files > 2)
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
  if (!flame_cli_diff_args_apply (&diff_args, "render", &dopts))
    return FLAME_CLI_ERROR;

  comparison = flame_cli_compare_files (files, n_files, &diff_args, &dopts, NULL, TRUE, FALSE);
  if (comparison == NULL)
    return FLAME_CLI_ERROR;
  baseline = flame_comparison_get_profile (comparison, FLAME_DIFF_BASELINE);
  diff = flame_comparison_get_diff (comparison);
  has_current = flame_comparison_get_n_runs (comparison, FLAME_DIFF_CURRENT) > 0;
  if (has_current && view == FLAME_VIEW_SINGLE)
    {
      g_printerr ("flamediff-cli render: --view single takes one FILE\n");
      return FLAME_CLI_ERROR;
    }
  if (!has_current && flame_profile_get_n_columns (baseline) == 1)
    {
      if (view_str != NULL && view != FLAME_VIEW_SINGLE)
        {
          g_printerr ("flamediff-cli render: --view %s needs a baseline and a current profile\n",
                      view_str);
          return FLAME_CLI_ERROR;
        }
      view = FLAME_VIEW_SINGLE;
    }

  if (view == FLAME_VIEW_SINGLE)
    {
      /* a ready-made pair drawn alone shows its current (second) column */
      guint column = flame_profile_get_n_columns (baseline) - 1;

      source = flame_layout_source_new_for_profile (baseline, column, dopts.default_interval_ms);
    }
  else
    {
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

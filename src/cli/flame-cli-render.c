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

typedef struct
{
  char            *output;
  char            *format;
  char            *view_str;
  char            *zoom;
  char            *search;
  char            *title;
  char            *font;
  FlameCliDiffArgs diff_args;
  int              width;
  gboolean         dark, high_contrast, legend, icicle, no_labels;
  GStrv            files;
  /* from the options */
  guint            n_files;
  gboolean         svg;
  FlameView        view;
} RenderArgs;

static void
render_args_clear (RenderArgs *args)
{
  g_clear_pointer (&args->output, g_free);
  g_clear_pointer (&args->format, g_free);
  g_clear_pointer (&args->view_str, g_free);
  g_clear_pointer (&args->zoom, g_free);
  g_clear_pointer (&args->search, g_free);
  g_clear_pointer (&args->title, g_free);
  g_clear_pointer (&args->font, g_free);
  g_clear_pointer (&args->files, g_strfreev);
  flame_cli_diff_args_clear (&args->diff_args);
}

/* The command line into @args; FALSE (and a message printed) on an error */
static gboolean
parse_render_options (int         argc,
                      char      **argv,
                      RenderArgs *args)
{
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args->output,
      "Write the picture to FILE (.svg or .png)", "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &args->format,
      "svg or png (default: from the file name)", "FORMAT" },
    { "width", 'w', 0, G_OPTION_ARG_INT, &args->width, "Width in pixels (default 1200)", "PX" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &args->dark, "Use the dark palette", NULL },
    { "high-contrast", 0, 0, G_OPTION_ARG_NONE, &args->high_contrast,
      "Use the high-contrast palette", NULL },
    { "view", 0, 0, G_OPTION_ARG_STRING, &args->view_str,
      "differential (default), elided, inverted, or single for one profile", "VIEW" },
    { "zoom", 0, 0, G_OPTION_ARG_STRING, &args->zoom,
      "Draw FRAME full width: a function name (its widest frame) or a path “a;b;c” from the root",
      "FRAME" },
    { "legend", 0, 0, G_OPTION_ARG_NONE, &args->legend,
      "Add a legend strip: the colour classes and the normalisation", NULL },
    { "icicle", 0, 0, G_OPTION_ARG_NONE, &args->icicle, "Root at the top instead of the bottom",
      NULL },
    { "search", 0, 0, G_OPTION_ARG_STRING, &args->search, "Outline frames whose name contains TEXT",
      "TEXT" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &args->title, "A title line above the graph", "TEXT" },
    { "font", 0, 0, G_OPTION_ARG_STRING, &args->font,
      "Label font (default “" FLAME_PAINTER_DEFAULT_FONT "”)", "FONT" },
    { "no-labels", 0, 0, G_OPTION_ARG_NONE, &args->no_labels, "Draw no function names", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args->files, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  args->width = 1200;
  args->view = FLAME_VIEW_DIFFERENTIAL;
  context = g_option_context_new ("BASELINE CURRENT | FILE");
  g_option_context_set_summary (context,
    "Draw a differential flame graph of two profiles, or the flame graph\n"
    "of one, as SVG (self-contained, a tooltip per frame) or PNG.\n"
    "A single 3-column folded file (stack before after) holds both sides.");
  g_option_context_add_main_entries (context, entries, NULL);
  flame_cli_diff_args_add_entries (context, &args->diff_args);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flamediff-cli render: %s\n", error->message);
      return FALSE;
    }
  args->n_files = args->files ? g_strv_length (args->files) : 0;
  return TRUE;
}

/* SVG or PNG, from --format or else the output's name */
static gboolean
choose_format (RenderArgs *args)
{
  if (args->format != NULL)
    {
      if (strcmp (args->format, "svg") != 0 && strcmp (args->format, "png") != 0)
        {
          g_printerr ("flamediff-cli render: --format: expected svg or png, not “%s”\n",
                      args->format);
          return FALSE;
        }
      args->svg = strcmp (args->format, "svg") == 0;
    }
  else if (has_suffix (args->output, ".svg"))
    args->svg = TRUE;
  else if (has_suffix (args->output, ".png"))
    args->svg = FALSE;
  else
    {
      g_printerr ("flamediff-cli render: %s: name the output .svg or .png, or pass --format\n",
                  args->output);
      return FALSE;
    }
  return TRUE;
}

/* The checks that need no file; FALSE (and a message printed) on an error */
static gboolean
check_render_args (RenderArgs *args)
{
  if ((args->n_files < 1 && args->diff_args.baseline == NULL) || args->n_files > 2)
    {
      g_printerr ("flamediff-cli render: expected BASELINE and CURRENT files, or one FILE\n");
      return FALSE;
    }
  if (args->output == NULL)
    {
      g_printerr ("flamediff-cli render: --output FILE.svg or FILE.png is required\n");
      return FALSE;
    }
  if (!choose_format (args))
    return FALSE;
  if (args->width < 16 || args->width > 32768)
    {
      g_printerr ("flamediff-cli render: --width: expected 16 to 32768 pixels\n");
      return FALSE;
    }
  if (args->view_str != NULL && !flame_view_from_string (args->view_str, &args->view))
    {
      g_printerr ("flamediff-cli render: --view: expected differential, elided, inverted or "
                  "single, not “%s”\n",
                  args->view_str);
      return FALSE;
    }
  return TRUE;
}

/* The view the files allow: single for one profile; FALSE (and a message
 * printed) when --view asks for another */
static gboolean
settle_view (RenderArgs      *args,
             FlameComparison *comparison)
{
  FlameProfile *baseline = flame_comparison_get_profile (comparison, FLAME_DIFF_BASELINE);
  gboolean has_current = flame_comparison_get_n_runs (comparison, FLAME_DIFF_CURRENT) > 0;

  if (has_current && args->view == FLAME_VIEW_SINGLE)
    {
      g_printerr ("flamediff-cli render: --view single takes one FILE\n");
      return FALSE;
    }
  if (!has_current && flame_profile_get_n_columns (baseline) == 1)
    {
      if (args->view_str != NULL && args->view != FLAME_VIEW_SINGLE)
        {
          g_printerr ("flamediff-cli render: --view %s needs a baseline and a current profile\n",
                      args->view_str);
          return FALSE;
        }
      args->view = FLAME_VIEW_SINGLE;
    }
  return TRUE;
}

static FlameLayoutSource *
make_source (const RenderArgs       *args,
             FlameComparison        *comparison,
             const FlameDiffOptions *dopts)
{
  FlameProfile *baseline = flame_comparison_get_profile (comparison, FLAME_DIFF_BASELINE);
  FlameDiff *diff = flame_comparison_get_diff (comparison);

  if (args->view == FLAME_VIEW_SINGLE)
    {
      /* a ready-made pair drawn alone shows its current (second) column */
      guint column = flame_profile_get_n_columns (baseline) - 1;

      return flame_layout_source_new_for_profile (baseline, column, dopts->default_interval_ms);
    }
  if (args->view == FLAME_VIEW_ELIDED && flame_diff_get_elided_count (diff) == 0)
    g_printerr ("flamediff-cli: warning: no path of the baseline is missing from the current "
                "profile: the elided view is empty\n");
  return flame_layout_source_new_for_diff (diff, args->view);
}

/* The export options of @args; FALSE (and a message printed) when --zoom
 * names no frame of @source */
static gboolean
export_options (const RenderArgs   *args,
                FlameLayoutSource  *source,
                FlameExportOptions *eopts)
{
  flame_export_options_init (eopts);
  eopts->width = args->width;
  eopts->dark = args->dark;
  eopts->high_contrast = args->high_contrast;
  eopts->legend = args->legend;
  eopts->labels = !args->no_labels;
  eopts->orientation = args->icicle ? FLAME_ORIENTATION_ICICLE : FLAME_ORIENTATION_FLAME;
  eopts->search = args->search;
  eopts->title = args->title;
  eopts->font = args->font;
  if (args->zoom != NULL)
    {
      eopts->zoom = flame_layout_source_find (source, args->zoom);
      if (eopts->zoom == FLAME_TREE_NONE)
        {
          g_printerr ("flamediff-cli render: --zoom: no frame “%s” in the %s view\n",
                      args->zoom, flame_view_to_string (args->view));
          return FALSE;
        }
    }
  return TRUE;
}

/* Loads and compares the files, then draws the picture */
static int
run_render (RenderArgs *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameComparison) comparison = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  FlameDiffOptions dopts;
  FlameExportOptions eopts;
  gboolean ok;

  flame_diff_options_init (&dopts);
  if (!flame_cli_diff_args_apply (&args->diff_args, "render", &dopts))
    return FLAME_CLI_ERROR;
  comparison = flame_cli_compare_files (args->files, args->n_files, &args->diff_args, &dopts,
                                        NULL, TRUE, FALSE, FALSE);
  if (comparison == NULL || !settle_view (args, comparison))
    return FLAME_CLI_ERROR;
  source = make_source (args, comparison, &dopts);
  if (!export_options (args, source, &eopts))
    return FLAME_CLI_ERROR;

  ok = args->svg ? flame_export_svg (source, &eopts, args->output, &error)
                 : flame_export_png (source, &eopts, args->output, &error);
  if (!ok)
    {
      g_printerr ("flamediff-cli: %s\n", error->message);
      return FLAME_CLI_ERROR;
    }
  return FLAME_CLI_OK;
}

int
flame_cli_render (int    argc,
                  char **argv)
{
  RenderArgs args = { 0 };
  int status = FLAME_CLI_ERROR;

  if (parse_render_options (argc, argv, &args) && check_render_args (&args))
    status = run_render (&args);
  render_args_clear (&args);
  return status;
}

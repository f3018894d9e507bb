/* flame-cli.h: subcommands of flamediff-cli.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* Exit codes */
#define FLAME_CLI_OK          0
#define FLAME_CLI_ERROR       1  /* usage or input error */
#define FLAME_CLI_REGRESSION  2  /* --fail-on-regression and a regression */

int  flame_cli_compare (int argc, char **argv);
int  flame_cli_info    (int argc, char **argv);
int  flame_cli_collapse (int argc, char **argv);
int  flame_cli_render   (int argc, char **argv);
int  flame_cli_convert  (int argc, char **argv);
int  flame_cli_record   (int argc, char **argv);

/* Where a command's output goes (--output, or standard output) */
typedef struct
{
  char    *name;
  FILE    *stream;
  char    *tmp_path;       /* a regular file: written here, then renamed */
  gboolean existed;
  int      failed_errno;
} FlameCliOutput;

gboolean flame_cli_output_open  (FlameCliOutput  *self,
                                 const char      *path,
                                 GError         **error);
void     flame_cli_output_drain (GString         *text,
                                 gpointer         user_data);
gboolean flame_cli_output_close (FlameCliOutput  *self,
                                 GError         **error);
gboolean flame_cli_write_output (const char  *path,
                                 GString     *text,
                                 GError     **error);
void     flame_cli_print_warnings (GPtrArray *warnings);

G_END_DECLS

/* TEMPORARY: the perf collapse command lands in this same change. */
#include "flame-cli.h"

int
flame_cli_collapse (int argc, char **argv)
{
  g_printerr ("flamediff-cli: collapse is not implemented\n");
  return FLAME_CLI_ERROR;
}

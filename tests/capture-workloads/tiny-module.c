/* tiny-module.c: what dlopen-stress opens and closes in a loop.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
int tiny_module_answer (int x);

int
tiny_module_answer (int x)
{
  return x * 2 + 1;
}

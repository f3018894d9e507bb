/* flame-error.c
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "flame-error.h"

G_DEFINE_QUARK (flame-error-quark, flame_error)

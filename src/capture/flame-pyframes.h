/* flame-pyframes.h: the Python code objects a process sent, and the
 * mixed-mode stacks made from them (Python frames in the place of the
 * evaluation-loop frames that ran them).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FlamePyCodes FlamePyCodes;

typedef struct
{
  const char *name;       /* co_qualname, UTF-8 */
  const char *file;       /* co_filename, UTF-8 */
  guint       first_line;
} FlamePyCode;

FlamePyCodes      *flame_py_codes_new    (void);
void               flame_py_codes_free   (FlamePyCodes  *self);
/* a FLAME_REC_PYCODE record, untrusted: FALSE when malformed */
gboolean           flame_py_codes_add    (FlamePyCodes  *self,
                                          const guint8  *rec,
                                          gsize          len);
gboolean           flame_py_codes_is_empty (FlamePyCodes *self);
const FlamePyCode *flame_py_codes_lookup (FlamePyCodes  *self,
                                          guint32        id);
/* the line running at instruction @lasti (code units), 0 when unknown */
guint              flame_py_codes_line   (FlamePyCodes  *self,
                                          guint32        id,
                                          guint32        lasti);

/* The source line of the instruction at @lasti (code units) in a 3.11+
 * location table (co_linetable), counting from @first_line; 0 when the
 * table says the instruction has no line or ends before it. */
guint              flame_py_linetable_line (const guint8 *table,
                                            gsize         len,
                                            guint         first_line,
                                            guint32       lasti);

/* the native frame name of the evaluation loop, which Python frames replace */
gboolean           flame_py_is_eval_frame (const char *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlamePyCodes, flame_py_codes_free)

G_END_DECLS

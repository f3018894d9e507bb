/* flame-callgraph.h: a flame tree approximated from a call graph, for
 * the formats that record call edges instead of stacks (callgrind,
 * pstats).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-profile.h"

G_BEGIN_DECLS

typedef struct _FlameCallGraph FlameCallGraph;

FlameCallGraph *flame_call_graph_new        (void);
void            flame_call_graph_free       (FlameCallGraph *self);
void            flame_call_graph_add_self   (FlameCallGraph *self,
                                             guint32         frame,
                                             gdouble         weight);
void            flame_call_graph_add_call   (FlameCallGraph *self,
                                             guint32         caller,
                                             guint32         callee,
                                             gdouble         inclusive);
gboolean        flame_call_graph_build_tree (FlameCallGraph *self,
                                             FlameProfile   *profile,
                                             FlameInput     *in,
                                             GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameCallGraph, flame_call_graph_free)

G_END_DECLS

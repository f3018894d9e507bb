/* flame-frames.h: interned frames (function name, file or module, line).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-strings.h"

G_BEGIN_DECLS

typedef enum
{
  FLAME_FRAME_KERNEL  = 1 << 0,
  FLAME_FRAME_INLINED = 1 << 1,
  FLAME_FRAME_JIT     = 1 << 2,
  FLAME_FRAME_THREAD  = 1 << 3, /* a pseudo-frame naming a thread/process */
} FlameFrameFlags;

typedef struct
{
  guint32 name;  /* string id */
  guint32 file;  /* string id: source file or module, 0 when unknown */
  guint32 line;  /* 0 when unknown */
  guint32 flags; /* FlameFrameFlags */
} FlameFrame;

typedef struct _FlameFrames FlameFrames;

FlameFrames      *flame_frames_new         (void);
void              flame_frames_free        (FlameFrames *self);
FlameStrings     *flame_frames_get_strings (FlameFrames *self);
guint32           flame_frames_intern      (FlameFrames *self,
                                            guint32      name,
                                            guint32      file,
                                            guint32      line,
                                            guint32      flags);
guint32           flame_frames_intern_name (FlameFrames *self,
                                            const char  *name,
                                            gsize        len);
guint32           flame_frames_intern_name_hashed (FlameFrames *self,
                                                   const char  *name,
                                                   gsize        len,
                                                   guint32      hash);
void              flame_frames_prefetch_names (const FlameFrames *self,
                                               const guint32     *hashes,
                                               guint              n);
void              flame_frames_prefetch_found (const FlameFrames *self,
                                               const guint32     *hashes,
                                               guint              n,
                                               gboolean           chars);
guint             flame_frames_count       (const FlameFrames *self);
const FlameFrame *flame_frames_get         (const FlameFrames *self,
                                            guint32            frame);
const char       *flame_frames_get_name    (const FlameFrames *self,
                                            guint32            frame);
const char       *flame_frames_get_file    (const FlameFrames *self,
                                            guint32            frame);
gsize             flame_frames_memory      (const FlameFrames *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameFrames, flame_frames_free)

G_END_DECLS

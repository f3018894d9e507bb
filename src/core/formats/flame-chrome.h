/* flame-chrome.h: Chrome/V8 CPU profiles (.cpuprofile, the old tree form,
 * and trace-event files with Profile/ProfileChunk events).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"
#include "flame-loader.h"
#include "flame-profile.h"

G_BEGIN_DECLS

FlameProfile *flame_chrome_load (FlameInput              *in,
                                 FlameFormat              format,
                                 const FlameLoadOptions  *options,
                                 GError                 **error);

G_END_DECLS

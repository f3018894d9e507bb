/* flame-sandbox.h: where a command runs when Flamediff is a Flatpak, and
 * what that means for recording it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  FLAME_SANDBOX_PLAN_DIRECT,       /* no sandbox: record as usual */
  FLAME_SANDBOX_PLAN_INSIDE,       /* Flatpak, the program is inside the sandbox */
  FLAME_SANDBOX_PLAN_HOST_SPAWN,   /* on the host, reachable with flatpak-spawn --host */
  FLAME_SANDBOX_PLAN_HOST_ONLY,    /* on the host, no permission to run it there */
} FlameSandboxPlan;

typedef struct
{
  gboolean  in_flatpak;
  char     *app_id;          /* [Application] name */
  char     *app_path;        /* [Instance] app-path: /app as the host sees it */
  gboolean  host_talk;       /* org.freedesktop.Flatpak=talk granted */
} FlameSandboxInfo;

/* Reads a .flatpak-info file: NULL means "/.flatpak-info", or
 * $FLAMEDIFF_FLATPAK_INFO when set (tests). A missing file: not in a sandbox. */
FlameSandboxInfo *flame_sandbox_info_new        (const char             *info_path);
void              flame_sandbox_info_free       (FlameSandboxInfo       *info);

FlameSandboxPlan  flame_sandbox_plan            (const FlameSandboxInfo *info,
                                                 const char             *program,
                                                 const char             *cwd);
char             *flame_sandbox_host_command    (const char * const     *argv,
                                                 const char             *cwd);
gboolean          flame_sandbox_export_sampler  (const FlameSandboxInfo *info,
                                                 const char             *sampler,
                                                 char                  **host_path,
                                                 GError                **error);
char            **flame_sandbox_host_argv       (const char * const     *argv,
                                                 const char             *cwd,
                                                 const char * const     *env,
                                                 int                     forward_fd);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlameSandboxInfo, flame_sandbox_info_free)

G_END_DECLS

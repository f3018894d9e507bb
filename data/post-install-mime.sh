#!/bin/sh
# Refresh the shared-mime-info cache after `meson install`, like
# gnome.post_install does for the other caches. Skipped for staged installs
# (DESTDIR), where the packaging system runs it.
[ -n "$DESTDIR" ] && exit 0
command -v update-mime-database >/dev/null 2>&1 || exit 0
exec update-mime-database "$1"

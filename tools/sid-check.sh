#!/usr/bin/env bash
# tools/sid-check.sh [CHROOT_DIR]: the whole build and test suite on the
# current GNOME stack, in a Debian unstable chroot (GTK 4.24, libadwaita
# 1.10, a newer glibc whose libc.so.6 has no local symbols: what the
# GNOME 51 runtime of the Flatpak has, and what Debian 12 cannot show).
#
# - The chroot: ../shared/tools/debian-chroot (relative to the source
#   root) makes it in CHROOT_DIR (default $SID_CHROOT, else
#   /var/tmp/flamediff-sid-check) with the Makefile's DEBIAN_PACKAGES
#   plus make and locales; a second run reuses it and only adds what is
#   missing. Without the tool the check is skipped, and says so.
# - Locales: en_US.UTF-8 (gtk_test_init of GTK >= 4.2x switches to it and
#   makes a failure fatal) and de_DE.UTF-8 (the GUI tests also run in
#   German) are generated in the chroot.
# - The source: the work tree (without .git and build directories) is
#   copied to /src/flamediff inside; ../shared (the corpus) is bound
#   read-only at /src/shared, as it sits beside a clone.
# - Inside: `make check BUILDDIR=_build-sid` with CI=true, so -Dwerror=true,
#   the whole suite with the GUI tests under Xvfb, and the closing
#   'N passed, N failed' line. Exit status: make check's.
# Needs root (chroot, mount). Prints the time each step took.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
tool=../shared/tools/debian-chroot
dir=${1:-${SID_CHROOT:-/var/tmp/flamediff-sid-check}}

if [ ! -x "$tool" ]; then
  echo "sid-check: SKIP: $tool not found (it comes with ../shared beside the source)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "sid-check: SKIP: needs root (chroot and bind mounts)"
  exit 0
fi

step_start=$SECONDS
step () {
  echo "sid-check: $1 ($((SECONDS - step_start)) s)"
  step_start=$SECONDS
}
total_start=$SECONDS

# The bind mounts (ours and debian-chroot's) go away whatever happens: a
# later `rm -rf` of the chroot must never reach the host's /dev.
unbind () {
  for m in "$dir/src/shared" "$dir/dev" "$dir/proc"; do
    if mountpoint -q "$m" 2>/dev/null; then
      umount "$m" 2>/dev/null || umount -l "$m" || true
    fi
  done
}
trap unbind EXIT

# shellcheck disable=SC2207
packages=($(make --no-print-directory -s print-packages) make locales)
"$tool" sid "$dir" "${packages[@]}" >/dev/null
step "chroot $dir ready: $(chroot "$dir" dpkg-query -W -f='gtk ${Version}' libgtk-4-1), $(chroot "$dir" dpkg-query -W -f='libadwaita ${Version}' libadwaita-1-0), $(chroot "$dir" dpkg-query -W -f='glibc ${Version}' libc6)"

for l in en_US de_DE; do
  grep -q "^$l.UTF-8 UTF-8" "$dir/etc/locale.gen" || echo "$l.UTF-8 UTF-8" >>"$dir/etc/locale.gen"
done
if [ "$(chroot "$dir" locale -a | grep -ciE '^(en_US|de_DE)\.utf-?8$')" != 2 ]; then
  chroot "$dir" locale-gen >/dev/null
fi
step "locales: $(chroot "$dir" locale -a | grep -iE '^(en_US|de_DE)' | tr '\n' ' ')"

# A fresh copy of the tree each run; the build directory stays, so a
# second run rebuilds only what changed.
mkdir -p "$dir/src/flamediff" "$dir/src/shared"
find "$dir/src/flamediff" -mindepth 1 -maxdepth 1 ! -name _build-sid -exec rm -rf {} +
tar -C "$src" --exclude=./.git --exclude='./_build*' -cf - . | tar -C "$dir/src/flamediff" -xf -
if [ -d ../shared ]; then
  mount --bind "$(realpath ../shared)" "$dir/src/shared"
  mount -o remount,bind,ro "$dir/src/shared"
fi
step "source copied to $dir/src/flamediff"

status=0
chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 CI=true TERM=dumb \
  bash -c 'cd /src/flamediff && make check BUILDDIR=_build-sid' || status=$?
step "make check in the chroot: exit status $status"
echo "sid-check: $((SECONDS - total_start)) s in all"
exit $status

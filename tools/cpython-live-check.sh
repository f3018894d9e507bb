#!/usr/bin/env bash
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tools/cpython-live-check.sh [BUILDDIR]
#
# The /cpython/real tests against CPython 3.15 itself rather than the
# committed files: tools/cpython-fixtures.py records the programs of
# tests/data/cpython afresh with python3.15 in a Debian unstable chroot
# and runs CPython's own --diff-flamegraph on them, then test-cpython
# compares flamediff-cli with that (FLAMEDIFF_CPYTHON_DATA). Skips, saying
# why, without root, without ../shared/tools/debian-chroot
# ($FLAMEDIFF_DEBIAN_CHROOT) or when it cannot make the chroot (no
# mirror); the chroot is kept in
# $FLAMEDIFF_CPYTHON_CHROOT (default /var/tmp/flamediff-sid-cpython).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-_build}
tool=${FLAMEDIFF_DEBIAN_CHROOT:-../shared/tools/debian-chroot}
chroot_dir=${FLAMEDIFF_CPYTHON_CHROOT:-/var/tmp/flamediff-sid-cpython}

if [[ ! -x $tool ]]; then
  echo "SKIP cpython-live-check: $tool is missing (set FLAMEDIFF_DEBIAN_CHROOT)"
  exit 0
fi
if [[ $(id -u) != 0 ]]; then
  echo "SKIP cpython-live-check: chroot needs root"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
FLAMEDIFF_DEBIAN_CHROOT=$tool python3 tools/cpython-fixtures.py --chroot "$chroot_dir" --out "$out" || status=$?
if [[ $status == 77 ]]; then
  echo "SKIP cpython-live-check: no Debian unstable chroot with python3.15 could be made"
  exit 0
elif [[ $status != 0 ]]; then
  exit "$status"
fi
FLAMEDIFF_CPYTHON_DATA=$out FLAMEDIFF_CLI=$build/src/cli/flamediff-cli G_TEST_SRCDIR=$PWD/tests \
  "$build/tests/test-cpython" -p /cpython/real
echo "cpython-live-check: flamediff-cli equals CPython 3.15's own diff of fresh files"

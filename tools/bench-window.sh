#!/usr/bin/env bash
# tools/bench-window.sh BUILDDIR RUNS BASELINE CURRENT: the application
# window opening the pair (tests/bench/flame-bench-window, one process per
# run, under Xvfb with the cairo renderer) RUNS times. Prints one line,
# KEY=VALUE for each of the program's keys: the median over the runs.
# Exits 77 when Xvfb or the program is missing. For tools/bench.sh and
# tools/bench-scale.sh.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail

BUILDDIR=$1 RUNS=$2 BASE=$3 CUR=$4
WINDOW=$BUILDDIR/tests/bench/flame-bench-window

if [[ ! -x $WINDOW ]] || ! command -v Xvfb > /dev/null; then
  exit 77
fi
for ((i = 0; i < RUNS; i++)); do
  GSETTINGS_SCHEMA_DIR=$BUILDDIR/data GSETTINGS_BACKEND=memory GSK_RENDERER=cairo \
    GDK_BACKEND=x11 NO_AT_BRIDGE=1 GTK_A11Y=none \
    "$(dirname "$0")/xvfb-test" 1600x1000x24 "$WINDOW" "$BASE" "$CUR"
done | awk '
  { for (f = 1; f <= NF; f++) { split ($f, kv, "="); if (!(kv[1] in n)) keys[++k] = kv[1];
                                v[kv[1], ++n[kv[1]]] = kv[2] } }
  END {
    for (i = 1; i <= k; i++) {
      key = keys[i]; m = n[key]
      for (a = 1; a <= m; a++) s[a] = v[key, a] + 0
      for (a = 2; a <= m; a++) for (b = a; b > 1 && s[b - 1] > s[b]; b--) { t = s[b]; s[b] = s[b - 1]; s[b - 1] = t }
      printf "%s%s=%s", (i > 1 ? " " : ""), key, s[int ((m + 1) / 2)]
    }
    print ""
  }'

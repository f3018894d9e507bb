#!/usr/bin/env bash
# tools/bench-render.sh BUILDDIR: the render part of `make bench`.
#
# Layout + paint of a differential flame graph at 1920×1080
# (tests/bench/flame-bench-render): the median ms of a full repaint
# (flame_layout_new + flame_painter_paint of the viewport, labels on) for
# the whole graph and for a zoomed subtree, with the one-off cost of
# preparing the view (sorting children; once per diff and view) apart,
# and memory. Inputs: flame-bench-gen pairs with 3 000, 30 000 and
# 300 000 stacks (the last is the `make bench` pair), so the table shows
# how the cost grows with 10× and 100× more stacks. BENCH_RENDER_BIG=1
# adds 3 000 000 stacks (1000×; ~1.9 GB per file, minutes to generate).
# Target: a full repaint of the bench pair under 16 ms (60 fps).
# Then the widget itself on the bench pair, under Xvfb
# (tests/bench/flame-bench-graph-view): repaint, resize and hover, as its
# snapshot and with software compositing.
# Exit status 0 even when the target is missed, unless BENCH_STRICT=1.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail

BUILDDIR=${1:-_build}
BUILDDIR=$(cd "$BUILDDIR" && pwd)
GEN=$BUILDDIR/tests/bench/flame-bench-gen
BENCH=$BUILDDIR/tests/flame-bench-render
OUT=$BUILDDIR/bench/render
RESULTS=$OUT/results.txt
RUNS=${BENCH_RENDER_RUNS:-30}
TARGET_MS=16
COMMON=(--frames 50000 --min-depth 5 --max-depth 40 --seed 20260101)
SIZES=(3000 30000 300000)
if [[ ${BENCH_RENDER_BIG:-0} == 1 ]]; then
  SIZES+=(3000000)
fi

for exe in "$GEN" "$BENCH"; do
  if [[ ! -x $exe ]]; then
    echo "bench-render.sh: $exe is missing; build first (make build)" >&2
    exit 1
  fi
done
mkdir -p "$OUT"

pair () {
  local n=$1 base=$OUT/base-$1.folded cur=$OUT/cur-$1.folded
  local stamp
  stamp="$(sha256sum "$GEN" | cut -d' ' -f1) --stacks $n ${COMMON[*]}"
  # the 300 000-stack pair is the one tools/bench.sh made: reuse it
  if [[ $n == 300000 && -f $BUILDDIR/bench/base.folded && -f $BUILDDIR/bench/cur.folded &&
        -f $BUILDDIR/bench/inputs.stamp && $(cat "$BUILDDIR/bench/inputs.stamp") == "$stamp" ]]; then
    echo "$BUILDDIR/bench/base.folded $BUILDDIR/bench/cur.folded"
    return
  fi
  if [[ ! -f $base || ! -f $cur || ! -f $OUT/stamp-$n || $(cat "$OUT/stamp-$n") != "$stamp" ]]; then
    "$GEN" --stacks "$n" "${COMMON[@]}" --order sorted "$base" "$cur" >&2
    echo "$stamp" > "$OUT/stamp-$n"
  fi
  echo "$base $cur"
}

declare -A R
for n in "${SIZES[@]}"; do
  read -r base cur < <(pair "$n")
  echo "Measuring $n stacks ($RUNS repaints each) ..." >&2
  "$BENCH" "$base" "$cur" --width 1920 --height 1080 --runs "$RUNS" > "$OUT/render-$n.txt"
  while IFS='=' read -r k v; do R[$n,$k]=$v; done < "$OUT/render-$n.txt"
done

calc () { awk "BEGIN { printf \"$1\", $2 }"; }

# The graph widget on the bench pair, under Xvfb: median ms per frame,
# the widget's snapshot / with software compositing
widget_line () {
  local exe=$BUILDDIR/tests/bench/flame-bench-graph-view out base cur
  if [[ ! -x $exe ]] || ! command -v Xvfb > /dev/null; then
    echo "  Widget: not measured (Xvfb or flame-bench-graph-view missing)"
    return
  fi
  read -r base cur < <(pair "$bench_n")
  out=$(GSK_RENDERER=cairo GSETTINGS_BACKEND=memory GTK_A11Y=none NO_AT_BRIDGE=1 GDK_BACKEND=x11 \
        "$(dirname "$0")/xvfb-test" 1920x1080x24 "$exe" "$base" "$cur")
  w () { sed -n "s/^$1=//p" <<< "$out"; }
  echo "  Widget at 1920×1080 (flame-bench-graph-view; median ms, snapshot / + software compositing):"
  printf '    repaint %s / %s, resize %s / %s, hover %s / %s\n' \
    "$(w repaint_snapshot_ms)" "$(w repaint_ms)" "$(w resize_snapshot_ms)" "$(w resize_ms)" \
    "$(w hover_snapshot_ms)" "$(w hover_ms)"
}
first=${SIZES[0]}
bench_n=300000
verdict=$(awk "BEGIN { exit !(${R[$bench_n,full_ms]} < $TARGET_MS) }" && echo PASS || echo FAIL)

{
  echo
  echo "Render: layout + paint at 1920×1080 (flame-bench-render; median of $RUNS repaints, labels on)"
  printf '  %9s %9s %9s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s\n' \
    "stacks" "nodes" "prep ms" "full" "layout" "paint" "p95" "frames" "zoom" "p95" "frames" "src MB" "RSS MB"
  for n in "${SIZES[@]}"; do
    printf '  %9d %9d %9.1f %7.2f %7.2f %7.2f %7.2f %7d %7.2f %7.2f %7d %8.1f %8.1f\n' "$n" \
      "${R[$n,diff_nodes]}" "${R[$n,source_prepare_ms]}" \
      "${R[$n,full_ms]}" "${R[$n,full_layout_ms]}" "${R[$n,full_paint_ms]}" "${R[$n,full_p95_ms]}" \
      "${R[$n,full_frames]}" "${R[$n,zoom_ms]}" "${R[$n,zoom_p95_ms]}" "${R[$n,zoom_frames]}" \
      "$(calc "%.1f" "${R[$n,source_bytes]} / 1e6")" "$(calc "%.1f" "${R[$n,peak_rss_kib]} * 1024 / 1e6")"
  done
  echo "  full/zoom: ms per repaint (layout + paint); prep: once per diff and view; src: the prepared"
  echo "  view; RSS: the whole process (profiles and diff included). A layout holds"
  printf '  %s bytes for the bench pair (%s frames).\n' "${R[$bench_n,full_layout_bytes]}" "${R[$bench_n,full_frames]}"
  echo "  Growth relative to $first stacks:"
  for n in "${SIZES[@]:1}"; do
    printf '    %4d× stacks: nodes ×%.1f, prep ×%.1f, full repaint ×%.2f, zoomed repaint ×%.2f\n' \
      $((n / first)) \
      "$(calc "%.3f" "${R[$n,diff_nodes]} / ${R[$first,diff_nodes]}")" \
      "$(calc "%.3f" "${R[$n,source_prepare_ms]} / ${R[$first,source_prepare_ms]}")" \
      "$(calc "%.3f" "${R[$n,full_ms]} / ${R[$first,full_ms]}")" \
      "$(calc "%.3f" "${R[$n,zoom_ms]} / ${R[$first,zoom_ms]}")"
  done
  printf '  Target: full repaint of the bench pair (%d stacks) < %d ms: %s ms  %s\n' \
    "$bench_n" "$TARGET_MS" "${R[$bench_n,full_ms]}" "$verdict"
  widget_line
} | tee "$RESULTS"

if [[ ${BENCH_STRICT:-0} == 1 && $verdict == FAIL ]]; then
  exit 1
fi

#!/usr/bin/env bash
# tools/bench-scale.sh BUILDDIR: the scale part of `make bench` (issue 17).
#
# A harder folded pair than bench.sh's: flame-bench-gen --prefix random
# --order shuffled (300 000 stacks per file, ~187 MB, 50 000 frames, depth
# 5-40, each stack shares only a random-length prefix with the one before,
# so ~3.6 M tree nodes per file), and a speedscope file in which every
# sample is a fresh random stack (~32 M nodes). Measured, in ONE run so
# that the ratios hold on a loaded machine:
#   - compare BASE CUR --format F for each output format: MB/s of both
#     inputs, peak RSS and peak RSS per tree node (base + cur + diff);
#   - flame-bench-core: loading the two files one after the other vs in
#     two threads (ratio, median of $BENCH_RUNS), structure bytes per node;
#   - `info BASE` (one large file): CPU time over wall time, i.e. how
#     many of the cores loading one file keeps busy;
#   - --format folded vs FlameGraph's difffolded.pl on the same pair (when
#     difffolded.pl is on PATH or $DIFFFOLDED names it; skipped visibly);
#   - the JSON files (big-speedscope.json, big-chrome.json from bench.sh
#     when present, and the fresh-random-stacks file) vs node's JSON.parse;
#   - the app window (tools/bench-window.sh, under Xvfb) opening the pair:
#     open time, first paint, the longest main-loop stalls and peak RSS;
#   - with BENCH_10X=1, a pair ten times as large (3 M stacks, ~1.9 GB per
#     file; needs ~4 GB of disk): compare --format json once, MB/s and
#     peak RSS (per node), and the app window opening it once.
# Inputs are generated under BUILDDIR/bench (never committed).
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail

BUILDDIR=${1:-_build}
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILDDIR=$(cd "$BUILDDIR" && pwd)
RUNS=${BENCH_RUNS:-3}

CLI=$BUILDDIR/src/cli/flamediff-cli
GEN=$BUILDDIR/tests/bench/flame-bench-gen
CORE=$BUILDDIR/tests/bench/flame-bench-core
RUN="python3 $SRCDIR/tests/bench/bench-run.py"
OUT=$BUILDDIR/bench
RESULTS=$OUT/results-scale.txt
GEN_ARGS=(--stacks 300000 --frames 50000 --min-depth 5 --max-depth 40 --seed 20260117
          --prefix random --order shuffled)

# the targets of issue 17 (T_CORES: "a single large file uses both cores")
T_MBPS=300 T_BPN=64 T_PAR=1.7 T_PERL=4 T_NODE=1.5 T_JSON_RSS=2 T_CORES=1.7

mkdir -p "$OUT"
BASE=$OUT/scale-base.folded
CUR=$OUT/scale-cur.folded
stamp="$(sha256sum "$GEN" | cut -d' ' -f1) ${GEN_ARGS[*]}"
if [[ ! -f $OUT/scale.stamp || $(cat "$OUT/scale.stamp") != "$stamp" || ! -f $BASE || ! -f $CUR ]]; then
  echo "Generating the scale pair in $OUT ..."
  "$GEN" "${GEN_ARGS[@]}" "$BASE" "$CUR" > "$OUT/scale-inputs.log"
  echo "$stamp" > "$OUT/scale.stamp"
fi
RAND=$OUT/random-stacks.speedscope.json
[[ -f $RAND ]] || python3 "$SRCDIR/tools/bench-json-gen.py" speedscope-random "$RAND" 200

# app_row WHAT RUNS BASE CUR BYTES: the app window opening a pair
# (tools/bench-window.sh, medians over RUNS), or why it was not measured
app_row () {
  local keys rc
  keys=$("$SRCDIR/tools/bench-window.sh" "$BUILDDIR" "$2" "$3" "$4") && rc=0 || rc=$?
  if [[ $rc == 77 ]]; then
    echo "  app window: SKIPPED (Xvfb or tests/bench/flame-bench-window missing)"
    return
  elif [[ $rc != 0 ]]; then
    echo "  app window on $1: FAILED (tools/bench-window.sh exited with $rc)"
    return
  fi
  key () { tr ' ' '\n' <<< "$keys" | sed -n "s/^$1=//p"; }
  printf '  %-40s %7.3f s %7s MB/s, first paint %.2f s, peak RSS %s MB\n' \
    "app window opens $1" "$(key window_open_s)" "$(calc "%.0f" "$5 / 1e6 / $(key window_open_s)")" \
    "$(key first_paint_s)" "$(key peak_rss_mb)"
  printf '  %-40s %7.0f / %.0f / %.0f ms (main-thread CPU %.0f / %.0f / %.0f ms)\n' \
    "  main-loop stall: open / switch / zoom" "$(key block_open_ms)" "$(key block_switch_ms)" \
    "$(key block_zoom_ms)" "$(key busy_open_ms)" "$(key busy_switch_ms)" "$(key busy_zoom_ms)"
}

size () { stat -L -c %s "$1"; }
calc () { awk "BEGIN { printf \"$1\", $2 }"; }
verdict () { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }
nodes_of () { "$CLI" info "$1" --json | sed -n 's/^ *"nodes" : \([0-9]*\).*/\1/p'; }
measure () {  # sets M_MED M_BEST M_RSS (KiB)
  read -r M_MED M_BEST _ M_RSS < <($RUN "$RUNS" "$@")
}
cores_used () {  # CMD...: prints its CPU time (user + system) / wall time
  python3 -c '
import os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
wall = time.perf_counter() - start
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit("%s failed" % sys.argv[1])
print("%.2f" % ((usage.ru_utime + usage.ru_stime) / wall))' "$@"
}

BYTES=$(( $(size "$BASE") + $(size "$CUR") ))
cat "$BASE" "$CUR" > /dev/null

# the diff tree's nodes, from the core bench (it also gives the ratio)
par=()
for ((i = 0; i < RUNS; i++)); do
  "$CORE" "$BASE" "$CUR" > "$OUT/scale-core.txt"
  c () { sed -n "s/^$1=//p" "$OUT/scale-core.txt"; }
  par+=("$(calc "%.3f" "($(c base_load_s) + $(c cur_load_s)) / $(c parallel_load_s)")")
done
median () { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
PAR=$(median "${par[@]}")
NODES=$(( $(c base_nodes) + $(c cur_nodes) + $(c diff_nodes) ))
STRUCT_BPN=$(calc "%.1f" "($(c base_with_index_bytes) + $(c cur_with_index_bytes) + $(c diff_with_index_bytes)) / $NODES")

{
  echo "Scale bench (issue 17) — $(date -u '+%Y-%m-%d %H:%M UTC'), source: $(git -C "$SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "Load average $(cut -d' ' -f1-3 /proc/loadavg); median of $RUNS runs (best in brackets); MB = 10^6 bytes"
  echo "Pair: flame-bench-gen ${GEN_ARGS[*]}"
  printf '  %s MB both; nodes: base %s, cur %s, diff %s\n' "$(calc "%.1f" "$BYTES / 1e6")" \
    "$(c base_nodes)" "$(c cur_nodes)" "$(c diff_nodes)"
  echo
  printf '  %-40s %15s %7s %9s %8s %s\n' "compare BASE CUR" "seconds (best)" "MB/s" "peak RSS" "RSS/node" "targets: >= $T_MBPS MB/s, <= $T_BPN B/node"
  for fmt in text markdown json folded; do
    measure "$CLI" compare "$BASE" "$CUR" --format "$fmt" -o /dev/null
    mbps=$(calc "%.0f" "$BYTES / 1e6 / $M_MED")
    bpn=$(calc "%.1f" "$M_RSS * 1024 / $NODES")
    printf '  %-40s %7.3f (%.3f) %7s %6s MB %8s %s %s\n' "--format $fmt" "$M_MED" "$M_BEST" "$mbps" \
      "$((M_RSS / 1024))" "$bpn" "$(verdict "$mbps >= $T_MBPS")" "$(verdict "$bpn <= $T_BPN")"
    [[ $fmt == folded ]] && FOLDED_S=$M_MED
  done
  echo "  (RSS/node: peak RSS, mapped input files included, / base+cur+diff nodes;"
  echo "   tree structures alone, arrays + index: $STRUCT_BPN B/node)"
  printf '  %-40s %7s  (target >= %s: %s; runs: %s)\n' "load two files in parallel vs serially" "${PAR}x" \
    "$T_PAR" "$(verdict "$PAR >= $T_PAR")" "${par[*]}"
  cores=()
  for ((i = 0; i < RUNS; i++)); do cores+=("$(cores_used "$CLI" info "$BASE")"); done
  CORES=$(median "${cores[@]}")
  printf '  %-40s %7s  (target >= %s: %s; runs: %s)\n' "info BASE: cores busy (CPU / wall)" "$CORES" \
    "$T_CORES" "$(verdict "$CORES >= $T_CORES")" "${cores[*]}"
  measure "$CLI" info "$BASE"
  printf '  %-40s %7.3f (%.3f) %7s MB/s, peak RSS %s MB\n' "info BASE (one file)" "$M_MED" "$M_BEST" \
    "$(calc "%.0f" "$(size "$BASE") / 1e6 / $M_MED")" "$((M_RSS / 1024))"

  app_row "the pair" "$RUNS" "$BASE" "$CUR" "$BYTES"

  DF=${DIFFFOLDED:-$(command -v difffolded.pl || true)}
  if [[ -n $DF && -x $DF ]]; then
    measure "$DF" "$BASE" "$CUR"
    printf '  %-40s %7.3f (%.3f)  --format folded is %sx faster (target >= %s: %s)\n' "difffolded.pl" "$M_MED" "$M_BEST" \
      "$(calc "%.2f" "$M_MED / $FOLDED_S")" "$T_PERL" "$(verdict "$M_MED / $FOLDED_S >= $T_PERL")"
  else
    echo "  difffolded.pl: SKIPPED (not on PATH; Debian 12 has no flamegraph package; set DIFFFOLDED=/path/to/difffolded.pl)"
  fi
  echo
  echo "JSON vs node's JSON.parse of the same file (targets: >= ${T_NODE}x node, peak RSS <= ${T_JSON_RSS}x file):"
  for f in "$OUT/big-speedscope.json" "$OUT/big-chrome.json" "$RAND"; do
    [[ -f $f ]] || { echo "  $(basename "$f"): missing (bench.sh writes it)"; continue; }
    bytes=$(size "$f")
    cat "$f" > /dev/null
    measure "$CLI" info "$f"
    ours=$M_MED ours_rss=$M_RSS
    nodes=$(nodes_of "$f")
    line=$(printf '  %-34s %6.1f MB %7.3f s %5s MB/s RSS %.2fx file, %s nodes, %.1f B/node' "$(basename "$f")" \
      "$(calc "%.1f" "$bytes / 1e6")" "$ours" "$(calc "%.0f" "$bytes / 1e6 / $ours")" \
      "$(calc "%.2f" "$ours_rss * 1024 / $bytes")" "$nodes" "$(calc "%.1f" "$ours_rss * 1024 / $nodes")")
    echo "$line"
    if command -v node > /dev/null; then
      measure node -e "JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'))" "$f"
      r=$(calc "%.2f" "$M_MED / $ours")
      if [[ $f == "$RAND" ]]; then
        # issue 17 asks this file for its bytes per node only: tens of
        # millions of nodes from a small file cannot fit 2x the file, and
        # node's parse keeps no tree to compare with
        printf '    node JSON.parse %.3f s: ours %sx (no target), B/node <= %s: %s\n' "$M_MED" "$r" \
          "$T_BPN" "$(verdict "$ours_rss * 1024 / $nodes <= $T_BPN")"
        continue
      fi
      printf '    node JSON.parse %.3f s: ours %sx (%s), RSS %s' "$M_MED" "$r" \
        "$(verdict "$r >= $T_NODE")" "$(verdict "$ours_rss * 1024 <= $T_JSON_RSS * $bytes")"
      # per node only where the tree, not the file, dominates memory
      if (( nodes > 1000000 )); then
        printf ', B/node <= %s: %s' "$T_BPN" "$(verdict "$ours_rss * 1024 / $nodes <= $T_BPN")"
      fi
      echo
    else
      echo "    node: not installed, ratio SKIPPED"
    fi
  done
  if [[ ${BENCH_10X:-0} == 1 ]]; then
    BASE10=$OUT/scale10-base.folded CUR10=$OUT/scale10-cur.folded
    GEN10=("${GEN_ARGS[@]}")
    GEN10[1]=$(( ${GEN_ARGS[1]} * 10 ))
    stamp10="$(sha256sum "$GEN" | cut -d' ' -f1) ${GEN10[*]}"
    if [[ ! -f $OUT/scale10.stamp || $(cat "$OUT/scale10.stamp") != "$stamp10" ||
          ! -f $BASE10 || ! -f $CUR10 ]]; then
      "$GEN" "${GEN10[@]}" "$BASE10" "$CUR10" > "$OUT/scale10-inputs.log"
      echo "$stamp10" > "$OUT/scale10.stamp"
    fi
    BYTES10=$(( $(size "$BASE10") + $(size "$CUR10") ))
    NODES10=$(( $(nodes_of "$BASE10") + $(nodes_of "$CUR10") ))
    read -r M_MED _ _ M_RSS < <($RUN 1 "$CLI" compare "$BASE10" "$CUR10" --format json -o /dev/null)
    echo
    printf '  %-40s %7.3f s %7s MB/s, peak RSS %s MB = %s B per base+cur node (%s MB both files)\n' \
      "10x pair (BENCH_10X=1): --format json" "$M_MED" "$(calc "%.0f" "$BYTES10 / 1e6 / $M_MED")" \
      "$((M_RSS / 1024))" "$(calc "%.1f" "$M_RSS * 1024 / $NODES10")" "$(calc "%.0f" "$BYTES10 / 1e6")"
    app_row "the 10x pair" 1 "$BASE10" "$CUR10" "$BYTES10"
  else
    echo "  10x pair: SKIPPED (BENCH_10X=1 runs it: ~1.9 GB per file, ~4 GB of disk)"
  fi
} | tee "$RESULTS"
echo "Written to $RESULTS"

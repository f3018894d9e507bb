#!/usr/bin/env bash
# tools/bench.sh BUILDDIR: `make bench`.
#
# Generates two large folded profiles (tests/bench/flame-bench-gen: 300 000
# distinct stacks each, ~187 MB, 50 000 frames), in sorted order (like
# stackcollapse-perf.pl) and shuffled, and measures:
#   - `wc -l` over both files (the floor: reading the bytes),
#   - `flamediff-cli info --json` per file (load throughput),
#   - `flamediff-cli compare BASE CUR --format json` (load + diff + report of
#     both files: total MB / seconds) and its peak RSS,
#   - with tests/bench/flame-bench-core: per-phase times, tree nodes and
#     structure bytes per node,
#   - with tests/bench/flame-bench-window (tools/bench-window.sh, under Xvfb): the app window
#     opening the sorted pair until it is no longer busy, its first paint
#     from launch and the longest main-loop stalls (open, view switch, zoom),
#     with the most CPU time the main thread spent in one of them (a stall
#     on a loaded machine is longer than its work: the thread waits for a
#     core).
# Times are wall clock, warm page cache, the MEDIAN of $BENCH_RUNS runs
# (default 3; the best run is shown next to it). MB = 10^6 bytes.
# The summary goes to stdout and to BUILDDIR/bench/results.txt.
# Exit status 0 even when a target is missed, unless BENCH_STRICT=1.
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
RESULTS=$OUT/results.txt

TARGET_MBPS=250
TARGET_BPN=80
GEN_ARGS=(--stacks 300000 --frames 50000 --min-depth 5 --max-depth 40 --seed 20260101)

for exe in "$CLI" "$GEN" "$CORE"; do
  if [[ ! -x $exe ]]; then
    echo "bench.sh: $exe is missing; build first (make build)" >&2
    exit 1
  fi
done

mkdir -p "$OUT"
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
BASE=$OUT/base.folded
CUR=$OUT/cur.folded
BASE_SH=$OUT/base-shuffled.folded
CUR_SH=$OUT/cur-shuffled.folded

# ---- inputs: regenerate only when missing or the generator changed ----
stamp="$(sha256sum "$GEN" | cut -d' ' -f1) ${GEN_ARGS[*]}"
if [[ ! -f $OUT/inputs.stamp || $(cat "$OUT/inputs.stamp") != "$stamp" ||
      ! -f $BASE || ! -f $CUR || ! -f $BASE_SH || ! -f $CUR_SH ]]; then
  echo "Generating inputs in $OUT ..."
  rm -f "$OUT/inputs.stamp"
  "$GEN" "${GEN_ARGS[@]}" --order sorted "$BASE" "$CUR" | tee "$OUT/inputs.log"
  "$GEN" "${GEN_ARGS[@]}" --order shuffled "$BASE_SH" "$CUR_SH" >/dev/null
  echo "$stamp" > "$OUT/inputs.stamp"
else
  echo "Reusing inputs in $OUT (generator unchanged)"
fi

size () { stat -c %s "$1"; }
calc () { awk "BEGIN { printf \"$1\", $2 }"; }
warm () { cat "$@" > /dev/null; }
verdict () { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo FAIL; fi; }

BASE_BYTES=$(size "$BASE")
CUR_BYTES=$(size "$CUR")
BOTH_BYTES=$((BASE_BYTES + CUR_BYTES))

# measure NAME BYTES CMD...: sets M_MED, M_BEST, M_RSS (KiB), M_MBPS
measure () {
  local name=$1 bytes=$2
  shift 2
  read -r M_MED M_BEST _ M_RSS < <($RUN "$RUNS" "$@")
  M_MBPS=$(calc "%.0f" "$bytes / 1e6 / $M_MED")
  printf '  %-44s %7.3f s (best %.3f)  %6s MB/s\n' "$name" "$M_MED" "$M_BEST" "$M_MBPS"
}

echo "Measuring ($RUNS runs each, median) ..."
warm "$BASE" "$CUR" "$BASE_SH" "$CUR_SH"

measure "wc -l base+cur" "$BOTH_BYTES" wc -l "$BASE" "$CUR"
WC_S=$M_MED WC_B=$M_BEST WC_MBPS=$M_MBPS

measure "info --json base (sorted)" "$BASE_BYTES" "$CLI" info "$BASE" --json
INFO_B_S=$M_MED INFO_B_B=$M_BEST INFO_B_MBPS=$M_MBPS
measure "info --json cur (sorted)" "$CUR_BYTES" "$CLI" info "$CUR" --json
INFO_C_S=$M_MED INFO_C_B=$M_BEST INFO_C_MBPS=$M_MBPS
measure "info --json base (shuffled)" "$BASE_BYTES" "$CLI" info "$BASE_SH" --json
INFO_BS_S=$M_MED INFO_BS_B=$M_BEST INFO_BS_MBPS=$M_MBPS
measure "info --json cur (shuffled)" "$CUR_BYTES" "$CLI" info "$CUR_SH" --json
INFO_CS_S=$M_MED INFO_CS_B=$M_BEST INFO_CS_MBPS=$M_MBPS

measure "compare --format json (sorted)" "$BOTH_BYTES" \
  "$CLI" compare "$BASE" "$CUR" --format json -o /dev/null
CMP_S=$M_MED CMP_B=$M_BEST CMP_MBPS=$M_MBPS CMP_RSS=$M_RSS
measure "compare --format json (shuffled)" "$BOTH_BYTES" \
  "$CLI" compare "$BASE_SH" "$CUR_SH" --format json -o /dev/null
CMPS_S=$M_MED CMPS_B=$M_BEST CMPS_MBPS=$M_MBPS CMPS_RSS=$M_RSS

# ---- the application window opening the sorted pair (load + diff +
# report + view, FlameComparison as for compare), under Xvfb: one process
# per run (tests/bench/flame-bench-window), so first paint counts from the
# launch; the longest main-loop stall while opening, switching views and
# zooming (view switches: inverted, elided, differential, colour by total
# time and back), each step until painted and settled (its animations over,
# the Top Changes rows all made). Targets (issue 17): first paint <= 1.5 s,
# stalls <= 50 ms ----
WIN_LINE="window open: not measured (Xvfb or the bench program missing)"
WIN_KEYS=$("$SRCDIR/tools/bench-window.sh" "$BUILDDIR" "$RUNS" "$BASE" "$CUR") && win_rc=0 ||
  win_rc=$?
if [[ $win_rc != 0 && $win_rc != 77 ]]; then
  WIN_LINE="window open: FAILED (tools/bench-window.sh exited with $win_rc)"
  echo "  $WIN_LINE"
elif [[ $win_rc == 0 ]]; then
  # win_median KEY: its median over the runs
  win_median () { tr ' ' '\n' <<< "$WIN_KEYS" | sed -n "s/^$1=//p"; }
  WIN_S=$(win_median window_open_s)
  WIN_P=$(win_median first_paint_s)
  WIN_BO=$(win_median block_open_ms)
  WIN_BS=$(win_median block_switch_ms)
  WIN_BZ=$(win_median block_zoom_ms)
  WIN_CO=$(win_median busy_open_ms)
  WIN_CS=$(win_median busy_switch_ms)
  WIN_CZ=$(win_median busy_zoom_ms)
  WIN_LINE=$(printf '%-50s %7.3f %9s  peak RSS %s MB\n  %-48s %7.3f s  (target <= 1.5 s: %s)\n  %-48s %5.0f / %.0f / %.0f ms  (target <= 50 ms: %s)\n  %-48s %5.0f / %.0f / %.0f ms' \
             "app window opens the pair, sorted" "$WIN_S" \
             "$(calc "%.0f" "$BOTH_BYTES / 1e6 / $WIN_S")" "$(win_median peak_rss_mb)" \
             "app first paint from launch" "$WIN_P" "$(verdict "$WIN_P <= 1.5")" \
             "main-loop stall: open / view switch / zoom" "$WIN_BO" "$WIN_BS" "$WIN_BZ" \
             "$(verdict "$WIN_BO <= 50 && $WIN_BS <= 50 && $WIN_BZ <= 50")" \
             "  most main-thread CPU between two iterations" "$WIN_CO" "$WIN_CS" "$WIN_CZ")
  echo "  $WIN_LINE"
fi

# ---- one run of the core bench per order: phases, nodes, memory ----
"$CORE" "$BASE" "$CUR" > "$OUT/core-sorted.txt"
"$CORE" "$BASE_SH" "$CUR_SH" > "$OUT/core-shuffled.txt"
core () { sed -n "s/^$1=//p" "$OUT/core-$2.txt"; }
c () { core "$1" sorted; }

NODES_ALL=$(( $(c base_nodes) + $(c cur_nodes) + $(c diff_nodes) ))
PEAK_ALL=$(( $(c base_with_index_bytes) + $(c cur_with_index_bytes) + $(c diff_with_index_bytes) ))
USED_ALL=$(( $(c base_used_bytes) + $(c cur_used_bytes) + $(c diff_used_bytes) ))
LIVE_ALL=$(( $(c base_live_bytes) + $(c cur_live_bytes) + $(c diff_live_bytes) ))
BPN=$(calc "%.1f" "$PEAK_ALL / $NODES_ALL")
BPN_USED=$(calc "%.1f" "$USED_ALL / $NODES_ALL")
BPN_LIVE=$(calc "%.1f" "$LIVE_ALL / $NODES_ALL")
BPN_RSS=$(calc "%.0f" "$CMP_RSS * 1024 / $NODES_ALL")

describe_source () {
  local rev
  if rev=$(git -C "$SRCDIR" rev-parse --short HEAD 2>/dev/null); then
    if git -C "$SRCDIR" diff --quiet HEAD -- src 2>/dev/null; then
      echo "commit $rev"
    else
      echo "commit $rev + uncommitted changes under src/"
    fi
  else
    echo "not a git checkout"
  fi
}

V_MBPS=$(verdict "$CMP_MBPS >= $TARGET_MBPS")
V_MBPS_SH=$(verdict "$CMPS_MBPS >= $TARGET_MBPS")
V_BPN=$(verdict "$BPN <= $TARGET_BPN")

mb () { calc "%.1f" "$1 / 1e6"; }
tree_row () {
  printf '  %-6s %9d %6d %14s %14s %14s\n' "$1" "$(c "$1_nodes")" "$(c "$1_node_bytes")" \
    "$(calc "%.1f" "$(c "$1_with_index_bytes") / $(c "$1_nodes")")" \
    "$(calc "%.1f" "$(c "$1_live_bytes") / $(c "$1_nodes")")" \
    "$(calc "%.1f" "$(c "$1_used_bytes") / $(c "$1_nodes")")"
}

{
  echo "Flamediff bench — $(date -u '+%Y-%m-%d %H:%M UTC'), source: $(describe_source)"
  echo "Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); load average at start $LOADAVG (other work skews the times)"
  echo "Input: flame-bench-gen ${GEN_ARGS[*]}"
  printf '  base %s MB, cur %s MB (both: %s MB); %s\n' "$(mb "$BASE_BYTES")" "$(mb "$CUR_BYTES")" \
    "$(mb "$BOTH_BYTES")" "$(head -1 "$OUT/inputs.log" 2>/dev/null | sed 's/^[^:]*: //')"
  echo "Times: wall clock, warm page cache, median of $RUNS runs (best run in brackets); MB = 10^6 bytes."
  echo
  printf '  %-50s %15s %9s %10s\n' "measurement" "seconds (best)" "MB/s" "peak RSS"
  printf '  %-50s %7.3f (%.3f) %9s\n' "wc -l base+cur" "$WC_S" "$WC_B" "$WC_MBPS"
  printf '  %-50s %7.3f (%.3f) %9s\n' "info --json base, sorted (load)" "$INFO_B_S" "$INFO_B_B" "$INFO_B_MBPS"
  printf '  %-50s %7.3f (%.3f) %9s\n' "info --json cur, sorted (load)" "$INFO_C_S" "$INFO_C_B" "$INFO_C_MBPS"
  printf '  %-50s %7.3f (%.3f) %9s\n' "info --json base, shuffled (load)" "$INFO_BS_S" "$INFO_BS_B" "$INFO_BS_MBPS"
  printf '  %-50s %7.3f (%.3f) %9s\n' "info --json cur, shuffled (load)" "$INFO_CS_S" "$INFO_CS_B" "$INFO_CS_MBPS"
  printf '  %-50s %7.3f (%.3f) %9s %7s MB\n' "compare --format json, sorted (load+diff+report)" "$CMP_S" "$CMP_B" "$CMP_MBPS" "$(mb $((CMP_RSS * 1024)))"
  printf '  %-50s %7.3f (%.3f) %9s %7s MB\n' "compare --format json, shuffled (load+diff+report)" "$CMPS_S" "$CMPS_B" "$CMPS_MBPS" "$(mb $((CMPS_RSS * 1024)))"
  echo "  $WIN_LINE"
  echo
  echo "Core phases (flame-bench-core, one run each; seconds):"
  printf '  %-9s %10s %10s %14s %8s %8s %8s\n' "" "load base" "load cur" "both parallel" "diff" "report" "json"
  for o in sorted shuffled; do
    printf '  %-9s %10.3f %10.3f %14.3f %8.3f %8.3f %8.3f\n' "$o" \
      "$(core base_load_s $o)" "$(core cur_load_s $o)" "$(core parallel_load_s $o)" \
      "$(core diff_s $o)" "$(core report_s $o)" "$(core json_s $o)"
  done
  echo "  (each load alone, then both in two threads as compare does; then diff, report, JSON)"
  echo
  echo "Trees, bytes per node. arrays+index: node arrays as allocated (capacity) + the (parent, frame)"
  echo "  index at the size it had when building ended (the index is dropped afterwards: rebuilt to measure);"
  echo "  arrays: what stays allocated after building; in use+index: nodes in use only + index."
  printf '  %-6s %9s %6s %14s %14s %14s\n' "tree" "nodes" "B/node" "arrays+index" "arrays" "in use+index"
  tree_row base
  tree_row cur
  tree_row diff
  printf '  %-6s %9d %6s %14s %14s %14s\n' "all" "$NODES_ALL" "" "$BPN" "$BPN_LIVE" "$BPN_USED"
  printf '  strings+frames: base %s MB, cur %s MB, diff %s MB (%s / %s / %s frames)\n' \
    "$(mb "$(c base_frames_bytes)")" "$(mb "$(c cur_frames_bytes)")" "$(mb "$(c diff_frames_bytes)")" \
    "$(c base_frames)" "$(c cur_frames)" "$(c diff_frames)"
  printf '  crude: compare peak RSS / all nodes = %s B/node (includes the mapped input files)\n' "$BPN_RSS"
  echo
  echo "Targets:"
  printf '  %-52s %9s  %s\n' "load+diff throughput, sorted >= $TARGET_MBPS MB/s" "$CMP_MBPS" "$V_MBPS"
  printf '  %-52s %9s  %s\n' "  (shuffled, for reference)" "$CMPS_MBPS" "$V_MBPS_SH"
  printf '  %-52s %9s  %s\n' "bytes per tree node (arrays+index, 3 trees) <= $TARGET_BPN" "$BPN" "$V_BPN"
} | tee "$RESULTS"

echo
echo "Written to $RESULTS"
if [[ ${BENCH_STRICT:-0} == 1 && ($V_MBPS == FAIL || $V_BPN == FAIL) ]]; then
  exit 1
fi

# ---- render: layout + paint at 1920×1080 (tools/bench-render.sh) ----
"$SRCDIR/tools/bench-render.sh" "$BUILDDIR"

# ---- recording overhead: the sampler at 999 Hz on a CPU-bound program ----
# `capture-quick work M`: a fixed amount of work in one hot function, which
# prints its own CPU time (CLOCK_PROCESS_CPUTIME_ID, so time spent in the
# SIGPROF handler counts). CPU time, unlike wall time, does not depend on
# what else the machine runs. Compared: the program alone, under
# `flamediff-cli record -F 999`, and under `perf record -F 999 -g` where
# perf is allowed (its sampling cost is mostly kernel time outside the
# program, so its wall time is shown too). Median of $BENCH_RUNS
# interleaved runs each.
QUICK=$BUILDDIR/tests/capture-workloads/capture-quick
WORK=${BENCH_WORK_M:-1500}
if [[ -x $QUICK ]]; then
  echo
  echo "Recording overhead ($RUNS runs each, median; capture-quick work $WORK):"
  plain=() rec=() perfs=() perfw=() plainw=() rates=()
  PERF_OK=0
  if command -v perf >/dev/null 2>&1 &&
     perf record -q -F 999 -g -o "$OUT/perf-probe.data" -- true >/dev/null 2>&1; then
    PERF_OK=1
  fi
  now_ns () { date +%s%N; }
  cpu_of () { sed -n 's/^cpu //p' | tail -1; }
  for ((i = 0; i < RUNS; i++)); do
    t0=$(now_ns); plain+=("$("$QUICK" work "$WORK" | cpu_of)"); t1=$(now_ns)
    plainw+=("$(calc "%.4f" "($t1 - $t0) / 1e9")")
    rec+=("$("$CLI" record -F 999 -o "$OUT/record.speedscope.json" -- "$QUICK" work "$WORK" 2> "$OUT/record.log" | cpu_of)")
    rates+=("$(sed -n 's/.*, \([0-9.]*\) samples per CPU-second.*/\1/p' "$OUT/record.log")")
    if [[ $PERF_OK == 1 ]]; then
      t0=$(now_ns)
      perfs+=("$(perf record -q -F 999 -g -o "$OUT/perf.data" -- "$QUICK" work "$WORK" 2>/dev/null | cpu_of)")
      t1=$(now_ns)
      perfw+=("$(calc "%.4f" "($t1 - $t0) / 1e9")")
    fi
  done
  median () { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
  P=$(median "${plain[@]}")
  PW=$(median "${plainw[@]}")
  R=$(median "${rec[@]}")
  RATE=$(median "${rates[@]}")
  SLOW=$(calc "%.2f" "($R / $P - 1) * 100")
  V_REC=$(verdict "$SLOW < 5")
  {
    echo "Recording overhead, capture-quick work $WORK (CPU seconds of the program; median of $RUNS):"
    printf '  %-32s %8.3f s CPU  (wall %.3f s)\n' "unprofiled" "$P" "$PW"
    printf '  %-32s %8.3f s CPU  %+6.2f %%  %s samples per CPU-second  (target < 5 %%: %s)\n' \
      "flamediff-cli record -F 999" "$R" "$SLOW" "$RATE" "$V_REC"
    if [[ $PERF_OK == 1 ]]; then
      PF=$(median "${perfs[@]}")
      PFW=$(median "${perfw[@]}")
      printf '  %-32s %8.3f s CPU  %+6.2f %%  (wall %.3f s, including perf'"'"'s own start and write-out)\n' \
        "perf record -F 999 -g" "$PF" "$(calc "%.2f" "($PF / $P - 1) * 100")" "$PFW"
    else
      echo "  perf record -F 999 -g: not permitted here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo ?)) or perf missing"
    fi
  } | tee -a "$RESULTS"
fi

# ---- memory recording overhead: millions of small allocations ----
# Two programs, alone and under `flamediff-cli record --memory` at the
# default sampling mean (512 KiB); CPU seconds of the program, median of
# $BENCH_RUNS interleaved runs:
# - `capture-memory --bench-words W`: W million words counted in a chained
#   hash table, each word a malloc'd string (freed when already known),
#   new words in malloc'd nodes, the table grown with calloc (about 1.3
#   allocations per word between hashing and comparing: a tokenizer or a
#   symbol table). What allocation-heavy programs do; target: at most
#   30 % slower.
# - `capture-memory --bench M`: M million malloc/free pairs of 16-256
#   bytes and nothing else (glibc's tcache: a few ns each). The worst case
#   for an interposed allocator, shown without a target.
MEMW=$BUILDDIR/tests/capture-workloads/capture-memory
MEMWORK=${BENCH_MEM_M:-20}
MEMWORDS=${BENCH_MEM_WORDS:-5}
if [[ -x $MEMW ]]; then
  echo
  echo "Memory recording overhead ($RUNS runs each, median; capture-memory --bench-words $MEMWORDS, --bench $MEMWORK):"
  wplain=() wrec=() mplain=() mrec=()
  for ((i = 0; i < RUNS; i++)); do
    wplain+=("$("$MEMW" --bench-words "$MEMWORDS" | sed -n 's/^cpu //p')")
    wrec+=("$("$CLI" record --memory -o "$OUT/memory-words.speedscope.json" -- "$MEMW" --bench-words "$MEMWORDS" 2> "$OUT/memory-words-record.log" | sed -n 's/^cpu //p')")
    mplain+=("$("$MEMW" --bench "$MEMWORK" | sed -n 's/^cpu //p')")
    mrec+=("$("$CLI" record --memory -o "$OUT/memory.speedscope.json" -- "$MEMW" --bench "$MEMWORK" 2> "$OUT/memory-record.log" | sed -n 's/^cpu //p')")
  done
  median () { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
  WP=$(median "${wplain[@]}")
  WR=$(median "${wrec[@]}")
  WSLOW=$(calc "%.2f" "($WR / $WP - 1) * 100")
  MP=$(median "${mplain[@]}")
  MR=$(median "${mrec[@]}")
  MSLOW=$(calc "%.2f" "($MR / $MP - 1) * 100")
  {
    echo "Memory recording overhead (CPU seconds of the program; median of $RUNS; load $(cut -d' ' -f1-3 /proc/loadavg)):"
    echo "  capture-memory --bench-words $MEMWORDS (${MEMWORDS} million words in a hash table):"
    printf '    %-38s %8.3f s CPU\n' "unprofiled" "$WP"
    printf '    %-38s %8.3f s CPU  %+6.2f %%  (target <= 30 %%: %s)\n' \
      "flamediff-cli record --memory" "$WR" "$WSLOW" "$(verdict "$WSLOW <= 30")"
    echo "  capture-memory --bench $MEMWORK (${MEMWORK} million malloc/free pairs, nothing else: the worst case):"
    printf '    %-38s %8.3f s CPU\n' "unprofiled" "$MP"
    printf '    %-38s %8.3f s CPU  %+6.2f %%  (no target)\n' \
      "flamediff-cli record --memory" "$MR" "$MSLOW"
  } | tee -a "$RESULTS"
fi

# Python: tests/capture-workloads/py-bench.py (pure Python, a few frames
# deep) under the system's python3, alone and under `flamediff-cli record
# -F 999`, which reads its frame chain at every sample. CPU seconds of
# the program (time.process_time), median of $BENCH_RUNS interleaved runs.
# BENCH_PYTHON names another interpreter (a CPython build of one's own).
PY=${BENCH_PYTHON:-/usr/bin/python3}
PYWORK=${BENCH_PY_ROUNDS:-1500}
if [[ -x $PY ]]; then
  echo
  echo "Python recording overhead ($RUNS runs each, median; py-bench.py $PYWORK):"
  pyplain=() pyrec=() pynat=() pyhandler=()
  for ((i = 0; i < RUNS; i++)); do
    pyplain+=("$("$PY" "$SRCDIR/tests/capture-workloads/py-bench.py" "$PYWORK" | sed -n 's/^cpu //p')")
    pyrec+=("$("$CLI" record -F 999 -e FLAMEDIFF_SAMPLER_SELF_TIME=1 -o "$OUT/py-record.speedscope.json" -- "$PY" "$SRCDIR/tests/capture-workloads/py-bench.py" "$PYWORK" 2> "$OUT/py-record.log" | sed -n 's/^cpu //p')")
    # the sampler's own account of its handler (CPU time inside it)
    pyhandler+=("$(sed -n 's/.*sampler handler: \([0-9.]*\) ms of CPU.*/\1/p' "$OUT/py-record.log" | head -1)")
    pynat+=("$("$CLI" record -F 999 -e FLAMEDIFF_SAMPLER_PYTHON=0 -o "$OUT/py-native.speedscope.json" -- "$PY" "$SRCDIR/tests/capture-workloads/py-bench.py" "$PYWORK" 2>/dev/null | sed -n 's/^cpu //p')")
  done
  median () { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
  PP=$(median "${pyplain[@]}")
  PR=$(median "${pyrec[@]}")
  PN=$(median "${pynat[@]}")
  PSLOW=$(calc "%.2f" "($PR / $PP - 1) * 100")
  PH=$(median "${pyhandler[@]}")
  {
    echo "Python recording overhead, py-bench.py $PYWORK (CPU seconds of the program; median of $RUNS):"
    printf '  %-40s %8.3f s CPU\n' "unprofiled" "$PP"
    printf '  %-40s %8.3f s CPU  %+6.2f %%  (target < 5 %%: %s)\n' \
      "flamediff-cli record -F 999 (Python)" "$PR" "$PSLOW" "$(verdict "$PSLOW < 5")"
    printf '  %-40s %8.3f s CPU  %+6.2f %%\n' \
      "same, native stacks only" "$PN" "$(calc "%.2f" "($PN / $PP - 1) * 100")"
    # CPU time is noisy on a shared machine; the handler's own time is not
    printf '  %-40s %8.1f ms CPU = %.2f %% of the unprofiled run\n' \
      "in the SIGPROF handler (Python)" "$PH" "$(calc "%.2f" "$PH / 10 / $PP")"
  } | tee -a "$RESULTS"
fi

# ---- JSON formats: ~200 MB files of each JSON shape we read ----
# (tools/bench-json-gen.py, deterministic: a sampled and an evented
# speedscope file, a .cpuprofile, a Chrome trace), `flamediff-cli info`
# against node's JSON.parse of the same file when node is installed.
# Targets (issue 17): >= 1.5x node's speed, peak RSS <= 2x the file size.
T_JSON_NODE=1.5 T_JSON_RSS=2
echo
echo "JSON formats (targets: >= ${T_JSON_NODE}x node's JSON.parse, peak RSS <= ${T_JSON_RSS}x file)"
for kind in speedscope speedscope-evented cpuprofile chrome; do
  f=$OUT/big-$kind.json
  [[ -f $f ]] || python3 "$SRCDIR/tools/bench-json-gen.py" "$kind" "$f" 200
  bytes=$(size "$f")
  warm "$f"
  measure "info $(basename "$f")" "$bytes" "$CLI" info "$f"
  ours=$M_MED ours_rss=$M_RSS
  printf '    peak RSS %s MB = %.2f x file size\n' "$((M_RSS / 1024))" "$(calc "%.2f" "$M_RSS * 1024 / $bytes")"
  if command -v node > /dev/null; then
    measure "node JSON.parse $(basename "$f")" "$bytes" node -e \
      "JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'))" "$f"
    printf '    peak RSS %s MB = %.2f x file size\n' "$((M_RSS / 1024))" "$(calc "%.2f" "$M_RSS * 1024 / $bytes")"
    r=$(calc "%.2f" "$M_MED / $ours")
    printf '    ours %sx node (target >= %s: %s), RSS (target <= %sx file: %s)\n' "$r" "$T_JSON_NODE" \
      "$(verdict "$r >= $T_JSON_NODE")" "$T_JSON_RSS" "$(verdict "$ours_rss * 1024 <= $T_JSON_RSS * $bytes")"
  else
    echo "    node: not installed, ratio SKIPPED"
  fi
done

# ---- scale (issue 17): a harder folded pair per output format, the
# parallel-load ratio, difffolded.pl, JSON vs node (tools/bench-scale.sh) ----
echo
"$SRCDIR/tools/bench-scale.sh" "$BUILDDIR"

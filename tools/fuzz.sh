#!/usr/bin/env bash
# tools/fuzz.sh [--grow] [SECONDS] [HARNESS...]: builds the libFuzzer
# harnesses with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# into _build-fuzz (override with FUZZ_BUILDDIR) and runs each for SECONDS
# (default 60), FUZZ_JOBS at a time (default: the number of cores).
#
# Starting points: the harness's corpus in the repository,
# tests/fuzz/corpus/NAME/ (inputs earlier runs found, minimized), and its
# seed directories (tests/fuzz/meson.build, written to
# BUILDDIR/tests/fuzz/fuzz-NAME.seeds), all copied into a temporary
# directory, gzip'd seeds gunzipped (the per-loader harnesses read raw
# bytes), files over 1 MiB left out. So every run, CI's included, goes on
# from where the runs kept in the repository stopped instead of starting
# over from the seeds.
#
# --grow: after the run, merges what it found into tests/fuzz/corpus/NAME
# and re-minimizes it (libFuzzer -merge=1 into an empty directory that
# holds the seeds first, so only inputs adding coverage beyond the seeds
# are kept, and the seeds, files of other projects, never are). Commit the
# result; `du -sh tests/fuzz/corpus` should stay a few MB (candidates are
# cut to FUZZ_CORPUS_MAX_LEN bytes, default 4096; the script warns past
# 1 MiB for one harness). Run one harness at a time on a shared
# machine: FUZZ_JOBS=1 nice tools/fuzz.sh --grow 600 perf
#
# Without --grow nothing is written into the repository or the shared
# corpus; new inputs stay in the temporary directory and are deleted,
# unless FUZZ_KEEP=DIR names a place for them.
# FUZZ_SEED=N fixes libFuzzer's random seed (CI uses one, so that a run
# explores the same inputs as the runs before it did).
# Crashes, leaks, timeouts and OOMs land in BUILDDIR/fuzz-artifacts and
# fail the run: copy them into tests/fuzz/regressions/NAME/ and fix them.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_GROW=
if [ "${1:-}" = --grow ]; then
  FUZZ_GROW=1
  shift
fi
SECONDS_EACH=${1:-60}
shift || true
BUILDDIR=${FUZZ_BUILDDIR:-_build-fuzz}
JOBS=${FUZZ_JOBS:-$(nproc)}

if [ ! -f "$BUILDDIR/build.ninja" ]; then
  CC=clang meson setup "$BUILDDIR" -Dfuzzing=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
fi
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in "$BUILDDIR"/tests/fuzz/fuzz-*.seeds; do
    n=$(basename "$f" .seeds)
    harnesses+=("${n#fuzz-}")
  done
fi

# Only the harnesses: the other programs of a fuzzing build link the
# instrumented core without the fuzzer runtime.
targets=()
for h in "${harnesses[@]}"; do
  targets+=("tests/fuzz/fuzz-$h")
done
if ! ninja -C "$BUILDDIR" "${targets[@]}" > "$BUILDDIR/fuzz-build.log" 2>&1; then
  tail -40 "$BUILDDIR/fuzz-build.log"
  exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ARTIFACTS=$BUILDDIR/fuzz-artifacts
mkdir -p "$ARTIFACTS"

# copies the seeds of harness $1 into $2 (named seed-N)
copy_seeds () {
  local name=$1 dir=$2
  local i=0
  while IFS= read -r seed; do
    [ -n "$seed" ] && [ -e "$seed" ] || continue
    while IFS= read -r -d '' f; do
      i=$((i + 1))
      if [ "$(head -c2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ] && [ "$name" != load ]; then
        gzip -dc "$f" > "$dir/seed-$i" 2>/dev/null || cp "$f" "$dir/seed-$i"
      else
        cp "$f" "$dir/seed-$i"
      fi
    done < <(find "$seed" -type f -size -1024k -print0)
  done < "$BUILDDIR/tests/fuzz/fuzz-$name.seeds"
}

prepare_seeds () {
  local name=$1 dir=$WORK/$1
  mkdir -p "$dir"
  copy_seeds "$name" "$dir"
  if [ -d "tests/fuzz/corpus/$name" ]; then
    cp tests/fuzz/corpus/"$name"/* "$dir/" 2>/dev/null || true
  fi
  echo "$dir"
}

# merges the run's inputs in $2 into tests/fuzz/corpus/$1, minimized.
# Candidates are cut to FUZZ_CORPUS_MAX_LEN bytes (default 4 KiB) so that
# the repository's corpus stays small; the cut inputs are kept only if
# they still add coverage. The seeds are never candidates.
grow_corpus () {
  local name=$1 dir=$2 out=$WORK/$1.merged cand=$WORK/$1.candidates
  local max=${FUZZ_CORPUS_MAX_LEN:-4096} f
  mkdir -p "$out" "$cand"
  copy_seeds "$name" "$out"
  for f in "$dir"/*; do
    case $(basename "$f") in seed-*) continue ;; esac
    head -c "$max" "$f" > "$cand/$(basename "$f")"
  done
  if ! "$BUILDDIR/tests/fuzz/fuzz-$name" -merge=1 -max_len=65536 -timeout=10 \
       -rss_limit_mb=2560 "$out" "$cand" >"$WORK/$name.merge.log" 2>&1; then
    echo "fuzz-$name: merge FAILED"
    tail -20 "$WORK/$name.merge.log"
    return 1
  fi
  rm -f "$out"/seed-*
  rm -rf "tests/fuzz/corpus/$name"
  mkdir -p "tests/fuzz/corpus/$name"
  cp "$out"/* "tests/fuzz/corpus/$name/" 2>/dev/null || true
  local kb
  kb=$(( $(cat "tests/fuzz/corpus/$name"/* 2>/dev/null | wc -c) / 1024 ))
  echo "fuzz-$name: tests/fuzz/corpus/$name: $(ls "tests/fuzz/corpus/$name" | wc -l) inputs, $kb KiB"
  if [ "$kb" -gt 1024 ]; then
    echo "fuzz-$name: warning: the corpus is over 1 MiB; lower -max_len or prune it"
  fi
}

run_one () {
  local name=$1 dir
  dir=$(prepare_seeds "$name")
  local log=$WORK/$name.log
  local start=$SECONDS
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$BUILDDIR/tests/fuzz/fuzz-$name" "$dir" \
       -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
       -rss_limit_mb=2560 -print_final_stats=1 \
       -artifact_prefix="$ARTIFACTS/$name-" >"$log" 2>&1; then
    local execs
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "fuzz-$name: ok, ${execs:-?} runs in $((SECONDS - start)) s, $(ls "$dir" | wc -l) inputs in the corpus"
    if [ -n "${FUZZ_KEEP:-}" ]; then
      mkdir -p "$FUZZ_KEEP/$name" && cp "$dir"/* "$FUZZ_KEEP/$name/" 2>/dev/null || true
    fi
    if [ -n "$FUZZ_GROW" ]; then
      grow_corpus "$name" "$dir"
    fi
  else
    echo "fuzz-$name: FAILED (artifacts in $ARTIFACTS)"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -20
    tail -40 "$log"
    return 1
  fi
}
export -f run_one prepare_seeds copy_seeds grow_corpus
export BUILDDIR WORK ARTIFACTS SECONDS_EACH FUZZ_KEEP FUZZ_SEED FUZZ_GROW FUZZ_CORPUS_MAX_LEN

printf '%s\n' "${harnesses[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one "$@"' _ {}

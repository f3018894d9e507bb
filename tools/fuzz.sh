#!/usr/bin/env bash
# tools/fuzz.sh [SECONDS] [HARNESS...]: builds the libFuzzer harnesses
# with clang, AddressSanitizer and UndefinedBehaviorSanitizer into
# _build-fuzz (override with FUZZ_BUILDDIR) and runs each for SECONDS
# (default 60), FUZZ_JOBS at a time (default: the number of cores).
#
# Seeds: each harness's seed directories (tests/fuzz/meson.build, written
# to BUILDDIR/tests/fuzz/fuzz-NAME.seeds) are copied into a temporary
# directory, gzip'd files gunzipped (the per-loader harnesses read raw
# bytes), files over 1 MiB left out. Nothing is written into the
# repository or the shared corpus; new inputs stay in the temporary
# directory and are deleted, unless FUZZ_KEEP=DIR names a place for them.
# FUZZ_SEED=N fixes libFuzzer's random seed (CI uses one, so that a run
# explores the same inputs as the runs before it did).
# Crashes, leaks, timeouts and OOMs land in BUILDDIR/fuzz-artifacts and
# fail the run: copy them into tests/fuzz/regressions/NAME/ and fix them.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail
cd "$(dirname "$0")/.."

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

prepare_seeds () {
  local name=$1 dir=$WORK/$1
  mkdir -p "$dir"
  local i=0
  while IFS= read -r seed; do
    [ -n "$seed" ] && [ -e "$seed" ] || continue
    while IFS= read -r -d '' f; do
      i=$((i + 1))
      if [ "$(head -c2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ] && [ "$name" != load ]; then
        gzip -dc "$f" > "$dir/$i" 2>/dev/null || cp "$f" "$dir/$i"
      else
        cp "$f" "$dir/$i"
      fi
    done < <(find "$seed" -type f -size -1024k -print0)
  done < "$BUILDDIR/tests/fuzz/fuzz-$name.seeds"
  echo "$dir"
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
  else
    echo "fuzz-$name: FAILED (artifacts in $ARTIFACTS)"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -20
    tail -40 "$log"
    return 1
  fi
}
export -f run_one prepare_seeds
export BUILDDIR WORK ARTIFACTS SECONDS_EACH FUZZ_KEEP FUZZ_SEED

printf '%s\n' "${harnesses[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one "$@"' _ {}

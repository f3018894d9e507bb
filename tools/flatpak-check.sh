#!/usr/bin/env bash
# tools/flatpak-check.sh [WORKDIR]: builds, installs and runs the Flatpak
# (flatpak/io.github.flamediff.Flamediff.json) against a stand-in for the
# GNOME 51 runtime, and fails when any step fails.
#
# - ../shared/tools/flatpak-standin-runtime WORKDIR makes the stand-in
#   runtime and SDK from Debian unstable packages (GTK 4.24, libadwaita
#   1.10, as GNOME 51 has) and installs them into the user installation
#   FLATPAK_USER_DIR=WORKDIR/flatpak-user (nothing else on the machine is
#   touched). Reused when already installed there, unless
#   FLATPAK_CHECK_NEW_RUNTIME=1.
# - tools/flatpak-standin-manifest.py derives WORKDIR/standin.json from the
#   real manifest: the runtime and sdk ids switched, "appstream-compose":
#   false, local paths made absolute; `flatpak-builder --user --install`
#   builds and installs it.
# - Under Xvfb (../shared/tools/screenshot): the app's start page, then the
#   bundled example pair (/app/share/flamediff/examples) as a comparison;
#   screenshots in WORKDIR/screenshots, checked on pixels of the colours
#   test-window checks; GTK criticals and size-allocation warnings of the
#   app fail the check, its other warnings are printed.
# - flamediff-cli compare inside the sandbox on files granted with
#   --filesystem, and the same failing without the grant.
# - Record and Diff inside the sandbox: flamediff-cli record of
#   tests/capture-workloads/two-threads.c (built here) twice, warm_a three
#   times slower the second time, then compare: the recorded function
#   names and files, warm_a a regression, hot_a unchanged.
# - Memory of a program on the host: tests/capture-workloads/memory.c built
#   as /usr/local/bin/fd-check-memory (only the host has it), recorded by
#   flamediff-cli record --memory in the sandbox with
#   --talk-name=org.freedesktop.Flatpak and --filesystem=host-os:ro: it
#   runs through flatpak-spawn --host with the host build of the memory
#   sampler; its functions' shares of the 48 MiB within 5 points, the
#   peak within 10 %. The stand-in runtime has no flatpak-spawn (GNOME's
#   has): the host's (Debian flatpak-xdg-utils) is put on the sandbox's
#   PATH. Skipped, visibly, when the sandbox cannot start host commands.
#
# WORKDIR defaults to _build/flatpak-check (FLATPAK_CHECK_DIR overrides);
# it takes about 4 GB. Needs root (the stand-in runtime is made in
# chroots); without root or without ../shared/tools it skips, visibly.
# Logs of each step are in WORKDIR/logs.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
APP=io.github.flamediff.Flamediff
W=$(realpath -m "${1:-${FLATPAK_CHECK_DIR:-_build/flatpak-check}}")
tools=$(realpath -m ../shared/tools)

for t in flatpak-standin-runtime screenshot; do
  if [[ ! -x $tools/$t ]]; then
    echo "flatpak-check: SKIP: $tools/$t not found (it comes with ../shared beside the source)"
    exit 0
  fi
done
if [[ $(id -u) != 0 ]]; then
  echo "flatpak-check: SKIP: needs root (the stand-in runtime is made in chroots)"
  exit 0
fi

make -s deps DEBIAN_PACKAGES="flatpak flatpak-builder flatpak-xdg-utils elfutils xvfb xauth imagemagick dbus gcc python3"

mkdir -p "$W/logs" "$W/screenshots"
export FLATPAK_USER_DIR=$W/flatpak-user
export GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
logs=$W/logs
shots=$W/screenshots

# the stand-in tool binds /proc and /dev into its chroots: undo that, so
# that removing WORKDIR (or the build directory around it) stays harmless
unbind() {
  for r in "$W/sdkroot" "$W/platroot"; do
    for m in dev proc; do
      if mountpoint -q "$r/$m" 2>/dev/null; then umount "$r/$m" || umount -l "$r/$m"; fi
    done
  done
}
host_prog=/usr/local/bin/fd-check-memory
cleanup() {
  rm -f "$host_prog"
  unbind
}
trap cleanup EXIT

step_start=$SECONDS
step() {
  echo "flatpak-check: $1 ($((SECONDS - step_start)) s)"
  step_start=$SECONDS
}
fail() {
  echo "flatpak-check: FAIL: $*" >&2
  exit 1
}

# --- the stand-in GNOME 51 runtime and SDK
if [[ ${FLATPAK_CHECK_NEW_RUNTIME:-0} != 1 ]] &&
   flatpak info --user org.flamediff.StandinPlatform//51 >/dev/null 2>&1 &&
   flatpak info --user org.flamediff.StandinSdk//51 >/dev/null 2>&1; then
  echo "flatpak-check: reusing the stand-in runtime in $FLATPAK_USER_DIR (FLATPAK_CHECK_NEW_RUNTIME=1 remakes it)"
else
  "$tools/flatpak-standin-runtime" "$W" >"$logs/runtime.log" 2>&1 ||
    { tail -n 30 "$logs/runtime.log" >&2; fail "making the stand-in runtime, see $logs/runtime.log"; }
fi
unbind
step "stand-in runtime org.flamediff.StandinPlatform//51 and SDK installed"

# --- build and install the app from the real manifest, runtime switched
python3 tools/flatpak-standin-manifest.py flatpak/$APP.json "$W/standin.json"
flatpak-builder --user --install --force-clean --disable-rofiles-fuse \
    --state-dir="$W/builder-state" "$W/app" "$W/standin.json" >"$logs/build.log" 2>&1 ||
  { tail -n 40 "$logs/build.log" >&2; fail "flatpak-builder, see $logs/build.log"; }
flatpak info --user "$APP" >/dev/null || fail "$APP is not installed after flatpak-builder --install"
step "flatpak-builder built and installed $APP"

# --- the application under Xvfb
# count_colours PNG RRGGBB...: how many pixels have each colour exactly
count_colours() {
  local png=$1; shift
  convert "$png" -depth 8 rgb:- | python3 -c '
import collections, sys
data = sys.stdin.buffer.read()
counts = collections.Counter(data[i:i + 3] for i in range(0, len(data) - 2, 3))
print(" ".join(str(counts[bytes.fromhex(c)]) for c in sys.argv[1:]))' "$@"
}
# app_warnings LOG: fails on the app's GTK criticals and negative size
# allocations, prints its other warnings (the sandbox's portal and D-Bus
# services are noisy without a desktop; those lines are not the app's)
app_warnings() {
  local bad
  grep -E '^\(flamediff:[0-9]+\): [A-Za-z-]+-(WARNING|CRITICAL)' "$1" | sed 's/^/flatpak-check: app: /' || true
  bad=$(grep -cE '^\(flamediff:[0-9]+\): .*(CRITICAL|gtk_widget_size_allocate)' "$1" || true)
  [[ $bad == 0 ]] || fail "$bad critical or size-allocation messages from the app, see $1"
}
screenshot() { # screenshot NAME SECONDS ARG...: the app in Xvfb
  local name=$1 wait_s=$2; shift 2
  "$tools/screenshot" "$shots/$name.png" "$wait_s" -- dbus-run-session -- \
      flatpak run "$APP" "$@" >"$logs/$name.log" 2>&1 ||
    { tail -n 20 "$logs/$name.log" >&2; fail "the app in Xvfb ($name), see $logs/$name.log"; }
  app_warnings "$logs/$name.log"
}
# top_colours PNG: the five commonest colours, to tell a blank screen
# (the window not mapped yet) from a window drawn in other colours
top_colours() {
  convert "$1" -depth 8 rgb:- | python3 -c '
import collections, sys
data = sys.stdin.buffer.read()
counts = collections.Counter(data[i:i + 3] for i in range(0, len(data) - 2, 3))
print(", ".join(f"#{c.hex()} {n}" for c, n in counts.most_common(5)))'
}
# shot_until NAME CHECK ARG...: screenshots of the app after 8, 20 and 45 s
# (FLATPAK_CHECK_WAITS; a new launch each time) until CHECK NAME accepts one. The first launch
# in a new installation, or on a loaded CI machine, can take longer than
# the window needs on a warm one; a check that still fails after 45 s is
# a failure, with what the screen showed.
shot_until() {
  local name=$1 check=$2 wait_s; shift 2
  for wait_s in ${FLATPAK_CHECK_WAITS:-8 20 45}; do
    screenshot "$name" "$wait_s" "$@"
    if "$check" "$name"; then return 0; fi
    echo "flatpak-check: $name after $wait_s s: commonest colours $(top_colours "$shots/$name.png")"
  done
  tail -n 20 "$logs/$name.log" >&2
  return 1
}

# the start page: the suggested button in the accent colour, the app's
# icon (its red), no graph
start_ok() {
  local accent icon_red graph
  read -r accent icon_red graph <<<"$(count_colours "$shots/$1.png" 3584e4 e01b24 e57373)"
  echo "flatpak-check: start page: $accent accent, $icon_red icon-red, $graph graph pixels"
  ((accent > 2000 && icon_red > 200 && graph == 0))
}
shot_until start start_ok || fail "the start page does not look right: $shots/start.png"

# the bundled example as a comparison: the graph in the diff palette, the
# same colours and thresholds as test-window's /window/compare-example
comparison_ok() {
  local regression new
  read -r regression new <<<"$(count_colours "$shots/$1.png" e57373 9575cd)"
  echo "flatpak-check: comparison: $regression medium-regression, $new new pixels"
  ((regression > 100 && new > 20))
}
shot_until comparison comparison_ok \
    /app/share/flamediff/examples/baseline.folded /app/share/flamediff/examples/current.folded ||
  fail "the comparison does not look right: $shots/comparison.png"
step "the app ran: start page and comparison rendered, screenshots in $shots"

# --- flamediff-cli inside the sandbox, with and without access to the files
files=$W/cli
rm -rf "$files"; mkdir -p "$files"
cp data/examples/baseline.folded data/examples/current.folded "$files/"
cli() { flatpak run --command=flamediff-cli "$@"; }
cli --filesystem="$files":ro "$APP" compare --format json \
    "$files/baseline.folded" "$files/current.folded" >"$logs/cli-compare.json" 2>"$logs/cli-compare.log" ||
  fail "flamediff-cli compare with --filesystem, see $logs/cli-compare.log"
python3 - "$logs/cli-compare.json" <<'EOF' || fail "flamediff-cli compare: unexpected report, see $logs/cli-compare.json"
import json, sys
status = {f['name']: f['status'] for f in json.load(open(sys.argv[1]))['functions']}
expect = {'convolve_row': 'regression', 'bilinear_sample': 'improvement', 'rgb_to_ycc_avx2': 'new'}
wrong = {n: status.get(n) for n, s in expect.items() if status.get(n) != s}
if wrong:
    sys.exit(f'expected {expect}, got {wrong}')
EOF
if cli "$APP" compare "$files/baseline.folded" "$files/current.folded" >/dev/null 2>"$logs/cli-denied.log"; then
  fail "flamediff-cli read host files without --filesystem"
fi
grep -q "No such file" "$logs/cli-denied.log" || fail "flamediff-cli without --filesystem: unexpected error, see $logs/cli-denied.log"
step "flamediff-cli compare: granted files compared, ungranted ones refused"

# --- Record and Diff inside the sandbox
rec=$W/record
rm -rf "$rec"; mkdir -p "$rec"
cc -O2 -g -fomit-frame-pointer -pthread tests/capture-workloads/two-threads.c -o "$rec/two-threads"
for run in "base 1" "cur 3"; do
  set -- $run
  cli --filesystem="$rec" "$APP" record -o "$rec/$1.json" -- "$rec/two-threads" 1.0 "$2" one \
      >"$logs/record-$1.log" 2>&1 || fail "flamediff-cli record in the sandbox, see $logs/record-$1.log"
done
cli --filesystem="$rec":ro "$APP" compare "$rec/base.json" "$rec/cur.json" --format json \
    --normalize none --metric total --threshold-pct 25 >"$logs/record-compare.json" 2>"$logs/record-compare.log" ||
  fail "flamediff-cli compare of the recordings, see $logs/record-compare.log"
python3 - "$logs/record-compare.json" <<'EOF' || fail "Record and Diff: unexpected report, see $logs/record-compare.json"
import json, sys
functions = {f['name']: f for f in json.load(open(sys.argv[1]))['functions']}
missing = [n for n in ('thread_a', 'hot_a', 'warm_a', 'spin') if n not in functions]
if missing:
    sys.exit(f'functions not recorded by name: {missing}; recorded: {sorted(functions)}')
for n in ('hot_a', 'warm_a', 'spin'):
    if not str(functions[n].get('file', '')).endswith('two-threads.c'):
        sys.exit(f'{n}: file {functions[n].get("file")!r}, not two-threads.c')
status = {n: functions[n]['status'] for n in ('hot_a', 'warm_a')}
print(f'flatpak-check: recorded warm_a {functions["warm_a"]["delta_pct"]:+.0f} %, '
      f'hot_a {functions["hot_a"]["delta_pct"]:+.0f} %')
if status != {'hot_a': 'unchanged', 'warm_a': 'regression'}:
    sys.exit(f'expected warm_a a regression and hot_a unchanged, got {status}')
EOF
step "Record and Diff in the sandbox: function names and the regression right"

# --- Memory of a program on the host, recorded from the sandbox
cc -O2 -g -D_GNU_SOURCE -pthread tests/capture-workloads/memory.c -o "$host_prog"
spawn_bin=$W/spawn-bin
rm -rf "$spawn_bin"; mkdir -p "$spawn_bin"
host_spawn=/usr/libexec/flatpak-xdg-utils/flatpak-spawn
[[ -x $host_spawn ]] && cp "$host_spawn" "$spawn_bin/"
# the sampler goes to $XDG_RUNTIME_DIR/app/$APP, which the sandbox and the
# host must both see under one path: a real runtime directory
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/run/user/$(id -u)}
mkdir -p "$XDG_RUNTIME_DIR"; chmod 0700 "$XDG_RUNTIME_DIR"
host_run() { # host_run COMMAND ARG...: COMMAND in the sandbox, allowed to start host programs
  local command=$1; shift
  dbus-run-session -- flatpak run --talk-name=org.freedesktop.Flatpak --filesystem=host-os:ro \
      --filesystem="$rec" --filesystem="$spawn_bin":ro --env=PATH="/app/bin:/usr/bin:$spawn_bin" \
      --command="$command" "$APP" "$@"
}
if [[ ! -x $host_spawn ]]; then
  echo "flatpak-check: SKIP memory of a host program: no $host_spawn (flatpak-xdg-utils)"
elif ! host_run flatpak-spawn --host --directory="$rec" true >"$logs/host-probe.log" 2>&1; then
  tail -n 5 "$logs/host-probe.log"
  echo "flatpak-check: SKIP memory of a host program: flatpak-spawn --host does not work here, see $logs/host-probe.log"
else
  host_run flamediff-cli record --memory --memory-mean=16384 --cwd "$rec" -o "$rec/host-memory.json" \
      -- fd-check-memory >"$logs/record-host-memory.log" 2>&1 ||
    fail "flamediff-cli record --memory of a host program, see $logs/record-host-memory.log"
  python3 - "$rec/host-memory.json" <<'EOF' || fail "memory of a host program: unexpected recording, see $rec/host-memory.json"
import json, sys
d = json.load(open(sys.argv[1]))
meta = d['flamediff']['metadata']
names = [f['name'] for f in d['shared']['frames']]
if '/libflamediff-sampler-memory-host.so=' not in meta.get('build_ids', ''):
    sys.exit(f'not recorded with the host memory sampler: {meta.get("build_ids")}')
prof = next(p for p in d['profiles'] if p['name'] == 'allocated')
total = sum(prof['weights'])
share = {}
for stack, w in zip(prof['samples'], prof['weights']):
    for n in {names[i] for i in stack}:
        share[n] = share.get(n, 0) + 100 * w / total
mib = 1024 * 1024
peak = int(meta['memory_peak_bytes']) / mib
print(f'flatpak-check: host memory: {int(meta["memory_allocated_bytes"]) / mib:.1f} MiB allocated, '
      f'peak {peak:.2f} MiB; ' + ', '.join(f'{n} {share.get(n, 0):.1f} %' for n in ('alloc_30', 'alloc_10', 'keep_8')))
want = {'alloc_30': 100 * 30 / 48, 'alloc_10': 100 * 10 / 48, 'keep_8': 100 * 8 / 48}
wrong = {n: round(share.get(n, 0), 1) for n, p in want.items() if abs(share.get(n, 0) - p) > 5}
if wrong:
    sys.exit(f'shares off by more than 5 points: {wrong}, expected {want}')
if abs(peak - 8) > 0.8:
    sys.exit(f'peak {peak:.2f} MiB, expected 8 MiB within 10 %')
EOF
  step "memory of a host program recorded from the sandbox: the host sampler, shares and peak right"
fi
echo "flatpak-check: OK"

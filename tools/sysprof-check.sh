#!/usr/bin/env bash
# tools/sysprof-check.sh [BUILDDIR]
#
# Real Sysprof 51 captures, recorded here with sysprof-cli in a Debian
# sid chroot (../shared/tools/debian-chroot; the chroot of
# tools/test-runtimes-chroot.sh, $FLAMEDIFF_RUNTIMES_CHROOT, with sysprof
# added), read by this build's flamediff-cli (tools/check-sysprof.py):
#  - CPU: tests/capture-workloads' two-threads (thread A: hot_a, warm_a;
#    thread B: hot_b → qsort → cmp_b), sampled by Sysprof through perf's
#    software clock: each thread's share of the samples within sampling
#    error of what the workload measured (FLAMEDIFF_TRUTH), and the
#    workload's functions named from the symbols Sysprof bundled.
#    Skipped, visibly, when perf events cannot be opened.
#  - Memory: `sysprof-cli --memprof` of perl making 20 000 strings of
#    1000 bytes: at least 20 000 allocations and 20 000 000 bytes.
# Exit 77 (skipped, the reason on stderr) without root, the chroot tool
# or a mirror; anything else non-zero is a failure.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/_build}")
dir=${FLAMEDIFF_RUNTIMES_CHROOT:-/var/tmp/flamediff-runtimes-sid}
tool=${FLAMEDIFF_DEBIAN_CHROOT:-$src/../shared/tools/debian-chroot}
cli=$build/src/cli/flamediff-cli
skip () { echo "SKIP: sysprof-check: $*" >&2; exit 77; }

[[ $(id -u) == 0 ]] || skip "needs root"
[[ -x $cli ]] || skip "no $cli"
[[ -x $tool ]] || skip "no $tool"
"$tool" sid "$dir" sysprof perl-base >"$dir.sysprof.log" 2>&1 || skip "$tool could not make $dir with sysprof"
[[ -x $dir/usr/bin/sysprof-cli ]] || skip "no sysprof-cli in $dir"

mounts=()
cleanup () { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" || true; done; }
trap cleanup EXIT
# perf finds its event sources in /sys
for m in /proc /dev /sys; do
  mkdir -p "$dir$m"
  if ! mountpoint -q "$dir$m"; then mount --bind "$m" "$dir$m"; mounts+=("$dir$m"); fi
done

work=$(chroot "$dir" mktemp -d)
trap 'cleanup; rm -rf "${dir:?}$work"' EXIT
cp "$build/tests/capture-workloads/capture-two-threads" "$dir$work/two-threads"
# a clean environment: Sysprof records the command's environment
record () {
  chroot "$dir" env -i PATH=/usr/bin:/bin "$@" >>"$dir$work/sysprof-cli.log" 2>&1
}
common=(--no-sysprofd --no-battery --no-disk --no-network --no-cpu --no-memory --no-debuginfod)

# sysprof-cli failing to record is the machine's limit, not ours: a
# visible skip with its log (what flamediff-cli makes of the captures is
# what check-sysprof.py judges)
record env FLAMEDIFF_TRUTH="$work/truth.txt" timeout 120 \
  sysprof-cli "${common[@]}" -f "$work/cpu.syscap" -- "$work/two-threads" 1.5 ||
  { tail -20 "$dir$work/sysprof-cli.log" >&2; skip "sysprof-cli could not record here"; }
record timeout 120 sysprof-cli "${common[@]}" --no-perf --memprof -f "$work/mem.syscap" -- \
  perl -e 'my @a; push @a, "x" x 1000 for 1..20000; print scalar (@a), "\n"' ||
  { tail -20 "$dir$work/sysprof-cli.log" >&2; skip "sysprof-cli --memprof could not record here"; }
python3 "$src/tools/check-sysprof.py" "$cli" "$dir$work"

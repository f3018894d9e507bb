#!/usr/bin/env bash
# tools/test-runtimes-chroot.sh [--existing] [BUILDDIR]
#
# Records CPython 3.13, 3.14 and 3.15 (Debian sid's python3.13, python3.14,
# python3.15)
# with this build's flamediff-cli and sampler inside a Debian sid chroot
# made by ../shared/tools/debian-chroot, and checks with
# tools/check-shares.py that tests/capture-workloads/shares.py shows its
# functions' shares (70/30 by design, measured by the program itself)
# within 5 points, in one thread and in three, below native frames, with
# the runtime in the metadata; and that a memory recording of
# tests/capture-workloads/py-alloc.py gives its functions' allocated bytes
# (30 and 10 MiB) within 5 points, in mixed mode as well.
#
# The chroot: $FLAMEDIFF_RUNTIMES_CHROOT (default
# /var/tmp/flamediff-runtimes-sid), made or completed here unless
# --existing is given (then only used when it is there: what
# `meson test` does). Needs root (chroot, bind mounts). Exit 77 (skipped,
# with the reason on stderr) when no chroot can be had.
set -euo pipefail
existing=0
if [[ ${1:-} == --existing ]]; then existing=1; shift; fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/_build}")
dir=${FLAMEDIFF_RUNTIMES_CHROOT:-/var/tmp/flamediff-runtimes-sid}
tool=$src/../shared/tools/debian-chroot
skip () { echo "SKIP: runtimes in a chroot: $*" >&2; exit 77; }

[[ $(id -u) == 0 ]] || skip "needs root"
[[ -x $build/src/cli/flamediff-cli ]] || skip "no $build/src/cli/flamediff-cli"
# what flamediff-cli and the sampler load, in sid's package names
pkgs=(python3.13 python3.14 python3.15 libunwind8 libdw1t64 libelf1t64 libglib2.0-0t64 libjson-glib-1.0-0
      libzstd1 libcairo2 libpango-1.0-0 libpangocairo-1.0-0)
if [[ $existing == 1 ]]; then
  [[ -x $dir/usr/bin/python3.13 ]] || skip "no chroot at $dir (tools/test-runtimes-chroot.sh makes one)"
  mountpoint -q "$dir/proc" || mount --bind /proc "$dir/proc"
  mountpoint -q "$dir/dev" || mount --bind /dev "$dir/dev"
else
  [[ -x $tool ]] || skip "no $tool"
  "$tool" sid "$dir" "${pkgs[@]}" >/dev/null || skip "$tool could not make $dir"
fi

# the source and build trees under the same paths inside
mounts=()
cleanup () { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" || true; done; }
trap cleanup EXIT
bind () {
  mkdir -p "$dir$1"
  if ! mountpoint -q "$dir$1"; then mount --bind "$1" "$dir$1"; mounts+=("$dir$1"); fi
}
bind "$src"
case $build/ in "$src"/*) ;; *) bind "$build" ;; esac

tmp=$(chroot "$dir" mktemp -d)
status=0
for py in python3.13 python3.14 python3.15; do
  if [[ ! -x $dir/usr/bin/$py ]]; then
    echo "SKIP: $py is not in the chroot" >&2
    continue
  fi
  version=$(chroot "$dir" "$py" -c 'import sys; print("CPython %d.%d" % sys.version_info[:2])')
  # 4 s alone: about 1 000 samples, so a 5-point miss is over 3.5 standard
  # deviations of the sampled share (2.5 s missed once in a loaded run)
  for threads in 0 3; do
    secs=$([[ $threads == 0 ]] && echo 4 || echo 1.5)
    out=$tmp/$py-$threads.json
    echo "== $version, shares.py with $threads threads"
    chroot "$dir" env FLAMEDIFF_SAMPLER="$build/src/sampler/libflamediff-sampler.so" \
      "$build/src/cli/flamediff-cli" record -o "$out" -- \
      "$py" "$src/tests/capture-workloads/shares.py" "$secs" "$threads" "$tmp/truth" >/dev/null
    chroot "$dir" "$py" "$src/tools/check-shares.py" "$out" "$tmp/truth" "$version" hot warm || status=1
  done
  # memory (issue 16): allocation stacks in mixed mode, Python frames
  # placed by the CFAs of the loop's frames (3.12+), big() 30 MiB and
  # small() 10 MiB of py-alloc.py
  echo "== $version, py-alloc.py, record --memory"
  out=$tmp/$py-memory.json
  printf 'truth big 30\ntruth small 10\n' >"$dir$tmp/memory-truth"
  chroot "$dir" env FLAMEDIFF_SAMPLER="$build/src/sampler/libflamediff-sampler.so" \
    "$build/src/cli/flamediff-cli" record --memory --memory-mean=16384 -o "$out" -- \
    "$py" "$src/tests/capture-workloads/py-alloc.py" >/dev/null
  chroot "$dir" "$py" "$src/tools/check-shares.py" --profile allocated "$out" "$tmp/memory-truth" \
    "$version" big small || status=1
done
rm -rf "${dir:?}$tmp"
exit $status

#!/bin/sh
# Remakes the callgrind fixtures: prog.c built and run under valgrind
# 3.19 (Debian 12) in /tmp/flamediff-callgrind (so no worktree path ends
# up in them), with two workload sizes, and what callgrind_annotate
# prints for them: the figures tests/test-callgrind.c must equal.
# callgrind_annotate runs from / so it strips no directory from names
# (it strips the current one from fl= names but not from cfi= ones).
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/flamediff-callgrind
rm -rf "$work" && mkdir -p "$work" && cp "$here/prog.c" "$work"
cd "$work"
cc -O1 -g -fno-inline -o prog prog.c
valgrind --tool=callgrind --callgrind-out-file=baseline.callgrind ./prog 1000
valgrind --tool=callgrind --callgrind-out-file=current.callgrind ./prog 1500
# several events, instruction and line positions, compressed names
valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes \
  --callgrind-out-file=cachesim.callgrind ./prog 1000
cd /
for f in baseline current cachesim; do
  cp "$work/$f.callgrind" "$here/"
  callgrind_annotate --inclusive=no --threshold=100 "$here/$f.callgrind" > "$here/$f.self.txt"
  callgrind_annotate --inclusive=yes --threshold=100 "$here/$f.callgrind" > "$here/$f.inclusive.txt"
done
rm -rf "$work"

#!/usr/bin/env python3
# tools/check-sysprof.py CLI DIR: checks flamediff-cli on the captures
# tools/sysprof-check.sh recorded into DIR (cpu.syscap with truth.txt,
# mem.syscap). Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import math
import os
import re
import subprocess
import sys

cli, work = sys.argv[1], sys.argv[2]


def run(*args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sysprof-check: flamediff-cli {' '.join(args)} failed ({p.returncode}): "
                 f"{p.stderr}")
    return p.stdout


def folded(capture, *extra):
    out = os.path.join(work, "out.folded")
    run("convert", *extra, capture, "-o", out)
    with open(out) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


failed = False

# CPU: the two busy threads' shares of the workload's samples
cpu = os.path.join(work, "cpu.syscap")
info = run("info", cpu)
truth = dict((m[0], float(m[1])) for m in re.findall(r"truth (\w+) ([0-9.]+)",
                                                     open(os.path.join(work, "truth.txt")).read()))
threads = [(int(n), l) for l, n in re.findall(r"^  (two-threads pid \d+ tid \d+): (\d+) sample",
                                              info, re.M)]
threads.sort(reverse=True)
if len(threads) < 2 or threads[1][0] < 100:
    print("SKIP: sysprof-check CPU: the capture holds no CPU samples of the workload "
          "(perf events unavailable?)", file=sys.stderr)
else:
    lines = folded(cpu)
    names = set()
    for l in lines:
        names.update(l.rsplit(" ", 1)[0].split(";"))
    for want in ("hot_b", "cmp_b"):
        if want not in names:
            print(f"FAIL: sysprof-check: {want} is not named (bundled symbols not read?)")
            failed = True
    a = truth["hot_a"] + truth["warm_a"]
    b = truth["hot_b"]
    n = threads[0][0] + threads[1][0]
    shares = sorted([threads[0][0] / n, threads[1][0] / n])
    want = sorted([a / (a + b), b / (a + b)])
    tol = max(0.05, 4 * math.sqrt(want[0] * want[1] / n) + 0.01)
    print(f"sysprof-check CPU: {n} samples in the two threads, shares {shares[0]:.3f} / "
          f"{shares[1]:.3f}, measured {want[0]:.3f} / {want[1]:.3f} (tolerance {tol:.3f}); "
          f"named: {', '.join(sorted(x for x in names if x in ('hot_a', 'warm_a', 'hot_b', 'cmp_b', 'spin')))}")
    if abs(shares[0] - want[0]) > tol:
        print("FAIL: sysprof-check: thread shares differ from the workload's own figures")
        failed = True

# memory: perl's 20 000 strings of 1000 bytes
mem = os.path.join(work, "mem.syscap")
info = run("info", mem)
total = re.search(r"\((\d+) bytes\)", info)
objects = sum(int(l.rsplit(" ", 1)[1]) for l in folded(mem, "--sample-type", "alloc_objects"))
size = int(total.group(1)) if total else 0
print(f"sysprof-check memory: {objects} allocations, {size} bytes")
if "Sample type: alloc_space/bytes" not in info or size < 20000 * 1000 or objects < 20000:
    print("FAIL: sysprof-check: the memprof capture does not hold perl's allocations")
    failed = True

# the peak and leaked views: each adds up to the replayed total; perl
# keeps its 20 000 strings to the end, so they are live at the peak
views = {}
for metric in ("peak", "leaked"):
    j = json.loads(run("info", "--json", "--metric", metric, mem))
    views[metric] = (j["total"], j["memory"][metric + "_bytes"])
print(f"sysprof-check memory: peak view {views['peak'][0]:.0f} of {views['peak'][1]} bytes, "
      f"leaked view {views['leaked'][0]:.0f} of {views['leaked'][1]} bytes")
if any(total != want for total, want in views.values()) or views["peak"][0] < 20000 * 1000:
    print("FAIL: sysprof-check: the peak or leaked view does not add up to the capture's totals")
    failed = True
sys.exit(1 if failed else 0)

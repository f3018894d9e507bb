#!/usr/bin/env python3
# check-shares.py RECORDING TRUTH RUNTIME NAME…: the inclusive time of
# each function NAME in a flamediff-cli recording (speedscope JSON),
# as a share of all NAMEs, against the CPU seconds the program measured
# itself (TRUTH: lines "truth NAME SECONDS"); exit 1 when a share is off
# by 5 points or more, when the metadata's runtimes do not name RUNTIME,
# or when the functions are not below native frames (mixed mode: the
# Python or JavaScript frames sit where the interpreter ran them).
# --profile NAME first: only the recording's profile NAME (a memory
# recording holds one per metric: allocated, allocations, peak, leaked),
# with TRUTH in any unit.
# Plain Python 3, so that it runs inside the chroot too.
import json
import sys

args = sys.argv[1:]
only = None
if args[:1] == ["--profile"]:
    only, args = args[1], args[2:]
rec, truth_path, runtime, names = args[0], args[1], args[2], args[3:]
d = json.load(open(rec))
frames = d["shared"]["frames"]
truth = {}
for line in open(truth_path):
    f = line.split()
    if len(f) == 3 and f[0] == "truth":
        truth[f[1]] = float(f[2])
sampled = dict.fromkeys(names, 0.0)
below_native = through = 0
for p in d["profiles"]:
    if only is not None and p.get("name") != only:
        continue
    for stack, w in zip(p["samples"], p["weights"]):
        fs = [frames[i]["name"] for i in stack]
        hit = False
        for n in names:
            if n in fs:
                sampled[n] += w
                hit = True
        if hit:
            through += w
            # [process root, first frame below it…]: native first
            first = frames[stack[1]] if len(stack) > 1 else {}
            if not str(first.get("file", "")).endswith((".py", ".js")):
                below_native += w
ok = True
t_sum, s_sum = sum(truth[n] for n in names), sum(sampled.values())
for n in names:
    ts, ss = 100 * truth[n] / t_sum, 100 * sampled[n] / s_sum if s_sum else 0
    print("%-8s truth %6.1f %%  sampled %6.1f %%" % (n, ts, ss))
    ok &= abs(ts - ss) < 5
meta = d["flamediff"]["metadata"]
print("runtimes:", meta.get("runtimes"), "| samples:", meta.get("samples"),
      "| below native frames: %.0f %% of their time" % (100 * below_native / through if through else 0))
ok &= runtime in (meta.get("runtimes") or "")
ok &= through > 0 and below_native >= 0.95 * through
sys.exit(0 if ok else 1)

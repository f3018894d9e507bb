#!/usr/bin/env python3
# tools/bench-json-gen.py KIND OUT MB: a deterministic large JSON profile
# for `make bench`: KIND is "speedscope" (sampled, shared frames) or
# "chrome" (trace events: Profile + ProfileChunk with nodes, samples and
# timeDeltas). About MB megabytes.
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
import random
import sys

kind, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
target = int(mb * 1e6)
rng = random.Random(20260101)
N_FRAMES = 20000

with open(out, "w") as f:
    if kind == "speedscope":
        f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[')
        f.write(",".join('{"name":"function_%d","file":"src/module_%d.py","line":%d}' % (i, i % 500, i % 900 + 1)
                         for i in range(N_FRAMES)))
        f.write(']},"profiles":[{"type":"sampled","name":"main","unit":"nanoseconds","startValue":0,"endValue":1,"samples":[')
        written = f.tell()
        weights = []
        first = True
        while written < target * 0.85:
            depth = rng.randint(5, 40)
            stack = [rng.randrange(N_FRAMES // 50) * 50 + d for d in range(depth)]
            line = ("" if first else ",") + "[" + ",".join(map(str, stack)) + "]"
            f.write(line)
            written += len(line)
            weights.append(str(rng.randint(1, 9) * 1000000))
            first = False
        f.write('],"weights":[' + ",".join(weights) + "]}]}\n")
    else:
        f.write('{"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}},')
        f.write('{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{"startTime":0}}}')
        node_id = 1
        parents = [0]
        written = f.tell()
        ts = 0
        while written < target:
            nodes = []
            for _ in range(200):
                node_id += 1
                parent = parents[rng.randrange(len(parents))] if len(parents) > 1 else 1
                if node_id == 2:
                    nodes.append('{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}}')
                    parent = 1
                nodes.append('{"id":%d,"parent":%d,"callFrame":{"functionName":"fn_%d","scriptId":7,"url":"https://example.com/app_%d.js","lineNumber":%d,"columnNumber":4}}'
                             % (node_id, parent, node_id % 3000, node_id % 40, node_id % 700))
                parents.append(node_id)
            samples = [parents[rng.randrange(len(parents))] for _ in range(4000)]
            deltas = [rng.randint(50, 200) for _ in range(4000)]
            ts += 1000
            ev = (',{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":1,"ts":%d,"args":{"data":{"cpuProfile":{"nodes":[%s],"samples":[%s]},"timeDeltas":[%s]}}}'
                  % (ts, ",".join(nodes), ",".join(map(str, samples)), ",".join(map(str, deltas))))
            f.write(ev)
            written += len(ev)
        f.write("]}\n")

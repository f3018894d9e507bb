#!/usr/bin/env python3
# tools/bench-json-gen.py KIND OUT MB: a deterministic large JSON profile
# for `make bench`: KIND is "speedscope" (sampled, shared frames) or
# "chrome" (trace events: Profile + ProfileChunk with nodes, samples and
# timeDeltas) or "speedscope-random" (sampled, every sample a fresh random
# stack of depth 5-40: the tree has about as many nodes as frame
# references, the worst case for memory) or "speedscope-evented" (one
# evented profile: open and close events of a call tree) or "cpuprofile"
# (a Chrome/node .cpuprofile: nodes with children, samples, timeDeltas).
# About MB megabytes.
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
    if kind == "speedscope-random":
        f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[')
        f.write(",".join('{"name":"function_%d","file":"src/module_%d.py","line":%d}' % (i, i % 500, i % 900 + 1)
                         for i in range(N_FRAMES)))
        f.write(']},"profiles":[{"type":"sampled","name":"main","unit":"nanoseconds","startValue":0,"endValue":1,"samples":[')
        written = f.tell()
        n = 0
        rr = rng.randrange
        while written < target * 0.93:
            line = ("," if n else "") + "[" + ",".join([str(rr(N_FRAMES)) for _ in range(rng.randint(5, 40))]) + "]"
            f.write(line)
            written += len(line)
            n += 1
        f.write('],"weights":[' + ",".join(["1"] * n) + "]}]}\n")
    elif kind == "speedscope-evented":
        f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[')
        f.write(",".join('{"name":"function_%d","file":"src/module_%d.py","line":%d}' % (i, i % 500, i % 900 + 1)
                         for i in range(N_FRAMES)))
        f.write(']},"profiles":[{"type":"evented","name":"main","unit":"microseconds","startValue":0,"endValue":1,"events":[')
        # a walk over a call tree: open a child (drawn from a few per
        # frame, so calls repeat) or close the innermost frame
        written = f.tell()
        at = 0
        stack = []
        first = True
        rr = rng.randrange
        while written < target * 0.97 or stack:
            at += rr(1, 50)
            grow = written < target * 0.97 and len(stack) < 40 and (not stack or rng.random() < 0.52)
            if grow:
                parent = stack[-1] if stack else 0
                frame = (parent * 7 + rr(4) * 1013 + len(stack)) % N_FRAMES
                stack.append(frame)
                ev = '{"type":"O","frame":%d,"at":%d}' % (frame, at)
            else:
                ev = '{"type":"C","frame":%d,"at":%d}' % (stack.pop(), at)
            line = ("" if first else ",") + ev
            f.write(line)
            written += len(line)
            first = False
        f.write(']}]}\n')
    elif kind == "cpuprofile":
        # node ids from 1 (the root); a call tree of ~60 000 nodes whose
        # children lists are written with each node, as V8 does
        n_nodes = 60000
        parent = [0, 0] + [0] * (n_nodes - 1)
        kids = [[] for _ in range(n_nodes + 1)]
        for i in range(2, n_nodes + 1):
            parent[i] = max(1, i - 1 - int((i - 1) * rng.random() ** 0.3))
            kids[parent[i]].append(i)
        f.write('{"nodes":[')
        for i in range(1, n_nodes + 1):
            name = "(root)" if i == 1 else "fn_%d" % (i % 3000)
            f.write(('' if i == 1 else ',') +
                    '{"id":%d,"callFrame":{"functionName":"%s","scriptId":"7","url":"https://example.com/app_%d.js","lineNumber":%d,"columnNumber":4},"hitCount":0%s}'
                    % (i, name, i % 40, i % 700,
                       (',"children":[' + ",".join(map(str, kids[i])) + "]") if kids[i] else ""))
        f.write('],"startTime":0,"endTime":1,"samples":[')
        written = f.tell()
        n = 0
        cur = 2
        leaves = [i for i in range(2, n_nodes + 1) if not kids[i]]
        hot = [leaves[int(len(leaves) * rng.random() ** 3)] for _ in range(500)]
        # about 6 bytes per sample and 4 per delta
        n_samples = int((target - written) / 10.5)
        samples = []
        for _ in range(n_samples):
            if rng.random() < 0.3:
                cur = hot[rng.randrange(len(hot))] if rng.random() < 0.9 else rng.randrange(2, n_nodes + 1)
            samples.append(str(cur))
        f.write(",".join(samples))
        f.write('],"timeDeltas":[')
        f.write(",".join(str(rng.randint(50, 200)) for _ in range(n_samples)))
        f.write(']}\n')
    elif kind == "speedscope":
        f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[')
        f.write(",".join('{"name":"function_%d","file":"src/module_%d.py","line":%d}' % (i, i % 500, i % 900 + 1)
                         for i in range(N_FRAMES)))
        f.write(']},"profiles":[{"type":"sampled","name":"main","unit":"nanoseconds","startValue":0,"endValue":1,"samples":[')
        # Real profiles repeat a limited set of stacks that share prefixes
        # (a call tree), and consecutive samples are often the same stack:
        # draw ~5000 distinct stacks by extending prefixes of earlier ones,
        # then sample them with a skewed distribution and some repetition
        # (as tests/bench/flame-bench-gen.c does for folded files).
        stacks = [[rng.randrange(N_FRAMES) for _ in range(8)]]
        while len(stacks) < 5000:
            base = stacks[rng.randrange(len(stacks))]
            keep = rng.randint(1, len(base))
            depth = min(60, keep + rng.randint(1, 12))
            stacks.append(base[:keep] + [rng.randrange(N_FRAMES) for _ in range(depth - keep)])
        texts = ["[" + ",".join(map(str, st)) + "]" for st in stacks]
        written = f.tell()
        weights = []
        first = True
        cur = 0
        while written < target * 0.85:
            if rng.random() < 0.4:
                # a hot stack: the first few hundred get most samples
                cur = int(len(stacks) * rng.random() ** 4)
            line = ("" if first else ",") + texts[cur]
            f.write(line)
            written += len(line)
            weights.append(str(rng.randint(1, 9) * 1000000))
            first = False
        f.write('],"weights":[' + ",".join(weights) + "]}]}\n")
    else:
        f.write('{"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}},')
        f.write('{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{"startTime":0}}}')
        node_id = 1
        parents = [1]  # the root, written with the first chunk
        written = f.tell()
        ts = 0
        n_chunk = 0
        hot = []
        while written < target:
            nodes = []
            # Chrome sends a node once, when first sampled: many new nodes
            # early, few once the program's call tree has been seen
            n_chunk += 1
            for _ in range(200 if n_chunk <= 100 else 4):
                node_id += 1
                parent = parents[rng.randrange(len(parents))] if len(parents) > 1 else 1
                if node_id == 2:
                    nodes.append('{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}}')
                    parent = 1
                nodes.append('{"id":%d,"parent":%d,"callFrame":{"functionName":"fn_%d","scriptId":7,"url":"https://example.com/app_%d.js","lineNumber":%d,"columnNumber":4}}'
                             % (node_id, parent, node_id % 3000, node_id % 40, node_id % 700))
                parents.append(node_id)
            # samples: mostly a hot set of stacks, runs of the same node
            hot = [parents[int(len(parents) * rng.random() ** 3)] for _ in range(300)]
            samples = []
            cur = hot[0]
            for _ in range(4000):
                if rng.random() < 0.3:
                    cur = hot[rng.randrange(len(hot))] if rng.random() < 0.9 else parents[rng.randrange(len(parents))]
                samples.append(cur)
            deltas = [rng.randint(50, 200) for _ in range(4000)]
            ts += 1000
            ev = (',{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":1,"ts":%d,"args":{"data":{"cpuProfile":{"nodes":[%s],"samples":[%s]},"timeDeltas":[%s]}}}'
                  % (ts, ",".join(nodes), ",".join(map(str, samples)), ",".join(map(str, deltas))))
            f.write(ev)
            written += len(ev)
        f.write("]}\n")

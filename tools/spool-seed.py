#!/usr/bin/env python3
# tools/spool-seed.py SPOOL OUT [--samples N] [--build-dir DIR] [--reload]
#
# Trims a recording spool (OUTPUT.spool, src/capture/flame-spool.c)
# into a small fuzzing seed for fuzz-spool (tests/fuzz/seeds/spool): the
# magic and the header, every hello, module, exit and note record, and the
# first N samples (default 12) of each process. Paths under DIR (the build
# directory the workloads ran from) are rewritten to start with "_build"
# instead, so the seed names no one's checkout; the libraries of the
# system keep their paths. A record cut short at the end (the recorder was
# killed mid-write) is kept as it is.
# --reload: then the last module record once more, moved onto the first
# module's address range (as a library loaded where an unloaded one was:
# a new set of modules for the samples after it), and the kept samples
# again.
#
# To make a spool: record a workload and SIGKILL the CLI with its command
# while it runs, as tests/test-capture.c test_cli_recover does:
#   setsid _build/src/cli/flamediff-cli record -o /tmp/x.json -- \
#     _build/tests/capture-workloads/capture-quick spin 5 & sleep 0.5
#   kill -KILL -- -$!      # leaves /tmp/x.json.spool
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

import argparse
import os
import struct

MAGIC = b"FLAMESPOOL1\n"
HELLO, MODULE, SAMPLE = 1, 2, 3
HELLO_SIZE = 48    # FlameRecHello, then the executable's path
MODULE_SIZE = 48   # FlameRecModule, then build-id and path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spool")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--build-dir", default="_build")
    ap.add_argument("--reload", action="store_true")
    a = ap.parse_args()

    build = os.path.abspath(a.build_dir).encode()

    def rewrite(b):
        return b"_build" + b[len(build):] if b.startswith(build + b"/") else b

    data = open(a.spool, "rb").read()
    if not data.startswith(MAGIC):
        raise SystemExit(f"{a.spool}: not a spool")
    p = len(MAGIC)
    (n,) = struct.unpack_from("<I", data, p)
    header = data[p + 4:p + 4 + n]
    header = header.replace(build + b"/", b"_build/")
    out = bytearray(MAGIC + struct.pack("<I", len(header)) + header)
    p += 4 + n

    samples = {}
    modules = []
    kept = []
    while p + 4 <= len(data):
        (n,) = struct.unpack_from("<I", data, p)
        r = data[p + 4:p + 4 + n]
        p += 4 + n
        if len(r) < n or len(r) < 16:
            out += struct.pack("<I", n) + r   # cut short: kept as it was
            break
        rtype, pid = struct.unpack_from("<H", r, 4)[0], struct.unpack_from("<i", r, 8)[0]
        if rtype == SAMPLE:
            samples[pid] = samples.get(pid, 0) + 1
            if samples[pid] > a.samples:
                continue
        elif rtype == HELLO and len(r) > HELLO_SIZE:
            r = r[:HELLO_SIZE] + rewrite(r[HELLO_SIZE:].rstrip(b"\0")) + b"\0"
        elif rtype == MODULE and len(r) >= MODULE_SIZE:
            id_len, path_len = struct.unpack_from("<HH", r, 40)
            path = rewrite(r[MODULE_SIZE + id_len:MODULE_SIZE + id_len + path_len])
            r = (r[:42] + struct.pack("<H", len(path)) + r[44:MODULE_SIZE + id_len] + path)
            modules.append(r)
        if rtype == SAMPLE:
            kept.append(r)
        out += struct.pack("<I", len(r)) + r
    if a.reload and len(modules) > 1:
        r = modules[0][:16] + modules[0][16:40] + modules[-1][40:]
        out += struct.pack("<I", len(r)) + r
        for r in kept:
            out += struct.pack("<I", len(r)) + r
    open(a.out, "wb").write(out)


if __name__ == "__main__":
    main()

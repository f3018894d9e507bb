#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makes tests/data/cpython/ from real CPython 3.15 (tests/data/cpython/README.md).

    tools/cpython-fixtures.py [--chroot DIR] [--out DIR]

Needs root: CPython 3.15 runs in a Debian unstable chroot made (once) by
../shared/tools/debian-chroot (override with $FLAMEDIFF_DEBIAN_CHROOT).

1. Records tests/data/cpython/app-base.py and app-cur.py (with shapes.py)
   with `python3.15 -m profiling.sampling run --binary`, both in the same
   checkout /builds/1234/proj: base.bin and cur.bin.
2. Writes cur-moved.bin: cur.bin with every path under /builds/1234/proj/
   rewritten to /tmp/pr-77/proj/ (string table only; samples and frames
   untouched), i.e. the same run as seen from another checkout.
3. Records app-cur.py once more at 500 Hz: cur-500hz.bin.
4. Runs CPython's own `replay --diff-flamegraph` on (base, cur), on
   (base, cur-moved) and on (base, cur-500hz), and writes the tree each HTML embeds (EMBEDDED_DATA)
   as folded lines "f1;f2;…;fn BASELINE CURRENT": per call path of
   (file, function) pairs — CPython's matching key, lines ignored — the
   baseline and current self samples summed over the path's line nodes,
   from the differential tree and from its elided tree; then a last line
   "# elided_count N" (stats.elided_count). Paths with no self samples on
   either side are left out, as in flamediff-cli's folded output.

tools/cpython-live-check.sh writes them to a temporary directory and runs
the /cpython/real tests on them: flamediff-cli against CPython itself.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(SRC, "tests", "data", "cpython")
CHECKOUT = "/builds/1234/proj"
MOVED = "/tmp/pr-77/proj"
# CPython drops nodes below 0.1 % of the samples from the tree it embeds
# once a profile holds 2000 samples; below that the tree is complete
MAX_SAMPLES = 1999


def chroot_tool():
    return os.environ.get("FLAMEDIFF_DEBIAN_CHROOT",
                          os.path.join(SRC, "..", "shared", "tools", "debian-chroot"))


def ensure_chroot(root):
    tool = chroot_tool()
    if not os.access(tool, os.X_OK):
        sys.exit(f"cpython-fixtures: {tool} is missing (set FLAMEDIFF_DEBIAN_CHROOT)")
    if subprocess.run([tool, "sid", root, "python3.15"], stdout=subprocess.DEVNULL).returncode != 0:
        # no mirror, no network: the environment's failure, not Flamediff's
        print(f"cpython-fixtures: {tool} could not make the chroot {root}", file=sys.stderr)
        sys.exit(77)


def in_chroot(root, cwd, *argv):
    cmd = "cd %s && exec %s" % (cwd, " ".join("'%s'" % a for a in argv))
    return subprocess.run(["chroot", root, "bash", "-c", cmd], check=True,
                          capture_output=True, text=True)


def record(root, app, out, rate="1khz"):
    """Runs @app as CHECKOUT/app.py under the sampling profiler."""
    proj = root + CHECKOUT
    os.makedirs(proj, exist_ok=True)
    shutil.copy(os.path.join(DATA, "shapes.py"), os.path.join(proj, "shapes.py"))
    shutil.copy(os.path.join(DATA, app), os.path.join(proj, "app.py"))
    shutil.rmtree(os.path.join(proj, "__pycache__"), ignore_errors=True)
    in_chroot(root, CHECKOUT, "python3.15", "-m", "profiling.sampling", "run",
              "-r", rate, "--binary", "-o", "/tmp/fixture.bin", "app.py")
    shutil.copy(root + "/tmp/fixture.bin", out)


# ---- the binary format (docs/formats.md; CPython's binary_io.h) ----

def read_varint(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, pos


def put_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def move_paths(src, dst, old, new):
    """Rewrites the string table of a little-endian, current-layout file."""
    buf = open(src, "rb").read()
    if buf[:4] != b"HCAT":
        sys.exit(f"cpython-fixtures: {src}: not a little-endian CPython binary profile")
    str_off, frame_off = struct.unpack_from("<QQ", buf, 40)
    n_strings = struct.unpack_from("<I", buf, len(buf) - 32)[0]
    pos = str_off
    table = bytearray()
    for _ in range(n_strings):
        n, pos = read_varint(buf, pos)
        # byte-exact: strings that are not UTF-8 (CPython writes what the
        # interpreter had) go through unchanged
        s = buf[pos:pos + n].decode("utf-8", "surrogateescape")
        pos += n
        if s.startswith(old + "/"):
            s = new + s[len(old):]
        enc = s.encode("utf-8", "surrogateescape")
        table += put_varint(len(enc)) + enc
    if pos != frame_off:
        sys.exit(f"cpython-fixtures: {src}: the string table does not end at the frame table")
    out = bytearray(buf[:str_off]) + table + buf[frame_off:]
    struct.pack_into("<Q", out, 48, str_off + len(table))
    struct.pack_into("<Q", out, len(out) - 32 + 8, len(out))
    open(dst, "wb").write(out)


# ---- CPython's differential tree ----

def cpython_diff(root, base, cur):
    """The EMBEDDED_DATA of `replay --diff-flamegraph base cur`."""
    work = root + "/tmp/fixture-diff"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copy(base, work + "/base.bin")
    shutil.copy(cur, work + "/cur.bin")
    in_chroot(root, "/tmp/fixture-diff", "python3.15", "-m", "profiling.sampling", "replay",
              "--diff-flamegraph", "base.bin", "-o", "diff.html", "cur.bin")
    html = open(work + "/diff.html", encoding="utf-8").read()
    marker = "EMBEDDED_DATA = "
    data, _ = json.JSONDecoder().raw_decode(html, html.index(marker) + len(marker))
    return data


def collect_paths(node, strings, path, sums, elided):
    key = None
    if "filename" in node and "funcname" in node:
        key = (strings[node["filename"]], strings[node["funcname"]])
    p = path + (key,) if key else path
    if key:
        s = sums.setdefault(p, [0.0, 0.0])
        # in the elided tree "baseline" is set only where the path itself
        # vanished; its ancestors are structure
        s[0] += node.get("baseline", 0) or 0
        if not elided:
            s[1] += node.get("self_time", 0) or 0
    for child in node.get("children", []):
        collect_paths(child, strings, p, sums, elided)


def number(v):
    v = round(v, 6)
    if v == int(v):
        return "%d" % v
    return ("%.6f" % v).rstrip("0").rstrip(".")


def expected_lines(data):
    stats = data.get("stats", {})
    for side in ("baseline_samples", "current_samples"):
        if stats.get(side, 0) > MAX_SAMPLES:
            sys.exit(f"cpython-fixtures: {stats[side]} {side}: CPython filters trees of "
                     f"more than {MAX_SAMPLES} samples; make the programs shorter")
    sums = {}
    collect_paths(data, data["strings"], (), sums, False)
    if "elided_flamegraph" in stats:
        e = stats["elided_flamegraph"]
        collect_paths(e, e["strings"], (), sums, True)
    # a NUL in a name (CPython's sampler can read one while it is being
    # written) cannot be in Flamediff's names, which read U+FFFD there
    lines = sorted("%s %s %s" % (";".join(f.replace("\0", "\ufffd") for _, f in p), number(b),
                                 number(c))
                   for p, (b, c) in sums.items() if round(b, 6) != 0 or c != 0)
    lines.append("# elided_count %d" % stats.get("elided_count", 0))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chroot", default=os.environ.get("FLAMEDIFF_CPYTHON_CHROOT",
                                                       "/var/tmp/flamediff-sid-cpython"))
    ap.add_argument("--out", default=DATA)
    args = ap.parse_args()

    ensure_chroot(args.chroot)
    out = args.out
    os.makedirs(out, exist_ok=True)
    record(args.chroot, "app-base.py", os.path.join(out, "base.bin"))
    record(args.chroot, "app-cur.py", os.path.join(out, "cur.bin"))
    record(args.chroot, "app-cur.py", os.path.join(out, "cur-500hz.bin"), "500")
    move_paths(os.path.join(out, "cur.bin"), os.path.join(out, "cur-moved.bin"), CHECKOUT, MOVED)
    for cur, name in (("cur.bin", "diff.expected"), ("cur-moved.bin", "diff-moved.expected"),
                      ("cur-500hz.bin", "diff-500hz.expected")):
        text = expected_lines(cpython_diff(args.chroot, os.path.join(out, "base.bin"),
                                           os.path.join(out, cur)))
        open(os.path.join(out, name), "w", encoding="utf-8").write(text)
    version = in_chroot(args.chroot, "/", "python3.15", "--version").stdout.strip()
    print(f"cpython-fixtures: wrote {out} with {version}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""List C functions by length, longest first (issue 12: functions with one job).

Usage: tools/function-lengths.py [--over N] [--top N] [PATH ...]   (default PATH: src)

A function's length is counted from the line with its name to its closing brace, as
Universal Ctags reports them (`ctags --fields=+ne`).
"""

import argparse
import pathlib
import subprocess
import sys


def c_files(paths):
    for path in paths:
        p = pathlib.Path(path)
        if p.is_dir():
            yield from sorted(str(f) for f in p.rglob("*.c"))
        else:
            yield str(p)


def lengths(files):
    out = subprocess.run(
        ["ctags", "--c-kinds=f", "--fields=+ne", "-o", "-", *files],
        check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split("\t")
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" in fields and "end" in fields:
            yield int(fields["end"]) - int(fields["line"]) + 1, cols[1], cols[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--over", type=int, default=0, help="only functions longer than N lines")
    ap.add_argument("--top", type=int, default=0, help="only the N longest")
    ap.add_argument("paths", nargs="*", default=["src"])
    args = ap.parse_args()
    rows = sorted(lengths(list(c_files(args.paths))), key=lambda r: (-r[0], r[1], r[2]))
    rows = [r for r in rows if r[0] > args.over]
    if args.top:
        rows = rows[:args.top]
    for n, path, name in rows:
        print(f"{n:5d}  {path}  {name}")
    print(f"{len(rows)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# bench-run.py RUNS CMD [ARG...]: runs CMD RUNS times (stdout to /dev/null)
# and prints "MEDIAN BEST WORST MAXRSS_KB": wall-clock seconds, and the
# largest peak resident set size of any run (from wait4, per child).
#
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bench-run.py RUNS CMD [ARG...]")
    runs = int(sys.argv[1])
    cmd = sys.argv[2:]
    times = []
    max_rss = 0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            sys.exit("bench-run.py: %s exited with %d" % (" ".join(cmd), proc.returncode))
        times.append(elapsed)
        max_rss = max(max_rss, usage.ru_maxrss)  # KiB on Linux
    print("%.4f %.4f %.4f %d" % (statistics.median(times), min(times), max(times), max_rss))


if __name__ == "__main__":
    main()

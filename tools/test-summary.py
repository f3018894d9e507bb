#!/usr/bin/env python3
"""Counts the individual TAP results of a meson test run and prints the
closing line 'N passed, N failed, N skipped, N incomplete'.

g_test_incomplete() results ("not ok ... # TODO") are neither passed nor
failed: they are known exceptions, counted on their own so that the
summary never calls them passes."""
import json
import re
import sys

passed = failed = skipped = incomplete = 0
with open(sys.argv[1], encoding="utf-8") as log:
    for line in log:
        entry = json.loads(line)
        out = entry.get("stdout") or ""
        n = 0
        for tap in out.splitlines():
            m = re.match(r"^(not ok|ok)\b(.*)$", tap)
            if not m:
                continue
            n += 1
            if m.group(1) == "not ok":
                if "# TODO" in m.group(2):
                    incomplete += 1
                else:
                    failed += 1
            elif "# SKIP" in m.group(2):
                skipped += 1
            else:
                passed += 1
        if n == 0:
            # a program that is not a TAP producer counts once
            result = entry.get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
        elif entry.get("result") not in ("OK", "EXPECTEDFAIL", "SKIP"):
            # crashed or timed out after its last TAP line
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped, {incomplete} incomplete")

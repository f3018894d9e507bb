#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""flatpak-standin-manifest.py MANIFEST OUT

Writes OUT: MANIFEST with its runtime and sdk switched to the stand-in
runtime ../shared/tools/flatpak-standin-runtime makes
(org.flamediff.StandinPlatform / org.flamediff.StandinSdk, branch 51), and
"appstream-compose": false (Debian 12's flatpak-builder 1.2 calls
appstream-glib's appstream-compose, which the stand-in SDK does not have;
`make check` validates the metainfo already). Local paths (dir and patch
sources) are made absolute, so that OUT can live outside the source tree;
nothing else changes: modules, options, finish-args and cleanup stay the
real manifest's."""
import json
import os
import sys

RUNTIME = 'org.flamediff.StandinPlatform'
SDK = 'org.flamediff.StandinSdk'
BRANCH = '51'


def main():
    src, out = sys.argv[1], sys.argv[2]
    base = os.path.dirname(os.path.abspath(src))
    with open(src, encoding='utf-8') as f:
        m = json.load(f)
    if m.get('runtime-version') != BRANCH:
        print(f'{src}: runtime-version is {m.get("runtime-version")!r}, '
              f'the stand-in runtime is {BRANCH}', file=sys.stderr)
        return 1
    m['runtime'] = RUNTIME
    m['sdk'] = SDK
    m['appstream-compose'] = False
    for mod in m['modules']:
        for s in mod.get('sources', []):
            if 'path' in s:
                s['path'] = os.path.normpath(os.path.join(base, s['path']))
            if 'paths' in s:
                s['paths'] = [os.path.normpath(os.path.join(base, p)) for p in s['paths']]
    with open(out, 'w', encoding='utf-8') as f:
        json.dump(m, f, indent=4, ensure_ascii=False)
        f.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The app icon is a square scalable SVG at hicolor/scalable/apps/<id>.svg
(Flathub: SVG preferred) and the symbolic icon a 16x16 SVG at
hicolor/symbolic/apps/<id>-symbolic.svg that uses a single colour, so that
GTK can recolour it."""
import re
import sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'


def size(root):
    vb = root.get('viewBox', '').split()
    return (float(vb[2]), float(vb[3])) if len(vb) == 4 else None


def colours(root):
    found = set()
    for el in root.iter():
        for attr in ('fill', 'stroke', 'stop-color'):
            v = el.get(attr)
            if v and v not in ('none',) and not v.startswith('url('):
                found.add(v.lower())
        for m in re.finditer(r'(?:fill|stroke|stop-color)\s*:\s*([^;]+)', el.get('style', '')):
            if m.group(1).strip() != 'none':
                found.add(m.group(1).strip().lower())
    return found


def main():
    app_id, icondir = sys.argv[1], sys.argv[2]
    errors = []
    app = ET.parse(f'{icondir}/hicolor/scalable/apps/{app_id}.svg').getroot()
    if app.tag != SVG + 'svg' or size(app) != (128.0, 128.0):
        errors.append('the app icon must be an SVG with a 128x128 viewBox')
    sym = ET.parse(f'{icondir}/hicolor/symbolic/apps/{app_id}-symbolic.svg').getroot()
    if sym.tag != SVG + 'svg' or size(sym) != (16.0, 16.0):
        errors.append('the symbolic icon must be an SVG with a 16x16 viewBox')
    if len(colours(sym)) > 1:
        errors.append(f'the symbolic icon must use one colour, found {sorted(colours(sym))}')
    if any(el.tag in (SVG + 'image', SVG + 'text') for el in app.iter()):
        errors.append('the app icon must not embed bitmaps or text')
    for e in errors:
        print('FAIL: ' + e)
    if not errors:
        print('ok: app icon 128x128 SVG, symbolic icon 16x16 single-colour SVG')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())

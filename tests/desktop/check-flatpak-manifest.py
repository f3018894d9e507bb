#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Structure check of flatpak/<app-id>.json (flatpak-builder is not run in
`make check`; tools/flatpak-check.sh, in .ci/run, builds and runs it).

Checks: valid JSON indented by 4 spaces with Flathub's key order; the id
equals the app id and the file name; the GNOME runtime and SDK of a stable
release; the command is the GUI binary; finish-args are exactly the minimal
set (no host file system, no network, no sandbox escape); every module
builds from source with checksums, and does not rebuild a library the GNOME
runtime already has; the last module is Flamediff itself, built with meson,
from the tree with every build directory the project's scripts make skipped."""
import json
import os
import re
import sys

KEY_ORDER = ['id', 'runtime', 'runtime-version', 'sdk', 'command',
             'finish-args', 'cleanup', 'build-options', 'modules']
FINISH_ARGS = {'--share=ipc', '--socket=fallback-x11', '--socket=wayland', '--device=dri'}
# libraries Flamediff uses that the GNOME SDK/runtime already provides
IN_RUNTIME = {'glib', 'gtk', 'gtk4', 'libadwaita', 'json-glib', 'libunwind',
              'zlib', 'cairo', 'pango', 'elfutils', 'zstd', 'libzstd'}

errors = []
MANIFEST_DIR = '.'


def fail(msg):
    errors.append(msg)


def build_dirs(root):
    """The _build* directories named in the Makefile, .ci/run and tools/*.sh"""
    names = {'_build'}
    paths = [os.path.join(root, 'Makefile'), os.path.join(root, '.ci', 'run')]
    tools = os.path.join(root, 'tools')
    if os.path.isdir(tools):
        paths += [os.path.join(tools, f) for f in os.listdir(tools) if f.endswith('.sh')]
    for p in paths:
        if os.path.isfile(p):
            with open(p, encoding='utf-8') as f:
                names.update(re.findall(r'(?<![\w./-])_build(?:-[A-Za-z0-9]+)*', f.read()))
    return names


def check_source(mod, src, is_app):
    kind = src.get('type')
    where = f'module {mod}: {kind} source'
    if kind in ('archive', 'file'):
        if not str(src.get('url', '')).startswith('https://'):
            fail(f'{where} needs an https url')
        if not re.fullmatch(r'[0-9a-f]{64}', str(src.get('sha256', ''))):
            fail(f'{where} needs a sha256 checksum')
    elif kind == 'git':
        if not str(src.get('url', '')).startswith('https://'):
            fail(f'{where} needs an https url')
        if not re.fullmatch(r'[0-9a-f]{40}', str(src.get('commit', ''))):
            fail(f'{where} must pin a commit (and preferably a tag)')
        if 'branch' in src:
            fail(f'{where} must not build from a branch')
    elif kind == 'dir':
        if not is_app:
            fail(f'{where}: only Flamediff itself may be built from a local directory')
        # flatpak-builder copies the tree before it builds: every build
        # directory the project's scripts make in it must be skipped (skip
        # takes paths relative to the directory, not patterns)
        skip = set(src.get('skip') or [])
        missing = sorted(build_dirs(os.path.normpath(os.path.join(MANIFEST_DIR, src.get('path', '.'))))
                         - skip)
        if missing:
            fail(f'{where}: skip must list the build directories {", ".join(missing)}')
    elif kind == 'patch':
        # local files only (flatpak-builder applies patches from the
        # manifest's directory), and they must be in the repository
        paths = src.get('paths') or ([src['path']] if 'path' in src else [])
        if not paths:
            fail(f'{where} needs a path')
        for p in paths:
            if os.path.isabs(p) or '..' in p.split('/'):
                fail(f'{where}: {p} must be a path inside flatpak/')
            elif not os.path.isfile(os.path.join(MANIFEST_DIR, p)):
                fail(f'{where}: {p} does not exist')
    else:
        fail(f'{where}: unexpected source type')


def main():
    global MANIFEST_DIR
    path, app_id = sys.argv[1], sys.argv[2]
    MANIFEST_DIR = os.path.dirname(os.path.abspath(path))
    with open(path, encoding='utf-8') as f:
        text = f.read()
    try:
        m = json.loads(text)
    except json.JSONDecodeError as e:
        print(f'FAIL: {path} is not valid JSON: {e}')
        return 1

    if json.dumps(m, indent=4, ensure_ascii=False) + '\n' != text:
        fail('the manifest must be indented by 4 spaces (json.dumps(indent=4) form)')
    keys = [k for k in m if k in KEY_ORDER]
    if keys != sorted(keys, key=KEY_ORDER.index):
        fail(f'top-level keys must be in the order {", ".join(KEY_ORDER)}')

    if m.get('id') != app_id:
        fail(f'id must be {app_id}')
    if os.path.basename(path) != app_id + '.json':
        fail(f'the file must be named {app_id}.json')
    if m.get('runtime') != 'org.gnome.Platform' or m.get('sdk') != 'org.gnome.Sdk':
        fail('runtime and sdk must be org.gnome.Platform and org.gnome.Sdk')
    rv = m.get('runtime-version')
    if not isinstance(rv, str) or not re.fullmatch(r'\d+', rv) or int(rv) < 50:
        fail('runtime-version must be a stable GNOME release as a string, "50" or later')
    if m.get('command') != 'flamediff':
        fail('command must be flamediff, the GUI binary')

    args = m.get('finish-args', [])
    if set(args) != FINISH_ARGS or len(args) != len(FINISH_ARGS):
        extra = sorted(set(args) - FINISH_ARGS)
        missing = sorted(FINISH_ARGS - set(args))
        fail(f'finish-args must be exactly {sorted(FINISH_ARGS)}'
             + (f'; not allowed: {extra}' if extra else '')
             + (f'; missing: {missing}' if missing else ''))

    if not all(isinstance(c, str) for c in m.get('cleanup', [])):
        fail('cleanup must be a list of strings')

    mods = m.get('modules')
    if not isinstance(mods, list) or not mods:
        fail('modules must be a non-empty list')
        mods = []
    for i, mod in enumerate(mods):
        if isinstance(mod, str):
            fail(f'module {i}: external module files are not used here')
            continue
        name = mod.get('name')
        is_app = i == len(mods) - 1
        if not name:
            fail(f'module {i} has no name')
        if name in IN_RUNTIME:
            fail(f'module {name} is already in the GNOME runtime')
        if 'buildsystem' not in mod and 'build-commands' not in mod:
            fail(f'module {name}: no buildsystem (autotools is implied; say so)')
        srcs = mod.get('sources') or []
        if not srcs:
            fail(f'module {name} has no sources')
        for src in srcs:
            check_source(name, src, is_app)
    if mods:
        last = mods[-1]
        if last.get('name') != 'flamediff' or last.get('buildsystem') != 'meson':
            fail('the last module must be flamediff, built with meson')

    for e in errors:
        print('FAIL: ' + e)
    if not errors:
        print(f'ok: {path}: runtime {m["runtime"]}//{rv}, {len(mods)} module(s), '
              f'finish-args {" ".join(args)}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())

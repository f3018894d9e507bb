#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Translation checks for `meson test` (suite "desktop").

  check-po.py pot --srcdir DIR --package NAME --version V -- XGETTEXT_ARGS...
      Regenerates the template with xgettext into a temporary directory and
      fails when its messages differ from the committed po/NAME.pot.

  check-po.py translations --srcdir DIR --package NAME
      For every language in po/LINGUAS: msgfmt --check, no fuzzy or
      untranslated messages, and the same messages as po/NAME.pot.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def unquote(s):
    s = s.strip()
    assert s.startswith('"') and s.endswith('"'), s
    return bytes(s[1:-1], 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')


def parse_po(path):
    """Return {(msgctxt, msgid, msgid_plural): (translations, fuzzy)}.

    Entries are the blank-line separated blocks that xgettext and msgmerge
    write; the header (empty msgid) and obsolete (#~) entries are left out."""
    entries = {}
    with open(path, encoding='utf-8') as f:
        blocks = f.read().split('\n\n')
    for block in blocks:
        fields = {}
        key = None
        fuzzy = False
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith('#~'):
                continue
            if line.startswith('#,'):
                fuzzy = fuzzy or 'fuzzy' in line
            elif line.startswith('#'):
                continue
            elif line.startswith('"'):
                fields[key] += unquote(line)
            else:
                key, _, rest = line.partition(' ')
                fields[key] = unquote(rest)
        if fields.get('msgid', '') == '':
            continue
        msgstrs = [v for k, v in sorted(fields.items()) if k.startswith('msgstr')]
        entries[(fields.get('msgctxt'), fields['msgid'], fields.get('msgid_plural'))] = (msgstrs, fuzzy)
    return entries


def describe(key):
    ctxt, msgid, plural = key
    s = repr(msgid)
    if ctxt:
        s = f'[{ctxt}] ' + s
    return s


def check_pot(args, xgettext_args):
    committed = os.path.join(args.srcdir, 'po', args.package + '.pot')
    if not os.path.exists(committed):
        print(f'FAIL: {committed} does not exist.')
        print(f'Run: meson compile -C _build {args.package}-pot')
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        fresh = os.path.join(tmp, args.package + '.pot')
        cmd = ['xgettext', '--package-name=' + args.package,
               '--package-version=' + args.version,
               '-D', args.srcdir,
               '--files-from=' + os.path.join(args.srcdir, 'po', 'POTFILES.in'),
               '-o', fresh] + xgettext_args
        subprocess.run(cmd, check=True)
        new = set(parse_po(fresh))
    old = set(parse_po(committed))
    if new == old:
        print(f'ok: po/{args.package}.pot matches the {len(new)} messages of POTFILES.in')
        return 0
    print(f'FAIL: po/{args.package}.pot is out of date.')
    for k in sorted(new - old, key=str):
        print('  missing from the .pot: ' + describe(k))
    for k in sorted(old - new, key=str):
        print('  no longer in the sources: ' + describe(k))
    print(f'Regenerate it and update the translations:\n'
          f'  meson compile -C _build {args.package}-pot\n'
          f'  meson compile -C _build {args.package}-update-po\n'
          f'then translate the new messages in po/*.po and commit.')
    return 1


def read_linguas(srcdir):
    langs = []
    with open(os.path.join(srcdir, 'po', 'LINGUAS'), encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0]
            langs += line.split()
    return langs


def check_translations(args):
    pot = set(parse_po(os.path.join(args.srcdir, 'po', args.package + '.pot')))
    langs = read_linguas(args.srcdir)
    if not langs:
        print('FAIL: po/LINGUAS lists no language')
        return 1
    failed = 0
    for lang in langs:
        po = os.path.join(args.srcdir, 'po', lang + '.po')
        if not os.path.exists(po):
            print(f'FAIL: {lang} is in LINGUAS but po/{lang}.po does not exist')
            failed = 1
            continue
        r = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, po],
                           capture_output=True, text=True)
        print(f'{lang}: {r.stderr.strip()}')
        if r.returncode != 0:
            print(f'FAIL: msgfmt --check rejects po/{lang}.po')
            failed = 1
            continue
        entries = parse_po(po)
        keys = set(entries)
        for k in sorted(pot - keys, key=str):
            print(f'FAIL: po/{lang}.po lacks {describe(k)} (run {args.package}-update-po)')
            failed = 1
        for k in sorted(keys - pot, key=str):
            print(f'FAIL: po/{lang}.po has {describe(k)}, which is not in the .pot')
            failed = 1
        for k, (msgstrs, fuzzy) in sorted(entries.items(), key=str):
            if fuzzy:
                print(f'FAIL: po/{lang}.po: fuzzy translation of {describe(k)}')
                failed = 1
            elif not msgstrs or any(s == '' for s in msgstrs):
                print(f'FAIL: po/{lang}.po: no translation of {describe(k)}')
                failed = 1
    return failed


def main():
    argv = sys.argv[1:]
    extra = []
    if '--' in argv:
        i = argv.index('--')
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser()
    p.add_argument('mode', choices=['pot', 'translations'])
    p.add_argument('--srcdir', required=True)
    p.add_argument('--package', required=True)
    p.add_argument('--version', default='')
    args = p.parse_args(argv)
    if args.mode == 'pot':
        return check_pot(args, extra)
    return check_translations(args)


if __name__ == '__main__':
    sys.exit(main())

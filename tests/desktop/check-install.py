#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Installs the build into a temporary DESTDIR (`meson install --destdir`)
and checks that every file lands where GNOME looks for it, and works there:
the schema compiles and gsettings reads its defaults, the MIME database maps
profile files to Flamediff's types, the German catalogue translates, and the
help pages sit in share/help/C/flamediff/.

Also: bin/flamediff, the GNOME application, is installed and runs
(--version), and the desktop entry's TryExec and Exec name it; the
sampler is installed in <libdir>/flamediff, where the recorder looks for
it, as a loadable shared object that links no GLib."""
import argparse
import gettext
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    print(('ok: ' if cond else 'FAIL: ') + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--builddir', required=True)
    p.add_argument('--prefix', required=True)
    p.add_argument('--bindir', required=True)
    p.add_argument('--libdir', required=True)
    p.add_argument('--datadir', required=True)
    p.add_argument('--localedir', required=True)
    p.add_argument('--app-id', required=True)
    p.add_argument('--version', required=True)
    p.add_argument('--help-pages', nargs='+', required=True)
    a = p.parse_args()
    app = a.app_id

    with tempfile.TemporaryDirectory(prefix='flamediff-install-') as dest:
        meson = shutil.which('meson') or 'meson'
        r = run([meson, 'install', '-C', a.builddir, '--no-rebuild', '--quiet',
                 '--destdir', dest])
        if not check(r.returncode == 0, 'meson install --destdir succeeds'):
            print(r.stdout, r.stderr)
            return 1

        def path(*parts):
            base = os.path.join(dest, a.prefix.lstrip('/'))
            return os.path.join(base, *parts)

        share = path(a.datadir)

        # binaries
        cli = path(a.bindir, 'flamediff-cli')
        if check(os.access(cli, os.X_OK), f'{a.bindir}/flamediff-cli is installed and executable'):
            r = run([cli, '--version'])
            check(r.returncode == 0 and a.version in r.stdout,
                  'the installed flamediff-cli runs (--version)')

        app_bin = path(a.bindir, 'flamediff')
        if check(os.access(app_bin, os.X_OK), f'{a.bindir}/flamediff is installed and executable'):
            r = run([app_bin, '--version'])
            check(r.returncode == 0 and a.version in r.stdout,
                  'the installed flamediff runs (--version)')

        # the sampler, preloaded into recorded programs: it must load on its
        # own (ldd resolves everything) and never drag GLib into them
        sampler = path(a.libdir, 'flamediff', 'libflamediff-sampler.so')
        if check(os.path.isfile(sampler), f'{a.libdir}/flamediff/libflamediff-sampler.so is installed'):
            r = run(['ldd', sampler])
            check(r.returncode == 0 and 'not found' not in r.stdout,
                  'the installed sampler resolves all its libraries')
            check('libglib' not in r.stdout, 'the installed sampler links no GLib')

        # desktop entry, metainfo, icons
        desktop = os.path.join(share, 'applications', app + '.desktop')
        if check(os.path.isfile(desktop), f'{a.datadir}/applications/{app}.desktop'):
            dfv = shutil.which('desktop-file-validate')
            if dfv:
                check(run([dfv, desktop]).returncode == 0, 'installed desktop entry validates')
            entry = open(desktop, encoding='utf-8').read()
            check('Name[de]=' in entry, 'installed desktop entry is translated (Name[de])')
            execs = [l.split('=', 1)[1].split()[0] for l in entry.splitlines()
                     if l.startswith('TryExec=') or l.startswith('Exec=')]
            check(execs and all(os.access(path(a.bindir, e), os.X_OK) for e in execs),
                  f'the desktop entry\'s TryExec and Exec resolve to {a.bindir}/flamediff')
        check(os.path.isfile(os.path.join(share, 'metainfo', app + '.metainfo.xml')),
              f'{a.datadir}/metainfo/{app}.metainfo.xml')
        check(os.path.isfile(os.path.join(share, 'icons/hicolor/scalable/apps', app + '.svg')),
              f'{a.datadir}/icons/hicolor/scalable/apps/{app}.svg')
        check(os.path.isfile(os.path.join(share, 'icons/hicolor/symbolic/apps', app + '-symbolic.svg')),
              f'{a.datadir}/icons/hicolor/symbolic/apps/{app}-symbolic.svg')

        # GSettings: compile the installed schema and read it back
        schemadir = os.path.join(share, 'glib-2.0', 'schemas')
        schema = os.path.join(schemadir, app + '.gschema.xml')
        if check(os.path.isfile(schema), f'{a.datadir}/glib-2.0/schemas/{app}.gschema.xml'):
            r = run(['glib-compile-schemas', '--strict', schemadir])
            if check(r.returncode == 0, 'installed schema compiles'):
                r = run(['gsettings', '--schemadir', schemadir, 'list-keys', app])
                keys = set(r.stdout.split())
                want = {'window-width', 'window-height', 'window-maximized', 'theme',
                        'orientation', 'default-interval-ms', 'threshold-pct',
                        'min-abs-ms', 'frame-matching', 'normalize', 'colour-metric',
                        'hide-noise', 'recent-commands', 'recording-frequency',
                        'recording-runs'}
                check(want <= keys, 'gsettings lists every key'
                      + (f' (missing {sorted(want - keys)})' if not want <= keys else ''))
                r = run(['gsettings', '--schemadir', schemadir, 'get', app, 'frame-matching'],
                        env=dict(os.environ, GSETTINGS_BACKEND='memory'))
                check(r.stdout.strip() == "'name+file'",
                      "gsettings reads the default frame-matching 'name+file'")

        # shared-mime-info: build the database in the staged tree and ask GIO
        mimedir = os.path.join(share, 'mime')
        pkg = os.path.join(mimedir, 'packages', app + '.xml')
        if check(os.path.isfile(pkg), f'{a.datadir}/mime/packages/{app}.xml') and \
                shutil.which('update-mime-database') and shutil.which('gio'):
            r = run(['update-mime-database', mimedir],
                    env=dict(os.environ, XDG_DATA_DIRS=share + ':/usr/share'))
            check(r.returncode == 0 and not r.stderr.strip(),
                  'update-mime-database accepts the definitions' + (': ' + r.stderr if r.stderr else ''))
            samples = {
                'profile.folded': (b'main;run 3\n', 'text/x-folded-stacks'),
                'profile.collapsed': (b'main;run 3\n', 'text/x-folded-stacks'),
                'out.perf': (b'prog 1 [000] 1.0: 1 cpu-clock:\n\tffff f (/bin/prog)\n\n', 'text/x-perf-script'),
                'p.speedscope.json': (b'{"$schema":"https://www.speedscope.app/file-format-schema.json"}', 'application/x-speedscope+json'),
                'schema-only.json': (b'{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{}}', 'application/x-speedscope+json'),
                'node.cpuprofile': (b'{"nodes":[],"samples":[],"timeDeltas":[]}', 'application/x-cpuprofile+json'),
                'cpu.pprof': (b'\x1f\x8b\x08\x00' + bytes(16), 'application/x-pprof'),
                'tachyon.bin': (b'HCAT\x01\x00\x00\x00' + bytes(56), 'application/x-python-sampling-profile'),
            }
            env = dict(os.environ,
                       XDG_DATA_DIRS=share + ':' + os.environ.get('XDG_DATA_DIRS', '/usr/local/share:/usr/share'),
                       XDG_DATA_HOME=os.path.join(dest, 'nonexistent'),
                       GIO_USE_VFS='local')
            files = os.path.join(dest, 'samples')
            os.mkdir(files)
            for name, (data, want) in samples.items():
                with open(os.path.join(files, name), 'wb') as f:
                    f.write(data)
                r = run(['gio', 'info', '-a', 'standard::content-type', os.path.join(files, name)], env=env)
                got = r.stdout.split('standard::content-type:')[-1].strip() if 'content-type' in r.stdout else r.stderr.strip()
                check(got == want, f'{name} is {want}' + ('' if got == want else f' (GIO says {got})'))

        # translations
        mo = os.path.join(dest, a.localedir.lstrip('/') if os.path.isabs(a.localedir)
                          else os.path.join(a.prefix.lstrip('/'), a.localedir),
                          'de', 'LC_MESSAGES', 'flamediff.mo')
        if check(os.path.isfile(mo), f'{a.localedir}/de/LC_MESSAGES/flamediff.mo'):
            t = gettext.translation('flamediff', os.path.dirname(os.path.dirname(os.path.dirname(mo))),
                                    languages=['de'])
            check(t.gettext('New Window') == 'Neues Fenster',
                  'the installed German catalogue translates "New Window"')

        # help
        helpdir = os.path.join(share, 'help', 'C', 'flamediff')
        for page in a.help_pages:
            check(os.path.isfile(os.path.join(helpdir, page)), f'{a.datadir}/help/C/flamediff/{page}')

        # example profiles
        for ex in ('baseline.folded', 'current.folded'):
            check(os.path.isfile(os.path.join(share, 'flamediff', 'examples', ex)),
                  f'{a.datadir}/flamediff/examples/{ex}')

    if failures:
        print(f'{len(failures)} check(s) failed')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Flathub's metainfo and desktop-entry requirements that Debian 12's
appstreamcli 0.16 does not enforce (it passes files without <releases>,
<screenshots> or <content_rating>, and does not know <developer id>).

Rules: flathub-infra/documentation, requirements and metainfo guidelines
(see docs in the project's shared GNOME platform notes, section 7.4)."""
import argparse
import configparser
import datetime
import re
import sys
import xml.etree.ElementTree as ET

XML_LANG = '{http://www.w3.org/XML/1998/namespace}lang'
errors = []


def fail(msg):
    errors.append(msg)


def untranslated(parent, tag):
    return [e for e in parent.findall(tag) if XML_LANG not in e.attrib]


def text_of(parent, tag):
    els = untranslated(parent, tag)
    return els[0].text.strip() if els and els[0].text else None


def check_metainfo(path, app_id, desktop_name, lang):
    root = ET.parse(path).getroot()
    if root.tag != 'component' or root.get('type') != 'desktop-application':
        fail('root must be <component type="desktop-application">')
    if text_of(root, 'id') != app_id:
        fail(f'<id> must be {app_id}')
    if text_of(root, 'metadata_license') != 'CC0-1.0':
        fail('<metadata_license> must be CC0-1.0')
    if not text_of(root, 'project_license'):
        fail('<project_license> (SPDX) is missing')

    name = text_of(root, 'name')
    if not name:
        fail('<name> is missing')
    elif len(name) >= 20:
        fail(f'<name> "{name}" must be shorter than 20 characters (15 recommended)')
    summary = text_of(root, 'summary')
    if not summary:
        fail('<summary> is missing')
    else:
        if not 10 <= len(summary) <= 35:
            fail(f'<summary> "{summary}" must be 10-35 characters (10-25 recommended)')
        if re.match(r'(?i)(a|an|the)\b', summary):
            fail('<summary> must not start with an article')
        if summary.endswith('.'):
            fail('<summary> must not end with a full stop')

    dev = root.find('developer')
    if dev is None or not dev.get('id') or dev.find('name') is None or not (dev.find('name').text or '').strip():
        fail('<developer id="..."><name>...</name></developer> is required')

    desc = [d for d in root.findall('description') if XML_LANG not in d.attrib]
    if not desc:
        fail('<description> is missing')
    allowed = {'description', 'p', 'ul', 'ol', 'li', 'em', 'code'}
    for d in root.iter('description'):
        for el in d.iter():
            if el.tag not in allowed:
                fail(f'<description> may only contain p, ul, ol, li, em, code; found <{el.tag}>')

    launch = root.findall('launchable')
    if not any(l.get('type') == 'desktop-id' and (l.text or '').strip() == desktop_name for l in launch):
        fail(f'<launchable type="desktop-id">{desktop_name}</launchable> is required')

    urls = {u.get('type'): (u.text or '').strip() for u in root.findall('url')}
    for t in ('homepage', 'bugtracker', 'vcs-browser'):
        if not urls.get(t, '').startswith('https://'):
            fail(f'<url type="{t}"> with an https URL is required')

    shots = root.find('screenshots')
    images = [] if shots is None else [i for s in shots.findall('screenshot') for i in s.findall('image')]
    if not images:
        fail('at least one <screenshot> with an <image> is required')
    for img in images:
        url = (img.text or '').strip()
        if not re.match(r'https://\S+\.(png|jpg|jpeg|webp)$', url):
            fail(f'screenshot URL "{url}" must be a direct https link to an image')
        m = re.match(r'https://raw\.githubusercontent\.com/[^/]+/[^/]+/([^/]+)/', url)
        if m and m.group(1) in ('main', 'master', 'HEAD', 'refs'):
            fail(f'screenshot URL "{url}" points at a branch; use a tag or a commit')
    if shots is not None and not any(s.get('type') == 'default' for s in shots.findall('screenshot')):
        fail('one screenshot must have type="default"')

    rels = root.find('releases')
    releases = [] if rels is None else rels.findall('release')
    if not releases:
        fail('<releases> with at least one <release> is required')
    today = datetime.date.today()
    dates = []
    for r in releases:
        if not r.get('version') or not r.get('date'):
            fail('every <release> needs version and date')
            continue
        d = datetime.date.fromisoformat(r.get('date')[:10])
        if d > today:
            fail(f'release {r.get("version")} is dated in the future ({d})')
        dates.append(d)
        if r.find('description') is None:
            fail(f'release {r.get("version")} has no release notes (<description>)')
    if dates != sorted(dates, reverse=True):
        fail('<release> elements must be ordered newest first')

    cr = root.find('content_rating')
    if cr is None or cr.get('type') != 'oars-1.1':
        fail('<content_rating type="oars-1.1"> is required')

    colours = {}
    branding = root.find('branding')
    for c in ([] if branding is None else branding.findall('color')):
        if c.get('type') == 'primary':
            colours[c.get('scheme_preference')] = (c.text or '').strip()
    for scheme in ('light', 'dark'):
        if not re.fullmatch(r'#[0-9a-fA-F]{6}', colours.get(scheme, '')):
            fail(f'<branding> needs a primary colour for the {scheme} scheme')

    tr = root.find('translation')
    if tr is None or tr.get('type') != 'gettext' or not (tr.text or '').strip():
        fail('<translation type="gettext"> is recommended and expected here')

    controls = [c.text for k in ('recommends', 'requires', 'supports')
                for e in root.findall(k) for c in e.findall('control')]
    if not {'keyboard', 'pointing'} <= set(controls):
        fail('<control>keyboard</control> and <control>pointing</control> are expected')
    if not any(e.find('display_length') is not None
               for k in ('recommends', 'requires') for e in root.findall(k)):
        fail('a <display_length> requirement or recommendation is expected')

    if lang:
        if not any(e.get(XML_LANG) == lang for e in root.iter('summary')):
            fail(f'the merged metainfo has no {lang} summary: translations did not merge')


def check_desktop(path, app_id, lang):
    cp = configparser.RawConfigParser(interpolation=None, strict=False)
    cp.optionxform = str
    cp.read(path, encoding='utf-8')
    entry = cp['Desktop Entry']
    if entry.get('Icon') != app_id:
        fail(f'desktop entry: Icon must be {app_id}')
    for key in ('Hidden', 'NoDisplay'):
        if entry.get(key, 'false') == 'true':
            fail(f'desktop entry: {key}=true is not allowed')
    if not entry.get('Exec', '').startswith('flamediff'):
        fail('desktop entry: Exec must start the flamediff binary')
    if 'new-window' not in entry.get('Actions', '').split(';'):
        fail('desktop entry: the new-window action is missing')
    if not entry.get('MimeType'):
        fail('desktop entry: MimeType is missing')
    if lang:
        for key in ('Name', 'Comment', 'Keywords'):
            if f'{key}[{lang}]' not in entry:
                fail(f'desktop entry: no {key}[{lang}]: translations did not merge')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--app-id', required=True)
    p.add_argument('--metainfo', required=True)
    p.add_argument('--desktop', required=True)
    p.add_argument('--translated-to', default=None)
    a = p.parse_args()
    check_metainfo(a.metainfo, a.app_id, a.app_id + '.desktop', a.translated_to)
    check_desktop(a.desktop, a.app_id, a.translated_to)
    for e in errors:
        print('FAIL: ' + e)
    if not errors:
        print('ok: metainfo and desktop entry meet the Flathub rules checked here')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())

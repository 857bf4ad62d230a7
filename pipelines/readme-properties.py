#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the README's property table of an element (default dlainfer) from gst-inspect-1.0 of a
build, or checks the README's:
   python3 pipelines/readme-properties.py [--element NAME] [BUILD_DIR]                  (default build)
   python3 pipelines/readme-properties.py --check README.md [--element NAME] [BUILD_DIR]  (exit 1 when it drifted)
dlainfer's table is the README's first; another element's is the table after a line
"<!-- gst-inspect-1.0 NAME -->", with only the rows dlainfer's table does not have (dladetect shares
dlainfer's common properties)."""
import difflib, re, subprocess, os, sys
args = sys.argv[1:]
check = None
element = 'dlainfer'
if args[:1] == ['--check']:
    check, args = args[1], args[2:]
if args[:1] == ['--element']:
    element, args = args[1], args[2:]
build = args[0] if args else 'build'
env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.path.join(build, 'gst'))
skip = {'name', 'parent', 'qos'}


def props_of(name):
    out = subprocess.run(['gst-inspect-1.0', name], capture_output=True, text=True, env=env).stdout
    if 'Element Properties:' not in out:
        sys.exit(f'readme-properties: gst-inspect-1.0 {name} found no such element in {build}/gst: build the plugin first')
    props = []; cur = None
    for line in out.split('Element Properties:')[1].splitlines():
        m = re.match(r'^  (\S[\w-]*)\s*: (.*)$', line)  # a name of 20+ characters has no space before ':'
        if m:
            cur = {'name': m.group(1), 'desc': m.group(2), 'rest': []}; props.append(cur)
        elif cur and line.strip():
            cur['rest'].append(line.strip())
    return props


def row(p):
    flags = next((r for r in p['rest'] if r.startswith('flags:')), '')
    when = 'read-only' if 'writable' not in flags else ('ready' if 'changeable only in NULL or READY' in flags else 'playing')
    typ = re.sub(r'\s+', ' ', ' '.join(r for r in p['rest'] if not r.startswith('flags:')))
    e = re.match(r'Enum "\w+" Default: -?\d+, "([\w-]+)" (.*)', typ)
    if e:
        names = re.findall(r'\(-?\d+\): ([\w-]+)\s+-', e.group(2))
        typ = 'enum: ' + ', '.join(n + (' (default)' if n == e.group(1) else '') for n in names)
    if typ.startswith('Boxed pointer of type "GstStructure"'):
        typ = 'GstStructure'
    typ = typ.replace('GstValueArray of GValues of type "gfloat"', 'float array').replace(
        'GstValueArray of GValues', 'array of numbers').replace('|', '\\|')
    return f"| `{p['name']}` | {typ} | {when} | {p['desc'].replace('|', chr(92) + '|')} |"


def rows_of(name):
    return [row(p) for p in props_of(name) if p['name'] not in skip]


rows = rows_of(element)
if element != 'dlainfer':
    common = set(rows_of('dlainfer'))
    rows = [r for r in rows if r not in common]
head = '| property | type, range, default | when | meaning |'
table = head + '\n|---|---|---|---|\n' + '\n'.join(rows)
if check is None:
    print(table)
    sys.exit(0)
readme = open(check).read().splitlines()
if head not in readme:
    sys.exit(f'readme-properties: {check} has no property table (a line "{head}")')
start = readme.index(head)
if element != 'dlainfer':
    marker = f'<!-- gst-inspect-1.0 {element} -->'
    if marker not in readme:
        sys.exit(f'readme-properties: {check} has no line "{marker}" before {element}\'s property table')
    start = readme.index(head, readme.index(marker))
end = start
while end < len(readme) and readme[end].startswith('|'):
    end += 1
diff = list(difflib.unified_diff(readme[start:end], table.splitlines(), check, f'gst-inspect-1.0 {element}',
                                 lineterm=''))
if diff:
    print('\n'.join(diff))
    opt = '' if element == 'dlainfer' else f' --element {element}'
    sys.exit(f'readme-properties: the {element} property table in {check} differs from gst-inspect-1.0 {element}: '
             f'replace it with the output of python3 pipelines/readme-properties.py{opt} {build}')
print(f'readme-properties: the {element} property table in {check} matches gst-inspect-1.0 {element} ({len(rows)} properties)')

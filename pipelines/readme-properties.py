#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the README's property tables (dlainfer's, then dladetect's own) from gst-inspect-1.0 of a
   build, or checks the README's:
   python3 pipelines/readme-properties.py [BUILD_DIR]                  (default build)
   python3 pipelines/readme-properties.py --check README.md [BUILD_DIR]  (exit 1 when it drifted)"""
import difflib, re, subprocess, os, sys
args = sys.argv[1:]
check = None
if args[:1] == ['--check']:
    check, args = args[1], args[2:]
build = args[0] if args else 'build'
env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.path.join(build, 'gst'))
def rows_of(element):
    """The table rows of gst-inspect-1.0 ELEMENT's properties."""
    out=subprocess.run(['gst-inspect-1.0',element],capture_output=True,text=True,env=env).stdout
    sec=out.split('Element Properties:')[1]
    props=[];cur=None
    for line in sec.splitlines():
        m=re.match(r'^  (\S[\w-]*)\s+: (.*)$',line)
        if m:
            cur={'name':m.group(1),'desc':m.group(2),'rest':[]};props.append(cur)
        elif cur and line.strip():
            cur['rest'].append(line.strip())
    rows=[]
    for p in props:
        if p['name'] in skip: continue
        flags=next((r for r in p['rest'] if r.startswith('flags:')),'')
        when='read-only' if 'writable' not in flags else ('ready' if 'changeable only in NULL or READY' in flags else 'playing')
        typ=' '.join(r for r in p['rest'] if not r.startswith('flags:'))
        typ=re.sub(r'\s+',' ',typ)
        e=re.match(r'Enum "\w+" Default: -?\d+, "([\w-]+)" (.*)', typ)
        if e:
            names=re.findall(r'\(-?\d+\): ([\w-]+)\s+-', e.group(2))
            typ='enum: '+', '.join(n+(' (default)' if n==e.group(1) else '') for n in names)
        if typ.startswith('Boxed pointer of type "GstStructure"'):
            typ='GstStructure'
        typ=typ.replace('GstValueArray of GValues of type "gfloat"','float array').replace('GstValueArray of GValues','array of numbers').replace('|','\\|')
        d=p['desc'].replace('|','\\|'); rows.append(f"| `{p['name']}` | {typ} | {when} | {d} |")
    return rows
skip={'name','parent','qos'}
head = '| property | type, range, default | when | meaning |'
infer=rows_of('dlainfer')
# dladetect's table: the rows that are not dlainfer's too (its own properties; the common ones are
# in dlainfer's table).
tables={'dlainfer': infer, 'dladetect': [r for r in rows_of('dladetect') if r not in infer]}
def table(rows):
    return head + '\n|---|---|---|---|\n' + '\n'.join(rows)
if check is None:
    for element, rows in tables.items():
        print(f'{element}:\n{table(rows)}\n')
    sys.exit(0)
readme = open(check).read().splitlines()
starts = [i for i, line in enumerate(readme) if line == head]
if len(starts) != len(tables):
    sys.exit(f'readme-properties: {check} has {len(starts)} property tables (lines "{head}"), not '
             f'{len(tables)}: dlainfer\'s, then dladetect\'s own')
failed = False
for start, (element, rows) in zip(starts, tables.items()):
    end = start
    while end < len(readme) and readme[end].startswith('|'):
        end += 1
    diff = list(difflib.unified_diff(readme[start:end], table(rows).splitlines(), check,
                                     f'gst-inspect-1.0 {element}', lineterm=''))
    if diff:
        print('\n'.join(diff))
        print(f'readme-properties: the {element} property table in {check} differs from gst-inspect-1.0 '
              f'{element}: replace it with the output of python3 pipelines/readme-properties.py {build}')
        failed = True
    else:
        print(f'readme-properties: the {element} property table in {check} matches ({len(rows)} properties)')
sys.exit(1 if failed else 0)

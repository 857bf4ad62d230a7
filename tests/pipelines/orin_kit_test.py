#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""orin_kit_test.py dry-run|no-jetson — pipelines/orin-acceptance.sh.

dry-run (gpu suite): DRY_RUN=1 with swdla and the trtexec stand-in must exit 0 and write a report in
the documented grammar with no FAIL, every twin built (or XFAIL where not DLA-legal), every loadable's
descriptors and results checked, the element classifying on both cores, and every probe run with
its figures. no-jetson (unit suite): without DRY_RUN on a machine with no JetPack, a clear message
and exit 3, never a crash, and the report says what is missing."""
import json
import os
import re
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.environ['DLAINFER_PIPELINES_DIR'], 'orin-acceptance.sh')
BUILD = os.environ['DLAINFER_BUILD_ROOT']
LINE = re.compile(r'^(# .*|(PASS|FAIL|XFAIL|INFO) \S+.*|PROBE \S+.*|SUMMARY pass=\d+ fail=\d+ xfail=\d+ probes=\d+)$')
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def main():
    with tempfile.TemporaryDirectory(prefix='orin-kit-') as tmp:  # the test's own, removed after
        run(sys.argv[1], tmp)


def run(mode, tmp):
    report = os.path.join(tmp, 'report.txt')
    env = dict(os.environ, REPORT=report, WORK=tmp, RUNS='20')
    env.pop('DRY_RUN', None)
    if mode == 'dry-run':
        env['DRY_RUN'] = '1'
    else:
        env['TRTEXEC'] = os.path.join(tmp, 'no-trtexec')
    p = subprocess.run(['bash', SCRIPT], env=env, capture_output=True, text=True, timeout=580)
    text = open(report).read() if os.path.exists(report) else ''
    lines = text.splitlines()
    print(text)
    bad = [l for l in lines if not LINE.match(l)]
    check(not bad, f'report lines outside the grammar: {bad[:5]}')
    check(lines and lines[-1].startswith('SUMMARY '), 'no SUMMARY last line')
    if mode == 'no-jetson':
        check(p.returncode == 3, f'exit {p.returncode}, wanted 3\n{p.stderr[-2000:]}')
        check(any(l.startswith('FAIL environment missing:') and 'JetPack' in l and 'TensorRT' in l for l in lines),
              'no "FAIL environment missing: ... JetPack ... TensorRT" line')
        check('DRY_RUN=1' in text, 'the message does not say how to dry-run')
    else:
        check(p.returncode == 0, f'exit {p.returncode}\n{p.stderr[-3000:]}')
        check(not [l for l in lines if l.startswith('FAIL')], 'FAIL lines in a dry run')
        twins = json.load(open(os.path.join(BUILD, 'orin-kit', 'manifest.json')))['twins']
        for t in twins:
            n = t['name']
            if t['dla_legal']:
                for kind in ('build', 'descriptors', 'results'):
                    check(any(l.startswith(f'PASS {kind} {n} ') or l.startswith(f'PASS {kind} {n}:') for l in lines),
                          f'no PASS {kind} for {n}')
            else:
                check(any(l.startswith(f'XFAIL build {n} ') for l in lines), f'no XFAIL build for {n}')
        for core in (0, 1):
            check(any(l.startswith(f'PASS element colours core {core}:') for l in lines), f'no element check on core {core}')
        check(any('max_abs_diff=' in l for l in lines if l.startswith('PASS results')), 'results without figures')
        probes = [l.split()[1] for l in lines if l.startswith('PROBE ')]
        for name, count in [('library', 1), ('queue-depth', 3), ('submit-cpu', 1), ('throughput', 2), ('both-cores', 1),
                            ('two-handles-one-core', 1), ('interference', 1), ('vs-trtexec', 4)]:
            check(probes.count(name) == count, f'probe {name}: {probes.count(name)} lines, wanted {count}')
        for l in lines:
            if l.startswith('PROBE ') and l.split()[1] != 'library':
                check('=?' not in l and re.search(r'=\d', l), f'a probe without figures: {l}')
        check(any(re.search(r'queue-depth colours handle=0 depth=512 accepted=\d+', l) for l in lines), 'deep queue figures')
        check(any('backend=swdla' in l for l in lines if l.startswith('PROBE library')), 'library probe')
    print(f'orin_kit_test {mode}: {len(failures)} failures')
    for f in failures:
        print('FAIL:', f)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The GPU host's runner (.ci/gpu_tests.py) on a made-up build directory (unit suite, no GPU).

Its meson-info lists small shell tests: the runner must give each its own LD_LIBRARY_PATH ahead
of the inherited one (a bundle's libraries), keep the inherited one for a test without its own,
record exit 0 as OK, 77 as SKIP, 1 as FAIL, select tests by name and refuse an unknown name; and
`report` must fail a log with a failure or a skip (a GPU is required on that host)."""
import json
import os
import subprocess
import sys
import tempfile

RUNNER = os.path.join(os.environ['DLAINFER_SOURCE_ROOT'], '.ci', 'gpu_tests.py')
failures = []


def check(ok, what):
    print(('ok: ' if ok else 'FAIL: ') + what)
    if not ok:
        failures.append(what)


def shell_test(name, script, env=None):
    return {'name': name, 'suite': ['gst-dlainfer:gpu'], 'cmd': ['/bin/sh', '-c', script],
            'env': env or {}, 'timeout': 30, 'workdir': None}


def runner(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, RUNNER] + list(args), capture_output=True, text=True,
                          env=e, timeout=60)


def log_entries(path):
    with open(path, encoding='utf-8') as f:
        return {e['name']: e for e in (json.loads(line) for line in f if line.strip())}


with tempfile.TemporaryDirectory() as build:
    os.mkdir(os.path.join(build, 'meson-info'))
    tests = [
        shell_test('own-path', 'printf %s "$LD_LIBRARY_PATH"', {'LD_LIBRARY_PATH': '/test/lib'}),
        shell_test('inherited-path', 'printf %s "$LD_LIBRARY_PATH"'),
        shell_test('skips', 'exit 77'),
        shell_test('fails', 'exit 1'),
    ]
    with open(os.path.join(build, 'meson-info', 'intro-tests.json'), 'w', encoding='utf-8') as f:
        json.dump(tests, f)
    log = os.path.join(build, 'log.json')

    p = runner('run', build, log, env={'LD_LIBRARY_PATH': '/bundle/lib'})
    entries = log_entries(log)
    check(p.returncode == 1, f'a run with a failure exits 1 (got {p.returncode})')
    check(entries['own-path']['stdout'] == '/test/lib:/bundle/lib',
          f"a test's own library path goes before the bundle's (got {entries['own-path']['stdout']!r})")
    check(entries['inherited-path']['stdout'] == '/bundle/lib',
          f"a test without one keeps the bundle's (got {entries['inherited-path']['stdout']!r})")
    check([entries[n]['result'] for n in ('own-path', 'skips', 'fails')] == ['OK', 'SKIP', 'FAIL'],
          'exit 0, 77 and 1 are OK, SKIP and FAIL')

    r = runner('report', log, 'made-up')
    check(r.returncode == 1 and 'FAILED: fails (FAIL)' in r.stdout and 'FAILED: skipped' in r.stdout,
          f'report fails a log with a failure and a skip ({r.stdout.strip().splitlines()[-1:]})')

    p = runner('run', build, log, 'own-path', 'inherited-path')
    check(p.returncode == 0 and sorted(log_entries(log)) == ['inherited-path', 'own-path'],
          f'tests picked by name run alone and pass (exit {p.returncode})')
    r = runner('report', log, 'made-up')
    check(r.returncode == 0, f'report passes a log of passes (exit {r.returncode})')

    p = runner('run', build, log, 'no-such-test')
    check(p.returncode != 0 and 'no test named no-such-test' in p.stderr,
          f'an unknown name is refused and named ({p.stderr.strip()!r})')

print(f'gpu_tests_test: {len(failures)} failure(s)')
sys.exit(1 if failures else 0)

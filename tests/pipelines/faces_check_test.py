#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/faces-check.py (the faces demo's comparison with face-api) on hand-made results:
agreement, a mismatch, a tie, a track face-api has no face for, tentative objects ignored, and
unreadable input (exit 2, one line naming the file and line)."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     'pipelines', 'faces-check.py')
failures = []

ORACLE = """# face-api 1.7.15
detector-mean 117 114 97
frame 0 faces 2
face 0 10 10 50 50 0.9 happy 0.99
face 0 200 10 50 50 0.8 sad 0.70
frame 1 faces 2
face 1 12 10 50 50 0.9 happy 0.98
face 1 202 10 50 50 0.8 neutral 0.55
frame 2 faces 2
face 2 14 10 50 50 0.9 neutral 0.51
face 2 204 10 50 50 0.8 sad 0.60
frame 3 faces 0
"""


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(results, oracle=ORACLE):
    with tempfile.TemporaryDirectory() as d:
        r, o = os.path.join(d, 'results.txt'), os.path.join(d, 'oracle.txt')
        with open(r, 'w') as f:
            f.write(results)
        with open(o, 'w') as f:
            f.write(oracle)
        p = subprocess.run([sys.executable, CHECK, r, o], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr


# Track 1 follows the left face (face-api: happy, happy, neutral: happy); track 2 the right one (sad,
# neutral, sad: sad); an object without an id (tentative) is not a track.
AGREE = """obj 0 1 11 10 50 50 happy 0.9 0
obj 0 -1 300 300 40 40 - 0 0
obj 1 1 13 10 50 50 happy 0.9 1
obj 2 1 15 10 50 50 happy 0.9 2
obj 0 2 200 11 50 50 sad 0.8 0
obj 1 2 202 11 50 50 sad 0.8 1
obj 2 2 204 11 50 50 neutral 0.6 0
"""
rc, out = run(AGREE)
check(rc == 0, f'agreement: exit 0 ({rc})\n{out}')
check('track #1: frames 0-2 (3): happy, face-api happy (2 of 3 matched frames): ok' in out, 'agreement: track 1 line')
check('track #2: frames 0-2 (3): sad, face-api sad (2 of 3 matched frames): ok' in out, 'agreement: track 2 line')
check("summary: 2 confirmed tracks, 2 with face-api's majority expression" in out, 'agreement: summary')

rc, out = run(AGREE.replace('obj 2 2 204 11 50 50 neutral', 'obj 2 2 204 11 50 50 sad')
              .replace('obj 0 2 200 11 50 50 sad', 'obj 0 2 200 11 50 50 happy')
              .replace('obj 1 2 202 11 50 50 sad', 'obj 1 2 202 11 50 50 happy'))
check(rc == 1 and 'track #2' in out and 'happy, face-api sad' in out and 'MISMATCH' in out,
      f'a track labelled otherwise than face-api: exit 1, MISMATCH ({rc})\n{out}')

# A tie in the track's own labels counts when one of them is face-api's majority.
rc, out = run('obj 0 5 11 10 50 50 happy 0.9 0\nobj 1 5 13 10 50 50 neutral 0.9 0\n')
check(rc == 0 and 'happy/neutral, face-api happy' in out, f'a tie including face-api\'s label: ok ({rc})\n{out}')

# A track where face-api found no face: a failure, said so.
rc, out = run('obj 0 7 100 300 50 50 happy 0.9 0\nobj 3 7 100 300 50 50 happy 0.9 0\n')
check(rc == 1 and 'face-api found no face there' in out, f'a track face-api has no face for ({rc})\n{out}')

# No confirmed track at all: nothing was tracked.
rc, out = run('obj 0 -1 11 10 50 50 - 0 0\n')
check(rc == 1 and 'no confirmed track' in out, f'no track: exit 1 ({rc})\n{out}')

rc, out = run('obj 0 1 11 10 50 happy 0.9 0\n')
check(rc == 2 and 'results.txt:1:' in out and 'not 9' in out, f'a short results line: exit 2, file and line ({rc})\n{out}')
rc, out = run(AGREE, ORACLE + 'face 4 1 2 3 4 0.9 happy x\n')
check(rc == 2 and 'oracle.txt' in out, f'a bad number in the oracle: exit 2 ({rc})\n{out}')
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run([sys.executable, CHECK, os.path.join(d, 'none.txt'), os.path.join(d, 'none.txt')],
                       capture_output=True, text=True)
    check(p.returncode == 2 and 'none.txt: No such file' in p.stderr, f'a missing file: exit 2\n{p.stderr}')

print(f'{len(failures)} failure(s)')
sys.exit(1 if failures else 0)

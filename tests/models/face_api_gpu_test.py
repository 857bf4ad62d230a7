#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Without a GPU: what the face-api GPU tests rely on. face_api_gpu.py's parsing of gst-launch -m's
dladetect-result and dlainfer-result lines (nested structures escaped, as GStreamer 1.22 prints
them, and bracketed, as later ones may), and face_api_gpu_data.py's refusal without the face-api
cache (exit 77 naming the fetch script; exit 1 with CI set)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import face_api_gpu as fa  # noqa: E402

failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def escaped(text):
    return ''.join('\\' + c if c in ',= ()<>"\\' else c for c in text)


DET = ('detection, label=(string)class_0, class-id=(int)0, confidence=(float)0.77899998426437378, x=(int){x}, '
       'y=(int)445, width=(int)313, height=(int)256')
OBJ = ('object, x=(int){x}, y=(int)445, width=(int)313, height=(int)256, tracking-id=(guint64)0, '
       'carried=(boolean)false, age=(uint)0, dla-core=(int)1, class-ids=(int)< 1, 0 >, '
       'labels=(string)< happy, neutral >, confidences=(float)< 0.35600000619888306, 0.31799998879432678 >')
for form, wrap in (('escaped', lambda s: '"' + escaped(s) + ';"'), ('bracketed', lambda s: '[' + s + ']')):
    dets = ', '.join(wrap(DET.format(x=x)) for x in (776, 5))
    objs = ', '.join(wrap(OBJ.format(x=x)) for x in (776, 5))
    out = (f'Got message #10 from element "dladetect0" (element): dladetect-result, timestamp=(guint64)0, '
           f'dla-core=(int)0, detections=(structure)< {dets} >;\n'
           f'Got message #11 from element "expressions" (element): dlainfer-result, timestamp=(guint64)0, '
           f'objects=(structure)< {objs} >;\n')
    got = fa.detections(out)
    check([b for _, b in got] == [[776, 445, 313, 256], [5, 445, 313, 256]] and abs(got[0][0] - 0.779) < 1e-6,
          f'{form}: dladetect-result detections {got}')
    got = fa.objects(out)
    check([o[0] for o in got] == [[776, 445, 313, 256], [5, 445, 313, 256]]
          and all(o[1] == ['happy', 'neutral'] and abs(o[2][0] - 0.356) < 1e-6 for o in got),
          f'{form}: dlainfer-result objects {got}')

with tempfile.TemporaryDirectory() as tmp:
    cmd = ['/usr/bin/python3', os.path.join(HERE, 'face_api_gpu_data.py'), os.path.join(tmp, 'out'),
           '--cache', os.path.join(tmp, 'no-cache')]
    env = {k: v for k, v in os.environ.items() if k != 'CI'}
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 77 and 'fetch-face-api.sh' in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          f'no cache: skip naming the fetch script (rc {r.returncode}, {r.stderr.strip()!r})')
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(env, CI='1'), timeout=60)
    check(r.returncode == 1 and 'fetch-face-api.sh' in r.stderr, f'no cache, CI: fails (rc {r.returncode})')
    check(not os.path.exists(os.path.join(tmp, 'out')) and not os.path.exists(os.path.join(tmp, 'out.part')),
          'no cache: no folder left behind')

print(f'{len(failures)} failure(s)')
sys.exit(1 if failures else 0)

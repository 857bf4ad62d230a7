# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the face-api GPU tests share: the prepared folder (face_api_gpu_data.py; carried to a GPU
host as BUILD/tests/data/face-api), gst-launch with its bus messages, and their parsing. NumPy only:
the GPU host has no Node, python3-onnx, PyGObject or face-api cache."""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
import launch_messages  # noqa: E402

CACHE = '/var/cache/gst-dlainfer/face-api'


def skip(why):
    if os.environ.get('CI'):
        print(f'FAIL: {why}')
        return 1
    print(f'SKIP: {why}')
    return 77


def data_dir():
    """The prepared folder; made here from the face-api cache when it is missing (a GPU machine
    with the cache). None when neither is there."""
    folder = os.path.join(os.environ.get('DLAINFER_TEST_DATA', os.path.join(HERE, 'data')), 'face-api')
    if os.path.isfile(os.path.join(folder, 'face-api.json')):
        return folder
    if not os.path.isdir(os.path.join(CACHE, 'node_modules')):
        return None
    r = subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'face_api_gpu_data.py'), folder])
    return folder if r.returncode == 0 else None


def missing_data(folder):
    return skip(f'no prepared face-api folder {folder or "DLAINFER_TEST_DATA/face-api"}: carry it '
                '(.ci/gpu-bundle.sh runs tests/models/face_api_gpu_data.py into BUILD/tests/data/face-api) '
                f'or fetch face-api into {CACHE} (tests/models/fetch-face-api.sh)')


def load(folder):
    with open(os.path.join(folder, 'face-api.json'), encoding='utf-8') as f:
        return json.load(f)


def means(values):
    return ','.join(f'{v:.6f}' for v in values)


def launch(elements, timeout=180):
    """gst-launch-1.0 -m ELEMENTS...: its stdout (bus messages), or RuntimeError with the tail."""
    cmd = ['gst-launch-1.0', '-m'] + elements
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed: {r.stdout[-2000:]} {r.stderr[-2000:]}')
    return r.stdout


def detections(stdout):
    """dladetect-result messages: [(score, [x, y, w, h])] in frame pixels."""
    return [(s, [x, y, w, h]) for _, s, x, y, w, h in launch_messages.detections(stdout)]


def objects(stdout):
    """The objects of dlainfer-result messages (inference-region=roi-list): [([x, y, w, h], labels,
    confidences)], best first. The nested structures come escaped: their backslashes are dropped."""
    text = stdout.replace('\\', '')
    out = []
    for m in re.finditer(r'object, x=\(int\)(-?\d+), y=\(int\)(-?\d+), width=\(int\)(\d+), height=\(int\)(\d+)'
                         r'(?:(?!object, x=).)*?labels=\(string\)(?:\{|<) *([^>}]*?) *(?:\}|>), '
                         r'confidences=\(float\)(?:\{|<) *([^>}]*?) *(?:\}|>)', text):
        labels = [s.strip().strip('"') for s in m.group(5).split(',') if s.strip()]
        conf = [float(s) for s in m.group(6).split(',') if s.strip()]
        out.append(([float(v) for v in m.group(1, 2, 3, 4)], labels, conf))
    return out


def iou(a, b):
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def report(failures):
    for line in failures:
        print('FAIL:', line)
    sys.stdout.flush()
    return 1 if failures else 0

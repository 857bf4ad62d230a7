#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""prep_gpu_test.py DATA: dlainfer-prep's cut models on the GPU (suite gpu). For each detector
write_prep_gpu.py prepared at build time (YOLOv5-, YOLOv7-, YOLOv8-, SSD-shaped graphs cut by
dlainfer-prep, imported into swdla, their .modelinfo beside them), the 8-bit picture (a PNG) as large as the
model's input goes through `dladetect` on swdla with no property but the model (the .modelinfo says
the rest): its detections must be the uncut graph's own decode's (same class, every side within
1.5 pixels, dladetect's messages give whole pixels, or IoU >= 0.9; score within 0.01; boxes at the
threshold or decided by an NMS tie excepted, prep_compare.py). Needs numpy only. Exit 77 without a
CUDA device (gpu_gate)."""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from prep_compare import compare, launch_detections  # noqa: E402

FAMILIES = ('yolov5', 'yolov7', 'yolov8', 'ssd')


def detect(data, family, w, h):
    cmd = ['gst-launch-1.0', '-m', 'filesrc', f'location={os.path.join(data, family + ".png")}', '!', 'pngdec',
           '!', f'video/x-raw,format=RGBA,width={w},height={h}', '!', 'dladetect', f'model={os.path.join(data, family + "-cut.swdla")}', 'post-messages=true', '!', 'fakesink']
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed: {r.stdout[-1500:]} {r.stderr[-1500:]}')
    return launch_detections(r.stdout)


def main():
    data = sys.argv[1]
    failures = []
    for family in FAMILIES:
        with open(os.path.join(data, family + '.json')) as f:
            case = json.load(f)
        got = detect(data, family, case['width'], case['height'])
        want = [(b, s, c) for b, s, c in case['want']]
        cand = tuple(np.asarray(case['candidates'][k]) for k in ('boxes', 'scores', 'classes'))
        fails = compare(got, want, cand, case['threshold'], px=1.5)
        print(f'{family}: uncut graph {len(want)} detections, dladetect on the cut graph {len(got)}, '
              f'{len(fails)} difference(s)')
        if len(want) < 10:
            fails.append(f'only {len(want)} expected detections')
        failures += [f'{family}: {x}' for x in fails[:10]]
    for line in failures:
        print('FAIL:', line)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

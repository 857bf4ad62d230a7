#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Imported ONNX graphs on swdla's CUDA executor (gpu suite): every model write_imported.py wrote
(build time, where python3-onnx is: the YOLOv5-, YOLOv8- and SSD-shaped networks once per output,
and one-kind graphs of the layer kinds format 2 added) run through the dla layer by
dlainfer-inspect --run on seeded inputs, output 0 compared with swdla's CPU executor
(swdla-tool run-dense) within inspect's FP16 tolerance (2 ulps of the largest |expected|) or one
INT8 step. INSPECT, SWDLA_TOOL, IMPORTED_STAMP, DLAINFER_CUDLA_LIBRARY come from meson."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

INSPECT, TOOL, STAMP = os.environ['INSPECT'], os.environ['SWDLA_TOOL'], os.environ['IMPORTED_STAMP']


def main():
    tmp = tempfile.mkdtemp(prefix='import-gpu-')
    models = [l.strip() for l in open(STAMP) if l.strip().endswith('.swdla')]
    failures = []
    if not models:
        failures.append(f'{STAMP} lists no models')
    rng = np.random.default_rng(11)
    for k, model in enumerate(models):
        name = os.path.basename(model)[:-len('.swdla')]
        info = subprocess.run([TOOL, 'info', model], capture_output=True, text=True).stdout
        ins = re.findall(r'^input \S+: \S+ (\w+) .* scale=(\S+) dims=(\d+)x(\d+)x(\d+)x(\d+)', info, re.M)
        outs = re.findall(r'^output (\S+): \S+ (\w+) .* scale=(\S+) dims=', info, re.M)
        if len(ins) != 1 or not outs:
            failures.append(f'{name}: expected one input and outputs in swdla-tool info:\n{info}')
            continue
        etype, scale, dims = ins[0][0], float(ins[0][1]), tuple(int(v) for v in ins[0][2:])
        x = rng.standard_normal(dims).astype(np.float32)
        if etype == 'int8':
            x = np.clip(np.rint(x / scale), -128, 127).astype(np.float32) * np.float32(scale)
        xin, want_dir, got = (os.path.join(tmp, f'{name}.{s}') for s in ('in.f32', 'want', 'got.f32'))
        x.tofile(xin)
        os.makedirs(want_dir, exist_ok=True)
        subprocess.run([TOOL, 'run-dense', model, want_dir, xin], check=True)
        out0, otype, oscale = outs[0][0].rstrip(':'), outs[0][1], outs[0][2]
        extra = ['--input-scale', str(scale)] if etype == 'int8' else []
        extra += ['--output-scale', oscale] if otype == 'int8' else []
        p = subprocess.run([INSPECT, '--run', '3', '--input', xin, '--output', got, '--expect',
                            os.path.join(want_dir, out0 + '.f32')] + extra + [model],
                           capture_output=True, text=True, timeout=300)
        ok = p.returncode == 0 and 'compare: result=PASS' in p.stdout + p.stderr
        print(f'{name:44} output 0 {out0:12} {"ok" if ok else "FAIL"}')
        if not ok:
            failures.append(f'{name}: exit {p.returncode}\n{p.stdout}{p.stderr}')
    print(f'import_gpu_test: {len(models)} imported models on the CUDA executor, {len(failures)} failures')
    for f in failures:
        print('FAIL:', f)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-inspect with swdla on a CUDA GPU (gpu suite): the tensors of every usable swdla model as
the element reads them, and --run on swdla models, the backbone-shaped one (1x64x56x56 ->
1x2048x7x7, not an image model) included: results against swdla's CPU executor (--expect), one
loadable on both cores, two handles on one core, a deep queue, and a wrong expectation caught.
INSPECT, SWDLA_TOOL, DLAINFER_TEST_DATA, DLAINFER_CUDLA_LIBRARY come from meson."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

INSPECT, TOOL, DATA = os.environ['INSPECT'], os.environ['SWDLA_TOOL'], os.environ['DLAINFER_TEST_DATA']
failures = []


def run(args):
    p = subprocess.run([INSPECT] + args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def check(cond, what, out=''):
    if not cond:
        failures.append(f'{what}\n{out}')


def fields(line):
    return dict(kv.split('=', 1) for kv in line.split() if '=' in kv)


def main():
    tmp = tempfile.mkdtemp(prefix='inspect-gpu-')
    models = sorted(f for f in os.listdir(DATA) if f.endswith('.swdla') and not f.startswith('broken-'))
    for f in models:
        rc, out = run([os.path.join(DATA, f)])
        check(rc == 0, f'{f}: exit {rc}', out)
        check(re.search(r"^input 0: '\w+' (fp16|int8) \w+ \d+x\d+x\d+x\d+ \(row \d+ B", out, re.M), f'{f}: no input line', out)
        check(re.search(r"^output 0: '\w+' (fp16|int8) ", out, re.M), f'{f}: no output line', out)
        tensors = len(re.findall(r"^(?:input|output) \d+: '", out, re.M))
        check(tensors >= 2 and out.count('  raw: name=') == tensors and 'reading: ' in out,
              f'{f}: raw descriptors missing', out)
    rc, out = run([os.path.join(DATA, 'backbone.swdla')])
    check("input 0: 'features' fp16 chw16 1x64x56x56" in out and "output 0: 'features_out' fp16 chw16 1x2048x7x7" in out,
          'backbone: tensors', out)
    # --run against swdla's CPU executor on the same seeded-free input file, several models.
    rng = np.random.default_rng(5)
    for name, extra in [('backbone', []), ('colours', []), ('random-cnn', []), ('readout-w225-fp16-dla_linear', []),
                        ('colours-int8-dla_hwc4', ['--input-scale', str(1 / 127)]),
                        ('random-cnn-int8', ['--input-scale', str(1 / 64), '--output-scale', str(1 / 32)])]:
        model = os.path.join(DATA, name + '.swdla')
        info = subprocess.run([TOOL, 'info', model], capture_output=True, text=True).stdout
        # The network's own dims (an hwc4 descriptor's c is the padded 4, the network's 3).
        n, c, h, w = (int(x) for x in re.search(r'dims=(\d+)x(\d+)x(\d+)x(\d+)', info).groups())
        x = (np.round(rng.uniform(0, 1, (n, c, h, w)) * 255) / 255).astype(np.float32)
        xin, want, got = (os.path.join(tmp, f'{name}.{s}') for s in ('in.f32', 'want.f32', 'got.f32'))
        x.tofile(xin)
        subprocess.run([TOOL, 'run-dense', model, want, xin], check=True)
        rc, out = run(['--run', '5', '--input', xin, '--output', got, '--expect', want] + extra + [model])
        check(rc == 0 and 'compare: result=PASS' in out, f'{name}: --run --expect', out)
        runs = [fields(l) for l in out.splitlines() if l.startswith('run: handle=')]
        check(len(runs) == 1 and runs[0]['tasks'] == '5' and float(runs[0]['task_us_p50']) > 0
              and float(runs[0]['cpu_submit_us']) > 0, f'{name}: run line', out)
        if os.path.exists(got):
            check(np.fromfile(got, np.float32).size == np.fromfile(want, np.float32).size, f'{name}: --output size')
    # One loadable on both cores, two handles on one core, random input: the same checksum everywhere.
    bb = os.path.join(DATA, 'backbone.swdla')
    rc, out = run(['--run', '20', '--cores', '0,1', '--random', '3', bb])
    check(rc == 0 and 'cores=2' in out and 'checksums_equal=yes' in out, 'backbone on both cores', out)
    rc, out = run(['--run', '20', '--handles', '2', '--core', '1', '--random', '3', bb])
    check(rc == 0 and out.count('run: handle=') == 2 and 'checksums_equal=yes' in out, 'two handles on core 1', out)
    sums = {fields(l)['checksum'] for l in out.splitlines() if l.startswith('run: handle=')}
    rc, out2 = run(['--run', '2', '--random', '3', bb])
    check(sums == {fields(l)['checksum'] for l in out2.splitlines() if l.startswith('run: handle=')},
          'same input, same checksum across runs', out + out2)
    rc, out = run(['--run', '2', '--random', '4', bb])
    check(sums != {fields(l)['checksum'] for l in out.splitlines() if l.startswith('run: handle=')},
          'another input, another checksum', out)
    rc, out = run(['--run', '32', '--queue', '16', os.path.join(DATA, 'colours.swdla')])
    q = [fields(l) for l in out.splitlines() if l.startswith('queue: ')]
    check(rc == 0 and len(q) == 1 and q[0]['depth'] == '16' and q[0]['accepted'] == '16', 'queue probe', out)
    # A wrong expectation fails (exit 7).
    wrong = os.path.join(tmp, 'wrong.f32')
    (np.fromfile(os.path.join(tmp, 'colours.want.f32'), np.float32) + 1).tofile(wrong)
    rc, out = run(['--run', '1', '--input', os.path.join(tmp, 'colours.in.f32'), '--expect', wrong,
                   os.path.join(DATA, 'colours.swdla')])
    check(rc == 7 and 'compare: result=FAIL' in out, 'a wrong expectation is caught', out)
    rc, out = run(['--run', '1', '--core', '7', bb])
    check(rc == 5 and 'opened=no' in out, 'core 7 does not exist', out)
    print(f'inspect_gpu_test: {len(models)} models inspected, {len(failures)} failures')
    for f in failures:
        print('FAIL:', f)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

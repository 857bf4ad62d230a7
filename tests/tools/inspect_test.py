#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-inspect on every kind of file, without a GPU (unit suite).

INSPECT: the program; DLAINFER_TEST_DATA: the swdla models; DLAINFER_CUDLA_LIBRARY: swdla.
Every generated swdla model, truncated copies of them, random bytes (with and without a known
magic in front), a TensorRT engine header, an NVIDIA loadable header, ONNX and ELF files, empty,
missing and directory paths, bad options: each has its exit code and message, and nothing
crashes (a signal, or an exit code outside the documented ones, fails). Then the library path
without a CUDA device (CUDA_VISIBLE_DEVICES=-1): swdla loads, the tensors are not read (5)."""
import os
import random
import subprocess
import sys
import tempfile

INSPECT = os.environ['INSPECT']
DATA = os.environ['DLAINFER_TEST_DATA']
DOCUMENTED = {0, 2, 3, 4, 5, 6, 7}
failures = []
checks = 0


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([INSPECT] + args, capture_output=True, text=True, env=e, timeout=60)
    return p.returncode, p.stdout + p.stderr


def expect(args, code, *needles, env=None):
    global checks
    checks += 1
    rc, out = run(args, env)
    what = ' '.join(os.path.basename(a) for a in args)
    if rc < 0 or rc not in DOCUMENTED:
        failures.append(f'{what}: exit {rc} (a crash or an undocumented code)\n{out}')
    elif code is not None and rc != code:
        failures.append(f'{what}: exit {rc}, wanted {code}\n{out}')
    for n in needles:
        if n not in out:
            failures.append(f'{what}: no {n!r} in\n{out}')
    return rc, out


def main():
    tmp = tempfile.mkdtemp(prefix='inspect-')
    models = sorted(f for f in os.listdir(DATA) if f.endswith('.swdla'))
    assert len(models) > 30, f'only {len(models)} swdla models in {DATA}'
    for f in models:
        path = os.path.join(DATA, f)
        if f == 'broken-zero-size.swdla':
            expect(['--identify', path], 3, 'is empty (0 bytes)')
        elif f == 'broken-truncated.swdla':
            expect(['--identify', path], 4, 'kind: swdla model', 'truncated')
        elif f == 'broken-magic.swdla':
            expect(['--identify', path], 4, 'kind: unknown')
        elif f == 'broken-nvda.swdla':
            expect(['--identify', path], 0, 'kind: cuDLA standalone loadable')
        elif f == 'broken-version.swdla':
            expect(['--identify', path], 4, 'kind: swdla model', 'is not one swdla reads')
        else:
            expect(['--identify', path], 0, 'kind: swdla model', 'version 2, ',
                   '1 output(s)' if not f.startswith('graph-') else 'output(s)')
    colours = open(os.path.join(DATA, 'colours.swdla'), 'rb').read()
    rng = random.Random(26)
    # Truncated at every kind of boundary: inside the magic, the header, a tensor record, a layer.
    for cut in [1, 4, 7, 8, 12, 31, 32, 100, 160, 288, 300, len(colours) - 1]:
        p = os.path.join(tmp, f'cut{cut}.swdla')
        open(p, 'wb').write(colours[:cut])
        rc, out = expect(['--identify', p], 4)
        if cut >= 8 and 'swdla model' not in out:
            failures.append(f'cut {cut}: not named an swdla model\n{out}')
    # Random bytes, bare and behind each magic: never a crash, never "ok" unless the magic says so.
    prefixes = [b'', b'SWDLAMDL', b'ftrt', b'\0\0\0\0NVDA', b'\x7fELF']
    for i in range(60):
        pre = prefixes[i % len(prefixes)]
        p = os.path.join(tmp, f'random{i}')
        open(p, 'wb').write(pre + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 600))))
        rc, out = expect(['--identify', p], None)
        want = {b'': 4, b'SWDLAMDL': 4, b'ftrt': 4, b'\0\0\0\0NVDA': 0, b'\x7fELF': 4}[pre]
        if os.path.getsize(p) == 0:
            want = 3
        if rc != want:
            failures.append(f'random{i} (prefix {pre!r}): exit {rc}, wanted {want}\n{out}')
    trt = os.path.join(tmp, 'model.engine')
    open(trt, 'wb').write(b'ftrt' + bytes(range(64)))
    expect(['--identify', trt], 4, 'kind: TensorRT engine',
           'this is a TensorRT engine, not a cuDLA loadable: rebuild with trtexec --buildDLAStandalone')
    expect([trt], 4, 'TensorRT engine')  # no library needed to refuse it
    onnx = os.path.join(tmp, 'model.onnx')
    open(onnx, 'wb').write(b'\x08\x07\x12\x07pytorch')
    expect(['--identify', onnx], 4, 'may be an ONNX model', 'trtexec --onnx=model.onnx')
    expect(['--identify', INSPECT], 4, 'an ELF file')
    empty = os.path.join(tmp, 'empty')
    open(empty, 'wb').close()
    expect(['--identify', empty], 3, 'is empty')
    expect(['--identify', os.path.join(tmp, 'missing')], 3, 'missing')
    expect(['--identify', tmp], 3)
    # Usage.
    expect([], 2, 'usage:')
    expect(['--run'], 2, '--run takes')
    expect(['--run', '0', 'x'], 2, '--run takes')
    expect(['--run', '1', '--core', '-1', 'x'], 2)
    expect(['--bogus', 'x'], 2, 'unknown option --bogus')
    expect(['--input', 'a', 'x'], 2, 'need --run N')
    expect(['--run', '1', '--random', '1', '--input', 'a', 'x'], 2, 'exclude each other')
    expect(['--help'], 0, 'Exit: 0 ok')
    # The library path without a GPU: swdla loads, no device, tensors not read (5).
    nogpu = {'CUDA_VISIBLE_DEVICES': '-1'}
    rc, out = expect([os.path.join(DATA, 'colours.swdla')], 5, 'kind: swdla model', 'library: ', 'backend=swdla',
                     'tensors: not read', env=nogpu)
    expect(['--run', '3', os.path.join(DATA, 'backbone.swdla')], 5, 'opened=no', env=nogpu)
    nv = os.path.join(tmp, 'real.loadable')
    open(nv, 'wb').write(b'\0\0\0\0NVDA' + bytes(100))
    expect([nv], 6, 'kind: cuDLA standalone loadable', 'backend=swdla', 'which runs only its own models', env=nogpu)
    expect([os.path.join(DATA, 'colours.swdla')], 5, 'tensors: not read: no cuDLA library',
           env={'DLAINFER_CUDLA_LIBRARY': os.path.join(tmp, 'no-libcudla.so.1')})
    print(f'inspect_test: {checks} runs, {len(failures)} failures')
    for f in failures:
        print('FAIL:', f)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compare_twins.py SWDLA_TOOL MODELDIR WORKDIR [--runtime ort|numpy|auto]

Builds the ONNX twins of the swdla test models (make_twins.py) into WORKDIR, checks each with
onnx.checker, runs it on seeded inputs with ONNX Runtime (`ort`: a runtime we did not write) or with
the NumPy evaluator onnx_eval.py (`numpy`: Debian 12, which has no onnxruntime), and compares with
swdla's CPU executor (`swdla-tool run-dense`) on the same inputs. Prints the max abs difference per
twin. Tolerances (the twin computes in FP16 between layers, swdla in FP32):
  FP16 output: |twin - swdla| <= 8 FP16 ulps of the output's largest magnitude (at least 1.0);
  INT8 output: at most 1 quantisation step; classifiers: the same argmax per image unless the
  swdla logits tie within that tolerance.
Exit 0 all agree, 1 a disagreement, 77 (skip) when a module is missing outside CI; in CI
(CI=true) a missing module is a failure."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def missing(what):
    ci = os.environ.get('CI', '') not in ('', '0', 'false')
    print(f'compare_twins: {what}' + (' (CI=true: a failure, not a skip)' if ci else ''))
    sys.exit(1 if ci else 77)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('swdla_tool')
    ap.add_argument('modeldir')
    ap.add_argument('workdir')
    ap.add_argument('--runtime', default='auto', choices=['ort', 'numpy', 'auto'])
    ap.add_argument('--inputs', type=int, default=2, help='seeded inputs per twin')
    args = ap.parse_args()
    try:
        import numpy as np
        import onnx
    except ImportError as e:
        missing(f'{e.name} is not installed (apt-get install python3-onnx python3-numpy)')
    runtime = args.runtime
    if runtime in ('ort', 'auto'):
        try:
            import onnxruntime as ort
            runtime = 'ort'
        except ImportError:
            if runtime == 'ort':
                missing('onnxruntime is not installed (Debian 13: apt-get install python3-onnxruntime)')
            runtime = 'numpy'
    sys.path.insert(0, HERE)
    import make_twins  # noqa: F401  (fails early if the generator cannot import)
    import onnx_eval

    os.makedirs(args.workdir, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, 'make_twins.py'), args.modeldir, args.workdir], check=True)
    manifest = json.load(open(os.path.join(args.workdir, 'manifest.json')))
    print(f'compare_twins: runtime {runtime}' + (f' (onnxruntime {ort.__version__})' if runtime == 'ort' else
                                                  ' (onnx_eval.py: NumPy, FP16 between nodes)')
          + f', onnx {onnx.__version__}, {len(manifest["twins"])} twins')
    print(f'{"twin":34} {"in":16} {"out":16} {"max abs diff":>12} {"tolerance":>10} {"steps":>5}  result')
    bad = 0
    tmp = tempfile.mkdtemp(prefix='twins-')
    for t in manifest['twins']:
        model = onnx.load(os.path.join(args.workdir, t['onnx']))
        onnx.checker.check_model(model, full_check=True)
        if runtime == 'ort':
            so = ort.SessionOptions()
            so.log_severity_level = 3
            sess = ort.InferenceSession(model.SerializeToString(), so, providers=['CPUExecutionProvider'])
        shape = t['input']['shape']
        in_type, in_scale = t['input']['format'].split(':')[0], np.float32(t['input']['scale'])
        out_type, out_scale = t['output']['format'].split(':')[0], np.float32(t['output']['scale'])
        worst, worst_tol, worst_steps, why = 0.0, 0.0, 0, ''
        for k in range(args.inputs):
            rng = np.random.default_rng(zlib.crc32(t['name'].encode()) % 1000 + k)  # stable: hash() is salted per process
            x = (np.round(rng.uniform(0, 1, shape) * 255) / 255).astype(np.float32)
            if k == 1 and t['name'].startswith('random-cnn'):
                x = rng.normal(0, 1, shape).astype(np.float32)  # signed inputs too
            xin, xout = os.path.join(tmp, 'in.f32'), os.path.join(tmp, 'out.f32')
            x.tofile(xin)
            subprocess.run([args.swdla_tool, 'run-dense', os.path.join(args.modeldir, t['swdla']), xout, xin], check=True)
            ref = np.fromfile(xout, np.float32).reshape(t['output']['shape'])
            if in_type == 'fp16':
                feed = x.astype(np.float16)
            else:
                feed = np.clip(np.rint(x / in_scale), -128, 127).astype(np.int8)
            if runtime == 'ort':
                got = sess.run(None, {t['input']['name']: feed})[0]
            else:
                got = onnx_eval.run(model, {t['input']['name']: feed})[0]
            got = got.astype(np.float32) * (out_scale if out_type == 'int8' else 1)
            d = np.abs(got - ref)
            if out_type == 'int8':
                tol = float(out_scale) * 1.0001
                steps = int(np.round(d.max() / out_scale))
            else:
                tol = 8 * float(np.spacing(np.float16(max(np.abs(ref).max(), 1.0))))
                steps = 0
            if d.max() > worst:
                worst = float(d.max())
            worst_tol, worst_steps = tol, max(worst_steps, steps)
            if d.max() > tol:
                why = f'input {k}: max diff {d.max():.3g} at {np.unravel_index(d.argmax(), d.shape)} > {tol:.3g}'
            if t['classifier'] and not why:
                for i in range(shape[0]):
                    r, g = ref[i].ravel(), got[i].ravel()
                    if r.argmax() != g.argmax() and r.max() - r[g.argmax()] > tol:
                        why = f'input {k} image {i}: argmax {g.argmax()} (twin) vs {r.argmax()} (swdla)'
        ok = not why
        bad += not ok
        print(f'{t["name"]:34} {t["input"]["format"]:16} {t["output"]["format"]:16} {worst:12.3g} {worst_tol:10.3g} '
              f'{worst_steps if out_type == "int8" else "-":>5}  {"ok" if ok else "DISAGREE: " + why}'
              + ('' if t['dla_legal'] else '  (not DLA-legal)'))
    # The comparison must be able to fail: a twin with one weight changed has to disagree.
    sentinel = onnx.load(os.path.join(args.workdir, 'random-cnn.onnx'))
    w = next(i for i in sentinel.graph.initializer if i.name.startswith('w_'))
    arr = onnx.numpy_helper.to_array(w).copy()
    arr.flat[0] += np.float16(0.5)
    w.CopyFrom(onnx.numpy_helper.from_array(arr, w.name))
    x = (np.round(np.random.default_rng(7).uniform(0, 1, (1, 3, 48, 64)) * 255) / 255).astype(np.float32)
    x.tofile(xin)
    subprocess.run([args.swdla_tool, 'run-dense', os.path.join(args.modeldir, 'random-cnn.swdla'), xout, xin], check=True)
    ref = np.fromfile(xout, np.float32)
    if runtime == 'ort':
        got = ort.InferenceSession(sentinel.SerializeToString(), providers=['CPUExecutionProvider']).run(
            None, {'image': x.astype(np.float16)})[0]
    else:
        got = onnx_eval.run(sentinel, {'image': x.astype(np.float16)})[0]
    sd = float(np.abs(got.astype(np.float32).ravel() - ref).max())
    print(f'compare_twins: sentinel (random-cnn with one weight + 0.5): max abs diff {sd:.3g}'
          + (' > 0.00781: caught' if sd > 0.00781 else ': NOT caught, the comparison is blind'))
    bad += sd <= 0.00781
    print(f'compare_twins: {len(manifest["twins"]) - bad} of {len(manifest["twins"])} twins agree with swdla ({runtime})')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()

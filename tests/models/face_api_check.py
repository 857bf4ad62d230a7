#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks the ONNX conversion of face-api's TinyFaceDetector and FaceExpressionNet against face-api
itself, on real photographs.

  face_api_check.py --cache DIR --work DIR [--skimage DIR]... [--fetch-skimage SCRIPT]
                    [--swdla-tool PATH (--swdla-import SCRIPT | --swdla-models DIR)]

1. Photographs: face-api's demo/sample1..6.jpg (in the npm package) and scikit-image's astronaut,
   chelsea, coffee, decoded with Pillow to RGB bytes.
2. The oracle: face_api_oracle.js (Node, face-api on tfjs's CPU backend) dumps each network's exact
   input and raw output; reused from WORK when nothing it depends on changed.
3. tools/models/face_api_to_onnx.py converts the weights; the NumPy evaluator (tools/twins/onnx_eval.py)
   and ONNX Runtime where it is installed run the ONNX on the dumped inputs: FP32 agreement within
   FP32_TOL, and the boxes decoded from the ONNX grid (face-api's decode, re-implemented below) equal
   face-api's own detections. Two controls: the padding moved to the top/left must fail the check.
4. The FP16-I/O model (input, weights and output rounded to FP16, FP32 arithmetic: what swdla does
   with fp16:chw16 tensors) is measured against the oracle; with --swdla-tool/--swdla-models (the two
   networks imported to swdla files tiny_face_detector.swdla, face_expression.swdla) swdla-tool
   run-dense runs them too, checked within FP16_TOL.
Exit 0 when all holds, 1 on a failure, 77 (skip) when the models cannot be made outside CI; with CI
set that is a failure."""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'twins'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'models'))
import face_api_to_onnx  # noqa: E402
import onnx_eval  # noqa: E402

FACE_API = 'node_modules/@vladmandic/face-api'
SKIMAGE = ['astronaut.png', 'chelsea.png', 'coffee.png']
# FP32 against FP32 (tfjs's CPU kernels against NumPy / ONNX Runtime): only the order of the sums
# differs. Per tensor: max |onnx - face-api| <= FP32_TOL * max(1, max |face-api|).
FP32_TOL = 1e-5
# FP16 I/O (docs/real-models.md derives it): the measured FP16-I/O model stays below a quarter of it.
FP16_TOL = {'grid': 5e-3, 'logits': 1e-2, 'expressions': 1e-2}
BOX_TOL_PX = 0.05


class Skip(Exception):
    pass


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def check_cache(cache):
    """The package as fetch-face-api.sh left it: every pinned file present with its checksum."""
    pins = os.path.join(HERE, 'face-api', 'files.sha256')
    pkg = os.path.join(cache, FACE_API)
    if not os.path.isdir(pkg):
        raise Skip(f'face-api is not in {cache} (run: bash tests/models/fetch-face-api.sh {cache})')
    with open(pins, encoding='utf-8') as f:
        for line in f:
            digest, name = line.split()
            path = os.path.join(pkg, name)
            if not os.path.isfile(path) or sha256(path) != digest:
                raise RuntimeError(f'{path}: missing or not the pinned file; fetch again: '
                                   f'bash tests/models/fetch-face-api.sh {cache}')
    return pkg


def find_skimage(dirs, fetch):
    for d in dirs:
        if all(os.path.isfile(os.path.join(d, n)) for n in SKIMAGE):
            return d
    if fetch and dirs and subprocess.run(['sh', fetch, dirs[0]], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL).returncode == 0:
        return dirs[0]
    raise Skip(f'scikit-image photographs not in {dirs} (bash tests/kernels/fetch_skimage_images.sh DIR)')


def decode_photos(pkg, skimage, work):
    from PIL import Image
    paths = [os.path.join(pkg, 'demo', f'sample{i}.jpg') for i in range(1, 7)]
    paths += [os.path.join(skimage, n) for n in SKIMAGE]
    os.makedirs(os.path.join(work, 'photos'), exist_ok=True)
    photos = []
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        with Image.open(path) as im:
            rgb = im.convert('RGB')
        out = os.path.join(work, 'photos', name + '.rgb')
        with open(out, 'wb') as f:
            f.write(rgb.tobytes())
        photos.append({'name': name, 'width': rgb.size[0], 'height': rgb.size[1], 'rgb': out,
                       'source': path, 'sha256': sha256(path)})
    with open(os.path.join(work, 'photos.json'), 'w', encoding='utf-8') as f:
        json.dump(photos, f, indent=1)
    return photos


def run_oracle(cache, work, photos):
    """face_api_oracle.js into CACHE/oracle-KEY (WORK/oracle where the cache is read-only), unless
    its stamp says a run had the same inputs: the minutes in Node are spent once per machine, not
    once per build (CI's three builds share the cache)."""
    key = hashlib.sha256()
    for path in [os.path.join(HERE, name) for name in ('face_api_oracle.js', 'face_api_load.js', 'face-api/files.sha256')]:
        key.update(sha256(path).encode())
    key.update(json.dumps([(p['name'], p['sha256']) for p in photos]).encode())
    oracle = os.path.join(cache, 'oracle-' + key.hexdigest()[:16]) if os.access(cache, os.W_OK) \
        else os.path.join(work, 'oracle')
    stamp = os.path.join(oracle, 'stamp')
    if os.path.isfile(stamp) and open(stamp, encoding='utf-8').read() == key.hexdigest():
        print('oracle: reusing', oracle)
    else:
        if shutil.which('node') is None:
            raise Skip('no node on PATH to run face-api (apt install nodejs)')
        shutil.rmtree(oracle, ignore_errors=True)
        r = subprocess.run(['node', os.path.join(HERE, 'face_api_oracle.js'), cache,
                            os.path.join(work, 'photos.json'), oracle], stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            errs = [line for line in r.stderr.splitlines() if line.startswith('face_api_oracle:')]
            raise RuntimeError(errs[-1] if errs else 'face_api_oracle.js failed: ' + r.stderr.strip()[-300:])
        with open(stamp, 'w', encoding='utf-8') as f:
            f.write(key.hexdigest())
    with open(os.path.join(oracle, 'oracle.json'), encoding='utf-8') as f:
        return oracle, json.load(f)


def load(oracle, name, rec):
    return np.fromfile(os.path.join(oracle, name, rec['file']), '<f4').reshape(rec['shape'])


def cases(oracle, record):
    """(model key, photo name, input, {output name: face-api's values}) for every dumped run."""
    out = []
    for p in record['photos']:
        out.append(('tiny_face_detector', p['name'], load(oracle, p['name'], p['input']),
                    {'grid': load(oracle, p['name'], p['output'])}))
        for k, face in enumerate(p['faces']):
            ref = {'logits': load(oracle, p['name'], face['logits']).reshape(1, 7, 1, 1),
                   'expressions': load(oracle, p['name'], face['probs']).reshape(1, 7, 1, 1)}
            out.append(('face_expression', f'{p["name"]}/face{k}', load(oracle, p['name'], face['input']), ref))
    return out


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def decode(grid, anchors, width, height, size=416, score_min=0.5, iou_max=0.4):
    """face-api's TinyYolov2Base.extractBoxes + nonMaxSuppression (src/tinyYolov2/TinyYolov2Base.ts,
    src/ops/nonMaxSuppression.ts), from a 1x25x13x13 grid: boxes in image pixels [x, y, w, h]."""
    cells = grid.shape[2]
    scale = size / max(width, height)
    # (JavaScript's Math.round: halves go up, unlike Python's round.)
    fx, fy = size / np.floor(width * scale + 0.5), size / np.floor(height * scale + 0.5)
    g = grid[0].astype(np.float64).reshape(len(anchors), 5, cells, cells)
    found = []
    for a, (ax, ay) in enumerate(anchors):
        for row in range(cells):
            for col in range(cells):
                tx, ty, tw, th, ts = g[a, :, row, col]
                score = sigmoid(ts)
                if score <= score_min:
                    continue
                w, h = np.exp(tw) * ax / cells * fx, np.exp(th) * ay / cells * fy
                x, y = (col + sigmoid(tx)) / cells * fx - w / 2, (row + sigmoid(ty)) / cells * fy - h / 2
                found.append((score, (row, col, a), np.array([x, y, w, h])))
    found.sort(key=lambda f: f[0], reverse=True)
    keep = []
    for f in found:
        if all(iou(f[2], k[2]) <= iou_max for k in keep):
            keep.append(f)
    return [(s, b * [width, height, width, height]) for s, _, b in keep]


def iou(a, b):
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def worst(got, ref):
    """max |got - ref| / max(1, max |ref|) over the outputs."""
    return max(float(np.abs(got[k].astype(np.float32) - ref[k]).max() / max(1.0, float(np.abs(ref[k]).max())))
               for k in ref)


def runners():
    out = {'numpy': lambda m, x: onnx_eval.run(m, {'input': x})}
    try:
        import onnxruntime as ort
    except ImportError:
        return out

    def run_ort(model, x):
        sess = ort.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
        return sess.run(None, {'input': x})
    out['onnxruntime'] = run_ort
    return out


def check_fp32(models, runs, record):
    failures = 0
    for rt, run in runners().items():
        err = {k: 0.0 for k in models}
        for key, name, x, ref in runs:
            got = dict(zip(ref if key == 'face_expression' else ['grid'], run(models[key], x)))
            e = worst(got, ref)
            err[key] = max(err[key], e)
            if e > FP32_TOL:
                print(f'FAIL: {rt} {key} {name}: relative error {e:.3g} > {FP32_TOL}')
                failures += 1
            if key == 'tiny_face_detector' and rt == 'numpy':
                failures += check_boxes(name, got['grid'], record)
        print(f'{rt}: FP32 agreement with face-api: ' + ', '.join(f'{k} {v:.2g}' for k, v in err.items()) +
              f' (max |diff| / max(1, max |face-api|) over {len(runs)} runs; tolerance {FP32_TOL})')
    return failures


def check_boxes(name, grid, record):
    photo = next(p for p in record['photos'] if p['name'] == name)
    mine = decode(grid, photo['anchors'], photo['width'], photo['height'])
    theirs = sorted(photo['detections'], key=lambda d: -d['score'])
    if len(mine) != len(theirs) or any(abs(s - d['score']) > 1e-5 or np.abs(b - d['box']).max() > BOX_TOL_PX
                                       for (s, b), d in zip(mine, theirs)):
        print(f'FAIL: {name}: boxes decoded from the ONNX grid {[(round(s, 3), b.round(1).tolist()) for s, b in mine]}'
              f' are not face-api\'s {[(round(d["score"], 3), [round(v, 1) for v in d["box"]]) for d in theirs]}')
        return 1
    return 0


def moved_pads(model, node_name):
    """A copy of model with node_name's bottom/right padding moved to the top/left."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for node in m.graph.node:
        if node.name == node_name:
            for a in node.attribute:
                if a.name == 'pads':
                    t, left, b, r = a.ints
                    a.ints[:] = [b, r, t, left]
    return m


def check_controls(models, runs):
    """The check must see where TF's odd padding pixel goes: moved to the top/left, it fails."""
    failures = 0
    for key, node in [('tiny_face_detector', 'pool5'), ('face_expression', 'dense1/conv0/depthwise')]:
        _, name, x, ref = next(r for r in runs if r[0] == key)
        got = dict(zip(ref, onnx_eval.run(moved_pads(models[key], node), {'input': x})))
        e = worst(got, ref)
        if e <= FP32_TOL * 100:
            print(f'FAIL: control: {key} with {node} padded top/left still agrees ({e:.3g})')
            failures += 1
        else:
            print(f'control: {key} with {node} padded top/left: relative error {e:.2g} (fails, as it must)')
    return failures


def fp16_model(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for t in m.graph.initializer:
        v = onnx.numpy_helper.to_array(t).astype(np.float16).astype(np.float32)
        t.CopyFrom(onnx.numpy_helper.from_array(v, t.name))
    return m


def fp16_io(model, x, ref):
    """model on x rounded to FP16, its outputs rounded to FP16: {output: values}."""
    outs = onnx_eval.run(model, {'input': x.astype(np.float16).astype(np.float32)})
    return {k: v.astype(np.float16) for k, v in zip(ref, outs)}


def same_boxes(grid, photo):
    mine = decode(grid.astype(np.float32), photo['anchors'], photo['width'], photo['height'])
    theirs = sorted(photo['detections'], key=lambda d: -d['score'])
    return len(mine) == len(theirs) and all(np.abs(b - d['box']).max() <= 1.0 for (_, b), d in zip(mine, theirs))


def check_fp16(models, runs, record, swdla_tool, swdla_models, work):
    """The FP16-I/O model always (FP16 weights too: the worse case decides); swdla-tool run-dense
    when the imported models are given."""
    variants = {'I/O': models, 'I/O and weights': {k: fp16_model(m) for k, m in models.items()}}
    if swdla_tool:
        variants['swdla'] = None
    err = {v: {} for v in variants}
    boxes_kept = {v: 0 for v in variants}
    failures = 0
    for key, name, x, ref in runs:
        for v, ms in variants.items():
            if ms is None:
                got = run_swdla(swdla_tool, os.path.join(swdla_models, key + '.swdla'), x, ref, work)
            else:
                got = fp16_io(ms[key], x, ref)
            for k in ref:
                err[v][k] = max(err[v].get(k, 0.0), worst({k: got[k]}, {k: ref[k]}))
                if ms is None and worst({k: got[k]}, {k: ref[k]}) > FP16_TOL[k]:
                    print(f'FAIL: swdla {key} {name} {k}: relative error {worst({k: got[k]}, {k: ref[k]}):.3g} '
                          f'> {FP16_TOL[k]}')
                    failures += 1
            if key == 'tiny_face_detector':
                boxes_kept[v] += same_boxes(got['grid'], next(p for p in record['photos'] if p['name'] == name))
    for v, e in err.items():
        what = 'swdla-tool run-dense, fp16:chw16 I/O' if v == 'swdla' else f'FP16-I/O model, {v} rounded to FP16'
        print(f'{what}: ' + ', '.join(f'{k} {x:.2g}' for k, x in e.items()) +
              f'; face-api\'s detections (count, boxes within 1 px) kept on {boxes_kept[v]} of '
              f'{len(record["photos"])} photographs (swdla tolerances {FP16_TOL})')
    for k, e in err['I/O and weights'].items():
        if e > FP16_TOL[k] / 4:
            print(f'FAIL: the FP16-I/O model of {k} needs {e:.3g}: FP16_TOL[{k!r}] leaves no margin')
            failures += 1
    return failures


def run_swdla(tool, model, x, ref, work):
    """swdla-tool run-dense on x: {output name: values}; RuntimeError with its message on failure."""
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        inp = os.path.join(tmp, 'input.f32')
        x.astype('<f4').tofile(inp)
        r = subprocess.run([tool, 'run-dense', model, tmp, inp], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f'swdla-tool run-dense {model}: {r.stderr.strip()}')
        return {k: np.fromfile(os.path.join(tmp, k + '.f32'), '<f4').reshape(ref[k].shape) for k in ref}


def import_swdla(script, onnx_dir, out):
    """Both ONNX files through the importer, default I/O (fp16:chw16) and FP32 weights."""
    os.makedirs(out, exist_ok=True)
    for key in face_api_to_onnx.MODELS:
        r = subprocess.run([sys.executable, script, os.path.join(onnx_dir, key + '.onnx'),
                            os.path.join(out, key + '.swdla')], capture_output=True, text=True)
        print((r.stdout + r.stderr).strip())
        if r.returncode != 0:
            print(f'FAIL: {key}.onnx does not import into swdla')
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cache', default='/var/cache/gst-dlainfer/face-api')
    ap.add_argument('--work', required=True, help='directory for photos, oracle dumps and ONNX files')
    ap.add_argument('--skimage', action='append', default=[], help='directory with the skimage photographs')
    ap.add_argument('--fetch-skimage', help='script that fetches them into the first --skimage')
    ap.add_argument('--swdla-tool')
    ap.add_argument('--swdla-models', help='directory with tiny_face_detector.swdla, face_expression.swdla')
    ap.add_argument('--swdla-import', help='swdla-import.py: import the ONNX files (fp16:chw16) into WORK/swdla')
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    try:
        pkg = check_cache(args.cache)
        photos = decode_photos(pkg, find_skimage(args.skimage, args.fetch_skimage), args.work)
        oracle, record = run_oracle(args.cache, args.work, photos)
        onnx_dir = os.path.join(args.work, 'onnx')
        if face_api_to_onnx.main([os.path.join(pkg, 'model'), onnx_dir]) != 0:
            return 1
    except Skip as e:
        if os.environ.get('CI'):
            print(f'FAIL: {e} (CI must fetch it in its install step: .ci/install-deps.sh)')
            return 1
        print(f'SKIP: {e}')
        return 77
    except (RuntimeError, OSError) as e:
        print(f'FAIL: {e}')
        return 1
    models = {k: onnx.load(os.path.join(onnx_dir, k + '.onnx')) for k in face_api_to_onnx.MODELS}
    if args.swdla_import:
        args.swdla_models = os.path.join(args.work, 'swdla')
        if not import_swdla(args.swdla_import, onnx_dir, args.swdla_models):
            return 1
    runs = cases(oracle, record)
    faces = sum(len(p['faces']) for p in record['photos'])
    dets = sum(len(p['detections']) for p in record['photos'])
    print(f'face-api {record["face_api"]} (tfjs {record["tfjs"]}, {record["backend"]} backend): '
          f'{len(record["photos"])} photographs, {dets} faces detected, {faces} crops classified')
    failures = check_fp32(models, runs, record) + check_controls(models, runs)
    try:
        failures += check_fp16(models, runs, record, args.swdla_tool, args.swdla_models, args.work)
    except RuntimeError as e:
        print(f'FAIL: {e}')
        failures += 1
    print('FAIL' if failures else 'PASS', f'({failures} failures)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""prep_test.py --keys PREP-MODELINFO-KEYS --ref-cli DETECT-REF-CLI [--ort DIR]: dlainfer-prep
(tools/prep/dlainfer-prep.py) on the CPU.

  families  YOLOv5-, YOLOv7-, YOLOv8-, SSD-shaped graphs with their exporters' decode and a
            classifier (prep_graphs.py, seeded random weights): the proposed cut is the expected
            tensors; the cut graph and its FP16 copy import into swdla (every node passes the DLA
            rules, tools/onnx_import); the .modelinfo is read by the element's own reader, checked
            against the cut's tensors, configured and planned as dladetect does at start
            (prep-modelinfo-keys); the cut graph's outputs (FP16, chw16) decoded by dladetect's CPU
            reference (detect-ref-cli) with those keys give the boxes of the uncut graph's own decode
            run by ONNX Runtime (npm onnxruntime-node in Node, --ort; the NumPy evaluator
            tools/twins/onnx_eval.py, which the GPU test's data uses, must agree with it)
  lines     the trtexec lines printed for the YOLOv5-shaped graph are those docs/model-prep.md
            gives, and pipelines/build-loadable.sh (the Orin kit) runs the same line from the line
            dlainfer-prep prints for it, and builds (trtexec stand-in) a loadable
  refusals  not ONNX, dynamic shapes (then fixed by --input-shape), an unknown opset, an
            unrecognised head (then --cut-at), a model the DLA loses early, a bad --cut-at
  face-api  the real TinyFaceDetector (tools/models/face_api_to_onnx.py, the face-api cache): the
            whole network is the cut, and its .modelinfo (decoder keys given with --key) plans
Without ONNX Runtime or the face-api cache those parts are skipped and said; under CI=1 they fail,
naming the fix. Exit 0 pass, 1 a failure, 77 python3-onnx missing (outside CI)."""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CI = os.environ.get('CI', '') not in ('', '0', 'false')
FACE_API = '/var/cache/gst-dlainfer/face-api'
ORT_CACHE = '/var/cache/gst-dlainfer/onnxruntime-node'
try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
except ImportError as e:
    print(f'prep_test: {e.name} is not installed (apt-get install python3-onnx python3-numpy)')
    sys.exit(1 if CI else 77)
sys.path[:0] = [HERE, os.path.join(ROOT, 'tools'), os.path.join(ROOT, 'tools', 'models')]
import prep_cases  # noqa: E402
import prep_compare  # noqa: E402
import prep_graphs  # noqa: E402
from onnx_import import importer  # noqa: E402

FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print(f'  FAIL: {what}')
    return ok


def missing(what, fix):
    if CI:
        check(False, f'{what} (CI=1: {fix})')
    else:
        print(f'  SKIP: {what} ({fix})')


def tensor_shapes(model):
    inferred = onnx.shape_inference.infer_shapes(model).graph
    return {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in list(inferred.input) + list(inferred.output) + list(inferred.value_info)}


def chw16(a):
    """A 1 x C x H x W float array as FP16 chw16 bytes ([C/16][H][W][16], pad lanes zero)."""
    _, c, h, w = a.shape
    groups = -(-c // 16)
    out = np.zeros((groups * 16, h, w), np.float16)
    out[:c] = a[0]
    return out.reshape(groups, 16, h, w).transpose(0, 2, 3, 1).tobytes()


def plan_keys(args, modelinfo, cut, detector=True):
    """prep-modelinfo-keys on the written file: (keys, plan line) or None (a failure said). Not a
    detector: the file must pass the reader and its checks, and only the decoder be missing."""
    shapes = tensor_shapes(cut)
    tensors = [f'{vi.name}:{":".join(map(str, (shapes[vi.name][1:] + [1, 1])[:3]))}' for vi in list(cut.graph.input)
               + list(cut.graph.output)]
    r = subprocess.run([args.keys, modelinfo] + tensors, capture_output=True, text=True)
    if not detector:
        check(r.returncode == 3 and 'No decoder for' in r.stderr,
              f'{modelinfo}: a classifier\'s file must read, check and name no decoder: {r.stderr.strip()}')
        return None
    if not check(r.returncode == 0, f'{modelinfo}: the element\'s reader refuses it: {r.stderr.strip()}'):
        return None
    keys = [line.split(' ', 2)[1:] for line in r.stdout.splitlines() if line.startswith('key ')]
    plan = next((line for line in r.stdout.splitlines() if line.startswith('plan ')), '')
    return keys, plan


def decode_cut(args, work, family, cut, x, keys):
    """dladetect's CPU reference on the cut graph's outputs: [(box, score, class)]."""
    import onnx_eval
    outs = onnx_eval.run(cut, {cut.graph.input[0].name: x})
    lines = [f'key {k} {v}' for k, v in keys]
    lines += [f'input {x.shape[3]} {x.shape[2]}', f'frame {x.shape[3]} {x.shape[2]} 0 0 {x.shape[3]} {x.shape[2]} stretch']
    for vi, y in zip(cut.graph.output, outs):
        path = os.path.join(work, f'{family}-{len(lines)}.chw16')
        with open(path, 'wb') as f:
            f.write(chw16(y))
        _, c, h, w = y.shape
        lines.append(f'output {vi.name} chw16 fp16 1 {c} {h} {w} 0 {path}')
    case = os.path.join(work, f'{family}.case')
    with open(case, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    r = subprocess.run([args.ref_cli, case], capture_output=True, text=True)
    if not check(r.returncode == 0, f'{family}: detect-ref-cli: {r.stderr.strip()}'):
        return []
    got = []
    for line in r.stdout.splitlines():
        if line.startswith('det '):
            v = line.split()[1:]
            got.append(([float(t) for t in v[:4]], float(v[4]), int(v[5])))
    return got


def ort_outputs(args, work, model_path, x):
    """The graph's outputs from ONNX Runtime in Node, or None."""
    path = os.path.join(work, 'ort-input.f32')
    x.tofile(path)
    out = os.path.join(work, 'ort-' + os.path.basename(model_path))
    os.makedirs(out, exist_ok=True)
    r = subprocess.run(['node', os.path.join(HERE, 'prep_ort.js'), args.ort, model_path, path, out],
                       capture_output=True, text=True, env=dict(os.environ, PREP_INPUT_DIMS=json.dumps(list(x.shape))))
    if not check(r.returncode == 0, f'ONNX Runtime on {model_path}: {r.stderr.strip()}'):
        return None
    with open(os.path.join(out, 'outputs.json')) as f:
        info = json.load(f)
    return [np.fromfile(os.path.join(out, f'{i}.f32'), np.float32).reshape(o['dims'])
            for i, o in enumerate(info['outputs'])]


def test_family(args, work, family, have_ort):
    print(f'{family}:')
    model = prep_graphs.MODELS[family]()
    path = os.path.join(work, family + '.onnx')
    onnx.save(model, path)
    prefix = os.path.join(work, family + '-cut')
    r = prep_cases.run_prep(path, prefix, prep_cases.prep_keys(family) if family in prep_cases.DETECTORS else [])
    if not check(r.returncode == 0, f'{family}: exit {r.returncode}: {r.stderr.strip()}'):
        return
    want_cut = prep_cases.EXPECTED_CUT[family](model)
    check(prep_cases.proposed_cut(r.stdout) == want_cut,
          f'{family}: cut at {prep_cases.proposed_cut(r.stdout)}, expected {want_cut}')
    cut = onnx.load(prefix + '.onnx')
    check([o.name for o in cut.graph.output] == want_cut, f'{family}: the cut graph\'s outputs are not {want_cut}')
    for copy in (prefix + '.onnx', prefix + '.fp16.onnx'):
        try:
            data, summary = importer.convert(importer.load(copy))
            print(f'  {os.path.basename(copy)}: every node DLA-legal ({summary["layers"]} swdla layers)')
        except (importer.Refused, importer.BadModel) as e:
            check(False, f'{copy}: not DLA-legal: {e.lines() if isinstance(e, importer.Refused) else e}')
    fp16 = onnx.load(prefix + '.fp16.onnx')
    check(all(vi.type.tensor_type.elem_type == TensorProto.FLOAT16 for vi in list(fp16.graph.input)
              + list(fp16.graph.output)), f'{family}: the FP16 copy\'s I/O is not FLOAT16')
    keys = plan_keys(args, prefix + '.modelinfo', cut, family in prep_cases.DETECTORS)
    if keys is None:
        return
    print(f'  .modelinfo: {keys[1]}; ' + ', '.join(f'{k}={v}' for k, v in keys[0]))
    _, x = prep_cases.picture(model)
    got = decode_cut(args, work, family, cut, x, keys[0])
    want_np, cand_np = prep_cases.expected(family, model, x)
    runtime = 'the NumPy evaluator'
    want, cand = want_np, cand_np
    if have_ort:
        outs = ort_outputs(args, work, path, x)
        if outs is None:
            return
        want, cand = prep_cases.expected(family, model, x, outs)
        runtime = 'ONNX Runtime'
        # The GPU test's data uses the NumPy evaluator: it must give ONNX Runtime's detections.
        fails = prep_cases.compare([(b, s, c) for b, s, c in want_np], want, cand, prep_cases.THRESHOLDS[family],
                                   tol=1e-4, px=0.01)
        check(not fails, f'{family}: the NumPy evaluator\'s decode differs from ONNX Runtime\'s: {fails[:3]}')
    fails = prep_cases.compare(got, want, cand, prep_cases.THRESHOLDS[family], px=0.5)
    print(f'  uncut graph\'s decode ({runtime}): {len(want)} detections; cut graph through dladetect\'s decoder: '
          f'{len(got)}')
    check(len(want) >= 10, f'{family}: only {len(want)} detections: the case checks too little')
    for f in fails[:10]:
        check(False, f'{family}: {f}')
    if family == 'yolov5':  # a sentinel: the anchors of the levels swapped must not pass
        wrong = [(k, ';'.join(reversed(v.split(';'))) if k == 'dlainfer-anchors' else v) for k, v in keys[0]]
        bad = prep_cases.compare(decode_cut(args, work, family, cut, x, wrong), want, cand,
                                 prep_cases.THRESHOLDS[family], px=0.5)
        check(len(bad) > 10, f'{family}: the comparison misses swapped anchors ({len(bad)} differences)')


def doc_lines():
    """The lines docs/model-prep.md gives for its example (the YOLOv5-shaped test graph)."""
    with open(os.path.join(ROOT, 'docs', 'model-prep.md')) as f:
        text = f.read()
    block = re.search(r'<!-- prep_test: yolov5 -->\n```\n(.*?)```', text, re.S)
    return block.group(1).splitlines() if block else None


def test_launch_messages():
    """prep-gpu reads dladetect's boxes from gst-launch -m: 1.22 prints nested structures escaped,
    later versions may bracket them."""
    det = ('detection, label=(string)class_2, class-id=(int)2, confidence=(float)0.95499998331069946, '
           'x=(int){x}, y=(int)-3, width=(int)13, height=(int)20')
    for form, wrap in (('escaped', lambda t: '"' + ''.join('\\' + c if c in ',= ()' else c for c in t) + ';"'),
                       ('bracketed', lambda t: '[' + t + ']')):
        line = ('Got message #9 from element "dladetect0" (element): dladetect-result, dla-core=(int)0, '
                'detections=(structure)< ' + ', '.join(wrap(det.format(x=x)) for x in (40, 7)) + ' >;')
        got = prep_compare.launch_detections(line)
        check([g[0] for g in got] == [[40, -3, 53, 17], [7, -3, 20, 17]] and all(g[2] == 2 for g in got)
              and abs(got[0][1] - 0.955) < 1e-6, f'{form} dladetect-result: {got}')


def test_lines(work):
    print('lines:')
    path = os.path.join(work, 'yolov5.onnx')
    onnx.save(prep_graphs.yolov5(), path)
    r = subprocess.run(['/usr/bin/python3', prep_cases.PREP, 'yolov5.onnx', '--quiet-table'], cwd=work,
                       capture_output=True, text=True)
    printed = [line for line in r.stdout.splitlines() if not re.match(r'(#|\d+ )', line)]
    printed = [line for line in printed if not line.startswith(('dlainfer-prep: DLA region', 'dlainfer-prep: first'))]
    want = doc_lines()
    if check(want is not None, 'docs/model-prep.md has no "<!-- prep_test: yolov5 -->" block'):
        check(printed == want, 'the printed lines differ from docs/model-prep.md\'s:\n' + '\n'.join(
            f'    {a!r}\n != {b!r}' for a, b in zip(printed, want) if a != b) + f'\n  ({len(printed)} vs {len(want)} lines)')
    trt = {11: None, 10: None}
    for k, line in enumerate(printed):
        if line.startswith('dlainfer-prep: TensorRT 11 ('):
            trt[11] = printed[k + 1].split()
        if line.startswith('dlainfer-prep: TensorRT 8.5-10, INT8'):
            trt[10] = printed[k + 1].split()
    kit = [line.split() for line in printed if 'pipelines/build-loadable.sh' in line]
    check(len(kit) == 2 and all(trt.values()), f'the TensorRT 11/10 lines or the kit lines are missing: {printed}')
    # The kit's script, from the line dlainfer-prep printed, runs the same trtexec line; the stand-in
    # builds (copies) the cut graph imported into swdla as the loadable.
    models = os.path.join(work, 'standin')
    os.makedirs(models, exist_ok=True)
    subprocess.run(['/usr/bin/python3', prep_cases.PREP, 'yolov5.onnx', '--cut', '--quiet-table'], cwd=work,
                   capture_output=True, check=True)
    data, _ = importer.convert(importer.load(os.path.join(work, 'yolov5-cut.fp16.onnx')))
    for name in ('yolov5-cut.fp16', 'yolov5-cut'):
        with open(os.path.join(models, name + '.swdla'), 'wb') as f:
            f.write(data)
    for words, version in zip(kit, (11, 10)):
        env = dict(os.environ, TRTEXEC=os.path.join(ROOT, 'pipelines', 'orin-kit', 'trtexec-standin.sh'),
                   STANDIN_MODELS=models)
        assigns = [w for w in words if '=' in w and not w.startswith('-') and w.split('=')[0].isupper()]
        env.update(dict(w.split('=', 1) for w in assigns))
        cmd = words[len(assigns):]
        cmd[1] = os.path.join(ROOT, cmd[1])
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        ran = next((shlex.split(line.split(': ', 1)[1]) for line in r.stdout.splitlines()
                    if line.startswith('build-loadable.sh: ') and 'trtexec' in line), None)
        check(ran is not None and ran[1:] == trt[version][1:],
              f'TensorRT {version}: build-loadable.sh ran {ran}, dlainfer-prep printed {trt[version]}')
        if version == 11:
            check(r.returncode == 0 and os.path.getsize(os.path.join(work, 'yolov5-cut.loadable')) == len(data),
                  f'build-loadable.sh did not build the loadable: {r.stdout[-300:]} {r.stderr[-300:]}')
    print(f'  docs/model-prep.md\'s lines; build-loadable.sh runs TensorRT 11\'s and 10\'s INT8 line')


def prep(args_list, cwd=None):
    return subprocess.run(['/usr/bin/python3', prep_cases.PREP] + args_list, cwd=cwd, capture_output=True, text=True)


def refused(r, code, *words):
    line = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''
    ok = r.returncode == code and all(w in line for w in words)
    check(ok, f'expected exit {code} and {words} in one line, got {r.returncode}: {r.stderr.strip()!r}')
    if ok:
        print(f'  exit {code}: {line[:150]}')


def test_refusals(work):
    print('refusals:')
    bad = os.path.join(work, 'not.onnx')
    with open(bad, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n not a model')
    refused(prep([bad]), 2, 'is not an ONNX model')
    refused(prep([os.path.join(work, 'missing.onnx')]), 2, 'cannot read')

    m = prep_graphs.yolov5()
    for k, p in ((0, 'batch'), (2, 'height'), (3, 'width')):
        d = m.graph.input[0].type.tensor_type.shape.dim[k]
        d.Clear()
        d.dim_param = p
    dyn = os.path.join(work, 'dynamic.onnx')
    onnx.save(m, dyn)
    refused(prep([dyn]), 2, "input 'images' dimension 0 (batch) is dynamic ('batch' in the file)",
            '--input-shape images:')
    r = prep([dyn, '--input-shape', 'images:1x3x128x160', '--quiet-table'])
    check(r.returncode == 0 and 'cut at: head0, head1, head2' in r.stdout,
          f'--input-shape does not fix the dynamic input: {r.returncode} {r.stderr.strip()}')
    refused(prep([dyn, '--input-shape', 'images:1x3x128']), 2, '3 dimensions for an input of rank 4')

    m = prep_graphs.classifier()
    m.opset_import[0].version = 99
    opset = os.path.join(work, 'opset99.onnx')
    onnx.save(m, opset)
    refused(prep([opset]), 2, 'opset 99', 'not one this tool knows', 'opset_version=17')

    # A head no family fits: the heads transposed to N x H x W x C, nothing else.
    m = prep_graphs.onnx_graphs.yolov5()
    b = prep_graphs.Builder(m)
    heads = [o.name for o in m.graph.output]
    b.outputs([b.node('Transpose', [h], perm=[0, 2, 3, 1]) for h in heads])
    odd = os.path.join(work, 'odd-head.onnx')
    onnx.save(b.finish(), odd)
    r = prep([odd])
    refused(r, 3, 'no detector head or classifier recognised', '--cut-at', 'head0, head1, head2')
    check(' Transpose ' in r.stdout and 'runs on' in r.stdout, 'the table is not printed before the refusal')
    r = prep([odd, '--cut-at', ','.join(heads), '--cut', '--quiet-table', '--out', os.path.join(work, 'odd-cut')])
    check(r.returncode == 0 and [o.name for o in onnx.load(os.path.join(work, 'odd-cut.onnx')).graph.output] == heads,
          f'--cut-at does not cut there: {r.returncode} {r.stderr.strip()}')
    refused(prep([odd, '--cut-at', 'nosuch', '--cut']), 2, "--cut-at names 'nosuch', not a tensor")

    gpu = os.path.join(work, 'gpu-backbone.onnx')
    onnx.save(prep_graphs.gpu_backbone(), gpu)
    refused(prep([gpu]), 4, 'no DLA-legal cut keeps most of its work on the DLA', 'transpose_9')


def test_face_api(args, work):
    print('face-api TinyFaceDetector:')
    model_dir = os.path.join(FACE_API, 'node_modules', '@vladmandic', 'face-api', 'model')
    if not os.path.isdir(model_dir):
        return missing(f'no face-api package in {FACE_API}', 'run tests/models/fetch-face-api.sh')
    import face_api_to_onnx
    if not check(face_api_to_onnx.main([model_dir, work, '--only', 'tiny_face_detector']) == 0, 'conversion failed'):
        return
    path = os.path.join(work, 'tiny_face_detector.onnx')
    # face-api's decode is not in its graph: the keys face-api-detect uses (docs/detection.md 6), its
    # anchors and mean read from face-api's own source (src/tinyFaceDetector/const.ts)
    with open(os.path.join(model_dir, '..', 'src', 'tinyFaceDetector', 'const.ts')) as f:
        const = f.read()
    anchors = re.findall(r'new Point\(([\d.]+), ([\d.]+)\)', const)
    mean = re.search(r'MEAN_RGB[^=]*= \[([\d., ]+)\]', const).group(1).split(',')
    keys = ['decoder=yolo-anchors', 'box-formula=yolov2', 'anchor-unit=cells', 'classes=0',
            'class-agnostic-nms=true', 'threshold=0.5', 'nms-iou-threshold=0.4',
            'anchors=' + ','.join(f'{w},{h}' for w, h in anchors)]
    prefix = os.path.join(work, 'tiny-cut')
    r = prep([path, '--cut', '--out', prefix, '--quiet-table', '--mean', ','.join(f'{float(v) / 255:.6f}' for v in mean),
              '--std', '1,1,1'] + [a for k in keys for a in ('--key', k)])
    if not check(r.returncode == 0, f'exit {r.returncode}: {r.stderr.strip()}'):
        return
    model = onnx.load(path)
    outs = [o.name for o in model.graph.output]
    check(prep_cases.proposed_cut(r.stdout) == outs and 'the whole graph on the DLA' in r.stdout,
          f'the cut is not the whole network ({outs}): {r.stdout[-400:]}')
    cut = onnx.load(prefix + '.onnx')
    check(len(cut.graph.node) == len(model.graph.node), 'the cut dropped nodes of a whole-DLA network')
    importer.convert(importer.load(prefix + '.fp16.onnx'))
    got = plan_keys(args, prefix + '.modelinfo', cut)
    if got:
        check(got[1] == 'plan yolo-anchors 1', f'plan: {got[1]}')
        print(f'  cut = the network ({outs[0]}); .modelinfo planned: {got[1]}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--keys', required=True)
    ap.add_argument('--ref-cli', required=True)
    ap.add_argument('--ort', default=ORT_CACHE)
    args = ap.parse_args()
    have_ort = os.path.isdir(os.path.join(args.ort, 'node_modules', 'onnxruntime-node'))
    if not have_ort:
        missing(f'no onnxruntime-node in {args.ort}: the uncut graphs are decoded by the NumPy evaluator only',
                'run tests/tools/fetch-onnxruntime-node.sh')
    with tempfile.TemporaryDirectory() as work:
        for family in ('yolov5', 'yolov7', 'yolov8', 'ssd', 'classifier'):
            test_family(args, work, family, have_ort)
        test_launch_messages()
        test_lines(work)
        test_refusals(work)
        test_face_api(args, work)
    print(f'prep_test: {len(FAILS)} failure(s)')
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""import_test.py [--swdla-tool PATH] [--runtime ort|numpy] [--only writer,mapping,refusals,numeric]

The ONNX importer (tests/swdla/swdla-import.py) checked four ways:
  writer    the format-2 bytes against FORMAT.md's offsets, read back by a reader written here
  mapping   every case of import_cases.py imports to the layer kinds and parameters it must give
  refusals  graphs the DLA cannot run: one run lists every offending node with its rule; dynamic
            shapes name the input and dimension; a file that is not ONNX gets one line
  numeric   (needs --swdla-tool, format 2's run-dense) each case and the YOLOv5-, YOLOv8- and
            SSD-shaped networks run by swdla's CPU executor and by ONNX Runtime (`ort`) or the NumPy
            evaluator tools/twins/onnx_eval.py (`numpy`), on seeded inputs. The reference runs the
            FP32 ONNX graph on the FP16-rounded (INT8: dequantised) input; swdla computes in FP32
            and rounds its output to FP16, so each element must agree within one FP16 ulp at the
            reference's magnitude plus 1e-4 of the output's largest magnitude (FP32 summation
            order, folded BatchNorm); INT8 outputs within one quantisation step. A sentinel (one
            weight changed) must disagree.
Exit 0 all pass, 1 a failure; in CI (CI=true) a missing module or tool is a failure, elsewhere 77."""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SWDLA = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(SWDLA))
IMPORT = os.path.join(SWDLA, 'swdla-import.py')


def missing(what):
    ci = os.environ.get('CI', '') not in ('', '0', 'false')
    print(f'import_test: {what}' + (' (CI=true: a failure, not a skip)' if ci else ''))
    sys.exit(1 if ci else 77)


try:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
except ImportError as e:
    missing(f'{e.name} is not installed (apt-get install python3-onnx python3-numpy)')
sys.path[:0] = [HERE, os.path.join(ROOT, 'tools'), os.path.join(ROOT, 'tools', 'twins')]
import import_cases  # noqa: E402
from onnx_graphs import Graph  # noqa: E402
from onnx_import import importer, io_formats, swdla_file  # noqa: E402

FAILS = []
QUIET = []  # non-empty: failures are counted, not printed (the sentinel)


def check(ok, what):
    if not ok:
        FAILS.append(what)
        if not QUIET:
            print(f'  FAIL: {what}')
    return ok


# A reader of format 2 from FORMAT.md's offsets, independent of the writer's code -----------------
KIND_NAMES = {v: k for k, v in swdla_file.KINDS.items()}


def read_swdla(data):
    assert data[:8] == b'SWDLAMDL', 'magic'
    version, hdr, nin, nout, nlayers, size = struct.unpack_from('<6I', data, 8)
    m = {'version': version, 'header': hdr, 'size': size, 'inputs': [], 'outputs': [], 'layers': []}
    off = hdr
    for k in range(nin + nout):
        rec = data[off:off + 128]
        t = {'name': rec[:80].rstrip(b'\0').decode()}
        (t['layout'], t['type'], t['n'], t['c'], t['h'], t['w']) = struct.unpack_from('<6I', rec, 80)
        t['scale'], t['report'], t['source'] = struct.unpack_from('<fii', rec, 104)
        t['reserved'] = rec[116:128]
        (m['inputs'] if k < nin else m['outputs']).append(t)
        off += 128
    for _ in range(nlayers):
        kind, nbytes = struct.unpack_from('<2I', data, off)
        L = {'kind': KIND_NAMES[kind], 'bytes': nbytes, 'name': data[off + 8:off + 88].rstrip(b'\0').decode()}
        nin_l = struct.unpack_from('<I', data, off + 88)[0]
        L['inputs'] = list(struct.unpack_from('<8i', data, off + 92))
        L['ints'] = dict(zip(swdla_file.INT_PARAMS, struct.unpack_from('<16i', data, off + 124)))
        L['alpha'], L['beta'], r0, r1 = struct.unpack_from('<4f', data, off + 188)
        wt, nw, nb = struct.unpack_from('<3I', data, off + 204)
        dt = '<f2' if wt == 1 else '<f4'
        L['wtype'] = wt
        L['weights'] = np.frombuffer(data, dt, nw, off + 216).astype(np.float32)
        L['bias'] = np.frombuffer(data, dt, nb, off + 216 + nw * np.dtype(dt).itemsize).astype(np.float32)
        L['n_inputs'] = nin_l
        L['tail'] = data[off + 216 + (nw + nb) * np.dtype(dt).itemsize:off + nbytes]
        L['reserved'] = (r0, r1)
        m['layers'].append(L)
        off += nbytes
    m['end'] = off
    return m


def test_writer():
    print('writer: format 2 bytes against FORMAT.md')
    ins = [swdla_file.Tensor('image', 'dla_linear', 'int8', 2, 3, 5, 7, scale=0.25)]
    outs = [swdla_file.Tensor('out', 'chw16', 'fp16', 2, 4, 5, 7, source=2),
            swdla_file.Tensor('mid', 'chw16', 'fp16', 2, 4, 5, 7, source=1)]
    layers = [swdla_file.Layer('conv', 'mid', [0], {'out_c': 4, 'kh': 3, 'kw': 3, 'pad_top': 1, 'pad_left': 1,
                                                    'pad_bottom': 1, 'pad_right': 1},
                               weight_type='fp16', weights=np.arange(108, dtype=np.float32) / 8,
                               bias=np.array([1, 2, 3], np.float32)),
              swdla_file.Layer('leaky_relu', 'out', [1], alpha=0.125)]
    data = swdla_file.write(ins, outs, layers)
    m = read_swdla(data)
    check(struct.unpack_from('<6I', data, 8)[:5] == (2, 32, 1, 2, 2), 'header: version 2, 32 bytes, 1 in, 2 out, '
                                                                      '2 layers')
    check(m['size'] == len(data) == m['end'], f'file bytes {m["size"]} = written {len(data)} = parsed {m["end"]}')
    i, o0, o1 = m['inputs'][0], m['outputs'][0], m['outputs'][1]
    check((i['layout'], i['type'], i['n'], i['c'], i['h'], i['w'], i['scale'], i['report'], i['source']) ==
          (2, 1, 2, 3, 5, 7, 0.25, -1, -1), f'input record {i}')
    check((o0['source'], o1['source']) == (2, 1), 'outputs name their source ids (2: layer 1, 1: layer 0)')
    check(all(t['reserved'] == b'\0' * 12 for t in m['inputs'] + m['outputs']), 'tensor reserved bytes zero')
    conv, leaky = m['layers']
    check(conv['inputs'] == [0, -1, -1, -1, -1, -1, -1, -1] and conv['n_inputs'] == 1, 'input ids, unused -1')
    check([conv['ints'][k] for k in ('sy', 'sx', 'dil_y', 'dil_x', 'groups')] == [1] * 5, 'unused strides, '
          'dilations, groups written as 1')
    check(leaky['ints']['out_c'] == 0 and leaky['ints']['reserved'] == 0 and leaky['alpha'] == 0.125,
          'leaky: zero ints, alpha 0.125')
    check(conv['wtype'] == 1 and np.array_equal(conv['weights'], np.arange(108) / 8) and
          list(conv['bias']) == [1, 2, 3], 'FP16 weights and bias')
    check(conv['bytes'] == 216 + 224 and conv['bytes'] % 4 == 0 and conv['tail'] == b'\0' * 2,
          f'111 FP16 values padded to 224 bytes: record {conv["bytes"]}')
    check(leaky['bytes'] == 216, 'a layer without weights is 216 bytes')
    for bad, why in ((lambda: swdla_file.Layer('relu', 'x' * 80, [0]), 'an 80-byte name'),
                     (lambda: swdla_file.Layer('concat', 'c', list(range(9))), '9 inputs')):
        try:
            swdla_file.write(ins, outs, [bad()])
            check(False, f'the writer refuses {why}')
        except ValueError:
            pass


def convert(case):
    return importer.convert(case.model, io_formats.parse_list(case.inputs), io_formats.parse_list(case.outputs),
                            case.weights)


def test_mapping(cases):
    print(f'mapping: {len(cases)} cases to layer kinds')
    for c in cases:
        data, _ = convert(c)
        m = read_swdla(data)
        kinds = [L['kind'] for L in m['layers']]
        if c.kinds is not None:
            check(kinds == c.kinds, f'{c.name}: layers {kinds}, expected {c.kinds}')
        for idx, want in c.params.items():
            got = {k: m['layers'][idx]['ints'][k] for k in want}
            check(got == want, f'{c.name}: layer {idx} params {got}, expected {want}')
        names = [t['name'] for t in m['inputs']] + [L['name'] for L in m['layers']]
        check(len(set(names)) == len(names), f'{c.name}: unique names')
        graph_out = [o.name for o in c.model.graph.output]
        want_out = list(io_formats.parse_list(c.outputs)) or graph_out
        check([t['name'] for t in m['outputs']] == want_out, f'{c.name}: output names kept')
        check([t['name'] for t in m['inputs']] == [i.name for i in c.model.graph.input], f'{c.name}: input names kept')
    # Folding: BatchNorm and constant Mul/Add/Sub are inside the conv's weights (checked numerically too).
    fold = next(c for c in cases if c.name == 'conv-mul-add-sub-folded')
    m = read_swdla(convert(fold)[0])
    check(m['layers'][0]['name'] == 'y', 'a folded conv takes the name of the last node folded into it')
    # Long names are shortened, uniquely; an output's name is never changed.
    g = Graph()
    x = g.input('x', [1, 4, 4, 4])
    g.output(g.node('Relu', [g.node('Relu', [x], 'r' * 100)], 'out'))
    m = read_swdla(importer.convert(g.model())[0])
    check(len(m['layers'][0]['name']) <= 79 and m['layers'][0]['name'].startswith('rrr'), 'a 100-character node '
          f'name shortened to {len(m["layers"][0]["name"])}')
    # --outputs at an inner tensor cuts the graph there (the nodes after it are not looked at).
    g = Graph()
    x = g.input('x', [1, 4, 6, 6])
    inner = g.node('Relu', [g.conv(x, 4, 4, 3)], 'inner')
    g.output(g.node('Transpose', [inner], 'after', perm=[0, 2, 3, 1]))
    m = read_swdla(importer.convert(g.model(), {}, io_formats.parse_list('inner:fp16:chw16'))[0])
    check([L['kind'] for L in m['layers']] == ['conv', 'relu'] and m['outputs'][0]['name'] == 'inner',
          '--outputs inner cuts before the Transpose')
    for text, ok in (('a:int8:chw32:scale=1/127', True), ('in:0:fp16:chw16', True), ('a:int8:chw32', False),
                     ('a:fp16:chw32x', False), ('a:fp32:chw16', False), ('a:fp16:chw16:scale=2', False),
                     ('a:int8:dla_linear:scale=-1', False), ('a', False)):
        try:
            got = io_formats.parse_list(text)
            check(ok, f'format {text!r} refused')
            if text.startswith('in:0'):
                check(list(got) == ['in:0'], 'a name with a colon')
            if 'scale=1/127' in text:
                check(abs(got['a'].scale - 1 / 127) < 1e-12, 'scale=1/127')
        except io_formats.FormatError as e:
            check(not ok and '\n' not in str(e), f'format {text!r}: {e}')


def run_import(args, expect_rc):
    p = subprocess.run([sys.executable, IMPORT] + args, capture_output=True, text=True)
    check(p.returncode == expect_rc, f'swdla-import {" ".join(args)}: exit {p.returncode}, expected {expect_rc}: '
                                     f'{p.stderr.strip()}')
    return p.stderr


def test_refusals(tmp):
    print('refusals: every offending node in one run')
    g = Graph(opset=13)
    x = g.input('images', [1, 3, 64, 64])
    c = g.conv(x, 3, 8, 33, p=16, name='big_kernel')                       # 33x33: kernel > 32
    c2 = g.conv(c, 8, 8, 3, s=9, name='stride9')                           # stride > 8
    mp = g.node('MaxPool', [c2], 'pool_ceil', kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    r = g.node('Reshape', [mp, g.const(np.array([1, 2, 4, 2, 2], np.int64))], 'reshape5d')
    s = g.node('Sigmoid', [r], 'sigmoid5d')                                # 5-D input
    t = g.node('Transpose', [c, g.const(np.array([0], np.int64))][:1], 'transpose', perm=[0, 2, 3, 1])
    ga = g.node('Gather', [c, g.const(np.array([0, 1], np.int64))], 'gather', axis=1)
    cat = g.node('Concat', [c, c], 'concat_h', axis=2)
    pool = g.node('AveragePool', [c, ], 'pool_9', kernel_shape=[9, 9])     # window > 8
    ok = g.node('Relu', [c], 'fine_relu')
    for o in (s, t, ga, cat, pool, ok):
        g.output(o)
    path = os.path.join(tmp, 'refuse.onnx')
    onnx.save(g.model(), path)
    err = run_import([path, os.path.join(tmp, 'refuse.swdla')], 1)
    for name, rule in (('big_kernel', 'kernel 33x33: the DLA takes kernels 1..32'),
                       ('stride9', 'stride 9x9: the DLA takes strides 1..8'),
                       ('pool_ceil', 'ceil_mode=1'), ('reshape5d', 'the DLA does not reshape'),
                       ('sigmoid5d', '5-D'), ('transpose', 'Transpose: no DLA layer kind'),
                       ('gather', 'Gather: no DLA layer kind'), ('concat_h', 'concatenates along channels'),
                       ('pool_9', 'window 9x9: the DLA takes pooling windows 1..8')):
        line = next((l for l in err.splitlines() if f"'{name}'" in l), '')
        check(rule in line, f'refusal of {name!r} says {rule!r}: {line or "(not listed)"}')
    check("'fine_relu'" not in err, 'a legal node is not listed')
    check('9 part(s)' in err.splitlines()[0], f'9 offending nodes counted: {err.splitlines()[0]}')
    check(not os.path.exists(os.path.join(tmp, 'refuse.swdla')), 'no file written on refusal')
    # Conv rules, one each.
    for kw, rule in ((dict(k=3, d=33), 'dilation 33x33'), (dict(k=3, p=[3, 0, 0, 0]), 'smaller than its kernel'),
                     (dict(k=1, p=[0, 0, 0, 0], cout=8200), '8200 output channels')):
        g = Graph()
        x = g.input('x', [1, 4, 40, 40])
        g.output(g.conv(x, 4, kw.pop('cout', 4), name='c', **kw))
        path = os.path.join(tmp, 'conv.onnx')
        onnx.save(g.model(), path)
        check(rule in run_import([path, os.path.join(tmp, 'c.swdla')], 1), f'conv refusal {rule!r}')
    # Dynamic shapes: the input and the dimension named.
    g = Graph()
    x = g.input('images', ['batch', 3, 'height', 32])
    g.output(g.node('Relu', [x], 'y'))
    graph = helper.make_graph(g.nodes, 'dyn', g.inputs, [helper.make_tensor_value_info('y', 1, ['batch', 3,
                                                                                                  'height', 32])])
    path = os.path.join(tmp, 'dynamic.onnx')
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], ir_version=8), path)
    err = run_import([path, os.path.join(tmp, 'd.swdla')], 1)
    check("input 'images'" in err and "dimension 0 (batch) is dynamic ('batch'" in err and
          "dimension 2 (height) is dynamic ('height'" in err, f'dynamic dims named: {err.strip()}')
    # Not ONNX, missing, bad options: one line each.
    junk = os.path.join(tmp, 'junk.onnx')
    with open(junk, 'wb') as f:
        f.write(b'\x08\x96\x01 this is not a protobuf \xff\xfe' * 20)
    for args, text in (([junk], 'is not an ONNX model'), ([os.path.join(tmp, 'none.onnx')], 'cannot read'),
                       ([path, '--inputs', 'images:int8:chw32'], 'INT8 needs its scale'),
                       ([path, '--inputs', 'nope:fp16:chw16'], "'nope', not an input"),
                       ([path, '--outputs', 'zz:fp16:chw16'], "'zz', not a tensor")):
        err = run_import(args + [os.path.join(tmp, 'x.swdla')], 1)
        check(text in err and len(err.strip().splitlines()) == 1, f'one line with {text!r}: {err.strip()}')
    # Weights in an external data file: read from beside the .onnx; a missing one is one line.
    ext = os.path.join(tmp, 'ext.onnx')
    onnx.save(import_cases.network_cases()[2].model, ext, save_as_external_data=True, location='ext.data',
              size_threshold=0)
    run_import([ext, os.path.join(tmp, 'ext.swdla')], 0)
    os.remove(os.path.join(tmp, 'ext.data'))
    err = run_import([ext, os.path.join(tmp, 'ext.swdla')], 1)
    check('cannot read its external weights' in err and len(err.strip().splitlines()) == 1, f'external: {err}')
    # I/O format rules on the model's tensors.
    g = Graph()
    x = g.input('x', [1, 5, 8, 8])
    g.output(g.node('Relu', [x], 'y'))
    path = os.path.join(tmp, 'io.onnx')
    onnx.save(g.model(), path)
    err = run_import([path, os.path.join(tmp, 'io.swdla'), '--inputs', 'x:fp16:dla_hwc4', '--outputs',
                      'y:fp16:dla_hwc4'], 1)
    check('dla_hwc4 with 5 channels' in err and 'dla_hwc4 is an input format' in err, f'hwc4 rules: {err}')


# Numeric comparison -------------------------------------------------------------------------------
def reference(model, feeds, runtime):
    if runtime == 'ort':
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.log_severity_level = 3
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=['CPUExecutionProvider'])
        return sess.run(None, feeds)
    import onnx_eval
    return onnx_eval.run(model, feeds)


def compare_case(case, tool, runtime, tmp, seed):
    data, summary = convert(case)
    path = os.path.join(tmp, case.name + '.swdla')
    with open(path, 'wb') as f:
        f.write(data)
    m = read_swdla(data)
    rng = np.random.default_rng(seed)
    feeds, files = {}, []
    for k, t in enumerate(m['inputs']):
        shape = (t['n'], t['c'], t['h'], t['w'])
        x = rng.standard_normal(shape).astype(np.float32)
        if t['type'] == 1:  # INT8: what the DLA input holds, dequantised
            x = (np.clip(np.rint(x / np.float32(t['scale'])), -128, 127) * np.float32(t['scale'])).astype(np.float32)
        else:
            x = x.astype(np.float16).astype(np.float32)
        vi = case.model.graph.input[k]
        feeds[t['name']] = x.reshape([d.dim_value for d in vi.type.tensor_type.shape.dim])
        files.append(os.path.join(tmp, f'{case.name}.in{k}.f32'))
        x.tofile(files[-1])
    outdir = os.path.join(tmp, case.name + '.out')
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.run([tool, 'run-dense', path, outdir] + files, capture_output=True, text=True)
    if not check(p.returncode == 0, f'{case.name}: swdla-tool run-dense: {p.stderr.strip()}'):
        return None
    model = case.model
    names = [t['name'] for t in m['outputs']]
    if case.outputs:
        model = onnx.utils.Extractor(model).extract_model([i.name for i in model.graph.input], names)
    refs = dict(zip([o.name for o in model.graph.output], reference(model, feeds, runtime)))
    worst = (0.0, 0.0, 0.0, '')
    for t in m['outputs']:
        got = np.fromfile(os.path.join(outdir, t['name'] + '.f32'), np.float32)
        ref = refs[t['name']].astype(np.float32).ravel()
        if not check(got.size == ref.size, f'{case.name}: output {t["name"]} has {got.size} values, '
                                           f'reference {ref.size}'):
            return None
        d = np.abs(got - ref)
        if t['type'] == 1:
            tol = np.full_like(ref, np.float32(t['scale']) * 1.0001)
        else:
            tol = np.spacing(np.maximum(np.abs(ref), 2.0 ** -14).astype(np.float16)).astype(np.float32) \
                + np.float32(1e-4) * np.abs(ref).max()
        ulps = d / np.spacing(np.maximum(np.abs(ref), 2.0 ** -14).astype(np.float16)).astype(np.float32)
        rel = float(d.max() / max(np.abs(ref).max(), 1e-30))
        if float(ulps.max()) >= worst[1] or worst[2] == '':
            worst = (float(d.max()), float(ulps.max()) if t['type'] == 0 else float(d.max() / t['scale']), rel,
                     t['name'])
        i = int(np.argmax(d - tol))
        check(d[i] <= tol[i], f'{case.name}: output {t["name"]}[{i}] swdla {got[i]:.6g} vs {runtime} {ref[i]:.6g}: '
                              f'diff {d[i]:.3g} > {tol[i]:.3g} (max rel {rel:.3g})')
    return worst, len(m['layers'])


def sentinel(case, tool, runtime, tmp):
    """The comparison must see a one-weight change: the ONNX reference with one weight + 0.5."""
    broken = onnx.ModelProto()
    broken.CopyFrom(case.model)
    w = next(i for i in broken.graph.initializer if numpy_helper.to_array(i).ndim == 4)
    arr = numpy_helper.to_array(w).copy()
    arr.flat[0] += 0.5
    w.CopyFrom(numpy_helper.from_array(arr, w.name))
    swapped = import_cases.Case(case.name + '-sentinel', broken, None)
    data, _ = convert(case)          # swdla runs the right weights
    n_before = len(FAILS)
    tmp2 = os.path.join(tmp, 'sentinel')
    os.makedirs(tmp2, exist_ok=True)
    with open(os.path.join(tmp2, swapped.name + '.swdla'), 'wb') as f:
        f.write(data)
    saved = convert
    try:
        globals()['convert'] = lambda c: (data, None)
        QUIET.append(1)
        compare_case(swapped, tool, runtime, tmp2, 0)
    finally:
        globals()['convert'] = saved
        QUIET.clear()
    caught = len(FAILS) > n_before
    del FAILS[n_before:]
    print(f'  sentinel ({case.name} with one weight + 0.5 in the ONNX): '
          + ('caught' if caught else 'NOT caught: the comparison is blind'))
    check(caught, 'the sentinel disagrees')


def test_numeric(cases, tool, runtime, tmp):
    import platform
    rt = runtime
    if runtime == 'ort':
        import onnxruntime
        rt = f'ONNX Runtime {onnxruntime.__version__}'
    else:
        rt = 'NumPy evaluator tools/twins/onnx_eval.py'
    print(f'numeric: {len(cases)} graphs, swdla CPU executor vs {rt} (onnx {onnx.__version__}, '
          f'Python {platform.python_version()})')
    print(f'  {"case":34} {"layers":>6} {"max abs diff":>12} {"/ max|ref|":>10} {"max ulps":>9}  output')
    for k, c in enumerate(cases):
        n_before = len(FAILS)
        r = compare_case(c, tool, runtime, tmp, 100 + k)
        if r:
            (d, u, rel, name), n = r
            unit = 'steps' if c.outputs and 'int8' in c.outputs else 'ulps'
            print(f'  {c.name:34} {n:6d} {d:12.3g} {rel:10.2g} {u:9.2f}  {name} ({unit})'
                  + ('' if len(FAILS) == n_before else '  FAIL'))
    sentinel(next(c for c in cases if c.name == 'conv-bn-relu'), tool, runtime, tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--swdla-tool')
    ap.add_argument('--runtime', default='auto', choices=['ort', 'numpy', 'auto'])
    ap.add_argument('--only', default='writer,mapping,refusals,numeric')
    args = ap.parse_args()
    only = args.only.split(',')
    import onnx_eval
    try:
        runtime = onnx_eval.pick_runtime(args.runtime)
    except ImportError:
        missing('onnxruntime is not installed (Debian 13: apt-get install python3-onnxruntime)')
    cases = import_cases.unit_cases()
    tmp = tempfile.mkdtemp(prefix='swdla-import-')
    if 'writer' in only:
        test_writer()
    if 'mapping' in only:
        test_mapping(cases + import_cases.network_cases())
    if 'refusals' in only:
        test_refusals(tmp)
    if 'numeric' in only:
        if not args.swdla_tool or not os.access(args.swdla_tool, os.X_OK):
            missing('numeric: --swdla-tool PATH (swdla-tool with format 2\'s run-dense) is needed')
        test_numeric(cases + import_cases.network_cases(), args.swdla_tool, runtime, tmp)
    print(f'import_test: {"all passed" if not FAILS else f"{len(FAILS)} failure(s)"}')
    sys.exit(1 if FAILS else 0)


if __name__ == '__main__':
    main()

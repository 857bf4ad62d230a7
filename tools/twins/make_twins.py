#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""make_twins.py MODELDIR OUTDIR [--kit SWDLA_TOOL]

Writes an ONNX twin of every usable swdla test model in MODELDIR (the *.swdla files that
tests/swdla/models.spec generates; the broken-* ones are left out, and so are graph models and
layer kinds that format version 1 did not have: see why_no_twin) into OUTDIR, with
OUTDIR/manifest.json describing each twin. A twin is the same network with the same weights (read
from the swdla file), fixed shapes, and precision in its types, as TensorRT 11 (strongly typed)
wants it:
  - FP16 throughout: FP16 graph input, FP16 initializers, FP16 activations, FP16 output;
  - an INT8 input is an int8 graph input followed by DequantizeLinear (swdla's scale) and an explicit
    Cast to FP16; an INT8 output is a Cast to FP32 then QuantizeLinear (swdla's scale, zero point 0,
    round half to even and saturation, as swdla) to an int8 graph output;
  - within the DLA's layers: fully connected layers are convolutions with the input's whole H x W as
    kernel (<= 32); global and evenly divisible adaptive averages are chains of AveragePool with
    kernel = stride <= 8 (DLA pooling windows are 1..8). An uneven adaptive average (150 x 225 -> 4 x 4)
    has no exact DLA form: it becomes one convolution with an averaging mask per cell, and the
    manifest says the twin is not DLA-legal (its loadable build is expected to fail).
Opset 17, so that Debian 12's onnx 1.12 can check the files.

--kit SWDLA_TOOL also writes the Orin kit's known inputs (dense float32 NCHW, `<twin>.input.f32`)
and the results swdla's CPU executor gives for them (`<twin>.expected.f32`, `swdla-tool run-dense`).
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swdla_model  # noqa: E402

OPSET = 17
DLA_MAX_POOL = 8
DLA_MAX_KERNEL = 32


def factor(n, limit=DLA_MAX_POOL):
    """n as a product of factors <= limit (largest first), or None."""
    out = []
    while n > 1:
        f = next((f for f in range(min(n, limit), 1, -1) if n % f == 0), None)
        if f is None:
            return None
        out.append(f)
        n //= f
    return out or [1]


# The kinds a twin is made of (format version 1's); graph models are the ONNX importer's to test.
TWIN_KINDS = {'conv', 'relu', 'maxpool', 'avgpool', 'gap', 'fc', 'softmax', 'adaptive_avgpool'}


def why_no_twin(model):
    """None when make_twins can write the model's twin, else why not."""
    if not model.is_chain():
        return 'a graph (several inputs or outputs, or layers not in a chain)'
    other = sorted({layer.kind for layer in model.layers} - TWIN_KINDS)
    if other:
        return 'layer kinds ' + ', '.join(other)
    if any(layer.kind == 'conv' and (layer.groups, layer.dy, layer.dx) != (1, 1, 1) for layer in model.layers):
        return 'a grouped or dilated convolution'
    return None


def layer_shape(layer, c, h, w):
    k = layer.kind
    if k == 'conv':
        return layer.out_c, (h + layer.pt + layer.pb - layer.kh) // layer.sy + 1, (w + layer.pl + layer.pr - layer.kw) // layer.sx + 1
    if k in ('maxpool', 'avgpool'):
        return c, (h + layer.pt + layer.pb - layer.kh) // layer.sy + 1, (w + layer.pl + layer.pr - layer.kw) // layer.sx + 1
    if k == 'gap':
        return c, 1, 1
    if k == 'adaptive_avgpool':
        return c, layer.out_h, layer.out_w
    if k == 'fc':
        return layer.out_c, 1, 1
    return c, h, w


class Builder:
    def __init__(self, name):
        self.name = name
        self.nodes, self.inits = [], []
        self.n = 0
        self.notes = []
        self.dla_legal = True

    def tensor(self, hint):
        self.n += 1
        return f'{hint}_{self.n}'

    def const(self, hint, array):
        name = self.tensor(hint)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, hint, **attrs):
        out = self.tensor(hint)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def avg_chain(self, x, h, w, oh, ow):
        """Average of uniform (h/oh) x (w/ow) cells as AveragePools of kernel = stride <= 8."""
        fy, fx = factor(h // oh), factor(w // ow)
        if fy is None or fx is None:
            return None
        fy += [1] * (len(fx) - len(fy))
        fx += [1] * (len(fy) - len(fx))
        for ky, kx in zip(fy, fx):
            if ky == 1 and kx == 1:
                continue
            x = self.node('AveragePool', [x], 'avg', kernel_shape=[ky, kx], strides=[ky, kx])
        return x

    def mask_conv(self, x, c, h, w, oh, ow):
        """Uneven adaptive average: one depthwise convolution per cell (exact, not DLA-legal)."""
        masks = np.zeros((c * oh * ow, 1, h, w), np.float32)
        for ch in range(c):
            for i in range(oh):
                y0, y1 = i * h // oh, -(-(i + 1) * h // oh)
                for j in range(ow):
                    x0, x1 = j * w // ow, -(-(j + 1) * w // ow)
                    masks[(ch * oh + i) * ow + j, 0, y0:y1, x0:x1] = 1.0 / ((y1 - y0) * (x1 - x0))
        wname = self.const('cellmask', masks.astype(np.float16))
        y = self.node('Conv', [x, wname], 'cells', kernel_shape=[h, w], group=c)
        shape = self.const('shape', np.array([-1, c, oh, ow], np.int64))
        self.dla_legal = False
        self.notes.append(f'adaptive average {h}x{w} -> {oh}x{ow} has uneven windows: a {h}x{w} masked '
                          f'convolution (DLA kernels are at most {DLA_MAX_KERNEL}), not DLA-legal')
        return self.node('Reshape', [y, shape], 'cells4d')


def twin(model):
    inp, out = model.inputs[0], model.outputs[0]
    b = Builder(os.path.basename(model.path)[:-6])
    x = inp.name
    if inp.type == 'int8':
        x = b.node('DequantizeLinear', [x, b.const('in_scale', np.array(inp.scale, np.float32)),
                                        b.const('in_zero', np.array(0, np.int8))], 'dq')
        x = b.node('Cast', [x], 'to_fp16', to=TensorProto.FLOAT16)
    c, h, w = inp.c, inp.h, inp.w
    for layer in model.layers:
        k = layer.kind
        if k == 'conv':
            wt = layer.weights.reshape(layer.out_c, c, layer.kh, layer.kw).astype(np.float16)
            ins = [x, b.const('w', wt)]
            if layer.bias is not None:
                ins.append(b.const('b', layer.bias.astype(np.float16)))
            x = b.node('Conv', ins, 'conv', kernel_shape=[layer.kh, layer.kw], strides=[layer.sy, layer.sx],
                       pads=[layer.pt, layer.pl, layer.pb, layer.pr])
        elif k == 'relu':
            x = b.node('Relu', [x], 'relu')
        elif k == 'maxpool':
            x = b.node('MaxPool', [x], 'maxpool', kernel_shape=[layer.kh, layer.kw], strides=[layer.sy, layer.sx],
                       pads=[layer.pt, layer.pl, layer.pb, layer.pr])
        elif k == 'avgpool':
            x = b.node('AveragePool', [x], 'avgpool', kernel_shape=[layer.kh, layer.kw], strides=[layer.sy, layer.sx],
                       pads=[layer.pt, layer.pl, layer.pb, layer.pr], count_include_pad=0)
        elif k in ('gap', 'adaptive_avgpool'):
            oh, ow = (1, 1) if k == 'gap' else (layer.out_h, layer.out_w)
            y = b.avg_chain(x, h, w, oh, ow) if h % oh == 0 and w % ow == 0 else None
            x = y if y is not None else b.mask_conv(x, c, h, w, oh, ow)
        elif k == 'fc':
            if h > DLA_MAX_KERNEL or w > DLA_MAX_KERNEL:
                b.dla_legal = False
                b.notes.append(f'fully connected over {h}x{w}: kernel larger than {DLA_MAX_KERNEL}')
            wt = layer.weights.reshape(layer.out_c, c, h, w).astype(np.float16)
            ins = [x, b.const('fc_w', wt)]
            if layer.bias is not None:
                ins.append(b.const('fc_b', layer.bias.astype(np.float16)))
            x = b.node('Conv', ins, 'fc', kernel_shape=[h, w])
        elif k == 'softmax':
            x = b.node('Softmax', [x], 'softmax', axis=1)
        c, h, w = layer_shape(layer, c, h, w)
    assert (c, h, w) == (out.c, out.h, out.w), (b.name, (c, h, w), out.shape)
    if out.type == 'int8':
        x = b.node('Cast', [x], 'to_fp32', to=TensorProto.FLOAT)
        x = b.node('QuantizeLinear', [x, b.const('out_scale', np.array(out.scale, np.float32)),
                                      b.const('out_zero', np.array(0, np.int8))], 'q')
    # The graph output carries the swdla output's name.
    b.nodes.append(helper.make_node('Identity', [x], [out.name], name='output'))
    etype = {'fp16': TensorProto.FLOAT16, 'int8': TensorProto.INT8}
    graph = helper.make_graph(
        b.nodes, b.name,
        [helper.make_tensor_value_info(inp.name, etype[inp.type], list(inp.shape))],
        [helper.make_tensor_value_info(out.name, etype[out.type], list(out.shape))],
        b.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', OPSET)],
                          producer_name='gst-dlainfer make_twins.py', ir_version=8)
    onnx.checker.check_model(m, full_check=True)
    return m, b


def known_input(name, shape, seed):
    """The kit's input of a twin: image models get pixel / 255 values, others [0, 1) too."""
    rng = np.random.default_rng(seed)
    n, c, h, w = shape
    if name.startswith('colours'):  # one solid colour per image (batch entries differ)
        cols = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]], np.float32)
        x = np.zeros(shape, np.float32)
        for i in range(n):
            x[i] = (cols[i % 4] * 0.8 + 0.1)[:, None, None]
        return x + rng.uniform(-0.05, 0.05, shape).astype(np.float32)
    return np.round(rng.uniform(0, 1, shape) * 255).astype(np.float32) / 255


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('modeldir')
    ap.add_argument('outdir')
    ap.add_argument('--kit', metavar='SWDLA_TOOL', help='also write known inputs and swdla CPU results')
    ap.add_argument('--stamp', help='file to touch at the end (a build stamp)')
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    manifest = []
    names = sorted(f for f in os.listdir(args.modeldir) if f.endswith('.swdla') and not f.startswith('broken-'))
    if not names:
        sys.exit(f'make_twins: no swdla models in {args.modeldir}')
    for i, f in enumerate(names):
        model = swdla_model.Model(os.path.join(args.modeldir, f))
        why = why_no_twin(model)
        if why:
            print(f'make_twins: no twin for {f}: {why} (the ONNX importer\'s tests cover those)')
            continue
        m, b = twin(model)
        onnx.save(m, os.path.join(args.outdir, b.name + '.onnx'))
        inp, out = model.inputs[0], model.outputs[0]
        entry = {
            'name': b.name, 'onnx': b.name + '.onnx', 'swdla': f,
            'input': {'name': inp.name, 'shape': list(inp.shape), 'format': inp.io_format(), 'scale': inp.scale},
            'output': {'name': out.name, 'shape': list(out.shape), 'format': out.io_format(), 'scale': out.scale},
            'classifier': out.h == 1 and out.w == 1,
            'softmax': model.layers[-1].kind == 'softmax',
            'dla_legal': b.dla_legal, 'notes': b.notes,
        }
        labels = os.path.join(args.modeldir, b.name + '.labels')
        if os.path.exists(labels):
            entry['labels'] = b.name + '.labels'
            with open(labels) as src, open(os.path.join(args.outdir, entry['labels']), 'w') as dst:
                dst.write(src.read())
        if args.kit:
            x = known_input(b.name, inp.shape, 1000 + i)
            x.tofile(os.path.join(args.outdir, b.name + '.input.f32'))
            subprocess.run([args.kit, 'run-dense', model.path, os.path.join(args.outdir, b.name + '.expected.f32'),
                            os.path.join(args.outdir, b.name + '.input.f32')], check=True)
            entry['kit_input'] = b.name + '.input.f32'
            entry['expected'] = b.name + '.expected.f32'
        manifest.append(entry)
    with open(os.path.join(args.outdir, 'manifest.json'), 'w') as fp:
        json.dump({'opset': OPSET, 'twins': manifest}, fp, indent=1)
    if args.stamp:
        with open(args.stamp, 'w') as fp:
            fp.write('\n'.join(e['onnx'] for e in manifest) + '\n')
    print(f'make_twins: {len(manifest)} twins in {args.outdir} '
          f'({sum(not e["dla_legal"] for e in manifest)} not DLA-legal)')


if __name__ == '__main__':
    main()

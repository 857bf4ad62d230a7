#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""fuzz_onnx_import.py --runs N [--seed S] [--swdla-tool TOOL] [--artifacts DIR] [MODEL.onnx ...]

The ONNX importer (tests/swdla/swdla-import.py, and dlainfer-prep's per-node verdicts) under mutated models: the importer's test graphs
(and any MODEL.onnx given) are changed at random — dimensions, op types, attributes, node inputs,
initializers, opsets, graph inputs and outputs, raw bytes — and imported. Each import must end in
the importer's own one-line errors (BadModel, Refused, FormatError) or in a model file swdla's
reader accepts (`swdla-tool info`); any other exception, or an import over 20 s, is a failure: its
model is written to --artifacts and the run exits 1 (77: no python3-onnx, a failure
when CI=true). libFuzzer has no Python; this is its loop for
the one parser written in Python. Prints one line: runs, outcomes, seconds."""
import argparse
import copy
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
# The importer's package (tools/onnx_import, shared with dlainfer-prep) and its test graphs.
sys.path[:0] = [os.path.join(ROOT, 'tools'), os.path.join(ROOT, 'tests', 'swdla', 'tests')]

try:
    import onnx
    from onnx import TensorProto
    from onnx_import import importer, io_formats
    import import_cases
except ImportError as e:  # a skip (77) on a developer's machine, a failure in CI (CI=true)
    ci = os.environ.get('CI', '') not in ('', '0', 'false')
    print(f'fuzz-onnx-import: {e.name} is not installed for {sys.executable}: apt-get install python3-onnx '
          'python3-numpy (run it with /usr/bin/python3)', file=sys.stderr)
    sys.exit(1 if ci else 77)

OPS = ['Conv', 'Relu', 'Concat', 'Reshape', 'Gemm', 'Softmax', 'Slice', 'Resize', 'MaxPool', 'AveragePool',
       'Add', 'Mul', 'Sigmoid', 'Transpose', 'Flatten', 'BatchNormalization', 'Upsample', 'NoSuchOp']
ODD_INTS = [0, -1, 1, 2, 3, 7, 65535, 2**31 - 1, -2**31]


class Timeout(Exception):
    pass


def _dims(rng, model):
    vis = list(model.graph.input) + list(model.graph.output) + list(model.graph.value_info)
    dims = [d for vi in vis for d in vi.type.tensor_type.shape.dim]
    if dims:
        d = rng.choice(dims)
        if rng.random() < 0.2:
            d.dim_param = 'N'
        else:
            d.dim_value = rng.choice(ODD_INTS[:7] + [rng.randint(1, 64)])
        return 'dimension'
    return None


def _op_type(rng, model):
    if model.graph.node:
        rng.choice(model.graph.node).op_type = rng.choice(OPS)
        return 'op type'
    return None


def _attribute(rng, model):
    nodes = [n for n in model.graph.node if n.attribute]
    if not nodes:
        return None
    node = rng.choice(nodes)
    a = rng.choice(node.attribute)
    choice = rng.random()
    if choice < 0.25:
        node.attribute.remove(a)
    elif a.ints and choice < 0.75:
        a.ints[rng.randrange(len(a.ints))] = rng.choice(ODD_INTS)
        if rng.random() < 0.3:
            a.ints.append(rng.choice(ODD_INTS))
    elif a.type == onnx.AttributeProto.INT:
        a.i = rng.choice(ODD_INTS)
    elif a.type == onnx.AttributeProto.FLOAT:
        a.f = rng.choice([0.0, -1.0, 1e30, float('nan')])
    else:
        a.type = rng.choice([onnx.AttributeProto.INT, onnx.AttributeProto.STRING, onnx.AttributeProto.INTS])
    return 'attribute'


def _node_inputs(rng, model):
    nodes = [n for n in model.graph.node if n.input]
    if not nodes:
        return None
    node = rng.choice(nodes)
    k = rng.randrange(len(node.input))
    names = [o for n in model.graph.node for o in n.output] + [i.name for i in model.graph.input]
    what = rng.random()
    if what < 0.3:
        del node.input[k]
    elif what < 0.6:
        node.input[k] = rng.choice(names + ['', 'nowhere'])
    else:
        node.input.append(rng.choice(names))
    return 'node inputs'


def _initializer(rng, model):
    if not model.graph.initializer:
        return None
    t = rng.choice(model.graph.initializer)
    what = rng.random()
    if what < 0.3 and t.raw_data:
        t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data))]
    elif what < 0.6 and t.dims:
        t.dims[rng.randrange(len(t.dims))] = rng.choice(ODD_INTS[:6])
    elif what < 0.8:
        t.data_type = rng.choice([TensorProto.INT64, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.UINT8,
                                  TensorProto.STRING, 0])
    else:
        model.graph.initializer.remove(t)
    return 'initializer'


def _graph_io(rng, model):
    g = model.graph
    what = rng.random()
    if what < 0.3 and len(g.output) > 0:
        g.output.remove(rng.choice(g.output))
    elif what < 0.5 and g.output:
        g.output.append(copy.deepcopy(rng.choice(g.output)))
    elif what < 0.7 and g.input:
        g.input.remove(rng.choice(g.input))
    elif g.input:
        rng.choice(g.input).type.tensor_type.elem_type = rng.choice(
            [TensorProto.INT8, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.BOOL])
    return 'graph I/O'


def _opset(rng, model):
    for o in model.opset_import:
        if o.domain in ('', 'ai.onnx'):
            o.version = rng.choice([1, 6, 7, 9, 10, 11, 12, 17, 99])
    return 'opset'


def _cycle(rng, model):
    nodes = [n for n in model.graph.node if n.input and n.output]
    if not nodes:
        return None
    n = rng.choice(nodes)
    n.input[0] = n.output[0]
    return 'cycle'


STRUCTURAL = [_dims, _op_type, _attribute, _node_inputs, _initializer, _graph_io, _opset, _cycle]


def mutate(rng, model):
    """(bytes, what was changed)."""
    m = copy.deepcopy(model)
    done = [w for w in (rng.choice(STRUCTURAL)(rng, m) for _ in range(rng.randint(1, 3))) if w]
    data = bytearray(m.SerializeToString())
    if rng.random() < 0.25 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        done.append('bytes')
    return bytes(data), ', '.join(done) or 'none'


def _alarm(*_):
    raise Timeout()


def import_one(path, fmt, tool, scratch):
    """'ok', 'bad-model', 'refused' or 'format'; raises anything the importer did not mean."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    try:
        try:
            model = importer.load(path)
            _judge(model)
            ins, outs = io_formats.parse_list(fmt[0]), io_formats.parse_list(fmt[1])
            data, _ = importer.convert(model, ins, outs, fmt[2])
        except importer.BadModel as e:
            _one_line(e)
            return 'bad-model'
        except importer.Refused as r:
            for line in r.lines():
                _one_line(line)
            return 'refused'
        except io_formats.FormatError as e:
            _one_line(e)
            return 'format'
    finally:
        signal.alarm(0)
    if tool:
        out = os.path.join(scratch, 'out.swdla')
        with open(out, 'wb') as f:
            f.write(data)
        r = subprocess.run([tool, 'info', out], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise AssertionError(f'the importer wrote a model swdla refuses: {r.stderr.strip()}')
    return 'ok'


def _judge(model):
    """dlainfer-prep's question (tools/prep) on the same model: a verdict per node, or BadModel."""
    try:
        verdicts = importer.judge(model)
    except importer.BadModel as e:
        _one_line(e)
        return
    for _, verdict, rules in verdicts:
        for rule in rules:
            _one_line(rule)


def _one_line(message):
    if '\n' in str(message) or not str(message).strip():
        raise AssertionError(f'an error that is not one line: {str(message)!r}')


def seeds(extra):
    out = [(c.name, c.model, (c.inputs, c.outputs, c.weights))
           for c in import_cases.unit_cases() + import_cases.network_cases()]
    for path in extra:
        out.append((os.path.basename(path), onnx.load(path), ('', '', 'fp32')))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[1])
    ap.add_argument('models', nargs='*')
    ap.add_argument('--runs', type=int, default=200)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--swdla-tool', default='')
    ap.add_argument('--artifacts', default='fuzz-artifacts/onnx-import')
    ap.add_argument('--corpus', default=os.path.join(HERE, 'corpus', 'onnx-import'),
                    help='inputs that once failed: each imported first, unmutated')
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pool = seeds(args.models)
    counts, t0 = {}, time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        # The input under test stays on disk until it has passed: a crash inside onnx's own C++ code
        # (a signal, no Python exception) leaves it there to reproduce.
        os.makedirs(args.artifacts, exist_ok=True)
        path = os.path.join(args.artifacts, 'last-input.onnx')
        regressions = sorted(os.listdir(args.corpus)) if os.path.isdir(args.corpus) else []
        for run in range(-len(regressions), args.runs):
            if run < 0:
                name, fmt, what = regressions[run], ('', '', 'fp32'), 'a regression input'
                with open(os.path.join(args.corpus, name), 'rb') as f:
                    data = f.read()
            else:
                name, model, fmt = rng.choice(pool)
                data, what = mutate(rng, model)
            with open(path, 'wb') as f:
                f.write(data)
            try:
                outcome = import_one(path, fmt, args.swdla_tool, scratch)
            except (Exception, Timeout) as e:
                keep = os.path.join(args.artifacts, f'crash-{args.seed}-{run}.onnx')
                with open(keep, 'wb') as f:
                    f.write(data)
                traceback.print_exc()
                print(f'fuzz-onnx-import: run {run} ({name}; mutated: {what}) raised {type(e).__name__}; '
                      f'the model is in {keep}: fix the importer, then add it to tests/fuzz/corpus/onnx-import',
                      file=sys.stderr)
                return 1
            counts[outcome] = counts.get(outcome, 0) + 1
        os.unlink(path)
    took = time.monotonic() - t0
    print(f'fuzz-onnx-import: {len(regressions)} regression inputs, then {args.runs} runs from {len(pool)} seeds '
          f'in {took:.1f} s: ' +
          ', '.join(f'{v} {k}' for k, v in sorted(counts.items())))
    return 0


if __name__ == '__main__':
    sys.exit(main())

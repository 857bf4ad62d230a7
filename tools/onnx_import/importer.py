# SPDX-License-Identifier: LGPL-2.1-or-later
"""ONNX model -> swdla model file (format version 2). `load` reads and validates the file,
`convert` maps every node the outputs need (ops.py) and returns the file's bytes, or raises Refused
with every node the DLA cannot run, each with the rules it breaks."""
import os
import pickle

import numpy as np
import onnx
import onnx.external_data_helper
from onnx import numpy_helper, shape_inference

from . import const_ops, dla_rules, ops, swdla_file
from .context import Act, Context, Refuse
from .io_formats import IoFormat


class BadModel(Exception):
    """A one-line reason the file cannot be imported (not an ONNX model, bad options)."""


class Refused(Exception):
    """Every node and I/O tensor the DLA cannot take: [(what, [rules])]."""

    def __init__(self, items):
        super().__init__(f'{len(items)} refused')
        self.items = items

    def lines(self):
        return [f'{what}: ' + '; '.join(rules) for what, rules in self.items]


def load(path):
    try:
        with open(path, 'rb'):
            pass
    except OSError as e:
        raise BadModel(f'cannot read {path}: {e.strerror}') from None
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as e:  # protobuf's DecodeError and friends
        why = str(e).splitlines()[0] if str(e) else 'protobuf parse error'
        raise BadModel(f'{path} is not an ONNX model ({type(e).__name__}: {why}); give the .onnx file that '
                       'torch.onnx.export or the exporter wrote') from None
    try:  # weights in a data file beside the .onnx (external data)
        onnx.external_data_helper.load_external_data_for_model(model, os.path.dirname(os.path.abspath(path)))
    except Exception as e:
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise BadModel(f'{path}: cannot read its external weights ({why}); keep the data file the exporter '
                       'wrote next to the .onnx') from None
    if not model.HasField('graph') or not model.ir_version or not model.graph.output:
        raise BadModel(f'{path} is not an ONNX model (no graph, IR version or outputs in it)')
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as e:
        first = next((l for l in str(e).splitlines() if l.strip()), 'invalid')
        raise BadModel(f'{path} is not a valid ONNX model: {first}') from None
    except UnicodeDecodeError:  # onnx >= 1.13's checker reads the names as UTF-8
        raise BadModel(f'{path} is damaged: a name in it is not UTF-8 text; export the model again') from None
    g = model.graph
    names = [v.name for v in list(g.input) + list(g.output) + list(g.value_info) + list(g.initializer)]
    names += [n for node in g.node for n in [node.name, node.op_type] + list(node.input) + list(node.output)]
    damaged = next((n for n in names if not isinstance(n, str)), None)  # protobuf's bytes: not UTF-8
    if damaged is not None:
        raise BadModel(f'{path} is damaged: the name {damaged[:40]!r} is not UTF-8 text; export the model again')
    return model


def _dims(vi):
    t = vi.type.tensor_type
    if not t.HasField('shape'):
        return None
    return [(d.dim_value if d.HasField('dim_value') else None, d.dim_param) for d in t.shape.dim]


def _type_name(elem_type):
    try:
        return onnx.TensorProto.DataType.Name(elem_type)
    except ValueError:  # a number no ONNX version defines
        return f'number {elem_type} (not an ONNX type)'


AXES = {4: ('batch', 'channels', 'height', 'width'), 2: ('batch', 'channels')}


def _graph_inputs(model, consts):
    """The real inputs: [(name, n, (c, h, w), rank)]; refusals for dynamic or unusable ones."""
    out, bad = [], []
    for vi in model.graph.input:
        if vi.name in consts:
            continue
        dims = _dims(vi)
        what = f'input {vi.name!r}'
        et = vi.type.tensor_type.elem_type
        if et not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16):
            bad.append((what, [f'element type {_type_name(et)}: the importer takes FLOAT or '
                               'FLOAT16 inputs (the DLA input is FP16 or INT8 with a scale: --inputs)']))
            continue
        if dims is None or len(dims) not in AXES:
            bad.append((what, [f'rank {"unknown" if dims is None else len(dims)}: the DLA takes N x C x H x W '
                               '(or N x C) inputs']))
            continue
        dyn = [f'dimension {i} ({AXES[len(dims)][i]}) is dynamic ({p!r} in the file)' if p or v is None
               else f'dimension {i} ({AXES[len(dims)][i]}) is {v}' for i, (v, p) in enumerate(dims)
               if v is None or v < 1]
        if dyn:
            bad.append((what, dyn + ['the DLA runs fixed shapes: export with fixed sizes (no dynamic_axes)']))
            continue
        v = [d[0] for d in dims]
        out.append((vi.name, v[0], tuple(v[1:]) + (1,) * (4 - len(v)), len(v)))
    return out, bad


def _needed(model, outputs):
    """The nodes the outputs depend on, in file order."""
    producer = {o: i for i, n in enumerate(model.graph.node) for o in n.output if o}
    need, todo = set(), [producer[o] for o in outputs if o in producer]
    while todo:
        i = todo.pop()
        if i in need:
            continue
        need.add(i)
        todo += [producer[x] for x in model.graph.node[i].input if x in producer]
    return [n for i, n in enumerate(model.graph.node) if i in need]


def _ghost_shapes(model):
    """ONNX shape inference's shapes, to keep checking nodes behind a refused one. Best effort, and in
    a child process: onnx's C++ inference divides by zero on some damaged attributes (a zero stride)
    and would end the importer with SIGFPE instead of its list of refusals."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(r)
        try:
            data = pickle.dumps(_inferred_shapes(model))
        except BaseException:
            data = pickle.dumps({})
        with os.fdopen(w, 'wb') as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, 'rb') as f:
        data = f.read()
    os.waitpid(pid, 0)
    try:
        return pickle.loads(data)
    except Exception:  # the child died: no shapes
        return {}


def _inferred_shapes(model):
    inferred = shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        d = _dims(vi)
        if d is not None and all(v for v, _ in d):
            shapes[vi.name] = [v for v, _ in d]
    return shapes


def _ghost(shape):
    if shape is None:
        return Act(None, None, 0)
    if len(shape) == 4:
        return Act(None, tuple(shape[1:]), 4)
    if len(shape) == 2:
        return Act(None, (shape[1], 1, 1), 2)
    return Act(None, tuple(shape), len(shape))


def _node_label(node, index):
    return f'node {node.name!r}' if node.name else f'node #{index} (output {node.output[0]!r})'


def _run_node(ctx, node):
    """Maps one node; raises Refuse. Returns False when it cannot be judged (behind a refusal)."""
    if node.domain not in ('', 'ai.onnx'):
        raise Refuse(f'op of domain {node.domain!r}: the DLA runs standard ONNX ops only')
    vals = [ctx.values.get(n) if n else None for n in node.input]
    if any(n and v is None for n, v in zip(node.input, vals)):
        return False
    present = [v for v in vals if v is not None]
    if node.op_type == 'Shape':
        s = const_ops.shape_of(present[0], ctx.batch)
        if s is None:
            return False
        ctx.values[node.output[0]] = s
        return True
    if all(isinstance(v, np.ndarray) for v in present) and node.op_type in const_ops.FOLD:
        ctx.values[node.output[0]] = const_ops.FOLD[node.op_type](node, [v for v in vals if v is not None])
        return True
    acts = [v for v in present if isinstance(v, Act)]
    if any(a.shape is None for a in acts):
        return False
    for name, v in zip(node.input, vals):
        if isinstance(v, Act) and v.rank not in (2, 4):
            raise Refuse(f'input {name!r} is {v.rank}-D {list(v.shape)}: the DLA\'s layers take N x C x H x W')
    if not acts and node.op_type not in ('Add', 'Sub', 'Mul', 'Div', 'Max', 'Min'):
        raise Refuse(f'{node.op_type} on constants only is not folded by this importer: fold constants first '
                     '(e.g. onnx-simplifier)')
    handler = ops.HANDLERS.get(node.op_type)
    if handler is None:
        raise Refuse(f'{node.op_type}: no DLA layer kind computes it (the DLA runs convolution, pooling, '
                     'activations, element-wise, channel concat, nearest resize, softmax, fully connected, '
                     'scale): cut the graph before it and run the rest after dlainfer')
    handler(ctx, node)
    return True


def _constants(model):
    """The initializers as arrays; BadModel names one whose data does not fit its shape or type."""
    consts = {}
    for t in model.graph.initializer:
        try:
            consts[t.name] = numpy_helper.to_array(t)
        except Exception as e:  # numpy's ValueError, onnx's TypeError for an unknown data type
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise BadModel(f'initializer {t.name!r} cannot be read ({why}): the file is damaged or was not '
                           'written by an ONNX exporter; export the model again') from None
    return consts


DLA, CONSTANT, REFUSED, UNJUDGED = 'dla', 'constant', 'refused', 'unjudged'


def _walk(ctx, model, nodes):
    """Maps `nodes` in order, yielding (index, node, verdict, rules): DLA (a layer, folded or
    removed), CONSTANT (computed at import), REFUSED (rules: the DLA rules it breaks) or UNJUDGED
    (behind a refused node, its input shapes unknown). A refused node's outputs become ghosts with
    ONNX shape inference's shapes, so that the nodes after it are still checked."""
    ghosts = None  # computed at the first refusal
    for index, node in enumerate(nodes):
        try:
            judged = _run_node(ctx, node)
        except (Refuse, ValueError, TypeError, KeyError, IndexError) as r:
            # Anything else a malformed node raises is listed with it too, not a traceback.
            rules = r.rules if isinstance(r, Refuse) else [f'cannot be read ({type(r).__name__}: {r})']
            ghosts = _ghost_shapes(model) if ghosts is None else ghosts
            for o in node.output:
                if o:
                    ctx.values[o] = _ghost(ghosts.get(o))
            yield index, node, REFUSED, rules
            continue
        outs = [ctx.values.get(o) for o in node.output if o]
        if not judged:
            yield index, node, UNJUDGED, []
        elif outs and all(isinstance(v, np.ndarray) for v in outs):
            yield index, node, CONSTANT, []
        else:
            yield index, node, DLA, []


def judge(model):
    """Every node of the graph, in file order, with its verdict (see _walk) and the rules it breaks:
    [(node, verdict, rules)]. The graph's inputs must have fixed shapes (BadModel otherwise, naming
    the input and the dimension). No layer is kept: this is the question "what runs where"."""
    opset = next((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), 1)
    consts = _constants(model)
    inputs, refused = _graph_inputs(model, consts)
    if refused:
        raise BadModel('; '.join(f'{what}: ' + '; '.join(rules) for what, rules in refused))
    batch = inputs[0][1] if inputs else 1
    consumers = {}
    for node in model.graph.node:
        for n in node.input:
            consumers[n] = consumers.get(n, 0) + 1
    outputs = [o.name for o in model.graph.output]
    for n in outputs:
        consumers[n] = consumers.get(n, 0) + 1
    # Every node reads as if it were its tensor's only reader, so that nothing folds into a layer
    # another node also reads (a verdict per node, not the smallest layer list).
    ctx = Context(batch, {k: max(v, 2) for k, v in consumers.items()}, outputs, 'fp32', opset)
    ctx.values.update(consts)
    ctx.n_inputs = len(inputs)
    for k, (name, n, shape, rank) in enumerate(inputs):
        ctx.values[name] = Act(k, shape, rank)
    return [(node, verdict, rules) for _, node, verdict, rules in _walk(ctx, model, list(model.graph.node))]


def convert(model, in_formats=None, out_formats=None, weight_type='fp32'):
    """(file bytes, summary dict). in_formats / out_formats: {name: IoFormat}; out_formats, when given,
    names the outputs (graph outputs or any tensor: a cut), else the graph outputs in fp16:chw16."""
    in_formats, out_formats = dict(in_formats or {}), out_formats or {}
    opset = next((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), 1)
    consts = _constants(model)
    inputs, refused = _graph_inputs(model, consts)
    names = {n for node in model.graph.node for n in node.output if n} | {i[0] for i in inputs}
    unknown = [n for n in in_formats if n not in {i[0] for i in inputs}]
    if unknown:
        raise BadModel(f'--inputs names {unknown[0]!r}, not an input of the model (its inputs: ' +
                          ', '.join(i[0] for i in inputs) + ')')
    outputs = list(out_formats) or [o.name for o in model.graph.output]
    twice = sorted({n for n in outputs if outputs.count(n) > 1})
    if twice:
        raise BadModel(f'output {twice[0]!r} is named twice in the graph\'s outputs (or --outputs): each output '
                       'tensor once')
    missing = [n for n in outputs if n not in names]
    if missing:
        raise BadModel(f'--outputs names {missing[0]!r}, not a tensor of the model (its outputs: ' +
                          ', '.join(o.name for o in model.graph.output) + ')')
    if refused:
        raise Refused(refused)
    batches = sorted({i[1] for i in inputs})
    if len(batches) > 1:
        raise Refused([('inputs', [f'batches {batches}: the DLA runs one batch size for all inputs'])])
    batch = batches[0] if batches else 1
    nodes = _needed(model, outputs)
    consumers = {}
    for node in nodes:
        for n in node.input:
            consumers[n] = consumers.get(n, 0) + 1
    for n in outputs:
        consumers[n] = consumers.get(n, 0) + 1

    ctx = Context(batch, consumers, outputs, weight_type, opset)
    ctx.values.update(consts)
    ctx.n_inputs = len(inputs)
    records = []
    for k, (name, n, shape, rank) in enumerate(inputs):
        fmt = in_formats.get(name, IoFormat())
        bad = dla_rules.name(name) + dla_rules.io_format(fmt.layout, fmt.type, shape[0], True)
        bad += dla_rules.tensor(shape) + ([] if n <= dla_rules.MAX_BATCH else
                                          [f'batch {n}: the DLA takes 1..{dla_rules.MAX_BATCH}'])
        if bad:
            refused.append((f'input {name!r}', bad))
        records.append(swdla_file.Tensor(name, fmt.layout, fmt.type, n, *shape, scale=fmt.scale))
        ctx.values[name] = Act(k, shape, rank)

    for index, node, verdict, rules in _walk(ctx, model, nodes):
        if verdict == REFUSED:
            refused.append((_node_label(node, index) + f' ({node.op_type})', rules))

    out_records = []
    for name in outputs:
        v = ctx.values.get(name)
        what = f'output {name!r}'
        fmt = out_formats.get(name, IoFormat())
        if isinstance(v, np.ndarray):
            refused.append((what, ['a constant: the DLA writes outputs computed from the inputs']))
        elif isinstance(v, Act) and v.id is not None:
            bad = dla_rules.name(name) + dla_rules.io_format(fmt.layout, fmt.type, v.shape[0], False)
            if v.flat:
                bad.append('a flattened N x (C.H.W) tensor: the DLA writes C x H x W; name the tensor before '
                           'the Flatten/Reshape as the output')
            if bad:
                refused.append((what, bad))
            out_records.append(swdla_file.Tensor(name, fmt.layout, fmt.type, batch, *v.shape, scale=fmt.scale,
                                                 source=v.id))
    if not refused:
        if len(records) > dla_rules.MAX_IO or len(out_records) > dla_rules.MAX_IO:
            refused.append(('model', [f'{len(records)} inputs, {len(out_records)} outputs: swdla takes '
                                      f'1..{dla_rules.MAX_IO} of each']))
        if len(ctx.layers) > dla_rules.MAX_LAYERS:
            refused.append(('model', [f'{len(ctx.layers)} layers: swdla takes up to {dla_rules.MAX_LAYERS}']))
    if refused:
        raise Refused(refused)
    data = swdla_file.write(records, out_records, ctx.layers)
    summary = {'inputs': len(records), 'outputs': len(out_records), 'layers': len(ctx.layers),
               'folded': ctx.folded, 'removed': ctx.removed, 'fp32_layers': ctx.fp32_layers, 'opset': opset}
    return data, summary

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reading the ONNX file: not ONNX, an opset this tool does not know and dynamic input shapes are
refused with one line each (PrepError); --input-shape fixes dynamic dimensions. Then the graph's
shapes (ONNX shape inference) and each node's verdict from the importer's DLA rules."""
import re

import onnx
from onnx import shape_inference

from onnx_import import importer

# The default domain's opsets this tool reads: from 7 (Upsample's and BatchNormalization's current
# forms) to the newest the installed onnx package knows (17 for Debian 12's onnx 1.12), since its
# checker and shape inference must understand the graph.
OPSETS = (7, onnx.defs.onnx_opset_version())
AXES = ('batch', 'channels', 'height', 'width')


class PrepError(Exception):
    """One line: the cause and the fix. `code` is the exit status."""

    def __init__(self, text, code=2):
        super().__init__(text)
        self.code = code


def parse_shapes(items):
    """['images:1x3x640x640', ...] -> {name: [1, 3, 640, 640]}."""
    out = {}
    for item in items or []:
        m = re.fullmatch(r'(.+):(\d+(?:x\d+)*)', item)
        if not m:
            raise PrepError(f'--input-shape {item!r}: write NAME:NxCxHxW, e.g. images:1x3x640x640')
        out[m.group(1)] = [int(v) for v in m.group(2).split('x')]
    return out


def _opset(model, path):
    version = next((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), None)
    if version is None or not OPSETS[0] <= version <= OPSETS[1]:
        raise PrepError(f'{path}: opset {version} of the default ONNX domain is not one this tool knows '
                        f'({OPSETS[0]}..{OPSETS[1]} with onnx {onnx.__version__}); export with an opset in that '
                        'range (torch.onnx.export opset_version=17)')
    return version


def _fix_inputs(model, path, shapes):
    """Sets the dimensions --input-shape gives; refuses any dimension still dynamic."""
    inits = {t.name for t in model.graph.initializer}
    names = [vi.name for vi in model.graph.input if vi.name not in inits]
    for name in shapes:
        if name not in names:
            raise PrepError(f'--input-shape names {name!r}, not an input of {path} (its inputs: {", ".join(names)})')
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        dims = vi.type.tensor_type.shape.dim
        given = shapes.get(vi.name)
        if given is not None:
            if len(given) != len(dims):
                raise PrepError(f'--input-shape {vi.name}: {len(given)} dimensions for an input of rank {len(dims)}')
            for d, v in zip(dims, given):
                if d.HasField('dim_value') and d.dim_value != v:
                    raise PrepError(f'--input-shape {vi.name}: {v} for a dimension fixed at {d.dim_value} in the file')
                d.dim_value = v
        for i, d in enumerate(dims):
            if not d.HasField('dim_value') or d.dim_value <= 0:
                axis = AXES[i] if len(dims) == 4 else f'axis {i}'
                what = f'dynamic ({d.dim_param!r} in the file)' if d.dim_param else 'dynamic'
                example = 'x'.join(str(x.dim_value) if x.HasField('dim_value') and x.dim_value > 0 else
                                   ('1' if k == 0 else '640') for k, x in enumerate(dims))
                raise PrepError(f'{path}: input {vi.name!r} dimension {i} ({axis}) is {what}: the DLA runs fixed '
                                f'shapes; give them with --input-shape {vi.name}:{example} (or export without '
                                'dynamic_axes)')
    return names


def load(path, input_shapes=None):
    """(model with fixed input shapes and inferred shapes, input names). PrepError when it cannot."""
    try:
        model = importer.load(path)
    except importer.BadModel as e:
        try:  # an ONNX file the checker refuses for its opset: say that, not the checker's words
            _opset(onnx.load(path, load_external_data=False), path)
        except PrepError:
            raise
        except Exception:
            pass
        raise PrepError(str(e)) from None
    _opset(model, path)
    names = _fix_inputs(model, path, input_shapes or {})
    # Inferred shapes of the stored graph are dropped: the fixed inputs may change them.
    del model.graph.value_info[:]
    try:
        model = shape_inference.infer_shapes(model)
    except Exception as e:  # a graph ONNX itself cannot type
        first = next((l for l in str(e).splitlines() if l.strip()), type(e).__name__)
        raise PrepError(f'{path}: ONNX shape inference fails ({first}); check the export') from None
    return model, names


def shapes(model):
    """{tensor name: [dims]} for every tensor whose shape is fully known."""
    out = {}
    for vi in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        t = vi.type.tensor_type
        if t.HasField('shape') and all(d.HasField('dim_value') for d in t.shape.dim):
            out[vi.name] = [d.dim_value for d in t.shape.dim]
    for t in model.graph.initializer:
        out[t.name] = list(t.dims)
    return out


def verdicts(model):
    """[(node, verdict, rules)] in file order (onnx_import.importer.judge)."""
    try:
        return importer.judge(model)
    except importer.BadModel as e:
        raise PrepError(str(e)) from None


def node_label(node, index):
    return node.name or f'#{index} ({node.output[0]})'

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Nodes whose inputs are all constants are computed here, once, as an exporter's constant folding
would (shape arithmetic, Constant nodes, casts of weights): they never become layers."""
import numpy as np
from onnx import helper, numpy_helper

from .context import Act


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def constant(node, ins):
    a = _attrs(node)
    if 'value' in a:
        return numpy_helper.to_array(a['value'])
    for k, dt in (('value_float', np.float32), ('value_int', np.int64), ('value_floats', np.float32),
                  ('value_ints', np.int64)):
        if k in a:
            return np.asarray(a[k], dt)
    raise ValueError('a Constant without a value')


def _axes(node, ins):
    a = _attrs(node)
    return a['axes'] if 'axes' in a else [int(v) for v in ins[1]]


def unsqueeze(node, ins):
    x = ins[0]
    axes = sorted(int(v) % (x.ndim + len(_axes(node, ins))) for v in _axes(node, ins))
    for ax in axes:
        x = np.expand_dims(x, ax)
    return x


def squeeze(node, ins):
    a = _attrs(node)
    if 'axes' not in a and len(ins) < 2:
        return np.squeeze(ins[0])
    return np.squeeze(ins[0], axis=tuple(int(v) for v in _axes(node, ins)))


def cast(node, ins):
    to = _attrs(node)['to']
    if hasattr(helper, 'tensor_dtype_to_np_dtype'):  # onnx >= 1.13
        return ins[0].astype(helper.tensor_dtype_to_np_dtype(to))
    from onnx import mapping  # onnx 1.12 (Debian 12)
    return ins[0].astype(mapping.TENSOR_TYPE_TO_NP_TYPE[to])


def reshape(node, ins):
    x, shape = ins[0], [int(v) for v in ins[1]]
    shape = [x.shape[i] if v == 0 else v for i, v in enumerate(shape)]
    return x.reshape(shape)


def gather(node, ins):
    return np.take(ins[0], ins[1].astype(np.int64), axis=_attrs(node).get('axis', 0))


FOLD = {
    'Constant': constant,
    'Identity': lambda node, ins: ins[0],
    'Cast': cast,
    'Reshape': reshape,
    'Unsqueeze': unsqueeze,
    'Squeeze': squeeze,
    'Concat': lambda node, ins: np.concatenate(ins, axis=_attrs(node)['axis']),
    'Gather': gather,
    'Sqrt': lambda node, ins: np.sqrt(ins[0]),
    'Neg': lambda node, ins: -ins[0],
    'Reciprocal': lambda node, ins: 1 / ins[0],
    'Add': lambda node, ins: ins[0] + ins[1],
    'Sub': lambda node, ins: ins[0] - ins[1],
    'Mul': lambda node, ins: ins[0] * ins[1],
    'Div': lambda node, ins: ins[0] / ins[1] if ins[0].dtype.kind == 'f' else ins[0] // ins[1],
}


def shape_of(value, batch):
    """Shape's answer for an activation with a known shape."""
    if isinstance(value, Act) and value.shape is not None and value.rank in (2, 4):
        return np.asarray(value.onnx_shape(batch), np.int64)
    return None

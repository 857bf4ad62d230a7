# SPDX-License-Identifier: LGPL-2.1-or-later
"""The .modelinfo beside the loadable (upstream GStreamer's format 1.0 with dlainfer's keys,
docs/modelinfo.md and docs/detection.md section 3): the decoder's keys from the recognised head,
the input's ranges from --mean/--std, one section per I/O tensor of the cut graph."""
from onnx import TensorProto

TYPES = {TensorProto.FLOAT: 'float32', TensorProto.FLOAT16: 'float16', TensorProto.UINT8: 'uint8',
         TensorProto.INT8: 'int8'}


def ranges(mean, std):
    """dlainfer's (pixel/255 - mean) / std as upstream's per-channel min,max pairs."""
    return ';'.join(f'{-m / s:.6g},{(1 - m) / s:.6g}' for m, s in zip(mean, std))


def text(cut, keys, shapes, mean=None, std=None):
    """The file's text. keys: {dlainfer key without prefix: value}, in the order to write."""
    lines = ['[modelinfo]', 'version=1.0']
    lines += [f'dlainfer-{k}={v}' for k, v in keys.items()]
    for vi in cut.graph.input:
        lines += ['', f'[{vi.name}]', 'dims=' + ','.join(map(str, shapes[vi.name])), 'dir=input',
                  'type=' + TYPES.get(vi.type.tensor_type.elem_type, 'float32')]
        if mean is not None:
            lines.append('ranges=' + ranges(mean, std))
    for vi in cut.graph.output:
        lines += ['', f'[{vi.name}]', 'dims=' + ','.join(map(str, shapes[vi.name])), 'dir=output',
                  'type=float32', f'id={vi.name}']
    return '\n'.join(lines) + '\n'

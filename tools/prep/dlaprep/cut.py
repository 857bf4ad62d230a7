# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writing the cut graph: the nodes from the inputs to the cut tensors (onnx.utils.Extractor), and
an FP16 copy for TensorRT 11, which builds strongly typed networks (the precision comes from the
ONNX, docs/model-prep.md): float weights and I/O in FP16, except the inputs ONNX types as float32
whatever the data (Resize's and Upsample's scales and roi)."""
import numpy as np
import onnx
import onnx.utils
from onnx import TensorProto, numpy_helper

from .model import PrepError

# (op, input index) pairs that stay float32 in the FP16 copy.
FLOAT32_INPUTS = {('Resize', 1), ('Resize', 2), ('Upsample', 1)}


class _Extractor(onnx.utils.Extractor):
    """onnx's own, finding the nodes through a map from tensor to producer: onnx 1.12's search
    (Debian 12's) compares nodes with every node found so far, 7 s for a 185-node YOLOv5."""

    def _collect_reachable_nodes(self, input_names, output_names):
        nodes = list(self.graph.node)
        producer = {t: i for i, n in enumerate(nodes) for t in n.output}
        stop, reachable, pending = set(input_names), set(), list(output_names)
        while pending:
            t = pending.pop()
            i = None if t in stop else producer.get(t)
            if i is None or i in reachable:
                continue
            reachable.add(i)
            pending.extend(nodes[i].input)
        return [nodes[i] for i in sorted(reachable)]  # in the graph's (topological) order


def extract(model, inputs, outputs):
    known = {o for n in model.graph.node for o in n.output} | set(inputs)
    for t in outputs:
        if t not in known:
            raise PrepError(f'--cut-at names {t!r}, not a tensor of the model (give node output names, as the '
                            'table prints them)')
    try:
        cut = _Extractor(model).extract_model(list(inputs), list(outputs))
    except Exception as e:
        raise PrepError(f'cannot cut at {", ".join(outputs)}: {e}') from None
    cut.graph.doc_string = 'cut by dlainfer-prep at ' + ', '.join(outputs)
    return cut


def to_fp16(model):
    """A copy with FP16 weights, activations and I/O (for TensorRT 11's strongly typed build)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    keep = {n.input[i] for n in m.graph.node for op, i in FLOAT32_INPUTS if n.op_type == op and len(n.input) > i}
    for t in m.graph.initializer:
        if t.data_type == TensorProto.FLOAT and t.name not in keep:
            a = numpy_helper.to_array(t)
            if np.abs(a).max(initial=0) > 65504:
                raise PrepError(f'weight {t.name!r} exceeds FP16\'s range (65504): this layer cannot run FP16 on the DLA')
            t.CopyFrom(numpy_helper.from_array(a.astype(np.float16), t.name))
    for node in m.graph.node:
        if node.op_type == 'Constant':
            for a in node.attribute:
                if a.name == 'value' and a.t.data_type == TensorProto.FLOAT and node.output[0] not in keep:
                    a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float16), a.t.name))
    for vi in list(m.graph.input) + list(m.graph.output):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT16
    del m.graph.value_info[:]
    try:
        onnx.checker.check_model(m)
    except onnx.checker.ValidationError as e:
        raise PrepError(f'the FP16 copy of the cut graph is not valid ONNX: {str(e).splitlines()[0]}') from None
    return m

# SPDX-License-Identifier: LGPL-2.1-or-later
"""The DLA region of a graph: the nodes the DLA runs whose every activation input comes from the
graph's inputs or from the region itself. Its frontier (the tensors it hands to nodes outside it,
or the graph's outputs) is the natural cut; the share of convolution work inside says whether the
cut keeps most of the network on the DLA."""
from dataclasses import dataclass, field

from onnx import helper

from onnx_import.importer import CONSTANT, DLA


@dataclass
class Region:
    inside: set = field(default_factory=set)      # node indices
    frontier: list = field(default_factory=list)  # tensor names, in the order the graph makes them
    macs_inside: int = 0
    macs_total: int = 0
    constant_nodes: int = 0
    first_outside: object = None                  # (index, node, rules) of the first node the DLA cannot run


def macs(node, shapes):
    """Multiply-accumulates of a Conv or Gemm/MatMul (0 for the rest, and when shapes are unknown)."""
    out = shapes.get(node.output[0])
    if node.op_type == 'Conv' and out and len(node.input) > 1 and node.input[1] in shapes:
        w = shapes[node.input[1]]
        if len(w) == 4 and len(out) == 4:
            return out[0] * out[1] * out[2] * out[3] * w[1] * w[2] * w[3]
    if node.op_type in ('Gemm', 'MatMul') and out and node.input[1] in shapes:
        k = shapes[node.input[1]]
        return (out[0] if len(out) > 1 else 1) * k[0] * k[1] if len(k) == 2 else 0
    return 0


def find(model, verdicts, shapes):
    r = Region()
    inputs = {vi.name for vi in model.graph.input} - {t.name for t in model.graph.initializer}
    consts = {t.name for t in model.graph.initializer}
    made = set(inputs)     # activations the region makes (graph inputs included)
    constant = set(consts)  # tensors computed at import (never activations)
    for index, (node, verdict, rules) in enumerate(verdicts):
        acts = [n for n in node.input if n and n not in constant]
        if verdict == CONSTANT:
            constant.update(o for o in node.output if o)
            r.constant_nodes += 1
        elif verdict == DLA and all(n in made for n in acts):
            r.inside.add(index)
            made.update(o for o in node.output if o)
        elif r.first_outside is None:
            r.first_outside = (index, node, rules or ['behind a node the DLA cannot run'])
        n = macs(node, shapes)
        r.macs_total += n
        if index in r.inside:
            r.macs_inside += n
    read_outside = set()
    for index, (node, verdict, _) in enumerate(verdicts):
        if index not in r.inside and verdict != CONSTANT:
            read_outside.update(node.input)
    outputs = {o.name for o in model.graph.output}
    for index, (node, _, _) in enumerate(verdicts):
        if index in r.inside:
            r.frontier += [o for o in node.output if o and (o in read_outside or o in outputs)]
    return r


def consumers(model):
    """{tensor: [node, ...]} in file order."""
    out = {}
    for node in model.graph.node:
        for n in node.input:
            out.setdefault(n, []).append(node)
    return out


def producer(model):
    return {o: node for node in model.graph.node for o in node.output if o}


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def downstream(model, start, limit=400):
    """The nodes reachable from the tensors `start`, breadth first (at most `limit`)."""
    cons = consumers(model)
    seen, todo, order = set(), list(start), []
    while todo and len(order) < limit:
        t = todo.pop(0)
        for node in cons.get(t, []):
            if id(node) in seen:
                continue
            seen.add(id(node))
            order.append(node)
            todo += [o for o in node.output if o]
    return order

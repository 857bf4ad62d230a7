# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-prep MODEL.onnx: what runs where, the cut, the .modelinfo and the trtexec lines
(docs/model-prep.md). Exit: 0 done; 2 bad input (not ONNX, an unknown opset, dynamic shapes, bad
options); 3 no head recognised and no --cut-at; 4 no DLA-legal cut keeps most of the work on the DLA."""
import argparse
import os
import sys

from onnx_import.importer import CONSTANT, DLA, REFUSED

from . import cut as cutting
from . import heads, model as mdl, modelinfo, region, trtexec

PROG = 'dlainfer-prep'
MOST = 0.5  # the share of convolution work a cut must keep on the DLA
FAMILIES = {'yolov5': 'YOLOv5/v7 anchor heads (yolo-anchors, YOLOv5 box formula)',
            'yolov2': 'YOLOv2 anchor heads (yolo-anchors, YOLOv2 box formula)',
            'yolov8': 'YOLOv8/11 box and class heads before the DFL (yolov8)',
            'ssd': 'SSD box and class predictors (ssd)',
            'classifier': 'a classifier: the whole graph on the DLA, a class vector out (dlainfer)',
            'dla-whole': 'the whole graph on the DLA, feature maps out (no decode in the graph)',
            'cut-at': 'the tensors --cut-at names'}


def options(argv):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split('\n\n')[0])
    ap.add_argument('model', help='the trained ONNX model')
    ap.add_argument('--input-shape', action='append', metavar='NAME:NxCxHxW',
                    help='fixes an input\'s dynamic dimensions (repeat per input)')
    ap.add_argument('--cut', action='store_true', help='write the cut ONNX (and its FP16 copy) and the .modelinfo')
    ap.add_argument('--cut-at', metavar='T1,T2,...', help='cut at these tensors instead of the proposed ones')
    ap.add_argument('--out', metavar='PREFIX', help='files PREFIX.onnx, PREFIX.fp16.onnx, PREFIX.modelinfo '
                                                     '(default: MODEL without .onnx, plus -cut)')
    ap.add_argument('--mean', help='per-channel mean of pixel/255, e.g. 0.485,0.456,0.406 (the input\'s ranges)')
    ap.add_argument('--std', help='per-channel std, e.g. 0.229,0.224,0.225')
    ap.add_argument('--channel-order', choices=('rgb', 'bgr'))
    ap.add_argument('--resize-mode', choices=('stretch', 'letterbox', 'center-crop'))
    ap.add_argument('--key', action='append', metavar='KEY=VALUE',
                    help='a dlainfer-KEY for the .modelinfo, added or replacing what was read (docs/detection.md)')
    ap.add_argument('--core', type=int, default=0, help='DLA core in the trtexec lines (default 0)')
    ap.add_argument('--quiet-table', action='store_true', help='list only the nodes the DLA cannot run')
    return ap.parse_args(argv)


def floats(text, what):
    try:
        v = [float(x) for x in text.split(',')]
    except ValueError:
        raise mdl.PrepError(f'--{what} {text!r}: write three numbers separated by commas') from None
    if len(v) != 3 or (what == 'std' and min(v) <= 0):
        raise mdl.PrepError(f'--{what} {text!r}: three numbers' + (' above 0' if what == 'std' else ''))
    return v


def print_table(model, verdicts, reg, shapes, quiet):
    rows = [('#', 'node', 'op', 'output', 'runs on', 'why')]
    for index, (node, verdict, rules) in enumerate(verdicts):
        if index in reg.inside:
            where, why = 'DLA', ''
        elif verdict == CONSTANT:
            where, why = 'folded', 'computed once from constants'
        elif verdict == REFUSED:
            where, why = 'GPU/CPU', '; '.join(rules)
        elif verdict == DLA:
            where, why = 'GPU/CPU', 'DLA-legal, but after a node the DLA cannot run'
        else:
            where, why = 'GPU/CPU', 'after a node the DLA cannot run'
        if quiet and where != 'GPU/CPU':
            continue
        shape = shapes.get(node.output[0]) if node.output else None
        rows.append((str(index), mdl.node_label(node, index)[:48], node.op_type,
                     'x'.join(map(str, shape)) if shape else '?', where, why))
    widths = [max(len(r[k]) for r in rows) for k in range(5)]
    for r in rows:
        print('  '.join(r[k].ljust(widths[k]) for k in range(5)) + ('  ' + r[5] if r[5] else ''))


def summary(reg, verdicts):
    share = reg.macs_inside / reg.macs_total if reg.macs_total else 1.0
    print(f'{PROG}: DLA region: {len(reg.inside)} of {len(verdicts)} nodes, {share:.1%} of the convolution work')
    if reg.first_outside is not None:
        index, node, rules = reg.first_outside
        print(f'{PROG}: first node the DLA cannot run: {mdl.node_label(node, index)} ({node.op_type}): '
              + '; '.join(rules))
    return share


def print_lines(prefix, head, core):
    loadable = prefix + '.loadable'
    fp16 = head.head_nodes if all(head.head_nodes) else []
    print(f'{PROG}: TensorRT 11 (JetPack 7.2.2+, strongly typed: the FP16 copy):')
    print('  ' + trtexec.line(prefix + '.fp16.onnx', loadable, 11, core=core))
    print(f'{PROG}: TensorRT 8.5-10 (JetPack 5.1, 6), FP16:')
    print('  ' + trtexec.line(prefix + '.onnx', loadable, 10, core=core))
    print(f'{PROG}: TensorRT 8.5-10, INT8 body' + (' with the head layers in FP16 (cuDLA-samples)' if fp16 else '')
          + ', INT8 image input (the element needs input-scale; a calibration cache from your data):')
    print('  ' + trtexec.line(prefix + '.onnx', prefix + '.int8.loadable', 10, in_format='int8:dla_hwc4',
                              calib='calib.cache', head_fp16=fp16, core=core))
    print(f'{PROG}: on the Orin, the same through the kit:')
    print('  ' + trtexec.build_loadable(prefix + '.fp16.onnx', loadable, 11))
    print('  ' + trtexec.build_loadable(prefix + '.onnx', prefix + '.int8.loadable', 10, in_format='int8:dla_hwc4',
                                         calib='calib.cache', head_fp16=fp16))
    print(f'{PROG}: TensorRT 11 and INT8: quantise the ONNX with Q/DQ nodes, leaving the head layers '
          + (', '.join(fp16) if fp16 else '(the last convolutions)') + ' unquantised so they stay FP16')


def modelinfo_keys(args, head):
    """The head's keys, then --key, --channel-order and --resize-mode, which win."""
    keys = dict(head.keys)
    for item in args.key or []:
        k, sep, v = item.partition('=')
        if not sep or not k:
            raise mdl.PrepError(f'--key {item!r}: write KEY=VALUE, e.g. --key decoder=yolo-anchors')
        keys[k[len('dlainfer-'):] if k.startswith('dlainfer-') else k] = v
    if args.channel_order:
        keys['channel-order'] = args.channel_order
    if args.resize_mode:
        keys['resize-mode'] = args.resize_mode
    return keys


def write_cut(args, model, inputs, head, keys, shapes, prefix):
    """The cut graph (checked: every node on the DLA), its FP16 copy and the .modelinfo."""
    mean = floats(args.mean, 'mean') if args.mean else None
    std = floats(args.std, 'std') if args.std else ([1.0, 1.0, 1.0] if mean else None)
    if std and not mean:
        mean = [0.0, 0.0, 0.0]
    cut = cutting.extract(model, inputs, head.cut)
    bad = [(n, r) for n, v, r in mdl.verdicts(cut) if v not in (DLA, CONSTANT)]
    if bad:
        n, r = bad[0]
        raise mdl.PrepError(f'the cut graph still holds {len(bad)} node(s) the DLA cannot run, the first '
                            f'{n.name or n.output[0]} ({n.op_type}): {"; ".join(r) or "after a refused node"}; '
                            'cut before it with --cut-at', code=4)
    write(prefix + '.onnx', cut)
    write(prefix + '.fp16.onnx', cutting.to_fp16(cut))
    with open(prefix + '.modelinfo', 'w') as f:
        f.write(modelinfo.text(cut, keys, shapes, mean, std))
    print(f'{PROG}: wrote {prefix}.onnx, {prefix}.fp16.onnx (TensorRT 11), {prefix}.modelinfo')


def run(argv=None):
    args = options(argv)
    model, inputs = mdl.load(args.model, mdl.parse_shapes(args.input_shape))
    shapes = mdl.shapes(model)
    verdicts = mdl.verdicts(model)
    reg = region.find(model, verdicts, shapes)
    print_table(model, verdicts, reg, shapes, args.quiet_table)
    share = summary(reg, verdicts)
    in_shape = shapes[inputs[0]]
    in_hw = (in_shape[2], in_shape[3]) if len(in_shape) == 4 else (1, 1)
    if share < MOST and not args.cut_at:
        index, node, rules = reg.first_outside
        print(f'{PROG}: {args.model}: no DLA-legal cut keeps most of its work on the DLA: only {share:.0%} of the '
              f'convolution work comes before {mdl.node_label(node, index)} ({node.op_type}: {rules[0]}); '
              'replace that node in the model, or run the model on the GPU', file=sys.stderr)
        return 4
    head = heads.recognise(model, reg, shapes, in_hw)
    if args.cut_at:
        head = heads.Head('cut-at', [t for t in args.cut_at.split(',') if t])
    elif head.family == 'unknown':
        print(f'{PROG}: {args.model}: no detector head or classifier recognised after the DLA region (it ends at '
              f'{", ".join(head.cut) or "nothing"}); give the tensors to cut at with --cut-at T1,T2,... (names '
              'from the table: the last tensors the DLA should write)', file=sys.stderr)
        return 3
    print(f'{PROG}: head: {FAMILIES[head.family]}; cut at: {", ".join(head.cut)}')
    for note in head.notes:
        print(f'{PROG}: note: {note}')
    keys = modelinfo_keys(args, head)
    if keys:
        print(f'{PROG}: .modelinfo keys: ' + ', '.join(f'dlainfer-{k}={v}' for k, v in keys.items()))
    prefix = args.out or (args.model[:-5] if args.model.endswith('.onnx') else args.model) + '-cut'
    if args.cut:
        write_cut(args, model, inputs, head, keys, shapes, prefix)
    print_lines(prefix, head, args.core)
    return 0


def write(path, model):
    import onnx
    try:
        onnx.save(model, path)
    except OSError as e:
        raise mdl.PrepError(f'cannot write {path}: {e.strerror}') from None


def main(argv=None):
    try:
        return run(argv)
    except mdl.PrepError as e:
        print(f'{PROG}: {e}', file=sys.stderr)
        return e.code
    except OSError as e:
        print(f'{PROG}: {e.filename}: {e.strerror}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())

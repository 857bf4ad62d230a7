#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""swdla-import.py MODEL.onnx OUT.swdla [--inputs NAME:TYPE:LAYOUT[:scale=S],...] [--outputs ...]
                  [--weights fp32|fp16]

Imports a DLA-legal ONNX graph into an swdla model file (format version 2, tests/swdla/FORMAT.md)
for dlainfer on x86 with swdla (docs/swdla-onnx.md). TYPE:LAYOUT as trtexec's --inputIOFormats:
fp16:chw16 (the default), int8:chw32, fp16:dla_linear, int8:dla_linear, fp16:dla_hwc4, int8:dla_hwc4;
INT8 needs :scale=S (real value = q x S; S may be written 1/127). --outputs, when given, names the
outputs (graph outputs, or any tensor of the graph to cut it there). Every node the DLA cannot run
is listed with the rules it breaks; exit 1 then, and on a file that is not an ONNX model."""
import argparse
import os
import sys

# The importer's package is shared with dlainfer-prep: tools/onnx_import.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tools'))

try:
    from onnx_import import importer, io_formats  # noqa: E402
except ImportError as e:
    sys.exit(f'swdla-import: {e.name} is not installed for {sys.executable}: apt-get install python3-onnx '
             'python3-numpy (run it with /usr/bin/python3)')


def main(argv=None):
    ap = argparse.ArgumentParser(prog='swdla-import.py', description=__doc__.split('\n\n')[1])
    ap.add_argument('model')
    ap.add_argument('out')
    ap.add_argument('--inputs', default='', help='NAME:TYPE:LAYOUT[:scale=S],... (default fp16:chw16)')
    ap.add_argument('--outputs', default='', help='NAME:TYPE:LAYOUT[:scale=S],... (default: the graph '
                                                  'outputs, fp16:chw16)')
    ap.add_argument('--weights', default='fp32', choices=['fp32', 'fp16'],
                    help='weight type written (fp32: the ONNX weights as they are; fp16: half the size)')
    args = ap.parse_args(argv)
    prog = 'swdla-import'
    try:
        ins, outs = io_formats.parse_list(args.inputs), io_formats.parse_list(args.outputs)
        model = importer.load(args.model)
        data, s = importer.convert(model, ins, outs, args.weights)
    except (io_formats.FormatError, importer.BadModel) as e:
        print(f'{prog}: {e}', file=sys.stderr)
        return 1
    except importer.Refused as r:
        lines = r.lines()
        print(f'{prog}: {args.model}: {len(lines)} part(s) the DLA cannot run; cut the graph before them '
              '(onnx.utils.extract_model, or --outputs at tensors before them):', file=sys.stderr)
        for line in lines:
            print(f'  {line}', file=sys.stderr)
        return 1
    try:
        with open(args.out, 'wb') as f:
            f.write(data)
    except OSError as e:
        print(f'{prog}: cannot write {args.out}: {e.strerror}', file=sys.stderr)
        return 1
    done = ', '.join(f'{v} {k}' for k, v in sorted(s['folded'].items()))
    gone = ', '.join(f'{v} {k}' for k, v in sorted(s['removed'].items()))
    print(f'{prog}: wrote {args.out} ({len(data)} bytes, opset {s["opset"]}): {s["inputs"]} input(s), '
          f'{s["outputs"]} output(s), {s["layers"]} layers' + (f'; folded {done}' if done else '') +
          (f'; removed {gone}' if gone else '') +
          (f'; kept in FP32 (beyond FP16 range): {", ".join(s["fp32_layers"])}' if s['fp32_layers'] else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())

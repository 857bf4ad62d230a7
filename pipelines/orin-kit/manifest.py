#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""manifest.py KIT: the kit's twins as tab-separated lines for orin-acceptance.sh (no NumPy needed):
name onnx in_format out_format in_scale out_scale classifier dla_legal labels kit_input expected"""
import json
import os
import sys

m = json.load(open(os.path.join(sys.argv[1], 'manifest.json')))
for t in m['twins']:
    print('\t'.join(str(v) for v in (
        t['name'], t['onnx'], t['input']['format'], t['output']['format'], repr(t['input']['scale']),
        repr(t['output']['scale']), int(t['classifier']), int(t['dla_legal']), t.get('labels', '-'),
        t.get('kit_input', '-'), t.get('expected', '-'))))

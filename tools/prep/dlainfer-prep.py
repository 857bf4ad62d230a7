#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-prep MODEL.onnx [--cut] [--cut-at T,...] [--input-shape NAME:NxCxHxW] ...: which nodes
of a trained ONNX model the DLA runs and why not, the cut before the decode, the .modelinfo for
dlainfer/dladetect and the trtexec lines (docs/model-prep.md). Installed as dlainfer-prep; from
the source tree: /usr/bin/python3 tools/prep/dlainfer-prep.py."""
import os
import sys

# Installed: the packages' folder configured in; in the source tree: tools/prep and tools/.
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = '@PACKAGES@'
sys.path[:0] = [PACKAGES] if not PACKAGES.startswith('@') else [HERE, os.path.dirname(HERE)]

try:
    from dlaprep import cli  # noqa: E402
except ImportError as e:
    sys.exit(f'dlainfer-prep: {e.name} is not installed for {sys.executable}: apt-get install python3-onnx '
             'python3-numpy (run it with /usr/bin/python3)')

if __name__ == '__main__':
    sys.exit(cli.main())

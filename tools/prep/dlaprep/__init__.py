# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-prep (docs/model-prep.md): model (read, fix shapes, verdicts from onnx_import's DLA
rules), region (the DLA part and its frontier), heads (the detector families), cut (the cut graph
and its FP16 copy), modelinfo, trtexec (the build lines), cli."""

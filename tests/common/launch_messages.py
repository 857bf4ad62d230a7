# SPDX-License-Identifier: LGPL-2.1-or-later
"""dladetect-result messages as `gst-launch-1.0 -m` prints them, read back by the GPU tests (the
standard library only: the GPU host runs it). GStreamer 1.22 prints the nested detection
structures quoted and escaped, later versions may bracket them: the backslashes are dropped before
matching."""
import re

_DETECTION = re.compile(
    r'detection, label=\(string\)[^,]*, class-id=\(int\)(\d+), confidence=\(float\)([\d.e+-]+), '
    r'x=\(int\)(-?\d+), y=\(int\)(-?\d+), width=\(int\)(\d+), height=\(int\)(\d+)')


def detections(stdout):
    """[(class_id, score, x, y, width, height)] in frame pixels, in the order printed."""
    return [(int(c), float(s), float(x), float(y), float(w), float(h))
            for c, s, x, y, w, h in _DETECTION.findall(stdout.replace('\\', ''))]

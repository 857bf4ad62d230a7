#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/models/face_api_prepare.py without Node: a missing face-api cache is one line; the scene's
frames come from the photographs (moving, each a new picture); the clip encoded and decoded again
(x264enc, then openh264dec or avdec_h264) gives back those frames, up to H.264's loss. Exit 77 (skip)
without the face-api cache or the encoder/decoder (CI: fail)."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'models'))
import face_api_prepare as prep  # noqa: E402
from face_api_gpu import skip  # noqa: E402  (a skip, or a failure under CI)

failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def main():
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'models', 'face_api_prepare.py'),
                            os.path.join(d, 'out'), '--cache', os.path.join(d, 'nothing')],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and r.stderr.count('\n') == 1 and 'no face-api in' in r.stderr
              and 'fetch-face-api.sh' in r.stderr, f'no cache: one line, exit 1 ({r.returncode}: {r.stderr!r})')
        check(not os.path.exists(os.path.join(d, 'out')), 'no cache: nothing made')

    photos = os.path.join(prep.DEFAULT_CACHE, 'node_modules', '@vladmandic', 'face-api', 'demo')
    if not os.path.isdir(photos):
        return skip(f'no face-api photographs in {photos} (tests/models/fetch-face-api.sh)')
    frames = prep.window_frames(photos)
    n = sum(s[1] for s in prep.SHOTS)
    check(len(frames) == n and all(len(f) == prep.SIZE * prep.SIZE * 3 for f in frames),
          f'{len(frames)} frames of {prep.SIZE}x{prep.SIZE} RGB (want {n})')
    pics = [np.frombuffer(f, np.uint8).astype(np.float32) for f in frames]
    moving = sum(np.abs(a - b).mean() > 0.5 for a, b in zip(pics, pics[1:]))
    check(moving >= n - len(prep.SHOTS), f'the camera moves on every frame of a shot ({moving} of {n - 1})')
    check(all(p.std() > 20 for p in pics), 'every frame is a picture, not a flat colour')

    if not (prep.have_element('x264enc') and (prep.have_element('openh264dec') or prep.have_element('avdec_h264'))):
        return skip('x264enc, or an H.264 decoder (openh264dec, avdec_h264), is missing')
    with tempfile.TemporaryDirectory() as d:
        decoded = prep.make_clip(frames, d, os.path.join(d, 'clip.mp4'))
        back = np.fromfile(decoded, np.uint8).reshape(n, -1).astype(np.float32)
        err = [np.abs(back[i] - pics[i]).mean() for i in range(n)]
        check(max(err) < 6, f'the decoded clip is the frames made (mean |difference| at most {max(err):.2f} of 255)')
        shifted = np.abs(back[1:] - np.stack(pics[:-1])).mean(axis=1)
        check(np.mean(err[1:]) < shifted.mean(), 'and in their order (each closer to its own frame than to the one before)')
    print(f'{len(failures)} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

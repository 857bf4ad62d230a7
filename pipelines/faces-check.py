#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""faces-check.py RESULTS ORACLE: the faces demo's tracks against face-api's own answers.

RESULTS is what dlainfer-faces-demo --results wrote: `obj FRAME ID X Y W H LABEL CONFIDENCE AGE`
per object (ID -1: not yet a confirmed track; LABEL -: no result). ORACLE is face-api's on the same
decoded frames (tests/models/face_api_clip_oracle.js): `face FRAME X Y W H SCORE EXPRESSION P`.

For every confirmed track (an id): the demo's expression is the label it showed on most of its
frames; face-api's is the majority over the same frames of the expression of the face face-api
found there (the one whose box overlaps the track's box most, IoU >= MIN_IOU). They must be equal
(a tie counts as equal when the demo's label is one of the tied). A track no face-api face matches
on any frame is a failure too. One line per track and a summary line; exit 0 all agree, 1 not,
2 unreadable input. Python's standard library only (the GPU host has no numpy)."""
import sys
from collections import Counter, defaultdict

MIN_IOU = 0.5


class InputError(Exception):
    pass


def iou(a, b):
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    union = a[2] * a[3] + b[2] * b[3] - w * h
    return w * h / union if union > 0 else 0.0


def read_lines(path, tag, fields):
    """[(line number, fields...)] of the lines starting with `tag`, each with `fields` values."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f'{path}: {e.strerror}') from e
    out = []
    for n, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or parts[0] != tag:
            continue
        if len(parts) != fields + 1:
            raise InputError(f'{path}:{n}: "{line}" has {len(parts) - 1} fields after "{tag}", not {fields}')
        out.append(parts[1:])
    return out


def read_oracle(path):
    faces = defaultdict(list)
    try:
        for p in read_lines(path, 'face', 8):
            float(p[5]), float(p[7])  # (score, probability: checked, not used)
            faces[int(p[0])].append(([float(v) for v in p[1:5]], p[6]))
    except ValueError as e:
        raise InputError(f'{path}: {e}') from e
    return faces


def read_tracks(path):
    tracks = defaultdict(list)
    frames = set()
    try:
        for p in read_lines(path, 'obj', 9):
            frame, tid = int(p[0]), int(p[1])
            frames.add(frame)
            if tid >= 0:
                tracks[tid].append((frame, [float(v) for v in p[2:6]], p[6]))
    except ValueError as e:
        raise InputError(f'{path}: {e}') from e
    return tracks, frames


def majority(labels):
    """The most frequent labels (all of them on a tie), and the count."""
    counts = Counter(labels).most_common()
    if not counts:
        return [], 0
    return [label for label, c in counts if c == counts[0][1]], counts[0][1]


def check_track(tid, seen, oracle):
    """(agrees, line) for one track."""
    shown, _ = majority([label for _, _, label in seen if label != '-'])
    truth = []
    for frame, box, _ in seen:
        best = max(oracle.get(frame, []), key=lambda f: iou(f[0], box), default=None)
        if best is not None and iou(best[0], box) >= MIN_IOU:
            truth.append(best[1])
    want, votes = majority(truth)
    first, last = seen[0][0], seen[-1][0]
    head = f'track #{tid}: frames {first}-{last} ({len(seen)})'
    if not shown:
        return False, f'{head}: no expression shown: MISMATCH'
    if not want:
        return False, f'{head}: {shown[0]}, but face-api found no face there on any of its frames: MISMATCH'
    ok = shown[0] in want if len(shown) == 1 else bool(set(shown) & set(want))
    return ok, (f'{head}: {"/".join(shown)}, face-api {"/".join(want)} ({votes} of {len(truth)} matched frames)'
                f': {"ok" if ok else "MISMATCH"}')


def main(argv):
    if len(argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    try:
        oracle = read_oracle(argv[2])
        tracks, frames = read_tracks(argv[1])
    except InputError as e:
        print(f'faces-check: {e}', file=sys.stderr)
        return 2
    agree = 0
    for tid in sorted(tracks):
        ok, line = check_track(tid, sorted(tracks[tid]), oracle)
        agree += ok
        print(line)
    oracle_faces = sum(len(v) for v in oracle.values())
    print(f'summary: {len(tracks)} confirmed tracks, {agree} with face-api\'s majority expression; faces on '
          f'{len(frames)} frames here, face-api\'s {oracle_faces} faces on {len(oracle)} frames')
    if not tracks:
        print('faces-check: no confirmed track: nothing was tracked (see the frame lines above)')
        return 1
    return 0 if agree == len(tracks) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))

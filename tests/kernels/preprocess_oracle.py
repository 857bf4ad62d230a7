#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Independent oracle for the preprocessing: Pillow and NumPy (Debian's packages) build the
expected tensor for real photographs (astronaut, chelsea, coffee from Debian's python3-skimage) and
a driver program (--cli) must match it. The driver runs the CPU reference (preprocess-ref-cli),
the CUDA kernel (preprocess-kernel-cli) or the kernel's source on the CPU (preprocess-emulated-cli).

Nothing here uses the project's code: geometry (oracle_geometry.py), pictures (oracle_image.py),
tensor layouts (oracle_layout.py) and FP16 rounding (NumPy's float16) are written from the
conventions in preprocess.h and the libraries and formats they follow. Cases: oracle_cases.py.

Tolerances (why each is what it is):
  FP16  exact (NumPy's float16 of the oracle's float64 value), except where that value lies within
        DELTA of the midpoint between two halves: there either neighbour is right (half an ulp
        plus DELTA).
  INT8  exact round-half-even(value / scale) saturated to [-128, 127], except within DELTA / scale
        of a .5 boundary: either neighbour.
  DELTA = 4e-6 / min(std), in units of the tensor value: the oracle's own error (6-digit inverse
        YUV coefficients: <= 5e-7 x |chroma| <= 2.5e-7; Pillow's float32 intermediates: 2 roundings of
        values <= 255, 1.2e-7 after /255) plus the float32 arithmetic of the program under test
        (the normalisation's few float ulps, <= 5e-7 for |values| < 3; the kernel's float
        resampling sums, < 1e-6), with margin. The original oracle allowed 3e-4 everywhere.
  Letterbox padding (exact_pad cases): bit-exact, computed in float32 as the convention says
        ((pad / 255 - mean) / std), no resampling involved.
  Every byte that is not a value (pad lanes, the 4th hwc4 channel, row tails) must be zero, and
  batch slots no ROI names keep the driver's 0xab fill.

Exit 0 = pass, 1 = mismatch or missing dependency, 77 = skipped (photographs unavailable outside
CI, or the driver reports no CUDA device), with the reason.
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from PIL import Image
except ImportError as e:  # configure defines the test without them: fail loudly, never vanish
    print(f'FAIL: the oracle needs NumPy and Pillow ({e}); apt install python3-numpy python3-pil')
    sys.exit(1)

import oracle_cases
import oracle_geometry as geo
import oracle_image as img
import oracle_layout as lay

PHOTOS = ('astronaut', 'chelsea', 'coffee')
DELTA = 4e-6


def find_photos(dirs, fetch):
    have = lambda d: all(os.path.exists(os.path.join(d, n + '.png')) for n in PHOTOS)
    found = next((d for d in dirs if have(d)), None)
    if found is None and fetch:
        subprocess.run([fetch, dirs[0]], check=False)
        found = dirs[0] if have(dirs[0]) else None
    if found is None:
        return None
    return {n: np.asarray(Image.open(os.path.join(found, n + '.png')).convert('RGB')) for n in PHOTOS}


def make_source(c, rgb):
    """The frame the case feeds the driver, and its description for oracle_image."""
    if c['fmt'] in img.PACKED:
        filler = np.random.default_rng(7).integers(0, 256, rgb.shape[:2], dtype=np.uint8)
        return img.frame_bytes(c['fmt'], (rgb, filler)), {'fmt': c['fmt'], 'rgb': rgb}
    Y, U, V = img.encode_yuv(rgb, c['matrix'], c['full'])
    src = {'fmt': c['fmt'], 'Y': Y, 'U': U, 'V': V, 'matrix': c['matrix'], 'full': c['full'],
           'cosited': tuple(bool(x) for x in c['cosited'])}
    return img.frame_bytes(c['fmt'], (Y, U, V)), src


def driver_args(c, w, h, src_path, out_path):
    j = lambda v, s=',': s.join(str(x) for x in v)
    args = [f'format={c["fmt"]}', f'size={w}x{h}', f'matrix={c["matrix"]}',
            f'range={"full" if c["full"] else "limited"}', f'cosited={j(c["cosited"])}', f'mode={c["mode"]}',
            f'antialias={int(c["antialias"])}', f'fraction={c["fraction"]}', f'par={j(c["par"], "/")}',
            f'pad={j(c["pad"])}', f'crop={j(c["crop"])}', f'order={c["order"]}', f'mean={j(c["mean"])}',
            f'std={j(c["std"])}', f'scale={c["scale"]}', f'layout={c["layout"]}', f'type={c["type"]}',
            f'tensor={j(c["tensor"], "x")}', f'in={src_path}', f'out={out_path}']
    return args + [f'roi={j(r + (b,))}' for r, b in c['rois']]


def expected_slot(c, src, rect, w, h):
    """(values (3, th, tw) before encoding, padding mask) of one batch slot, or None if refused."""
    crop = geo.resolve_crop(rect, w, h)
    if crop is None:
        return None
    _, tw, th = c['tensor']
    if c['mode'] == 'stretch':
        axes = geo.stretch(tw, th)
    elif c['mode'] == 'letterbox':
        axes = geo.letterbox(crop[2], crop[3], c['par'], tw, th)
    else:
        axes = geo.center_crop(crop[2], crop[3], c['par'], c['fraction'], tw, th)
    rgb, padding = img.expected_rgb(src, crop, axes, tw, th, c['pad'], c['antialias'])
    if c['order'] == 'bgr':
        rgb = rgb[::-1]
    mean, std = (np.asarray(c[k], np.float64)[:, None, None] for k in ('mean', 'std'))
    return (rgb - mean) / std, padding


def exact_pad_value(c):
    """Letterbox padding per tensor channel, in float32 as the convention computes it."""
    pad = np.asarray(c['pad'][::-1] if c['order'] == 'bgr' else c['pad'], np.float32)
    mean, std = np.asarray(c['mean'], np.float32), np.asarray(c['std'], np.float32)
    v = (pad / np.float32(255) - mean) / std
    if c['type'] == 'fp16':
        return v.astype(np.float16)
    return np.clip(np.rint(v / np.float32(float(c['scale']))), -128, 127)


def compare(c, got, want, delta):
    """Counts (bad, boundary) values of one slot: exact, or either neighbour near a rounding point."""
    if c['type'] == 'fp16':
        want16 = want.astype(np.float16)
        g = got.astype(np.float64)
        half_ulp = 0.5 * np.spacing(np.minimum(np.abs(got), np.abs(want16))).astype(np.float64)
        near = np.abs(g - want) <= half_ulp + delta
        exact = got == want16
    else:
        q = want / float(c['scale'])
        target = np.clip(np.rint(q), -128, 127)
        exact = got == target
        near = (np.abs(got - target) <= 1) & (np.abs(got - np.clip(q, -128, 127)) <= 0.5 + delta / float(c['scale']))
    bad = ~(exact | near)
    return bad, ~exact & near


def check_case(cli, tmp, c, rgb):
    """Runs one case; returns (ok, message) or None when the driver reports no CUDA device."""
    h, w = rgb.shape[:2]
    frame, src = make_source(c, rgb)
    src_path, out_path = os.path.join(tmp, 'frame.raw'), os.path.join(tmp, 'tensor.raw')
    with open(src_path, 'wb') as f:
        f.write(frame)
    if os.path.exists(out_path):
        os.remove(out_path)
    run = subprocess.run([cli] + driver_args(c, w, h, src_path, out_path), capture_output=True, text=True)
    if run.returncode == 77:
        return None
    n, tw, th = c['tensor']
    rois = c['rois'] or [(c['crop'], 0)]
    slots = {b: expected_slot(c, src, r, w, h) for r, b in rois}
    if any(s is None for s in slots.values()) != c['refused']:  # a case that tests less than it says
        return False, 'the oracle and the case disagree on whether this job is refused (fix the case)'
    if c['refused']:
        ok = run.returncode == 1
        return ok, f'refused (exit 1) as expected' if ok else f'expected a refusal (exit 1), got exit {run.returncode}'
    if run.returncode != 0:
        return False, f'driver exit {run.returncode}: {run.stderr.strip()}'
    with open(out_path, 'rb') as f:
        raw = f.read()
    try:
        values, pad_elems, all_elems = lay.split(raw, c['layout'], c['type'], n, th, tw)
    except ValueError as e:
        return False, str(e)
    delta = DELTA / min(c['std'])
    notes, problems = [], []
    n_bad = n_boundary = 0
    for b in range(n):
        if b not in slots:  # never written: every byte still the fill
            fill = 0xabab if c['type'] == 'fp16' else 0xab
            if not np.all(all_elems[b] == fill):
                problems.append(f'slot {b} (no ROI) was written')
            continue
        if np.any(pad_elems[b] != 0):
            k = int(np.argmax(pad_elems[b] != 0))
            problems.append(f'slot {b}: padding element {k} of {pad_elems[b].size} is {pad_elems[b][k]:#x}, not 0')
        want, padding = slots[b]
        got = values[b]
        bad, boundary = compare(c, got, want, delta)
        n_bad += int(bad.sum())
        n_boundary += int(boundary.sum())
        if bad.any():
            i = tuple(int(x) for x in np.argwhere(bad)[0])
            diff = np.abs(got.astype(np.float64) - (want if c['type'] == 'fp16' else want / float(c['scale'])))
            problems.append(f'slot {b}: {int(bad.sum())} values wrong, first at c,y,x={i}: expected '
                            f'{want[i] if c["type"] == "fp16" else want[i] / float(c["scale"]):.6f}, got {float(got[i]):.6f}'
                            f' (max |diff| {diff.max():.2e})')
        if c['exact_pad'] and padding.any():
            pv = exact_pad_value(c)
            wrong = [(ch, got[ch][padding]) for ch in range(3) if np.any(got[ch][padding] != pv[ch])]
            for ch, g in wrong:
                problems.append(f'slot {b}: letterbox padding channel {ch} is {float(g[g != pv[ch]][0])}, '
                                f'expected exactly {float(pv[ch])}')
            notes.append(f'{int(padding.sum())} pad pixels exact')
    if problems:
        return False, '; '.join(problems)
    total = sum(int(np.prod(s[0].shape)) for s in slots.values())
    return True, f'{total} values, {total - n_boundary} exact, {n_boundary} at a rounding point' + \
        ''.join(', ' + x for x in notes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cli', required=True, help='driver program: preprocess-ref-cli, -kernel-cli, -emulated-cli')
    ap.add_argument('--images', required=True, action='append',
                    help='directory with the skimage photographs (repeatable: the first that has them)')
    ap.add_argument('--fetch', help='script that fetches them into the first --images when missing')
    ap.add_argument('--only', help='run only cases whose name contains this')
    args = ap.parse_args()

    photos = find_photos(args.images, args.fetch)
    if photos is None:
        why = f'photographs not found in {args.images} and could not be fetched (apt-get download python3-skimage)'
        if os.environ.get('CI'):
            print('FAIL: ' + why + ' (CI must fetch them in its install step: .ci/install-deps.sh)')
            return 1
        print('SKIP: ' + why)
        return 77

    failures = 0
    cases = [c for c in oracle_cases.all_cases() if not args.only or args.only in c['name']]
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            rgb = photos[c['photo']]
            result = check_case(args.cli, tmp, c, rgb)
            if result is None and c is cases[0]:
                print(f'SKIP: {os.path.basename(args.cli)} reports no CUDA device')
                return 77
            if result is None:  # the device vanished mid-run: not a skip
                result = (False, 'driver exit 77 (no CUDA device) after earlier cases ran')
            ok, msg = result
            failures += not ok
            print(f'{"ok  " if ok else "FAIL"} {c["photo"]} {rgb.shape[1]}x{rgb.shape[0]} {c["name"]} '
                  f'[{c["layout"]} {c["type"]} {c["tensor"][1]}x{c["tensor"][2]}]: {msg}')
    print(f'{failures} of {len(cases)} case(s) failed' if failures else f'all {len(cases)} cases pass')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

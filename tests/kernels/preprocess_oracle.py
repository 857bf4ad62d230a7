#!/usr/bin/env python3
"""Independent oracle for the preprocessing reference: Pillow and NumPy (Debian's packages) build
the expected tensor for real photographs (astronaut, chelsea, coffee from Debian's python3-skimage)
and the CPU reference (through preprocess-ref-cli) must match it.

Judges, none of them our code:
  - antialias on: Pillow's own resampler on 32-bit float images (mode 'F', BILINEAR = triangle
    filter whose support widens with the downscale, the algorithm torchvision's antialias=True
    ports), with `box` giving the chroma plane's sub-pixel position for each siting;
  - antialias off: a NumPy transcription of torch.nn.functional.interpolate(mode='bilinear',
    align_corners=False): half-pixel centres, source index clamped at 0, last pixel repeated;
  - centre crop: torchvision's Resize(256) (short side 256, long side int(256 * long / short)) then
    CenterCrop(224) (offset int(round((R - 224) / 2)), Python's half-to-even round);
  - YUV -> RGB: the published inverse coefficients of BT.601 and BT.709 (not Kr/Kb), clamped.
Planes are resampled first, then converted (the convention in preprocess.h); differences are
bounded by FP16 rounding (half an ulp of values < 1: 2.44e-4) plus the 6-digit coefficients.

Exit 0 = pass, 1 = mismatch, 77 = skipped (photographs unavailable outside CI), with the reason.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

TOL = 3e-4  # max |expected - reference|: half an FP16 ulp of values in [0.5, 1) is 2.44e-4
INVERSE = {  # R = Y + rv Cr; G = Y - gu Cb - gv Cr; B = Y + bu Cb (normalised Y, Cb, Cr)
    '601': (1.402, 0.344136, 0.714136, 1.772),
    '709': (1.5748, 0.187324, 0.468124, 1.8556),
}
FORWARD = {'601': (0.299, 0.114), '709': (0.2126, 0.0722)}  # only to make test frames


def encode_nv12(rgb, matrix, full):
    """RGB uint8 (h, w, 3) -> Y plane (h, w) and Cb, Cr planes (ceil(h/2), ceil(w/2)), uint8."""
    kr, kb = FORWARD[matrix]
    f = rgb.astype(np.float64) / 255.0
    y = kr * f[..., 0] + (1 - kr - kb) * f[..., 1] + kb * f[..., 2]
    cb = (f[..., 2] - y) / (2 * (1 - kb))
    cr = (f[..., 0] - y) / (2 * (1 - kr))
    if full:
        Y, U, V = 255 * y, 128 + 255 * cb, 128 + 255 * cr
    else:
        Y, U, V = 16 + 219 * y, 128 + 224 * cb, 128 + 224 * cr
    h, w = y.shape
    ph, pw = h + h % 2, w + w % 2

    def sub(c):  # 2x2 average, the odd edge replicated
        c = np.pad(c, ((0, ph - h), (0, pw - w)), mode='edge')
        return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2]) / 4

    q = lambda a: np.clip(np.rint(a), 0, 255).astype(np.uint8)
    return q(Y), q(sub(U)), q(sub(V))


def pil_resize(plane, size, box):
    """Pillow's antialiased triangle filter on a float image."""
    img = Image.fromarray(plane.astype(np.float32), mode='F')
    return np.asarray(img.resize(size, Image.BILINEAR, box=box), dtype=np.float64)


def torch_bilinear_axis(n_in, n_out, scale, shift):
    """Source taps and weights of interpolate(bilinear, align_corners=False) along one axis."""
    src = (np.arange(n_out) + 0.5) * scale + shift - 0.5
    src = np.maximum(src, 0.0)
    x0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    x1 = np.minimum(x0 + 1, n_in - 1)
    lam = src - x0
    return x0, x1, lam


def numpy_bilinear(plane, size, box):
    (tw, th), (bx0, by0, bx1, by1) = size, box
    p = plane.astype(np.float64)
    y0, y1, ly = torch_bilinear_axis(p.shape[0], th, (by1 - by0) / th, by0)
    x0, x1, lx = torch_bilinear_axis(p.shape[1], tw, (bx1 - bx0) / tw, bx0)
    rows = p[y0] * (1 - ly)[:, None] + p[y1] * ly[:, None]
    return rows[:, x0] * (1 - lx)[None, :] + rows[:, x1] * lx[None, :]


def expected_rgb(rgb, size, antialias):
    resize = pil_resize if antialias else numpy_bilinear
    h, w = rgb.shape[:2]
    return np.stack([resize(rgb[..., c], size, (0, 0, w, h)) for c in range(3)]) / 255.0


def expected_center_crop(rgb, crop=224, resize_to=256):
    h, w = rgb.shape[:2]
    if w >= h:
        rh, rw = resize_to, int(resize_to * w / h)
    else:
        rw, rh = resize_to, int(resize_to * h / w)
    full = np.stack([pil_resize(rgb[..., c], (rw, rh), (0, 0, w, h)) for c in range(3)]) / 255.0
    top, left = int(round((rh - crop) / 2.0)), int(round((rw - crop) / 2.0))
    return full[:, top:top + crop, left:left + crop]


def expected_nv12(Y, U, V, size, matrix, full, cosited_h, cosited_v, antialias):
    resize = pil_resize if antialias else numpy_bilinear
    h, w = Y.shape
    y = resize(Y, size, (0, 0, w, h))
    sx, sy = (0.25 if cosited_h else 0.0), (0.25 if cosited_v else 0.0)
    cbox = (sx, sy, w / 2 + sx, h / 2 + sy)  # luma coordinate u lands on chroma u / 2 + shift
    if antialias:
        # A co-sited box ends up to 1/4 chroma pixel past the plane, which Pillow refuses: pad one
        # zero row and column and divide by the resampled coverage of the real samples, which
        # is exactly Pillow's renormalisation over the taps inside the plane.
        pad = lambda c: np.pad(c.astype(np.float64), ((0, 1), (0, 1)))
        cover = pil_resize(pad(np.ones_like(U)), size, cbox)
        u, v = pil_resize(pad(U), size, cbox) / cover, pil_resize(pad(V), size, cbox) / cover
    else:
        u, v = resize(U, size, cbox), resize(V, size, cbox)
    if full:
        yn, un, vn = y / 255, (u - 128) / 255, (v - 128) / 255
    else:
        yn, un, vn = (y - 16) / 219, (u - 128) / 224, (v - 128) / 224
    rv, gu, gv, bu = INVERSE[matrix]
    rgb = np.stack([yn + rv * vn, yn - gu * un - gv * vn, yn + bu * un])
    return np.clip(rgb, 0.0, 1.0)


def run_reference(cli, tmp, fmt, frame_bytes, w, h, matrix, rng, ch, cv, mode, aa, tw, th):
    src, out = os.path.join(tmp, 'frame.raw'), os.path.join(tmp, 'tensor.raw')
    with open(src, 'wb') as f:
        f.write(frame_bytes)
    subprocess.run([cli, fmt, str(w), str(h), matrix, rng, str(int(ch)), str(int(cv)), mode, str(int(aa)), '0.875',
                    str(tw), str(th), src, out], check=True)
    row = ((tw * 2 + 63) // 64) * 64 // 2  # dla_linear FP16 rows padded to 64 bytes
    t = np.fromfile(out, dtype=np.float16).reshape(3, th, row)
    return t[:, :, :tw].astype(np.float64)


def find_images(args):
    names = ['astronaut.png', 'chelsea.png', 'coffee.png']
    have = lambda: all(os.path.exists(os.path.join(args.images, n)) for n in names)
    if not have() and args.fetch:
        subprocess.run([args.fetch, args.images], check=False)
    if not have():
        return None
    return [(n, np.asarray(Image.open(os.path.join(args.images, n)).convert('RGB'))) for n in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cli', required=True, help='the preprocess-ref-cli program')
    ap.add_argument('--images', required=True, help='directory with the skimage photographs')
    ap.add_argument('--fetch', help='script that fetches them when missing (fetch_skimage_images.sh)')
    args = ap.parse_args()

    photos = find_images(args)
    if photos is None:
        why = f'photographs not found in {args.images} and could not be fetched (apt-get download python3-skimage)'
        if os.environ.get('CI'):
            print('FAIL: ' + why)
            return 1
        print('SKIP: ' + why)
        return 77

    size = (224, 224)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, rgb in photos:
            h, w = rgb.shape[:2]
            rgbx = np.concatenate([rgb, np.full((h, w, 1), 255, np.uint8)], axis=2).tobytes()
            cases = []
            for aa in (True, False):
                cases.append((f'rgb stretch antialias={aa}', 'rgbx', rgbx, '601', 'limited', False, False, 'stretch', aa,
                              lambda aa=aa: expected_rgb(rgb, size, aa)))
            cases.append(('rgb Resize(256)+CenterCrop(224)', 'rgbx', rgbx, '601', 'limited', False, False, 'center', True,
                          lambda: expected_center_crop(rgb)))
            for matrix, full, ch, cv, aa in (('601', False, False, False, True), ('709', True, True, False, True),
                                             ('601', True, False, False, False), ('709', False, True, True, False)):
                Y, U, V = encode_nv12(rgb, matrix, full)
                nv12 = Y.tobytes() + np.stack([U, V], axis=2).tobytes()
                label = (f'nv12 BT.{matrix} {"full" if full else "limited"} siting h={"co" if ch else "centre"} '
                         f'v={"co" if cv else "centre"} antialias={aa}')
                cases.append((label, 'nv12', nv12, matrix, 'full' if full else 'limited', ch, cv, 'stretch', aa,
                              lambda Y=Y, U=U, V=V, m=matrix, f=full, ch=ch, cv=cv, aa=aa:
                              expected_nv12(Y, U, V, size, m, f, ch, cv, aa)))
            for label, fmt, data, matrix, rng, ch, cv, mode, aa, expect in cases:
                got = run_reference(args.cli, tmp, fmt, data, w, h, matrix, rng, ch, cv, mode, aa, *size)
                want = expect()
                diff = np.abs(got - want)
                worst = np.unravel_index(np.argmax(diff), diff.shape)
                ok = diff.max() <= TOL
                failures += not ok
                print(f'{"ok  " if ok else "FAIL"} {name} {w}x{h} {label}: max |diff| {diff.max():.2e} '
                      f'(mean {diff.mean():.1e}) at c,y,x={tuple(int(i) for i in worst)}: '
                      f'expected {want[worst]:.5f}, reference {got[worst]:.5f}')
    print(f'{failures} case(s) beyond {TOL}' if failures else 'all cases within tolerance')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

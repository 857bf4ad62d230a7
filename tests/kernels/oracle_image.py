# SPDX-License-Identifier: LGPL-2.1-or-later
"""The oracle's expected RGB image (floats in [0, 1], before mean/std), from Pillow and NumPy only.

Judges, none of them our code:
  - antialias on: Pillow's own resampler on 32-bit float images (mode 'F', BILINEAR = triangle
    filter whose support widens with the downscale, the algorithm torchvision's antialias=True
    ports) on the cropped plane (Pillow's crop().resize(), torchvision's resized_crop), with `box`
    giving the chroma plane's sub-pixel position for each siting;
  - antialias off: a NumPy transcription of torch.nn.functional.interpolate(mode='bilinear',
    align_corners=False): half-pixel centres, source index clamped at 0, last pixel repeated;
  - YUV -> RGB: the published inverse coefficients of BT.601, BT.709 and BT.2020 (not Kr/Kb),
    clamped. Planes are resampled first, then converted (the convention in preprocess.h).
Also makes the test frames (NV12, I420, packed RGB in any byte order) from photographs."""
import numpy as np
from PIL import Image

import oracle_geometry as geo

INVERSE = {  # R = Y + rv Cr; G = Y - gu Cb - gv Cr; B = Y + bu Cb (normalised Y, Cb, Cr)
    '601': (1.402, 0.344136, 0.714136, 1.772),       # ITU-R BT.601 / JFIF, 6 digits
    '709': (1.5748, 0.187324, 0.468124, 1.8556),     # ITU-R BT.709, 6 digits
    '2020': (1.4746, 0.164553, 0.571353, 1.8814),    # ITU-R BT.2020 non-constant luminance, 6 digits
}
FORWARD = {'601': (0.299, 0.114), '709': (0.2126, 0.0722), '2020': (0.2627, 0.0593)}  # to make frames
PACKED = {'rgba': (0, 1, 2), 'rgbx': (0, 1, 2), 'bgra': (2, 1, 0), 'bgrx': (2, 1, 0)}  # byte of R, G, B


def encode_yuv(rgb, matrix, full):
    """RGB uint8 (h, w, 3) -> Y (h, w), Cb, Cr (ceil(h/2), ceil(w/2)) uint8 planes."""
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

    def sub(c):  # 2x2 average, the odd edge replicated
        c = np.pad(c, ((0, h % 2), (0, w % 2)), mode='edge')
        return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2]) / 4

    q = lambda a: np.clip(np.rint(a), 0, 255).astype(np.uint8)
    return q(Y), q(sub(U)), q(sub(V))


def frame_bytes(fmt, planes):
    """The raw frame the driver programs read: planes packed without padding."""
    if fmt == 'nv12':
        Y, U, V = planes
        return Y.tobytes() + np.stack([U, V], axis=2).tobytes()
    if fmt == 'i420':
        return b''.join(p.tobytes() for p in planes)
    rgb, filler = planes  # packed: the 4th byte is noise the conversion must ignore
    px = np.empty(rgb.shape[:2] + (4,), np.uint8)
    for c, byte in enumerate(PACKED[fmt]):
        px[..., byte] = rgb[..., c]
    px[..., 3] = filler
    return px.tobytes()


def pil_resize(plane, size, box):
    """Pillow's antialiased triangle filter on a float image."""
    img = Image.fromarray(np.ascontiguousarray(plane, dtype=np.float32), mode='F')
    return np.asarray(img.resize(size, Image.BILINEAR, box=box), dtype=np.float64)


def torch_bilinear_axis(n_in, n_out, scale, shift):
    """Source taps and weights of interpolate(bilinear, align_corners=False) along one axis."""
    src = np.maximum((np.arange(n_out) + 0.5) * scale + shift - 0.5, 0.0)
    x0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    return x0, np.minimum(x0 + 1, n_in - 1), src - x0


def numpy_bilinear(plane, size, box):
    (tw, th), (bx0, by0, bx1, by1) = size, box
    p = plane.astype(np.float64)
    y0, y1, ly = torch_bilinear_axis(p.shape[0], th, (by1 - by0) / th, by0)
    x0, x1, lx = torch_bilinear_axis(p.shape[1], tw, (bx1 - bx0) / tw, bx0)
    rows = p[y0] * (1 - ly)[:, None] + p[y1] * ly[:, None]
    return rows[:, x0] * (1 - lx)[None, :] + rows[:, x1] * lx[None, :]


def resize_luma(plane, crop, size, antialias):
    """A full-resolution plane's crop (x, y, w, h) resized to size = (R_x, R_y)."""
    x, y, w, h = crop
    sub = plane[y:y + h, x:x + w]
    return (pil_resize if antialias else numpy_bilinear)(sub, size, (0, 0, w, h))


def resize_chroma(plane, crop, size, antialias, cosited_h, cosited_v):
    """A 4:2:0 chroma plane for the luma crop: luma coordinate u lands on chroma u / 2 (+ 1/4 when
    co-sited); only the chroma samples owning a luma pixel of the crop may contribute."""
    x, y, w, h = crop
    (kx0, kx1), (ky0, ky1) = geo.chroma_span(x, w), geo.chroma_span(y, h)
    sub = plane[ky0:ky1, kx0:kx1].astype(np.float64)
    sx, sy = (0.25 if cosited_h else 0.0), (0.25 if cosited_v else 0.0)
    box = (x / 2 + sx - kx0, y / 2 + sy - ky0, (x + w) / 2 + sx - kx0, (y + h) / 2 + sy - ky0)
    if not antialias:
        return numpy_bilinear(sub, size, box)
    # A co-sited box ends up to 1/4 chroma pixel past the samples, which Pillow refuses: pad one
    # zero row and column and divide by the resampled coverage of the real samples, which is
    # exactly Pillow's renormalisation over the taps inside the plane.
    pad = lambda c: np.pad(c, ((0, 1), (0, 1)))
    cover = pil_resize(pad(np.ones_like(sub)), size, box)
    return pil_resize(pad(sub), size, box) / cover


def to_rgb(y, u, v, matrix, full):
    if full:
        yn, un, vn = y / 255, (u - 128) / 255, (v - 128) / 255
    else:
        yn, un, vn = (y - 16) / 219, (u - 128) / 224, (v - 128) / 224
    rv, gu, gv, bu = INVERSE[matrix]
    return np.clip(np.stack([yn + rv * vn, yn - gu * un - gv * vn, yn + bu * un]), 0.0, 1.0)


def resized_rgb(src, crop, size, antialias):
    """The crop resized to `size`, as (3, R_y, R_x) RGB in [0, 1]. `src` describes the frame:
    {'fmt', 'rgb'} for packed formats, {'fmt', 'Y', 'U', 'V', 'matrix', 'full', 'cosited'} for YUV."""
    if src['fmt'] in PACKED:
        return np.stack([resize_luma(src['rgb'][..., c], crop, size, antialias) for c in range(3)]) / 255.0
    y = resize_luma(src['Y'], crop, size, antialias)
    u, v = (resize_chroma(src[p], crop, size, antialias, *src['cosited']) for p in 'UV')
    return to_rgb(y, u, v, src['matrix'], src['full'])


def expected_rgb(src, crop, axes, tw, th, pad_rgb, antialias):
    """The (3, th, tw) RGB picture of one crop: the resized crop seen through the axes' (R, off)
    windows, letterbox padding (pad_rgb / 255) elsewhere, plus the mask of padding pixels."""
    (rx, offx), (ry, offy) = axes
    out = np.empty((3, th, tw))
    out[:] = (np.asarray(pad_rgb, np.float64) / 255.0)[:, None, None]
    content = resized_rgb(src, crop, (rx, ry), antialias)
    ox0, ox1 = max(0, -offx), min(tw, rx - offx)  # output columns that show content
    oy0, oy1 = max(0, -offy), min(th, ry - offy)
    out[:, oy0:oy1, ox0:ox1] = content[:, oy0 + offy:oy1 + offy, ox0 + offx:ox1 + offx]
    padding = np.ones((th, tw), bool)
    padding[oy0:oy1, ox0:ox1] = False
    return out, padding

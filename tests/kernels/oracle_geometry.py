# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where the oracle's output pixels come from, written from the conventions (preprocess.h) and the
libraries they follow, with exact rational arithmetic and none of preprocess_plan.cpp's code:
crop rectangles, letterbox placement, torchvision-style centre crop, and the chroma samples a crop
may read. Each axis is described by (R, off): output pixel o shows pixel o + off of the crop
resized to R pixels; outside [0, R) it is letterbox padding."""
import math
from fractions import Fraction


def resolve_crop(rect, frame_w, frame_h):
    """A crop (x, y, w, h) in the frame, 0 width/height = to the right/bottom edge. Rectangles that
    leave the frame are refused by the API (no clamping): returns None for them."""
    x, y, w, h = rect
    w = w or frame_w - x
    h = h or frame_h - y
    if min(x, y) < 0 or w <= 0 or h <= 0 or x + w > frame_w or y + h > frame_h:
        return None
    return x, y, w, h


def stretch(tw, th):
    return (tw, 0), (th, 0)


def letterbox(crop_w, crop_h, par, tw, th):
    """Fit the display shape (crop_w * par_n : crop_h * par_d) inside tw x th: the relatively longer
    axis fills its side, the other is the exact ratio rounded half up (at least 1 pixel); the
    content sits at floor((tensor - content) / 2) (GStreamer's videobox/letterbox placement)."""
    dw, dh = crop_w * par[0], crop_h * par[1]
    if Fraction(dw, dh) >= Fraction(tw, th):  # wider than the tensor: width fills
        rx, ry = tw, min(th, max(1, math.floor(Fraction(tw * dh, dw) + Fraction(1, 2))))
    else:
        rx, ry = min(tw, max(1, math.floor(Fraction(th * dw, dh) + Fraction(1, 2)))), th
    return (rx, -((tw - rx) // 2)), (ry, -((th - ry) // 2))


def center_crop(crop_w, crop_h, par, fraction, tw, th):
    """timm/torchvision eval transform: Resize to cover S = floor(tensor / crop_pct) per axis (the
    axis that needs the larger scale gets exactly its S, the other floor(len * scale) like
    torchvision's Resize(int)), then CenterCrop(tensor) with offset round((R - t) / 2), Python's
    round (half to even) as torchvision's CenterCrop uses. `fraction` is the decimal string given
    to the program, so 224 / 0.875 is exactly 256."""
    f = Fraction(fraction)
    sx, sy = math.floor(tw / f), math.floor(th / f)
    dw, dh = crop_w * par[0], crop_h * par[1]
    if Fraction(sy, dh) >= Fraction(sx, dw):  # height needs the larger scale: it gets exactly sy
        ry, rx = sy, math.floor(Fraction(sy * dw, dh))
    else:
        rx, ry = sx, math.floor(Fraction(sx * dh, dw))
    return (rx, round(Fraction(rx - tw, 2))), (ry, round(Fraction(ry - th, 2)))


def chroma_span(origin, length):
    """4:2:0 chroma samples [first, last) that own at least one luma pixel of [origin, origin +
    length): sample k owns luma pixels 2k and 2k + 1."""
    return origin // 2, (origin + length - 1) // 2 + 1

# SPDX-License-Identifier: LGPL-2.1-or-later
"""The oracle's cases: each a dict of the driver's arguments (preprocess_cli.h) plus the photograph
it runs on. Chosen to reach every branch an independent judge can see: every source format and
matrix, both ranges and sitings, all three modes with their rounding points, pixel aspect ratio,
crops and ROI batches, BGR order, mean/std, FP16 and INT8 (rounding, ties, saturation) in every
layout, square and non-square, down- and upscaled tensors."""

IMAGENET = {'mean': (0.485, 0.456, 0.406), 'std': (0.229, 0.224, 0.225)}


def case(name, photo, fmt='rgbx', **kw):
    c = {'name': name, 'photo': photo, 'fmt': fmt, 'matrix': '601', 'full': False, 'cosited': (0, 0),
         'mode': 'stretch', 'antialias': True, 'fraction': '0.875', 'par': (1, 1), 'pad': (0, 0, 0),
         'crop': (0, 0, 0, 0), 'order': 'rgb', 'mean': (0, 0, 0), 'std': (1, 1, 1), 'scale': '1',
         'layout': 'dla_linear', 'type': 'fp16', 'tensor': (1, 224, 224), 'rois': [], 'refused': False,
         'exact_pad': False}
    unknown = set(kw) - set(c)
    assert not unknown, unknown
    c.update(kw)
    return c


def all_cases():
    cases = []
    photos = ('astronaut', 'chelsea', 'coffee')  # 512x512, 451x300 (odd width), 600x400
    # The original oracle's torchvision/Pillow set, on every photograph.
    for p in photos:
        cases += [
            case('rgb stretch antialias', p),
            case('rgb stretch bilinear', p, antialias=False),
            case('rgb Resize(256)+CenterCrop(224)', p, mode='center'),
            case('nv12 BT.601 limited centred antialias', p, 'nv12'),
            case('nv12 BT.709 full co-sited-h antialias', p, 'nv12', matrix='709', full=True, cosited=(1, 0)),
            case('nv12 BT.601 full centred bilinear', p, 'nv12', full=True, antialias=False),
            case('nv12 BT.709 limited co-sited bilinear', p, 'nv12', matrix='709', cosited=(1, 1), antialias=False),
        ]
    cases += [
        # BT.2020 and I420; non-square and non-224 tensors; odd crop origins (chroma ownership).
        case('i420 BT.2020 limited 320x192', 'chelsea', 'i420', matrix='2020', tensor=(1, 320, 192)),
        case('i420 BT.2020 full co-sited upscale crop', 'coffee', 'i420', matrix='2020', full=True,
             cosited=(1, 1), antialias=False, crop=(101, 57, 61, 41), tensor=(1, 150, 98)),
        case('nv12 BT.2020 limited co-sited-h crop antialias upscale-x', 'astronaut', 'nv12', matrix='2020',
             cosited=(1, 0), crop=(33, 47, 151, 401), tensor=(1, 200, 120)),
        # Letterbox: pad value, PAR, the half-up content size (224 * 301 / 448 = 150.5 -> 151) and
        # the floor placement (73 rows of padding: 36 above).
        case('rgba letterbox half-up 151 rows, pad', 'astronaut', 'rgba', mode='letterbox',
             crop=(0, 0, 448, 301), pad=(114, 200, 7), exact_pad=True),
        case('bgra letterbox PAR 4/3 bgr imagenet', 'coffee', 'bgra', mode='letterbox', par=(4, 3),
             pad=(255, 0, 128), order='bgr', tensor=(1, 256, 256), exact_pad=True, **IMAGENET),
        case('nv12 BT.709 letterbox PAR 8/9 tall tensor bilinear', 'chelsea', 'nv12', matrix='709',
             mode='letterbox', par=(8, 9), antialias=False, tensor=(1, 96, 160), exact_pad=True),
        # Centre crop: offset round-half-even (coffee crop 577x383: R = 385, (385 - 224) / 2 = 80.5 -> 80),
        # non-square tensors with another crop fraction, PAR.
        case('bgrx center half-even offset', 'coffee', 'bgrx', mode='center', crop=(10, 10, 577, 383)),
        case('i420 BT.601 center 288x160 fraction 0.9 PAR 3/4', 'astronaut', 'i420', mode='center',
             fraction='0.9', par=(3, 4), tensor=(1, 288, 160)),
        # Layouts and types: chw16 (FP16), chw32 (INT8), dla_hwc4 both, dla_linear INT8.
        case('rgbx chw16 bgr imagenet', 'chelsea', 'rgbx', layout='chw16', order='bgr', **IMAGENET),
        case('nv12 dla_hwc4 fp16 BT.709 full 100x60', 'coffee', 'nv12', matrix='709', full=True,
             layout='dla_hwc4', tensor=(1, 100, 60)),
        # INT8: imagenet values / 0.0157 span about -134..168: both ends saturate.
        case('rgba chw32 int8 saturating', 'astronaut', 'rgba', layout='chw32', type='int8', scale='0.0157',
             **IMAGENET),
        case('i420 dla_linear int8 BT.2020 center bilinear', 'chelsea', 'i420', matrix='2020', mode='center',
             antialias=False, layout='dla_linear', type='int8', scale='0.01', mean=(0.5, 0.5, 0.5),
             tensor=(1, 200, 136)),
        # FP16 ties in the (exact) padding: 1 + 2^-11 -> 1, 2 + 2^-10 -> 2 (down to even), 1 + 3 * 2^-11
        # -> 1 + 2^-9 (up to even).
        case('rgbx letterbox fp16 ties to even', 'coffee', mode='letterbox', pad=(255, 255, 255),
             mean=(-0.00048828125, -1.0009765625, -0.00146484375), exact_pad=True),
        # Ties: a white pad with mean -1.5 is exactly 2.5 -> 2 (ties to even), black content 1.5 -> 2.
        case('bgrx dla_hwc4 int8 letterbox ties to even', 'coffee', 'bgrx', mode='letterbox', pad=(255, 255, 255),
             mean=(-1.5, -1.5, -1.5), layout='dla_hwc4', type='int8', exact_pad=True),
        # ROI batch: slot 1 named by no ROI stays untouched; width 0 = to the edge.
        case('nv12 ROIs letterbox int8 hwc4 batch 3', 'chelsea', 'nv12', cosited=(1, 1), mode='letterbox',
             layout='dla_hwc4', type='int8', scale='0.008', mean=(0.5, 0.4, 0.3), tensor=(3, 128, 96),
             rois=[((37, 21, 301, 177), 2), ((0, 0, 0, 0), 0)], pad=(16, 32, 64), exact_pad=True),
        case('bgra ROIs chw16 stretch to-the-edge', 'astronaut', 'bgra', layout='chw16', tensor=(2, 64, 48),
             rois=[((301, 411, 0, 0), 1), ((0, 0, 511, 1), 0)], antialias=False),
        # Crops that leave the frame are refused, not clamped.
        case('crop past the right edge refused', 'chelsea', 'nv12', crop=(400, 0, 52, 10), refused=True),
        case('ROI starting outside the frame refused', 'chelsea', 'rgbx', rois=[((0, 300, 1, 1), 0)],
             refused=True),
    ]
    return cases

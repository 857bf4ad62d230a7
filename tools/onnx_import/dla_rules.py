# SPDX-License-Identifier: LGPL-2.1-or-later
"""The DLA's rules for each layer kind of the swdla model format (version 2), in one place for the
ONNX importer and later tools (a model-preparation tool reuses them).

The limits are those of tests/swdla/FORMAT.md ("DLA limits"), written from TensorRT's "DLA
Supported Layers and Restrictions"
(https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/dla-layer-restrictions.html)
and NvInfer.h's DLA notes; swdla's reader checks the same ones at load. Each check returns the list
of rules a layer breaks, as short sentences ("kernel 33x33: the DLA takes kernels 1..32"), empty
when the layer is legal."""

SOURCE = 'TensorRT DLA restrictions'

MAX_DIM = 8192          # every C, H, W
MAX_BATCH = 64
MAX_IO = 16             # inputs, and outputs
MAX_LAYERS = 1024
MAX_NAME = 79           # characters of a tensor or layer name

CONV_KERNEL = (1, 32)
CONV_STRIDE = (1, 8)
CONV_PAD = (0, 31)      # and each padding smaller than the kernel
CONV_DILATION = (1, 32)
CONV_OUT_C = (1, 8192)
CONV_GROUPS = (1, 8192)
FC_OUT = (1, 8192)
POOL_WINDOW = (1, 8)
POOL_STRIDE = (1, 16)
POOL_PAD = (0, 7)       # and each padding smaller than the window
CONCAT_INPUTS = (2, 8)
RESIZE_SCALE = (1, 32)
SOFTMAX_C_SPATIAL = 1024   # C when H x W > 1
SOFTMAX_C_VECTOR = 8192    # C when H = W = 1
ELTWISE_OPS = ('sum', 'prod', 'max', 'min', 'sub')
ACTIVATIONS = ('relu', 'sigmoid', 'tanh', 'clip', 'leaky relu')
# I/O formats: chw16 is FP16-only, chw32 INT8-only, dla_hwc4 an input format of 1, 3 or 4 channels.
LAYOUT_TYPES = {'chw16': ('fp16',), 'chw32': ('int8',), 'dla_linear': ('fp16', 'int8'),
                'dla_hwc4': ('fp16', 'int8')}
HWC4_CHANNELS = (1, 3, 4)


def _in(v, lim):
    return lim[0] <= v <= lim[1]


def _pair(a, b):
    return f'{a}x{b}'


def _pads(p):
    return ','.join(str(v) for v in p) + ' (top, left, bottom, right)'


def _window(word, kh, kw, sy, sx, pads, lims):
    """The rules conv and pools share: kernel/window, stride, padding (each smaller than the window)."""
    klim, slim, plim = lims
    bad = []
    if not (_in(kh, klim) and _in(kw, klim)):
        bad.append(f'{word} {_pair(kh, kw)}: the DLA takes {word}s 1..{klim[1]}')
    if not (_in(sy, slim) and _in(sx, slim)):
        bad.append(f'stride {_pair(sy, sx)}: the DLA takes strides 1..{slim[1]}')
    if not all(_in(p, plim) for p in pads):
        bad.append(f'padding {_pads(pads)}: the DLA takes paddings 0..{plim[1]}')
    elif max(pads[0], pads[2]) >= kh or max(pads[1], pads[3]) >= kw:
        bad.append(f'padding {_pads(pads)} with {word} {_pair(kh, kw)}: the DLA takes each padding smaller '
                   f'than its {word}')
    return bad


def conv(kh, kw, sy, sx, pads, dy, dx, out_c, groups, in_c):
    """pads: (top, left, bottom, right)."""
    bad = _window('kernel', kh, kw, sy, sx, pads, (CONV_KERNEL, CONV_STRIDE, CONV_PAD))
    if not (_in(dy, CONV_DILATION) and _in(dx, CONV_DILATION)):
        bad.append(f'dilation {_pair(dy, dx)}: the DLA takes dilations 1..{CONV_DILATION[1]}')
    if not _in(out_c, CONV_OUT_C):
        bad.append(f'{out_c} output channels: the DLA takes 1..{CONV_OUT_C[1]}')
    if not _in(groups, CONV_GROUPS):
        bad.append(f'groups {groups}: the DLA takes groups 1..{CONV_GROUPS[1]}')
    elif in_c % groups or out_c % groups:
        bad.append(f'groups {groups} with {in_c} input and {out_c} output channels: both must divide by the groups')
    return bad


def pool(kh, kw, sy, sx, pads):
    """Max and average pooling windows."""
    return _window('pooling window', kh, kw, sy, sx, pads, (POOL_WINDOW, POOL_STRIDE, POOL_PAD))


def fc(out_c):
    return [] if _in(out_c, FC_OUT) else [f'{out_c} outputs: the DLA takes 1..{FC_OUT[1]}']


def concat(shapes):
    """shapes: (c, h, w) of each input."""
    bad = []
    if not _in(len(shapes), CONCAT_INPUTS):
        bad.append(f'{len(shapes)} inputs: the DLA concatenates {CONCAT_INPUTS[0]}..{CONCAT_INPUTS[1]}')
    if any(s[1:] != shapes[0][1:] for s in shapes):
        bad.append('inputs ' + ', '.join(dims(s) for s in shapes) +
                   ': the DLA concatenates along channels only, same height and width')
    return bad


def eltwise(a, b):
    """a, b: (c, h, w); b may be c x 1 x 1 (per-channel broadcast)."""
    if a == b or (a[0] == b[0] and b[1:] == (1, 1)):
        return []
    return [f'inputs {dims(a)} and {dims(b)}: the DLA\'s element-wise layer takes the same shape or the second '
            'C x 1 x 1 (per-channel broadcast)']


def resize(sy, sx):
    if _in(sy, RESIZE_SCALE) and _in(sx, RESIZE_SCALE):
        return []
    return [f'scale {_pair(sy, sx)}: the DLA resizes (nearest) by integer scales 1..{RESIZE_SCALE[1]}']


def softmax(c, h, w):
    limit = SOFTMAX_C_VECTOR if h == 1 and w == 1 else SOFTMAX_C_SPATIAL
    if c <= limit:
        return []
    return [f'{c} channels over {h}x{w}: the DLA\'s softmax takes C <= {SOFTMAX_C_SPATIAL} '
            f'({SOFTMAX_C_VECTOR} when H = W = 1)']


def tensor(shape):
    """A layer's result or an I/O tensor, (c, h, w)."""
    if all(1 <= v <= MAX_DIM for v in shape):
        return []
    return [f'result {dims(shape)}: the DLA takes dims 1..{MAX_DIM}']


def io_format(layout, etype, c, is_input):
    bad = []
    if layout not in LAYOUT_TYPES:
        return [f'layout {layout}: the DLA\'s I/O layouts are ' + ', '.join(LAYOUT_TYPES)]
    if etype not in LAYOUT_TYPES[layout]:
        bad.append(f'{etype}:{layout}: {layout} takes ' + ' or '.join(LAYOUT_TYPES[layout]))
    if layout == 'dla_hwc4':
        if not is_input:
            bad.append('dla_hwc4 is an input format (the DLA image format), not an output one')
        elif c not in HWC4_CHANNELS:
            bad.append(f'dla_hwc4 with {c} channels: it takes 1, 3 or 4')
    return bad


def name(text):
    n = len(text.encode())
    if 1 <= n <= MAX_NAME and '\0' not in text:
        return []
    return [f'name {text[:40]!r} of {n} bytes: swdla names have 1..{MAX_NAME} bytes (UTF-8), no NUL']


def dims(shape):
    return 'x'.join(str(v) for v in shape)

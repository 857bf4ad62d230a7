# SPDX-License-Identifier: LGPL-2.1-or-later
"""The DLA tensor layouts, written from NVIDIA's format descriptions (TensorRT's TensorFormat
header comments and "DLA Supported I/O Formats" in the TensorRT developer guide, as summarised in
docs/dla-formats.md and docs/cudla.md section 5), independently of common/tensor_layout.h:
  chw16      FP16 only: [N][ceil(C/16)][H][W][16], channel c in lane c % 16 of group c / 16;
             rows dense (W * 32 bytes), the unused lanes are padding.
  chw32      INT8 only: [N][ceil(C/32)][H][W][32], likewise with 32 lanes.
  dla_linear planar [N][C][H][roundUp(W, 64 / elemSize)]: each row padded to 64 bytes.
  dla_hwc4   [N][H][roundUp(W, 64 / (C' * elemSize))][C'], C' = 4 for C = 3: channels interleaved
             per pixel, the 4th channel and the row tail (to 64 bytes, Orin) are padding.
split() turns a tensor file into its values (N, 3, H, W) and its padding elements (flat), by NumPy
reshapes of those shapes."""
import numpy as np

DTYPE = {'fp16': np.float16, 'int8': np.int8}
ROW_ALIGN = 64  # bytes, Orin (Xavier used 32)


def round_up(v, m):
    return -(-v // m) * m


def natural_shape(layout, elem_type, n, h, w):
    """The layout's C-array shape for a 3-channel tensor, and the index of the values in it."""
    es = np.dtype(DTYPE[elem_type]).itemsize
    if layout in ('chw16', 'chw32'):
        lanes = 16 if layout == 'chw16' else 32
        assert (layout, elem_type) in (('chw16', 'fp16'), ('chw32', 'int8'))
        return (n, 1, h, w, lanes), (slice(None), 0, slice(None), slice(None), slice(0, 3)), 'nhwc'
    if layout == 'dla_linear':
        return (n, 3, h, round_up(w, ROW_ALIGN // es)), (Ellipsis, slice(0, w)), 'nchw'
    if layout == 'dla_hwc4':
        return (n, h, round_up(w, ROW_ALIGN // (4 * es)), 4), (slice(None), slice(None), slice(0, w), slice(0, 3)), 'nhwc'
    raise ValueError(layout)


def split(raw, layout, elem_type, n, h, w):
    """(values (n, 3, h, w), padding elements, untouched-marker view) of a tensor file, or raises
    ValueError when the file's size is not the layout's."""
    shape, index, order = natural_shape(layout, elem_type, n, h, w)
    dtype = DTYPE[elem_type]
    need = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if len(raw) != need:
        raise ValueError(f'tensor file has {len(raw)} bytes, {layout} {elem_type} {n}x3x{h}x{w} has {need}')
    a = np.frombuffer(raw, dtype=dtype).reshape(shape)
    is_value = np.zeros(shape, bool)
    is_value[index] = True
    values = a[index]
    if order == 'nhwc':
        values = np.moveaxis(values, -1, 1)
    bits = np.frombuffer(raw, dtype=np.uint16 if dtype == np.float16 else np.uint8).reshape(shape)
    return values, bits[~is_value].reshape(n, -1), bits.reshape(n, -1)

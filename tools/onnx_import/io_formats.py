# SPDX-License-Identifier: LGPL-2.1-or-later
"""The importer's --inputs / --outputs lists: NAME:TYPE:LAYOUT[:scale=S][,...], with TYPE:LAYOUT as
trtexec's --inputIOFormats spells them (fp16:chw16, int8:chw32, fp16:dla_linear, int8:dla_linear,
fp16:dla_hwc4, int8:dla_hwc4). INT8 needs its scale, real value = q x S: `scale=0.05` or
`scale=1/127`. A name may itself hold ':' (TensorFlow's "input:0"): the list is read from the right."""
from dataclasses import dataclass

from . import dla_rules

DEFAULT = ('fp16', 'chw16')
TYPES = ('fp16', 'int8')


class FormatError(ValueError):
    pass


@dataclass
class IoFormat:
    type: str = DEFAULT[0]
    layout: str = DEFAULT[1]
    scale: float = 1.0

    def __str__(self):
        return f'{self.type}:{self.layout}' + (f':scale={self.scale:g}' if self.type == 'int8' else '')


def _number(text, item):
    try:
        if '/' in text:
            a, b = text.split('/', 1)
            return float(a) / float(b)
        return float(text)
    except (ValueError, ZeroDivisionError):
        raise FormatError(f'{item!r}: scale {text!r} is not a number (scale=0.05 or scale=1/127)') from None


def parse_one(item):
    """'name:int8:chw32:scale=1/64' -> ('name', IoFormat)."""
    parts = item.split(':')
    scale = None
    if parts and parts[-1].startswith('scale='):
        scale = _number(parts.pop()[len('scale='):], item)
    if len(parts) < 3 or not parts[0]:
        raise FormatError(f'{item!r}: write NAME:TYPE:LAYOUT[:scale=S], e.g. images:fp16:chw16 or '
                          'images:int8:chw32:scale=1/127')
    name, etype, layout = ':'.join(parts[:-2]), parts[-2], parts[-1]
    if etype not in TYPES:
        raise FormatError(f'{item!r}: type {etype!r} is not fp16 or int8')
    if layout not in dla_rules.LAYOUT_TYPES:
        raise FormatError(f'{item!r}: layout {layout!r} is not one of ' + ', '.join(dla_rules.LAYOUT_TYPES))
    if etype == 'int8' and scale is None:
        raise FormatError(f'{item!r}: INT8 needs its scale (real value = q x scale): add :scale=S, e.g. '
                          f'{name}:int8:{layout}:scale=1/127')
    if etype == 'fp16' and scale is not None:
        raise FormatError(f'{item!r}: a scale is for INT8 only')
    if scale is not None and not 0 < scale < 1e30:
        raise FormatError(f'{item!r}: the scale must be positive')
    return name, IoFormat(etype, layout, 1.0 if scale is None else scale)


def parse_list(text):
    """'a:fp16:chw16,b:int8:chw32:scale=0.1' -> {name: IoFormat}, in order."""
    out = {}
    for item in (text or '').split(','):
        if not item:
            continue
        name, fmt = parse_one(item)
        if name in out:
            raise FormatError(f'{name!r} is listed twice')
        out[name] = fmt
    return out

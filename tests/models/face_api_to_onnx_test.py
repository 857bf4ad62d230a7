#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/models/face_api_to_onnx.py without the package: TF 'same' padding sums, TF.js weight
decoding on a synthetic manifest (two shards, uint8 and float32 weights), and its bad inputs (no
manifest, a short shard, bytes the manifest does not describe, an unknown quantisation), each a
one-line error and exit 1."""
import contextlib
import io
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'models'))
import face_api_to_onnx as conv  # noqa: E402

failures = 0


def check(name, ok, detail=''):
    global failures
    print(('ok  ' if ok else 'FAIL') + f' {name} {detail}')
    failures += 0 if ok else 1


def write_model(d, weights, shards):
    """weights: [(spec, raw bytes)]; shards: how many files the bytes are split over."""
    data = b''.join(raw for _, raw in weights)
    cut = len(data) // 2 if shards == 2 else len(data)
    paths = ['m.bin'] if shards == 1 else ['m-shard1', 'm-shard2']
    for path, part in zip(paths, [data[:cut], data[cut:]]):
        with open(os.path.join(d, path), 'wb') as f:
            f.write(part)
    with open(os.path.join(d, 'm-weights_manifest.json'), 'w', encoding='utf-8') as f:
        json.dump([{'paths': paths, 'weights': [s for s, _ in weights]}], f)


def run_main(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = conv.main(argv)
    return rc, err.getvalue().strip()


def main():
    # (size, kernel, stride) -> (out, top/left, bottom/right): TF puts the odd pixel last.
    for args, want in [((207, 2, 2), (104, 0, 1)), ((13, 2, 1), (13, 0, 1)), ((112, 3, 2), (56, 0, 1)),
                       ((414, 2, 2), (207, 0, 0)), ((7, 3, 1), (7, 1, 1))]:
        check(f'same_pads{args}', conv.same_pads(*args) == want, str(conv.same_pads(*args)))
    q = np.array([0, 1, 128, 255, 7, 9], np.uint8)
    scale, low = 0.009007044399485869, -1.2069439495311063
    f32 = np.array([1.5, -2.25, 3e-8], '<f4')
    with tempfile.TemporaryDirectory() as d:
        write_model(d, [({'name': 'a', 'shape': [2, 3], 'dtype': 'float32',
                          'quantization': {'dtype': 'uint8', 'scale': scale, 'min': low}}, q.tobytes()),
                        ({'name': 'b', 'shape': [3], 'dtype': 'float32'}, f32.tobytes())], shards=2)
        w = conv.load_weights(d, 'm')
        want = np.array([np.float32(v * scale + low) for v in q.tolist()], np.float32).reshape(2, 3)
        check('uint8 dequantised as q * scale + min', np.array_equal(w['a'], want) and w['a'].dtype == np.float32)
        check('float32 read as is across shards', np.array_equal(w['b'], f32))
        bin2 = os.path.join(d, 'm-shard2')
        data = open(bin2, 'rb').read()
        for label, content, words in [('short shard', data[:-1], 'ends inside weight b'),
                                      ('extra bytes', data + b'\0\0', '2 bytes of shard data not described')]:
            with open(bin2, 'wb') as f:
                f.write(content)
            try:
                conv.load_weights(d, 'm')
                check(label, False, 'accepted')
            except conv.ConvertError as e:
                check(label, words in str(e) and '\n' not in str(e), str(e))
        write_model(d, [({'name': 'a', 'shape': [6], 'dtype': 'float32',
                          'quantization': {'dtype': 'int4', 'scale': 1, 'min': 0}}, q.tobytes())], shards=1)
        try:
            conv.load_weights(d, 'm')
            check('unknown quantisation', False, 'accepted')
        except conv.ConvertError as e:
            check('unknown quantisation', 'quantisation int4' in str(e), str(e))
        rc, err = run_main([os.path.join(d, 'nothing'), os.path.join(d, 'out')])
        check('no manifest', rc == 1 and len(err.splitlines()) == 1 and 'fetch-face-api.sh' in err, err)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

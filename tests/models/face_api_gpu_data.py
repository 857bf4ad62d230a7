#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Everything a machine without Node, python3-onnx or the face-api cache needs to run face-api's
networks through dladetect and dlainfer and compare them with face-api (docs/real-models.md):

  face_api_gpu_data.py OUT [--cache DIR] [--skimage DIR]... [--fetch-skimage SCRIPT]

OUT gets (about 21 MiB, 16 compressed; .ci/gpu-bundle.sh carries it as BUILD/tests/data/face-api):
  tiny_face_detector.swdla, .modelinfo  the detector (fp16:chw16 I/O) and face-api's decode keys
  face_expression.swdla, .labels        the expression net, its 'expressions' (softmax) output only
  NAME-416.rgba     416x416 RGBA: the detector's input as face-api built it (padded bottom/right,
                    resized by tfjs), back in 8-bit pixels
  NAME-square.png   the photograph at full size, padded bottom/right with black to a square
  face-api.json     face-api's results (Node, its own decode and NMS): per photograph its faces
                    in photograph pixels, in the 416 frame and in the square frame, each with its
                    score and the expression net's seven probabilities on face-api's own crop
The oracle's dumps come from the face-api cache (face_api_check.py runs Node once per machine and
keeps them per key). Exit 77 (skip) without the face-api package or Node (CI: 1), 1 on an error."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import face_api_check as check  # noqa: E402
import onnx_eval  # noqa: E402  (tools/twins, on the path through face_api_check)

DETECTOR_SIZE = 416
# face-api's FaceExpressions order (src/faceExpressionNet/FaceExpressions.ts).
EXPRESSIONS = ['neutral', 'happy', 'sad', 'angry', 'fearful', 'disgusted', 'surprised']
# face-api's TinyFaceDetectorOptions the oracle used, and its NMS (TinyYolov2Base.extractBoxes).
SCORE_THRESHOLD = 0.5
NMS_IOU = 0.4


def detector_modelinfo(anchors):
    return ('[modelinfo]\nversion=1.0\ndlainfer-decoder=yolo-anchors\ndlainfer-box-formula=yolov2\n'
            'dlainfer-anchor-unit=cells\ndlainfer-classes=0\ndlainfer-class-agnostic-nms=true\n'
            f'dlainfer-threshold={SCORE_THRESHOLD}\ndlainfer-nms-iou-threshold={NMS_IOU}\n'
            'dlainfer-anchors=' + ','.join(f'{w},{h}' for w, h in anchors) + '\n')


def frame_416(oracle, photo):
    """face-api's detector input (float, (pixel - mean) / 255) as 8-bit RGBA: rounding adds at most
    half a grey level to tfjs's interpolated values."""
    x = check.load(oracle, photo['name'], photo['input']).reshape(3, DETECTOR_SIZE, DETECTOR_SIZE)
    mean = np.array(photo['mean_rgb'])
    rgb = np.clip(np.rint(x * 255 + mean[:, None, None]), 0, 255).astype(np.uint8)
    alpha = np.full((1, DETECTOR_SIZE, DETECTOR_SIZE), 255, np.uint8)
    return np.concatenate([rgb, alpha]).transpose(1, 2, 0)


def square_png(rgb_file, width, height, out):
    """The photograph padded bottom/right with black to a square, as face-api pads (padToSquare)."""
    from PIL import Image
    side = max(width, height)
    pixels = np.zeros((side, side, 3), np.uint8)
    pixels[:height, :width] = np.fromfile(rgb_file, np.uint8).reshape(height, width, 3)
    Image.fromarray(pixels).save(out, optimize=False, compress_level=9)
    return side


def faces(oracle, photo):
    """face-api's detections with their expressions; the boxes in photograph pixels, in the 416
    frame (face-api's content fills round(side * scale) of it) and in the square frame (same)."""
    w, h = photo['width'], photo['height']
    scale = DETECTOR_SIZE / max(w, h)
    sx, sy = np.floor(w * scale + 0.5) / w, np.floor(h * scale + 0.5) / h
    out = []
    crops = [f for f in photo['faces'] if f['kind'] == 'detection']
    if len(crops) != len(photo['detections']):
        raise RuntimeError(f'{photo["name"]}: {len(crops)} expression crops for {len(photo["detections"])} faces')
    for det, crop in zip(photo['detections'], crops):
        probs = check.load(oracle, photo['name'], crop['probs']).reshape(-1)
        box = np.array(det['box'])
        out.append({'score': det['score'], 'box': box.tolist(),
                    'box_416': (box * [sx, sy, sx, sy]).tolist(),
                    'box_square': box.tolist(),
                    # face-api's own crop (extractFaceTensors: Box.clipAtImageBorders then floor)
                    'crop': [int(np.floor(v)) for v in box],
                    'expressions': [float(p) for p in probs],
                    'expression': EXPRESSIONS[int(np.argmax(probs))]})
    return out


def resize_half_pixel(img, width, height):
    """Bilinear with half-pixel centres and edge clamp, no antialias: dlainfer's resize with
    antialias=false (docs/architecture.md 7)."""
    h, w = img.shape[:2]
    xs = np.clip((np.arange(width) + 0.5) * w / width - 0.5, 0, w - 1)
    ys = np.clip((np.arange(height) + 0.5) * h / height - 0.5, 0, h - 1)
    x0, y0 = np.floor(xs).astype(int), np.floor(ys).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = (xs - x0)[None, :, None], (ys - y0)[:, None, None]
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def cascade_crop(photo, box, size):
    """A model of the cascade's crop: the box letterboxed (centred, black) into size x size."""
    x, y, w, h = box
    scale = min(size / w, size / h)
    cw, ch = int(np.floor(w * scale)), int(np.floor(h * scale))
    out = np.zeros((size, size, 3))
    ox, oy = (size - cw) // 2, (size - ch) // 2
    out[oy:oy + ch, ox:ox + cw] = resize_half_pixel(photo[y:y + h, x:x + w].astype(np.float64), cw, ch)
    return out


# The boxes a cascade may crop for a face: face-api's, moved by up to 2 % of its size and scaled by
# up to 3 % (IoU >= 0.87 with face-api's: the cascade's detector sees the photograph resized by
# dlainfer, not by tfjs, so its boxes differ by about that much).
JITTER = [(dx, dy, ds) for dx in (-0.02, 0, 0.02) for dy in (-0.02, 0, 0.02) for ds in (-0.03, 0, 0.03)]


def expression_spread(model, mean, rgb_file, width, height, faces):
    """Per face, the top expressions the FP32 network gives on the cascade's crops of the JITTER
    boxes: the labels a cascade may report for it. A face whose every crop gives face-api's label
    is 'stable'."""
    photo = np.fromfile(rgb_file, np.uint8).reshape(height, width, 3)
    for f in faces:
        x, y, w, h = f['crop']
        seen = set()
        for dx, dy, ds in JITTER:
            bw, bh = int(round(w * (1 + ds))), int(round(h * (1 + ds)))
            bx = min(max(int(round(x + dx * w - (bw - w) / 2)), 0), width - 1)
            by = min(max(int(round(y + dy * h - (bh - h) / 2)), 0), height - 1)
            crop = cascade_crop(photo, (bx, by, min(bw, width - bx), min(bh, height - by)), 112)
            t = ((crop / 255 - mean).transpose(2, 0, 1)[None]).astype(np.float32)
            probs = onnx_eval.run(model, {'input': t})[1].reshape(-1)
            seen.add(EXPRESSIONS[int(np.argmax(probs))])
        f['labels_near'] = sorted(seen)
        f['stable'] = seen == {f['expression']}


def import_models(onnx_dir, out):
    tool = os.path.join(ROOT, 'tests', 'swdla', 'swdla-import.py')
    for args in ([os.path.join(onnx_dir, 'tiny_face_detector.onnx'), os.path.join(out, 'tiny_face_detector.swdla')],
                 [os.path.join(onnx_dir, 'face_expression.onnx'), os.path.join(out, 'face_expression.swdla'),
                  '--outputs', 'expressions:fp16:chw16']):
        r = subprocess.run([sys.executable, tool] + args, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f'swdla-import.py {" ".join(args)}: {(r.stderr or r.stdout).strip()[-400:]}')


def prepare(cache, skimage_dirs, fetch_skimage, out):
    pkg = check.check_cache(cache)
    with tempfile.TemporaryDirectory() as work:
        photos = check.decode_photos(pkg, check.find_skimage(skimage_dirs, fetch_skimage), work)
        oracle, record = check.run_oracle(cache, work, photos)
        onnx_dir = os.path.join(work, 'onnx')
        if check.face_api_to_onnx.main([os.path.join(pkg, 'model'), onnx_dir]) != 0:
            raise RuntimeError('face_api_to_onnx.py failed (its message is above)')
        os.makedirs(out, exist_ok=True)
        import_models(onnx_dir, out)
        with open(os.path.join(out, 'tiny_face_detector.modelinfo'), 'w', encoding='utf-8') as f:
            f.write(detector_modelinfo(record['photos'][0]['anchors']))
        with open(os.path.join(out, 'face_expression.labels'), 'w', encoding='utf-8') as f:
            f.write('\n'.join(EXPRESSIONS) + '\n')
        rgb = {p['name']: p['rgb'] for p in photos}
        result = {'face_api': record['face_api'], 'tfjs': record['tfjs'], 'backend': record['backend'],
                  'detector': {'model': 'tiny_face_detector.swdla', 'size': DETECTOR_SIZE,
                               'mean': [m / 255 for m in record['photos'][0]['mean_rgb']],
                               'threshold': SCORE_THRESHOLD, 'nms_iou': NMS_IOU},
                  'expression': {'model': 'face_expression.swdla', 'labels': 'face_expression.labels',
                                 'size': 112, 'mean': [m / 255 for m in check_expression_mean()]},
                  'photos': []}
        import onnx
        expression_net = onnx.load(os.path.join(onnx_dir, 'face_expression.onnx'))
        for p in record['photos']:
            name = p['name']
            frame_416(oracle, p).tofile(os.path.join(out, name + '-416.rgba'))
            side = square_png(rgb[name], p['width'], p['height'], os.path.join(out, name + '-square.png'))
            result['photos'].append({'name': name, 'width': p['width'], 'height': p['height'], 'side': side,
                                     'frame_416': name + '-416.rgba', 'frame_square': name + '-square.png',
                                     'faces': faces(oracle, p)})
            expression_spread(expression_net, np.array(result['expression']['mean']), rgb[name], p['width'],
                              p['height'], result['photos'][-1]['faces'])
    with open(os.path.join(out, 'face-api.json'), 'w', encoding='utf-8') as f:
        json.dump(result, f, indent=1)
    n = sum(len(p['faces']) for p in result['photos'])
    print(f'face_api_gpu_data: {out}: {len(result["photos"])} photographs, {n} faces (face-api {record["face_api"]})')


def check_expression_mean():
    """FaceExpressionNet's mean RGB, as the oracle states it (the oracle proves it by recomputing the logits)."""
    with open(os.path.join(HERE, 'face_api_oracle.js'), encoding='utf-8') as f:
        for line in f:
            if line.startswith('const EXPRESSION_MEAN_RGB'):
                return [float(v) for v in line.split('[')[1].split(']')[0].split(',')]
    raise RuntimeError('face_api_oracle.js has no EXPRESSION_MEAN_RGB')


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out')
    ap.add_argument('--cache', default='/var/cache/gst-dlainfer/face-api')
    ap.add_argument('--skimage', action='append', default=[], help='directory with the skimage photographs')
    ap.add_argument('--fetch-skimage', help='script that fetches them into the first --skimage')
    args = ap.parse_args(argv)
    if not args.skimage:
        args.skimage = ['/var/cache/gst-dlainfer/skimage']
    tmp = args.out.rstrip('/') + '.part'
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        prepare(args.cache, args.skimage, args.fetch_skimage, tmp)
    except check.Skip as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.environ.get('CI'):
            print(f'face_api_gpu_data: FAIL: {e} (CI must fetch it: .ci/install-deps.sh)', file=sys.stderr)
            return 1
        print(f'face_api_gpu_data: SKIP: {e}', file=sys.stderr)
        return 77
    except (RuntimeError, OSError) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        print(f'face_api_gpu_data: {e}', file=sys.stderr)
        return 1
    shutil.rmtree(args.out, ignore_errors=True)
    os.rename(tmp, args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prepares face-api's networks, and the faces demo's clip with face-api's own answers for it, in
one folder that can be carried to a machine without Node, onnx or a network (the GPU host).

  face_api_prepare.py OUT [--cache DIR] [--models-only] [--swdla-import SCRIPT]

OUT gets:
  tiny_face_detector.swdla + .modelinfo  TinyFaceDetector for dladetect (fp16:chw16; face-api's
                                          decode: YOLOv2 boxes, anchors in cells, NMS 0.4, score 0.5)
  face_expression.swdla + .labels         FaceExpressionNet for dlainfer, cut at its logits (dlainfer's
                                          softmax gives face-api's probabilities)
  faces.conf                              what the demo reads (GKeyFile): the files above, each
                                          network's mean (face-api's mean RGB / 255, std 1)
and, without --models-only:
  faces-clip.mp4                          the clip (H.264 baseline, 416x416, 25 fps): pans and zooms
                                          over face-api's sample photographs, faces entering and leaving
  faces-clip.oracle.txt                   face-api's faces and expressions on every decoded frame
                                          (tests/models/face_api_clip_oracle.js, Node)
A stamp of the inputs (this script, the oracle's script, the pinned package) makes a second run a
no-op. Needs: the face-api cache (tests/models/fetch-face-api.sh), /usr/bin/python3 with onnx,
numpy and PIL, node (not with --models-only), gst-launch-1.0 with x264enc and an H.264 decoder
(openh264dec or avdec_h264). Each missing piece ends in one line naming it; exit 1."""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORACLE_JS = os.path.join(ROOT, 'tests', 'models', 'face_api_clip_oracle.js')
ORACLE_LOAD_JS = os.path.join(ROOT, 'tests', 'models', 'face_api_load.js')
PINNED = os.path.join(ROOT, 'tests', 'models', 'face-api', 'files.sha256')
DEFAULT_CACHE = '/var/cache/gst-dlainfer/face-api'
SIZE = 416
FPS = 25
# face-api's FaceFeatureExtractor mean (src/faceFeatureExtractor/FaceFeatureExtractor.ts), as the
# model oracle (tests/models/face_api_oracle.js) has it.
EXPRESSION_MEAN_RGB = (122.782, 117.001, 104.298)
EXPRESSIONS = ('neutral', 'happy', 'sad', 'angry', 'fearful', 'disgusted', 'surprised')
# The scene: shots of (photograph, frames, window at the start, window at the end); a window is
# (centre x, centre y, side) in the photograph's pixels, moved linearly. Pans bring faces in from
# one edge and out at the other; zooms grow faces and push their neighbours out of the frame.
SHOTS = (
    ('sample3', 50, (1520, 560, 800), (1250, 560, 800)),
    ('sample6', 50, (960, 760, 1500), (1580, 460, 620)),
)


class PrepareError(Exception):
    pass


def stamp_of(cache, models_only):
    h = hashlib.sha256()
    for path in (os.path.abspath(__file__), ORACLE_JS, ORACLE_LOAD_JS, PINNED):
        with open(path, 'rb') as f:
            h.update(f.read())
    h.update(repr((SHOTS, SIZE, FPS, models_only)).encode())
    return h.hexdigest()[:16]


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise PrepareError(f'{what} failed: {" ".join(cmd[:3])}...: {" / ".join(tail)}')
    return r.stdout


def have_element(name):
    return subprocess.run(['gst-inspect-1.0', '--exists', name], capture_output=True).returncode == 0


def window_frames(photo_dir):
    """The clip's frames, SIZE x SIZE RGB bytes each, from SHOTS."""
    from PIL import Image
    frames = []
    for name, count, a, b in SHOTS:
        img = Image.open(os.path.join(photo_dir, name + '.jpg')).convert('RGB')
        for i in range(count):
            t = i / (count - 1)
            cx, cy, side = (a[k] + (b[k] - a[k]) * t for k in range(3))
            box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
            frames.append(img.resize((SIZE, SIZE), Image.BILINEAR, box=box, reducing_gap=2.0).tobytes())
    return frames


def make_clip(frames, work, clip):
    """Encodes the frames (x264, baseline: every H.264 decoder has it) and decodes them again: the
    frames face-api is shown are the ones the demo decodes."""
    for element, package in (('x264enc', 'gstreamer1.0-plugins-ugly'), ('mp4mux', 'gstreamer1.0-plugins-good')):
        if not have_element(element):
            raise PrepareError(f'{element} is missing: apt-get install {package}')
    decoder = next((d for d in ('openh264dec', 'avdec_h264') if have_element(d)), None)
    if decoder is None:
        raise PrepareError('no H.264 decoder (openh264dec or avdec_h264): apt-get install '
                           'gstreamer1.0-plugins-bad (openh264) or gstreamer1.0-libav')
    raw = os.path.join(work, 'frames.rgb')
    with open(raw, 'wb') as f:
        f.write(b''.join(frames))
    run(['gst-launch-1.0', '-q', 'filesrc', f'location={raw}', 'blocksize=' + str(SIZE * SIZE * 3), '!',
         'rawvideoparse', 'format=rgb', f'width={SIZE}', f'height={SIZE}', f'framerate={FPS}/1', '!',
         'videoconvert', '!', 'video/x-raw,format=I420', '!',
         'x264enc', 'speed-preset=medium', 'bitrate=3000', f'key-int-max={FPS}', 'bframes=0', '!',
         'video/x-h264,profile=constrained-baseline', '!', 'h264parse', '!', 'mp4mux', '!',
         'filesink', f'location={clip}'], 'encoding the clip')
    decoded = os.path.join(work, 'decoded.rgb')
    run(['gst-launch-1.0', '-q', 'filesrc', f'location={clip}', '!', 'qtdemux', '!', 'h264parse', '!',
         decoder, '!', 'videoconvert', '!', 'video/x-raw,format=RGB', '!', 'filesink', f'location={decoded}'],
        'decoding the clip')
    if os.path.getsize(decoded) != len(frames) * SIZE * SIZE * 3:
        raise PrepareError(f'the clip decoded to {os.path.getsize(decoded)} bytes, not {len(frames)} frames')
    return decoded


def oracle(cache, decoded, out):
    if shutil.which('node') is None:
        raise PrepareError('node not found: install Node.js 18 or later (apt-get install nodejs)')
    run(['node', ORACLE_JS, cache, decoded, str(SIZE), str(SIZE), out], 'face-api in Node')
    with open(out) as f:
        head = dict(line.split(' ', 1) for line in f.read().splitlines()[:3] if not line.startswith('#'))
    return [float(v) for v in head['detector-mean'].split()], head['anchors'].split()


def import_models(cache, swdla_import, anchors, out):
    sys.path.insert(0, HERE)
    import face_api_to_onnx
    with tempfile.TemporaryDirectory() as work:
        if face_api_to_onnx.main([os.path.join(cache, 'node_modules', '@vladmandic', 'face-api', 'model'), work]):
            raise PrepareError('face_api_to_onnx failed (the line above says why)')
        run([sys.executable, swdla_import, os.path.join(work, 'tiny_face_detector.onnx'),
             os.path.join(out, 'tiny_face_detector.swdla')], 'importing TinyFaceDetector')
        run([sys.executable, swdla_import, os.path.join(work, 'face_expression.onnx'),
             os.path.join(out, 'face_expression.swdla'), '--outputs', 'logits:fp16:chw16'],
            'importing FaceExpressionNet')
    with open(os.path.join(out, 'tiny_face_detector.modelinfo'), 'w') as f:
        f.write('[modelinfo]\nversion=1.0\ndlainfer-decoder=yolo-anchors\ndlainfer-box-formula=yolov2\n'
                'dlainfer-anchor-unit=cells\ndlainfer-classes=0\ndlainfer-class-agnostic-nms=true\n'
                'dlainfer-threshold=0.5\ndlainfer-nms-iou-threshold=0.4\n'
                f'dlainfer-anchors={",".join(anchors)}\n')
    with open(os.path.join(out, 'face_expression.labels'), 'w') as f:
        f.write('\n'.join(EXPRESSIONS) + '\n')


def write_conf(out, detector_mean, clip):
    frames = sum(s[1] for s in SHOTS)
    mean = lambda rgb: ','.join(f'{v / 255:.6f}' for v in rgb)  # noqa: E731
    text = ('# the faces demo (pipelines/faces-demo.cpp): made by tools/models/face_api_prepare.py\n'
            f'[detector]\nmodel=tiny_face_detector.swdla\nmean={mean(detector_mean)}\n'
            f'[expression]\nmodel=face_expression.swdla\nlabels=face_expression.labels\n'
            f'mean={mean(EXPRESSION_MEAN_RGB)}\n')
    if clip:
        text += (f'[clip]\nfile=faces-clip.mp4\noracle=faces-clip.oracle.txt\nframes={frames}\n'
                 f'width={SIZE}\nheight={SIZE}\nfps={FPS}\n')
    with open(os.path.join(out, 'faces.conf'), 'w') as f:
        f.write(text)


def prepare(out, cache, models_only, swdla_import):
    pkg = os.path.join(cache, 'node_modules', '@vladmandic', 'face-api')
    if not os.path.isdir(pkg):
        raise PrepareError(f'no face-api in {cache}: run tests/models/fetch-face-api.sh {cache} '
                           '(sudo bash .ci/install-deps.sh does)')
    stamp = stamp_of(cache, models_only)
    stamp_file = os.path.join(out, 'stamp')
    if os.path.isfile(stamp_file) and open(stamp_file).read().strip() == stamp:
        return False
    os.makedirs(out, exist_ok=True)
    if os.path.exists(stamp_file):
        os.remove(stamp_file)
    with tempfile.TemporaryDirectory() as work:
        if models_only:
            # face-api's TinyFaceDetector config (src/tinyFaceDetector/const.ts: IOU_THRESHOLD,
            # BOX_ANCHORS, MEAN_RGB), as the oracles read it from net.config.
            mean = (117.001, 114.697, 97.404)
            anchors = ['1.603231,2.094468', '6.041143,7.080126', '2.882459,3.518061', '4.266906,5.178857',
                       '9.041765,10.66308']
        else:
            decoded = make_clip(window_frames(os.path.join(pkg, 'demo')), work, os.path.join(out, 'faces-clip.mp4'))
            mean, anchors = oracle(cache, decoded, os.path.join(out, 'faces-clip.oracle.txt'))
        import_models(cache, swdla_import, anchors, out)
    write_conf(out, mean, not models_only)
    with open(stamp_file, 'w') as f:
        f.write(stamp + '\n')
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out')
    ap.add_argument('--cache', default=DEFAULT_CACHE, help=f'the face-api cache (default {DEFAULT_CACHE})')
    ap.add_argument('--models-only', action='store_true', help='the networks and faces.conf, no clip')
    ap.add_argument('--swdla-import', default=os.path.join(ROOT, 'tests', 'swdla', 'swdla-import.py'))
    args = ap.parse_args(argv)
    try:
        made = prepare(args.out, args.cache, args.models_only, args.swdla_import)
    except PrepareError as e:
        print(f'face_api_prepare: {e}', file=sys.stderr)
        return 1
    except ImportError as e:
        print(f'face_api_prepare: the Python module {e.name} is missing: apt-get install python3-onnx '
              'python3-numpy python3-pil (and run /usr/bin/python3)', file=sys.stderr)
        return 1
    print(f'face_api_prepare: {args.out} {"made" if made else "up to date"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())

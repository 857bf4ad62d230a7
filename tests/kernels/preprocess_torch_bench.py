#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyTorch column of the preprocessing benchmark (GPU host; torch and torchvision needed):
1080p NV12 -> 3x224x224 FP16 chw16, planes resized first then converted (the fused kernel's
order), 64 rotated frames, CUDA events, median per frame, eager and CUDA-graph replay.
Run beside `meson test --benchmark --suite gpu preprocess` and put its line in the same table."""
import argparse
import statistics

import torch
import torch.nn.functional as F

FRAMES, REPS = 64, 25


def transform(y, uv, antialias):
    """y (H, W) and uv (H/2, W/2, 2) uint8 -> (224, 224, 16) FP16 chw16 (3 channels + 13 zero lanes)."""
    yf = F.interpolate(y[None, None].float(), size=(224, 224), mode='bilinear', align_corners=False,
                       antialias=antialias)[0, 0]
    c = F.interpolate(uv.permute(2, 0, 1)[None].float(), size=(224, 224), mode='bilinear', align_corners=False,
                      antialias=antialias)[0]
    yy = (yf - 16) * (255 / 219)
    u, v = (c[0] - 128) * (255 / 224), (c[1] - 128) * (255 / 224)
    rgb = torch.stack([yy + 1.402 * v, yy - 0.344136 * u - 0.714136 * v, yy + 1.772 * u]).clamp(0, 255) / 255
    out = torch.zeros(224, 224, 16, device=y.device, dtype=torch.float16)
    out[..., :3] = rgb.permute(1, 2, 0).half()
    return out


def time_frames(fn, stream):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    per_frame = []
    for _ in range(REPS):
        start.record(stream)
        fn()
        end.record(stream)
        end.synchronize()
        per_frame.append(start.elapsed_time(end) * 1000 / FRAMES)
    return statistics.median(per_frame)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--width', type=int, default=1920)
    ap.add_argument('--height', type=int, default=1080)
    args = ap.parse_args()
    w, h = args.width, args.height
    dev = torch.device('cuda')
    frames = [(torch.randint(0, 256, (h, w), dtype=torch.uint8, device=dev),
               torch.randint(0, 256, (h // 2, w // 2, 2), dtype=torch.uint8, device=dev)) for _ in range(FRAMES)]
    outs = [None] * FRAMES
    bytes_moved = w * h * 1.5 + 224 * 224 * 32
    print(f'| {"torch " + str(w) + "x" + str(h) + " NV12 -> 224 fp16 chw16":34} | {"variant":22} | eager us | graph us | '
          f'MB moved | GB/s (graph) | Orin us')
    for aa in (True, False):
        def rotation():
            for i, (y, uv) in enumerate(frames):
                outs[i] = transform(y, uv, aa)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            rotation()
            torch.cuda.synchronize()
            eager = time_frames(rotation, stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                rotation()
            graph.replay()
            replay = time_frames(graph.replay, stream)
        print(f'| {"":34} | {"torch antialias=" + str(aa):22} | {eager:8.2f} | {replay:8.2f} | {bytes_moved / 1e6:8.3f} | '
              f'{bytes_moved / (replay * 1e3):12.1f} | {bytes_moved / 204.8e3:7.2f}')
    print('MB moved is the lower bound (frame read once + tensor written); torch moves far more through its '
          'float intermediates.')


if __name__ == '__main__':
    main()

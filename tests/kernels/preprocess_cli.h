/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The oracle's driver programs (preprocess_oracle.py): one job read from KEY=VALUE arguments, a raw
 * frame in, a raw tensor out. Shared by preprocess-ref-cli (the CPU reference) and the kernel's
 * drivers (preprocess_kernel_cli.cpp: the CUDA kernel, and the same source over the CPU emulation).
 *
 *   format=nv12|i420|rgba|bgra|rgbx|bgrx size=WxH matrix=601|709|2020 range=limited|full
 *   cosited=H,V mode=stretch|letterbox|center antialias=0|1 fraction=F par=N/D pad=R,G,B
 *   crop=X,Y,W,H order=rgb|bgr mean=A,B,C std=A,B,C scale=S layout=chw16|chw32|dla_linear|dla_hwc4
 *   type=fp16|int8 tensor=NxWxH (batch, width, height) roi=X,Y,W,H,BATCH (repeatable) in=FILE out=FILE
 *
 * Unset keys keep default_params (). The frame file holds the planes packed without padding (NV12:
 * Y then interleaved UV; I420: Y, U, V with chroma ceil(W/2) x ceil(H/2); packed RGB: 4 bytes per
 * pixel). The tensor buffer starts filled with 0xab (bytes nothing should write, e.g. batch slots no
 * ROI names, keep it) and is written whole to OUT. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/preprocess.h"

namespace preprocess_cli {

struct Job {
  std::vector<uint8_t> frame;     /* the raw frame file */
  preprocess::SourceView src{};   /* planes point into `frame` */
  int plane_bytes[3] = {0, 0, 0}; /* bytes of each plane in `frame` */
  int n_planes = 0;
  preprocess::Params params{};
  std::vector<preprocess::Roi> rois;
  tensor::View view{};
  std::string out_path;
};

/* Parses argv (KEY=VALUE) and reads the frame. Returns false with the reason in *error. */
bool parse (int argc, char **argv, Job *job, std::string *error);

/* Writes the tensor bytes to job.out_path. */
bool write_tensor (const Job &job, const std::vector<uint8_t> &tensor, std::string *error);

}  // namespace preprocess_cli

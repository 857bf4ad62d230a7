/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the fused preprocessing kernel's launch API (GStreamer-free, no CUDA headers).
 *
 * One call turns a video frame (or several crops of it) into the DLA's input tensor in one kernel
 * launch: sample the planes, crop, resize, YUV->RGB, mean/std, FP16 or INT8, written as whole
 * vectors in the tensor view's layout. reference() is the CPU definition of correctness with the
 * same signature; launch() must agree with it to 1 FP16 ulp / 1 INT8 step.
 *
 * Conventions (docs/architecture.md section 7; pinned by tests/kernels/preprocess_golden_test.cpp and
 * checked against Pillow/torchvision by tests/kernels/preprocess_oracle.py):
 *  - Coordinates are continuous with pixel i covering [i, i+1) (half-pixel centres). Output pixel
 *    o of an axis is virtual pixel v = o + off of the crop resized to R pixels; it samples the
 *    source at centre c = crop.x + (v + 0.5) * crop.width / R.
 *  - Resize: a triangle filter normalised over its taps, taps limited to the crop rectangle (crop
 *    first, then resize, as torchvision's resized_crop and Pillow's crop().resize()). Support is 1
 *    pixel (plain bilinear with edge clamp) or, with antialias and a downscale factor s > 1, s
 *    pixels (Pillow's and torchvision's antialias=True).
 *  - 4:2:0 chroma is resampled on its own plane: luma centre c maps to chroma c/2 (centred siting)
 *    or c/2 + 0.25 (co-sited), support halved; chroma taps are limited to the chroma samples that
 *    own a luma pixel of the crop. Planes are resized first, then converted to RGB and clamped to
 *    [0, 255] (an 8-bit decoder's output, unrounded).
 *  - YUV -> RGB from Kr/Kb of the matrix; limited range Y 16..235, C 16..240; full range 0..255.
 *  - value = (rgb / 255 - mean[c]) / std[c] in float, with c the tensor channel (after the channel
 *    order is applied), rounded once to FP16, or INT8 = round-half-even(value / int8_scale)
 *    saturated to [-128, 127].
 *  - Stretch: R = tensor size, off = 0.
 *  - Letterbox: display aspect = crop.width * par_n : crop.height * par_d; the long axis gets the
 *    tensor size, the other round-half-up(exact rational) pixels (at least 1), placed at
 *    floor((tensor - content) / 2). Other pixels hold pad_rgb (an RGB pixel value, normalised).
 *  - Center-crop: S = floor(tensor / crop_fraction) per axis (timm's crop_pct; 224 / 0.875 = 256 =
 *    Resize(256)); the crop's display shape covers S x S with the short axis exactly S and the long
 *    axis floor(S * long / short) (torchvision's Resize); off = round-half-even((R - tensor) / 2)
 *    (torchvision's CenterCrop uses Python's round).
 *  - Every byte of each written batch slot is written: pad lanes, pad channels and row tails are
 *    zero. Batch slots no ROI names are left untouched.
 */
#pragma once

#include <cstdint>
#include <string>

#include "common/crop_geometry.h"
#include "common/tensor_layout.h"

namespace preprocess {

enum class PixelFormat { kNV12, kI420, kRGBA, kBGRA, kRGBx, kBGRx };
enum class Matrix { kBT601, kBT709, kBT2020 };
enum class Range { kLimited, kFull };
enum class ResizeMode { kStretch, kLetterbox, kCenterCrop };
enum class ChannelOrder { kRGB, kBGR };

/* Where the source pixels live: pitched linear memory (planes, pitches), or one texture object per
 * plane (cudaTextureObject_t: a Jetson block-linear surface's CUDA arrays, docs/nvmm.md 5) read
 * with point sampling at texel centres, unnormalised coordinates, 8-bit elements (NV12: Y one
 * channel, UV two; packed RGB four), so the same kernel sees the same values either way. */
enum class SourceKind { kPitched, kTexture };

/* A frame in device memory (host memory for reference()). Planes: NV12 Y, UV; I420 Y, U, V;
 * packed RGB formats one plane of 4 bytes per pixel. Pitches in bytes. */
struct SourceView {
  PixelFormat format;
  int width, height;
  const void *planes[3];
  int64_t pitches[3];
  bool chroma_cosited_h, chroma_cosited_v; /* 4:2:0 siting; false = centred */
  Matrix matrix;
  Range range;
  SourceKind kind = SourceKind::kPitched;
  unsigned long long textures[3] = {0, 0, 0}; /* kTexture: per plane, as planes[] */
};

/* A rectangle in source (luma) pixels; width or height 0 = the whole frame. */
struct Rect {
  int x, y, width, height;
};

struct Params {
  Rect crop; /* used when no ROIs are given */
  ResizeMode mode;
  float crop_fraction; /* center-crop only, in [0.01, 1] */
  int par_n, par_d;    /* source pixel aspect ratio, letterbox only */
  uint8_t pad_rgb[3];  /* letterbox pad as an R, G, B pixel value */
  bool antialias;
  float mean[3], std[3]; /* per tensor channel */
  float int8_scale;      /* INT8 tensors: value = q * int8_scale */
  ChannelOrder order;
};

/* Stretch the whole frame, antialias on, x / 255, crop fraction 0.875, PAR 1/1, pad 0, RGB. */
Params default_params ();

/* One crop of the frame into one batch slot. */
struct Roi {
  Rect crop;
  int batch_index;
};

/* The most ROIs one launch takes (they travel as kernel parameters). */
constexpr int kMaxRois = 64;

/* Objects (secondary classification): any number of crops of one frame, each into batch item
 * `batch_index` of its own tensor (all tensors with one view), in ONE launch. The crops travel in
 * a device array the caller owns (a task slot's), filled from plan_objects' host entries, not as
 * kernel parameters: the launch's parameters depend on the frame, the view, the parameters and
 * object_slots (n) only, so it is replayed from a CUDA graph whatever the boxes. Same conventions
 * as launch () with the crop as a ROI. */
struct ObjectRoi {
  Rect crop;
  void *dst_ptr;
  int batch_index;
};

/* The most objects one launch takes (the element's per-frame cap; bounds the entry array). */
constexpr int kMaxObjects = 1024;

/* Entries a launch of n objects reads: the next power of two (blanks after the n objects), so a
 * count repeats its launch. */
int object_slots (int n);
/* Bytes of one entry: the array holds object_slots (n) of them (kMaxObjects at most). */
size_t object_entry_bytes ();

enum class Status { kOk, kInvalidArgument, kUnsupported, kCudaError };

const char *status_name (Status s);

/* Fills dst (a tensor with c = 3 in any layout/type pair the layout header allows) from src on
 * `stream` (a cudaStream_t; nullptr = legacy default stream). n_rois 0 = p.crop into batch slot 0.
 * One kernel launch; argument errors return before it, with the reason in *error. */
Status launch (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
               const Roi *rois, int n_rois, void *stream, std::string *error = nullptr);

/* Fills `host_entries` (object_slots (n) x object_entry_bytes ()) for n objects, checking each as
 * launch () would; nothing is launched. */
Status plan_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                     const ObjectRoi *objects, int n, void *host_entries, std::string *error = nullptr);

/* One launch over the n objects whose entries (plan_objects') are at `device_entries` by the time
 * the launch runs on `stream` (copied there on the same stream). */
Status launch_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                       const void *device_entries, int n, void *stream, std::string *error = nullptr);

/* Where the pixels of a tensor made from `crop` of `src` (width or height 0: to the frame's edge)
 * come from, per axis, as launch () samples them: what maps a result in tensor coordinates (a
 * detection's box) back to frame pixels (geometry::to_frame). The same checks as launch () of the
 * frame's size, the crop and the parameters (not of planes or the tensor's pointer and channels);
 * nothing is launched. */
Status frame_geometry (const SourceView &src, const tensor::View &dst, const Params &p, const Rect &crop,
                       geometry::Axis *x, geometry::Axis *y, std::string *error = nullptr);

/* The same on host memory; `stream` is ignored. */
Status reference (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
                  const Roi *rois, int n_rois, void *stream, std::string *error = nullptr);

}  // namespace preprocess

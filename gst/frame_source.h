/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: from GStreamer's description of a frame to the kernel's SourceView.
 *
 * The format, chroma siting, colour matrix and range come from the negotiated GstVideoInfo; plane
 * pointers and pitches come from each mapped frame (its GstVideoMeta), never from caps arithmetic.
 * Frames in system memory are packed into the upload staging buffer here. */
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/preprocess.h"
#include "nvmm/surface_check.h"

namespace dlainfer {

/* Where the caps say frames live: system memory, GstCudaMemory, or Jetson NVMM surfaces. */
enum class FrameMemory { kSystem, kCuda, kNvmm };
constexpr const char *kNvmmFeature = "memory:NVMM";
FrameMemory frame_memory (const GstCaps *caps);
const char *frame_memory_name (FrameMemory m);

/* A copy of `caps` (borrowed) with its memory:NVMM structures first, each part in its order. */
GstCaps *nvmm_first (const GstCaps *caps);

/* memory:NVMM caps: NV12 or RGBA (docs/nvmm.md 3); *why gets the refusal with the way out. */
bool nvmm_format (const GstVideoInfo *info, nvmm::Format *out, std::string *why);

/* Whether caps describe video the element can take; *why gets the reason when not. */
bool caps_supported (const GstVideoInfo *info, std::string *why);

/* The frame-independent part of the source view (format, size, siting, matrix, range). */
bool source_template (const GstVideoInfo *info, preprocess::SourceView *view, std::string *why);

/* Plane pointers and pitches of a frame mapped with GST_MAP_CUDA (device pointers). */
void set_planes (const GstVideoFrame *frame, preprocess::SourceView *view);

/* Bytes the staging buffer needs for a frame in system memory with the given strides. */
size_t staging_bytes (const GstVideoFrame *frame);
size_t staging_bytes (const GstVideoInfo *info);

/* Copies a system-memory frame's planes into `host` (staging_bytes(frame) long) and points the
 * view's planes at the same offsets from `device`, where the upload will put them. */
void pack_planes (const GstVideoFrame *frame, uint8_t *host, const uint8_t *device,
                  preprocess::SourceView *view);

}  // namespace dlainfer

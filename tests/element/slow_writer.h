/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <cstdint>

/* Fills an NV12 frame with one colour on `stream` (a cudaStream_t), every thread first spinning
 * for `spin_cycles`: a slow producer, so a reader not ordered after it reads the previous frame. */
int slow_fill_nv12 (uint8_t *y, int64_t y_pitch, uint8_t *uv, int64_t uv_pitch, int width, int height,
                    uint8_t Y, uint8_t U, uint8_t V, long long spin_cycles, void *stream);

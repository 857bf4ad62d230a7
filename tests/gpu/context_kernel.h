/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <cstdint>

/* Copies a pitched 8-bit plane into a packed one on `stream` (a cudaStream_t). */
int context_test_copy_plane (const uint8_t *src, int64_t pitch, int width, int height, uint8_t *dst,
                             void *stream);

/* Fills a pitched 8-bit plane with `value` on `stream`, each thread first spinning for
 * `spin_cycles` clock cycles: a slow writer, so a reader that is not ordered after it sees stale data. */
int context_test_slow_fill (uint8_t *dst, int64_t pitch, int width, int height, uint8_t value,
                            long long spin_cycles, void *stream);

#pragma once
#include <cstdint>

/* Copies a pitched 8-bit plane into a packed one on `stream` (a cudaStream_t). */
int context_test_copy_plane (const uint8_t *src, int64_t pitch, int width, int height, uint8_t *dst, void *stream);

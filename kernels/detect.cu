/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cstdint>

#include "common/detect_math.h"
#include "kernels/detect_device.h"

namespace detect {
namespace {

constexpr int kDecodeThreads = 256;
constexpr int kNmsThreads = 1024;
constexpr size_t kAlign = 256;
static_assert (kMaxCandidates <= 4096, "the sort key holds a 12-bit slot");

size_t align_up (size_t v)
{
  return (v + kAlign - 1) / kAlign * kAlign;
}

struct Workspace {
  Plan *plan;
  int32_t *counter;
  Candidate *candidates, *sorted;
  uint64_t *mask; /* max_candidates rows of ceil (max_candidates / 64) words */
};

size_t candidate_bytes (const Plan &p)
{
  return align_up (size_t (p.max_candidates) * sizeof (Candidate));
}

size_t mask_bytes (const Plan &p)
{
  return size_t (p.max_candidates) * size_t ((p.max_candidates + 63) / 64) * sizeof (uint64_t);
}

Workspace carve (const Plan &p, void *base)
{
  auto *b = static_cast<uint8_t *> (base);
  const size_t plan_bytes = align_up (sizeof (Plan)), cands = candidate_bytes (p);
  uint8_t *c = b + plan_bytes + kAlign;
  return Workspace{reinterpret_cast<Plan *> (b), reinterpret_cast<int32_t *> (b + plan_bytes),
                   reinterpret_cast<Candidate *> (c), reinterpret_cast<Candidate *> (c + cands),
                   reinterpret_cast<uint64_t *> (c + 2 * cands)};
}

/* One thread per candidate; the few that pass are appended (bounded, all counted). */
__global__ void __launch_bounds__ (kDecodeThreads)
    decode_kernel (const Plan *__restrict__ p, const Frame f, int32_t *counter, Candidate *out)
{
  const int32_t i = int32_t (blockIdx.x) * kDecodeThreads + int32_t (threadIdx.x);
  if (i >= p->candidates)
    return;
  Candidate c;
  if (!decode_candidate (*p, f, i, &c))
    return;
  const int32_t k = atomicAdd (counter, 1);
  if (k < p->max_candidates)
    out[k] = c;
}

/* Score descending, then index ascending (the reference's order), then the buffer slot. */
__device__ __forceinline__ uint64_t sort_key (const Candidate &c, int slot)
{
  return (uint64_t (~__float_as_uint (c.score)) << 32) | (uint64_t (c.index) << 12) | uint64_t (slot);
}

__device__ void bitonic_sort (uint64_t *keys, int n)
{
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = int (threadIdx.x); i < n; i += kNmsThreads) {
        const int o = i ^ j;
        if (o > i) {
          const uint64_t a = keys[i], b = keys[o];
          if ((a > b) == ((i & k) == 0)) {
            keys[i] = b;
            keys[o] = a;
          }
        }
      }
      __syncthreads ();
    }
  }
}

/* The sorted candidates' suppression bits: row i, word w holds "i suppresses j" for the 64 j of
 * word w with j > i. */
__device__ void suppression_matrix (const Plan &p, const Candidate *sorted, int n, int words, uint64_t *mask)
{
  for (int t = int (threadIdx.x); t < n * words; t += kNmsThreads) {
    const int i = t / words, w = t - i * words;
    uint64_t bits = 0;
    if (w * 64 + 63 > i) {
      const Candidate a = sorted[i];
      const int j1 = w * 64 + 64 < n ? w * 64 + 64 : n;
      for (int j = (w * 64 > i ? w * 64 : i + 1); j < j1; ++j)
        if (suppresses (p, a, sorted[j]))
          bits |= uint64_t (1) << (j - w * 64);
    }
    mask[size_t (i) * size_t (words) + size_t (w)] = bits;
  }
}

/* Greedy NMS over the matrix by one warp, 64 sorted candidates at a time: a chunk's decisions need
 * only its diagonal words (shuffled, no memory on the serial path); then the kept rows' later words
 * are ORed in with independent loads. Lane k holds the removed bits of words k and k + 32. */
__device__ void greedy_scan (const Plan &p, const Frame &f, const Candidate *sorted, const uint64_t *mask,
                             int n, int words, Result *res)
{
  const unsigned all = 0xffffffffu;
  const int lane = int (threadIdx.x);
  uint64_t rem0 = 0, rem1 = 0;
  int count = 0;
  for (int w = 0; w < words && count < p.max_detections; ++w) {
    const int r0 = w * 64 + lane, r1 = r0 + 32;
    const uint64_t d0 = r0 < n ? mask[size_t (r0) * size_t (words) + size_t (w)] : 0;
    const uint64_t d1 = r1 < n ? mask[size_t (r1) * size_t (words) + size_t (w)] : 0;
    uint64_t cur = __shfl_sync (all, (w >> 5) == 0 ? rem0 : rem1, w & 31), kept = 0;
    const int rows = n - w * 64 < 64 ? n - w * 64 : 64, before = count;
    for (int b = 0; b < rows && count < p.max_detections; ++b) {
      const uint64_t db = __shfl_sync (all, b < 32 ? d0 : d1, b & 31);
      if (!((cur >> b) & 1)) {
        kept |= uint64_t (1) << b;
        cur |= db;
        ++count;
      }
    }
    for (int b = lane; b < 64; b += 32)
      if ((kept >> b) & 1)
        res->detections[before + __popcll (kept & ((uint64_t (1) << b) - 1))] =
            to_detection (f, sorted[w * 64 + b]);
    for (uint64_t k = kept; k; k &= k - 1) {
      const size_t row = size_t (w * 64 + __ffsll ((long long)k) - 1) * size_t (words);
      rem0 |= lane < words ? mask[row + size_t (lane)] : 0;
      rem1 |= lane + 32 < words ? mask[row + size_t (lane) + 32] : 0;
    }
  }
  if (lane == 0)
    res->count = count;
}

/* One block: sort the kept candidates by score, build the suppression matrix, scan it. */
__global__ void __launch_bounds__ (kNmsThreads)
    nms_kernel (const Plan *__restrict__ p, const Frame f, int32_t *counter, const Candidate *cands,
                Candidate *sorted, uint64_t *mask, Result *res)
{
  __shared__ uint64_t keys[kMaxCandidates];
  const int tid = int (threadIdx.x);
  const int32_t passed = *counter;
  const int n = passed < p->max_candidates ? passed : p->max_candidates;
  int size = 1;
  while (size < n)
    size <<= 1;
  for (int i = tid; i < size; i += kNmsThreads)
    keys[i] = i < n ? sort_key (cands[i], i) : ~uint64_t (0);
  __syncthreads ();
  bitonic_sort (keys, size);
  for (int r = tid; r < n; r += kNmsThreads)
    sorted[r] = cands[keys[r] & 0xfffu];
  __syncthreads ();
  const int words = (n + 63) / 64;
  suppression_matrix (*p, sorted, n, words, mask);
  __syncthreads ();
  if (tid >= 32)
    return;
  greedy_scan (*p, f, sorted, mask, n, words, res);
  if (tid == 0) {
    res->candidates = passed;
    res->dropped = passed > p->max_candidates ? passed - p->max_candidates : 0;
    res->reserved = 0;
    *counter = 0; /* ready for the next frame on this stream */
  }
}

}  // namespace

size_t workspace_bytes (const Plan &plan)
{
  return align_up (sizeof (Plan)) + kAlign + 2 * candidate_bytes (plan) + mask_bytes (plan);
}

cudaError_t prepare_workspace (const Plan &plan, void *workspace)
{
  const Workspace w = carve (plan, workspace);
  cudaError_t e = cudaMemcpy (w.plan, &plan, sizeof (Plan), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemset (w.counter, 0, sizeof (int32_t));
  return e;
}

cudaError_t decode_device (const Plan &plan, const Frame &frame, void *workspace, Result *result,
                           cudaStream_t stream)
{
  const Workspace w = carve (plan, workspace);
  const unsigned blocks = unsigned ((plan.candidates + kDecodeThreads - 1) / kDecodeThreads);
  if (blocks > 0)
    decode_kernel<<<blocks, kDecodeThreads, 0, stream>>> (w.plan, frame, w.counter, w.candidates);
  cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return e;
  nms_kernel<<<1, kNmsThreads, 0, stream>>> (w.plan, frame, w.counter, w.candidates, w.sorted, w.mask,
                                             result);
  return cudaGetLastError ();
}

}  // namespace detect

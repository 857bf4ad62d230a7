/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cstdint>

#include "common/detect_math.h"
#include "kernels/detect_device.h"

namespace detect {
namespace {

constexpr int kDecodeThreads = 256;
/* Shared memory of a decode block's staging rooms with groups of 8 lanes (else 32). */
constexpr size_t kStageShared = size_t (32) << 10;
constexpr int kNmsThreads = 1024;
/* Suppression-matrix words an NMS block builds at most (when the multiprocessors suffice). */
constexpr int64_t kNmsTasks = 128;
/* Matrix words the first NMS block builds alone rather than the grid: one block's box tests grow
 * with n^2 (11.5 us at 297 candidates on an H100, against 6.4 us for the grid's and its round trip). */
constexpr int kAloneTasks = 256;
constexpr size_t kAlign = 256;
/* Suppression matrices up to this size stay in the NMS kernel's shared memory (n <= 604). */
constexpr size_t kMaskShared = size_t (48) << 10;
static_assert (kMaxCandidates <= 4096, "the sort key holds a 12-bit slot");

size_t align_up (size_t v)
{
  return (v + kAlign - 1) / kAlign * kAlign;
}

struct Workspace {
  Plan *plan;
  int32_t *counter; /* candidates passed; then the NMS blocks done */
  Candidate *candidates;
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
                   reinterpret_cast<Candidate *> (c), reinterpret_cast<uint64_t *> (c + cands)};
}

/* A candidate's channels staged in its lane group's shared memory ([obj][classes][box fields]), its
 * best class already found by the group (stage_candidate): the math of common/detect_math.h over
 * them. */
struct StagedSource {
  const float *v;
  int classes;
  int best;
  float top;
  __device__ float obj () const { return v[0]; }
  __device__ float cls (int c) const { return v[1 + c]; }
  __device__ float box (int k) const { return v[1 + classes + k]; }
  __device__ int best_class (float *t) const
  {
    *t = top;
    return best;
  }
};

/* A group of G lanes loads candidate `w`'s channels into `v` (lane-strided: coalesced within a
 * channel group) and finds its best class: each lane the first maximum of its channels, then the
 * lowest channel among equal maxima, which is best_class_in's answer (max is exact, so the order of
 * the reduction does not matter). Every lane of the warp calls it (the shuffles); a group without a
 * candidate (`have` false) loads nothing. */
template <int G>
__device__ void stage_candidate (const Plan &p, const Frame &f, const Where &w, bool have, float *v,
                                 StagedSource *s)
{
  const unsigned all = 0xffffffffu;
  const int sub = int (threadIdx.x) & (G - 1);
  const Level &l = p.level[w.level];
  const TensorSource t{p, f, l, w.a, w.y, w.x};
  int best = -1;
  float m = 0.f;
  if (have) {
    if (sub == 0 && l.obj.output >= 0)
      v[0] = t.obj ();
    for (int c = sub; c < p.classes; c += G) {
      const float x = t.cls (c);
      v[1 + c] = x;
      if (c != p.background && (best < 0 || x > m)) {
        m = x;
        best = c;
      }
    }
    for (int k = sub; k < box_fields (p); k += G)
      v[1 + p.classes + k] = t.box (k);
  }
  for (int d = G / 2; d > 0; d >>= 1) {
    const float om = __shfl_xor_sync (all, m, d, G);
    const int ob = __shfl_xor_sync (all, best, d, G);
    if (ob >= 0 && (best < 0 || om > m || (om == m && ob < best))) {
      m = om;
      best = ob;
    }
  }
  __syncwarp ();
  *s = StagedSource{v, p.classes, best, best < 0 ? 0.f : m};
}

/* The block's copy of the plan: one round of parallel loads instead of a chain of dependent global
 * reads (level, then field, then view, then data) on every warp's path. */
__device__ void copy_plan (const Plan *__restrict__ src, Plan *dst)
{
  static_assert (sizeof (Plan) % sizeof (uint2) == 0, "the plan is copied in 8-byte words");
  const auto *s = reinterpret_cast<const uint2 *> (src);
  auto *d = reinterpret_cast<uint2 *> (dst);
  for (int k = int (threadIdx.x); k < int (sizeof (Plan) / sizeof (uint2)); k += int (blockDim.x))
    d[k] = s[k];
}

/* Starts the loads of candidate `w`'s channels into L1 without waiting for them (a group's staging
 * loads then overlap instead of queuing one latency after another). */
template <int G>
__device__ void prefetch_candidate (const Plan &p, const Frame &f, const Where &w)
{
  const int sub = int (threadIdx.x) & (G - 1);
  const Level &l = p.level[w.level];
  for (int c = sub; c < p.classes; c += G)
    asm volatile("prefetch.global.L1 [%0];" ::"l"(
        channel_address (p, f, l.cls.output, l.cls.channel0 + w.a * l.cls.anchor_stride + c, w.y, w.x)));
  for (int k = sub; k < box_fields (p); k += G)
    asm volatile("prefetch.global.L1 [%0];" ::"l"(
        channel_address (p, f, l.box.output, l.box.channel0 + w.a * l.box.anchor_stride + k, w.y, w.x)));
}

/* Appends the warp's passing candidates with one atomic (bounded, all counted). */
__device__ void append (const Plan &p, bool pass, const Candidate &c, int32_t *counter, Candidate *out)
{
  const unsigned all = 0xffffffffu;
  const int lane = int (threadIdx.x) & 31;
  const unsigned won = __ballot_sync (all, pass);
  if (won == 0)
    return;
  const int leader = __ffs (int (won)) - 1;
  int32_t base = 0;
  if (lane == leader)
    base = atomicAdd (counter, __popc (won));
  base = __shfl_sync (all, base, leader);
  const int32_t k = base + __popc (won & ((1u << lane) - 1u));
  if (pass && k < p.max_candidates)
    out[k] = c;
}

/* A block's survivors of the logit test are decoded by its lane groups in at most this many
 * rounds; a block with more (heads without objectness) decodes a thread per candidate. */
constexpr int kStagedRounds = 4;

/* The block's listed survivors decoded by its groups of G lanes, one survivor a group, all groups
 * at once: a group's channel loads run in parallel across its lanes instead of a class loop in one
 * thread. `stage` holds a room of `stage_floats` for each group. */
template <int G>
__device__ void decode_listed (const Plan &p, const Frame &f, const int32_t *survivors, int n, float *stage,
                               int stage_floats, int32_t *counter, Candidate *out)
{
  constexpr int kGroups = kDecodeThreads / G;
  const int group = int (threadIdx.x) / G;
  float *v = stage + size_t (group) * size_t (stage_floats);
  for (int k = group; k < n; k += kGroups)
    prefetch_candidate<G> (p, f, where_of (p, survivors[k]));
  for (int r = 0; r < n; r += kGroups) {
    const bool have = r + group < n;
    const int32_t si = have ? survivors[r + group] : 0;
    const Where sw = where_of (p, si);
    StagedSource s;
    stage_candidate<G> (p, f, sw, have, v, &s);
    Candidate c;
    const bool pass = have && (threadIdx.x & (G - 1)) == 0 && decode_from (p, s, si, sw, &c);
    __syncwarp ();
    append (p, pass, c, counter, out);
  }
}

/* One thread per candidate. The deciding logit of objectness heads rejects nearly all of them with
 * one load; the block's few survivors are listed in shared memory and spread over its warps, a
 * warp each while there are no more than warps (the usual case), else over groups of G lanes, so
 * that no warp takes its own survivors one after another. */
template <int G>
__global__ void __launch_bounds__ (kDecodeThreads)
    decode_kernel (const Plan *__restrict__ pp, const Frame f, int stage_floats, int32_t *counter,
                   Candidate *out)
{
  constexpr int kWarps = kDecodeThreads / 32;
  extern __shared__ float stage[];
  __shared__ Plan plan;
  __shared__ int32_t survivors[kDecodeThreads];
  __shared__ int listed;
  const unsigned all = 0xffffffffu;
  const int lane = int (threadIdx.x) & 31;
  if (threadIdx.x == 0)
    listed = 0;
  copy_plan (pp, &plan);
  __syncthreads ();
  const Plan &p = plan;
  const int32_t i = int32_t (blockIdx.x) * kDecodeThreads + int32_t (threadIdx.x);
  const bool in = i < p.candidates;
  const Where w = in ? where_of (p, i) : Where{0, 0, 0, 0};
  bool pending = in;
  if (in && (p.scores == Scores::kObjSigmoid || p.scores == Scores::kObjSoftmax))
    pending = field_at (p, f, p.level[w.level].obj, w.a, 0, w.y, w.x) > p.min_logit;
  const unsigned todo = __ballot_sync (all, pending);
  int base = 0;
  if (lane == 0 && todo != 0)
    base = atomicAdd (&listed, __popc (todo));
  base = __shfl_sync (all, base, 0);
  if (pending)
    survivors[base + __popc (todo & ((1u << lane) - 1u))] = i;
  __syncthreads ();
  const int n = listed;
  if (n == 0)
    return;
  if (n > kDecodeThreads / G * kStagedRounds) {
    Candidate c;
    const bool pass =
        pending && decode_from (p, TensorSource{p, f, p.level[w.level], w.a, w.y, w.x}, i, w, &c);
    append (p, pass, c, counter, out);
  } else if (n <= kWarps) {
    decode_listed<32> (p, f, survivors, n, stage, stage_floats, counter, out);
  } else {
    decode_listed<G> (p, f, survivors, n, stage, stage_floats, counter, out);
  }
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

/* The sorted candidates' boxes, classes and buffer slots, in each NMS block's shared memory. */
struct SortedBoxes {
  float4 *box;
  int32_t *cls;
  uint16_t *slot;
  __device__ Candidate at (int i) const
  {
    const float4 b = box[i];
    return Candidate{b.x, b.y, b.z, b.w, 0.f, cls[i], 0, 0};
  }
};

/* Share `share` of `shares` of the sorted candidates' suppression bits: row i, word w holds "i
 * suppresses j" for the 64 j of word w with j > i; task t is (i, w) = (t / words, t % words). */
__device__ void suppression_rows (const Plan &p, const SortedBoxes &sb, int n, int words, int share,
                                  int shares, uint64_t *mask)
{
  const int tasks = n * words, per = (tasks + shares - 1) / shares;
  const int t1 = (share + 1) * per < tasks ? (share + 1) * per : tasks;
  for (int t = share * per + int (threadIdx.x); t < t1; t += kNmsThreads) {
    const int i = t / words, w = t - i * words;
    uint64_t bits = 0;
    if (w * 64 + 63 > i) {
      const Candidate a = sb.at (i);
      const int j1 = w * 64 + 64 < n ? w * 64 + 64 : n;
      for (int j = (w * 64 > i ? w * 64 : i + 1); j < j1; ++j)
        if (suppresses (p, a, sb.at (j)))
          bits |= uint64_t (1) << (j - w * 64);
    }
    mask[size_t (t)] = bits;
  }
}

/* The 64-bit OR of `v` over the warp. */
__device__ __forceinline__ uint64_t warp_or (uint64_t v)
{
  for (int d = 16; d > 0; d >>= 1)
    v |= __shfl_xor_sync (0xffffffffu, v, d);
  return v;
}

/* The rows (in-chunk words) of the candidates of `set` ORed over the warp: lane k holds rows k and
 * k + 32 of the chunk in `d0`, `d1`. */
__device__ __forceinline__ uint64_t rows_of (uint64_t set, uint64_t d0, uint64_t d1)
{
  const int lane = int (threadIdx.x) & 31;
  return warp_or (((set >> lane) & 1 ? d0 : 0) | ((set >> (lane + 32)) & 1 ? d1 : 0));
}

/* Rounds of the parallel decision before one chunk's open candidates are taken one by one. */
constexpr int kParallelRounds = 3;

/* Greedy NMS within one chunk of 64 sorted candidates: those of `open` (not removed by earlier
 * chunks) that greedy keeps. A round keeps every open candidate that no open or kept one suppresses
 * (whatever is decided above it, nothing can remove it) and removes what those suppress: the first
 * open candidate is always decided, and a few rounds settle chunks of mostly disjoint boxes. A long
 * chain of overlaps is finished one candidate at a time, as greedy runs. */
__device__ uint64_t chunk_greedy (uint64_t open, uint64_t d0, uint64_t d1)
{
  const unsigned all = 0xffffffffu;
  uint64_t kept = 0;
  for (int r = 0; r < kParallelRounds && open != 0; ++r) {
    const uint64_t sure = open & ~rows_of (open | kept, d0, d1);
    kept |= sure;
    open &= ~sure & ~rows_of (sure, d0, d1);
  }
  while (open != 0) {
    const int b = __ffsll ((long long)open) - 1;
    kept |= uint64_t (1) << b;
    open &= ~(uint64_t (1) << b) & ~__shfl_sync (all, b < 32 ? d0 : d1, b & 31);
  }
  return kept;
}

/* The first `room` (>= 1) candidates of `kept`. */
__device__ uint64_t first_of (uint64_t kept, int room)
{
  if (__popcll (kept) <= room)
    return kept;
  int below = 0; /* the longest prefix holding fewer than `room` */
  for (int step = 32; step > 0; step >>= 1)
    if (__popcll (kept & ((uint64_t (1) << (below + step)) - 1)) < room)
      below += step;
  return below == 63 ? kept : kept & ((uint64_t (1) << (below + 1)) - 1);
}

/* Greedy NMS over the matrix by one warp, 64 sorted candidates (a chunk) at a time: what the rows
 * kept so far remove from the chunk (their word of it, a row per lane), then the chunk's own
 * decisions from its diagonal words (chunk_greedy). The kept rows are listed in `kept_rows`;
 * returns their count. */
__device__ int greedy_scan (const Plan &p, const uint64_t *mask, int n, int words, int16_t *kept_rows)
{
  const int lane = int (threadIdx.x);
  const int max = p.max_detections;
  int count = 0;
  for (int w = 0; w < words && count < max; ++w) {
    const int r0 = w * 64 + lane, r1 = r0 + 32;
    const uint64_t d0 = r0 < n ? mask[size_t (r0) * size_t (words) + size_t (w)] : 0;
    const uint64_t d1 = r1 < n ? mask[size_t (r1) * size_t (words) + size_t (w)] : 0;
    uint64_t removed = 0;
    for (int k = lane; k < count; k += 32)
      removed |= mask[size_t (kept_rows[k]) * size_t (words) + size_t (w)];
    removed = warp_or (removed);
    const int rows = n - w * 64 < 64 ? n - w * 64 : 64;
    const uint64_t valid = rows == 64 ? ~uint64_t (0) : (uint64_t (1) << rows) - 1;
    const uint64_t kept = first_of (chunk_greedy (~removed & valid, d0, d1), max - count);
    for (int b = lane; b < 64; b += 32)
      if ((kept >> b) & 1)
        kept_rows[count + __popcll (kept & ((uint64_t (1) << b) - 1))] = int16_t (w * 64 + b);
    count += __popcll (kept);
    __syncwarp ();
  }
  return count;
}

/* Up to one candidate a thread: each counts the keys below its own (they are unique) and puts its
 * candidate at that rank. One pass and one barrier, against the bitonic network's log^2 barriers. */
__device__ void rank_sort (const Candidate *cands, int n, uint64_t *keys, const SortedBoxes &sb)
{
  const int tid = int (threadIdx.x);
  Candidate c{};
  if (tid < n) {
    c = cands[tid];
    keys[tid] = sort_key (c, tid);
  }
  __syncthreads ();
  if (tid >= n)
    return;
  const uint64_t key = keys[tid];
  int r0 = 0, r1 = 0, r2 = 0, r3 = 0, j = 0;
  for (; j + 4 <= n; j += 4) {
    r0 += keys[j] < key;
    r1 += keys[j + 1] < key;
    r2 += keys[j + 2] < key;
    r3 += keys[j + 3] < key;
  }
  for (; j < n; ++j)
    r0 += keys[j] < key;
  const int r = r0 + r1 + r2 + r3;
  sb.box[r] = make_float4 (c.x0, c.y0, c.x1, c.y1);
  sb.cls[r] = c.cls;
  sb.slot[r] = uint16_t (tid);
}

/* More candidates than threads: a bitonic sort of the keys, then the gather. */
__device__ void bitonic_gather (const Candidate *cands, int n, uint64_t *keys, const SortedBoxes &sb)
{
  const int tid = int (threadIdx.x);
  const int size = 1 << (32 - __clz (n - 1));
  for (int i = tid; i < size; i += kNmsThreads)
    keys[i] = i < n ? sort_key (cands[i], i) : ~uint64_t (0);
  __syncthreads ();
  bitonic_sort (keys, size);
  for (int r = tid; r < n; r += kNmsThreads) {
    const uint16_t slot = uint16_t (keys[r] & 0xfffu);
    const Candidate c = cands[slot];
    sb.box[r] = make_float4 (c.x0, c.y0, c.x1, c.y1);
    sb.cls[r] = c.cls;
    sb.slot[r] = slot;
  }
}

/* Dynamic shared memory of an NMS block: the sorted boxes, classes and slots, then the sort keys,
 * whose room the last block reuses for the suppression matrix when it fits (kMaskShared bytes at
 * most; else the scan reads it from the workspace). */
struct NmsShared {
  size_t box, cls, slot, scratch, total;
};

int pow2_at_least (int n)
{
  int size = 1;
  while (size < n)
    size <<= 1;
  return size;
}

NmsShared nms_shared (const Plan &p)
{
  const size_t m = size_t (p.max_candidates);
  NmsShared s;
  s.box = 0;
  s.cls = m * sizeof (float4);
  s.slot = s.cls + m * sizeof (int32_t);
  s.scratch = (s.slot + m * sizeof (uint16_t) + 15) / 16 * 16;
  const size_t keys = size_t (pow2_at_least (p.max_candidates)) * sizeof (uint64_t);
  const size_t mask = mask_bytes (p) < kMaskShared ? mask_bytes (p) : kMaskShared;
  s.total = s.scratch + (keys > mask ? keys : mask);
  return s;
}

/* The grid's shares of the suppression matrix, written to `global_mask`; false in every block but
 * the last to finish, which then has the whole matrix at *mask: in `room` (shared) when it fits. */
__device__ bool all_rows (const Plan &p, const SortedBoxes &sb, int n, int words, const NmsShared &sh,
                          int32_t *counter, uint64_t *global_mask, uint64_t *room, const uint64_t **mask)
{
  __shared__ bool last;
  const int tid = int (threadIdx.x);
  suppression_rows (p, sb, n, words, int (blockIdx.x), int (gridDim.x), global_mask);
  __threadfence ();
  __syncthreads ();
  if (tid == 0)
    last = atomicAdd (counter + 1, 1) == int (gridDim.x) - 1;
  __syncthreads ();
  if (!last)
    return false;
  __threadfence ();
  const size_t cells = size_t (n) * size_t (words);
  *mask = global_mask;
  if (cells * sizeof (uint64_t) <= sh.total - sh.scratch) {
    for (size_t t = size_t (tid); t < cells; t += kNmsThreads)
      room[t] =
          __ldcg (reinterpret_cast<const unsigned long long *> (global_mask) + t); /* other SMs wrote it */
    __syncthreads ();
    *mask = room;
  }
  return true;
}

/* One warp's greedy scan of the matrix, then the kept candidates written out by the whole block
 * (their loads in flight together), the counts, and the counters zeroed for the next frame. */
__device__ void scan_and_write (const Plan &p, const Frame &f, const Candidate *cands, const SortedBoxes &sb,
                                const uint64_t *mask, int n, int words, int32_t passed, int32_t *counter,
                                Result *res)
{
  __shared__ int16_t kept_rows[kMaxDetections];
  __shared__ int kept;
  const int tid = int (threadIdx.x);
  if (tid < 32) {
    const int count = greedy_scan (p, mask, n, words, kept_rows);
    if (tid == 0)
      kept = count;
  }
  __syncthreads ();
  for (int k = tid; k < kept; k += kNmsThreads)
    res->detections[k] = to_detection (f, cands[sb.slot[kept_rows[k]]]);
  if (tid == 0) {
    res->count = kept;
    res->candidates = passed;
    res->dropped = passed > p.max_candidates ? passed - p.max_candidates : 0;
    res->reserved = 0;
    counter[0] = 0;
    counter[1] = 0;
  }
}

/* Every block sorts the kept candidates by score (the same order in each: the keys are unique) and
 * builds its share of the suppression matrix; the last block to finish scans it (greedy NMS). The
 * matrix is n^2 / 2 box tests: on one multiprocessor they were most of the time. With few
 * candidates (kAloneTasks matrix words at most) the first block does it all, the matrix in its
 * shared memory: no round trip through global memory, no wait for the other blocks. */
__global__ void __launch_bounds__ (kNmsThreads)
    nms_kernel (const Plan *__restrict__ p, const Frame f, const NmsShared sh, int32_t *counter,
                const Candidate *cands, uint64_t *global_mask, Result *res)
{
  extern __shared__ __align__ (16) uint8_t smem[];
  const SortedBoxes sb{reinterpret_cast<float4 *> (smem + sh.box),
                       reinterpret_cast<int32_t *> (smem + sh.cls),
                       reinterpret_cast<uint16_t *> (smem + sh.slot)};
  uint64_t *keys = reinterpret_cast<uint64_t *> (smem + sh.scratch);
  const int32_t passed = *counter;
  const int n = passed < p->max_candidates ? passed : p->max_candidates;
  const int words = (n + 63) / 64;
  const bool alone =
      n * words <= kAloneTasks && size_t (n) * size_t (words) * sizeof (uint64_t) <= sh.total - sh.scratch;
  if (alone && blockIdx.x != 0)
    return;
  if (n <= kNmsThreads)
    rank_sort (cands, n, keys, sb);
  else
    bitonic_gather (cands, n, keys, sb);
  __syncthreads ();
  const uint64_t *mask = keys; /* the sort keys' room, free now */
  if (alone) {
    suppression_rows (*p, sb, n, words, 0, 1, keys);
    __syncthreads ();
  } else if (!all_rows (*p, sb, n, words, sh, counter, global_mask, keys, &mask)) {
    return;
  }
  scan_and_write (*p, f, cands, sb, mask, n, words, passed, counter, res);
}

/* NMS blocks: enough that each builds at most kNmsTasks matrix words of max_candidates, at most
 * one per multiprocessor (one wave: every block sorts). */
unsigned nms_blocks (const Plan &p)
{
  int device = 0, sms = 1;
  cudaGetDevice (&device);
  cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device);
  const int64_t tasks = int64_t (p.max_candidates) * ((p.max_candidates + 63) / 64);
  const int64_t want = (tasks + kNmsTasks - 1) / kNmsTasks;
  return unsigned (want < 1 ? 1 : want < sms ? want : sms);
}

/* Floats of one warp's staging room in the decode kernel. */
int stage_floats (const Plan &p)
{
  return 1 + p.classes + box_fields (p);
}

}  // namespace

size_t workspace_bytes (const Plan &plan)
{
  return align_up (sizeof (Plan)) + kAlign + candidate_bytes (plan) + mask_bytes (plan);
}

cudaError_t prepare_workspace (const Plan &plan, void *workspace)
{
  const Workspace w = carve (plan, workspace);
  cudaError_t e = cudaFuncSetAttribute (nms_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int (nms_shared (plan).total));
  if (e == cudaSuccess)
    e = cudaMemcpy (w.plan, &plan, sizeof (Plan), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemset (w.counter, 0, 2 * sizeof (int32_t));
  return e;
}

cudaError_t decode_device (const Plan &plan, const Frame &frame, void *workspace, Result *result,
                           cudaStream_t stream)
{
  const Workspace w = carve (plan, workspace);
  const unsigned blocks = unsigned ((plan.candidates + kDecodeThreads - 1) / kDecodeThreads);
  const int stage = stage_floats (plan);
  /* Groups of 8 lanes while a block's 32 staging rooms fit kStageShared; else a warp a survivor. */
  const bool narrow = size_t (kDecodeThreads / 8) * size_t (stage) * sizeof (float) <= kStageShared;
  const size_t shared = size_t (kDecodeThreads / (narrow ? 8 : 32)) * size_t (stage) * sizeof (float);
  if (blocks > 0 && narrow)
    decode_kernel<8>
        <<<blocks, kDecodeThreads, shared, stream>>> (w.plan, frame, stage, w.counter, w.candidates);
  else if (blocks > 0)
    decode_kernel<32>
        <<<blocks, kDecodeThreads, shared, stream>>> (w.plan, frame, stage, w.counter, w.candidates);
  cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return e;
  const NmsShared sh = nms_shared (plan);
  nms_kernel<<<nms_blocks (plan), kNmsThreads, sh.total, stream>>> (w.plan, frame, sh, w.counter,
                                                                    w.candidates, w.mask, result);
  return cudaGetLastError ();
}

}  // namespace detect

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a kernel launch as data: what cudaLaunchKernel takes, with the kernel's one
 * by-value parameter (its argument struct) copied in. A launch can then be compared with an earlier
 * one and replayed from a CUDA graph (launch_graphs.h). CUDA builds only. */
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "kernels/preprocess.h"

namespace preprocess {

struct alignas (16) KernelLaunch {
  const void *function; /* a __global__ function taking one parameter of param_bytes */
  dim3 grid, block;
  size_t shared_bytes;
  size_t param_bytes;
  unsigned char param[2816];
};

/* Launches `k` on `stream`; a failure is returned, not left as the thread's last error. */
inline cudaError_t start (const KernelLaunch &k, cudaStream_t stream)
{
  void *args[] = {const_cast<unsigned char *> (k.param)};
  const cudaError_t e = cudaLaunchKernel (k.function, k.grid, k.block, args, k.shared_bytes, stream);
  if (e != cudaSuccess)
    cudaGetLastError ();
  return e;
}

/* A launch of `kernel` with its one argument struct, the rest of the parameter block zero (tests and
 * benchmarks replay small kernels of their own through LaunchGraphs this way). */
template <class Args>
KernelLaunch launch_of (void (*kernel) (Args), const Args &args, dim3 grid, dim3 block)
{
  static_assert (sizeof (Args) <= sizeof (KernelLaunch::param),
                 "the argument struct must fit the parameter block");
  KernelLaunch k{};
  k.function = reinterpret_cast<const void *> (kernel);
  k.grid = grid;
  k.block = block;
  k.param_bytes = sizeof (Args);
  std::memcpy (k.param, &args, sizeof (Args));
  return k;
}

/* The launch that launch() makes for these arguments, not started. *out is zeroed first, so the
 * padding of the kernel's argument struct is zero and equal launches compare equal with memcmp
 * (bytes copied from the caller's structs, their padding included, can at worst make equal
 * launches look different: a missed replay, never a wrong one). */
Status plan_launch (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
                    const Roi *rois, int n_rois, KernelLaunch *out, std::string *error = nullptr);

/* The launch that launch_objects () makes, not started: its bytes depend on the frame, the view,
 * the parameters, the entry array's address and object_slots (n), never on the boxes (LaunchGraphs
 * replays it while those repeat). */
Status plan_objects_launch (const SourceView &src, const tensor::View &dst, const Params &p,
                            const void *device_entries, int n, KernelLaunch *out,
                            std::string *error = nullptr);

}  // namespace preprocess

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "stream_ops.h"

namespace swdla {
namespace {

__device__ uint64_t global_ns ()
{
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel (uint64_t ns)
{
  const uint64_t start = global_ns ();
  while (global_ns () - start < ns)
    __nanosleep (2000); /* one thread, mostly asleep: leaves the SMs to real work */
}

__global__ void store_kernel (volatile int32_t *word, int32_t value)
{
  *word = value;
  __threadfence_system (); /* visible to the host before later stream work completes */
}

}  // namespace

cudaError_t enqueue_spin (cudaStream_t stream, uint64_t ns)
{
  spin_kernel<<<1, 1, 0, stream>>> (ns);
  return cudaGetLastError ();
}

cudaError_t enqueue_store (cudaStream_t stream, int32_t *word, int32_t value)
{
  store_kernel<<<1, 1, 0, stream>>> (word, value);
  return cudaGetLastError ();
}

}  // namespace swdla

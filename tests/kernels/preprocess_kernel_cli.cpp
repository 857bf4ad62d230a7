/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs the preprocessing kernel itself (preprocess::launch) on a raw frame for the oracle
 * (preprocess_oracle.py --cli), so the kernel is judged by the independent oracle directly, not
 * only through its agreement with the reference. Arguments in preprocess_cli.h.
 * Built twice: on the GPU (preprocess-kernel-cli, the gpu suite) and with PREPROCESS_KERNEL_CLI_EMULATE
 * over tests/kernels/cuda_emulation.h (preprocess-emulated-cli: the kernel's own source on the CPU,
 * the unit suite, so CI without a GPU runs it too).
 * Exit 0 = tensor written; 77 = no CUDA device (cudaGetDeviceCount says cudaErrorNoDevice, or no
 * NVIDIA driver is installed at all); 1 = launch refused or any CUDA error; 2 = bad arguments. */
#ifdef PREPROCESS_KERNEL_CLI_EMULATE
#include "cuda_emulation.h"
#else
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#endif

#include <cstdio>

#include "preprocess_cli.h"

namespace {

/* Device buffer freed on scope exit. */
struct DeviceBuffer {
  void *p = nullptr;
  ~DeviceBuffer () { cudaFree (p); }
};

bool cuda_ok (cudaError_t e, const char *what)
{
  if (e == cudaSuccess)
    return true;
  std::fprintf (stderr, "%s: %s: %s\n", what, cudaGetErrorName (e), cudaGetErrorString (e));
  return false;
}

}  // namespace

int main (int argc, char **argv)
{
  preprocess_cli::Job job;
  std::string err;
  if (!preprocess_cli::parse (argc, argv, &job, &err)) {
    std::fprintf (stderr, "%s: %s\n", argv[0], err.c_str ());
    return 2;
  }
#ifndef PREPROCESS_KERNEL_CLI_EMULATE
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount (&devices);
  if (probe == cudaErrorNoDevice || (probe == cudaSuccess && devices == 0)) {
    std::printf ("SKIP: no CUDA device (cudaGetDeviceCount: %s)\n", cudaGetErrorName (probe));
    return 77;
  }
  /* A machine without any NVIDIA driver (CI's) has no device either, but the runtime says
   * cudaErrorInsufficientDriver there: that counts as "no device" only when the driver library is
   * absent altogether; an installed but too old driver is a failure like every other error. */
  if (probe == cudaErrorInsufficientDriver && !dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    std::printf ("SKIP: no CUDA device (no NVIDIA driver installed: libcuda.so.1 not found)\n");
    return 77;
  }
  if (!cuda_ok (probe, "cudaGetDeviceCount"))
    return 1;
#endif
  DeviceBuffer planes[3], dst;
  preprocess::SourceView dev_src = job.src;
  for (int i = 0; i < job.n_planes; ++i) {
    const size_t n = size_t (job.plane_bytes[i]);
    if (!cuda_ok (cudaMalloc (&planes[i].p, n), "cudaMalloc") ||
        !cuda_ok (cudaMemcpy (planes[i].p, job.src.planes[i], n, cudaMemcpyHostToDevice), "cudaMemcpy"))
      return 1;
    dev_src.planes[i] = planes[i].p;
  }
  std::vector<uint8_t> out (size_t (job.view.size));
  if (!cuda_ok (cudaMalloc (&dst.p, out.size ()), "cudaMalloc") ||
      !cuda_ok (cudaMemset (dst.p, 0xab, out.size ()), "cudaMemset"))
    return 1;
  const preprocess::Status s = preprocess::launch (dev_src, job.view, dst.p, job.params, job.rois.data (),
                                                   int (job.rois.size ()), nullptr, &err);
  if (s != preprocess::Status::kOk) {
    std::fprintf (stderr, "launch: %s: %s\n", preprocess::status_name (s), err.c_str ());
    return 1;
  }
  if (!cuda_ok (cudaDeviceSynchronize (), "kernel") || !cuda_ok (cudaGetLastError (), "kernel") ||
      !cuda_ok (cudaMemcpy (out.data (), dst.p, out.size (), cudaMemcpyDeviceToHost), "cudaMemcpy"))
    return 1;
  if (!preprocess_cli::write_tensor (job, out, &err)) {
    std::fprintf (stderr, "%s\n", err.c_str ());
    return 2;
  }
  return 0;
}

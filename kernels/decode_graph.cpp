/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "kernels/decode_graph.h"

#include <cstring>
#include <utility>

#include "kernels/detect_device.h"

namespace detect {
namespace {

cudaError_t queue_plain (const Plan &plan, const Frame &frame, void *workspace, Result *device, void *host,
                         size_t bytes, cudaStream_t stream)
{
  cudaError_t err = decode_device (plan, frame, workspace, device, stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (host, device, bytes, cudaMemcpyDeviceToHost, stream);
  return err;
}

}  // namespace

DecodeGraph::~DecodeGraph ()
{
  reset ();
}

DecodeGraph::DecodeGraph (DecodeGraph &&other) noexcept
{
  *this = std::move (other);
}

DecodeGraph &DecodeGraph::operator= (DecodeGraph &&other) noexcept
{
  if (this != &other) {
    reset ();
    exec_ = std::exchange (other.exec_, nullptr);
    std::memcpy (&frame_, &other.frame_, sizeof (Frame));
    no_graph_ = other.no_graph_;
    captures_ = other.captures_;
    replays_ = other.replays_;
  }
  return *this;
}

void DecodeGraph::reset () noexcept
{
  if (exec_)
    cudaGraphExecDestroy (exec_);
  exec_ = nullptr;
}

void DecodeGraph::capture (const Plan &plan, const Frame &frame, void *workspace, Result *device, void *host,
                           size_t bytes)
{
  reset ();
  cudaStream_t side = nullptr;
  cudaGraph_t graph = nullptr;
  bool ok = cudaStreamCreateWithFlags (&side, cudaStreamNonBlocking) == cudaSuccess &&
            cudaStreamBeginCapture (side, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
  if (ok) {
    const bool queued = queue_plain (plan, frame, workspace, device, host, bytes, side) == cudaSuccess;
    ok = cudaStreamEndCapture (side, &graph) == cudaSuccess && queued && graph &&
         cudaGraphInstantiate (&exec_, graph, 0) == cudaSuccess;
  }
  if (graph)
    cudaGraphDestroy (graph);
  if (side)
    cudaStreamDestroy (side);
  if (!ok) {
    reset ();
    no_graph_ = true;
    cudaGetLastError (); /* not this frame's error: it decodes plainly */
    return;
  }
  std::memcpy (&frame_, &frame, sizeof (Frame)); /* padding included: compared with memcmp */
  ++captures_;
}

cudaError_t DecodeGraph::launch (const Plan &plan, const Frame &frame, void *workspace, Result *device,
                                 void *host, size_t bytes, cudaStream_t stream)
{
  if (!no_graph_ && (!exec_ || std::memcmp (&frame, &frame_, sizeof (Frame)) != 0))
    capture (plan, frame, workspace, device, host, bytes);
  if (!exec_)
    return queue_plain (plan, frame, workspace, device, host, bytes, stream);
  const cudaError_t err = cudaGraphLaunch (exec_, stream);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    return err;
  }
  ++replays_;
  return cudaSuccess;
}

}  // namespace detect

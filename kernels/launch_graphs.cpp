/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "kernels/launch_graphs.h"

#include <algorithm>
#include <cstring>

namespace preprocess {

namespace {
bool same_dims (const dim3 &a, const dim3 &b)
{
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

bool same (const KernelLaunch &a, const KernelLaunch &b)
{
  return a.function == b.function && a.param_bytes == b.param_bytes && a.shared_bytes == b.shared_bytes &&
         same_dims (a.grid, b.grid) && same_dims (a.block, b.block) &&
         std::memcmp (a.param, b.param, a.param_bytes) == 0;
}
}  // namespace

LaunchGraphs::LaunchGraphs ()
{
  entries_.reserve (kCapacity); /* launch() never allocates */
}

LaunchGraphs::~LaunchGraphs ()
{
  for (Entry &e : entries_)
    if (e.graph)
      cudaGraphExecDestroy (e.graph);
}

size_t LaunchGraphs::graphs () const
{
  return size_t (std::count_if (entries_.begin (), entries_.end (), [] (const Entry &e) { return e.graph; }));
}

LaunchGraphs::Entry *LaunchGraphs::find (const KernelLaunch &k)
{
  for (Entry &e : entries_)
    if (same (e.launch, k))
      return &e;
  return nullptr;
}

LaunchGraphs::Entry &LaunchGraphs::insert (const KernelLaunch &k)
{
  Entry *e;
  if (entries_.size () < kCapacity) {
    e = &entries_.emplace_back ();
  } else {
    e = &*std::min_element (entries_.begin (), entries_.end (),
                            [] (const Entry &a, const Entry &b) { return a.used < b.used; });
    if (e->graph)
      cudaGraphExecDestroy (e->graph);
    *e = Entry ();
  }
  e->launch = k;
  return *e;
}

void LaunchGraphs::make_graph (Entry *e)
{
  cudaGraph_t graph = nullptr;
  cudaKernelNodeParams node{};
  void *args[] = {e->launch.param};
  node.func = const_cast<void *> (e->launch.function);
  node.gridDim = e->launch.grid;
  node.blockDim = e->launch.block;
  node.sharedMemBytes = unsigned (e->launch.shared_bytes);
  node.kernelParams = args;
  cudaGraphNode_t added = nullptr;
  bool ok = cudaGraphCreate (&graph, 0) == cudaSuccess &&
            cudaGraphAddKernelNode (&added, graph, nullptr, 0, &node) == cudaSuccess &&
            cudaGraphInstantiate (&e->graph, graph, 0) == cudaSuccess;
  if (graph)
    cudaGraphDestroy (graph);
  if (!ok) {
    e->graph = nullptr;
    e->no_graph = true;
    cudaGetLastError (); /* not this frame's error: it launches plainly */
  }
}

size_t LaunchGraphs::prepare (const KernelLaunch &k)
{
  Entry *e = find (k);
  if (!e)
    e = &insert (k);
  else if (!e->graph && !e->no_graph)
    make_graph (e);
  e->used = ++clock_;
  return size_t (e - entries_.data ());
}

cudaError_t LaunchGraphs::launch (size_t entry, cudaStream_t stream)
{
  const Entry &e = entries_[entry];
  if (!e.graph)
    return start (e.launch, stream);
  const cudaError_t err = cudaGraphLaunch (e.graph, stream);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    return err;
  }
  ++replays_;
  return cudaSuccess;
}

}  // namespace preprocess

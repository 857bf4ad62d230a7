/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_fp16.h>

#include "cpu_executor.h"
#include "cuda_executor.h"

namespace swdla {
namespace {

constexpr int kBlock = 256;

unsigned blocks (int64_t total)
{
  return unsigned ((total + kBlock - 1) / kBlock);
}

/* Dense index i -> (n, c, y, x) of an n x c x h x w tensor. */
struct Index {
  int64_t n, c, y, x;
};
__device__ Index split (int64_t i, int64_t c, int64_t h, int64_t w)
{
  return Index{i / (c * h * w), (i / (h * w)) % c, (i / w) % h, i % w};
}

__global__ void unpack_kernel (tensor::View v, const uint8_t *src, float scale, float *dst, int64_t total)
{
  const int64_t i = blockIdx.x * int64_t (blockDim.x) + threadIdx.x;
  if (i >= total)
    return;
  const Index k = split (i, v.c, v.h, v.w);
  const uint8_t *p = src + v.offset (k.n, k.c, k.y, k.x);
  dst[i] = v.type == tensor::ElemType::kFp16
               ? __half2float (__ushort_as_half (*reinterpret_cast<const unsigned short *> (p)))
               : float (int8_t (*p)) * scale;
}

__global__ void pack_kernel (tensor::View v, const float *src, float scale, uint8_t *dst, int64_t total)
{
  const int64_t i = blockIdx.x * int64_t (blockDim.x) + threadIdx.x;
  if (i >= total)
    return;
  const Index k = split (i, v.c, v.h, v.w);
  uint8_t *p = dst + v.offset (k.n, k.c, k.y, k.x);
  if (v.type == tensor::ElemType::kFp16) {
    *reinterpret_cast<unsigned short *> (p) = __half_as_ushort (__float2half_rn (src[i]));
  } else {
    /* As tensor::quantize_int8: round half to even, saturate, NaN -> 0. */
    const float q = rintf (src[i] / scale);
    *reinterpret_cast<int8_t *> (p) = q != q ? 0 : q >= 127.f ? 127 : q <= -128.f ? -128 : int8_t (q);
  }
}

__global__ void layer_kernel (LayerParams p, float *out, int64_t total)
{
  const int64_t i = blockIdx.x * int64_t (blockDim.x) + threadIdx.x;
  if (i >= total)
    return;
  const Index k = split (i, p.out_c, p.out_h, p.out_w);
  out[i] = math::layer_output (p, k.n, int (k.c), int (k.y), int (k.x));
}

/* Averages and fully connected layers reduce thousands of inputs into one output (a global
 * average over 224x224): one block per output element, so that is microseconds, not a serial
 * loop. Summation order differs from the CPU executor's; the tests compare within tolerance. */
__global__ void reduce_kernel (LayerParams p, float *out)
{
  __shared__ float partial[kBlock];
  const Index k = split (blockIdx.x, p.out_c, p.out_h, p.out_w);
  const int64_t image_size = int64_t (p.in_c) * p.in_h * p.in_w;
  const float *image = math::image (p, 0, k.n);
  const bool fc = p.kind == math::kFc;
  const math::Window w = fc ? math::Window{} : math::pool_window (p, int (k.y), int (k.x));
  const int width = w.x1 - w.x0;
  const int64_t count = fc ? image_size : int64_t (w.y1 - w.y0) * width;
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < count; j += kBlock)
    sum += fc ? p.weights[k.c * image_size + j] * image[j]
              : math::at (p, image, int (k.c), w.y0 + int (j / width), w.x0 + int (j % width));
  partial[threadIdx.x] = sum;
  __syncthreads ();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = fc ? (p.bias ? p.bias[k.c] : 0.f) + partial[0] : partial[0] / float (count);
}

bool is_reduction (uint32_t kind)
{
  return kind == math::kAvgPool || kind == math::kGap || kind == math::kAdaptive || kind == math::kFc;
}

}  // namespace

cudaError_t DeviceModel::Create (const Model &model, std::unique_ptr<DeviceModel> *out)
{
  std::unique_ptr<DeviceModel> m (new DeviceModel (model));
  std::vector<float> all;
  std::vector<size_t> offsets;
  for (const Layer &l : model.layers) {
    offsets.push_back (all.size ());
    all.insert (all.end (), l.weights.begin (), l.weights.end ());
    all.insert (all.end (), l.bias.begin (), l.bias.end ());
  }
  cudaError_t err = cudaSuccess;
  if (!all.empty ()) {
    err = cudaMalloc (&m->weights_, all.size () * sizeof (float));
    if (err == cudaSuccess)
      err = cudaMemcpy (m->weights_, all.data (), all.size () * sizeof (float), cudaMemcpyHostToDevice);
  }
  for (int64_t floats : m->plan_.floats) {
    m->buffers_.push_back (nullptr);
    if (err == cudaSuccess)
      err = cudaMalloc (&m->buffers_.back (), size_t (floats) * sizeof (float));
  }
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&m->capture_stream_, cudaStreamNonBlocking);
  if (err != cudaSuccess)
    return err;
  std::vector<const float *> tensors (model.tensor_count (), nullptr);
  for (size_t id = 0; id < tensors.size (); ++id)
    if (m->plan_.slot[id] >= 0)
      tensors[id] = m->tensor (int32_t (id));
  for (size_t j = 0; j < model.layers.size (); ++j) {
    const float *w = m->weights_ + offsets[j];
    m->params_.push_back (layer_params (model, j, tensors.data (), w, w + model.layers[j].weights.size ()));
  }
  *out = std::move (m);
  return cudaSuccess;
}

DeviceModel::~DeviceModel ()
{
  /* A graph still running is freed when it completes. */
  for (const auto &r : replays_)
    if (r.second)
      cudaGraphExecDestroy (r.second);
  if (capture_stream_)
    cudaStreamDestroy (capture_stream_);
  cudaFree (weights_);
  for (float *b : buffers_)
    cudaFree (b);
}

cudaError_t DeviceModel::enqueue (cudaStream_t stream, const Inputs &inputs, const Outputs &outputs,
                                  WordStore then, bool replay)
{
  if (!replay)
    return enqueue_kernels (stream, inputs, outputs, then);
  const ReplayKey key{inputs, outputs, then.word, then.value};
  auto known = replays_.find (key);
  if (known != replays_.end ())
    return known->second ? cudaGraphLaunch (known->second, stream)
                         : enqueue_kernels (stream, inputs, outputs, then);
  /* A capture that failed is remembered too (a null graph), not tried again on every task. */
  const cudaGraphExec_t graph = capture (inputs, outputs, then);
  if (replays_.size () == kReplays) {
    auto oldest = replays_.find (replay_order_.front ());
    if (oldest->second)
      cudaGraphExecDestroy (oldest->second);
    replays_.erase (oldest);
    replay_order_.pop_front ();
  }
  replays_.emplace (key, graph);
  replay_order_.push_back (key);
  return graph ? cudaGraphLaunch (graph, stream) : enqueue_kernels (stream, inputs, outputs, then);
}

cudaGraphExec_t DeviceModel::capture (const Inputs &inputs, const Outputs &outputs, WordStore then) const
{
  if (cudaStreamBeginCapture (capture_stream_, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError ();
    return nullptr;
  }
  const cudaError_t queued = enqueue_kernels (capture_stream_, inputs, outputs, then);
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture (capture_stream_, &graph);
  cudaGraphExec_t exec = nullptr;
  if (queued == cudaSuccess && err == cudaSuccess && graph)
    err = cudaGraphInstantiate (&exec, graph, 0);
  if (graph)
    cudaGraphDestroy (graph);
  cudaGetLastError (); /* a failed capture falls back to plain launches: it must not linger */
  return queued == cudaSuccess && err == cudaSuccess ? exec : nullptr;
}

cudaError_t DeviceModel::enqueue_kernels (cudaStream_t stream, const Inputs &inputs, const Outputs &outputs,
                                          WordStore then) const
{
  for (size_t k = 0; k < model_.inputs.size (); ++k) {
    if (plan_.slot[k] < 0)
      continue; /* declared, registered, size-checked, but read by no layer */
    const TensorSpec &in = model_.inputs[k];
    tensor::View v;
    in.view (&v);
    const int64_t total = in.n * in.c * in.h * in.w;
    unpack_kernel<<<blocks (total), kBlock, 0, stream>>> (v, static_cast<const uint8_t *> (inputs[k]),
                                                          in.scale, tensor (int32_t (k)), total);
  }
  for (size_t j = 0; j < params_.size (); ++j) {
    const int32_t id = model_.result_id (j);
    const int64_t total = model_.batch () * model_.shapes[size_t (id)].count ();
    if (is_reduction (params_[j].kind))
      reduce_kernel<<<unsigned (total), kBlock, 0, stream>>> (params_[j], tensor (id));
    else
      layer_kernel<<<blocks (total), kBlock, 0, stream>>> (params_[j], tensor (id), total);
  }
  for (size_t k = 0; k < model_.outputs.size (); ++k) {
    const TensorSpec &out = model_.outputs[k];
    tensor::View v;
    out.view (&v);
    /* Pads and row tails zero, then the values. */
    const cudaError_t err = cudaMemsetAsync (outputs[k], 0, size_t (v.size), stream);
    if (err != cudaSuccess)
      return err;
    const int64_t total = out.n * out.c * out.h * out.w;
    pack_kernel<<<blocks (total), kBlock, 0, stream>>> (v, tensor (out.source), out.scale,
                                                        static_cast<uint8_t *> (outputs[k]), total);
  }
  const cudaError_t err = cudaGetLastError ();
  return err == cudaSuccess ? enqueue_store (stream, then.word, then.value) : err;
}

}  // namespace swdla

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every swdla contract with a GPU: each violation returns the status README.md lists (the message
 * from swdlaLastRefusal() is printed with each failure). */
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "gpu_helpers.h"

namespace {

using swdla_test::describe;
using swdla_test::Env;
using swdla_test::Session;
using swdla_test::Stream;

#define EXPECT_STATUS(call, want)                                       \
  do {                                                                  \
    const cudlaStatus got_ = (call);                                    \
    EXPECT_EQ (got_, want) << #call << " returned " << describe (got_); \
  } while (0)

/* A plain device handle, destroyed at scope end (must be clean by then). */
struct Handle {
  explicit Handle (int core = 0) { status = cudlaCreateDevice (uint64_t (core), &h, CUDLA_CUDA_DLA); }
  ~Handle ()
  {
    if (h)
      cudlaDestroyDevice (h);
  }
  cudlaDevHandle h = nullptr;
  cudlaStatus status;
};

struct DeviceMemory {
  explicit DeviceMemory (size_t n) { cudaMalloc (&p, n); }
  ~DeviceMemory () { cudaFree (p); }
  const uint64_t *at (size_t off = 0) const
  {
    return reinterpret_cast<const uint64_t *> (static_cast<const char *> (p) + off);
  }
  void *p = nullptr;
};

TEST (SwdlaContracts, DlaPointersDifferFromCudaPointersAndOnlyTheyWorkInTasks)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  EXPECT_NE (static_cast<void *> (s.inputs[0].dla), s.inputs[0].cuda);
  EXPECT_NE (static_cast<void *> (s.outputs[0].dla), s.outputs[0].cuda);
  Stream stream;
  const uint64_t *in_cuda = static_cast<const uint64_t *> (s.inputs[0].cuda);
  uint64_t *out_dla = s.outputs[0].dla;
  cudlaTask t = s.task ();
  t.inputTensor = &in_cuda;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorInvalidAddress);
  EXPECT_NE (std::string (swdlaLastRefusal ()).find ("CUDA pointer"), std::string::npos)
      << swdlaLastRefusal ();
  uint64_t *out_cuda = static_cast<uint64_t *> (s.outputs[0].cuda);
  t = s.task ();
  t.outputTensor = &out_cuda;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorInvalidAddress);
  t = s.task ();
  t.outputTensor = &out_dla;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  /* Unregister takes the DLA pointer too. */
  EXPECT_STATUS (cudlaMemUnregister (s.dev, static_cast<const uint64_t *> (s.inputs[0].cuda)),
                 cudlaErrorInvalidAddress);
}

TEST (SwdlaContracts, RegistrationChecks)
{
  Handle h;
  ASSERT_EQ (h.status, cudlaSuccess) << describe (h.status);
  DeviceMemory mem (4096);
  uint64_t *dla = nullptr;
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (16), 1024, &dla, 0),
                 cudlaErrorInvalidAddress); /* alignment */
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (0), 4096 + (8u << 20), &dla, 0),
                 cudlaErrorInvalidAddress); /* past the end */
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (0), 0, &dla, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaMemRegister (h.h, nullptr, 64, &dla, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (0), 64, nullptr, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (0), 64, &dla, 5), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (0), 64, &dla, CUDLA_TASK_STATISTICS),
                 cudlaErrorUnsupportedOperation);
  alignas (64) static uint64_t host[64];
  EXPECT_STATUS (cudlaMemRegister (h.h, host, sizeof host, &dla, 0), cudlaErrorInvalidAddress);
  void *managed = nullptr;
  ASSERT_EQ (cudaMallocManaged (&managed, 4096), cudaSuccess);
  EXPECT_STATUS (cudlaMemRegister (h.h, static_cast<const uint64_t *> (managed), 4096, &dla, 0),
                 cudlaErrorInvalidAddress);
  cudaFree (managed);
  /* A 32-byte-aligned sub-range is accepted; the same registration again is "already registered"
   * and hands back the same DLA pointer; an overlapping one is refused the same way. */
  uint64_t *first = nullptr, *again = nullptr, *overlap = nullptr;
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (32), 1024, &first, 0), cudlaSuccess);
  EXPECT_NE (first, nullptr);
  EXPECT_NE (static_cast<const void *> (first), static_cast<const void *> (mem.at (32)));
  EXPECT_EQ (reinterpret_cast<uintptr_t> (first) % 32, 0u);
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (32), 1024, &again, 0), cudlaErrorMemoryRegistered);
  EXPECT_EQ (again, first);
  EXPECT_STATUS (cudlaMemRegister (h.h, mem.at (512), 1024, &overlap, 0), cudlaErrorMemoryRegistered);
  EXPECT_EQ (overlap, nullptr);
  /* The same memory on another handle is a separate registration. */
  Handle other;
  uint64_t *on_other = nullptr;
  EXPECT_STATUS (cudlaMemRegister (other.h, mem.at (32), 1024, &on_other, 0), cudlaSuccess);
  EXPECT_NE (on_other, first);
  EXPECT_STATUS (cudlaMemUnregister (h.h, on_other), cudlaErrorInvalidAddress); /* not this handle's */
  EXPECT_STATUS (cudlaMemUnregister (other.h, on_other), cudlaSuccess);
  EXPECT_STATUS (cudlaMemUnregister (h.h, first), cudlaSuccess);
  EXPECT_STATUS (cudlaMemUnregister (h.h, first), cudlaErrorInvalidAddress); /* twice */
}

TEST (SwdlaContracts, TensorsMustBeAsLargeAsTheirDescriptors)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  DeviceMemory small (1024);
  uint64_t *dla = nullptr;
  EXPECT_STATUS (cudlaMemRegister (s.dev, small.at (), 1024, &dla, 0), cudlaSuccess);
  const uint64_t *in = dla;
  cudlaTask t = s.task ();
  t.inputTensor = &in;
  Stream stream;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorInvalidAddress);
  EXPECT_NE (std::string (swdlaLastRefusal ()).find ("1605632"), std::string::npos) << swdlaLastRefusal ();
  EXPECT_STATUS (cudlaMemUnregister (s.dev, dla), cudlaSuccess);
}

TEST (SwdlaContracts, SixteenHandlesPerCore)
{
  std::vector<std::unique_ptr<Handle>> handles;
  for (int i = 0; i < 16; ++i) {
    handles.emplace_back (new Handle (0));
    ASSERT_EQ (handles.back ()->status, cudlaSuccess)
        << "handle " << i << ": " << describe (handles.back ()->status);
  }
  cudlaDevHandle h17 = nullptr;
  EXPECT_STATUS (cudlaCreateDevice (0, &h17, CUDLA_CUDA_DLA), cudlaErrorOutOfResources);
  Handle core1 (1);
  EXPECT_STATUS (core1.status, cudlaSuccess);
  handles.pop_back ();
  Handle again (0);
  EXPECT_STATUS (again.status, cudlaSuccess);
}

TEST (SwdlaContracts, CoreRangeFollowsSwdlaNumCores)
{
  cudlaDevHandle h = nullptr;
  EXPECT_STATUS (cudlaCreateDevice (2, &h, CUDLA_CUDA_DLA), cudlaErrorInvalidParam);
  Env cores ("SWDLA_NUM_CORES", "4");
  Handle h3 (3);
  EXPECT_STATUS (h3.status, cudlaSuccess);
  EXPECT_STATUS (cudlaCreateDevice (0, &h, CUDLA_STANDALONE), cudlaErrorUnsupportedOperation);
}

TEST (SwdlaContracts, OneModulePerHandleLifetime)
{
  Handle h;
  const auto bytes = swdla_test::model_bytes ("colours");
  cudlaModule m = nullptr, m2 = nullptr;
  EXPECT_STATUS (cudlaModuleLoadFromMemory (h.h, bytes.data (), bytes.size (), &m, 0), cudlaSuccess);
  EXPECT_STATUS (cudlaModuleLoadFromMemory (h.h, bytes.data (), bytes.size (), &m2, 0),
                 cudlaErrorUnsupportedOperation);
  EXPECT_STATUS (cudlaModuleUnload (m, 1), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaModuleUnload (m, 0), cudlaSuccess);
  EXPECT_STATUS (cudlaModuleUnload (m, 0), cudlaErrorInvalidModule);
  EXPECT_STATUS (cudlaModuleLoadFromMemory (h.h, bytes.data (), bytes.size (), &m2, 0),
                 cudlaErrorUnsupportedOperation);
}

TEST (SwdlaContracts, ModuleLoadFlagsAndBrokenModels)
{
  const auto good = swdla_test::model_bytes ("colours");
  for (const char *name :
       {"broken-truncated", "broken-magic", "broken-nvda", "broken-version", "broken-zero-size"}) {
    Handle h;
    const auto bytes = swdla_test::model_bytes (name);
    cudlaModule m = nullptr;
    EXPECT_STATUS (
        cudlaModuleLoadFromMemory (h.h, bytes.empty () ? good.data () : bytes.data (), bytes.size (), &m, 0),
        cudlaErrorInvalidParam);
    EXPECT_EQ (m, nullptr) << name;
  }
  Handle h;
  cudlaModule m = nullptr;
  EXPECT_STATUS (
      cudlaModuleLoadFromMemory (h.h, good.data (), good.size (), &m, CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS),
      cudlaErrorUnsupportedOperation);
  EXPECT_STATUS (cudlaModuleLoadFromMemory (h.h, good.data (), good.size (), &m, 6), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaModuleLoadFromMemory (h.h, nullptr, good.size (), &m, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaModuleLoadFromMemory (h.h, good.data (), good.size (), nullptr, 0),
                 cudlaErrorInvalidParam);
  /* Loadable but unusable for classification: swdla loads them as a DLA would. */
  Session wrong, two;
  ASSERT_EQ (wrong.open ("broken-wrong-type"), "");
  EXPECT_EQ (wrong.in_desc[0].dataType, CUDLA_DATA_TYPE_FLOAT);
  ASSERT_EQ (two.open ("broken-two-inputs"), "");
  EXPECT_EQ (two.in_desc.size (), 2u);
  EXPECT_STREQ (two.in_desc[1].name, "extra");
}

TEST (SwdlaContracts, TaskShapeChecks)
{
  Session s, other;
  ASSERT_EQ (s.open ("colours"), "");
  ASSERT_EQ (other.open ("colours"), "");
  Stream stream;
  cudlaTask t = s.task ();
  t.moduleHandle = other.module; /* loaded on another handle */
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorInvalidModule);
  t = s.task ();
  t.numInputTensors = 2;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorInvalidParam);
  t = s.task ();
  t.inputTensor = nullptr;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorInvalidParam);
  t = s.task ();
  CudlaFence fence{};
  cudlaWaitEvents wait{&fence, 1};
  t.waitEvents = &wait;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorUnsupportedOperation);
  t = s.task ();
  cudlaSignalEvents signal{};
  t.signalEvents = &signal;
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaErrorUnsupportedOperation);
  t = s.task ();
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 0, stream, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaSubmitTask (s.dev, nullptr, 1, stream, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, CUDLA_SUBMIT_DIAGNOSTICS_TASK),
                 cudlaErrorUnsupportedOperation);
  EXPECT_STATUS (cudlaSubmitTask (s.dev, &t, 1, stream, 8), cudlaErrorInvalidParam);
  /* Two tasks in one call, run in order; SKIP_LOCK_ACQUIRE accepted. */
  const cudlaTask two[2] = {s.task (), s.task ()};
  EXPECT_STATUS (cudlaSubmitTask (s.dev, two, 2, stream, CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE), cudlaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

TEST (SwdlaContracts, NoopTaskLeavesTheOutputAlone)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  ASSERT_EQ (cudaMemset (s.outputs[0].cuda, 0x11, s.outputs[0].size), cudaSuccess);
  Stream stream;
  EXPECT_STATUS (s.submit (stream, CUDLA_SUBMIT_NOOP), cudlaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  for (uint8_t b : s.read_output ())
    ASSERT_EQ (b, 0x11);
}

TEST (SwdlaContracts, StreamsMustBeCreatedAndNotCapturing)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  EXPECT_STATUS (s.submit (nullptr), cudlaErrorInvalidParam);
  EXPECT_STATUS (s.submit (cudaStreamLegacy), cudlaErrorInvalidParam);
  EXPECT_STATUS (s.submit (cudaStreamPerThread), cudlaErrorInvalidParam);
  Stream stream;
  ASSERT_EQ (cudaStreamBeginCapture (stream, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_STATUS (s.submit (stream), cudlaErrorUnsupportedOperation);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ (cudaStreamEndCapture (stream, &graph), cudaSuccess);
  cudaGraphDestroy (graph);
  EXPECT_STATUS (s.submit (stream), cudlaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

TEST (SwdlaContracts, NonPrimaryContextIsRefused)
{
  ASSERT_TRUE (gst_cuda_load_library ());
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  GstCudaContext *ctx = gst_cuda_context_new (0); /* a separate, non-primary context */
  ASSERT_NE (ctx, nullptr);
  ASSERT_TRUE (gst_cuda_context_push (ctx));
  cudlaDevHandle h = nullptr;
  EXPECT_STATUS (cudlaCreateDevice (0, &h, CUDLA_CUDA_DLA), cudlaErrorCuda);
  {
    DeviceMemory mem (4096); /* allocated in the pushed context */
    uint64_t *dla = nullptr;
    EXPECT_STATUS (cudlaMemRegister (s.dev, mem.at (), 4096, &dla, 0), cudlaErrorCuda);
    EXPECT_STATUS (s.submit (stream), cudlaErrorCuda);
    EXPECT_NE (std::string (swdlaLastRefusal ()).find ("primary"), std::string::npos) << swdlaLastRefusal ();
  }
  gst_cuda_context_pop (nullptr);
  gst_object_unref (ctx);
  EXPECT_STATUS (s.submit (stream), cudlaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

TEST (SwdlaContracts, NothingTornDownWithRegisteredMemoryOrWorkInFlight)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  {
    Env service ("SWDLA_SERVICE_US", "300000"); /* the task takes 300 ms */
    EXPECT_STATUS (s.submit (stream), cudlaSuccess);
  }
  EXPECT_STATUS (cudlaMemUnregister (s.dev, s.inputs[0].dla), cudlaErrorUmd);
  EXPECT_STATUS (cudlaModuleUnload (s.module, 0), cudlaErrorUmd);
  EXPECT_STATUS (cudlaDestroyDevice (s.dev), cudlaErrorUmd);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  /* Idle now, but memory is still registered. */
  EXPECT_STATUS (cudlaModuleUnload (s.module, 0), cudlaErrorUmd);
  EXPECT_STATUS (cudlaDestroyDevice (s.dev), cudlaErrorUmd);
  EXPECT_STATUS (s.close (), cudlaSuccess); /* the documented order works */
}

TEST (SwdlaContracts, AttributesTimeoutAndLastError)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  cudlaDevAttribute a{};
  EXPECT_STATUS (cudlaDeviceGetAttribute (s.dev, CUDLA_UNIFIED_ADDRESSING, &a), cudlaSuccess);
  EXPECT_EQ (a.unifiedAddressingSupported, 0);
  EXPECT_STATUS (cudlaDeviceGetAttribute (s.dev, CUDLA_DEVICE_VERSION, &a), cudlaSuccess);
  EXPECT_EQ (a.deviceVersion, 2u);
  EXPECT_STATUS (cudlaDeviceGetAttribute (s.dev, cudlaDevAttributeType (7), &a), cudlaErrorInvalidAttribute);
  EXPECT_STATUS (cudlaDeviceGetAttribute (s.dev, CUDLA_DEVICE_VERSION, nullptr), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaSetTaskTimeoutInMs (s.dev, 0), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaSetTaskTimeoutInMs (s.dev, 1000001), cudlaErrorInvalidParam);
  EXPECT_STATUS (cudlaSetTaskTimeoutInMs (s.dev, 1), cudlaSuccess);
  EXPECT_STATUS (cudlaSetTaskTimeoutInMs (s.dev, 1000000), cudlaSuccess);
  EXPECT_STATUS (cudlaGetLastError (s.dev), cudlaSuccess);
  cudlaModuleAttribute m{};
  EXPECT_STATUS (cudlaModuleGetAttributes (s.module, CUDLA_NUM_OUTPUT_TASK_STATISTICS, &m), cudlaSuccess);
  EXPECT_EQ (m.numOutputTensors, 0u);
  EXPECT_STATUS (cudlaModuleGetAttributes (s.module, CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS, &m),
                 cudlaErrorUnsupportedOperation);
  EXPECT_STATUS (cudlaModuleGetAttributes (s.module, cudlaModuleAttributeType (9), &m),
                 cudlaErrorInvalidAttribute);
  EXPECT_STATUS (cudlaModuleGetAttributes (s.module, CUDLA_NUM_INPUT_TENSORS, nullptr),
                 cudlaErrorInvalidParam);
  m.inputTensorDesc = nullptr;
  EXPECT_STATUS (cudlaModuleGetAttributes (s.module, CUDLA_INPUT_TENSOR_DESCRIPTORS, &m),
                 cudlaErrorInvalidParam);
}

/* The descriptors through the API, in each reading (values: README.md). */
cudlaModuleTensorDescriptor input_desc (const char *model)
{
  Handle h;
  const auto bytes = swdla_test::model_bytes (model);
  cudlaModule mod = nullptr;
  EXPECT_EQ (cudlaModuleLoadFromMemory (h.h, bytes.data (), bytes.size (), &mod, 0), cudlaSuccess);
  cudlaModuleTensorDescriptor d{};
  cudlaModuleAttribute a{};
  a.inputTensorDesc = &d;
  const cudlaStatus s = cudlaModuleGetAttributes (mod, CUDLA_INPUT_TENSOR_DESCRIPTORS, &a);
  EXPECT_EQ (s, cudlaSuccess) << describe (s);
  cudlaModuleUnload (mod, 0);
  return d;
}

TEST (SwdlaContracts, DescriptorReadings)
{
  {
    const auto d = input_desc ("colours");
    EXPECT_EQ (d.c, 3u);
    EXPECT_EQ (d.dataFormat, CUDLA_DATA_FORMAT_NCxHWx);
    EXPECT_EQ (d.stride[0], 2u);
    EXPECT_EQ (d.stride[1], 7168u);
    EXPECT_EQ (d.stride[2], 1605632u);
    const auto hwc = input_desc ("colours-int8-dla_hwc4");
    EXPECT_EQ (hwc.c, 4u);
    EXPECT_EQ (hwc.pixelFormat, CUDLA_PIXEL_FORMAT_A8B8G8R8);
  }
  {
    Env r ("SWDLA_DESCRIPTOR_READING", "c-padded");
    EXPECT_EQ (input_desc ("colours").c, 16u);
  }
  {
    Env r ("SWDLA_DESCRIPTOR_READING", "c-real,strides-zero");
    const auto d = input_desc ("colours-int8-dla_hwc4");
    EXPECT_EQ (d.c, 3u);
    EXPECT_EQ (d.stride[1], 0u);
  }
  {
    Env r ("SWDLA_DESCRIPTOR_READING", "strides-whcn,codes-nchw");
    const auto d = input_desc ("colours");
    EXPECT_EQ (d.stride[0], 32u);
    EXPECT_EQ (d.dataFormat, CUDLA_DATA_FORMAT_NCHW);
  }
  {
    Env r ("SWDLA_DESCRIPTOR_READING", "codes-unknown");
    EXPECT_EQ (input_desc ("colours").pixelFormat, CUDLA_PIXEL_FORMAT_UNKNOWN);
  }
  {
    Env r ("SWDLA_DESCRIPTOR_READING", "no-such-reading");
    Handle h;
    const auto bytes = swdla_test::model_bytes ("colours");
    cudlaModule mod = nullptr;
    ASSERT_EQ (cudlaModuleLoadFromMemory (h.h, bytes.data (), bytes.size (), &mod, 0), cudlaSuccess);
    cudlaModuleTensorDescriptor d{};
    cudlaModuleAttribute a{};
    a.inputTensorDesc = &d;
    EXPECT_STATUS (cudlaModuleGetAttributes (mod, CUDLA_INPUT_TENSOR_DESCRIPTORS, &a),
                   cudlaErrorInvalidAttribute);
    cudlaModuleUnload (mod, 0);
  }
}

}  // namespace

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cuDLA ABI as our header declares it, checked at run time against the numbers of the
 * docs/cudla.md (section 3.3; confirmed by NVIDIA's binding dtypes, section 8), so a mistake shows as
 * a failing test with the numbers, not only as a static_assert. */
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "dla/abi/cudla_abi.h"
#include "dla/loader.h"

namespace {

TEST (CudlaAbi, TensorDescriptorLayout)
{
  EXPECT_EQ (sizeof (cudlaModuleTensorDescriptor), 168u);
  EXPECT_EQ (alignof (cudlaModuleTensorDescriptor), 8u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, name), 0u);
  EXPECT_EQ (sizeof (cudlaModuleTensorDescriptor::name), 81u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, size), 88u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, n), 96u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, c), 104u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, h), 112u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, w), 120u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, dataFormat), 128u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, dataType), 129u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, dataCategory), 130u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, pixelFormat), 131u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, pixelMapping), 132u);
  EXPECT_EQ (offsetof (cudlaModuleTensorDescriptor, stride), 136u);
  EXPECT_EQ (sizeof (cudlaModuleTensorDescriptor::stride), 32u);
}

TEST (CudlaAbi, TaskLayout)
{
  EXPECT_EQ (sizeof (cudlaTask), 48u);
  EXPECT_EQ (offsetof (cudlaTask, moduleHandle), 0u);
  EXPECT_EQ (offsetof (cudlaTask, outputTensor), 8u);
  EXPECT_EQ (offsetof (cudlaTask, numOutputTensors), 16u);
  EXPECT_EQ (offsetof (cudlaTask, numInputTensors), 20u);
  EXPECT_EQ (offsetof (cudlaTask, inputTensor), 24u);
  EXPECT_EQ (offsetof (cudlaTask, waitEvents), 32u);
  EXPECT_EQ (offsetof (cudlaTask, signalEvents), 40u);
}

TEST (CudlaAbi, SmallStructsAndUnions)
{
  EXPECT_EQ (sizeof (cudlaStatus), 4u);
  EXPECT_EQ (sizeof (cudlaDevHandle), 8u);
  EXPECT_EQ (sizeof (cudlaModule), 8u);
  EXPECT_EQ (sizeof (cudlaModuleAttribute), 8u);
  EXPECT_EQ (sizeof (cudlaDevAttribute), 4u);
  EXPECT_EQ (sizeof (CudlaFence), 16u);
  EXPECT_EQ (offsetof (CudlaFence, type), 8u);
  EXPECT_EQ (sizeof (cudlaWaitEvents), 16u);
  EXPECT_EQ (offsetof (cudlaWaitEvents, numEvents), 8u);
  EXPECT_EQ (sizeof (cudlaSignalEvents), 24u);
  EXPECT_EQ (offsetof (cudlaSignalEvents, eofFences), 8u);
  EXPECT_EQ (offsetof (cudlaSignalEvents, numEvents), 16u);
  EXPECT_EQ (sizeof (cudlaExternalMemoryHandleDesc), 16u);
  EXPECT_EQ (offsetof (cudlaExternalMemoryHandleDesc, size), 8u);
  EXPECT_EQ (sizeof (cudlaExternalSemaphoreHandleDesc), 8u);
}

TEST (CudlaAbi, EnumValues)
{
  EXPECT_EQ (int (CUDLA_CUDA_DLA), 0);
  EXPECT_EQ (int (CUDLA_STANDALONE), 1);
  EXPECT_EQ (int (CUDLA_NUM_INPUT_TENSORS), 0);
  EXPECT_EQ (int (CUDLA_NUM_OUTPUT_TENSORS), 1);
  EXPECT_EQ (int (CUDLA_INPUT_TENSOR_DESCRIPTORS), 2);
  EXPECT_EQ (int (CUDLA_OUTPUT_TENSOR_DESCRIPTORS), 3);
  EXPECT_EQ (int (CUDLA_NUM_OUTPUT_TASK_STATISTICS), 4);
  EXPECT_EQ (int (CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS), 5);
  EXPECT_EQ (int (CUDLA_SUBMIT_NOOP), 1);
  EXPECT_EQ (int (CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE), 2);
  EXPECT_EQ (int (CUDLA_SUBMIT_DIAGNOSTICS_TASK), 4);
  EXPECT_EQ (int (CUDLA_TASK_STATISTICS), 2);
  EXPECT_EQ (int (CUDLA_DEVICE_VERSION), 1);
  EXPECT_EQ (int (cudlaErrorNvSci), 14);
  EXPECT_EQ (int (cudlaErrorDriverNotFound), 15);
  EXPECT_EQ (int (cudlaErrorDlaErrEngineTimeout), 0x40000006);
  EXPECT_EQ (int (cudlaErrorUnknown), 0x7fffffff);
  EXPECT_EQ (CUDLA_DATA_FORMAT_NCxHWx, 3);
  EXPECT_EQ (CUDLA_DATA_TYPE_HALF, 2);
  EXPECT_EQ (CUDLA_DATA_TYPE_INT8, 4);
  EXPECT_EQ (CUDLA_DATA_CATEGORY_PLANAR, 3);
  EXPECT_EQ (CUDLA_PIXEL_FORMAT_FEATURE, 36);
}

/* The loader's function-pointer types are the declared prototypes: a signature drift between
 * cudla_abi.h and CudlaApi fails to compile here (decltype only: nothing links libcudla). */
#define SAME_TYPE(field, fn) \
  static_assert (std::is_same<decltype (dla::CudlaApi::field), decltype (&fn)>::value, #fn)
SAME_TYPE (GetVersion, cudlaGetVersion);
SAME_TYPE (DeviceGetCount, cudlaDeviceGetCount);
SAME_TYPE (CreateDevice, cudlaCreateDevice);
SAME_TYPE (MemRegister, cudlaMemRegister);
SAME_TYPE (ModuleLoadFromMemory, cudlaModuleLoadFromMemory);
SAME_TYPE (ModuleGetAttributes, cudlaModuleGetAttributes);
SAME_TYPE (ModuleUnload, cudlaModuleUnload);
SAME_TYPE (SubmitTask, cudlaSubmitTask);
SAME_TYPE (DeviceGetAttribute, cudlaDeviceGetAttribute);
SAME_TYPE (MemUnregister, cudlaMemUnregister);
SAME_TYPE (GetLastError, cudlaGetLastError);
SAME_TYPE (DestroyDevice, cudlaDestroyDevice);
SAME_TYPE (SetTaskTimeoutInMs, cudlaSetTaskTimeoutInMs);
#undef SAME_TYPE

TEST (CudlaAbi, TwelveRequiredSymbols)
{
  EXPECT_EQ (sizeof (dla::kRequiredSymbols) / sizeof (dla::kRequiredSymbols[0]), 12u);
  EXPECT_STREQ (dla::kRequiredSymbols[0], "cudlaGetVersion");
  EXPECT_STREQ (dla::kRequiredSymbols[11], "cudlaDestroyDevice");
}

}  // namespace

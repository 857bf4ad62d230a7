/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: our declaration of the cuDLA C ABI (NVIDIA's cudla.h, as far as we use it).
 *
 * Shared by the dla layer (which dlopens libcudla.so.1) and swdla (which implements it), so one
 * set of static_asserts covers both. Names, values, field order and sizes follow
 * docs/cudla.md sections 2-3 (NVIDIA's header 1.2.1, the current API docs and
 * the cuda-python binding). No CUDA or GStreamer types here.
 */
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef struct cudlaDevHandle_t *cudlaDevHandle;
typedef struct cudlaModule_t *cudlaModule;

typedef enum cudlaStatus {
  cudlaSuccess = 0,
  cudlaErrorInvalidParam = 1,
  cudlaErrorOutOfResources = 2,
  cudlaErrorCreationFailed = 3,
  cudlaErrorInvalidAddress = 4,
  cudlaErrorOs = 5,
  cudlaErrorCuda = 6,
  cudlaErrorUmd = 7,
  cudlaErrorInvalidDevice = 8,
  cudlaErrorInvalidAttribute = 9,
  cudlaErrorIncompatibleDlaSWVersion = 10,
  cudlaErrorMemoryRegistered = 11,
  cudlaErrorInvalidModule = 12,
  cudlaErrorUnsupportedOperation = 13,
  cudlaErrorNvSci = 14,
  cudlaErrorDriverNotFound = 15, /* newer headers only */
  cudlaErrorDlaErrInvalidInput = 0x40000001,
  cudlaErrorDlaErrInvalidPreAction = 0x40000002,
  cudlaErrorDlaErrNoMem = 0x40000003,
  cudlaErrorDlaErrProcessorBusy = 0x40000004,
  cudlaErrorDlaErrTaskStatusMismatch = 0x40000005,
  cudlaErrorDlaErrEngineTimeout = 0x40000006,
  cudlaErrorDlaErrDataMismatch = 0x40000007,
  cudlaErrorUnknown = 0x7fffffff
} cudlaStatus;

typedef enum cudlaMode { CUDLA_CUDA_DLA = 0, CUDLA_STANDALONE = 1 } cudlaMode;

typedef enum cudlaNvSciSyncAttributes {
  CUDLA_NVSCISYNC_ATTR_WAIT = 1,
  CUDLA_NVSCISYNC_ATTR_SIGNAL = 2
} cudlaNvSciSyncAttributes;

typedef enum cudlaModuleAttributeType {
  CUDLA_NUM_INPUT_TENSORS = 0,
  CUDLA_NUM_OUTPUT_TENSORS = 1,
  CUDLA_INPUT_TENSOR_DESCRIPTORS = 2,
  CUDLA_OUTPUT_TENSOR_DESCRIPTORS = 3,
  CUDLA_NUM_OUTPUT_TASK_STATISTICS = 4,
  CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS = 5
} cudlaModuleAttributeType;

typedef enum cudlaFenceType { CUDLA_NVSCISYNC_FENCE = 1, CUDLA_NVSCISYNC_FENCE_SOF = 2 } cudlaFenceType;

typedef enum cudlaModuleLoadFlags {
  CUDLA_MODULE_DEFAULT = 0,
  CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS = 1
} cudlaModuleLoadFlags;

typedef enum cudlaSubmissionFlags {
  CUDLA_SUBMIT_NOOP = 1,
  CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE = 2,
  CUDLA_SUBMIT_DIAGNOSTICS_TASK = 4
} cudlaSubmissionFlags;

typedef enum cudlaAccessPermissionFlags {
  CUDLA_READ_WRITE_PERM = 0,
  CUDLA_READ_ONLY_PERM = 1,
  CUDLA_TASK_STATISTICS = 2
} cudlaAccessPermissionFlags;

typedef enum cudlaDevAttributeType {
  CUDLA_UNIFIED_ADDRESSING = 0,
  CUDLA_DEVICE_VERSION = 1
} cudlaDevAttributeType;

/* Descriptor field codes (NVIDIA's macros, stored in uint8_t fields). */
#define CUDLA_DATA_FORMAT_UNKNOWN 0
#define CUDLA_DATA_FORMAT_NCHW 1
#define CUDLA_DATA_FORMAT_NHWC 2
#define CUDLA_DATA_FORMAT_NCxHWx 3
#define CUDLA_DATA_TYPE_UNKNOWN 0
#define CUDLA_DATA_TYPE_FLOAT 1
#define CUDLA_DATA_TYPE_HALF 2
#define CUDLA_DATA_TYPE_INT16 3
#define CUDLA_DATA_TYPE_INT8 4
#define CUDLA_DATA_TYPE_UINT8 5
#define CUDLA_DATA_TYPE_UINT16 6
#define CUDLA_DATA_CATEGORY_IMAGE 0
#define CUDLA_DATA_CATEGORY_WEIGHT 1
#define CUDLA_DATA_CATEGORY_FEATURE 2
#define CUDLA_DATA_CATEGORY_PLANAR 3
#define CUDLA_DATA_CATEGORY_BIAS 4
#define CUDLA_PIXEL_MAPPING_PITCH_LINEAR 0
#define CUDLA_PIXEL_MAPPING_BLOCK_LINEAR 1
#define CUDLA_PIXEL_FORMAT_R8 0
#define CUDLA_PIXEL_FORMAT_R16_F 5
#define CUDLA_PIXEL_FORMAT_A16B16G16R16_F 8
#define CUDLA_PIXEL_FORMAT_A8B8G8R8 12
#define CUDLA_PIXEL_FORMAT_FEATURE 36
#define CUDLA_PIXEL_FORMAT_UNKNOWN 37
#define CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN 80
#define CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES 8

typedef struct cudlaModuleTensorDescriptor_t {
  char name[CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN + 1];
  uint64_t size;
  uint64_t n;
  uint64_t c;
  uint64_t h;
  uint64_t w;
  uint8_t dataFormat;
  uint8_t dataType;
  uint8_t dataCategory;
  uint8_t pixelFormat;
  uint8_t pixelMapping;
  uint32_t stride[CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES];
} cudlaModuleTensorDescriptor;

typedef union cudlaModuleAttribute_t {
  uint32_t numInputTensors;
  uint32_t numOutputTensors;
  cudlaModuleTensorDescriptor *inputTensorDesc;
  cudlaModuleTensorDescriptor *outputTensorDesc;
} cudlaModuleAttribute;

typedef union cudlaDevAttribute_t {
  uint8_t unifiedAddressingSupported;
  uint32_t deviceVersion;
} cudlaDevAttribute;

typedef struct CudlaFence {
  void *fence;
  cudlaFenceType type;
} CudlaFence;

typedef struct cudlaWaitEvents_t {
  const CudlaFence *preFences;
  uint32_t numEvents;
} cudlaWaitEvents;

typedef struct cudlaSignalEvents_t {
  uint64_t *const *devPtrs;
  CudlaFence *eofFences;
  uint32_t numEvents;
} cudlaSignalEvents;

typedef struct cudlaTask_t {
  cudlaModule moduleHandle;
  uint64_t *const *outputTensor;
  uint32_t numOutputTensors;
  uint32_t numInputTensors;
  const uint64_t *const *inputTensor;
  const cudlaWaitEvents *waitEvents;
  cudlaSignalEvents *signalEvents;
} cudlaTask;

typedef struct cudlaExternalMemoryHandleDesc_t {
  const void *extBufObject;
  unsigned long long size;
} cudlaExternalMemoryHandleDesc;

typedef struct cudlaExternalSemaphoreHandleDesc_t {
  const void *extSyncObject;
} cudlaExternalSemaphoreHandleDesc;

/* The 16 entry points, with NVIDIA's parameter lists. */
cudlaStatus cudlaGetVersion (uint64_t *const version);
cudlaStatus cudlaDeviceGetCount (uint64_t *const pNumDevices);
cudlaStatus cudlaCreateDevice (uint64_t const device, cudlaDevHandle *const devHandle, uint32_t const flags);
cudlaStatus cudlaMemRegister (cudlaDevHandle const devHandle, const uint64_t *const ptr, size_t const size,
                              uint64_t **const devPtr, uint32_t const flags);
cudlaStatus cudlaModuleLoadFromMemory (cudlaDevHandle const devHandle, const uint8_t *const pModule,
                                       size_t const moduleSize, cudlaModule *const hModule,
                                       uint32_t const flags);
cudlaStatus cudlaModuleGetAttributes (cudlaModule const hModule, cudlaModuleAttributeType const attrType,
                                      cudlaModuleAttribute *const attribute);
cudlaStatus cudlaModuleUnload (cudlaModule const hModule, uint32_t const flags);
cudlaStatus cudlaSubmitTask (cudlaDevHandle const devHandle, const cudlaTask *const ptrToTasks,
                             uint32_t const numTasks, void *const stream, uint32_t const flags);
cudlaStatus cudlaDeviceGetAttribute (cudlaDevHandle const devHandle, cudlaDevAttributeType const attrib,
                                     cudlaDevAttribute *const pAttribute);
cudlaStatus cudlaMemUnregister (cudlaDevHandle const devHandle, const uint64_t *const devPtr);
cudlaStatus cudlaGetLastError (cudlaDevHandle const devHandle);
cudlaStatus cudlaDestroyDevice (cudlaDevHandle const devHandle);
cudlaStatus cudlaImportExternalMemory (cudlaDevHandle const devHandle,
                                       const cudlaExternalMemoryHandleDesc *const desc,
                                       uint64_t **const devPtr, uint32_t const flags);
cudlaStatus cudlaGetNvSciSyncAttributes (uint64_t *attrList, uint32_t const flags);
cudlaStatus cudlaImportExternalSemaphore (cudlaDevHandle const devHandle,
                                          const cudlaExternalSemaphoreHandleDesc *const desc,
                                          uint64_t **const devPtr, uint32_t const flags);
cudlaStatus cudlaSetTaskTimeoutInMs (cudlaDevHandle const devHandle, uint32_t const timeout);

}  // extern "C"

/* The ABI as NVIDIA's header lays it out on LP64 (docs/cudla.md 3.3; checked against the
 * cuda-python binding's numpy dtypes on the GPU host). */
static_assert (sizeof (cudlaStatus) == 4, "cudlaStatus is an int-sized enum");
static_assert (sizeof (cudlaModuleTensorDescriptor) == 168, "descriptor size");
static_assert (offsetof (cudlaModuleTensorDescriptor, size) == 88, "descriptor.size offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, n) == 96, "descriptor.n offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, c) == 104, "descriptor.c offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, h) == 112, "descriptor.h offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, w) == 120, "descriptor.w offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, dataFormat) == 128, "descriptor.dataFormat offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, pixelMapping) == 132, "descriptor.pixelMapping offset");
static_assert (offsetof (cudlaModuleTensorDescriptor, stride) == 136, "descriptor.stride offset");
static_assert (sizeof (cudlaModuleAttribute) == 8, "module attribute union");
static_assert (sizeof (cudlaDevAttribute) == 4, "device attribute union");
static_assert (sizeof (cudlaTask) == 48, "task size");
static_assert (offsetof (cudlaTask, outputTensor) == 8, "task.outputTensor offset");
static_assert (offsetof (cudlaTask, numOutputTensors) == 16, "task.numOutputTensors offset");
static_assert (offsetof (cudlaTask, numInputTensors) == 20, "task.numInputTensors offset");
static_assert (offsetof (cudlaTask, inputTensor) == 24, "task.inputTensor offset");
static_assert (offsetof (cudlaTask, waitEvents) == 32, "task.waitEvents offset");
static_assert (offsetof (cudlaTask, signalEvents) == 40, "task.signalEvents offset");
static_assert (sizeof (CudlaFence) == 16, "fence size");
static_assert (sizeof (cudlaWaitEvents) == 16, "wait events size");
static_assert (sizeof (cudlaSignalEvents) == 24, "signal events size");
static_assert (sizeof (cudlaExternalMemoryHandleDesc) == 16, "external memory desc size");

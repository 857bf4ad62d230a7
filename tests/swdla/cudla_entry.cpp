/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the cuDLA entry points except cudlaSubmitTask (submit.cpp). Status codes and their
 * reasons: README.md, "Status codes". */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "descriptors.h"
#include "driver.h"
#include "layout_oracle.h"
#include "state.h"

using swdla::Call;
using swdla::state;

#define SWDLA_ENTRY(name)  \
  const Call call (#name); \
  if (call.injected ())    \
  return cudlaStatus (call.injected ())

namespace {

/* Releases a module's device memory and forgets it. */
void drop_module (cudlaModule_t *m)
{
  state ().modules.erase (m);
  if (m->owner)
    m->owner->module = nullptr;
  delete m;
}

std::string hex (uint64_t v)
{
  char buf[32];
  std::snprintf (buf, sizeof buf, "0x%llx", static_cast<unsigned long long> (v));
  return buf;
}

}  // namespace

extern "C" {

cudlaStatus cudlaGetVersion (uint64_t *const version)
{
  SWDLA_ENTRY (cudlaGetVersion);
  if (!version)
    return call.refuse (cudlaErrorInvalidParam, "version is NULL");
  *version = 13000000; /* 1000000 * major + 1000 * minor + patch: the API level of cudla_abi.h */
  return cudlaSuccess;
}

cudlaStatus cudlaDeviceGetCount (uint64_t *const pNumDevices)
{
  SWDLA_ENTRY (cudlaDeviceGetCount);
  if (!pNumDevices)
    return call.refuse (cudlaErrorInvalidParam, "pNumDevices is NULL");
  *pNumDevices = uint64_t (swdla::num_cores ());
  return cudlaSuccess;
}

cudlaStatus cudlaCreateDevice (uint64_t const device, cudlaDevHandle *const devHandle, uint32_t const flags)
{
  SWDLA_ENTRY (cudlaCreateDevice);
  if (!devHandle)
    return call.refuse (cudlaErrorInvalidParam, "devHandle is NULL");
  if (flags == CUDLA_STANDALONE)
    return call.refuse (cudlaErrorUnsupportedOperation,
                        "standalone mode (CUDLA_STANDALONE): swdla is hybrid only");
  if (flags != CUDLA_CUDA_DLA)
    return call.refuse (cudlaErrorInvalidParam, "flags " + std::to_string (flags) + " is not a cudlaMode");
  const int cores = swdla::num_cores ();
  if (device >= uint64_t (cores))
    return call.refuse (cudlaErrorInvalidParam, "DLA core " + std::to_string (device) + " does not exist (" +
                                                    std::to_string (cores) + " cores, SWDLA_NUM_CORES)");
  std::lock_guard<std::mutex> lock (state ().mutex);
  const cudlaStatus usable = swdla::cuda_usable (call);
  if (usable != cudlaSuccess)
    return usable;
  swdla::Core &core = state ().cores[device];
  if (core.handles >= swdla::kHandlesPerCore)
    return call.refuse (cudlaErrorOutOfResources, "core " + std::to_string (device) + " already has " +
                                                      std::to_string (swdla::kHandlesPerCore) +
                                                      " device handles");
  if (!state ().poison_ready) {
    if (state ().poison.allocate () != cudaSuccess)
      return call.refuse (cudlaErrorCuda, "cudaHostAlloc of the fault flag failed");
    state ().poison_ready = true;
  }
  auto *h = new cudlaDevHandle_t;
  h->core = int (device);
  if (h->status.allocate () != cudaSuccess) {
    delete h;
    return call.refuse (cudlaErrorCuda, "cudaHostAlloc of the status word failed");
  }
  ++core.handles;
  state ().handles.insert (h);
  *devHandle = h;
  return cudlaSuccess;
}

cudlaStatus cudlaMemRegister (cudlaDevHandle const devHandle, const uint64_t *const ptr, size_t const size,
                              uint64_t **const devPtr, uint32_t const flags)
{
  SWDLA_ENTRY (cudlaMemRegister);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  if (!ptr || !devPtr || size == 0)
    return call.refuse (cudlaErrorInvalidParam, "ptr, devPtr NULL or size 0");
  if (flags == CUDLA_TASK_STATISTICS)
    return call.refuse (cudlaErrorUnsupportedOperation, "layerwise statistics buffers are not emulated");
  if (flags != 0)
    return call.refuse (cudlaErrorInvalidParam,
                        "flags " + std::to_string (flags) + " (0 or CUDLA_TASK_STATISTICS)");
  const cudlaStatus usable = swdla::cuda_usable (call);
  if (usable != cudlaSuccess)
    return usable;
  const uintptr_t p = reinterpret_cast<uintptr_t> (ptr);
  if (p & 31u)
    return call.refuse (cudlaErrorInvalidAddress, "ptr " + hex (p) + " is not 32-byte aligned");
  std::string why;
  if (!swdla::device_range_ok (ptr, size, &why))
    return call.refuse (cudlaErrorInvalidAddress, "ptr " + hex (p) + ": " + why);
  for (auto &kv : devHandle->registrations) {
    const swdla::Registration &r = kv.second;
    const uintptr_t q = reinterpret_cast<uintptr_t> (r.cuda_ptr);
    if (p < q + r.size && q < p + size) {
      if (p == q && size == r.size)
        *devPtr = reinterpret_cast<uint64_t *> (r.dla); /* the same registration again: its pointer */
      return call.refuse (cudlaErrorMemoryRegistered,
                          "ptr " + hex (p) + " overlaps memory registered on this handle");
    }
  }
  if (devHandle->registrations.size () >= swdla::kMaxRegistrations)
    return call.refuse (cudlaErrorOutOfResources, "too many registrations on one handle");
  swdla::Registration r;
  r.cuda_ptr = ptr;
  r.size = size;
  r.dla = swdla::kDlaBase + (state ().next_registration++ << 32);
  devHandle->registrations[r.dla] = r;
  *devPtr = reinterpret_cast<uint64_t *> (r.dla);
  return cudlaSuccess;
}

cudlaStatus cudlaMemUnregister (cudlaDevHandle const devHandle, const uint64_t *const devPtr)
{
  SWDLA_ENTRY (cudlaMemUnregister);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  const uint64_t addr = reinterpret_cast<uintptr_t> (devPtr);
  auto it = devHandle->registrations.find (addr);
  if (it == devHandle->registrations.end ()) {
    for (auto &kv : devHandle->registrations)
      if (kv.second.cuda_ptr == devPtr)
        return call.refuse (cudlaErrorInvalidAddress, hex (addr) +
                                                          " is the CUDA pointer; pass the DLA pointer " +
                                                          hex (kv.first) + " that cudlaMemRegister returned");
    return call.refuse (cudlaErrorInvalidAddress, hex (addr) + " is not registered on this handle");
  }
  if (it->second.last_use && !it->second.last_use->done ())
    return call.refuse (cudlaErrorUmd, "a task using " + hex (addr) + " is still in flight");
  devHandle->registrations.erase (it);
  return cudlaSuccess;
}

cudlaStatus cudlaModuleLoadFromMemory (cudlaDevHandle const devHandle, const uint8_t *const pModule,
                                       size_t const moduleSize, cudlaModule *const hModule,
                                       uint32_t const flags)
{
  SWDLA_ENTRY (cudlaModuleLoadFromMemory);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  if (!hModule)
    return call.refuse (cudlaErrorInvalidParam, "hModule is NULL");
  if (flags == CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS)
    return call.refuse (cudlaErrorUnsupportedOperation, "fault-diagnostics modules are not emulated");
  if (flags != CUDLA_MODULE_DEFAULT)
    return call.refuse (cudlaErrorInvalidParam, "flags " + std::to_string (flags));
  if (!pModule || moduleSize == 0)
    return call.refuse (cudlaErrorInvalidParam, "pModule NULL or moduleSize 0");
  if (devHandle->loaded_once)
    return call.refuse (
        cudlaErrorUnsupportedOperation,
        "this handle has loaded a module already (one per handle lifetime; create another handle)");
  swdla::Model model;
  std::string why;
  if (!swdla::parse_model (pModule, moduleSize, &model, &why))
    return call.refuse (cudlaErrorInvalidParam, why);
  /* swdla shares the layout header with the kernel: a second, independent reading of NVIDIA's
   * formats must agree with it, or a header bug would round-trip unseen. */
  if (!(why = swdla::layout_disagreement (model)).empty ())
    return call.refuse (cudlaErrorUmd, why);
  const cudlaStatus usable = swdla::cuda_usable (call);
  if (usable != cudlaSuccess)
    return usable;
  auto *m = new cudlaModule_t;
  m->model = model;
  const cudaError_t err = swdla::DeviceModel::Create (model, &m->device);
  if (err != cudaSuccess) {
    delete m;
    return call.refuse (err == cudaErrorMemoryAllocation ? cudlaErrorOutOfResources : cudlaErrorCuda,
                        std::string ("uploading the model failed: ") + cudaGetErrorName (err));
  }
  m->owner = devHandle;
  devHandle->module = m;
  devHandle->loaded_once = true;
  state ().modules.insert (m);
  *hModule = m;
  return cudlaSuccess;
}

cudlaStatus cudlaModuleGetAttributes (cudlaModule const hModule, cudlaModuleAttributeType const attrType,
                                      cudlaModuleAttribute *const attribute)
{
  SWDLA_ENTRY (cudlaModuleGetAttributes);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (hModule))
    return call.refuse (cudlaErrorInvalidModule, "unknown module");
  if (!attribute)
    return call.refuse (cudlaErrorInvalidParam, "attribute is NULL");
  const swdla::Model &m = hModule->model;
  switch (attrType) {
    case CUDLA_NUM_INPUT_TENSORS:
      attribute->numInputTensors = uint32_t (m.inputs.size ());
      return cudlaSuccess;
    case CUDLA_NUM_OUTPUT_TENSORS:
      attribute->numOutputTensors = uint32_t (m.outputs.size ());
      return cudlaSuccess;
    case CUDLA_INPUT_TENSOR_DESCRIPTORS:
    case CUDLA_OUTPUT_TENSOR_DESCRIPTORS: {
      /* The caller pre-sets the pointer to its own array of as many descriptors as the count query gave. */
      const bool in = attrType == CUDLA_INPUT_TENSOR_DESCRIPTORS;
      cudlaModuleTensorDescriptor *out = in ? attribute->inputTensorDesc : attribute->outputTensorDesc;
      if (!out)
        return call.refuse (cudlaErrorInvalidParam,
                            "the descriptor array pointer is NULL (set it before the call)");
      uint32_t reading = 0;
      std::string why;
      if (!swdla::parse_reading (std::getenv ("SWDLA_DESCRIPTOR_READING"), &reading, &why))
        return call.refuse (cudlaErrorInvalidAttribute, why);
      for (const swdla::TensorSpec &t : in ? m.inputs : m.outputs)
        swdla::fill_descriptor (t, reading, out++);
      return cudlaSuccess;
    }
    case CUDLA_NUM_OUTPUT_TASK_STATISTICS:
      attribute->numOutputTensors = 0; /* layerwise statistics are not emulated */
      return cudlaSuccess;
    case CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS:
      return call.refuse (cudlaErrorUnsupportedOperation, "layerwise statistics are not emulated");
  }
  return call.refuse (cudlaErrorInvalidAttribute, "attribute type " + std::to_string (int (attrType)));
}

cudlaStatus cudlaModuleUnload (cudlaModule const hModule, uint32_t const flags)
{
  SWDLA_ENTRY (cudlaModuleUnload);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (hModule))
    return call.refuse (cudlaErrorInvalidModule, "unknown module");
  if (flags != 0)
    return call.refuse (cudlaErrorInvalidParam, "flags must be 0");
  cudlaDevHandle_t *h = hModule->owner;
  if (h->busy ())
    return call.refuse (cudlaErrorUmd, "tasks are still in flight (synchronise the stream first)");
  if (!h->registrations.empty ())
    return call.refuse (cudlaErrorUmd,
                        std::to_string (h->registrations.size ()) +
                            " buffer(s) still registered on the handle (unregister them first)");
  drop_module (hModule);
  return cudlaSuccess;
}

cudlaStatus cudlaDeviceGetAttribute (cudlaDevHandle const devHandle, cudlaDevAttributeType const attrib,
                                     cudlaDevAttribute *const pAttribute)
{
  SWDLA_ENTRY (cudlaDeviceGetAttribute);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  if (!pAttribute)
    return call.refuse (cudlaErrorInvalidParam, "pAttribute is NULL");
  switch (attrib) {
    case CUDLA_UNIFIED_ADDRESSING:
      pAttribute->deviceVersion = 0;
      pAttribute->unifiedAddressingSupported = 0; /* DLA pointers differ from CUDA pointers */
      return cudlaSuccess;
    case CUDLA_DEVICE_VERSION:
      pAttribute->deviceVersion = 2; /* Orin's "2.0"; the real encoding is unverified */
      return cudlaSuccess;
  }
  return call.refuse (cudlaErrorInvalidAttribute, "attribute " + std::to_string (int (attrib)));
}

cudlaStatus cudlaGetLastError (cudlaDevHandle const devHandle)
{
  SWDLA_ENTRY (cudlaGetLastError);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  return cudlaStatus (devHandle->status.read ());
}

cudlaStatus cudlaDestroyDevice (cudlaDevHandle const devHandle)
{
  SWDLA_ENTRY (cudlaDestroyDevice);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  if (devHandle->busy ())
    return call.refuse (cudlaErrorUmd, "tasks are still in flight (synchronise the stream first)");
  if (!devHandle->registrations.empty ())
    return call.refuse (cudlaErrorUmd, std::to_string (devHandle->registrations.size ()) +
                                           " buffer(s) still registered (unregister them first)");
  if (devHandle->module)
    drop_module (devHandle->module); /* destroying a handle unloads its module */
  --state ().cores[devHandle->core].handles;
  state ().handles.erase (devHandle);
  delete devHandle;
  return cudlaSuccess;
}

cudlaStatus cudlaSetTaskTimeoutInMs (cudlaDevHandle const devHandle, uint32_t const timeout)
{
  SWDLA_ENTRY (cudlaSetTaskTimeoutInMs);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  if (timeout == 0 || timeout > 1000000)
    return call.refuse (cudlaErrorInvalidParam, "timeout " + std::to_string (timeout) + " ms (1..1000000)");
  devHandle->timeout_ms = timeout;
  return cudlaSuccess;
}

/* Standalone-mode (NvSci) entry points: not in hybrid mode. */
cudlaStatus cudlaImportExternalMemory (cudlaDevHandle const devHandle,
                                       const cudlaExternalMemoryHandleDesc *const, uint64_t **const,
                                       uint32_t const)
{
  SWDLA_ENTRY (cudlaImportExternalMemory);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  return call.refuse (cudlaErrorUnsupportedOperation, "NvSciBuf import is standalone-only");
}

cudlaStatus cudlaGetNvSciSyncAttributes (uint64_t *, uint32_t const)
{
  SWDLA_ENTRY (cudlaGetNvSciSyncAttributes);
  return call.refuse (cudlaErrorUnsupportedOperation, "NvSciSync is standalone-only");
}

cudlaStatus cudlaImportExternalSemaphore (cudlaDevHandle const devHandle,
                                          const cudlaExternalSemaphoreHandleDesc *const, uint64_t **const,
                                          uint32_t const)
{
  SWDLA_ENTRY (cudlaImportExternalSemaphore);
  std::lock_guard<std::mutex> lock (state ().mutex);
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  return call.refuse (cudlaErrorUnsupportedOperation, "NvSciSync semaphores are standalone-only");
}

}  // extern "C"

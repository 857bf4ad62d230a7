/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/module.h"

#include <cstring>

#include "dla/model_file.h"
#include "dla/status_names.h"

namespace dla {

Status read_descriptors (const CudlaApi &api, cudlaModule module, bool inputs,
                         std::vector<cudlaModuleTensorDescriptor> *out)
{
  const char *what = inputs ? "input" : "output";
  cudlaModuleAttribute attr;
  std::memset (&attr, 0, sizeof attr);
  cudlaStatus s =
      api.ModuleGetAttributes (module, inputs ? CUDLA_NUM_INPUT_TENSORS : CUDLA_NUM_OUTPUT_TENSORS, &attr);
  if (s != cudlaSuccess)
    return Status::Error (Code::kModel, cudla_call_failed ("cudlaModuleGetAttributes", s) + " (number of " +
                                            what + " tensors)");
  const uint32_t count = inputs ? attr.numInputTensors : attr.numOutputTensors;
  if (count == 0)
    return Status::Error (Code::kModel, std::string ("the model has no ") + what + " tensor");
  /* A DLA loadable has a handful of I/O tensors; a huge count means a broken library or model. */
  if (count > 256)
    return Status::Error (Code::kModel, "cudlaModuleGetAttributes reports " + std::to_string (count) + " " +
                                            what + " tensors, more than any DLA loadable has");
  std::vector<cudlaModuleTensorDescriptor> descs (count);
  std::memset (descs.data (), 0, descs.size () * sizeof descs[0]);
  /* The caller owns the array: the union's pointer member is set before the query. */
  if (inputs)
    attr.inputTensorDesc = descs.data ();
  else
    attr.outputTensorDesc = descs.data ();
  s = api.ModuleGetAttributes (
      module, inputs ? CUDLA_INPUT_TENSOR_DESCRIPTORS : CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &attr);
  if (s != cudlaSuccess)
    return Status::Error (Code::kModel, cudla_call_failed ("cudlaModuleGetAttributes", s) + " (" + what +
                                            " tensor descriptors)");
  *out = std::move (descs);
  return Status::Ok ();
}

Status Module::Load (std::shared_ptr<const Device> device, const uint8_t *bytes, size_t size,
                     const std::string &origin, Module *out)
{
  if (!device || !device->valid ())
    return Status::Error (Code::kInit, "no DLA device to load the model into");
  const Device &dev = *device;
  Status st = check_model_for_backend (bytes, size, dev.library ().backend (), origin);
  if (!st.ok ())
    return st;
  ScopedContext scope (dev.context ().handle ());
  const CudlaApi &api = dev.api ();
  cudlaModule handle = nullptr;
  const cudlaStatus s = api.ModuleLoadFromMemory (dev.handle (), bytes, size, &handle, CUDLA_MODULE_DEFAULT);
  if (s != cudlaSuccess || !handle)
    return Status::Error (
        Code::kModel,
        cudla_call_failed ("cudlaModuleLoadFromMemory", s) + dev.library ().refusal_detail () + " for '" +
            origin + "' (" + std::to_string (size) + " bytes)" +
            (s == cudlaErrorUnsupportedOperation ? ": this device handle already has a module" : "") +
            (s == cudlaErrorInvalidParam || s == cudlaErrorUmd
                 ? ": the loadable may be corrupt or built for another DLA, JetPack or TensorRT version"
                 : ""));
  Module m;
  m.handle_ = UniqueHandle<cudlaModule, Release> (handle, Release{std::move (device)});
  st = read_descriptors (api, handle, true, &m.inputs_);
  if (st.ok ())
    st = read_descriptors (api, handle, false, &m.outputs_);
  if (!st.ok ())
    return st; /* m unloads the module */
  *out = std::move (m);
  return Status::Ok ();
}

void Module::reset () noexcept
{
  handle_.reset ();
  inputs_.clear ();
  outputs_.clear ();
}

void Module::Release::operator() (cudlaModule module) const noexcept
{
  ScopedContext scope (device->context ().handle ());
  device->api ().ModuleUnload (module, 0);
}

}  // namespace dla

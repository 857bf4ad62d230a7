/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/model_file.h"

#include <cstring>

#include "host/file_read.h"

namespace dla {

const char *const kTrtexecRecipe =
    "trtexec --onnx=model.onnx --useDLACore=0 --inputIOFormats=fp16:chw16 --outputIOFormats=fp16:chw16 "
    "--buildDLAStandalone --saveEngine=model.loadable";

Status read_model_file (const std::string &path, std::vector<uint8_t> *out)
{
  if (path.empty ())
    return Status::Error (Code::kSettings, "no model file given: set the model property to a DLA loadable");
  /* Loadables are megabytes; a bigger file is not one (and must not be read into memory). */
  constexpr size_t kMaxModelBytes = size_t (1) << 30;
  std::string bytes;
  Status st = host::read_whole_file (path, kMaxModelBytes, "model file", &bytes);
  if (!st.ok ())
    return st;
  if (bytes.empty ())
    return Status::Error (Code::kModel, "model file '" + path + "' is empty (0 bytes); " +
                                            "build a DLA loadable with: " + kTrtexecRecipe);
  out->assign (bytes.begin (), bytes.end ());
  return Status::Ok ();
}

ModelKind model_kind (const uint8_t *bytes, size_t size)
{
  if (size >= 8 && std::memcmp (bytes, kSwdlaMagic, 8) == 0)
    return ModelKind::kSwdla;
  if (size >= 8 && std::memcmp (bytes + 4, "NVDA", 4) == 0)
    return ModelKind::kNvidiaLoadable;
  if (size >= 4 && std::memcmp (bytes, kTensorRtMagic, 4) == 0)
    return ModelKind::kTensorRtEngine;
  return ModelKind::kUnknown;
}

const char *model_kind_name (ModelKind kind)
{
  switch (kind) {
    case ModelKind::kNvidiaLoadable:
      return "NVIDIA DLA loadable";
    case ModelKind::kSwdla:
      return "swdla model";
    case ModelKind::kTensorRtEngine:
      return "TensorRT engine";
    case ModelKind::kUnknown:
      break;
  }
  return "unknown";
}

Status check_model_for_backend (const uint8_t *bytes, size_t size, const std::string &backend,
                                const std::string &origin)
{
  switch (model_kind (bytes, size)) {
    case ModelKind::kNvidiaLoadable:
      if (backend == "swdla")
        return Status::Error (
            Code::kModel,
            "'" + origin +
                "' is an NVIDIA DLA loadable, but the cuDLA library "
                "loaded is swdla (the software DLA of the tests), which runs only its own models: unset "
                "DLAINFER_CUDLA_LIBRARY on a Jetson to use the DLA, or give an swdla model");
      return Status::Ok ();
    case ModelKind::kSwdla:
      if (backend != "swdla")
        return Status::Error (
            Code::kModel,
            "'" + origin +
                "' is a model of swdla (the software DLA of "
                "gst-dlainfer's tests), which real cuDLA cannot load: give a DLA loadable built with: " +
                kTrtexecRecipe);
      return Status::Ok ();
    case ModelKind::kTensorRtEngine:
      return Status::Error (
          Code::kModel, "'" + origin + "' (" + std::to_string (size) +
                            " bytes) is a TensorRT "
                            "engine, not a cuDLA loadable: rebuild it with trtexec --buildDLAStandalone: " +
                            kTrtexecRecipe);
    case ModelKind::kUnknown:
      break;
  }
  return Status::Error (Code::kModel, "'" + origin + "' (" + std::to_string (size) +
                                          " bytes) is not a DLA "
                                          "loadable (no 'NVDA' at bytes 4..7). A loadable is a DLA "
                                          "standalone engine, made from an ONNX model "
                                          "on the Jetson with: " +
                                          kTrtexecRecipe + " (a TensorRT .engine/.plan file will not do)");
}

}  // namespace dla

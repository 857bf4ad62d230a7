/* gst-dlainfer: the result of every dla-layer call: a code the element maps to a GStreamer error
 * domain, and a message that names the call, the status name and number, and the fix. */
#pragma once

#include <string>
#include <utility>

namespace dla {

enum class Code {
  kOk,
  kNotFound, /* library, device, model file: RESOURCE/NOT_FOUND */
  kSettings, /* bad property value: RESOURCE/SETTINGS */
  kInit,     /* CUDA or cuDLA initialisation: LIBRARY/INIT */
  kModel,    /* model refused or of a shape we cannot use: RESOURCE/SETTINGS */
  kRuntime,  /* one task failed: STREAM/FAILED */
  kTimeout,  /* a task did not finish in time: STREAM/FAILED */
  kFatal,    /* CUDA is poisoned (cudaErrorExternalDevice): restart the process */
};

struct Status {
  Code code = Code::kOk;
  std::string message;

  bool ok () const { return code == Code::kOk; }
  static Status Ok () { return {}; }
  static Status Error (Code c, std::string msg) { return {c, std::move (msg)}; }
};

}  // namespace dla

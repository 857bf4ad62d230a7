/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the result of every call of the C++ layers (host, dla): a code the element maps to
 * a GStreamer error domain, and a message that names the call, the status name and number, and the
 * fix. The lowest layer defines it; dla/status.h names it in namespace dla. */
#pragma once

#include <string>
#include <utility>

namespace host {

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

}  // namespace host

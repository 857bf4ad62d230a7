/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a loaded cuDLA module (one per device handle) and its I/O tensor descriptors. */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dla/abi/cudla_abi.h"
#include "dla/device.h"
#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

class Module {
 public:
  /* Loads model bytes (an NVIDIA loadable, or an swdla model on the swdla backend) into `dev` and
   * reads its descriptors (the count query, then the descriptor query into our own array).
   * `origin` (the file name) appears in messages. The module holds the device. */
  static Status Load (std::shared_ptr<const Device> dev, const uint8_t *bytes, size_t size,
                      const std::string &origin, Module *out);

  const std::vector<cudlaModuleTensorDescriptor> &inputs () const { return inputs_; }
  const std::vector<cudlaModuleTensorDescriptor> &outputs () const { return outputs_; }
  cudlaModule handle () const { return handle_.get (); }
  const std::shared_ptr<const Device> &device () const { return handle_.releaser ().device; }
  void reset () noexcept;

  /* cudlaModuleUnload with the device's context current. */
  struct Release {
    std::shared_ptr<const Device> device;
    void operator() (cudlaModule module) const noexcept;
  };

 private:
  UniqueHandle<cudlaModule, Release> handle_;
  std::vector<cudlaModuleTensorDescriptor> inputs_, outputs_;
};

/* Reads the descriptors of one direction: count query then descriptor query (exposed for tests). */
Status read_descriptors (const CudlaApi &api, cudlaModule module, bool inputs,
                         std::vector<cudlaModuleTensorDescriptor> *out);

}  // namespace dla

/* gst-dlainfer: a loaded cuDLA module (one per device handle) and its I/O tensor descriptors. */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudla_abi.h"
#include "device.h"
#include "status.h"

namespace dla {

class Module {
 public:
  Module () = default;
  ~Module () { reset (); }
  Module (Module &&o) noexcept;
  Module &operator= (Module &&o) noexcept;
  Module (const Module &) = delete;
  Module &operator= (const Module &) = delete;

  /* Loads model bytes (an NVIDIA loadable, or an swdla model on the swdla backend) into `dev` and
   * reads its descriptors (the count query, then the descriptor query into our own array).
   * `origin` (the file name) appears in messages. `dev` must outlive the module. */
  static Status Load (const Device &dev, const uint8_t *bytes, size_t size, const std::string &origin,
                      Module *out);

  const std::vector<cudlaModuleTensorDescriptor> &inputs () const { return inputs_; }
  const std::vector<cudlaModuleTensorDescriptor> &outputs () const { return outputs_; }
  cudlaModule handle () const { return handle_; }
  void reset () noexcept;

 private:
  std::shared_ptr<const Library> lib_;
  void *ctx_ = nullptr;
  cudlaModule handle_ = nullptr;
  std::vector<cudlaModuleTensorDescriptor> inputs_, outputs_;
};

/* Reads the descriptors of one direction: count query then descriptor query (exposed for tests). */
Status read_descriptors (const CudlaApi &api, cudlaModule module, bool inputs,
                         std::vector<cudlaModuleTensorDescriptor> *out);

}  // namespace dla

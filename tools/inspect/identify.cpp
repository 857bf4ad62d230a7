/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tools/inspect/identify.h"

#include <cstdio>
#include <cstring>

#include "dla/model_file.h"
#include "tools/inspect/options.h"

namespace inspect {
namespace {

uint32_t le32 (const std::vector<uint8_t> &b, size_t off)
{
  return uint32_t (b[off]) | uint32_t (b[off + 1]) << 8 | uint32_t (b[off + 2]) << 16 |
         uint32_t (b[off + 3]) << 24;
}

}  // namespace

/* What the file is, from its bytes alone. Returns the exit code for a file that cannot load. */
int identify (const std::string &path, const std::vector<uint8_t> &b)
{
  const dla::ModelKind kind = dla::model_kind (b.data (), b.size ());
  std::printf ("file: %s (%zu bytes)\n", path.c_str (), b.size ());
  switch (kind) {
    case dla::ModelKind::kNvidiaLoadable:
      std::printf ("kind: cuDLA standalone loadable ('NVDA' at bytes 4..7)\n");
      return kOk;
    case dla::ModelKind::kTensorRtEngine:
      std::printf ("kind: TensorRT engine ('ftrt' at byte 0)\n");
      std::printf (
          "note: this is a TensorRT engine, not a cuDLA loadable: rebuild with trtexec "
          "--buildDLAStandalone (%s)\n",
          dla::kTrtexecRecipe);
      return kNotModel;
    case dla::ModelKind::kSwdla: {
      /* FORMAT.md: magic, version, header bytes, inputs, outputs, layers, file bytes. */
      if (b.size () < 32) {
        std::printf ("kind: swdla model, truncated: %zu bytes, shorter than its 32-byte header\n", b.size ());
        return kNotModel;
      }
      const uint32_t version = le32 (b, 8), ins = le32 (b, 16), outs = le32 (b, 20), layers = le32 (b, 24),
                     declared = le32 (b, 28);
      std::printf (
          "kind: swdla model (the software DLA of gst-dlainfer's tests, 'SWDLAMDL'): version %u, "
          "%u input(s), %u output(s), %u layer(s)\n",
          version, ins, outs, layers);
      if (declared != b.size ()) {
        std::printf ("note: the header declares %u bytes but the file has %zu: %s\n", declared, b.size (),
                     declared > b.size () ? "truncated" : "trailing bytes");
        return kNotModel;
      }
      if (version != 2) {
        std::printf (
            "note: version %u is not one swdla reads (2): rebuild it with swdla-tool build or import\n",
            version);
        return kNotModel;
      }
      return kOk;
    }
    case dla::ModelKind::kUnknown:
      break;
  }
  if (b.size () >= 4 && std::memcmp (b.data (),
                                     "\x7f"
                                     "ELF",
                                     4) == 0)
    std::printf ("kind: an ELF file (a program or library), not a model\n");
  else if (b.size () >= 2 && b[0] == 0x08 && b[1] < 0x20)
    std::printf ("kind: unknown; it may be an ONNX model (protobuf): build a loadable from it with: %s\n",
                 dla::kTrtexecRecipe);
  else
    std::printf ("kind: unknown (no 'NVDA' at bytes 4..7, no 'ftrt' or 'SWDLAMDL' at byte 0)%s\n",
                 b.size () < 8 ? ": too short for any model" : "");
  std::printf ("note: a cuDLA loadable is made on the Jetson with: %s\n", dla::kTrtexecRecipe);
  return kNotModel;
}

}  // namespace inspect

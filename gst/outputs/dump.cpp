/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/dump.h"

#include <glib/gstdio.h>

#include <cerrno>
#include <cstdio>

namespace dlainfer {
namespace {

std::string line (const char *dir, const std::string &name, const tensor::View &v, float scale)
{
  char buf[512];
  std::snprintf (buf, sizeof buf,
                 "%s %s: layout=%s type=%s n=%lld c=%lld h=%lld w=%lld lanes=%d elem-size=%d row-stride=%lld "
                 "plane-stride=%lld batch-stride=%lld size=%lld scale=%g\n",
                 dir, name.c_str (), tensor::layout_name (v.layout), tensor::elem_type_name (v.type),
                 (long long)v.n, (long long)v.c, (long long)v.h, (long long)v.w, v.lanes,
                 tensor::elem_size (v.type), (long long)v.row_stride, (long long)v.plane_stride,
                 (long long)v.batch_stride, (long long)v.size, double (scale));
  return buf;
}

bool write_file (const std::string &path, const void *data, size_t bytes, std::string *error)
{
  GError *err = nullptr;
  if (g_file_set_contents (path.c_str (), static_cast<const gchar *> (data), gssize (bytes), &err))
    return true;
  *error = std::string ("dump-dir: cannot write '") + path + "': " + err->message +
           ": give a writable folder with room for the tensors";
  g_clear_error (&err);
  return false;
}

std::string file_name (guint64 number, const char *what, const std::string &tensor, const char *ext)
{
  char prefix[32];
  std::snprintf (prefix, sizeof prefix, "%06llu", (unsigned long long)number);
  std::string safe = tensor;
  for (char &ch : safe)
    if (!g_ascii_isalnum (ch) && ch != '-' && ch != '_')
      ch = '_';
  return std::string (prefix) + "-" + what + "-" + safe + ext;
}

}  // namespace

std::string dump_description (const std::vector<dla::TensorInfo> &inputs, float input_scale,
                              const std::vector<TensorPlan> &outputs)
{
  std::string s =
      "# dlainfer dump. NNNNNN is the dump's number. Files:\n"
      "#   NNNNNN-input-<tensor>.bin, NNNNNN-output-<tensor>.bin: the tensor as the DLA read or wrote it,\n"
      "#     padding included, in the layout below (INT8: value = q * scale)\n"
      "#   NNNNNN-output-<tensor>.f32: the same output de-padded: float32 little-endian, row-major\n"
      "#     N x C x H x W (INT8 times its scale): what tensor-meta attaches as FLOAT32\n"
      "# Byte offset of element (n, c, h, w) in a .bin file:\n"
      "#   n*batch-stride + (c/lanes)*plane-stride + h*row-stride + w*lanes*elem-size + (c%lanes)*elem-size\n"
      "# (docs/dla-formats.md). Tensors:\n";
  for (const dla::TensorInfo &t : inputs)
    s += line ("input", t.name, t.view, t.view.type == tensor::ElemType::kInt8 ? input_scale : 1.f);
  for (const TensorPlan &p : outputs)
    s += line ("output", p.name, p.view, p.view.type == tensor::ElemType::kInt8 ? p.int8_scale : 1.f);
  return s;
}

void Dump::set_dir (const std::string &dir)
{
  std::lock_guard<std::mutex> lock (mutex_);
  dir_ = dir;
  described_ = false;
}

void Dump::set_count (guint count)
{
  std::lock_guard<std::mutex> lock (mutex_);
  count_ = count;
  described_ = false;
}

std::string Dump::dir () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return dir_;
}

guint Dump::count () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return count_;
}

bool Dump::write (dla::Engine &engine, int slot, const std::vector<TensorPlan> &outputs, float input_scale,
                  std::string *error)
{
  std::lock_guard<std::mutex> lock (mutex_);
  if (count_ == 0)
    return true;
  const guint left = count_;
  count_ = 0; /* disarmed on any failure below */
  if (dir_.empty ()) {
    *error = "dump-count is " + std::to_string (left) + " but dump-dir is not set: set dump-dir to a folder";
    return false;
  }
  if (g_mkdir_with_parents (dir_.c_str (), 0755) != 0) {
    *error =
        "dump-dir: cannot create '" + dir_ + "': " + g_strerror (errno) + ": give a folder you can write";
    return false;
  }
  const std::string desc = dump_description (engine.inputs (), input_scale, outputs);
  if (!described_ && !write_file (dir_ + "/layout.txt", desc.data (), desc.size (), error))
    return false;
  described_ = true;
  if (!write_inputs (engine, slot, error) || !write_outputs (engine, slot, outputs, error))
    return false;
  ++next_;
  count_ = left - 1;
  return true;
}

bool Dump::write_inputs (dla::Engine &engine, int slot, std::string *error)
{
  for (size_t i = 0; i < engine.inputs ().size (); ++i) {
    const dla::TensorInfo &t = engine.inputs ()[i];
    std::vector<uint8_t> host (size_t (t.view.size));
    const dla::Status st = engine.read_input (slot, int (i), host.data (), host.size ());
    if (!st.ok ()) {
      *error = "dump-dir: cannot read input '" + t.name + "': " + st.message;
      return false;
    }
    if (!write_file (dir_ + "/" + file_name (next_, "input", t.name, ".bin"), host.data (), host.size (),
                     error))
      return false;
  }
  return true;
}

bool Dump::write_outputs (dla::Engine &engine, int slot, const std::vector<TensorPlan> &outputs,
                          std::string *error)
{
  for (size_t i = 0; i < outputs.size (); ++i) {
    TensorPlan dense = outputs[i];
    dense.type = depad::Type::kFloat32;
    const void *raw = engine.host_output (slot, int (i));
    std::vector<uint8_t> read; /* no padded host copy (raw tensors on the GPU): read it back */
    if (!raw) {
      read.resize (size_t (engine.outputs ()[i].view.size));
      const dla::Status st = engine.read_output (slot, int (i), read.data (), read.size ());
      if (!st.ok ()) {
        *error = "dump-dir: cannot read output '" + dense.name + "': " + st.message;
        return false;
      }
      raw = read.data ();
    }
    std::vector<float> values (depad::elements (dense.view));
    depad::depad (dense.view, raw, dense.int8_scale, dense.type, values.data ());
    const std::string base = dir_ + "/";
    if (!write_file (base + file_name (next_, "output", dense.name, ".bin"), raw,
                     size_t (engine.outputs ()[i].view.size), error) ||
        !write_file (base + file_name (next_, "output", dense.name, ".f32"), values.data (),
                     values.size () * sizeof (float), error))
      return false;
  }
  return true;
}

}  // namespace dlainfer

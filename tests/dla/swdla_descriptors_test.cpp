/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cross-check with swdla on the CPU: every generated swdla test model, its descriptors filled as
 * swdla fills them in each of its 27 reading combinations (tests/swdla/descriptors.h), must map
 * to the layout swdla executes (same strides, same size). No GPU and no cuDLA needed. */
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "descriptors.h"
#include "dla/descriptor_map.h"
#include "model.h"
#include "test_support.h"

namespace {

std::vector<std::string> models ()
{
  std::vector<std::string> out;
  const std::string dir = dlainfer_test::test_data ("");
  if (DIR *d = opendir (dir.c_str ())) {
    while (dirent *e = readdir (d)) {
      const std::string n = e->d_name;
      if (n.size () > 6 && n.compare (n.size () - 6, 6, ".swdla") == 0)
        out.push_back (dir + n);
    }
    closedir (d);
  }
  return out;
}

bool same (const tensor::View &a, const tensor::View &b)
{
  return a.type == b.type && a.lanes == b.lanes && a.row_stride == b.row_stride &&
         a.plane_stride == b.plane_stride && a.batch_stride == b.batch_stride && a.size == b.size &&
         a.n == b.n && a.h == b.h && a.w == b.w;
}

TEST (SwdlaDescriptors, EveryModelInEveryReadingMapsToItsLayout)
{
  const std::vector<std::string> files = models ();
  if (files.empty ())
    GTEST_FAIL () << "no swdla models in " << dlainfer_test::test_data ("")
                  << " (build the swdla-models target)";
  const uint32_t c_readings[] = {swdla::kReadingOrin, swdla::kReadingCPadded, swdla::kReadingCReal};
  const uint32_t stride_readings[] = {0, swdla::kReadingStridesZero, swdla::kReadingStridesWhcn};
  const uint32_t code_readings[] = {0, swdla::kReadingCodesNchw, swdla::kReadingCodesUnknown};
  int checked = 0, models_read = 0;
  for (const std::string &path : files) {
    std::ifstream in (path, std::ios::binary);
    const std::vector<uint8_t> bytes ((std::istreambuf_iterator<char> (in)),
                                      std::istreambuf_iterator<char> ());
    swdla::Model m;
    std::string why;
    if (!swdla::parse_model (bytes.data (), bytes.size (), &m, &why))
      continue; /* the deliberately broken files */
    ++models_read;
    for (uint32_t cr : c_readings)
      for (uint32_t sr : stride_readings)
        for (uint32_t kr : code_readings) {
          const uint32_t reading = cr | sr | kr;
          for (int dir = 0; dir < 2; ++dir) {
            const auto &specs = dir == 0 ? m.inputs : m.outputs;
            for (const swdla::TensorSpec &t : specs) {
              cudlaModuleTensorDescriptor d;
              swdla::fill_descriptor (t, reading, &d);
              SCOPED_TRACE (path + " reading " + std::to_string (reading) + ": " + dla::describe_raw (d));
              dla::TensorInfo info;
              const dla::Status st =
                  dla::map_descriptor (d, dir == 0 ? dla::Direction::kInput : dla::Direction::kOutput, &info);
              if (t.report_data_type >= 0) { /* broken-wrong-type: must be refused */
                EXPECT_EQ (st.code, dla::Code::kModel);
                continue;
              }
              ASSERT_TRUE (st.ok ()) << st.message;
              tensor::View want;
              ASSERT_TRUE (t.view (&want));
              EXPECT_TRUE (same (info.view, want)) << "mapped " << dla::describe_view (info.view)
                                                   << ", swdla runs " << dla::describe_view (want);
              if (!(t.layout == tensor::Layout::kDlaHwc4 && t.c == 1)) {
                EXPECT_EQ (info.view.layout, t.layout);
              }
              ++checked;
            }
          }
        }
  }
  EXPECT_GT (models_read, 10);
  std::printf ("%d models, %d descriptors checked\n", models_read, checked);
}

}  // namespace

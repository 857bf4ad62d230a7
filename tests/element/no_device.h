/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The start of an element of the family on swdla and a real model on a machine without a CUDA
 * device: the error must name the missing device (dlainfer's and the test subclass's tests). */
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "bus_error.h"
#include "dla/primary_context.h"
#include "test_support.h"

namespace element_test {

/* `start` runs the element, named infer, with `model=<path>` to PAUSED and returns its first error. Skips
 * where a CUDA device is present; fails where swdla's build products are missing. */
inline void expect_no_cuda_device_error (const std::function<BusError (const std::string &props)> &start)
{
  std::string why;
  if (dla::cuda_device_count (&why) > 0)
    GTEST_SKIP () << "a CUDA device is present; this test is for machines without one";
  const std::string lib = dlainfer_test::build_path ("tests/swdla/libcudla.so.1");
  const std::string model = dlainfer_test::test_data ("colours.swdla");
  if (!g_file_test (lib.c_str (), G_FILE_TEST_EXISTS) || !g_file_test (model.c_str (), G_FILE_TEST_EXISTS))
    GTEST_FAIL () << "the software DLA and its models are build products of this suite, missing: " << lib
                  << ", " << model;
  g_setenv ("DLAINFER_CUDLA_LIBRARY", lib.c_str (), TRUE);
  const BusError e = start ("model=" + model);
  g_unsetenv ("DLAINFER_CUDLA_LIBRARY");
  EXPECT_TRUE (e.posted);
  EXPECT_EQ (e.source, "infer");
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR);
  EXPECT_EQ (e.code, GST_RESOURCE_ERROR_NOT_FOUND);
  /* The cause a user can act on, not a generic driver error. */
  void *libcuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda)
    dlclose (libcuda);
  EXPECT_NE (e.message.find (libcuda ? "no CUDA device" : "the NVIDIA driver is not installed"),
             std::string::npos)
      << e.message;
  std::printf ("error without a CUDA device: %s\n", e.message.c_str ());
}

}  // namespace element_test

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the element's GPU tests: pipelines with an appsrc/appsink, the result meta, swdla. */
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "bus_error.h"
#include "gst/meta/gstdlameta.h"
#include "test_support.h"

namespace element_gpu {

/* The model files swdla generated (tests/data). */
inline std::string model (const std::string &name)
{
  return dlainfer_test::test_data (name + ".swdla");
}
inline std::string labels_of (const std::string &name)
{
  return dlainfer_test::test_data (name + ".labels");
}

/* The colours model's classes, as the RGB its tests paint. */
struct Colour {
  const char *name;
  uint32_t rgb;
};
inline constexpr Colour kColours[8] = {{"black", 0x000000}, {"white", 0xffffff},  {"red", 0xff0000},
                                       {"green", 0x00ff00}, {"blue", 0x0000ff},   {"yellow", 0xffff00},
                                       {"cyan", 0x00ffff},  {"magenta", 0xff00ff}};

/* The GstCudaContext an element answers a context query with (a ref), or nullptr. */
GstCudaContext *element_context (GstElement *element);

/* The fixture of every end-to-end test on swdla: a test fails at once (never skips), naming what
 * is missing, without swdla, its models or the plugin. A suite takes it under its own name:
 * `using Cores = SwdlaTest;`. */
class SwdlaTest : public testing::Test {
 protected:
  void SetUp () override;
};

bool have_element (const char *factory);
/* cudaupload is there; a failure of the current test (not a silent system-memory run) when not. */
bool cudaupload_available ();

/* One classification meta as plain values (read through the public meta library, which the
 * plugin links too: one meta type in the process). */
struct Result {
  std::string element, backend;
  std::vector<int> ids;
  std::vector<std::string> labels;
  std::vector<float> confidences;
  bool carried = false;
  unsigned age = 0;
  int dla_core = -1; /* the core the meta says produced it */
  bool found = false;
};
std::vector<Result> results_of (GstBuffer *buf);
Result result_of (GstBuffer *buf, const std::string &element = "infer");

/* The first error on a bus, if any. */
using element_test::BusError;

/* A parsed pipeline with optional appsrc "src" and appsink "sink". */
class Pipeline {
 public:
  explicit Pipeline (const std::string &desc);
  ~Pipeline ();
  GstElement *get () const { return pipeline_; }
  GstElement *by_name (const char *name) const; /* borrowed */
  bool play ();                                 /* to PLAYING; false (and error()) on failure */
  bool push (GstBuffer *buf);                   /* takes buf; appsrc "src" */
  void set_src_caps (const std::string &caps);
  void end_of_stream ();
  GstSample *pull (GstClockTime timeout = 20 * GST_SECOND); /* appsink "sink"; nullptr on error */
  /* Waits for EOS or an error; true on EOS. */
  bool wait_eos (GstClockTime timeout = 60 * GST_SECOND);
  /* Waits for an error (or EOS, or the timeout); the error if one came. */
  BusError wait_error (GstClockTime timeout = 30 * GST_SECOND);
  void stop (); /* to NULL; asserts that it gets there */

 private:
  GstElement *pipeline_ = nullptr;
  GstElement *src_ = nullptr;
  GstElement *sink_ = nullptr;
};

/* An RGBA frame of w x h whose pixel (x, y) is fill(x, y) (0xRRGGBB). */
GstBuffer *rgba_frame (int w, int h, const std::function<uint32_t (int, int)> &fill, GstClockTime pts = 0);

/* swdla settings for the scope of a test (swdla reads them at each use); what the program's
 * environment had (meson's, e.g. SWDLA_CHECK_LAYOUT) comes back after. */
class SwdlaEnv {
 public:
  SwdlaEnv (std::initializer_list<std::pair<const char *, std::string>> vars)
  {
    for (const auto &v : vars) {
      const char *before = g_getenv (v.first);
      saved_.push_back ({v.first, before != nullptr, before ? before : ""});
      g_setenv (v.first, v.second.c_str (), TRUE);
    }
  }
  ~SwdlaEnv ()
  {
    for (const Saved &s : saved_)
      s.was_set ? (void)g_setenv (s.name, s.value.c_str (), TRUE) : g_unsetenv (s.name);
  }

 private:
  struct Saved {
    const char *name;
    bool was_set;
    std::string value;
  };
  std::vector<Saved> saved_;
};

/* Frame i of w x h: colour i % 8 (kColours) all over, PTS i frames of 30 fps, offset i. */
inline GstBuffer *coloured_frame (guint64 i, int w, int h)
{
  const uint32_t rgb = kColours[i % 8].rgb;
  GstBuffer *buf = rgba_frame (
      w, h, [rgb] (int, int) { return rgb; }, GST_SECOND * i / 30);
  GST_BUFFER_OFFSET (buf) = i;
  return buf;
}

/* A tensor's data as floats (FLOAT16 widened exactly). */
std::vector<float> tensor_floats (GstBuffer *data, bool fp16);
/* The values of the first raw tensor (tensor-meta=true) on `buf` (upstream's GstTensorMeta on
 * >= 1.26, the library's GstDlaTensorMeta before); empty when none. */
std::vector<float> tensor_values (GstBuffer *buf);
/* The raw tensor of each colour of kColours through `dlainfer <props>` (tensor-meta=true added),
 * one w x h frame at a time: what each frame's tensor must equal. Empty (and a failure) on error. */
std::vector<std::vector<float>> colour_tensors (const std::string &props, int w, int h);
/* Whether `got` is `want` (swdla's executor is deterministic: a tolerance of float rounding only). */
::testing::AssertionResult same_tensor (const std::vector<float> &got, const std::vector<float> &want);

/* Runs `desc` to PAUSED and returns the first error (the pipeline ends in NULL). */
BusError start_error (const std::string &desc);

}  // namespace element_gpu

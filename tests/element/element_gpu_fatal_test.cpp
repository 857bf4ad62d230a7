/* The 911 external-device error (swdla: SWDLA_EXTERNAL_DEVICE_ERROR) poisons CUDA for the whole
 * process, so it has a program of its own: STREAM/FAILED saying "restart the process", and every
 * later start in the process refuses with the same advice instead of trying. */
#include "gpu_support.h"

namespace {

using namespace element_gpu;

TEST (ElementFatal, ExternalDeviceErrorStopsEverything)
{
  const std::string why = swdla_missing ();
  if (!why.empty ())
    GTEST_FAIL () << why;
  g_setenv ("SWDLA_EXTERNAL_DEVICE_ERROR", "3", TRUE); /* the 2nd frame's: task 1 is the warm-up */
  {
    Pipeline p (
        "videotestsrc num-buffers=10 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=infer "
        "model=" +
        model ("colours") + " ! fakesink");
    ASSERT_TRUE (p.play ());
    const BusError e = p.wait_error (30 * GST_SECOND);
    p.stop ();
    ASSERT_TRUE (e.posted);
    EXPECT_EQ (e.source, "infer");
    EXPECT_EQ (e.domain, GST_STREAM_ERROR);
    EXPECT_NE (e.message.find ("restart the process"), std::string::npos) << e.message;
  }
  const BusError again = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=infer model=" +
      model ("colours") + " ! fakesink");
  ASSERT_TRUE (again.posted);
  EXPECT_NE (again.message.find ("restart the process"), std::string::npos) << again.message;
}

}  // namespace

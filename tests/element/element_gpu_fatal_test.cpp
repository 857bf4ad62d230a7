/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The 911 external-device error (swdla: SWDLA_EXTERNAL_DEVICE_ERROR) poisons CUDA for the whole
 * process, so it has a program of its own: STREAM/FAILED saying "restart the process", and every
 * later start in the process refuses with the same advice instead of trying. */
#include "gpu_support.h"

namespace {

using namespace element_gpu;

using ElementFatal = SwdlaTest;

TEST_F (ElementFatal, ExternalDeviceErrorStopsEverything)
{
  g_setenv ("SWDLA_EXTERNAL_DEVICE_ERROR", "3", TRUE); /* the 2nd frame's: task 1 is the warm-up */
  /* Several tasks in flight behind it, each long enough that the host reads the DLA's per-device
   * error state before the next task ends and overwrites it. */
  g_setenv ("SWDLA_SERVICE_US", "20000", TRUE);
  {
    Pipeline p (
        "videotestsrc num-buffers=10 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=infer "
        "max-in-flight=4 model=" +
        model ("colours") + " ! fakesink");
    ASSERT_TRUE (p.play ());
    const BusError e = p.wait_error (30 * GST_SECOND);
    /* One error from the element, however many tasks and threads met the fault. */
    GstBus *bus = gst_element_get_bus (p.get ());
    int more = 0;
    while (GstMessage *m = gst_bus_timed_pop_filtered (bus, GST_SECOND, GST_MESSAGE_ERROR)) {
      more += std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) == "infer";
      gst_message_unref (m);
    }
    gst_object_unref (bus);
    EXPECT_EQ (more, 0) << "a second error from the element";
    p.stop ();
    g_unsetenv ("SWDLA_SERVICE_US");
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

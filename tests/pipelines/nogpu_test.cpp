/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unit: what the demo does on a machine without a CUDA device (one line, non-zero exit), and the
 * pipelines the scripts would launch (DRY_RUN=print). CUDA_VISIBLE_DEVICES=-1 hides any device, so
 * this runs the same on a GPU host. */
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "run_support.h"
#include "test_support.h"

using namespace pipelines_test;

namespace {

const std::vector<std::pair<std::string, std::string>> kNoDevice = {{"CUDA_VISIBLE_DEVICES", "-1"}};

}  // namespace

/* The README's command on a machine without a GPU: set-up skipped (already built), then one line. */
TEST (DemoWithoutGpu, ScriptSaysSoInOneLineAndFails)
{
  auto env = kNoDevice;
  env.push_back ({"DEMO_SKIP_SETUP", "1"});
  env.push_back ({"BUILD_DIR", dlainfer_test::build_path ("")});
  const Outcome r = run ({"bash", pipelines_dir () + "/demo.sh"}, env);
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 3) << r.out;
  const auto lines = lines_of (r.out);
  ASSERT_EQ (lines.size (), 1u) << r.out;
  EXPECT_EQ (lines[0].rfind ("demo: needs a CUDA device: ", 0), 0u) << r.out;
  EXPECT_GT (lines[0].size (), std::string ("demo: needs a CUDA device: ").size () + 5)
      << "no reason given: " << r.out;
}

TEST (DemoWithoutGpu, ProgramsSayInOneLineAndFail)
{
  for (const char *program : {"dlainfer-demo", "dlainfer-objects-demo"}) {
    const Outcome r =
        run ({pipelines_build () + "/" + program, "--model", dlainfer_test::test_data ("colours.swdla")},
             kNoDevice);
    ASSERT_EQ (r.why, "");
    EXPECT_EQ (r.status, 3) << program << ": " << r.out;
    const auto lines = lines_of (r.out);
    ASSERT_EQ (lines.size (), 1u) << r.out;
    EXPECT_EQ (lines[0].rfind (std::string (program) + ": needs a CUDA device", 0), 0u) << r.out;
  }
}

/* OBJECTS=1 runs the objects demo: the same one line without a device. */
TEST (DemoWithoutGpu, ObjectsScriptSaysSoInOneLineAndFails)
{
  auto env = kNoDevice;
  env.push_back ({"DEMO_SKIP_SETUP", "1"});
  env.push_back ({"OBJECTS", "1"});
  env.push_back ({"BUILD_DIR", dlainfer_test::build_path ("")});
  const Outcome r = run ({"bash", pipelines_dir () + "/demo.sh"}, env);
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 3) << r.out;
  EXPECT_EQ (lines_of (r.out).size (), 1u) << r.out;
  EXPECT_EQ (r.out.rfind ("demo: needs a CUDA device: ", 0), 0u) << r.out;
}

TEST (DemoWithoutGpu, ProbeExitsThree)
{
  const Outcome r = run ({pipelines_build () + "/cuda-probe"}, kNoDevice);
  EXPECT_EQ (r.status, 3) << r.out;
  EXPECT_EQ (lines_of (r.out).size (), 1u) << r.out;
}

TEST (DemoUsage, ModelIsRequired)
{
  for (const char *program : {"dlainfer-demo", "dlainfer-objects-demo"}) {
    const Outcome r = run ({pipelines_build () + "/" + program}, kNoDevice);
    EXPECT_EQ (r.status, 2) << program << ": " << r.out;
    EXPECT_NE (r.out.find ("--model"), std::string::npos) << r.out;
  }
}

/* The objects demo's boxes must be 16 pixels wide (dlainfer's default minimum): --size >= 224. */
TEST (DemoUsage, ObjectsDemoRefusesFramesTooSmallForItsBoxes)
{
  const Outcome r =
      run ({pipelines_build () + "/dlainfer-objects-demo", "--model", "m", "--size", "200"}, kNoDevice);
  EXPECT_EQ (r.status, 2) << r.out;
  EXPECT_NE (r.out.find ("--size at least 224"), std::string::npos) << r.out;
}

TEST (ExampleUsage, ModelIsRequired)
{
  const Outcome r = run ({pipelines_build () + "/dlainfer-example"}, {});
  EXPECT_EQ (r.status, 2) << r.out;
  EXPECT_NE (r.out.find ("--model"), std::string::npos) << r.out;
}

/* The real (not stand-in) pipelines of the scripts, as the README shows them, with the results
 * printed per frame (post-messages=true, -m) and the environment they need on the line. */
TEST (Scripts, PrintTheirPipelines)
{
  const std::vector<std::pair<std::string, std::string>> env = {{"DRY_RUN", "print"},
                                                                {"MODEL", "net.loadable"}};
  const Outcome file = run ({"bash", pipelines_dir () + "/jetson-file.sh", "clip.mp4"}, env);
  EXPECT_EQ (file.status, 0) << file.out;
  EXPECT_NE (file.out.find ("filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvv4l2decoder ! "
                            "'video/x-raw(memory:NVMM),format=NV12' ! dlainfer name=infer "
                            "model=net.loadable post-messages=true ! fakesink sync=false"),
             std::string::npos)
      << file.out;
  const Outcome cam = run ({"bash", pipelines_dir () + "/jetson-camera.sh"}, env);
  EXPECT_EQ (cam.status, 0) << cam.out;
  EXPECT_NE (cam.out.find ("nvarguscamerasrc sensor-id=0"), std::string::npos) << cam.out;
  EXPECT_NE (cam.out.find ("format=NV12' ! dlainfer name=infer"), std::string::npos) << cam.out;
  /* NVMM=0: the copy path, for comparison. */
  const Outcome copy = run ({"bash", pipelines_dir () + "/jetson-camera.sh"},
                            {{"DRY_RUN", "print"}, {"MODEL", "net.loadable"}, {"NVMM", "0"}});
  EXPECT_NE (copy.out.find ("! nvvidconv ! video/x-raw,format=NV12 ! cudaupload"), std::string::npos)
      << copy.out;
  const Outcome x86 =
      run ({"bash", pipelines_dir () + "/x86-h264.sh"}, {{"DRY_RUN", "print"}, {"MODEL", ""}});
  EXPECT_EQ (x86.status, 0) << x86.out;
  EXPECT_NE (x86.out.find ("x264enc"), std::string::npos) << x86.out;
  EXPECT_NE (x86.out.find ("! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! dlainfer"), std::string::npos)
      << x86.out;
  EXPECT_NE (x86.out.find ("colours.swdla"), std::string::npos) << "the model a run would use\n" << x86.out;
  for (const Outcome *o : {&file, &cam, &x86}) {
    for (const auto &l : lines_of (o->out)) {
      if (l.rfind ("pipeline: ", 0) != 0 || l.find ("dlainfer") == std::string::npos)
        continue;
      EXPECT_EQ (l.rfind ("pipeline: env GST_PLUGIN_PATH_1_0=", 0), 0u) << l;
      EXPECT_NE (l.find (" gst-launch-1.0 -e -m "), std::string::npos) << l;
      EXPECT_NE (l.find (" post-messages=true "), std::string::npos) << l;
    }
  }
}

/* --source takes what gst-launch-1.0 takes before "! cudaupload", caps shorthand included (parsed
 * alone, "videotestsrc ! video/x-raw,format=NV12" was refused with: no element "video"). Without
 * a GPU, cudaupload may be missing: the error then names it, not the caps. */
TEST (ExampleUsage, SourceTakesCapsShorthand)
{
  const Outcome r =
      run ({pipelines_build () + "/dlainfer-example", "--model", "/nonexistent.loadable", "--source",
            "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=64"},
           kNoDevice);
  ASSERT_EQ (r.why, "");
  EXPECT_NE (r.status, 0) << r.out;
  EXPECT_EQ (r.out.find ("no element \"video\""), std::string::npos) << r.out;
  EXPECT_EQ (r.out.find ("no element \"video"), std::string::npos) << r.out;
}

TEST (ExampleUsage, BadSourceIsNamed)
{
  const Outcome r = run ({pipelines_build () + "/dlainfer-example", "--model", "m.loadable", "--source",
                          "videotestsrc ! no-such-element-here"},
                         kNoDevice);
  EXPECT_EQ (r.status, 2) << r.out;
  EXPECT_NE (
      r.out.find ("dlainfer-example: bad --source: \"videotestsrc ! no-such-element-here ! cudaupload"),
      std::string::npos)
      << r.out;
  EXPECT_NE (r.out.find ("no-such-element-here"), std::string::npos) << r.out;
}

/* Without --source the example never blames one: without cudaupload it names the element and its
 * package, exit 1. */
TEST (ExampleUsage, NoSourceNeverBlamesTheSource)
{
  const Outcome r = run ({pipelines_build () + "/dlainfer-example", "--model", "m.loadable"}, kNoDevice);
  ASSERT_EQ (r.why, "");
  EXPECT_NE (r.status, 0) << r.out;
  EXPECT_EQ (r.out.find ("bad --source"), std::string::npos) << r.out;
  if (!gst_registry_check_feature_version (gst_registry_get (), "cudaupload", 0, 0, 0)) {
    EXPECT_EQ (r.status, 1) << r.out;
    EXPECT_NE (r.out.find ("dlainfer-example: the cudaupload element is missing: "), std::string::npos)
        << r.out;
    EXPECT_NE (r.out.find ("gstreamer1.0-plugins-bad"), std::string::npos) << r.out;
  }
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unit: the shell logic of the pipeline scripts on any machine, with stand-ins for gst-inspect-1.0,
 * gst-launch-1.0 and trtexec written into a directory of each test's own and put first on PATH:
 * lib.sh's check for post-messages, DRY_RUN=print against the command really run, and
 * build-loadable.sh's two TensorRT recipes and its errors. */
#include <gtest/gtest.h>

#include "run_support.h"

using namespace pipelines_test;

namespace {

/* Runs `argv` without the variables the scripts read or set (so that only what a test gives and
 * what a script does count), with `env` (given to env(1) after those are removed) and the
 * stand-ins of `stubs` first on PATH. */
Outcome run_clean (const std::string &stubs, const std::vector<std::string> &argv,
                   const std::vector<std::pair<std::string, std::string>> &env)
{
  std::vector<std::string> full = {"env"};
  for (const char *v : {"GST_PLUGIN_PATH_1_0",
                        "DLAINFER_CUDLA_LIBRARY",
                        "BUNDLE_EXE_WRAPPER",
                        "DRY_RUN",
                        "MODEL",
                        "LABELS",
                        "MEAN",
                        "STD",
                        "DLA_CORE",
                        "TRTEXEC",
                        "TRT_VERSION",
                        "IN_FORMAT",
                        "OUT_FORMAT",
                        "CALIB",
                        "INT8",
                        "DEMO",
                        "OBJECTS",
                        "FACES_DIR",
                        "FACES_MP4",
                        "PNG_DIR",
                        "PNG_EVERY",
                        "DEMO_SKIP_SETUP"}) {
    full.push_back ("-u");
    full.push_back (v);
  }
  for (const auto &kv : env)
    full.push_back (kv.first + "=" + kv.second);
  full.push_back ("PATH=" + stubs + ":" + env_or ("PATH", "/usr/bin:/bin"));
  full.insert (full.end (), argv.begin (), argv.end ());
  return run (full, {});
}

/* gst-inspect-1.0 that knows dlainfer with post-messages, and every element for --exists; with
 * `lines` more lines of output after the property (more than a pipe holds). */
std::string inspect_standin (int lines)
{
  return "#!/bin/bash\n"
         "for a; do [ \"$a\" = --exists ] && exit 0; done\n"
         "echo 'Factory Details:'\n"
         "echo 'Element Properties:'\n"
         "echo '  post-messages       : Post a \"dlainfer-result\" element message per inference'\n"
         "seq 1 " +
         std::to_string (lines) + " | sed 's/^/  filler-property-/'\n";
}

/* gst-launch-1.0 that appends its environment (the two variables the scripts set) and arguments to
 * $LAUNCH_RECORD, one per line, then "end". */
const char *kLaunchStandin =
    "#!/bin/bash\n"
    "{ echo \"GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0-<unset>}\"\n"
    "  echo \"DLAINFER_CUDLA_LIBRARY=${DLAINFER_CUDLA_LIBRARY-<unset>}\"\n"
    "  printf 'arg=%s\\n' \"$@\"; echo end; } >> \"$LAUNCH_RECORD\"\n";

std::vector<std::string> printed_pipelines (const std::string &out)
{
  std::vector<std::string> p;
  for (const auto &l : lines_of (out))
    if (l.rfind ("pipeline: ", 0) == 0)
      p.push_back (l.substr (10));
  return p;
}

}  // namespace

/* gst-inspect-1.0 ELEMENT | grep -q under pipefail: grep exits at its match, gst-inspect-1.0 dies
 * of SIGPIPE writing the rest, and the check reads "no": the scripts then showed no labels. With a
 * long output after the property the old check answered "no" every time. */
TEST (LibSh, PostMessagesFoundEveryTimeWhateverGstInspectPrintsAfterIt)
{
  TempDir tmp;
  ASSERT_TRUE (write_file (tmp / "gst-inspect-1.0", inspect_standin (50000), true));
  const Outcome r =
      run_clean (tmp.path (),
                 {"bash", "-c",
                  "set -euo pipefail; . \"$1/lib.sh\"; MODEL=m.loadable; yes=0\n"
                  "for i in $(seq 40); do infer_element\n"
                  "  [ \"${LAUNCH_OPTS[*]} ${INFER[*]}\" = '-m dlainfer name=infer model=m.loadable "
                  "post-messages=true' ] && yes=$((yes + 1)); done\n"
                  "echo \"yes=$yes\"",
                  "_", pipelines_dir ()},
                 {});
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 0) << r.out;
  EXPECT_NE (r.out.find ("yes=40\n"), std::string::npos) << r.out;
}

/* A dlainfer without the property (or none found): identity and -v, and a note saying so. */
TEST (LibSh, WithoutPostMessagesFallsBackAndSaysSo)
{
  TempDir tmp;
  ASSERT_TRUE (
      write_file (tmp / "gst-inspect-1.0", "#!/bin/bash\necho 'Element Properties:'\nseq 1 50000\n", true));
  const Outcome r = run_clean (
      tmp.path (),
      {"bash", "-c",
       "set -euo pipefail; . \"$1/lib.sh\"; MODEL=m; infer_element; echo \"${LAUNCH_OPTS[*]} ${INFER[*]}\"",
       "_", pipelines_dir ()},
      {});
  EXPECT_EQ (r.status, 0) << r.out;
  EXPECT_NE (r.out.find ("-v dlainfer name=infer model=m ! identity name=results silent=false"),
             std::string::npos)
      << r.out;
  EXPECT_NE (r.out.find ("note: gst-inspect-1.0 finds no dlainfer with post-messages"), std::string::npos)
      << r.out;
}

/* DRY_RUN=print prints exactly the command lines a run runs: each script is run (gst-launch-1.0 a
 * stand-in that records its arguments and environment), then run with DRY_RUN=print (nothing may be
 * launched, the same lines printed), and each printed line is run by bash on its own, without the
 * scripts' environment: it must launch the same as the script did. */
TEST (Scripts, DryRunPrintIsWhatRuns)
{
  TempDir tmp;
  ASSERT_TRUE (write_file (tmp / "gst-inspect-1.0", inspect_standin (20000), true));
  ASSERT_TRUE (write_file (tmp / "gst-launch-1.0", kLaunchStandin, true));
  const std::string build = env_or ("DLAINFER_BUILD_ROOT", "build");
  struct Case {
    const char *script;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    size_t pipelines;
  };
  const std::vector<Case> cases = {
      {"x86-h264.sh", {}, {{"FRAMES", "5"}, {"PATTERN", "blue"}, {"CLIP_DIR", tmp / "clips"}}, 2},
      {"x86-h264.sh",
       {"my clip.mp4"},
       {{"MODEL", "net.loadable"}, {"LABELS", "it's labels.txt"}, {"MEAN", "<0.485,0.456,0.406>"}},
       1},
      {"jetson-file.sh",
       {"clip.mp4"},
       {{"MODEL", "net.loadable"},
        {"LABELS", "l.txt"},
        {"DLA_CORE", "1"},
        {"MEAN", "<0.485,0.456,0.406>"},
        {"STD", "<0.229,0.224,0.225>"}},
       1},
      {"jetson-camera.sh",
       {},
       {{"MODEL", "net.loadable"}, {"SENSOR_ID", "1"}, {"FRAMES", "10"}, {"RESULTS", "out dir/r.jsonl"}},
       1},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE (c.script);
    std::vector<std::string> argv = {"bash", pipelines_dir () + "/" + c.script};
    argv.insert (argv.end (), c.args.begin (), c.args.end ());
    const std::string ran = tmp / "ran", printed = tmp / "printed", replayed = tmp / "replayed";
    for (const auto &f : {ran, printed, replayed})
      g_unlink (f.c_str ());

    auto env = c.env;
    env.push_back ({"DLAINFER_BUILD_ROOT", build});
    env.push_back ({"LAUNCH_RECORD", ran});
    const Outcome r = run_clean (tmp.path (), argv, env);
    ASSERT_EQ (r.status, 0) << r.out;
    const auto lines_run = printed_pipelines (r.out);
    EXPECT_EQ (lines_run.size (), c.pipelines) << r.out;

    env.back () = {"LAUNCH_RECORD", printed};
    env.push_back ({"DRY_RUN", "print"});
    const Outcome p = run_clean (tmp.path (), argv, env);
    ASSERT_EQ (p.status, 0) << p.out;
    EXPECT_EQ (printed_pipelines (p.out), lines_run) << "DRY_RUN=print printed other lines than the run:\n"
                                                     << p.out << "\n--- run:\n"
                                                     << r.out;
    EXPECT_FALSE (g_file_test (printed.c_str (), G_FILE_TEST_EXISTS)) << "DRY_RUN=print launched a pipeline";

    for (const auto &line : printed_pipelines (p.out)) {
      const Outcome b = run_clean (tmp.path (), {"bash", "-c", line}, {{"LAUNCH_RECORD", replayed}});
      EXPECT_EQ (b.status, 0) << line << "\n" << b.out;
    }
    const std::string what_ran = read_file (ran);
    EXPECT_EQ (count_lines_with (what_ran, {"end"}), int (c.pipelines)) << what_ran;
    EXPECT_EQ (read_file (replayed), what_ran) << "the printed lines launch something else than the script";
    EXPECT_EQ (count_lines_with (what_ran, {"arg=post-messages=true"}), 1) << what_ran;
    const bool results = std::string (c.script) == "jetson-camera.sh";
    EXPECT_EQ (count_lines_with (what_ran, {"arg=dlapublish"}), results ? 1 : 0) << what_ran;
    if (results) {
      EXPECT_EQ (count_lines_with (what_ran, {"arg=file-path=out dir/r.jsonl"}), 1) << what_ran;
    }
  }
}

/* Outside DRY_RUN=1 the Jetson scripts need a loadable, and say so; DRY_RUN=print too (it prints
 * what would run, and nothing runs without a model). */
TEST (Scripts, JetsonScriptsNeedAModelAlsoToPrint)
{
  TempDir tmp;
  for (const char *dry : {"", "print"})
    for (const char *s : {"jetson-file.sh", "jetson-camera.sh"}) {
      const Outcome r =
          run_clean (tmp.path (), {"bash", pipelines_dir () + "/" + s, "clip.mp4"}, {{"DRY_RUN", dry}});
      EXPECT_EQ (r.status, 2) << s << " DRY_RUN=" << dry << ": " << r.out;
      EXPECT_NE (r.out.find ("set MODEL"), std::string::npos) << s << ": " << r.out;
    }
}

namespace {

/* trtexec stand-in: the banner of TensorRT $STANDIN_TRT (none when unset), each call's arguments
 * appended to $TRTEXEC_RECORD as one line, and --saveEngine's file written. */
const char *kTrtexecStandin =
    "#!/bin/bash\n"
    "[ -z \"${STANDIN_TRT:-}\" ] || echo \"&&&& RUNNING TensorRT.trtexec [TensorRT v$STANDIN_TRT] [b1] # "
    "trtexec $*\"\n"
    "echo \"$*\" >> \"$TRTEXEC_RECORD\"\n"
    "for a; do case $a in --saveEngine=*) echo loadable > \"${a#--saveEngine=}\" ;; esac; done\n";

struct Built {
  Outcome outcome;
  std::string build_call; /* the arguments of the call that builds (not --help), "" if none */
};

Built build_loadable (const TempDir &tmp, std::vector<std::string> args,
                      std::vector<std::pair<std::string, std::string>> env)
{
  const std::string record = tmp / "trtexec.calls";
  g_unlink (record.c_str ());
  std::vector<std::string> argv = {"bash", pipelines_dir () + "/build-loadable.sh"};
  argv.insert (argv.end (), args.begin (), args.end ());
  env.push_back ({"TRTEXEC_RECORD", record});
  bool has_trtexec = false;
  for (const auto &kv : env)
    has_trtexec = has_trtexec || kv.first == "TRTEXEC";
  if (!has_trtexec)
    env.push_back ({"TRTEXEC", tmp / "trtexec"});
  Built b;
  b.outcome = run_clean (tmp.path (), argv, env);
  for (const auto &l : lines_of (read_file (record)))
    if (l.find ("--onnx=") != std::string::npos)
      b.build_call = l;
  return b;
}

}  // namespace

/* One recipe per TensorRT generation, chosen from trtexec's banner or TRT_VERSION: the exact
 * trtexec command lines. */
TEST (BuildLoadable, CommandLinePerTensorRtVersion)
{
  TempDir tmp;
  ASSERT_TRUE (write_file (tmp / "trtexec", kTrtexecStandin, true));
  const std::string onnx = tmp / "net.onnx";
  ASSERT_TRUE (write_file (onnx, "onnx"));
  const std::string io16 = "--inputIOFormats=fp16:chw16 --outputIOFormats=fp16:chw16";
  const std::string tail = " --buildDLAStandalone --saveEngine=" + tmp / "net.loadable";
  struct Case {
    const char *what;
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> args;
    std::string expected;
    const char *says;
  };
  const std::vector<Case> cases = {
      {"TensorRT 11.4.1, FP16",
       {{"STANDIN_TRT", "110401"}},
       {onnx},
       "--onnx=" + onnx + " --useDLACore=0 " + io16 + tail,
       "TensorRT 11.4.1 (from "},
      {"TensorRT 11, INT8 formats, core 1: the precision from the ONNX, no --int8",
       {{"STANDIN_TRT", "110401"}, {"IN_FORMAT", "int8:dla_hwc4"}, {"OUT_FORMAT", "int8:dla_linear"}},
       {onnx, tmp / "q.loadable", "1"},
       "--onnx=" + onnx +
           " --useDLACore=1 --inputIOFormats=int8:dla_hwc4 --outputIOFormats=int8:dla_linear "
           "--buildDLAStandalone "
           "--saveEngine=" +
           tmp / "q.loadable",
       "TensorRT 11 (strongly typed"},
      {"TensorRT 10.3, FP16: --fp16",
       {{"STANDIN_TRT", "100300"}},
       {onnx},
       "--onnx=" + onnx + " --useDLACore=0 --fp16 " + io16 + tail,
       "TensorRT 10.3.0 (from "},
      {"TensorRT 10.3, INT8 input: --fp16 --int8",
       {{"STANDIN_TRT", "100300"}, {"IN_FORMAT", "int8:chw32"}},
       {onnx},
       "--onnx=" + onnx +
           " --useDLACore=0 --fp16 --int8 --inputIOFormats=int8:chw32 --outputIOFormats=fp16:chw16" + tail,
       "TensorRT <= 10"},
      {"TensorRT 10, calibration cache",
       {{"STANDIN_TRT", "100300"}, {"CALIB", "cal.cache"}, {"OUT_FORMAT", "int8:dla_linear"}},
       {onnx},
       "--onnx=" + onnx +
           " --useDLACore=0 --fp16 --int8 --calib=cal.cache --inputIOFormats=fp16:chw16 "
           "--outputIOFormats=int8:dla_linear" +
           tail,
       "TensorRT <= 10"},
      {"TensorRT 10, INT8 body with an FP16 head layer (HEAD_FP16)",
       {{"STANDIN_TRT", "100300"},
        {"IN_FORMAT", "int8:dla_hwc4"},
        {"CALIB", "c.cache"},
        {"HEAD_FP16", "/m.0/Conv"}},
       {onnx},
       "--onnx=" + onnx +
           " --useDLACore=0 --fp16 --int8 --calib=c.cache --inputIOFormats=int8:dla_hwc4 "
           "--outputIOFormats=fp16:chw16 --precisionConstraints=obey --layerPrecisions=/m.0/Conv:fp16" +
           tail,
       "TensorRT <= 10"},
      {"TensorRT 8.6.1 (the old version code)",
       {{"STANDIN_TRT", "8601"}},
       {onnx},
       "--onnx=" + onnx + " --useDLACore=0 --fp16 " + io16 + tail,
       "TensorRT 8.6.1 (from "},
      {"TRT_VERSION=10 wins over the banner",
       {{"STANDIN_TRT", "110401"}, {"TRT_VERSION", "10"}},
       {onnx},
       "--onnx=" + onnx + " --useDLACore=0 --fp16 " + io16 + tail,
       "TensorRT 10 (from TRT_VERSION)"},
      {"TRT_VERSION=11.4.1 without a banner",
       {{"TRT_VERSION", "11.4.1"}},
       {onnx},
       "--onnx=" + onnx + " --useDLACore=0 " + io16 + tail,
       "TensorRT 11.4.1 (from TRT_VERSION)"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE (c.what);
    const Built b = build_loadable (tmp, c.args, c.env);
    EXPECT_EQ (b.outcome.status, 0) << b.outcome.out;
    EXPECT_EQ (b.build_call, c.expected) << b.outcome.out;
    EXPECT_NE (b.outcome.out.find (c.says), std::string::npos) << b.outcome.out;
    /* The printed command is the one run. */
    EXPECT_NE (b.outcome.out.find ("build-loadable.sh: " + tmp / "trtexec " + c.expected + "\n"),
               std::string::npos)
        << b.outcome.out;
    EXPECT_NE (b.outcome.out.find ("build-loadable.sh: wrote "), std::string::npos) << b.outcome.out;
  }
}

/* Clear errors, and trtexec is not asked to build. */
TEST (BuildLoadable, Errors)
{
  TempDir tmp;
  ASSERT_TRUE (write_file (tmp / "trtexec", kTrtexecStandin, true));
  const std::string onnx = tmp / "net.onnx";
  ASSERT_TRUE (write_file (onnx, "onnx"));
  struct Case {
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> args;
    int status;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{{"STANDIN_TRT", "110401"}}, {}, 2, "usage: "},
      {{{"STANDIN_TRT", "110401"}}, {tmp / "missing.onnx"}, 2, "no such ONNX file: " + tmp / "missing.onnx"},
      {{{"STANDIN_TRT", "110401"}, {"TRTEXEC", tmp / "no-trtexec"}},
       {onnx},
       3,
       "trtexec not found at " + tmp / "no-trtexec"},
      {{{"STANDIN_TRT", "110401"}, {"IN_FORMAT", "fp32:linear"}},
       {onnx},
       2,
       "unknown IN_FORMAT 'fp32:linear': one of"},
      {{{"STANDIN_TRT", "110401"}, {"OUT_FORMAT", "int8:dla_hwc4"}},
       {onnx},
       2,
       "unknown OUT_FORMAT 'int8:dla_hwc4': one of fp16:chw16 fp16:dla_linear int8:chw32 int8:dla_linear"},
      {{{"STANDIN_TRT", "110401"}}, {onnx, tmp / "out.loadable", "one"}, 2, "DLA_CORE must be a number"},
      {{}, {onnx}, 3, "cannot tell TensorRT's version"},
      {{{"STANDIN_TRT", "8401"}}, {onnx}, 3, "TensorRT 8.4.1 has no --buildDLAStandalone"},
      {{{"STANDIN_TRT", "110401"}, {"CALIB", "cal.cache"}},
       {onnx},
       2,
       "CALIB: TensorRT 11.4.1 has no calibration"},
      {{{"TRT_VERSION", "eleven"}}, {onnx}, 2, "TRT_VERSION must look like"},
      {{{"STANDIN_TRT", "110401"}, {"HEAD_FP16", "/m.0/Conv"}},
       {onnx},
       2,
       "HEAD_FP16: TensorRT 11.4.1 takes each layer's precision from the ONNX"},
      {{{"STANDIN_TRT", "100300"}, {"HEAD_FP16", "a b"}}, {onnx}, 2, "HEAD_FP16 must be layer names"},
  };
  for (const auto &c : cases) {
    const Built b = build_loadable (tmp, c.args, c.env);
    SCOPED_TRACE (c.says);
    EXPECT_EQ (b.outcome.status, c.status) << b.outcome.out;
    EXPECT_NE (b.outcome.out.find ("build-loadable.sh: " + c.says), std::string::npos) << b.outcome.out;
    EXPECT_EQ (b.build_call, "") << "trtexec was asked to build";
  }
}

namespace {

/* demo.sh with DEMO_PROBE_ROOT standing in for / and BUILD_DIR a folder that must stay absent (the
 * probe comes before any install or build). */
Outcome demo_probe (const TempDir &tmp, const std::vector<std::pair<std::string, std::string>> &more = {})
{
  std::vector<std::pair<std::string, std::string>> env = {{"DEMO_PROBE_ROOT", tmp / "root"},
                                                          {"BUILD_DIR", tmp / "build"}};
  env.insert (env.end (), more.begin (), more.end ());
  return run_clean (tmp.path (), {"timeout", "60", "bash", pipelines_dir () + "/demo.sh"}, env);
}

bool make_dirs (const std::string &path)
{
  return g_mkdir_with_parents (path.c_str (), 0755) == 0;
}

}  // namespace

/* The README's first command on a machine without an NVIDIA GPU: one line in seconds, before the
 * install and the build (minutes), saying what works without one; no driver advice. */
TEST (DemoProbe, NoNvidiaGpuSaysSoBeforeBuilding)
{
  TempDir tmp;
  ASSERT_TRUE (make_dirs (tmp / "root"));
  const Outcome r = demo_probe (tmp);
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 3) << r.out;
  ASSERT_EQ (lines_of (r.out).size (), 1u) << r.out;
  for (const char *s : {"demo: needs a CUDA device: this machine has no NVIDIA GPU",
                        "sudo bash tests/run-tests.sh", "gst-inspect-1.0 dlainfer", "dlainfer-inspect"})
    EXPECT_NE (r.out.find (s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ (r.out.find ("driver"), std::string::npos) << "no driver advice without a GPU: " << r.out;
  EXPECT_FALSE (g_file_test ((tmp / "build").c_str (), G_FILE_TEST_EXISTS)) << "it started building";
}

/* An NVIDIA GPU on the PCI bus without its driver: then, and only then, install the driver. */
TEST (DemoProbe, GpuWithoutDriverSaysInstallTheDriver)
{
  TempDir tmp;
  const std::string dev = tmp / "root/sys/bus/pci/devices/0000:01:00.0";
  ASSERT_TRUE (make_dirs (dev));
  ASSERT_TRUE (write_file (dev + "/vendor", "0x10de\n"));
  ASSERT_TRUE (write_file (dev + "/class", "0x030200\n"));
  const Outcome r = demo_probe (tmp);
  EXPECT_EQ (r.status, 3) << r.out;
  ASSERT_EQ (lines_of (r.out).size (), 1u) << r.out;
  EXPECT_NE (r.out.find ("has an NVIDIA GPU but its driver is not loaded"), std::string::npos) << r.out;
  EXPECT_NE (r.out.find ("install the NVIDIA driver"), std::string::npos) << r.out;
  EXPECT_FALSE (g_file_test ((tmp / "build").c_str (), G_FILE_TEST_EXISTS)) << "it started building";
}

/* A driver's device node (or a Jetson) passes the quick probe: CUDA itself is asked after the build. */
TEST (DemoProbe, DeviceNodePassesToTheBuild)
{
  for (const char *node : {"dev/nvidia0", "etc/nv_tegra_release"}) {
    TempDir tmp;
    const std::string path = tmp / "root/" + node;
    ASSERT_TRUE (make_dirs (path.substr (0, path.rfind ('/'))));
    ASSERT_TRUE (write_file (path, ""));
    const Outcome r = demo_probe (tmp, {{"DEMO_SKIP_SETUP", "1"}});
    EXPECT_EQ (r.status, 1) << node << ": " << r.out;
    EXPECT_NE (r.out.find ("cuda-probe is missing: build first"), std::string::npos) << node << ": " << r.out;
  }
}

/* DEMO names one of the three demos; anything else is refused at once, before the probe. */
TEST (DemoFaces, UnknownDemoIsRefusedInOneLine)
{
  TempDir tmp;
  const Outcome r = demo_probe (tmp, {{"DEMO", "fireworks"}});
  EXPECT_EQ (r.status, 2) << r.out;
  ASSERT_EQ (lines_of (r.out).size (), 1u) << r.out;
  EXPECT_NE (r.out.find ("DEMO=fireworks is none of faces (the default), colours, objects"),
             std::string::npos)
      << r.out;
}

namespace {

/* A machine that passes the GPU probe (a device node), a build with stand-ins for cuda-probe and
 * the faces program (which records its arguments in tmp/args and writes `results` where --results
 * says), and FACES_DIR tmp/faces. */
Outcome faces_demo (const TempDir &tmp, const std::string &results,
                    const std::vector<std::pair<std::string, std::string>> &more = {})
{
  make_dirs (tmp / "root/dev");
  write_file (tmp / "root/dev/nvidia0", "");
  make_dirs (tmp / "build/pipelines");
  write_file (tmp / "build/pipelines/cuda-probe", "#!/bin/sh\nexit 0\n", true);
  write_file (tmp / "results.fixture", results);
  write_file (tmp / "build/pipelines/dlainfer-faces-demo",
              "#!/bin/bash\nprintf '%s\\n' \"$@\" > '" + tmp / "args" +
                  "'\n"
                  "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && cp '" +
                  tmp / "results.fixture" +
                  "' \"$2\"; shift; done\n"
                  "echo 'faces summary: 3 of 3 frames, 99.0 fps'\n",
              true);
  std::vector<std::pair<std::string, std::string>> env = {
      {"DEMO_SKIP_SETUP", "1"}, {"FACES_DIR", tmp / "faces"}}; /* no DEMO: faces is the default */
  env.insert (env.end (), more.begin (), more.end ());
  return demo_probe (tmp, env);
}

void prepare_faces_dir (const TempDir &tmp)
{
  make_dirs (tmp / "faces");
  write_file (tmp / "faces/faces.conf", "[clip]\nframes=3\n");
  write_file (tmp / "faces/faces-clip.oracle.txt",
              "frame 0 faces 1\nface 0 10 10 50 50 0.9 sad 0.99\nframe 1 faces 1\n"
              "face 1 12 10 50 50 0.9 happy 0.97\nframe 2 faces 1\nface 2 14 10 50 50 0.9 happy 0.6\n");
}

const char *kTrackResults =
    "obj 0 -1 300 300 50 50 - 0 0\nobj 1 4 13 10 50 50 happy 0.9 0\nobj 2 4 15 10 50 50 happy 0.9 1\n";

}  // namespace

/* The faces demo with set-up skipped and no prepared clip: one line saying how to make it. */
TEST (DemoFaces, WithoutPreparedClipSaysHowToMakeIt)
{
  TempDir tmp;
  const Outcome r = faces_demo (tmp, kTrackResults);
  EXPECT_EQ (r.status, 1) << r.out;
  EXPECT_NE (r.out.find ("has no prepared clip"), std::string::npos) << r.out;
  EXPECT_NE (r.out.find ("tools/models/face_api_prepare.py " + tmp / "faces"), std::string::npos) << r.out;
  EXPECT_FALSE (g_file_test ((tmp / "args").c_str (), G_FILE_TEST_EXISTS)) << "the program ran";
}

/* The program gets the prepared folder, the PNG folder, the MP4 and a results file; its tracks are
 * then checked against face-api's answer (faces-check.py, for real): agreement exits 0. */
TEST (DemoFaces, RunsTheProgramThenChecksTracksAgainstFaceApi)
{
  TempDir tmp;
  prepare_faces_dir (tmp);
  const Outcome r =
      faces_demo (tmp, kTrackResults, {{"PNG_DIR", tmp / "png"}, {"FACES_MP4", tmp / "out.mp4"}});
  EXPECT_EQ (r.status, 0) << r.out;
  EXPECT_NE (r.out.find ("track #4: frames 1-2 (2): happy, face-api happy (2 of 2 matched frames): ok"),
             std::string::npos)
      << r.out;
  EXPECT_NE (r.out.find ("summary: 1 confirmed tracks, 1 with face-api's majority expression"),
             std::string::npos)
      << r.out;
  EXPECT_NE (r.out.find ("demo: "), std::string::npos) << r.out;
  std::string args;
  gchar *text = nullptr;
  if (g_file_get_contents ((tmp / "args").c_str (), &text, nullptr, nullptr))
    args = text;
  g_free (text);
  for (const std::string &want : {"--dir\n" + tmp / "faces" + "\n", "--png-dir\n" + tmp / "png" + "\n",
                                  "--mp4\n" + tmp / "out.mp4" + "\n", std::string ("--png-every\n10\n")})
    EXPECT_NE (args.find (want), std::string::npos) << want << "\n" << args;
}

/* A track whose expression is not face-api's majority fails the demo. */
TEST (DemoFaces, ATrackLabelledOtherwiseFailsTheDemo)
{
  TempDir tmp;
  prepare_faces_dir (tmp);
  const Outcome r = faces_demo (tmp, "obj 1 4 13 10 50 50 sad 0.9 0\nobj 2 4 15 10 50 50 sad 0.9 1\n");
  EXPECT_EQ (r.status, 1) << r.out;
  EXPECT_NE (r.out.find ("track #4: frames 1-2 (2): sad, face-api happy"), std::string::npos) << r.out;
  EXPECT_NE (r.out.find ("MISMATCH"), std::string::npos) << r.out;
  EXPECT_NE (r.out.find (", exit 1\n"), std::string::npos) << "the time and status are said: " << r.out;
}

namespace {

std::string configured_prefix (const std::string &build)
{
  const Outcome r = run ({"meson", "introspect", "--buildoptions", build}, {});
  const size_t at = r.out.find ("\"name\": \"prefix\"");
  if (at == std::string::npos)
    return "(no prefix in: " + r.out.substr (0, 200) + ")";
  const size_t v = r.out.find ("\"value\": \"", at);
  return v == std::string::npos ? "" : r.out.substr (v + 10, r.out.find ('"', v + 10) - v - 10);
}

}  // namespace

/* `setup-build.sh build --prefix=/usr` on a configured build/ used to say "Directory already
 * configured" and keep the old prefix: the options given must take. (A project of one line.) */
TEST (SetupBuild, ReconfiguresAnExistingBuildDirWithTheGivenOptions)
{
  TempDir tmp;
  ASSERT_TRUE (write_file (tmp / "meson.build", "project('t')\n"));
  const std::string script = pipelines_dir () + "/../tools/setup-build.sh";
  const std::string cd = "cd \"$1\" && bash \"$2\" b --prefix=\"$3\"";
  const Outcome first = run ({"bash", "-c", cd, "_", tmp.path (), script, "/opt/first"}, {});
  ASSERT_EQ (first.status, 0) << first.out;
  EXPECT_EQ (configured_prefix (tmp / "b"), "/opt/first");
  const Outcome again = run ({"bash", "-c", cd, "_", tmp.path (), script, "/usr"}, {});
  EXPECT_EQ (again.status, 0) << again.out;
  EXPECT_NE (again.out.find ("already configured: reconfiguring it with --prefix=/usr"), std::string::npos)
      << again.out;
  EXPECT_EQ (configured_prefix (tmp / "b"), "/usr") << again.out;
}

/* The test command: why the GPU suite skipped, in one line at the end (it was only in the test
 * log), and meson test's exit status kept. meson is a stand-in writing a log as Meson does. */
TEST (RunTests, SaysWhyTheGpuSuiteSkippedAndKeepsMesonsStatus)
{
  TempDir tmp;
  ASSERT_TRUE (
      write_file (tmp / "meson",
                  "#!/bin/bash\nmkdir -p \"$BUILD_DIR/meson-logs\"\n"
                  "printf '%s\\n' '=== 1/2 ===' 'test:         gpu-a' 'stdout:' "
                  "'SKIP: every test of this program needs a CUDA device: no CUDA driver: the NVIDIA "
                  "driver is not installed' '=== 2/2 ===' 'test:         gpu-b' "
                  "'SKIP: this test needs a CUDA device: no CUDA driver: the NVIDIA driver is not "
                  "installed' > \"$BUILD_DIR/meson-logs/testlog.txt\"\n"
                  "echo 'Skipped: 2'\nexit \"$MESON_STATUS\"\n",
                  true));
  const std::string script = pipelines_dir () + "/../tests/run-tests.sh";
  for (const char *status : {"0", "1"}) {
    const Outcome r =
        run_clean (tmp.path (), {"bash", script},
                   {{"RUN_TESTS_NO_SETUP", "1"}, {"BUILD_DIR", tmp / "build"}, {"MESON_STATUS", status}});
    EXPECT_EQ (r.status, std::stoi (status)) << r.out;
    EXPECT_NE (r.out.find ("gpu suite: skipped (2 test programs): no CUDA device (no CUDA driver: the NVIDIA "
                           "driver is not installed); it runs on a machine with a CUDA GPU: sudo bash "
                           "tests/run-tests.sh"),
               std::string::npos)
        << r.out;
  }
  /* Nothing skipped: nothing said. */
  ASSERT_TRUE (write_file (tmp / "meson", "#!/bin/bash\necho 'Ok: 3'\n", true));
  const Outcome ok =
      run_clean (tmp.path (), {"bash", script}, {{"RUN_TESTS_NO_SETUP", "1"}, {"BUILD_DIR", tmp / "b2"}});
  EXPECT_EQ (ok.status, 0) << ok.out;
  EXPECT_EQ (ok.out.find ("gpu suite"), std::string::npos) << ok.out;
}

/* Without trtexec (e.g. on the x86 host), a wrong argument is still named first: the documented
 * argument checks come before trtexec is looked for. */
TEST (BuildLoadable, ArgumentErrorsBeforeTrtexecIsLookedFor)
{
  TempDir tmp;
  const std::string onnx = tmp / "net.onnx";
  ASSERT_TRUE (write_file (onnx, "onnx"));
  const std::pair<std::string, std::string> no_trtexec = {"TRTEXEC", tmp / "no-trtexec"};
  struct Case {
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{no_trtexec}, {}, "usage: "},
      {{no_trtexec}, {tmp / "missing.onnx"}, "no such ONNX file: "},
      {{no_trtexec}, {onnx, "out.loadable", "x"}, "DLA_CORE must be a number"},
      {{no_trtexec, {"IN_FORMAT", "fp32:linear"}}, {onnx}, "unknown IN_FORMAT 'fp32:linear'"},
      {{no_trtexec, {"TRT_VERSION", "eleven"}}, {onnx}, "TRT_VERSION must look like"},
      {{no_trtexec, {"TRT_VERSION", "11.4.1"}, {"CALIB", "c.cache"}},
       {onnx},
       "CALIB: TensorRT 11.4.1 has no"},
      {{no_trtexec, {"TRT_VERSION", "11.4.1"}, {"INT8", "1"}}, {onnx}, "INT8: TensorRT 11.4.1 has no --int8"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE (c.says);
    const Built b = build_loadable (tmp, c.args, c.env);
    EXPECT_EQ (b.outcome.status, 2) << b.outcome.out;
    EXPECT_NE (b.outcome.out.find ("build-loadable.sh: " + c.says), std::string::npos) << b.outcome.out;
    EXPECT_EQ (b.outcome.out.find ("trtexec not found"), std::string::npos) << b.outcome.out;
  }
  /* With valid arguments, the missing trtexec is named. */
  const Built b = build_loadable (tmp, {onnx}, {no_trtexec, {"TRT_VERSION", "10"}});
  EXPECT_EQ (b.outcome.status, 3) << b.outcome.out;
  EXPECT_NE (b.outcome.out.find ("trtexec not found at " + tmp / "no-trtexec"), std::string::npos)
      << b.outcome.out;
}

/* Without cudaupload the Jetson scripts name it and its package (gst-launch-1.0 only said: no
 * element "cudaupload"), whether the nvcodec plugin is missing or present without a driver. */
TEST (Scripts, MissingCudauploadIsNamedWithItsPackage)
{
  TempDir tmp;
  ASSERT_TRUE (write_file (tmp / "gst-inspect-1.0",
                           "#!/bin/bash\n"
                           "for a; do last=$a; done\n"
                           "for a; do [ \"$a\" = --exists ] && { [ \"$last\" != cudaupload ]; exit; }; done\n"
                           "[ \"$1\" = nvcodec ] && exit \"$NVCODEC_STATUS\"\n" +
                               inspect_standin (10).substr (12),
                           true));
  ASSERT_TRUE (write_file (tmp / "gst-launch-1.0", kLaunchStandin, true));
  const std::string ran = tmp / "ran";
  for (const char *nvcodec : {"0", "1"})
    for (const char *s : {"jetson-file.sh", "jetson-camera.sh"}) {
      SCOPED_TRACE (std::string (s) + " nvcodec status " + nvcodec);
      const Outcome r = run_clean (
          tmp.path (), {"bash", pipelines_dir () + "/" + s, "clip.mp4"},
          {{"MODEL", "net.loadable"}, {"NVMM", "0"}, {"LAUNCH_RECORD", ran}, {"NVCODEC_STATUS", nvcodec}});
      EXPECT_EQ (r.status, 1) << r.out;
      EXPECT_NE (r.out.find (std::string (s) + ": the cudaupload element is missing: "), std::string::npos)
          << r.out;
      EXPECT_NE (
          r.out.find (*nvcodec == '0' ? "the nvcodec plugin (gstreamer1.0-plugins-bad) is installed but"
                                      : "it is in the nvcodec plugin of gstreamer1.0-plugins-bad"),
          std::string::npos)
          << r.out;
      EXPECT_FALSE (g_file_test (ran.c_str (), G_FILE_TEST_EXISTS)) << "gst-launch-1.0 ran";
    }
}

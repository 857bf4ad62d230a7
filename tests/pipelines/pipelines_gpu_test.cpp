/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu: the demo, the example application and every pipeline script, short runs on swdla (the Jetson
 * scripts with their stand-ins, DRY_RUN=1), each checked on what it prints. */
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "run_support.h"
#include "test_support.h"

using namespace pipelines_test;

namespace {

std::string swdla_missing ()
{
  const char *lib = g_getenv ("DLAINFER_CUDLA_LIBRARY");
  if (!lib || !g_file_test (lib, G_FILE_TEST_EXISTS))
    return std::string ("the software DLA library is missing: ") +
           (lib ? lib : "DLAINFER_CUDLA_LIBRARY unset");
  if (!g_file_test (dlainfer_test::test_data ("colours.swdla").c_str (), G_FILE_TEST_EXISTS))
    return "the swdla models are missing (" + dlainfer_test::test_data ("colours.swdla") + ")";
  return "";
}

bool have (const char *factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);
  if (f)
    gst_object_unref (f);
  return f != nullptr;
}

#define REQUIRE_SWDLA()                       \
  do {                                        \
    const std::string why = swdla_missing (); \
    if (!why.empty ())                        \
      GTEST_FAIL () << why;                   \
  } while (0)

/* The first (best) label of a "dlainfer-result" message line: labels=(string)< blue, ... >. */
std::string first_label (const std::string &line)
{
  size_t p = line.find ("labels=");
  if (p == std::string::npos)
    return "";
  p += 7;
  if (line.compare (p, 8, "(string)") == 0)
    p += 8;
  while (p < line.size () && (line[p] == '<' || line[p] == ' ' || line[p] == '"' || line[p] == '{'))
    ++p;
  const size_t end = line.find_first_of (",> \"}", p);
  return line.substr (p, end == std::string::npos ? std::string::npos : end - p);
}

/* The confidences of a "dlainfer-result" message line: confidences=(float)< 0.98, ... >. */
std::vector<double> confidences (const std::string &line)
{
  std::vector<double> v;
  size_t p = line.find ("confidences=(float)<");
  if (p == std::string::npos)
    return v;
  p += 20;
  const size_t end = line.find ('>', p);
  while (p < end) {
    char *stop = nullptr;
    const double x = g_ascii_strtod (line.c_str () + p, &stop);
    if (stop == line.c_str () + p)
      break;
    v.push_back (x);
    p = size_t (stop - line.c_str ());
    while (p < end && (line[p] == ',' || line[p] == ' '))
      ++p;
  }
  return v;
}

/* Checks a script's run: it launched with post-messages=true and -m, and EVERY frame has its
 * "dlainfer-result" message with `label` first and a confidence in (0, 1]. (A run that fell back to
 * identity -v shows no labels: that is a failure here.) */
void expect_results (const Outcome &r, int frames, const std::string &label)
{
  EXPECT_EQ (r.status, 0) << r.out;
  EXPECT_NE (r.out.find ("Got EOS"), std::string::npos) << r.out;
  EXPECT_EQ (count_lines_with (r.out, {"pipeline: ", "gst-launch-1.0 -e -m ", " post-messages=true "}), 1)
      << "the script did not launch with post-messages=true and -m\n"
      << r.out;
  int messages = 0, labelled = 0, confident = 0;
  for (const auto &l : lines_of (r.out)) {
    if (l.find ("from element \"infer\"") == std::string::npos ||
        l.find ("dlainfer-result") == std::string::npos)
      continue;
    ++messages;
    labelled += first_label (l) == label;
    const auto c = confidences (l);
    confident += !c.empty () && c[0] > 0.0 && c[0] <= 1.0;
  }
  EXPECT_EQ (messages, frames) << "one dlainfer-result message per frame\n" << r.out;
  EXPECT_EQ (labelled, frames) << "every frame should be labelled " << label << "\n" << r.out;
  EXPECT_EQ (confident, frames) << "every frame should have a confidence in (0, 1]\n" << r.out;
}

/* The bytes of DIR/frame-NN.png, checked to be a PNG; the file is removed. */
std::string take_png (const char *dir, int n)
{
  gchar *name = g_strdup_printf ("%s/frame-%02d.png", dir, n);
  std::ifstream f (name, std::ios::binary);
  const std::string bytes ((std::istreambuf_iterator<char> (f)), std::istreambuf_iterator<char> ());
  EXPECT_EQ (bytes.substr (0, 8), std::string ("\x89PNG\r\n\x1a\n", 8)) << name;
  g_unlink (name);
  g_free (name);
  return bytes;
}

bool can_write_pngs ()
{
  if (have ("textoverlay") && have ("pngenc") && have ("multifilesink"))
    return true;
  std::printf ("note: textoverlay/pngenc/multifilesink missing here: PNG frames not checked\n");
  return false;
}

}  // namespace

/* On a machine with a GPU, devices hidden by CUDA_VISIBLE_DEVICES are named as the cause (not the
 * driver), and the probe finds the device once the variable is gone. */
TEST (CudaProbe, NamesTheVariableThatHidesTheDevices)
{
  const Outcome hidden = run ({pipelines_build () + "/cuda-probe"}, {{"CUDA_VISIBLE_DEVICES", "-1"}}, true);
  EXPECT_EQ (hidden.status, 3) << hidden.out;
  EXPECT_NE (hidden.out.find ("no CUDA device visible: CUDA_VISIBLE_DEVICES=\"-1\" hides them"),
             std::string::npos)
      << hidden.out;
  gchar **envp = g_get_environ ();
  const bool set = g_environ_getenv (envp, "CUDA_VISIBLE_DEVICES") != nullptr;
  g_strfreev (envp);
  if (!set) {
    const Outcome seen = run ({pipelines_build () + "/cuda-probe"}, {}, true);
    EXPECT_EQ (seen.status, 0) << seen.out;
  }
}

/* The colours demo (DEMO=colours; set-up skipped: the test build has everything): 8 colours, each
 * recognised, one line per frame, 8 PNG frames. (The default, the faces demo, needs the prepared
 * clip: .ci/gpu-host-run.sh runs it.) */
TEST (Demo, ClassifiesEveryColourAndWritesPngs)
{
  REQUIRE_SWDLA ();
  gchar *dir = g_dir_make_tmp ("dlainfer-demo-XXXXXX", nullptr);
  ASSERT_NE (dir, nullptr);
  const Outcome r =
      run ({"bash", pipelines_dir () + "/demo.sh"}, {{"DEMO_SKIP_SETUP", "1"},
                                                     {"DEMO", "colours"},
                                                     {"BUILD_DIR", dlainfer_test::build_path ("")},
                                                     {"PNG_DIR", dir},
                                                     {"FRAMES", "32"},
                                                     {"PER_COLOUR", "4"}});
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 0) << r.out;
  EXPECT_EQ (count_lines_with (r.out, {"frame ", " ok", "[swdla]"}), 32) << r.out;
  EXPECT_EQ (count_lines_with (r.out, {"MISMATCH"}), 0) << r.out;
  for (const char *c : {"black", "white", "red", "green", "blue", "yellow", "cyan", "magenta"})
    EXPECT_EQ (count_lines_with (r.out, {"frame ", std::string (" ") + c + " "}), 4) << c << "\n" << r.out;
  EXPECT_NE (r.out.find ("summary: 32 of 32 frames classified, 32 labelled as painted, backend swdla"),
             std::string::npos)
      << r.out;
  if (can_write_pngs ()) {
    std::string previous;
    for (int i = 0; i < 8; ++i) {
      const std::string bytes = take_png (dir, i);
      EXPECT_NE (bytes, previous) << "frame " << i << " is the same picture as the one before";
      previous = bytes;
    }
  }
  g_rmdir (dir);
  g_free (dir);
}

/* The objects demo (OBJECTS=1): the example detector boxes SMPTE's seven bars on each of 16 frames,
 * dlainfer inference-region=roi-list classifies each box; every object's printed label is the
 * colour of the bar boxed (the test's own reading of the line, not only the demo's ok), and frames
 * 0 and 8 are written as PNGs (2 files, no third; what they show is for the eye). */
TEST (Demo, ObjectsDemoLabelsEachBoxedBarAndWritesPngs)
{
  REQUIRE_SWDLA ();
  const char *bars[] = {"white", "yellow", "cyan", "green", "magenta", "red", "blue"};
  gchar *dir = g_dir_make_tmp ("dlainfer-objects-demo-XXXXXX", nullptr);
  ASSERT_NE (dir, nullptr);
  const Outcome r =
      run ({"bash", pipelines_dir () + "/demo.sh"}, {{"DEMO_SKIP_SETUP", "1"},
                                                     {"OBJECTS", "1"},
                                                     {"BUILD_DIR", dlainfer_test::build_path ("")},
                                                     {"PNG_DIR", dir},
                                                     {"FRAMES", "16"},
                                                     {"PNG_EVERY", "8"}});
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 0) << r.out;
  int per_bar[7] = {0};
  for (const auto &l : lines_of (r.out)) {
    /* frame N  object I  X,Y WxH  LABEL CONFIDENCE  boxed COLOUR ok  [BACKEND] */
    gchar **t = g_strsplit_set (l.c_str (), " ", -1);
    std::vector<std::string> w;
    for (gchar **p = t; *p; ++p)
      if (**p)
        w.emplace_back (*p);
    g_strfreev (t);
    if (w.size () < 4 || w[0] != "frame" || w[2] != "object")
      continue;
    ASSERT_EQ (w.size (), 12u) << l;
    const int i = std::atoi (w[3].c_str ());
    ASSERT_TRUE (i >= 0 && i < 7) << l;
    EXPECT_EQ (w[6], bars[i]) << "object " << i << " boxes the " << bars[i] << " bar: " << l;
    EXPECT_EQ (w[9], bars[i]) << l;
    const double confidence = g_ascii_strtod (w[7].c_str (), nullptr);
    EXPECT_TRUE (confidence > 0.0 && confidence <= 1.0) << l;
    EXPECT_EQ (w[11], "[swdla]") << l;
    per_bar[i] += w[6] == bars[i];
  }
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ (per_bar[i], 16) << bars[i] << "\n" << r.out;
  EXPECT_EQ (count_lines_with (r.out, {"MISMATCH"}), 0) << r.out;
  EXPECT_NE (r.out.find ("summary: 16 of 16 frames, 112 objects, 0 without a result, 112 labelled as boxed, "
                         "backend swdla"),
             std::string::npos)
      << r.out;
  if (can_write_pngs ()) {
    for (int n : {0, 1})
      EXPECT_GT (take_png (dir, n).size (), 1000u) << "frame " << n * 8 << "\n" << r.out;
    gchar *third = g_strdup_printf ("%s/frame-02.png", dir);
    EXPECT_FALSE (g_file_test (third, G_FILE_TEST_EXISTS)) << "only every 8th frame is written\n" << r.out;
    g_unlink (third);
    g_free (third);
  }
  g_rmdir (dir);
  g_free (dir);
}

namespace {

/* Runs the example application on `source` (12 yellow frames) and checks its JSON lines. */
void expect_example_json (const std::string &source)
{
  const Outcome r =
      run ({pipelines_build () + "/dlainfer-example", "--model", dlainfer_test::test_data ("colours.swdla"),
            "--labels", dlainfer_test::test_data ("colours.labels"), "--source", source},
           {}, true);
  ASSERT_EQ (r.why, "");
  EXPECT_EQ (r.status, 0) << r.out;
  int n = 0;
  for (const auto &l : lines_of (r.out)) {
    if (l.rfind ("{", 0) != 0)
      continue;
    EXPECT_EQ (l.rfind ("{\"frame\":" + std::to_string (n) + ",\"pts\":", 0), 0u) << l;
    EXPECT_NE (
        l.find ("\"element\":\"infer\",\"backend\":\"swdla\",\"carried\":false,\"age\":0,\"results\":[{"),
        std::string::npos)
        << l;
    EXPECT_NE (l.find ("\"results\":[{\"class_id\":5,\"label\":\"yellow\",\"confidence\":0.9"),
               std::string::npos)
        << l;
    EXPECT_EQ (l.back (), '}') << l;
    ++n;
  }
  EXPECT_EQ (n, 12) << r.out;
}

}  // namespace

/* The example application prints one JSON line per frame with the meta's fields; its --source
 * takes what gst-launch-1.0 takes before "! cudaupload" (caps shorthand, or a capsfilter). */
TEST (ExampleApp, PrintsOneJsonLinePerFrame)
{
  REQUIRE_SWDLA ();
  expect_example_json (
      "videotestsrc num-buffers=12 pattern=solid-color foreground-color=0xffffff00 ! "
      "video/x-raw,format=NV12,width=320,height=180");
}

TEST (ExampleApp, SourceWithCapsfilter)
{
  REQUIRE_SWDLA ();
  expect_example_json (
      "videotestsrc num-buffers=12 pattern=solid-color foreground-color=0xffffff00 ! capsfilter "
      "caps=video/x-raw,format=NV12,width=320,height=180");
}

/* A source already in CUDA memory goes through cudaupload untouched (no download/upload). */
TEST (ExampleApp, SourceInCudaMemory)
{
  REQUIRE_SWDLA ();
  expect_example_json (
      "videotestsrc num-buffers=12 pattern=solid-color foreground-color=0xffffff00 ! "
      "video/x-raw,format=NV12,width=320,height=180 ! cudaupload ! video/x-raw(memory:CUDAMemory)");
}

/* x86: a clip made with x264enc, decoded by nvh264dec into CUDA memory, classified. */
TEST (Scripts, X86H264)
{
  REQUIRE_SWDLA ();
  TempDir clips ("dlainfer-x86-h264-XXXXXX");
  const Outcome r = run ({"bash", pipelines_dir () + "/x86-h264.sh"},
                         {{"FRAMES", "30"}, {"PATTERN", "blue"}, {"MODEL", ""}, {"CLIP_DIR", clips.path ()}});
  if (r.status == 4)
    GTEST_SKIP () << r.out;
  expect_results (r, 30, "blue");
}

/* Jetson scripts with their stand-ins (videotestsrc, identity) for the Jetson-only elements. */
TEST (Scripts, JetsonFileDryRun)
{
  REQUIRE_SWDLA ();
  const Outcome r = run ({"bash", pipelines_dir () + "/jetson-file.sh"},
                         {{"DRY_RUN", "1"}, {"FRAMES", "20"}, {"MODEL", ""}});
  expect_results (r, 20, "green");
  EXPECT_NE (r.out.find ("nvv4l2decoder-standin"), std::string::npos) << r.out;
}

/* RESULTS=FILE: one JSON line per frame from dlapublish method=file, with the frame's result. */
TEST (Scripts, ResultsAsJsonLines)
{
  REQUIRE_SWDLA ();
  TempDir tmp ("dlainfer-results-XXXXXX");
  const std::string file = tmp / "results.jsonl";
  const Outcome r = run ({"bash", pipelines_dir () + "/jetson-file.sh"},
                         {{"DRY_RUN", "1"}, {"FRAMES", "20"}, {"MODEL", ""}, {"RESULTS", file}});
  expect_results (r, 20, "green");
  const std::vector<std::string> lines = lines_of (read_file (file));
  ASSERT_EQ (lines.size (), 20u) << r.out;
  for (size_t i = 0; i < lines.size (); ++i) {
    EXPECT_NE (lines[i].find ("\"frame\":" + std::to_string (i) + ","), std::string::npos) << lines[i];
    EXPECT_NE (lines[i].find ("\"label\":\"green\""), std::string::npos) << lines[i];
  }
}

TEST (Scripts, JetsonCameraDryRun)
{
  REQUIRE_SWDLA ();
  const Outcome r = run ({"bash", pipelines_dir () + "/jetson-camera.sh"},
                         {{"DRY_RUN", "1"}, {"FRAMES", "20"}, {"MODEL", ""}});
  expect_results (r, 20, "blue");
  EXPECT_NE (r.out.find ("nvvidconv-standin"), std::string::npos) << r.out;
}

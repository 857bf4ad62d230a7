/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The .modelinfo reader (docs/modelinfo.md): an upstream-style file, each malformed case with its
 * message, the file against a loadable's tensors, and the settings a start takes from it (the
 * properties the user set win). No GPU; the same expectations on every GStreamer build. */
#include "gst/modelinfo/modelinfo.h"

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <string>

#include "gst/modelinfo/modelinfo_settings.h"
#include "test_support.h"

namespace {

using dlainfer::ModelInfo;

const char *const kUpstream =
    "[modelinfo]\n"
    "version=1.0\n"
    "group-id=imagenet-classifier\n"
    "\n"
    "[image]\n"
    "dims=1,3,224,224\n"
    "dir=input\n"
    "type=float32\n"
    "dims-order=row-major\n"
    "ranges=-2.1179,2.2489;-2.0357,2.4286;-1.8044,2.6400\n"
    "\n"
    "[logits]\n"
    "dims=1,1000\n"
    "dir=output\n"
    "type=float32\n"
    "id=classification-generic-out\n";

ModelInfo parse_ok (const std::string &text)
{
  ModelInfo mi;
  std::string error;
  EXPECT_TRUE (dlainfer::parse_modelinfo (text, "/models/m.modelinfo", &mi, &error)) << error;
  return mi;
}

std::string parse_error (const std::string &text)
{
  ModelInfo mi;
  std::string error;
  EXPECT_FALSE (dlainfer::parse_modelinfo (text, "/models/m.modelinfo", &mi, &error)) << text;
  EXPECT_NE (error.find ("/models/m.modelinfo"), std::string::npos) << error;
  return error;
}

TEST (ModelInfoParse, UpstreamFile)
{
  const ModelInfo mi = parse_ok (kUpstream);
  EXPECT_EQ (mi.version, "1.0");
  EXPECT_EQ (mi.group_id, "imagenet-classifier");
  ASSERT_EQ (mi.tensors.size (), 2u);
  const dlainfer::ModelInfoTensor *in = mi.find ("image");
  ASSERT_NE (in, nullptr);
  EXPECT_EQ (in->dir, "input");
  EXPECT_EQ (in->dims, (std::vector<int64_t>{1, 3, 224, 224}));
  ASSERT_EQ (in->ranges.size (), 3u);
  EXPECT_DOUBLE_EQ (in->ranges[1].first, -2.0357);
  EXPECT_DOUBLE_EQ (in->ranges[2].second, 2.64);
  const dlainfer::ModelInfoTensor *out = mi.find ("logits");
  ASSERT_NE (out, nullptr);
  EXPECT_EQ (out->id, "classification-generic-out");
  EXPECT_EQ (out->dims, (std::vector<int64_t>{1, 1000}));
  EXPECT_FALSE (out->col_major);
  EXPECT_TRUE (mi.warnings.empty ());
}

TEST (ModelInfoParse, OurKeys)
{
  const ModelInfo mi = parse_ok (
      "[modelinfo]\nversion=1.0\ndlainfer-channel-order=bgr\n"
      "dlainfer-resize-mode=center-crop\ndlainfer-labels=imagenet.txt\n");
  EXPECT_EQ (mi.channel_order, "bgr");
  EXPECT_EQ (mi.resize_mode, "center-crop");
  EXPECT_EQ (mi.labels, "/models/imagenet.txt"); /* relative to the file's folder */
}

TEST (ModelInfoParse, MalformedCases)
{
  EXPECT_NE (parse_error ("not an ini file\n").find ("not an INI file"), std::string::npos);
  EXPECT_NE (parse_error ("[image]\ndir=input\n").find ("no [modelinfo] section"), std::string::npos);
  EXPECT_NE (parse_error ("[modelinfo]\ngroup-id=x\n").find ("add version=1.0"), std::string::npos);
  EXPECT_NE (parse_error ("[modelinfo]\nversion=2.0\n").find ("reads format 1.x"), std::string::npos);
  EXPECT_NE (parse_error ("[modelinfo]\nversion=one\n").find ("not Major.Minor"), std::string::npos);
  EXPECT_NE (parse_error ("[modelinfo]\nversion=1\n").find ("not Major.Minor"), std::string::npos);
  const std::string head = "[modelinfo]\nversion=1.0\n[image]\n";
  EXPECT_NE (parse_error (head + "dims=1,x,224\n").find ("dims in [image]"), std::string::npos);
  EXPECT_NE (parse_error (head + "dir=sideways\n").find ("write input or output"), std::string::npos);
  EXPECT_NE (parse_error (head + "type=float33\n").find ("type=float33"), std::string::npos);
  EXPECT_NE (parse_error (head + "dims-order=diagonal\n").find ("row-major or col-major"), std::string::npos);
  EXPECT_NE (parse_error (head + "ranges=0,1;0\n").find ("min,max pair"), std::string::npos);
  EXPECT_NE (parse_error (head + "ranges=1,0\n").find ("min < max"), std::string::npos);
  EXPECT_NE (parse_error ("[modelinfo]\nversion=1.0\ndlainfer-channel-order=rbg\n").find ("rgb or bgr"),
             std::string::npos);
  EXPECT_NE (parse_error ("[modelinfo]\nversion=1.0\ndlainfer-resize-mode=crop\n").find ("center-crop"),
             std::string::npos);
}

TEST (ModelInfoParse, PlaceholdersAndNewerMinorWarn)
{
  const ModelInfo mi = parse_ok (
      "[modelinfo]\nversion=1.3\ngroup-id=PLACEHOLDER_GROUP\n"
      "[logits]\ndir=output\nid=PLACEHOLDER\n");
  EXPECT_EQ (mi.group_id, "");
  EXPECT_EQ (mi.find ("logits")->id, "");
  ASSERT_EQ (mi.warnings.size (), 3u);
  EXPECT_NE (mi.warnings[0].find ("newer than 1.0"), std::string::npos);
  EXPECT_NE (mi.warnings[1].find ("group-id is 'PLACEHOLDER_GROUP', a placeholder"), std::string::npos);
  EXPECT_NE (mi.warnings[2].find ("[logits] id"), std::string::npos);
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp () override { dir_ = g_dir_make_tmp ("modelinfo-XXXXXX", nullptr); }
  void TearDown () override
  {
    for (const std::string &f : files_)
      g_unlink (f.c_str ());
    g_rmdir (dir_);
    g_free (dir_);
  }
  std::string write (const std::string &name, const std::string &text)
  {
    const std::string path = std::string (dir_) + "/" + name;
    EXPECT_TRUE (g_file_set_contents (path.c_str (), text.data (), gssize (text.size ()), nullptr));
    files_.push_back (path);
    return path;
  }
  std::string path (const std::string &name) const { return std::string (dir_) + "/" + name; }
  gchar *dir_ = nullptr;
  std::vector<std::string> files_;
};

using ModelInfoFind = TempDir;

TEST_F (ModelInfoFind, UpstreamOrder)
{
  EXPECT_EQ (dlainfer::find_modelinfo (path ("m.dla")), "");
  const std::string stem = write ("m.modelinfo", kUpstream);
  EXPECT_EQ (dlainfer::find_modelinfo (path ("m.dla")), stem);
  const std::string full = write ("m.dla.modelinfo", kUpstream);
  EXPECT_EQ (dlainfer::find_modelinfo (path ("m.dla")), full); /* <model>.modelinfo first */
  EXPECT_EQ (dlainfer::find_modelinfo (""), "");
}

TEST_F (ModelInfoFind, UnreadableFileNamesIt)
{
  ModelInfo mi;
  std::string error;
  EXPECT_FALSE (dlainfer::load_modelinfo (path ("missing.modelinfo"), &mi, &error));
  EXPECT_NE (error.find ("Cannot read the model info file"), std::string::npos) << error;
}

host::TensorDesc desc (const char *name, tensor::Layout l, tensor::ElemType t, int64_t c, int64_t h,
                       int64_t w)
{
  host::TensorDesc d;
  d.name = name;
  EXPECT_TRUE (tensor::make_view (l, t, 1, c, h, w, &d.view));
  return d;
}

std::string check (const std::string &text, int64_t out_c = 1000, int64_t out_hw = 1)
{
  const ModelInfo mi = parse_ok (text);
  const std::vector<host::TensorDesc> in = {
      desc ("image", tensor::Layout::kChw16, tensor::ElemType::kFp16, 16, 224, 224)};
  const std::vector<host::TensorDesc> out = {
      desc ("logits", tensor::Layout::kChw16, tensor::ElemType::kFp16, out_c, out_hw, out_hw)};
  std::string error;
  const bool ok = dlainfer::check_modelinfo (mi, in, out, &error);
  EXPECT_EQ (ok, error.empty ()) << error;
  return error;
}

TEST (ModelInfoCheck, AgainstTheLoadable)
{
  EXPECT_EQ (check (kUpstream), "");       /* input c=16 reported for 3 channels */
  EXPECT_EQ (check (kUpstream, 1008), ""); /* 1000 classes in a padded 1008 */
  const std::string h = "[modelinfo]\nversion=1.0\n";
  EXPECT_EQ (check (h + "[logits]\ndims=1000,1\ndims-order=col-major\n"), "");
  EXPECT_EQ (check (h + "[image]\ndims=-1,3,-1,-1\nranges=0,1\n"), "");
  EXPECT_NE (check (h + "[logit]\ndir=output\n").find ("'image' (input), 'logits' (output)"),
             std::string::npos);
  EXPECT_NE (check (h + "[logits]\ndir=input\n").find ("write dir=output"), std::string::npos);
  EXPECT_NE (check (h + "[logits]\ndims=1,999\n").find ("loadable's 'logits' is 1,1000,1,1"),
             std::string::npos);
  EXPECT_NE (check (h + "[image]\ndims=1,3,256,256\n").find ("dims=1,3,256,256"), std::string::npos);
  EXPECT_NE (check (h + "[image]\nranges=0,1;0,1\n").find ("2 ranges but the input has 3 channels"),
             std::string::npos);
  EXPECT_NE (check (h + "[logits]\ntype=float16\n").find ("float32 only"), std::string::npos);
  EXPECT_NE (check (h + "[logits]\ntype=uint8\n").find ("type=uint8"), std::string::npos);
  EXPECT_EQ (check (h + "[logits]\ntype=float16\ndims=1,64,7,7\n", 64, 7),
             ""); /* a feature map may be FP16 */
  EXPECT_NE (check (h + "[logits]\ndims=1,64\n", 64, 7).find ("is 1,64,7,7 (NCHW)"), std::string::npos);
}

TEST (ModelInfoSettings, FileFillsWhatTheUserDidNotSet)
{
  std::string text = kUpstream;
  text.insert (text.find ("group-id"), "dlainfer-channel-order=bgr\ndlainfer-labels=/l.txt\n");
  auto mi = std::make_shared<ModelInfo> (parse_ok (text));
  dlainfer::Settings user;
  user.resize_mode = preprocess::ResizeMode::kLetterbox;
  user.user_set.insert ("resize-mode");
  const dlainfer::Settings s = dlainfer::apply_modelinfo (user, mi);
  /* ranges=-2.1179,2.2489 -> mean 2.1179 / 4.3668, std 1 / 4.3668 (ImageNet's 0.485, 0.229) */
  EXPECT_NEAR (s.mean[0], 0.485f, 1e-4f);
  EXPECT_NEAR (s.std[0], 0.229f, 1e-4f);
  EXPECT_NEAR (s.mean[2], 0.406f, 1e-4f);
  EXPECT_NEAR (s.std[2], 0.225f, 1e-4f);
  EXPECT_EQ (s.channel_order, preprocess::ChannelOrder::kBGR);
  EXPECT_EQ (s.labels, "/l.txt");
  EXPECT_EQ (s.resize_mode, preprocess::ResizeMode::kLetterbox);
  EXPECT_EQ (s.origin.at ("mean"), "modelinfo");
  EXPECT_EQ (s.origin.at ("channel-order"), "modelinfo");
  EXPECT_EQ (s.origin.at ("resize-mode"), "property");
  EXPECT_EQ (s.modelinfo, mi);
}

TEST (ModelInfoSettings, PropertiesWinAndDefaultsReturn)
{
  auto mi = std::make_shared<ModelInfo> (parse_ok ("[modelinfo]\nversion=1.0\n[image]\nranges=0,1\n"));
  dlainfer::Settings user;
  user.mean = {0.5f, 0.5f, 0.5f};
  user.user_set.insert ("mean");
  const dlainfer::Settings s = dlainfer::apply_modelinfo (user, mi);
  EXPECT_EQ (s.mean, (std::vector<float>{0.5f, 0.5f, 0.5f}));
  EXPECT_EQ (s.std, (std::vector<float>{1.f, 1.f, 1.f})); /* one range, every channel: 0..1 */
  EXPECT_EQ (s.origin.at ("mean"), "property");
  EXPECT_EQ (s.origin.at ("std"), "modelinfo");

  /* A file value adopted at one start is not the user's: without the file the default returns. */
  dlainfer::Settings shared;
  shared.std = {2.f, 2.f, 2.f};
  dlainfer::adopt_settings (&shared, dlainfer::apply_modelinfo (shared, nullptr));
  EXPECT_EQ (shared.std, (std::vector<float>{1.f, 1.f, 1.f}));
  EXPECT_EQ (shared.origin.at ("std"), "default");
  EXPECT_EQ (shared.modelinfo, nullptr);
}

/* A later element of a model-instance-id that left `model` unset: it waits for its instance when
 * none exists at its start (the definer starts after it in a parsed pipeline); labels come from
 * the definer only where neither the property nor the .modelinfo names any. */
TEST (ModelInfoSettings, ASharerWithoutModelWaitsForItsInstanceAndTakesItsLabels)
{
  dlainfer::Settings s;
  s.model_instance_id = "cams";
  EXPECT_EQ (dlainfer::open_at (s, false), dlainfer::OpenAt::kFirstData);
  EXPECT_EQ (dlainfer::open_at (s, true), dlainfer::OpenAt::kStart);
  s.model = "m.dla";
  EXPECT_EQ (dlainfer::open_at (s, false), dlainfer::OpenAt::kStart) << "it loads the model itself";
  s.model.clear ();
  s.model_instance_id.clear ();
  EXPECT_EQ (dlainfer::open_at (s, false), dlainfer::OpenAt::kStart) << "no model: refused at start";

  const dlainfer::InstanceDefaults instance{"m.dla", "/defined.txt"};
  dlainfer::Settings mine = dlainfer::apply_instance (dlainfer::apply_modelinfo (s, nullptr), instance);
  EXPECT_EQ (mine.labels, "/defined.txt");
  EXPECT_EQ (mine.origin.at ("labels"), "model-instance-id");
  s.labels = "/own.txt";
  s.user_set.insert ("labels");
  mine = dlainfer::apply_instance (dlainfer::apply_modelinfo (s, nullptr), instance);
  EXPECT_EQ (mine.labels, "/own.txt");
  EXPECT_EQ (mine.origin.at ("labels"), "property");
  s.user_set.clear ();
  auto mi = std::make_shared<ModelInfo> (parse_ok ("[modelinfo]\nversion=1.0\ndlainfer-labels=/file.txt\n"));
  mine = dlainfer::apply_instance (dlainfer::apply_modelinfo (s, mi), instance);
  EXPECT_EQ (mine.labels, "/file.txt") << "the model's own file first, as the definer read it";
}

using ModelInfoStart = TempDir;

TEST_F (ModelInfoStart, ReadsTheFileBesideTheModel)
{
  write ("m.modelinfo", "[modelinfo]\nversion=1.0\ndlainfer-resize-mode=center-crop\n[image]\nranges=-1,1\n");
  GstElement *element = gst_element_factory_make ("identity", nullptr);
  ASSERT_NE (element, nullptr);
  dlainfer::Settings shared;
  shared.model = path ("m.dla");
  host::Status st;
  const dlainfer::Settings s = dlainfer::settings_at_start (element, &shared, &st);
  EXPECT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (s.resize_mode, preprocess::ResizeMode::kCenterCrop);
  EXPECT_EQ (shared.resize_mode, preprocess::ResizeMode::kCenterCrop); /* what frames read */
  EXPECT_FLOAT_EQ (shared.mean[1], 0.5f);
  EXPECT_FLOAT_EQ (shared.std[1], 0.5f);
  ASSERT_NE (s.modelinfo, nullptr);
  EXPECT_EQ (s.modelinfo->path, path ("m.modelinfo"));

  /* A sharer without `model` reads the instance's model's file. */
  dlainfer::Settings sharer;
  sharer.model_instance_id = "cams";
  const dlainfer::Settings t =
      dlainfer::settings_at_start (element, &sharer, &st, {path ("m.dla"), path ("defined.txt")});
  EXPECT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (t.resize_mode, preprocess::ResizeMode::kCenterCrop);
  EXPECT_EQ (sharer.labels, path ("defined.txt"));
  EXPECT_TRUE (sharer.model.empty ()) << "still unset: it defines nothing";

  write ("m.modelinfo", "[modelinfo]\nversion=3.0\n");
  dlainfer::settings_at_start (element, &shared, &st);
  EXPECT_EQ (st.code, host::Code::kSettings);
  EXPECT_NE (st.message.find ("reads format 1.x"), std::string::npos) << st.message;
  gst_object_unref (element);
}

/* pipelines/write-modelinfo.py: its file parses, fits the loadable it describes, and gives back
 * the mean/std it was given. */
using WriterScript = TempDir;

TEST_F (WriterScript, RoundTrip)
{
  const std::string inspect =
      write ("inspect.txt",
             "backend=swdla\n"
             "input 0: 'image' fp16 chw16 1x16x224x224 (row 7168 B, plane 1605632 B)\n"
             "output 0: 'logits' fp16 chw16 1x1000x1x1 (row 32 B, plane 32 B)\n"
             "output 1: 'features' fp16 chw16 1x64x7x7 (row 224 B, plane 1568 B)\n");
  const std::string out = path ("m.dla.modelinfo");
  files_.push_back (out);
  const std::string cmd =
      "python3 " + dlainfer_test::source_path ("pipelines/write-modelinfo.py") + " m.dla --inspect-output " +
      inspect + " -o " + out +
      " --mean 0.485 0.456 0.406 --std 0.229 0.224 0.225 --channel-order bgr --group-id g";
  gint status = -1;
  gchar *err = nullptr;
  ASSERT_TRUE (g_spawn_command_line_sync (cmd.c_str (), nullptr, &err, &status, nullptr));
  EXPECT_EQ (status, 0) << err;
  g_free (err);
  ModelInfo mi;
  std::string error;
  ASSERT_TRUE (dlainfer::load_modelinfo (out, &mi, &error)) << error;
  EXPECT_EQ (mi.group_id, "g");
  EXPECT_EQ (mi.channel_order, "bgr");
  EXPECT_EQ (mi.find ("logits")->id, "classification-generic-out");
  EXPECT_EQ (mi.find ("logits")->dims, (std::vector<int64_t>{1, 1000}));
  EXPECT_EQ (mi.find ("features")->dims, (std::vector<int64_t>{1, 64, 7, 7}));
  EXPECT_EQ (mi.find ("image")->dims, (std::vector<int64_t>{1, 3, 224, 224})) << "the real channel count";
  const std::vector<host::TensorDesc> in = {
      desc ("image", tensor::Layout::kChw16, tensor::ElemType::kFp16, 16, 224, 224)};
  const std::vector<host::TensorDesc> outs = {
      desc ("logits", tensor::Layout::kChw16, tensor::ElemType::kFp16, 1000, 1, 1),
      desc ("features", tensor::Layout::kChw16, tensor::ElemType::kFp16, 64, 7, 7)};
  EXPECT_TRUE (dlainfer::check_modelinfo (mi, in, outs, &error)) << error;
  const dlainfer::Settings s =
      dlainfer::apply_modelinfo (dlainfer::Settings (), std::make_shared<ModelInfo> (mi));
  const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR (s.mean[c], mean[c], 1e-6f) << c;
    EXPECT_NEAR (s.std[c], std[c], 1e-6f) << c;
  }
  /* It never overwrites a file silently. */
  gchar *err2 = nullptr;
  ASSERT_TRUE (g_spawn_command_line_sync (cmd.c_str (), nullptr, &err2, &status, nullptr));
  EXPECT_NE (status, 0);
  EXPECT_NE (std::string (err2).find ("give --force"), std::string::npos) << err2;
  g_free (err2);
}

}  // namespace

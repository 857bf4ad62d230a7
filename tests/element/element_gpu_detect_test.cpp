/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dladetect on a CUDA GPU with the software DLA. The planted model (tests/swdla/models.spec,
 * graph-detect-planted) turns painted squares of a letterboxed 1920x1080 frame into head logits at chosen
 * cells, levels and classes; the boxes expected are worked out here from YOLO's published box
 * formula and the letterbox (not from the decoder's code): the cell's centre, the anchor's size,
 * mapped back by the letterbox's scale and offset. Also: the same boxes with the raw tensors on (the
 * decode chained after their de-pad), the refusals at start (a classifier in dladetect, a detector
 * in dlainfer, a decoder that does not fit the outputs) and the cascade into dlainfer's roi-list. */
#include <glib/gstdio.h>
#include <gst/video/gstvideometa.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu_support.h"

namespace {

using namespace element_gpu;
using Detect = SwdlaTest;

/* The frame and the letterbox into the 320x320 input: scale 6, 70 tensor rows of padding on top. */
constexpr int kFrameW = 1920, kFrameH = 1080;
constexpr double kScale = 6.0, kPadY = 70.0;

/* The fine output's INT8 scale (the element's output-scale; the coarse output is FP16). */
const std::string kOutputScale = " output-scale=0.0625 ";

/* Both levels' anchors, finest first; threshold 0.5. */
const char *const kKeys =
    "dlainfer-decoder=yolo-anchors\n"
    "dlainfer-anchors=64,64;96,96\n"
    "dlainfer-threshold=0.5\n";

/* The planted model in a folder of its own, beside a .modelinfo holding `keys`; removed with it. */
class PlantedModel {
 public:
  explicit PlantedModel (const std::string &keys, const std::string &name = "graph-detect-planted")
  {
    gchar *dir = g_dir_make_tmp ("dladetect-XXXXXX", nullptr);
    dir_ = dir;
    g_free (dir);
    path_ = dir_ + "/det.swdla";
    EXPECT_EQ (symlink (model (name).c_str (), path_.c_str ()), 0);
    const std::string text = "[modelinfo]\nversion=1.0\n" + keys;
    EXPECT_TRUE (g_file_set_contents ((dir_ + "/det.modelinfo").c_str (), text.c_str (), -1, nullptr));
  }
  ~PlantedModel ()
  {
    g_unlink (path_.c_str ());
    g_unlink ((dir_ + "/det.modelinfo").c_str ());
    g_rmdir (dir_.c_str ());
  }
  const std::string &path () const { return path_; }

 private:
  std::string dir_, path_;
};

struct Box {
  std::string label;
  double x0, y0, x1, y1;
  double confidence = 0;
};

/* A box of `anchor` tensor pixels centred on cell (cx, cy) of `stride`, in frame pixels. */
Box expected (const char *label, int stride, int cx, int cy, double anchor)
{
  const double tx = (cx + 0.5) * stride, ty = (cy + 0.5) * stride;
  return {label, (tx - anchor / 2) * kScale, (ty - anchor / 2 - kPadY) * kScale, (tx + anchor / 2) * kScale,
          (ty + anchor / 2 - kPadY) * kScale};
}

/* Frame pixels of tensor cell (cx, cy) of `stride`. */
bool in_cell (int x, int y, int stride, int cx, int cy)
{
  const double tx = x / kScale, ty = y / kScale + kPadY;
  return tx >= cx * stride && tx < (cx + 1) * stride && ty >= cy * stride && ty < (cy + 1) * stride;
}

/* Red at stride-32 cells (3, 4) and (3, 5) (the same class, IoU 0.5: one suppressed), magenta at
 * (4, 4) (another class: kept), green at stride-16 cell (14, 10) (the fine level). */
uint32_t planted (int x, int y)
{
  if (in_cell (x, y, 32, 3, 4) || in_cell (x, y, 32, 3, 5))
    return 0xff0000;
  if (in_cell (x, y, 32, 4, 4))
    return 0xff00ff;
  if (in_cell (x, y, 16, 14, 10))
    return 0x00ff00;
  return 0x000000;
}

std::vector<Box> boxes_of (GstBuffer *buf)
{
  std::vector<Box> out;
  gpointer state = nullptr;
  while (GstMeta *m =
             gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto *roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (m);
    Box b{g_quark_to_string (roi->roi_type), double (roi->x), double (roi->y), double (roi->x + roi->w),
          double (roi->y + roi->h)};
    const GstStructure *p = gst_video_region_of_interest_meta_get_param (roi, "detection");
    if (p)
      gst_structure_get_double (p, "confidence", &b.confidence);
    out.push_back (b);
  }
  return out;
}

std::vector<Box> detect_one_frame (const std::string &properties)
{
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=1920,height=1080,framerate=30/1 ! "
      "dladetect name=det resize-mode=letterbox labels=" +
      labels_of ("graph-detect-planted") + kOutputScale + properties + " ! appsink name=sink sync=false");
  EXPECT_TRUE (p.play ());
  EXPECT_TRUE (p.push (rgba_frame (kFrameW, kFrameH, planted)));
  GstSample *s = p.pull ();
  EXPECT_NE (s, nullptr);
  std::vector<Box> boxes = s ? boxes_of (gst_sample_get_buffer (s)) : std::vector<Box> ();
  if (s)
    gst_sample_unref (s);
  p.stop ();
  return boxes;
}

/* Whether `found` holds `w`: the label, each edge within a pixel (rounding), a high confidence. */
bool holds (const std::vector<Box> &found, const Box &w)
{
  for (const Box &f : found)
    if (f.label == w.label && std::fabs (f.x0 - w.x0) <= 1 && std::fabs (f.y0 - w.y0) <= 1 &&
        std::fabs (f.x1 - w.x1) <= 1 && std::fabs (f.y1 - w.y1) <= 1 && f.confidence > 0.9)
      return true;
  return false;
}

/* The CPU reference (detect-ref-cli) gives these on the frame without the resize's blur. */
void expect_planted_boxes (const std::vector<Box> &found)
{
  ASSERT_EQ (found.size (), 3u) << "one red twin suppressed, nothing else found";
  for (const Box &w : {expected ("magenta", 32, 4, 4, 96), expected ("red", 16, 14, 10, 64)})
    EXPECT_TRUE (holds (found, w)) << w.label << " [" << w.x0 << ", " << w.y0 << ", " << w.x1 << ", " << w.y1
                                   << "]";
  /* The twins score within the blur of each other: whichever is better is kept, never both. */
  const bool upper = holds (found, expected ("red", 32, 3, 4, 96)),
             lower = holds (found, expected ("red", 32, 3, 5, 96));
  EXPECT_TRUE (upper != lower) << "red at (3, 4): " << upper << ", at (3, 5): " << lower;
}

/* Outputs in chw16 FP16 and chw32 INT8, then both in dla_linear (row padding). */
TEST_F (Detect, PlantedBoxesOnALetterboxedFrame)
{
  for (const char *name : {"graph-detect-planted", "graph-detect-planted-linear"}) {
    SCOPED_TRACE (name);
    PlantedModel m (kKeys, name);
    expect_planted_boxes (detect_one_frame ("model=" + m.path ()));
  }
}

/* tensor-meta's de-pad and the decode share the engine's AfterTask: the boxes do not change. */
TEST_F (Detect, TheSameBoxesWithTheRawTensors)
{
  PlantedModel m (kKeys);
  expect_planted_boxes (detect_one_frame ("tensor-meta=true model=" + m.path ()));
}

/* object-class keeps magenta only; max-detections=1 keeps the best. */
TEST_F (Detect, ObjectClassAndMaxDetections)
{
  PlantedModel m (kKeys);
  const std::vector<Box> magenta = detect_one_frame ("object-class=magenta model=" + m.path ());
  ASSERT_EQ (magenta.size (), 1u);
  EXPECT_EQ (magenta[0].label, "magenta");
  EXPECT_EQ (detect_one_frame ("max-detections=1 model=" + m.path ()).size (), 1u);
}

BusError refusal (const std::string &element)
{
  return start_error ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! " + element +
                      " ! fakesink");
}

TEST_F (Detect, AClassifierIsRefusedNamingDlainfer)
{
  const BusError e = refusal ("dladetect name=det model=" + model ("colours"));
  ASSERT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("is a classifier"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("run it in dlainfer"), std::string::npos) << e.message;
}

TEST_F (Detect, ADetectorIsRefusedInDlainferNamingDladetect)
{
  PlantedModel m (kKeys);
  const BusError e = refusal ("dlainfer name=infer model=" + m.path ());
  ASSERT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("is a detector"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("run it in dladetect"), std::string::npos) << e.message;
}

/* Strides that do not fit the grids: the decoder's expectation and the output, both named. */
TEST_F (Detect, ADecoderThatDoesNotFitIsRefusedNamingBoth)
{
  PlantedModel m (std::string (kKeys) + "dlainfer-strides=16,64\n");
  const BusError e = refusal ("dladetect name=det" + kOutputScale + "model=" + m.path ());
  ASSERT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("yolo-anchors"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("coarse"), std::string::npos) << e.message;
  const BusError none =
      refusal ("dladetect name=det" + kOutputScale + "model=" + model ("graph-detect-planted"));
  ASSERT_TRUE (none.posted);
  EXPECT_NE (none.message.find ("No decoder"), std::string::npos) << none.message;
}

/* dladetect on core 0, dlainfer classifying its objects on core 1: every detection classified. */
TEST_F (Detect, TheCascadeClassifiesEveryDetection)
{
  SwdlaEnv two_cores ({{"SWDLA_NUM_CORES", "2"}});
  PlantedModel m (kKeys);
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=1920,height=1080,framerate=30/1 ! "
      "dladetect name=det dla-core=0 max-in-flight=2 resize-mode=letterbox" +
      kOutputScale + "model=" + m.path () +
      " ! dlainfer name=infer dla-core=1 inference-region=roi-list model=" + model ("colours-batch4") +
      " labels=" + labels_of ("colours-batch4") +
      " input-object-min-width=1 input-object-min-height=1 ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  const int frames = 8;
  for (int i = 0; i < frames; ++i)
    ASSERT_TRUE (p.push (rgba_frame (kFrameW, kFrameH, planted, GST_SECOND * i / 30)));
  for (int i = 0; i < frames; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr) << i;
    GstBuffer *buf = gst_sample_get_buffer (s);
    int classified = 0, objects = 0;
    gpointer state = nullptr;
    while (GstMeta *meta =
               gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
      ++objects;
      classified += gst_video_region_of_interest_meta_get_param (
                        reinterpret_cast<GstVideoRegionOfInterestMeta *> (meta), "infer") != nullptr;
    }
    EXPECT_EQ (objects, 3) << i;
    EXPECT_EQ (classified, objects) << i;
    EXPECT_EQ (GST_BUFFER_PTS (buf), GST_SECOND * i / 30) << "frames leave in input order";
    gst_sample_unref (s);
  }
  p.stop ();
}

}  // namespace

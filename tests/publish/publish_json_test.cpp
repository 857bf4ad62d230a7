/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlapublish without a broker: the results read from the metas, their JSON against the schema
 * (docs/publish.schema.json, by python3-jsonschema), the settings' checks, method=file (a full
 * disk included). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gtest/gtest.h>

#include <fstream>

#include "broker.h"
#include "gst/publish/frame_json.h"
#include "gst/publish/frame_reader.h"
#include "gst/publish/publish_settings.h"
#include "publish_test_support.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace {

using namespace dlainfer::publish;
using publish_test::Publish;
using publish_test::start_error;

std::string json_of (GstBuffer *b, int64_t w = 640, int64_t h = 480)
{
  dlainfer::objects::CollectedObjects scratch;
  FrameRecord r;
  read_frame (b, &scratch, &r);
  r.width = w;
  r.height = h;
  r.frame = 7;
  std::string out;
  frame_json (r, "cam\n1", &out);
  return out;
}

/* Runs the schema validator on a file of JSON lines; its output and status. */
int validate (const std::string &path, std::string *output)
{
  const char *root_env = g_getenv ("DLAINFER_SOURCE_ROOT");
  if (!root_env)
    return -1; /* run through meson test */
  const std::string root = root_env;
  const std::string cmd = "/usr/bin/python3 " + root + "/tests/publish/validate_schema.py " + root +
                          "/docs/publish.schema.json '" + path + "' 2>&1";
  FILE *p = popen (cmd.c_str (), "r");
  char buf[512];
  while (p && fgets (buf, sizeof buf, p))
    *output += buf;
  const int rc = p ? pclose (p) : -1;
  return WIFEXITED (rc) ? WEXITSTATUS (rc) : -1;
}

std::vector<std::string> lines_of (const std::string &path)
{
  std::ifstream in (path);
  std::vector<std::string> out;
  for (std::string l; std::getline (in, l);)
    out.push_back (l);
  return out;
}

TEST (PublishJson, RoiMetasAndDlaMeta)
{
  GstBuffer *b = publish_test::frame_with_results (2, 3);
  const std::string j = json_of (b);
  gst_buffer_unref (b);
  EXPECT_EQ (j.find ('\n'), std::string::npos) << "one line";
  EXPECT_NE (j.find ("\"source\":\"cam\\u000a1\""), std::string::npos) << j;
  EXPECT_NE (j.find ("\"frame\":7,\"timestamp\":66666666,\"resolution\":{\"width\":640,\"height\":480}"),
             std::string::npos)
      << j;
  EXPECT_NE (
      j.find ("\"classification\":[{\"name\":\"scene\",\"label\":\"indoor\",\"label_id\":3,\"confidence\":"
              "0.875,\"carried\":false,\"age\":0,\"backend\":\"dla\"}]"),
      std::string::npos)
      << j;
  EXPECT_NE (j.find ("{\"x\":10,\"y\":20,\"w\":32,\"h\":48,\"id\":100,\"detection\":{\"label\":\"face\","
                     "\"label_id\":0,\"confidence\":0.75,\"bounding_box\":{\"x_min\":0.015625,"),
             std::string::npos)
      << j;
  EXPECT_NE (j.find ("\"label\":\"sad \\\"quoted\\\"\""), std::string::npos) << "escaped: " << j;
  EXPECT_NE (j.find ("\"carried\":true,\"age\":2,\"backend\":\"swdla\""), std::string::npos) << j;
}

/* Labels that are not UTF-8 (Latin-1, a cut sequence, a lone continuation byte) still give valid
 * JSON: each bad byte is U+FFFD, the valid text around it kept. */
TEST (PublishJson, LabelsThatAreNotUtf8)
{
  GstBuffer *b = gst_buffer_new ();
  gst_buffer_add_video_region_of_interest_meta (b, "caf\xe9", 1, 2, 3, 4);
  gst_buffer_add_video_region_of_interest_meta (b, "\xe2\x82", 1, 2, 3, 4);
  gst_buffer_add_video_region_of_interest_meta (b, "\x80ok\xc3\xa9", 1, 2, 3, 4);
  const std::string j = json_of (b);
  gst_buffer_unref (b);
  EXPECT_TRUE (g_utf8_validate (j.data (), gssize (j.size ()), nullptr)) << j;
  EXPECT_NE (j.find ("\"label\":\"caf\\ufffd\""), std::string::npos) << j;
  EXPECT_NE (j.find ("\"label\":\"\\ufffd\\ufffd\""), std::string::npos) << j;
  EXPECT_NE (j.find ("\"label\":\"\\ufffdok\xc3\xa9\""), std::string::npos) << j;
}

TEST (PublishJson, EmptyFrameAndNoVideo)
{
  GstBuffer *b = gst_buffer_new ();
  const std::string j = json_of (b, 0, 0);
  gst_buffer_unref (b);
  EXPECT_EQ (j, "{\"source\":\"cam\\u000a1\",\"frame\":7,\"classification\":[],\"objects\":[]}");
}

#ifdef HAVE_GST_ANALYTICS
/* ODMtd + TrackingMtd + ClsMtd (another element's results, no dlainfer meta at all). */
TEST (PublishJson, AnalyticsMetas)
{
  GstBuffer *b = gst_buffer_new ();
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (b);
  GstAnalyticsODMtd od;
  ASSERT_TRUE (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_static_string ("car"), 64, 48, 128,
                                                       96, 0.5f, &od));
  GstAnalyticsTrackingMtd trk;
  ASSERT_TRUE (gst_analytics_relation_meta_add_tracking_mtd (rmeta, 42, 0, &trk));
  ASSERT_TRUE (
      gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, trk.id));
  gfloat levels[] = {0.25f, 0.75f};
  GQuark labels[] = {g_quark_from_static_string ("red"), g_quark_from_static_string ("blue")};
  GstAnalyticsClsMtd cls, frame_cls;
  ASSERT_TRUE (gst_analytics_relation_meta_add_cls_mtd (rmeta, 2, levels, labels, &cls));
  ASSERT_TRUE (
      gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_CONTAIN, od.id, cls.id));
  ASSERT_TRUE (gst_analytics_relation_meta_add_cls_mtd (rmeta, 2, levels, labels, &frame_cls));
  const std::string j = json_of (b);
  gst_buffer_unref (b);
  EXPECT_NE (
      j.find (
          "\"classification\":[{\"name\":\"\",\"label\":\"blue\",\"label_id\":1,\"confidence\":0.75}],"
          "\"objects\":[{\"x\":64,\"y\":48,\"w\":128,\"h\":96,\"id\":42,\"detection\":{\"label\":\"car\","
          "\"confidence\":0.5,\"bounding_box\":{\"x_min\":0.1,\"y_min\":0.1,\"x_max\":0.3,\"y_max\":0.3}},"
          "\"classification\":[{\"name\":\"\",\"label\":\"blue\",\"label_id\":1,\"confidence\":0.75}]}]"),
      std::string::npos)
      << j;
}
#endif

TEST (PublishSettings, Addresses)
{
  Endpoint e;
  EXPECT_EQ (parse_address ("broker.local", false, &e), "");
  EXPECT_EQ (e.port, 1883);
  EXPECT_EQ (parse_address ("broker.local", true, &e), "");
  EXPECT_EQ (e.port, 8883);
  EXPECT_EQ (parse_address ("[::1]:1884", false, &e), "");
  EXPECT_EQ (e.host, "::1");
  EXPECT_EQ (e.port, 1884);
  EXPECT_NE (parse_address ("host:99999", false, &e).find ("not a number in 1..65535"), std::string::npos);
  EXPECT_NE (parse_address ("mqtt://host:1883", false, &e).find ("is a URL"), std::string::npos);
  EXPECT_NE (parse_address ("::1:1883", false, &e).find ("in brackets"), std::string::npos);
  EXPECT_NE (parse_address (":1883", false, &e).find ("names no host"), std::string::npos);
}

TEST (PublishSettings, Topics)
{
  EXPECT_EQ (check_topic ("site/cam1/results"), "");
  EXPECT_NE (check_topic ("site/+/results").find ("wildcard '+'"), std::string::npos);
  EXPECT_NE (check_topic ("site/#").find ("wildcard '#'"), std::string::npos);
  EXPECT_NE (check_topic ("$SYS/x").find ("starts with '$'"), std::string::npos);
  EXPECT_NE (check_topic ("").find ("needs topic"), std::string::npos);
}

TEST (PublishSettings, CredentialsFile)
{
  const std::string dir = publish_test::make_temp_dir ();
  Credentials c;
  EXPECT_NE (read_credentials (dir + "/none", &c).find ("cannot read credentials-file"), std::string::npos);
  std::ofstream (dir + "/ok") << "# fleet\nusername=cam1\npassword=s3cr=t\n";
  EXPECT_EQ (read_credentials (dir + "/ok", &c), "");
  EXPECT_EQ (c.username, "cam1");
  EXPECT_EQ (c.password, "s3cr=t");
  std::ofstream (dir + "/bad") << "user cam1\n";
  EXPECT_NE (read_credentials (dir + "/bad", &c).find ("line 1 is neither"), std::string::npos);
  std::ofstream (dir + "/nouser") << "password=x\n";
  EXPECT_NE (read_credentials (dir + "/nouser", &c).find ("no username"), std::string::npos);
  publish_test::run ("rm -rf '" + dir + "'");
}

/* Every setting that can never work fails the start with its cause and fix. */
TEST (PublishElement, RefusedAtStart)
{
  const std::string base = "method=mqtt address=127.0.0.1:1883 topic=t";
  struct {
    std::string props, expect;
  } cases[] = {
      {"method=mqtt address=127.0.0.1:1883 topic=a/+/b", "wildcard '+'"},
      {"method=mqtt address=127.0.0.1:1883", "needs topic"},
      {"method=mqtt topic=t", "needs address"},
      {"method=mqtt address=no-such-host.invalid:1883 topic=t", "does not resolve"},
      {base + " credentials-file=/nonexistent/creds", "cannot read credentials-file '/nonexistent/creds'"},
      {base + " tls-ca-file=/nonexistent/ca.pem", "cannot read tls-ca-file"},
      {base + " tls-cert-file=/etc/hostname", "need tls-ca-file"},
      {"method=file file-path=/nonexistent/dir/out.jsonl",
       "cannot open file-path '/nonexistent/dir/out.jsonl'"},
  };
  for (const auto &c : cases) {
    const std::string e = start_error (c.props);
    EXPECT_NE (e.find (c.expect), std::string::npos) << c.props << " -> " << e;
  }
}

TEST (PublishElement, FileJsonLinesValid)
{
  const std::string dir = publish_test::make_temp_dir (), path = dir + "/out.jsonl";
  {
    Publish p ("method=file file-path=" + path + " source=cam1");
    ASSERT_TRUE (p.start ());
    for (int i = 0; i < 40; ++i)
      p.push (publish_test::frame_with_results (i, i % 4));
    p.eos ();
    EXPECT_EQ (p.stat ("published"), 40u);
    EXPECT_EQ (p.stat ("dropped"), 0u);
  }
  const std::vector<std::string> lines = lines_of (path);
  ASSERT_EQ (lines.size (), 40u);
  for (size_t i = 0; i < lines.size (); ++i)
    EXPECT_EQ (lines[i].rfind ("{\"source\":\"cam1\",\"frame\":" + std::to_string (i) + ",", 0), 0u)
        << lines[i];
  std::string out;
  EXPECT_EQ (validate (path, &out), 0) << out;
  /* The validator itself rejects a broken message. */
  std::ofstream (dir + "/bad.jsonl")
      << "{\"source\":\"x\",\"frame\":-1,\"classification\":[],\"objects\":[]}\n";
  out.clear ();
  EXPECT_EQ (validate (dir + "/bad.jsonl", &out), 1) << out;
  publish_test::run ("rm -rf '" + dir + "'");
}

/* Settings are read at start: a change while playing is refused, said on the bus. */
TEST (PublishElement, NoChangeWhilePlaying)
{
  Publish p ("method=file file-path=/dev/null queue-size=7");
  ASSERT_TRUE (p.start ());
  p.push (publish_test::frame_with_results (0));
  GstElement *e = p.element ();
  g_object_set (e, "queue-size", 9u, nullptr);
  guint q = 0;
  g_object_get (e, "queue-size", &q, nullptr);
  EXPECT_EQ (q, 7u);
  const auto &log = p.log ();
  ASSERT_EQ (log.warnings.size (), 1u);
  EXPECT_NE (log.warnings[0].find ("queue-size cannot change while running"), std::string::npos)
      << log.warnings[0];
}

/* A full disk: every frame flows, every message is counted as failed, one warning. */
TEST (PublishElement, FileFullDisk)
{
  Publish p ("method=file file-path=/dev/full");
  ASSERT_TRUE (p.start ());
  for (int i = 0; i < 30; ++i)
    p.push (publish_test::frame_with_results (i));
  p.eos ();
  p.stop ();
  EXPECT_EQ (p.stat ("frames"), 30u);
  EXPECT_EQ (p.stat ("published"), 0u);
  EXPECT_EQ (p.stat ("dropped-failed") + p.stat ("dropped-at-stop"), 30u);
  EXPECT_EQ (p.stat ("dropped"), 30u);
  const auto &log = p.log ();
  ASSERT_EQ (log.warnings.size (), 1u);
  EXPECT_NE (log.warnings[0].find ("writing to file-path '/dev/full' failed: No space left on device"),
             std::string::npos)
      << log.warnings[0];
  EXPECT_TRUE (log.errors.empty ());
}

}  // namespace

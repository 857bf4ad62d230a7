/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/publish/frame_json.h"

#include <glib.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace dlainfer {
namespace publish {
namespace {

/* A JSON writer into one string: no allocation once the string has grown to a frame's size. */
class Writer {
 public:
  explicit Writer (std::string *out) : out_ (out) {}

  void raw (const char *s) { out_->append (s); }
  void key (const char *k)
  {
    comma ();
    out_->push_back ('"');
    out_->append (k);
    out_->append ("\":");
    first_ = true; /* the value follows without a comma */
  }
  void open (char c)
  {
    comma ();
    out_->push_back (c);
    first_ = true;
  }
  void close (char c)
  {
    out_->push_back (c);
    first_ = false;
  }
  /* JSON is UTF-8: a byte that is not (a label in Latin-1, a cut sequence) becomes U+FFFD, so one
   * bad label never makes a subscriber's parser refuse the whole message. */
  void string (std::string_view s)
  {
    comma ();
    out_->push_back ('"');
    const char *p = s.data (), *const end = p + s.size ();
    while (p < end) {
      const char *valid_end = end;
      g_utf8_validate_len (p, gsize (end - p), &valid_end);
      for (; p < valid_end; ++p)
        escaped (static_cast<unsigned char> (*p));
      if (p < end) {
        out_->append ("\\ufffd");
        ++p;
      }
    }
    out_->push_back ('"');
    first_ = false;
  }
  template <typename T>
  void integer (T v)
  {
    comma ();
    char buf[24];
    const auto r = std::to_chars (buf, buf + sizeof buf, v);
    out_->append (buf, size_t (r.ptr - buf));
    first_ = false;
  }
  /* The shortest text that reads back as the same float; a NaN or infinity (no JSON number) as 0. */
  void number (float v)
  {
    comma ();
    char buf[32];
    const auto r = std::to_chars (buf, buf + sizeof buf, std::isfinite (v) ? v : 0.0f);
    out_->append (buf, size_t (r.ptr - buf));
    first_ = false;
  }
  void boolean (bool v)
  {
    comma ();
    out_->append (v ? "true" : "false");
    first_ = false;
  }

 private:
  void comma ()
  {
    if (!first_)
      out_->push_back (',');
    first_ = false;
  }
  void escaped (unsigned char ch)
  {
    if (ch == '"' || ch == '\\') {
      out_->push_back ('\\');
      out_->push_back (char (ch));
    } else if (ch < 0x20) {
      char buf[8];
      std::snprintf (buf, sizeof buf, "\\u%04x", ch);
      out_->append (buf);
    } else {
      out_->push_back (char (ch)); /* UTF-8 passes as it is */
    }
  }

  std::string *out_;
  bool first_ = true;
};

void classes (Writer &w, const ClassRecord *list, size_t n, const FrameRecord &f)
{
  w.key ("classification");
  w.open ('[');
  for (const ClassRecord *c_it = list; c_it != list + n; ++c_it) {
    const ClassRecord &c = *c_it;
    w.open ('{');
    w.key ("name");
    w.string (f.str (c.name));
    w.key ("label");
    w.string (f.str (c.label));
    if (c.label_id >= 0) {
      w.key ("label_id");
      w.integer (c.label_id);
    }
    w.key ("confidence");
    w.number (c.confidence);
    if (c.has_carried) {
      w.key ("carried");
      w.boolean (c.carried);
      w.key ("age");
      w.integer (c.age);
    }
    if (!c.backend.empty ()) {
      w.key ("backend");
      w.string (f.str (c.backend));
    }
    w.close ('}');
  }
  w.close (']');
}

/* DL Streamer's "detection": label, label_id, confidence and, with the frame's size, the
 * bounding box normalised to [0, 1]. */
void detection (Writer &w, const ObjectRecord &o, const FrameRecord &f)
{
  w.key ("detection");
  w.open ('{');
  if (!o.label.empty ()) {
    w.key ("label");
    w.string (f.str (o.label));
  }
  if (o.label_id >= 0) {
    w.key ("label_id");
    w.integer (o.label_id);
  }
  if (o.has_confidence) {
    w.key ("confidence");
    w.number (o.confidence);
  }
  if (f.width > 0 && f.height > 0) {
    const float fw = float (f.width), fh = float (f.height);
    w.key ("bounding_box");
    w.open ('{');
    w.key ("x_min");
    w.number (float (o.x) / fw);
    w.key ("y_min");
    w.number (float (o.y) / fh);
    w.key ("x_max");
    w.number (float (o.x + o.w) / fw);
    w.key ("y_max");
    w.number (float (o.y + o.h) / fh);
    w.close ('}');
  }
  w.close ('}');
}

void object (Writer &w, const ObjectRecord &o, const FrameRecord &f)
{
  w.open ('{');
  w.key ("x");
  w.integer (o.x);
  w.key ("y");
  w.integer (o.y);
  w.key ("w");
  w.integer (o.w);
  w.key ("h");
  w.integer (o.h);
  if (o.tracked) {
    w.key ("id");
    w.integer (o.tracking_id);
  }
  detection (w, o, f);
  classes (w, f.object_classes.data () + o.first_class, o.n_classes, f);
  w.close ('}');
}

}  // namespace

void frame_json (const FrameRecord &record, const std::string &source, std::string *out)
{
  out->clear ();
  Writer w (out);
  w.open ('{');
  w.key ("source");
  w.string (source);
  w.key ("frame");
  w.integer (record.frame);
  if (record.timestamp >= 0) {
    w.key ("timestamp");
    w.integer (record.timestamp);
  }
  if (record.width > 0 && record.height > 0) {
    w.key ("resolution");
    w.open ('{');
    w.key ("width");
    w.integer (record.width);
    w.key ("height");
    w.integer (record.height);
    w.close ('}');
  }
  classes (w, record.classes.data (), record.classes.size (), record);
  w.key ("objects");
  w.open ('[');
  for (const ObjectRecord &o : record.objects)
    object (w, o, record);
  w.close (']');
  w.close ('}');
}

}  // namespace publish
}  // namespace dlainfer

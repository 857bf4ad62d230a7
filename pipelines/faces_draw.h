/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The faces demo's own drawing on NV12 frames in system memory: a box outline and a line of text
 * (a built-in 5x7 bitmap font, doubled), for GStreamer versions without objectdetectionoverlay
 * (< 1.26) and for the track ids, which that overlay does not draw. */
#pragma once

#include <gst/video/video.h>

#include <string>

namespace faces {

struct Colour {
  guint8 y, u, v;
};

/* A distinct colour for track `id` (negative: a tentative object, grey). */
Colour track_colour (gint64 id);

/* An outline `thickness` pixels wide just outside the box (x, y, w, h), clipped to the frame. */
void draw_box (GstVideoFrame *nv12, int x, int y, int w, int h, int thickness, Colour c);

/* `text` in white on a strip of `background` whose top-left corner is (x, y), clipped to the frame;
 * characters the font lacks are drawn blank. Returns the strip's height. */
int draw_text (GstVideoFrame *nv12, int x, int y, const std::string &text, Colour background);

/* The width and height of the strip draw_text would draw for `text`. */
int text_width (const std::string &text);
int text_height ();

}  // namespace faces

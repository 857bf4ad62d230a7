/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the objects' tests share: the analytics switch (GStreamer >= 1.24 builds with the
 * analytics library) and a buffer that goes with its scope. */
#pragma once

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/video/video.h>

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define TEST_ANALYTICS 1
#include <gst/analytics/analytics.h>
#endif

namespace objects_test {

struct BufferPtr {
  GstBuffer *b = gst_buffer_new ();
  ~BufferPtr () { gst_buffer_unref (b); }
};

}  // namespace objects_test

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/pending_frame.h"

#include <utility>

namespace dlainfer {

PendingFrame::PendingFrame (PendingFrame &&o) noexcept
{
  *this = std::move (o);
}

PendingFrame &PendingFrame::operator= (PendingFrame &&o) noexcept
{
  if (this != &o) {
    if (buffer)
      gst_buffer_unref (buffer);
    buffer = o.take_buffer ();
    graphed = o.graphed;
    age = o.age;
    post = o.post;
    post_messages = o.post_messages;
    tasks = std::move (o.tasks);
    objects = std::move (o.objects);
    segment = o.segment;
    running_time = o.running_time;
    submitted_at = o.submitted_at;
    downstream_at_submit = o.downstream_at_submit;
  }
  return *this;
}

PendingFrame::~PendingFrame ()
{
  if (buffer)
    gst_buffer_unref (buffer);
}

GstBuffer *PendingFrame::take_buffer ()
{
  return std::exchange (buffer, nullptr);
}

}  // namespace dlainfer

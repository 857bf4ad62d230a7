/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: where dlapublish's messages go (a file, an MQTT broker), as its publishing thread
 * drives it: every call on that thread, none blocking longer than poll's timeout (the connect,
 * asynchronous, included). What became of each message is counted in TransportCounts. */
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gst/publish/publish_settings.h"

namespace dlainfer {
namespace publish {

struct TransportCounts {
  uint64_t published = 0; /* written (file), acknowledged (QoS 1) or sent (QoS 0) */
  uint64_t failed = 0;    /* a write or publish refused */
  uint64_t lost = 0;      /* QoS 0 messages in the library when the connection went */
};

class Transport {
 public:
  virtual ~Transport () = default;
  /* Ready to take messages. */
  virtual bool up () const = 0;
  /* A connect is under way (poll finishes it). */
  virtual bool connecting () const = 0;
  /* One attempt to get up; "" when it started (it may still fail: poll says). */
  virtual std::string connect () = 0;
  /* Room for one more message now. */
  virtual bool room () const = 0;
  /* Hands one message over; false when refused at once (counted in failed) or when the connection
   * failed on it (up () ends; a message the transport sends again after a reconnect stays in flight). */
  virtual bool send (const std::string &message) = 0;
  /* Network work for up to timeout_ms; a failure ends up () and gives the reason. */
  virtual void poll (int timeout_ms) = 0;
  /* Messages handed over and not yet published (QoS 1 awaiting the broker). */
  virtual uint64_t in_flight () const = 0;
  /* Why the last connect, send or poll failed ("" none); taking it clears it. */
  virtual std::string take_failure () = 0;
  virtual const TransportCounts &counts () const = 0;
  /* Closes; what is still in flight stays counted there. */
  virtual void close () = 0;
};

std::unique_ptr<Transport> make_file_transport (const std::string &path);
/* Made at start: TLS files loaded (a failure is returned in *error, the transport null). */
std::unique_ptr<Transport> make_mqtt_transport (const PublishSettings &s, const Endpoint &e,
                                                const Credentials &c, std::string *error);

}  // namespace publish
}  // namespace dlainfer

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tests of dlapublish: a real mosquitto on 127.0.0.1 at a free port, in a directory of its own
 * (config, persistence, certificates), and a subscriber (libmosquitto, its own thread) that keeps
 * every payload it receives. Parallel tests never share a port or a directory. */
#pragma once

#include <mosquitto.h>
#include <sys/types.h>

#include <mutex>
#include <string>
#include <vector>

namespace publish_test {

/* A port nothing listens on now (bound then closed: the broker takes it next). */
int free_port ();

/* A fresh directory under the test's temporary directory, removed by the caller's Broker. */
std::string make_temp_dir ();

class Broker {
 public:
  /* `extra`: more lines for mosquitto.conf (after "listener PORT 127.0.0.1" and persistence). */
  explicit Broker (const std::string &extra = "allow_anonymous true\n", bool persistence = false);
  ~Broker ();
  bool start (); /* waits until it accepts connections */
  void stop ();  /* SIGTERM, waits for it to end (it saves its persistence file) */
  int port () const { return port_; }
  const std::string &dir () const { return dir_; }
  std::string address () const { return "127.0.0.1:" + std::to_string (port_); }
  static bool available ();

 private:
  std::string dir_, extra_;
  bool persistence_;
  int port_;
  pid_t pid_ = -1;
};

/* A subscriber on `topic` with QoS 1. clean=false keeps its session on the broker across the
 * broker's restart (with persistence), so nothing the broker acknowledged is missed. */
class Subscriber {
 public:
  Subscriber (int port, const std::string &topic, bool clean = true, const std::string &id = "");
  ~Subscriber ();
  bool wait_connected (int timeout_ms);
  /* Waits until `n` payloads came (or timeout); returns how many did. */
  size_t wait_for (size_t n, int timeout_ms);
  std::vector<std::string> payloads ();

 private:
  mosquitto *mosq_;
  std::string topic_;
  std::mutex mutex_;
  std::vector<std::string> payloads_;
  bool subscribed_ = false;
};

/* Runs a command line; its exit status. */
int run (const std::string &command);

}  // namespace publish_test

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "broker.h"

#include <arpa/inet.h>
#include <glib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace publish_test {
namespace {

const char *kMosquitto = "/usr/sbin/mosquitto";

bool accepts (int port)
{
  const int fd = socket (AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons (uint16_t (port));
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  const bool ok = connect (fd, reinterpret_cast<sockaddr *> (&a), sizeof a) == 0;
  close (fd);
  return ok;
}

}  // namespace

int free_port ()
{
  const int fd = socket (AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  bind (fd, reinterpret_cast<sockaddr *> (&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname (fd, reinterpret_cast<sockaddr *> (&a), &len);
  close (fd);
  return ntohs (a.sin_port);
}

std::string make_temp_dir ()
{
  gchar *d = g_dir_make_tmp ("dlapublish-XXXXXX", nullptr);
  std::string s = d ? d : "/tmp";
  g_free (d);
  return s;
}

int run (const std::string &command)
{
  const int rc = std::system (command.c_str ());
  return WIFEXITED (rc) ? WEXITSTATUS (rc) : -1;
}

bool Broker::available ()
{
  return access (kMosquitto, X_OK) == 0;
}

Broker::Broker (const std::string &extra, bool persistence)
    : dir_ (make_temp_dir ()), extra_ (extra), persistence_ (persistence), port_ (free_port ())
{
}

Broker::~Broker ()
{
  stop ();
  run ("rm -rf '" + dir_ + "'");
}

bool Broker::start ()
{
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::ofstream conf (dir_ + "/mosquitto.conf");
    conf << "listener " << port_ << " 127.0.0.1\n";
    if (geteuid () == 0) /* else it becomes user mosquitto, who cannot read or write dir_ */
      conf << "user root\n";
    if (persistence_)
      conf << "persistence true\npersistence_location " << dir_ << "/\n";
    conf << extra_;
    conf.close ();
    pid_ = fork ();
    if (pid_ == 0) {
      const std::string log = dir_ + "/mosquitto.log";
      freopen (log.c_str (), "a", stdout);
      freopen (log.c_str (), "a", stderr);
      execl (kMosquitto, kMosquitto, "-c", (dir_ + "/mosquitto.conf").c_str (), nullptr);
      _exit (127);
    }
    for (int i = 0; i < 200; ++i) { /* 10 s: slow under valgrind's load */
      if (accepts (port_))
        return true;
      int status;
      if (waitpid (pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break; /* it did not start: the port was taken meanwhile */
      }
      std::this_thread::sleep_for (std::chrono::milliseconds (50));
    }
    stop ();
    port_ = free_port ();
  }
  return false;
}

void Broker::stop ()
{
  if (pid_ <= 0)
    return;
  kill (pid_, SIGTERM);
  int status;
  waitpid (pid_, &status, 0);
  pid_ = -1;
}

Subscriber::Subscriber (int port, const std::string &topic, bool clean, const std::string &id)
    : topic_ (topic)
{
  mosquitto_lib_init ();
  mosq_ = mosquitto_new (id.empty () ? nullptr : id.c_str (), clean, this);
  mosquitto_connect_callback_set (mosq_, [] (mosquitto *m, void *self, int rc) {
    auto *s = static_cast<Subscriber *> (self);
    if (rc == 0)
      mosquitto_subscribe (m, nullptr, s->topic_.c_str (), 1);
  });
  mosquitto_subscribe_callback_set (mosq_, [] (mosquitto *, void *self, int, int, const int *) {
    auto *s = static_cast<Subscriber *> (self);
    std::lock_guard<std::mutex> lock (s->mutex_);
    s->subscribed_ = true;
  });
  mosquitto_message_callback_set (mosq_, [] (mosquitto *, void *self, const mosquitto_message *m) {
    auto *s = static_cast<Subscriber *> (self);
    std::lock_guard<std::mutex> lock (s->mutex_);
    s->payloads_.emplace_back (static_cast<const char *> (m->payload), size_t (m->payloadlen));
  });
  mosquitto_reconnect_delay_set (mosq_, 1, 1, false);
  mosquitto_connect (mosq_, "127.0.0.1", port, 30);
  mosquitto_loop_start (mosq_);
}

Subscriber::~Subscriber ()
{
  mosquitto_disconnect (mosq_);
  mosquitto_loop_stop (mosq_, false);
  mosquitto_destroy (mosq_);
}

bool Subscriber::wait_connected (int timeout_ms)
{
  for (int t = 0; t < timeout_ms; t += 10) {
    {
      std::lock_guard<std::mutex> lock (mutex_);
      if (subscribed_)
        return true;
    }
    std::this_thread::sleep_for (std::chrono::milliseconds (10));
  }
  return false;
}

size_t Subscriber::wait_for (size_t n, int timeout_ms)
{
  size_t got = 0;
  for (int t = 0; t <= timeout_ms; t += 10) {
    {
      std::lock_guard<std::mutex> lock (mutex_);
      got = payloads_.size ();
    }
    if (got >= n)
      break;
    std::this_thread::sleep_for (std::chrono::milliseconds (10));
  }
  return got;
}

std::vector<std::string> Subscriber::payloads ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  return payloads_;
}

}  // namespace publish_test

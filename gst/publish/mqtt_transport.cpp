/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* method=mqtt through libmosquitto, driven by the publishing thread alone (no library thread):
 * asynchronous connect, mosquitto_loop in poll, callbacks on this thread. At most kWindow
 * messages are in the library at once, so the bounded queue in front is the only backlog; QoS 1
 * messages in flight when the connection goes are sent again by the library after the reconnect
 * and count when the broker acknowledges them. */
#include <mosquitto.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "gst/publish/transport.h"

namespace dlainfer {
namespace publish {
namespace {

constexpr int kWindow = 256;
constexpr auto kConnackTimeout = std::chrono::seconds (10);

std::string describe (int rc)
{
  if (rc == MOSQ_ERR_ERRNO)
    return std::strerror (errno);
  return mosquitto_strerror (rc);
}

class MqttTransport : public Transport {
 public:
  MqttTransport (const PublishSettings &s, const Endpoint &e) : s_ (s), e_ (e)
  {
    static std::once_flag init;
    std::call_once (init, [] { mosquitto_lib_init (); });
    mosq_ = mosquitto_new (s.client_id.empty () ? nullptr : s.client_id.c_str (), true, this);
    where_ = e.host + ":" + std::to_string (e.port);
  }
  ~MqttTransport () override
  {
    close ();
    if (mosq_)
      mosquitto_destroy (mosq_);
  }

  std::string init (const Credentials &c)
  {
    if (!mosq_)
      return "libmosquitto could not make a client (" + std::string (std::strerror (errno)) +
             "): check client-id is at most 65535 bytes of UTF-8";
    mosquitto_connect_callback_set (
        mosq_, [] (mosquitto *, void *self, int rc) { static_cast<MqttTransport *> (self)->connected (rc); });
    mosquitto_publish_callback_set (mosq_, [] (mosquitto *, void *self, int mid) {
      static_cast<MqttTransport *> (self)->published (mid);
    });
    mosquitto_max_inflight_messages_set (mosq_, kWindow);
    if (!c.username.empty ())
      mosquitto_username_pw_set (mosq_, c.username.c_str (),
                                 c.password.empty () ? nullptr : c.password.c_str ());
    if (s_.tls ()) {
      auto opt = [] (const std::string &f) { return f.empty () ? nullptr : f.c_str (); };
      const int rc = mosquitto_tls_set (mosq_, s_.tls_ca_file.c_str (), nullptr, opt (s_.tls_cert_file),
                                        opt (s_.tls_key_file), nullptr);
      if (rc != MOSQ_ERR_SUCCESS)
        return "libmosquitto refused the TLS files (tls-ca-file '" + s_.tls_ca_file + "'): " + describe (rc) +
               ": name PEM files, the key unencrypted";
    }
    return "";
  }

  bool up () const override { return state_ == State::kUp; }
  bool connecting () const override { return state_ == State::kWaiting; }

  std::string connect () override
  {
    const int rc = started_ ? mosquitto_reconnect_async (mosq_)
                            : mosquitto_connect_async (mosq_, e_.host.c_str (), e_.port, int (s_.keep_alive));
    if (rc != MOSQ_ERR_SUCCESS) {
      state_ = State::kDown;
      return "cannot connect to the broker at " + where_ + ": " + describe (rc) + why_refused (rc);
    }
    started_ = true;
    state_ = State::kWaiting;
    since_ = std::chrono::steady_clock::now ();
    return "";
  }

  bool room () const override { return in_flight_.size () < size_t (kWindow); }

  bool send (const std::string &message) override
  {
    int mid = 0;
    const int rc = mosquitto_publish (mosq_, &mid, s_.topic.c_str (), int (message.size ()), message.data (),
                                      s_.qos, false);
    if (rc != MOSQ_ERR_SUCCESS) {
      if (s_.qos > 0 && kept_for_resend (rc)) {
        in_flight_.insert (mid);
        down (lost_reason (rc));
      } else {
        ++counts_.failed;
        failure_ = "publishing to " + where_ + " failed: " + describe (rc);
      }
      return false;
    }
    if (early_.erase (mid)) /* the library wrote (QoS 0) before we knew the mid */
      ++counts_.published;
    else
      in_flight_.insert (mid);
    return true;
  }

  void poll (int timeout_ms) override
  {
    if (state_ == State::kDown)
      return;
    const int rc = mosquitto_loop (mosq_, timeout_ms, 1);
    if (rc != MOSQ_ERR_SUCCESS && state_ != State::kDown)
      down (lost_reason (rc));
    if (state_ == State::kWaiting && std::chrono::steady_clock::now () - since_ > kConnackTimeout) {
      mosquitto_disconnect (mosq_);
      down ("the broker at " + where_ +
            " did not answer the connect in 10 s: check address names an MQTT "
            "listener" +
            std::string (s_.tls () ? " with TLS" : " without TLS"));
    }
  }

  uint64_t in_flight () const override { return in_flight_.size (); }
  std::string take_failure () override { return std::move (failure_); }
  const TransportCounts &counts () const override { return counts_; }

  void close () override
  {
    if (mosq_ && started_ && state_ != State::kDown) {
      mosquitto_disconnect (mosq_);
      mosquitto_loop (mosq_, 0, 1); /* sends the DISCONNECT */
    }
    state_ = State::kDown;
  }

 private:
  enum class State { kDown, kWaiting, kUp };

  /* A QoS 1/2 message is queued in the library before its first write; a write that fails on the
   * connection leaves it there, to be sent again after the reconnect like any message in flight. */
  static bool kept_for_resend (int rc)
  {
    return rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_ERRNO || rc == MOSQ_ERR_TLS;
  }

  std::string why_refused (int rc) const
  {
    if (rc == MOSQ_ERR_EAI)
      return ": check the host in address";
    return ": is the broker running, and address its host:port?";
  }

  std::string lost_reason (int rc) const
  {
    if (state_ == State::kWaiting && s_.tls () && (rc == MOSQ_ERR_TLS || rc == MOSQ_ERR_PROTOCOL))
      return "TLS with the broker at " + where_ + " failed (" + describe (rc) +
             "): check tls-ca-file is the CA that signed the broker's certificate, whose name must be the "
             "host in address";
    if (state_ == State::kWaiting)
      return "cannot connect to the broker at " + where_ + ": " + describe (rc) + why_refused (rc);
    return "the connection to the broker at " + where_ + " was lost: " + describe (rc);
  }

  void connected (int rc)
  {
    if (rc == 0) {
      state_ = State::kUp;
      return;
    }
    const bool credentials = rc == 4 || rc == 5; /* bad user name or password, not authorised */
    refused_ =
        "the broker at " + where_ + " refused the connection: " + mosquitto_connack_string (rc) +
        (credentials ? ": check the username and password in credentials-file" +
                           std::string (s_.credentials_file.empty () ? " (none is set)"
                                                                     : " '" + s_.credentials_file + "'") +
                           " and the broker's password file and ACL"
                     : ": check client-id and the broker's settings");
    mosquitto_disconnect (mosq_);
    down (refused_);
  }

  void published (int mid)
  {
    if (in_flight_.erase (mid))
      ++counts_.published;
    else
      early_.insert (mid);
  }

  void down (const std::string &reason)
  {
    state_ = State::kDown;
    failure_ = refused_.empty () ? reason : refused_;
    refused_.clear ();
    if (s_.qos == 0) { /* the library does not send QoS 0 messages again */
      counts_.lost += in_flight_.size ();
      in_flight_.clear ();
      early_.clear ();
    }
  }

  PublishSettings s_;
  Endpoint e_;
  std::string where_, failure_, refused_;
  mosquitto *mosq_ = nullptr;
  bool started_ = false;
  State state_ = State::kDown;
  std::chrono::steady_clock::time_point since_;
  std::unordered_set<int> in_flight_, early_;
  TransportCounts counts_;
};

}  // namespace

std::unique_ptr<Transport> make_mqtt_transport (const PublishSettings &s, const Endpoint &e,
                                                const Credentials &c, std::string *error)
{
  auto t = std::make_unique<MqttTransport> (s, e);
  *error = t->init (c);
  if (!error->empty ())
    return nullptr;
  return t;
}

}  // namespace publish
}  // namespace dlainfer

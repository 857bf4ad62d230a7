/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlapublish's settings (its properties) and the checks made at start, each failure
 * one line naming the cause and the fix (docs/publish.md). */
#pragma once

#include <cstdint>
#include <string>

namespace dlainfer {
namespace publish {

enum class Method { kFile = 0, kMqtt = 1 };

struct PublishSettings {
  Method method = Method::kFile;
  std::string file_path = "stdout";
  std::string address; /* host[:port] */
  std::string topic;
  std::string client_id; /* "" : the library makes one */
  int qos = 1;
  unsigned keep_alive = 60;     /* s */
  std::string credentials_file; /* username=... / password=... lines */
  std::string tls_ca_file, tls_cert_file, tls_key_file;
  unsigned queue_size = 1000;           /* messages */
  unsigned max_reconnect_interval = 30; /* s */
  unsigned drain_timeout = 2000;        /* ms */
  std::string source;                   /* "" : the stream id */
  bool tls () const { return !tls_ca_file.empty (); }
};

/* The broker's address taken apart: "host", "host:port", "[v6]:port". */
struct Endpoint {
  std::string host;
  int port = 0;
};

/* "" on success, else the error line. */
std::string parse_address (const std::string &address, bool tls, Endpoint *out);
std::string check_topic (const std::string &topic);
/* The host resolves to at least one address. */
std::string check_resolves (const Endpoint &e);

struct Credentials {
  std::string username, password;
};
/* The credentials file: lines "username=NAME" (required) and "password=SECRET"; # comments. */
std::string read_credentials (const std::string &path, Credentials *out);

/* Every check of the settings that needs no network but DNS; *endpoint and *credentials filled
 * for method=mqtt. */
std::string check_settings (const PublishSettings &s, Endpoint *endpoint, Credentials *credentials);

}  // namespace publish
}  // namespace dlainfer

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/publish/publish_settings.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace dlainfer {
namespace publish {
namespace {

bool parse_port (const std::string &text, int *port)
{
  if (text.empty () || text.size () > 5 || text.find_first_not_of ("0123456789") != std::string::npos)
    return false;
  *port = std::atoi (text.c_str ());
  return *port >= 1 && *port <= 65535;
}

std::string readable (const char *property, const std::string &path)
{
  if (path.empty () || access (path.c_str (), R_OK) == 0)
    return "";
  return std::string ("cannot read ") + property + " '" + path + "': " + std::strerror (errno) +
         ": name a readable file";
}

}  // namespace

std::string parse_address (const std::string &address, bool tls, Endpoint *out)
{
  const std::string fix =
      ": give host:port, e.g. address=broker.local:" + std::string (tls ? "8883" : "1883");
  if (address.empty ())
    return "method=mqtt needs address (the broker's host:port, e.g. address=localhost:1883)";
  std::string host = address, port;
  if (address[0] == '[') { /* [v6]:port */
    const size_t end = address.find (']');
    if (end == std::string::npos)
      return "address '" + address + "' has '[' without ']'" + fix;
    host = address.substr (1, end - 1);
    if (end + 1 < address.size ()) {
      if (address[end + 1] != ':')
        return "address '" + address + "' has text after ']' that is no :port" + fix;
      port = address.substr (end + 2);
    }
  } else if (address.find ("://") != std::string::npos) {
    return "address '" + address + "' is a URL" + fix + " (TLS: set tls-ca-file)";
  } else {
    const size_t colon = address.rfind (':');
    if (colon != std::string::npos) {
      if (address.find (':') != colon)
        return "address '" + address + "' has several ':' (an IPv6 address goes in brackets, [::1]:1883)" +
               fix;
      host = address.substr (0, colon);
      port = address.substr (colon + 1);
    }
  }
  if (host.empty ())
    return "address '" + address + "' names no host" + fix;
  out->host = host;
  out->port = tls ? 8883 : 1883;
  if (!port.empty () && !parse_port (port, &out->port))
    return "address '" + address + "' has port '" + port + "', not a number in 1..65535" + fix;
  return "";
}

std::string check_topic (const std::string &topic)
{
  if (topic.empty ())
    return "method=mqtt needs topic (where the results go, e.g. topic=site1/camera1/results)";
  if (topic.find_first_of ("+#") != std::string::npos)
    return "topic '" + topic + "' has the wildcard '" + topic.substr (topic.find_first_of ("+#"), 1) +
           "', which only subscriptions may use: name one topic, e.g. site1/camera1/results";
  if (topic.size () > 65535)
    return "topic is longer than MQTT's 65535 bytes: shorten it";
  if (topic[0] == '$')
    return "topic '" + topic + "' starts with '$', which brokers keep for themselves ($SYS): choose another";
  return "";
}

std::string check_resolves (const Endpoint &e)
{
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *res = nullptr;
  const int rc = getaddrinfo (e.host.c_str (), nullptr, &hints, &res);
  if (res)
    freeaddrinfo (res);
  if (rc == 0)
    return "";
  return "the broker's host '" + e.host + "' does not resolve (" + gai_strerror (rc) +
         "): correct address, or name the broker by its IP address";
}

std::string read_credentials (const std::string &path, Credentials *out)
{
  std::ifstream in (path);
  if (!in)
    return "cannot read credentials-file '" + path + "': " + std::strerror (errno) +
           ": create it with the lines username=NAME and password=SECRET (chmod 600)";
  std::string line;
  bool user = false;
  int n = 0;
  while (std::getline (in, line)) {
    ++n;
    if (!line.empty () && line.back () == '\r')
      line.pop_back ();
    if (line.empty () || line[0] == '#')
      continue;
    const size_t eq = line.find ('=');
    const std::string key = line.substr (0, eq);
    if (eq != std::string::npos && key == "username") {
      out->username = line.substr (eq + 1);
      user = true;
    } else if (eq != std::string::npos && key == "password") {
      out->password = line.substr (eq + 1);
    } else {
      return "credentials-file '" + path + "' line " + std::to_string (n) +
             " is neither username=NAME nor password=SECRET: fix the line";
    }
  }
  if (!user || out->username.empty ())
    return "credentials-file '" + path + "' has no username=NAME line: add one";
  return "";
}

std::string check_settings (const PublishSettings &s, Endpoint *endpoint, Credentials *credentials)
{
  if (s.method == Method::kFile)
    return s.file_path.empty () ? "method=file needs file-path (a file, or stdout)" : "";
  std::string e = check_topic (s.topic);
  if (e.empty ())
    e = parse_address (s.address, s.tls (), endpoint);
  if (e.empty () && s.tls_ca_file.empty () && (!s.tls_cert_file.empty () || !s.tls_key_file.empty ()))
    e = "tls-cert-file and tls-key-file need tls-ca-file (the CA that signed the broker's certificate)";
  if (e.empty () && s.tls_cert_file.empty () != s.tls_key_file.empty ())
    e = "a client certificate needs both tls-cert-file and tls-key-file: set the other one";
  const std::pair<const char *, const std::string *> files[] = {{"tls-ca-file", &s.tls_ca_file},
                                                                {"tls-cert-file", &s.tls_cert_file},
                                                                {"tls-key-file", &s.tls_key_file}};
  for (const auto &f : files)
    if (e.empty ())
      e = readable (f.first, *f.second);
  if (e.empty () && !s.credentials_file.empty ())
    e = read_credentials (s.credentials_file, credentials);
  if (e.empty ())
    e = check_resolves (*endpoint);
  return e;
}

}  // namespace publish
}  // namespace dlainfer

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlapublish's configuration (gst/publish/publish_settings.h): the input's lines are an address, a
 * topic, and the rest a credentials file. Each gives its value or one line naming the cause; an
 * accepted address has a host and a port in 1..65535, accepted credentials a username. No DNS. */
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_check.h"
#include "gst/publish/publish_settings.h"

namespace {

std::string take_line (std::string *text)
{
  const size_t end = text->find ('\n');
  std::string line = text->substr (0, end);
  text->erase (0, end == std::string::npos ? text->size () : end + 1);
  return line;
}

void fuzz_credentials (const std::string &text)
{
  char path[] = "/tmp/fuzz-publish-XXXXXX";
  const int fd = mkstemp (path);
  fuzz::check (fd >= 0, "a temporary file");
  const bool written = write (fd, text.data (), text.size ()) == ssize_t (text.size ());
  close (fd);
  fuzz::check (written, "the credentials file written");
  dlainfer::publish::Credentials c;
  const std::string why = dlainfer::publish::read_credentials (path, &c);
  unlink (path);
  if (!why.empty ())
    fuzz::check_one_line_error (why, "read_credentials");
  else
    fuzz::check (!c.username.empty (), "accepted credentials have a username");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  std::string text (reinterpret_cast<const char *> (data), size);
  const std::string address = take_line (&text), topic = take_line (&text);
  for (bool tls : {false, true}) {
    dlainfer::publish::Endpoint e;
    const std::string why = dlainfer::publish::parse_address (address, tls, &e);
    if (!why.empty ())
      fuzz::check_one_line_error (why, "parse_address");
    else
      fuzz::check (!e.host.empty () && e.port >= 1 && e.port <= 65535,
                   "an accepted address has a host and a port");
  }
  const std::string why = dlainfer::publish::check_topic (topic);
  if (!why.empty ())
    fuzz::check_one_line_error (why, "check_topic");
  fuzz_credentials (text);
  return 0;
}

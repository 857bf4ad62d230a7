/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* method=file: JSON lines appended to a file (or stdout), one write(2) per message, so a reader
 * never sees half a line from us and a full disk fails that message alone. */
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gst/publish/transport.h"

namespace dlainfer {
namespace publish {
namespace {

class FileTransport : public Transport {
 public:
  explicit FileTransport (const std::string &path) : path_ (path) {}
  ~FileTransport () override { close (); }

  bool up () const override { return fd_ >= 0; }
  bool connecting () const override { return false; }
  std::string connect () override
  {
    fd_ = path_ == "stdout" ? dup (STDOUT_FILENO)
                            : open (path_.c_str (), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0)
      return "cannot open file-path '" + path_ + "': " + std::strerror (errno) +
             ": name a file in a writable directory";
    return "";
  }
  bool room () const override { return true; }
  bool send (const std::string &message) override
  {
    line_.assign (message);
    line_.push_back ('\n');
    const ssize_t n = write (fd_, line_.data (), line_.size ());
    if (n == ssize_t (line_.size ())) {
      ++counts_.published;
      return true;
    }
    ++counts_.failed;
    failure_ = "writing to file-path '" + path_ + "' failed: " +
               (n < 0 ? std::string (std::strerror (errno)) : "only part of a line was written") +
               ": free space on its disk or name another file";
    return false;
  }
  void poll (int) override {}
  uint64_t in_flight () const override { return 0; }
  std::string take_failure () override { return std::move (failure_); }
  const TransportCounts &counts () const override { return counts_; }
  void close () override
  {
    if (fd_ >= 0)
      ::close (fd_);
    fd_ = -1;
  }

 private:
  std::string path_, line_, failure_;
  int fd_ = -1;
  TransportCounts counts_;
};

}  // namespace

std::unique_ptr<Transport> make_file_transport (const std::string &path)
{
  return std::make_unique<FileTransport> (path);
}

}  // namespace publish
}  // namespace dlainfer

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one move-only owner of a handle that a release function gives back, the shape of
 * Holoscan's UniqueValue. Every RAII class of the dla layer is made of these, so none writes its
 * own destructor, move or reset: a class that owns two things (memory and its registration) holds
 * two handles, declared in the order they are made, and C++ releases them in the reverse order.
 *
 * `Release` is a function object called with the value; it may carry what the release needs (the
 * library, the context, the device it was made on), which also keeps those alive by type: a
 * handle that needs a device holds a shared pointer to it, never a "must outlive" promise.
 * Releasing never throws (a poisoned CUDA fails every call, and teardown must still finish): the
 * call operator must be noexcept. */
#pragma once

#include <type_traits>
#include <utility>

namespace dla {

template <typename T, typename Release>
class UniqueHandle {
  static_assert (std::is_nothrow_invocable_v<const Release &, T>, "a release never throws");

 public:
  UniqueHandle () = default;
  explicit UniqueHandle (T value, Release release = Release ())
      : value_ (value), release_ (std::move (release))
  {
  }
  ~UniqueHandle () { reset (); }

  UniqueHandle (UniqueHandle &&o) noexcept
      : value_ (std::exchange (o.value_, T{})), release_ (std::move (o.release_))
  {
  }
  UniqueHandle &operator= (UniqueHandle &&o) noexcept
  {
    if (this != &o) {
      reset ();
      value_ = std::exchange (o.value_, T{});
      release_ = std::move (o.release_);
    }
    return *this;
  }
  UniqueHandle (const UniqueHandle &) = delete;
  UniqueHandle &operator= (const UniqueHandle &) = delete;

  T get () const { return value_; }
  explicit operator bool () const { return value_ != T{}; }
  /* What the release carries (the device a tensor was registered with, ...). */
  const Release &releaser () const { return release_; }

  /* Releases the value now (once; an empty handle does nothing). */
  void reset () noexcept
  {
    if (value_ != T{})
      release_ (std::exchange (value_, T{}));
  }
  /* Gives the value up without releasing it: the caller owns it now. */
  T release () noexcept { return std::exchange (value_, T{}); }

 private:
  T value_{};
  Release release_{};
};

}  // namespace dla

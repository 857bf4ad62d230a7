/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every fuzz target asserts about a parser's refusal: one line naming the cause (no newline,
 * not empty). A crash, a leak, a hang or a failed check is what libFuzzer reports. */
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

inline void check_one_line_error (const std::string &why, const char *parser)
{
  if (why.empty () || why.find ('\n') != std::string::npos) {
    std::fprintf (stderr, "%s refused the input with %s: \"%s\"\n", parser,
                  why.empty () ? "no message" : "a message of several lines", why.c_str ());
    std::abort ();
  }
}

inline void check (bool ok, const char *what)
{
  if (!ok) {
    std::fprintf (stderr, "check failed: %s\n", what);
    std::abort ();
  }
}

}  // namespace fuzz

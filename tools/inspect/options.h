/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-inspect: its command line (the usage text, the options, the exit codes). */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace inspect {

/* Exit codes (the usage text and tools/dlainfer-inspect.cpp say what each means). */
enum Exit { kOk = 0, kUsage = 2, kNoFile = 3, kNotModel = 4, kNoDla = 5, kRefused = 6, kRunFailed = 7 };

extern const char *const kUsageText;

struct Options {
  std::string file;
  bool identify = false;
  long runs = 0;
  std::vector<int> cores{0};
  int handles = 1, queue = 1, warmup = 2;
  long seed = -1;
  std::string input, output, expect;
  float input_scale = 1.f, output_scale = 1.f;
  int ulps = 2, steps = 1;
};

/* Parses argv into *o; false with *why on a mistake. -h prints the usage and exits. */
bool parse (int argc, char **argv, Options *o, std::string *why);

}  // namespace inspect

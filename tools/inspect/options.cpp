/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tools/inspect/options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace inspect {

const char *const kUsageText =
    "usage: dlainfer-inspect [--identify] FILE\n"
    "       dlainfer-inspect --run N [--core C | --cores C,C..] [--handles H] [--queue Q] [--warmup W]\n"
    "                        [--random SEED | --input F32] [--input-scale S] [--output-scale S]\n"
    "                        [--output F32] [--expect F32 [--ulps K | --steps K]] FILE\n"
    "Says what FILE is (cuDLA loadable, TensorRT engine, swdla model, other) and prints its tensors as\n"
    "dlainfer reads them; --run runs it N times per handle on zero (or --random/--input) input and prints\n"
    "per-task times, CPU per submit and an output checksum. F32 files are dense float32 NCHW.\n"
    "  --identify     the file only: no cuDLA library, no GPU\n"
    "  --cores 0,1    one handle per core, run concurrently (one loadable on both cores)\n"
    "  --handles H    H handles on each core, run concurrently\n"
    "  --queue Q      tasks submitted before each wait (probes how many a handle queues)\n"
    "  --expect F32   compare the last output: FP16 within K ulps (--ulps, default 2) of the largest\n"
    "                 |expected| (at least 1.0), INT8 within K steps (--steps, default 1), same argmax\n"
    "Exit: 0 ok, 2 usage, 3 no such/empty file, 4 not a loadable model, 5 no cuDLA library or device,\n"
    "6 model refused, 7 task failed or --expect mismatch.\n"
    "Environment: DLAINFER_CUDLA_LIBRARY names the cuDLA library (swdla on x86).\n";

namespace {

bool parse_int (const char *s, long lo, long hi, long *out)
{
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol (s, &end, 10);
  if (errno || !end || *end || end == s || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

}  // namespace

bool parse (int argc, char **argv, Options *o, std::string *why)
{
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] () -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    long v = 0;
    const char *s = nullptr;
    if (a == "--identify") {
      o->identify = true;
    } else if (a == "--run" || a == "--core" || a == "--handles" || a == "--queue" || a == "--warmup" ||
               a == "--random" || a == "--ulps" || a == "--steps") {
      const long hi = a == "--run"       ? 100000000
                      : a == "--core"    ? 15
                      : a == "--handles" ? 16
                      : a == "--queue"   ? 4096
                      : a == "--random"  ? 0x7fffffff
                                         : 100000;
      if (!(s = value ()) ||
          !parse_int (s, a == "--run" || a == "--handles" || a == "--queue" ? 1 : 0, hi, &v)) {
        *why = a + " takes a whole number in range";
        return false;
      }
      if (a == "--run")
        o->runs = v;
      if (a == "--core")
        o->cores = {int (v)};
      if (a == "--handles")
        o->handles = int (v);
      if (a == "--queue")
        o->queue = int (v);
      if (a == "--warmup")
        o->warmup = int (v);
      if (a == "--random")
        o->seed = v;
      if (a == "--ulps")
        o->ulps = int (v);
      if (a == "--steps")
        o->steps = int (v);
    } else if (a == "--cores") {
      if (!(s = value ())) {
        *why = "--cores takes a list such as 0,1";
        return false;
      }
      o->cores.clear ();
      std::stringstream ss (s);
      std::string item;
      while (std::getline (ss, item, ',')) {
        if (!parse_int (item.c_str (), 0, 15, &v)) {
          *why = "--cores takes a list such as 0,1";
          return false;
        }
        o->cores.push_back (int (v));
      }
      if (o->cores.empty ()) {
        *why = "--cores takes a list such as 0,1";
        return false;
      }
    } else if (a == "--input" || a == "--output" || a == "--expect") {
      if (!(s = value ())) {
        *why = a + " takes a file name";
        return false;
      }
      (a == "--input" ? o->input : a == "--output" ? o->output : o->expect) = s;
    } else if (a == "--input-scale" || a == "--output-scale") {
      char *end = nullptr;
      if (!(s = value ()) || !(std::strtof (s, &end) > 0.f) || *end) {
        *why = a + " takes a positive number";
        return false;
      }
      (a == "--input-scale" ? o->input_scale : o->output_scale) = std::strtof (s, nullptr);
    } else if (a == "-h" || a == "--help") {
      std::fputs (kUsageText, stdout);
      std::exit (kOk);
    } else if (!a.empty () && a[0] == '-') {
      *why = "unknown option " + a;
      return false;
    } else if (o->file.empty ()) {
      o->file = a;
    } else {
      *why = "one file at a time";
      return false;
    }
  }
  if (o->file.empty ()) {
    *why = "no file given";
    return false;
  }
  if (!o->input.empty () && o->seed >= 0) {
    *why = "--input and --random exclude each other";
    return false;
  }
  if ((o->runs == 0) && (!o->input.empty () || !o->output.empty () || !o->expect.empty ())) {
    *why = "--input, --output and --expect need --run N";
    return false;
  }
  return true;
}

}  // namespace inspect

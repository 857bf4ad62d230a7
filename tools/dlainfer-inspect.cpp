/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-inspect: what a model file is, its tensors as dlainfer reads them, and timed runs.
 *
 *   dlainfer-inspect [--identify] FILE
 *   dlainfer-inspect --run N [--core C | --cores C,C..] [--handles H] [--queue Q] [--warmup W]
 *                    [--random SEED | --input F32] [--input-scale S] [--output-scale S]
 *                    [--output F32] [--expect F32 [--ulps K | --steps K]] FILE
 *
 * The cuDLA library is found as the element finds it (DLAINFER_CUDLA_LIBRARY, else libcudla.so.1)
 * through the dla layer (loader, device, module, descriptor_map, registered_tensor): what it
 * prints is what dlainfer sees. A model need not be an image classifier to --run (a backbone's
 * 1x64x56x56 -> 1x2048x7x7 runs). Output lines are `key: k=v ...` for scripts (the Orin kit).
 *
 * Exit codes: 0 done; 2 usage; 3 file missing, unreadable or empty; 4 not a model cuDLA can load
 * (TensorRT engine, truncated or damaged swdla model, unknown bytes); 5 no cuDLA library or no
 * CUDA device / DLA core (the file's kind was printed, its tensors were not); 6 the library
 * refused the model or a descriptor maps to no layout dlainfer supports; 7 a task failed or
 * --expect found a mismatch. */
#include <cstdio>
#include <string>
#include <vector>

#include "dla/loader.h"
#include "dla/model_file.h"
#include "tools/inspect/identify.h"
#include "tools/inspect/options.h"
#include "tools/inspect/run.h"
#include "tools/inspect/worker.h"

using namespace inspect;

int main (int argc, char **argv)
{
  Options o;
  std::string why;
  if (!parse (argc, argv, &o, &why)) {
    std::fprintf (stderr, "dlainfer-inspect: %s\n%s", why.c_str (), kUsageText);
    return kUsage;
  }
  std::vector<uint8_t> bytes;
  dla::Status st = dla::read_model_file (o.file, &bytes);
  if (!st.ok ()) {
    std::printf ("file: %s\n", o.file.c_str ());
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return st.code == dla::Code::kModel || st.code == dla::Code::kNotFound || st.code == dla::Code::kSettings
               ? kNoFile
               : kNoFile;
  }
  int rc = identify (o.file, bytes);
  if (rc != kOk || o.identify)
    return rc;

  dla::set_log_handler ([] (dla::LogLevel, const std::string &) {}); /* messages come back as Status */
  std::shared_ptr<const dla::Library> lib;
  st = dla::Library::Load (&lib);
  if (!st.ok ()) {
    std::printf ("tensors: not read: no cuDLA library\n");
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kNoDla;
  }
  std::printf ("library: %s backend=%s cudla=%s task_timeout=%s\n", lib->path ().c_str (),
               lib->backend ().c_str (), lib->version_string ().c_str (),
               lib->has_task_timeout () ? "yes" : "no");
  st = dla::check_model_for_backend (bytes.data (), bytes.size (), lib->backend (), o.file);
  if (!st.ok ()) {
    std::printf ("tensors: not read: the library cannot load this kind of file\n");
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kRefused;
  }
  if (o.runs == 0) {
    Worker w;
    w.core = o.cores[0];
    rc = open_worker (lib, bytes, o, &w, true);
    if (rc == kOk)
      std::printf ("device: core=%d of %llu\n", w.core, (unsigned long long)w.device->core_count ());
    else if (rc == kNoDla)
      std::printf ("tensors: not read: no CUDA device or DLA core (see the message above)\n");
    return rc;
  }
  return run (o, lib, bytes);
}

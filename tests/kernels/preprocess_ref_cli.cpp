/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs the CPU reference on a raw frame for the oracle (preprocess_oracle.py); arguments in
 * preprocess_cli.h. Exit 0 = tensor written, 1 = the reference refused the job, 2 = bad arguments. */
#include <cstdio>

#include "preprocess_cli.h"

int main (int argc, char **argv)
{
  preprocess_cli::Job job;
  std::string err;
  if (!preprocess_cli::parse (argc, argv, &job, &err)) {
    std::fprintf (stderr, "%s: %s\n", argv[0], err.c_str ());
    return 2;
  }
  std::vector<uint8_t> out (size_t (job.view.size), 0xab);
  const preprocess::Status s = preprocess::reference (
      job.src, job.view, out.data (), job.params, job.rois.data (), int (job.rois.size ()), nullptr, &err);
  if (s != preprocess::Status::kOk) {
    std::fprintf (stderr, "reference: %s: %s\n", preprocess::status_name (s), err.c_str ());
    return 1;
  }
  if (!preprocess_cli::write_tensor (job, out, &err)) {
    std::fprintf (stderr, "%s\n", err.c_str ());
    return 2;
  }
  return 0;
}

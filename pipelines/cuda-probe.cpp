/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cuda-probe: exits 0 and prints the number of CUDA devices when there is at least one; otherwise
 * prints one line saying why and exits 3. Used by demo.sh before it starts a pipeline. */
#include <cstdio>
#include <string>

#include "dla/primary_context.h"

int main ()
{
  std::string why;
  const int n = dla::cuda_device_count (&why);
  if (n == 0) {
    std::printf ("no CUDA device: %s\n", why.c_str ());
    return 3;
  }
  std::printf ("%d\n", n);
  return 0;
}

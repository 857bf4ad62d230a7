/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernels/preprocess.cu compiled as C++ over the CUDA emulation, for preprocess-emulated. */
#include "cuda_emulation.h"
#include "kernels/preprocess.cu"

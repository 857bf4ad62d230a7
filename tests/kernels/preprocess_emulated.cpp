/* kernels/preprocess.cu compiled as C++ over the CUDA emulation, for preprocess-emulated. */
#include "cuda_emulation.h"
#include "kernels/preprocess.cu"

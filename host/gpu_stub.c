// Without CUDA the GPU entry points exist and report that no device is usable.
#ifndef TUMBLE_HAVE_CUDA
#include "gpu.h"

int tb_gpuDeviceCount(void) {
  return 0;
}

int tb_gpuPlatePose(int nscene, const double* prm, double t, double* pos, double* vel) {
  (void)nscene, (void)prm, (void)t, (void)pos, (void)vel;
  return -1;
}
#else
typedef int tb_gpu_stub_unused;  // ISO C forbids an empty translation unit
#endif

// Without CUDA the GPU entry points exist and report that no device is usable.
#ifndef TUMBLE_HAVE_CUDA
#include "util/error.h"
#include "gpu/gpu.h"

int tb_gpuDeviceCount(void) {
  return 0;
}

void tb_gpuDeviceName(char* buf, int len) {
  snprintf(buf, (size_t)len, "none");
}

int tb_gpuRollout(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                  const tbProbe* probe) {
  (void)m, (void)d, (void)s0, (void)s1, (void)nstep, (void)rec, (void)probe;
  return tb_setError("device gpu: this build has no CUDA");
}
#else
typedef int tb_gpu_stub_unused;  // ISO C forbids an empty translation unit
#endif

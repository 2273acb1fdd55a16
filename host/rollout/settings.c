// The process-wide rollout settings: the device and precision rollouts run on, and the counter a
// progress display reads.
#include <tumble/tumble.h>

#include "gpu/gpu.h"
#include "rollout/rollout.h"

//---- device ------------------------------------------------------------------------------------

// what was asked for, and where rollouts go (auto resolved once, not at every rollout)
static int tb_device = TB_DEVICE_CPU, tb_resolved = TB_DEVICE_CPU;

int tb_setDevice(int device) {
  if (device != TB_DEVICE_CPU && device != TB_DEVICE_GPU && device != TB_DEVICE_AUTO) {
    return tb_setError("device %d: expected TB_DEVICE_CPU, TB_DEVICE_GPU or TB_DEVICE_AUTO",
                       device);
  }
  if (device == TB_DEVICE_GPU && tb_gpuDeviceCount() == 0) {
#ifdef TUMBLE_HAVE_CUDA
    return tb_setError("device gpu: no usable CUDA device");
#else
    return tb_setError("device gpu: this build has no CUDA (nvcc was not found at configure)");
#endif
  }
  tb_device = device;
  tb_resolved = device != TB_DEVICE_AUTO  ? device
                : tb_gpuDeviceCount() > 0 ? TB_DEVICE_GPU
                                          : TB_DEVICE_CPU;
  return TB_OK;
}

int tb_getDevice(void) {
  return tb_device;
}

int tb_rolloutDevice(void) {
  return tb_resolved;
}

static int tb_precision = TB_FP64;

int tb_setPrecision(int precision) {
  if (precision != TB_FP64 && precision != TB_FP32) {
    return tb_setError("precision %d: expected TB_FP64 or TB_FP32", precision);
  }
  tb_precision = precision;
  return TB_OK;
}

int tb_getPrecision(void) {
  return tb_precision;
}

static long* tb_counter;

void tb_setRolloutCounter(long* counter) {
  tb_counter = counter;
}

// the scenes a rollout finished, for a progress display reading the counter from another thread
void tb_countScenes(long n) {
  if (tb_counter) __atomic_fetch_add(tb_counter, n, __ATOMIC_RELAXED);
}

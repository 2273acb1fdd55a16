// The rollout settings (tbRunSettings): the setters of the defaults new batches take (the device
// and precision rollouts run on; the share's is process_split.c's) and a batch's own, checked at
// each of its rollouts; and the process's progress counter.
#include <tumble/tumble.h>

#include "engine/engine.h"
#include "gpu/gpu.h"
#include "rollout/rollout.h"

// usable GPUs, counted once (-1: not yet)
static int tb_gpus = -1;

static int tb_gpuCount(void) {
  if (tb_gpus < 0) tb_gpus = tb_gpuDeviceCount();
  return tb_gpus;
}

// the error of a GPU asked for where none is usable, after what asked ("device gpu")
static int tb_noGpu(const char* what) {
#ifdef TUMBLE_HAVE_CUDA
  return tb_setError("%s: no usable CUDA device", what);
#else
  return tb_setError("%s: this build has no CUDA (nvcc was not found at configure)", what);
#endif
}

int tb_setDevice(int device) {
  if (device != TB_DEVICE_CPU && device != TB_DEVICE_GPU && device != TB_DEVICE_AUTO) {
    return tb_setError("device %d: expected TB_DEVICE_CPU, TB_DEVICE_GPU or TB_DEVICE_AUTO",
                       device);
  }
  if (device == TB_DEVICE_GPU && tb_gpuCount() == 0) return tb_noGpu("device gpu");
  tbRunSettings r = tb_defaultRunSettings();
  r.device = device;
  tb_setRunDefaults(&r);
  return TB_OK;
}

int tb_getDevice(void) {
  return tb_defaultRunSettings().device;
}

int tb_rolloutDevice(void) {
  tbRunSettings r = tb_defaultRunSettings();
  int device = TB_DEVICE_CPU;
  return tb_runDevice(&r, &device) == TB_OK ? device : TB_DEVICE_CPU;
}

int tb_setPrecision(int precision) {
  if (precision != TB_FP64 && precision != TB_FP32) {
    return tb_setError("precision %d: expected TB_FP64 or TB_FP32", precision);
  }
  tbRunSettings r = tb_defaultRunSettings();
  r.precision = precision;
  tb_setRunDefaults(&r);
  return TB_OK;
}

int tb_getPrecision(void) {
  return tb_defaultRunSettings().precision;
}

int tb_runDevice(const tbRunSettings* r, int* device) {
  if (r->precision != TB_FP64 && r->precision != TB_FP32) {
    return tb_setError("rollout: the batch's run.precision %d: expected TB_FP64 or TB_FP32",
                       r->precision);
  }
  if (r->device != TB_DEVICE_CPU && r->device != TB_DEVICE_GPU && r->device != TB_DEVICE_AUTO) {
    return tb_setError(
        "rollout: the batch's run.device %d: expected TB_DEVICE_CPU, TB_DEVICE_GPU or "
        "TB_DEVICE_AUTO",
        r->device);
  }
  int gpus = r->device == TB_DEVICE_CPU ? 0 : tb_gpuCount();
  if (r->device == TB_DEVICE_GPU && gpus == 0)
    return tb_noGpu("rollout: the batch's run.device gpu");
  *device = gpus > 0 ? TB_DEVICE_GPU : TB_DEVICE_CPU;
  return TB_OK;
}

static long* tb_counter;

void tb_setRolloutCounter(long* counter) {
  tb_counter = counter;
}

// the scenes a rollout finished, for a progress display reading the counter from another thread
void tb_countScenes(long n) {
  if (tb_counter) __atomic_fetch_add(tb_counter, n, __ATOMIC_RELAXED);
}

// Host-side entry points of the CUDA kernels (kernels/*.cu), callable from C.
#ifndef TUMBLE_HOST_GPU_H_
#define TUMBLE_HOST_GPU_H_

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// number of usable CUDA devices; 0 when none (or when built without CUDA)
int tb_gpuDeviceCount(void);
// plate poses of nscene scenes at time t (prm: nscene x 13 = A_1..6, C_1..6, omega);
// returns 0 or a CUDA error code (already reported on stderr)
int tb_gpuPlatePose(int nscene, const double* prm, double t, double* pos, double* vel);

#ifdef __cplusplus
}
#endif

// report a CUDA error with file and line, set rc and jump to the cleanup label
#define TB_CUDA_CHECK_GOTO(expr, rc, label)                                                     \
  do {                                                                                          \
    cudaError_t tb_e_ = (expr);                                                                 \
    if (tb_e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "CUDA error %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(tb_e_)); \
      rc = (int)tb_e_;                                                                          \
      goto label;                                                                               \
    }                                                                                           \
  } while (0)

#endif  // TUMBLE_HOST_GPU_H_

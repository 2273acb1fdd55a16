// Kinematic plate poses for a batch of scenes on the GPU, from the shared driver header.
// The first kernel of the GPU path: it exercises the host+device math headers under nvcc.
#include <cuda_runtime.h>

#include <tumble/driver_geom.h>

#include "gpu.h"

// one thread per scene: prm is (nscene x 13): A_1..6, C_1..6, omega
__global__ void tb_platePoseKernel(int nscene, const double* prm, double t, double* pos,
                                   double* vel) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nscene) return;
  const double* p = prm + 13 * s;
  const double p0[3] = {0.0, 0.0, 0.0};
  tbu_plateLinear(p, p + 6, p[12], t, p0, pos + 3 * s, vel + 6 * s);
  tbu_plateAngVel(p + 3, p + 9, p[12], t, vel + 6 * s + 3);
}

extern "C" int tb_gpuDeviceCount(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

extern "C" int tb_gpuPlatePose(int nscene, const double* prm, double t, double* pos, double* vel) {
  double *d_prm = NULL, *d_pos = NULL, *d_vel = NULL;
  size_t n = (size_t)nscene;
  int rc = 0;
  TB_CUDA_CHECK_GOTO(cudaMalloc(&d_prm, n * 13 * sizeof(double)), rc, done);
  TB_CUDA_CHECK_GOTO(cudaMalloc(&d_pos, n * 3 * sizeof(double)), rc, done);
  TB_CUDA_CHECK_GOTO(cudaMalloc(&d_vel, n * 6 * sizeof(double)), rc, done);
  TB_CUDA_CHECK_GOTO(cudaMemcpy(d_prm, prm, n * 13 * sizeof(double), cudaMemcpyHostToDevice), rc,
                     done);
  tb_platePoseKernel<<<(nscene + 127) / 128, 128>>>(nscene, d_prm, t, d_pos, d_vel);
  TB_CUDA_CHECK_GOTO(cudaGetLastError(), rc, done);
  TB_CUDA_CHECK_GOTO(cudaMemcpy(pos, d_pos, n * 3 * sizeof(double), cudaMemcpyDeviceToHost), rc,
                     done);
  TB_CUDA_CHECK_GOTO(cudaMemcpy(vel, d_vel, n * 6 * sizeof(double), cudaMemcpyDeviceToHost), rc,
                     done);
done:
  cudaFree(d_prm);
  cudaFree(d_pos);
  cudaFree(d_vel);
  return rc;
}

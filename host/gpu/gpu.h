// The GPU path's host entry points (kernels/*.cu), callable from C; without CUDA, gpu_stub.c
// gives the same functions, reporting that no device is usable.
#ifndef TUMBLE_HOST_GPU_H_
#define TUMBLE_HOST_GPU_H_

#include <stdio.h>

#include <tumble/tumble.h>

#include "engine/stage_probe.h"

#ifdef __cplusplus
extern "C" {
#endif

// number of CUDA devices that run the kernels (compute capability >= 9.0); 0 when none (or when
// built without CUDA)
int tb_gpuDeviceCount(void);
// the GPU path uses the k-th of those devices (k modulo their count; the first by default): one
// device per process of a share on a node
void tb_gpuPick(int k);
// the name of the device the GPU path uses into buf ("none" without one)
void tb_gpuDeviceName(char* buf, int len);
// tb_rolloutProbe on the GPU: scenes [s0, s1) of d advance nstep steps in the fused kernel, in
// chunks that fit device memory, bitwise the same for any chunking. TB_OK, or TB_ERR_MEMORY /
// TB_ERR_STATE with the CUDA error, file and line in tb_lastError.
int tb_gpuRollout(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                  const tbProbe* probe);
// at most nscene scenes per chunk (0: as many as half the free device memory holds); for tests
// of chunked against unchunked rollouts
void tb_gpuSetChunk(int nscene);
// models whose LM solver's systems reach `rows` unknowns step through the phases of
// newton_phased.h, their systems factored by the batched library routines (0: never; by default
// TB_GPU_NEWTON_ROWS); returns the previous value. For tests and benches of both paths
int tb_gpuSetNewtonBatch(int rows);
#define TB_GPU_NEWTON_ROWS 32

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_GPU_H_

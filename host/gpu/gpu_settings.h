// The GPU path's process-wide settings (gpu.h's setters), one copy for both precisions' launchers
// (kernels/rollout.cu and its fp32 twin, scripts/f32twin.py): precision-free, so not twinned.
#ifndef TUMBLE_HOST_GPU_SETTINGS_H_
#define TUMBLE_HOST_GPU_SETTINGS_H_

#ifdef __cplusplus
extern "C" {
#endif

int tb_gpuPicked(void);      // tb_gpuPick's k
int tb_gpuChunkCap(void);    // tb_gpuSetChunk's scenes (0: as memory allows)
int tb_gpuNewtonRows(void);  // tb_gpuSetNewtonBatch's rows (0: never)

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_GPU_SETTINGS_H_

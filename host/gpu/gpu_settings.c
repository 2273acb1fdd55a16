// The GPU path's process-wide settings (gpu.h), read by the launchers through gpu_settings.h.
#include "gpu/gpu_settings.h"

#include "gpu/gpu.h"

static int tb_picked = 0, tb_chunkCap = 0, tb_newtonRows = TB_GPU_NEWTON_ROWS;

void tb_gpuPick(int k) {
  tb_picked = k < 0 ? 0 : k;
}

int tb_gpuPicked(void) {
  return tb_picked;
}

void tb_gpuSetChunk(int nscene) {
  tb_chunkCap = nscene > 0 ? nscene : 0;
}

int tb_gpuChunkCap(void) {
  return tb_chunkCap;
}

int tb_gpuSetNewtonBatch(int rows) {
  int was = tb_newtonRows;
  tb_newtonRows = rows > 0 ? rows : 0;
  return was;
}

int tb_gpuNewtonRows(void) {
  return tb_newtonRows;
}

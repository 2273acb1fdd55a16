// The rollout on this process: fp32, the GPU, or the CPU's loop (OpenMP over scenes, each thread
// stepping in its own slot).
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "engine/stage_step.h"
#include "gpu/gpu.h"
#include "rollout/cpu_schedule.h"
#include "rollout/rollout.h"

// the error of scratch that does not fit: its size and what drives it, the contact capacity
static int tb_scratchFailed(const tbModel* m, int nslot) {
  tbScratch sizes;
  memset(&sizes, 0, sizeof(sizes));
  tb_solverScratchSize(m, &sizes.nsolver_d, &sizes.nsolver_i);
  double gb = (double)tb_blockBytes(m, &sizes) / 1e9;
  const char* set = m->opt.maxcon > 0 ? "as set by tbOption.maxcon or MJCF <size nconmax>"
                                      : "the bound of every shape pair";
  return tb_setError(
      "rollout: out of memory for %d scratch slots (one per thread) of %.3g GB each: a scene "
      "holds up to %d contacts (%s; %d shape pairs) and %d constraint rows; lower the capacity "
      "with MJCF <size nconmax=\"N\"/> or tbOption.maxcon, or use fewer threads",
      nslot, gb, m->maxcon, set, m->npair, m->maxrow);
}

// a slot for every thread of the next parallel region, kept by the batch between rollouts (and
// made anew when the model's solver needs other scratch than the last rollout's)
static int tb_batchScratch(const tbModel* m, tbData* d, int nslot) {
  size_t nd, ni;
  tb_solverScratchSize(m, &nd, &ni);
  tbScratch* sc = d->scratch;
  if (sc && sc->nslot >= nslot && sc->nsolver_d == nd && sc->nsolver_i == ni) return TB_OK;
  tb_freeScratch(sc);
  d->scratch = tb_newThreadScratch(m, nslot);
  return d->scratch ? TB_OK : tb_scratchFailed(m, nslot);
}

int tb_rolloutHere(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec,
                   const tbProbe* probe) {
  int device, rc = tb_runDevice(&d->run, &device);
  if (rc != TB_OK) return rc;
  if (d->run.precision == TB_FP32) {
    return tb_rolloutF32(m, d, s0, s1, nstep, rec, probe, device == TB_DEVICE_GPU);
  }
  if (device == TB_DEVICE_GPU) {
    rc = tb_gpuRollout(m, d, s0, s1, nstep, rec, probe);
    tb_countScenes(s1 - s0);
    return rc;
  }
  rc = tb_batchScratch(m, d, omp_get_max_threads());
  if (rc != TB_OK) return rc;
  const tbScratch* sc = d->scratch;
  tbWork lead;
  tb_workSlot(m, sc, 0, &lead);
  const double** at = (const double**)malloc(sizeof(double*) * (size_t)(s1 - s0 + 1));
  if (!at) return tb_setError("rollout: out of memory for %d scenes", s1 - s0);
  double* paths = tb_sharedPaths(m, d, s0, s1, nstep, &lead, at);
  int chunk = tb_sceneChunk(s1 - s0, omp_get_max_threads());
#pragma omp parallel
  {
    tbWork w;
    tb_workSlot(m, sc, omp_get_thread_num(), &w);
    // scenes differ in cost (contacts come and go), hence dynamic scheduling; the result of a
    // scene does not depend on which thread (slot) runs it
#pragma omp for schedule(dynamic, chunk)
    for (int s = s0; s < s1; s++) {
      w.kin_path = at[s - s0];
      tb_rolloutScene(tb_solo(), m, d, s, nstep, rec, probe, &w);
      tb_countScenes(1);
    }
  }
  free(paths);
  free(at);
  return TB_OK;
}

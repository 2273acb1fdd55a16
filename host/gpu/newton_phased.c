// The loop over the phases of a chunk's Newton steps (newton_phased.h), shared by the GPU's
// launcher and the tests' CPU stand-in.
#include "gpu/newton_phased.h"

int tb_phasedRollout(const tbPhasedOps* ops, int nstep) {
  int rc = ops->run(ops->ctx, TB_PHASE_BEGIN, 0, 0, NULL);
  for (int k = 1; k <= nstep && rc == TB_OK; k++) {
    rc = ops->run(ops->ctx, TB_PHASE_STEP_BEGIN, k, 0, NULL);
    // every scene's driver stops within its iteration cap, so the loop ends
    for (int largest = 0; rc == TB_OK;) {
      rc = ops->run(ops->ctx, TB_PHASE_PRE, k, 0, &largest);
      if (rc != TB_OK || largest == 0) break;
      rc = ops->run(ops->ctx, TB_PHASE_SOLVE, k, largest, NULL);
      if (rc == TB_OK) rc = ops->run(ops->ctx, TB_PHASE_POST, k, largest, NULL);
    }
    if (rc == TB_OK) rc = ops->run(ops->ctx, TB_PHASE_STEP_END, k, 0, NULL);
  }
  if (rc == TB_OK) rc = ops->run(ops->ctx, TB_PHASE_END, nstep, 0, NULL);
  return rc;
}

int tb_phasedModel(const tbModel* m, int min_rows) {
  // (the phased path solves once per step; the quasistatic step and corner pairs solve in rounds,
  // the implicit step has no Delassus problem; an LM solver without a library system solves in
  // the kernel)
  return min_rows > 0 && tb_isLmSolver(m->opt.solver) &&
         tb_lmLibrarySystem(m->opt.solver) != TB_LM_SYS_NONE && !m->opt.quasistatic &&
         !m->opt.corners && !m->opt.implicit && tb_lmCapacity(m) >= min_rows;
}

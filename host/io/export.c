// The step's contact problems written out as FC3D files, for the file solvers and for Siconos.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>

#include "engine/stage_step.h"

// step problem p of w as an FC3D file, with A made for it from the step's rows (bitwise the
// step's where it assembled one): in body space the step holds none, and a step whose warm start
// was kept as it stood assembled none (tb_warmKept)
static int tb_writeStepProblem(const char* path, const tbWork* w, tbProblem* p) {
  double* A = (double*)malloc(sizeof(double) * tb_cap(p->n) * tb_cap(p->n));
  if (!A) return TB_ERR_MEMORY;
  tb_delassusRows(tb_solo(), w, A);
  p->A = A;
  int rc = tb_writeFC3D(path, p);
  free(A);
  return rc;
}

int tb_exportProblems(const tbModel* m, tbData* d, int nstep, int every, const char* stem,
                      int* written) {
  *written = 0;
  if (m->opt.quasistatic) {
    // its problems are the proximal rounds' (stage_quasi.h), not one problem of the step
    return tb_setError("a quasistatic step solves several problems, not one");
  }
  if (m->opt.corners) {
    // a step with corner pairs may solve its problem again with other members (stage_corner.h)
    return tb_setError("option corners: a step may solve several problems, not one");
  }
  if (m->opt.implicit) {
    // its step is a nonlinear complementarity problem in the shapes' closest points too
    return tb_setError("option implicit: the step's problem is not a Delassus problem");
  }
  tbWork* w = tb_newWork(m);
  if (!w) return TB_ERR_MEMORY;
  int rc = TB_OK;
  for (int s = 0; s < d->nscene && rc == TB_OK; s++) {
    for (int k = 1; k <= nstep && rc == TB_OK; k++) {
      tb_stepScene(m, d, s, w);
      if (d->status[s] & TB_SCENE_FAILMASK) break;
      if (!tb_isRecordStep(k, nstep, every) || d->ncon[s] == 0) continue;
      char path[4096];
      snprintf(path, sizeof(path), "%s-s%d-k%d.dat", stem, s, k);
      tbProblem p = tb_problemOf(m, w);
      rc = tb_writeStepProblem(path, w, &p);
      *written += rc == TB_OK;
    }
  }
  tb_freeWork(w);
  return rc;
}

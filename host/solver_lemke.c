// placeholder until Lemke's method lands in this file
#include "solver.h"
void tb_solveLemke(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                   tbSolveResult* res) {
  res->reason = TB_STOP_MAXITER;
  tb_finishSolve(p, opt, x, w->d, res);
}

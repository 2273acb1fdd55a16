// placeholder until the prox solver lands in this file
#include "solver.h"
void tb_solveProx(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                  tbSolveResult* res, int jacobi) {
  (void)jacobi;
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  tb_finishSolve(p, opt, x, w->d, res);
}

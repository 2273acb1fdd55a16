// placeholder until the Levenberg-Marquardt solvers land in this file
#include "solver.h"
void tb_solveMNCP(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                  tbSolveResult* res, int projected) {
  (void)projected;
  res->reason = TB_STOP_MAXITER;
  tb_finishSolve(p, opt, x, w->d, res);
}
void tb_solveNCPDogleg(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                       tbSolveResult* res) {
  res->reason = TB_STOP_MAXITER;
  tb_finishSolve(p, opt, x, w->d, res);
}
void tb_solveMLCPFB(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                    tbSolveResult* res, int projected) {
  (void)projected;
  res->reason = TB_STOP_MAXITER;
  tb_finishSolve(p, opt, x, w->d, res);
}

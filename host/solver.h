// The solvers (one header each, TB_HD: the same source on both backends) and their dispatch.
#ifndef TUMBLE_HOST_SOLVER_H_
#define TUMBLE_HOST_SOLVER_H_

#include <stddef.h>
#include <string.h>

#include <tumble/problem.h>
#include <tumble/tumble.h>

#include "solver_auto.h"

// 1 for the solvers a team runs together
TB_HD int tb_solverShared(int solver) {
  return solver == TB_SOLVER_PGS || solver == TB_SOLVER_PROX_GS ||
         solver == TB_SOLVER_PROX_JACOBI || solver == TB_SOLVER_AUTO;
}

// the solve itself, without error text or timer (the step's stage on both backends): TB_OK,
// TB_ERR_ARG when the solver does not apply, TB_ERR_MEMORY when w is too small. Team t shares
// PGS, prox and auto (whose Newton stages run on the lead); the other solvers run on its lead
// alone (res is the lead's).
TB_HDN int tb_solveQuiet(tbTeam t, int solver, const tbProblem* p, const tbSolverOpt* opt,
                         double* x, tbSolverWork* w, tbSolveResult* res) {
  memset(res, 0, sizeof(*res));
  if (solver < 0 || solver >= TB_NSOLVER || !tb_solverApplies(solver, p)) return TB_ERR_ARG;
  int nfree, m = tb_lcpSize(p, &nfree);
  size_t ni, nd = tb_solverNeed(solver, p->n, m, &ni);
  if (w->nd < nd || w->ni < ni) return TB_ERR_MEMORY;
  if (!tb_solverShared(solver) && t.lane != 0) return TB_OK;
  switch (solver) {
    case TB_SOLVER_PGS:
      tb_solvePGS(t, p, opt, x, w, res);
      break;
    case TB_SOLVER_PROX_GS:
    case TB_SOLVER_PROX_JACOBI:
      tb_solveProx(t, p, opt, x, w, res, solver == TB_SOLVER_PROX_JACOBI);
      break;
    case TB_SOLVER_MNCP_RLM:
    case TB_SOLVER_MNCP_PLM:
      tb_solveMNCP(p, opt, x, w, res, solver == TB_SOLVER_MNCP_PLM);
      break;
    case TB_SOLVER_NCP_DOGLEG:
      tb_solveNCPDogleg(p, opt, x, w, res);
      break;
    case TB_SOLVER_MLCP_FB_RLM:
    case TB_SOLVER_MLCP_FB_PLM:
      tb_solveMLCPFB(p, opt, x, w, res, solver == TB_SOLVER_MLCP_FB_PLM);
      break;
    case TB_SOLVER_LEMKE:
      tb_solveLemke(p, opt, x, w, res);
      break;
    default:
      tb_solveAuto(t, p, opt, x, w, res);
      break;
  }
  return TB_OK;
}

#endif  // TUMBLE_HOST_SOLVER_H_

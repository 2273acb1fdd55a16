// The solvers (one header each, TB_HD: the same source on both backends) and their dispatch.
#ifndef TUMBLE_HOST_SOLVER_H_
#define TUMBLE_HOST_SOLVER_H_

#include <stddef.h>
#include <string.h>

#include <tumble/problem.h>
#include <tumble/tumble.h>

#include "solver/solver_auto.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

// 1 for the solvers a team runs together
TB_HD int tb_solverShared(int solver) {
  return solver == TB_SOLVER_PGS || solver == TB_SOLVER_PROX_GS ||
         solver == TB_SOLVER_PROX_JACOBI || solver == TB_SOLVER_AUTO;
}

// whether `solver` can take p with the scratch w: TB_OK, TB_ERR_ARG when the solver does not
// apply, TB_ERR_MEMORY when w is too small
TB_HD int tb_solveCheck(int solver, const tbProblem* p, const tbSolverWork* w) {
  if (solver < 0 || solver >= TB_NSOLVER || !tb_solverApplies(solver, p)) return TB_ERR_ARG;
  int nfree, m = tb_lcpSize(p, &nfree);
  size_t ni, nd = tb_solverNeed(solver, p->n, m, &ni);
  return w->nd < nd || w->ni < ni ? TB_ERR_MEMORY : TB_OK;
}

// the solve itself, without error text or timer (the step's stage on both backends): TB_OK,
// TB_ERR_ARG when the solver does not apply, TB_ERR_MEMORY when w is too small. Team t shares
// PGS, prox and auto (whose Newton stages run on the lead); the other solvers run on its lead
// alone (res is the lead's).
TB_HDN int tb_solveQuiet(tbTeam t, int solver, const tbProblem* p, const tbSolverOpt* opt,
                         double* x, tbSolverWork* w, tbSolveResult* res) {
  memset(res, 0, sizeof(*res));
  int rc = tb_solveCheck(solver, p, w);
  if (rc != TB_OK) return rc;
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
    case TB_SOLVER_NCP_DOGLEG:
    case TB_SOLVER_MLCP_FB_RLM:
    case TB_SOLVER_MLCP_FB_PLM:
    case TB_SOLVER_SOC_FB_PLM:
      tb_lmSolve(p, opt, x, w, solver, tb_lmProjected(solver), res);
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

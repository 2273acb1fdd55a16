// The solver registry: names, defaults, applicability, scratch sizes and dispatch.
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "solver/solver.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

static const char* const tb_solverNames[TB_NSOLVER] = {
    [TB_SOLVER_PGS] = "pgs",
    [TB_SOLVER_PROX_GS] = "prox-gs",
    [TB_SOLVER_PROX_JACOBI] = "prox-jacobi",
    [TB_SOLVER_MNCP_RLM] = "mncp-rlm",
    [TB_SOLVER_MNCP_PLM] = "mncp-plm",
    [TB_SOLVER_NCP_DOGLEG] = "ncp-dogleg",
    [TB_SOLVER_MLCP_FB_RLM] = "mlcp-fb-rlm",
    [TB_SOLVER_MLCP_FB_PLM] = "mlcp-fb-plm",
    [TB_SOLVER_LEMKE] = "lemke",
    [TB_SOLVER_AUTO] = "auto",
    [TB_SOLVER_SOC_FB_PLM] = "soc-fb-plm",
};

const char* tb_solverName(int solver) {
  return solver >= 0 && solver < TB_NSOLVER && tb_solverNames[solver] ? tb_solverNames[solver]
                                                                      : "?";
}

int tb_findSolver(const char* name) {
  for (int s = 0; s < TB_NSOLVER; s++) {
    if (tb_solverNames[s] && !strcmp(tb_solverNames[s], name)) return s;
  }
  return -1;
}

void tb_solverWorkSize(int solver, int n, int ncontact, int facets, size_t* nd, size_t* ni) {
  *nd = tb_solverWorkWords(solver, n, ncontact, facets, ni);
}

tbSolverWork* tb_newSolverWork(int solver, int n, int ncontact, int facets) {
  size_t nd, ni;
  tb_solverWorkSize(solver, n, ncontact, facets, &nd, &ni);
  tbSolverWork* w = (tbSolverWork*)calloc(1, sizeof(tbSolverWork));
  if (!w) return NULL;
  w->d = (double*)calloc(nd ? nd : 1, sizeof(double));
  w->i = (int*)calloc(ni ? ni : 1, sizeof(int));
  w->nd = nd;
  w->ni = ni;
  if (!w->d || !w->i) {
    tb_freeSolverWork(w);
    return NULL;
  }
  return w;
}

void tb_freeSolverWork(tbSolverWork* w) {
  if (!w) return;
  free(w->d);
  free(w->i);
  free(w);
}

int tb_needsDense(int solver, int n) {
  return tb_setError(
      "solver '%s' needs A dense, %.3g GB at %d rows, where only its nonzero runs are held: "
      "pgs reads those",
      tb_solverName(solver), 8e-9 * n * (double)n, n);
}

int tb_solve(int solver, const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
             tbSolveResult* res) {
  if (!p->A && solver != TB_SOLVER_PGS) return tb_needsDense(solver, p->n);
  double t0 = omp_get_wtime();
  int rc = tb_solveQuiet(tb_solo(), solver, p, opt, x, w, res);
  if (rc == TB_ERR_ARG) {
    return tb_setError("solver '%s' does not apply to this problem", tb_solverName(solver));
  }
  if (rc != TB_OK) {
    int nfree;
    size_t ni, nd = tb_solverNeed(solver, p->n, tb_lcpSize(p, &nfree), &ni);
    return tb_setError("solver '%s': scratch of %zu doubles, needs %zu", tb_solverName(solver),
                       w->nd, nd);
  }
  res->seconds = omp_get_wtime() - t0;
  return TB_OK;
}

// The solver registry: names, defaults, applicability, scratch sizes and dispatch.
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "solver.h"

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

static int tb_hasContacts(const tbProblem* p) {
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] == TB_BLOCK_CONTACT) return 1;
  }
  return 0;
}

// box rows the implicit MNCP can hold: equalities only
static int tb_onlyEqualityBoxes(const tbProblem* p) {
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] == TB_BLOCK_BOX && (p->lo[i] != -INFINITY || p->hi[i] != INFINITY)) {
      return 0;
    }
  }
  return 1;
}

int tb_solverApplies(int solver, const tbProblem* p) {
  int nfree;
  switch (solver) {
    case TB_SOLVER_PGS:
    case TB_SOLVER_PROX_GS:
    case TB_SOLVER_PROX_JACOBI:
    case TB_SOLVER_AUTO:
      return 1;
    case TB_SOLVER_MNCP_RLM:
    case TB_SOLVER_MNCP_PLM:
    case TB_SOLVER_NCP_DOGLEG:
      return p->cone == 0 && tb_hasContacts(p) && tb_onlyEqualityBoxes(p);
    case TB_SOLVER_MLCP_FB_RLM:
    case TB_SOLVER_MLCP_FB_PLM:
      return tb_lcpSize(p, &nfree) >= 0;
    case TB_SOLVER_LEMKE:
      // Lemke takes a standard LCP: no free rows
      return tb_lcpSize(p, &nfree) >= 0 && nfree == 0;
    default:
      return 0;
  }
}

size_t tb_solverNeed(int solver, int n, int m, size_t* ints) {
  size_t N = (size_t)(n > 0 ? n : 1), Mm = (size_t)(m > 0 ? m : 1);
  *ints = 0;
  switch (solver) {
    case TB_SOLVER_PGS:
      return 2 * N;
    case TB_SOLVER_PROX_GS:
    case TB_SOLVER_PROX_JACOBI:
      return 8 * N;
    case TB_SOLVER_MNCP_RLM:
    case TB_SOLVER_MNCP_PLM:
    case TB_SOLVER_NCP_DOGLEG:
      *ints = 2 * N;
      return 4 * N * N + 24 * N;
    case TB_SOLVER_MLCP_FB_RLM:
    case TB_SOLVER_MLCP_FB_PLM:
      *ints = 3 * Mm + N;  // map_row, start, and auto's LU pivots
      return 5 * Mm * Mm + 24 * Mm + 4 * N;
    case TB_SOLVER_LEMKE:
      *ints = 4 * Mm + 4 + N;
      return 3 * Mm * Mm + 12 * Mm + 4 * N;
    case TB_SOLVER_AUTO: {
      // the largest of its stages, plus the best iterate so far
      size_t d = 0, in;
      const int stages[5] = {TB_SOLVER_PGS, TB_SOLVER_MNCP_PLM, TB_SOLVER_MLCP_FB_PLM,
                             TB_SOLVER_LEMKE, TB_SOLVER_PROX_GS};
      for (int k = 0; k < 5; k++) {
        if (m <= 0 && (stages[k] == TB_SOLVER_MLCP_FB_PLM || stages[k] == TB_SOLVER_LEMKE)) {
          continue;
        }
        size_t dk = tb_solverNeed(stages[k], n, m, &in);
        d = dk > d ? dk : d;
        *ints = in > *ints ? in : *ints;
      }
      return d + N;
    }
    default:
      return 0;
  }
}

void tb_solverWorkSize(int solver, int n, int ncontact, int facets, size_t* nd, size_t* ni) {
  int m = n + ncontact * (facets > 2 ? facets : 2);
  *nd = tb_solverNeed(solver, n, m, ni);
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

// the solve itself: no error text, no timer (the step's stage on the CPU path calls this)
int tb_solveQuiet(int solver, const tbProblem* p, const tbSolverOpt* opt, double* x,
                  tbSolverWork* w, tbSolveResult* res) {
  memset(res, 0, sizeof(*res));
  if (solver < 0 || solver >= TB_NSOLVER || !tb_solverApplies(solver, p)) return TB_ERR_ARG;
  int nfree, m = tb_lcpSize(p, &nfree);
  size_t ni, nd = tb_solverNeed(solver, p->n, m, &ni);
  if (w->nd < nd || w->ni < ni) return TB_ERR_MEMORY;
  switch (solver) {
    case TB_SOLVER_PGS:
      tb_solvePGS(p, opt, x, w, res);
      break;
    case TB_SOLVER_PROX_GS:
    case TB_SOLVER_PROX_JACOBI:
      tb_solveProx(p, opt, x, w, res, solver == TB_SOLVER_PROX_JACOBI);
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
      tb_solveAuto(p, opt, x, w, res);
      break;
  }
  return TB_OK;
}

int tb_solve(int solver, const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
             tbSolveResult* res) {
  double t0 = omp_get_wtime();
  int rc = tb_solveQuiet(solver, p, opt, x, w, res);
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

// Which solver applies to a problem, and the scratch it needs: shared by the solvers' dispatch
// on both backends and the scratch allocations.
#ifndef TUMBLE_SOLVER_NEED_H_
#define TUMBLE_SOLVER_NEED_H_

#include <math.h>
#include <stddef.h>

#include <tumble/problem.h>

#include "solver/lcp_form.h"
#include "math/tb_math.h"

TB_HD int tb_hasContacts(const tbProblem* p) {
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] == TB_BLOCK_CONTACT) return 1;
  }
  return 0;
}

// 1 if the solver solves this problem (cone kind, row kinds), else 0
TB_HD int tb_solverApplies(int solver, const tbProblem* p) {
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
      return p->cone == 0 && tb_hasContacts(p);
    case TB_SOLVER_SOC_FB_PLM:
      return p->cone == 0;
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

// tb_solverNeed of a solver other than auto (auto's stages: no recursion, whose depth the device
// compiler would leave out of the stack it sizes)
TB_HD size_t tb_singleSolverNeed(int solver, int n, int m, size_t* ints) {
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
    case TB_SOLVER_SOC_FB_PLM:
      *ints = 2 * N;
      return 4 * N * N + 24 * N;
    case TB_SOLVER_MLCP_FB_RLM:
    case TB_SOLVER_MLCP_FB_PLM:
      *ints = 3 * Mm + N;  // map_row, start, and auto's LU pivots
      return 5 * Mm * Mm + 24 * Mm + 4 * N;
    case TB_SOLVER_LEMKE:
      *ints = 4 * Mm + 4 + N;
      return 3 * Mm * Mm + 12 * Mm + 4 * N;
    default:
      return 0;
  }
}

// doubles (return) and ints (*ints) of scratch `solver` needs for a problem of n rows whose LCP
// form has m unknowns (m = 0 when it has none); tb_solve checks this before calling a solver,
// and a solver never uses more
TB_HD size_t tb_solverNeed(int solver, int n, int m, size_t* ints) {
  if (solver != TB_SOLVER_AUTO) return tb_singleSolverNeed(solver, n, m, ints);
  // the largest of auto's stages
  size_t d = 0, in;
  const int stages[6] = {TB_SOLVER_PGS,   TB_SOLVER_MNCP_PLM, TB_SOLVER_MLCP_FB_PLM,
                         TB_SOLVER_LEMKE, TB_SOLVER_PROX_GS,  TB_SOLVER_SOC_FB_PLM};
  *ints = 0;
  for (int k = 0; k < 6; k++) {
    if (m <= 0 && (stages[k] == TB_SOLVER_MLCP_FB_PLM || stages[k] == TB_SOLVER_LEMKE)) continue;
    size_t dk = tb_singleSolverNeed(stages[k], n, m, &in);
    d = dk > d ? dk : d;
    *ints = in > *ints ? in : *ints;
  }
  // the best iterate, and before it the proximal Newton stage's copies of A and b (b's slot
  // holds PGS's iterate across a Newton round before that stage: tb_pgsThenNewton) and the
  // start (tb_fallBack); the active-set stage's k^2 + 4 n fit in the same
  size_t N = (size_t)(n > 0 ? n : 1);
  *ints = *ints > 2 * N ? *ints : 2 * N;  // the active-set stage's kept rows, their envelope
  return d + N * N + 3 * N;
}

// the scratch (doubles, and ints in *ints) `solver` needs on problems of at most n rows and
// ncontact contacts with `facets` facets (tb_solverWorkSize)
TB_HD size_t tb_solverWorkWords(int solver, int n, int ncontact, int facets, size_t* ints) {
  int m = n + ncontact * (facets > 2 ? facets : 2);
  return tb_solverNeed(solver, n, m, ints);
}

#endif  // TUMBLE_SOLVER_NEED_H_

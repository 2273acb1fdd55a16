// The default solver: cheap sweeps first, Newton where they crawl, prox where Newton stalls.
//
// PGS reaches moderate accuracy in few sweeps but converges linearly (slowly on stacks and
// redundant manifolds); the semismooth Newton methods converge fast near a solution but can
// stall at non-smooth points of their merit function from a poor start (solver_lm.c), and
// their dense systems cost O(n^3) per iteration; prox with an adaptive step is slow but
// steady. So: PGS while it contracts the residual well (Capsules, 858 rows: 2473 sweeps, 0.8 s,
// where dense Newton took minutes), then the projected-LM Newton method from its iterate
// (implicit MNCP for the exact cone, Fischer-Burmeister on the LCP form for the pyramid) where
// PGS crawls (BoxesStack1: PGS stalls near 1e-4), then adaptive prox from the best iterate with
// what is left; for a standard LCP, Lemke before prox. The answer is the best iterate seen,
// judged by tb_residual.
#include <string.h>

#include "engine.h"
#include "solver.h"

// run one stage from x and remember x if it beats the best so far (x itself goes on from where
// the stage left it: PGS is not monotone, and its later sweeps need its current iterate)
static void tb_stage(int solver, const tbProblem* p, const tbSolverOpt* opt, int budget, double* x,
                     double* best, tbSolverWork* w, tbSolveResult* acc) {
  tbSolverOpt o = *opt;
  o.max_iter = budget;
  tbSolveResult r;
  memset(&r, 0, sizeof(r));
  switch (solver) {
    case TB_SOLVER_PGS:
      tb_solvePGS(p, &o, x, w, &r);
      break;
    case TB_SOLVER_MNCP_PLM:
      tb_solveMNCP(p, &o, x, w, &r, 1);
      break;
    case TB_SOLVER_MLCP_FB_PLM:
      tb_solveMLCPFB(p, &o, x, w, &r, 1);
      break;
    case TB_SOLVER_LEMKE:
      tb_solveLemke(p, &o, x, w, &r);
      break;
    default:
      tb_solveProx(p, &o, x, w, &r, 0);
      break;
  }
  acc->iterations += r.iterations;
  if (r.residual <= acc->residual) {
    acc->residual = r.residual;
    acc->reason = r.reason;
    memcpy(best, x, sizeof(double) * p->n);
  }
}

// PGS in chunks of 50 sweeps while it makes progress; returns the budget left. Progress is the
// best residual falling by 10%: within one chunk where dense Newton is cheap (a few hundred
// rows; it costs O(n^3) per iteration), within 100 chunks elsewhere (PGS is not monotone: on
// Capsules it plateaus for hundreds of sweeps and then drops by 30x, and dense Newton on 858
// rows took minutes where PGS took 2473 sweeps, 0.8 s)
static int tb_pgsWhileProgressing(const tbProblem* p, const tbSolverOpt* opt, int left, double* x,
                                  double* best, tbSolverWork* w, tbSolveResult* res) {
  const int chunk = 50, patience = p->n <= 300 ? 1 : 100;
  double mark = res->residual;
  int since = 0;
  while (left > 0 && res->residual > opt->tol) {
    int budget = left < chunk ? left : chunk;
    tb_stage(TB_SOLVER_PGS, p, opt, budget, x, best, w, res);
    left -= budget;
    if (res->residual < 0.9 * mark) {
      mark = res->residual;
      since = 0;
    } else if (++since >= patience) {
      break;
    }
  }
  return left;
}

void tb_solveAuto(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                  tbSolveResult* res) {
  // the best iterate lives at the end of the scratch, past what any stage uses
  double* best = w->d + w->nd - (p->n > 0 ? p->n : 1);
  memcpy(best, x, sizeof(double) * p->n);
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  res->residual = tb_residual(p, x, w->d);
  int left = tb_pgsWhileProgressing(p, opt, opt->max_iter, x, best, w, res);
  int newton = tb_solverApplies(TB_SOLVER_MNCP_PLM, p) ? TB_SOLVER_MNCP_PLM : TB_SOLVER_MLCP_FB_PLM;
  if (res->residual > opt->tol && left > 0 && tb_solverApplies(newton, p)) {
    int budget = left < 100 ? left : 100;
    memcpy(x, best, sizeof(double) * p->n);
    tb_stage(newton, p, opt, budget, x, best, w, res);
    left -= budget;
  }
  if (res->residual > opt->tol && tb_solverApplies(TB_SOLVER_LEMKE, p)) {
    // a standard LCP the iterations could not crack: pivot (no warm start, exact when it ends)
    tb_stage(TB_SOLVER_LEMKE, p, opt, opt->max_iter, x, best, w, res);
  }
  if (res->residual > opt->tol && left > 0) {
    memcpy(x, best, sizeof(double) * p->n);
    tb_stage(TB_SOLVER_PROX_GS, p, opt, left, x, best, w, res);
  }
  memcpy(x, best, sizeof(double) * p->n);
  tb_finishSolve(p, opt, x, w->d, res);
}

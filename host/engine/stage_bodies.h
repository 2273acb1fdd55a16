// Projected Gauss-Seidel in body space: the step's PGS where it holds no Delassus matrix
// (tb_stepBodySpace, many rows). The bodies' impulse velocities dv = M^-1 J^T x are kept
// current instead of u = A x + b: a block's rows read u_i = b_i + J_i dv + cfm_i x_i from their
// two bodies and a changed impulse adds M^-1 J_i^T dx to them (ODE's quickstep, Box2D's solver),
// 12 products a row each way where a row of A costs one per row it meets. The blocks are
// visited in order with solver_pgs.h's updates, so the iterates are tb_solvePGS's on A but for
// the order of the sums.
#ifndef TUMBLE_HOST_STAGE_BODIES_H_
#define TUMBLE_HOST_STAGE_BODIES_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "solver/residual.h"
#include "math/team.h"

#include "engine/engine.h"
#include "solver/solver_pgs.h"
#include "engine/stage_assemble.h"

// u_i = b_i + J_i dv + cfm_i x_i of the bodies' impulse velocities dv (6 a body)
TB_HD double tb_rowUOf(const tbWork* w, int i, const double* dv) {
  return w->b[i] + w->row[i].cfm * w->x[i] + tb_rowVelocityOf(w, i, dv);
}

// tb_rowUOf of the solve's dv
TB_HD double tb_bodyRowU(const tbWork* w, int i) {
  return tb_rowUOf(w, i, w->body_dv);
}

// x_i <- v, its change carried to its bodies' dv
TB_HD void tb_bodySet(const tbModel* m, tbWork* w, int i, double v) {
  double dx = v - w->x[i];
  w->x[i] = v;
  tb_addRowImpulse(m, w, i, dx, w->body_dv);
}

// dv = M^-1 J^T x of w->x from scratch (6 a body)
TB_HD void tb_impulseVelocitiesOf(const tbModel* m, const tbWork* w, double* dv) {
  memset(dv, 0, sizeof(double) * 6 * (size_t)m->nbody);
  for (int i = 0; i < w->nrow; i++) tb_addRowImpulse(m, w, i, w->x[i], dv);
}

// the solve's dv from scratch
TB_HD void tb_bodyImpulseVelocities(const tbModel* m, tbWork* w) {
  tb_impulseVelocitiesOf(m, w, w->body_dv);
}

// one sweep over the blocks (tb_sweepBox, tb_sweepContact with A's diagonal blocks)
TB_HD void tb_bodySweep(const tbModel* m, tbWork* w, const tbProblem* p, double sor) {
  const double* a = w->blk_diag;
  double* x = w->x;
  for (int k = 0; k < w->nblock; k++) {
    int i = w->blk_adr[k], box = w->blk_type[k] == TB_BLOCK_BOX;
    if (a[3 * i] > 0.0) {
      double v = x[i] - sor * tb_bodyRowU(w, i) / a[3 * i];
      tb_bodySet(m, w, i, box ? tbu_clamp(v, p->lo[i], p->hi[i]) : (v > 0.0 ? v : 0.0));
    }
    if (box) continue;
    int ntan = w->blk_dim[k] - 1;
    if (ntan == 0) continue;
    int t1 = i + 1;
    int two = ntan > 1;
    double rho = sor * tb_tangentStepOf(ntan, a[3 * t1 + 1], two ? a[3 * t1 + 2] : 0.0,
                                        two ? a[3 * t1 + 5] : 0.0);
    double y[2] = {x[t1] - rho * tb_bodyRowU(w, t1),
                   two ? x[t1 + 1] - rho * tb_bodyRowU(w, t1 + 1) : 0.0};
    tbu_projFriction(y, ntan, p->blk_mu[k] * x[i], p->cone == 1, p->facets, p->blk_angle[k]);
    for (int j = 0; j < ntan; j++) tb_bodySet(m, w, t1 + j, y[j]);
  }
}

// the residual of w->x with u = A x + b into u (n) from the bodies' impulse velocities dv: O(n)
// without A, where A x is O(n^2)
TB_HD double tb_residualOfDv(const tbWork* w, const tbProblem* p, const double* dv, double* u) {
  for (int i = 0; i < w->nrow; i++) u[i] = tb_rowUOf(w, i, dv);
  return tb_residualFromVelocity(p, w->x, u);
}

// tb_residualOfDv from the solve's current dv
TB_HD double tb_bodyResidual(const tbWork* w, const tbProblem* p, double* u) {
  return tb_residualOfDv(w, p, w->body_dv, u);
}

// the sweeps between residual checks past the first TB_BODY_CHECK (each checked: a warm start
// often needs one or two): a check reads every row's u (half a sweep's products), which every
// sweep made the pile's solve 1.35x slower (27 spheres, 1000 steps, rigid and compliant
// contact); a long solve sweeps at most TB_BODY_CHECK - 1 times more
#define TB_BODY_CHECK 4

// whether the residual is checked after `sweeps` sweeps of at most max_sweep
TB_HD int tb_bodyCheck(int sweeps, int max_sweep) {
  return sweeps <= TB_BODY_CHECK || sweeps % TB_BODY_CHECK == 0 || sweeps == max_sweep;
}

// a body-space solve's close: w->x's impulse velocities and residual from scratch, never the
// running estimate, into res (converged where it meets tol); u: n doubles of scratch
TB_HD void tb_bodyFinish(const tbModel* m, tbWork* w, const tbProblem* p, const tbSolverOpt* opt,
                         double* u, tbSolveResult* res) {
  tb_bodyImpulseVelocities(m, w);
  res->residual = tb_bodyResidual(w, p, u);
  res->converged = res->residual <= opt->tol;
  if (res->converged) res->reason = TB_STOP_CONVERGED;
}

// PGS on the step's problem p (tb_problemOf: no A) from w->x, with tb_solvePGS's sweeps and stop
// rule checked where tb_bodyCheck says, by team t's lead (the others wait): w->x the impulses,
// w->body_dv their M^-1 J^T x, res on the lead (tb_solveQuiet's rule for solvers a team does not
// share)
TB_HD void tb_solveBodyPGS(tbTeam t, const tbModel* m, tbWork* w, const tbProblem* p,
                           const tbSolverOpt* opt, tbSolveResult* res) {
  memset(res, 0, sizeof(*res));
  if (t.lane == 0) {
    double* u = w->solver_work.d;
    tb_bodyImpulseVelocities(m, w);
    res->reason = TB_STOP_MAXITER;
    for (int it = 0; it < opt->max_iter; it++) {
      tb_bodySweep(m, w, p, opt->sor);
      res->iterations = it + 1;
      if (!tb_bodyCheck(res->iterations, opt->max_iter)) continue;
      double r = tb_bodyResidual(w, p, u);
      if (!isfinite(r)) {
        res->reason = TB_STOP_NONFINITE;
        break;
      }
      if (r <= opt->tol) break;
    }
    tb_bodyFinish(m, w, p, opt, u, res);
    if (!isfinite(res->residual)) res->reason = TB_STOP_NONFINITE;
  }
  tb_teamSync(t);
}

//---- auto's first stage: NNCG in body space ------------------------------------------------------

// On a step of many rows auto starts here, before A exists (tb_stepBodyFirst): the nonsmooth
// nonlinear conjugate gradient method (NNCG: Silcowitz-Hansen, Niebe & Erleben, "A nonsmooth
// nonlinear conjugate gradient method for interactive contact force problems", The Visual
// Computer 2010), PGS sweeps in body space each followed by a Fletcher-Reeves step. The sweep's
// change dx = x - x_last plays the negative gradient: beta = |dx|^2 / |dx_prev|^2, and where
// beta <= 1, x += beta p and p = beta p + dx; beta > 1 restarts (p = 0). The next sweep projects
// what the step pushed out of the cones. On the regularized sphere pile (tbOption soft 1e-2,
// 1000 steps) it takes 53 sweeps a step where PGS takes 182, and the step assembles no A.
// Where it stops falling A is assembled and auto's dense stages go on from its best iterate.

// the sweeps in which the best residual must fall by 10% for NNCG to go on
#define TB_BODY_CG_PATIENCE 200

// NNCG's step after the sweep that took w->x from xold and w->body_dv from dvold: p (pdir) and
// |dx|^2 (*d2, 0 at the start) carried from sweep to sweep, and p's impulse velocities
// M^-1 J^T p (pdv, 6 a body) beside it, so that x += beta p moves body_dv by beta pdv: 6
// numbers a body, where carrying each row's change to its bodies took 12 products a row (the
// pile's steps 17% fewer instructions, its answers within 1e-9 of the old)
TB_HD void tb_bodyConjugate(const tbModel* m, tbWork* w, const double* xold, const double* dvold,
                            double* pdir, double* pdv, double* d2) {
  int n = w->nrow, nv = 6 * m->nbody;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (w->x[i] - xold[i]) * (w->x[i] - xold[i]);
  double beta = *d2 > 0.0 ? s / *d2 : 0.0;
  *d2 = s;
  if (beta > 1.0) {
    memset(pdir, 0, sizeof(double) * (size_t)n);
    memset(pdv, 0, sizeof(double) * (size_t)nv);
    return;
  }
  for (int i = 0; i < n; i++) {
    double add = beta * pdir[i];
    pdir[i] = add + (w->x[i] - xold[i]);
    w->x[i] += add;
  }
  for (int k = 0; k < nv; k++) {
    double add = beta * pdv[k];
    pdv[k] = add + (w->body_dv[k] - dvold[k]);
    w->body_dv[k] += add;
  }
}

// the solver's doubles tb_solveBodyCG takes on a step of n rows
TB_HD size_t tb_bodyCGWords(const tbModel* m, int n) {
  return 4 * (size_t)n + 12 * (size_t)m->nbody;
}

// NNCG on the step's problem p (tb_problemOf: A not yet assembled) from w->x by team t's lead:
// until the residual (checked where tb_bodyCheck says) meets tol, stops falling (by 10% in
// TB_BODY_CG_PATIENCE sweeps) or is not finite, at most opt->max_iter sweeps. w->x ends as the
// best iterate checked (the start where none was finite), w->body_dv as its impulse velocities,
// the lead's res as its residual from scratch and the sweeps, and its *start as the start's
// residual. Scratch: tb_bodyCGWords doubles of the solver's (u, the sweep's start, p, the best
// iterate; the sweep's start's and p's impulse velocities).
TB_HD void tb_solveBodyCG(tbTeam t, const tbModel* m, tbWork* w, const tbProblem* p,
                          const tbSolverOpt* opt, double* start, tbSolveResult* res) {
  memset(res, 0, sizeof(*res));
  if (t.lane == 0) {
    size_t n = (size_t)p->n, nv = 6 * (size_t)m->nbody;
    double *u = w->solver_work.d, *xold = u + n, *pdir = xold + n, *best = pdir + n;
    double *dvold = best + n, *pdv = dvold + nv;
    double d2 = 0.0, rbest = INFINITY, mark = INFINITY;
    int since = 0;
    memset(pdir, 0, sizeof(double) * n);
    memset(pdv, 0, sizeof(double) * nv);
    memcpy(best, w->x, sizeof(double) * n);
    tb_bodyImpulseVelocities(m, w);
    *start = tb_bodyResidual(w, p, u);
    res->reason = TB_STOP_MAXITER;
    for (int it = 1; it <= opt->max_iter; it++) {
      memcpy(xold, w->x, sizeof(double) * n);
      memcpy(dvold, w->body_dv, sizeof(double) * nv);
      tb_bodySweep(m, w, p, opt->sor);
      tb_bodyConjugate(m, w, xold, dvold, pdir, pdv, &d2);
      res->iterations = it;
      if (!tb_bodyCheck(it, opt->max_iter)) continue;
      double r = tb_bodyResidual(w, p, u);
      if (!isfinite(r)) {
        res->reason = TB_STOP_NONFINITE;
        break;
      }
      if (r < rbest) {
        rbest = r;
        memcpy(best, w->x, sizeof(double) * n);
      }
      if (r <= opt->tol) break;
      if (rbest < 0.9 * mark) {
        mark = rbest;
        since = it;
      } else if (it - since >= TB_BODY_CG_PATIENCE) {
        break;
      }
    }
    memcpy(w->x, best, sizeof(double) * n);
    tb_bodyFinish(m, w, p, opt, u, res);
  }
  tb_teamSync(t);
}

#endif  // TUMBLE_HOST_STAGE_BODIES_H_

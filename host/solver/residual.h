// The problem's velocity map, its natural-map residual, the solvers' defaults and their final
// bookkeeping: one implementation for every solver, test, benchmark and kernel (Acary, Bremond &
// Huber 2018, relative to max(||b||, 1e-16)).
#ifndef TUMBLE_RESIDUAL_H_
#define TUMBLE_RESIDUAL_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "math/tb_math.h"
#include "math/team.h"

// the solvers' defaults, the seeds' own
TB_HD tbSolverOpt tb_defaultSolverOpt(void) {
  tbSolverOpt o;
  memset(&o, 0, sizeof(o));
  o.max_iter = 1000;
  o.tol = 1e-8;
  o.sor = 1.0;
  o.prox_rule = TB_PROXR_BLOCK;
  o.prox_r = 1.0;
  o.prox_adaptive = 1;
  o.cfm = 0.0;
  // Mylapilli & Jain's RLM (after Bazaraa et al.) and PLM (after Kanzow & Petra)
  o.lm_lambda = 1e-3;
  o.lm_step = 20.0;
  o.lm_rmin = 0.3;
  o.lm_rmax = 0.8;
  o.lm_lambda_min = 1e-25;
  o.plm_lambda = 1e-16;
  o.plm_memory = 10;
  o.plm_watchdog = 20;
  return o;
}

// row i's run r of A's values, from the run's first column on (A's own or the packed ones)
TB_HD const double* tb_rowRunValues(const tbProblem* p, int i, int r) {
  const tbRuns* R = p->runs;
  if (R->row_val) return R->row_val + R->row_off[r];
  return p->A + (size_t)i * p->n + R->row_run[2 * r];
}

// row i of p->A times x over the row's nonzero runs (p->runs); a run's sums in the order of
// tbu_dotRange over its columns whether A or the packed values hold it
TB_HD double tb_rowDotRuns(const tbProblem* p, int i, const double* x) {
  const int* run = p->runs->row_run;
  double s = 0.0;
  for (int r = p->runs->row_adr[i]; r < p->runs->row_adr[i + 1]; r++) {
    int j0 = run[2 * r];
    s += tbu_dotRange(tb_rowRunValues(p, i, r), x + j0, 0, run[2 * r + 1] - j0);
  }
  return s;
}

// A[i][j]: A's, or where only the runs hold A its packed value (0 outside them)
TB_HD double tb_entry(const tbProblem* p, int i, int j) {
  if (p->A) return p->A[(size_t)i * p->n + j];
  const int* run = p->runs->row_run;
  for (int r = p->runs->row_adr[i]; r < p->runs->row_adr[i + 1]; r++) {
    if (j >= run[2 * r] && j < run[2 * r + 1]) return tb_rowRunValues(p, i, r)[j - run[2 * r]];
  }
  return 0.0;
}

// u = A x + b, its rows split over team t, once every member has read u and x as they were;
// the dense loop stays free of the runs' test (it is the step's, on every backend)
TB_HD void tb_problemVelocityTeam(tbTeam t, const tbProblem* p, const double* x, double* u) {
  tb_teamSync(t);
  if (p->runs) {
    for (int i = t.lane; i < p->n; i += t.size) u[i] = p->b[i] + tb_rowDotRuns(p, i, x);
  } else {
    for (int i = t.lane; i < p->n; i += t.size) {
      u[i] = p->b[i] + tbu_dotRange(p->A + (size_t)i * p->n, x, 0, p->n);
    }
  }
  tb_teamSync(t);
}

TB_HD void tb_problemVelocity(const tbProblem* p, const double* x, double* u) {
  tb_problemVelocityTeam(tb_solo(), p, x, u);
}

// squared natural-map residual of block k given x and u = A x + b
TB_HD double tb_blockResidual2(const tbProblem* p, int k, const double* x, const double* u) {
  int i = p->blk_adr[k];
  if (p->blk_type[k] == TB_BLOCK_BOX) {
    double r = x[i] - tbu_clamp(x[i] - u[i], p->lo[i], p->hi[i]);
    return r * r;
  }
  int ntan = p->blk_dim[k] - 1;
  double mu = p->blk_mu[k], y[3] = {0.0, 0.0, 0.0}, s = 0.0;
  if (ntan == 0) {
    double rn = x[i] - (x[i] - u[i] > 0.0 ? x[i] - u[i] : 0.0);
    return rn * rn;
  }
  if (p->cone == 0) {
    // FC3D natural map with the De Saxce term: r - P_K(r - (u + (mu |u_t|, 0, 0)))
    double ut = sqrt(u[i + 1] * u[i + 1] + (ntan > 1 ? u[i + 2] * u[i + 2] : 0.0));
    y[0] = x[i] - (u[i] + mu * ut);
    for (int t = 1; t <= ntan; t++) y[t] = x[i + t] - u[i + t];
    tbu_projCone(y, ntan, mu);
    for (int t = 0; t <= ntan; t++) s += (x[i + t] - y[t]) * (x[i + t] - y[t]);
    return s;
  }
  // pyramid: the normal row, then the tangent impulse in the polygon of radius mu x_n
  double rn = x[i] - (x[i] - u[i] > 0.0 ? x[i] - u[i] : 0.0);
  y[0] = x[i + 1] - u[i + 1];
  y[1] = ntan > 1 ? x[i + 2] - u[i + 2] : 0.0;
  tbu_projFriction(y, ntan, mu * (x[i] > 0.0 ? x[i] : 0.0), 1, p->facets, p->blk_angle[k]);
  s = rn * rn;
  for (int t = 0; t < ntan; t++) s += (x[i + 1 + t] - y[t]) * (x[i + 1 + t] - y[t]);
  return s;
}

// natural-map residual of x given u = A x + b, relative to max(||b||, 1e-16). Exact-cone
// contacts: ||r - P_K(r - (u + g(u)))|| with the De Saxce term g = (mu |u_t|, 0, 0) (Acary,
// Bremond & Huber 2018); pyramid contacts: the normal and polygon parts separately; box rows:
// x - clamp(x - u, lo, hi)
TB_HD double tb_residualFromVelocity(const tbProblem* p, const double* x, const double* u) {
  double s = 0.0, bn = 0.0;
  for (int k = 0; k < p->nblock; k++) s += tb_blockResidual2(p, k, x, u);
  for (int i = 0; i < p->n; i++) bn += p->b[i] * p->b[i];
  bn = sqrt(bn);
  return sqrt(s) / (bn > 1e-16 ? bn : 1e-16);
}

// the same from x alone (work: n entries, left holding u = A x + b), u's rows split over team
// t; every member gets the result
TB_HD double tb_residualTeam(tbTeam t, const tbProblem* p, const double* x, double* work) {
  tb_problemVelocityTeam(t, p, x, work);
  return tb_residualFromVelocity(p, x, work);
}

TB_HD double tb_residual(const tbProblem* p, const double* x, double* work) {
  return tb_residualTeam(tb_solo(), p, x, work);
}

// 1 once opt->deadline is set and passed (never on the device)
TB_HD int tb_pastDeadline(const tbSolverOpt* opt) {
#ifdef __CUDA_ARCH__
  (void)opt;
  return 0;
#else
  return opt->deadline > 0.0 && tb_clock() > opt->deadline;
#endif
}

// the solvers' check at each iteration: 1, with the stop reason set, once the deadline passed
TB_HD int tb_outOfTime(const tbSolverOpt* opt, tbSolveResult* res) {
  if (!tb_pastDeadline(opt)) return 0;
  res->reason = TB_STOP_TIME;
  return 1;
}

// the final bookkeeping every solver does: residual of the returned x from scratch, converged
// iff it is <= tol (a stop reason other than TB_STOP_MAXITER is kept when not converged); team t
// computes the velocity, and every member gets the result
TB_HD void tb_finishSolveTeam(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, const double* x,
                              double* work, tbSolveResult* res) {
  tb_problemVelocityTeam(t, p, x, work);
  res->residual = tb_residualFromVelocity(p, x, work);
  res->converged = res->residual <= opt->tol;
  if (res->converged) {
    res->reason = TB_STOP_CONVERGED;
  } else if (res->reason == TB_STOP_CONVERGED) {
    res->reason = TB_STOP_MAXITER;
  }
  if (!isfinite(res->residual)) res->reason = TB_STOP_NONFINITE;
}

TB_HD void tb_finishSolve(const tbProblem* p, const tbSolverOpt* opt, const double* x, double* work,
                          tbSolveResult* res) {
  tb_finishSolveTeam(tb_solo(), p, opt, x, work, res);
}

#endif  // TUMBLE_RESIDUAL_H_

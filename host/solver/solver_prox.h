// Prox fixed-point iteration (Lu & Trinkle; Leine & Nijmeijer), Gauss-Seidel and Jacobi.
//
//   x_k <- prox_Ck(x_k - r_k (A x + b)_k)                                    (L&T Eq. 23, 27-28)
// per block k: box rows clamp to [lo, hi]; contacts project the normal impulse onto [0, inf)
// and then the tangent impulse onto the friction set of radius mu x_n (disc or polygon), as in
// L&T Algorithm 1 with the errata of shared/notes/seed-prox-drumwright.md §1.7 mended: the
// velocity is recomputed from the impulses (u = A x + b), never accumulated, the friction
// radius carries mu, and b carries psi/h.
//
// r: per block from its Delassus diagonal block, r_k = 2 / (l_min + l_max) (Forg's rule applied
// locally; 1/A_ii for a scalar row), or one global Forg r* = 2 / (eta_max + eta_min) of the
// symmetric part of A (L&T Eq. 32), or fixed; opt->prox_r scales it. The adaptive rule halves
// the scale and restarts from the previous iterate when the residual grows, and grows it by
// 1.25 after three sweeps that each contracted the residual by more than half.
//
// Constraint force mixing: zeta = opt->cfm on A's diagonal makes the iteration solve the
// relaxed problem (A + zeta I); its answer is off by O(zeta |x|), so the true residual floors
// near zeta |x| / |b| (L&T §IV: never below the order of the relaxation).
//
// A team (a warp on the GPU) shares the O(n^2) work: the power iteration's rows, the blocks'
// steps, the column updates of a Gauss-Seidel sweep, a Jacobi sweep's blocks and u = A x + b.
// Each entry is computed by one member with the serial code and every member computes the same
// scalars (residuals, norms), so the result is bitwise that of one thread.
#ifndef TUMBLE_HOST_SOLVER_PROX_H_
#define TUMBLE_HOST_SOLVER_PROX_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "solver/residual.h"
#include "math/team.h"

// extreme eigenvalues of the symmetric 2x2 or 3x3 block of A starting at row i
TB_HDN void tb_blockEigen(const tbProblem* p, int i, int dim, double* lmin, double* lmax) {
  const double* A = p->A;
  int n = p->n;
  double a[3][3];
  for (int r = 0; r < dim; r++) {
    for (int c = 0; c < dim; c++) {
      a[r][c] = 0.5 * (A[(size_t)(i + r) * n + i + c] + A[(size_t)(i + c) * n + i + r]);
    }
  }
  if (dim == 1) {
    *lmin = *lmax = a[0][0];
    return;
  }
  if (dim == 2) {
    double m = 0.5 * (a[0][0] + a[1][1]);
    double d = sqrt(0.25 * (a[0][0] - a[1][1]) * (a[0][0] - a[1][1]) + a[0][1] * a[0][1]);
    *lmin = m - d;
    *lmax = m + d;
    return;
  }
  // symmetric 3x3: the trigonometric closed form
  double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
  double q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
  double p2 = (a[0][0] - q) * (a[0][0] - q) + (a[1][1] - q) * (a[1][1] - q) +
              (a[2][2] - q) * (a[2][2] - q) + 2.0 * p1;
  double pp = sqrt(p2 / 6.0);
  if (pp == 0.0) {
    *lmin = *lmax = q;
    return;
  }
  double b[3][3];
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) b[r][c] = (a[r][c] - (r == c ? q : 0.0)) / pp;
  }
  double det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
               b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
               b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
  double rr = 0.5 * det;
  double phi = rr <= -1.0 ? TB_PI / 3.0 : (rr >= 1.0 ? 0.0 : acos(rr) / 3.0);
  *lmax = q + 2.0 * pp * cos(phi);
  *lmin = q + 2.0 * pp * cos(phi + 2.0 * TB_PI / 3.0);
}

// largest eigenvalue of the symmetric part of (A - shift I) by power iteration (a fixed,
// deterministic number of steps from a fixed start), its rows split over team t
TB_HD double tb_powerMax(tbTeam t, const tbProblem* p, double shift, double* v, double* y) {
  int n = p->n;
  tb_teamSync(t);
  for (int i = t.lane; i < n; i += t.size) v[i] = 1.0 / sqrt((double)n) * (1.0 + 0.01 * (i % 7));
  double lam = 0.0;
  for (int it = 0; it < 200; it++) {
    tb_teamSync(t);
    for (int i = t.lane; i < n; i += t.size) {
      double s = -shift * v[i];
      for (int j = 0; j < n; j++) {
        s += 0.5 * (p->A[(size_t)i * n + j] + p->A[(size_t)j * n + i]) * v[j];
      }
      y[i] = s;
    }
    tb_teamSync(t);
    double nrm = 0.0;
    for (int i = 0; i < n; i++) nrm += y[i] * y[i];
    nrm = sqrt(nrm);
    if (nrm == 0.0) return 0.0;
    double dot = 0.0;
    for (int i = 0; i < n; i++) dot += v[i] * y[i];
    lam = dot;
    tb_teamSync(t);
    for (int i = t.lane; i < n; i += t.size) v[i] = y[i] / nrm;
  }
  return lam;
}

// the step r of every block (rstep[k]), the blocks split over team t
TB_HD void tb_proxSteps(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* rstep,
                        double* v, double* y) {
  double global = opt->prox_r;
  if (opt->prox_rule == TB_PROXR_FORG) {
    double emax = tb_powerMax(t, p, 0.0, v, y);
    // A - emax I has eigenvalues in [emin - emax, 0]; its dominant one is emin - emax
    double emin = emax + tb_powerMax(t, p, emax, v, y);
    emin = emin > 0.0 ? emin : 0.0;
    global = opt->prox_r * 2.0 / (emax + emin + opt->cfm * 2.0);
  }
  for (int k = t.lane; k < p->nblock; k += t.size) {
    if (opt->prox_rule != TB_PROXR_BLOCK) {
      rstep[k] = global;
      continue;
    }
    double lmin, lmax;
    tb_blockEigen(p, p->blk_adr[k], p->blk_dim[k], &lmin, &lmax);
    lmin = lmin > 0.0 ? lmin : 0.0;
    double den = lmin + lmax + 2.0 * opt->cfm;
    rstep[k] = den > 0.0 ? opt->prox_r * 2.0 / den : 0.0;
  }
  tb_teamSync(t);
}

// one block's prox update from the velocity u: its new impulses (blk_dim of them) into out
TB_HD void tb_proxBlock(const tbProblem* p, int k, double r, double cfm, const double* x,
                        const double* u, double* out) {
  int i = p->blk_adr[k];
  if (p->blk_type[k] == TB_BLOCK_BOX) {
    double v = x[i] - r * (u[i] + cfm * x[i]);
    out[0] = tbu_clamp(v, p->lo[i], p->hi[i]);
    return;
  }
  double vn = x[i] - r * (u[i] + cfm * x[i]);
  out[0] = vn > 0.0 ? vn : 0.0;
  int ntan = p->blk_dim[k] - 1;
  if (ntan == 0) return;
  double y[2] = {0.0, 0.0};
  for (int c = 0; c < ntan; c++) y[c] = x[i + 1 + c] - r * (u[i + 1 + c] + cfm * x[i + 1 + c]);
  tbu_projFriction(y, ntan, p->blk_mu[k] * out[0], p->cone == 1, p->facets, p->blk_angle[k]);
  for (int c = 0; c < ntan; c++) out[1 + c] = y[c];
}

// x[j] <- v and u += A[:, j] (v - x[j]) by team t, once every member has read x and u (the
// column read as a column: prox takes A as it is, symmetric or not)
TB_HD void tb_proxSet(tbTeam t, const tbProblem* p, int j, double v, double* x, double* u) {
  double dx = v - x[j];
  tb_teamSync(t);
  if (t.lane == 0) x[j] = v;
  if (dx != 0.0) {
    for (int i = t.lane; i < p->n; i += t.size) u[i] += p->A[(size_t)i * p->n + j] * dx;
  }
  tb_teamSync(t);
}

TB_HD void tb_proxSweep(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, const double* rstep,
                        double scale, int jacobi, double* x, double* u, double* xs) {
  if (jacobi) {
    // every block from the same u; then u from scratch
    for (int k = t.lane; k < p->nblock; k += t.size) {
      tb_proxBlock(p, k, scale * rstep[k], opt->cfm, x, u, xs + p->blk_adr[k]);
    }
    tb_teamCopy(t, x, xs, p->n);
    tb_problemVelocityTeam(t, p, x, u);
    return;
  }
  for (int k = 0; k < p->nblock; k++) {
    double nv[3];
    tb_proxBlock(p, k, scale * rstep[k], opt->cfm, x, u, nv);
    for (int c = 0; c < p->blk_dim[k]; c++) tb_proxSet(t, p, p->blk_adr[k] + c, nv[c], x, u);
  }
}

// the prox solver (scratch: 6n doubles) run by team t; every member gets the result
TB_HDN void tb_solveProx(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                         tbSolverWork* w, tbSolveResult* res, int jacobi) {
  int n = p->n;
  double *u = w->d, *xs = u + n, *xprev = xs + n, *rstep = xprev + n, *v = rstep + n;
  double* y = v + n;
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  if (n == 0) {
    tb_finishSolveTeam(t, p, opt, x, u, res);
    return;
  }
  tb_proxSteps(t, p, opt, rstep, v, y);
  tb_problemVelocityTeam(t, p, x, u);
  double scale = 1.0, prev = tb_residualFromVelocity(p, x, u);
  int good = 0;
  for (int it = 0; it < opt->max_iter; it++) {
    if (tb_outOfTime(opt, res)) break;
    tb_teamCopy(t, xprev, x, n);
    tb_proxSweep(t, p, opt, rstep, scale, jacobi, x, u, xs);
    res->iterations = it + 1;
    double r = tb_residualFromVelocity(p, x, u);
    if (!isfinite(r)) {
      res->reason = TB_STOP_NONFINITE;
      break;
    }
    if (r <= opt->tol) {
      res->reason = TB_STOP_CONVERGED;
      break;
    }
    if (!opt->prox_adaptive) {
      prev = r;
      continue;
    }
    if (r > prev) {
      // overshoot: back to the previous iterate with half the step
      tb_teamCopy(t, x, xprev, n);
      tb_problemVelocityTeam(t, p, x, u);
      scale *= 0.5;
      good = 0;
      if (scale < 1e-12) {
        res->reason = TB_STOP_STALLED;
        break;
      }
      continue;
    }
    good = r < 0.5 * prev ? good + 1 : 0;
    if (good >= 3 && scale < 8.0) {
      scale *= 1.25;
      good = 0;
    }
    prev = r;
  }
  tb_finishSolveTeam(t, p, opt, x, u, res);
}

#endif  // TUMBLE_HOST_SOLVER_PROX_H_

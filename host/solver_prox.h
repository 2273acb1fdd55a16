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
#ifndef TUMBLE_HOST_SOLVER_PROX_H_
#define TUMBLE_HOST_SOLVER_PROX_H_

#include <math.h>
#include <string.h>

#include <tumble/cone.h>
#include <tumble/problem.h>

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
// deterministic number of steps from a fixed start)
TB_HD double tb_powerMax(const tbProblem* p, double shift, double* v, double* y) {
  int n = p->n;
  for (int i = 0; i < n; i++) v[i] = 1.0 / sqrt((double)n) * (1.0 + 0.01 * (i % 7));
  double lam = 0.0;
  for (int it = 0; it < 200; it++) {
    double nrm = 0.0;
    for (int i = 0; i < n; i++) {
      double s = -shift * v[i];
      for (int j = 0; j < n; j++) {
        s += 0.5 * (p->A[(size_t)i * n + j] + p->A[(size_t)j * n + i]) * v[j];
      }
      y[i] = s;
      nrm += s * s;
    }
    nrm = sqrt(nrm);
    if (nrm == 0.0) return 0.0;
    double dot = 0.0;
    for (int i = 0; i < n; i++) dot += v[i] * y[i];
    lam = dot;
    for (int i = 0; i < n; i++) v[i] = y[i] / nrm;
  }
  return lam;
}

// the step r of every block (rstep[k])
TB_HD void tb_proxSteps(const tbProblem* p, const tbSolverOpt* opt, double* rstep, double* v,
                        double* y) {
  double global = opt->prox_r;
  if (opt->prox_rule == TB_PROXR_FORG) {
    double emax = tb_powerMax(p, 0.0, v, y);
    // A - emax I has eigenvalues in [emin - emax, 0]; its dominant one is emin - emax
    double emin = emax + tb_powerMax(p, emax, v, y);
    emin = emin > 0.0 ? emin : 0.0;
    global = opt->prox_r * 2.0 / (emax + emin + opt->cfm * 2.0);
  }
  for (int k = 0; k < p->nblock; k++) {
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
}

// one block's prox update from the velocity u; writes the new impulses into xn
TB_HD void tb_proxBlock(const tbProblem* p, int k, double r, double cfm, const double* x,
                        const double* u, double* xn) {
  int i = p->blk_adr[k];
  if (p->blk_type[k] == TB_BLOCK_BOX) {
    double v = x[i] - r * (u[i] + cfm * x[i]);
    xn[i] = tbu_clamp(v, p->lo[i], p->hi[i]);
    return;
  }
  double vn = x[i] - r * (u[i] + cfm * x[i]);
  xn[i] = vn > 0.0 ? vn : 0.0;
  int ntan = p->blk_dim[k] - 1;
  if (ntan == 0) return;
  double y[2] = {0.0, 0.0};
  for (int t = 0; t < ntan; t++) y[t] = x[i + 1 + t] - r * (u[i + 1 + t] + cfm * x[i + 1 + t]);
  tbu_projFriction(y, ntan, p->blk_mu[k] * xn[i], p->cone == 1, p->facets, p->blk_angle[k]);
  for (int t = 0; t < ntan; t++) xn[i + 1 + t] = y[t];
}

// u += A[:, j] dx for every changed row of block k
TB_HD void tb_updateVelocity(const tbProblem* p, int k, const double* xold, const double* x,
                             double* u) {
  int i0 = p->blk_adr[k];
  for (int j = i0; j < i0 + p->blk_dim[k]; j++) {
    double dx = x[j] - xold[j];
    if (dx == 0.0) continue;
    for (int i = 0; i < p->n; i++) u[i] += p->A[(size_t)i * p->n + j] * dx;
  }
}

TB_HD void tb_proxSweep(const tbProblem* p, const tbSolverOpt* opt, const double* rstep,
                        double scale, int jacobi, double* x, double* u, double* xs) {
  if (jacobi) {
    // every block from the same u; then u from scratch
    for (int k = 0; k < p->nblock; k++) tb_proxBlock(p, k, scale * rstep[k], opt->cfm, x, u, xs);
    memcpy(x, xs, sizeof(double) * p->n);
    tb_problemVelocity(p, x, u);
    return;
  }
  memcpy(xs, x, sizeof(double) * p->n);
  for (int k = 0; k < p->nblock; k++) {
    tb_proxBlock(p, k, scale * rstep[k], opt->cfm, x, u, x);
    tb_updateVelocity(p, k, xs, x, u);
  }
}

TB_HDN void tb_solveProx(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                         tbSolveResult* res, int jacobi) {
  int n = p->n;
  double *u = w->d, *xs = u + n, *xprev = xs + n, *rstep = xprev + n, *v = rstep + n;
  double* y = v + n;
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  if (n == 0) {
    tb_finishSolve(p, opt, x, u, res);
    return;
  }
  tb_proxSteps(p, opt, rstep, v, y);
  tb_problemVelocity(p, x, u);
  double scale = 1.0, prev = tb_residualFromVelocity(p, x, u);
  int good = 0;
  for (int it = 0; it < opt->max_iter; it++) {
    if (tb_outOfTime(opt, res)) break;
    memcpy(xprev, x, sizeof(double) * n);
    tb_proxSweep(p, opt, rstep, scale, jacobi, x, u, xs);
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
      memcpy(x, xprev, sizeof(double) * n);
      tb_problemVelocity(p, x, u);
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
  tb_finishSolve(p, opt, x, u, res);
}

#endif  // TUMBLE_HOST_SOLVER_PROX_H_

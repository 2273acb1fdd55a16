// The exact-cone problem with its De Saxce term held fixed, solved by a primal-dual interior
// point: auto's last stage on the problem files every other stage leaves unsolved.
//
// With s = mu |u_t| fixed per contact the problem is convex (Acary, Cadoux, Lemarechal & Malick
// 2011): x in K, u + (s, 0, 0) in K*, x . (u + (s, 0, 0)) = 0 are the optimality conditions of
// min 1/2 x^T A x + (b + s e)^T x over the friction cones K, and the full problem is the fixed
// point s = mu |u_t| of its answers. Where contacts are redundant (a pile at rest: more contact
// rows than DoFs) A is singular and the answers x form a set; an interior point method converges
// to a point inside that set (near its analytic center), where every contact's forces are
// spread as far from their cone's edges as the set allows, and from there the semismooth Newton
// methods converge in a few iterations where from PGS's iterates, on the set's edges, their
// Jacobian is singular and they stall (a pile step only Siconos' PROX had solved, by a chance
// dip, converges from the second answer: host/solver/solver_auto.h tb_convexFixedPoint).
//
// The method: in z = D x (D = diag(mu, 1, 1) per contact, so that K is the standard second-order
// cone Q) the problem is min 1/2 z^T H z + g^T z over z in Q, H = D^-1 A D^-1, g = D^-1 (b + s e),
// with the dual l = H z + g in Q and z o l = 0 (the Jordan product). Newton's direction on the
// scaled central path (Nesterov-Todd scaling S, S l = S^-1 z = v; Vandenberghe's notes on
// CVXOPT's cone solvers, 2010) and Mehrotra's predictor-corrector: one Cholesky factorization of
// H + S^-2 an iteration.
#ifndef TUMBLE_HOST_SOLVER_IPM_H_
#define TUMBLE_HOST_SOLVER_IPM_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "math/dense.h"
#include "solver/residual.h"

#define TB_IPM_ITERS 60     // interior-point iterations of one fixed-s solve, at most (15-20 used)
#define TB_IPM_TOL 1e-11    // its stop: duality gap and dual residual of the scaled problem
#define TB_IPM_STEP 0.99    // the fraction of the way to the cones' boundary a step goes
#define TB_IPM_SHIFT 1e-13  // the first diagonal shift where H + S^-2 is singular to round-off

// 1 where the interior point applies: the exact cone, contacts only, friction where there are
// tangent rows (mu = 0 makes D singular; such contacts have only their normal row)
TB_HD int tb_ipmApplies(const tbProblem* p) {
  if (p->cone != 0 || p->nblock == 0) return 0;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != TB_BLOCK_CONTACT) return 0;
    if (p->blk_dim[k] > 1 && !(p->blk_mu[k] > 0.0)) return 0;
  }
  return 1;
}

// the interior point's vectors, n each, in its scratch after the n x n matrix
typedef struct tbIpm {
  double *d, *g, *z, *l, *dz, *dl, *rd, *v, *w, *beta, *t;
  double* M;  // (n x n) H + S^-2, then its Cholesky factor
} tbIpm;

// the doubles the interior point needs on n rows (tbIpm, in this order)
TB_HD size_t tb_ipmNeed(int n) {
  size_t N = (size_t)(n > 0 ? n : 1);
  return N * N + 11 * N;
}

TB_HD tbIpm tb_ipmLayout(int n, double* work) {
  tbIpm s;
  size_t N = (size_t)(n > 0 ? n : 1);
  s.M = work;
  double* v = work + N * N;
  double** slot[11] = {&s.d, &s.g, &s.z, &s.l, &s.dz, &s.dl, &s.rd, &s.v, &s.w, &s.beta, &s.t};
  for (int k = 0; k < 11; k++) *slot[k] = v + (size_t)k * N;
  return s;
}

// D's diagonal (mu on a frictional contact's normal row, else 1), the scaled problem's
// normalization (H = D^-1 A D^-1 / hs, g = D^-1 (b + s e) / gs: both of order 1, so that the
// start's unit shifts and the tolerances are relative) into *hs, *gs
TB_HD void tb_ipmScaleProblem(const tbProblem* p, const double* s, tbIpm* w, double* hs,
                              double* gs) {
  int n = p->n;
  for (int i = 0; i < n; i++) w->d[i] = 1.0;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_dim[k] > 1) w->d[p->blk_adr[k]] = p->blk_mu[k];
  }
  double h = 0.0, g = 0.0;
  for (int i = 0; i < n; i++) {
    h = fmax(h, p->A[(size_t)i * n + i] / (w->d[i] * w->d[i]));
    w->g[i] = (p->b[i] + s[i]) / w->d[i];
    g = fmax(g, fabs(w->g[i]));
  }
  *hs = h > 0.0 ? h : 1.0;
  *gs = g > 0.0 ? g : 1.0;
  for (int i = 0; i < n; i++) w->g[i] /= *gs;
}

// H's entry (i, j) of the scaled problem
TB_HD double tb_ipmH(const tbProblem* p, const tbIpm* w, double hs, int i, int j) {
  return p->A[(size_t)i * p->n + j] / (w->d[i] * w->d[j] * hs);
}

// r = H y
TB_HD void tb_ipmHVec(const tbProblem* p, const tbIpm* w, double hs, const double* y, double* r) {
  for (int i = 0; i < p->n; i++) {
    double a = 0.0;
    for (int j = 0; j < p->n; j++) a += tb_ipmH(p, w, hs, i, j) * y[j];
    r[i] = a;
  }
}

// y moved inside Q block by block: by 1 + its deepest violation along e where any block is not
// well inside (CVXOPT's start)
TB_HD void tb_ipmIntoCones(const tbProblem* p, double* y) {
  double worst = -INFINITY;
  for (int k = 0; k < p->nblock; k++) {
    worst = fmax(worst, -tbu_socMargin(y + p->blk_adr[k], p->blk_dim[k]));
  }
  if (worst < -1e-8) return;
  for (int k = 0; k < p->nblock; k++) y[p->blk_adr[k]] += 1.0 + worst;
}

// factor M = H + S^-2 (+ a shift where round-off leaves it indefinite: H is singular wherever
// contacts are redundant, and S^-2 vanishes on the cones' interiors); 0, or -1
TB_HD int tb_ipmFactor(const tbProblem* p, tbIpm* w, double hs) {
  int n = p->n;
  for (double shift = 0.0; shift <= 1e-5; shift = shift > 0.0 ? 100.0 * shift : TB_IPM_SHIFT) {
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) w->M[(size_t)i * n + j] = tb_ipmH(p, w, hs, i, j);
      w->M[(size_t)i * n + i] += shift;
    }
    for (int k = 0; k < p->nblock; k++) {
      int a = p->blk_adr[k], m = p->blk_dim[k];
      for (int j = 0; j < m; j++) {
        double e[3] = {0.0, 0.0, 0.0}, c[3];
        e[j] = 1.0;
        tbu_socScaleInv2(w->w + a, w->beta[a], m, e, c);
        for (int i = 0; i < m; i++) w->M[(size_t)(a + i) * n + a + j] += c[i];
      }
    }
    if (tbu_cholesky(n, w->M) == 0) return 0;
  }
  return -1;
}

// Newton's direction for the complementarity target d (S l o S^-1 z -> d): dz from
// (H + S^-2) dz = -rd + S^-1 (v \ d), dl = S^-1 (v \ d) - S^-2 dz
TB_HD void tb_ipmDirection(const tbProblem* p, tbIpm* w, const double* target) {
  for (int k = 0; k < p->nblock; k++) {
    int a = p->blk_adr[k], m = p->blk_dim[k];
    double y[3];
    tbu_socDivide(w->v + a, target + a, m, y);
    tbu_socScaleInv(w->w + a, w->beta[a], m, y, w->dl + a);  // S^-1 (v \ d), for now
  }
  for (int i = 0; i < p->n; i++) w->dz[i] = w->dl[i] - w->rd[i];
  tbu_cholSolve(p->n, w->M, w->dz);
  for (int k = 0; k < p->nblock; k++) {
    int a = p->blk_adr[k], m = p->blk_dim[k];
    double c[3];
    tbu_socScaleInv2(w->w + a, w->beta[a], m, w->dz + a, c);
    for (int i = 0; i < m; i++) w->dl[a + i] -= c[i];
  }
}

// the largest step up to 1 that keeps z and l inside their cones
TB_HD double tb_ipmStep(const tbProblem* p, const tbIpm* w) {
  double a = 1.0 / TB_IPM_STEP;
  for (int k = 0; k < p->nblock; k++) {
    int b = p->blk_adr[k], m = p->blk_dim[k];
    a = tbu_socMaxStep(w->z + b, w->dz + b, m, a);
    a = tbu_socMaxStep(w->l + b, w->dl + b, m, a);
  }
  return fmin(1.0, TB_IPM_STEP * a);
}

// the scaled problem's answer for the De Saxce term s (n entries, zero off the normal rows)
// into x: 0 when the gap and dual residual met TB_IPM_TOL, 1 when max_iter iterations or the
// deadline (opt->deadline) ended first (x is then the last iterate, inside K; where the problem
// has no answer the iterates grow), -1 where the system could not be factored or the
// iterate left the finite numbers (x is then not an answer); *iters counts the iterations.
// work: tb_ipmNeed(n) doubles
TB_HD int tb_ipmSolve(const tbProblem* p, const double* s, const tbSolverOpt* opt, int max_iter,
                      double* x, double* work, int* iters) {
  int n = p->n, nb = p->nblock;
  tbIpm w = tb_ipmLayout(n, work);
  double hs, gs;
  tb_ipmScaleProblem(p, s, &w, &hs, &gs);
  *iters = 0;  // (a start that cannot be factored ran none)
  // the start (CVXOPT's): z from (H + I) z = -g, l = H z + g, each moved inside its cones
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) w.M[(size_t)i * n + j] = tb_ipmH(p, &w, hs, i, j) + (i == j);
    w.z[i] = -w.g[i];
  }
  if (tbu_cholesky(n, w.M)) return -1;
  tbu_cholSolve(n, w.M, w.z);
  tb_ipmHVec(p, &w, hs, w.z, w.l);
  for (int i = 0; i < n; i++) w.l[i] += w.g[i];
  tb_ipmIntoCones(p, w.z);
  tb_ipmIntoCones(p, w.l);
  int status = 1;
  for (; *iters < max_iter && !tb_pastDeadline(opt); (*iters)++) {
    // rd = H z + g - l, the gap's mean mu = z . l / nb
    tb_ipmHVec(p, &w, hs, w.z, w.rd);
    double gap = 0.0, rmax = 0.0;
    for (int i = 0; i < n; i++) {
      w.rd[i] += w.g[i] - w.l[i];
      gap += w.z[i] * w.l[i];
      rmax = fmax(rmax, fabs(w.rd[i]));
    }
    double mu = gap / nb;
    if (!isfinite(mu) || !isfinite(rmax)) {
      status = -1;
      break;
    }
    if (mu <= TB_IPM_TOL && rmax <= TB_IPM_TOL) {
      status = 0;
      break;
    }
    for (int k = 0; k < nb; k++) {
      int a = p->blk_adr[k], m = p->blk_dim[k];
      tbu_socNTScaling(w.z + a, w.l + a, m, w.w + a, &w.beta[a]);
      tbu_socScale(w.w + a, w.beta[a], m, w.l + a, w.v + a);
    }
    if (tb_ipmFactor(p, &w, hs)) {
      status = -1;
      break;
    }
    // predictor: d = -v o v
    for (int k = 0; k < nb; k++) {
      int a = p->blk_adr[k], m = p->blk_dim[k];
      tbu_socProduct(w.v + a, w.v + a, m, w.t + a);
    }
    for (int i = 0; i < n; i++) w.t[i] = -w.t[i];
    tb_ipmDirection(p, &w, w.t);
    double aa = fmin(1.0, tb_ipmStep(p, &w) / TB_IPM_STEP), gap_a = 0.0;
    for (int i = 0; i < n; i++) gap_a += (w.z[i] + aa * w.dz[i]) * (w.l[i] + aa * w.dl[i]);
    double sigma = pow(fmax(gap_a, 0.0) / gap, 3.0);
    // corrector: d = sigma mu e - v o v - (S^-1 dz_a) o (S dl_a)
    for (int k = 0; k < nb; k++) {
      int a = p->blk_adr[k], m = p->blk_dim[k];
      double sz[3], sl[3], c[3], vv[3];
      tbu_socScaleInv(w.w + a, w.beta[a], m, w.dz + a, sz);
      tbu_socScale(w.w + a, w.beta[a], m, w.dl + a, sl);
      tbu_socProduct(sz, sl, m, c);
      tbu_socProduct(w.v + a, w.v + a, m, vv);
      for (int i = 0; i < m; i++) w.t[a + i] = (i == 0 ? sigma * mu : 0.0) - vv[i] - c[i];
    }
    tb_ipmDirection(p, &w, w.t);
    double step = tb_ipmStep(p, &w);
    for (int i = 0; i < n; i++) {
      w.z[i] += step * w.dz[i];
      w.l[i] += step * w.dl[i];
    }
    if (!(step > 1e-12)) break;
  }
  // x = D^-1 z, back in the problem's units (z scaled by gs / hs)
  for (int i = 0; i < n; i++) x[i] = w.z[i] * gs / (hs * w.d[i]);
  return status;
}

// the De Saxce term of x: s = mu |u_t| on each contact's normal row (u = A x + b in u), zero on
// the others
TB_HD void tb_deSaxceTerm(const tbProblem* p, const double* u, double* s) {
  memset(s, 0, sizeof(double) * p->n);
  for (int k = 0; k < p->nblock; k++) {
    int a = p->blk_adr[k];
    double ut = 0.0;
    for (int i = 1; i < p->blk_dim[k]; i++) ut += u[a + i] * u[a + i];
    if (p->blk_dim[k] > 1) s[a] = p->blk_mu[k] * sqrt(ut);
  }
}

#endif  // TUMBLE_HOST_SOLVER_IPM_H_

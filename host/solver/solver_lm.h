// Levenberg-Marquardt solvers on two nonsmooth equations (Mylapilli & Jain 2014; Todorov 2010;
// shared/notes/seed-lm-ncp.md, whose errata are applied throughout): the drivers, their
// iterations in phases and the solves. The equations (MNCP, MLCP-FB, SOC-FB), their merit and
// Jacobians are solver_lm_equation.h's, with their derivation.
//
// Drivers on psi = 1/2 |phi|^2 (one set for both equations, chosen by an enum):
//   RLM (Bazaraa, M&J §1.5 repaired): d = -(J^T J + lambda I)^-1 J^T phi, gain ratio against
//     the quadratic model 1/2 |phi + J d|^2; lambda *= lm_step below lm_rmin, accept if the
//     ratio is positive, lambda /= lm_step (floor lm_lambda_min) above lm_rmax.
//   PLM (Kanzow-Petra LMMCP port, notes §1.6): d = least squares of [J; sqrt(l) I] d = [-phi; 0]
//     by Householder QR (Cholesky with a larger damping as fallback), non-monotone Armijo
//     (beta 0.55, sigma 1e-4, tmin 1e-12, monotone for the first 5 steps after a (re)start,
//     memory plm_memory), watchdog: no new best in plm_watchdog steps restarts from the best.
//   Dogleg (Todorov, MNCP only): the LM point is taken when its gain ratio reaches lm_rmin;
//     otherwise the best of psi at the segment ends and the per-contact kinks (z_n = 0 and
//     |z_t| = mu max(0, -z_n), closed form) along 0 -> Cauchy point -> LM point.
// Every driver stops when the problem's own residual (tb_residualFromVelocity of x = X(y)) is
// at most opt->tol; damping above 1e16, a failed line search or a zero gradient is a stall.
#ifndef TUMBLE_HOST_SOLVER_LM_H_
#define TUMBLE_HOST_SOLVER_LM_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/dense.h"
#include "solver/residual.h"
#include "solver/lcp_form.h"
#include "solver/solver_lm_equation.h"
#include "solver/solver_need.h"

// `projected` of the LM solvers: the seed's regular LM, the seed's projected LM (QR
// directions), or the projected LM with the Newton direction by LU where J is well conditioned
// (auto's Newton stage; same line search and watchdog)
enum { TB_LM_REGULAR = 0, TB_LM_PROJECTED = 1, TB_LM_PROJECTED_LU = 2 };
enum { TB_LM_RLM = 0, TB_LM_PLM = 1, TB_LM_DOGLEG = 2 };

#define TB_LM_LAMBDA_MAX 1e16
#define TB_PLM_BETA 0.55
#define TB_PLM_SIGMA 1e-4
#define TB_PLM_TMIN 1e-12
#define TB_PLM_MONOTONE 5
#define TB_PLM_MAXMEM 64
#define TB_PLM_LU_PIVOT 1e-7
// the regularized Newton direction's shift, relative to |J|: just above TB_PLM_LU_PIVOT, so its
// pivots pass; a resting box stack's steps took 1.94 iterations (sweeps and Newton) on average
// at 3e-7, 2.29 at 1e-6 and 2.43 at 1e-5 (2.02 with the Cholesky step)
#define TB_PLM_SHIFT 3e-7

//---- drivers
//---------------------------------------------------------------------------------------

TB_HD double tb_dot(int n, const double* a, const double* b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

// r = a + t d
TB_HD void tb_axpy(int n, const double* a, double t, const double* d, double* r) {
  for (int i = 0; i < n; i++) r[i] = a[i] + t * d[i];
}

// the linear system of an iteration: its direction d solves it (tb_lmSystemSolve)
enum {
  TB_LM_SYS_NONE = 0,  // the driver has stopped
  TB_LM_SYS_CHOL,      // (J^T J + lambda I) d = -g by Cholesky (RLM, dogleg)
  TB_LM_SYS_LU,        // J d = -phi by LU (PLM with the Newton direction)
  TB_LM_SYS_LU_SHIFT,  // (J - sigma I) d = -phi by LU (the same, J known singular)
  TB_LM_SYS_QR,        // least squares [J; sqrt(lambda) I] d = [-phi; 0] by QR (the seed's PLM)
};

// A driver's state between its iterations: what would be a loop's locals, kept here so that an
// iteration can stop before its linear solve and go on after it (tb_lmPre, tb_lmPost), and the
// solve may come from elsewhere: the GPU's batched library factorizations
// (host/gpu/newton_phased.h) between two launches.
typedef struct tbLmIter {
  int driver;             // TB_LM_RLM, TB_LM_PLM, TB_LM_DOGLEG
  int it;                 // iterations begun
  int done;               // the driver has stopped: res->reason says why
  int system;             // the current iteration's TB_LM_SYS_*
  int stale;              // RLM, dogleg: J, g and J^T J are to be recomputed at y
  int kbest, nhist, mem;  // PLM: the best point's iteration, the merit history and its length
  double psi, lambda, best;
  double hist[TB_PLM_MAXMEM];
} tbLmIter;

// the quadratic model's decrease psi - 1/2 |phi + J d|^2 = -g.d - 1/2 |J d|^2
TB_HD double tb_lmPredicted(const tbLmState* s, const double* d, double* Jd) {
  tbu_matVec(s->n, s->n, s->J, d, Jd);
  return -tb_dot(s->n, s->g, d) - 0.5 * tb_dot(s->n, Jd, Jd);
}

// d = -(G + lambda I)^-1 g with G = J^T J in K[0..n^2), H in K[n^2..2n^2); -1 if not SPD
TB_HD int tb_lmStep(tbLmState* s, double lambda, double* d) {
  int n = s->n;
  size_t nn = (size_t)n * n;
  double *G = s->K, *H = s->K + nn;
  memcpy(H, G, nn * sizeof(double));
  for (int i = 0; i < n; i++) H[(size_t)i * n + i] += lambda;
  if (tbu_cholesky(n, H)) return -1;
  for (int i = 0; i < n; i++) d[i] = -s->g[i];
  tbu_cholSolve(n, H, d);
  for (int i = 0; i < n; i++) {
    if (!isfinite(d[i])) return -1;
  }
  return 0;
}

// J, g = J^T phi and G = J^T J at s->y (phi current)
TB_HD void tb_lmLinearize(const tbLm* c, tbLmState* s) {
  tb_lmJac(c, s->y, s->J);
  tbu_matTVec(s->n, s->n, s->J, s->phi, s->g);
  tbu_gram(s->n, s->n, s->J, s->K);
}

//---- regular LM (RLM) ----------------------------------------------------------------------------

TB_HD void tb_rlmBegin(const tbSolverOpt* opt, tbLmIter* it) {
  it->stale = 1;
  it->lambda = opt->lm_lambda;
}

// an iteration's start: J, g and J^T J where y moved; the system (J^T J + lambda I) d = -g
TB_HD int tb_rlmPre(const tbLm* c, tbLmState* s, tbLmIter* it, tbSolveResult* res) {
  if (it->stale) {
    tb_lmLinearize(c, s);
    it->stale = 0;
    if (tb_dot(s->n, s->g, s->g) == 0.0) {
      res->reason = TB_STOP_STALLED;  // a stationary point of psi that is not a solution
      return TB_LM_SYS_NONE;
    }
  }
  return TB_LM_SYS_CHOL;
}

// the gain ratio of the step d (ok: the system was solved): accept it or not, adapt lambda
TB_HD void tb_rlmPost(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, tbLmIter* it,
                      tbSolveResult* res, int ok) {
  int n = s->n;
  if (!ok) {  // G + lambda I not positive definite: more damping
    it->lambda *= opt->lm_step;
    if (it->lambda > TB_LM_LAMBDA_MAX) {
      res->reason = TB_STOP_STALLED;
      it->done = 1;
    }
    return;
  }
  double pred = tb_lmPredicted(s, s->d, s->aux);
  tb_axpy(n, s->y, 1.0, s->d, s->yt);
  double psit = tb_lmPhi(c, s->yt, s->phit);
  double rho = isfinite(psit) && pred > 0.0 ? (it->psi - psit) / pred : -1.0;
  if (rho < opt->lm_rmin) it->lambda *= opt->lm_step;
  if (rho > 0.0) {
    memcpy(s->y, s->yt, n * sizeof(double));
    memcpy(s->phi, s->phit, n * sizeof(double));
    it->psi = psit;
    it->stale = 1;
    if (tb_lmTrueResidual(c, s->y) <= opt->tol) {
      res->reason = TB_STOP_CONVERGED;
      it->done = 1;
      return;
    }
  }
  if (rho > opt->lm_rmax) {
    it->lambda /= opt->lm_step;
    if (it->lambda < opt->lm_lambda_min) it->lambda = opt->lm_lambda_min;
  }
  if (it->lambda > TB_LM_LAMBDA_MAX || !(pred > 0.0)) {
    res->reason = TB_STOP_STALLED;
    it->done = 1;
  }
}

// the direction (J - shift I) d = -phi by LU, where that matrix is well conditioned: its pivots
// all above TB_PLM_LU_PIVOT times the largest; -1 otherwise (s->K holds the factors)
TB_HD int tb_plmLU(tbLmState* s, double shift, double* d) {
  int n = s->n;
  double* LU = s->K;
  memcpy(LU, s->J, (size_t)n * n * sizeof(double));
  for (int i = 0; i < n; i++) LU[(size_t)i * n + i] -= shift;
  if (tbu_lu(n, LU, s->piv)) return -1;
  double umin = INFINITY, umax = 0.0;
  for (int i = 0; i < n; i++) {
    double a = fabs(LU[(size_t)i * n + i]);
    umin = fmin(umin, a);
    umax = fmax(umax, a);
  }
  if (!(umin > TB_PLM_LU_PIVOT * umax)) return -1;
  for (int i = 0; i < n; i++) d[i] = -s->phi[i];
  tbu_luSolve(n, LU, s->piv, d);
  for (int i = 0; i < n; i++) {
    if (!isfinite(d[i])) return -1;
  }
  return 0;
}

// least squares [J; sqrt(lambda) I] d = [-phi; 0] by Householder QR; -1 if R is singular
TB_HD int tb_plmQR(tbLmState* s, double lambda, double* d) {
  int n = s->n;
  size_t nn = (size_t)n * n;
  double* Q = s->K;  // (2n x n)
  memcpy(Q, s->J, nn * sizeof(double));
  memset(Q + nn, 0, nn * sizeof(double));
  double sl = sqrt(lambda);
  for (int i = 0; i < n; i++) {
    Q[nn + (size_t)i * n + i] = sl;
    s->rhs[i] = -s->phi[i];
    s->rhs[n + i] = 0.0;
  }
  int ok = tbu_qrSolve(2 * n, n, Q, s->rhs) == 0;
  for (int i = 0; ok && i < n; i++) ok = isfinite(s->rhs[i]);
  if (!ok) return -1;
  memcpy(d, s->rhs, n * sizeof(double));
  return 0;
}

// Cholesky of J^T J + lambda' I, lambda' from max(lambda, 1e-12 times the scale of J^T J)
// raised 100-fold until it factors; -1 if it never does
TB_HD int tb_plmCholesky(tbLmState* s, double lambda, double* d) {
  int n = s->n;
  size_t nn = (size_t)n * n;
  double *H = s->K, *G = s->K + nn;
  tbu_gram(n, n, s->J, G);
  double dmax = 0.0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, G[(size_t)i * n + i]);
  for (double l = fmax(lambda, 1e-12 * fmax(dmax, 1.0)); l <= TB_LM_LAMBDA_MAX; l *= 100.0) {
    memcpy(H, G, nn * sizeof(double));
    for (int i = 0; i < n; i++) H[(size_t)i * n + i] += l;
    if (tbu_cholesky(n, H)) continue;
    for (int i = 0; i < n; i++) d[i] = -s->g[i];
    tbu_cholSolve(n, H, d);
    int fin = 1;
    for (int i = 0; i < n; i++) fin = fin && isfinite(d[i]);
    if (fin) return 0;
  }
  return -1;
}

// the shift of the regularized Newton direction from J's largest squared column norm
TB_HD double tb_plmShiftOf(double column2_max) {
  return TB_PLM_SHIFT * sqrt(column2_max);
}

// the shift of the regularized Newton direction: TB_PLM_SHIFT times J's largest column norm
TB_HD double tb_plmShift(const tbLmState* s) {
  int n = s->n;
  double cmax = 0.0;
  for (int c = 0; c < n; c++) {
    double sum = 0.0;
    for (int r = 0; r < n; r++) sum += s->J[(size_t)r * n + c] * s->J[(size_t)r * n + c];
    cmax = fmax(cmax, sum);
  }
  return tb_plmShiftOf(cmax);
}

// the rest of PLM's chain of directions after the iteration's first system failed: for the
// seed's (QR first) Cholesky of the damped normal equations; for auto's (LU first) the shifted
// LU (marking J singular when the plain LU failed), Cholesky, then QR; -1 if nothing works.
//
// Why this chain: the seed's PLM takes the least squares [J; sqrt(lambda) I] d = [-phi; 0] by
// QR, Cholesky of the damped normal equations as the fallback. auto's Newton stage (s->piv set):
// for the seed's lambda = 1e-16 the least-squares step is the Newton step up to a relative
// O(lambda / sigma_min(J)^2), so J d = -phi by LU (2/3 n^3 flops, where QR on the 2n x n stack
// costs about 10/3 n^3) while J is well conditioned. Where it is not (redundant contacts:
// BoxesStack1, OneObject, a resting box stack), the regularized Newton step (J - sigma I) d =
// -phi by LU with sigma = TB_PLM_SHIFT |J| (tb_plmShift): on a sticking manifold J = A D - E is
// -A, so J - sigma I is -(A + sigma I), nonsingular, and the step solves A's range to a relative
// sigma / (its eigenvalue) while leaving its null space (the impulse spread over redundant
// contacts) alone. It costs half of the Cholesky step on J^T J + lambda' I (n^3 + n^3/3 flops),
// which comes next, then QR as the last resort. After one rejected LU, or where J is singular
// for sure (tb_lmSurelySingular), the rest of the stage skips the plain LU (the redundancy
// stays).
TB_HD int tb_plmFallback(tbLmState* s, int system, double lambda, double* d) {
  if (system == TB_LM_SYS_QR) return tb_plmCholesky(s, lambda, d);
  if (system == TB_LM_SYS_LU) {
    s->lu_off = 1;
    if (!tb_plmLU(s, tb_plmShift(s), d)) return 0;
  }
  return tb_plmCholesky(s, lambda, d) && tb_plmQR(s, lambda, d) ? -1 : 0;
}

TB_HD void tb_plmBegin(const tbSolverOpt* opt, tbLmState* s, tbLmIter* it) {
  int mem = opt->plm_memory;
  it->mem = mem < 1 ? 1 : mem > TB_PLM_MAXMEM ? TB_PLM_MAXMEM : mem;
  it->kbest = 0;
  it->best = it->psi;
  it->lambda = opt->plm_lambda;
  memcpy(s->ybest, s->y, s->n * sizeof(double));
  it->hist[0] = it->psi;
  it->nhist = 1;
}

// an iteration's start: J and g at y; the first system of the chain
TB_HD int tb_plmPre(const tbLm* c, tbLmState* s) {
  tb_lmJac(c, s->y, s->J);
  tbu_matTVec(s->n, s->n, s->J, s->phi, s->g);
  if (s->piv && tb_lmSurelySingular(c, s->y)) s->lu_off = 1;
  if (!s->piv) return TB_LM_SYS_QR;
  return s->lu_off ? TB_LM_SYS_LU_SHIFT : TB_LM_SYS_LU;
}

// back to the best point, monotone from there
TB_HD void tb_plmRestart(const tbLm* c, tbLmState* s, tbLmIter* it) {
  memcpy(s->y, s->ybest, s->n * sizeof(double));
  it->psi = tb_lmPhi(c, s->y, s->phi);
  it->hist[0] = it->psi;
  it->nhist = 1;
  it->kbest = it->it - 1;
}

// the direction (the rest of the chain where the first system failed: ok 0), the non-monotone
// Armijo search along it, the best point and the watchdog
TB_HDN void tb_plmPost(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, tbLmIter* it,
                       tbSolveResult* res, int ok) {
  int n = s->n;
  if (!ok && tb_plmFallback(s, it->system, it->lambda, s->d)) {
    res->reason = TB_STOP_SINGULAR;
    it->done = 1;
    return;
  }
  double slope = tb_dot(n, s->g, s->d);
  if (!(slope < 0.0)) {  // not a descent direction (round-off): steepest descent
    for (int i = 0; i < n; i++) s->d[i] = -s->g[i];
    slope = -tb_dot(n, s->g, s->g);
    if (!(slope < 0.0)) {
      res->reason = TB_STOP_STALLED;
      it->done = 1;
      return;
    }
  }
  // reference value: monotone for the first steps after a (re)start, else the memory's max
  double ref = it->psi;
  if (it->nhist >= TB_PLM_MONOTONE) {
    int from = it->nhist > it->mem ? it->nhist - it->mem : 0;
    for (int h = from; h < it->nhist; h++) ref = fmax(ref, it->hist[h % TB_PLM_MAXMEM]);
  }
  double t = 1.0, psit;
  for (;;) {
    tb_axpy(n, s->y, t, s->d, s->yt);
    psit = tb_lmPhi(c, s->yt, s->phit);
    if (psit <= ref + TB_PLM_SIGMA * t * slope) break;
    t *= TB_PLM_BETA;
    if (t < TB_PLM_TMIN) break;
  }
  if (t < TB_PLM_TMIN) {
    if (it->psi > it->best) {  // restart from the best point
      tb_plmRestart(c, s, it);
      return;
    }
    res->reason = TB_STOP_STALLED;
    it->done = 1;
    return;
  }
  memcpy(s->y, s->yt, n * sizeof(double));
  memcpy(s->phi, s->phit, n * sizeof(double));
  it->psi = psit;
  it->hist[it->nhist % TB_PLM_MAXMEM] = it->psi;
  it->nhist++;
  if (it->psi < it->best) {
    it->best = it->psi;
    it->kbest = it->it - 1;
    memcpy(s->ybest, s->y, n * sizeof(double));
  }
  if (tb_lmTrueResidual(c, s->y) <= opt->tol) {
    res->reason = TB_STOP_CONVERGED;
    it->best = it->psi;  // the answer, even where a lower merit was seen (tb_plmEnd)
    it->done = 1;
    return;
  }
  if (it->it - 1 - it->kbest >= opt->plm_watchdog) tb_plmRestart(c, s, it);  // the watchdog
}

// the non-monotone search may end above the best point: return that
TB_HD void tb_plmEnd(tbLmState* s, const tbLmIter* it) {
  if (it->psi > it->best) memcpy(s->y, s->ybest, s->n * sizeof(double));
}

//---- dogleg with the edge-aware line search (MNCP) ----------------------------------------------

// psi at y0 + t e, kept in (*bt, *bpsi) if it is the lowest so far
TB_HD void tb_dogTry(const tbLm* c, tbLmState* s, const double* y0, const double* e, double t,
                     double* bt, double* bpsi) {
  tb_axpy(s->n, y0, t, e, s->yt);
  double psi = tb_lmPhi(c, s->yt, s->phit);
  if (psi < *bpsi) {
    *bpsi = psi;
    *bt = t;
  }
}

// best point on the segment y0 + t e, t in (0, 1]: the end and every per-block kink inside
TB_HDN void tb_dogSegment(const tbLm* c, tbLmState* s, const double* y0, const double* e,
                          double* bt, double* bpsi) {
  const tbProblem* p = c->p;
  *bt = 0.0;
  tb_dogTry(c, s, y0, e, 1.0, bt, bpsi);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], ntan = p->blk_dim[k] - 1;
    if (p->blk_type[k] == TB_BLOCK_BOX) {  // a bounded row's bounds
      for (int side = 0; side < 2 && e[i] != 0.0; side++) {
        double t = ((side ? p->hi[i] : p->lo[i]) - y0[i]) / e[i];
        if (t > 0.0 && t < 1.0) tb_dogTry(c, s, y0, e, t, bt, bpsi);
      }
      continue;
    }
    double zn = y0[i], en = e[i], mu = p->blk_mu[k];
    // the plane z_n = 0
    if (en != 0.0) {
      double t = -zn / en;
      if (t > 0.0 && t < 1.0) tb_dogTry(c, s, y0, e, t, bt, bpsi);
    }
    if (ntan == 0) continue;
    // the cone |z_t + t e_t|^2 = mu^2 (z_n + t e_n)^2 with z_n + t e_n <= 0
    double zz = 0.0, ze = 0.0, ee = 0.0;
    for (int r = 1; r <= ntan; r++) {
      zz += y0[i + r] * y0[i + r];
      ze += y0[i + r] * e[i + r];
      ee += e[i + r] * e[i + r];
    }
    double qa = ee - mu * mu * en * en, qb = 2.0 * (ze - mu * mu * zn * en);
    double qc = zz - mu * mu * zn * zn, root[2];
    int nroot = 0;
    if (fabs(qa) > 1e-300) {
      double disc = qb * qb - 4.0 * qa * qc;
      if (disc >= 0.0) {
        // stable roots: q = -(b + sign(b) sqrt(disc)) / 2, t = q / a and c / q
        double sq = sqrt(disc), qq = -0.5 * (qb + (qb >= 0.0 ? sq : -sq));
        if (qq != 0.0) {
          root[nroot++] = qq / qa;
          root[nroot++] = qc / qq;
        } else {
          root[nroot++] = 0.0;
        }
      }
    } else if (qb != 0.0) {
      root[nroot++] = -qc / qb;
    }
    for (int r = 0; r < nroot; r++) {
      double t = root[r];
      if (t > 0.0 && t < 1.0 && zn + t * en <= 0.0) tb_dogTry(c, s, y0, e, t, bt, bpsi);
    }
  }
}

TB_HD void tb_dogBegin(const tbSolverOpt* opt, tbLmIter* it) {
  tb_rlmBegin(opt, it);
}

// the LM point first, taken without a search when the model predicted it well; else the best of
// psi along the dogleg through the Cauchy point, kinks included
TB_HDN void tb_dogPost(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, tbLmIter* it,
                       tbSolveResult* res, int ok) {
  int n = s->n;
  double *dc = s->aux2, *Jg = s->aux2 + n, *e = s->aux2 + 2 * n, *yc = s->aux2 + 3 * n;
  double* dbest = s->aux2 + 4 * n;
  if (!ok) {
    tb_rlmPost(c, opt, s, it, res, 0);
    return;
  }
  tb_axpy(n, s->y, 1.0, s->d, s->yt);
  double psit = tb_lmPhi(c, s->yt, s->phit), pred = tb_lmPredicted(s, s->d, s->aux);
  double rho = isfinite(psit) && pred > 0.0 ? (it->psi - psit) / pred : -1.0;
  double bpsi = isfinite(psit) ? psit : INFINITY;
  memcpy(dbest, s->d, n * sizeof(double));
  if (rho < opt->lm_rmin) {
    // Cauchy point: the model's minimum along -g
    tbu_matVec(n, n, s->J, s->g, Jg);
    double gg = tb_dot(n, s->g, s->g), jj = tb_dot(n, Jg, Jg);
    double alpha = jj > 0.0 ? gg / jj : 0.0;
    for (int i = 0; i < n; i++) dc[i] = -alpha * s->g[i];
    double bt, b1 = bpsi;
    // segment 1: y -> y + dc
    tb_dogSegment(c, s, s->y, dc, &bt, &b1);
    if (b1 < bpsi) {
      bpsi = b1;
      for (int i = 0; i < n; i++) dbest[i] = bt * dc[i];
    }
    // segment 2: y + dc -> y + d
    tb_axpy(n, s->y, 1.0, dc, yc);
    for (int i = 0; i < n; i++) e[i] = s->d[i] - dc[i];
    double b2 = bpsi;
    tb_dogSegment(c, s, yc, e, &bt, &b2);
    if (b2 < bpsi) {
      bpsi = b2;
      for (int i = 0; i < n; i++) dbest[i] = dc[i] + bt * e[i];
    }
    it->lambda *= opt->lm_step;
  } else if (rho > opt->lm_rmax) {
    it->lambda /= opt->lm_step;
    if (it->lambda < opt->lm_lambda_min) it->lambda = opt->lm_lambda_min;
  }
  if (bpsi < it->psi) {
    tb_axpy(n, s->y, 1.0, dbest, s->y);
    it->psi = tb_lmPhi(c, s->y, s->phi);
    it->stale = 1;
    if (tb_lmTrueResidual(c, s->y) <= opt->tol) {
      res->reason = TB_STOP_CONVERGED;
      it->done = 1;
      return;
    }
  }
  if (it->lambda > TB_LM_LAMBDA_MAX || !(pred > 0.0)) {
    res->reason = TB_STOP_STALLED;
    it->done = 1;
  }
}

//---- an iteration in phases ---------------------------------------------------------------------

// the driver's start at s->y: stops at once where psi is not finite or y already solves
TB_HD void tb_lmBegin(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, int driver, tbLmIter* it,
                      tbSolveResult* res) {
  memset(it, 0, sizeof(*it));
  it->driver = driver;
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  it->psi = tb_lmPhi(c, s->y, s->phi);
  if (!isfinite(it->psi)) {
    res->reason = TB_STOP_NONFINITE;
    it->done = 1;
    return;
  }
  if (tb_lmTrueResidual(c, s->y) <= opt->tol) {
    res->reason = TB_STOP_CONVERGED;
    it->done = 1;
    return;
  }
  if (driver == TB_LM_PLM) {
    tb_plmBegin(opt, s, it);
  } else if (driver == TB_LM_DOGLEG) {
    tb_dogBegin(opt, it);
  } else {
    tb_rlmBegin(opt, it);
  }
}

// an iteration's start, up to its linear system: the system (TB_LM_SYS_*), or TB_LM_SYS_NONE
// once the driver has stopped (the iteration cap, the deadline, a zero gradient)
TB_HD int tb_lmPre(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, tbLmIter* it,
                   tbSolveResult* res) {
  it->system = TB_LM_SYS_NONE;
  if (it->done || it->it >= opt->max_iter || tb_outOfTime(opt, res)) {
    it->done = 1;
    return TB_LM_SYS_NONE;
  }
  res->iterations = ++it->it;
  it->system = it->driver == TB_LM_PLM ? tb_plmPre(c, s) : tb_rlmPre(c, s, it, res);
  if (it->system == TB_LM_SYS_NONE) it->done = 1;
  return it->system;
}

// the iteration's system solved here, into s->d: 0, or -1 where its factorization fails (not
// positive definite, a small LU pivot, a singular R) or d is not finite
TB_HD int tb_lmSystemSolve(tbLmState* s, const tbLmIter* it) {
  switch (it->system) {
    case TB_LM_SYS_CHOL:
      return tb_lmStep(s, it->lambda, s->d);
    case TB_LM_SYS_LU:
      return tb_plmLU(s, 0.0, s->d);
    case TB_LM_SYS_LU_SHIFT:
      return tb_plmLU(s, tb_plmShift(s), s->d);
    default:
      return tb_plmQR(s, it->lambda, s->d);
  }
}

// the iteration's rest, from its direction in s->d (ok 0: the system failed)
TB_HD void tb_lmPost(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, tbLmIter* it,
                     tbSolveResult* res, int ok) {
  if (it->driver == TB_LM_PLM) {
    tb_plmPost(c, opt, s, it, res, ok);
  } else if (it->driver == TB_LM_DOGLEG) {
    tb_dogPost(c, opt, s, it, res, ok);
  } else {
    tb_rlmPost(c, opt, s, it, res, ok);
  }
}

// what the driver leaves in s->y once it has stopped
TB_HD void tb_lmEnd(tbLmState* s, const tbLmIter* it) {
  if (it->driver == TB_LM_PLM) tb_plmEnd(s, it);
}

// the driver's iterations from tb_lmBegin to its stop, every system solved here
TB_HD void tb_lmIterate(const tbLm* c, const tbSolverOpt* opt, tbLmState* s, tbLmIter* it,
                        tbSolveResult* res) {
  while (tb_lmPre(c, opt, s, it, res) != TB_LM_SYS_NONE) {
    tb_lmPost(c, opt, s, it, res, tb_lmSystemSolve(s, it) == 0);
  }
  tb_lmEnd(s, it);
}

// A solve by one of the LM solvers in three parts, so that its iterations may run elsewhere:
// tb_lmStart sets the equation up on w from x and begins the driver, tb_lmIterate (or the
// phases of host/gpu/newton_phased.h) iterates, tb_lmFinish maps y back to the impulses x and does
// the final bookkeeping. solver: an MNCP or MLCP-FB solver; projected as tb_solveMNCP's.
typedef struct tbLmSolve {
  tbLm c;
  tbLmState s;
  tbLmIter it;
} tbLmSolve;

// 1 for the solvers of this file
TB_HD int tb_isLmSolver(int solver) {
  return solver == TB_SOLVER_MNCP_RLM || solver == TB_SOLVER_MNCP_PLM ||
         solver == TB_SOLVER_NCP_DOGLEG || solver == TB_SOLVER_MLCP_FB_RLM ||
         solver == TB_SOLVER_MLCP_FB_PLM || solver == TB_SOLVER_SOC_FB_PLM;
}

// `projected` of an LM solver chosen by name: the seed's PLM (QR directions) or RLM
TB_HD int tb_lmProjected(int solver) {
  if (solver == TB_SOLVER_SOC_FB_PLM) return TB_LM_PROJECTED_LU;
  return solver == TB_SOLVER_MNCP_PLM || solver == TB_SOLVER_MLCP_FB_PLM ? TB_LM_PROJECTED
                                                                         : TB_LM_REGULAR;
}

TB_HD int tb_lmDriver(int solver, int projected) {
  if (solver == TB_SOLVER_NCP_DOGLEG) return TB_LM_DOGLEG;
  return projected ? TB_LM_PLM : TB_LM_RLM;
}

// the MNCP's unknowns z from the impulses x: z = v - F with v ~ u = (A + cfm I) x + b, the
// exact inverse of F at a solution (a bounded box row's z = x - v, an equality's z = x)
TB_HD void tb_mncpStart(const tbProblem* p, double cfm, const double* x, tbLm* c, double* z) {
  tb_problemVelocity(p, x, c->us);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    for (int r = i; r < i + p->blk_dim[k]; r++) {
      double v = c->us[r] + cfm * x[r];
      if (p->blk_type[k] == TB_BLOCK_CONTACT) {
        z[r] = v - x[r];
      } else {
        z[r] = tb_isFree(p, r) ? x[r] : x[r] - v;
      }
    }
  }
}

TB_HD void tb_lmStart(const tbProblem* p, const tbSolverOpt* opt, const double* x, tbSolverWork* w,
                      int solver, int projected, tbLmSolve* ls, tbSolveResult* res) {
  memset(res, 0, sizeof(*res));
  tbLm* c = &ls->c;
  tbLmState* s = &ls->s;
  if (solver == TB_SOLVER_MLCP_FB_RLM || solver == TB_SOLVER_MLCP_FB_PLM) {
    memset(&ls->it, 0, sizeof(ls->it));
    if (tb_lmSetupFB(p, w, c, s) <= 0) {  // no unknowns
      c->kind = TB_LM_FB;
      res->reason = TB_STOP_CONVERGED;
      ls->it.done = 1;
      return;
    }
    if (projected == TB_LM_PROJECTED_LU) s->piv = c->start + p->n;  // past start (nblock <= n)
    tb_impulseToLCP(p, x, s->y, c->us, c->start);
  } else {
    int soc = solver == TB_SOLVER_SOC_FB_PLM;
    tb_lmSetupEquation(soc ? TB_LM_SOC_FB : TB_LM_MNCP, p, opt->cfm, w, c, s);
    if (projected == TB_LM_PROJECTED_LU) s->piv = w->i;  // n of the 2n ints tb_solverNeed gives
    if (soc) {
      memcpy(s->y, x, p->n * sizeof(double));  // SOC-FB's unknowns are the impulses
    } else {
      tb_mncpStart(p, opt->cfm, x, c, s->y);
    }
  }
  tb_lmBegin(c, opt, s, tb_lmDriver(solver, projected), &ls->it, res);
}

TB_HD void tb_lmFinish(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                       tbLmSolve* ls, tbSolveResult* res) {
  if (ls->c.kind == TB_LM_FB) {
    if (ls->c.n > 0) tb_lcpToImpulse(p, ls->s.y, x, ls->c.start);
    tb_finishSolve(p, opt, x, ls->c.n > 0 ? ls->c.xs : w->d, res);
    return;
  }
  tb_lmImpulse(&ls->c, ls->s.y, x);
  tb_finishSolve(p, opt, x, w->d, res);
}

TB_HDN void tb_lmSolve(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                       int solver, int projected, tbSolveResult* res) {
  tbLmSolve ls;
  tb_lmStart(p, opt, x, w, solver, projected, &ls, res);
  if (!ls.it.done) tb_lmIterate(&ls.c, opt, &ls.s, &ls.it, res);
  tb_lmFinish(p, opt, x, w, &ls, res);
}

TB_HD void tb_solveMNCP(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                        tbSolveResult* res, int projected) {
  tb_lmSolve(p, opt, x, w, projected ? TB_SOLVER_MNCP_PLM : TB_SOLVER_MNCP_RLM, projected, res);
}

TB_HD void tb_solveMLCPFB(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                          tbSolveResult* res, int projected) {
  tb_lmSolve(p, opt, x, w, projected ? TB_SOLVER_MLCP_FB_PLM : TB_SOLVER_MLCP_FB_RLM, projected,
             res);
}

#endif  // TUMBLE_HOST_SOLVER_LM_H_

// Levenberg-Marquardt fit of model parameters to an observed trajectory (the least-squares
// counterpart of the thesis' batch MPEC, ch. 7.4).
//
// Residuals: r(x) = H(F^{k_j}(x^0, x)) - y_j over every observation row j and column, m of them;
// x the estimated parameters (physical ones and, with --fit-state, the initial position and
// velocity), the others fixed. RSS = r^T r.
// Jacobian: central differences, J_k = (r(x + d_k e_k) - r(x - d_k e_k)) / (2 d_k) with
// d_k = rel_step max(|x_k|, 1), one-sided where a bound is closer than d_k (the pair is then
// (x, x - d_k e_k) or (x + d_k e_k, x)). Central rather than forward: the residual is piecewise
// smooth (contact), the O(d^2) error keeps J accurate to ~1e-12 at d = 1e-6 where a forward
// difference would leave ~1e-6, and the batch is 2p + 1 scenes instead of p + 1, which is free
// at these sizes. One batch per trial point: scene 0 is the trial point, scenes 1..p the plus
// and p+1..2p the minus perturbations, all rolled together by tb_obsRollout; an accepted trial
// already has its Jacobian.
// Step (Marquardt 1963): (J^T J + lambda D) dx = -J^T r, D = diag(J^T J) (floored at 1e-12 of its
// largest entry), x+ = P(x + dx), P the projection onto the bounds; lambda / 10 after a decrease
// of RSS, x 10 after an increase.
// Stop: RSS relative decrease < 1e-12, a step below 1e-10 max(|x_k|, 1), lambda > 1e12, RSS = 0,
// or max_iter trial points.
// Standard error: cov = s^2 (J^T J)^-1, s^2 = RSS / (m - p) (independent residuals of equal
// variance; the observation noise is not used as weights).
// Start scan (nscan > 0): a residual can be flat in a parameter far from the truth (the thesis
// particle stops at the landing and sticks for every mu > ~0.51, so the thesis start mu = 1 has
// J = 0). One batch holds the start and nscan values of each scanned parameter across its bounds
// (the others at the start): midpoints of nscan equal cells, or log-spaced from max(lo, 1e-3)
// when lo >= 0 and the range spans more than three decades. Each parameter takes its best value
// (exact when the residuals separate, as with one mu per particle); LM starts from that point, or
// from the best single scan point when that is better. With several scanned parameters the scan
// is repeated around the new point while it improves (at most 3 passes): mu and mass of the
// thesis particle trade off (friction force mu m g), and one pass from mass = 1 leaves mu in the
// sticking region.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tumble/estimate.h>
#include <tumble/sweep.h>

#include "math/dense.h"

#include "util/csv.h"
#include "util/error.h"

tbFitOpt tb_defaultFitOpt(void) {
  tbFitOpt o;
  memset(&o, 0, sizeof(o));
  o.nscan = 16;
  o.device = tb_getDevice();
  o.precision = tb_getPrecision();
  o.max_iter = 100;
  o.rel_step = 1e-6;
  return o;
}

void tb_freeFitResult(tbFitResult* r) {
  if (!r) return;
  free(r->x);
  free(r->se);
  memset(r, 0, sizeof(*r));
}

typedef struct tbFit {
  const tbModel* m;
  const double* param0;
  const tbObs* obs;
  const tbFitOpt* o;
  int p, mres;
  double *lo, *hi;  // (p) bounds, the open lower bound moved inside
  tbData* d;        // batch scenes (grown as needed)
  double* pred;     // (nscene x mres)
  int64_t scene_steps;
  int batches;
} tbFit;

static double tb_project(const tbFit* f, int k, double v) {
  return v < f->lo[k] ? f->lo[k] : v > f->hi[k] ? f->hi[k] : v;
}

// roll the points X (nb x p) through the observation times: pred gets (nb x mres)
static int tb_fitBatch(tbFit* f, const double* X, int nb) {
  const tbModel* m = f->m;
  if (!f->d || f->d->nscene != nb) {
    tb_freeData(f->d);
    free(f->pred);
    f->d = tb_newDataOn(m, nb, f->o->device, f->o->precision);
    f->pred = (double*)malloc(sizeof(double) * (size_t)nb * f->mres);
    if (!f->d || !f->pred) return tb_setError("fit: out of memory for %d scenes", nb);
  }
  for (int s = 0; s < nb; s++) {
    double* row = f->d->param + (size_t)s * m->nparam;
    memcpy(row, f->param0, sizeof(double) * m->nparam);
    for (int k = 0; k < f->p; k++) row[f->o->param[k]] = X[(size_t)s * f->p + k];
  }
  if (tb_checkParams(m, f->d) != TB_OK) return TB_ERR_ARG;
  const tbFitOpt* o = f->o;
  size_t nx = (size_t)nb * f->p, npred = (size_t)nb * f->mres;
  int got = o->memo ? o->memo(o->memo_ctx, X, nx, f->pred, npred, 0) : 0;
  if (got < 0) return TB_ERR_STATE;
  int rc = got ? TB_OK : tb_obsRollout(m, f->d, f->obs, f->pred);
  if (rc == TB_OK && !got && o->memo && o->memo(o->memo_ctx, X, nx, f->pred, npred, 1) < 0)
    return TB_ERR_STATE;
  f->batches++;
  f->scene_steps += (int64_t)nb * f->obs->step[f->obs->nrow - 1];
  return rc;
}

// RSS of batch scene s (inf when it failed)
static double tb_rss(const tbFit* f, int s, double* r) {
  const double* pr = f->pred + (size_t)s * f->mres;
  double rss = 0.0;
  for (int i = 0; i < f->mres; i++) {
    double e = pr[i] - f->obs->y[i];
    if (r) r[i] = e;
    rss += e * e;
  }
  return isfinite(rss) ? rss : INFINITY;
}

// the Jacobian batch around x: residuals r, Jacobian J (mres x p), RSS
static int tb_fitJacobian(tbFit* f, const double* x, double* r, double* J, double* rss) {
  int p = f->p, nb = 1 + 2 * p;
  double* X = (double*)malloc(sizeof(double) * nb * p);
  double* step = (double*)malloc(sizeof(double) * p);
  if (!X || !step) {
    free(X);
    free(step);
    return tb_setError("fit: out of memory");
  }
  for (int s = 0; s < nb; s++) memcpy(X + (size_t)s * p, x, sizeof(double) * p);
  for (int k = 0; k < p; k++) {
    double dk = f->o->rel_step * fmax(fabs(x[k]), 1.0);
    double xp = tb_project(f, k, x[k] + dk), xm = tb_project(f, k, x[k] - dk);
    X[(size_t)(1 + k) * p + k] = xp;
    X[(size_t)(1 + p + k) * p + k] = xm;
    step[k] = xp - xm;
  }
  int rc = tb_fitBatch(f, X, nb);
  if (rc == TB_OK) {
    *rss = tb_rss(f, 0, r);
    for (int k = 0; k < p; k++) {
      const double* a = f->pred + (size_t)(1 + k) * f->mres;
      const double* b = f->pred + (size_t)(1 + p + k) * f->mres;
      for (int i = 0; i < f->mres; i++) {
        J[(size_t)i * p + k] = step[k] > 0.0 ? (a[i] - b[i]) / step[k] : 0.0;
      }
    }
  }
  free(X);
  free(step);
  return rc;
}

static double tb_scanValue(double lo, double hi, int g, int n) {
  double t = (g + 0.5) / n;
  if (lo >= 0.0 && hi > 1e3 * fmax(lo, 1e-3)) {
    double a = fmax(lo, 1e-3);
    return a * pow(hi / a, t);
  }
  return lo + (hi - lo) * t;
}

// the start: x itself, or the best point of the scan (see the top of the file)
static int tb_fitScan(tbFit* f, double* x) {
  int p = f->p, G = f->o->nscan, ns = 0;
  int* on = (int*)calloc((size_t)p, sizeof(int));
  if (!on) return tb_setError("fit: out of memory");
  for (int k = 0; k < p; k++) {
    on[k] = (!f->o->scan || f->o->scan[k]) && isfinite(f->lo[k]) && isfinite(f->hi[k]) &&
            f->hi[k] - f->lo[k] < 1e12;
    ns += on[k];
  }
  int nb = 1 + G * ns, rc = TB_OK;
  double* X = ns && G > 0 ? (double*)malloc(sizeof(double) * nb * p) : NULL;
  if (!X) {
    free(on);
    return ns && G > 0 ? tb_setError("fit: out of memory") : TB_OK;
  }
  double* xc = (double*)malloc(sizeof(double) * p);
  if (!xc) rc = tb_setError("fit: out of memory");
  // coupled parameters: repeat the scan around the new point (a grid coordinate descent) while
  // it improves, at most 3 passes; one scanned parameter needs one pass
  for (int pass = 0; rc == TB_OK && pass < (ns > 1 ? 3 : 1); pass++) {
    for (int s = 0; s < nb; s++) memcpy(X + (size_t)s * p, x, sizeof(double) * p);
    for (int k = 0, s = 1; k < p; k++) {
      for (int g = 0; on[k] && g < G; g++, s++) {
        X[(size_t)s * p + k] = tb_project(f, k, tb_scanValue(f->lo[k], f->hi[k], g, G));
      }
    }
    if ((rc = tb_fitBatch(f, X, nb)) != TB_OK) break;
    double r0 = tb_rss(f, 0, NULL), best = r0;
    int bs = 0;
    for (int k = 0, s = 1; k < p; k++) {
      double bk = r0;
      xc[k] = x[k];
      for (int g = 0; on[k] && g < G; g++, s++) {
        double v = tb_rss(f, s, NULL);
        if (v < bk) {
          bk = v;
          xc[k] = X[(size_t)s * p + k];
        }
        if (v < best) {
          best = v;
          bs = s;
        }
      }
    }
    // the combined point, unless it is worse than the best single point
    if ((rc = tb_fitBatch(f, xc, 1)) != TB_OK) break;
    double rcmb = tb_rss(f, 0, NULL);
    double rnew = rcmb <= best ? rcmb : best;
    if (!(rnew < r0)) break;
    memcpy(x, rcmb <= best ? xc : X + (size_t)bs * p, sizeof(double) * p);
  }
  free(xc);
  free(X);
  free(on);
  return rc;
}

static int tb_fitCheck(const tbModel* m, const tbObs* obs, const tbFitOpt* o) {
  if (o->nest < 1) return tb_setError("params: at least one parameter to estimate");
  if (o->max_iter < 1) return tb_setError("max_iter %d must be >= 1", o->max_iter);
  if (!(o->rel_step > 0.0 && o->rel_step < 1.0)) {
    return tb_setError("rel_step %g must be in (0, 1)", o->rel_step);
  }
  if (o->nscan < 0) return tb_setError("scan %d must be >= 0", o->nscan);
  if ((int64_t)obs->nrow * obs->ncol <= o->nest) {
    return tb_setError("observations: %d residuals for %d parameters, need more",
                       obs->nrow * obs->ncol, o->nest);
  }
  for (int k = 0; k < o->nest; k++) {
    if (o->param[k] < 0 || o->param[k] >= m->nparam) {
      return tb_setError("params: index %d out of range", o->param[k]);
    }
    const tbParam* prm = &m->param[o->param[k]];
    if (!(o->lo[k] < o->hi[k]) || o->lo[k] < prm->lo || o->hi[k] > prm->hi) {
      return tb_setError("bounds %s: [%g, %g] must be an interval inside [%g, %g]", prm->name,
                         o->lo[k], o->hi[k], prm->lo, prm->hi);
    }
    if (!(o->init[k] >= o->lo[k] && o->init[k] <= o->hi[k]) ||
        (prm->lo_open && !(o->init[k] > prm->lo))) {
      return tb_setError("init %s=%g: outside its bounds [%g, %g]", prm->name, o->init[k], o->lo[k],
                         o->hi[k]);
    }
  }
  return TB_OK;
}

// standard errors from s^2 (J^T J)^-1
static void tb_fitSE(const tbFit* f, const double* J, double rss, double* se) {
  int p = f->p;
  double* A = (double*)malloc(sizeof(double) * p * p);
  double* e = (double*)malloc(sizeof(double) * p);
  for (int k = 0; k < p; k++) se[k] = NAN;
  if (A && e && f->mres > p) {
    tbu_gram(f->mres, p, J, A);
    if (!tbu_cholesky(p, A)) {
      double s2 = rss / (f->mres - p);
      for (int k = 0; k < p; k++) {
        memset(e, 0, sizeof(double) * p);
        e[k] = 1.0;
        tbu_cholSolve(p, A, e);
        se[k] = e[k] >= 0.0 ? sqrt(s2 * e[k]) : NAN;
      }
    }
  }
  free(A);
  free(e);
}

static void tb_fitLog(const tbFit* f, int trial, double lambda, double rss, int acc,
                      const double* x) {
  if (f->o->log) {
    fprintf(f->o->log, "%d,%d,%.6g,%.17g,%d", trial, f->batches, lambda, rss, acc);
    for (int k = 0; k < f->p; k++) fprintf(f->o->log, ",%.17g", x[k]);
    fputc('\n', f->o->log);
  }
  if (f->o->progress && isatty(fileno(stderr))) {  // the summary says where it ended
    fprintf(stderr, "\rfit: trial %d rss %.6g lambda %.3g %s %s %.9g   ", trial, rss, lambda,
            acc ? "accepted" : "rejected", f->m->param[f->o->param[0]].name, x[0]);
    fflush(stderr);
  }
}

int tb_fitLM(const tbModel* m, const double* param0, const tbObs* obs, const tbFitOpt* o,
             tbFitResult* res) {
  tb_clearError();
  memset(res, 0, sizeof(*res));
  if (tb_fitCheck(m, obs, o) != TB_OK) return TB_ERR_ARG;
  double t0 = omp_get_wtime();
  tbFit f;
  memset(&f, 0, sizeof(f));
  f.m = m;
  f.param0 = param0;
  f.obs = obs;
  f.o = o;
  f.p = o->nest;
  f.mres = obs->nrow * obs->ncol;
  int p = f.p, mr = f.mres, rc = TB_OK;
  size_t nJ = (size_t)mr * p;
  f.lo = (double*)malloc(sizeof(double) * p);
  f.hi = (double*)malloc(sizeof(double) * p);
  double* x = (double*)malloc(sizeof(double) * p);
  double* xn = (double*)malloc(sizeof(double) * p);
  double* dx = (double*)malloc(sizeof(double) * p);
  double* g = (double*)malloc(sizeof(double) * p);
  double* A = (double*)malloc(sizeof(double) * p * p);
  double* r = (double*)malloc(sizeof(double) * mr);
  double* rn = (double*)malloc(sizeof(double) * mr);
  double* J = (double*)malloc(sizeof(double) * nJ);
  double* Jn = (double*)malloc(sizeof(double) * nJ);
  res->nest = p;
  res->x = (double*)malloc(sizeof(double) * p);
  res->se = (double*)malloc(sizeof(double) * p);
  if (!f.lo || !f.hi || !x || !xn || !dx || !g || !A || !r || !rn || !J || !Jn || !res->x ||
      !res->se) {
    rc = tb_setError("fit: out of memory");
    goto done;
  }
  for (int k = 0; k < p; k++) {
    const tbParam* prm = &m->param[o->param[k]];
    f.lo[k] = prm->lo_open && !(o->lo[k] > prm->lo) ? nextafter(prm->lo, INFINITY) : o->lo[k];
    f.hi[k] = o->hi[k];
    x[k] = tb_project(&f, k, o->init[k]);
  }
  if (o->log) {
    fprintf(o->log, "trial,batch,lambda,rss,accepted");
    for (int k = 0; k < p; k++) {
      fputc(',', o->log);
      tb_csvField(o->log, m->param[o->param[k]].name);
    }
    fputc('\n', o->log);
  }
  if (o->nscan > 0 && (rc = tb_fitScan(&f, x)) != TB_OK) goto done;
  double rss = 0.0, lambda = 1e-3;
  if ((rc = tb_fitJacobian(&f, x, r, J, &rss)) != TB_OK) goto done;
  tb_fitLog(&f, 0, lambda, rss, 1, x);
  snprintf(res->reason, sizeof(res->reason), "max_iter");
  if (!(rss < INFINITY)) {
    snprintf(res->reason, sizeof(res->reason), "start failed");
    rc = tb_setError("fit: the scene fails at the start point");
    goto done;
  }
  for (int trial = 1; trial <= o->max_iter; trial++) {
    if (tb_interrupted()) {  // Ctrl-C: the last accepted point
      snprintf(res->reason, sizeof(res->reason), "interrupted");
      break;
    }
    if (rss == 0.0) {
      snprintf(res->reason, sizeof(res->reason), "rss zero");
      break;
    }
    tbu_gram(mr, p, J, A);
    tbu_matTVec(mr, p, J, r, g);
    double dmax = 0.0;
    for (int k = 0; k < p; k++) dmax = fmax(dmax, A[k * p + k]);
    if (!(dmax > 0.0)) {
      snprintf(res->reason, sizeof(res->reason), "flat residual");
      break;
    }
    for (int k = 0; k < p; k++) {
      A[k * p + k] += lambda * fmax(A[k * p + k], 1e-12 * dmax);
      dx[k] = -g[k];
    }
    if (tbu_cholesky(p, A)) {
      lambda *= 10.0;
      continue;
    }
    tbu_cholSolve(p, A, dx);
    double rel = 0.0;
    for (int k = 0; k < p; k++) {
      xn[k] = tb_project(&f, k, x[k] + dx[k]);
      rel = fmax(rel, fabs(xn[k] - x[k]) / fmax(fabs(x[k]), 1.0));
    }
    if (rel < 1e-10) {
      snprintf(res->reason, sizeof(res->reason), "small step");
      break;
    }
    double rssn = 0.0;
    if ((rc = tb_fitJacobian(&f, xn, rn, Jn, &rssn)) != TB_OK) goto done;
    int acc = rssn < rss;
    tb_fitLog(&f, trial, lambda, rssn, acc, xn);
    if (acc) {
      double dec = (rss - rssn) / rss;
      memcpy(x, xn, sizeof(double) * p);
      memcpy(r, rn, sizeof(double) * mr);
      memcpy(J, Jn, sizeof(double) * nJ);
      rss = rssn;
      res->iterations++;
      lambda = fmax(lambda / 10.0, 1e-12);
      if (dec < 1e-12) {
        snprintf(res->reason, sizeof(res->reason), "rss converged");
        break;
      }
    } else {
      lambda *= 10.0;
      if (lambda > 1e12) {
        snprintf(res->reason, sizeof(res->reason), "no decrease");
        break;
      }
    }
  }
  memcpy(res->x, x, sizeof(double) * p);
  if (o->progress && isatty(fileno(stderr))) fputc('\n', stderr);
  tb_fitSE(&f, J, rss, res->se);
  res->rss = rss;
  res->m = mr;
done:
  res->batches = f.batches;
  res->scene_steps = f.scene_steps;
  res->seconds = omp_get_wtime() - t0;
  tb_freeData(f.d);
  free(f.pred);
  free(f.lo);
  free(f.hi);
  free(x);
  free(xn);
  free(dx);
  free(g);
  free(A);
  free(r);
  free(rn);
  free(J);
  free(Jn);
  if (rc != TB_OK) tb_freeFitResult(res);
  return rc;
}

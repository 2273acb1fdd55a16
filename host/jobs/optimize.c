// Batched derivative-free minimizers: Nelder-Mead and CMA-ES (include/tumble/optimize.h).
#include <tumble/optimize.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include <tumble/sweep.h>

#include "math/rng.h"
#include "math/eigen.h"

tbOptimDef tb_defaultOptimDef(int dim) {
  tbOptimDef d;
  memset(&d, 0, sizeof d);
  d.dim = dim;
  d.max_evals = 2000 * (dim + 1);
  d.ftol = 1e-12;
  d.xtol = 1e-12;
  d.seed = 1;
  d.adaptive = 1;
  return d;
}

//---- shared run state --------------------------------------------------------------------------

typedef struct Run {
  const tbOptimDef* def;
  tbObjective obj;
  void* ctx;
  int dim;
  double *lo, *hi, *step;  // (dim) each, filled in (+-inf where no bound)
  double* xbest;           // caller's
  double fbest;
  int have_best;  // a finite f was seen
  int evals, calls, iter, history_len;
  double t0;
} Run;

static int validate(const tbOptimDef* def, tbObjective obj, const double* xbest) {
  if (!def || !obj || !xbest || def->dim < 1 || !def->x0 || def->max_evals < 1 ||
      def->max_iter < 0 || def->popsize < 0 || def->popsize == 1 || def->history_cap < 0 ||
      !(def->max_seconds >= 0) || (def->history_cap > 0 && !def->history))
    return 0;
  for (int i = 0; i < def->dim; i++) {
    double lo = def->lo ? def->lo[i] : -INFINITY, hi = def->hi ? def->hi[i] : INFINITY;
    if (isnan(lo) || isnan(hi) || lo > hi || !isfinite(def->x0[i])) return 0;
    if (def->step && !(def->step[i] > 0 && isfinite(def->step[i]))) return 0;
  }
  return 1;
}

static void clampBox(const Run* r, double* x) {
  for (int i = 0; i < r->dim; i++) {
    if (x[i] < r->lo[i]) x[i] = r->lo[i];
    if (x[i] > r->hi[i]) x[i] = r->hi[i];
  }
}

static int inBox(const Run* r, const double* x) {
  for (int i = 0; i < r->dim; i++)
    if (!(x[i] >= r->lo[i] && x[i] <= r->hi[i])) return 0;
  return 1;
}

// allocates lo, hi, step in one block; xbest := x0 projected, fbest = inf
static int runInit(Run* r, const tbOptimDef* def, tbObjective obj, void* ctx, double* xbest) {
  memset(r, 0, sizeof *r);
  r->def = def;
  r->obj = obj;
  r->ctx = ctx;
  r->dim = def->dim;
  r->t0 = omp_get_wtime();
  r->lo = (double*)malloc(sizeof(double) * 3 * (size_t)def->dim);
  if (!r->lo) return 0;
  r->hi = r->lo + def->dim;
  r->step = r->hi + def->dim;
  for (int i = 0; i < def->dim; i++) {
    r->lo[i] = def->lo ? def->lo[i] : -INFINITY;
    r->hi[i] = def->hi ? def->hi[i] : INFINITY;
    if (def->step)
      r->step[i] = def->step[i];
    else if (isfinite(r->lo[i]) && isfinite(r->hi[i]) && r->hi[i] > r->lo[i])
      r->step[i] = 0.1 * (r->hi[i] - r->lo[i]);
    else
      r->step[i] = 1.0;
  }
  r->xbest = xbest;
  memcpy(xbest, def->x0, sizeof(double) * (size_t)def->dim);
  clampBox(r, xbest);
  r->fbest = INFINITY;
  return 1;
}

// Evaluate n candidates (each already inside the box) into f, truncated to the budget left.
// Returns -1 when the whole batch was evaluated, else the stop reason (TB_OPTIM_MAXEVALS when
// truncated: the first `left` candidates were evaluated and their f are valid, the rest +inf;
// TB_OPTIM_ABORTED: nothing in f is valid).
static int evalBatch(Run* r, int n, const double* x, double* f) {
  int left = r->def->max_evals - r->evals;
  int m = n < left ? n : left;
  for (int k = m; k < n; k++) f[k] = INFINITY;
  if (m <= 0) return TB_OPTIM_MAXEVALS;
  r->evals += m;
  r->calls++;
  if (r->obj(r->ctx, m, x, f) != 0) return TB_OPTIM_ABORTED;
  for (int k = 0; k < m; k++) {
    if (!isfinite(f[k])) f[k] = INFINITY;
    if (f[k] < r->fbest) {
      r->fbest = f[k];
      r->have_best = 1;
      memcpy(r->xbest, x + (size_t)k * r->dim, sizeof(double) * (size_t)r->dim);
    }
  }
  return m < n ? TB_OPTIM_MAXEVALS : -1;
}

// progress and history after iteration r->iter; returns a stop reason (time, iterations,
// Ctrl-C) or -1
static int afterIter(Run* r) {
  double s = omp_get_wtime() - r->t0;
  const tbOptimDef* d = r->def;
  if (d->progress) d->progress(r->ctx, r->iter, r->evals, r->fbest, s);
  if (r->history_len < d->history_cap) {
    tbOptimTrace* t = &d->history[r->history_len++];
    t->iter = r->iter;
    t->evals = r->evals;
    t->best = r->fbest;
    t->seconds = s;
  }
  // rank 0's clock for every process of a share: they take the same steps
  if (d->max_seconds > 0 && tb_shareRoot(s >= d->max_seconds)) return TB_OPTIM_TIME;
  if (d->max_iter > 0 && r->iter >= d->max_iter) return TB_OPTIM_MAXITER;
  if (tb_interrupted()) return TB_OPTIM_INTERRUPTED;
  return -1;
}

static int runFinish(Run* r, int reason, tbOptimResult* res) {
  if (res) {
    res->f = r->fbest;
    res->iterations = r->iter;
    res->evaluations = r->evals;
    res->calls = r->calls;
    res->history_len = r->history_len;
    res->seconds = omp_get_wtime() - r->t0;
    res->reason = reason;
  }
  free(r->lo);
  return reason;
}

//---- Nelder-Mead -------------------------------------------------------------------------------

// stable insertion sort of the simplex rows (n1 rows of dim) by f; ties keep their order
static void nmSort(int n1, int dim, double* S, double* f, double* tmp) {
  for (int i = 1; i < n1; i++) {
    double fi = f[i];
    int j = i;
    if (!(f[j - 1] > fi)) continue;
    memcpy(tmp, S + (size_t)i * dim, sizeof(double) * (size_t)dim);
    while (j > 0 && f[j - 1] > fi) {
      f[j] = f[j - 1];
      memcpy(S + (size_t)j * dim, S + (size_t)(j - 1) * dim, sizeof(double) * (size_t)dim);
      j--;
    }
    f[j] = fi;
    memcpy(S + (size_t)j * dim, tmp, sizeof(double) * (size_t)dim);
  }
}

// replace the worst vertex (row n) by x with value fx and move it to its place: after every
// vertex with f <= fx (Lagarias et al.: a new vertex ranks after the ties)
static void nmInsert(int n, int dim, double* S, double* f, const double* x, double fx) {
  int j = n;
  while (j > 0 && f[j - 1] > fx) {
    f[j] = f[j - 1];
    memcpy(S + (size_t)j * dim, S + (size_t)(j - 1) * dim, sizeof(double) * (size_t)dim);
    j--;
  }
  f[j] = fx;
  memcpy(S + (size_t)j * dim, x, sizeof(double) * (size_t)dim);
}

int tb_nelderMead(const tbOptimDef* def, tbObjective obj, void* ctx, double* xbest,
                  tbOptimResult* res) {
  if (!validate(def, obj, xbest)) return -1;
  Run r;
  if (!runInit(&r, def, obj, ctx, xbest)) return -2;
  const int n = def->dim;
  const size_t nd = (size_t)n;
  double alpha = 1, beta = 2, gamma = 0.5, delta = 0.5;
  if (def->adaptive && n >= 3) {
    beta = 1 + 2.0 / n;
    gamma = 0.75 - 0.5 / n;
    delta = 1 - 1.0 / n;
  }
  // S: simplex (n + 1 rows), then xbar, xr, xt (trial), tmp; f: n + 1 values
  double* S = (double*)malloc(sizeof(double) * ((nd + 1) * nd + 4 * nd + nd + 1));
  if (!S) return runFinish(&r, -2, NULL);
  double *xbar = S + (nd + 1) * nd, *xr = xbar + nd, *xt = xr + nd, *tmp = xt + nd;
  double* f = tmp + nd;

  // initial simplex: x0 and x0 +- step_i e_i, one batch of n + 1
  memcpy(S, xbest, sizeof(double) * nd);
  for (int i = 0; i < n; i++) {
    double* v = S + (size_t)(i + 1) * nd;
    memcpy(v, S, sizeof(double) * nd);
    double s = r.step[i];
    v[i] = S[i] + s <= r.hi[i] ? S[i] + s : S[i] - s;
    if (v[i] < r.lo[i]) v[i] = r.lo[i];  // box narrower than the step: the far bound
    if (v[i] == S[i]) v[i] = S[i] + s <= r.hi[i] ? r.hi[i] : r.lo[i];
  }
  int reason = evalBatch(&r, n + 1, S, f);
  if (reason < 0) {
    nmSort(n + 1, n, S, f, tmp);
    reason = afterIter(&r);
  }
  while (reason < 0) {
    // convergence on the ordered simplex
    if (isfinite(f[n]) && f[n] - f[0] <= def->ftol) {
      reason = TB_OPTIM_CONVERGED;
      break;
    }
    double spread = 0;
    for (int i = 1; i <= n; i++)
      for (int j = 0; j < n; j++) spread = fmax(spread, fabs(S[i * nd + j] - S[j]));
    if (spread <= def->xtol) {
      reason = TB_OPTIM_CONVERGED;
      break;
    }
    if (r.evals >= def->max_evals) {
      reason = TB_OPTIM_MAXEVALS;
      break;
    }
    r.iter++;
    const double* xw = S + nd * nd;
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += S[i * nd + j];
      xbar[j] = s / n;
    }
    // reflection
    for (int j = 0; j < n; j++) xr[j] = xbar[j] + alpha * (xbar[j] - xw[j]);
    clampBox(&r, xr);
    double fr, ft;
    int shrink = 0;
    if ((reason = evalBatch(&r, 1, xr, &fr)) >= 0) goto iter_done;
    if (fr < f[0]) {
      // expansion
      for (int j = 0; j < n; j++) xt[j] = xbar[j] + alpha * beta * (xbar[j] - xw[j]);
      clampBox(&r, xt);
      if ((reason = evalBatch(&r, 1, xt, &ft)) >= 0) goto iter_done;
      if (ft < fr)
        nmInsert(n, n, S, f, xt, ft);
      else
        nmInsert(n, n, S, f, xr, fr);
    } else if (fr < f[n - 1]) {
      nmInsert(n, n, S, f, xr, fr);
    } else if (fr < f[n]) {
      // outside contraction
      for (int j = 0; j < n; j++) xt[j] = xbar[j] + alpha * gamma * (xbar[j] - xw[j]);
      clampBox(&r, xt);
      if ((reason = evalBatch(&r, 1, xt, &ft)) >= 0) goto iter_done;
      if (ft <= fr)
        nmInsert(n, n, S, f, xt, ft);
      else
        shrink = 1;
    } else {
      // inside contraction
      for (int j = 0; j < n; j++) xt[j] = xbar[j] - gamma * (xbar[j] - xw[j]);
      if ((reason = evalBatch(&r, 1, xt, &ft)) >= 0) goto iter_done;
      if (ft < f[n])
        nmInsert(n, n, S, f, xt, ft);
      else
        shrink = 1;
    }
    if (shrink) {
      for (int i = 1; i <= n; i++)
        for (int j = 0; j < n; j++) S[i * nd + j] = S[j] + delta * (S[i * nd + j] - S[j]);
      if ((reason = evalBatch(&r, n, S + nd, f + 1)) >= 0) goto iter_done;
      nmSort(n + 1, n, S, f, tmp);
    }
  iter_done:;
    int r2 = afterIter(&r);
    if (reason < 0) reason = r2;
  }
  free(S);
  return runFinish(&r, reason, res);
}

//---- CMA-ES ------------------------------------------------------------------------------------

#define CMA_TRIES 100  // draws per candidate before projection

// standard normal by Box-Muller from the draws (2 draw, 2 draw + 1) of (seed, generation)
static double gauss(uint64_t seed, uint64_t gen, uint64_t draw) {
  double u1 = tbu_uniform01(seed, gen, 2 * draw), u2 = tbu_uniform01(seed, gen, 2 * draw + 1);
  return sqrt(-2 * log(1 - u1)) * cos(2 * TB_PI * u2);
}

int tb_cmaes(const tbOptimDef* def, tbObjective obj, void* ctx, double* xbest, tbOptimResult* res) {
  if (!validate(def, obj, xbest) || def->dim >= (1 << 15)) return -1;
  Run r;
  if (!runInit(&r, def, obj, ctx, xbest)) return -2;
  const int n = def->dim;
  const size_t nd = (size_t)n;
  const int lambda = def->popsize > 0 ? def->popsize : 4 + (int)floor(3 * log((double)n));
  const int mu = lambda / 2;
  // strategy parameters (Hansen 2016, Table 1, positive weights only)
  double* w = (double*)malloc(sizeof(double) * (size_t)mu);
  if (!w) return runFinish(&r, -2, NULL);
  double wsum = 0, w2 = 0;
  for (int i = 0; i < mu; i++) wsum += w[i] = log((lambda + 1) / 2.0) - log(i + 1.0);
  for (int i = 0; i < mu; i++) {
    w[i] /= wsum;
    w2 += w[i] * w[i];
  }
  const double mueff = 1 / w2;
  const double cs = (mueff + 2) / (n + mueff + 5);
  const double ds = 1 + 2 * fmax(0, sqrt((mueff - 1) / (n + 1)) - 1) + cs;
  const double cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n);
  const double c1 = 2 / ((n + 1.3) * (n + 1.3) + mueff);
  const double cmu = fmin(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) * (n + 2) + mueff));
  const double chiN = sqrt((double)n) * (1 - 1.0 / (4 * n) + 1.0 / (21.0 * n * n));
  int gap = (int)floor(1 / (10 * n * (c1 + cmu)));
  if (gap < 1) gap = 1;
  const int hlen = 10 + (30 * n + lambda - 1) / lambda;

  // m, pc, ps, D, yw, tmp (n each); B, C, E (n x n); X, Y (lambda x n); f, idx (lambda); hist
  size_t need = 6 * nd + 3 * nd * nd + 2 * (size_t)lambda * nd + (size_t)lambda + (size_t)hlen;
  double* mem = (double*)malloc(sizeof(double) * need);
  int* idx = (int*)malloc(sizeof(int) * (size_t)lambda);
  if (!mem || !idx) {
    free(mem);
    free(idx);
    free(w);
    return runFinish(&r, -2, NULL);
  }
  double *m = mem, *pc = m + nd, *ps = pc + nd, *D = ps + nd, *yw = D + nd, *tmp = yw + nd;
  double *B = tmp + nd, *C = B + nd * nd, *E = C + nd * nd;
  double *X = E + nd * nd, *Y = X + (size_t)lambda * nd, *f = Y + (size_t)lambda * nd;
  double* hist = f + lambda;

  memcpy(m, xbest, sizeof(double) * nd);
  double sigma = 0;
  for (int i = 0; i < n; i++) sigma = fmax(sigma, r.step[i]);
  for (int i = 0; i < n; i++) {
    pc[i] = ps[i] = 0;
    D[i] = r.step[i] / sigma;
    for (int j = 0; j < n; j++) {
      B[i * nd + j] = i == j;
      C[i * nd + j] = i == j ? D[i] * D[i] : 0;
    }
  }
  int last_eigen = 0;
  int reason = -1;
  while (reason < 0) {
    if (r.evals >= def->max_evals) {
      reason = TB_OPTIM_MAXEVALS;
      break;
    }
    int g = ++r.iter;
    // sample: x = m + sigma B D z, redrawn while outside the box, then projected
    for (int k = 0; k < lambda; k++) {
      double *x = X + (size_t)k * nd, *y = Y + (size_t)k * nd;
      for (int attempt = 0; attempt < CMA_TRIES; attempt++) {
        uint64_t base = ((uint64_t)k << 32) | ((uint64_t)attempt << 16);
        for (int i = 0; i < n; i++) tmp[i] = D[i] * gauss(def->seed, (uint64_t)g, base | i);
        for (int i = 0; i < n; i++) {
          double s = 0;
          for (int j = 0; j < n; j++) s += B[i * nd + j] * tmp[j];
          y[i] = s;
          x[i] = m[i] + sigma * s;
        }
        if (inBox(&r, x)) break;
        if (attempt == CMA_TRIES - 1) {
          clampBox(&r, x);
          for (int i = 0; i < n; i++) y[i] = (x[i] - m[i]) / sigma;
        }
      }
    }
    if ((reason = evalBatch(&r, lambda, X, f)) >= 0) {
      afterIter(&r);
      break;
    }
    // rank (stable: ties keep the candidate order)
    for (int k = 0; k < lambda; k++) {
      int j = k;
      while (j > 0 && f[idx[j - 1]] > f[k]) {
        idx[j] = idx[j - 1];
        j--;
      }
      idx[j] = k;
    }
    // recombination
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = 0; k < mu; k++) s += w[k] * Y[(size_t)idx[k] * nd + i];
      yw[i] = s;
      m[i] += sigma * s;
    }
    // step-size path: C^-1/2 yw = B D^-1 B^T yw
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += B[i * nd + j] * yw[i];
      tmp[j] = D[j] > 0 ? s / D[j] : 0;
    }
    double psn = 0, cps = sqrt(cs * (2 - cs) * mueff);
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += B[i * nd + j] * tmp[j];
      ps[i] = (1 - cs) * ps[i] + cps * s;
      psn += ps[i] * ps[i];
    }
    psn = sqrt(psn);
    int hsig = psn / sqrt(1 - pow(1 - cs, 2.0 * g)) < (1.4 + 2.0 / (n + 1)) * chiN;
    double cpc = sqrt(cc * (2 - cc) * mueff);
    for (int i = 0; i < n; i++) pc[i] = (1 - cc) * pc[i] + (hsig ? cpc * yw[i] : 0);
    // covariance: rank-one and rank-mu
    double keep = 1 - c1 - cmu + (hsig ? 0 : c1 * cc * (2 - cc));
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        double s = 0;
        for (int k = 0; k < mu; k++) {
          const double* y = Y + (size_t)idx[k] * nd;
          s += w[k] * y[i] * y[j];
        }
        double c = keep * C[i * nd + j] + c1 * pc[i] * pc[j] + cmu * s;
        C[i * nd + j] = C[j * nd + i] = c;
      }
    }
    sigma *= exp(fmin(1, (cs / ds) * (psn / chiN - 1)));
    // eigendecomposition C = B diag(D^2) B^T
    if (g - last_eigen >= gap) {
      last_eigen = g;
      memcpy(E, C, sizeof(double) * nd * nd);
      tb_symEigen(n, E, tmp, B);
      double emax = 0, emin = INFINITY;
      for (int i = 0; i < n; i++) {
        emax = fmax(emax, tmp[i]);
        emin = fmin(emin, tmp[i]);
        D[i] = sqrt(fmax(tmp[i], 0));
      }
      if (!(emin > 0) || emax > 1e14 * emin) reason = TB_OPTIM_STALLED;
    }
    // termination
    double fmn = f[idx[0]], fmx = f[idx[lambda - 1]];
    hist[(g - 1) % hlen] = fmn;
    for (int i = 0; i < (g < hlen ? g : hlen); i++) {
      fmn = fmin(fmn, hist[i]);
      fmx = fmax(fmx, hist[i]);
    }
    if (reason < 0 && isfinite(fmx) && fmx - fmn <= def->ftol) reason = TB_OPTIM_CONVERGED;
    if (reason < 0) {
      double sx = 0;
      for (int i = 0; i < n; i++) sx = fmax(sx, sigma * fmax(sqrt(C[i * nd + i]), fabs(pc[i])));
      if (sx <= def->xtol) reason = TB_OPTIM_CONVERGED;
    }
    if (!isfinite(sigma) || sigma <= 0) reason = TB_OPTIM_STALLED;
    int r2 = afterIter(&r);
    if (reason < 0) reason = r2;
  }
  free(idx);
  free(mem);
  free(w);
  return runFinish(&r, reason, res);
}

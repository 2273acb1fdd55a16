// Particle filter for the static parameters of a deterministic contact model (thesis ch. 7).
//
// Model (thesis Eq. 7.4-7.5): x^{l+1} = F(x^l, p), y^l = H(x^l) + n^l, p constant, no process
// noise. Particle i is scene i of one tbData batch: its parameter row is the hypothesis p_i and
// its state is x_i = F^l(x^0, p_i). Between observation times every particle advances in one
// tb_rollout call.
//
// Weights (log form, normalized by the largest so that no weight underflows to a 0/0):
//   uniform noise +-eps:  w_i *= [ max_c |y_c - H_c(x_i)| <= eps ]                 (box)
//   Gaussian sigma:       w_i *= exp(-1/2 sum_c ((y_c - H_c(x_i)) / sigma)^2)
//   ESS = 1 / sum w_i^2 (normalized w).
// Resampling: systematic (one uniform per event) when ESS < N/2.
// Move: the Liu-West kernel (Liu & West 2001, "Combined parameter and state estimation in
// simulation-based filtering", Eq. 3.6-3.9) in the free coordinate z = T(p) of tb_toFree (logit
// of the prior's support, log of a half-line): z_i <- a z_A(i) + (1 - a) zbar + h L xi_i with
// a = (3 delta - 1) / (2 delta), h^2 = 1 - a^2, L L^T the weighted covariance of z before
// resampling, xi_i standard normal. Mean and covariance of the cloud are kept; p = T^-1(z) stays
// strictly inside the support without being clamped onto a bound.
//
// Replay (opt.replay, default on): the model has no process noise, so the state is a function of
// the parameters. After a move each particle's state is recomputed from t = 0 with its new
// parameters (reset + one rollout of the batch to the current step). Tried keeping the ancestor's
// state (the textbook Liu-West filter): a particle then carries the landing impulse of its old mu
// (vx off by ~6.7 m/s x dmu on the thesis §7.6.1.1 particle), and for small eps the cloud
// collapses onto a wrong value (bench_estimate section 3, seed 1: at eps = 5e-5, 77 of the 85
// observations after the landing gave every particle zero weight; at 5e-5 and 5e-4 the 90%
// interval misses the truth). With
// replay a move costs N x (current step) scene-steps (about 4.5x the filter's own steps there).
//
// Degenerate updates (tempering; Del Moral, Doucet & Jasra 2012 for the adaptive tolerance): when
// the full update would leave ESS < max(1, N/10) (in particular when every weight is zero) the
// observation is assimilated in stages. Box: the box is widened to the weighted median s of the
// particles' discrepancy max_c |y_c - H_c| / eps, the particles outside are dropped, and the
// cloud is resampled, moved and replayed; the box shrinks stage by stage until the exact box
// keeps ESS >= N/10. Gaussian: the likelihood is raised to the exponent phi that leaves
// ESS = N/2, the cloud is resampled and moved, and the rest of the exponent follows. After
// opt.max_stage stages, or when the box stops shrinking, the observation is taken at the widened
// box (reported in the result's tol and inexact).
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tumble/estimate.h>
#include <tumble/problem.h>
#include <tumble/sweep.h>

#include "math/rng.h"
#include "math/tb_math.h"

#include "util/error.h"
#include "engine/stage_probe.h"
#include "rollout/rollout.h"

tbPFOpt tb_defaultPFOpt(void) {
  tbPFOpt o;
  memset(&o, 0, sizeof(o));
  o.nparticle = 1000;
  o.device = tb_getDevice();
  o.precision = tb_getPrecision();
  o.delta = 0.98;
  o.replay = 1;
  o.max_stage = 64;
  return o;
}

void tb_freePFResult(tbPFResult* r) {
  if (!r) return;
  free(r->mean);
  free(r->std);
  free(r->q05);
  free(r->q50);
  free(r->q95);
  free(r->ess);
  free(r->stages);
  free(r->tol);
  free(r->zero);
  free(r->resampled);
  free(r->failed);
  memset(r, 0, sizeof(*r));
}

//---- counter-based draws -----------------------------------------------------------------------

enum { TB_DRAW_PRIOR = 1, TB_DRAW_RESAMPLE = 2, TB_DRAW_MOVE = 3 };

// the draw index of (purpose, event, k): disjoint streams for every use
static uint64_t tb_draw(int purpose, int64_t event, int k) {
  return ((uint64_t)purpose << 56) | ((uint64_t)event << 20) | (uint64_t)k;
}

// uniform in (0, 1): never exactly 0, so logs and logits stay finite
static double tb_open01(uint64_t seed, uint64_t i, uint64_t draw) {
  return tbu_uniform01(seed, i, draw) + 0x1p-54;
}

static double tb_normal(uint64_t seed, uint64_t i, int purpose, int64_t event, int k) {
  double u1 = tb_open01(seed, i, tb_draw(purpose, event, 2 * k));
  double u2 = tbu_uniform01(seed, i, tb_draw(purpose, event, 2 * k + 1));
  return sqrt(-2.0 * log(u1)) * cos(2.0 * TB_PI * u2);
}

//---- filter state ------------------------------------------------------------------------------

typedef struct tbPF {
  const tbModel* m;
  const tbObs* obs;
  const tbPFOpt* o;
  int N, p;
  tbData *d, *d2;      // particles, and the buffer resampling copies into
  double *lo, *hi;     // (p) prior supports
  double* logw;        // (N) log weights, max 0
  double* w;           // (N) normalized weights
  double* dis;         // (N) box discrepancy max_c |e_c| / eps (inf for a failed particle)
  double* ell;         // (N) Gaussian log-likelihood of the current row (-inf when failed)
  double* z;           // (N x p) free coordinates of the parameters
  int* anc;            // (N)
  int* order;          // (N) sort scratch
  double *V, *L, *zb;  // (p x p), (p x p), (p)
  int at;              // step every particle is at
  int64_t event;       // resampling events so far
  int64_t scene_steps;
  double checkpointed;  // when the last checkpoint was made (tb_clock)
} tbPF;

//---- checkpoints -------------------------------------------------------------------------------

// the filter's state after observation r beyond its particles' scenes: (where, bytes) sections
// of a checkpoint, in order; returns their count
typedef struct tbPFSection {
  void* at;
  size_t bytes;
} tbPFSection;

static int tb_pfSections(tbPF* f, tbPFResult* res, int r, tbPFSection* s) {
  size_t N = (size_t)f->N, rows = (size_t)r + 1, rp = rows * (size_t)f->p;
  tbPFSection t[] = {{&f->at, sizeof(f->at)},
                     {&f->event, sizeof(f->event)},
                     {&f->scene_steps, sizeof(f->scene_steps)},
                     {&res->resamples, sizeof(res->resamples)},
                     {&res->zero_events, sizeof(res->zero_events)},
                     {&res->inexact, sizeof(res->inexact)},
                     {f->z, sizeof(double) * N * (size_t)f->p},
                     {f->logw, sizeof(double) * N},
                     {f->w, sizeof(double) * N},
                     {res->mean, sizeof(double) * rp},
                     {res->std, sizeof(double) * rp},
                     {res->q05, sizeof(double) * rp},
                     {res->q50, sizeof(double) * rp},
                     {res->q95, sizeof(double) * rp},
                     {res->ess, sizeof(double) * rows},
                     {res->tol, sizeof(double) * rows},
                     {res->stages, sizeof(int) * rows},
                     {res->zero, sizeof(int) * rows},
                     {res->resampled, sizeof(int) * rows},
                     {res->failed, sizeof(int) * rows}};
  memcpy(s, t, sizeof(t));
  return (int)(sizeof(t) / sizeof(t[0]));
}

// a checkpoint: the head (r, N, p), the sections, then every particle's scene packed
typedef struct tbPFHead {
  int r, N, p, nrow;
} tbPFHead;

static size_t tb_pfCheckpointBytes(tbPF* f, tbPFResult* res, int r, tbPFSection* s, int* ns) {
  *ns = tb_pfSections(f, res, r, s);
  size_t bytes = sizeof(tbPFHead) + tb_packedBytes(f->m, NULL, NULL) * (size_t)f->N;
  for (int k = 0; k < *ns; k++) bytes += s[k].bytes;
  return bytes;
}

static int tb_pfCheckpoint(tbPF* f, tbPFResult* res, int r, int stop) {
  tbPFSection s[32];
  int ns;
  size_t len = tb_pfCheckpointBytes(f, res, r, s, &ns);
  char* buf = (char*)calloc(len, 1);  // zeroed: a scene's padding is part of the bytes kept
  if (!buf) return tb_setError("pf: out of memory for a checkpoint of %zu bytes", len);
  tbPFHead head = {r, f->N, f->p, f->obs->nrow};
  char* at = buf;
  memcpy(at, &head, sizeof(head));
  at += sizeof(head);
  for (int k = 0; k < ns; at += s[k].bytes, k++) memcpy(at, s[k].at, s[k].bytes);
  int bad = tb_packScenes(f->m, f->d, 0, f->N, NULL, NULL, at, 1) != TB_OK ||
            f->o->checkpoint(f->o->checkpoint_ctx, r, stop, buf, len);
  free(buf);
  return bad ? tb_setError("pf: the checkpoint after observation %d was not kept", r + 1) : TB_OK;
}

// the state of checkpoint bytes into f and res: the observation it was taken after, or -1 after
// an error (a checkpoint of another filter)
static int tb_pfRestore(tbPF* f, tbPFResult* res, const char* bytes, size_t len) {
  tbPFHead head;
  if (len < sizeof(head)) {
    tb_setError("pf: a checkpoint of %zu bytes is cut", len);
    return -1;
  }
  memcpy(&head, bytes, sizeof(head));
  tbPFSection s[32];
  int ns;
  if (head.N != f->N || head.p != f->p || head.nrow != f->obs->nrow || head.r < 0 ||
      head.r + 1 >= f->obs->nrow || tb_pfCheckpointBytes(f, res, head.r, s, &ns) != len) {
    tb_setError("pf: the checkpoint is of another filter (particles, parameters or observations)");
    return -1;
  }
  const char* at = bytes + sizeof(head);
  for (int k = 0; k < ns; at += s[k].bytes, k++) memcpy(s[k].at, at, s[k].bytes);
  return tb_packScenes(f->m, f->d, 0, f->N, NULL, NULL, (char*)at, 0) == TB_OK ? head.r : -1;
}

// normalize: logw max 0, w sums to 1; returns ESS (0 when every weight is zero)
static double tb_normalize(int N, double* logw, double* w) {
  double mx = -INFINITY;
  for (int i = 0; i < N; i++) mx = logw[i] > mx ? logw[i] : mx;
  if (!(mx > -INFINITY)) {
    for (int i = 0; i < N; i++) w[i] = 0.0;
    return 0.0;
  }
  double s = 0.0, s2 = 0.0;
  for (int i = 0; i < N; i++) {
    logw[i] -= mx;
    w[i] = exp(logw[i]);
    s += w[i];
  }
  for (int i = 0; i < N; i++) {
    w[i] /= s;
    s2 += w[i] * w[i];
  }
  return 1.0 / s2;
}

// ESS of the weights logw + add (without changing logw)
static double tb_essOf(const tbPF* f, const double* add, double scale, double* tmpw) {
  double mx = -INFINITY;
  for (int i = 0; i < f->N; i++) {
    double v = f->logw[i] + scale * add[i];
    if (isnan(v)) v = -INFINITY;
    tmpw[i] = v;
    mx = v > mx ? v : mx;
  }
  if (!(mx > -INFINITY)) return 0.0;
  double s = 0.0, s2 = 0.0;
  for (int i = 0; i < f->N; i++) {
    double e = exp(tmpw[i] - mx);
    s += e;
    s2 += e * e;
  }
  return s * s / s2;
}

// discrepancies of every particle against row r
static void tb_pfMeasure(tbPF* f, int r) {
  const tbObs* obs = f->obs;
  const double* y = obs->y + (size_t)r * obs->ncol;
  double sc = f->o->noise.scale;
  for (int i = 0; i < f->N; i++) {
    int failed = (f->d->status[i] & TB_SCENE_FAILMASK) != 0;
    double dmax = 0.0, q = 0.0;
    for (int c = 0; c < obs->ncol && !failed; c++) {
      double e = (y[c] - tb_obsCoordValue(f->m, f->d, i, &obs->coord[c])) / sc;
      if (!isfinite(e)) failed = 1;
      dmax = fabs(e) > dmax ? fabs(e) : dmax;
      q += e * e;
    }
    f->dis[i] = failed ? INFINITY : dmax;
    f->ell[i] = failed ? -INFINITY : -0.5 * q;
  }
}

// the box test: the written observation is exact (%.17g), 1e-9 covers the rounding of y - H
#define TB_BOX_SLACK (1.0 + 1e-9)

// lower-triangular L with L L^T = V for a positive semi-definite V: a pivot <= 0 gives a zero
// column (no spread in that direction)
static void tb_cholSemi(int p, const double* V, double* L) {
  memset(L, 0, sizeof(double) * p * p);
  for (int j = 0; j < p; j++) {
    double dj = V[j * p + j];
    for (int k = 0; k < j; k++) dj -= L[j * p + k] * L[j * p + k];
    if (!(dj > 1e-300)) continue;
    double l = sqrt(dj);
    L[j * p + j] = l;
    for (int i = j + 1; i < p; i++) {
      double s = V[i * p + j];
      for (int k = 0; k < j; k++) s -= L[i * p + k] * L[j * p + k];
      L[i * p + j] = s / l;
    }
  }
}

static int tb_pfReplay(tbPF* f) {
  if (tb_resetData(f->m, f->d) != TB_OK) return TB_ERR_ARG;
  if (f->at > 0) {
    int rc = tb_rollout(f->m, f->d, 0, f->N, f->at, NULL);
    if (rc != TB_OK) return rc;
    f->scene_steps += (int64_t)f->N * f->at;
  }
  return TB_OK;
}

// systematic resampling by w, then the Liu-West move, then (opt.replay) the replay
static int tb_pfResampleMove(tbPF* f) {
  int N = f->N, p = f->p, np = f->m->nparam;
  const tbPFOpt* o = f->o;
  double delta = o->delta, a = (3.0 * delta - 1.0) / (2.0 * delta), h = sqrt(1.0 - a * a);
  // kernel moments in the free coordinates, from the weighted cloud
  for (int k = 0; k < p; k++) {
    double s = 0.0;
    for (int i = 0; i < N; i++) s += f->w[i] * f->z[(size_t)i * p + k];
    f->zb[k] = s;
  }
  for (int k = 0; k < p; k++) {
    for (int l = 0; l <= k; l++) {
      double s = 0.0;
      for (int i = 0; i < N; i++) {
        s += f->w[i] * (f->z[(size_t)i * p + k] - f->zb[k]) * (f->z[(size_t)i * p + l] - f->zb[l]);
      }
      f->V[k * p + l] = f->V[l * p + k] = s;
    }
  }
  tb_cholSemi(p, f->V, f->L);
  // systematic: one uniform, N evenly spaced points through the cumulative weights
  double u = tb_open01(o->seed, 0, tb_draw(TB_DRAW_RESAMPLE, f->event, 0)) / N, c = f->w[0];
  for (int i = 0, j = 0; i < N; i++) {
    double pt = u + (double)i / N;
    while (pt > c && j < N - 1) c += f->w[++j];
    // never an ancestor of zero weight (rounding at the end of the cumulative sum)
    int pick = j;
    while (pick > 0 && f->w[pick] == 0.0) pick--;
    while (pick < N - 1 && f->w[pick] == 0.0) pick++;
    f->anc[i] = pick;
  }
  double* znew = (double*)malloc(sizeof(double) * (size_t)N * p);
  double* xi = (double*)malloc(sizeof(double) * p);
  if (!znew || !xi) {
    free(znew);
    free(xi);
    return tb_setError("pf: out of memory");
  }
  for (int i = 0; i < N; i++) {
    int A = f->anc[i];
    tb_copyScene(f->m, f->d, A, f->d2, i);
    for (int k = 0; k < p; k++) xi[k] = tb_normal(o->seed, (uint64_t)i, TB_DRAW_MOVE, f->event, k);
    for (int k = 0; k < p; k++) {
      double s = a * f->z[(size_t)A * p + k] + (1.0 - a) * f->zb[k];
      for (int l = 0; l <= k; l++) s += h * f->L[k * p + l] * xi[l];
      znew[(size_t)i * p + k] = s;
    }
    for (int k = 0; k < p; k++) {
      const tbParam* prm = &f->m->param[o->param[k]];
      double x = tb_fromFree(znew[(size_t)i * p + k], f->lo[k], f->hi[k]);
      // an underflowed logistic would land on the bound itself: step inside (lo open only)
      if (prm->lo_open && !(x > prm->lo)) x = nextafter(prm->lo, INFINITY);
      f->d2->param[(size_t)i * np + o->param[k]] = x;
    }
  }
  memcpy(f->z, znew, sizeof(double) * (size_t)N * p);
  free(znew);
  free(xi);
  tbData* t = f->d;
  f->d = f->d2;
  f->d2 = t;
  for (int i = 0; i < N; i++) f->logw[i] = 0.0;
  tb_normalize(N, f->logw, f->w);
  f->event++;
  return o->replay ? tb_pfReplay(f) : TB_OK;
}

// sort idx[0..n) by (key, index): a total order, so the result does not depend on the sort
static _Thread_local const double* tb_sortKey;
static int tb_cmpKey(const void* pa, const void* pb) {
  int a = *(const int*)pa, b = *(const int*)pb;
  double ka = tb_sortKey[a], kb = tb_sortKey[b];
  if (ka < kb) return -1;
  if (ka > kb) return 1;
  return (a > b) - (a < b);
}

static void tb_sortBy(const double* key, int* idx, int n) {
  tb_sortKey = key;
  qsort(idx, (size_t)n, sizeof(int), tb_cmpKey);
}

// weighted median of the discrepancy over particles of nonzero weight
static double tb_medianDis(tbPF* f) {
  int n = 0;
  for (int i = 0; i < f->N; i++) {
    if (f->w[i] > 0.0) f->order[n++] = i;
  }
  tb_sortBy(f->dis, f->order, n);
  const double* key = f->dis;
  double c = 0.0;
  for (int k = 0; k < n; k++) {
    c += f->w[f->order[k]];
    if (c >= 0.5) return key[f->order[k]];
  }
  return n ? key[f->order[n - 1]] : INFINITY;
}

// assimilate row r (the particles are at its step); returns TB_OK or an error
static int tb_pfAssimilate(tbPF* f, int r, tbPFResult* res) {
  int N = f->N, box = f->o->noise.kind == TB_NOISE_UNIFORM;
  double nmin = N / 10 > 1 ? N / 10 : 1, rho = 1.0, tol = 1.0, prev_s = INFINITY;
  double* add = (double*)malloc(sizeof(double) * N);
  double* tmp = (double*)malloc(sizeof(double) * N);
  if (!add || !tmp) {
    free(add);
    free(tmp);
    return tb_setError("pf: out of memory");
  }
  int rc = TB_OK, stage = 0;
  res->zero[r] = 0;
  for (;;) {
    stage++;
    tb_pfMeasure(f, r);
    for (int i = 0; i < N; i++) {
      add[i] = box ? (f->dis[i] <= TB_BOX_SLACK ? 0.0 : -INFINITY) : rho * f->ell[i];
    }
    double ess = tb_essOf(f, add, 1.0, tmp);
    if (stage == 1 && ess == 0.0) {
      res->zero[r] = 1;
      res->zero_events++;
    }
    if (ess >= nmin || stage >= f->o->max_stage) {
      if (ess > 0.0) {
        for (int i = 0; i < N; i++) f->logw[i] += add[i];
        tol = 1.0;
      } else {
        res->inexact++;  // kept at the last stage's widened box (or every particle failed)
      }
      break;
    }
    // one stage: a partial update that leaves about half the weight
    if (box) {
      double s = tb_medianDis(f);
      if (!(s < INFINITY) || s >= prev_s) {
        res->inexact++;  // the box stopped shrinking (or nothing finite is left)
        break;
      }
      if (s < TB_BOX_SLACK) s = TB_BOX_SLACK;
      prev_s = s;
      tol = s;
      for (int i = 0; i < N; i++) f->logw[i] += f->dis[i] <= s ? 0.0 : -INFINITY;
    } else {
      double lo = 0.0, hi = rho, target = 0.5 * N;
      for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (tb_essOf(f, f->ell, mid, tmp) >= target) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      if (!(lo > 1e-12 * rho)) {
        for (int i = 0; i < N; i++) f->logw[i] += add[i];  // no smaller step helps: take it all
        tol = 1.0;
        break;
      }
      for (int i = 0; i < N; i++) f->logw[i] += lo * f->ell[i];
      rho -= lo;
      tol = 1.0 - rho;
    }
    tb_normalize(N, f->logw, f->w);
    res->resamples++;
    if ((rc = tb_pfResampleMove(f)) != TB_OK) break;
  }
  res->stages[r] = stage;
  res->tol[r] = tol;
  free(add);
  free(tmp);
  return rc;
}

// posterior summaries of row r from the normalized weights
static void tb_pfSummary(tbPF* f, int r, tbPFResult* res) {
  int N = f->N, p = f->p, np = f->m->nparam;
  double* x = (double*)malloc(sizeof(double) * N);
  for (int k = 0; k < p && x; k++) {
    double mean = 0.0, var = 0.0;
    for (int i = 0; i < N; i++) {
      x[i] = f->d->param[(size_t)i * np + f->o->param[k]];
      mean += f->w[i] * x[i];
    }
    for (int i = 0; i < N; i++) var += f->w[i] * (x[i] - mean) * (x[i] - mean);
    // weighted quantiles: sort by (value, index)
    for (int i = 0; i < N; i++) f->order[i] = i;
    tb_sortBy(x, f->order, N);
    const double qs[3] = {0.05, 0.5, 0.95};
    double* out[3] = {res->q05, res->q50, res->q95};
    double c = 0.0;
    int q = 0;
    for (int j = 0; j < N && q < 3; j++) {
      c += f->w[f->order[j]];
      while (q < 3 && c >= qs[q]) out[q++][(size_t)r * p + k] = x[f->order[j]];
    }
    while (q < 3) out[q++][(size_t)r * p + k] = x[f->order[N - 1]];
    res->mean[(size_t)r * p + k] = mean;
    res->std[(size_t)r * p + k] = sqrt(var);
  }
  free(x);
}

static int tb_pfAlloc(tbPF* f, tbPFResult* res, int nrow) {
  int N = f->N, p = f->p;
  f->lo = (double*)malloc(sizeof(double) * p);
  f->hi = (double*)malloc(sizeof(double) * p);
  f->logw = (double*)malloc(sizeof(double) * N);
  f->w = (double*)malloc(sizeof(double) * N);
  f->dis = (double*)malloc(sizeof(double) * N);
  f->ell = (double*)malloc(sizeof(double) * N);
  f->z = (double*)malloc(sizeof(double) * (size_t)N * p);
  f->anc = (int*)malloc(sizeof(int) * N);
  f->order = (int*)malloc(sizeof(int) * N);
  f->V = (double*)malloc(sizeof(double) * p * p);
  f->L = (double*)malloc(sizeof(double) * p * p);
  f->zb = (double*)malloc(sizeof(double) * p);
  size_t rp = (size_t)nrow * p;
  res->nrow = nrow;
  res->nest = p;
  res->mean = (double*)calloc(rp, sizeof(double));
  res->std = (double*)calloc(rp, sizeof(double));
  res->q05 = (double*)calloc(rp, sizeof(double));
  res->q50 = (double*)calloc(rp, sizeof(double));
  res->q95 = (double*)calloc(rp, sizeof(double));
  res->ess = (double*)calloc(nrow, sizeof(double));
  res->stages = (int*)calloc(nrow, sizeof(int));
  res->tol = (double*)calloc(nrow, sizeof(double));
  res->zero = (int*)calloc(nrow, sizeof(int));
  res->resampled = (int*)calloc(nrow, sizeof(int));
  res->failed = (int*)calloc(nrow, sizeof(int));
  return f->lo && f->hi && f->logw && f->w && f->dis && f->ell && f->z && f->anc && f->order &&
                 f->V && f->L && f->zb && res->mean && res->std && res->q05 && res->q50 &&
                 res->q95 && res->ess && res->stages && res->tol && res->zero && res->resampled &&
                 res->failed
             ? TB_OK
             : TB_ERR_MEMORY;
}

static void tb_pfFree(tbPF* f) {
  tb_freeData(f->d);
  tb_freeData(f->d2);
  free(f->lo);
  free(f->hi);
  free(f->logw);
  free(f->w);
  free(f->dis);
  free(f->ell);
  free(f->z);
  free(f->anc);
  free(f->order);
  free(f->V);
  free(f->L);
  free(f->zb);
}

// a draw from prior k for particle i: uniform on its support, or the Gaussian truncated to it
// (rejection on successive draws of the particle's stream)
static int tb_priorDraw(const tbPFOpt* o, int k, int i, double lo, double hi, double* x) {
  const tbPrior* pr = &o->prior[k];
  if (pr->kind == TB_PRIOR_UNIFORM) {
    double u = tb_open01(o->seed, (uint64_t)i, tb_draw(TB_DRAW_PRIOR, 0, k));
    *x = lo + (hi - lo) * u;
    // strictly inside, so that the free coordinate is finite
    if (!(*x > lo)) *x = nextafter(lo, hi);
    if (!(*x < hi)) *x = nextafter(hi, lo);
    return TB_OK;
  }
  for (int t = 0; t < 1000; t++) {
    double v = pr->a + pr->b * tb_normal(o->seed, (uint64_t)i, TB_DRAW_PRIOR, t + 1, k);
    if (v > lo && v < hi) {
      *x = v;
      return TB_OK;
    }
  }
  return tb_setError("prior %d: gauss:%g:%g has almost no mass inside [%g, %g]", k, pr->a, pr->b,
                     lo, hi);
}

static int tb_pfCheck(const tbModel* m, const tbObs* obs, const tbPFOpt* o) {
  if (o->nparticle < 1) return tb_setError("particles %d must be >= 1", o->nparticle);
  if (o->nest < 1) return tb_setError("params: at least one parameter to estimate");
  if (o->noise.kind != TB_NOISE_UNIFORM && o->noise.kind != TB_NOISE_GAUSS) {
    return tb_setError("noise: the filter needs uniform:EPS or gauss:SIGMA");
  }
  if (!(o->noise.scale > 0.0) || !isfinite(o->noise.scale)) {
    return tb_setError("noise: scale %g must be finite and > 0", o->noise.scale);
  }
  if (!(o->delta > 1.0 / 3.0 && o->delta <= 1.0)) {
    return tb_setError("delta %g must be in (1/3, 1]", o->delta);
  }
  if (o->max_stage < 1) return tb_setError("max_stage %d must be >= 1", o->max_stage);
  if (obs->nrow < 1 || obs->ncol < 1) return tb_setError("observations: none");
  for (int k = 0; k < o->nest; k++) {
    if (o->param[k] < 0 || o->param[k] >= m->nparam) {
      return tb_setError("params: index %d out of range", o->param[k]);
    }
  }
  return TB_OK;
}

// redrawn on a terminal every quarter second; the last observation's line (final) alone on
// other streams
static void tb_pfProgress(const tbPF* f, int r, const tbPFResult* res, double t0, double* last,
                          int final) {
  double now = omp_get_wtime();
  int tty = isatty(fileno(stderr));
  if (!f->o->progress || (!final && (!tty || now - *last < 0.25))) return;
  *last = now;
  fprintf(stderr, "%spf: observation %d/%d t=%.4g ESS %.0f/%d %s %.6g +- %.3g (%.1f s)%s",
          tty ? "\r" : "", r + 1, f->obs->nrow, f->obs->t[r], res->ess[r], f->N,
          f->m->param[f->o->param[0]].name, res->mean[(size_t)r * f->p], res->std[(size_t)r * f->p],
          now - t0, final ? "\n" : "");
  fflush(stderr);
}

// the particles that failed from step `from` on (in the interval just rolled), into t: a failed
// particle stays failed until resampling replaces it, and is counted once
static void tb_pfTallyFails(const tbPF* f, int from, tbFailTally* t) {
  for (int i = 0; i < f->N; i++) {
    if ((f->d->status[i] & TB_SCENE_FAILMASK) && f->d->fail_step[i] >= from)
      tb_failTallyAdd(t, f->d->status[i], f->d->resid_max[i], i);
  }
}

// the final cloud's particles whose steps ended above the solver's tolerance, into t: the
// warning bit stays set over the run, so counting it after each interval would count a particle
// again each time
static void tb_pfTallyUnconverged(const tbPF* f, tbFailTally* t) {
  for (int i = 0; i < f->N; i++) {
    if (!(f->d->status[i] & TB_SCENE_FAILMASK))
      tb_failTallyAdd(t, f->d->status[i], f->d->resid_max[i], i);
  }
}

int tb_particleFilter(const tbModel* m, const double* param0, const tbObs* obs, const tbPFOpt* o,
                      tbPFResult* res) {
  tb_clearError();
  memset(res, 0, sizeof(*res));
  if (tb_pfCheck(m, obs, o) != TB_OK) return TB_ERR_ARG;
  double t0 = omp_get_wtime(), last = t0;
  tbPF f;
  memset(&f, 0, sizeof(f));
  f.m = m;
  f.obs = obs;
  f.o = o;
  f.N = o->nparticle;
  f.p = o->nest;
  int rc = tb_pfAlloc(&f, res, obs->nrow);
  if (rc == TB_OK) {
    f.d = tb_newDataOn(m, f.N, o->device, o->precision);
    f.d2 = f.d ? tb_newDataOn(m, f.N, o->device, o->precision) : NULL;
    if (!f.d2) rc = TB_ERR_MEMORY;
  }
  if (rc != TB_OK) {
    if (!tb_lastError()[0]) tb_setError("pf: out of memory for %d particles", f.N);
    goto done;
  }
  for (int k = 0; k < f.p && rc == TB_OK; k++) {
    rc = tb_priorSupport(m, o->param[k], &o->prior[k], &f.lo[k], &f.hi[k]);
  }
  // the prior cloud: row param0 with the estimated entries drawn
  for (int i = 0; i < f.N && rc == TB_OK; i++) {
    memcpy(f.d->param + (size_t)i * m->nparam, param0, sizeof(double) * m->nparam);
    for (int k = 0; k < f.p && rc == TB_OK; k++) {
      double x = 0.0;
      rc = tb_priorDraw(o, k, i, f.lo[k], f.hi[k], &x);
      f.d->param[(size_t)i * m->nparam + o->param[k]] = x;
      f.z[(size_t)i * f.p + k] = tb_toFree(x, f.lo[k], f.hi[k]);
    }
  }
  if (rc == TB_OK && (rc = tb_checkParams(m, f.d)) == TB_OK) rc = tb_resetData(m, f.d);
  if (rc != TB_OK) goto done;
  for (int i = 0; i < f.N; i++) f.logw[i] = 0.0;
  tb_normalize(f.N, f.logw, f.w);
  f.checkpointed = tb_clock();
  int r0 = 0;  // the first observation to take: after a checkpoint's
  if (o->resume) {
    int r = tb_pfRestore(&f, res, o->resume, o->resume_len);
    if (r < 0) {
      rc = TB_ERR_ARG;
      goto done;
    }
    r0 = r + 1;
  }
  for (int r = r0; r < obs->nrow; r++) {
    int n = obs->step[r] - f.at;
    if (n > 0) {
      if ((rc = tb_rollout(m, f.d, 0, f.N, n, NULL)) != TB_OK) goto done;
      tb_pfTallyFails(&f, f.at, &res->fails);
      f.at = obs->step[r];
      f.scene_steps += (int64_t)f.N * n;
    }
    if ((rc = tb_pfAssimilate(&f, r, res)) != TB_OK) goto done;
    res->ess[r] = tb_normalize(f.N, f.logw, f.w);
    tb_pfSummary(&f, r, res);
    int failed = 0;
    for (int i = 0; i < f.N; i++) failed += (f.d->status[i] & TB_SCENE_FAILMASK) != 0;
    res->failed[r] = failed;
    // Ctrl-C: the posterior after the observations taken so far (res->nrow of them), the
    // cloud resampled first so that a checkpoint holds the state a run going on would have
    int stop = r + 1 < obs->nrow && tb_interrupted();
    if (r + 1 < obs->nrow && res->ess[r] > 0.0 && res->ess[r] < 0.5 * f.N) {
      res->resampled[r] = 1;
      res->resamples++;
      if ((rc = tb_pfResampleMove(&f)) != TB_OK) goto done;
    }
    if (o->checkpoint && r + 1 < obs->nrow && tb_shareRank() == 0 &&
        (stop || tb_clock() - f.checkpointed >= o->checkpoint_seconds)) {
      if (tb_pfCheckpoint(&f, res, r, stop) != TB_OK) {
        rc = TB_ERR_STATE;
        goto done;
      }
      f.checkpointed = tb_clock();
    }
    if (stop) {
      res->nrow = r + 1;
      res->partial = 1;
    }
    tb_pfProgress(&f, r, res, t0, &last, r + 1 == res->nrow);
    if (stop) break;
  }
  res->filter_steps = (int64_t)f.N * obs->step[res->nrow - 1];
  res->scene_steps = f.scene_steps;
  tb_pfTallyUnconverged(&f, &res->fails);
done:
  res->seconds = omp_get_wtime() - t0;
  tb_pfFree(&f);
  if (rc != TB_OK) {
    if (!tb_lastError()[0]) tb_setError("pf: out of memory");
    tb_freePFResult(res);
    return rc;
  }
  return TB_OK;
}

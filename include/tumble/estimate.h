// Parameter estimation from observed trajectories (thesis ch. 7): the observation model and its
// CSV file, synthetic observations, a particle filter whose particles are the scenes of one batch,
// and a Levenberg-Marquardt fit whose Jacobian is one batch of perturbed rollouts.
//
// An observation row is the state of the scene at one time t (a whole number of steps from
// t = 0) in some of its observable coordinates: for every dynamic body the position and linear
// velocity along its unlocked axes. A body locked to the x-z plane (TB_LOCK_Y) is observed in the
// thesis' vertical plane: x, y (our z), vx, vy; a planar body (TB_LOCK_PLANAR, thesis §3.3) in x,
// y, theta, vx, vy, w; other bodies in x, y, z, vx, vy, vz. With more
// than one dynamic body the names carry the body's rank among them (x1, y1, vx1, ...).
#ifndef TUMBLE_ESTIMATE_H_
#define TUMBLE_ESTIMATE_H_

#include <stdint.h>

#include "sweep.h"
#include "tumble.h"

#ifdef __cplusplus
extern "C" {
#endif

//---- observations ------------------------------------------------------------------------------

// tbObsCoord, an observable coordinate: tumble.h

#define TB_MAXOBSCOORD 512

// the coordinates a model can be observed in, in their canonical order; returns the count
// (at most cap are written)
int tb_obsCoords(const tbModel* m, tbObsCoord* out, int cap);

typedef struct tbObs {
  int nrow, ncol;
  tbObsCoord* coord;  // (ncol) what each column observes
  double* t;          // (nrow) s, strictly increasing, >= 0
  int* step;          // (nrow) t / dt: steps from t = 0
  int* line;          // (nrow) line of the row in its file (0 when not read from a file)
  double* y;          // (nrow x ncol) observed values
} tbObs;

// read an observation CSV: a header line `t,<names>` (any subset of tb_obsCoords(m), any order),
// then one row per time. Times must be finite, >= 0, strictly increasing and whole multiples of
// dt; fields numbers and finite; at least 2 rows. On error the message names the file, the line
// and the field: "obs.csv line 7: field 3 (vx) 'abc' is not a number".
int tb_readObs(const char* path, const tbModel* m, double dt, tbObs* obs);
int tb_writeObs(const char* path, const tbObs* obs);
void tb_freeObs(tbObs* obs);

// the observation noise: uniform on [-scale, scale] or Gaussian with deviation scale
typedef enum tbtNoise { TB_NOISE_NONE = 0, TB_NOISE_UNIFORM = 1, TB_NOISE_GAUSS = 2 } tbtNoise;
typedef struct tbNoise {
  int kind;      // tbtNoise
  double scale;  // eps (uniform half-width) or sigma, > 0 unless kind is TB_NOISE_NONE
} tbNoise;

// the noise added to observation row `row`, column `col`: a pure function of the arguments
double tb_noiseDraw(tbNoise noise, uint64_t seed, int row, int col);

// observations of scene 0 of d (reset here): rows every `every` steps from step 0 to nstep, all
// coordinates of tb_obsCoords, plus tb_noiseDraw noise. obs is allocated; free with tb_freeObs.
int tb_synthObs(const tbModel* m, tbData* d, int nstep, int every, tbNoise noise, uint64_t seed,
                tbObs* obs);

// reset every scene of d and roll it through the observation times, writing the observed
// coordinates of scene s at row r to pred[(s * nrow + r) * ncol + c]; NaN for a failed scene.
// Returns TB_OK or the rollout's error.
int tb_obsRollout(const tbModel* m, tbData* d, const tbObs* obs, double* pred);

//---- priors and transforms ---------------------------------------------------------------------

typedef enum tbtPrior { TB_PRIOR_UNIFORM = 1, TB_PRIOR_GAUSS = 2 } tbtPrior;
typedef struct tbPrior {
  int kind;     // tbtPrior
  double a, b;  // uniform: support [a, b]; gauss: mean a, deviation b (truncated to the range)
} tbPrior;

// the support [lo, hi] of parameter p under prior pr: the prior's interval within the
// parameter's admissible range; TB_ERR_ARG naming the parameter when they do not overlap
int tb_priorSupport(const tbModel* m, int p, const tbPrior* pr, double* lo, double* hi);

// the unbounded coordinate the particle filter moves a parameter in: logit((x - lo)/(hi - lo))
// on a finite support, log(x - lo) or -log(hi - x) on a half-line, x itself on the real line
double tb_toFree(double x, double lo, double hi);
double tb_fromFree(double z, double lo, double hi);

//---- particle filter ---------------------------------------------------------------------------

typedef struct tbPFOpt {
  int nparticle;         // N >= 1: one scene per particle
  int nest;              // estimated parameters (>= 1)
  const int* param;      // (nest) model parameter indices
  const tbPrior* prior;  // (nest)
  tbNoise noise;         // the likelihood: uniform box +-eps or Gaussian sigma, per coordinate
  uint64_t seed;         // every draw is a pure function of (seed, particle, event, parameter)
  double delta;          // Liu-West discount in (1/3, 1]: kernel shrink a = (3 delta - 1)/(2 delta)
  int replay;            // 1: a moved particle's state is recomputed from t = 0 (see estimate_pf.c)
  int max_stage;         // tempering stages per observation before it is taken as it is (>= 1)
  int progress;          // 1: a progress line on stderr
  int device;            // tbtDevice of its batches (TB_DEVICE_AUTO: the GPU when usable)
  int precision;         // tbtPrecision; both the process's defaults when made
  // checkpoints: after an observation r but the last (its resampling done), when not NULL,
  // checkpoint(checkpoint_ctx, r, stop, bytes, len) gets the filter's whole state (particles,
  // weights, draws so far, the results' rows 0..r) to keep: at most once per checkpoint_seconds
  // and when the filter stops there (stop: Ctrl-C), on rank 0 of a share only (tb_setShare). A
  // nonzero return ends the filter with TB_ERR_STATE. resume (NULL: none) is such a state of
  // the same filter to go on from: the result is bitwise the run never stopped
  int (*checkpoint)(void* ctx, int r, int stop, const char* bytes, size_t len);
  void* checkpoint_ctx;
  double checkpoint_seconds;
  const char* resume;
  size_t resume_len;
} tbPFOpt;
tbPFOpt tb_defaultPFOpt(void);

typedef struct tbPFResult {
  int nrow, nest;
  double *mean, *std, *q05, *q50, *q95;  // (nrow x nest) posterior after each observation
  double* ess;                           // (nrow) effective sample size after the update
  int* stages;                           // (nrow) tempering stages the observation took (1: none)
  double* tol;                           // (nrow) box half-width used / eps (1: exact; uniform)
                                         // or likelihood exponent reached (1: full; Gaussian)
  int* zero;        // (nrow) 1: the exact likelihood was zero for every particle at first
  int* resampled;   // (nrow) 1: resampled (and moved) after this observation
  int* failed;      // (nrow) particles whose scene failed (NaN, overflow) so far
  int resamples;    // resampling events, stages included
  int zero_events;  // observations whose exact likelihood was zero for every particle
  int inexact;      // observations taken at a widened box (stage cap, the box stopped shrinking,
                    // or every particle failed)
  int partial;      // 1: stopped by Ctrl-C (tb_catchInterrupt) after nrow observations
  int64_t filter_steps;  // N x (last observation step): the particle-steps the filter advances
  int64_t scene_steps;   // scene-steps rolled in all, replays included
  double seconds;
  // particles failed for a cause the command line names, each counted in the observation
  // interval it failed in (ids: particles; a resumed run counts from its checkpoint on)
  tbFailTally fails;
} tbPFResult;

// run the filter: every particle starts from the parameter row param0 (nparam) with its
// estimated entries drawn from the priors; TB_OK, or an error naming the bad option
int tb_particleFilter(const tbModel* m, const double* param0, const tbObs* obs, const tbPFOpt* opt,
                      tbPFResult* res);
void tb_freePFResult(tbPFResult* res);

//---- least squares -----------------------------------------------------------------------------

typedef struct tbFitOpt {
  int nest;            // estimated parameters (>= 1)
  const int* param;    // (nest) model parameter indices
  const double* init;  // (nest) start values
  const double* lo;    // (nest) bounds, kept by projection
  const double* hi;    // (nest)
  const int* scan;     // (nest) or NULL (all): parameters the start scan covers
  int nscan;           // start-scan points per scanned parameter (0: none)
  int max_iter;        // Levenberg-Marquardt trial steps (>= 1)
  double rel_step;     // finite-difference step relative to max(|x|, 1), > 0
  int progress;        // 1: a progress line per iteration on stderr
  int device;          // tbtDevice of its batches (TB_DEVICE_AUTO: the GPU when usable)
  int precision;       // tbtPrecision; both the process's defaults when made
  FILE* log;           // or NULL: CSV of iteration, batch, lambda, rss, parameters
  // the batches through a memo (NULL: each rolled out): before a batch of points X (nx values:
  // points x nest), memo(memo_ctx, X, nx, pred, npred, 0) returns 1 with the predictions pred
  // (npred values: points x residuals) it holds, 0 when it holds none, -1 after tb_setError;
  // after a batch rolled out, memo(..., 1) keeps them (0, or -1). The fit is deterministic: a run
  // resumed through a memo of the batches an earlier run made is bitwise that run
  int (*memo)(void* ctx, const double* X, size_t nx, double* pred, size_t npred, int keep);
  void* memo_ctx;
} tbFitOpt;
tbFitOpt tb_defaultFitOpt(void);

typedef struct tbFitResult {
  int nest;
  double* x;       // (nest) estimate
  double* se;      // (nest) standard error from s^2 (J^T J)^-1, s^2 = RSS / (m - p); NaN if none
  double rss;      // sum of squared residuals at x
  int m;           // residuals (rows x columns)
  int iterations;  // accepted Levenberg-Marquardt steps
  int batches;     // rollout batches (scan, Jacobians, trial points)
  int64_t scene_steps;
  char reason[64];  // why it stopped
  double seconds;
} tbFitResult;

// Levenberg-Marquardt on r = pred(x) - y over the estimated parameters, the others fixed at
// param0 (nparam); TB_OK, or an error naming the bad option
int tb_fitLM(const tbModel* m, const double* param0, const tbObs* obs, const tbFitOpt* opt,
             tbFitResult* res);
void tb_freeFitResult(tbFitResult* res);

// the parameters that set the initial position or velocity of an observed coordinate (x0, z0,
// vx0, ... of an observed body along an unlocked axis); returns the count written to idx, with
// init[k] the observed value at t = 0 when obs has a row there, else param0's
int tb_stateParams(const tbModel* m, const double* param0, const tbObs* obs, int* idx, double* init,
                   int cap);

//---- plot --------------------------------------------------------------------------------------

// PNG of the filter's posterior over time (estimate_plot.c): per parameter the mean and the
// 5-95% band over the whole run and over its second half, the truth as a dashed line where
// truth[k] is finite (truth may be NULL), and ESS / N below; 0, or -1 when cairo failed
int tb_plotPosterior(const char* path, const tbModel* m, const tbPFOpt* opt, const tbObs* obs,
                     const tbPFResult* res, const double* truth);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_ESTIMATE_H_

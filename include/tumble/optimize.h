// Derivative-free minimizers over a box in R^d whose objective evaluates a whole set of
// candidates per call (one batch of simulations): Nelder-Mead and CMA-ES.
//
// Both are deterministic: with max_seconds = 0 a run is a pure function of the definition and of
// the objective's values (CMA-ES draws come from Random123 via tbu_uniform01, keyed by
// (seed, generation, candidate, attempt, coordinate)); no global state, re-entrant.
//
// Common rules:
//  - Candidates are always inside [lo, hi] when they reach the objective (see each method).
//  - A non-finite f (NaN, +-inf: a diverged simulation) counts as +infinity.
//  - The evaluation budget is exact: a batch that would pass max_evals is truncated to the
//    evaluations left (the first candidates of the batch), the best point is updated from them
//    and the run stops with TB_OPTIM_MAXEVALS. evaluations never exceeds max_evals.
//  - The best point is the best of every candidate evaluated (not only of the final simplex or
//    mean); ties keep the earlier one. If no candidate had a finite f, xbest is x0 projected into
//    the box and f = +inf.
//  - An objective returning non-zero stops the run at once with TB_OPTIM_ABORTED; the values of
//    that batch are ignored, its candidates still count in evaluations.
//  - Time (max_seconds) and progress are measured with omp_get_wtime from the start of the call.
#ifndef TUMBLE_OPTIMIZE_H_
#define TUMBLE_OPTIMIZE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// objective: evaluate the n candidates x (n x dim, row-major) into f[n]; return 0, or non-zero
// to abort the run. ctx is the caller's.
typedef int (*tbObjective)(void* ctx, int n, const double* x, double* f);

typedef enum tbtOptimStop {
  TB_OPTIM_CONVERGED = 0,    // spread in f <= ftol, or spread in x <= xtol
  TB_OPTIM_MAXEVALS = 1,     // evaluation budget spent (evaluations == max_evals)
  TB_OPTIM_TIME = 2,         // max_seconds passed (checked after each iteration)
  TB_OPTIM_ABORTED = 3,      // the objective returned non-zero
  TB_OPTIM_MAXITER = 4,      // max_iter iterations done
  TB_OPTIM_STALLED = 5,      // CMA-ES: covariance condition number above 1e14 (numerically spent)
  TB_OPTIM_INTERRUPTED = 6,  // Ctrl-C (tb_catchInterrupt, sweep.h; checked after each iteration)
} tbtOptimStop;

// one entry of the optional history, recorded after every iteration (iteration 0: NM's initial
// simplex)
typedef struct tbOptimTrace {
  int iter;        // iteration (CMA-ES: generation, from 1)
  int evals;       // evaluations so far
  double best;     // best f so far
  double seconds;  // since the start of the call
} tbOptimTrace;

typedef struct tbOptimDef {
  int dim;             // d >= 1 (CMA-ES: eigendecomposition by Jacobi, meant for d <= ~32)
  const double* x0;    // (dim) start; projected into the box
  const double* step;  // (dim) NM: initial simplex edge per coordinate; CMA-ES: initial standard
                       // deviation per coordinate (sigma0 = max step, C0 = diag(step/sigma0)^2).
                       // NULL: 0.1 (hi - lo) where both bounds are finite, else 1. Each > 0.
  const double* lo;    // (dim) lower bounds, NULL: none (-inf entries allowed)
  const double* hi;    // (dim) upper bounds, NULL: none (+inf entries allowed); lo <= hi
  int max_evals;       // evaluation budget in candidates, >= 1
  int max_iter;        // iteration cap (0: none)
  double max_seconds;  // wall budget (0: none); makes the result timing-dependent
  double ftol;         // NM: stop when max - min of f over the simplex <= ftol;
                       // CMA-ES: when max - min over the generation's f and the best f of the last
                       // 10 + ceil(30 d / lambda) generations <= ftol (all finite).
                       // Negative: never (0 still stops on an exactly flat spread)
  double xtol;         // NM: stop when max_i ||x_i - x_best||_inf over the simplex <= xtol;
                       // CMA-ES: when sigma * sqrt(max C_ii) <= xtol and sigma * |p_c|_inf <= xtol.
                       // Negative: never
  uint64_t seed;       // CMA-ES sampling
  int popsize;         // CMA-ES lambda (0: 4 + floor(3 ln d)); >= 2
  int adaptive;        // NM coefficients: 1: Gao & Han 2012 (1, 1 + 2/d, 0.75 - 1/(2d), 1 - 1/d)
                       // for d >= 3 and classic (1, 2, 0.5, 0.5) for d <= 2; 0: always classic
  // optional, called after every iteration with the objective's ctx
  void (*progress)(void* ctx, int iter, int evals, double best, double seconds);
  tbOptimTrace* history;  // optional caller buffer: the first history_cap iterations are recorded
  int history_cap;
} tbOptimDef;

// dim-dependent defaults: x0, step, lo, hi NULL (set x0 before use), max_evals = 2000 (dim + 1),
// max_iter = 0, max_seconds = 0, ftol = 1e-12, xtol = 1e-12, seed = 1, popsize = 0,
// adaptive = 1, no progress, no history
tbOptimDef tb_defaultOptimDef(int dim);

typedef struct tbOptimResult {
  double f;  // best value (the point is in the caller's xbest)
  int iterations;
  int evaluations;  // candidates passed to the objective, <= max_evals
  int calls;        // objective calls (batches)
  int history_len;  // entries written to def->history
  double seconds;
  int reason;  // tbtOptimStop
} tbOptimResult;

// Nelder-Mead (Lagarias et al. 1998 ordering and tie rules), restart-free. Bounds by projection:
// a reflection, expansion or outside contraction point is clamped into [lo, hi] before it is
// evaluated and the clamped point is what enters the simplex (inside contractions and shrinks
// stay inside by convexity). Initial simplex: x0 and x0 + step_i e_i (x0 - step_i e_i where that
// passes hi), evaluated as one batch of d + 1. Then each iteration evaluates its reflection as a
// batch of 1, possibly an expansion or a contraction as a second batch of 1, and on a shrink the
// d new vertices as one batch of d. ftol / xtol are tested before every iteration.
// xbest (dim, caller-allocated) receives the best point; res may be NULL.
// Returns the stop reason (tbtOptimStop, >= 0), or -1 for a bad definition, -2 out of memory.
int tb_nelderMead(const tbOptimDef* def, tbObjective obj, void* ctx, double* xbest,
                  tbOptimResult* res);

// (mu/mu_w, lambda) CMA-ES after Hansen's tutorial (2016): positive recombination weights
// ln((lambda + 1) / 2) - ln i, i <= mu = floor(lambda / 2), cumulative step-size adaptation,
// rank-one and rank-mu covariance updates with h_sigma stalling, and an eigendecomposition of C by
// cyclic Jacobi every max(1, floor(1 / (10 d (c_1 + c_mu)))) generations. Each generation is one
// batch of lambda candidates. Bounds by resampling: a sample outside [lo, hi] is redrawn (new
// draws) up to 100 times, then projected into the box; the point evaluated is the point used in
// the update, so the mean stays in the box. A generation truncated by the budget only updates the
// best point. xbest (dim, caller-allocated) receives the best point; res may be NULL.
// Returns as tb_nelderMead.
int tb_cmaes(const tbOptimDef* def, tbObjective obj, void* ctx, double* xbest, tbOptimResult* res);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_OPTIMIZE_H_

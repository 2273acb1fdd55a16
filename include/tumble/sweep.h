// Monte Carlo sweeps over an offset grid: cells, counter-based draw keys, per-cell tallies with
// Wilson intervals, a progress bar and the CSV writer shared by `tumble grasp` and
// `tumble grasp3d`.
//
// A sweep runs one scene per (cell, trial). Every random draw of a trial is
// tbu_uniform01(seed, tb_sweepKey(cell, trial), k) for its own draw index k, so a cell's result
// is a pure function of the seed, the cell and the trial count: any thread count and any batch
// split give the same map bitwise.
#ifndef TUMBLE_SWEEP_H_
#define TUMBLE_SWEEP_H_

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "tumble.h"

#ifdef __cplusplus
extern "C" {
#endif

// an offset grid: nx x ny cells centred on (center_x, center_y), spanning extent_x x extent_y
// (m); cell = iy * nx + ix, offset x = center_x - extent_x/2 + extent_x * ix / (nx - 1)
// (center_x when nx == 1), same for y
typedef struct tbSweepGrid {
  int nx, ny;                 // cells along x and y (>= 1)
  double extent_x, extent_y;  // m, full span of the offsets (>= 0)
  double center_x, center_y;  // m, where the grid is centred (0, 0 unless set)
} tbSweepGrid;

// the offset (m) of cell (0 <= cell < nx * ny)
void tb_sweepOffset(const tbSweepGrid* g, int cell, double xy[2]);
// the counter-based draw key of (cell, trial): (cell << 32) | trial, for
// tbu_uniform01(seed, key, draw)
uint64_t tb_sweepKey(int cell, int trial);
// Wilson score interval for k successes in n trials at 95% (z = 1.959963984540054);
// n = 0: lo = 0, hi = 1
void tb_wilson(long k, long n, double* lo, double* hi);

// a parameter's values over a batch (`--param NAME=SPEC`, Python's spec strings): V every scene,
// LO:HI evenly spread over the scenes (LO + (HI - LO) s / (n - 1)), uniform:LO:HI a draw that is a
// pure function of the seed, the scene and the parameter's index
enum { TB_SPEC_VALUE = 0, TB_SPEC_SPREAD = 1, TB_SPEC_UNIFORM = 2 };
typedef struct tbParamSpec {
  int kind;  // TB_SPEC_*
  double a, b;
} tbParamSpec;
// TB_OK, or TB_ERR_ARG with the message starting with `what`
int tb_parseParamSpec(const char* what, const char* spec, tbParamSpec* out);
// the value of scene s of nscene for parameter p
double tb_paramSpecValue(const tbParamSpec* ps, int p, int s, int nscene, uint64_t seed);

// per-cell outcome counts
typedef struct tbSweepTally {
  int ncell;
  long* success;  // (ncell) trials that met the goal
  long* valid;    // (ncell) trials whose scene finished without a numerical failure
  long* failed;   // (ncell) trials whose scene failed numerically (not counted as grasp failures)
} tbSweepTally;

// zeroed counts for ncell cells; TB_OK, TB_ERR_ARG (ncell < 1) or TB_ERR_MEMORY
int tb_newTally(tbSweepTally* t, int ncell);
void tb_freeTally(tbSweepTally* t);
// count one trial of cell: a numerical failure (failed != 0) or a valid trial that did or did
// not succeed
void tb_tallyAdd(tbSweepTally* t, int cell, int failed, int success);
// totals over all cells (any pointer may be NULL)
void tb_tallySum(const tbSweepTally* t, long* success, long* valid, long* failed);
// p[cell] = success / valid, NaN where valid == 0
void tb_tallyProbability(const tbSweepTally* t, double* p);

// progress on stderr while a job runs: on a terminal a bar with done/total, rate and ETA, redrawn
// in place (\r) every 0.25 s by a thread of its own, counting the scenes the job's rollouts
// finish (tb_setRolloutCounter) as well as what tb_progressUpdate confirms, so that it moves
// however long a chunk takes; when stderr is not a terminal only the final line
typedef struct tbProgress {
  long total;
  long done;         // confirmed by tb_progressUpdate
  long scenes;       // scenes finished by rollouts since the start (the rollout counter)
  const char* what;  // label, e.g. "grasp3d"
  const char* unit;  // what is counted, e.g. "trials"
  FILE* out;
  double t0;  // s, monotonic clock at the start
  int tty;    // 1: out is a terminal
  int running;
  pthread_t thread;
} tbProgress;
void tb_progressStart(tbProgress* p, long total, const char* what);
// the same on any stream, counting unit ("trials", "scenes")
void tb_progressStartOn(tbProgress* p, FILE* out, long total, const char* what, const char* unit);
// done: trials finished so far (monotone)
void tb_progressUpdate(tbProgress* p, long done);
// the final line (done/total, wall time, rate); stops the drawing thread
void tb_progressFinish(tbProgress* p);
// seconds since tb_progressStart
double tb_progressElapsed(const tbProgress* p);

// Ctrl-C for long jobs: after tb_catchInterrupt the first SIGINT sets a flag that the jobs read
// between chunks (tb_interrupted), so they stop with TB_INTERRUPTED and the command writes what
// is done, marked partial; a second SIGINT ends the process as usual
void tb_catchInterrupt(void);
int tb_interrupted(void);

// TB_SCENE_* bits as words: "ok", or "diverged", "contact-overflow", "solver-inapplicable",
// "unconverged" joined by '+'
void tb_statusText(int status, char* buf, size_t n);
// a per-scene summary CSV's columns (no newline: a job may add its own): scene, every
// parameter's value, done (0: the run was interrupted before it), status (TB_SCENE_* bits) and
// its text, fail_step (-1: none), steps taken, contacts in the last step, solver iterations
// (sum, max), residual (last step, largest); the row of scene s of d, numbered scene
void tb_sceneSummaryHeader(FILE* f, const tbModel* m);
void tb_sceneSummaryRow(FILE* f, const tbModel* m, const tbData* d, int s, long scene, int done);

// the failed scenes of a run, whose causes the command line says on stderr beside its failed
// count (a capacity to raise, parameters that bury a shape, a time step): how many had each
// status bit and
// the first of them (the lowest id; meaningless while the count is 0). Zeroed memory is empty
typedef struct tbFailTally {
  long overflow, overflow_first;  // TB_SCENE_OVERFLOW_FAIL: more contacts than the capacity
  long buried, buried_first;      // TB_SCENE_START_FAIL: a start with a shape sunk into another
  long diverged, diverged_first;  // TB_SCENE_NAN_FAIL: a state no longer finite
  long inapplicable, inapplicable_first;  // TB_SCENE_SOLVER_FAIL: the solver refused a step
  long unbalanced, unbalanced_first;      // TB_SCENE_BALANCE_FAIL: no quasistatic equilibrium
  long unconverged, unconverged_first;    // TB_SCENE_UNCONVERGED of a scene not failed: a warning
  double resid_max;  // the worst residual of those unconverged (0: not known, as of journal rows
                     // that keep no residual)
} tbFailTally;
// count scene id of the given TB_SCENE_* status, its worst residual resid (0: not known)
void tb_failTallyAdd(tbFailTally* t, int status, double resid, long id);
// add the counts of part (a chunk, a resumed run's replayed rows) to t
void tb_failTallyMerge(tbFailTally* t, const tbFailTally* part);

// CSV: cell,ix,iy,x_mm,y_mm,trials,successes,failed,p,lo95,hi95 with trials the valid trials;
// p is "nan" only where valid == 0 (and the interval then [0, 1]). TB_OK, or TB_ERR_ARG with
// tb_lastError() naming the path when it cannot be written (written to PATH.part and renamed when
// whole: a failure leaves an earlier file as it was)
int tb_sweepWriteCsv(const char* path, const tbSweepGrid* g, const tbSweepTally* t);
// the same rows on a stream (a memory stream for the HDF5 output)
void tb_sweepWriteRows(FILE* f, const tbSweepGrid* g, const tbSweepTally* t);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_SWEEP_H_

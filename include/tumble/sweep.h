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

// progress on stderr: a bar with done/total, trials/s and ETA, redrawn in place (\r) at most
// every 0.2 s on a terminal; when stderr is not a terminal, one line per 10% instead
typedef struct tbProgress {
  long total, done;
  const char* what;  // label, e.g. "grasp3d"
  double t0;         // s, monotonic clock at the start
  double last;       // s, time of the last redraw (terminal)
  int tty;           // 1: stderr is a terminal
  int tenth;         // the last tenth printed (not a terminal)
  long shown;        // done at the last redraw (terminal), -1 before the first
} tbProgress;
void tb_progressStart(tbProgress* p, long total, const char* what);
// done: trials finished so far (monotone)
void tb_progressUpdate(tbProgress* p, long done);
// the final line (100%, wall time, trials/s)
void tb_progressFinish(tbProgress* p);
// seconds since tb_progressStart
double tb_progressElapsed(const tbProgress* p);

// CSV: cell,ix,iy,x_mm,y_mm,trials,successes,failed,p,lo95,hi95 with trials the valid trials;
// p is "nan" only where valid == 0 (and the interval then [0, 1]). TB_OK, or TB_ERR_ARG with
// tb_lastError() naming the path when it cannot be written (a partial file is removed)
int tb_sweepWriteCsv(const char* path, const tbSweepGrid* g, const tbSweepTally* t);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_SWEEP_H_

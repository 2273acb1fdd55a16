// bench_grasp3d: throughput of the `tumble grasp3d` default study on the CPU path, and how much
// its map depends on the step's numerical settings.
//
//   1. Throughput: the default study (box 30x50x30 mm, 11x11 offsets over 80 mm, 20 trials per
//      cell, h = 2 ms, auto 1000 iterations / tol 1e-6) at 1 thread and at all threads: trials/s
//      and scene-steps/s, with the overall probability (the same at any thread count, checked).
//   2. Settings: a reduced study (11x11 cells, --trials 4 by default) with the default settings
//      against peers that solve each step tighter (auto 3000 / 1e-8), take smaller steps (1 ms) or
//      both. The draws are the same (same seed), so a cell's success count can only change
//      through the numerics: the table gives the overall probability and the sum over cells of
//      |successes - successes of the default|, i.e. at least that many trials changed outcome.
//
// Output: markdown on stdout, progress on stderr. `--only N` runs section N alone, `--trials K`
// sets section 2's trials per cell.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp3d.h>

#include "bench_machine.h"

#ifndef TUMBLE_SOURCE_DIR
#define TUMBLE_SOURCE_DIR "."
#endif

static void printHeader(int argc, char** argv) {
  tbbMachine mc;
  tbb_machine(&mc);
  printf("# bench_grasp3d: the 3D parallel-jaw grasp study (issue 6), CPU path\n\n");
  printf("- date: %s\n- machine: %s, nproc %s, OpenMP threads %d (load average at start: %s)\n",
         mc.date, mc.cpu, mc.nproc, omp_get_max_threads(), mc.load);
  printf("- commit: %s\n- command: bench_grasp3d", mc.commit);
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("\n\n");
}

typedef struct Run {
  double p, seconds;
  long success, valid, failed, unconverged, nscene, nstep;
  long* k;  // (ncell) successes
} Run;

static int runStudy(const tbGrasp3dDef* d, Run* out) {
  tbGrasp3dResult r;
  if (tb_grasp3dSweep(d, &r) != TB_OK) {
    fprintf(stderr, "bench_grasp3d: %s\n", tb_lastError());
    return 1;
  }
  memset(out, 0, sizeof(*out));
  tb_tallySum(&r.tally, &out->success, &out->valid, &out->failed);
  out->p = out->valid ? (double)out->success / out->valid : NAN;
  out->seconds = r.seconds;
  out->unconverged = r.unconverged;
  out->nscene = r.nscene;
  out->nstep = r.nstep;
  out->k = (long*)malloc(sizeof(long) * r.tally.ncell);
  memcpy(out->k, r.tally.success, sizeof(long) * r.tally.ncell);
  tb_freeGrasp3dResult(&r);
  return 0;
}

static void throughput(void) {
  printf("## 1. Throughput of the default study\n\n");
  tbGrasp3dDef d = tb_defaultGrasp3dDef();
  d.progress = 1;
  printf("box %gx%gx%g mm, %dx%d cells over %g mm, %d trials per cell, h = %g s, %s %d / %g\n\n",
         1e3 * d.size[0], 1e3 * d.size[1], 1e3 * d.size[2], d.grid.nx, d.grid.ny,
         1e3 * d.grid.extent_x, d.trials, d.dt, tb_solverName(d.solver), d.max_iter, d.tol);
  printf(
      "| threads | trials | steps/trial | seconds | trials/s | scene-steps/s | p | failed | "
      "unconverged |\n|---|---|---|---|---|---|---|---|---|\n");
  int nmax = omp_get_max_threads();
  int counts[2] = {1, nmax};
  double p1 = NAN;
  for (int i = 0; i < (nmax > 1 ? 2 : 1); i++) {
    omp_set_num_threads(counts[i]);
    Run r;
    if (runStudy(&d, &r)) exit(1);
    double ss = (double)r.nscene * r.nstep;
    printf("| %d | %ld | %ld | %.2f | %.1f | %.4g | %.4f | %ld | %ld |\n", counts[i], r.nscene,
           r.nstep, r.seconds, r.nscene / r.seconds, ss / r.seconds, r.p, r.failed, r.unconverged);
    fflush(stdout);
    if (i == 0) p1 = r.p;
    if (i == 1 && r.p != p1) printf("\n**the probability differs between thread counts**\n");
    free(r.k);
  }
  omp_set_num_threads(nmax);
  printf("\n");
}

static void settings(int trials) {
  printf("## 2. Numerical settings (reduced study: 11x11 cells, %d trials per cell)\n\n", trials);
  printf(
      "| h (s) | auto iterations | tol | p | sum of abs. cell differences | unconverged | seconds "
      "| trials/s |\n|---|---|---|---|---|---|---|---|\n");
  const struct {
    double dt;
    int iter;
    double tol;
  } cfg[] = {{2e-3, 1000, 1e-6}, {2e-3, 3000, 1e-8}, {1e-3, 1000, 1e-6}, {1e-3, 3000, 1e-8}};
  Run base;
  for (int c = 0; c < 4; c++) {
    tbGrasp3dDef d = tb_defaultGrasp3dDef();
    d.trials = trials;
    d.dt = cfg[c].dt;
    d.max_iter = cfg[c].iter;
    d.tol = cfg[c].tol;
    d.progress = 1;
    Run r;
    if (runStudy(&d, &r)) exit(1);
    long diff = 0;
    if (c == 0) base = r;
    for (int i = 0; i < d.grid.nx * d.grid.ny; i++) diff += labs(r.k[i] - base.k[i]);
    printf("| %g | %d | %g | %.4f | %ld | %ld | %.2f | %.1f |\n", cfg[c].dt, cfg[c].iter,
           cfg[c].tol, r.p, diff, r.unconverged, r.seconds, r.nscene / r.seconds);
    fflush(stdout);
    if (c) free(r.k);
  }
  free(base.k);
  printf("\n");
}

int main(int argc, char** argv) {
  int only = 0, trials = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--only")) only = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--trials")) trials = atoi(argv[i + 1]);
  }
  if (trials < 1) trials = 1;
  printHeader(argc, argv);
  if (!only || only == 1) throughput();
  if (!only || only == 2) settings(trials);
  return 0;
}

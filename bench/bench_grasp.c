// bench_grasp: throughput of the planar grasp study (tumble grasp) on the CPU path.
//
//   1. The default study (gear, 21 x 21 offsets over 20 mm around (0, -10) mm, 30 trials, medium
//      surface and high gripper friction, normal speed): trials/s and scene-steps/s with every
//      thread, with the study's solver (auto) and with PGS alone, and a 4-trial subsample with
//      one thread for the scaling.
//   2. The solver settings of the study (auto, relative tolerance 1e-6, 200 iterations) against
//      a tight solve (tolerance 1e-10, 20000 iterations) on an 11 x 11 x 4 subsample: cells whose
//      success count differs, overall probability, time ratio.
//
// No peer runs this model (MuJoCo, Bullet, ODE and Siconos have no 2.5D support tripod), so the
// table reports absolute rates and tumble-against-tumble ratios only.
//
// Output: markdown on stdout.
#define _GNU_SOURCE  // popen
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include <tumble/grasp.h>
#include <tumble/sweep.h>

#include "bench_machine.h"

#ifndef TUMBLE_SOURCE_DIR
#define TUMBLE_SOURCE_DIR "."
#endif

typedef struct Result {
  tbGraspRun run;
  long success, valid;
  long* cell_success;  // (ncell), owned
} Result;

static tbSweepGrid grid(int n, double extent) {
  tbSweepGrid g = {n, n, extent, extent, 0.0, -10e-3};
  return g;
}

static int sweep(const tbGraspDef* g, const tbSweepGrid* gr, int trials, Result* r) {
  tbSweepTally t;
  if (tb_newTally(&t, gr->nx * gr->ny)) return 1;
  int rc = tb_graspSweep(g, gr, trials, 1, 512, NULL, NULL, &t, &r->run);
  tb_tallySum(&t, &r->success, &r->valid, NULL);
  r->cell_success = t.success;
  t.success = NULL;
  tb_freeTally(&t);
  if (rc) fprintf(stderr, "bench_grasp: %s\n", tb_lastError());
  return rc;
}

static void row(const char* what, int threads, const Result* r) {
  printf("| %s | %d | %ld | %.1f | %.1f | %.3g | %.4f | %ld | %ld | %.2g |\n", what, threads,
         r->run.trials, r->run.seconds, r->run.trials / r->run.seconds,
         r->run.scene_steps / r->run.seconds, (double)r->success / r->valid, r->run.failed,
         r->run.unconverged, r->run.resid_max);
}

int main(void) {
  tbbMachine mc;
  tbb_machine(&mc);
  int nthread = omp_get_max_threads();
  printf("# bench_grasp: the planar grasp study on the CPU path\n\n");
  printf("- date: %s\n- machine: %s, %s logical CPUs, load %s\n- commit: %s\n\n", mc.date, mc.cpu,
         mc.nproc, mc.load, mc.commit);

  tbGraspDef def = tb_defaultGraspDef();
  printf("## Throughput (%d steps of %.0e s per trial)\n\n", tb_graspSteps(&def), def.dt);
  printf(
      "| study | threads | trials | seconds | trials/s | scene-steps/s | probability | "
      "failed scenes | unconverged scenes | max residual |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  tbSweepGrid full = grid(21, 20e-3);
  Result all, pgs, one;
  tbGraspDef def_pgs = def;
  def_pgs.solver = TB_SOLVER_PGS;
  fprintf(stderr, "bench_grasp: default study, %d threads\n", nthread);
  if (sweep(&def, &full, 30, &all) || sweep(&def_pgs, &full, 30, &pgs)) return 1;
  row("default 21x21 x 30 (auto)", nthread, &all);
  row("default 21x21 x 30, PGS alone", nthread, &pgs);
  omp_set_num_threads(1);
  fprintf(stderr, "bench_grasp: 21x21 x 4, 1 thread\n");
  if (sweep(&def, &full, 4, &one)) return 1;
  row("21x21 x 4 (auto)", 1, &one);
  omp_set_num_threads(nthread);
  printf("\nThe study's solver (auto) runs %.2fx the trials/s of PGS alone.\n",
         pgs.run.seconds / all.run.seconds);
  printf("\nScaling: %.2fx the single-thread scene-steps/s on %d threads.\n\n",
         (all.run.scene_steps / all.run.seconds) / (one.run.scene_steps / one.run.seconds),
         nthread);

  printf("## Solver settings against a tight solve (11x11 x 4, %d threads)\n\n", nthread);
  tbSweepGrid sub = grid(11, 20e-3);
  tbGraspDef tight = def;
  tight.solver_tol = 1e-10;
  tight.max_iter = 20000;
  Result a, b;
  fprintf(stderr, "bench_grasp: solver settings\n");
  if (sweep(&def, &sub, 4, &a) || sweep(&tight, &sub, 4, &b)) return 1;
  int differ = 0;
  for (int c = 0; c < 121; c++) differ += a.cell_success[c] != b.cell_success[c];
  printf(
      "| solve | seconds | probability | max residual | cells differing |\n"
      "|---|---|---|---|---|\n");
  printf("| study (auto, tol 1e-6, 200 iterations) | %.2f | %.4f | %.2g | - |\n", a.run.seconds,
         (double)a.success / a.valid, a.run.resid_max);
  printf("| tight (auto, tol 1e-10, 20000 iterations) | %.2f | %.4f | %.2g | %d of 121 |\n",
         b.run.seconds, (double)b.success / b.valid, b.run.resid_max, differ);
  printf("\nThe study's settings are %.1fx faster.\n", b.run.seconds / a.run.seconds);
  free(all.cell_success);
  free(pgs.cell_success);
  free(one.cell_success);
  free(a.cell_success);
  free(b.cell_success);
  return 0;
}

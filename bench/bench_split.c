// bench_split: where a step's time goes, set-up against solve (Mylapilli & Jain's claim that in
// minimal coordinates setting up the complementarity problem dominates its solution).
//
// One scene at a time on one thread, its steps run through tb_step's three phases with a clock
// between them:
//   set-up    tb_stepSetUp: kinematics, collision, the rows; in minimal coordinates the
//             joint-space mass matrix (CRBA), bias forces (RNEA) and the factor of M + h C; the
//             Delassus matrix A = Jq M^-1 Jq^T (J M^-1 J^T in maximal coordinates), b, the warm
//             start
//   solve     tb_solveWithCorners: the step's solver, and tb_plasticRetry's re-solve when one
//             is due (in the quasistatic step, thesis §3.4, its proximal rounds: stage_quasi.h;
//             with non-convex corners, thesis §3.2, their rounds: stage_corner.h)
//   finish    tb_stepEnd: impulses applied, integration, forward kinematics
// Each configuration runs its whole rollout 3 times; the fastest total is kept. Reported per
// step over all steps, and over the steps that had rows to solve.
//
//   ./build/bench/bench_split > bench/results/split-$(date -u +%F).md
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "bench_machine.h"
#include "engine/stage_step.h"

#ifndef TUMBLE_SOURCE_DIR
#define TUMBLE_SOURCE_DIR "."
#endif

typedef struct tbbCase {
  const char* scene;
  const char* label;
  const char* opt;  // a structural option set to 1 ("minimal"), or NULL
  const char* solver;
  int pyramid;  // 1: 4 facets, one aligned against the sliding velocity (M&J's MLCP)
  int nstep;
  int dynamic;     // 1: a quasistatic scene's model stepped by the dynamic (Stewart-Trinkle) step
  int halfplanes;  // 1: a corner scene's model with its corners as half-planes (corners = 0)
} tbbCase;

static const tbbCase kCases[] = {
    {"chain-wall", "12-link chain, minimal", NULL, "mncp-rlm", 0, 20000, 0, 0},
    {"chain-wall", "12-link chain, minimal", NULL, "mncp-plm", 0, 20000, 0, 0},
    {"chain-wall", "12-link chain, minimal", NULL, "mlcp-fb-rlm", 1, 20000, 0, 0},
    {"chain-wall", "12-link chain, minimal", NULL, "mlcp-fb-plm", 1, 20000, 0, 0},
    {"chain-wall", "12-link chain, minimal", NULL, "lemke", 1, 20000, 0, 0},
    {"chain-wall", "12-link chain, minimal", NULL, "pgs", 0, 20000, 0, 0},
    {"pendulum", "3-link pendulum, minimal", "minimal", "pgs", 0, 2000, 0, 0},
    {"pendulum", "3-link pendulum, maximal", NULL, "pgs", 0, 2000, 0, 0},
    {"box-stack", "3 stacked boxes, maximal", NULL, "mncp-rlm", 0, 1000, 0, 0},
    {"box-stack", "3 stacked boxes, maximal", NULL, "pgs", 0, 1000, 0, 0},
    {"box-stack", "3 stacked boxes, maximal", NULL, "auto", 0, 1000, 0, 0},
    {"qs-push", "pushed planar part, quasistatic (DQC)", NULL, "auto", 0, 1000, 0, 0},
    {"qs-push", "pushed planar part, quasistatic (DLC)", NULL, "auto", 1, 1000, 0, 0},
    {"qs-push", "pushed planar part, dynamic (ST)", NULL, "auto", 0, 1000, 1, 0},
    {"qs-fence", "fence-particle, quasistatic (DQC)", NULL, "auto", 0, 629, 0, 0},
    {"qs-fence", "fence-particle, quasistatic (DLC)", NULL, "auto", 1, 629, 0, 0},
    {"qs-fence", "fence-particle, dynamic (ST)", NULL, "auto", 0, 629, 1, 0},
    {"corner-hole", "block over a hole, disjunctive corners", NULL, "pgs", 0, 120, 0, 0},
    {"corner-hole", "block over a hole, half-planes (ST)", NULL, "pgs", 0, 120, 0, 1},
    {"corner-finger", "gripper vertex over a corner, disjunctive", NULL, "pgs", 0, 18, 0, 0},
    {"corner-finger", "gripper vertex over a corner, half-planes (ST)", NULL, "pgs", 0, 18, 0, 1},
};

enum { SETUP, SOLVE, FINISH, NPHASE };

static double tbb_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct tbbSplit {
  double all[NPHASE], rows[NPHASE];  // seconds over all steps, over the steps with rows
  int nrows, unconverged;
} tbbSplit;

// tb_step of scene 0 by a team of one, its phases' times added to sp
static void tbb_step(const tbModel* m, tbData* d, tbWork* w, tbbSplit* sp) {
  double t[NPHASE + 1];
  tbSolveResult res;
  t[0] = tbb_now();
  tbtStepSetUp go = tb_stepSetUp(tb_solo(), m, d, 0, w, &res);
  t[1] = tbb_now();
  int rc = go == TB_SETUP_SOLVE ? tb_solveWithCorners(tb_solo(), m, d, 0, w, &res) : 0;
  t[2] = tbb_now();
  if (go != TB_SETUP_FAILED) {
    tb_stepEnd(m, d, 0, w, rc, &res);
    sp->unconverged += !rc && !res.converged;
  }
  t[3] = tbb_now();
  for (int k = 0; k < NPHASE; k++) {
    sp->all[k] += t[k + 1] - t[k];
    if (w->nrow > 0) sp->rows[k] += t[k + 1] - t[k];
  }
  sp->nrows += w->nrow > 0;
}

static tbModel* tbb_model(const tbbCase* c) {
  int i = tb_findScene(c->scene);
  tbBuild b = tb_defaultBuild(i);
  const tbSceneInfo* si = tb_sceneInfo(i);
  for (int k = 0; k < si->nopt; k++) {
    if (c->opt && !strcmp(si->opt[k].name, c->opt)) b.opt[k] = 1.0;
  }
  if (c->pyramid) {
    b.cone = TB_CONE_PYRAMID;
    b.facets = 4;
    b.facet_align = 1;
  }
  tbModel* m = tb_buildScene(i, &b);
  if (m) m->opt.solver = tb_findSolver(c->solver);
  if (m && c->dynamic) m->opt.quasistatic = 0;
  if (m && c->halfplanes) m->opt.corners = 0;
  return m;
}

// the fastest of 3 rollouts of case c
static int tbb_run(const tbbCase* c, tbbSplit* best) {
  tbModel* m = tbb_model(c);
  if (!m) return fprintf(stderr, "%s: %s\n", c->scene, tb_lastError()), 1;
  tbData* d = tb_newData(m, 1);
  tbWork* w = tb_newWork(m);
  double best_total = 1e300;
  for (int rep = 0; rep < 3; rep++) {
    tbbSplit sp;
    memset(&sp, 0, sizeof(sp));
    tb_resetData(m, d);
    tb_stepValues(m, d, 0, w);  // the scene's values, the same on every step (as a rollout's)
    for (int k = 0; k < c->nstep; k++) tbb_step(m, d, w, &sp);
    double total = 0.0;
    for (int k = 0; k < NPHASE; k++) total += sp.all[k];
    if (total < best_total) {
      best_total = total;
      *best = sp;
    }
  }
  int failed = (d->status[0] & TB_SCENE_FAILMASK) != 0;
  tb_freeWork(w);
  tb_freeData(d);
  tb_freeModel(m);
  return failed;
}

int main(void) {
  tbbMachine mc;
  tbb_machine(&mc);
  printf("# Step cost split: set-up against solve\n\n");
  printf(
      "%s, %s (%s cores), commit %s, load %s. One scene, one thread; `bench_split` "
      "(bench/bench_split.c says what each phase holds); best of 3 rollouts.\n\n",
      mc.date, mc.cpu, mc.nproc, mc.commit, mc.load);
  printf(
      "| scene | solver | steps | with rows | us/step | set-up | solve | finish | "
      "set-up / solve (steps with rows) | us/step with rows | unconverged |\n");
  printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); i++) {
    const tbbCase* c = &kCases[i];
    tbbSplit sp;
    memset(&sp, 0, sizeof(sp));
    if (tbb_run(c, &sp)) {
      printf("| %s | %s | failed |\n", c->label, c->solver);
      continue;
    }
    double tot = 0.0, tot_rows = 0.0;
    for (int k = 0; k < NPHASE; k++) {
      tot += sp.all[k];
      tot_rows += sp.rows[k];
    }
    double setup = sp.all[SETUP], setup_rows = sp.rows[SETUP];
    char ratio[32] = "-", per_rows[32] = "-";
    if (sp.nrows > 0) {
      snprintf(ratio, sizeof(ratio), "%.2f", setup_rows / sp.rows[SOLVE]);
      snprintf(per_rows, sizeof(per_rows), "%.2f", 1e6 * tot_rows / sp.nrows);
    }
    printf("| %s | %s%s | %d | %d | %.2f | %.0f%% | %.0f%% | %.0f%% | %s | %s | %d |\n", c->label,
           c->solver, c->pyramid ? " (4 facets, aligned)" : "", c->nstep, sp.nrows,
           1e6 * tot / c->nstep, 100 * setup / tot, 100 * sp.all[SOLVE] / tot,
           100 * sp.all[FINISH] / tot, ratio, per_rows, sp.unconverged);
    fflush(stdout);
  }
  return 0;
}

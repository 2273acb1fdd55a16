// bench_cpu: tumble's CPU path against MuJoCo on equivalent scenes, in the same run.
//
// Scenes (tumble's built-ins with their default parameters, MuJoCo's MJCF written below):
//   plate-particle  a particle on the vibrating plate of thesis §5.3 (centrifuge field), dt 1e-4,
//                   mu 0.5, mass 1
//   box-stack       three 0.2 m cubes of 1 kg stacked on a ground plane, dt 1e-3, mu 0.5
// Both engines use the same gravity, masses, sizes and friction (a contact's mu is the larger of
// its two shapes' in both), an exact/elliptic cone and their default solver (tumble: PGS on the
// exact cone; MuJoCo: Newton, 100 iterations, tolerance 1e-8, Euler integrator, condim 3).
//
// What is not identical:
//   - MuJoCo's contacts are soft (solref/solimp defaults): bodies sink slightly into each other
//     and the stack settles by about 1.4 mm; tumble's are hard (velocity-impulse
//     step with Phi/h stabilization).
//   - The plate in MuJoCo is a mocap body (a 1 m x 1 m x 2 cm box whose top face is the plate
//     plane). Its pose is set before every step from the same functions as tumble's driver
//     (tbu_plateLinear, tbu_plateQuatStep, tbu_plateQuat0; pose at t + h, as tumble), but MuJoCo
//     gives a mocap body no velocity: contacts see the plate's motion only through its pose, so
//     friction acts against the particle's world velocity, not its velocity relative to the
//     plate. tumble uses the plate's velocity in the contact. The particle's drift therefore
//     differs (the plate-particle check is a sanity check, not a match).
//   - MuJoCo has no points: the particle is a sphere of radius 1e-3 m (inertia 1 kg m^2 as
//     tumble's default), placed with its lowest point where tumble's particle starts, projected
//     onto the initial plate.
//
// Timing: per (scene, N) one warm-up (a tenth of the steps) then the best of 3 repetitions, each
// from the initial state, with omp_get_wtime around the stepping only. tumble: tb_rollout (OpenMP
// over scenes). MuJoCo: one mjData per scene, the same OpenMP loop over scenes, each scene taking
// all its steps, on the same number of threads.
#define _GNU_SOURCE  // mkstemps, popen
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include <tumble/driver_geom.h>
#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "bench_machine.h"

#ifndef TUMBLE_SOURCE_DIR
#define TUMBLE_SOURCE_DIR "."
#endif

#define NREP 3
#define RADIUS 1e-3  // MuJoCo's stand-in for the point particle (m)

static const char* kBoxStackXML =
    "<mujoco>\n"
    "  <option timestep='1e-3' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>\n"
    "  <size nconmax='40' njmax='160' nstack='20000'/>\n"
    "  <default><geom friction='0.5 0 0' condim='3'/></default>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='0 0 1'/>\n"
    "    <body pos='0 0 0.1'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 0.3'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 0.5'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static const char* kPlateParticleXML =
    "<mujoco>\n"
    "  <option timestep='1e-4' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>\n"
    "  <size nconmax='8' njmax='32' nstack='2000'/>\n"
    "  <default><geom friction='0.5 0 0' condim='3'/></default>\n"
    "  <worldbody>\n"
    "    <body name='plate' mocap='true'>\n"
    "      <geom type='box' size='0.5 0.5 0.01' pos='0 0 -0.01'/>\n"
    "    </body>\n"
    "    <body name='particle'>\n"
    "      <freejoint/>\n"
    "      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>\n"
    "      <geom type='sphere' size='1e-3'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

//---- the plate's prescribed motion, shared by both engines ---------------------------------------

typedef struct Plate {
  double amp[6], phase[6], omega;  // A_i, C_i, omega of thesis §5.3
  double p0[3], q0[4];             // mean position, initial orientation (tbu_plateQuat0 * body's)
  double x0[3];                    // tumble's initial particle position
} Plate;

// the plate of the tumble model's scene 0 (its default parameters)
static Plate plateFromTumble(const tbModel* m, const tbData* d) {
  Plate p;
  double* vary = malloc(sizeof(double) * m->nvary);
  tb_sceneVary(m, d, 0, vary);
  const double* drv = vary + tb_varyIndex(m, TB_F_DRIVER, 0, 0);
  int plate = tb_findBody(m, "plate"), particle = tb_findBody(m, "particle");
  memcpy(p.amp, drv + TB_DRV_AMP, sizeof(p.amp));
  memcpy(p.phase, drv + TB_DRV_PHASE, sizeof(p.phase));
  p.omega = drv[TB_DRV_OMEGA];
  memcpy(p.p0, vary + tb_varyIndex(m, TB_F_BODY_POS, plate, 0), sizeof(p.p0));
  memcpy(p.x0, vary + tb_varyIndex(m, TB_F_BODY_POS, particle, 0), sizeof(p.x0));
  double qoff[4], qb[4];
  memcpy(qb, vary + tb_varyIndex(m, TB_F_BODY_QUAT, plate, 0), sizeof(qb));
  tbu_quatNormalize(qb);
  tbu_plateQuat0(qoff, p.amp + 3, p.phase + 3, p.omega);
  tbu_quatMul(p.q0, qoff, qb);
  free(vary);
  return p;
}

//---- MuJoCo ------------------------------------------------------------------------------------

// mj_loadXML reads files only in 2.2: write the string to a temporary file
static mjModel* mjLoadString(const char* xml) {
  char path[] = "/tmp/bench_cpu_XXXXXX.xml", err[1000] = "";
  int fd = mkstemps(path, 4);
  if (fd < 0) return NULL;
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  mjModel* m = mj_loadXML(path, NULL, err, sizeof(err));
  unlink(path);
  if (!m) fprintf(stderr, "bench_cpu: MJCF: %s\n", err);
  return m;
}

typedef struct MjBatch {
  mjModel* m;
  mjData** d;  // one per scene
  int n;
  const Plate* plate;  // NULL for box-stack
} MjBatch;

// plate pose at time t + h into the mocap body: the same update as tumble's driver
static void mjPlateAdvance(const Plate* p, mjData* d, double h) {
  double vel[3];
  tbu_plateQuatStep(d->mocap_quat, p->amp + 3, p->phase + 3, p->omega, d->time, h);
  tbu_plateLinear(p->amp, p->phase, p->omega, d->time + h, p->p0, d->mocap_pos, vel);
}

static void mjResetScene(const MjBatch* b, mjData* d) {
  mj_resetData(b->m, d);
  const Plate* p = b->plate;
  if (p) {
    double vel[3], n[3], ez[3] = {0, 0, 1}, r[3];
    tbu_plateLinear(p->amp, p->phase, p->omega, 0.0, p->p0, d->mocap_pos, vel);
    memcpy(d->mocap_quat, p->q0, sizeof(p->q0));
    // sphere resting on the plate, touching it where tumble's particle starts (projected)
    tbu_rotVec(n, p->q0, ez);
    for (int i = 0; i < 3; i++) r[i] = p->x0[i] - d->mocap_pos[i];
    double gap = tbu_dot3(n, r);
    for (int i = 0; i < 3; i++) d->qpos[i] = p->x0[i] + (RADIUS - gap) * n[i];
  }
  mj_forward(b->m, d);
}

static void mjRunScene(const MjBatch* b, mjData* d, int nstep) {
  for (int k = 0; k < nstep; k++) {
    if (b->plate) mjPlateAdvance(b->plate, d, b->m->opt.timestep);
    mj_step(b->m, d);
  }
}

static double mjTime(const MjBatch* b, int nstep) {
  for (int s = 0; s < b->n; s++) mjResetScene(b, b->d[s]);
  double t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 8)
  for (int s = 0; s < b->n; s++) mjRunScene(b, b->d[s], nstep);
  return omp_get_wtime() - t0;
}

//---- tumble ------------------------------------------------------------------------------------

static double tbTime(const tbModel* m, tbData* d, int nstep) {
  tb_resetData(m, d);
  double t0 = omp_get_wtime();
  if (tb_rollout(m, d, 0, d->nscene, nstep, NULL) != TB_OK) {
    fprintf(stderr, "bench_cpu: %s\n", tb_lastError());
    exit(1);
  }
  return omp_get_wtime() - t0;
}

//---- checks ------------------------------------------------------------------------------------

// largest displacement of any box of any scene from its initial position (m)
static double tbBoxDisp(const tbModel* m, const tbData* d) {
  double *vary = malloc(sizeof(double) * m->nvary), worst = 0.0;
  for (int s = 0; s < d->nscene; s++) {
    tb_sceneVary(m, d, s, vary);
    for (int b = 0; b < m->nbody; b++) {
      if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
      double dx[3];
      tbu_sub3(dx, d->body_pos + ((size_t)s * m->nbody + b) * 3,
               vary + tb_varyIndex(m, TB_F_BODY_POS, b, 0));
      worst = fmax(worst, tbu_norm3(dx));
    }
  }
  free(vary);
  return worst;
}

static double mjBoxDisp(const MjBatch* b) {
  double worst = 0.0;
  for (int s = 0; s < b->n; s++) {
    for (int j = 0; j < b->m->njnt; j++) {
      int a = b->m->jnt_qposadr[j];
      double dx[3];
      tbu_sub3(dx, b->d[s]->qpos + a, b->m->qpos0 + a);
      worst = fmax(worst, tbu_norm3(dx));
    }
  }
  return worst;
}

// height of a point above the plate plane through pos with orientation quat
static double plateGap(const double pos[3], const double quat[4], const double x[3]) {
  double n[3], r[3], ez[3] = {0, 0, 1};
  tbu_rotVec(n, quat, ez);
  tbu_sub3(r, x, pos);
  return tbu_dot3(n, r);
}

// one particle, nstep steps, in each engine: out = horizontal displacement (x, y), mean
// horizontal velocity over the last plate period (x, y), final gap to the plate (m, m/s)
static void plateCheck(const tbModel* tm, const mjModel* mm, const Plate* p, int nstep,
                       double tb_out[5], double mj_out[5]) {
  int period = (int)lround(2.0 * TB_PI / p->omega / tm->opt.timestep);
  double T = period * tm->opt.timestep;
  int particle = tb_findBody(tm, "particle"), plate = tb_findBody(tm, "plate");
  tbData* d = tb_newData(tm, 1);
  tb_defaultParams(tm, d);
  tb_resetData(tm, d);
  tb_rollout(tm, d, 0, 1, nstep - period, NULL);
  const double* x = d->body_pos + 3 * particle;
  double x1[2] = {x[0], x[1]};
  tb_rollout(tm, d, 0, 1, period, NULL);
  double tb_res[5] = {x[0] - p->x0[0], x[1] - p->x0[1], (x[0] - x1[0]) / T, (x[1] - x1[1]) / T,
                      plateGap(d->body_pos + 3 * plate, d->body_quat + 4 * plate, x)};
  memcpy(tb_out, tb_res, sizeof(tb_res));
  tb_freeData(d);

  mjData* md = mj_makeData(mm);
  MjBatch b = {(mjModel*)mm, &md, 1, p};
  mjResetScene(&b, md);
  const double* y = md->qpos;
  double y0[2] = {y[0], y[1]};
  mjRunScene(&b, md, nstep - period);
  double y1[2] = {y[0], y[1]};
  mjRunScene(&b, md, period);
  double mj_res[5] = {y[0] - y0[0], y[1] - y0[1], (y[0] - y1[0]) / T, (y[1] - y1[1]) / T,
                      plateGap(md->mocap_pos, md->mocap_quat, y) - RADIUS};
  memcpy(mj_out, mj_res, sizeof(mj_res));
  mj_deleteData(md);
}

// MuJoCo warnings (stack, contact or constraint overflow, bad qacc) over the batch
static int mjWarnings(const MjBatch* b) {
  int count = 0;
  for (int s = 0; s < b->n; s++) {
    for (int i = 0; i < mjNWARNING; i++) count += b->d[s]->warning[i].number;
  }
  return count;
}

//---- driver ------------------------------------------------------------------------------------

static void printHeader(int argc, char** argv, int threads, const tbOption* opt) {
  tbbMachine mc;
  tbb_machine(&mc);
  const char *date = mc.date, *cpu = mc.cpu, *nproc = mc.nproc, *commit = mc.commit;
  const char* load = mc.load;
  printf("# tumble CPU vs MuJoCo\n\n");
  printf("- date: %s\n- machine: %s, nproc %s\n- commit: %s\n- command: bench_cpu", date, cpu,
         nproc, commit);
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  printf("- load average at start (1, 5, 15 min): %s (other work shares the machine)\n", load);
  printf("- threads: %d (OpenMP over scenes, both engines)\n", threads);
  printf("- tumble: exact Coulomb cone, PGS (max_iter %d, tol %g, warm start %d)\n", opt->max_iter,
         opt->tol, opt->warmstart);
  printf("- MuJoCo %s: elliptic cone, Newton (100 iterations, tol 1e-8), Euler, condim 3\n",
         mj_versionString());
  printf("- timing: best of %d after a warm-up, omp_get_wtime around the stepping only\n\n", NREP);
}

typedef struct Row {
  const char* scene;
  int n, steps;
  double tb_rate, mj_rate;
  char check[256];
} Row;

// time both engines on n scenes of the scene (tumble index si, MuJoCo model mm) and fill a row
static Row benchScene(int si, const char* name, mjModel* mm, int n, int nstep) {
  Row r = {name, n, nstep, 0, 0, ""};
  tbBuild bld = tb_defaultBuild(si);
  tbModel* tm = tb_buildScene(si, &bld);
  tbData* td = tb_newData(tm, n);
  tb_defaultParams(tm, td);
  Plate plate = plateFromTumble(tm, td);
  MjBatch mb = {mm, malloc(sizeof(mjData*) * n), n, strcmp(name, "box-stack") ? &plate : NULL};
  for (int s = 0; s < n; s++) mb.d[s] = mj_makeData(mm);

  int warm = nstep / 10 > 0 ? nstep / 10 : 1;
  double tb_best = tbTime(tm, td, warm), mj_best = mjTime(&mb, warm);
  tb_best = mj_best = INFINITY;
  for (int rep = 0; rep < NREP; rep++) {
    tb_best = fmin(tb_best, tbTime(tm, td, nstep));
    mj_best = fmin(mj_best, mjTime(&mb, nstep));
  }
  r.tb_rate = (double)n * nstep / tb_best;
  r.mj_rate = (double)n * nstep / mj_best;

  int failed = 0, unconverged = 0, iter = 0;
  double iter_mean = 0.0;
  for (int s = 0; s < n; s++) {
    iter_mean += (double)td->iter_sum[s] / ((double)nstep * n);
    failed += (td->status[s] & TB_SCENE_FAILMASK) != 0;
    unconverged += (td->status[s] & TB_SCENE_UNCONVERGED) != 0;
    iter = td->iter_max[s] > iter ? td->iter_max[s] : iter;
  }
  if (!mb.plate) {
    snprintf(r.check, sizeof(r.check), "max box disp %.2e / %.2e m", tbBoxDisp(tm, td),
             mjBoxDisp(&mb));
  } else {
    int particle = tb_findBody(tm, "particle"), pl = tb_findBody(tm, "plate");
    double tb_gap = 0.0, mj_gap = 0.0;
    for (int s = 0; s < n; s++) {
      const double* pos = td->body_pos + (size_t)s * tm->nbody * 3;
      const double* quat = td->body_quat + (size_t)s * tm->nbody * 4;
      const mjData* md = mb.d[s];
      tb_gap = fmax(tb_gap, fabs(plateGap(pos + 3 * pl, quat + 4 * pl, pos + 3 * particle)));
      mj_gap = fmax(mj_gap, fabs(plateGap(md->mocap_pos, md->mocap_quat, md->qpos) - RADIUS));
    }
    snprintf(r.check, sizeof(r.check), "max final gap to plate %.1e / %.1e m", tb_gap, mj_gap);
  }
  int warnings = mjWarnings(&mb);
  size_t len = strlen(r.check);
  len += snprintf(r.check + len, sizeof(r.check) - len,
                  "; tumble PGS iterations: mean %.1f, max %d", iter_mean, iter);
  if (unconverged) {
    len += snprintf(r.check + len, sizeof(r.check) - len, ", %d scenes unconverged", unconverged);
  }
  if (failed || warnings) {
    snprintf(r.check + len, sizeof(r.check) - len, "; %d tumble scenes failed, %d MuJoCo warnings",
             failed, warnings);
  }
  fprintf(stderr, "  %s N=%d: tumble %.3g, MuJoCo %.3g scene-steps/s\n", name, n, r.tb_rate,
          r.mj_rate);
  for (int s = 0; s < n; s++) mj_deleteData(mb.d[s]);
  free(mb.d);
  tb_freeData(td);
  tb_freeModel(tm);
  return r;
}

int main(int argc, char** argv) {
  int quick = 0, nmax = 10000, stack_nmax = 10000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) {
      quick = 1;
    } else if (!strcmp(argv[i], "--nmax") && i + 1 < argc) {
      nmax = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--stack-nmax") && i + 1 < argc) {
      stack_nmax = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: bench_cpu [--quick] [--nmax N] [--stack-nmax N]\n");
      return 2;
    }
  }
  const int ns[3] = {100, 1000, 10000};
  const int nn = quick ? 2 : 3;
  const int plate_steps = quick ? 500 : 2000, stack_steps = quick ? 250 : 1000;
  const int plate_si = tb_findScene("plate-particle"), stack_si = tb_findScene("box-stack");
  mjModel* mj_plate = mjLoadString(kPlateParticleXML);
  mjModel* mj_stack = mjLoadString(kBoxStackXML);
  if (!mj_plate || !mj_stack) return 1;

  // validation: the plate particle in both engines, one scene, 2000 steps (0.2 s)
  tbBuild bld = tb_defaultBuild(plate_si);
  tbModel* tm = tb_buildScene(plate_si, &bld);
  printHeader(argc, argv, omp_get_max_threads(), &tm->opt);
  tbData* td = tb_newData(tm, 1);
  tb_defaultParams(tm, td);
  Plate plate = plateFromTumble(tm, td);
  double tv[5], mv[5];
  plateCheck(tm, mj_plate, &plate, 2000, tv, mv);
  printf("## plate-particle sanity check (1 scene, 2000 steps = 0.2 s)\n\n");
  printf(
      "Not expected to match (soft vs hard contact; MuJoCo's mocap plate has no velocity for\n"
      "friction; sphere vs point): a check that both keep the particle on the moving plate.\n\n");
  printf(
      "| engine | displacement x, y (m) | mean vx, vy over the last period (m/s) | final gap to "
      "plate (m) |\n");
  printf("|---|---|---|---|\n");
  printf("| tumble | %.3e, %.3e | %.3e, %.3e | %.2e |\n", tv[0], tv[1], tv[2], tv[3], tv[4]);
  printf("| MuJoCo | %.3e, %.3e | %.3e, %.3e | %.2e |\n\n", mv[0], mv[1], mv[2], mv[3], mv[4]);
  tb_freeData(td);
  tb_freeModel(tm);
  fflush(stdout);

  Row rows[6];
  int nrow = 0;
  for (int k = 0; k < nn && ns[k] <= nmax; k++) {
    rows[nrow++] = benchScene(plate_si, "plate-particle", mj_plate, ns[k], plate_steps);
  }
  for (int k = 0; k < nn && ns[k] <= nmax && ns[k] <= stack_nmax; k++) {
    rows[nrow++] = benchScene(stack_si, "box-stack", mj_stack, ns[k], stack_steps);
  }

  printf("## throughput (check: tumble / MuJoCo)\n\n");
  printf(
      "| scene | N | steps | tumble scene-steps/s | MuJoCo scene-steps/s | ratio (tumble/MuJoCo) "
      "| check |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nrow; i++) {
    const Row* r = &rows[i];
    printf("| %s | %d | %d | %.3g | %.3g | %.2f | %s |\n", r->scene, r->n, r->steps, r->tb_rate,
           r->mj_rate, r->tb_rate / r->mj_rate, r->check);
  }
  mj_deleteModel(mj_plate);
  mj_deleteModel(mj_stack);
  return 0;
}

// bench_gpu: the GPU path against the CPU path on the same machine, scene-steps per second.
//
// Scenes (tumble's built-ins, default parameters each moved by up to 2% per scene so that the
// scenes of a batch differ): plate-particle, sliding-sphere, plate-block, box-stack, pendulum,
// chain-wall (the 12-link chain in minimal coordinates), at
// N = 10^3 .. 10^7 scenes as device memory and the time budget allow.
//
// Before timing a scene the GPU result of 1000 scenes x 100 steps is checked against the CPU
// path's (|gpu - cpu| <= 1e-7 (1 + |cpu|) over positions, orientations and velocities; the
// tolerance is derived in tests/rollout_test.cc); a scene that fails the check is not timed.
//
// Timing: per (scene, N) one warm-up rollout of a tenth of the steps, then one timed rollout
// from the initial state, with omp_get_wtime around tb_rollout: the GPU time includes the model
// upload, the batch's transfers both ways and the launch, as a user's call sees it. The CPU path
// runs OpenMP over all of the machine's cores; its time is measured at the smaller N only (it is
// linear in N) and the ratio is taken at equal N.
//
// Variants (arguments 4 to 6): the precision (fp64, or fp32: the stages' generated twin, both
// paths in fp32, parity within 1e-4 or ten times the CPU's own spread under one float ulp of the
// positions, as tests/rollout_test.cc derives), the step solver (the
// scene's by default; parity for a named solver within 1e-5, the LM solvers carrying an ulp
// further than PGS), and the rows from which an LM solver's systems go to the batched library
// factorizations (tb_gpuSetNewtonBatch: 0 keeps them in the kernel), so that
//   bench_gpu 10000 1000 box-stack fp64 mncp-plm 0     in-kernel dense factorizations
//   bench_gpu 10000 1000 box-stack fp64 mncp-plm 32    cuBLAS gelsBatched, in phases
// compare the two Newton paths on one machine.
//
// Without a CUDA device it says so and exits 0 (nothing to compare).
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "bench_machine.h"
#include "gpu/gpu.h"
#include "gpu/gpu_settings.h"

#ifndef TUMBLE_SOURCE_DIR
#define TUMBLE_SOURCE_DIR "."
#endif

static const char* kScenes[] = {"plate-particle", "sliding-sphere", "plate-block",
                                "box-stack",      "pendulum",       "chain-wall"};

// a batch of n scenes of m, parameters jittered by a counter-based draw of (scene, parameter)
static tbData* tbb_batch(const tbModel* m, int n) {
  tbData* d = tb_newData(m, n);
  if (!d) return NULL;
  for (int s = 0; s < n; s++) {
    for (int p = 0; p < m->nparam; p++) {
      const tbParam* prm = &m->param[p];
      uint64_t h = (uint64_t)s * 0x9E3779B97F4A7C15ull ^ (uint64_t)(p + 1) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
      double u = (double)(h >> 11) / 9007199254740992.0 - 0.5;  // [-0.5, 0.5)
      double v = prm->value * (1.0 + 0.04 * u);
      int ok = (prm->lo_open ? v > prm->lo : v >= prm->lo) && v <= prm->hi;
      d->param[(size_t)s * m->nparam + p] = ok ? v : prm->value;
    }
  }
  if (tb_checkParams(m, d) != TB_OK) tb_defaultParams(m, d);
  if (tb_resetData(m, d) != TB_OK) {
    tb_freeData(d);
    return NULL;
  }
  return d;
}

// scene `name` with `solver` (-1: its own); the LCP solvers take the 4-facet pyramid, which
// they need, the others the scene's cone
static tbModel* tbb_model(const char* name, int solver) {
  int i = tb_findScene(name);
  tbBuild b = tb_defaultBuild(i);
  if (solver == TB_SOLVER_MLCP_FB_RLM || solver == TB_SOLVER_MLCP_FB_PLM ||
      solver == TB_SOLVER_LEMKE) {
    b.cone = TB_CONE_PYRAMID;
    b.facets = 4;
  }
  tbModel* m = tb_buildScene(i, &b);
  if (m && solver >= 0) m->opt.solver = solver;
  return m;
}

// seconds of a rollout of n scenes, nstep steps, on device dev (-1 on error)
static double tbb_time(const tbModel* m, int n, int nstep, int dev) {
  tbData* d = tbb_batch(m, n);
  if (!d) return -1.0;
  d->run.device = dev;
  double t = -1.0;
  if (tb_rollout(m, d, 0, n, nstep / 10 > 0 ? nstep / 10 : 1, NULL) == TB_OK) {
    tb_resetData(m, d);
    double t0 = omp_get_wtime();
    if (tb_rollout(m, d, 0, n, nstep, NULL) == TB_OK) t = omp_get_wtime() - t0;
  }
  if (t < 0.0) fprintf(stderr, "bench_gpu: %s\n", tb_lastError());
  tb_freeData(d);
  return t;
}

// largest |b - a| / (1 + |a|) over the state of the n scenes of two batches
static double tbb_maxDiff(const tbModel* m, const tbData* a, const tbData* b, int n) {
  double worst = 0.0;
  size_t nb = (size_t)n * m->nbody;
  const double* x[3] = {a->body_pos, a->body_quat, a->body_vel};
  const double* y[3] = {b->body_pos, b->body_quat, b->body_vel};
  const size_t w[3] = {3, 4, 6};
  for (int f = 0; f < 3; f++) {
    for (size_t i = 0; i < nb * w[f]; i++) {
      double r = fabs(x[f][i] - y[f][i]) / (1.0 + fabs(x[f][i]));
      if (!(r <= worst)) worst = r;
    }
  }
  return worst;
}

// largest |gpu - cpu| / (1 + |cpu|) over the state of 1000 scenes after 100 steps; where spread
// is not NULL, into it (left as it was if that rollout fails) the CPU's own difference when its
// initial positions move by one float ulp (2^-23 relative): stick-slip switches and unconverged
// strikes carry an ulp far in fp32 (tests/rollout_test.cc bounds the GPU by ten times that)
static double tbb_parity(const tbModel* m, double* spread) {
  const int n = 1000, nstep = 100;
  tbData* c = tbb_batch(m, n);
  tbData* g = tbb_batch(m, n);
  tbData* moved = spread ? tbb_batch(m, n) : NULL;
  double worst = INFINITY;
  if (moved) {
    for (size_t i = 0; i < (size_t)n * m->nbody * 3; i++)
      moved->body_pos[i] *= 1.0 + ldexp(1.0, -23);
  }
  int moved_ok = moved && tb_rollout(m, moved, 0, n, nstep, NULL) == TB_OK;
  if (g) g->run.device = TB_DEVICE_GPU;
  if (c && g && tb_rollout(m, c, 0, n, nstep, NULL) == TB_OK &&
      tb_rollout(m, g, 0, n, nstep, NULL) == TB_OK) {
    worst = tbb_maxDiff(m, c, g, n);
    if (moved_ok) *spread = tbb_maxDiff(m, c, moved, n);
  }
  tb_freeData(c);
  tb_freeData(g);
  tb_freeData(moved);
  return worst;
}

// name is an entry of the comma-separated list
static int tbb_listed(const char* list, const char* name) {
  size_t len = strlen(name);
  for (const char* p = list; (p = strstr(p, name)) != NULL; p += len) {
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  long nmax = argc > 1 ? atol(argv[1]) : 10000000L;
  int nstep = argc > 2 ? atoi(argv[2]) : 1000;
  const char* only = argc > 3 && strcmp(argv[3], "all") ? argv[3] : NULL;  // scenes, a,b,c
  int fp32 = argc > 4 && !strcmp(argv[4], "fp32");
  int solver = argc > 5 ? tb_findSolver(argv[5]) : -1;
  if (argc > 6) tb_gpuSetNewtonBatch(atoi(argv[6]));
  if (argc > 5 && solver < 0) {
    fprintf(stderr, "bench_gpu: unknown solver %s\n", argv[5]);
    return 2;
  }
  tb_setPrecision(fp32 ? TB_FP32 : TB_FP64);
  double tol = fp32 ? 1e-4 : solver >= 0 ? 1e-5 : 1e-7;
  tbbMachine mach;
  tbb_machine(&mach);
  char gpu[256];
  tb_gpuDeviceName(gpu, sizeof(gpu));
  printf("# bench_gpu: GPU path against CPU path, scene-steps/s\n\n");
  printf("- date: %s\n- cpu: %s (%s threads)\n- gpu: %s\n- commit: %s\n- load: %s\n", mach.date,
         mach.cpu, mach.nproc, gpu, mach.commit, mach.load);
  printf("- precision: %s; solver: %s; LM systems to the batched library from %d rows\n\n",
         fp32 ? "fp32" : "fp64", solver >= 0 ? argv[5] : "each scene's", tb_gpuNewtonRows());
  if (tb_gpuDeviceCount() == 0) {
    printf("no CUDA device: nothing to compare\n");
    return 0;
  }
  printf(
      "| scene | N | steps | parity (max rel diff) | GPU s | GPU scene-steps/s | CPU scene-steps/s "
      "| GPU / CPU |\n|---|---|---|---|---|---|---|---|\n");
  for (size_t k = 0; k < sizeof(kScenes) / sizeof(kScenes[0]); k++) {
    if (only && !tbb_listed(only, kScenes[k])) continue;
    tbModel* m = tbb_model(kScenes[k], solver);
    if (!m) continue;
    double spread = 0.0, par = tbb_parity(m, fp32 ? &spread : NULL);
    double bound = fmax(tol, 10.0 * spread);
    if (!(par <= bound)) {
      printf("| %s | - | - | %.3g (bound %.3g): FAILED, not timed | | | | |\n", kScenes[k], par,
             bound);
      tb_freeModel(m);
      continue;
    }
    // the CPU path's rate from a batch that takes it about a second
    int ncpu = 1000;
    double tc = tbb_time(m, ncpu, nstep, TB_DEVICE_CPU);
    double cpu_rate = tc > 0.0 ? (double)ncpu * nstep / tc : NAN;
    for (long n = 1000; n <= nmax; n *= 10) {
      double tg = tbb_time(m, (int)n, nstep, TB_DEVICE_GPU);
      if (tg < 0.0) break;
      double rate = (double)n * nstep / tg;
      printf("| %s | %ld | %d | %.2g | %.3f | %.3g | %.3g | %.1f |\n", kScenes[k], n, nstep, par,
             tg, rate, cpu_rate, rate / cpu_rate);
      fflush(stdout);
      if (tg > 60.0) break;  // the next N would take ten times as long
    }
    tb_freeModel(m);
  }
  return 0;
}

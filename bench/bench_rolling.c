// bench_rolling: the geometric-discretization loss of thesis §3.5.3.1 (Fig. 3.6). A uniform unit
// disc (m = 1, I = 0.5, mu = 0.4) rolls without slipping on a line, started at q = (0, 1, 0),
// nu = (-3, 0, 3): it should keep its 6.75 J for ever. Modelled as a regular N-gon (vertices on
// the unit circle) and stepped by the Stewart-Trinkle step, it loses kinetic energy to its vertex
// impacts, friction and the linearized gap; less as N grows and h falls, down to a floor the
// step size sets (the thesis: 1000 vertices, h = 1e-3, 5e-4, 1e-4 indistinguishable). The exact
// disc (tumble's rounded-point prism: its gap to the line is exact) is the reference the
// thesis's implicit formulation reaches; the implicit-disc scene (option implicit, the disc's
// closest points unknowns of the step) is that formulation. A second table: the cost per step of
// geometrically implicit contact against the ST step on the same scenes.
//
// Planar model: the vertical plane is tumble's xy plane (gravity -y); the floor a static box
// prism; an N-gon of more than 16 vertices a compound of convex sectors (its center and up to
// 15 consecutive vertices each). Kinetic energy after 5 s, auto solver, tolerance 1e-8.
//
//   ./build/bench/bench_rolling > bench/results/rolling-$(date -u +%F).md
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "math/tb_math.h"

#include "bench_machine.h"

#define TBB_SECONDS 5.0

// one convex prism piece on body b: n vertices v (x, y pairs), rounding radius r
static int tbb_prism(tbModel* m, int b, int n, const double* v, double r) {
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = n;
  gd.vert = v;
  gd.size[0] = r;
  gd.mu = 0.4;
  return tb_addGeom(m, &gd);
}

// the disc: the exact circle (nside 0) or a regular nside-gon, as convex sectors beyond 16
static int tbb_disc(tbModel* m, int b, int nside) {
  if (nside == 0) {
    const double centre[2] = {0.0, 0.0};
    return tbb_prism(m, b, 1, centre, 1.0);
  }
  if (nside <= 16) {
    double v[32];
    for (int k = 0; k < nside; k++) {
      double a = -0.5 * TB_PI + 2.0 * TB_PI * k / nside;  // a vertex at the bottom
      v[2 * k] = cos(a);
      v[2 * k + 1] = sin(a);
    }
    return tbb_prism(m, b, nside, v, 0.0);
  }
  int per = nside / 4 < 14 ? nside / 4 : 14;  // edges per sector: convex, under 180 degrees
  for (int k0 = 0; k0 < nside; k0 += per) {
    double v[32] = {0.0, 0.0};  // the center, then vertices k0 .. k0 + per (the next's first)
    int n = 1;
    for (int k = k0; k <= k0 + per && k <= nside; k++, n++) {
      double a = -0.5 * TB_PI + 2.0 * TB_PI * k / nside;
      v[2 * n] = cos(a);
      v[2 * n + 1] = sin(a);
    }
    if (tbb_prism(m, b, n, v, 0.0) < 0) return -1;
  }
  return 0;
}

static tbModel* tbb_model(int nside, double h) {
  tbModel* m = tb_newModel();
  m->opt.timestep = h;
  m->opt.gravity[1] = -9.81;
  m->opt.gravity[2] = 0.0;
  m->opt.solver = TB_SOLVER_AUTO;
  tbBodyDef fb = tb_defaultBodyDef();
  fb.name = "floor";
  fb.type = TB_BODY_STATIC;
  int f = tb_addBody(m, &fb);
  const double floor_v[8] = {-100.0, -1.0, 100.0, -1.0, 100.0, 0.0, -100.0, 0.0};
  tbb_prism(m, f, 4, floor_v, 0.0);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "disc";
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = 1.0;  // locked axes
  bd.inertia[2] = 0.5;
  bd.lock = TB_LOCK_PLANAR;
  bd.pos[1] = 1.0;
  bd.vel[0] = -3.0;
  bd.vel[5] = 3.0;
  int b = tb_addBody(m, &bd);
  if (tbb_disc(m, b, nside) < 0 || tb_compileModel(m) != TB_OK) {
    fprintf(stderr, "%s\n", tb_lastError());
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

// kinetic energy after TBB_SECONDS of the nside-gon (0: the circle) at step h; its status
static double tbb_energy(int nside, double h, int* status) {
  tbModel* m = tbb_model(nside, h);
  if (!m) return NAN;
  tbData* d = tb_newData(m, 1);
  tb_resetData(m, d);
  int nstep = (int)lround(TBB_SECONDS / h);
  if (tb_rollout(m, d, 0, 1, nstep, NULL) != TB_OK) fprintf(stderr, "%s\n", tb_lastError());
  const double* v = d->body_vel + 6;  // body 1, the disc
  double e = 0.5 * (v[0] * v[0] + v[1] * v[1]) + 0.25 * v[5] * v[5];
  *status = d->status[0];
  tb_freeData(d);
  tb_freeModel(m);
  return e;
}

static const char* tbb_status(int status) {
  return status == 0 ? "ok" : status == TB_SCENE_UNCONVERGED ? "unconverged" : "failed";
}

static void tbb_row(int nside, double h) {
  int status = 0;
  double e = tbb_energy(nside, h, &status);
  char name[32];
  snprintf(name, sizeof(name), nside ? "%d-gon" : "circle (exact), ST", nside);
  printf("| %s | %g | %.4f | %.2f%% | %s |\n", name, h, e, 100.0 * (1.0 - e / 6.75),
         tbb_status(status));
  fflush(stdout);
}

// scene `name` built with structural options implicit (and, when there, sides); NULL after
// saying why
static tbModel* tbb_scene(const char* name, int implicit, int sides) {
  int i = tb_findScene(name);
  tbBuild b = tb_defaultBuild(i);
  const tbSceneInfo* si = tb_sceneInfo(i);
  for (int k = 0; k < si->nopt; k++) {
    if (!strcmp(si->opt[k].name, "implicit")) b.opt[k] = implicit;
    if (!strcmp(si->opt[k].name, "sides")) b.opt[k] = sides;
  }
  tbModel* m = tb_buildScene(i, &b);
  if (!m) fprintf(stderr, "%s: %s\n", name, tb_lastError());
  return m;
}

// the implicit disc's (thesis §3.5) kinetic energy after TBB_SECONDS at step h
static double tbb_implicitEnergy(double h, int* status) {
  tbModel* m = tbb_scene("implicit-disc", 1, 0);
  if (!m) return NAN;
  tbData* d = tb_newData(m, 1);
  tb_defaultParams(m, d);
  d->param[tb_findParam(m, "dt")] = h;
  tb_resetData(m, d);
  if (tb_rollout(m, d, 0, 1, (int)lround(TBB_SECONDS / h), NULL) != TB_OK) {
    fprintf(stderr, "%s\n", tb_lastError());
  }
  const double* v = d->body_vel + 6;
  double e = 0.5 * (v[0] * v[0] + v[1] * v[1]) + 0.25 * v[5] * v[5];
  *status = d->status[0];
  tb_freeData(d);
  tb_freeModel(m);
  return e;
}

// microseconds per step of tbb_scene(name, implicit, sides), nstep steps of one scene, best of
// 3; its status into *status
static double tbb_stepCost(const char* name, int implicit, int sides, int nstep, int* status) {
  tbModel* m = tbb_scene(name, implicit, sides);
  if (!m) return NAN;
  tbData* d = tb_newData(m, 1);
  double best = INFINITY;
  for (int rep = 0; rep < 3; rep++) {
    tb_resetData(m, d);
    double t0 = tb_clock();
    tb_rollout(m, d, 0, 1, nstep, NULL);
    best = fmin(best, tb_clock() - t0);
  }
  *status = d->status[0];
  tb_freeData(d);
  tb_freeModel(m);
  return 1e6 * best / nstep;
}

// one row of the cost table: the formulation's cost per step, and its ratio to the ST step's
static void tbb_costRow(const char* name, const char* what, int implicit, int sides, int nstep,
                        double st) {
  int status = 0;
  double us = tbb_stepCost(name, implicit, sides, nstep, &status);
  char ratio[32] = "-";
  if (st > 0.0) snprintf(ratio, sizeof(ratio), "%.1f", us / st);
  printf("| %s | %s | %d | %.2f | %s | %s |\n", name, what, nstep, us, ratio, tbb_status(status));
  fflush(stdout);
}

int main(void) {
  tbbMachine mc;
  tbb_machine(&mc);
  printf("# Rolling disc: kinetic energy lost to the polygon (thesis §3.5.3.1, Fig. 3.6)\n\n");
  printf("%s, %s (%s cores), commit %s, load %s. `bench_rolling`; start 6.75 J.\n\n", mc.date,
         mc.cpu, mc.nproc, mc.commit, mc.load);
  printf("| shape | h (s) | kinetic energy after %g s (J) | lost | status |\n", TBB_SECONDS);
  printf("|---|---:|---:|---:|---|\n");
  const int sides[] = {0, 6, 10, 20, 50, 100, 1000};
  for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) tbb_row(sides[i], 0.01);
  const double steps[] = {5e-3, 1e-3, 5e-4, 1e-4};
  for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) tbb_row(1000, steps[i]);
  tbb_row(0, 1e-3);
  const double hs[] = {1e-2, 1e-3};
  for (int k = 0; k < 2; k++) {
    int status = 0;
    double e = tbb_implicitEnergy(hs[k], &status);
    printf("| circle, implicit (§3.5) | %g | %.4f | %.2e%% | %s |\n", hs[k], e,
           100.0 * (1.0 - e / 6.75), tbb_status(status));
  }
  printf("\n## Cost per step: geometrically implicit contact against the ST step\n\n");
  printf(
      "One scene, one thread, `tb_rollout`, best of 3; ratio: to the ST step on the same "
      "scene.\n\n");
  printf(
      "| scene | formulation | steps | us/step | / ST | status |\n|---|---|---:|---:|---:|---|\n");
  int status = 0;
  double st = tbb_stepCost("implicit-disc", 0, 0, 1000, &status);
  tbb_costRow("implicit-disc", "ST, exact disc on a box", 0, 0, 1000, st);
  tbb_costRow("implicit-disc", "ST, 16-gon on a box", 0, 16, 1000, st);
  tbb_costRow("implicit-disc", "implicit, disc on a half-plane", 1, 0, 1000, st);
  st = tbb_stepCost("implicit-spheres", 0, 0, 500, &status);
  tbb_costRow("implicit-spheres", "ST (no torsion)", 0, 0, 500, st);
  tbb_costRow("implicit-spheres", "implicit, elliptic friction with torsion", 1, 0, 500, st);
  tbb_costRow("implicit-compliant", "implicit, compliant with a core", 1, 0, 10000, 0.0);
  tbb_costRow("implicit-coin", "implicit, a cut shape: falls, lands on its rim, slaps flat", 1, 0,
              120, 0.0);
  tbb_costRow("implicit-coin", "the same, then rests", 1, 0, 1000, 0.0);
  return 0;
}

// A program of one's own against an installed tumble: a box launched at 2 m/s across a floor,
// one scene per friction coefficient, all in one batch. Coulomb friction stops it after
// v0^2 / (2 mu g); the program prints each scene's distance against that and exits 1 when one
// is off by more than 1% (the step's first-order time discretization is well inside that).
#include <math.h>
#include <stdio.h>

#include <tumble/tumble.h>
#include <tumble/version.h>

enum { NSCENE = 8, NSTEP = 3000 };

static tbModel* slideModel(void) {
  tbModel* m = tb_newModel();
  tbBodyDef floor = tb_defaultBodyDef();
  floor.name = "floor";
  floor.type = TB_BODY_STATIC;
  tbGeomDef plane = tb_defaultGeomDef();
  plane.body = tb_addBody(m, &floor);
  plane.type = TB_GEOM_PLANE;
  plane.mu = 0.0;  // a contact takes the larger of its two shapes' mu: the box's decides
  tb_addGeom(m, &plane);

  tbBodyDef box = tb_defaultBodyDef();
  box.name = "box";
  box.mass = 1.0;
  box.inertia[0] = box.inertia[1] = box.inertia[2] = 1.0 / 150.0;  // 0.2 m cube
  box.pos[2] = 0.1;
  box.vel[0] = 2.0;
  tbGeomDef cube = tb_defaultGeomDef();
  cube.body = tb_addBody(m, &box);
  cube.type = TB_GEOM_BOX;
  cube.size[0] = cube.size[1] = cube.size[2] = 0.1;
  tb_addGeom(m, &cube);

  m->opt.timestep = 1e-3;
  m->opt.tol = 1e-10;
  m->opt.max_iter = 500;
  int mu = tb_addParam(m, "mu", "", "the box's friction coefficient", 0.0, 10.0, 1);
  tb_paramTarget(m, mu, TB_F_GEOM_MU, 1, 0);
  if (tb_compileModel(m) != TB_OK) {
    fprintf(stderr, "slide: %s\n", tb_lastError());
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

int main(void) {
  printf("tumble %s\n", TUMBLE_VERSION);
  tbModel* m = slideModel();
  if (!m) return 1;
  tbData* d = tb_newData(m, NSCENE);
  int mu = tb_findParam(m, "mu"), box = tb_findBody(m, "box");
  for (int s = 0; s < NSCENE; s++) d->param[s * m->nparam + mu] = 0.2 + 0.1 * s;
  int bad = tb_resetData(m, d) != TB_OK || tb_rollout(m, d, 0, NSCENE, NSTEP, NULL) != TB_OK;
  if (bad) fprintf(stderr, "slide: %s\n", tb_lastError());
  for (int s = 0; !bad && s < NSCENE; s++) {
    double mus = d->param[s * m->nparam + mu];
    double want = 2.0 * 2.0 / (2.0 * mus * fabs(m->opt.gravity[2]));
    double got = d->body_pos[(s * m->nbody + box) * 3 + 0];
    int ok = fabs(got - want) <= 0.01 * want && d->status[s] == 0;
    printf("mu %.2f: slid %.4f m, Coulomb %.4f m, status %d%s\n", mus, got, want, d->status[s],
           ok ? "" : "  <- off");
    bad |= !ok;
  }
  tb_freeData(d);
  tb_freeModel(m);
  return bad;
}

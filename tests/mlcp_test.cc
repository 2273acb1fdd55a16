// The mixed LCP of thesis Eq. 2.78 (host/engine/mlcp.c): sizes of the planar examples of thesis
// §2.7, and the step's own solution satisfying it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/engine.h"

namespace {

// planar (x, y, yaw) models of thesis §2.7 with gravity along -y
struct Planar {
  tbModel* m = tb_newModel();
  int rod(const char* name, double cx, double cy) {
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = name;
    bd.pos[0] = cx;
    bd.pos[1] = cy;
    bd.inertia[2] = 1.0 / 12.0;  // slender rod, m = 1, L = 1
    bd.vel[5] = 0.7;
    bd.lock = TB_LOCK_PLANAR;
    return tb_addBody(m, &bd);
  }
  void pin(int a, int b, double x, double y) {
    tbJointDef jd = tb_defaultJointDef();
    jd.type = TB_JOINT_REVOLUTE;
    jd.body_a = a;
    jd.body_b = b;
    jd.anchor[0] = x;
    jd.anchor[1] = y;
    tb_addJoint(m, &jd);
  }
  void point(int body, double x, double y, double mu, int bits) {
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = body;
    gd.pos[0] = x;
    gd.pos[1] = y;
    gd.mu = mu;
    gd.contype = gd.conaffinity = bits;
    tb_addGeom(m, &gd);
  }
  Planar() {
    m->opt.gravity[1] = -9.81;
    m->opt.gravity[2] = 0.0;
    m->opt.cone = TB_CONE_PYRAMID;
    m->opt.facets = 4;
    m->opt.tol = 1e-13;
    m->opt.max_iter = 5000;
  }
  ~Planar() { tb_freeModel(m); }
};

// block C on the floor y = 0 with contact points at its two bottom corners, the two rods
// hanging from its center
void BlockOnFloor(Planar& p, double mu, bool pusher) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "floor";
  bd.type = TB_BODY_STATIC;
  const double ex[3] = {1, 0, 0};
  tbu_quatAxisAngle(bd.quat, ex, -M_PI / 2);  // plane normal +y
  int f = tb_addBody(p.m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = f;
  gd.type = TB_GEOM_PLANE;
  gd.mu = mu;
  tb_addGeom(p.m, &gd);
  bd = tb_defaultBodyDef();
  bd.name = "C";
  bd.mass = 2.0;
  bd.pos[1] = 0.25;
  bd.inertia[2] = 2.0 * (1.0 + 0.25) / 12.0;
  bd.vel[0] = 0.3;
  bd.lock = TB_LOCK_PLANAR;
  int c = tb_addBody(p.m, &bd);
  p.point(c, -0.5, -0.25, mu, 1);
  p.point(c, 0.5, -0.25, mu, 1);
  int a = p.rod("A", 0.0, -0.25);
  int b = p.rod("B", 0.0, -1.25);
  p.pin(a, c, 0.0, 0.25);
  p.pin(b, a, 0.0, -0.75);
  if (!pusher) return;
  // the block's side for the pusher only (collision bits 2), and the pusher: a kinematic point
  gd = tb_defaultGeomDef();
  gd.body = c;
  gd.type = TB_GEOM_BOX;
  gd.size[0] = 0.5;
  gd.size[1] = 0.25;
  gd.size[2] = 0.1;
  gd.mu = mu;
  gd.contype = gd.conaffinity = 2;
  tb_addGeom(p.m, &gd);
  bd = tb_defaultBodyDef();
  bd.name = "pusher";
  bd.type = TB_BODY_KINEMATIC;
  bd.pos[0] = -0.5;
  bd.pos[1] = 0.25;
  int k = tb_addBody(p.m, &bd);
  p.point(k, 0.0, 0.0, mu, 2);
  tbDriverDef dd = tb_defaultDriverDef();
  dd.body = k;
  dd.type = TB_DRIVER_CONSTVEL;
  dd.vel[0] = 0.5;
  tb_addDriver(p.m, &dd);
}

// one step, then the MLCP of that step; checks that the step's impulses and velocities solve it
int StepAndCheck(tbModel* m) {
  EXPECT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  tbData* d = tb_newData(m, 1);
  tbWork* w = tb_newWork(m);
  tb_stepScene(m, d, 0, w);
  EXPECT_EQ(d->status[0] & TB_SCENE_UNCONVERGED, 0);
  tbMLCP p;
  EXPECT_EQ(tb_buildMLCP(m, w, &p), TB_OK) << tb_lastError();
  int n = p.n;
  // z = [v+ (unlocked), p_b, p_n, p_f, sigma] from the Delassus solution
  std::vector<double> z(n, 0.0), wv(n);
  int v = 0;
  for (int b = 0; b < m->nbody; b++) {
    for (int k = 0; k < 6; k++) {
      if (m->body_type[b] == TB_BODY_DYNAMIC && !(m->body_lock[b] & (1 << k))) {
        z[v++] = w->vfree[6 * b + k];
      }
    }
  }
  int rb = p.nv, rn = p.nv + p.nb, rf = rn + p.nc, rs = rf + p.nf;
  for (int k = 0; k < w->nblock; k++) {
    int i = w->blk_adr[k];
    if (w->blk_type[k] == TB_BLOCK_BOX) {
      z[rb++] = w->x[i];
      continue;
    }
    z[rn++] = w->x[i];
    if (w->blk_dim[k] == 2) {  // one tangent: directions +t, -t
      z[rf++] = std::max(w->x[i + 1], 0.0);
      z[rf++] = std::max(-w->x[i + 1], 0.0);
    }
  }
  auto rowValue = [&](int r) {
    double s = p.q[r];
    for (int j = 0; j < n; j++) s += p.M[(size_t)r * n + j] * z[j];
    return s;
  };
  // sigma: the slip speed, max over facets of -d_j . v_t (rows with sigma still 0)
  for (int r = p.nfree + p.nc, c = 0; c < p.nf; c += 2, r += 2) {
    z[rs++] = std::max({0.0, -rowValue(r), -rowValue(r + 1)});
  }
  double worst = 0.0;
  for (int r = 0; r < n; r++) {
    double val = rowValue(r);
    worst = std::max(worst, r < p.nfree ? std::fabs(val) : std::fabs(std::min(val, z[r])));
  }
  // the Delassus solve reached 1e-13 relative; impulses are O(1e-2): 1e-10 absolute
  EXPECT_LT(worst, 1e-10) << "size " << n;
  int size = n;
  tb_freeMLCP(&p);
  tb_freeWork(w);
  tb_freeData(d);
  return size;
}

TEST(MlcpTest, ThesisSection27Sizes) {
  {
    // §2.7.1: planar two-bar pendulum: 6 velocities + 4 bilateral rows
    Planar p;
    int a = p.rod("A", 0.0, -0.5), b = p.rod("B", 0.0, -1.5);
    p.pin(a, -1, 0.0, 0.0);
    p.pin(b, a, 0.0, -1.0);
    EXPECT_EQ(StepAndCheck(p.m), 10);
  }
  {
    // §2.7.2: on block C, frictionless floor, 2 contacts: 9 + 4 + 2
    Planar p;
    BlockOnFloor(p, 0.0, false);
    EXPECT_EQ(StepAndCheck(p.m), 15);
  }
  {
    // §2.7.3: with friction, 2 directions per contact: 9 + 4 + 2 + 4 + 2
    Planar p;
    BlockOnFloor(p, 0.3, false);
    EXPECT_EQ(StepAndCheck(p.m), 21);
  }
  {
    // §2.7.4: plus a position-controlled particle pusher, a third contact: 9 + 4 + 3 + 6 + 3
    Planar p;
    BlockOnFloor(p, 0.3, true);
    EXPECT_EQ(StepAndCheck(p.m), 25);
  }
}

}  // namespace

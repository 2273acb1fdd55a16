// The quasistatic steppers of thesis §3.4 (Model-DQC, Model-DLC): the fence-particle problem of
// §3.4.6 and a pusher moving a planar part on a support tripod.
#include <gtest/gtest.h>
#include <math.h>

#include <algorithm>
#include <string>
#include <vector>

#include <tumble/mjcf.h>
#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "engine/engine.h"
#include "test_util.h"

namespace {

// the fence's x at time t (scene qs-fence's defaults)
double fenceX(double t) {
  return 0.5 + 0.4 * sin(t);
}

// one run of qs-fence stepped one step at a time, with what each step did
struct FenceRun {
  std::vector<double> x, y, z, floor_force;
  int unconverged = 0, status = 0;
  FenceRun(int cone, double mu, int nstep) {
    Scene sc("qs-fence", 1, {}, cone, 4);
    sc.set("mu", mu);
    sc.reset();
    tbWork* w = tb_newWork(sc.m);
    std::vector<tbContactForce> cf(sc.m->maxrow);
    int p = sc.body("particle"), ground = sc.body("ground");
    x.push_back(sc.pos(p)[0]);
    y.push_back(sc.pos(p)[1]);
    z.push_back(sc.pos(p)[2]);
    for (int k = 0; k < nstep; k++) {
      tb_stepScene(sc.m, sc.d, 0, w);
      unconverged += (sc.d->status[0] & TB_SCENE_UNCONVERGED) != 0;
      double fz = 0.0;
      int nc = tb_stepContacts(sc.m, w, cf.data());
      for (int c = 0; c < nc; c++) {
        if (cf[c].body[0] == p && cf[c].body[1] == ground) fz += cf[c].force[2];
        if (cf[c].body[1] == p && cf[c].body[0] == ground) fz -= cf[c].force[2];
      }
      floor_force.push_back(fz);
      x.push_back(sc.pos(p)[0]);
      y.push_back(sc.pos(p)[1]);
      z.push_back(sc.pos(p)[2]);
    }
    status = sc.d->status[0];
    tb_freeWork(w);
  }
};

TEST(QuasistaticTest, FenceParticleRestsUntilPushedAndSlidesAlongTheFence) {
  // Model-DQC (exact cone), mu 0.5 everywhere, h = 0.01 s, one period of the fence. Thesis
  // §3.4.6: the particle does not move unless the fence reaches it. While pushed it sits on the
  // fence (x_p = x_fence) and, since the fence sweeps along itself faster (1 m/s) than it
  // advances (<= 0.4 m/s), the fence slides on it: the fence's friction mu N along y against the
  // floor's mu m g opposite the particle's motion balance at dy / dx = mu (whatever the floor's
  // mu), so y gains mu times the ground x gains. The floor carries m g throughout.
  const double mu = 0.5, h = 0.01, x0 = 0.7, g = 9.81;
  const int n = 629;
  FenceRun r(TB_CONE_EXACT, mu, n);
  EXPECT_EQ(r.unconverged, 0);
  EXPECT_EQ(r.status, 0);
  int pushed = 0;
  double x_max = x0;
  for (int k = 1; k <= n; k++) {
    double xf = fenceX(k * h);
    x_max = std::max(x_max, xf);
    EXPECT_NEAR(r.z[k], 0.0, 1e-12) << k;
    EXPECT_NEAR(r.floor_force[k - 1], g, 1e-9 * g) << k;
    if (xf > r.x[k - 1]) {  // the fence passes the particle's place within the step: it pushes
      pushed++;
      EXPECT_NEAR(r.x[k], xf, 1e-9) << k;
      EXPECT_NEAR(r.y[k] - r.y[k - 1], mu * (r.x[k] - r.x[k - 1]), 1e-9) << k;
    } else {  // at rest: the solver's tolerance (1e-8 on the force balance) moves it < 1 nm
      EXPECT_NEAR(r.x[k], r.x[k - 1], 1e-9) << k;
      EXPECT_NEAR(r.y[k], r.y[k - 1], 1e-9) << k;
    }
  }
  EXPECT_GT(pushed, 50);       // from t = pi/6 to pi/2
  EXPECT_LT(pushed, n - 400);  // and not after
  EXPECT_NEAR(r.x[n], x_max, 1e-9);
  EXPECT_NEAR(r.y[n], mu * (x_max - x0), 1e-8);
}

TEST(QuasistaticTest, FrictionlessDlcKeepsThePointBetweenFenceAndWall) {
  // Model-DLC (pyramid) without friction: nothing holds the particle along x or y, so every
  // place between the fence and the wall solves a step; the fence may not pass it, the wall
  // stops it, y never changes, and every step converges.
  const double h = 0.01;
  const int n = 629;
  FenceRun r(TB_CONE_PYRAMID, 0.0, n);
  EXPECT_EQ(r.unconverged, 0);
  EXPECT_EQ(r.status, 0);
  for (int k = 1; k <= n; k++) {
    EXPECT_GE(r.x[k], fenceX(k * h) - 1e-9) << k;
    EXPECT_LE(r.x[k], 1.0 + 1e-9) << k;
    EXPECT_NEAR(r.y[k], 0.0, 1e-9) << k;
  }
}

TEST(QuasistaticTest, FrictionlessDlcIsNotUniqueAndDqcWithFrictionIs) {
  // Thesis §3.4.6: with the particle between the wall and the fence, touching neither, the
  // frictionless Model-DLC is solved by any displacement that keeps it between them, and the
  // answer follows the initial guess; Model-DQC with friction only by rest. The step starts
  // from the velocity the scene holds (vx0, vy0): from rest, and from 3 mm and 1 mm per step.
  for (int dqc = 0; dqc < 2; dqc++) {
    Scene sc("qs-fence", 2, {}, dqc ? TB_CONE_EXACT : TB_CONE_PYRAMID, 4);
    sc.set("mu", dqc ? 0.5 : 0.0);
    sc.set("vx0", 0.3, 1);
    sc.set("vy0", 0.1, 1);
    sc.reset();
    sc.run(1);
    int p = sc.body("particle");
    for (int s = 0; s < 2; s++) {
      EXPECT_EQ(sc.d->status[s], 0) << s;
      double dx = sc.pos(p, s)[0] - 0.7, dy = sc.pos(p, s)[1];
      EXPECT_NEAR(dx, dqc || !s ? 0.0 : 0.003, 1e-9) << (dqc ? "DQC " : "DLC ") << s;
      EXPECT_NEAR(dy, dqc || !s ? 0.0 : 0.001, 1e-9) << (dqc ? "DQC " : "DLC ") << s;
    }
  }
}

// one run of qs-push (or its dynamic twin: the same model with the dynamic step and auto):
// the part's x, y and yaw after each step, and the tip's x
struct PushRun {
  std::vector<double> x, y, yaw, tip;
  int unconverged = 0, status = 0;
  PushRun(double offset, int nstep, int dynamic = 0, int cone = TB_CONE_EXACT) {
    Scene sc("qs-push", 1, {}, cone);
    if (dynamic) {
      sc.m->opt.quasistatic = 0;
      sc.m->opt.solver = TB_SOLVER_AUTO;
    }
    sc.set("offset", offset);
    sc.reset();
    int part = sc.body("part"), pusher = sc.body("pusher");
    tbWork* w = tb_newWork(sc.m);
    for (int k = 0; k < nstep; k++) {
      tb_stepScene(sc.m, sc.d, 0, w);
      unconverged += (sc.d->status[0] & TB_SCENE_UNCONVERGED) != 0;
      const double* q = sc.quat(part);
      x.push_back(sc.pos(part)[0]);
      y.push_back(sc.pos(part)[1]);
      yaw.push_back(2.0 * atan2(q[3], q[0]));
      tip.push_back(sc.pos(pusher)[0]);
    }
    status = sc.d->status[0];
    tb_freeWork(w);
  }
};

TEST(QuasistaticTest, PusherMovesThePartOnlyWhileTouching) {
  // A 5 mm tip at 2 cm/s reaches the part's back face (x = -0.05) after (0.1 - 0.05 - 0.005) /
  // 0.02 = 2.25 s. Before, the part rests exactly; after, pushed through its center line over a
  // tripod symmetric about it, it translates without turning, its back face on the tip.
  const int n = 1000;
  PushRun c(0.0, n);
  EXPECT_EQ(c.unconverged, 0);
  EXPECT_EQ(c.status, 0);
  for (int k = 0; k < n; k++) {
    double t = (k + 1) * 0.01;
    if (t < 2.24) {
      EXPECT_EQ(c.x[k], 0.0) << k;
    } else if (t > 2.26) {
      EXPECT_NEAR(c.x[k], c.tip[k] + 0.005 + 0.05, 1e-9) << k;
    }
    EXPECT_NEAR(c.y[k], 0.0, 1e-9) << k;
    EXPECT_NEAR(c.yaw[k], 0.0, 1e-9) << k;
  }
  // pushed 2 cm below its center line, the part turns counter-clockwise (the push's moment
  // about its center is +z) and is pushed forward all the same
  PushRun off(-0.02, n);
  EXPECT_EQ(off.unconverged, 0);
  EXPECT_GT(off.yaw[n - 1], 0.1);
  EXPECT_GT(off.x[n - 1], 0.05);
  // and pushed 2 cm on the other side, its mirror image (the tripod is symmetric about y = 0)
  PushRun mirror(0.02, n);
  for (int k = 0; k < n; k++) {
    EXPECT_NEAR(mirror.x[k], off.x[k], 1e-9) << k;
    EXPECT_NEAR(mirror.y[k], -off.y[k], 1e-9) << k;
    EXPECT_NEAR(mirror.yaw[k], -off.yaw[k], 1e-9) << k;
  }
  // Model-DLC (the tripods' friction on 8-facet pyramids) turns it the same way, and converges
  // (a tripod beside a shape contact under the pyramid once found its scratch too small, in the
  // dynamic step too: solver-inapplicable at the first touch)
  PushRun dlc(-0.02, n, 0, TB_CONE_PYRAMID), dyn(-0.02, n, 1, TB_CONE_PYRAMID);
  EXPECT_EQ(dlc.unconverged, 0);
  EXPECT_EQ(dlc.status, 0);
  EXPECT_EQ(dyn.status & TB_SCENE_FAILMASK, 0);
  EXPECT_GT(dyn.yaw[n - 1], 0.1);
  EXPECT_NEAR(dlc.yaw[n - 1], off.yaw[n - 1], 0.1 * off.yaw[n - 1]);
}

TEST(QuasistaticTest, SlowDynamicPushingApproachesTheQuasistaticOne) {
  // The same push in the dynamic step: at 2 cm/s the part's inertia (0.5 kg) is small beside the
  // tripod's friction (mu m g = 1.6 N), so the two runs' part poses stay close.
  const int n = 1000;
  PushRun qs(-0.02, n), dyn(-0.02, n, 1);
  EXPECT_EQ(dyn.status, 0);
  double dx = 0.0, dyaw = 0.0;
  for (int k = 0; k < n; k++) {
    dx = std::max(dx, std::hypot(qs.x[k] - dyn.x[k], qs.y[k] - dyn.y[k]));
    dyaw = std::max(dyaw, fabs(qs.yaw[k] - dyn.yaw[k]));
  }
  // seen: 1.3e-4 m and 7.5e-4 rad
  EXPECT_LT(dx, 5e-4);
  EXPECT_LT(dyaw, 3e-3);
}

TEST(QuasistaticTest, MjcfChoosesTheQuasistaticStep) {
  // models/box-stack.xml with tumble_option_quasistatic: the stack is in equilibrium, so the
  // quasistatic step leaves it where it is (a dynamic step would settle it by its gaps)
  std::string path = std::string(TUMBLE_MODELS) + "/box-stack.xml";
  Scene sc(tb_loadMJCF(mjcfWithNumeric(path, "tumble_option_quasistatic", "1").c_str()), 1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  EXPECT_EQ(sc.m->opt.quasistatic, 1);
  EXPECT_EQ(sc.m->opt.solver, TB_SOLVER_AUTO);
  sc.reset();
  sc.run(100);
  EXPECT_EQ(sc.d->status[0], 0);
  for (int b = 0; b < sc.m->nbody; b++) {
    EXPECT_NEAR(sc.pos(b)[2], sc.m->bdef[b].pos[2], 1e-9) << sc.m->body_name[b];
  }
  EXPECT_EQ(tb_loadMJCF(mjcfWithNumeric(path, "tumble_option_quasistatic", "2").c_str()), nullptr);
  EXPECT_NE(std::string(tb_lastError()).find("tumble_option_quasistatic"), std::string::npos)
      << tb_lastError();
}

TEST(QuasistaticTest, AStepWithoutEquilibriumStopsItsSceneOnly) {
  // scene 1 pulled sideways beyond what the floor holds (6 > mu g = 4.9 m/s^2): no quasistatic
  // answer, the scene stops at its first step. Scene 2's fence swings past the wall (0.65 +
  // 0.4 sin t reaches 1 at t = 1.07 s): no place is left for the point, the forces still
  // balance (fence and wall push against each other) but the contacts cannot hold, as in a
  // dynamic step: unconverged, a warning with its residual. Scene 0 runs its whole period.
  Scene sc("qs-fence", 3);
  sc.set("gravity_x", 6.0, 1);
  sc.set("fence_x0", 0.65, 2);
  sc.reset();
  sc.run(629);
  EXPECT_EQ(sc.d->status[0], 0);
  EXPECT_EQ(sc.d->status[1], TB_SCENE_BALANCE_FAIL);
  EXPECT_EQ(sc.d->fail_step[1], 0);
  EXPECT_EQ(sc.d->status[2], TB_SCENE_UNCONVERGED);
  for (int s = 1; s < 3; s++) EXPECT_GT(sc.d->resid_max[s], 1e-3) << s;
  char text[64];
  tb_statusText(sc.d->status[1], text, sizeof(text));
  EXPECT_STREQ(text, "no-equilibrium");
}

// a quasistatic model of one sphere: restitution e, a parameter "e" on it, and with `minimal` a
// minimal revolute joint to the world; compiled (NULL, the error set, when refused)
tbModel* oneSphere(int quasistatic, double e, int minimal) {
  tbModel* m = tb_newModel();
  m->opt.quasistatic = quasistatic;
  tbBodyDef bd = tb_defaultBodyDef();
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.restitution = e;
  int g = tb_addGeom(m, &gd);
  int p = tb_addParam(m, "e", "", "restitution", 0.0, 1.0, 0);
  tb_paramTarget(m, p, TB_F_GEOM_REST, g, 0);
  if (minimal) {
    tbJointDef jd = tb_defaultJointDef();
    jd.body_a = b;
    jd.body_b = -1;
    jd.axis[1] = 1.0;
    jd.minimal = 1;
    tb_addJoint(m, &jd);
  }
  if (tb_compileModel(m) == TB_OK) return m;
  tb_freeModel(m);
  return nullptr;
}

// the last error holds `what`
void expectError(const char* what) {
  EXPECT_NE(std::string(tb_lastError()).find(what), std::string::npos) << tb_lastError();
}

TEST(QuasistaticTest, BadSettingsAreNamed) {
  EXPECT_EQ(oneSphere(2, 0.0, 0), nullptr);
  expectError("option quasistatic 2 must be 0 or 1");
  // restitution has nothing to act on: in the model, or in one scene's parameters
  EXPECT_EQ(oneSphere(1, 0.5, 0), nullptr);
  expectError("geom 0: restitution 0.5");
  Scene sc(oneSphere(1, 0.0, 0), 2);
  sc.set("e", 0.3, 1);
  EXPECT_NE(tb_resetData(sc.m, sc.d), TB_OK);
  expectError("scene 1: geom 0: restitution 0.3");
  // a tree's coordinates are not its unknowns
  EXPECT_EQ(oneSphere(1, 0.0, 1), nullptr);
  expectError("no minimal-coordinate joints");
  // one problem per step is what the export writes
  Scene fence("qs-fence", 1);
  fence.reset();
  int written = 0;
  EXPECT_NE(tb_exportProblems(fence.m, fence.d, 10, 1, "/tmp/never", &written), TB_OK);
  expectError("a quasistatic step solves several problems");
  EXPECT_EQ(written, 0);
}

}  // namespace

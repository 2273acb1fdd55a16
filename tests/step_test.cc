// Closed-form physics checks of the Stewart-Trinkle step (host/rollout/rollout.c and its stages).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "math/collide_geom.h"

#include "test_util.h"

namespace {

const double kG = 9.81;

// first time the sphere's contact slip v_x - R w_y falls to ~0 (pure rolling)
double RollingStart(Scene& sc, int nstep) {
  int b = sc.body("sphere");
  for (int k = 1; k <= nstep; k++) {
    sc.run(1);
    double slip = sc.vel(b)[0] - 1.0 * sc.vel(b)[4];
    if (std::fabs(slip) < 1e-9) return sc.d->time[0];
  }
  return -1.0;
}

// Mylapilli & Jain Example 1: m = 1, R = 1, v0 = 2, mu = 0.2, dt = 1e-3. Rolling starts at
// t* = 2 v0 / (7 mu g) = 0.291248 s with v = 5 v0 / 7 for the exact cone at any tangent frame.
TEST(StepTest, SlidingSphereExactConeAnyFrame) {
  const double tstar = 2 * 2.0 / (7 * 0.2 * kG);
  for (double angle : {0.0, 0.7, 2.3, -1.1}) {
    Scene sc("sliding-sphere", 1);
    sc.set("frame_angle", angle);
    sc.reset();
    double t = RollingStart(sc, 600);
    // the discrete switch happens within one step of t* (the step that crosses it)
    EXPECT_NEAR(t, tstar, 1.01e-3) << "frame angle " << angle;
    sc.run(600 - (int)std::lround(t / 1e-3));
    int b = sc.body("sphere");
    // after the switch the sphere rolls at 5 v0 / 7; solver tolerance 1e-10 relative
    EXPECT_NEAR(sc.vel(b)[0], 10.0 / 7.0, 1e-8) << "frame angle " << angle;
    EXPECT_NEAR(sc.vel(b)[4], 10.0 / 7.0, 1e-8);
    // nothing moves sideways or spins about other axes
    EXPECT_LT(std::fabs(sc.vel(b)[1]) + std::fabs(sc.vel(b)[3]) + std::fabs(sc.vel(b)[5]), 1e-9);
  }
}

// The 4-facet pyramid at 45 degrees to the slip caps the friction along x at mu N / sqrt 2,
// so the sphere slides sqrt(2) times longer (0.4119 s); at 0 degrees it matches the cone.
TEST(StepTest, SlidingSpherePyramid) {
  const double tstar = 2 * 2.0 / (7 * 0.2 * kG);
  {
    Scene sc("sliding-sphere", 1, {}, TB_CONE_PYRAMID, 4);
    sc.set("facet_angle", M_PI / 4);
    sc.reset();
    EXPECT_NEAR(RollingStart(sc, 700), std::sqrt(2.0) * tstar, 1.01e-3);
  }
  {
    Scene sc("sliding-sphere", 1, {}, TB_CONE_PYRAMID, 4);
    sc.reset();
    EXPECT_NEAR(RollingStart(sc, 700), tstar, 1.01e-3);
  }
  {
    // aligning a facet against the slip each step removes the error (M&J's remedy)
    Scene sc("sliding-sphere", 1, {}, TB_CONE_PYRAMID, 4, 1);
    sc.set("facet_angle", M_PI / 4);
    sc.reset();
    EXPECT_NEAR(RollingStart(sc, 700), tstar, 1.01e-3);
  }
}

// speed along the slope after 1 s on the incline
double InclineSpeed(double angle_deg, double yaw_deg, double mu, int cone, int facets) {
  Scene sc("incline-block", 1, {{"angle", angle_deg}, {"yaw", yaw_deg}}, cone, facets);
  sc.set("mu", mu);
  sc.reset();
  sc.run(1000);
  const double* v = sc.vel(sc.body("block"));
  double th = angle_deg * M_PI / 180;
  // downhill direction of the tilted plane
  return v[0] * std::cos(th) - v[2] * std::sin(th);
}

TEST(StepTest, InclineSticksBelowFrictionAngle) {
  // tan 20 deg = 0.364 < 0.5: the block stays (solver tolerance 1e-10 -> sub-micron creep)
  Scene sc("incline-block", 1, {{"angle", 20.0}});
  sc.set("mu", 0.5);
  sc.reset();
  int b = sc.body("block");
  double p0[3] = {sc.pos(b)[0], sc.pos(b)[1], sc.pos(b)[2]};
  sc.run(1000);
  double d = std::hypot(sc.pos(b)[0] - p0[0], sc.pos(b)[1] - p0[1], sc.pos(b)[2] - p0[2]);
  EXPECT_LT(d, 1e-6);
}

TEST(StepTest, InclineSlidesWithCoulombAcceleration) {
  // tan 30 deg > 0.3: a = g (sin - mu cos); backward Euler integrates constant a exactly
  double a = kG * (std::sin(M_PI / 6) - 0.3 * std::cos(M_PI / 6));
  EXPECT_NEAR(InclineSpeed(30, 0, 0.3, TB_CONE_EXACT, 8), a * 1.0, 1e-6 * a);
}

// Rotating the incline about its normal leaves the exact cone unchanged; the pyramid changes
// with it, by less as n_d grows (the polygon's support along the slope is mu N cos(pi/n_d) at
// worst)
TEST(StepTest, InclineRotationExactInvariantPyramidShrinks) {
  std::vector<double> yaws = {0, 15, 30, 45, 60, 75};
  auto spread = [&](int cone, int facets) {
    double lo = 1e9, hi = -1e9;
    for (double y : yaws) {
      double v = InclineSpeed(30, y, 0.3, cone, facets);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    return hi - lo;
  };
  EXPECT_LT(spread(TB_CONE_EXACT, 8), 1e-8);
  double prev = 1e9;
  for (int nd : {4, 8, 16, 32}) {
    double s = spread(TB_CONE_PYRAMID, nd);
    // the worst-case capacity loss is mu g cos(th) (1 - cos(pi/nd)) per second
    double bound = 0.3 * kG * std::cos(M_PI / 6) * (1 - std::cos(M_PI / nd));
    EXPECT_GT(s, 0.2 * bound) << "n_d " << nd;
    EXPECT_LT(s, 1.2 * bound) << "n_d " << nd;
    EXPECT_LT(s, prev) << "n_d " << nd;
    prev = s;
  }
}

// Thesis §7.6.1.1: once sliding, the particle accelerates at (F - mu m g) / m = 3.038 m/s^2
TEST(StepTest, FallingParticleSlidesWithKnownAcceleration) {
  Scene sc("falling-particle", 1);
  sc.reset();
  int b = sc.body("particle");
  std::vector<double> vx, vz;
  for (int k = 0; k < 100; k++) {
    sc.run(1);
    vx.push_back(sc.vel(b)[0]);
    vz.push_back(sc.vel(b)[2]);
  }
  const double a = 5.0 - 0.2 * kG;
  for (int k = 30; k < 100; k++) {
    EXPECT_NEAR((vx[k] - vx[k - 1]) / 0.05, a, 1e-8) << "step " << k + 1;
  }
  // resting on the ground by then: no penetration beyond round-off
  EXPECT_NEAR(sc.pos(b)[2], 0.0, 1e-9);
  // in free fall first: v_z = -g t (the step's gravity impulse, exactly) until it lands from
  // z0 = 3 m, at t = sqrt(2 z0 / g) = 0.78 s (step 16), then at rest on the ground
  int land = 0;
  while (land < 100 && vz[land] < 0.0 && std::fabs(vz[land] + kG * 0.05 * (land + 1)) < 1e-12) {
    land++;
  }
  EXPECT_GE(land, 14);
  EXPECT_LE(land, 16);
  for (int k = land + 1; k < 100; k++) EXPECT_LT(std::fabs(vz[k]), 1e-9) << "step " << k + 1;
}

// A single rod pendulum, small angle: T = 2 pi sqrt(2 L / (3 g)) for I_pivot = m L^2 / 3
TEST(StepTest, PendulumSmallAnglePeriodAndJointDrift) {
  Scene sc("pendulum", 1, {{"links", 1}, {"angle0", 0.05}});
  sc.reset();
  int b = sc.body("link0");
  const double pivot[3] = {0.0, 0.0, 2.0};
  std::vector<double> up;  // times of upward zero crossings of x
  double prev = sc.pos(b)[0], drift = 0.0;
  for (int k = 0; k < 6000; k++) {
    sc.run(1);
    double x = sc.pos(b)[0];
    if (prev < 0 && x >= 0) up.push_back(sc.d->time[0]);
    prev = x;
    // the joint anchor (top of the rod) stays on the pivot: |c + R(-L/2 z') - pivot|
    const double* q = sc.quat(b);
    double zx = 2 * (q[1] * q[3] + q[0] * q[2]), zy = 2 * (q[2] * q[3] - q[0] * q[1]);
    double zz = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
    double top[3] = {sc.pos(b)[0] + 0.5 * zx, sc.pos(b)[1] + 0.5 * zy, sc.pos(b)[2] + 0.5 * zz};
    double d = std::hypot(top[0] - pivot[0], top[1] - pivot[1], top[2] - pivot[2]);
    drift = std::max(drift, d);
  }
  ASSERT_GE(up.size(), 3u);
  double T = (up.back() - up.front()) / (up.size() - 1);
  double T0 = 2 * M_PI * std::sqrt(2.0 / (3 * kG));
  EXPECT_NEAR(T, T0, 0.01 * T0);
  // Phi/h stabilization keeps the joint error at O(h^2 omega^2 L): well under a millimeter
  EXPECT_LT(drift, 1e-4);
}

// Three boxes at rest stay within 1e-6 m over 1000 steps
TEST(StepTest, BoxStackStaysAtRest) {
  Scene sc("box-stack", 1);
  sc.reset();
  std::vector<double> p0(sc.d->body_pos, sc.d->body_pos + 3 * sc.m->nbody);
  sc.run(1000);
  for (int b = 1; b < sc.m->nbody; b++) {
    double d = std::hypot(sc.pos(b)[0] - p0[3 * b], sc.pos(b)[1] - p0[3 * b + 1],
                          sc.pos(b)[2] - p0[3 * b + 2]);
    EXPECT_LT(d, 1e-6) << "box " << b;
  }
  EXPECT_EQ(sc.d->status[0] & TB_SCENE_FAILMASK, 0);
}

// the stack's manifold is the same twelve corners at every step (box-box clipping once put
// crossings anywhere along the flush sides, and shared warm-start keys among them), so the
// warm start carries over: each step converges, in a few iterations on average (20.8 before)
TEST(StepTest, BoxStackKeepsItsTwelveContactsAndWarmStarts) {
  Scene sc("box-stack", 1);
  sc.m->opt.solver = TB_SOLVER_AUTO;
  sc.reset();
  for (int k = 0; k < 500; k++) {
    sc.run(1);
    ASSERT_EQ(sc.d->ncon[0], 12) << "step " << k;
  }
  EXPECT_EQ(sc.d->status[0], 0);  // neither failed nor unconverged
  // the warm start sits just above tol at rest on two steps of three: auto's active-set stage
  // solves those by one factorization and a refinement sweep (1.33 solves per step on average;
  // PGS then a Newton iteration took 1.94, PGS alone 20 to 60 sweeps)
  EXPECT_LT(static_cast<double>(sc.d->iter_sum[0]) / sc.d->nstep[0], 1.5);
}

}  // namespace

namespace {

// too many contacts for the capacity: the scene stops with a status, nothing is dropped, and
// the other scenes of the batch go on
TEST(StepTest, ContactOverflowFlagsOnlyThatScene) {
  tbModel* m = tb_newModel();
  tbBodyDef g = tb_defaultBodyDef();
  g.type = TB_BODY_STATIC;
  int gb = tb_addBody(m, &g);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = gb;
  gd.type = TB_GEOM_PLANE;
  tb_addGeom(m, &gd);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.pos[2] = 0.1;
  int b = tb_addBody(m, &bd);
  gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_BOX;
  gd.size[0] = gd.size[1] = gd.size[2] = 0.1;
  tb_addGeom(m, &gd);
  int p = tb_addParam(m, "z0", "m", "start height", -10, 10, 0);
  tb_paramTarget(m, p, TB_F_BODY_POS, b, 2);
  m->opt.maxcon = 3;  // a box resting flat has 4 corner contacts
  ASSERT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  tbData* d = tb_newData(m, 2);
  d->param[1] = 5.0;  // scene 1 starts high: no contact for a while
  ASSERT_EQ(tb_resetData(m, d), TB_OK);
  ASSERT_EQ(tb_rollout(m, d, 0, 2, 10, nullptr), TB_OK);
  EXPECT_TRUE(d->status[0] & TB_SCENE_OVERFLOW_FAIL);
  EXPECT_EQ(d->fail_step[0], 0);
  EXPECT_EQ(d->nstep[0], 0);  // stopped before the step it could not represent
  EXPECT_EQ(d->status[1] & TB_SCENE_FAILMASK, 0);
  EXPECT_EQ(d->nstep[1], 10);
  tb_freeData(d);
  tb_freeModel(m);
}

}  // namespace

namespace {

// a scene whose state overflows to infinity is flagged in its own status; the others go on
TEST(StepTest, DivergingSceneFlaggedBatchGoesOn) {
  Scene sc("falling-particle", 3);
  sc.set("mass", 1e-310, 1);  // F/m overflows: v = h F / m = 2.5e309 = inf
  // tb_checkParams refuses the mass (below TB_MIN_MASS); the step must still flag a scene whose
  // values were set past it
  EXPECT_NE(tb_checkParams(sc.m, sc.d), TB_OK);
  ASSERT_EQ(tb_resetData(sc.m, sc.d), TB_OK);
  sc.run(20);
  EXPECT_TRUE(sc.d->status[1] & TB_SCENE_NAN_FAIL);
  EXPECT_EQ(sc.d->fail_step[1], 0);
  for (int s : {0, 2}) {
    EXPECT_EQ(sc.d->status[s] & TB_SCENE_FAILMASK, 0) << s;
    EXPECT_EQ(sc.d->nstep[s], 20) << s;
  }
}

// a rollout outside the batch, or records sized for another rollout, is refused before a step
TEST(StepTest, RolloutRefusesScenesOutsideTheBatchAndMismatchedRecords) {
  Scene sc("falling-particle", 4);
  EXPECT_EQ(tb_rollout(sc.m, sc.d, 2, 5, 10, nullptr), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("scenes [2, 5) of 4"), std::string::npos);
  EXPECT_EQ(tb_rollout(sc.m, sc.d, 3, 1, 10, nullptr), TB_ERR_ARG);
  EXPECT_EQ(tb_rollout(sc.m, sc.d, 0, 4, -1, nullptr), TB_ERR_ARG);
  std::vector<double> state(4 * 3 * sc.m->nbody * 13), time(4 * 3);
  std::vector<int> step(3);
  tbRecord rec = {0, 3, state.data(), time.data(), step.data()};  // 2 records for every = 0
  EXPECT_EQ(tb_rollout(sc.m, sc.d, 0, 4, 10, &rec), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("expected 2"), std::string::npos) << tb_lastError();
  for (int s = 0; s < 4; s++) EXPECT_EQ(sc.d->nstep[s], 0) << s;
}

}  // namespace

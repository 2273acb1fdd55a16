// Kinematic drivers (host/engine/stage_kinematic.h, host/math/driver_geom.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "math/driver_geom.h"

#include "engine/stage_kinematic.h"
#include "engine/stage_step.h"
#include "test_util.h"
#include "rollout/rollout.h"

namespace {

// a model with one kinematic plate body and one particle resting on it
struct PlateModel {
  tbModel* m;
  tbData* d;
  PlateModel(int type, const double amp[6], const double phase[6], const double vel[6]) {
    m = tb_newModel();
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = "plate";
    bd.type = TB_BODY_KINEMATIC;
    int p = tb_addBody(m, &bd);
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = p;
    gd.type = TB_GEOM_PLANE;
    gd.mu = 0.5;
    tb_addGeom(m, &gd);
    tbDriverDef dd = tb_defaultDriverDef();
    dd.body = p;
    dd.type = type;
    for (int i = 0; i < 6; i++) {
      dd.amp[i] = amp ? amp[i] : 0.0;
      dd.phase[i] = phase ? phase[i] : 0.0;
      dd.vel[i] = vel ? vel[i] : 0.0;
    }
    tb_addDriver(m, &dd);
    bd = tb_defaultBodyDef();
    bd.name = "particle";
    if (vel) memcpy(bd.vel, vel, sizeof(double) * 3);
    int b = tb_addBody(m, &bd);
    gd = tb_defaultGeomDef();
    gd.body = b;
    tb_addGeom(m, &gd);
    m->opt.timestep = 1e-4;
    EXPECT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
    d = tb_newData(m, 1);
  }
  ~PlateModel() {
    tb_freeData(d);
    tb_freeModel(m);
  }
};

// A single-axis plate motion has the closed form theta(t) = -A sin(w t + C) / w^2 about that
// axis; the RK4 quaternion with the symmetric initialization must match it to 1e-12 (RK4's
// local error here is ~(h |w|)^5 ~ 1e-23, the start's parabolic refinement ~1e-14).
TEST(KinematicTest, PlateSingleAxisMatchesClosedForm) {
  const double amp[6] = {0, 0, 0, 0, 0, 100.0}, phase[6] = {0, 0, 0, 0, 0, 0.3};
  PlateModel pm(TB_DRIVER_PLATE, amp, phase, nullptr);
  const double w = 66 * M_PI;
  double worst = 0.0;
  for (int k = 0; k < 20000; k++) {
    tb_rollout(pm.m, pm.d, 0, 1, 1, nullptr);
    double t = pm.d->time[0];
    double th = -amp[5] * std::sin(w * t + phase[5]) / (w * w);
    const double* q = pm.d->body_quat;
    double err = std::fabs(q[0] - std::cos(th / 2)) + std::fabs(q[3] - std::sin(th / 2)) +
                 std::fabs(q[1]) + std::fabs(q[2]);
    worst = std::max(worst, err);
  }
  EXPECT_LT(worst, 1e-12);
}

// Translation: p = -A sin(w t + C) / w^2 with zero mean (closed form, exact to round-off)
TEST(KinematicTest, PlateTranslationClosedForm) {
  const double amp[6] = {3.0, -2.0, 8.0, 0, 0, 0}, phase[6] = {0.1, 1.2, 4.7, 0, 0, 0};
  PlateModel pm(TB_DRIVER_PLATE, amp, phase, nullptr);
  const double w = 66 * M_PI;
  pm.d->status[0] = TB_SCENE_NAN_FAIL;  // freeze the particle: only the plate is checked
  double pos[3], quat[4], vel[6], vary[256];
  tb_sceneVary(pm.m, pm.d, 0, vary);
  tb_kinematicInit(pm.m, vary, 0, nullptr, pos, quat, vel);
  for (int k = 0; k < 1000; k++) {
    tb_kinematicAdvance(pm.m, vary, 0, k * 1e-4, 1e-4, pos, quat, vel);
    double t = (k + 1) * 1e-4;
    for (int i = 0; i < 3; i++) {
      EXPECT_NEAR(pos[i], -amp[i] * std::sin(w * t + phase[i]) / (w * w), 1e-15);
      EXPECT_NEAR(vel[i], -amp[i] * std::cos(w * t + phase[i]) / w, 1e-14);
    }
  }
}

// Thesis §5.3: for the centrifuge field the symmetric start is
// [0.999999, -0.00116298, 3.04478e-9, -4.24925e-6]. The x part is the half-swing about x
// (A / w^2 / 2); the tiny y and z parts come from the non-commuting rotations and depend on
// the Euler convention, so only their order of magnitude is compared.
TEST(KinematicTest, CentrifugeSymmetricStartMatchesThesis) {
  const double amp[3] = {100.0, 100.0, 0.0}, phase[3] = {M_PI / 2, M_PI, 0.0};
  double q0[4];
  tbu_plateQuat0(q0, amp, phase, 66 * M_PI);
  EXPECT_NEAR(q0[0], 0.999999, 1e-6);
  // 5e-8: the thesis sampled the period at its step (about 300 samples), which misplaces the
  // extremes by ~A/w^2 (2 pi/300)^2/8 ~ 1e-7 rad; we refine them, so we differ by ~2.5e-8
  EXPECT_NEAR(q0[1], -0.00116298, 5e-8);
  EXPECT_LT(std::fabs(q0[2]), 1e-7);
  EXPECT_LT(std::fabs(q0[3]), 1e-5);
  // and the angles of one period from there are symmetric about zero
  double q[4] = {q0[0], q0[1], q0[2], q0[3]}, lo[3] = {1, 1, 1}, hi[3] = {-1, -1, -1};
  double h = 2 * M_PI / (66 * M_PI) / 4096;
  for (int k = 0; k < 4096; k++) {
    tbu_plateQuatStepAt(q, amp, phase, 66 * M_PI, k * h, h);
    double e[3];
    tbu_quat2Euler(e, q);
    for (int i = 0; i < 3; i++) {
      lo[i] = std::min(lo[i], e[i]);
      hi[i] = std::max(hi[i], e[i]);
    }
  }
  for (int i = 0; i < 2; i++) EXPECT_NEAR(lo[i] + hi[i], 0.0, 1e-9) << "axis " << i;
}

// A particle resting on a plate that translates at constant velocity moves with it
TEST(KinematicTest, ParticleRidesConstantVelocityPlate) {
  const double vel[6] = {0.3, -0.1, 0.0, 0.0, 0.0, 0.0};
  PlateModel pm(TB_DRIVER_CONSTVEL, nullptr, nullptr, vel);
  const double* pp = pm.d->body_pos + 3;
  double rel0[2] = {pp[0] - pm.d->body_pos[0], pp[1] - pm.d->body_pos[1]};
  tb_rollout(pm.m, pm.d, 0, 1, 5000, nullptr);
  const double* pv = pm.d->body_vel + 6;
  EXPECT_NEAR(pv[0], 0.3, 1e-12);
  EXPECT_NEAR(pv[1], -0.1, 1e-12);
  EXPECT_NEAR(pp[0] - pm.d->body_pos[0], rel0[0], 1e-12);
  EXPECT_NEAR(pp[1] - pm.d->body_pos[1], rel0[1], 1e-12);
  EXPECT_NEAR(pm.d->body_pos[0], 0.3 * 0.5, 1e-12);  // the plate went where it should
}

// Keyframes: linear position, slerped orientation, the segment's velocity, held at the ends
TEST(KinematicTest, KeyframesInterpolate) {
  double key[3 * 8] = {0.0,
                       0,
                       0,
                       0,
                       1,
                       0,
                       0,
                       0,  //
                       1.0,
                       2,
                       0,
                       0,
                       std::cos(M_PI / 4),
                       0,
                       0,
                       std::sin(M_PI / 4),  //
                       3.0,
                       2,
                       4,
                       0,
                       std::cos(M_PI / 4),
                       0,
                       0,
                       std::sin(M_PI / 4)};
  double pos[3], quat[4], vel[6];
  tbu_keyframePose(key, 3, 0.5, pos, quat, vel);
  EXPECT_NEAR(pos[0], 1.0, 1e-15);
  EXPECT_NEAR(vel[0], 2.0, 1e-15);
  // half of a 90 degree turn about z
  EXPECT_NEAR(quat[3], std::sin(M_PI / 8), 1e-15);
  EXPECT_NEAR(vel[5], M_PI / 2, 1e-14);
  tbu_keyframePose(key, 3, 1.0, pos, quat, vel);  // left-continuous: first segment's velocity
  EXPECT_NEAR(vel[0], 2.0, 1e-15);
  tbu_keyframePose(key, 3, 2.0, pos, quat, vel);
  EXPECT_NEAR(pos[1], 2.0, 1e-15);
  EXPECT_NEAR(vel[1], 2.0, 1e-15);
  EXPECT_NEAR(vel[5], 0.0, 1e-15);
  tbu_keyframePose(key, 3, 5.0, pos, quat, vel);  // held after the last key
  EXPECT_NEAR(pos[1], 4.0, 1e-15);
  EXPECT_EQ(vel[1], 0.0);
}

// reset works a plate's initial orientation out once per motion, not per scene: the batch's
// poses are bitwise each scene's own, whether its scenes share the motion or each has its own
TEST(KinematicTest, ResetSharesThePlateOrientationOnlyBetweenEqualMotions) {
  const int n = 12;
  for (bool jitter : {false, true}) {
    Scene sc("plate-particle", n);
    if (jitter) jitterParams(sc, 5);
    sc.reset();
    int plate = sc.body("plate");
    std::vector<double> vary(sc.m->nvary + 1);
    std::vector<double> first(4);
    int differ = 0;
    for (int s = 0; s < n; s++) {
      double pos[3], quat[4], vel[6];
      tb_sceneVary(sc.m, sc.d, s, vary.data());
      tb_kinematicInit(sc.m, vary.data(), plate, nullptr, pos, quat, vel);
      const double* q = sc.d->body_quat + ((size_t)s * sc.m->nbody + plate) * 4;
      EXPECT_EQ(std::memcmp(q, quat, sizeof(quat)), 0) << "scene " << s;
      if (s == 0) first.assign(q, q + 4);
      differ += std::memcmp(q, first.data(), sizeof(quat)) != 0;
    }
    // the jittered motions each have their own orientation; the shared one is shared
    if (jitter) {
      EXPECT_EQ(differ, n - 1);
    } else {
      EXPECT_EQ(differ, 0);
    }
  }
}

// the paths scenes [s0, s1) of sc share (tb_kinematicPaths): each scene's path, -1 for its own
std::vector<int> Paths(const Scene& sc, int s0, int s1, int nstep = 100) {
  std::vector<int> path(s1 - s0), head(s1 - s0);
  int npath = tb_kinematicPaths(sc.m, sc.d, s0, s1, nstep, path.data(), head.data());
  for (int j = 0; j < npath; j++) {
    EXPECT_EQ(path[head[j] - s0], j);  // a path's first scene reads it too
    for (int i = 0; i < head[j] - s0; i++) EXPECT_NE(path[i], j);
  }
  return path;
}

// the final states of n plate-particle scenes, each particle its own start and friction, in the
// given precision: one batch of them (`alone` false: they share the plate's path), or each
// between scenes of another plate frequency (`alone`: each scene works its own path out)
std::vector<double> PlateBatch(int n, bool alone, int precision) {
  int gap = alone ? 2 : 1;
  Scene sc("plate-particle", gap * n);
  for (int k = 0; k < n; k++) {
    sc.set("x0", 0.01 + 0.01 * k, gap * k);
    sc.set("mu", 0.2 + 0.1 * k, gap * k);
    if (alone) sc.set("omega", 60.0 * M_PI, gap * k + 1);
  }
  sc.reset();
  std::vector<int> path = Paths(sc, 0, gap * n);
  for (int k = 0; k < n; k++) EXPECT_EQ(path[gap * k], alone ? -1 : 0) << "scene " << k;
  sc.d->run.precision = precision;
  sc.run(400);
  std::vector<double> out;
  for (int k = 0; k < n; k++) {
    int s = gap * k;
    for (int b = 0; b < sc.m->nbody; b++) {
      out.insert(out.end(), sc.pos(b, s), sc.pos(b, s) + 3);
      out.insert(out.end(), sc.quat(b, s), sc.quat(b, s) + 4);
      out.insert(out.end(), sc.vel(b, s), sc.vel(b, s) + 6);
    }
    out.push_back(sc.d->time[s]);
  }
  return out;
}

// scenes that share their plate's motion read it from one path worked out for them
// (tb_kinematicPath): bitwise what each scene works out alone, in both precisions
TEST(KinematicTest, SharedPlatePathStepsAsEachSceneAlone) {
  for (int precision : {TB_FP64, TB_FP32}) {
    std::vector<double> shared = PlateBatch(5, false, precision);
    std::vector<double> alone = PlateBatch(5, true, precision);
    ASSERT_EQ(shared.size(), alone.size());
    EXPECT_EQ(std::memcmp(shared.data(), alone.data(), sizeof(double) * shared.size()), 0)
        << "precision " << precision;
    // the plate turns (its angular velocity) and carries the particle (its velocity)
    EXPECT_NE(shared[10], 0.0);
    EXPECT_GT(std::fabs(shared[20]) + std::fabs(shared[21]), 0.0);
  }
}

// what makes scenes share a path: a run of them with their clock, their plate's state and every
// parameter that reaches its motion alike, bitwise; the others (friction, the particle's start)
// do not count, nor does a failed scene, which does not step; a path needs two scenes
TEST(KinematicTest, ScenesShareAPathOnlyWhenTheyMoveThePlateAlike) {
  const int n = 8;
  Scene sc("plate-particle", n);
  for (int s = 0; s < n; s++) sc.set("x0", 0.01 * s, s);
  sc.set("mu", 0.9, 2);
  sc.reset();
  EXPECT_EQ(Paths(sc, 0, n), std::vector<int>(n, 0));
  sc.set("A4", 90.0, 3);  // the amplitude: scene 3 alone, and a new run from scene 4
  EXPECT_EQ(Paths(sc, 0, n), std::vector<int>({0, 0, 0, -1, 1, 1, 1, 1}));
  sc.d->status[3] |= TB_SCENE_NAN_FAIL;  // scene 3 does not step
  EXPECT_EQ(Paths(sc, 0, n), std::vector<int>({0, 0, 0, -1, 0, 0, 0, 0}));
  sc.set("dt", 5e-5, 1);  // the step
  EXPECT_EQ(Paths(sc, 0, n), std::vector<int>({-1, -1, 0, -1, 0, 0, 0, 0}));
  sc.d->time[6] += 1e-4;  // the clock
  EXPECT_EQ(Paths(sc, 2, n), std::vector<int>({0, -1, 0, 0, -1, -1}));
  sc.d->body_quat[(7 * sc.m->nbody + sc.body("plate")) * 4] *= -1.0;  // the plate's state
  EXPECT_EQ(Paths(sc, 4, n), std::vector<int>({0, 0, -1, -1}));
  // the paths of a batch (steps x kinematic bodies x 13 values) stay within TB_PATH_MAX_VALUES:
  // the first runs that fit take theirs
  sc.d->time[6] = sc.d->time[7] = sc.d->time[0];
  sc.d->body_quat[(7 * sc.m->nbody + sc.body("plate")) * 4] *= -1.0;
  sc.set("A4", 80.0, 6);
  sc.set("A4", 80.0, 7);
  const int half = (int)(TB_PATH_MAX_VALUES / TB_STATE_WIDTH / 2);
  EXPECT_EQ(Paths(sc, 0, n, half), std::vector<int>({-1, -1, 0, -1, 0, 0, 1, 1}));
  EXPECT_EQ(Paths(sc, 0, n, half + 1), std::vector<int>({-1, -1, 0, -1, 0, 0, -1, -1}));
  EXPECT_EQ(Paths(sc, 0, n, 2 * half + 2), std::vector<int>(n, -1));
}

}  // namespace

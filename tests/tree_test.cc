// Minimal-coordinate chains (stage_tree.h): the same motion as the maximal-coordinate step to
// the integrator's order, energy kept by the joint-space dynamics, bad trees named.
#include <gtest/gtest.h>
#include <math.h>
#include <omp.h>

#include <string>
#include <vector>

#include <tumble/scenes.h>
#include <tumble/tb_math.h>
#include <tumble/tumble.h>

#include "test_util.h"

namespace {

// the largest difference in position or velocity over every link after 1 s of a 3-link
// pendulum released at 0.3 rad, maximal against minimal coordinates, at step h
double maximalMinusMinimal(double h) {
  int nstep = (int)lround(1.0 / h);
  double diff = 0.0;
  Scene a("pendulum", 1, {{"minimal", 0}}), b("pendulum", 1, {{"minimal", 1}});
  a.set("dt", h);
  b.set("dt", h);
  a.reset();
  b.reset();
  a.run(nstep);
  b.run(nstep);
  for (int k = 1; k < a.m->nbody; k++) {
    for (int i = 0; i < 3; i++) diff = fmax(diff, fabs(a.pos(k)[i] - b.pos(k)[i]));
    for (int i = 0; i < 6; i++) diff = fmax(diff, fabs(a.vel(k)[i] - b.vel(k)[i]));
  }
  return diff;
}

TEST(TreeTest, MinimalPendulumIsTheMaximalOneToFirstOrder) {
  // both are first-order steps of the same ODE (the maximal one with Baumgarte's Phi/h): their
  // difference must be O(h), halving with h
  double d1 = maximalMinusMinimal(1e-3), d2 = maximalMinusMinimal(5e-4);
  EXPECT_LT(d1, 2e-3);
  EXPECT_GT(d1, 1e-6);  // two different discretizations, not one computed twice
  EXPECT_NEAR(d1 / d2, 2.0, 0.2);
}

// relative energy change of a frictionless 3-link chain over 2 s at step h
double energyDrift(double h) {
  Scene sc("pendulum", 1, {{"minimal", 1}, {"angle0", 1.0}});
  sc.set("dt", h);
  sc.reset();
  double e0 = sceneEnergy(sc);
  sc.run((int)lround(2.0 / h));
  return fabs(sceneEnergy(sc) - e0) / fabs(e0);
}

TEST(TreeTest, JointSpaceDynamicsKeepEnergyToFirstOrder) {
  // semi-implicit Euler on M(q) qddot + c(q, qdot) = Q: a wrong mass matrix or bias force gains
  // or loses energy at a rate that does not shrink with h
  double e1 = energyDrift(1e-3), e2 = energyDrift(2.5e-4);
  EXPECT_LT(e1, 5e-2);
  EXPECT_LT(e2, e1 / 2.0);
}

TEST(TreeTest, CoordinateDampingIsTheSameInBothRepresentations) {
  // the implicit damping torque -c qdot: in the mass matrix (minimal) or a compliant velocity
  // row (maximal); the motions agree to the integrator's order
  double pos[2][3];
  for (int mn = 0; mn < 2; mn++) {
    tbBuild bo = tb_defaultBuild(tb_findScene("pendulum"));
    bo.opt[0] = 1;
    bo.opt[3] = mn;
    tbModel* m = tb_buildScene(tb_findScene("pendulum"), &bo);
    ASSERT_NE(m, nullptr);
    // a rebuilt model with damping: the scene has no damping parameter, so set the default
    m->vary0[tb_varyIndex(m, TB_F_JOINT, 0, TB_JNT_CDAMP)] = 2.0;
    tbData* d = tb_newData(m, 1);
    ASSERT_EQ(tb_rollout(m, d, 0, 1, 2000, nullptr), TB_OK);
    for (int k = 0; k < 3; k++) pos[mn][k] = d->body_pos[3 + k];
    EXPECT_EQ(d->status[0] & TB_SCENE_UNCONVERGED, 0);
    tb_freeData(d);
    tb_freeModel(m);
  }
  for (int k = 0; k < 3; k++) EXPECT_NEAR(pos[0][k], pos[1][k], 2e-3);
  // damped: the link has come most of the way down from 0.3 rad (undamped it swings through)
  EXPECT_LT(fabs(pos[1][0]), 0.2);
}

TEST(TreeTest, ThreadCountsGiveBitwiseTheSameChain) {
  std::vector<double> out[2];
  for (int t = 0; t < 2; t++) {
    omp_set_num_threads(t + 1);
    Scene sc("pendulum", 8, {{"minimal", 1}, {"links", 4}});
    for (int s = 0; s < 8; s++) sc.set("dt", 1e-3 * (1 + s % 3), s);
    sc.reset();
    sc.run(1500);
    out[t].assign(sc.d->body_pos, sc.d->body_pos + 8 * sc.m->nbody * 3);
    out[t].insert(out[t].end(), sc.d->jnt_qd, sc.d->jnt_qd + 8 * sc.m->nq);
  }
  omp_set_num_threads(2);
  EXPECT_EQ(out[0], out[1]);
}

// a model of the world, two dynamic bodies, and the joint def j; the error of adding it
std::string jointError(tbJointDef jd, int lock = 0) {
  tbModel* m = tb_newModel();
  for (int i = 0; i < 2; i++) {
    tbBodyDef bd = tb_defaultBodyDef();
    std::string name = "b" + std::to_string(i);
    bd.name = name.c_str();
    bd.lock = i == 1 ? lock : 0;
    tb_addBody(m, &bd);
  }
  std::string err = tb_addJoint(m, &jd) < 0 ? tb_lastError() : "";
  tb_freeModel(m);
  return err;
}

TEST(TreeTest, BadTreesAreNamed) {
  tbJointDef jd = tb_defaultJointDef();
  jd.minimal = 1;
  jd.body_a = 1;
  jd.body_b = 0;
  EXPECT_EQ(jointError(jd), "");
  tbJointDef bad = jd;
  bad.type = TB_JOINT_SPHERICAL;
  EXPECT_NE(jointError(bad).find("revolute or prismatic"), std::string::npos);
  bad = jd;
  bad.body_a = 0;
  bad.body_b = 1;
  EXPECT_NE(jointError(bad).find("added before"), std::string::npos);
  EXPECT_NE(jointError(jd, TB_LOCK_PLANAR).find("locks"), std::string::npos);
  bad = jd;
  bad.stiffness = 10.0;
  EXPECT_NE(jointError(bad).find("coord_damping"), std::string::npos);
  bad = jd;
  bad.q0 = NAN;
  EXPECT_NE(jointError(bad).find("q0"), std::string::npos);
  bad = jd;
  bad.minimal = 0;
  bad.q0 = 0.5;
  EXPECT_NE(jointError(bad).find("maximal joint"), std::string::npos);
  bad = jd;
  bad.coord_damping = -1.0;
  EXPECT_NE(jointError(bad).find("coord_damping"), std::string::npos);
}

}  // namespace

// Minimal-coordinate chains (stage_tree.h): the same motion as the maximal-coordinate step to
// the integrator's order, energy kept by the joint-space dynamics, bad trees named.
#include <gtest/gtest.h>
#include <math.h>
#include <omp.h>

#include <string>
#include <vector>

#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "math/tb_math.h"

#include "test_util.h"

namespace {

// the largest difference in position, orientation or velocity over every link after 1 s of a
// 3-link pendulum released at 0.3 rad, maximal against minimal coordinates, at step h; on ball
// joints spinning about the vertical at `spin`
double maximalMinusMinimal(double h, int ball = 0, double spin = 0.0) {
  int nstep = (int)lround(1.0 / h);
  double diff = 0.0;
  Scene a("pendulum", 1, {{"minimal", 0}, {"ball", ball}});
  Scene b("pendulum", 1, {{"minimal", 1}, {"ball", ball}});
  a.set("dt", h);
  b.set("dt", h);
  if (ball) {
    a.set("spin", spin);
    b.set("spin", spin);
  }
  a.reset();
  b.reset();
  a.run(nstep);
  b.run(nstep);
  for (int k = 1; k < a.m->nbody; k++) {
    for (int i = 0; i < 3; i++) diff = fmax(diff, fabs(a.pos(k)[i] - b.pos(k)[i]));
    for (int i = 0; i < 6; i++) diff = fmax(diff, fabs(a.vel(k)[i] - b.vel(k)[i]));
    double dq = 0.0, sq = 0.0;  // q and -q are one orientation
    for (int i = 0; i < 4; i++) {
      dq += (a.quat(k)[i] - b.quat(k)[i]) * (a.quat(k)[i] - b.quat(k)[i]);
      sq += (a.quat(k)[i] + b.quat(k)[i]) * (a.quat(k)[i] + b.quat(k)[i]);
    }
    diff = fmax(diff, sqrt(fmin(dq, sq)));
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

TEST(TreeTest, BallChainIsTheMaximalOneToFirstOrder) {
  // ball joints as quaternion coordinates and child-frame rates against the maximal chain's three
  // point rows per joint, the chain swinging and spinning about the vertical (3D motion)
  double d1 = maximalMinusMinimal(1e-3, 1, 1.5), d2 = maximalMinusMinimal(5e-4, 1, 1.5);
  EXPECT_LT(d1, 5e-3);
  EXPECT_GT(d1, 1e-6);
  EXPECT_NEAR(d1 / d2, 2.0, 0.25);
}

// a rod on a ball joint at its end, precessing steadily about the vertical at angle th when
// Omega^2 = m g l / ((A - C) cos th) (A its inertia across about the pivot, C along, l the
// pivot's distance to the center): the largest change of the angle over 3 s at step h
double conicalDrift(double h, int minimal) {
  const double th = 0.6;
  Scene sc("pendulum", 1, {{"links", 1}, {"ball", 1}, {"minimal", minimal}, {"angle0", th}});
  const tbModel* m = sc.m;
  double mass = m->vary0[tb_varyIndex(m, TB_F_BODY_MASS, 1, 0)];
  double I1 = m->vary0[tb_varyIndex(m, TB_F_BODY_INERTIA, 1, 0)];
  double I3 = m->vary0[tb_varyIndex(m, TB_F_BODY_INERTIA, 1, 2)];
  double l = 0.5, A = I1 + mass * l * l;
  double g = -m->vary0[tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_GRAVITY) + 2];
  sc.set("dt", h);
  sc.set("spin", sqrt(mass * g * l / ((A - I3) * cos(th))));
  sc.reset();
  const double top = 2.0;  // the pivot: links L + 1
  double drift = 0.0;
  for (int i = 0; i < (int)lround(3.0 / h); i++) {
    sc.run(1);
    double down = top - sc.pos(1)[2];
    drift = fmax(drift, fabs(acos(down / l) - th));
  }
  return drift;
}

TEST(TreeTest, BallJointRodPrecessesAtTheConicalRate) {
  // a closed-form motion of the ball joint alone. In minimal coordinates it is an equilibrium of
  // the discrete step too (the child-frame rates stay constant, the quaternion update is exact
  // for them): any error in the child-frame axes, their rates (bias forces) or the mass matrix
  // tilts the cone. The maximal chain holds it to first order, halving with h.
  EXPECT_LT(conicalDrift(1e-3, 1), 1e-10);
  double d1 = conicalDrift(1e-3, 0), d2 = conicalDrift(5e-4, 0);
  EXPECT_LT(d1, 1e-2);
  EXPECT_GT(d1, 1e-6);
  EXPECT_LT(d2, 0.6 * d1);
}

// coneRodModel's rod for T s at step h: the largest angle of its rotation from the reference, the
// energy gained (J), and the rod's center at the end
struct ConeRun {
  double max_angle, gain, end[3];
};
ConeRun coneRun(int minimal, double hi, double spin, double h = 1e-3, double T = 3.0) {
  tbModel* m = coneRodModel(minimal, hi, spin, h);
  int b = tb_findBody(m, "rod");
  Scene sc(m, 1);
  sc.reset();
  double e0 = sceneEnergy(sc);
  ConeRun out = {0.0, 0.0, {0.0, 0.0, 0.0}};
  for (int i = 0; i < (int)lround(T / h); i++) {
    sc.run(1);
    const double* q = sc.quat(b);
    out.max_angle = fmax(out.max_angle, 2.0 * atan2(tbu_norm3(q + 1), fabs(q[0])));
    out.gain = fmax(out.gain, sceneEnergy(sc) - e0);
    EXPECT_EQ(sc.d->status[0], 0) << "step " << i;
  }
  tbu_copy3(out.end, sc.pos(b));
  return out;
}

double endDistance(const ConeRun& a, const ConeRun& b) {
  return hypot(hypot(a.end[0] - b.end[0], a.end[1] - b.end[1]), a.end[2] - b.end[2]);
}

TEST(TreeTest, BallJointConeLimitHoldsInBothRepresentations) {
  // MuJoCo's ball range: the rotation angle from the reference stays under the cone angle, the
  // row pushing back inelastically (no energy gained at the hits); with spin the rod also twists
  // about itself and meets the cone by both, in 3D
  for (int minimal = 0; minimal < 2; minimal++) {
    for (double spin : {0.0, 2.0}) {
      ConeRun free = coneRun(minimal, 0.0, spin), held = coneRun(minimal, 0.5, spin);
      EXPECT_GT(free.max_angle, 0.8) << "the free rod swings far past the cone";
      EXPECT_GT(held.max_angle, 0.5 - 1e-3) << "minimal " << minimal << " spin " << spin;
      EXPECT_LT(held.gain, 5e-3) << "minimal " << minimal << " spin " << spin;
    }
    // swinging in a plane the row's linearization is exact; in 3D the rotation's axis turns
    // within the step, and the overshoot is second order in h (seen 1.5e-3 rad at 1 ms)
    EXPECT_LT(coneRun(minimal, 0.5, 0.0).max_angle, 0.5 + 1e-9);
    double o1 = coneRun(minimal, 0.5, 2.0).max_angle - 0.5;
    double o2 = coneRun(minimal, 0.5, 2.0, 5e-4).max_angle - 0.5;
    EXPECT_LT(o1, 2e-3);
    EXPECT_GT(o1, 0.0);
    EXPECT_LT(o2, o1 / 3.0);
  }
  // maximal and minimal: one motion to first order over 1 s of hits (seen 5e-3 m at 1 ms in 3D,
  // 6e-4 at 0.25 ms; 3e-8 and 2e-9 in the plane)
  for (double spin : {0.0, 2.0}) {
    double d1 = endDistance(coneRun(0, 0.5, spin, 1e-3, 1.0), coneRun(1, 0.5, spin, 1e-3, 1.0));
    double d4 = endDistance(coneRun(0, 0.5, spin, 2.5e-4, 1.0), coneRun(1, 0.5, spin, 2.5e-4, 1.0));
    EXPECT_LT(d1, 1e-2) << "spin " << spin;
    EXPECT_LT(d4, d1 / 3.0) << "spin " << spin;  // a quarter at first order; seen an eighth
  }
}

// the angular momentum about the vertical through the point c of scene s, at the model's default
// masses and inertias
double verticalMomentum(const Scene& sc, const double c[3]) {
  const tbModel* m = sc.m;
  double L = 0.0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    const double *v = sc.vel(b), *x = sc.pos(b);
    double mass = m->vary0[tb_varyIndex(m, TB_F_BODY_MASS, b, 0)], wb[3], Iw[3];
    tbu_rotVecInv(wb, sc.quat(b), v + 3);
    for (int k = 0; k < 3; k++) wb[k] *= m->vary0[tb_varyIndex(m, TB_F_BODY_INERTIA, b, k)];
    tbu_rotVec(Iw, sc.quat(b), wb);
    L += mass * ((x[0] - c[0]) * v[1] - (x[1] - c[1]) * v[0]) + Iw[2];
  }
  return L;
}

// relative changes of the energy and (ball joints) of the angular momentum about the vertical
// through the pivot of a frictionless 3-link chain over 2 s at step h
void conservedDrift(double h, int ball, double* energy, double* momentum) {
  Scene sc("pendulum", 1, {{"minimal", 1}, {"angle0", 1.0}, {"ball", ball}});
  sc.set("dt", h);
  if (ball) sc.set("spin", 1.0);
  sc.reset();
  const double pivot[3] = {0.0, 0.0, 4.0};  // links L + 1
  double e0 = sceneEnergy(sc), l0 = verticalMomentum(sc, pivot);
  sc.run((int)lround(2.0 / h));
  *energy = fabs(sceneEnergy(sc) - e0) / fabs(e0);
  *momentum = fabs(verticalMomentum(sc, pivot) - l0) / fmax(fabs(l0), 1e-300);
}

TEST(TreeTest, JointSpaceDynamicsKeepEnergyToFirstOrder) {
  // semi-implicit Euler on M(q) qddot + c(q, qdot) = Q: a wrong mass matrix or bias force gains
  // or loses energy at a rate that does not shrink with h; on ball joints gravity has no moment
  // about the vertical through the pivot, so that angular momentum is kept too
  for (int ball = 0; ball < 2; ball++) {
    double e1, e2, l1, l2;
    conservedDrift(1e-3, ball, &e1, &l1);
    conservedDrift(2.5e-4, ball, &e2, &l2);
    EXPECT_LT(e1, 5e-2) << "ball " << ball;
    EXPECT_LT(e2, e1 / 2.0) << "ball " << ball;
    if (!ball) continue;
    EXPECT_LT(l1, 5e-2);
    EXPECT_LT(l2, l1 / 2.0);
  }
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
  for (int ball = 0; ball < 2; ball++) {
    std::vector<double> out[2];
    for (int t = 0; t < 2; t++) {
      omp_set_num_threads(t + 1);
      Scene sc("pendulum", 8, {{"minimal", 1}, {"links", 4}, {"ball", ball}});
      for (int s = 0; s < 8; s++) sc.set("dt", 1e-3 * (1 + s % 3), s);
      if (ball) sc.set("spin", 2.0);
      sc.reset();
      sc.run(1500);
      out[t].assign(sc.d->body_pos, sc.d->body_pos + 8 * sc.m->nbody * 3);
      out[t].insert(out[t].end(), sc.d->jnt_q, sc.d->jnt_q + 8 * sc.m->nq);
      out[t].insert(out[t].end(), sc.d->jnt_qd, sc.d->jnt_qd + 8 * sc.m->nqd);
    }
    omp_set_num_threads(2);
    EXPECT_EQ(out[0], out[1]) << "ball " << ball;
  }
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
  EXPECT_EQ(jointError(bad), "");
  bad.q0 = 0.5;
  EXPECT_NE(jointError(bad).find("starts at its bodies' orientation"), std::string::npos);
  bad = jd;
  bad.type = TB_JOINT_SPHERICAL;
  bad.limited = 1;
  bad.lo = 0.0;
  bad.hi = 0.5;
  EXPECT_EQ(jointError(bad), "");  // a cone of 0.5 rad
  bad.lo = 0.1;
  EXPECT_NE(jointError(bad).find("spherical limits lo 0.1"), std::string::npos);
  bad.lo = 0.0;
  bad.hi = 4.0;
  EXPECT_NE(jointError(bad).find("cone angle in (0, pi]"), std::string::npos);
  bad.type = TB_JOINT_FIXED;
  bad.minimal = 0;
  EXPECT_NE(jointError(bad).find("limited 1"), std::string::npos);
  bad = jd;
  bad.type = TB_JOINT_SPHERICAL;
  bad.servo = 1;
  bad.kp = 1.0;
  EXPECT_NE(jointError(bad).find("servo 1"), std::string::npos);
  bad = jd;
  bad.type = TB_JOINT_SPHERICAL;
  bad.minimal = 0;
  bad.coord_damping = 1.0;
  EXPECT_NE(jointError(bad).find("minimal spherical joint's rates"), std::string::npos);
  bad.minimal = 1;
  EXPECT_EQ(jointError(bad), "");
  bad = jd;
  bad.type = TB_JOINT_FIXED;
  EXPECT_NE(jointError(bad).find("revolute, prismatic or spherical"), std::string::npos);
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
  bad = jd;
  bad.armature = -0.1;
  EXPECT_NE(jointError(bad).find("armature -0.1 must be finite and >= 0"), std::string::npos);
  bad.armature = NAN;
  EXPECT_NE(jointError(bad).find("armature"), std::string::npos);
  bad.armature = 0.1;
  EXPECT_EQ(jointError(bad), "");
  bad.minimal = 0;  // rows, no coordinate to carry it
  EXPECT_NE(jointError(bad).find("armature 0.1 is inertia on a joint's coordinates"),
            std::string::npos);
}

}  // namespace

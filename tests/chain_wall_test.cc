// The 12-link pendulum of Mylapilli & Jain §3.2 (scene chain-wall): their MNCP and aligned MLCP
// formulations agree, the 20 s run converges at every step, impacts never add energy, and the
// chain's lengths and start are batch parameters.
#include <gtest/gtest.h>
#include <math.h>

#include <algorithm>
#include <string>
#include <vector>

#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tumble.h>

#include "engine/engine.h"
#include "test_util.h"

namespace {

const int kSteps = 20000;  // 20 s at 1 ms

// what a run of chain-wall with one solver gives: the last sphere's height per step and the
// steps' statistics
struct ChainRun {
  std::vector<double> tip_z;
  int unconverged = 0, self_contact = 0, wall_contact = 0, max_contacts = 0;
  double max_gain = 0.0, e0 = 0.0, e_end = 0.0;
  int status = 0;
  double max_side = 0.0;  // the tip's largest distance from the plane of the swing
  ChainRun(const char* solver, int mlcp, int nstep, int ball = 0) {
    Scene sc("chain-wall", 1, {{"ball", ball}}, mlcp ? TB_CONE_PYRAMID : TB_CONE_EXACT, 4, mlcp);
    sc.m->opt.solver = tb_findSolver(solver);
    sc.reset();
    tbWork* w = tb_newWork(sc.m);
    int tip = sc.m->nbody - 1;
    e0 = sceneEnergy(sc);
    double prev = e0;
    for (int i = 0; i < nstep; i++) {
      tb_stepScene(sc.m, sc.d, 0, w);
      unconverged += !(sc.d->resid_last[0] <= sc.m->opt.tol);
      max_contacts = std::max(max_contacts, sc.d->ncon[0]);
      for (int c = 0; c < w->ncon; c++) {
        const int* g = sc.m->pair_geom + 2 * w->con_pair[c];
        self_contact += g[0] >= 2 && g[1] >= 2;  // geoms 0 and 1: floor and wall
        wall_contact += g[0] == 1 || g[1] == 1;
      }
      double e = sceneEnergy(sc);
      max_gain = std::max(max_gain, e - prev);
      prev = e;
      tip_z.push_back(sc.pos(tip)[2]);
      max_side = std::max(max_side, fabs(sc.pos(tip)[1]));
    }
    e_end = prev;
    status = sc.d->status[0];
    tb_freeWork(w);
  }
};

// the largest difference of two runs' tip heights over their first n steps
double tipDifference(const ChainRun& a, const ChainRun& b, int n) {
  double d = 0.0;
  for (int i = 0; i < n; i++) d = std::max(d, fabs(a.tip_z[i] - b.tip_z[i]));
  return d;
}

TEST(ChainWallTest, MncpAndAlignedMlcpAgree) {
  // M&J's exact-cone MNCP against their MLCP with 4 directions, one aligned against the sliding
  // velocity, each with its LM solver, and the MLCP by Lemke (standing in for their PATH). In
  // this planar chain the out-of-plane directions carry nothing, so the aligned pyramid is the
  // exact cone and the two problems share their solution: the runs differ by the solvers'
  // tolerance, amplified by the chain's chaos (seen: 1e-8 m over 1 s, 9e-7 m over 3 s).
  const int n = 3000;
  ChainRun mncp("mncp-rlm", 0, n), mlcp("mlcp-fb-rlm", 1, n), lemke("lemke", 1, n);
  EXPECT_LT(tipDifference(mncp, mlcp, 1000), 1e-6);
  EXPECT_LT(tipDifference(mncp, mlcp, n), 1e-4);
  EXPECT_LT(tipDifference(mncp, lemke, n), 1e-4);
  // and the runs do hit things: the first second already holds the floor impact
  EXPECT_LT(*std::min_element(mncp.tip_z.begin(), mncp.tip_z.begin() + 1000), 0.26);
  for (const ChainRun* r : {&mncp, &mlcp, &lemke}) EXPECT_EQ(r->unconverged, 0);
}

TEST(ChainWallTest, TwentySecondsConvergeAtEveryStepAndImpactsAddNoEnergy) {
  // M&J's 20,000 steps: floor, wall and links striking one another, each step's MNCP solved to
  // tolerance. Newton restitution with friction can add energy (the first floor impact, at 45
  // degrees, would add 520 J to the chain's 961 J); tb_plasticRetry makes such a step plastic,
  // so no step gains more than the free flight's integrator does (seen: 0.07 J)
  ChainRun r("mncp-rlm", 0, kSteps);
  EXPECT_EQ(r.unconverged, 0);
  EXPECT_EQ(r.status, 0);
  EXPECT_GT(r.self_contact, 0);
  EXPECT_GT(r.wall_contact, 0);
  EXPECT_GE(r.max_contacts, 2);
  EXPECT_LT(r.max_gain, 0.5);
  EXPECT_LT(r.e_end, r.e0);
}

TEST(ChainWallTest, BallChainStrikesInThreeDimensionsConvergedWithoutGainingEnergy) {
  // the chain on ball joints (quaternion coordinates), spinning about the vertical as it swings:
  // it leaves the plane, strikes floor, wall and itself obliquely, 3D friction in every contact;
  // the exact-cone MNCP converges at every step and no strike adds energy (10 s at its 0.5 ms)
  ChainRun r("mncp-rlm", 0, 20000, 1);
  EXPECT_EQ(r.unconverged, 0);
  EXPECT_EQ(r.status, 0);
  EXPECT_GT(r.max_side, 1.0);
  EXPECT_GT(r.self_contact, 0);
  EXPECT_GT(r.wall_contact, 0);
  EXPECT_LT(r.max_gain, 0.5);
  EXPECT_LT(r.e_end, r.e0);
}

TEST(ChainWallTest, BallChainWithoutSpinIsTheHingeChain) {
  // spin 0 keeps the ball chain in the hinges' plane: the same motion (the same start, every
  // joint free to turn about y), computed through three rates per joint instead of one. They
  // differ by the solver tolerance amplified by the chain's chaos, as MNCP and MLCP do above.
  Scene hinge("chain-wall", 1), ball("chain-wall", 1, {{"ball", 1}});
  ball.set("spin", 0.0);
  ball.set("dt", 1e-3);
  hinge.reset();
  ball.reset();
  double d = 0.0, side = 0.0;
  for (int i = 0; i < 1000; i++) {
    hinge.run(1);
    ball.run(1);
    for (int b = 2; b < hinge.m->nbody; b++) {
      for (int k = 0; k < 3; k++) d = std::max(d, fabs(hinge.pos(b)[k] - ball.pos(b)[k]));
      side = std::max(side, fabs(ball.pos(b)[1]));
    }
  }
  EXPECT_LT(d, 1e-6);
  EXPECT_LT(side, 1e-9);
}

// the largest upward speed of the last sphere while it is within 5 cm of the floor, over the
// first 5 s, at restitution e
double reboundSpeed(double e) {
  Scene sc("chain-wall", 1);
  sc.set("restitution", e);
  sc.reset();
  int tip = sc.m->nbody - 1;
  double best = 0.0;
  for (int i = 0; i < 5000; i++) {
    sc.run(1);
    if (sc.pos(tip)[2] < 0.3) best = std::max(best, sc.vel(tip)[2]);
  }
  return best;
}

TEST(ChainWallTest, TheLinksBounce) {
  // the plastic re-solve is for the strikes that would gain energy, not every strike: with e
  // 0.7 the tip leaves the floor at 4.6 m/s (seen), with e 0 at 2.1 m/s (the chain's swing)
  double bounce = reboundSpeed(0.7), plastic = reboundSpeed(0.0);
  EXPECT_GT(bounce, 1.5 * plastic);
}

TEST(ChainWallTest, ASweepConvergesWithLemkeOnTheAlignedPyramid) {
  // longer links lay more spheres on the floor: up to 12 contacts of 2 rows on 12 DoFs, a
  // singular Delassus matrix, on which the LM solvers stall (README: 40 of 100 such scenes keep
  // an unconverged step with mncp-rlm); Lemke's pivoting on the aligned pyramid, which is the
  // exact cone in the plane, solves every step of every scene
  const int n = 16;
  Scene sc("chain-wall", n, {}, TB_CONE_PYRAMID, 4, 1);
  sc.m->opt.solver = TB_SOLVER_LEMKE;
  for (int s = 0; s < n; s++) {
    sc.set("length", 0.8 + 0.3 * s / (n - 1), s);
    sc.set("mu", 0.3 + 0.4 * ((s * 7) % n) / (n - 1), s);
  }
  sc.reset();
  sc.run(kSteps);
  for (int s = 0; s < n; s++) {
    EXPECT_EQ(sc.d->status[s], 0) << "scene " << s;
    EXPECT_LE(sc.d->resid_max[s], sc.m->opt.tol) << "scene " << s;
  }
}

TEST(ChainWallTest, LinkLengthPivotAndStartAreBatchParameters) {
  // the minimal tree places every sphere from the anchors and the first joint's start, so each
  // scene of one batch has its own chain
  Scene sc("chain-wall", 3);
  sc.set("length", 0.8, 1);
  sc.set("pivot_z", 12.0, 2);
  sc.set("angle0", 0.3, 2);
  sc.set("omega0", -2.0, 2);
  sc.reset();
  const double L[3] = {1.0, 0.8, 1.0}, pz[3] = {10.0, 10.0, 12.0},
               th[3] = {-M_PI / 4, -M_PI / 4, 0.3};
  const double om[3] = {1.0, 1.0, -2.0};
  int tip = sc.m->nbody - 1;
  for (int s = 0; s < 3; s++) {
    double r = 12 * L[s];
    EXPECT_NEAR(sc.pos(tip, s)[0], r * sin(th[s]), 1e-12) << s;
    EXPECT_NEAR(sc.pos(tip, s)[2], pz[s] - r * cos(th[s]), 1e-12) << s;
    EXPECT_NEAR(sc.vel(tip, s)[0], om[s] * r * cos(th[s]), 1e-12) << s;
    EXPECT_NEAR(sc.vel(tip, s)[2], om[s] * r * sin(th[s]), 1e-12) << s;
  }
  sc.run(100);
  for (int s = 0; s < 3; s++) {
    // the links keep their own lengths while they swing
    const double* a = sc.pos(tip - 1, s);
    const double* b = sc.pos(tip, s);
    EXPECT_NEAR(hypot(b[0] - a[0], b[2] - a[2]), L[s], 1e-12) << s;
  }
}

// links longer than 1.164 m put the tip's sphere (r 0.25) more than half its radius into the
// floor at the start: the first step stops that scene (starts-buried, at step 0) instead of
// letting it fly apart, and the batch goes on; a shallower overlap (from 1.149 m) is a start
// like any other
TEST(ChainWallTest, AStartWithALinkInTheFloorIsRefusedForItsScene) {
  Scene sc("chain-wall", 3);
  sc.set("length", 1.2, 1);   // tip 0.43 m into the floor
  sc.set("length", 1.16, 2);  // tip 0.09 m into it, less than half the radius
  sc.reset();
  sc.run(200);
  EXPECT_EQ(sc.d->status[0] & TB_SCENE_FAILMASK, 0);
  EXPECT_EQ(sc.d->status[1], TB_SCENE_START_FAIL);
  EXPECT_EQ(sc.d->fail_step[1], 0);
  EXPECT_EQ(sc.d->nstep[1], 0);
  EXPECT_EQ(sc.d->status[2] & TB_SCENE_FAILMASK, 0);
  EXPECT_EQ(sc.d->nstep[2], 200);
  char text[96];
  tb_statusText(sc.d->status[1], text, sizeof(text));
  EXPECT_STREQ(text, "starts-buried");
}

TEST(ChainWallTest, BadChainParametersAreNamed) {
  Scene sc("chain-wall", 1);
  for (const char* name : {"length", "pivot_z", "restitution", "joint_damping"}) {
    double good = sc.d->param[tb_findParam(sc.m, name)];
    sc.set(name, name == std::string("restitution") ? 1.5 : -1.0);
    EXPECT_NE(tb_checkParams(sc.m, sc.d), TB_OK) << name;
    EXPECT_NE(std::string(tb_lastError()).find(name), std::string::npos) << tb_lastError();
    sc.set(name, good);
  }
  sc.set("length", NAN);
  EXPECT_NE(tb_checkParams(sc.m, sc.d), TB_OK);
}

// The slot's solver scratch follows the cone: with the exact cone a frictional contact refuses
// the LCP form, so auto's MLCP and Lemke stages see at most one unknown per row, and the 12-sphere
// chain's slot (79 possible contacts, 237 rows) needs 3.4 MB, not the 31 MB that sizing them for
// the pyramid's facets gave; on the pyramid the facets count again
TEST(ChainWallTest, TheSlotIsSizedForItsCone) {
  Scene sc("chain-wall", 1);
  ASSERT_EQ(sc.m->opt.solver, TB_SOLVER_AUTO);
  auto slotBytes = [&]() {
    tbScratch sizes = {};
    tb_solverScratchSize(sc.m, &sizes.nsolver_d, &sizes.nsolver_i);
    return tb_workBytes(sc.m, &sizes);
  };
  size_t exact = slotBytes();
  EXPECT_LT(exact, 4u << 20);
  sc.m->opt.cone = TB_CONE_PYRAMID;
  EXPECT_GT(slotBytes(), 8 * exact);
}

}  // namespace

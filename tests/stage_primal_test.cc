// auto's primal stage (host/engine/stage_primal.h): Newton in the bodies' velocities on a
// proximal regularization, on a tower of boxes whose face contacts are redundant (more rows than
// DoFs: A singular), checked against the step's whole Delassus problem formed from scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <tumble/mjcf.h>
#include <tumble/problem.h>
#include <tumble/tumble.h>

#include "engine/engine.h"
#include "engine/stage_primal.h"
#include "engine/stage_step.h"
#include "solver/residual.h"
#include "step_problem.h"
#include "test_util.h"

namespace {

const double kTol = 1e-8;  // the step's tolerance

// the stage from zero on the work's step p (rounds to 1e-12), the step's own answer saved into
// warm first
tbSolveResult primalFromZero(const tbModel* m, tbWork* w, tbProblem* p, std::vector<double>* warm) {
  tbPrimalScratch q = tb_primalScratch(m, w, p->n);
  EXPECT_TRUE(tb_primalApplies(m, w, p, &q));
  warm->assign(w->x, w->x + p->n);
  std::fill(w->x, w->x + p->n, 0.0);
  tbSolverOpt o = tb_defaultSolverOpt();
  o.tol = kTol;
  tbSolveResult res;
  EXPECT_EQ(tb_solvePrimal(tb_solo(), m, w, p, &o, 1e-12, &res), 0);
  EXPECT_TRUE(res.converged) << res.residual;
  return res;
}

// six boxes stacked 1 mm apart, each a little off the one below and turned (bench/scenes.py's
// tower), mu 0.5: box-on-box faces meet at four corners or more, 12+ rows where 6 DoFs are
std::string tower() {
  std::string xml =
      "<mujoco><option timestep='1e-3' cone='elliptic' solver='Newton'/><default><geom condim='3' "
      "friction='0.5 0 0'/></default>"
      "<worldbody><geom type='plane' size='0 0 1'/>";
  double z = 0.0;
  for (int i = 0; i < 6; i++) {
    double h = 0.06 + 0.005 * (i % 3), x = 0.006 * ((i % 2) ? 1 : -1), yaw = 0.05 * i;
    char body[400];
    snprintf(body, sizeof body,
             "<body pos='%g 0 %g' quat='%g 0 0 %g'><freejoint/><geom type='box' size='%g %g %g' "
             "density='%d'/></body>",
             x, z + h + 1e-3, cos(yaw / 2), sin(yaw / 2), h, h, h, 500 + 200 * i);
    xml += body;
    z += 2 * h + 1e-3;
  }
  return xml + "</worldbody></mujoco>";
}

// one scene of an MJCF model stepped `steps` times, its work holding the last step
struct Stepped : Scene {
  tbWork* w = nullptr;
  Stepped(const std::string& xml, int steps) : Scene(tb_loadMJCF(xml.c_str()), 1) {
    w = tb_newWork(m);
    reset();
    for (int k = 0; k < steps; k++) tb_stepScene(m, d, 0, w);
  }
  ~Stepped() { tb_freeWork(w); }
};

struct Tower : Stepped {
  explicit Tower(int steps) : Stepped(tower(), steps) {}
  // the last step's problem as the body-space stages take it, and with its whole A into A
  tbProblem bodyProblem() { return bodyProblemOf(m, w); }
  tbProblem whole(std::vector<double>& A) const { return wholeProblemOf(m, w, A); }
};

// Every step of the resting tower ends converged at the default tolerance, on Newton's few
// iterations a step: the dual stages (NNCG, then LU on the rows) took 191 sweeps and iterations
// a step on a 9-box tower and left steps at 0.16 (issue 60). Catches the stage not applying to a
// tower or handing its steps to the dual stages.
TEST(PrimalTest, TowerStepsConvergeInAFewNewtonIterations) {
  Tower t(0);
  ASSERT_TRUE(tb_stepBodyFirst(t.m));
  long iterations = 0;
  const int steps = 400;
  for (int k = 0; k < steps; k++) {
    tb_stepScene(t.m, t.d, 0, t.w);
    ASSERT_EQ(t.d->status[0], 0) << "step " << k;
    iterations += t.d->iter_last[0];
  }
  EXPECT_GT(t.w->nrow, 2 * 6 * 6);  // redundant: more than two rows a DoF
  EXPECT_LT((double)iterations / steps, 10.0);
}

// The stage's answer from zero on a resting step meets the tolerance on the step's whole problem,
// A formed from scratch (tb_delassusRows, where the stage reads J and M alone), its post-step
// contact velocities within the tolerance's share of the dense answer's (u = A x + b is unique
// where x is not), and dv is M^-1 J^T x. Catches a wrong Hessian, mass or gradient.
TEST(PrimalTest, AnswerFromZeroSolvesTheWholeProblem) {
  Tower t(200);
  tbWork* w = t.w;
  tbProblem p = t.bodyProblem();
  std::vector<double> warm;  // the step's own answer (every test above passed)
  tbSolveResult res = primalFromZero(t.m, w, &p, &warm);
  std::vector<double> A, u(p.n), uw(p.n);
  tbProblem pw = t.whole(A);
  double r = tb_residual(&pw, w->x, u.data());
  EXPECT_LE(r, kTol);
  EXPECT_NEAR(r, res.residual, 1e-9);
  tb_residual(&pw, warm.data(), uw.data());
  double bn = 0.0;
  for (int i = 0; i < p.n; i++) bn += p.b[i] * p.b[i];
  for (int i = 0; i < p.n; i++) EXPECT_NEAR(u[i], uw[i], 1e-6 * sqrt(bn)) << i;
  std::vector<double> dv(6 * t.m->nbody);
  tb_impulseVelocitiesOf(t.m, w, dv.data());
  for (size_t k = 0; k < dv.size(); k++) EXPECT_EQ(w->body_dv[k], dv[k]) << k;
}

// The Coulomb cone's projection and its Jacobian (the Hessian's D) against central differences
// in each zone (inside, polar, surface), at random points away from the zones' borders
TEST(PrimalTest, ProjectionJacobianIsTheDifferenceQuotient) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  int zones[3] = {0, 0, 0};
  for (int trial = 0; trial < 300; trial++) {
    double z[3] = {g(rng), g(rng), g(rng)}, mu = 0.2 + 0.1 * (trial % 9), x[3], D[9];
    double nt = std::hypot(z[1], z[2]);
    if (std::fabs(nt - mu * z[0]) < 1e-3 || std::fabs(mu * nt + z[0]) < 1e-3) continue;
    zones[nt <= mu * z[0] ? 0 : mu * nt <= -z[0] ? 1 : 2]++;
    tb_primalProject(z, 3, mu, x, D);
    for (int c = 0; c < 3; c++) {
      double zp[3] = {z[0], z[1], z[2]}, zm[3] = {z[0], z[1], z[2]}, xp[3], xm[3];
      zp[c] += 1e-6;
      zm[c] -= 1e-6;
      tb_primalProject(zp, 3, mu, xp, nullptr);
      tb_primalProject(zm, 3, mu, xm, nullptr);
      for (int a = 0; a < 3; a++) {
        EXPECT_NEAR(D[3 * a + c], (xp[a] - xm[a]) / 2e-6, 1e-6) << trial << " " << a << c;
      }
    }
  }
  for (int zone : zones) EXPECT_GT(zone, 10);
}

// Where a step has fewer than TB_PRIMAL_REDUNDANT rows a DoF (the tower's first step: the bottom
// box on the floor alone touches) the stage does not apply and leaves x as it was
TEST(PrimalTest, DoesNotApplyBelowTheRedundancy) {
  Tower t(1);
  tbProblem p = t.bodyProblem();
  std::vector<double> x0(t.w->x, t.w->x + p.n);
  ASSERT_LT(p.n, TB_PRIMAL_REDUNDANT * 6 * 6);
  tbPrimalScratch q = tb_primalScratch(t.m, t.w, p.n);
  EXPECT_FALSE(tb_primalApplies(t.m, t.w, &p, &q));
  tbSolverOpt o = tb_defaultSolverOpt();
  tbSolveResult res;
  EXPECT_EQ(tb_solvePrimal(tb_solo(), t.m, t.w, &p, &o, 1e-12, &res), -1);
  for (int i = 0; i < p.n; i++) EXPECT_EQ(t.w->x[i], x0[i]) << i;
}

// a box squeezed on the floor between two box pads on slides, each pushed by a force-limited
// position servo to 5 mm inside it (bench/scenes.py's gripper family with boxes for meshes):
// minimal coordinates (8 DoFs: the box's 6, a slide each), 4 contacts a face, about 38 rows
std::string squeeze() {
  return "<mujoco><option timestep='1e-3' cone='elliptic' solver='Newton'/><default><geom "
         "condim='3' "
         "friction='0.8 0 0'/></default><worldbody>"
         "<geom type='plane' size='0 0 1' contype='1' conaffinity='1'/>"
         "<body name='part' pos='0 0 0.03'><freejoint/><geom type='box' size='0.03 0.03 0.03' "
         "density='800' contype='3' conaffinity='3'/></body>"
         "<body name='left' pos='-0.05 0 0.031'><joint name='left' type='slide' axis='1 0 0'/>"
         "<inertial pos='0 0 0' mass='0.05' diaginertia='1e-5 1e-5 1e-5'/><geom type='box' "
         "size='0.01 0.02 0.02' contype='2' conaffinity='2'/></body>"
         "<body name='right' pos='0.05 0 0.031'><joint name='right' type='slide' axis='-1 0 0'/>"
         "<inertial pos='0 0 0' mass='0.05' diaginertia='1e-5 1e-5 1e-5'/><geom type='box' "
         "size='0.01 0.02 0.02' contype='2' conaffinity='2'/></body></worldbody><actuator>"
         "<position joint='left' kp='300' kv='5' ctrlrange='0 0.1' forcerange='-4 4'/>"
         "<position joint='right' kp='300' kv='5' ctrlrange='0 0.1' forcerange='-4 4'/>"
         "</actuator><keyframe><key ctrl='0.015 0.015'/></keyframe></mujoco>";
}

struct Squeeze : Stepped {
  explicit Squeeze(int steps) : Stepped(squeeze(), steps) {}
};

// In minimal coordinates each A entry is the product of two rows' Jq and (M + h C)^-1 Jq^T over
// where their nonzero DoFs meet (stage_tree.h's spans): the full products, and the floor's rows
// against a pad's (apart: no common tree) exactly 0. Catches a span cut short.
TEST(PrimalTest, TreeAssemblyIsTheWholeProduct) {
  Squeeze t(300);
  tbWork* w = t.w;
  int n = w->nrow, nd = t.m->ndof;
  ASSERT_EQ(nd, 8);
  ASSERT_GE(n, 3 * nd);
  int apart = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double a = i == j ? w->row[i].cfm : 0.0;
      for (int k = 0; k < nd; k++) a += w->Jq[(size_t)i * nd + k] * w->MJq[(size_t)j * nd + k];
      EXPECT_NEAR(w->A[(size_t)i * n + j], a, 1e-12 * (1.0 + std::fabs(a))) << i << " " << j;
      apart += a == 0.0;
    }
  }
  EXPECT_GT(apart, 0);  // a pad's slide and the other pad's rows
}

// The stage in the generalized velocities, from zero on a squeezing step: its answer meets the
// tolerance on the step's assembled A and gives the step's own contact velocities (u = A x + b
// is unique where x is not) in a few Newton iterations, where the dual stages took 18 LM
// iterations a step on such scenes. Catches a wrong joint-space mass product or gradient (the
// answer is judged on A, which the stage never reads but for its diagonal), and a wrong Hessian
// by the iterations it costs (the exact line search keeps the answer right).
TEST(PrimalTest, TreeAnswerFromZeroSolvesTheAssembledProblem) {
  Squeeze t(300);
  tbWork* w = t.w;
  ASSERT_TRUE(tb_treePrimalFirst(t.m));
  tbProblem p = tb_problemOf(t.m, w);
  std::vector<double> warm, u(p.n), uw(p.n);
  tbSolveResult res = primalFromZero(t.m, w, &p, &warm);
  EXPECT_LE(res.iterations, 8);  // 6 here; 11 with the Hessian's mass diagonal halved
  EXPECT_LE(tb_residual(&p, w->x, u.data()), kTol);
  ASSERT_LE(tb_residual(&p, warm.data(), uw.data()), kTol);
  double bn = 0.0;
  for (int i = 0; i < p.n; i++) bn += p.b[i] * p.b[i];
  for (int i = 0; i < p.n; i++) EXPECT_NEAR(u[i], uw[i], 1e-6 * sqrt(bn)) << i;
}

// The squeeze held for 1 s: every step converged, the part still between the pads and at rest
// (its weight on the floor, the pads' forces equal and opposite), the pads at their force limit
// short of their target. Catches the stage's answers drifting the part.
TEST(PrimalTest, TreeSqueezeHoldsThePartStill) {
  Squeeze t(0);
  for (int k = 0; k < 1000; k++) {
    tb_stepScene(t.m, t.d, 0, t.w);
    ASSERT_EQ(t.d->status[0], 0) << "step " << k;
  }
  const double* vel = t.d->body_vel;  // the part is body 0
  for (int k = 0; k < 6; k++) EXPECT_LT(std::fabs(vel[k]), 1e-6) << k;
  EXPECT_NEAR(t.d->body_pos[0], 0.0, 1e-6);
}

}  // namespace

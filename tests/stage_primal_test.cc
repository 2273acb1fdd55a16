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

struct Tower : Scene {
  tbWork* w = nullptr;
  explicit Tower(int steps) : Scene(tb_loadMJCF(tower().c_str()), 1) {
    w = tb_newWork(m);
    reset();
    for (int k = 0; k < steps; k++) tb_stepScene(m, d, 0, w);
  }
  ~Tower() { tb_freeWork(w); }
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
  std::vector<double> mass(12 * t.m->nbody);
  ASSERT_TRUE(tb_primalApplies(t.m, w, &p, mass.data()));
  std::vector<double> warm(w->x, w->x + p.n);  // the step's own answer (every test above passed)
  std::fill(w->x, w->x + p.n, 0.0);
  tbSolverOpt o = tb_defaultSolverOpt();
  o.tol = 1e-8;
  tbSolveResult res;
  ASSERT_EQ(tb_solvePrimal(tb_solo(), t.m, w, &p, &o, 1e-12, &res), 0);
  EXPECT_TRUE(res.converged) << res.residual;
  std::vector<double> A, u(p.n), uw(p.n);
  tbProblem pw = t.whole(A);
  double r = tb_residual(&pw, w->x, u.data());
  EXPECT_LE(r, o.tol);
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
  std::vector<double> mass(12 * t.m->nbody), x0(t.w->x, t.w->x + p.n);
  ASSERT_LT(p.n, TB_PRIMAL_REDUNDANT * 6 * 6);
  EXPECT_FALSE(tb_primalApplies(t.m, t.w, &p, mass.data()));
  tbSolverOpt o = tb_defaultSolverOpt();
  tbSolveResult res;
  EXPECT_EQ(tb_solvePrimal(tb_solo(), t.m, t.w, &p, &o, 1e-12, &res), -1);
  for (int i = 0; i < p.n; i++) EXPECT_EQ(t.w->x[i], x0[i]) << i;
}

}  // namespace

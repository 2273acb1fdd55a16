// The interior point for the exact-cone problem with its De Saxce term held fixed
// (host/solver/solver_ipm.h): the second-order cone's algebra it stands on, and its answers where
// they are known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "solver/solver.h"
#include "solver/solver_ipm.h"
#include "solver/residual.h"

namespace {

// a point well inside Q_m: |z_bar| <= 0.9 z0
std::vector<double> interior(std::mt19937& rng, int m) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> z(m);
  double r = 0.0;
  for (int i = 1; i < m; i++) {
    z[i] = u(rng);
    r += z[i] * z[i];
  }
  z[0] = (std::sqrt(r) + 0.1) / 0.9 * (1.0 + std::fabs(u(rng)));
  return z;
}

TEST(IpmTest, NesterovToddScalingMapsThePairToOnePoint) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int m = 1; m <= 3; m++) {
    for (int trial = 0; trial < 200; trial++) {
      std::vector<double> z = interior(rng, m), l = interior(rng, m), y(m);
      for (int i = 0; i < m; i++) y[i] = u(rng);
      double w[3], beta, sl[3], sz[3], back[3], sy[3];
      tbu_socNTScaling(z.data(), l.data(), m, w, &beta);
      tbu_socScale(w, beta, m, l.data(), sl);
      tbu_socScaleInv(w, beta, m, z.data(), sz);
      tbu_socScaleInv(w, beta, m, y.data(), sy);
      tbu_socScale(w, beta, m, sy, back);
      for (int i = 0; i < m; i++) {
        EXPECT_NEAR(sl[i], sz[i], 1e-12 * (1.0 + std::fabs(sz[i]))) << "m " << m << " i " << i;
        EXPECT_NEAR(back[i], y[i], 1e-12) << "S S^-1 y, m " << m;
      }
      // the scaled point is inside Q (S keeps the cone)
      EXPECT_GT(tbu_socMargin(sl, m), 0.0);
    }
  }
}

TEST(IpmTest, JordanDivisionInvertsTheProduct) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int m = 1; m <= 3; m++) {
    for (int trial = 0; trial < 200; trial++) {
      std::vector<double> v = interior(rng, m), d(m);
      for (int i = 0; i < m; i++) d[i] = u(rng);
      double y[3], vy[3];
      tbu_socDivide(v.data(), d.data(), m, y);
      tbu_socProduct(v.data(), y, m, vy);
      for (int i = 0; i < m; i++) EXPECT_NEAR(vy[i], d[i], 1e-11) << "m " << m;
    }
  }
}

TEST(IpmTest, MaxStepEndsOnTheConesBoundary) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  int hits = 0;
  for (int m = 1; m <= 3; m++) {
    for (int trial = 0; trial < 300; trial++) {
      std::vector<double> z = interior(rng, m), dz(m), at(m), half(m);
      for (int i = 0; i < m; i++) dz[i] = u(rng);
      double a = tbu_socMaxStep(z.data(), dz.data(), m, 1e6);
      ASSERT_GT(a, 0.0);
      for (int i = 0; i < m; i++) {
        at[i] = z[i] + a * dz[i];
        half[i] = z[i] + 0.5 * a * dz[i];
      }
      EXPECT_GT(tbu_socMargin(half.data(), m), 0.0) << "m " << m;
      if (a < 1e6) {
        hits++;
        EXPECT_NEAR(tbu_socMargin(at.data(), m), 0.0, 1e-10 * (1.0 + a)) << "m " << m;
        EXPECT_GE(at[0], -1e-10) << "the cone's own nappe, not the negative one";
      }
    }
  }
  EXPECT_GT(hits, 300);  // most random directions leave the cone
}

// rows (n, t, o) of contacts on one point mass m: A = I / m
struct PointMass {
  int n, nb;
  std::vector<double> A, b, lo, hi, mu, angle;
  std::vector<int> type, adr, dim;
  tbProblem p{};

  PointMass(double mass, std::vector<double> bv, std::vector<double> muv)
      : n((int)bv.size()),
        nb((int)muv.size()),
        A(bv.size() * bv.size(), 0.0),
        b(bv),
        lo(bv.size(), 0.0),
        hi(bv.size(), INFINITY),
        mu(muv),
        angle(muv.size(), 0.0),
        type(muv.size(), TB_BLOCK_CONTACT),
        adr(muv.size()),
        dim(muv.size(), 3) {
    for (int i = 0; i < n; i++) A[i * n + i] = 1.0 / mass;
    for (int k = 0; k < nb; k++) adr[k] = 3 * k;
    p = {n,           nb,         A.data(),   b.data(),  lo.data(),    hi.data(),
         type.data(), adr.data(), dim.data(), mu.data(), angle.data(), 0,
         0,           0,          NULL};
  }
};

// a sliding point mass (tangential speed 2 m/s, mu 0.3): with s = mu |u_t| of the closed-form
// answer the fixed-term problem's answer is that answer, x_n = m g h and friction opposing the
// slip at its limit
TEST(IpmTest, AnswersASlidingContactGivenItsTerm) {
  const double m = 2.0, g = 9.81, h = 0.01, mu = 0.3, vt = 2.0;
  PointMass pm(m, {-g * h, vt, 0.0}, {mu});
  double xn = m * g * h, xt = -mu * xn, ut = vt + xt / m;
  std::vector<double> s = {mu * ut, 0.0, 0.0}, x(3), work(tb_ipmNeed(3)), u(3);
  int iters = 0;
  tbSolverOpt opt = tb_defaultSolverOpt();
  ASSERT_EQ(tb_ipmSolve(&pm.p, s.data(), &opt, TB_IPM_ITERS, x.data(), work.data(), &iters), 0);
  EXPECT_LT(iters, TB_IPM_ITERS);
  EXPECT_NEAR(x[0], xn, 1e-9 * xn);
  EXPECT_NEAR(x[1], xt, 1e-9 * xn);
  EXPECT_NEAR(x[2], 0.0, 1e-9 * xn);
  EXPECT_LE(tb_residual(&pm.p, x.data(), u.data()), 1e-9);
}

// four coplanar contacts on one point mass resting under gravity (A singular: rank 3 of 12): the
// answers spread m g h over the four in any proportion; the interior point's is the set's
// center, m g h / 4 each, no friction (s = 0: nothing slips)
TEST(IpmTest, RedundantRestingContactsShareEvenly) {
  const double m = 1.5, g = 9.81, h = 0.01;
  std::vector<double> bv(12, 0.0);
  for (int k = 0; k < 4; k++) bv[3 * k] = -g * h;
  PointMass pm(m, bv, {0.5, 0.5, 0.5, 0.5});
  for (int i = 0; i < 12; i++) {  // every row pair shares the mass: A = J M^-1 J^T
    for (int j = 0; j < 12; j++) pm.A[i * 12 + j] = i % 3 == j % 3 ? 1.0 / m : 0.0;
  }
  std::vector<double> s(12, 0.0), x(12), work(tb_ipmNeed(12)), u(12);
  int iters = 0;
  tbSolverOpt opt = tb_defaultSolverOpt();
  ASSERT_GE(tb_ipmSolve(&pm.p, s.data(), &opt, TB_IPM_ITERS, x.data(), work.data(), &iters), 0);
  for (int k = 0; k < 4; k++) {
    EXPECT_NEAR(x[3 * k], m * g * h / 4.0, 1e-7 * m * g * h) << "contact " << k;
    EXPECT_NEAR(x[3 * k + 1], 0.0, 1e-7 * m * g * h);
    EXPECT_NEAR(x[3 * k + 2], 0.0, 1e-7 * m * g * h);
  }
  EXPECT_LE(tb_residual(&pm.p, x.data(), u.data()), 1e-8);
}

TEST(IpmTest, AppliesToExactConeContactsWithFriction) {
  PointMass pm(1.0, {-0.1, 0.2, 0.0, -0.1, 0.0, 0.0}, {0.4, 0.7});
  EXPECT_TRUE(tb_ipmApplies(&pm.p));
  pm.p.cone = 1;  // the pyramid is a polyhedral set, not a second-order cone
  EXPECT_FALSE(tb_ipmApplies(&pm.p));
  pm.p.cone = 0;
  pm.mu[1] = 0.0;  // tangent rows without friction: D = diag(mu, 1, 1) is singular
  EXPECT_FALSE(tb_ipmApplies(&pm.p));
  pm.mu[1] = 0.7;
  pm.type[1] = TB_BLOCK_BOX;  // box rows are not cones
  EXPECT_FALSE(tb_ipmApplies(&pm.p));
}

}  // namespace

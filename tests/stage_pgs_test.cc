// Friction-set projections (host/math/cone.h) and projected Gauss-Seidel
// (host/solver/solver_pgs.h) on small problems with known answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "math/cone.h"

#include "solver/solver.h"
#include "solver/residual.h"

namespace {

// projections: idempotent, non-expansive, exact on the boundary, inside points unchanged
TEST(SolverPgsTest, ProjectionProperties) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int pyramid = 0; pyramid < 2; pyramid++) {
    for (int trial = 0; trial < 2000; trial++) {
      double r = std::fabs(u(rng)), a = u(rng);
      int nd = 3 + trial % 30;
      double x[2] = {u(rng), u(rng)}, y[2] = {u(rng), u(rng)};
      double px[2] = {x[0], x[1]}, py[2] = {y[0], y[1]};
      tbu_projFriction(px, 2, r, pyramid, nd, a);
      tbu_projFriction(py, 2, r, pyramid, nd, a);
      double ppx[2] = {px[0], px[1]};
      tbu_projFriction(ppx, 2, r, pyramid, nd, a);
      EXPECT_NEAR(ppx[0], px[0], 1e-12);
      EXPECT_NEAR(ppx[1], px[1], 1e-12);
      double dp = std::hypot(px[0] - py[0], px[1] - py[1]);
      EXPECT_LE(dp, std::hypot(x[0] - y[0], x[1] - y[1]) + 1e-12);
      // inside the inscribed circle of the polygon nothing moves
      double rin = pyramid ? r * std::cos(M_PI / nd) : r;
      if (std::hypot(x[0], x[1]) < rin) {
        EXPECT_EQ(px[0], x[0]);
        EXPECT_EQ(px[1], x[1]);
      }
      // a projected outside point lies on the boundary: radius r (disc) or on an edge
      if (std::hypot(x[0], x[1]) > r) {
        double n = std::hypot(px[0], px[1]);
        EXPECT_LE(n, r + 1e-12);
        EXPECT_GE(n, rin - 1e-12);
      }
    }
  }
  // vertices of the polygon are on it
  double v[2] = {2.0 * std::cos(0.3), 2.0 * std::sin(0.3)};
  tbu_projPolygon(v, 2.0, 5, 0.3);
  EXPECT_NEAR(v[0], 2.0 * std::cos(0.3), 1e-15);
}

// the projection is the polygon's nearest point: against every edge's nearest point, found in
// the test with the trigonometry the projection's fast paths skip (the inscribed circle, and the
// square of the unturned four-facet pyramid, a = 0). Catches a fast path that moves a point to a
// point of the polygon other than the nearest
TEST(SolverPgsTest, PolygonProjectionIsTheNearestPoint) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int nd : {3, 4, 5, 6, 8}) {
    for (double a : {0.0, 0.3}) {
      for (int trial = 0; trial < 500; trial++) {
        double r = 0.1 + std::fabs(u(rng)), x[2] = {u(rng), u(rng)}, p[2] = {x[0], x[1]};
        tbu_projPolygon(p, r, nd, a);
        // the polygon contains x, else its nearest point is on the nearest edge
        double best = INFINITY, q[2] = {x[0], x[1]};
        bool inside = true;
        for (int j = 0; j < nd; j++) {
          double a0 = a + 2 * M_PI * j / nd, a1 = a + 2 * M_PI * (j + 1) / nd;
          double e0[2] = {r * std::cos(a0), r * std::sin(a0)};
          double e[2] = {r * std::cos(a1) - e0[0], r * std::sin(a1) - e0[1]};
          double w[2] = {x[0] - e0[0], x[1] - e0[1]};
          inside = inside && w[0] * e[1] - w[1] * e[0] <= 0.0;
          double t =
              std::clamp((w[0] * e[0] + w[1] * e[1]) / (e[0] * e[0] + e[1] * e[1]), 0.0, 1.0);
          double c[2] = {e0[0] + t * e[0], e0[1] + t * e[1]};
          double dist = std::hypot(x[0] - c[0], x[1] - c[1]);
          if (dist < best) best = dist, q[0] = c[0], q[1] = c[1];
        }
        if (inside) q[0] = x[0], q[1] = x[1];
        EXPECT_NEAR(p[0], q[0], 1e-12) << nd << " " << a << " " << x[0] << " " << x[1];
        EXPECT_NEAR(p[1], q[1], 1e-12) << nd << " " << a << " " << x[0] << " " << x[1];
      }
    }
  }
}

// PGS through the registry with its own scratch
tbSolveResult Pgs(const tbProblem& p, int max_iter, double tol, std::vector<double>& x) {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.max_iter = max_iter;
  opt.tol = tol;
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_PGS, p.n, 1, 8);
  tbSolveResult res;
  EXPECT_EQ(tb_solve(TB_SOLVER_PGS, &p, &opt, x.data(), w, &res), TB_OK) << tb_lastError();
  tb_freeSolverWork(w);
  return res;
}

// one contact, isotropic W = diag(1, 1, 1): sliding answer in closed form
struct OneContact {
  std::vector<double> A = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b, lo = {0, 0, 0}, hi = {0, 0, 0};
  int type = TB_BLOCK_CONTACT, adr = 0, dim = 3;
  double mu, angle = 0.0;
  tbProblem p;
  OneContact(double bn, double bt, double bo, double mu_) : b{bn, bt, bo}, mu(mu_) {
    p = {3,    1,   A.data(), b.data(), lo.data(), hi.data(), &type,  &adr,
         &dim, &mu, &angle,   0,        8,         0,         nullptr};
  }
};

TEST(SolverPgsTest, SingleContactSlidingAndSticking) {
  const int kIter = 100;
  const double kTol = 1e-12;
  std::vector<double> x(3, 0.0), work(3);
  tbSolveResult res;
  // pressing (b_n = -1) and sliding fast (|b_t| = 5 > mu * 1): x_n = 1, x_t = -mu b_t/|b_t|
  OneContact s(-1.0, 3.0, 4.0, 0.5);
  res = Pgs(s.p, kIter, kTol, x);
  EXPECT_TRUE(res.converged);
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], -0.5 * 0.6, 1e-12);
  EXPECT_NEAR(x[2], -0.5 * 0.8, 1e-12);
  // slow (|b_t| = 0.25 < mu): sticks, x_t = -b_t
  OneContact k(-1.0, 0.15, -0.2, 0.5);
  std::fill(x.begin(), x.end(), 0.0);
  res = Pgs(k.p, kIter, kTol, x);
  EXPECT_NEAR(x[1], -0.15, 1e-12);
  EXPECT_NEAR(x[2], 0.2, 1e-12);
  // separating (b_n > 0): no impulse at all
  OneContact sep(0.5, 3.0, 4.0, 0.5);
  std::fill(x.begin(), x.end(), 0.0);
  res = Pgs(sep.p, kIter, kTol, x);
  EXPECT_EQ(x[0], 0.0);
  EXPECT_EQ(x[1], 0.0);
}

// anisotropic tangent block: the fixed point still satisfies maximal dissipation, i.e. the
// post-step slip u_t is anti-parallel to x_t when sliding
TEST(SolverPgsTest, AnisotropicBlockMaxDissipation) {
  OneContact c(-1.0, 2.0, 1.0, 0.3);
  c.A = {2.0, 0.3, 0.1, 0.3, 1.5, 0.4, 0.1, 0.4, 0.6};
  c.p.A = c.A.data();
  const int kIter = 5000;
  const double kTol = 1e-13;
  // (a spare entry each: GCC 12's -Warray-bounds does not see that p.n is 3 here and flags
  // tbu_dotRange's unrolled reads in tb_problemVelocity)
  std::vector<double> x(4, 0.0), work(4), u(4);
  tbSolveResult res;
  res = Pgs(c.p, kIter, kTol, x);
  ASSERT_TRUE(res.converged) << res.residual;
  tb_problemVelocity(&c.p, x.data(), u.data());
  EXPECT_NEAR(u[0], 0.0, 1e-10);                           // in contact
  EXPECT_NEAR(std::hypot(x[1], x[2]), 0.3 * x[0], 1e-10);  // on the cone
  double cross = x[1] * u[2] - x[2] * u[1], dot = x[1] * u[1] + x[2] * u[2];
  EXPECT_NEAR(cross, 0.0, 1e-9);
  EXPECT_LT(dot, 0.0);
  EXPECT_NEAR(res.residual, tb_residual(&c.p, x.data(), work.data()), 1e-15);
}

// a problem PGS cannot finish in the iterations allowed is reported as not converged
TEST(SolverPgsTest, HonestNonConvergence) {
  OneContact c(-1.0, 2.0, 1.0, 0.3);
  c.A = {2.0, 0.3, 0.1, 0.3, 1.5, 0.4, 0.1, 0.4, 0.6};
  c.p.A = c.A.data();
  const int kIter = 2;
  const double kTol = 1e-14;
  std::vector<double> x(3, 0.0), work(3);
  tbSolveResult res;
  res = Pgs(c.p, kIter, kTol, x);
  EXPECT_FALSE(res.converged);
  EXPECT_EQ(res.reason, TB_STOP_MAXITER);
  EXPECT_GT(res.residual, 1e-14);
}

}  // namespace

// Lemke's complementary pivoting (host/solver/solver_lemke.h) through tb_solve: the small LCPs of
// tests/data/lcp typed in by hand, random P-matrix LCPs against PGS, LCPs without a
// solution (ray termination) and a pyramid contact with a hand-computed answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "solver/solver.h"
#include "solver/residual.h"

namespace {

// an LCP 0 <= z _|_ M z + q >= 0 as a tbProblem of unilateral box rows (A = M, b = q)
struct Lcp {
  int n;
  std::vector<double> M, q, lo, hi, mu, angle;
  std::vector<int> type, adr, dim;
  tbProblem p;
  Lcp(int n_, std::vector<double> M_, std::vector<double> q_)
      : n(n_),
        M(std::move(M_)),
        q(std::move(q_)),
        lo(n_, 0.0),
        hi(n_, INFINITY),
        mu(n_, 0.0),
        angle(n_, 0.0),
        type(n_, TB_BLOCK_BOX),
        adr(n_),
        dim(n_, 1) {
    for (int i = 0; i < n; i++) adr[i] = i;
    p = {n,           n,          M.data(),   q.data(),  lo.data(),    hi.data(),
         type.data(), adr.data(), dim.data(), mu.data(), angle.data(), 0,
         4,           0,          nullptr};
  }
  Lcp(const Lcp&) = delete;
  Lcp& operator=(const Lcp&) = delete;
  double w(const std::vector<double>& z, int i) const {
    double s = q[i];
    for (int j = 0; j < n; j++) s += M[(size_t)i * n + j] * z[j];
    return s;
  }
};

tbSolveResult Solve(int solver, const tbProblem& p, std::vector<double>& x, int ncontact = 0,
                    int facets = 4, int max_iter = 1000, double tol = 1e-10) {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.max_iter = max_iter;
  opt.tol = tol;
  tbSolverWork* w = tb_newSolverWork(solver, p.n, ncontact, facets);
  tbSolveResult res;
  EXPECT_EQ(tb_solve(solver, &p, &opt, x.data(), w, &res), TB_OK) << tb_lastError();
  tb_freeSolverWork(w);
  return res;
}

// z solves the LCP: z >= 0 (Lemke clamps round-off, so exactly), w >= -tol, |z_i w_i| <= tol
void ExpectSolves(const Lcp& l, const std::vector<double>& z, double tol) {
  for (int i = 0; i < l.n; i++) {
    double wi = l.w(z, i);
    EXPECT_GE(z[i], 0.0) << i;
    EXPECT_GE(wi, -tol) << i;
    EXPECT_LE(std::fabs(z[i] * wi), tol) << i;
  }
}

// a returned answer is either converged and right, or an honest failure (never converged with
// a wrong z): the independent complementarity check runs whenever converged is claimed
void ExpectHonest(const Lcp& l, const std::vector<double>& z, const tbSolveResult& res) {
  if (res.converged) {
    EXPECT_EQ(res.reason, TB_STOP_CONVERGED);
    ExpectSolves(l, z, 1e-12);
  } else {
    EXPECT_NE(res.reason, TB_STOP_CONVERGED);
  }
}

// lcp_deudeu: unique solution (4/3, 7/3) with w = 0 (both rows active)
TEST(SolverLemkeTest, Deudeu) {
  Lcp l(2, {2, 1, 1, 2}, {-5, -6});
  std::vector<double> z(2, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z);
  EXPECT_TRUE(res.converged) << res.residual;
  EXPECT_EQ(res.reason, TB_STOP_CONVERGED);
  // exact in 2 pivots of small integers: a few ulps of 7/3
  EXPECT_NEAR(z[0], 4.0 / 3.0, 1e-14);
  EXPECT_NEAR(z[1], 7.0 / 3.0, 1e-14);
  EXPECT_EQ(res.iterations, 3);  // z0 enters, then z_2, then z_1 (and z0 leaves)
  std::printf("deudeu: %d pivots, residual %.3g\n", res.iterations, res.residual);
}

// lcp_CPS_1 (CPS Remark 4.1.14): the solution set is z1 + z2 = 1, z >= 0
TEST(SolverLemkeTest, Cps1SolutionSet) {
  Lcp l(2, {1, 1, 1, 1}, {-1, -1});
  std::vector<double> z(2, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z);
  EXPECT_TRUE(res.converged) << res.reason;
  ExpectSolves(l, z, 1e-12);
  EXPECT_NEAR(z[0] + z[1], 1.0, 1e-12);
  std::printf("CPS_1: z = (%g, %g), %d pivots\n", z[0], z[1], res.iterations);
}

// lcp_exp_murty (Murty 1988 ch. 6): lower-triangular M, 1 on the diagonal, 2 below
TEST(SolverLemkeTest, ExpMurty) {
  const int n = 6;
  std::vector<double> M(n * n, 0.0);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) M[i * n + j] = i == j ? 1.0 : 2.0;
  }
  Lcp l(n, M, std::vector<double>(n, -1.0));
  std::vector<double> z(n, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z);
  EXPECT_TRUE(res.converged) << res.reason;
  ExpectSolves(l, z, 1e-12);
  // M is a P-matrix (triangular, unit diagonal): the solution is unique, z = e_1 (w_1 = 0,
  // w_i = 2 - 1 = 1 for i > 1)
  for (int i = 0; i < n; i++) EXPECT_NEAR(z[i], i == 0 ? 1.0 : 0.0, 1e-14) << i;
  // the exponential path: 2^n pivots (checked for n = 2..14 during development)
  EXPECT_EQ(res.iterations, 64);
  std::printf("exp_murty n=6: %d pivots\n", res.iterations);
}

// the pivot cap is max(opt->max_iter, 50 m): Murty's n = 12 needs 4096 > 600 pivots
TEST(SolverLemkeTest, PivotCap) {
  const int n = 12;
  std::vector<double> M(n * n, 0.0);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) M[i * n + j] = i == j ? 1.0 : 2.0;
  }
  Lcp l(n, M, std::vector<double>(n, -1.0));
  std::vector<double> z(n, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z, 0, 4, 1);
  EXPECT_EQ(res.iterations, 50 * n);
  EXPECT_EQ(res.reason, TB_STOP_MAXITER);
  EXPECT_EQ(res.converged, 0);
  z.assign(n, 0.0);
  res = Solve(TB_SOLVER_LEMKE, l.p, z, 0, 4, 5000);
  EXPECT_TRUE(res.converged);
  EXPECT_EQ(res.iterations, 4096);
  for (int i = 0; i < n; i++) EXPECT_EQ(z[i], i == 0 ? 1.0 : 0.0) << i;
}

// a degenerate LCP (found by a random search) on which the ratio test with lowest-index tie
// breaking cycles forever (MAXITER at any cap); the lexicographic rule follows the exact-
// arithmetic lexicographic path (checked with rational arithmetic): 4 pivots to
// z = (0, 1/2, 0, 0, 0, 1/2)
TEST(SolverLemkeTest, LexicographicRuleAvoidsCycling) {
  Lcp l(6, {1, 2, 2, 0, 2, 1, 2, 1, 1, 1, 0, 1, 0, 1, 2, 2, 0, 1,
            2, 1, 2, 2, 1, 2, 0, 0, 2, 1, 2, 2, 1, 0, 1, 0, 2, 2},
        {-1, -1, -1, 1, 1, -1});
  std::vector<double> z(6, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z, 0, 4, 100000);
  EXPECT_TRUE(res.converged) << res.reason << " " << res.iterations;
  EXPECT_EQ(res.iterations, 4);
  ExpectSolves(l, z, 1e-12);
  const double expect[6] = {0, 0.5, 0, 0, 0, 0.5};
  for (int i = 0; i < 6; i++) EXPECT_NEAR(z[i], expect[i], 1e-15) << i;
}

// the polish on a basis whose LU is exact: every z ends basic (z = (2, 1, 1), w = 0), so B's
// columns are -M e_j in the order (z_3, z_1, z_2); its LU exchanges rows at the first two
// steps and every pivot is -2, so each operation of the solve is exact and so is z. The pivot
// path alone leaves z_2 and z_3 one and two ulps high; a forward substitution that applies
// the row exchanges one at a time against the finished multipliers gets v wrong here, the
// polish is refused and those ulps stay
TEST(SolverLemkeTest, PolishIsExactWhereTheBasisSolveIs) {
  Lcp l(3, {2, 1, 0, 1, 3, -1, 0, -1, 2}, {-5, -4, -1});
  std::vector<double> z(3, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z, 0, 4, 1000, 1e-12);
  EXPECT_TRUE(res.converged) << res.reason;
  EXPECT_EQ(res.iterations, 4);
  EXPECT_EQ(z, std::vector<double>({2.0, 1.0, 1.0}));
  EXPECT_EQ(res.residual, 0.0);
}

// lcp_CPS_2 (CPS Example 4.4.7) and lcp_CPS_3 (bimatrix game, CPS Example 4.4.23): either a
// correct solution or an honest failure; both outcomes are printed
TEST(SolverLemkeTest, Cps2AndCps3HonestOutcome) {
  Lcp c2(3, {0, 2, -1, -1, 0, 1, 2, -2, 0}, {-3, 6, -1});
  std::vector<double> z(3, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, c2.p, z);
  ExpectHonest(c2, z, res);
  std::printf("CPS_2: converged %d reason %d, %d pivots, z = (%g, %g, %g)\n", res.converged,
              res.reason, res.iterations, z[0], z[1], z[2]);
  Lcp c3(4, {0, 0, 10, 30, 0, 0, 20, 15, 10, 30, 0, 0, 20, 15, 0, 0}, {-1, -1, -1, -1});
  z.assign(4, 0.0);
  res = Solve(TB_SOLVER_LEMKE, c3.p, z);
  ExpectHonest(c3, z, res);
  std::printf("CPS_3: converged %d reason %d, %d pivots, z = (%g, %g, %g, %g)\n", res.converged,
              res.reason, res.iterations, z[0], z[1], z[2], z[3]);
}

// random P-matrices M = B B^T + I: Lemke's answer is PGS's (the unique solution)
TEST(SolverLemkeTest, RandomPMatricesMatchPgs) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {5, 20, 60}) {
    for (int trial = 0; trial < 3; trial++) {
      std::vector<double> B(n * n), M(n * n), q(n);
      for (double& b : B) b = u(rng);
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          double s = i == j ? 1.0 : 0.0;
          for (int k = 0; k < n; k++) s += B[i * n + k] * B[j * n + k];
          M[i * n + j] = s;
        }
        q[i] = 3.0 * u(rng);
      }
      Lcp l(n, M, q);
      std::vector<double> z(n, 0.0), zp(n, 0.0);
      tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z, 0, 4, 1000, 1e-12);
      ASSERT_TRUE(res.converged) << n << " " << res.reason << " " << res.residual;
      tbSolveResult rp = Solve(TB_SOLVER_PGS, l.p, zp, 0, 4, 200000, 1e-13);
      ASSERT_TRUE(rp.converged) << n << " " << rp.residual;
      // PGS stops at a natural-map residual <= 1e-13 ||q|| (||q|| <~ 3 sqrt(60) ~ 23), Lemke's
      // is ~1e-15; for symmetric M with lambda_min >= 1 the distance to the unique solution is
      // at most (1 + ||M||) / lambda_min times the residual (||M|| <~ 4n/3 + 1 ~ 80 for
      // n = 60), i.e. <~ 2e-10: 1e-9 covers it
      for (int i = 0; i < n; i++) EXPECT_NEAR(z[i], zp[i], 1e-9) << n << " " << i;
      ExpectSolves(l, z, 1e-10);
      std::printf("P-matrix n=%d: Lemke %d pivots (res %.2g), PGS %d sweeps\n", n, res.iterations,
                  res.residual, rp.iterations);
    }
  }
}

// degenerate P-matrix LCPs (small integers, many ties and zeros in q): with the
// lexicographic ratio test Lemke never cycles and always finds the unique solution
TEST(SolverLemkeTest, DegenerateIntegerPMatrices) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> b3(-1, 1), q4(-2, 1);
  int maxpiv = 0;
  for (int trial = 0; trial < 300; trial++) {
    int n = 2 + trial % 9;
    std::vector<double> B(n * n), M(n * n), q(n);
    for (double& b : B) b = b3(rng);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double s = i == j ? 1.0 : 0.0;
        for (int k = 0; k < n; k++) s += B[i * n + k] * B[j * n + k];
        M[i * n + j] = s;
      }
      q[i] = q4(rng);
    }
    Lcp l(n, M, q);
    std::vector<double> z(n, 0.0);
    tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z, 0, 4, 1, 1e-12);
    ASSERT_TRUE(res.converged) << trial << " reason " << res.reason;
    ExpectSolves(l, z, 1e-12);
    maxpiv = std::max(maxpiv, res.iterations);
  }
  std::printf("degenerate integer P-matrices: at most %d pivots\n", maxpiv);
}

// no solution: ray termination, never converged
TEST(SolverLemkeTest, InfeasibleRay) {
  {
    Lcp l(1, {-1}, {-1});  // w = -z - 1 < 0 for every z >= 0
    std::vector<double> z(1, 0.0);
    tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z);
    EXPECT_EQ(res.reason, TB_STOP_RAY);
    EXPECT_EQ(res.converged, 0);
    EXPECT_GT(res.residual, 1e-3);
  }
  {
    Lcp l(2, {0, 1, -1, 0}, {1, -1});  // w_2 = -z_1 - 1 < 0
    std::vector<double> z(2, 0.0);
    tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z);
    EXPECT_EQ(res.reason, TB_STOP_RAY);
    EXPECT_EQ(res.converged, 0);
  }
}

// q >= 0: z = 0 without a pivot; x on entry is ignored (no warm start)
TEST(SolverLemkeTest, TrivialAndNoWarmStart) {
  Lcp l(2, {2, 1, 1, 2}, {0.5, 0.0});
  std::vector<double> z = {7.0, -3.0};
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, l.p, z);
  EXPECT_TRUE(res.converged);
  EXPECT_EQ(res.iterations, 0);
  EXPECT_EQ(z[0], 0.0);
  EXPECT_EQ(z[1], 0.0);
  Lcp d(2, {2, 1, 1, 2}, {-5, -6});
  std::vector<double> z1(2, 0.0), z2 = {100.0, -5.0};
  tbSolveResult r1 = Solve(TB_SOLVER_LEMKE, d.p, z1), r2 = Solve(TB_SOLVER_LEMKE, d.p, z2);
  EXPECT_EQ(z1, z2);  // bitwise: the start is the same corner whatever x held
  EXPECT_EQ(r1.iterations, r2.iterations);
}

// one pyramid contact, A = I: x_n = 1 and x_t = P_polygon(-b_t)
TEST(SolverLemkeTest, PyramidContact) {
  std::vector<double> A = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b = {-1, 3, 4}, lo(3, 0.0), hi(3, 0.0);
  int type = TB_BLOCK_CONTACT, adr = 0, dim = 3;
  double mu = 0.5, angle = 0.0;
  tbProblem p = {3,    1,   A.data(), b.data(), lo.data(), hi.data(), &type,  &adr,
                 &dim, &mu, &angle,   1,        4,         0,         nullptr};
  std::vector<double> x(3, 0.0);
  tbSolveResult res = Solve(TB_SOLVER_LEMKE, p, x, 1, 4, 1000, 1e-12);
  EXPECT_TRUE(res.converged) << res.reason << " " << res.residual;
  // u = x + b, so the friction fixed point is x_t = P(x_t - u_t) = P(-b_t) = P(-3, -4) on the
  // square |x_t| + |x_o| <= 0.5 (vertices (+-0.5, 0), (0, +-0.5)): the foot of (-3, -4) on the
  // edge x_t + x_o = -0.5 is (0.25, -0.75), outside that edge, so the answer is the vertex
  // (0, -0.5) ((-3, -3.5) = 0.25 (1, -1) + 3.25 (-1, -1) is in its normal cone)
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], 0.0, 1e-12);
  EXPECT_NEAR(x[2], -0.5, 1e-12);
  std::printf("pyramid contact: %d pivots, residual %.3g\n", res.iterations, res.residual);

  // sticking: -b_t = (-0.1, 0.15) is inside the square, x_t = -b_t
  b = {-1, 0.1, -0.15};
  x.assign(3, 0.0);
  res = Solve(TB_SOLVER_LEMKE, p, x, 1, 4, 1000, 1e-12);
  EXPECT_TRUE(res.converged);
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], -0.1, 1e-12);
  EXPECT_NEAR(x[2], 0.15, 1e-12);

  // one tangent (dim 2): x_t = P_[-0.5, 0.5](-3) = -0.5
  std::vector<double> A2 = {1, 0, 0, 1}, b2 = {-1, 3};
  int dim2 = 2;
  tbProblem p2 = {2,     1,   A2.data(), b2.data(), lo.data(), hi.data(), &type,  &adr,
                  &dim2, &mu, &angle,    1,         4,         0,         nullptr};
  x.assign(2, 0.0);
  res = Solve(TB_SOLVER_LEMKE, p2, x, 1, 4, 1000, 1e-12);
  EXPECT_TRUE(res.converged);
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], -0.5, 1e-12);
}

}  // namespace

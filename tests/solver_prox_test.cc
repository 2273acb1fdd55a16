// Prox fixed-point iteration (host/solver/solver_prox.h) on Lu & Trinkle's single-contact particle.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "solver/solver.h"
#include "solver/residual.h"

namespace {

// L&T §III: m = 1, h = 0.1, mu = 0.5, g = -10, q = (1, 1, 0.15), v = (1, 0, -1): the step
// before impact. Delassus form with rows (n, t, o): A = I, b = (v_z + h g + psi/h, v_x, v_y)
// = (-0.5, 1, 0). Exact answer: x_n = 0.5 (lands), slides: x_t = (-mu x_n, 0) = (-0.25, 0).
struct Particle {
  std::vector<double> A = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b = {-0.5, 1.0, 0.0};
  std::vector<double> lo = {0, 0, 0}, hi = {0, 0, 0};
  int type = TB_BLOCK_CONTACT, adr = 0, dim = 3;
  double mu = 0.5, angle = 0.0;
  tbProblem p;
  explicit Particle(int cone = 0) {
    p = {3,    1,   A.data(), b.data(), lo.data(), hi.data(), &type,  &adr,
         &dim, &mu, &angle,   cone,     4,         0,         nullptr};
  }
};

tbSolveResult Prox(const tbProblem& p, tbSolverOpt opt, std::vector<double>& x, int jacobi) {
  int solver = jacobi ? TB_SOLVER_PROX_JACOBI : TB_SOLVER_PROX_GS;
  tbSolverWork* w = tb_newSolverWork(solver, p.n, 1, p.facets);
  tbSolveResult res;
  EXPECT_EQ(tb_solve(solver, &p, &opt, x.data(), w, &res), TB_OK) << tb_lastError();
  tb_freeSolverWork(w);
  return res;
}

tbSolverOpt FixedR(double r) {
  tbSolverOpt o = tb_defaultSolverOpt();
  o.prox_rule = TB_PROXR_FIXED;
  o.prox_r = r;
  o.prox_adaptive = 0;
  o.tol = 1e-14;
  o.max_iter = 300;
  return o;
}

// r = 1 is the exact update for A = I: one iteration (L&T Fig. 2), from a cold start
TEST(SolverProxTest, ParticleOneIterationAtROne) {
  for (int jacobi = 0; jacobi < 2; jacobi++) {
    for (int cone = 0; cone < 2; cone++) {
      Particle pt(cone);
      std::vector<double> x(3, 0.0);
      tbSolveResult res = Prox(pt.p, FixedR(1.0), x, jacobi);
      EXPECT_TRUE(res.converged);
      EXPECT_EQ(res.iterations, 1) << "jacobi " << jacobi << " cone " << cone;
      EXPECT_NEAR(x[0], 0.5, 1e-15);
      EXPECT_NEAR(x[1], -0.25, 1e-15);
      EXPECT_NEAR(x[2], 0.0, 1e-15);
    }
  }
}

// iterations grow as r moves away from 1; r = 2.5 (outside the contraction range (0, 2) of
// x <- x - r (x + b)) never converges
TEST(SolverProxTest, IterationsVersusR) {
  std::vector<int> iters;
  for (double r : {1.0, 0.9, 0.7, 0.5, 0.3}) {
    Particle pt;
    std::vector<double> x(3, 0.0);
    tbSolveResult res = Prox(pt.p, FixedR(r), x, 0);
    EXPECT_TRUE(res.converged) << "r " << r;
    iters.push_back(res.iterations);
  }
  for (size_t i = 1; i < iters.size(); i++) EXPECT_GT(iters[i], iters[i - 1]);
  Particle pt;
  std::vector<double> x(3, 0.0);
  tbSolveResult res = Prox(pt.p, FixedR(2.5), x, 0);
  EXPECT_FALSE(res.converged);
  // the adaptive rule rescues the same bad r
  tbSolverOpt o = FixedR(2.5);
  o.prox_adaptive = 1;
  std::fill(x.begin(), x.end(), 0.0);
  res = Prox(pt.p, o, x, 0);
  EXPECT_TRUE(res.converged);
  EXPECT_NEAR(x[0], 0.5, 1e-12);
}

// constraint force mixing: the answer is that of A + zeta I, so the true residual floors at
// the order of zeta (L&T Figs. 4-5) and a tolerance below it is never met
TEST(SolverProxTest, CfmAccuracyFloor) {
  for (double zeta : {1e-6, 1e-9, 1e-12}) {
    Particle pt;
    std::vector<double> x(3, 0.0);
    tbSolverOpt o = tb_defaultSolverOpt();
    o.cfm = zeta;
    o.tol = 1e-15;
    o.max_iter = 200;
    tbSolveResult res = Prox(pt.p, o, x, 0);
    EXPECT_FALSE(res.converged) << zeta;
    // relaxed x_n = 0.5 / (1 + zeta): residual ~ 0.5 zeta / |b| = 0.45 zeta (rounding ~1e-16)
    EXPECT_GT(res.residual, 0.1 * zeta) << zeta;
    EXPECT_LT(res.residual, 2.0 * zeta + 1e-15) << zeta;
  }
}

// on a coupled random problem both sweeps and both r rules reach the tolerance and agree
TEST(SolverProxTest, RandomCoupledProblem) {
  const int nc = 6, n = 3 * nc, nb = 2;
  std::vector<double> J(n * 6 * nb), A(n * n, 0.0), b(n), lo(n, 0.0), hi(n, 0.0);
  unsigned s = 12345;
  auto rnd = [&]() {
    s = s * 1103515245u + 12345u;
    return ((s >> 8) & 0xFFFF) / 65535.0 - 0.5;
  };
  for (double& v : J) v = rnd();
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < 6 * nb; k++) A[i * n + j] += J[i * 6 * nb + k] * J[j * 6 * nb + k];
    }
    A[i * n + i] += 0.05;  // keep it well posed
    b[i] = rnd() - (i % 3 == 0 ? 0.3 : 0.0);
  }
  std::vector<int> type(nc, TB_BLOCK_CONTACT), adr(nc), dim(nc, 3);
  std::vector<double> mu(nc, 0.4), angle(nc, 0.0);
  for (int c = 0; c < nc; c++) adr[c] = 3 * c;
  tbProblem p = {n,           nc,         A.data(),   b.data(),  lo.data(),    hi.data(),
                 type.data(), adr.data(), dim.data(), mu.data(), angle.data(), 0,
                 8,           0,          nullptr};
  std::vector<double> ref;
  for (int rule : {TB_PROXR_BLOCK, TB_PROXR_FORG}) {
    for (int jacobi = 0; jacobi < 2; jacobi++) {
      tbSolverOpt o = tb_defaultSolverOpt();
      o.prox_rule = rule;
      o.tol = 1e-10;
      o.max_iter = 100000;
      std::vector<double> x(n, 0.0), u(n);
      tbSolveResult res = Prox(p, o, x, jacobi);
      ASSERT_TRUE(res.converged) << "rule " << rule << " jacobi " << jacobi << " " << res.residual;
      tb_problemVelocity(&p, x.data(), u.data());
      if (ref.empty()) ref = u;
      // A is positive definite: the solution is unique; velocities agree to the tolerance
      for (int i = 0; i < n; i++) EXPECT_NEAR(u[i], ref[i], 1e-7);
    }
  }
}

}  // namespace

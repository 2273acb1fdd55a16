// Levenberg-Marquardt solvers (host/solver/solver_lm.h): Todorov's implicit MNCP with RLM, PLM and
// the dogleg, and the pyramid MLCP with Fischer-Burmeister and RLM / PLM, on the M&J sphere step
// (shared/notes/seed-lm-ncp.md §5 B5), the maps' invariants and Jacobians (B6, B7), and random
// well-posed problems checked against the project's PGS.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "math/dense.h"

#include "solver/solver.h"
#include "solver/residual.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

namespace {

const int kLmSolvers[] = {TB_SOLVER_MNCP_RLM, TB_SOLVER_MNCP_PLM, TB_SOLVER_NCP_DOGLEG,
                          TB_SOLVER_SOC_FB_PLM};
const int kFbSolvers[] = {TB_SOLVER_MLCP_FB_RLM, TB_SOLVER_MLCP_FB_PLM};

// a problem with its storage: neq equality box rows first, then nc contacts of 3 rows
struct Prob {
  int n = 0;
  std::vector<double> A, b, lo, hi, mu, angle;
  std::vector<int> type, adr, dim;
  int ncontact = 0;
  tbProblem p{};
  void addBox() {
    type.push_back(TB_BLOCK_BOX);
    adr.push_back(n);
    dim.push_back(1);
    mu.push_back(0.0);
    angle.push_back(0.0);
    n += 1;
  }
  void addContact(double m, int d = 3) {
    type.push_back(TB_BLOCK_CONTACT);
    adr.push_back(n);
    dim.push_back(d);
    mu.push_back(m);
    angle.push_back(0.0);
    n += d;
    ncontact++;
  }
  // call after A and b are filled; cone 0 exact, 1 pyramid with `facets`
  void finish(int cone, int facets) {
    lo.assign(n, -INFINITY);
    hi.assign(n, INFINITY);
    p = {n,          (int)type.size(), A.data(),  b.data(),     lo.data(), hi.data(), type.data(),
         adr.data(), dim.data(),       mu.data(), angle.data(), cone,      facets,    0,
         nullptr};
  }
};

struct Outcome {
  tbSolveResult res;
  std::vector<double> x, u;
};

Outcome Solve(int solver, const tbProblem& p, const tbSolverOpt& opt, int ncontact,
              std::vector<double> x0 = {}) {
  Outcome o;
  o.x = x0.empty() ? std::vector<double>(p.n, 0.0) : x0;
  tbSolverWork* w = tb_newSolverWork(solver, p.n, ncontact, p.facets);
  EXPECT_NE(w, nullptr);
  EXPECT_EQ(tb_solve(solver, &p, &opt, o.x.data(), w, &o.res), TB_OK) << tb_lastError();
  tb_freeSolverWork(w);
  o.u.resize(p.n);
  tb_problemVelocity(&p, o.x.data(), o.u.data());
  return o;
}

// the sphere's first step (B5): A = diag(3.5, 3.5, 1) in M&J's (f, o, n) order is diag(1, 3.5,
// 3.5) in ours, b = (-0.00981, 2, 0), mu = 0.2: sliding, x = (0.00981, -0.001962, 0)
Prob Sphere(int cone) {
  Prob s;
  s.addContact(0.2);
  s.A = {1, 0, 0, 0, 3.5, 0, 0, 0, 3.5};
  s.b = {-0.00981, 2.0, 0.0};
  s.finish(cone, 4);
  return s;
}

TEST(SolverLmTest, SphereFirstStep) {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = 1e-12;
  opt.max_iter = 100;
  // x is exact up to the residual times ||b|| (2) over A's smallest eigenvalue (1)
  const double kX = 4e-12;
  // from x = 0 the MNCP warm start z = u - x = b already maps onto the answer (A_nn = 1 and
  // a sliding direction that the step does not turn), so also start from two wrong guesses:
  // sticking with the wrong sign, and separated
  const std::vector<std::vector<double>> starts = {
      {0.0, 0.0, 0.0}, {0.05, 0.004, -0.003}, {0.0, 0.5, 0.5}};
  Prob s = Sphere(0), sp = Sphere(1);
  for (int solver : {TB_SOLVER_MNCP_RLM, TB_SOLVER_MNCP_PLM, TB_SOLVER_NCP_DOGLEG,
                     TB_SOLVER_MLCP_FB_RLM, TB_SOLVER_MLCP_FB_PLM, TB_SOLVER_SOC_FB_PLM}) {
    // the pyramid with facets +t, +o, -t, -o holds the same answer
    bool pyramid = solver == TB_SOLVER_MLCP_FB_RLM || solver == TB_SOLVER_MLCP_FB_PLM;
    const Prob& pr = pyramid ? sp : s;
    for (size_t k = 0; k < starts.size(); k++) {
      Outcome o = Solve(solver, pr.p, opt, 1, starts[k]);
      std::printf("  sphere %-12s start %zu: it %d residual %.2e\n", tb_solverName(solver), k,
                  o.res.iterations, o.res.residual);
      EXPECT_TRUE(o.res.converged) << tb_solverName(solver) << " start " << k;
      EXPECT_EQ(o.res.reason, TB_STOP_CONVERGED);
      EXPECT_LT(o.res.residual, 1e-12);
      EXPECT_NEAR(o.x[0], 0.00981, kX) << tb_solverName(solver) << " start " << k;
      EXPECT_NEAR(o.x[1], -0.001962, kX) << tb_solverName(solver) << " start " << k;
      EXPECT_NEAR(o.x[2], 0.0, kX) << tb_solverName(solver) << " start " << k;
      // post-step slip (B5: v+ = 1.993133 along t), no normal velocity
      EXPECT_NEAR(o.u[1], 2.0 - 3.5 * 0.001962, kX * 3.5);
      EXPECT_NEAR(o.u[0], 0.0, kX);
    }
  }
}

// B6: Todorov's maps for random z and mu, and the block Jacobian against central differences
TEST(SolverLmTest, TodorovMapInvariantsAndJacobian) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-2, 2), Umu(0.05, 2.0);
  int nfd = 0;
  for (int trial = 0; trial < 4000; trial++) {
    int dim = 1 + trial % 3;
    double mu = Umu(rng), z[3] = {U(rng), U(rng), U(rng)}, F[3], dF[9];
    if (trial % 7 == 0) z[0] = 0.0;  // the tie and the z_t = 0 corner appear too
    if (trial % 11 == 0) z[1] = z[2] = 0.0;
    tb_lmTestTodorov(z, dim, mu, F, dF);
    double v[3], ft = 0.0, zt = 0.0;
    for (int k = 0; k < dim; k++) v[k] = F[k] + z[k];  // v = F + z
    // normal: F_n >= 0, v_n >= 0, F_n v_n = 0 (exactly: one of them is 0.0)
    EXPECT_GE(F[0], 0.0);
    EXPECT_GE(v[0], 0.0);
    EXPECT_EQ(F[0] * v[0], 0.0);
    for (int k = 1; k < dim; k++) {
      ft += F[k] * F[k];
      zt += z[k] * z[k];
    }
    ft = std::sqrt(ft);
    zt = std::sqrt(zt);
    // friction in the cone; on its boundary when sliding (|z_t| > mu F_n)
    EXPECT_LE(ft, mu * F[0] * (1 + 1e-15) + 1e-300);
    if (zt > mu * F[0] && dim > 1) {
      EXPECT_NEAR(ft, mu * F[0], 1e-14);
    }
    // v_t = (1 - s) z_t anti-parallel to F_t = -s z_t: <v_t, F_t> <= 0, cross product zero
    double vf = 0.0;
    for (int k = 1; k < dim; k++) vf += v[k] * F[k];
    EXPECT_LE(vf, 1e-15);
    if (dim == 3) {
      EXPECT_NEAR(v[1] * F[2] - v[2] * F[1], 0.0, 1e-14);
    }
    // Jacobian vs central differences away from the kinks (z_n = 0, |z_t| = mu F_n); with
    // h = 1e-6 the truncation error is O(h^2 / kink distance) <= 1e-9 and the round-off
    // 1e-16 / h = 1e-10, so 1e-7 separates a wrong entry (O(1e-2) or more) from noise
    double fn = z[0] < 0 ? -z[0] : 0.0;
    if (std::fabs(z[0]) < 1e-2 || (dim > 1 && (std::fabs(zt - mu * fn) < 1e-2 || zt < 1e-2))) {
      continue;
    }
    nfd++;
    const double h = 1e-6;
    for (int c = 0; c < dim; c++) {
      double zp[3] = {z[0], z[1], z[2]}, zm[3] = {z[0], z[1], z[2]}, Fp[3], Fm[3];
      zp[c] += h;
      zm[c] -= h;
      tb_lmTestTodorov(zp, dim, mu, Fp, nullptr);
      tb_lmTestTodorov(zm, dim, mu, Fm, nullptr);
      for (int r = 0; r < dim; r++) {
        EXPECT_NEAR(dF[r * dim + c], (Fp[r] - Fm[r]) / (2 * h), 1e-7)
            << "dim " << dim << " entry " << r << "," << c << " z " << z[0] << " " << z[1] << " "
            << z[2] << " mu " << mu;
      }
    }
  }
  EXPECT_GT(nfd, 1000);  // the finite-difference check really ran on many points
  // the stick branch's tangent block is -I (the seed prints 0 for dF_o/dz_o)
  double z[3] = {-1.0, 0.1, 0.2}, F[3], dF[9];
  tb_lmTestTodorov(z, 3, 1.0, F, dF);
  EXPECT_EQ(dF[4], -1.0);
  EXPECT_EQ(dF[8], -1.0);
  EXPECT_EQ(dF[5], 0.0);
}

// random problem: W = J M^-1 J^T of nc contacts over nbody bodies (each contact touches one or
// two bodies), neq equality rows, b = J v for a random velocity v (so b lies in W's range and
// the problem has a solution also when W is singular)
Prob Random(std::mt19937_64& rng, int nc, int nbody, int neq, double mu, int cone, int facets) {
  std::uniform_real_distribution<double> U(-1, 1);
  Prob q;
  for (int e = 0; e < neq; e++) q.addBox();
  for (int c = 0; c < nc; c++) q.addContact(mu);
  int n = q.n, nd = 6 * nbody;
  std::vector<double> J((size_t)n * nd, 0.0), Minv((size_t)nd * nd, 0.0), v(nd);
  for (int k = 0; k < (int)q.type.size(); k++) {
    int b0 = (int)(rng() % nbody), b1 = (int)(rng() % (nbody + 1)) - 1;  // -1: the world
    for (int r = q.adr[k]; r < q.adr[k] + q.dim[k]; r++) {
      for (int j = 0; j < 6; j++) {
        J[(size_t)r * nd + 6 * b0 + j] += U(rng);
        if (b1 >= 0 && b1 != b0) J[(size_t)r * nd + 6 * b1 + j] += U(rng);
      }
    }
  }
  // block-diagonal SPD inverse mass: L L^T + 0.1 I per body
  for (int b = 0; b < nbody; b++) {
    double L[36];
    for (double& l : L) l = U(rng);
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 6; j++) {
        double s = i == j ? 0.1 : 0.0;
        for (int k = 0; k < 6; k++) s += L[i * 6 + k] * L[j * 6 + k];
        Minv[(size_t)(6 * b + i) * nd + 6 * b + j] = s;
      }
    }
  }
  for (double& x : v) x = U(rng);
  q.A.assign((size_t)n * n, 0.0);
  q.b.assign(n, 0.0);
  std::vector<double> MJ((size_t)nd * n, 0.0);  // M^-1 J^T
  for (int a = 0; a < nd; a++) {
    for (int r = 0; r < n; r++) {
      double s = 0.0;
      for (int k = 0; k < nd; k++) s += Minv[(size_t)a * nd + k] * J[(size_t)r * nd + k];
      MJ[(size_t)a * n + r] = s;
    }
  }
  for (int r = 0; r < n; r++) {
    for (int c = 0; c < n; c++) {
      double s = 0.0;
      for (int k = 0; k < nd; k++) s += J[(size_t)r * nd + k] * MJ[(size_t)k * n + c];
      q.A[(size_t)r * n + c] = s;
    }
    double s = 0.0;
    for (int k = 0; k < nd; k++) s += J[(size_t)r * nd + k] * v[k];
    q.b[r] = s;
  }
  // pressing normals so that most contacts are active; only where J has full row rank (any b
  // is J v then), so that a singular W keeps b in its range
  for (int k = 0; n <= nd && k < (int)q.type.size(); k++) {
    if (q.type[k] == TB_BLOCK_CONTACT) q.b[q.adr[k]] -= 0.5;
  }
  q.finish(cone, facets);
  return q;
}

// equation `kind`'s Jacobian at y (tb_lmTestEval) against central differences of its phi, h =
// 1e-6, entry by entry within tol
void ExpectJacobianOfDifferences(int kind, const tbProblem& p, const std::vector<double>& y,
                                 tbSolverWork* w, double tol) {
  int m = (int)y.size();
  std::vector<double> J((size_t)m * m), phi(m), pp(m), pm(m);
  tb_lmTestEval(kind, &p, y.data(), phi.data(), J.data(), w);
  const double h = 1e-6;
  for (int c = 0; c < m; c++) {
    std::vector<double> yp = y, ym = y;
    yp[c] += h;
    ym[c] -= h;
    tb_lmTestEval(kind, &p, yp.data(), pp.data(), nullptr, w);
    tb_lmTestEval(kind, &p, ym.data(), pm.data(), nullptr, w);
    for (int r = 0; r < m; r++) {
      ASSERT_NEAR(J[(size_t)r * m + c], (pp[r] - pm[r]) / (2 * h), tol)
          << "kind " << kind << " entry " << r << "," << c;
    }
  }
}

// the whole MNCP and FB Jacobians (the composition with A, box rows, FB rows) against central
// differences of phi at random points away from the kinks; the DFK row at a degenerate FB row
TEST(SolverLmTest, JacobiansAgainstFiniteDifferences) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int cone : {0, 1}) {
    Prob q = Random(rng, 3, 6, 2, 0.7, cone, 6);
    int solver = cone == 0 ? TB_SOLVER_MNCP_RLM : TB_SOLVER_MLCP_FB_RLM;
    int nfree, m = cone == 0 ? q.n : tb_lcpSize(&q.p, &nfree);
    tbSolverWork* w = tb_newSolverWork(solver, q.n, q.ncontact, q.p.facets);
    std::vector<double> y(m);
    int npoint = 0;
    for (int trial = 0; trial < 50; trial++) {
      for (double& v : y) v = U(rng);
      // keep away from the kinks (MNCP: z_n = 0, |z_t| = mu F_n; FB: z_i = w_i = 0)
      bool nearKink = false;
      for (int k = 0; cone == 0 && k < (int)q.type.size(); k++) {
        if (q.type[k] != TB_BLOCK_CONTACT) continue;
        int i = q.adr[k];
        double fn = y[i] < 0 ? -y[i] : 0.0, zt = std::hypot(y[i + 1], y[i + 2]);
        nearKink = nearKink || std::fabs(y[i]) < 0.05 || std::fabs(zt - q.mu[k] * fn) < 0.05;
      }
      if (nearKink) continue;
      npoint++;
      // h = 1e-6: truncation O(h^2 |phi''|) with phi'' ~ 1/kink distance (>= 0.05): 1e-10;
      // round-off ~ 1e-16 |phi| / h ~ 1e-9; a wrong entry is O(|A|) ~ 0.1 or more
      ExpectJacobianOfDifferences(cone, q.p, y, w, 1e-7);
      if (HasFatalFailure()) return;
    }
    EXPECT_GT(npoint, 5);
    tb_freeSolverWork(w);
  }
  // DFK: the sphere's pyramid LCP at z = 0 has its sigma row degenerate (z = 0, w = q = 0); the
  // row must be the limit of the Jacobian along e_sigma from the non-degenerate side
  Prob sp = Sphere(1);
  int nfree, m = tb_lcpSize(&sp.p, &nfree);
  ASSERT_EQ(m, 6);  // p_n, beta_1..4, sigma
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_MLCP_FB_RLM, sp.n, 1, 4);
  std::vector<double> y(m, 0.0), J((size_t)m * m), Jt((size_t)m * m), phi(m);
  tb_lmTestEval(1, &sp.p, y.data(), phi.data(), J.data(), w);
  EXPECT_EQ(phi[5], 0.0);
  y[5] = 1e-9;
  tb_lmTestEval(1, &sp.p, y.data(), phi.data(), Jt.data(), w);
  for (int c = 0; c < m; c++) {
    // the limit is approached to O(1e-9) (the other rows of w move by 1e-9 too)
    EXPECT_NEAR(J[5 * m + c], Jt[5 * m + c], 1e-8) << c;
  }
  // and the row is not M&J's simplified one (zero off the diagonal): sigma couples to p_n
  EXPECT_NE(J[5 * m + 0], 0.0);
  tb_freeSolverWork(w);
}

// the second-order cone's FB (cone.h): zero exactly on complementary pairs of the Lorentz cone
// (x, y in K with x . y = 0: both on the boundary along opposite rays, or one of them zero),
// nonzero off them; its derivatives against central differences at random points (where x^2 +
// y^2 lies inside K, the smoothing is off)
TEST(SolverLmTest, SocFischerBurmeister) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int trial = 0; trial < 200; trial++) {
    double a = std::fabs(U(rng)) + 0.01, b = std::fabs(U(rng)) + 0.01, th = 3.2 * U(rng);
    double c = std::cos(th), sn = std::sin(th), phi[3];
    // x on K's boundary along (1, e), y along (1, -e): x . y = a b (1 - 1) = 0
    double x[3] = {a, a * c, a * sn}, y[3] = {b, -b * c, -b * sn}, zero[3] = {0, 0, 0};
    tbu_socFB(x, y, 3, phi, nullptr, nullptr);
    for (double v : phi) EXPECT_NEAR(v, 0.0, 1e-14);
    double inside[3] = {a + 0.5, a * c, a * sn};  // x inside K, y = 0
    tbu_socFB(inside, zero, 3, phi, nullptr, nullptr);
    for (double v : phi) EXPECT_NEAR(v, 0.0, 1e-14);
    tbu_socFB(zero, inside, 3, phi, nullptr, nullptr);
    for (double v : phi) EXPECT_NEAR(v, 0.0, 1e-14);
    // both inside K (x . y > 0) and x outside K: not complementary
    tbu_socFB(inside, inside, 3, phi, nullptr, nullptr);
    EXPECT_GT(std::fabs(phi[0]) + std::fabs(phi[1]) + std::fabs(phi[2]), 0.1);
    double outside[3] = {-a, a * c, a * sn};
    tbu_socFB(outside, zero, 3, phi, nullptr, nullptr);
    EXPECT_GT(std::fabs(phi[0]) + std::fabs(phi[1]) + std::fabs(phi[2]), 0.01);
  }
  for (int d = 1; d <= 3; d++) {
    for (int trial = 0; trial < 50; trial++) {
      double x[3], y[3], phi[3], Dx[9], Dy[9], pp[3], pm[3];
      for (int i = 0; i < d; i++) {
        x[i] = U(rng);
        y[i] = U(rng);
      }
      tbu_socFB(x, y, d, phi, Dx, Dy);
      const double h = 1e-6;
      for (int side = 0; side < 2; side++) {
        for (int c = 0; c < d; c++) {
          double xp[3], xm[3], yp[3], ym[3];
          for (int i = 0; i < d; i++) {
            xp[i] = xm[i] = x[i];
            yp[i] = ym[i] = y[i];
          }
          (side ? yp : xp)[c] += h;
          (side ? ym : xm)[c] -= h;
          tbu_socFB(xp, yp, d, pp, nullptr, nullptr);
          tbu_socFB(xm, ym, d, pm, nullptr, nullptr);
          for (int r = 0; r < d; r++) {
            ASSERT_NEAR((side ? Dy : Dx)[r * d + c], (pp[r] - pm[r]) / (2 * h), 1e-6)
                << "d " << d << " side " << side << " entry " << r << "," << c;
          }
        }
      }
    }
  }
}

// the SOC-FB equation's whole Jacobian (the contacts' scaled cone pairs, the De Saxce term,
// the equality box rows' mid map) against central differences at random impulses away from the
// De Saxce kink u_t = 0
TEST(SolverLmTest, SocFbJacobianAgainstFiniteDifferences) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> U(-1, 1);
  Prob q = Random(rng, 3, 6, 2, 0.7, 0, 6);
  int n = q.n;
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_SOC_FB_PLM, n, q.ncontact, q.p.facets);
  std::vector<double> y(n), u(n);
  int npoint = 0;
  for (int trial = 0; trial < 50; trial++) {
    for (double& v : y) v = U(rng);
    tb_problemVelocity(&q.p, y.data(), u.data());
    bool nearKink = false;
    for (int k = 0; k < (int)q.type.size(); k++) {
      int i = q.adr[k];
      if (q.type[k] == TB_BLOCK_CONTACT) nearKink |= std::hypot(u[i + 1], u[i + 2]) < 0.05;
    }
    if (nearKink) continue;
    npoint++;
    ExpectJacobianOfDifferences(TB_LM_SOC_FB, q.p, y, w, 1e-6);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(npoint, 5);
  tb_freeSolverWork(w);
}

// the Newton tests' settings: tol 1e-10 and 200 iterations. Velocities of two answers with
// residual <= 1e-10 (relative to |b| ~ 1-5) differ by about the residual times the conditioning
// of the problem; kVel = 1e-7 leaves three decades of margin
const double kTol = 1e-10, kVel = 1e-7;
tbSolverOpt NewtonOpt() {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = kTol;
  opt.max_iter = 200;
  return opt;
}

double MaxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); i++) m = std::fmax(m, std::fabs(a[i] - b[i]));
  return m;
}

// random well-posed problems: each LM solver reaches tol or says it did not; converged answers
// have a re-computed residual <= tol and the same post-step velocities as PGS
// a servo's force limit (a box row bounded on both sides) and a joint limit (bounded below) in
// the MNCP: x = mid(lo, hi, y), Phi = u - x + y outside the bounds; its Jacobian against central
// differences away from the kinks (the bounds and the contacts' own), then the solves on random
// problems with such rows: mncp-plm (auto's Newton stage) meets 1e-8 on every one, the seed's RLM
// and the dogleg on most (RLM stalls on some as on RandomProblemsAgreeWithPgs' problems), each
// answer within the bounds and at PGS's velocities (W is nonsingular)
TEST(SolverLmTest, BoundedBoxRows) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> U(-1, 1);
  auto bound = [](Prob& q) {
    q.lo[0] = -0.2;
    q.hi[0] = 0.3;
    q.lo[1] = 0.0;
  };
  Prob q = Random(rng, 3, 6, 2, 0.7, 0, 6);
  bound(q);
  ASSERT_TRUE(tb_solverApplies(TB_SOLVER_MNCP_PLM, &q.p));
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_MNCP_RLM, q.n, q.ncontact, q.p.facets);
  std::vector<double> y(q.n), J((size_t)q.n * q.n), phi(q.n), pp(q.n), pm(q.n);
  int npoint = 0, nclamped = 0;
  for (int trial = 0; trial < 80; trial++) {
    for (double& v : y) v = U(rng);
    bool nearKink = std::fabs(y[0] - q.lo[0]) < 0.05 || std::fabs(y[0] - q.hi[0]) < 0.05 ||
                    std::fabs(y[1]) < 0.05;
    for (int k = 2; k < (int)q.type.size(); k++) {
      int i = q.adr[k];
      double fn = y[i] < 0 ? -y[i] : 0.0, zt = std::hypot(y[i + 1], y[i + 2]);
      nearKink = nearKink || std::fabs(y[i]) < 0.05 || std::fabs(zt - q.mu[k] * fn) < 0.05;
    }
    if (nearKink) continue;
    npoint++;
    nclamped += y[0] < q.lo[0] || y[0] > q.hi[0] || y[1] < 0.0;
    tb_lmTestEval(0, &q.p, y.data(), phi.data(), J.data(), w);
    const double h = 1e-6;  // as JacobiansAgainstFiniteDifferences
    for (int c = 0; c < q.n; c++) {
      std::vector<double> yp = y, ym = y;
      yp[c] += h;
      ym[c] -= h;
      tb_lmTestEval(0, &q.p, yp.data(), pp.data(), nullptr, w);
      tb_lmTestEval(0, &q.p, ym.data(), pm.data(), nullptr, w);
      for (int r = 0; r < q.n; r++) {
        ASSERT_NEAR(J[(size_t)r * q.n + c], (pp[r] - pm[r]) / (2 * h), 1e-7)
            << "entry " << r << "," << c;
      }
    }
  }
  EXPECT_GT(npoint, 5);
  EXPECT_GT(nclamped, 2);  // points with a row at its bound were checked too
  tb_freeSolverWork(w);

  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = 1e-8;
  opt.max_iter = 200;
  tbSolverOpt pgs = opt;
  pgs.max_iter = 100000;
  int nbound = 0, nconv[TB_NSOLVER] = {0};
  for (int rep = 0; rep < 12; rep++) {
    Prob r = Random(rng, 1 + rep % 4, 6, 2, 0.5, 0, 6);
    bound(r);
    Outcome ref = Solve(TB_SOLVER_PGS, r.p, pgs, r.ncontact);
    ASSERT_TRUE(ref.res.converged) << rep;
    for (int solver : kLmSolvers) {
      Outcome o = Solve(solver, r.p, opt, r.ncontact);
      if (!o.res.converged) continue;
      nconv[solver]++;
      EXPECT_LE(o.x[0], r.hi[0]);
      EXPECT_GE(o.x[0], r.lo[0]);
      EXPECT_GE(o.x[1], 0.0);
      EXPECT_LT(MaxDiff(o.u, ref.u), 1e-6) << tb_solverName(solver) << " rep " << rep;
    }
    nbound += ref.x[0] == r.lo[0] || ref.x[0] == r.hi[0];
  }
  EXPECT_EQ(nconv[TB_SOLVER_MNCP_PLM], 12);
  EXPECT_GE(nconv[TB_SOLVER_MNCP_RLM], 10);
  EXPECT_GE(nconv[TB_SOLVER_NCP_DOGLEG], 10);
  EXPECT_GT(nbound, 0);  // the servo's limit held in some of them
}

TEST(SolverLmTest, RandomProblemsAgreeWithPgs) {
  tbSolverOpt opt = NewtonOpt();
  tbSolverOpt pgs = opt;
  pgs.max_iter = 200000;
  std::mt19937_64 rng(2024);
  int ncase = 0, nconv = 0, ncompared = 0, ndiffer = 0;
  long it_sum[TB_NSOLVER] = {0}, it_n[TB_NSOLVER] = {0}, it_max[TB_NSOLVER] = {0};
  for (int nc : {1, 3, 8}) {
    for (double mu : {0.1, 0.5, 1.0}) {
      for (int rep = 0; rep < 4; rep++) {
        int neq = rep == 3 ? 2 : 0;
        // rep 2 with 8 contacts: 2 bodies only, 24 rows on 12 DoFs, W singular
        int nbody = (rep == 2 && nc == 8) ? 2 : 6;
        for (int cone : {0, 1}) {
          std::mt19937_64 r2(rng());
          Prob q = Random(r2, nc, nbody, neq, mu, cone, 8);
          Outcome ref = Solve(TB_SOLVER_PGS, q.p, pgs, q.ncontact);
          std::vector<int> solvers;
          if (cone == 0) solvers.assign(std::begin(kLmSolvers), std::end(kLmSolvers));
          if (cone == 1) solvers.assign(std::begin(kFbSolvers), std::end(kFbSolvers));
          for (int solver : solvers) {
            ASSERT_TRUE(tb_solverApplies(solver, &q.p));
            ncase++;
            Outcome o = Solve(solver, q.p, opt, q.ncontact);
            std::vector<double> work(q.n);
            double r = tb_residual(&q.p, o.x.data(), work.data());
            EXPECT_EQ(o.res.residual, r);
            EXPECT_EQ(o.res.converged, r <= kTol);
            if (!o.res.converged) {
              EXPECT_NE(o.res.reason, TB_STOP_CONVERGED);
              std::printf("  not converged: %s nc %d mu %.1f rep %d: reason %d residual %.2e\n",
                          tb_solverName(solver), nc, mu, rep, o.res.reason, r);
              continue;
            }
            nconv++;
            it_sum[solver] += o.res.iterations;
            it_n[solver]++;
            if (o.res.iterations > it_max[solver]) it_max[solver] = o.res.iterations;
            EXPECT_LE(r, kTol);
            if (!ref.res.converged) continue;
            double du = MaxDiff(o.u, ref.u);
            if (nbody * 6 < q.n) {
              // W singular: with friction the post-step velocities need not be unique either
              // (two answers, each with residual <= tol, may differ); count, do not assert
              if (du >= kVel) {
                ndiffer++;
                std::printf("  singular W, %s nc %d mu %.1f: |u - u_pgs| %.2e, both solve it\n",
                            tb_solverName(solver), nc, mu, du);
              }
              continue;
            }
            ncompared++;
            EXPECT_LT(du, kVel) << tb_solverName(solver) << " nc " << nc << " mu " << mu << " rep "
                                << rep;
          }
        }
      }
    }
  }
  for (int s = 0; s < TB_NSOLVER; s++) {
    if (it_n[s]) {
      std::printf("  %-12s converged %ld, iterations mean %.1f max %ld\n", tb_solverName(s),
                  it_n[s], (double)it_sum[s] / it_n[s], it_max[s]);
    }
  }
  std::printf("  %d solves, %d converged, %d compared with PGS, %d singular-W answers differ\n",
              ncase, nconv, ncompared, ndiffer);
  // the solvers are meant to converge on these problems; most of them must
  EXPECT_GE(nconv, ncase * 9 / 10);
  EXPECT_GE(ncompared, ncase * 3 / 4);
}

// tbu_lu / tbu_luSolve (dense.h; auto's Newton direction): solves that need row exchanges to
// round-off, and reports a matrix with two equal rows as singular
TEST(SolverLmTest, LuFactorsAndSolves) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int n : {1, 2, 5, 12, 40}) {
    std::vector<double> A(n * n), LU, b(n), x;
    std::vector<int> piv(n);
    for (double& a : A) a = U(rng);
    A[0] = 0.0;  // the first pivot must come from another row
    for (double& v : b) v = U(rng);
    LU = A;
    x = b;
    if (n == 1) {
      EXPECT_EQ(tbu_lu(n, LU.data(), piv.data()), -1);  // [0]
      continue;
    }
    ASSERT_EQ(tbu_lu(n, LU.data(), piv.data()), 0) << n;
    tbu_luSolve(n, LU.data(), piv.data(), x.data());
    double err = 0.0;
    for (int i = 0; i < n; i++) {
      double s = -b[i];
      for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
      err = std::fmax(err, std::fabs(s));
    }
    // a random matrix of this size has cond ~ 1e1-1e3: the residual is at round-off
    EXPECT_LT(err, 1e-12) << n;
    // two equal rows: the last pivot is exactly zero
    for (int j = 0; j < n; j++) A[(n - 1) * n + j] = A[j];
    LU = A;
    EXPECT_EQ(tbu_lu(n, LU.data(), piv.data()), -1) << n;
  }
}

// auto's Newton stage (projected LM with the LU direction, Cholesky where J is near singular)
// against the seed's projected LM (QR) on the random problems: both converge, honestly, to the
// same velocities where W is regular; on singular W (rep 2, 8 contacts on 2 bodies) it must
// still converge
TEST(SolverLmTest, LuDirectionAgreesWithSeedPlm) {
  tbSolverOpt opt = NewtonOpt();
  std::mt19937_64 rng(2024);
  int ncase = 0, nconv = 0, nconv_seed = 0;
  for (int nc : {1, 3, 8}) {
    for (double mu : {0.1, 0.5, 1.0}) {
      for (int rep = 0; rep < 4; rep++) {
        int neq = rep == 3 ? 2 : 0, nbody = (rep == 2 && nc == 8) ? 2 : 6;
        for (int cone : {0, 1}) {
          std::mt19937_64 r2(rng());
          Prob q = Random(r2, nc, nbody, neq, mu, cone, 8);
          int solver = cone == 0 ? TB_SOLVER_MNCP_PLM : TB_SOLVER_MLCP_FB_PLM;
          tbSolverWork* w = tb_newSolverWork(solver, q.n, q.ncontact, q.p.facets);
          ASSERT_NE(w, nullptr);
          std::vector<double> xs[2];
          tbSolveResult res[2];
          for (int v = 0; v < 2; v++) {
            int kind = v ? TB_LM_PROJECTED_LU : TB_LM_PROJECTED;
            xs[v].assign(q.n, 0.0);
            if (cone == 0) {
              tb_solveMNCP(&q.p, &opt, xs[v].data(), w, &res[v], kind);
            } else {
              tb_solveMLCPFB(&q.p, &opt, xs[v].data(), w, &res[v], kind);
            }
            std::vector<double> work(q.n);
            double r = tb_residual(&q.p, xs[v].data(), work.data());
            EXPECT_EQ(res[v].residual, r);
            EXPECT_EQ(res[v].converged, r <= kTol);
          }
          tb_freeSolverWork(w);
          ncase++;
          nconv += res[1].converged;
          nconv_seed += res[0].converged;
          EXPECT_TRUE(res[1].converged || !res[0].converged)
              << "LU direction failed where QR converged: nc " << nc << " mu " << mu << " rep "
              << rep << " cone " << cone << " residual " << res[1].residual;
          if (!res[0].converged || !res[1].converged || nbody * 6 < q.n) continue;
          std::vector<double> u0(q.n), u1(q.n);
          tb_problemVelocity(&q.p, xs[0].data(), u0.data());
          tb_problemVelocity(&q.p, xs[1].data(), u1.data());
          EXPECT_LT(MaxDiff(u0, u1), kVel) << "nc " << nc << " mu " << mu << " rep " << rep;
        }
      }
    }
  }
  std::printf("  %d problems: LU direction converged %d, seed's QR %d\n", ncase, nconv, nconv_seed);
}

// A's rank bound (tbProblem.rank_max) tells the Newton stage that J is singular without an LU
// to refuse: where it says so, J at the answer is singular indeed (LU's smallest pivot at
// round-off), and the stage with the bound converges wherever the one without does, to the same
// velocities
TEST(SolverLmTest, RankBoundSingularityIsRealAndChangesNoAnswer) {
  tbSolverOpt opt = NewtonOpt();
  std::mt19937_64 rng(77);
  int ncase = 0, nsingular = 0;
  for (int nc : {2, 4, 8}) {
    for (int nbody : {1, 2}) {
      for (double mu : {0.5, 2.0}) {
        for (int rep = 0; rep < 3; rep++) {
          Prob q = Random(rng, nc, nbody, 0, mu, 0, 8);
          tbSolverWork* w = tb_newSolverWork(TB_SOLVER_MNCP_PLM, q.n, q.ncontact, q.p.facets);
          ASSERT_NE(w, nullptr);
          std::vector<double> xs[2], u[2];
          tbSolveResult res[2];
          for (int v = 0; v < 2; v++) {
            q.p.rank_max = v ? 6 * nbody : 0;
            xs[v].assign(q.n, 0.0);
            u[v].assign(q.n, 0.0);
            tb_solveMNCP(&q.p, &opt, xs[v].data(), w, &res[v], TB_LM_PROJECTED_LU);
            tb_problemVelocity(&q.p, xs[v].data(), u[v].data());
          }
          ncase++;
          EXPECT_TRUE(res[1].converged || !res[0].converged)
              << "nc " << nc << " nbody " << nbody << " mu " << mu << " rep " << rep;
          if (res[0].converged && res[1].converged) {
            EXPECT_LT(MaxDiff(u[0], u[1]), kVel);
          }
          // the MNCP point of the answer: y = u - x
          std::vector<double> y(q.n), phi(q.n), J((size_t)q.n * q.n);
          for (int i = 0; i < q.n; i++) y[i] = u[1][i] - xs[1][i];
          if (!tb_lmTestSurelySingular(&q.p, y.data())) {
            tb_freeSolverWork(w);
            continue;
          }
          nsingular++;
          tb_lmTestEval(TB_LM_MNCP, &q.p, y.data(), phi.data(), J.data(), w);
          tb_freeSolverWork(w);
          std::vector<int> piv(q.n);
          if (tbu_lu(q.n, J.data(), piv.data())) continue;  // an exact zero pivot
          double umin = INFINITY, umax = 0.0;
          for (int i = 0; i < q.n; i++) {
            umin = std::fmin(umin, std::fabs(J[(size_t)i * q.n + i]));
            umax = std::fmax(umax, std::fabs(J[(size_t)i * q.n + i]));
          }
          EXPECT_LT(umin, 1e-10 * umax) << "nc " << nc << " nbody " << nbody << " rep " << rep;
        }
      }
    }
  }
  std::printf("  %d problems, %d with J singular by the rank bound\n", ncase, nsingular);
  EXPECT_GE(nsingular, 4);
}

// warm start from an answer: no iteration is needed
TEST(SolverLmTest, WarmStartFromAnswer) {
  std::mt19937_64 rng(5);
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = 1e-10;
  for (int cone : {0, 1}) {
    Prob q = Random(rng, 3, 6, 0, 0.5, cone, 8);
    const int* list = cone == 0 ? kLmSolvers : kFbSolvers;
    int nlist = cone == 0 ? 3 : 2;
    for (int k = 0; k < nlist; k++) {
      Outcome a = Solve(list[k], q.p, opt, q.ncontact);
      ASSERT_TRUE(a.res.converged) << tb_solverName(list[k]);
      Outcome b = Solve(list[k], q.p, opt, q.ncontact, a.x);
      EXPECT_TRUE(b.res.converged);
      EXPECT_EQ(b.res.iterations, 0) << tb_solverName(list[k]);
    }
  }
}

// a problem LM cannot finish in 3 iterations is reported as such
TEST(SolverLmTest, HonestMaxIter) {
  std::mt19937_64 rng(7);
  Prob q = Random(rng, 8, 6, 0, 0.3, 0, 8);
  Prob qp = Random(rng, 8, 6, 0, 0.3, 1, 8);
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = 1e-14;
  opt.max_iter = 3;
  for (int solver : {TB_SOLVER_MNCP_RLM, TB_SOLVER_MNCP_PLM, TB_SOLVER_NCP_DOGLEG,
                     TB_SOLVER_MLCP_FB_RLM, TB_SOLVER_MLCP_FB_PLM}) {
    const Prob& pr = solver >= TB_SOLVER_MLCP_FB_RLM ? qp : q;
    Outcome o = Solve(solver, pr.p, opt, pr.ncontact);
    EXPECT_FALSE(o.res.converged) << tb_solverName(solver);
    EXPECT_EQ(o.res.reason, TB_STOP_MAXITER) << tb_solverName(solver);
    EXPECT_EQ(o.res.iterations, 3) << tb_solverName(solver);
    EXPECT_GT(o.res.residual, 1e-14);
    // and more iterations do finish it (so the cap, not the method, stopped it)
    tbSolverOpt more = opt;
    more.max_iter = 2000;
    more.tol = 1e-10;
    Outcome f = Solve(solver, pr.p, more, pr.ncontact);
    EXPECT_TRUE(f.res.converged) << tb_solverName(solver) << " reason " << f.res.reason;
    std::printf("  %-12s 3 iterations: residual %.2e; to 1e-10 in %d\n", tb_solverName(solver),
                o.res.residual, f.res.iterations);
  }
}

}  // namespace

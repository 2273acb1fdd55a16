// auto's active-set stage (host/solver/solver_active.h): one factorization where the warm start
// tells which contacts stick, the warm start untouched wherever the guess cannot be right.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "solver/solver.h"
#include "solver/solver_active.h"
#include "solver/residual.h"

namespace {

bool sameResult(const tbSolveResult& a, const tbSolveResult& b) {
  return a.converged == b.converged && a.iterations == b.iterations && a.reason == b.reason &&
         !std::memcmp(&a.residual, &b.residual, sizeof(double));
}

// a unit cube (half size a, mass m) resting on its four bottom corners after one step h of
// gravity: A = J M^-1 J^T of the 12 contact rows (rank 6: the corners are redundant) and b = J
// v_free with v_free = (0, 0, -g h); its sticking answer spreads m g h evenly at the least norm
struct RestingCube {
  static constexpr double a = 0.1, m = 2.0, g = 9.81, h = 0.01;
  int n = 12;
  std::vector<double> A, b, lo, hi, mu, angle;
  std::vector<int> type, adr, dim;
  tbProblem p{};

  explicit RestingCube(int cone)
      : A(144),
        b(12),
        lo(12, 0.0),
        hi(12, INFINITY),
        mu(4, 0.5),
        angle(4, 0.0),
        type(4, TB_BLOCK_CONTACT),
        adr(4),
        dim(4, 3) {
    double inertia = m * (2 * a) * (2 * a) / 6.0, J[12][6] = {};
    const double dir[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};  // normal, tangents
    for (int c = 0; c < 4; c++) {
      double r[3] = {c & 1 ? a : -a, c & 2 ? a : -a, -a};
      adr[c] = 3 * c;
      for (int k = 0; k < 3; k++) {
        const double* d = dir[k];
        double* row = J[3 * c + k];
        for (int i = 0; i < 3; i++) row[i] = d[i];
        row[3] = r[1] * d[2] - r[2] * d[1];
        row[4] = r[2] * d[0] - r[0] * d[2];
        row[5] = r[0] * d[1] - r[1] * d[0];
      }
    }
    for (int i = 0; i < n; i++) {
      b[i] = -g * h * J[i][2];
      for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int k = 0; k < 6; k++) s += J[i][k] * J[j][k] / (k < 3 ? m : inertia);
        A[i * n + j] = s;
      }
    }
    p.n = n;
    p.nblock = 4;
    p.A = A.data();
    p.b = b.data();
    p.lo = lo.data();
    p.hi = hi.data();
    p.blk_type = type.data();
    p.blk_adr = adr.data();
    p.blk_dim = dim.data();
    p.blk_mu = mu.data();
    p.blk_angle = angle.data();
    p.cone = cone;
    p.facets = 4;
    p.rank_max = 6;
  }

  // the active-set stage alone from x, as auto calls it (u = A x + b in the scratch's head),
  // by one thread or by an OpenMP team of `team` threads standing in for a warp
  int activeSet(std::vector<double>& x, tbSolveResult* res, int team = 1) {
    tbSolverWork* w = tb_newSolverWork(TB_SOLVER_AUTO, n, 4, 4);
    tb_residual(&p, x.data(), w->d);
    std::vector<int> done(team, -1);
    std::vector<tbSolveResult> mine(team, tbSolveResult{});
    int size = 0;
#pragma omp parallel num_threads(team)
    {
      tbTeam t = {omp_get_thread_num(), omp_get_num_threads()};
      done[t.lane] = tb_solveActiveSet(t, &p, &opt, opt.tol, x.data(), w, &mine[t.lane]);
      if (t.lane == 0) size = t.size;
    }
    *res = mine[0];
    for (int i = 1; i < team; i++) {  // every member gets the lead's outcome
      EXPECT_EQ(done[i], done[0]) << "member " << i;
      if (done[0]) {
        EXPECT_TRUE(sameResult(mine[i], *res)) << "member " << i;
      }
    }
    tb_freeSolverWork(w);
    EXPECT_EQ(size, team) << "no OpenMP team to stand in for a warp";
    return done[0];
  }

  tbSolverOpt opt = tb_defaultSolverOpt();
};

// a warm start off by 1% (and with a little friction) is solved by the sticking guess in at most
// TB_ACTIVE_REFINE + 1 solves, to the least-norm answer (within 1e-7: the factorization's
// shift of 1e-8 keeps round-off in A's null space from growing): m g h / 4 on each corner, no
// friction
TEST(ActiveSetTest, RestingCubeIsOneFactorization) {
  for (int cone = 0; cone < 2; cone++) {
    RestingCube cube(cone);
    double each = cube.m * cube.g * cube.h / 4.0;
    std::vector<double> x(12, 0.0);
    for (int c = 0; c < 4; c++) {
      x[3 * c] = each * (1.0 + 0.01 * c);
      x[3 * c + 1] = 0.02 * each;
    }
    tbSolveResult res{};
    ASSERT_EQ(cube.activeSet(x, &res), 1) << "cone " << cone;
    EXPECT_LE(res.residual, cube.opt.tol);
    EXPECT_LE(res.iterations, TB_ACTIVE_REFINE + 1);
    for (int c = 0; c < 4; c++) {
      EXPECT_NEAR(x[3 * c], each, 1e-7 * each);
      EXPECT_NEAR(x[3 * c + 1], 0.0, 1e-7 * each);
      EXPECT_NEAR(x[3 * c + 2], 0.0, 1e-7 * each);
    }
  }
}

// a team (a warp on the GPU) splits the matrix, its factorization and every A x + b: its answer
// and result are bitwise one thread's, on every member
TEST(ActiveSetTest, TeamIsBitwiseOneThread) {
  for (int cone = 0; cone < 2; cone++) {
    RestingCube cube(cone);
    double each = cube.m * cube.g * cube.h / 4.0;
    std::vector<double> start(12, 0.0);
    for (int c = 0; c < 4; c++) start[3 * c] = each * (1.0 + 0.01 * c);
    for (int team : {2, 3}) {
      std::vector<double> one = start, many = start;
      tbSolveResult r1{}, rt{};
      ASSERT_EQ(cube.activeSet(one, &r1), 1);
      ASSERT_EQ(cube.activeSet(many, &rt, team), 1) << "team " << team << " cone " << cone;
      EXPECT_EQ(std::memcmp(one.data(), many.data(), sizeof(double) * 12), 0) << team;
      EXPECT_TRUE(sameResult(r1, rt)) << team;
    }
  }
}

// from zero the approaching corners are new contacts (an impact may bounce or slide): no
// guess, the cold start goes to auto's iterative stages, which find the same answer
TEST(ActiveSetTest, NewContactsAreLeftToTheIterations) {
  RestingCube cube(0);
  std::vector<double> x(12, 0.0);
  tbSolveResult res{};
  EXPECT_EQ(cube.activeSet(x, &res), 0);
  EXPECT_EQ(x, std::vector<double>(12, 0.0));
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_AUTO, 12, 4, 4);
  ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &cube.p, &cube.opt, x.data(), w, &res), TB_OK);
  tb_freeSolverWork(w);
  EXPECT_TRUE(res.converged);
  double total = x[0] + x[3] + x[6] + x[9];
  EXPECT_NEAR(total, cube.m * cube.g * cube.h, 1e-7 * total);
}

// a contact whose friction is on the cone's edge slides: no guess, x untouched
TEST(ActiveSetTest, SlidingContactLeavesTheWarmStart) {
  RestingCube cube(0);
  std::vector<double> x(12, 0.01);
  x[1] = 0.5 * x[0];  // |x_t| = mu x_n at the first corner
  x[2] = 0.0;
  std::vector<double> before = x;
  tbSolveResult res{};
  EXPECT_EQ(cube.activeSet(x, &res), 0);
  EXPECT_EQ(x, before);
}

// a wrong guess (the cube lifted off: b_n > 0, so the sticking answer pulls) misses the
// tolerance and leaves x as it was; auto's iterative stages then find x = 0
TEST(ActiveSetTest, WrongGuessLeavesTheWarmStartAndAutoSolves) {
  RestingCube cube(0);
  for (double& bi : cube.b) bi = -bi;
  std::vector<double> x(12, 0.0);
  for (int c = 0; c < 4; c++) x[3 * c] = 0.005;
  std::vector<double> before = x;
  tbSolveResult res{};
  EXPECT_EQ(cube.activeSet(x, &res), 0);
  EXPECT_EQ(x, before);
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_AUTO, 12, 4, 4);
  ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &cube.p, &cube.opt, x.data(), w, &res), TB_OK);
  tb_freeSolverWork(w);
  EXPECT_TRUE(res.converged);
  for (double xi : x) EXPECT_NEAR(xi, 0.0, 1e-12);
}

// auto on a warm start that meets the tolerance by less than TB_AUTO_WARM_EXACT (a step's
// impulses off by the tolerance move a resting stack by as much): the active set's exact answer
// replaces it; a start within that margin is left as it is, no iteration, and so is the loose
// start at the tolerances from TB_AUTO_EXACT_TOL (the grasp study's, a choice of speed)
TEST(ActiveSetTest, AutoMakesALooselyPassingStartExact) {
  RestingCube cube(0);
  double each = cube.m * cube.g * cube.h / 4.0;
  std::vector<double> exact(12, 0.0);
  for (int c = 0; c < 4; c++) exact[3 * c] = each;
  tbSolveResult res{};
  ASSERT_EQ(cube.activeSet(exact, &res), 1);
  ASSERT_LE(res.residual, 1e-3 * TB_AUTO_WARM_EXACT * cube.opt.tol);
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_AUTO, 12, 4, 4);
  // the first corner's push off by a growing fraction until the start just passes
  std::vector<double> loose = exact;
  double r = 0.0;
  for (double off = 1e-12; off < 1e-6 && r <= 0.1 * cube.opt.tol; off *= 2.0) {
    loose[0] = exact[0] * (1.0 + off);
    r = tb_residual(&cube.p, loose.data(), w->d);
  }
  ASSERT_GT(r, TB_AUTO_WARM_EXACT * cube.opt.tol);
  ASSERT_LE(r, cube.opt.tol);
  const std::vector<double> start = loose;
  ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &cube.p, &cube.opt, loose.data(), w, &res), TB_OK);
  EXPECT_TRUE(res.converged);
  EXPECT_GE(res.iterations, 1);
  EXPECT_LE(res.residual, TB_AUTO_WARM_EXACT * cube.opt.tol);
  for (int i = 0; i < 12; i++) EXPECT_NEAR(loose[i], exact[i], 1e-9 * each) << i;
  std::vector<double> kept = exact;
  ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &cube.p, &cube.opt, kept.data(), w, &res), TB_OK);
  EXPECT_TRUE(res.converged);
  EXPECT_EQ(res.iterations, 0);
  EXPECT_EQ(std::memcmp(kept.data(), exact.data(), sizeof(double) * 12), 0);
  tbSolverOpt coarse = cube.opt;
  coarse.tol = TB_AUTO_EXACT_TOL;
  ASSERT_GT(r, TB_AUTO_WARM_EXACT * coarse.tol);
  std::vector<double> as_is = start;
  ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &cube.p, &coarse, as_is.data(), w, &res), TB_OK);
  tb_freeSolverWork(w);
  EXPECT_TRUE(res.converged);
  EXPECT_EQ(res.iterations, 0);
  EXPECT_EQ(res.residual, r);
  EXPECT_EQ(std::memcmp(as_is.data(), start.data(), sizeof(double) * 12), 0);
}

}  // namespace

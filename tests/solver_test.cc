// The solver registry (host/solver/solver.c) and the default solver (host/solver/solver_auto.h) on
// the shared external problem sets: FC3D from Siconos and FCLib, LCPs (tests/data).
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tumble/reader.h>

#include "math/dense.h"

#include "solver/solver.h"
#include "solver/residual.h"
#include "solver/solver_need.h"

namespace {

std::vector<std::string> Files(const char* sub) {
  std::vector<std::string> out;
#ifdef TUMBLE_DATA_DIR
  std::string dir = std::string(TUMBLE_DATA_DIR) + "/" + sub;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    }
    closedir(d);
  }
#endif
  std::sort(out.begin(), out.end());
  return out;
}

struct SolveRun {
  tbSolveResult res;
  std::vector<double> x;
  double recheck;  // tb_residual of x, computed here
};

SolveRun Solve(int solver, const tbProblem& p, int ncontact, int max_iter, double tol = 1e-8) {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.max_iter = max_iter;
  opt.tol = tol;
  tbSolverWork* w = tb_newSolverWork(solver, p.n, ncontact, p.facets);
  SolveRun r;
  r.x.assign(p.n, 0.0);
  EXPECT_EQ(tb_solve(solver, &p, &opt, r.x.data(), w, &r.res), TB_OK) << tb_lastError();
  std::vector<double> work(p.n + 1);
  r.recheck = tb_residual(&p, r.x.data(), work.data());
  tb_freeSolverWork(w);
  return r;
}

TEST(SolverTest, NamesAndApplicability) {
  for (int s = 0; s < TB_NSOLVER; s++) {
    EXPECT_EQ(tb_findSolver(tb_solverName(s)), s);
  }
  EXPECT_EQ(tb_findSolver("nope"), -1);
  // one exact-cone contact and a bounded servo row
  double A[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2}, b[4] = {-1, 1, 0, 0};
  double lo[4] = {-1, 0, 0, 0}, hi[4] = {1, 0, 0, 0}, mu[2] = {0, 0.5}, ang[2] = {0, 0};
  int type[2] = {TB_BLOCK_BOX, TB_BLOCK_CONTACT}, adr[2] = {0, 1}, dim[2] = {1, 3};
  tbProblem p = {4, 2, A, b, lo, hi, type, adr, dim, mu, ang, 0, 4, 0, nullptr};
  EXPECT_TRUE(tb_solverApplies(TB_SOLVER_PGS, &p));
  EXPECT_TRUE(tb_solverApplies(TB_SOLVER_AUTO, &p));
  EXPECT_TRUE(tb_solverApplies(TB_SOLVER_MNCP_RLM, &p));  // a bounded row: x = mid(lo, hi, y)
  EXPECT_FALSE(tb_solverApplies(TB_SOLVER_LEMKE, &p));    // the exact cone is no LCP
  p.cone = 1;
  EXPECT_FALSE(tb_solverApplies(TB_SOLVER_MLCP_FB_PLM, &p));  // a bounded row again
  lo[0] = 0.0;
  hi[0] = INFINITY;
  EXPECT_TRUE(tb_solverApplies(TB_SOLVER_LEMKE, &p));
  EXPECT_FALSE(tb_solverApplies(TB_SOLVER_MNCP_PLM, &p));  // the pyramid is not its problem
  // a solver that does not apply is refused, not run
  tbSolverOpt opt = tb_defaultSolverOpt();
  tbSolverWork* w = tb_newSolverWork(TB_SOLVER_PGS, 4, 1, 4);
  double x[4] = {0};
  tbSolveResult res;
  EXPECT_EQ(tb_solve(TB_SOLVER_MNCP_RLM, &p, &opt, x, w, &res), TB_ERR_ARG);
  // and scratch too small for the asked solver is refused
  EXPECT_EQ(tb_solve(TB_SOLVER_LEMKE, &p, &opt, x, w, &res), TB_ERR_ARG);
  tb_freeSolverWork(w);
}

// the acceptance test: the default exact-cone solver takes every shared FC3D file to
// the relative natural-map residual 1e-8, and the residual holds when recomputed here
TEST(SolverTest, DefaultSolvesEveryFc3dFile) {
  std::vector<std::string> files = Files("fc3d");
  if (files.empty()) FAIL() << "tests/data/fc3d missing";
  for (const std::string& f : files) {
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    SolveRun r = Solve(TB_SOLVER_AUTO, p, fp.ncontact, 100000);
    EXPECT_TRUE(r.res.converged) << f << " residual " << r.res.residual;
    EXPECT_LE(r.recheck, 1e-8) << f;
    EXPECT_EQ(r.recheck, r.res.residual) << f;
    tb_freeFileProblem(&fp);
  }
}

// auto's strategy on the shared files: where PGS finishes within auto's first 20 sweeps it is
// PGS (with its residual looked at every second sweep: at most one sweep more); where PGS crawls
// (the Rover files: 139 to 398 sweeps; BoxesStack1: not in 100000) auto switches to Newton and
// needs a fraction of PGS's iterations
TEST(SolverTest, AutoIsPgsWhereItIsFastAndNewtonWhereItCrawls) {
  std::vector<std::string> files = Files("fc3d");
  if (files.empty()) FAIL() << "tests/data/fc3d missing";
  int nfast = 0, nslow = 0;
  for (const std::string& f : files) {
    std::string base = f.substr(f.rfind('/') + 1);
    bool slow = base.rfind("Rover10", 0) == 0 || base.rfind("Rover4144", 0) == 0 ||
                base.rfind("BoxesStack1", 0) == 0;
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    if (p.n <= 300) {
      SolveRun pgs = Solve(TB_SOLVER_PGS, p, fp.ncontact, slow ? 1000 : 100000);
      SolveRun aut = Solve(TB_SOLVER_AUTO, p, fp.ncontact, 100000);
      EXPECT_TRUE(aut.res.converged) << base;
      {  // warm started from its own answer: nothing to do
        tbSolverOpt opt = tb_defaultSolverOpt();
        tbSolverWork* w = tb_newSolverWork(TB_SOLVER_AUTO, p.n, fp.ncontact, p.facets);
        std::vector<double> x = aut.x;
        tbSolveResult res;
        ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &p, &opt, x.data(), w, &res), TB_OK);
        EXPECT_TRUE(res.converged) << base;
        EXPECT_EQ(res.iterations, 0) << base;
        EXPECT_EQ(x, aut.x) << base;
        tb_freeSolverWork(w);
      }
      if (pgs.res.converged && pgs.res.iterations <= 20) {
        nfast++;
        EXPECT_GE(aut.res.iterations, pgs.res.iterations) << base;
        EXPECT_LE(aut.res.iterations, pgs.res.iterations + 1) << base;
      }
      if (slow) {
        nslow++;
        EXPECT_TRUE(!pgs.res.converged || pgs.res.iterations > 100) << base;
        // PGS sweeps plus Newton iterations
        EXPECT_LT(aut.res.iterations, 60) << base;
      }
    }
    tb_freeFileProblem(&fp);
  }
  EXPECT_GE(nfast, 5);
  EXPECT_EQ(nslow, 4);
}

// PGS reads A's rows instead of its columns where A is exactly symmetric: the same numbers in
// the same order, so the iterates must be bit for bit those of the column reads
TEST(SolverTest, PgsRowReadsOnSymmetricAMatchColumnReads) {
  std::vector<std::string> files = Files("fc3d");
  if (files.empty()) FAIL() << "tests/data/fc3d missing";
  int nsym = 0, nasym = 0;
  for (const std::string& f : files) {
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    if (p.n <= 300) {
      int sym = tb_pgsSymmetric(tb_solo(), &p);
      (sym ? nsym : nasym)++;
      std::vector<double> x[2], u[2];
      for (int v = 0; v < 2 && sym; v++) {
        x[v].assign(p.n, 0.0);
        u[v].resize(p.n);
        tb_problemVelocity(&p, x[v].data(), u[v].data());
        int sweeps, reason;
        tb_pgsSweeps(tb_solo(), &p, v, 1.0, 1e-8, 50, 1, x[v].data(), u[v].data(), &sweeps,
                     &reason);
      }
      if (sym) {
        EXPECT_EQ(x[0], x[1]) << f;
        EXPECT_EQ(u[0], u[1]) << f;
      }
    }
    tb_freeFileProblem(&fp);
  }
  // both kinds are among the shared files (the Rover files' W is not symmetric)
  EXPECT_GT(nsym, 0);
  EXPECT_GT(nasym, 0);
}

// every applicable solver either reaches 1e-8 or says it did not, on every file small enough
// for the dense Newton methods to run in the test's time (larger ones: bench/solvers)
TEST(SolverTest, EverySolverHonestOnSmallFiles) {
  std::vector<std::string> files = Files("fc3d");
  std::vector<std::string> lcp = Files("lcp");
  files.insert(files.end(), lcp.begin(), lcp.end());
  if (files.empty()) FAIL() << "tests/data missing";
  int runs = 0;
  for (const std::string& f : files) {
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    // the pyramid's LCP form has (2 + 8) unknowns per contact: dense LM only on small files
    for (int cone = 0; cone < 2 && p.n <= (cone ? 60 : 200); cone++) {
      p.cone = cone;  // the pyramid version of each FC3D file, 8 facets
      for (int s = 0; s < TB_NSOLVER; s++) {
        if (!tb_solverApplies(s, &p)) continue;
        int iters = s <= TB_SOLVER_PROX_JACOBI || s == TB_SOLVER_AUTO ? 20000 : 200;
        SolveRun r = Solve(s, p, fp.ncontact, iters);
        runs++;
        EXPECT_EQ(r.res.converged, r.recheck <= 1e-8) << f << " " << tb_solverName(s);
        EXPECT_EQ(r.res.converged, r.res.reason == TB_STOP_CONVERGED) << f;
        EXPECT_EQ(r.recheck, r.res.residual) << f << " " << tb_solverName(s);
      }
    }
    tb_freeFileProblem(&fp);
  }
  EXPECT_GT(runs, 100);
}

// LCPs: Lemke and an iterative solver agree where the solution is unique; on every file each
// answer reported converged is a solution
TEST(SolverTest, LcpLemkeAndIterativeAgree) {
  std::vector<std::string> files = Files("lcp");
  if (files.empty()) FAIL() << "tests/data/lcp missing";
  // files whose M is a P-matrix (unique solution): checked by the principal minors below
  for (const std::string& f : files) {
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    SolveRun lemke = Solve(TB_SOLVER_LEMKE, p, 0, 1000, 1e-10);
    SolveRun fb = Solve(TB_SOLVER_MLCP_FB_PLM, p, 0, 500, 1e-10);
    SolveRun pgs = Solve(TB_SOLVER_PGS, p, 0, 100000, 1e-10);
    for (const SolveRun* r : {&lemke, &fb, &pgs}) {
      EXPECT_EQ(r->res.converged, r->recheck <= 1e-10) << f;
    }
    // unique when M is symmetric positive definite: every converged answer is the same
    bool spd = true;
    std::vector<double> L(fp.W, fp.W + p.n * p.n);
    for (int i = 0; i < p.n && spd; i++) {
      for (int j = 0; j < p.n; j++) spd &= fp.W[i * p.n + j] == fp.W[j * p.n + i];
    }
    spd = spd && tbu_cholesky(p.n, L.data()) == 0;
    if (spd && lemke.res.converged) {
      for (const SolveRun* r : {&fb, &pgs}) {
        if (!r->res.converged) continue;
        for (int i = 0; i < p.n; i++) {
          // residual 1e-10 relative to |q| on a well-conditioned SPD M
          EXPECT_NEAR(r->x[i], lemke.x[i], 1e-6 * (1 + std::fabs(lemke.x[i]))) << f << " " << i;
        }
      }
    }
    tb_freeFileProblem(&fp);
  }
}

// whether (i, j) lies in one of the runs [run[2 r], run[2 r + 1]) of r in [adr[i], adr[i + 1])
bool InRuns(const int* adr, const int* run, int i, int j) {
  for (int r = adr[i]; r < adr[i + 1]; r++) {
    if (j >= run[2 * r] && j < run[2 * r + 1]) return true;
  }
  return false;
}

// the large sparse files carry W's nonzero runs (host/io/reader.c): the runs of rows and of columns
// hold W's nonzeros and nothing else, u = W x + q over them is the product over all of W to
// round-off, and PGS and auto over them end as over all of W, in as many iterations (within
// one: u's first sums round differently), at the same answer to 1e-6 where they converge
TEST(SolverTest, SparseFilesSolveOverTheirRunsAsOverAllOfW) {
  std::vector<std::string> files = Files("fc3d");
  if (files.empty()) FAIL() << "tests/data missing";
  int sparse = 0;
  for (const std::string& f : files) {
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp), dense = p;
    dense.runs = nullptr;
    SCOPED_TRACE(f);
    long nz = 0;
    for (size_t k = 0; k < (size_t)p.n * p.n; k++) nz += p.A[k] != 0.0;
    // runs where they read at most half of W, on 16 rows or more
    EXPECT_EQ(p.runs != nullptr, p.n >= 16 && nz <= 0.5 * p.n * p.n);
    if (p.runs) {
      sparse++;
      const tbRuns* r = p.runs;
      for (int i = 0; i < p.n; i++) {
        for (int j = 0; j < p.n; j++) {
          bool z = p.A[(size_t)i * p.n + j] != 0.0;
          ASSERT_EQ(InRuns(r->row_adr, r->row_run, i, j), z) << i << " " << j;
          ASSERT_EQ(InRuns(r->col_adr, r->col_run, j, i), z) << i << " " << j;
        }
      }
      std::vector<double> x(p.n), u(p.n), v(p.n);
      for (int i = 0; i < p.n; i++) x[i] = std::sin(1.0 + i);
      tb_problemVelocity(&p, x.data(), u.data());
      tb_problemVelocity(&dense, x.data(), v.data());
      for (int i = 0; i < p.n; i++) EXPECT_NEAR(u[i], v[i], 1e-12 * (1.0 + std::fabs(v[i]))) << i;
      for (int s : {TB_SOLVER_PGS, TB_SOLVER_AUTO}) {
        if (p.n > 300) continue;  // Capsules: seconds over all of W (tumble solve shows them)
        SolveRun a = Solve(s, p, fp.ncontact, 100000), b = Solve(s, dense, fp.ncontact, 100000);
        EXPECT_EQ(a.res.converged, b.res.converged) << tb_solverName(s);
        EXPECT_TRUE(a.res.converged || s == TB_SOLVER_PGS);  // PGS stalls on BoxesStack1
        EXPECT_NEAR(a.res.iterations, b.res.iterations, 1) << tb_solverName(s);
        if (!a.res.converged) continue;
        double xmax = 0.0, dmax = 0.0;
        for (int i = 0; i < p.n; i++) {
          xmax = std::fmax(xmax, std::fabs(b.x[i]));
          dmax = std::fmax(dmax, std::fabs(a.x[i] - b.x[i]));
        }
        EXPECT_LE(dmax, 1e-6 * xmax) << tb_solverName(s);
      }
    }
    tb_freeFileProblem(&fp);
  }
  EXPECT_GE(sparse, 7);  // Box_Stacks, BoxesStack1, both Capsules, Confeti-ex03, NESpheres,
                         // OneObject
}

// a deadline (tbSolverOpt.deadline) already passed stops every solver that honors it before its
// first iteration, with its start (auto: x as given) and stop reason time; a far one changes no
// bit of any answer; one that falls inside auto's run on the largest shared text file (Capsules,
// 675 rows: 0.2 s over W's nonzero runs) ends it with the best iterate, within one iteration of it
TEST(SolverTest, DeadlineStopsWithTheBestIterate) {
  std::vector<std::string> files = Files("fc3d");
  std::vector<std::string> lcp = Files("lcp");
  files.insert(files.end(), lcp.begin(), lcp.end());
  if (files.empty()) FAIL() << "tests/data missing";
  const int solvers[] = {TB_SOLVER_AUTO,     TB_SOLVER_PROX_GS, TB_SOLVER_MNCP_PLM,
                         TB_SOLVER_MNCP_RLM, TB_SOLVER_LEMKE,   TB_SOLVER_MLCP_FB_PLM};
  int runs = 0;
  for (const std::string& f : files) {
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    std::vector<double> zero(p.n, 0.0), work(p.n + 1);
    double start = tb_residual(&p, zero.data(), work.data());
    for (int s : solvers) {
      if (!tb_solverApplies(s, &p) || p.n > 200) continue;
      tbSolverWork* w = tb_newSolverWork(s, p.n, fp.ncontact, p.facets);
      std::vector<double> x[3];
      tbSolveResult res[3];
      for (int v = 0; v < 3; v++) {
        tbSolverOpt opt = tb_defaultSolverOpt();
        opt.max_iter = s == TB_SOLVER_AUTO || s == TB_SOLVER_PROX_GS ? 2000 : 100;
        opt.deadline = v == 0 ? 0.0 : v == 1 ? tb_clock() + 1e6 : 1e-9;
        x[v] = zero;
        ASSERT_EQ(tb_solve(s, &p, &opt, x[v].data(), w, &res[v]), TB_OK) << tb_lastError();
      }
      runs++;
      SCOPED_TRACE(f + " " + tb_solverName(s));
      EXPECT_EQ(x[1], x[0]);
      EXPECT_EQ(res[2].iterations, s == TB_SOLVER_LEMKE);  // Lemke's z0 enters first
      EXPECT_EQ(res[2].reason, res[2].converged ? TB_STOP_CONVERGED : TB_STOP_TIME);
      EXPECT_EQ(res[2].residual, tb_residual(&p, x[2].data(), work.data()));
      if (s == TB_SOLVER_AUTO) {
        EXPECT_EQ(x[2], zero);
      }
      tb_freeSolverWork(w);
    }
    if (f.find("Capsules-i101") != std::string::npos) {
      tbSolverWork* w = tb_newSolverWork(TB_SOLVER_AUTO, p.n, fp.ncontact, p.facets);
      tbSolverOpt opt = tb_defaultSolverOpt();
      opt.max_iter = 100000;
      std::vector<double> x = zero;
      tbSolveResult res;
      // 20 ms: a few of its iterations (milliseconds each, several times that under the
      // sanitizers, where 1 ms left it at its start), far from the 0.2 s it needs in all
      opt.deadline = tb_clock() + 2e-2;
      ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &p, &opt, x.data(), w, &res), TB_OK);
      EXPECT_EQ(res.reason, TB_STOP_TIME);
      EXPECT_EQ(tb_residual(&p, x.data(), work.data()), res.residual);
      EXPECT_LT(res.residual, start);
      EXPECT_LT(res.seconds, 2e-2 + 0.5);
      tb_freeSolverWork(w);
    }
    tb_freeFileProblem(&fp);
  }
  EXPECT_GT(runs, 30);
}

// f(fp, p) on each shared fc3d file where tb_solveFile takes soc-fb-plm's sparse directions;
// returns how many
template <class F>
int ForEachSparseFile(F f) {
  int count = 0;
  for (const std::string& path : Files("fc3d")) {
    tbFileProblem fp;
    if (tb_readProblem(path.c_str(), &fp) != TB_OK) {
      ADD_FAILURE() << tb_lastError();
      continue;
    }
    tbProblem p = tb_fileProblemView(&fp);
    if (tb_sparseNewton(TB_SOLVER_SOC_FB_PLM, &p)) {
      SCOPED_TRACE(path);
      count++;
      f(fp, p);
    }
    tb_freeFileProblem(&fp);
  }
  return count;
}

// every entry of the sparse J at a point is the dense J's (to rounding: the sums run in another
// order), and every entry the pattern leaves out is exactly zero in the dense J
TEST(SparseNewtonTest, JacobianOnThePatternIsTheDenseOne) {
  int files = ForEachSparseFile([](const tbFileProblem& fp, const tbProblem& p) {
    int n = p.n;
    std::vector<double> y(n), phi(n), dense((size_t)n * n), sparse((size_t)n * n);
    for (int i = 0; i < n; i++) y[i] = 1e-3 * std::sin(1.0 + 3.0 * i);
    tbSolverWork* w = tb_newSolverWork(TB_SOLVER_SOC_FB_PLM, n, fp.ncontact, p.facets);
    tb_lmTestEval(TB_LM_SOC_FB, &p, y.data(), phi.data(), dense.data(), w);
    tb_freeSolverWork(w);
    ASSERT_EQ(tb_sparseTestJacobian(&p, y.data(), sparse.data()), 0);
    double scale = 0.0;
    for (double v : dense) scale = std::fmax(scale, std::fabs(v));
    long inside = 0;
    for (size_t k = 0; k < dense.size(); k++) {
      if (std::isnan(sparse[k])) {  // outside the pattern
        ASSERT_EQ(dense[k], 0.0) << "row " << k / n << " column " << k % n;
        continue;
      }
      inside++;
      ASSERT_NEAR(sparse[k], dense[k], 1e-14 * scale) << "row " << k / n << " column " << k % n;
    }
    EXPECT_LT(inside, (long)dense.size() / 4);  // the pattern is sparse
  });
  if (files == 0) FAIL() << "tests/data missing";
}

// soc-fb-plm by the file path (KLU directions) and by tb_solve (dense LU) from zero: the same
// verdict, and converged answers whose velocities agree to the tolerance's precision (the
// iterations may part: the directions agree to rounding, the non-monotone line search need not)
TEST(SparseNewtonTest, SolvesAsTheDenseSolver) {
  int solved = 0;
  int files = ForEachSparseFile([&](const tbFileProblem& fp, const tbProblem& p) {
    int n = p.n;
    tbSolverOpt opt = tb_defaultSolverOpt();
    opt.tol = 1e-8;
    opt.max_iter = 200;
    tbSolverWork* w = tb_newSolverWork(TB_SOLVER_SOC_FB_PLM, n, fp.ncontact, p.facets);
    std::vector<double> xs(n, 0.0), xd(n, 0.0), us(n), ud(n);
    tbSolveResult rs, rd;
    ASSERT_EQ(tb_solveFile(TB_SOLVER_SOC_FB_PLM, &p, &opt, xs.data(), w, &rs), TB_OK);
    ASSERT_EQ(tb_solve(TB_SOLVER_SOC_FB_PLM, &p, &opt, xd.data(), w, &rd), TB_OK);
    tb_freeSolverWork(w);
    EXPECT_EQ(rs.converged, rd.converged);
    std::printf("  sparse %d iterations, dense %d\n", rs.iterations, rd.iterations);
    std::vector<double> work(n);
    EXPECT_EQ(rs.residual, tb_residual(&p, xs.data(), work.data()));
    if (!rs.converged || !rd.converged) return;
    solved++;
    tb_problemVelocity(&p, xs.data(), us.data());
    tb_problemVelocity(&p, xd.data(), ud.data());
    double bn = 0.0, du = 0.0;
    for (int i = 0; i < n; i++) {
      bn += p.b[i] * p.b[i];
      du = std::fmax(du, std::fabs(us[i] - ud[i]));
    }
    EXPECT_LT(du, 1e-6 * std::sqrt(bn));
  });
  if (files == 0) FAIL() << "tests/data missing";
  EXPECT_GE(solved, 4);  // Box_Stacks, both Capsules, Confeti-ex03
}

}  // namespace

// on a small standard LCP started from zero auto probes with a few PGS sweeps, then pivots:
// lcp_tobenna (40 rows, where PGS and Fischer-Burmeister Newton both fail) costs it Lemke's
// pivots plus the probe, lcp_trivial (PGS finishes it in the probe) no pivot at all
TEST(SolverTest, AutoPivotsEarlyOnSmallLcpsFromZero) {
  std::vector<std::string> files = Files("lcp");
  if (files.empty()) FAIL() << "tests/data/lcp missing";
  int seen = 0;
  for (const std::string& f : files) {
    std::string base = f.substr(f.rfind('/') + 1);
    if (base != "lcp_tobenna.dat" && base != "lcp_trivial.dat") continue;
    seen++;
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(f.c_str(), &fp), TB_OK) << tb_lastError();
    tbProblem p = tb_fileProblemView(&fp);
    SolveRun aut = Solve(TB_SOLVER_AUTO, p, 0, 100000);
    SolveRun lemke = Solve(TB_SOLVER_LEMKE, p, 0, 100000);
    EXPECT_TRUE(aut.res.converged) << base;
    if (base == "lcp_tobenna.dat") {
      EXPECT_TRUE(lemke.res.converged);
      EXPECT_FALSE(Solve(TB_SOLVER_PGS, p, 0, 1000).res.converged);
      EXPECT_LE(aut.res.iterations, lemke.res.iterations + 4);
    } else {
      EXPECT_LE(aut.res.iterations, 4);
    }
    tb_freeFileProblem(&fp);
  }
  EXPECT_EQ(seen, 2);
}

// Problem files whose W is held as its nonzeros (issue 66, item 13): a sparse-block file of
// 16,383 rows asked the reader for 2.1 GB (W dense) and auto for twice that again, where pgs
// over W's nonzeros needs a few MB. The packed runs must give the solvers the same numbers as
// dense W's runs, bit for bit, and the dense-only solvers must refuse, naming the memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <tumble/problem.h>
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "cli_runner.h"
#include "io/reader_inprocess.h"
#include "solver/residual.h"

namespace {

// the test data's problem files, sorted
std::vector<std::string> problemFiles() {
  std::vector<std::string> out;
#ifdef TUMBLE_DATA_DIR
  for (const char* sub : {"fc3d", "lcp"}) {
    std::error_code ec;
    for (auto& e :
         std::filesystem::directory_iterator(std::string(TUMBLE_DATA_DIR) + "/" + sub, ec))
      out.push_back(e.path().string());
  }
#endif
  std::sort(out.begin(), out.end());
  return out;
}

struct Solved {
  int rc;
  tbSolveResult res;
  std::vector<double> x;
};

Solved solveFrom0(int solver, const tbProblem& p, int ncontact, double tol, int max_iter) {
  tbSolverOpt opt = tb_defaultSolverOpt();
  opt.tol = tol;
  opt.max_iter = max_iter;
  tbSolverWork* w = tb_newSolverWork(p.A ? solver : TB_SOLVER_PGS, p.n, ncontact, p.facets);
  Solved s{TB_ERR_MEMORY, {}, std::vector<double>((size_t)p.n + 1, 0.0)};
  if (w) s.rc = tb_solveFile(solver, &p, &opt, s.x.data(), w, &s.res);
  tb_freeSolverWork(w);
  return s;
}

// this process's address space (VmSize), kB; 0 where /proc does not say
long ownKilobytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stol(line.substr(7));
  }
  return 0;
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

// bug caught: packed runs that miss an entry, hold it at the wrong place or add in another order
// (a transposed column, an off-by-one run end, a symmetric file's columns taken for its rows).
// Over dense W's runs and over the packed ones pgs must take the same sweeps to the same bits,
// and soc-fb-plm's sparse Newton (whose J is read entry by entry) the same iterations; on files
// without dense runs (small or full) the packed residual must be the dense one's of the same x
TEST(SparseFileTest, PackedRunsSolveAsDenseWDoes) {
  std::vector<std::string> files = problemFiles();
  ASSERT_FALSE(files.empty()) << "no problem files under tests/data";
  int bitwise = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    tbFileProblem fd, fs;
    ASSERT_EQ(tb_readProblem(path.c_str(), &fd), TB_OK) << tb_lastError();
    ASSERT_EQ(tb_readProblemSparse(path.c_str(), &fs), TB_OK) << tb_lastError();
    ASSERT_NE(fd.W, nullptr);
    ASSERT_EQ(fs.W, nullptr);
    tbProblem pd = tb_fileProblemView(&fd), ps = tb_fileProblemView(&fs);
    ASSERT_NE(ps.runs, nullptr);
    Solved a = solveFrom0(TB_SOLVER_PGS, pd, fd.ncontact, 1e-10, 3000);
    Solved b = solveFrom0(TB_SOLVER_PGS, ps, fs.ncontact, 1e-10, 3000);
    ASSERT_EQ(a.rc, TB_OK) << tb_lastError();
    ASSERT_EQ(b.rc, TB_OK) << tb_lastError();
    if (pd.runs) {
      bitwise++;
      EXPECT_EQ(a.res.iterations, b.res.iterations);
      EXPECT_TRUE(sameBits(a.x, b.x));
      EXPECT_EQ(a.res.residual, b.res.residual);
      if (tb_sparseNewton(TB_SOLVER_SOC_FB_PLM, &pd)) {
        ASSERT_TRUE(tb_sparseNewton(TB_SOLVER_SOC_FB_PLM, &ps));
        a = solveFrom0(TB_SOLVER_SOC_FB_PLM, pd, fd.ncontact, 1e-10, 200);
        b = solveFrom0(TB_SOLVER_SOC_FB_PLM, ps, fs.ncontact, 1e-10, 200);
        EXPECT_EQ(a.res.iterations, b.res.iterations);
        EXPECT_TRUE(sameBits(a.x, b.x));
      }
    } else {
      // the residual is relative to |q| >= 1e-16 and its sums differ in order alone: 1e-12 of it
      std::vector<double> u((size_t)pd.n + 1);
      double rd = tb_residual(&pd, b.x.data(), u.data());
      EXPECT_NEAR(rd, b.res.residual, 1e-12 * std::max(rd, 1e-3));
    }
    tb_freeFileProblem(&fd);
    tb_freeFileProblem(&fs);
  }
  EXPECT_GE(bitwise, 5) << "too few files with dense runs to compare bit for bit";
}

// bug caught: a solver that reads W dense run on the packed form (a null A read), or a refusal
// that does not say why
TEST(SparseFileTest, DenseOnlySolversRefuseThePackedForm) {
  std::string path = std::string(TUMBLE_DATA_DIR) + "/fc3d/Capsules-i101-404.dat";
  tbFileProblem fs;
  ASSERT_EQ(tb_readProblemSparse(path.c_str(), &fs), TB_OK) << tb_lastError();
  tbProblem p = tb_fileProblemView(&fs);
  for (int s = 0; s < TB_NSOLVER; s++) {
    SCOPED_TRACE(tb_solverName(s));
    bool reads = s == TB_SOLVER_PGS || s == TB_SOLVER_AUTO || s == TB_SOLVER_SOC_FB_PLM;
    EXPECT_EQ(tb_fileSolverRuns(s, &p) != 0, reads);
    if (reads) continue;
    Solved r = solveFrom0(s, p, fs.ncontact, 1e-8, 10);
    EXPECT_EQ(r.rc, TB_ERR_ARG);
    EXPECT_NE(std::string(tb_lastError()).find("needs A dense"), std::string::npos)
        << tb_lastError();
  }
  Solved r = solveFrom0(TB_SOLVER_AUTO, p, fs.ncontact, 1e-8, 100000);
  EXPECT_EQ(r.rc, TB_OK);
  EXPECT_TRUE(r.res.converged) << r.res.residual;
  tb_freeFileProblem(&fs);
}

class SparseFileCliTest : public CliFixture {
 protected:
  static constexpr int kContacts = 5461;  // 16,383 rows, as the file

  // A sparse-block FC3D file of kContacts contacts whose solution is known in closed form.
  // Contact k's block is diag(1, 0.5, 0.5); contacts k and k + 1 couple by 0.2 between their
  // normal rows alone; q_n = -1 - 0.2 sin k, q_t = 0.05 (cos k, sin 2k), mu = 1. Every contact
  // then sticks (|r_t| = |q_t| / 0.5 <= 0.15 below mu r_n, r_n >= 0.3 as the solution below
  // shows), so W r + q = 0: r_t = -q_t / 0.5, and r_n solves the tridiagonal system.
  std::string write(std::vector<double>* r) {
    int nc = kContacts, n = 3 * nc, nblock = nc + 2 * (nc - 1);
    std::string path = Path("chain.dat");
    FILE* f = fopen(path.c_str(), "w");
    fprintf(f, "3\n%d\n1 %d %d\n%d %d %d\n", nc, n, n, nblock, nc, nc);
    for (int pass = 0; pass < 2; pass++) {
      for (int k = 0; k < nc; k++) fprintf(f, "%d ", 3 * (k + 1));
      fprintf(f, "\n");
    }
    fprintf(f, "%d %d\n", nc + 1, nblock);
    std::vector<int> first, col;  // index1, index2: block row k holds columns k-1, k, k+1
    for (int k = 0; k < nc; k++) {
      first.push_back((int)col.size());
      for (int c = k - 1; c <= k + 1; c++) {
        if (c >= 0 && c < nc) col.push_back(c);
      }
    }
    first.push_back((int)col.size());
    for (int v : first) fprintf(f, "%d ", v);
    fprintf(f, "\n");
    for (int v : col) fprintf(f, "%d ", v);
    fprintf(f, "\n");
    int b = 0;
    for (int k = 0; k < nc; k++) {
      for (int c = k - 1; c <= k + 1; c++) {
        if (c < 0 || c >= nc) continue;
        double d[9] = {0.0};  // column-major
        if (c == k) {
          d[0] = 1.0;
          d[4] = d[8] = 0.5;
        } else {
          d[0] = 0.2;
        }
        fprintf(f, "%d\n", b++);
        for (double v : d) fprintf(f, "%.17g ", v);
        fprintf(f, "\n");
      }
    }
    std::vector<double> q(n);
    for (int k = 0; k < nc; k++) {
      q[3 * k] = -1.0 - 0.2 * std::sin(k);
      q[3 * k + 1] = 0.05 * std::cos(k);
      q[3 * k + 2] = 0.05 * std::sin(2.0 * k);
    }
    for (double v : q) fprintf(f, "%.17g\n", v);
    for (int k = 0; k < nc; k++) fprintf(f, "1\n");
    fclose(f);
    // the closed form: the tridiagonal system (1 on the diagonal, 0.2 beside) by Thomas'
    // algorithm, and the tangents
    r->assign(n, 0.0);
    std::vector<double> cp(nc), dp(nc);
    for (int k = 0; k < nc; k++) {
      double m = 1.0 - (k > 0 ? 0.2 * cp[k - 1] : 0.0);
      cp[k] = 0.2 / m;
      dp[k] = (-q[3 * k] - (k > 0 ? 0.2 * dp[k - 1] : 0.0)) / m;
    }
    for (int k = nc - 1; k >= 0; k--) {
      (*r)[3 * k] = dp[k] - (k + 1 < nc ? cp[k] * (*r)[3 * k + 3] : 0.0);
      (*r)[3 * k + 1] = -q[3 * k + 1] / 0.5;
      (*r)[3 * k + 2] = -q[3 * k + 2] / 0.5;
    }
    return path;
  }

  // the largest |x_i - r_i|
  static double maxError(const std::vector<double>& x, const std::vector<double>& r) {
    double e = 0.0;
    for (size_t i = 0; i < r.size(); i++) e = std::max(e, std::fabs(x[i] - r[i]));
    return e;
  }
};

// bug caught: the reader held this 16,383-row file's W dense (2.1 GB) and auto's scratch took
// twice that again: with 1 GB of address space to spare both failed as "out of memory". Held as its
// nonzeros, pgs and auto solve it there, to the closed form's answer, and a dense-only solver
// refuses, naming the 2.15 GB it would need
TEST_F(SparseFileCliTest, SixteenThousandRowsSolveInAStatedMemory) {
  std::vector<double> r;
  std::string path = write(&r);
  for (int k = 0; k < kContacts; k++) ASSERT_GT(r[3 * k], 0.3) << "contact " << k;
  tbFileProblem fp;
  ASSERT_EQ(tb_readProblem(path.c_str(), &fp), TB_OK) << tb_lastError();
  EXPECT_EQ(fp.W, nullptr);
  ASSERT_NE(fp.W_rowptr, nullptr);
  EXPECT_EQ(fp.W_rowptr[fp.n], 3 * kContacts + 2 * (kContacts - 1));  // the zeros left out
  tbProblem p = tb_fileProblemView(&fp);
  // ||x - x*|| <= (1 + L) / m ||natural map(x)|| for W's spectrum in [m, L] = [0.5, 1.4]
  // (Gershgorin): 4.8 tol |q|, |q| < 1.2 sqrt(5461): 4.3e-8 at tol 1e-10
  for (int s : {TB_SOLVER_PGS, TB_SOLVER_AUTO}) {
    SCOPED_TRACE(tb_solverName(s));
    Solved a = solveFrom0(s, p, fp.ncontact, 1e-10, 100000);
    ASSERT_EQ(a.rc, TB_OK) << tb_lastError();
    EXPECT_TRUE(a.res.converged) << a.res.residual;
    EXPECT_LT(maxError(a.x, r), 5e-8);
  }
  tb_freeFileProblem(&fp);
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v under it";
#else
  // 1 GB of address space beyond what the libraries take (a CUDA build maps cuBLAS's and
  // cuSOLVER's hundreds of MB before main): this process's own size, which maps the same ones
  const std::string limit = "ulimit -v " + std::to_string(ownKilobytes() + 1000000) + "; ";
  for (const char* s : {"pgs", "auto"}) {
    CliResult c = RunCli({"solve", path, "--solver", s, "--tol", "1e-10"}, limit);
    EXPECT_EQ(c.status, 0) << s << ": " << c.err;
    EXPECT_NE(c.out.find("\"converged\": true"), std::string::npos) << s << ": " << c.out;
  }
  CliResult c = RunCli({"solve", path, "--solver", "mncp-plm"}, limit);
  EXPECT_EQ(c.status, 2);
  EXPECT_NE(c.err.find("needs W dense"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("2.15 GB"), std::string::npos) << c.err;
  c = RunCli({"solve", path, "--solver", "all", "--tol", "1e-10"}, limit);
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 3) << c.out;  // pgs, auto, soc-fb-plm
  EXPECT_NE(c.err.find("runs pgs, auto and soc-fb-plm alone"), std::string::npos) << c.err;
#endif
}

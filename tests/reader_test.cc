// host/io/reader.c: the shared problem files (Siconos text, FCLib HDF5) read exactly as Siconos and
// the HDF5 API read them, their reference solutions solving them, and bad input refused with
// one line naming the file, the field and the position.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>

#include <tumble/problem.h>
#include <tumble/reader.h>
#include <tumble/tumble.h>

#ifdef TUMBLE_HAVE_SICONOS
#include <FrictionContactProblem.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>

#include "solver/residual.h"
#endif

namespace fs = std::filesystem;

namespace {

std::string dataDir() {
#ifdef TUMBLE_DATA_DIR
  return TUMBLE_DATA_DIR;
#else
  return "";
#endif
}

// sorted files of `sub` under the data dir whose name ends with `ext`
std::vector<std::string> dataFiles(const std::string& sub, const std::string& ext) {
  std::vector<std::string> out;
  fs::path d = fs::path(dataDir()) / sub;
  std::error_code ec;
  if (!fs::is_directory(d, ec)) return out;
  for (auto& e : fs::directory_iterator(d, ec)) {
    std::string s = e.path().string();
    if (s.size() >= ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0)
      out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// a scratch directory, removed with its files
struct TempDir {
  fs::path dir;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "tumble_reader_XXXXXX").string();
    std::vector<char> b(t.begin(), t.end());
    b.push_back('\0');
    char* r = mkdtemp(b.data());
    EXPECT_NE(r, nullptr);
    dir = r ? fs::path(r) : fs::temp_directory_path();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

// read `path`, expect TB_ERR_ARG and a one-line message holding every piece of `parts`
void expectError(const std::string& path, std::vector<std::string> parts) {
  tbFileProblem fp;
  int rc = tb_readProblem(path.c_str(), &fp);
  EXPECT_EQ(rc, TB_ERR_ARG) << path;
  std::string msg = tb_lastError();
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  for (auto& s : parts) EXPECT_NE(msg.find(s), std::string::npos) << "'" << s << "' in: " << msg;
  EXPECT_EQ(fp.W, nullptr);
  EXPECT_EQ(fp.q, nullptr);
  EXPECT_EQ(fp.mu, nullptr);
  EXPECT_EQ(fp.n, 0);
}

//---- HDF5 helpers for the tests' own reads and writes --------------------------------------------

std::vector<double> h5doubles(hid_t f, const char* path) {
  std::vector<double> v;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) return v;
  hid_t s = H5Dget_space(d);
  v.resize((size_t)H5Sget_simple_extent_npoints(s));
  if (!v.empty()) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

std::vector<int> h5ints(hid_t f, const char* path) {
  std::vector<int> v;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) return v;
  hid_t s = H5Dget_space(d);
  v.resize((size_t)H5Sget_simple_extent_npoints(s));
  if (!v.empty()) H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

void h5put(hid_t f, const char* path, const std::vector<double>& v) {
  hsize_t n = v.size();
  hid_t s = H5Screate_simple(1, &n, nullptr);
  hid_t d = H5Dcreate2(f, path, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(d);
  H5Sclose(s);
}

void h5put(hid_t f, const char* path, const std::vector<int>& v) {
  hsize_t n = v.size();
  hid_t s = H5Screate_simple(1, &n, nullptr);
  hid_t d = H5Dcreate2(f, path, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(d);
  H5Sclose(s);
}

void h5group(hid_t f, const char* path) {
  H5Gclose(H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

// an FCLib sparse matrix's datasets in group g (created here): nz >= 0 triplets (i rows, p
// columns), -1 compressed columns, -2 compressed rows
void h5sparse(hid_t f, const std::string& g, int m, int n, int nz, const std::vector<int>& p,
              const std::vector<int>& i, const std::vector<double>& x) {
  h5group(f, g.c_str());
  h5put(f, (g + "/m").c_str(), std::vector<int>{m});
  h5put(f, (g + "/n").c_str(), std::vector<int>{n});
  h5put(f, (g + "/nz").c_str(), std::vector<int>{nz});
  h5put(f, (g + "/nzmax").c_str(), std::vector<int>{(int)x.size()});
  h5put(f, (g + "/p").c_str(), p);
  h5put(f, (g + "/i").c_str(), i);
  h5put(f, (g + "/x").c_str(), x);
}

// an FCLib sparse matrix group `g` for the dense row-major (m x n) A, in triplet (nz >= 0),
// compressed-column (-1) or compressed-row (-2) form, zeros left out
void h5matrix(hid_t f, const std::string& g, int m, int n, const std::vector<double>& A, int form) {
  std::vector<int> p, i;
  std::vector<double> x;
  if (form >= 0) {  // triplet, column-major order, CSparse convention: i rows, p columns
    for (int c = 0; c < n; c++)
      for (int r = 0; r < m; r++)
        if (A[(size_t)r * n + c] != 0.0) {
          i.push_back(r);
          p.push_back(c);
          x.push_back(A[(size_t)r * n + c]);
        }
  } else {
    bool csr = form == -2;
    int outer = csr ? m : n, inner = csr ? n : m;
    p.push_back(0);
    for (int o = 0; o < outer; o++) {
      for (int k = 0; k < inner; k++) {
        double v = csr ? A[(size_t)o * n + k] : A[(size_t)k * n + o];
        if (v != 0.0) {
          i.push_back(k);
          x.push_back(v);
        }
      }
      p.push_back((int)x.size());
    }
  }
  h5sparse(f, g, m, n, form >= 0 ? (int)x.size() : form, p, i, x);
}

// an FCLib global problem file: its groups, spacedim 3, f, w and mu; `matrices` writes M and H
template <class F>
void writeGlobal(const std::string& path, F matrices, const std::vector<double>& f,
                 const std::vector<double>& w, const std::vector<double>& mu) {
  hid_t h = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5group(h, "/fclib_global");
  h5group(h, "/fclib_global/vectors");
  h5put(h, "/fclib_global/spacedim", std::vector<int>{3});
  matrices(h);
  h5put(h, "/fclib_global/vectors/f", f);
  h5put(h, "/fclib_global/vectors/w", w);
  h5put(h, "/fclib_global/vectors/mu", mu);
  H5Fclose(h);
}

// an FCLib local problem file; `skip` names a dataset to leave out
std::string writeLocal(const TempDir& t, const std::string& name, int nc,
                       const std::vector<double>& W, const std::vector<double>& q,
                       const std::vector<double>& mu, int form, const std::string& skip = "") {
  std::string path = (t.dir / name).string();
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5group(f, "/fclib_local");
  h5group(f, "/fclib_local/vectors");
  if (skip != "spacedim") h5put(f, "/fclib_local/spacedim", std::vector<int>{3});
  if (skip != "W") h5matrix(f, "/fclib_local/W", 3 * nc, 3 * nc, W, form);
  if (skip != "q") h5put(f, "/fclib_local/vectors/q", q);
  if (skip != "mu") h5put(f, "/fclib_local/vectors/mu", mu);
  H5Fclose(f);
  return path;
}

// a small valid FC3D text file (one contact, dense, a trailing remark)
const char* kFc3dText =
    "3\n1\n0\n3\n3\n3\t3\n"
    "15 -1 -2\n"
    "-1 14 1\n"
    "-2 1 16\n"
    "-1 2 3\n"
    "0.1\n"
    "0\n";

}  // namespace

//---- the shared files ----------------------------------------------------------------------------

// every .dat file under fc3d/ and lcp/ reads exactly (bitwise) as Siconos numerics reads it
TEST(ReaderTest, SiconosTextFilesMatchSiconos) {
  std::vector<std::string> fc = dataFiles("fc3d", ".dat"), lcp = dataFiles("lcp", ".dat");
  if (fc.empty() && lcp.empty()) FAIL() << "no problem files under " << dataDir();
#ifndef TUMBLE_HAVE_SICONOS
  GTEST_SKIP() << "built without libsiconos-numerics (scripts/deps.sh installs it): nothing to "
                  "compare the reader with";
#else
  int nfile = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (const std::string& path : pass == 0 ? fc : lcp) {
      SCOPED_TRACE(path);
      tbFileProblem fp;
      ASSERT_EQ(tb_readProblem(path.c_str(), &fp), TB_OK) << tb_lastError();
      NumericsMatrix* M = nullptr;
      const double *q = nullptr, *mu = nullptr;
      FrictionContactProblem* fcp = nullptr;
      LinearComplementarityProblem* lp = nullptr;
      if (pass == 0) {
        ASSERT_EQ(fp.kind, TB_FILE_FC3D);
        fcp = frictionContact_new_from_filename(path.c_str());
        ASSERT_NE(fcp, nullptr);
        EXPECT_EQ(fcp->dimension, 3);
        EXPECT_EQ(fcp->numberOfContacts, fp.ncontact);
        M = fcp->M;
        q = fcp->q;
        mu = fcp->mu;
      } else {
        ASSERT_EQ(fp.kind, TB_FILE_LCP);
        lp = newLCP();
        linearComplementarity_newFromFilename(lp, path.c_str());
        ASSERT_NE(lp->M, nullptr);
        EXPECT_EQ(lp->size, fp.n);
        M = lp->M;
        q = lp->q;
      }
      ASSERT_EQ(M->size0, fp.n);
      ASSERT_EQ(M->size1, fp.n);
      int bad = 0;
      for (int i = 0; i < fp.n; i++) {
        for (int j = 0; j < fp.n; j++) {
          double s = NM_get_value(M, i, j), o = fp.W[(size_t)i * fp.n + j];
          if (!sameBits(s, o) && bad++ < 5)
            ADD_FAILURE() << "W(" << i << ", " << j << "): siconos " << s << " ours " << o;
        }
        if (!sameBits(q[i], fp.q[i]) && bad++ < 5)
          ADD_FAILURE() << "q[" << i << "]: siconos " << q[i] << " ours " << fp.q[i];
      }
      for (int k = 0; k < fp.ncontact; k++)
        if (!sameBits(mu[k], fp.mu[k]) && bad++ < 5)
          ADD_FAILURE() << "mu[" << k << "]: siconos " << mu[k] << " ours " << fp.mu[k];
      EXPECT_EQ(bad, 0);
      // the view: one exact-cone contact block per contact, or one [0, inf) box row per row
      tbProblem p = tb_fileProblemView(&fp);
      EXPECT_EQ(p.n, fp.n);
      EXPECT_EQ(p.cone, TB_CONE_EXACT);
      EXPECT_EQ(p.nblock, pass == 0 ? fp.ncontact : fp.n);
      for (int k = 0; k < p.nblock; k++) {
        EXPECT_EQ(p.blk_type[k], pass == 0 ? TB_BLOCK_CONTACT : TB_BLOCK_BOX);
        EXPECT_EQ(p.blk_adr[k], pass == 0 ? 3 * k : k);
        EXPECT_EQ(p.blk_dim[k], pass == 0 ? 3 : 1);
        if (pass == 0) {
          EXPECT_EQ(p.blk_mu[k], fp.mu[k]);
        } else {
          EXPECT_EQ(p.lo[k], 0.0);
          EXPECT_EQ(p.hi[k], INFINITY);
        }
      }
      if (fcp) frictionContactProblem_free(fcp);
      if (lp) freeLinearComplementarityProblem(lp);
      tb_freeFileProblem(&fp);
      nfile++;
    }
  }
  EXPECT_GE(nfile, 1);
  std::printf("[ reader   ] %d Siconos text files match libsiconos-numerics bitwise\n", nfile);
#endif
}

// the FCLib files: the local W, q, mu exactly as stored; the global W = H^T M^-1 H and q against
// a recomputation (diagonal M); a stored /solution/r reproduces /solution/u and solves its
// problem to tb_residual <= 1e-6. Both shared files carry r = 0 there (a placeholder: q has
// approaching contacts), which is reported and checked to be no solution instead.
TEST(ReaderTest, FclibFilesAndReferenceSolutions) {
  std::vector<std::string> files = dataFiles("fc3d", ".hdf5");
  if (files.empty()) FAIL() << "no .hdf5 problem files under " << dataDir() << "/fc3d";
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(path.c_str(), &fp), TB_OK) << tb_lastError();
    ASSERT_EQ(fp.kind, TB_FILE_FC3D);
    ASSERT_EQ(fp.n, 3 * fp.ncontact);
    ASSERT_TRUE(fp.has_solution);
    int n = fp.n;
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    std::string g = fp.global ? "/fclib_global" : "/fclib_local";
    std::vector<double> mu = h5doubles(f, (g + "/vectors/mu").c_str());
    ASSERT_EQ((int)mu.size(), fp.ncontact);
    for (int k = 0; k < fp.ncontact; k++) EXPECT_TRUE(sameBits(mu[k], fp.mu[k])) << k;
    std::vector<double> r = h5doubles(f, "/solution/r"), u = h5doubles(f, "/solution/u");
    ASSERT_EQ((int)r.size(), n);
    for (int i = 0; i < n; i++) EXPECT_TRUE(sameBits(r[i], fp.r_solution[i])) << i;
    if (!fp.global) {
      // W rebuilt here from the stored compressed rows (or columns, or triplets)
      std::vector<int> p = h5ints(f, "/fclib_local/W/p"), ix = h5ints(f, "/fclib_local/W/i");
      std::vector<double> x = h5doubles(f, "/fclib_local/W/x");
      int nz = h5ints(f, "/fclib_local/W/nz").at(0);
      std::vector<double> W((size_t)n * n, 0.0);
      if (nz >= 0) {
        for (int k = 0; k < nz; k++) W[(size_t)ix[k] * n + p[k]] += x[k];
      } else {
        for (int o = 0; o < n; o++)
          for (int k = p[o]; k < p[o + 1]; k++)
            W[nz == -2 ? (size_t)o * n + ix[k] : (size_t)ix[k] * n + o] += x[k];
      }
      int bad = 0;
      for (size_t k = 0; k < W.size(); k++) bad += !sameBits(W[k], fp.W[k]);
      EXPECT_EQ(bad, 0) << "entries of W differ from the stored sparse matrix";
      std::vector<double> q = h5doubles(f, "/fclib_local/vectors/q");
      ASSERT_EQ((int)q.size(), n);
      for (int i = 0; i < n; i++) EXPECT_TRUE(sameBits(q[i], fp.q[i])) << i;
    } else {
      for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
          ASSERT_TRUE(sameBits(fp.W[(size_t)i * n + j], fp.W[(size_t)j * n + i]));
      // with a diagonal M (triplets), W = H^T M^-1 H and q = H^T M^-1 f + w recomputed here
      std::vector<int> mp = h5ints(f, "/fclib_global/M/p"), mi = h5ints(f, "/fclib_global/M/i");
      std::vector<int> hp = h5ints(f, "/fclib_global/H/p"), hi = h5ints(f, "/fclib_global/H/i");
      std::vector<double> mx = h5doubles(f, "/fclib_global/M/x"),
                          hx = h5doubles(f, "/fclib_global/H/x"),
                          fv = h5doubles(f, "/fclib_global/vectors/f"),
                          wv = h5doubles(f, "/fclib_global/vectors/w");
      int mnz = h5ints(f, "/fclib_global/M/nz").at(0), hnz = h5ints(f, "/fclib_global/H/nz").at(0);
      int nv = h5ints(f, "/fclib_global/M/m").at(0);
      bool diag = mnz >= 0 && hnz >= 0;
      for (int k = 0; diag && k < mnz; k++) diag = mp[k] == mi[k];
      if (diag) {
        std::vector<double> md(nv, 0.0);
        for (int k = 0; k < mnz; k++) md[mi[k]] += mx[k];
        std::vector<std::vector<std::pair<int, double>>> col(n);  // H's columns
        for (int k = 0; k < hnz; k++) col[hp[k]].push_back({hi[k], hx[k]});
        double werr = 0.0, wmax = 0.0, qerr = 0.0, qmax = 0.0;
        std::vector<double> dense(nv);
        for (int a = 0; a < n; a++) {
          std::fill(dense.begin(), dense.end(), 0.0);
          for (auto& e : col[a]) dense[e.first] += e.second / md[e.first];
          double qa = wv[a];
          for (int k = 0; k < nv; k++) qa += dense[k] * fv[k];
          qerr = std::max(qerr, std::fabs(qa - fp.q[a]));
          qmax = std::max(qmax, std::fabs(qa));
          for (int b = 0; b < n; b++) {
            double s = 0.0;
            for (auto& e : col[b]) s += dense[e.first] * e.second;
            werr = std::max(werr, std::fabs(s - fp.W[(size_t)a * n + b]));
            wmax = std::max(wmax, std::fabs(s));
          }
        }
        EXPECT_LE(werr, 1e-12 * wmax) << "W = H^T M^-1 H";
        EXPECT_LE(qerr, 1e-12 * std::max(qmax, 1e-300)) << "q = H^T M^-1 f + w";
      }
    }
    H5Fclose(f);
    tbProblem pv = tb_fileProblemView(&fp);
    std::vector<double> uo(n), work(n);
    double res = tb_residual(&pv, fp.r_solution, work.data());
    bool zero = std::all_of(r.begin(), r.end(), [](double v) { return v == 0.0; });
    if (zero) {
      // r = 0 solves the problem only if q itself is in the dual cone (no approaching contact):
      // otherwise the file's /solution is a placeholder and the acceptance check cannot apply
      double qmin = 0.0;
      for (int k = 0; k < fp.ncontact; k++) qmin = std::min(qmin, fp.q[3 * k]);
      std::printf(
          "[ reader   ] %s: DATA ISSUE: /solution/r is identically zero (u stored unrelated to "
          "W r + q); min q_n = %.3e < 0, so it is not a solution: residual %.3e\n",
          fs::path(path).filename().c_str(), qmin, res);
      RecordProperty("placeholder_solution", fs::path(path).filename().string());
      EXPECT_GT(res, 1e-6) << "a zero /solution/r that does solve the problem: check it as one";
    } else {
      // u = W r + q reproduces the stored velocity, and r solves the problem
      tb_problemVelocity(&pv, fp.r_solution, uo.data());
      ASSERT_EQ((int)u.size(), n);
      double du = 0.0, un = 0.0;
      for (int i = 0; i < n; i++) {
        du = std::max(du, std::fabs(uo[i] - u[i]));
        un = std::max(un, std::fabs(u[i]));
      }
      EXPECT_LE(du, 1e-8 * std::max(un, 1.0)) << "W r + q against /solution/u";
      std::printf("[ reader   ] %s: %s, %d contacts, /solution residual %.3e\n",
                  fs::path(path).filename().c_str(), fp.global ? "global" : "local", fp.ncontact,
                  res);
      EXPECT_LE(res, 1e-6);
    }
    tb_freeFileProblem(&fp);
  }
}

//---- formats on small files written here
//----------------------------------------------------------

// dense Siconos matrices are column-major on file; a sparse block matrix is the same matrix
// every shared FC3D file written back by tb_writeFC3D reads as the same doubles
TEST(ReaderTest, WrittenFc3dFilesReadBackBitwise) {
  TempDir t;
  auto files = dataFiles("fc3d", ".dat");
  ASSERT_FALSE(files.empty()) << "no FC3D text files under " << dataDir();
  for (const auto& path : files) {
    tbFileProblem a, b;
    ASSERT_EQ(tb_readProblem(path.c_str(), &a), TB_OK) << tb_lastError();
    if (a.n > 600) {  // the large ones add time, not cases
      tb_freeFileProblem(&a);
      continue;
    }
    tbProblem v = tb_fileProblemView(&a);
    std::string out = (t.dir / "w.dat").string();
    ASSERT_EQ(tb_writeFC3D(out.c_str(), &v), TB_OK) << tb_lastError();
    ASSERT_EQ(tb_readProblem(out.c_str(), &b), TB_OK) << tb_lastError();
    ASSERT_EQ(b.n, a.n) << path;
    ASSERT_EQ(b.ncontact, a.ncontact) << path;
    bool same = true;
    for (long k = 0; k < (long)a.n * a.n; k++) same = same && sameBits(a.W[k], b.W[k]);
    for (int i = 0; i < a.n; i++) same = same && sameBits(a.q[i], b.q[i]);
    for (int c = 0; c < a.ncontact; c++) same = same && sameBits(a.mu[c], b.mu[c]);
    EXPECT_TRUE(same) << path;
    tb_freeFileProblem(&a);
    tb_freeFileProblem(&b);
  }
}

// what has no FC3D form is refused by name, and no file is left
TEST(ReaderTest, WriterRefusesWhatFc3dCannotHold) {
  TempDir t;
  std::string out = (t.dir / "w.dat").string();
  // three box rows (an LCP): as many rows as one contact, but not one
  double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {-1, -1, -1}, lo[3] = {0, 0, 0};
  double hi[3] = {INFINITY, INFINITY, INFINITY}, mu[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
  int type[3] = {TB_BLOCK_BOX, TB_BLOCK_BOX, TB_BLOCK_BOX}, adr[3] = {0, 1, 2}, dim[3] = {1, 1, 1};
  tbProblem p = {3, 3, A, b, lo, hi, type, adr, dim, mu, ang, TB_CONE_EXACT, 8, 0, nullptr};
  EXPECT_EQ(tb_writeFC3D(out.c_str(), &p), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("block"), std::string::npos) << tb_lastError();
  p.cone = TB_CONE_PYRAMID;
  EXPECT_EQ(tb_writeFC3D(out.c_str(), &p), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("cone"), std::string::npos) << tb_lastError();
  EXPECT_FALSE(fs::exists(out));

  // a write that fails at the end (the name is taken by a directory) leaves no partial file
  int ctype[1] = {TB_BLOCK_CONTACT}, cdim[1] = {3};
  tbProblem c = {3, 1, A, b, lo, hi, ctype, adr, cdim, mu, ang, TB_CONE_EXACT, 8, 0, nullptr};
  fs::create_directory(t.dir / "taken.dat");
  std::string taken = (t.dir / "taken.dat").string();
  EXPECT_EQ(tb_writeFC3D(taken.c_str(), &c), TB_ERR_ARG);
  EXPECT_TRUE(fs::is_directory(taken));
  EXPECT_FALSE(fs::exists(taken + ".part"));
  EXPECT_EQ(tb_writeFC3D(out.c_str(), &c), TB_OK) << tb_lastError();  // and a free name works
}

TEST(ReaderTest, TextLayouts) {
  TempDir t;
  // LCP, M = [[1, 3], [2, 4]] written as Siconos writes it (column after column)
  std::string p = t.write("lcp.dat", "2\n0\n2\n2\n2\t2\n1 2\n3 4\n-1 -2\n\nA remark line\n");
  tbFileProblem fp;
  ASSERT_EQ(tb_readProblem(p.c_str(), &fp), TB_OK) << tb_lastError();
  EXPECT_EQ(fp.kind, TB_FILE_LCP);
  EXPECT_EQ(fp.n, 2);
  EXPECT_EQ(fp.ncontact, 0);
  EXPECT_EQ(fp.mu, nullptr);
  EXPECT_EQ(fp.has_solution, 0);
  EXPECT_EQ(std::vector<double>(fp.W, fp.W + 4), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_EQ(std::vector<double>(fp.q, fp.q + 2), (std::vector<double>{-1, -2}));
  tbProblem v = tb_fileProblemView(&fp);
  EXPECT_EQ(v.nblock, 2);
  EXPECT_EQ(v.blk_type[1], TB_BLOCK_BOX);
  EXPECT_EQ(v.lo[1], 0.0);
  EXPECT_EQ(v.hi[1], INFINITY);
  tb_freeFileProblem(&fp);
  EXPECT_EQ(fp.W, nullptr);

  // FC3D, 2 contacts, dense, then the same as a sparse block matrix with 3 blocks
  // W(i, j) = 10 i + j + 1 off the zero block (0..2, 3..5)
  auto w = [](int i, int j) { return (i < 3 && j >= 3) ? 0.0 : 10.0 * i + j + 1; };
  std::ostringstream dense, sbm;
  dense << "3\n2\n0\n6\n6\n6\t6\n";
  for (int j = 0; j < 6; j++)
    for (int i = 0; i < 6; i++) dense << w(i, j) << (i == 5 ? "\n" : " ");
  sbm << "3\n2\n1\n6\n6\n3\n2\n2\n3\t6\t\n3\t6\t\n3\n3\n0\t1\t3\t\n0\t0\t1\t\n";
  int blocks[3][2] = {{0, 0}, {1, 0}, {1, 1}};
  for (int b = 0; b < 3; b++) {
    sbm << b << "\n";
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) sbm << w(3 * blocks[b][0] + i, 3 * blocks[b][1] + j) << "\n";
  }
  for (auto* s : {&dense, &sbm}) *s << "1 2 3 4 5 6\n0.5 0.25\n0\n";
  for (const std::string& text : {dense.str(), sbm.str()}) {
    std::string path = t.write("fc.dat", text);
    ASSERT_EQ(tb_readProblem(path.c_str(), &fp), TB_OK) << tb_lastError();
    EXPECT_EQ(fp.kind, TB_FILE_FC3D);
    EXPECT_EQ(fp.ncontact, 2);
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) EXPECT_EQ(fp.W[i * 6 + j], w(i, j)) << i << " " << j;
    EXPECT_EQ(fp.q[5], 6.0);
    EXPECT_EQ(fp.mu[1], 0.25);
    tbProblem p2 = tb_fileProblemView(&fp);
    EXPECT_EQ(p2.nblock, 2);
    EXPECT_EQ(p2.blk_type[1], TB_BLOCK_CONTACT);
    EXPECT_EQ(p2.blk_adr[1], 3);
    EXPECT_EQ(p2.blk_dim[1], 3);
    EXPECT_EQ(p2.blk_mu[1], 0.25);
    tb_freeFileProblem(&fp);
  }
}

// FCLib local W in each sparse form, and a global problem against its dense local form
TEST(ReaderTest, FclibForms) {
  TempDir t;
  const int nc = 2, n = 6;
  std::vector<double> W(n * n, 0.0), q = {-1, 0.5, 0.25, -2, 0, 1}, mu = {0.3, 0.7};
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if ((i + 2 * j) % 3 != 1) W[i * n + j] = 1.0 / (1 + i) + 0.125 * j;
  for (int form : {5, -1, -2}) {
    SCOPED_TRACE(form);
    std::string p = writeLocal(t, "local.hdf5", nc, W, q, mu, form);
    tbFileProblem fp;
    ASSERT_EQ(tb_readProblem(p.c_str(), &fp), TB_OK) << tb_lastError();
    EXPECT_EQ(fp.n, n);
    EXPECT_EQ(fp.global, 0);
    EXPECT_EQ(fp.has_solution, 0);
    EXPECT_EQ(std::vector<double>(fp.W, fp.W + n * n), W);
    EXPECT_EQ(std::vector<double>(fp.q, fp.q + n), q);
    EXPECT_EQ(std::vector<double>(fp.mu, fp.mu + nc), mu);
    tb_freeFileProblem(&fp);
  }

  // global: M = diag(2, 4, ..), H (4 x 6), f, w: W = H^T M^-1 H, q = H^T M^-1 f + w
  const int nv = 4;
  std::vector<double> M(nv * nv, 0.0), H(nv * n, 0.0), f = {1, -2, 0.5, 3}, w = q;
  for (int i = 0; i < nv; i++) M[i * nv + i] = 2.0 * (i + 1);
  M[0 * nv + 1] = M[1 * nv + 0] = 0.5;
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < n; j++) H[i * n + j] = ((i * 7 + j * 3) % 5) - 2.0;
  std::string p = (t.dir / "global.hdf5").string();
  writeGlobal(
      p,
      [&](hid_t h) {
        h5matrix(h, "/fclib_global/M", nv, nv, M, 3);
        h5matrix(h, "/fclib_global/H", nv, n, H, 3);
      },
      f, w, mu);
  tbFileProblem fp;
  ASSERT_EQ(tb_readProblem(p.c_str(), &fp), TB_OK) << tb_lastError();
  EXPECT_EQ(fp.global, 1);
  ASSERT_EQ(fp.n, n);
  // reference: Minv by the 2 x 2 block inverse (M is block diagonal)
  std::vector<double> Mi(nv * nv, 0.0);
  double det = M[0] * M[5] - M[1] * M[4];
  Mi[0] = M[5] / det;
  Mi[5] = M[0] / det;
  Mi[1] = Mi[4] = -M[1] / det;
  for (int i = 2; i < nv; i++) Mi[i * nv + i] = 1.0 / M[i * nv + i];
  for (int a = 0; a < n; a++) {
    double qa = w[a];
    for (int k = 0; k < nv; k++)
      for (int l = 0; l < nv; l++) qa += H[k * n + a] * Mi[k * nv + l] * f[l];
    EXPECT_NEAR(fp.q[a], qa, 1e-12) << a;
    for (int b = 0; b < n; b++) {
      double s = 0.0;
      for (int k = 0; k < nv; k++)
        for (int l = 0; l < nv; l++) s += H[k * n + a] * Mi[k * nv + l] * H[l * n + b];
      EXPECT_NEAR(fp.W[a * n + b], s, 1e-12) << a << " " << b;
    }
  }
  tb_freeFileProblem(&fp);
}

// a global problem of a size a dense reader could not take in a test (12000 velocities: the
// dense Cholesky alone is 6e11 flops): M block diagonal (a 3 x 3 SPD block per body), each
// contact's H columns on two bodies; W and q against the blocks' inverses
TEST(ReaderTest, LargeGlobalProblemStaysSparse) {
  const int nbody = 4000, nv = 3 * nbody, nc = 1000, n = 3 * nc;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<int> mi, mj, hi, hj;
  std::vector<double> mx, hx, f(nv), w(n), mu(nc, 0.3);
  std::vector<std::array<double, 9>> Minv(nbody);
  for (int b = 0; b < nbody; b++) {
    double a[9];  // B B^T + I: SPD
    double B[9];
    for (double& v : B) v = U(rng);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        a[3 * r + c] = (r == c);
        for (int k = 0; k < 3; k++) a[3 * r + c] += B[3 * r + k] * B[3 * c + k];
        mi.push_back(3 * b + r);
        mj.push_back(3 * b + c);
        mx.push_back(a[3 * r + c]);
      }
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                 a[2] * (a[3] * a[7] - a[4] * a[6]);
    for (int r = 0; r < 3; r++)  // the adjugate's entries over det (a is symmetric)
      for (int c = 0; c < 3; c++) {
        int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        Minv[b][3 * c + r] =
            (a[3 * r1 + c1] * a[3 * r2 + c2] - a[3 * r1 + c2] * a[3 * r2 + c1]) / det;
      }
  }
  std::vector<std::array<int, 2>> bodies(nc);
  std::vector<double> Hd((size_t)nc * 2 * 9);  // contact k, body side s: 3 x 3 rows of H
  for (int k = 0; k < nc; k++) {
    int b0 = (int)(rng() % nbody), b1 = (int)(rng() % (nbody - 1));
    bodies[k] = {b0, b1 + (b1 >= b0)};
    for (int s = 0; s < 2; s++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double v = U(rng);
          Hd[(size_t)k * 18 + 9 * s + 3 * r + c] = v;
          hi.push_back(3 * bodies[k][s] + r);
          hj.push_back(3 * k + c);
          hx.push_back(v);
        }
  }
  for (double& v : f) v = U(rng);
  for (double& v : w) v = U(rng);
  TempDir t;
  std::string p = (t.dir / "big.hdf5").string();
  writeGlobal(
      p,
      [&](hid_t h) {
        h5sparse(h, "/fclib_global/M", nv, nv, (int)mx.size(), mj, mi, mx);
        h5sparse(h, "/fclib_global/H", nv, n, (int)hx.size(), hj, hi, hx);
      },
      f, w, mu);
  tbFileProblem fp;
  ASSERT_EQ(tb_readProblem(p.c_str(), &fp), TB_OK) << tb_lastError();
  ASSERT_EQ(fp.n, n);
  // the reference: W(a, b) sums, over the bodies contacts k(a) and l(b) share, Ha^T Minv Hb
  std::vector<double> ref((size_t)n * n, 0.0), q(w);
  auto col = [&](int k, int s, int c, int r) { return Hd[(size_t)k * 18 + 9 * s + 3 * r + c]; };
  for (int k = 0; k < nc; k++)
    for (int s = 0; s < 2; s++) {
      const auto& Mi = Minv[bodies[k][s]];
      for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
          for (int r2 = 0; r2 < 3; r2++)
            q[3 * k + c] += col(k, s, c, r) * Mi[3 * r + r2] * f[3 * bodies[k][s] + r2];
      for (int l = 0; l < nc; l++)
        for (int s2 = 0; s2 < 2; s2++) {
          if (bodies[l][s2] != bodies[k][s]) continue;
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
              double v = 0.0;
              for (int r = 0; r < 3; r++)
                for (int r2 = 0; r2 < 3; r2++)
                  v += col(k, s, a, r) * Mi[3 * r + r2] * col(l, s2, b, r2);
              ref[(size_t)(3 * k + a) * n + 3 * l + b] += v;
            }
        }
    }
  double werr = 0.0, wmax = 0.0, qerr = 0.0, qmax = 0.0;
  int asym = 0;
  for (int a = 0; a < n; a++) {
    qerr = std::max(qerr, std::fabs(fp.q[a] - q[a]));
    qmax = std::max(qmax, std::fabs(q[a]));
    for (int b = 0; b < n; b++) {
      werr = std::max(werr, std::fabs(fp.W[(size_t)a * n + b] - ref[(size_t)a * n + b]));
      wmax = std::max(wmax, std::fabs(ref[(size_t)a * n + b]));
      asym += !sameBits(fp.W[(size_t)a * n + b], fp.W[(size_t)b * n + a]);
    }
  }
  EXPECT_LE(werr, 1e-11 * wmax);
  EXPECT_LE(qerr, 1e-11 * qmax);
  EXPECT_EQ(asym, 0);
  tb_freeFileProblem(&fp);
}

//---- bad input ---------------------------------------------------------------------------------

TEST(ReaderTest, MalformedText) {
  TempDir t;
  expectError((t.dir / "nope.dat").string(), {"nope.dat", "cannot open"});
  expectError(t.write("empty.dat", "  \n\n"), {"empty.dat", "empty file"});

  // the valid file reads; every truncation of it at a token boundary fails cleanly
  std::string good = kFc3dText;
  {
    tbFileProblem fp;
    std::string p = t.write("good.dat", good);
    ASSERT_EQ(tb_readProblem(p.c_str(), &fp), TB_OK) << tb_lastError();
    EXPECT_EQ(fp.W[1], -1.0);
    EXPECT_EQ(fp.mu[0], 0.1);
    tb_freeFileProblem(&fp);
  }
  std::vector<size_t> cuts;
  for (size_t k = 1; k < good.size(); k++)
    if (good[k] == '\n' || good[k] == ' ' || good[k] == '\t') cuts.push_back(k);
  int ntrunc = 0;
  for (size_t cut : cuts) {
    std::string text = good.substr(0, cut);
    if (text.find("0.1") != std::string::npos) continue;  // mu complete: the rest is ignored
    SCOPED_TRACE(text);
    expectError(t.write("trunc.dat", text), {"trunc.dat", "unexpected end of file"});
    ntrunc++;
  }
  EXPECT_GE(ntrunc, 15);
  // the message names the first missing field
  expectError(t.write("t1.dat", "3\n1\n0\n3\n3\n3 3\n15 -1 -2\n-1 14\n"),
              {"t1.dat", "W(2, 1) (value 6 of 9)", "unexpected end of file"});
  expectError(t.write("t2.dat", "3\n1\n0\n3\n3\n3 3\n15 -1 -2 -1 14 1 -2 1 16\n-1 2 3\n"),
              {"t2.dat", "mu[0]", "unexpected end of file"});

  auto edit = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  expectError(t.write("word.dat", edit("14 1", "14 abc")),
              {"word.dat", "W(2, 1)", "line 8", "not a number 'abc'"});
  expectError(t.write("nan.dat", edit("14 1", "14 nan")), {"nan.dat", "W(2, 1)", "not finite"});
  expectError(t.write("inf.dat", edit("-1 2 3", "-1 inf 3")), {"inf.dat", "q[1]", "not finite"});
  expectError(t.write("big.dat", edit("-1 2 3", "-1 1e999 3")), {"big.dat", "q[1]", "not finite"});
  expectError(t.write("neg.dat", edit("0.1", "-0.1")),
              {"neg.dat", "mu[0]", "line 11", "must be >= 0"});
  expectError(t.write("mu.dat", edit("0.1", "0.1x")), {"mu.dat", "mu[0]", "not a number"});
  expectError(t.write("st7.dat", edit("3\n1\n0\n", "3\n1\n7\n")),
              {"st7.dat", "W storage type", "line 3", "storage type 7"});
  expectError(t.write("nc.dat", edit("3\n1\n0\n", "3\n-1\n0\n")), {"nc.dat", "nc = -1"});
  expectError(t.write("size.dat", edit("3\n1\n0\n3\n3\n3\t3", "3\n1\n0\n6\n6\n6\t6")),
              {"size.dat", "W size0", "size0 = 6: must be 3 * nc = 3"});
  expectError(t.write("neg0.dat", edit("3\n1\n0\n3\n", "3\n1\n0\n-3\n")),
              {"neg0.dat", "size0 = -3"});
  expectError(t.write("rep.dat", edit("3\t3", "3\t4")), {"rep.dat", "must repeat size1 = 3"});
  expectError(t.write("int.dat", edit("3\n1\n0\n3\n3\n", "3\n1\n0\n3.5\n3\n")),
              {"int.dat", "W size0", "not an integer '3.5'"});
  // LCP headers
  expectError(t.write("lcpn.dat", "-2\n0\n-2\n-2\n"), {"lcpn.dat", "n = -2", "must be in [1"});
  expectError(t.write("lcps.dat", "2\n0\n3\n3\n3 3\n"), {"lcps.dat", "M size0", "n = 2"});
  expectError(t.write("lcp7.dat", "2\n2\n2\n2\n"), {"lcp7.dat", "storage type 2"});
  expectError(t.write("lcpq.dat", "2\n0\n2\n2\n2 2\n1 0 0 1\n-1\n"),
              {"lcpq.dat", "q[1]", "unexpected end of file"});
  expectError(t.write("bin.dat", std::string("2\n0\n2\n2\n2 2\n1 0\0 0 1\n-1 -1\n", 26)),
              {"bin.dat", "M(1, 0)", "not a number"});

  // sparse block matrices (one contact, one 3 x 3 block)
  std::string sbm =
      "3\n1\n1\n3\n3\n1\n1\n1\n3\n3\n2\n1\n0 1\n0\n0\n1 0 0 0 1 0 0 0 1\n1 2 3\n0.5\n";
  {
    tbFileProblem fp;
    std::string p = t.write("sbm.dat", sbm);
    ASSERT_EQ(tb_readProblem(p.c_str(), &fp), TB_OK) << tb_lastError();
    EXPECT_EQ(fp.W[4], 1.0);
    EXPECT_EQ(fp.W[1], 0.0);
    tb_freeFileProblem(&fp);
  }
  auto sedit = [&](const std::string& from, const std::string& to) {
    std::string s = sbm;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  expectError(t.write("s1.dat", sedit("\n0\n0\n1 0 0", "\n0\n4\n1 0 0")),
              {"s1.dat", "W block 0 number", "4: blocks must come in order"});
  expectError(t.write("s2.dat", sedit("\n0 1\n0\n", "\n0 1\n2\n")),
              {"s2.dat", "W index2[0]", "block column 2"});
  expectError(t.write("s3.dat", sedit("3\n3\n2\n1\n", "3\n2\n2\n1\n")),
              {"s3.dat", "W blocksize1[0]", "must be 3 * nc = 3"});
  expectError(t.write("s4.dat", sedit("1 0 0 0 1 0 0 0 1", "1 0 0 0 x 0 0 0 1")),
              {"s4.dat", "W block 0 value 4 (entry 1, 1)", "not a number 'x'"});
  expectError(t.write("s5.dat", sedit("3\n3\n2\n1\n", "3\n3\n5\n1\n")),
              {"s5.dat", "W filled1", "must be block rows + 1 = 2"});
  expectError(t.write("s6.dat", sbm.substr(0, sbm.find("0 0 1\n"))),
              {"s6.dat", "W block 0 value 6 (entry 0, 2)", "unexpected end of file"});
}

// a fuzzed file on which libhdf5 itself copies through a null pointer (H5F__accum_read under
// H5Lexists, HDF5 1.10): read in a child process, it is this file's error ("HDF5 crashed reading
// it (signal 11)"; under ASan the child's report is printed and it exits 1) and the caller goes
// on. A libhdf5 without the defect refuses the file with an error of its own, also one line.
TEST(ReaderTest, FileThatCrashesLibhdf5IsAnError) {
  std::string p = std::string(TUMBLE_TEST_FILES) + "/hdf5/libhdf5-null-read.hdf5";
  expectError(p, {"libhdf5-null-read.hdf5: "});
  // the reader is whole afterwards: a good file reads
  TempDir t;
  std::vector<double> W = {2, 0, 0, 0, 2, 0, 0, 0, 2}, q = {-1, 0, 0}, mu = {0.3};
  tbFileProblem fp;
  ASSERT_EQ(tb_readProblem(writeLocal(t, "good.hdf5", 1, W, q, mu, -2).c_str(), &fp), TB_OK)
      << tb_lastError();
  EXPECT_EQ(fp.n, 3);
  EXPECT_EQ(fp.W[4], 2.0);
  EXPECT_EQ(fp.mu[0], 0.3);
  tb_freeFileProblem(&fp);
}

TEST(ReaderTest, MalformedHdf5) {
  TempDir t;
  std::vector<double> W(36, 0.0), q(6, 1.0), mu = {0.5, 0.5};
  for (int i = 0; i < 6; i++) W[i * 6 + i] = 1.0;
  // no FCLib group
  std::string p = (t.dir / "empty.hdf5").string();
  H5Fclose(H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  expectError(p, {"empty.hdf5", "missing group /fclib_local or /fclib_global"});
  // a missing dataset or group member, named with its HDF5 path
  expectError(writeLocal(t, "noq.hdf5", 2, W, q, mu, -2, "q"),
              {"noq.hdf5", "/fclib_local/vectors/q", "missing dataset"});
  expectError(writeLocal(t, "nomu.hdf5", 2, W, q, mu, -2, "mu"),
              {"nomu.hdf5", "/fclib_local/vectors/mu", "missing dataset"});
  expectError(writeLocal(t, "now.hdf5", 2, W, q, mu, -1, "W"),
              {"now.hdf5", "/fclib_local/W/m", "missing dataset"});
  expectError(writeLocal(t, "nodim.hdf5", 2, W, q, mu, -1, "spacedim"),
              {"nodim.hdf5", "/fclib_local/spacedim", "missing dataset"});
  // bad values
  expectError(writeLocal(t, "negmu.hdf5", 2, W, q, {0.5, -0.5}, -2),
              {"negmu.hdf5", "/fclib_local/vectors/mu[1]", "must be >= 0"});
  expectError(writeLocal(t, "shortq.hdf5", 2, W, {1, 2, 3}, mu, -2),
              {"shortq.hdf5", "/fclib_local/vectors/q", "3 entries: must be 6"});
  std::vector<double> Wn = W;
  Wn[7] = NAN;
  expectError(writeLocal(t, "nan.hdf5", 2, Wn, q, mu, -2),
              {"nan.hdf5", "/fclib_local/W/x[1]", "not finite"});
  std::vector<double> qi = q;
  qi[4] = INFINITY;
  expectError(writeLocal(t, "inf.hdf5", 2, W, qi, mu, 3),
              {"inf.hdf5", "/fclib_local/vectors/q[4]", "not finite"});
  // an index out of range, a bad nz
  p = writeLocal(t, "idx.hdf5", 2, W, q, mu, 3);
  hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/fclib_local/W/i", H5P_DEFAULT);
  std::vector<int> ix = {0, 1, 2, 3, 4, 9};
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ix.data());
  H5Dclose(d);
  H5Fclose(f);
  expectError(p, {"idx.hdf5", "/fclib_local/W/i[5]", "row index 9 outside [0, 6)"});
  p = writeLocal(t, "nz.hdf5", 2, W, q, mu, -1);
  f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  d = H5Dopen2(f, "/fclib_local/W/nz", H5P_DEFAULT);
  int bad = -5;
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &bad);
  H5Dclose(d);
  H5Fclose(f);
  expectError(p, {"nz.hdf5", "/fclib_local/W/nz", "-5: must be"});
  // numbers of 32 bytes: HDF5 converts through an np x 32 byte buffer (a fuzzed width asked it
  // for terabytes); no integer or float type is that wide
  p = (t.dir / "wide.hdf5").string();
  f = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5group(f, "/fclib_local");
  hid_t wide = H5Tcopy(H5T_STD_I64LE);
  H5Tset_precision(wide, 256);
  hsize_t one = 1;
  hid_t sp = H5Screate_simple(1, &one, nullptr);
  d = H5Dcreate2(f, "/fclib_local/spacedim", wide, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(d, 0);
  H5Dclose(d);
  H5Sclose(sp);
  H5Tclose(wide);
  H5Fclose(f);
  expectError(p, {"wide.hdf5", "/fclib_local/spacedim", "numbers of 32 bytes"});
  // W not square per contact
  std::vector<double> W5(25, 1.0);
  p = (t.dir / "w5.hdf5").string();
  f = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5group(f, "/fclib_local");
  h5put(f, "/fclib_local/spacedim", std::vector<int>{3});
  h5matrix(f, "/fclib_local/W", 5, 5, W5, -2);
  H5Fclose(f);
  expectError(p, {"w5.hdf5", "/fclib_local/W", "5 x 5"});
  // a global problem whose M is not positive definite
  p = (t.dir / "global.hdf5").string();
  writeGlobal(p,
              [](hid_t h) {
                h5matrix(h, "/fclib_global/M", 3, 3, {1, 0, 0, 0, -1, 0, 0, 0, 1}, 3);
                h5matrix(h, "/fclib_global/H", 3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}, 3);
              },
              {0, 0, 0}, {0, 0, 0}, {0.1});
  expectError(p, {"global.hdf5", "/fclib_global/M row 1", "not positive definite"});
  // and one whose M is not symmetric
  f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(f, "/fclib_global/M", H5P_DEFAULT);
  h5matrix(f, "/fclib_global/M", 3, 3, {2, 0, 0, 0.5, 2, 0, 0, 0, 2}, -1);
  H5Fclose(f);
  expectError(p, {"global.hdf5", "/fclib_global/M(1, 0)", "not symmetric"});
  // the bound is 1e-10 of M's largest entry (3 here), not of a row sum (5)
  f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(f, "/fclib_global/M", H5P_DEFAULT);
  h5matrix(f, "/fclib_global/M", 3, 3, {3, 1, 1, 1 + 4e-10, 3, 1, 1, 1, 3}, -1);
  H5Fclose(f);
  expectError(p, {"global.hdf5", "/fclib_global/M(1, 0)", "not symmetric"});
  // a truncated HDF5 file: the signature, then nothing usable
  std::string whole;
  {
    std::ifstream in(writeLocal(t, "full.hdf5", 2, W, q, mu, -2), std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  expectError(t.write("cut.hdf5", whole.substr(0, whole.size() / 3)), {"cut.hdf5"});
}

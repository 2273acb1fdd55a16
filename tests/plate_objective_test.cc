// Plate-motion design (host/jobs/plate_objective.c, host/cli/cli_plate_optimize.c): the trajectory
// objective (exact value for a plate at rest, determinism across batch positions, table targets),
// short optimizer runs that never report worse than the start, and `tumble plate optimize` on good
// and bad command lines.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tumble/optimize.h>
#include <tumble/plate.h>

#include "cli_runner.h"

namespace {

tbPlateObjOpt ShortOpt(int target, double* x0, int K = 2, double horizon = 0.5) {
  tbPlateObjOpt o = tb_defaultPlateObjOpt(target, x0);
  o.nstart = K;
  o.horizon = horizon;
  return o;
}

struct ObjHolder {
  tbPlateObj* ob;
  explicit ObjHolder(const tbPlateObjOpt& o) : ob(tb_newPlateObj(&o)) {}
  ~ObjHolder() { tb_freePlateObj(ob); }
};

TEST(PlateObjectiveTest, DefaultsFollowTheThesis) {
  double x0[12];
  tbPlateObjOpt c = tb_defaultPlateObjOpt(TB_PLATE_TARGET_CIRCLE, x0);
  ASSERT_EQ(c.dim, 3);
  EXPECT_EQ(c.index[0], 5);  // A6
  EXPECT_EQ(c.index[1], 2);  // A3
  EXPECT_EQ(c.index[2], 8);  // C3
  EXPECT_DOUBLE_EQ(x0[0], 100.0);
  EXPECT_DOUBLE_EQ(x0[1], 8.0);
  EXPECT_DOUBLE_EQ(x0[2], 1.5 * M_PI);
  EXPECT_DOUBLE_EQ(c.dt, 5e-4);
  EXPECT_DOUBLE_EQ(c.horizon, 6.0);
  tbPlateObjOpt s = tb_defaultPlateObjOpt(TB_PLATE_TARGET_SADDLE, x0);
  ASSERT_EQ(s.dim, 12);
  const double a[6] = {8, 0.5, -5, -1.5, 0, 0}, cc[6] = {150, 1.5, 80, 5.5, 0, 0};
  for (int i = 0; i < 6; i++) {
    EXPECT_DOUBLE_EQ(x0[i], a[i]);
    // phases wrapped into [-pi, pi): the same motion
    EXPECT_GE(x0[6 + i], -M_PI);
    EXPECT_LT(x0[6 + i], M_PI);
    EXPECT_NEAR(std::sin(x0[6 + i]), std::sin(cc[i]), 1e-12);
    EXPECT_NEAR(std::cos(x0[6 + i]), std::cos(cc[i]), 1e-12);
  }
}

TEST(PlateObjectiveTest, StartsCoverTheStatedRegions) {
  double x0[12];
  tbPlateObjOpt c = tb_defaultPlateObjOpt(TB_PLATE_TARGET_CIRCLE, x0);
  c.nstart = 5;
  std::vector<double> st(10);
  tb_plateTargetStarts(&c, st.data());
  for (int k = 0; k < 5; k++) {
    double r = std::hypot(st[2 * k], st[2 * k + 1]);
    EXPECT_NEAR(r, 0.04 + 0.01 * k, 1e-12);
  }
  tbPlateObjOpt s = tb_defaultPlateObjOpt(TB_PLATE_TARGET_SADDLE, x0);
  s.nstart = 16;
  st.assign(32, 0.0);
  tb_plateTargetStarts(&s, st.data());
  for (int k = 0; k < 16; k++) {
    EXPECT_GE(st[2 * k], -0.05);
    EXPECT_LE(st[2 * k], 0.05);
    EXPECT_GE(st[2 * k + 1], -0.05);
    EXPECT_LE(st[2 * k + 1], 0.05);
    for (int q = 0; q < k; q++) {
      EXPECT_GT(std::hypot(st[2 * k] - st[2 * q], st[2 * k + 1] - st[2 * q + 1]), 1e-3);
    }
  }
}

// with every amplitude zero the plate is still and the particle rests at its start: p(t) = p0,
// v = 0, so the objective is sum |p0 - p*(t)| + |v*(p0)| exactly
TEST(PlateObjectiveTest, PlateAtRestGivesTheAnalyticValue) {
  for (int target : {TB_PLATE_TARGET_CIRCLE, TB_PLATE_TARGET_SADDLE}) {
    tbPlateObjOpt o = ShortOpt(target, nullptr, 3, 1.0);
    o.dim = 12;
    for (int i = 0; i < 12; i++) o.index[i] = i;
    ObjHolder h(o);
    ASSERT_NE(h.ob, nullptr);
    double x[12] = {0}, f = -1;
    ASSERT_EQ(tb_plateObjective(h.ob, 1, x, &f), 0);
    std::vector<double> st(6);
    tb_plateTargetStarts(&o, st.data());
    double want = 0.0;
    for (int k = 0; k < 3; k++) {
      double px = st[2 * k], py = st[2 * k + 1];
      for (int j = 1; j <= 4; j++) {
        double t = 0.25 * j, qx, qy, vx, vy;
        if (target == TB_PLATE_TARGET_CIRCLE) {
          qx = std::cos(0.15 * t) * px - std::sin(0.15 * t) * py;
          qy = std::sin(0.15 * t) * px + std::cos(0.15 * t) * py;
          vx = -0.15 * py;
          vy = 0.15 * px;
        } else {
          qx = px * std::exp(-0.2 * t);
          qy = py * std::exp(0.2 * t);
          vx = -0.2 * px;
          vy = 0.2 * py;
        }
        want += std::hypot(px - qx, py - qy) + std::hypot(vx, vy);
      }
    }
    EXPECT_NEAR(f, want, 1e-9 * want + 1e-12) << "target " << target;
  }
}

TEST(PlateObjectiveTest, SameCandidateSameValueAtEveryBatchPosition) {
  double x0[12];
  tbPlateObjOpt o = ShortOpt(TB_PLATE_TARGET_CIRCLE, x0, 2, 0.5);
  ObjHolder h(o);
  ASSERT_NE(h.ob, nullptr);
  double x1[3] = {60.0, 12.0, 6.0};
  std::vector<double> batch;
  for (int i = 0; i < 6; i++) {
    const double* c = i % 2 ? x1 : x0;
    batch.insert(batch.end(), c, c + 3);
  }
  std::vector<double> f(6, -1.0);
  ASSERT_EQ(tb_plateObjective(h.ob, 6, batch.data(), f.data()), 0);
  double single = -1.0;
  ASSERT_EQ(tb_plateObjective(h.ob, 1, x0, &single), 0);
  ASSERT_TRUE(std::isfinite(f[0]));
  ASSERT_TRUE(std::isfinite(f[1]));
  EXPECT_GT(f[0], 0.0);
  EXPECT_NE(f[0], f[1]);
  for (int i = 0; i < 6; i++) EXPECT_EQ(f[i], f[i % 2]) << "position " << i;
  EXPECT_EQ(single, f[0]);
}

// a table holding the saddle field on a grid over [-5, 5]^2 cm (the same starts as the saddle
// target) gives nearly the saddle's objective
TEST(PlateObjectiveTest, TableTargetMatchesTheAnalyticField) {
  double x0[12];
  tbPlateObjOpt s = ShortOpt(TB_PLATE_TARGET_SADDLE, x0, 3, 0.5);
  std::vector<double> pts;
  const int g = 81;
  for (int j = 0; j < g; j++) {
    for (int i = 0; i < g; i++) {
      double x = -0.05 + 0.1 * i / (g - 1), y = -0.05 + 0.1 * j / (g - 1);
      pts.insert(pts.end(), {x, y, -0.2 * x, 0.2 * y});
    }
  }
  tbPlateObjOpt t = s;
  t.target = TB_PLATE_TARGET_TABLE;
  t.point = pts.data();
  t.npoint = g * g;
  ObjHolder hs(s), ht(t);
  ASSERT_NE(hs.ob, nullptr);
  ASSERT_NE(ht.ob, nullptr);
  double fs = -1, ft = -1;
  ASSERT_EQ(tb_plateObjective(hs.ob, 1, x0, &fs), 0);
  ASSERT_EQ(tb_plateObjective(ht.ob, 1, x0, &ft), 0);
  ASSERT_TRUE(std::isfinite(fs));
  EXPECT_NEAR(ft, fs, 0.01 * fs);
}

TEST(PlateObjectiveTest, ShortRunsNeverEndAboveTheStart) {
  for (int cma = 0; cma < 2; cma++) {
    double x0[12];
    tbPlateObjOpt o = ShortOpt(TB_PLATE_TARGET_CIRCLE, x0, 2, 0.5);
    ObjHolder h(o);
    ASSERT_NE(h.ob, nullptr);
    double f0 = -1;
    ASSERT_EQ(tb_plateObjective(h.ob, 1, x0, &f0), 0);
    tbOptimDef def = tb_defaultOptimDef(o.dim);
    const double lo[3] = {-500, -500, -4 * M_PI}, hi[3] = {500, 500, 4 * M_PI};
    const double step[3] = {10, 1, 0.5};
    def.x0 = x0;
    def.lo = lo;
    def.hi = hi;
    def.step = step;
    def.max_evals = 20;
    double xb[3];
    tbOptimResult res;
    int st = cma ? tb_cmaes(&def, tb_plateObjective, h.ob, xb, &res)
                 : tb_nelderMead(&def, tb_plateObjective, h.ob, xb, &res);
    ASSERT_GE(st, 0);
    EXPECT_EQ(res.evaluations, 20);
    if (!cma) {
      EXPECT_LE(res.f, f0);  // NM evaluates the start itself
    }
    double fb = -1;
    ASSERT_EQ(tb_plateObjective(h.ob, 1, xb, &fb), 0);
    EXPECT_EQ(fb, res.f) << "the reported best is the value of the reported point";
  }
}

//---- the command line --------------------------------------------------------------------------

double JsonNumber(const std::string& json, const std::string& key) {
  size_t p = json.find("\"" + key + "\": ");
  if (p == std::string::npos) return NAN;
  return std::strtod(json.c_str() + p + key.size() + 4, nullptr);
}

class PlateOptimizeCliTest : public CliFixture {
 protected:
  // exit status; stdout and stderr into out/err
  int Run(const std::vector<std::string>& args, std::string* out, std::string* err) {
    std::vector<std::string> full = {"plate", "optimize"};
    full.insert(full.end(), args.begin(), args.end());
    // one thread: a batch of a few scenes is too small to share
    CliResult r = RunCli(full, "OMP_NUM_THREADS=1 ");
    *out = r.out;
    *err = r.err;
    return r.status;
  }
  int FileCount() const {
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator(dir_)) {
      std::string name = e.path().filename();
      n += name != ".stderr" && name != "bad.csv";
    }
    return n;
  }
};

TEST_F(PlateOptimizeCliTest, BadInputExits2WithOneLineAndNoFiles) {
  {
    std::ofstream bad(dir_ + "/bad.csv");
    bad << "x,y,vx,vy\n0,0,1,1\n0.01,0.02,abc,1\n";
  }
  struct Case {
    std::vector<std::string> args;
    std::string names;
  } cases[] = {
      {{"--target", "spiral"}, "spiral"},
      {{"--target", dir_ + "/missing.csv"}, "missing.csv"},
      {{"--target", dir_ + "/bad.csv"}, "bad.csv:3"},
      {{"--target", "circle", "--starts", "0"}, "--starts"},
      {{"--target", "circle", "--starts", "-3"}, "--starts"},
      {{"--target", "circle", "--budget", "0"}, "--budget"},
      {{"--target", "circle", "--budget", "-1"}, "--budget"},
      {{"--target", "circle", "--optimizer", "bfgs"}, "bfgs"},
      {{"--target", "circle", "--evals", "0"}, "--evals"},
      {{"--target", "circle", "--horizon", "0.1"}, "--horizon"},
      {{"--target", "circle", "--dt", "0"}, "--dt"},
      {{"--target", "circle", "--mu", "-1"}, "--mu"},
      {{"--target", "circle", "--bogus", "1"}, "--bogus"},
      {{"--optimizer", "cmaes"}, "--target"},
      {{"--target"}, "--target"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"--out", dir_ + "/o", "--horizon", "0.5", "--evals", "5"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::string out, err;
    int st = Run(args, &out, &err);
    std::string desc = c.args[0] + (c.args.size() > 1 ? " " + c.args[1] : "");
    EXPECT_EQ(st, 2) << desc << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << desc << ": " << err;
    EXPECT_EQ(err.rfind("tumble: error: ", 0), 0u) << desc << ": " << err;
    EXPECT_NE(err.find(c.names), std::string::npos) << desc << ": " << err;
    EXPECT_TRUE(out.empty()) << desc << ": " << out;
    EXPECT_EQ(FileCount(), 0) << desc;
  }
}

TEST_F(PlateOptimizeCliTest, TinyRunWritesEverythingAndNeverEndsAboveTheStart) {
  std::string out, err, prefix = dir_ + "/opt";
  int st = Run({"--target", "circle", "--optimizer", "both", "--starts", "2", "--horizon", "0.5",
                "--evals", "20", "--out", prefix},
               &out, &err);
  ASSERT_EQ(st, 0) << err;
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  double best = JsonNumber(out, "best"), start = JsonNumber(out, "start");
  ASSERT_TRUE(std::isfinite(best)) << out;
  ASSERT_TRUE(std::isfinite(start)) << out;
  EXPECT_LE(best, start);
  EXPECT_NEAR(JsonNumber(out, "best_cm"), 100.0 * best, 1e-6 * best);
  EXPECT_EQ(JsonNumber(out, "evaluations"), 40.0) << out;
  EXPECT_NE(out.find("\"target\": \"circle\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"optimizer\": \"both\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"params\": {\"A1\": "), std::string::npos) << out;
  for (const char* suffix : {"-nelder-mead.csv", "-cmaes.csv", "-best.csv", "-field.csv"}) {
    std::string csv = ReadFile(prefix + suffix);
    EXPECT_FALSE(csv.empty()) << suffix;
    EXPECT_EQ(csv.find("nan"), std::string::npos) << suffix;
  }
  EXPECT_EQ(ReadFile(prefix + "-nelder-mead.csv").rfind("iteration,evaluations,seconds,best", 0),
            0u);
  for (const char* suffix : {".png", "-field.png"}) {
    std::string png = ReadFile(prefix + suffix);
    ASSERT_GE(png.size(), 8u) << suffix;
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << suffix;
  }
  // the history's best never increases and ends at the run's best
  std::stringstream ss(ReadFile(prefix + "-nelder-mead.csv"));
  std::string line;
  std::getline(ss, line);
  double prev = INFINITY;
  while (std::getline(ss, line)) {
    double b = std::strtod(
        line.substr(line.find(',', line.find(',', line.find(',') + 1) + 1) + 1).c_str(), nullptr);
    EXPECT_LE(b, prev) << line;
    prev = b;
  }
  std::string bestcsv = ReadFile(prefix + "-best.csv");
  EXPECT_NE(bestcsv.find("\nA6,"), std::string::npos) << bestcsv;
  EXPECT_NE(bestcsv.find("\nC6,"), std::string::npos) << bestcsv;
}

TEST_F(PlateOptimizeCliTest, TableTargetRuns) {
  {
    std::ofstream t(dir_ + "/field.csv");
    t << "# a uniform drift to +x\nx,y,vx,vy\n";
    for (int i = 0; i < 5; i++) {
      for (int j = 0; j < 5; j++) t << -0.04 + 0.02 * i << "," << -0.04 + 0.02 * j << ",0.01,0\n";
    }
  }
  std::string out, err;
  int st = Run({"--target", dir_ + "/field.csv", "--starts", "2", "--horizon", "0.5", "--evals",
                "14", "--out", dir_ + "/tab"},
               &out, &err);
  ASSERT_EQ(st, 0) << err;
  EXPECT_LE(JsonNumber(out, "best"), JsonNumber(out, "start")) << out;
  EXPECT_EQ(JsonNumber(out, "evaluations"), 14.0) << out;
}

}  // namespace

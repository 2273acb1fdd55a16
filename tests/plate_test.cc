// Vibrating-plate fields (host/jobs/plate.c, host/cli/cli_plate.c) and the rocking driver of thesis
// Eq. 5.9 (host/math/driver_geom.h, host/engine/stage_kinematic.h).
#include <gtest/gtest.h>

#include <sys/stat.h>
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

#include <tumble/plate.h>

#include "math/driver_geom.h"

#include "cli_runner.h"
#include "engine/engine.h"

namespace {

const double kAlpha = 180.0, kT = 0.03, kD = 0.05;

// theta swings between +-alpha T^2/32 (thesis [Derived]: +-5.06 mrad), its rate between
// +-alpha T/4, and the rate is the derivative of the angle; the motion has period T
TEST(PlateTest, RockingAngleSwing) {
  double lo = 1e9, hi = -1e9, rlo = 1e9, rhi = -1e9;
  const int n = 30000;
  for (int i = 0; i <= n; i++) {
    double t = kT * i / n, th, rate;
    tbu_rockingAngle(kAlpha, kT, t, &th, &rate);
    lo = std::min(lo, th);
    hi = std::max(hi, th);
    rlo = std::min(rlo, rate);
    rhi = std::max(rhi, rate);
    double th2, rate2;
    tbu_rockingAngle(kAlpha, kT, t + 7 * kT, &th2, &rate2);
    EXPECT_NEAR(th2, th, 1e-15);
    EXPECT_NEAR(rate2, rate, 1e-12);
    const double e = 1e-7;
    double a, b, ra, rb;
    tbu_rockingAngle(kAlpha, kT, t + 0.37 * kT / n + e, &a, &ra);
    tbu_rockingAngle(kAlpha, kT, t + 0.37 * kT / n - e, &b, &rb);
    double mid, rmid;
    tbu_rockingAngle(kAlpha, kT, t + 0.37 * kT / n, &mid, &rmid);
    EXPECT_NEAR((a - b) / (2 * e), rmid, 1e-6);
  }
  const double amp = kAlpha * kT * kT / 32.0;
  EXPECT_NEAR(amp, 5.0625e-3, 1e-12);
  EXPECT_NEAR(hi, amp, 1e-12);
  EXPECT_NEAR(lo, -amp, 1e-12);
  EXPECT_NEAR(rhi, kAlpha * kT / 4, 1e-12);
  EXPECT_NEAR(rlo, -kAlpha * kT / 4, 1e-12);
  double th, rate;
  tbu_rockingAngle(kAlpha, -1.0, 0.1, &th, &rate);
  EXPECT_TRUE(std::isnan(th) && std::isnan(rate));
}

// the plate stepped by the engine: the axis point (0, 0, -d) stays fixed, the body origin stays
// at distance d from it, the orientation is theta(t) about y and the velocity is that of a
// rotation about the axis; d comes from the scene's parameter (the driver's vary slot)
TEST(PlateTest, RockingPoseKeepsAxisFixed) {
  tbBuild b = tb_defaultBuild(tb_findScene("plate-particle"));
  tbModel* m = tb_buildPlateScene(0, TB_DRIVER_ROCKING, &b);
  ASSERT_NE(m, nullptr) << tb_lastError();
  tbData* d = tb_newData(m, 1);
  tb_defaultParams(m, d);
  const double depth = 0.02;
  d->param[tb_findParam(m, "d")] = depth;
  ASSERT_EQ(tb_checkParams(m, d), TB_OK) << tb_lastError();
  ASSERT_EQ(tb_resetData(m, d), TB_OK);
  int plate = tb_findBody(m, "plate");
  tbWork* w = tb_newWork(m);
  double seen_lo = 0, seen_hi = 0;
  for (int k = 0; k <= 700; k++) {
    if (k > 0) tb_stepScene(m, d, 0, w);
    const double* p = d->body_pos + plate * 3;
    const double* q = d->body_quat + plate * 4;
    const double* v = d->body_vel + plate * 6;
    double th, rate;
    tbu_rockingAngle(kAlpha, kT, d->time[0], &th, &rate);
    seen_lo = std::min(seen_lo, th);
    seen_hi = std::max(seen_hi, th);
    const double axis[3] = {0, 0, -depth};
    double r[3] = {p[0] - axis[0], p[1] - axis[1], p[2] - axis[2]};
    EXPECT_NEAR(std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), depth, 1e-15);
    EXPECT_NEAR(r[0], depth * std::sin(th), 1e-15);
    EXPECT_NEAR(r[2], depth * std::cos(th), 1e-15);
    EXPECT_NEAR(q[0], std::cos(0.5 * th), 1e-15);
    EXPECT_NEAR(q[2], std::sin(0.5 * th), 1e-15);
    EXPECT_EQ(q[1], 0.0);
    EXPECT_EQ(q[3], 0.0);
    // velocity of the plate's material point on the axis: v + w x (axis - p) = 0
    double wa[3] = {v[4] * (-r[2]) - v[5] * (-r[1]), v[5] * (-r[0]) - v[3] * (-r[2]),
                    v[3] * (-r[1]) - v[4] * (-r[0])};
    for (int i = 0; i < 3; i++) EXPECT_NEAR(v[i] + wa[i], 0.0, 1e-15);
    EXPECT_NEAR(v[4], rate, 1e-12);
  }
  EXPECT_NEAR(seen_hi, kAlpha * kT * kT / 32, 1e-5);
  EXPECT_NEAR(seen_lo, -kAlpha * kT * kT / 32, 1e-5);
  tb_freeWork(w);
  tb_freeData(d);
  tb_freeModel(m);
}

TEST(PlateTest, NamedMotions) {
  ASSERT_EQ(tb_plateMotionCount(), 5);
  const char* names[] = {"centrifuge", "circle-vose", "circle-learned", "saddle-learned",
                         "rocking"};
  for (const char* n : names) EXPECT_GE(tb_findPlateMotion(n), 0) << n;
  EXPECT_LT(tb_findPlateMotion("circle"), 0);
  const tbPlateMotion* c = tb_plateMotion(tb_findPlateMotion("centrifuge"));
  EXPECT_EQ(c->amp[3], 100.0);
  EXPECT_EQ(c->amp[4], 100.0);
  EXPECT_NEAR(c->phase[3], M_PI / 2, 1e-15);
  EXPECT_NEAR(c->phase[4], M_PI, 1e-15);
  EXPECT_NEAR(tb_plateMotionPeriod(c), 1.0 / 33.0, 1e-15);
  const tbPlateMotion* s = tb_plateMotion(tb_findPlateMotion("saddle-learned"));
  // the thesis text's order (Eq. 6.10-6.15 print translational and angular swapped)
  EXPECT_EQ(s->amp[0], 3.88479);  // p_x''
  EXPECT_EQ(s->amp[1], -4.31188);
  EXPECT_EQ(s->amp[3], 155.816);  // alpha_x
  EXPECT_EQ(s->amp[4], 204.171);
  EXPECT_EQ(s->phase[4], 5.77261);
  const tbPlateMotion* r = tb_plateMotion(tb_findPlateMotion("rocking"));
  EXPECT_EQ(r->driver, TB_DRIVER_ROCKING);
  EXPECT_EQ(r->d, 0.05);
  EXPECT_EQ(tb_plateMotionPeriod(r), 0.03);
}

// least squares v = b r + c r^3; returns R^2
double FitVose(const tbFieldResult& res, double* b, double* c) {
  double s11 = 0, s13 = 0, s33 = 0, t1 = 0, t3 = 0, mean = 0;
  for (int i = 0; i < res.n; i++) {
    double r = res.pt[i].mean_x, v = res.pt[i].vx;
    s11 += r * r;
    s13 += r * r * r * r;
    s33 += r * r * r * r * r * r;
    t1 += r * v;
    t3 += r * r * r * v;
    mean += v / res.n;
  }
  double det = s11 * s33 - s13 * s13;
  *b = (t1 * s33 - t3 * s13) / det;
  *c = (s11 * t3 - s13 * t1) / det;
  double ss = 0, tot = 0;
  for (int i = 0; i < res.n; i++) {
    double r = res.pt[i].mean_x, v = res.pt[i].vx;
    double e = v - *b * r - *c * r * r * r;
    ss += e * e;
    tot += (v - mean) * (v - mean);
  }
  return 1.0 - ss / tot;
}

// thesis §5.2.1.1 (Vose et al.): with the axis 5 cm below, a particle neither sticks nor leaves
// the plate and its mean velocity follows v = b r + c r^3 (the full run: bench/bench_plate.c)
TEST(PlateTest, RockingFieldFollowsVoseLaw) {
  const tbPlateMotion* mo = tb_plateMotion(tb_findPlateMotion("rocking"));
  tbFieldOpt o = tb_defaultFieldOpt();
  const double start[12] = {-0.045, 0, -0.03, 0, -0.015, 0, 0.015, 0, 0.03, 0, 0.045, 0};
  o.nstart = 6;
  o.start = start;
  o.seconds = 1.0;
  o.transient = 0.1;
  tbFieldResult r;
  ASSERT_EQ(tb_plateField(mo, &o, &r), TB_OK) << tb_lastError();
  ASSERT_EQ(r.failed, 0);
  EXPECT_EQ(r.periods, 30);
  for (int i = 0; i < r.n; i++) {
    EXPECT_LT(r.pt[i].stick, 1e-3) << "start " << i;
    EXPECT_EQ(r.pt[i].separated, 0.0) << "start " << i;
    // a sink at the axis: parts move toward x = 0
    EXPECT_LT(r.pt[i].vx * r.pt[i].mean_x, 0.0) << "start " << i;
    EXPECT_NEAR(r.pt[i].vy, 0.0, 1e-12);
  }
  double b, c;
  double R2 = FitVose(r, &b, &c);
  printf("rocking d = 5 cm: v = b r + c r^3, b = %.6g 1/s, c = %.6g 1/(m^2 s), R^2 = %.7f\n", b, c,
         R2);
  RecordProperty("b", std::to_string(b));
  RecordProperty("c", std::to_string(c));
  RecordProperty("R2", std::to_string(R2));
  EXPECT_GE(R2, 0.999);
  EXPECT_LT(b, 0.0);
  tb_freeFieldResult(&r);
}

// the axis 1 cm below: the plate's tangential acceleration alpha d = 1.8 m/s^2 is below mu g,
// so the particle sticks during each cycle (thesis Fig. 5.5)
TEST(PlateTest, RockingAxisCloseSticks) {
  tbPlateMotion mo = *tb_plateMotion(tb_findPlateMotion("rocking"));
  mo.d = 0.01;
  tbFieldOpt o = tb_defaultFieldOpt();
  const double start[6] = {0.01, 0, 0.025, 0, 0.04, 0};
  o.nstart = 3;
  o.start = start;
  o.seconds = 0.3;
  tbFieldResult r;
  ASSERT_EQ(tb_plateField(&mo, &o, &r), TB_OK) << tb_lastError();
  double most = 0;
  for (int i = 0; i < r.n; i++) most = std::max(most, r.pt[i].stick);
  EXPECT_GT(most, 0.1);
  tb_freeFieldResult(&r);
}

// a scene's field point does not depend on the thread count or on the other starts
TEST(PlateTest, FieldIsDeterministic) {
  const tbPlateMotion* mo = tb_plateMotion(tb_findPlateMotion("circle-vose"));
  tbFieldOpt o = tb_defaultFieldOpt();
  o.nx = o.ny = 3;
  o.seconds = 0.1;
  tbFieldResult a, b;
  ASSERT_EQ(tb_plateField(mo, &o, &a), TB_OK) << tb_lastError();
  const double one[2] = {a.pt[5].x0, a.pt[5].y0};
  o.nstart = 1;
  o.start = one;
  ASSERT_EQ(tb_plateField(mo, &o, &b), TB_OK) << tb_lastError();
  EXPECT_EQ(b.pt[0].mean_x, a.pt[5].mean_x);
  EXPECT_EQ(b.pt[0].vx, a.pt[5].vx);
  EXPECT_EQ(b.pt[0].vy, a.pt[5].vy);
  EXPECT_EQ(b.pt[0].stick, a.pt[5].stick);
  tb_freeFieldResult(&a);
  tb_freeFieldResult(&b);
}

TEST(PlateTest, FieldRejectsBadOptions) {
  const tbPlateMotion* mo = tb_plateMotion(0);
  tbFieldOpt o = tb_defaultFieldOpt();
  tbFieldResult r;
  o.nx = 0;
  EXPECT_EQ(tb_plateField(mo, &o, &r), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("grid"), std::string::npos) << tb_lastError();
  o = tb_defaultFieldOpt();
  o.extent = 0;
  EXPECT_EQ(tb_plateField(mo, &o, &r), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("extent"), std::string::npos) << tb_lastError();
  o = tb_defaultFieldOpt();
  o.nset = 1;
  o.set_name[0] = "mass";
  o.set_value[0] = -1;
  EXPECT_EQ(tb_plateField(mo, &o, &r), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("mass"), std::string::npos) << tb_lastError();
}

//---- command line ------------------------------------------------------------------------------

class PlateCliTest : public CliFixture {
 protected:
  // exit status; stdout and stderr into out/err
  int Run(const std::vector<std::string>& args, std::string* out, std::string* err) {
    std::vector<std::string> full = {"plate", "field"};
    full.insert(full.end(), args.begin(), args.end());
    CliResult r = RunCli(full, "");
    *out = r.out;
    *err = r.err;
    return r.status;
  }
  int FileCount() const {
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator(dir_)) n += e.path().filename() != ".stderr";
    return n;
  }
};

TEST_F(PlateCliTest, BadInputExits2WithOneLineAndNoFiles) {
  struct Case {
    std::vector<std::string> args;
    std::string names;
  } cases[] = {
      {{"--motion", "spiral"}, "spiral"},
      {{"--param", "A1=abc"}, "A1"},
      {{"--param", "mass=-1"}, "mass"},
      {{"--param", "nosuch=1"}, "nosuch"},
      {{"--grid", "0"}, "grid"},
      {{"--grid", "4x0"}, "grid"},
      {{"--extent", "0"}, "extent"},
      {{"--extent", "-2"}, "extent"},
      {{"--seconds", "0"}, "seconds"},
      {{"--mu", "-0.1"}, "mu"},
      {{"--part", "sphere"}, "part"},
      {{"--dt"}, "--dt"},
      {{"--motion", "rocking", "--param", "T=0"}, "T"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"--out", dir_ + "/f", "--grid", "2x2", "--seconds", "0.01"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::string out, err;
    int st = Run(args, &out, &err);
    std::string desc = c.args[0] + (c.args.size() > 1 ? " " + c.args[1] : "");
    EXPECT_EQ(st, 2) << desc << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << desc << ": " << err;
    EXPECT_NE(err.find(c.names), std::string::npos) << desc << ": " << err;
    EXPECT_TRUE(out.empty()) << desc << ": " << out;
    EXPECT_EQ(FileCount(), 0) << desc;
  }
}

TEST_F(PlateCliTest, TinyRunWritesCsvPngAndJson) {
  std::string out, err;
  std::string prefix = dir_ + "/field";
  int st = Run({"--grid", "2x2", "--seconds", "0.1", "--motion", "circle-vose", "--out", prefix},
               &out, &err);
  ASSERT_EQ(st, 0) << err;
  std::string csv = ReadFile(prefix + ".csv");
  std::vector<std::string> lines;
  std::stringstream ss(csv);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 5u) << csv;
  EXPECT_EQ(lines[0],
            "x0,y0,mean_x,mean_y,vx,vy,speed,stick_fraction,separated_fraction,status,"
            "status_text");
  for (size_t i = 1; i < lines.size(); i++) {
    EXPECT_EQ(std::count(lines[i].begin(), lines[i].end(), ','), 10) << lines[i];
    EXPECT_EQ(lines[i].find("nan"), std::string::npos) << lines[i];
    EXPECT_EQ(lines[i].substr(lines[i].size() - 5), ",0,ok") << "status " << lines[i];
  }
  std::string png = ReadFile(prefix + ".png");
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_NE(out.find("\"scenes\": 4"), std::string::npos) << out;
  EXPECT_NE(out.find("\"steps\": 1000"), std::string::npos) << out;
  EXPECT_NE(out.find("\"motion\": \"circle-vose\""), std::string::npos) << out;
  EXPECT_NE(err.find("4/4"), std::string::npos) << err;
}

}  // namespace

namespace {

// the learned saddle (thesis §6.1.2) produces a saddle: v_x falls and v_y rises across the plate
TEST(PlateTest, SaddleLearnedIsASaddle) {
  tbFieldOpt o = tb_defaultFieldOpt();
  const double starts[8] = {-0.04, 0.0, 0.04, 0.0, 0.0, -0.04, 0.0, 0.04};
  o.nstart = 4;
  o.start = starts;
  o.seconds = 0.6;
  tbFieldResult r;
  ASSERT_EQ(tb_plateField(tb_plateMotion(tb_findPlateMotion("saddle-learned")), &o, &r), TB_OK)
      << tb_lastError();
  // target (-0.2 x, 0.2 y): signs only, the learned motion is not exact
  EXPECT_GT(r.pt[0].vx, 0.0);  // at x = -4 cm, moving towards the y axis
  EXPECT_LT(r.pt[1].vx, 0.0);
  EXPECT_LT(r.pt[2].vy, 0.0);  // at y = -4 cm, moving away from the x axis
  EXPECT_GT(r.pt[3].vy, 0.0);
  tb_freeFieldResult(&r);
}

}  // namespace

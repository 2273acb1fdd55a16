// Monte Carlo sweep utilities (host/jobs/sweep.c) and the sweep heat map (host/plot/plot.c).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include <tumble/scenes.h>
#include <tumble/sweep.h>

#include "math/rng.h"

#include "cli_runner.h"
#include "jobs/outfile.h"
#include "plot/plot.h"

namespace {

// a scratch directory per test (cli_runner.h) for the CSV and PNG files
class SweepTest : public CliFixture {};

TEST_F(SweepTest, OffsetCornersAndCentre) {
  tbSweepGrid g = {11, 5, 0.04, 0.02, 0.0, 0.0};
  double xy[2];
  tb_sweepOffset(&g, 0, xy);
  EXPECT_NEAR(xy[0], -0.02, 1e-15);
  EXPECT_NEAR(xy[1], -0.01, 1e-15);
  tb_sweepOffset(&g, 10, xy);  // ix = 10, iy = 0
  EXPECT_NEAR(xy[0], 0.02, 1e-15);
  EXPECT_NEAR(xy[1], -0.01, 1e-15);
  tb_sweepOffset(&g, 4 * 11, xy);  // ix = 0, iy = 4
  EXPECT_NEAR(xy[0], -0.02, 1e-15);
  EXPECT_NEAR(xy[1], 0.01, 1e-15);
  tb_sweepOffset(&g, 2 * 11 + 5, xy);  // the centre, exactly 0
  EXPECT_EQ(xy[0], 0.0);
  EXPECT_EQ(xy[1], 0.0);
  // every cell against the documented formula, and mirrored cells exactly opposite
  for (int c = 0; c < 55; c++) {
    int ix = c % 11, iy = c / 11;
    tb_sweepOffset(&g, c, xy);
    EXPECT_NEAR(xy[0], -0.02 + 0.04 * ix / 10.0, 1e-15);
    EXPECT_NEAR(xy[1], -0.01 + 0.02 * iy / 4.0, 1e-15);
    double m[2];
    tb_sweepOffset(&g, iy * 11 + (10 - ix), m);
    EXPECT_EQ(m[0], -xy[0]);
  }
}

TEST_F(SweepTest, OffsetsShiftWithTheCentre) {
  tbSweepGrid g = {3, 3, 0.02, 0.02, 0.005, -0.01};
  double xy[2];
  tb_sweepOffset(&g, 4, xy);  // the centre cell sits on the centre
  EXPECT_EQ(xy[0], 0.005);
  EXPECT_EQ(xy[1], -0.01);
  tb_sweepOffset(&g, 0, xy);
  EXPECT_NEAR(xy[0], -0.005, 1e-15);
  EXPECT_NEAR(xy[1], -0.02, 1e-15);
}

TEST_F(SweepTest, SingleCellGrids) {
  tbSweepGrid g1 = {1, 1, 0.05, 0.05, 0.0, 0.0};
  double xy[2];
  tb_sweepOffset(&g1, 0, xy);
  EXPECT_EQ(xy[0], 0.0);
  EXPECT_EQ(xy[1], 0.0);
  tbSweepGrid g2 = {1, 3, 0.0, 0.02, 0.0, 0.0};  // a column: x is always 0
  for (int c = 0; c < 3; c++) {
    tb_sweepOffset(&g2, c, xy);
    EXPECT_EQ(xy[0], 0.0);
    EXPECT_NEAR(xy[1], -0.01 + 0.01 * c, 1e-15);
  }
}

TEST_F(SweepTest, KeysAreDistinctAndLayoutAsDocumented) {
  EXPECT_EQ(tb_sweepKey(0, 0), 0u);
  EXPECT_EQ(tb_sweepKey(3, 7), (uint64_t(3) << 32) | 7u);
  EXPECT_NE(tb_sweepKey(1, 0), tb_sweepKey(0, 1));
  // draws of different (cell, trial) pairs are different streams
  EXPECT_NE(tbu_uniform01(1, tb_sweepKey(1, 0), 0), tbu_uniform01(1, tb_sweepKey(0, 1), 0));
}

// reference values: Wilson (1927) score interval at z = 1.96, e.g. Newcombe (1998) Table I
TEST_F(SweepTest, WilsonKnownValues) {
  double lo, hi;
  tb_wilson(0, 30, &lo, &hi);
  EXPECT_EQ(lo, 0.0);
  EXPECT_NEAR(hi, 0.1135, 1e-4);
  tb_wilson(15, 30, &lo, &hi);
  EXPECT_NEAR(lo, 0.3315, 1e-4);
  EXPECT_NEAR(hi, 0.6685, 1e-4);
  tb_wilson(30, 30, &lo, &hi);
  EXPECT_NEAR(lo, 0.8865, 1e-4);
  EXPECT_EQ(hi, 1.0);
  tb_wilson(81, 263, &lo, &hi);  // Newcombe's example: 0.2553 .. 0.3662
  EXPECT_NEAR(lo, 0.2553, 1e-4);
  EXPECT_NEAR(hi, 0.3662, 1e-4);
  tb_wilson(0, 0, &lo, &hi);
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(hi, 1.0);
  // the interval always contains p and stays in [0, 1]
  for (long n = 1; n <= 40; n++) {
    for (long k = 0; k <= n; k++) {
      tb_wilson(k, n, &lo, &hi);
      double p = double(k) / n;
      EXPECT_LE(lo, p);
      EXPECT_GE(hi, p);
      EXPECT_GE(lo, 0.0);
      EXPECT_LE(hi, 1.0);
    }
  }
}

TEST_F(SweepTest, TallyCountsAndSums) {
  tbSweepTally t;
  ASSERT_EQ(tb_newTally(&t, 3), TB_OK);
  tb_tallyAdd(&t, 0, 0, 1);
  tb_tallyAdd(&t, 0, 0, 0);
  tb_tallyAdd(&t, 0, 1, 1);  // a numerical failure: neither success nor a valid trial
  tb_tallyAdd(&t, 2, 0, 1);
  EXPECT_EQ(t.success[0], 1);
  EXPECT_EQ(t.valid[0], 2);
  EXPECT_EQ(t.failed[0], 1);
  long s, v, f;
  tb_tallySum(&t, &s, &v, &f);
  EXPECT_EQ(s, 2);
  EXPECT_EQ(v, 3);
  EXPECT_EQ(f, 1);
  double p[3];
  tb_tallyProbability(&t, p);
  EXPECT_EQ(p[0], 0.5);
  EXPECT_TRUE(std::isnan(p[1]));
  EXPECT_EQ(p[2], 1.0);
  tb_freeTally(&t);
  EXPECT_EQ(t.success, nullptr);
  EXPECT_NE(tb_newTally(&t, 0), TB_OK);
}

TEST_F(SweepTest, CsvContent) {
  tbSweepGrid g = {2, 2, 0.01, 0.02, 0.0, 0.0};
  tbSweepTally t;
  ASSERT_EQ(tb_newTally(&t, 4), TB_OK);
  for (int k = 0; k < 30; k++) tb_tallyAdd(&t, 0, 0, 1);
  for (int k = 0; k < 30; k++) tb_tallyAdd(&t, 1, 0, k < 15);
  tb_tallyAdd(&t, 2, 1, 0);  // cell 2: one failed scene, no valid trial
  for (int k = 0; k < 30; k++) tb_tallyAdd(&t, 3, 0, 0);
  std::string path = Path("s.csv");
  ASSERT_EQ(tb_sweepWriteCsv(path.c_str(), &g, &t), TB_OK);
  std::string want =
      "cell,ix,iy,x_mm,y_mm,trials,successes,failed,p,lo95,hi95\n"
      "0,0,0,-5,-10,30,30,0,1,0.886486607,1\n";
  std::string got = ReadFile(path);
  EXPECT_EQ(got.substr(0, want.size()), want) << got;
  std::istringstream in(got);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[2], "1,1,0,5,-10,30,15,0,0.5,0.331541256,0.668458744");
  EXPECT_EQ(lines[3], "2,0,1,-5,10,0,0,1,nan,0,1");
  EXPECT_EQ(lines[4], "3,1,1,5,10,30,0,0,0,0,0.113513393");
  // a grid that does not match the tally is refused, nothing written
  tbSweepGrid bad = {3, 3, 0.01, 0.01, 0.0, 0.0};
  std::string p2 = Path("bad.csv");
  EXPECT_NE(tb_sweepWriteCsv(p2.c_str(), &bad, &t), TB_OK);
  EXPECT_FALSE(Exists(p2));
  EXPECT_NE(tb_sweepWriteCsv(Path("no/such/dir.csv").c_str(), &g, &t), TB_OK);
  tb_freeTally(&t);
}

TEST_F(SweepTest, HeatmapWritesPng) {
  tbSweepGrid g = {5, 4, 0.04, 0.03, 0.0, 0.0};
  double v[20];
  for (int c = 0; c < 20; c++) v[c] = c / 19.0;
  v[7] = NAN;
  const int pn[2] = {4, 3};
  const double pxy[] = {-0.01, -0.005, 0.01, -0.005, 0.01, 0.005, -0.01,
                        0.005, 0.0,    0.02, 0.01,   0.03, -0.01, 0.03};
  tbHeatmap h = {"test map", &g, v, "success probability", 2, pn, pxy, 0.0, 0.0};
  // the map drawn into an output file, committed
  auto draw = [](const std::string& path, const tbHeatmap* map, int w, int hgt) {
    tbOutFile out;
    if (tb_outOpen(&out, path.c_str()) != TB_OK) return -1;
    if (tb_plotHeatmap(out.f, map, w, hgt) != 0) {
      tb_outAbort(&out);
      return -1;
    }
    return tb_outCommit(&out) == TB_OK ? 0 : -1;
  };
  std::string path = Path("h.png");
  ASSERT_EQ(draw(path, &h, 800, 640), 0);
  std::string png = ReadFile(path);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // a single cell with zero extent and no outline still draws
  tbSweepGrid g1 = {1, 1, 0.0, 0.0, 0.0, 0.0};
  double one = 0.5;
  tbHeatmap h1 = {nullptr, &g1, &one, nullptr, 0, nullptr, nullptr, 0.0, 0.0};
  std::string p1 = Path("one.png");
  ASSERT_EQ(draw(p1, &h1, 400, 300), 0);
  EXPECT_EQ(ReadFile(p1).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_NE(draw(Path("no/such/dir.png"), &h, 800, 640), 0);
}

// gtest's stderr capture is a file, not a terminal: no bar, only the final line
TEST_F(SweepTest, ProgressOnANonTerminalIsTheFinalLineOnly) {
  testing::internal::CaptureStderr();
  tbProgress p;
  tb_progressStart(&p, 200, "unit");
  for (long k = 1; k <= 200; k++) tb_progressUpdate(&p, k);
  tb_progressUpdate(&p, 500);  // past the total: clamped
  tb_progressFinish(&p);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.tty, 0);
  int lines = 0;
  for (char c : err) lines += c == '\n';
  EXPECT_EQ(lines, 1) << err;
  EXPECT_NE(err.find("tumble: unit: 200/200 trials in"), std::string::npos) << err;
  EXPECT_EQ(err.find('\r'), std::string::npos);
  // an empty sweep does not divide by zero
  testing::internal::CaptureStderr();
  tb_progressStart(&p, 0, "empty");
  tb_progressFinish(&p);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("0/0 trials"), std::string::npos) << err;
}

// On a terminal (a pseudo-terminal here) the bar is redrawn several times a second from the
// scenes the rollouts finish, with no tb_progressUpdate from the job: a long chunk still moves it.
TEST_F(SweepTest, ProgressOnATerminalMovesWithTheRolloutsBetweenUpdates) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  FILE* term = fopen(ptsname(master), "w");
  ASSERT_NE(term, nullptr);
  tbProgress p;
  tb_progressStartOn(&p, term, 1000, "unit", "scenes");
  EXPECT_EQ(p.tty, 1);
  // a rollout of 40 scenes, one after the other, each counted as it ends
  int scene = tb_findScene("sliding-sphere");
  tbBuild build = tb_defaultBuild(scene);
  tbModel* m = tb_buildScene(scene, &build);
  tbData* d = tb_newData(m, 40);
  tb_defaultParams(m, d);
  ASSERT_EQ(tb_resetData(m, d), TB_OK);
  for (int s = 0; s < 40; s++) ASSERT_EQ(tb_rollout(m, d, s, s + 1, 300, nullptr), TB_OK);
  EXPECT_EQ(p.scenes, 40);
  usleep(1100 * 1000);  // the bar is redrawn every 0.25 s: at least 4 redraws in this second
  tb_progressFinish(&p);
  fclose(term);
  std::string out;
  char buf[4096];
  ssize_t n;
  fcntl(master, F_SETFL, O_NONBLOCK);
  while ((n = read(master, buf, sizeof(buf))) > 0) out.append(buf, (size_t)n);
  close(master);
  int redraws = 0;
  for (size_t at = 0; (at = out.find("\rtumble: unit [", at)) != std::string::npos; at++) redraws++;
  EXPECT_GE(redraws, 4) << out;
  EXPECT_NE(out.find("40/1000 "), std::string::npos) << out;
  EXPECT_NE(out.find("unit: 40/1000 scenes in"), std::string::npos) << out;
  // the counter is released: later rollouts count nowhere
  ASSERT_EQ(tb_rollout(m, d, 0, 1, 1, nullptr), TB_OK);
  EXPECT_EQ(p.scenes, 40);
  tb_freeData(d);
  tb_freeModel(m);
}

}  // namespace

// host/jobs/grasp.c and host/cli/cli_grasp.c: the planar grasp study.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <tumble/grasp.h>
#include <tumble/sweep.h>

#include "cli_runner.h"
#include "gpu/gpu.h"

namespace {

// one condition over a grid, tallied
struct Sweep {
  tbSweepTally t;
  tbGraspRun run;
  Sweep(const tbGraspDef& g, const tbSweepGrid& grid, int trials, uint64_t seed, int chunk = 64) {
    EXPECT_EQ(tb_newTally(&t, grid.nx * grid.ny), TB_OK);
    EXPECT_EQ(tb_graspSweep(&g, &grid, trials, seed, chunk, nullptr, nullptr, &t, &run), TB_OK)
        << tb_lastError();
  }
  ~Sweep() { tb_freeTally(&t); }
  double p(int cell) const { return (double)t.success[cell] / t.valid[cell]; }
};

tbSweepGrid Grid(int nx, int ny, double ex, double ey, double cx, double cy) {
  tbSweepGrid g = {};
  g.nx = nx;
  g.ny = ny;
  g.extent_x = ex;
  g.extent_y = ey;
  g.center_x = cx;
  g.center_y = cy;
  return g;
}

}  // namespace

// the thesis's super-ellipse teeth as rounded rectangles: how close (grasp.h states 0.057 mm)
TEST(GraspTest, ToothApproximationWithinSixHundredthsOfAMillimetre) {
  double e = tb_graspToothError();
  EXPECT_LT(e, 0.06e-3);
  EXPECT_GT(e, 0.05e-3);  // the stated figure, not a vacuous bound
}

// a centred grasp of a plain disc with high gripper friction holds it in >= 99% of trials
TEST(GraspTest, CentredDiscGraspWithHighFrictionSucceeds) {
  tbGraspDef g = tb_defaultGraspDef();
  g.part = TB_PART_DISC;
  tb_muRange(TB_MU_HIGH, g.mu_gripper);
  Sweep s(g, Grid(1, 1, 0, 0, 0, 0), 100, 7);
  EXPECT_EQ(s.t.failed[0], 0);
  EXPECT_GE(s.t.success[0], 99) << s.t.success[0] << " of " << s.t.valid[0];
}

// frictionless fingers closing low on a disc, far off its centre line: the disc squirts out
TEST(GraspTest, FrictionlessOffCentreDiscGraspFails) {
  tbGraspDef g = tb_defaultGraspDef();
  g.part = TB_PART_DISC;
  g.mu_gripper[0] = g.mu_gripper[1] = 0.0;
  Sweep s(g, Grid(1, 1, 0, 0, 12e-3, -16e-3), 20, 7);
  EXPECT_EQ(s.t.failed[0], 0);
  EXPECT_EQ(s.t.success[0], 0);
}

// the gear and the gripper are mirror-symmetric about x = 0, and so is the map, within the
// trials' Wilson intervals (the draws of mirrored cells differ)
TEST(GraspTest, GearMapIsMirrorSymmetric) {
  tbGraspDef g = tb_defaultGraspDef();
  tbSweepGrid grid = Grid(5, 3, 16e-3, 8e-3, 0, -13e-3);
  Sweep s(g, grid, 12, 3);
  int ncell = grid.nx * grid.ny, informative = 0;
  for (int c = 0; c < ncell; c++) {
    EXPECT_EQ(s.t.failed[c], 0);
    int ix = c % grid.nx, iy = c / grid.nx, m = iy * grid.nx + (grid.nx - 1 - ix);
    double lo1, hi1, lo2, hi2;
    tb_wilson(s.t.success[c], s.t.valid[c], &lo1, &hi1);
    tb_wilson(s.t.success[m], s.t.valid[m], &lo2, &hi2);
    EXPECT_TRUE(lo1 <= hi2 && lo2 <= hi1)
        << "cell " << c << " p " << s.p(c) << " mirror " << s.p(m);
    informative += ix != m % grid.nx && s.p(c) > 0.0;  // off the axis, with successes
  }
  // a pair of mirrored cells off the axis holds successes (cells 6 and 8: p = 1 both), where a
  // map that lost one side's successes would show (cells on the axis are their own mirrors)
  EXPECT_GE(informative, 2);
  // the window holds both outcomes: the test compares something
  long succ = 0;
  tb_tallySum(&s.t, &succ, nullptr, nullptr);
  EXPECT_GT(succ, 0);
  EXPECT_LT(succ, (long)ncell * 12);
}

// the study's structure (thesis Figs. 3.14/4.9): below the teeth the fingers miss, a funnel
// over the teeth succeeds, and high on the disc the fingers jam on it
TEST(GraspTest, GearSucceedsOnlyInTheFunnelOverTheTeeth) {
  tbGraspDef g = tb_defaultGraspDef();
  Sweep s(g, Grid(1, 3, 0, 30e-3, 0, -14e-3), 10, 5);  // y = -29, -14, 1 mm
  EXPECT_EQ(s.t.success[0], 0);  // tips below the teeth: they close underneath
  EXPECT_GE(s.t.success[1], 4);  // tips at the teeth's level (p = 0.65 over 40 trials)
  EXPECT_EQ(s.t.success[2], 0);  // tips above the centre: the disc is squeezed
}

// the same seed gives the same tallies bitwise, for any chunk (batch split) and thread count
TEST(GraspTest, DeterministicAcrossBatchSplits) {
  tbGraspDef g = tb_defaultGraspDef();
  tbSweepGrid grid = Grid(3, 2, 8e-3, 6e-3, 0, -12e-3);
  Sweep a(g, grid, 5, 11, 64), b(g, grid, 5, 11, 7);
  for (int c = 0; c < 6; c++) {
    EXPECT_EQ(a.t.success[c], b.t.success[c]);
    EXPECT_EQ(a.t.valid[c], b.t.valid[c]);
  }
}

class GraspCliTest : public CliFixture {
 protected:
  // `tumble grasp` with the words of args (no quoting needed: scratch paths have no spaces)
  CliResult Grasp(const std::string& args) {
    std::vector<std::string> v = Split("grasp " + args, ' ');
    return RunCli(v);
  }
};

TEST_F(GraspCliTest, SameSeedSameMapForAnyThreadCount) {
  std::string args = "--grid 3x2 --extent 8mm --trials 3 --seed 5 --out ";
  CliResult r1 = Grasp(args + Path("one") + " --threads 1");
  CliResult r2 = Grasp(args + Path("two") + " --threads 2 --chunk 5");
  ASSERT_EQ(r1.status, 0) << r1.err;
  ASSERT_EQ(r2.status, 0) << r2.err;
  EXPECT_EQ(ReadFile(Path("one.csv")), ReadFile(Path("two.csv")));
  EXPECT_TRUE(Exists(Path("one.png")));
  // the summary is the last stdout line, JSON
  EXPECT_NE(r1.out.find("\"trials\": 18"), std::string::npos) << r1.out;
  EXPECT_NE(r1.out.find("\"failed_scenes\": 0"), std::string::npos) << r1.out;
}

// a corner of the default study (7 x 7 offsets, 10 trials each: 490 trials, some of them
// jammed) converges every step: auto with the study's budget of 1000 iterations, PGS going on
// from its own iterate between Newton rounds (from the best point instead: 1 scene left
// unconverged, 0.0013; with 200 iterations: 5)
TEST_F(GraspCliTest, EveryStepOfAStudyCornerConverges) {
  CliResult r = Grasp("--grid 7x7 --trials 10 --out " + Path("corner"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"failed_scenes\": 0, \"unconverged_scenes\": 0,"), std::string::npos)
      << r.out;
}

// PREFIX-trials.csv has a row per trial (its draws, status, outcome, the part's final pose), the
// same for any thread count and chunk; --replay CELL,TRIAL runs that one trial again and writes
// the same row bitwise, with its trajectory at every step
TEST_F(GraspCliTest, ReplayReproducesATrialOfTheStudyBitwise) {
  std::string args = "--grid 3x3 --extent 8mm --trials 4 --seed 7 --out ";
  ASSERT_EQ(Grasp(args + Path("a") + " --threads 2 --chunk 5").status, 0);
  ASSERT_EQ(Grasp(args + Path("b") + " --threads 1").status, 0);
  std::string trials = ReadFile(Path("a-trials.csv"));
  EXPECT_EQ(trials, ReadFile(Path("b-trials.csv")));
  auto lines = Lines(trials);
  ASSERT_EQ(lines.size(), 1u + 36u);
  auto head = Split(lines[0], ',');
  auto col = [&](const char* name) {
    return (size_t)(std::find(head.begin(), head.end(), name) - head.begin());
  };
  ASSERT_LT(col("part_yaw"), head.size());
  ASSERT_LT(col("surface_mu"), head.size());
  for (int id : {0, 17, 35}) {
    auto row = Split(lines[1 + id], ',');
    EXPECT_EQ(row[col("cell")], std::to_string(id / 4));
    EXPECT_EQ(row[col("trial")], std::to_string(id % 4));
    std::string replay = row[col("cell")] + "," + row[col("trial")];
    CliResult r = Grasp(args + Path("a") + " --replay " + replay);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"success\": " + row[col("success")] + ","), std::string::npos) << r.out;
    // the replay's row is the study's, every column (draws, status, iterations, residuals, the
    // part's final pose) to the last digit
    std::string stem = Path("a-replay-" + row[col("cell")] + "-" + row[col("trial")]);
    EXPECT_EQ(Lines(ReadFile(stem + "-trial.csv")),
              (std::vector<std::string>{lines[0], lines[1 + id]}))
        << "trial " << replay;
    auto traj = Lines(ReadFile(stem + ".csv"));
    EXPECT_GT(traj.size(), 1000u) << "a row per body and step";
    EXPECT_GT(ReadFile(stem + ".mp4").size(), 10000u) << "the video (replay_test.cc reads one)";
  }
  CliResult bad = Grasp(args + Path("a") + " --replay 9,0");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("9 cells"), std::string::npos) << bad.err;
}

// kill -9 at any point, then --resume: the outputs are bitwise those of a run never killed (the
// journal keeps each finished piece's rows, fsync'd; a piece cut by the kill is run again)
TEST_F(GraspCliTest, ResumeAfterAKillGivesTheUninterruptedOutputs) {
  std::string args = "--grid 3x3 --trials 20 --chunk 16 --threads 1 --seed 4 --out ";
  ASSERT_EQ(Grasp(args + Path("whole")).status, 0);
  const std::string whole[3] = {ReadFile(Path("whole.csv")), ReadFile(Path("whole-trials.csv")),
                                ReadFile(Path("whole.png"))};
  int resumed = 0;
  for (double at : {0.3, 0.8, 1.3}) {
    std::string out = Path("k" + std::to_string(resumed));
    std::string cmd = Quote(TUMBLE_CLI) + " grasp " + args + out;
    RunShell("sh -c " + Quote(cmd + " 2>/dev/null & p=$!; sleep " + std::to_string(at) +
                              "; kill -9 $p; wait $p"));
    resumed += Exists(out + ".journal");
    CliResult r = Grasp(args + out + " --resume");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ReadFile(out + ".csv"), whole[0]) << "killed at " << at << " s";
    EXPECT_EQ(ReadFile(out + "-trials.csv"), whole[1]) << "killed at " << at << " s";
    EXPECT_EQ(ReadFile(out + ".png"), whole[2]) << "killed at " << at << " s";
    EXPECT_FALSE(Exists(out + ".journal")) << "a whole study needs no journal";
  }
  EXPECT_GT(resumed, 0) << "no kill landed inside the study";
  // a journal of another study is refused, not mixed in
  std::string other = Path("k0");
  std::ofstream(other + ".journal") << "tumble journal 1 0000000000000000\n";
  CliResult r = Grasp(args + other + " --resume");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("another study"), std::string::npos) << r.err;
}

TEST_F(GraspCliTest, StudyOfSeveralConditionsWritesEach) {
  CliResult r =
      Grasp("--grid 1x1 --trials 2 --speed normal,fast --surface-mu low,high --out " + Path("s"));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* c : {"normal-low", "normal-high", "fast-low", "fast-high"}) {
    EXPECT_TRUE(Exists(Path(std::string("s-") + c + ".csv"))) << c;
    EXPECT_NE(r.out.find(c), std::string::npos) << c;
  }
  EXPECT_NE(r.out.find("\"trials\": 8"), std::string::npos) << r.out;
}

TEST_F(GraspCliTest, BadInputNamesTheOptionAndWritesNothing) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"--grid 0x5", "--grid"},
      {"--extent -1mm", "--extent"},
      {"--surface-mu huge", "--surface-mu"},
      {"--gripper-mu none", "--gripper-mu"},
      {"--trials 0", "--trials"},
      {"--speed slow", "--speed"},
      {"--part cube", "--part"},
      {"--center 1", "--center"},
      {"--force -2", "--force"},
      {"--device tpu", "--device"},
      {"--rest-speed -1e-5", "--rest-speed"},
      {"--rest-speed nan", "--rest-speed"},
  };
  // where no GPU is usable, --device gpu is bad input too
  if (tb_gpuDeviceCount() == 0) cases.push_back({"--device gpu", "device gpu:"});
  for (const auto& c : cases) {
    CliResult r = Grasp(c.first + " --out " + Path("bad"));
    EXPECT_EQ(r.status, 2) << c.first;
    EXPECT_NE(r.err.find(c.second), std::string::npos) << c.first << ": " << r.err;
    EXPECT_FALSE(Exists(Path("bad.csv"))) << c.first;
  }
}

// trials of GearSucceedsOnlyInTheFunnelOverTheTeeth's column (fingertips at y = -29, -14 and 1 mm,
// 6 trials each) rolled out with the default rest exit and with every step computed: each rests
// before 1500 of its 1689 steps and ends where it would have: the same outcome, its part within
// 1e-6 m and 1e-4 (quaternion components), its clock bitwise
TEST(GraspTest, ATrialAtRestIsHeldWhereItWouldHaveEnded) {
  tbGraspDef rest = tb_defaultGraspDef(), every = rest;
  every.rest_speed = 0.0;
  tbSweepGrid grid = Grid(1, 3, 0, 30e-3, 0, -14e-3);
  const int n = 18, nstep = tb_graspSteps(&rest);
  tbModel* m[2] = {tb_buildGraspModel(&rest), tb_buildGraspModel(&every)};
  ASSERT_TRUE(m[0] && m[1]) << tb_lastError();
  tbData* d[2] = {tb_newData(m[0], n), tb_newData(m[1], n)};
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < n; i++)
      tb_graspDrawTrial(m[k], &rest, &grid, 5, i / 6, i % 6, d[k]->param + i * m[k]->nparam);
    ASSERT_EQ(tb_resetData(m[k], d[k]), TB_OK) << tb_lastError();
    ASSERT_EQ(tb_rollout(m[k], d[k], 0, n, nstep, nullptr), TB_OK) << tb_lastError();
  }
  int part = tb_findBody(m[0], "part"), nb = m[0]->nbody, successes = 0;
  for (int i = 0; i < n; i++) {
    EXPECT_EQ(d[0]->status[i], TB_SCENE_RESTED) << i;
    EXPECT_EQ(d[1]->status[i], 0) << i;
    EXPECT_LT(d[0]->nstep[i], 1500) << i;
    EXPECT_EQ(d[1]->nstep[i], nstep) << i;
    EXPECT_EQ(d[0]->time[i], d[1]->time[i]) << i;
    int ok = tb_graspSuccess(m[0], &rest, d[0], i);
    EXPECT_EQ(ok, tb_graspSuccess(m[1], &every, d[1], i)) << i;
    successes += ok;
    for (int c = 0; c < 3; c++) {
      size_t at = ((size_t)i * nb + part) * 3 + c;
      EXPECT_NEAR(d[0]->body_pos[at], d[1]->body_pos[at], 1e-6) << i;
    }
    for (int c = 0; c < 4; c++) {
      size_t at = ((size_t)i * nb + part) * 4 + c;
      EXPECT_NEAR(d[0]->body_quat[at], d[1]->body_quat[at], 1e-4) << i;
    }
  }
  EXPECT_GT(successes, 0);  // both outcomes seen
  EXPECT_LT(successes, n);
  for (int k = 0; k < 2; k++) {
    tb_freeData(d[k]);
    tb_freeModel(m[k]);
  }
}

// the steps of one trial (draw of cell 9, trial 9, seed 1, fingertips at (-1, -20) mm from the
// gear's centre: the fingers close on the gear) under each solver with 200 iterations a step:
// how many steps ended above the study's tolerance
static int unconvergedSteps(int solver) {
  tbGraspDef g = tb_defaultGraspDef();
  g.solver = solver;
  g.max_iter = 200;
  tbModel* m = tb_buildGraspModel(&g);
  tbData* d = tb_newData(m, 1);
  const double offset[2] = {-0.001, -0.020};
  tb_graspDraw(m, &g, 1, 9, 9, offset, d->param);
  EXPECT_EQ(tb_resetData(m, d), TB_OK) << tb_lastError();
  tbWork* w = tb_newWork(m);
  int bad = 0;
  for (int k = 0; k < tb_graspSteps(&g); k++) {
    tb_stepScene(m, d, 0, w);
    bad += !(d->resid_last[0] <= g.solver_tol);
  }
  EXPECT_EQ(d->status[0] & TB_SCENE_FAILMASK, 0);
  tb_freeWork(w);
  tb_freeData(d);
  tb_freeModel(m);
  return bad;
}

// auto, the study's default, converges every step of a jammed trial where PGS alone (200
// sweeps: 7 steps) and its Newton method alone (projected LM on the MNCP: 28 steps) do not;
// auto with a single Newton start left one step unconverged here, auto with Newton rounds
// (tb_pgsThenNewton) none
TEST(GraspTest, AutoConvergesAJammedTrialWherePgsAndNewtonAloneDoNot) {
  EXPECT_GT(unconvergedSteps(TB_SOLVER_PGS), 0);
  EXPECT_GT(unconvergedSteps(TB_SOLVER_MNCP_PLM), 0);
  EXPECT_EQ(unconvergedSteps(TB_SOLVER_AUTO), 0);
}

// trial 5 of cell 8 of the default study: a jammed step (step 722) that auto's stages leave at
// 3.5e-5 after 1000 iterations (and after 19713 still above 1e-6) and that mncp-plm alone from
// the warm start solves in 6; auto's fallback (tb_fallBack) runs it after the stages
TEST(GraspTest, DefaultStudysJammedTrialConvergesByTheFallback) {
  tbGraspDef g = tb_defaultGraspDef();
  tbModel* m = tb_buildGraspModel(&g);
  tbData* d = tb_newData(m, 1);
  tbSweepGrid grid = Grid(21, 21, 20e-3, 20e-3, 0, -10e-3);  // the default study's
  tb_graspDrawTrial(m, &g, &grid, 1, 8, 5, d->param);
  ASSERT_EQ(tb_resetData(m, d), TB_OK) << tb_lastError();
  ASSERT_EQ(tb_rollout(m, d, 0, 1, tb_graspSteps(&g), nullptr), TB_OK) << tb_lastError();
  EXPECT_EQ(d->status[0] & ~TB_SCENE_RESTED, 0);
  EXPECT_LE(d->resid_max[0], g.solver_tol);
  EXPECT_GT(d->iter_max[0], g.max_iter);  // the stages spent their budget: the fallback solved it
  tb_freeData(d);
  tb_freeModel(m);
}

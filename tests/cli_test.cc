// Tests of the `tumble simulate` command line: the real binary (TUMBLE_CLI) is run in a private
// temporary directory; bad input must exit 2 with one stderr line naming the offending thing and
// must not create the --out file.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <hdf5.h>
#include <hdf5_hl.h>

#include <tumble/scenes.h>

#include "cli_runner.h"

namespace {

class CliTest : public CliFixture {
 protected:
  CliResult Run(const std::vector<std::string>& args) { return RunCli(args); }

  // a bad command line: exit 2, one stderr line containing each of `names`, no --out file
  void ExpectRejected(std::vector<std::string> args, const std::vector<std::string>& names) {
    std::string out = Path("out.csv");
    bool has_out = false;
    for (const auto& a : args) has_out = has_out || a == "--out";
    // --out goes first so that an argument missing at the end stays missing
    if (!has_out) args.insert(args.begin() + 1, {"--out", out});
    std::string desc;
    for (const auto& a : args) desc += " " + a;
    CliResult r = Run(args);
    EXPECT_EQ(r.status, 2) << "tumble" << desc << "\nstderr: " << r.err;
    ASSERT_FALSE(r.err.empty()) << "tumble" << desc << ": nothing on stderr";
    EXPECT_EQ(r.err.back(), '\n') << "tumble" << desc << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1)
        << "tumble" << desc << ": not a single line:\n"
        << r.err;
    EXPECT_EQ(r.err.rfind("tumble: error: ", 0), 0u) << r.err;
    for (const auto& nm : names) {
      EXPECT_NE(r.err.find(nm), std::string::npos)
          << "tumble" << desc << ": message does not name '" << nm << "': " << r.err;
    }
    EXPECT_FALSE(Exists(out)) << "tumble" << desc << ": created " << out;
    EXPECT_EQ(r.out, "") << "tumble" << desc << ": printed a summary on failure";
  }

  // final-step x of every scene, in scene order, from a CSV of a one-body scene
  static std::vector<std::string> FinalX(const std::string& csv, int step) {
    std::vector<std::string> x;
    auto lines = Lines(csv);
    for (size_t i = 1; i < lines.size(); i++) {
      auto f = Split(lines[i], ',');
      if (f.size() == 17 && std::stoi(f[1]) == step) {
        size_t s = (size_t)std::stoi(f[0]);
        if (x.size() <= s) x.resize(s + 1);
        x[s] = f[4];
      }
    }
    return x;
  }
};

//---- bad input ---------------------------------------------------------------------------------

TEST_F(CliTest, UnknownScene) {
  ExpectRejected({"simulate", "no-such-scene"}, {"no-such-scene"});
}

TEST_F(CliTest, UnknownParameter) {
  ExpectRejected({"simulate", "falling-particle", "--param", "foo=1"}, {"'foo'"});
}

TEST_F(CliTest, ParamNotANumber) {
  ExpectRejected({"simulate", "falling-particle", "--param", "mu=abc"}, {"mu", "abc"});
}

TEST_F(CliTest, StepsNotANumber) {
  ExpectRejected({"simulate", "falling-particle", "--steps", "1x"}, {"--steps", "1x"});
}

TEST_F(CliTest, NegativeMass) {
  ExpectRejected({"simulate", "falling-particle", "--param", "mass=-1"},
                 {"--param mass=-1", "below"});
}

TEST_F(CliTest, ZeroMass) {
  ExpectRejected({"simulate", "box-stack", "--param", "mass=0"}, {"--param mass=0"});
}

TEST_F(CliTest, NegativeMu) {
  ExpectRejected({"simulate", "falling-particle", "--param", "mu=-0.1"},
                 {"--param mu=-0.1", "[0, 1000]"});
}

TEST_F(CliTest, NaNMu) {
  ExpectRejected({"simulate", "falling-particle", "--param", "mu=nan"},
                 {"--param mu=nan", "not a finite number"});
}

TEST_F(CliTest, NaNInRange) {
  // only the last of the 3 scenes would get NaN from a range ending in NaN: the range is refused
  ExpectRejected({"simulate", "falling-particle", "--scenes", "3", "--param", "mu=0.1:nan"},
                 {"--param mu=0.1:nan"});
}

TEST_F(CliTest, ZeroTimestep) {
  ExpectRejected({"simulate", "falling-particle", "--dt", "0"}, {"--dt 0", "(0, 1] s"});
}

TEST_F(CliTest, NegativeTimestep) {
  ExpectRejected({"simulate", "falling-particle", "--dt", "-1e-3"}, {"--dt -1e-3"});
}

TEST_F(CliTest, ZeroScenes) {
  ExpectRejected({"simulate", "falling-particle", "--scenes", "0"}, {"--scenes"});
}

TEST_F(CliTest, UnknownOption) {
  ExpectRejected({"simulate", "falling-particle", "--frobnicate", "1"}, {"--frobnicate"});
}

TEST_F(CliTest, UnknownSolver) {
  ExpectRejected({"simulate", "box-stack", "--solver", "newton"}, {"--solver", "newton"});
}

TEST_F(CliTest, NonPositiveSolverTolerance) {
  ExpectRejected({"simulate", "box-stack", "--solver-tol", "0"}, {"--solver-tol"});
}

TEST_F(CliTest, ZeroSolverIterations) {
  ExpectRejected({"simulate", "box-stack", "--max-iter", "0"}, {"--max-iter"});
}

TEST_F(CliTest, UnknownCone) {
  ExpectRejected({"simulate", "falling-particle", "--cone", "cubic"}, {"--cone", "cubic"});
}

TEST_F(CliTest, UnknownDelassusStorage) {
  ExpectRejected({"simulate", "sphere-pile", "--delassus", "sparse"},
                 {"--delassus", "sparse", "auto or dense"});
}

TEST_F(CliTest, TooFewFacets) {
  ExpectRejected({"simulate", "falling-particle", "--cone", "pyramid", "--facets", "2"},
                 {"--facets"});
}

TEST_F(CliTest, StructuralOptionRange) {
  ExpectRejected({"simulate", "pendulum", "--param", "links=1:3"}, {"links"});
}

TEST_F(CliTest, StructuralOptionUniform) {
  ExpectRejected({"simulate", "pendulum", "--param", "links=uniform:1:3"}, {"links"});
}

TEST_F(CliTest, StructuralOptionOutOfRange) {
  ExpectRejected({"simulate", "pendulum", "--param", "links=0"}, {"links"});
}

TEST_F(CliTest, StructuralOptionNotWhole) {
  ExpectRejected({"simulate", "pendulum", "--param", "links=2.5"}, {"links"});
}

TEST_F(CliTest, MissingValue) {
  ExpectRejected({"simulate", "falling-particle", "--out", Path("out.csv"), "--steps"},
                 {"--steps"});
}

TEST_F(CliTest, MissingScene) {
  ExpectRejected({"simulate", "--steps", "10"}, {"scene"});
}

//---- good input --------------------------------------------------------------------------------

TEST_F(CliTest, ListNamesEveryScene) {
  CliResult r = Run({"simulate", "--list"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_GT(tb_sceneCount(), 0);
  auto lines = Lines(r.out);
  for (int i = 0; i < tb_sceneCount(); i++) {
    std::string name = tb_sceneInfo(i)->name;
    bool found = false;
    for (const auto& l : lines) found = found || l.rfind(name + ":", 0) == 0;
    EXPECT_TRUE(found) << "scene '" << name << "' missing from --list:\n" << r.out;
  }
}

// the step solver is the user's: on a box stack PGS stops at its 200 sweeps above 1e-8 where
// auto (the scene's default) converges
TEST_F(CliTest, SolverOptionsReachTheStep) {
  CliResult pgs =
      Run({"simulate", "box-stack", "--scenes", "4", "--steps", "100", "--solver", "pgs"});
  ASSERT_EQ(pgs.status, 0) << pgs.err;
  EXPECT_NE(pgs.out.find("\"unconverged\": 4,"), std::string::npos) << pgs.out;
  CliResult aut = Run({"simulate", "box-stack", "--scenes", "4", "--steps", "100", "--solver",
                       "auto", "--max-iter", "400", "--solver-tol", "1e-9"});
  ASSERT_EQ(aut.status, 0) << aut.err;
  EXPECT_NE(aut.out.find("\"unconverged\": 0,"), std::string::npos) << aut.out;
}

TEST_F(CliTest, ExportOnlyWhatFc3dHolds) {
  ExpectRejected(
      {"simulate", "falling-particle", "--cone", "pyramid", "--export-problems", Path("p")},
      {"--export-problems", "pyramid"});
  ExpectRejected({"simulate", "box-stack", "--export-problems", Path("p")},  // with --out
                 {"--export-problems", "--out"});
}

// the recorded steps' problems as FC3D files: the batch ends as the rollout leaves it, and a
// file is the step's problem (auto solves it, on the stack's twelve contacts)
TEST_F(CliTest, ExportedStepProblemsAreSolvable) {
  std::string dir = Path("problems");
  std::vector<std::string> common = {"simulate", "box-stack", "--scenes", "2",
                                     "--steps",  "20",        "--solver", "auto"};
  CliResult plain = Run(common);
  ASSERT_EQ(plain.status, 0) << plain.err;
  std::vector<std::string> exp = common;
  exp.insert(exp.end(), {"--every", "10", "--export-problems", dir});
  CliResult r = Run(exp);
  ASSERT_EQ(r.status, 0) << r.err;
  auto tail = [](const std::string& s) { return s.substr(s.find("\"failed\"")); };
  auto upto = [](const std::string& s) { return s.substr(0, s.find(", \"threads\"")); };
  EXPECT_EQ(upto(tail(r.out)), upto(tail(plain.out)));  // same statuses, residuals, iterations
  EXPECT_NE(r.err.find("wrote 4 problem files"), std::string::npos) << r.err;
  for (const char* f : {"box-stack-s0-k10.dat", "box-stack-s0-k20.dat", "box-stack-s1-k10.dat",
                        "box-stack-s1-k20.dat"}) {
    ASSERT_TRUE(Exists(dir + "/" + f)) << f;
  }
  CliResult s = Run({"solve", dir + "/box-stack-s1-k20.dat", "--solver", "auto"});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("\"converged\": true"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("\"contacts\": 12,"), std::string::npos) << s.out;
}

// the validation side's plate-block steps (bench/solvers_validation.sh): a box's four coplanar
// corners on the vibrating plate, singular W; where PGS creeps (s0 at step 3000: 1.4e-6 after
// 100000 sweeps) auto hands over to its proximal Newton instead of spending its budget
TEST_F(CliTest, AutoSolvesThePlateBlockValidationSteps) {
  std::string dir = Path("plate");
  CliResult r = Run({"simulate", "plate-block", "--solver", "auto", "--scenes", "3", "--steps",
                     "3000", "--every", "1000", "--param", "mu=0.3:0.6", "--export-problems", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  for (int s = 0; s < 3; s++) {
    for (int k = 1000; k <= 3000; k += 1000) {
      std::string f =
          dir + "/plate-block-s" + std::to_string(s) + "-k" + std::to_string(k) + ".dat";
      CliResult q = Run({"solve", f, "--solver", "auto"});
      ASSERT_EQ(q.status, 0) << q.err;
      EXPECT_NE(q.out.find("\"converged\": true"), std::string::npos) << q.out;
    }
  }
}

// the validation side's hardest pile step (bench/solvers_validation.sh, sphere-pile-s0-k500: 234
// rows on 162 DoFs, PGS and Siconos' NSGS stall at 9.2e-8): auto's stages end above the
// tolerance, and the fallback's soc-fb-plm run from their best point meets it (before it the
// 64-row cap left no Newton method there: auto ended unconverged after its whole budget). The
// pile rigid on PGS and stepped with A stored, as the validation side exports it
TEST_F(CliTest, AutoSolvesThePileValidationStep) {
  std::string dir = Path("pile");
  CliResult r = Run({"simulate",   "sphere-pile", "--scenes",          "2",
                     "--steps",    "500",         "--every",           "500",
                     "--param",    "mu=0.3:0.7",  "--delassus",        "dense",
                     "--param",    "soft=0",      "--solver",          "pgs",
                     "--max-iter", "1000",        "--export-problems", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  CliResult q = Run({"solve", dir + "/sphere-pile-s0-k500.dat", "--solver", "auto"});
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_NE(q.out.find("\"converged\": true"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("\"rows\": 234,"), std::string::npos) << q.out;
}

// the validation side's pile step that only Siconos' PROX had solved (bench/solvers_validation.sh,
// sphere-pile-s1-k600: 234 rows; PROX's residual wanders between 1e-8 and 1e-5 and dipped below
// 1e-8 by chance): every stage before the convex fixed point ends at 2.0e-7 after its whole
// budget, and the Newton stages from the interior point's second answer converge (host/
// solver_auto.h tb_convexFixedPoint). The second rigid pile set, stepped to 600
TEST_F(CliTest, AutoSolvesThePileStepOnlyProxSolved) {
  std::string dir = Path("pile2");
  CliResult r = Run({"simulate", "sphere-pile", "--scenes", "3", "--steps", "600", "--every", "600",
                     "--param", "mu=0.2:0.9", "--param", "soft=0", "--solver", "pgs", "--max-iter",
                     "1000", "--export-problems", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  CliResult q = Run({"solve", dir + "/sphere-pile-s1-k600.dat", "--solver", "auto"});
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_NE(q.out.find("\"converged\": true"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("\"rows\": 234,"), std::string::npos) << q.out;
}

TEST_F(CliTest, BoxStackCsv) {
  std::string out = Path("stack.csv");
  CliResult r = Run({"simulate", "box-stack", "--scenes", "3", "--steps", "10", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  // one JSON line
  auto olines = Lines(r.out);
  ASSERT_EQ(olines.size(), 1u) << r.out;
  EXPECT_EQ(olines[0].front(), '{') << r.out;
  EXPECT_EQ(olines[0].back(), '}') << r.out;
  EXPECT_NE(r.out.find("\"scenes\": 3,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"failed\": 0,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"steps\": 10,"), std::string::npos) << r.out;

  ASSERT_TRUE(Exists(out));
  auto lines = Lines(ReadFile(out));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "scene,step,t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
  ASSERT_EQ(lines.size(), 1u + 18u) << "expected 3 scenes x 2 records x 3 bodies";
  std::set<std::tuple<int, int, std::string>> seen;
  for (size_t i = 1; i < lines.size(); i++) {
    auto f = Split(lines[i], ',');
    ASSERT_EQ(f.size(), 17u) << lines[i];
    int s = std::stoi(f[0]), k = std::stoi(f[1]);
    EXPECT_TRUE(s >= 0 && s < 3) << lines[i];
    EXPECT_TRUE(k == 0 || k == 10) << lines[i];
    EXPECT_TRUE(f[3] == "box0" || f[3] == "box1" || f[3] == "box2") << lines[i];
    double t = std::stod(f[2]);
    EXPECT_NEAR(t, k * 1e-3, 1e-12) << lines[i];  // box-stack dt is 1 ms
    for (size_t c = 4; c < f.size(); c++) {
      EXPECT_TRUE(std::isfinite(std::stod(f[c]))) << lines[i];
    }
    seen.insert({s, k, f[3]});
  }
  EXPECT_EQ(seen.size(), 18u) << "duplicate (scene, step, body) rows";
}

TEST_F(CliTest, LinspaceIsEvenAndInclusive) {
  // falling-particle: the particle lands and slides under a 5 N push, so with a constant normal
  // impulse per step the final x is affine in mu: an even spread of mu gives an even spread of
  // x, and lower mu slides further
  std::string out = Path("lin.csv");
  CliResult r =
      Run({"simulate", "falling-particle", "--scenes", "5", "--param", "mu=0.1:0.5", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto xs = FinalX(ReadFile(out), 100);
  ASSERT_EQ(xs.size(), 5u);
  std::vector<double> x;
  for (const auto& s : xs) x.push_back(std::stod(s));
  for (int i = 1; i < 5; i++) EXPECT_LT(x[i], x[i - 1]) << "scene " << i;
  for (int i = 1; i < 4; i++) {
    double d2 = x[i + 1] - 2 * x[i] + x[i - 1];
    EXPECT_LE(std::fabs(d2), 1e-9 * std::fabs(x[i + 1] - x[i])) << "uneven spread at scene " << i;
  }
  // the ends and the middle are mu = 0.1, 0.3, 0.5 (an exclusive end, LO + (HI-LO) s/N, would
  // put scene 4 at 0.42 and move its x by ~2.4 m); compared to rounding, since the spread's
  // middle value 0.1 + 0.4 * 2/4 need not be the double nearest 0.3
  const char* mus[3] = {"0.1", "0.3", "0.5"};
  const int scene[3] = {0, 2, 4};
  for (int k = 0; k < 3; k++) {
    std::string out1 = Path("one.csv");
    CliResult r1 = Run(
        {"simulate", "falling-particle", "--param", std::string("mu=") + mus[k], "--out", out1});
    ASSERT_EQ(r1.status, 0) << r1.err;
    auto x1 = FinalX(ReadFile(out1), 100);
    ASSERT_EQ(x1.size(), 1u);
    double a = std::stod(x1[0]), b = x[scene[k]];
    EXPECT_NEAR(a, b, 1e-9 * std::fabs(b)) << "mu=" << mus[k] << " vs scene " << scene[k];
  }
}

TEST_F(CliTest, UniformIsSeeded) {
  auto run = [&](const char* seed, const char* name) {
    std::string out = Path(name);
    CliResult r = Run({"simulate", "falling-particle", "--scenes", "5", "--param",
                       "mu=uniform:0.2:0.6", "--seed", seed, "--out", out});
    EXPECT_EQ(r.status, 0) << r.err;
    return ReadFile(out);
  };
  std::string a = run("7", "a.csv"), b = run("7", "b.csv"), c = run("8", "c.csv");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "same seed, different output";
  EXPECT_NE(a, c) << "seeds 7 and 8 gave the same output";
  // the scenes of one batch draw different values
  auto x = FinalX(a, 100);
  ASSERT_EQ(x.size(), 5u);
  EXPECT_EQ(std::set<std::string>(x.begin(), x.end()).size(), 5u);
}

}  // namespace

namespace {

std::string DataFile(const std::string& rel) {
#ifdef TUMBLE_DATA_DIR
  return std::string(TUMBLE_DATA_DIR) + "/" + rel;
#else
  return rel;
#endif
}

// `tumble solve` on bad input: exit 2, one line naming the problem, nothing on stdout
TEST_F(CliTest, SolveRejectsBadInput) {
  if (!Exists(DataFile("fc3d/FC3D_Example1.dat"))) FAIL() << "tests/data missing";
  std::ofstream(Path("bad.dat")) << "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 oops\n";
  std::ofstream(Path("negmu.dat")) << "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n-0.5\n";
  std::string ex = DataFile("fc3d/FC3D_Example1.dat");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"solve", Path("missing.dat")}, "missing.dat"},
      {{"solve", Path("bad.dat")}, "oops"},
      {{"solve", Path("negmu.dat")}, "mu"},
      {{"solve", ex, "--solver", "nope"}, "nope"},
      {{"solve", ex, "--solver", "lemke"}, "lemke"},
      {{"solve", ex, "--tol", "0"}, "--tol"},
      {{"solve", ex, "--max-iter", "abc"}, "abc"},
      {{"solve", ex, "--max-seconds", "-1"}, "--max-seconds"},
      {{"solve", ex, "--max-seconds", "inf"}, "--max-seconds"},
      {{"solve"}, "problem file"},
  };
  for (const auto& c : cases) {
    CliResult r = Run(c.first);
    EXPECT_EQ(r.status, 2) << c.second << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.second), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

// one JSON object per solver run with the fields
TEST_F(CliTest, SolvePrintsOneJsonPerRun) {
  std::string ex = DataFile("fc3d/FC3D_Example1.dat");
  if (!Exists(ex)) FAIL() << "tests/data missing";
  CliResult r = Run({"solve", ex, "--solver", "all"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  EXPECT_GE(lines.size(), 6u);  // pgs, prox x2, mncp x2, dogleg, auto on the exact cone
  for (const auto& l : lines) {
    for (const char* key :
         {"\"file\": \"FC3D_Example1.dat\"", "\"solver\": ", "\"converged\": ", "\"iterations\": ",
          "\"residual\": ", "\"seconds\": ", "\"contacts\": 3"}) {
      EXPECT_NE(l.find(key), std::string::npos) << key << " in " << l;
    }
  }
  r = Run({"solve", ex, "--cone", "pyramid", "--solver", "lemke"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"cone\": \"pyramid\""), std::string::npos) << r.out;
  // a wall-clock budget that runs out: the best iterate, reported as such (Capsules: about 0.2 s),
  // and the exit status of a problem not solved
  std::string caps = DataFile("fc3d/Capsules-i101-404.dat");
  r = Run({"solve", caps, "--max-seconds", "0.001"});
  ASSERT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.out.find("\"converged\": false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"stop\": \"time\""), std::string::npos) << r.out;
  r = Run({"solve", "--list"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("auto"), std::string::npos);
  EXPECT_NE(r.out.find("mncp-plm"), std::string::npos);
}

//---- outputs that carry their inputs -----------------------------------------------------------

// FILE-scenes.csv: a row per scene with its parameter values (the seeded draws), status, steps,
// iterations and residuals, so a trajectory can be matched to the mu that produced it
TEST_F(CliTest, SceneSummaryCarriesParametersAndStatus) {
  std::string out = Path("u.csv");
  CliResult r = Run({"simulate", "falling-particle", "--scenes", "4", "--steps", "30", "--param",
                     "mu=uniform:0.1:0.9", "--seed", "3", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = Lines(ReadFile(Path("u-scenes.csv")));
  ASSERT_EQ(lines.size(), 5u);
  auto head = Split(lines[0], ',');
  auto col = [&](const char* name) {
    return (size_t)(std::find(head.begin(), head.end(), name) - head.begin());
  };
  ASSERT_LT(col("mu"), head.size());
  ASSERT_LT(col("max_residual"), head.size());
  std::set<std::string> mus;
  for (size_t i = 1; i < lines.size(); i++) {
    auto f = Split(lines[i], ',');
    ASSERT_EQ(f.size(), head.size()) << lines[i];
    EXPECT_EQ(f[col("scene")], std::to_string(i - 1));
    double mu = std::stod(f[col("mu")]);
    EXPECT_TRUE(mu >= 0.1 && mu <= 0.9) << lines[i];
    mus.insert(f[col("mu")]);
    EXPECT_EQ(f[col("done")], "1");
    EXPECT_EQ(f[col("status_text")], "ok");
    EXPECT_EQ(f[col("fail_step")], "-1");
    EXPECT_EQ(f[col("steps")], "30");
    EXPECT_LE(std::stod(f[col("max_residual")]), 1e-8) << lines[i];
  }
  EXPECT_EQ(mus.size(), 4u) << "the draws differ by scene";
  // the same mu, given as a value, gives scene 2's trajectory bitwise
  auto f2 = Split(lines[3], ',');
  std::string one = Path("one.csv");
  ASSERT_EQ(Run({"simulate", "falling-particle", "--steps", "30", "--param", "mu=" + f2[col("mu")],
                 "--out", one})
                .status,
            0);
  EXPECT_EQ(FinalX(ReadFile(one), 30)[0], FinalX(ReadFile(out), 30)[2]);
}

// a scene whose parameters bury a link in the floor stops at step 0 as starts-buried, said on
// stderr apart from the failures; the others run
TEST_F(CliTest, BuriedStartIsSaidAndFlagged) {
  std::string out = Path("b.csv");
  CliResult r = Run({"simulate", "chain-wall", "--scenes", "3", "--steps", "50", "--param",
                     "length=1:1.3", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"failed\": 1,"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 scene(s) start with a shape sunk into another (starts-buried; scene 2"),
            std::string::npos)
      << r.err;
  auto sum = Lines(ReadFile(Path("b-scenes.csv")));
  ASSERT_EQ(sum.size(), 4u);
  EXPECT_NE(sum[3].find(",starts-buried,0,0,"), std::string::npos) << sum[3];
  EXPECT_NE(sum[2].find(",ok,"), std::string::npos) << sum[2];
}

// a scene that diverges is flagged in its summary row, its trajectory ends at its failing step,
// and the other scenes of the batch run to the end
TEST_F(CliTest, FailedSceneStopsItsRowsAtTheFailingStep) {
  std::string out = Path("f.csv");
  // a double pendulum in minimal coordinates at a step of 1 s (scene 1; scene 0 steps 1 ms): its
  // explicit velocity terms grow without bound and overflow within a hundred steps. (A mass of
  // 1e-300 pushed by 1 MN did it before masses below TB_MIN_MASS were refused.)
  CliResult r =
      Run({"simulate", "pendulum", "--scenes", "2", "--steps", "1000", "--every", "1", "--param",
           "links=2", "--param", "minimal=1", "--param", "dt=1e-3:1", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"failed\": 1,"), std::string::npos) << r.out;
  auto sum = Lines(ReadFile(Path("f-scenes.csv")));
  ASSERT_EQ(sum.size(), 3u);
  auto head = Split(sum[0], ',');
  auto col = [&](const char* name) {
    return (size_t)(std::find(head.begin(), head.end(), name) - head.begin());
  };
  auto ok = Split(sum[1], ','), bad = Split(sum[2], ',');
  EXPECT_EQ(ok[col("status_text")], "ok");
  EXPECT_EQ(bad[col("status_text")].rfind("diverged", 0), 0u) << sum[2];
  int fail = std::stoi(bad[col("fail_step")]);
  EXPECT_GT(fail, 0);
  EXPECT_LT(fail, 1000);
  EXPECT_EQ(bad[col("steps")], std::to_string(fail + 1)) << "the failing step is counted";
  int last[2] = {-1, -1};
  for (const auto& line : Lines(ReadFile(out))) {
    auto f = Split(line, ',');
    if (f[0] == "scene" || f[3] != "link0") continue;  // the first link's rows
    int s = std::stoi(f[0]), k = std::stoi(f[1]);
    EXPECT_GT(k, last[s]) << "steps repeat in scene " << s;
    last[s] = k;
  }
  EXPECT_EQ(last[0], 1000);
  EXPECT_EQ(last[1], fail) << "the state before the failing step is the last row";
}

// --out is opened before the computation; a run that fails afterwards leaves an earlier file as
// it was (the output is written to FILE.part and renamed when whole)
TEST_F(CliTest, OutIsCheckedFirstAndNeverClobberedByAFailure) {
  ExpectRejected({"simulate", "falling-particle", "--out", Path("no/such/dir/x.csv")},
                 {"--out", "no/such/dir/x.csv"});
  ExpectRejected({"simulate", "falling-particle", "--out", Path("") + "/"}, {"--out", "file name"});
  std::string out = Path("keep.csv");
  { std::ofstream(out) << "earlier\n"; }
  // the records of 1e5 scenes x 1e8 steps do not fit in memory: the run fails after --out opened
  CliResult r = Run({"simulate", "sliding-sphere", "--scenes", "100000", "--steps", "100000000",
                     "--every", "1", "--yes", "--out", out});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("machine's"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(out), "earlier\n");
  EXPECT_FALSE(Exists(out + ".part"));
}

// Ctrl-C during a long run: the chunk in progress finishes, the scenes done are written (the
// summary says which), the JSON says partial, and the exit status is 130
TEST_F(CliTest, InterruptWritesThePartialRunAndExits130) {
  std::string out = Path("i.csv");
  CliResult r = RunCliInterrupted({"simulate", "sliding-sphere", "--scenes", "100000", "--steps",
                                   "600", "--threads", "1", "--out", out},
                                  1.5);
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.out.find("\"partial\": true"), std::string::npos) << r.out;
  auto sum = Lines(ReadFile(Path("i-scenes.csv")));
  ASSERT_EQ(sum.size(), 100001u);
  auto head = Split(sum[0], ',');
  size_t done = (size_t)(std::find(head.begin(), head.end(), "done") - head.begin());
  long ndone = 0;
  for (size_t i = 1; i < sum.size(); i++) ndone += Split(sum[i], ',')[done] == "1";
  EXPECT_GT(ndone, 0);
  EXPECT_LT(ndone, 100000);
  EXPECT_EQ(Split(sum[ndone], ',')[done], "1") << "the scenes done are a prefix";
  EXPECT_EQ(Split(sum[ndone + 1], ',')[done], "0");
  // two records per scene done, nothing of the others
  EXPECT_EQ(Lines(ReadFile(out)).size(), 1u + 2u * ndone);
}

// bug (issue 63): simulate's chunks were 256 scenes a thread whatever a scene cost, so Ctrl-C
// waited for the chunk: 256 sphere piles of 300 steps ran to the end, about 15 s on 2 cores, and
// exited 0. Chunks now aim at 0.25 s of work (one scene a thread at least): the run stops within
// a second of the signal. The 3 s bound is 12 chunks' work: room for a loaded or sanitized run
TEST_F(CliTest, CtrlCIsAnsweredWithinAChunkOfAQuarterSecond) {
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = RunCliInterrupted({"simulate", "sphere-pile", "--scenes", "256", "--steps", "300",
                                   "--threads", "2", "--out", Path("pile.csv")},
                                  1.0);
  double after = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - 1.0;
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_LT(after, 3.0) << "seconds from Ctrl-C to the exit";
  EXPECT_NE(r.out.find("\"partial\": true"), std::string::npos) << r.out;
}

// plate field: the starts done are written (a prefix of the grid), the plot says partial
TEST_F(CliTest, InterruptedPlateFieldWritesTheStartsDone) {
  CliResult r = RunCliInterrupted(
      {"plate", "field", "--grid", "40x40", "--seconds", "2", "--threads", "1", "--out", Path("f")},
      1.5);
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.out.find("\"partial\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  auto rows = Lines(ReadFile(Path("f.csv")));
  ASSERT_GT(rows.size(), 1u);
  EXPECT_LT(rows.size(), 1601u);
  EXPECT_DOUBLE_EQ(std::stod(Split(rows[1], ',')[0]), -0.05) << "the grid's first start";
  EXPECT_DOUBLE_EQ(std::stod(Split(rows[1], ',')[1]), -0.05) << "the grid's first start";
  EXPECT_TRUE(Exists(Path("f.png")));
}

// the particle filter stops after an observation and writes the posterior so far
TEST_F(CliTest, InterruptedParticleFilterWritesTheObservationsTaken) {
  CliResult s = RunCli({"estimate", "synth", "--scene", "sliding-sphere", "--steps", "4000",
                        "--every", "1", "--noise", "uniform:1e-4", "--out", Path("obs.csv")});
  ASSERT_EQ(s.status, 0) << s.err;
  CliResult r = RunCliInterrupted(
      {"estimate", "pf", "--scene", "sliding-sphere", "--obs", Path("obs.csv"), "--params", "mu",
       "--prior", "mu=uniform:0.1:0.9", "--noise", "uniform:1e-4", "--particles", "20000",
       "--threads", "1", "--out", Path("pf")},
      1.5);
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.out.find("\"partial\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("observations taken"), std::string::npos) << r.err;
}

// defects a fuzzing run found (issue 14), each fixed and kept so
TEST_F(CliTest, AParticleFilterWhosePosteriorCollapsesStillDrawsItsPlot) {
  // the posterior of 8 particles collapses to one value: the plot's tick step fell below one
  // ulp of the axis and its loop never ended
  CliResult s = RunCli({"estimate", "synth", "--scene", "falling-particle", "--noise",
                        "uniform:0.005", "--out", Path("obs.csv")});
  ASSERT_EQ(s.status, 0) << s.err;
  CliResult r = RunCli({"estimate", "pf", "--scene", "falling-particle", "--obs", Path("obs.csv"),
                        "--params", "mu", "--prior", "mu=uniform:0:1", "--noise", "uniform:0.01",
                        "--particles", "8", "--out", Path("pf")},
                       "timeout 60 ");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Exists(Path("pf.png")));
}

TEST_F(CliTest, NonTextTargetTableIsRefusedNotReadForever) {
  CliResult r =
      RunCli({"plate", "optimize", "--target", "/dev/zero", "--out", Path("o")}, "timeout 60 ");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("not a text table"), std::string::npos) << r.err;
}

TEST_F(CliTest, OutputsNamingADirectoryAreRefused) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"grasp", "--grid", "1x1", "--trials", "1"},
           {"plate", "field", "--grid", "1x1", "--seconds", "0.01"},
           {"simulate", "falling-particle"}}) {
    args.insert(args.end(), {"--out", Path("") + "/"});
    CliResult r = Run(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("a directory"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(Exists(Path(".csv")));
}

TEST_F(CliTest, NonFiniteResidualIsJsonNull) {
  // a 1-row LCP at the edge of the doubles: M = 1e308, q = -1e308 (w = M z + q overflows)
  std::string f = Path("big.dat");
  std::FILE* out = std::fopen(f.c_str(), "w");
  ASSERT_NE(out, nullptr);
  std::fputs("1\n0\n1\n1\n1\t1\n1e308\n-1e308\n", out);
  std::fclose(out);
  CliResult r = Run({"solve", f, "--solver", "all"});
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
  int nulls = 0;
  for (const auto& line : Lines(r.out)) {
    if (line.find("\"residual\": null") == std::string::npos) continue;
    nulls++;
    EXPECT_NE(line.find("\"stop\": \"non-finite\""), std::string::npos) << line;
  }
  EXPECT_GT(nulls, 0) << "the solvers whose residual overflows (6 of them printed -nan)";
}

// a corrupt FCLib file: the reader's error, and nothing of HDF5's after it ("infinite loop
// closing library" at exit, when HDF5 could not shut down after the file)
TEST_F(CliTest, CorruptHdf5FileGivesOneLine) {
  std::string src = DataFile("fc3d/Box_Stacks-i0122-82-5.hdf5");
  if (!Exists(src)) FAIL() << "tests/data missing";
  std::string bytes = ReadFile(src);
  // eight bytes of a fuzzing run that left HDF5 unable to close
  const std::pair<size_t, unsigned char> patch[] = {{61, 90},    {1843, 211}, {1913, 248},
                                                    {1952, 160}, {4055, 245}, {4103, 224},
                                                    {4331, 162}, {5623, 115}};
  for (const auto& p : patch) bytes[p.first] = static_cast<char>(p.second);
  std::string f = Path("corrupt.hdf5");
  std::ofstream(f, std::ios::binary) << bytes;
  CliResult r = Run({"solve", f});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("/fclib_global/spacedim"), std::string::npos) << r.err;
}

// an error quoting a binary file's bytes prints them escaped: one line, no control bytes
TEST_F(CliTest, ErrorsShowBinaryBytesEscaped) {
  std::string f = Path("bin.dat");
  std::ofstream(f, std::ios::binary) << std::string("3\n\x01\x1b[2J\xff\xfe\n", 10);
  CliResult r = Run({"solve", f});
  EXPECT_EQ(r.status, 2);
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (size_t i = 0; i + 1 < r.err.size(); i++) {
    unsigned char c = static_cast<unsigned char>(r.err[i]);
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "byte " << i << " of " << r.err;
  }
  EXPECT_NE(r.err.find("\\x1b"), std::string::npos) << r.err;
}

// estimate fit opens its log before fitting: an unwritable one is an error before any JSON
// (it used to print the fit and then exit 2), and a written one is whole
TEST_F(CliTest, EstimateFitChecksItsLogFirst) {
  CliResult s = RunCli({"estimate", "synth", "--scene", "sliding-sphere", "--steps", "200",
                        "--every", "10", "--out", Path("obs.csv")});
  ASSERT_EQ(s.status, 0) << s.err;
  std::vector<std::string> fit = {"estimate",      "fit",      "--scene", "sliding-sphere", "--obs",
                                  Path("obs.csv"), "--params", "mu",      "--out"};
  auto with = [&](const std::string& out) {
    auto a = fit;
    a.push_back(out);
    return a;
  };
  ExpectRejected(with(Path("no/such/fit")), {"no/such/fit.csv"});
  CliResult r = Run(with(Path("fit")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_GT(Lines(ReadFile(Path("fit.csv"))).size(), 1u);
  EXPECT_FALSE(Exists(Path("fit.csv.part")));
}

// more threads than memory allows: one line naming --threads, before any work (OpenMP's runtime
// used to end the run with "libgomp: Thread creation failed")
TEST_F(CliTest, ThreadsThatCannotStartAreNamed) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#else
  CliResult r =
      RunCli({"grasp", "--grid", "1x1", "--trials", "1", "--threads", "4096", "--out", Path("g")},
             "ulimit -s 8192; ulimit -v 8000000; ");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--threads 4096: cannot start that many threads"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(Exists(Path("g.csv")));
#endif
}

TEST_F(CliTest, ImpossiblePlateParametersAreNamed) {
  // a rocking period shorter than a step overflowed the count of periods averaged
  ExpectRejected({"plate", "field", "--motion", "rocking", "--param", "T=1e-10", "--grid", "1x1",
                  "--out", Path("p")},
                 {"plate period"});
  // the grid sets the starts: a start given as a parameter was silently overridden
  ExpectRejected({"plate", "field", "--param", "x0=1e300", "--grid", "1x1", "--out", Path("p")},
                 {"x0", "--grid"});
  ExpectRejected({"grasp", "stray", "--grid", "1x1"}, {"unexpected argument 'stray'"});
  ExpectRejected({"grasp3d", "--tol", "1e-400"}, {"--tol", "1e-400", "below the smallest double"});
  EXPECT_FALSE(Exists(Path("p.csv")));
}

// absurd sizes are refused before any work, naming their size (issue 14); --yes starts them, and
// a batch beyond the machine's memory is refused whatever is said
TEST_F(CliTest, AbsurdSizesAreRefusedWithTheirCost) {
  ExpectRejected({"simulate", "box-stack", "--steps", "1000000000"},
                 {"1 scenes x 1000000000 steps", "1e+09 scene-steps", "--yes"});
  ExpectRejected({"grasp", "--grid", "4096x4096"}, {"503316480 trials", "--yes"});
  ExpectRejected({"grasp3d", "--grid", "1000x1000", "--trials", "100"},
                 {"100000000 trials", "--yes"});
  ExpectRejected({"plate", "field", "--grid", "4096x4096", "--seconds", "100", "--out", Path("p")},
                 {"16777216 starts", "--yes"});
  ASSERT_EQ(Run({"estimate", "synth", "--scene", "falling-particle", "--noise", "uniform:0.005",
                 "--out", Path("obs.csv")})
                .status,
            0);
  ExpectRejected({"estimate", "pf", "--scene", "falling-particle", "--obs", Path("obs.csv"),
                  "--params", "mu", "--prior", "mu=uniform:0:1", "--noise", "uniform:0.01",
                  "--particles", "100000000", "--out", Path("pf")},
                 {"100000000 particles", "--yes"});
  ExpectRejected({"simulate", "plate-particle", "--scenes", "1000000000", "--steps", "0", "--yes"},
                 {"scenes 1000000000", "GB", "memory"});
  ExpectRejected(
      {"simulate", "box-stack", "--scenes", "100000", "--steps", "9000", "--every", "1", "--yes"},
      {"--out", "GB", "--every"});
  EXPECT_FALSE(Exists(Path("p.csv")));
  CliResult r = RunCli({"simulate", "box-stack", "--steps", "1000000000", "--yes"}, "timeout 2 ");
  EXPECT_EQ(r.status, 124) << "--yes: the run starts (and is stopped by the timeout)\n" << r.err;
}

// plate field and grasp3d: kill -9 at any point, then --resume: the outputs are bitwise the
// uninterrupted ones (grasp has its own test)
TEST_F(CliTest, ResumedStudiesAreTheUninterruptedOnes) {
  const std::vector<std::string> cases[2] = {
      {"plate", "field", "--grid", "10x10", "--seconds", "1", "--threads", "1", "--out"},
      {"grasp3d", "--grid", "3x3", "--trials", "20", "--threads", "1", "--out"}};
  for (const auto& args : cases) {
    auto with = [&](const std::string& out) {
      auto v = args;
      v.push_back(out);
      return v;
    };
    ASSERT_EQ(Run(with(Path("whole"))).status, 0) << args[0];
    std::string whole = ReadFile(Path("whole.csv"));
    int resumed = 0;
    for (double at : {0.4, 0.9}) {
      std::string out = Path(args[0] + std::to_string(resumed));
      RunKilledAfter(with(out), at);
      resumed += Exists(out + ".journal");
      auto again = with(out);
      again.push_back("--resume");
      CliResult r = Run(again);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(ReadFile(out + ".csv"), whole) << args[0] << " killed at " << at << " s";
      EXPECT_FALSE(Exists(out + ".journal"));
    }
    EXPECT_GT(resumed, 0) << args[0] << ": no kill landed inside the study";
  }
}

// simulate (each finished chunk's scenes journaled whole), plate optimize and estimate fit (each
// objective call's values or batch's predictions journaled; they then retrace their steps) and
// estimate pf (a checkpoint of the whole filter, replaced once a second): kill -9 at any point,
// then --resume; the outputs are bitwise those of a run never killed (wall times aside)
TEST_F(CliTest, ResumedSimulationSearchFilterAndFitAreTheUninterruptedOnes) {
  ASSERT_EQ(Run({"estimate", "synth", "--scene", "sliding-sphere", "--steps", "4000", "--every",
                 "20", "--noise", "uniform:1e-4", "--out", Path("obs.csv")})
                .status,
            0);
  ASSERT_EQ(
      Run({"estimate", "synth", "--scene", "falling-particles", "--param", "count=4", "--steps",
           "4000", "--every", "20", "--noise", "gauss:1e-3", "--out", Path("obs4.csv")})
          .status,
      0);
  struct Case {
    std::vector<std::string> args;
    std::string ext;  // --out PREFIX + ext
    std::vector<std::string> files;
  };
  const Case cases[4] = {
      {{"simulate", "sliding-sphere", "--scenes", "2000", "--steps", "2000", "--every", "200",
        "--param", "mu=uniform:0.1:0.5", "--threads", "1", "--out"},
       ".csv",
       {".csv", "-scenes.csv"}},
      {{"plate", "optimize", "--target", "circle", "--optimizer", "both", "--starts", "4",
        "--horizon", "2", "--evals", "60", "--threads", "1", "--out"},
       "",
       {"-best.csv", "-field.csv", "-nelder-mead.csv", "-cmaes.csv"}},
      {{"estimate", "pf", "--scene", "sliding-sphere", "--obs", Path("obs.csv"), "--params", "mu",
        "--prior", "mu=uniform:0.1:0.9", "--noise", "uniform:1e-4", "--particles", "1000",
        "--threads", "1", "--out"},
       "",
       {".csv", ".png"}},
      {{"estimate", "fit", "--scene", "falling-particles", "--param", "count=4", "--obs",
        Path("obs4.csv"), "--params", "mu1,mu2,mu3,mu4", "--init", "mu1=0.3", "--init", "mu2=0.4",
        "--threads", "1", "--out"},
       "",
       {".csv"}}};
  // an optimizer's history without its wall-time column (iteration,evaluations,seconds,...)
  auto strip = [](const std::string& csv) {
    std::string out;
    for (const auto& line : Lines(csv)) {
      auto f = Split(line, ',');
      if (f.size() == 5) f.erase(f.begin() + 2);
      for (size_t i = 0; i < f.size(); i++) out += (i ? "," : "") + f[i];
      out += "\n";
    }
    return out;
  };
  for (const auto& c : cases) {
    auto with = [&](const std::string& out) {
      auto v = c.args;
      v.push_back(out + c.ext);
      return v;
    };
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(Run(with(Path("whole"))).status, 0) << c.args[0];
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int resumed = 0;
    // kills at fixed times missed the fit where a run takes 0.77 s: at fractions of the whole
    // run's time one lands inside it on any machine
    for (double at : {0.3 * took, 0.7 * took}) {
      std::string out = Path(c.args[1] + std::to_string(resumed));
      RunKilledAfter(with(out), at);
      std::string journal = out + c.ext + ".journal";
      resumed += Exists(journal);
      auto again = with(out);
      again.push_back("--resume");
      CliResult r = Run(again);
      ASSERT_EQ(r.status, 0) << r.err;
      for (const auto& f : c.files) {
        EXPECT_EQ(strip(ReadFile(out + f)), strip(ReadFile(Path("whole") + f)))
            << c.args[0] << f << ", killed at " << at << " s";
      }
      EXPECT_FALSE(Exists(journal));
    }
    EXPECT_GT(resumed, 0) << c.args[1] << ": no kill landed inside the run";
  }
  // a batch without --out has nothing to resume from
  CliResult r = Run({"simulate", "sliding-sphere", "--resume"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
}

// gravity is a parameter like the rest: the free fall before landing follows it exactly
// (semi-implicit Euler: z_k = z_0 - g h^2 k (k + 1) / 2)
TEST_F(CliTest, GravityIsAParameter) {
  std::string out = Path("g.csv");
  CliResult r = Run({"simulate", "falling-particle", "--scenes", "2", "--steps", "5", "--param",
                     "gravity_z=-9.81:-1.62", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  double g[2] = {9.81, 1.62}, h = 0.05;
  int seen = 0;
  for (const auto& line : Lines(ReadFile(out))) {
    auto f = Split(line, ',');
    if (f[0] == "scene" || f[1] != "5") continue;
    int s = std::stoi(f[0]);
    EXPECT_NEAR(std::stod(f[6]), 3.0 - g[s] * h * h * 15.0, 1e-12) << line;
    seen++;
  }
  EXPECT_EQ(seen, 2);
}

// --out FILE.h5: the same numbers as the CSV pair, as arrays: pos/quat/vel (scene x record x
// body x width), the parameter table, the status columns, the command line as an attribute
namespace {

// every column of the CSV table at csv is dataset GROUP/COLUMN of f: numbers bitwise (%.17g and
// %.9g round-trip through strtod), text as written
void ExpectTableIs(hid_t f, const std::string& group, const std::string& csv) {
  auto rows = Lines(ReadFile(csv));
  ASSERT_GT(rows.size(), 1u) << csv;
  auto head = Split(rows[0], ',');
  for (size_t c = 0; c < head.size(); c++) {
    std::string name = group + "/" + head[c];
    hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    ASSERT_GE(d, 0) << name;
    hid_t type = H5Dget_type(d);
    if (H5Tget_class(type) == H5T_FLOAT) {
      std::vector<double> v(rows.size() - 1);
      ASSERT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
      for (size_t r = 1; r < rows.size(); r++) {
        double want = std::strtod(Split(rows[r], ',')[c].c_str(), nullptr);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(v[r - 1])) << name << " row " << r;
        } else {
          EXPECT_EQ(v[r - 1], want) << name << " row " << r;
        }
      }
    } else {
      size_t width = H5Tget_size(type);
      std::vector<char> text(width * (rows.size() - 1));
      ASSERT_GE(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), 0);
      for (size_t r = 1; r < rows.size(); r++)
        EXPECT_EQ(std::string(&text[(r - 1) * width]), Split(rows[r], ',')[c]) << name;
    }
    H5Tclose(type);
    H5Dclose(d);
  }
}

}  // namespace

// the per-scene tables of grasp, grasp3d and plate field: --out PREFIX.h5 holds what the CSV
// files hold, with the command line and whether the run was partial
TEST_F(CliTest, Hdf5TablesHoldTheCsvTables) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> tables;  // group, CSV suffix
  } cases[] = {
      {{"grasp", "--grid", "2x2", "--trials", "2"}, {{"cells", ".csv"}, {"trials", "-trials.csv"}}},
      {{"grasp3d", "--grid", "2x1", "--trials", "2"}, {{"cells", ".csv"}}},
      {{"plate", "field", "--grid", "2x2", "--seconds", "0.1"}, {{"starts", ".csv"}}}};
  for (const auto& c : cases) {
    auto a = c.args;
    a.insert(a.end(), {"--out", Path(c.args[0])});
    ASSERT_EQ(Run(a).status, 0) << c.args[0];
    a.back() = Path(c.args[0] + ".h5");
    CliResult r = Run(a);
    ASSERT_EQ(r.status, 0) << r.err;
    hid_t f = H5Fopen(Path(c.args[0] + ".h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0) << c.args[0];
    for (const auto& t : c.tables) ExpectTableIs(f, t.first, Path(c.args[0] + t.second));
    char text[4096] = "";
    ASSERT_GE(H5LTget_attribute_string(f, "/", "command_line", text), 0);
    EXPECT_NE(std::string(text).find(c.args[0] + ".h5"), std::string::npos) << text;
    ASSERT_GE(H5LTget_attribute_string(f, "/", "partial", text), 0);
    EXPECT_EQ(std::string(text), "false");
    H5Fclose(f);
  }
}

TEST_F(CliTest, Hdf5OutputHoldsTheCsvNumbersAndTheirInputs) {
  std::vector<std::string> args = {
      "simulate", "box-stack", "--scenes", "3",       "--steps",
      "20",       "--every",   "10",       "--param", "mu=uniform:0.2:0.6"};
  auto with = [&](const std::string& out) {
    auto a = args;
    a.insert(a.end(), {"--out", out});
    return a;
  };
  ASSERT_EQ(Run(with(Path("s.csv"))).status, 0);
  std::string h5 = Path("s.h5");
  ASSERT_EQ(Run(with(h5)).status, 0);
  EXPECT_FALSE(Exists(Path("s-scenes.csv.part")));
  hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  auto dims = [&](const char* name) {
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t sp = H5Dget_space(d);
    hsize_t v[4] = {0, 0, 0, 0};
    int rank = H5Sget_simple_extent_dims(sp, v, nullptr);
    H5Sclose(sp);
    H5Dclose(d);
    return std::vector<hsize_t>(v, v + rank);
  };
  EXPECT_EQ(dims("pos"), (std::vector<hsize_t>{3, 3, 3, 3}));  // scenes, records, boxes, xyz
  EXPECT_EQ(dims("vel"), (std::vector<hsize_t>{3, 3, 3, 6}));
  std::vector<double> pos(81), param(3 * 64);
  ASSERT_GE(H5LTread_dataset_double(f, "pos", pos.data()), 0);
  // every pos in the CSV is the HDF5's, bitwise (%.17g round-trips)
  int checked = 0;
  for (const auto& line : Lines(ReadFile(Path("s.csv")))) {
    auto c = Split(line, ',');
    if (c[0] == "scene") continue;
    int s = std::stoi(c[0]), r = std::stoi(c[1]) / 10, b = c[3].back() - '0';
    for (int k = 0; k < 3; k++) EXPECT_EQ(pos[((s * 3 + r) * 3 + b) * 3 + k], std::stod(c[4 + k]));
    checked++;
  }
  EXPECT_EQ(checked, 27);
  // the parameter table and status against the CSV summary
  auto sum = Lines(ReadFile(Path("s-scenes.csv")));
  auto head = Split(sum[0], ',');
  size_t mu = (size_t)(std::find(head.begin(), head.end(), "mu") - head.begin());
  size_t np = dims("param")[1];
  ASSERT_GE(H5LTread_dataset_double(f, "param", param.data()), 0);
  int status[3];
  ASSERT_GE(H5LTread_dataset_int(f, "status", status), 0);
  for (int s = 0; s < 3; s++) {
    auto row = Split(sum[s + 1], ',');
    EXPECT_EQ(param[s * np + (mu - 1)], std::stod(row[mu])) << "scene " << s;
    EXPECT_EQ(
        status[s],
        std::stoi(row[(size_t)(std::find(head.begin(), head.end(), "status") - head.begin())]));
  }
  char cmd[4096] = "";
  ASSERT_GE(H5LTget_attribute_string(f, "/", "command_line", cmd), 0);
  EXPECT_NE(std::string(cmd).find("mu=uniform:0.2:0.6"), std::string::npos) << cmd;
  ASSERT_GE(H5LTget_attribute_string(f, "/", "version", cmd), 0);
  EXPECT_EQ(std::string(cmd).rfind("0.", 0), 0u) << cmd;
  H5Fclose(f);
}

TEST_F(CliTest, VersionNamesTheReleaseAndCommit) {
  CliResult r = Run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("tumble 0.", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
}

}  // namespace

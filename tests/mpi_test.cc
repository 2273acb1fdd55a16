// Many processes on one study (host/cli/cli_mpi.c, host/rollout/process_split.c): under `mpirun -np
// 1, 2, 3` on this machine (loopback only) every long command writes the files one process writes,
// bitwise; a study killed under one process count resumes under another; a failure of rank 0 alone
// ends the job with its status instead of leaving the others waiting.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

class MpiTest : public CliFixture {
 protected:
  void SetUp() override {
#ifndef TUMBLE_MPIEXEC
    GTEST_SKIP() << "built without MPI (libopenmpi-dev)";
#endif
    CliFixture::SetUp();
  }

  // `mpirun -np n tumble` (n = 0: tumble alone) under a 300 s timeout; loopback and shared
  // memory only, more processes than cores allowed, root allowed (CI's containers). Under the
  // sanitizers (scripts/sanitize.sh) the launched processes check addresses and undefined
  // behaviour but not leaks: Open MPI unloads its plugins at MPI_Finalize, and what they hold
  // then has no frame a suppression could name
  static std::string Tumble(int n) {
    std::string cmd = "timeout 300 ";
#ifdef TUMBLE_MPIEXEC
    if (n > 0) {
      const char* asan = getenv("ASAN_OPTIONS");
      cmd =
          "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
          "OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_vader_single_copy_mechanism=none "
          "ASAN_OPTIONS=" +
          Quote(std::string(asan ? asan : "") + ":detect_leaks=0") + " " + cmd +
          Quote(TUMBLE_MPIEXEC) + " --oversubscribe -np " + std::to_string(n) + " ";
    }
#endif
    return cmd + Quote(TUMBLE_CLI);
  }

  CliResult Launch(int n, const std::vector<std::string>& args) {
    std::string cmd = Tumble(n);
    for (const auto& a : args) cmd += " " + Quote(a);
    return RunShell(cmd);
  }

  // the command with --out PREFIX under 0 (alone), 1, 2 and 3 processes: each file PREFIX +
  // suffix the same bytes as alone (after `strip`, for files that hold wall times)
  void ExpectSameOutputs(const std::vector<std::string>& args,
                         const std::vector<std::string>& suffixes,
                         std::string (*strip)(const std::string&) = nullptr) {
    std::vector<std::string> alone;
    for (int n = 0; n <= 3; n++) {
      std::string prefix = Path(args[0] + "-np" + std::to_string(n));
      auto with = args;
      with.push_back("--out");
      with.push_back(prefix);
      CliResult r = Launch(n, with);
      ASSERT_EQ(r.status, 0) << args[0] << " under " << n << " processes: " << r.err;
      for (size_t k = 0; k < suffixes.size(); k++) {
        std::string bytes = ReadFile(prefix + suffixes[k]);
        if (strip) bytes = strip(bytes);
        if (n == 0) {
          ASSERT_FALSE(bytes.empty()) << prefix + suffixes[k];
          alone.push_back(bytes);
        } else {
          EXPECT_EQ(bytes, alone[k]) << args[0] << suffixes[k] << " under " << n << " processes";
        }
      }
    }
  }
};

// an optimizer's history without its wall-time column (iteration,evaluations,seconds,...)
std::string WithoutSeconds(const std::string& csv) {
  std::string out;
  for (const auto& line : Lines(csv)) {
    auto f = Split(line, ',');
    if (f.size() > 2) f.erase(f.begin() + 2);
    for (size_t i = 0; i < f.size(); i++) out += (i ? "," : "") + f[i];
    out += "\n";
  }
  return out;
}

TEST_F(MpiTest, GraspStudyIsOneProcesssForAnyProcessCount) {
  ExpectSameOutputs({"grasp", "--grid", "3x3", "--trials", "3", "--chunk", "8", "--threads", "1"},
                    {".csv", "-trials.csv", ".png"});
}

TEST_F(MpiTest, Grasp3dStudyIsOneProcesssForAnyProcessCount) {
  ExpectSameOutputs({"grasp3d", "--grid", "2x2", "--trials", "3", "--threads", "1"},
                    {".csv", ".png"});
}

TEST_F(MpiTest, PlateFieldIsOneProcesssForAnyProcessCount) {
  ExpectSameOutputs({"plate", "field", "--grid", "5x5", "--seconds", "0.5", "--threads", "1"},
                    {".csv", ".png"});
}

// the optimizer's population is split: every process takes the same steps from the same values
TEST_F(MpiTest, PlateOptimizeIsOneProcesssForAnyProcessCount) {
  ExpectSameOutputs({"plate", "optimize", "--target", "circle", "--optimizer", "both", "--starts",
                     "2", "--horizon", "0.5", "--evals", "16", "--threads", "1"},
                    {"-best.csv", "-field.csv", "-nelder-mead.csv", "-cmaes.csv"}, WithoutSeconds);
}

// the particles are split; every resampling draws from the whole cloud
TEST_F(MpiTest, ParticleFilterIsOneProcesssForAnyProcessCount) {
  CliResult s = Launch(0, {"estimate", "synth", "--scene", "falling-particle", "--noise",
                           "uniform:0.005", "--out", Path("obs.csv")});
  ASSERT_EQ(s.status, 0) << s.err;
  ExpectSameOutputs({"estimate", "pf", "--scene", "falling-particle", "--obs", Path("obs.csv"),
                     "--params", "mu", "--prior", "mu=uniform:0:1", "--noise", "uniform:0.01",
                     "--particles", "60", "--threads", "1"},
                    {".csv"});
}

// the fit's batches (its scan, Jacobians and trial points) are split alike
TEST_F(MpiTest, FitIsOneProcesssForAnyProcessCount) {
  CliResult s = Launch(
      0, {"estimate", "synth", "--scene", "falling-particles", "--param", "count=3", "--steps",
          "400", "--every", "10", "--noise", "gauss:1e-3", "--out", Path("obs3.csv")});
  ASSERT_EQ(s.status, 0) << s.err;
  ExpectSameOutputs(
      {"estimate", "fit", "--scene", "falling-particles", "--param", "count=3", "--obs",
       Path("obs3.csv"), "--params", "mu1,mu2,mu3", "--init", "mu1=0.3", "--threads", "1"},
      {".csv"});
}

TEST_F(MpiTest, SimulateIsOneProcesssForAnyProcessCount) {
  ExpectSameOutputs({"simulate", "box-stack", "--scenes", "5", "--steps", "100", "--every", "10",
                     "--param", "mu=uniform:0.2:0.6", "--threads", "1"},
                    {"", "-scenes.csv"});
}

// kill -9 under two processes, --resume under three: the files of a run never killed. The
// study takes about 1.7 s under two processes on an idle 2-core machine (a 4x4 grid of 30
// trials had come to take 0.8 s, ending before the first kill), longer under load
TEST_F(MpiTest, StudyKilledUnderTwoProcessesResumesUnderThree) {
  std::vector<std::string> args = {"grasp", "--grid",    "6x6", "--trials", "40", "--chunk",
                                   "8",     "--threads", "1",   "--seed",   "4",  "--out"};
  auto with = [&](const std::string& out) {
    auto v = args;
    v.push_back(out);
    return v;
  };
  ASSERT_EQ(Launch(0, with(Path("whole"))).status, 0);
  int resumed = 0;
  for (double at : {0.6, 1.2}) {
    std::string out = Path("k" + std::to_string(resumed));
    std::string cmd = Tumble(2);
    for (const auto& a : with(out)) cmd += " " + Quote(a);
    // the processes themselves are killed (their command lines name out), then mpirun ends
    RunShell("sh -c " + Quote(cmd + " >/dev/null 2>&1 & p=$!; sleep " + std::to_string(at) +
                              "; pkill -9 -f " + Quote(out) + "; wait $p"));
    resumed += Exists(out + ".journal");
    auto again = with(out);
    again.push_back("--resume");
    CliResult r = Launch(3, again);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* suffix : {".csv", "-trials.csv", ".png"}) {
      EXPECT_EQ(ReadFile(out + suffix), ReadFile(Path("whole") + suffix))
          << suffix << ", killed at " << at << " s";
    }
    EXPECT_FALSE(Exists(out + ".journal"));
  }
  EXPECT_GT(resumed, 0) << "no kill landed inside the study";
}

// rank 0 alone cannot write its output: the job ends with exit 2 and rank 0's message, while the
// other processes were already computing
TEST_F(MpiTest, AFailureOfRankZeroAloneEndsTheJob) {
  CliResult r =
      Launch(2, {"grasp", "--grid", "3x3", "--trials", "3", "--out", Path("missing/dir/x")});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  // one copy of the message, not one per process
  CliResult bad = Launch(3, {"grasp", "--grid", "0x3"});
  EXPECT_EQ(bad.status, 2);
  size_t first = bad.err.find("--grid");
  ASSERT_NE(first, std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("--grid", first + 1), std::string::npos) << bad.err;
}

}  // namespace

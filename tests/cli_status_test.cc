// Statuses and notices a user can trust (issue 63): bare `tumble` answers with its overview, an
// unconverged run says so on stderr with the worst residual and the options that cure it, and
// --resume says what it took from the journal, or that there was none.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

class CliStatusTest : public CliFixture {
 protected:
  // the stderr line of an unconverged run: "tumble: COMMAND: COUNT(s) ..." with the worst
  // residual and the cure
  void ExpectUnconverged(const std::vector<std::string>& args, const std::string& command,
                         const std::string& count, const std::string& cure) {
    CliResult r = RunCli(args);
    ASSERT_EQ(r.status, 0) << command << ": " << r.err;
    EXPECT_NE(r.out.find("\"unconverged"), std::string::npos) << r.out;
    std::string line = "tumble: " + command + ": " + count +
                       "(s) had a step whose solver stopped above its tolerance (unconverged; "
                       "worst residual ";
    EXPECT_NE(r.err.find(line), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find(cure), std::string::npos) << command << ": " << r.err;
  }
};

// catches bare `tumble` starting the full 13,230-trial grasp study (97 s, files written in the
// working directory) instead of answering a newcomer's "what is this?" with the overview
TEST_F(CliStatusTest, BareTumblePrintsTheOverview) {
  CliResult r = RunShell("cd " + Quote(dir_) + " && timeout 30 " + Quote(TUMBLE_CLI));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: tumble", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("tumble grasp"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir_)) << "bare tumble wrote files";
}

// catches a run whose scenes all ended steps above the solver's tolerance saying nothing on
// stderr (only the JSON's count and max_residual, which reads as a cap), in every command that
// counts them
TEST_F(CliStatusTest, UnconvergedRunsSaySoOnStderr) {
  ExpectUnconverged({"simulate", "box-stack", "--scenes", "2", "--steps", "20", "--max-iter", "1"},
                    "simulate", "2 scene",
                    "raise --max-iter, loosen --solver-tol or try another --solver");
  ExpectUnconverged(
      {"grasp", "--grid", "1x1", "--trials", "1", "--max-iter", "1", "--out", Path("g")}, "grasp",
      "1 trial", "raise --max-iter, loosen --solver-tol or try another --solver");
  ExpectUnconverged(
      {"grasp3d", "--grid", "1x1", "--trials", "1", "--max-iter", "3", "--out", Path("g3")},
      "grasp3d", "1 trial", "raise --max-iter, loosen --tol or try another --solver");
}

// catches --resume without a journal starting from scratch without a word, in every command
// that takes --resume with an --out of its own
TEST_F(CliStatusTest, ResumeWithoutAJournalSaysSo) {
  const std::vector<std::vector<std::string>> cases = {
      {"simulate", "sliding-sphere", "--scenes", "2", "--steps", "5", "--out", Path("s.csv")},
      {"grasp", "--grid", "1x1", "--trials", "1", "--out", Path("g")},
      {"grasp3d", "--grid", "1x1", "--trials", "1", "--out", Path("g3")},
      {"plate", "field", "--grid", "1x1", "--seconds", "0.1", "--out", Path("p")}};
  const std::string journals[] = {Path("s.csv.journal"), Path("g.journal"), Path("g3.journal"),
                                  Path("p.journal")};
  for (size_t i = 0; i < cases.size(); i++) {
    auto args = cases[i];
    args.push_back("--resume");
    CliResult r = RunCli(args);
    std::string command = args[0] == "plate" ? "plate field" : args[0];
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
    EXPECT_NE(r.err.find("tumble: " + command + ": --resume: no journal at " + journals[i] +
                         ", starting from scratch\n"),
              std::string::npos)
        << command << ": " << r.err;
  }
}

// catches a resumed study not saying how much of it the journal gave back: the grasp study
// interrupted (Ctrl-C keeps its journal), then resumed
TEST_F(CliStatusTest, ResumeSaysHowMuchItReused) {
  const std::vector<std::string> args = {"grasp", "--grid",  "5x5",    "--trials",
                                         "40",    "--chunk", "10",     "--threads",
                                         "1",     "--out",   Path("g")};
  bool landed = false;
  // the signal must land after the first chunk and before the last (the study takes about 30 s
  // on one thread, far more under the sanitizers): later and later until a journal stays
  for (double at = 0.25; at < 30.0 && !landed; at *= 2.0) {
    RunCliInterrupted(args, at);
    if (!Exists(Path("g.journal"))) continue;  // no chunk had ended: a later signal
    landed = true;
    auto again = args;
    again.push_back("--resume");
    // the notice comes as the journal is read: the rest of the study is cut short again
    CliResult r = RunCliInterrupted(again, 0.5);
    EXPECT_TRUE(r.status == 130 || r.status == 0) << r.err;
    EXPECT_TRUE(std::regex_search(
        r.err, std::regex("tumble: grasp: resumed [1-9][0-9]* of 1000 trials from " +
                          Path("g.journal") + "\n")))
        << r.err;
    break;
  }
  EXPECT_TRUE(landed) << "no interrupt landed inside the study";
}

}  // namespace

// Errors that suggest the fix and statuses a user can trust (issue 63): a misspelled option,
// scene, parameter or value is answered with the closest name (or the names to choose from), a
// length in an unknown unit with the units, a repeated --param is refused naming both, an --out
// name of another format gets a notice, and max_residual is printed with its digits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "util/suggest.h"

namespace {

class CliSuggestTest : public CliFixture {};

// the number after "key": in a JSON line
double JsonValue(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\": ");
  EXPECT_NE(at, std::string::npos) << key << " not in " << json;
  return at == std::string::npos ? NAN : std::strtod(json.c_str() + at + key.size() + 4, nullptr);
}

// the largest value of a CSV file's column
double ColumnMax(const std::string& csv, const std::string& column) {
  std::vector<std::string> lines = Lines(csv);
  EXPECT_GE(lines.size(), 2u);
  if (lines.size() < 2) return NAN;
  std::vector<std::string> head = Split(lines[0], ',');
  size_t c = std::find(head.begin(), head.end(), column) - head.begin();
  EXPECT_LT(c, head.size()) << column << " not in " << lines[0];
  double best = 0.0;
  for (size_t i = 1; i < lines.size() && c < head.size(); i++) {
    best = std::max(best, std::strtod(Split(lines[i], ',')[c].c_str(), nullptr));
  }
  return best;
}

// Catches a distance that is not Damerau-Levenshtein (a swap counted as 2) and a closeness
// bound that suggests unrelated names (--x for --dt) or misses one-letter slips.
TEST(SuggestTest, ClosestIsWithinAThirdOfTheWord) {
  EXPECT_EQ(tb_editDistance("--scene", "--scenes"), 1);
  EXPECT_EQ(tb_editDistance("pgs", "pgz"), 1);
  EXPECT_EQ(tb_editDistance("fats", "fast"), 1);  // a swap is one edit
  EXPECT_EQ(tb_editDistance("", "abc"), 3);
  const char* const opts[] = {"--scenes", "--steps", "--dt", nullptr};
  EXPECT_STREQ(tb_closest("--scene", opts, 4), "--scenes");
  EXPECT_STREQ(tb_closest("--stesp", opts, 4), "--steps");
  EXPECT_EQ(tb_closest("--x", opts, 4), nullptr);
  const char* const mu[] = {"low", "medium", "high"};
  EXPECT_EQ(tb_closest("med", mu, 3), nullptr);  // 3 edits from medium: too far for 3 letters
}

// Catches "unknown option '--scene'" without the option the user meant, in every command's
// parser (each had its own message).
TEST_F(CliSuggestTest, UnknownOptionSuggestsTheClosest) {
  ExpectRefused({"simulate", "falling-particle", "--scene", "3"},
                {"'--scene'", "did you mean --scenes?", "tumble simulate --help"});
  ExpectRefused({"grasp", "--centr", "0,0"}, {"did you mean --center?"});
  ExpectRefused({"grasp3d", "--objet", "box"}, {"did you mean --object?"});
  ExpectRefused({"plate", "field", "--gird", "3"}, {"did you mean --grid?"});
  ExpectRefused({"plate", "optimize", "--target", "circle", "--horizn", "1"},
                {"did you mean --horizon?"});
  ExpectRefused({"solve", "x.dat", "--tl", "1e-6"}, {"did you mean --tol?"});
  ExpectRefused({"estimate", "pf", "--scnee", "falling-particle"},
                {"did you mean --scene?", "tumble estimate pf --help"});
  // an option of another subcommand is not suggested: --steps is synth's, not pf's
  CliResult r = RunCli({"estimate", "pf", "--step", "3"});
  EXPECT_EQ(r.err.find("--steps"), std::string::npos) << r.err;
}

// Catches "unknown scene 'falling-particl'" that leaves the user to read the whole --list.
TEST_F(CliSuggestTest, UnknownSceneSuggestsTheClosest) {
  ExpectRefused({"simulate", "falling-particl"},
                {"'falling-particl'", "did you mean falling-particle?", "tumble simulate --list"});
  ExpectRefused({"estimate", "synth", "--scene", "pendulm", "--out", Path("o.csv")},
                {"did you mean pendulum?"});
}

// Catches "no parameter 'friction'" that names no parameter: a slip gets the closest name, and
// another engine's word the parameter whose description has it (mu: "friction coefficient").
TEST_F(CliSuggestTest, UnknownParameterSuggestsNames) {
  ExpectRefused({"simulate", "falling-particle", "--param", "stifness=1"},
                {"no parameter 'stifness'", "did you mean stiffness?"});
  ExpectRefused({"simulate", "falling-particle", "--param", "friction=0.5"},
                {"no parameter 'friction'", "did you mean mu?", "tumble simulate --list"});
  ExpectRefused({"estimate", "synth", "--scene", "falling-particle", "--param", "friction=1",
                 "--out", Path("o.csv")},
                {"no parameter 'friction'", "did you mean mu?"});
}

// Catches "unknown value 'med'" and "--solver pgz: unknown" that do not say what the choices
// are.
TEST_F(CliSuggestTest, UnknownValueListsTheChoices) {
  ExpectRefused({"grasp", "--surface-mu", "med"},
                {"unknown value 'med'", "expected low, medium or high"});
  ExpectRefused({"grasp", "--speed", "fats"}, {"did you mean fast?", "normal or fast"});
  ExpectRefused({"simulate", "falling-particle", "--solver", "pgz"},
                {"did you mean pgs?", "prox-gs", "tumble solve --list"});
  ExpectRefused({"plate", "field", "--motion", "centrifug"},
                {"did you mean centrifuge?", "rocking"});
}

// Catches "'20in' is not a number" for a length whose only fault is its unit.
TEST_F(CliSuggestTest, LengthInAnUnknownUnitListsTheUnits) {
  ExpectRefused({"grasp", "--extent", "20in"}, {"'20in'", "'in'", "mm, cm or m", "bare number"});
  ExpectRefused({"grasp3d", "--size", "3ft"}, {"'ft'", "mm, cm or m"});
}

// Catches a second --param for one name silently replacing the first (simulate), and an
// estimate error that named the parameter but not the two values that collide.
TEST_F(CliSuggestTest, RepeatedParamIsRefusedNamingBoth) {
  ExpectRefused({"simulate", "falling-particle", "--param", "mu=0.3", "--param", "mu=0.5"},
                {"--param mu=0.5", "--param mu=0.3"});
  ExpectRefused({"simulate", "falling-particle", "--dt", "0.001", "--param", "dt=0.002"},
                {"--param dt=0.002", "--dt 0.001"});
  ExpectRefused({"estimate", "synth", "--scene", "falling-particle", "--param", "mu=0.3", "--param",
                 "mu=0.5", "--out", Path("o.csv")},
                {"--param mu=0.5", "mu=0.3"});
}

// Catches --out x.txt written as CSV without a word, and a notice for the names the command
// takes as they are (.csv, .h5).
TEST_F(CliSuggestTest, OutOfAnotherFormatIsSaidToBeCsv) {
  CliResult r = RunCli({"simulate", "falling-particle", "--steps", "2", "--out", Path("x.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("x.txt: written as CSV"), std::string::npos) << r.err;
  r = RunCli({"simulate", "falling-particle", "--steps", "2", "--out", Path("x.csv")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("written as CSV"), std::string::npos) << r.err;
  r = RunCli({"estimate", "synth", "--scene", "falling-particle", "--steps", "2", "--out",
              Path("obs.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("obs.txt: written as CSV"), std::string::npos) << r.err;
}

// Catches max_residual printed to 2 or 3 digits, where it reads as the tolerance (1e-06 for
// 9.99e-07): the summary's value is the per-scene tables' largest to their 6 digits.
TEST_F(CliSuggestTest, MaxResidualKeepsItsDigits) {
  CliResult r = RunCli(
      {"simulate", "corner-hole", "--param", "corners=0", "--steps", "50", "--out", Path("s.csv")});
  ASSERT_EQ(r.status, 0) << r.err;
  double want = ColumnMax(ReadFile(Path("s-scenes.csv")), "max_residual");
  ASSERT_GT(want, 0.0);
  EXPECT_NEAR(JsonValue(r.out, "max_residual"), want, 1e-5 * want) << r.out;
  r = RunCli({"grasp", "--grid", "1", "--trials", "2", "--out", Path("g")});
  ASSERT_EQ(r.status, 0) << r.err;
  want = ColumnMax(ReadFile(Path("g-trials.csv")), "max_residual");
  ASSERT_GT(want, 0.0);
  EXPECT_NEAR(JsonValue(Lines(r.out).back(), "max_residual"), want, 1e-5 * want) << r.out;
}

}  // namespace

// Values that used to pass the checks (issue 66, items 9 and 10): a time step too short for the
// scene, a model file's values beyond what --param takes, quaternions whose norm overflows, and
// messages that blamed an internal parameter, said -nan or called a subnormal double out of range.
// Each command must exit 2 with one "tumble: error:" line naming the user's option (or the file's
// element) and value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

class CliValuesTest : public CliFixture {
 protected:
  // a model file in the scratch directory: one free box (principal inertia 1 2 3) at z = 1, with
  // `body` the attributes of its <body> and `rest` more elements after the worldbody
  std::string Model(const std::string& name, const std::string& option, const std::string& body,
                    const std::string& rest = "", const std::string& inertial = "mass=\"1\"") {
    std::string path = Path(name);
    std::ofstream(path) << "<mujoco model=\"values\">\n"
                        << option << "\n"
                        << "  <worldbody>\n"
                        << "    <body name=\"box\" pos=\"0 0 1\" " << body << ">\n"
                        << "      <freejoint/>\n"
                        << "      <inertial pos=\"0 0 0\" " << inertial
                        << " diaginertia=\"1 2 3\"/>\n"
                        << "      <geom name=\"box\" type=\"box\" size=\"0.1 0.2 0.3\"/>\n"
                        << "    </body>\n"
                        << "  </worldbody>\n"
                        << rest << "\n"
                        << "</mujoco>\n";
    return path;
  }

  // the world inertia diagonal of body "box" in `tumble model FILE` (columns I_xx, I_yy, I_zz)
  std::vector<double> WorldInertia(const std::string& file) {
    CliResult r = RunCli({"model", file});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> lines = Lines(r.out);
    for (const auto& line : lines) {
      std::vector<std::string> f = Split(line, ',');
      if (f.size() > 9 && f[0] == "box") {
        return {std::stod(f[7]), std::stod(f[8]), std::stod(f[9])};
      }
    }
    ADD_FAILURE() << "no row of body box in:\n" << r.out;
    return {0, 0, 0};
  }
};

//---- item 9: a time step the scene cannot take -------------------------------------------------

// bug: --dt 1e-300 ran, exited 0 and wrote NaN residuals; the step moves no body by a
// representable amount while the rows' gap / h overflows
TEST_F(CliValuesTest, DtBelowTheScenesSmallestStepIsRefused) {
  ExpectRefused({"simulate", "box-stack", "--dt", "1e-300", "--steps", "5"},
                {"--dt 1e-300", "smallest step", "s this scene allows"});
  ExpectRefused({"simulate", "box-stack", "--scenes", "2", "--param", "dt=1e-300:1e-3"},
                {"--param dt=1e-300:1e-3", "scene 0", "smallest step"});
  // a step of 1e-7 s is well above the bound (4.8e-9 s at 1 m): it runs
  CliResult r = RunCli({"simulate", "box-stack", "--dt", "1e-7", "--steps", "2"});
  EXPECT_EQ(r.status, 0) << r.err;
}

// bug: the studies' --dt took any value in (0, 0.01], 1e-300 included
TEST_F(CliValuesTest, StudiesDtBelowTheSmallestStepIsRefused) {
  ExpectRefused({"grasp", "--dt", "1e-300", "--out", Path("g")}, {"--dt 1e-300", "smallest step"});
  ExpectRefused({"grasp3d", "--dt", "1e-300", "--out", Path("g3")},
                {"--dt 1e-300", "smallest step"});
  ExpectRefused({"plate", "field", "--dt", "1e-300", "--out", Path("p")},
                {"--dt 1e-300", "smallest step"});
  ExpectRefused({"plate", "optimize", "--dt", "1e-300", "--out", Path("o")},
                {"--dt 1e-300", "smallest step"});
}

// bug: an MJCF timestep of 1e-300 was taken as it was
TEST_F(CliValuesTest, MjcfTimestepBelowTheSmallestStepIsRefused) {
  std::string f = Model("short.xml", "<option timestep=\"1e-300\"/>", "");
  ExpectRefused({"model", f}, {"short.xml:2", "<option> timestep=\"1e-300\"", "smallest step"});
  std::string g = Model("long.xml", "<option timestep=\"2\"/>", "");
  ExpectRefused({"model", g}, {"<option> timestep=\"2\"", "(0, 1] s"});
}

//---- item 9: a file's values pass the checks of --param ----------------------------------------

// bug: qvel="1e300 ..." was accepted (status ok, x = 5e298) where --param vx0 stops at 1e6
TEST_F(CliValuesTest, MjcfKeyframeVelocityBeyondTheParameterRangeIsRefused) {
  std::string f = Model("fast.xml", "", "", "<keyframe><key qvel=\"1e300 0 0 0 0 0\"/></keyframe>");
  ExpectRefused({"model", f}, {"<key> qvel", "1e+300", "[-1e+06, 1e+06]"});
  std::string g = Model("far.xml", "", "", "<keyframe><key qpos=\"1e7 0 1 1 0 0 0\"/></keyframe>");
  ExpectRefused({"model", g}, {"<key> qpos", "1e+07"});
  // the parameter's own check says the same range
  ExpectRefused({"simulate", "falling-particle", "--param", "vx0=1e300"},
                {"--param vx0=1e300", "[-1e+06, 1e+06] m/s"});
}

// bug: a file's named values skipped the ranges --param checks (a force of 1e300 N was taken)
TEST_F(CliValuesTest, MjcfNamedValueBeyondItsParameterRangeIsRefused) {
  std::string f = Model("force.xml", "", "",
                        "<custom><numeric name=\"tumble_force_box\" data=\"1e300 0 0 0 0 0\"/>"
                        "</custom>");
  ExpectRefused({"model", f}, {"force.xml", "tumble_force_box.data_0", "1e+300", "--param"});
}

// bug: mass="1e-320" was "param 'box.mass': target (1, 0, 0) x inf is invalid"
TEST_F(CliValuesTest, MjcfMassBelowTheSmallestMassIsRefused) {
  std::string f = Model("light.xml", "", "", "", "mass=\"1e-320\"");
  ExpectRefused({"model", f}, {"light.xml:6", "<inertial>", "below 1e-09 kg", "smallest mass"},
                {"target"});
}

// bug: quat="1e300 1e300 0 0" (the quarter turn about x) became the identity: its squared norm
// overflowed. The box's principal inertia 1 2 3 about x, y, z must read 1 3 2 in the world.
TEST_F(CliValuesTest, MjcfQuaternionOfHugeComponentsIsTheTurnItNames) {
  std::vector<double> unit = WorldInertia(Model("unit.xml", "", "quat=\"1 1 0 0\""));
  std::vector<double> huge = WorldInertia(Model("huge.xml", "", "quat=\"1e300 1e300 0 0\""));
  std::vector<double> tiny = WorldInertia(Model("tiny.xml", "", "quat=\"1e-300 1e-300 0 0\""));
  std::string key =
      Model("key.xml", "", "", "<keyframe><key qpos=\"0 0 1 1e300 1e300 0 0\"/></keyframe>");
  std::vector<double> keyed = WorldInertia(key);
  for (const auto* I : {&unit, &huge, &tiny, &keyed}) {
    EXPECT_NEAR((*I)[0], 1.0, 1e-12);
    EXPECT_NEAR((*I)[1], 3.0, 1e-12);
    EXPECT_NEAR((*I)[2], 2.0, 1e-12);
  }
}

//---- item 10: messages name the user's option and value ----------------------------------------

// bug: blamed on "param 'offset_x' = -5e+304", a parameter the user never gave
TEST_F(CliValuesTest, GraspExtentBeyondTheOffsetsIsNamed) {
  ExpectRefused({"grasp", "--extent", "1e308", "--out", Path("g")},
                {"--extent 1e308", "1 m the grasp model takes"}, {"offset_x"});
  ExpectRefused({"grasp", "--center", "2m,0", "--out", Path("g")}, {"--center 2m,0"}, {"offset_x"});
  ExpectRefused({"plate", "field", "--extent", "1e308", "--out", Path("p")}, {"--extent 1e308"},
                {"param 'x0'"});
}

// bug: mass=1:inf reported "param 'mass' = -nan": the spread's scene 0 is 1 + inf * 0
TEST_F(CliValuesTest, InfiniteRangeEndIsNamed) {
  ExpectRefused({"simulate", "box-stack", "--scenes", "2", "--param", "mass=1:inf"},
                {"--param mass=1:inf", "inf is not a finite number"}, {"nan"});
  ExpectRefused({"simulate", "box-stack", "--param", "mu=uniform:0:nan"},
                {"--param mu=uniform:0:nan", "not a finite number"});
  ExpectRefused({"simulate", "box-stack", "--scenes", "2", "--param", "x0=-1e308:1e308"},
                {"--param x0=-1e308:1e308", "HI - LO"}, {"nan"});
  ExpectRefused({"grasp3d", "--mass", "1:inf", "--out", Path("g3")},
                {"--mass 1:inf", "not a finite number"});
  ExpectRefused({"grasp3d", "--mu", "nan", "--out", Path("g3")}, {"--mu nan", "not a finite"});
  ExpectRefused({"plate", "field", "--seconds", "inf", "--out", Path("p")},
                {"--seconds", "inf", "not a finite number"});
}

// bug: mass=1e-320 was "out of the range of a double" (it is a subnormal double); its 1/m is
// inf, so it is refused as below the smallest mass the solvers take
TEST_F(CliValuesTest, SubnormalMassIsBelowTheSmallestMass) {
  const std::vector<std::string> wrong = {"out of the range of a double"};
  ExpectRefused({"simulate", "box-stack", "--param", "mass=1e-320"},
                {"--param mass=1e-320", "below 1e-09 kg", "smallest mass"}, wrong);
  ExpectRefused({"grasp3d", "--mass", "1e-320", "--out", Path("g3")},
                {"--mass 1e-320", "smallest mass"}, wrong);
  ExpectRefused({"grasp3d", "--size", "1e-320", "--out", Path("g3")},
                {"--size 1e-320", "[1mm, 200mm]"}, wrong);
  // a number below the smallest double is said so, not taken as 0
  ExpectRefused({"simulate", "box-stack", "--param", "mass=1e-400"},
                {"--param mass=1e-400", "below the smallest double"});
  ExpectRefused({"simulate", "box-stack", "--param", "mass=1e400"},
                {"--param mass=1e400", "beyond the largest double"});
}

// bug: --grid 5000x3 said only "--grid: 5000 must be ..."
TEST_F(CliValuesTest, GridMessageNamesTheWholeValue) {
  ExpectRefused({"grasp", "--grid", "5000x3", "--out", Path("g")}, {"--grid 5000x3", "[1, 4096]"});
  ExpectRefused({"grasp3d", "--grid", "3x0", "--out", Path("g3")}, {"--grid 3x0"});
  ExpectRefused({"plate", "field", "--grid", "2x1e9", "--out", Path("p")}, {"--grid 2x1e9"});
}

}  // namespace

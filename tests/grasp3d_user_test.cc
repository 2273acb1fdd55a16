// The grasp study on the user's own gripper and part (host/io/grasp3d_user.c, host/jobs/
// grasp3d_user.c, tb_composeMJCF): the example files of examples/gripper composed, the study's
// verdicts against what the grip's friction can hold, and every bad file or option refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <tumble/grasp3d.h>
#include <tumble/mjcf.h>

#include "cli_runner.h"
#include "test_util.h"

namespace {

const std::string kDir = std::string(TUMBLE_TEST_FILES) + "/../examples/gripper/";
const std::string kGripper = kDir + "gripper.xml";
const std::string kPart = kDir + "part.xml";

// the two files composed as the study reads them, without the study's own parts
TEST(Grasp3dUserTest, ComposedFilesReportTheirBodiesSiteAndControls) {
  tbMjcfPart parts[2] = {};
  parts[0].src = kGripper.c_str();
  parts[0].kinematic_root = 1;
  parts[0].site = "tcp";
  parts[0].controls = 1;
  parts[1].src = kPart.c_str();
  char note[512];
  tbModel* m = tb_composeMJCF(parts, 2, nullptr, nullptr, note, sizeof(note));
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(parts[0].body0, 0);
  EXPECT_EQ(parts[0].nbody, 3);  // palm and two fingers
  EXPECT_EQ(parts[1].body0, 3);
  EXPECT_EQ(parts[1].nbody, 1);
  EXPECT_EQ(m->body_type[0], TB_BODY_KINEMATIC) << "the top body is the caller's to move";
  ASSERT_EQ(parts[0].site_found, 1);
  EXPECT_NEAR(parts[0].site_pos[2], 0.06, 1e-15);
  EXPECT_EQ(parts[1].world_shapes, 1);  // the part file's floor
  EXPECT_NE(std::string(note).find("1 world shape"), std::string::npos) << note;
  ASSERT_EQ(parts[0].nactuator, 2);
  for (int a = 0; a < 2; a++) {
    EXPECT_EQ(parts[0].actuator[a].comp, TB_JNT_TPOS);
    EXPECT_EQ(parts[0].actuator[a].scale, 1.0);
    EXPECT_EQ(parts[0].actuator[a].lo, 0.0);
    EXPECT_EQ(parts[0].actuator[a].hi, 0.035);
  }
  EXPECT_EQ(std::string(parts[0].actuator[0].name), "left");
  EXPECT_LT(tb_findParam(m, "left.ctrl"), 0) << "a caller's control is no parameter";
  EXPECT_GE(tb_findParam(m, "opt.timestep"), 0);
  tb_freeModel(m);
}

// one name in two files, and files the study cannot move, are refused naming the file
TEST(Grasp3dUserTest, FilesTheCompositionCannotTakeAreRefused) {
  tbMjcfPart parts[2] = {};
  parts[0].src = kPart.c_str();
  parts[1].src = kPart.c_str();
  EXPECT_EQ(tb_composeMJCF(parts, 2, nullptr, nullptr, nullptr, 0), nullptr);
  EXPECT_NE(std::string(tb_lastError()).find("body 'part': name already used"), std::string::npos)
      << tb_lastError();
  const char* slide =
      "<mujoco><worldbody><body name='g'><joint type='slide'/><geom size='0.01'/></body>"
      "</worldbody></mujoco>";
  const char* two =
      "<mujoco><worldbody><body name='a'><geom size='0.01'/></body><body name='b'><geom "
      "size='0.01'/></body></worldbody></mujoco>";
  for (const char* src : {slide, two}) {
    tbMjcfPart g = {};
    g.src = src;
    g.kinematic_root = 1;
    EXPECT_EQ(tb_composeMJCF(&g, 1, nullptr, nullptr, nullptr, 0), nullptr) << src;
    std::string e = tb_lastError();
    EXPECT_TRUE(e.find("takes no joint") != std::string::npos ||
                e.find("a second top body") != std::string::npos)
        << e;
  }
}

tbGrasp3dDef UserDef(double x, double y) {
  tbGrasp3dDef d = tb_defaultGrasp3dDef();
  d.gripper = kGripper.c_str();
  d.part = kPart.c_str();
  d.mass_lo = d.mass_hi = 0.0;  // the file's 0.1 kg
  d.hold = 0.2;
  d.grid.nx = d.grid.ny = 1;
  d.grid.extent_x = d.grid.extent_y = 0.0;
  d.grid.center_x = x;
  d.grid.center_y = y;
  d.trials = 3;
  return d;
}

// successes, struck trials and failed scenes of the study at one offset
void RunStudy(tbGrasp3dDef d, long* held, long* struck, long* failed) {
  tbGrasp3dInfo info;
  tbModel* m = tb_loadGrasp3d(&d, &info, nullptr, 0);
  ASSERT_NE(m, nullptr) << tb_lastError();
  d.user_model = m;
  d.user_info = &info;
  tbGrasp3dResult r;
  ASSERT_EQ(tb_grasp3dSweep(&d, &r), TB_OK) << tb_lastError();
  long valid;
  tb_tallySum(&r.tally, held, &valid, failed);
  *struck = r.struck;
  tb_freeGrasp3dResult(&r);
  tb_freeModel(m);
}

// The fingers close on the hexagonal part's corners (40 mm across) from 35 mm each side: each
// servo's target lies 20 mm past its contact, so it squeezes with kp 20 mm = 6 N (under its 10 N
// force range). With mu >= 0.2 the two fingers' friction holds 2 mu 6 N >= 2.4 N against the
// 0.1 kg part's weight plus a push of its weight (1.96 N): held. At 3 kg (29 N) even mu 0.8's
// 9.6 N cannot: dropped. 60 mm aside in y the jaws close on nothing. Catches a grip that holds
// whatever the friction (a part stuck to the fingers), controls never applied (nothing held),
// and a success test that does not look at the part.
TEST(Grasp3dUserTest, TheGripHoldsWhatItsFrictionCanAndDropsWhatItCannot) {
  long held, struck, failed;
  RunStudy(UserDef(0.0, 0.0), &held, &struck, &failed);
  EXPECT_EQ(held, 3);
  EXPECT_EQ(struck, 0);
  EXPECT_EQ(failed, 0);
  tbGrasp3dDef heavy = UserDef(0.0, 0.0);
  heavy.mass_lo = heavy.mass_hi = 3.0;
  RunStudy(heavy, &held, &struck, &failed);
  EXPECT_EQ(held, 0);
  EXPECT_EQ(failed, 0);
  RunStudy(UserDef(0.0, 0.06), &held, &struck, &failed);
  EXPECT_EQ(held, 0);
  EXPECT_EQ(struck, 0);
}

// a finger landing on the part (40 mm aside in x, the part under the left finger) is a failed
// grasp, said as struck: not a numerical failure that leaves the trial out of the map
TEST(Grasp3dUserTest, AFingerLandingOnThePartIsAStruckFailedGrasp) {
  long held, struck, failed;
  RunStudy(UserDef(-0.04, 0.0), &held, &struck, &failed);
  EXPECT_EQ(held, 0);
  EXPECT_EQ(struck, 3);
  EXPECT_EQ(failed, 0);
}

TEST(Grasp3dUserTest, BadFilesAndOptionsAreRefused) {
  tbGrasp3dDef d = UserDef(0.0, 0.0);
  tbGrasp3dInfo info;
  d.tcp = "nowhere";
  EXPECT_EQ(tb_loadGrasp3d(&d, &info, nullptr, 0), nullptr);
  EXPECT_NE(std::string(tb_lastError()).find("no <site name=\"nowhere\">"), std::string::npos)
      << tb_lastError();
  d = UserDef(0.0, 0.0);
  d.nctrl = 1;
  EXPECT_EQ(tb_loadGrasp3d(&d, &info, nullptr, 0), nullptr);
  EXPECT_NE(std::string(tb_lastError()).find("the gripper has 2 actuators"), std::string::npos)
      << tb_lastError();
  d = UserDef(0.0, 0.0);
  d.part = kGripper.c_str();  // three bodies, not one free one
  EXPECT_EQ(tb_loadGrasp3d(&d, &info, nullptr, 0), nullptr);
  d = UserDef(0.0, 0.0);
  d.part = nullptr;
  EXPECT_EQ(tb_checkGrasp3dDef(&d), TB_ERR_ARG);
  d = UserDef(0.0, 0.0);
  d.slip = 0.0;
  EXPECT_EQ(tb_checkGrasp3dDef(&d), TB_ERR_ARG);
  d = UserDef(0.0, 0.0);  // the sweep needs the files' model
  tbGrasp3dResult r;
  EXPECT_NE(tb_grasp3dSweep(&d, &r), TB_OK);
}

// a gripper whose fingers hang from a body welded to its palm (as real grippers' files have a
// base welded to a mount) grasps as the example does: the welded body is kinematic and rides
// on the palm's path (catches a welded body left still while the palm moves, which would tear
// the fingers from the palm)
TEST(Grasp3dUserTest, FingersOnABodyWeldedToThePalmGrasp) {
  const std::string gripper =
      "<mujoco><default><joint type='slide' axis='1 0 0' range='0 0.035'/></default>"
      "<worldbody><body name='mount'><geom type='box' size='0.05 0.015 0.005' mass='0.2'/>"
      "<body name='base' pos='0 0 0.01'><geom type='box' size='0.05 0.015 0.005' mass='0.1'/>"
      "<site name='tcp' pos='0 0 0.05'/>"
      "<body name='left' pos='-0.04 0 0.035'><joint name='l'/><geom type='box' "
      "size='0.005 0.01 0.025' mass='0.05'/></body>"
      "<body name='right' pos='0.04 0 0.035' euler='0 0 180'><joint name='r'/><geom type='box' "
      "size='0.005 0.01 0.025' mass='0.05'/></body></body></body></worldbody><actuator>"
      "<position joint='l' kp='300' kv='5' ctrlrange='0 0.035' forcerange='-10 10'/>"
      "<position joint='r' kp='300' kv='5' ctrlrange='0 0.035' forcerange='-10 10'/>"
      "</actuator></mujoco>";
  tbGrasp3dDef d = UserDef(0.0, 0.0);
  d.gripper = gripper.c_str();
  tbGrasp3dInfo info;
  tbModel* m = tb_loadGrasp3d(&d, &info, nullptr, 0);
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(m->body_type[tb_findBody(m, "base")], TB_BODY_KINEMATIC);
  tb_freeModel(m);
  long held, struck, failed;
  RunStudy(d, &held, &struck, &failed);
  EXPECT_EQ(held, 3);
  EXPECT_EQ(failed, 0);
}

class Grasp3dUserCli : public CliFixture {};

TEST_F(Grasp3dUserCli, OptionsOfTheOtherGripperAreRefused) {
  struct Case {
    std::vector<std::string> args;
    const char* needle;
  } cases[] = {
      {{"--gripper", kGripper}, "give the part it grasps"},
      {{"--object", kPart}, "grasped by a gripper file"},
      {{"--gripper", kGripper, "--object", kPart, "--force", "3"}, "built-in gripper's"},
      {{"--tcp", "tcp"}, "for a gripper file"},
      {{"--gripper", kGripper, "--object", kPart, "--open", "0", "--close", "0,1"},
       "--open has 1 controls, --close 2"},
      {{"--object", "cup"}, "or an MJCF file"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"grasp3d"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back("--out");
    args.push_back(Path("g"));
    CliResult r = RunCli(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  }
}

// the command line's study on the files: its JSON names the part and counts struck trials, and
// its replay of a trial gives the study's verdict
TEST_F(Grasp3dUserCli, TheStudyAndItsReplayAgree) {
  std::vector<std::string> study = {"grasp3d", "--gripper", kGripper,   "--object", kPart,
                                    "--grid",  "1x1",       "--extent", "0",        "--trials",
                                    "2",       "--out",     Path("g")};
  CliResult r = RunCli(study);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"object\": \"part.xml\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"successes\": 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"struck_trials\": 0"), std::string::npos) << r.out;
  study.push_back("--replay");
  study.push_back("0,1");
  CliResult p = RunCli(study);
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.out.find("\"success\": 1"), std::string::npos) << p.out;
}

// --candidates: one row per candidate grasp; the candidate at the origin, yaw 0, is the 1 x 1
// grid's cell (the same draws: cell 0 both), the one 60 mm aside holds nothing, and turned 90 deg
// the jaws close across the hexagon's flats (34.6 mm, inside their 70 mm) and hold. Bad files
// are refused at their line. Catches a candidate's yaw or offset applied with the wrong sign or
// frame (the aside one would then be held, or the turned one struck), and rows out of order
TEST_F(Grasp3dUserCli, CandidateGraspsEachGetTheirProbability) {
  std::ofstream(Path("cands.csv"))
      << "# x, y (m), yaw (deg)\nx_m,y_m,yaw_deg\n0,0,0\n0,0.06,0\n0,0,90\n";
  std::vector<std::string> base = {"grasp3d", "--gripper", kGripper, "--object",
                                   kPart,     "--trials",  "4"};
  std::vector<std::string> cand = base, grid = base;
  for (const char* a : {"--candidates", "", "--out", ""}) cand.push_back(a);
  cand[8] = Path("cands.csv");
  cand[10] = Path("c");
  for (std::string a : {"--grid", "1x1", "--extent", "0", "--out"}) grid.push_back(a);
  grid.push_back(Path("g"));
  CliResult r = RunCli(cand), g = RunCli(grid);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_NE(r.out.find("\"png\": null"), std::string::npos) << r.out;
  auto rows = [](const std::string& path) {
    std::ifstream in(path);
    std::vector<std::vector<std::string>> out;
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) out.push_back(Split(line, ','));
    return out;
  };
  auto c = rows(Path("c.csv")), m = rows(Path("g.csv"));
  ASSERT_EQ(c.size(), 3u);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(c[0][5], m[0][6]) << "the origin candidate's successes are the grid cell's";
  EXPECT_EQ(c[0][5], "4");
  EXPECT_EQ(c[1][5], "0");
  EXPECT_EQ(c[2][5], "4");
  EXPECT_EQ(c[2][3], "90");
  std::ofstream(Path("bad.csv")) << "x,y,yaw\n0,0,0\n";
  cand[8] = Path("bad.csv");
  CliResult b = RunCli(cand);
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("bad.csv:1: the header is"), std::string::npos) << b.err;
  std::ofstream(Path("bad.csv")) << "x_m,y_m,yaw_deg\n0,0,zero\n";
  b = RunCli(cand);
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("bad.csv:2: \"0,0,zero\" is not three numbers"), std::string::npos) << b.err;
}

// --resume on files: the journal of an interrupted study goes on with the same files, and an
// edited part (its mass) is another study whose journal is refused (the key holds what the files
// made, not their names)
TEST_F(Grasp3dUserCli, AResumedStudyNamesItsFilesByWhatTheyMade) {
  std::filesystem::copy(kDir + "meshes", Path("meshes"));
  std::filesystem::copy_file(kPart, Path("part.xml"));
  std::vector<std::string> study = {
      "grasp3d",  "--gripper", kGripper,   "--object", Path("part.xml"), "--grid", "3x3",
      "--extent", "10mm",      "--trials", "40",       "--out",          Path("g")};
  CliResult cut = RunCliInterrupted(study, 1.5);
  ASSERT_EQ(cut.status, 130) << "the study ran to its end before the interrupt: make it longer";
  std::string text;
  {
    std::ifstream in(Path("part.xml"));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::string edited = text, from = "mass=\"0.1\"";
  edited.replace(edited.find(from), from.size(), "mass=\"0.2\"");
  std::ofstream(Path("part.xml")) << edited;
  study.push_back("--resume");
  CliResult other = RunCli(study);
  EXPECT_EQ(other.status, 2) << other.err;
  EXPECT_NE(other.err.find("the journal of another study"), std::string::npos) << other.err;
  std::ofstream(Path("part.xml")) << text;
  CliResult same = RunCli(study);
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_NE(same.err.find("resumed"), std::string::npos) << same.err;
}

}  // namespace

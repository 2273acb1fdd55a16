// What real MJCF files are split into and hold besides bodies: <include file> (host/io/mjcf.c's
// includes: the file's top element's children in its place, nested, errors naming the included
// file's line) and <contact><exclude> (tb_excludeContact).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <tumble/mjcf.h>

#include "cli_runner.h"
#include "test_util.h"

namespace {

class MjcfInclude : public CliFixture {
 protected:
  void Write(const char* name, const std::string& text) { std::ofstream(Path(name)) << text; }
};

// two boxes stacked on the floor, the top one 0.2 m up; exclude: their contacts excluded
std::string Stack(const std::string& include, const std::string& exclude) {
  return "<mujoco>\n<option timestep='0.001'/>\n<worldbody><geom type='plane'/>\n" + include +
         "\n</worldbody>" + exclude + "</mujoco>";
}

const char* kBodies =
    "<mujoco>\n<body name='low' pos='0 0 0.1'><freejoint/><geom type='box' size='0.1 0.1 "
    "0.1'/></body>\n<include file='top.xml'/>\n</mujoco>";
const char* kTop =
    "<mujoco><body name='top' pos='0 0 0.3'><freejoint/><geom type='box' "
    "size='0.05 0.05 0.05'/></body></mujoco>";

// bug caught: an include left unread (MuJoCo's models split the robot from the scene), one
// include deep only, the paths taken from the including file's directory instead of the model's
TEST_F(MjcfInclude, IncludedBodiesAreTheModelsAsIfWrittenInPlace) {
  Write("bodies.xml", kBodies);
  Write("top.xml", kTop);
  Write("main.xml", Stack("<include file='bodies.xml'/>", ""));
  std::string inline_ = Stack(
      "<body name='low' pos='0 0 0.1'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>"
      "<body name='top' pos='0 0 0.3'><freejoint/><geom type='box' size='0.05 0.05 0.05'/>"
      "</body>",
      "");
  Scene inc(tb_loadMJCF(Path("main.xml").c_str()), 1), ref(tb_loadMJCF(inline_.c_str()), 1);
  ASSERT_NE(inc.m, nullptr) << tb_lastError();
  ASSERT_NE(ref.m, nullptr) << tb_lastError();
  inc.reset();
  ref.reset();
  inc.run(500);
  ref.run(500);
  EXPECT_EQ(firstDifference(inc.d, ref.d), "");
  EXPECT_NEAR(inc.pos(inc.body("top"))[2], 0.25, 1e-6) << "the top box rests on the low one";
}

// an exclude lets the top box fall through the low one to the floor (MuJoCo's rule: the pair's
// contacts are never made)
TEST_F(MjcfInclude, ExcludedBodiesPassThroughEachOther) {
  Write("bodies.xml", kBodies);
  Write("top.xml", kTop);
  Write("main.xml", Stack("<include file='bodies.xml'/>",
                          "<contact><exclude body1='low' body2='top'/></contact>"));
  Scene sc(tb_loadMJCF(Path("main.xml").c_str()), 1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  sc.reset();
  sc.run(1000);
  EXPECT_NEAR(sc.pos(sc.body("top"))[2], 0.05, 1e-6) << "on the floor, inside the low box";
  EXPECT_NEAR(sc.pos(sc.body("low"))[2], 0.1, 1e-6);
}

TEST_F(MjcfInclude, BadIncludesAndExcludesAreRefusedNamingTheFileAndLine) {
  Write("bodies.xml", kBodies);
  Write("top.xml",
        "<mujoco><body name='top' pos='0 0 0.3'><freejoint/>\n<geom type='box' "
        "size='0.05 0.05 0.05' shine='1'/></body></mujoco>");
  Write("main.xml", Stack("<include file='bodies.xml'/>", ""));
  ExpectMjcfRefused(Path("main.xml"), Path("top.xml") + ":2: <geom> attribute 'shine' is outside");
  Write("main.xml", Stack("<include file='nope.xml'/>", ""));
  ExpectMjcfRefused(Path("main.xml"), Path("nope.xml") + ": cannot read the file");
  Write("self.xml", "<mujoco><include file='self.xml'/></mujoco>");
  ExpectMjcfRefused(Path("self.xml"), "includes nested 16 deep: does a file include itself?");
  Write("top.xml", kTop);
  Write("main.xml",
        Stack("<include file='bodies.xml'/>", "<contact>\n<exclude body1='low'/></contact>"));
  ExpectMjcfRefused(Path("main.xml"), "main.xml:6: <exclude> an exclude needs body1= and body2=");
  Write("main.xml", Stack("<include file='bodies.xml'/>",
                          "<contact>\n<exclude body1='low' body2='ghost'/></contact>"));
  ExpectMjcfRefused(Path("main.xml"), ":6: <exclude> body2=\"ghost\": no body of that name");
  Write("main.xml", Stack("<include file='bodies.xml' extra='1'/>", ""));
  ExpectMjcfRefused(Path("main.xml"), "an include takes file= alone");
}

}  // namespace

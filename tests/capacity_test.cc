// A scene's contact capacity (issue 66): sized by what can touch at once rather than by every
// shape pair, settable from MJCF (<size nconmax>), and a scene past it stopped and said.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <tumble/mjcf.h>

#include "cli_runner.h"
#include "engine/engine.h"

class CapacityTest : public CliFixture {
 protected:
  // n free spheres of radius 1 cm on a grid 3 cm apart, resting on a floor; size: <size ...> or ""
  std::string Spheres(int n, const std::string& size) {
    std::string xml = "<mujoco>" + size + "<worldbody><geom type=\"plane\" size=\"5 5 .1\"/>";
    int side = 1;
    while (side * side < n) side++;
    for (int i = 0; i < n; i++) {
      char body[200];
      snprintf(body, sizeof(body),
               "<body pos=\"%.3f %.3f 0.01\"><freejoint/><geom type=\"sphere\" size=\"0.01\"/>"
               "</body>",
               0.03 * (i % side), 0.03 * (i / side));
      xml += body;
    }
    xml += "</worldbody></mujoco>";
    std::string path = Path("spheres.xml");
    std::ofstream(path) << xml;
    return path;
  }
};

// bug: the capacity was the sum over all 12.5 million shape pairs of 5,000 spheres, a 14.9 GB
// scratch slot per thread that failed as "out of memory for 2 scratch slots". Counted by what a
// sphere can touch at once (its floor and 16 neighbours: 17 a sphere) a thread's slot is under
// 0.25 GB, and the run goes through
TEST_F(CapacityTest, FiveThousandSpheresFitInAStatedMemory) {
  std::string model = Spheres(5000, "");
  tbModel* m = tb_loadMJCF(model.c_str());
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(m->maxcon, 17 * 5000);
  tbScratch sizes;
  memset(&sizes, 0, sizeof(sizes));
  tb_solverScratchSize(m, &sizes.nsolver_d, &sizes.nsolver_i);
  EXPECT_LT((double)tb_blockBytes(m, &sizes), 0.25e9);
  tb_freeModel(m);
  CliResult r = RunCli({"simulate", "--model", model, "--steps", "2", "--threads", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"failed\": 0"), std::string::npos) << r.out;
}

// <size nconmax> is a scene's capacity, as in MuJoCo: 9 spheres resting on a floor need 9
// contacts, so nconmax 4 stops the scene as contact-overflow, said with the way to raise it
TEST_F(CapacityTest, NconmaxCapsTheContactsAndOverflowIsSaid) {
  CliResult r =
      RunCli({"simulate", "--model", Spheres(9, "<size nconmax=\"9\"/>"), "--steps", "5"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"failed\": 0"), std::string::npos) << r.out;
  r = RunCli({"simulate", "--model", Spheres(9, "<size nconmax=\"4\"/>"), "--steps", "5"});
  EXPECT_NE(r.out.find("\"failed\": 1"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("contact-overflow"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("capacity of 4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nconmax"), std::string::npos) << r.err;
  // MuJoCo's arena sizes are read past; a bad nconmax is named
  r = RunCli(
      {"simulate", "--model", Spheres(4, "<size njmax=\"100\" memory=\"10M\"/>"), "--steps", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* bad : {"0", "2.5", "1e9", "-3"}) {
    std::string size = std::string("<size nconmax=\"") + bad + "\"/>";
    r = RunCli({"simulate", "--model", Spheres(4, size), "--steps", "1"});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("nconmax"), std::string::npos) << bad << ": " << r.err;
  }
}

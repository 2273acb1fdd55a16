// MJCF model files: each built-in scene's file in models/ loads into the model the C builder
// makes (bodies, shapes, joints, drivers, tripods, options, and the state after steps), the
// keyframe's forward kinematics places a chain, parameters come from named elements, and files
// outside the subset are refused with the file, line, element and attribute.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <algorithm>
#include <cmath>
#include <string>

#include <tumble/mjcf.h>

#include "math/tb_math.h"

#include "cli_runner.h"
#include "test_util.h"

namespace {

const double kTol = 1e-12;

std::string Model(const char* name) {
  return std::string(TUMBLE_MODELS) + "/" + name + ".xml";
}

void ExpectNear3(const double* a, const double* b, int n, double tol, const std::string& what) {
  for (int i = 0; i < n; i++) EXPECT_NEAR(a[i], b[i], tol) << what << "[" << i << "]";
}

// a shape's world frame: position and rotation matrix
void GeomWorld(const tbModel* m, int g, double p[3], double R[9]) {
  const tbBodyDef* b = &m->bdef[m->gdef[g].body];
  double q[4];
  tbu_rotVec(p, b->quat, m->gdef[g].pos);
  tbu_add3(p, p, b->pos);
  tbu_quatMul(q, b->quat, m->gdef[g].quat);
  tbu_quat2Mat(R, q);
}

// the definitions of two models agree: every body, shape, joint, driver, tripod and option
void ExpectSameModel(const tbModel* a, const tbModel* b) {
  ASSERT_EQ(a->nbody, b->nbody);
  ASSERT_EQ(a->ngeom, b->ngeom);
  ASSERT_EQ(a->njnt, b->njnt);
  ASSERT_EQ(a->ndriver, b->ndriver);
  ASSERT_EQ(a->nsupport, b->nsupport);
  EXPECT_EQ(a->opt.timestep, b->opt.timestep);
  EXPECT_EQ(a->opt.cone, b->opt.cone);
  ExpectNear3(a->opt.gravity, b->opt.gravity, 3, 0.0, "gravity");
  for (int i = 0; i < a->nbody; i++) {
    const tbBodyDef *x = &a->bdef[i], *y = &b->bdef[i];
    std::string w = std::string("body ") + a->body_name[i];
    EXPECT_STREQ(a->body_name[i], b->body_name[i]);
    EXPECT_EQ(x->type, y->type) << w;
    EXPECT_EQ(x->lock, y->lock) << w;
    ExpectNear3(x->pos, y->pos, 3, kTol, w + " pos");
    ExpectNear3(x->vel, y->vel, 6, kTol, w + " vel");
    ExpectNear3(x->force, y->force, 6, 0.0, w + " force");
    if (x->type != TB_BODY_DYNAMIC) continue;
    EXPECT_NEAR(x->mass, y->mass, kTol * x->mass) << w;
    // the world inertia about the free rotation axes (a locked axis' inertia never enters)
    double Ix[9], Iy[9];
    tbu_inertiaWorld(Ix, x->quat, x->inertia);
    tbu_inertiaWorld(Iy, y->quat, y->inertia);
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        if ((x->lock >> (3 + r)) & 1 || (x->lock >> (3 + c)) & 1) continue;
        EXPECT_NEAR(Ix[3 * r + c], Iy[3 * r + c], kTol) << w << " inertia " << r << c;
      }
    }
  }
  for (int g = 0; g < a->ngeom; g++) {
    const tbGeomDef *x = &a->gdef[g], *y = &b->gdef[g];
    std::string w = "geom " + std::to_string(g);
    EXPECT_EQ(x->body, y->body) << w;
    EXPECT_EQ(x->type, y->type) << w;
    EXPECT_EQ(x->mu, y->mu) << w;
    EXPECT_EQ(x->contype, y->contype) << w;
    EXPECT_EQ(x->conaffinity, y->conaffinity) << w;
    EXPECT_EQ(x->nvert, y->nvert) << w;
    ExpectNear3(x->size, y->size, 3, kTol, w + " size");
    for (int k = 0; k < 2 * x->nvert && k < 2 * y->nvert; k++) {
      EXPECT_NEAR(x->vert[k], y->vert[k], kTol) << w << " vert " << k;
    }
    double px[3], py[3], Rx[9], Ry[9];
    GeomWorld(a, g, px, Rx);
    GeomWorld(b, g, py, Ry);
    ExpectNear3(px, py, 3, kTol, w + " world pos");
    if (x->type != TB_GEOM_SPHERE) ExpectNear3(Rx, Ry, 9, kTol, w + " world rotation");
  }
  for (int j = 0; j < a->njnt; j++) {
    const tbJointDef *x = &a->jdef[j], *y = &b->jdef[j];
    std::string w = "joint " + std::to_string(j);
    EXPECT_EQ(x->type, y->type) << w;
    EXPECT_EQ(x->body_a, y->body_a) << w;
    EXPECT_EQ(x->body_b, y->body_b) << w;
    EXPECT_EQ(x->limited, y->limited) << w;
    ExpectNear3(x->anchor, y->anchor, 3, kTol, w + " anchor");
    ExpectNear3(x->axis, y->axis, 3, kTol, w + " axis");
  }
  for (int k = 0; k < a->ndriver; k++) {
    const tbDriverDef *x = &a->ddef[k], *y = &b->ddef[k];
    EXPECT_EQ(x->type, y->type);
    EXPECT_EQ(x->body, y->body);
    ExpectNear3(x->amp, y->amp, 6, 0.0, "driver amp");
    ExpectNear3(x->phase, y->phase, 6, kTol, "driver phase");
    EXPECT_NEAR(x->omega, y->omega, kTol * x->omega);
    ExpectNear3(x->vel, y->vel, 6, 0.0, "driver vel");
  }
  for (int k = 0; k < a->nsupport; k++) {
    EXPECT_EQ(a->sdef[k].mu, b->sdef[k].mu);
    ExpectNear3(&a->sdef[k].point[0][0], &b->sdef[k].point[0][0], 6, 0.0, "tripod");
  }
}

// the states of two one-scene batches after the same steps
void ExpectSameState(const Scene& a, const Scene& b) {
  for (int i = 0; i < a.m->nbody; i++) {
    std::string w = std::string("body ") + a.m->body_name[i];
    ExpectNear3(a.pos(i), b.pos(i), 3, 1e-11, w + " pos");
    ExpectNear3(a.vel(i), b.vel(i), 6, 1e-10, w + " vel");
  }
  EXPECT_EQ(a.d->status[0], b.d->status[0]);
  EXPECT_EQ(a.d->ncon[0], b.d->ncon[0]);
}

class MjcfBuiltin : public ::testing::TestWithParam<const char*> {};

TEST_P(MjcfBuiltin, LoadsIntoTheBuiltInModelAndStepsAlike) {
  const char* name = GetParam();
  Scene file(tb_loadMJCF(Model(name).c_str()), 1);
  // a file's hinges are minimal joints; the built-in pendulum's are rows unless minimal=1
  std::vector<std::pair<const char*, double>> opts;
  if (!strcmp(name, "pendulum")) opts.push_back({"minimal", 1});
  Scene builtin(name, 1, opts);
  ASSERT_NE(file.m, nullptr);
  ExpectSameModel(file.m, builtin.m);
  if (HasFatalFailure()) return;
  file.reset();
  builtin.reset();
  // a few steps reach the contacts of the scenes that start touching
  for (int k = 0; k < 20; k++) {
    file.run(1);
    builtin.run(1);
  }
  ExpectSameState(file, builtin);
  EXPECT_GT(file.m->nparam, 4) << "named elements give parameters";
}

// MuJoCo's solver and iterations: Newton is auto, PGS is PGS; absent, the model's default
TEST(MjcfTest, SolverAndIterationsAreTheStepSolvers) {
  const char* xmls[] = {"<mujoco/>", "<mujoco><option solver='Newton' iterations='1000'/></mujoco>",
                        "<mujoco><option solver='PGS' iterations='50'/></mujoco>"};
  const int solver[] = {tb_defaultOption().solver, TB_SOLVER_AUTO, TB_SOLVER_PGS};
  const int iters[] = {tb_defaultOption().max_iter, 1000, 50};
  for (int k = 0; k < 3; k++) {
    tbModel* m = tb_loadMJCF(xmls[k]);
    ASSERT_NE(m, nullptr) << tb_lastError();
    EXPECT_EQ(m->opt.solver, solver[k]) << xmls[k];
    EXPECT_EQ(m->opt.max_iter, iters[k]) << xmls[k];
    tb_freeModel(m);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MjcfBuiltin,
                         ::testing::Values("falling-particle", "sliding-sphere", "incline-block",
                                           "pendulum", "box-stack", "plate-particle", "plate-block",
                                           "falling-particles", "tripod-block", "sphere-pile"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string s = i.param;
                           for (char& c : s) c = c == '-' ? '_' : c;
                           return s;
                         });

// the file's text with `extra` inserted before its </mujoco>
std::string WithExtra(const char* name, const std::string& extra) {
  std::ifstream in(Model(name));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.insert(text.rfind("</mujoco>"), extra);
  return text;
}

// the pendulum file xml is the built-in pendulum with options opts (nq coordinates, nqd rates):
// the same model, and the same state after 200 steps
void ExpectFileStepsAsBuiltIn(const std::string& xml,
                              std::vector<std::pair<const char*, double>> opts, int nq, int nqd) {
  Scene file(tb_loadMJCF(xml.c_str()), 1);
  Scene builtin("pendulum", 1, opts);
  ASSERT_NE(file.m, nullptr) << tb_lastError();
  EXPECT_EQ(file.m->nq, nq);
  EXPECT_EQ(file.m->nqd, nqd);
  ExpectSameModel(file.m, builtin.m);
  file.reset();
  builtin.reset();
  file.run(200);
  builtin.run(200);
  ExpectSameState(file, builtin);
}

// A file's hinges are minimal joints, as MuJoCo holds them (issue 60: a jointed file ran in
// maximal coordinates, a quarter of the speed): the pendulum's file is the built-in pendulum with
// minimal=1, step for step, as with tumble_minimal_joints 1; with 0 it is the built-in's rows
TEST(MjcfTest, JointsAreMinimalByDefaultAndTheSwitchChooses) {
  ExpectFileStepsAsBuiltIn(WithExtra("pendulum", ""), {{"minimal", 1}}, 3, 3);
  std::string xml = WithExtra(
      "pendulum", "<custom><numeric name=\"tumble_minimal_joints\" data=\"1\"/></custom>");
  ExpectFileStepsAsBuiltIn(xml, {{"minimal", 1}}, 3, 3);
  ExpectFileStepsAsBuiltIn(
      WithExtra("pendulum",
                "<custom><numeric name=\"tumble_minimal_joints\" data=\"0\"/></custom>"),
      {}, 0, 0);
  // a finger hinged to a driven palm keeps its rows (a tree hangs from a static or dynamic body):
  // the default does not refuse a file that loads with rows
  const char* finger = R"(<mujoco><worldbody>
    <body name="palm" mocap="true" pos="0 0 1"><geom type="box" size=".05 .05 .05"/>
      <body pos=".1 0 0"><joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 .2 0 0" size=".02"/></body></body></worldbody>
    <custom><numeric name="tumble_constvel_palm" data="0.1 0 0 0 0 0"/></custom></mujoco>)";
  tbModel* m = tb_loadMJCF(finger);
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(m->jdef[0].minimal, 0);
  tb_freeModel(m);
  for (const char* bad : {"2", "1 1"}) {
    std::string x = WithExtra(
        "pendulum", std::string("<custom><numeric name=\"tumble_minimal_joints\" data=\"") + bad +
                        "\"/></custom>");
    EXPECT_EQ(tb_loadMJCF(x.c_str()), nullptr) << bad;
    EXPECT_NE(std::string(tb_lastError()).find("<numeric name=\"tumble_minimal_joints\"> "),
              std::string::npos)
        << tb_lastError();
  }
}

// and its balls: the pendulum's file with ball joints is the built-in ball pendulum, each ball
// four coordinates (a quaternion) and three rates (the child-frame angular velocity, MuJoCo's)
TEST(MjcfTest, MinimalJointsSwitchGivesTheMinimalBallPendulum) {
  std::string xml = WithExtra(
      "pendulum", "<custom><numeric name=\"tumble_minimal_joints\" data=\"1\"/></custom>");
  for (size_t at; (at = xml.find("type=\"hinge\"")) != std::string::npos;) {
    xml.replace(at, 12, "type=\"ball\"");
  }
  ExpectFileStepsAsBuiltIn(xml, {{"minimal", 1}, {"ball", 1}}, 12, 9);
}

// models/chain-wall.xml (minimal hinges, the keyframe's start angle and rate, restitution per
// shape and its speed threshold as custom numerics) is the built-in chain-wall. The two hold the
// start differently (the file's hinge angles count from the keyframe's pose, the built-in's from
// the chain hanging straight), so their rounding differs from the first step and the floor and
// wall strikes carry it: within 1e-7 after 3 s (seen 1.9e-9)
TEST(MjcfTest, ChainWallFileIsTheBuiltInChain) {
  Scene file(tb_loadMJCF(Model("chain-wall").c_str()), 1);
  Scene builtin("chain-wall", 1);
  ASSERT_NE(file.m, nullptr) << tb_lastError();
  EXPECT_EQ(file.m->nq, 12);
  EXPECT_EQ(file.m->opt.restitution_vmin, builtin.m->opt.restitution_vmin);
  for (int g = 0; g < file.m->ngeom; g++) EXPECT_EQ(file.m->gdef[g].restitution, 0.7) << g;
  file.m->opt.solver = builtin.m->opt.solver;
  file.reset();
  builtin.reset();
  file.run(3000);
  builtin.run(3000);
  for (int i = 0; i < file.m->nbody; i++) {
    std::string w = std::string("body ") + file.m->body_name[i];
    ExpectNear3(file.pos(i), builtin.pos(builtin.body(file.m->body_name[i])), 3, 1e-7, w + " pos");
    ExpectNear3(file.vel(i), builtin.vel(builtin.body(file.m->body_name[i])), 6, 1e-7, w + " vel");
  }
  EXPECT_GT(builtin.d->iter_sum[0], 0) << "no strike in 3 s";
  EXPECT_EQ(file.d->status[0], 0);
  const char* bad[][2] = {{"tumble_restitution_sphere3", "1.5"},
                          {"tumble_restitution_sphere3", "0.5 0.5"},
                          {"tumble_option_restitution_vmin", "-1"},
                          {"tumble_restitution_nothing", "0.5"}};
  for (auto& b : bad) {
    // the file's numeric of that name given the bad data (or one more numeric)
    std::string text = WithExtra("chain-wall", ""), name = std::string("\"") + b[0] + "\"";
    size_t at = text.find(name);
    std::string numeric = "<numeric name=" + name + " data=\"" + b[1] + "\"/>";
    if (at == std::string::npos) {
      text.insert(text.find("</custom>"), numeric);
    } else {
      size_t begin = text.rfind('<', at), end = text.find("/>", at) + 2;
      text.replace(begin, end - begin, numeric);
    }
    EXPECT_EQ(tb_loadMJCF(text.c_str()), nullptr) << b[0] << " " << b[1];
    EXPECT_NE(std::string(tb_lastError()).find(b[0]), std::string::npos) << tb_lastError();
  }
}

// the same chain hanging straight down, turned to its start by the keyframe's hinge angles,
// is the built-in pendulum: MuJoCo's forward kinematics in the reader
TEST(MjcfTest, KeyframePlacesAHingeChainByForwardKinematics) {
  const char* xml = R"(<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.001" cone="elliptic"/>
  <default><joint type="hinge" axis="0 1 0"/>
    <geom type="capsule" pos="0 0 -0.5" size="0.05 0.45" friction="0.5"/></default>
  <worldbody>
    <body name="ground"><geom type="plane" pos="0 0 0" friction="0.5"/></body>
    <body name="link0" pos="0 0 4"><joint/>
      <inertial pos="0 0 -0.5" mass="1" diaginertia="0.083333333333333329 0.083333333333333329 0.00125"/>
      <geom/>
      <body name="link1" pos="0 0 -1"><joint/>
        <inertial pos="0 0 -0.5" mass="1" diaginertia="0.083333333333333329 0.083333333333333329 0.00125"/>
        <geom/>
        <body name="link2" pos="0 0 -1"><joint/>
          <inertial pos="0 0 -0.5" mass="1" diaginertia="0.083333333333333329 0.083333333333333329 0.00125"/>
          <geom/>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe><key qpos="-0.3 0 0"/></keyframe>
</mujoco>)";
  tbModel* m = tb_loadMJCF(xml);
  ASSERT_NE(m, nullptr) << tb_lastError();
  Scene builtin("pendulum", 1);
  ExpectSameModel(m, builtin.m);
  tb_freeModel(m);
}

// a free body's keyframe pose and twist: qvel's angular part is in the body frame, and the
// center of mass (off the body origin here) moves with v + w x r
TEST(MjcfTest, KeyframeTwistOfAFreeBodyIsMuJoCos) {
  const char* xml = R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody><body name="b"><freejoint/>
    <geom type="box" size="0.1 0.2 0.3" pos="0.5 0 0" mass="2"/></body></worldbody>
  <keyframe><key qpos="1 2 3 0.7071067811865476 0 0 0.7071067811865476" qvel="1 0 0 0 0 2"/></keyframe>
</mujoco>)";
  tbModel* m = tb_loadMJCF(xml);
  ASSERT_NE(m, nullptr) << tb_lastError();
  const tbBodyDef* b = &m->bdef[0];
  // turned 90 degrees about z: the offset 0.5 x lands on +y
  const double pos[3] = {1, 2.5, 3}, vel[6] = {1 - 2 * 0.5, 0, 0, 0, 0, 2};
  ExpectNear3(b->pos, pos, 3, 1e-15, "pos");
  ExpectNear3(b->vel, vel, 6, 1e-15, "vel");
  EXPECT_NEAR(b->mass, 2.0, 1e-15);
  tb_freeModel(m);
}

TEST(MjcfTest, NamedElementsAreParameters) {
  tbModel* m = tb_loadMJCF(Model("box-stack").c_str());
  ASSERT_NE(m, nullptr) << tb_lastError();
  for (const char* p : {"opt.timestep", "opt.gravity_z", "box1.mass", "box1.pos_x", "box1.friction",
                        "ground.friction"}) {
    EXPECT_GE(tb_findParam(m, p), 0) << p;
  }
  // a size would change the mass the geom gives: no parameter
  EXPECT_LT(tb_findParam(m, "box1.size_0"), 0);
  int p = tb_findParam(m, "box1.mass");
  EXPECT_EQ(m->param[p].value, 1.0);
  EXPECT_EQ(m->param[p].ntarget, 4) << "mass and the three moments";
  tb_freeModel(m);
  m = tb_loadMJCF(Model("plate-particle").c_str());
  ASSERT_NE(m, nullptr) << tb_lastError();
  p = tb_findParam(m, "tumble_plate_plate.data_12");
  ASSERT_GE(p, 0);
  EXPECT_NEAR(m->param[p].value, 66 * TB_PI, 1e-12) << "omega";
  tb_freeModel(m);
}

// a finger on a rail (a child of the world on one unlimited slide along a world axis) is a body
// with its other DoFs locked, not a prismatic joint: its box is a 2.5D rectangle on its tripod,
// its position a parameter, and a force along the rail accelerates it at F / m and nowhere else
TEST(MjcfTest, OneSlideAlongAWorldAxisLocksTheOtherDofs) {
  const char* xml = R"(<mujoco>
  <option timestep="0.001"/>
  <custom><numeric name="tumble_tripod_finger" data="0 0.002 0 -0.001 0.01 -0.001 -0.01"/>
    <numeric name="tumble_force_finger" data="0.5 0.2 0 0 0 0.1"/></custom>
  <worldbody><body name="finger" pos="0.1 0 0"><joint type="slide" axis="1 0 0"/>
    <geom type="box" size="0.005 0.02 0.003" mass="0.05"/></body></worldbody>
</mujoco>)";
  Scene s(tb_loadMJCF(xml), 1);
  ASSERT_NE(s.m, nullptr);
  EXPECT_EQ(s.m->njnt, 0);
  EXPECT_EQ(s.m->bdef[0].lock, 63 & ~TB_LOCK_X);
  EXPECT_EQ(s.m->gdef[0].type, TB_GEOM_PRISM);
  s.set("finger.pos_x", 0.2, 0);
  s.reset();
  s.run(100);
  // semi-implicit Euler: v_k = k h a, x_n = x_0 + h^2 a n (n + 1) / 2
  double h = 0.001, a = 0.5 / 0.05, x = 0.2 + h * h * a * 100 * 101 / 2;
  EXPECT_NEAR(s.pos(0, 0)[0], x, 1e-12) << "F/m along the rail";
  EXPECT_EQ(s.pos(0, 0)[1], 0.0);
  EXPECT_EQ(s.vel(0, 0)[5], 0.0);
}

// Drumwright's compliance from custom numerics tumble_compliance_NAME ("K B") of a shape, a
// joint and an equality, each a pair of parameters: a bob on a compliant ball joint hangs
// m g / K below its anchor, on a compliant floor a sphere sinks m g / K
TEST(MjcfTest, ComplianceOfShapesJointsAndEqualities) {
  const char* xml = R"(<mujoco>
  <option timestep="0.001"/>
  <custom><numeric name="tumble_compliance_floor" data="1e5 2e3"/>
    <numeric name="tumble_compliance_pin" data="2e5 4e3"/>
    <numeric name="tumble_compliance_glue" data="3e5 6e3"/></custom>
  <worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="bob" pos="1 0 1"><joint name="pin" type="ball"/>
      <geom type="sphere" size="0.05" mass="2" contype="0" conaffinity="0"/></body>
    <body name="held" pos="-1 0 1"><freejoint/>
      <geom type="sphere" size="0.05" mass="3" contype="0" conaffinity="0"/></body></worldbody>
  <equality><connect name="glue" body1="held" anchor="0 0 0"/></equality>
</mujoco>)";
  Scene s(tb_loadMJCF(xml), 1);
  ASSERT_NE(s.m, nullptr) << tb_lastError();
  EXPECT_EQ(s.m->gdef[0].stiffness, 1e5);
  EXPECT_EQ(s.m->gdef[0].damping, 2e3);
  EXPECT_EQ(s.m->jdef[0].stiffness, 2e5);
  EXPECT_EQ(s.m->jdef[0].minimal, 0) << "a compliant joint keeps its rows (joints are minimal by "
                                        "default where they can be)";
  EXPECT_EQ(s.m->jdef[1].damping, 6e3);
  std::string asked = xml;  // asked for minimal joints, the compliant one is refused by name
  asked.insert(asked.find("</custom>"), "<numeric name=\"tumble_minimal_joints\" data=\"1\"/>");
  EXPECT_EQ(tb_loadMJCF(asked.c_str()), nullptr);
  EXPECT_NE(std::string(tb_lastError()).find("tumble_compliance_pin"), std::string::npos)
      << tb_lastError();
  s.set("tumble_compliance_pin.data_0", 4e5);
  s.reset();
  s.run(3000);
  const double g = 9.81;
  EXPECT_NEAR(s.pos(s.body("ball"))[2], 0.1 - 1 * g / 1e5, 1e-9);
  EXPECT_NEAR(s.pos(s.body("bob"))[2], 1 - 2 * g / 4e5, 1e-9);
  EXPECT_NEAR(s.pos(s.body("held"))[2], 1 - 3 * g / 3e5, 1e-9);
}

// a batch over a file's parameter moves the scenes apart as the built-in's does
TEST(MjcfTest, FileParameterSweepsLikeTheBuiltIn) {
  Scene file(tb_loadMJCF(Model("incline-block").c_str()), 3);
  Scene builtin("incline-block", 3);
  ASSERT_NE(file.m, nullptr);
  for (int s = 0; s < 3; s++) {
    double mu = 0.2 + 0.2 * s;
    file.set("block.friction", mu, s);
    file.set("incline.friction", mu, s);
    builtin.set("mu", mu, s);
  }
  file.reset();
  builtin.reset();
  file.run(300);
  builtin.run(300);
  for (int s = 0; s < 3; s++) {
    ExpectNear3(file.pos(1, s), builtin.pos(1, s), 3, 1e-11,
                "block pos, scene " + std::to_string(s));
  }
  // tan 20 deg = 0.36: the first slides, the others stick
  EXPECT_GT(std::fabs(file.vel(1, 0)[0]), 0.1);
  EXPECT_LT(std::fabs(file.vel(1, 2)[0]), 1e-6);
}

// the error names the file, the line and the element, and says what is outside the subset
void ExpectRefused(const char* xml, const char* needle) {
  tbModel* m = tb_loadMJCF(xml);
  EXPECT_EQ(m, nullptr) << xml;
  tb_freeModel(m);
  std::string e = tb_lastError();
  EXPECT_NE(e.find(needle), std::string::npos) << "error: " << e << "\nexpected: " << needle;
}

// a ball joint's range is MuJoCo's: 0 and the cone angle (the compiler's unit) of the rotation
// from the reference, as a parameter; a low end other than 0, or a start away from the reference
// (tumble measures the cone from the start), is refused at the joint's line
std::string BallWithRange(const char* range, const char* key = "") {
  return std::string("<mujoco><worldbody><body pos='0 0 2'>\n<joint name='j' type='ball' range='") +
         range + "'/><geom size='0.1' pos='0 0 -1'/></body></worldbody>" + key + "</mujoco>";
}

TEST(MjcfTest, BallRangeIsAConeLimit) {
  tbModel* m = tb_loadMJCF(BallWithRange("0 30").c_str());
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(m->jnt_type[0], TB_JOINT_SPHERICAL);
  EXPECT_EQ(m->jnt_limited[0], 1);
  EXPECT_NEAR(m->vary0[tb_varyIndex(m, TB_F_JOINT, 0, TB_JNT_HI)], TB_PI / 6.0, 1e-15);
  int p = tb_findParam(m, "j.range_1");
  ASSERT_GE(p, 0);
  EXPECT_NEAR(m->param[p].value, 30.0, 1e-12);
  tbData* d = tb_newData(m, 1);
  d->param[p] = 200.0;
  EXPECT_EQ(tb_checkParams(m, d), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("cone angle in (0, pi]"), std::string::npos)
      << tb_lastError();
  tb_freeData(d);
  tb_freeModel(m);
  ExpectRefused(BallWithRange("10 30").c_str(), ":2: <joint> range 10 30: a ball's range is 0");
  ExpectRefused(BallWithRange("0 30", "<keyframe><key qpos='0.9 0.1 0 0'/></keyframe>").c_str(),
                ":2: <joint> range: a limited ball starts at its reference");
  ExpectRefused(BallWithRange("0 190").c_str(), "cone angle in (0, pi]");
}

// catches armature taken where tumble has no coordinate to put it on (a free joint's world DoFs,
// a joint kept as rows), or a negative one, where MuJoCo would load the file
TEST(MjcfTest, ArmatureWhereNoCoordinateCarriesItIsRefused) {
  ExpectRefused(
      "<mujoco><worldbody><body>\n<joint type='free' armature='1'/><geom size='1'/>"
      "</body></worldbody></mujoco>",
      ":2: <joint> armature: tumble takes it on hinge, slide and ball joints");
  ExpectRefused(
      "<mujoco><worldbody><body>\n<joint armature='-1'/><geom size='1'/></body>"
      "</worldbody></mujoco>",
      ":2: <joint> armature -1 must be finite and >= 0");
  ExpectRefused(
      "<mujoco><custom><numeric name='tumble_minimal_joints' data='0'/></custom>"
      "<worldbody><body>\n<joint armature='0.1'/><geom size='1'/></body></worldbody>"
      "</mujoco>",
      "armature 0.1 is inertia on a joint's coordinates");
}

TEST(MjcfTest, OutsideTheSubsetIsAnErrorWithItsLine) {
  ExpectRefused("<mujoco>\n<tendon/>\n</mujoco>", "<string>:2: <tendon> element outside");
  ExpectRefused("<mujoco><worldbody>\n<geom type='plane' priority='1'/></worldbody></mujoco>",
                "<string>:2: <geom> attribute 'priority' is outside");
  ExpectRefused(
      "<mujoco><worldbody><body>\n<joint frictionloss='1'/><geom size='1'/></body>"
      "</worldbody></mujoco>",
      ":2: <joint> attribute 'frictionloss'");
  ExpectRefused("<mujoco><worldbody>\n<geom type='hfield'/></worldbody></mujoco>",
                ":2: <geom> type=\"hfield\": tumble takes sphere, capsule, box, plane, cylinder");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/>\n<geom size='1 2'/></body></worldbody>"
      "</mujoco>",
      ":2: <geom> size: 2 numbers, a sphere takes 1 (radius)");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/>\n<geom size='x'/></body></worldbody>"
      "</mujoco>",
      ":2: <geom> size=\"x\": expected 0 to 3 finite numbers");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/>\n<geom size='nan'/></body></worldbody>"
      "</mujoco>",
      ":2: <geom> size=\"nan\"");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/>\n<geom size='1' mass='-1'/></body>"
      "</worldbody></mujoco>",
      ":2: <geom> mass -1 must be >= 0");
  ExpectRefused("<mujoco><worldbody>\n<body><freejoint/></body></worldbody></mujoco>",
                ":2: <body> mass 0");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/><geom size='1'/>\n<body><freejoint/>"
      "<geom size='1'/></body></body></worldbody></mujoco>",
      ":2: <freejoint> a free joint is the only joint of a child of the world");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/><geom size='1' class='nope'/></body>"
      "</worldbody></mujoco>",
      "class 'nope' is not a <default> class");
  ExpectRefused(
      "<mujoco><worldbody><body><joint type='slide'/>\n<joint type='hinge' "
      "axis='1 1 0'/><geom size='1'/></body></worldbody></mujoco>",
      ":2: <joint> a body with several joints");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/><geom size='1'/></body></worldbody>\n"
      "<keyframe><key qpos='1 2'/></keyframe></mujoco>",
      ":2: <key> qpos has 2 numbers, the model's joints take 7");
  ExpectRefused(
      "<mujoco><custom>\n<numeric name='tumble_plate_x' data='1'/></custom>"
      "<worldbody/></mujoco>",
      ":2: <numeric name=\"tumble_plate_x\"> names nothing that takes it");
  ExpectRefused(
      "<mujoco><custom>\n<numeric name='tumble_compliance_floor' data='-1 0'/></custom>"
      "<worldbody><geom name='floor' type='plane'/></worldbody></mujoco>",
      ":2: <numeric name=\"tumble_compliance_floor\"> geom 0: stiffness -1 and damping 0 must be "
      "finite and >= 0");
  ExpectRefused("<mujoco><option\n integrator='RK4'/></mujoco>",
                ":2: <option> attribute 'integrator'");
  ExpectRefused("<mujoco><option\n solver='CG'/></mujoco>",
                ":2: <option> solver=\"CG\": tumble takes PGS, Newton");
  ExpectRefused("<mujoco><option\n iterations='0'/></mujoco>",
                ":2: <option> iterations 0: a whole number from 1 to 1e6");
  ExpectRefused("<mujoco><worldbody>\n<geom type='plane'>", "<string>:2: not well-formed XML");
  // a <geom> left open is reported where it opened (issue 63: it was blamed on the file's end,
  // "Premature end of data in tag mujoco line 1" at line 5)
  ExpectRefused(
      "<mujoco><worldbody>\n<body>\n<geom type='sphere' size='1'>\n</body>\n"
      "</worldbody></mujoco>",
      "<string>:3: not well-formed XML: Opening and ending tag mismatch: geom line 3");
  ExpectRefused("/nonexistent/model.xml", "/nonexistent/model.xml: cannot read the file");
  ExpectRefused("<robot/>", "the root element must be <mujoco>");
  ExpectRefused(
      "<!DOCTYPE mujoco [<!ENTITY b '<body/>'>]>\n<mujoco><worldbody>&b;</worldbody>"
      "</mujoco>",
      ":2: <mujoco> a DTD (entities) is outside the subset");
  ExpectRefused("<mujoco><worldbody>\n<geom type='plane' condim='1'/></worldbody></mujoco>",
                ":2: <geom> condim=\"1\": tumble takes 3");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/>\n<geom type='capsule' size='0.1' "
      "fromto='0 0 0 1 0 0' pos='1 0 0'/></body></worldbody></mujoco>",
      ":2: <geom> fromto places the capsule: no pos with it");
  ExpectRefused(
      "<mujoco><worldbody><body><freejoint/>\n<geom size='1'><joint/></geom></body>"
      "</worldbody></mujoco>",
      ":2: <joint> element outside");
  ExpectRefused(
      "<mujoco><worldbody><body name='a'><freejoint/><geom size='1'/></body>"
      "</worldbody><equality>\n<weld body1='a'/></equality><keyframe><key/></keyframe>"
      "</mujoco>",
      ":2: <weld> with a keyframe");
}

// a gripper-like file with several things outside the subset, one of them on three lines
const char* kManyOutside =
    "<mujoco>\n"
    "<asset><hfield name='ground' nrow='2' ncol='2' size='1 1 1 0.1'/></asset>\n"
    "<worldbody><geom type='plane'/>\n"
    "<body><freejoint/><geom type='hfield' hfield='ground'/></body>\n"
    "<body pos='0 0 1'><joint type='slide' frictionloss='1'/><geom size='0.1'/></body>\n"
    "<body pos='0 0 2'><joint type='slide' frictionloss='1'/><geom size='0.1'/></body>\n"
    "<body pos='0 0 3'><joint type='slide' frictionloss='2'/><geom size='0.1'/></body>\n"
    "</worldbody>\n"
    "<tendon><fixed name='t'><joint joint='j' coef='1'/></fixed></tendon>\n"
    "</mujoco>";

// bug caught: the reader stopped at the first thing outside the subset, so a user's gripper
// file took one edit-and-retry round per element (issue 62, item 6). Every kind is listed at once,
// at its first line, with how often it comes
TEST(MjcfTest, EverythingOutsideTheSubsetIsListedAtOnce) {
  tbModel* m = tb_loadMJCF(kManyOutside);
  EXPECT_EQ(m, nullptr);
  tb_freeModel(m);
  std::string e = tb_lastError();
  for (const char* line :
       {"<string>:2: <hfield> element outside", "<string>:4: <geom> attribute 'hfield' is outside",
        "<string>:4: <geom> type=\"hfield\": tumble takes sphere",
        "<string>:5: <joint> attribute 'frictionloss' is outside tumble's MJCF subset "
        "(3 times, to line 7)",
        "<string>:9: <tendon> element outside",
        "<string>: 5 kinds of element, attribute or value outside tumble's MJCF "
        "subset"}) {
    EXPECT_NE(e.find(line), std::string::npos) << "error:\n" << e << "\nexpected: " << line;
  }
  EXPECT_EQ(e.find("<fixed>"), std::string::npos) << "an outside element's insides are not "
                                                     "listed again: "
                                                  << e;
}

// what a real file holds for looks, sensing and MuJoCo's soft contact is read past, said once
// with its counts, and changes nothing: the file steps bitwise as the same file without it
TEST(MjcfTest, LooksSensorsAndSoftContactValuesAreReadPastAndSaid) {
  const std::string body =
      "<body pos='0 0 0.5'><freejoint/><geom type='box' size='0.1 0.1 0.1'%s/>%s</body>";
  auto file = [&](bool extra) {
    char b[400];
    snprintf(b, sizeof(b), body.c_str(), extra ? " solref='0.01 1' margin='0.001'" : "",
             extra ? "<site name='tip'/><camera name='c'/>" : "");
    return std::string("<mujoco><worldbody>") + (extra ? "<light/>" : "") + "<geom type='plane'" +
           (extra ? " solref='0.02 1' solimp='0.9 0.95 0.001'" : "") + "/>" + b + "</worldbody>" +
           (extra ? "<sensor><framepos objtype='site' objname='tip'/></sensor>" : "") + "</mujoco>";
  };
  char note[512];
  Scene with(tb_loadMJCFNoting(file(true).c_str(), note, sizeof(note)), 1);
  Scene without(tb_loadMJCFNoting(file(false).c_str(), nullptr, 0), 1);
  ASSERT_NE(with.m, nullptr);
  ASSERT_NE(without.m, nullptr);
  for (const char* part : {"read past: 1 <light>, 1 <site>, 1 <camera>, 1 <sensor>",
                           "2 solref, 1 solimp, 1 margin on <geom> (MuJoCo's soft contact: "
                           "tumble's contacts are hard)"}) {
    EXPECT_NE(std::string(note).find(part), std::string::npos) << note << "\nexpected: " << part;
  }
  with.reset();
  without.reset();
  with.run(300);
  without.run(300);
  EXPECT_EQ(firstDifference(with.d, without.d), "");
  char none[8] = "x";
  tbModel* m = tb_loadMJCFNoting(file(false).c_str(), none, sizeof(none));
  EXPECT_STREQ(none, "") << "nothing read past, nothing said";
  tb_freeModel(m);
}

// shapes that touch nothing and that tumble holds as no shape (a cylinder off a tripod body, an
// ellipsoid outside the implicit step: a gripper's looks) load as mass alone, MuJoCo's: a box of
// 1000 kg/m^3 with a visual cylinder of radius 0.05 and half-height 0.1 weighs the box's 8 kg and
// the cylinder's pi 0.05^2 0.2 1000 = 1.5708 kg, and collides as the box alone. Catches a
// visual shape refused (the error before), given a contact shape, or left out of the mass
TEST(MjcfTest, VisualCylindersAndEllipsoidsAreMassAlone) {
  const char* xml =
      "<mujoco><worldbody><body name='b' pos='0 0 1'><freejoint/><geom type='box' size='0.1 0.1 "
      "0.1'/><geom type='cylinder' size='0.05 0.1' pos='0 0 0.2' contype='0' conaffinity='0'/>"
      "<geom type='ellipsoid' size='0.01 0.02 0.03' contype='0' conaffinity='0' mass='0'/>"
      "</body></worldbody></mujoco>";
  tbModel* m = tb_loadMJCF(xml);
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(m->ngeom, 1) << "the box alone collides";
  EXPECT_NEAR(m->bdef[0].mass, 8.0 + TB_PI * 0.05 * 0.05 * 0.2 * 1000.0, 1e-12);
  tb_freeModel(m);
  ExpectMjcfRefused(
      "<mujoco><worldbody><body pos='0 0 1'><freejoint/><geom type='cylinder' size='0.05 0.1'/>"
      "</body></worldbody></mujoco>",
      "or as looks (contype=\"0\" conaffinity=\"0\": its mass alone)");
}

// a body welded to a still mocap body is kinematic and still with it (a gripper's base under its
// mount); welded to a driven one it is refused, since its offset motion is no driver of tumble's
// (catches the welded body made dynamic on a fixed joint to a kinematic one, or given a still
// driver under a moving parent)
TEST(MjcfTest, BodiesWeldedToAStillMocapBodyAreStillWithIt) {
  const std::string still =
      "<mujoco><worldbody><body name='mount' mocap='true'><geom size='0.01'/><body name='base' "
      "pos='0 0 0.1'><geom size='0.01'/></body></body></worldbody></mujoco>";
  tbModel* m = tb_loadMJCF(still.c_str());
  ASSERT_NE(m, nullptr) << tb_lastError();
  EXPECT_EQ(m->body_type[tb_findBody(m, "base")], TB_BODY_KINEMATIC);
  tb_freeModel(m);
  std::string driven = still;
  driven.insert(driven.find("<worldbody>"),
                "<custom><numeric name='tumble_constvel_mount' data='0.1 0 0 0 0 0'/></custom>");
  ExpectMjcfRefused(driven, "a body welded to a moving mocap body");
}

// a wrapper body (a free joint, no geoms of its own) takes its welded children's shapes as
// MuJoCo weighs them: the same body, mass, frame and steps, bitwise, as the file with the shapes
// on the wrapper itself (it failed with "mass 0" before); the children's names find it, and a
// welded child's own <inertial> is refused. Catches a child's shape placed in the wrong frame
// (another inertia or trajectory) or left a body of its own
TEST(MjcfTest, AWrapperBodyTakesItsWeldedChildrensShapes) {
  const char* floor = "<geom type='plane' size='0 0 1'/>";
  std::string wrapped =
      std::string("<mujoco><worldbody>") + floor +
      "<body name='obj' pos='0 0 0.3' euler='10 0 0'><freejoint/><body name='shape' "
      "pos='0.05 0 0' euler='0 0 90'><geom type='box' size='0.1 0.05 0.02'/><body name='tip' "
      "pos='0 0.1 0'><geom type='sphere' size='0.03'/></body></body></body></worldbody>"
      "<contact><exclude body1='tip' body2='world'/></contact></mujoco>";
  std::string flat =
      std::string("<mujoco><worldbody>") + floor +
      "<body name='obj' pos='0 0 0.3' euler='10 0 0'><freejoint/><geom type='box' "
      "size='0.1 0.05 0.02' pos='0.05 0 0' euler='0 0 90'/><geom type='sphere' size='0.03' "
      "pos='-0.05 0 0'/></body></worldbody><contact><exclude body1='obj' body2='world'/>"
      "</contact></mujoco>";
  Scene a(tb_loadMJCF(wrapped.c_str()), 1), b(tb_loadMJCF(flat.c_str()), 1);
  ASSERT_NE(a.m, nullptr);
  ASSERT_NE(b.m, nullptr);
  ASSERT_EQ(a.m->nbody, b.m->nbody);
  EXPECT_EQ(a.m->ngeom, b.m->ngeom);
  int oa = a.body("obj"), ob = b.body("obj");
  EXPECT_EQ(a.m->bdef[oa].mass, b.m->bdef[ob].mass);
  for (int k = 0; k < 3; k++) {
    EXPECT_NEAR(a.m->bdef[oa].pos[k], b.m->bdef[ob].pos[k], 1e-15);
    EXPECT_NEAR(a.m->bdef[oa].inertia[k], b.m->bdef[ob].inertia[k], 1e-15);
  }
  a.reset();
  b.reset();
  a.run(200);
  b.run(200);
  for (int k = 0; k < 3; k++) EXPECT_NEAR(a.pos(oa)[k], b.pos(ob)[k], 1e-12);
  EXPECT_LT(a.pos(oa)[2], 0.3) << "it fell onto the floor";
  ExpectMjcfRefused(
      "<mujoco><worldbody><body pos='0 0 1'><freejoint/><body><inertial pos='0 0 0' mass='1' "
      "diaginertia='1 1 1'/></body></body></worldbody></mujoco>",
      "an <inertial> on a body welded to a wrapper body");
}

class MjcfCli : public CliFixture {};

// the command line shows the note on stderr and in the run's JSON, and the list as lines
TEST_F(MjcfCli, SaysWhatItReadPastAndListsWhatIsOutside) {
  std::string ok = Path("sited.xml"), bad = Path("outside.xml");
  std::ofstream(ok)
      << ("<mujoco><worldbody><geom type='plane' margin='0.01'/><body pos='0 0 1'><freejoint/>"
          "<geom size='0.1'/><site/></body></worldbody></mujoco>");
  std::ofstream(bad) << kManyOutside;
  CliResult r = RunCli({"simulate", "--model", ok, "--scenes", "2", "--steps", "10"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("sited.xml: read past: 1 <site>"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"read_past\": \"read past: 1 <site> (looks and sensing"),
            std::string::npos)
      << r.out;
  r = RunCli({"model", bad});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("outside.xml:2: <hfield> element outside"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n  " + bad + ":9: <tendon> element outside"), std::string::npos)
      << "one per line: " << r.err;
}

TEST_F(MjcfCli, RunsAFileAndRefusesABadOne) {
  CliResult r = RunCli({"simulate", "--model", Model("box-stack"), "--scenes", "4", "--steps", "50",
                        "--param", "box2.mass=uniform:0.5:2"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"scene\": \"box-stack\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"failed\": 0"), std::string::npos) << r.out;
  r = RunCli({"simulate", "--model", Model("box-stack"), "--list"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("box2.mass"), std::string::npos) << r.out;
  r = RunCli({"simulate", "--model", Model("box-stack"), "--param", "box9.mass=1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("model 'box-stack' has no parameter 'box9.mass'"), std::string::npos)
      << r.err;
  r = RunCli({"simulate", "--model", Model("box-stack"), "--cone", "pyramid"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the cone is the file's"), std::string::npos) << r.err;
  std::string bad = Path("bad.xml");
  std::ofstream(bad) << "<mujoco>\n<worldbody>\n<geom type='hfield' size='1 2 3'/>\n"
                        "</worldbody>\n</mujoco>\n";
  r = RunCli({"simulate", "--model", bad});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad + ":3: <geom> type=\"hfield\""), std::string::npos) << r.err;
  // bytes its declared encoding cannot convert: the parser's error, one line (libxml2 printed
  // "encoding error : input conversion failed" lines of its own above it)
  std::ofstream(bad, std::ios::binary)
      << "<?xml version='1.0' encoding='EUC-JP'?>\n<mujoco>\xff\xfe" << std::string(2, '\0')
      << "</mujoco>\n";
  r = RunCli({"simulate", "--model", bad});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(bad + ":2: not well-formed XML"), std::string::npos) << r.err;
  r = RunCli({"model", Model("pendulum")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 5u) << r.out;
}

}  // namespace

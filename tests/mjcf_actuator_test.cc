// MJCF actuators and joint damping (host/io/mjcf_actuator.c): each law against its closed form
// on one slide, the control as a parameter, and every bad actuator refused at its line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <tumble/mjcf.h>

#include "math/tb_math.h"
#include "test_util.h"

namespace {

const double kG = 9.81;

// a 1 kg slider on a vertical slide z (gravity g) with the actuator and joint attributes given
std::string Slider(const std::string& actuator, const std::string& joint = "", double g = kG,
                   const std::string& key = "") {
  char grav[64];
  snprintf(grav, sizeof(grav), "0 0 %.17g", -g);
  return std::string("<mujoco><option timestep='0.001' gravity='") + grav +
         "'/><worldbody><body name='slider' pos='0 0 1'><joint name='z' type='slide' axis='0 0 "
         "1' " +
         joint +
         "/><inertial pos='0 0 0' mass='1' diaginertia='0.01 0.01 0.01'/></body></worldbody>"
         "<actuator>\n" +
         actuator + "\n</actuator>" + key + "</mujoco>";
}

// the slider's height above its start and its velocity after n steps, ctrl set when >= -1e5
void RunSlider(const std::string& xml, int n, double ctrl, double* z, double* vz) {
  Scene sc(tb_loadMJCF(xml.c_str()), 1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  if (ctrl > -1e5) sc.set("a.ctrl", ctrl);
  sc.reset();
  sc.run(n);
  *z = sc.pos(0)[2] - 1.0;
  *vz = sc.vel(0)[2];
}

// statics: a position servo holds the slider where kp (ctrl - q) = m g, and a gear g holds it
// at q = ctrl / g - m g / (kp g^2) (its length g q; the joint takes g f). The servo is implicit,
// so the rest is the equilibrium to rounding (MuJoCo gives the same 0.99019 m here). Bug caught:
// the gains or the target not scaled by the gear, the ctrl parameter not reaching the target
TEST(MjcfActuatorTest, APositionServoHoldsTheSlideWhereKpTimesTheOffsetIsTheWeight) {
  double z, v;
  RunSlider(Slider("<position name='a' joint='z' kp='1000' kv='50'/>"), 3000, -1e6, &z, &v);
  EXPECT_NEAR(z, -kG / 1000, 1e-12);
  RunSlider(Slider("<position name='a' joint='z' kp='1000' kv='50'/>"), 3000, 0.1, &z, &v);
  EXPECT_NEAR(z, 0.1 - kG / 1000, 1e-12);
  RunSlider(Slider("<position name='a' joint='z' kp='1000' kv='50' gear='2'/>"), 3000, 0.1, &z, &v);
  EXPECT_NEAR(z, 0.05 - kG / 4000, 1e-12);
  RunSlider(Slider("<general name='a' joint='z' biastype='affine' gainprm='1000' "
                   "biasprm='0 -1000 -50'/>"),
            3000, 0.1, &z, &v);
  EXPECT_NEAR(z, 0.1 - kG / 1000, 1e-12) << "a general actuator of the position's law";
}

// a hinge's control is in radians whatever the compiler's angle unit (MuJoCo's rule: actuator
// lengths are joint coordinates in radians; its range in degrees is converted): without gravity
// a position servo turns the arm to ctrl = 0.5 rad (MuJoCo: 0.5000000000000022 here)
TEST(MjcfActuatorTest, AHingeServoTurnsToItsControlInRadians) {
  Scene sc(
      tb_loadMJCF("<mujoco><option timestep='0.001' gravity='0 0 0'/><worldbody><body name='arm' "
                  "pos='0 0 1'><joint name='h' type='hinge' axis='0 0 1' range='-90 90' "
                  "limited='true'/><geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.02'/></body>"
                  "</worldbody><actuator><position name='a' joint='h' kp='5' kv='0.5' "
                  "ctrlrange='-1 1'/></actuator><keyframe><key ctrl='0.5'/></keyframe></mujoco>"),
      1);
  ASSERT_NE(sc.m, nullptr) << tb_lastError();
  sc.reset();
  double q0[4], q0c[4], rel[4];
  std::memcpy(q0, sc.quat(0), sizeof(q0));  // the body's principal frame at the start
  sc.run(5000);
  tbu_quatConj(q0c, q0);
  tbu_quatMul(rel, sc.quat(0), q0c);  // the turn since, about the world's z
  EXPECT_NEAR(2.0 * std::atan2(rel[3], rel[0]), 0.5, 1e-9);
}

// a force-limited servo slips: its spring (kp 1000) reaches the 5 N bound 5 mm down, and from
// there the slider falls at (m g - 5) / m while the bound holds, so between steps 500 and 1000
// its velocity changes by exactly -(g - 5) 0.5 s (the step's Euler update, to rounding)
TEST(MjcfActuatorTest, ASaturatedServoSlipsAtItsForceRange) {
  std::string xml = Slider("<position name='a' joint='z' kp='1000' forcerange='-5 5'/>");
  double z1, v1, z2, v2;
  RunSlider(xml, 500, -1e6, &z1, &v1);
  RunSlider(xml, 1000, -1e6, &z2, &v2);
  EXPECT_LT(z1, -0.005) << "past the spring's 5 N";
  EXPECT_NEAR(v2 - v1, -(kG - 5.0) * 0.5, 1e-12);
}

// a velocity servo drives the slider to its ctrl (no gravity), a motor pushes it at ctrl gear / m
TEST(MjcfActuatorTest, VelocityServoAndMotorFollowTheirLaws) {
  double z, v;
  RunSlider(Slider("<velocity name='a' joint='z' kv='100'/>", "", 0.0), 2000, 0.3, &z, &v);
  EXPECT_NEAR(v, 0.3, 1e-12);
  RunSlider(Slider("<motor name='a' joint='z' gear='2'/>", "", 0.0), 1000, 0.5, &z, &v);
  EXPECT_NEAR(v, 0.5 * 2 * 1.0, 1e-12);  // 1 N for 1 s on 1 kg
  RunSlider(Slider("<motor name='a' joint='z' forcerange='-0.25 0.25'/>", "", 0.0), 1000, -1e6, &z,
            &v);
  EXPECT_NEAR(v, 0.0, 1e-15) << "ctrl 0 by default";
}

// joint damping c on the slide (no gravity, starting at 1 m/s from the key's qvel): the step
// takes it implicitly, v_{k+1} = v_k / (1 + h c / m), so after n steps v = (1 + h c / m)^-n to
// rounding; against the continuous exp(-c t / m) that scheme errs by n (h c / m)^2 / 2 relative
// (log(1 + x) = x - x^2 / 2 + ...): 2e-3 at h c / m = 2e-3 over 1000 steps
TEST(MjcfActuatorTest, JointDampingDecaysTheSlideAtTheImplicitRate) {
  std::string xml = Slider("", "damping='2'", 0.0, "<keyframe><key qvel='1'/></keyframe>");
  double z, v;
  RunSlider(xml, 1000, -1e6, &z, &v);
  EXPECT_NEAR(v, std::pow(1.0 + 0.002, -1000), 1e-12);
  EXPECT_NEAR(v / std::exp(-2.0), 1.0, 1000 * 0.002 * 0.002 / 2 * 1.01);
}

TEST(MjcfActuatorTest, BadActuatorsAreRefusedAtTheirLine) {
  ExpectMjcfRefused(Slider("<position joint='nope'/>"),
                    "<string>:2: <position> joint 'nope': no hinge or slide of that name");
  ExpectMjcfRefused(Slider("<position joint='z' kp='-1'/>"),
                    ":2: <position> kp -1 and kv 0 must be >= 0");
  ExpectMjcfRefused(Slider("<position joint='z'/><motor joint='z'/>"),
                    ":2: <motor> a second actuator on joint 'z'");
  ExpectMjcfRefused(Slider("<position joint='z' forcerange='-1 2'/>"),
                    "forcerange -1 2: tumble bounds a servo's force symmetrically");
  ExpectMjcfRefused(Slider("<general joint='z' biastype='affine' biasprm='0 1 0'/>"),
                    "biasprm 0 1 0: tumble takes 0, -kp, -kv");
  ExpectMjcfRefused(Slider("<position joint='z' gear='0'/>"), "gear 0: nonzero");
  ExpectMjcfRefused(Slider("<position joint='z' ctrllimited='true'/>"),
                    "ctrlrange: ctrllimited needs ctrlrange");
  ExpectMjcfRefused(
      Slider("<position joint='z'/>", "", kG, "<keyframe><key ctrl='1 2'/></keyframe>"),
      "ctrl has 2 numbers, the model's actuators take 1");
  ExpectMjcfRefused(Slider("<velocity joint='z' kv='0'/>"), "servo gains kp 0, kd 0");
  ExpectMjcfRefused(Slider("<position joint='z'/>", "damping='-1'"), "damping -1 must be finite");
  ExpectMjcfRefused(
      "<mujoco><worldbody><body><joint name='h' type='hinge'/><geom size='0.1'/></body>"
      "</worldbody><actuator>\n<motor joint='h'/></actuator></mujoco>",
      ":2: <motor> a motor on hinge 'h': tumble's constant drive pushes a slide");
  ExpectMjcfRefused(
      "<mujoco><worldbody><body><joint name='b' type='ball'/><geom size='0.1'/></body>"
      "</worldbody><actuator>\n<position joint='b'/></actuator></mujoco>",
      ":2: <position> joint 'b' is a ball: tumble's actuators drive hinges and slides");
}

}  // namespace

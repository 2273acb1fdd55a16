// Schedules (tbScheduleDef, host/engine/schedule.c, tb_scheduleValues): a value as a function of
// time, against the closed form of the step's own sum, and every misuse refused.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <string>

#include "test_util.h"

namespace {

// a model of step h in zero gravity with one free body of that mass (body 0)
tbModel* OneBody(double h, double mass) {
  tbModel* m = tb_newModel();
  m->opt.timestep = h;
  m->opt.gravity[2] = 0.0;
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "body";
  bd.mass = mass;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.1;
  EXPECT_EQ(tb_addBody(m, &bd), 0);
  return m;
}

// a free 2 kg body pushed along x by a force schedule
tbModel* PushedBody(const tbScheduleDef& sd, double h) {
  tbModel* m = OneBody(h, 2.0);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = 0;
  gd.size[0] = 0.1;
  EXPECT_EQ(tb_addGeom(m, &gd), 0);
  EXPECT_EQ(tb_addSchedule(m, &sd), 0) << tb_lastError();
  EXPECT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  return m;
}

tbScheduleDef Ramp(double t1, double f1) {
  tbScheduleDef sd = tb_defaultScheduleDef();
  sd.field = TB_F_BODY_FORCE;
  sd.object = 0;
  sd.comp = 0;
  sd.nkey = 2;
  sd.key_t[0] = 0.0;
  sd.key_t[1] = t1;
  sd.key_v[0] = 0.0;
  sd.key_v[1] = f1;
  return sd;
}

// A ramp F(t) = t N over [0, 1] s, then held: the step from t_k = k h takes F(t_k + h) (the
// step's end, as kinematic bodies), so after n = 1/h steps v = h/m sum_{k=1..n} k h =
// h^2 n (n + 1) / (2 m), and after n more at 1 N, v + n h / m. Catches a schedule evaluated at the
// step's start (h^2 n (n - 1) / 2m), one never applied, or a ramp not held past its last key.
TEST(ScheduleTest, AForceRampPushesABodyByTheStepsOwnSum) {
  const double h = 0.01, mass = 2.0;
  const int n = 100;
  Scene sc(PushedBody(Ramp(1.0, 1.0), h), 1);
  sc.reset();
  sc.run(n);
  EXPECT_NEAR(sc.vel(0)[0], h * h * n * (n + 1) / (2.0 * mass), 1e-13);
  sc.run(n);
  EXPECT_NEAR(sc.vel(0)[0], h * h * n * (n + 1) / (2.0 * mass) + n * h * 1.0 / mass, 1e-13);
  EXPECT_EQ(sc.vel(0)[1], 0.0);
}

// a servo's target scheduled from 0 to 0.1 m: a stiff slide follows it (catches a schedule on a
// joint's value that the servo row does not read)
TEST(ScheduleTest, AServoFollowsItsScheduledTarget) {
  tbModel* m = OneBody(1e-3, 1.0);
  tbJointDef jd = tb_defaultJointDef();
  jd.type = TB_JOINT_PRISMATIC;
  jd.body_a = 0;
  jd.body_b = -1;
  jd.axis[0] = 1.0;  // the default axis is z
  jd.axis[2] = 0.0;
  jd.servo = 1;
  jd.kp = 1e4;
  jd.kd = 200.0;  // critical: 2 sqrt(kp m)
  jd.fmax = INFINITY;
  ASSERT_EQ(tb_addJoint(m, &jd), 0) << tb_lastError();
  tbScheduleDef sd = tb_defaultScheduleDef();
  sd.object = 0;
  sd.comp = TB_JNT_TPOS;
  sd.nkey = 2;
  sd.key_t[0] = 0.0;
  sd.key_t[1] = 1.0;
  sd.key_v[1] = 0.1;
  ASSERT_EQ(tb_addSchedule(m, &sd), 0) << tb_lastError();
  ASSERT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  Scene sc(m, 1);
  sc.reset();
  sc.run(500);
  // a critically damped servo tracking a ramp of rate r lags it by 2 r / omega (omega = 100/s)
  EXPECT_NEAR(sc.pos(0)[0], 0.05 - 2.0 * 0.1 / 100.0, 2e-4);
  sc.run(1500);
  EXPECT_NEAR(sc.pos(0)[0], 0.1, 1e-6);
}

// the backend tests' mesh-and-schedules model (test_util.h: studyModel) on the CPU: the box's servo
// follows its scheduled target along y and carries the octahedron's top corner with it (their
// contact is the hull routines'), and the batch is bitwise the same on one thread and two
// (catches a schedule's value kept in shared state between scenes)
TEST(ScheduleTest, TheMeshScheduleSceneRunsAloneAndInABatchAlike) {
  Scene one(MeshScheduleModel(), 4), two(MeshScheduleModel(), 4);
  ASSERT_NE(one.m, nullptr);
  for (Scene* sc : {&one, &two}) jitterParams(*sc, 31);
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  one.run(100);
  omp_set_num_threads(2);
  two.run(100);
  omp_set_num_threads(threads);
  EXPECT_EQ(firstDifference(one.d, two.d), "");
  int box = one.body("box"), oct = one.body("octahedron");
  for (int s = 0; s < 4; s++) {
    EXPECT_EQ(one.d->status[s] & TB_SCENE_FAILMASK, 0);
    EXPECT_GT(one.pos(box, s)[1], 0.005) << "the servo follows its target toward 10 mm";
    EXPECT_GT(one.pos(oct, s)[1], 0.002) << "the box's corner contact drags the octahedron";
  }
}

TEST(ScheduleTest, MisusesAreRefusedNamingTheSchedule) {
  tbModel* m = OneBody(1e-3, 1.0);
  tbScheduleDef sd = Ramp(1.0, 1.0);
  sd.key_t[1] = 0.0;
  EXPECT_LT(tb_addSchedule(m, &sd), 0);
  EXPECT_NE(std::string(tb_lastError()).find("increasing"), std::string::npos) << tb_lastError();
  sd = Ramp(1.0, NAN);
  EXPECT_LT(tb_addSchedule(m, &sd), 0);
  sd = Ramp(1.0, 1.0);
  sd.comp = 6;
  EXPECT_LT(tb_addSchedule(m, &sd), 0);
  sd = Ramp(1.0, 1.0);
  sd.field = TB_F_GEOM_MU;
  EXPECT_LT(tb_addSchedule(m, &sd), 0);
  tbJointDef jd = tb_defaultJointDef();  // a servo on a slide: its gain stays >= 0
  jd.type = TB_JOINT_PRISMATIC;
  jd.body_a = 0;
  jd.body_b = -1;
  jd.servo = 1;
  jd.kp = 1.0;
  jd.fmax = 1.0;
  ASSERT_EQ(tb_addJoint(m, &jd), 0) << tb_lastError();
  sd = tb_defaultScheduleDef();
  sd.object = 0;
  sd.comp = TB_JNT_KP;
  sd.key_v[0] = -1.0;
  EXPECT_LT(tb_addSchedule(m, &sd), 0);
  EXPECT_NE(std::string(tb_lastError()).find("gain must be >= 0"), std::string::npos)
      << tb_lastError();
  sd = tb_defaultScheduleDef();  // a servo target of a joint that does not exist
  sd.object = 1;
  EXPECT_LT(tb_addSchedule(m, &sd), 0);
  sd = Ramp(1.0, 1.0);
  ASSERT_EQ(tb_addSchedule(m, &sd), 0);
  EXPECT_LT(tb_addSchedule(m, &sd), 0) << "two schedules on one value";
  // a parameter on the scheduled value fights it: refused at compile
  int p = tb_addParam(m, "fx", "N", "", -1.0, 1.0, 0);
  ASSERT_EQ(tb_paramTarget(m, p, TB_F_BODY_FORCE, 0, 0), TB_OK);
  EXPECT_NE(tb_compileModel(m), TB_OK);
  EXPECT_NE(std::string(tb_lastError()).find("schedule 0"), std::string::npos) << tb_lastError();
  tb_freeModel(m);
  // a scene that rests would stop the schedule's changes
  m = OneBody(1e-3, 1.0);
  m->opt.rest_speed = 1e-3;
  m->opt.rest_time = 0.1;
  ASSERT_EQ(tb_addSchedule(m, &sd), 0);
  EXPECT_NE(tb_compileModel(m), TB_OK);
  EXPECT_NE(std::string(tb_lastError()).find("rest_speed"), std::string::npos) << tb_lastError();
  tb_freeModel(m);
}

}  // namespace

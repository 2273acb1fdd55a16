// Tests of model building and validation through the C API: every bad definition is refused
// with -1 (or an error code) and a message naming the bad field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

extern "C" {
#include "math/collide_geom.h"
}
#include <tumble/tumble.h>

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

bool Mentions(const char* needle) {
  return std::string(tb_lastError()).find(needle) != std::string::npos;
}

// owns a model under construction
struct Model {
  tbModel* m = tb_newModel();
  ~Model() { tb_freeModel(m); }
  int body(int type, const char* name, double mass = 1.0) {
    tbBodyDef bd = tb_defaultBodyDef();
    bd.type = type;
    bd.name = name;
    bd.mass = mass;
    return tb_addBody(m, &bd);
  }
  // a kinematic body "conveyor" moved by a constant-velocity driver
  int conveyor() {
    int k = body(TB_BODY_KINEMATIC, "conveyor");
    tbDriverDef dd = tb_defaultDriverDef();
    dd.type = TB_DRIVER_CONSTVEL;
    dd.body = k;
    EXPECT_EQ(tb_addDriver(m, &dd), 0) << tb_lastError();
    return k;
  }
  int sphere(int body, double r = 0.1) {
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = body;
    gd.size[0] = r;
    return tb_addGeom(m, &gd);
  }
};

//---- bodies ------------------------------------------------------------------------------------

TEST(ModelTest, BodyRejectsBadMass) {
  Model M;
  ASSERT_NE(M.m, nullptr);
  for (double mass : {-1.0, 0.0, kNaN, kInf}) {
    EXPECT_EQ(M.body(TB_BODY_DYNAMIC, "b", mass), -1) << "mass " << mass;
    EXPECT_TRUE(Mentions("mass")) << "mass " << mass << ": " << tb_lastError();
  }
  EXPECT_EQ(M.m->nbody, 0) << "a refused body was added";
  // the same body with a valid mass is accepted, so the refusals above are about the mass
  EXPECT_EQ(M.body(TB_BODY_DYNAMIC, "b", 2.0), 0) << tb_lastError();
  // static and kinematic bodies need no mass
  EXPECT_EQ(M.body(TB_BODY_STATIC, "s", 0.0), 1) << tb_lastError();
}

TEST(ModelTest, BodyRejectsBadInertia) {
  Model M;
  for (int k = 0; k < 3; k++) {
    for (double v : {0.0, -1.0, kNaN}) {
      tbBodyDef bd = tb_defaultBodyDef();
      bd.name = "b";
      bd.inertia[k] = v;
      EXPECT_EQ(tb_addBody(M.m, &bd), -1) << "inertia[" << k << "] = " << v;
      EXPECT_TRUE(Mentions("inertia")) << tb_lastError();
      EXPECT_FALSE(Mentions("mass")) << "blames the mass: " << tb_lastError();
    }
  }
  EXPECT_EQ(M.m->nbody, 0);
}

TEST(ModelTest, BodyRejectsDuplicateNameAndBadType) {
  Model M;
  EXPECT_EQ(M.body(TB_BODY_DYNAMIC, "same"), 0);
  EXPECT_EQ(M.body(TB_BODY_DYNAMIC, "same"), -1);
  EXPECT_TRUE(Mentions("same")) << tb_lastError();
  EXPECT_EQ(M.body(7, "other"), -1);
  EXPECT_TRUE(Mentions("type")) << tb_lastError();
  EXPECT_EQ(M.m->nbody, 1);
}

//---- geoms -------------------------------------------------------------------------------------

TEST(ModelTest, GeomRejectsBadFields) {
  Model M;
  int ground = M.body(TB_BODY_STATIC, "ground");
  int b = M.body(TB_BODY_DYNAMIC, "ball");
  ASSERT_EQ(ground, 0);
  ASSERT_EQ(b, 1);

  EXPECT_EQ(M.sphere(b, -0.1), -1);
  EXPECT_TRUE(Mentions("size")) << tb_lastError();

  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.size[0] = 0.1;
  gd.mu = -0.1;
  EXPECT_EQ(tb_addGeom(M.m, &gd), -1);
  EXPECT_TRUE(Mentions("mu")) << tb_lastError();
  gd.mu = kNaN;
  EXPECT_EQ(tb_addGeom(M.m, &gd), -1);
  EXPECT_TRUE(Mentions("mu")) << tb_lastError();

  gd.mu = 0.5;
  gd.restitution = 2.0;
  EXPECT_EQ(tb_addGeom(M.m, &gd), -1);
  EXPECT_TRUE(Mentions("restitution")) << tb_lastError();
  gd.restitution = -0.5;
  EXPECT_EQ(tb_addGeom(M.m, &gd), -1);
  EXPECT_TRUE(Mentions("restitution")) << tb_lastError();

  tbGeomDef pd = tb_defaultGeomDef();
  pd.body = b;
  pd.type = TB_GEOM_PLANE;
  EXPECT_EQ(tb_addGeom(M.m, &pd), -1) << "a plane on a dynamic body was accepted";
  EXPECT_TRUE(Mentions("plane")) << tb_lastError();

  gd.body = 5;
  gd.restitution = 0.5;
  EXPECT_EQ(tb_addGeom(M.m, &gd), -1);
  EXPECT_TRUE(Mentions("body")) << tb_lastError();

  EXPECT_EQ(M.m->ngeom, 0) << "a refused geom was added";
  // the valid versions are accepted
  pd.body = ground;
  EXPECT_EQ(tb_addGeom(M.m, &pd), 0) << tb_lastError();
  gd.body = b;
  EXPECT_EQ(tb_addGeom(M.m, &gd), 1) << tb_lastError();
  EXPECT_EQ(M.sphere(b, 0.0), 2) << "a point (radius 0) is a valid sphere: " << tb_lastError();
}

//---- joints ------------------------------------------------------------------------------------

TEST(ModelTest, JointRejectsBadFields) {
  Model M;
  int s = M.body(TB_BODY_STATIC, "base");
  int b = M.body(TB_BODY_DYNAMIC, "arm");
  ASSERT_EQ(s, 0);
  ASSERT_EQ(b, 1);

  tbJointDef jd = tb_defaultJointDef();
  jd.type = TB_JOINT_REVOLUTE;
  jd.body_a = s;
  EXPECT_EQ(tb_addJoint(M.m, &jd), -1) << "body_a static was accepted";
  EXPECT_TRUE(Mentions("body_a")) << tb_lastError();

  jd.body_a = b;
  jd.limited = 1;
  jd.lo = 1.0;
  jd.hi = -1.0;
  EXPECT_EQ(tb_addJoint(M.m, &jd), -1) << "lo > hi was accepted";
  EXPECT_TRUE(Mentions("lo")) << tb_lastError();

  jd.lo = -1.0;
  jd.hi = 1.0;
  jd.servo = 1;
  jd.kp = 0.0;
  jd.kd = 0.0;
  EXPECT_EQ(tb_addJoint(M.m, &jd), -1) << "servo with kp = kd = 0 was accepted";
  EXPECT_TRUE(Mentions("kp")) << tb_lastError();
  jd.kp = -1.0;
  jd.kd = 2.0;
  EXPECT_EQ(tb_addJoint(M.m, &jd), -1) << "servo with kp < 0 was accepted";
  EXPECT_TRUE(Mentions("kp")) << tb_lastError();

  jd.kp = 10.0;
  jd.kd = 0.0;
  jd.axis[0] = jd.axis[1] = jd.axis[2] = 0.0;
  EXPECT_EQ(tb_addJoint(M.m, &jd), -1) << "zero axis was accepted";
  EXPECT_TRUE(Mentions("axis")) << tb_lastError();

  EXPECT_EQ(M.m->njnt, 0) << "a refused joint was added";
  jd.axis[1] = 1.0;
  EXPECT_EQ(tb_addJoint(M.m, &jd), 0) << tb_lastError();
  // limits lo == hi are admissible (a locked coordinate)
  jd.lo = jd.hi = 0.25;
  jd.body_b = s;
  EXPECT_EQ(tb_addJoint(M.m, &jd), 1) << tb_lastError();
}

//---- drivers -----------------------------------------------------------------------------------

TEST(ModelTest, DriverRejectsBadFields) {
  Model M;
  int d = M.body(TB_BODY_DYNAMIC, "ball");
  int k = M.body(TB_BODY_KINEMATIC, "paddle");
  ASSERT_EQ(d, 0);
  ASSERT_EQ(k, 1);

  tbDriverDef dd = tb_defaultDriverDef();
  dd.type = TB_DRIVER_CONSTVEL;
  dd.body = d;
  EXPECT_EQ(tb_addDriver(M.m, &dd), -1) << "driver on a dynamic body was accepted";
  EXPECT_TRUE(Mentions("kinematic")) << tb_lastError();

  dd.body = k;
  dd.type = TB_DRIVER_KEYFRAMES;
  dd.nkey = 3;
  for (int i = 0; i < 3; i++) dd.key_quat[i][0] = 1.0;
  dd.key_t[0] = 0.0;
  dd.key_t[1] = 1.0;
  dd.key_t[2] = 1.0;  // repeated
  EXPECT_EQ(tb_addDriver(M.m, &dd), -1) << "repeated key time was accepted";
  EXPECT_TRUE(Mentions("key_t[2]")) << tb_lastError();
  dd.key_t[2] = 0.5;  // decreasing
  EXPECT_EQ(tb_addDriver(M.m, &dd), -1) << "decreasing key time was accepted";
  EXPECT_TRUE(Mentions("key_t[2]")) << tb_lastError();

  dd.type = TB_DRIVER_PLATE;
  dd.omega = 0.0;
  EXPECT_EQ(tb_addDriver(M.m, &dd), -1) << "plate with omega 0 was accepted";
  EXPECT_TRUE(Mentions("omega")) << tb_lastError();

  EXPECT_EQ(M.m->ndriver, 0) << "a refused driver was added";
  dd.type = TB_DRIVER_KEYFRAMES;
  dd.key_t[2] = 2.0;
  EXPECT_EQ(tb_addDriver(M.m, &dd), 0) << tb_lastError();
  // one driver per body
  EXPECT_EQ(tb_addDriver(M.m, &dd), -1);
  EXPECT_TRUE(Mentions("already")) << tb_lastError();
}

//---- compile -----------------------------------------------------------------------------------

TEST(ModelTest, CompileNamesKinematicBodyWithoutDriver) {
  Model M;
  M.body(TB_BODY_STATIC, "ground");
  M.body(TB_BODY_KINEMATIC, "conveyor");
  M.sphere(M.body(TB_BODY_DYNAMIC, "ball"));
  EXPECT_NE(tb_compileModel(M.m), TB_OK);
  EXPECT_TRUE(Mentions("'conveyor'")) << tb_lastError();
  EXPECT_FALSE(M.m->compiled);

  // the same model with a driver compiles
  Model N;
  N.body(TB_BODY_STATIC, "ground");
  N.conveyor();
  N.sphere(N.body(TB_BODY_DYNAMIC, "ball"));
  EXPECT_EQ(tb_compileModel(N.m), TB_OK) << tb_lastError();
  EXPECT_TRUE(N.m->compiled);
  // and is frozen afterwards
  EXPECT_EQ(N.body(TB_BODY_DYNAMIC, "late"), -1);
  EXPECT_TRUE(Mentions("compiled")) << tb_lastError();
}

// options rest_speed and rest_time: finite and >= 0, and no rest where a kinematic body moves
// the scene on its own
TEST(ModelTest, CompileNamesBadRestOptions) {
  const double bad[] = {-1e-5, kNaN, kInf};
  for (int field = 0; field < 2; field++) {
    for (double v : bad) {
      Model M;
      M.sphere(M.body(TB_BODY_DYNAMIC, "ball"));
      M.m->opt.rest_speed = field == 0 ? v : 1e-5;
      M.m->opt.rest_time = field == 1 ? v : 0.05;
      EXPECT_NE(tb_compileModel(M.m), TB_OK) << v;
      EXPECT_TRUE(Mentions(field == 0 ? "rest_speed" : "rest_time")) << tb_lastError();
    }
  }
  Model K;
  K.conveyor();
  K.sphere(K.body(TB_BODY_DYNAMIC, "ball"));
  K.m->opt.rest_speed = 1e-5;
  EXPECT_NE(tb_compileModel(K.m), TB_OK);
  EXPECT_TRUE(Mentions("rest_speed") && Mentions("'conveyor'")) << tb_lastError();
}

TEST(ModelTest, CompileRejectsParamWithoutTarget) {
  Model M;
  M.body(TB_BODY_DYNAMIC, "ball");
  ASSERT_EQ(tb_addParam(M.m, "lonely", "", "", 0.0, 1.0, 0), 0);
  EXPECT_NE(tb_compileModel(M.m), TB_OK);
  EXPECT_TRUE(Mentions("'lonely'")) << tb_lastError();
}

TEST(ModelTest, NewDataNeedsScenesAndCompiledModel) {
  Model M;
  M.body(TB_BODY_DYNAMIC, "ball");
  EXPECT_EQ(tb_newData(M.m, 1), nullptr) << "data of an uncompiled model";
  EXPECT_TRUE(Mentions("compiled")) << tb_lastError();
  ASSERT_EQ(tb_compileModel(M.m), TB_OK) << tb_lastError();
  EXPECT_EQ(tb_newData(M.m, 0), nullptr);
  EXPECT_TRUE(Mentions("scenes")) << tb_lastError();
  EXPECT_EQ(tb_newData(M.m, -3), nullptr);
  tbData* d = tb_newData(M.m, 2);
  ASSERT_NE(d, nullptr) << tb_lastError();
  EXPECT_EQ(d->nscene, 2);
  tb_freeData(d);
}

//---- parameters --------------------------------------------------------------------------------

// a ball with parameters mu in [0, 2], mass in (0, 10] (inertia scaled by 0.4), dt in (0, 1]
struct ParamModel {
  Model M;
  int ball = -1, geom = -1, p_mu = -1, p_mass = -1, p_dt = -1;
  ParamModel() {
    M.body(TB_BODY_STATIC, "ground");
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = "ball";
    bd.mass = 2.0;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.8;
    bd.pos[2] = 1.0;
    ball = tb_addBody(M.m, &bd);
    geom = M.sphere(ball);
    p_mu = tb_addParam(M.m, "mu", "", "friction", 0.0, 2.0, 0);
    tb_paramTarget(M.m, p_mu, TB_F_GEOM_MU, geom, 0);
    p_mass = tb_addParam(M.m, "mass", "kg", "mass", 0.0, 10.0, 1);
    tb_paramTarget(M.m, p_mass, TB_F_BODY_MASS, ball, 0);
    for (int k = 0; k < 3; k++) tb_paramTargetScaled(M.m, p_mass, TB_F_BODY_INERTIA, ball, k, 0.4);
    p_dt = tb_addParam(M.m, "dt", "s", "step", 0.0, 1.0, 1);
    tb_paramTarget(M.m, p_dt, TB_F_OPT, 0, TB_OPT_DT);
  }
};

TEST(ModelTest, FindParamAndBody) {
  ParamModel P;
  ASSERT_EQ(tb_compileModel(P.M.m), TB_OK) << tb_lastError();
  EXPECT_EQ(tb_findParam(P.M.m, "mu"), P.p_mu);
  EXPECT_EQ(tb_findParam(P.M.m, "mass"), P.p_mass);
  EXPECT_EQ(tb_findParam(P.M.m, "dt"), P.p_dt);
  EXPECT_EQ(P.p_dt, 2);
  EXPECT_EQ(tb_findParam(P.M.m, "nope"), -1);
  EXPECT_EQ(tb_findParam(P.M.m, "m"), -1) << "prefix matched";
  EXPECT_EQ(tb_findBody(P.M.m, "ground"), 0);
  EXPECT_EQ(tb_findBody(P.M.m, "ball"), 1);
  EXPECT_EQ(tb_findBody(P.M.m, "bal"), -1);
  EXPECT_EQ(tb_findBody(P.M.m, ""), -1) << "the empty name matched";
  // duplicate parameter names are refused
  Model M;
  ASSERT_EQ(tb_addParam(M.m, "x", "", "", 0.0, 1.0, 0), 0);
  EXPECT_EQ(tb_addParam(M.m, "x", "", "", 0.0, 1.0, 0), -1);
}

TEST(ModelTest, ParamDefaultsComeFromFirstTarget) {
  ParamModel P;
  ASSERT_EQ(tb_compileModel(P.M.m), TB_OK) << tb_lastError();
  EXPECT_EQ(P.M.m->param[P.p_mu].value, 0.5);  // tb_defaultGeomDef mu
  EXPECT_EQ(P.M.m->param[P.p_mass].value, 2.0);
  EXPECT_EQ(P.M.m->param[P.p_dt].value, 1e-3);  // tb_defaultOption timestep
}

TEST(ModelTest, CheckParamsNamesParamAndScene) {
  ParamModel P;
  ASSERT_EQ(tb_compileModel(P.M.m), TB_OK) << tb_lastError();
  tbData* d = tb_newData(P.M.m, 4);
  ASSERT_NE(d, nullptr) << tb_lastError();
  int np = P.M.m->nparam;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_OK) << "defaults refused: " << tb_lastError();
  EXPECT_STREQ(tb_lastError(), "");

  // closed upper bound: hi itself is admissible, above is not
  d->param[2 * np + P.p_mu] = 2.0;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_OK) << tb_lastError();
  d->param[2 * np + P.p_mu] = 2.5;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_ERR_ARG);
  EXPECT_TRUE(Mentions("'mu'")) << tb_lastError();
  EXPECT_TRUE(Mentions("scene 2")) << tb_lastError();
  EXPECT_TRUE(Mentions("2.5")) << tb_lastError();
  d->param[2 * np + P.p_mu] = 0.0;  // closed lower bound
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_OK) << tb_lastError();
  d->param[2 * np + P.p_mu] = -1e-12;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_ERR_ARG);
  d->param[2 * np + P.p_mu] = 0.5;

  // open lower bound: mass 0 is refused, NaN is never admissible
  d->param[3 * np + P.p_mass] = 0.0;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_ERR_ARG);
  EXPECT_TRUE(Mentions("'mass'")) << tb_lastError();
  EXPECT_TRUE(Mentions("scene 3")) << tb_lastError();
  d->param[3 * np + P.p_mass] = kNaN;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_ERR_ARG);
  EXPECT_TRUE(Mentions("'mass'")) << tb_lastError();
  d->param[3 * np + P.p_mass] = 1e-300;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_OK) << tb_lastError();

  d->param[1 * np + P.p_dt] = kInf;
  EXPECT_EQ(tb_checkParams(P.M.m, d), TB_ERR_ARG);
  EXPECT_TRUE(Mentions("'dt'")) << tb_lastError();
  EXPECT_TRUE(Mentions("scene 1")) << tb_lastError();
  tb_freeData(d);
}

TEST(ModelTest, SceneVaryAppliesScaledTargets) {
  ParamModel P;
  ASSERT_EQ(tb_compileModel(P.M.m), TB_OK) << tb_lastError();
  const tbModel* m = P.M.m;
  tbData* d = tb_newData(m, 3);
  ASSERT_NE(d, nullptr) << tb_lastError();
  int np = m->nparam;
  const double mass1 = 3.0, mu2 = 0.125;
  d->param[1 * np + P.p_mass] = mass1;
  d->param[2 * np + P.p_mu] = mu2;
  ASSERT_EQ(tb_checkParams(m, d), TB_OK) << tb_lastError();

  int i_mass = tb_varyIndex(m, TB_F_BODY_MASS, P.ball, 0);
  int i_mu = tb_varyIndex(m, TB_F_GEOM_MU, P.geom, 0);
  int i_dt = tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_DT);
  int i_z = tb_varyIndex(m, TB_F_BODY_POS, P.ball, 2);
  ASSERT_GE(i_mass, 0);
  ASSERT_GE(i_mu, 0);
  ASSERT_GE(i_dt, 0);
  ASSERT_GE(i_z, 0);
  EXPECT_EQ(tb_varyIndex(m, TB_F_BODY_MASS, 2, 0), -1) << "body 2 does not exist";
  EXPECT_EQ(tb_varyIndex(m, TB_F_BODY_INERTIA, 0, 3), -1) << "inertia has 3 components";

  std::vector<double> v(m->nvary);
  tb_sceneVary(m, d, 1, v.data());
  EXPECT_EQ(v[i_mass], mass1);
  for (int k = 0; k < 3; k++) {
    int i = tb_varyIndex(m, TB_F_BODY_INERTIA, P.ball, k);
    ASSERT_GE(i, 0);
    EXPECT_EQ(v[i], 0.4 * mass1) << "inertia[" << k << "] is not 0.4 * mass";
  }
  EXPECT_EQ(v[i_mu], 0.5) << "scene 1 keeps the default mu";
  EXPECT_EQ(v[i_dt], 1e-3);
  EXPECT_EQ(v[i_z], 1.0) << "an untargeted entry lost its model default";

  tb_sceneVary(m, d, 2, v.data());
  EXPECT_EQ(v[i_mu], mu2);
  EXPECT_EQ(v[i_mass], 2.0) << "scene 2 keeps the default mass";
  for (int k = 0; k < 3; k++) {
    EXPECT_EQ(v[tb_varyIndex(m, TB_F_BODY_INERTIA, P.ball, k)], 0.4 * 2.0);
  }
  tb_freeData(d);
}

TEST(ModelTest, ParamTargetRejectsBadScale) {
  Model M;
  M.body(TB_BODY_DYNAMIC, "ball");
  int p = tb_addParam(M.m, "mass", "kg", "", 0.0, 10.0, 1);
  ASSERT_EQ(p, 0);
  EXPECT_EQ(tb_paramTargetScaled(M.m, p, TB_F_BODY_MASS, 0, 0, 0.0), -1) << "scale 0 accepted";
  EXPECT_EQ(tb_paramTargetScaled(M.m, p, TB_F_BODY_MASS, 0, 0, kNaN), -1) << "NaN scale accepted";
  EXPECT_EQ(tb_paramTargetScaled(M.m, 5, TB_F_BODY_MASS, 0, 0, 1.0), -1) << "param 5 accepted";
  EXPECT_EQ(M.m->param[p].ntarget, 0);
  // a target outside the model is caught at compile and named
  ASSERT_EQ(tb_paramTarget(M.m, p, TB_F_BODY_MASS, 3, 0), 0);
  EXPECT_NE(tb_compileModel(M.m), TB_OK);
  EXPECT_TRUE(Mentions("'mass'")) << tb_lastError();
}

}  // namespace

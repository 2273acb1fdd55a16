// Helpers for the physics tests: build a built-in scene, run it, read body state.
#ifndef TUMBLE_TESTS_TEST_UTIL_H_
#define TUMBLE_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <tumble/grasp.h>
#include <tumble/grasp3d.h>
#include <tumble/mjcf.h>
#include <tumble/scenes.h>
#include <tumble/tumble.h>

#include "math/tb_math.h"

// the MJCF file at path with the model-wide custom numeric `name` = data added
inline std::string mjcfWithNumeric(const std::string& path, const std::string& name,
                                   const std::string& data) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.insert(text.rfind("</mujoco>"),
              "<custom><numeric name=\"" + name + "\" data=\"" + data + "\"/></custom>");
  return text;
}

// a compiled built-in scene with its data, freed on destruction
struct Scene {
  tbModel* m = nullptr;
  tbData* d = nullptr;

  // build `name` with structural options {name, value} and the cone settings of b
  Scene(const char* name, int nscene, std::vector<std::pair<const char*, double>> opts = {},
        int cone = TB_CONE_EXACT, int facets = 8, int align = 0) {
    int i = tb_findScene(name);
    EXPECT_GE(i, 0) << name;
    tbBuild b = tb_defaultBuild(i);
    b.cone = cone;
    b.facets = facets;
    b.facet_align = align;
    const tbSceneInfo* si = tb_sceneInfo(i);
    for (auto& o : opts) {
      bool found = false;
      for (int k = 0; k < si->nopt; k++) {
        if (std::string(si->opt[k].name) == o.first) {
          b.opt[k] = o.second;
          found = true;
        }
      }
      EXPECT_TRUE(found) << o.first;
    }
    m = tb_buildScene(i, &b);
    EXPECT_NE(m, nullptr) << tb_lastError();
    if (m) d = tb_newData(m, nscene);
  }
  // a batch of nscene scenes of model m (taken over)
  Scene(tbModel* model, int nscene) : m(model) {
    EXPECT_NE(m, nullptr) << tb_lastError();
    if (m) d = tb_newData(m, nscene);
  }
  ~Scene() {
    tb_freeData(d);
    tb_freeModel(m);
  }
  // set parameter `name` for scene s (all scenes when s < 0); call reset() afterwards
  void set(const char* name, double v, int s = -1) {
    int p = tb_findParam(m, name);
    ASSERT_GE(p, 0) << name;
    for (int k = 0; k < d->nscene; k++) {
      if (s < 0 || k == s) d->param[(size_t)k * m->nparam + p] = v;
    }
  }
  void reset() {
    ASSERT_EQ(tb_checkParams(m, d), TB_OK) << tb_lastError();
    ASSERT_EQ(tb_resetData(m, d), TB_OK);
  }
  void run(int nstep) { ASSERT_EQ(tb_rollout(m, d, 0, d->nscene, nstep, nullptr), TB_OK); }
  int body(const char* name) const { return tb_findBody(m, name); }
  const double* pos(int b, int s = 0) const { return d->body_pos + ((size_t)s * m->nbody + b) * 3; }
  const double* quat(int b, int s = 0) const {
    return d->body_quat + ((size_t)s * m->nbody + b) * 4;
  }
  const double* vel(int b, int s = 0) const { return d->body_vel + ((size_t)s * m->nbody + b) * 6; }
};

// total energy (kinetic, and potential in the model's gravity) of the dynamic bodies of scene s,
// at the model's default masses and inertias
inline double sceneEnergy(const Scene& sc, int s = 0) {
  const tbModel* m = sc.m;
  const double* g = m->vary0 + tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_GRAVITY);
  double e = 0.0;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    const double* v = sc.vel(b, s);
    const double* x = sc.pos(b, s);
    double mass = m->vary0[tb_varyIndex(m, TB_F_BODY_MASS, b, 0)], wb[3];
    tbu_rotVecInv(wb, sc.quat(b, s), v + 3);  // w in the body frame
    for (int k = 0; k < 3; k++) {
      double I = m->vary0[tb_varyIndex(m, TB_F_BODY_INERTIA, b, k)];
      e += 0.5 * mass * v[k] * v[k] + 0.5 * I * wb[k] * wb[k] - mass * g[k] * x[k];
    }
  }
  return e;
}

// an octahedron of half-diagonals 0.05, 0.04, 0.03 m (corners on the axes: +x -x +y -y +z -z),
// a mesh's polyhedron that is not a box, as a geom's hull (its arrays static)
inline const tbHullDef* OctahedronHull() {
  static const double v[18] = {0.05, 0,     0, -0.05, 0, 0,    0, 0.04, 0,
                               0,    -0.04, 0, 0,     0, 0.03, 0, 0,    -0.03};
  // faces by octant: corners counter-clockwise seen from outside
  static const int fv[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
                             2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
  static const int nv[8] = {3, 3, 3, 3, 3, 3, 3, 3};
  // edges: the corners and the faces either side (face k holds fv[3k..3k+2])
  static const int edge[48] = {0, 2, 0, 4, 2, 1, 1, 5, 1, 3, 2, 6, 3, 0, 3, 7,
                               0, 4, 0, 3, 2, 4, 0, 1, 1, 4, 1, 2, 3, 4, 2, 3,
                               0, 5, 4, 7, 2, 5, 4, 5, 1, 5, 5, 6, 3, 5, 6, 7};
  static double plane[32];
  static tbHullDef h = {6, v, 8, plane, nv, fv, 12, edge};
  for (int f = 0; f < 8; f++) {
    const double *a = v + 3 * fv[3 * f], *b = v + 3 * fv[3 * f + 1], *c = v + 3 * fv[3 * f + 2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    double l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) plane[4 * f + k] = n[k] / l;
    plane[4 * f + 3] = (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / l;
  }
  return &h;
}

// A mesh scene with schedules, built without MJCF (the GPU tests link the engine alone): a box,
// tilted, resting on the top corner of an octahedron mesh that stands on its bottom corner on a
// plane; the box on a compliant slide along y whose servo's target a schedule moves 10 mm, the
// octahedron pushed along x by a force ramp; parameters mu and the box's mass
inline tbModel* MeshScheduleModel() {
  tbModel* m = tb_newModel();
  m->opt.timestep = 1e-3;
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "ground";
  bd.type = TB_BODY_STATIC;
  int ground = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = ground;
  gd.type = TB_GEOM_PLANE;
  tb_addGeom(m, &gd);
  bd = tb_defaultBodyDef();
  bd.name = "octahedron";
  bd.mass = 0.2;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 1e-4;
  bd.pos[2] = 0.03;
  int oct = tb_addBody(m, &bd);
  gd = tb_defaultGeomDef();
  gd.body = oct;
  gd.type = TB_GEOM_MESH;
  gd.hull = OctahedronHull();
  gd.mu = 0.5;
  int og = tb_addGeom(m, &gd);
  bd = tb_defaultBodyDef();
  bd.name = "box";
  bd.mass = 0.1;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 2e-5;
  bd.pos[0] = 0.01;
  bd.pos[2] = 0.075;
  const double tilt[4] = {0.9950041652780258, 0.0998334166468282, 0, 0};  // 0.2 rad about x
  memcpy(bd.quat, tilt, sizeof(tilt));
  int box = tb_addBody(m, &bd);
  gd = tb_defaultGeomDef();
  gd.body = box;
  gd.type = TB_GEOM_BOX;
  gd.size[0] = gd.size[1] = gd.size[2] = 0.015;
  tb_addGeom(m, &gd);
  tbJointDef jd = tb_defaultJointDef();
  jd.type = TB_JOINT_PRISMATIC;
  jd.body_a = box;
  jd.body_b = -1;
  memcpy(jd.anchor, bd.pos, sizeof(jd.anchor));
  jd.axis[0] = 0.0;
  jd.axis[1] = 1.0;
  jd.axis[2] = 0.0;
  jd.servo = 1;
  jd.kp = 50.0;
  jd.kd = 2.0;
  jd.fmax = 2.0;
  jd.stiffness = 1e5;  // the slide's other rows compliant: the box may still land
  int slide = tb_addJoint(m, &jd);
  tbScheduleDef sd = tb_defaultScheduleDef();
  sd.object = slide;
  sd.comp = TB_JNT_TPOS;
  sd.nkey = 2;
  sd.key_t[0] = 0.02;
  sd.key_t[1] = 0.08;
  sd.key_v[1] = 0.01;
  tb_addSchedule(m, &sd);
  sd = tb_defaultScheduleDef();
  sd.field = TB_F_BODY_FORCE;
  sd.object = oct;
  sd.comp = 0;
  sd.nkey = 3;
  sd.key_t[0] = 0.0;
  sd.key_t[1] = 0.05;
  sd.key_t[2] = 0.1;
  sd.key_v[1] = 3.0;  // twice the friction's hold on it
  tb_addSchedule(m, &sd);
  int p = tb_addParam(m, "mu", "", "the octahedron's friction", 0.0, 10.0, 0);
  tb_paramTarget(m, p, TB_F_GEOM_MU, og, 0);
  p = tb_addParam(m, "box.mass", "kg", "", TB_MIN_MASS, 10.0, 1);
  tb_paramTarget(m, p, TB_F_BODY_MASS, box, 0);
  if (tb_lastError()[0] || tb_compileModel(m) != TB_OK) {
    tb_freeModel(m);
    return nullptr;
  }
  return m;
}

// the models every backend test runs: the built-in scenes, then the studies' (the planar grasp
// of the gear, the 3D grasp), then the meshes and schedules of a user's gripper (MeshScheduleModel)
inline int studyCount() {
  return tb_sceneCount() + 3;
}

inline tbModel* studyModel(int i) {
  if (i < tb_sceneCount()) {
    tbBuild b = tb_defaultBuild(i);
    tbModel* m = tb_buildScene(i, &b);
    // the pile's steps by PGS at 10 sweeps (body space), not its auto with 3000 iterations: the
    // per-model tests run it in every layout, a warp's team emulated by OpenMP barriers at each
    // column update (DeviceLayoutTest: over 8 minutes at 1000 sweeps, 315 s at 50, 70 s at 10)
    if (m && !strcmp(tb_sceneInfo(i)->name, "sphere-pile")) {
      m->opt.solver = TB_SOLVER_PGS;
      m->opt.max_iter = 10;
    }
    return m;
  }
  if (i == tb_sceneCount()) {
    tbGraspDef g = tb_defaultGraspDef();
    return tb_buildGraspModel(&g);
  }
  if (i == tb_sceneCount() + 2) return MeshScheduleModel();
  tbGrasp3dDef g = tb_defaultGrasp3dDef();
  tbGrasp3dInfo info;
  return tb_buildGrasp3d(&g, &info);
}

// its name as a test name
inline std::string studyName(int i) {
  std::string n = i < tb_sceneCount()        ? tb_sceneInfo(i)->name
                  : i == tb_sceneCount()     ? "grasp"
                  : i == tb_sceneCount() + 1 ? "grasp3d"
                                             : "mesh_schedule";
  for (char& ch : n) ch = ch == '-' ? '_' : ch;
  return n;
}

// the cone a step solver takes: the pyramid for the LCP solvers, else the exact cone
inline int solverCone(int solver) {
  bool lcp = solver == TB_SOLVER_MLCP_FB_RLM || solver == TB_SOLVER_MLCP_FB_PLM ||
             solver == TB_SOLVER_LEMKE;
  return lcp ? TB_CONE_PYRAMID : TB_CONE_EXACT;
}

// every scene's parameters moved by up to +-2% of their defaults (zero defaults stay), each scene
// its own draw, so that a batch's scenes differ; a value outside its range keeps the default
inline void jitterParams(Scene& sc, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  for (int s = 0; s < sc.d->nscene; s++) {
    for (int p = 0; p < sc.m->nparam; p++) {
      const tbParam* prm = &sc.m->param[p];
      // the contacts' regularization keeps its default and takes no draw: the others' draws stay
      // those the jittered tests' bounds were seen on before it existed
      if (!strcmp(prm->name, "soft") || !strcmp(prm->name, "opt.soft")) continue;
      double v0 = prm->value, v = v0 * (1.0 + u(rng));
      bool ok = prm->lo_open ? v > prm->lo : v >= prm->lo;
      sc.d->param[(size_t)s * sc.m->nparam + p] = ok && v <= prm->hi ? v : v0;
    }
  }
  // a jitter that breaks a cross-parameter check (a support tripod) falls back to the defaults
  if (tb_checkParams(sc.m, sc.d) != TB_OK) tb_defaultParams(sc.m, sc.d);
  sc.reset();
}

// the first per-scene array (TB_DATA_ARRAYS) in which a and b differ in any bit, or "" if none
inline std::string firstDifference(const tbData* a, const tbData* b) {
  const tbData* d = a;
#define TB_X(type, name, count)                                                            \
  if (std::memcmp(a->name, b->name, sizeof(type) * (size_t)a->nscene * (size_t)(count))) { \
    return #name;                                                                          \
  }
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  return "";
}

// a 1 m rod of 1 kg hanging from a ball joint at its top end (the model pose: its reference), hit
// sideways at 3 rad/s about x and spinning at spin rad/s about the vertical, limited to a cone of
// hi rad (0: unlimited; the parameter "cone"), at step h
inline tbModel* coneRodModel(int minimal, double hi, double spin, double h) {
  tbModel* m = tb_newModel();
  m->opt.timestep = h;
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "rod";
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = 1.0 / 12.0;
  bd.inertia[2] = 1e-3;
  bd.pos[2] = -0.5;
  const double w[3] = {3.0, 0.0, spin}, r[3] = {0.0, 0.0, -0.5};
  tbu_copy3(bd.vel + 3, w);
  tbu_cross3(bd.vel, w, r);
  int b = tb_addBody(m, &bd);
  tbJointDef jd = tb_defaultJointDef();
  jd.type = TB_JOINT_SPHERICAL;
  jd.body_a = b;
  jd.body_b = -1;
  jd.minimal = minimal;
  jd.limited = hi > 0.0;
  jd.hi = hi;
  EXPECT_GE(tb_addJoint(m, &jd), 0) << tb_lastError();
  if (hi > 0.0) {
    int p = tb_addParam(m, "cone", "rad", "cone angle", 0.0, TB_PI, 1);
    EXPECT_EQ(tb_paramTarget(m, p, TB_F_JOINT, 0, TB_JNT_HI), 0) << tb_lastError();
  }
  EXPECT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
  return m;
}

// an MJCF source (a path or the XML) that tb_loadMJCF refuses, needle in its error
inline void ExpectMjcfRefused(const std::string& src, const std::string& needle) {
  tbModel* m = tb_loadMJCF(src.c_str());
  EXPECT_EQ(m, nullptr) << src;
  tb_freeModel(m);
  std::string e = tb_lastError();
  EXPECT_NE(e.find(needle), std::string::npos) << "error: " << e << "\nexpected: " << needle;
}

#endif  // TUMBLE_TESTS_TEST_UTIL_H_

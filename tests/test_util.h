// Helpers for the physics tests: build a built-in scene, run it, read body state.
#ifndef TUMBLE_TESTS_TEST_UTIL_H_
#define TUMBLE_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <tumble/scenes.h>
#include <tumble/tumble.h>

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

#endif  // TUMBLE_TESTS_TEST_UTIL_H_

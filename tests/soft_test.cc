// Regularized contacts (tbOption soft, the per-scene option TB_OPT_SOFT): each contact row's
// mixing is soft times its own J M^-1 J^T, pulled toward the last step's impulse. Checks: the
// step's problem is the rigid one but for exactly that (maximal and minimal coordinates); a
// resting stack keeps the rigid stack's state (the pull is spent at rest); bad values are named.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tumble/mjcf.h>
#include <tumble/tumble.h>

#include "engine/engine.h"
#include "engine/stage_step.h"
#include "test_util.h"

namespace {

// the step's problem of scene 0 (A, b and the warm start x) set up from its state at soft
struct StepProblem {
  std::vector<double> A, b, x;
  std::vector<int> contact;  // 1 on a contact block's rows
};

StepProblem SetUp(Scene& sc, double soft) {
  sc.set("soft", soft);
  tbWork* w = tb_newWork(sc.m);
  tb_stepValues(sc.m, sc.d, 0, w);
  EXPECT_EQ(tb_stepSetUp(tb_solo(), sc.m, sc.d, 0, w, nullptr), TB_SETUP_SOLVE);
  int n = w->nrow;
  StepProblem p;
  p.A.assign(w->A, w->A + (size_t)n * n);
  p.b.assign(w->b, w->b + n);
  p.x.assign(w->x, w->x + n);
  p.contact.assign(n, 0);
  for (int k = 0; k < w->nblock; k++) {
    for (int r = 0; r < w->blk_dim[k]; r++) {
      p.contact[w->blk_adr[k] + r] = w->blk_type[k] == TB_BLOCK_CONTACT;
    }
  }
  tb_freeWork(w);
  return p;
}

// a step of `scene` after `steps` steps and then its first with contacts, set up rigid and at
// soft = 0.01: the contact rows' diagonal gains 0.01 of itself (their rigid mixing is zero) and
// their b moves by that times the warm start, bitwise; every other entry is the rigid one.
// Returns the contact rows counted
int ExpectRegularizedStep(const char* scene, int steps) {
  Scene sc(scene, 1);
  sc.reset();
  sc.run(steps);
  for (int k = 0; k < 100000 && sc.d->ncon[0] == 0; k++) sc.run(1);
  const double soft = 0.01;
  StepProblem rigid = SetUp(sc, 0.0), reg = SetUp(sc, soft);
  size_t n = rigid.b.size();
  EXPECT_EQ(reg.b.size(), n) << scene;
  if (reg.b.size() != n) return 0;
  EXPECT_EQ(reg.x, rigid.x) << scene << ": the same warm start";
  int contacts = 0, off = 0;
  for (size_t i = 0; i < n; i++) {
    double aii = rigid.A[i * n + i];
    for (size_t j = 0; j < n; j++) off += j != i && reg.A[i * n + j] != rigid.A[i * n + j];
    if (!rigid.contact[i]) {
      EXPECT_EQ(reg.A[i * n + i], aii) << scene << " row " << i;
      EXPECT_EQ(reg.b[i], rigid.b[i]) << scene << " row " << i;
      continue;
    }
    contacts++;
    EXPECT_GT(aii, 0.0) << scene << " row " << i;
    EXPECT_EQ(reg.A[i * n + i], aii + soft * aii) << scene << " row " << i;
    EXPECT_EQ(reg.b[i], rigid.b[i] - soft * aii * rigid.x[i]) << scene << " row " << i;
  }
  EXPECT_EQ(off, 0) << scene << ": off-diagonal entries that moved";
  return contacts;
}

TEST(SoftContactTest, ContactRowsMixTheirOwnDiagonal) {
  // a resting box stack (maximal coordinates): every row a contact's, warm-started
  EXPECT_GT(ExpectRegularizedStep("box-stack", 50), 0);
  // the 12-link chain on minimal hinges striking the floor (joint space: tb_treeAssemble)
  EXPECT_GT(ExpectRegularizedStep("chain-wall", 0), 0);
}

// at rest the step's answer is the last impulse, where the pull is zero: a box stack settled at
// soft = 0.01 is the rigid stack to round-off (seen 1.7e-16 m after 1000 steps), every step
// converged in both
TEST(SoftContactTest, RestingStackKeepsTheRigidState) {
  Scene sc("box-stack", 2);
  sc.set("soft", 0.0, 0);
  sc.set("soft", 0.01, 1);
  sc.reset();
  sc.run(1000);
  for (int s = 0; s < 2; s++) EXPECT_EQ(sc.d->status[s], 0) << "scene " << s;
  for (int b = 0; b < sc.m->nbody; b++) {
    for (int k = 0; k < 3; k++) EXPECT_NEAR(sc.pos(b, 1)[k], sc.pos(b, 0)[k], 1e-12) << b;
  }
}

TEST(SoftContactTest, BadValuesAreNamed) {
  Scene sc("box-stack", 1);
  for (double v : {-1e-3, (double)NAN}) {
    sc.set("soft", v);
    EXPECT_NE(tb_checkParams(sc.m, sc.d), TB_OK) << v;
    EXPECT_NE(std::string(tb_lastError()).find("soft"), std::string::npos) << tb_lastError();
  }
  // the quasistatic step has no such rows: no parameter, and the option refused by name
  tbBuild b = tb_defaultBuild(tb_findScene("qs-fence"));
  tbModel* qs = tb_buildScene(tb_findScene("qs-fence"), &b);
  ASSERT_NE(qs, nullptr) << tb_lastError();
  EXPECT_LT(tb_findParam(qs, "soft"), 0);
  tb_freeModel(qs);
  tbModel* m = tb_newModel();
  m->opt.quasistatic = 1;
  m->opt.soft = 0.1;
  EXPECT_NE(tb_compileModel(m), TB_OK);
  EXPECT_NE(std::string(tb_lastError()).find("option soft"), std::string::npos) << tb_lastError();
  tb_freeModel(m);
  // MJCF's custom numeric
  tbModel* f = tb_loadMJCF(
      "<mujoco><custom><numeric name='tumble_option_soft' data='-1'/></custom></mujoco>");
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(std::string(tb_lastError()).find("tumble_option_soft"), std::string::npos)
      << tb_lastError();
  if (f) tb_freeModel(f);
}

}  // namespace

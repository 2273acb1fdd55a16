// The GPU path's layout on the CPU (host/engine/stage_step.h, host/engine/stage_probe.h): every
// built-in scene rolled out with one scratch slot per scene, in chunks of scenes copied into
// batches of their own with the scene as the fast index, as the GPU path runs them, is bitwise the
// CPU path's slot-per-thread rollout, and so is a team of OpenMP threads stepping each scene
// together as a warp does for the large scenes. This checks on machines without a GPU everything of
// the GPU path but the kernel launch and the transfers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <omp.h>

#include <tumble/estimate.h>
#include <tumble/grasp.h>
#include <tumble/plate.h>
#include <tumble/reader.h>

#include "rollout/cpu_schedule.h"
#include "engine/engine.h"
#include "engine/stage_step.h"
#include "test_util.h"
#include "solver/residual.h"
#include "rollout/rollout.h"

namespace {

const int kScenes = 24, kSteps = 150, kChunk = 7;

// how a scene's scratch is laid out and who steps it: one thread in the scene's slot, one thread
// in a buffer of its own as the local-memory kernels carve it, or a team of threads sharing the
// slot as a warp does
enum Layout { kSlot, kCarved, kTeam };
const Layout kLayouts[] = {kSlot, kCarved, kTeam};
const char* const kLayoutName[] = {"slot", "carved", "team"};
const int kTeamSize = 2;
// scenes of a chunk a team steps (the others one thread): a barrier per row update is slow on a
// loaded machine, and two scenes take every branch a team has
const int kTeamScenes = 2;

// scene s of c by a team of kTeamSize OpenMP threads sharing one view of slot s
void teamRollout(const tbModel* m, tbData* c, int s, int nstep, tbRecord* rec, const tbProbe* probe,
                 const tbScratch* sc) {
  tbWork w;
  tb_workSlot(m, sc, s, &w);
  int size = 0;
#pragma omp parallel num_threads(kTeamSize)
  {
    tbTeam t = {omp_get_thread_num(), omp_get_num_threads()};
#pragma omp single
    size = t.size;
    tb_rolloutScene(t, m, c, s, nstep, rec, probe, &w);
  }
  ASSERT_EQ(size, kTeamSize) << "no OpenMP team to stand in for a warp";
}

// the GPU path's loop, on the CPU: chunks of scenes copied into a batch of their own with the
// scene the fast index, one scratch slot per scene (or as layout says), records and probe
// outputs chunk-relative, copied back
void deviceLayoutRollout(const tbModel* m, tbData* d, int nstep, tbRecord* rec,
                         const tbProbe* probe, Layout layout = kSlot) {
  for (int s0 = 0; s0 < d->nscene; s0 += kChunk) {
    int n = std::min(kChunk, d->nscene - s0);
    tbData* c = tb_newData(m, n);
    ASSERT_NE(c, nullptr);
    c->scene_fast = 1;  // the chunks' layout: every array's contents are overwritten below
    for (int i = 0; i < n; i++) tb_copyScene(m, d, s0 + i, c, i);
    tbScratch* sc = tb_newScratch(m, n);
    ASSERT_NE(sc, nullptr);
    std::vector<double> state, time;
    tbRecord crec = {};
    if (rec) {
      crec = *rec;
      state.resize((size_t)n * rec->nrecord * m->nbody * 13);
      time.resize((size_t)n * rec->nrecord);
      crec.state = state.data();
      crec.time = time.data();
    }
    size_t per = tb_probeSceneBytes(probe);
    std::vector<char> out(per * n + 1);
    tbProbe cp = {};
    if (probe) {
      cp = *probe;
      cp.scene0 = probe->scene0 + s0;
      std::memcpy(out.data(), tb_probeOut(probe) + per * s0, per * n);
      tb_setProbeOut(&cp, out.data());
    }
    for (int i = n - 1; i >= 0; i--) {  // any order: the scenes are independent
      tbRecord* r = rec ? &crec : nullptr;
      const tbProbe* pr = probe ? &cp : nullptr;
      if (layout == kTeam && i < kTeamScenes) {
        teamRollout(m, c, i, nstep, r, pr, sc);
        continue;
      }
      tbWork w;
      // a scene's own buffer, carved like a kernel's local scratch
      std::vector<double> local(layout == kCarved ? tb_workBytes(m, sc) / sizeof(double) + 1 : 0);
      if (layout == kCarved) {
        tb_workCarve(m, sc, reinterpret_cast<char*>(local.data()), &w);
      } else {
        tb_workSlot(m, sc, i, &w);
      }
      tb_rolloutScene(tb_solo(), m, c, i, nstep, r, pr, &w);
    }
    for (int i = 0; i < n; i++) tb_copyScene(m, c, i, d, s0 + i);
    if (rec) {
      size_t width = 13 * (size_t)m->nbody, at = (size_t)s0 * rec->nrecord;
      std::memcpy(rec->state + at * width, state.data(), sizeof(double) * state.size());
      std::memcpy(rec->time + at, time.data(), sizeof(double) * time.size());
    }
    if (probe) std::memcpy(tb_probeOut(probe) + per * s0, out.data(), per * n);
    tb_freeScratch(sc);
    tb_freeData(c);
  }
}

// a recording of every 10th step of n scenes of model m
struct Recording {
  tbRecord rec = {};
  std::vector<double> state, time;
  std::vector<int> step;
  Recording(const tbModel* m, int n, int nstep) {
    rec.every = 10;
    rec.nrecord = tb_recordCount(nstep, rec.every);
    state.resize((size_t)n * rec.nrecord * m->nbody * 13);
    time.resize((size_t)n * rec.nrecord);
    step.resize(rec.nrecord);
    rec.state = state.data();
    rec.time = time.data();
    rec.step = step.data();
  }
};

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && !std::memcmp(a.data(), b.data(), sizeof(double) * a.size());
}

class DeviceLayoutTest : public ::testing::TestWithParam<int> {};

TEST_P(DeviceLayoutTest, EveryModelIsBitwiseTheCpuLayout) {
  std::string name = studyName(GetParam());
  Scene a(studyModel(GetParam()), kScenes);
  jitterParams(a, 7);
  Recording ra(a.m, kScenes, kSteps);
  // the observed coordinates of every body, at a few steps, through the probe
  tbObsCoord coord[TB_MAXOBSCOORD];
  int ncol = tb_obsCoords(a.m, coord, TB_MAXOBSCOORD);
  std::vector<int> steps = {0, 1, 37, kSteps};
  std::vector<double> oa((size_t)kScenes * steps.size() * ncol);
  tbProbe probe = {};
  probe.kind = TB_PROBE_OBS;
  probe.nrow = (int)steps.size();
  probe.ncol = ncol;
  probe.step = steps.data();
  probe.coord = coord;
  probe.obs = oa.data();
  ASSERT_EQ(tb_rolloutProbe(a.m, a.d, 0, kScenes, kSteps, &ra.rec, &probe), TB_OK);
  for (Layout layout : kLayouts) {
    Scene b(studyModel(GetParam()), kScenes);
    jitterParams(b, 7);
    Recording rb(b.m, kScenes, kSteps);
    std::vector<double> ob(oa.size());
    probe.obs = ob.data();
    deviceLayoutRollout(b.m, b.d, kSteps, &rb.rec, &probe, layout);
    const char* how = kLayoutName[layout];
    EXPECT_EQ(firstDifference(a.d, b.d), "") << name << " " << how;
    EXPECT_TRUE(sameBits(ra.state, rb.state)) << name << " " << how;
    EXPECT_TRUE(sameBits(ra.time, rb.time)) << name << " " << how;
    EXPECT_TRUE(sameBits(oa, ob)) << name << " " << how;
  }
  int moved = 0;  // the check must see scenes that did something
  for (int s = 0; s < kScenes; s++) moved += a.d->iter_sum[s] > 0;
  EXPECT_GT(moved, 0) << name;
}

INSTANTIATE_TEST_SUITE_P(Models, DeviceLayoutTest, ::testing::Range(0, studyCount()),
                         [](const ::testing::TestParamInfo<int>& i) { return studyName(i.param); });

// the CPU rollout's scratch (tb_newThreadScratch): each thread's arrays inside pages of its own,
// where the hardware prefetchers, which fetch ahead within a 4 KB page, never reach another
// thread's lines (the rollouts above check that the layout steps bitwise as the kernels' does)
TEST(ThreadScratchTest, EachThreadsArraysLieInPagesOfItsOwn) {
  for (int i = 0; i < studyCount(); i++) {
    tbModel* m = studyModel(i);
    ASSERT_NE(m, nullptr);
    const int nthread = 3;
    tbScratch* sc = tb_newThreadScratch(m, nthread);
    ASSERT_NE(sc, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(sc->block) % TB_PAGE_BYTES, 0u) << studyName(i);
    EXPECT_EQ(sc->block_bytes % TB_PAGE_BYTES, 0u) << studyName(i);
    for (int k = 0; k < nthread; k++) {
      tbWork w;
      tb_workSlot(m, sc, k, &w);
      const char* lo = sc->block + k * sc->block_bytes;
      const char* hi = lo + sc->block_bytes;
#define TB_X(type, name, count)                                                      \
  EXPECT_GE(reinterpret_cast<const char*>(w.name), lo) << studyName(i) << " " #name; \
  EXPECT_LE(reinterpret_cast<const char*>(w.name + (count)), hi) << studyName(i) << " " #name;
      TB_WORK_ARRAYS(TB_X)
#undef TB_X
    }
    tb_freeScratch(sc);
    tb_freeModel(m);
  }
}

// the CPU rollouts' chunks of scenes (host/rollout/cpu_schedule.h): at most 8, and a rollout of at
// least as many scenes as threads has at least a chunk for every thread (with 8 always, a rollout
// of 6 scenes went whole to one of two threads)
TEST(SceneChunkTest, EveryThreadGetsAShareOfASmallRollout) {
  for (int nthread = 1; nthread <= 16; nthread++) {
    for (int nscene = 1; nscene <= 2000; nscene++) {
      int c = tb_sceneChunk(nscene, nthread);
      ASSERT_GE(c, 1) << nscene << " scenes, " << nthread << " threads";
      ASSERT_LE(c, 8) << nscene << " scenes, " << nthread << " threads";
      if (nscene >= nthread) {
        ASSERT_GE((nscene + c - 1) / c, nthread) << nscene << " scenes, " << nthread << " threads";
      }
      if (nscene >= 32 * nthread) {
        ASSERT_EQ(c, 8) << nscene << " scenes, " << nthread << " threads";
      }
    }
  }
}

// compliant rows (Drumwright's K and B: cfm on the Delassus diagonal, the bias scaled) in every
// layout: a compliant box stack's contacts and a compliant pendulum's joints
TEST(ComplianceLayoutTest, CompliantRowsAreBitwiseTheCpuLayout) {
  struct Case {
    const char* scene;
    const char *k, *b;
  };
  for (const Case& c : {Case{"box-stack", "stiffness", "damping"},
                        Case{"pendulum", "joint_stiffness", "joint_damping"}}) {
    auto compliant = [&](Scene& sc) {
      jitterParams(sc, 23);
      for (int s = 0; s < 6; s++) {
        sc.set(c.k, 1e5 * (1 + s), s);
        sc.set(c.b, 1e2 * (1 + s), s);
      }
      sc.reset();
    };
    Scene a(c.scene, 6);
    compliant(a);
    ASSERT_EQ(tb_rollout(a.m, a.d, 0, 6, 40, nullptr), TB_OK) << tb_lastError();
    for (Layout layout : kLayouts) {
      Scene b(c.scene, 6);
      compliant(b);
      deviceLayoutRollout(b.m, b.d, 40, nullptr, nullptr, layout);
      EXPECT_EQ(firstDifference(a.d, b.d), "") << c.scene << " " << kLayoutName[layout];
    }
  }
}

// the minimal-coordinate step (stage_tree.h) in every device layout: the scene's coordinates
// (jnt_q, jnt_qd) travel with it, the tree's scratch is slot-strided like the rest
TEST(TreeLayoutTest, MinimalChainIsBitwiseTheCpuLayout) {
  auto chain = [](Scene& sc, int ball) {
    jitterParams(sc, 29);
    if (ball) sc.set("spin", 1.5);
    sc.reset();
  };
  for (int ball = 0; ball < 2; ball++) {  // ball: quaternion coordinates, nq != nqd
    Scene a("pendulum", 6, {{"minimal", 1}, {"links", 4}, {"angle0", 1.2}, {"ball", ball}});
    chain(a, ball);
    ASSERT_EQ(tb_rollout(a.m, a.d, 0, 6, 400, nullptr), TB_OK) << tb_lastError();
    for (Layout layout : kLayouts) {
      Scene b("pendulum", 6, {{"minimal", 1}, {"links", 4}, {"angle0", 1.2}, {"ball", ball}});
      chain(b, ball);
      deviceLayoutRollout(b.m, b.d, 400, nullptr, nullptr, layout);
      EXPECT_EQ(firstDifference(a.d, b.d), "") << kLayoutName[layout] << " ball " << ball;
    }
  }
}

TEST(TreeLayoutTest, ConeLimitedBallIsBitwiseTheCpuLayout) {
  // the ball joint's cone row (minimal: mapped to joint space) in every device layout, each
  // scene its own cone, the rod pressing on it in 3D for most of the run
  for (int minimal = 0; minimal < 2; minimal++) {
    auto cones = [](Scene& sc) {
      for (int s = 0; s < 6; s++) sc.set("cone", 0.3 + 0.05 * s, s);
      sc.reset();
    };
    Scene a(coneRodModel(minimal, 0.5, 2.0, 1e-3), 6);
    cones(a);
    ASSERT_EQ(tb_rollout(a.m, a.d, 0, 6, 800, nullptr), TB_OK) << tb_lastError();
    for (Layout layout : kLayouts) {
      Scene b(coneRodModel(minimal, 0.5, 2.0, 1e-3), 6);
      cones(b);
      deviceLayoutRollout(b.m, b.d, 800, nullptr, nullptr, layout);
      EXPECT_EQ(firstDifference(a.d, b.d), "") << kLayoutName[layout] << " minimal " << minimal;
    }
    const double* q = a.quat(a.body("rod"), 5);  // the widest cone's rod at the end, still in it
    EXPECT_LT(2.0 * atan2(tbu_norm3(q + 1), fabs(q[0])), 0.55 + 2e-3);
  }
}

TEST(QuasistaticLayoutTest, PushAndFenceAreBitwiseTheCpuLayout) {
  // the quasistatic step's proximal rounds (stage_quasi.h) by a team and in every device layout,
  // each scene its own push or friction, under both cones
  struct Case {
    const char* scene;
    const char* param;
    double base, step;
    int nstep;
  };
  const Case cases[] = {{"qs-push", "offset", -0.03, 0.01, 500}, {"qs-fence", "mu", 0.0, 0.2, 300}};
  for (const Case& c : cases) {
    for (int cone = 0; cone < 2; cone++) {
      auto vary = [&](Scene& sc) {
        for (int s = 0; s < 6; s++) sc.set(c.param, c.base + c.step * s, s);
        sc.reset();
      };
      Scene a(c.scene, 6, {}, cone);
      vary(a);
      ASSERT_EQ(tb_rollout(a.m, a.d, 0, 6, c.nstep, nullptr), TB_OK) << tb_lastError();
      for (int s = 0; s < 6; s++) {  // (the pyramid's center push has one step above 1e-11)
        EXPECT_EQ(a.d->status[s] & TB_SCENE_FAILMASK, 0) << c.scene << " " << s;
      }
      for (Layout layout : kLayouts) {
        Scene b(c.scene, 6, {}, cone);
        vary(b);
        deviceLayoutRollout(b.m, b.d, c.nstep, nullptr, nullptr, layout);
        EXPECT_EQ(firstDifference(a.d, b.d), "") << kLayoutName[layout] << " " << c.scene;
      }
    }
  }
}

// every step solver by a team (PGS, prox and auto shared among its members, the others on its
// lead) and in one of the other layouts in turn (the solvers' scratch is slot-strided like the
// rest)
TEST(SolverLayoutTest, EverySolverIsBitwiseTheCpuLayout) {
  for (int solver = 0; solver < TB_NSOLVER; solver++) {
    int cone = solverCone(solver);
    Scene a("box-stack", 6, {}, cone, 4);
    a.m->opt.solver = solver;
    jitterParams(a, 19);
    ASSERT_EQ(tb_rollout(a.m, a.d, 0, 6, 30, nullptr), TB_OK) << tb_lastError();
    for (Layout layout : {kTeam, kLayouts[solver % 2]}) {
      Scene b("box-stack", 6, {}, cone, 4);
      b.m->opt.solver = solver;
      jitterParams(b, 19);
      deviceLayoutRollout(b.m, b.d, 30, nullptr, nullptr, layout);
      EXPECT_EQ(firstDifference(a.d, b.d), "")
          << tb_solverName(solver) << " " << kLayoutName[layout];
    }
    for (int s = 0; s < 6; s++) {
      EXPECT_FALSE(a.d->status[s] & TB_SCENE_FAILMASK) << tb_solverName(solver) << " scene " << s;
    }
  }
}

// auto by a team on a jammed grasp trial (the one of GraspTest's solver comparison), whose
// steps go through PGS rounds, Newton on the lead, and in some steps the later stages: the
// team's trajectory and statistics are bitwise one thread's
TEST(SolverLayoutTest, AutoByATeamIsBitwiseOnAJammedGrasp) {
  tbGraspDef g = tb_defaultGraspDef();
  g.solver = TB_SOLVER_AUTO;
  g.max_iter = 200;
  const double offset[2] = {-0.001, -0.020};
  Scene a(tb_buildGraspModel(&g), 1), b(tb_buildGraspModel(&g), 1);
  for (Scene* sc : {&a, &b}) {
    tb_graspDraw(sc->m, &g, 1, 9, 9, offset, sc->d->param);
    ASSERT_EQ(tb_resetData(sc->m, sc->d), TB_OK) << tb_lastError();
  }
  int nstep = tb_graspSteps(&g);
  ASSERT_EQ(tb_rollout(a.m, a.d, 0, 1, nstep, nullptr), TB_OK) << tb_lastError();
  deviceLayoutRollout(b.m, b.d, nstep, nullptr, nullptr, kTeam);
  EXPECT_EQ(firstDifference(a.d, b.d), "");
  EXPECT_GT(a.d->iter_max[0], 100) << "a step that needed more than the first stages";
}

// two grasp trials that come to rest (tbOption rest_speed), recorded to their end: in the device
// layouts and by a team (whose members read the rest from the status the lead writes) they are
// bitwise one thread's, and every record after the rest holds the rested state as the clock runs
TEST(RestLayoutTest, RestedTrialsAreBitwiseInEveryLayout) {
  tbGraspDef g = tb_defaultGraspDef();
  const int n = 2, nstep = tb_graspSteps(&g);
  const double offset[n][2] = {{0.0, -0.012}, {-0.004, -0.002}};
  Scene a(tb_buildGraspModel(&g), n);
  for (int i = 0; i < n; i++)
    tb_graspDraw(a.m, &g, 1, i, 0, offset[i], a.d->param + i * a.m->nparam);
  ASSERT_EQ(tb_resetData(a.m, a.d), TB_OK) << tb_lastError();
  Recording ra(a.m, n, nstep);
  ASSERT_EQ(tb_rollout(a.m, a.d, 0, n, nstep, &ra.rec), TB_OK) << tb_lastError();
  size_t width = 13 * (size_t)a.m->nbody;
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(a.d->status[i], TB_SCENE_RESTED) << i;
    int rested = (int)(a.d->nstep[i] / ra.rec.every) + 1;  // the first record after the rest
    ASSERT_LT(rested, ra.rec.nrecord - 1) << i;
    const double* last = &ra.state[((size_t)i * ra.rec.nrecord + ra.rec.nrecord - 1) * width];
    for (int r = rested; r < ra.rec.nrecord; r++) {
      size_t at = (size_t)i * ra.rec.nrecord + r;
      EXPECT_EQ(std::memcmp(&ra.state[at * width], last, sizeof(double) * width), 0) << r;
      EXPECT_GT(ra.time[at], ra.time[at - 1]) << r;
    }
  }
  for (Layout layout : kLayouts) {
    Scene b(tb_buildGraspModel(&g), n);
    std::memcpy(b.d->param, a.d->param, sizeof(double) * n * a.m->nparam);
    ASSERT_EQ(tb_resetData(b.m, b.d), TB_OK) << tb_lastError();
    Recording rb(b.m, n, nstep);
    deviceLayoutRollout(b.m, b.d, nstep, &rb.rec, nullptr, layout);
    const char* how = kLayoutName[layout];
    EXPECT_EQ(firstDifference(a.d, b.d), "") << how;
    EXPECT_TRUE(sameBits(ra.state, rb.state)) << how;
    EXPECT_TRUE(sameBits(ra.time, rb.time)) << how;
  }
}

// the plate probes (field statistics, the ch. 6 objective's terms) in the device layouts
TEST(PlateProbeLayoutTest, BitwiseTheCpuLayout) {
  const int n = 20, nstep = 400;
  for (int kind : {TB_PROBE_FIELD, TB_PROBE_COST}) {
    Scene a("plate-particle", n), b("plate-particle", n);
    jitterParams(a, 11);
    jitterParams(b, 11);
    int plate = a.body("plate"), part = a.body("particle");
    for (int s = 0; s < n; s++) {
      tb_placeOnPlate(a.m, a.d, s, plate, part, 0.0);
      tb_placeOnPlate(b.m, b.d, s, plate, part, 0.0);
    }
    std::vector<tbFieldPoint> fa(n), fb(n);
    std::vector<double> ca(n), cb(n), want(2 * 4 * 5, 0.01);
    tbProbe p = {};
    p.kind = kind;
    p.plate = plate;
    p.part = part;
    p.geom = 1;
    p.k0 = 100;
    p.k1 = 360;
    p.span = (p.k1 - p.k0) * 1e-3;
    p.nstart = 4;
    p.nwin = 5;
    p.S = nstep / p.nwin;
    p.W = p.S / 2;
    p.win = p.W * 1e-3;
    p.want = want.data();
    p.target = TB_PLATE_TARGET_CIRCLE;
    p.field = fa.data();
    p.cost = ca.data();
    ASSERT_EQ(tb_rolloutProbe(a.m, a.d, 0, n, nstep, nullptr, &p), TB_OK);
    p.field = fb.data();
    p.cost = cb.data();
    deviceLayoutRollout(b.m, b.d, nstep, nullptr, &p, kind == TB_PROBE_COST ? kCarved : kTeam);
    EXPECT_EQ(firstDifference(a.d, b.d), "");
    EXPECT_EQ(std::memcmp(fa.data(), fb.data(), sizeof(tbFieldPoint) * n), 0);
    EXPECT_TRUE(sameBits(ca, cb));
    if (kind == TB_PROBE_COST) {
      for (int s = 0; s < n; s++) EXPECT_TRUE(std::isfinite(ca[s]) && ca[s] > 0.0) << s;
    } else {
      for (int s = 0; s < n; s++) EXPECT_TRUE(std::isfinite(fa[s].mean_x)) << s;
    }
  }
}

// a step of joints alone (the 3-link pendulum) is one Cholesky solve to round-off, and its
// trajectory is that of an iterative solver run to a tight tolerance
TEST(EqualityStepTest, JointStepsAreOneDirectSolve) {
  const int n = 4, nstep = 300;
  Scene direct("pendulum", n), iter("pendulum", n);
  jitterParams(direct, 3);
  jitterParams(iter, 3);
  iter.m->opt.solver = TB_SOLVER_PROX_GS;
  iter.m->opt.tol = 1e-13;
  iter.m->opt.max_iter = 100000;
  ASSERT_EQ(tb_rollout(direct.m, direct.d, 0, n, nstep, nullptr), TB_OK) << tb_lastError();
  ASSERT_EQ(tb_rollout(iter.m, iter.d, 0, n, nstep, nullptr), TB_OK) << tb_lastError();
  for (int s = 0; s < n; s++) {
    EXPECT_EQ(direct.d->status[s], 0) << s;
    EXPECT_EQ(direct.d->iter_max[s], 1) << s;
    EXPECT_LT(direct.d->resid_max[s], 1e-13) << s;
    EXPECT_GT(iter.d->iter_max[s], 1) << s;
  }
  for (int i = 0; i < n * direct.m->nbody * 6; i++) {
    EXPECT_NEAR(direct.d->body_vel[i], iter.d->body_vel[i], 1e-9) << i;
  }
}

// a kept step assembles no A (tb_warmKept), so an exported step's matrix is made for the file
// from its rows: every exported box-stack step's W is bitwise tb_delassusRows of that step's
// rows, kept steps among them
TEST(WarmKeptTest, ExportWritesTheKeptStepsMatrix) {
  Scene exported("box-stack", 1), stepped("box-stack", 1);
  exported.reset();
  stepped.reset();
  std::string stem = ::testing::TempDir() + "tumble-kept-stack";
  const int nstep = 300, every = 30;
  int written = 0;
  ASSERT_EQ(tb_exportProblems(exported.m, exported.d, nstep, every, stem.c_str(), &written), TB_OK)
      << tb_lastError();
  ASSERT_EQ(written, nstep / every);
  tbWork* w = tb_newWork(stepped.m);
  int kept = 0;
  for (int k = 1; k <= nstep; k++) {
    int judged = stepped.d->iter_last[0] == 0;
    tb_stepScene(stepped.m, stepped.d, 0, w);
    if (k % every) continue;
    kept += judged && stepped.d->iter_last[0] == 0;
    tbFileProblem fp;
    std::string path = stem + "-s0-k" + std::to_string(k) + ".dat";
    ASSERT_EQ(tb_readProblem(path.c_str(), &fp), TB_OK) << tb_lastError();
    int n = w->nrow;
    ASSERT_EQ(fp.n, n) << k;
    std::vector<double> A((size_t)n * n);
    tb_delassusRows(tb_solo(), w, A.data());
    for (size_t e = 0; e < A.size(); e++) ASSERT_EQ(fp.W[e], A[e]) << k << " " << e;
    tb_freeFileProblem(&fp);
  }
  EXPECT_GT(kept, 0);
  tb_freeWork(w);
}

// a 12-link chain's joint step factors only A's envelope: a joint's rows meet no row before the
// previous joint's (A is block tridiagonal), and the answer is the dense factorization's to
// round-off
TEST(EqualityStepTest, ChainStepsFactorTheEnvelope) {
  Scene sc("pendulum", 1, {{"links", 12.0}});
  sc.reset();
  tbWork* w = tb_newWork(sc.m);
  for (int k = 0; k < 50; k++) tb_stepScene(sc.m, sc.d, 0, w);
  tbProblem p = tb_problemOf(sc.m, w);
  int n = p.n;
  ASSERT_EQ(n, 60);
  ASSERT_TRUE(tb_equalitiesOnly(&p, sc.m->maxeq));
  std::vector<double> L((size_t)n * n), dense(p.A, p.A + (size_t)n * n), x(n), xd(n), work(n);
  std::vector<int> first(n);
  tbSolverOpt opt = tb_stepSolverOpt(sc.m);
  tbSolveResult res;
  ASSERT_EQ(
      tb_solveEqualities(tb_solo(), &p, &opt, x.data(), L.data(), first.data(), work.data(), &res),
      1);
  long envelope = 0;
  for (int i = 0; i < n; i++) {
    EXPECT_GE(first[i], 5 * (i / 5 - 1)) << i;
    envelope += i + 1 - first[i];
  }
  EXPECT_LT(envelope, (long)n * (n + 1) / 2 / 4);
  ASSERT_EQ(tbu_cholesky(n, dense.data()), 0);
  for (int i = 0; i < n; i++) xd[i] = -p.b[i];
  tbu_cholSolve(n, dense.data(), xd.data());
  double scale = 0.0;
  for (double v : xd) scale = std::fmax(scale, std::fabs(v));
  ASSERT_GT(scale, 0.0);
  for (int i = 0; i < n; i++) EXPECT_NEAR(x[i], xd[i], 1e-12 * scale) << i;
  tb_freeWork(w);
}

// the direct solve leaves x alone where A is not positive definite (redundant rows)
TEST(EqualityStepTest, SingularSystemsGoToTheIterativeSolver) {
  double A[4] = {1.0, 1.0, 1.0, 1.0}, b[2] = {-1.0, -1.0}, lo[2] = {-INFINITY, -INFINITY};
  double hi[2] = {INFINITY, INFINITY}, mu[2] = {0, 0}, ang[2] = {0, 0}, L[4], work[2];
  int first[2];
  int type[2] = {TB_BLOCK_BOX, TB_BLOCK_BOX}, adr[2] = {0, 1}, dim[2] = {1, 1};
  tbProblem p = {2, 2, A, b, lo, hi, type, adr, dim, mu, ang, 0, 4, 0, nullptr};
  tbSolverOpt opt = tb_defaultSolverOpt();
  tbSolveResult res = {};
  ASSERT_TRUE(tb_equalitiesOnly(&p, 2));
  EXPECT_FALSE(tb_equalitiesOnly(&p, 1));  // more rows than the capacity
  double x[2] = {0.25, 0.5};
  EXPECT_EQ(tb_solveEqualities(tb_solo(), &p, &opt, x, L, first, work, &res), 0);
  EXPECT_EQ(x[0], 0.25);
  EXPECT_EQ(x[1], 0.5);
  A[3] = 2.0;  // now positive definite: x = A^-1 (1, 1) = (1, 0)
  ASSERT_EQ(tb_solveEqualities(tb_solo(), &p, &opt, x, L, first, work, &res), 1);
  EXPECT_NEAR(x[0], 1.0, 1e-15);
  EXPECT_NEAR(x[1], 0.0, 1e-15);
  EXPECT_EQ(res.iterations, 1);
  lo[1] = 0.0;  // a one-sided row: not a linear system
  EXPECT_FALSE(tb_equalitiesOnly(&p, 2));
}

// a step's warm start judged before A is assembled (tb_warmKept) is what auto keeps on the
// assembled step: over box-stack's 1000 steps, where the judgement keeps the start, auto on the
// step's A from the same start keeps it too (no iterations, x as it was, the residual to
// round-off); where it does not, A is assembled, the start's u without A is A x + b to round-off,
// and auto keeps the start only where the last step iterated (no judgement then); and the
// judgement keeps the start on most of the resting stack's steps
TEST(WarmKeptTest, KeptStartsAreAutosOnTheAssembledStep) {
  Scene sc("box-stack", 1);
  sc.reset();
  const tbModel* m = sc.m;
  ASSERT_EQ(m->opt.solver, TB_SOLVER_AUTO);
  tbWork* w = tb_newWork(m);
  tbSolverWork* sw = tb_newSolverWork(TB_SOLVER_AUTO, m->maxrow, m->maxrow, m->opt.facets);
  tbSolverOpt so = tb_stepSolverOpt(m);
  const int nstep = 1000;
  int kept = 0;
  for (int k = 0; k < nstep; k++) {
    tb_stepValues(m, sc.d, 0, w);
    tbSolveResult res;
    bool judged = sc.d->iter_last[0] == 0;  // after a step that iterated the start is not judged
    tbtStepSetUp up = tb_stepSetUp(tb_solo(), m, sc.d, 0, w, &res);
    ASSERT_NE(up, TB_SETUP_FAILED) << k;
    int n = w->nrow;
    std::vector<double> x(w->x, w->x + n), u(n), dv(6 * m->nbody);
    tbProblem rows = tb_problemOf(m, w);  // b and the blocks: what the judgement reads
    tb_impulseVelocitiesOf(m, w, dv.data());
    tb_residualOfDv(w, &rows, dv.data(), u.data());
    if (up == TB_SETUP_KEPT)
      tb_assembleMatrix(tb_solo(), m, w);  // A for auto, which the step did without
    tbProblem p = tb_problemOf(m, w);
    std::vector<double> Ax(n);
    for (int i = 0; i < n; i++) {
      Ax[i] = p.b[i];
      for (int j = 0; j < n; j++) Ax[i] += p.A[(size_t)i * n + j] * x[j];
      ASSERT_NEAR(u[i], Ax[i], 1e-12 * (1.0 + std::fabs(Ax[i]))) << k << " " << i;
    }
    tbSolveResult ra;
    ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &p, &so, x.data(), sw, &ra), TB_OK);
    int rc = 0;
    if (up == TB_SETUP_KEPT) {
      kept++;
      EXPECT_TRUE(res.converged) << k;
      EXPECT_EQ(res.iterations, 0) << k;
      EXPECT_EQ(ra.iterations, 0) << k;
      EXPECT_TRUE(ra.converged) << k;
      EXPECT_NEAR(ra.residual, res.residual, 1e-2 * TB_AUTO_WARM_EXACT * so.tol) << k;
      for (int i = 0; i < n; i++) ASSERT_EQ(x[i], w->x[i]) << k << " " << i;
    } else {
      bool passes = tb_startKept(&so, tb_residualFromVelocity(&p, w->x, Ax.data()));
      EXPECT_FALSE(judged && passes) << k;
      rc = tb_solveWithCorners(tb_solo(), m, sc.d, 0, w, &res);
      EXPECT_EQ(res.iterations == 0, passes) << k;
    }
    tb_stepEnd(m, sc.d, 0, w, rc, &res);
  }
  EXPECT_EQ(sc.d->status[0], 0);
  EXPECT_GT(kept, 3 * nstep / 4) << kept;
  tb_freeSolverWork(sw);
  tb_freeWork(w);
}

}  // namespace

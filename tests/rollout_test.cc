// The GPU path (kernels/rollout.cu) against the CPU path: whole rollouts of every built-in scene
// and of the studies' models on randomized batches, chunked against unchunked, a repeated run,
// and the probes. They build everywhere and skip without a CUDA device; what needs no device
// (the refusal of --device gpu) runs everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <tumble/plate.h>

#include "gpu/gpu.h"
#include "test_util.h"
#include "rollout/rollout.h"

namespace {

const int kScenes = 1000, kSteps = 100;

#define SKIP_WITHOUT_GPU() \
  if (tb_gpuDeviceCount() == 0) GTEST_SKIP() << "no CUDA device: GPU parity test skipped"

// run on the given device and precision: the batch's own settings, no process-wide one touched
int rolloutOn(int device, Scene& sc, int nstep, int precision = TB_FP64) {
  sc.d->run.device = device;
  sc.d->run.precision = precision;
  return tb_rollout(sc.m, sc.d, 0, sc.d->nscene, nstep, nullptr);
}

// per scene, the largest |b - a| / (1 + |a|) over the bodies' positions, orientations and
// velocities (NaN counts as infinite); *where names the field of the batch's largest
std::vector<double> sceneDiffs(const Scene& a, const Scene& b, std::string* where) {
  std::vector<double> diff(a.d->nscene, 0.0);
  double worst = -1.0;
  auto check = [&](const double* x, const double* y, int per, const char* field) {
    for (int s = 0; s < a.d->nscene; s++) {
      for (int k = 0; k < per; k++) {
        double u = x[(size_t)s * per + k], v = y[(size_t)s * per + k];
        double r = std::fabs(u - v) / (1.0 + std::fabs(u));
        if (!(r <= diff[s])) diff[s] = std::isnan(r) ? INFINITY : r;
        if (diff[s] > worst) {
          worst = diff[s];
          *where = "scene " + std::to_string(s) + " " + field + " cpu " +
                   testing::PrintToString(u) + " gpu " + testing::PrintToString(v);
        }
      }
    }
  };
  int nb = a.m->nbody;
  check(a.d->body_pos, b.d->body_pos, 3 * nb, "body_pos");
  check(a.d->body_quat, b.d->body_quat, 4 * nb, "body_quat");
  check(a.d->body_vel, b.d->body_vel, 6 * nb, "body_vel");
  return diff;
}

double largest(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// the failure bits and step counts agree scene by scene
void expectSameOutcome(const Scene& cpu, const Scene& gpu, const std::string& name) {
  for (int s = 0; s < cpu.d->nscene; s++) {
    EXPECT_EQ(cpu.d->status[s] & TB_SCENE_FAILMASK, gpu.d->status[s] & TB_SCENE_FAILMASK)
        << name << " scene " << s;
    EXPECT_EQ(cpu.d->nstep[s], gpu.d->nstep[s]) << name << " scene " << s;
  }
}

// |gpu - cpu| <= tol (1 + |cpu|) over the state of every scene; prints the worst
void expectClose(const Scene& cpu, const Scene& gpu, double tol, const std::string& name) {
  std::string where;
  double worst = largest(sceneDiffs(cpu, gpu, &where));
  EXPECT_LE(worst, tol) << name << ": " << where;
  expectSameOutcome(cpu, gpu, name);
}

class GpuRolloutTest : public ::testing::TestWithParam<int> {};

// Both sides run the same stage source in fp64 with FMA contraction off (-ffp-contract=off,
// --fmad=false), so products, sums, quotients and square roots round alike; sin, cos, atan2,
// hypot, acos, pow and log come from glibc on one side and CUDA's math library (within 2 ulp) on
// the other. Those ulps enter the state at 1e-16 relative and are carried by the step: PGS stops
// at a relative residual of 1e-8, and a perturbed warm start can change its sweep count, moving
// the impulses by up to that tolerance; over 100 steps of h = 1e-3 that bounds the difference
// near 1e-8 relative, and the test allows 1e-7. Where an ulp flips a decision instead (the
// pyramid facet chosen by floor(atan2 / step), auto's PGS-or-Newton switch from pow and log, a
// hypot against a tolerance in the 2D contacts), a scene can take another branch and differ by
// more: such a failure on a GPU is a finding to trace to its branch, not a tolerance to widen
// (shared TB_HD implementations of those functions would make both sides bitwise equal).
TEST_P(GpuRolloutTest, MatchesTheCpuPath) {
  SKIP_WITHOUT_GPU();
  std::string name = studyName(GetParam());
  Scene cpu(studyModel(GetParam()), kScenes), gpu(studyModel(GetParam()), kScenes);
  jitterParams(cpu, 3);
  jitterParams(gpu, 3);
  ASSERT_EQ(rolloutOn(TB_DEVICE_CPU, cpu, kSteps), TB_OK) << tb_lastError();
  ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, gpu, kSteps), TB_OK) << tb_lastError();
  expectClose(cpu, gpu, 1e-7, name);
}

// scenes are independent: any chunking of the batch, and any repetition, gives the same bits
TEST_P(GpuRolloutTest, ChunkedAndRepeatedRunsAreBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  std::string name = studyName(GetParam());
  Scene once(studyModel(GetParam()), kScenes), again(studyModel(GetParam()), kScenes),
      chunked(studyModel(GetParam()), kScenes);
  for (Scene* sc : {&once, &again, &chunked}) jitterParams(*sc, 5);
  ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, once, kSteps), TB_OK) << tb_lastError();
  ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, again, kSteps), TB_OK) << tb_lastError();
  tb_gpuSetChunk(97);
  int rc = rolloutOn(TB_DEVICE_GPU, chunked, kSteps);
  tb_gpuSetChunk(0);
  ASSERT_EQ(rc, TB_OK) << tb_lastError();
  EXPECT_EQ(firstDifference(once.d, again.d), "") << name;
  EXPECT_EQ(firstDifference(once.d, chunked.d), "") << name;
}

// every body position of the batch moved by rel relative: the CPU's own spread under it stands
// for what the other device's ulps do
void perturbPositions(Scene& sc, double rel) {
  for (size_t i = 0; i < (size_t)sc.d->nscene * sc.m->nbody * 3; i++) sc.d->body_pos[i] *= 1 + rel;
}

// Unconverged and branching steps carry an ulp far, so the GPU's batch may differ from the
// CPU's by at most 10 times the CPU's own spread (cpu against moved, its input perturbed), in the
// batch's worst scene and in its median scene (a wrong kernel moves most scenes, chaos a few),
// and never by less than floor; the outcomes agree scene by scene
void expectWithinTheSpread(const Scene& cpu, const Scene& moved, const Scene& gpu, double floor,
                           const std::string& name) {
  std::string where, unused;
  std::vector<double> spread = sceneDiffs(cpu, moved, &unused), diff = sceneDiffs(cpu, gpu, &where);
  EXPECT_LE(largest(diff), std::max(floor, 10.0 * largest(spread))) << name << ": " << where;
  EXPECT_LE(median(diff), std::max(floor, 10.0 * median(spread))) << name;
  expectSameOutcome(cpu, gpu, name);
}

// fp32 (TB_FP32, the generated twin of the stages): the GPU's fp32 rollout against the CPU's.
// Float's ulps (6e-8 relative, from the two math libraries' sinf, atan2f, ...) are carried by the
// steps and by solves that stop at a relative residual of 1e-4 (TB_FP32_MIN_TOL): the floor is
// the bound fp32 keeps from fp64 on the CPU (precision_test.cc: 1e-4, seen 5e-6). Where a scene
// slips or strikes, an ulp can move a stick-slip switch or a strike's unconverged solve by more
// (first seen on an H200: plate-block 5.6e-4, chain-wall 1.8e-3 in one scene of 1000), so the
// bound is also ten times the CPU's own fp32 spread under one float ulp of the positions.
// Chunked and repeated fp32 runs are bitwise the same. The implicit step's models are refused in
// fp32 by name, on the GPU as on the CPU (its rows are positions over h).
TEST_P(GpuRolloutTest, Fp32MatchesTheCpuFp32AndRepeatsBitwise) {
  SKIP_WITHOUT_GPU();
  std::string name = studyName(GetParam());
  Scene cpu(studyModel(GetParam()), kScenes), moved(studyModel(GetParam()), kScenes),
      gpu(studyModel(GetParam()), kScenes), chunked(studyModel(GetParam()), kScenes);
  if (gpu.m->opt.implicit) {
    int rc = rolloutOn(TB_DEVICE_GPU, gpu, 1, TB_FP32);
    EXPECT_NE(rc, TB_OK) << name;
    EXPECT_NE(std::string(tb_lastError()).find("option implicit"), std::string::npos) << name;
    return;
  }
  for (Scene* sc : {&cpu, &moved, &gpu, &chunked}) jitterParams(*sc, 7);
  perturbPositions(moved, std::ldexp(1.0, -23));
  int rc[4] = {rolloutOn(TB_DEVICE_CPU, cpu, kSteps, TB_FP32),
               rolloutOn(TB_DEVICE_CPU, moved, kSteps, TB_FP32),
               rolloutOn(TB_DEVICE_GPU, gpu, kSteps, TB_FP32), 0};
  tb_gpuSetChunk(97);
  rc[3] = rolloutOn(TB_DEVICE_GPU, chunked, kSteps, TB_FP32);
  tb_gpuSetChunk(0);
  for (int k = 0; k < 4; k++) ASSERT_EQ(rc[k], TB_OK) << tb_lastError();
  expectWithinTheSpread(cpu, moved, gpu, 1e-4, name + " fp32");
  EXPECT_EQ(firstDifference(gpu.d, chunked.d), "") << name;
}

INSTANTIATE_TEST_SUITE_P(Models, GpuRolloutTest, ::testing::Range(0, studyCount()),
                         [](const ::testing::TestParamInfo<int>& i) { return studyName(i.param); });

// the plate field's probe on the GPU against the CPU (tolerance as above)
TEST(GpuProbeTest, PlateFieldMatchesTheCpuPath) {
  SKIP_WITHOUT_GPU();
  const int n = 1024, nstep = 2000;
  std::vector<tbFieldPoint> field[2];
  for (int dev = 0; dev < 2; dev++) {
    Scene sc("plate-particle", n);
    jitterParams(sc, 13);
    int plate = sc.body("plate"), part = sc.body("particle");
    for (int s = 0; s < n; s++) tb_placeOnPlate(sc.m, sc.d, s, plate, part, 0.0);
    field[dev].assign(n, tbFieldPoint{});
    tbProbe p = {};
    p.kind = TB_PROBE_FIELD;
    p.plate = plate;
    p.part = part;
    p.geom = 1;
    p.k0 = 1000;
    p.k1 = 2000;
    p.span = 1.0;
    p.field = field[dev].data();
    sc.d->run.device = dev ? TB_DEVICE_GPU : TB_DEVICE_CPU;
    ASSERT_EQ(tb_rolloutProbe(sc.m, sc.d, 0, n, nstep, nullptr, &p), TB_OK) << tb_lastError();
  }
  for (int s = 0; s < n; s++) {
    EXPECT_NEAR(field[0][s].mean_x, field[1][s].mean_x, 1e-7) << s;
    EXPECT_NEAR(field[0][s].vx, field[1][s].vx, 1e-7) << s;
    EXPECT_EQ(field[0][s].status & TB_SCENE_FAILMASK, field[1][s].status & TB_SCENE_FAILMASK) << s;
  }
}

// 256 box stacks with `solver` on the GPU against the CPU, within the CPU's spread under 4e-16 of
// the positions (on the CPU that moves prox-jacobi's velocities by 0.13 and mlcp-fb-plm's by 4e-5
// within 50 steps) and never by less than the 1e-7 of the models. *gpu_out gets the GPU's batch
// when not NULL.
void expectWithinTheCpuSpread(int solver, Scene* gpu_out = nullptr) {
  int cone = solverCone(solver);
  Scene cpu("box-stack", 256, {}, cone, 4), moved("box-stack", 256, {}, cone, 4);
  Scene gpu("box-stack", 256, {}, cone, 4);
  for (Scene* sc : {&cpu, &moved, &gpu}) {
    sc->m->opt.solver = solver;
    jitterParams(*sc, 17);
  }
  perturbPositions(moved, 4e-16);
  ASSERT_EQ(rolloutOn(TB_DEVICE_CPU, cpu, 50), TB_OK) << tb_lastError();
  ASSERT_EQ(rolloutOn(TB_DEVICE_CPU, moved, 50), TB_OK) << tb_lastError();
  ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, gpu, 50), TB_OK) << tb_lastError();
  expectWithinTheSpread(cpu, moved, gpu, 1e-7, tb_solverName(solver));
  if (gpu_out) std::swap(gpu_out->d, gpu.d);
}

// compliant rows on the GPU (Drumwright's K and B: a box stack's contacts, a pendulum's joints),
// within MatchesTheCpuPath's bound
TEST(GpuComplianceTest, CompliantRowsMatchTheCpuPath) {
  SKIP_WITHOUT_GPU();
  for (const char* scene : {"box-stack", "pendulum"}) {
    bool joints = std::string(scene) == "pendulum";
    Scene cpu(scene, 1000), gpu(scene, 1000);
    for (Scene* sc : {&cpu, &gpu}) {
      jitterParams(*sc, 29);
      sc->set(joints ? "joint_stiffness" : "stiffness", 1e6);
      sc->set(joints ? "joint_damping" : "damping", 1e3);
      sc->reset();
    }
    ASSERT_EQ(rolloutOn(TB_DEVICE_CPU, cpu, kSteps), TB_OK) << tb_lastError();
    ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, gpu, kSteps), TB_OK) << tb_lastError();
    expectClose(cpu, gpu, 1e-7, scene);
  }
}

// a ball joint's cone limit on the GPU (maximal rows; minimal: the tree's joint space), every
// scene its own cone, within MatchesTheCpuPath's bound
TEST(GpuTreeTest, ConeLimitedBallMatchesTheCpuPath) {
  SKIP_WITHOUT_GPU();
  for (int minimal = 0; minimal < 2; minimal++) {
    Scene cpu(coneRodModel(minimal, 0.5, 2.0, 1e-3), 1000);
    Scene gpu(coneRodModel(minimal, 0.5, 2.0, 1e-3), 1000);
    for (Scene* sc : {&cpu, &gpu}) {
      for (int s = 0; s < 1000; s++) sc->set("cone", 0.2 + 0.4 * s / 1000.0, s);
      sc->reset();
    }
    ASSERT_EQ(rolloutOn(TB_DEVICE_CPU, cpu, 500), TB_OK) << tb_lastError();
    ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, gpu, 500), TB_OK) << tb_lastError();
    expectClose(cpu, gpu, 1e-7, minimal ? "minimal cone" : "maximal cone");
  }
}

// scene `name`'s 512 scenes with `param` spread over [lo, hi] under `cone`, rolled out nstep
// steps on the GPU and on the CPU: within 1e-7
void expectSweepOnGpu(const char* name, const char* param, double lo, double hi, int nstep,
                      int cone) {
  Scene cpu(name, 512, {}, cone), gpu(name, 512, {}, cone);
  for (Scene* sc : {&cpu, &gpu}) {
    for (int s = 0; s < 512; s++) sc->set(param, lo + (hi - lo) * s / 511.0, s);
    sc->reset();
  }
  ASSERT_EQ(rolloutOn(TB_DEVICE_CPU, cpu, nstep), TB_OK) << tb_lastError();
  ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, gpu, nstep), TB_OK) << tb_lastError();
  expectClose(cpu, gpu, 1e-7, name);
}

// the quasistatic step's rounds (stage_quasi.h) on the GPU: pushes across the part's face and
// fence swings with their own friction, past the first touch (step 225 of qs-push), both cones
TEST(GpuQuasistaticTest, PushAndFenceMatchTheCpuPath) {
  SKIP_WITHOUT_GPU();
  for (int cone = 0; cone < 2; cone++) {
    expectSweepOnGpu("qs-push", "offset", -0.025, 0.025, 600, cone);
    expectSweepOnGpu("qs-fence", "mu", 0.1, 1.0, 400, cone);
  }
}

// non-convex corners (thesis §3.2) on the GPU: the corner rounds against the CPU path, the block
// over the hole from 512 phases and the gripper vertex at 512 speeds
TEST(GpuCornerTest, HoleAndFingerMatchTheCpuPath) {
  SKIP_WITHOUT_GPU();
  expectSweepOnGpu("corner-hole", "x0", -0.61, -0.6, 120, TB_CONE_EXACT);
  expectSweepOnGpu("corner-finger", "vx0", 0.05, 0.4, 18, TB_CONE_EXACT);
}

// geometrically implicit contact (thesis §3.5) on the GPU: the ball between two spheres at 512
// frictions through its switches and separations, the compliant disc at 512 core deflections
// through its first bounce, the coin (a cut shape) from 512 heights through its slap
TEST(GpuImplicitTest, SpheresCompliantDiscAndCoinMatchTheCpuPath) {
  SKIP_WITHOUT_GPU();
  expectSweepOnGpu("implicit-spheres", "mu", 0.1, 0.3, 400, TB_CONE_EXACT);
  expectSweepOnGpu("implicit-compliant", "core", 0.03, 0.2, 4000, TB_CONE_EXACT);
  expectSweepOnGpu("implicit-coin", "z0", 0.09, 0.12, 300, TB_CONE_EXACT);
}

// every step solver runs on the GPU: box stacks (exact cone; the pyramid for the LCP solvers),
// the LM solvers in the fused kernel with their in-kernel factorizations
TEST(GpuSolverTest, EverySolverMatchesTheCpuPath) {
  SKIP_WITHOUT_GPU();
  int was = tb_gpuSetNewtonBatch(0);
  for (int solver = 0; solver < TB_NSOLVER; solver++) expectWithinTheCpuSpread(solver);
  tb_gpuSetNewtonBatch(was);
}

// the LM solvers through the phases of newton_phased.h, each Newton iteration's systems factored
// together by cuSOLVER (potrfBatched, potrsBatched) or cuBLAS (gelsBatched): within the CPU's
// spread as above, and chunked and repeated phased runs bitwise the same
TEST(GpuSolverTest, BatchedLibraryNewtonMatchesTheCpuPath) {
  SKIP_WITHOUT_GPU();
  int was = tb_gpuSetNewtonBatch(1);
  for (int solver : {TB_SOLVER_MNCP_RLM, TB_SOLVER_MNCP_PLM, TB_SOLVER_NCP_DOGLEG,
                     TB_SOLVER_MLCP_FB_RLM, TB_SOLVER_MLCP_FB_PLM}) {
    int cone = solverCone(solver);
    Scene once("box-stack", 256, {}, cone, 4), again("box-stack", 256, {}, cone, 4),
        chunked("box-stack", 256, {}, cone, 4);
    expectWithinTheCpuSpread(solver, &once);
    for (Scene* sc : {&again, &chunked}) {
      sc->m->opt.solver = solver;
      jitterParams(*sc, 17);
    }
    ASSERT_EQ(rolloutOn(TB_DEVICE_GPU, again, 50), TB_OK) << tb_lastError();
    tb_gpuSetChunk(97);
    int rc = rolloutOn(TB_DEVICE_GPU, chunked, 50);
    tb_gpuSetChunk(0);
    ASSERT_EQ(rc, TB_OK) << tb_lastError();
    EXPECT_EQ(firstDifference(once.d, again.d), "") << tb_solverName(solver) << " repeated";
    EXPECT_EQ(firstDifference(once.d, chunked.d), "") << tb_solverName(solver) << " chunked";
  }
  tb_gpuSetNewtonBatch(was);
}

TEST(GpuDeviceTest, GpuWithoutADeviceIsAClearError) {
  if (tb_gpuDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(tb_setDevice(TB_DEVICE_GPU), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("device gpu:"), std::string::npos) << tb_lastError();
  EXPECT_EQ(tb_getDevice(), TB_DEVICE_CPU);
  // auto falls back to the CPU path without a word
  EXPECT_EQ(tb_setDevice(TB_DEVICE_AUTO), TB_OK);
  EXPECT_EQ(tb_rolloutDevice(), TB_DEVICE_CPU);
  tb_setDevice(TB_DEVICE_CPU);
  // a batch's own device is checked at its rollout, and named there
  Scene sc("sliding-sphere", 2);
  EXPECT_EQ(rolloutOn(TB_DEVICE_GPU, sc, 1), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("run.device gpu"), std::string::npos)
      << tb_lastError();
  EXPECT_EQ(rolloutOn(TB_DEVICE_AUTO, sc, 1), TB_OK) << tb_lastError();
}

}  // namespace

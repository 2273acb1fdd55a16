// Bitwise determinism of batch rollouts across thread counts and batch splits
// (host/rollout/rollout.c).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstring>

#include "math/rng.h"

#include "test_util.h"

namespace {

// FNV-1a over the bytes of every scene's final state
uint64_t StateHash(const tbData* d) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, size_t n) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
  };
  mix(d->body_pos, sizeof(double) * 3 * d->nscene * d->nbody);
  mix(d->body_quat, sizeof(double) * 4 * d->nscene * d->nbody);
  mix(d->body_vel, sizeof(double) * 6 * d->nscene * d->nbody);
  return h;
}

// a batch with per-scene random mu and initial spin, run in the given splits and threads
uint64_t RunBatch(const char* scene, int threads, std::vector<int> splits, int nstep) {
  Scene sc(scene, 37);
  int p = tb_findParam(sc.m, "mu");
  for (int s = 0; s < sc.d->nscene; s++) {
    sc.d->param[(size_t)s * sc.m->nparam + p] = 0.1 + 0.8 * tbu_uniform01(42, s, 0);
  }
  sc.reset();
  omp_set_num_threads(threads);
  int s0 = 0;
  splits.push_back(sc.d->nscene);
  for (int s1 : splits) {
    EXPECT_EQ(tb_rollout(sc.m, sc.d, s0, s1, nstep, nullptr), TB_OK);
    s0 = s1;
  }
  return StateHash(sc.d);
}

TEST(DeterminismTest, SameHashAcrossThreadsAndSplits) {
  for (const char* scene : {"box-stack", "pendulum", "plate-block", "sliding-sphere", "corner-hole",
                            "corner-finger", "implicit-spheres", "implicit-coin"}) {
    uint64_t ref = RunBatch(scene, 1, {}, 300);
    EXPECT_EQ(RunBatch(scene, 2, {}, 300), ref) << scene << ": 2 threads";
    EXPECT_EQ(RunBatch(scene, 2, {5, 20}, 300), ref) << scene << ": split 5/20/37";
    EXPECT_EQ(RunBatch(scene, 1, {36}, 300), ref) << scene << ": split 36/37";
  }
}

// draws are a pure function of (seed, scene, draw): different arguments, different numbers
TEST(DeterminismTest, CounterBasedDraws) {
  double a = tbu_uniform01(1, 2, 3);
  EXPECT_EQ(a, tbu_uniform01(1, 2, 3));
  EXPECT_NE(a, tbu_uniform01(2, 2, 3));
  EXPECT_NE(a, tbu_uniform01(1, 3, 3));
  EXPECT_NE(a, tbu_uniform01(1, 2, 4));
  double sum = 0;
  for (int i = 0; i < 100000; i++) {
    double u = tbu_uniform01(7, i, 0);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  // mean of 1e5 uniforms: standard error 0.0009, 5 sigma
  EXPECT_NEAR(sum / 100000, 0.5, 0.0046);
}

}  // namespace

// a scene copied mid-run into another batch (the particle filter's resampling) goes on exactly
// as the original: the copy carries the whole per-scene state, warm start included
TEST(DeterminismTest, CopiedSceneGoesOnBitwise) {
  Scene a("box-stack", 1), b("box-stack", 2);
  a.reset();
  b.reset();
  a.run(50);
  tb_copyScene(a.m, a.d, 0, b.d, 1);
  a.run(50);
  ASSERT_EQ(tb_rollout(b.m, b.d, 1, 2, 50, nullptr), TB_OK);
  int nb = a.m->nbody;
  EXPECT_EQ(std::memcmp(a.d->body_pos, b.d->body_pos + 3 * nb, sizeof(double) * 3 * nb), 0);
  EXPECT_EQ(std::memcmp(a.d->body_vel, b.d->body_vel + 6 * nb, sizeof(double) * 6 * nb), 0);
  EXPECT_EQ(a.d->nstep[0], b.d->nstep[1]);
}

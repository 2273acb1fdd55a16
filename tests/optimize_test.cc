// Batched derivative-free minimizers (host/jobs/optimize.c): Nelder-Mead and CMA-ES on test
// functions, bounds, batch shapes, determinism, non-finite values, the evaluation budget and abort.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <utility>
#include <thread>
#include <vector>

#include <tumble/optimize.h>

#include "math/eigen.h"

namespace {

// an objective over single points, recording every batch and candidate
struct Obj {
  int dim;
  std::function<double(const double*)> fn;
  std::vector<int> batches;
  std::vector<double> seen;  // every candidate, in order
  int abort_at_call = -1;    // return non-zero on this call (0-based)
  const double* lo = nullptr;
  const double* hi = nullptr;
  bool outside = false;  // a candidate left the box

  Obj(int d, std::function<double(const double*)> f) : dim(d), fn(std::move(f)) {}

  static int eval(void* ctx, int n, const double* x, double* f) {
    Obj* o = static_cast<Obj*>(ctx);
    int call = (int)o->batches.size();
    o->batches.push_back(n);
    o->seen.insert(o->seen.end(), x, x + (size_t)n * o->dim);
    for (int k = 0; k < n; k++) {
      const double* xk = x + (size_t)k * o->dim;
      for (int i = 0; i < o->dim; i++)
        if ((o->lo && xk[i] < o->lo[i]) || (o->hi && xk[i] > o->hi[i])) o->outside = true;
      f[k] = o->fn(xk);
    }
    return call == o->abort_at_call ? 1 : 0;
  }
  int evals() const {
    int s = 0;
    for (int b : batches) s += b;
    return s;
  }
};

double sphere(const double* x, int d) {
  double s = 0;
  for (int i = 0; i < d; i++) {
    double c = 0.3 * i - 1;  // minimum off the origin
    s += (x[i] - c) * (x[i] - c);
  }
  return s;
}

double rosenbrock(const double* x, int d) {
  double s = 0;
  for (int i = 0; i + 1 < d; i++)
    s += 100 * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1 - x[i]) * (1 - x[i]);
  return s;
}

using Method = int (*)(const tbOptimDef*, tbObjective, void*, double*, tbOptimResult*);

struct Outcome {
  int rc;
  tbOptimResult res;
  std::vector<double> x;
};

Outcome run(Method m, const tbOptimDef& def, Obj& o) {
  Outcome r;
  r.x.assign(def.dim, 0);
  std::memset(&r.res, 0, sizeof r.res);
  r.rc = m(&def, Obj::eval, &o, r.x.data(), &r.res);
  return r;
}

const char* name(Method m) {
  return m == tb_nelderMead ? "NM" : "CMA-ES";
}

// the stop bookkeeping every run must satisfy
void checkRun(const Outcome& r, const Obj& o, const tbOptimDef& def) {
  EXPECT_EQ(r.rc, r.res.reason);
  EXPECT_EQ(r.res.evaluations, o.evals());
  EXPECT_EQ(r.res.calls, (int)o.batches.size());
  EXPECT_LE(r.res.evaluations, def.max_evals);
  if (r.res.reason != TB_OPTIM_ABORTED) {
    EXPECT_EQ(r.res.f, o.fn(r.x.data()));
  }
}

TEST(OptimizeTest, Sphere) {
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    for (int d : {2, 12}) {
      std::vector<double> x0(d, 2.0), step(d, 1.0);
      tbOptimDef def = tb_defaultOptimDef(d);
      def.x0 = x0.data();
      def.step = step.data();
      def.max_evals = 20000;
      def.ftol = 1e-14;
      def.xtol = 0;
      Obj o{d, [d](const double* x) { return sphere(x, d); }};
      Outcome r = run(m, def, o);
      checkRun(r, o, def);
      EXPECT_EQ(r.rc, TB_OPTIM_CONVERGED) << name(m) << " d=" << d;
      EXPECT_LT(r.res.f, 1e-8) << name(m) << " d=" << d;
      for (int i = 0; i < d; i++) EXPECT_NEAR(r.x[i], 0.3 * i - 1, 1e-4);
      printf("  sphere d=%-2d %-6s f=%.3g iterations=%d evaluations=%d\n", d, name(m), r.res.f,
             r.res.iterations, r.res.evaluations);
    }
  }
}

TEST(OptimizeTest, Rosenbrock) {
  {  // NM, d = 2 from the classic start
    double x0[2] = {-1.2, 1}, step[2] = {0.5, 0.5};
    tbOptimDef def = tb_defaultOptimDef(2);
    def.x0 = x0;
    def.step = step;
    def.max_evals = 5000;
    def.ftol = 1e-15;
    def.xtol = 0;
    Obj o{2, [](const double* x) { return rosenbrock(x, 2); }};
    Outcome r = run(tb_nelderMead, def, o);
    checkRun(r, o, def);
    EXPECT_EQ(r.rc, TB_OPTIM_CONVERGED);
    EXPECT_LT(r.res.f, 1e-8);
    printf("  rosenbrock d=2 NM     f=%.3g iterations=%d evaluations=%d\n", r.res.f,
           r.res.iterations, r.res.evaluations);
  }
  {  // CMA-ES, d = 6 from the origin (96 of seeds 1..100 reach the global minimum here, the others
     // the local one near (-1, 1, ..., 1) at f = 3.97)
    std::vector<double> x0(6, 0.0), step(6, 0.5);
    tbOptimDef def = tb_defaultOptimDef(6);
    def.x0 = x0.data();
    def.step = step.data();
    def.max_evals = 30000;
    def.ftol = 1e-12;
    def.xtol = 0;
    def.seed = 7;
    Obj o{6, [](const double* x) { return rosenbrock(x, 6); }};
    Outcome r = run(tb_cmaes, def, o);
    checkRun(r, o, def);
    EXPECT_EQ(r.rc, TB_OPTIM_CONVERGED);
    EXPECT_LT(r.res.f, 1e-6);
    for (int i = 0; i < 6; i++) EXPECT_NEAR(r.x[i], 1, 1e-3);
    printf("  rosenbrock d=6 CMA-ES f=%.3g iterations=%d evaluations=%d\n", r.res.f,
           r.res.iterations, r.res.evaluations);
  }
}

// unconstrained minimum (2, 0.5, -3) outside the box [-1, 1]^3: the answer is (1, 0.5, -1), and
// no candidate ever leaves the box
TEST(OptimizeTest, BoundedMinimumOnTheBound) {
  const double c[3] = {2, 0.5, -3}, lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
  const double want[3] = {1, 0.5, -1};
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    double x0[3] = {0, 0, 0};
    tbOptimDef def = tb_defaultOptimDef(3);
    def.x0 = x0;
    def.lo = lo;
    def.hi = hi;  // step NULL: 0.1 (hi - lo)
    def.max_evals = 10000;
    def.ftol = 1e-14;
    def.xtol = 1e-12;
    Obj o{3, [&](const double* x) {
            double s = 0;
            for (int i = 0; i < 3; i++) s += (x[i] - c[i]) * (x[i] - c[i]);
            return s;
          }};
    o.lo = lo;
    o.hi = hi;
    Outcome r = run(m, def, o);
    checkRun(r, o, def);
    EXPECT_EQ(r.rc, TB_OPTIM_CONVERGED) << name(m);
    EXPECT_FALSE(o.outside) << name(m);
    for (int i = 0; i < 3; i++) EXPECT_NEAR(r.x[i], want[i], 1e-6) << name(m) << " " << i;
    EXPECT_NEAR(r.res.f, 1 + 4, 1e-10) << name(m);
    printf("  bounded d=3 %-6s f=%.12g iterations=%d evaluations=%d\n", name(m), r.res.f,
           r.res.iterations, r.res.evaluations);
  }
}

TEST(OptimizeTest, BatchSizes) {
  for (int d : {1, 2, 5, 12}) {
    std::vector<double> x0(d, 1.0);
    tbOptimDef def = tb_defaultOptimDef(d);
    def.x0 = x0.data();
    def.max_evals = 1003;
    def.ftol = -1;  // never converges
    def.xtol = -1;
    {  // NM: d + 1 first, then 1 (reflection, expansion, contraction) or d (shrink)
      Obj o{d, [d](const double* x) { return sphere(x, d); }};
      Outcome r = run(tb_nelderMead, def, o);
      checkRun(r, o, def);
      ASSERT_GE(o.batches.size(), 2u);
      EXPECT_EQ(o.batches[0], d + 1);
      for (size_t k = 1; k + 1 < o.batches.size(); k++)
        EXPECT_TRUE(o.batches[k] == 1 || o.batches[k] == d) << o.batches[k];
      EXPECT_LE(o.batches.back(), d);  // the last one may be truncated by the budget
      EXPECT_EQ(r.res.evaluations, 1003);
    }
    for (int pop : {0, 9}) {  // CMA-ES: lambda per generation, the last one truncated
      def.popsize = pop;
      int lambda = pop ? pop : 4 + (int)std::floor(3 * std::log((double)d));
      Obj o{d, [d](const double* x) { return sphere(x, d) + 1; }};  // never converges on ftol
      Outcome r = run(tb_cmaes, def, o);
      checkRun(r, o, def);
      ASSERT_GE(o.batches.size(), 2u);
      for (size_t k = 0; k + 1 < o.batches.size(); k++) EXPECT_EQ(o.batches[k], lambda);
      EXPECT_EQ(o.batches.back(), 1003 % lambda ? 1003 % lambda : lambda);
      EXPECT_EQ(r.res.evaluations, 1003);
      EXPECT_EQ(r.res.iterations, (int)o.batches.size());
      def.popsize = 0;
    }
  }
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(OptimizeTest, Determinism) {
  const int d = 5;
  std::vector<double> x0(d, 0.5), step(d, 0.3);
  auto fn = [](const double* x) { return rosenbrock(x, d); };
  tbOptimDef def = tb_defaultOptimDef(d);
  def.x0 = x0.data();
  def.step = step.data();
  def.max_evals = 3000;
  def.seed = 12345;
  Obj a{d, fn}, b{d, fn}, c{d, fn};
  Outcome ra = run(tb_cmaes, def, a);
  Outcome rb = run(tb_cmaes, def, b);
  EXPECT_TRUE(sameBits(a.seen, b.seen));
  EXPECT_TRUE(sameBits(ra.x, rb.x));
  EXPECT_EQ(std::memcmp(&ra.res.f, &rb.res.f, sizeof(double)), 0);
  EXPECT_EQ(ra.res.evaluations, rb.res.evaluations);
  EXPECT_EQ(ra.res.iterations, rb.res.iterations);
  def.seed = 12346;
  Outcome rc = run(tb_cmaes, def, c);
  EXPECT_FALSE(sameBits(a.seen, c.seen));
  EXPECT_NE(std::vector<double>(a.seen.begin(), a.seen.begin() + d),
            std::vector<double>(c.seen.begin(), c.seen.begin() + d));  // differs from the start
  EXPECT_FALSE(sameBits(ra.x, rc.x));
  // NM has no randomness: two runs are bitwise identical
  Obj n1{d, fn}, n2{d, fn};
  Outcome rn1 = run(tb_nelderMead, def, n1);
  Outcome rn2 = run(tb_nelderMead, def, n2);
  EXPECT_TRUE(sameBits(n1.seen, n2.seen));
  EXPECT_TRUE(sameBits(rn1.x, rn2.x));
}

// a diverging region (NaN, inf) next to the minimum (1, 1): both stay out of it and converge
TEST(OptimizeTest, NonFiniteRegionAvoided) {
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL}) {
      double x0[2] = {-1, -1}, step[2] = {2.5, 2.5};  // the initial spread reaches the region
      tbOptimDef def = tb_defaultOptimDef(2);
      def.x0 = x0;
      def.step = step;
      def.max_evals = 5000;
      def.ftol = 1e-14;
      def.xtol = 0;
      int nbad = 0;
      Obj o{2, [&](const double* x) {
              if (x[0] + x[1] > 2.2) {
                nbad++;
                return bad;
              }
              return (x[0] - 1) * (x[0] - 1) + (x[1] - 1) * (x[1] - 1);
            }};
      Outcome r = run(m, def, o);
      EXPECT_EQ(r.rc, TB_OPTIM_CONVERGED) << name(m) << " " << bad;
      EXPECT_GT(nbad, 0) << name(m);  // the region was probed
      EXPECT_TRUE(std::isfinite(r.res.f));
      EXPECT_LT(r.res.f, 1e-8) << name(m) << " " << bad;
      EXPECT_LE(r.x[0] + r.x[1], 2.2);
      printf("  non-finite %-4g %-6s f=%.3g iterations=%d evaluations=%d (%d non-finite)\n", bad,
             name(m), r.res.f, r.res.iterations, r.res.evaluations, nbad);
    }
  }
  // nothing finite at all: +inf and x0 back, no crash
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    double x0[2] = {0.25, -0.5};
    tbOptimDef def = tb_defaultOptimDef(2);
    def.x0 = x0;
    def.max_evals = 200;
    Obj o{2, [](const double*) { return std::nan(""); }};
    Outcome r = run(m, def, o);
    EXPECT_EQ(r.res.f, HUGE_VAL);
    EXPECT_EQ(r.x[0], 0.25);
    EXPECT_EQ(r.x[1], -0.5);
    EXPECT_LE(r.res.evaluations, 200);
  }
}

TEST(OptimizeTest, EvaluationBudgetExact) {
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    for (int d : {1, 3, 8}) {
      for (int budget : {1, 2, d + 1, d + 2, 37, 100, 101, 999}) {
        std::vector<double> x0(d, 3.0);
        tbOptimDef def = tb_defaultOptimDef(d);
        def.x0 = x0.data();
        def.max_evals = budget;
        def.ftol = -1;
        def.xtol = -1;
        Obj o{d, [d](const double* x) { return rosenbrock(x, d) + sphere(x, d); }};
        Outcome r = run(m, def, o);
        checkRun(r, o, def);
        EXPECT_EQ(r.rc, TB_OPTIM_MAXEVALS) << name(m) << " d=" << d << " budget=" << budget;
        EXPECT_EQ(o.evals(), budget) << name(m) << " d=" << d;
        // the best is the best of every candidate seen
        double best = HUGE_VAL;
        for (int k = 0; k < budget; k++) best = std::fmin(best, o.fn(&o.seen[(size_t)k * d]));
        EXPECT_EQ(r.res.f, best);
      }
    }
  }
}

TEST(OptimizeTest, AbortStops) {
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    for (int at : {0, 4}) {
      double x0[3] = {1, 2, 3};
      tbOptimDef def = tb_defaultOptimDef(3);
      def.x0 = x0;
      Obj o{3, [](const double* x) { return sphere(x, 3); }};
      o.abort_at_call = at;
      Outcome r = run(m, def, o);
      EXPECT_EQ(r.rc, TB_OPTIM_ABORTED) << name(m);
      EXPECT_EQ(r.res.reason, TB_OPTIM_ABORTED);
      EXPECT_EQ((int)o.batches.size(), at + 1);
      EXPECT_EQ(r.res.calls, at + 1);
      EXPECT_EQ(r.res.evaluations, o.evals());
      if (at == 0) {  // the aborted batch's values are not used
        EXPECT_EQ(r.res.f, HUGE_VAL);
        EXPECT_EQ(r.x[2], 3);
      }
    }
  }
}

TEST(OptimizeTest, ProgressHistoryAndCaps) {
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    const int d = 4;
    std::vector<double> x0(d, 2.0);
    std::vector<tbOptimTrace> hist(20);
    tbOptimDef def = tb_defaultOptimDef(d);
    def.x0 = x0.data();
    def.max_iter = 30;
    def.history = hist.data();
    def.history_cap = (int)hist.size();
    static std::vector<tbOptimTrace>* got;
    std::vector<tbOptimTrace> calls;
    got = &calls;
    def.progress = [](void*, int iter, int evals, double best, double seconds) {
      got->push_back({iter, evals, best, seconds});
    };
    Obj o{d, [](const double* x) { return sphere(x, d); }};
    Outcome r = run(m, def, o);
    checkRun(r, o, def);
    EXPECT_EQ(r.rc, TB_OPTIM_MAXITER) << name(m);
    EXPECT_EQ(r.res.iterations, 30);
    int first = m == tb_nelderMead ? 0 : 1;  // NM reports its initial simplex as iteration 0
    ASSERT_EQ((int)calls.size(), 30 - first + 1);
    EXPECT_EQ(r.res.history_len, 20);
    for (size_t k = 0; k < calls.size(); k++) {
      EXPECT_EQ(calls[k].iter, first + (int)k);
      if (k < hist.size()) {
        EXPECT_EQ(hist[k].iter, calls[k].iter);
        EXPECT_EQ(hist[k].evals, calls[k].evals);
        EXPECT_EQ(hist[k].best, calls[k].best);
      }
      if (k) {
        EXPECT_LE(calls[k].best, calls[k - 1].best);
        EXPECT_GT(calls[k].evals, calls[k - 1].evals);
        EXPECT_GE(calls[k].seconds, calls[k - 1].seconds);
      }
    }
    EXPECT_EQ(calls.back().evals, r.res.evaluations);
    EXPECT_EQ(calls.back().best, r.res.f);
  }
}

TEST(OptimizeTest, TimeBudget) {
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    double x0[2] = {3, 3};
    tbOptimDef def = tb_defaultOptimDef(2);
    def.x0 = x0;
    def.max_evals = 1 << 30;
    def.ftol = -1;  // never converges
    def.xtol = -1;
    def.max_seconds = 0.05;
    Obj o{2, [](const double* x) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            return sphere(x, 2) + 1;
          }};
    Outcome r = run(m, def, o);
    EXPECT_EQ(r.rc, TB_OPTIM_TIME) << name(m);
    EXPECT_GE(r.res.seconds, 0.05);
    EXPECT_LT(r.res.seconds, 5);
  }
}

TEST(OptimizeTest, BadDefinition) {
  double x0[2] = {0, 0}, lo[2] = {1, 0}, hi[2] = {0, 1}, zero[2] = {0, 1}, xb[2];
  for (Method m : {tb_nelderMead, tb_cmaes}) {
    tbOptimDef def = tb_defaultOptimDef(2);
    EXPECT_EQ(m(&def, Obj::eval, nullptr, xb, nullptr), -1);  // no x0
    def.x0 = x0;
    EXPECT_EQ(m(&def, nullptr, nullptr, xb, nullptr), -1);
    EXPECT_EQ(m(&def, Obj::eval, nullptr, nullptr, nullptr), -1);
    tbOptimDef b = def;
    b.lo = lo;
    b.hi = hi;
    EXPECT_EQ(m(&b, Obj::eval, nullptr, xb, nullptr), -1);  // lo > hi
    b = def;
    b.step = zero;
    EXPECT_EQ(m(&b, Obj::eval, nullptr, xb, nullptr), -1);
    b = def;
    b.max_evals = 0;
    EXPECT_EQ(m(&b, Obj::eval, nullptr, xb, nullptr), -1);
    b = def;
    b.dim = 0;
    EXPECT_EQ(m(&b, Obj::eval, nullptr, xb, nullptr), -1);
  }
}

TEST(OptimizeTest, SymmetricEigen) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  for (int n : {1, 2, 3, 7, 32}) {
    std::vector<double> a(n * n), a0, w(n), v(n * n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = g(rng);
    if (n == 7) a[0] = a[8] = a[16] = 2.5;  // repeated diagonal entries
    a0 = a;
    tb_symEigen(n, a.data(), w.data(), v.data());
    double scale = 0;
    for (double x : a0) scale = std::fmax(scale, std::fabs(x));
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double r = 0, o = 0;
        for (int k = 0; k < n; k++) {
          r += v[i * n + k] * w[k] * v[j * n + k];
          o += v[k * n + i] * v[k * n + j];
        }
        EXPECT_NEAR(r, a0[i * n + j], 1e-12 * scale * n) << n;
        EXPECT_NEAR(o, i == j, 1e-12 * n) << n;
      }
    }
  }
}

}  // namespace

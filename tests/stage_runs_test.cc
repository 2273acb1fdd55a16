// The step's Delassus matrix read over its nonzero runs (host/engine/stage_assemble.h
// tb_assembleRuns) on the sphere pile, where each row meets a few neighbours; PGS in body space
// (host/engine/stage_bodies.h), where the step holds no A; auto's first stage there, NNCG, and its
// fallback; the pile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tumble/problem.h>
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "engine/engine.h"
#include "solver/solver_auto.h"
#include "engine/stage_bodies.h"
#include "engine/stage_rows.h"
#include "engine/stage_step.h"
#include "step_problem.h"
#include "test_util.h"
#include "solver/residual.h"

namespace {

// the built-in sphere-pile with rigid contacts (soft 0) on PGS with 1000 sweeps, the scene's
// defaults before its contacts were regularized, whose steps these tests were written on, after
// `steps` steps, with the work of its last step; A stored (TB_DELASSUS_DENSE) or, by default, not
// (body space)
struct Pile : Scene {
  tbWork* w = nullptr;
  explicit Pile(int steps, int delassus = TB_DELASSUS_AUTO) : Scene("sphere-pile", 1) {
    m->opt.delassus = delassus;
    m->opt.solver = TB_SOLVER_PGS;
    m->opt.max_iter = 1000;
    w = tb_newWork(m);
    set("soft", 0.0);
    reset();
    for (int k = 0; k < steps; k++) tb_stepScene(m, d, 0, w);
  }
  ~Pile() { tb_freeWork(w); }
};

// the step's A, whose entries are products only inside the runs (tb_delassusRuns), is bitwise
// every entry's product (tb_delassusRows): every entry outside row i's runs is exactly zero; the
// runs lie in order inside [0, n), and the matrix is read over them
TEST(StepRunsTest, PileRowsReadOnlyTheirRuns) {
  Pile pile(150, TB_DELASSUS_DENSE);
  const tbWork* w = pile.w;
  int n = w->nrow;
  ASSERT_GE(n, TB_STEP_RUN_ROWS);
  ASSERT_EQ(w->use_runs, 1);
  std::vector<double> whole((size_t)n * n);
  tb_delassusRows(tb_solo(), w, whole.data());
  for (size_t k = 0; k < whole.size(); k++) ASSERT_EQ(w->A[k], whole[k]) << k;
  tbProblem p = tb_problemOf(pile.m, w);
  ASSERT_EQ(p.runs, &w->runs);
  long read = 0;
  for (int i = 0; i < n; i++) {
    std::vector<char> in(n, 0);
    int prev = 0;
    for (int r = w->run_adr[i]; r < w->run_adr[i + 1]; r++) {
      int a = w->run[2 * r], b = w->run[2 * r + 1];
      ASSERT_LE(prev, a);
      ASSERT_LT(a, b);
      ASSERT_LE(b, n);
      prev = b;
      for (int j = a; j < b; j++) in[j] = 1;
      read += b - a;
    }
    ASSERT_TRUE(in[i]) << "row " << i << " misses its diagonal";
    for (int j = 0; j < n; j++) {
      if (!in[j]) {
        ASSERT_EQ(w->A[(size_t)i * n + j], 0.0) << i << ", " << j;
      }
    }
  }
  EXPECT_LE(read, TB_RUN_FILL * n * n);
  EXPECT_GT(read, 0);
}

// PGS over the runs and over the whole matrix: the same impulses (but for the order of the sums
// in the residual), the same sweeps
TEST(StepRunsTest, PgsOverRunsIsPgsOverTheWholeMatrix) {
  Pile pile(150, TB_DELASSUS_DENSE);
  tbProblem runs = tb_problemOf(pile.m, pile.w);
  ASSERT_NE(runs.runs, nullptr);
  tbProblem whole = runs;
  whole.runs = nullptr;
  tbSolverOpt o = tb_defaultSolverOpt();
  o.max_iter = 300;
  o.tol = 0.0;  // every sweep
  std::vector<double> xr(runs.n, 0.0), xw(runs.n, 0.0);
  tbSolverWork* sw = tb_newSolverWork(TB_SOLVER_PGS, runs.n, runs.nblock, runs.facets);
  tbSolveResult rr, rw;
  ASSERT_EQ(tb_solve(TB_SOLVER_PGS, &runs, &o, xr.data(), sw, &rr), TB_OK);
  ASSERT_EQ(tb_solve(TB_SOLVER_PGS, &whole, &o, xw.data(), sw, &rw), TB_OK);
  tb_freeSolverWork(sw);
  EXPECT_EQ(rr.iterations, rw.iterations);
  double scale = 0.0;
  for (double v : xw) scale = std::fmax(scale, std::fabs(v));
  ASSERT_GT(scale, 0.0);
  for (int i = 0; i < runs.n; i++) EXPECT_NEAR(xr[i], xw[i], 1e-12 * scale) << i;
  EXPECT_NEAR(rr.residual, rw.residual, 1e-15);  // (relative to |b| already)
}

// the pile's slot holds no A in body space: 0.29 MB where A alone takes 729^2 doubles (4.3 MB)
TEST(BodySpaceTest, PileSlotHoldsNoDelassusMatrix) {
  Pile body(0), dense(0, TB_DELASSUS_DENSE);
  ASSERT_TRUE(tb_stepBodySpace(body.m));
  ASSERT_FALSE(tb_stepBodySpace(dense.m));
  tbScratch sizes = {};
  tb_solverScratchSize(body.m, &sizes.nsolver_d, &sizes.nsolver_i);
  size_t a = sizeof(double) * (size_t)body.m->maxrow * body.m->maxrow;
  EXPECT_LT(tb_workBytes(body.m, &sizes), a / 10);
  EXPECT_GT(tb_workBytes(dense.m, &sizes), a);
}

// PGS in body space from zero: after 40 sweeps (no stop) the impulses of tb_solvePGS on the
// step's whole A, but for the order of the sums; body_dv is M^-1 J^T x; converged to the
// tolerance where tb_bodyCheck checks
TEST(BodySpaceTest, SweepsAreTheWholeMatrixsPgs) {
  Pile pile(150);
  tbWork* w = pile.w;
  ASSERT_TRUE(tb_stepBodySpace(pile.m));
  tbProblem p = tb_problemOf(pile.m, w);
  ASSERT_EQ(p.A, nullptr);
  int n = p.n;
  ASSERT_GE(n, TB_STEP_BODY_ROWS);
  std::vector<double> A((size_t)n * n);
  tb_delassusRows(tb_solo(), w, A.data());
  tbProblem whole = p;
  whole.A = A.data();
  tbSolverOpt o = tb_defaultSolverOpt();
  o.max_iter = 40;
  o.tol = 0.0;
  std::vector<double> xw(n, 0.0);
  tbSolverWork* sw = tb_newSolverWork(TB_SOLVER_PGS, n, p.nblock, p.facets);
  tbSolveResult rw, rb;
  ASSERT_EQ(tb_solve(TB_SOLVER_PGS, &whole, &o, xw.data(), sw, &rw), TB_OK);
  tb_freeSolverWork(sw);
  std::fill(w->x, w->x + n, 0.0);
  tb_solveBodyPGS(tb_solo(), pile.m, w, &p, &o, &rb);
  EXPECT_EQ(rb.iterations, rw.iterations);
  double scale = 0.0;
  for (double v : xw) scale = std::fmax(scale, std::fabs(v));
  ASSERT_GT(scale, 0.0);
  for (int i = 0; i < n; i++) EXPECT_NEAR(w->x[i], xw[i], 1e-12 * scale) << i;
  EXPECT_NEAR(rb.residual, rw.residual, 1e-12 * std::fmax(rw.residual, 1.0));
  std::vector<double> Ax(n, 0.0);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) Ax[i] += A[(size_t)i * n + j] * w->x[j];
    double cfm = w->row[i].cfm * w->x[i];
    EXPECT_NEAR(tb_rowImpulseVelocity(pile.m, w, i), Ax[i] - cfm, 1e-12 * (1.0 + std::fabs(Ax[i])))
        << i;
  }
  o.max_iter = 1000;
  o.tol = 1e-6;
  std::fill(w->x, w->x + n, 0.0);
  tb_solveBodyPGS(tb_solo(), pile.m, w, &p, &o, &rb);
  EXPECT_TRUE(rb.converged) << rb.residual;
  EXPECT_EQ(rb.reason, TB_STOP_CONVERGED);
  EXPECT_LE(rb.residual, o.tol);
  EXPECT_TRUE(tb_bodyCheck(rb.iterations, o.max_iter)) << rb.iterations;
  EXPECT_GT(rb.iterations, TB_BODY_CHECK);  // from zero: the checks every TB_BODY_CHECK
}

// a body-space pile's exported step holds the step's whole A (made for the file), bitwise
TEST(BodySpaceTest, ExportWritesTheStepsWholeMatrix) {
  Pile pile(150), other(0);
  std::string stem = ::testing::TempDir() + "tumble-body-pile";
  int written = 0;
  ASSERT_EQ(tb_exportProblems(other.m, other.d, 150, 150, stem.c_str(), &written), TB_OK)
      << tb_lastError();
  ASSERT_EQ(written, 1);
  tbFileProblem fp;
  ASSERT_EQ(tb_readProblem((stem + "-s0-k150.dat").c_str(), &fp), TB_OK) << tb_lastError();
  int n = pile.w->nrow;
  ASSERT_EQ(fp.n, n);
  std::vector<double> A((size_t)n * n);
  tb_delassusRows(tb_solo(), pile.w, A.data());
  for (size_t k = 0; k < A.size(); k++) ASSERT_EQ(fp.W[k], A[k]) << k;
  for (int i = 0; i < n; i++) ASSERT_EQ(fp.q[i], pile.w->b[i]) << i;
  tb_freeFileProblem(&fp);
}

// a step above TB_AUTO_FALLBACK_MAX rows that auto's stages leave above the tolerance is not
// handed to the fallback's ten Newton runs (the whole budget each, O(n^3) an iteration): its
// iterations stay within the stages' budget, the fallback's one SOC-FB run and its PGS pass
TEST(StepRunsTest, AutoSkipsTheFallbacksNewtonAboveItsSize) {
  Pile pile(150, TB_DELASSUS_DENSE);
  tbProblem p = tb_problemOf(pile.m, pile.w);
  ASSERT_GT(p.n, TB_AUTO_FALLBACK_MAX);
  tbSolverOpt o = tb_defaultSolverOpt();
  o.max_iter = 20;
  o.tol = 1e-14;  // out of reach in 20 iterations
  std::vector<double> x(p.n, 0.0);
  tbSolverWork* sw = tb_newSolverWork(TB_SOLVER_AUTO, p.n, p.nblock, p.facets);
  tbSolveResult r;
  ASSERT_EQ(tb_solve(TB_SOLVER_AUTO, &p, &o, x.data(), sw, &r), TB_OK);
  tb_freeSolverWork(sw);
  EXPECT_FALSE(r.converged);
  EXPECT_LE(r.iterations, 3 * o.max_iter);
  EXPECT_TRUE(std::isfinite(r.residual));
}

// steps of the resting pile (750, 800 and 850 of the default scene) that PGS and the MNCP's
// Newton leave above the step's tolerance in its 1000 iterations: auto hands them to the SOC-FB
// Newton (tb_socAfterNewton), which solves them from zero (without it they ended at 7e-6, 8e-6
// and 1e-8), where PGS alone does not
TEST(StepRunsTest, AutoHandsAStalledPileStepToTheSocNewton) {
  int steps = 750;
  Pile pile(steps, TB_DELASSUS_DENSE);
  for (int k = 750; k <= 850; k += 50) {
    for (; steps < k; steps++) tb_stepScene(pile.m, pile.d, 0, pile.w);
    tbProblem p = tb_problemOf(pile.m, pile.w);
    ASSERT_GT(p.n, TB_AUTO_FALLBACK_MAX);
    tbSolverOpt o = tb_defaultSolverOpt();
    for (int solver : {TB_SOLVER_PGS, TB_SOLVER_AUTO}) {
      std::vector<double> x(p.n, 0.0);
      tbSolverWork* sw = tb_newSolverWork(solver, p.n, p.nblock, p.facets);
      tbSolveResult r;
      ASSERT_EQ(tb_solve(solver, &p, &o, x.data(), sw, &r), TB_OK);
      tb_freeSolverWork(sw);
      EXPECT_EQ(r.converged, solver == TB_SOLVER_AUTO)
          << "step " << k << ", " << tb_solverName(solver) << ": residual " << r.residual;
      EXPECT_TRUE(std::isfinite(r.residual));
    }
  }
}

// a lender's SOC-FB Newton (tbSolverOpt.soc_newton), counted; it declines (-1) or solves by the
// dense soc-fb-plm itself
struct Lender {
  static int calls, decline;
  static int solve(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolveResult* r) {
    calls++;
    if (decline) return -1;
    tbSolverOpt o = *opt;
    o.soc_newton = nullptr;
    tbSolverWork* w = tb_newSolverWork(TB_SOLVER_SOC_FB_PLM, p->n, p->nblock, p->facets);
    int rc = tb_solve(TB_SOLVER_SOC_FB_PLM, p, &o, x, w, r);
    tb_freeSolverWork(w);
    return rc;
  }
};
int Lender::calls = 0, Lender::decline = 0;

// auto's SOC-FB stage runs the host's lent Newton where one is lent, and where it declines, its
// own: on the pile's step 860 (which reaches the stage) the lender is called, and auto's answer
// is bitwise the one without a lender either way (both lenders end where the dense stage does).
// tb_solveFile lends its sparse one (KLU), and where auto ends unsolved with it, runs auto's own
// from the same start too: the two factorizations' round-off leads these degenerate steps'
// iterations apart, either way (over the resting pile's steps 760 to 1000, every 10th, 20 of 25
// converged with the sparse one against 16 with the dense; on a trajectory that differs in
// round-off, steps 860 to 940 every 20th, 0 of 5 against 2). On those five the file's answer is
// never worse than the dense stage's
TEST(StepRunsTest, AutoRunsTheLentSocNewton) {
  Pile pile(860, TB_DELASSUS_DENSE);
  tbProblem p = tb_problemOf(pile.m, pile.w);
  ASSERT_GT(p.n, TB_AUTO_FALLBACK_MAX);
  ASSERT_NE(p.runs, nullptr);
  auto solve = [&](int (*lend)(const tbProblem*, const tbSolverOpt*, double*, tbSolveResult*),
                   int file, std::vector<double>& x) {
    tbSolverOpt o = tb_defaultSolverOpt();
    o.soc_newton = lend;
    x.assign(p.n, 0.0);
    tbSolverWork* sw = tb_newSolverWork(TB_SOLVER_AUTO, p.n, p.nblock, p.facets);
    tbSolveResult r;
    int rc = file ? tb_solveFile(TB_SOLVER_AUTO, &p, &o, x.data(), sw, &r)
                  : tb_solve(TB_SOLVER_AUTO, &p, &o, x.data(), sw, &r);
    tb_freeSolverWork(sw);
    EXPECT_EQ(rc, TB_OK);
    EXPECT_TRUE(std::isfinite(r.residual));
    return r;
  };
  std::vector<double> own, lent;
  tbSolveResult r0 = solve(nullptr, 0, own);
  for (int decline : {0, 1}) {
    Lender::calls = 0;
    Lender::decline = decline;
    tbSolveResult r = solve(Lender::solve, 0, lent);
    EXPECT_GE(Lender::calls, 1) << "decline " << decline;
    EXPECT_EQ(r.residual, r0.residual) << "decline " << decline;
    EXPECT_EQ(r.iterations, r0.iterations) << "decline " << decline;
    EXPECT_EQ(lent, own) << "decline " << decline;
  }
  int dense = 0, file = 0;
  for (int k = 860; k <= 940; k += 20) {
    for (int j = 0; k > 860 && j < 20; j++) tb_stepScene(pile.m, pile.d, 0, pile.w);
    p = tb_problemOf(pile.m, pile.w);
    tbSolveResult a = solve(nullptr, 0, own), b = solve(nullptr, 1, lent);
    EXPECT_LE(b.residual, a.residual) << "step " << k;
    dense += a.converged;
    file += b.converged;
  }
  EXPECT_GE(file, dense);
  EXPECT_GE(dense, 1);
}

// the pile at its defaults (regularized contacts, auto with 3000 iterations) after `steps` steps,
// the work of its last step kept: auto starts its steps of 64 rows and more in body space
struct SoftPile : Scene {
  tbWork* w = nullptr;
  explicit SoftPile(int steps) : Scene("sphere-pile", 1) {
    w = tb_newWork(m);
    reset();
    for (int k = 0; k < steps; k++) tb_stepScene(m, d, 0, w);
  }
  ~SoftPile() { tb_freeWork(w); }
  // the last step's problem as NNCG takes it, and with its whole A into A (step_problem.h)
  tbProblem bodyProblem() { return bodyProblemOf(m, w); }
  tbProblem whole(std::vector<double>& A) const { return wholeProblemOf(m, w, A); }
};

// the residual of x on the step's whole problem, from scratch with A
double wholeResidual(const SoftPile& pile, const double* x) {
  std::vector<double> A;
  tbProblem p = pile.whole(A);
  std::vector<double> u(p.n);
  return tb_residual(&p, x, u.data());
}

// a pile step of 64 rows and more that NNCG solves assembles no A (a poisoned A stays poisoned),
// and its answer meets the tolerance on the whole problem, A from scratch
TEST(BodyFirstTest, ConvergedStepAssemblesNoDelassusMatrix) {
  SoftPile pile(300);
  tbWork* w = pile.w;
  ASSERT_TRUE(tb_stepBodyFirst(pile.m));
  ASSERT_FALSE(tb_stepBodySpace(pile.m));
  std::fill(w->A, w->A + (size_t)pile.m->maxrow * pile.m->maxrow, NAN);
  tb_stepScene(pile.m, pile.d, 0, w);
  ASSERT_GE(w->nrow, TB_STEP_BODY_ROWS);
  ASSERT_TRUE(tb_bodyFirst(pile.m, w));
  EXPECT_EQ(pile.d->status[0], 0);
  EXPECT_GT(pile.d->iter_last[0], 0);  // swept: the warm start alone did not pass
  for (int i = 0; i < w->nrow * w->nrow; i++) ASSERT_TRUE(std::isnan(w->A[i])) << i;
  EXPECT_LE(wholeResidual(pile, w->x), pile.m->opt.tol * (1.0 + 1e-6));
}

// NNCG from zero on a pile step reaches the tolerance in under half PGS's sweeps in body space
// (the same sweeps without the conjugate steps), its reported residual the whole problem's, and
// its dv M^-1 J^T x
TEST(BodyFirstTest, NncgTakesFewerSweepsThanPgs) {
  SoftPile pile(300);
  tbWork* w = pile.w;
  tbProblem p = pile.bodyProblem();
  ASSERT_GE(p.n, TB_STEP_BODY_ROWS);
  tbSolverOpt o = tb_defaultSolverOpt();
  o.max_iter = 5000;
  o.tol = 1e-8;
  tbSolveResult cg, pgs;
  double start = 0.0;
  std::fill(w->x, w->x + p.n, 0.0);
  tb_solveBodyPGS(tb_solo(), pile.m, w, &p, &o, &pgs);
  std::fill(w->x, w->x + p.n, 0.0);
  tb_solveBodyCG(tb_solo(), pile.m, w, &p, &o, &start, &cg);
  ASSERT_TRUE(pgs.converged) << pgs.residual;
  ASSERT_TRUE(cg.converged) << cg.residual;
  EXPECT_EQ(cg.reason, TB_STOP_CONVERGED);
  EXPECT_LT(2 * cg.iterations, pgs.iterations) << cg.iterations << " " << pgs.iterations;
  EXPECT_NEAR(wholeResidual(pile, w->x), cg.residual, 1e-12);
  std::vector<double> dv(6 * pile.m->nbody);
  tb_impulseVelocitiesOf(pile.m, w, dv.data());
  for (size_t k = 0; k < dv.size(); k++) EXPECT_EQ(w->body_dv[k], dv[k]) << k;
}

// NNCG's conjugate step moves the bodies' dv by its direction's impulse velocities, carried
// beside the direction: after sweeps with conjugate steps (beta in (0, 1]) dv is still
// M^-1 J^T x of the moved x, to round-off
TEST(BodyFirstTest, ConjugateStepKeepsTheImpulseVelocities) {
  SoftPile pile(300);
  tbWork* w = pile.w;
  tbProblem p = pile.bodyProblem();
  size_t n = (size_t)p.n, nv = 6 * (size_t)pile.m->nbody;
  std::vector<double> xold(n), dvold(nv), swept(n), pdir(n, 0.0), pdv(nv, 0.0);
  double d2 = 0.0;
  int moved = 0;
  std::fill(w->x, w->x + n, 0.0);
  tb_bodyImpulseVelocities(pile.m, w);
  for (int sweep = 0; sweep < 30; sweep++) {
    std::copy(w->x, w->x + n, xold.begin());
    std::copy(w->body_dv, w->body_dv + nv, dvold.begin());
    tb_bodySweep(pile.m, w, &p, 1.0);
    std::copy(w->x, w->x + n, swept.begin());
    tb_bodyConjugate(pile.m, w, xold.data(), dvold.data(), pdir.data(), pdv.data(), &d2);
    moved += !std::equal(swept.begin(), swept.end(), w->x);
  }
  EXPECT_GE(moved, 10);  // most sweeps took a conjugate step
  std::vector<double> dv(nv);
  tb_impulseVelocitiesOf(pile.m, w, dv.data());
  double scale = 0.0;
  for (double v : dv) scale = std::fmax(scale, std::fabs(v));
  ASSERT_GT(scale, 0.0);
  for (size_t k = 0; k < nv; k++) EXPECT_NEAR(w->body_dv[k], dv[k], 1e-12 * scale) << k;
}

// NNCG with a tolerance out of its reach (zero) stalls at round-off and stops by its patience,
// well before its budget, its best iterate kept; then A is assembled and auto goes on from that
// iterate with the sweeps left (20): its answer no worse, its residual the whole problem's, and
// the iterations count both
TEST(BodyFirstTest, StalledNncgHandsOverToDenseAuto) {
  SoftPile pile(300);
  tbWork* w = pile.w;
  tbProblem p = pile.bodyProblem();
  tbSolverOpt o = tb_stepSolverOpt(pile.m);
  o.tol = 0.0;
  o.max_iter = 20000;
  tbSolveResult cg, res;
  double start = 0.0;
  std::fill(w->x, w->x + p.n, 0.0);
  tb_solveBodyCG(tb_solo(), pile.m, w, &p, &o, &start, &cg);
  EXPECT_FALSE(cg.converged);
  EXPECT_EQ(cg.reason, TB_STOP_MAXITER);
  EXPECT_LT(cg.iterations, o.max_iter / 4);
  EXPECT_LT(cg.residual, 1e-12);  // at round-off
  EXPECT_NEAR(wholeResidual(pile, w->x), cg.residual, 1e-14);
  std::fill(w->A, w->A + (size_t)p.n * p.n, NAN);
  std::fill(w->x, w->x + p.n, 0.0);
  o.max_iter = cg.iterations + 20;
  ASSERT_EQ(tb_solveBodyFirst(tb_solo(), pile.m, w, &p, &o, &res), 0);
  for (int i = 0; i < p.n; i++) ASSERT_FALSE(std::isnan(w->A[(size_t)i * p.n + i])) << i;
  EXPECT_LE(res.residual, cg.residual);
  EXPECT_GT(res.iterations, cg.iterations);
  EXPECT_NEAR(wholeResidual(pile, w->x), res.residual, 1e-14);
}

// near rest (a warm start within TB_BODY_NEAR) an answer that meets the tolerance but not auto's
// exact one goes on to auto's: the pile's step from its own answer moved by 1e-9 ends exact
TEST(BodyFirstTest, NearRestTheAnswerIsMadeExact) {
  SoftPile pile(1200);
  tbWork* w = pile.w;
  tbProblem p = pile.bodyProblem();
  ASSERT_GE(p.n, TB_STEP_BODY_ROWS);
  tbSolverOpt o = tb_stepSolverOpt(pile.m);
  double scale = 0.0;
  for (int i = 0; i < p.n; i++) scale = std::fmax(scale, std::fabs(w->x[i]));
  for (int i = 0; i < p.n; i++) w->x[i] += 1e-9 * scale * ((i % 3) - 1);
  std::vector<double> x0(w->x, w->x + p.n);
  double start = 0.0;
  tbSolveResult cg, res;
  tb_solveBodyCG(tb_solo(), pile.m, w, &p, &o, &start, &cg);
  ASSERT_LE(start, TB_BODY_NEAR);
  ASSERT_GT(cg.residual, tb_exactTol(&o));
  std::copy(x0.begin(), x0.end(), w->x);
  ASSERT_EQ(tb_solveBodyFirst(tb_solo(), pile.m, w, &p, &o, &res), 0);
  EXPECT_LE(res.residual, tb_exactTol(&o));
  EXPECT_NEAR(wholeResidual(pile, w->x), res.residual, 1e-14);
}

// the pile at its defaults (regularized contacts, auto with 3000 iterations) converges on every
// step and settles inside its box: every sphere between the walls and on the floor or others,
// at rest after 3 s (the rigid pile on PGS stays unconverged on most steps: README, Many bodies),
// with every contact within the capacity of 9 a sphere and no scene failed. At rest the
// regularization's pull toward the last impulse is spent: no sphere sinks into the floor
TEST(SpherePileTest, ConvergesAndSettlesInsideItsBox) {
  Scene pile("sphere-pile", 1);
  ASSERT_EQ(pile.m->opt.maxcon, 9 * 27);
  ASSERT_EQ(pile.m->opt.solver, TB_SOLVER_AUTO);
  pile.reset();
  pile.run(1500);
  EXPECT_EQ(pile.d->status[0], 0) << "failed or unconverged: max residual " << pile.d->resid_max[0];
  EXPECT_LE(pile.d->resid_max[0], pile.m->opt.tol);
  EXPECT_GT(pile.d->ncon[0], 27);  // each sphere on something
  int first = tb_findBody(pile.m, "sphere0");
  double vmax = 0.0, zmin = 1.0;
  for (int k = 0; k < 27; k++) {
    const double* p = pile.d->body_pos + 3 * (first + k);
    const double* v = pile.d->body_vel + 6 * (first + k);
    EXPECT_LE(std::fabs(p[0]), 0.2 - 0.05 + 1e-9) << k;
    EXPECT_LE(std::fabs(p[1]), 0.2 - 0.05 + 1e-9) << k;
    zmin = std::fmin(zmin, p[2]);
    for (int c = 0; c < 6; c++) vmax = std::fmax(vmax, std::fabs(v[c]));
  }
  EXPECT_LT(vmax, 1e-8);  // seen 3e-12
  EXPECT_NEAR(zmin, 0.05, 1e-9);
}

}  // namespace

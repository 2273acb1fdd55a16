// The step's Newton solves in phases over a batch (host/gpu/newton_phased.h), run here by a CPU
// backend as the GPU runs them: with each linear system solved in place the phased rollout is
// bitwise the fused one, for every LM solver, with records and a probe; with the systems solved
// by a batched library (LAPACK here, whose dpotrf/dpotrs and dgels conventions cuSOLVER's and
// cuBLAS's batched routines share: column-major, info per matrix) it is the fused rollout up to
// the factorizations' rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#ifdef TUMBLE_HAVE_LAPACKE
#include <lapacke.h>
#endif

#include <tumble/estimate.h>

#include "gpu/newton_phased.h"
#include "test_util.h"
#include "rollout/rollout.h"

namespace {

enum Solve { kInPlace, kLapack };

// the tests' backend: every phase a loop over the scenes of the batch
struct CpuPhases {
  const tbModel* m;
  tbData* d;
  tbRecord* rec;
  const tbProbe* probe;
  int nstep;
  Solve solve;
  tbScratch* sc = nullptr;
  std::vector<tbPhased> ph;
  std::vector<double> A, rhs;
  std::vector<int> info;
  int cap = 0, kind = 0;
  int largest = 0;  // the largest system any iteration gave
  int solved = 0;   // systems the library solved

  CpuPhases(const tbModel* model, tbData* data, tbRecord* r, const tbProbe* p, int n, Solve s)
      : m(model), d(data), rec(r), probe(p), nstep(n), solve(s), ph(data->nscene) {
    sc = tb_newScratch(m, d->nscene);
    cap = tb_lmCapacity(m);
    kind = tb_lmLibrarySystem(m->opt.solver);
    A.resize(tb_lmSystemWords(cap) * d->nscene);
    rhs.resize(tb_lmRhsWords(cap) * d->nscene);
    info.resize(d->nscene);
  }
  ~CpuPhases() { tb_freeScratch(sc); }

  double* sysA(int s) { return A.data() + tb_lmSystemWords(cap) * s; }
  double* sysB(int s) { return rhs.data() + tb_lmRhsWords(cap) * s; }

  // the library's solve of scene s's system of n unknowns: its info
  int library(int s, int n) {
#ifdef TUMBLE_HAVE_LAPACKE
    if (kind == TB_LM_SYS_CHOL) {
      int rc = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, sysA(s), n);
      if (rc == 0) LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, 1, sysA(s), n, sysB(s), n);
      return rc;
    }
    return LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', 2 * n, n, 1, sysA(s), 2 * n, sysB(s), 2 * n);
#else
    (void)s;
    (void)n;
    ADD_FAILURE() << "built without LAPACKE";
    return -1;
#endif
  }

  // the scene's system goes to the library (as on the GPU: tb_lmByLibrary)
  bool byLibrary(const tbPhased* p) const {
    return solve == kLapack && p->solving && tb_lmByLibrary(kind, p->ls.s.n);
  }

  int run(int phase, int k, int* out) {
    int n = d->nscene;
    for (int s = 0; s < n; s++) {
      tbPhased* p = &ph[s];
      switch (phase) {
        case TB_PHASE_BEGIN:
          tb_phasedBegin(m, d, s, nstep, rec, probe, sc, s, p);
          break;
        case TB_PHASE_STEP_BEGIN:
          tb_phasedStepBegin(m, p);
          break;
        case TB_PHASE_PRE:
          if (s == 0) *out = 0;
          *out = std::max(*out, tb_phasedPre(m, p));
          largest = std::max(largest, *out);
          break;
        case TB_PHASE_SOLVE:
          if (!byLibrary(p)) break;
          tb_lmSystemOut(&p->ls.s, &p->ls.it, kind, sysA(s), sysB(s));
          info[s] = library(s, p->ls.s.n);
          solved++;
          break;
        case TB_PHASE_POST:
          if (!byLibrary(p)) {
            tb_phasedSolvePost(m, p);
          } else {
            int ok = tb_lmSystemIn(&p->ls.s, &p->ls.it, sysA(s), sysB(s), info[s]) == 0;
            tb_phasedPost(m, p, ok);
          }
          break;
        case TB_PHASE_STEP_END:
          tb_phasedStepEnd(m, s, k, nstep, rec, probe, p);
          break;
        default:
          tb_phasedEnd(d, s, probe, p);
          break;
      }
    }
    return TB_OK;
  }

  static int Run(void* ctx, int phase, int k, int /*largest*/, int* out) {
    return static_cast<CpuPhases*>(ctx)->run(phase, k, out);
  }
};

// a box stack's every 10th step recorded, and its bodies observed through the probe
struct Observed {
  tbRecord rec = {};
  std::vector<double> state, time, obs;
  std::vector<int> step, obs_step = {0, 1, 17, 40};
  tbObsCoord coord[TB_MAXOBSCOORD];
  tbProbe probe = {};
  Observed(const tbModel* m, int n, int nstep) {
    rec.every = 10;
    rec.nrecord = tb_recordCount(nstep, rec.every);
    state.resize((size_t)n * rec.nrecord * m->nbody * 13);
    time.resize((size_t)n * rec.nrecord);
    step.resize(rec.nrecord);
    rec.state = state.data();
    rec.time = time.data();
    rec.step = step.data();
    probe.kind = TB_PROBE_OBS;
    probe.nrow = (int)obs_step.size();
    probe.ncol = tb_obsCoords(m, coord, TB_MAXOBSCOORD);
    probe.step = obs_step.data();
    probe.coord = coord;
    obs.resize((size_t)n * probe.nrow * probe.ncol);
    probe.obs = obs.data();
  }
};

const int kScenes = 5, kSteps = 40;

// `scene` (box-stack) scenes (jittered) with `solver`, fused and phased, for nstep steps
struct Pair {
  Scene fused, phased;
  Observed of, op;
  int largest = 0, solved = 0;
  Pair(int solver, Solve solve, double tol = 0.0, const char* scene = "box-stack",
       int nstep = kSteps)
      : fused(scene, kScenes, {}, solverCone(solver), 4),
        phased(scene, kScenes, {}, solverCone(solver), 4),
        of(fused.m, kScenes, nstep),
        op(phased.m, kScenes, nstep) {
    for (Scene* sc : {&fused, &phased}) {
      sc->m->opt.solver = solver;
      if (tol > 0.0) sc->m->opt.tol = tol;
      jitterParams(*sc, 11);
    }
    EXPECT_EQ(tb_rolloutProbe(fused.m, fused.d, 0, kScenes, nstep, &of.rec, &of.probe), TB_OK)
        << tb_lastError();
    tb_recordSteps(nstep, &op.rec);
    CpuPhases cpu(phased.m, phased.d, &op.rec, &op.probe, nstep, solve);
    tbPhasedOps ops = {&cpu, CpuPhases::Run};
    EXPECT_EQ(tb_phasedRollout(&ops, nstep), TB_OK);
    largest = cpu.largest;
    solved = cpu.solved;
  }
};

const int kLmSolvers[] = {TB_SOLVER_MNCP_RLM, TB_SOLVER_MNCP_PLM, TB_SOLVER_NCP_DOGLEG,
                          TB_SOLVER_MLCP_FB_RLM, TB_SOLVER_MLCP_FB_PLM};

TEST(NewtonBatchTest, PhasesWithSystemsSolvedInPlaceAreBitwiseTheFusedRollout) {
  for (int solver : kLmSolvers) {
    Pair r(solver, kInPlace);
    const char* name = tb_solverName(solver);
    EXPECT_EQ(firstDifference(r.fused.d, r.phased.d), "") << name;
    EXPECT_EQ(std::memcmp(r.of.state.data(), r.op.state.data(), sizeof(double) * r.of.state.size()),
              0)
        << name;
    EXPECT_EQ(std::memcmp(r.of.obs.data(), r.op.obs.data(), sizeof(double) * r.of.obs.size()), 0)
        << name;
    EXPECT_GT(r.largest, 0) << name << ": no iteration solved a system";
    for (int s = 0; s < kScenes; s++) {
      EXPECT_EQ(r.fused.d->status[s] & TB_SCENE_FAILMASK, 0) << name << " scene " << s;
    }
  }
}

// the chain's free swing has steps without rows (nothing to solve) and its first floor strike
// (near step 157) one that Newton restitution would make gain energy, re-solved plastic in place
// (tb_plasticRetry): both as the fused step takes them
TEST(NewtonBatchTest, EmptyStepsAndPlasticRetriesArePhasedBitwise) {
  Pair r(TB_SOLVER_MNCP_RLM, kInPlace, 0.0, "chain-wall", 200);
  EXPECT_EQ(firstDifference(r.fused.d, r.phased.d), "");
  EXPECT_EQ(std::memcmp(r.of.state.data(), r.op.state.data(), sizeof(double) * r.of.state.size()),
            0);
  EXPECT_GT(r.largest, 0);
  for (int s = 0; s < kScenes; s++) {
    EXPECT_EQ(r.fused.d->status[s], 0) << "scene " << s;
    EXPECT_GT(r.fused.d->iter_sum[s], 0) << "scene " << s << ": no strike";
  }
}

#ifdef TUMBLE_HAVE_LAPACKE
// a library's factorizations round differently from dense.h's, and the difference goes through
// the iterations (each stops where its residual first meets tol) and the steps; with tol 1e-10
// every state of a settling stack stays within 1e-9 m (m/s) of the fused rollout's (seen: 2e-15
// for RLM and the dogleg, 4e-12 for PLM's least squares, 3e-13 and 2e-12 for MLCP-FB), and
// every scene ends with the same status
TEST(NewtonBatchTest, PhasesWithALibrarysSolvesAreTheFusedRolloutToRounding) {
  for (int solver : kLmSolvers) {
    Pair r(solver, kLapack, 1e-10);
    const char* name = tb_solverName(solver);
    double worst = 0.0;
    for (size_t i = 0; i < r.of.state.size(); i++) {
      worst = std::max(worst, std::fabs(r.of.state[i] - r.op.state[i]));
    }
    EXPECT_LT(worst, 1e-9) << name;
    for (int s = 0; s < kScenes; s++) {
      EXPECT_EQ(r.fused.d->status[s], r.phased.d->status[s]) << name << " scene " << s;
      EXPECT_EQ(r.fused.d->nstep[s], r.phased.d->nstep[s]) << name;
    }
    // (mlcp-fb-plm's 72 unknowns are least squares above TB_LM_LIBRARY_QR_MAX: solved in place)
    int kind = tb_lmLibrarySystem(solver);
    EXPECT_EQ(r.solved > 0, tb_lmByLibrary(kind, r.largest)) << name << ": " << r.solved;
  }
}
#endif

TEST(NewtonBatchTest, TheLmSolversTakeThePhasedPathFromTheirSize) {
  Scene sc("box-stack", 1);
  sc.m->opt.solver = TB_SOLVER_PGS;
  EXPECT_FALSE(tb_phasedModel(sc.m, 1)) << "PGS has no linear systems";
  sc.m->opt.solver = TB_SOLVER_AUTO;
  EXPECT_FALSE(tb_phasedModel(sc.m, 1)) << "auto's Newton stages stay in its rounds";
  sc.m->opt.solver = TB_SOLVER_SOC_FB_PLM;
  EXPECT_FALSE(tb_phasedModel(sc.m, 1)) << "its LU directions are solved in the kernel";
  sc.m->opt.solver = TB_SOLVER_MNCP_PLM;
  EXPECT_TRUE(tb_phasedModel(sc.m, tb_lmCapacity(sc.m)));
  EXPECT_FALSE(tb_phasedModel(sc.m, tb_lmCapacity(sc.m) + 1));
  EXPECT_FALSE(tb_phasedModel(sc.m, 0));
}

}  // namespace

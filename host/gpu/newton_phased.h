// The step's Newton solve in phases over a batch of scenes, its linear systems solved together.
//
// The fused rollout (stage_step.h) runs a scene's whole step in one thread, the LM solvers'
// dense factorizations included (dense.h: O(n^3) per iteration on one thread). Above a size the
// GPU hands these systems to the batched library factorizations instead (cuSOLVER's
// potrfBatched and potrsBatched for the damped normal equations of RLM and the dogleg, cuBLAS's
// gelsBatched for the seed's PLM least squares), which need every scene of a chunk at the same
// point: so the rollout is split around each iteration's linear system, and a launch advances
// every scene of the chunk by one phase:
//
//   begin       load the scene (tb_rolloutLoad)
//   per step:   step begin  prepare, contacts, rows, Delassus, warm start, the LM start
//               { pre       an iteration up to its system (tb_lmPre): its size, 0 when stopped
//                 [each system written at its own size (tb_lmSystemOut), the systems of each
//                  size solved together by the library, read back (tb_lmSystemIn)]
//                 post      the iteration's rest (tb_lmPost) }   while any scene iterates
//               step end    the LM finish, v+ and q+, records and probes
//   end         store the scene (tb_rolloutStore)
//
// Every phase is the fused path's per-scene code, so with each system solved in place
// (tb_lmSystemSolve) the phases are bitwise the fused rollout, and with a library's solves they
// differ by its factorization's rounding only (tests/newton_batch_test.cc: both, the library a
// LAPACK standing in for cuBLAS and cuSOLVER, whose batched routines share its conventions).
#ifndef TUMBLE_HOST_NEWTON_BATCH_H_
#define TUMBLE_HOST_NEWTON_BATCH_H_

#include "engine/stage_step.h"

// a scene's phased rollout between two launches
typedef struct tbPhased {
  tbWork w;           // the scene's slot view, and its step's values
  tbProblem p;        // the step's problem (the solver's equation points here)
  tbLmSolve ls;       // the solver's equation and driver
  tbSolveResult res;  // the step's solve
  tbRolloutState rs;  // records and probe
  int finish;         // the step's solve began: its finish is due
  int iterated;       // the driver iterated: its end is due
  int solving;        // the driver has iterations to go
} tbPhased;

// the largest linear system a step of model m can give its LM solver: the rows (the MNCP), or the
// unknowns of the LCP form (MLCP-FB; tb_solverWorkSize's bound)
TB_HD int tb_lmCapacity(const tbModel* m) {
  int n = (int)tb_cap(m->maxrow);
  if (m->opt.solver != TB_SOLVER_MLCP_FB_RLM && m->opt.solver != TB_SOLVER_MLCP_FB_PLM) return n;
  return n + tb_contactCapacity(m) * (m->opt.facets > 2 ? m->opt.facets : 2);
}

// the library system an LM solver's iterations give: TB_LM_SYS_CHOL or TB_LM_SYS_QR, or
// TB_LM_SYS_NONE for soc-fb-plm's LU directions (the libraries' batched LU is not wired in: they
// stay in the kernel)
TB_HD int tb_lmLibrarySystem(int solver) {
  switch (tb_lmProjected(solver)) {
    case TB_LM_PROJECTED:
      return TB_LM_SYS_QR;
    case TB_LM_PROJECTED_LU:
      return TB_LM_SYS_NONE;
    default:
      return TB_LM_SYS_CHOL;
  }
}

// doubles of one scene's system in the library's buffers, for systems of up to cap unknowns
// (QR's 2 cap x cap stack is the largest), and of its right-hand side
TB_HD size_t tb_lmSystemWords(int cap) {
  return 2 * (size_t)cap * (size_t)cap;
}
TB_HD size_t tb_lmRhsWords(int cap) {
  return 2 * (size_t)cap;
}

//---- the systems in a library's layout ---------------------------------------------------------

// Which systems the library solves. cuBLAS's gelsBatched takes another algorithm for a small batch
// above 64 unknowns (GpuLibraryTest on an H200, 2026-11-26: a system of 65 to 128 solved alone
// differs in its last bits from the same system among 256), so there a system's bits would depend
// on how many scenes of its chunk share its size: such least squares are solved in the kernel
// (tb_lmSystemSolve, the fused path's QR). Cholesky is the same at every size tried (1 to 128).
#define TB_LM_LIBRARY_QR_MAX 64
TB_HD int tb_lmByLibrary(int kind, int n) {
  return kind == TB_LM_SYS_CHOL || n <= TB_LM_LIBRARY_QR_MAX;
}

// the iteration's system (kind TB_LM_SYS_CHOL or _QR) column-major, at its own size n (never
// padded to a batch's largest: how a library's routine rounds can depend on the matrix's size, so
// a scene's solve would depend on the scenes beside it):
//   CHOL  (J^T J + lambda I) (n x n), -g
//   QR    [J; sqrt(lambda) I] (2n x n), [-phi; 0]
TB_HD void tb_lmSystemOut(const tbLmState* s, const tbLmIter* it, int kind, double* A,
                          double* rhs) {
  int n = s->n;
  if (kind == TB_LM_SYS_CHOL) {
    const double* G = s->K;  // J^T J, where tb_lmLinearize left it
    for (int c = 0; c < n; c++) {
      for (int r = 0; r < n; r++) A[(size_t)c * n + r] = G[(size_t)r * n + c];
      A[(size_t)c * n + c] += it->lambda;
    }
    for (int r = 0; r < n; r++) rhs[r] = -s->g[r];
    return;
  }
  double sl = sqrt(it->lambda);
  for (int c = 0; c < n; c++) {
    double* col = A + (size_t)c * 2 * n;
    for (int r = 0; r < n; r++) col[r] = s->J[(size_t)r * n + c];
    for (int r = n; r < 2 * n; r++) col[r] = r == n + c ? sl : 0.0;
  }
  for (int r = 0; r < n; r++) {
    rhs[r] = -s->phi[r];
    rhs[n + r] = 0.0;
  }
}

// d from the library's solve of tb_lmSystemOut's system: rhs holds the solution, A the factors
// (CHOL: L in the lower triangle; QR: R in the upper), info the factorization's status (CHOL: 0
// when positive definite). 0, or -1 where tb_lmSystemSolve fails: not positive definite, a zero
// or non-finite diagonal entry of R, a direction that is not finite
TB_HD int tb_lmSystemIn(tbLmState* s, const tbLmIter* it, const double* A, const double* rhs,
                        int info) {
  int n = s->n, kind = it->system, rows = kind == TB_LM_SYS_QR ? 2 * n : n;
  if (kind == TB_LM_SYS_CHOL && info != 0) return -1;
  for (int i = 0; kind == TB_LM_SYS_QR && i < n; i++) {
    double r = fabs(A[(size_t)i * rows + i]);
    if (!(r > 0.0) || r > 1e300) return -1;
  }
  for (int i = 0; i < n; i++) {
    if (!isfinite(rhs[i])) return -1;
    s->d[i] = rhs[i];
  }
  return 0;
}

//---- a scene's phases --------------------------------------------------------------------------

TB_HD void tb_phasedBegin(const tbModel* m, const tbData* d, int s, int nstep, tbRecord* rec,
                          const tbProbe* probe, const tbScratch* sc, int slot, tbPhased* ph) {
  tb_workSlot(m, sc, slot, &ph->w);
  tb_rolloutLoad(m, d, s, nstep, rec, probe, &ph->w, &ph->rs);
}

// a step up to its solver's iterations: tb_step's stages before the solve, then the LM start
TB_HD void tb_phasedStepBegin(const tbModel* m, tbPhased* ph) {
  tbWork* w = &ph->w;
  tbData* one = &w->scene;
  ph->finish = ph->iterated = ph->solving = 0;
  if (tb_stepSetUp(tb_solo(), m, one, 0, w, NULL) == TB_SETUP_FAILED) return;
  ph->p = tb_problemOf(m, w);
  ph->finish = 1;
  if (tb_solvedEmpty(&ph->p, &ph->res)) return;
  if (tb_solveCheck(m->opt.solver, &ph->p, &w->solver_work) != TB_OK) {
    ph->finish = 0;
    tb_failScene(one, 0, TB_SCENE_SOLVER_FAIL);
    return;
  }
  tbSolverOpt so = tb_stepSolverOpt(m);
  tb_lmStart(&ph->p, &so, w->x, &w->solver_work, m->opt.solver, tb_lmProjected(m->opt.solver),
             &ph->ls, &ph->res);
  ph->solving = ph->iterated = !ph->ls.it.done;
}

// an iteration up to its linear system: the system's unknowns, 0 when the scene has none to solve
TB_HD int tb_phasedPre(const tbModel* m, tbPhased* ph) {
  if (!ph->solving) return 0;
  tbSolverOpt so = tb_stepSolverOpt(m);
  if (tb_lmPre(&ph->ls.c, &so, &ph->ls.s, &ph->ls.it, &ph->res) == TB_LM_SYS_NONE) {
    ph->solving = 0;
    return 0;
  }
  return ph->ls.s.n;
}

// the iteration's rest from its direction (ok 0: the system failed)
TB_HD void tb_phasedPost(const tbModel* m, tbPhased* ph, int ok) {
  if (!ph->solving) return;
  tbSolverOpt so = tb_stepSolverOpt(m);
  tb_lmPost(&ph->ls.c, &so, &ph->ls.s, &ph->ls.it, &ph->res, ok);
  if (ph->ls.it.done) ph->solving = 0;
}

// the same with the system solved here
TB_HD void tb_phasedSolvePost(const tbModel* m, tbPhased* ph) {
  if (ph->solving) tb_phasedPost(m, ph, tb_lmSystemSolve(&ph->ls.s, &ph->ls.it) == 0);
}

// the step's end (the solve's finish and tb_step's stages after it), then step k's observation
TB_HD void tb_phasedStepEnd(const tbModel* m, int s, int k, int nstep, tbRecord* rec,
                            const tbProbe* probe, tbPhased* ph) {
  tbWork* w = &ph->w;
  if (ph->finish) {
    int rc = 0;
    if (ph->p.n > 0) {
      if (ph->iterated) tb_lmEnd(&ph->ls.s, &ph->ls.it);
      tbSolverOpt so = tb_stepSolverOpt(m);
      tb_lmFinish(&ph->p, &so, w->x, &w->solver_work, &ph->ls, &ph->res);
      rc = tb_plasticRetry(tb_solo(), m, w, &ph->res);  // the rare re-solve in place
    }
    tb_stepEnd(m, &w->scene, 0, w, rc, &ph->res);
  }
  tb_rolloutObserve(m, &w->scene, s, k, nstep, rec, probe, w, &ph->rs);
}

TB_HD void tb_phasedEnd(tbData* d, int s, const tbProbe* probe, tbPhased* ph) {
  tb_rolloutStore(d, s, probe, &ph->w, &ph->rs);
}

//---- the loop over the phases ------------------------------------------------------------------

enum {
  TB_PHASE_BEGIN = 0,
  TB_PHASE_STEP_BEGIN,
  TB_PHASE_PRE,    // and the largest system's unknowns (0: no scene iterates)
  TB_PHASE_SOLVE,  // the systems, by the library (or in place, within TB_PHASE_POST), up to the
                   // largest
  TB_PHASE_POST,
  TB_PHASE_STEP_END,
  TB_PHASE_END,
};

// A backend runs one phase over every scene of a chunk: the GPU's kernels and library calls
// (kernels/rollout.cu), or the CPU's loop in the tests.
typedef struct tbPhasedOps {
  void* ctx;
  // phase over every scene, at step k (TB_PHASE_STEP_*) with systems of up to largest unknowns
  // (TB_PHASE_SOLVE, _POST); TB_PHASE_PRE sets *largest. TB_OK or an error (set)
  int (*run)(void* ctx, int phase, int k, int largest, int* out);
} tbPhasedOps;

#ifdef __cplusplus
extern "C" {
#endif

// nstep steps of a chunk through the phases
int tb_phasedRollout(const tbPhasedOps* ops, int nstep);

// 1 when model m's steps take the phased path: an LM solver whose systems reach min_rows (0:
// never)
int tb_phasedModel(const tbModel* m, int min_rows);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_NEWTON_BATCH_H_

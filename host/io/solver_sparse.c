// soc-fb-plm with sparse directions, for the problem files (tumble_io: SuiteSparse's KLU).
//
// A large problem file's W is mostly zero (Capsules: 1.6% of 858^2), and so is the SOC-FB
// Jacobian J = Jx + Ju W: a block's rows hold the columns of its rows' runs and its own. There
// the dense iteration spends its time in the LU (2.8 ms of 3.6 at 858 rows) and in forming J
// (1.2 ms); KLU refactors J on the pattern it analyzed once in 0.08 ms, and J is formed on the
// pattern alone. The rest is the dense driver's (solver_lm.h's PLM: its non-monotone line
// search, watchdog and stops), fed these directions: J d = -phi by KLU, refactored on the first
// factorization's pivots while its reciprocal condition estimate stays above TB_PLM_LU_PIVOT,
// else factored afresh; where that fails, (J - sigma I) d = -phi with PLM's shift; where that
// fails too, steepest descent. auto's SOC-FB stages on a file take these directions where
// soc-fb-plm by name would (tb_solveFile lends them: tbSolverOpt.soc_newton).
#include <klu.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/reader.h>

#include "util/error.h"
#include "solver/solver.h"
#include "solver/residual.h"
#include "solver/solver_need.h"

// the sparse directions from this many rows on, where W's runs hold at most this share of it.
// soc-fb-plm from zero, KLU against the dense LU (2 cores, best of 3): 3.5-5x on Box_Stacks
// (246 rows, 3.3% of W), both Capsules (675, 858 rows, 2.0%, 1.6%); 1.7-4.3x on pile steps
// (177-234 rows, 9-11%); 2.4x on Confeti-ex03 (162, 4.9%); 0.46x on BoxesStack1 (156, 22%) and
// 0.79x on OneObject (69, 29%)
#define TB_SPARSE_NEWTON_MIN 64
#define TB_SPARSE_NEWTON_FILL 0.15

// J's pattern in compressed columns, and where each block row's entries sit in it
typedef struct tbSparseJ {
  int n;
  int *Ap, *Ai;      // (n + 1), (nnz)
  double* Ax;        // (nnz)
  int* blk_col_adr;  // (nblock + 1): block k's columns are blk_col[blk_col_adr[k] ..]
  int* blk_col;
  int* row_slot;      // per row: its entries' places in Ax, in its block's column order
  int* row_slot_adr;  // (n + 1)
  int* diag;          // (n) each row's diagonal entry's place in Ax
  klu_symbolic* sym;
  klu_numeric* num;
  klu_common common;
} tbSparseJ;

static int tb_cmpInt(const void* a, const void* b) {
  return *(const int*)a - *(const int*)b;
}

static void tb_freeSparseJ(tbSparseJ* sj) {
  if (sj->num) klu_free_numeric(&sj->num, &sj->common);
  if (sj->sym) klu_free_symbolic(&sj->sym, &sj->common);
  free(sj->Ap);
  free(sj->Ai);
  free(sj->Ax);
  free(sj->blk_col_adr);
  free(sj->blk_col);
  free(sj->row_slot);
  free(sj->row_slot_adr);
  free(sj->diag);
}

// each block's column set, sorted: the union of its rows' runs and its own columns, into
// blk_col / blk_col_adr, and each column's entry count into Ap[c + 1]; 0, or -1 out of memory
static int tb_blockColumns(const tbProblem* p, tbSparseJ* sj, int* mark, int* list) {
  const tbRuns* rn = p->runs;
  size_t total = 0, cap = 0;
  for (int k = 0; k < p->nblock; k++) {  // mark[c] == k + 1: column c already in block k's set
    int i = p->blk_adr[k], dim = p->blk_dim[k], len = 0;
    for (int r = i; r < i + dim; r++) {
      if (mark[r] != k + 1) mark[r] = k + 1, list[len++] = r;
      for (int q = rn->row_adr[r]; q < rn->row_adr[r + 1]; q++) {
        for (int c = rn->row_run[2 * q]; c < rn->row_run[2 * q + 1]; c++) {
          if (mark[c] != k + 1) mark[c] = k + 1, list[len++] = c;
        }
      }
    }
    qsort(list, len, sizeof(int), tb_cmpInt);
    if (total + len > cap) {
      cap = 2 * (total + len);
      int* grown = (int*)realloc(sj->blk_col, cap * sizeof(int));
      if (!grown) return -1;
      sj->blk_col = grown;
    }
    sj->blk_col_adr[k] = (int)total;
    memcpy(sj->blk_col + total, list, len * sizeof(int));
    total += len;
    for (int j = 0; j < len; j++) sj->Ap[list[j] + 1] += dim;
  }
  sj->blk_col_adr[p->nblock] = (int)total;
  return 0;
}

// the compressed columns from the counts: rows in increasing order, so each column's come out
// sorted; each row's places in Ax and its diagonal's. next: n ints of scratch. 0, or -1 out of
// memory
static int tb_compressColumns(const tbProblem* p, tbSparseJ* sj, int* next) {
  int n = p->n;
  for (int c = 0; c < n; c++) sj->Ap[c + 1] += sj->Ap[c];
  int nnz = sj->Ap[n], at = 0;
  sj->Ai = (int*)malloc(nnz * sizeof(int));
  sj->Ax = (double*)calloc(nnz, sizeof(double));
  sj->row_slot = (int*)malloc(nnz * sizeof(int));
  if (!sj->Ai || !sj->Ax || !sj->row_slot) return -1;
  memcpy(next, sj->Ap, n * sizeof(int));
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], dim = p->blk_dim[k];
    const int* cols = sj->blk_col + sj->blk_col_adr[k];
    int len = sj->blk_col_adr[k + 1] - sj->blk_col_adr[k];
    for (int r = i; r < i + dim; r++) {
      sj->row_slot_adr[r] = at;
      for (int j = 0; j < len; j++) {
        int slot = next[cols[j]]++;
        sj->Ai[slot] = r;
        sj->row_slot[at++] = slot;
        if (cols[j] == r) sj->diag[r] = slot;
      }
    }
  }
  sj->row_slot_adr[n] = at;
  return 0;
}

// J's pattern (the blocks' column sets, compressed) and KLU's analysis of it; 0, or -1 out of
// memory
static int tb_sparsePattern(const tbProblem* p, tbSparseJ* sj) {
  int n = p->n;
  sj->n = n;
  int* mark = (int*)calloc(n, sizeof(int));
  int* list = (int*)malloc(n * sizeof(int));
  sj->blk_col_adr = (int*)malloc((p->nblock + 1) * sizeof(int));
  sj->Ap = (int*)calloc(n + 1, sizeof(int));
  sj->row_slot_adr = (int*)malloc((n + 1) * sizeof(int));
  sj->diag = (int*)malloc(n * sizeof(int));
  int rc = !mark || !list || !sj->blk_col_adr || !sj->Ap || !sj->row_slot_adr || !sj->diag ||
                   tb_blockColumns(p, sj, mark, list) || tb_compressColumns(p, sj, mark)
               ? -1
               : 0;
  free(mark);
  free(list);
  if (rc) return -1;
  klu_defaults(&sj->common);
  sj->sym = klu_analyze(n, sj->Ap, sj->Ai, &sj->common);
  return sj->sym ? 0 : -1;
}

// J's values at y (c->xs, c->us set there by tb_lmPoint) and g = J^T phi
static void tb_sparseJacobian(const tbLm* c, const tbLmState* s, tbSparseJ* sj) {
  const tbProblem* p = c->p;
  int n = p->n;
  tb_lmPoint(c, s->y);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], dim = p->blk_dim[k];
    const int* cols = sj->blk_col + sj->blk_col_adr[k];
    int len = sj->blk_col_adr[k + 1] - sj->blk_col_adr[k];
    double phi[3], Jx[9], Ju[9];
    tb_socFbBlock(c, k, phi, Jx, Ju);
    for (int a = 0; a < dim; a++) {
      const int* slot = sj->row_slot + sj->row_slot_adr[i + a];
      for (int j = 0; j < len; j++) {
        int col = cols[j];
        double v = col >= i && col < i + dim ? Jx[a * dim + col - i] : 0.0;
        for (int l = 0; l < dim; l++) {
          v += Ju[a * dim + l] * (tb_entry(p, i + l, col) + (col == i + l ? c->cfm : 0.0));
        }
        sj->Ax[slot[j]] = v;
      }
    }
  }
  for (int col = 0; col < n; col++) {
    double g = 0.0;
    for (int q = sj->Ap[col]; q < sj->Ap[col + 1]; q++) g += sj->Ax[q] * s->phi[sj->Ai[q]];
    s->g[col] = g;
  }
}

// a factorization of J whose condition estimate passes PLM's pivot test, refactored on the
// last pivots where they still serve: 0, or -1
static int tb_sparseFactor(tbSparseJ* sj) {
  if (sj->num && klu_refactor(sj->Ap, sj->Ai, sj->Ax, sj->sym, sj->num, &sj->common) &&
      klu_rcond(sj->sym, sj->num, &sj->common) && sj->common.rcond > TB_PLM_LU_PIVOT) {
    return 0;
  }
  if (sj->num) klu_free_numeric(&sj->num, &sj->common);
  sj->num = klu_factor(sj->Ap, sj->Ai, sj->Ax, sj->sym, &sj->common);
  if (!sj->num) return -1;
  return klu_rcond(sj->sym, sj->num, &sj->common) && sj->common.rcond > TB_PLM_LU_PIVOT ? 0 : -1;
}

// d = -J^-1 phi where J (or J - sigma I) factors well; else -g
static void tb_sparseDirection(tbLmState* s, tbSparseJ* sj) {
  int n = sj->n, ok = tb_sparseFactor(sj) == 0;
  if (!ok) {
    double cmax = 0.0;
    for (int col = 0; col < n; col++) {
      double sum = 0.0;
      for (int q = sj->Ap[col]; q < sj->Ap[col + 1]; q++) sum += sj->Ax[q] * sj->Ax[q];
      cmax = fmax(cmax, sum);
    }
    double shift = tb_plmShiftOf(cmax);
    for (int r = 0; r < n; r++) sj->Ax[sj->diag[r]] -= shift;
    ok = tb_sparseFactor(sj) == 0;
  }
  for (int i = 0; i < n; i++) s->d[i] = ok ? -s->phi[i] : -s->g[i];
  if (ok && !klu_solve(sj->sym, sj->num, n, 1, s->d, &sj->common)) ok = 0;
  for (int i = 0; ok && i < n; i++) ok = isfinite(s->d[i]);
  if (!ok) {
    for (int i = 0; i < n; i++) s->d[i] = -s->g[i];
  }
}

// J's pattern for p and the SOC-FB equation at cfm with the driver's vectors on *d (malloc'd;
// the caller frees it and sj); -1 out of memory, with nothing left to free
static int tb_sparseSetUp(const tbProblem* p, double cfm, tbSparseJ* sj, double** d, tbLm* c,
                          tbLmState* s) {
  memset(sj, 0, sizeof(*sj));
  *d = (double*)malloc((size_t)(3 + TB_LM_VECTORS) * p->n * sizeof(double));
  if (!*d || tb_sparsePattern(p, sj)) {
    free(*d);
    tb_freeSparseJ(sj);
    return -1;
  }
  tb_lmCarveVectors(s, p->n, tb_lmEquation(TB_LM_SOC_FB, p, cfm, *d, c));
  return 0;
}

// soc-fb-plm on p with the sparse directions: tb_solve's contract; -1 without p->runs or out of
// memory, x untouched
static int tb_solveSocFbSparse(const tbProblem* p, const tbSolverOpt* opt, double* x,
                               tbSolveResult* res) {
  if (!p->runs) return -1;
  int n = p->n;
  tbSparseJ sj;
  tbLmSolve ls;
  double* d;
  memset(res, 0, sizeof(*res));
  if (tb_sparseSetUp(p, opt->cfm, &sj, &d, &ls.c, &ls.s)) return -1;
  memcpy(ls.s.y, x, n * sizeof(double));
  tb_lmBegin(&ls.c, opt, &ls.s, TB_LM_PLM, &ls.it, res);
  // tb_lmPre's stops; the iteration's system is J's, solved here
  while (!ls.it.done && ls.it.it < opt->max_iter && !tb_outOfTime(opt, res)) {
    res->iterations = ++ls.it.it;
    ls.it.system = TB_LM_SYS_LU;
    tb_sparseJacobian(&ls.c, &ls.s, &sj);
    tb_sparseDirection(&ls.s, &sj);
    tb_lmPost(&ls.c, opt, &ls.s, &ls.it, res, 1);
  }
  tb_lmEnd(&ls.s, &ls.it);
  tbSolverWork w = {d, (size_t)n, NULL, 0};  // tb_lmFinish's n doubles of scratch
  tb_lmFinish(p, opt, x, &w, &ls, res);
  tb_freeSparseJ(&sj);
  free(d);
  return 0;
}

// the share of W its runs hold
static double tb_runFill(const tbProblem* p) {
  const tbRuns* r = p->runs;
  double entries = 0.0;
  for (int q = 0; q < r->row_adr[p->n]; q++) entries += r->row_run[2 * q + 1] - r->row_run[2 * q];
  return entries / ((double)p->n * p->n);
}

// 1 where soc-fb-plm takes the sparse directions on p
static int tb_sparseSocFits(const tbProblem* p) {
  return p->runs && p->n >= TB_SPARSE_NEWTON_MIN && tb_solverApplies(TB_SOLVER_SOC_FB_PLM, p) &&
         tb_runFill(p) <= TB_SPARSE_NEWTON_FILL;
}

int tb_sparseNewton(int solver, const tbProblem* p) {
  int chosen = solver == TB_SOLVER_SOC_FB_PLM ||
               (solver == TB_SOLVER_AUTO && (p->n > TB_AUTO_DENSE_MAX || !p->A));
  return chosen && tb_sparseSocFits(p);
}

int tb_fileSolverRuns(int solver, const tbProblem* p) {
  return p->A || solver == TB_SOLVER_PGS || solver == TB_SOLVER_AUTO || tb_sparseNewton(solver, p);
}

// after a second run (x2, r2) from the first's start, the better answer into (x, res), ties to
// the second, with both runs' iterations and seconds
static void tb_keepBetter(int n, const double* x2, const tbSolveResult* r2, double* x,
                          tbSolveResult* res) {
  int iterations = res->iterations + r2->iterations;
  double seconds = res->seconds + r2->seconds;
  if (r2->residual <= res->residual) {
    memcpy(x, x2, (size_t)n * sizeof(double));
    *res = *r2;
  }
  res->iterations = iterations;
  res->seconds = seconds;
}

// auto with the sparse directions lent (opt), and where that ends unsolved auto's own stages
// from the same start too, the better answer kept: the two factorizations' round-off leads a
// degenerate step's iterations apart, either way (a resting pile's step that auto alone solved
// in 545 iterations ended at 9e-8 after 3200 with the lent ones)
static int tb_solveLentOrOwn(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                             tbSolveResult* res) {
  int n = p->n;
  double* x0 = (double*)malloc((size_t)n * sizeof(double));
  if (!x0) return tb_setError("solver 'auto': out of memory");
  memcpy(x0, x, (size_t)n * sizeof(double));
  int rc = tb_solve(TB_SOLVER_AUTO, p, opt, x, w, res);
  if (rc == TB_OK && !res->converged) {
    tbSolverOpt own = *opt;
    own.soc_newton = NULL;
    tbSolveResult r;
    rc = tb_solve(TB_SOLVER_AUTO, p, &own, x0, w, &r);
    if (rc == TB_OK) tb_keepBetter(n, x0, &r, x, res);
  }
  free(x0);
  return rc;
}

int tb_solveFile(int solver, const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                 tbSolveResult* res) {
  // auto's SOC-FB stages (above TB_AUTO_FALLBACK_MAX rows, up to TB_AUTO_DENSE_MAX) take the
  // directions soc-fb-plm takes, and its convex fixed point runs where its stages end unsolved
  tbSolverOpt lent = *opt;
  if (solver == TB_SOLVER_AUTO && tb_sparseSocFits(p)) lent.soc_newton = tb_solveSocFbSparse;
  lent.fixed_point = solver == TB_SOLVER_AUTO;
  // where the runs alone hold W, auto's own stages are pgs (the others read W dense)
  int own = p->A ? TB_SOLVER_AUTO : TB_SOLVER_PGS;
  if (!tb_fileSolverRuns(solver, p)) return tb_needsDense(solver, p->n);
  if (!p->A && !tb_sparseNewton(solver, p)) return tb_solve(TB_SOLVER_PGS, p, &lent, x, w, res);
  if (!tb_sparseNewton(solver, p)) {
    return lent.soc_newton ? tb_solveLentOrOwn(p, &lent, x, w, res)
                           : tb_solve(solver, p, &lent, x, w, res);
  }
  double t0 = tb_clock();
  int n = p->n;
  double* x0 = (double*)malloc((size_t)n * sizeof(double));
  if (!x0) return tb_setError("solver '%s': out of memory", tb_solverName(solver));
  memcpy(x0, x, (size_t)n * sizeof(double));
  tbSolverOpt o = *opt;
  if (solver == TB_SOLVER_AUTO && o.max_iter > TB_AUTO_SOC_ITERS) o.max_iter = TB_AUTO_SOC_ITERS;
  int rc = tb_solveSocFbSparse(p, &o, x, res)
               ? tb_setError("solver '%s': out of memory", tb_solverName(solver))
               : TB_OK;
  if (rc == TB_OK && solver == TB_SOLVER_AUTO && !res->converged) {
    // auto's own stages from the same start; the better answer is kept
    tbSolveResult r;
    rc = tb_solve(own, p, &lent, x0, w, &r);
    if (rc == TB_OK) tb_keepBetter(n, x0, &r, x, res);
  }
  res->seconds = tb_clock() - t0;
  free(x0);
  return rc;
}

int tb_sparseTestJacobian(const tbProblem* p, const double* y, double* J) {
  int n = p->n;
  tbSparseJ sj;
  tbLm c;
  tbLmState s;
  double* d;
  if (tb_sparseSetUp(p, 0.0, &sj, &d, &c, &s)) return -1;
  memcpy(s.y, y, n * sizeof(double));
  tb_lmPhi(&c, s.y, s.phi);
  tb_sparseJacobian(&c, &s, &sj);
  for (size_t k = 0; k < (size_t)n * n; k++) J[k] = NAN;
  for (int col = 0; col < n; col++) {
    for (int q = sj.Ap[col]; q < sj.Ap[col + 1]; q++) J[(size_t)sj.Ai[q] * n + col] = sj.Ax[q];
  }
  tb_freeSparseJ(&sj);
  free(d);
  return 0;
}

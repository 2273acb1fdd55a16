// Projected Gauss-Seidel over the blocks of a tbProblem (both friction cones): the step solver
// of both backends.
//
// Each sweep visits the blocks in order and keeps u = A x + b current (a column update per
// changed impulse), so a sweep costs O(n^2) and the residual O(n):
//   box row:  x_i <- clamp(x_i - w u_i / A_ii, lo_i, hi_i)
//   contact:  x_n <- max(0, x_n - w u_n / A_nn), then
//             x_t <- P_F(mu x_n)(x_t - w rho u_t), rho = 2 / (l_min + l_max) of the tangent
//             block A_tt (Forg's optimal step; the exact block solve when A_tt is isotropic).
// A fixed point of the tangent update satisfies x_t = P(x_t - rho u_t) for a scalar rho, which
// is maximal dissipation (thesis Eq. 2.47) also when A_tt is anisotropic; solving the 2x2 block
// exactly and then projecting radially would not be.
#ifndef TUMBLE_HOST_STAGE_PGS_H_
#define TUMBLE_HOST_STAGE_PGS_H_

#include <math.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "math/team.h"
#include "solver/residual.h"

// tb_addColumn over column j's nonzero runs (row j's where A is symmetric)
TB_HD void tb_addColumnRuns(tbTeam t, const tbProblem* p, int sym, int j, double dx, double* u) {
  const int *adr = sym ? p->runs->row_adr : p->runs->col_adr,
            *run = sym ? p->runs->row_run : p->runs->col_run;
  size_t n = (size_t)p->n, stride = sym ? 1 : n;
  const double* a = sym ? p->A + (size_t)j * n : p->A + j;
  for (int r = adr[j]; r < adr[j + 1]; r++) {
    for (int i = run[2 * r] + t.lane; i < run[2 * r + 1]; i += t.size) u[i] += a[i * stride] * dx;
  }
}

// tb_addColumnRuns where the runs hold A's values packed: the column's runs are contiguous
TB_HD void tb_addColumnPacked(tbTeam t, const tbProblem* p, int j, double dx, double* u) {
  const tbRuns* R = p->runs;
  for (int r = R->col_adr[j]; r < R->col_adr[j + 1]; r++) {
    const double* a = R->col_val + R->col_off[r];
    int i0 = R->col_run[2 * r];
    for (int i = i0 + t.lane; i < R->col_run[2 * r + 1]; i += t.size) u[i] += a[i - i0] * dx;
  }
}

// u += A[:, j] dx (A need not be symmetric: LCPs from files are not, nor are the Rover FC3D
// files). Where A is exactly symmetric its row j holds the same numbers, added in the same
// order, read contiguously instead of with a stride of n doubles: on Box_Stacks (246 rows) PGS
// took 0.64 ms instead of 1.0 ms for the same 39 sweeps. Team t splits the entries.
TB_HD void tb_addColumn(tbTeam t, const tbProblem* p, int sym, int j, double dx, double* u) {
  if (dx == 0.0) return;
  int n = p->n;
  if (p->runs) {
    if (p->runs->col_val) {
      tb_addColumnPacked(t, p, j, dx, u);
    } else {
      tb_addColumnRuns(t, p, sym, j, dx, u);
    }
    return;
  }
  if (sym) {
    const double* a = p->A + (size_t)j * n;
    for (int i = t.lane; i < n; i += t.size) u[i] += a[i] * dx;
    return;
  }
  const double* a = p->A + j;
  for (int i = t.lane; i < n; i += t.size) u[i] += a[(size_t)i * n] * dx;
}

// whether A[i][j] == A[j][i] for j in [j0, j1)
TB_HD int tb_mirrored(const tbProblem* p, int i, int j0, int j1) {
  size_t n = (size_t)p->n;
  for (int j = j0; j < j1; j++) {
    if (!(p->A[i * n + j] == p->A[j * n + i])) return 0;
  }
  return 1;
}

// whether row i of p->A equals column i: right of the diagonal, or over the row's runs (a
// nonzero facing a zero is one of them, checked from the nonzero's row)
TB_HD int tb_rowMirrored(const tbProblem* p, int i) {
  if (!p->runs) return tb_mirrored(p, i, i + 1, p->n);
  const int* run = p->runs->row_run;
  for (int r = p->runs->row_adr[i]; r < p->runs->row_adr[i + 1]; r++) {
    if (!tb_mirrored(p, i, run[2 * r], run[2 * r + 1])) return 0;
  }
  return 1;
}

// 1 if p->A is exactly symmetric (PGS then reads rows instead of columns: the same numbers);
// 0 where the runs hold A's values packed (its columns' are as contiguous as its rows')
TB_HD int tb_pgsSymmetric(tbTeam t, const tbProblem* p) {
  if (p->runs && p->runs->col_val) return 0;
  int sym = 1;
  for (int i = t.lane; i < p->n && sym; i += t.size) sym = tb_rowMirrored(p, i);
  return tb_teamAll(t, sym);
}

// x[i] <- v and u += A[:, i] (v - x[i]) by team t, once every member has read x and u
TB_HD void tb_pgsSet(tbTeam t, const tbProblem* p, int sym, int i, double v, double* x, double* u) {
  double dx = v - x[i];
  tb_teamSync(t);
  if (t.lane == 0) x[i] = v;
  tb_addColumn(t, p, sym, i, dx, u);
  tb_teamSync(t);
}

TB_HD void tb_sweepBox(tbTeam t, const tbProblem* p, int sym, int i, double sor, double* x,
                       double* u) {
  double aii = tb_entry(p, i, i);
  if (!(aii > 0.0)) return;
  double v = x[i] - sor * u[i] / aii;
  tb_pgsSet(t, p, sym, i, tbu_clamp(v, p->lo[i], p->hi[i]), x, u);
}

// step size for ntan tangent rows whose block of A is (a b; b c) (ntan 1: a alone)
TB_HD double tb_tangentStepOf(int ntan, double a, double b, double c) {
  if (ntan == 1) return a > 0.0 ? 1.0 / a : 0.0;
  double mean = 0.5 * (a + c), dev = sqrt(0.25 * (a - c) * (a - c) + b * b);
  double lmax = mean + dev, lmin = mean - dev;
  return lmax > 0.0 ? 2.0 / (lmin + lmax) : 0.0;
}

// step size for the tangent rows of the contact whose normal row is i
TB_HD double tb_tangentStep(const tbProblem* p, int i, int ntan) {
  int t1 = i + 1;
  if (ntan == 1) return tb_tangentStepOf(1, tb_entry(p, t1, t1), 0.0, 0.0);
  return tb_tangentStepOf(2, tb_entry(p, t1, t1), tb_entry(p, t1, t1 + 1),
                          tb_entry(p, t1 + 1, t1 + 1));
}

TB_HD void tb_sweepContact(tbTeam t, const tbProblem* p, int sym, int k, double sor, double* x,
                           double* u) {
  int i = p->blk_adr[k], ntan = p->blk_dim[k] - 1;
  double ann = tb_entry(p, i, i);
  if (ann > 0.0) {
    double v = x[i] - sor * u[i] / ann;
    tb_pgsSet(t, p, sym, i, v > 0.0 ? v : 0.0, x, u);
  }
  if (ntan == 0) return;
  double rho = sor * tb_tangentStep(p, i, ntan);
  double y[2] = {x[i + 1] - rho * u[i + 1], ntan > 1 ? x[i + 2] - rho * u[i + 2] : 0.0};
  tbu_projFriction(y, ntan, p->blk_mu[k] * x[i], p->cone == 1, p->facets, p->blk_angle[k]);
  for (int j = 0; j < ntan; j++) tb_pgsSet(t, p, sym, i + 1 + j, y[j], x, u);
}

// one PGS sweep of x over the blocks in order, u = A x + b kept current (it must hold it on entry)
TB_HD void tb_pgsSweep(tbTeam t, const tbProblem* p, int sym, double sor, double* x, double* u) {
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] == TB_BLOCK_BOX) {
      tb_sweepBox(t, p, sym, p->blk_adr[k], sor, x, u);
    } else {
      tb_sweepContact(t, p, sym, k, sor, x, u);
    }
  }
}

// up to max_sweep PGS sweeps on x with u = A x + b kept current (u must hold it on entry); the
// running residual is evaluated after every `check`-th sweep and after the last, and the sweeps
// stop once it reaches tol (or is not finite). Returns the last residual evaluated (INFINITY if
// none), *sweeps done and *reason (tbtStop). sym: tb_pgsSymmetric(p). tb_solvePGS is check = 1.
// Team t shares every row's update; every member returns the same.
TB_HDN double tb_pgsSweeps(tbTeam t, const tbProblem* p, int sym, double sor, double tol,
                           int max_sweep, int check, double* x, double* u, int* sweeps,
                           int* reason) {
  double r = INFINITY;
  *sweeps = 0;
  *reason = TB_STOP_MAXITER;
  for (int it = 0; it < max_sweep; it++) {
    tb_pgsSweep(t, p, sym, sor, x, u);
    *sweeps = it + 1;
    if (*sweeps % check && *sweeps < max_sweep) continue;
    r = tb_residualFromVelocity(p, x, u);
    if (!isfinite(r)) {
      *reason = TB_STOP_NONFINITE;
      break;
    }
    if (r <= tol) {
      *reason = TB_STOP_CONVERGED;
      break;
    }
  }
  return r;
}

// the pgs solver (scratch: 2n doubles) run by team t; every member gets the result
TB_HDN void tb_solvePGS(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double* x,
                        tbSolverWork* w, tbSolveResult* res) {
  double* u = w->d;
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  if (p->n == 0) {
    res->converged = 1;
    res->residual = 0.0;
    res->reason = TB_STOP_CONVERGED;
    return;
  }
  tb_problemVelocityTeam(t, p, x, u);
  tb_pgsSweeps(t, p, tb_pgsSymmetric(t, p), opt->sor, opt->tol, opt->max_iter, 1, x, u,
               &res->iterations, &res->reason);
  // the reported residual is recomputed from scratch, never the running estimate
  tb_finishSolveTeam(t, p, opt, x, w->d + p->n, res);
}

#endif  // TUMBLE_HOST_STAGE_PGS_H_

// auto's first stage: the answer of a guessed active set by one Cholesky factorization.
//
// A step's warm start (the last step's impulses) usually says which contacts push and stick:
// a resting stack keeps every contact sticking for hundreds of steps. Given that guess, the
// problem is the linear system A_SS x_S = -(b_S + A_SF x_F) on the kept rows S (u = 0 there),
// the others F held at their bound or at zero, and its answer is exact when it meets every
// block's law, which the residual checks. Redundant contacts (a box's four coplanar corners)
// make A_SS singular: the factorization is of A_SS + shift I, with the shift near the square
// root of the round-off, where the tolerances sit (1e-8 in fp64, 1e-4 in fp32: the larger of
// the two; smaller shifts let round-off grow in A's null space by 1 / shift: one of 1e-12
// moved a resting cube's corner forces by 1e-4, in fp32 one of 1e-8 threw a block on the
// vibrating plate 2.5 cm off its fp64 path), and refinement sweeps on A_SS
// itself take the answer to the least-norm one (forces spread evenly over the corners) where
// the system is consistent; one sweep at least, so that the answer is as exact as Newton's
// (resting bodies stay put to 1e-12 m over hundreds of quasistatic steps). A contact sliding
// (its friction on the cone's edge) needs its direction, which a linear system does not give:
// then, where a contact is new, and wherever the answer misses the tolerance, the warm start
// goes on to auto's iterative stages unchanged (a cold start has no guess).
#ifndef TUMBLE_HOST_SOLVER_ACTIVE_H_
#define TUMBLE_HOST_SOLVER_ACTIVE_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/dense.h"
#include "solver/residual.h"

// the factorization's least shift, relative to A_SS's largest diagonal
#define TB_ACTIVE_SHIFT 1e-8
#define TB_ACTIVE_REFINE 2      // refinement sweeps on A_SS itself, at most (one at least)
#define TB_ACTIVE_INSIDE 0.999  // friction inside the cone by this margin is sticking

// whether contact block k of p sticks in x: pushing, with its friction inside the cone by a
// margin (1); off (0): no impulse and not approaching; -1 (no guess) when its friction is on
// the cone's edge (sliding) or it approaches without impulse (a new contact: an impact, which
// may bounce or slide; guessing those sticking cost the grasp study 4% in failed solves)
TB_HD int tb_activeContact(const tbProblem* p, int k, const double* x, const double* u) {
  int i = p->blk_adr[k], ntan = p->blk_dim[k] - 1;
  if (x[i] <= 0.0) return u[i] < 0.0 ? -1 : 0;
  double ft = 0.0;
  for (int j = 1; j <= ntan; j++) ft += x[i + j] * x[i + j];
  // the pyramid's polygon holds the circle of radius mu x_n cos(pi / facets)
  double reach = p->blk_mu[k] * x[i] * (p->cone == 0 ? 1.0 : cos(TB_PI / p->facets));
  return (ntan == 0 || sqrt(ft) < TB_ACTIVE_INSIDE * reach) ? 1 : -1;
}

// the guess from x and u = A x + b: kept rows into keep (their count returned), the others'
// values into x (0, or the box row's bound they sit at); -1 when a contact has none
TB_HD int tb_activeGuess(const tbProblem* p, double* x, const double* u, int* keep) {
  int k = 0;
  for (int bk = 0; bk < p->nblock; bk++) {
    int i = p->blk_adr[bk];
    if (p->blk_type[bk] == TB_BLOCK_CONTACT) {
      int state = tb_activeContact(p, bk, x, u);
      if (state < 0) return -1;
      for (int j = 0; j < p->blk_dim[bk]; j++) {
        if (state) {
          keep[k++] = i + j;
        } else {
          x[i + j] = 0.0;
        }
      }
    } else if (x[i] > p->lo[i] && x[i] < p->hi[i]) {
      keep[k++] = i;
    } else {  // at a bound: kept where u pushes x inside, else held there
      double bound = x[i] <= p->lo[i] ? p->lo[i] : p->hi[i];
      if ((x[i] <= p->lo[i] && u[i] < 0.0) || (x[i] >= p->hi[i] && u[i] > 0.0)) {
        keep[k++] = i;
      } else {
        x[i] = bound;
      }
    }
  }
  return k;
}

// r = -(b_S + A_SF x_F) on the k kept rows S of x (zero there), the rows split over team t; x_F
// is zero but where a box row sits at a bound, so only those columns are read (A is symmetric:
// row j holds column j), and where none does (contacts alone), r = -b_S
TB_HD void tb_activeFirstMiss(tbTeam t, const tbProblem* p, const int* keep, int k, const double* x,
                              double* r) {
  int j0 = 0;
  while (j0 < p->n && x[j0] == 0.0) j0++;
  for (int a = t.lane; a < k; a += t.size) {
    double s = -p->b[keep[a]];
    for (int j = j0; j < p->n; j++) {
      if (x[j] != 0.0) s -= p->A[(size_t)j * p->n + keep[a]] * x[j];
    }
    r[a] = s;
  }
}

// A_SS + shift I into L (k x k, lower triangle) and each row's first nonzero column into first,
// the rows split over team t; the shift relative to A_SS's largest diagonal (see the top)
TB_HD void tb_activeMatrix(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, const int* keep,
                           int k, double* L, int* first) {
  int n = p->n;
  double amax = 0.0;
  for (int a = 0; a < k; a++) amax = fmax(amax, p->A[(size_t)keep[a] * n + keep[a]]);
  double shift = fmax(opt->tol, TB_ACTIVE_SHIFT) * amax;
  for (int a = t.lane; a < k; a += t.size) {
    const double* row = p->A + (size_t)keep[a] * n;
    int f = 0;
    while (f < a && row[keep[f]] == 0.0) f++;
    first[a] = f;
    for (int c = 0; c <= a; c++) L[(size_t)a * k + c] = row[keep[c]];
    L[(size_t)a * k + a] += shift;
  }
}

// the guessed active set's answer into x (the warm start on entry) when its residual is at most
// need (opt->tol, or less where the warm start already meets it), by team t (the guess and the
// triangular solves on its lead, the matrix, its factorization and every u = A x + b split): 1 with
// res filled on every member, else 0 with x as it was. Scratch: w->d from offset n (w->d[0, n)
// holds u = A x + b of the warm start, left as it is), k^2 + 3 n doubles for k kept rows; 2 n ints.
TB_HD int tb_solveActiveSet(tbTeam t, const tbProblem* p, const tbSolverOpt* opt, double need,
                            double* x, tbSolverWork* w, tbSolveResult* res) {
  int n = p->n, *keep = w->i, *first = keep + n;
  const double* u = w->d;
  double *cand = w->d + n, *v = cand + n, *r = v + n, *L = r + n;
  tb_teamSync(t);  // every member is done with the scratch
  int k = 0;
  if (t.lane == 0) {
    memcpy(cand, x, sizeof(double) * n);
    k = tb_activeGuess(p, cand, u, keep);
  }
  k = tb_teamShareInt(t, k);
  tb_teamSync(t);  // the lead's guess
  if (k < 0) return 0;
  tb_activeMatrix(t, p, opt, keep, k, L, first);
  if (k > 0 && tbu_cholEnvelope(t, k, L, first)) return 0;
  // a solve from x_S = 0, then refinement sweeps on A_SS itself while the answer misses tol
  if (t.lane == 0) {
    for (int a = 0; a < k; a++) cand[keep[a]] = 0.0;
  }
  tb_teamSync(t);
  tb_activeFirstMiss(t, p, keep, k, cand, r);
  tb_teamSync(t);  // r, every member's rows, for the lead's solves (it alone writes r after)
  double rn = INFINITY;
  int solves = 0;
  while (k > 0) {
    if (t.lane == 0) {
      tbu_cholSolve(k, L, r);
      for (int a = 0; a < k; a++) cand[keep[a]] += r[a];
    }
    tb_problemVelocityTeam(t, p, cand, v);
    if (++solves > 1) {
      rn = tb_residualFromVelocity(p, cand, v);
      if (rn <= need || solves > TB_ACTIVE_REFINE) break;
    }
    if (t.lane == 0) {
      for (int a = 0; a < k; a++) r[a] = -v[keep[a]];
    }
  }
  if (k == 0) rn = tb_residualTeam(t, p, cand, v);
  if (!(rn <= need)) return 0;
  tb_teamCopy(t, x, cand, n);
  res->iterations = solves;
  res->residual = rn;
  res->converged = 1;
  res->reason = TB_STOP_CONVERGED;
  return 1;
}

#endif  // TUMBLE_HOST_SOLVER_ACTIVE_H_

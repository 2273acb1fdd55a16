// Lemke's complementary pivoting method on the pyramid LCP of a problem (tb_lcpForm).
//
// Find z >= 0 with w = M z + q >= 0 and z . w = 0 (Cottle, Pang & Stone 1992, §4.4). With the
// covering vector e = 1 and an artificial variable z0 the system is w - M z - e z0 = q:
//   * q >= 0: z = 0 solves it (no pivot);
//   * otherwise z0 enters and the row of the most negative q_i leaves, which makes every row
//     feasible; then the complement of the variable that just left enters, the minimum-ratio
//     test picks the leaving row, and so on, until z0 leaves (a solution) or the entering
//     column has no positive entry (ray termination: TB_STOP_RAY; for P-matrices and copositive-
//     plus M with a feasible LCP this does not happen, for others it may although a solution
//     exists).
// The tableau is kept in revised form: the basis inverse B^-1 (m x m) and the basic values
// qb = B^-1 q; the entering column is B^-1 times the original column (e_i for w_i, -M e_j for
// z_j, -e for z0). Ties of the ratio test are broken lexicographically on the rows of
// [qb, B^-1] / d_i, which keeps every row lexicographically positive and so rules out cycling
// on degenerate problems (CPS Alg. 4.4.5); z0 leaves whenever its row ties for the minimum.
// Floating-point ties and pivots are judged with tolerances relative to the scale of the
// quantities compared (TB_LEMKE_TIE, TB_LEMKE_PIV below).
//
// Lemke cannot warm start: it always begins at the corner z = 0, z0 = -min q. x is ignored on
// entry. The pivot cap is max(opt->max_iter, 50 m): Lemke needs a finite but (for Murty's
// examples) exponential number of pivots, and a tolerance-based caller's max_iter sized for
// sweeps says nothing about pivots. res->iterations counts pivots, the z0 pivot included.
//
// After termination with a solution the basic values are polished once: the basis matrix B
// is formed from the original columns, factored by LU with partial pivoting (tbu_lu) and B v = q
// solved again; the polished point is kept only when its LCP residual is not larger. On ray
// termination or at the cap the last almost-complementary point (z0 dropped) is returned; the
// closing tb_finishSolve judges the returned x from scratch, so it is never reported as
// converged unless it really satisfies the tolerance.
//
// Scratch (within tb_solverNeed's 3m^2 + 12m + 4n doubles, 4m + 4 + n ints):
//   doubles: M, B^-1, LU (m^2 each), q, qb, d, z, zp, map_coef (2m), v -> 3m^2 + 8m, then n
//            for tb_finishSolve; ints: map_row (2m), basis (m), LU pivots (m), start (n).
#ifndef TUMBLE_HOST_SOLVER_LEMKE_H_
#define TUMBLE_HOST_SOLVER_LEMKE_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/dense.h"
#include "solver/residual.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

// relative tolerances: a pivot entry must exceed TB_LEMKE_PIV times the entering column's scale;
// two ratios (or lexicographic entries) within TB_LEMKE_TIE of the comparison scale are a tie
#define TB_LEMKE_PIV 1e-11
#define TB_LEMKE_TIE 1e-11

// the Lemke state: variables are w_i = i, z_j = m + j, z0 = 2m
typedef struct tbLemke {
  int m;
  const double* M;  // (m x m) row-major
  const double* q;  // (m)
  double* Bi;       // basis inverse (m x m) row-major
  double* qb;       // basic values B^-1 q
  double* d;        // entering column B^-1 a
  int* basis;       // basic variable of each row
} tbLemke;

// d = B^-1 (original column of variable v); returns the max-abs entry of that column
TB_HD double tb_lemkeColumn(const tbLemke* L, int v) {
  int m = L->m;
  double scale = 1.0;
  if (v < m) {  // w_v: column e_v
    for (int i = 0; i < m; i++) L->d[i] = L->Bi[(size_t)i * m + v];
  } else if (v < 2 * m) {  // z_j: column -M e_j
    int j = v - m;
    scale = 0.0;
    for (int k = 0; k < m; k++) {
      double a = fabs(L->M[(size_t)k * m + j]);
      scale = a > scale ? a : scale;
    }
    for (int i = 0; i < m; i++) {
      const double* bi = L->Bi + (size_t)i * m;
      double s = 0.0;
      for (int k = 0; k < m; k++) s -= bi[k] * L->M[(size_t)k * m + j];
      L->d[i] = s;
    }
  } else {  // z0: column -e
    for (int i = 0; i < m; i++) {
      const double* bi = L->Bi + (size_t)i * m;
      double s = 0.0;
      for (int k = 0; k < m; k++) s -= bi[k];
      L->d[i] = s;
    }
  }
  return scale;
}

// lexicographic comparison of rows a and b of [qb, B^-1] scaled by sa and sb: -1, 0, 1 for
// a < b, tie, a > b. Two entries tie when they differ by at most TB_LEMKE_TIE times a scale: qscale
// for the qb column, the largest scaled B^-1 entry of the two rows for the others
TB_HD int tb_lexCompare(const tbLemke* L, int a, double sa, int b, double sb, double qscale) {
  int m = L->m;
  const double *ba = L->Bi + (size_t)a * m, *bb = L->Bi + (size_t)b * m;
  double va = L->qb[a] * sa, vb = L->qb[b] * sb;
  if (fabs(va - vb) > TB_LEMKE_TIE * qscale) return va < vb ? -1 : 1;
  double bscale = 0.0;
  for (int c = 0; c < m; c++) {
    double s = fabs(ba[c] * sa) > fabs(bb[c] * sb) ? fabs(ba[c] * sa) : fabs(bb[c] * sb);
    bscale = s > bscale ? s : bscale;
  }
  for (int c = 0; c < m; c++) {
    va = ba[c] * sa;
    vb = bb[c] * sb;
    if (fabs(va - vb) > TB_LEMKE_TIE * bscale) return va < vb ? -1 : 1;
  }
  return 0;
}

// pivot on row r with the entering column d (already in L->d) for variable v
TB_HD void tb_lemkePivot(tbLemke* L, int r, int v) {
  int m = L->m;
  double* br = L->Bi + (size_t)r * m;
  double inv = 1.0 / L->d[r];
  for (int k = 0; k < m; k++) br[k] *= inv;
  L->qb[r] *= inv;
  for (int i = 0; i < m; i++) {
    double f = L->d[i];
    if (i == r || f == 0.0) continue;
    double* bi = L->Bi + (size_t)i * m;
    for (int k = 0; k < m; k++) bi[k] -= f * br[k];
    L->qb[i] -= f * L->qb[r];
  }
  L->basis[r] = v;
}

// the minimum-ratio row for the entering column in L->d, -1 if no entry is positive (ray)
TB_HD int tb_lemkeRatio(const tbLemke* L, double colscale) {
  int m = L->m;
  double dmax = 0.0, qmax = 0.0;
  for (int i = 0; i < m; i++) {
    dmax = fabs(L->d[i]) > dmax ? fabs(L->d[i]) : dmax;
    qmax = fabs(L->qb[i]) > qmax ? fabs(L->qb[i]) : qmax;
  }
  double ptol = TB_LEMKE_PIV * (dmax > colscale ? dmax : colscale);
  double tmin = INFINITY;
  for (int i = 0; i < m; i++) {
    if (L->d[i] > ptol) {
      double t = L->qb[i] / L->d[i];
      tmin = t < tmin ? t : tmin;
    }
  }
  if (tmin == INFINITY) return -1;
  // the ratio scale: the magnitude of a ratio of typical entries
  double tscale = dmax > 0.0 ? qmax / dmax : 0.0;
  double ttol = TB_LEMKE_TIE * (fabs(tmin) > tscale ? fabs(tmin) : tscale);
  int best = -1;
  for (int i = 0; i < m; i++) {
    if (!(L->d[i] > ptol) || L->qb[i] / L->d[i] > tmin + ttol) continue;
    if (L->basis[i] == 2 * m) return i;  // z0 ties for the minimum: it leaves, we are done
    if (best < 0) {
      best = i;
      continue;
    }
    // lexicographic minimum of the rows of [qb, B^-1] / d_i
    double qscale = fabs(tmin) > tscale ? fabs(tmin) : tscale;
    if (tb_lexCompare(L, i, 1.0 / L->d[i], best, 1.0 / L->d[best], qscale) < 0) best = i;
  }
  return best;
}

// B v = q for the basis of L, factored by tbu_lu in lu (m x m) and piv (m); returns 0 when
// tbu_lu refuses a pivot (zero, not finite, above 1e300) or v is not finite (v is then scratch)
TB_HD int tb_lemkeBasisSolve(const tbLemke* L, double* lu, int* piv, double* v) {
  int m = L->m;
  // columns of B: e_i for w_i, -M e_j for z_j, -e for z0
  for (int c = 0; c < m; c++) {
    int b = L->basis[c];
    for (int i = 0; i < m; i++) {
      double a;
      if (b < m) {
        a = i == b ? 1.0 : 0.0;
      } else if (b < 2 * m) {
        a = -L->M[(size_t)i * m + (b - m)];
      } else {
        a = -1.0;
      }
      lu[(size_t)i * m + c] = a;
    }
  }
  if (tbu_lu(m, lu, piv)) return 0;
  for (int i = 0; i < m; i++) v[i] = L->q[i];
  tbu_luSolve(m, lu, piv, v);
  for (int i = 0; i < m; i++) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

// z from basic values val (per row): z_j where z_j is basic, else 0; negatives from round-off
// are clamped to 0
TB_HD void tb_lemkePoint(const tbLemke* L, const double* val, double* z) {
  int m = L->m;
  for (int j = 0; j < m; j++) z[j] = 0.0;
  for (int r = 0; r < m; r++) {
    int b = L->basis[r];
    if (b >= m && b < 2 * m) z[b - m] = val[r] > 0.0 ? val[r] : 0.0;
  }
}

TB_HDN void tb_solveLemke(const tbProblem* p, const tbSolverOpt* opt, double* x, tbSolverWork* w,
                          tbSolveResult* res) {
  int nfree, m = tb_lcpSize(p, &nfree);
  res->iterations = 0;
  res->reason = TB_STOP_MAXITER;
  if (m <= 0 || nfree != 0) {  // nothing to solve (tb_solverApplies rules out free rows)
    for (int i = 0; i < p->n; i++) x[i] = 0.0;
    res->reason = m > 0 ? TB_STOP_SINGULAR : TB_STOP_CONVERGED;
    tb_finishSolve(p, opt, x, w->d, res);
    return;
  }
  size_t mm = (size_t)m * m;
  double* M = w->d;
  double* Bi = M + mm;
  double* lu = Bi + mm;
  double* q = lu + mm;
  double* qb = q + m;
  double* d = qb + m;
  double* z = d + m;
  double* zp = z + m;
  double* map_coef = zp + m;
  double* v = map_coef + 2 * m;
  double* work = v + m;  // n doubles for tb_finishSolve
  int* map_row = w->i;
  int* basis = map_row + 2 * m;
  int* piv = basis + m;
  int* start = piv + m;  // nblock <= n ints

  tb_lcpForm(p, M, q, map_row, map_coef, start);
  tbLemke L = {m, M, q, Bi, qb, d, basis};
  memset(Bi, 0, mm * sizeof(double));
  for (int i = 0; i < m; i++) {
    Bi[(size_t)i * m + i] = 1.0;
    qb[i] = q[i];
    basis[i] = i;
  }

  // trivial solution: q >= 0, z = 0
  int r = 0;
  for (int i = 1; i < m; i++) {
    if (q[i] < q[r]) r = i;
  }
  int found = 0;
  if (q[r] >= 0.0) {
    found = 1;
  } else {
    // z0 enters; the leaving row is the lexicographic minimum of [q, I] (every d_i = -1), so
    // every row of [qb, B^-1] is lexicographically positive afterwards
    double qmax = 0.0;
    for (int i = 0; i < m; i++) qmax = fabs(q[i]) > qmax ? fabs(q[i]) : qmax;
    for (int i = 0; i < m; i++) {
      if (i != r && tb_lexCompare(&L, i, 1.0, r, 1.0, qmax) < 0) r = i;
    }
    tb_lemkeColumn(&L, 2 * m);
    tb_lemkePivot(&L, r, 2 * m);
    res->iterations = 1;
    int leaving = r;  // the variable that left was w_r
    int cap = opt->max_iter > 50 * m ? opt->max_iter : 50 * m;
    while (res->iterations < cap) {
      if (tb_outOfTime(opt, res)) break;
      int enter = leaving < m ? leaving + m : leaving - m;  // complement of what left
      double colscale = tb_lemkeColumn(&L, enter);
      int row = tb_lemkeRatio(&L, colscale);
      if (row < 0) {
        res->reason = TB_STOP_RAY;
        break;
      }
      leaving = basis[row];
      tb_lemkePivot(&L, row, enter);
      res->iterations++;
      if (!isfinite(qb[row])) {
        res->reason = TB_STOP_NONFINITE;
        break;
      }
      if (leaving == 2 * m) {
        found = 1;
        break;
      }
    }
  }

  tb_lemkePoint(&L, qb, z);
  if (found && res->iterations > 0 && tb_lemkeBasisSolve(&L, lu, piv, v)) {
    // polish: keep the re-solved basic values when they are not worse
    tb_lemkePoint(&L, v, zp);
    if (tb_lcpResidual(m, 0, M, q, zp) <= tb_lcpResidual(m, 0, M, q, z)) {
      memcpy(z, zp, (size_t)m * sizeof(double));
    }
  }
  // a terminal basis whose point misses the tolerance (round-off) is reported as stalled;
  // tb_finishSolve turns this into converged when the residual of x passes
  if (found) res->reason = TB_STOP_STALLED;
  tb_lcpToImpulse(p, z, x, start);
  tb_finishSolve(p, opt, x, work, res);
}

#endif  // TUMBLE_HOST_SOLVER_LEMKE_H_

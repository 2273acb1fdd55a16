// Small dense linear algebra shared by the CPU solvers and the kernels: row-major matrices, no
// allocation, plain loops in a fixed order (deterministic results). The factorizations a team
// splits compute every entry with the serial code, so a team's factors are bitwise one thread's.
#ifndef TUMBLE_DENSE_H_
#define TUMBLE_DENSE_H_

#include "math/tb_math.h"
#include "math/team.h"

// r = M v, M (rows x cols)
TB_HD void tbu_matVec(int rows, int cols, const double* M, const double* v, double* r) {
  for (int i = 0; i < rows; i++) {
    const double* m = M + (long)i * cols;
    double s = 0.0;
    for (int j = 0; j < cols; j++) s += m[j] * v[j];
    r[i] = s;
  }
}

// r = M^T v, M (rows x cols), r (cols)
TB_HD void tbu_matTVec(int rows, int cols, const double* M, const double* v, double* r) {
  for (int j = 0; j < cols; j++) r[j] = 0.0;
  for (int i = 0; i < rows; i++) {
    const double* m = M + (long)i * cols;
    double vi = v[i];
    for (int j = 0; j < cols; j++) r[j] += m[j] * vi;
  }
}

// G = M^T M (cols x cols, full symmetric), M (rows x cols)
TB_HD void tbu_gram(int rows, int cols, const double* M, double* G) {
  for (int k = 0; k < cols * cols; k++) G[k] = 0.0;
  for (int i = 0; i < rows; i++) {
    const double* m = M + (long)i * cols;
    for (int a = 0; a < cols; a++) {
      double ma = m[a];
      if (ma == 0.0) continue;
      double* g = G + (long)a * cols;
      for (int b = a; b < cols; b++) g[b] += ma * m[b];
    }
  }
  for (int a = 0; a < cols; a++) {
    for (int b = 0; b < a; b++) G[(long)a * cols + b] = G[(long)b * cols + a];
  }
}

// Cholesky A = L L^T in place (lower triangle of A becomes L; the strict upper triangle is left
// as it was), skipping A's envelope where first is given: row i is zero left of column first[i]
// (first[i] <= i), and so is L's, whose sums then start at the later of two rows' firsts (a
// Delassus matrix of contacts between bodies in a chain or stack is block banded). Without it
// (NULL) every row starts at 0. Returns 0, or -1 at the first pivot that is not positive and
// finite. Team t splits each column's rows below the pivot (every member computes the pivot, and
// every member returns the same).
TB_HD int tbu_cholEnvelope(tbTeam t, int n, double* A, const int* first) {
  tb_teamSync(t);  // A as every member wrote it
  for (int j = 0; j < n; j++) {
    double* aj = A + (long)j * n;
    int fj = first ? first[j] : 0;
    double d = aj[j];
    d -= tbu_dotRange(aj, aj, fj, j);
    if (!(d > 0.0) || d != d || d > 1e300) return -1;
    double l = sqrt(d);
    tb_teamSync(t);  // every member has read the pivot's entry
    if (t.lane == 0) aj[j] = l;
    for (int i = j + 1 + t.lane; i < n; i += t.size) {
      int fi = first ? first[i] : 0;
      if (fi > j) continue;  // L[i][j] = 0 left of row i's envelope
      double* ai = A + (long)i * n;
      ai[j] = (ai[j] - tbu_dotRange(ai, aj, fi > fj ? fi : fj, j)) / l;
    }
    tb_teamSync(t);  // column j, for the columns right of it
  }
  return 0;
}

TB_HD int tbu_cholesky(int n, double* A) {
  return tbu_cholEnvelope(tb_solo(), n, A, NULL);
}

// solve L L^T x = b in place (L from tbu_cholesky)
TB_HD void tbu_cholSolve(int n, const double* L, double* b) {
  for (int i = 0; i < n; i++) {
    const double* li = L + (long)i * n;
    double s = b[i];
    for (int k = 0; k < i; k++) s -= li[k] * b[k];
    b[i] = s / li[i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int k = i + 1; k < n; k++) s -= L[(long)k * n + i] * b[k];
    b[i] = s / L[(long)i * n + i];
  }
}

// the first nonzero column of row i (of a matrix whose row is `row`), at most i: where the row's
// envelope starts (tbu_cholEnvelope)
TB_HD int tbu_envelopeStart(const double* row, int i) {
  int f = 0;
  while (f < i && row[f] == 0.0) f++;
  return f;
}

// tbu_cholSolve with L from tbu_cholEnvelope(first), each of L's rows read over its envelope
// alone: L y = b by rows, then L^T x = y by L's rows too (x_i known, it leaves the unknowns
// left of it in row i's envelope)
TB_HD void tbu_cholSolveEnvelope(int n, const double* L, const int* first, double* b) {
  for (int i = 0; i < n; i++) {
    const double* li = L + (long)i * n;
    double s = b[i];
    for (int k = first[i]; k < i; k++) s -= li[k] * b[k];
    b[i] = s / li[i];
  }
  for (int i = n - 1; i >= 0; i--) {
    const double* li = L + (long)i * n;
    double bi = b[i] / li[i];  // in a local: the stores to b would make the compiler read it again
    b[i] = bi;
    for (int k = first[i]; k < i; k++) b[k] -= li[k] * bi;
  }
}

// LU with partial pivoting P A = L U in place (unit L strictly below the diagonal, U on and
// above it); piv[k] is the row swapped with row k at step k. Returns 0, or -1 at a pivot that
// is zero or not finite (A is then partly factored). Row-oriented (the inner loop runs along a
// row), about 2/3 n^3 flops: a third of what QR on the same square system costs.
TB_HD int tbu_lu(int n, double* A, int* piv) {
  for (int k = 0; k < n; k++) {
    int p = k;
    double amax = fabs(A[(long)k * n + k]);
    for (int i = k + 1; i < n; i++) {
      double a = fabs(A[(long)i * n + k]);
      if (a > amax) {
        amax = a;
        p = i;
      }
    }
    piv[k] = p;
    if (!(amax > 0.0) || amax > 1e300) return -1;
    double* ak = A + (long)k * n;
    if (p != k) {
      double* ap = A + (long)p * n;
      for (int j = 0; j < n; j++) {
        double t = ak[j];
        ak[j] = ap[j];
        ap[j] = t;
      }
    }
    for (int i = k + 1; i < n; i++) {
      double* ai = A + (long)i * n;
      double l = ai[k] / ak[k];
      ai[k] = l;
      if (l == 0.0) continue;
      for (int j = k + 1; j < n; j++) ai[j] -= l * ak[j];
    }
  }
  return 0;
}

// solve A x = b in place from tbu_lu's factors
TB_HD void tbu_luSolve(int n, const double* LU, const int* piv, double* b) {
  for (int k = 0; k < n; k++) {
    if (piv[k] != k) {
      double t = b[k];
      b[k] = b[piv[k]];
      b[piv[k]] = t;
    }
  }
  for (int i = 0; i < n; i++) {
    const double* li = LU + (long)i * n;
    double s = b[i];
    for (int k = 0; k < i; k++) s -= li[k] * b[k];
    b[i] = s;
  }
  for (int i = n - 1; i >= 0; i--) {
    const double* ui = LU + (long)i * n;
    double s = b[i];
    for (int j = i + 1; j < n; j++) s -= ui[j] * b[j];
    b[i] = s / ui[i];
  }
}

// least squares min |M x - b| by Householder QR (rows >= cols); M and b are overwritten and x
// is left in b[0..cols). Returns 0, or -1 when R has a zero (or non-finite) diagonal entry.
TB_HD int tbu_qrSolve(int rows, int cols, double* M, double* b) {
  for (int k = 0; k < cols; k++) {
    double nrm2 = 0.0;
    for (int i = k; i < rows; i++) nrm2 += M[(long)i * cols + k] * M[(long)i * cols + k];
    double nrm = sqrt(nrm2);
    if (!(nrm > 0.0) || nrm > 1e300) return -1;
    double akk = M[(long)k * cols + k];
    double alpha = akk > 0.0 ? -nrm : nrm;
    // v = column k below the diagonal with v_k = a_kk - alpha; v^T v = 2 nrm (nrm + |a_kk|)
    M[(long)k * cols + k] = akk - alpha;
    double vtv = 2.0 * nrm * (nrm + fabs(akk));
    for (int j = k + 1; j < cols; j++) {
      double s = 0.0;
      for (int i = k; i < rows; i++) s += M[(long)i * cols + k] * M[(long)i * cols + j];
      s *= 2.0 / vtv;
      for (int i = k; i < rows; i++) M[(long)i * cols + j] -= s * M[(long)i * cols + k];
    }
    double s = 0.0;
    for (int i = k; i < rows; i++) s += M[(long)i * cols + k] * b[i];
    s *= 2.0 / vtv;
    for (int i = k; i < rows; i++) b[i] -= s * M[(long)i * cols + k];
    M[(long)k * cols + k] = alpha;
  }
  for (int i = cols - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < cols; j++) s -= M[(long)i * cols + j] * b[j];
    b[i] = s / M[(long)i * cols + i];
  }
  return 0;
}

#endif  // TUMBLE_DENSE_H_

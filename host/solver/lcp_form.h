// A pyramid problem as the mixed LCP of thesis Eq. 2.78 with the velocities eliminated.
//
// With x = T z (box rows and normals map one to one, a facet impulse beta_j maps onto the
// contact's tangent rows along d_j, sigma maps to nothing) and u = A x + b:
//   w = T^T (A T z + b) + [ rows of facets: + sigma ;  sigma rows: mu p_n - sum_j beta_j ],
// i.e. M = T^T A T + E-couplings, q = T^T b (Berard thesis Eq. 2.78, Lu & Trinkle Eq. 12-14).
//
// Thesis Eq. 2.78 with the velocities eliminated (§2.3): unknowns z = [box rows; per contact
// p_n, beta_1..beta_nd, sigma], rows w = M z + q with
//   box rows:  equality (lo = -inf, hi = inf: z free, w = 0) or unilateral (lo = 0, hi = inf)
//   contact:   rho_n = A_nn p_n + ...,  rho_f = D^T A ... + e sigma,  s = mu p_n - e^T beta
// The first nfree unknowns are free with w = 0; the rest are complementary, 0 <= z _|_ w >= 0.
// Contacts with one tangent use the two directions +-t; frictionless ones only p_n.

#ifndef TUMBLE_LCP_FORM_H_
#define TUMBLE_LCP_FORM_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "solver/residual.h"
#include "math/tb_math.h"

TB_HD int tb_isFree(const tbProblem* p, int i) {
  return p->lo[i] == -INFINITY && p->hi[i] == INFINITY;
}

TB_HD int tb_isUnilateral(const tbProblem* p, int i) {
  return p->lo[i] == 0.0 && p->hi[i] == INFINITY;
}

// friction directions of contact block k (0 frictionless, 2 (+-t) with one tangent, facets
// with two)
TB_HD int tb_facetCount(const tbProblem* p, int k) {
  int ntan = p->blk_dim[k] - 1;
  return ntan == 0 ? 0 : ntan == 1 ? 2 : p->facets;
}

// direction j of contact block k as weights on the block's (t, o) rows
TB_HD void tb_facetDirection(const tbProblem* p, int k, int j, double d[2]) {
  if (p->blk_dim[k] == 2) {
    d[0] = j == 0 ? 1.0 : -1.0;
    d[1] = 0.0;
    return;
  }
  double a = p->blk_angle[k] + 2.0 * TB_PI * j / p->facets;
  d[0] = cos(a);
  d[1] = sin(a);
}

// size of the LCP form, or -1 if p has rows it cannot hold (servo bounds, exact cone)
TB_HD int tb_lcpSize(const tbProblem* p, int* nfree) {
  int n = 0;
  *nfree = 0;
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] == TB_BLOCK_BOX) {
      if (tb_isFree(p, i)) {
        (*nfree)++;
      } else if (!tb_isUnilateral(p, i)) {
        return -1;  // a bounded servo row has no place in an LCP
      }
      n++;
    } else {
      if (p->cone != 1 && p->blk_dim[k] > 1) return -1;  // the exact cone is not an LCP
      int nd = tb_facetCount(p, k);
      n += 1 + nd + (nd > 0);
    }
  }
  return n;
}

// position of each block's first unknown in z: free box rows first, then the rest in order
TB_HD void tb_blockStarts(const tbProblem* p, int nfree, int* start) {
  int f = 0, c = nfree;
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] == TB_BLOCK_BOX && tb_isFree(p, i)) {
      start[k] = f++;
    } else if (p->blk_type[k] == TB_BLOCK_BOX) {
      start[k] = c++;
    } else {
      start[k] = c;
      int nd = tb_facetCount(p, k);
      c += 1 + nd + (nd > 0);
    }
  }
}

// the columns of T: unknown c touches problem rows row[2c], row[2c+1] (-1: none) with coef
TB_HD void tb_lcpMap(const tbProblem* p, const int* start, int* row, double* coef) {
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], c = start[k];
    row[2 * c] = i;
    coef[2 * c] = 1.0;
    row[2 * c + 1] = -1;
    coef[2 * c + 1] = 0.0;
    if (p->blk_type[k] == TB_BLOCK_BOX) continue;
    int nd = tb_facetCount(p, k), ntan = p->blk_dim[k] - 1;
    for (int j = 0; j < nd; j++) {
      double d[2];
      tb_facetDirection(p, k, j, d);
      int cj = c + 1 + j;
      row[2 * cj] = i + 1;
      coef[2 * cj] = d[0];
      row[2 * cj + 1] = ntan > 1 ? i + 2 : -1;
      coef[2 * cj + 1] = ntan > 1 ? d[1] : 0.0;
    }
    if (nd > 0) {  // sigma
      row[2 * (c + 1 + nd)] = row[2 * (c + 1 + nd) + 1] = -1;
      coef[2 * (c + 1 + nd)] = coef[2 * (c + 1 + nd) + 1] = 0.0;
    }
  }
}

// fill M (m x m, row-major) and q; returns m (or -1). Scratch: map_row (2m ints), map_coef (2m
// doubles), start (nblock ints: where each block's unknowns begin in z)
TB_HDN int tb_lcpForm(const tbProblem* p, double* M, double* q, int* map_row, double* map_coef,
                      int* start) {
  int nfree, m = tb_lcpSize(p, &nfree);
  if (m < 0) return -1;
  tb_blockStarts(p, nfree, start);
  tb_lcpMap(p, start, map_row, map_coef);
  // M = T^T A T, q = T^T b
  for (int a = 0; a < m; a++) {
    double qa = 0.0;
    for (int s = 0; s < 2; s++) {
      int i = map_row[2 * a + s];
      if (i >= 0) qa += map_coef[2 * a + s] * p->b[i];
    }
    q[a] = qa;
    for (int c = 0; c < m; c++) {
      double v = 0.0;
      for (int s = 0; s < 2; s++) {
        int i = map_row[2 * a + s];
        if (i < 0) continue;
        for (int t = 0; t < 2; t++) {
          int j = map_row[2 * c + t];
          if (j >= 0) v += map_coef[2 * a + s] * map_coef[2 * c + t] * p->A[(size_t)i * p->n + j];
        }
      }
      M[(size_t)a * m + c] = v;
    }
  }
  // the slack couplings: rho_f += e sigma, s = mu p_n - e^T beta
  for (int k = 0; k < p->nblock; k++) {
    int nd = p->blk_type[k] == TB_BLOCK_CONTACT ? tb_facetCount(p, k) : 0;
    if (nd == 0) continue;
    int c = start[k], sg = c + 1 + nd;
    for (int j = 0; j < nd; j++) {
      M[(size_t)(c + 1 + j) * m + sg] = 1.0;
      M[(size_t)sg * m + c + 1 + j] = -1.0;
    }
    M[(size_t)sg * m + c] = p->blk_mu[k];
  }
  return m;
}

// impulses x (the problem's rows) from an LCP point z; start as above (nblock ints)
TB_HDN void tb_lcpToImpulse(const tbProblem* p, const double* z, double* x, int* start) {
  int nfree;
  tb_lcpSize(p, &nfree);
  tb_blockStarts(p, nfree, start);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], c = start[k];
    x[i] = z[c];
    if (p->blk_type[k] == TB_BLOCK_BOX) continue;
    int ntan = p->blk_dim[k] - 1;
    for (int t = 0; t < ntan; t++) x[i + 1 + t] = 0.0;
    for (int j = 0; j < tb_facetCount(p, k); j++) {
      double d[2];
      tb_facetDirection(p, k, j, d);
      for (int t = 0; t < ntan; t++) x[i + 1 + t] += z[c + 1 + j] * d[t];
    }
  }
}

// beta >= 0 on the two facet directions bounding the sector of the tangent impulse
TB_HD void tb_splitTangent(const tbProblem* p, int k, const double* xt, double* beta) {
  int nd = tb_facetCount(p, k);
  for (int j = 0; j < nd; j++) beta[j] = 0.0;
  if (p->blk_dim[k] == 2) {
    beta[0] = xt[0] > 0.0 ? xt[0] : 0.0;
    beta[1] = xt[0] < 0.0 ? -xt[0] : 0.0;
    return;
  }
  double step = 2.0 * TB_PI / nd, ang = atan2(xt[1], xt[0]) - p->blk_angle[k];
  int j = ((int)floor(ang / step) % nd + nd) % nd;
  double d0[2], d1[2];
  tb_facetDirection(p, k, j, d0);
  tb_facetDirection(p, k, (j + 1) % nd, d1);
  // xt = a d0 + c d1
  double det = d0[0] * d1[1] - d0[1] * d1[0];
  double a = (xt[0] * d1[1] - xt[1] * d1[0]) / det, c = (d0[0] * xt[1] - d0[1] * xt[0]) / det;
  beta[j] = a > 0.0 ? a : 0.0;
  beta[(j + 1) % nd] += c > 0.0 ? c : 0.0;
}

// an LCP point from impulses (warm start): beta on the two facets around x_t, sigma the slip
// speed; u (n doubles) and start (nblock ints) are scratch
TB_HDN void tb_impulseToLCP(const tbProblem* p, const double* x, double* z, double* u, int* start) {
  int nfree;
  tb_lcpSize(p, &nfree);
  tb_blockStarts(p, nfree, start);
  tb_problemVelocity(p, x, u);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], c = start[k];
    z[c] = x[i];
    if (p->blk_type[k] == TB_BLOCK_BOX) continue;
    int nd = tb_facetCount(p, k), ntan = p->blk_dim[k] - 1;
    if (nd == 0) continue;
    tb_splitTangent(p, k, x + i + 1, z + c + 1);
    // sigma: the slip speed, max_j (-d_j . u_t), at least 0
    double sg = 0.0;
    for (int j = 0; j < nd; j++) {
      double d[2], dv = 0.0;
      tb_facetDirection(p, k, j, d);
      for (int t = 0; t < ntan; t++) dv += d[t] * u[i + 1 + t];
      sg = -dv > sg ? -dv : sg;
    }
    z[c + 1 + nd] = sg;
  }
}

// the LCP's residual ||r|| / max(||q||, 1e-16), r = w on the free rows and min(z, w) on the
// complementary ones
TB_HD double tb_lcpResidual(int n, int nfree, const double* M, const double* q, const double* z) {
  double s = 0.0, qn = 0.0;
  for (int a = 0; a < n; a++) {
    double w = q[a];
    for (int c = 0; c < n; c++) w += M[(size_t)a * n + c] * z[c];
    double r = a < nfree ? w : (z[a] < w ? z[a] : w);
    s += r * r;
    qn += q[a] * q[a];
  }
  qn = sqrt(qn);
  return sqrt(s) / (qn > 1e-16 ? qn : 1e-16);
}

#endif  // TUMBLE_LCP_FORM_H_

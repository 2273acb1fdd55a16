// The two nonsmooth equations of the Levenberg-Marquardt solvers (solver_lm.h, the drivers):
// their maps phi, merit psi = 1/2 |phi|^2 and generalized Jacobians, and their setup on a solver's
// work with the drivers' scratch carved after them (Mylapilli & Jain 2014; Todorov 2010;
// shared/notes/seed-lm-ncp.md, whose errata are applied throughout):
//
// MNCP (exact cone): Todorov's implicit map. Per contact an unconstrained z = (z_n, z_t):
//   F_n = max(0, -z_n),  s = min(1, mu F_n / |z_t|),  F_t = -s z_t,  v = F + z,
// so every z gives an F in the cone and a v with Coulomb's law between them; the equation is
//   Phi = (A + cfm I) F(z) + b - v = (A + cfm I - I) F(z) - z + b     (contact rows)
//   Phi_i = ((A + cfm I) x + b)_i                                       (equality box rows,
// whose unknown is the impulse x_i itself: M&J Eq. 31-32's p_b rows), and for a bounded box row
// (a servo's force limit) the same map on [lo, hi]: x_i = mid(lo, hi, y_i), v_i = x_i - y_i,
//   Phi_i = ((A + cfm I) x + b)_i - v_i                                 (0 inside the bounds,
// x_i at a bound with u_i of the sign that holds it there outside them).
// MLCP-FB (pyramid): the LCP form of problem.h (free rows first), w = M z + q,
//   phi_i = -w_i (free rows),  phi_i = sqrt(z_i^2 + w_i^2) - z_i - w_i (complementarity rows).
// Both generalized Jacobians are closed form: Todorov's block with the notes' repairs (stick
// branch -I on the tangents, branch on mu F_n >= |z_t|, active branch at z_n = 0) and the FB
// rows with the De Luca-Facchinei-Kanzow row at z_i = w_i = 0 (notes §1.3).
#ifndef TUMBLE_HOST_SOLVER_LM_EQUATION_H_
#define TUMBLE_HOST_SOLVER_LM_EQUATION_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "math/dense.h"
#include "solver/residual.h"
#include "solver/lcp_form.h"
#include "solver/solver_need.h"

// the equation of a tbLm (its kind)
enum { TB_LM_MNCP = 0, TB_LM_FB = 1, TB_LM_SOC_FB = 2 };

// one of the two equations with its scratch
typedef struct tbLm {
  int kind;  // TB_LM_*
  const tbProblem* p;
  double cfm;
  int n;  // unknowns
  // FB: the LCP form
  int nfree;
  const double* M;
  const double* q;
  int* start;  // (nblock)
  double* w;   // (m) w = M z + q
  // impulses and velocities of the problem at a point (p->n each)
  double* xs;
  double* us;
  // SOC-FB: each block's velocity scale (nblock)
  double* scale;
} tbLm;

//---- Todorov's map and its Jacobian ------------------------------------------------------------

// F(z) of one contact (dim 1..3, normal first); dF (dim x dim, row-major) when non-NULL
TB_HD void tb_todorov(const double* z, int dim, double mu, double* F, double* dF) {
  double fn = z[0] < 0.0 ? -z[0] : 0.0, dn = z[0] <= 0.0 ? -1.0 : 0.0;
  F[0] = fn;
  if (dF) {
    for (int k = 0; k < dim * dim; k++) dF[k] = 0.0;
    dF[0] = dn;
  }
  if (dim == 1) return;
  int ntan = dim - 1;
  double t2 = 0.0;
  for (int t = 1; t <= ntan; t++) t2 += z[t] * z[t];
  double nt = sqrt(t2);
  if (mu * fn >= nt) {  // stick (also z_t = 0): F_t = -z_t
    for (int t = 1; t <= ntan; t++) {
      F[t] = -z[t];
      if (dF) dF[t * dim + t] = -1.0;
    }
    return;
  }
  double s = mu * fn / nt;  // slip: F_t = -mu F_n z_t / |z_t|
  for (int t = 1; t <= ntan; t++) {
    F[t] = -s * z[t];
    if (!dF) continue;
    dF[t * dim] = -mu * dn * z[t] / nt;
    for (int c = 1; c <= ntan; c++) {
      dF[t * dim + c] = -s * ((t == c ? 1.0 : 0.0) - z[t] * z[c] / t2);
    }
  }
}

// test hook: Todorov's map of one contact (not part of the library's interface)
TB_HD void tb_lmTestTodorov(const double* z, int dim, double mu, double* F, double* dF) {
  tb_todorov(z, dim, mu, F, dF);
}

// whether y of box row i lies strictly inside its bounds: there x = mid(lo, hi, y) = y, dx/dy = 1
TB_HD int tb_boxInside(const tbProblem* p, int i, double y) {
  return y > p->lo[i] && y < p->hi[i];
}

//---- the two equations ---------------------------------------------------------------------------

// problem impulses x of a point y
TB_HD void tb_lmImpulse(const tbLm* c, const double* y, double* x) {
  const tbProblem* p = c->p;
  if (c->kind == TB_LM_FB) {
    tb_lcpToImpulse(p, y, x, c->start);
    return;
  }
  if (c->kind == TB_LM_SOC_FB) {
    memcpy(x, y, p->n * sizeof(double));
    return;
  }
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] == TB_BLOCK_BOX) {
      x[i] = tbu_clamp(y[i], p->lo[i], p->hi[i]);
    } else {
      tb_todorov(y + i, p->blk_dim[k], p->blk_mu[k], x + i, NULL);
    }
  }
}

// the problem's impulses at y and their velocities with the mixing: xs = X(y), us = (A + cfm I)
// xs + b (the MNCP and SOC-FB equations)
TB_HD void tb_lmPoint(const tbLm* c, const double* y) {
  tb_lmImpulse(c, y, c->xs);
  tb_problemVelocity(c->p, c->xs, c->us);
  for (int i = 0; i < c->p->n; i++) c->us[i] += c->cfm * c->xs[i];
}

//---- SOC-FB: Coulomb's law in Jordan form --------------------------------------------------------
// The unknowns are the impulses themselves. A contact with friction (rows n, t[, o], mu > 0),
// u its velocities and c its scale:
//   x = (mu r_n, r_t) in K,  y = c (u_n + mu |u_t|, mu u_t) in K,  x . y = 0,
// K the Lorentz cone: x in K is r in the friction cone, y in K is u_n >= 0 (De Saxce's
// modified velocity), and x . y = c mu (r . u + mu r_n |u_t|) = 0 is Coulomb's sliding rule
// (Acary & Brogliato 2008, §13.3); phi is cone.h's tbu_socFB of (x, y), Siconos' NSN_FB
// equation. A frictionless contact: the scalar FB of (r_n, c u_n), its tangents (if any) r_t =
// 0. A box row: the mid map mid(lo, hi, r - c u) - r. Scaling y changes no solution; c = 1 /
// A's normal diagonal puts both arguments in impulse units.

// phi of block k at the impulses c->xs and velocities c->us; with Jx, Ju (dim x dim, both or
// neither) its derivatives in the block's impulses and velocities
TB_HDN void tb_socFbBlock(const tbLm* c, int k, double* phi, double* Jx, double* Ju) {
  const tbProblem* p = c->p;
  int i = p->blk_adr[k], dim = p->blk_dim[k];
  const double *r = c->xs + i, *u = c->us + i;
  double sc = c->scale[k], mu = p->blk_mu[k];
  if (p->blk_type[k] == TB_BLOCK_BOX) {
    double t = r[0] - sc * u[0];
    int inside = tb_boxInside(p, i, t);
    phi[0] = inside ? -sc * u[0] : tbu_clamp(t, p->lo[i], p->hi[i]) - r[0];
    if (Jx) {
      Jx[0] = inside ? 0.0 : -1.0;
      Ju[0] = inside ? -sc : 0.0;
    }
    return;
  }
  int d = mu > 0.0 ? dim : 1;
  double x[3], y[3], Dx[9], Dy[9], nt = 0.0;
  for (int t = 1; t < d; t++) nt += u[t] * u[t];
  nt = sqrt(nt);
  x[0] = d > 1 ? mu * r[0] : r[0];
  y[0] = sc * (u[0] + mu * nt);
  for (int t = 1; t < d; t++) {
    x[t] = r[t];
    y[t] = sc * mu * u[t];
  }
  tbu_socFB(x, y, d, phi, Jx ? Dx : NULL, Jx ? Dy : NULL);
  for (int t = d; t < dim; t++) phi[t] = -r[t];
  if (!Jx) return;
  for (int a = 0; a < dim * dim; a++) Jx[a] = Ju[a] = 0.0;
  for (int a = 0; a < d; a++) {
    for (int b = 0; b < d; b++) Jx[a * dim + b] = Dx[a * d + b] * (b == 0 && d > 1 ? mu : 1.0);
    Ju[a * dim] = sc * Dy[a * d];
    for (int b = 1; b < d; b++) {
      Ju[a * dim + b] = sc * mu * (Dy[a * d] * (nt > 0.0 ? u[b] / nt : 0.0) + Dy[a * d + b]);
    }
  }
  for (int t = d; t < dim; t++) Jx[t * dim + t] = -1.0;
}

// phi at the impulses and velocities in c->xs, c->us; returns psi
TB_HDN double tb_socFbPhi(const tbLm* c, double* phi) {
  const tbProblem* p = c->p;
  double s = 0.0;
  for (int k = 0; k < p->nblock; k++) tb_socFbBlock(c, k, phi + p->blk_adr[k], NULL, NULL);
  for (int i = 0; i < p->n; i++) s += phi[i] * phi[i];
  return 0.5 * s;
}

// J = Jx + Ju (A + cfm I) at the impulses y, block row by block row
TB_HDN void tb_socFbJac(const tbLm* c, const double* y, double* J) {
  const tbProblem* p = c->p;
  int n = p->n;
  tb_lmPoint(c, y);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], dim = p->blk_dim[k];
    double phi[3], Jx[9], Ju[9];
    tb_socFbBlock(c, k, phi, Jx, Ju);
    for (int a = 0; a < dim; a++) {
      double* ja = J + (size_t)(i + a) * n;
      for (int col = 0; col < n; col++) ja[col] = 0.0;
      for (int l = 0; l < dim; l++) {
        double g = Ju[a * dim + l];
        if (g == 0.0) continue;
        const double* al = p->A + (size_t)(i + l) * n;
        for (int col = 0; col < n; col++) ja[col] += g * al[col];
        ja[i + l] += g * c->cfm;
      }
      for (int b = 0; b < dim; b++) ja[i + b] += Jx[a * dim + b];
    }
  }
}

// phi at y; returns psi = 1/2 |phi|^2
TB_HD double tb_lmPhi(const tbLm* c, const double* y, double* phi) {
  const tbProblem* p = c->p;
  double s = 0.0;
  if (c->kind == TB_LM_FB) {
    int m = c->n;
    for (int a = 0; a < m; a++) {
      const double* row = c->M + (size_t)a * m;
      double w = c->q[a];
      for (int b = 0; b < m; b++) w += row[b] * y[b];
      c->w[a] = w;
      phi[a] = a < c->nfree ? -w : sqrt(y[a] * y[a] + w * w) - y[a] - w;
      s += phi[a] * phi[a];
    }
    return 0.5 * s;
  }
  tb_lmPoint(c, y);
  if (c->kind == TB_LM_SOC_FB) return tb_socFbPhi(c, phi);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] == TB_BLOCK_BOX) {
      phi[i] = tb_boxInside(p, i, y[i]) ? c->us[i] : c->us[i] - c->xs[i] + y[i];
    } else {
      for (int r = i; r < i + p->blk_dim[k]; r++) phi[r] = c->us[r] - c->xs[r] - y[r];
    }
  }
  for (int i = 0; i < p->n; i++) s += phi[i] * phi[i];
  return 0.5 * s;
}

// generalized Jacobian J (n x n) of phi at y
TB_HDN void tb_lmJac(const tbLm* c, const double* y, double* J) {
  const tbProblem* p = c->p;
  int n = c->n;
  if (c->kind == TB_LM_FB) {
    tbu_matVec(n, n, c->M, y, c->w);
    for (int a = 0; a < n; a++) {
      const double* row = c->M + (size_t)a * n;
      double* ja = J + (size_t)a * n;
      c->w[a] += c->q[a];
      if (a < c->nfree) {
        for (int b = 0; b < n; b++) ja[b] = -row[b];
        continue;
      }
      double za = y[a], wa = c->w[a], r = sqrt(za * za + wa * wa), ca, cb;
      if (r > 0.0) {
        ca = za / r;
        cb = wa / r;
      } else {  // De Luca-Facchinei-Kanzow: the direction e_a, (z, w) ~ (1, M_aa)
        double h = sqrt(1.0 + row[a] * row[a]);
        ca = 1.0 / h;
        cb = row[a] / h;
      }
      for (int b = 0; b < n; b++) ja[b] = (cb - 1.0) * row[b];
      ja[a] += ca - 1.0;
    }
    return;
  }
  if (c->kind == TB_LM_SOC_FB) {
    tb_socFbJac(c, y, J);
    return;
  }
  // J = (A + cfm I) D - E with D = dX/dy (block diagonal), E = D + I on contact rows, D - I on
  // box rows at a bound, 0 on box rows inside theirs
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], dim = p->blk_dim[k], inside = 1;
    double F[3], dF[9] = {1.0, 0, 0, 0, 0, 0, 0, 0, 0};
    int contact = p->blk_type[k] == TB_BLOCK_CONTACT;
    if (contact) {
      tb_todorov(y + i, dim, p->blk_mu[k], F, dF);
    } else {
      inside = tb_boxInside(p, i, y[i]);
      dF[0] = inside;
    }
    for (int r = 0; r < n; r++) {
      const double* ar = p->A + (size_t)r * n + i;
      double* jr = J + (size_t)r * n + i;
      if (dim == 3) {  // a contact with friction, spelled out: 3x fewer instructions
        for (int col = 0; col < 3; col++) {
          jr[col] = 0.0 + ar[0] * dF[col] + ar[1] * dF[3 + col] + ar[2] * dF[6 + col];
        }
        continue;
      }
      for (int col = 0; col < dim; col++) {
        double s = 0.0;
        for (int l = 0; l < dim; l++) s += ar[l] * dF[l * dim + col];
        jr[col] = s;
      }
    }
    for (int r = 0; r < dim; r++) {  // the block's own rows: + cfm D - E
      for (int col = 0; col < dim; col++) {
        double dz = dF[r * dim + col];
        J[(size_t)(i + r) * n + i + col] += c->cfm * dz - (contact  ? dz + (r == col)
                                                           : inside ? 0.0
                                                                    : dz - 1.0);
      }
    }
  }
}

// 1 when J at y is singular for sure: its rows where E is zero (box rows inside their bounds,
// active normals, sticking tangents) are rows of A D, so more of them than A's rank bound are
// dependent (a box's four coplanar corners sticking: 12 such rows against 6 velocity unknowns)
TB_HD int tb_lmSurelySingular(const tbLm* c, const double* y) {
  const tbProblem* p = c->p;
  if (c->kind != TB_LM_MNCP || c->cfm != 0.0 || p->rank_max <= 0) return 0;
  int rows = 0;
  for (int k = 0; k < p->nblock; k++) {
    const double* z = y + p->blk_adr[k];
    int dim = p->blk_dim[k];
    if (p->blk_type[k] == TB_BLOCK_BOX) {
      rows += tb_boxInside(p, p->blk_adr[k], z[0]);
      continue;
    }
    rows += z[0] < 0.0;
    double t2 = 0.0;
    for (int t = 1; t < dim; t++) t2 += z[t] * z[t];
    if (dim > 1 && p->blk_mu[k] * fmax(-z[0], 0.0) >= sqrt(t2)) rows += dim - 1;
  }
  return rows > p->rank_max;
}

// the problem's residual of the point y (x = X(y), u = A x + b)
TB_HD double tb_lmTrueResidual(const tbLm* c, const double* y) {
  tb_lmImpulse(c, y, c->xs);
  tb_problemVelocity(c->p, c->xs, c->us);
  return tb_residualFromVelocity(c->p, c->xs, c->us);
}

//---- the equations on a solver's work ---------------------------------------------------------

// scratch of the drivers: J (n^2), K (2n^2), then TB_LM_VECTORS n for the vectors
#define TB_LM_VECTORS 15
typedef struct tbLmState {
  int n;
  double *J, *K, *y, *phi, *g, *d, *yt, *phit, *ybest, *rhs, *aux, *aux2;
  int* piv;    // (n) PLM: the Newton direction by LU where J is well conditioned; NULL: QR always
  int lu_off;  // J is singular (known, or its LU rejected in this run): no plain LU from then on
} tbLmState;

// the driver's vectors (TB_LM_VECTORS n doubles from v) without J and K: a caller that takes
// the directions elsewhere (host/io/solver_sparse.c)
TB_HD void tb_lmCarveVectors(tbLmState* s, int n, double* v) {
  s->n = n;
  s->piv = NULL;
  s->lu_off = 0;
  s->J = s->K = NULL;
  s->y = v;
  s->phi = v + n;
  s->g = v + 2 * n;
  s->d = v + 3 * n;
  s->yt = v + 4 * n;
  s->phit = v + 5 * n;
  s->ybest = v + 6 * n;
  s->rhs = v + 7 * n;  // 2n
  s->aux = v + 9 * n;
  s->aux2 = v + 10 * n;  // 5 n for the dogleg
}

TB_HD void tb_lmCarve(tbLmState* s, int n, double* sc) {
  size_t nn = (size_t)n * n;
  tb_lmCarveVectors(s, n, sc + 3 * nn);
  s->J = sc;
  s->K = sc + nn;
}

// the MNCP (kind TB_LM_MNCP) or SOC-FB equation on d: xs, us (n each), and SOC-FB's blocks'
// scales (nblock <= n); returns the scratch past them
TB_HD double* tb_lmEquation(int kind, const tbProblem* p, double cfm, double* d, tbLm* c) {
  int n = p->n;
  memset(c, 0, sizeof(*c));
  c->kind = kind;
  c->p = p;
  c->cfm = cfm;
  c->n = n;
  c->xs = d;
  c->us = d + n;
  if (kind != TB_LM_SOC_FB) return d + 2 * n;
  c->scale = d + 2 * n;
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    double a = tb_entry(p, i, i) + cfm;
    c->scale[k] = a > 0.0 ? 1.0 / a : 1.0;
  }
  return d + 3 * n;
}

// the MNCP or SOC-FB equation (kind) on w, then the driver's scratch
TB_HD void tb_lmSetupEquation(int kind, const tbProblem* p, double cfm, tbSolverWork* w, tbLm* c,
                              tbLmState* s) {
  tb_lmCarve(s, p->n, tb_lmEquation(kind, p, cfm, w->d, c));
}

// the FB equation on w: doubles M (m^2), q, w, map_coef (2m), xs, us (n each), the driver's;
// ints map_row (2m), start (nblock <= n). Returns m.
TB_HD int tb_lmSetupFB(const tbProblem* p, tbSolverWork* w, tbLm* c, tbLmState* s) {
  int nfree, m = tb_lcpSize(p, &nfree), n = p->n;
  memset(c, 0, sizeof(*c));
  if (m <= 0) return m;
  double* M = w->d;
  double* q = M + (size_t)m * m;
  c->kind = TB_LM_FB;
  c->p = p;
  c->n = m;
  c->nfree = nfree;
  c->M = M;
  c->q = q;
  c->w = q + m;
  double* map_coef = c->w + m;
  c->xs = map_coef + 2 * m;
  c->us = c->xs + n;
  c->start = w->i + 2 * m;
  tb_lcpForm(p, M, q, w->i, map_coef, c->start);
  tb_lmCarve(s, m, c->us + n);
  return m;
}

// test hook: phi (returning psi) and, when J is non-NULL, the Jacobian at y of the MNCP
// (kind 0; w sized for TB_SOLVER_MNCP_RLM), FB (kind 1; for TB_SOLVER_MLCP_FB_RLM) or SOC-FB
// (kind 2; for TB_SOLVER_SOC_FB_PLM) equation
TB_HD double tb_lmTestEval(int kind, const tbProblem* p, const double* y, double* phi, double* J,
                           tbSolverWork* w) {
  tbLm c;
  tbLmState s;
  if (kind == TB_LM_FB) {
    tb_lmSetupFB(p, w, &c, &s);
  } else {
    tb_lmSetupEquation(kind, p, 0.0, w, &c, &s);
  }
  double psi = tb_lmPhi(&c, y, phi);
  if (J) tb_lmJac(&c, y, J);
  return psi;
}

// test hook: tb_lmSurelySingular of the MNCP equation of p at y
TB_HD int tb_lmTestSurelySingular(const tbProblem* p, const double* y) {
  tbLm c;
  memset(&c, 0, sizeof(c));
  c.kind = TB_LM_MNCP;
  c.p = p;
  c.n = p->n;
  return tb_lmSurelySingular(&c, y);
}

#endif  // TUMBLE_HOST_SOLVER_LM_EQUATION_H_

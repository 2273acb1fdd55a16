// auto's first stage on steps of many contacts between free bodies: Newton in the bodies'
// velocities (nv = 6 a body) on a proximal regularization of the contact problem, the outer
// rounds taking it to the rigid answer (issue 60: a 9-box tower's 174 rows, rank 54, took NNCG
// and the dense stages 191 sweeps and iterations a step, LU on 174 x 174 where MuJoCo factors
// its 54 x 54 Hessian). In a model with minimal joints the same stage runs in the generalized
// velocities (nv = ndof, M the tree's), after the warm start's active set (tb_solveTreeFirst).
//
// Round k holds a center c (the impulses of round k - 1; the warm start first), a De Saxce shift
// s = mu |u_t| of each contact's tangential velocity there, and r = TB_PRIMAL_RHO a_nn a contact
// (its normal row's Delassus diagonal). Its impulses minimize, over the Coulomb cones K,
//   1/2 x^T (A + R) x + x^T (b + s e_n - R c),
// a strictly convex problem whatever the contacts' redundancy, and its dual in the impulse
// velocities dv = v - v_free is smooth and unconstrained (MuJoCo's primal, Todorov 2014):
//   F(dv) = 1/2 dv^T M dv + sum_c r/2 |P_K(z_c)|^2,   z_c = -(b_c + J_c dv + s_c e_n - r c_c) / r,
// whose gradient M dv - J^T x with x = P_K(z) (Moreau: 1/2 |P_K z|^2 = 1/2 dist(z, K°)^2) vanishes
// at the round's answer. Newton's direction solves (M + J^T D J / r) d = -grad, D the
// projection's Jacobian (3 zones: inside K, inside its polar, on its surface), by Cholesky of
// nv x nv, and an exact line search on the convex piecewise-quadratic F. At a fixed point x = c
// the round's answer is the rigid one with the exact cone and its De Saxce term: x = P_K(x - (u
// + s e_n) / r), the natural map at step 1/r. A compliant block (a servo's row, a soft
// contact) has its compliance for r and no center (its regularization is the physics); a box row
// (a limit, a servo's force bound) projects onto its interval, whose potential
// 1/2 |z|^2 - 1/2 dist(z, [lo, hi])^2 has the same gradient P(z) and Jacobian (F itself is never
// evaluated). Every stage is the scene's own (TB_HD).
#ifndef TUMBLE_HOST_STAGE_PRIMAL_H_
#define TUMBLE_HOST_STAGE_PRIMAL_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "math/dense.h"
#include "solver/residual.h"
#include "solver/solver_auto.h"

#include "engine/engine.h"
#include "engine/stage_assemble.h"
#include "engine/stage_bodies.h"

// r / a_nn of a contact. A round shrinks the error of a mode of A with eigenvalue l by
// r / (l + r): on the 9-box tower (stack-16) 1e-2 left rounds at 0.7 a round (modes near
// l = 4e-3 a_nn), 1e-4 takes a step to 2e-11 in 3.4 Newton iterations; 1e-6 makes F's kinks so
// sharp that Newton crawls (pile-8: 14 steps/s against 180 at 1e-4)
#define TB_PRIMAL_RHO 1e-4
// the stage applies where a step has at least this many rows a dynamic DoF: redundant contacts
// (a box on a box: four corners or more), where A is singular and the dual stages crawl. Below,
// on piles of spheres and capsules (pile-8, pile-14: 1.5 rows a DoF), rounds gain only 2x each
// and the dual stages were twice as fast
#define TB_PRIMAL_REDUNDANT 2
// in minimal coordinates, where A is assembled anyway: arms pushing boxes (about two rows a DoF)
// ran at half the speed with the stage, a squeezed part (3.6 to 6) up to 13 times faster
#define TB_PRIMAL_REDUNDANT_TREE 3
// a round that does not halve the residual ends the stage at the tolerance (round-off: 1e-11 on
// the tower); above it one that gains less than 10% (the rest goes to the dual stages from the
// best round): a squeezed part's rounds gained 2x each from 1e-7, where halving ended them
#define TB_PRIMAL_GAIN 0.5
#define TB_PRIMAL_STALL 0.9
#define TB_PRIMAL_ROUNDS 40   // proximal rounds at most
#define TB_PRIMAL_NEWTON 12   // Newton iterations a round at most
#define TB_PRIMAL_SEARCH 30   // line-search steps at most
#define TB_PRIMAL_FLAT 1e-10  // a slope this small against the start's: the search's end
#define TB_PRIMAL_STEP 1e-3   // a round ends when its step moves no row by this x tol x |b|
// in minimal coordinates, or by this x its start's residual x |b|: an inexact proximal point
// method (the rounds judge each answer from scratch); rounds solved to the tolerance took a
// squeezing step three times the Newton iterations. Body space keeps TB_PRIMAL_STEP alone.
#define TB_PRIMAL_INEXACT 1e-2

// the velocities Newton runs in: in a model with minimal joints the generalized ones (ndof; M is
// stage_tree.h's M + h C, held as its factor, and each row's Jq), else the bodies' (6 a body)
TB_HD int tb_primalTree(const tbModel* m) {
  return m->nq > 0;
}

TB_HD int tb_primalNv(const tbModel* m) {
  return tb_primalTree(m) ? m->ndof : 6 * m->nbody;
}

// the doubles the primal stage takes on a step of n rows: H (nv^2), the bodies' masses (12 a
// body), the gradient, the direction and the velocities (nv each), a block's D J (3 nv), and per
// row the center, the shift, J d, u without and with the rows' compliance, the compliance and the
// proximal weight, the best x and the start (9 n)
TB_HD size_t tb_primalWords(const tbModel* m, int n) {
  size_t nv = (size_t)tb_primalNv(m);
  return nv * nv + 12 * (size_t)m->nbody + 6 * nv + 9 * (size_t)n;
}

// the stage's scratch within the solver's (tb_primalWords doubles, nv ints, as listed there; dv
// is w->body_dv in body space, uf is u with cfm x)
typedef struct tbPrimalScratch {
  double *H, *mass, *grad, *d, *dv, *G;  // G: a block's D Jq / r (minimal coordinates)
  double *c, *s, *jd, *u, *uf;           // the round's center, shift, J d, b + J dv, uf
  double *cfm, *prox;                    // each row's block's compliance and proximal weight
  double *best, *start;
  int* first;  // nv: H's envelope
} tbPrimalScratch;

TB_HD tbPrimalScratch tb_primalScratch(const tbModel* m, tbWork* w, int n) {
  size_t nv = (size_t)tb_primalNv(m);
  tbPrimalScratch q;
  q.H = w->solver_work.d;
  q.mass = q.H + nv * nv;
  q.grad = q.mass + 12 * (size_t)m->nbody;
  q.d = q.grad + nv;
  q.dv = tb_primalTree(m) ? q.d + nv : w->body_dv;
  q.G = q.d + 2 * nv;
  q.c = q.G + 3 * nv;
  q.s = q.c + n;
  q.jd = q.s + n;
  q.u = q.jd + n;
  q.uf = q.u + n;
  q.cfm = q.uf + n;
  q.prox = q.cfm + n;
  q.best = q.prox + n;
  q.start = q.best + n;
  q.first = w->solver_work.i;
  return q;
}

// body b's mass (3) and world inertia (9) from its inverses in minv; 0 when a DoF is locked or
// the inertia is singular (the stage then does not apply)
TB_HD int tb_primalBodyMass(const double* minv, double* mass) {
  for (int k = 0; k < 3; k++) {
    if (!(minv[k] > 0.0)) return 0;
    mass[k] = 1.0 / minv[k];
  }
  const double* a = minv + 3;
  double c[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                 a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                 a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  if (!(det > 0.0)) return 0;
  for (int k = 0; k < 9; k++) mass[3 + k] = c[k] / det;
  return 1;
}

// row i's Delassus diagonal without its compliance: A's (assembled in minimal coordinates), or
// the body-space diagonal block's
TB_HD double tb_primalDiag(const tbModel* m, const tbWork* w, int i) {
  double a = tb_primalTree(m) ? w->A[(size_t)i * w->nrow + i] : w->blk_diag[3 * i];
  return a - w->row[i].cfm;
}

// each block's r on its rows: a compliant block's cfm (its rows' one: the cone's projection
// needs a single r), else TB_PRIMAL_RHO a_nn, all of it proximal; 0 where a block has neither
// (the round would not be strictly convex) or rows of unequal compliance
TB_HD int tb_primalWeights(const tbModel* m, const tbWork* w, const tbProblem* p,
                           const tbPrimalScratch* q) {
  for (int k = 0; k < p->nblock; k++) {
    int i0 = p->blk_adr[k], dim = p->blk_dim[k];
    if (p->blk_type[k] == TB_BLOCK_CONTACT && dim == 2) return 0;
    double cfm = w->row[i0].cfm, a = tb_primalDiag(m, w, i0);
    double prox = cfm > 0.0 ? 0.0 : TB_PRIMAL_RHO * a;
    if (!(cfm + prox > 0.0) || !(cfm + prox < INFINITY)) return 0;
    for (int i = i0; i < i0 + dim; i++) {
      if (w->row[i].cfm != cfm) return 0;
      q->cfm[i] = cfm;
      q->prox[i] = prox;
    }
  }
  return 1;
}

// whether the stage applies to the step: every block a box row or a contact on the exact cone,
// with an r (tb_primalWeights, filled in), every dynamic body free in body space, the step
// redundant (TB_PRIMAL_REDUNDANT) and the scratch holding it. Fills the masses (12 a body;
// static, kinematic and tree bodies' entries 0).
TB_HD int tb_primalApplies(const tbModel* m, const tbWork* w, const tbProblem* p,
                           const tbPrimalScratch* q) {
  if (p->cone != 0 || w->solver_work.nd < tb_primalWords(m, p->n) ||
      w->solver_work.ni < (size_t)tb_primalNv(m) || !tb_primalWeights(m, w, p, q))
    return 0;
  int ndof = tb_primalTree(m) ? m->ndof : 0;
  for (int b = 0; b < m->nbody && !tb_primalTree(m); b++) {
    memset(q->mass + 12 * b, 0, sizeof(double) * 12);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    if (!tb_primalBodyMass(w->minv + 12 * b, q->mass + 12 * b)) return 0;
    ndof += 6;
  }
  return p->n >= (tb_primalTree(m) ? TB_PRIMAL_REDUNDANT_TREE : TB_PRIMAL_REDUNDANT) * ndof;
}

//---- the operators of the two spaces ----------------------------------------------------------

// row i's Jq and its nonzero DoFs [span[0], span[1]) (stage_tree.h)
TB_HD const double* tb_primalRowJq(const tbModel* m, const tbWork* w, int i, const int** span) {
  *span = w->row_span + 4 * i;
  return w->Jq + (size_t)i * m->ndof;
}

// J_i d: row i's velocity along the DoFs' velocities d
TB_HD double tb_primalRowDot(const tbModel* m, const tbWork* w, int i, const double* d) {
  if (!tb_primalTree(m)) return tb_rowVelocityOf(w, i, d);
  const int* span;
  const double* jq = tb_primalRowJq(m, w, i, &span);
  return tbu_dotRange(jq, d, span[0], span[1]);
}

// out = M v: from the masses in body space, from the factor L of M + h C in minimal coordinates
// (L^T v into out, then L times it in place from the last row up, each row reading only entries
// at or left of its own)
TB_HD void tb_primalMassTimes(const tbModel* m, const tbWork* w, const double* mass,
                              const double* v, double* out) {
  if (tb_primalTree(m)) {
    int n = m->ndof;
    const double* L = w->Mq;
    memset(out, 0, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
      for (int k = w->dof_first[i]; k <= i; k++) out[k] += L[(size_t)i * n + k] * v[i];
    }
    for (int i = n - 1; i >= 0; i--) {
      out[i] = tbu_dotRange(L + (size_t)i * n, out, w->dof_first[i], i + 1);
    }
    return;
  }
  for (int b = 0; b < m->nbody; b++) {
    const double *mb = mass + 12 * b, *vb = v + 6 * b;
    double* ob = out + 6 * b;
    for (int k = 0; k < 3; k++) ob[k] = mb[k] * vb[k];
    for (int k = 0; k < 3; k++) {
      ob[3 + k] = mb[3 + 3 * k] * vb[3] + mb[4 + 3 * k] * vb[4] + mb[5 + 3 * k] * vb[5];
    }
  }
}

// dv = M^-1 J^T x from scratch: the bodies' (tb_bodyImpulseVelocities), or the sum of the
// assembly's (M + h C)^-1 Jq^T columns
TB_HD void tb_primalImpulseVelocities(const tbModel* m, tbWork* w, double* dv) {
  if (!tb_primalTree(m)) {
    tb_bodyImpulseVelocities(m, w);
    return;
  }
  int nd = m->ndof;
  memset(dv, 0, sizeof(double) * (size_t)nd);
  for (int i = 0; i < w->nrow; i++) {
    const int* span = w->row_span + 4 * i + 2;
    const double* mj = w->MJq + (size_t)i * nd;
    for (int k = span[0]; k < span[1]; k++) dv[k] += mj[k] * w->x[i];
  }
}

// one contact's impulse x = P_K(z) of its round's z (dim 1 or 3 rows), and where D is given the
// projection's Jacobian (dim x dim)
TB_HD void tb_primalProject(const double* z, int dim, double mu, double* x, double* D) {
  if (dim == 1) {
    x[0] = z[0] > 0.0 ? z[0] : 0.0;
    if (D) D[0] = z[0] > 0.0;
    return;
  }
  memcpy(x, z, sizeof(double) * 3);
  tbu_projCone(x, 2, mu);
  if (!D) return;
  double nt = sqrt(z[1] * z[1] + z[2] * z[2]);
  memset(D, 0, sizeof(double) * 9);
  if (nt <= mu * z[0]) {  // inside: the identity
    D[0] = D[4] = D[8] = 1.0;
    return;
  }
  if (mu * nt <= -z[0]) return;  // the polar cone: 0
  // on the surface: x = a (1, mu t), a = (z_n + mu |z_t|) / (1 + mu^2), t = z_t / |z_t|
  double q = 1.0 / (1.0 + mu * mu), a = (z[0] + mu * nt) * q, t[2] = {z[1] / nt, z[2] / nt};
  D[0] = q;
  for (int i = 0; i < 2; i++) {
    D[1 + i] = D[3 * (1 + i)] = mu * q * t[i];
    for (int j = 0; j < 2; j++) {
      D[3 * (1 + i) + 1 + j] = mu * mu * q * t[i] * t[j] + mu * a / nt * ((i == j) - t[i] * t[j]);
    }
  }
}

// a block's impulse x = P(z) of its round's z, and where D is given the projection's Jacobian
// (dim x dim): a box row's clamp to [lo, hi], a contact's cone
TB_HD void tb_primalProjectBlock(const tbProblem* p, int k, const double* z, double* x, double* D) {
  if (p->blk_type[k] == TB_BLOCK_BOX) {
    int i = p->blk_adr[k];
    x[0] = tbu_clamp(z[0], p->lo[i], p->hi[i]);
    if (D) D[0] = z[0] > p->lo[i] && z[0] < p->hi[i];
    return;
  }
  tb_primalProject(z, p->blk_dim[k], p->blk_mu[k], x, D);
}

// the round's state: rows' u = b + J dv, centers c, J d along Newton's direction (NULL: none),
// shifts s (on each block's normal row), each row's compliance and proximal weight
typedef struct tbPrimalRound {
  const double *u, *c, *jd, *s, *cfm, *prox;
  double alpha;  // the point u + alpha J d
} tbPrimalRound;

// row i's block's r: its compliance and its proximal weight
TB_HD double tb_primalR(const tbPrimalRound* rd, int i) {
  return rd->cfm[i] + rd->prox[i];
}

// block k's z at the round's point (dim rows into z)
TB_HD void tb_primalZ(const tbProblem* p, const tbPrimalRound* rd, int k, double* z) {
  int i = p->blk_adr[k], dim = p->blk_dim[k];
  for (int j = 0; j < dim; j++) {
    double u = rd->u[i + j] + (rd->jd ? rd->alpha * rd->jd[i + j] : 0.0);
    z[j] = -(u + (j == 0 ? rd->s[i] : 0.0) - rd->prox[i] * rd->c[i + j]) / tb_primalR(rd, i);
  }
}

// the round's impulses x at its point (every row)
TB_HD void tb_primalImpulses(const tbProblem* p, const tbPrimalRound* rd, double* x) {
  for (int k = 0; k < p->nblock; k++) {
    double z[3] = {0.0, 0.0, 0.0};  // dim of them set (the compiler cannot see dim >= 1)
    tb_primalZ(p, rd, k, z);
    tb_primalProjectBlock(p, k, z, x + p->blk_adr[k], NULL);
  }
}

// H = M in body space (static bodies' rows the identity: their d stays 0)
TB_HD void tb_primalBodyMassMatrix(const tbModel* m, const double* mass, double* H) {
  int nv = 6 * m->nbody;
  for (int b = 0; b < m->nbody; b++) {
    double* hb = H + (size_t)(6 * b) * nv + 6 * b;
    if (m->body_type[b] != TB_BODY_DYNAMIC) {
      for (int k = 0; k < 6; k++) hb[(size_t)k * nv + k] = 1.0;
      continue;
    }
    for (int k = 0; k < 3; k++) hb[(size_t)k * nv + k] = mass[12 * b + k];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) hb[(size_t)(3 + i) * nv + 3 + j] = mass[12 * b + 3 + 3 * i + j];
    }
  }
}

// H's lower triangle = M + h C in minimal coordinates: the strict upper triangle of w->Mq still
// holds M (tbu_cholEnvelope writes the lower), its diagonal is L's rows' squares
TB_HD void tb_primalTreeMassMatrix(const tbModel* m, const tbWork* w, double* H) {
  int n = m->ndof;
  const double* M = w->Mq;
  for (int k = 0; k < n; k++) {
    const double* lk = M + (size_t)k * n;
    for (int l = w->dof_first[k]; l < k; l++) H[(size_t)k * n + l] = M[(size_t)l * n + k];
    H[(size_t)k * n + k] = tbu_dotRange(lk, lk, w->dof_first[k], k + 1);
  }
}

// H += J_k^T D J_k / r for body-space block k (its rows' two bodies, 6 DoFs each)
TB_HD void tb_primalBodyBlock(const tbModel* m, const tbWork* w, int i0, int dim, const double* D,
                              double inv_r, double* H) {
  int nv = 6 * m->nbody;
  const tbRowJ* row = w->row + i0;
  for (int sa = 0; sa < 2; sa++) {
    int ba = row->body[sa];
    if (ba < 0 || m->body_type[ba] != TB_BODY_DYNAMIC) continue;
    for (int sb = 0; sb < 2; sb++) {
      int bb = row->body[sb];
      if (bb < 0 || m->body_type[bb] != TB_BODY_DYNAMIC) continue;
      double G[3][6];  // D J_b / r (dim x 6), then H_ab += J_a^T G
      for (int a = 0; a < dim; a++) {
        for (int q = 0; q < 6; q++) {
          double g = 0.0;
          for (int c = 0; c < dim; c++) g += D[a * dim + c] * row[c].J[sb][q];
          G[a][q] = g * inv_r;
        }
      }
      for (int e = 0; e < 6; e++) {
        double* he = H + (size_t)(6 * ba + e) * nv + 6 * bb;
        for (int q = 0; q < 6; q++) {
          double h = 0.0;
          for (int a = 0; a < dim; a++) h += row[a].J[sa][e] * G[a][q];
          he[q] += h;
        }
      }
    }
  }
}

// H's lower triangle += Jq_k^T D Jq_k / r for block k in minimal coordinates, over the DoFs its
// rows reach (G: 3 nv of scratch for D Jq_k / r)
TB_HD void tb_primalTreeBlock(const tbModel* m, const tbWork* w, int i0, int dim, const double* D,
                              double inv_r, double* G, double* H) {
  int n = m->ndof, lo = n, hi = 0;
  for (int a = 0; a < dim; a++) {
    const int* span = w->row_span + 4 * (i0 + a);
    if (span[0] < lo) lo = span[0];
    if (span[1] > hi) hi = span[1];
  }
  const double* jq = w->Jq + (size_t)i0 * n;
  for (int a = 0; a < dim; a++) {
    for (int q = lo; q < hi; q++) {
      double g = 0.0;
      for (int c = 0; c < dim; c++) g += D[a * dim + c] * jq[(size_t)c * n + q];
      G[(size_t)a * n + q] = g * inv_r;
    }
  }
  for (int e = lo; e < hi; e++) {
    double* he = H + (size_t)e * n;
    for (int q = lo; q <= e; q++) {
      double h = 0.0;
      for (int a = 0; a < dim; a++) h += jq[(size_t)a * n + e] * G[(size_t)a * n + q];
      he[q] += h;
    }
  }
}

// H = M + J^T D J / r at the round's point (nv x nv; the lower triangle at least, which the
// factor reads)
TB_HD void tb_primalHessian(const tbModel* m, const tbWork* w, const tbProblem* p,
                            const tbPrimalRound* rd, const tbPrimalScratch* q) {
  int nv = tb_primalNv(m), tree = tb_primalTree(m);
  memset(q->H, 0, sizeof(double) * (size_t)nv * nv);
  if (tree) {
    tb_primalTreeMassMatrix(m, w, q->H);
  } else {
    tb_primalBodyMassMatrix(m, q->mass, q->H);
  }
  for (int k = 0; k < p->nblock; k++) {
    int i0 = p->blk_adr[k], dim = p->blk_dim[k];
    double z[3] = {0.0, 0.0, 0.0}, x[3], D[9];
    tb_primalZ(p, rd, k, z);
    tb_primalProjectBlock(p, k, z, x, D);
    double inv_r = 1.0 / tb_primalR(rd, i0);
    if (tree) {
      tb_primalTreeBlock(m, w, i0, dim, D, inv_r, q->G, q->H);
    } else {
      tb_primalBodyBlock(m, w, i0, dim, D, inv_r, q->H);
    }
  }
}

// grad = M dv - J^T x (static bodies' entries 0)
TB_HD void tb_primalGradient(const tbModel* m, const tbWork* w, const tbPrimalScratch* q,
                             const double* x) {
  double* grad = q->grad;
  tb_primalMassTimes(m, w, q->mass, q->dv, grad);
  for (int i = 0; i < w->nrow; i++) {
    if (tb_primalTree(m)) {
      const int* span;
      const double* jq = tb_primalRowJq(m, w, i, &span);
      for (int k = span[0]; k < span[1]; k++) grad[k] -= jq[k] * x[i];
      continue;
    }
    for (int side = 0; side < 2; side++) {
      int b = w->row[i].body[side];
      if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
      for (int k = 0; k < 6; k++) grad[6 * b + k] -= w->row[i].J[side][k] * x[i];
    }
  }
}

// F's slope along d at u + alpha J d, d^T M (dv + alpha d) - (J d)^T x(alpha), and into *curv
// its rate (F'' there: d^T M d + sum_k (J_k d)^T D_k (J_k d) / r_k, constant between the
// zones' borders); mdv = d^T M dv, mdd = d^T M d
TB_HD double tb_primalSlope(const tbProblem* p, tbPrimalRound* rd, double mdv, double mdd,
                            double alpha, double* x, double* curv) {
  rd->alpha = alpha;
  double s = mdv + alpha * mdd, c = mdd;
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k], dim = p->blk_dim[k];
    double z[3] = {0.0, 0.0, 0.0}, D[9];  // dim of them set (the compiler cannot see dim >= 1)
    tb_primalZ(p, rd, k, z);
    tb_primalProjectBlock(p, k, z, x + i, D);
    const double* jd = rd->jd + i;
    for (int a = 0; a < dim; a++) {
      s -= jd[a] * x[i + a];
      double g = 0.0;
      for (int b = 0; b < dim; b++) g += D[a * dim + b] * jd[b];
      c += jd[a] * g / tb_primalR(rd, i);
    }
  }
  *curv = c;
  return s;
}

// the step along d that zeroes F's slope (convex: the slope grows with alpha) to TB_PRIMAL_FLAT
// of its value at 0, by Newton's method on the slope (F piecewise quadratic along d: each step
// lands on the root of the piece it starts on) from Newton's own step 1, kept within the bracket
// the slopes' signs give (a step outside it is the bracket's secant; no upper end yet: doubled).
// On a pushing arm's steps the secant steps alone took 12 slopes a direction. *exact = 1 where
// Newton's own step is the answer (F quadratic along d: the zones held).
TB_HD double tb_primalSearch(const tbProblem* p, tbPrimalRound* rd, double mdv, double mdd,
                             double* x, int* exact) {
  double c;
  double s0 = tb_primalSlope(p, rd, mdv, mdd, 0.0, x, &c);
  *exact = !(s0 < 0.0);  // F's minimum already (or a slope not finite: no step)
  if (*exact) return 0.0;
  double flat = TB_PRIMAL_FLAT * -s0, lo = 0.0, slo = s0, hi = INFINITY, shi = 0.0, a = 1.0;
  double sa = tb_primalSlope(p, rd, mdv, mdd, a, x, &c);
  *exact = fabs(sa) <= flat;
  for (int it = 0; it < TB_PRIMAL_SEARCH && fabs(sa) > flat; it++) {
    if (sa < 0.0) {
      lo = a, slo = sa;
    } else {
      hi = a, shi = sa;
    }
    if (hi - lo <= 1e-12 * hi) break;
    double next = a - sa / c;
    if (!(next > lo && next < hi)) {
      next = hi < INFINITY ? lo - slo * (hi - lo) / (shi - slo) : 2.0 * a;
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    }
    a = next;
    sa = tb_primalSlope(p, rd, mdv, mdd, a, x, &c);
  }
  return a;
}

// u = b + J dv (every row)
TB_HD void tb_primalRowVelocities(const tbModel* m, const tbWork* w, const double* dv, double* u) {
  for (int i = 0; i < w->nrow; i++) u[i] = w->b[i] + tb_primalRowDot(m, w, i, dv);
}

// each contact's De Saxce shift mu |u_t| on its normal row of s (the other rows' entries 0)
TB_HD void tb_primalShift(const tbProblem* p, const double* u, double* s) {
  memset(s, 0, sizeof(double) * (size_t)p->n);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_type[k] == TB_BLOCK_CONTACT && p->blk_dim[k] == 3) {
      s[i] = p->blk_mu[k] * sqrt(u[i + 1] * u[i + 1] + u[i + 2] * u[i + 2]);
    }
  }
}

// one round's Newton iterations from q->dv (left at the round's answer, its impulses in w->x),
// until the search ends on Newton's own step (F quadratic there: the zones held), the step moves
// no row's velocity by `step`, or TB_PRIMAL_NEWTON; 0, or 1 when the Hessian is not positive
// definite
TB_HD int tb_primalNewton(const tbModel* m, tbWork* w, const tbProblem* p, tbPrimalRound* rd,
                          const tbPrimalScratch* q, double step, int* iterations) {
  double *H = q->H, *grad = q->grad, *d = q->d, *u = q->u, *jd = q->jd, *dv = q->dv;
  int* first = q->first;
  int nv = tb_primalNv(m);
  for (int it = 0; it < TB_PRIMAL_NEWTON; it++) {
    tb_primalRowVelocities(m, w, dv, u);
    rd->u = u, rd->jd = NULL;
    tb_primalImpulses(p, rd, w->x);
    tb_primalGradient(m, w, q, w->x);
    tb_primalHessian(m, w, p, rd, q);
    for (int i = 0; i < nv; i++) first[i] = tbu_envelopeStart(H + (size_t)i * nv, i);
    if (tbu_cholEnvelope(tb_solo(), nv, H, first)) return 1;
    for (int k = 0; k < nv; k++) d[k] = -grad[k];
    tbu_cholSolveEnvelope(nv, H, first, d);
    ++*iterations;
    double move = 0.0;
    for (int i = 0; i < p->n; i++) {
      jd[i] = tb_primalRowDot(m, w, i, d);
      move = fmax(move, fabs(jd[i]));
    }
    tb_primalMassTimes(m, w, q->mass, d, grad);  // M d, into the gradient's place
    double mdv = 0.0, mdd = 0.0;
    for (int k = 0; k < nv; k++) mdv += grad[k] * dv[k], mdd += grad[k] * d[k];
    rd->jd = jd;
    int exact;
    double alpha = tb_primalSearch(p, rd, mdv, mdd, w->x, &exact);
    for (int k = 0; k < nv; k++) dv[k] += alpha * d[k];
    if (exact || alpha * move <= step) break;
  }
  tb_primalRowVelocities(m, w, dv, u);
  rd->u = u, rd->jd = NULL;
  tb_primalImpulses(p, rd, w->x);
  return 0;
}

// the rows' u = b + J dv + cfm x of x and its dv (q->uf), and x's residual from it
TB_HD double tb_primalResidual(const tbModel* m, const tbWork* w, const tbProblem* p,
                               const tbPrimalScratch* q) {
  tb_primalRowVelocities(m, w, q->dv, q->uf);
  for (int i = 0; i < p->n; i++) q->uf[i] += w->row[i].cfm * w->x[i];
  return tb_residualFromVelocity(p, w->x, q->uf);
}

// the rounds from w->x (the lead's part of tb_solvePrimal) until x's residual is within exact,
// stalls (TB_PRIMAL_GAIN) or TB_PRIMAL_ROUNDS: 0, or -1 where a Hessian is not positive
// definite; q->best ends as the best x
TB_HD int tb_primalRounds(const tbModel* m, tbWork* w, const tbProblem* p, double tol, double exact,
                          const tbPrimalScratch* q, int* iterations) {
  size_t n = (size_t)p->n;
  double bn = 0.0;
  for (size_t i = 0; i < n; i++) bn += p->b[i] * p->b[i];
  double step = TB_PRIMAL_STEP * tol * sqrt(bn), rbest = INFINITY, last = INFINITY;
  memcpy(q->best, w->x, sizeof(double) * n);
  for (int round = 0;; round++) {
    tb_primalImpulseVelocities(m, w, q->dv);
    double r = tb_primalResidual(m, w, p, q);
    if (r < rbest) {
      rbest = r;
      memcpy(q->best, w->x, sizeof(double) * n);
    }
    int stalled =
        r > (r <= tol ? TB_PRIMAL_GAIN : TB_PRIMAL_STALL) * last && (r <= tol || round > 1);
    if (!(r > exact) || stalled || round == TB_PRIMAL_ROUNDS) return 0;
    last = r;
    memcpy(q->c, w->x, sizeof(double) * n);
    tb_primalShift(p, q->uf, q->s);
    tbPrimalRound rd = {q->u, q->c, NULL, q->s, q->cfm, q->prox, 0.0};
    double inexact = tb_primalTree(m) ? TB_PRIMAL_INEXACT * r * sqrt(bn) : 0.0;
    if (tb_primalNewton(m, w, p, &rd, q, fmax(step, inexact), iterations)) return -1;
  }
}

// the close: x's residual from scratch into res (converged where it meets tol), and in body space
// the bodies' impulse velocities (tb_bodyFinish)
TB_HD void tb_primalFinish(const tbModel* m, tbWork* w, const tbProblem* p, const tbSolverOpt* opt,
                           const tbPrimalScratch* q, tbSolveResult* res) {
  res->reason = TB_STOP_MAXITER;
  if (!tb_primalTree(m)) {
    tb_bodyFinish(m, w, p, opt, q->u, res);
    return;
  }
  res->residual = tb_residual(p, w->x, q->u);
  res->converged = res->residual <= opt->tol;
  if (res->converged) res->reason = TB_STOP_CONVERGED;
}

// the primal stage on the step's problem p from w->x, by team t's lead: rounds until the rigid
// residual (of x with dv = M^-1 J^T x from scratch) is within exact (tb_primalRounds). w->x ends
// as the best round's impulses, the start of the dual stages where they miss opt->tol (from the
// warm start instead, the 9-box tower's steps ended at 0.16 as without the stage; stack seed 1's
// at 1.1e-7 where from the warm start they converge), in body space w->body_dv as their impulse
// velocities, res as their residual from scratch and the Newton iterations; -1 (x the start)
// where the stage does not apply or a Hessian is not positive definite. Not inlined: the
// kernel's ptxas time
TB_HDN int tb_solvePrimal(tbTeam t, const tbModel* m, tbWork* w, const tbProblem* p,
                          const tbSolverOpt* opt, double exact, tbSolveResult* res) {
  int rc = -1;
  memset(res, 0, sizeof(*res));
  tbPrimalScratch q = tb_primalScratch(m, w, p->n);
  if (t.lane == 0 && tb_primalApplies(m, w, p, &q)) {
    memcpy(q.start, w->x, sizeof(double) * (size_t)p->n);
    rc = tb_primalRounds(m, w, p, opt->tol, exact, &q, &res->iterations);
    memcpy(w->x, rc ? q.start : q.best, sizeof(double) * (size_t)p->n);
    tb_primalFinish(m, w, p, opt, &q, res);
  }
  return tb_teamShareInt(t, rc);
}

// whether auto tries a step in minimal coordinates with the primal stage (in the generalized
// velocities) where its contacts are redundant (tb_solveTreeFirst), A being assembled already;
// not where a step's solve is redone from its rows
TB_HD int tb_treePrimalFirst(const tbModel* m) {
  return m->nq > 0 && m->opt.solver == TB_SOLVER_AUTO && !m->opt.implicit && !m->opt.corners &&
         !m->opt.quasistatic;
}

// auto's first stages on a step in minimal coordinates (tb_treePrimalFirst), by team t: the
// guessed active set's answer from the warm start (auto's own first stage), then the primal
// stage (in the generalized velocities) where that misses: 1 when either meets the tolerance
// (res holds it), else 0 with w->x the better of the warm start and the stage's best round (a
// squeezing step the stage left at 1.1e-8 went unconverged from the warm start, 1426
// iterations) and *tried the iterations spent. On the generated gripper family (a part
// squeezed between two pads on slides) the dual stages took 18 LM iterations a step where the
// primal one takes 1 (seed 8), while where the warm start's active set holds (seed 6: 1.6 a
// step) the primal stage alone took 3x the time; a warm start kept as exact goes to auto as it
// is, and a step below TB_PRIMAL_REDUNDANT_TREE rows a DoF too
TB_HDN int tb_solveTreeFirst(tbTeam t, const tbModel* m, tbWork* w, tbProblem* p,
                             const tbSolverOpt* so, tbSolveResult* res, int* tried) {
  memset(res, 0, sizeof(*res));
  if (p->n < TB_PRIMAL_REDUNDANT_TREE * m->ndof) return 0;  // auto's own first stage would repeat
  double r0 = tb_residualTeam(t, p, w->x, w->solver_work.d);
  res->residual = r0;
  if (tb_startKept(so, r0)) return 0;
  if (tb_activeSetFirst(t, p, so, w->x, &w->solver_work, res)) return 1;
  if (tb_solvePrimal(t, m, w, p, so, tb_exactTol(so), res) != 0) return 0;
  tb_teamShareResult(t, res);
  if (res->converged) return 1;
  *tried = res->iterations;
  if (!(res->residual < r0)) tb_teamCopy(t, w->x, tb_primalScratch(m, w, p->n).start, p->n);
  return 0;
}

#endif  // TUMBLE_HOST_STAGE_PRIMAL_H_

// auto's first stage on steps of many contacts between free bodies: Newton in the bodies'
// velocities (nv = 6 a body) on a proximal regularization of the contact problem, the outer
// rounds taking it to the rigid answer (issue 60: a 9-box tower's 174 rows, rank 54, took NNCG
// and the dense stages 191 sweeps and iterations a step, LU on 174 x 174 where MuJoCo factors
// its 54 x 54 Hessian).
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
// + s e_n) / r), the natural map at step 1/r. Every stage is the scene's own (TB_HD).
#ifndef TUMBLE_HOST_STAGE_PRIMAL_H_
#define TUMBLE_HOST_STAGE_PRIMAL_H_

#include <math.h>
#include <string.h>

#include <tumble/problem.h>

#include "math/cone.h"
#include "math/dense.h"
#include "solver/residual.h"

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
// a round that does not halve the residual ends the stage: at the tolerance it is round-off
// (1e-11 on the tower), above it the rest goes to NNCG and the dual stages from the best round
#define TB_PRIMAL_GAIN 0.5
#define TB_PRIMAL_ROUNDS 40   // proximal rounds at most
#define TB_PRIMAL_NEWTON 12   // Newton iterations a round at most
#define TB_PRIMAL_SEARCH 30   // line-search steps at most
#define TB_PRIMAL_FLAT 1e-10  // a slope this small against the start's: the search's end
#define TB_PRIMAL_STEP 1e-3   // a round ends when its step moves no row by this x tol x |b|

// the doubles the primal stage takes on a step of n rows: H (nv^2), the bodies' masses (12 a
// body), the gradient and the direction (nv each), and per row the center, the shift, J d, u,
// the best x and the start (6 n)
TB_HD size_t tb_primalWords(const tbModel* m, int n) {
  size_t nv = 6 * (size_t)m->nbody;
  return nv * nv + 12 * (size_t)m->nbody + 2 * nv + 6 * (size_t)n;
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

// whether the stage applies to the step: every block a contact on the exact cone without
// compliance, with a_nn > 0, every dynamic body free, and the scratch holds it. Fills mass (12 a
// body; static and kinematic bodies' entries 0).
TB_HD int tb_primalApplies(const tbModel* m, const tbWork* w, const tbProblem* p, double* mass) {
  if (p->cone != 0 || w->solver_work.nd < tb_primalWords(m, p->n) ||
      w->solver_work.ni < 6 * (size_t)m->nbody)
    return 0;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != TB_BLOCK_CONTACT || p->blk_dim[k] == 2) return 0;
    if (!(w->blk_diag[3 * p->blk_adr[k]] > 0.0)) return 0;  // r would be 0
  }
  for (int i = 0; i < p->n; i++) {
    if (w->row[i].cfm != 0.0) return 0;
  }
  int ndof = 0;
  for (int b = 0; b < m->nbody; b++) {
    memset(mass + 12 * b, 0, sizeof(double) * 12);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    if (m->body_pjnt[b] >= 0 || !tb_primalBodyMass(w->minv + 12 * b, mass + 12 * b)) return 0;
    ndof += 6;
  }
  return p->n >= TB_PRIMAL_REDUNDANT * ndof;
}

// out = M v (6 a body) from the masses
TB_HD void tb_primalMassTimes(const tbModel* m, const double* mass, const double* v, double* out) {
  for (int b = 0; b < m->nbody; b++) {
    const double *mb = mass + 12 * b, *vb = v + 6 * b;
    double* ob = out + 6 * b;
    for (int k = 0; k < 3; k++) ob[k] = mb[k] * vb[k];
    for (int k = 0; k < 3; k++) {
      ob[3 + k] = mb[3 + 3 * k] * vb[3] + mb[4 + 3 * k] * vb[4] + mb[5 + 3 * k] * vb[5];
    }
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

// the round's state: rows' u = b + J dv, centers c, J d along Newton's direction (NULL: none),
// shifts s (on each block's normal row)
typedef struct tbPrimalRound {
  const double *u, *c, *jd, *s;
  double alpha;  // the point u + alpha J d
} tbPrimalRound;

// block k's z at the round's point (dim rows into z)
TB_HD void tb_primalZ(const tbWork* w, const tbProblem* p, const tbPrimalRound* rd, int k,
                      double* z) {
  int i = p->blk_adr[k], dim = p->blk_dim[k];
  double r = TB_PRIMAL_RHO * w->blk_diag[3 * i];
  for (int j = 0; j < dim; j++) {
    double u = rd->u[i + j] + (rd->jd ? rd->alpha * rd->jd[i + j] : 0.0);
    z[j] = -(u + (j == 0 ? rd->s[i] : 0.0) - r * rd->c[i + j]) / r;
  }
}

// the round's impulses x at its point (every row)
TB_HD void tb_primalImpulses(const tbWork* w, const tbProblem* p, const tbPrimalRound* rd,
                             double* x) {
  for (int k = 0; k < p->nblock; k++) {
    double z[3];
    tb_primalZ(w, p, rd, k, z);
    tb_primalProject(z, p->blk_dim[k], p->blk_mu[k], x + p->blk_adr[k], NULL);
  }
}

// H = M + J^T D J / r at the round's point (nv x nv, lower and upper), static bodies' rows the
// identity (their d stays 0)
TB_HD void tb_primalHessian(const tbModel* m, const tbWork* w, const tbProblem* p,
                            const tbPrimalRound* rd, const double* mass, double* H) {
  int nv = 6 * m->nbody;
  memset(H, 0, sizeof(double) * (size_t)nv * nv);
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
  for (int k = 0; k < p->nblock; k++) {
    int i0 = p->blk_adr[k], dim = p->blk_dim[k];
    double z[3], x[3], D[9];
    tb_primalZ(w, p, rd, k, z);
    tb_primalProject(z, dim, p->blk_mu[k], x, D);
    double inv_r = 1.0 / (TB_PRIMAL_RHO * w->blk_diag[3 * i0]);
    const tbRowJ* row = w->row + i0;
    for (int sa = 0; sa < 2; sa++) {
      int ba = row->body[sa];
      if (ba < 0 || m->body_type[ba] != TB_BODY_DYNAMIC) continue;
      for (int sb = 0; sb < 2; sb++) {
        int bb = row->body[sb];
        if (bb < 0 || m->body_type[bb] != TB_BODY_DYNAMIC) continue;
        // G = D J_b (dim x 6), then H_ab += J_a^T G / r
        double G[3][6];
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
}

// grad = M dv - J^T x (static bodies' entries 0)
TB_HD void tb_primalGradient(const tbModel* m, const tbWork* w, const double* mass,
                             const double* dv, const double* x, double* grad) {
  tb_primalMassTimes(m, mass, dv, grad);
  for (int i = 0; i < w->nrow; i++) {
    for (int side = 0; side < 2; side++) {
      int b = w->row[i].body[side];
      if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
      for (int k = 0; k < 6; k++) grad[6 * b + k] -= w->row[i].J[side][k] * x[i];
    }
  }
}

// F's slope along d at u + alpha J d: d^T M (dv + alpha d) - (J d)^T x(alpha); mdv = d^T M dv,
// mdd = d^T M d
TB_HD double tb_primalSlope(const tbWork* w, const tbProblem* p, tbPrimalRound* rd, double mdv,
                            double mdd, double alpha, double* x) {
  rd->alpha = alpha;
  tb_primalImpulses(w, p, rd, x);
  double s = mdv + alpha * mdd;
  for (int i = 0; i < p->n; i++) s -= rd->jd[i] * x[i];
  return s;
}

// the step along d that zeroes F's slope (convex: the slope grows with alpha), by safeguarded
// secant steps within a bracket, to TB_PRIMAL_FLAT of the slope at 0; *exact = 1 where Newton's
// own step does (F quadratic along d: the zones held)
TB_HD double tb_primalSearch(const tbWork* w, const tbProblem* p, tbPrimalRound* rd, double mdv,
                             double mdd, double* x, int* exact) {
  double s0 = tb_primalSlope(w, p, rd, mdv, mdd, 0.0, x);
  *exact = !(s0 < 0.0);  // F's minimum already (or a slope not finite: no step)
  if (*exact) return 0.0;
  double flat = TB_PRIMAL_FLAT * -s0;
  double lo = 0.0, slo = s0, hi = 1.0, shi = tb_primalSlope(w, p, rd, mdv, mdd, 1.0, x);
  *exact = fabs(shi) <= flat;
  if (*exact) return 1.0;
  while (shi < 0.0 && hi < 1e6) {  // a short Newton step: doubled while F still falls
    lo = hi, slo = shi;
    hi *= 2.0;
    shi = tb_primalSlope(w, p, rd, mdv, mdd, hi, x);
  }
  double a = hi;
  for (int it = 0; it < TB_PRIMAL_SEARCH && fabs(shi) > flat; it++) {
    a = lo - slo * (hi - lo) / (shi - slo);
    if (!(a > lo && a < hi)) a = 0.5 * (lo + hi);
    double sa = tb_primalSlope(w, p, rd, mdv, mdd, a, x);
    if (sa < 0.0) {
      lo = a, slo = sa;
    } else {
      hi = a, shi = sa;
    }
    if (fabs(sa) <= flat || hi - lo <= 1e-12 * hi) break;
  }
  return a;
}

// u = b + J dv (every row)
TB_HD void tb_primalRowVelocities(const tbWork* w, const double* dv, double* u) {
  for (int i = 0; i < w->nrow; i++) u[i] = w->b[i] + tb_rowVelocityOf(w, i, dv);
}

// each contact's De Saxce shift mu |u_t| on its normal row of s (the other rows' entries 0)
TB_HD void tb_primalShift(const tbProblem* p, const double* u, double* s) {
  memset(s, 0, sizeof(double) * (size_t)p->n);
  for (int k = 0; k < p->nblock; k++) {
    int i = p->blk_adr[k];
    if (p->blk_dim[k] == 3) s[i] = p->blk_mu[k] * sqrt(u[i + 1] * u[i + 1] + u[i + 2] * u[i + 2]);
  }
}

// the stage's scratch within the solver's (tb_primalWords doubles, nv ints)
typedef struct tbPrimalScratch {
  double *H, *mass, *grad, *d;  // nv^2, 12 a body, nv, nv
  double *c, *s, *jd, *u;       // n each: the round's center, shift, J d and u
  double *best, *start;         // n each
  int* first;                   // nv: H's envelope
} tbPrimalScratch;

TB_HD tbPrimalScratch tb_primalScratch(const tbModel* m, int n, tbSolverWork* sw) {
  size_t nv = 6 * (size_t)m->nbody;
  tbPrimalScratch q;
  q.H = sw->d;
  q.mass = q.H + nv * nv;
  q.grad = q.mass + 12 * (size_t)m->nbody;
  q.d = q.grad + nv;
  q.c = q.d + nv;
  q.s = q.c + n;
  q.jd = q.s + n;
  q.u = q.jd + n;
  q.best = q.u + n;
  q.start = q.best + n;
  q.first = sw->i;
  return q;
}

// one round's Newton iterations from w->body_dv (left at the round's answer, its impulses in
// w->x), until the search ends on Newton's own step (F quadratic there: the zones held), the
// step moves no row's velocity by `step`, or TB_PRIMAL_NEWTON; 0, or 1 when the Hessian is not
// positive definite
TB_HD int tb_primalNewton(const tbModel* m, tbWork* w, const tbProblem* p, tbPrimalRound* rd,
                          const tbPrimalScratch* q, double step, int* iterations) {
  double *H = q->H, *grad = q->grad, *d = q->d, *u = q->u, *jd = q->jd;
  const double* mass = q->mass;
  int* first = q->first;
  int nv = 6 * m->nbody;
  double* dv = w->body_dv;
  for (int it = 0; it < TB_PRIMAL_NEWTON; it++) {
    tb_primalRowVelocities(w, dv, u);
    rd->u = u, rd->jd = NULL;
    tb_primalImpulses(w, p, rd, w->x);
    tb_primalGradient(m, w, mass, dv, w->x, grad);
    tb_primalHessian(m, w, p, rd, mass, H);
    for (int i = 0; i < nv; i++) first[i] = tbu_envelopeStart(H + (size_t)i * nv, i);
    if (tbu_cholEnvelope(tb_solo(), nv, H, first)) return 1;
    for (int k = 0; k < nv; k++) d[k] = -grad[k];
    tbu_cholSolveEnvelope(nv, H, first, d);
    ++*iterations;
    double move = 0.0;
    for (int i = 0; i < p->n; i++) {
      jd[i] = tb_rowVelocityOf(w, i, d);
      move = fmax(move, fabs(jd[i]));
    }
    tb_primalMassTimes(m, mass, d, grad);  // M d, into the gradient's place
    double mdv = 0.0, mdd = 0.0;
    for (int k = 0; k < nv; k++) mdv += grad[k] * dv[k], mdd += grad[k] * d[k];
    rd->jd = jd;
    int exact;
    double alpha = tb_primalSearch(w, p, rd, mdv, mdd, w->x, &exact);
    for (int k = 0; k < nv; k++) dv[k] += alpha * d[k];
    if (exact || alpha * move <= step) break;
  }
  tb_primalRowVelocities(w, dv, u);
  rd->u = u, rd->jd = NULL;
  tb_primalImpulses(w, p, rd, w->x);
  return 0;
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
    tb_bodyImpulseVelocities(m, w);
    tb_primalRowVelocities(w, w->body_dv, q->u);
    double r = tb_residualFromVelocity(p, w->x, q->u);
    if (r < rbest) {
      rbest = r;
      memcpy(q->best, w->x, sizeof(double) * n);
    }
    int stalled = r > TB_PRIMAL_GAIN * last && (r <= tol || round > 1);
    if (!(r > exact) || stalled || round == TB_PRIMAL_ROUNDS) return 0;
    last = r;
    memcpy(q->c, w->x, sizeof(double) * n);
    tb_primalShift(p, q->u, q->s);
    tbPrimalRound rd = {q->u, q->c, NULL, q->s, 0.0};
    if (tb_primalNewton(m, w, p, &rd, q, step, iterations)) return -1;
  }
}

// the primal stage on the step's problem p from w->x, by team t's lead: rounds until the rigid
// residual (of x with dv = M^-1 J^T x from scratch) is within exact (tb_primalRounds). w->x ends
// as the best round's impulses, the start of the dual stages where they miss opt->tol (from the
// warm start instead, the 9-box tower's steps ended at 0.16 as without the stage; stack seed 1's
// at 1.1e-7 where from the warm start they converge), w->body_dv as their impulse velocities,
// res as their residual from scratch and the Newton iterations; -1 (x the start) where the stage
// does not apply or a Hessian is not positive definite. Not inlined: the kernel's ptxas time
TB_HDN int tb_solvePrimal(tbTeam t, const tbModel* m, tbWork* w, const tbProblem* p,
                          const tbSolverOpt* opt, double exact, tbSolveResult* res) {
  int rc = -1;
  memset(res, 0, sizeof(*res));
  tbPrimalScratch q = tb_primalScratch(m, p->n, &w->solver_work);
  if (t.lane == 0 && tb_primalApplies(m, w, p, q.mass)) {
    memcpy(q.start, w->x, sizeof(double) * (size_t)p->n);
    rc = tb_primalRounds(m, w, p, opt->tol, exact, &q, &res->iterations);
    memcpy(w->x, rc ? q.start : q.best, sizeof(double) * (size_t)p->n);
    res->reason = TB_STOP_MAXITER;
    tb_bodyFinish(m, w, p, opt, q.u, res);
  }
  return tb_teamShareInt(t, rc);
}

#endif  // TUMBLE_HOST_STAGE_PRIMAL_H_

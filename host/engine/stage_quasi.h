// Stage: the quasistatic step (thesis §3.4, Trinkle, Berard & Pang), where M dv/dt is replaced
// by 0. The step finds the velocities v (the displacement over the step, Delta q = h G v, Eq.
// 3.36) and the rows' impulses p with
//   0 = J^T p + h f_app                       (Eq. 3.37, lambda = p / h)
//   u = J v + b in the rows' sets             (contacts: Coulomb's law on the displacement)
// b as in the dynamic step (gap / h, the kinematic bodies' motion): with the exact cone this is
// Model-DQC (the mixed NCP of Eq. 3.38-3.40), with the pyramid Model-DLC (the mixed LCP of Eq.
// 3.41-3.43).
//
// Its problem has no mass, so a zero block where the Delassus problem has M: PGS and prox cannot
// take it, and the Newton solvers stall on its kinks (tried: M&J's LM on the mixed problem left
// the fence-particle problem at residual 1e-3 where the fence leaves the particle). It is solved by
// proximal point on v instead: round k solves the step's Delassus problem for bodies of mass
// rho M moving at v_k,
//   rho M (v - v_k) = J^T p + h f_app,   u = J v + b in the rows' sets,
// by the model's solver, then v_k+1 = v. A fixed point (v = v_k) satisfies Eq. 3.37 exactly, and
// rho M (v - v_k), the force balance's residual, is what the rounds drive below the tolerance.
// Every round has the same A = J (rho M)^-1 J^T (only b moves with v_k) and starts from the last
// round's impulses. Where the solution is not unique (frictionless DLC between two walls) the
// rounds keep the one nearest the start v_0, the previous step's velocity: the answer follows
// the initial guess, as the thesis observed.
#ifndef TUMBLE_HOST_STAGE_QUASI_H_
#define TUMBLE_HOST_STAGE_QUASI_H_

#include <math.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/stage_assemble.h"

// the proximal weight rho: the rounds' bodies weigh rho times the real ones
#define TB_QUASI_RHO 1e-3
// the rounds' cap per step; a step that ends it with the forces unbalanced is unconverged, or,
// unbalanced by more than TB_QUASI_NO_BALANCE, has no equilibrium: the rounds' velocities then
// grow without bound (a pull beyond what friction holds: -383 m/s after 100 rounds where the
// forces missed by 3 %)
#define TB_QUASI_ROUNDS 100
#define TB_QUASI_NO_BALANCE 1e-3
#define TB_QUASI_UNBALANCED -2  // tb_quasiSolve's answer then

// mass inverse (of rho M), h f_app into qsf and v_free = v_0 + (rho M)^-1 h f_app, v_0 the
// previous step's velocity (0 without warm start)
TB_HD void tb_quasiPrepare(const tbModel* m, const tbData* d, int s, tbWork* w) {
  tb_massInverse(m, w);
  for (int i = 0; i < 12 * m->nbody; i++) w->minv[i] *= 1.0 / TB_QUASI_RHO;
  double* hf = w->qsf;
  for (int b = 0; b < m->nbody; b++) tb_appliedWrench(m, w, b, hf + 6 * b);
  tb_driveForces(m, w, hf);
  const double* vel = d->body_vel + (size_t)s * m->nbody * 6;
  for (int b = 0; b < m->nbody; b++) {
    double* vb = w->vfree + 6 * b;
    memset(vb, 0, sizeof(double) * 6);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    for (int k = 0; k < 6; k++) hf[6 * b + k] *= w->h;
    tb_mulMinv(w, b, hf + 6 * b, vb);
    for (int k = 0; k < 6; k++) vb[k] += m->opt.warmstart ? vel[6 * b + k] : 0.0;
  }
}

// the force balance J^T p + h f_app of the round's impulses into qsf's second half, and its
// size over the unlocked DoFs relative to the forces that meet there (|h f_app| + sum |J_i^T p_i|)
TB_HD double tb_quasiBalance(const tbModel* m, tbWork* w) {
  int nv = 6 * m->nbody;
  double *r = w->qsf + nv, *size = w->qsf + 2 * nv;
  for (int i = 0; i < nv; i++) {
    r[i] = w->qsf[i];
    size[i] = fabs(w->qsf[i]);
  }
  for (int i = 0; i < w->nrow; i++) {
    for (int side = 0; side < 2; side++) {
      int b = w->row[i].body[side];
      if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
      for (int k = 0; k < 6; k++) {
        double f = w->row[i].J[side][k] * w->x[i];
        r[6 * b + k] += f;
        size[6 * b + k] += fabs(f);
      }
    }
  }
  double res = 0.0, scale = 0.0;
  for (int b = 0; b < m->nbody; b++) {
    for (int k = 0; k < 6; k++) {
      if (m->body_type[b] != TB_BODY_DYNAMIC || (m->body_lock[b] & (1 << k))) continue;
      res += r[6 * b + k] * r[6 * b + k];
      scale += size[6 * b + k] * size[6 * b + k];
    }
  }
  return scale > 0.0 ? sqrt(res / scale) : 0.0;
}

// after a round: v = v_free + (rho M)^-1 J^T p into vfree; unless done, the next round's v_free =
// v + (rho M)^-1 h f_app and its b
TB_HD void tb_quasiNext(const tbModel* m, tbWork* w, int done) {
  tb_applyImpulse(m, w);
  if (done) return;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double dv[6];
    tb_mulMinv(w, b, w->qsf + 6 * b, dv);
    for (int k = 0; k < 6; k++) w->vfree[6 * b + k] += dv[k];
  }
  for (int i = 0; i < w->nrow; i++) w->b[i] = tb_rowFree(m, w, &w->row[i]);
}

#endif  // TUMBLE_HOST_STAGE_QUASI_H_

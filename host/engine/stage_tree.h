// Stage: the step in minimal (joint) coordinates, for models with minimal joints (Mylapilli &
// Jain §2; Featherstone's algorithms in world coordinates).
//
// The generalized velocity nu holds each root body's unlocked world DoFs ([v; w] at its center,
// as body_vel) and each minimal joint's rates (a spherical joint's three about its child's axes,
// its coordinates a unit quaternion, so nq != ndof). Every DoF k has a spatial motion axis
// s_k = (w_k, v_k), the velocity it gives the bodies beyond it as seen at the world origin, so a
// body's twist is the sum of its own and its ancestors' s_k nu_k: at its center c,
// v = v_O + w x c. Expressed about the origin, spatial inertias of a subtree simply add, which
// keeps the composite-rigid-body mass matrix and the recursive Newton-Euler bias forces free of
// frame changes. The step is then the Stewart-Trinkle one of stage_rows.h with
//   (M + h C) (nu_free - nu) = h (Q - c(q, nu) - C nu)      (C: the coordinates' damping, implicit)
//   nu+ = nu_free + (M + h C)^-1 Jq^T x,  Jq = J S         (every row mapped to joint space)
//   q+ = q + h qdot+ (coordinates; a spherical joint's quaternion turned by h times its rates),
// roots as stage_step.h integrates them; the tree's bodies by forward kinematics, so its joints
// never drift apart.
#ifndef TUMBLE_HOST_STAGE_TREE_H_
#define TUMBLE_HOST_STAGE_TREE_H_

#include <math.h>
#include <string.h>

#include "math/dense.h"
#include "math/tb_math.h"
#include "math/team.h"

#include "engine/engine.h"
#include "engine/stage_assemble.h"
#include "engine/stage_rows.h"

//---- spatial algebra (motion (w, v_O), force (n_O, f), both about the world origin) -----------

// spatial inertia about the origin of mass m with center c and world inertia Iw about c:
// (m, h = m c, Ibar = Iw + m (|c|^2 1 - c c^T)), 13 words; inertias of a subtree add
TB_HD void tb_spatialInertia(double mass, const double c[3], const double Iw[9], double I[13]) {
  double cc = tbu_dot3(c, c);
  I[0] = mass;
  tbu_scl3(I + 1, c, mass);
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < 3; k++)
      I[4 + 3 * r + k] = Iw[3 * r + k] + mass * ((r == k) * cc - c[r] * c[k]);
  }
}

// F = I V: n = Ibar w + h x v, f = m v - h x w
TB_HD void tb_spatialMul(const double I[13], const double V[6], double F[6]) {
  double t[3];
  tbu_mulMatVec3(F, I + 4, V);
  tbu_cross3(t, I + 1, V + 3);
  tbu_add3(F, F, t);
  tbu_cross3(t, I + 1, V);
  for (int k = 0; k < 3; k++) F[3 + k] = I[0] * V[3 + k] - t[k];
}

// s . F, the power of force F along motion s
TB_HD double tb_spatialDot(const double s[6], const double F[6]) {
  return tbu_dot3(s, F) + tbu_dot3(s + 3, F + 3);
}

// motion cross product V x s = (w x w', w x v' + v x w')
TB_HD void tb_crossMotion(const double V[6], const double s[6], double out[6]) {
  double t[3];
  tbu_cross3(out, V, s);
  tbu_cross3(out + 3, V, s + 3);
  tbu_cross3(t, V + 3, s);
  tbu_add3(out + 3, out + 3, t);
}

// force cross product V x* F = (w x n + v x f, w x f)
TB_HD void tb_crossForce(const double V[6], const double F[6], double out[6]) {
  double t[3];
  tbu_cross3(out, V, F);
  tbu_cross3(t, V + 3, F + 3);
  tbu_add3(out, out, t);
  tbu_cross3(out + 3, V, F + 3);
}

//---- kinematics --------------------------------------------------------------------------------

// the motion axis of DoF k with the bodies at (pos, quat) and the joints' anchors in vary: a root's
// world axis through its center of mass, a revolute joint's axis through its anchor, a prismatic
// joint's direction, a spherical joint's child axis through its anchor
TB_HD void tb_dofAxis(const tbModel* m, const double* vary, const double* pos, const double* quat,
                      int k, double s[6]) {
  int b = m->dof_body[k], ax = m->dof_axis[k];
  memset(s, 0, sizeof(double) * 6);
  if (ax < 3) {
    s[3 + ax] = 1.0;
    return;
  }
  if (ax < 6) {
    double e[3] = {0.0, 0.0, 0.0};
    e[ax - 3] = 1.0;
    tbu_copy3(s, e);
    tbu_cross3(s + 3, pos + 3 * b, e);
    return;
  }
  int j = m->body_pjnt[b];
  double u[3], r[3], p[3];
  if (ax > 6) {
    double e[3] = {0.0, 0.0, 0.0};
    e[ax - 7] = 1.0;
    tbu_rotVec(u, quat + 4 * b, e);
  } else {
    tbu_rotVec(u, quat + 4 * b, m->jnt_axis + 6 * j);
  }
  if (m->jnt_type[j] == TB_JOINT_PRISMATIC) {
    tbu_copy3(s + 3, u);
    return;
  }
  tbu_rotVec(r, quat + 4 * b, tb_jointAnchor(m, vary, j));
  tbu_add3(p, pos + 3 * b, r);
  tbu_copy3(s, u);
  tbu_cross3(s + 3, p, u);
}

// every DoF's axis at (pos, quat) into S (ndof x 6)
TB_HD void tb_treeAxes(const tbModel* m, const double* vary, const double* pos, const double* quat,
                       double* S) {
  for (int k = 0; k < m->ndof; k++) tb_dofAxis(m, vary, pos, quat, k, S + 6 * k);
}

// the tree bodies' poses from their parents' and the coordinates q (parents first): a revolute
// joint turns the child by q about its axis, a prismatic one slides it by q, a spherical one
// turns it by its quaternion, from the relative orientation they had at the model's initial
// pose, joined at the anchors of vary
TB_HD void tb_treePose(const tbModel* m, const double* vary, const double* q, double* pos,
                       double* quat) {
  for (int b = 0; b < m->nbody; b++) {
    int j = m->body_pjnt[b];
    if (j < 0) continue;
    int p = m->jnt_body[2 * j + 1];
    double qp[4] = {1.0, 0.0, 0.0, 0.0}, pp[3] = {0.0, 0.0, 0.0};
    if (p >= 0) {
      memcpy(qp, quat + 4 * p, sizeof(qp));
      tbu_copy3(pp, pos + 3 * p);
    }
    const double *anca = tb_jointAnchor(m, vary, j), *axa = m->jnt_axis + 6 * j;
    double qa[4], qr[4], turn[4], ra[3], rb[3];
    const double* qj = q + m->jnt_qadr[j];
    const double* by = m->jnt_type[j] == TB_JOINT_SPHERICAL ? qj : NULL;  // the joint's turn
    if (m->jnt_type[j] == TB_JOINT_REVOLUTE) {
      tbu_quatAxisAngle(turn, axa, qj[0]);
      by = turn;
    }
    tbu_quatMul(qr, qp, m->jnt_qrel + 4 * j);
    if (by) {
      tbu_quatMul(qa, qr, by);
    } else {
      memcpy(qa, qr, sizeof(qa));
    }
    tbu_quatNormalize(qa);
    memcpy(quat + 4 * b, qa, sizeof(qa));
    if (p >= 0) {
      tbu_rotVec(rb, qp, anca + 3);
    } else {
      tbu_copy3(rb, anca + 3);
    }
    tbu_rotVec(ra, qa, anca);
    for (int k = 0; k < 3; k++) pos[3 * b + k] = pp[k] + rb[k] - ra[k];
    if (m->jnt_type[j] == TB_JOINT_PRISMATIC) {
      double u[3];
      tbu_rotVec(u, qa, axa);
      tbu_addscl3(pos + 3 * b, pos + 3 * b, u, qj[0]);
    }
  }
}

// the spatial velocity V (nbody x 6) of every dynamic body for generalized velocity nu, axes S
TB_HD void tb_treeVelocity(const tbModel* m, const double* S, const double* nu, double* V) {
  for (int b = 0; b < m->nbody; b++) {
    double* Vb = V + 6 * b;
    memset(Vb, 0, sizeof(double) * 6);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    if (m->body_parent[b] >= 0) memcpy(Vb, V + 6 * m->body_parent[b], sizeof(double) * 6);
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
      for (int i = 0; i < 6; i++) Vb[i] += S[6 * k + i] * nu[k];
    }
  }
}

// DoF k's rate in a scene's jnt_qd (k a joint's DoF, dof_axis >= 6)
TB_HD int tb_dofRate(const tbModel* m, int k) {
  int ax = m->dof_axis[k];
  return m->jnt_qdadr[m->body_pjnt[m->dof_body[k]]] + (ax > 6 ? ax - 7 : 0);
}

// the scene's generalized velocity: roots' body_vel, joints' jnt_qd
TB_HD void tb_treeGather(const tbModel* m, const tbData* d, int s, double* nu) {
  for (int k = 0; k < m->ndof; k++) {
    int b = m->dof_body[k], ax = m->dof_axis[k];
    nu[k] = ax < 6 ? d->body_vel[((size_t)s * m->nbody + b) * 6 + ax]
                   : d->jnt_qd[(size_t)s * m->nqd + tb_dofRate(m, k)];
  }
}

// the tree bodies' twists in scene s of d (vary its vector) from its pose and its generalized
// velocity; scratch S (ndof x 6), nu (ndof), V (nbody x 6)
TB_HD void tb_treeTwists(const tbModel* m, const double* vary, tbData* d, int s, double* S,
                         double* nu, double* V) {
  const double* pos = d->body_pos + (size_t)s * m->nbody * 3;
  tb_treeAxes(m, vary, pos, d->body_quat + (size_t)s * m->nbody * 4, S);
  tb_treeGather(m, d, s, nu);
  tb_treeVelocity(m, S, nu, V);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_pjnt[b] < 0) continue;
    tb_spatialToTwist(V + 6 * b, pos + 3 * b, d->body_vel + ((size_t)s * m->nbody + b) * 6);
  }
}

// spherical joint j's quaternion (unit) that turns its child to orientation qb under its parent
// at qp (NULL: the world's)
TB_HD void tb_ballCoordinate(const tbModel* m, int j, const double* qp, const double qb[4],
                             double q[4]) {
  const double world[4] = {1.0, 0.0, 0.0, 0.0};
  tb_jointTurn(m, j, qp ? qp : world, qb, q);
  tbu_quatNormalize(q);
}

//---- dynamics ----------------------------------------------------------------------------------

// each dynamic body's spatial inertia about the origin at the work pose into w->tree_I
TB_HD void tb_treeInertia(const tbModel* m, tbWork* w) {
  for (int b = 0; b < m->nbody; b++) {
    double* I = w->tree_I + 13 * b;
    memset(I, 0, sizeof(double) * 13);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double Iw[9];
    tbu_inertiaWorld(Iw, w->xquat + 4 * b, tb_varyOf(m, w->vary, TB_F_BODY_INERTIA, b));
    tb_spatialInertia(tb_varyOf(m, w->vary, TB_F_BODY_MASS, b)[0], w->xpos + 3 * b, Iw, I);
  }
}

// the rate of DoF k's axis: a joint's axis moves with its body (V x s; a spherical joint's axes
// are its child's), a root's angular axis with its center (0, v_c x e), a root's linear axis not
// at all
TB_HD void tb_dofAxisRate(const tbModel* m, const double* s, const double* Vb, const double* twist,
                          int k, double sdot[6]) {
  int ax = m->dof_axis[k];
  memset(sdot, 0, sizeof(double) * 6);
  if (ax >= 6) {
    tb_crossMotion(Vb, s, sdot);
  } else if (ax >= 3) {
    double e[3] = {0.0, 0.0, 0.0};
    e[ax - 3] = 1.0;
    tbu_cross3(sdot + 3, twist, e);
  }
}

// the generalized force Q - c(q, nu) by recursive Newton-Euler about the origin (w->qfree):
// velocities and bias accelerations outward, each body's I a + V x* I V - f_ext inward. The
// external wrench of each body (gravity, applied force, drives) comes in w->vfree.
TB_HD void tb_treeBias(const tbModel* m, const tbWork* w, const double* nu, double* Q) {
  double* V = w->tree_V;
  double* A = w->tree_A;
  double* F = w->tree_F;
  tb_treeVelocity(m, w->dof_S, nu, V);
  for (int b = 0; b < m->nbody; b++) {
    double* Ab = A + 6 * b;
    double* Fb = F + 6 * b;
    memset(Ab, 0, sizeof(double) * 6);
    memset(Fb, 0, sizeof(double) * 6);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    if (m->body_parent[b] >= 0) memcpy(Ab, A + 6 * m->body_parent[b], sizeof(double) * 6);
    double twist[6], sdot[6], IV[6], gyro[6];
    tb_spatialToTwist(V + 6 * b, w->xpos + 3 * b, twist);
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
      tb_dofAxisRate(m, w->dof_S + 6 * k, V + 6 * b, twist, k, sdot);
      for (int i = 0; i < 6; i++) Ab[i] += sdot[i] * nu[k];
    }
    const double* I = w->tree_I + 13 * b;
    const double* fe = w->vfree + 6 * b;  // [f; tau] at the center
    double tq[3];
    tb_spatialMul(I, Ab, Fb);
    tb_spatialMul(I, V + 6 * b, IV);
    tb_crossForce(V + 6 * b, IV, gyro);
    tbu_cross3(tq, w->xpos + 3 * b, fe);
    for (int k = 0; k < 3; k++) {
      Fb[k] += gyro[k] - fe[3 + k] - tq[k];
      Fb[3 + k] += gyro[3 + k] - fe[k];
    }
  }
  for (int b = m->nbody - 1; b >= 0; b--) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
      Q[k] = -tb_spatialDot(w->dof_S + 6 * k, F + 6 * b);
    }
    int p = m->body_parent[b];
    if (p >= 0) {
      for (int i = 0; i < 6; i++) F[6 * p + i] += F[6 * b + i];
    }
  }
}

// the joint-space mass matrix by composite rigid bodies (w->tree_I becomes the composites),
// plus each joint coordinate's armature and h C on the damped ones, into w->Mq (ndof x ndof),
// and each row's envelope start into w->dof_first. M_kl is nonzero only where one DoF's body is
// the other's ancestor, so the rest is cleared: the last step's factor left fill-in there (two
// branches of one parent), and free bodies and separate trees make M block diagonal, which the
// envelope skips
TB_HD void tb_treeMass(const tbModel* m, tbWork* w) {
  int n = m->ndof;
  double* M = w->Mq;
  memset(M, 0, sizeof(double) * (size_t)n * n);
  for (int b = m->nbody - 1; b >= 0; b--) {
    int p = m->body_parent[b];
    if (p < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
    for (int i = 0; i < 13; i++) w->tree_I[13 * p + i] += w->tree_I[13 * b + i];
  }
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
      double F[6];
      tb_spatialMul(w->tree_I + 13 * b, w->dof_S + 6 * k, F);
      for (int a = b; a >= 0; a = m->body_parent[a]) {
        for (int l = m->body_dofadr[a]; l < m->body_dofadr[a] + m->body_dofnum[a]; l++) {
          if (a == b && l > k) break;
          M[k * n + l] = M[l * n + k] = tb_spatialDot(w->dof_S + 6 * l, F);
        }
      }
    }
  }
  for (int k = 0; k < n; k++) {
    if (m->dof_axis[k] < 6) continue;
    int j = m->body_pjnt[m->dof_body[k]];
    const double* prm = tb_varyOf(m, w->vary, TB_F_JOINT, j);
    M[k * n + k] += prm[TB_JNT_ARMATURE] + w->h * prm[TB_JNT_CDAMP];
  }
  for (int k = 0; k < n; k++) w->dof_first[k] = tbu_envelopeStart(M + (size_t)k * n, k);
}

// the dynamic bodies' twists at the work pose for generalized velocity nu, into w->vfree
TB_HD void tb_treeBodyTwists(const tbModel* m, tbWork* w, const double* nu) {
  tb_treeVelocity(m, w->dof_S, nu, w->tree_V);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    tb_spatialToTwist(w->tree_V + 6 * b, w->xpos + 3 * b, w->vfree + 6 * b);
  }
}

// the free generalized velocity (w->qfree) and the bodies' free twists (w->vfree); the factor of
// M + h C stays in w->Mq. Returns 0, or -1 when M + h C is not positive definite.
TB_HD int tb_treeFreeVelocity(const tbModel* m, const tbData* d, int s, tbWork* w) {
  int n = m->ndof;
  double* nu = w->tree_nu;
  double* Q = w->qfree;
  tb_treeAxes(m, w->vary, w->xpos, w->xquat, w->dof_S);
  tb_treeGather(m, d, s, nu);
  tb_treeInertia(m, w);
  for (int b = 0; b < m->nbody; b++) tb_appliedWrench(m, w, b, w->vfree + 6 * b);
  tb_driveForces(m, w, w->vfree);
  tb_treeBias(m, w, nu, Q);
  tb_treeMass(m, w);
  for (int k = 0; k < n; k++) {
    if (m->dof_axis[k] < 6) continue;
    int j = m->body_pjnt[m->dof_body[k]];
    Q[k] -= tb_varyOf(m, w->vary, TB_F_JOINT, j)[TB_JNT_CDAMP] * nu[k];
  }
  if (tbu_cholEnvelope(tb_solo(), n, w->Mq, w->dof_first)) return -1;
  tbu_cholSolveEnvelope(n, w->Mq, w->dof_first, Q);
  for (int k = 0; k < n; k++) Q[k] = nu[k] + w->h * Q[k];
  tb_treeBodyTwists(m, w, Q);
  return 0;
}

//---- rows in joint space -----------------------------------------------------------------------

// [lo, hi) of v's nonzero entries (n of them) into span (lo = hi where none)
TB_HD void tb_treeSpan(const double* v, int n, int* span) {
  int lo = 0, hi = n;
  while (lo < n && v[lo] == 0.0) lo++;
  while (hi > lo && v[hi - 1] == 0.0) hi--;
  span[0] = lo;
  span[1] = hi;
}

// A = Jq (M + h C)^-1 Jq^T + cfm, b = J v_free + bias (as tb_assemble), team t splitting rows;
// each row's Jq was made as it was pushed (tb_rowActive). A row reaches the DoFs of its two
// bodies' trees alone, so each product runs over where both rows' spans meet (none between a box
// on the floor and another: their trees are apart)
TB_HD void tb_treeAssemble(tbTeam t, const tbModel* m, tbWork* w) {
  int n = w->nrow, nd = m->ndof;
  for (int i = t.lane; i < n; i += t.size) {
    const tbRowJ* ri = &w->row[i];
    const double* jq = w->Jq + (size_t)i * nd;
    double* mj = w->MJq + (size_t)i * nd;
    memcpy(mj, jq, sizeof(double) * nd);
    tbu_cholSolveEnvelope(nd, w->Mq, w->dof_first, mj);
    tb_treeSpan(jq, nd, w->row_span + 4 * i);
    tb_treeSpan(mj, nd, w->row_span + 4 * i + 2);
    w->b[i] =
        tb_rowVelocity(m, ri, w->vfree, ri->kind == TB_ROW_VELOCITY ? w->xvel : NULL) + ri->bias;
  }
  tb_teamSync(t);
  for (int i = t.lane; i < n; i += t.size) {
    const double* jq = w->Jq + (size_t)i * nd;
    const int* si = w->row_span + 4 * i;
    for (int j = i; j < n; j++) {
      const double* mj = w->MJq + (size_t)j * nd;
      const int* sj = w->row_span + 4 * j;
      int lo = si[0] > sj[2] ? si[0] : sj[2], hi = si[1] < sj[3] ? si[1] : sj[3];
      w->A[i * n + j] = w->A[j * n + i] = lo < hi ? tbu_dotRange(jq, mj, lo, hi) : 0.0;
    }
    tb_softenRow(&w->row[i], w->A[i * n + i]);
    w->A[i * n + i] += w->row[i].cfm;
  }
  tb_teamSync(t);
}

// nu+ = nu_free + (M + h C)^-1 Jq^T x into w->qfree, the bodies' twists at the work pose into
// w->vfree (for the roots' integration)
TB_HD void tb_treeApply(const tbModel* m, tbWork* w) {
  int nd = m->ndof;
  for (int i = 0; i < w->nrow; i++) {
    double x = w->x[i];
    if (x == 0.0) continue;
    const double* mj = w->MJq + (size_t)i * nd;
    const int* span = w->row_span + 4 * i + 2;
    for (int k = span[0]; k < span[1]; k++) w->qfree[k] += mj[k] * x;
  }
  tb_treeBodyTwists(m, w, w->qfree);
}

// after the roots' integration: the coordinates to t + h (a spherical joint's quaternion by its
// child-frame rates, q <- q exp(h w / 2)), then the tree bodies' poses and twists. Returns 0 when
// a coordinate is no longer finite.
TB_HD int tb_treeIntegrate(const tbModel* m, tbData* d, int s, tbWork* w) {
  double* q = d->jnt_q + (size_t)s * m->nq;
  double* qd = d->jnt_qd + (size_t)s * m->nqd;
  int finite = 1;
  for (int k = 0; k < m->ndof; k++) {
    int ax = m->dof_axis[k];
    if (ax < 6) continue;
    qd[tb_dofRate(m, k)] = w->qfree[k];
    finite &= isfinite(w->qfree[k]);
    if (ax > 7) continue;
    double* qj = q + m->jnt_qadr[m->body_pjnt[m->dof_body[k]]];
    if (ax == 6) {
      qj[0] += w->h * w->qfree[k];
      finite &= isfinite(qj[0]);
      continue;
    }
    double th[3], dq[4], r[4];
    for (int i = 0; i < 3; i++) th[i] = w->h * w->qfree[k + i];
    tbu_quatFromRotVec(dq, th);
    tbu_quatMul(r, qj, dq);
    tbu_quatNormalize(r);
    memcpy(qj, r, sizeof(r));
  }
  tb_treePose(m, w->vary, q, d->body_pos + (size_t)s * m->nbody * 3,
              d->body_quat + (size_t)s * m->nbody * 4);
  tb_treeTwists(m, w->vary, d, s, w->dof_S, w->tree_nu, w->tree_V);
  return finite;
}

#endif  // TUMBLE_HOST_STAGE_TREE_H_

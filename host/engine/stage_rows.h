// Stage: the constraint rows of one step (tb_makeRows): the joints' geometry, the rows of
// joints, contacts and support tripods. stage_assemble.h forms their Delassus problem.
//
// Stewart-Trinkle step in impulse form (thesis Eq. 2.77/2.78, Anitescu-Potra): with
//   v_free = v + h M^-1 (f_app + m g - w x I w)          (gyroscopic term at l, thesis Eq. 2.35)
//   v+     = v_free + M^-1 J^T x                         (x: impulses p = h lambda)
// each row i has velocity u_i = J_i v+ + bias_i, where
//   contact normal:   bias = psi/h, psi evaluated with kinematic bodies at t+h (thesis §5.1.2),
//                     or min(psi/h, e u_n^- + kinematic term) for Newton restitution e;
//   contact tangent:  the kinematic bodies' velocity at t+h enters J v (d psi_t/dt, Eq. 2.78);
//   joint rows:       bias = Phi/h (full stabilization, thesis Eq. 2.78 / 2.92);
//   limits:           unilateral rows with bias = (distance to the limit)/h;
//   servo:            a compliant row, u + cfm x = 0, |x| <= fmax h, which is the implicit PD
//                     impulse x = h [kp (q* - q - h qdot+) + kd (qdot* - qdot+)];
//   compliant joints and contacts (stiffness K, damping B; tb_softRow): Drumwright's
//                     lambda = -K phi(t+h) - B phidot(t+h), the row u + cfm x = 0 (or its
//                     complementarity) with cfm = 1/(h^2 K + h B) and the bias scaled by
//                     ERP = h K / (h K + B).
#ifndef TUMBLE_HOST_STAGE_ROWS_H_
#define TUMBLE_HOST_STAGE_ROWS_H_

#include <math.h>
#include <string.h>

#include "math/support.h"
#include "math/tb_math.h"

#include "engine/engine.h"

//---- joint geometry ----------------------------------------------------------------------------

typedef struct tbJointFrame {
  int a, b;             // bodies (b = -1: world)
  double pa[3], pb[3];  // world anchors
  double ra[3], rb[3];  // anchors relative to the bodies' centers
  double aa[3], ab[3];  // world axes as seen by each body
  double qa[4], qb[4];  // orientations (world: identity)
} tbJointFrame;

TB_HD void tb_jointFrame(const tbModel* m, const tbWork* w, int j, tbJointFrame* f) {
  f->a = m->jnt_body[2 * j];
  f->b = m->jnt_body[2 * j + 1];
  for (int side = 0; side < 2; side++) {
    int b = side ? f->b : f->a;
    const double* anc = tb_jointAnchor(m, w->vary, j) + 3 * side;
    const double* ax = m->jnt_axis + 6 * j + 3 * side;
    double* p = side ? f->pb : f->pa;
    double* r = side ? f->rb : f->ra;
    double* a = side ? f->ab : f->aa;
    double* q = side ? f->qb : f->qa;
    if (b < 0) {
      tbu_copy3(p, anc);
      tbu_zero3(r);
      tbu_copy3(a, ax);
      q[0] = 1.0;
      q[1] = q[2] = q[3] = 0.0;
    } else {
      memcpy(q, w->xquat + 4 * b, sizeof(double) * 4);
      tbu_rotVec(r, q, anc);
      tbu_add3(p, w->xpos + 3 * b, r);
      tbu_rotVec(a, q, ax);
    }
  }
}

// joint j's turn of its child, at orientation qa, from the child's initial orientation relative
// to its parent at qb: qa = qb qrel0 qd
TB_HD void tb_jointTurn(const tbModel* m, int j, const double qb[4], const double qa[4],
                        double qd[4]) {
  double qref[4], qrefc[4];
  tbu_quatMul(qref, qb, m->jnt_qrel + 4 * j);
  tbu_quatConj(qrefc, qref);
  tbu_quatMul(qd, qrefc, qa);
}

// relative rotation of a since the initial pose, in a's frame (the short way round)
TB_HD void tb_jointRelQuat(const tbModel* m, int j, const tbJointFrame* f, double qd[4]) {
  tb_jointTurn(m, j, f->qb, f->qa, qd);
  if (qd[0] < 0.0) {
    for (int k = 0; k < 4; k++) qd[k] = -qd[k];
  }
}

// joint coordinate: revolute angle about the axis, or prismatic displacement along it
TB_HD double tb_jointCoord(const tbModel* m, int j, const tbJointFrame* f) {
  if (m->jnt_type[j] == TB_JOINT_PRISMATIC) {
    double d[3];
    tbu_sub3(d, f->pa, f->pb);
    return tbu_dot3(f->aa, d);
  }
  double qd[4];
  tb_jointRelQuat(m, j, f, qd);
  return 2.0 * atan2(tbu_dot3(qd + 1, m->jnt_axis + 6 * j), qd[0]);
}

//---- rows --------------------------------------------------------------------------------------

// row for the relative velocity of two points along dir: J_a = [d, ra x d], J_b = -[d, rb x d]
TB_HD void tb_rowLinear(tbRowJ* row, int a, const double ra[3], int b, const double rb[3],
                        const double dir[3]) {
  memset(row, 0, sizeof(*row));
  row->body[0] = a;
  row->body[1] = b;
  tbu_copy3(row->J[0], dir);
  tbu_cross3(row->J[0] + 3, ra, dir);
  tbu_scl3(row->J[1], dir, -1.0);
  tbu_cross3(row->J[1] + 3, rb, dir);
  tbu_scl3(row->J[1] + 3, row->J[1] + 3, -1.0);
}

// row for the relative angular velocity along dir
TB_HD void tb_rowAngular(tbRowJ* row, int a, int b, const double dir[3]) {
  memset(row, 0, sizeof(*row));
  row->body[0] = a;
  row->body[1] = b;
  tbu_copy3(row->J[0] + 3, dir);
  tbu_scl3(row->J[1] + 3, dir, -1.0);
}

// body b's twist [v; w] at its center c from its spatial velocity: v = v_O + w x c
TB_HD void tb_spatialToTwist(const double V[6], const double c[3], double twist[6]) {
  double t[3];
  tbu_cross3(t, V, c);
  tbu_add3(twist, V + 3, t);
  tbu_copy3(twist + 3, V);
}

// a row in joint space: Jq = J S over the DoFs of each of its bodies and their ancestors
TB_HD void tb_treeRowJacobian(const tbModel* m, const tbWork* w, const tbRowJ* row, double* jq) {
  memset(jq, 0, sizeof(double) * m->ndof);
  for (int side = 0; side < 2; side++) {
    int c = row->body[side];
    if (c < 0 || m->body_type[c] != TB_BODY_DYNAMIC) continue;
    const double* J = row->J[side];
    for (int a = c; a >= 0; a = m->body_parent[a]) {
      for (int k = m->body_dofadr[a]; k < m->body_dofadr[a] + m->body_dofnum[a]; k++) {
        double t[6];
        tb_spatialToTwist(w->dof_S + 6 * k, w->xpos + 3 * c, t);
        for (int i = 0; i < 6; i++) jq[k] += J[i] * t[i];
      }
    }
  }
}

// whether a row that would take slot `slot` can change any velocity: some unlocked DoF of a
// dynamic body in it, or in a model with minimal joints some generalized velocity (its joint-space
// row, w->dof_S at the work pose, goes to that slot of w->Jq, where tb_treeAssemble takes it)
TB_HD int tb_rowActive(const tbModel* m, tbWork* w, const tbRowJ* row, int slot) {
  if (m->nq > 0) {
    double* jq = w->Jq + (size_t)slot * m->ndof;
    tb_treeRowJacobian(m, w, row, jq);
    double s = 0.0;
    for (int k = 0; k < m->ndof; k++) s += jq[k] * jq[k];
    return s > 1e-20;
  }
  double s = 0.0;
  for (int side = 0; side < 2; side++) {
    int b = row->body[side];
    if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
    for (int k = 0; k < 6; k++) {
      if (!(m->body_lock[b] & (1 << k))) s += row->J[side][k] * row->J[side][k];
      if (s > 1e-20) return 1;  // the sum only grows: its first term usually decides
    }
  }
  return 0;
}

// J v over the row's bodies: dynamic ones with vel, kinematic ones with their velocity at t+h
TB_HD double tb_rowVelocity(const tbModel* m, const tbRowJ* row, const double* vel,
                            const double* kinvel) {
  double u = 0.0;
  for (int side = 0; side < 2; side++) {
    int b = row->body[side];
    if (b < 0) continue;
    const double* v = NULL;
    if (m->body_type[b] == TB_BODY_DYNAMIC) v = vel + 6 * b;
    if (m->body_type[b] == TB_BODY_KINEMATIC && kinvel) v = kinvel + 6 * b;
    if (!v) continue;
    for (int k = 0; k < 6; k++) u += row->J[side][k] * v[k];
  }
  return u;
}

typedef struct tbRowSink {
  const tbModel* m;
  tbWork* w;
} tbRowSink;

// append a scalar box row; returns 0, or -1 when the row has no effect and was skipped
TB_HD int tb_pushBox(tbRowSink* k, const tbRowJ* row, double lo, double hi, int key) {
  tbWork* w = k->w;
  if (!tb_rowActive(k->m, w, row, w->nrow)) return -1;
  int i = w->nrow++;
  w->row[i] = *row;
  w->lo[i] = lo;
  w->hi[i] = hi;
  w->row_key[i] = key;
  int bk = w->nblock++;
  w->blk_type[bk] = TB_BLOCK_BOX;
  w->blk_adr[bk] = i;
  w->blk_dim[bk] = 1;
  w->blk_mu[bk] = 0.0;
  w->blk_angle[bk] = 0.0;
  return 0;
}

// Drumwright's compliant constraint (D 53-62) on a row whose bias is phi/h: with impulse
// x = h lambda and lambda = -K (phi + h phidot+) - B phidot+, phidot+ = J v+ (the row's u less
// its bias) satisfies u + cfm x = 0 for cfm = 1 / (h (h K + B)) and the bias phi/h scaled by
// h K / (h K + B) (notes §3.4: the CFM/ERP form, which drops the M^ Gdot v term as a penalty
// method does, since M^ does not exist for redundant rows). K = B = 0 leaves the row rigid.
TB_HD void tb_softRow(tbRowJ* row, double h, double K, double B) {
  if (!(K > 0.0) && !(B > 0.0)) return;
  double c = h * K + B;
  row->cfm = 1.0 / (h * c);
  row->bias *= h * K / c;
}

// the rows that hold a joint's locked directions (a minimal joint has none: its coordinates
// hold them)
TB_HD void tb_jointLockRows(tbRowSink* k, int j, const tbJointFrame* fp) {
  const tbModel* m = k->m;
  tbWork* w = k->w;
  double h = w->h;
  const double* prm = tb_varyOf(m, w->vary, TB_F_JOINT, j);
  int type = m->jnt_type[j], nr = 0;
  tbJointFrame f = *fp;
  const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double u[3], v[3], dp[3];
  tbu_tangents(f.aa, u, v);
  tbu_sub3(dp, f.pa, f.pb);
  tbRowJ row;
  // positional rows
  for (int r = 0; r < 3; r++) {
    const double* e = ex[r];
    if (type == TB_JOINT_PRISMATIC) {
      if (r == 2) break;
      e = r ? v : u;
    }
    tb_rowLinear(&row, f.a, f.ra, f.b, f.rb, e);
    row.bias = tbu_dot3(e, dp) / h;
    tb_softRow(&row, h, prm[TB_JNT_STIFF], prm[TB_JNT_DAMP]);
    tb_pushBox(k, &row, -INFINITY, INFINITY, -(1 + 16 * j + nr++));
  }
  // rotational rows
  if (type == TB_JOINT_FIXED || type == TB_JOINT_PRISMATIC) {
    double qd[4], th[3], thw[3];
    tb_jointRelQuat(m, j, &f, qd);
    tbu_quatToRotVec(th, qd);
    tbu_rotVec(thw, f.qa, th);
    for (int r = 0; r < 3; r++) {
      tb_rowAngular(&row, f.a, f.b, ex[r]);
      row.bias = thw[r] / h;
      tb_softRow(&row, h, prm[TB_JNT_STIFF], prm[TB_JNT_DAMP]);
      tb_pushBox(k, &row, -INFINITY, INFINITY, -(1 + 16 * j + nr++));
    }
  } else if (type == TB_JOINT_REVOLUTE) {
    double c[3];
    tbu_cross3(c, f.ab, f.aa);
    for (int r = 0; r < 2; r++) {
      const double* e = r ? v : u;
      tb_rowAngular(&row, f.a, f.b, e);
      row.bias = tbu_dot3(e, c) / h;
      tb_softRow(&row, h, prm[TB_JNT_STIFF], prm[TB_JNT_DAMP]);
      tb_pushBox(k, &row, -INFINITY, INFINITY, -(1 + 16 * j + nr++));
    }
  }
}

// a spherical joint's limit, as MuJoCo's ball range: the angle theta of body_a's rotation from
// its reference orientation relative to body_b stays at most hi (the lower bound is 0). theta's
// rate is n . (w_a - w_b), n the rotation's axis; the row is its negative, as a revolute joint's
// upper limit. At theta = 0 n is undefined, and the limit (hi > 0, tb_checkParams) far away
TB_HD void tb_coneLimitRow(tbRowSink* k, int j, const tbJointFrame* f, double h,
                           const double* prm) {
  double qd[4], n[3];
  tb_jointRelQuat(k->m, j, f, qd);
  double s = tbu_norm3(qd + 1);
  if (!(s > 1e-12)) return;
  double th = 2.0 * atan2(s, qd[0]), nl[3];
  tbu_scl3(nl, qd + 1, -1.0 / s);
  tbu_rotVec(n, f->qa, nl);
  tbRowJ row;
  tb_rowAngular(&row, f->a, f->b, n);
  row.bias = (prm[TB_JNT_HI] - th) / h;
  tb_pushBox(k, &row, 0.0, INFINITY, -(1 + 16 * j + 9));
}

TB_HD void tb_jointRows(tbRowSink* k, int j) {
  const tbModel* m = k->m;
  tbWork* w = k->w;
  double h = w->h;
  const double* prm = tb_varyOf(m, w->vary, TB_F_JOINT, j);
  int type = m->jnt_type[j];
  tbJointFrame f;
  tb_jointFrame(m, w, j, &f);
  if (m->jnt_qadr[j] < 0) tb_jointLockRows(k, j, &f);
  if (type == TB_JOINT_SPHERICAL && m->jnt_limited[j]) tb_coneLimitRow(k, j, &f, h, prm);
  if (type != TB_JOINT_REVOLUTE && type != TB_JOINT_PRISMATIC) return;
  // the joint coordinate's row: limits, servo and damping (a minimal joint's damping is in its
  // mass matrix); a free hinge or slider has none, and skips the coordinate's atan2
  double c = prm[TB_JNT_CDAMP];
  int damped = c > 0.0 && m->jnt_qadr[j] < 0;
  if (!m->jnt_limited[j] && !m->jnt_servo[j] && !damped) return;
  double q = tb_jointCoord(m, j, &f);
  tbRowJ crow, row;
  if (type == TB_JOINT_PRISMATIC) {
    tb_rowLinear(&crow, f.a, f.ra, f.b, f.rb, f.aa);
  } else {
    tb_rowAngular(&crow, f.a, f.b, f.aa);
  }
  if (m->jnt_limited[j]) {
    row = crow;
    row.bias = (q - prm[TB_JNT_LO]) / h;
    tb_pushBox(k, &row, 0.0, INFINITY, -(1 + 16 * j + 8));
    row = crow;
    for (int k6 = 0; k6 < 12; k6++) row.J[k6 / 6][k6 % 6] = -crow.J[k6 / 6][k6 % 6];
    row.bias = (prm[TB_JNT_HI] - q) / h;
    tb_pushBox(k, &row, 0.0, INFINITY, -(1 + 16 * j + 9));
  }
  if (m->jnt_servo[j]) {
    double kp = prm[TB_JNT_KP], kd = prm[TB_JNT_KD], fm = prm[TB_JNT_FMAX] * h;
    double den = h * kp + kd;
    row = crow;
    row.kind = TB_ROW_VELOCITY;
    row.cfm = 1.0 / (h * den);
    row.bias = -(kp * (prm[TB_JNT_TPOS] - q) + kd * prm[TB_JNT_TVEL]) / den;
    tb_pushBox(k, &row, -fm, fm, -(1 + 16 * j + 10));
  }
  if (damped) {
    // the impulse -h c qdot+: the servo's row with kp = 0, kd = c, no target, no bound
    row = crow;
    row.kind = TB_ROW_VELOCITY;
    row.cfm = 1.0 / (h * c);
    row.bias = 0.0;
    tb_pushBox(k, &row, -INFINITY, INFINITY, -(1 + 16 * j + 11));
  }
}

// tangent frame of a contact: the shape's preferred tangent or a canonical one, then turned by
// the frame angle about the normal
TB_HD void tb_contactFrame(const tbContactPoint* c, double angle, double t[3], double o[3]) {
  double t0[3], o0[3];
  if (tbu_dot3(c->tangent, c->tangent) > 0.5) {
    tbu_copy3(t0, c->tangent);
    tbu_cross3(o0, c->normal, t0);
  } else {
    tbu_tangents(c->normal, t0, o0);
  }
  double ca = cos(angle), sa = sin(angle);
  for (int k = 0; k < 3; k++) {
    t[k] = ca * t0[k] + sa * o0[k];
    o[k] = -sa * t0[k] + ca * o0[k];
  }
}

TB_HD double tb_maxd(double a, double b) {
  return a > b ? a : b;
}

// append a contact block: the normal row, then ntan friction rows (velocity kind)
TB_HD void tb_pushContact(tbRowSink* k, const double* vel, const tbRowJ* nrow, tbRowJ trow[2],
                          int ntan, double mu, int key) {
  const tbModel* m = k->m;
  tbWork* w = k->w;
  double angle = w->facet_angle;
  if (ntan == 2 && m->opt.facet_align) {
    // one facet against the tangential velocity (Mylapilli & Jain's remedy)
    double vt = tb_rowVelocity(m, &trow[0], vel, w->xvel);
    double vo = tb_rowVelocity(m, &trow[1], vel, w->xvel);
    if (vt * vt + vo * vo > 1e-24) angle = atan2(-vo, -vt);
  }
  int i = w->nrow, bk = w->nblock++;
  w->row[i] = *nrow;
  w->row_key[i] = key;
  for (int r = 0; r < ntan; r++) {
    trow[r].kind = TB_ROW_VELOCITY;
    w->row[i + 1 + r] = trow[r];
    w->row_key[i + 1 + r] = key + 1 + r;
  }
  w->nrow += 1 + ntan;
  w->blk_type[bk] = TB_BLOCK_CONTACT;
  w->blk_adr[bk] = i;
  w->blk_dim[bk] = 1 + ntan;
  w->blk_mu[bk] = mu;
  w->blk_angle[bk] = angle;
}

// a contact's compliance: the softer (smaller h K + B) of its compliant shapes', or rigid
TB_HD void tb_softContact(const tbModel* m, const tbWork* w, int g0, int g1, tbRowJ* nrow) {
  const double* a = tb_varyOf(m, w->vary, TB_F_GEOM_SOFT, g0);
  const double* b = tb_varyOf(m, w->vary, TB_F_GEOM_SOFT, g1);
  double ca = w->h * a[0] + a[1], cb = w->h * b[0] + b[1];
  const double* soft = ca > 0.0 && (!(cb > 0.0) || ca <= cb) ? a : b;
  tb_softRow(nrow, w->h, soft[0], soft[1]);
}

// the warm-start key of contact ci's normal row (its tangent rows follow it)
TB_HD int tb_contactKey(const tbWork* w, int ci) {
  return 1 + 4 * (TB_NFEATURE * w->con_pair[ci] + w->con[ci].feature);
}

// contact ci's normal row (its Jacobian) and lever arms ra, rb from its bodies' centers
TB_HD void tb_contactNormalRow(const tbModel* m, const tbWork* w, int ci, tbRowJ* row, double ra[3],
                               double rb[3]) {
  const tbContactPoint* c = &w->con[ci];
  int pair = w->con_pair[ci];
  int a = m->geom_body[m->pair_geom[2 * pair]], b = m->geom_body[m->pair_geom[2 * pair + 1]];
  tbu_sub3(ra, c->pos, w->xpos + 3 * a);
  tbu_sub3(rb, c->pos, w->xpos + 3 * b);
  tb_rowLinear(row, a, ra, b, rb, c->normal);
}

TB_HD void tb_contactRows(tbRowSink* k, const tbData* d, int s, int ci) {
  const tbModel* m = k->m;
  tbWork* w = k->w;
  const tbContactPoint* c = &w->con[ci];
  int pair = w->con_pair[ci];
  int g0 = m->pair_geom[2 * pair], g1 = m->pair_geom[2 * pair + 1];
  int a = m->geom_body[g0], b = m->geom_body[g1];
  double h = w->h;
  double mu = tb_maxd(tb_varyOf(m, w->vary, TB_F_GEOM_MU, g0)[0],
                      tb_varyOf(m, w->vary, TB_F_GEOM_MU, g1)[0]);
  double rest = tb_maxd(tb_varyOf(m, w->vary, TB_F_GEOM_REST, g0)[0],
                        tb_varyOf(m, w->vary, TB_F_GEOM_REST, g1)[0]);
  double ra[3], rb[3], t[3], o[3];
  int key = tb_contactKey(w, ci);

  tbRowJ nrow, trow[2];
  tb_contactNormalRow(m, w, ci, &nrow, ra, rb);
  if (!tb_rowActive(m, w, &nrow, w->nrow)) return;
  nrow.bias = c->gap / h;
  tb_softContact(m, w, g0, g1, &nrow);
  const double* vel = d->body_vel + (size_t)s * m->nbody * 6;
  if (rest > 0.0) {
    // Newton restitution for a contact that closes within the step
    double un = tb_rowVelocity(m, &nrow, vel, w->xvel);
    double kin = un - tb_rowVelocity(m, &nrow, vel, NULL);
    double target = rest * un + kin;
    if (un < -m->opt.restitution_vmin && c->gap + h * un < 0.0 && target < nrow.bias) {
      nrow.rest = target - nrow.bias;
      nrow.bias = target;
    }
  }
  tb_contactFrame(c, w->frame_angle, t, o);
  int ntan = 0;
  if (mu > 0.0) {
    // a tangent that only locked DoFs could use is dropped (planar scenes: 1 tangent)
    tb_rowLinear(&trow[ntan], a, ra, b, rb, t);
    if (tb_rowActive(m, w, &trow[ntan], w->nrow + 1 + ntan)) ntan++;
    tb_rowLinear(&trow[ntan], a, ra, b, rb, o);
    if (tb_rowActive(m, w, &trow[ntan], w->nrow + 1 + ntan)) ntan++;
  }
  nrow.soft = trow[0].soft = trow[1].soft = w->soft;  // regularized at assembly
  tb_pushContact(k, vel, &nrow, trow, ntan, mu, key);
}

// the three contacts of support tripod s (see planar.c): a virtual normal row fixing the normal
// impulse at h lambda_k, and friction along the world x and y axes at the support point
TB_HD void tb_supportRows(tbRowSink* k, const tbData* d, int s, int sup) {
  const tbModel* m = k->m;
  tbWork* w = k->w;
  double h = w->h;
  const double* prm = tb_varyOf(m, w->vary, TB_F_SUPPORT, sup);
  int b = m->sup_body[sup];
  double mass = tb_varyOf(m, w->vary, TB_F_BODY_MASS, b)[0];
  double lambda[3] = {0.0, 0.0, 0.0};
  tbu_supportLoads(prm, mass, w->gravity[2], lambda);  // valid: tb_resetData checked every tripod
  double c = 1.0 / mass;
  tbContactPoint frame = {{0, 0, 0}, {0, 0, 1}, 0.0, {1, 0, 0}, 0};
  double t[3], o[3];
  tb_contactFrame(&frame, w->frame_angle, t, o);
  const double* vel = d->body_vel + (size_t)s * m->nbody * 6;
  for (int i = 0; i < 3; i++) {
    double local[3] = {prm[TB_SUP_POINT + 2 * i], prm[TB_SUP_POINT + 2 * i + 1], 0.0}, r[3];
    tbu_rotVec(r, w->xquat + 4 * b, local);
    tbRowJ nrow, trow[2];
    memset(&nrow, 0, sizeof(nrow));
    nrow.body[0] = b;
    nrow.body[1] = -1;
    nrow.cfm = c;
    nrow.bias = -c * h * lambda[i];
    double zero[3] = {0, 0, 0};
    tb_rowLinear(&trow[0], b, r, -1, zero, t);
    tb_rowLinear(&trow[1], b, r, -1, zero, o);
    int key = -(3 + 16 * m->njnt + 4 * (3 * sup + i));  // clear of the joint keys
    if (m->nq > 0) {  // always pushed: their joint-space rows as tb_rowActive gives the others'
      tb_treeRowJacobian(m, w, &nrow, w->Jq + (size_t)w->nrow * m->ndof);
      for (int r = 0; r < 2; r++) {
        tb_treeRowJacobian(m, w, &trow[r], w->Jq + (size_t)(w->nrow + 1 + r) * m->ndof);
      }
    }
    tb_pushContact(k, vel, &nrow, trow, 2, prm[TB_SUP_MU], key);
  }
}

// the step's rows: joints, then contacts (less the corner members left out: stage_corner.h), then
// support tripods; returns 0
TB_HDN int tb_makeRows(const tbModel* m, const tbData* d, int s, tbWork* w) {
  tbRowSink k = {m, w};
  w->nrow = 0;
  w->nblock = 0;
  for (int j = 0; j < m->njnt; j++) tb_jointRows(&k, j);
  for (int c = 0; c < w->ncon; c++) {
    if (!w->con_off[c]) tb_contactRows(&k, d, s, c);
  }
  for (int sup = 0; sup < m->nsupport; sup++) tb_supportRows(&k, d, s, sup);
  return 0;
}

#endif  // TUMBLE_HOST_STAGE_ROWS_H_

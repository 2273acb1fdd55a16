// Stage: the geometrically implicit step (thesis §3.5, Chakraborty, Berard, Akella & Trinkle).
// Shapes are convex implicit functions (implicit_geom.h); for each shape pair the closest points
// a1 (on f's shape, body 1) and a2 (on g's, body 2) are unknowns of the step, solved with the
// velocities as one mixed NCP, so that contact holds at the end of the step on the exact shapes
// (no polygonal facets, no linearized gap). Per pair (Eq. 3.76-3.83, 3.89-3.93):
//   a1 - a2 + l1 grad f(a1) = 0,   grad f(a1) + l2 grad g(a2) = 0
//   f(a1) = 0,                     0 <= l2 _|_ -(g(a2) + dbar) >= 0
//   rigid:     0 <= p_n _|_ f(a2) >= 0                  (the rescaled conditions: touching or
//                                                         separated, never penetrating)
//   compliant: 0 <= p_s _|_ f(a2) + dbar >= 0,  p_s = h k d + c (d - d_prev)   (Kelvin-Voigt)
//              g(a2 + d grad g / |grad g|) = 0          (Eq. 3.90: dbar algebraic, d Euclidean)
//              0 <= p_n _|_ core - d >= 0               (the rigid core)
//   friction, elliptic with torsion (e_t = e_o = 1, e_r the shapes' torsion), P = p_n + p_s:
//     mu P (t . v) + p_t sigma = 0,  mu P (o . v) + p_o sigma = 0,  e_r^2 mu P w_n + p_r sigma = 0
//     0 <= sigma _|_ mu P - sqrt(p_t^2 + p_o^2 + p_r^2 / e_r^2) >= 0
//   (the thesis's zeta is the square of the cone's; this form is of degree 1 in the impulses, so
//   that a residual of tol bounds the friction impulse by tol too where the normal impulse is 0:
//   the square left 1e-4 of it in the impulses of a sphere that had left its contacts)
// with the velocities v+ = v_free + M^-1 W(a, q+) p and q+ = q + h G v+ (the integration the step
// ends with), so W, f and g are taken at the end of the step. Planar pairs pin the closest
// points' z to their plane and p_o, p_r to 0.
//
// Shapes cut by half-spaces are intersections of convex parts f_0 .. f_m (Eq. 3.84-3.87, the
// thesis's rescaling by one multiplier taken as multipliers that sum to 1, so that no part has to
// be chosen in advance): grad f(a1) above becomes n1 = sum_k lam_k grad f_k(a1) with
// lam_0 = 1 - sum_{k>0} lam_k and 0 <= lam_k _|_ -f_k(a1) >= 0 for every part (f(a1) = 0 when
// there is one); l2 grad g(a2) becomes sum_j l2_j grad g_j(a2), 0 <= l2_j _|_ -g_j(a2) >= 0;
// and p_n's gap f(a2) (no longer smooth: the largest of the parts, equal at an edge) becomes
// l1 |n1|, the distance of a2 from a1 along n1.
//
// Solved by Levenberg-Marquardt on the Fischer-Burmeister form (Mylapilli & Jain's family):
// every equation in velocity units divided by the step's velocity scale, every unknown by its
// own scale; the Jacobian by central differences of the smooth pieces, chained through the
// Fischer-Burmeister function's generalized derivative; an Armijo line search; the best iterate
// kept. The unknowns are the scene's state from step to step (d->warm): the start of the next
// solve and the deflection d_prev.
#ifndef TUMBLE_HOST_STAGE_IMPLICIT_H_
#define TUMBLE_HOST_STAGE_IMPLICIT_H_

#include <math.h>
#include <string.h>

#include "math/dense.h"
#include "math/implicit_geom.h"
#include "math/tb_math.h"

#include "engine/engine.h"
#include "engine/stage_collide.h"
#include "engine/stage_assemble.h"

enum {
  TB_IMP_A1 = 0,
  TB_IMP_A2 = 3,
  TB_IMP_L1 = 6,
  TB_IMP_L2 = 7,
  TB_IMP_PN = 8,  // the rigid contact's (or core's) normal impulse
  TB_IMP_PT = 9,
  TB_IMP_PO = 10,
  TB_IMP_PR = 11,
  TB_IMP_SIGMA = 12,
  TB_IMP_DBAR = 13,
  TB_IMP_DEFL = 14,
  TB_IMP_PS = 15,  // the spring's normal impulse
  // then f's parts' multipliers lam_1 .. (tbImpPair nf - 1), then g's l2_1 .. (ng - 1)
};
enum { TB_IMP_EQ = 0, TB_IMP_FB = 1 };  // a residual row: an equation, or a complementarity pair

// the central difference's step relative to the unknown's scale (about the cube root of the
// rounding unit), and a friction impulse's floor (tb_impStep)
#define TB_IMP_FD (sizeof(double) == 4 ? 5e-3 : 5e-6)
#define TB_IMP_FD_FLOOR 1e-3
#define TB_IMP_ARMIJO 1e-4
// Levenberg-Marquardt's damping factor: at the start of a step, its floor and its ceiling
#define TB_IMP_MU0 1e-3
#define TB_IMP_MU_MIN 1e-12
#define TB_IMP_MU_MAX 1e8
// a closest-point search starts from a cylinder's cap's centre where the cap is within this
// slope (0.6 deg) of facing the other shape (tbg_implicitSupport): a cap landing flat needs its
// contact point under the centre of mass, and from the rim Newton sees no slope toward it
#define TB_IMP_FLAT 1e-2

// the step's working vectors, carved from w->imp
typedef struct tbImpView {
  int n;
  double *z, *zt, *phi, *ra, *rb, *ap, *bp, *am, *bm, *dz, *grad, *ds, *scale, *first, *J, *H;
  double *epos, *equat, *wrench;  // per body: end position, orientation, the impulses' wrench
  int* kind;
  double vs;  // the velocity scale of the step's residuals
} tbImpView;

TB_HD tbImpView tb_impView(const tbModel* m, tbWork* w) {
  tbImpView v;
  int n = tb_implicitUnknowns(m);
  double* at = w->imp;
  v.n = n;
  double** vec[14] = {&v.z,  &v.zt, &v.phi, &v.ra, &v.rb,   &v.ap,    &v.bp,
                      &v.am, &v.bm, &v.dz,  &v.ds, &v.grad, &v.scale, &v.first};
  for (int k = 0; k < 14; k++, at += n) *vec[k] = at;
  v.J = at;
  v.H = at + (size_t)n * n;
  at += 2 * (size_t)n * n;
  v.epos = at;
  v.equat = at + 3 * m->nbody;
  v.wrench = at + 7 * m->nbody;
  v.kind = w->imp_kind;
  v.vs = 1.0;
  return v;
}

// Fischer-Burmeister: phi(a, b) = a + b - |(a, b)|, zero iff 0 <= a _|_ b >= 0; its derivative
// in a and b (at the kink (0, 0) the element of the generalized Jacobian along (1, 1))
TB_HD double tb_fischer(double a, double b, double* da, double* db) {
  double r = sqrt(a * a + b * b);
  if (r > 0.0) {
    *da = 1.0 - a / r;
    *db = 1.0 - b / r;
  } else {
    *da = *db = 1.0 - sqrt(0.5);
  }
  return a + b - r;
}

//---- the pairs ---------------------------------------------------------------------------------

TB_HD int tb_impSoft(const double* soft) {
  return soft[0] > 0.0;
}

// whether pair p's shapes swap roles: g is the compliant shape (of two, the softer), else the
// plane (f's gradient then follows the bounded shape)
TB_HD int tb_impSwap(const tbModel* m, const tbWork* w, int g1, int g2) {
  const double* s1 = tb_varyOf(m, w->vary, TB_F_GEOM_SOFT, g1);
  const double* s2 = tb_varyOf(m, w->vary, TB_F_GEOM_SOFT, g2);
  if (tb_impSoft(s1) || tb_impSoft(s2)) {
    if (!tb_impSoft(s2)) return 1;
    return tb_impSoft(s1) && w->h * s1[0] + s1[1] < w->h * s2[0] + s2[1];
  }
  return m->geom_type[g1] == TB_GEOM_PLANE;
}

// body b moves only in the xy plane (planar bodies, and those that do not move)
TB_HD int tb_impFlat(const tbModel* m, int b) {
  return m->body_type[b] != TB_BODY_DYNAMIC || (m->body_lock[b] & TB_LOCK_PLANAR) == TB_LOCK_PLANAR;
}

// pair ip's unknowns
TB_HD int tb_impNz(const tbImpPair* ip) {
  return TB_IMP_NZ + ip->nf - 1 + ip->ng - 1;
}

// a shape's size for scaling: its smallest semi-axis or radius (planes: none, INFINITY)
TB_HD double tb_impSize(const tbModel* m, const tbWork* w, int g) {
  const double* sz = tb_varyOf(m, w->vary, TB_F_GEOM_SIZE, g);
  if (m->geom_type[g] == TB_GEOM_PLANE) return INFINITY;
  if (m->geom_type[g] == TB_GEOM_ELLIPSOID || m->geom_type[g] == TB_GEOM_SUPERELLIPSOID) {
    return fmin(sz[0], fmin(sz[1], sz[2]));
  }
  return sz[0];
}

// pair p's shapes, roles, friction, compliance and scales for this step; its unknowns from off
TB_HD void tb_impPairSetUp(const tbModel* m, tbWork* w, int p, int off) {
  tbImpPair* ip = &w->imp_pair[p];
  int g1 = m->pair_geom[2 * p], g2 = m->pair_geom[2 * p + 1];
  if (tb_impSwap(m, w, g1, g2)) {
    int t = g1;
    g1 = g2;
    g2 = t;
  }
  ip->g[0] = g1;
  ip->g[1] = g2;
  ip->off = off;
  ip->nf = tbg_parts(m->geom_type[g1], m->geom_nclip[g1]);
  ip->ng = tbg_parts(m->geom_type[g2], m->geom_nclip[g2]);
  double inv_mass = 0.0;
  for (int side = 0; side < 2; side++) {
    int b = m->geom_body[ip->g[side]];
    ip->b[side] = b;
    if (m->body_type[b] == TB_BODY_DYNAMIC) {
      inv_mass += 1.0 / tb_varyOf(m, w->vary, TB_F_BODY_MASS, b)[0];
    }
  }
  ip->meff = 1.0 / inv_mass;
  ip->len = fmin(tb_impSize(m, w, g1), tb_impSize(m, w, g2));
  ip->mu =
      fmax(tb_varyOf(m, w->vary, TB_F_GEOM_MU, g1)[0], tb_varyOf(m, w->vary, TB_F_GEOM_MU, g2)[0]);
  const double *e1 = tb_varyOf(m, w->vary, TB_F_GEOM_IMPLICIT, g1),
               *e2 = tb_varyOf(m, w->vary, TB_F_GEOM_IMPLICIT, g2);
  ip->er = fmax(e1[0], e2[0]);
  const double* soft = tb_varyOf(m, w->vary, TB_F_GEOM_SOFT, g2);
  ip->k = soft[0];
  ip->c = soft[1];
  ip->core = e2[1];
  ip->zref = NAN;
  if (tb_impFlat(m, ip->b[0]) && tb_impFlat(m, ip->b[1])) {
    int b = m->body_type[ip->b[0]] == TB_BODY_DYNAMIC ? ip->b[0] : ip->b[1];
    ip->zref = w->xpos[3 * b + 2];
  }
}

// the step's velocity scale: gravity's over one step, the fastest free body, a floor of 1 um/s
TB_HD double tb_impVelocityScale(const tbModel* m, const tbWork* w) {
  double vs = 1e-6 + tbu_norm3(w->gravity) * w->h;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] == TB_BODY_DYNAMIC) vs = fmax(vs, tbu_norm3(w->vfree + 6 * b));
  }
  return vs;
}

// the scale of pair ip's unknown k at velocity scale vs: lengths, impulses (meff vs), torsion
// (meff vs len), plain numbers (l2 and the parts' multipliers)
TB_HD double tb_impScale(const tbImpPair* ip, double vs, int k) {
  if (k >= TB_IMP_NZ) return 1.0;
  switch (k) {
    case TB_IMP_L2:
      return 1.0;
    case TB_IMP_PN:
    case TB_IMP_PT:
    case TB_IMP_PO:
    case TB_IMP_PS:
      return ip->meff * vs;
    case TB_IMP_PR:
      return ip->meff * vs * ip->len;
    case TB_IMP_SIGMA:
      return vs;
    default:  // a1, a2, l1, dbar, d
      return ip->len;
  }
}

//---- the end pose and the residual -------------------------------------------------------------

// every body's pose at the end of the step for velocities z: q + h G v for dynamic bodies (as
// tb_integrate), the work pose for the others (kinematic ones at t + h)
TB_HD void tb_impEndPose(const tbModel* m, const tbWork* w, const double* z, tbImpView* v) {
  memcpy(v->epos, w->xpos, sizeof(double) * 3 * m->nbody);
  memcpy(v->equat, w->xquat, sizeof(double) * 4 * m->nbody);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    for (int k = 0; k < 3; k++) v->epos[3 * b + k] += w->h * z[6 * b + k];
    tbu_quatIntegrate(v->equat + 4 * b, z + 6 * b + 3, w->h);
  }
}

// body b's velocity: the unknowns for a dynamic body, the work velocity otherwise
TB_HD const double* tb_impVel(const tbModel* m, const tbWork* w, const double* z, int b) {
  return m->body_type[b] == TB_BODY_DYNAMIC ? z + 6 * b : w->xvel + 6 * b;
}

// the contact frame of normal n: t = ref x n, o = n x t
TB_HD void tb_impFrame(const double ref[3], const double n[3], double t[3], double o[3]) {
  tbu_cross3(t, ref, n);
  tbu_normalize3(t);
  tbu_cross3(o, n, t);
}

// add impulse P (at world point a) and torque tq to body b's wrench with sign s
TB_HD void tb_impPush(const tbImpView* v, int b, double s, const double a[3], const double P[3],
                      const double tq[3]) {
  double r[3], rxP[3], *wr = v->wrench + 6 * b;
  tbu_sub3(r, a, v->epos + 3 * b);
  tbu_cross3(rxP, r, P);
  for (int k = 0; k < 3; k++) {
    wr[k] += s * P[k];
    wr[3 + k] += s * (rxP[k] + tq[k]);
  }
}

// most parts of one shape: its function, a cylinder's caps, the half-spaces (tbg_parts)
#define TB_IMP_MAXPARTS (3 + TB_MAXCLIP)

// n1 = sum_k lam_k grad f_k(a1) over f's parts (G1 its shape) for pair unknowns u, and the
// parts' values f_k(a1) into fk (NULL: not wanted); returns lam_0 = 1 - sum_{k>0} lam_k
TB_HD double tb_impNormal(const tbGeomPose* G1, const tbImpPair* ip, const double* u, double n1[3],
                          double* fk) {
  double lam0 = 1.0, gk[3];
  for (int k = 1; k < ip->nf; k++) lam0 -= u[TB_IMP_NZ + k - 1];
  double f0 = tbg_implicit(G1, u + TB_IMP_A1, gk);
  if (fk) fk[0] = f0;
  tbu_scl3(n1, gk, lam0);
  for (int k = 1; k < ip->nf; k++) {
    double v = tbg_implicitPart(G1, k, u + TB_IMP_A1, gk);
    if (fk) fk[k] = v;
    tbu_addscl3(n1, n1, gk, u[TB_IMP_NZ + k - 1]);
  }
  return lam0;
}

// a residual row: an equation's value, or a complementarity pair (a, b)
TB_HD void tb_impEq(tbImpView* v, double* ra, int i, double value) {
  v->kind[i] = TB_IMP_EQ;
  ra[i] = value;
}
TB_HD void tb_impFb(tbImpView* v, double* ra, double* rb, int i, double a, double b) {
  v->kind[i] = TB_IMP_FB;
  ra[i] = a;
  rb[i] = b;
}

// pair p's rows (at row0) for unknowns z, and its impulses into the bodies' wrenches
TB_HDN void tb_impPairRows(const tbModel* m, const tbWork* w, const double* z, int p, tbImpView* v,
                           double* ra, double* rb) {
  const tbImpPair* ip = &w->imp_pair[p];
  int row0 = ip->off;
  const double* u = z + row0;
  double h = w->h, vs = v->vs, meff = ip->meff;
  tbGeomPose G1, G2;
  tb_geomPoseAt(m, w->vary, v->epos, v->equat, ip->g[0], &G1);
  tb_geomPoseAt(m, w->vary, v->epos, v->equat, ip->g[1], &G2);
  const double *a1 = u + TB_IMP_A1, *a2 = u + TB_IMP_A2, *lam = u + TB_IMP_NZ;
  const double* l2 = lam + ip->nf - 1;
  double gg[3], gfa2[3], gk[3], n1[3], side2[3], fk[TB_IMP_MAXPARTS];
  double g2 = tbg_implicit(&G2, a2, gg);
  double lam0 = tb_impNormal(&G1, ip, u, n1, fk), f1 = fk[0];
  for (int k = 1; k < ip->nf; k++) {
    tb_impFb(v, ra, rb, row0 + TB_IMP_NZ + k - 1, lam[k - 1] * vs, -fk[k] / h);
  }
  tbu_scl3(side2, gg, u[TB_IMP_L2]);  // g's side of the normal balance
  for (int j = 1; j < ip->ng; j++) {
    double gj = tbg_implicitPart(&G2, j, a2, gk);
    tb_impFb(v, ra, rb, row0 + TB_IMP_NZ + ip->nf - 2 + j, l2[j - 1] * vs, -gj / h);
    tbu_addscl3(side2, side2, gk, l2[j - 1]);
  }
  double psi = ip->nf == 1 ? tbg_implicit(&G1, a2, gfa2) : u[TB_IMP_L1] * tbu_norm3(n1);
  int planar = !isnan(ip->zref), soft = ip->k > 0.0;
  for (int k = 0; k < 3; k++) {
    tb_impEq(v, ra, row0 + k, (a1[k] - a2[k] + u[TB_IMP_L1] * n1[k]) / h);
    tb_impEq(v, ra, row0 + 3 + k, (n1[k] + side2[k]) * vs);
  }
  if (planar) {
    tb_impEq(v, ra, row0 + 2, (a1[2] - ip->zref) / h);
    tb_impEq(v, ra, row0 + 5, (a2[2] - ip->zref) / h);
  }
  double dbar = u[TB_IMP_DBAR], defl = u[TB_IMP_DEFL];
  if (ip->nf == 1) {
    tb_impEq(v, ra, row0 + TB_IMP_L1, f1 / h);
  } else {
    tb_impFb(v, ra, rb, row0 + TB_IMP_L1, lam0 * vs, -f1 / h);
  }
  tb_impFb(v, ra, rb, row0 + TB_IMP_L2, u[TB_IMP_L2] * vs, -(g2 + dbar) / h);
  double pn = u[TB_IMP_PN], ps = u[TB_IMP_PS], P = pn + ps;
  if (soft) {
    double ng[3], at[3], gtmp[3];
    tbu_copy3(ng, gg);
    tbu_normalize3(ng);
    tbu_addscl3(at, a2, ng, defl);
    tb_impFb(v, ra, rb, row0 + TB_IMP_PN, pn / meff, (ip->core - defl) / h);
    tb_impEq(v, ra, row0 + TB_IMP_DBAR, tbg_implicit(&G2, at, gtmp) / h);
    tb_impFb(v, ra, rb, row0 + TB_IMP_DEFL, ps / meff, psi / h);
    tb_impEq(v, ra, row0 + TB_IMP_PS, (ps - h * ip->k * defl - ip->c * (defl - ip->dprev)) / meff);
  } else {
    tb_impFb(v, ra, rb, row0 + TB_IMP_PN, pn / meff, psi / h);
    tb_impEq(v, ra, row0 + TB_IMP_DBAR, dbar / h);
    tb_impEq(v, ra, row0 + TB_IMP_DEFL, defl / h);
    tb_impEq(v, ra, row0 + TB_IMP_PS, ps / meff);
  }
  // the contact frame at a1 and the relative motion of the two bodies there
  double n[3], t[3], o[3];
  tbu_copy3(n, n1);
  tbu_normalize3(n);
  tb_impFrame(ip->ref, n, t, o);
  double v1[3], v2[3], vrel[3], wrel[3];
  const double *nu1 = tb_impVel(m, w, z, ip->b[0]), *nu2 = tb_impVel(m, w, z, ip->b[1]);
  tbu_pointVel(v1, nu1, v->epos + 3 * ip->b[0], a1);
  tbu_pointVel(v2, nu2, v->epos + 3 * ip->b[1], a2);
  tbu_sub3(vrel, v2, v1);
  tbu_sub3(wrel, nu2 + 3, nu1 + 3);
  double pt = u[TB_IMP_PT], po = u[TB_IMP_PO], pr = u[TB_IMP_PR], sigma = u[TB_IMP_SIGMA];
  double fs = meff * vs, mu = ip->mu, er = ip->er;
  if (mu > 0.0) {
    tb_impEq(v, ra, row0 + TB_IMP_PT, (mu * P * tbu_dot3(t, vrel) + pt * sigma) / fs);
    tb_impEq(v, ra, row0 + TB_IMP_PO, (mu * P * tbu_dot3(o, vrel) + po * sigma) / fs);
    double spin = tbu_dot3(n, wrel);
    tb_impEq(v, ra, row0 + TB_IMP_PR,
             er > 0.0 ? (er * mu * P * spin + pr * sigma / er) / fs : pr / (fs * ip->len));
    double zeta = mu * P - sqrt(pt * pt + po * po + (er > 0.0 ? pr * pr / (er * er) : 0.0));
    tb_impFb(v, ra, rb, row0 + TB_IMP_SIGMA, sigma, zeta / meff);
  } else {
    tb_impEq(v, ra, row0 + TB_IMP_PT, pt / fs);
    tb_impEq(v, ra, row0 + TB_IMP_PO, po / fs);
    tb_impEq(v, ra, row0 + TB_IMP_PR, pr / (fs * ip->len));
    tb_impEq(v, ra, row0 + TB_IMP_SIGMA, sigma);
  }
  if (planar) {
    tb_impEq(v, ra, row0 + TB_IMP_PO, po / fs);
    tb_impEq(v, ra, row0 + TB_IMP_PR, pr / (fs * ip->len));
  }
  // body 2 takes P n + p_t t + p_o o at a2 and p_r about n; body 1 the opposite at a1
  double imp[3], tq[3];
  for (int k = 0; k < 3; k++) {
    imp[k] = P * n[k] + pt * t[k] + po * o[k];
    tq[k] = pr * n[k];
  }
  tb_impPush(v, ip->b[1], 1.0, a2, imp, tq);
  tb_impPush(v, ip->b[0], -1.0, a1, imp, tq);
}

// every row for unknowns z into ra (equations, complementarity's first) and rb (its second)
TB_HDN void tb_impRows(const tbModel* m, const tbWork* w, const double* z, tbImpView* v, double* ra,
                       double* rb) {
  tb_impEndPose(m, w, z, v);
  memset(v->wrench, 0, sizeof(double) * 6 * m->nbody);
  for (int p = 0; p < m->npair; p++) tb_impPairRows(m, w, z, p, v, ra, rb);
  // v = v_free + M^-1 W p for dynamic bodies; the others move as the work pose says
  for (int b = 0; b < m->nbody; b++) {
    double dv[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    int dyn = m->body_type[b] == TB_BODY_DYNAMIC;
    if (dyn) tb_mulMinv(w, b, v->wrench + 6 * b, dv);
    for (int k = 0; k < 6; k++) {
      double target = dyn ? w->vfree[6 * b + k] + dv[k] : w->xvel[6 * b + k];
      tb_impEq(v, ra, 6 * b + k, z[6 * b + k] - target);
    }
  }
}

// Phi(z) (in units of the velocity scale) into phi, with each row's derivative weights in a and
// b into da, db (NULL: not wanted); returns |Phi|^2 / 2
TB_HDN double tb_impResidual(const tbModel* m, const tbWork* w, const double* z, tbImpView* v,
                             double* phi, double* da, double* db) {
  tb_impRows(m, w, z, v, v->ra, v->rb);
  double theta = 0.0;
  for (int i = 0; i < v->n; i++) {
    double wa = 1.0, wb = 0.0;
    double r = v->kind[i] == TB_IMP_FB ? tb_fischer(v->ra[i], v->rb[i], &wa, &wb) : v->ra[i];
    phi[i] = r / v->vs;
    if (da) {
      da[i] = wa / v->vs;
      db[i] = wb / v->vs;
    }
    theta += 0.5 * phi[i] * phi[i];
  }
  return theta;
}

// unknown j's difference step: TB_IMP_FD of its scale; a friction impulse's relative to its
// value, so that a small one is not stepped across its cone's apex (a contact leaving with
// friction impulses of 3e-5 N s stalled Newton at 1e-6 with steps of its scale, 2e-5)
// (k: j's place among its pair's unknowns, -1 for a body's velocity)
TB_HD double tb_impStep(const tbImpView* v, int j, int k) {
  int friction = k == TB_IMP_PT || k == TB_IMP_PO || k == TB_IMP_PR;
  double floor = v->scale[j] * (friction ? TB_IMP_FD_FLOOR : 1.0);
  return TB_IMP_FD * (friction ? fmax(fabs(v->z[j]), floor) : floor);
}

// column j of the Jacobian from the rows' pieces at z + e and z - e (ap, bp: tb_impResidual's
// weights at z; plus in p*, minus in m*), rows [r0, r1) and the momentum rows of the bodies
// whose velocity change (dv, 6 per body, NULL: none) the column moves; q = scale_j / (2 e)
TB_HD void tb_impColumn(const tbModel* m, tbImpView* v, int j, int r0, int r1, const double* pa,
                        const double* pb, const double* dv, double q) {
  int n = v->n;
  for (int i = 0; i < n; i++) v->J[(size_t)i * n + j] = 0.0;
  for (int i = r0; i < r1; i++) {
    double dA = (pa[i] - v->am[i]) * q;
    double dB = v->kind[i] == TB_IMP_FB ? (pb[i] - v->bm[i]) * q : 0.0;
    v->J[(size_t)i * n + j] = v->ap[i] * dA + v->bp[i] * dB;
  }
  for (int i = 0; dv && i < 6 * m->nbody; i++) {
    v->J[(size_t)i * n + j] = -v->ap[i] * dv[i] * q;
  }
}

// pair p's rows (into ra, rb) and the velocity change of its bodies (6 per body, into dv, added
// with sign s) for unknowns z, v's end pose z's
TB_HD void tb_impPairAlone(const tbModel* m, const tbWork* w, const double* z, int p, tbImpView* v,
                           double* ra, double* rb, double s, double* dv) {
  const tbImpPair* ip = &w->imp_pair[p];
  for (int side = 0; side < 2; side++) memset(v->wrench + 6 * ip->b[side], 0, sizeof(double) * 6);
  tb_impPairRows(m, w, z, p, v, ra, rb);
  for (int side = 0; side < 2; side++) {
    int b = ip->b[side];
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double d[6];
    tb_mulMinv(w, b, v->wrench + 6 * b, d);
    for (int k = 0; k < 6; k++) dv[6 * b + k] += s * d[k];
  }
}

// the Jacobian of Phi in scaled unknowns (row-major n x n) by central differences of the rows'
// smooth pieces, chained through the weights of tb_impResidual at z (in ap, bp). A body's
// velocity moves every row (through the end pose); a pair's unknown only the pair's rows and its
// bodies' momentum, so its column is differenced on that pair alone.
TB_HDN void tb_impJacobian(const tbModel* m, const tbWork* w, tbImpView* v) {
  int n = v->n, nb = 6 * m->nbody;
  double *pa = v->grad, *pb = v->dz;  // (free until the direction)
  for (int j = 0; j < nb; j++) {
    if (m->body_type[j / 6] != TB_BODY_DYNAMIC) {  // a body that does not move: z_j - v_j
      for (int i = 0; i < n; i++) v->J[(size_t)i * n + j] = i == j ? v->scale[j] * v->ap[i] : 0.0;
      continue;
    }
    double e = tb_impStep(v, j, -1);
    memcpy(v->zt, v->z, sizeof(double) * n);
    v->zt[j] = v->z[j] + e;
    tb_impRows(m, w, v->zt, v, pa, pb);
    v->zt[j] = v->z[j] - e;
    tb_impRows(m, w, v->zt, v, v->am, v->bm);
    tb_impColumn(m, v, j, 0, n, pa, pb, NULL, 0.5 * v->scale[j] / e);
  }
  tb_impEndPose(m, w, v->z, v);
  memcpy(v->zt, v->z, sizeof(double) * n);
  double* dv = v->ds;  // (free until the direction)
  for (int p = 0; p < m->npair; p++) {
    int r0 = w->imp_pair[p].off, nz = tb_impNz(&w->imp_pair[p]);
    for (int k = 0; k < nz; k++) {
      int j = r0 + k;
      double e = tb_impStep(v, j, k);
      memset(dv, 0, sizeof(double) * nb);
      v->zt[j] = v->z[j] + e;
      tb_impPairAlone(m, w, v->zt, p, v, pa, pb, 1.0, dv);
      v->zt[j] = v->z[j] - e;
      tb_impPairAlone(m, w, v->zt, p, v, v->am, v->bm, -1.0, dv);
      v->zt[j] = v->z[j];
      tb_impColumn(m, v, j, r0, r0 + nz, pa, pb, dv, 0.5 * v->scale[j] / e);
    }
  }
}

//---- the start ---------------------------------------------------------------------------------

// the weights w[0] of shape G's function and w[1] of its part k (>= 1; 0: none, w[1] = 0), >= 0,
// whose gradients at a sum to nearest target (least squares); for the function alone, w[0] of
// the target's length
TB_HD void tb_impWeights(const tbGeomPose* G, int k, const double a[3], const double target[3],
                         double w[2]) {
  double g0[3], gk[3];
  tbg_implicit(G, a, g0);
  w[1] = 0.0;
  if (k == 0) {
    w[0] = tbu_norm3(target) / tbu_norm3(g0);
    return;
  }
  tbg_implicitPart(G, k, a, gk);
  double A = tbu_dot3(g0, g0), B = tbu_dot3(g0, gk), C = tbu_dot3(gk, gk);
  double r0 = tbu_dot3(g0, target), rk = tbu_dot3(gk, target), det = A * C - B * B;
  w[0] = det > 1e-12 * A * C ? (C * r0 - B * rk) / det : -1.0;
  w[1] = det > 1e-12 * A * C ? (A * rk - B * r0) / det : -1.0;
  if (w[0] < 0.0 || w[1] < 0.0) {  // the better of the two alone
    double e0 = A > 0.0 ? fmax(r0, 0.0) / A : 0.0, ek = C > 0.0 ? fmax(rk, 0.0) / C : 0.0;
    int first = e0 * r0 >= ek * rk;
    w[0] = first ? e0 : 0.0;
    w[1] = first ? 0.0 : ek;
  }
}

// pair p's closest points (a1, a2, l1, l2 and the parts' multipliers) guessed from the shapes
// at v's end pose: the bounded shapes' support points toward each other (a plane's: the other's
// point projected; flat: tbg_implicitSupport's), each on the part its support point lies on
TB_HDN void tb_impGuessPoints(const tbModel* m, const tbWork* w, tbImpView* v, int p, double flat) {
  tbImpPair* ip = &w->imp_pair[p];
  double* u = v->z + ip->off;
  tbGeomPose G1, G2;
  tb_geomPoseAt(m, w->vary, v->epos, v->equat, ip->g[0], &G1);
  tb_geomPoseAt(m, w->vary, v->epos, v->equat, ip->g[1], &G2);
  double *a1 = u + TB_IMP_A1, *a2 = u + TB_IMP_A2, dir[3], dir1[3];
  int on1 = 0, on2 = 0;  // the parts the support points lie on
  if (G1.type == TB_GEOM_PLANE || G2.type == TB_GEOM_PLANE) {
    int first = G1.type == TB_GEOM_PLANE;
    const tbGeomPose *plane = first ? &G1 : &G2, *round = first ? &G2 : &G1;
    double *ap = first ? a1 : a2, *ar = first ? a2 : a1;
    tbg_implicit(plane, plane->pos, dir);
    tbu_scl3(dir, dir, -1.0);
    *(first ? &on2 : &on1) = tbg_implicitSupport(round, dir, flat, ar);
    tbg_planeProject(plane, ar, ap);
    tbu_scl3(dir1, dir, first ? -1.0 : 1.0);
  } else {
    tbu_sub3(dir, G2.pos, G1.pos);
    if (!(tbu_normalize3(dir) > 0.0)) dir[2] = 1.0;
    tbu_copy3(dir1, dir);
    on1 = tbg_implicitSupport(&G1, dir, flat, a1);
    tbu_scl3(dir, dir, -1.0);
    on2 = tbg_implicitSupport(&G2, dir, flat, a2);
  }
  if (!isnan(ip->zref)) a1[2] = a2[2] = ip->zref;
  // the multipliers: n1 along the search's direction from body 1, g's side its opposite
  double *lam = u + TB_IMP_NZ, *l2 = lam + ip->nf - 1, wt[2], n1[3];
  memset(lam, 0, sizeof(double) * (ip->nf + ip->ng - 2));
  tb_impWeights(&G1, on1, a1, dir1, wt);
  if (on1 && wt[0] + wt[1] > 0.0) lam[on1 - 1] = wt[1] / (wt[0] + wt[1]);
  tb_impNormal(&G1, ip, u, n1, NULL);
  double d[3];
  tbu_sub3(d, a2, a1);
  u[TB_IMP_L1] = fmax(0.0, tbu_dot3(d, n1) / tbu_dot3(n1, n1));
  tbu_scl3(n1, n1, -1.0);
  tb_impWeights(&G2, on2, a2, n1, wt);
  u[TB_IMP_L2] = wt[0];
  if (on2) l2[on2 - 1] = wt[1];
}

// the step's start: the pairs set up, the unknowns from the previous step's answer (d->warm)
// or, on a scene's first step, the free velocities and the shapes' support points; each pair's
// tangent frame turns from the world axis least along its starting normal
TB_HDN void tb_impStart(const tbModel* m, const tbData* d, int s, tbWork* w, tbImpView* v) {
  for (int p = 0, off = 6 * m->nbody; p < m->npair; p++) {
    tb_impPairSetUp(m, w, p, off);
    off += tb_impNz(&w->imp_pair[p]);
  }
  v->vs = tb_impVelocityScale(m, w);
  int n = v->n, warm = d->nwarm[s] == n;
  for (int i = 0; i < 6 * m->nbody; i++) v->scale[i] = v->vs;
  for (int p = 0; p < m->npair; p++) {
    const tbImpPair* ip = &w->imp_pair[p];
    for (int k = 0; k < tb_impNz(ip); k++) v->scale[ip->off + k] = tb_impScale(ip, v->vs, k);
  }
  if (warm) {
    memcpy(v->z, d->warm + (size_t)s * d->maxrow, sizeof(double) * n);
  } else {
    for (int b = 0; b < m->nbody; b++) {
      const double* vb = m->body_type[b] == TB_BODY_DYNAMIC ? w->vfree : w->xvel;
      memcpy(v->z + 6 * b, vb + 6 * b, sizeof(double) * 6);
    }
  }
  tb_impEndPose(m, w, v->z, v);
  for (int p = 0; p < m->npair; p++) {
    tbImpPair* ip = &w->imp_pair[p];
    if (!warm) {
      memset(v->z + ip->off, 0, sizeof(double) * TB_IMP_NZ);
      tb_impGuessPoints(m, w, v, p, TB_IMP_FLAT);
    }
    const double* u = v->z + ip->off;
    ip->dprev = warm ? u[TB_IMP_DEFL] : 0.0;
    tbGeomPose G1;
    tb_geomPoseAt(m, w->vary, v->epos, v->equat, ip->g[0], &G1);
    double n0[3];
    tb_impNormal(&G1, ip, u, n0, NULL);
    tbu_normalize3(n0);
    double ez[3] = {0.0, 0.0, 1.0}, ex[3] = {1.0, 0.0, 0.0};
    tbu_copy3(ip->ref, fabs(n0[2]) < 0.9 ? ez : ex);
  }
}

//---- the solve ---------------------------------------------------------------------------------

// (J^T J + lambda I) ds = -J^T phi for the scaled step ds, and dz its unscaled; 0, or -1 when
// the normal matrix is not positive definite even damped
TB_HDN int tb_impDirection(tbImpView* v, double lambda) {
  int n = v->n;
  tbu_gram(n, n, v->J, v->H);
  tbu_matTVec(n, n, v->J, v->phi, v->grad);
  for (int i = 0; i < n; i++) {
    v->H[(size_t)i * n + i] += lambda;
    v->ds[i] = -v->grad[i];
  }
  if (tbu_cholesky(n, v->H)) return -1;
  tbu_cholSolve(n, v->H, v->ds);
  for (int i = 0; i < n; i++) v->dz[i] = v->ds[i] * v->scale[i];
  return 0;
}

// the reduction of theta that the linear model predicts for the scaled step ds
TB_HD double tb_impPredicted(const tbImpView* v, double theta) {
  int n = v->n;
  double rest = 0.0;
  for (int i = 0; i < n; i++) {
    double r = v->phi[i];
    for (int j = 0; j < n; j++) r += v->J[(size_t)i * n + j] * v->ds[j];
    rest += 0.5 * r * r;
  }
  return theta - rest;
}

// Levenberg-Marquardt from v->z until |Phi|_inf <= tol or max_iter; the best iterate left in
// v->z, its |Phi|_inf in res. The damping is mu |Phi|, mu adapted by how well the linear model
// predicted the last step (Nielsen's rule: a fixed mu stalls where the Jacobian is small in some
// direction, e.g. a sliding contact's sigma, whose rows scale with its impulses)
TB_HDN void tb_impSolve(const tbModel* m, const tbWork* w, tbImpView* v, tbSolveResult* res) {
  int n = v->n;
  memset(res, 0, sizeof(*res));
  double theta = tb_impResidual(m, w, v->z, v, v->phi, v->ap, v->bp), mu = TB_IMP_MU0;
  int moved = 1;  // z moved since the Jacobian was taken
  for (int it = 0;; it++) {
    double worst = 0.0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(v->phi[i]));
    res->residual = worst;
    res->iterations = it;
    if (!(worst > m->opt.tol) || it == m->opt.max_iter || !isfinite(theta)) {
      res->converged = worst <= m->opt.tol;
      res->reason = isfinite(theta) ? res->reason : TB_STOP_NONFINITE;
      return;
    }
    if (moved) tb_impJacobian(m, w, v);
    double lambda = mu * sqrt(2.0 * theta);
    while (tb_impDirection(v, lambda) && lambda < 1e30) lambda = 10.0 * lambda + 1e-12;
    double predicted = tb_impPredicted(v, theta);
    // Armijo on theta along dz: its slope there is grad . ds
    double slope = 0.0;
    for (int i = 0; i < n; i++) slope += v->grad[i] * v->ds[i];
    double step = 1.0, trial = theta;
    for (int k = 0; k < 40; k++, step *= 0.5) {
      for (int i = 0; i < n; i++) v->zt[i] = v->z[i] + step * v->dz[i];
      trial = tb_impResidual(m, w, v->zt, v, v->am, NULL, NULL);
      if (trial <= theta + TB_IMP_ARMIJO * step * slope) break;
    }
    moved = trial < theta;
    if (!moved) {  // no descent at this damping: damp harder from the same point (a contact
                   // leaving at its grazing step stalled Newton's direction at 1e-6)
      if (mu == TB_IMP_MU_MAX) return;  // the best iterate stays, unconverged
      mu = fmin(100.0 * mu, TB_IMP_MU_MAX);
      continue;
    }
    double ratio = step == 1.0 && predicted > 0.0 ? (theta - trial) / predicted : 0.0;
    mu = ratio > 0.75   ? fmax(0.1 * mu, TB_IMP_MU_MIN)
         : ratio < 0.25 ? fmin(10.0 * mu, TB_IMP_MU_MAX)
                        : mu;
    memcpy(v->z, v->zt, sizeof(double) * n);
    theta = tb_impResidual(m, w, v->z, v, v->phi, v->ap, v->bp);
  }
}

// the normal impulse of pair p that stops the approach of its closest points at v's velocities
// z (the pair's reduced mass times the approach speed along its normal)
TB_HDN double tb_impStopping(const tbModel* m, const tbWork* w, const tbImpView* v, int p) {
  const tbImpPair* ip = &w->imp_pair[p];
  const double* u = v->z + ip->off;
  tbGeomPose G1;
  tb_geomPoseAt(m, w->vary, v->epos, v->equat, ip->g[0], &G1);
  double n1[3], v1[3], v2[3];
  tb_impNormal(&G1, ip, u, n1, NULL);
  tbu_normalize3(n1);
  tbu_pointVel(v1, tb_impVel(m, w, v->z, ip->b[0]), v->epos + 3 * ip->b[0], u + TB_IMP_A1);
  tbu_pointVel(v2, tb_impVel(m, w, v->z, ip->b[1]), v->epos + 3 * ip->b[1], u + TB_IMP_A2);
  return ip->meff * fmax(0.0, tbu_dot3(v1, n1) - tbu_dot3(v2, n1));
}

// a solve from the last step's answer that failed, tried again from that answer's velocities and
// impulses with the closest points guessed anew at their end pose (a closest point that has to
// cross a flattish face within the step, as a rocking superellipsoid's, starts far from where it
// was); then, if that fails too, from caps' centres (flat: a cylinder slapping flat onto a plane
// turns within the step from its rim onto its face, where the one contact point that stops the
// turn is inside the face) with the normal impulses that stop each pair's approach (from the
// last answer's, a step's worth smaller, Newton stalled). The best of the answers kept.
TB_HDN void tb_impRetry(const tbModel* m, const tbData* d, int s, tbWork* w, tbImpView* v,
                        tbSolveResult* res) {
  memcpy(v->first, v->z, sizeof(double) * v->n);
  for (int flat = 0; flat < 2 && !res->converged; flat++) {
    memcpy(v->z, d->warm + (size_t)s * d->maxrow, sizeof(double) * v->n);
    tb_impEndPose(m, w, v->z, v);
    for (int p = 0; p < m->npair; p++) {
      tb_impGuessPoints(m, w, v, p, flat ? INFINITY : TB_IMP_FLAT);
      if (flat) v->z[w->imp_pair[p].off + TB_IMP_PN] = tb_impStopping(m, w, v, p);
    }
    tbSolveResult again;
    tb_impSolve(m, w, v, &again);
    again.iterations += res->iterations;
    if (again.residual < res->residual) {
      *res = again;
      memcpy(v->first, v->z, sizeof(double) * v->n);
    } else {
      res->iterations = again.iterations;
    }
  }
  memcpy(v->z, v->first, sizeof(double) * v->n);
}

// the implicit step's answer for scene s: v+ into w->vfree (tb_integrate's input), the unknowns
// kept in d->warm, in w->ncon the pairs whose closest points are within the margin
TB_HDN void tb_implicitAnswer(const tbModel* m, tbData* d, int s, tbWork* w, tbSolveResult* res) {
  tbImpView v = tb_impView(m, w);
  int warm = d->nwarm[s] == v.n;
  tb_impStart(m, d, s, w, &v);
  tb_impSolve(m, w, &v, res);
  if (!res->converged && warm) tb_impRetry(m, d, s, w, &v, res);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] == TB_BODY_DYNAMIC)
      memcpy(w->vfree + 6 * b, v.z + 6 * b, sizeof(double) * 6);
  }
  memcpy(d->warm + (size_t)s * d->maxrow, v.z, sizeof(double) * v.n);
  d->nwarm[s] = v.n;
  w->ncon = 0;
  w->nrow = 0;
  for (int p = 0; p < m->npair; p++) {
    const double* u = v.z + w->imp_pair[p].off;
    double gap[3];
    tbu_sub3(gap, u + TB_IMP_A2, u + TB_IMP_A1);
    w->ncon += tbu_norm3(gap) < m->opt.margin;
  }
}

#endif  // TUMBLE_HOST_STAGE_IMPLICIT_H_

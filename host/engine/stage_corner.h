// Stage: non-convex corners (thesis §3.2, option corners) in the step.
//
// A corner pair (collide2d.h, tbg2_corners) keeps a vertex out of a corner by edge 1 or edge 2
// (Eq. 3.3), and only an edge the vertex ends on may push (Eq. 3.4-3.5): p_i > 0 only if
// max(psi_1, psi_2) = 0 = psi_i, psi_i the gaps at the end of the step, psi_i + h J_i v+. The
// thesis writes this as an LCP with eight auxiliary variables per corner and a large constant
// gamma (Eq. 3.6-3.15); its matrix is neither symmetric nor copositive, and Lemke's method ends on
// a ray already for a point at one corner (tried). The step solves the disjunction instead by
// rounds of the model's own solver, each round a problem of ordinary contacts in which each pair
// has one member (the other's rows are left out, con_off):
//   first round: the member with the larger gap at the free velocity;
//   after each solve: where the member pushes (p_i > 0) while the other's gap ends above
//   max(psi_i, 0), the vertex would leave through the other edge's side (Eq. 3.4-3.5 broken),
//   and the other member takes its place.
// A round with no broken pair satisfies Eq. 3.3-3.5, so the thesis's LCP holds with any gamma
// above the deepest penetration (tests/corner_test.cc builds its eight variables and checks it).
// That LCP has several solutions where a vertex can end at the corner itself: a block resting on
// the top edge and sliding toward the corner may slide on (the top edge carries it) or be pushed
// back by the wall to end exactly at the corner (both gaps 0). Of the answers the rounds find,
// the step keeps the one of least Gauss constraint, |v+ - v_free| in the mass metric (the motion
// nearest the free one, as the convex step's LCP gives within one set of half-planes): each pair
// whose member pushes is tried with its other member, kept when that answer holds and turns
// the motion less (not tried when the free motion alone is farther than that from the other
// member's half-space). A pair still broken after TB_CORNER_ROUNDS is solved once more with both
// members, as the half-planes of the step without corners (never a kick from a member far behind
// its line), and leaves the step unconverged.
#ifndef TUMBLE_HOST_STAGE_CORNER_H_
#define TUMBLE_HOST_STAGE_CORNER_H_

#include <math.h>

#include "math/collide2d.h"

#include "engine/engine.h"
#include "engine/stage_collide.h"
#include "engine/stage_assemble.h"
#include "engine/stage_rows.h"

#define TB_CORNER_ROUNDS 8
// a gap ends above another when by more than this fraction of the step's contact margin (or the
// model's tolerance, if larger: fp32's solves stop at 1e-4)
#define TB_CORNER_SLACK 1e-6

// the velocity change of dynamic body b from the solved problem's impulses: (M^-1 J^T x) on b
TB_HD void tb_bodyKick(const tbWork* w, int b, double dv[6]) {
  for (int k = 0; k < 6; k++) dv[k] = 0.0;
  for (int i = 0; i < w->nrow; i++) {
    for (int side = 0; side < 2; side++) {
      if (w->row[i].body[side] != b) continue;
      const double* mj = w->row_MJ + 12 * i + 6 * side;
      for (int k = 0; k < 6; k++) dv[k] += mj[k] * w->x[i];
    }
  }
}

// J v+ of row r after the solve, v+ = v_free + M^-1 J^T x (what tb_applyImpulse will add) on
// r's dynamic bodies (a contact's gap already holds the kinematic bodies' motion: they are posed
// at t + h)
TB_HD double tb_rowVelocityAfter(const tbModel* m, const tbWork* w, const tbRowJ* r) {
  double u = tb_rowVelocity(m, r, w->vfree, NULL);
  for (int side = 0; side < 2; side++) {
    int b = r->body[side];
    if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double dv[6];
    tb_bodyKick(w, b, dv);
    for (int k = 0; k < 6; k++) u += r->J[side][k] * dv[k];
  }
  return u;
}

// contact c's gap at the end of the step: at the free velocity (after = 0) or after the solve
TB_HD double tb_cornerGap(const tbModel* m, const tbWork* w, int c, int after) {
  tbRowJ row;
  double ra[3], rb[3];
  tb_contactNormalRow(m, w, c, &row, ra, rb);
  double u = after ? tb_rowVelocityAfter(m, w, &row) : tb_rowVelocity(m, &row, w->vfree, NULL);
  return w->con[c].gap + w->h * u;
}

// the least Gauss constraint any answer with contact c's gap >= 0 at the end has: the mass-metric
// distance from v_free to that half-space, 1/2 (psi_free / h)^2 / (J M^-1 J^T) when the free
// motion ends behind c's line, else 0
TB_HD double tb_cornerLeastGauss(const tbModel* m, const tbWork* w, int c) {
  double psi = tb_cornerGap(m, w, c, 0);
  if (!(psi < 0.0)) return 0.0;
  tbRowJ row;
  double ra[3], rb[3];
  tb_contactNormalRow(m, w, c, &row, ra, rb);
  double a = 0.0;
  for (int side = 0; side < 2; side++) {
    int b = row.body[side];
    if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double mj[6];
    tb_mulMinv(w, b, row.J[side], mj);
    for (int k = 0; k < 6; k++) a += row.J[side][k] * mj[k];
  }
  double du = psi / w->h;
  return a > 0.0 ? 0.5 * du * du / a : INFINITY;
}

// the normal impulse of contact c in the solved problem (0 when its rows are not in it)
TB_HD double tb_contactImpulse(const tbWork* w, int c) {
  int key = tb_contactKey(w, c);
  for (int i = 0; i < w->nrow; i++) {
    if (w->row_key[i] == key) return w->x[i];
  }
  return 0.0;
}

// the first round's members: of each pair, the one with the larger gap at the free velocity
// (member 0 on a tie)
TB_HD void tb_cornerChoose(const tbModel* m, tbWork* w) {
  for (int c = 0; c < w->ncon; c++) {
    int t = w->con_twin[c];
    if (t <= c) continue;
    w->con_off[t] = tb_cornerGap(m, w, c, 0) >= tb_cornerGap(m, w, t, 0);
    w->con_off[c] = !w->con_off[t];
  }
}

// the impulse above which a row of the solved problem pushes: the model's tolerance of the
// largest impulse (a solve leaves noise of that size where it should leave 0)
TB_HD double tb_pushFloor(const tbModel* m, const tbWork* w) {
  double big = 0.0;
  for (int i = 0; i < w->nrow; i++) big = fmax(big, fabs(w->x[i]));
  return m->opt.tol * big;
}

// whether pair c's member pushes in the solved problem (above floor)
TB_HD int tb_cornerPushes(const tbWork* w, int c, double floor) {
  return tb_contactImpulse(w, w->con_off[c] ? w->con_twin[c] : c) > floor;
}

// whether pair c's member (on) breaks Eq. 3.4-3.5 in the solved problem: it pushes (above floor)
// while the other member's gap ends above max(psi_on, 0) by more than slack; *over: by how much
TB_HD int tb_cornerBroken(const tbModel* m, const tbWork* w, int c, double floor, double slack,
                          double* over) {
  int t = w->con_twin[c];
  int on = w->con_off[c] ? t : c, off = w->con_off[c] ? c : t;
  *over = 0.0;
  if (!tb_cornerPushes(w, c, floor)) return 0;
  *over = tb_cornerGap(m, w, off, 1) - fmax(tb_cornerGap(m, w, on, 1), 0.0);
  return *over > slack;
}

// pair c (its first member) takes its other member
TB_HD void tb_cornerFlip(tbWork* w, int c) {
  int t = w->con_twin[c];
  w->con_off[c] = !w->con_off[c];
  w->con_off[t] = !w->con_off[t];
}

// what tb_cornerSwap does with a broken pair
enum {
  TB_CORNER_COUNT,  // nothing
  TB_CORNER_SWAP,   // its other member takes its place
  TB_CORNER_BOTH    // both members, the half-planes of the step without corners
};

// after a solve: every pair whose member breaks Eq. 3.4-3.5 is counted and changed as `action`
// says. Returns how many; *excess: the largest amount by which such a pair's other gap ended
// above the member's.
TB_HD int tb_cornerSwap(const tbModel* m, tbWork* w, int action, double* excess) {
  double slack = fmax(TB_CORNER_SLACK, m->opt.tol) * tb_stepMargin(m, w);
  double floor = tb_pushFloor(m, w);
  int broken = 0;
  *excess = 0.0;
  for (int c = 0; c < w->ncon; c++) {
    double over;
    if (w->con_twin[c] <= c || !tb_cornerBroken(m, w, c, floor, slack, &over)) continue;
    if (action == TB_CORNER_SWAP) tb_cornerFlip(w, c);
    if (action == TB_CORNER_BOTH) w->con_off[c] = w->con_off[w->con_twin[c]] = 0;
    *excess = fmax(*excess, over);
    broken++;
  }
  return broken;
}

// Gauss's constraint of the solved problem, 1/2 x^T J M^-1 J^T x = 1/2 |v+ - v_free|^2 in the
// mass metric: how far the impulses turn the free motion
TB_HD double tb_gaussConstraint(const tbModel* m, const tbWork* w) {
  double g = 0.0;
  for (int i = 0; i < w->nrow; i++) g += 0.5 * w->x[i] * tb_rowImpulseVelocity(m, w, i);
  return g;
}

#endif  // TUMBLE_HOST_STAGE_CORNER_H_

// Stage: the Delassus problem of the step's rows (stage_rows.h, whose top has the step's
// equations): the bodies' inverse mass, the free velocity v_free, A = J M^-1 J^T + cfm and
// b = J v_free + bias (over A's nonzero runs where it has them), the problem the solvers
// take, and the velocities the solved impulses add. Its part of the step's equations:
//   v_free = v + h M^-1 (f_app + m g - w x I w)          (gyroscopic term at l, thesis Eq. 2.35)
//   v+     = v_free + M^-1 J^T x                         (x: impulses p = h lambda)
// Locked DoFs have zero inverse mass; for the angular ones the unlocked block of the world
// inertia is inverted (infinite inertia on locked axes), so a planar body's yaw sees I_zz.
#ifndef TUMBLE_HOST_STAGE_ASSEMBLE_H_
#define TUMBLE_HOST_STAGE_ASSEMBLE_H_

#include <math.h>
#include <string.h>

#include "math/tb_math.h"
#include "math/team.h"

#include "engine/engine.h"
#include "engine/stage_rows.h"

//---- mass --------------------------------------------------------------------------------------

// inverse of the unlocked principal submatrix of the symmetric 3x3 I, embedded in zeros
TB_HD void tb_invUnlocked(const double I[9], int lock, double out[9]) {
  int idx[3], n = 0;
  for (int k = 0; k < 3; k++) {
    if (!(lock & (TB_LOCK_RX << k))) idx[n++] = k;
  }
  memset(out, 0, sizeof(double) * 9);
  if (n == 1) {
    out[4 * idx[0]] = 1.0 / I[4 * idx[0]];
  } else if (n == 2) {
    double a = I[4 * idx[0]], c = I[4 * idx[1]], b = I[3 * idx[0] + idx[1]];
    double det = a * c - b * b;
    out[4 * idx[0]] = c / det;
    out[4 * idx[1]] = a / det;
    out[3 * idx[0] + idx[1]] = out[3 * idx[1] + idx[0]] = -b / det;
  } else if (n == 3) {
    double c00 = I[4] * I[8] - I[5] * I[7], c01 = I[5] * I[6] - I[3] * I[8];
    double c02 = I[3] * I[7] - I[4] * I[6];
    double det = I[0] * c00 + I[1] * c01 + I[2] * c02;
    out[0] = c00 / det;
    out[1] = (I[2] * I[7] - I[1] * I[8]) / det;
    out[2] = (I[1] * I[5] - I[2] * I[4]) / det;
    out[3] = c01 / det;
    out[4] = (I[0] * I[8] - I[2] * I[6]) / det;
    out[5] = (I[2] * I[3] - I[0] * I[5]) / det;
    out[6] = c02 / det;
    out[7] = (I[1] * I[6] - I[0] * I[7]) / det;
    out[8] = (I[0] * I[4] - I[1] * I[3]) / det;
  }
}

// 1 when the principal moments I are equal (a sphere's, a particle's): the world inertia is then
// I[0] times the identity whatever the orientation, and w x I w is zero
TB_HD int tb_isotropic(const double I[3]) {
  return I[0] == I[1] && I[1] == I[2];
}

// inverse mass and world inverse inertia of every dynamic body at the work pose: where no axis
// is locked, R diag(1/I) R^T (diagonal where I is isotropic), the inverse of R diag(I) R^T
// without a 3x3 inversion
TB_HD void tb_massInverse(const tbModel* m, tbWork* w) {
  for (int b = 0; b < m->nbody; b++) {
    double* mi = w->minv + 12 * b;
    memset(mi, 0, sizeof(double) * 12);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double mass = tb_varyOf(m, w->vary, TB_F_BODY_MASS, b)[0];
    const double* I = tb_varyOf(m, w->vary, TB_F_BODY_INERTIA, b);
    int lock = m->body_lock[b];
    for (int k = 0; k < 3; k++) mi[k] = (lock & (TB_LOCK_X << k)) ? 0.0 : 1.0 / mass;
    if (lock & (TB_LOCK_RX | TB_LOCK_RY | TB_LOCK_RZ)) {
      double Iw[9];
      tbu_inertiaWorld(Iw, w->xquat + 4 * b, I);
      tb_invUnlocked(Iw, lock, mi + 3);
    } else if (tb_isotropic(I)) {
      mi[3] = mi[7] = mi[11] = 1.0 / I[0];
    } else {
      double inv[3] = {1.0 / I[0], 1.0 / I[1], 1.0 / I[2]};
      tbu_inertiaWorld(mi + 3, w->xquat + 4 * b, inv);
    }
  }
}

// out = M^-1 f for body b (6-vectors)
TB_HD void tb_mulMinv(const tbWork* w, int b, const double f[6], double out[6]) {
  const double* mi = w->minv + 12 * b;
  for (int k = 0; k < 3; k++) out[k] = mi[k] * f[k];
  tbu_mulMatVec3(out + 3, mi + 3, f + 3);
}

//---- forces ------------------------------------------------------------------------------------

// constant-force prismatic drives: +F along the axis on a at its anchor, -F on b
TB_HD void tb_driveForces(const tbModel* m, const tbWork* w, double* f) {
  for (int j = 0; j < m->njnt; j++) {
    double F = tb_varyOf(m, w->vary, TB_F_JOINT, j)[TB_JNT_DRIVE];
    if (F == 0.0) continue;
    tbJointFrame fr;
    tb_jointFrame(m, w, j, &fr);
    for (int side = 0; side < 2; side++) {
      int b = side ? fr.b : fr.a;
      if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
      double fv[3], tq[3];
      tbu_scl3(fv, fr.aa, side ? -F : F);
      tbu_cross3(tq, side ? fr.rb : fr.ra, fv);
      tbu_add3(f + 6 * b, f + 6 * b, fv);
      tbu_add3(f + 6 * b + 3, f + 6 * b + 3, tq);
    }
  }
}

// the wrench [f; tau] at body b's center from gravity and its applied force (0: not dynamic)
TB_HD void tb_appliedWrench(const tbModel* m, const tbWork* w, int b, double f[6]) {
  memset(f, 0, sizeof(double) * 6);
  if (m->body_type[b] != TB_BODY_DYNAMIC) return;
  double mass = tb_varyOf(m, w->vary, TB_F_BODY_MASS, b)[0];
  const double* fa = tb_varyOf(m, w->vary, TB_F_BODY_FORCE, b);
  for (int k = 0; k < 3; k++) {
    f[k] = fa[k] + mass * w->gravity[k];
    f[3 + k] = fa[3 + k];
  }
}

// v_free = v + h M^-1 (f_app + m g - w x I w + drives)
TB_HD void tb_freeVelocity(const tbModel* m, const tbData* d, int s, tbWork* w) {
  double h = w->h;
  const double* vel = d->body_vel + (size_t)s * m->nbody * 6;
  double* f = w->vfree;  // forces first, then overwritten by velocities
  for (int b = 0; b < m->nbody; b++) {
    double* fb = f + 6 * b;
    tb_appliedWrench(m, w, b, fb);
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    const double* I = tb_varyOf(m, w->vary, TB_F_BODY_INERTIA, b);
    if (tb_isotropic(I)) continue;
    const double* om = vel + 6 * b + 3;
    double Iw[9], L[3], gyro[3];
    tbu_inertiaWorld(Iw, w->xquat + 4 * b, I);
    tbu_mulMatVec3(L, Iw, om);
    tbu_cross3(gyro, om, L);
    tbu_sub3(fb + 3, fb + 3, gyro);
  }
  tb_driveForces(m, w, f);
  for (int b = 0; b < m->nbody; b++) {
    double* vb = w->vfree + 6 * b;
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    double dv[6];
    tb_mulMinv(w, b, vb, dv);
    for (int k = 0; k < 6; k++) vb[k] = vel[6 * b + k] + h * dv[k];
  }
}

//---- assembly ----------------------------------------------------------------------------------

// a row's b: its velocity at v_free (with the kinematic bodies' motion where it is a velocity
// row; a position row's gap already holds it) and its bias
TB_HD double tb_rowFree(const tbModel* m, const tbWork* w, const tbRowJ* r) {
  return tb_rowVelocity(m, r, w->vfree, r->kind == TB_ROW_VELOCITY ? w->xvel : NULL) + r->bias;
}

// a + x . y over 6 entries, in order
TB_HD double tb_addDot6(double a, const double* x, const double* y) {
  for (int k = 0; k < 6; k++) a += x[k] * y[k];
  return a;
}

// J_i M^-1 J_j^T of rows ri and j: over the sides (si, sj) in order on one body, each body's
// 6-term product added in turn (the bodies as locals: the stores to A would make the compiler
// read them again)
TB_HD double tb_delassusEntry(const tbWork* w, const tbRowJ* ri, int j) {
  const int* bj = w->row[j].body;
  const double* mj = w->row_MJ + 12 * j;
  double a = 0.0;
  for (int si = 0; si < 2; si++) {
    int b = ri->body[si];
    if (b < 0) continue;
    if (b == bj[0]) a = tb_addDot6(a, ri->J[si], mj);
    if (b == bj[1]) a = tb_addDot6(a, ri->J[si], mj + 6);
  }
  return a;
}

// option soft on a contact row: its mixing gains soft times its own J M^-1 J^T, aii (once, as
// the row is assembled: the rows are made anew each step)
TB_HD void tb_softenRow(tbRowJ* row, double aii) {
  row->prox = row->soft * aii;
  row->cfm += row->prox;
}

//---- A's nonzero runs --------------------------------------------------------------------------

// the dynamic body on side s of a block whose first row's bodies are bd, or -1 (a side that
// repeats the other's body counts once)
TB_HD int tb_blockBody(const tbModel* m, const int* bd, int s) {
  int b = bd[s];
  if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC || (s == 1 && b == bd[0])) return -1;
  return b;
}

// each dynamic body's blocks in order: body b's at body_blk[body_blk_adr[b] .. body_blk_adr[b + 1])
TB_HD void tb_bodyBlocks(const tbModel* m, tbWork* w) {
  int nb = m->nbody, *adr = w->body_blk_adr;
  memset(adr, 0, sizeof(int) * (size_t)(nb + 1));
  for (int k = 0; k < w->nblock; k++) {
    for (int s = 0; s < 2; s++) {
      int b = tb_blockBody(m, w->row[w->blk_adr[k]].body, s);
      if (b >= 0) adr[b]++;
    }
  }
  for (int b = 0, sum = 0; b <= nb; b++) {
    int c = b < nb ? adr[b] : 0;
    adr[b] = sum;
    sum += c;
  }
  for (int k = 0; k < w->nblock; k++) {  // each body's start moves on to the next body's
    for (int s = 0; s < 2; s++) {
      int b = tb_blockBody(m, w->row[w->blk_adr[k]].body, s);
      if (b >= 0) w->body_blk[adr[b]++] = k;
    }
  }
  for (int b = nb - 1; b > 0; b--) adr[b] = adr[b - 1];
  if (nb > 0) adr[0] = 0;
}

// append block j's rows to the runs, joining the last run (from `first` on) where it ends there;
// 0, or -1 when the runs are full
TB_HD int tb_runAppend(tbWork* w, int first, int* nrun, int cap, int j) {
  int r0 = w->blk_adr[j], r1 = r0 + w->blk_dim[j];
  if (*nrun > first && w->run[2 * *nrun - 1] == r0) {
    w->run[2 * *nrun - 1] = r1;
    return 0;
  }
  if (*nrun == cap) return -1;
  w->run[2 * *nrun] = r0;
  w->run[2 * *nrun + 1] = r1;
  (*nrun)++;
  return 0;
}

// block k's runs: the blocks of its dynamic bodies (the two ordered lists merged, a block on
// both once), or its own rows where it has none; 0, or -1 when the runs are full
TB_HD int tb_blockRuns(const tbModel* m, tbWork* w, int k, int* nrun, int cap) {
  const int* bd = w->row[w->blk_adr[k]].body;
  int a = tb_blockBody(m, bd, 0), b = tb_blockBody(m, bd, 1), first = *nrun;
  if (a < 0 && b < 0) return tb_runAppend(w, first, nrun, cap, k);
  const int* adr = w->body_blk_adr;
  const int* list = w->body_blk;
  int ia = a < 0 ? 0 : adr[a], ea = a < 0 ? 0 : adr[a + 1];
  int ib = b < 0 ? 0 : adr[b], eb = b < 0 ? 0 : adr[b + 1];
  while (ia < ea || ib < eb) {
    int j;
    if (ib == eb || (ia < ea && list[ia] < list[ib])) {
      j = list[ia++];
    } else if (ia == ea || list[ib] < list[ia]) {
      j = list[ib++];
    } else {
      j = list[ia++];
      ib++;
    }
    if (tb_runAppend(w, first, nrun, cap, j)) return -1;
  }
  return 0;
}

// the runs of A's rows (each row's: its block's), when the step has at least TB_STEP_RUN_ROWS
// rows, its runs fit the scratch and hold at most TB_RUN_FILL of A: 1, else 0 (A read whole).
// Every entry outside them is J_i M^-1 J_j^T of rows without a dynamic body in common: zero.
TB_HD int tb_assembleRuns(const tbModel* m, tbWork* w) {
  int n = w->nrow, cap = tb_stepRunCap(m), nrun = 0;
  if (cap == 0 || n < TB_STEP_RUN_ROWS) return 0;
  tb_bodyBlocks(m, w);
  double fill = 0.0;
  for (int k = 0; k < w->nblock; k++) {
    int r0 = w->blk_adr[k], first = nrun;
    w->run_adr[r0] = first;
    if (tb_blockRuns(m, w, k, &nrun, cap)) return 0;
    int len = 0, count = nrun - first;
    for (int r = first; r < nrun; r++) len += w->run[2 * r + 1] - w->run[2 * r];
    for (int i = r0 + 1; i < r0 + w->blk_dim[k]; i++) {  // the block's other rows: the same runs
      if (nrun + count > cap) return 0;
      w->run_adr[i] = nrun;
      memcpy(w->run + 2 * nrun, w->run + 2 * first, sizeof(int) * 2 * (size_t)count);
      nrun += count;
    }
    fill += (double)len * w->blk_dim[k];
  }
  w->run_adr[n] = nrun;
  return fill <= TB_RUN_FILL * (double)n * (double)n;
}

// row i's entries of A (n x n) in columns [j0, j1), from j0 >= i, and their mirrors below
TB_HD void tb_delassusSpan(const tbWork* w, int i, int j0, int j1, double* A) {
  int n = w->nrow;
  for (int j = j0; j < j1; j++) A[i * n + j] = A[j * n + i] = tb_delassusEntry(w, &w->row[i], j);
}

// A = J M^-1 J^T + cfm into A (n x n) from the rows and their M^-1 J^T, team t splitting the
// rows (row i's owner writes row i of A right of the diagonal and its mirror below)
TB_HD void tb_delassusRows(tbTeam t, const tbWork* w, double* A) {
  int n = w->nrow;
  for (int i = t.lane; i < n; i += t.size) {
    tb_delassusSpan(w, i, i, n, A);
    A[i * n + i] += w->row[i].cfm;
  }
}

// tb_delassusRows where the rows' runs are found (tb_assembleRuns): each row's entries in its
// runs, the others zero (rows without a dynamic body in common) by a clearing pass, not a product
// each: a 64-link chain's rows each meet 15 of 320
TB_HD void tb_delassusRuns(tbTeam t, const tbWork* w, double* A) {
  int n = w->nrow;
  for (int i = t.lane; i < n; i += t.size) memset(A + (size_t)i * n, 0, sizeof(double) * n);
  tb_teamSync(t);  // every row cleared before any mirror lands in it
  for (int i = t.lane; i < n; i += t.size) {
    for (int r = w->run_adr[i]; r < w->run_adr[i + 1]; r++) {
      int j0 = w->run[2 * r] > i ? w->run[2 * r] : i;
      tb_delassusSpan(w, i, j0, w->run[2 * r + 1], A);
    }
    A[i * n + i] += w->row[i].cfm;
  }
}

// body space (tb_stepBodySpace): of A only each row's entries in its block's columns, row i's
// at blk_diag + 3 i, by team t
TB_HD void tb_assembleDiagonal(tbTeam t, tbWork* w) {
  for (int k = t.lane; k < w->nblock; k += t.size) {
    int r0 = w->blk_adr[k], dim = w->blk_dim[k];
    for (int i = r0; i < r0 + dim; i++) {
      for (int j = r0; j < r0 + dim; j++) {
        w->blk_diag[3 * i + j - r0] =
            tb_delassusEntry(w, &w->row[i], j) + (i == j ? w->row[i].cfm : 0.0);
      }
    }
  }
}

// each row's M^-1 J^T and b = J v_free + bias, team t splitting the rows: what the rows' velocities
// need, before A (tb_assembleMatrix)
TB_HD void tb_assembleRows(tbTeam t, const tbModel* m, tbWork* w) {
  int n = w->nrow;
  for (int i = t.lane; i < n; i += t.size) {
    const tbRowJ* ri = &w->row[i];
    for (int side = 0; side < 2; side++) {
      double* mj = w->row_MJ + 12 * i + 6 * side;
      int b = ri->body[side];
      if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) {
        memset(mj, 0, sizeof(double) * 6);
      } else {
        tb_mulMinv(w, b, ri->J[side], mj);
      }
    }
    if (ri->soft != 0.0) tb_softenRow(&w->row[i], tb_delassusEntry(w, ri, i));
    w->b[i] = tb_rowFree(m, w, ri);
  }
  tb_teamSync(t);
}

// A = J M^-1 J^T + cfm after tb_assembleRows, team t splitting the rows: the lead finds A's
// nonzero runs first, and where the step has them only their entries are products
// (tb_delassusRuns), else every entry (tb_delassusRows). In body space A's diagonal blocks alone.
TB_HD void tb_assembleMatrix(tbTeam t, const tbModel* m, tbWork* w) {
  if (tb_stepBodySpace(m)) {
    tb_assembleDiagonal(t, w);
    tb_teamSync(t);
    return;
  }
  if (t.lane == 0) w->use_runs = tb_assembleRuns(m, w);
  tb_teamSync(t);
  if (w->use_runs) {
    tb_delassusRuns(t, w, w->A);
  } else {
    tb_delassusRows(t, w, w->A);
  }
  tb_teamSync(t);
}

// the Delassus problem of the assembled rows, as the solvers take it
TB_HD tbProblem tb_problemOf(const tbModel* m, const tbWork* w) {
  tbProblem p;
  p.n = w->nrow;
  p.nblock = w->nblock;
  p.A = tb_stepBodySpace(m) ? NULL : w->A;  // body space: the solve is tb_solveBodyPGS's
  p.b = w->b;
  p.lo = w->lo;
  p.hi = w->hi;
  p.blk_type = w->blk_type;
  p.blk_adr = w->blk_adr;
  p.blk_dim = w->blk_dim;
  p.blk_mu = w->blk_mu;
  p.blk_angle = w->blk_angle;
  p.cone = m->opt.cone;
  p.facets = m->opt.facets;
  p.runs = w->use_runs ? &w->runs : NULL;
  p.rank_max = m->ndof;
  for (int b = 0; b < m->nbody && m->nq == 0; b++) {
    p.rank_max += m->body_type[b] == TB_BODY_DYNAMIC ? 6 : 0;
  }
  return p;
}

// J_i dv of row i and the bodies' velocities dv (6 a body; body space: their impulse velocities).
// tb_rowVelocity without its body-type tests: a static or kinematic body's dv stays zero
// (tb_addRowImpulse), and in the sweep, where this is most of the work, the tests cost the pile 3%
// of its speed
TB_HD double tb_rowVelocityOf(const tbWork* w, int i, const double* dv) {
  const tbRowJ* r = &w->row[i];
  double u = 0.0;
  for (int side = 0; side < 2; side++) {
    if (r->body[side] >= 0) u = tb_addDot6(u, r->J[side], dv + 6 * r->body[side]);
  }
  return u;
}

// the velocity the solved impulses add to row i, ((A - cfm) x)_i = J_i M^-1 J^T x (the
// compliance's share of A is not a motion); in body space from the solve's dv
TB_HD double tb_rowImpulseVelocity(const tbModel* m, const tbWork* w, int i) {
  if (tb_stepBodySpace(m)) return tb_rowVelocityOf(w, i, w->body_dv);
  int n = w->nrow;
  double du = -w->row[i].cfm * w->x[i];
  for (int j = 0; j < n; j++) du += w->A[i * n + j] * w->x[j];
  return du;
}

// vel += M^-1 J_i^T x on row i's dynamic bodies (6 a body)
TB_HD void tb_addRowImpulse(const tbModel* m, const tbWork* w, int i, double x, double* vel) {
  if (x == 0.0) return;
  for (int side = 0; side < 2; side++) {
    int b = w->row[i].body[side];
    if (b < 0 || m->body_type[b] != TB_BODY_DYNAMIC) continue;
    const double* mj = w->row_MJ + 12 * i + 6 * side;
    for (int k = 0; k < 6; k++) vel[6 * b + k] += mj[k] * x;
  }
}

// post-step velocity: vfree <- vfree + M^-1 J^T x
TB_HD void tb_applyImpulse(const tbModel* m, tbWork* w) {
  for (int i = 0; i < w->nrow; i++) tb_addRowImpulse(m, w, i, w->x[i], w->vfree);
}

#endif  // TUMBLE_HOST_STAGE_ASSEMBLE_H_

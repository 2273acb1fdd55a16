// What a rollout reduces as it goes, given as data: observed coordinates at given steps (the
// particle filter and the fit), a plate field's window statistics, the plate objective's error
// terms (thesis ch. 6). The same code runs after each step on both backends, so the jobs that
// need more than the recorded states still go through the one rollout.
#ifndef TUMBLE_HOST_STAGE_PROBE_H_
#define TUMBLE_HOST_STAGE_PROBE_H_

#include <math.h>
#include <string.h>

#include <tumble/tumble.h>

#include "math/tb_math.h"

#include "engine/engine.h"

typedef enum tbtProbe {
  TB_PROBE_OBS = 0,    // coordinates at observation steps
  TB_PROBE_FIELD = 1,  // plate field statistics over a window of steps
  TB_PROBE_COST = 2,   // plate objective: position and velocity errors at window ends
} tbtProbe;

typedef struct tbProbe {
  int kind;    // tbtProbe
  int scene0;  // index in the whole batch of the rollout's scene 0 (the GPU's chunks)
  // TB_PROBE_OBS: scene s's row r, column c into obs[(s nrow + r) ncol + c] (NaN once failed)
  int nrow, ncol;
  const int* step;          // (nrow) increasing
  const tbObsCoord* coord;  // (ncol)
  double* obs;              // (nscene x nrow x ncol)
  // TB_PROBE_FIELD: the part on the plate over steps (k0, k1]; field[s] (its x0, y0 untouched)
  int plate, part, geom, box;  // bodies, the part's shape, 1 when it is a box
  int k0, k1;
  double span;  // s, (k1 - k0) h
  tbFieldPoint* field;
  // TB_PROBE_COST: every S steps the part's distance from want and its mean velocity over the
  // last W steps against the target field, for nwin windows; cost[s]
  int nstart, nwin, S, W;
  double win;           // s, W h
  const double* want;   // (nstart x nwin x 2) target positions of each start at each window end
  int target;           // TB_PLATE_TARGET_*
  int npoint;           // TB_PLATE_TARGET_TABLE: rows x, y, vx, vy
  const double* point;  // (npoint x 4)
  double* cost;
} tbProbe;

// the probe's running values for one scene
typedef struct tbProbeState {
  int row;                   // OBS: next row; COST: next window (1-based)
  double x0, y0, sx, sy, c;  // FIELD: window start, position sums; COST: anchor, sum
  int nstick, nsep, run;     // FIELD: sticking and separated steps, the current zero-slip run
} tbProbeState;

// the value of one observed coordinate of scene s
TB_HD double tb_obsCoordValue(const tbModel* m, const tbData* d, int s, const tbObsCoord* c) {
  size_t base = (size_t)s * m->nbody + c->body;
  if (c->comp == TB_OBS_YAW) {
    // the turn about z of a planar body, in (-pi, pi]
    const double* q = d->body_quat + base * 4;
    double sg = q[0] >= 0.0 ? 1.0 : -1.0;  // q and -q: the same turn
    return 2.0 * atan2(sg * q[3], sg * q[0]);
  }
  if (c->comp < 3) return d->body_pos[base * 3 + c->comp];
  if (c->comp < 7) return d->body_quat[base * 4 + c->comp - 3];
  return d->body_vel[base * 6 + c->comp - 7];
}

// the plate's normal: its body z axis
TB_HD void tb_plateNormal(const double q[4], double n[3]) {
  const double ez[3] = {0, 0, 1};
  tbu_rotVec(n, q, ez);
}

// gap of the part above the plate after the step, and the slip speed at its lowest point
TB_HD void tb_plateObserve(const tbModel* m, const tbData* d, int s, int plate, int part,
                           const double half[3], double* gap, double* slip) {
  const double* ppos = d->body_pos + ((size_t)s * m->nbody + plate) * 3;
  const double* pquat = d->body_quat + ((size_t)s * m->nbody + plate) * 4;
  const double* pvel = d->body_vel + ((size_t)s * m->nbody + plate) * 6;
  const double* pos = d->body_pos + ((size_t)s * m->nbody + part) * 3;
  const double* quat = d->body_quat + ((size_t)s * m->nbody + part) * 4;
  const double* vel = d->body_vel + ((size_t)s * m->nbody + part) * 6;
  double n[3], low[3], r[3];
  tb_plateNormal(pquat, n);
  tbu_copy3(low, pos);
  double g = INFINITY;
  if (half[0] > 0.0 || half[1] > 0.0 || half[2] > 0.0) {
    for (int c = 0; c < 8; c++) {
      double loc[3] = {(c & 1 ? 1 : -1) * half[0], (c & 2 ? 1 : -1) * half[1],
                       (c & 4 ? 1 : -1) * half[2]};
      double wc[3], p[3];
      tbu_rotVec(wc, quat, loc);
      tbu_add3(p, pos, wc);
      tbu_sub3(r, p, ppos);
      double gc = tbu_dot3(n, r);
      if (gc < g) g = gc;
    }
    // the slip is measured under the centre of the block's lowest face
    double down[3];
    tbu_scl3(down, n, -half[2]);
    tbu_add3(low, pos, down);
  } else {
    tbu_sub3(r, pos, ppos);
    g = tbu_dot3(n, r);
  }
  double vp[3], vpart[3], rel[3], wr[3];
  tbu_pointVel(vp, pvel, ppos, low);
  tbu_sub3(r, low, pos);
  tbu_cross3(wr, vel + 3, r);
  tbu_add3(vpart, vel, wr);
  tbu_sub3(rel, vpart, vp);
  double vn = tbu_dot3(rel, n);
  double vt[3];
  tbu_addscl3(vt, rel, n, -vn);
  *gap = g;
  *slip = sqrt(tbu_dot3(vt, vt));
}

// the target velocity field at (x, y): the circle or saddle of thesis ch. 6, or the nearest row
// of a table (x, y, vx, vy)
TB_HD void tb_plateTargetVel(int target, int npoint, const double* point, double x, double y,
                             double v[2]) {
  switch (target) {
    case TB_PLATE_TARGET_CIRCLE:
      v[0] = -0.15 * y;
      v[1] = 0.15 * x;
      return;
    case TB_PLATE_TARGET_SADDLE:
      v[0] = -0.2 * x;
      v[1] = 0.2 * y;
      return;
    default: {
      int best = 0;
      double bd = INFINITY;
      for (int i = 0; i < npoint; i++) {
        double dx = point[4 * i] - x, dy = point[4 * i + 1] - y, d2 = dx * dx + dy * dy;
        if (d2 < bd) {
          bd = d2;
          best = i;
        }
      }
      v[0] = point[4 * best + 2];
      v[1] = point[4 * best + 3];
    }
  }
}

TB_HD const double* tb_probePartPos(const tbModel* m, const tbData* d, int s, int part) {
  return d->body_pos + ((size_t)s * m->nbody + part) * 3;
}

// The probe's stages read the scene's state from its one-scene batch `one` and write the outputs
// of scene s.

// OBS: the rows due at step k
TB_HD void tb_probeObs(const tbProbe* p, const tbModel* m, const tbData* one, int s, int k,
                       tbProbeState* ps) {
  int failed = (one->status[0] & TB_SCENE_FAILMASK) != 0;
  for (; ps->row < p->nrow && p->step[ps->row] == k; ps->row++) {
    double* out = p->obs + ((size_t)s * p->nrow + ps->row) * p->ncol;
    for (int c = 0; c < p->ncol; c++)
      out[c] = failed ? NAN : tb_obsCoordValue(m, one, 0, &p->coord[c]);
  }
}

// FIELD: step k's contribution (a failed scene's end gives NaN)
TB_HD void tb_probeField(const tbProbe* p, const tbModel* m, const tbData* one, int s, int k,
                         const tbWork* w, tbProbeState* ps) {
  const double* pos = tb_probePartPos(m, one, 0, p->part);
  if (k == p->k0) {
    ps->x0 = pos[0];
    ps->y0 = pos[1];
  }
  if (k == 0 || (one->status[0] & TB_SCENE_FAILMASK) || k <= p->k0 || k > p->k1) return;
  double half[3] = {0, 0, 0};
  if (p->box) memcpy(half, tb_varyOf(m, w->vary, TB_F_GEOM_SIZE, p->geom), sizeof(half));
  double gap, slip;
  tb_plateObserve(m, one, 0, p->plate, p->part, half, &gap, &slip);
  ps->sx += pos[0];
  ps->sy += pos[1];
  if (gap > TB_FIELD_GAP_TOL) {
    ps->nsep++;
    ps->run = 0;
  } else if (slip < TB_FIELD_STICK_SPEED) {
    // a run of one step is a slip reversal inside the step; two or more stick
    ps->run++;
    ps->nstick += ps->run == 2 ? 2 : ps->run > 2;
  } else {
    ps->run = 0;
  }
  if (k == p->k1) {
    tbFieldPoint* pt = &p->field[s];
    pt->vx = (pos[0] - ps->x0) / p->span;
    pt->vy = (pos[1] - ps->y0) / p->span;
  }
}

TB_HD void tb_probeFieldEnd(const tbProbe* p, const tbData* one, int s, const tbProbeState* ps) {
  tbFieldPoint* pt = &p->field[s];
  pt->status = one->status[0];
  if (one->status[0] & TB_SCENE_FAILMASK) {
    pt->mean_x = pt->mean_y = pt->vx = pt->vy = pt->speed = pt->stick = pt->separated = NAN;
    return;
  }
  double cnt = (double)(p->k1 - p->k0);
  pt->mean_x = ps->sx / cnt;
  pt->mean_y = ps->sy / cnt;
  pt->speed = sqrt(pt->vx * pt->vx + pt->vy * pt->vy);
  pt->stick = ps->nstick / cnt;
  pt->separated = ps->nsep / cnt;
}

// COST: step k's terms; a failed scene costs INFINITY
TB_HD void tb_probeCost(const tbProbe* p, const tbModel* m, const tbData* one, int s, int k,
                        tbProbeState* ps) {
  const double* pos = tb_probePartPos(m, one, 0, p->part);
  const double* want = p->want + 2 * (size_t)((p->scene0 + s) % p->nstart) * p->nwin;
  int j = ps->row;
  if (k > 0 && (one->status[0] & TB_SCENE_FAILMASK)) {
    ps->c = INFINITY;
    return;
  }
  if (k > 0 && j <= p->nwin && k == j * p->S) {
    double v[2], vs[2];
    v[0] = (pos[0] - ps->x0) / p->win;
    v[1] = (pos[1] - ps->y0) / p->win;
    tb_plateTargetVel(p->target, p->npoint, p->point, pos[0], pos[1], vs);
    ps->c += hypot(pos[0] - want[2 * (j - 1)], pos[1] - want[2 * (j - 1) + 1]) +
             hypot(v[0] - vs[0], v[1] - vs[1]);
    j = ++ps->row;
  }
  if (j <= p->nwin && k == j * p->S - p->W) {
    ps->x0 = pos[0];
    ps->y0 = pos[1];
  }
}

// the probe's values at the rollout's start (k = 0) and after each step k
TB_HD void tb_probeStep(const tbProbe* p, const tbModel* m, const tbData* one, int s, int k,
                        const tbWork* w, tbProbeState* ps) {
  switch (p->kind) {
    case TB_PROBE_OBS:
      tb_probeObs(p, m, one, s, k, ps);
      break;
    case TB_PROBE_FIELD:
      tb_probeField(p, m, one, s, k, w, ps);
      break;
    default:
      tb_probeCost(p, m, one, s, k, ps);
  }
}

TB_HD void tb_probeBegin(const tbProbe* p, tbProbeState* ps) {
  memset(ps, 0, sizeof(*ps));
  ps->row = p->kind == TB_PROBE_COST ? 1 : 0;  // COST counts windows from 1
}

TB_HD void tb_probeEnd(const tbProbe* p, const tbData* one, int s, const tbProbeState* ps) {
  if (p->kind == TB_PROBE_FIELD) tb_probeFieldEnd(p, one, s, ps);
  if (p->kind == TB_PROBE_COST) p->cost[s] = isfinite(ps->c) ? ps->c : INFINITY;
}

// bytes of the probe's output per scene, the output array and its replacement (the GPU path's
// chunks write into arrays of their own)
static inline size_t tb_probeSceneBytes(const tbProbe* p) {
  if (!p) return 0;
  if (p->kind == TB_PROBE_OBS) return sizeof(double) * (size_t)p->nrow * p->ncol;
  if (p->kind == TB_PROBE_FIELD) return sizeof(tbFieldPoint);
  return sizeof(double);
}

static inline char* tb_probeOut(const tbProbe* p) {
  if (p->kind == TB_PROBE_OBS) return (char*)p->obs;
  if (p->kind == TB_PROBE_FIELD) return (char*)p->field;
  return (char*)p->cost;
}

static inline void tb_setProbeOut(tbProbe* p, char* out) {
  if (p->kind == TB_PROBE_OBS) p->obs = (double*)out;
  if (p->kind == TB_PROBE_FIELD) p->field = (tbFieldPoint*)out;
  if (p->kind == TB_PROBE_COST) p->cost = (double*)out;
}

#endif  // TUMBLE_HOST_STAGE_PROBE_H_

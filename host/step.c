// One Stewart-Trinkle step of one scene, and the batch rollout over scenes.
//
// The step reads like the algorithm (thesis §2.4, §5.1.2):
//   kinematic bodies to t+h -> mass and free velocity -> contacts -> rows and Delassus problem
//   -> solve -> v+ = v_free + M^-1 J^T x -> q+ = q + h G(q) v+.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/tb_math.h>

#include "engine.h"

tbWork* tb_newWork(const tbModel* m) {
  tbWork* w = (tbWork*)calloc(1, sizeof(tbWork));
  if (!w) return NULL;
  size_t nb = (size_t)(m->nbody ? m->nbody : 1), nc = (size_t)(m->maxcon ? m->maxcon : 1);
  size_t nr = (size_t)(m->maxrow ? m->maxrow : 1);
  w->nbody = m->nbody;
  w->maxcon = m->maxcon;
  w->maxrow = m->maxrow;
  w->vary = (double*)malloc(sizeof(double) * (m->nvary + 1));
  w->xpos = (double*)malloc(sizeof(double) * nb * 3);
  w->xquat = (double*)malloc(sizeof(double) * nb * 4);
  w->xvel = (double*)malloc(sizeof(double) * nb * 6);
  w->minv = (double*)malloc(sizeof(double) * nb * 12);
  w->vfree = (double*)malloc(sizeof(double) * nb * 6);
  size_t ng = (size_t)(m->ngeom ? m->ngeom : 1);
  w->gpose = (tbGeomPose*)malloc(sizeof(tbGeomPose) * ng);
  w->greach = (double*)malloc(sizeof(double) * ng);
  w->con = (tbContactPoint*)malloc(sizeof(tbContactPoint) * nc);
  w->con_pair = (int*)malloc(sizeof(int) * nc);
  w->row = (tbRowJ*)malloc(sizeof(tbRowJ) * nr);
  w->row_MJ = (double*)malloc(sizeof(double) * nr * 12);
  w->row_key = (int*)malloc(sizeof(int) * nr);
  w->A = (double*)malloc(sizeof(double) * nr * nr);
  w->b = (double*)malloc(sizeof(double) * nr);
  w->lo = (double*)malloc(sizeof(double) * nr);
  w->hi = (double*)malloc(sizeof(double) * nr);
  w->x = (double*)malloc(sizeof(double) * nr);
  w->blk_type = (int*)malloc(sizeof(int) * nr);
  w->blk_adr = (int*)malloc(sizeof(int) * nr);
  w->blk_dim = (int*)malloc(sizeof(int) * nr);
  w->blk_mu = (double*)malloc(sizeof(double) * nr);
  w->blk_angle = (double*)malloc(sizeof(double) * nr);
  w->solver_work = tb_newSolverWork(m->opt.solver, (int)nr, (int)nc, m->opt.facets);
  if (!w->vary || !w->xpos || !w->xquat || !w->xvel || !w->minv || !w->vfree || !w->gpose ||
      !w->greach || !w->con || !w->con_pair || !w->row || !w->row_MJ || !w->row_key || !w->A ||
      !w->b || !w->lo || !w->hi || !w->x || !w->blk_type || !w->blk_adr || !w->blk_dim ||
      !w->blk_mu || !w->blk_angle || !w->solver_work) {
    tb_freeWork(w);
    return NULL;
  }
  return w;
}

void tb_freeWork(tbWork* w) {
  if (!w) return;
  free(w->vary);
  free(w->xpos);
  free(w->xquat);
  free(w->xvel);
  free(w->minv);
  free(w->vfree);
  free(w->gpose);
  free(w->greach);
  free(w->con);
  free(w->con_pair);
  free(w->row);
  free(w->row_MJ);
  free(w->row_key);
  free(w->A);
  free(w->b);
  free(w->lo);
  free(w->hi);
  free(w->x);
  free(w->blk_type);
  free(w->blk_adr);
  free(w->blk_dim);
  free(w->blk_mu);
  free(w->blk_angle);
  tb_freeSolverWork(w->solver_work);
  free(w);
}

// the pose the step's geometry uses: kinematic bodies advanced to t+h, the others at t
static void tb_workPose(const tbModel* m, const tbData* d, int s, double t, double h, tbWork* w) {
  size_t base = (size_t)s * m->nbody;
  memcpy(w->xpos, d->body_pos + base * 3, sizeof(double) * 3 * m->nbody);
  memcpy(w->xquat, d->body_quat + base * 4, sizeof(double) * 4 * m->nbody);
  memcpy(w->xvel, d->body_vel + base * 6, sizeof(double) * 6 * m->nbody);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] != TB_BODY_KINEMATIC) continue;
    tb_kinematicAdvance(m, w->vary, b, t, h, w->xpos + 3 * b, w->xquat + 4 * b, w->xvel + 6 * b);
  }
}

// warm start: the previous step's impulse of the row with the same key, else 0
static void tb_warmStart(const tbModel* m, const tbData* d, int s, tbWork* w) {
  const int* key = d->warm_key + (size_t)s * d->maxrow;
  const double* val = d->warm + (size_t)s * d->maxrow;
  int nw = d->nwarm[s], hint = 0;
  for (int i = 0; i < w->nrow; i++) {
    w->x[i] = 0.0;
    if (!m->opt.warmstart) continue;
    for (int probe = 0; probe < nw; probe++) {
      int j = (hint + probe) % nw;
      if (key[j] == w->row_key[i]) {
        w->x[i] = val[j];
        hint = j + 1;
        break;
      }
    }
  }
}

static void tb_saveWarm(tbData* d, int s, const tbWork* w) {
  memcpy(d->warm_key + (size_t)s * d->maxrow, w->row_key, sizeof(int) * w->nrow);
  memcpy(d->warm + (size_t)s * d->maxrow, w->x, sizeof(double) * w->nrow);
  d->nwarm[s] = w->nrow;
}

static void tb_fail(tbData* d, int s, int bit) {
  d->status[s] |= bit;
  d->fail_step[s] = (int)d->nstep[s];
}

// q+ = q + h G(q) v+ (v+ in w->vfree) for dynamic bodies; kinematic bodies take their pose at
// t+h
static int tb_integrate(const tbModel* m, tbData* d, int s, const tbWork* w, double h) {
  size_t base = (size_t)s * m->nbody;
  int finite = 1;
  for (int b = 0; b < m->nbody; b++) {
    double* pos = d->body_pos + (base + b) * 3;
    double* quat = d->body_quat + (base + b) * 4;
    double* vel = d->body_vel + (base + b) * 6;
    if (m->body_type[b] == TB_BODY_KINEMATIC) {
      memcpy(pos, w->xpos + 3 * b, sizeof(double) * 3);
      memcpy(quat, w->xquat + 4 * b, sizeof(double) * 4);
      memcpy(vel, w->xvel + 6 * b, sizeof(double) * 6);
    } else if (m->body_type[b] == TB_BODY_DYNAMIC) {
      memcpy(vel, w->vfree + 6 * b, sizeof(double) * 6);
      for (int k = 0; k < 3; k++) pos[k] += h * vel[k];
      tbu_quatIntegrate(quat, vel + 3, h);
      for (int k = 0; k < 6; k++) finite &= isfinite(vel[k]);
      for (int k = 0; k < 3; k++) finite &= isfinite(pos[k]);
    }
  }
  return finite;
}

void tb_stepScene(const tbModel* m, tbData* d, int s, tbWork* w) {
  if (d->status[s] & TB_SCENE_FAILMASK) return;
  tb_sceneVary(m, d, s, w->vary);
  double h = w->vary[tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_DT)], t = d->time[s];
  tb_workPose(m, d, s, t, h, w);
  tb_massInverse(m, w);
  tb_freeVelocity(m, d, s, w);
  if (tb_collide(m, w) < 0) {
    tb_fail(d, s, TB_SCENE_OVERFLOW_FAIL);
    return;
  }
  tb_makeRows(m, d, s, w);
  tb_assemble(m, w);
  tb_warmStart(m, d, s, w);

  tbProblem p = tb_problemOf(m, w);
  tbSolverOpt so = tb_defaultSolverOpt();
  so.max_iter = m->opt.max_iter;
  so.tol = m->opt.tol;
  so.sor = m->opt.sor;
  tbSolveResult res;
  if (tb_solve(m->opt.solver, &p, &so, w->x, w->solver_work, &res) != TB_OK) {
    tb_fail(d, s, TB_SCENE_SOLVER_FAIL);
    return;
  }
  tb_saveWarm(d, s, w);

  tb_applyImpulse(m, w);
  int finite = tb_integrate(m, d, s, w, h) && res.reason != TB_STOP_NONFINITE;
  // fail_step is the index of the step that failed, here as for an overflow
  if (!finite) tb_fail(d, s, TB_SCENE_NAN_FAIL);
  d->time[s] = t + h;
  d->nstep[s]++;
  d->ncon[s] = w->ncon;
  d->iter_last[s] = res.iterations;
  d->iter_sum[s] += res.iterations;
  d->iter_max[s] = res.iterations > d->iter_max[s] ? res.iterations : d->iter_max[s];
  d->resid_last[s] = res.residual;
  if (res.residual > d->resid_max[s]) d->resid_max[s] = res.residual;
  if (!res.converged) d->status[s] |= TB_SCENE_UNCONVERGED;
}

//---- rollout -----------------------------------------------------------------------------------

int tb_recordCount(int nstep, int every) {
  if (every <= 0 || every > nstep) return nstep > 0 ? 2 : 1;
  return 1 + nstep / every + (nstep % every ? 1 : 0);
}

static void tb_record(const tbModel* m, const tbData* d, int s, int r, tbRecord* rec) {
  size_t slot = (size_t)s * rec->nrecord + r;
  rec->time[slot] = d->time[s];
  double* out = rec->state + slot * m->nbody * 13;
  size_t base = (size_t)s * m->nbody;
  for (int b = 0; b < m->nbody; b++) {
    memcpy(out + 13 * b, d->body_pos + (base + b) * 3, sizeof(double) * 3);
    memcpy(out + 13 * b + 3, d->body_quat + (base + b) * 4, sizeof(double) * 4);
    memcpy(out + 13 * b + 7, d->body_vel + (base + b) * 6, sizeof(double) * 6);
  }
}

static int tb_isRecordStep(int k, int nstep, int every) {
  return k == 0 || k == nstep || (every > 0 && k % every == 0);
}

int tb_rollout(const tbModel* m, tbData* d, int s0, int s1, int nstep, tbRecord* rec) {
  int rc = TB_OK;
  if (rec) {
    for (int k = 0, r = 0; k <= nstep; k++) {
      if (tb_isRecordStep(k, nstep, rec->every)) rec->step[r++] = k;
    }
  }
#pragma omp parallel
  {
    tbWork* w = tb_newWork(m);
    if (!w) {
#pragma omp atomic write
      rc = TB_ERR_MEMORY;
    }
    // scenes differ in cost (contacts come and go), hence dynamic scheduling; the result of a
    // scene does not depend on which thread runs it
#pragma omp for schedule(dynamic, 8)
    for (int s = s0; s < s1; s++) {
      if (!w) continue;
      int r = 0;
      if (rec) tb_record(m, d, s, r++, rec);
      for (int k = 1; k <= nstep; k++) {
        tb_stepScene(m, d, s, w);
        if (rec && tb_isRecordStep(k, nstep, rec->every)) tb_record(m, d, s, r++, rec);
      }
    }
    tb_freeWork(w);
  }
  if (rc != TB_OK) tb_setError("rollout: out of memory for solver scratch");
  return rc;
}

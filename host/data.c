// Per-scene data: allocation, the parameter table, and the initial state.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/tb_math.h>

#include "engine.h"

tbData* tb_newData(const tbModel* m, int nscene) {
  tb_clearError();
  if (!m->compiled) {
    tb_setError("model: not compiled");
    return NULL;
  }
  if (nscene < 1) {
    tb_setError("scenes %d must be >= 1", nscene);
    return NULL;
  }
  tbData* d = (tbData*)calloc(1, sizeof(tbData));
  if (!d) return NULL;
  size_t n = (size_t)nscene, nb = (size_t)m->nbody, np = (size_t)(m->nparam ? m->nparam : 1);
  size_t nr = (size_t)(m->maxrow ? m->maxrow : 1);
  d->nscene = nscene;
  d->nbody = m->nbody;
  d->nparam = m->nparam;
  d->maxrow = m->maxrow;
  d->param = (double*)calloc(n * np, sizeof(double));
  d->time = (double*)calloc(n, sizeof(double));
  d->nstep = (int64_t*)calloc(n, sizeof(int64_t));
  d->body_pos = (double*)calloc(n * nb * 3 + 1, sizeof(double));
  d->body_quat = (double*)calloc(n * nb * 4 + 1, sizeof(double));
  d->body_vel = (double*)calloc(n * nb * 6 + 1, sizeof(double));
  d->warm = (double*)calloc(n * nr, sizeof(double));
  d->warm_key = (int*)calloc(n * nr, sizeof(int));
  d->nwarm = (int*)calloc(n, sizeof(int));
  d->status = (int*)calloc(n, sizeof(int));
  d->ncon = (int*)calloc(n, sizeof(int));
  d->iter_last = (int*)calloc(n, sizeof(int));
  d->iter_max = (int*)calloc(n, sizeof(int));
  d->iter_sum = (int64_t*)calloc(n, sizeof(int64_t));
  d->resid_last = (double*)calloc(n, sizeof(double));
  d->resid_max = (double*)calloc(n, sizeof(double));
  d->fail_step = (int*)calloc(n, sizeof(int));
  if (!d->param || !d->time || !d->nstep || !d->body_pos || !d->body_quat || !d->body_vel ||
      !d->warm || !d->warm_key || !d->nwarm || !d->status || !d->ncon || !d->iter_last ||
      !d->iter_max || !d->iter_sum || !d->resid_last || !d->resid_max || !d->fail_step) {
    tb_freeData(d);
    tb_setError("scenes %d: out of memory", nscene);
    return NULL;
  }
  tb_defaultParams(m, d);
  if (tb_resetData(m, d) != TB_OK) {
    tb_freeData(d);
    return NULL;
  }
  return d;
}

void tb_freeData(tbData* d) {
  if (!d) return;
  free(d->param);
  free(d->time);
  free(d->nstep);
  free(d->body_pos);
  free(d->body_quat);
  free(d->body_vel);
  free(d->warm);
  free(d->warm_key);
  free(d->nwarm);
  free(d->status);
  free(d->ncon);
  free(d->iter_last);
  free(d->iter_max);
  free(d->iter_sum);
  free(d->resid_last);
  free(d->resid_max);
  free(d->fail_step);
  free(d);
}

void tb_defaultParams(const tbModel* m, tbData* d) {
  for (int s = 0; s < d->nscene; s++) {
    for (int p = 0; p < m->nparam; p++) d->param[(size_t)s * m->nparam + p] = m->param[p].value;
  }
}

// the support tripods of every scene (points and loads come from its parameters)
static int tb_checkSceneSupports(const tbModel* m, const tbData* d) {
  double* vary = malloc(sizeof(double) * m->nvary);
  if (!vary) return TB_ERR_MEMORY;
  int rc = TB_OK;
  for (int s = 0; s < d->nscene && rc == TB_OK; s++) {
    tb_sceneVary(m, d, s, vary);
    rc = tb_checkSupports(m, vary);
    if (rc != TB_OK) {
      char msg[256];
      snprintf(msg, sizeof(msg), "%s", tb_lastError());
      tb_setError("scene %d: %s", s, msg);
    }
  }
  free(vary);
  return rc;
}

int tb_checkParams(const tbModel* m, const tbData* d) {
  tb_clearError();
  for (int s = 0; s < d->nscene; s++) {
    for (int p = 0; p < m->nparam; p++) {
      const tbParam* prm = &m->param[p];
      double v = d->param[(size_t)s * m->nparam + p];
      int below = prm->lo_open ? !(v > prm->lo) : !(v >= prm->lo);
      if (!isfinite(v) || below || !(v <= prm->hi)) {
        return tb_setError("param '%s' = %g (scene %d): must be finite and in %s%g, %g]", prm->name,
                           v, s, prm->lo_open ? "(" : "[", prm->lo, prm->hi);
      }
    }
  }
  return m->nsupport ? tb_checkSceneSupports(m, d) : TB_OK;
}

void tb_sceneVary(const tbModel* m, const tbData* d, int s, double* out) {
  memcpy(out, m->vary0, sizeof(double) * m->nvary);
  const double* row = d->param + (size_t)s * m->nparam;
  for (int p = 0; p < m->nparam; p++) {
    const tbParam* prm = &m->param[p];
    for (int t = 0; t < prm->ntarget; t++) out[prm->target[t]] = prm->scale[t] * row[p];
  }
}

// zero the velocity components of locked DoFs: a lock means the DoF never moves
static void tb_clearLocked(int lock, double vel[6]) {
  for (int k = 0; k < 6; k++) {
    if (lock & (1 << k)) vel[k] = 0.0;
  }
}

static void tb_resetScene(const tbModel* m, tbData* d, int s, double* vary) {
  tb_sceneVary(m, d, s, vary);
  for (int b = 0; b < m->nbody; b++) {
    double* pos = d->body_pos + ((size_t)s * m->nbody + b) * 3;
    double* quat = d->body_quat + ((size_t)s * m->nbody + b) * 4;
    double* vel = d->body_vel + ((size_t)s * m->nbody + b) * 6;
    if (m->body_type[b] == TB_BODY_KINEMATIC) {
      tb_kinematicInit(m, vary, b, pos, quat, vel);
      continue;
    }
    memcpy(pos, vary + tb_varyIndex(m, TB_F_BODY_POS, b, 0), sizeof(double) * 3);
    memcpy(quat, vary + tb_varyIndex(m, TB_F_BODY_QUAT, b, 0), sizeof(double) * 4);
    tbu_quatNormalize(quat);
    if (m->body_type[b] == TB_BODY_DYNAMIC) {
      memcpy(vel, vary + tb_varyIndex(m, TB_F_BODY_VEL, b, 0), sizeof(double) * 6);
      tb_clearLocked(m->body_lock[b], vel);
    } else {
      memset(vel, 0, sizeof(double) * 6);
    }
  }
  d->time[s] = 0.0;
  d->nstep[s] = 0;
  d->nwarm[s] = 0;
  d->status[s] = 0;
  d->ncon[s] = 0;
  d->iter_last[s] = d->iter_max[s] = 0;
  d->iter_sum[s] = 0;
  d->resid_last[s] = d->resid_max[s] = 0.0;
  d->fail_step[s] = -1;
}

int tb_resetData(const tbModel* m, tbData* d) {
  // a tripod's loads come from the scene's parameters: refuse scenes whose tripod cannot carry it
  int rc = m->nsupport ? tb_checkSceneSupports(m, d) : TB_OK;
  if (rc != TB_OK) return rc;
    // the plate driver integrates one period per scene to find its initial orientation
#pragma omp parallel
  {
    double* vary = (double*)malloc(sizeof(double) * (m->nvary + 1));
    if (!vary) {
#pragma omp atomic write
      rc = TB_ERR_MEMORY;
    }
#pragma omp for schedule(static)
    for (int s = 0; s < d->nscene; s++) {
      if (vary) tb_resetScene(m, d, s, vary);
    }
    free(vary);
  }
  if (rc != TB_OK) tb_setError("reset: out of memory");
  return rc;
}

void tb_copyScene(const tbModel* m, const tbData* a, int s, tbData* b, int t) {
  size_t nb = (size_t)m->nbody, np = (size_t)m->nparam, nr = (size_t)a->maxrow;
  memcpy(b->param + t * np, a->param + s * np, sizeof(double) * np);
  memcpy(b->body_pos + t * nb * 3, a->body_pos + s * nb * 3, sizeof(double) * nb * 3);
  memcpy(b->body_quat + t * nb * 4, a->body_quat + s * nb * 4, sizeof(double) * nb * 4);
  memcpy(b->body_vel + t * nb * 6, a->body_vel + s * nb * 6, sizeof(double) * nb * 6);
  memcpy(b->warm + t * nr, a->warm + s * nr, sizeof(double) * nr);
  memcpy(b->warm_key + t * nr, a->warm_key + s * nr, sizeof(int) * nr);
  b->time[t] = a->time[s];
  b->nstep[t] = a->nstep[s];
  b->nwarm[t] = a->nwarm[s];
  b->status[t] = a->status[s];
  b->ncon[t] = a->ncon[s];
  b->iter_last[t] = a->iter_last[s];
  b->iter_max[t] = a->iter_max[s];
  b->iter_sum[t] = a->iter_sum[s];
  b->resid_last[t] = a->resid_last[s];
  b->resid_max[t] = a->resid_max[s];
  b->fail_step[t] = a->fail_step[s];
}

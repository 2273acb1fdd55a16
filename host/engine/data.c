// Per-scene data: allocation, the parameter table, and the initial state.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "math/tb_math.h"

#include "engine/engine.h"
#include "engine/stage_step.h"

double tb_machineBytes(void) {
  return (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
}

// the settings new batches take; the rollout layer's setters (tb_setDevice, tb_setPrecision,
// tb_setShare) check and change them
static tbRunSettings tb_runDefaults = {TB_DEVICE_CPU, TB_FP64, NULL};

tbRunSettings tb_defaultRunSettings(void) {
  return tb_runDefaults;
}

void tb_setRunDefaults(const tbRunSettings* r) {
  tb_runDefaults = *r;
}

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
  // a batch larger than the machine's memory is refused whole: the system would grant it and
  // end the process when the pages are touched
  double bytes = (double)nscene * (double)tb_sceneWords(m) * 8.0, have = tb_machineBytes();
  if (have > 0 && bytes > have) {
    tb_setError("scenes %d: %.3g GB of state, more than this machine's %.3g GB of memory", nscene,
                bytes / 1e9, have / 1e9);
    return NULL;
  }
  tbData* d = (tbData*)calloc(1, sizeof(tbData));
  if (!d) return NULL;
  d->nscene = nscene;
  d->nbody = m->nbody;
  d->nparam = m->nparam;
  d->maxrow = m->maxrow;
  d->nq = m->nq;
  d->nqd = m->nqd;
  d->run = tb_defaultRunSettings();
  int ok = 1;
  // one element more than the batch needs: arrays of zero-width fields are still allocated
#define TB_X(type, name, count)                                                \
  d->name = (type*)calloc((size_t)nscene * (size_t)(count) + 1, sizeof(type)); \
  ok &= d->name != NULL;
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  if (!ok) {
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

tbData* tb_newDataOn(const tbModel* m, int nscene, int device, int precision) {
  tbData* d = tb_newData(m, nscene);
  if (d) {
    d->run.device = device;
    d->run.precision = precision;
  }
  return d;
}

void tb_freeData(tbData* d) {
  if (!d) return;
#define TB_X(type, name, count) free(d->name);
  TB_DATA_ARRAYS(TB_X)
#undef TB_X
  tb_freeScratch(d->scratch);
  free(d);
}

void tb_defaultParams(const tbModel* m, tbData* d) {
  for (int s = 0; s < d->nscene; s++) {
    for (int p = 0; p < m->nparam; p++) d->param[(size_t)s * m->nparam + p] = m->param[p].value;
  }
}

// the time step (tb_minStep), support tripods (points and loads come from the parameters),
// joint limits and, in a quasistatic or implicit model, restitution of every scene
static int tb_checkSceneValues(const tbModel* m, const tbData* d) {
  double* vary = malloc(sizeof(double) * m->nvary);
  if (!vary) return TB_ERR_MEMORY;
  int rc = TB_OK;
  for (int s = 0; s < d->nscene && rc == TB_OK; s++) {
    tb_sceneVary(m, d, s, vary);
    rc = tb_checkStepLength(m, vary);
    if (rc == TB_OK) rc = tb_checkSupports(m, vary);
    if (rc == TB_OK) rc = tb_checkSceneJointLimits(m, vary);
    if (rc == TB_OK) rc = tb_checkStepValues(m, vary);
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
  return tb_checkSceneValues(m, d);
}

double tb_minStep(const tbModel* m, const tbData* d, int scene) {
  if (!d) return tb_minStepOf(m, m->vary0);
  double* vary = malloc(sizeof(double) * m->nvary);
  if (!vary) return NAN;
  tb_sceneVary(m, d, scene, vary);
  double h = tb_minStepOf(m, vary);
  free(vary);
  return h;
}

void tb_sceneVary(const tbModel* m, const tbData* d, int s, double* out) {
  tb_varyScene(m, d->param + (size_t)s * m->nparam, out);
}

// zero the velocity components of locked DoFs: a lock means the DoF never moves
static void tb_clearLocked(int lock, double vel[6]) {
  for (int k = 0; k < 6; k++) {
    if (lock & (1 << k)) vel[k] = 0.0;
  }
}

// a minimal spherical joint's start: body_a's orientation and angular velocity parameters
// relative to body_b's (the world's for -1 and static bodies' rate), as the quaternion from the
// model's initial relative orientation and the rate in body_a's frame
static void tb_ballStart(const tbModel* m, const double* vary, int j, double q[4], double qd[3]) {
  int a = m->jnt_body[2 * j], p = m->jnt_body[2 * j + 1];
  const double* wa = vary + tb_varyIndex(m, TB_F_BODY_VEL, a, 3);
  double qa[4], qp[4], w[3] = {0.0, 0.0, 0.0};
  memcpy(qa, vary + tb_varyIndex(m, TB_F_BODY_QUAT, a, 0), sizeof(qa));
  tbu_quatNormalize(qa);
  if (p >= 0) {
    memcpy(qp, vary + tb_varyIndex(m, TB_F_BODY_QUAT, p, 0), sizeof(qp));
    tbu_quatNormalize(qp);
  }
  if (p >= 0 && m->body_type[p] == TB_BODY_DYNAMIC) {
    tbu_copy3(w, vary + tb_varyIndex(m, TB_F_BODY_VEL, p, 3));
  }
  tb_ballCoordinate(m, j, p >= 0 ? qp : NULL, qa, q);
  tbu_sub3(w, wa, w);
  tbu_rotVecInv(qd, qa, w);
}

// words of scratch tb_treeStart takes after the vary vector
static size_t tb_treeScratch(const tbModel* m) {
  return (size_t)m->ndof * 7 + (size_t)m->nbody * 6;
}

// the minimal joints' start (q0, qd0; a spherical one's from its bodies) and the tree bodies'
// pose and twist that follow from it; scratch holds tb_treeScratch(m) words
static void tb_treeStart(const tbModel* m, tbData* d, int s, const double* vary, double* scratch) {
  double* q = d->jnt_q + (size_t)s * m->nq;
  double* qd = d->jnt_qd + (size_t)s * m->nqd;
  for (int j = 0; j < m->njnt; j++) {
    int a = m->jnt_qadr[j], ad = m->jnt_qdadr[j];
    if (a < 0) continue;
    if (m->jnt_type[j] == TB_JOINT_SPHERICAL) {
      tb_ballStart(m, vary, j, q + a, qd + ad);
      continue;
    }
    const double* prm = tb_varyOf(m, vary, TB_F_JOINT, j);
    q[a] = prm[TB_JNT_Q0];
    qd[ad] = prm[TB_JNT_QD0];
  }
  tb_treePose(m, vary, q, d->body_pos + (size_t)s * m->nbody * 3,
              d->body_quat + (size_t)s * m->nbody * 4);
  double* S = scratch;
  double* nu = S + (size_t)m->ndof * 6;
  tb_treeTwists(m, vary, d, s, S, nu, nu + m->ndof);
}

static void tb_resetScene(const tbModel* m, tbData* d, int s, double* vary, tbPlateMemo* memo) {
  tb_sceneVary(m, d, s, vary);
  for (int b = 0; b < m->nbody; b++) {
    double* pos = d->body_pos + ((size_t)s * m->nbody + b) * 3;
    double* quat = d->body_quat + ((size_t)s * m->nbody + b) * 4;
    double* vel = d->body_vel + ((size_t)s * m->nbody + b) * 6;
    if (m->body_type[b] == TB_BODY_KINEMATIC) {
      tb_kinematicInit(m, vary, b, memo, pos, quat, vel);
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
  if (m->nq > 0) tb_treeStart(m, d, s, vary, vary + m->nvary + 1);
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
  // a tripod's loads and the joint limits come from the scene's parameters: refuse scenes whose
  // tripod cannot carry it or whose limits are impossible
  int rc = tb_checkSceneValues(m, d);
  if (rc != TB_OK) return rc;
    // the plate driver integrates one period to find its initial orientation: once per thread
    // and plate motion, not once per scene
#pragma omp parallel
  {
    tbPlateMemo memo = {0};
    double* vary = (double*)malloc(sizeof(double) * (m->nvary + 1 + tb_treeScratch(m)));
    if (!vary) {
#pragma omp atomic write
      rc = TB_ERR_MEMORY;
    }
#pragma omp for schedule(static)
    for (int s = 0; s < d->nscene; s++) {
      if (vary) tb_resetScene(m, d, s, vary, &memo);
    }
    free(vary);
  }
  if (rc != TB_OK) tb_setError("reset: out of memory");
  return rc;
}

void tb_copyScene(const tbModel* m, const tbData* a, int s, tbData* b, int t) {
  (void)m;
  tb_sceneCopy(a, s, b, t);
}

int64_t tb_lastGoodStep(const tbData* d, int s) {
  // fail_step is the 0-based index of the step that failed: the state before it is its count
  return d->fail_step[s] >= 0 ? d->fail_step[s] : d->nstep[s];
}

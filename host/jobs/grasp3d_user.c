// The grasp study's trials on the user's own gripper and part (tbGrasp3dDef.gripper; the model:
// host/io/grasp3d_user.c): a trial's parameters, and the rollout in pieces that takes the part's
// place in the gripper once the lift is held and after each push.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp3d.h>

#include "math/tb_math.h"

#include "util/error.h"

void tb_grasp3dUserParams(const tbModel* m, const tbGrasp3dInfo* info, const tbGrasp3dDef* d,
                          int cell, int trial, double* row) {
  for (int p = 0; p < m->nparam; p++) row[p] = m->param[p].value;
  tbGrasp3dDraw w = tb_grasp3dDraw(d, cell, trial);
  double qy[4] = {cos(0.5 * w.yaw), 0, 0, sin(0.5 * w.yaw)}, q[4];
  tbu_quatMul(q, qy, info->q0);
  row[info->p_x] = w.x;
  row[info->p_y] = w.y;
  row[info->p_qw] = q[0];
  row[info->p_qx] = q[1];
  row[info->p_qy] = q[2];
  row[info->p_qz] = q[3];
  row[info->p_mu] = w.mu;
  if (d->mass_lo > 0.0) row[info->p_mass] = w.mass;  // else the file's
}

// the part's centre in the gripper's top-body frame, scene s
static void tb_partInGripper(const tbModel* m, const tbGrasp3dInfo* info, const tbData* d, int s,
                             double out[3]) {
  const double* pos = d->body_pos + (size_t)s * m->nbody * 3;
  const double* rq = d->body_quat + ((size_t)s * m->nbody + info->root) * 4;
  double r[3];
  tbu_sub3(r, pos + 3 * info->object, pos + 3 * info->root);
  tbu_rotVecInv(out, rq, r);
}

// the part's displacement from where it starts, scene s
static double tb_partMoved(const tbModel* m, const tbGrasp3dInfo* info, const tbData* d, int s) {
  const double* po = d->body_pos + ((size_t)s * m->nbody + info->object) * 3;
  const double* p0 = d->param + (size_t)s * m->nparam;
  double e[3] = {po[0] - p0[info->p_x], po[1] - p0[info->p_y], po[2] - info->z_rest};
  return tbu_norm3(e);
}

// a trial no longer held is decided: its scene is held from here as a scene at rest is, costing
// no more steps (on a 21 x 21 map of the example, half its trials miss, strike or drop the part
// before the pushes, which are half a trial's steps)
static void tb_decided(tbData* d, int s, unsigned char outcome) {
  if (!(outcome & TB_G3_HELD)) d->status[s] |= TB_SCENE_RESTED;
}

int tb_grasp3dUserRollout(const tbModel* m, const tbGrasp3dInfo* info, tbData* d, int n,
                          const tbGrasp3dDef* def, unsigned char* outcome) {
  int rc = tb_rollout(m, d, 0, n, (int)info->step_close, NULL);
  if (rc != TB_OK) return rc;
  for (int i = 0; i < n; i++) {
    outcome[i] = tb_partMoved(m, info, d, i) > def->slip ? TB_G3_STRUCK : TB_G3_HELD;
    tb_decided(d, i, outcome[i]);
  }
  rc = tb_rollout(m, d, 0, n, (int)(info->step_held - info->step_close), NULL);
  double* ref = (double*)malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
  if (rc == TB_OK && !ref) rc = tb_setError("grasp3d: out of memory");
  for (int i = 0; i < n && rc == TB_OK; i++) {
    const double* po = d->body_pos + ((size_t)i * m->nbody + info->object) * 3;
    if (!(po[2] - info->z_rest > 0.5 * def->lift)) outcome[i] &= ~TB_G3_HELD;
    tb_decided(d, i, outcome[i]);
    tb_partInGripper(m, info, d, i, ref + 3 * i);
  }
  long at = info->step_held;
  for (int k = 0; k < 6 && rc == TB_OK; k++) {
    rc = tb_rollout(m, d, 0, n, (int)(info->step_push[k] - at), NULL);
    at = info->step_push[k];
    for (int i = 0; i < n && rc == TB_OK; i++) {
      double x[3], e[3];
      tb_partInGripper(m, info, d, i, x);
      tbu_sub3(e, x, ref + 3 * i);
      if (!(tbu_norm3(e) <= def->slip)) outcome[i] &= ~TB_G3_HELD;
      tb_decided(d, i, outcome[i]);
    }
  }
  free(ref);
  return rc;
}

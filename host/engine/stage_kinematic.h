// Stage: kinematic bodies, their poses prescribed by drivers, advanced from t to t + h each step.
#ifndef TUMBLE_HOST_STAGE_KINEMATIC_H_
#define TUMBLE_HOST_STAGE_KINEMATIC_H_

#include <string.h>

#include "math/driver_geom.h"

#include "engine/engine.h"

TB_HD const double* tb_driverPrm(const tbModel* m, const double* vary, int k) {
  return tb_varyOf(m, vary, TB_F_DRIVER, k);
}

// the plate's translation, and on top its drift: the constant linear velocity of TB_DRV_VEL (a
// fence sweeping along itself, thesis §3.4.6; 0 for a vibrating plate)
TB_HD void tb_plateLinearState(const double* prm, const double p0[3], double t, double pos[3],
                               double vel[3]) {
  tbu_plateLinear(prm + TB_DRV_AMP, prm + TB_DRV_PHASE, prm[TB_DRV_OMEGA], t, p0, pos, vel);
  for (int i = 0; i < 3; i++) {
    double drift = prm[TB_DRV_VEL + i];
    if (drift == 0.0) continue;
    pos[i] += drift * t;
    vel[i] += drift;
  }
}

// the plate's oscillation at t: translation and drift, angular velocity
TB_HD void tb_plateState(const double* prm, const double p0[3], double t, double pos[3],
                         double vel[6]) {
  tb_plateLinearState(prm, p0, t, pos, vel);
  tbu_plateAngVel(prm + TB_DRV_AMP + 3, prm + TB_DRV_PHASE + 3, prm[TB_DRV_OMEGA], t, vel + 3);
}

// the last plate motion whose initial orientation was worked out, and that orientation: the
// scenes of a batch mostly share their plate's motion, and each orientation integrates a period
typedef struct tbPlateMemo {
  int valid;
  double key[7];  // angular amplitudes, phases, omega
  double qoff[4];
} tbPlateMemo;

// the plate's initial orientation offset (tbu_plateQuat0), from memo when it holds this motion
// (bitwise), else worked out and kept there (memo may be NULL)
TB_HD void tb_plateOffset(const double* prm, tbPlateMemo* memo, double qoff[4]) {
  double key[7];
  memcpy(key, prm + TB_DRV_AMP + 3, sizeof(double) * 3);
  memcpy(key + 3, prm + TB_DRV_PHASE + 3, sizeof(double) * 3);
  key[6] = prm[TB_DRV_OMEGA];
  if (memo && memo->valid && !memcmp(memo->key, key, sizeof(key))) {
    memcpy(qoff, memo->qoff, sizeof(double) * 4);
    return;
  }
  tbu_plateQuat0(qoff, key, key + 3, key[6]);
  if (!memo) return;
  memo->valid = 1;
  memcpy(memo->key, key, sizeof(key));
  memcpy(memo->qoff, qoff, sizeof(double) * 4);
}

TB_HD void tb_kinematicInit(const tbModel* m, const double* vary, int b, tbPlateMemo* memo,
                            double pos[3], double quat[4], double vel[6]) {
  int k = m->body_driver[b];
  const double* prm = tb_driverPrm(m, vary, k);
  const double* p0 = tb_varyOf(m, vary, TB_F_BODY_POS, b);
  double q0[4];
  memcpy(q0, tb_varyOf(m, vary, TB_F_BODY_QUAT, b), sizeof(q0));
  tbu_quatNormalize(q0);
  switch (m->drv_type[k]) {
    case TB_DRIVER_PLATE: {
      double qoff[4];
      tb_plateOffset(prm, memo, qoff);
      tbu_quatMul(quat, qoff, q0);
      tb_plateState(prm, p0, 0.0, pos, vel);
      break;
    }
    case TB_DRIVER_ROCKING:
      tbu_rockingPose(prm[TB_DRV_AMP + TB_DRV_ROCK_ALPHA], prm[TB_DRV_AMP + TB_DRV_ROCK_T],
                      prm[TB_DRV_AMP + TB_DRV_ROCK_D], 0.0, p0, q0, pos, quat, vel);
      break;
    case TB_DRIVER_CONSTVEL:
      memcpy(pos, p0, sizeof(double) * 3);
      memcpy(quat, q0, sizeof(double) * 4);
      memcpy(vel, prm + TB_DRV_VEL, sizeof(double) * 6);
      break;
    default:
      tbu_keyframePose(m->drv_key + k * TB_MAXKEY * 8, m->drv_nkey[k], 0.0, pos, quat, vel);
      break;
  }
}

// kinematic body b's pose and velocity from t to t + h (vel holds its velocity at t on entry)
TB_HD void tb_kinematicAdvance(const tbModel* m, const double* vary, int b, double t, double h,
                               double pos[3], double quat[4], double vel[6]) {
  int k = m->body_driver[b];
  const double* prm = tb_driverPrm(m, vary, k);
  const double* p0 = tb_varyOf(m, vary, TB_F_BODY_POS, b);
  switch (m->drv_type[k]) {
    case TB_DRIVER_PLATE:
      // the angular velocity at t is the one the last step (or the reset) left in vel: bitwise
      // what it evaluates to again, since t is the running sum of the steps' h, as t + h here
      tbu_plateQuatStep(quat, vel + 3, prm + TB_DRV_AMP + 3, prm + TB_DRV_PHASE + 3,
                        prm[TB_DRV_OMEGA], t, h, vel + 3);
      tb_plateLinearState(prm, p0, t + h, pos, vel);
      break;
    case TB_DRIVER_ROCKING: {
      double q0[4];
      memcpy(q0, tb_varyOf(m, vary, TB_F_BODY_QUAT, b), sizeof(q0));
      tbu_quatNormalize(q0);
      tbu_rockingPose(prm[TB_DRV_AMP + TB_DRV_ROCK_ALPHA], prm[TB_DRV_AMP + TB_DRV_ROCK_T],
                      prm[TB_DRV_AMP + TB_DRV_ROCK_D], t + h, p0, q0, pos, quat, vel);
      break;
    }
    case TB_DRIVER_CONSTVEL:
      // position in closed form so that it does not accumulate round-off
      for (int i = 0; i < 3; i++) pos[i] = p0[i] + prm[TB_DRV_VEL + i] * (t + h);
      tbu_quatIntegrate(quat, prm + TB_DRV_VEL + 3, h);
      memcpy(vel, prm + TB_DRV_VEL, sizeof(double) * 6);
      break;
    default:
      tbu_keyframePose(m->drv_key + k * TB_MAXKEY * 8, m->drv_nkey[k], t + h, pos, quat, vel);
      break;
  }
}

#endif  // TUMBLE_HOST_STAGE_KINEMATIC_H_

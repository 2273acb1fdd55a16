// Poses of kinematic bodies as prescribed functions of time, shared by host and kernels.
//
// Vibrating plate (thesis §5.3, Vose et al.): accelerations A_i sin(w t + C_i), translational
// (i = 1..3) then angular (i = 4..6), world frame. Integrated with zero-mean velocity and
// position:  v_i = -A_i/w cos(w t + C_i),  p_i = p0_i - A_i/w^2 sin(w t + C_i),
//            w_i = -A_{i+3}/w cos(w t + C_{i+3}).
// The orientation solves qdot = 1/2 (0, w(t)) (x) q (thesis Eq. 2.15) by RK4 with one stage set
// per step. Its initial value makes each rotation angle symmetric about zero: integrate one
// period from the identity, convert to Euler angles, offset each by minus the midpoint of its
// range, and start from the quaternion of the offsets (thesis §5.3, Figs. 5.13-5.14).
#ifndef TUMBLE_DRIVER_GEOM_H_
#define TUMBLE_DRIVER_GEOM_H_

#include "math/tb_math.h"

// plate translation and its velocity at time t; p0 is the mean position
TB_HD void tbu_plateLinear(const double amp[3], const double phase[3], double w, double t,
                           const double p0[3], double pos[3], double vel[3]) {
  for (int i = 0; i < 3; i++) {
    // an axis at rest costs no sine (most motions move 2 or 3 of the 6)
    if (amp[i] == 0.0) {
      pos[i] = p0[i];
      vel[i] = 0.0;
      continue;
    }
    double a = w * t + phase[i];
    pos[i] = p0[i] - amp[i] / (w * w) * sin(a);
    vel[i] = -amp[i] / w * cos(a);
  }
}

// plate angular velocity (world frame) at time t from the angular amplitudes and phases
TB_HD void tbu_plateAngVel(const double amp[3], const double phase[3], double w, double t,
                           double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = amp[i] == 0.0 ? 0.0 : -amp[i] / w * cos(w * t + phase[i]);
}

// one RK4 step of the plate quaternion from t to t + h, w0 the angular velocity at t; the one at
// t + h into w1 (which may be w0)
TB_HD void tbu_plateQuatStep(double q[4], const double w0[3], const double amp[3],
                             const double phase[3], double w, double t, double h, double w1[3]) {
  double wm[3], k1[4], k2[4], k3[4], k4[4], y[4];
  tbu_quatDeriv(k1, q, w0);
  tbu_plateAngVel(amp, phase, w, t + 0.5 * h, wm);
  tbu_plateAngVel(amp, phase, w, t + h, w1);
  for (int i = 0; i < 4; i++) y[i] = q[i] + 0.5 * h * k1[i];
  tbu_quatDeriv(k2, y, wm);
  for (int i = 0; i < 4; i++) y[i] = q[i] + 0.5 * h * k2[i];
  tbu_quatDeriv(k3, y, wm);
  for (int i = 0; i < 4; i++) y[i] = q[i] + h * k3[i];
  tbu_quatDeriv(k4, y, w1);
  for (int i = 0; i < 4; i++) q[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  tbu_quatNormalize(q);
}

// tbu_plateQuatStep from t, its angular velocity evaluated there
TB_HD void tbu_plateQuatStepAt(double q[4], const double amp[3], const double phase[3], double w,
                               double t, double h) {
  double w0[3], w1[3];
  tbu_plateAngVel(amp, phase, w, t, w0);
  tbu_plateQuatStep(q, w0, amp, phase, w, t, h, w1);
}

// extremum of the parabola through (-1, a), (0, b), (1, c): refines a sampled max or min
TB_HD double tbu_parabolaPeak(double a, double b, double c) {
  double den = a - 2.0 * b + c;
  if (den == 0.0) return b;
  double s = 0.5 * (a - c) / den;
  return b - 0.25 * (a - c) * s;
}

#define TB_PLATE_INIT_SAMPLES 1024

// initial plate orientation whose Euler angles swing symmetrically about zero (thesis §5.3)
TB_HD void tbu_plateQuat0(double q0[4], const double amp[3], const double phase[3], double w) {
  double q[4] = {1.0, 0.0, 0.0, 0.0};
  double h = 2.0 * TB_PI / w / TB_PLATE_INIT_SAMPLES;
  double e_prev[3], e_cur[3], e_next[3], lo[3], hi[3];
  // sample 0 is the identity; an extremum there is exact (zero rate), so no refinement
  tbu_quat2Euler(e_prev, q);
  tbu_plateQuatStepAt(q, amp, phase, w, 0.0, h);
  tbu_quat2Euler(e_cur, q);
  for (int i = 0; i < 3; i++) {
    lo[i] = e_prev[i] < e_cur[i] ? e_prev[i] : e_cur[i];
    hi[i] = e_prev[i] > e_cur[i] ? e_prev[i] : e_cur[i];
  }
  for (int k = 1; k <= TB_PLATE_INIT_SAMPLES; k++) {
    tbu_plateQuatStepAt(q, amp, phase, w, k * h, h);
    tbu_quat2Euler(e_next, q);
    for (int i = 0; i < 3; i++) {
      // a sampled local extremum, refined by a parabola through its neighbours
      if (e_cur[i] >= e_prev[i] && e_cur[i] >= e_next[i]) {
        double p = tbu_parabolaPeak(e_prev[i], e_cur[i], e_next[i]);
        hi[i] = p > hi[i] ? p : hi[i];
      }
      if (e_cur[i] <= e_prev[i] && e_cur[i] <= e_next[i]) {
        double p = tbu_parabolaPeak(e_prev[i], e_cur[i], e_next[i]);
        lo[i] = p < lo[i] ? p : lo[i];
      }
      e_prev[i] = e_cur[i];
      e_cur[i] = e_next[i];
    }
  }
  double off[3] = {-0.5 * (lo[0] + hi[0]), -0.5 * (lo[1] + hi[1]), -0.5 * (lo[2] + hi[2])};
  tbu_euler2Quat(q0, off);
}

// 2D rocking plate (thesis Eq. 5.9, Vose et al.): rotation by theta(t) about the y axis through
// (0, 0, -d), d below the plate surface, with a bang-bang angular acceleration +-alpha:
//   theta = 1/2 alpha t^2 - 1/4 alpha T t                      0 <= t < T/2
//   theta = -1/2 alpha t^2 + 3/4 alpha T t - 1/4 alpha T^2     T/2 <= t < T,   period T.
// theta swings between +-alpha T^2/32 and its rate between +-alpha T/4. Angle and rate at t
// (T <= 0 or non-finite gives NaN, so that the scene fails visibly).
TB_HD void tbu_rockingAngle(double alpha, double T, double t, double* theta, double* rate) {
  if (!(T > 0.0) || !isfinite(T) || !isfinite(t)) {
    *theta = *rate = NAN;
    return;
  }
  double tau = fmod(t, T);
  if (tau < 0.0) tau += T;
  if (tau < 0.5 * T) {
    *theta = 0.5 * alpha * tau * tau - 0.25 * alpha * T * tau;
    *rate = alpha * tau - 0.25 * alpha * T;
  } else {
    *theta = -0.5 * alpha * tau * tau + 0.75 * alpha * T * tau - 0.25 * alpha * T * T;
    *rate = -alpha * tau + 0.75 * alpha * T;
  }
}

// rocking plate pose at t: the body frame turned by theta about y around the axis point
// a = p0 + (0, 0, -d), so the body origin p0 (on the plate surface, above the axis) stays at
// distance d from the axis; q = q(theta about y) (x) q0. vel = [w x (pos - a); (0, rate, 0)].
TB_HD void tbu_rockingPose(double alpha, double T, double d, double t, const double p0[3],
                           const double q0[4], double pos[3], double quat[4], double vel[6]) {
  double th, rate;
  tbu_rockingAngle(alpha, T, t, &th, &rate);
  double s = sin(th), c = cos(th);
  // R_y(theta) (0, 0, d) = d (sin theta, 0, cos theta)
  pos[0] = p0[0] + d * s;
  pos[1] = p0[1];
  pos[2] = p0[2] - d + d * c;
  double qy[4] = {cos(0.5 * th), 0.0, sin(0.5 * th), 0.0};
  tbu_quatMul(quat, qy, q0);
  // (0, rate, 0) x d (sin, 0, cos) = rate d (cos, 0, -sin)
  vel[0] = rate * d * c;
  vel[1] = 0.0;
  vel[2] = -rate * d * s;
  vel[3] = 0.0;
  vel[4] = rate;
  vel[5] = 0.0;
}

// piecewise-linear keyframes (each key: t, pos[3], quat[4]): pose at time tau and the velocity
// of the segment ending at tau (left-continuous, so a step ending on a key uses the segment it
// spent its time in); held still before the first and after the last key
TB_HD void tbu_keyframePose(const double* key, int nkey, double tau, double pos[3], double quat[4],
                            double vel[6]) {
  for (int i = 0; i < 6; i++) vel[i] = 0.0;
  if (nkey == 1 || tau <= key[0]) {
    tbu_copy3(pos, key + 1);
    for (int i = 0; i < 4; i++) quat[i] = key[4 + i];
    return;
  }
  int i = 0;
  while (i + 2 < nkey && tau > key[8 * (i + 1)]) i++;
  const double* k0 = key + 8 * i;
  const double* k1 = k0 + 8;
  if (tau > k1[0]) {
    tbu_copy3(pos, k1 + 1);
    for (int j = 0; j < 4; j++) quat[j] = k1[4 + j];
    return;
  }
  double dt = k1[0] - k0[0], s = (tau - k0[0]) / dt;
  double q0c[4], dq[4], rv[3], th[3], qs[4];
  for (int j = 0; j < 3; j++) {
    pos[j] = k0[1 + j] + s * (k1[1 + j] - k0[1 + j]);
    vel[j] = (k1[1 + j] - k0[1 + j]) / dt;
  }
  tbu_quatConj(q0c, k0 + 4);
  tbu_quatMul(dq, k1 + 4, q0c);
  tbu_quatToRotVec(rv, dq);
  tbu_scl3(th, rv, s);
  tbu_quatFromRotVec(qs, th);
  tbu_quatMul(quat, qs, k0 + 4);
  tbu_scl3(vel + 3, rv, 1.0 / dt);
}

#endif  // TUMBLE_DRIVER_GEOM_H_

// Normal forces of a three-point support tripod (thesis §3.3, Eq. 3.24), shared by the model's
// checks and the step's rows on both backends.
//
//   [1 1 1; y_1 y_2 y_3; -x_1 -x_2 -x_3] lambda = [m g; 0; 0]
// has the solution lambda_k = m g w_k, w the barycentric coordinates of the center of mass (the
// body frame's origin) in the triangle of the points.
#ifndef TUMBLE_SUPPORT_H_
#define TUMBLE_SUPPORT_H_

#include "math/tb_math.h"

// barycentric coordinates of the origin in the triangle p (x, y pairs); 0, or -1 if degenerate
TB_HD int tbu_originBarycentric(const double* p, double w[3]) {
  double det = (p[2] - p[0]) * (p[5] - p[1]) - (p[4] - p[0]) * (p[3] - p[1]);
  if (!(fabs(det) > 1e-18) || !isfinite(det)) return -1;
  for (int k = 0; k < 3; k++) {
    const double* a = p + 2 * ((k + 1) % 3);
    const double* b = p + 2 * ((k + 2) % 3);
    w[k] = (a[0] * b[1] - a[1] * b[0]) / det;  // twice the area of (origin, a, b)
  }
  return 0;
}

// what can make a tripod unable to carry its body
enum { TB_SUPPORT_OK = 0, TB_SUPPORT_GRAVITY, TB_SUPPORT_MU, TB_SUPPORT_POINTS };

// loads lambda (N) of a tripod with values mu, x1, y1, .. x3, y3 (TB_SUP_NPRM) carrying mass
// (kg) under gravity g_z (m/s^2); TB_SUPPORT_OK, or the first field that rules it out
TB_HD int tbu_supportLoads(const double* prm, double mass, double gz, double lambda[3]) {
  double g = -gz, w[3];
  if (!(g > 0.0)) return TB_SUPPORT_GRAVITY;
  if (!(prm[0] >= 0.0) || !isfinite(prm[0])) return TB_SUPPORT_MU;
  if (tbu_originBarycentric(prm + 1, w) || !(w[0] > 0.0 && w[1] > 0.0 && w[2] > 0.0)) {
    return TB_SUPPORT_POINTS;
  }
  for (int k = 0; k < 3; k++) lambda[k] = mass * g * w[k];
  return TB_SUPPORT_OK;
}

#endif  // TUMBLE_SUPPORT_H_

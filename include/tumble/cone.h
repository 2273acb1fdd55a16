// Projections onto the friction sets of one contact, shared by the CPU path and the kernels.
//
// Tangential impulse x_t = (x_t1, x_t2) in the contact frame. Exact cone: the disc of radius
// r = mu x_n (thesis Eq. 2.46). Pyramid: the polyhedral set {sum_j beta_j d_j : beta >= 0,
// sum_j beta_j <= r} of thesis Eq. 2.65-2.70, with d_j = (cos(a + 2 pi j/n_d), sin(...)),
// which is the regular n_d-gon with vertices r d_j. Both are Euclidean projections.
#ifndef TUMBLE_CONE_H_
#define TUMBLE_CONE_H_

#include "tb_math.h"

// project (x[0], x[1]) onto the disc of radius r >= 0
TB_HD void tbu_projDisc(double x[2], double r) {
  double n = sqrt(x[0] * x[0] + x[1] * x[1]);
  if (n > r) {
    double s = n > 0.0 ? r / n : 0.0;
    x[0] *= s;
    x[1] *= s;
  }
}

// project (x[0], x[1]) onto the regular nd-gon with vertices r (cos(a + 2 pi j/nd), ...)
TB_HD void tbu_projPolygon(double x[2], double r, int nd, double a) {
  if (r <= 0.0) {
    x[0] = x[1] = 0.0;
    return;
  }
  double ang = atan2(x[1], x[0]) - a;
  double step = 2.0 * TB_PI / nd;
  // the edge between vertices j and j+1 faces the sector containing x
  int j = (int)floor(ang / step);
  double a0 = a + j * step, a1 = a0 + step;
  double p0[2] = {r * cos(a0), r * sin(a0)}, p1[2] = {r * cos(a1), r * sin(a1)};
  double e[2] = {p1[0] - p0[0], p1[1] - p0[1]};
  // outward edge normal
  double nrm[2] = {e[1], -e[0]};
  double d = (x[0] - p0[0]) * nrm[0] + (x[1] - p0[1]) * nrm[1];
  if (d <= 0.0) return;  // inside
  double s = ((x[0] - p0[0]) * e[0] + (x[1] - p0[1]) * e[1]) / (e[0] * e[0] + e[1] * e[1]);
  s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
  x[0] = p0[0] + s * e[0];
  x[1] = p0[1] + s * e[1];
}

// project onto the friction set of a contact with ntan (1 or 2) tangent rows
TB_HD void tbu_projFriction(double* xt, int ntan, double r, int pyramid, int nd, double a) {
  if (ntan == 1) {
    xt[0] = xt[0] > r ? r : (xt[0] < -r ? -r : xt[0]);
  } else if (pyramid) {
    tbu_projPolygon(xt, r, nd, a);
  } else {
    tbu_projDisc(xt, r);
  }
}

// project r = (r_n, r_t[ntan]) onto the Coulomb cone {|r_t| <= mu r_n} (ntan = 1 or 2)
TB_HD void tbu_projCone(double* r, int ntan, double mu) {
  double t2 = r[1] * r[1] + (ntan > 1 ? r[2] * r[2] : 0.0), nt = sqrt(t2);
  if (nt <= mu * r[0]) return;  // inside
  if (mu * nt <= -r[0]) {       // inside the polar cone: the apex
    for (int k = 0; k <= ntan; k++) r[k] = 0.0;
    return;
  }
  double rn = (r[0] + mu * nt) / (1.0 + mu * mu);
  r[0] = rn;
  for (int k = 1; k <= ntan; k++) r[k] *= mu * rn / nt;
}

#endif  // TUMBLE_CONE_H_

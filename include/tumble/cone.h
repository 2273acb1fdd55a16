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

//---- the Fischer-Burmeister function of the second-order cone ------------------------------------
// Vectors v = (v_0, v_bar) of R^d (d = 1..3) with the Jordan product v o w = (v . w, v_0 w_bar +
// w_0 v_bar) of the Lorentz cone K = {v_0 >= |v_bar|} (Fukushima, Luo & Tseng 2001):
//   phi(x, y) = (x o x + y o y)^(1/2) - x - y = 0  <=>  x in K, y in K, x . y = 0,
// the scalar FB at d = 1. phi's sign is the scalar FB's of solver_lm.h (sqrt - a - b).

// a smoothed square root's floor on its smaller eigenvalue, relative to the larger: keeps the
// arrow matrix L_z invertible where x^2 + y^2 lies on K's boundary (the Jacobian of the smoothed
// function, whose limit is an element of the generalized Jacobian: Chen, Sun & Sun 2003)
#define TB_SOC_SMOOTH 1e-12

// the square root z of w in K (w in K) by its spectral decomposition
TB_HD void tbu_socSqrt(const double* w, int d, double* z) {
  double nb = 0.0;
  for (int i = 1; i < d; i++) nb += w[i] * w[i];
  nb = sqrt(nb);
  double s1 = sqrt(fmax(w[0] - nb, 0.0)), s2 = sqrt(fmax(w[0] + nb, 0.0));
  double f = nb > 0.0 ? 0.5 * (s2 - s1) / nb : 0.0;
  z[0] = 0.5 * (s1 + s2);
  for (int i = 1; i < d; i++) z[i] = f * w[i];
}

// M = L_z^-1 L_v - I (d x d, row-major) for z in K's interior, L_v = [v_0 v_bar^T; v_bar v_0 I]
TB_HD void tbu_socArrowSolve(const double* z, const double* v, int d, double* M) {
  double zz = 0.0;
  for (int i = 1; i < d; i++) zz += z[i] * z[i];
  double det = z[0] * z[0] - zz;
  for (int j = 0; j < d; j++) {
    double col[3], a[3];
    for (int i = 0; i < d; i++) col[i] = j == 0 ? v[i] : (i == 0 ? v[j] : (i == j ? v[0] : 0.0));
    double zc = 0.0;
    for (int i = 1; i < d; i++) zc += z[i] * col[i];
    a[0] = (z[0] * col[0] - zc) / det;
    for (int i = 1; i < d; i++) a[i] = (col[i] - z[i] * a[0]) / z[0];
    for (int i = 0; i < d; i++) M[i * d + j] = a[i] - (i == j);
  }
}

// phi(x, y); with Dx, Dy (both or neither) its derivatives in x and y, from the smoothed root
TB_HD void tbu_socFB(const double* x, const double* y, int d, double* phi, double* Dx, double* Dy) {
  double w[3], z[3];
  w[0] = 0.0;
  for (int i = 0; i < d; i++) w[0] += x[i] * x[i] + y[i] * y[i];
  for (int i = 1; i < d; i++) w[i] = 2.0 * (x[0] * x[i] + y[0] * y[i]);
  tbu_socSqrt(w, d, z);
  for (int i = 0; i < d; i++) phi[i] = z[i] - x[i] - y[i];
  if (!Dx) return;
  double nb = 0.0;
  for (int i = 1; i < d; i++) nb += w[i] * w[i];
  nb = sqrt(nb);
  w[0] += fmax(TB_SOC_SMOOTH * (w[0] + nb) - (w[0] - nb), 0.0) + 1e-300;
  tbu_socSqrt(w, d, z);
  tbu_socArrowSolve(z, x, d, Dx);
  tbu_socArrowSolve(z, y, d, Dy);
}

#endif  // TUMBLE_CONE_H_

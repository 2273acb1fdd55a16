// Projections onto the friction sets of one contact, shared by the CPU path and the kernels.
//
// Tangential impulse x_t = (x_t1, x_t2) in the contact frame. Exact cone: the disc of radius
// r = mu x_n (thesis Eq. 2.46). Pyramid: the polyhedral set {sum_j beta_j d_j : beta >= 0,
// sum_j beta_j <= r} of thesis Eq. 2.65-2.70, with d_j = (cos(a + 2 pi j/n_d), sin(...)),
// which is the regular n_d-gon with vertices r d_j. Both are Euclidean projections.
#ifndef TUMBLE_CONE_H_
#define TUMBLE_CONE_H_

#include "math/tb_math.h"

// project (x[0], x[1]) onto the disc of radius r >= 0
TB_HD void tbu_projDisc(double x[2], double r) {
  double n = sqrt(x[0] * x[0] + x[1] * x[1]);
  if (n > r) {
    double s = n > 0.0 ? r / n : 0.0;
    x[0] *= s;
    x[1] *= s;
  }
}

// cos(pi / nd): the regular nd-gon's inscribed radius over its circumradius
TB_HD double tbu_inscribed(int nd) {
  switch (nd) {
    case 3:
      return 0.5;
    case 4:
      return 0.70710678118654752440;
    case 6:
      return 0.86602540378443864676;
    case 8:
      return 0.92387953251128675613;
    default:
      return cos(TB_PI / nd);
  }
}

// project x onto the square |x_0| + |x_1| <= r (its corners on the axes)
TB_HD void tbu_projDiamond(double x[2], double r) {
  double u = fabs(x[0]), v = fabs(x[1]);
  if (u + v <= r) return;
  double pu = 0.5 * (u - v + r);
  pu = pu < 0.0 ? 0.0 : (pu > r ? r : pu);
  x[0] = x[0] < 0.0 ? -pu : pu;
  x[1] = x[1] < 0.0 ? -(r - pu) : r - pu;
}

// project (x[0], x[1]) onto the regular nd-gon with vertices r (cos(a + 2 pi j/nd), ...). A point
// inside its inscribed circle is inside; the four-facet pyramid unturned (MJCF's default: corners
// along the tangents) is a square; both without the trigonometry, which was a fifth of a
// gripper's step (an atan2 and two sincos a projection)
TB_HD void tbu_projPolygon(double x[2], double r, int nd, double a) {
  if (r <= 0.0) {
    x[0] = x[1] = 0.0;
    return;
  }
  double in = r * tbu_inscribed(nd);
  if (x[0] * x[0] + x[1] * x[1] <= in * in) return;
  if (nd == 4 && a == 0.0) {
    tbu_projDiamond(x, r);
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
// the scalar FB at d = 1. phi's sign is the scalar FB's of solver_lm_equation.h (sqrt - a - b).

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

// z^T J z, J = diag(1, -1, ...)
TB_HD double tbu_socDet(const double* z, int m) {
  double zz = 0.0;
  for (int i = 1; i < m; i++) zz += z[i] * z[i];
  return z[0] * z[0] - zz;
}

// y with v o y = d (v inside K): L_v^-1 d
TB_HD void tbu_socDivide(const double* v, const double* d, int m, double* y) {
  double vd = 0.0;
  for (int i = 1; i < m; i++) vd += v[i] * d[i];
  y[0] = (v[0] * d[0] - vd) / tbu_socDet(v, m);
  for (int i = 1; i < m; i++) y[i] = (d[i] - y[0] * v[i]) / v[0];
}

// M = L_z^-1 L_v - I (d x d, row-major) for z in K's interior, L_v = [v_0 v_bar^T; v_bar v_0 I]
TB_HD void tbu_socArrowSolve(const double* z, const double* v, int d, double* M) {
  for (int j = 0; j < d; j++) {
    double col[3] = {0.0, 0.0, 0.0}, a[3];
    for (int i = 0; i < d; i++) col[i] = j == 0 ? v[i] : (i == 0 ? v[j] : (i == j ? v[0] : 0.0));
    tbu_socDivide(z, col, d, a);
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

//---- the interior point's algebra of K (host/solver/solver_ipm.h)
//---------------------------------------
// Points strictly inside K, steps to its boundary and the Nesterov-Todd scaling of a primal-dual
// pair (Vandenberghe, The CVXOPT linear and quadratic cone program solvers, 2010, Sec. 4).

// z0 - |z_bar|: > 0 inside K (m = 1: the half line)
TB_HD double tbu_socMargin(const double* z, int m) {
  double r = 0.0;
  for (int i = 1; i < m; i++) r += z[i] * z[i];
  return z[0] - sqrt(r);
}

// the Jordan product r = a o b = (a . b, a0 b_bar + b0 a_bar)
TB_HD void tbu_socProduct(const double* a, const double* b, int m, double* r) {
  double d = 0.0;
  for (int i = 0; i < m; i++) d += a[i] * b[i];
  for (int i = 1; i < m; i++) r[i] = a[0] * b[i] + b[0] * a[i];
  r[0] = d;
}

// the largest step a <= amax with z + a dz in K (z inside): the first root of
// (z0 + a dz0)^2 - |z_bar + a dz_bar|^2 = c + 2 b a + q a^2, in its stable form
TB_HD double tbu_socMaxStep(const double* z, const double* dz, int m, double amax) {
  if (m == 1) return dz[0] < 0.0 ? fmin(amax, -z[0] / dz[0]) : amax;
  double q = tbu_socDet(dz, m), b = z[0] * dz[0], c = tbu_socDet(z, m);
  for (int i = 1; i < m; i++) b -= z[i] * dz[i];
  double disc = b * b - q * c;
  if (disc < 0.0) return amax;
  double den = -b + sqrt(disc);
  return den > 0.0 ? fmin(amax, c / den) : amax;
}

// the Nesterov-Todd scaling of one cone's pair (z, l), both inside: S = beta (2 w w^T - J) with
// S l = S^-1 z; w (m) and beta (CVXOPT's compute_scaling)
TB_HD void tbu_socNTScaling(const double* z, const double* l, int m, double* w, double* beta) {
  double dz = sqrt(tbu_socDet(z, m)), dl = sqrt(tbu_socDet(l, m)), zl = 0.0;
  for (int i = 0; i < m; i++) zl += z[i] * l[i];
  double gamma = sqrt(0.5 * (1.0 + zl / (dz * dl)));
  // the scaling point (z / dz + J l / dl) / (2 gamma), of determinant 1, then its square root
  for (int i = 0; i < m; i++)
    w[i] = (z[i] / dz + (i == 0 ? 1.0 : -1.0) * l[i] / dl) / (2.0 * gamma);
  double root = sqrt(2.0 * (w[0] + 1.0));
  w[0] += 1.0;
  for (int i = 0; i < m; i++) w[i] /= root;
  *beta = sqrt(dz / dl);
}

// r = S^-1 y = (2 J w w^T J - J) y / beta
TB_HD void tbu_socScaleInv(const double* w, double beta, int m, const double* y, double* r) {
  double wjy = w[0] * y[0];
  for (int i = 1; i < m; i++) wjy -= w[i] * y[i];
  for (int i = 0; i < m; i++) {
    double ji = i == 0 ? 1.0 : -1.0;
    r[i] = (2.0 * ji * w[i] * wjy - ji * y[i]) / beta;
  }
}

// r = S y = beta (2 w w^T - J) y
TB_HD void tbu_socScale(const double* w, double beta, int m, const double* y, double* r) {
  double wy = 0.0;
  for (int i = 0; i < m; i++) wy += w[i] * y[i];
  for (int i = 0; i < m; i++) r[i] = beta * (2.0 * w[i] * wy - (i == 0 ? 1.0 : -1.0) * y[i]);
}

// r = S^-2 y, S^-1 twice
TB_HD void tbu_socScaleInv2(const double* w, double beta, int m, const double* y, double* r) {
  double c[3];
  tbu_socScaleInv(w, beta, m, y, c);
  tbu_socScaleInv(w, beta, m, c, r);
}

#endif  // TUMBLE_CONE_H_

// Shapes as convex implicit functions for geometrically implicit contact (thesis §3.5): a shape
// is the set f(x) <= 0 of one smooth convex f, evaluated at any world point, with its gradient.
// Shared by the CPU path and the CUDA kernels; nothing here knows about bodies.
//
// Each f is scaled so that |grad f| = 1 on the surface of a sphere, a disc or a plane (f is then
// the distance to first order there), which keeps the closest-point unknowns l1, l2 of the step
// in lengths and plain numbers:
//   sphere, radius r:            f = (|y|^2 - r^2) / (2 r)
//   ellipsoid, semi-axes a_k:    f = s (sum_k (y_k / a_k)^2 - 1) / 2, s the smallest semi-axis
//   superellipsoid, exponent e:  f = s ((sum_k |y_k / a_k|^e)^(1/e) - 1), its gauge: of degree 1
//                                (the power sum itself grows as |y|^e: at e = 10 Newton lost a
//                                plane 0.3 m away)
//   disc (a prism of one core vertex v and radius r, planar scenes): the cylinder along local z,
//                                f = (|y_xy - v|^2 - r^2) / (2 r)
//   plane (the half-space local z <= 0):  f = y_z
// with y the point in the shape's frame.
#ifndef TUMBLE_IMPLICIT_GEOM_H_
#define TUMBLE_IMPLICIT_GEOM_H_

#include <math.h>

#include "tumble/collide_geom.h"
#include "tumble/tb_math.h"

// 1 when shape type (with nvert core vertices, for a prism) has an implicit function here
TB_HD int tbg_isImplicit(int type, int nvert) {
  return type == TB_GEOM_SPHERE || type == TB_GEOM_ELLIPSOID || type == TB_GEOM_SUPERELLIPSOID ||
         type == TB_GEOM_PLANE || (type == TB_GEOM_PRISM && nvert == 1);
}

// semi-axes of a sphere, an ellipsoid or a superellipsoid, and its exponent (2 but for the last)
TB_HD double tbg_semiAxes(const tbGeomPose* g, double a[3]) {
  for (int k = 0; k < 3; k++) a[k] = g->type == TB_GEOM_SPHERE ? g->size[0] : g->size[k];
  return g->type == TB_GEOM_SUPERELLIPSOID ? g->exponent : 2.0;
}

// f of shape g at world point x, and its world gradient into grad
TB_HD double tbg_implicit(const tbGeomPose* g, const double x[3], double grad[3]) {
  double d[3], y[3], gy[3] = {0.0, 0.0, 0.0}, f;
  tbu_sub3(d, x, g->pos);
  tbu_rotVecInv(y, g->quat, d);
  if (g->type == TB_GEOM_PLANE) {
    f = y[2];
    gy[2] = 1.0;
  } else if (g->type == TB_GEOM_PRISM) {
    double r = g->size[0], u = y[0] - g->vert[0], v = y[1] - g->vert[1];
    f = (u * u + v * v - r * r) / (2.0 * r);
    gy[0] = u / r;
    gy[1] = v / r;
  } else if (g->type == TB_GEOM_SUPERELLIPSOID) {
    double a[3], e = tbg_semiAxes(g, a), s = fmin(a[0], fmin(a[1], a[2])), u[3], sum = 0.0;
    for (int k = 0; k < 3; k++) {
      u[k] = fabs(y[k]) / a[k];
      sum += pow(u[k], e);
    }
    double norm = pow(sum, 1.0 / e);
    f = s * (norm - 1.0);
    for (int k = 0; k < 3 && norm > 0.0; k++) {
      gy[k] = copysign(s * pow(u[k] / norm, e - 1.0) / a[k], y[k]);
    }
  } else {
    double a[3];
    tbg_semiAxes(g, a);
    double s = fmin(a[0], fmin(a[1], a[2]));
    f = -0.5 * s;
    for (int k = 0; k < 3; k++) {
      f += 0.5 * s * y[k] * y[k] / (a[k] * a[k]);
      gy[k] = s * y[k] / (a[k] * a[k]);
    }
  }
  tbu_rotVec(grad, g->quat, gy);
  return f;
}

// the surface point of bounded shape g farthest along world direction dir (its support point):
// where a closest-point search starts
TB_HD void tbg_implicitSupport(const tbGeomPose* g, const double dir[3], double p[3]) {
  double dl[3], y[3] = {0.0, 0.0, 0.0};
  tbu_rotVecInv(dl, g->quat, dir);
  if (g->type == TB_GEOM_PRISM) {
    double len = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
    double ux = len > 0.0 ? dl[0] / len : 1.0, uy = len > 0.0 ? dl[1] / len : 0.0;
    y[0] = g->vert[0] + g->size[0] * ux;
    y[1] = g->vert[1] + g->size[0] * uy;
  } else {  // u_k = y_k / a_k maximizing sum c_k u_k on sum |u_k|^e = 1, c_k = a_k dl_k
    double a[3], e = tbg_semiAxes(g, a), c[3], norm = 0.0;
    for (int k = 0; k < 3; k++) {
      c[k] = pow(fabs(a[k] * dl[k]), 1.0 / (e - 1.0));
      norm += pow(c[k], e);
    }
    norm = norm > 0.0 ? pow(norm, 1.0 / e) : 1.0;
    for (int k = 0; k < 3; k++) y[k] = copysign(a[k] * c[k] / norm, dl[k]);
  }
  double off[3];
  tbu_rotVec(off, g->quat, y);
  tbu_add3(p, g->pos, off);
}

// the point of plane g nearest world point x
TB_HD void tbg_planeProject(const tbGeomPose* g, const double x[3], double p[3]) {
  double grad[3], f = tbg_implicit(g, x, grad);
  tbu_addscl3(p, x, grad, -f);
}

#endif  // TUMBLE_IMPLICIT_GEOM_H_

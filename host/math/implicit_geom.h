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
//   cylinder, radius r:          f = |y_xy| - r, cut by its caps (the quadratic's gradient
//                                vanishes on the axis, under a cap's centre, where a cylinder
//                                lying on a cap touches)
//   plane (the half-space local z <= 0):  f = y_z
// with y the point in the shape's frame. A shape may be cut by half-spaces n . y <= d (its
// parts 1 .. nclip after the function itself, part 0; thesis Eq. 3.84-3.87): the shape is the
// intersection of its parts.
#ifndef TUMBLE_IMPLICIT_GEOM_H_
#define TUMBLE_IMPLICIT_GEOM_H_

#include <math.h>
#include <string.h>

#include "math/collide_geom.h"
#include "math/tb_math.h"

// shape type (sizes, exponent, a prism's core vertices) in its own frame: at the origin,
// unturned, uncut
TB_HD void tbg_framePose(tbGeomPose* g, int type, const double size[3], double exponent,
                         const double* vert) {
  memset(g, 0, sizeof(*g));
  g->type = type;
  g->quat[0] = 1.0;
  memcpy(g->size, size, sizeof(g->size));
  g->exponent = exponent;
  g->vert = vert;
}

// 1 when shape type (with nvert core vertices, for a prism) has an implicit function here
TB_HD int tbg_isImplicit(int type, int nvert) {
  return type == TB_GEOM_SPHERE || type == TB_GEOM_ELLIPSOID || type == TB_GEOM_SUPERELLIPSOID ||
         type == TB_GEOM_CYLINDER || type == TB_GEOM_PLANE || (type == TB_GEOM_PRISM && nvert == 1);
}

// semi-axes of a sphere, an ellipsoid or a superellipsoid, and its exponent (2 but for the last)
TB_HD double tbg_semiAxes(const tbGeomPose* g, double a[3]) {
  for (int k = 0; k < 3; k++) a[k] = g->type == TB_GEOM_SPHERE ? g->size[0] : g->size[k];
  return g->type == TB_GEOM_SUPERELLIPSOID ? g->exponent : 2.0;
}

// f of shape g at world point x, and its world gradient into grad
TB_HDN double tbg_implicit(const tbGeomPose* g, const double x[3], double grad[3]) {
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
  } else if (g->type == TB_GEOM_CYLINDER) {
    double rho = sqrt(y[0] * y[0] + y[1] * y[1]);
    f = rho - g->size[0];
    gy[0] = rho > 0.0 ? y[0] / rho : 0.0;
    gy[1] = rho > 0.0 ? y[1] / rho : 0.0;
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

// the parts of a shape of type with nclip half-spaces: its function, a cylinder's two caps, the
// half-spaces
TB_HD int tbg_parts(int type, int nclip) {
  return 1 + (type == TB_GEOM_CYLINDER ? 2 : 0) + nclip;
}

// part k of shape g at world point x (0: its function; then a cylinder's caps +-z <= size[1]
// and the half-spaces, n . y - d), and its world gradient into grad
TB_HDN double tbg_implicitPart(const tbGeomPose* g, int k, const double x[3], double grad[3]) {
  if (k == 0) return tbg_implicit(g, x, grad);
  double d[3], y[3], c[4] = {0.0, 0.0, k == 1 ? 1.0 : -1.0, g->size[1]};
  int caps = g->type == TB_GEOM_CYLINDER ? 2 : 0;
  if (k > caps) {
    for (int i = 0; i < 4; i++) c[i] = g->clip[4 * (k - 1 - caps) + i];
  }
  tbu_sub3(d, x, g->pos);
  tbu_rotVecInv(y, g->quat, d);
  tbu_rotVec(grad, g->quat, c);
  return tbu_dot3(c, y) - c[3];
}

// the surface point of bounded shape g farthest along world direction dir (its support point),
// where a closest-point search starts: exact for the uncut shapes and the cylinder; a cut
// shape's is its own, projected onto the half-spaces it lies outside of. Returns a part it lies
// on beside the function (tbg_implicitPart's k: a cylinder's cap, or the last half-space it was
// projected onto), 0 for none. A cylinder's cap within slope flat of facing dir counts as
// facing it: its centre is taken (the cap is the support set; 0: the exact support point).
TB_HDN int tbg_implicitSupport(const tbGeomPose* g, const double dir[3], double flat, double p[3]) {
  double dl[3], y[3] = {0.0, 0.0, 0.0};
  int on = 0;
  tbu_rotVecInv(dl, g->quat, dir);
  if (g->type == TB_GEOM_PRISM || g->type == TB_GEOM_CYLINDER) {
    int prism = g->type == TB_GEOM_PRISM;
    double len = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
    double ux = len > 0.0 ? dl[0] / len : 1.0, uy = len > 0.0 ? dl[1] / len : 0.0;
    if (!prism && dl[2] != 0.0) {  // a cylinder's cap
      y[2] = copysign(g->size[1], dl[2]);
      on = dl[2] > 0.0 ? 1 : 2;
      if (len <= flat * fabs(dl[2])) ux = uy = 0.0;
    }
    y[0] = (prism ? g->vert[0] : 0.0) + g->size[0] * ux;
    y[1] = (prism ? g->vert[1] : 0.0) + g->size[0] * uy;
  } else {  // u_k = y_k / a_k maximizing sum c_k u_k on sum |u_k|^e = 1, c_k = a_k dl_k
    double a[3], e = tbg_semiAxes(g, a), c[3], norm = 0.0;
    for (int k = 0; k < 3; k++) {
      c[k] = pow(fabs(a[k] * dl[k]), 1.0 / (e - 1.0));
      norm += pow(c[k], e);
    }
    norm = norm > 0.0 ? pow(norm, 1.0 / e) : 1.0;
    for (int k = 0; k < 3; k++) y[k] = copysign(a[k] * c[k] / norm, dl[k]);
  }
  for (int k = 0; k < g->nclip; k++) {
    const double* c = g->clip + 4 * k;
    double out = tbu_dot3(c, y) - c[3];
    if (out > 0.0) {
      tbu_addscl3(y, y, c, -out);
      on = tbg_parts(g->type, k);
    }
  }
  double off[3];
  tbu_rotVec(off, g->quat, y);
  tbu_add3(p, g->pos, off);
  return on;
}

// the point of plane g nearest world point x
TB_HD void tbg_planeProject(const tbGeomPose* g, const double x[3], double p[3]) {
  double grad[3], f = tbg_implicit(g, x, grad);
  tbu_addscl3(p, x, grad, -f);
}

#endif  // TUMBLE_IMPLICIT_GEOM_H_

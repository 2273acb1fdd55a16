// Shape-pair contact geometry (narrow phase), shared by the CPU path and the CUDA kernels.
//
// Conventions
//   * Shapes are posed in the world by (pos, quat); a capsule's segment runs along its local z,
//     a box is centred on pos with half-extents size, a plane's solid side is local z <= 0.
//   * Every contact is built from one point on the surface of a (pa) and one on the surface of
//     b (pb) plus a unit normal n pointing from b to a. Then
//         gap = (pa - pb) . n        (> 0 separated, < 0 penetrating)
//         pos = (pa + pb) / 2        (midway between the surfaces)
//     so the sign of the gap follows from the geometry alone and needs no per-case logic
//     (tbg_emit). A contact is kept only if gap < margin.
//   * Pair routines are written for type(a) <= type(b); tbu_collide swaps the arguments
//     otherwise and flips the normals (gap and pos are symmetric).
//   * Rounded shapes (sphere, capsule) are handled as a core (point or segment) inflated by the
//     radius: find the closest points of the cores, then step out by the radii.
//   * Box-box uses the separating-axis test over the 15 candidate axes, then either clips the
//     incident face against the reference face (face axis) or takes the closest points of the
//     two support edges (edge-edge axis).
//
// Everything is plain C (fixed-size locals, no recursion, no globals) so the same code runs on
// the host and on the device, and the results are a deterministic function of the inputs.
#ifndef TUMBLE_COLLIDE_GEOM_H_
#define TUMBLE_COLLIDE_GEOM_H_

#include <tumble/tumble.h>

#include "math/collide2d.h"
#include "math/tb_math.h"

#define TB_MAXCON_PAIR 8  // most contacts one shape pair can produce
#define TB_NFEATURE 80    // features of one pair's contacts are below this (box-box: 64 + 9)

// a convex polyhedron's parts (TB_GEOM_MESH: the model's hull_* arrays; a box's, built on the fly
// for box-mesh pairs) in its shape frame: as tbHullDef, each face's corners at facevertadr
typedef struct tbHull {
  int nvert, nface, nedge;
  const double* vert;      // (nvert x 3)
  const double* plane;     // (nface x 4): outward unit normal, offset
  const int* facevertadr;  // (nface) first corner in facevert
  const int* facenvert;    // (nface)
  const int* facevert;     // corner indices, counter-clockwise seen from outside
  const int* edge;         // (nedge x 4): v0, v1, the faces either side
} tbHull;

typedef struct tbGeomPose {
  int type;            // TB_GEOM_*
  double size[3];      // sphere: radius (0 = point particle); capsule: radius, half-length of the
                       // segment along local z; box: half-extents; ellipsoid, superellipsoid:
                       // semi-axes; plane: unused
  double pos[3];       // world position of the shape frame
  double quat[4];      // world orientation (w,x,y,z), unit
  int nvert;           // prism: core vertices (1 disc, 2 stadium, >= 3 convex polygon)
  const double* vert;  // prism: (nvert x 2) core vertices in the shape frame's xy plane, CCW
  double exponent;     // superellipsoid: e (implicit_geom.h)
  int nclip;           // the implicit step's shapes: cut by nclip half-spaces n . y <= d of the
  const double* clip;  // shape frame, (nclip x 4: n unit, d), the shape their intersection
  tbHull hull;         // mesh: its polyhedron
} tbGeomPose;
// plane: the half-space local z <= 0 is solid; its surface is the local xy plane through pos.

typedef struct tbContactPoint {
  double pos[3];      // world point, midway between the two surfaces
  double normal[3];   // unit, pointing from shape b to shape a (moving a along it separates them)
  double gap;         // signed distance along normal: > 0 separated, < 0 penetrating
  double tangent[3];  // preferred first tangent (unit, orthogonal to normal) or all zeros for
                      // none: for contacts against a plane, the plane's local x axis in world
  int feature;        // in [0, TB_NFEATURE), stable while the same features touch (warm start)
} tbContactPoint;

//---- small helpers -----------------------------------------------------------------------------

// world axes of a frame, flat: axis k is ax[3k .. 3k+2] (column k of the rotation matrix)
TB_HD void tbg_axes(double ax[9], const double q[4]) {
  double R[9];
  tbu_quat2Mat(R, q);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 3; i++) ax[3 * k + i] = R[3 * i + k];
  }
}

// world endpoints of a capsule's core segment: center c, unit direction u, half-length L
TB_HD void tbg_capsuleSeg(const tbGeomPose* g, double c[3], double u[3], double* L) {
  const double ez[3] = {0.0, 0.0, 1.0};
  tbu_copy3(c, g->pos);
  tbu_rotVec(u, g->quat, ez);
  *L = g->size[1];
}

// write one contact from the surface points pa (on a), pb (on b) and the unit normal n (b -> a);
// tangent may be NULL (no preferred tangent). Returns 1 if kept (gap < margin), else 0.
TB_HD int tbg_emit(tbContactPoint* c, const double pa[3], const double pb[3], const double n[3],
                   const double* tangent, int feature, double margin) {
  double d[3];
  tbu_sub3(d, pa, pb);
  double gap = tbu_dot3(d, n);
  if (!(gap < margin)) return 0;
  for (int i = 0; i < 3; i++) {
    c->pos[i] = 0.5 * (pa[i] + pb[i]);
    c->normal[i] = n[i];
    c->tangent[i] = tangent ? tangent[i] : 0.0;
  }
  c->gap = gap;
  c->feature = feature;
  return 1;
}

// closest points of segments p1 + s d1 and p2 + t d2 with s, t in [0, 1] (Ericson, Real-Time
// Collision Detection §5.1.9); handles zero-length segments. Parallel segments get s = 0.
TB_HD void tbg_segSeg(const double p1[3], const double d1[3], const double p2[3],
                      const double d2[3], double* s_out, double* t_out) {
  double r[3];
  tbu_sub3(r, p1, p2);
  double a = tbu_dot3(d1, d1), e = tbu_dot3(d2, d2), f = tbu_dot3(d2, r);
  double s = 0.0, t = 0.0;
  const double tiny = 1e-300;
  if (a <= tiny && e <= tiny) {
    s = t = 0.0;
  } else if (a <= tiny) {
    t = tbu_clamp(f / e, 0.0, 1.0);
  } else {
    double c = tbu_dot3(d1, r);
    if (e <= tiny) {
      s = tbu_clamp(-c / a, 0.0, 1.0);
    } else {
      double b = tbu_dot3(d1, d2);
      double denom = a * e - b * b;
      // near-parallel: any s works for the lines, take the start and let the clamps fix t
      s = denom > 1e-14 * a * e ? tbu_clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = tbu_clamp(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = tbu_clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  *s_out = s;
  *t_out = t;
}

// point of segment (center c, unit dir u, half-length L) closest to p
TB_HD void tbg_closestOnSeg(double r[3], const double c[3], const double u[3], double L,
                            const double p[3]) {
  double d[3];
  tbu_sub3(d, p, c);
  tbu_addscl3(r, c, u, tbu_clamp(tbu_dot3(d, u), -L, L));
}

//---- rounded cores: sphere-sphere is the workhorse ---------------------------------------------

// spheres (ca, ra) and (cb, rb). When the centres coincide the direction is undefined; use the
// caller's deterministic fallback (unit). "Coincide" is relative to the size of the numbers
// involved, so that centres equal up to round-off do not get an arbitrary direction.
TB_HD int tbg_sphereSphere(const double ca[3], double ra, const double cb[3], double rb,
                           const double fallback[3], int feature, double margin,
                           tbContactPoint* out) {
  double n[3], pa[3], pb[3], mag = ra + rb;
  for (int i = 0; i < 3; i++) mag += fabs(ca[i]) + fabs(cb[i]);
  tbu_sub3(n, ca, cb);
  double dist = tbu_normalize3(n);
  if (!(dist > 1e-13 * mag)) tbu_copy3(n, fallback);
  tbu_addscl3(pa, ca, n, -ra);
  tbu_addscl3(pb, cb, n, rb);
  return tbg_emit(out, pa, pb, n, 0, feature, margin);
}

// sphere (c, r) against plane g
TB_HD int tbg_pointPlane(const double c[3], double r, const tbGeomPose* g, int feature,
                         double margin, tbContactPoint* out) {
  const double ez[3] = {0.0, 0.0, 1.0}, ex[3] = {1.0, 0.0, 0.0};
  double n[3], tx[3], d[3], pa[3], pb[3];
  tbu_rotVec(n, g->quat, ez);
  tbu_rotVec(tx, g->quat, ex);
  tbu_sub3(d, c, g->pos);
  double dist = tbu_dot3(d, n);  // signed height of the centre above the surface
  tbu_addscl3(pa, c, n, -r);
  tbu_addscl3(pb, c, n, -dist);
  return tbg_emit(out, pa, pb, n, tx, feature, margin);
}

// signed distance from a box-local point l to a box with half-extents h (convex in l, which
// the capsule-box search relies on)
TB_HD double tbg_boxSdf(const double l[3], const double h[3]) {
  double q[3], out2 = 0.0, inmax = -1e300;
  for (int i = 0; i < 3; i++) {
    q[i] = fabs(l[i]) - h[i];
    if (q[i] > 0.0) out2 += q[i] * q[i];
    if (q[i] > inmax) inmax = q[i];
  }
  return sqrt(out2) + (inmax < 0.0 ? inmax : 0.0);
}

// sphere (c, r) against box g. Outside: the clamped point is the closest box point. Inside (or
// on the surface): push out through the face of least penetration (lowest axis on ties), which
// makes a point particle inside a box well defined.
TB_HD int tbg_pointBox(const double c[3], double r, const tbGeomPose* g, int feature, double margin,
                       tbContactPoint* out) {
  double d[3], l[3], q[3], nl[3], pal[3], pa[3], pb[3], n[3];
  const double* h = g->size;
  tbu_sub3(d, c, g->pos);
  tbu_rotVecInv(l, g->quat, d);
  for (int i = 0; i < 3; i++) q[i] = tbu_clamp(l[i], -h[i], h[i]);
  tbu_sub3(nl, l, q);
  double dist = tbu_normalize3(nl);
  if (!(dist > 0.0)) {
    int k = 0;
    double best = h[0] - fabs(l[0]);
    for (int i = 1; i < 3; i++) {
      double pen = h[i] - fabs(l[i]);
      if (pen < best) {
        best = pen;
        k = i;
      }
    }
    tbu_zero3(nl);
    nl[k] = l[k] < 0.0 ? -1.0 : 1.0;
    tbu_copy3(q, l);
    q[k] = nl[k] * h[k];  // the face point straight out along the chosen axis
  }
  tbu_addscl3(pal, l, nl, -r);
  tbu_rotVec(n, g->quat, nl);
  tbu_rotVec(pa, g->quat, pal);
  tbu_rotVec(pb, g->quat, q);
  tbu_add3(pa, pa, g->pos);
  tbu_add3(pb, pb, g->pos);
  return tbg_emit(out, pa, pb, n, 0, feature, margin);
}

//---- pair routines (type(a) <= type(b)) --------------------------------------------------------

TB_HD int tbg_collideSphereSphere(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                  tbContactPoint* out) {
  const double ez[3] = {0.0, 0.0, 1.0};
  return tbg_sphereSphere(a->pos, a->size[0], b->pos, b->size[0], ez, 0, margin, out);
}

TB_HD int tbg_collideSphereCapsule(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                   tbContactPoint* out) {
  const double ex[3] = {1.0, 0.0, 0.0};
  double c[3], u[3], L, p[3], fb[3];
  tbg_capsuleSeg(b, c, u, &L);
  tbg_closestOnSeg(p, c, u, L, a->pos);
  tbu_rotVec(fb, b->quat, ex);  // centre on the axis: push out sideways, not along the axis
  return tbg_sphereSphere(a->pos, a->size[0], p, b->size[0], fb, 0, margin, out);
}

TB_HD int tbg_collideSphereBox(const tbGeomPose* a, const tbGeomPose* b, double margin,
                               tbContactPoint* out) {
  return tbg_pointBox(a->pos, a->size[0], b, 0, margin, out);
}

TB_HD int tbg_collideSpherePlane(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                 tbContactPoint* out) {
  return tbg_pointPlane(a->pos, a->size[0], b, 0, margin, out);
}

// Closest points of the two segments. Parallel overlapping segments have a whole interval of
// closest pairs; return its two ends (features 0, 1) so a capsule resting on another is
// supported at two points instead of one that wanders along the interval.
TB_HD int tbg_collideCapsuleCapsule(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                    tbContactPoint* out) {
  double ca[3], ua[3], La, cb[3], ub[3], Lb, x[3], d[3];
  tbg_capsuleSeg(a, ca, ua, &La);
  tbg_capsuleSeg(b, cb, ub, &Lb);
  double ra = a->size[0], rb = b->size[0];
  tbu_cross3(x, ua, ub);
  double sin2 = tbu_dot3(x, x);
  tbu_sub3(d, ca, cb);
  // fallback normal for intersecting cores: perpendicular to both axes, oriented b -> a
  double fb[3];
  if (sin2 > 1e-20) {
    tbu_scl3(fb, x, 1.0 / sqrt(sin2));
  } else {
    const double ex[3] = {1.0, 0.0, 0.0};
    tbu_rotVec(fb, b->quat, ex);
  }
  if (tbu_dot3(fb, d) < 0.0) tbu_scl3(fb, fb, -1.0);

  if (sin2 < 1e-12 && La > 0.0 && Lb > 0.0) {
    // parallel: overlap of b's parameter range projected onto a's axis
    double t1 = -tbu_dot3(d, ua) - Lb * tbu_dot3(ub, ua);
    double t2 = -tbu_dot3(d, ua) + Lb * tbu_dot3(ub, ua);
    double lo = t1 < t2 ? t1 : t2, hi = t1 < t2 ? t2 : t1;
    lo = lo > -La ? lo : -La;
    hi = hi < La ? hi : La;
    if (hi - lo > 1e-9 * (La + Lb)) {
      int n = 0;
      for (int e = 0; e < 2; e++) {
        double pa[3], pb[3];
        tbu_addscl3(pa, ca, ua, e == 0 ? lo : hi);
        tbg_closestOnSeg(pb, cb, ub, Lb, pa);
        n += tbg_sphereSphere(pa, ra, pb, rb, fb, e, margin, out + n);
      }
      return n;
    }
  }
  double p1[3], d1[3], p2[3], d2[3], s, t, pa[3], pb[3];
  tbu_addscl3(p1, ca, ua, -La);
  tbu_scl3(d1, ua, 2.0 * La);
  tbu_addscl3(p2, cb, ub, -Lb);
  tbu_scl3(d2, ub, 2.0 * Lb);
  tbg_segSeg(p1, d1, p2, d2, &s, &t);
  tbu_addscl3(pa, p1, d1, s);
  tbu_addscl3(pb, p2, d2, t);
  return tbg_sphereSphere(pa, ra, pb, rb, fb, 0, margin, out);
}

// Both segment ends as spheres (features 0, 1), plus the segment point nearest the box when it
// lies strictly inside the segment (feature 2), e.g. a capsule crossing a box edge. The signed
// distance to a box is convex along a line, so a fixed-count golden-section search finds that
// point deterministically.
TB_HD int tbg_collideCapsuleBox(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                tbContactPoint* out) {
  double c[3], u[3], L, p[3];
  tbg_capsuleSeg(a, c, u, &L);
  double r = a->size[0];
  int n = 0;
  tbu_addscl3(p, c, u, -L);
  n += tbg_pointBox(p, r, b, 0, margin, out + n);
  tbu_addscl3(p, c, u, L);
  n += tbg_pointBox(p, r, b, 1, margin, out + n);
  if (!(L > 0.0)) return n;  // a zero-length capsule is a sphere: both ends coincide

  double d[3], lc[3], lu[3], l[3];
  tbu_sub3(d, c, b->pos);
  tbu_rotVecInv(lc, b->quat, d);
  tbu_rotVecInv(lu, b->quat, u);
  const double g = 0.6180339887498949;  // (sqrt 5 - 1) / 2
  double lo = -L, hi = L;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  tbu_addscl3(l, lc, lu, x1);
  double f1 = tbg_boxSdf(l, b->size);
  tbu_addscl3(l, lc, lu, x2);
  double f2 = tbg_boxSdf(l, b->size);
  for (int it = 0; it < 64; it++) {  // interval shrinks by 0.618^64 ~ 4e-14
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      tbu_addscl3(l, lc, lu, x1);
      f1 = tbg_boxSdf(l, b->size);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      tbu_addscl3(l, lc, lu, x2);
      f2 = tbg_boxSdf(l, b->size);
    }
  }
  double sm = 0.5 * (lo + hi);
  tbu_addscl3(l, lc, lu, sm);
  double fm = tbg_boxSdf(l, b->size);
  tbu_addscl3(l, lc, lu, -L);
  double fe = tbg_boxSdf(l, b->size);
  tbu_addscl3(l, lc, lu, L);
  double fe2 = tbg_boxSdf(l, b->size);
  fe = fe < fe2 ? fe : fe2;
  // keep only a clearly interior minimum: a flat or end-attained minimum is already covered by
  // the end contacts (this is the de-duplication)
  double tol = 1e-7 * (L + r + b->size[0] + b->size[1] + b->size[2]);
  if (fm < fe - tol) {
    tbu_addscl3(p, c, u, sm);
    n += tbg_pointBox(p, r, b, 2, margin, out + n);
  }
  return n;
}

TB_HD int tbg_collideCapsulePlane(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                  tbContactPoint* out) {
  double c[3], u[3], L, p[3];
  tbg_capsuleSeg(a, c, u, &L);
  int n = 0;
  tbu_addscl3(p, c, u, -L);
  n += tbg_pointPlane(p, a->size[0], b, 0, margin, out + n);
  if (L > 0.0) {  // a zero-length capsule would give the same point twice
    tbu_addscl3(p, c, u, L);
    n += tbg_pointPlane(p, a->size[0], b, 1, margin, out + n);
  }
  return n;
}

// every corner below margin; feature = corner index (bit k set: + side along local axis k)
TB_HD int tbg_collideBoxPlane(const tbGeomPose* a, const tbGeomPose* b, double margin,
                              tbContactPoint* out) {
  double ax[9];
  tbg_axes(ax, a->quat);
  int n = 0;
  for (int i = 0; i < 8; i++) {
    double p[3];
    tbu_copy3(p, a->pos);
    for (int k = 0; k < 3; k++) {
      tbu_addscl3(p, p, ax + 3 * k, ((i >> k) & 1) ? a->size[k] : -a->size[k]);
    }
    n += tbg_pointPlane(p, 0.0, b, i, margin, out + n);
  }
  return n;
}

// separation of the boxes along unit axis L: centre distance minus the two projected radii
TB_HD double tbg_boxSep(const double L[3], const double d[3], const double ua[9],
                        const double ha[3], const double ub[9], const double hb[3]) {
  double s = fabs(tbu_dot3(d, L));
  for (int k = 0; k < 3; k++) {
    s -= ha[k] * fabs(tbu_dot3(ua + 3 * k, L)) + hb[k] * fabs(tbu_dot3(ub + 3 * k, L));
  }
  return s;
}

// One polygon vertex while clipping in reference-face coordinates: (x, y) along the reference
// face's two in-plane axes, z = height above the reference face; in and out name the boundary
// pieces that meet at it (the polygon's edge arriving and leaving): 0-3 the incident face's
// edges, 4-7 the reference face's sides. The unordered pair names the vertex uniquely (an
// incident corner, an incident edge across a side, or a reference corner), and stays the same
// while the same pieces cross, so it is the contact's feature (tbg_clipFeature).
typedef struct tbgClipVert {
  double x, y, z;
  int in, out;
} tbgClipVert;

// feature of a clipped vertex: its two boundary pieces, smaller first, in [0, 64)
TB_HD int tbg_clipFeature(const tbgClipVert* v) {
  int lo = v->in < v->out ? v->in : v->out, hi = v->in < v->out ? v->out : v->in;
  return 8 * lo + hi;
}

#define TBG_CLIPMAX 16  // a convex quad clipped by 4 lines has <= 8 vertices; 16 is headroom

// Sutherland-Hodgman against the half-plane sgn * coord(v) <= e (coord: x for axis 0, y for 1);
// interpolation is exact because x, y, z are affine in the 3D position. A vertex up to snap
// outside counts as inside: where an incident edge lies along the side (equal boxes stacked
// flush), round-off and drift would put its ends on either side and the crossing anywhere along
// the edge, a contact that jumps from step to step. An edge whose ends lie on either side of e
// crosses it exactly; one whose ends are both a hair outside, astride e + snap, crosses e + snap
// (taken against e, that crossing was extrapolated far beyond the edge: a contact 16 mm outside
// two flush 200 mm boxes).
TB_HD int tbg_clipSide(const tbgClipVert* in, int nin, tbgClipVert* out, int axis, double sgn,
                       double e, double snap, int plane) {
  int n = 0;
  for (int i = 0; i < nin; i++) {
    const tbgClipVert* cur = in + i;
    const tbgClipVert* prv = in + (i + nin - 1) % nin;
    double dc = sgn * (axis == 0 ? cur->x : cur->y) - e;
    double dp = sgn * (axis == 0 ? prv->x : prv->y) - e;
    if ((dc <= snap) != (dp <= snap) && n < TBG_CLIPMAX) {
      double t = (dc > 0.0) != (dp > 0.0) ? dp / (dp - dc) : (dp - snap) / (dp - dc);
      int entering = dc <= snap;
      out[n].x = prv->x + t * (cur->x - prv->x);
      out[n].y = prv->y + t * (cur->y - prv->y);
      out[n].z = prv->z + t * (cur->z - prv->z);
      // the edge prv -> cur crosses side `plane`: entering, the side comes before the edge
      out[n].in = entering ? 4 + plane : prv->out;
      out[n].out = entering ? prv->out : 4 + plane;
      n++;
    }
    if (dc <= snap && n < TBG_CLIPMAX) out[n++] = *cur;
  }
  return n;
}

// b's face axis is taken over a's only where it separates them by this much more, relative to the
// larger box (the clip's snap: round-off and drift of the poses). Two faces pressed flat (a part
// held between box fingers) separate along either axis by amounts that differ by round-off; with
// 1e-9 the choice flipped from step to step, and with it the contacts' features, so that the
// finger's four contacts started cold every few steps (a held grasp3d step: 172 iterations
// where its matched warm start takes 2 to 4)
#define TBG_FACE_BIAS 1e-6

// Box-box. Face axis: the reference face is the chosen box's face pointing at the other box;
// the incident face is the other box's face most anti-parallel to it; clip incident against the
// reference side planes, keep points below margin with gap = height above the reference face.
// Edge axis: one contact at the closest points of the two support edges.
TB_HD int tbg_collideBoxBox(const tbGeomPose* a, const tbGeomPose* b, double margin,
                            tbContactPoint* out) {
  double ua[9], ub[9], d[3];
  tbg_axes(ua, a->quat);
  tbg_axes(ub, b->quat);
  const double *ha = a->size, *hb = b->size;
  tbu_sub3(d, a->pos, b->pos);
  double scale = 0.0;
  for (int k = 0; k < 3; k++) {
    scale = ha[k] > scale ? ha[k] : scale;
    scale = hb[k] > scale ? hb[k] : scale;
  }

  // SAT. Boxes separated by more than margin along any axis have no contact below margin.
  double sepA = -1e300, sepB = -1e300, sepE = -1e300, smax = -1e300;
  int kA = 0, kB = 0, kE = 0;
  for (int k = 0; k < 3; k++) {
    double s = tbg_boxSep(ua + 3 * k, d, ua, ha, ub, hb);
    if (s > sepA) {
      sepA = s;
      kA = k;
    }
    s = tbg_boxSep(ub + 3 * k, d, ua, ha, ub, hb);
    if (s > sepB) {
      sepB = s;
      kB = k;
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double L[3];
      tbu_cross3(L, ua + 3 * i, ub + 3 * j);
      if (tbu_normalize3(L) < 1e-6) continue;  // near-parallel edges: the face axes cover it
      double s = tbg_boxSep(L, d, ua, ha, ub, hb);
      if (s > sepE) {
        sepE = s;
        kE = 3 * i + j;
      }
    }
  }
  smax = sepA > sepB ? sepA : sepB;
  smax = sepE > smax ? sepE : smax;
  if (smax > margin) return 0;

  // least penetration, biased A-face < B-face < edge so ties and round-off keep a resting face
  // contact on the same (face) axis from step to step
  int mode = 0;  // 0: face of a, 1: face of b, 2: edge-edge
  double best = sepA;
  if (sepB > best + TBG_FACE_BIAS * scale) {
    mode = 1;
    best = sepB;
  }
  if (sepE > best + 1e-5 * scale) {
    mode = 2;
    best = sepE;
  }

  double n[3];  // contact normal b -> a
  if (mode == 2) {
    tbu_cross3(n, ua + 3 * (kE / 3), ub + 3 * (kE % 3));
    tbu_normalize3(n);
  } else {
    tbu_copy3(n, mode == 0 ? ua + 3 * kA : ub + 3 * kB);
  }
  if (tbu_dot3(n, d) < 0.0) tbu_scl3(n, n, -1.0);

  if (mode == 2) {
    // support edges: a's extreme edge along -n, b's along +n
    int i = kE / 3, j = kE % 3;
    double ea[3], eb[3], p1[3], d1[3], p2[3], d2[3], s, t, pa[3], pb[3];
    tbu_copy3(ea, a->pos);
    tbu_copy3(eb, b->pos);
    for (int k = 0; k < 3; k++) {
      if (k != i) tbu_addscl3(ea, ea, ua + 3 * k, tbu_dot3(ua + 3 * k, n) > 0.0 ? -ha[k] : ha[k]);
      if (k != j) tbu_addscl3(eb, eb, ub + 3 * k, tbu_dot3(ub + 3 * k, n) > 0.0 ? hb[k] : -hb[k]);
    }
    tbu_addscl3(p1, ea, ua + 3 * i, -ha[i]);
    tbu_scl3(d1, ua + 3 * i, 2.0 * ha[i]);
    tbu_addscl3(p2, eb, ub + 3 * j, -hb[j]);
    tbu_scl3(d2, ub + 3 * j, 2.0 * hb[j]);
    tbg_segSeg(p1, d1, p2, d2, &s, &t);
    tbu_addscl3(pa, p1, d1, s);
    tbu_addscl3(pb, p2, d2, t);
    return tbg_emit(out, pa, pb, n, 0, 64 + kE, margin);
  }

  // reference box R (owner of the face axis) and incident box I
  const tbGeomPose* R = mode == 0 ? a : b;
  const tbGeomPose* I = mode == 0 ? b : a;
  const double* uR = mode == 0 ? ua : ub;
  const double* uI = mode == 0 ? ub : ua;
  const double *hR = R->size, *hI = I->size;
  int k = mode == 0 ? kA : kB, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  double nr[3];  // outward normal of the reference face (points at the incident box)
  tbu_scl3(nr, n, mode == 0 ? -1.0 : 1.0);
  double sR = tbu_dot3(uR + 3 * k, nr) > 0.0 ? 1.0 : -1.0;
  double cr[3];
  tbu_addscl3(cr, R->pos, uR + 3 * k, sR * hR[k]);

  int j = 0;
  double bestDot = -1.0;
  for (int m = 0; m < 3; m++) {
    double c = fabs(tbu_dot3(uI + 3 * m, nr));
    if (c > bestDot) {
      bestDot = c;
      j = m;
    }
  }
  int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
  double sI = tbu_dot3(uI + 3 * j, nr) > 0.0 ? -1.0 : 1.0;

  tbgClipVert poly[TBG_CLIPMAX], tmp[TBG_CLIPMAX];
  const double s1v[4] = {1.0, -1.0, -1.0, 1.0}, s2v[4] = {1.0, 1.0, -1.0, -1.0};
  for (int v = 0; v < 4; v++) {
    double p[3], q[3];
    tbu_addscl3(p, I->pos, uI + 3 * j, sI * hI[j]);
    tbu_addscl3(p, p, uI + 3 * j1, s1v[v] * hI[j1]);
    tbu_addscl3(p, p, uI + 3 * j2, s2v[v] * hI[j2]);
    tbu_sub3(q, p, cr);
    poly[v].x = tbu_dot3(q, uR + 3 * k1);
    poly[v].y = tbu_dot3(q, uR + 3 * k2);
    poly[v].z = tbu_dot3(q, nr);
    poly[v].in = (v + 3) % 4;  // the incident face's edge v runs from corner v to corner v + 1
    poly[v].out = v;
  }
  double snap = 1e-6 * scale;  // round-off and drift of the poses, not a distance that matters
  int np = 4;
  np = tbg_clipSide(poly, np, tmp, 0, 1.0, hR[k1], snap, 0);
  np = tbg_clipSide(tmp, np, poly, 0, -1.0, hR[k1], snap, 1);
  np = tbg_clipSide(poly, np, tmp, 1, 1.0, hR[k2], snap, 2);
  np = tbg_clipSide(tmp, np, poly, 1, -1.0, hR[k2], snap, 3);

  // keep the points below margin (compacted in place, order preserved)
  int nk = 0;
  for (int v = 0; v < np; v++) {
    if (poly[v].z < margin) poly[nk++] = poly[v];
  }
  // more than fit: the deepest point, then repeatedly the point farthest from those chosen
  // (spans the area); lowest index wins ties, so the subset is deterministic
  int keep[TBG_CLIPMAX];
  for (int v = 0; v < nk; v++) keep[v] = nk <= TB_MAXCON_PAIR;
  if (nk > TB_MAXCON_PAIR) {
    int deep = 0;
    for (int v = 1; v < nk; v++) {
      if (poly[v].z < poly[deep].z) deep = v;
    }
    keep[deep] = 1;
    for (int c = 1; c < TB_MAXCON_PAIR; c++) {
      int pick = -1;
      double pickD = -1.0;
      for (int v = 0; v < nk; v++) {
        if (keep[v]) continue;
        double dmin = 1e300;
        for (int w = 0; w < nk; w++) {
          if (!keep[w]) continue;
          double dx = poly[v].x - poly[w].x, dy = poly[v].y - poly[w].y;
          double dd = dx * dx + dy * dy;
          dmin = dd < dmin ? dd : dmin;
        }
        if (dmin > pickD) {
          pickD = dmin;
          pick = v;
        }
      }
      keep[pick] = 1;
    }
  }

  int nc = 0;
  for (int v = 0; v < nk; v++) {
    if (!keep[v]) continue;
    double ps[3], pi[3];  // on the reference surface, and the incident point above/below it
    tbu_addscl3(ps, cr, uR + 3 * k1, poly[v].x);
    tbu_addscl3(ps, ps, uR + 3 * k2, poly[v].y);
    tbu_addscl3(pi, ps, nr, poly[v].z);
    nc += tbg_emit(out + nc, mode == 0 ? ps : pi, mode == 0 ? pi : ps, n, 0,
                   tbg_clipFeature(&poly[v]), margin);
  }
  return nc;
}

//---- prisms (planar scenes) --------------------------------------------------------------------

// world xy of a prism's core vertices; the prism's z axis is vertical (planar bodies turn about
// z only), so the shape frame's rotation restricted to xy is a planar rotation
TB_HD void tbg_prismWorld(const tbGeomPose* g, double* world) {
  const double ex[3] = {1.0, 0.0, 0.0};
  double x[3];
  tbu_rotVec(x, g->quat, ex);
  double inv = 1.0 / sqrt(x[0] * x[0] + x[1] * x[1]);
  const double t[2] = {g->pos[0], g->pos[1]};
  tbg2_transform(g->vert, g->nvert, x[0] * inv, x[1] * inv, t, world);
}

// the 2D contacts c2 of two prisms lifted to the height midway between them, each with its
// in-plane tangent, so that a planar body's friction has one row; those with gap >= keep are left
TB_HD int tbg_liftPrismContacts(const tbGeomPose* a, const tbGeomPose* b, const tbContact2* c2,
                                int n2, double keep, tbContactPoint* out) {
  double z = 0.5 * (a->pos[2] + b->pos[2]);
  int nc = 0;
  for (int i = 0; i < n2; i++) {
    const double pa[3] = {c2[i].pa[0], c2[i].pa[1], z}, pb[3] = {c2[i].pb[0], c2[i].pb[1], z};
    const double n[3] = {c2[i].n[0], c2[i].n[1], 0.0}, t[3] = {-c2[i].n[1], c2[i].n[0], 0.0};
    nc += tbg_emit(out + nc, pa, pb, n, t, c2[i].feature, keep);
  }
  return nc;
}

// two prisms meet in the plane (tbg2_collide)
TB_HD int tbg_collidePrismPrism(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                tbContactPoint* out) {
  double va[2 * TB_MAXVERT2D], vb[2 * TB_MAXVERT2D];
  tbg_prismWorld(a, va);
  tbg_prismWorld(b, vb);
  tbContact2 c2[2];
  int n2 = tbg2_collide(va, a->nvert, a->size[0], vb, b->nvert, b->size[0], margin, c2);
  return tbg_liftPrismContacts(a, b, c2, n2, margin, out);
}

// two prisms meet in the plane with disjunctive corners (tbg2_corners): a corner pair's members
// are kept whatever their gaps, the ordinary contacts only below the margin (tbg2_collide's own)
TB_HD int tbg_collidePrismCorners(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                  tbContactPoint* out) {
  double va[2 * TB_MAXVERT2D], vb[2 * TB_MAXVERT2D];
  tbg_prismWorld(a, va);
  tbg_prismWorld(b, vb);
  tbContact2 c2[2 + 2 * TB_CORNER2D_MAX];
  int n2 = tbg2_corners(va, a->nvert, a->size[0], vb, b->nvert, b->size[0], margin, c2);
  return tbg_liftPrismContacts(a, b, c2, n2, INFINITY, out);
}

//---- public entry points -----------------------------------------------------------------------

// 1 when pl is a plane and shape s, whose surface lies within `reach` of its frame origin, is
// wholly beyond pl's margin: tbu_collide would find no contact. A bounding-sphere test never
// culls a plane (its reach is infinite); the pendulum's links or a stack's upper boxes far above
// the ground cost a narrowphase each step otherwise. 1 nm of slack leaves a shape whose distance
// rounds to the margin to the narrowphase.
TB_HD int tbg_clearOfPlane(const tbGeomPose* pl, const tbGeomPose* s, double reach, double margin) {
  if (pl->type != TB_GEOM_PLANE || s->type == TB_GEOM_PLANE) return 0;
  const double ez[3] = {0.0, 0.0, 1.0};
  double n[3], d[3];
  tbu_rotVec(n, pl->quat, ez);
  tbu_sub3(d, s->pos, pl->pos);
  return tbu_dot3(n, d) > reach + margin + 1e-9;
}

#endif  // TUMBLE_COLLIDE_GEOM_H_

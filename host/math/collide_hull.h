// Contact with convex polyhedra (TB_GEOM_MESH, tbHull): against a plane every corner below the
// margin; against a sphere the closest point of the polyhedron to its centre, and against a
// capsule its ends' and the segment's nearest point's (as capsule-box); against a box
// (seen as a polyhedron) or another polyhedron the separating-axis test over both shapes' face
// normals and the edge pairs that build a face of their Minkowski difference (Gregorius, "The
// Separating Axis Test between Convex Polyhedra", GDC 2013), then the incident face clipped
// against the reference face's sides (a face touching a face gets its corners, as box-box) or
// the closest points of the two edges. Conventions as collide_geom.h; plain C, fixed-size
// locals, the same on host and device. The pair entries are TB_HDN: their clipping buffers and
// spills stay out of the frames of scenes without meshes.
#ifndef TUMBLE_COLLIDE_HULL_H_
#define TUMBLE_COLLIDE_HULL_H_

#include <math.h>

#include "math/collide_geom.h"
#include "math/tb_math.h"

//---- the parts in the world --------------------------------------------------------------------

TB_HD void tbh_vert(const tbGeomPose* g, int i, double w[3]) {
  tbu_rotVec(w, g->quat, g->hull.vert + 3 * i);
  tbu_add3(w, w, g->pos);
}

// face f's outward unit normal n and offset d in the world (n . x = d on the face)
TB_HD void tbh_plane(const tbGeomPose* g, int f, double n[3], double* d) {
  tbu_rotVec(n, g->quat, g->hull.plane + 4 * f);
  *d = g->hull.plane[4 * f + 3] + tbu_dot3(n, g->pos);
}

// the corners' smallest n . x (world n): the polyhedron's support along -n
TB_HD double tbh_lowest(const tbGeomPose* g, const double n[3]) {
  double l[3];
  tbu_rotVecInv(l, g->quat, n);
  double lo = INFINITY;
  for (int i = 0; i < g->hull.nvert; i++) {
    double s = tbu_dot3(l, g->hull.vert + 3 * i);
    lo = s < lo ? s : lo;
  }
  return lo + tbu_dot3(n, g->pos);
}

//---- a box as a polyhedron ---------------------------------------------------------------------

// storage of a box's polyhedron (tbh_boxHull)
typedef struct tbBoxHull {
  double vert[24], plane[24];
  int facevertadr[6], facenvert[6], facevert[24], edge[48];
} tbBoxHull;

// a box of half-sizes h as a polyhedron: corner i has bit k set on the + side along axis k;
// faces -x, +x, -y, +y, -z, +z
TB_HD void tbh_boxHull(const double h[3], tbBoxHull* s, tbHull* out) {
  const int fv[24] = {0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6};
  const int ev[48] = {0, 1, 2, 4, 2, 3, 3, 4, 4, 5, 2, 5, 6, 7, 3, 5, 0, 2, 0, 4, 1, 3, 1, 4,
                      4, 6, 0, 5, 5, 7, 1, 5, 0, 4, 0, 2, 1, 5, 1, 2, 2, 6, 0, 3, 3, 7, 1, 3};
  for (int i = 0; i < 8; i++) {
    for (int k = 0; k < 3; k++) s->vert[3 * i + k] = ((i >> k) & 1) ? h[k] : -h[k];
  }
  for (int f = 0; f < 6; f++) {
    for (int k = 0; k < 3; k++) s->plane[4 * f + k] = k == f / 2 ? (f & 1 ? 1.0 : -1.0) : 0.0;
    s->plane[4 * f + 3] = h[f / 2];
    s->facevertadr[f] = 4 * f;
    s->facenvert[f] = 4;
  }
  for (int i = 0; i < 24; i++) s->facevert[i] = fv[i];
  for (int i = 0; i < 48; i++) s->edge[i] = ev[i];
  out->nvert = 8;
  out->nface = 6;
  out->nedge = 12;
  out->vert = s->vert;
  out->plane = s->plane;
  out->facevertadr = s->facevertadr;
  out->facenvert = s->facenvert;
  out->facevert = s->facevert;
  out->edge = s->edge;
}

//---- a manifold of at most TB_MAXCON_PAIR points -----------------------------------------------

TB_HD double tbh_area2(const double a[3], const double b[3], const double c[3], const double n[3]) {
  double u[3], v[3], x[3];
  tbu_sub3(u, b, a);
  tbu_sub3(v, c, a);
  tbu_cross3(x, u, v);
  return fabs(tbu_dot3(x, n));
}

// clipped incident corner p as a contact against the reference plane (unit n, offset d): its
// depth, and the points on the pair's a and b (ref_is_b: the reference face is b's)
TB_HD double tbh_onPlanes(const double p[3], const double n[3], double d, int ref_is_b,
                          double pa[3], double pb[3]) {
  double depth = tbu_dot3(n, p) - d, on[3];
  tbu_addscl3(on, p, n, -depth);
  tbu_copy3(ref_is_b ? pa : pb, p);
  tbu_copy3(ref_is_b ? pb : pa, on);
  return depth;
}

// the clipped corners pt (np of them) below margin, as contacts with normal m (b -> a); past
// TB_MAXCON_PAIR of them, four that span the patch: the deepest, the farthest from it, the one
// making the largest triangle with them, and the one that adds the most area to that triangle
TB_HD int tbh_keep(const double (*pt)[3], int np, const double n[3], double d, int ref_is_b,
                   int feature0, double margin, tbContactPoint* out) {
  double m[3], pa[3], pb[3];
  tbu_scl3(m, n, ref_is_b ? 1.0 : -1.0);
  int below = 0, pick[4] = {-1, -1, -1, -1};
  for (int i = 0; i < np; i++) below += tbu_dot3(n, pt[i]) - d < margin;
  for (int j = 0; j < 4 && below > TB_MAXCON_PAIR; j++) {
    double best = -INFINITY;
    for (int i = 0; i < np; i++) {
      double s = tbu_dot3(n, pt[i]) - d, score, e[3] = {0.0, 0.0, 0.0};
      if (!(s < margin)) continue;
      if (j == 1) tbu_sub3(e, pt[i], pt[pick[0]]);
      score = j == 0   ? -s
              : j == 1 ? tbu_dot3(e, e)
              : j == 2 ? tbh_area2(pt[pick[0]], pt[pick[1]], pt[i], n)
                       : tbh_area2(pt[pick[0]], pt[pick[1]], pt[i], n) +
                             tbh_area2(pt[pick[1]], pt[pick[2]], pt[i], n) +
                             tbh_area2(pt[pick[2]], pt[pick[0]], pt[i], n);
      if (score > best) best = score, pick[j] = i;
    }
  }
  int k = 0;
  for (int i = 0; i < np; i++) {
    int j = 0;
    while (j < 4 && pick[j] != i) j++;
    if (below > TB_MAXCON_PAIR && j == 4) continue;
    tbh_onPlanes(pt[i], n, d, ref_is_b, pa, pb);
    k += tbg_emit(out + k, pa, pb, m, NULL, feature0 + (k < 8 ? k : 7), margin);
  }
  return k;
}

//---- plane and sphere --------------------------------------------------------------------------

// corner i of mesh b off the plane (through o, unit normal n): its height, and it (world)
TB_HD double tbh_height(const tbGeomPose* b, int i, const double o[3], const double n[3],
                        double v[3]) {
  double d[3];
  tbh_vert(b, i, v);
  tbu_sub3(d, v, o);
  return tbu_dot3(d, n);
}

// every corner of the mesh b below margin off the plane a, with the plane's x axis as the
// contacts' tangent; past TB_MAXCON_PAIR of them, the four that span the patch (tbh_keep's rule,
// over the corners in turn: a mesh's flat face may hold hundreds)
TB_HDN int tbh_collidePlaneMesh(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                tbContactPoint* out) {
  const double ez[3] = {0.0, 0.0, 1.0}, ex[3] = {1.0, 0.0, 0.0};
  double n[3], tx[3], m[3], v[3];
  tbu_rotVec(n, a->quat, ez);
  tbu_rotVec(tx, a->quat, ex);
  tbu_scl3(m, n, -1.0);  // from the mesh to the plane
  int below = 0, pick[4] = {-1, -1, -1, -1};
  for (int i = 0; i < b->hull.nvert; i++) below += tbh_height(b, i, a->pos, n, v) < margin;
  for (int j = 0; j < 4 && below > TB_MAXCON_PAIR; j++) {
    double best = -INFINITY, p[4][3];
    for (int k = 0; k < j; k++) tbh_height(b, pick[k], a->pos, n, p[k]);
    for (int i = 0; i < b->hull.nvert; i++) {
      double s = tbh_height(b, i, a->pos, n, v), score, d[3] = {0.0, 0.0, 0.0};
      if (!(s < margin)) continue;
      if (j == 1) tbu_sub3(d, v, p[0]);
      score = j == 0   ? -s
              : j == 1 ? tbu_dot3(d, d)
              : j == 2 ? tbh_area2(p[0], p[1], v, n)
                       : tbh_area2(p[0], p[1], v, n) + tbh_area2(p[1], p[2], v, n) +
                             tbh_area2(p[2], p[0], v, n);
      if (score > best) best = score, pick[j] = i;
    }
  }
  int k = 0;
  for (int i = 0; i < b->hull.nvert; i++) {
    int j = 0;
    while (j < 4 && pick[j] != i) j++;
    if (below > TB_MAXCON_PAIR && j == 4) continue;
    double s = tbh_height(b, i, a->pos, n, v), pa[3];
    tbu_addscl3(pa, v, n, -s);
    if (tbg_emit(out + k, pa, v, m, tx, i % TB_NFEATURE, margin)) k++;
  }
  return k;
}

// 1 when local point q on face f's plane is inside the face (its corners counter-clockwise)
TB_HD int tbh_inFace(const tbHull* h, int f, const double q[3]) {
  const double* n = h->plane + 4 * f;
  int adr = h->facevertadr[f], nv = h->facenvert[f];
  for (int j = 0; j < nv; j++) {
    const double *u = h->vert + 3 * h->facevert[adr + j],
                 *v = h->vert + 3 * h->facevert[adr + (j + 1) % nv];
    double e[3], r[3], x[3];
    tbu_sub3(e, v, u);
    tbu_sub3(r, q, u);
    tbu_cross3(x, e, r);
    if (tbu_dot3(x, n) < 0.0) return 0;
  }
  return 1;
}

// the polyhedron's closest point q (local) to local point c outside it, and its distance
TB_HD double tbh_closestOutside(const tbHull* h, const double c[3], double q[3]) {
  double best = INFINITY;
  for (int f = 0; f < h->nface; f++) {
    const double* n = h->plane + 4 * f;
    double s = tbu_dot3(n, c) - n[3], y[3];
    if (s <= 0.0) continue;
    tbu_addscl3(y, c, n, -s);
    if (s < best && tbh_inFace(h, f, y)) best = s, tbu_copy3(q, y);
  }
  for (int e = 0; e < h->nedge; e++) {
    const double *u = h->vert + 3 * h->edge[4 * e], *v = h->vert + 3 * h->edge[4 * e + 1];
    double d[3], r[3], y[3], z[3];
    tbu_sub3(d, v, u);
    tbu_sub3(r, c, u);
    double t = tbu_dot3(r, d) / tbu_dot3(d, d);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    tbu_addscl3(y, u, d, t);
    tbu_sub3(z, c, y);
    double s = tbu_norm3(z);
    if (s < best) best = s, tbu_copy3(q, y);
  }
  return best;
}

// a point c (world) inflated by r against the mesh b: the hull's closest point (from inside,
// out through the nearest face); the normal from b to the point
TB_HD int tbh_pointMesh(const double c[3], double r, const tbGeomPose* b, int feature,
                        double margin, tbContactPoint* out) {
  const tbHull* h = &b->hull;
  double d[3], l[3];
  tbu_sub3(d, c, b->pos);
  tbu_rotVecInv(l, b->quat, d);
  double smax = -INFINITY;
  int fmax = 0;
  for (int f = 0; f < h->nface; f++) {
    double s = tbu_dot3(h->plane + 4 * f, l) - h->plane[4 * f + 3];
    if (s > smax) smax = s, fmax = f;
  }
  if (smax > r + margin) return 0;  // the distance is at least the largest face separation
  double q[3] = {l[0], l[1], l[2]}, nl[3];
  if (smax <= 0.0) {
    tbu_copy3(nl, h->plane + 4 * fmax);
    tbu_addscl3(q, l, nl, -smax);
  } else {
    double dist = tbh_closestOutside(h, l, q);
    tbu_sub3(nl, l, q);
    tbu_scl3(nl, nl, 1.0 / dist);
  }
  double n[3], pb[3], pa[3];
  tbu_rotVec(n, b->quat, nl);
  tbu_rotVec(pb, b->quat, q);
  tbu_add3(pb, pb, b->pos);
  tbu_addscl3(pa, c, n, -r);
  return tbg_emit(out, pa, pb, n, NULL, feature, margin);
}

TB_HDN int tbh_collideSphereMesh(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                 tbContactPoint* out) {
  return tbh_pointMesh(a->pos, a->size[0], b, 0, margin, out);
}

// the signed distance of local point l to the polyhedron: inside, the nearest face's (negative);
// outside, to its closest point. Convex, as a convex set's signed distance is
TB_HD double tbh_sdf(const tbHull* h, const double l[3]) {
  double smax = -INFINITY, q[3];
  for (int f = 0; f < h->nface; f++) {
    double s = tbu_dot3(h->plane + 4 * f, l) - h->plane[4 * f + 3];
    smax = s > smax ? s : smax;
  }
  return smax <= 0.0 ? smax : tbh_closestOutside(h, l, q);
}

// as capsule-box (collide_geom.h): both segment ends as spheres (features 0, 1), and the segment
// point nearest the mesh where it lies clearly inside the segment (feature 2), found by a
// fixed-count golden-section search on the convex signed distance
TB_HDN int tbh_collideCapsuleMesh(const tbGeomPose* a, const tbGeomPose* b, double margin,
                                  tbContactPoint* out) {
  double c[3], u[3], L, p[3];
  tbg_capsuleSeg(a, c, u, &L);
  double r = a->size[0];
  int n = 0;
  tbu_addscl3(p, c, u, -L);
  n += tbh_pointMesh(p, r, b, 0, margin, out + n);
  tbu_addscl3(p, c, u, L);
  n += tbh_pointMesh(p, r, b, 1, margin, out + n);
  if (!(L > 0.0)) return n;
  double d[3], lc[3], lu[3], l[3];
  tbu_sub3(d, c, b->pos);
  tbu_rotVecInv(lc, b->quat, d);
  tbu_rotVecInv(lu, b->quat, u);
  const double g = 0.6180339887498949;  // (sqrt 5 - 1) / 2
  double lo = -L, hi = L, x[2] = {L - g * 2.0 * L, -L + g * 2.0 * L}, f[2];
  for (int k = 0; k < 2; k++) {
    tbu_addscl3(l, lc, lu, x[k]);
    f[k] = tbh_sdf(&b->hull, l);
  }
  for (int it = 0; it < 64; it++) {  // the interval shrinks by 0.618^64 ~ 4e-14
    int left = f[0] <= f[1];
    if (left) {
      hi = x[1], x[1] = x[0], f[1] = f[0], x[0] = hi - g * (hi - lo);
    } else {
      lo = x[0], x[0] = x[1], f[0] = f[1], x[1] = lo + g * (hi - lo);
    }
    tbu_addscl3(l, lc, lu, x[left ? 0 : 1]);
    f[left ? 0 : 1] = tbh_sdf(&b->hull, l);
  }
  double sm = 0.5 * (lo + hi), fe[2];
  tbu_addscl3(l, lc, lu, sm);
  double fm = tbh_sdf(&b->hull, l);
  for (int k = 0; k < 2; k++) {
    tbu_addscl3(l, lc, lu, k ? L : -L);
    fe[k] = tbh_sdf(&b->hull, l);
  }
  // a flat or end-attained minimum is the end contacts' (the de-duplication)
  double reach = 0.0;
  for (int i = 0; i < b->hull.nvert; i++) reach = fmax(reach, tbu_norm3(b->hull.vert + 3 * i));
  if (fm < fmin(fe[0], fe[1]) - 1e-7 * (L + r + reach)) {
    tbu_addscl3(p, c, u, sm);
    n += tbh_pointMesh(p, r, b, 2, margin, out + n);
  }
  return n;
}

//---- two polyhedra -----------------------------------------------------------------------------

// the deepest separation along a's face normals: its face *f and the value (b's support there);
// the first above stop ends the search (the pair is apart: a gripper's closed fingers and its
// palm over the part, two of its four mesh pairs, pay for one face each)
TB_HD double tbh_faceQuery(const tbGeomPose* a, const tbGeomPose* b, double stop, int* f) {
  double best = -INFINITY;
  *f = 0;
  for (int i = 0; i < a->hull.nface; i++) {
    double n[3], d;
    tbh_plane(a, i, n, &d);
    double s = tbh_lowest(b, n) - d;
    if (s > best) best = s, *f = i;
    if (best > stop) break;
  }
  return best;
}

// 1 when the arcs (a, b) and (c, d) of the two Gauss maps cross: edges whose cross product is an
// axis to test (c and d are the other shape's normals, negated by the caller; bxa = b x a, the
// caller's once per arc (a, b)). c and d on one side of (a, b)'s plane end it after two dot
// products: most pairs
TB_HD int tbh_minkowskiFace(const double a[3], const double b[3], const double bxa[3],
                            const double c[3], const double d[3]) {
  double cba = tbu_dot3(c, bxa), dba = tbu_dot3(d, bxa);
  if (!(cba * dba < 0.0)) return 0;
  double dxc[3];
  tbu_cross3(dxc, d, c);
  double adc = tbu_dot3(a, dxc), bdc = tbu_dot3(b, dxc);
  return adc * bdc < 0.0 && cba * bdc > 0.0;
}

// the largest separation along edge-pair axes (pointing out of a): edges *ea, *eb and the axis.
// The Gauss maps' test runs in b's frame (a's two normals turned into it once per edge of a), so
// the edge pairs it prunes cost no rotation: on two 20-face meshes it was a quarter of a grasp's
// step with every pair's normals turned into the world
TB_HD double tbh_edgeQuery(const tbGeomPose* a, const tbGeomPose* b, int* ea, int* eb,
                           double axis[3]) {
  double best = -INFINITY;
  *ea = *eb = -1;
  for (int i = 0; i < a->hull.nedge; i++) {
    const int* x = a->hull.edge + 4 * i;
    double p[3], q[3], u[3], na[3], nb[3], dd;
    tbh_vert(a, x[0], p);
    tbh_vert(a, x[1], q);
    tbu_sub3(u, q, p);
    tbh_plane(a, x[2], na, &dd);
    tbh_plane(a, x[3], nb, &dd);
    double la[3], lb[3], bxa[3];  // in b's frame
    tbu_rotVecInv(la, b->quat, na);
    tbu_rotVecInv(lb, b->quat, nb);
    tbu_cross3(bxa, lb, la);
    for (int j = 0; j < b->hull.nedge; j++) {
      const int* y = b->hull.edge + 4 * j;
      const double* pc = b->hull.plane + 4 * y[2];
      const double* pd = b->hull.plane + 4 * y[3];
      const double c[3] = {-pc[0], -pc[1], -pc[2]}, d[3] = {-pd[0], -pd[1], -pd[2]};
      if (!tbh_minkowskiFace(la, lb, bxa, c, d)) continue;
      double r[3], s[3], v[3], L[3];
      tbh_vert(b, y[0], r);
      tbh_vert(b, y[1], s);
      tbu_sub3(v, s, r);
      tbu_cross3(L, u, v);
      double len = tbu_norm3(L);
      if (len < 1e-9 * tbu_norm3(u) * tbu_norm3(v)) continue;  // parallel edges: a face's axis
      tbu_scl3(L, L, 1.0 / len);
      double o[3], w[3];
      tbu_sub3(o, p, a->pos);
      if (tbu_dot3(L, o) < 0.0) tbu_scl3(L, L, -1.0);
      tbu_sub3(w, r, p);
      double sep = tbu_dot3(L, w);
      if (sep > best) best = sep, *ea = i, *eb = j, tbu_copy3(axis, L);
    }
  }
  return best;
}

// Sutherland-Hodgman: the points of in (n of them) on the inner side of the plane s . x <= e
TB_HD int tbh_clip(const double (*in)[3], int n, const double s[3], double e, double (*out)[3]) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    const double *p = in[i], *q = in[(i + 1) % n];
    double dp = tbu_dot3(s, p) - e, dq = tbu_dot3(s, q) - e;
    if (dp <= 0.0) tbu_copy3(out[k++], p);
    if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) {
      double t = dp / (dp - dq), r[3];
      tbu_sub3(r, q, p);
      tbu_addscl3(out[k++], p, r, t);
    }
  }
  return k;
}

// the face of inc most against unit n (world)
TB_HD int tbh_incident(const tbGeomPose* inc, const double n[3]) {
  double lo = INFINITY, m[3], d;
  int best = 0;
  for (int f = 0; f < inc->hull.nface; f++) {
    tbh_plane(inc, f, m, &d);
    double c = tbu_dot3(m, n);
    if (c < lo) lo = c, best = f;
  }
  return best;
}

// face fr of ref against the incident face of inc: the incident corners clipped to ref's face,
// each below margin; ref_is_b: ref is the pair's b (the normal b -> a is then ref's)
TB_HD int tbh_faceContact(const tbGeomPose* ref, int fr, const tbGeomPose* inc, int ref_is_b,
                          double margin, tbContactPoint* out) {
  double n[3], d;
  tbh_plane(ref, fr, n, &d);
  int fi = tbh_incident(inc, n);
  double buf[2][2 * TB_MAXFACEVERT][3];
  int adr = inc->hull.facevertadr[fi], np = inc->hull.facenvert[fi], cur = 0;
  for (int j = 0; j < np; j++) tbh_vert(inc, inc->hull.facevert[adr + j], buf[0][j]);
  int radr = ref->hull.facevertadr[fr], nr = ref->hull.facenvert[fr];
  for (int j = 0; j < nr && np > 0; j++) {
    double u[3], v[3], e[3], s[3];
    tbh_vert(ref, ref->hull.facevert[radr + j], u);
    tbh_vert(ref, ref->hull.facevert[radr + (j + 1) % nr], v);
    tbu_sub3(e, v, u);
    tbu_cross3(s, e, n);  // out of the face through this side
    double len = tbu_norm3(s);
    if (len == 0.0) continue;
    tbu_scl3(s, s, 1.0 / len);
    np = tbh_clip((const double(*)[3])buf[cur], np, s, tbu_dot3(s, u), buf[1 - cur]);
    cur = 1 - cur;
  }
  return tbh_keep((const double(*)[3])buf[cur], np, n, d, ref_is_b, ref_is_b ? 8 : 16, margin, out);
}

// the closest points of edges ea (of a) and eb (of b), the normal against axis (out of a)
TB_HD int tbh_edgeContact(const tbGeomPose* a, int ea, const tbGeomPose* b, int eb,
                          const double axis[3], double margin, tbContactPoint* out) {
  double p[3], q[3], r[3], s[3], u[3], v[3], pa[3], pb[3], n[3], ta, tb;
  tbh_vert(a, a->hull.edge[4 * ea], p);
  tbh_vert(a, a->hull.edge[4 * ea + 1], q);
  tbh_vert(b, b->hull.edge[4 * eb], r);
  tbh_vert(b, b->hull.edge[4 * eb + 1], s);
  tbu_sub3(u, q, p);
  tbu_sub3(v, s, r);
  tbg_segSeg(p, u, r, v, &ta, &tb);
  tbu_addscl3(pa, p, u, ta);
  tbu_addscl3(pb, r, v, tb);
  tbu_scl3(n, axis, -1.0);
  return tbg_emit(out, pa, pb, n, NULL, 79, margin);
}

// two polyhedra (normal from b to a): no contact where an axis separates them by the margin;
// else a face's manifold unless an edge pair's axis separates them clearly more
TB_HDN int tbh_collideHulls(const tbGeomPose* a, const tbGeomPose* b, double margin,
                            tbContactPoint* out) {
  int fa, fb, ea, eb;
  double axis[3] = {0.0, 0.0, 0.0};
  double sa = tbh_faceQuery(a, b, margin, &fa);
  if (sa > margin) return 0;
  double sb = tbh_faceQuery(b, a, margin, &fb);
  if (sb > margin) return 0;
  double se = tbh_edgeQuery(a, b, &ea, &eb, axis);
  if (se > margin) return 0;
  double sf = sa > sb ? sa : sb;
  // a face is preferred within 5% of the depth: edge axes that barely win flicker between steps
  if (ea >= 0 && se > sf + 0.05 * fabs(sf) + 1e-12)
    return tbh_edgeContact(a, ea, b, eb, axis, margin, out);
  return sa >= sb ? tbh_faceContact(a, fa, b, 0, margin, out)
                  : tbh_faceContact(b, fb, a, 1, margin, out);
}

TB_HD int tbh_collideMeshMesh(const tbGeomPose* a, const tbGeomPose* b, double margin,
                              tbContactPoint* out) {
  return tbh_collideHulls(a, b, margin, out);
}

TB_HDN int tbh_collideBoxMesh(const tbGeomPose* a, const tbGeomPose* b, double margin,
                              tbContactPoint* out) {
  tbGeomPose box = *a;
  tbBoxHull s;
  tbh_boxHull(a->size, &s, &box.hull);
  return tbh_collideHulls(&box, b, margin, out);
}

#endif  // TUMBLE_COLLIDE_HULL_H_

// Planar contact geometry (2D narrow phase) between rounded convex polygons, shared by the CPU
// path and the CUDA kernels. The planar ("2.5D") model moves bodies in x, y and yaw and extrudes
// 2D shapes; its glue poses the shapes in the world (tbg2_transform) and lifts these 2D
// contacts to 3D. Nothing here knows about bodies.
//
// Conventions
//   * A shape is a core inflated by a radius r >= 0. The core is n vertices (x, y pairs, world
//     frame, counter-clockwise): n = 1 a point (the shape is a disc), n = 2 a segment (a stadium,
//     the 2D capsule), n >= 3 a strictly convex polygon (rounded if r > 0).
//   * Edge k runs from vertex k to vertex k+1 (mod n); its outward normal is the right
//     perpendicular of that direction. A segment is the 2-gon v0 -> v1 -> v0: two edges with
//     opposite normals, as in Box2D's capsule. A point has no edge.
//   * Contacts follow collide_geom.h: pa on the surface of a, pb on the surface of b, n the unit
//     normal from b to a, gap = (pa - pb).n (> 0 separated, < 0 penetrating); a contact is kept
//     only if gap < margin. pa and pb are core points stepped out by the radii along n, so the
//     gap is the core separation along n minus ra + rb.
//
// Algorithm
//   1. Closest features of the cores by brute force (n <= 16): every vertex-vertex pair and
//      every vertex in front of the interior of an edge. For separated cores the smallest of
//      these is the exact distance, and its direction u (b -> a) separates the cores; for
//      overlapping cores no direction does, which is the overlap test.
//   2. Separated. A vertex on the interior of an edge: that edge is the reference face. A
//      vertex-vertex pair (the rounded corner region): one contact along u, so the normal turns
//      continuously as one shape slides around the other's corner (the distance is C1 there),
//      with no extra points to make it bounce. If u is an edge normal at either vertex to within
//      tol sideways (exactly aligned parallel edges, e.g. equal boxes stacked flush), that edge
//      is the reference face instead.
//   3. Overlapping. Separating-axis test over every edge normal of both cores (a disc has none;
//      a stadium has its two): the face of least penetration is the reference face. Two discs
//      with coincident centres use +x.
//   4. Reference face (Box2D v3, b2ClipPolygons): the incident edge is the other core's edge
//      whose normal is most anti-parallel to the reference normal (a disc's point is its own
//      incident edge); the part of it between the reference edge's two side lines gives at most
//      two points, measured along the reference normal. Points closer than tol merge into one.
//
// Ties and features
//   * Exact ties go to a: a's faces before b's (closest-feature search and SAT), lower edge and
//     vertex indices first. Swapping a and b therefore gives the same contacts with n negated
//     and pa, pb exchanged (identical arithmetic) unless two candidate faces tie exactly. A tie
//     between a face of a and a face of b means parallel faces, whose clipped points are the
//     same either way; only their order (along the reference edge) is reversed.
//   * feature = 4 (ia & 3) + (ib & 3), where ia, ib are the vertices of a and b that name the
//     point: the two vertices of a vertex-vertex contact, or for a clipped point the reference
//     and incident vertices on its side (Box2D's (i11, i22), (i12, i21)). Naming by (vertex of
//     a, vertex of b) rather than by role keeps the features when the reference face passes
//     from one shape to the other (near-parallel stacking). Features are not symmetric under
//     swapping a and b: they transpose. The two points of one call get different features (the
//     second is bumped by one in the rare case of a 5-, 9- or 13-gon wrap where they collide).
//
// Everything is plain C (fixed-size locals, no recursion, no globals) so the same code runs on
// the host and on the device, and the results are a deterministic function of the inputs.
#ifndef TUMBLE_COLLIDE2D_H_
#define TUMBLE_COLLIDE2D_H_

#include <tumble/tumble.h>  // TB_MAXVERT2D

#include "math/tb_math.h"

typedef struct tbContact2 {
  double pa[2];  // point on the surface of a (world)
  double pb[2];  // point on the surface of b
  double n[2];   // unit normal pointing from b to a (moving a along n separates them)
  int feature;   // in [0, 15]; the two contacts of one call differ; stable while the same
                 // features touch (see "Ties and features" above)
} tbContact2;

//---- small helpers -----------------------------------------------------------------------------

// the gap between the axis-aligned boxes of cores a and b (at most their distance; 0 or less
// where the boxes overlap), and into *mag the largest |coordinate| of either
TB_HD double tbg2_boxGap(const double* va, int na, const double* vb, int nb, double* mag) {
  double lo[2][2], hi[2][2];
  *mag = 0.0;
  for (int s = 0; s < 2; s++) {
    const double* v = s == 0 ? va : vb;
    int n = s == 0 ? na : nb;
    for (int d = 0; d < 2; d++) {
      lo[s][d] = hi[s][d] = v[d];
      for (int i = 1; i < n; i++) {
        lo[s][d] = v[2 * i + d] < lo[s][d] ? v[2 * i + d] : lo[s][d];
        hi[s][d] = v[2 * i + d] > hi[s][d] ? v[2 * i + d] : hi[s][d];
      }
      double big = fabs(lo[s][d]) > fabs(hi[s][d]) ? fabs(lo[s][d]) : fabs(hi[s][d]);
      *mag = big > *mag ? big : *mag;
    }
  }
  double gap = 0.0;
  for (int d = 0; d < 2; d++) {
    double ab = lo[1][d] - hi[0][d], ba = lo[0][d] - hi[1][d];
    gap = ab > gap ? ab : gap;
    gap = ba > gap ? ba : gap;
  }
  return gap;
}

TB_HD double tbg2_dot(const double a[2], const double b[2]) {
  return a[0] * b[0] + a[1] * b[1];
}

TB_HD double tbg2_cross(const double a[2], const double b[2]) {
  return a[0] * b[1] - a[1] * b[0];
}

// edges of a core of n vertices: a point has none, a segment one per side
TB_HD int tbg2_numEdges(int n) {
  return n >= 2 ? n : 0;
}

// unit outward normal of edge k (vertex k -> k+1), the right perpendicular of its direction;
// sqrt rather than hypot (several times slower, and this runs per edge per pair per step):
// valid cores have edges far above sqrt(DBL_MIN)
TB_HD void tbg2_edgeNormal(const double* v, int n, int k, double nrm[2]) {
  int k1 = k + 1 < n ? k + 1 : 0;
  double dx = v[2 * k1] - v[2 * k], dy = v[2 * k1 + 1] - v[2 * k + 1];
  double len = sqrt(dx * dx + dy * dy);
  nrm[0] = dy / len;
  nrm[1] = -dx / len;
}

// largest distance from vertex 0 to another vertex: a length scale independent of position
TB_HD double tbg2_extent(const double* v, int n) {
  double e = 0.0;
  for (int i = 1; i < n; i++) {
    double dx = v[2 * i] - v[0], dy = v[2 * i + 1] - v[1];
    double d = sqrt(dx * dx + dy * dy);
    e = d > e ? d : e;
  }
  return e;
}

TB_HD int tbg2_feature(int ia, int ib) {
  return 4 * (ia & 3) + (ib & 3);
}

// write one contact from the surface points pa (on a), pb (on b) and the unit normal n (b -> a).
// Returns 1 if kept (gap < margin), else 0.
TB_HD int tbg2_emit(tbContact2* c, const double pa[2], const double pb[2], const double n[2],
                    int feature, double margin) {
  double gap = (pa[0] - pb[0]) * n[0] + (pa[1] - pb[1]) * n[1];
  if (!(gap < margin)) return 0;
  for (int i = 0; i < 2; i++) {
    c->pa[i] = pa[i];
    c->pb[i] = pb[i];
    c->n[i] = n[i];
  }
  c->feature = feature;
  return 1;
}

//---- reference face: clip the incident edge ----------------------------------------------------

// Contacts of reference edge e of core R (rv: rn vertices, edge normals rnrm, radius rr) against
// core I (iv: in vertices, edge normals inrm, radius ir); refIsA says whether R is the caller's
// a. Incident edge: I's edge whose normal is most anti-parallel to the reference normal (lowest
// index on ties). Its end points are ordered along the reference tangent t (lo nearer vertex
// e); the part with 0 <= (p - v_e).t <= |edge e| is kept. An incident edge that misses that
// strip entirely (possible for deep overlaps) keeps its end nearest to it; one perpendicular to
// the reference edge (|extent along t| <= tol) is kept whole, like Box2D. Points within tol of
// each other merge into the one deeper along the normal.
TB_HD int tbg2_clip(const double* rv, int rn, const double* rnrm, double rr, int e,
                    const double* iv, int in, const double* inrm, double ir, int refIsA, double tol,
                    double margin, tbContact2 out[2]) {
  int r1 = e, r2 = e + 1 < rn ? e + 1 : 0;
  const double* nr = rnrm + 2 * e;      // outward reference normal: points at I
  const double t[2] = {-nr[1], nr[0]};  // reference tangent, vertex r1 -> r2
  const double* o = rv + 2 * r1;        // origin of the reference frame
  double d[2] = {rv[2 * r2] - o[0], rv[2 * r2 + 1] - o[1]};
  double len = tbg2_dot(d, t);

  int i1 = 0, i2 = 0;  // incident edge i1 -> i2 (both 0 for a point)
  if (in >= 2) {
    double best = 2.0;
    for (int k = 0; k < in; k++) {
      double c = tbg2_dot(inrm + 2 * k, nr);
      if (c < best) {
        best = c;
        i1 = k;
      }
    }
    i2 = i1 + 1 < in ? i1 + 1 : 0;
  }
  // ends along t: anti-parallel edges run against t, so i2 is normally the lower one
  double w1[2] = {iv[2 * i1] - o[0], iv[2 * i1 + 1] - o[1]};
  double w2[2] = {iv[2 * i2] - o[0], iv[2 * i2 + 1] - o[1]};
  double s1 = tbg2_dot(w1, t), s2 = tbg2_dot(w2, t);
  int ilo = i2, ihi = i1;
  double slo = s2, shi = s1;
  if (s1 < s2) {
    ilo = i1;
    ihi = i2;
    slo = s1;
    shi = s2;
  }
  const double* plo = iv + 2 * ilo;
  const double* phi = iv + 2 * ihi;

  // clip: parameters u0 <= u1 along plo -> phi of the part inside the strip
  double u0 = 0.0, u1 = 1.0, ds = shi - slo;
  if (ds > tol && ds > 0.0) {
    double a0 = -slo / ds, a1 = (len - slo) / ds;
    u0 = a0 > 0.0 ? a0 : 0.0;
    u1 = a1 < 1.0 ? a1 : 1.0;
    if (u0 > u1) u0 = u1 = shi < 0.0 ? 1.0 : 0.0;  // misses the strip: its nearest end
  }
  double q[2][2];
  const double uu[2] = {u0, u1};
  for (int m = 0; m < 2; m++) {
    for (int i = 0; i < 2; i++) {
      double x = plo[i] + uu[m] * (phi[i] - plo[i]);
      q[m][i] = uu[m] <= 0.0 ? plo[i] : (uu[m] >= 1.0 ? phi[i] : x);
    }
  }
  double h[2];  // core separation of each point above the reference edge
  for (int m = 0; m < 2; m++) {
    double w[2] = {q[m][0] - o[0], q[m][1] - o[1]};
    h[m] = tbg2_dot(w, nr);
  }
  int first = 0, last = 1;
  if (hypot(q[1][0] - q[0][0], q[1][1] - q[0][1]) <= tol) {
    first = last = h[1] < h[0] ? 1 : 0;
  }

  double nout[2] = {refIsA ? -nr[0] : nr[0], refIsA ? -nr[1] : nr[1]};
  const int vref[2] = {r1, r2}, vinc[2] = {ilo, ihi};
  int nc = 0, f0 = -1;
  for (int m = first; m <= last; m++) {
    double pr[2], pi[2];  // on R's surface (q projected onto the edge, out by rr); on I's
    for (int i = 0; i < 2; i++) {
      pr[i] = q[m][i] + (rr - h[m]) * nr[i];
      pi[i] = q[m][i] - ir * nr[i];
    }
    int f = refIsA ? tbg2_feature(vref[m], vinc[m]) : tbg2_feature(vinc[m], vref[m]);
    if (f == f0) f = (f + 1) & 15;
    int kept = tbg2_emit(out + nc, refIsA ? pr : pi, refIsA ? pi : pr, nout, f, margin);
    if (kept) f0 = f;
    nc += kept;
  }
  return nc;
}

//---- public entry points -----------------------------------------------------------------------

// A shape is a core (va: na vertices as x,y pairs, world frame, counter-clockwise) inflated by
// radius ra >= 0: na = 1 a disc, na = 2 a stadium (2D capsule), na >= 3 a convex polygon
// (rounded if ra > 0). Writes every contact with gap = (pa - pb).n < margin (margin >= 0), at
// most 2; returns the count. A vertex count outside [1, TB_MAXVERT2D] gives 0.
TB_HD int tbg2_collide(const double* va, int na, double ra, const double* vb, int nb, double rb,
                       double margin, tbContact2 out[2]) {
  if (na < 1 || na > TB_MAXVERT2D || nb < 1 || nb > TB_MAXVERT2D) return 0;
  // cores whose boxes lie apart by more than the radii and the margin, with room for the
  // round-off of the distance found below, have no contact (most pairs on most steps): the
  // answer of the whole search, at the cost of one pass over the vertices
  double box_mag, gap = tbg2_boxGap(va, na, vb, nb, &box_mag);
  if (gap - ra - rb > margin + 1e-12 * box_mag) return 0;
  int ea = tbg2_numEdges(na), eb = tbg2_numEdges(nb);
  double nrmA[2 * TB_MAXVERT2D] = {0.0}, nrmB[2 * TB_MAXVERT2D] = {0.0};
  for (int k = 0; k < ea; k++) tbg2_edgeNormal(va, na, k, nrmA + 2 * k);
  for (int k = 0; k < eb; k++) tbg2_edgeNormal(vb, nb, k, nrmB + 2 * k);

  // tol: sideways/merge tolerance, relative to the shapes' size (not their position);
  // mag: size of the numbers involved, for "the cores touch up to round-off"
  double scale = tbg2_extent(va, na) + tbg2_extent(vb, nb) + ra + rb;
  double tol = 1e-9 * scale, mag = scale;
  for (int i = 0; i < 2 * na; i++) mag = fabs(va[i]) > mag ? fabs(va[i]) : mag;
  for (int i = 0; i < 2 * nb; i++) mag = fabs(vb[i]) > mag ? fabs(vb[i]) : mag;

  // 1. closest features. kind 0: a vertex of b over the interior of edge fe of a; kind 1: a
  // vertex of a over edge fe of b; kind 2: vertices fa of a and fb of b
  double dmin = 1e300;
  int kind = 2, fe = 0, fa = 0, fb = 0;
  for (int pass = 0; pass < 2; pass++) {
    const double* ve = pass == 0 ? va : vb;  // owner of the edges
    const double* vv = pass == 0 ? vb : va;  // owner of the vertices
    const double* nrm = pass == 0 ? nrmA : nrmB;
    int ne = pass == 0 ? ea : eb, nv = pass == 0 ? nb : na, n = pass == 0 ? na : nb;
    for (int k = 0; k < ne; k++) {
      int k1 = k + 1 < n ? k + 1 : 0;
      double de[2] = {ve[2 * k1] - ve[2 * k], ve[2 * k1 + 1] - ve[2 * k + 1]};
      double dd = tbg2_dot(de, de);
      for (int j = 0; j < nv; j++) {
        double w[2] = {vv[2 * j] - ve[2 * k], vv[2 * j + 1] - ve[2 * k + 1]};
        double hh = tbg2_dot(w, nrm + 2 * k), s = tbg2_dot(w, de);
        if (hh > 0.0 && hh < dmin && s > 0.0 && s < dd) {
          dmin = hh;
          kind = pass;
          fe = k;
        }
      }
    }
  }
  // the closest vertex pair by squared distance (one square root, not one per pair)
  double dv2 = 1e300;
  int va_best = 0, vb_best = 0;
  for (int i = 0; i < na; i++) {
    for (int j = 0; j < nb; j++) {
      double dx = va[2 * i] - vb[2 * j], dy = va[2 * i + 1] - vb[2 * j + 1];
      double d2 = dx * dx + dy * dy;
      if (d2 < dv2) {
        dv2 = d2;
        va_best = i;
        vb_best = j;
      }
    }
  }
  if (sqrt(dv2) < dmin) {
    dmin = sqrt(dv2);
    kind = 2;
    fa = va_best;
    fb = vb_best;
  }

  // separated iff the closest direction u (b -> a) separates the cores: then the separation
  // along u is dmin; overlapping cores have none along any direction
  double u[2] = {1.0, 0.0};
  int separated = 0;
  if (dmin > 1e-13 * mag) {
    if (kind == 0) {
      u[0] = -nrmA[2 * fe];
      u[1] = -nrmA[2 * fe + 1];
    } else if (kind == 1) {
      u[0] = nrmB[2 * fe];
      u[1] = nrmB[2 * fe + 1];
    } else {
      u[0] = (va[2 * fa] - vb[2 * fb]) / dmin;
      u[1] = (va[2 * fa + 1] - vb[2 * fb + 1]) / dmin;
    }
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < na; i++) {
      double p = tbg2_dot(u, va + 2 * i);
      lo = p < lo ? p : lo;
    }
    for (int j = 0; j < nb; j++) {
      double p = tbg2_dot(u, vb + 2 * j);
      hi = p > hi ? p : hi;
    }
    separated = lo - hi > 0.5 * dmin;
  }

  if (separated) {
    if (!(dmin - ra - rb < margin)) return 0;  // every point is at least this far
    if (kind == 0) return tbg2_clip(va, na, nrmA, ra, fe, vb, nb, nrmB, rb, 1, tol, margin, out);
    if (kind == 1) return tbg2_clip(vb, nb, nrmB, rb, fe, va, na, nrmA, ra, 0, tol, margin, out);
    // vertex-vertex: an edge at either vertex whose normal is u to within tol sideways is a
    // reference face (flush parallel edges); otherwise one contact along u
    double w[2] = {vb[2 * fb] - va[2 * fa], vb[2 * fb + 1] - va[2 * fa + 1]};  // a -> b
    for (int m = 0; m < 2 && na >= 2; m++) {
      int k = m == 0 ? (fa > 0 ? fa - 1 : na - 1) : fa;  // edge ending, then starting, at fa
      const double* nk = nrmA + 2 * k;
      if (tbg2_dot(w, nk) > 0.0 && fabs(tbg2_cross(w, nk)) <= tol) {
        return tbg2_clip(va, na, nrmA, ra, k, vb, nb, nrmB, rb, 1, tol, margin, out);
      }
    }
    for (int m = 0; m < 2 && nb >= 2; m++) {
      int k = m == 0 ? (fb > 0 ? fb - 1 : nb - 1) : fb;
      const double* nk = nrmB + 2 * k;
      if (-tbg2_dot(w, nk) > 0.0 && fabs(tbg2_cross(w, nk)) <= tol) {
        return tbg2_clip(vb, nb, nrmB, rb, k, va, na, nrmA, ra, 0, tol, margin, out);
      }
    }
    double pa[2], pb[2];
    for (int i = 0; i < 2; i++) {
      pa[i] = va[2 * fa + i] - ra * u[i];
      pb[i] = vb[2 * fb + i] + rb * u[i];
    }
    return tbg2_emit(out, pa, pb, u, tbg2_feature(fa, fb), margin);
  }

  // 3. overlapping cores: separating-axis test over every edge normal, least penetration wins
  double best = -1e300;
  int ref = -1, re = 0;  // reference core (0: a, 1: b) and edge
  for (int pass = 0; pass < 2; pass++) {
    const double* ve = pass == 0 ? va : vb;
    const double* vv = pass == 0 ? vb : va;
    const double* nrm = pass == 0 ? nrmA : nrmB;
    int ne = pass == 0 ? ea : eb, nv = pass == 0 ? nb : na;
    for (int k = 0; k < ne; k++) {
      double s = 1e300;
      for (int j = 0; j < nv; j++) {
        double w[2] = {vv[2 * j] - ve[2 * k], vv[2 * j + 1] - ve[2 * k + 1]};
        double p = tbg2_dot(w, nrm + 2 * k);
        s = p < s ? p : s;
      }
      if (s > best) {
        best = s;
        ref = pass;
        re = k;
      }
    }
  }
  if (ref == 0) return tbg2_clip(va, na, nrmA, ra, re, vb, nb, nrmB, rb, 1, tol, margin, out);
  if (ref == 1) return tbg2_clip(vb, nb, nrmB, rb, re, va, na, nrmA, ra, 0, tol, margin, out);
  // two discs with coincident centres: the deterministic +x
  const double ex[2] = {1.0, 0.0};
  double pa[2] = {va[0] - ra, va[1]}, pb[2] = {vb[0] + rb, vb[1]};
  return tbg2_emit(out, pa, pb, ex, 0, margin);
}

//---- non-convex corners (thesis §3.2) ----------------------------------------------------------
//
// Near a vertex V of one core, the other core's vertex P is kept out by two half-planes (the
// edges at the corner). As contacts of their own they are a conjunction, which extends each edge
// past V into a fictitious wall: a block sliding over a hole catches on the extension of the
// hole's far edge (thesis Fig. 3.1), a gripper's vertex bounces down a polygonal part (Fig. 4.8).
// The configuration space obstacle is convex, so the correct condition near its vertex V - P is
// the disjunction psi_1 >= 0 or psi_2 >= 0 (Eq. 3.3), with the two half-planes bounding it there:
// the edge normals that bound the intersection of b's normal cone at V and the reversed normal
// cone of a at P. tbg2_corners reports them as a corner pair, two contacts (features from
// TB_CORNER2D_FEATURE, member 0 then member 1) whose disjunction the step resolves
// (stage_corner.h), in place of the ordinary contacts at P or V. Only sharp polygons (radius 0)
// have corners: a rounded core's corner is smooth already (tbg2_collide follows it), and its
// offset edge lines meet outside the rounding, where the disjunction would push a vertex that
// touches nothing (tried on the grasp study's rounded gear teeth: parts kicked away at m/s).

#define TB_CORNER2D_MAX 3       // most corner pairs one pair of cores reports
#define TB_CORNER2D_FEATURE 16  // corner members' features: 16 + 2 (4 (i & 3) + (j & 3)) + member

// 1 when x lies in the counter-clockwise arc from s to e (at most half a turn)
TB_HD int tbg2_inArc(const double s[2], const double e[2], const double x[2]) {
  return tbg2_cross(s, x) >= 0.0 && tbg2_cross(x, e) >= 0.0;
}

// the normal cone of vertex i of a core with n >= 2 vertices and edge normals nrm: from the normal
// of the edge ending at i, counter-clockwise, to the normal of the edge starting at i; sign -1
// reverses it (the directions from which the vertex is reached)
TB_HD void tbg2_vertexCone(const double* nrm, int n, int i, double sign, double s[2], double e[2]) {
  int k = i > 0 ? i - 1 : n - 1;
  for (int c = 0; c < 2; c++) {
    s[c] = sign * nrm[2 * k + c];
    e[c] = sign * nrm[2 * i + c];
  }
}

// one corner: vertex P of a against vertex V of b, bounded by normals n1, n2 (b -> a)
typedef struct tbCorner2 {
  int i, j;        // P = vertex i of a, V = vertex j of b
  double n[2][2];  // the two bounding normals, counter-clockwise
  double dist;     // |P - V|
} tbCorner2;

// the corner of vertex i of a and vertex j of b (cores of >= 2 vertices): 1 when the two cones
// meet in an arc of non-zero width, whose bounds then fill *c
TB_HD int tbg2_corner(const double* nrmA, int na, int i, const double* nrmB, int nb, int j,
                      tbCorner2* c) {
  double sa[2], ea[2], sb[2], eb[2];
  tbg2_vertexCone(nrmA, na, i, -1.0, sa, ea);
  tbg2_vertexCone(nrmB, nb, j, 1.0, sb, eb);
  int s_b = tbg2_inArc(sa, ea, sb), e_b = tbg2_inArc(sa, ea, eb);
  if (!s_b && !tbg2_inArc(sb, eb, sa)) return 0;
  if (!e_b && !tbg2_inArc(sb, eb, ea)) return 0;
  const double* s = s_b ? sb : sa;
  const double* e = e_b ? eb : ea;
  if (!(tbg2_cross(s, e) > 1e-9)) return 0;  // one direction: a flush contact, not a corner
  c->i = i;
  c->j = j;
  for (int k = 0; k < 2; k++) {
    c->n[0][k] = s[k];
    c->n[1][k] = e[k];
  }
  return 1;
}

// whether ordinary contact o of two sharp cores stands at corner c: its point on a is P or its
// point on b is V. Such a contact holds P or V, or a point whose reference edge ends there (a
// clipped point on the side line through P or V), against one edge's line: the conjunction the
// pair replaces.
TB_HD int tbg2_atCorner(const tbContact2* o, const tbCorner2* c, const double* va, const double* vb,
                        double tol) {
  return hypot(o->pa[0] - va[2 * c->i], o->pa[1] - va[2 * c->i + 1]) <= tol ||
         hypot(o->pb[0] - vb[2 * c->j], o->pb[1] - vb[2 * c->j + 1]) <= tol;
}

// the contacts of cores a and b with their corners disjunctive: the corner pairs of vertices
// closer than 2 margin (sorted by that distance, at most TB_CORNER2D_MAX; a corner beyond them
// keeps its ordinary contacts), then tbg2_collide's contacts that no pair replaces, at most
// 2 + 2 TB_CORNER2D_MAX in all. A pair's two members are reported whatever their gaps (the
// disjunction needs both); cores with fewer than 2 vertices or a radius have no corners.
TB_HD int tbg2_corners(const double* va, int na, double ra, const double* vb, int nb, double rb,
                       double margin, tbContact2 out[2 + 2 * TB_CORNER2D_MAX]) {
  tbContact2 ord[2];
  int nord = tbg2_collide(va, na, ra, vb, nb, rb, margin, ord);
  tbCorner2 cor[TB_CORNER2D_MAX];
  int ncor = 0;
  int sharp = ra == 0.0 && rb == 0.0;
  if (sharp && na >= 2 && nb >= 2 && na <= TB_MAXVERT2D && nb <= TB_MAXVERT2D) {
    double nrmA[2 * TB_MAXVERT2D], nrmB[2 * TB_MAXVERT2D];
    for (int k = 0; k < na; k++) tbg2_edgeNormal(va, na, k, nrmA + 2 * k);
    for (int k = 0; k < nb; k++) tbg2_edgeNormal(vb, nb, k, nrmB + 2 * k);
    for (int i = 0; i < na; i++) {
      for (int j = 0; j < nb; j++) {
        tbCorner2 c;
        c.dist = hypot(va[2 * i] - vb[2 * j], va[2 * i + 1] - vb[2 * j + 1]);
        if (!(c.dist < 2.0 * margin) || !tbg2_corner(nrmA, na, i, nrmB, nb, j, &c)) continue;
        // insertion by distance; ties keep the lower (i, j) first
        int at = ncor;
        while (at > 0 && cor[at - 1].dist > c.dist) at--;
        if (at >= TB_CORNER2D_MAX) continue;
        for (int k = (ncor < TB_CORNER2D_MAX ? ncor : TB_CORNER2D_MAX - 1); k > at; k--) {
          cor[k] = cor[k - 1];
        }
        cor[at] = c;
        ncor += ncor < TB_CORNER2D_MAX;
      }
    }
  }
  // "at P or V": a clipped point lands on them exactly in exact arithmetic; 1e-6 of the shapes'
  // size holds in fp32 too (whose round-off left the half-plane beside the pair: it caught)
  double tol = 1e-6 * (tbg2_extent(va, na) + tbg2_extent(vb, nb));
  int n = 0;
  for (int k = 0; k < ncor; k++) {
    const double* P = va + 2 * cor[k].i;
    const double* V = vb + 2 * cor[k].j;
    for (int m = 0; m < 2; m++) {
      const double* nm = cor[k].n[m];
      double psi = (P[0] - V[0]) * nm[0] + (P[1] - V[1]) * nm[1];
      tbContact2* c = &out[n++];
      for (int q = 0; q < 2; q++) {  // P, and its foot on the edge line through V
        c->pa[q] = P[q];
        c->pb[q] = P[q] - psi * nm[q];
        c->n[q] = nm[q];
      }
      c->feature = TB_CORNER2D_FEATURE + 2 * tbg2_feature(cor[k].i, cor[k].j) + m;
    }
  }
  for (int o = 0; o < nord; o++) {
    int replaced = 0;
    for (int k = 0; k < ncor; k++) replaced |= tbg2_atCorner(&ord[o], &cor[k], va, vb, tol);
    if (!replaced) out[n++] = ord[o];
  }
  return n;
}

// -1 if v (n vertices, 1 <= n <= TB_MAXVERT2D) is a valid core: n = 1; n = 2 with distinct
// points; n >= 3 strictly convex and counter-clockwise with no repeated or collinear vertices.
// Otherwise the index of the first offending vertex (n out of range: 0). Checks in order, each
// over all vertices: a non-finite coordinate; a vertex equal (to 1e-12 of the polygon's size)
// to the one before it (vertex n-1 against vertex 0 last); a turn at a vertex that is not
// strictly to the left (sine of the turning angle <= 1e-9: collinear, clockwise or reflex); a
// vertex not strictly left of every edge it is not on (polygons that wind more than once).
TB_HD int tbg2_polygonInvalid(const double* v, int n) {
  if (n < 1 || n > TB_MAXVERT2D) return 0;
  for (int i = 0; i < n; i++) {
    if (!(fabs(v[2 * i]) < 1e300) || !(fabs(v[2 * i + 1]) < 1e300)) return i;
  }
  if (n == 1) return -1;
  if (n == 2) return v[0] == v[2] && v[1] == v[3] ? 1 : -1;
  double tiny = 1e-12 * tbg2_extent(v, n);
  for (int i = 1; i <= n; i++) {
    int j = i < n ? i : 0, p = i - 1;  // i = n: vertex n-1 against vertex 0
    if (hypot(v[2 * j] - v[2 * p], v[2 * j + 1] - v[2 * p + 1]) <= tiny) return i < n ? i : n - 1;
  }
  for (int i = 0; i < n; i++) {
    int p = i > 0 ? i - 1 : n - 1, q = i + 1 < n ? i + 1 : 0;
    double e1[2] = {v[2 * i] - v[2 * p], v[2 * i + 1] - v[2 * p + 1]};
    double e2[2] = {v[2 * q] - v[2 * i], v[2 * q + 1] - v[2 * i + 1]};
    if (!(tbg2_cross(e1, e2) > 1e-9 * hypot(e1[0], e1[1]) * hypot(e2[0], e2[1]))) return i;
  }
  for (int k = 0; k < n; k++) {
    int k1 = k + 1 < n ? k + 1 : 0;
    double e[2] = {v[2 * k1] - v[2 * k], v[2 * k1 + 1] - v[2 * k + 1]};
    for (int j = 0; j < n; j++) {
      if (j == k || j == k1) continue;
      double w[2] = {v[2 * j] - v[2 * k], v[2 * j + 1] - v[2 * k + 1]};
      if (!(tbg2_cross(e, w) > 1e-9 * hypot(e[0], e[1]) * hypot(w[0], w[1]))) return j;
    }
  }
  return -1;
}

// world = R(c, s) local + t for n points (c, s: cosine and sine of the rotation angle); world
// may alias local
TB_HD void tbg2_transform(const double* local, int n, double c, double s, const double t[2],
                          double* world) {
  for (int i = 0; i < n; i++) {
    double x = local[2 * i], y = local[2 * i + 1];
    world[2 * i] = c * x - s * y + t[0];
    world[2 * i + 1] = s * x + c * y + t[1];
  }
}

#endif  // TUMBLE_COLLIDE2D_H_

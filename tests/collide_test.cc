// Tests for host/math/collide_geom.h: shape-pair contact geometry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

extern "C" {
#include "math/collide.h"
}

namespace {

const double kTol = 1e-9;

tbGeomPose Pose(int type, double s0, double s1, double s2, double x, double y, double z) {
  tbGeomPose g;
  std::memset(&g, 0, sizeof(g));
  g.type = type;
  g.size[0] = s0;
  g.size[1] = s1;
  g.size[2] = s2;
  g.pos[0] = x;
  g.pos[1] = y;
  g.pos[2] = z;
  g.quat[0] = 1.0;
  return g;
}

void Rotate(tbGeomPose* g, double ax, double ay, double az, double angle) {
  const double axis[3] = {ax, ay, az};
  tbu_quatAxisAngle(g->quat, axis, angle);
}

// capsule lying along world x (local z rotated onto x)
void AlongX(tbGeomPose* g) {
  Rotate(g, 0, 1, 0, 0.5 * TB_PI);
}
// capsule lying along world y
void AlongY(tbGeomPose* g) {
  Rotate(g, 1, 0, 0, 0.5 * TB_PI);
}

int Collide(const tbGeomPose& a, const tbGeomPose& b, double margin, tbContactPoint* out) {
  std::memset(out, 0, sizeof(tbContactPoint) * TB_MAXCON_PAIR);
  return tbu_collide(&a, &b, margin, out);
}

void ExpectVec(const double* v, double x, double y, double z, double tol) {
  EXPECT_NEAR(v[0], x, tol);
  EXPECT_NEAR(v[1], y, tol);
  EXPECT_NEAR(v[2], z, tol);
}

// deterministic pseudo-random numbers in [lo, hi)
struct Lcg {
  unsigned long long s = 12345;
  double Next(double lo, double hi) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
};

// an octahedron of half-diagonals 0.5, 0.4, 0.3 (corners on the axes: +x -x +y -y +z -z), the
// meshes' polyhedron that is not a box
tbHull Octahedron() {
  static const double v[18] = {0.5, 0, 0, -0.5, 0, 0, 0, 0.4, 0, 0, -0.4, 0, 0, 0, 0.3, 0, 0, -0.3};
  // faces by octant (sx, sy, sz): corners counter-clockwise seen from outside
  static const int fv[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
                             2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
  static double plane[32];
  static const int adr[8] = {0, 3, 6, 9, 12, 15, 18, 21}, nv[8] = {3, 3, 3, 3, 3, 3, 3, 3};
  // edges: the corners and the faces either side (face k holds fv[3k..3k+2])
  static const int edge[48] = {0, 2, 0, 4, 2, 1, 1, 5, 1, 3, 2, 6, 3, 0, 3, 7,
                               0, 4, 0, 3, 2, 4, 0, 1, 1, 4, 1, 2, 3, 4, 2, 3,
                               0, 5, 4, 7, 2, 5, 4, 5, 1, 5, 5, 6, 3, 5, 6, 7};
  for (int f = 0; f < 8; f++) {
    const double *a = v + 3 * fv[3 * f], *b = v + 3 * fv[3 * f + 1], *c = v + 3 * fv[3 * f + 2];
    double u[3], w[3], n[3];
    tbu_sub3(u, b, a);
    tbu_sub3(w, c, a);
    tbu_cross3(n, u, w);
    tbu_normalize3(n);
    for (int k = 0; k < 3; k++) plane[4 * f + k] = n[k];
    plane[4 * f + 3] = tbu_dot3(n, a);
  }
  tbHull h = {6, 8, 12, v, plane, adr, nv, fv, edge};
  return h;
}

tbGeomPose RandomPose(Lcg* r, int type) {
  tbGeomPose g = Pose(type, r->Next(0.0, 0.6), r->Next(0.1, 0.8), r->Next(0.1, 0.8),
                      r->Next(-0.8, 0.8), r->Next(-0.8, 0.8), r->Next(-0.8, 0.8));
  if (type == TB_GEOM_BOX) g.size[0] = r->Next(0.1, 0.8);
  if (type == TB_GEOM_MESH) g.hull = Octahedron();
  double q[4] = {r->Next(-1, 1), r->Next(-1, 1), r->Next(-1, 1), r->Next(-1, 1)};
  tbu_quatNormalize(q);
  std::memcpy(g.quat, q, sizeof(q));
  return g;
}

}  // namespace

TEST(CollideGeom, SphereSphere) {
  tbGeomPose a = Pose(TB_GEOM_SPHERE, 1.0, 0, 0, 0, 0, 1.5);
  tbGeomPose b = Pose(TB_GEOM_SPHERE, 0.75, 0, 0, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);      // overlapping spheres touch once
  EXPECT_NEAR(c[0].gap, 1.5 - 1.75, kTol);  // centre distance minus the radii
  ExpectVec(c[0].normal, 0, 0, 1, kTol);    // from b (below) to a (above)
  ExpectVec(c[0].pos, 0, 0, 0.625, kTol);   // midway between surfaces at z=0.5 and z=0.75
  a.pos[2] = 2.0;
  EXPECT_EQ(Collide(a, b, 0.1, c), 0);  // gap 0.25 is beyond the margin
  EXPECT_EQ(Collide(a, b, 0.3, c), 1);  // but within a larger one
  EXPECT_NEAR(c[0].gap, 0.25, kTol);    // positive gap when separated
}

TEST(CollideGeom, SphereSphereCoincident) {
  tbGeomPose a = Pose(TB_GEOM_SPHERE, 0.0, 0, 0, 1, 2, 3);
  tbGeomPose b = Pose(TB_GEOM_SPHERE, 0.5, 0, 0, 1, 2, 3);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);   // a point at the centre of a sphere is inside it
  ExpectVec(c[0].normal, 0, 0, 1, 0.0);  // deterministic fallback direction
  EXPECT_NEAR(c[0].gap, -0.5, kTol);     // penetration is the radius
}

TEST(CollideGeom, PointPlane) {
  tbGeomPose p = Pose(TB_GEOM_SPHERE, 0.0, 0, 0, 0.3, -0.4, 0.3);
  tbGeomPose pl = Pose(TB_GEOM_PLANE, 0, 0, 0, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(p, pl, 1.0, c), 1);        // point above the plane, within margin
  EXPECT_NEAR(c[0].gap, 0.3, kTol);            // its height
  ExpectVec(c[0].normal, 0, 0, 1, kTol);       // plane normal, from plane (b) to point (a)
  ExpectVec(c[0].tangent, 1, 0, 0, kTol);      // plane's local x axis
  ExpectVec(c[0].pos, 0.3, -0.4, 0.15, kTol);  // midway between the point and the surface
  p.pos[2] = -0.2;
  ASSERT_EQ(Collide(p, pl, 0.0, c), 1);   // point below the surface penetrates
  EXPECT_NEAR(c[0].gap, -0.2, kTol);      // negative height
  ExpectVec(c[0].normal, 0, 0, 1, kTol);  // still the plane normal
  p.pos[2] = 0.3;
  EXPECT_EQ(Collide(p, pl, 0.1, c), 0);  // above the margin: nothing
}

TEST(CollideGeom, SphereBoxFaceEdgeCorner) {
  tbGeomPose box = Pose(TB_GEOM_BOX, 1, 1, 1, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  tbGeomPose s = Pose(TB_GEOM_SPHERE, 0.5, 0, 0, 0.2, 0.3, 1.4);
  ASSERT_EQ(Collide(s, box, 0.0, c), 1);      // sphere sinking into the top face
  EXPECT_NEAR(c[0].gap, -0.1, kTol);          // 1.4 - 0.5 - 1
  ExpectVec(c[0].normal, 0, 0, 1, kTol);      // face normal
  ExpectVec(c[0].pos, 0.2, 0.3, 0.95, kTol);  // between z=0.9 (sphere) and z=1 (face)

  s = Pose(TB_GEOM_SPHERE, 0.5, 0, 0, 1.3, 1.3, 0.0);
  ASSERT_EQ(Collide(s, box, 0.0, c), 1);                    // sphere against the vertical edge
  EXPECT_NEAR(c[0].gap, 0.3 * std::sqrt(2.0) - 0.5, kTol);  // distance to the edge minus r
  const double h = 1.0 / std::sqrt(2.0);
  ExpectVec(c[0].normal, h, h, 0, kTol);  // from the edge to the centre

  s = Pose(TB_GEOM_SPHERE, 0.2, 0, 0, 1.2, 1.2, 1.2);
  ASSERT_EQ(Collide(s, box, 0.5, c), 1);                    // near the corner, within margin
  EXPECT_NEAR(c[0].gap, 0.2 * std::sqrt(3.0) - 0.2, kTol);  // distance to the corner minus r
  const double t = 1.0 / std::sqrt(3.0);
  ExpectVec(c[0].normal, t, t, t, kTol);  // diagonal direction
}

TEST(CollideGeom, PointInsideBox) {
  tbGeomPose box = Pose(TB_GEOM_BOX, 1, 1, 1, 0, 0, 0);
  tbGeomPose p = Pose(TB_GEOM_SPHERE, 0.0, 0, 0, 0.2, -0.7, 0.1);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(p, box, 0.0, c), 1);   // a point inside always penetrates
  EXPECT_NEAR(c[0].gap, -0.3, kTol);       // depth below the nearest (-y) face
  ExpectVec(c[0].normal, 0, -1, 0, kTol);  // out through the face of least penetration

  // rotated box: the normal is the rotated face normal
  Rotate(&box, 0, 0, 1, 0.5 * TB_PI);  // local -y becomes world +x
  double lp[3] = {0.2, -0.7, 0.1}, wp[3];
  tbu_rotVec(wp, box.quat, lp);
  std::memcpy(p.pos, wp, sizeof(wp));
  ASSERT_EQ(Collide(p, box, 0.0, c), 1);  // same local configuration
  EXPECT_NEAR(c[0].gap, -0.3, kTol);      // same depth
  ExpectVec(c[0].normal, 1, 0, 0, kTol);  // the rotated -y face normal
}

TEST(CollideGeom, CapsuleFlatOnPlane) {
  tbGeomPose cap = Pose(TB_GEOM_CAPSULE, 0.2, 1.0, 0, 0.5, 0, 0.19);
  AlongX(&cap);
  tbGeomPose pl = Pose(TB_GEOM_PLANE, 0, 0, 0, 0, 0, 0);
  Rotate(&pl, 0, 0, 1, TB_PI / 6);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(cap, pl, 0.0, c), 2);  // both segment ends touch
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(c[i].gap, -0.01, kTol);     // equal sinking at both ends
    ExpectVec(c[i].normal, 0, 0, 1, kTol);  // plane normal
    ExpectVec(c[i].tangent, std::cos(TB_PI / 6), std::sin(TB_PI / 6), 0, kTol);  // plane x
  }
  EXPECT_NEAR(std::fabs(c[0].pos[0] - c[1].pos[0]), 2.0, kTol);  // the two segment ends
}

TEST(CollideGeom, CapsuleCapsuleCrossing) {
  tbGeomPose a = Pose(TB_GEOM_CAPSULE, 0.2, 1.0, 0, 0.1, 0.2, 0.35);
  AlongX(&a);
  tbGeomPose b = Pose(TB_GEOM_CAPSULE, 0.2, 1.0, 0, 0, 0, 0);
  AlongY(&b);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);       // crossing segments touch once
  EXPECT_NEAR(c[0].gap, 0.35 - 0.4, kTol);   // axis distance minus radii
  ExpectVec(c[0].normal, 0, 0, 1, kTol);     // from the lower (b) to the upper (a)
  ExpectVec(c[0].pos, 0, 0.2, 0.175, kTol);  // above the crossing point, midway

  a.pos[2] = 0.0;                       // intersecting axes: fallback normal perpendicular to both
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);  // still one contact
  EXPECT_NEAR(std::fabs(c[0].normal[2]), 1.0, kTol);  // x cross y is +-z
  EXPECT_NEAR(c[0].gap, -0.4, kTol);                  // full overlap of the radii
}

TEST(CollideGeom, CapsuleCapsuleParallel) {
  tbGeomPose a = Pose(TB_GEOM_CAPSULE, 0.2, 1.0, 0, 0.5, 0, 0.38);
  AlongX(&a);
  tbGeomPose b = Pose(TB_GEOM_CAPSULE, 0.2, 1.0, 0, 0, 0, 0);
  AlongX(&b);
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(a, b, 0.0, c), 2);  // ends of the overlap interval [-0.5, 1]
  double xmin = std::fmin(c[0].pos[0], c[1].pos[0]), xmax = std::fmax(c[0].pos[0], c[1].pos[0]);
  EXPECT_NEAR(xmin, -0.5, kTol);  // a's left end
  EXPECT_NEAR(xmax, 1.0, kTol);   // b's right end
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(c[i].gap, -0.02, kTol);     // 0.38 - 0.4 everywhere along the overlap
    ExpectVec(c[i].normal, 0, 0, 1, kTol);  // b below a
  }
  a.pos[0] = 3.0;  // collinear-ish but disjoint in x: no overlap, one end-to-end contact
  ASSERT_EQ(Collide(a, b, 2.0, c), 1);                              // single closest pair
  EXPECT_NEAR(c[0].gap, std::sqrt(1.0 + 0.38 * 0.38) - 0.4, kTol);  // end-to-end distance
}

TEST(CollideGeom, CapsuleBox) {
  tbGeomPose box = Pose(TB_GEOM_BOX, 1, 1, 1, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  // standing upright on the top face: only the lower end touches
  tbGeomPose cap = Pose(TB_GEOM_CAPSULE, 0.2, 0.5, 0, 0.1, 0.1, 1.0 + 0.5 + 0.2 - 0.05);
  ASSERT_EQ(Collide(cap, box, 0.1, c), 1);  // upper end is 1.0 away, beyond the margin
  EXPECT_NEAR(c[0].gap, -0.05, kTol);       // end sphere sinking into the face
  ExpectVec(c[0].normal, 0, 0, 1, kTol);    // top face normal
  EXPECT_EQ(c[0].feature, 0);               // the segment's -z end

  // lying flat on the top face: both ends
  cap = Pose(TB_GEOM_CAPSULE, 0.2, 0.5, 0, 0, 0, 1.0 + 0.2 - 0.01);
  AlongX(&cap);
  ASSERT_EQ(Collide(cap, box, 0.0, c), 2);  // two ends, no interior duplicate
  EXPECT_NEAR(c[0].gap, -0.01, kTol);       // equal sinking
  EXPECT_NEAR(c[1].gap, -0.01, kTol);       // equal sinking

  // tilted 45 deg across the top +x edge: closest point is interior to the segment
  const double h = 1.0 / std::sqrt(2.0), d = 0.15;
  cap = Pose(TB_GEOM_CAPSULE, 0.2, 1.0, 0, 1.0 + d * h, 0.0, 1.0 + d * h);
  Rotate(&cap, 0, 1, 0, 0.75 * TB_PI);      // local z -> (sin 135, 0, cos 135) = (h, 0, -h)
  ASSERT_EQ(Collide(cap, box, 0.1, c), 1);  // ends are far from the box
  EXPECT_EQ(c[0].feature, 2);               // the interior closest point
  EXPECT_NEAR(c[0].gap, d - 0.2, 1e-7);     // distance to the edge minus r (search tolerance)
  ExpectVec(c[0].normal, h, 0, h, 1e-6);    // away from the edge
  EXPECT_LE(tbu_collideMax(TB_GEOM_CAPSULE, TB_GEOM_BOX), 3);  // spec bound
}

TEST(CollideGeom, BoxOnPlane) {
  tbGeomPose box = Pose(TB_GEOM_BOX, 0.5, 0.3, 0.2, 1, 2, 0.2);
  tbGeomPose pl = Pose(TB_GEOM_PLANE, 0, 0, 0, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  for (int rot = 0; rot < 2; rot++) {
    if (rot) Rotate(&pl, 0, 0, 1, TB_PI / 6);  // plane spun about its own normal
    double tx = rot ? std::cos(TB_PI / 6) : 1.0, ty = rot ? std::sin(TB_PI / 6) : 0.0;
    ASSERT_EQ(Collide(box, pl, 1e-6, c), 4);  // the four bottom corners
    for (int i = 0; i < 4; i++) {
      EXPECT_NEAR(c[i].gap, 0.0, kTol);          // resting exactly
      ExpectVec(c[i].normal, 0, 0, 1, kTol);     // plane normal
      ExpectVec(c[i].tangent, tx, ty, 0, kTol);  // the plane's x axis (rotates with it)
      EXPECT_EQ((c[i].feature >> 2) & 1, 0);     // bottom corners: local z bit clear
    }
  }
  Rotate(&box, 1, 0.3, 0, 0.3);  // tilted: fewer corners below a zero margin
  int n = Collide(box, pl, 0.0, c);
  EXPECT_GE(n, 1);  // at least the lowest corner penetrates
  EXPECT_LE(n, 2);  // a single-axis-ish tilt lifts the rest
}

// pos of every contact must be inside both boxes' footprints (with slack) at the interface
void ExpectStacked(const tbContactPoint* c, int n, double gap, double nz, double zmid) {
  for (int i = 0; i < n; i++) {
    EXPECT_NEAR(c[i].gap, gap, 1e-9);         // interface gap
    ExpectVec(c[i].normal, 0, 0, nz, 1e-12);  // +-z depending on argument order
    EXPECT_NEAR(c[i].pos[2], zmid, 1e-9);     // midway between the faces
  }
}

TEST(CollideGeom, BoxStackedOnLargerBox) {
  tbGeomPose top = Pose(TB_GEOM_BOX, 0.5, 0.5, 0.5, 0.1, -0.2, 1.0);
  tbGeomPose base = Pose(TB_GEOM_BOX, 2.0, 2.0, 0.5, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  int n = Collide(top, base, 1e-6, c);
  ASSERT_EQ(n, 4);                     // four corners of the small face
  ExpectStacked(c, n, 0.0, 1.0, 0.5);  // exactly touching, normal base -> top
  for (int i = 0; i < n; i++) {
    EXPECT_NEAR(std::fabs(c[i].pos[0] - 0.1), 0.5, 1e-9);  // corners of the small box
    EXPECT_NEAR(std::fabs(c[i].pos[1] + 0.2), 0.5, 1e-9);  // corners of the small box
  }
  n = Collide(base, top, 1e-6, c);
  ASSERT_EQ(n, 4);                      // swapped order: same manifold
  ExpectStacked(c, n, 0.0, -1.0, 0.5);  // normal flips

  top.pos[2] = 1.005;  // slightly separated, within the margin
  n = Collide(top, base, 0.01, c);
  ASSERT_EQ(n, 4);                             // speculative contacts still reported
  ExpectStacked(c, n, 0.005, 1.0, 0.5025);     // positive gap, midway point
  EXPECT_EQ(Collide(top, base, 0.004, c), 0);  // margin smaller than the gap: nothing

  top.pos[2] = 1.0;
  Rotate(&top, 0, 0, 1, 0.25 * TB_PI);  // 45 deg about z: still fully on the base
  n = Collide(top, base, 1e-6, c);
  ASSERT_EQ(n, 4);                     // the rotated square's corners
  ExpectStacked(c, n, 0.0, 1.0, 0.5);  // all at the interface
}

TEST(CollideGeom, BoxOnEqualBoxRotated45) {
  tbGeomPose top = Pose(TB_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 1.0 - 0.01);
  Rotate(&top, 0, 0, 1, 0.25 * TB_PI);
  tbGeomPose base = Pose(TB_GEOM_BOX, 0.5, 0.5, 0.5, 0, 0, 0);
  tbContactPoint c[TB_MAXCON_PAIR];
  int n = Collide(top, base, 0.0, c);
  EXPECT_GE(n, 4);                         // octagon of overlap (or a spanning subset)
  EXPECT_LE(n, TB_MAXCON_PAIR);            // never more than the buffer
  ExpectStacked(c, n, -0.01, 1.0, 0.495);  // all at the interface, penetrating 0.01
  for (int i = 0; i < n; i++) {
    EXPECT_LE(std::fabs(c[i].pos[0]), 0.5 + 1e-9);  // inside the base's footprint
    EXPECT_LE(std::fabs(c[i].pos[1]), 0.5 + 1e-9);  // inside the base's footprint
  }
  EXPECT_EQ(n, 8);  // the exact octagon
  n = Collide(base, top, 0.0, c);
  ASSERT_GE(n, 4);                          // swapped
  ExpectStacked(c, n, -0.01, -1.0, 0.495);  // normal flips, gaps unchanged
}

// Equal boxes stacked flush: every incident edge lies along a reference side. Round-off in the
// poses (here 1e-13 shifts and turns, what a resting stack's integration leaves) must not put
// crossings anywhere along those sides: the manifold is the four corners, with the same
// features whichever way the round-off falls, so the step's warm start finds them again.
TEST(CollideGeom, FlushStackedEqualBoxesGiveTheFourCornersWhateverTheRoundOff) {
  const double h = 0.1;
  tbGeomPose base = Pose(TB_GEOM_BOX, h, h, h, 0, 0, h);
  tbContactPoint c0[TB_MAXCON_PAIR];
  tbGeomPose top0 = Pose(TB_GEOM_BOX, h, h, h, 0, 0, 3 * h);
  ASSERT_EQ(Collide(top0, base, 1e-6, c0), 4);
  Lcg r;
  for (int trial = 0; trial < 200; trial++) {
    tbGeomPose top = Pose(TB_GEOM_BOX, h, h, h, r.Next(-1e-13, 1e-13), r.Next(-1e-13, 1e-13),
                          3 * h + r.Next(-1e-13, 1e-13));
    Rotate(&top, r.Next(-1, 1), r.Next(-1, 1), r.Next(-1, 1), r.Next(-1e-13, 1e-13));
    tbContactPoint c[TB_MAXCON_PAIR];
    ASSERT_EQ(Collide(top, base, 1e-6, c), 4) << "trial " << trial;
    for (int i = 0; i < 4; i++) {
      EXPECT_NEAR(std::fabs(c[i].pos[0]), h, 1e-12) << "a corner, trial " << trial;
      EXPECT_NEAR(std::fabs(c[i].pos[1]), h, 1e-12) << "a corner, trial " << trial;
      EXPECT_EQ(c[i].feature, c0[i].feature) << "trial " << trial;
    }
  }
}

// The same stack after it has rested a while: the boxes drift apart by about 1e-9 m and turn by
// about 1e-8 rad (box-stack after 700 steps), more than round-off. The manifold is still the
// four corners: a drifted edge along a side once gave a crossing anywhere along it, and one whose
// ends straddled the snap band a crossing extrapolated 16 mm outside both boxes.
TEST(CollideGeom, FlushStackedEqualBoxesGiveTheFourCornersAfterDrift) {
  const double h = 0.1;
  tbGeomPose base = Pose(TB_GEOM_BOX, h, h, h, 0, 0, h);
  Lcg r;
  for (int trial = 0; trial < 200; trial++) {
    tbGeomPose top = Pose(TB_GEOM_BOX, h, h, h, r.Next(-2e-9, 2e-9), r.Next(-2e-9, 2e-9),
                          3 * h + r.Next(-1e-13, 1e-13));
    Rotate(&top, r.Next(-1, 1), r.Next(-1, 1), r.Next(-1, 1), r.Next(-1e-8, 1e-8));
    tbContactPoint c[TB_MAXCON_PAIR];
    ASSERT_EQ(Collide(top, base, 1e-6, c), 4) << "trial " << trial;
    for (int i = 0; i < 4; i++) {
      EXPECT_NEAR(std::fabs(c[i].pos[0]), h, 1e-8) << "a corner, trial " << trial;
      EXPECT_NEAR(std::fabs(c[i].pos[1]), h, 1e-8) << "a corner, trial " << trial;
    }
  }
}

TEST(CollideGeom, BoxBoxEdgeEdge) {
  const double h = 0.5, pen = 0.02;
  tbGeomPose b = Pose(TB_GEOM_BOX, h, h, h, 0, 0, 0);
  Rotate(&b, 1, 0, 0, 0.25 * TB_PI);  // top edge along x at z = h sqrt2
  tbGeomPose a = Pose(TB_GEOM_BOX, h, h, h, 0, 0, 2.0 * std::sqrt(2.0) * h - pen);
  Rotate(&a, 0, 1, 0, 0.25 * TB_PI);  // bottom edge along y
  tbContactPoint c[TB_MAXCON_PAIR];
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);     // crossing edges: a single point
  EXPECT_NEAR(c[0].gap, -pen, 1e-12);      // edge overlap depth
  ExpectVec(c[0].normal, 0, 0, 1, 1e-12);  // x cross y, b -> a
  ExpectVec(c[0].pos, 0, 0, std::sqrt(2.0) * h - 0.5 * pen, 1e-12);  // between the edges
  ASSERT_EQ(Collide(b, a, 0.0, c), 1);                               // swapped
  EXPECT_NEAR(c[0].gap, -pen, 1e-12);                                // same gap
  ExpectVec(c[0].normal, 0, 0, -1, 1e-12);                           // flipped normal
}

TEST(CollideGeom, SwapFlipsNormalKeepsGap) {
  // distinct types run the same pair routine either way, so the match is exact; same-type pairs
  // are covered by the box/capsule/sphere cases above (their routines are not symmetric in
  // round-off, and box-box may pick the other box's face as reference)
  Lcg r;
  for (int ta = 0; ta < TB_NGEOMTYPE; ta++) {
    for (int tb = 0; tb < TB_NGEOMTYPE; tb++) {
      if (ta == tb) continue;
      for (int trial = 0; trial < 50; trial++) {
        tbGeomPose a = RandomPose(&r, ta), b = RandomPose(&r, tb);
        tbContactPoint c1[TB_MAXCON_PAIR], c2[TB_MAXCON_PAIR];
        int n1 = Collide(a, b, 0.2, c1), n2 = Collide(b, a, 0.2, c2);
        ASSERT_EQ(n1, n2);  // same contacts in either order
        for (int i = 0; i < n1; i++) {
          EXPECT_EQ(c1[i].gap, c2[i].gap);  // gaps are symmetric (same pair routine)
          for (int k = 0; k < 3; k++) {
            EXPECT_EQ(c1[i].normal[k], -c2[i].normal[k]);  // exactly negated
            EXPECT_EQ(c1[i].pos[k], c2[i].pos[k]);         // same point
          }
        }
      }
    }
  }
}

TEST(CollideGeom, CountsBoundedAndContactsWellFormed) {
  Lcg r;
  int total = 0;
  for (int ta = 0; ta < TB_NGEOMTYPE; ta++) {
    for (int tb = 0; tb < TB_NGEOMTYPE; tb++) {
      int mx = tbu_collideMax(ta, tb);
      EXPECT_LE(mx, TB_MAXCON_PAIR);          // buffers of TB_MAXCON_PAIR suffice
      EXPECT_EQ(mx, tbu_collideMax(tb, ta));  // symmetric bound
      for (int trial = 0; trial < 300; trial++) {
        tbGeomPose a = RandomPose(&r, ta), b = RandomPose(&r, tb);
        double margin = r.Next(0.0, 0.3);
        tbContactPoint c[TB_MAXCON_PAIR];
        int n = Collide(a, b, margin, c);
        total += n;
        EXPECT_GE(n, 0);   // a count
        EXPECT_LE(n, mx);  // bounded by tbu_collideMax
        for (int i = 0; i < n; i++) {
          EXPECT_LT(c[i].gap, margin);                     // only contacts below margin
          EXPECT_NEAR(tbu_norm3(c[i].normal), 1.0, 1e-9);  // unit normal
          double tn = tbu_norm3(c[i].tangent);
          EXPECT_TRUE(tn == 0.0 || std::fabs(tn - 1.0) < 1e-9);         // unit or none
          EXPECT_NEAR(tbu_dot3(c[i].tangent, c[i].normal), 0.0, 1e-9);  // orthogonal
          EXPECT_GE(c[i].feature, 0);                                   // a warm-start key's range
          EXPECT_LT(c[i].feature, TB_NFEATURE);                         // a warm-start key's range
          for (int j = 0; j < i; j++) EXPECT_NE(c[i].feature, c[j].feature);  // one key each
        }
      }
    }
  }
  EXPECT_EQ(tbu_collideMax(TB_GEOM_PLANE, TB_GEOM_PLANE), 0);  // planes never collide
  EXPECT_GT(total, 500);  // the random poses do exercise contacts
}

// a shape the plane test culls has no contact with the plane, whatever its pose; the test
// culls most shapes well above the plane and none within its reach
TEST(CollideGeom, ClearOfPlaneCullsOnlyShapesWithoutContact) {
  Lcg r;
  int culled = 0;
  for (int trial = 0; trial < 3000; trial++) {
    int type = trial % 3 == 0 ? TB_GEOM_SPHERE : trial % 3 == 1 ? TB_GEOM_CAPSULE : TB_GEOM_BOX;
    tbGeomPose s = RandomPose(&r, type), pl = RandomPose(&r, TB_GEOM_PLANE);
    const double* z = s.size;
    double reach = type == TB_GEOM_SPHERE    ? z[0]
                   : type == TB_GEOM_CAPSULE ? z[0] + z[1]
                                             : std::sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
    double margin = r.Next(0.0, 0.3);
    tbContactPoint c[TB_MAXCON_PAIR];
    if (!tbg_clearOfPlane(&pl, &s, reach, margin)) continue;
    culled++;
    EXPECT_EQ(Collide(s, pl, margin, c), 0) << trial;
    EXPECT_EQ(Collide(pl, s, margin, c), 0) << trial;
  }
  EXPECT_GT(culled, 300);
  // touching, and within the margin: kept
  tbGeomPose ball = Pose(TB_GEOM_SPHERE, 0.1, 0, 0, 0, 0, 0.1),
             ground = Pose(TB_GEOM_PLANE, 0, 0, 0, 0, 0, 0);
  EXPECT_FALSE(tbg_clearOfPlane(&ground, &ball, 0.1, 0.0));
  ball.pos[2] = 0.15;
  EXPECT_FALSE(tbg_clearOfPlane(&ground, &ball, 0.1, 0.1));
  ball.pos[2] = 0.25;
  EXPECT_TRUE(tbg_clearOfPlane(&ground, &ball, 0.1, 0.1));
  EXPECT_FALSE(tbg_clearOfPlane(&ball, &ground, 0.1, 0.1));  // the first shape must be the plane
}

TEST(CollideGeom, RandomSpheresMatchBruteForceGap) {
  // sphere against box/capsule: gap equals the signed distance of the centre minus r
  Lcg r;
  for (int trial = 0; trial < 500; trial++) {
    tbGeomPose s = RandomPose(&r, TB_GEOM_SPHERE);
    tbGeomPose box = RandomPose(&r, TB_GEOM_BOX);
    tbContactPoint c[TB_MAXCON_PAIR];
    ASSERT_EQ(Collide(s, box, 10.0, c), 1);  // huge margin: always one contact
    double d[3], l[3];
    tbu_sub3(d, s.pos, box.pos);
    tbu_rotVecInv(l, box.quat, d);
    EXPECT_NEAR(c[0].gap, tbg_boxSdf(l, box.size) - s.size[0], 1e-12);  // signed distance
    // a moved by -gap along the normal just touches (sdf is 0 on the surface)
    double p[3];
    tbu_addscl3(p, s.pos, c[0].normal, -c[0].gap);
    tbu_sub3(d, p, box.pos);
    tbu_rotVecInv(l, box.quat, d);
    EXPECT_NEAR(tbg_boxSdf(l, box.size), s.size[0], 1e-9);  // separation check of the normal
  }
}

TEST(CollideGeom, Deterministic) {
  Lcg r;
  for (int ta = 0; ta < TB_NGEOMTYPE; ta++) {
    for (int tb = 0; tb < TB_NGEOMTYPE; tb++) {
      for (int trial = 0; trial < 50; trial++) {
        tbGeomPose a = RandomPose(&r, ta), b = RandomPose(&r, tb);
        tbContactPoint c1[TB_MAXCON_PAIR], c2[TB_MAXCON_PAIR];
        int n1 = Collide(a, b, 0.1, c1), n2 = Collide(a, b, 0.1, c2);
        ASSERT_EQ(n1, n2);                              // same count
        EXPECT_EQ(std::memcmp(c1, c2, sizeof(c1)), 0);  // bitwise identical
      }
    }
  }
}

namespace {

// signed distance from world point p to shape g (brute force, for checking contacts)
double Sdf(const tbGeomPose& g, const double p[3]) {
  double d[3], l[3];
  tbu_sub3(d, p, g.pos);
  tbu_rotVecInv(l, g.quat, d);
  switch (g.type) {
    case TB_GEOM_SPHERE:
      return tbu_norm3(l) - g.size[0];
    case TB_GEOM_CAPSULE: {
      double z = std::fmax(-g.size[1], std::fmin(g.size[1], l[2]));
      double e[3] = {l[0], l[1], l[2] - z};
      return tbu_norm3(e) - g.size[0];
    }
    case TB_GEOM_BOX:
      return tbg_boxSdf(l, g.size);
    case TB_GEOM_MESH: {  // exact on the surface (0 there), a lower bound off it
      double s = -INFINITY;
      for (int f = 0; f < g.hull.nface; f++) {
        s = std::fmax(s, tbu_dot3(g.hull.plane + 4 * f, l) - g.hull.plane[4 * f + 3]);
      }
      return s;
    }
    default:
      return l[2];
  }
}

}  // namespace

TEST(CollideGeom, ContactEndsLieOnSurfaces) {
  // pos +- gap/2 * normal must land on the surfaces of a and b respectively, for every pair
  Lcg r;
  int checked = 0;
  for (int ta = 0; ta < TB_NGEOMTYPE; ta++) {
    for (int tb = 0; tb < TB_NGEOMTYPE; tb++) {
      for (int trial = 0; trial < 300; trial++) {
        tbGeomPose a = RandomPose(&r, ta), b = RandomPose(&r, tb);
        tbContactPoint c[TB_MAXCON_PAIR];
        int n = Collide(a, b, 0.2, c);
        for (int i = 0; i < n; i++) {
          double pa[3], pb[3];
          tbu_addscl3(pa, c[i].pos, c[i].normal, 0.5 * c[i].gap);
          tbu_addscl3(pb, c[i].pos, c[i].normal, -0.5 * c[i].gap);
          bool polyhedra = (ta == TB_GEOM_BOX || ta == TB_GEOM_MESH) &&
                           (tb == TB_GEOM_BOX || tb == TB_GEOM_MESH);
          bool edge =
              ta == TB_GEOM_BOX && tb == TB_GEOM_BOX ? c[i].feature >= 64 : c[i].feature == 79;
          if (polyhedra && edge && c[i].gap > 0.0) {
            // separated edge-edge axis: the SAT distance is a lower bound, the support edges'
            // closest points may be clamped to a vertex: not a surface pair, nothing to check
            continue;
          }
          // deep rounded ends: the rest of the capsule may cover its end sphere's surface point,
          // so only "on or inside" holds there; otherwise the ends lie exactly on the surfaces
          bool rounded = ta == TB_GEOM_CAPSULE || tb == TB_GEOM_CAPSULE;
          double sa = Sdf(a, pa), sb = Sdf(b, pb);
          EXPECT_LE(sa, 1e-9);  // pa is on or inside a
          EXPECT_LE(sb, 1e-9);  // pb is on or inside b
          if (!rounded) {
            EXPECT_NEAR(sa, 0.0, 1e-9) << ta << tb << " " << trial;  // exactly on a's surface
            EXPECT_NEAR(sb, 0.0, 1e-9) << ta << tb << " " << trial;  // exactly on b's surface
          }
          checked++;
        }
      }
    }
  }
  EXPECT_GT(checked, 500);  // enough contacts exercised
}

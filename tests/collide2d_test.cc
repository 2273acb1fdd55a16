// Tests for host/math/collide2d.h: planar contact geometry between rounded convex polygons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

extern "C" {
#include "math/collide2d.h"
}

namespace {

const double kTol = 1e-12;

struct Shape {
  double v[2 * TB_MAXVERT2D];
  int n;
  double r;
};

Shape Disc(double x, double y, double r) {
  Shape s;
  std::memset(&s, 0, sizeof(s));
  s.v[0] = x;
  s.v[1] = y;
  s.n = 1;
  s.r = r;
  return s;
}

Shape Seg(double x0, double y0, double x1, double y1, double r) {
  Shape s = Disc(x0, y0, r);
  s.v[2] = x1;
  s.v[3] = y1;
  s.n = 2;
  return s;
}

// axis-aligned box [x0, x1] x [y0, y1], counter-clockwise from the lower left corner
Shape Box(double x0, double y0, double x1, double y1, double r = 0.0) {
  Shape s = Disc(x0, y0, r);
  const double xy[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
  std::memcpy(s.v, xy, sizeof(xy));
  s.n = 4;
  return s;
}

// s rotated by angle about the origin, then moved by (tx, ty)
Shape Moved(const Shape& s, double angle, double tx, double ty) {
  Shape m = s;
  const double t[2] = {tx, ty};
  tbg2_transform(s.v, s.n, std::cos(angle), std::sin(angle), t, m.v);
  return m;
}

int Collide(const Shape& a, const Shape& b, double margin, tbContact2* c) {
  std::memset(c, 0, 2 * sizeof(tbContact2));
  return tbg2_collide(a.v, a.n, a.r, b.v, b.n, b.r, margin, c);
}

double Gap(const tbContact2& c) {
  return (c.pa[0] - c.pb[0]) * c.n[0] + (c.pa[1] - c.pb[1]) * c.n[1];
}

void ExpectVec2(const double* v, double x, double y, double tol) {
  EXPECT_NEAR(v[0], x, tol);
  EXPECT_NEAR(v[1], y, tol);
}

// the two contacts ordered by the x of pb (for checks that do not depend on the output order)
void SortByX(tbContact2* c, int n) {
  if (n == 2 && c[1].pb[0] < c[0].pb[0]) std::swap(c[0], c[1]);
}

int Transposed(int f) {
  return 4 * (f & 3) + (f >> 2);
}

// deterministic pseudo-random numbers in [lo, hi)
struct Lcg {
  unsigned long long s;
  explicit Lcg(unsigned long long seed) : s(seed) {}
  double Next(double lo, double hi) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
};

// random core centred near (x, y): a point, a segment or a strictly convex polygon (vertices on
// an ellipse at increasing angles), with a random radius (zero a quarter of the time)
Shape RandomShape(Lcg* g, double x, double y) {
  const int counts[8] = {1, 2, 3, 4, 5, 6, 8, 16};
  Shape s = Disc(0, 0, 0);
  s.n = counts[static_cast<int>(g->Next(0, 8))];
  s.r = g->Next(0, 1) < 0.25 ? 0.0 : g->Next(0.0, 0.3);
  if (s.n == 2) {
    double h = g->Next(0.1, 0.8);
    s.v[0] = -h;
    s.v[2] = h;
  } else if (s.n >= 3) {
    double ax = g->Next(0.3, 1.0), ay = g->Next(0.3, 1.0), w[TB_MAXVERT2D], sum = 0.0;
    for (int i = 0; i < s.n; i++) sum += (w[i] = g->Next(0.5, 1.5));
    double th = 0.0;
    for (int i = 0; i < s.n; i++) {
      s.v[2 * i] = ax * std::cos(th);
      s.v[2 * i + 1] = ay * std::sin(th);
      th += 2.0 * TB_PI * w[i] / sum;
    }
  }
  s = Moved(s, g->Next(-TB_PI, TB_PI), x, y);
  EXPECT_EQ(tbg2_polygonInvalid(s.v, s.n), -1);  // the generator makes valid cores
  return s;
}

// distance from p to segment p0 p1
double PointSegDist(const double* p, const double* p0, const double* p1) {
  double dx = p1[0] - p0[0], dy = p1[1] - p0[1], dd = dx * dx + dy * dy;
  double t = dd > 0.0 ? ((p[0] - p0[0]) * dx + (p[1] - p0[1]) * dy) / dd : 0.0;
  t = std::max(0.0, std::min(1.0, t));
  return std::hypot(p[0] - p0[0] - t * dx, p[1] - p0[1] - t * dy);
}

// distance from p to a core (0 inside a polygon core)
double PointCoreDist(const double* p, const Shape& s) {
  if (s.n == 1) return std::hypot(p[0] - s.v[0], p[1] - s.v[1]);
  double d = 1e300;
  bool inside = s.n >= 3;
  for (int k = 0; k < s.n; k++) {
    const double* p0 = s.v + 2 * k;
    const double* p1 = s.v + 2 * ((k + 1) % s.n);
    d = std::min(d, PointSegDist(p, p0, p1));
    double cr = (p1[0] - p0[0]) * (p[1] - p0[1]) - (p1[1] - p0[1]) * (p[0] - p0[0]);
    if (cr < 0.0) inside = false;
  }
  return inside ? 0.0 : d;
}

// points along the boundary of a core, m per edge (vertices included)
int Samples(const Shape& s, int m, double* out) {
  if (s.n == 1) {
    out[0] = s.v[0];
    out[1] = s.v[1];
    return 1;
  }
  int ne = s.n == 2 ? 1 : s.n, c = 0;
  for (int k = 0; k < ne; k++) {
    const double* p0 = s.v + 2 * k;
    const double* p1 = s.v + 2 * ((k + 1) % s.n);
    for (int i = 0; i < m; i++) {
      double t = static_cast<double>(i) / m;
      out[2 * c] = p0[0] + t * (p1[0] - p0[0]);
      out[2 * c + 1] = p0[1] + t * (p1[1] - p0[1]);
      c++;
    }
  }
  if (s.n == 2) {
    out[2 * c] = s.v[2];
    out[2 * c + 1] = s.v[3];
    c++;
  }
  return c;
}

// core distance from dense boundary samples of each core to the other core (exact segments):
// the closest pair always has a vertex of one core, which is a sample
double SampledCoreDist(const Shape& a, const Shape& b) {
  static double pts[2 * (TB_MAXVERT2D * 64 + 1)];
  double d = 1e300;
  for (int pass = 0; pass < 2; pass++) {
    const Shape& s = pass == 0 ? a : b;
    const Shape& o = pass == 0 ? b : a;
    int m = Samples(s, 64, pts);
    for (int i = 0; i < m; i++) d = std::min(d, PointCoreDist(pts + 2 * i, o));
  }
  return d;
}

// sample-to-sample distance (no exact geometry at all) and the largest sample spacing h: the
// true distance lies in [result - h, result]
double DenseDist(const Shape& a, const Shape& b, double* h) {
  static double pa[2 * (TB_MAXVERT2D * 100 + 1)], pb[2 * (TB_MAXVERT2D * 100 + 1)];
  int ma = Samples(a, 100, pa), mb = Samples(b, 100, pb);
  double d = 1e300;
  for (int i = 0; i < ma; i++) {
    for (int j = 0; j < mb; j++) {
      d = std::min(d, std::hypot(pa[2 * i] - pb[2 * j], pa[2 * i + 1] - pb[2 * j + 1]));
    }
  }
  *h = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    const Shape& s = pass == 0 ? a : b;
    for (int k = 0; k < s.n && s.n >= 2; k++) {
      const double* p0 = s.v + 2 * k;
      const double* p1 = s.v + 2 * ((k + 1) % s.n);
      *h = std::max(*h, std::hypot(p1[0] - p0[0], p1[1] - p0[1]) / 100.0);
    }
  }
  return d;
}

}  // namespace

TEST(Collide2dTest, DiscDisc) {
  Shape a = Disc(3, 0, 1.0), b = Disc(0, 0, 0.5);
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 2.0, c), 1);  // separated discs within margin: one contact
  EXPECT_NEAR(Gap(c[0]), 1.5, kTol);    // centre distance minus the radii
  ExpectVec2(c[0].n, 1, 0, kTol);       // from b to a
  ExpectVec2(c[0].pa, 2, 0, kTol);      // a's surface
  ExpectVec2(c[0].pb, 0.5, 0, kTol);    // b's surface
  EXPECT_EQ(Collide(a, b, 1.5, c), 0);  // gap == margin is culled (gap < margin kept)

  a = Disc(0.6, 0.8, 1.0);  // centre distance 1, overlap 0.5
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.5, kTol);  // penetration
  ExpectVec2(c[0].n, 0.6, 0.8, kTol);  // centre direction
  ExpectVec2(c[0].pa, 0.0, 0.0, kTol);
  ExpectVec2(c[0].pb, 0.3, 0.4, kTol);
}

TEST(Collide2dTest, DiscDiscCoincident) {
  Shape a = Disc(1, 2, 0.25), b = Disc(1, 2, 0.5);
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 0.0, c), 1);
  ExpectVec2(c[0].n, 1, 0, 0.0);        // deterministic +x
  EXPECT_NEAR(Gap(c[0]), -0.75, kTol);  // both radii
  ASSERT_EQ(Collide(b, a, 0.0, c), 1);
  ExpectVec2(c[0].n, 1, 0, 0.0);  // +x in either order (the documented tie)
}

TEST(Collide2dTest, DiscPolygonFace) {
  Shape box = Box(-1, -1, 1, 1);
  Shape d = Disc(0.3, 2.0, 0.25);
  tbContact2 c[2];
  ASSERT_EQ(Collide(d, box, 1.0, c), 1);  // a disc has no incident edge: one point
  EXPECT_NEAR(Gap(c[0]), 0.75, kTol);     // 2 - 1 - 0.25
  ExpectVec2(c[0].n, 0, 1, kTol);         // the top face normal
  ExpectVec2(c[0].pa, 0.3, 1.75, kTol);
  ExpectVec2(c[0].pb, 0.3, 1.0, kTol);

  box.r = 0.1;  // rounded box: the face moves out by its radius
  ASSERT_EQ(Collide(d, box, 1.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), 0.65, kTol);
  ExpectVec2(c[0].pb, 0.3, 1.1, kTol);

  ASSERT_EQ(Collide(box, d, 1.0, c), 1);  // swapped: normal from the disc to the box
  ExpectVec2(c[0].n, 0, -1, kTol);
  ExpectVec2(c[0].pa, 0.3, 1.1, kTol);
  ExpectVec2(c[0].pb, 0.3, 1.75, kTol);
}

TEST(Collide2dTest, DiscPolygonCorner) {
  Shape box = Box(-1, -1, 1, 1, 0.05);
  Shape d = Disc(2, 3, 0.2);
  tbContact2 c[2];
  ASSERT_EQ(Collide(d, box, 5.0, c), 1);
  const double s5 = std::sqrt(5.0);
  EXPECT_NEAR(Gap(c[0]), s5 - 0.25, kTol);   // distance to the corner (1, 1) minus radii
  ExpectVec2(c[0].n, 1 / s5, 2 / s5, kTol);  // from the corner to the centre
  ExpectVec2(c[0].pb, 1 + 0.05 / s5, 1 + 0.1 / s5, kTol);
  ExpectVec2(c[0].pa, 2 - 0.2 / s5, 3 - 0.4 / s5, kTol);
}

TEST(Collide2dTest, BoxesFaceToFace) {
  Shape b = Box(-1, -1, 1, 1);
  Shape a = Box(0.5, 1.1, 2.5, 1.6);  // overlaps b's top face over x in [0.5, 1]
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 0.2, c), 2);  // a two-point manifold
  EXPECT_NE(c[0].feature, c[1].feature);
  SortByX(c, 2);
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(Gap(c[i]), 0.1, kTol);
    ExpectVec2(c[i].n, 0, 1, kTol);
    EXPECT_NEAR(c[i].pa[1], 1.1, kTol);  // a's bottom face
    EXPECT_NEAR(c[i].pb[1], 1.0, kTol);  // b's top face
  }
  EXPECT_NEAR(c[0].pa[0], 0.5, kTol);  // the ends of the overlap
  EXPECT_NEAR(c[1].pa[0], 1.0, kTol);
  EXPECT_NEAR(c[0].pb[0], 0.5, kTol);
  EXPECT_NEAR(c[1].pb[0], 1.0, kTol);

  // a sits inside b's width: the clip keeps a's whole bottom edge
  a = Box(-0.4, 1.1, 0.2, 1.6, 0.02);
  b.r = 0.03;
  ASSERT_EQ(Collide(a, b, 0.2, c), 2);
  SortByX(c, 2);
  EXPECT_NEAR(c[0].pb[0], -0.4, kTol);
  EXPECT_NEAR(c[1].pb[0], 0.2, kTol);
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(Gap(c[i]), 0.05, kTol);  // 0.1 - 0.02 - 0.03
    EXPECT_NEAR(c[i].pa[1], 1.08, kTol);
    EXPECT_NEAR(c[i].pb[1], 1.03, kTol);
  }
}

TEST(Collide2dTest, EqualBoxesStackedFlush) {
  // equal widths, corners exactly above corners: the closest pairs are vertex-vertex, but the
  // direction is both faces' normal, so the faces are the manifold (two points, not one)
  Shape b = Box(-1, -1, 1, 1), a = Box(-1, 1.05, 1, 2);
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 0.1, c), 2);
  SortByX(c, 2);
  EXPECT_NEAR(c[0].pb[0], -1.0, kTol);
  EXPECT_NEAR(c[1].pb[0], 1.0, kTol);
  for (int i = 0; i < 2; i++) EXPECT_NEAR(Gap(c[i]), 0.05, kTol);
  // the same in a rotated, translated frame (round-off makes the pairs miss the faces slightly)
  for (int k = 0; k < 20; k++) {
    double th = 0.3 * k + 0.1, tx = 3.0 * std::sin(k), ty = -2.0 * std::cos(3 * k);
    Shape am = Moved(a, th, tx, ty), bm = Moved(b, th, tx, ty);
    ASSERT_EQ(Collide(am, bm, 0.1, c), 2) << "k " << k;
    for (int i = 0; i < 2; i++) {
      EXPECT_NEAR(Gap(c[i]), 0.05, 1e-12);
      ExpectVec2(c[i].n, -std::sin(th), std::cos(th), 1e-12);
    }
  }
}

TEST(Collide2dTest, RotatedBoxCornerOnFace) {
  Shape b = Box(-2, -1, 2, 1);
  Shape sq = Moved(Box(-0.5, -0.5, 0.5, 0.5), TB_PI / 6, 0, 0);
  int low = 0;  // lowest corner
  for (int i = 1; i < 4; i++) {
    if (sq.v[2 * i + 1] < sq.v[2 * low + 1]) low = i;
  }
  Shape a = Moved(sq, 0.0, 0.2 - sq.v[2 * low], 1.05 - sq.v[2 * low + 1]);
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 0.1, c), 1);  // the corner only: the other end is 0.5 higher
  EXPECT_NEAR(Gap(c[0]), 0.05, kTol);
  ExpectVec2(c[0].n, 0, 1, kTol);
  ExpectVec2(c[0].pa, 0.2, 1.05, kTol);
  ExpectVec2(c[0].pb, 0.2, 1.0, kTol);
  ASSERT_EQ(Collide(a, b, 1.0, c), 2);  // a larger margin also keeps the incident edge's end
  double g0 = std::min(Gap(c[0]), Gap(c[1])), g1 = std::max(Gap(c[0]), Gap(c[1]));
  EXPECT_NEAR(g0, 0.05, kTol);
  EXPECT_NEAR(g1, 0.55, kTol);  // 0.05 + sin(30 deg)

  a = Moved(a, 0.0, 0.0, -0.1);  // corner 0.05 into the face
  ASSERT_EQ(Collide(a, b, 0.1, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.05, kTol);
  ExpectVec2(c[0].n, 0, 1, kTol);
  ExpectVec2(c[0].pa, 0.2, 0.95, kTol);
  ExpectVec2(c[0].pb, 0.2, 1.0, kTol);
}

TEST(Collide2dTest, SquaresCornerToCorner) {
  Shape b = Box(-1, -1, 1, 1, 0.02), a = Box(1.1, 1.1, 2.1, 2.1, 0.01);
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 1.0, c), 1);  // vertex-vertex: one contact even with a big margin
  const double h = 1.0 / std::sqrt(2.0);
  ExpectVec2(c[0].n, h, h, kTol);  // the diagonal
  EXPECT_NEAR(Gap(c[0]), 0.1 * std::sqrt(2.0) - 0.03, kTol);
  ExpectVec2(c[0].pa, 1.1 - 0.01 * h, 1.1 - 0.01 * h, kTol);
  ExpectVec2(c[0].pb, 1 + 0.02 * h, 1 + 0.02 * h, kTol);
}

TEST(Collide2dTest, StadiumOnPolygon) {
  Shape b = Box(-1, -1, 1, 1);
  Shape s = Seg(-0.5, 1.3, 0.5, 1.3, 0.2);  // lying flat above the top face
  tbContact2 c[2];
  ASSERT_EQ(Collide(s, b, 0.2, c), 2);
  EXPECT_NE(c[0].feature, c[1].feature);
  SortByX(c, 2);
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(Gap(c[i]), 0.1, kTol);
    ExpectVec2(c[i].n, 0, 1, kTol);
    ExpectVec2(c[i].pa, i == 0 ? -0.5 : 0.5, 1.1, kTol);
    ExpectVec2(c[i].pb, i == 0 ? -0.5 : 0.5, 1.0, kTol);
  }
  // standing on its end: one contact (the far end is above the margin)
  s = Seg(0.2, 1.2, 0.2, 2.2, 0.1);
  ASSERT_EQ(Collide(s, b, 0.5, c), 1);
  EXPECT_NEAR(Gap(c[0]), 0.1, kTol);
  ExpectVec2(c[0].pa, 0.2, 1.1, kTol);
  ExpectVec2(c[0].n, 0, 1, kTol);
  // a stadium and a polygon corner: vertex-vertex between the end and the corner
  s = Seg(1.3, 1.4, 2.3, 2.4, 0.1);
  ASSERT_EQ(Collide(s, b, 1.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), 0.5 - 0.1, kTol);
  ExpectVec2(c[0].n, 0.6, 0.8, kTol);
}

TEST(Collide2dTest, StadiumStadiumParallel) {
  Shape a = Seg(0, 0.5, 2, 0.5, 0.2), b = Seg(-1, 0, 1, 0, 0.1);
  tbContact2 c[2];
  ASSERT_EQ(Collide(a, b, 0.3, c), 2);  // overlap x in [0, 1]
  EXPECT_NE(c[0].feature, c[1].feature);
  SortByX(c, 2);
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(Gap(c[i]), 0.2, kTol);  // 0.5 - 0.2 - 0.1
    ExpectVec2(c[i].n, 0, 1, kTol);
    ExpectVec2(c[i].pa, i, 0.3, kTol);
    ExpectVec2(c[i].pb, i, 0.1, kTol);
  }
  // b below a, but a's segment reversed: the other side's normal is used
  a = Seg(2, 0.5, 0, 0.5, 0.2);
  ASSERT_EQ(Collide(a, b, 0.3, c), 2);
  SortByX(c, 2);
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(Gap(c[i]), 0.2, kTol);
    ExpectVec2(c[i].n, 0, 1, kTol);
    ExpectVec2(c[i].pb, i, 0.1, kTol);
  }
  // end to end on one line: vertex-vertex along the line
  a = Seg(1.5, 0, 3, 0, 0.1);
  ASSERT_EQ(Collide(a, b, 1.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), 0.3, kTol);
  ExpectVec2(c[0].n, 1, 0, kTol);
}

TEST(Collide2dTest, PenetrationDepths) {
  Shape b = Box(-1, -1, 1, 1);
  tbContact2 c[2];
  // box sunk 0.1 into the top face
  Shape a = Box(0.5, 0.9, 2.5, 1.4);
  ASSERT_EQ(Collide(a, b, 0.0, c), 2);
  SortByX(c, 2);
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(Gap(c[i]), -0.1, kTol);
    ExpectVec2(c[i].n, 0, 1, kTol);
    ExpectVec2(c[i].pa, i == 0 ? 0.5 : 1.0, 0.9, kTol);
    ExpectVec2(c[i].pb, i == 0 ? 0.5 : 1.0, 1.0, kTol);
  }
  // disc centre inside: out through the nearest face (the top, 0.3 away)
  Shape d = Disc(0.2, 0.7, 0.1);
  ASSERT_EQ(Collide(d, b, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.4, kTol);
  ExpectVec2(c[0].n, 0, 1, kTol);
  ExpectVec2(c[0].pa, 0.2, 0.6, kTol);
  ExpectVec2(c[0].pb, 0.2, 1.0, kTol);
  b.r = 0.05;  // rounded: deeper by the radius
  ASSERT_EQ(Collide(d, b, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.45, kTol);
  ExpectVec2(c[0].pb, 0.2, 1.05, kTol);
  b.r = 0.0;
  // disc centre near the left face
  d = Disc(-0.8, -0.1, 0.0);
  ASSERT_EQ(Collide(d, b, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.2, kTol);
  ExpectVec2(c[0].n, -1, 0, kTol);
  // stadium poking through the top face (perpendicular): its lower end
  Shape s = Seg(0.3, 0.8, 0.3, 1.5, 0.1);
  ASSERT_EQ(Collide(s, b, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.3, kTol);
  ExpectVec2(c[0].n, 0, 1, kTol);
  ExpectVec2(c[0].pa, 0.3, 0.7, kTol);
  ExpectVec2(c[0].pb, 0.3, 1.0, kTol);
  // crossing stadiums: the least penetrating of the four segment normals (0.3 along y)
  Shape h = Seg(-1, 0, 1, 0, 0.1), v = Seg(0.2, -0.3, 0.2, 0.5, 0.1);
  ASSERT_EQ(Collide(h, v, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.5, kTol);
  ExpectVec2(c[0].n, 0, -1, kTol);  // push h down
  ExpectVec2(c[0].pa, 0.2, 0.1, kTol);
  ExpectVec2(c[0].pb, 0.2, -0.4, kTol);
  // disc centre exactly on a stadium's segment: the tie goes to the segment's first normal
  d = Disc(0.3, 0.0, 0.05);
  ASSERT_EQ(Collide(d, h, 0.0, c), 1);
  EXPECT_NEAR(Gap(c[0]), -0.15, kTol);
  ExpectVec2(c[0].n, 0, -1, kTol);  // edge 0 runs +x, its outward normal is -y
}

TEST(Collide2dTest, MarginCulling) {
  Shape b = Box(-1, -1, 1, 1);
  Shape a = Box(0.5, 1.1, 2.5, 1.6);
  tbContact2 c[2];
  EXPECT_EQ(Collide(a, b, 0.0, c), 0);
  EXPECT_EQ(Collide(a, b, 0.1 - 1e-9, c), 0);
  EXPECT_EQ(Collide(a, b, 0.1 + 1e-9, c), 2);
  // tilted box: near corner 0.01 above the face, far corner 0.01 + sin(0.2) above it
  Shape t = Moved(Box(0, 0, 1, 0.5), 0.2, -0.5, 1.01);
  ASSERT_EQ(Collide(t, b, 0.1, c), 1);
  EXPECT_NEAR(Gap(c[0]), 0.01, kTol);
  ExpectVec2(c[0].pa, -0.5, 1.01, kTol);
  ASSERT_EQ(Collide(t, b, 0.5, c), 2);
  SortByX(c, 2);
  EXPECT_NEAR(Gap(c[0]), 0.01, kTol);
  EXPECT_NEAR(Gap(c[1]), 0.01 + std::sin(0.2), kTol);
  ExpectVec2(c[1].pa, -0.5 + std::cos(0.2), 1.01 + std::sin(0.2), kTol);
  // far apart: nothing, even for vertex-vertex
  EXPECT_EQ(Collide(Box(3, 3, 4, 4), b, 0.5, c), 0);
}

TEST(Collide2dTest, SwapSymmetry) {
  Lcg g(7);
  int total = 0;
  for (int trial = 0; trial < 3000; trial++) {
    Shape a = RandomShape(&g, 0, 0);
    double ang = g.Next(-TB_PI, TB_PI), dist = g.Next(0.0, 2.5);
    Shape b = RandomShape(&g, dist * std::cos(ang), dist * std::sin(ang));
    tbContact2 c1[2], c2[2];
    int n1 = Collide(a, b, 0.3, c1), n2 = Collide(b, a, 0.3, c2);
    ASSERT_EQ(n1, n2) << "trial " << trial;
    total += n1;
    for (int i = 0; i < n1; i++) {
      for (int k = 0; k < 2; k++) {
        EXPECT_NEAR(c1[i].n[k], -c2[i].n[k], 1e-12);
        EXPECT_NEAR(c1[i].pa[k], c2[i].pb[k], 1e-12);
        EXPECT_NEAR(c1[i].pb[k], c2[i].pa[k], 1e-12);
      }
    }
    if (n1 >= 1) {
      EXPECT_EQ(c2[0].feature, Transposed(c1[0].feature));
    }
    if (n1 == 2 && c2[1].feature != Transposed(c1[1].feature)) {  // the rare bumped second
      EXPECT_EQ(c1[1].feature, (c1[0].feature + 1) & 15);
      EXPECT_EQ(c2[1].feature, (c2[0].feature + 1) & 15);
    }
  }
  EXPECT_GT(total, 1000);  // the trials do make contacts

  // parallel faces tie exactly: the other reference face, same two points (possibly reordered)
  Shape a = Box(0.5, 1.1, 2.5, 1.6), b = Box(-1, -1, 1, 1);
  tbContact2 c1[2], c2[2];
  ASSERT_EQ(Collide(a, b, 0.2, c1), 2);
  ASSERT_EQ(Collide(b, a, 0.2, c2), 2);
  SortByX(c1, 2);
  for (int i = 0; i < 2; i++) std::swap(c2[i].pa, c2[i].pb);
  SortByX(c2, 2);
  for (int i = 0; i < 2; i++) {
    ExpectVec2(c2[i].pa, c1[i].pa[0], c1[i].pa[1], kTol);
    ExpectVec2(c2[i].pb, c1[i].pb[0], c1[i].pb[1], kTol);
    ExpectVec2(c2[i].n, -c1[i].n[0], -c1[i].n[1], kTol);
    EXPECT_EQ(c2[i].feature, Transposed(c1[i].feature));
  }
}

TEST(Collide2dTest, RigidTransformInvariance) {
  Lcg g(11);
  int total = 0;
  for (int trial = 0; trial < 2000; trial++) {
    Shape a = RandomShape(&g, 0, 0);
    double ang = g.Next(-TB_PI, TB_PI), dist = g.Next(0.0, 2.5);
    Shape b = RandomShape(&g, dist * std::cos(ang), dist * std::sin(ang));
    double th = g.Next(-TB_PI, TB_PI), tx = g.Next(-5, 5), ty = g.Next(-5, 5);
    double cs = std::cos(th), sn = std::sin(th);
    tbContact2 c1[2], c2[2];
    int n1 = Collide(a, b, 0.3, c1);
    int n2 = Collide(Moved(a, th, tx, ty), Moved(b, th, tx, ty), 0.3, c2);
    ASSERT_EQ(n1, n2) << "trial " << trial;
    total += n1;
    for (int i = 0; i < n1; i++) {
      const double t[2] = {tx, ty};
      double pa[2], pb[2], n[2];
      tbg2_transform(c1[i].pa, 1, cs, sn, t, pa);
      tbg2_transform(c1[i].pb, 1, cs, sn, t, pb);
      n[0] = cs * c1[i].n[0] - sn * c1[i].n[1];
      n[1] = sn * c1[i].n[0] + cs * c1[i].n[1];
      ExpectVec2(c2[i].pa, pa[0], pa[1], 1e-9);
      ExpectVec2(c2[i].pb, pb[0], pb[1], 1e-9);
      ExpectVec2(c2[i].n, n[0], n[1], 1e-9);
      EXPECT_NEAR(Gap(c2[i]), Gap(c1[i]), 1e-9);
      EXPECT_EQ(c2[i].feature, c1[i].feature);
    }
  }
  EXPECT_GT(total, 700);
}

TEST(Collide2dTest, WellFormedAndDeterministic) {
  Lcg g(3);
  for (int trial = 0; trial < 3000; trial++) {
    Shape a = RandomShape(&g, 0, 0);
    double ang = g.Next(-TB_PI, TB_PI), dist = g.Next(0.0, 2.5);
    Shape b = RandomShape(&g, dist * std::cos(ang), dist * std::sin(ang));
    double margin = g.Next(0.0, 0.5);
    tbContact2 c[2], c2[2];
    int n = Collide(a, b, margin, c);
    ASSERT_EQ(Collide(a, b, margin, c2), n);
    EXPECT_EQ(std::memcmp(c, c2, sizeof(c)), 0);  // bitwise identical on a second call
    ASSERT_GE(n, 0);
    ASSERT_LE(n, 2);
    for (int i = 0; i < n; i++) {
      EXPECT_LT(Gap(c[i]), margin);
      EXPECT_NEAR(std::hypot(c[i].n[0], c[i].n[1]), 1.0, 1e-12);
      EXPECT_GE(c[i].feature, 0);
      EXPECT_LE(c[i].feature, 15);
    }
    if (n == 2) {
      EXPECT_NE(c[0].feature, c[1].feature);
      EXPECT_EQ(c[0].n[0], c[1].n[0]);  // one manifold, one normal
      EXPECT_EQ(c[0].n[1], c[1].n[1]);
    }
  }
}

TEST(Collide2dTest, GapMatchesSampledDistance) {
  // separated random pairs: the smallest gap is the exact core distance minus the radii, its
  // points lie on the two surfaces, and pa - pb is along n
  Lcg g(19);
  int checked = 0;
  for (int trial = 0; trial < 600; trial++) {
    Shape a = RandomShape(&g, 0, 0);
    double ang = g.Next(-TB_PI, TB_PI), dist = g.Next(0.5, 3.0);
    Shape b = RandomShape(&g, dist * std::cos(ang), dist * std::sin(ang));
    double d = SampledCoreDist(a, b);
    if (d < 1e-3) continue;  // overlapping or touching cores
    tbContact2 c[2];
    int n = Collide(a, b, 100.0, c);
    ASSERT_GE(n, 1);
    int m = n == 2 && Gap(c[1]) < Gap(c[0]) ? 1 : 0;
    EXPECT_NEAR(Gap(c[m]), d - a.r - b.r, 1e-10) << "trial " << trial;
    EXPECT_NEAR(PointCoreDist(c[m].pa, a), a.r, 1e-10);
    EXPECT_NEAR(PointCoreDist(c[m].pb, b), b.r, 1e-10);
    double e[2] = {c[m].pa[0] - c[m].pb[0], c[m].pa[1] - c[m].pb[1]};
    EXPECT_NEAR(e[0] * c[m].n[1] - e[1] * c[m].n[0], 0.0, 1e-10);
    for (int i = 0; i < n; i++) EXPECT_GE(Gap(c[i]), Gap(c[m]) - 1e-12);
    // a margin just short of the gap culls the pair, just past it keeps it, whether the boxes
    // about the cores or the whole search decide
    tbContact2 near[2];
    EXPECT_EQ(Collide(a, b, Gap(c[m]) - 1e-9, near), 0) << "trial " << trial;
    EXPECT_GE(Collide(a, b, Gap(c[m]) + 1e-9, near), 1) << "trial " << trial;
    if (trial % 4 == 0) {  // sample-to-sample, no exact geometry
      double h, dd = DenseDist(a, b, &h);
      EXPECT_LE(Gap(c[m]) + a.r + b.r, dd + 1e-12);
      EXPECT_GE(Gap(c[m]) + a.r + b.r, dd - h);
    }
    checked++;
  }
  EXPECT_GT(checked, 300);
}

TEST(Collide2dTest, PenetrationPushOut) {
  // overlapping random pairs: moving a by -gap along n leaves the rounded shapes just touching
  Lcg g(23);
  int checked = 0;
  for (int trial = 0; trial < 1000; trial++) {
    Shape a = RandomShape(&g, 0, 0);
    double ang = g.Next(-TB_PI, TB_PI), dist = g.Next(0.0, 1.0);
    Shape b = RandomShape(&g, dist * std::cos(ang), dist * std::sin(ang));
    if (SampledCoreDist(a, b) > a.r + b.r) continue;
    tbContact2 c[2];
    int n = Collide(a, b, 0.0, c);
    ASSERT_GE(n, 1) << "trial " << trial;
    double gmin = std::min(Gap(c[0]), n == 2 ? Gap(c[1]) : 1e300);
    EXPECT_LE(gmin, 1e-12);
    Shape m = Moved(a, 0.0, -gmin * c[0].n[0], -gmin * c[0].n[1]);
    EXPECT_GE(SampledCoreDist(m, b), a.r + b.r - 1e-9) << "trial " << trial;
    checked++;
  }
  EXPECT_GT(checked, 200);
}

TEST(Collide2dTest, NormalContinuousDiscOrbitsCorner) {
  // a disc circling the corner (1, 1) of a square through the right-face, corner and top-face
  // regions: one contact; n is (1, 0), then the corner direction, then (0, 1), with no jumps
  Shape b = Box(-1, -1, 1, 1);
  const double R = 0.5, r = 0.3, dth = 0.002;
  double prev[2] = {0, 0};
  for (int k = 0;; k++) {
    double th = -0.6 + k * dth;
    if (th > 0.5 * TB_PI + 0.6) break;
    Shape d = Disc(1 + R * std::cos(th), 1 + R * std::sin(th), r);
    tbContact2 c[2];
    ASSERT_EQ(Collide(d, b, 1.0, c), 1) << "th " << th;
    double nx = th < 0 ? 1.0 : (th > 0.5 * TB_PI ? 0.0 : std::cos(th));
    double ny = th < 0 ? 0.0 : (th > 0.5 * TB_PI ? 1.0 : std::sin(th));
    ExpectVec2(c[0].n, nx, ny, 1e-12);
    double dx = std::max(0.0, d.v[0] - 1), dy = std::max(0.0, d.v[1] - 1);
    EXPECT_NEAR(Gap(c[0]), std::hypot(dx, dy) - r, 1e-12);
    if (k > 0) {
      EXPECT_LE(std::hypot(c[0].n[0] - prev[0], c[0].n[1] - prev[1]), dth + 1e-12);
    }
    prev[0] = c[0].n[0];
    prev[1] = c[0].n[1];
  }
}

TEST(Collide2dTest, NormalContinuousSquareOrbitsCorner) {
  // a small square (axis-aligned, then rotated) circling the corner (1, 1) of a square: the
  // normal of the deepest contact turns continuously, its gap is the exact distance, and the
  // corner (vertex-vertex) region gives exactly one contact
  Shape b = Box(-1, -1, 1, 1);
  const double R = 0.5, hs = 0.1, dth = 0.002;
  for (int rot = 0; rot < 2; rot++) {
    double prev[2] = {0, 0}, prevGap = 0;
    int vv = 0;
    for (int k = 0;; k++) {
      double th = -0.8 + k * dth;
      if (th > 0.5 * TB_PI + 0.8) break;
      double cx = 1 + R * std::cos(th), cy = 1 + R * std::sin(th);
      Shape a = Moved(Box(-hs, -hs, hs, hs, 0.02), rot * 0.3, cx, cy);
      tbContact2 c[2];
      int n = Collide(a, b, 1.0, c);
      ASSERT_GE(n, 1) << "th " << th;
      int m = n == 2 && Gap(c[1]) < Gap(c[0]) ? 1 : 0;
      EXPECT_NEAR(Gap(c[m]), SampledCoreDist(a, b) - a.r, 1e-12) << "th " << th;
      if (k > 0) {
        EXPECT_LE(std::hypot(c[m].n[0] - prev[0], c[m].n[1] - prev[1]), 3 * dth) << "th " << th;
        EXPECT_LE(std::fabs(Gap(c[m]) - prevGap), R * dth + 1e-12);
      }
      prev[0] = c[m].n[0];
      prev[1] = c[m].n[1];
      prevGap = Gap(c[m]);
      if (rot == 0 && cx - hs > 1 + 1e-6 && cy - hs > 1 + 1e-6) {  // corner region
        EXPECT_EQ(n, 1) << "th " << th;
        double dx = cx - hs - 1, dy = cy - hs - 1, l = std::hypot(dx, dy);
        ExpectVec2(c[0].n, dx / l, dy / l, 1e-12);
        vv++;
      }
    }
    if (rot == 0) {
      EXPECT_GT(vv, 100);
    }
  }
}

TEST(Collide2dTest, FeaturesStable) {
  Shape b = Box(-1, -1, 1, 1);
  tbContact2 c[2];
  // sliding along the top face: the same two features throughout
  for (int k = 0; k <= 10; k++) {
    double x = -0.9 + 0.1 * k;
    ASSERT_EQ(Collide(Box(x, 1.05, x + 0.5, 1.3), b, 0.1, c), 2);
    int lo = std::min(c[0].feature, c[1].feature), hi = std::max(c[0].feature, c[1].feature);
    EXPECT_EQ(lo, tbg2_feature(0, 3));  // a's lower left over b's upper left side
    EXPECT_EQ(hi, tbg2_feature(1, 2));
  }
  // half overhanging, tilted either way: the reference face passes from a to b, the points
  // keep their features (named by the vertex of a and of b at each end of the overlap)
  for (int s = -1; s <= 1; s++) {
    Shape a = Moved(Box(-1.5, -0.125, 0.5, 0.125), s * 1e-6, -0.5, 1.175);
    ASSERT_EQ(Collide(a, b, 0.1, c), 2) << "tilt " << s;
    int lo = std::min(c[0].feature, c[1].feature), hi = std::max(c[0].feature, c[1].feature);
    EXPECT_EQ(lo, tbg2_feature(0, 3)) << "tilt " << s;
    EXPECT_EQ(hi, tbg2_feature(1, 2)) << "tilt " << s;
  }
}

TEST(Collide2dTest, PolygonInvalid) {
  const double pt[2] = {1, 2};
  EXPECT_EQ(tbg2_polygonInvalid(pt, 1), -1);  // a point
  const double seg[4] = {0, 0, 1, 0}, dup[4] = {1, 1, 1, 1};
  EXPECT_EQ(tbg2_polygonInvalid(seg, 2), -1);  // a segment
  EXPECT_EQ(tbg2_polygonInvalid(dup, 2), 1);   // zero length
  const double sq[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  EXPECT_EQ(tbg2_polygonInvalid(sq, 4), -1);
  EXPECT_EQ(tbg2_polygonInvalid(sq, 3), -1);  // its first three corners, a triangle
  const double cw[8] = {0, 0, 0, 1, 1, 1, 1, 0};
  EXPECT_EQ(tbg2_polygonInvalid(cw, 4), 0);  // clockwise: every turn is wrong, the first is 0
  const double col[10] = {0, 0, 1, 0, 2, 0, 2, 1, 0, 1};
  EXPECT_EQ(tbg2_polygonInvalid(col, 5), 1);  // (1, 0) lies on the bottom edge
  const double rep[8] = {0, 0, 1, 0, 1, 0, 1, 1};
  EXPECT_EQ(tbg2_polygonInvalid(rep, 4), 2);  // repeats vertex 1
  const double wrap[8] = {0, 0, 1, 0, 1, 1, 0, 0};
  EXPECT_EQ(tbg2_polygonInvalid(wrap, 4), 3);  // repeats vertex 0
  const double dart[10] = {0, 0, 2, 0, 1, 0.5, 2, 2, 0, 2};
  EXPECT_EQ(tbg2_polygonInvalid(dart, 5), 2);  // reflex at (1, 0.5)
  double star[10];                             // pentagram: all left turns, winds twice
  for (int i = 0; i < 5; i++) {
    double th = 0.5 * TB_PI + 2.0 * TB_PI * ((2 * i) % 5) / 5.0;
    star[2 * i] = std::cos(th);
    star[2 * i + 1] = std::sin(th);
  }
  EXPECT_GE(tbg2_polygonInvalid(star, 5), 0);
  double poly[2 * 17];  // regular 17-gon: too many vertices; its first 16 are fine
  for (int i = 0; i < 17; i++) {
    poly[2 * i] = std::cos(2.0 * TB_PI * i / 17.0);
    poly[2 * i + 1] = std::sin(2.0 * TB_PI * i / 17.0);
  }
  EXPECT_EQ(tbg2_polygonInvalid(poly, 17), 0);
  EXPECT_EQ(tbg2_polygonInvalid(poly, 16), -1);
  EXPECT_EQ(tbg2_polygonInvalid(poly, 0), 0);
  const double nan[6] = {0, 0, 1, 0, 0, std::nan("")};
  EXPECT_EQ(tbg2_polygonInvalid(nan, 3), 2);
}

TEST(Collide2dTest, TransformAndBadCounts) {
  const double local[4] = {1, 0, 0, 2}, t[2] = {1, 2};
  double w[4];
  tbg2_transform(local, 2, 0.0, 1.0, t, w);  // +90 degrees, then (1, 2)
  ExpectVec2(w, 1, 3, 0.0);
  ExpectVec2(w + 2, -1, 2, 0.0);
  double v[4] = {1, 0, 0, 2};
  tbg2_transform(v, 2, 0.0, 1.0, t, v);  // in place
  ExpectVec2(v, 1, 3, 0.0);
  ExpectVec2(v + 2, -1, 2, 0.0);
  tbContact2 c[2];
  EXPECT_EQ(tbg2_collide(local, 0, 0.0, local, 1, 0.0, 1.0, c), 0);  // no vertices: nothing
  EXPECT_EQ(tbg2_collide(local, 1, 0.0, local, 17, 0.0, 1.0, c), 0);
}

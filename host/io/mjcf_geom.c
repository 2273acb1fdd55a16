// MJCF geometry apart from the tree walk: orientations, shapes and inertia as MuJoCo computes them
#include <math.h>
#include <string.h>

#include "math/eigen.h"
#include "math/tb_math.h"
#include "io/mjcf_internal.h"

//---- frames and mass properties ----------------------------------------------------------------

static void tb_mjAxisQuat(double q[4], int axis, double angle) {
  double e[3] = {0, 0, 0};
  e[axis] = 1.0;
  tbu_quatAxisAngle(q, e, angle);
}

void tb_mjMatQuat(double q[4], const double R[9]) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2.0 * sqrt(1.0 + tr);
    q[0] = 0.25 * s;
    q[1] = (R[7] - R[5]) / s;
    q[2] = (R[2] - R[6]) / s;
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (R[1] + R[3]) / s;
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s;
    q[1] = (R[1] + R[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s;
    q[1] = (R[2] + R[6]) / s;
    q[2] = (R[5] + R[7]) / s;
    q[3] = 0.25 * s;
  }
  tbu_quatNormalize(q);
}

// the orientation of frame x then y given as their axes (MJCF xyaxes / zaxis)
static void tb_mjAxesQuat(double q[4], const double x[3], const double y[3]) {
  double ex[3], ey[3], ez[3], R[9];
  tbu_copy3(ex, x);
  tbu_normalize3(ex);
  tbu_addscl3(ey, y, ex, -tbu_dot3(ex, y));
  tbu_normalize3(ey);
  tbu_cross3(ez, ex, ey);
  for (int i = 0; i < 3; i++) {
    R[3 * i] = ex[i];
    R[3 * i + 1] = ey[i];
    R[3 * i + 2] = ez[i];
  }
  tb_mjMatQuat(q, R);
}

// the orientation attributes of n (at most one of them); identity when none
int tb_mjOrient(const tbMj* c, xmlNodePtr n, int cls, double q[4]) {
  double v[6];
  int given = 0, k;
  q[0] = 1.0;
  q[1] = q[2] = q[3] = 0.0;
  if ((k = tb_mjNums(c, n, cls, "quat", v, 4, 4)) < 0) return 2;
  if (k) {
    memcpy(q, v, sizeof(double) * 4);
    if (v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0 && v[3] == 0.0)
      return tb_mjFail(c, n, "quat is zero");
    tbu_quatNormalizeScaled(q);  // 1e300 1e300 0 0 is a quarter turn, its norm inf
    given++;
  }
  if ((k = tb_mjNums(c, n, cls, "axisangle", v, 4, 4)) < 0) return 2;
  if (k) {
    if (tbu_norm3(v) == 0.0) return tb_mjFail(c, n, "axisangle: the axis is zero");
    tbu_quatAxisAngle(q, v, v[3] * c->angle);
    given++;
  }
  if ((k = tb_mjNums(c, n, cls, "euler", v, 3, 3)) < 0) return 2;
  if (k) {
    for (int i = 0; i < 3; i++) {
      char s = c->seq[i];
      int axis = (s | 32) - 'x';
      double r[4], t[4];
      tb_mjAxisQuat(r, axis, v[i] * c->angle);
      // lower case: about the moving frame's axis (intrinsic), upper case: the fixed one's
      if (s >= 'a') {
        tbu_quatMul(t, q, r);
      } else {
        tbu_quatMul(t, r, q);
      }
      memcpy(q, t, sizeof(t));
    }
    given++;
  }
  if ((k = tb_mjNums(c, n, cls, "xyaxes", v, 6, 6)) < 0) return 2;
  if (k) {
    double z[3];
    tbu_cross3(z, v, v + 3);
    if (tbu_norm3(z) == 0.0) return tb_mjFail(c, n, "xyaxes: the axes are parallel or zero");
    tb_mjAxesQuat(q, v, v + 3);
    given++;
  }
  if ((k = tb_mjNums(c, n, cls, "zaxis", v, 3, 3)) < 0) return 2;
  if (k) {
    // the smallest rotation taking +z onto the axis, as MuJoCo does
    const double ez[3] = {0, 0, 1};
    double a[3];
    if (tbu_normalize3(v) == 0.0) return tb_mjFail(c, n, "zaxis is zero");
    tbu_cross3(a, ez, v);
    double s = tbu_norm3(a);
    if (s < 1e-14) {
      const double ex[3] = {1, 0, 0};
      tbu_quatAxisAngle(q, ex, v[2] > 0 ? 0.0 : TB_PI);
    } else {
      tbu_quatAxisAngle(q, a, atan2(s, v[2]));
    }
    given++;
  }
  return given > 1 ? tb_mjFail(c, n, "give one of quat, axisangle, euler, xyaxes, zaxis") : 0;
}

// a diagonal inertia keeps its axes
void tb_mjEigen(const double A[9], double ev[3], double V[9]) {
  double a[9];
  memcpy(a, A, sizeof(a));
  tb_symEigen(3, a, ev, V);
  double c[3] = {V[0], V[3], V[6]}, d[3] = {V[1], V[4], V[7]}, e[3] = {V[2], V[5], V[8]}, x[3];
  tbu_cross3(x, c, d);
  if (tbu_dot3(x, e) < 0) {
    for (int i = 0; i < 3; i++) V[3 * i + 2] = -V[3 * i + 2];
  }
}

//---- shapes ------------------------------------------------------------------------------------

// (an ellipsoid touches only in a model with tumble_option_implicit; a mesh that touches
// nothing is no shape of tumble's, a volume in its body's mass)
const char* const tb_mjGeomTypes[] = {"sphere",   "capsule",   "box",  "plane",
                                      "cylinder", "ellipsoid", "mesh", NULL};
enum { TB_MJ_MESH = 6 };  // "mesh" above: no shape of tumble's
static const int tb_mjGeomType[] = {TB_GEOM_SPHERE, TB_GEOM_CAPSULE,   TB_GEOM_BOX, TB_GEOM_PLANE,
                                    TB_GEOM_PRISM,  TB_GEOM_ELLIPSOID, -1};

// volume and unit-density principal moments of a shape about its frame
static double tb_mjUnitInertia(const tbMjShape* s, double I[3]) {
  double r = s->size[0], v;
  switch (s->type) {
    case TB_GEOM_SPHERE:
      v = 4.0 / 3.0 * TB_PI * r * r * r;
      I[0] = I[1] = I[2] = 0.4 * v * r * r;
      return v;
    case TB_GEOM_CAPSULE: {  // cylinder and two half-spheres (MuJoCo's formula)
      double h = 2.0 * s->size[1], vc = TB_PI * r * r * h, vs = 4.0 / 3.0 * TB_PI * r * r * r;
      I[0] = I[1] =
          vc * (3 * r * r + h * h) / 12.0 + vs * (0.4 * r * r + 0.25 * h * h + 3.0 / 8.0 * r * h);
      I[2] = (0.5 * vc + 0.4 * vs) * r * r;
      return vc + vs;
    }
    case TB_GEOM_PRISM:
    case TB_GEOM_CYLINDER:
      if (!s->box_prism) {  // cylinder of radius r, half-height size[1]
        double h = 2.0 * s->size[1];
        v = TB_PI * r * r * h;
        I[0] = I[1] = v * (3 * r * r + h * h) / 12.0;
        I[2] = 0.5 * v * r * r;
        return v;
      }
      break;  // a box prism keeps the box's half-sizes for this
    case TB_GEOM_ELLIPSOID: {
      const double* a = s->size;
      v = 4.0 / 3.0 * TB_PI * a[0] * a[1] * a[2];
      I[0] = 0.2 * v * (a[1] * a[1] + a[2] * a[2]);
      I[1] = 0.2 * v * (a[0] * a[0] + a[2] * a[2]);
      I[2] = 0.2 * v * (a[0] * a[0] + a[1] * a[1]);
      return v;
    }
    default:
      break;
  }
  const double* e = s->size;
  v = 8.0 * e[0] * e[1] * e[2];
  I[0] = v * (e[1] * e[1] + e[2] * e[2]) / 3.0;
  I[1] = v * (e[0] * e[0] + e[2] * e[2]) / 3.0;
  I[2] = v * (e[0] * e[0] + e[1] * e[1]) / 3.0;
  return v;
}

static int tb_mjSize(const tbMj* c, tbMjShape* s, int cls, int ti) {
  static const int need[6] = {1, 2, 3, 0, 2, 3};
  static const char* what[6] = {"radius", "radius, half-length", "three half-sizes",
                                "",       "radius, half-height", "three semi-axes"};
  xmlNodePtr n = s->node;
  double v[3], ft[6];
  int k = tb_mjNums(c, n, cls, "size", v, 0, 3);
  int nft = k < 0 ? -1 : tb_mjNums(c, n, cls, "fromto", ft, 6, 6);
  if (nft < 0) return 2;
  if (nft) {  // a capsule from one end to the other: its frame's z runs along it
    if (s->type != TB_GEOM_CAPSULE) return tb_mjFail(c, n, "fromto: tumble takes it on capsules");
    if (k < 1) return tb_mjFail(c, n, "size: a capsule with fromto needs its radius");
    static const char* const placed[] = {"pos", "quat", "axisangle", "euler", "xyaxes", "zaxis"};
    for (int i = 0; i < 6; i++) {
      xmlNodePtr w;
      if (tb_mjAttr(c, n, cls, placed[i], &w)) {
        return tb_mjFail(c, n, "fromto places the capsule: no %s with it", placed[i]);
      }
    }
    double d[3], a[3];
    tbu_sub3(d, ft + 3, ft);
    double len = tbu_norm3(d);
    if (len == 0.0) return tb_mjFail(c, n, "fromto: the two ends coincide");
    tbu_addscl3(s->pos, ft, d, 0.5);
    const double ez[3] = {0, 0, 1};
    tbu_cross3(a, ez, d);
    double sn = tbu_norm3(a);
    if (sn < 1e-14 * len) {
      const double ex[3] = {1, 0, 0};
      tbu_quatAxisAngle(s->quat, ex, d[2] > 0 ? 0.0 : TB_PI);
    } else {
      tbu_quatAxisAngle(s->quat, a, atan2(sn, d[2]));
    }
    v[1] = 0.5 * len;
    k = 2;
  }
  if (s->type == TB_GEOM_PLANE) return 0;  // MuJoCo's plane sizes only draw it
  if (k != need[ti]) {
    return tb_mjFail(c, n, "size: %d numbers, a %s takes %d (%s)", k, tb_mjGeomTypes[ti], need[ti],
                     what[ti]);
  }
  for (int i = 0; i < k; i++) {
    // a sphere of radius 0 is tumble's point particle (MuJoCo refuses it)
    int point = s->type == TB_GEOM_SPHERE && v[0] == 0.0;
    if (!(v[i] > 0.0) && !point) return tb_mjFail(c, n, "size[%d] = %g must be > 0", i, v[i]);
    s->size[i] = v[i];
  }
  return 0;
}

int tb_mjShape(const tbMj* c, xmlNodePtr n, int childclass, int tripod, tbMjShape* s) {
  memset(s, 0, sizeof(*s));
  s->node = n;
  s->quat[0] = 1.0;
  s->mesh = -1;
  int cls = tb_mjClassOf(c, n, childclass);
  if (cls < 0) return 2;
  int t = tb_mjWord(c, n, cls, "type", "sphere", tb_mjGeomTypes);
  if (t < 0 || (t == TB_MJ_MESH && (s->mesh = tb_mjFindMesh(c, n, cls)) < 0)) return 2;
  xmlNodePtr w;
  if (t != TB_MJ_MESH && tb_mjAttr(c, n, cls, "mesh", &w)) {
    return tb_mjFail(c, w, "mesh= on a %s: tumble fits no primitive to a mesh", tb_mjGeomTypes[t]);
  }
  s->type = tb_mjGeomType[t];
  if (s->type == TB_GEOM_PRISM && !tripod && c->m->opt.implicit) s->type = TB_GEOM_CYLINDER;
  if (tb_mjNums(c, n, cls, "pos", s->pos, 3, 3) < 0 || tb_mjOrient(c, n, cls, s->quat) ||
      (t != TB_MJ_MESH && tb_mjSize(c, s, cls, t)))
    return 2;
  if (tripod && s->type == TB_GEOM_BOX) {
    s->type = TB_GEOM_PRISM;
    s->box_prism = 1;
  }
  double fr[3] = {1.0, 0.005, 0.0001}, mass = 0.0, density = 1000.0;
  if (tb_mjNums(c, n, cls, "friction", fr, 1, 3) < 0) return 2;
  // the range of the parameter GEOM.friction
  if (!(fr[0] >= 0.0 && fr[0] <= 1e3))
    return tb_mjFail(c, n, "friction %g must be in [0, 1e3]", fr[0]);
  // a pair takes the larger condim in MuJoCo: only 3 means the same in both
  static const char* const condims[] = {"3", NULL};
  if (tb_mjWord(c, n, cls, "condim", "3", condims) < 0) return 2;
  s->mu = fr[0];
  // MuJoCo leaves groups outside 0..5 out of the body's mass
  double grp = 0.0;
  if (tb_mjNums(c, n, cls, "group", &grp, 1, 1) < 0) return 2;
  if (!(grp >= 0 && grp <= 5)) return tb_mjFail(c, n, "group %g: tumble takes 0 to 5", grp);
  double ct[2] = {1, 1};
  if (tb_mjNums(c, n, cls, "contype", ct, 1, 1) < 0 ||
      tb_mjNums(c, n, cls, "conaffinity", ct + 1, 1, 1) < 0)
    return 2;
  for (int i = 0; i < 2; i++) {
    if (ct[i] != floor(ct[i]) || ct[i] < 0 || ct[i] > 2147483647.0) {
      return tb_mjFail(c, n, "%s %g must be a whole number >= 0", i ? "conaffinity" : "contype",
                       ct[i]);
    }
  }
  s->contype = (int)ct[0];
  s->conaffinity = (int)ct[1];
  // a mesh that can touch anything is its convex hull for contact; a shape that touches nothing
  // and that tumble holds as no shape here (a mesh, a cylinder off a tripod body, an ellipsoid
  // outside the implicit step) is visual, its volume in its body's mass alone
  int touches = s->contype || s->conaffinity;
  if (t == TB_MJ_MESH && touches) s->type = TB_GEOM_MESH;
  int shapeless = t == TB_MJ_MESH || (s->type == TB_GEOM_PRISM && !tripod) ||
                  (s->type == TB_GEOM_ELLIPSOID && !c->m->opt.implicit);
  s->visual = !touches && shapeless;
  if (s->type == TB_GEOM_PRISM && !tripod && !s->visual) {
    return tb_mjFail(c, n,
                     "type=\"cylinder\": tumble has cylinders only as discs of a body with "
                     "a support tripod (tumble_tripod_BODY), or with tumble_option_implicit, or "
                     "as looks (contype=\"0\" conaffinity=\"0\": its mass alone)");
  }
  int given = tb_mjNums(c, n, cls, "mass", &mass, 1, 1);
  if (given < 0 || tb_mjNums(c, n, cls, "density", &density, 1, 1) < 0) return 2;
  if (given && !(mass >= 0.0)) return tb_mjFail(c, n, "mass %g must be >= 0", mass);
  if (!(density >= 0.0)) return tb_mjFail(c, n, "density %g must be >= 0", density);
  s->density = density;
  s->mass_given = given ? mass : -1.0;
  if (s->type != TB_GEOM_PLANE && t != TB_MJ_MESH) {
    double I[3], vol = tb_mjUnitInertia(s, I);
    if (given && vol == 0.0) {
      return tb_mjFail(c, n, "mass: a point has no volume; give its body's mass in <inertial>");
    }
    if (given) density = mass / vol;
    s->mass = density * vol;
    for (int i = 0; i < 3; i++) s->inertia[i] = density * I[i];
  }
  return 0;
}

//---- a moving body's mass ----------------------------------------------------------------------

// mass, center of mass and principal frame of a moving body: its <inertial>, else its shapes
int tb_mjMass(const tbMj* c, xmlNodePtr body, xmlNodePtr inertial, const tbMjShape* s, int ns,
              double* mass, double com[3], double I[3], double qi[4]) {
  double A[9] = {0}, M = 0.0;
  tbu_zero3(com);
  qi[0] = 1.0;
  qi[1] = qi[2] = qi[3] = 0.0;
  if (inertial) {
    double d[6];
    int nd, nf;
    if (tb_mjNums(c, inertial, -1, "pos", com, 3, 3) < 0 || tb_mjOrient(c, inertial, -1, qi) ||
        tb_mjNums(c, inertial, -1, "mass", &M, 1, 1) < 0 ||
        (nd = tb_mjNums(c, inertial, -1, "diaginertia", d, 3, 3)) < 0 ||
        (nf = tb_mjNums(c, inertial, -1, "fullinertia", d, 6, 6)) < 0)
      return 2;
    if (!xmlHasProp(inertial, (const xmlChar*)"mass"))
      return tb_mjFail(c, inertial, "mass missing");
    if ((nd && nf) || (!nd && !nf)) {
      return tb_mjFail(c, inertial, "give one of diaginertia and fullinertia");
    }
    if (nf && (qi[0] != 1.0 || qi[1] != 0.0 || qi[2] != 0.0 || qi[3] != 0.0)) {
      return tb_mjFail(c, inertial, "fullinertia is in the body frame: no orientation with it");
    }
    if (nd) {
      memcpy(I, d, sizeof(double) * 3);
    } else {
      double F[9] = {d[0], d[3], d[4], d[3], d[1], d[5], d[4], d[5], d[2]}, V[9], qv[4], t[4];
      tb_mjEigen(F, I, V);
      tb_mjMatQuat(qv, V);
      tbu_quatMul(t, qi, qv);
      memcpy(qi, t, sizeof(t));
    }
    *mass = M;
  } else {
    for (int k = 0; k < ns; k++) {
      if (s[k].type == TB_GEOM_PLANE) continue;
      M += s[k].mass;
      tbu_addscl3(com, com, s[k].pos, s[k].mass);
    }
    if (M > 0.0) tbu_scl3(com, com, 1.0 / M);
    for (int k = 0; k < ns; k++) {
      if (s[k].type == TB_GEOM_PLANE) continue;
      double Iw[9], d[3];
      tbu_inertiaWorld(Iw, s[k].quat, s[k].inertia);
      tbu_sub3(d, s[k].pos, com);
      double dd = tbu_dot3(d, d);
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          A[3 * i + j] += Iw[3 * i + j] + s[k].mass * ((i == j) * dd - d[i] * d[j]);
        }
      }
    }
    double V[9];
    tb_mjEigen(A, I, V);
    tb_mjMatQuat(qi, V);
    *mass = M;
  }
  if (!(*mass > 0.0) || !(I[0] > 0.0) || !(I[1] > 0.0) || !(I[2] > 0.0)) {
    return tb_mjFail(c, inertial ? inertial : body,
                     "mass %g, principal inertia %g %g %g: a moving body needs them > 0 (from "
                     "<inertial> or its geoms)",
                     *mass, I[0], I[1], I[2]);
  }
  // the range of the parameter BODY.mass: a subnormal mass would make 1/m inf
  if (!(*mass >= TB_MIN_MASS && *mass <= TB_MAX_MASS)) {
    return tb_mjFail(c, inertial ? inertial : body,
                     "mass %g kg (from %s): %s %g kg, the %s mass the solvers take (tumble.h: "
                     "TB_MIN_MASS, TB_MAX_MASS)",
                     *mass, inertial ? "its mass=" : "its geoms' mass and density",
                     *mass < TB_MIN_MASS ? "below" : "above",
                     *mass < TB_MIN_MASS ? TB_MIN_MASS : TB_MAX_MASS,
                     *mass < TB_MIN_MASS ? "smallest" : "largest");
  }
  if (I[0] + I[1] < I[2] * (1 - 1e-12) || I[0] + I[2] < I[1] * (1 - 1e-12) ||
      I[1] + I[2] < I[0] * (1 - 1e-12)) {
    return tb_mjFail(c, inertial ? inertial : body,
                     "principal inertia %g %g %g breaks the triangle inequality", I[0], I[1], I[2]);
  }
  return 0;
}

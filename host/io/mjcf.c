// MJCF reader (include/tumble/mjcf.h): libxml2 parses the file into a tree; one walk of the body
// tree does MuJoCo's forward kinematics (with the first keyframe's qpos and qvel) and adds each
// body, its shapes and its joint to a tbModel; named values become parameters; the model is
// compiled. Every element and attribute is checked against the subset, so nothing is skipped.
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/mjcf.h>
#include <tumble/optimize.h>

#include "math/collide_geom.h"
#include "math/tb_math.h"

#include "util/error.h"
#include "math/eigen.h"

//---- context -----------------------------------------------------------------------------------

enum { TB_MJ_GEOM = 0, TB_MJ_JOINT = 1, TB_MJ_NKIND = 2 };

// a <default> class: its <geom> and <joint> defaults and the class it inherits from
typedef struct tbMjClass {
  const char* name;
  int parent;
  xmlNodePtr elem[TB_MJ_NKIND];
} tbMjClass;

// a named value that may become a parameter, noted during the walk
typedef struct tbMjNamed {
  const char* name;
  int kind;  // TB_MJ_P_*
  int object;
  int count;     // components
  double scale;  // file unit -> tumble unit
  int sub;       // TB_MJ_P_DRIVER: 0 plate, 1 rocking, 2 constvel; TB_MJ_P_RANGE: the tbtJoint
} tbMjNamed;

enum {
  TB_MJ_P_MASS = 0,    // a dynamic body's mass
  TB_MJ_P_POS,         // the position of a free or locked body
  TB_MJ_P_FRICTION,    // a shape's mu
  TB_MJ_P_SIZE,        // a shape's size
  TB_MJ_P_RANGE,       // a limited joint's range
  TB_MJ_P_DRIVER,      // a custom numeric's data into a driver
  TB_MJ_P_FORCE,       // ... into a body's applied wrench
  TB_MJ_P_TRIPOD,      // ... into a support tripod
  TB_MJ_P_GEOM_SOFT,   // ... into a shape's contact stiffness and damping
  TB_MJ_P_JOINT_SOFT,  // ... into a joint's (or equality's) stiffness and damping
  TB_MJ_P_GEOM_REST,   // ... into a shape's Newton restitution
};

// the frame a body is placed in and how it moves: world position, orientation and twist of the
// MJCF body frame (linear velocity of its origin)
typedef struct tbMjFrame {
  double pos[3], quat[4], vel[6];
} tbMjFrame;

typedef struct tbMj {
  const char* file;  // for messages
  tbModel* m;
  double angle;  // radians per angle unit of the file
  char seq[4];   // euler sequence
  tbMjClass* cls;
  int ncls;
  int nbody;  // MJCF bodies seen (names unnamed ones)
  double *qpos, *qvel;
  int nqpos, nqvel, iq, iv;  // the key's counts and how many the joints used
  xmlNodePtr key;
  xmlNodePtr* numeric;  // <custom><numeric name="tumble_*">
  int* numeric_used;
  int nnumeric;
  tbMjNamed* named;
  int nnamed;
  tbMjFrame* frame;  // each tumble body's MJCF frame (equality anchors are given in it)
  int minimal;       // tumble_minimal_joints: hinges, slides and balls as minimal joints
} tbMj;

//---- messages and attributes -------------------------------------------------------------------

static const char* tb_mjValue(xmlAttrPtr a) {
  return a && a->children && a->children->content ? (const char*)a->children->content : "";
}

// an error at element n; a custom numeric is named, its name being what it sets
static int tb_mjFail(const tbMj* c, xmlNodePtr n, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const char* tag = (const char*)n->name;
  xmlAttrPtr name = strcmp(tag, "numeric") ? NULL : xmlHasProp(n, (const xmlChar*)"name");
  if (name) {
    return tb_setError("%s:%ld: <numeric name=\"%s\"> %s", c->file, xmlGetLineNo(n),
                       tb_mjValue(name), msg);
  }
  return tb_setError("%s:%ld: <%s> %s", c->file, xmlGetLineNo(n), tag, msg);
}

// the engine's last error, after a prefix
static int tb_mjPrefix(const char* file, const char* what) {
  char msg[256];
  snprintf(msg, sizeof(msg), "%s", tb_lastError());
  return tb_setError("%s: %s: %s", file, what, msg);
}

static int tb_mjIs(xmlNodePtr n, const char* name) {
  return n->type == XML_ELEMENT_NODE && !strcmp((const char*)n->name, name);
}

static int tb_mjKind(xmlNodePtr n) {
  if (tb_mjIs(n, "geom")) return TB_MJ_GEOM;
  if (tb_mjIs(n, "joint")) return TB_MJ_JOINT;
  return -1;
}

// the attribute on n, else on its class chain's defaults of the same element; *where is the
// element that holds it (for messages). NULL: not given anywhere.
static const char* tb_mjAttr(const tbMj* c, xmlNodePtr n, int cls, const char* name,
                             xmlNodePtr* where) {
  *where = n;
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)name);
  if (a) return tb_mjValue(a);
  int kind = tb_mjKind(n);
  for (int k = kind < 0 ? -1 : cls; k >= 0; k = c->cls[k].parent) {
    xmlNodePtr d = c->cls[k].elem[kind];
    if (d && (a = xmlHasProp(d, (const xmlChar*)name))) {
      *where = d;
      return tb_mjValue(a);
    }
  }
  return NULL;
}

// between lo and hi numbers of attribute name into v; the count (0: not given), or -1 (error set)
static int tb_mjNums(const tbMj* c, xmlNodePtr n, int cls, const char* name, double* v, int lo,
                     int hi) {
  xmlNodePtr where;
  const char* s = tb_mjAttr(c, n, cls, name, &where);
  if (!s) return 0;
  int k = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) break;
    char* end;
    double x = strtod(s, &end);
    if (end == s || k == hi || !isfinite(x)) {
      char count[32];
      snprintf(count, sizeof(count), lo == hi ? "%d" : "%d to %d", lo, hi);
      tb_mjFail(c, where, "%s=\"%s\": expected %s finite numbers", name,
                tb_mjValue(xmlHasProp(where, (const xmlChar*)name)), count);
      return -1;
    }
    v[k++] = x;
    s = end;
  }
  if (k < lo) {
    tb_mjFail(c, where, "%s: %d numbers, expected %d%s", name, k, lo, hi > lo ? " or more" : "");
    return -1;
  }
  return k;
}

static const char* tb_mjStr(const tbMj* c, xmlNodePtr n, int cls, const char* name,
                            const char* dflt) {
  xmlNodePtr where;
  const char* s = tb_mjAttr(c, n, cls, name, &where);
  return s ? s : dflt;
}

// index of s in the NULL-terminated words, or -1 with the error set
static int tb_mjWord(const tbMj* c, xmlNodePtr n, int cls, const char* name, const char* dflt,
                     const char* const* words) {
  const char* s = tb_mjStr(c, n, cls, name, dflt);
  for (int i = 0; words[i]; i++) {
    if (!strcmp(s, words[i])) return i;
  }
  char list[160] = "";
  for (int i = 0; words[i]; i++) {
    snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", words[i]);
  }
  xmlNodePtr where;
  tb_mjAttr(c, n, cls, name, &where);
  tb_mjFail(c, where, "%s=\"%s\": tumble takes %s", name, s, list);
  return -1;
}

// every attribute of n must be in allowed (NULL-terminated)
static int tb_mjOnly(const tbMj* c, xmlNodePtr n, const char* const* allowed) {
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++) ok = !strcmp((const char*)a->name, allowed[i]);
    if (!ok) {
      return tb_mjFail(c, n, "attribute '%s' is outside tumble's MJCF subset (README: MJCF)",
                       (const char*)a->name);
    }
  }
  return 0;
}

// an element that holds nothing: no child elements, no text
static int tb_mjLeaf(const tbMj* c, xmlNodePtr n) {
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type == XML_ELEMENT_NODE) {
      return tb_mjFail(c, k, "element outside tumble's MJCF subset (README: MJCF)");
    }
    if (k->type != XML_COMMENT_NODE && !xmlIsBlankNode(k)) {
      return tb_mjFail(c, n, "holds text or markup tumble does not read");
    }
  }
  return 0;
}

// an element whose attributes are all in allowed and that holds nothing
static int tb_mjLeafOnly(const tbMj* c, xmlNodePtr n, const char* const* allowed) {
  return tb_mjOnly(c, n, allowed) || tb_mjLeaf(c, n);
}

static int tb_mjFindClass(const tbMj* c, xmlNodePtr n, const char* name) {
  for (int k = 0; k < c->ncls; k++) {
    if (!strcmp(c->cls[k].name, name)) return k;
  }
  tb_mjFail(c, n, "class '%s' is not a <default> class", name);
  return -1;
}

// the class an element uses: its own class=, else the body's childclass
static int tb_mjClassOf(const tbMj* c, xmlNodePtr n, int childclass) {
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)"class");
  return a ? tb_mjFindClass(c, n, tb_mjValue(a)) : childclass;
}

//---- frames and mass properties ----------------------------------------------------------------

static void tb_mjAxisQuat(double q[4], int axis, double angle) {
  double e[3] = {0, 0, 0};
  e[axis] = 1.0;
  tbu_quatAxisAngle(q, e, angle);
}

// the rotation taking the columns of R (row-major, orthonormal, right-handed) to a quaternion
static void tb_mjMatQuat(double q[4], const double R[9]) {
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
static int tb_mjOrient(const tbMj* c, xmlNodePtr n, int cls, double q[4]) {
  double v[6];
  int given = 0, k;
  q[0] = 1.0;
  q[1] = q[2] = q[3] = 0.0;
  if ((k = tb_mjNums(c, n, cls, "quat", v, 4, 4)) < 0) return 2;
  if (k) {
    memcpy(q, v, sizeof(double) * 4);
    if (tbu_dot3(v + 1, v + 1) + v[0] * v[0] == 0.0) return tb_mjFail(c, n, "quat is zero");
    tbu_quatNormalize(q);
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

// principal moments and axes (the columns of V, turned right-handed) of a symmetric inertia;
// a diagonal one keeps its axes
static void tb_mjEigen(const double A[9], double ev[3], double V[9]) {
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

// (an ellipsoid touches only in a model with tumble_option_implicit)
static const char* const tb_mjGeomTypes[] = {"sphere",   "capsule",   "box", "plane",
                                             "cylinder", "ellipsoid", NULL};
static const int tb_mjGeomType[] = {TB_GEOM_SPHERE, TB_GEOM_CAPSULE, TB_GEOM_BOX,
                                    TB_GEOM_PLANE,  TB_GEOM_PRISM,   TB_GEOM_ELLIPSOID};

// one <geom>, read before its body is added (its mass places the body's frame)
typedef struct tbMjShape {
  xmlNodePtr node;
  int type;                // TB_GEOM_*; cylinders are discs (prisms) on a tripod body, and
                           // cylinders with option implicit
  int box_prism;           // a box on a tripod body: a rectangle prism
  double size[3];          // tumble's
  double pos[3], quat[4];  // in the MJCF body frame
  double mass, inertia[3];
  double mu;
  int contype, conaffinity;
} tbMjShape;

static const char* const tb_mjGeomAttrs[] = {
    "name",    "class",       "type",   "size",   "pos",      "quat",  "axisangle",
    "euler",   "xyaxes",      "zaxis",  "fromto", "friction", "mass",  "density",
    "contype", "conaffinity", "condim", "rgba",   "material", "group", NULL};

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

static int tb_mjShape(const tbMj* c, xmlNodePtr n, int childclass, int tripod, tbMjShape* s) {
  memset(s, 0, sizeof(*s));
  s->node = n;
  s->quat[0] = 1.0;
  int cls = tb_mjClassOf(c, n, childclass);
  if (cls < 0 || tb_mjLeafOnly(c, n, tb_mjGeomAttrs)) return 2;
  int t = tb_mjWord(c, n, cls, "type", "sphere", tb_mjGeomTypes);
  if (t < 0) return 2;
  s->type = tb_mjGeomType[t];
  if (s->type == TB_GEOM_PRISM && !tripod && c->m->opt.implicit) s->type = TB_GEOM_CYLINDER;
  if (s->type == TB_GEOM_PRISM && !tripod) {
    return tb_mjFail(c, n,
                     "type=\"cylinder\": tumble has cylinders only as discs of a body with "
                     "a support tripod (tumble_tripod_BODY), or with tumble_option_implicit");
  }
  if (tb_mjNums(c, n, cls, "pos", s->pos, 3, 3) < 0 || tb_mjOrient(c, n, cls, s->quat) ||
      tb_mjSize(c, s, cls, t))
    return 2;
  if (tripod && s->type == TB_GEOM_BOX) {
    s->type = TB_GEOM_PRISM;
    s->box_prism = 1;
  }
  double fr[3] = {1.0, 0.005, 0.0001}, mass = 0.0, density = 1000.0;
  if (tb_mjNums(c, n, cls, "friction", fr, 1, 3) < 0) return 2;
  if (!(fr[0] >= 0.0)) return tb_mjFail(c, n, "friction %g must be >= 0", fr[0]);
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
  int given = tb_mjNums(c, n, cls, "mass", &mass, 1, 1);
  if (given < 0 || tb_mjNums(c, n, cls, "density", &density, 1, 1) < 0) return 2;
  if (given && !(mass >= 0.0)) return tb_mjFail(c, n, "mass %g must be >= 0", mass);
  if (!(density >= 0.0)) return tb_mjFail(c, n, "density %g must be >= 0", density);
  if (s->type != TB_GEOM_PLANE) {
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

//---- bodies ------------------------------------------------------------------------------------

typedef struct tbMjJoint {
  xmlNodePtr node;
  int type;                // 0 free, 1 ball, 2 slide, 3 hinge (MuJoCo's order)
  double pos[3], axis[3];  // MJCF body frame
  int limited;
  double range[2];  // file units
} tbMjJoint;

static const char* const tb_mjJointTypes[] = {"free", "ball", "slide", "hinge", NULL};

static int tb_mjJoint(const tbMj* c, xmlNodePtr n, int childclass, tbMjJoint* j) {
  static const char* const attrs[] = {"name", "class", "type",    "pos",
                                      "axis", "range", "limited", NULL};
  static const char* const free_attrs[] = {"name", NULL};
  static const char* const lim[] = {"auto", "true", "false", NULL};
  memset(j, 0, sizeof(*j));
  j->node = n;
  j->axis[2] = 1.0;
  if (tb_mjIs(n, "freejoint")) return tb_mjLeafOnly(c, n, free_attrs);
  int cls = tb_mjClassOf(c, n, childclass);
  if (cls < 0 || tb_mjLeafOnly(c, n, attrs)) return 2;
  if ((j->type = tb_mjWord(c, n, cls, "type", "hinge", tb_mjJointTypes)) < 0) return 2;
  int nr = tb_mjNums(c, n, cls, "range", j->range, 2, 2);
  int l = tb_mjWord(c, n, cls, "limited", "auto", lim);
  if (nr < 0 || l < 0 || tb_mjNums(c, n, cls, "pos", j->pos, 3, 3) < 0 ||
      tb_mjNums(c, n, cls, "axis", j->axis, 3, 3) < 0)
    return 2;
  if (tbu_normalize3(j->axis) == 0.0) return tb_mjFail(c, n, "axis is zero");
  // MuJoCo's autolimits: a range with lo < hi limits the joint
  j->limited = l == 1 || (l == 0 && nr > 0 && j->range[0] < j->range[1]);
  if (j->limited && !(j->range[0] < j->range[1])) {
    return tb_mjFail(c, n, "range %g %g: the low end must be below the high one", j->range[0],
                     j->range[1]);
  }
  if (j->limited && j->type == 0) return tb_mjFail(c, n, "range: a free joint has no limits");
  if (j->limited && j->type == 1 && j->range[0] != 0.0) {
    return tb_mjFail(c, n, "range %g %g: a ball's range is 0 and its cone angle", j->range[0],
                     j->range[1]);
  }
  return 0;
}

// the next n numbers of the key's qpos (or q0 when the key has none), advancing the cursor
static const double* tb_mjKeyTake(tbMj* c, const double* q0, int n, int vel) {
  double* arr = vel ? c->qvel : c->qpos;
  int have = vel ? c->nqvel : c->nqpos;
  int* at = vel ? &c->iv : &c->iq;
  const double* r = arr && *at + n <= have ? arr + *at : q0;
  *at += n;
  return r;
}

// the frame's twist carried from the point old to its origin: v + w x (pos - old)
static void tb_mjShiftTwist(tbMjFrame* f, const double old[3]) {
  double d[3], r[3];
  tbu_sub3(d, f->pos, old);
  tbu_cross3(r, f->vel + 3, d);
  tbu_add3(f->vel, f->vel, r);
}

// move the frame by joint j's key coordinates (MuJoCo's forward kinematics); q[0] is the joint's
// coordinate (hinge, slide), which shifts its limits, or a ball's rotation angle (a limited ball
// starts at 0), and q[1] its rate, a minimal joint's start
static void tb_mjApplyJoint(tbMj* c, const tbMjJoint* j, tbMjFrame* f, double q[2]) {
  static const double zero[6] = {0}, q0ball[4] = {1, 0, 0, 0};
  double anchor[3], axis[3], d[3], r[3];
  tbu_rotVec(anchor, f->quat, j->pos);
  tbu_add3(anchor, anchor, f->pos);
  tbu_rotVec(axis, f->quat, j->axis);
  q[0] = q[1] = 0.0;
  if (j->type == 0) {  // free: the key's pose replaces the frame's; qvel = [v world; w local]
    double q0[7];
    memcpy(q0, f->pos, sizeof(double) * 3);
    memcpy(q0 + 3, f->quat, sizeof(double) * 4);
    const double* p = tb_mjKeyTake(c, q0, 7, 0);
    memcpy(f->pos, p, sizeof(double) * 3);
    memcpy(f->quat, p + 3, sizeof(double) * 4);
    tbu_quatNormalize(f->quat);
    const double* v = tb_mjKeyTake(c, zero, 6, 1);
    memcpy(f->vel, v, sizeof(double) * 3);
    tbu_rotVec(f->vel + 3, f->quat, v + 3);
    return;
  }
  double old[3];
  tbu_copy3(old, f->pos);
  if (j->type == 1) {  // ball: a rotation about the anchor; qvel local
    const double* p = tb_mjKeyTake(c, q0ball, 4, 0);
    double qb[4] = {p[0], p[1], p[2], p[3]}, t[4], w[3];
    tbu_quatNormalize(qb);
    q[0] = 2.0 * atan2(tbu_norm3(qb + 1), fabs(qb[0]));
    tbu_quatMul(t, f->quat, qb);
    tbu_sub3(d, f->pos, anchor);
    double qw[4];
    tbu_quatMul(qw, t, (double[4]){f->quat[0], -f->quat[1], -f->quat[2], -f->quat[3]});
    tbu_rotVec(r, qw, d);
    tbu_add3(f->pos, anchor, r);
    memcpy(f->quat, t, sizeof(t));
    tb_mjShiftTwist(f, old);
    tbu_rotVec(w, f->quat, tb_mjKeyTake(c, zero, 3, 1));
    tbu_add3(f->vel + 3, f->vel + 3, w);
    tbu_sub3(d, f->pos, anchor);
    tbu_cross3(r, w, d);
    tbu_add3(f->vel, f->vel, r);
    return;
  }
  q[0] = *tb_mjKeyTake(c, zero, 1, 0);
  double qd = q[1] = *tb_mjKeyTake(c, zero, 1, 1);
  if (j->type == 2) {  // slide
    tbu_addscl3(f->pos, f->pos, axis, q[0]);
    tb_mjShiftTwist(f, old);
    tbu_addscl3(f->vel, f->vel, axis, qd);
    return;
  }
  double qr[4], t[4];  // hinge: the key's angle is in radians, as MuJoCo's qpos
  tbu_quatAxisAngle(qr, axis, q[0]);
  tbu_sub3(d, f->pos, anchor);
  tbu_rotVec(r, qr, d);
  tbu_add3(f->pos, anchor, r);
  tbu_quatMul(t, qr, f->quat);
  memcpy(f->quat, t, sizeof(t));
  tb_mjShiftTwist(f, old);
  tbu_addscl3(f->vel + 3, f->vel + 3, axis, qd);
  tbu_sub3(d, f->pos, anchor);
  tbu_cross3(r, axis, d);
  tbu_addscl3(f->vel, f->vel, r, qd);
}

static int tb_mjNote(tbMj* c, const char* name, int kind, int object, int count, double scale,
                     int sub) {
  tbMjNamed* g = (tbMjNamed*)realloc(c->named, sizeof(tbMjNamed) * (size_t)(c->nnamed + 1));
  if (!g) return tb_setError("%s: out of memory", c->file);
  c->named = g;
  g[c->nnamed++] = (tbMjNamed){name, kind, object, count, scale, sub};
  return 0;
}

static const char* tb_mjName(xmlNodePtr n) {
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)"name");
  return a ? tb_mjValue(a) : NULL;
}

// the custom numeric tumble_KIND_BODY for a body (marked used), or NULL
static xmlNodePtr tb_mjNumeric(tbMj* c, const char* kind, const char* body) {
  char want[128];
  snprintf(want, sizeof(want), "tumble_%s_%s", kind, body);
  for (int i = 0; i < c->nnumeric; i++) {
    if (!strcmp(tb_mjName(c->numeric[i]), want)) {
      c->numeric_used[i] = 1;
      return c->numeric[i];
    }
  }
  return NULL;
}

// the data of numeric n: exactly count numbers
static int tb_mjData(tbMj* c, xmlNodePtr n, double* v, int count) {
  return tb_mjNums(c, n, -1, "data", v, count, count) < 0 ? 2 : 0;
}

// the one number of custom numeric tumble_KIND_NAME into *v when there is one (*at: it, else
// NULL; name NULL: none); 0, or 2 after an error
static int tb_mjScalar(tbMj* c, const char* kind, const char* name, double* v, xmlNodePtr* at) {
  *at = name ? tb_mjNumeric(c, kind, name) : NULL;
  return *at && tb_mjData(c, *at, v, 1) ? 2 : 0;
}

// the custom numeric tumble_compliance_NAME of a named shape, joint or equality (Drumwright's
// stiffness and damping, "K B") into *K and *B when there is one (*at: it, else NULL); 0, or 2
// after an error
static int tb_mjCompliance(tbMj* c, const char* name, double* K, double* B, xmlNodePtr* at) {
  double soft[2];
  *at = name ? tb_mjNumeric(c, "compliance", name) : NULL;
  if (!*at) return 0;
  if (tb_mjData(c, *at, soft, 2)) return 2;
  *K = soft[0];
  *B = soft[1];
  return 0;
}

// mass, center of mass and principal frame of a moving body: its <inertial>, else its shapes
static int tb_mjMass(const tbMj* c, xmlNodePtr body, xmlNodePtr inertial, const tbMjShape* s,
                     int ns, double* mass, double com[3], double I[3], double qi[4]) {
  double A[9] = {0}, M = 0.0;
  tbu_zero3(com);
  qi[0] = 1.0;
  qi[1] = qi[2] = qi[3] = 0.0;
  if (inertial) {
    static const char* const attrs[] = {"pos",   "quat", "axisangle",   "euler",       "xyaxes",
                                        "zaxis", "mass", "diaginertia", "fullinertia", NULL};
    double d[6];
    int nd, nf;
    if (tb_mjLeafOnly(c, inertial, attrs) || tb_mjNums(c, inertial, -1, "pos", com, 3, 3) < 0 ||
        tb_mjOrient(c, inertial, -1, qi) || tb_mjNums(c, inertial, -1, "mass", &M, 1, 1) < 0 ||
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
  if (I[0] + I[1] < I[2] * (1 - 1e-12) || I[0] + I[2] < I[1] * (1 - 1e-12) ||
      I[1] + I[2] < I[0] * (1 - 1e-12)) {
    return tb_mjFail(c, inertial ? inertial : body,
                     "principal inertia %g %g %g breaks the triangle inequality", I[0], I[1], I[2]);
  }
  return 0;
}

// lock bits for a world child whose joints are slides along world axes then at most one hinge
// or ball through its center of mass; -1 (error set) when they are not
static int tb_mjLocks(const tbMj* c, const tbMjJoint* j, int nj, const tbMjFrame* f,
                      const double com[3]) {
  int free = 0, rot = 0;
  for (int k = 0; k < nj; k++) {
    const tbMjJoint* jk = &j[k];
    double a[3];
    tbu_rotVec(a, f->quat, jk->axis);
    int axis = -1;
    for (int i = 0; i < 3; i++) {
      if (fabs(fabs(a[i]) - 1.0) < 1e-12) axis = i;
    }
    if (jk->type == 0 || jk->limited || (jk->type != 1 && axis < 0) || (jk->type != 0 && rot) ||
        (jk->type == 2 && (free >> axis) & 1)) {
      tb_mjFail(c, jk->node,
                "a body with several joints must be a child of the world whose joints are "
                "unlimited slides along distinct world axes, then at most one hinge about a world "
                "axis or one ball (tumble locks the other DoFs)");
      return -1;
    }
    if (jk->type == 2) {
      free |= 1 << axis;
      continue;
    }
    double d[3];
    tbu_sub3(d, jk->pos, com);
    if (tbu_norm3(d) > 1e-9 * (1.0 + tbu_norm3(com))) {
      tb_mjFail(c, jk->node,
                "pos: with the body's other joints, a hinge or ball must pass through "
                "its center of mass (tumble locks rotations about it)");
      return -1;
    }
    rot = 1;
    free |= jk->type == 1 ? 56 : 8 << axis;
  }
  return 63 & ~free;
}

typedef struct tbMjParent {
  int b;     // tumble body, -1: the world
  int type;  // tbtBody (static for the world)
  tbMjFrame f;
  int childclass;
} tbMjParent;

static int tb_mjBodyTree(tbMj* c, xmlNodePtr n, const tbMjParent* p);

// the tumble body def of an MJCF body: type, name, mass properties, initial state
typedef struct tbMjBodyPlan {
  tbMjShape* shape;
  int nshape;
  tbMjJoint joint[6];
  int nj;
  xmlNodePtr inertial;
  int mocap;
} tbMjBodyPlan;

static int tb_mjCollect(tbMj* c, xmlNodePtr n, int childclass, int tripod, tbMjBodyPlan* pl) {
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE || tb_mjIs(k, "body")) continue;
    if (tb_mjIs(k, "geom")) {
      tbMjShape* s = (tbMjShape*)realloc(pl->shape, sizeof(tbMjShape) * (size_t)(pl->nshape + 1));
      if (!s) return tb_mjFail(c, k, "out of memory");
      pl->shape = s;
      if (tb_mjShape(c, k, childclass, tripod, &s[pl->nshape])) return 2;
      pl->nshape++;
    } else if (tb_mjIs(k, "joint") || tb_mjIs(k, "freejoint")) {
      if (pl->nj == 6) return tb_mjFail(c, k, "more than 6 joints in one body");
      if (tb_mjJoint(c, k, childclass, &pl->joint[pl->nj])) return 2;
      pl->nj++;
    } else if (tb_mjIs(k, "inertial")) {
      if (pl->inertial) return tb_mjFail(c, k, "a second <inertial> in one body");
      pl->inertial = k;
    } else if (!tb_mjIs(k, "site") && !tb_mjIs(k, "camera") && !tb_mjIs(k, "light")) {
      return tb_mjFail(c, k, "element outside tumble's MJCF subset (README: MJCF)");
    }
  }
  return 0;
}

static int tb_mjAddShapes(tbMj* c, const tbMjBodyPlan* pl, int b, const tbBodyDef* bd,
                          const tbMjFrame* f) {
  tbMjFrame* fr = (tbMjFrame*)realloc(c->frame, sizeof(tbMjFrame) * (size_t)(b + 1));
  if (!fr) return tb_setError("%s: out of memory", c->file);
  c->frame = fr;
  fr[b] = *f;
  double qbc[4];
  tbu_quatConj(qbc, bd->quat);
  for (int k = 0; k < pl->nshape; k++) {
    const tbMjShape* s = &pl->shape[k];
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = b;
    gd.type = s->type;
    memcpy(gd.size, s->size, sizeof(gd.size));
    double wp[3], wq[4], d[3];
    tbu_rotVec(wp, f->quat, s->pos);
    tbu_add3(wp, wp, f->pos);
    tbu_quatMul(wq, f->quat, s->quat);
    tbu_sub3(d, wp, bd->pos);
    tbu_rotVec(gd.pos, qbc, d);
    tbu_quatMul(gd.quat, qbc, wq);
    gd.mu = s->mu;
    gd.contype = s->contype;
    gd.conaffinity = s->conaffinity;
    double box[8];
    if (s->type == TB_GEOM_PRISM) {
      double ez[3];
      tbu_rotVec(ez, wq, (double[3]){0, 0, 1});
      if (fabs(fabs(ez[2]) - 1.0) > 1e-12) {
        return tb_mjFail(c, s->node, "a shape of a tripod body must keep its z axis vertical");
      }
      if (s->box_prism) {
        double hx = s->size[0], hy = s->size[1];
        double v[8] = {-hx, -hy, hx, -hy, hx, hy, -hx, hy};
        memcpy(box, v, sizeof(box));
        gd.nvert = 4;
        gd.size[0] = gd.size[1] = gd.size[2] = 0.0;
      } else {
        box[0] = box[1] = 0.0;
        gd.nvert = 1;
        gd.size[1] = gd.size[2] = 0.0;
      }
      gd.vert = box;
    }
    const char* name = tb_mjName(s->node);
    xmlNodePtr soft, rest;
    if (tb_mjCompliance(c, name, &gd.stiffness, &gd.damping, &soft) ||
        tb_mjScalar(c, "restitution", name, &gd.restitution, &rest))
      return 2;
    int g = tb_addGeom(c->m, &gd);
    if (g < 0) return tb_mjFail(c, rest ? rest : soft ? soft : s->node, "%s", tb_lastError());
    if (!name) continue;
    if (tb_mjNote(c, name, TB_MJ_P_FRICTION, g, 1, 1.0, 0)) return 2;
    if (soft && tb_mjNote(c, tb_mjName(soft), TB_MJ_P_GEOM_SOFT, g, 2, 1.0, 0)) return 2;
    if (rest && tb_mjNote(c, tb_mjName(rest), TB_MJ_P_GEOM_REST, g, 1, 1.0, 0)) return 2;
    int two = s->type == TB_GEOM_CAPSULE || s->type == TB_GEOM_CYLINDER;
    int sized = s->type == TB_GEOM_SPHERE ? 1 : two ? 2 : 3;
    if (s->type != TB_GEOM_PLANE && s->type != TB_GEOM_PRISM &&
        (pl->inertial || bd->type != TB_BODY_DYNAMIC) &&
        tb_mjNote(c, name, TB_MJ_P_SIZE, g, sized, 1.0, 0))
      return 2;
  }
  return 0;
}

static int tb_mjDriver(tbMj* c, xmlNodePtr n, const char* name, int b) {
  static const char* const kinds[3] = {"plate", "rocking", "constvel"};
  static const int types[3] = {TB_DRIVER_PLATE, TB_DRIVER_ROCKING, TB_DRIVER_CONSTVEL};
  static const int counts[3] = {13, 3, 6};
  tbDriverDef dd = tb_defaultDriverDef();
  dd.body = b;
  dd.type = TB_DRIVER_CONSTVEL;
  xmlNodePtr num = NULL;
  int kind = -1;
  for (int k = 0; k < 3 && name; k++) {
    xmlNodePtr x = tb_mjNumeric(c, kinds[k], name);
    if (x && num) return tb_mjFail(c, x, "a second driver for body '%s'", name);
    if (x) num = x, kind = k;
  }
  if (num) {
    double v[13];
    if (tb_mjData(c, num, v, counts[kind])) return 2;
    dd.type = types[kind];
    if (kind == 0) {
      memcpy(dd.amp, v, sizeof(dd.amp));
      memcpy(dd.phase, v + 6, sizeof(dd.phase));
      dd.omega = v[12];
    } else if (kind == 1) {
      memcpy(dd.amp, v, sizeof(double) * 3);
    } else {
      memcpy(dd.vel, v, sizeof(dd.vel));
    }
    if (tb_mjNote(c, tb_mjName(num), TB_MJ_P_DRIVER, c->m->ndriver, counts[kind], 1.0, kind))
      return 2;
  }
  if (tb_addDriver(c->m, &dd) < 0) return tb_mjFail(c, num ? num : n, "%s", tb_lastError());
  return 0;
}

// the body's kind from its parent, joints and mocap flag
static int tb_mjBodyType(tbMj* c, xmlNodePtr n, const tbMjParent* p, const tbMjBodyPlan* pl,
                         int* type) {
  const tbMjJoint* j = pl->joint;
  if (pl->mocap) {
    if (p->b >= 0 || pl->nj) {
      return tb_mjFail(c, n, "mocap=\"true\": a mocap body is a jointless child of the world");
    }
    *type = TB_BODY_KINEMATIC;
    return 0;
  }
  if (pl->nj == 0) {
    if (p->type == TB_BODY_KINEMATIC) {
      return tb_mjFail(c, n, "a body welded to a mocap body: put its geoms in the mocap body");
    }
    *type = p->type == TB_BODY_STATIC ? TB_BODY_STATIC : TB_BODY_DYNAMIC;
    return 0;
  }
  for (int k = 0; k < pl->nj; k++) {
    if (j[k].type == 0 && (pl->nj > 1 || p->type != TB_BODY_STATIC || p->b >= 0)) {
      return tb_mjFail(c, j[k].node, "a free joint is the only joint of a child of the world");
    }
  }
  if (pl->nj > 1 && p->b >= 0) {
    return tb_mjFail(c, j[1].node, "tumble has one joint per body below the world's children");
  }
  *type = TB_BODY_DYNAMIC;
  return 0;
}

// the model-wide custom numerics: tumble_minimal_joints ("1": every hinge, slide and ball joint
// in coordinates, as MuJoCo holds them; "0" or none: rows) into c->minimal,
// tumble_option_restitution_vmin (m/s: contacts approaching slower stay plastic) and
// tumble_option_quasistatic ("1": the quasistatic step of thesis §3.4, solved by auto, as the
// built-in quasistatic scenes), tumble_option_corners ("1": planar shapes' corners
// disjunctive, thesis §3.2), tumble_option_implicit ("1": geometrically implicit contact, thesis
// §3.5) and tumble_option_soft (contact regularization, tbOption soft) into the model's options;
// 0, or 2 after an error
static int tb_mjModelNumerics(tbMj* c) {
  xmlNodePtr n;
  double v = 0.0;
  if (tb_mjScalar(c, "minimal", "joints", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (minimal) or 0 (rows)", v);
  c->minimal = n && v == 1.0;
  if (tb_mjScalar(c, "option", "restitution_vmin", &v, &n)) return 2;
  if (n && !(v >= 0.0 && v < INFINITY)) return tb_mjFail(c, n, "data %g: a speed >= 0 (m/s)", v);
  if (n) c->m->opt.restitution_vmin = v;
  if (tb_mjScalar(c, "option", "quasistatic", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (quasistatic) or 0", v);
  if (n && v == 1.0) {
    c->m->opt.quasistatic = 1;
    c->m->opt.solver = TB_SOLVER_AUTO;
  }
  if (tb_mjScalar(c, "option", "corners", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (disjunctive) or 0", v);
  if (n) c->m->opt.corners = (int)v;
  if (tb_mjScalar(c, "option", "implicit", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (implicit contact) or 0", v);
  if (n) c->m->opt.implicit = (int)v;
  if (tb_mjScalar(c, "option", "soft", &v, &n)) return 2;
  if (n && !(v >= 0.0 && v < INFINITY)) return tb_mjFail(c, n, "data %g: finite and >= 0", v);
  if (n) c->m->opt.soft = v;
  return 0;
}

// joint j (NULL: a weld) between body b and its parent, at the key's coordinate and rate q (the
// frame already moved by them: a minimal joint starts there at q[1]); at is the body's element
static int tb_mjAddJoint(tbMj* c, xmlNodePtr at, const tbMjJoint* j, int b, int parent,
                         const tbMjFrame* f, const double q[2]) {
  static const int types[4] = {-1, TB_JOINT_SPHERICAL, TB_JOINT_PRISMATIC, TB_JOINT_REVOLUTE};
  tbJointDef jd = tb_defaultJointDef();
  jd.type = j ? types[j->type] : TB_JOINT_FIXED;
  jd.body_a = b;
  jd.body_b = parent;
  jd.minimal = c->minimal && jd.type != TB_JOINT_FIXED;
  if (jd.minimal && jd.type != TB_JOINT_SPHERICAL) jd.qd0 = q[1];  // a ball's rate: its body's
  if (j) {
    tbu_rotVec(jd.anchor, f->quat, j->pos);
    tbu_rotVec(jd.axis, f->quat, j->axis);
  }
  tbu_add3(jd.anchor, jd.anchor, f->pos);
  double scale = j && (j->type == 3 || j->type == 1) ? c->angle : 1.0;
  if (j && j->limited && j->type == 1 && q[0] != 0.0) {
    // tumble measures a ball's cone from the start, MuJoCo from the reference orientation
    return tb_mjFail(c, j->node,
                     "range: a limited ball starts at its reference (key quat 1 0 0 0)");
  }
  if (j && j->limited) {
    jd.limited = 1;
    jd.lo = j->range[0] * scale - q[0];
    jd.hi = j->range[1] * scale - q[0];
  }
  const char* name = j ? tb_mjName(j->node) : NULL;
  xmlNodePtr soft;
  if (tb_mjCompliance(c, name, &jd.stiffness, &jd.damping, &soft)) return 2;
  int k = tb_addJoint(c->m, &jd);
  if (k < 0) return tb_mjFail(c, soft ? soft : j ? j->node : at, "%s", tb_lastError());
  if (soft && tb_mjNote(c, tb_mjName(soft), TB_MJ_P_JOINT_SOFT, k, 2, 1.0, 0)) return 2;
  if (name && j->limited && q[0] == 0.0)
    return tb_mjNote(c, name, TB_MJ_P_RANGE, k, 2, scale, jd.type);
  return 0;
}

// 1 when the body's joints become locks (tb_mjLocks) rather than joints: a child of the world
// with several joints, or with one unlimited slide along a world axis (a finger on a rail: the
// same motion as a prismatic joint to the world, without its rows)
static int tb_mjLockedBody(const tbMjParent* p, const tbMjBodyPlan* pl, const tbMjFrame* f) {
  if (p->b >= 0 || pl->nj == 0) return 0;
  if (pl->nj > 1) return 1;
  const tbMjJoint* j = &pl->joint[0];
  double a[3];
  tbu_rotVec(a, f->quat, j->axis);
  int along = 0;
  for (int i = 0; i < 3; i++) along |= fabs(fabs(a[i]) - 1.0) < 1e-12;
  return j->type == 2 && !j->limited && along;
}

static int tb_mjBody(tbMj* c, xmlNodePtr n, const tbMjParent* p, tbMjBodyPlan* pl) {
  static const char* const attrs[] = {"name",   "pos",   "quat",  "axisangle",  "euler",
                                      "xyaxes", "zaxis", "mocap", "childclass", NULL};
  static const char* const tf[] = {"false", "true", NULL};
  if (tb_mjOnly(c, n, attrs)) return 2;
  tbMjParent me = {.b = -1, .childclass = p->childclass};
  xmlAttrPtr cc = xmlHasProp(n, (const xmlChar*)"childclass");
  if (cc && (me.childclass = tb_mjFindClass(c, n, tb_mjValue(cc))) < 0) return 2;
  double pos[3] = {0, 0, 0}, q[4], d[3];
  if (tb_mjNums(c, n, -1, "pos", pos, 3, 3) < 0 || tb_mjOrient(c, n, -1, q)) return 2;
  if ((pl->mocap = tb_mjWord(c, n, -1, "mocap", "false", tf)) < 0) return 2;
  // the frame rides on the parent's: position, orientation, and the parent's twist at it
  tbMjFrame* f = &me.f;
  tbu_rotVec(f->pos, p->f.quat, pos);
  tbu_add3(f->pos, f->pos, p->f.pos);
  tbu_quatMul(f->quat, p->f.quat, q);
  tbu_sub3(d, f->pos, p->f.pos);
  tbu_cross3(f->vel, p->f.vel + 3, d);
  tbu_add3(f->vel, f->vel, p->f.vel);
  tbu_copy3(f->vel + 3, p->f.vel + 3);

  char autoname[TB_NAMELEN];
  const char* name = tb_mjName(n);
  snprintf(autoname, sizeof(autoname), "body%d", c->nbody++);
  xmlNodePtr tripod = name ? tb_mjNumeric(c, "tripod", name) : NULL;
  if (tb_mjCollect(c, n, me.childclass, tripod != NULL, pl) || tb_mjBodyType(c, n, p, pl, &me.type))
    return 2;
  double jq[6][2] = {{0}};
  tbMjFrame f0 = *f;  // before the keyframe moves it: the joints' axes are given there
  for (int k = 0; k < pl->nj; k++) tb_mjApplyJoint(c, &pl->joint[k], f, jq[k]);

  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name ? name : autoname;
  bd.type = me.type;
  double com[3] = {0, 0, 0}, qi[4] = {1, 0, 0, 0};
  if (me.type == TB_BODY_DYNAMIC &&
      tb_mjMass(c, n, pl->inertial, pl->shape, pl->nshape, &bd.mass, com, bd.inertia, qi))
    return 2;
  if (me.type != TB_BODY_DYNAMIC && pl->inertial) {  // checked, though a still body needs none
    double mass, I[3], x[3], q4[4];
    if (tb_mjMass(c, n, pl->inertial, NULL, 0, &mass, x, I, q4)) return 2;
  }
  int locked = tb_mjLockedBody(p, pl, &f0);
  if (locked && (bd.lock = tb_mjLocks(c, pl->joint, pl->nj, &f0, com)) < 0) return 2;
  tbu_rotVec(bd.pos, f->quat, com);
  tbu_add3(bd.pos, bd.pos, f->pos);
  tbu_quatMul(bd.quat, f->quat, qi);
  if (me.type == TB_BODY_DYNAMIC) {
    tbu_sub3(d, bd.pos, f->pos);
    tbu_cross3(bd.vel, f->vel + 3, d);
    tbu_add3(bd.vel, bd.vel, f->vel);
    tbu_copy3(bd.vel + 3, f->vel + 3);
  }
  xmlNodePtr force = name ? tb_mjNumeric(c, "force", name) : NULL;
  if (force && me.type != TB_BODY_DYNAMIC) {
    return tb_mjFail(c, force, "a force acts on a moving body; '%s' does not move", name);
  }
  if (force && tb_mjData(c, force, bd.force, 6)) return 2;
  int b = tb_addBody(c->m, &bd);
  if (b < 0) return tb_mjFail(c, n, "%s", tb_lastError());
  me.b = b;
  if (force && tb_mjNote(c, tb_mjName(force), TB_MJ_P_FORCE, b, 6, 1.0, 0)) return 2;
  if (tb_mjAddShapes(c, pl, b, &bd, f)) return 2;
  if (me.type == TB_BODY_KINEMATIC && tb_mjDriver(c, n, name, b)) return 2;
  if (tripod) {
    double v[7];
    if (tb_mjData(c, tripod, v, 7)) return 2;
    tbSupportDef sd = tb_defaultSupportDef();
    sd.body = b;
    sd.mu = v[0];
    memcpy(sd.point, v + 1, sizeof(sd.point));
    int k = tb_addSupport(c->m, &sd);
    if (k < 0) return tb_mjFail(c, tripod, "%s", tb_lastError());
    if (tb_mjNote(c, tb_mjName(tripod), TB_MJ_P_TRIPOD, k, 7, 1.0, 0)) return 2;
  }
  int pb = p->type == TB_BODY_STATIC ? -1 : p->b;
  if (pl->nj == 1 && pl->joint[0].type != 0 && !locked) {
    if (tb_mjAddJoint(c, n, &pl->joint[0], b, pb, f, jq[0])) return 2;
  } else if (pl->nj == 0 && me.type == TB_BODY_DYNAMIC &&
             tb_mjAddJoint(c, n, NULL, b, pb, f, jq[0])) {
    return 2;
  }
  if (name && me.type == TB_BODY_DYNAMIC) {
    if (tb_mjNote(c, name, TB_MJ_P_MASS, b, 1, 1.0, 0)) return 2;
    int leaf = 1;
    for (xmlNodePtr k = n->children; k; k = k->next) leaf &= !tb_mjIs(k, "body");
    if (((pl->nj == 1 && pl->joint[0].type == 0) || locked) && leaf &&
        tb_mjNote(c, name, TB_MJ_P_POS, b, 3, 1.0, 0))
      return 2;
  }
  return tb_mjBodyTree(c, n, &me);
}

// the child bodies of n
static int tb_mjBodyTree(tbMj* c, xmlNodePtr n, const tbMjParent* p) {
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (!tb_mjIs(k, "body")) continue;
    tbMjBodyPlan pl;
    memset(&pl, 0, sizeof(pl));
    int rc = tb_mjBody(c, k, p, &pl);
    free(pl.shape);
    if (rc) return rc;
  }
  return 0;
}

// worldbody: its own geoms on a static body "world", then its bodies
static int tb_mjWorld(tbMj* c, xmlNodePtr n) {
  tbMjParent w = {.b = -1, .type = TB_BODY_STATIC, .f = {.quat = {1, 0, 0, 0}}};
  tbMjBodyPlan pl;
  memset(&pl, 0, sizeof(pl));
  if (n->properties) return tb_mjFail(c, n, "takes no attributes");
  int rc = tb_mjCollect(c, n, 0, 0, &pl);
  if (!rc && (pl.nj || pl.inertial)) {
    rc = tb_mjFail(c, pl.nj ? pl.joint[0].node : pl.inertial, "the world has no joints or inertia");
  }
  if (!rc && pl.nshape) {
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = "world";
    bd.type = TB_BODY_STATIC;
    int b = tb_addBody(c->m, &bd);
    rc = b < 0 ? tb_mjFail(c, n, "%s", tb_lastError()) : tb_mjAddShapes(c, &pl, b, &bd, &w.f);
  }
  free(pl.shape);
  return rc ? rc : tb_mjBodyTree(c, n, &w);
}

//---- top-level sections ------------------------------------------------------------------------

static int tb_mjCompiler(tbMj* c, xmlNodePtr n) {
  static const char* const attrs[] = {"angle", "eulerseq", "inertiafromgeom", "autolimits", NULL};
  static const char* const angle[] = {"degree", "radian", NULL};
  static const char* const auto_[] = {"auto", NULL};
  static const char* const yes[] = {"true", NULL};
  if (tb_mjLeafOnly(c, n, attrs)) return 2;
  int a = tb_mjWord(c, n, -1, "angle", c->angle == 1.0 ? "radian" : "degree", angle);
  if (a < 0 || tb_mjWord(c, n, -1, "inertiafromgeom", "auto", auto_) < 0 ||
      tb_mjWord(c, n, -1, "autolimits", "true", yes) < 0)
    return 2;
  c->angle = a ? 1.0 : TB_PI / 180.0;
  const char* seq = tb_mjStr(c, n, -1, "eulerseq", c->seq);
  if (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3) {
    return tb_mjFail(c, n, "eulerseq=\"%s\": three of x, y, z, X, Y, Z", seq);
  }
  memcpy(c->seq, seq, 4);
  return 0;
}

// MuJoCo's solver names as tumble's step solvers: its Newton is auto (PGS, then a Newton
// polish); CG has no counterpart
static int tb_mjSolver(const tbMj* c, xmlNodePtr n, tbOption* o) {
  static const char* const solvers[] = {"PGS", "Newton", NULL};
  int s = tb_mjWord(c, n, -1, "solver", o->solver == TB_SOLVER_AUTO ? "Newton" : "PGS", solvers);
  if (s < 0) return 2;
  o->solver = s ? TB_SOLVER_AUTO : TB_SOLVER_PGS;
  double it = o->max_iter;
  if (tb_mjNums(c, n, -1, "iterations", &it, 1, 1) < 0) return 2;
  if (!(it >= 1.0 && it <= 1e6 && it == floor(it))) {
    return tb_mjFail(c, n, "iterations %g: a whole number from 1 to 1e6", it);
  }
  o->max_iter = (int)it;
  return 0;
}

static int tb_mjOption(tbMj* c, xmlNodePtr n) {
  static const char* const attrs[] = {"timestep", "gravity", "cone", "solver", "iterations", NULL};
  static const char* const cones[] = {"elliptic", "pyramidal", NULL};
  tbOption* o = &c->m->opt;
  if (tb_mjOnly(c, n, attrs)) return 2;
  if (xmlFirstElementChild(n)) {
    return tb_mjFail(c, xmlFirstElementChild(n), "element outside tumble's MJCF subset");
  }
  int cone =
      tb_mjWord(c, n, -1, "cone", o->cone == TB_CONE_EXACT ? "elliptic" : "pyramidal", cones);
  if (cone < 0 || tb_mjNums(c, n, -1, "timestep", &o->timestep, 1, 1) < 0 ||
      tb_mjNums(c, n, -1, "gravity", o->gravity, 3, 3) < 0)
    return 2;
  if (!(o->timestep > 0.0)) return tb_mjFail(c, n, "timestep %g must be > 0", o->timestep);
  o->cone = cone ? TB_CONE_PYRAMID : TB_CONE_EXACT;
  return tb_mjSolver(c, n, o);
}

static int tb_mjDefault(tbMj* c, xmlNodePtr n, int parent) {
  static const char* const attrs[] = {"class", NULL};
  if (tb_mjOnly(c, n, attrs)) return 2;
  const char* name = parent < 0 ? "main" : NULL;
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)"class");
  if (a) name = tb_mjValue(a);
  if (!name) return tb_mjFail(c, n, "a nested <default> needs class=");
  if (parent < 0 && strcmp(name, "main")) return tb_mjFail(c, n, "the top <default> is 'main'");
  for (int k = 0; k < c->ncls; k++) {
    if (!strcmp(c->cls[k].name, name)) return tb_mjFail(c, n, "class '%s' defined twice", name);
  }
  tbMjClass* cl = (tbMjClass*)realloc(c->cls, sizeof(tbMjClass) * (size_t)(c->ncls + 1));
  if (!cl) return tb_mjFail(c, n, "out of memory");
  c->cls = cl;
  int me = c->ncls++;
  memset(&cl[me], 0, sizeof(cl[me]));
  cl[me].name = name;
  cl[me].parent = parent;
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    int kind = tb_mjKind(k);
    if (tb_mjIs(k, "default")) {
      if (tb_mjDefault(c, k, me)) return 2;
    } else if (kind >= 0) {
      if (c->cls[me].elem[kind]) return tb_mjFail(c, k, "a second <%s> in one class", k->name);
      if (xmlHasProp(k, (const xmlChar*)"class") || xmlHasProp(k, (const xmlChar*)"name")) {
        return tb_mjFail(c, k, "a default takes no name or class");
      }
      c->cls[me].elem[kind] = k;
    } else if (!tb_mjIs(k, "site")) {
      return tb_mjFail(c, k, "element outside tumble's MJCF subset (README: MJCF)");
    }
  }
  return 0;
}

// the defaults' attributes are checked as their elements' are
static int tb_mjCheckDefaults(tbMj* c) {
  static const char* const jattrs[] = {"type", "pos", "axis", "range", "limited", NULL};
  for (int k = 0; k < c->ncls; k++) {
    xmlNodePtr g = c->cls[k].elem[TB_MJ_GEOM], j = c->cls[k].elem[TB_MJ_JOINT];
    if ((g && tb_mjOnly(c, g, tb_mjGeomAttrs)) || (j && tb_mjOnly(c, j, jattrs))) return 2;
  }
  return 0;
}

static const char* const tb_mjNone[] = {NULL};

static int tb_mjCustom(tbMj* c, xmlNodePtr n) {
  static const char* const attrs[] = {"name", "data", NULL};
  if (tb_mjOnly(c, n, tb_mjNone)) return 2;
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    const char* name = tb_mjName(k);
    if (!tb_mjIs(k, "numeric") || !name || strncmp(name, "tumble_", 7)) {
      return tb_mjFail(c, k,
                       "tumble reads <numeric name=\"tumble_KIND_NAME\"> only (KIND: plate, "
                       "rocking, constvel, force, tripod, compliance)");
    }
    if (tb_mjLeafOnly(c, k, attrs)) return 2;
    xmlNodePtr* nn =
        (xmlNodePtr*)realloc(c->numeric, sizeof(xmlNodePtr) * (size_t)(c->nnumeric + 1));
    int* nu = nn ? (int*)realloc(c->numeric_used, sizeof(int) * (size_t)(c->nnumeric + 1)) : NULL;
    if (nn) c->numeric = nn;
    if (!nu) return tb_mjFail(c, k, "out of memory");
    c->numeric_used = nu;
    c->numeric[c->nnumeric] = k;
    c->numeric_used[c->nnumeric++] = 0;
  }
  return 0;
}

static int tb_mjKeyframe(tbMj* c, xmlNodePtr n) {
  static const char* const attrs[] = {"name", "time", "qpos", "qvel", NULL};
  if (tb_mjOnly(c, n, tb_mjNone)) return 2;
  xmlNodePtr k = xmlFirstElementChild(n);
  if (!k) return 0;
  for (xmlNodePtr e = k; e; e = xmlNextElementSibling(e)) {
    if (!tb_mjIs(e, "key")) return tb_mjFail(c, e, "<keyframe> holds <key> elements");
    if (tb_mjLeafOnly(c, e, attrs)) return 2;
  }
  double t = 0.0;
  if (tb_mjNums(c, k, -1, "time", &t, 1, 1) < 0) return 2;
  if (t != 0.0) return tb_mjFail(c, k, "time %g: tumble starts at 0", t);
  // a number takes at least two characters with its separator
  xmlNodePtr w;
  const char* qp = tb_mjAttr(c, k, -1, "qpos", &w);
  const char* qv = tb_mjAttr(c, k, -1, "qvel", &w);
  size_t lp = qp ? strlen(qp) : 0, lv = qv ? strlen(qv) : 0;
  int cap = (int)((lp > lv ? lp : lv) / 2 + 1);
  c->qpos = (double*)malloc(sizeof(double) * (size_t)cap);
  c->qvel = (double*)malloc(sizeof(double) * (size_t)cap);
  if (!c->qpos || !c->qvel) return tb_mjFail(c, k, "out of memory");
  if ((c->nqpos = tb_mjNums(c, k, -1, "qpos", c->qpos, 0, cap)) < 0 ||
      (c->nqvel = tb_mjNums(c, k, -1, "qvel", c->qvel, 0, cap)) < 0)
    return 2;
  if (!c->nqpos) free(c->qpos), c->qpos = NULL;
  if (!c->nqvel) free(c->qvel), c->qvel = NULL;
  c->key = k;
  return 0;
}

static int tb_mjEquality(tbMj* c, xmlNodePtr n) {
  static const char* const attrs[] = {"name", "body1", "body2", "anchor", NULL};
  if (tb_mjOnly(c, n, tb_mjNone)) return 2;
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) {
    int connect = tb_mjIs(k, "connect");
    if (!connect && !tb_mjIs(k, "weld")) {
      return tb_mjFail(c, k, "tumble has <connect> and <weld> equalities");
    }
    if (tb_mjLeafOnly(c, k, attrs)) return 2;
    if (c->key) {
      return tb_mjFail(c, k,
                       "with a keyframe: tumble would build the joint at the key's pose, "
                       "MuJoCo holds it at the model's");
    }
    int b[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
      const char* bn = tb_mjStr(c, k, -1, i ? "body2" : "body1", NULL);
      if (!bn && !i) return tb_mjFail(c, k, "body1 missing");
      if (bn && strcmp(bn, "world") && (b[i] = tb_findBody(c->m, bn)) < 0) {
        return tb_mjFail(c, k, "%s=\"%s\": no such body", i ? "body2" : "body1", bn);
      }
    }
    if (b[0] < 0 || c->m->bdef[b[0]].type != TB_BODY_DYNAMIC) {
      return tb_mjFail(c, k, "body1 must be a moving body");
    }
    if (b[1] >= 0 && c->m->bdef[b[1]].type == TB_BODY_STATIC) b[1] = -1;
    tbJointDef jd = tb_defaultJointDef();
    jd.type = connect ? TB_JOINT_SPHERICAL : TB_JOINT_FIXED;
    jd.body_a = b[0];
    jd.body_b = b[1];
    const tbBodyDef* b1 = &c->m->bdef[b[0]];
    tbu_copy3(jd.anchor, b1->pos);
    double a[3];
    int na = tb_mjNums(c, k, -1, "anchor", a, 3, 3);
    if (na < 0) return 2;
    if (connect && !na) return tb_mjFail(c, k, "anchor missing");
    if (na) {  // in body1's MJCF frame
      const tbMjFrame* f = &c->frame[b[0]];
      tbu_rotVec(jd.anchor, f->quat, a);
      tbu_add3(jd.anchor, jd.anchor, f->pos);
    }
    xmlNodePtr soft;
    if (tb_mjCompliance(c, tb_mjName(k), &jd.stiffness, &jd.damping, &soft)) return 2;
    int j = tb_addJoint(c->m, &jd);
    if (j < 0) return tb_mjFail(c, soft ? soft : k, "%s", tb_lastError());
    if (soft && tb_mjNote(c, tb_mjName(soft), TB_MJ_P_JOINT_SOFT, j, 2, 1.0, 0)) return 2;
  }
  return 0;
}

//---- parameters --------------------------------------------------------------------------------

static int tb_mjParam(tbMj* c, const char* name, const char* unit, const char* doc, double lo,
                      double hi, int lo_open, int field, int object, int comp, double scale) {
  int p = tb_addParam(c->m, name, unit, doc, lo, hi, lo_open);
  if (p < 0 || tb_paramTargetScaled(c->m, p, field, object, comp, scale)) {
    return tb_mjPrefix(c->file, name);
  }
  return 0;
}

// one named value's parameters: NAME.ATTR, NAME.ATTR_x/_y/_z or NAME.ATTR_K
static int tb_mjNamedParams(tbMj* c, const tbMjNamed* v) {
  static const char* xyz[3] = {"_x", "_y", "_z"};
  char pn[TB_NAMELEN + 16];
  tbModel* m = c->m;
  if (v->kind == TB_MJ_P_MASS) {
    snprintf(pn, sizeof(pn), "%s.mass", v->name);
    int p = tb_addParam(m, pn, "kg", "body mass (inertia scales with it)", 0.0, 1e9, 1);
    if (p < 0 || tb_paramTarget(m, p, TB_F_BODY_MASS, v->object, 0)) {
      return tb_mjPrefix(c->file, pn);
    }
    for (int k = 0; k < 3; k++) {
      double s = m->bdef[v->object].inertia[k] / m->bdef[v->object].mass;
      if (tb_paramTargetScaled(m, p, TB_F_BODY_INERTIA, v->object, k, s)) return TB_ERR_ARG;
    }
    return 0;
  }
  for (int k = 0; k < v->count; k++) {
    int rc = 0;
    switch (v->kind) {
      case TB_MJ_P_POS:
        snprintf(pn, sizeof(pn), "%s.pos%s", v->name, xyz[k]);
        rc = tb_mjParam(c, pn, "m", "initial position of the body", -1e6, 1e6, 0, TB_F_BODY_POS,
                        v->object, k, 1.0);
        break;
      case TB_MJ_P_FRICTION:
        snprintf(pn, sizeof(pn), "%s.friction", v->name);
        rc = tb_mjParam(c, pn, "", "friction coefficient (a contact takes the larger)", 0.0, 1e3, 0,
                        TB_F_GEOM_MU, v->object, 0, 1.0);
        break;
      case TB_MJ_P_SIZE:
        snprintf(pn, sizeof(pn), "%s.size_%d", v->name, k);
        // a sphere may shrink to a point
        rc = tb_mjParam(c, pn, "m", "shape size (MJCF's size)", 0.0, 1e6,
                        m->gdef[v->object].type != TB_GEOM_SPHERE, TB_F_GEOM_SIZE, v->object, k,
                        1.0);
        break;
      case TB_MJ_P_RANGE:
        snprintf(pn, sizeof(pn), "%s.range_%d", v->name, k);
        rc = tb_mjParam(c, pn,
                        v->sub == TB_JOINT_PRISMATIC ? "m"
                        : c->angle == 1.0            ? "rad"
                                                     : "deg",
                        "joint limit (the file's angle unit)", -1e6, 1e6, 0, TB_F_JOINT, v->object,
                        k ? TB_JNT_HI : TB_JNT_LO, v->scale);
        break;
      case TB_MJ_P_FORCE:
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(c, pn, k < 3 ? "N" : "N m", "applied wrench, world frame", -1e6, 1e6, 0,
                        TB_F_BODY_FORCE, v->object, k, 1.0);
        break;
      case TB_MJ_P_GEOM_SOFT:
      case TB_MJ_P_JOINT_SOFT: {
        int joint = v->kind == TB_MJ_P_JOINT_SOFT;
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(
            c, pn, joint ? (k ? "N s/m|N m s/rad" : "N/m|N m/rad") : (k ? "N s/m" : "N/m"),
            k ? "damping (Drumwright; 0 and 0: rigid)" : "stiffness (Drumwright; 0 and 0: rigid)",
            0.0, 1e20, 0, joint ? TB_F_JOINT : TB_F_GEOM_SOFT, v->object,
            joint ? TB_JNT_STIFF + k : k, 1.0);
        break;
      }
      case TB_MJ_P_GEOM_REST:
        snprintf(pn, sizeof(pn), "%s.data_0", v->name);
        rc = tb_mjParam(c, pn, "", "Newton restitution (a contact takes the larger)", 0.0, 1.0, 0,
                        TB_F_GEOM_REST, v->object, 0, 1.0);
        break;
      case TB_MJ_P_TRIPOD:
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(c, pn, k ? "m" : "", k ? "support point, body frame" : "support friction",
                        k ? -1e3 : 0.0, 1e3, 0, TB_F_SUPPORT, v->object, TB_SUP_MU + k, 1.0);
        break;
      default: {  // drivers: plate A1..A6 C1..C6 omega, rocking alpha T d, constvel twist
        int kind = v->sub, comp = TB_DRV_AMP + k, open = 0;
        double lo = -1e6;
        if (kind == 0 && k >= 6) comp = k == 12 ? TB_DRV_OMEGA : TB_DRV_PHASE + k - 6;
        if (kind == 2) comp = TB_DRV_VEL + k;
        if ((kind == 0 && k == 12) || (kind == 1 && k == 1)) lo = 0.0, open = 1;
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(c, pn, "", "driver data (mjcf.h)", lo, 1e6, open, TB_F_DRIVER, v->object,
                        comp, 1.0);
      }
    }
    if (rc) return rc;
  }
  return 0;
}

static int tb_mjParams(tbMj* c) {
  static const char* g[3] = {"opt.gravity_x", "opt.gravity_y", "opt.gravity_z"};
  if (tb_mjParam(c, "opt.timestep", "s", "time step", 0.0, 1.0, 1, TB_F_OPT, 0, TB_OPT_DT, 1.0))
    return TB_ERR_ARG;
  for (int k = 0; k < 3; k++) {
    if (tb_mjParam(c, g[k], "m/s^2", "gravity", -1e4, 1e4, 0, TB_F_OPT, 0, TB_OPT_GRAVITY + k, 1.0))
      return TB_ERR_ARG;
  }
  for (int i = 0; i < c->nnamed; i++) {
    if (tb_mjNamedParams(c, &c->named[i])) return TB_ERR_ARG;
  }
  // last, as the scenes' (where the step has contact rows), so that the others keep their places
  if (!c->m->opt.quasistatic && !c->m->opt.implicit &&
      tb_mjParam(c, "opt.soft", "", "contact regularization (0: rigid contacts)", 0.0, 1e3, 0,
                 TB_F_OPT, 0, TB_OPT_SOFT, 1.0))
    return TB_ERR_ARG;
  return 0;
}

//---- the file ----------------------------------------------------------------------------------

// the sections in the order they depend on one another
static int tb_mjSections(tbMj* c, xmlNodePtr root) {
  static const char* const order[] = {"compiler", "default",   "option",   "custom",
                                      "keyframe", "worldbody", "equality", NULL};
  static const char* const ignored[] = {"visual", "asset", "statistic", "size", NULL};
  static const char* const attrs[] = {"model", NULL};
  if (!tb_mjIs(root, "mujoco")) return tb_mjFail(c, root, "the root element must be <mujoco>");
  if (root->doc->intSubset) return tb_mjFail(c, root, "a DTD (entities) is outside the subset");
  if (tb_mjOnly(c, root, attrs)) return 2;
  for (xmlNodePtr k = xmlFirstElementChild(root); k; k = xmlNextElementSibling(k)) {
    int known = 0;
    for (int i = 0; order[i] && !known; i++) known = tb_mjIs(k, order[i]);
    for (int i = 0; ignored[i] && !known; i++) known = tb_mjIs(k, ignored[i]);
    if (!known) return tb_mjFail(c, k, "element outside tumble's MJCF subset (README: MJCF)");
    if (tb_mjIs(k, "asset")) {
      for (xmlNodePtr a = xmlFirstElementChild(k); a; a = xmlNextElementSibling(a)) {
        if (!tb_mjIs(a, "texture") && !tb_mjIs(a, "material")) {
          return tb_mjFail(c, a, "tumble reads textures and materials only (for looks)");
        }
      }
    }
  }
  for (int i = 0; order[i]; i++) {
    int seen = 0;
    for (xmlNodePtr k = xmlFirstElementChild(root); k; k = xmlNextElementSibling(k)) {
      if (!tb_mjIs(k, order[i])) continue;
      int rc = 0;
      if (i == 0) rc = tb_mjCompiler(c, k);
      if (i == 1) rc = seen ? tb_mjFail(c, k, "a second top <default>") : tb_mjDefault(c, k, -1);
      if (i == 2) rc = tb_mjOption(c, k);
      if (i == 3 && !(rc = tb_mjCustom(c, k))) rc = tb_mjModelNumerics(c);
      if (i == 4) rc = seen ? tb_mjFail(c, k, "a second <keyframe>") : tb_mjKeyframe(c, k);
      if (i == 5) rc = seen ? tb_mjFail(c, k, "a second <worldbody>") : tb_mjWorld(c, k);
      if (i == 6) rc = tb_mjEquality(c, k);
      if (rc) return rc;
      seen = 1;
    }
    if (i == 1 && !seen) {  // the implicit main class
      static const tbMjClass main_class = {"main", -1, {NULL, NULL}};
      c->cls = (tbMjClass*)malloc(sizeof(tbMjClass));
      if (!c->cls) return tb_setError("%s: out of memory", c->file);
      c->cls[0] = main_class;
      c->ncls = 1;
    }
    if (i == 1 && tb_mjCheckDefaults(c)) return 2;
  }
  for (int i = 0; i < c->nnumeric; i++) {
    if (!c->numeric_used[i]) {
      return tb_mjFail(c, c->numeric[i],
                       "names nothing that takes it (a mocap body for a driver, a "
                       "moving body for force, a body with a tripod, a shape, joint or "
                       "equality for compliance, a shape for restitution)");
    }
  }
  if (c->key && (c->iq != c->nqpos && c->nqpos)) {
    return tb_mjFail(c, c->key, "qpos has %d numbers, the model's joints take %d", c->nqpos, c->iq);
  }
  if (c->key && (c->iv != c->nqvel && c->nqvel)) {
    return tb_mjFail(c, c->key, "qvel has %d numbers, the model's joints take %d", c->nqvel, c->iv);
  }
  return 0;
}

// a whole file's bytes (malloc'd, NUL-ended), or NULL with the error set
static char* tb_mjSlurp(const char* path, int* n) {
  errno = 0;
  FILE* f = fopen(path, "rb");
  char* buf = NULL;
  long len = -1;
  if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && len < INT_MAX &&
      !fseek(f, 0, SEEK_SET) && (buf = (char*)malloc((size_t)len + 1)) &&
      fread(buf, 1, (size_t)len, f) == (size_t)len) {
    buf[len] = 0;
    *n = (int)len;
  } else {
    tb_setError("%s: cannot read the file (%s)", path, errno ? strerror(errno) : "too large");
    free(buf);
    buf = NULL;
  }
  if (f) fclose(f);
  return buf;
}

static void tb_mjQuiet(void* ctx, const char* msg, ...) {
  (void)ctx;
  (void)msg;
}

// the document of src (a path, or the XML itself); NULL with the error set. The file is read
// here, so libxml2 opens nothing itself (no external entities, no network).
static xmlDocPtr tb_mjRead(const char* src, const char** file) {
  const char* s = src;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  int n = 0;
  char* text = NULL;
  *file = *s == '<' ? "<string>" : src;
  if (*s != '<' && !(text = tb_mjSlurp(src, &n))) return NULL;
  xmlParserCtxtPtr ctx = xmlNewParserCtxt();
  if (!ctx) {
    free(text);
    tb_setError("%s: out of memory", *file);
    return NULL;
  }
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
  // a declared encoding the bytes break is reported on libxml2's generic channel, whatever the
  // parser's options: quiet for the parse (the parser's own last error names the line)
  xmlGenericErrorFunc was = xmlGenericError;
  void* was_ctx = xmlGenericErrorContext;
  xmlSetGenericErrorFunc(NULL, tb_mjQuiet);
  xmlDocPtr doc = text ? xmlCtxtReadMemory(ctx, text, n, NULL, NULL, opts)
                       : xmlCtxtReadMemory(ctx, src, (int)strlen(src), NULL, NULL, opts);
  xmlSetGenericErrorFunc(was_ctx, was);
  if (!doc) {
    const xmlError* e = xmlCtxtGetLastError(ctx);
    char msg[200] = "";
    if (e && e->message) snprintf(msg, sizeof(msg), ": %s", e->message);
    msg[strcspn(msg, "\n")] = 0;
    tb_setError("%s:%d: not well-formed XML%s", *file, e ? e->line : 0, msg);
  }
  xmlFreeParserCtxt(ctx);
  free(text);
  return doc;
}

tbModel* tb_loadMJCF(const char* src) {
  if (!src) {
    tb_setError("MJCF: no file");
    return NULL;
  }
  tbMj c;
  memset(&c, 0, sizeof(c));
  c.angle = TB_PI / 180.0;  // MuJoCo's default unit
  memcpy(c.seq, "xyz", 4);
  xmlDocPtr doc = tb_mjRead(src, &c.file);
  if (!doc) return NULL;
  c.m = tb_newModel();
  int rc = c.m ? 0 : tb_setError("MJCF: out of memory");
  if (c.m) {  // MuJoCo's defaults: 2 ms, the pyramid (four facets for condim 3)
    c.m->opt.timestep = 0.002;
    c.m->opt.cone = TB_CONE_PYRAMID;
    c.m->opt.facets = 4;
  }
  if (!rc) rc = tb_mjSections(&c, xmlDocGetRootElement(doc));
  if (!rc) rc = tb_mjParams(&c);
  if (!rc && tb_compileModel(c.m)) rc = tb_mjPrefix(c.file, "model");
  free(c.cls);
  free(c.qpos);
  free(c.qvel);
  free(c.numeric);
  free(c.numeric_used);
  free(c.named);
  free(c.frame);
  xmlFreeDoc(doc);
  if (rc) {
    tb_freeModel(c.m);
    return NULL;
  }
  return c.m;
}

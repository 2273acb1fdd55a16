// Built-in scenes. Each exposes its physical quantities as named parameters (the batch axis)
// and its shape-changing quantities as structural options.
#include <math.h>
#include <string.h>

#include <tumble/scenes.h>

#include "math/collide_geom.h"
#include "math/rng.h"
#include "math/tb_math.h"

#include "util/error.h"

static const tbSceneInfo tb_scenes[] = {
    {"falling-particle",
     "thesis §7.6.1.1: point mass pushed by a constant force falls, lands and slides (x-z plane)",
     100,
     0,
     {{0}}},
    {"sliding-sphere",
     "solid sphere launched without spin on a plane: slides, then rolls (Mylapilli & Jain Ex. 1)",
     600,
     0,
     {{0}}},
    {"incline-block",
     "box resting on an incline: sticks when tan(angle) < mu, else slides",
     1000,
     2,
     {{"angle", "deg", "incline angle from horizontal", 20.0, 0.0, 80.0, 0},
      {"yaw", "deg", "rotation of the incline (and box) about its normal", 0.0, -360.0, 360.0, 0}}},
    {"pendulum",
     "chain of links on revolute (or ball) joints hanging from a pivot, released at an angle "
     "(ball: spinning about the vertical at spin rad/s)",
     2000,
     5,
     {{"links", "", "number of links", 3.0, 1.0, 64.0, 1},
      {"length", "m", "length of each link", 1.0, 1e-3, 100.0, 0},
      {"angle0", "rad", "initial angle of the straight chain from vertical", 0.3, -3.0, 3.0, 0},
      {"minimal", "", "1: the joints in minimal (joint) coordinates, 0: maximal with rows", 0.0,
       0.0, 1.0, 1},
      {"ball", "", "1: ball (spherical) joints, 0: revolute joints about y", 0.0, 0.0, 1.0, 1}}},
    {"box-stack", "three boxes stacked on the ground at rest", 1000, 0, {{0}}},
    {"plate-particle",
     "particle on the vibrating plate of thesis §5.3 (default: the centrifuge field)",
     10000,
     0,
     {{0}}},
    {"plate-block", "box on the vibrating plate of thesis §5.3", 10000, 0, {{0}}},
    {"falling-particles",
     "thesis §7.6.1.2: falling-particle with several particles, each its own mu1, mu2, ...",
     100,
     2,
     {{"count", "", "number of particles", 2.0, 1.0, 64.0, 1},
      {"layout", "",
       "seed of the starts x in [-10, 10], z in [0, 5] and the default mu_i in "
       "(0, 0.5]",
       1.0, 0.0, 2147483647.0, 1}}},
    {"tripod-block",
     "thesis §3.3 / §7.6.2: a planar block sliding to rest on a three-point support tripod",
     100,
     0,
     {{0}}},
    {"chain-wall",
     "Mylapilli & Jain §3.2: 12 spheres on minimal hinges swing into a floor and a wall and "
     "onto each other (restitution 0.7); ball: on ball joints, also spinning about the vertical",
     20000,
     2,
     {{"links", "", "number of links", 12.0, 1.0, 64.0, 1},
      {"ball", "", "1: ball joints, the chain also turning at spin rad/s about the vertical", 0.0,
       0.0, 1.0, 1}}},
    {"qs-fence",
     "thesis §3.4.6, quasistatic: a particle between a wall and a fence swinging toward it and "
     "sweeping along itself (Model-DQC; --cone pyramid: Model-DLC)",
     629,
     0,
     {{0}}},
    {"qs-push",
     "thesis §3.4 / §4.3.2, quasistatic: a pusher tip moving on a straight path pushes a planar "
     "part on a support tripod (Model-DQC; --cone pyramid: Model-DLC)",
     1000,
     0,
     {{0}}},
    {"corner-hole",
     "thesis §3.2 / Fig. 3.1, vertical plane: a block slides over a hole whose far wall is "
     "diagonal; with corners=0 it catches on the wall's fictitious extension",
     120,
     1,
     {{"corners", "", "1: disjunctive non-convex corners, 0: each contact a half-plane", 1.0, 0.0,
       1.0, 1}}},
    {"corner-finger",
     "thesis §3.2 / Fig. 4.8, vertical plane: a gripper's vertex pressed onto a 12-gon part "
     "slides over its corner and down the next edge; with corners=0 it bounces",
     18,
     1,
     {{"corners", "", "1: disjunctive non-convex corners, 0: each contact a half-plane", 1.0, 0.0,
       1.0, 1}}},
    {"implicit-disc",
     "thesis §3.5.3.1, vertical plane: a unit disc rolls without slip on the ground at 3 m/s; "
     "geometrically implicit contact keeps its kinetic energy (implicit=0: the ST step)",
     1000,
     2,
     {{"implicit", "",
       "1: geometrically implicit contact on a half-plane, 0: the ST step on a "
       "box",
       1.0, 0.0, 1.0, 1},
      {"sides", "", "0: the exact disc; N >= 3: a regular N-gon (the ST step only)", 0.0, 0.0, 16.0,
       1}}},
    {"implicit-spheres",
     "thesis §3.5.3.2: a unit sphere pushed against two fixed spheres rolls on one and slides "
     "on the other until it leaves both (geometrically implicit contact, elliptic friction "
     "with torsion); implicit=0: the ST step (no torsion)",
     500,
     1,
     {{"implicit", "", "1: geometrically implicit contact, 0: the ST step", 1.0, 0.0, 1.0, 1}}},
    {"implicit-compliant",
     "thesis §3.5.3.3, vertical plane: a unit disc falls onto a compliant half-plane (spring, "
     "rigid core at deflection core; geometrically implicit contact)",
     10000,
     0,
     {{0}}},
    {"implicit-coin",
     "thesis §3.5.1.3: a coin, a cylinder (its side and two caps: an intersection of convex "
     "functions), dropped turned lands on its rim, slaps flat and rests (geometrically "
     "implicit contact)",
     1000,
     1,
     {{"tilt", "rad", "its axis's angle from the vertical", 1.0, 0.0, 1.5707963267948966, 0}}},
    {"sphere-pile",
     "side^3 spheres dropped from a lattice into a box (a floor and four walls) settle into a "
     "pile: many bodies, each step's rows meeting a few neighbours (regularized contacts, soft "
     "1e-2; solver auto, 3000 iterations)",
     1000,
     1,
     {{"side", "", "spheres along each edge of the starting lattice", 3.0, 1.0, 4.0, 1}}},
};

#define TB_NSCENE ((int)(sizeof(tb_scenes) / sizeof(tb_scenes[0])))

int tb_sceneCount(void) {
  return TB_NSCENE;
}

const tbSceneInfo* tb_sceneInfo(int i) {
  return i >= 0 && i < TB_NSCENE ? &tb_scenes[i] : NULL;
}

int tb_findScene(const char* name) {
  for (int i = 0; i < TB_NSCENE; i++) {
    if (!strcmp(tb_scenes[i].name, name)) return i;
  }
  return -1;
}

tbBuild tb_defaultBuild(int i) {
  tbBuild b;
  memset(&b, 0, sizeof(b));
  for (int k = 0; k < tb_scenes[i].nopt; k++) b.opt[k] = tb_scenes[i].opt[k].value;
  b.cone = TB_CONE_EXACT;
  b.facets = 8;
  return b;
}

//---- building blocks ---------------------------------------------------------------------------

// a parameter with one target; returns its index (or -1, the error set)
static int tb_param1(tbModel* m, const char* name, const char* unit, const char* doc, double lo,
                     double hi, int lo_open, int field, int obj, int comp) {
  int p = tb_addParam(m, name, unit, doc, lo, hi, lo_open);
  if (p >= 0) tb_paramTarget(m, p, field, obj, comp);
  return p;
}

// the model options every scene exposes: dt and gravity
static void tb_optionParams(tbModel* m) {
  tb_param1(m, "dt", "s", "time step", 0.0, 1.0, 1, TB_F_OPT, 0, TB_OPT_DT);
  static const char* g[3] = {"gravity_x", "gravity_y", "gravity_z"};
  for (int k = 0; k < 3; k++) {
    tb_param1(m, g[k], "m/s^2", "gravity", -1e4, 1e4, 0, TB_F_OPT, 0, TB_OPT_GRAVITY + k);
  }
}

// the contacts' regularization soft, the last parameter of every scene whose step has contact
// rows (not the quasistatic or the implicit step): last, so that the others keep their places
static void tb_softParam(tbModel* m) {
  if (m->opt.quasistatic || m->opt.implicit) return;
  tb_param1(m, "soft", "", "contact regularization (0: rigid contacts)", 0.0, 1e3, 0, TB_F_OPT, 0,
            TB_OPT_SOFT);
}

// body bd carrying a half-space (its local z <= 0); returns the body
static int tb_planeOf(tbModel* m, const tbBodyDef* bd, double mu) {
  int b = tb_addBody(m, bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PLANE;
  gd.mu = mu;
  tb_addGeom(m, &gd);
  return b;
}

// a body at the origin carrying a half-space (its local z <= 0); returns the body
static int tb_planeBody(tbModel* m, const char* name, int type, double mu) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.type = type;
  return tb_planeOf(m, &bd, mu);
}

static int tb_ground(tbModel* m, double mu) {
  return tb_planeBody(m, "ground", TB_BODY_STATIC, mu);
}

static void tb_boxInertia(double mass, const double half[3], double I[3]) {
  double x = 2 * half[0], y = 2 * half[1], z = 2 * half[2];
  I[0] = mass * (y * y + z * z) / 12.0;
  I[1] = mass * (x * x + z * z) / 12.0;
  I[2] = mass * (x * x + y * y) / 12.0;
}

static int tb_box(tbModel* m, const char* name, double mass, const double half[3],
                  const double pos[3], const double quat[4], double mu) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.mass = mass;
  tb_boxInertia(mass, half, bd.inertia);
  memcpy(bd.pos, pos, sizeof(bd.pos));
  if (quat) memcpy(bd.quat, quat, sizeof(bd.quat));
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_BOX;
  memcpy(gd.size, half, sizeof(gd.size));
  gd.mu = mu;
  tb_addGeom(m, &gd);
  return b;
}

// PREFIXstiffness and PREFIXdamping of every object of field (TB_F_GEOM_SOFT: count geoms,
// components 0 and 1; TB_F_JOINT: count joints, TB_JNT_STIFF and TB_JNT_DAMP): Drumwright's
// compliance, 0 (rigid) by default
static void tb_complianceParams(tbModel* m, const char* prefix, const char* what, int field,
                                int count, int stiff, int damp) {
  char name[TB_NAMELEN], doc[80];
  const char* kind[2] = {"stiffness", "damping"};
  // a joint's K and B act on its positional rows and its rotational ones alike
  const char* unit[2][2] = {{"N/m", "N s/m"}, {"N/m|N m/rad", "N s/m|N m s/rad"}};
  for (int k = 0; k < 2; k++) {
    snprintf(name, sizeof(name), "%s%s", prefix, kind[k]);
    snprintf(doc, sizeof(doc), "%s %s (Drumwright; 0 and 0: rigid)", what, kind[k]);
    int p = tb_addParam(m, name, unit[field == TB_F_JOINT][k], doc, 0.0, 1e20, 0);
    for (int i = 0; i < count; i++) tb_paramTarget(m, p, field, i, k ? damp : stiff);
  }
}

// parameters every scene with friction shares: mu, stiffness and damping (all shapes), dt,
// gravity
static void tb_commonParams(tbModel* m, const char* mu_doc) {
  int p = tb_addParam(m, "mu", "", mu_doc, 0.0, 1e3, 0);
  for (int g = 0; g < m->ngeom; g++) tb_paramTarget(m, p, TB_F_GEOM_MU, g, 0);
  tb_complianceParams(m, "", "contact", TB_F_GEOM_SOFT, m->ngeom, 0, 1);
  tb_optionParams(m);
}

// "mass" scales a body's mass and inertia together (the shape stays)
static int tb_massParam(tbModel* m, int p, int b) {
  if (p < 0) p = tb_addParam(m, "mass", "kg", "mass (inertia scales with it)", 0.0, 1e9, 1);
  double mass = m->bdef[b].mass;
  tb_paramTarget(m, p, TB_F_BODY_MASS, b, 0);
  for (int k = 0; k < 3; k++) {
    tb_paramTargetScaled(m, p, TB_F_BODY_INERTIA, b, k, m->bdef[b].inertia[k] / mass);
  }
  return p;
}

static void tb_bodyParams(tbModel* m, int b) {
  tb_massParam(m, -1, b);
  const char* axes[3] = {"x0", "y0", "z0"};
  const char* vaxes[6] = {"vx0", "vy0", "vz0", "wx0", "wy0", "wz0"};
  for (int k = 0; k < 3; k++) {
    tb_param1(m, axes[k], "m", "initial position", -1e6, 1e6, 0, TB_F_BODY_POS, b, k);
  }
  for (int k = 0; k < 6; k++) {
    tb_param1(m, vaxes[k], k < 3 ? "m/s" : "rad/s", "initial velocity", -1e6, 1e6, 0, TB_F_BODY_VEL,
              b, k);
  }
}

//---- scenes ------------------------------------------------------------------------------------

static void tb_sceneFallingParticle(tbModel* m) {
  tb_ground(m, 0.2);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "particle";
  bd.pos[2] = 3.0;
  bd.force[0] = 5.0;
  // a point in the x-z plane: thesis §7.6.1.1 is 2D
  bd.lock = TB_LOCK_Y | TB_LOCK_RX | TB_LOCK_RY | TB_LOCK_RZ;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.mu = 0.2;
  tb_addGeom(m, &gd);
  m->opt.timestep = 0.05;
  tb_commonParams(m, "friction coefficient");
  tb_bodyParams(m, b);
  tb_param1(m, "fx", "N", "applied horizontal force", -1e6, 1e6, 0, TB_F_BODY_FORCE, b, 0);
}

// thesis §7.6.1.2: independent copies of the falling particle with random starts and their own
// friction coefficients. The ground has mu 0, so each contact takes its particle's mu_i; the
// collision bits keep the particles from touching one another.
static void tb_sceneFallingParticles(tbModel* m, const tbBuild* bo) {
  int n = (int)bo->opt[0];
  uint64_t layout = (uint64_t)bo->opt[1];
  tbBodyDef gb = tb_defaultBodyDef();
  gb.name = "ground";
  gb.type = TB_BODY_STATIC;
  int g = tb_addBody(m, &gb);
  tbGeomDef gg = tb_defaultGeomDef();
  gg.body = g;
  gg.type = TB_GEOM_PLANE;
  gg.mu = 0.0;
  gg.contype = 1;
  gg.conaffinity = 2;
  tb_addGeom(m, &gg);
  m->opt.timestep = 0.05;
  for (int i = 1; i <= n; i++) {
    char name[TB_NAMELEN];
    snprintf(name, sizeof(name), "particle%d", i);
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = name;
    bd.pos[0] = -10.0 + 20.0 * tbu_uniform01(layout, (uint64_t)i, 0);
    bd.pos[2] = 5.0 * tbu_uniform01(layout, (uint64_t)i, 1);
    bd.force[0] = 5.0;
    bd.lock = TB_LOCK_Y | TB_LOCK_RX | TB_LOCK_RY | TB_LOCK_RZ;
    int b = tb_addBody(m, &bd);
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = b;
    gd.mu = 0.5 * (1.0 - tbu_uniform01(layout, (uint64_t)i, 2));
    gd.contype = 2;
    gd.conaffinity = 1;
    int gi = tb_addGeom(m, &gd);
    char pn[TB_NAMELEN];
    snprintf(pn, sizeof(pn), "mu%d", i);
    tb_param1(m, pn, "", "friction coefficient of this particle", 0.0, 1e3, 0, TB_F_GEOM_MU, gi, 0);
    static const char* st[4] = {"x0_", "z0_", "vx0_", "vz0_"};
    static const int fld[4] = {TB_F_BODY_POS, TB_F_BODY_POS, TB_F_BODY_VEL, TB_F_BODY_VEL};
    static const int comp[4] = {0, 2, 0, 2};
    for (int k = 0; k < 4; k++) {
      snprintf(pn, sizeof(pn), "%s%d", st[k], i);
      tb_param1(m, pn, k < 2 ? "m" : "m/s", k < 2 ? "initial position" : "initial velocity", -1e6,
                1e6, 0, fld[k], b, comp[k]);
    }
  }
  tb_complianceParams(m, "", "contact", TB_F_GEOM_SOFT, m->ngeom, 0, 1);
  tb_optionParams(m);
}

// thesis §7.6.2's sliding block on the planar 2.5D model: the tripod box launched across a
// table, observed in x, y and its turn at 100 Hz. Parameters mu (support friction), mass, the
// initial pose and twist, the tripod points and dt.
// a planar 10 x 6 cm, 0.5 kg box on a support tripod (mu 0.33) starting at twist vel, its shape's
// own friction mu (the thesis gives no dimensions; these are stated ones); returns its body
static int tb_tripodBox(tbModel* m, const char* name, const double vel[6], double mu) {
  const double hx = 0.05, hy = 0.03, mass = 0.5;
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.mass = mass;
  bd.inertia[0] = bd.inertia[1] = 1.0;  // locked axes
  bd.inertia[2] = mass * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0;
  bd.lock = TB_LOCK_PLANAR;
  memcpy(bd.vel, vel, sizeof(bd.vel));
  int b = tb_addBody(m, &bd);
  const double box[8] = {-hx, -hy, hx, -hy, hx, hy, -hx, hy};
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = 4;
  gd.vert = box;
  gd.mu = mu;
  tb_addGeom(m, &gd);
  tbSupportDef sd = tb_defaultSupportDef();
  sd.body = b;
  sd.mu = 0.33;
  const double pts[3][2] = {{0.04, 0.0}, {-0.035, 0.025}, {-0.035, -0.025}};
  memcpy(sd.point, pts, sizeof(pts));
  tb_addSupport(m, &sd);
  return b;
}

static void tb_sceneTripodBlock(tbModel* m) {
  const double vel[6] = {0.5, 0.1, 0.0, 0.0, 0.0, 2.0};
  int b = tb_tripodBox(m, "block", vel, tb_defaultGeomDef().mu);
  m->opt.timestep = 0.01;
  tb_param1(m, "mu", "", "support friction", 0.0, 1e3, 0, TB_F_SUPPORT, 0, TB_SUP_MU);
  tb_massParam(m, -1, b);
  const char* names[6] = {"x0", "y0", "vx0", "vy0", "w0", ""};
  const int field[5] = {TB_F_BODY_POS, TB_F_BODY_POS, TB_F_BODY_VEL, TB_F_BODY_VEL, TB_F_BODY_VEL};
  const int comp[5] = {0, 1, 0, 1, 5};
  for (int k = 0; k < 5; k++) {
    tb_param1(m, names[k],
              k < 2   ? "m"
              : k < 4 ? "m/s"
                      : "rad/s",
              "initial pose or twist", -1e6, 1e6, 0, field[k], b, comp[k]);
  }
  for (int k = 0; k < 6; k++) {
    char name[16];
    snprintf(name, sizeof(name), "sup_%c%d", k % 2 ? 'y' : 'x', k / 2 + 1);
    tb_param1(m, name, "m", "support point in the block frame", -1.0, 1.0, 0, TB_F_SUPPORT, 0,
              TB_SUP_POINT + k);
  }
  tb_optionParams(m);
}

static void tb_sceneSlidingSphere(tbModel* m) {
  tb_ground(m, 0.2);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "sphere";
  bd.pos[2] = 1.0;
  bd.vel[0] = 2.0;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.size[0] = 1.0;
  gd.mu = 0.2;
  tb_addGeom(m, &gd);
  m->opt.timestep = 1e-3;
  tb_commonParams(m, "friction coefficient");
  tb_bodyParams(m, b);
  tb_param1(m, "frame_angle", "rad", "rotation of the contact tangent frame about the normal",
            -10.0, 10.0, 0, TB_F_OPT, 0, TB_OPT_FRAME_ANGLE);
  tb_param1(m, "facet_angle", "rad", "rotation of the pyramid's first facet direction", -10.0, 10.0,
            0, TB_F_OPT, 0, TB_OPT_FACET_ANGLE);
}

static void tb_sceneInclineBlock(tbModel* m, const tbBuild* bo) {
  double th = bo->opt[0] * TB_PI / 180.0, yaw = bo->opt[1] * TB_PI / 180.0;
  const double ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
  double qt[4], qy[4], q[4];
  tbu_quatAxisAngle(qt, ey, th);
  tbu_quatAxisAngle(qy, ez, yaw);
  tbu_quatMul(q, qt, qy);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "incline";
  bd.type = TB_BODY_STATIC;
  memcpy(bd.quat, q, sizeof(q));
  int g = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = g;
  gd.type = TB_GEOM_PLANE;
  tb_addGeom(m, &gd);
  const double half[3] = {0.1, 0.1, 0.05};
  double n[3], pos[3];
  tbu_rotVec(n, q, ez);
  tbu_scl3(pos, n, half[2]);
  tb_box(m, "block", 1.0, half, pos, q, 0.5);
  m->opt.timestep = 1e-3;
  tb_commonParams(m, "friction coefficient");
  tb_massParam(m, -1, 1);
}

// the straight chain's rigid spin about the vertical through the pivot: each link's twist
// (0, spin r_x, 0; 0, 0, spin) with r_x its center's offset from the pivot (a ball chain's start)
static void tb_spinParam(tbModel* m, const double pivot[3]) {
  int p =
      tb_addParam(m, "spin", "rad/s", "initial rate of the chain about the vertical", -1e3, 1e3, 0);
  for (int b = 0; b < m->nbody; b++) {
    if (m->bdef[b].type != TB_BODY_DYNAMIC) continue;
    tb_paramTargetScaled(m, p, TB_F_BODY_VEL, b, 5, 1.0);
    tb_paramTargetScaled(m, p, TB_F_BODY_VEL, b, 1, m->bdef[b].pos[0] - pivot[0]);
  }
}

static void tb_scenePendulum(tbModel* m, const tbBuild* bo) {
  int links = (int)bo->opt[0], minimal = bo->opt[3] != 0.0, ball = bo->opt[4] != 0.0;
  double L = bo->opt[1], th = bo->opt[2], r = 0.05 * L;
  double dir[3] = {sin(th), 0.0, -cos(th)}, pivot[3] = {0.0, 0.0, links * L + 1.0};
  tb_ground(m, 0.5);
  const double ey[3] = {0, 1, 0};
  double q[4];
  // capsules lie along local z; turn local z onto the hanging direction -dir
  tbu_quatAxisAngle(q, ey, -th);
  int prev = -1;
  for (int i = 0; i < links; i++) {
    char name[16];
    snprintf(name, sizeof(name), "link%d", i);
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = name;
    // slender rod about its center: m L^2 / 12 across, a thin core along
    bd.inertia[0] = bd.inertia[1] = L * L / 12.0;
    bd.inertia[2] = 0.5 * r * r;
    tbu_addscl3(bd.pos, pivot, dir, (i + 0.5) * L);
    memcpy(bd.quat, q, sizeof(q));
    int b = tb_addBody(m, &bd);
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = b;
    gd.type = TB_GEOM_CAPSULE;
    gd.size[0] = r;
    gd.size[1] = 0.5 * L - r;
    gd.mu = 0.5;
    tb_addGeom(m, &gd);
    tbJointDef jd = tb_defaultJointDef();
    jd.type = ball ? TB_JOINT_SPHERICAL : TB_JOINT_REVOLUTE;
    jd.body_a = b;
    jd.body_b = prev;
    jd.minimal = minimal;
    tbu_addscl3(jd.anchor, pivot, dir, i * L);
    memcpy(jd.axis, ey, sizeof(jd.axis));
    tb_addJoint(m, &jd);
    prev = b;
  }
  m->opt.timestep = 1e-3;
  tb_commonParams(m, "friction coefficient");
  if (!minimal) {
    tb_complianceParams(m, "joint_", "joint", TB_F_JOINT, m->njnt, TB_JNT_STIFF, TB_JNT_DAMP);
  }
  int p = -1;
  for (int b = 1; b <= links; b++) p = tb_massParam(m, p, b);
  if (ball) tb_spinParam(m, pivot);
}

// Mylapilli & Jain §3.2, with what the paper leaves open fixed here: 1 kg spheres of radius
// 0.25 m at the ends of massless 1 m links, the first hinged to a pivot 10 m above the floor,
// hinges about -y (so a positive angle swings toward +x), the chain straight at -pi/4 (left of
// the pivot) turning at 1 rad/s toward the wall, a plane 4 m right of the pivot. The model pose
// hangs straight down: the start is the first joint's q0 and qd0, batch parameters like the link
// length (each joint's anchor in its child) and the pivot height (the first joint's anchor).
// Restitution 0.7 is Newton's law on each contact's normal velocity (stage_rows.h), which the
// paper's scheme (no restitution term in its Eq. 20-32) has to add somehow; every pair of spheres
// may touch. On ball joints (not in the paper) the model pose is the start, the straight chain
// at -pi/4 turning rigidly at omega0 about -y and spin about the vertical: each sphere's angular
// velocity, so the joints' relative rates start at 0 (the first one's is the chain's).
static void tb_sceneChainWall(tbModel* m, const tbBuild* bo) {
  int links = (int)bo->opt[0], ball = bo->opt[1] != 0.0;
  const double L = 1.0, r = 0.25, mu = 0.5, e = 0.7, pivot[3] = {0.0, 0.0, 10.0};
  const double ey[3] = {0.0, 1.0, 0.0}, down[3] = {0.0, -1.0, 0.0};
  const double a0 = -0.25 * TB_PI, w0 = 1.0, spin0 = 0.5;
  double dir[3] = {0.0, 0.0, -1.0};  // along the chain from the pivot
  if (ball) {
    dir[0] = sin(a0);
    dir[2] = -cos(a0);
  }
  tb_ground(m, mu);
  tbBodyDef wb = tb_defaultBodyDef();
  wb.name = "wall";
  wb.type = TB_BODY_STATIC;
  wb.pos[0] = 4.0;
  tbu_quatAxisAngle(wb.quat, ey, -0.5 * TB_PI);  // the half-space's normal local z onto -x
  int wall = tb_planeOf(m, &wb, mu);
  int prev = -1;
  for (int i = 0; i < links; i++) {
    char name[24];
    snprintf(name, sizeof(name), "sphere%d", i);
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = name;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4 * r * r;
    tbu_addscl3(bd.pos, pivot, dir, (i + 1) * L);
    if (ball) {
      bd.vel[4] = -w0;
      bd.vel[5] = spin0;
    }
    int b = tb_addBody(m, &bd);
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = b;
    gd.size[0] = r;
    gd.mu = mu;
    tb_addGeom(m, &gd);
    tbJointDef jd = tb_defaultJointDef();
    jd.type = ball ? TB_JOINT_SPHERICAL : TB_JOINT_REVOLUTE;
    jd.minimal = 1;
    jd.body_a = b;
    jd.body_b = prev;
    tbu_addscl3(jd.anchor, pivot, dir, i * L);
    tbu_copy3(jd.axis, down);
    if (i == 0 && !ball) {
      jd.q0 = -0.25 * TB_PI;
      jd.qd0 = 1.0;
    }
    tb_addJoint(m, &jd);
    prev = b;
  }
  for (int g = 0; g < m->ngeom; g++) m->gdef[g].restitution = e;
  // the ball chain whips: at 1 ms the first-order step gains energy in flight (2 of 16 spins in
  // [0.2, 1] rad/s diverged within 20 s), at 0.5 ms every one converges (README: chain-wall)
  m->opt.timestep = ball ? 5e-4 : 1e-3;
  m->opt.restitution_vmin = 0.1;   // slower contacts plastic: links at rest do not chatter
  m->opt.solver = TB_SOLVER_AUTO;  // M&J's solvers stall on sweeps (README: chain-wall)
  tb_commonParams(m, "friction coefficient (floor, wall, spheres)");
  int p = tb_addParam(m, "restitution", "", "Newton restitution coefficient (all contacts)", 0.0,
                      1.0, 0);
  for (int g = 0; g < m->ngeom; g++) tb_paramTarget(m, p, TB_F_GEOM_REST, g, 0);
  p = -1;
  for (int b = 2; b < m->nbody; b++) p = tb_massParam(m, p, b);
  if (ball) {
    int pw = tb_addParam(m, "omega0", "rad/s", "initial rate of the chain about -y", -1e3, 1e3, 0);
    int ps = tb_addParam(m, "spin", "rad/s", "initial rate of the chain about the vertical", -1e3,
                         1e3, 0);
    for (int b = 2; b < m->nbody; b++) {
      tb_paramTargetScaled(m, pw, TB_F_BODY_VEL, b, 4, -1.0);
      tb_paramTarget(m, ps, TB_F_BODY_VEL, b, 5);
    }
  } else {
    tb_param1(m, "angle0", "rad", "initial angle of the straight chain (positive toward the wall)",
              -3.0, 3.0, 0, TB_F_JOINT, 0, TB_JNT_Q0);
    tb_param1(m, "omega0", "rad/s", "initial rate of the first hinge", -1e3, 1e3, 0, TB_F_JOINT, 0,
              TB_JNT_QD0);
  }
  tb_param1(m, "pivot_z", "m", "height of the pivot above the floor", 0.0, 1e3, 1, TB_F_JOINT, 0,
            TB_JNT_ANCHOR + 5);
  tb_param1(m, "wall_x", "m", "distance of the wall right of the pivot", 0.0, 1e3, 1, TB_F_BODY_POS,
            wall, 0);
  p = tb_addParam(m, "length", "m", "length of each link", 0.0, 1e3, 1);
  for (int j = 0; j < m->njnt; j++) {  // the anchor in the child's frame: -L dir
    tb_paramTargetScaled(m, p, TB_F_JOINT, j, TB_JNT_ANCHOR + 2, -dir[2]);
    if (ball) tb_paramTargetScaled(m, p, TB_F_JOINT, j, TB_JNT_ANCHOR, -dir[0]);
  }
  p = tb_addParam(m, "joint_damping", "N m s/rad", "viscous damping of each joint", 0.0, 1e9, 0);
  for (int j = 0; j < m->njnt; j++) tb_paramTarget(m, p, TB_F_JOINT, j, TB_JNT_CDAMP);
}

static void tb_sceneBoxStack(tbModel* m) {
  tb_ground(m, 0.5);
  const double half[3] = {0.1, 0.1, 0.1};
  const char* names[3] = {"box0", "box1", "box2"};
  for (int i = 0; i < 3; i++) {
    double pos[3] = {0.0, 0.0, (2 * i + 1) * half[2]};
    tb_box(m, names[i], 1.0, half, pos, NULL, 0.5);
  }
  m->opt.timestep = 1e-3;
  // PGS crawls on the stack's redundant corners (48 sweeps a step, every scene unconverged at
  // 5e-4); auto's active-set stage solves its resting steps by one factorization
  m->opt.solver = TB_SOLVER_AUTO;
  tb_commonParams(m, "friction coefficient");
  int p = -1;
  for (int b = 1; b <= 3; b++) p = tb_massParam(m, p, b);
}

// the plate of thesis §5.3 with the centrifuge field's angular accelerations (the thesis does
// not give its translational part); every A_i, C_i and omega is a parameter. With
// TB_DRIVER_ROCKING it is the rocking plate of Eq. 5.9 instead (alpha, T, d parameters).
static int tb_plate(tbModel* m, int driver) {
  int b = tb_planeBody(m, "plate", TB_BODY_KINEMATIC, tb_defaultGeomDef().mu);
  tbDriverDef dd = tb_defaultDriverDef();
  dd.body = b;
  if (driver == TB_DRIVER_ROCKING) {
    dd.type = TB_DRIVER_ROCKING;
    dd.amp[TB_DRV_ROCK_ALPHA] = 180.0;
    dd.amp[TB_DRV_ROCK_T] = 0.03;
    dd.amp[TB_DRV_ROCK_D] = 0.05;
  } else {
    dd.type = TB_DRIVER_PLATE;
    dd.amp[3] = 100.0;
    dd.phase[3] = 0.5 * TB_PI;
    dd.amp[4] = 100.0;
    dd.phase[4] = TB_PI;
  }
  tb_addDriver(m, &dd);
  return b;
}

static void tb_plateParams(tbModel* m, int driver) {
  if (driver == TB_DRIVER_ROCKING) {
    tb_param1(m, "alpha", "rad/s^2", "rocking angular acceleration (bang-bang)", -1e6, 1e6, 0,
              TB_F_DRIVER, 0, TB_DRV_AMP + TB_DRV_ROCK_ALPHA);
    tb_param1(m, "T", "s", "rocking period", 0.0, 1e3, 1, TB_F_DRIVER, 0,
              TB_DRV_AMP + TB_DRV_ROCK_T);
    tb_param1(m, "d", "m", "depth of the rocking axis below the plate", 0.0, 1e3, 0, TB_F_DRIVER, 0,
              TB_DRV_AMP + TB_DRV_ROCK_D);
    return;
  }
  for (int i = 0; i < 6; i++) {
    char a[8], c[8];
    snprintf(a, sizeof(a), "A%d", i + 1);
    snprintf(c, sizeof(c), "C%d", i + 1);
    tb_param1(m, a, i < 3 ? "m/s^2" : "rad/s^2",
              i < 3 ? "plate translational acceleration amplitude"
                    : "plate angular acceleration amplitude",
              -1e6, 1e6, 0, TB_F_DRIVER, 0, TB_DRV_AMP + i);
    tb_param1(m, c, "rad", "plate acceleration phase", -1e3, 1e3, 0, TB_F_DRIVER, 0,
              TB_DRV_PHASE + i);
  }
  tb_param1(m, "omega", "rad/s", "plate angular frequency (66 pi: 33 Hz)", 0.0, 1e6, 1, TB_F_DRIVER,
            0, TB_DRV_OMEGA);
}

static void tb_scenePlateParticle(tbModel* m, int driver) {
  tb_plate(m, driver);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "particle";
  bd.pos[0] = 0.04;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  tb_addGeom(m, &gd);
  m->opt.timestep = 1e-4;
  tb_commonParams(m, "friction coefficient (the thesis does not state it)");
  tb_bodyParams(m, b);
  tb_plateParams(m, driver);
}

static void tb_scenePlateBlock(tbModel* m, int driver) {
  tb_plate(m, driver);
  const double half[3] = {0.01, 0.01, 0.005};
  const double pos[3] = {0.04, 0.0, 0.005};
  int b = tb_box(m, "block", 0.01, half, pos, NULL, 0.5);
  m->opt.timestep = 1e-4;
  // PGS stalls near 4e-6 on the block's four coplanar corners (every scene unconverged); auto
  // converges the rigid block's steps within 300 iterations but for a varied block's coplanar
  // sticking, which no solver takes below ~7e-7 (README). Regularized (option soft 1e-3), the
  // corners' A is definite: every step of those converges too, in 11x fewer iterations, and the
  // block's path moves by 1 um in its landing and not after (its drift as the rigid block's)
  m->opt.soft = 1e-3;
  m->opt.solver = TB_SOLVER_AUTO;
  m->opt.max_iter = 1000;
  tb_commonParams(m, "friction coefficient (the thesis does not state it)");
  tb_bodyParams(m, b);
  tb_plateParams(m, driver);
}

// the quasistatic step (thesis §3.4), its rounds solved by auto
static void tb_quasistatic(tbModel* m) {
  m->opt.quasistatic = 1;
  m->opt.solver = TB_SOLVER_AUTO;
}

// a static or kinematic half-space across axis a (0: x, 1: y) whose solid side is coordinate
// >= c0 (facing -a, side -1) or <= c0 (facing +a, side +1); returns its body
static int tb_wall(tbModel* m, const char* name, int type, int a, double c0, int side, double mu) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.type = type;
  bd.pos[a] = c0;
  // a quarter turn about y takes the plane's normal z to side * x; about x, to -side * y
  bd.quat[0] = sqrt(0.5);
  if (a == 0) {
    bd.quat[2] = side * sqrt(0.5);
  } else {
    bd.quat[1] = -side * sqrt(0.5);
  }
  return tb_planeOf(m, &bd, mu);
}

// side^3 spheres of radius 5 cm and 0.1 kg on a lattice of pitch 2.2 r, each nudged off it by up
// to 0.14 r (so that the pile does not stand as a column), the lowest 1.2 r above a floor boxed
// in by four walls 8 r apart, mu 0.5, dt 2 ms. The contact capacity is the spheres' bound: an
// equal sphere touches at most 12 others and 3 of the planes (a corner), so 9 contacts a sphere.
// Its contacts outnumber the spheres' DoFs (A singular), where rigid steps stay unsolved at the
// step's 1e-8 (README: Many bodies): they are regularized (option soft 1e-2), and auto with 3000
// iterations solves every step of the default pile, of mu 0.1 to 1 (where PGS cycles on an
// impact step at mu = 1) and of side 2 to 4 (side 4 needs more than 1000)
static void tb_sceneSpherePile(tbModel* m, const tbBuild* b) {
  const double r = 0.05, mass = 0.1, mu = 0.5, half = 4.0 * r, pitch = 2.2 * r;
  int side = (int)b->opt[0], n = side * side * side;
  tb_ground(m, mu);
  const char* walls[4] = {"wall_x0", "wall_x1", "wall_y0", "wall_y1"};
  for (int k = 0; k < 4; k++)
    tb_wall(m, walls[k], TB_BODY_STATIC, k / 2, k % 2 ? half : -half, k % 2 ? -1 : 1, mu);
  int first = m->nbody;
  for (int k = 0; k < n; k++) {
    int i = k / (side * side), j = k / side % side, l = k % side;
    char name[24];
    snprintf(name, sizeof(name), "sphere%d", k);
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = name;
    bd.mass = mass;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4 * mass * r * r;
    bd.pos[0] = pitch * (i - 0.5 * (side - 1)) + 0.14 * r * sin(1.0 + k);
    bd.pos[1] = pitch * (j - 0.5 * (side - 1)) + 0.14 * r * cos(2.0 + k);
    bd.pos[2] = 1.2 * r + 2.4 * r * l;
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = tb_addBody(m, &bd);
    gd.size[0] = r;
    gd.mu = mu;
    tb_addGeom(m, &gd);
  }
  m->opt.timestep = 2e-3;
  m->opt.maxcon = 9 * n;
  m->opt.soft = 1e-2;
  m->opt.solver = TB_SOLVER_AUTO;
  m->opt.max_iter = 3000;
  tb_commonParams(m, "friction coefficient");
  int p = -1;
  for (int k = 0; k < n; k++) p = tb_massParam(m, p, first + k);
}

// thesis §3.4.6 (Figs. 3.4-3.5): a particle on the floor between a wall at x = 1 and a fence
// x = 0.5 + 0.4 sin t, y = t, quasistatic. The thesis gives no mass, mu or h; here 1 kg, mu 0.5
// on every surface and h = 0.01 s (629 steps: one period). The particle is a point whose
// rotations are locked (G = I of the thesis's q = [x, y, z]).
static void tb_sceneQsFence(tbModel* m) {
  tb_quasistatic(m);
  tb_ground(m, 0.5);
  tb_wall(m, "wall", TB_BODY_STATIC, 0, 1.0, -1, 0.5);
  int f = tb_wall(m, "fence", TB_BODY_KINEMATIC, 0, 0.5, 1, 0.5);
  tbDriverDef dd = tb_defaultDriverDef();
  dd.body = f;
  dd.type = TB_DRIVER_PLATE;
  dd.omega = 1.0;
  dd.amp[0] = -0.4;  // x = x0 - A / omega^2 sin(omega t)
  dd.vel[1] = 1.0;
  tb_addDriver(m, &dd);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "particle";
  bd.pos[0] = 0.7;
  bd.lock = TB_LOCK_RX | TB_LOCK_RY | TB_LOCK_RZ;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  tb_addGeom(m, &gd);
  m->opt.timestep = 0.01;
  tb_commonParams(m, "friction coefficient of the floor, wall and fence");
  tb_massParam(m, -1, b);
  tb_param1(m, "x0", "m", "initial position", -1e6, 1e6, 0, TB_F_BODY_POS, b, 0);
  tb_param1(m, "y0", "m", "initial position", -1e6, 1e6, 0, TB_F_BODY_POS, b, 1);
  tb_param1(m, "vx0", "m/s", "velocity the first step starts from (its initial guess)", -1e6, 1e6,
            0, TB_F_BODY_VEL, b, 0);
  tb_param1(m, "vy0", "m/s", "velocity the first step starts from (its initial guess)", -1e6, 1e6,
            0, TB_F_BODY_VEL, b, 1);
  tb_param1(m, "fence_x0", "m", "fence's mean position", -1e6, 1e6, 0, TB_F_BODY_POS, f, 0);
  int p = tb_addParam(m, "fence_amp", "m", "fence's swing amplitude (at 1 rad/s)", -1e6, 1e6, 0);
  tb_paramTargetScaled(m, p, TB_F_DRIVER, 0, TB_DRV_AMP, -1.0);
  tb_param1(m, "fence_vy", "m/s", "fence's speed along itself", -1e6, 1e6, 0, TB_F_DRIVER, 0,
            TB_DRV_VEL + 1);
}

// a pusher tip (a 5 mm disc) moving at constant velocity pushes the tripod box, quasistatic (the
// needle pushing of thesis §4.3.2 at table scale; the thesis gives no sizes: these are stated). The
// tip starts 10 cm behind the part's center at y = offset and moves at (speed, 0); the part's own
// mu is 0, so the tip's mu_pusher acts.
static void tb_sceneQsPush(tbModel* m) {
  tb_quasistatic(m);
  const double rest[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  int b = tb_tripodBox(m, "part", rest, 0.0);
  tbBodyDef pb = tb_defaultBodyDef();
  pb.name = "pusher";
  pb.type = TB_BODY_KINEMATIC;
  pb.pos[0] = -0.1;
  pb.pos[1] = -0.01;
  int p = tb_addBody(m, &pb);
  const double centre[2] = {0.0, 0.0};
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = p;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = 1;
  gd.vert = centre;
  gd.size[0] = 0.005;
  gd.mu = 0.2;
  tb_addGeom(m, &gd);
  tbDriverDef dd = tb_defaultDriverDef();
  dd.body = p;
  dd.type = TB_DRIVER_CONSTVEL;
  dd.vel[0] = 0.02;
  tb_addDriver(m, &dd);
  m->opt.timestep = 0.01;
  tb_param1(m, "mu", "", "support friction", 0.0, 1e3, 0, TB_F_SUPPORT, 0, TB_SUP_MU);
  tb_param1(m, "mu_pusher", "", "friction between the tip and the part", 0.0, 1e3, 0, TB_F_GEOM_MU,
            1, 0);
  tb_massParam(m, -1, b);
  tb_param1(m, "offset", "m", "the tip's path's distance from the part's center line (y)", -1e6,
            1e6, 0, TB_F_BODY_POS, p, 1);
  tb_param1(m, "speed", "m/s", "the tip's speed along x", -1e6, 1e6, 0, TB_F_DRIVER, 0, TB_DRV_VEL);
  tb_param1(m, "speed_y", "m/s", "the tip's speed along y", -1e6, 1e6, 0, TB_F_DRIVER, 0,
            TB_DRV_VEL + 1);
  tb_optionParams(m);
}

static int tb_checkBuild(int i, const tbBuild* b) {
  const tbSceneInfo* si = &tb_scenes[i];
  for (int k = 0; k < si->nopt; k++) {
    const tbSceneOption* o = &si->opt[k];
    double v = b->opt[k];
    if (!(v >= o->lo && v <= o->hi) || (o->integer && v != floor(v))) {
      return tb_setError("param '%s' = %g: must be %sin [%g, %g]", o->name, v,
                         o->integer ? "a whole number " : "", o->lo, o->hi);
    }
  }
  return TB_OK;
}

//---- non-convex corners (thesis §3.2) -----------------------------------------------------------

// a frictionless prism of n vertices (x, y pairs) on body b (a contact takes the larger mu of
// its two shapes: a scene's mu parameter then sets its moving body's)
static void tb_prismOf(tbModel* m, int b, const double* vert, int n) {
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = n;
  gd.vert = vert;
  gd.mu = 0.0;
  tb_addGeom(m, &gd);
}

// a static body at the origin; returns it
static int tb_staticBody(tbModel* m, const char* name) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.type = TB_BODY_STATIC;
  return tb_addBody(m, &bd);
}

// a planar body in the vertical xy plane (gravity along -y) carrying one prism; returns it
static int tb_cornerBody(tbModel* m, const char* name, double mass, double izz, const double* vert,
                         int n, const double pos[2], double vx) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.mass = mass;
  bd.inertia[0] = bd.inertia[1] = 1.0;  // locked axes
  bd.inertia[2] = izz;
  bd.lock = TB_LOCK_PLANAR;
  bd.pos[0] = pos[0];
  bd.pos[1] = pos[1];
  bd.vel[0] = vx;
  int b = tb_addBody(m, &bd);
  tb_prismOf(m, b, vert, n);
  return b;
}

// a corner scene's options: its corners as built, gravity gy along y in the vertical plane
static void tb_cornerOptions(tbModel* m, const tbBuild* bo, double gy) {
  m->opt.corners = (int)bo->opt[0];
  m->opt.gravity[1] = gy;
  m->opt.gravity[2] = 0.0;
}

// Fig. 3.1 (the thesis draws it, without numbers; these are stated ones): ground x <= -0.15 and a
// slab from x = 0.1 whose left wall runs at 45 degrees down to (-0.1, -0.2), both topped at y = 0;
// a 0.6 x 0.1 m, 1 kg block slides at 1 m/s, frictionless, h = 0.01 s. The block always rests on
// one side, so it slides past the hole at constant speed; its lower right corner meets the wall's
// top corner level with it. Parameters x0, vx0, mu (the block's), dt, gravity.
static void tb_sceneCornerHole(tbModel* m, const tbBuild* bo) {
  tb_cornerOptions(m, bo, -9.81);
  m->opt.timestep = 0.01;
  int g = tb_staticBody(m, "ground");
  static const double left[8] = {-1.0, -0.2, -0.15, -0.2, -0.15, 0.0, -1.0, 0.0};
  static const double right[8] = {-0.1, -0.2, 1.0, -0.2, 1.0, 0.0, 0.1, 0.0};
  tb_prismOf(m, g, left, 4);
  tb_prismOf(m, g, right, 4);
  const double hx = 0.3, hy = 0.05, mass = 1.0;
  static const double box[8] = {-0.3, -0.05, 0.3, -0.05, 0.3, 0.05, -0.3, 0.05};
  const double pos[2] = {-0.6, hy};
  int b = tb_cornerBody(m, "block", mass, mass * (4.0 * hx * hx + 4.0 * hy * hy) / 12.0, box, 4,
                        pos, 1.0);
  tb_param1(m, "x0", "m", "initial x of the block's center", -0.7, 0.7, 0, TB_F_BODY_POS, b, 0);
  tb_param1(m, "vx0", "m/s", "initial speed", -1e3, 1e3, 0, TB_F_BODY_VEL, b, 0);
  tb_param1(m, "mu", "", "the block's friction", 0.0, 1e3, 0, TB_F_GEOM_MU, 2, 0);
  tb_optionParams(m);
}

// Fig. 4.8 (no numbers in the thesis; these are stated ones): a static regular 12-gon part of
// circumradius 21 mm (the lock "slightly more than 40 mm in diameter", §4.3.1) with an edge on
// top, and a gripper finger, a 10 x 10 mm triangle of 50 g that cannot turn, its vertex down on
// the top edge's middle, sliding at 0.2 m/s frictionless and pressed on by 200 m/s^2 (the
// gripper's squeeze, as gravity_y), h = 2 ms. Over the corner it drops onto the next edge, which
// falls away at 30 degrees, within a step (it would fly 1.2 ms). Parameters vx0, mu (the
// finger's), dt, gravity.
static void tb_sceneCornerFinger(tbModel* m, const tbBuild* bo) {
  tb_cornerOptions(m, bo, -200.0);
  m->opt.timestep = 0.002;
  int p = tb_staticBody(m, "part");
  double gon[24];
  const double R = 0.021;
  for (int k = 0; k < 12; k++) {  // vertex k at 90 - 15 + 30 k degrees: edge 11 -> 0 on top
    double a = (75.0 + 30.0 * k) * TB_PI / 180.0;
    gon[2 * k] = R * cos(a);
    gon[2 * k + 1] = R * sin(a);
  }
  tb_prismOf(m, p, gon, 12);
  // the triangle about its centroid, the vertex 2/3 of its height below
  static const double tri[6] = {0.0, -0.02 / 3.0, 0.005, 0.01 / 3.0, -0.005, 0.01 / 3.0};
  const double pos[2] = {0.0, R * cos(15.0 * TB_PI / 180.0) + 0.02 / 3.0};
  int b = tb_cornerBody(m, "finger", 0.05, 1.0, tri, 3, pos, 0.2);
  m->bdef[b].lock |= TB_LOCK_RZ;
  tb_param1(m, "vx0", "m/s", "initial speed", -1e3, 1e3, 0, TB_F_BODY_VEL, b, 0);
  tb_param1(m, "mu", "", "the finger's friction", 0.0, 1e3, 0, TB_F_GEOM_MU, 1, 0);
  tb_optionParams(m);
}

//---- geometrically implicit contact (thesis §3.5) -----------------------------------------------

// a static half-plane y <= 0 of the vertical xy plane (a plane whose local z is world y)
static void tb_halfPlaneY(tbModel* m, double mu) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "ground";
  bd.type = TB_BODY_STATIC;
  bd.quat[0] = sqrt(0.5);
  bd.quat[1] = -sqrt(0.5);
  tb_planeOf(m, &bd, mu);
}

// a uniform unit disc (m = 1 kg, I = 0.5 kg m^2, thesis §3.5.3.1 and §3.5.3.3) of the vertical
// plane at (x, y), moving at (vx, w): the exact disc, or (sides >= 3) the regular polygon of that
// many vertices on its circle, one at the bottom; returns the body
static int tb_unitDisc(tbModel* m, double x, double y, double vx, double w, double mu, int sides) {
  double vert[2 * TB_MAXVERT2D] = {0.0, 0.0};
  for (int k = 0; k < sides; k++) {
    double a = -0.5 * TB_PI + 2.0 * TB_PI * k / sides;
    vert[2 * k] = cos(a);
    vert[2 * k + 1] = sin(a);
  }
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "disc";
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = 1.0;  // locked axes
  bd.inertia[2] = 0.5;
  bd.lock = TB_LOCK_PLANAR;
  bd.pos[0] = x;
  bd.pos[1] = y;
  bd.vel[0] = vx;
  bd.vel[5] = w;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = sides ? sides : 1;
  gd.vert = vert;
  gd.size[0] = sides ? 0.0 : 1.0;
  gd.mu = mu;
  tb_addGeom(m, &gd);
  return b;
}

// §3.5.3.1: the unit disc on y = 0 at v = (-3, 0, 3), rolling without slip, mu 0.4, h = 0.01 s.
// implicit=0: the ST step, the ground a 200 m wide box (the ST step has no half-plane in the
// planar model), the disc exact or (sides) the thesis's polygon. Parameters mu (the disc's),
// vx0, w0, dt, gravity.
static void tb_sceneImplicitDisc(tbModel* m, const tbBuild* bo) {
  int sides = (int)bo->opt[1];
  if (sides == 1 || sides == 2) {
    tb_setError("param 'sides' = %d: 0 (the disc) or a polygon's 3 .. 16", sides);
    return;
  }
  m->opt.implicit = (int)bo->opt[0];
  m->opt.timestep = 0.01;
  m->opt.gravity[1] = -9.81;
  m->opt.gravity[2] = 0.0;
  if (m->opt.implicit) {
    tb_halfPlaneY(m, 0.0);
  } else {
    static const double slab[8] = {-100.0, -1.0, 100.0, -1.0, 100.0, 0.0, -100.0, 0.0};
    tb_prismOf(m, tb_staticBody(m, "ground"), slab, 4);
  }
  int b = tb_unitDisc(m, 0.0, 1.0, -3.0, 3.0, 0.4, sides);
  tb_param1(m, "mu", "", "the disc's friction", 0.0, 1e3, 0, TB_F_GEOM_MU, 1, 0);
  tb_param1(m, "vx0", "m/s", "initial speed along x", -1e3, 1e3, 0, TB_F_BODY_VEL, b, 0);
  tb_param1(m, "w0", "rad/s", "initial spin (3: rolling at vx0 = -3)", -1e3, 1e3, 0, TB_F_BODY_VEL,
            b, 5);
  tb_optionParams(m);
}

// §3.5.3.2: fixed spheres of radius 10 at the origin and 9 at (0, 11.4, 0); a unit sphere
// tangent to both at rest, pushed by lambda_app = (1, 2.6, -9.81) N (gravity is in it), mu 0.2,
// e_t = e_o = 1, e_r = 0.3, h = 0.01 s. The thesis gives no mass or inertia: here 1 kg and the
// solid sphere's 0.4 kg m^2. implicit=0: the ST step, without torsion. Parameters mu, torsion
// (implicit), force_x, force_y, force_z, dt, gravity.
static void tb_sceneImplicitSpheres(tbModel* m, const tbBuild* bo) {
  m->opt.implicit = (int)bo->opt[0];
  m->opt.timestep = 0.01;
  memset(m->opt.gravity, 0, sizeof(m->opt.gravity));
  static const double centre[2][3] = {{0.0, 0.0, 0.0}, {0.0, 11.4, 0.0}};
  static const double radius[2] = {10.0, 9.0};
  static const char* name[2] = {"sphere10", "sphere9"};
  tbGeomDef gd = tb_defaultGeomDef();
  gd.type = TB_GEOM_SPHERE;
  gd.mu = 0.0;
  for (int k = 0; k < 2; k++) {
    gd.body = tb_staticBody(m, name[k]);
    memcpy(m->bdef[gd.body].pos, centre[k], sizeof(centre[k]));
    gd.size[0] = radius[k];
    tb_addGeom(m, &gd);
  }
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "ball";
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4;
  bd.pos[1] = 6.62105263157895;
  bd.pos[2] = 8.78417110772903;
  bd.force[0] = 1.0;
  bd.force[1] = 2.6;
  bd.force[2] = -9.81;
  gd.body = tb_addBody(m, &bd);
  gd.size[0] = 1.0;
  gd.mu = 0.2;
  gd.torsion = m->opt.implicit ? 0.3 : 0.0;
  tb_addGeom(m, &gd);
  tb_param1(m, "mu", "", "the ball's friction", 0.0, 1e3, 0, TB_F_GEOM_MU, 2, 0);
  if (m->opt.implicit) {
    tb_param1(m, "torsion", "m", "the ball's torsional lever e_r", 0.0, 1e3, 0, TB_F_GEOM_IMPLICIT,
              2, 0);
  }
  static const char* f[3] = {"force_x", "force_y", "force_z"};
  for (int k = 0; k < 3; k++) {
    tb_param1(m, f[k], "N", "the applied force", -1e6, 1e6, 0, TB_F_BODY_FORCE, gd.body, k);
  }
  tb_optionParams(m);
}

// §3.5.3.3: the unit disc dropped from y = 1.5 onto the half-plane y <= 0, a frictionless
// undamped spring k = 1000 N/m with its rigid core at 0.05 m (the thesis's experiment 1; 1 m:
// experiment 2), h = 1e-4 s. Parameters core, stiffness, damping, y0, dt, gravity.
static void tb_sceneImplicitCompliant(tbModel* m) {
  m->opt.implicit = 1;
  m->opt.timestep = 1e-4;
  m->opt.gravity[1] = -9.81;
  m->opt.gravity[2] = 0.0;
  tb_halfPlaneY(m, 0.0);
  m->gdef[0].stiffness = 1000.0;
  m->gdef[0].core = 0.05;
  int b = tb_unitDisc(m, 0.0, 1.5, 0.0, 0.0, 0.0, 0);
  tb_param1(m, "core", "m", "the half-plane's largest deflection (its rigid core)", 0.0, 1e6, 1,
            TB_F_GEOM_IMPLICIT, 0, 1);
  tb_param1(m, "stiffness", "N/m", "the half-plane's spring", 0.0, 1e12, 0, TB_F_GEOM_SOFT, 0, 0);
  tb_param1(m, "damping", "N s/m", "the half-plane's damper", 0.0, 1e12, 0, TB_F_GEOM_SOFT, 0, 1);
  tb_param1(m, "y0", "m", "the disc's initial height", -1e3, 1e3, 0, TB_F_BODY_POS, b, 1);
  tb_optionParams(m);
}

// §3.5.1.3's shapes: a coin (r = 0.1 m, 2 cm thick, 1 kg) with its axis turned by tilt about x,
// its rim 1 cm above the plane z = 0 (mu 0.5), h = 2 ms. Parameters mu (the coin's), z0 (its
// centre's height), vx0, dt, gravity.
static void tb_sceneImplicitCoin(tbModel* m, const tbBuild* bo) {
  const double r = 0.1, hl = 0.01, tilt = bo->opt[0];
  m->opt.implicit = 1;
  m->opt.timestep = 0.002;
  tb_ground(m, 0.0);
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "coin";
  bd.mass = 1.0;
  bd.inertia[0] = bd.inertia[1] = (3.0 * r * r + 4.0 * hl * hl) / 12.0;
  bd.inertia[2] = 0.5 * r * r;
  bd.pos[2] = r * sin(tilt) + hl * cos(tilt) + 0.01;
  const double x[3] = {1.0, 0.0, 0.0};
  tbu_quatAxisAngle(bd.quat, x, tilt);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = tb_addBody(m, &bd);
  gd.type = TB_GEOM_CYLINDER;
  gd.size[0] = r;
  gd.size[1] = hl;
  tb_addGeom(m, &gd);
  tb_param1(m, "mu", "", "the coin's friction", 0.0, 1e3, 0, TB_F_GEOM_MU, 1, 0);
  tb_param1(m, "z0", "m", "the coin's initial height", -1e3, 1e3, 0, TB_F_BODY_POS, gd.body, 2);
  tb_param1(m, "vx0", "m/s", "initial speed along x", -1e3, 1e3, 0, TB_F_BODY_VEL, gd.body, 0);
  tb_optionParams(m);
}

tbModel* tb_buildScene(int i, const tbBuild* b) {
  tb_clearError();
  if (i < 0 || i >= TB_NSCENE) {
    tb_setError("scene %d does not exist", i);
    return NULL;
  }
  if (tb_checkBuild(i, b) != TB_OK) return NULL;
  tbModel* m = tb_newModel();
  if (!m) return NULL;
  m->opt.cone = b->cone;
  m->opt.facets = b->facets;
  m->opt.facet_align = b->facet_align;
  switch (i) {
    case 0:
      tb_sceneFallingParticle(m);
      break;
    case 1:
      tb_sceneSlidingSphere(m);
      break;
    case 2:
      tb_sceneInclineBlock(m, b);
      break;
    case 3:
      tb_scenePendulum(m, b);
      break;
    case 4:
      tb_sceneBoxStack(m);
      break;
    case 5:
      tb_scenePlateParticle(m, TB_DRIVER_PLATE);
      break;
    case 7:
      tb_sceneFallingParticles(m, b);
      break;
    case 8:
      tb_sceneTripodBlock(m);
      break;
    case 9:
      tb_sceneChainWall(m, b);
      break;
    case 10:
      tb_sceneQsFence(m);
      break;
    case 11:
      tb_sceneQsPush(m);
      break;
    case 12:
      tb_sceneCornerHole(m, b);
      break;
    case 13:
      tb_sceneCornerFinger(m, b);
      break;
    case 14:
      tb_sceneImplicitDisc(m, b);
      break;
    case 15:
      tb_sceneImplicitSpheres(m, b);
      break;
    case 16:
      tb_sceneImplicitCompliant(m);
      break;
    case 17:
      tb_sceneImplicitCoin(m, b);
      break;
    case 18:
      tb_sceneSpherePile(m, b);
      break;
    default:
      tb_scenePlateBlock(m, TB_DRIVER_PLATE);
      break;
  }
  tb_softParam(m);
  if (tb_lastError()[0] || tb_compileModel(m) != TB_OK) {
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

// declared in tumble/plate.h: plate-particle (box 0) or plate-block (box 1) with the plate
// driven by `driver` (TB_DRIVER_PLATE or TB_DRIVER_ROCKING)
tbModel* tb_buildPlateScene(int box, int driver, const tbBuild* b) {
  tb_clearError();
  if (driver != TB_DRIVER_PLATE && driver != TB_DRIVER_ROCKING) {
    tb_setError("plate driver %d: expected plate or rocking", driver);
    return NULL;
  }
  tbModel* m = tb_newModel();
  if (!m) return NULL;
  m->opt.cone = b->cone;
  m->opt.facets = b->facets;
  m->opt.facet_align = b->facet_align;
  if (box) {
    tb_scenePlateBlock(m, driver);
  } else {
    tb_scenePlateParticle(m, driver);
  }
  tb_softParam(m);
  if (tb_lastError()[0] || tb_compileModel(m) != TB_OK) {
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

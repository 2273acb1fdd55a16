// Built-in scenes. Each exposes its physical quantities as named parameters (the batch axis)
// and its shape-changing quantities as structural options. This file holds the table of scenes,
// their lookup and build (tb_buildScene, tb_buildPlateScene) and the building blocks the scenes
// share (scenes_internal.h); the scenes themselves are in scenes_dynamic.c (the dynamic step's)
// and scenes_variants.c (the quasistatic, corner and implicit steps').
#include <math.h>
#include <string.h>

#include <tumble/scenes.h>

#include "jobs/scenes_internal.h"
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
int tb_param1(tbModel* m, const char* name, const char* unit, const char* doc, double lo, double hi,
              int lo_open, int field, int obj, int comp) {
  int p = tb_addParam(m, name, unit, doc, lo, hi, lo_open);
  if (p >= 0) tb_paramTarget(m, p, field, obj, comp);
  return p;
}

// the model options every scene exposes: dt and gravity
void tb_optionParams(tbModel* m) {
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
int tb_planeOf(tbModel* m, const tbBodyDef* bd, double mu) {
  int b = tb_addBody(m, bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PLANE;
  gd.mu = mu;
  tb_addGeom(m, &gd);
  return b;
}

// a body at the origin carrying a half-space (its local z <= 0); returns the body
int tb_planeBody(tbModel* m, const char* name, int type, double mu) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = name;
  bd.type = type;
  return tb_planeOf(m, &bd, mu);
}

int tb_ground(tbModel* m, double mu) {
  return tb_planeBody(m, "ground", TB_BODY_STATIC, mu);
}

static void tb_boxInertia(double mass, const double half[3], double I[3]) {
  double x = 2 * half[0], y = 2 * half[1], z = 2 * half[2];
  I[0] = mass * (y * y + z * z) / 12.0;
  I[1] = mass * (x * x + z * z) / 12.0;
  I[2] = mass * (x * x + y * y) / 12.0;
}

int tb_box(tbModel* m, const char* name, double mass, const double half[3], const double pos[3],
           const double quat[4], double mu) {
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
void tb_complianceParams(tbModel* m, const char* prefix, const char* what, int field, int count,
                         int stiff, int damp) {
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
void tb_commonParams(tbModel* m, const char* mu_doc) {
  int p = tb_addParam(m, "mu", "", mu_doc, 0.0, 1e3, 0);
  for (int g = 0; g < m->ngeom; g++) tb_paramTarget(m, p, TB_F_GEOM_MU, g, 0);
  tb_complianceParams(m, "", "contact", TB_F_GEOM_SOFT, m->ngeom, 0, 1);
  tb_optionParams(m);
}

// "mass" scales a body's mass and inertia together (the shape stays)
int tb_massParam(tbModel* m, int p, int b) {
  if (p < 0) {
    p = tb_addParam(m, "mass", "kg", "mass (inertia scales with it)", TB_MIN_MASS, TB_MAX_MASS, 0);
  }
  double mass = m->bdef[b].mass;
  tb_paramTarget(m, p, TB_F_BODY_MASS, b, 0);
  for (int k = 0; k < 3; k++) {
    tb_paramTargetScaled(m, p, TB_F_BODY_INERTIA, b, k, m->bdef[b].inertia[k] / mass);
  }
  return p;
}

void tb_bodyParams(tbModel* m, int b) {
  tb_massParam(m, -1, b);
  const char* axes[3] = {"x0", "y0", "z0"};
  const char* vaxes[6] = {"vx0", "vy0", "vz0", "wx0", "wy0", "wz0"};
  for (int k = 0; k < 3; k++) {
    tb_param1(m, axes[k], "m", "initial position", -TB_MAX_POS, TB_MAX_POS, 0, TB_F_BODY_POS, b, k);
  }
  for (int k = 0; k < 6; k++) {
    tb_param1(m, vaxes[k], k < 3 ? "m/s" : "rad/s", "initial velocity", -TB_MAX_SPEED, TB_MAX_SPEED,
              0, TB_F_BODY_VEL, b, k);
  }
}

// a planar 10 x 6 cm, 0.5 kg box on a support tripod (mu 0.33) starting at twist vel, its shape's
// own friction mu (the thesis gives no dimensions; these are stated ones); returns its body
int tb_tripodBox(tbModel* m, const char* name, const double vel[6], double mu) {
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

// a static or kinematic half-space across axis a (0: x, 1: y) whose solid side is coordinate
// >= c0 (facing -a, side -1) or <= c0 (facing +a, side +1); returns its body
int tb_wall(tbModel* m, const char* name, int type, int a, double c0, int side, double mu) {
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

// The Brost-Christiansen grasp on the planar 2.5D model: part, gripper, draws, goal and sweep.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp.h>

#include "math/collide_geom.h"
#include "math/collide2d.h"
#include "math/rng.h"
#include "math/tb_math.h"

#include "util/error.h"

// the thesis's teeth (§3.5.3.4): centres at radius 20.75 mm, these angles (rad)
static const double tb_toothAngle[6] = {4.103727, 4.253125, 4.402522, 5.022255, 5.171653, 5.321051};
static const double tb_toothA = 2.3e-3, tb_toothB = 1.1e-3;  // super-ellipse semi-axes (m)
static const double tb_toothR = 0.87e-3;                     // our rounding radius (m)

// draw indices of one trial
enum { TB_DRAW_MU_SURFACE = 0, TB_DRAW_MU_GRIPPER = 1, TB_DRAW_SPEED = 2, TB_DRAW_TRIPOD = 3 };

static const char* tb_muNames[TB_NMURANGE] = {"low", "medium", "high"};

const char* tb_muRangeName(int r) {
  return r >= 0 && r < TB_NMURANGE ? tb_muNames[r] : "?";
}

int tb_findMuRange(const char* name) {
  for (int r = 0; r < TB_NMURANGE; r++) {
    if (!strcmp(name, tb_muNames[r])) return r;
  }
  return -1;
}

void tb_muRange(int r, double lohi[2]) {
  lohi[0] = 0.33 * r;
  lohi[1] = 0.33 * (r + 1);
}

tbGraspDef tb_defaultGraspDef(void) {
  tbGraspDef g;
  memset(&g, 0, sizeof(g));
  g.part = TB_PART_GEAR;
  g.device = tb_getDevice();
  g.precision = tb_getPrecision();
  g.part_mass = 0.02;
  g.radius = 20.75e-3;
  tb_muRange(TB_MU_MEDIUM, g.mu_surface);
  tb_muRange(TB_MU_HIGH, g.mu_gripper);
  g.speed = 0.02;
  g.speed_jitter = 0.1;
  g.force = 5.0;
  g.open_width = 0.05;
  g.finger_width = 0.01;
  g.finger_length = 0.04;
  g.finger_mass = 0.05;
  g.tripod_radius = 0.012;
  g.tripod_jitter = 0.004;
  g.settle = 0.3;
  // a trial is over once it rests: the fingers stalled on a held part, or closed on nothing.
  // On the default study the trials rest after 792 of their 1689 steps on average (7 of 13,230
  // never do), and holding them changes no outcome: the parts' final poses move by at most
  // 5e-8 m and 3.2e-5 rad, the map is bitwise the same
  g.rest_speed = 1e-5;
  g.rest_time = 0.05;
  g.tol = 0.5e-3;
  g.dt = 1e-3;
  g.cone = TB_CONE_EXACT;
  g.facets = 8;
  g.solver = TB_SOLVER_AUTO;
  // a budget, not a cost: nearly every step ends in a few iterations, and the jammed ones
  // (redundant contacts, a warm start from before the contacts changed) up to 1910 (trial 2 of
  // the default study's cell 54, step 685: PGS alone takes 2165 sweeps there)
  g.max_iter = 3000;
  g.solver_tol = 1e-6;
  g.sor = 1.0;
  return g;
}

static int tb_positive(double v) {
  return v > 0.0 && isfinite(v);
}

int tb_checkGraspDef(const tbGraspDef* g) {
  if (g->part != TB_PART_GEAR && g->part != TB_PART_DISC) {
    return tb_setError("grasp: part %d is not a tbtPart", g->part);
  }
  const struct {
    const char* name;
    double v;
  } pos[] = {{"part_mass", g->part_mass},
             {"radius", g->radius},
             {"speed", g->speed},
             {"force", g->force},
             {"open_width", g->open_width},
             {"finger_width", g->finger_width},
             {"finger_length", g->finger_length},
             {"finger_mass", g->finger_mass},
             {"tripod_radius", g->tripod_radius},
             {"tol", g->tol},
             {"dt", g->dt}};
  for (size_t i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
    if (!tb_positive(pos[i].v)) {
      return tb_setError("grasp: %s = %g must be finite and > 0", pos[i].name, pos[i].v);
    }
  }
  const double* mus[2] = {g->mu_surface, g->mu_gripper};
  for (int k = 0; k < 2; k++) {
    if (!(mus[k][0] >= 0.0 && mus[k][0] <= mus[k][1]) || !isfinite(mus[k][1])) {
      return tb_setError("grasp: %s friction range (%g, %g] must satisfy 0 <= lo <= hi < inf",
                         k ? "gripper" : "surface", mus[k][0], mus[k][1]);
    }
  }
  if (!(g->speed_jitter >= 0.0 && g->speed_jitter < 1.0)) {
    return tb_setError("grasp: speed_jitter %g must be in [0, 1)", g->speed_jitter);
  }
  // the jittered tripod must keep the centre of mass strictly inside (inradius = R/2)
  if (!(g->tripod_jitter >= 0.0 && g->tripod_jitter < 0.5 * g->tripod_radius)) {
    return tb_setError("grasp: tripod_jitter %g must be in [0, tripod_radius / 2 = %g)",
                       g->tripod_jitter, 0.5 * g->tripod_radius);
  }
  if (!(g->settle >= 0.0) || !isfinite(g->settle)) {
    return tb_setError("grasp: settle %g must be finite and >= 0", g->settle);
  }
  if (!(g->rest_speed >= 0.0) || !isfinite(g->rest_speed)) {
    return tb_setError("grasp: rest_speed %g must be finite and >= 0 (m/s)", g->rest_speed);
  }
  if (!(g->rest_time >= 0.0) || !isfinite(g->rest_time)) {
    return tb_setError("grasp: rest_time %g must be finite and >= 0 (s)", g->rest_time);
  }
  if (g->open_width <= 2.0 * (g->radius + tb_toothA)) {
    return tb_setError("grasp: open_width %g must clear the part (> %g)", g->open_width,
                       2.0 * (g->radius + tb_toothA));
  }
  return TB_OK;
}

//---- model -------------------------------------------------------------------------------------

// a tooth's rounded-rectangle core, counter-clockwise, in its own frame (x radial)
static void tb_toothCore(double v[8]) {
  double cx = tb_toothA - tb_toothR, cy = tb_toothB - tb_toothR;
  const double s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (int i = 0; i < 4; i++) {
    v[2 * i] = s[i][0] * cx;
    v[2 * i + 1] = s[i][1] * cy;
  }
}

// the collision bits: the part meets the fingers, the fingers meet the part and each other
enum { TB_BIT_PART = 1, TB_BIT_FINGER = 2 };

static int tb_addPart(tbModel* m, const tbGraspDef* g) {
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "part";
  bd.mass = g->part_mass;
  // a disc's inertia about z (the teeth add 0.3%); x and y are locked
  bd.inertia[2] = 0.5 * g->part_mass * g->radius * g->radius;
  bd.inertia[0] = bd.inertia[1] = 0.5 * bd.inertia[2];
  bd.lock = TB_LOCK_PLANAR;
  int b = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.mu = 0.0;  // a contact takes the larger mu: the gripper's
  gd.contype = TB_BIT_PART;
  gd.conaffinity = TB_BIT_FINGER;
  const double centre[2] = {0.0, 0.0};
  gd.nvert = 1;
  gd.vert = centre;
  gd.size[0] = g->radius;
  if (b < 0 || tb_addGeom(m, &gd) < 0) return -1;
  if (g->part != TB_PART_GEAR) return b;
  double core[8];
  tb_toothCore(core);
  gd.nvert = 4;
  gd.vert = core;
  gd.size[0] = tb_toothR;
  for (int i = 0; i < 6; i++) {
    double th = tb_toothAngle[i];
    gd.pos[0] = g->radius * cos(th);
    gd.pos[1] = g->radius * sin(th);
    gd.quat[0] = cos(0.5 * th);
    gd.quat[1] = gd.quat[2] = 0.0;
    gd.quat[3] = sin(0.5 * th);
    if (tb_addGeom(m, &gd) < 0) return -1;
  }
  return b;
}

// finger side = +1 (right) or -1 (left): a box below its fingertip at (side open/2, 0), on a
// prismatic joint that closes it towards x = 0 under a force-limited velocity servo
static int tb_addFinger(tbModel* m, const tbGraspDef* g, int side) {
  double hw = 0.5 * g->finger_width, hl = 0.5 * g->finger_length;
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = side > 0 ? "right" : "left";
  bd.mass = g->finger_mass;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = g->finger_mass * (hw * hw + hl * hl) / 3.0;
  bd.pos[0] = side * (0.5 * g->open_width + hw);
  bd.pos[1] = -hl;
  bd.lock = TB_LOCK_Y | TB_LOCK_PLANAR | TB_LOCK_RZ;
  int b = tb_addBody(m, &bd);
  if (b < 0) return -1;
  const double box[8] = {-hw, -hl, hw, -hl, hw, hl, -hw, hl};
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = b;
  gd.type = TB_GEOM_PRISM;
  gd.nvert = 4;
  gd.vert = box;
  gd.size[0] = 0.0;  // the thesis's sharp fingertip vertex
  gd.mu = 0.5 * (g->mu_gripper[0] + g->mu_gripper[1]);
  gd.contype = TB_BIT_FINGER;
  gd.conaffinity = TB_BIT_PART | TB_BIT_FINGER;
  if (tb_addGeom(m, &gd) < 0) return -1;
  tbJointDef jd = tb_defaultJointDef();
  jd.type = TB_JOINT_PRISMATIC;
  jd.body_a = b;
  jd.body_b = -1;
  memcpy(jd.anchor, bd.pos, sizeof(jd.anchor));
  jd.axis[0] = -side;
  jd.axis[2] = 0.0;
  jd.servo = 1;
  // force control as a motor's force-speed line: the damping servo f = kd (v* - v) with
  // kd = force / v* closes at v* when free and pushes with the gripper force when stalled.
  // It is one soft equality row (no bound switching), which keeps the jammed grasps
  // well-conditioned for every solver
  jd.kd = g->force / g->speed;
  jd.target_vel = g->speed;
  jd.fmax = INFINITY;
  return tb_addJoint(m, &jd) < 0 ? -1 : b;
}

static int tb_param(tbModel* m, const char* name, const char* unit, const char* doc, double lo,
                    double hi, int field, int object, int comp, double scale) {
  int p = tb_addParam(m, name, unit, doc, lo, hi, 0);
  if (p < 0 || tb_paramTargetScaled(m, p, field, object, comp, scale)) return -1;
  return p;
}

tbModel* tb_buildGraspModel(const tbGraspDef* g) {
  tb_clearError();
  if (tb_checkGraspDef(g)) return NULL;
  tbModel* m = tb_newModel();
  if (!m) return NULL;
  m->opt.timestep = g->dt;
  m->opt.cone = g->cone;
  m->opt.facets = g->facets;
  m->opt.margin = 0.1e-3;
  m->opt.solver = g->solver;
  m->opt.max_iter = g->max_iter;
  m->opt.tol = g->solver_tol;
  m->opt.sor = g->sor;
  m->opt.rest_speed = g->rest_speed;
  m->opt.rest_time = g->rest_time;
  int part = tb_addPart(m, g);
  int right = tb_addFinger(m, g, 1), left = tb_addFinger(m, g, -1);
  tbSupportDef sd = tb_defaultSupportDef();
  sd.body = part;
  sd.mu = 0.5 * (g->mu_surface[0] + g->mu_surface[1]);
  for (int k = 0; k < 3; k++) {
    double a = TB_PI / 2.0 + 2.0 * TB_PI * k / 3.0;
    sd.point[k][0] = g->tripod_radius * cos(a);
    sd.point[k][1] = g->tripod_radius * sin(a);
  }
  int ok = part >= 0 && right >= 0 && left >= 0 && tb_addSupport(m, &sd) >= 0;
  // the part moves, not the gripper: offset = fingertip midpoint - part centre
  const double reach = TB_GRASP_MAX_OFFSET;
  ok = ok && tb_param(m, "offset_x", "m", "fingertip midpoint from the part centre, x", -reach,
                      reach, TB_F_BODY_POS, part, 0, -1.0) >= 0;
  ok = ok && tb_param(m, "offset_y", "m", "fingertip midpoint from the part centre, y", -reach,
                      reach, TB_F_BODY_POS, part, 1, -1.0) >= 0;
  ok = ok && tb_param(m, "surface_mu", "", "support friction", 0, INFINITY, TB_F_SUPPORT, 0,
                      TB_SUP_MU, 1.0) >= 0;
  int pg = ok ? tb_param(m, "gripper_mu", "", "gripper friction", 0, INFINITY, TB_F_GEOM_MU,
                         m->ngeom - 2, 0, 1.0)
              : -1;
  ok = pg >= 0 && tb_paramTarget(m, pg, TB_F_GEOM_MU, m->ngeom - 1, 0) == 0;
  int pv = ok ? tb_param(m, "speed", "m/s", "closing speed of each finger", 0, INFINITY, TB_F_JOINT,
                         0, TB_JNT_TVEL, 1.0)
              : -1;
  ok = pv >= 0 && tb_paramTarget(m, pv, TB_F_JOINT, 1, TB_JNT_TVEL) == 0;
  int pd = ok ? tb_param(m, "damping", "N s/m", "finger servo gain: force / speed", 0, INFINITY,
                         TB_F_JOINT, 0, TB_JNT_KD, 1.0)
              : -1;
  ok = pd >= 0 && tb_paramTarget(m, pd, TB_F_JOINT, 1, TB_JNT_KD) == 0;
  for (int k = 0; ok && k < 6; k++) {
    char name[16];
    snprintf(name, sizeof(name), "sup_%c%d", k % 2 ? 'y' : 'x', k / 2 + 1);
    ok = tb_param(m, name, "m", "support point in the part frame", -1, 1, TB_F_SUPPORT, 0,
                  TB_SUP_POINT + k, 1.0) >= 0;
  }
  if (!ok || tb_compileModel(m) != TB_OK) {
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

int tb_graspSteps(const tbGraspDef* g) {
  double close = 0.5 * g->open_width / (g->speed * (1.0 - g->speed_jitter));
  // held to what an int holds: a dt that small is below the scene's shortest step (tb_minStep)
  // and its study past the cost check
  double n = ceil((close + g->settle) / g->dt);
  return n < 1e9 ? (int)n : (int)1e9;
}

void tb_graspDraw(const tbModel* m, const tbGraspDef* g, uint64_t seed, int cell, int trial,
                  const double offset[2], double* row) {
  uint64_t key = tb_sweepKey(cell, trial);
  for (int p = 0; p < m->nparam; p++) row[p] = m->param[p].value;
  // (lo, hi]: 1 - u with u in [0, 1) never hits lo
  double us = 1.0 - tbu_uniform01(seed, key, TB_DRAW_MU_SURFACE);
  double ug = 1.0 - tbu_uniform01(seed, key, TB_DRAW_MU_GRIPPER);
  double uv = tbu_uniform01(seed, key, TB_DRAW_SPEED);
  row[tb_findParam(m, "offset_x")] = offset[0];
  row[tb_findParam(m, "offset_y")] = offset[1];
  row[tb_findParam(m, "surface_mu")] =
      g->mu_surface[0] + us * (g->mu_surface[1] - g->mu_surface[0]);
  row[tb_findParam(m, "gripper_mu")] =
      g->mu_gripper[0] + ug * (g->mu_gripper[1] - g->mu_gripper[0]);
  double speed = g->speed * (1.0 + g->speed_jitter * (2.0 * uv - 1.0));
  row[tb_findParam(m, "speed")] = speed;
  row[tb_findParam(m, "damping")] = g->force / speed;
  int p0 = tb_findParam(m, "sup_x1");
  for (int k = 0; k < 3; k++) {
    // uniform in the disc of radius tripod_jitter around the nominal point
    double r = g->tripod_jitter * sqrt(tbu_uniform01(seed, key, TB_DRAW_TRIPOD + 2 * k));
    double a = 2.0 * TB_PI * tbu_uniform01(seed, key, TB_DRAW_TRIPOD + 2 * k + 1);
    double nominal = TB_PI / 2.0 + 2.0 * TB_PI * k / 3.0;
    row[p0 + 2 * k] = g->tripod_radius * cos(nominal) + r * cos(a);
    row[p0 + 2 * k + 1] = g->tripod_radius * sin(nominal) + r * sin(a);
  }
}

//---- goal --------------------------------------------------------------------------------------

// world point p in the frame of body b of scene s (planar: position and yaw)
static void tb_toBodyFrame(const tbModel* m, const tbData* d, int s, int b, const double p[2],
                           double out[2]) {
  const double* pos = d->body_pos + ((size_t)s * m->nbody + b) * 3;
  const double* q = d->body_quat + ((size_t)s * m->nbody + b) * 4;
  double w[3] = {p[0] - pos[0], p[1] - pos[1], 0.0}, l[3];
  tbu_rotVecInv(l, q, w);
  out[0] = l[0];
  out[1] = l[1];
}

// gap (m) between two rounded convex shapes (world): the smallest over the contacts, INFINITY
// if they are more than 1 m apart
static double tb_shapeGap(const double* va, int na, double ra, const double* vb, int nb,
                          double rb) {
  tbContact2 out[2];
  int n = tbg2_collide(va, na, ra, vb, nb, rb, 1.0, out);
  double gap = INFINITY;
  for (int i = 0; i < n; i++) {
    double d[2] = {out[i].pa[0] - out[i].pb[0], out[i].pa[1] - out[i].pb[1]};
    gap = fmin(gap, d[0] * out[i].n[0] + d[1] * out[i].n[1]);
  }
  return gap;
}

// gap (m) between tooth i and the box (part frame, counter-clockwise), and the tangential
// coordinate of the point tip from the tooth's centre, counter-clockwise about the part
static double tb_toothGap(const tbGraspDef* g, int i, const double box[8], const double tip[2],
                          double* tangential) {
  double th = tb_toothAngle[i], c = cos(th), s = sin(th), core[8], world[8];
  const double centre[2] = {g->radius * c, g->radius * s};
  tb_toothCore(core);
  tbg2_transform(core, 4, c, s, centre, world);
  *tangential = -(tip[0] - centre[0]) * s + (tip[1] - centre[1]) * c;
  return tb_shapeGap(box, 4, 0.0, world, 4, tb_toothR);
}

// the fingertip (inner top corner) of finger body b on side +-1, world
static void tb_fingertip(const tbModel* m, const tbGraspDef* g, const tbData* d, int s, int b,
                         int side, double tip[2]) {
  const double* pos = d->body_pos + ((size_t)s * m->nbody + b) * 3;
  tip[0] = pos[0] - side * 0.5 * g->finger_width;
  tip[1] = pos[1] + 0.5 * g->finger_length;
}

// the finger's box in the world, counter-clockwise
static void tb_fingerBox(const tbModel* m, const tbGraspDef* g, const tbData* d, int s, int b,
                         double box[8]) {
  const double* pos = d->body_pos + ((size_t)s * m->nbody + b) * 3;
  double hw = 0.5 * g->finger_width, hl = 0.5 * g->finger_length;
  const double c[8] = {-hw, -hl, hw, -hl, hw, hl, -hw, hl};
  for (int i = 0; i < 4; i++) {
    box[2 * i] = pos[0] + c[2 * i];
    box[2 * i + 1] = pos[1] + c[2 * i + 1];
  }
}

int tb_graspSuccess(const tbModel* m, const tbGraspDef* g, const tbData* d, int s) {
  int part = tb_findBody(m, "part");
  int fingers[2] = {tb_findBody(m, "right"), tb_findBody(m, "left")};
  const double* centre = d->body_pos + ((size_t)s * m->nbody + part) * 3;
  double tips[2][2];
  for (int k = 0; k < 2; k++) {
    int side = k ? -1 : 1;
    double box[8];
    tb_fingertip(m, g, d, s, fingers[k], side, tips[k]);
    tb_fingerBox(m, g, d, s, fingers[k], box);
    if (g->part == TB_PART_GEAR) {
      // the right finger against the counter-clockwise (outer) edge of tooth 6, the left one
      // against the clockwise edge of tooth 1, the fingertips beside the teeth
      double local[8], tip[2], tang;
      for (int v = 0; v < 4; v++) tb_toBodyFrame(m, d, s, part, box + 2 * v, local + 2 * v);
      tb_toBodyFrame(m, d, s, part, tips[k], tip);
      double gap = tb_toothGap(g, k ? 0 : 5, local, tip, &tang);
      if (!(gap <= g->tol) || side * tang <= 0.0) return 0;
    } else {
      // held: each finger within tol of the disc, on its own side of the centre
      double gap = tb_shapeGap(centre, 1, g->radius, box, 4, 0.0);
      if (!(gap <= g->tol) || !(side * (tips[k][0] - centre[0]) > 0.0)) return 0;
    }
  }
  // the fingers closed on the part, not on each other beneath it
  return tips[0][0] - tips[1][0] > g->tol;
}

//---- outline -----------------------------------------------------------------------------------

static int tb_arcPoints(double cx, double cy, double r, double a0, double a1, int n, double* xy) {
  for (int i = 0; i < n; i++) {
    double a = a0 + (a1 - a0) * i / (n - 1);
    xy[2 * i] = cx + r * cos(a);
    xy[2 * i + 1] = cy + r * sin(a);
  }
  return n;
}

int tb_graspOutline(const tbGraspDef* g, int maxpoly, int* poly_n, double* xy, int maxxy) {
  const int ncirc = 96, ncorner = 8;
  int np = 0, used = 0;
  if (maxpoly < 1 || maxxy < ncirc) return 0;
  poly_n[np++] = tb_arcPoints(0, 0, g->radius, 0, 2 * TB_PI, ncirc, xy);
  used += ncirc;
  if (g->part != TB_PART_GEAR) return np;
  double core[8];
  tb_toothCore(core);
  for (int i = 0; i < 6 && np < maxpoly && used + 4 * ncorner <= maxxy; i++) {
    double th = tb_toothAngle[i], c = cos(th), s = sin(th), n = 0;
    double* out = xy + 2 * used;
    for (int v = 0; v < 4; v++) {
      // each core corner's quarter arc (corner v faces the angles pi + v pi/2 .. +pi/2),
      // turned into the part frame
      double a0 = TB_PI * (v + 2) / 2.0, local[2 * 8];
      int k =
          tb_arcPoints(core[2 * v], core[2 * v + 1], tb_toothR, a0, a0 + TB_PI / 2, ncorner, local);
      const double centre[2] = {g->radius * c, g->radius * s};
      tbg2_transform(local, k, c, s, centre, out + 2 * (int)n);
      n += k;
    }
    poly_n[np++] = (int)n;
    used += (int)n;
  }
  return np;
}

double tb_graspToothError(void) {
  // the farthest a point of either boundary lies from the other, over dense samples of the
  // super-ellipse's quarter (the shapes share both symmetry axes)
  const int n = 4000;
  double cx = tb_toothA - tb_toothR, cy = tb_toothB - tb_toothR, worst = 0.0;
  double* se = malloc(sizeof(double) * 2 * (n + 1));
  if (!se) return NAN;
  for (int i = 0; i <= n; i++) {
    double t = 0.5 * TB_PI * i / n;
    se[2 * i] = tb_toothA * sqrt(cos(t));
    se[2 * i + 1] = tb_toothB * sqrt(sin(t));
    // signed distance of the super-ellipse point to the rounded rectangle
    double qx = fabs(se[2 * i]) - cx, qy = fabs(se[2 * i + 1]) - cy;
    double sd = hypot(fmax(qx, 0), fmax(qy, 0)) + fmin(fmax(qx, qy), 0) - tb_toothR;
    worst = fmax(worst, fabs(sd));
  }
  for (int i = 0; i <= n; i++) {
    // rounded-rectangle boundary: the corner arc and the two straight sides
    double p[2];
    int part = 3 * i / (n + 1);
    double u = (3.0 * i / (n + 1)) - part;
    if (part == 0) {
      p[0] = tb_toothA;
      p[1] = cy * u;
    } else if (part == 1) {
      p[0] = cx + tb_toothR * cos(0.5 * TB_PI * u);
      p[1] = cy + tb_toothR * sin(0.5 * TB_PI * u);
    } else {
      p[0] = cx * (1.0 - u);
      p[1] = tb_toothB;
    }
    double best = INFINITY;
    for (int j = 0; j <= n; j++) best = fmin(best, hypot(p[0] - se[2 * j], p[1] - se[2 * j + 1]));
    worst = fmax(worst, best);
  }
  free(se);
  return worst;
}

//---- sweep -------------------------------------------------------------------------------------

void tb_graspDrawTrial(const tbModel* m, const tbGraspDef* g, const tbSweepGrid* grid,
                       uint64_t seed, int cell, int trial, double* row) {
  double off[2];
  tb_sweepOffset(grid, cell, off);
  tb_graspDraw(m, g, seed, cell, trial, off, row);
}

void tb_graspTrialHeader(FILE* f, const tbModel* m) {
  tb_sceneSummaryHeader(f, m);
  fputs(",cell,trial,success,part_x,part_y,part_yaw\n", f);
}

void tb_graspTrialRow(FILE* f, const tbModel* m, const tbData* d, int i, long id, int trials,
                      int success) {
  tb_sceneSummaryRow(f, m, d, i, id, 1);
  int part = tb_findBody(m, "part");
  const double* p = d->body_pos + ((size_t)i * m->nbody + part) * 3;
  const double* q = d->body_quat + ((size_t)i * m->nbody + part) * 4;
  fprintf(f, ",%ld,%ld,%d,%.17g,%.17g,%.17g\n", id / trials, id % trials, success, p[0], p[1],
          2.0 * atan2(q[3], q[0]));
}

int tb_graspSweep(const tbGraspDef* g, const tbSweepGrid* grid, int trials, uint64_t seed,
                  int chunk, tbProgress* progress, FILE* log, tbSweepTally* t, tbGraspRun* run) {
  if (log) {
    tbModel* m = tb_buildGraspModel(g);
    if (!m) return TB_ERR_ARG;
    tb_graspTrialHeader(log, m);
    tb_freeModel(m);
  }
  return tb_graspSweepRange(g, grid, trials, seed, 0, (long)grid->nx * grid->ny * trials, chunk,
                            progress, log, t, run);
}

int tb_graspSweepRange(const tbGraspDef* g, const tbSweepGrid* grid, int trials, uint64_t seed,
                       long begin, long end, int chunk, tbProgress* progress, FILE* log,
                       tbSweepTally* t, tbGraspRun* run) {
  memset(run, 0, sizeof(*run));
  long total = (long)grid->nx * grid->ny * trials;
  if (begin < 0 || end > total || begin > end)
    return tb_setError("grasp: trials [%ld, %ld) of %ld", begin, end, total);
  tbModel* m = tb_buildGraspModel(g);
  if (!m) return TB_ERR_ARG;
  if (chunk < 1) chunk = 1;
  if (chunk > end - begin) chunk = end - begin > 0 ? (int)(end - begin) : 1;
  tbData* d = tb_newDataOn(m, chunk, g->device, g->precision);
  if (!d) {
    tb_freeModel(m);
    return tb_setError("grasp: out of memory for %d scenes", chunk);
  }
  int nstep = tb_graspSteps(g), rc = TB_OK;
  double wall0 = omp_get_wtime();
  for (long first = begin; first < end && rc == TB_OK; first += chunk) {
    int ns = (int)(end - first < chunk ? end - first : chunk);
    d->nscene = ns;
    for (int i = 0; i < ns; i++) {
      long id = first + i;
      tb_graspDrawTrial(m, g, grid, seed, (int)(id / trials), (int)(id % trials),
                        d->param + (size_t)i * m->nparam);
    }
    rc = tb_checkParams(m, d);
    if (rc == TB_OK) rc = tb_resetData(m, d);
    if (rc == TB_OK) rc = tb_rollout(m, d, 0, ns, nstep, NULL);
    for (int i = 0; rc == TB_OK && i < ns; i++) {
      long id = first + i;
      int failed = (d->status[i] & TB_SCENE_FAILMASK) != 0;
      int success = !failed && tb_graspSuccess(m, g, d, i);
      tb_tallyAdd(t, (int)(id / trials), failed, success);
      if (log) tb_graspTrialRow(log, m, d, i, id, trials, success);
      run->failed += failed;
      tb_failTallyAdd(&run->fails, d->status[i], d->resid_max[i], id);
      run->unconverged += (d->status[i] & TB_SCENE_UNCONVERGED) != 0;
      run->resid_max = fmax(run->resid_max, d->resid_max[i]);
      run->scene_steps += (double)d->nstep[i];
    }
    run->trials += ns;
    if (progress) tb_progressUpdate(progress, progress->done + ns);
    if (rc == TB_OK && tb_interrupted()) rc = TB_INTERRUPTED;
  }
  run->seconds = omp_get_wtime() - wall0;
  d->nscene = chunk;
  tb_freeData(d);
  tb_freeModel(m);
  return rc;
}

// The built-in scenes of the step's variants in thesis chapter 3: the quasistatic step (§3.4),
// non-convex corners (§3.2) and geometrically implicit contact (§3.5). Their shared building
// blocks are scenes.c's (scenes_internal.h).
#include <math.h>
#include <string.h>

#include <tumble/scenes.h>

#include "jobs/scenes_internal.h"
#include "math/tb_math.h"
#include "util/error.h"

//---- quasistatic (thesis §3.4) ------------------------------------------------------------------

// the quasistatic step (thesis §3.4), its rounds solved by auto
static void tb_quasistatic(tbModel* m) {
  m->opt.quasistatic = 1;
  m->opt.solver = TB_SOLVER_AUTO;
}

// thesis §3.4.6 (Figs. 3.4-3.5): a particle on the floor between a wall at x = 1 and a fence
// x = 0.5 + 0.4 sin t, y = t, quasistatic. The thesis gives no mass, mu or h; here 1 kg, mu 0.5
// on every surface and h = 0.01 s (629 steps: one period). The particle is a point whose
// rotations are locked (G = I of the thesis's q = [x, y, z]).
void tb_sceneQsFence(tbModel* m) {
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
void tb_sceneQsPush(tbModel* m) {
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
void tb_sceneCornerHole(tbModel* m, const tbBuild* bo) {
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
void tb_sceneCornerFinger(tbModel* m, const tbBuild* bo) {
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
void tb_sceneImplicitDisc(tbModel* m, const tbBuild* bo) {
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
void tb_sceneImplicitSpheres(tbModel* m, const tbBuild* bo) {
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
void tb_sceneImplicitCompliant(tbModel* m) {
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
void tb_sceneImplicitCoin(tbModel* m, const tbBuild* bo) {
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

// The built-in scenes of the dynamic (Stewart-Trinkle) step: falling particles, the tripod
// block, spheres, the incline, pendulums and chains, the box stack, the vibrating plate's scenes
// and the sphere pile. Their building blocks are scenes.c's (scenes_internal.h).
#include <math.h>
#include <string.h>

#include <tumble/scenes.h>

#include "jobs/scenes_internal.h"
#include "math/rng.h"
#include "math/tb_math.h"

//---- scenes ------------------------------------------------------------------------------------

void tb_sceneFallingParticle(tbModel* m) {
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
void tb_sceneFallingParticles(tbModel* m, const tbBuild* bo) {
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
void tb_sceneTripodBlock(tbModel* m) {
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

void tb_sceneSlidingSphere(tbModel* m) {
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

void tb_sceneInclineBlock(tbModel* m, const tbBuild* bo) {
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

void tb_scenePendulum(tbModel* m, const tbBuild* bo) {
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
void tb_sceneChainWall(tbModel* m, const tbBuild* bo) {
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

void tb_sceneBoxStack(tbModel* m) {
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

void tb_scenePlateParticle(tbModel* m, int driver) {
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

void tb_scenePlateBlock(tbModel* m, int driver) {
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

// side^3 spheres of radius 5 cm and 0.1 kg on a lattice of pitch 2.2 r, each nudged off it by up
// to 0.14 r (so that the pile does not stand as a column), the lowest 1.2 r above a floor boxed
// in by four walls 8 r apart, mu 0.5, dt 2 ms. The contact capacity is the spheres' bound: an
// equal sphere touches at most 12 others and 3 of the planes (a corner), so 9 contacts a sphere.
// Its contacts outnumber the spheres' DoFs (A singular), where rigid steps stay unsolved at the
// step's 1e-8 (README: Many bodies): they are regularized (option soft 1e-2), and auto with 3000
// iterations solves every step of the default pile, of mu 0.1 to 1 (where PGS cycles on an
// impact step at mu = 1) and of side 2 to 4 (side 4 needs more than 1000)
void tb_sceneSpherePile(tbModel* m, const tbBuild* b) {
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

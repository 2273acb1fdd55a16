// The 3D parallel-jaw grasp study (issue 6): model, per-trial draws, success test and sweep.
//
// Scene (SI units, z up, the gripper's jaw axis along x):
//   ground   static plane z <= 0
//   object   dynamic box, capsule (lying along y) or sphere resting on the ground at (x0, y0)
//            with yaw; its mu is every contact's mu (ground and fingers have mu 0, and a contact
//            uses the larger of its two shapes')
//   carrier  two kinematic bodies, one per jaw, moved by keyframes: descend beside the object,
//            close past the object's faces, wait, lift (smoothstep), hold
//   finger   two dynamic boxes, each on a prismatic joint (axis x) to its carrier with a servo
//            (kp, kd) bounded by fmax = the grip force: the finger follows its carrier until it
//            meets the object, then presses with the bounded force (force closure)
// Why carriers and not one palm with velocity-servoed fingers: joint servo targets are constants
// of a scene (TB_F_JOINT), so a finger servoed to close would already close while the palm
// descends. The carrier's keyframes give each phase its own time, and the servo bound still
// makes the grip force-limited. Joints to kinematic bodies work in this engine: the bilateral
// rows see the carrier's pose at t+h through Phi/h and the servo row its velocity at t+h
// (stage_rows.h), tested in tests/grasp3d_test.cc.
//
// The gripper stays at the origin; the cell's offset (x, y) of the gripper from the object is
// realised by placing the object at (-x, -y) (the table is uniform, so only the relative pose
// matters), and the trial's noise is added to the object's pose.
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp3d.h>

#include "math/collide_geom.h"
#include "math/rng.h"
#include "math/tb_math.h"

#include "util/error.h"

// gripper geometry and timeline (not options: they set the scale of the study, not its question)
static const double kFingerHalf[3] = {0.005, 0.010, 0.020};  // m: 10 mm thick, 20 wide, 40 tall
static const double kFingerMass = 0.05;                      // kg
static const double kBottomGap = 0.003;   // m, finger bottom above the table while grasping
static const double kStartGap = 0.010;    // m, finger bottom above the object's top at the start
static const double kClearance = 0.005;   // m, open jaw beyond the farthest the object can be
static const double kOvershoot = 0.010;   // m, carriers close this far inside the object's faces
static const double kDescendSpeed = 0.2;  // m/s
static const double kSettle = 0.1;        // s, closed and still before the lift
static const double kLiftTime = 0.25;     // s, smoothstep lift
static const int kLiftKeys = 8;           // keyframe segments of the lift
// N/m (N m/rad on the rotational rows): each finger's mount on its carrier. Rigid mounts make a
// held part a closed loop whose step has no exact answer: each joint's drift correction asks its
// finger for its own small motion, the part sticks to both, and the sticking rows' b leaves the
// range of their Delassus block by 3e-7 of |b| (a held step of cell 12, trial 0 of a 5x5 grid),
// so every solver crawls to the 1e-6 tolerance or stalls above it. A finger deflecting 5 um under
// the 5 N grip (rotations: 5 urad per N m, rigid to the study) closes the loop: the default study
// then converges with auto (and kPadStiffness) on all but one of 2420 scenes, where rigid PGS
// left 1966
static const double kMountStiffness = 1e6;
// N/m, each finger contact's normal compliance (a pad: 12 um under the grip on a face's four
// contacts). Rigid, a part slipping between the fingers on a face's four coplanar contacts is a
// jammed problem (its normal impulses undetermined, its friction on the cone's edge) where every
// method may stall: 31 of the default study's trials kept a step above 1e-6 (up to 7e-4, all in
// the lift and hold), 1 with pads
static const double kPadStiffness = 1e5;

tbGrasp3dDef tb_defaultGrasp3dDef(void) {
  tbGrasp3dDef d;
  memset(&d, 0, sizeof(d));
  d.object = TB_G3_BOX;
  d.device = tb_getDevice();
  d.precision = tb_getPrecision();
  d.size[0] = 0.03;
  d.size[1] = 0.05;
  d.size[2] = 0.03;
  d.mass_lo = 0.08;
  d.mass_hi = 0.12;
  d.mu_lo = 0.2;
  d.mu_hi = 0.8;
  d.pos_noise = 0.002;
  d.yaw_noise = 10.0 * TB_PI / 180.0;
  d.force = 5.0;
  d.close_speed = 0.1;
  d.lift = 0.05;
  d.hold = 1.0;
  d.dt = 2e-3;
  d.solver = TB_SOLVER_AUTO;
  // a budget: held steps end in a few iterations, the contact changes of a closing or lifting
  // grip in hundreds, a few jammed ones in thousands (auto's fallbacks)
  d.max_iter = 1000;
  d.tol = 1e-6;
  d.grid.nx = d.grid.ny = 11;
  d.grid.extent_x = d.grid.extent_y = 0.08;
  d.trials = 20;
  d.seed = 0;
  d.progress = 0;
  d.grasp_height = -1.0;
  d.close_time = 0.3;
  d.slip = 0.01;
  return d;
}

// what only a user's gripper and part take
static int tb_checkUserDef(const tbGrasp3dDef* d) {
  if (!d->gripper != !d->part) {
    return tb_setError("%s: a user's gripper grasps a user's part: give both files",
                       d->gripper ? "part" : "gripper");
  }
  if (!d->gripper) return TB_OK;
  if (!(d->grasp_height <= 1.0)) {
    return tb_setError("grasp_height %g m: must be at most 1 (< 0: the part's centre)",
                       d->grasp_height);
  }
  if (d->nctrl < 0 || d->nctrl > TB_G3_MAXACT) {
    return tb_setError("nctrl %d: must be in [0, %d]", d->nctrl, TB_G3_MAXACT);
  }
  for (int a = 0; a < d->nctrl; a++) {
    if (!isfinite(d->ctrl_open[a]) || !isfinite(d->ctrl_close[a])) {
      return tb_setError("ctrl_open/ctrl_close[%d] %g, %g: must be finite", a, d->ctrl_open[a],
                         d->ctrl_close[a]);
    }
  }
  if (!(d->close_time > 0.0 && d->close_time <= 10.0)) {
    return tb_setError("close_time %g s: must be in (0, 10]", d->close_time);
  }
  if (!(d->disturb <= 1e4)) return tb_setError("disturb %g N: must be at most 10000", d->disturb);
  if (!(d->slip > 0.0 && d->slip <= 1.0))
    return tb_setError("slip %g m: must be in (0, 1]", d->slip);
  return TB_OK;
}

static int tb_sizeCount(int object) {
  return object == TB_G3_BOX ? 3 : object == TB_G3_CAPSULE ? 2 : 1;
}

int tb_checkGrasp3dDef(const tbGrasp3dDef* d) {
  tb_clearError();
  if (tb_checkUserDef(d) != TB_OK) return TB_ERR_ARG;
  int file_mass = d->gripper && d->mass_lo == 0.0 && d->mass_hi == 0.0;
  if (d->object < TB_G3_BOX || d->object > TB_G3_SPHERE) {
    return tb_setError("object %d: expected box, capsule or sphere", d->object);
  }
  for (int k = 0; k < tb_sizeCount(d->object); k++) {
    if (!(d->size[k] >= TB_G3_MIN_SIZE && d->size[k] <= 0.2)) {
      return tb_setError("size[%d] %g m: must be in [%g, 0.2]", k, d->size[k], TB_G3_MIN_SIZE);
    }
  }
  if (d->object == TB_G3_CAPSULE && !(d->size[1] >= d->size[0])) {
    return tb_setError("size: capsule length %g m must be >= its diameter %g m", d->size[1],
                       d->size[0]);
  }
  if (!file_mass && !(d->mass_lo >= TB_MIN_MASS && d->mass_lo <= d->mass_hi && d->mass_hi <= 1e3)) {
    return tb_setError("mass %g:%g kg: must satisfy %g <= lo <= hi <= 1000 (tumble.h: TB_MIN_MASS)",
                       d->mass_lo, d->mass_hi, TB_MIN_MASS);
  }
  if (!(d->mu_lo >= 0.0 && d->mu_lo <= d->mu_hi && d->mu_hi <= 1e3)) {
    return tb_setError("mu %g:%g: must satisfy 0 <= lo <= hi <= 1000", d->mu_lo, d->mu_hi);
  }
  if (!(d->pos_noise >= 0.0 && d->pos_noise <= 0.1)) {
    return tb_setError("pos_noise %g m: must be in [0, 0.1]", d->pos_noise);
  }
  if (!(d->yaw_noise >= 0.0 && d->yaw_noise <= TB_PI)) {
    return tb_setError("yaw_noise %g rad: must be in [0, pi]", d->yaw_noise);
  }
  if (!(d->force > 0.0 && d->force <= 1e4)) {
    return tb_setError("force %g N: must be in (0, 10000]", d->force);
  }
  if (!(d->close_speed > 0.0 && d->close_speed <= 10.0)) {
    return tb_setError("close_speed %g m/s: must be in (0, 10]", d->close_speed);
  }
  if (!(d->lift > 0.0 && d->lift <= 1.0))
    return tb_setError("lift %g m: must be in (0, 1]", d->lift);
  if (!(d->hold >= 0.0 && d->hold <= 100.0)) {
    return tb_setError("hold %g s: must be in [0, 100]", d->hold);
  }
  if (!(d->dt > 0.0 && d->dt <= 0.01)) return tb_setError("dt %g s: must be in (0, 0.01]", d->dt);
  if (d->solver < 0 || d->solver >= TB_NSOLVER) {
    return tb_setError("solver %d: expected a tbtSolver", d->solver);
  }
  if (d->max_iter < 1) return tb_setError("max_iter %d: must be >= 1", d->max_iter);
  if (!(d->tol > 0.0)) return tb_setError("tol %g: must be > 0", d->tol);
  if (d->grid.nx < 1 || d->grid.ny < 1 || d->grid.nx > 4096 || d->grid.ny > 4096) {
    return tb_setError("grid %dx%d: each side must be in [1, 4096]", d->grid.nx, d->grid.ny);
  }
  if (!(d->grid.extent_x >= 0.0 && d->grid.extent_x <= 1.0 && d->grid.extent_y >= 0.0 &&
        d->grid.extent_y <= 1.0)) {
    return tb_setError("extent %g x %g m: must be in [0, 1]", d->grid.extent_x, d->grid.extent_y);
  }
  if (d->trials < 1) return tb_setError("trials %d: must be >= 1", d->trials);
  if (d->ncand < 0 || d->ncand > TB_G3_MAXCAND || (d->ncand > 0 && !d->cand)) {
    return tb_setError("ncand %d: must be in [0, %d] with its poses", d->ncand, TB_G3_MAXCAND);
  }
  for (int k = 0; k < 3 * d->ncand; k++) {
    double bound = k % 3 == 2 ? 2.0 * TB_PI : 1.0;
    if (!(fabs(d->cand[k]) <= bound)) {
      return tb_setError("candidate %d: %s %g must be in [-%g, %g] (%s)", k / 3 + 1,
                         k % 3 == 0   ? "x"
                         : k % 3 == 1 ? "y"
                                      : "yaw",
                         d->cand[k], bound, bound, k % 3 == 2 ? "rad" : "m");
    }
  }
  if ((double)tb_grasp3dCells(d) * d->trials > 2147483647.0) {
    return tb_setError("%d cells x %d trials: more than 2^31 scenes", tb_grasp3dCells(d),
                       d->trials);
  }
  return TB_OK;
}

//---- model -------------------------------------------------------------------------------------

// object geometry: half extent along x at yaw 0, circumscribed footprint radius, resting height
static void tb_objectExtent(const tbGrasp3dDef* d, double* half_x, double* radius, double* z) {
  const double* s = d->size;
  if (d->object == TB_G3_BOX) {
    *half_x = 0.5 * s[0];
    *radius = 0.5 * sqrt(s[0] * s[0] + s[1] * s[1]);
    *z = 0.5 * s[2];
  } else if (d->object == TB_G3_CAPSULE) {
    *half_x = 0.5 * s[0];
    *radius = 0.5 * s[1];
    *z = 0.5 * s[0];
  } else {
    *half_x = *radius = *z = 0.5 * s[0];
  }
}

// principal inertia of the object per kg, in its body frame
static void tb_objectInertia(const tbGrasp3dDef* d, double I[3]) {
  const double* s = d->size;
  if (d->object == TB_G3_BOX) {
    I[0] = (s[1] * s[1] + s[2] * s[2]) / 12.0;
    I[1] = (s[0] * s[0] + s[2] * s[2]) / 12.0;
    I[2] = (s[0] * s[0] + s[1] * s[1]) / 12.0;
  } else if (d->object == TB_G3_SPHERE) {
    I[0] = I[1] = I[2] = 0.4 * 0.25 * s[0] * s[0];
  } else {
    // solid capsule along y: a cylinder (half-length a) and two hemispheres, uniform density
    double r = 0.5 * s[0], a = 0.5 * s[1] - r;
    double vc = TB_PI * r * r * 2.0 * a, vs = 4.0 / 3.0 * TB_PI * r * r * r;
    double mc = vc / (vc + vs), ms = vs / (vc + vs);
    double axial = mc * 0.5 * r * r + ms * 0.4 * r * r;
    double perp = mc * (0.25 * r * r + a * a / 3.0) + ms * (0.4 * r * r + a * a + 0.75 * a * r);
    I[0] = I[2] = perp;
    I[1] = axial;
  }
}

static double tb_smoothstep(double s) {
  return s * s * (3.0 - 2.0 * s);
}

// the carrier of jaw side (-1: finger at -x, +1: at +x): its keyframes and the timeline
static void tb_carrierKeys(const tbGrasp3dDef* d, double sign, double half_x, double radius,
                           double z_top, tbDriverDef* dd, tbGrasp3dInfo* info) {
  double fx = kFingerHalf[0], fz = kFingerHalf[2];
  double open =
      radius + fabs(d->grid.center_x) + 0.5 * d->grid.extent_x + d->pos_noise + kClearance;
  double x_open = sign * (open + fx), x_closed = sign * (half_x - kOvershoot + fx);
  double z_hi = z_top + kStartGap + fz, z_lo = kBottomGap + fz;
  double t_desc = (z_hi - z_lo) / kDescendSpeed;
  double t_closed = t_desc + (open - half_x + kOvershoot) / d->close_speed;
  double t_lift = t_closed + kSettle, t_end = t_lift + kLiftTime + d->hold;
  int n = 0;
#define TB_KEY(t, x, z)                                                 \
  do {                                                                  \
    dd->key_t[n] = (t);                                                 \
    dd->key_pos[n][0] = (x);                                            \
    dd->key_pos[n][1] = 0.0;                                            \
    dd->key_pos[n][2] = (z);                                            \
    dd->key_quat[n][0] = 1.0;                                           \
    dd->key_quat[n][1] = dd->key_quat[n][2] = dd->key_quat[n][3] = 0.0; \
    n++;                                                                \
  } while (0)
  TB_KEY(0.0, x_open, z_hi);
  TB_KEY(t_desc, x_open, z_lo);
  TB_KEY(t_closed, x_closed, z_lo);
  TB_KEY(t_lift, x_closed, z_lo);
  // a smoothstep lift in kLiftKeys linear pieces: no velocity jump of the full lift speed
  for (int i = 1; i <= kLiftKeys; i++) {
    double s = (double)i / kLiftKeys;
    TB_KEY(t_lift + s * kLiftTime, x_closed, z_lo + d->lift * tb_smoothstep(s));
  }
  if (d->hold > 0.0) TB_KEY(t_end, x_closed, z_lo + d->lift);
#undef TB_KEY
  dd->nkey = n;
  info->t_close = t_desc;
  info->t_lift = t_lift;
  info->t_end = t_end;
}

static int tb_param(tbModel* m, const char* name, const char* unit, const char* doc, double lo,
                    double hi, int lo_open, int field, int obj, int comp) {
  int p = tb_addParam(m, name, unit, doc, lo, hi, lo_open);
  if (p >= 0) tb_paramTarget(m, p, field, obj, comp);
  return p;
}

tbModel* tb_buildGrasp3d(const tbGrasp3dDef* d, tbGrasp3dInfo* info) {
  if (tb_checkGrasp3dDef(d) != TB_OK) return NULL;
  if (d->gripper) {
    tb_setError("grasp3d: a user's gripper and part are read by tb_loadGrasp3d (mjcf.h)");
    return NULL;
  }
  memset(info, 0, sizeof(*info));
  tbModel* m = tb_newModel();
  if (!m) {
    tb_setError("out of memory for the grasp3d model");
    return NULL;
  }
  m->opt.timestep = d->dt;
  m->opt.solver = d->solver;
  m->opt.max_iter = d->max_iter;
  m->opt.tol = d->tol;
  double half_x, radius, z_rest;
  tb_objectExtent(d, &half_x, &radius, &z_rest);
  double z_top = d->object == TB_G3_BOX ? d->size[2] : d->size[0];
  info->z_rest = z_rest;
  info->half_x = half_x;
  memcpy(info->finger_half, kFingerHalf, sizeof(kFingerHalf));

  // ground: collides with the object only (contype 1)
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "ground";
  bd.type = TB_BODY_STATIC;
  int ground = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = ground;
  gd.type = TB_GEOM_PLANE;
  gd.mu = 0.0;
  gd.contype = gd.conaffinity = 1;
  tb_addGeom(m, &gd);

  // the object: touches the ground (bit 1) and the fingers (bit 2)
  double mass = 0.5 * (d->mass_lo + d->mass_hi), Ik[3];
  tb_objectInertia(d, Ik);
  bd = tb_defaultBodyDef();
  bd.name = "object";
  bd.mass = mass;
  for (int k = 0; k < 3; k++) bd.inertia[k] = mass * Ik[k];
  bd.pos[2] = z_rest;
  info->object = tb_addBody(m, &bd);
  gd = tb_defaultGeomDef();
  gd.body = info->object;
  gd.mu = 0.5 * (d->mu_lo + d->mu_hi);
  gd.contype = gd.conaffinity = 3;
  if (d->object == TB_G3_BOX) {
    gd.type = TB_GEOM_BOX;
    for (int k = 0; k < 3; k++) gd.size[k] = 0.5 * d->size[k];
  } else if (d->object == TB_G3_CAPSULE) {
    // the capsule's segment runs along its local z: turn it onto y
    const double ex[3] = {1, 0, 0};
    gd.type = TB_GEOM_CAPSULE;
    gd.size[0] = 0.5 * d->size[0];
    gd.size[1] = 0.5 * (d->size[1] - d->size[0]);
    tbu_quatAxisAngle(gd.quat, ex, -0.5 * TB_PI);
  } else {
    gd.type = TB_GEOM_SPHERE;
    gd.size[0] = 0.5 * d->size[0];
  }
  int ogeom = tb_addGeom(m, &gd);

  // carriers and fingers; the servo's kp makes the overshoot worth at least twice the force
  double kp = fmax(4000.0, 2.0 * d->force / kOvershoot);
  double kd = 2.0 * sqrt(kp * kFingerMass);
  const char* cname[2] = {"carrier_l", "carrier_r"};
  const char* fname[2] = {"finger_l", "finger_r"};
  int joint[2];
  for (int side = 0; side < 2; side++) {
    double sign = side ? 1.0 : -1.0;
    tbDriverDef dd = tb_defaultDriverDef();
    dd.type = TB_DRIVER_KEYFRAMES;
    tb_carrierKeys(d, sign, half_x, radius, z_top, &dd, info);
    bd = tb_defaultBodyDef();
    bd.name = cname[side];
    bd.type = TB_BODY_KINEMATIC;
    memcpy(bd.pos, dd.key_pos[0], sizeof(bd.pos));
    info->carrier[side] = tb_addBody(m, &bd);
    dd.body = info->carrier[side];
    tb_addDriver(m, &dd);

    bd = tb_defaultBodyDef();
    bd.name = fname[side];
    bd.mass = kFingerMass;
    double fx = 2 * kFingerHalf[0], fy = 2 * kFingerHalf[1], fz = 2 * kFingerHalf[2];
    bd.inertia[0] = kFingerMass * (fy * fy + fz * fz) / 12.0;
    bd.inertia[1] = kFingerMass * (fx * fx + fz * fz) / 12.0;
    bd.inertia[2] = kFingerMass * (fx * fx + fy * fy) / 12.0;
    memcpy(bd.pos, dd.key_pos[0], sizeof(bd.pos));
    info->finger[side] = tb_addBody(m, &bd);
    gd = tb_defaultGeomDef();
    gd.body = info->finger[side];
    gd.type = TB_GEOM_BOX;
    memcpy(gd.size, kFingerHalf, sizeof(gd.size));
    gd.mu = 0.0;
    gd.contype = 2;
    gd.conaffinity = 0;  // fingers touch the object, never the ground or each other
    gd.stiffness = kPadStiffness;
    tb_addGeom(m, &gd);

    tbJointDef jd = tb_defaultJointDef();
    jd.type = TB_JOINT_PRISMATIC;
    jd.body_a = info->finger[side];
    jd.body_b = info->carrier[side];
    memcpy(jd.anchor, bd.pos, sizeof(jd.anchor));
    jd.axis[0] = 1.0;  // the default axis is z
    jd.axis[1] = jd.axis[2] = 0.0;
    jd.servo = 1;
    jd.kp = kp;
    jd.kd = kd;
    jd.fmax = d->force;
    jd.stiffness = kMountStiffness;
    joint[side] = tb_addJoint(m, &jd);
  }
  // held to what a long holds: a dt that small is below the scene's shortest step, which the
  // caller refuses with its reason (tb_minStep), and the cost check past 1e9 scene-steps
  double nstep = ceil(info->t_end / d->dt - 1e-9);
  info->nstep = nstep < 1e15 ? (long)nstep : (long)1e15;

  // parameters: the batch axis of the study
  int ob = info->object;
  info->p_x = tb_param(m, "x0", "m", "object x (minus the gripper offset, plus noise)", -1.0, 1.0,
                       0, TB_F_BODY_POS, ob, 0);
  info->p_y = tb_param(m, "y0", "m", "object y (minus the gripper offset, plus noise)", -1.0, 1.0,
                       0, TB_F_BODY_POS, ob, 1);
  info->p_qw = tb_param(m, "qw", "", "object orientation w: cos(yaw/2)", -1.0, 1.0, 0,
                        TB_F_BODY_QUAT, ob, 0);
  info->p_qz = tb_param(m, "qz", "", "object orientation z: sin(yaw/2)", -1.0, 1.0, 0,
                        TB_F_BODY_QUAT, ob, 3);
  info->p_mu = tb_param(m, "mu", "", "object friction (table and fingers)", 0.0, 1e3, 0,
                        TB_F_GEOM_MU, ogeom, 0);
  info->p_mass =
      tb_addParam(m, "mass", "kg", "object mass (inertia scales with it)", TB_MIN_MASS, 1e3, 0);
  if (info->p_mass >= 0) {
    tb_paramTarget(m, info->p_mass, TB_F_BODY_MASS, ob, 0);
    for (int k = 0; k < 3; k++) {
      tb_paramTargetScaled(m, info->p_mass, TB_F_BODY_INERTIA, ob, k, Ik[k]);
    }
  }
  info->p_force = tb_param(m, "force", "N", "grip force of each finger", 0.0, 1e4, 1, TB_F_JOINT,
                           joint[0], TB_JNT_FMAX);
  if (info->p_force >= 0) tb_paramTarget(m, info->p_force, TB_F_JOINT, joint[1], TB_JNT_FMAX);
  if (tb_lastError()[0] || tb_compileModel(m) != TB_OK) {
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

//---- trials ------------------------------------------------------------------------------------

int tb_grasp3dCells(const tbGrasp3dDef* d) {
  return d->ncand > 0 ? d->ncand : d->grid.nx * d->grid.ny;
}

// the gripper's offset from the object and its yaw relative to the object's, in the world
// (the gripper stays put): a grid cell's offset, or a candidate's pose in the object's frame
// turned into the world where the object is turned by -yaw under the gripper
static void tb_cellPose(const tbGrasp3dDef* d, int cell, double off[2], double* yaw) {
  *yaw = 0.0;
  if (d->ncand <= 0) {
    tb_sweepOffset(&d->grid, cell, off);
    return;
  }
  const double* c = d->cand + 3 * cell;
  double cs = cos(c[2]), sn = sin(c[2]);
  off[0] = cs * c[0] + sn * c[1];  // R(-yaw) (x, y)
  off[1] = -sn * c[0] + cs * c[1];
  *yaw = c[2];
}

tbGrasp3dDraw tb_grasp3dDraw(const tbGrasp3dDef* d, int cell, int trial) {
  double off[2], yaw;
  tb_cellPose(d, cell, off, &yaw);
  uint64_t key = tb_sweepKey(cell, trial);
#define TB_U(k) tbu_uniform01(d->seed, key, (k))
  double ux = TB_U(TB_G3_DRAW_X), uy = TB_U(TB_G3_DRAW_Y), uyaw = TB_U(TB_G3_DRAW_YAW);
  double umu = TB_U(TB_G3_DRAW_MU), umass = TB_U(TB_G3_DRAW_MASS);
#undef TB_U
  tbGrasp3dDraw w;
  w.x = -off[0] + d->pos_noise * (2.0 * ux - 1.0);
  w.y = -off[1] + d->pos_noise * (2.0 * uy - 1.0);
  w.yaw = -yaw + d->yaw_noise * (2.0 * uyaw - 1.0);
  w.mu = d->mu_lo + (d->mu_hi - d->mu_lo) * umu;
  w.mass = d->mass_lo + (d->mass_hi - d->mass_lo) * umass;
  return w;
}

void tb_grasp3dParams(const tbModel* m, const tbGrasp3dInfo* info, const tbGrasp3dDef* d, int cell,
                      int trial, double* row) {
  if (info->user) {
    tb_grasp3dUserParams(m, info, d, cell, trial, row);
    return;
  }
  for (int p = 0; p < m->nparam; p++) row[p] = m->param[p].value;
  tbGrasp3dDraw w = tb_grasp3dDraw(d, cell, trial);
  row[info->p_x] = w.x;
  row[info->p_y] = w.y;
  row[info->p_qw] = cos(0.5 * w.yaw);
  row[info->p_qz] = sin(0.5 * w.yaw);
  row[info->p_mu] = w.mu;
  row[info->p_mass] = w.mass;
  row[info->p_force] = d->force;
}

int tb_grasp3dSuccess(const tbModel* m, const tbGrasp3dInfo* info, const tbData* d, int s) {
  const double* pos = d->body_pos + (size_t)s * m->nbody * 3;
  const double* po = pos + 3 * info->object;
  double inner_l = pos[3 * info->finger[0]] + info->finger_half[0];
  double inner_r = pos[3 * info->finger[1]] - info->finger_half[0];
  // lifted: the lift takes the fingers up by `lift`; half of it separates held from dropped
  double lift = d->body_pos[((size_t)s * m->nbody + info->carrier[0]) * 3 + 2] -
                (kBottomGap + info->finger_half[2]);
  return po[2] - info->z_rest > 0.5 * lift && po[0] > inner_l && po[0] < inner_r;
}

int tb_grasp3dOutline(const tbGrasp3dDef* d, double* xy) {
  const double* s = d->size;
  int n = 0;
  if (d->object == TB_G3_BOX) {
    const double c[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (; n < 4; n++) {
      xy[2 * n] = 0.5 * s[0] * c[n][0];
      xy[2 * n + 1] = 0.5 * s[1] * c[n][1];
    }
    return n;
  }
  // sphere: a circle; capsule: a stadium along y (two half circles joined)
  double r = 0.5 * s[0], a = d->object == TB_G3_CAPSULE ? 0.5 * (s[1] - s[0]) : 0.0;
  const int half = 31;  // odd: the apex of each half circle is a vertex
  for (int side = 0; side < 2; side++) {
    for (int i = 0; i < half; i++) {
      double th = TB_PI * i / (half - 1) + (side ? TB_PI : 0.0);
      xy[2 * n] = r * cos(th);
      xy[2 * n + 1] = r * sin(th) + (side ? -a : a);
      n++;
    }
  }
  return n;
}

//---- the sweep ---------------------------------------------------------------------------------

void tb_freeGrasp3dResult(tbGrasp3dResult* r) {
  tb_freeTally(&r->tally);
  memset(r, 0, sizeof(*r));
}

int tb_grasp3dSweep(const tbGrasp3dDef* def, tbGrasp3dResult* r) {
  memset(r, 0, sizeof(*r));
  tbGrasp3dInfo info;
  const tbModel* user = def->gripper ? def->user_model : NULL;
  if (def->gripper && (!user || !def->user_info)) {
    return tb_setError("grasp3d: a user's gripper and part need their model (tb_loadGrasp3d)");
  }
  if (user) info = *def->user_info;
  tbModel* own = user ? NULL : tb_buildGrasp3d(def, &info);
  const tbModel* m = user ? user : own;
  if (!m) return TB_ERR_ARG;
  int ncell = tb_grasp3dCells(def), rc = tb_newTally(&r->tally, ncell);
  if (rc != TB_OK) {
    tb_freeModel(own);
    return rc;
  }
  long total = (long)ncell * def->trials;
  r->nscene = total;
  r->nstep = info.nstep;
  // chunks of scenes: bounded memory whatever the study size, and the progress bar moves; 16
  // scenes per thread keep the threads' tails short against one scene's time (rank 0's threads
  // for every process of a share: all must make the same rollouts)
  int chunk = tb_shareRoot(16 * omp_get_max_threads());
  if (chunk < 64) chunk = 64;
  if (chunk > total) chunk = (int)total;
  tbData* d = tb_newDataOn(m, chunk, def->device, def->precision);
  if (!d) {
    tb_freeModel(own);
    tb_freeGrasp3dResult(r);
    return TB_ERR_MEMORY;
  }
  unsigned char* outcome = (unsigned char*)malloc((size_t)chunk);
  long stop = def->end > 0 && def->end < total ? def->end : total;
  if (!outcome || def->begin < 0 || def->begin > stop) {
    free(outcome);
    tb_freeData(d);
    tb_freeModel(own);
    tb_freeGrasp3dResult(r);
    return outcome ? tb_setError("begin %ld, end %ld: the study has %ld scenes", def->begin,
                                 def->end, total)
                   : TB_ERR_MEMORY;
  }
  tbProgress prog;
  if (def->progress) {
    tb_progressStart(&prog, total, "grasp3d");
    tb_progressUpdate(&prog, def->begin);
  }
  double t0 = omp_get_wtime();
  r->done = def->begin;
  for (long s0 = def->begin; s0 < stop && rc == TB_OK; s0 += chunk) {
    int n = (int)(stop - s0 < chunk ? stop - s0 : chunk);
    tb_defaultParams(m, d);
    for (int i = 0; i < n; i++) {
      long g = s0 + i;
      tb_grasp3dParams(m, &info, def, (int)(g / def->trials), (int)(g % def->trials),
                       d->param + (size_t)i * m->nparam);
    }
    if ((rc = tb_checkParams(m, d)) != TB_OK) break;
    if ((rc = tb_resetData(m, d)) != TB_OK) break;
    if (info.user) {
      rc = tb_grasp3dUserRollout(m, &info, d, n, def, outcome);
    } else if ((rc = tb_rollout(m, d, 0, n, (int)info.nstep, NULL)) == TB_OK) {
      for (int i = 0; i < n; i++) outcome[i] = tb_grasp3dSuccess(m, &info, d, i) * TB_G3_HELD;
    }
    if (rc != TB_OK) break;
    for (int i = 0; i < n; i++) {
      long g = s0 + i;
      int struck = (outcome[i] & TB_G3_STRUCK) != 0;
      int failed = !struck && (d->status[i] & TB_SCENE_FAILMASK) != 0;
      int held = !failed && (outcome[i] & TB_G3_HELD);
      int unconverged = !failed && !struck && (d->status[i] & TB_SCENE_UNCONVERGED);
      tb_tallyAdd(&r->tally, (int)(g / def->trials), failed, held);
      r->unconverged += unconverged;
      r->struck += struck;
      if (!struck) tb_failTallyAdd(&r->fails, d->status[i], d->resid_max[i], g);
      outcome[i] = (unsigned char)(failed * TB_G3_FAILED + held * TB_G3_HELD +
                                   struck * TB_G3_STRUCK + (unconverged != 0) * TB_G3_UNCONVERGED +
                                   ((d->status[i] & TB_SCENE_OVERFLOW_FAIL) != 0) * TB_G3_OVERFLOW +
                                   ((d->status[i] & TB_SCENE_START_FAIL) != 0) * TB_G3_BURIED);
    }
    if (def->chunk_done) def->chunk_done(def->chunk_ctx, s0, n, outcome);
    if (def->progress) tb_progressUpdate(&prog, s0 + n);
    r->done = s0 + n;
    if (tb_interrupted()) {
      rc = TB_INTERRUPTED;
      break;
    }
  }
  r->seconds = omp_get_wtime() - t0;
  if (def->progress) tb_progressFinish(&prog);
  free(outcome);
  tb_freeData(d);
  tb_freeModel(own);
  if (rc != TB_OK && rc != TB_INTERRUPTED) tb_freeGrasp3dResult(r);
  return rc;
}

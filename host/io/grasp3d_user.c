// The grasp study's model on the user's own gripper and part (issue 62, tbGrasp3dDef.gripper):
// two MJCF files composed into one scene (tb_composeMJCF) with the study's table, path and
// pushes; the trials run in host/jobs/grasp3d_user.c.
//
// Scene (SI units, z up):
//   table    static plane z <= 0, friction 0 (a contact takes the larger of its shapes': the
//            part's); the gripper never touches it (its bodies' contacts with it excluded: the
//            study keeps the open gripper 1 mm above it, and a finger grazing a table it is
//            pressed into by a kinematic palm has no answer)
//   part     the part file's free body resting on the table at (x0, y0) with its lowest point at
//            z = 0, turned by the trial's yaw about z; every contact of it uses the trial's mu
//            (the gripper's shapes take it too)
//   gripper  the gripper file's bodies, placed so that its site `tcp` points down (its z axis
//            along -z, its x axis along x): the top body is kinematic, on keyframes (wait with
//            the fingers opening, descend, close, lift, hold); each actuator's control is a
//            schedule (open, then a ramp to closed), each push a schedule of the part's force
// As in the built-in study the gripper stays put and the cell's offset is the part's (-x, -y).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/grasp3d.h>
#include <tumble/mjcf.h>

#include "math/tb_math.h"

#include "util/error.h"

// s, the fingers open before the descent, where an open control moves them (an actuated joint
// starts at its reference, where a position actuator's control 0 holds it)
static const double kOpenTime = 0.2;
static const double kDescendSpeed = 0.2;  // m/s
static const double kStartGap = 0.01;     // m, the open gripper's lowest point over the part's top
static const double kTableGap = 1e-3;     // m, the open gripper over the table, at the lowest
static const double kSettle = 0.1;        // s, closed and still before the lift
static const double kLiftTime = 0.25;     // s, smoothstep lift
static const int kLiftKeys = 8;           // its keyframe segments
static const double kRamp = 0.05;         // s, each push's rise and fall
static const double kPush = 0.15;         // s, each push held at full force
static const double kGravity = 9.81;      // m/s^2, the default push's weight
// the built-in gripper's compliances (host/jobs/grasp3d.c says why: a part held by rigid fingers
// on rigid mounts is a closed loop whose step has no exact answer): N/m on each finger's mount
// to a moved body (the top one, or one welded to it), and N/m on each of the gripper's contacts
static const double kMountStiffness = 1e6;
static const double kPadStiffness = 1e5;

//---- geometry ------------------------------------------------------------------------------------

// the farthest point of shape g (its body at its definition's pose) along world direction u; 0,
// or an error for a shape with no farthest point (a plane)
static int tb_geomSupport(const tbModel* m, int g, const double u[3], double out[3]) {
  const tbGeomDef* gd = &m->gdef[g];
  const tbBodyDef* bd = &m->bdef[gd->body];
  double q[4], d[3], p[3] = {0, 0, 0};
  tbu_quatMul(q, bd->quat, gd->quat);
  tbu_rotVecInv(d, q, u);
  const double* s = gd->size;
  switch (gd->type) {
    case TB_GEOM_SPHERE:
      tbu_scl3(p, d, s[0]);
      break;
    case TB_GEOM_CAPSULE:
      tbu_scl3(p, d, s[0]);
      p[2] += d[2] >= 0.0 ? s[1] : -s[1];
      break;
    case TB_GEOM_BOX:
      for (int k = 0; k < 3; k++) p[k] = d[k] >= 0.0 ? s[k] : -s[k];
      break;
    case TB_GEOM_CYLINDER: {
      double r = sqrt(d[0] * d[0] + d[1] * d[1]);
      if (r > 0.0) p[0] = s[0] * d[0] / r, p[1] = s[0] * d[1] / r;
      p[2] = d[2] >= 0.0 ? s[1] : -s[1];
      break;
    }
    case TB_GEOM_ELLIPSOID: {
      double n =
          sqrt(s[0] * s[0] * d[0] * d[0] + s[1] * s[1] * d[1] * d[1] + s[2] * s[2] * d[2] * d[2]);
      for (int k = 0; k < 3 && n > 0.0; k++) p[k] = s[k] * s[k] * d[k] / n;
      break;
    }
    case TB_GEOM_MESH: {
      const double* v = gd->hull->vert;
      int best = 0;
      for (int i = 1; i < gd->hull->nvert; i++) {
        if (tbu_dot3(v + 3 * i, d) > tbu_dot3(v + 3 * best, d)) best = i;
      }
      tbu_copy3(p, v + 3 * best);
      break;
    }
    default:
      return tb_setError("grasp3d: body '%s': a %s shape has no extent a grasp study can place",
                         m->body_name[gd->body],
                         gd->type == TB_GEOM_PLANE ? "plane" : "planar or implicit");
  }
  double w[3], gp[3];
  tbu_rotVec(w, q, p);
  tbu_rotVec(gp, bd->quat, gd->pos);
  tbu_add3(out, w, gp);
  tbu_add3(out, out, bd->pos);
  return 0;
}

// the extent of shapes [g0, g0 + n) along world direction u: max of u . x; 0 or an error
static int tb_shapesReach(const tbModel* m, int g0, int n, const double u[3], double* reach) {
  *reach = -INFINITY;
  for (int g = g0; g < g0 + n; g++) {
    double x[3];
    if (tb_geomSupport(m, g, u, x)) return TB_ERR_ARG;
    double r = tbu_dot3(x, u);
    if (r > *reach) *reach = r;
  }
  return 0;
}

// the part's footprint: its farthest points in 64 directions of the plane (convex), about its
// centre of mass
static int tb_partOutline(const tbModel* m, int g0, int n, tbGrasp3dInfo* info) {
  const double* c = m->bdef[info->object].pos;
  info->noutline = 64;
  for (int i = 0; i < 64; i++) {
    double th = 2.0 * TB_PI * i / 64, u[3] = {cos(th), sin(th), 0.0}, best[3] = {0, 0, 0};
    double far = -INFINITY;
    for (int g = g0; g < g0 + n; g++) {
      double x[3];
      if (tb_geomSupport(m, g, u, x)) return TB_ERR_ARG;
      if (tbu_dot3(x, u) > far) far = tbu_dot3(x, u), tbu_copy3(best, x);
    }
    info->outline[i][0] = best[0] - c[0];
    info->outline[i][1] = best[1] - c[1];
  }
  return 0;
}

// the rigid motion x -> q x + t applied to bodies [b0, b0 + nb) and joints [j0, j0 + nj) at
// their definitions' pose
static void tb_moveParts(tbModel* m, const tbMjcfPart* p, const double q[4], const double t[3]) {
  for (int b = p->body0; b < p->body0 + p->nbody; b++) {
    tbBodyDef* bd = &m->bdef[b];
    double x[3], r[4];
    tbu_rotVec(x, q, bd->pos);
    tbu_add3(bd->pos, x, t);
    tbu_quatMul(r, q, bd->quat);
    memcpy(bd->quat, r, sizeof(r));
    tbu_rotVec(x, q, bd->vel);
    tbu_copy3(bd->vel, x);
    tbu_rotVec(x, q, bd->vel + 3);
    tbu_copy3(bd->vel + 3, x);
  }
  for (int j = p->jnt0; j < p->jnt0 + p->njnt; j++) {
    tbJointDef* jd = &m->jdef[j];
    double x[3];
    tbu_rotVec(x, q, jd->anchor);
    tbu_add3(jd->anchor, x, t);
    tbu_rotVec(x, q, jd->axis);
    tbu_copy3(jd->axis, x);
  }
}

//---- the build ---------------------------------------------------------------------------------

typedef struct tbG3Build {
  const tbGrasp3dDef* def;
  tbGrasp3dInfo* info;
} tbG3Build;

// the part: one free body of the part's file, resting on the table at the origin
static int tb_placePart(tbModel* m, const tbMjcfPart* part, tbGrasp3dInfo* info, double* top) {
  if (part->nbody != 1 || m->bdef[part->body0].type != TB_BODY_DYNAMIC || part->njnt ||
      m->bdef[part->body0].lock) {
    return tb_setError(
        "%s: the part is one free body (a <freejoint>, no child bodies); it has %d bodies%s",
        part->src, part->nbody, part->njnt ? " and joints" : "");
  }
  if (part->ngeom < 1) return tb_setError("%s: the part has no shape to grasp", part->src);
  tbBodyDef* bd = &m->bdef[part->body0];
  info->object = part->body0;
  memcpy(info->q0, bd->quat, sizeof(info->q0));
  memset(bd->vel, 0, sizeof(bd->vel));
  const double down[3] = {0, 0, -1}, up[3] = {0, 0, 1};
  double low, high;
  bd->pos[0] = bd->pos[1] = bd->pos[2] = 0.0;
  if (tb_shapesReach(m, part->geom0, part->ngeom, down, &low) ||
      tb_shapesReach(m, part->geom0, part->ngeom, up, &high))
    return TB_ERR_ARG;
  bd->pos[2] = low;  // its lowest point at z = 0
  info->z_rest = low;
  *top = low + high;
  return tb_partOutline(m, part->geom0, part->ngeom, info);
}

// the gripper placed for the grasp: the site pointing down at (0, 0, z) over the part; *below
// the open gripper's reach under the site
static int tb_placeGripper(tbModel* m, const tbMjcfPart* g, double z, double* below) {
  // the site's goal orientation: a half turn about x (z to -z, x kept)
  const double goal[4] = {0, 1, 0, 0};
  double qc[4], q[4], t[3], x[3];
  tbu_quatConj(qc, g->site_quat);
  tbu_quatMul(q, goal, qc);
  tbu_rotVec(x, q, g->site_pos);
  const double at[3] = {0, 0, z};
  tbu_sub3(t, at, x);
  tb_moveParts(m, g, q, t);
  const double down[3] = {0, 0, -1};
  double reach;
  if (tb_shapesReach(m, g->geom0, g->ngeom, down, &reach)) return TB_ERR_ARG;
  *below = reach + z;  // the lowest point is z - below
  return 0;
}

// the gripper's mounts on its moved bodies and its contacts compliant, where the file left them
// rigid
static void tb_gripperCompliance(tbModel* m, const tbMjcfPart* g) {
  for (int j = g->jnt0; j < g->jnt0 + g->njnt; j++) {
    tbJointDef* jd = &m->jdef[j];
    int mount = jd->body_b >= 0 && m->bdef[jd->body_b].type == TB_BODY_KINEMATIC;
    if (mount && jd->stiffness == 0.0 && jd->damping == 0.0) {
      jd->stiffness = kMountStiffness;
    }
  }
  for (int k = g->geom0; k < g->geom0 + g->ngeom; k++) {
    tbGeomDef* gd = &m->gdef[k];
    if (gd->stiffness == 0.0 && gd->damping == 0.0) gd->stiffness = kPadStiffness;
  }
}

// the gripper's actuators (its part's controls) each as a schedule: open, then a ramp to closed
static int tb_controlSchedules(tbModel* m, const tbMjcfPart* g, const tbGrasp3dDef* d,
                               double t_close) {
  if (g->nactuator < 1) {
    return tb_setError("%s: the gripper has no actuator to close it", g->src);
  }
  if (d->nctrl && d->nctrl != g->nactuator) {
    return tb_setError("grasp3d: %d open/close controls given, the gripper has %d actuators",
                       d->nctrl, g->nactuator);
  }
  for (int a = 0; a < g->nactuator; a++) {
    const tbMjcfActuator* act = &g->actuator[a];
    double open = d->nctrl ? d->ctrl_open[a] : act->lo,
           shut = d->nctrl ? d->ctrl_close[a] : act->hi;
    if (!d->nctrl && !(act->hi - act->lo < 1e6)) {
      return tb_setError(
          "%s: actuator '%s' has no ctrlrange: give its open and closed controls "
          "(--open, --close)",
          g->src, act->name);
    }
    tbScheduleDef sd = tb_defaultScheduleDef();
    sd.field = TB_F_JOINT;
    sd.object = act->joint;
    sd.comp = act->comp;
    sd.nkey = 2;
    sd.key_t[0] = t_close;
    sd.key_t[1] = t_close + d->close_time;
    sd.key_v[0] = act->scale * open;
    sd.key_v[1] = act->scale * shut;
    if (tb_addSchedule(m, &sd) < 0) return TB_ERR_ARG;
  }
  return 0;
}

// the pushes: the part's force along +x, -x, +y, -y, +z, -z in turn from t0, each rising, held
// and falling; *t_meas the end of each hold
static int tb_pushSchedules(tbModel* m, int part, double force, double t0, double t_meas[6]) {
  for (int axis = 0; axis < 3; axis++) {
    tbScheduleDef sd = tb_defaultScheduleDef();
    sd.field = TB_F_BODY_FORCE;
    sd.object = part;
    sd.comp = axis;
    sd.nkey = 0;
    for (int sign = 0; sign < 2; sign++) {
      int k = 2 * axis + sign;
      double a = t0 + k * (2 * kRamp + kPush), f = sign ? -force : force;
      const double t[4] = {a, a + kRamp, a + kRamp + kPush, a + 2 * kRamp + kPush};
      const double v[4] = {0.0, f, f, 0.0};
      for (int i = 0; i < 4; i++) {
        // the next push starts where this one ends: one key for both
        if (sd.nkey && sd.key_t[sd.nkey - 1] == t[i]) continue;
        sd.key_t[sd.nkey] = t[i];
        sd.key_v[sd.nkey++] = v[i];
      }
      t_meas[k] = t[2];
    }
    if (tb_addSchedule(m, &sd) < 0) return TB_ERR_ARG;
  }
  return 0;
}

// the time the fingers take to open: none where every actuator's open value is its joint's start
static double tb_openTime(const tbMjcfPart* g, const tbGrasp3dDef* d) {
  for (int a = 0; a < g->nactuator; a++) {
    double open = d->nctrl ? d->ctrl_open[a] : g->actuator[a].lo;
    if (g->actuator[a].scale * open != 0.0) return kOpenTime;
  }
  return 0.0;
}

// kinematic body b's keyframes from its grasp pose: wait `up` above it until t_open, descend,
// close, lift, hold (the top body, and the bodies welded to it, which move with it)
static int tb_bodyPath(tbModel* m, int b, double up, const tbGrasp3dDef* d, double t_open,
                       double t_close, double t_lift, double t_end) {
  int k = 0;
  while (k < m->ndriver && m->ddef[k].body != b) k++;
  if (k == m->ndriver)
    return tb_setError("grasp3d: the gripper's body '%s' has no driver", m->body_name[b]);
  tbDriverDef* dd = &m->ddef[k];
  const double* p = m->bdef[b].pos;
  dd->type = TB_DRIVER_KEYFRAMES;
  int n = 0;
#define TB_KEY(t, dz)                                                  \
  do {                                                                 \
    dd->key_t[n] = (t);                                                \
    dd->key_pos[n][0] = p[0];                                          \
    dd->key_pos[n][1] = p[1];                                          \
    dd->key_pos[n][2] = p[2] + (dz);                                   \
    memcpy(dd->key_quat[n], m->bdef[b].quat, sizeof(dd->key_quat[n])); \
    n++;                                                               \
  } while (0)
  TB_KEY(0.0, up);
  if (t_open > 0.0) TB_KEY(t_open, up);
  TB_KEY(t_close, 0.0);
  TB_KEY(t_lift, 0.0);
  for (int i = 1; i <= kLiftKeys; i++) {
    double s = (double)i / kLiftKeys;
    TB_KEY(t_lift + s * kLiftTime, d->lift * s * s * (3.0 - 2.0 * s));
  }
  TB_KEY(t_end, d->lift);
#undef TB_KEY
  dd->nkey = n;
  return 0;
}

// the gripper's path: its kinematic bodies (the top one and those welded to it) on keyframes
static int tb_gripperPath(tbModel* m, const tbMjcfPart* g, double up, const tbGrasp3dDef* d,
                          double t_open, double t_close, double t_lift, double t_end) {
  for (int b = g->body0; b < g->body0 + g->nbody; b++) {
    if (m->bdef[b].type != TB_BODY_KINEMATIC) continue;
    if (tb_bodyPath(m, b, up, d, t_open, t_close, t_lift, t_end)) return TB_ERR_ARG;
  }
  return 0;
}

static int tb_param(tbModel* m, const char* name, const char* unit, const char* doc, double lo,
                    double hi, int field, int obj, int comp) {
  int p = tb_addParam(m, name, unit, doc, lo, hi, 0);
  if (p >= 0) tb_paramTarget(m, p, field, obj, comp);
  return p;
}

// the trial's parameters: the part's place, orientation, friction (every shape of the part and
// the gripper) and mass (its inertia with it)
static int tb_userParams(tbModel* m, const tbMjcfPart* parts, tbGrasp3dInfo* info) {
  int ob = info->object;
  info->p_x = tb_param(m, "x0", "m", "part x (minus the gripper offset, plus noise)", -1.0, 1.0,
                       TB_F_BODY_POS, ob, 0);
  info->p_y = tb_param(m, "y0", "m", "part y (minus the gripper offset, plus noise)", -1.0, 1.0,
                       TB_F_BODY_POS, ob, 1);
  int* q[4] = {&info->p_qw, &info->p_qx, &info->p_qy, &info->p_qz};
  const char* qn[4] = {"qw", "qx", "qy", "qz"};
  for (int k = 0; k < 4; k++) {
    *q[k] = tb_param(m, qn[k], "", "part orientation: the yaw's turn of its file's", -1.0, 1.0,
                     TB_F_BODY_QUAT, ob, k);
  }
  info->p_mu = tb_addParam(m, "mu", "", "friction of the part's contacts", 0.0, 1e3, 0);
  for (int i = 0; i < 2 && info->p_mu >= 0; i++) {
    for (int g = parts[i].geom0; g < parts[i].geom0 + parts[i].ngeom; g++) {
      tb_paramTarget(m, info->p_mu, TB_F_GEOM_MU, g, 0);
    }
  }
  const tbBodyDef* bd = &m->bdef[ob];
  info->p_mass =
      tb_addParam(m, "mass", "kg", "part mass (inertia scales with it)", TB_MIN_MASS, 1e3, 0);
  if (info->p_mass >= 0) {
    tb_paramTarget(m, info->p_mass, TB_F_BODY_MASS, ob, 0);
    for (int k = 0; k < 3; k++) {
      tb_paramTargetScaled(m, info->p_mass, TB_F_BODY_INERTIA, ob, k, bd->inertia[k] / bd->mass);
    }
  }
  info->p_force = -1;
  return tb_lastError()[0] ? TB_ERR_ARG : 0;
}

// the table: a static plane the gripper never touches
static int tb_userTable(tbModel* m, const tbMjcfPart* gripper) {
  if (tb_findBody(m, "table") >= 0) {
    return tb_setError("grasp3d: a body is named 'table', the study's own: rename it");
  }
  tbBodyDef bd = tb_defaultBodyDef();
  bd.name = "table";
  bd.type = TB_BODY_STATIC;
  int table = tb_addBody(m, &bd);
  tbGeomDef gd = tb_defaultGeomDef();
  gd.body = table;
  gd.type = TB_GEOM_PLANE;
  gd.mu = 0.0;
  if (table < 0 || tb_addGeom(m, &gd) < 0) return TB_ERR_ARG;
  for (int b = gripper->body0; b < gripper->body0 + gripper->nbody; b++) {
    if (tb_excludeContact(m, table, b) != TB_OK) return TB_ERR_ARG;
  }
  return 0;
}

// the composed model's study: table, part at rest, gripper placed over it on its path, the
// controls' and pushes' schedules, the parameters
static int tb_userBuild(tbModel* m, tbMjcfPart* parts, int nparts, void* ctx) {
  (void)nparts;
  const tbG3Build* b = (const tbG3Build*)ctx;
  const tbGrasp3dDef* d = b->def;
  tbGrasp3dInfo* info = b->info;
  tbMjcfPart* g = &parts[0];
  if (!g->site_found) {
    return tb_setError(
        "%s: no <site name=\"%s\">: the grasp's centre is a site of the gripper "
        "(its z axis the approach, its x axis the jaws' axis)",
        g->src, d->tcp ? d->tcp : "tcp");
  }
  m->opt.timestep = d->dt;
  m->opt.solver = d->solver;
  m->opt.max_iter = d->max_iter;
  m->opt.tol = d->tol;
  // Coulomb's exact cone whatever the files' <option cone> (MJCF's default is the pyramid): a
  // pyramid's friction depends on the slip's direction in the contact's frame, which a map of
  // offsets and yaws reads as a property of the grasp; and auto's Newton stage converges on the
  // exact cone where a part squeezed on its face's coplanar table contacts is a jammed problem
  // for the pyramid's LCP form (on a 5 x 5 map of the example gripper: 63 of 100 trials kept a
  // step above the tolerance, 2,000-iteration steps through the close; the exact cone none, at
  // 1.7x the rate)
  m->opt.cone = TB_CONE_EXACT;
  info->user = 1;
  info->root = g->body0;
  double top = 0.0, below = 0.0;
  int rc = tb_placePart(m, &parts[1], info, &top);
  if (!rc) rc = tb_placeGripper(m, g, 0.0, &below);
  if (rc) return rc;
  // the grasp height: the site's, or the part's centre raised until the gripper clears the table
  double z = d->grasp_height >= 0.0 ? d->grasp_height : fmax(info->z_rest, below + kTableGap);
  double up = fmax(top + kStartGap - (z - below), 0.0);
  const double rise[4] = {1, 0, 0, 0}, at[3] = {0, 0, z};
  tb_moveParts(m, g, rise, at);
  double t_open = tb_openTime(g, d);
  info->t_close = t_open + up / kDescendSpeed;
  info->t_lift = info->t_close + d->close_time + kSettle;
  double t_held = info->t_lift + kLiftTime + d->hold, t_meas[6];
  info->t_end = t_held + 6 * (2 * kRamp + kPush);
  rc = tb_gripperPath(m, g, up, d, t_open, info->t_close, info->t_lift, t_held);
  const double lift_up[3] = {0, 0, up};
  if (!rc) tb_moveParts(m, g, rise, lift_up);
  if (!rc) tb_gripperCompliance(m, g);
  if (!rc) rc = tb_controlSchedules(m, g, d, info->t_close);
  double mass = d->mass_lo > 0.0 ? 0.5 * (d->mass_lo + d->mass_hi) : m->bdef[info->object].mass;
  double push = d->disturb > 0.0 ? d->disturb : mass * kGravity;
  if (!rc) rc = tb_pushSchedules(m, info->object, push, t_held, t_meas);
  if (!rc) rc = tb_userTable(m, g);
  if (!rc) rc = tb_userParams(m, parts, info);
  if (rc) return rc;
  info->step_close = (long)ceil(info->t_close / d->dt - 1e-9);
  info->step_held = (long)ceil(t_held / d->dt - 1e-9);
  for (int k = 0; k < 6; k++) info->step_push[k] = (long)ceil(t_meas[k] / d->dt - 1e-9);
  info->nstep = info->step_push[5];
  return 0;
}

tbModel* tb_loadGrasp3d(const tbGrasp3dDef* d, tbGrasp3dInfo* info, char* note, size_t cap) {
  if (note && cap) note[0] = 0;
  if (!d->gripper) return tb_buildGrasp3d(d, info);
  if (tb_checkGrasp3dDef(d) != TB_OK) return NULL;
  memset(info, 0, sizeof(*info));
  tbMjcfPart parts[2];
  memset(parts, 0, sizeof(parts));
  parts[0].src = d->gripper;
  parts[0].kinematic_root = 1;
  parts[0].site = d->tcp ? d->tcp : "tcp";
  parts[0].controls = 1;
  parts[1].src = d->part;
  tbG3Build b = {d, info};
  return tb_composeMJCF(parts, 2, tb_userBuild, &b, note, cap);
}

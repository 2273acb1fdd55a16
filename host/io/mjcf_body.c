// The one walk of the body tree: MuJoCo's forward kinematics and tumble's bodies, shapes, joints
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/tb_math.h"
#include "util/error.h"
#include "io/mjcf_internal.h"

//---- joints and the keyframe -------------------------------------------------------------------

typedef struct tbMjJoint {
  xmlNodePtr node;
  int type;                // 0 free, 1 ball, 2 slide, 3 hinge (MuJoCo's order)
  double pos[3], axis[3];  // MJCF body frame
  int limited;
  double range[2];  // file units
  double damping;   // N s/m or N m s/rad
  double armature;  // kg m^2 or kg
} tbMjJoint;

const char* const tb_mjJointTypes[] = {"free", "ball", "slide", "hinge", NULL};

static int tb_mjJoint(const tbMj* c, xmlNodePtr n, int childclass, tbMjJoint* j) {
  static const char* const lim[] = {"auto", "true", "false", NULL};
  memset(j, 0, sizeof(*j));
  j->node = n;
  j->axis[2] = 1.0;
  if (tb_mjIs(n, "freejoint")) return 0;
  int cls = tb_mjClassOf(c, n, childclass);
  if (cls < 0) return 2;
  if ((j->type = tb_mjWord(c, n, cls, "type", "hinge", tb_mjJointTypes)) < 0) return 2;
  int nr = tb_mjNums(c, n, cls, "range", j->range, 2, 2);
  int l = tb_mjWord(c, n, cls, "limited", "auto", lim);
  if (nr < 0 || l < 0 || tb_mjNums(c, n, cls, "pos", j->pos, 3, 3) < 0 ||
      tb_mjNums(c, n, cls, "axis", j->axis, 3, 3) < 0)
    return 2;
  if (tbu_normalize3(j->axis) == 0.0) return tb_mjFail(c, n, "axis is zero");
  if (tb_mjNums(c, n, cls, "damping", &j->damping, 1, 1) < 0 ||
      tb_mjNums(c, n, cls, "armature", &j->armature, 1, 1) < 0)
    return 2;
  if (!(j->damping >= 0.0 && j->damping < INFINITY)) {
    return tb_mjFail(c, n, "damping %g must be finite and >= 0", j->damping);
  }
  if (!(j->armature >= 0.0 && j->armature < INFINITY)) {
    return tb_mjFail(c, n, "armature %g must be finite and >= 0", j->armature);
  }
  if (j->armature != 0.0 && j->type == 0) {
    return tb_mjFail(c, n, "armature: tumble takes it on hinge, slide and ball joints");
  }
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

// n key coordinates from number at (0-based) within +-TB_MAX_POS, the range of the parameters
// x0 (m) and a joint's range (rad); 0, or 2 after an error naming the key's qpos
static int tb_mjKeyCoords(const tbMj* c, const double* p, int n, int at) {
  for (int i = 0; i < n && c->key; i++) {
    if (!(fabs(p[i]) <= TB_MAX_POS)) {
      return tb_mjFail(c, c->key, "qpos: number %d, %g, must be in [-%g, %g] (m, rad)", at + i + 1,
                       p[i], TB_MAX_POS, TB_MAX_POS);
    }
  }
  return 0;
}

// move the frame by joint j's key coordinates (MuJoCo's forward kinematics); q[0] is the joint's
// coordinate (hinge, slide), which shifts its limits, or a ball's rotation angle (a limited ball
// starts at 0), and q[1] its rate, a minimal joint's start. 0, or 2 after an error (a coordinate
// out of range)
static int tb_mjApplyJoint(tbMj* c, const tbMjJoint* j, tbMjFrame* f, double q[2]) {
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
    int at = c->iq;
    const double* p = tb_mjKeyTake(c, q0, 7, 0);
    if (p != q0 && tb_mjKeyCoords(c, p, 3, at)) return 2;
    memcpy(f->pos, p, sizeof(double) * 3);
    memcpy(f->quat, p + 3, sizeof(double) * 4);
    tbu_quatNormalizeScaled(f->quat);
    const double* v = tb_mjKeyTake(c, zero, 6, 1);
    memcpy(f->vel, v, sizeof(double) * 3);
    tbu_rotVec(f->vel + 3, f->quat, v + 3);
    return 0;
  }
  double old[3];
  tbu_copy3(old, f->pos);
  if (j->type == 1) {  // ball: a rotation about the anchor; qvel local
    const double* p = tb_mjKeyTake(c, q0ball, 4, 0);
    double qb[4] = {p[0], p[1], p[2], p[3]}, t[4], w[3];
    tbu_quatNormalizeScaled(qb);
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
    return 0;
  }
  int at = c->iq;
  q[0] = *tb_mjKeyTake(c, zero, 1, 0);
  if (tb_mjKeyCoords(c, q, 1, at)) return 2;
  double qd = q[1] = *tb_mjKeyTake(c, zero, 1, 1);
  if (j->type == 2) {  // slide
    tbu_addscl3(f->pos, f->pos, axis, q[0]);
    tb_mjShiftTwist(f, old);
    tbu_addscl3(f->vel, f->vel, axis, qd);
    return 0;
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
  return 0;
}

//---- bodies ------------------------------------------------------------------------------------

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
    }
  }
  for (int k = 0; k < pl->nshape; k++) {
    if (pl->shape[k].mesh >= 0) tb_mjMeshMass(c, &pl->shape[k]);
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
    if (s->visual) continue;  // its mass is in the body's
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
    if (s->type == TB_GEOM_MESH && !(gd.hull = tb_mjMeshHull(c, s))) return 2;
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
    if (s->type != TB_GEOM_PLANE && s->type != TB_GEOM_PRISM && s->type != TB_GEOM_MESH &&
        (pl->inertial || bd->type != TB_BODY_DYNAMIC) &&
        tb_mjNote(c, name, TB_MJ_P_SIZE, g, sized, 1.0, 0))
      return 2;
  }
  return 0;
}

// 1 when kinematic body b is still: its driver a constant velocity of zero (a mocap body no
// custom numeric drives)
static int tb_mjStill(const tbMj* c, int b) {
  for (int k = 0; k < c->m->ndriver; k++) {
    const tbDriverDef* dd = &c->m->ddef[k];
    if (dd->body != b) continue;
    if (dd->type != TB_DRIVER_CONSTVEL) return 0;
    for (int i = 0; i < 6; i++) {
      if (dd->vel[i] != 0.0) return 0;
    }
  }
  return 1;
}

// a kinematic body's driver: its custom numeric's, else still; a body welded to a mocap body
// (welded) moves with it and takes none of its own
static int tb_mjDriver(tbMj* c, xmlNodePtr n, const char* name, int b, int welded) {
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
  if (num && welded) {
    return tb_mjFail(c, num,
                     "body '%s' is welded to a mocap body and moves with it: it takes no "
                     "driver of its own",
                     name);
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

// the caller's site (tbMjcfPart.site) among n's children: its world frame in frame f
static int tb_mjSite(tbMj* c, xmlNodePtr n, const tbMjFrame* f) {
  tbMjcfPart* part = c->part;
  if (!part || !part->site) return 0;
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) {
    const char* name = tb_mjName(k);
    if (!tb_mjIs(k, "site") || !name || strcmp(name, part->site)) continue;
    if (part->site_found) return tb_mjFail(c, k, "a second site named '%s'", name);
    double pos[3] = {0, 0, 0}, q[4];
    if (tb_mjNums(c, k, -1, "pos", pos, 3, 3) < 0 || tb_mjOrient(c, k, -1, q)) return 2;
    tbu_rotVec(part->site_pos, f->quat, pos);
    tbu_add3(part->site_pos, part->site_pos, f->pos);
    tbu_quatMul(part->site_quat, f->quat, q);
    part->site_found = 1;
  }
  return 0;
}

// a top body the caller moves (tbMjcfPart.kinematic_root): the file's only one, a mocap body,
// its free joint read past
static int tb_mjCallerRoot(tbMj* c, xmlNodePtr n, tbMjBodyPlan* pl) {
  if (++c->top_bodies > 1) {
    return tb_mjFail(c, n, "a second top body: the caller moves the file's one top body");
  }
  if (pl->nj == 1 && pl->joint[0].type == 0) pl->nj = 0;
  if (pl->nj) {
    return tb_mjFail(c, pl->joint[0].node,
                     "the top body moves on the caller's path: it takes no joint (a free one is "
                     "read past)");
  }
  pl->mocap = 1;
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
    // welded to a still mocap body: kinematic and still with it (a moving one's motion, rigidly
    // offset, is no driver of tumble's; a caller that moves a top body moves its welded ones)
    if (p->type == TB_BODY_KINEMATIC && !tb_mjStill(c, p->b)) {
      return tb_mjFail(c, n,
                       "a body welded to a moving mocap body: put its geoms in the mocap "
                       "body");
    }
    *type = p->type == TB_BODY_STATIC ? TB_BODY_STATIC : p->type;
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

// an actuator whose control the caller sets (tbMjcfPart.controls), on joint k
static int tb_mjCallerControl(tbMj* c, const tbMjCtrl* ctrl, int k) {
  if (ctrl->index >= TB_MJCF_MAXACT) {
    return tb_mjFail(c, ctrl->act, "more than %d actuators: the caller drives at most %d",
                     TB_MJCF_MAXACT, TB_MJCF_MAXACT);
  }
  tbMjcfActuator* a = &c->part->actuator[ctrl->index];
  const char* name = tb_mjName(ctrl->act);
  if (name) {
    snprintf(a->name, sizeof(a->name), "%s", name);
  } else {
    snprintf(a->name, sizeof(a->name), "actuator %d", ctrl->index + 1);
  }
  a->joint = k;
  a->comp = ctrl->comp;
  a->scale = ctrl->scale;
  a->lo = ctrl->lo;
  a->hi = ctrl->hi;
  if (ctrl->index >= c->part->nactuator) c->part->nactuator = ctrl->index + 1;
  return 0;
}

// joint j (NULL: a weld) between body b and its parent, at the key's coordinate and rate q (the
// frame already moved by them: a minimal joint starts there at q[1]); at is the body's element.
// By default a joint is minimal, as MuJoCo holds it, but for one whose tumble_compliance softens
// its rows (a minimal joint has none) or whose parent a driver moves (a finger on a driven palm:
// a tree hangs from a static or dynamic body): those keep rows
static int tb_mjAddJoint(tbMj* c, xmlNodePtr at, const tbMjJoint* j, int b, int parent,
                         const tbMjFrame* f, const double q[2]) {
  static const int types[4] = {-1, TB_JOINT_SPHERICAL, TB_JOINT_PRISMATIC, TB_JOINT_REVOLUTE};
  tbJointDef jd = tb_defaultJointDef();
  jd.type = j ? types[j->type] : TB_JOINT_FIXED;
  jd.body_a = b;
  jd.body_b = parent;
  const char* name = j ? tb_mjName(j->node) : NULL;
  xmlNodePtr soft;
  if (tb_mjCompliance(c, name, &jd.stiffness, &jd.damping, &soft)) return 2;
  int driven = parent >= 0 && c->m->bdef[parent].type == TB_BODY_KINEMATIC;
  jd.minimal = c->minimal && jd.type != TB_JOINT_FIXED && (c->minimal_asked || !(soft || driven));
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
  tbMjCtrl ctrl = {0};
  if (j) {
    jd.coord_damping = j->damping;
    jd.armature = j->armature;
    if (tb_mjActuate(c, j->node, j->type, q[0], &jd, &ctrl)) return 2;
  }
  int k = tb_addJoint(c->m, &jd);
  if (k < 0) {
    return tb_mjFail(c, ctrl.act ? ctrl.act : soft ? soft : j ? j->node : at, "%s", tb_lastError());
  }
  const char* act = ctrl.act ? tb_mjName(ctrl.act) : NULL;
  if (ctrl.act && c->part && c->part->controls) return tb_mjCallerControl(c, &ctrl, k);
  if (act) {
    if (tb_mjNote(c, act, TB_MJ_P_CTRL, k, 1, ctrl.scale, ctrl.comp)) return 2;
    c->named[c->nnamed - 1].lo = ctrl.lo;
    c->named[c->nnamed - 1].hi = ctrl.hi;
  }
  if (soft && tb_mjNote(c, tb_mjName(soft), TB_MJ_P_JOINT_SOFT, k, 2, 1.0, 0)) return 2;
  if (name && j->limited && q[0] == 0.0)
    return tb_mjNote(c, name, TB_MJ_P_RANGE, k, 2, scale, jd.type);
  return 0;
}

// 1 when the body's joints become locks (tb_mjLocks) rather than joints: a child of the world
// with several joints, or with one unlimited slide along a world axis (a finger on a rail: the
// same motion as a prismatic joint to the world, without its rows)
static int tb_mjLockedBody(const tbMj* c, const tbMjParent* p, const tbMjBodyPlan* pl,
                           const tbMjFrame* f) {
  if (p->b >= 0 || pl->nj == 0) return 0;
  if (pl->nj > 1) return 1;
  const tbMjJoint* j = &pl->joint[0];
  if (j->damping != 0.0 || j->armature != 0.0 || tb_mjActuated(c, j->node)) return 0;  // a joint's
  double a[3];
  tbu_rotVec(a, f->quat, j->axis);
  int along = 0;
  for (int i = 0; i < 3; i++) along |= fabs(fabs(a[i]) - 1.0) < 1e-12;
  return j->type == 2 && !j->limited && along;
}

// body element n's frame on its parent's (p): its pos= and orientation, and the parent's twist
// at it; its childclass into *cls (from the parent's); 0, or 2 after an error
static int tb_mjChildFrame(tbMj* c, xmlNodePtr n, const tbMjParent* p, tbMjFrame* f, int* cls) {
  *cls = p->childclass;
  xmlAttrPtr cc = xmlHasProp(n, (const xmlChar*)"childclass");
  if (cc && (*cls = tb_mjFindClass(c, n, tb_mjValue(cc))) < 0) return 2;
  double pos[3] = {0, 0, 0}, q[4], d[3];
  if (tb_mjNums(c, n, -1, "pos", pos, 3, 3) < 0 || tb_mjOrient(c, n, -1, q)) return 2;
  tbu_rotVec(f->pos, p->f.quat, pos);
  tbu_add3(f->pos, f->pos, p->f.pos);
  tbu_quatMul(f->quat, p->f.quat, q);
  tbu_sub3(d, f->pos, p->f.pos);
  tbu_cross3(f->vel, p->f.vel + 3, d);
  tbu_add3(f->vel, f->vel, p->f.vel);
  tbu_copy3(f->vel + 3, p->f.vel + 3);
  return 0;
}

// 1 when body element n has no joint: welded to its parent
static int tb_mjWelded(xmlNodePtr n) {
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) {
    if (tb_mjIs(k, "joint") || tb_mjIs(k, "freejoint")) return 0;
  }
  return 1;
}

// the welded body merged into the moving body b (c->merged), or -1
static int tb_mjMergedInto(const tbMj* c, xmlNodePtr n) {
  for (int i = 0; i < c->nmerged; i++) {
    if (c->merged[i].node == n) return c->merged[i].body;
  }
  return -1;
}

// A moving body with neither shapes nor an <inertial> of its own (a wrapper: MuJoCo files often
// hold a part's geoms on a welded child) takes the shapes of its welded children, and theirs, as
// its own, as MuJoCo weighs them: they join its plan (pl) in its frame (me's), the children
// become no bodies of their own (their names find it, their children hang from it). at is body
// element n's frame, whose welded children are taken. A welded child's own <inertial> is
// refused: its mass properties would have to be summed with the shapes'
static int tb_mjAdoptWelded(tbMj* c, xmlNodePtr n, const tbMjParent* at, const tbMjParent* me,
                            tbMjBodyPlan* pl) {
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) {
    if (!tb_mjIs(k, "body") || !tb_mjWelded(k)) continue;
    tbMjParent child = {.b = -1, .type = me->type};
    if (tb_mjChildFrame(c, k, at, &child.f, &child.childclass)) return 2;
    tbMjBodyPlan sub;
    memset(&sub, 0, sizeof(sub));
    int rc = tb_mjCollect(c, k, child.childclass, 0, &sub);
    if (!rc && sub.inertial) {
      rc = tb_mjFail(c, sub.inertial,
                     "an <inertial> on a body welded to a wrapper body (one with no geoms of "
                     "its own): put the inertial on the wrapper");
    }
    tbMjShape* grown = NULL;
    if (!rc && sub.nshape) {
      grown = (tbMjShape*)realloc(pl->shape, sizeof(tbMjShape) * (size_t)(pl->nshape + sub.nshape));
      if (!grown) rc = tb_mjFail(c, k, "out of memory");
      if (grown) pl->shape = grown;
    }
    // each shape from the child's frame into the wrapper's
    double qc[4], rel[4], d[3], off[3];
    tbu_quatConj(qc, me->f.quat);
    tbu_quatMul(rel, qc, child.f.quat);
    tbu_sub3(d, child.f.pos, me->f.pos);
    tbu_rotVec(off, qc, d);
    for (int i = 0; !rc && i < sub.nshape; i++) {
      tbMjShape* t = &pl->shape[pl->nshape++];
      *t = sub.shape[i];
      double pw[3], qw[4];
      tbu_rotVec(pw, rel, t->pos);
      tbu_add3(t->pos, pw, off);
      tbu_quatMul(qw, rel, t->quat);
      memcpy(t->quat, qw, sizeof(qw));
    }
    free(sub.shape);
    if (rc) return rc;
    tbMjMerged* m = (tbMjMerged*)realloc(c->merged, sizeof(tbMjMerged) * (size_t)(c->nmerged + 1));
    if (!m) return tb_mjFail(c, k, "out of memory");
    c->merged = m;
    c->merged[c->nmerged].node = k;
    c->merged[c->nmerged++].body = -1;  // the wrapper's, once it is added
    if (tb_mjAdoptWelded(c, k, &child, me, pl)) return 2;
  }
  return 0;
}

static int tb_mjBody(tbMj* c, xmlNodePtr n, const tbMjParent* p, tbMjBodyPlan* pl) {
  static const char* const tf[] = {"false", "true", NULL};
  tbMjParent me = {.b = -1};
  tbMjFrame* f = &me.f;
  if (tb_mjChildFrame(c, n, p, f, &me.childclass)) return 2;
  if ((pl->mocap = tb_mjWord(c, n, -1, "mocap", "false", tf)) < 0) return 2;
  double d[3];

  char autoname[TB_NAMELEN];
  const char* name = tb_mjName(n);
  snprintf(autoname, sizeof(autoname), "body%d", c->nbody++);
  xmlNodePtr tripod = name ? tb_mjNumeric(c, "tripod", name) : NULL;
  if (tb_mjCollect(c, n, me.childclass, tripod != NULL, pl)) return 2;
  if (c->part && c->part->kinematic_root && p->b < 0 && tb_mjCallerRoot(c, n, pl)) return 2;
  if (tb_mjBodyType(c, n, p, pl, &me.type)) return 2;
  int adopted = c->nmerged;
  if (me.type == TB_BODY_DYNAMIC && pl->nshape == 0 && !pl->inertial &&
      tb_mjAdoptWelded(c, n, &me, &me, pl))
    return 2;

  double jq[6][2] = {{0}};
  tbMjFrame f0 = *f;  // before the keyframe moves it: the joints' axes are given there
  for (int k = 0; k < pl->nj; k++) {
    if (tb_mjApplyJoint(c, &pl->joint[k], f, jq[k])) return 2;
  }

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
  int locked = tb_mjLockedBody(c, p, pl, &f0);
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
  for (int i = adopted; i < c->nmerged; i++) c->merged[i].body = b;
  if (tb_mjSite(c, n, f)) return 2;
  if (force && tb_mjNote(c, tb_mjName(force), TB_MJ_P_FORCE, b, 6, 1.0, 0)) return 2;
  if (tb_mjAddShapes(c, pl, b, &bd, f)) return 2;
  if (me.type == TB_BODY_KINEMATIC && tb_mjDriver(c, n, name, b, p->type == TB_BODY_KINEMATIC))
    return 2;
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
    for (xmlNodePtr k = n->children; k; k = k->next) {
      leaf &= !tb_mjIs(k, "body") || tb_mjMergedInto(c, k) >= 0;
    }
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
    if (tb_mjMergedInto(c, k) >= 0) {  // its shapes are its wrapper's: its children hang there
      tbMjParent at = *p;
      if (tb_mjChildFrame(c, k, p, &at.f, &at.childclass) || tb_mjSite(c, k, &at.f) ||
          tb_mjBodyTree(c, k, &at))
        return 2;
      continue;
    }
    tbMjBodyPlan pl;
    memset(&pl, 0, sizeof(pl));
    int rc = tb_mjBody(c, k, p, &pl);
    free(pl.shape);
    if (rc) return rc;
  }
  return 0;
}

// worldbody: its own geoms on a static body "world", then its bodies
int tb_mjWorld(tbMj* c, xmlNodePtr n) {
  tbMjParent w = {.b = -1, .type = TB_BODY_STATIC, .f = {.quat = {1, 0, 0, 0}}};
  tbMjBodyPlan pl;
  memset(&pl, 0, sizeof(pl));
  int rc = tb_mjCollect(c, n, 0, 0, &pl);
  if (!rc && (pl.nj || pl.inertial)) {
    rc = tb_mjFail(c, pl.nj ? pl.joint[0].node : pl.inertial, "the world has no joints or inertia");
  }
  if (!rc && pl.nshape && c->compose) {
    c->world_shapes = pl.nshape;
  } else if (!rc && pl.nshape) {
    tbBodyDef bd = tb_defaultBodyDef();
    bd.name = "world";
    bd.type = TB_BODY_STATIC;
    int b = tb_addBody(c->m, &bd);
    rc = b < 0 ? tb_mjFail(c, n, "%s", tb_lastError()) : tb_mjAddShapes(c, &pl, b, &bd, &w.f);
  }
  free(pl.shape);
  if (!rc) rc = tb_mjSite(c, n, &w.f);
  return rc ? rc : tb_mjBodyTree(c, n, &w);
}

int tb_mjFindBody(const tbMj* c, const char* name) {
  int b = tb_findBody(c->m, name);
  if (b >= c->body0) return b;
  for (int i = 0; i < c->nmerged; i++) {  // a welded body merged into its wrapper
    const char* own = tb_mjName(c->merged[i].node);
    if (own && !strcmp(own, name)) return c->merged[i].body;
  }
  return -1;
}

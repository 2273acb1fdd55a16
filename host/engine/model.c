// Model building and validation: definitions in, named parameters on them.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/implicit_geom.h"
#include "math/tb_math.h"

#include "engine/engine.h"

//---- defaults ----------------------------------------------------------------------------------

tbBodyDef tb_defaultBodyDef(void) {
  tbBodyDef d;
  memset(&d, 0, sizeof(d));
  d.name = "";
  d.type = TB_BODY_DYNAMIC;
  d.mass = 1.0;
  d.inertia[0] = d.inertia[1] = d.inertia[2] = 1.0;
  d.quat[0] = 1.0;
  return d;
}

tbGeomDef tb_defaultGeomDef(void) {
  tbGeomDef d;
  memset(&d, 0, sizeof(d));
  d.type = TB_GEOM_SPHERE;
  d.quat[0] = 1.0;
  d.mu = 0.5;
  d.contype = d.conaffinity = 1;
  d.core = INFINITY;
  d.exponent = 2.0;
  return d;
}

tbJointDef tb_defaultJointDef(void) {
  tbJointDef d;
  memset(&d, 0, sizeof(d));
  d.body_b = -1;
  d.axis[2] = 1.0;
  d.fmax = INFINITY;
  return d;
}

tbDriverDef tb_defaultDriverDef(void) {
  tbDriverDef d;
  memset(&d, 0, sizeof(d));
  d.omega = 66.0 * TB_PI;
  d.nkey = 1;
  d.key_quat[0][0] = 1.0;
  return d;
}

tbOption tb_defaultOption(void) {
  tbOption o;
  memset(&o, 0, sizeof(o));
  o.timestep = 1e-3;
  o.gravity[2] = -9.81;
  o.cone = TB_CONE_EXACT;
  o.facets = 8;
  o.margin = 1e-3;
  o.solver = TB_SOLVER_PGS;
  o.max_iter = 200;
  o.tol = 1e-8;
  o.sor = 1.0;
  o.warmstart = 1;
  return o;
}

//---- builder -----------------------------------------------------------------------------------

tbModel* tb_newModel(void) {
  tbModel* m = (tbModel*)calloc(1, sizeof(tbModel));
  if (m) m->opt = tb_defaultOption();
  return m;
}

void tb_freeModel(tbModel* m) {
  if (!m) return;
#define TB_X(type, name, count) free(m->name);
  TB_MODEL_ARRAYS(TB_X)
#undef TB_X
  free(m->bdef);
  for (int g = 0; g < m->ngeom; g++) {
    free((void*)m->gdef[g].vert);
    free((void*)m->gdef[g].hull);
  }
  free(m->gdef);
  free(m->sdef);
  free(m->exclude);
  free(m->jdef);
  free(m->ddef);
  free(m->schdef);
  free(m);
}

int tb_grow(void** arr, int* cap, int n, size_t item) {
  if (n < *cap) return 0;
  int nc = *cap ? 2 * *cap : 8;
  void* p = realloc(*arr, nc * item);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

int tb_allFinite(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

int tb_checkEditable(const tbModel* m) {
  if (m->compiled) {
    tb_setError("model: already compiled, no more objects can be added");
    return -1;
  }
  return 0;
}

int tb_excludeContact(tbModel* m, int a, int b) {
  if (tb_checkEditable(m)) return TB_ERR_STATE;
  if (a < 0 || a >= m->nbody || b < 0 || b >= m->nbody || a == b) {
    return tb_setError("exclude %d: bodies %d and %d must be two of the model's %d", m->nexclude, a,
                       b, m->nbody);
  }
  if (tb_grow((void**)&m->exclude, &m->cap_exclude, m->nexclude, 2 * sizeof(int))) {
    return TB_ERR_MEMORY;
  }
  m->exclude[2 * m->nexclude] = a;
  m->exclude[2 * m->nexclude + 1] = b;
  m->nexclude++;
  return TB_OK;
}

// a dynamic body's mass in [TB_MIN_MASS, TB_MAX_MASS] (the parameters' range) and inertia > 0
// with a finite inverse (the step takes 1/I); 0, or -1 with the error naming body nm
static int tb_checkBodyMass(const tbBodyDef* def, const char* nm) {
  if (!(def->mass >= TB_MIN_MASS && def->mass <= TB_MAX_MASS)) {
    tb_setError("body '%s': mass %g kg must be in [%g, %g] kg (tumble.h: TB_MIN_MASS)", nm,
                def->mass, TB_MIN_MASS, TB_MAX_MASS);
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    double I = def->inertia[i];
    if (!(I > 0.0) || !isfinite(I) || !isfinite(1.0 / I)) {
      tb_setError("body '%s': inertia[%d] %g must be finite and > 0, with a finite inverse", nm, i,
                  I);
      return -1;
    }
  }
  return 0;
}

// coordinates within TB_MAX_POS and a moving body's velocity within TB_MAX_SPEED, as the
// parameters x0 and vx0 take them; 0, or -1 with the error naming body nm
static int tb_checkBodyState(const tbBodyDef* def, const char* nm) {
  for (int k = 0; k < 3; k++) {
    if (!(fabs(def->pos[k]) <= TB_MAX_POS)) {
      tb_setError("body '%s': pos[%d] %g m must be in [-%g, %g] m", nm, k, def->pos[k], TB_MAX_POS,
                  TB_MAX_POS);
      return -1;
    }
  }
  for (int k = 0; k < 6 && def->type == TB_BODY_DYNAMIC; k++) {
    if (!(fabs(def->vel[k]) <= TB_MAX_SPEED)) {
      tb_setError("body '%s': vel[%d] %g %s must be in [-%g, %g]", nm, k, def->vel[k],
                  k < 3 ? "m/s" : "rad/s", TB_MAX_SPEED, TB_MAX_SPEED);
      return -1;
    }
  }
  return 0;
}

int tb_addBody(tbModel* m, const tbBodyDef* def) {
  if (tb_checkEditable(m)) return -1;
  const char* nm = def->name ? def->name : "";
  if (def->type < TB_BODY_STATIC || def->type > TB_BODY_KINEMATIC) {
    tb_setError("body '%s': type %d is not a tbtBody", nm, def->type);
    return -1;
  }
  if (strlen(nm) >= TB_NAMELEN) {
    tb_setError("body '%s': name longer than %d characters", nm, TB_NAMELEN - 1);
    return -1;
  }
  if (def->type == TB_BODY_DYNAMIC && tb_checkBodyMass(def, nm)) return -1;
  if (!tb_allFinite(def->pos, 3) || !tb_allFinite(def->quat, 4) || !tb_allFinite(def->vel, 6) ||
      !tb_allFinite(def->force, 6)) {
    tb_setError("body '%s': pos, quat, vel and force must be finite", nm);
    return -1;
  }
  if (tb_checkBodyState(def, nm)) return -1;
  if (def->quat[0] == 0.0 && def->quat[1] == 0.0 && def->quat[2] == 0.0 && def->quat[3] == 0.0) {
    tb_setError("body '%s': quat is zero", nm);
    return -1;
  }
  if (tb_findBody(m, nm) >= 0 && nm[0]) {
    tb_setError("body '%s': name already used", nm);
    return -1;
  }
  if (tb_grow((void**)&m->bdef, &m->cap_body, m->nbody, sizeof(tbBodyDef))) return -1;
  tbBodyDef* b = &m->bdef[m->nbody];
  *b = *def;
  b->name = NULL;  // the caller's string may not outlive the model; body_name keeps a copy
  tbu_quatNormalizeScaled(b->quat);
  char(*names)[TB_NAMELEN] = realloc(m->body_name, (m->nbody + 1) * TB_NAMELEN);
  if (!names) return -1;
  m->body_name = names;
  snprintf(m->body_name[m->nbody], TB_NAMELEN, "%s", nm);
  return m->nbody++;
}

int tb_checkJointLimits(int j, int type, double lo, double hi) {
  if (type == TB_JOINT_SPHERICAL && !(lo == 0.0 && hi > 0.0 && hi <= TB_PI)) {
    return tb_setError(
        "joint %d: spherical limits lo %g, hi %g: lo is 0 and hi the cone angle in (0, pi]", j, lo,
        hi);
  }
  if (!(lo <= hi)) return tb_setError("joint %d: limits lo %g > hi %g", j, lo, hi);
  return TB_OK;
}

int tb_checkSceneJointLimits(const tbModel* m, const double* vary) {
  for (int j = 0; j < m->njnt; j++) {
    const double* prm = tb_varyOf(m, vary, TB_F_JOINT, j);
    if (m->jnt_limited[j] &&
        tb_checkJointLimits(j, m->jnt_type[j], prm[TB_JNT_LO], prm[TB_JNT_HI]) != TB_OK)
      return TB_ERR_ARG;
  }
  return TB_OK;
}

// a compliant constraint's stiffness and damping (tbGeomDef, tbJointDef): finite and >= 0
static int tb_checkCompliance(const char* what, int k, double stiffness, double damping) {
  if (!(stiffness >= 0.0) || !isfinite(stiffness) || !(damping >= 0.0) || !isfinite(damping)) {
    tb_setError("%s %d: stiffness %g and damping %g must be finite and >= 0", what, k, stiffness,
                damping);
    return -1;
  }
  return 0;
}

// a shape's half-spaces (tbGeomDef clip): at most TB_MAXCLIP, finite, n nonzero, on a bounded
// shape, each leaving part of it (d above the least n . y over the uncut shape)
static int tb_checkClips(const tbGeomDef* def, int g) {
  if (def->nclip < 0 || def->nclip > TB_MAXCLIP) {
    return tb_setError("geom %d: nclip %d must be in [0, %d]", g, def->nclip, TB_MAXCLIP);
  }
  if (def->nclip > 0 && def->type == TB_GEOM_PLANE) {
    return tb_setError("geom %d: a plane takes no clip half-spaces", g);
  }
  for (int k = 0; k < def->nclip; k++) {
    const double* c = def->clip[k];
    double n = tbu_norm3(c);
    if (!tb_allFinite(c, 4) || !(n > 0.0)) {
      return tb_setError("geom %d: clip %d: n must be finite and nonzero, d finite", g, k);
    }
    if (def->type == TB_GEOM_PRISM && def->nvert != 1) continue;  // (no implicit function)
    tbGeomPose gp;
    tbg_framePose(&gp, def->type, def->size, def->exponent, def->vert);
    double dir[3], low[3];
    for (int i = 0; i < 3; i++) dir[i] = -c[i] / n;
    tbg_implicitSupport(&gp, dir, 0.0, low);
    double least = -tbu_dot3(dir, low), size = fmax(def->size[0], fmax(def->size[1], def->size[2]));
    if (!(c[3] / n - least > 1e-9 * size)) {  // (a sliver of rounding is nothing)
      return tb_setError("geom %d: clip %d (n . y <= %g) leaves nothing of the shape", g, k,
                         c[3] / n);
    }
  }
  return 0;
}

int tb_addGeom(tbModel* m, const tbGeomDef* def) {
  if (tb_checkEditable(m)) return -1;
  int g = m->ngeom;
  if (def->body < 0 || def->body >= m->nbody) {
    tb_setError("geom %d: body %d does not exist", g, def->body);
    return -1;
  }
  if (def->type < 0 || def->type >= TB_NGEOMTYPE) {
    tb_setError("geom %d: type %d is not a shape type", g, def->type);
    return -1;
  }
  if (!tb_allFinite(def->size, 3) || !tb_allFinite(def->pos, 3) || !tb_allFinite(def->quat, 4)) {
    tb_setError("geom %d: size, pos and quat must be finite", g);
    return -1;
  }
  if (def->type == TB_GEOM_PRISM && tb_checkPrismDef(m, def, g)) return -1;
  if (def->type == TB_GEOM_MESH && tb_checkHullDef(def->hull, g)) return -1;
  int two = def->type == TB_GEOM_CAPSULE || def->type == TB_GEOM_CYLINDER;
  int nsize = def->type == TB_GEOM_SPHERE ? 1 : two ? 2 : 3;
  int sized = def->type != TB_GEOM_PLANE && def->type != TB_GEOM_PRISM && def->type != TB_GEOM_MESH;
  for (int i = 0; i < nsize && sized; i++) {
    int zero_ok = def->type == TB_GEOM_SPHERE || (def->type == TB_GEOM_CAPSULE && i == 1);
    // at most TB_MAX_POS, as a parameter size takes it
    if (def->size[i] < 0.0 || (!zero_ok && def->size[i] == 0.0) || def->size[i] > TB_MAX_POS) {
      tb_setError("geom %d: size[%d] = %g must be %s and <= %g m", g, i, def->size[i],
                  zero_ok ? ">= 0" : "> 0", TB_MAX_POS);
      return -1;
    }
  }
  if (!(def->mu >= 0.0) || !isfinite(def->mu)) {
    tb_setError("geom %d: mu %g must be finite and >= 0", g, def->mu);
    return -1;
  }
  if (!(def->restitution >= 0.0 && def->restitution <= 1.0)) {
    tb_setError("geom %d: restitution %g must be in [0, 1]", g, def->restitution);
    return -1;
  }
  if (tb_checkCompliance("geom", g, def->stiffness, def->damping)) return -1;
  if (!(def->torsion >= 0.0) || !isfinite(def->torsion) || !(def->core > 0.0)) {
    tb_setError("geom %d: torsion %g must be finite and >= 0, core %g > 0", g, def->torsion,
                def->core);
    return -1;
  }
  int super = def->type == TB_GEOM_SUPERELLIPSOID;
  if (super ? !(def->exponent >= 2.0 && def->exponent <= 64.0) : def->exponent != 2.0) {
    tb_setError("geom %d: exponent %g: %s", g, def->exponent,
                super ? "a superellipsoid's is in [2, 64]" : "a superellipsoid's only (2 else)");
    return -1;
  }
  if (tb_checkClips(def, g)) return -1;
  if (def->type == TB_GEOM_PLANE && m->bdef[def->body].type == TB_BODY_DYNAMIC) {
    tb_setError("geom %d: a plane (half-space) cannot belong to a dynamic body", g);
    return -1;
  }
  double* vert = NULL;  // the caller's vertices may not outlive the model: keep a copy
  if (def->type == TB_GEOM_PRISM) {
    vert = malloc(sizeof(double) * 2 * def->nvert);
    if (!vert) return -1;
    memcpy(vert, def->vert, sizeof(double) * 2 * def->nvert);
  }
  tbHullDef* hull = def->type == TB_GEOM_MESH ? tb_copyHullDef(def->hull) : NULL;
  if ((def->type == TB_GEOM_MESH && !hull) ||
      tb_grow((void**)&m->gdef, &m->cap_geom, m->ngeom, sizeof(tbGeomDef))) {
    free(vert);
    free(hull);
    return -1;
  }
  m->gdef[g] = *def;
  m->gdef[g].hull = hull;
  for (int k = 0; k < def->nclip; k++) {
    double* c = m->gdef[g].clip[k];
    c[3] /= tbu_normalize3(c);
  }
  m->gdef[g].vert = vert;
  m->gdef[g].nvert = vert ? def->nvert : 0;
  tbu_quatNormalizeScaled(m->gdef[g].quat);
  return m->ngeom++;
}

// a minimal-coordinate joint: its coordinates, a parent that comes first and does not move by a
// driver, one parent per child, and a child whose world DoFs the tree owns (no locks)
static int tb_checkMinimal(const tbModel* m, const tbJointDef* def, int j) {
  if (def->type == TB_JOINT_FIXED) {
    return tb_setError("joint %d: minimal coordinates take revolute, prismatic or spherical joints",
                       j);
  }
  if (def->type == TB_JOINT_SPHERICAL && (def->q0 != 0.0 || def->qd0 != 0.0)) {
    return tb_setError(
        "joint %d: q0 %g, qd0 %g: a minimal spherical joint starts at its bodies' orientation "
        "and angular velocity (body quat, vel), not at a scalar coordinate",
        j, def->q0, def->qd0);
  }
  if (def->body_b >= def->body_a) {
    return tb_setError(
        "joint %d: minimal joint's parent body_b %d must be added before its child "
        "body_a %d (or be -1, the world)",
        j, def->body_b, def->body_a);
  }
  if (def->body_b >= 0 && m->bdef[def->body_b].type == TB_BODY_KINEMATIC) {
    return tb_setError(
        "joint %d: minimal joint's parent body_b %d is kinematic; attach the tree "
        "to a static or dynamic body",
        j, def->body_b);
  }
  if (m->bdef[def->body_a].lock) {
    return tb_setError(
        "joint %d: body_a %d of a minimal joint has locks; its motion is the "
        "joint's",
        j, def->body_a);
  }
  if (def->stiffness != 0.0 || def->damping != 0.0) {
    return tb_setError(
        "joint %d: stiffness/damping soften a joint's constraint rows; a minimal "
        "joint has none (use coord_damping, a servo or limits)",
        j);
  }
  if (!isfinite(def->q0) || !isfinite(def->qd0)) {
    return tb_setError("joint %d: q0 %g and qd0 %g must be finite", j, def->q0, def->qd0);
  }
  for (int i = 0; i < m->njnt; i++) {
    if (m->jdef[i].minimal && m->jdef[i].body_a == def->body_a) {
      return tb_setError("joint %d: body_a %d already has a minimal joint (%d) to its parent", j,
                         def->body_a, i);
    }
  }
  return 0;
}

int tb_addJoint(tbModel* m, const tbJointDef* def) {
  if (tb_checkEditable(m)) return -1;
  int j = m->njnt;
  if (def->type < TB_JOINT_REVOLUTE || def->type > TB_JOINT_FIXED) {
    tb_setError("joint %d: type %d is not a tbtJoint", j, def->type);
    return -1;
  }
  if (def->body_a < 0 || def->body_a >= m->nbody || m->bdef[def->body_a].type != TB_BODY_DYNAMIC) {
    tb_setError("joint %d: body_a %d must be a dynamic body", j, def->body_a);
    return -1;
  }
  if (def->body_b < -1 || def->body_b >= m->nbody || def->body_b == def->body_a) {
    tb_setError("joint %d: body_b %d must be another body or -1 (world)", j, def->body_b);
    return -1;
  }
  double ax[3] = {def->axis[0], def->axis[1], def->axis[2]};
  if (!tb_allFinite(def->anchor, 3) || !tb_allFinite(ax, 3) || !(tbu_norm3(ax) > 0.0)) {
    tb_setError("joint %d: anchor must be finite and axis finite and nonzero", j);
    return -1;
  }
  if (def->limited && tb_checkJointLimits(j, def->type, def->lo, def->hi)) return -1;
  if (tb_checkCompliance("joint", j, def->stiffness, def->damping)) return -1;
  if (def->servo) {
    if (!(def->kp >= 0.0) || !(def->kd >= 0.0) || !(def->kp + def->kd > 0.0) ||
        !isfinite(def->kp) || !isfinite(def->kd)) {
      tb_setError("joint %d: servo gains kp %g, kd %g must be finite, >= 0, not both 0", j, def->kp,
                  def->kd);
      return -1;
    }
    if (!(def->fmax > 0.0)) {
      tb_setError("joint %d: servo fmax %g must be > 0", j, def->fmax);
      return -1;
    }
  }
  if (!isfinite(def->drive) || !isfinite(def->target_pos) || !isfinite(def->target_vel)) {
    tb_setError("joint %d: drive and servo targets must be finite", j);
    return -1;
  }
  if (def->drive != 0.0 && def->type != TB_JOINT_PRISMATIC) {
    tb_setError("joint %d: a constant-force drive needs a prismatic joint", j);
    return -1;
  }
  int coord = def->type == TB_JOINT_REVOLUTE || def->type == TB_JOINT_PRISMATIC;
  if ((def->limited && !coord && def->type != TB_JOINT_SPHERICAL) || (def->servo && !coord)) {
    tb_setError(
        "joint %d: limited %d, servo %d: a servo acts on a revolute or prismatic joint's "
        "coordinate, limits on that or a spherical joint's angle",
        j, def->limited, def->servo);
    return -1;
  }
  if (def->coord_damping != 0.0 && !coord && !(def->minimal && def->type == TB_JOINT_SPHERICAL)) {
    tb_setError(
        "joint %d: coord_damping %g damps a revolute or prismatic joint's coordinate or a minimal "
        "spherical joint's rates",
        j, def->coord_damping);
    return -1;
  }
  if (!(def->coord_damping >= 0.0) || !isfinite(def->coord_damping)) {
    tb_setError("joint %d: coord_damping %g must be finite and >= 0", j, def->coord_damping);
    return -1;
  }
  if (!(def->armature >= 0.0) || !isfinite(def->armature)) {
    tb_setError("joint %d: armature %g must be finite and >= 0", j, def->armature);
    return -1;
  }
  if (def->armature != 0.0 && !def->minimal) {
    tb_setError(
        "joint %d: armature %g is inertia on a joint's coordinates: a minimal joint's (a "
        "maximal joint has rows, not coordinates)",
        j, def->armature);
    return -1;
  }
  if (def->minimal && tb_checkMinimal(m, def, j)) return -1;
  if (!def->minimal && (def->q0 != 0.0 || def->qd0 != 0.0)) {
    tb_setError(
        "joint %d: q0, qd0 set a minimal joint's start; a maximal joint starts at its "
        "bodies' pose and velocity",
        j);
    return -1;
  }
  if (tb_grow((void**)&m->jdef, &m->cap_jnt, m->njnt, sizeof(tbJointDef))) return -1;
  m->jdef[j] = *def;
  return m->njnt++;
}

int tb_addDriver(tbModel* m, const tbDriverDef* def) {
  if (tb_checkEditable(m)) return -1;
  int k = m->ndriver;
  if (def->body < 0 || def->body >= m->nbody || m->bdef[def->body].type != TB_BODY_KINEMATIC) {
    tb_setError("driver %d: body %d must be a kinematic body", k, def->body);
    return -1;
  }
  for (int i = 0; i < k; i++) {
    if (m->ddef[i].body == def->body) {
      tb_setError("driver %d: body %d already has a driver", k, def->body);
      return -1;
    }
  }
  if (def->type < TB_DRIVER_PLATE || def->type > TB_DRIVER_ROCKING) {
    tb_setError("driver %d: type %d is not a tbtDriver", k, def->type);
    return -1;
  }
  if (!tb_allFinite(def->amp, 6) || !tb_allFinite(def->phase, 6) || !tb_allFinite(def->vel, 6)) {
    tb_setError("driver %d: amplitudes, phases and velocities must be finite", k);
    return -1;
  }
  if (def->type == TB_DRIVER_PLATE && !(def->omega > 0.0 && isfinite(def->omega))) {
    tb_setError("driver %d: omega %g must be finite and > 0", k, def->omega);
    return -1;
  }
  if (def->type == TB_DRIVER_KEYFRAMES) {
    if (def->nkey < 1 || def->nkey > TB_MAXKEY) {
      tb_setError("driver %d: nkey %d must be in [1, %d]", k, def->nkey, TB_MAXKEY);
      return -1;
    }
    for (int i = 0; i < def->nkey; i++) {
      if (!isfinite(def->key_t[i]) || (i > 0 && !(def->key_t[i] > def->key_t[i - 1]))) {
        tb_setError("driver %d: key_t[%d] = %g must be finite and increasing", k, i, def->key_t[i]);
        return -1;
      }
      if (!tb_allFinite(def->key_pos[i], 3) || !tb_allFinite(def->key_quat[i], 4)) {
        tb_setError("driver %d: keyframe %d pose must be finite", k, i);
        return -1;
      }
    }
  }
  if (tb_grow((void**)&m->ddef, &m->cap_driver, m->ndriver, sizeof(tbDriverDef))) return -1;
  m->ddef[k] = *def;
  return m->ndriver++;
}

//---- parameters --------------------------------------------------------------------------------

int tb_addParam(tbModel* m, const char* name, const char* unit, const char* doc, double lo,
                double hi, int lo_open) {
  if (tb_checkEditable(m)) return -1;
  if (!name || !name[0] || strlen(name) >= TB_NAMELEN || tb_findParam(m, name) >= 0) {
    tb_setError("param '%s': name empty, too long or already used", name ? name : "");
    return -1;
  }
  if (tb_grow((void**)&m->param, &m->cap_param, m->nparam, sizeof(tbParam))) return -1;
  tbParam* p = &m->param[m->nparam];
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "%s", name);
  snprintf(p->unit, sizeof(p->unit), "%s", unit ? unit : "");
  snprintf(p->doc, sizeof(p->doc), "%s", doc ? doc : "");
  p->lo = lo;
  p->hi = hi;
  p->lo_open = lo_open;
  return m->nparam++;
}

int tb_paramTargetScaled(tbModel* m, int p, int field, int object, int component, double scale) {
  if (tb_checkEditable(m)) return -1;
  if (p < 0 || p >= m->nparam || m->param[p].ntarget >= TB_MAXTARGET) {
    tb_setError("param %d: does not exist or has %d targets already", p, TB_MAXTARGET);
    return -1;
  }
  if (field < 0 || field >= TB_NFIELD || object < 0 || object >= (1 << 21) || component < 0 ||
      component >= 32 || !(scale != 0.0) || !isfinite(scale)) {
    tb_setError("param '%s': target (%d, %d, %d) x %g is invalid", m->param[p].name, field, object,
                component, scale);
    return -1;
  }
  // targets are resolved at compile, once the vary layout is known; encode them for now
  tbParam* prm = &m->param[p];
  prm->scale[prm->ntarget] = scale;
  prm->target[prm->ntarget++] = (field << 26) | (object << 5) | component;
  return 0;
}

int tb_paramTarget(tbModel* m, int p, int field, int object, int component) {
  return tb_paramTargetScaled(m, p, field, object, component, 1.0);
}

int tb_findParam(const tbModel* m, const char* name) {
  for (int i = 0; i < m->nparam; i++) {
    if (!strcmp(m->param[i].name, name)) return i;
  }
  return -1;
}

int tb_findBody(const tbModel* m, const char* name) {
  for (int i = 0; i < m->nbody; i++) {
    if (!strcmp(m->body_name[i], name)) return i;
  }
  return -1;
}

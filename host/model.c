// Model building, validation and compilation: definitions in, a const tbModel out.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/implicit_geom.h>
#include <tumble/tb_math.h>

#include "engine.h"

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
  for (int g = 0; g < m->ngeom; g++) free((void*)m->gdef[g].vert);
  free(m->gdef);
  free(m->sdef);
  free(m->jdef);
  free(m->ddef);
  free(m);
}

// grow a builder array to hold n + 1 items
static int tb_grow(void** arr, int* cap, int n, size_t item) {
  if (n < *cap) return 0;
  int nc = *cap ? 2 * *cap : 8;
  void* p = realloc(*arr, nc * item);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

static int tb_finite(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

static int tb_checkEditable(const tbModel* m) {
  if (m->compiled) {
    tb_setError("model: already compiled, no more objects can be added");
    return -1;
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
  if (def->type == TB_BODY_DYNAMIC) {
    if (!(def->mass > 0.0) || !isfinite(def->mass)) {
      tb_setError("body '%s': mass %g must be finite and > 0", nm, def->mass);
      return -1;
    }
    for (int i = 0; i < 3; i++) {
      if (!(def->inertia[i] > 0.0) || !isfinite(def->inertia[i])) {
        tb_setError("body '%s': inertia[%d] %g must be finite and > 0", nm, i, def->inertia[i]);
        return -1;
      }
    }
  }
  if (!tb_finite(def->pos, 3) || !tb_finite(def->quat, 4) || !tb_finite(def->vel, 6) ||
      !tb_finite(def->force, 6)) {
    tb_setError("body '%s': pos, quat, vel and force must be finite", nm);
    return -1;
  }
  double qn = sqrt(tbu_dot3(def->quat + 1, def->quat + 1) + def->quat[0] * def->quat[0]);
  if (!(qn > 0.0)) {
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
  tbu_quatNormalize(b->quat);
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
    if (!tb_finite(c, 4) || !(n > 0.0)) {
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
  if (!tb_finite(def->size, 3) || !tb_finite(def->pos, 3) || !tb_finite(def->quat, 4)) {
    tb_setError("geom %d: size, pos and quat must be finite", g);
    return -1;
  }
  if (def->type == TB_GEOM_PRISM && tb_checkPrismDef(m, def, g)) return -1;
  int two = def->type == TB_GEOM_CAPSULE || def->type == TB_GEOM_CYLINDER;
  int nsize = def->type == TB_GEOM_SPHERE ? 1 : two ? 2 : 3;
  int sized = def->type != TB_GEOM_PLANE && def->type != TB_GEOM_PRISM;
  for (int i = 0; i < nsize && sized; i++) {
    int zero_ok = def->type == TB_GEOM_SPHERE || (def->type == TB_GEOM_CAPSULE && i == 1);
    if (def->size[i] < 0.0 || (!zero_ok && def->size[i] == 0.0)) {
      tb_setError("geom %d: size[%d] = %g must be %s", g, i, def->size[i],
                  zero_ok ? ">= 0" : "> 0");
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
  if (tb_grow((void**)&m->gdef, &m->cap_geom, m->ngeom, sizeof(tbGeomDef))) {
    free(vert);
    return -1;
  }
  m->gdef[g] = *def;
  for (int k = 0; k < def->nclip; k++) {
    double* c = m->gdef[g].clip[k];
    c[3] /= tbu_normalize3(c);
  }
  m->gdef[g].vert = vert;
  m->gdef[g].nvert = vert ? def->nvert : 0;
  tbu_quatNormalize(m->gdef[g].quat);
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
  if (!tb_finite(def->anchor, 3) || !tb_finite(ax, 3) || !(tbu_norm3(ax) > 0.0)) {
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
  if (!tb_finite(def->amp, 6) || !tb_finite(def->phase, 6) || !tb_finite(def->vel, 6)) {
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
      if (!tb_finite(def->key_pos[i], 3) || !tb_finite(def->key_quat[i], 4)) {
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

static int tb_fieldWidth(int field) {
  static const int width[TB_NFIELD] = {
      1, 3, 3, 4, 6, 6, 1, 1, 3, TB_DRV_NPRM, TB_JNT_NPRM, TB_OPT_NPRM, TB_SUP_NPRM, 2, 3};
  return width[field];
}

static int tb_fieldCount(const tbModel* m, int field) {
  switch (field) {
    case TB_F_GEOM_MU:
    case TB_F_GEOM_REST:
    case TB_F_GEOM_SIZE:
    case TB_F_GEOM_SOFT:
    case TB_F_GEOM_IMPLICIT:
      return m->ngeom;
    case TB_F_DRIVER:
      return m->ndriver;
    case TB_F_JOINT:
      return m->njnt;
    case TB_F_OPT:
      return 1;
    case TB_F_SUPPORT:
      return m->nsupport;
    default:
      return m->nbody;
  }
}

int tb_varyIndex(const tbModel* m, int field, int object, int component) {
  if (field < 0 || field >= TB_NFIELD || object < 0 || object >= tb_fieldCount(m, field) ||
      component < 0 || component >= tb_fieldWidth(field)) {
    return -1;
  }
  return m->vary_adr[field] + object * tb_fieldWidth(field) + component;
}

//---- compile -----------------------------------------------------------------------------------

#define TB_ALLOC(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof(*(ptr)))) == NULL

static int tb_compileBodies(tbModel* m) {
  if (TB_ALLOC(m->body_type, m->nbody) || TB_ALLOC(m->body_lock, m->nbody) ||
      TB_ALLOC(m->body_driver, m->nbody)) {
    return TB_ERR_MEMORY;
  }
  for (int b = 0; b < m->nbody; b++) {
    m->body_type[b] = m->bdef[b].type;
    m->body_lock[b] = m->bdef[b].lock;
    m->body_driver[b] = -1;
  }
  return TB_OK;
}

static int tb_compileGeoms(tbModel* m) {
  if (TB_ALLOC(m->geom_type, m->ngeom) || TB_ALLOC(m->geom_body, m->ngeom) ||
      TB_ALLOC(m->geom_pos, 3 * m->ngeom) || TB_ALLOC(m->geom_quat, 4 * m->ngeom)) {
    return TB_ERR_MEMORY;
  }
  if (TB_ALLOC(m->geom_nclip, m->ngeom) || TB_ALLOC(m->geom_clip, TB_MAXCLIP * 4 * m->ngeom)) {
    return TB_ERR_MEMORY;
  }
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_type[g] = m->gdef[g].type;
    m->geom_body[g] = m->gdef[g].body;
    memcpy(m->geom_pos + 3 * g, m->gdef[g].pos, sizeof(double) * 3);
    memcpy(m->geom_quat + 4 * g, m->gdef[g].quat, sizeof(double) * 4);
    m->geom_nclip[g] = m->gdef[g].nclip;
    memcpy(m->geom_clip + TB_MAXCLIP * 4 * g, m->gdef[g].clip, sizeof(m->gdef[g].clip));
  }
  return TB_OK;
}

// joint frames: axes in each body's frame at the initial pose (the anchors are per-scene values,
// tb_jointAnchors)
static int tb_compileJoints(tbModel* m) {
  if (TB_ALLOC(m->jnt_type, m->njnt) || TB_ALLOC(m->jnt_body, 2 * m->njnt) ||
      TB_ALLOC(m->jnt_axis, 6 * m->njnt) || TB_ALLOC(m->jnt_qrel, 4 * m->njnt) ||
      TB_ALLOC(m->jnt_limited, m->njnt) || TB_ALLOC(m->jnt_servo, m->njnt)) {
    return TB_ERR_MEMORY;
  }
  for (int j = 0; j < m->njnt; j++) {
    const tbJointDef* jd = &m->jdef[j];
    m->jnt_type[j] = jd->type;
    m->jnt_limited[j] = jd->limited;
    m->jnt_servo[j] = jd->servo;
    double axis[3] = {jd->axis[0], jd->axis[1], jd->axis[2]};
    tbu_normalize3(axis);
    double qb[4] = {1, 0, 0, 0}, qbc[4], qrel[4];
    for (int side = 0; side < 2; side++) {
      int b = side ? jd->body_b : jd->body_a;
      m->jnt_body[2 * j + side] = b;
      double* ax = m->jnt_axis + 6 * j + 3 * side;
      if (b < 0) {
        tbu_copy3(ax, axis);
      } else {
        tbu_rotVecInv(ax, m->bdef[b].quat, axis);
      }
    }
    if (jd->body_b >= 0) memcpy(qb, m->bdef[jd->body_b].quat, sizeof(qb));
    tbu_quatConj(qbc, qb);
    tbu_quatMul(qrel, qbc, m->bdef[jd->body_a].quat);
    memcpy(m->jnt_qrel + 4 * j, qrel, sizeof(qrel));
  }
  return TB_OK;
}

// the tree of minimal joints: each body's parent and joint, and the generalized velocities (a
// root's unlocked world DoFs, a tree body's joint rates), bodies in order (parents first). A model
// without minimal joints has none: its step is the maximal-coordinate one.
static int tb_compileTree(tbModel* m) {
  if (TB_ALLOC(m->body_parent, m->nbody) || TB_ALLOC(m->body_pjnt, m->nbody) ||
      TB_ALLOC(m->body_dofadr, m->nbody) || TB_ALLOC(m->body_dofnum, m->nbody) ||
      TB_ALLOC(m->jnt_qadr, m->njnt) || TB_ALLOC(m->jnt_qdadr, m->njnt)) {
    return TB_ERR_MEMORY;
  }
  m->nq = m->nqd = 0;
  for (int b = 0; b < m->nbody; b++) m->body_parent[b] = m->body_pjnt[b] = -1;
  for (int j = 0; j < m->njnt; j++) {
    m->jnt_qadr[j] = m->jnt_qdadr[j] = -1;
    if (!m->jdef[j].minimal) continue;
    int a = m->jdef[j].body_a, ball = m->jdef[j].type == TB_JOINT_SPHERICAL;
    m->jnt_qadr[j] = m->nq;
    m->jnt_qdadr[j] = m->nqd;
    m->nq += ball ? 4 : 1;
    m->nqd += ball ? 3 : 1;
    m->body_pjnt[a] = j;
    int p = m->jdef[j].body_b;
    m->body_parent[a] = p >= 0 && m->body_type[p] == TB_BODY_DYNAMIC ? p : -1;
  }
  int n = 0;
  for (int b = 0; b < m->nbody && m->nq > 0; b++) {
    m->body_dofadr[b] = n;
    if (m->body_type[b] != TB_BODY_DYNAMIC) continue;
    int j = m->body_pjnt[b], k = 0;
    for (int ax = 0; ax < 6; ax++) k += j < 0 && !(m->body_lock[b] & (1 << ax));
    m->body_dofnum[b] = j < 0 ? k : m->jdef[j].type == TB_JOINT_SPHERICAL ? 3 : 1;
    n += m->body_dofnum[b];
  }
  m->ndof = n;
  if (TB_ALLOC(m->dof_body, n) || TB_ALLOC(m->dof_axis, n)) return TB_ERR_MEMORY;
  for (int b = 0; b < m->nbody && n > 0; b++) {
    int k = m->body_dofadr[b];
    if (m->body_pjnt[b] >= 0) {
      int ball = m->body_dofnum[b] == 3;
      for (int i = 0; i < m->body_dofnum[b]; i++) {
        m->dof_body[k + i] = b;
        m->dof_axis[k + i] = ball ? 7 + i : 6;
      }
      continue;
    }
    for (int ax = 0; ax < 6 && m->body_dofnum[b] > 0; ax++) {
      if (m->body_lock[b] & (1 << ax)) continue;
      m->dof_body[k] = b;
      m->dof_axis[k++] = ax;
    }
  }
  return TB_OK;
}

static int tb_compileDrivers(tbModel* m) {
  if (TB_ALLOC(m->drv_type, m->ndriver) || TB_ALLOC(m->drv_body, m->ndriver) ||
      TB_ALLOC(m->drv_nkey, m->ndriver) || TB_ALLOC(m->drv_key, m->ndriver * TB_MAXKEY * 8)) {
    return TB_ERR_MEMORY;
  }
  for (int k = 0; k < m->ndriver; k++) {
    const tbDriverDef* dd = &m->ddef[k];
    m->drv_type[k] = dd->type;
    m->drv_body[k] = dd->body;
    m->drv_nkey[k] = dd->nkey;
    m->body_driver[dd->body] = k;
    for (int i = 0; i < dd->nkey; i++) {
      double* key = m->drv_key + (k * TB_MAXKEY + i) * 8;
      key[0] = dd->key_t[i];
      memcpy(key + 1, dd->key_pos[i], sizeof(double) * 3);
      memcpy(key + 4, dd->key_quat[i], sizeof(double) * 4);
      tbu_quatNormalize(key + 4);
    }
  }
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_type[b] == TB_BODY_KINEMATIC && m->body_driver[b] < 0) {
      return tb_setError("body '%s': kinematic but has no driver", m->body_name[b]);
    }
  }
  return TB_OK;
}

// whether a joint connects bodies b1 and b2 (their shapes overlap by design)
static int tb_jointed(const tbModel* m, int b1, int b2) {
  for (int j = 0; j < m->njnt; j++) {
    int a = m->jdef[j].body_a, b = m->jdef[j].body_b;
    if ((a == b1 && b == b2) || (a == b2 && b == b1)) return 1;
  }
  return 0;
}

// shape pairs that can touch: different bodies not joined by a joint, at least one dynamic
static int tb_compilePairs(tbModel* m) {
  int n = 0;
  for (int pass = 0; pass < 2; pass++) {
    n = 0;
    for (int g1 = 0; g1 < m->ngeom; g1++) {
      for (int g2 = g1 + 1; g2 < m->ngeom; g2++) {
        int b1 = m->geom_body[g1], b2 = m->geom_body[g2];
        if (b1 == b2) continue;
        if (m->body_type[b1] != TB_BODY_DYNAMIC && m->body_type[b2] != TB_BODY_DYNAMIC) continue;
        if (tb_jointed(m, b1, b2)) continue;
        const tbGeomDef *d1 = &m->gdef[g1], *d2 = &m->gdef[g2];
        if (!(d1->contype & d2->conaffinity) && !(d2->contype & d1->conaffinity)) continue;
        if (m->opt.implicit) {  // one contact per pair, the closest points (plane-plane: none)
          if (m->geom_type[g1] == TB_GEOM_PLANE && m->geom_type[g2] == TB_GEOM_PLANE) continue;
          if (pass) {
            m->pair_geom[2 * n] = g1;
            m->pair_geom[2 * n + 1] = g2;
            m->pair_maxcon[n] = 1;
          }
          n++;
          continue;
        }
        if ((m->geom_type[g1] == TB_GEOM_PRISM) != (m->geom_type[g2] == TB_GEOM_PRISM)) {
          return tb_setError(
              "geoms %d and %d: a prism only touches prisms; keep them apart with contype and "
              "conaffinity",
              g1, g2);
        }
        int maxc = tb_cornerPair(m, g1, g2) ? 2 + 2 * TB_CORNER2D_MAX
                                            : tbu_collideMax(m->geom_type[g1], m->geom_type[g2]);
        if (maxc == 0) continue;
        if (pass) {
          m->pair_geom[2 * n] = g1;
          m->pair_geom[2 * n + 1] = g2;
          m->pair_maxcon[n] = maxc;
        }
        n++;
      }
    }
    if (!pass && (TB_ALLOC(m->pair_geom, 2 * n) || TB_ALLOC(m->pair_maxcon, n))) {
      return TB_ERR_MEMORY;
    }
  }
  m->npair = n;
  int bound = 0;
  for (int p = 0; p < n; p++) bound += m->pair_maxcon[p];
  if (m->opt.maxcon < 0) return tb_setError("option maxcon %d must be >= 0", m->opt.maxcon);
  m->maxcon = m->opt.maxcon > 0 ? m->opt.maxcon : bound;
  return TB_OK;
}

// a joint's bilateral rows (none for a minimal joint)
static int tb_jointEqRows(const tbModel* m, int j) {
  if (m->jnt_qadr[j] >= 0) return 0;
  return m->jnt_type[j] == TB_JOINT_SPHERICAL ? 3 : m->jnt_type[j] == TB_JOINT_FIXED ? 6 : 5;
}

// a maximal revolute or prismatic joint's row of coordinate damping
static int tb_jointDampRows(const tbModel* m, int j) {
  int coord = m->jnt_type[j] == TB_JOINT_REVOLUTE || m->jnt_type[j] == TB_JOINT_PRISMATIC;
  return coord && m->jnt_qadr[j] < 0;
}

// rows of the joints that can be equalities: their bilateral rows
static int tb_eqRowCapacity(const tbModel* m) {
  int rows = 0;
  for (int j = 0; j < m->njnt; j++) rows += tb_jointEqRows(m, j);
  return rows;
}

// rows per joint: bilateral rows, 2 limit rows, 1 servo row, 1 damping row
static int tb_jointRowCapacity(const tbModel* m) {
  int rows = 0;
  for (int j = 0; j < m->njnt; j++)
    rows += tb_jointEqRows(m, j) + 2 * m->jnt_limited[j] + m->jnt_servo[j] + tb_jointDampRows(m, j);
  return rows;
}

static void tb_setVary(tbModel* m, int field, int object, const double* v) {
  memcpy(m->vary0 + tb_varyIndex(m, field, object, 0), v, sizeof(double) * tb_fieldWidth(field));
}

// a joint's world anchor in body_a's frame, then in body_b's (world for -1), at the initial pose
static void tb_jointAnchors(const tbModel* m, const tbJointDef* jd, double anc[6]) {
  for (int side = 0; side < 2; side++) {
    int b = side ? jd->body_b : jd->body_a;
    if (b < 0) {
      tbu_copy3(anc + 3 * side, jd->anchor);
    } else {
      double d[3];
      tbu_sub3(d, jd->anchor, m->bdef[b].pos);
      tbu_rotVecInv(anc + 3 * side, m->bdef[b].quat, d);
    }
  }
}

static int tb_compileVary(tbModel* m) {
  int n = 0;
  for (int f = 0; f < TB_NFIELD; f++) {
    m->vary_adr[f] = n;
    m->vary_width[f] = tb_fieldWidth(f);
    n += tb_fieldCount(m, f) * tb_fieldWidth(f);
  }
  m->nvary = n;
  if (TB_ALLOC(m->vary0, n)) return TB_ERR_MEMORY;
  for (int b = 0; b < m->nbody; b++) {
    const tbBodyDef* bd = &m->bdef[b];
    tb_setVary(m, TB_F_BODY_MASS, b, &bd->mass);
    tb_setVary(m, TB_F_BODY_INERTIA, b, bd->inertia);
    tb_setVary(m, TB_F_BODY_POS, b, bd->pos);
    tb_setVary(m, TB_F_BODY_QUAT, b, bd->quat);
    tb_setVary(m, TB_F_BODY_VEL, b, bd->vel);
    tb_setVary(m, TB_F_BODY_FORCE, b, bd->force);
  }
  for (int g = 0; g < m->ngeom; g++) {
    tb_setVary(m, TB_F_GEOM_MU, g, &m->gdef[g].mu);
    tb_setVary(m, TB_F_GEOM_REST, g, &m->gdef[g].restitution);
    tb_setVary(m, TB_F_GEOM_SIZE, g, m->gdef[g].size);
    double soft[2] = {m->gdef[g].stiffness, m->gdef[g].damping};
    tb_setVary(m, TB_F_GEOM_SOFT, g, soft);
    double implicit[3] = {m->gdef[g].torsion, m->gdef[g].core, m->gdef[g].exponent};
    tb_setVary(m, TB_F_GEOM_IMPLICIT, g, implicit);
  }
  for (int k = 0; k < m->ndriver; k++) {
    const tbDriverDef* dd = &m->ddef[k];
    double v[TB_DRV_NPRM];
    memcpy(v + TB_DRV_AMP, dd->amp, sizeof(double) * 6);
    memcpy(v + TB_DRV_PHASE, dd->phase, sizeof(double) * 6);
    v[TB_DRV_OMEGA] = dd->omega;
    memcpy(v + TB_DRV_VEL, dd->vel, sizeof(double) * 6);
    tb_setVary(m, TB_F_DRIVER, k, v);
  }
  for (int j = 0; j < m->njnt; j++) {
    const tbJointDef* jd = &m->jdef[j];
    double v[TB_JNT_NPRM] = {
        jd->lo,    jd->hi,        jd->kp,      jd->kd, jd->target_pos, jd->target_vel,   jd->fmax,
        jd->drive, jd->stiffness, jd->damping, jd->q0, jd->qd0,        jd->coord_damping};
    tb_jointAnchors(m, jd, v + TB_JNT_ANCHOR);
    tb_setVary(m, TB_F_JOINT, j, v);
  }
  double* o = m->vary0 + m->vary_adr[TB_F_OPT];
  o[TB_OPT_DT] = m->opt.timestep;
  memcpy(o + TB_OPT_GRAVITY, m->opt.gravity, sizeof(double) * 3);
  o[TB_OPT_FRAME_ANGLE] = m->opt.frame_angle;
  o[TB_OPT_FACET_ANGLE] = m->opt.facet_angle;
  o[TB_OPT_SOFT] = m->opt.soft;
  tb_supportVary(m, m->vary0);
  return TB_OK;
}

// resolve the encoded parameter targets into vary indices; the default is the first target's
static int tb_compileParams(tbModel* m) {
  for (int p = 0; p < m->nparam; p++) {
    tbParam* prm = &m->param[p];
    if (prm->ntarget == 0) {
      return tb_setError("param '%s': has no target", prm->name);
    }
    for (int t = 0; t < prm->ntarget; t++) {
      int code = prm->target[t];
      int idx = tb_varyIndex(m, code >> 26, (code >> 5) & 0x1FFFFF, code & 31);
      if (idx < 0) return tb_setError("param '%s': target %d out of range", prm->name, t);
      prm->target[t] = idx;
    }
    prm->value = m->vary0[prm->target[0]] / prm->scale[0];
  }
  return TB_OK;
}

static int tb_checkOption(const tbOption* o) {
  if (!(o->timestep > 0.0) || !isfinite(o->timestep)) {
    return tb_setError("option dt %g must be finite and > 0", o->timestep);
  }
  if (!tb_finite(o->gravity, 3)) return tb_setError("option gravity must be finite");
  if (o->cone != TB_CONE_EXACT && o->cone != TB_CONE_PYRAMID) {
    return tb_setError("option cone %d is not a tbtCone", o->cone);
  }
  if (o->delassus != TB_DELASSUS_AUTO && o->delassus != TB_DELASSUS_DENSE) {
    return tb_setError("option delassus %d is not a tbtDelassus", o->delassus);
  }
  if (o->facets < 3 || o->facets > 256) {
    return tb_setError("option facets %d must be in [3, 256]", o->facets);
  }
  if (!(o->margin >= 0.0) || !isfinite(o->margin)) {
    return tb_setError("option margin %g must be finite and >= 0", o->margin);
  }
  if (o->max_iter < 1) return tb_setError("option max_iter %d must be >= 1", o->max_iter);
  if (!(o->tol > 0.0)) return tb_setError("option tol %g must be > 0", o->tol);
  if (!(o->sor > 0.0 && o->sor < 2.0))
    return tb_setError("option sor %g must be in (0, 2)", o->sor);
  if (o->solver < 0 || o->solver >= TB_NSOLVER) {
    return tb_setError("option solver %d is unknown", o->solver);
  }
  return TB_OK;
}

// options rest_speed and rest_time: finite, >= 0, and a scene at rest only where nothing but its
// state moves it (a kinematic body's motion would go on while the scene is held)
static int tb_checkRest(const tbModel* m) {
  const tbOption* o = &m->opt;
  if (!(o->rest_speed >= 0.0) || !isfinite(o->rest_speed)) {
    return tb_setError("option rest_speed %g must be finite and >= 0 (m/s; 0: never)",
                       o->rest_speed);
  }
  if (!(o->rest_time >= 0.0) || !isfinite(o->rest_time)) {
    return tb_setError("option rest_time %g must be finite and >= 0 (s)", o->rest_time);
  }
  for (int b = 0; b < m->nbody && o->rest_speed > 0.0; b++) {
    if (m->bdef[b].type == TB_BODY_KINEMATIC) {
      return tb_setError(
          "option rest_speed: body '%s' is kinematic, its motion goes on while a scene rests",
          m->body_name[b]);
    }
  }
  return TB_OK;
}

// option corners: 0 or 1, and only with the dynamic step in maximal coordinates
static int tb_checkCorners(const tbModel* m) {
  if (m->opt.corners != 0 && m->opt.corners != 1) {
    return tb_setError("option corners %d must be 0 or 1", m->opt.corners);
  }
  if (m->opt.corners && m->opt.quasistatic) {
    return tb_setError("option corners: not with the quasistatic step (option quasistatic)");
  }
  if (m->opt.corners && m->nq > 0) {
    return tb_setError("option corners: not with minimal-coordinate joints");
  }
  return TB_OK;
}

// option implicit: 0 or 1; every shape has an implicit function (implicit_geom.h) and the step
// stands alone: free bodies (no joints, no support tripods), no corners, no quasistatic step
// (restitution, and compliance of cut shapes: tb_checkStepValues). Ellipsoids, superellipsoids,
// cylinders and cut shapes touch only there.
static int tb_checkImplicit(const tbModel* m) {
  if (m->opt.implicit != 0 && m->opt.implicit != 1) {
    return tb_setError("option implicit %d must be 0 or 1", m->opt.implicit);
  }
  for (int g = 0; g < m->ngeom && !m->opt.implicit; g++) {
    int type = m->geom_type[g];
    if (type == TB_GEOM_ELLIPSOID || type == TB_GEOM_SUPERELLIPSOID || type == TB_GEOM_CYLINDER) {
      return tb_setError(
          "geom %d: an ellipsoid, superellipsoid or cylinder touches only with option implicit", g);
    }
    if (m->gdef[g].torsion != 0.0 || isfinite(m->gdef[g].core) || m->gdef[g].nclip > 0) {
      return tb_setError(
          "geom %d: torsion %g, core %g, %d clip half-spaces: option implicit's only", g,
          m->gdef[g].torsion, m->gdef[g].core, m->gdef[g].nclip);
    }
  }
  if (!m->opt.implicit) return TB_OK;
  if (m->opt.quasistatic || m->opt.corners) {
    return tb_setError("option implicit: not with option quasistatic or corners");
  }
  if (m->njnt > 0 || m->nsupport > 0) {
    return tb_setError(
        "option implicit: the geometrically implicit step takes free bodies only (no joints, no "
        "support tripods)");
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (!tbg_isImplicit(m->geom_type[g], m->geom_nvert[g])) {
      return tb_setError(
          "geom %d: type %d has no implicit function: option implicit takes spheres, "
          "ellipsoids, superellipsoids, cylinders, planes and discs (prisms of one core vertex)",
          g, m->geom_type[g]);
    }
  }
  return TB_OK;
}

int tb_checkStepValues(const tbModel* m, const double* vary) {
  if (m->opt.quasistatic != 0 && m->opt.quasistatic != 1) {
    return tb_setError("option quasistatic %d must be 0 or 1", m->opt.quasistatic);
  }
  if (m->opt.quasistatic && m->nq > 0) {
    return tb_setError(
        "option quasistatic: the quasistatic step takes no minimal-coordinate joints");
  }
  double soft = tb_varyOf(m, vary, TB_F_OPT, 0)[TB_OPT_SOFT];
  if (!(soft >= 0.0) || !isfinite(soft)) {
    return tb_setError("option soft %g must be finite and >= 0 (0: rigid contacts)", soft);
  }
  if (soft > 0.0 && (m->opt.quasistatic || m->opt.implicit)) {
    return tb_setError("option soft %g: not with the %s step (its contacts have no such rows)",
                       soft, m->opt.quasistatic ? "quasistatic" : "geometrically implicit");
  }
  if (!m->opt.quasistatic && !m->opt.implicit) return TB_OK;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->opt.implicit && tbg_parts(m->geom_type[g], m->geom_nclip[g]) > 1 &&
        tb_varyOf(m, vary, TB_F_GEOM_SOFT, g)[0] > 0.0) {
      // (the deflection's Eq. 3.90 takes the normal of one smooth function)
      return tb_setError("geom %d: a cylinder or a shape with clip half-spaces is rigid only", g);
    }
    double e = tb_varyOf(m, vary, TB_F_GEOM_REST, g)[0];
    if (e != 0.0) {
      return tb_setError(m->opt.quasistatic
                             ? "geom %d: restitution %g: a quasistatic step has no velocities to "
                               "restitute"
                             : "geom %d: restitution %g: the implicit step has no restitution",
                         g, e);
    }
  }
  return TB_OK;
}

int tb_compileModel(tbModel* m) {
  tb_clearError();
  if (m->compiled) return tb_setError("model: already compiled");
  int rc = tb_checkOption(&m->opt);
  if (rc == TB_OK) rc = tb_compileBodies(m);
  if (rc == TB_OK) rc = tb_compileGeoms(m);
  if (rc == TB_OK) rc = tb_compilePlanar(m);
  if (rc == TB_OK) rc = tb_compileJoints(m);
  if (rc == TB_OK) rc = tb_compileTree(m);
  if (rc == TB_OK) rc = tb_checkCorners(m);
  if (rc == TB_OK) rc = tb_checkImplicit(m);
  if (rc == TB_OK) rc = tb_checkRest(m);
  if (rc == TB_OK) rc = tb_compileDrivers(m);
  if (rc == TB_OK) rc = tb_compilePairs(m);
  if (rc == TB_OK) rc = tb_compileVary(m);
  if (rc == TB_OK) rc = tb_compileParams(m);
  if (rc == TB_OK) rc = tb_checkSupports(m, m->vary0);
  if (rc == TB_OK) rc = tb_checkStepValues(m, m->vary0);
  if (rc != TB_OK) return rc;
  m->nv = 6 * m->nbody;
  // a support tripod: three contacts of 3 rows
  m->maxrow = tb_jointRowCapacity(m) + 3 * m->maxcon + 9 * m->nsupport;
  m->maxeq = tb_eqRowCapacity(m);
  // the implicit step keeps its unknowns from step to step where the others keep impulses
  if (m->opt.implicit) m->maxrow = tb_implicitUnknowns(m);
  m->compiled = 1;
  return TB_OK;
}

// Model compilation: the definitions checked together and frozen into a const tbModel.
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/implicit_geom.h"
#include "math/tb_math.h"

#include "engine/engine.h"

//---- compile -----------------------------------------------------------------------------------

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

// 1 when the bodies' contacts are excluded (tb_excludeContact)
static int tb_excluded(const tbModel* m, int b1, int b2) {
  for (int k = 0; k < m->nexclude; k++) {
    int a = m->exclude[2 * k], b = m->exclude[2 * k + 1];
    if ((a == b1 && b == b2) || (a == b2 && b == b1)) return 1;
  }
  return 0;
}

// how many of its pairs with moving shapes one moving shape is counted to touch at once: rigid
// shapes that do not overlap touch a sphere of their size at 12 places at most (the kissing
// number), and 16 leaves room for the neighbours within a step's margin
#define TB_CONTACT_NEIGHBOURS 16
// a scene's contacts at most, whatever its shapes or option say (int counts throughout)
#define TB_MAXCON_LIMIT (1 << 24)

// the TB_CONTACT_NEIGHBOURS largest bounds of geom g's pairs with moving shapes (top, sorted
// down), with one more bound b
static void tb_keepLargest(int* top, int b) {
  for (int k = 0; k < TB_CONTACT_NEIGHBOURS; k++) {
    if (b <= top[k]) continue;
    int t = top[k];
    top[k] = b;
    b = t;
  }
}

// the contacts the shapes allow a scene: every pair's bound, or less where a shape has more pairs
// than can touch it at once. Every contact has a moving shape in it, so the sum over moving
// shapes of what each can touch bounds a scene's: its pairs with fixed shapes (a floor, walls:
// few) whole, and the TB_CONTACT_NEIGHBOURS largest of its pairs with moving shapes. 5,000
// spheres on a floor hold 85,000 contacts so, where their 12.5 million pairs would ask for as
// many; a scene with more is stopped as contact-overflow, said, never dropped
static long tb_shapeContactBound(const tbModel* m) {
  long pairs = 0, shapes = 0;
  long* fixed = (long*)calloc(tb_cap(m->ngeom), sizeof(long));
  int* top = (int*)calloc(tb_cap(m->ngeom) * TB_CONTACT_NEIGHBOURS, sizeof(int));
  if (!fixed || !top) {
    free(fixed);
    free(top);
    return -1;
  }
  for (int p = 0; p < m->npair; p++) {
    int g[2] = {m->pair_geom[2 * p], m->pair_geom[2 * p + 1]}, b = m->pair_maxcon[p];
    int moving[2] = {m->body_type[m->geom_body[g[0]]] == TB_BODY_DYNAMIC,
                     m->body_type[m->geom_body[g[1]]] == TB_BODY_DYNAMIC};
    pairs += b;
    for (int k = 0; k < 2; k++) {
      if (!moving[k]) continue;
      if (moving[1 - k]) {
        tb_keepLargest(top + (size_t)g[k] * TB_CONTACT_NEIGHBOURS, b);
      } else {
        fixed[g[k]] += b;
      }
    }
  }
  for (int g = 0; g < m->ngeom; g++) {
    shapes += fixed[g];
    for (int k = 0; k < TB_CONTACT_NEIGHBOURS; k++)
      shapes += top[(size_t)g * TB_CONTACT_NEIGHBOURS + k];
  }
  free(fixed);
  free(top);
  return shapes < pairs ? shapes : pairs;
}

// m->maxcon: the shapes' bound, or tbOption.maxcon (MJCF <size nconmax>) where that is lower
static int tb_contactCapacityOf(tbModel* m) {
  if (m->opt.maxcon < 0) return tb_setError("option maxcon %d must be >= 0", m->opt.maxcon);
  long bound = tb_shapeContactBound(m);
  if (bound < 0) return TB_ERR_MEMORY;
  if (m->opt.maxcon > 0 && m->opt.maxcon < bound) bound = m->opt.maxcon;
  if (bound > TB_MAXCON_LIMIT) {
    return tb_setError(
        "contact capacity %ld a scene (%d shape pairs) is over tumble's %d: set a lower one "
        "with MJCF <size nconmax=\"N\"/> or tbOption.maxcon",
        bound, m->npair, TB_MAXCON_LIMIT);
  }
  m->maxcon = (int)bound;
  return TB_OK;
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
        if (tb_jointed(m, b1, b2) || tb_excluded(m, b1, b2)) continue;
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
  return tb_contactCapacityOf(m);
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
    v[TB_JNT_ARMATURE] = jd->armature;
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
  if (!tb_allFinite(o->gravity, 3)) return tb_setError("option gravity must be finite");
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

// the scene's length scale: the largest |coordinate| of a body and size of a shape (a plane's
// are none), at least 1 mm (tb_minStep)
static double tb_lengthScale(const tbModel* m, const double* vary) {
  double L = 1e-3;
  for (int b = 0; b < m->nbody; b++) {
    const double* pos = tb_varyOf(m, vary, TB_F_BODY_POS, b);
    for (int k = 0; k < 3; k++) L = fmax(L, fabs(pos[k]));
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] == TB_GEOM_PLANE) continue;
    const double* size = tb_varyOf(m, vary, TB_F_GEOM_SIZE, g);
    for (int k = 0; k < 3; k++) L = fmax(L, fabs(size[k]));
  }
  return L;
}

// A body at rest that gravity g accelerates moves g h^2 in its first (semi-implicit Euler) step;
// its coordinates, of magnitude up to L, round to eps L. The step moves it only when
// g h^2 >= eps L: h >= sqrt(eps L / g). This is the stricter of the bounds a step has: the 1/h
// of the rows (gap / h) and its squares in the solvers' norms stay finite down to h ~ L 1e-154.
double tb_minStepOf(const tbModel* m, const double* vary) {
  const double* opt = tb_varyOf(m, vary, TB_F_OPT, 0);
  double g = fmax(tbu_norm3(opt + TB_OPT_GRAVITY), 9.80665);
  return sqrt(DBL_EPSILON * tb_lengthScale(m, vary) / g);
}

int tb_checkStepLength(const tbModel* m, const double* vary) {
  double h = tb_varyOf(m, vary, TB_F_OPT, 0)[TB_OPT_DT], lo = tb_minStepOf(m, vary);
  if (!(h >= lo && h <= TB_MAX_DT)) {
    return tb_setError(
        "option dt %g s: must be in [%.2g, %g] s, the shortest being the step in which a body "
        "starting from rest under gravity moves by more than the rounding of this scene's "
        "coordinates (tumble.h: tb_minStep)",
        h, lo, TB_MAX_DT);
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
  if (rc == TB_OK) rc = tb_compileHulls(m);
  if (rc == TB_OK) rc = tb_compileJoints(m);
  if (rc == TB_OK) rc = tb_compileTree(m);
  if (rc == TB_OK) rc = tb_checkCorners(m);
  if (rc == TB_OK) rc = tb_checkImplicit(m);
  if (rc == TB_OK) rc = tb_checkRest(m);
  if (rc == TB_OK) rc = tb_compileDrivers(m);
  if (rc == TB_OK) rc = tb_compilePairs(m);
  if (rc == TB_OK) rc = tb_compileVary(m);
  if (rc == TB_OK) rc = tb_compileParams(m);
  if (rc == TB_OK) rc = tb_compileSchedules(m);
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

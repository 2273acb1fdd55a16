// tumble's own MJCF values (custom numerics) and the named values that become parameters
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "io/mjcf_internal.h"

//---- custom numerics ---------------------------------------------------------------------------

int tb_mjNote(tbMj* c, const char* name, int kind, int object, int count, double scale, int sub) {
  tbMjNamed* g = (tbMjNamed*)realloc(c->named, sizeof(tbMjNamed) * (size_t)(c->nnamed + 1));
  if (!g) return tb_setError("%s: out of memory", c->file);
  c->named = g;
  g[c->nnamed++] = (tbMjNamed){name, kind, object, count, scale, sub, -1e6, 1e6};
  return 0;
}

// the custom numeric tumble_KIND_BODY for a body (marked used), or NULL
xmlNodePtr tb_mjNumeric(tbMj* c, const char* kind, const char* body) {
  char want[128];
  snprintf(want, sizeof(want), "tumble_%s_%s", kind, body);
  for (int i = 0; i < c->nnumeric; i++) {
    if (!strcmp(tb_mjName(c->numeric[i]), want)) {
      c->numeric_used[i] = 1;
      return c->numeric[i];
    }
  }
  return NULL;
}

// the data of numeric n: exactly count numbers
int tb_mjData(tbMj* c, xmlNodePtr n, double* v, int count) {
  return tb_mjNums(c, n, -1, "data", v, count, count) < 0 ? 2 : 0;
}

// the one number of custom numeric tumble_KIND_NAME into *v when there is one (*at: it, else
// NULL; name NULL: none); 0, or 2 after an error
int tb_mjScalar(tbMj* c, const char* kind, const char* name, double* v, xmlNodePtr* at) {
  *at = name ? tb_mjNumeric(c, kind, name) : NULL;
  return *at && tb_mjData(c, *at, v, 1) ? 2 : 0;
}

// the custom numeric tumble_compliance_NAME of a named shape, joint or equality (Drumwright's
// stiffness and damping, "K B") into *K and *B when there is one (*at: it, else NULL); 0, or 2
// after an error
int tb_mjCompliance(tbMj* c, const char* name, double* K, double* B, xmlNodePtr* at) {
  double soft[2];
  *at = name ? tb_mjNumeric(c, "compliance", name) : NULL;
  if (!*at) return 0;
  if (tb_mjData(c, *at, soft, 2)) return 2;
  *K = soft[0];
  *B = soft[1];
  return 0;
}

// the model-wide custom numerics: tumble_minimal_joints ("1": every hinge, slide and ball joint
// in coordinates, as MuJoCo holds them; "0": rows; none: coordinates where a joint can have them,
// tb_mjAddJoint) into c->minimal,
// tumble_option_restitution_vmin (m/s: contacts approaching slower stay plastic) and
// tumble_option_quasistatic ("1": the quasistatic step of thesis §3.4, solved by auto, as the
// built-in quasistatic scenes), tumble_option_corners ("1": planar shapes' corners
// disjunctive, thesis §3.2), tumble_option_implicit ("1": geometrically implicit contact, thesis
// §3.5) and tumble_option_soft (contact regularization, tbOption soft) into the model's options;
// 0, or 2 after an error
int tb_mjModelNumerics(tbMj* c) {
  xmlNodePtr n;
  double v = 0.0;
  if (tb_mjScalar(c, "minimal", "joints", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (minimal) or 0 (rows)", v);
  if (n) c->minimal = v == 1.0;
  c->minimal_asked = n != NULL;
  if (tb_mjScalar(c, "option", "restitution_vmin", &v, &n)) return 2;
  if (n && !(v >= 0.0 && v < INFINITY)) return tb_mjFail(c, n, "data %g: a speed >= 0 (m/s)", v);
  if (n) c->m->opt.restitution_vmin = v;
  if (tb_mjScalar(c, "option", "quasistatic", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (quasistatic) or 0", v);
  if (n && v == 1.0) {
    c->m->opt.quasistatic = 1;
    c->m->opt.solver = TB_SOLVER_AUTO;
  }
  if (tb_mjScalar(c, "option", "corners", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (disjunctive) or 0", v);
  if (n) c->m->opt.corners = (int)v;
  if (tb_mjScalar(c, "option", "implicit", &v, &n)) return 2;
  if (n && v != 0.0 && v != 1.0) return tb_mjFail(c, n, "data %g: 1 (implicit contact) or 0", v);
  if (n) c->m->opt.implicit = (int)v;
  if (tb_mjScalar(c, "option", "soft", &v, &n)) return 2;
  if (n && !(v >= 0.0 && v < INFINITY)) return tb_mjFail(c, n, "data %g: finite and >= 0", v);
  if (n) c->m->opt.soft = v;
  return 0;
}

int tb_mjCustom(tbMj* c, xmlNodePtr n) {
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    const char* name = tb_mjName(k);
    if (!name || strncmp(name, "tumble_", 7)) {
      return tb_mjFail(c, k,
                       "tumble reads <numeric name=\"tumble_KIND_NAME\"> only (KIND: plate, "
                       "rocking, constvel, force, tripod, compliance)");
    }
    xmlNodePtr* nn =
        (xmlNodePtr*)realloc(c->numeric, sizeof(xmlNodePtr) * (size_t)(c->nnumeric + 1));
    int* nu = nn ? (int*)realloc(c->numeric_used, sizeof(int) * (size_t)(c->nnumeric + 1)) : NULL;
    if (nn) c->numeric = nn;
    if (!nu) return tb_mjFail(c, k, "out of memory");
    c->numeric_used = nu;
    c->numeric[c->nnumeric] = k;
    c->numeric_used[c->nnumeric++] = 0;
  }
  return 0;
}

//---- parameters --------------------------------------------------------------------------------

static int tb_mjParam(tbMj* c, const char* name, const char* unit, const char* doc, double lo,
                      double hi, int lo_open, int field, int object, int comp, double scale) {
  int p = tb_addParam(c->m, name, unit, doc, lo, hi, lo_open);
  if (p < 0 || tb_paramTargetScaled(c->m, p, field, object, comp, scale)) {
    return tb_mjPrefix(c->file, name);
  }
  return 0;
}

// one named value's parameters: NAME.ATTR, NAME.ATTR_x/_y/_z or NAME.ATTR_K
static int tb_mjNamedParams(tbMj* c, const tbMjNamed* v) {
  static const char* xyz[3] = {"_x", "_y", "_z"};
  char pn[TB_NAMELEN + 16];
  tbModel* m = c->m;
  if (v->kind == TB_MJ_P_MASS) {
    snprintf(pn, sizeof(pn), "%s.mass", v->name);
    int p =
        tb_addParam(m, pn, "kg", "body mass (inertia scales with it)", TB_MIN_MASS, TB_MAX_MASS, 0);
    if (p < 0 || tb_paramTarget(m, p, TB_F_BODY_MASS, v->object, 0)) {
      return tb_mjPrefix(c->file, pn);
    }
    for (int k = 0; k < 3; k++) {
      double s = m->bdef[v->object].inertia[k] / m->bdef[v->object].mass;
      if (tb_paramTargetScaled(m, p, TB_F_BODY_INERTIA, v->object, k, s)) return TB_ERR_ARG;
    }
    return 0;
  }
  for (int k = 0; k < v->count; k++) {
    int rc = 0;
    switch (v->kind) {
      case TB_MJ_P_POS:
        snprintf(pn, sizeof(pn), "%s.pos%s", v->name, xyz[k]);
        rc = tb_mjParam(c, pn, "m", "initial position of the body", -TB_MAX_POS, TB_MAX_POS, 0,
                        TB_F_BODY_POS, v->object, k, 1.0);
        break;
      case TB_MJ_P_FRICTION:
        snprintf(pn, sizeof(pn), "%s.friction", v->name);
        rc = tb_mjParam(c, pn, "", "friction coefficient (a contact takes the larger)", 0.0, 1e3, 0,
                        TB_F_GEOM_MU, v->object, 0, 1.0);
        break;
      case TB_MJ_P_SIZE:
        snprintf(pn, sizeof(pn), "%s.size_%d", v->name, k);
        // a sphere may shrink to a point
        rc = tb_mjParam(c, pn, "m", "shape size (MJCF's size)", 0.0, 1e6,
                        m->gdef[v->object].type != TB_GEOM_SPHERE, TB_F_GEOM_SIZE, v->object, k,
                        1.0);
        break;
      case TB_MJ_P_RANGE:
        snprintf(pn, sizeof(pn), "%s.range_%d", v->name, k);
        rc = tb_mjParam(c, pn,
                        v->sub == TB_JOINT_PRISMATIC ? "m"
                        : c->angle == 1.0            ? "rad"
                                                     : "deg",
                        "joint limit (the file's angle unit)", -1e6, 1e6, 0, TB_F_JOINT, v->object,
                        k ? TB_JNT_HI : TB_JNT_LO, v->scale);
        break;
      case TB_MJ_P_FORCE:
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(c, pn, k < 3 ? "N" : "N m", "applied wrench, world frame", -1e6, 1e6, 0,
                        TB_F_BODY_FORCE, v->object, k, 1.0);
        break;
      case TB_MJ_P_GEOM_SOFT:
      case TB_MJ_P_JOINT_SOFT: {
        int joint = v->kind == TB_MJ_P_JOINT_SOFT;
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(
            c, pn, joint ? (k ? "N s/m|N m s/rad" : "N/m|N m/rad") : (k ? "N s/m" : "N/m"),
            k ? "damping (Drumwright; 0 and 0: rigid)" : "stiffness (Drumwright; 0 and 0: rigid)",
            0.0, 1e20, 0, joint ? TB_F_JOINT : TB_F_GEOM_SOFT, v->object,
            joint ? TB_JNT_STIFF + k : k, 1.0);
        break;
      }
      case TB_MJ_P_CTRL: {
        int slide = c->m->jdef[v->object].type == TB_JOINT_PRISMATIC;
        const char* unit = v->sub == TB_JNT_TPOS   ? (slide ? "m" : "rad")
                           : v->sub == TB_JNT_TVEL ? (slide ? "m/s" : "rad/s")
                                                   : "N";
        snprintf(pn, sizeof(pn), "%s.ctrl", v->name);
        rc = tb_mjParam(c, pn, unit, "actuator control (MuJoCo's ctrl)", v->lo, v->hi, 0,
                        TB_F_JOINT, v->object, v->sub, v->scale);
        break;
      }
      case TB_MJ_P_GEOM_REST:
        snprintf(pn, sizeof(pn), "%s.data_0", v->name);
        rc = tb_mjParam(c, pn, "", "Newton restitution (a contact takes the larger)", 0.0, 1.0, 0,
                        TB_F_GEOM_REST, v->object, 0, 1.0);
        break;
      case TB_MJ_P_TRIPOD:
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(c, pn, k ? "m" : "", k ? "support point, body frame" : "support friction",
                        k ? -1e3 : 0.0, 1e3, 0, TB_F_SUPPORT, v->object, TB_SUP_MU + k, 1.0);
        break;
      default: {  // drivers: plate A1..A6 C1..C6 omega, rocking alpha T d, constvel twist
        int kind = v->sub, comp = TB_DRV_AMP + k, open = 0;
        double lo = -1e6;
        if (kind == 0 && k >= 6) comp = k == 12 ? TB_DRV_OMEGA : TB_DRV_PHASE + k - 6;
        if (kind == 2) comp = TB_DRV_VEL + k;
        if ((kind == 0 && k == 12) || (kind == 1 && k == 1)) lo = 0.0, open = 1;
        snprintf(pn, sizeof(pn), "%s.data_%d", v->name, k);
        rc = tb_mjParam(c, pn, "", "driver data (mjcf.h)", lo, 1e6, open, TB_F_DRIVER, v->object,
                        comp, 1.0);
      }
    }
    if (rc) return rc;
  }
  return 0;
}

int tb_mjParams(tbMj* c) {
  static const char* g[3] = {"opt.gravity_x", "opt.gravity_y", "opt.gravity_z"};
  c->param0 = c->m->nparam;
  int options = c->compose < 2;  // a composed scene's later files add none
  if (options &&
      tb_mjParam(c, "opt.timestep", "s", "time step", 0.0, 1.0, 1, TB_F_OPT, 0, TB_OPT_DT, 1.0))
    return TB_ERR_ARG;
  for (int k = 0; k < 3 && options; k++) {
    if (tb_mjParam(c, g[k], "m/s^2", "gravity", -1e4, 1e4, 0, TB_F_OPT, 0, TB_OPT_GRAVITY + k, 1.0))
      return TB_ERR_ARG;
  }
  for (int i = 0; i < c->nnamed; i++) {
    if (tb_mjNamedParams(c, &c->named[i])) return TB_ERR_ARG;
  }
  // last, as the scenes' (where the step has contact rows), so that the others keep their places
  if (options && !c->m->opt.quasistatic && !c->m->opt.implicit &&
      tb_mjParam(c, "opt.soft", "", "contact regularization (0: rigid contacts)", 0.0, 1e3, 0,
                 TB_F_OPT, 0, TB_OPT_SOFT, 1.0))
    return TB_ERR_ARG;
  c->param1 = c->m->nparam;
  return 0;
}

int tb_mjCheckValues(tbMj* c) {
  const tbModel* m = c->m;
  // a file's value passes the checks the same value given as --param NAME=VALUE passes
  for (int p = c->param0; p < c->param1; p++) {
    const tbParam* prm = &m->param[p];
    double v = prm->value;
    int below = prm->lo_open ? !(v > prm->lo) : !(v >= prm->lo);
    if (below || !(v <= prm->hi)) {
      return tb_setError(
          "%s: %s = %g, the file's value, must be in %s%g, %g]%s%s (the range "
          "--param %s takes)",
          c->file, prm->name, v, prm->lo_open ? "(" : "[", prm->lo, prm->hi,
          prm->unit[0] ? " " : "", prm->unit, prm->name);
    }
  }
  double lo = tb_minStep(m, NULL, 0);
  if (!c->compose && !(m->opt.timestep >= lo)) {  // a composed scene's step is its caller's
    const char* fmt =
        "timestep=\"%s\": below the smallest step %.2g s this scene allows: a body starting from "
        "rest under its gravity (at least 1 g) must move in one step by more than the rounding of "
        "its coordinates (tumble.h: tb_minStep)";
    if (c->option && xmlHasProp(c->option, (const xmlChar*)"timestep"))
      return tb_mjFail(c, c->option, fmt, tb_mjStr(c, c->option, -1, "timestep", ""), lo);
    return tb_setError(
        "%s: the default timestep 0.002 s is below the smallest step %.2g s this "
        "scene allows (tumble.h: tb_minStep)",
        c->file, lo);
  }
  return 0;
}

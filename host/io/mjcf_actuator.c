// <actuator>: position, velocity, motor and general actuators on hinge and slide joints, as the
// joint's servo row or drive. MuJoCo's actuator acts on its length l = gear q with the force
//   position  f = kp (ctrl - l) - kv ldot        velocity  f = kv (ctrl - ldot)
//   motor     f = ctrl                           general   f = g0 ctrl + b0 + b1 l + b2 ldot
// (forcerange bounding f where forcelimited) and the joint takes gear f: a servo on q with gains
// kp gear^2, kv gear^2, target ctrl / gear and bound gear |f|, which is tumble's servo row
// (implicit in the step, so stable at any gain), or a constant drive for a motor. The control is
// the parameter ACTUATOR.ctrl, its default the first key's ctrl.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mjcf_internal.h"
#include "util/error.h"

enum { TB_MJ_POSITION, TB_MJ_VELOCITY, TB_MJ_MOTOR };

int tb_mjActuators(tbMj* c, xmlNodePtr n) {
  c->actuator = n;
  c->nactuator = 0;
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) c->nactuator++;
  c->actuator_used = (int*)calloc((size_t)(c->nactuator + 1), sizeof(int));
  return c->actuator_used ? 0 : tb_setError("%s: out of memory", c->file);
}

// the index of the actuator on joint name (its element in *a), or -1
static int tb_mjActuatorOf(const tbMj* c, const char* name, xmlNodePtr* a) {
  int i = 0;
  for (xmlNodePtr k = c->actuator ? xmlFirstElementChild(c->actuator) : NULL; k;
       k = xmlNextElementSibling(k), i++) {
    const char* j = tb_mjStr(c, k, -1, "joint", NULL);
    if (name && j && !strcmp(j, name)) {
      *a = k;
      return i;
    }
  }
  return -1;
}

int tb_mjActuated(const tbMj* c, xmlNodePtr joint) {
  xmlNodePtr a;
  return tb_mjActuatorOf(c, tb_mjName(joint), &a) >= 0;
}

// a range attribute (2 numbers, lo <= hi) and whether it limits: NAMElimited, or its presence
// (autolimits); 0, or 2 after an error
static int tb_mjLimit(const tbMj* c, xmlNodePtr a, const char* what, double r[2], int* limited) {
  static const char* const lim[] = {"auto", "true", "false", NULL};
  char range[32], flag[32];
  snprintf(range, sizeof(range), "%srange", what);
  snprintf(flag, sizeof(flag), "%slimited", what);
  r[0] = -INFINITY;
  r[1] = INFINITY;
  int nr = tb_mjNums(c, a, -1, range, r, 2, 2), l = tb_mjWord(c, a, -1, flag, "auto", lim);
  if (nr < 0 || l < 0) return 2;
  *limited = l == 0 ? nr > 0 : l == 1;
  if (*limited && !(nr > 0 && r[0] <= r[1])) {
    return tb_mjFail(c, a, "%s: %s needs %s=\"LO HI\" with LO <= HI", range, flag, range);
  }
  return 0;
}

// the force law of actuator a as (kind, kp, kv, the control's scale onto the length's target or
// the force): TB_MJ_*; 0, or 2 after an error
static int tb_mjLaw(const tbMj* c, xmlNodePtr a, int* kind, double* kp, double* kv, double* s) {
  static const char* const gains[] = {"fixed", NULL};
  static const char* const biases[] = {"none", "affine", NULL};
  static const char* const dyns[] = {"none", NULL};
  double g0 = 1.0, b[3] = {0, 0, 0};
  *kp = tb_mjIs(a, "position") ? 1.0 : 0.0;
  *kv = tb_mjIs(a, "velocity") ? 1.0 : 0.0;
  if (tb_mjNums(c, a, -1, "kp", kp, 1, 1) < 0 || tb_mjNums(c, a, -1, "kv", kv, 1, 1) < 0) return 2;
  if (!(*kp >= 0.0 && *kv >= 0.0)) {
    return tb_mjFail(c, a, "kp %g and kv %g must be >= 0", *kp, *kv);
  }
  *s = 1.0;
  *kind = tb_mjIs(a, "position")   ? TB_MJ_POSITION
          : tb_mjIs(a, "velocity") ? TB_MJ_VELOCITY
                                   : TB_MJ_MOTOR;
  if (!tb_mjIs(a, "general")) return 0;
  int bias = tb_mjWord(c, a, -1, "biastype", "none", biases);
  if (tb_mjWord(c, a, -1, "gaintype", "fixed", gains) < 0 || bias < 0 ||
      tb_mjWord(c, a, -1, "dyntype", "none", dyns) < 0 ||
      tb_mjNums(c, a, -1, "gainprm", &g0, 1, 1) < 0 || tb_mjNums(c, a, -1, "biasprm", b, 3, 3) < 0)
    return 2;
  if (!bias) b[0] = b[1] = b[2] = 0.0;
  if (b[0] != 0.0 || b[1] > 0.0 || b[2] > 0.0) {
    return tb_mjFail(c, a,
                     "biasprm %g %g %g: tumble takes 0, -kp, -kv (kp, kv >= 0: a servo toward "
                     "gainprm ctrl / kp)",
                     b[0], b[1], b[2]);
  }
  *kp = -b[1];
  *kv = -b[2];
  *kind = *kp > 0.0 ? TB_MJ_POSITION : *kv > 0.0 ? TB_MJ_VELOCITY : TB_MJ_MOTOR;
  *s = *kind == TB_MJ_POSITION ? g0 / *kp : *kind == TB_MJ_VELOCITY ? g0 / *kv : g0;
  return 0;
}

// the first key's ctrl for actuator i (0 without one)
static int tb_mjKeyCtrl(const tbMj* c, xmlNodePtr a, int i, double* ctrl) {
  *ctrl = 0.0;
  if (!c->key || !xmlHasProp(c->key, (const xmlChar*)"ctrl")) return 0;
  double* v = (double*)malloc(sizeof(double) * (size_t)(c->nactuator + 1));
  if (!v) return tb_mjFail(c, a, "out of memory");
  int n = tb_mjNums(c, c->key, -1, "ctrl", v, 0, c->nactuator + 1);
  int rc = n < 0 ? 2 : 0;
  if (!rc && n != c->nactuator) {
    rc =
        tb_mjFail(c, c->key, "ctrl has %d numbers, the model's actuators take %d", n, c->nactuator);
  }
  if (!rc) *ctrl = v[i];
  free(v);
  return rc;
}

int tb_mjActuate(tbMj* c, xmlNodePtr joint, int type, double q0, tbJointDef* jd, tbMjCtrl* ctrl) {
  memset(ctrl, 0, sizeof(*ctrl));
  xmlNodePtr a = NULL;
  int i = tb_mjActuatorOf(c, tb_mjName(joint), &a);
  if (i < 0) return 0;
  if (c->actuator_used[i]) return 0;
  c->actuator_used[i] = 1;
  if (type != 2 && type != 3) {
    return tb_mjFail(c, a, "joint '%s' is a %s: tumble's actuators drive hinges and slides",
                     tb_mjName(joint), type ? "ball" : "free joint");
  }
  if (q0 != 0.0) {
    return tb_mjFail(c, a,
                     "joint '%s' starts at %g (the key's qpos): an actuated joint starts at "
                     "its reference",
                     tb_mjName(joint), q0);
  }
  double gear[6] = {1, 0, 0, 0, 0, 0}, cr[2], fr[2], kp, kv, s;
  int climit, flimit, kind = TB_MJ_MOTOR;
  int ng = tb_mjNums(c, a, -1, "gear", gear, 1, 6);
  if (ng < 0 || tb_mjLimit(c, a, "ctrl", cr, &climit) || tb_mjLimit(c, a, "force", fr, &flimit) ||
      tb_mjLaw(c, a, &kind, &kp, &kv, &s) || tb_mjKeyCtrl(c, a, i, &ctrl->value))
    return 2;
  for (int k = 1; k < ng; k++) {
    if (gear[k] != 0.0) return tb_mjFail(c, a, "gear: a joint's actuator takes one number");
  }
  double g = gear[0];
  if (!(g != 0.0 && fabs(g) <= 1e6)) return tb_mjFail(c, a, "gear %g: nonzero, within 1e6", g);
  if (flimit && fr[0] != -fr[1]) {
    return tb_mjFail(c, a, "forcerange %g %g: tumble bounds a servo's force symmetrically", fr[0],
                     fr[1]);
  }
  if (kind == TB_MJ_MOTOR && type != 2) {
    return tb_mjFail(c, a, "a motor on hinge '%s': tumble's constant drive pushes a slide",
                     tb_mjName(joint));
  }
  ctrl->act = a;
  ctrl->index = i;
  ctrl->lo = climit ? cr[0] : -1e6;
  ctrl->hi = climit ? cr[1] : 1e6;
  ctrl->value = fmin(fmax(ctrl->value, ctrl->lo), ctrl->hi);  // MuJoCo clamps ctrl so
  if (kind == TB_MJ_MOTOR) {  // the drive: gear g0 ctrl, within the force range
    if (flimit) {
      ctrl->lo = fmax(ctrl->lo, fmin(fr[0] / s, fr[1] / s));
      ctrl->hi = fmin(ctrl->hi, fmax(fr[0] / s, fr[1] / s));
      ctrl->value = fmin(fmax(ctrl->value, ctrl->lo), ctrl->hi);
    }
    ctrl->comp = TB_JNT_DRIVE;
    ctrl->scale = g * s;
    jd->drive = ctrl->scale * ctrl->value;
    return 0;
  }
  jd->servo = 1;
  jd->kp = kind == TB_MJ_POSITION ? kp * g * g : 0.0;
  jd->kd = kv * g * g;
  jd->fmax = flimit ? fabs(g) * fr[1] : INFINITY;
  ctrl->comp = kind == TB_MJ_POSITION ? TB_JNT_TPOS : TB_JNT_TVEL;
  ctrl->scale = s / g;
  if (kind == TB_MJ_POSITION) {
    jd->target_pos = ctrl->scale * ctrl->value;
  } else {
    jd->target_vel = ctrl->scale * ctrl->value;
  }
  return 0;
}

int tb_mjActuatorsUsed(tbMj* c) {
  int i = 0;
  for (xmlNodePtr k = c->actuator ? xmlFirstElementChild(c->actuator) : NULL; k;
       k = xmlNextElementSibling(k), i++) {
    if (c->actuator_used[i]) continue;
    const char* j = tb_mjStr(c, k, -1, "joint", NULL);
    if (!j) return tb_mjFail(c, k, "an actuator needs joint= (tumble's actuators act on joints)");
    xmlNodePtr first;
    if (tb_mjActuatorOf(c, j, &first) != i) {
      return tb_mjFail(c, k, "a second actuator on joint '%s' (tumble takes one a joint)", j);
    }
    return tb_mjFail(c, k, "joint '%s': no hinge or slide of that name", j);
  }
  return 0;
}

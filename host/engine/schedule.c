// Schedules (tbScheduleDef): a scene's value as a function of time, checked and compiled here,
// applied each step by tb_scheduleValues (stage_step.h)
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/error.h"

tbScheduleDef tb_defaultScheduleDef(void) {
  tbScheduleDef d;
  memset(&d, 0, sizeof(d));
  d.field = TB_F_JOINT;
  d.comp = TB_JNT_TPOS;
  d.nkey = 1;
  return d;
}

// the value a schedule drives exists and is one a schedule may drive
static int tb_checkScheduleTarget(const tbModel* m, const tbScheduleDef* def, int k) {
  if (def->field == TB_F_JOINT) {
    if (def->object < 0 || def->object >= m->njnt) {
      return tb_setError("schedule %d: joint %d does not exist", k, def->object);
    }
    if (def->comp < TB_JNT_KP || def->comp > TB_JNT_DRIVE) {
      return tb_setError("schedule %d: joint component %d is not one of TB_JNT_KP .. TB_JNT_DRIVE",
                         k, def->comp);
    }
    // a servo's values move nothing on a joint without the servo row
    if (def->comp != TB_JNT_DRIVE && !m->jdef[def->object].servo) {
      return tb_setError("schedule %d: joint %d has no servo for component %d to drive", k,
                         def->object, def->comp);
    }
    return TB_OK;
  }
  if (def->field == TB_F_BODY_FORCE) {
    if (def->object < 0 || def->object >= m->nbody ||
        m->bdef[def->object].type != TB_BODY_DYNAMIC) {
      return tb_setError("schedule %d: body %d is not a dynamic body", k, def->object);
    }
    if (def->comp < 0 || def->comp > 5) {
      return tb_setError("schedule %d: wrench component %d is not in 0-5", k, def->comp);
    }
    return TB_OK;
  }
  return tb_setError("schedule %d: field %d is neither TB_F_JOINT nor TB_F_BODY_FORCE", k,
                     def->field);
}

int tb_addSchedule(tbModel* m, const tbScheduleDef* def) {
  if (tb_checkEditable(m)) return -1;
  int k = m->nsched;
  if (tb_checkScheduleTarget(m, def, k)) return -1;
  if (def->nkey < 1 || def->nkey > TB_MAXKEY) {
    tb_setError("schedule %d: nkey %d must be in [1, %d]", k, def->nkey, TB_MAXKEY);
    return -1;
  }
  for (int i = 0; i < def->nkey; i++) {
    if (!isfinite(def->key_t[i]) || (i > 0 && !(def->key_t[i] > def->key_t[i - 1]))) {
      tb_setError("schedule %d: key_t[%d] = %g must be finite and increasing", k, i, def->key_t[i]);
      return -1;
    }
    if (!isfinite(def->key_v[i])) {
      tb_setError("schedule %d: key_v[%d] = %g must be finite", k, i, def->key_v[i]);
      return -1;
    }
    // a servo's gains and bound keep their joint's ranges (tbJointDef) at every key, and so
    // between them
    int gain = def->field == TB_F_JOINT && (def->comp == TB_JNT_KP || def->comp == TB_JNT_KD);
    int bound = def->field == TB_F_JOINT && def->comp == TB_JNT_FMAX;
    if ((gain && !(def->key_v[i] >= 0.0)) || (bound && !(def->key_v[i] > 0.0))) {
      tb_setError("schedule %d: key_v[%d] = %g: a servo's %s must be %s", k, i, def->key_v[i],
                  gain ? "gain" : "force bound", gain ? ">= 0" : "> 0");
      return -1;
    }
  }
  for (int i = 0; i < k; i++) {
    const tbScheduleDef* o = &m->schdef[i];
    if (o->field == def->field && o->object == def->object && o->comp == def->comp) {
      tb_setError("schedule %d: schedule %d already drives that value", k, i);
      return -1;
    }
  }
  if (tb_grow((void**)&m->schdef, &m->cap_sched, m->nsched, sizeof(tbScheduleDef))) return -1;
  m->schdef[k] = *def;
  return m->nsched++;
}

int tb_compileSchedules(tbModel* m) {
  if (m->nsched && m->opt.rest_speed > 0.0) {
    return tb_setError("option rest_speed: a schedule changes the scene while it would rest");
  }
  if (TB_ALLOC(m->sch_target, m->nsched) || TB_ALLOC(m->sch_nkey, m->nsched) ||
      TB_ALLOC(m->sch_key, m->nsched * TB_MAXKEY * 2)) {
    return TB_ERR_MEMORY;
  }
  for (int k = 0; k < m->nsched; k++) {
    const tbScheduleDef* def = &m->schdef[k];
    int idx = tb_varyIndex(m, def->field, def->object, def->comp);
    for (int p = 0; p < m->nparam; p++) {
      for (int t = 0; t < m->param[p].ntarget; t++) {
        if (m->param[p].target[t] == idx) {
          return tb_setError("param '%s': sets a value schedule %d drives", m->param[p].name, k);
        }
      }
    }
    m->sch_target[k] = idx;
    m->sch_nkey[k] = def->nkey;
    for (int i = 0; i < def->nkey; i++) {
      m->sch_key[(k * TB_MAXKEY + i) * 2] = def->key_t[i];
      m->sch_key[(k * TB_MAXKEY + i) * 2 + 1] = def->key_v[i];
    }
  }
  return TB_OK;
}

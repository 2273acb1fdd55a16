// The vary table: every value a parameter or a scene may change (the fields TB_F_*, an object's
// components), laid out field by field in one vector per scene.
#include "engine/engine.h"

int tb_fieldWidth(int field) {
  static const int width[TB_NFIELD] = {
      1, 3, 3, 4, 6, 6, 1, 1, 3, TB_DRV_NPRM, TB_JNT_NPRM, TB_OPT_NPRM, TB_SUP_NPRM, 2, 3};
  return width[field];
}

int tb_fieldCount(const tbModel* m, int field) {
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

// MJCF <equality> (mjcf_internal.h): each <connect> and <weld> as a joint between the bodies it
// names, its anchor given in body1's MJCF frame
#include <string.h>

#include "math/tb_math.h"
#include "io/mjcf_internal.h"

int tb_mjEquality(tbMj* c, xmlNodePtr n) {
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) {
    int connect = tb_mjIs(k, "connect");
    if (c->key) {
      return tb_mjFail(c, k,
                       "with a keyframe: tumble would build the joint at the key's pose, "
                       "MuJoCo holds it at the model's");
    }
    int b[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
      const char* bn = tb_mjStr(c, k, -1, i ? "body2" : "body1", NULL);
      if (!bn && !i) return tb_mjFail(c, k, "body1 missing");
      if (bn && strcmp(bn, "world") && (b[i] = tb_mjFindBody(c, bn)) < 0) {
        return tb_mjFail(c, k, "%s=\"%s\": no such body", i ? "body2" : "body1", bn);
      }
    }
    if (b[0] < 0 || c->m->bdef[b[0]].type != TB_BODY_DYNAMIC) {
      return tb_mjFail(c, k, "body1 must be a moving body");
    }
    if (b[1] >= 0 && c->m->bdef[b[1]].type == TB_BODY_STATIC) b[1] = -1;
    tbJointDef jd = tb_defaultJointDef();
    jd.type = connect ? TB_JOINT_SPHERICAL : TB_JOINT_FIXED;
    jd.body_a = b[0];
    jd.body_b = b[1];
    const tbBodyDef* b1 = &c->m->bdef[b[0]];
    tbu_copy3(jd.anchor, b1->pos);
    double a[3];
    int na = tb_mjNums(c, k, -1, "anchor", a, 3, 3);
    if (na < 0) return 2;
    if (connect && !na) return tb_mjFail(c, k, "anchor missing");
    if (na) {  // in body1's MJCF frame
      const tbMjFrame* f = &c->frame[b[0]];
      tbu_rotVec(jd.anchor, f->quat, a);
      tbu_add3(jd.anchor, jd.anchor, f->pos);
    }
    xmlNodePtr soft;
    if (tb_mjCompliance(c, tb_mjName(k), &jd.stiffness, &jd.damping, &soft)) return 2;
    int j = tb_addJoint(c->m, &jd);
    if (j < 0) return tb_mjFail(c, soft ? soft : k, "%s", tb_lastError());
    if (soft && tb_mjNote(c, tb_mjName(soft), TB_MJ_P_JOINT_SOFT, j, 2, 1.0, 0)) return 2;
  }
  return 0;
}

// Contacts of one scene: every candidate shape pair through the shared pair geometry.
#include <string.h>

#include <tumble/tb_math.h>

#include "engine.h"

// world pose and size of geom g at the work pose of its body
static void tb_geomPose(const tbModel* m, const tbWork* w, int g, tbGeomPose* gp) {
  int b = m->geom_body[g];
  gp->type = m->geom_type[g];
  memcpy(gp->size, w->vary + tb_varyIndex(m, TB_F_GEOM_SIZE, g, 0), sizeof(gp->size));
  double off[3];
  tbu_rotVec(off, w->xquat + 4 * b, m->geom_pos + 3 * g);
  tbu_add3(gp->pos, w->xpos + 3 * b, off);
  tbu_quatMul(gp->quat, w->xquat + 4 * b, m->geom_quat + 4 * g);
}

int tb_collide(const tbModel* m, tbWork* w) {
  double margin = m->opt.margin;
  tbContactPoint buf[TB_MAXCON_PAIR];
  w->ncon = 0;
  for (int p = 0; p < m->npair; p++) {
    tbGeomPose ga, gb;
    tb_geomPose(m, w, m->pair_geom[2 * p], &ga);
    tb_geomPose(m, w, m->pair_geom[2 * p + 1], &gb);
    int n = tbu_collide(&ga, &gb, margin, buf);
    // never drop a contact: running out of room stops the scene instead
    if (w->ncon + n > w->maxcon) return -1;
    for (int i = 0; i < n; i++) {
      w->con[w->ncon] = buf[i];
      w->con_pair[w->ncon] = p;
      w->ncon++;
    }
  }
  return 0;
}

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

// fastest speed of any point of any moving body: |v| + |w| r over the body's shapes
static double tb_maxPointSpeed(const tbModel* m, const tbWork* w) {
  double vmax = 0.0;
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_body[g];
    if (m->body_type[b] == TB_BODY_STATIC || m->geom_type[g] == TB_GEOM_PLANE) continue;
    const double* sz = w->vary + tb_varyIndex(m, TB_F_GEOM_SIZE, g, 0);
    double ext = m->geom_type[g] == TB_GEOM_BOX ? tbu_norm3(sz) : sz[0] + sz[1];
    double r = tbu_norm3(m->geom_pos + 3 * g) + ext;
    double v = tbu_norm3(w->xvel + 6 * b) + tbu_norm3(w->xvel + 6 * b + 3) * r;
    vmax = v > vmax ? v : vmax;
  }
  return vmax;
}

int tb_collide(const tbModel* m, tbWork* w) {
  // the active set holds every pair that could touch within the step (thesis §4.2.1): the
  // margin plus the distance two bodies at the fastest point speed could close in one step
  double h = w->vary[tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_DT)];
  double margin = m->opt.margin + 2.0 * h * tb_maxPointSpeed(m, w);
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

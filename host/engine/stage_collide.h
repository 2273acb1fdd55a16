// Stage: every contact of one scene through the shared pair geometry (collide_geom.h).
#ifndef TUMBLE_HOST_STAGE_COLLIDE_H_
#define TUMBLE_HOST_STAGE_COLLIDE_H_

#include <math.h>
#include <string.h>

#include "math/tb_math.h"

#include "engine/engine.h"

// 1 when a shape's frame is its body's (no offset, no turn: most shapes)
TB_HD int tb_atBodyFrame(const double pos[3], const double quat[4]) {
  return pos[0] == 0.0 && pos[1] == 0.0 && pos[2] == 0.0 && quat[0] == 1.0 && quat[1] == 0.0 &&
         quat[2] == 0.0 && quat[3] == 0.0;
}

// world pose and size of geom g with its body at pose (xpos, xquat: every body's)
TB_HD void tb_geomPoseAt(const tbModel* m, const double* vary, const double* xpos,
                         const double* xquat, int g, tbGeomPose* gp) {
  int b = m->geom_body[g];
  const double *gpos = m->geom_pos + 3 * g, *gquat = m->geom_quat + 4 * g;
  gp->type = m->geom_type[g];
  memcpy(gp->size, tb_varyOf(m, vary, TB_F_GEOM_SIZE, g), sizeof(gp->size));
  // at the body's frame the shape's pose is its body's: what the products give, up to a zero's sign
  if (tb_atBodyFrame(gpos, gquat)) {
    tbu_copy3(gp->pos, xpos + 3 * b);
    memcpy(gp->quat, xquat + 4 * b, sizeof(gp->quat));
  } else {
    double off[3];
    tbu_rotVec(off, xquat + 4 * b, gpos);
    tbu_add3(gp->pos, xpos + 3 * b, off);
    tbu_quatMul(gp->quat, xquat + 4 * b, gquat);
  }
  gp->nvert = m->geom_nvert[g];
  gp->vert = m->geom_vert + 2 * m->geom_vertadr[g];
  gp->exponent = tb_varyOf(m, vary, TB_F_GEOM_IMPLICIT, g)[2];
  gp->nclip = m->geom_nclip[g];
  gp->clip = m->geom_clip + TB_MAXCLIP * 4 * g;
  int h = m->geom_hull[g];
  memset(&gp->hull, 0, sizeof(gp->hull));
  if (h >= 0) {
    gp->hull.nvert = m->hull_nvert[h];
    gp->hull.nface = m->hull_nface[h];
    gp->hull.nedge = m->hull_nedge[h];
    gp->hull.vert = m->hull_vert + 3 * m->hull_vertadr[h];
    gp->hull.plane = m->hull_plane + 4 * m->hull_faceadr[h];
    gp->hull.facevertadr = m->hull_facevertadr + m->hull_faceadr[h];
    gp->hull.facenvert = m->hull_facenvert + m->hull_faceadr[h];
    gp->hull.facevert = m->hull_facevert;
    gp->hull.edge = m->hull_edge + 4 * m->hull_edgeadr[h];
  }
}

// ... at the work pose
TB_HD void tb_geomPose(const tbModel* m, const tbWork* w, int g, tbGeomPose* gp) {
  tb_geomPoseAt(m, w->vary, w->xpos, w->xquat, g, gp);
}

// distance from a shape's frame origin to its farthest surface point (planes: unused)
TB_HD double tb_geomReach(const tbModel* m, int g, const double* sz) {
  if (m->geom_type[g] == TB_GEOM_SPHERE) return sz[0];
  if (m->geom_type[g] == TB_GEOM_CAPSULE) return sz[0] + sz[1];
  if (m->geom_type[g] == TB_GEOM_BOX) return tbu_norm3(sz);
  return m->geom_vreach[g] + sz[0];
}

// every shape's world pose and reach at the work pose
TB_HD void tb_posedGeoms(const tbModel* m, tbWork* w) {
  for (int g = 0; g < m->ngeom; g++) {
    tb_geomPose(m, w, g, &w->gpose[g]);
    w->greach[g] =
        m->geom_type[g] == TB_GEOM_PLANE ? INFINITY : tb_geomReach(m, g, w->gpose[g].size);
  }
}

// fastest speed of any point of any moving body's shapes, the bodies' twists in vel (6 each):
// |v| + |w| r over the body's shapes
TB_HD double tb_maxPointSpeed(const tbModel* m, const tbWork* w, const double* vel) {
  double vmax = 0.0;
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_body[g];
    if (m->body_type[b] == TB_BODY_STATIC || m->geom_type[g] == TB_GEOM_PLANE) continue;
    double r = tbu_norm3(m->geom_pos + 3 * g) + w->greach[g];
    double v = tbu_norm3(vel + 6 * b) + tbu_norm3(vel + 6 * b + 3) * r;
    vmax = v > vmax ? v : vmax;
  }
  return vmax;
}

// 1 when a contact of the collided pose (tb_collide) sinks one shape into the other by more than
// half the smaller one's reach: a start no step resolves (parameters that put a chain's link into
// the floor), which the first step refuses. Point particles (reach 0) are not judged.
TB_HD int tb_buriedContact(const tbModel* m, const tbWork* w) {
  for (int i = 0; i < w->ncon; i++) {
    int p = w->con_pair[i];
    double ra = w->greach[m->pair_geom[2 * p]], rb = w->greach[m->pair_geom[2 * p + 1]];
    double r = ra < rb ? ra : rb;
    if (r > 0.0 && w->con[i].gap < -0.5 * r) return 1;
  }
  return 0;
}

// the step's contact margin: the active set holds every pair that could touch within the step
// (thesis §4.2.1), the option's margin plus the distance two bodies at the fastest point speed
// could close in one step; a corner pair's reach is twice it (tbg2_corners)
TB_HD double tb_stepMargin(const tbModel* m, const tbWork* w) {
  return m->opt.margin + 2.0 * w->h * tb_maxPointSpeed(m, w, w->xvel);
}

// the index of the other member of contact c's corner pair (feature f), -1 for an ordinary one:
// a pair's members come one after the other, member 0 first
TB_HD int tb_cornerTwin(int f, int c) {
  if (f < TB_CORNER2D_FEATURE) return -1;
  return (f - TB_CORNER2D_FEATURE) & 1 ? c - 1 : c + 1;
}

// every contact of the scene at the work pose, corner pairs linked by con_twin; 0, or -1 when
// they overflow the capacity (none is dropped: the caller stops the scene)
TB_HD int tb_collide(const tbModel* m, tbWork* w) {
  tb_posedGeoms(m, w);
  double margin = tb_stepMargin(m, w);
  tbContactPoint buf[TB_MAXCON_PAIR];
  w->ncon = 0;
  for (int p = 0; p < m->npair; p++) {
    int g1 = m->pair_geom[2 * p], g2 = m->pair_geom[2 * p + 1];
    const tbGeomPose *ga = &w->gpose[g1], *gb = &w->gpose[g2];
    // shapes whose bounding spheres are farther apart than the margin cannot touch
    double d[3];
    tbu_sub3(d, ga->pos, gb->pos);
    double reach = w->greach[g1] + w->greach[g2] + margin;
    if (tbu_dot3(d, d) > reach * reach) continue;
    if (tbg_clearOfPlane(ga, gb, w->greach[g2], margin) ||
        tbg_clearOfPlane(gb, ga, w->greach[g1], margin))
      continue;
    int corners = tb_cornerPair(m, g1, g2);
    int n =
        corners ? tbg_collidePrismCorners(ga, gb, margin, buf) : tbu_collide(ga, gb, margin, buf);
    // never drop a contact: running out of room stops the scene instead
    if (w->ncon + n > m->maxcon) return -1;
    for (int i = 0; i < n; i++) {
      w->con[w->ncon] = buf[i];
      w->con_pair[w->ncon] = p;
      w->con_twin[w->ncon] = corners ? tb_cornerTwin(buf[i].feature, w->ncon) : -1;
      w->con_off[w->ncon] = 0;
      w->ncon++;
    }
  }
  return 0;
}

#endif  // TUMBLE_HOST_STAGE_COLLIDE_H_

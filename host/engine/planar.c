// The planar "2.5D" model (thesis §3.3): prism shapes and support tripods.
//
// A support tripod carries a planar body (x, y, yaw) on a horizontal surface at three points r_k
// (body frame, around the center of mass). Out-of-plane statics fix the normal forces (Eq. 3.24):
//   [1 1 1; y_1 y_2 y_3; -x_1 -x_2 -x_3] lambda = [m g; 0; 0]
// whose solution is lambda_k = m g w_k with w the barycentric coordinates of the center of mass.
// Each point's friction impulse p_k = (p_t, p_o) then satisfies Coulomb's law with the known
// normal impulse h lambda_k: |p_k| <= mu h lambda_k, maximal dissipation against the slip
// velocity v + w x r_k (Eq. 3.25). The planar rows are [1, 0, -y_k] and [0, 1, x_k] with r_k
// rotated into the world (the thesis's W_ts, W_os).
//
// To reach every solver through the one contact block (normal, tangents), the normal row of a
// support point is a virtual compliant row with no Jacobian: u_n = c x_n - c h lambda_k. Its
// complementarity 0 <= x_n _|_ u_n >= 0 has the single solution x_n = h lambda_k, so the block's
// cone (exact disc or pyramid) bounds the friction by mu h lambda_k exactly, and the friction
// rows see no coupling to it (A_nt = 0). c = 1/m keeps the row on the scale of the others.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/collide2d.h"
#include "math/support.h"
#include "math/tb_math.h"

#include "engine/engine.h"

tbSupportDef tb_defaultSupportDef(void) {
  tbSupportDef d;
  memset(&d, 0, sizeof(d));
  d.body = -1;
  d.mu = 0.5;
  return d;
}

int tb_supportLoads(const tbModel* m, const double* vary, int s, double lambda[3]) {
  const double* prm = vary + tb_varyIndex(m, TB_F_SUPPORT, s, 0);
  double mass = vary[tb_varyIndex(m, TB_F_BODY_MASS, m->sup_body[s], 0)];
  double gz = vary[tb_varyIndex(m, TB_F_OPT, 0, TB_OPT_GRAVITY + 2)];
  switch (tbu_supportLoads(prm, mass, gz, lambda)) {
    case TB_SUPPORT_GRAVITY:
      return tb_setError("support %d: gravity z %g must be < 0 to load the tripod", s, gz);
    case TB_SUPPORT_MU:
      return tb_setError("support %d: mu %g must be finite and >= 0", s, prm[TB_SUP_MU]);
    case TB_SUPPORT_POINTS:
      return tb_setError(
          "support %d: the points (%g, %g), (%g, %g), (%g, %g) must surround the center of mass", s,
          prm[1], prm[2], prm[3], prm[4], prm[5], prm[6]);
    default:
      return 0;
  }
}

int tb_addSupport(tbModel* m, const tbSupportDef* def) {
  if (m->compiled) {
    tb_setError("model: already compiled, no more objects can be added");
    return -1;
  }
  int s = m->nsupport;
  if (def->body < 0 || def->body >= m->nbody || m->bdef[def->body].type != TB_BODY_DYNAMIC ||
      (m->bdef[def->body].lock & TB_LOCK_PLANAR) != TB_LOCK_PLANAR) {
    tb_setError("support %d: body %d must be a dynamic body locking TB_LOCK_PLANAR", s, def->body);
    return -1;
  }
  double p[6], w[3];
  memcpy(p, def->point, sizeof(p));
  for (int i = 0; i < 6; i++) {
    if (!isfinite(p[i])) {
      tb_setError("support %d: point %d must be finite", s, i / 2);
      return -1;
    }
  }
  if (tbu_originBarycentric(p, w) || !(w[0] > 0.0 && w[1] > 0.0 && w[2] > 0.0)) {
    tb_setError("support %d: the points must surround the center of mass (body origin)", s);
    return -1;
  }
  if (!(def->mu >= 0.0) || !isfinite(def->mu)) {
    tb_setError("support %d: mu %g must be finite and >= 0", s, def->mu);
    return -1;
  }
  if (s >= m->cap_support) {
    int nc = m->cap_support ? 2 * m->cap_support : 4;
    tbSupportDef* a = realloc(m->sdef, nc * sizeof(tbSupportDef));
    if (!a) return -1;
    m->sdef = a;
    m->cap_support = nc;
  }
  m->sdef[s] = *def;
  return m->nsupport++;
}

int tb_checkPrismDef(const tbModel* m, const tbGeomDef* def, int g) {
  if (def->nvert < 1 || def->nvert > TB_MAXVERT2D || !def->vert) {
    return tb_setError("geom %d: a prism needs 1 .. %d vertices, got %d", g, TB_MAXVERT2D,
                       def->nvert);
  }
  for (int i = 0; i < 2 * def->nvert; i++) {
    if (!isfinite(def->vert[i])) return tb_setError("geom %d: vertex %d is not finite", g, i / 2);
  }
  int bad = tbg2_polygonInvalid(def->vert, def->nvert);
  if (bad >= 0) {
    return tb_setError(
        "geom %d: vertex %d breaks the prism's core (distinct, strictly convex, counter-clockwise)",
        g, bad);
  }
  if (!(def->size[0] >= 0.0) || (def->nvert == 1 && !(def->size[0] > 0.0))) {
    return tb_setError("geom %d: prism radius size[0] = %g must be >= 0 (> 0 for a disc)", g,
                       def->size[0]);
  }
  // the extrusion must stay vertical: the shape turns about z only
  const double* q = def->quat;
  int b = def->body;
  const double* qb = m->bdef[b].quat;
  if (fabs(q[1]) + fabs(q[2]) > 1e-12 || fabs(qb[1]) + fabs(qb[2]) > 1e-12) {
    return tb_setError("geom %d: a prism and its body may only turn about z", g);
  }
  if (m->bdef[b].type == TB_BODY_DYNAMIC && (m->bdef[b].lock & TB_LOCK_PLANAR) != TB_LOCK_PLANAR) {
    return tb_setError("geom %d: a prism's dynamic body must lock TB_LOCK_PLANAR", g);
  }
  return 0;
}

int tb_compilePlanar(tbModel* m) {
  int nv = 0;
  for (int g = 0; g < m->ngeom; g++) nv += m->gdef[g].type == TB_GEOM_PRISM ? m->gdef[g].nvert : 0;
  m->geom_nvert = calloc(m->ngeom > 0 ? m->ngeom : 1, sizeof(int));
  m->geom_vertadr = calloc(m->ngeom > 0 ? m->ngeom : 1, sizeof(int));
  m->geom_vert = calloc(nv > 0 ? 2 * nv : 1, sizeof(double));
  m->nvert = nv;
  m->geom_vreach = calloc(m->ngeom > 0 ? m->ngeom : 1, sizeof(double));
  m->sup_body = calloc(m->nsupport > 0 ? m->nsupport : 1, sizeof(int));
  if (!m->geom_nvert || !m->geom_vertadr || !m->geom_vert || !m->geom_vreach || !m->sup_body) {
    return TB_ERR_MEMORY;
  }
  int adr = 0;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_vertadr[g] = adr;
    if (m->gdef[g].type != TB_GEOM_PRISM) continue;
    m->geom_nvert[g] = m->gdef[g].nvert;
    memcpy(m->geom_vert + 2 * adr, m->gdef[g].vert, sizeof(double) * 2 * m->gdef[g].nvert);
    for (int i = 0; i < m->gdef[g].nvert; i++) {
      const double* v = m->gdef[g].vert + 2 * i;
      m->geom_vreach[g] = fmax(m->geom_vreach[g], sqrt(v[0] * v[0] + v[1] * v[1]));
    }
    adr += m->gdef[g].nvert;
  }
  for (int s = 0; s < m->nsupport; s++) m->sup_body[s] = m->sdef[s].body;
  return TB_OK;
}

void tb_supportVary(const tbModel* m, double* vary0) {
  for (int s = 0; s < m->nsupport; s++) {
    double* v = vary0 + tb_varyIndex(m, TB_F_SUPPORT, s, 0);
    v[TB_SUP_MU] = m->sdef[s].mu;
    memcpy(v + TB_SUP_POINT, m->sdef[s].point, sizeof(double) * 6);
  }
}

int tb_checkSupports(const tbModel* m, const double* vary) {
  double lambda[3];
  for (int s = 0; s < m->nsupport; s++) {
    if (tb_supportLoads(m, vary, s, lambda)) return TB_ERR_ARG;
  }
  return TB_OK;
}

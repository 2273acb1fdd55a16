// Meshes' convex polyhedra (TB_GEOM_MESH): a definition checked and copied by tb_addGeom, and
// packed into the compiled model's hull_* arrays, which go to the device with the rest
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/error.h"

// how far a corner may stand off its face's plane or outside another face, relative to the
// polyhedron's size: the loader's hull is exact to rounding (qhull merges coplanar facets within
// its own 1e-13 or so); a face 1e-9 of the size out is not one face
#define TB_HULL_FLAT 1e-9

static int tb_hullCounts(const tbHullDef* h, int g) {
  if (!h) return tb_setError("geom %d: a mesh needs its polyhedron (hull)", g);
  if (h->nvert < 4 || h->nvert > TB_MAXHULLVERT || h->nface < 4 || !h->vert || !h->plane ||
      !h->face_nvert || !h->face_vert || !h->edge) {
    return tb_setError("geom %d: hull of %d corners (4 to %d) and %d faces (4 or more)", g,
                       h->nvert, TB_MAXHULLVERT, h->nface);
  }
  if (h->nedge != h->nvert + h->nface - 2) {
    return tb_setError("geom %d: hull edges %d: a polyhedron of %d corners and %d faces has %d", g,
                       h->nedge, h->nvert, h->nface, h->nvert + h->nface - 2);
  }
  return TB_OK;
}

// size of the polyhedron: its farthest corner from the geom frame's origin
static double tb_hullReach(const tbHullDef* h) {
  double r = 0.0;
  for (int i = 0; i < h->nvert; i++) {
    const double* v = h->vert + 3 * i;
    r = fmax(r, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  }
  return r;
}

// each face flat and unit, every corner inside every face, each face's corners and each edge's
// corners and faces in range
static int tb_hullShape(const tbHullDef* h, int g) {
  double tol = TB_HULL_FLAT * tb_hullReach(h);
  int k = 0;
  for (int f = 0; f < h->nface; f++) {
    const double* p = h->plane + 4 * f;
    int nv = h->face_nvert[f];
    if (!(fabs(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - 1.0) < 1e-12) || !isfinite(p[3])) {
      return tb_setError("geom %d: hull face %d's normal is not unit", g, f);
    }
    if (nv < 3 || nv > TB_MAXFACEVERT) {
      return tb_setError("geom %d: hull face %d has %d corners (3 to %d)", g, f, nv,
                         TB_MAXFACEVERT);
    }
    for (int j = 0; j < nv; j++, k++) {
      int v = h->face_vert[k];
      if (v < 0 || v >= h->nvert)
        return tb_setError("geom %d: hull face %d names corner %d", g, f, v);
      const double* x = h->vert + 3 * v;
      if (fabs(p[0] * x[0] + p[1] * x[1] + p[2] * x[2] - p[3]) > tol) {
        return tb_setError("geom %d: hull corner %d is off face %d's plane", g, v, f);
      }
    }
    for (int v = 0; v < h->nvert; v++) {
      const double* x = h->vert + 3 * v;
      if (!(p[0] * x[0] + p[1] * x[1] + p[2] * x[2] - p[3] <= tol)) {
        return tb_setError("geom %d: hull corner %d is outside face %d: not convex", g, v, f);
      }
    }
  }
  for (int e = 0; e < h->nedge; e++) {
    const int* x = h->edge + 4 * e;
    if (x[0] < 0 || x[0] >= h->nvert || x[1] < 0 || x[1] >= h->nvert || x[0] == x[1] || x[2] < 0 ||
        x[2] >= h->nface || x[3] < 0 || x[3] >= h->nface || x[2] == x[3]) {
      return tb_setError("geom %d: hull edge %d's corners or faces are out of range", g, e);
    }
  }
  return TB_OK;
}

int tb_checkHullDef(const tbHullDef* h, int g) {
  if (tb_hullCounts(h, g)) return TB_ERR_ARG;
  for (int i = 0; i < 3 * h->nvert; i++) {
    if (!isfinite(h->vert[i]))
      return tb_setError("geom %d: hull corner %d is not finite", g, i / 3);
  }
  return tb_hullShape(h, g);
}

tbHullDef* tb_copyHullDef(const tbHullDef* h) {
  int nfv = 0;
  for (int f = 0; f < h->nface; f++) nfv += h->face_nvert[f];
  size_t doubles = 3 * (size_t)h->nvert + 4 * (size_t)h->nface;
  size_t ints = (size_t)h->nface + (size_t)nfv + 4 * (size_t)h->nedge;
  char* blob = malloc(sizeof(tbHullDef) + sizeof(double) * doubles + sizeof(int) * ints);
  if (!blob) return NULL;
  tbHullDef* c = (tbHullDef*)blob;
  double* d = (double*)(blob + sizeof(tbHullDef));
  int* i = (int*)(d + doubles);
  *c = *h;
  memcpy(d, h->vert, sizeof(double) * 3 * h->nvert);
  memcpy(d + 3 * h->nvert, h->plane, sizeof(double) * 4 * h->nface);
  memcpy(i, h->face_nvert, sizeof(int) * h->nface);
  memcpy(i + h->nface, h->face_vert, sizeof(int) * nfv);
  memcpy(i + h->nface + nfv, h->edge, sizeof(int) * 4 * h->nedge);
  c->vert = d;
  c->plane = d + 3 * h->nvert;
  c->face_nvert = i;
  c->face_vert = i + h->nface;
  c->edge = i + h->nface + nfv;
  return c;
}

int tb_compileHulls(tbModel* m) {
  int nh = 0, nv = 0, nf = 0, nfv = 0, ne = 0;
  for (int g = 0; g < m->ngeom; g++) {
    const tbHullDef* h = m->gdef[g].type == TB_GEOM_MESH ? m->gdef[g].hull : NULL;
    if (!h) continue;
    nh++;
    nv += h->nvert;
    nf += h->nface;
    ne += h->nedge;
    for (int f = 0; f < h->nface; f++) nfv += h->face_nvert[f];
  }
  m->nhull = nh;
  m->nhullvert = nv;
  m->nhullface = nf;
  m->nhullfacevert = nfv;
  m->nhulledge = ne;
  if (TB_ALLOC(m->geom_hull, m->ngeom) || TB_ALLOC(m->hull_vertadr, nh) ||
      TB_ALLOC(m->hull_nvert, nh) || TB_ALLOC(m->hull_faceadr, nh) || TB_ALLOC(m->hull_nface, nh) ||
      TB_ALLOC(m->hull_edgeadr, nh) || TB_ALLOC(m->hull_nedge, nh) ||
      TB_ALLOC(m->hull_vert, 3 * nv) || TB_ALLOC(m->hull_plane, 4 * nf) ||
      TB_ALLOC(m->hull_facevertadr, nf) || TB_ALLOC(m->hull_facenvert, nf) ||
      TB_ALLOC(m->hull_facevert, nfv) || TB_ALLOC(m->hull_edge, 4 * ne)) {
    return TB_ERR_MEMORY;
  }
  int k = 0;
  nv = nf = nfv = ne = 0;
  for (int g = 0; g < m->ngeom; g++) {
    const tbHullDef* h = m->gdef[g].type == TB_GEOM_MESH ? m->gdef[g].hull : NULL;
    m->geom_hull[g] = h ? k : -1;
    if (!h) continue;
    m->hull_vertadr[k] = nv;
    m->hull_nvert[k] = h->nvert;
    m->hull_faceadr[k] = nf;
    m->hull_nface[k] = h->nface;
    m->hull_edgeadr[k] = ne;
    m->hull_nedge[k] = h->nedge;
    memcpy(m->hull_vert + 3 * nv, h->vert, sizeof(double) * 3 * h->nvert);
    memcpy(m->hull_plane + 4 * nf, h->plane, sizeof(double) * 4 * h->nface);
    memcpy(m->hull_edge + 4 * ne, h->edge, sizeof(int) * 4 * h->nedge);
    for (int f = 0, j = 0; f < h->nface; f++) {
      m->hull_facevertadr[nf + f] = nfv;
      m->hull_facenvert[nf + f] = h->face_nvert[f];
      for (int c = 0; c < h->face_nvert[f]; c++) m->hull_facevert[nfv++] = h->face_vert[j++];
    }
    m->geom_vreach[g] = tb_hullReach(h);
    nv += h->nvert;
    nf += h->nface;
    ne += h->nedge;
    k++;
  }
  return TB_OK;
}

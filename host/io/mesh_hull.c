// Convex hulls by qhull (reentrant libqhull_r): a vertex-only mesh's triangles, as MuJoCo's
// compiler computes them ("qhull Qt": triangulated facets), and a colliding mesh's polyhedron
// (default merging: coplanar facets one face, its corners ordered about it, its edges paired)
#include <libqhull_r/qhull_ra.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mesh_hull.h"
#include "util/error.h"

// qhull's own message (its first line), for the error
static void tb_qhullMessage(FILE* err, char* buf, size_t cap) {
  buf[0] = 0;
  if (!err) return;
  rewind(err);
  if (!fgets(buf, (int)cap, err)) buf[0] = 0;
  buf[strcspn(buf, "\n")] = 0;
}

// the hull's triangles into faces (nface x 3, indices of m's vertices), each turned so that
// its normal is the facet's outward one
static int tb_hullTriangles(qhT* qh, const tbMesh* m, int** faces, int* nface) {
  facetT* facet;
  vertexT *vertex, **vertexp;
  int n = 0;
  FORALLfacets n++;
  int* f = (int*)malloc(sizeof(int) * 3 * (size_t)(n ? n : 1));
  if (!f) return TB_ERR_MEMORY;
  int k = 0;
  FORALLfacets {
    int t[3], j = 0;
    FOREACHvertex_(facet->vertices) {
      if (j < 3) t[j] = qh_pointid(qh, vertex->point);
      j++;
    }
    if (j != 3) continue;  // "Qt" triangulates every facet
    const float *a = m->vert + 3 * t[0], *b = m->vert + 3 * t[1], *c = m->vert + 3 * t[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
           v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    if (x[0] * facet->normal[0] + x[1] * facet->normal[1] + x[2] * facet->normal[2] < 0) {
      int s = t[1];
      t[1] = t[2];
      t[2] = s;
    }
    memcpy(f + 3 * k++, t, sizeof(t));
  }
  *faces = f;
  *nface = k;
  return TB_OK;
}

// qhull on m's vertices with cmd, then take(qh, m, ctx) on the hull; take's code, or an error
// naming what with qhull's message
static int tb_qhull(const char* what, const tbMesh* m, const char* cmd,
                    int (*take)(qhT*, const tbMesh*, void*), void* ctx) {
  coordT* pts = (coordT*)malloc(sizeof(coordT) * 3 * (size_t)m->nvert);
  if (!pts) return tb_setError("%s: out of memory", what);
  for (int i = 0; i < 3 * m->nvert; i++) pts[i] = m->vert[i];
  char* text = NULL;
  size_t len = 0;
  FILE* err = open_memstream(&text, &len);
  qhT qh_qh, *qh = &qh_qh;
  char flags[32];
  snprintf(flags, sizeof(flags), "%s", cmd);
  qh_zero(qh, err);
  int code = qh_new_qhull(qh, 3, m->nvert, pts, False, flags, NULL, err);
  int rc;
  if (code) {
    char msg[200];
    if (err) fflush(err);
    tb_qhullMessage(err, msg, sizeof(msg));
    rc = tb_setError("%s: no convex hull of its %d vertices (they may lie in one plane): qhull: %s",
                     what, m->nvert, msg);
  } else {
    rc = take(qh, m, ctx);
  }
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  if (err) fclose(err);
  free(text);
  free(pts);
  return rc;
}

typedef struct tbTriangles {
  const char* what;
  int* face;
  int nface;
} tbTriangles;

static int tb_takeTriangles(qhT* qh, const tbMesh* m, void* ctx) {
  tbTriangles* t = (tbTriangles*)ctx;
  if (tb_hullTriangles(qh, m, &t->face, &t->nface) != TB_OK) {
    return tb_setError("%s: out of memory", t->what);
  }
  return TB_OK;
}

int tb_meshHullFaces(const char* what, tbMesh* m) {
  tbTriangles t = {what, NULL, 0};
  int rc = tb_qhull(what, m, "qhull Qt", tb_takeTriangles, &t);
  if (rc != TB_OK) return rc;
  free(m->face);
  m->face = t.face;
  m->nface = t.nface;
  return TB_OK;
}

//---- the polyhedron for contact ----------------------------------------------------------------

void tb_freeMeshHull(tbMeshHull* h) {
  free(h->vert);
  free(h->plane);
  free(h->face_nvert);
  free(h->face_vert);
  free(h->edge);
  memset(h, 0, sizeof(*h));
}

typedef struct tbPolyCtx {
  const char* what;
  const double *center, *R;  // R row-major: the frame's axes as its columns
  tbMeshHull* h;
} tbPolyCtx;

// the frame's coordinates of world point x
static void tb_toFrame(const tbPolyCtx* p, const double x[3], double y[3]) {
  double d[3] = {x[0] - p->center[0], x[1] - p->center[1], x[2] - p->center[2]};
  for (int k = 0; k < 3; k++) y[k] = p->R[k] * d[0] + p->R[3 + k] * d[1] + p->R[6 + k] * d[2];
}

static int tb_angleOrder(const void* a, const void* b) {
  double x = ((const double*)a)[0], y = ((const double*)b)[0];
  return x < y ? -1 : x > y;
}

// facet's corners (indices into the hull's corners, by qhull vertex id in ids[]) counter-
// clockwise about normal n (frame): sorted by angle about their mean
static int tb_faceCorners(const tbMeshHull* h, facetT* facet, const int* ids, const double n[3],
                          int* out) {
  vertexT *vertex, **vertexp;
  double key[TB_MAXFACEVERT][2], mid[3] = {0, 0, 0};
  int k = 0;
  FOREACHvertex_(facet->vertices) {
    if (k == TB_MAXFACEVERT) return -1;
    int v = ids[vertex->id];
    key[k][1] = v;
    for (int j = 0; j < 3; j++) mid[j] += h->vert[3 * v + j];
    k++;
  }
  for (int j = 0; j < 3; j++) mid[j] /= k;
  // u: any direction in the face; w = n x u; the angle atan2(w . r, u . r) grows counter-clockwise
  double u[3], w[3], r[3];
  int v0 = (int)key[0][1];
  for (int j = 0; j < 3; j++) u[j] = h->vert[3 * v0 + j] - mid[j];
  double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int j = 0; j < 3; j++) u[j] /= un;
  w[0] = n[1] * u[2] - n[2] * u[1];
  w[1] = n[2] * u[0] - n[0] * u[2];
  w[2] = n[0] * u[1] - n[1] * u[0];
  for (int i = 0; i < k; i++) {
    int v = (int)key[i][1];
    for (int j = 0; j < 3; j++) r[j] = h->vert[3 * v + j] - mid[j];
    key[i][0] =
        atan2(w[0] * r[0] + w[1] * r[1] + w[2] * r[2], u[0] * r[0] + u[1] * r[1] + u[2] * r[2]);
  }
  qsort(key, (size_t)k, sizeof(key[0]), tb_angleOrder);
  for (int i = 0; i < k; i++) out[i] = (int)key[i][1];
  return k;
}

static int tb_edgeKeyOrder(const void* a, const void* b) {
  const long *p = (const long*)a, *q = (const long*)b;
  return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : p[1] < q[1] ? -1 : p[1] > q[1];
}

// the edges from the faces' corner loops: each undirected edge in exactly two faces
static int tb_polyEdges(const char* what, tbMeshHull* h) {
  const tbHullDef* d = &h->def;
  int n = 0;
  for (int f = 0; f < d->nface; f++) n += d->face_nvert[f];
  long* e = (long*)malloc(sizeof(long) * 2 * (size_t)n);
  h->edge = (int*)malloc(sizeof(int) * 4 * (size_t)(n / 2 + 1));
  if (!e || !h->edge) {
    free(e);
    return tb_setError("%s: out of memory", what);
  }
  for (int f = 0, k = 0, at = 0; f < d->nface; f++) {
    int nv = d->face_nvert[f];
    for (int j = 0; j < nv; j++, k++) {
      int a = d->face_vert[at + j], b = d->face_vert[at + (j + 1) % nv];
      e[2 * k] = (long)(a < b ? a : b) * TB_MAXHULLVERT + (a < b ? b : a);
      e[2 * k + 1] = f;
    }
    at += nv;
  }
  qsort(e, (size_t)n, 2 * sizeof(long), tb_edgeKeyOrder);
  int ne = 0, rc = TB_OK;
  for (int i = 0; i < n && rc == TB_OK; i += 2) {
    if (i + 1 >= n || e[2 * i] != e[2 * i + 2] || (i + 2 < n && e[2 * i + 4] == e[2 * i])) {
      rc = tb_setError("%s: its hull's faces do not close up (qhull merged them unevenly)", what);
      break;
    }
    int* x = h->edge + 4 * ne++;
    x[0] = (int)(e[2 * i] / TB_MAXHULLVERT);
    x[1] = (int)(e[2 * i] % TB_MAXHULLVERT);
    x[2] = (int)e[2 * i + 1];
    x[3] = (int)e[2 * i + 3];
  }
  free(e);
  h->def.nedge = ne;
  h->def.edge = h->edge;
  return rc;
}

static int tb_takePolyhedron(qhT* qh, const tbMesh* m, void* ctx) {
  (void)m;  // (the hull's corners are qhull's points)
  tbPolyCtx* p = (tbPolyCtx*)ctx;
  tbMeshHull* h = p->h;
  facetT* facet;
  vertexT* vertex;
  int nv = qh->num_vertices, nf = qh->num_facets;
  if (nv > TB_MAXHULLVERT) {
    return tb_setError(
        "%s: its convex hull has %d corners, more than tumble's %d for contact "
        "(TB_MAXHULLVERT): a simpler collision mesh",
        p->what, nv, TB_MAXHULLVERT);
  }
  int* ids = (int*)malloc(sizeof(int) * (size_t)(qh->vertex_id + 1));
  h->vert = (double*)malloc(sizeof(double) * 3 * (size_t)nv);
  h->plane = (double*)malloc(sizeof(double) * 4 * (size_t)nf);
  h->face_nvert = (int*)malloc(sizeof(int) * (size_t)nf);
  h->face_vert = (int*)malloc(sizeof(int) * (size_t)nf * TB_MAXFACEVERT);
  if (!ids || !h->vert || !h->plane || !h->face_nvert || !h->face_vert) {
    free(ids);
    return tb_setError("%s: out of memory", p->what);
  }
  int k = 0;
  FORALLvertices {
    ids[vertex->id] = k;
    const coordT* x = vertex->point;
    double w[3] = {x[0], x[1], x[2]};
    tb_toFrame(p, w, h->vert + 3 * k++);
  }
  int f = 0, at = 0, rc = TB_OK;
  FORALLfacets {
    double* pl = h->plane + 4 * f;
    for (int j = 0; j < 3; j++)
      pl[j] = p->R[j] * facet->normal[0] + p->R[3 + j] * facet->normal[1] +
              p->R[6 + j] * facet->normal[2];
    int c = tb_faceCorners(h, facet, ids, pl, h->face_vert + at);
    if (c < 0) {
      rc = tb_setError("%s: a face of its convex hull has more than %d corners (TB_MAXFACEVERT)",
                       p->what, TB_MAXFACEVERT);
      break;
    }
    // the plane through the face's corners (the frame's offset, not qhull's of the file frame)
    double dsum = 0.0;
    for (int j = 0; j < c; j++) {
      const double* v = h->vert + 3 * h->face_vert[at + j];
      dsum += pl[0] * v[0] + pl[1] * v[1] + pl[2] * v[2];
    }
    pl[3] = dsum / c;
    h->face_nvert[f++] = c;
    at += c;
  }
  free(ids);
  h->def.nvert = nv;
  h->def.vert = h->vert;
  h->def.nface = f;
  h->def.plane = h->plane;
  h->def.face_nvert = h->face_nvert;
  h->def.face_vert = h->face_vert;
  return rc == TB_OK ? tb_polyEdges(p->what, h) : rc;
}

int tb_meshPolyhedron(const char* what, const tbMesh* m, const double center[3],
                      const double quat[4], tbMeshHull* h) {
  memset(h, 0, sizeof(*h));
  double w = quat[0], x = quat[1], y = quat[2], z = quat[3];
  const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  tbPolyCtx p = {what, center, R, h};
  // default precision merging ("C-0"): coplanar triangles become one face
  int rc = tb_qhull(what, m, "qhull", tb_takePolyhedron, &p);
  if (rc != TB_OK) tb_freeMeshHull(h);
  return rc;
}

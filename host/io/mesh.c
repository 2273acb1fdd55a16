// Mesh files into tbMesh (mesh.h): assimp reads STL (binary and ASCII) and OBJ, this file reads
// MuJoCo's MSH; then, as MuJoCo's compiler does, the vertices are held in single precision and
// scaled, repeated positions are merged, and the surface must bound a volume (each directed edge
// once and its reverse, a positive volume), whose mass properties come as MuJoCo's compiler
// computes them (tb_meshMass).
#define _GNU_SOURCE  // qsort_r
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/mesh.h"
#include "io/mesh_hull.h"
#include "util/error.h"

void tb_freeMesh(tbMesh* m) {
  if (!m) return;
  free(m->vert);
  free(m->face);
  memset(m, 0, sizeof(*m));
}

static int tb_meshAlloc(tbMesh* m, long nvert, long nface) {
  memset(m, 0, sizeof(*m));
  m->vert = (float*)malloc(sizeof(float) * 3 * (size_t)(nvert > 0 ? nvert : 1));
  m->face = (int*)malloc(sizeof(int) * 3 * (size_t)(nface > 0 ? nface : 1));
  m->nvert = (int)nvert;
  m->nface = (int)nface;
  return m->vert && m->face ? TB_OK : TB_ERR_MEMORY;
}

//---- the files ---------------------------------------------------------------------------------

// the meshes of an STL or OBJ file, all in one (a part's OBJ may hold several groups)
static int tb_meshAssimp(const char* what, const char* path, tbMesh* m) {
  const struct aiScene* sc =
      aiImportFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
  if (!sc) return tb_setError("%s: %s: %s", what, path, aiGetErrorString());
  long nv = 0, nf = 0;
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    nv += sc->mMeshes[k]->mNumVertices;
    for (unsigned i = 0; i < sc->mMeshes[k]->mNumFaces; i++)
      nf += sc->mMeshes[k]->mFaces[i].mNumIndices == 3;
  }
  int rc =
      nv > TB_MESH_MAXVERT
          ? tb_setError("%s: %s: %ld vertices, more than tumble's %d (mesh.h: TB_MESH_MAXVERT)",
                        what, path, nv, TB_MESH_MAXVERT)
          : tb_meshAlloc(m, nv, nf);
  long v0 = 0, f = 0;
  for (unsigned k = 0; k < sc->mNumMeshes && rc == TB_OK; k++) {
    const struct aiMesh* a = sc->mMeshes[k];
    for (unsigned i = 0; i < a->mNumVertices; i++) {
      m->vert[3 * (v0 + i) + 0] = a->mVertices[i].x;
      m->vert[3 * (v0 + i) + 1] = a->mVertices[i].y;
      m->vert[3 * (v0 + i) + 2] = a->mVertices[i].z;
    }
    // lines and points of the file bound nothing: only its triangles are the surface
    for (unsigned i = 0; i < a->mNumFaces; i++) {
      if (a->mFaces[i].mNumIndices != 3) continue;
      for (int j = 0; j < 3; j++) m->face[3 * f + j] = (int)(v0 + a->mFaces[i].mIndices[j]);
      f++;
    }
    v0 += a->mNumVertices;
  }
  aiReleaseImport(sc);
  if (rc == TB_ERR_MEMORY) return tb_setError("%s: %s: out of memory", what, path);
  return rc;
}

// MuJoCo's binary MSH: int32 counts of vertices, normals, texture coordinates and faces, then
// their float32 and int32 arrays; the file holds exactly these
static int tb_meshMsh(const char* what, const char* path, tbMesh* m) {
  errno = 0;
  FILE* fp = fopen(path, "rb");
  if (!fp) return tb_setError("%s: %s: cannot read the file (%s)", what, path, strerror(errno));
  int32_t n[4];
  long size = -1;
  int rc = TB_OK;
  if (fread(n, sizeof(int32_t), 4, fp) != 4 || fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0) {
    rc = tb_setError("%s: %s: shorter than an MSH header (16 bytes)", what, path);
  } else if (n[0] < 4 || n[0] > TB_MESH_MAXVERT || n[1] < 0 || n[2] < 0 || n[3] < 0 ||
             (n[1] && n[1] != n[0]) || (n[2] && n[2] != n[0]) ||
             size != 16 + 4L * (3L * n[0] + 3L * n[1] + 2L * n[2] + 3L * n[3])) {
    rc = tb_setError(
        "%s: %s: not an MSH file: counts %d vertices (4 to %d), %d normals, %d texture "
        "coordinates, %d faces for %ld bytes",
        what, path, n[0], TB_MESH_MAXVERT, n[1], n[2], n[3], size);
  } else if ((rc = tb_meshAlloc(m, n[0], n[3])) != TB_OK) {
    rc = tb_setError("%s: %s: out of memory", what, path);
  } else if (fseek(fp, 16, SEEK_SET) ||
             fread(m->vert, sizeof(float), 3 * (size_t)n[0], fp) != 3 * (size_t)n[0] ||
             fseek(fp, 16 + 4L * (3L * n[0] + 3L * n[1] + 2L * n[2]), SEEK_SET) ||
             fread(m->face, sizeof(int32_t), 3 * (size_t)n[3], fp) != 3 * (size_t)n[3]) {
    rc = tb_setError("%s: %s: cannot read the file", what, path);
  }
  fclose(fp);
  return rc;
}

//---- merging and checking ----------------------------------------------------------------------

static int tb_vertOrder(const void* a, const void* b, void* vert) {
  const float *p = (const float*)vert + 3 * *(const int*)a,
              *q = (const float*)vert + 3 * *(const int*)b;
  for (int k = 0; k < 3; k++) {
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  }
  return *(const int*)a - *(const int*)b;
}

// each position once (an STL file repeats a vertex in every triangle it is in): the first of
// each in file order keeps its place
static int tb_meshMerge(tbMesh* m) {
  int n = m->nvert, *order = (int*)malloc(sizeof(int) * (size_t)n),
      *to = (int*)malloc(sizeof(int) * (size_t)n);
  if (!order || !to) {
    free(order);
    free(to);
    return TB_ERR_MEMORY;
  }
  for (int i = 0; i < n; i++) order[i] = i;
  qsort_r(order, (size_t)n, sizeof(int), tb_vertOrder, m->vert);
  for (int i = 0; i < n; i++) {
    int same = i && !memcmp(m->vert + 3 * order[i], m->vert + 3 * order[i - 1], sizeof(float) * 3);
    to[order[i]] = same ? to[order[i - 1]] : order[i];
  }
  int kept = 0;
  for (int i = 0; i < n; i++) {  // order[] now maps old kept index -> new index
    if (to[i] != i) continue;
    memmove(m->vert + 3 * kept, m->vert + 3 * i, sizeof(float) * 3);
    order[i] = kept++;
  }
  for (int i = 0; i < 3 * m->nface; i++) m->face[i] = order[to[m->face[i]]];
  m->nvert = kept;
  free(order);
  free(to);
  return TB_OK;
}

static int tb_edgeOrder(const void* a, const void* b) {
  const long *p = (const long*)a, *q = (const long*)b;
  return *p < *q ? -1 : *p > *q;
}

// a closed surface, consistently turned, holds each directed edge once and its reverse
static int tb_meshEdges(const char* what, const tbMesh* m) {
  long* e = (long*)malloc(sizeof(long) * 3 * (size_t)m->nface);
  if (!e) return tb_setError("%s: out of memory", what);
  int ne = 0;
  for (int f = 0; f < m->nface; f++) {
    const int* t = m->face + 3 * f;
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;  // no edge of its own
    for (int j = 0; j < 3; j++) e[ne++] = (long)t[j] * (long)m->nvert + t[(j + 1) % 3];
  }
  qsort(e, (size_t)ne, sizeof(long), tb_edgeOrder);
  int rc = TB_OK;
  for (int i = 1; i < ne && rc == TB_OK; i++) {
    if (e[i] != e[i - 1]) continue;
    rc = tb_setError(
        "%s: the edge from vertex %ld to %ld is in two triangles turned alike: the surface is "
        "not one consistently turned closed surface (non-manifold, or a face turned over)",
        what, e[i] / m->nvert, e[i] % m->nvert);
  }
  for (int i = 0; i < ne && rc == TB_OK; i++) {
    long back = (e[i] % m->nvert) * (long)m->nvert + e[i] / m->nvert;
    if (bsearch(&back, e, (size_t)ne, sizeof(long), tb_edgeOrder)) continue;
    rc = tb_setError(
        "%s: the edge from vertex %ld to %ld has no triangle on its other side: the surface is "
        "open and bounds no volume",
        what, e[i] / m->nvert, e[i] % m->nvert);
  }
  free(e);
  return rc;
}

//---- mass properties ---------------------------------------------------------------------------

// triangle f's corners, less origin (NULL: none)
static void tb_corners(const tbMesh* m, int f, const double* origin, double p[3][3]) {
  for (int j = 0; j < 3; j++) {
    for (int k = 0; k < 3; k++)
      p[j][k] = m->vert[3 * m->face[3 * f + j] + k] - (origin ? origin[k] : 0.0);
  }
}

// a triangle's area, unit normal and centroid, as MuJoCo's compiler computes them (a triangle
// under 1e-15 m^2 twice over counts nothing)
static double tb_triangle(const double* a, const double* b, const double* c, double n[3],
                          double cen[3]) {
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
  for (int k = 0; k < 3; k++) cen[k] = (a[k] + b[k] + c[k]) / 3.0;
  double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (len < 1e-15) return 0.0;
  for (int k = 0; k < 3; k++) n[k] /= len;
  return len / 2.0;
}

void tb_meshMass(const tbMesh* m, int legacy, double* volume, double center[3], double inertia[9]) {
  // the surface's area centroid: the apex of the first pass's pyramids
  double apex[3] = {0, 0, 0}, area = 0.0, n[3], cen[3], p[3][3];
  for (int f = 0; f < m->nface; f++) {
    tb_corners(m, f, NULL, p);
    double a = tb_triangle(p[0], p[1], p[2], n, cen);
    for (int k = 0; k < 3; k++) apex[k] += a * cen[k];
    area += a;
  }
  for (int k = 0; k < 3; k++) apex[k] /= area;
  double V = 0.0, C[3] = {0, 0, 0};
  for (int f = 0; f < m->nface; f++) {
    tb_corners(m, f, NULL, p);
    double a = tb_triangle(p[0], p[1], p[2], n, cen);
    double vol =
        ((cen[0] - apex[0]) * n[0] + (cen[1] - apex[1]) * n[1] + (cen[2] - apex[2]) * n[2]) * a /
        3.0;
    if (legacy) vol = fabs(vol);
    V += vol;
    for (int k = 0; k < 3; k++) C[k] += vol * (cen[k] * 3.0 / 4.0 + apex[k] / 4.0);
  }
  for (int k = 0; k < 3; k++) C[k] /= V;
  // the second pass about that centre
  static const int ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  double P[6] = {0}, V2 = 0.0;
  for (int f = 0; f < m->nface; f++) {
    tb_corners(m, f, C, p);
    double a = tb_triangle(p[0], p[1], p[2], n, cen);
    double vol = (cen[0] * n[0] + cen[1] * n[1] + cen[2] * n[2]) * a / 3.0;
    if (legacy) vol = fabs(vol);
    V2 += vol;
    for (int q = 0; q < 6; q++) {
      int x = ij[q][0], y = ij[q][1];
      P[q] += vol / 20.0 *
              (2.0 * (p[0][x] * p[0][y] + p[1][x] * p[1][y] + p[2][x] * p[2][y]) +
               p[0][x] * p[1][y] + p[0][y] * p[1][x] + p[0][x] * p[2][y] + p[0][y] * p[2][x] +
               p[1][x] * p[2][y] + p[1][y] * p[2][x]);
    }
  }
  *volume = V2;
  memcpy(center, C, sizeof(C));
  double I[9] = {P[1] + P[2], -P[3], -P[4], -P[3], P[0] + P[2], -P[5], -P[4], -P[5], P[0] + P[1]};
  memcpy(inertia, I, sizeof(I));
}

//---- the whole mesh ----------------------------------------------------------------------------

// scale, merge, faces from the hull where the mesh has none, check, mass properties
static int tb_meshFinish(const char* what, const double scale[3], tbMesh* m) {
  for (int i = 0; i < m->nvert; i++) {
    for (int k = 0; k < 3; k++) {
      if (!isfinite(m->vert[3 * i + k])) {
        return tb_setError("%s: vertex %d is not finite", what, i);
      }
      m->vert[3 * i + k] = (float)(m->vert[3 * i + k] * scale[k]);
    }
  }
  for (int i = 0; i < 3 * m->nface; i++) {
    if (m->face[i] < 0 || m->face[i] >= m->nvert) {
      return tb_setError("%s: triangle %d names vertex %d of %d", what, i / 3, m->face[i],
                         m->nvert);
    }
  }
  if (m->nvert < 4) return tb_setError("%s: %d vertices: a solid needs 4 or more", what, m->nvert);
  if (tb_meshMerge(m) != TB_OK) return tb_setError("%s: out of memory", what);
  if (!m->nface && tb_meshHullFaces(what, m) != TB_OK) return TB_ERR_ARG;
  if (tb_meshEdges(what, m) != TB_OK) return TB_ERR_ARG;
  // MuJoCo's compiler refuses these too ("mesh volume is too small", "... negative")
  double V, C[3], I[9], ext = 0.0;
  tb_meshMass(m, 0, &V, C, I);
  for (int i = 0; i < 3 * m->nvert; i++) ext = fmax(ext, fabs(m->vert[i] - C[i % 3]));
  if (!(V > 1e-12 * ext * ext * ext)) {
    return tb_setError(
        "%s: volume %g m^3 %s: the triangles must bound a solid, turned counter-clockwise seen "
        "from outside",
        what, V, V < 0 ? "is negative (turned inside out)" : "is next to nothing");
  }
  return TB_OK;
}

int tb_meshRead(const char* what, const char* path, const double scale[3], tbMesh* m) {
  memset(m, 0, sizeof(*m));
  const char* dot = strrchr(path, '.');
  int rc;
  if (dot && (!strcasecmp(dot, ".stl") || !strcasecmp(dot, ".obj"))) {
    rc = tb_meshAssimp(what, path, m);
  } else if (dot && !strcasecmp(dot, ".msh")) {
    rc = tb_meshMsh(what, path, m);
  } else {
    rc = tb_setError("%s: %s: tumble reads .stl, .obj and .msh meshes", what, path);
  }
  char where[600];
  snprintf(where, sizeof(where), "%s: %s", what, path);
  if (rc == TB_OK) rc = tb_meshFinish(where, scale, m);
  if (rc != TB_OK) tb_freeMesh(m);
  return rc;
}

int tb_meshFromNumbers(const char* what, const double* v, int nvert, const int* f, int nface,
                       const double scale[3], tbMesh* m) {
  if (nvert > TB_MESH_MAXVERT) {
    return tb_setError("%s: %d vertices, more than tumble's %d (mesh.h: TB_MESH_MAXVERT)", what,
                       nvert, TB_MESH_MAXVERT);
  }
  if (tb_meshAlloc(m, nvert, nface) != TB_OK) {
    tb_freeMesh(m);
    return tb_setError("%s: out of memory", what);
  }
  for (int i = 0; i < 3 * nvert; i++) m->vert[i] = (float)v[i];
  memcpy(m->face, f, sizeof(int) * 3 * (size_t)nface);
  int rc = tb_meshFinish(what, scale, m);
  if (rc != TB_OK) tb_freeMesh(m);
  return rc;
}

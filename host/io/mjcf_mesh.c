// <asset><mesh> and geoms of type mesh: each mesh's file (or vertex= and face=) is read and
// checked as MuJoCo's compiler does, and a geom takes the mesh's volume as MuJoCo does: the mesh
// re-centred at its centroid and turned to its principal axes, which become the geom's frame
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mesh.h"
#include "io/mesh_hull.h"
#include "io/mjcf_internal.h"
#include "math/tb_math.h"
#include "util/error.h"

struct tbMjMesh {
  char name[256];  // its name=, else its file's name without directory and extension
  xmlNodePtr node;
  tbMesh mesh;                 // in the file's frame, scaled
  int legacy;                  // inertia="legacy" (MuJoCo's default), else "exact"
  double volume, center[3];    // m^3, m: the volume its inertia= gives, in the file's frame
  double quat[4], inertia[3];  // its principal frame in the file's frame, the moments there
  double solid;                // m^3, the solid's own volume (the exact one)
  int hulled;                  // 1 once hull holds its polyhedron, in its principal frame
  tbMeshHull hull;
};

void tb_mjFreeMeshes(tbMj* c) {
  for (int i = 0; i < c->nmesh; i++) {
    tb_freeMesh(&c->mesh[i].mesh);
    tb_freeMeshHull(&c->mesh[i].hull);
  }
  free(c->mesh);
  c->mesh = NULL;
  c->nmesh = 0;
}

int tb_mjFindMesh(const tbMj* c, xmlNodePtr n, int cls) {
  const char* name = tb_mjStr(c, n, cls, "mesh", NULL);
  if (!name) return tb_mjFail(c, n, "type=\"mesh\" needs mesh=, the name of an <asset> <mesh>"), -1;
  for (int i = 0; i < c->nmesh; i++) {
    if (!strcmp(c->mesh[i].name, name)) return i;
  }
  tb_mjFail(c, n, "mesh=\"%s\": no <asset> <mesh> of that name", name);
  return -1;
}

// the file's path: as given when absolute, else under meshdir, itself under the model file's
// directory unless absolute (MuJoCo's rule)
static void tb_mjMeshPath(const tbMj* c, const char* file, char* path, size_t cap) {
  if (file[0] == '/') {
    snprintf(path, cap, "%s", file);
    return;
  }
  const char* slash = strrchr(c->file, '/');
  int dir = c->meshdir[0] == '/' || !slash ? 0 : (int)(slash - c->file + 1);
  snprintf(path, cap, "%.*s%s%s%s", dir, c->file, c->meshdir,
           c->meshdir[0] && c->meshdir[strlen(c->meshdir) - 1] != '/' ? "/" : "", file);
}

// the numbers attribute name of n holds (0 when it has none), as tb_mjNums would read them
static int tb_mjCount(xmlNodePtr n, const char* name) {
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)name);
  const char* s = a ? tb_mjValue(a) : "";
  int k = 0;
  for (int in = 0; *s; s++) {
    int blank = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
    k += !blank && !in;
    in = !blank;
  }
  return k;
}

// vertex= and face= of mesh element n
static int tb_mjMeshNumbers(const tbMj* c, xmlNodePtr n, const char* what, const double* scale,
                            tbMesh* out) {
  int cv = tb_mjCount(n, "vertex"), cf = tb_mjCount(n, "face");
  if (cv > 3 * TB_MESH_MAXVERT) {
    return tb_mjFail(c, n, "vertex: %d numbers, more than tumble's %d vertices (TB_MESH_MAXVERT)",
                     cv, TB_MESH_MAXVERT);
  }
  double* v = (double*)malloc(sizeof(double) * (size_t)(cv + 1));
  double* f = (double*)malloc(sizeof(double) * (size_t)(cf + 1));
  int* fi = (int*)malloc(sizeof(int) * (size_t)(cf + 1));
  int nv = v && f && fi ? tb_mjNums(c, n, -1, "vertex", v, 12, cv) : -1;
  int nf = nv >= 0 ? tb_mjNums(c, n, -1, "face", f, 0, cf) : -1;
  int rc = !v || !f || !fi ? tb_mjFail(c, n, "out of memory") : nv < 0 || nf < 0 ? 2 : 0;
  if (!rc && (nv % 3 || nf % 3)) {
    rc = tb_mjFail(c, n, "%s: %d numbers: whole vertices (x y z) and triangles (i j k)",
                   nv % 3 ? "vertex" : "face", nv % 3 ? nv : nf);
  }
  for (int i = 0; !rc && i < nf; i++) {
    if (f[i] != floor(f[i]) || f[i] < 0 || f[i] >= nv / 3) {
      rc = tb_mjFail(c, n, "face: %g is not a vertex index (0 to %d)", f[i], nv / 3 - 1);
    }
    fi[i] = (int)f[i];
  }
  if (!rc && tb_meshFromNumbers(what, v, nv / 3, fi, nf / 3, scale, out) != TB_OK) rc = 2;
  free(v);
  free(f);
  free(fi);
  return rc;
}

// mesh i read, and its mass properties
static int tb_mjReadMesh(tbMj* c, int i) {
  tbMjMesh* me = &c->mesh[i];
  xmlNodePtr n = me->node;
  double scale[3] = {1, 1, 1};
  if (tb_mjNums(c, n, -1, "scale", scale, 3, 3) < 0) return 2;
  for (int k = 0; k < 3; k++) {
    if (!(scale[k] != 0.0 && fabs(scale[k]) <= 1e6)) {
      return tb_mjFail(c, n, "scale %g %g %g: each nonzero and within 1e6", scale[0], scale[1],
                       scale[2]);
    }
  }
  char what[400];
  snprintf(what, sizeof(what), "%s:%ld: <mesh name=\"%s\">", tb_mjFileOf(c, n), xmlGetLineNo(n),
           me->name);
  const char* file = tb_mjStr(c, n, -1, "file", NULL);
  int given = xmlHasProp(n, (const xmlChar*)"vertex") != NULL;
  if (file && given) return tb_mjFail(c, n, "give file= or vertex=, not both");
  if (!file && !given) return tb_mjFail(c, n, "a mesh needs file= or vertex=");
  if (file) {
    char path[4096];
    tb_mjMeshPath(c, file, path, sizeof(path));
    if (tb_meshRead(what, path, scale, &me->mesh) != TB_OK) return 2;
  } else if (tb_mjMeshNumbers(c, n, what, scale, &me->mesh)) {
    return 2;
  }
  double I[9], V[9], ce[3], Ie[9];
  me->legacy = strcmp(tb_mjStr(c, n, -1, "inertia", "legacy"), "exact") != 0;
  tb_meshMass(&me->mesh, me->legacy, &me->volume, me->center, I);
  tb_meshMass(&me->mesh, 0, &me->solid, ce, Ie);
  tb_mjEigen(I, me->inertia, V);
  tb_mjMatQuat(me->quat, V);
  return 0;
}

int tb_mjAssets(tbMj* c, xmlNodePtr asset) {
  for (xmlNodePtr k = xmlFirstElementChild(asset); k; k = xmlNextElementSibling(k)) {
    if (!tb_mjIs(k, "mesh")) continue;  // textures and materials: looks
    const char* name = tb_mjName(k);
    const char* file = tb_mjStr(c, k, -1, "file", NULL);
    if (!name && !file) return tb_mjFail(c, k, "a mesh needs name= or file=");
    tbMjMesh* m = (tbMjMesh*)realloc(c->mesh, sizeof(tbMjMesh) * (size_t)(c->nmesh + 1));
    if (!m) return tb_mjFail(c, k, "out of memory");
    c->mesh = m;
    tbMjMesh* me = &m[c->nmesh];
    memset(me, 0, sizeof(*me));
    me->node = k;
    if (name) {
      snprintf(me->name, sizeof(me->name), "%s", name);
    } else {
      const char* slash = strrchr(file, '/');
      snprintf(me->name, sizeof(me->name), "%s", slash ? slash + 1 : file);
      char* dot = strrchr(me->name, '.');
      if (dot && dot != me->name) *dot = 0;
    }
    for (int i = 0; i < c->nmesh; i++) {
      if (!strcmp(m[i].name, me->name)) return tb_mjFail(c, k, "mesh '%s' defined twice", me->name);
    }
    if (tb_mjReadMesh(c, c->nmesh++)) return 2;
  }
  return 0;
}

void tb_mjMeshMass(const tbMj* c, tbMjShape* s) {
  const tbMjMesh* me = &c->mesh[s->mesh];
  double density = s->mass_given >= 0.0 ? s->mass_given / me->volume : s->density;
  double d[3], q[4];
  tbu_rotVec(d, s->quat, me->center);
  tbu_add3(s->pos, s->pos, d);
  tbu_quatMul(q, s->quat, me->quat);
  memcpy(s->quat, q, sizeof(q));
  s->mass = density * me->volume;
  for (int k = 0; k < 3; k++) s->inertia[k] = density * me->inertia[k];
}

void tb_mjMeshNote(tbMj* c) {
  for (int i = 0; i < c->nmesh; i++) {
    const tbMjMesh* me = &c->mesh[i];
    if (!me->legacy || fabs(me->volume - me->solid) <= 1e-9 * me->solid) continue;
    size_t len = strlen(c->note);
    snprintf(c->note + len, sizeof(c->note) - len,
             "%smesh '%s': MuJoCo's legacy inertia (its default) makes its volume %.3g%% %s the "
             "solid's, as MuJoCo does; inertia=\"exact\" gives the solid's",
             len ? "; " : "", me->name, 100.0 * fabs(me->volume / me->solid - 1.0),
             me->volume > me->solid ? "over" : "under");
  }
}

const tbHullDef* tb_mjMeshHull(const tbMj* c, const tbMjShape* s) {
  tbMjMesh* me = &c->mesh[s->mesh];
  if (!me->hulled) {
    char what[400];
    snprintf(what, sizeof(what), "%s:%ld: <geom> mesh \"%s\"", tb_mjFileOf(c, s->node),
             xmlGetLineNo(s->node), me->name);
    if (tb_meshPolyhedron(what, &me->mesh, me->center, me->quat, &me->hull) != TB_OK) return NULL;
    me->hulled = 1;
  }
  return &me->hull.def;
}

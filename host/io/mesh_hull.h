// Convex hulls of meshes, by qhull
#ifndef TUMBLE_HOST_MESH_HULL_H_
#define TUMBLE_HOST_MESH_HULL_H_

#include <tumble/tumble.h>

#include "io/mesh.h"

// a mesh's convex polyhedron for contact: the arrays a tbHullDef views (tb_freeMeshHull)
typedef struct tbMeshHull {
  tbHullDef def;
  double *vert, *plane;
  int *face_nvert, *face_vert, *edge;
} tbMeshHull;

// m's triangles become its convex hull's, turned outward: a mesh given by its vertices alone
// (MuJoCo's rule); TB_OK, or an error naming what (its points lie in a plane, ...)
int tb_meshHullFaces(const char* what, tbMesh* m);
// m's convex hull as a polyhedron (coplanar facets merged into one face) in the frame at
// center turned by quat (y = R(quat)^T (x - center): a mesh geom's frame); TB_OK, or an error
// naming what (more than TB_MAXHULLVERT corners, a face of more than TB_MAXFACEVERT)
int tb_meshPolyhedron(const char* what, const tbMesh* m, const double center[3],
                      const double quat[4], tbMeshHull* h);
void tb_freeMeshHull(tbMeshHull* h);

#endif  // TUMBLE_HOST_MESH_HULL_H_

// Triangle meshes from files (STL and OBJ through assimp, MuJoCo's binary MSH) or from numbers,
// held as MuJoCo holds them (single-precision vertices, scaled), checked to bound a volume, and
// that volume's mass properties
#ifndef TUMBLE_HOST_MESH_H_
#define TUMBLE_HOST_MESH_H_

// the most vertices a mesh may have (a finger's or a part's scan is well under it)
#define TB_MESH_MAXVERT 1000000

typedef struct tbMesh {
  int nvert, nface;
  float* vert;  // (nvert x 3) m: the file's numbers in single precision, as MuJoCo holds them,
                // times the scale; each position once
  int* face;    // (nface x 3) counter-clockwise seen from outside
} tbMesh;

// path's mesh (.stl, .obj or .msh by its extension, any case) scaled by scale: TB_OK, or an
// error naming what (the MJCF element, for messages), the file and what is wrong with it
int tb_meshRead(const char* what, const char* path, const double scale[3], tbMesh* m);
// a mesh of nvert positions v (x y z each) and nface triangles f (vertex indices), scaled:
// MJCF's vertex= and face=; TB_OK, or an error naming what
int tb_meshFromNumbers(const char* what, const double* v, int nvert, const int* f, int nface,
                       const double scale[3], tbMesh* m);
void tb_freeMesh(tbMesh* m);
// the solid's volume (m^3), centre (m) and inertia about it at unit density (kg m^2 per kg/m^3,
// row-major) as MuJoCo's compiler computes them: pyramids from the surface's area centroid to each
// triangle, then from the centre so found; legacy (MuJoCo's default) takes every pyramid's volume
// positive, which is the solid's only where each face sees that point from outside (a convex
// mesh), else the exact signed volumes
void tb_meshMass(const tbMesh* m, int legacy, double* volume, double center[3], double inertia[9]);

#endif  // TUMBLE_HOST_MESH_H_

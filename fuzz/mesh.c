// Fuzz target: the mesh readers (an MJCF <mesh file=...>'s input) through the checks and the
// convex hull: the first byte picks the format (0: binary or ASCII STL, 1: OBJ, 2: MSH), the
// rest is the file.
#include <tumble/tumble.h>

#include "fuzz_file.h"
#include "io/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const names[3] = {"mesh.stl", "mesh.obj", "mesh.msh"};
  if (size < 1) return 0;
  const char* path = tb_fuzzFile(data + 1, size - 1, names[data[0] % 3]);
  const double scale[3] = {1, 1, 1};
  tbMesh m;
  if (path && tb_meshRead("fuzz", path, scale, &m) == TB_OK) {
    double v, c[3], I[9];
    tb_meshMass(&m, 1, &v, c, I);
    tb_freeMesh(&m);
  }
  return 0;
}

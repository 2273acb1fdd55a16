// Fuzz target: the Siconos text reader (an FC3D or LCP problem, tumble solve's input).
#include <string.h>

#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // an HDF5 signature is problem_hdf5's input (here it would fork libhdf5 children)
  if (size >= 8 && memcmp(data, "\x89HDF\r\n\x1a\n", 8) == 0) return 0;
  const char* path = tb_fuzzFile(data, size, "problem.dat");
  tbFileProblem fp;
  if (path && tb_readProblem(path, &fp) == TB_OK) tb_freeFileProblem(&fp);
  return 0;
}

// Fuzz target: the Siconos text reader (an FC3D or LCP problem, tumble solve's input).
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = tb_fuzzFile(data, size, "problem.dat");
  tbFileProblem fp;
  if (path && tb_readProblem(path, &fp) == TB_OK) tb_freeFileProblem(&fp);
  return 0;
}

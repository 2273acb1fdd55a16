// Fuzz target: the FCLib HDF5 reader (local and global problems). Crashes inside libhdf5 itself
// on crafted files are HDF5's; this target finds tumble's mistakes around it.
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = tb_fuzzFile(data, size, "problem.hdf5");
  tbFileProblem fp;
  if (path && tb_readProblem(path, &fp) == TB_OK) tb_freeFileProblem(&fp);
  return 0;
}

// Fuzz target: the FCLib HDF5 reader (local and global problems), read in this process so that
// the fuzzer sees its coverage. Crashes inside libhdf5 itself on crafted files are HDF5's (the
// library's tb_readProblem turns them into errors by reading in a child); scripts/fuzz.sh tells
// them apart from tumble's mistakes around it.
#include <tumble/reader.h>
#include <tumble/tumble.h>

#include "fuzz_file.h"
#include "io/reader_inprocess.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = tb_fuzzFile(data, size, "problem.hdf5");
  tbFileProblem fp;
  if (path && tb_readProblemInProcess(path, &fp) == TB_OK) tb_freeFileProblem(&fp);
  return 0;
}

// Fuzz target: the target-field table of `tumble plate optimize`.
#include <stdlib.h>

#include <tumble/plate.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = tb_fuzzFile(data, size, "target.csv");
  double* table = NULL;
  int n = 0;
  if (path && tb_readPlateTable(path, &table, &n) == TB_OK) free(table);
  return 0;
}

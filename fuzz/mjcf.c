// Fuzz target: the MJCF reader (tumble simulate --model's input), the whole way to a compiled
// model.
#include <tumble/mjcf.h>
#include <tumble/tumble.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = tb_fuzzFile(data, size, "model.xml");
  if (path) tb_freeModel(tb_loadMJCF(path));
  return 0;
}
